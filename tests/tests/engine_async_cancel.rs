//! Cancellation, pipelining and back-pressure of `serve_async`, byte for byte: a cancelled
//! call's future is dropped and nothing more is written for it; lines that arrive while a
//! tool runs are answered in order after its response; logs between requests.

mod engine_async_support;

use engine_async_support::*;

const V26: &str = "2026-07-28";
const V25: &str = "2025-11-25";

fn cancel(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{id},"reason":"user"}}}}"#
    )
}

fn text_result(id: &str, text: &str, legacy: bool) -> String {
    let tail = if legacy {
        ""
    } else {
        r#","resultType":"complete""#
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{text}"}}]{tail}}}}}"#
    )
}

#[test]
fn a_cancelled_call_is_dropped_and_never_answered_2026() {
    let (mut s, seen) = device();
    let hang = call26("\"h\"", "hang", "", r#""progressToken":"p""#);
    let next = call26("2", "slow", r#""ticks":1"#, "");
    // The cancel arrives once the tool's first progress line is out.
    let (lines, stats) = run(
        &mut s,
        &[
            (0, &(hang + "\n")),
            (1, &(cancel("\"h\"") + "\n" + &next + "\n")),
        ],
    );
    check_all(V26, &lines);
    assert_eq!(
        lines,
        vec![
            progress(r#""p""#, 1, None, Some("waiting")),
            text_result("2", "slow done", false),
        ]
    );
    assert!(seen.dropped.get(), "the engine dropped the tool's future");
    assert_eq!(stats.cancelled, 1);
    // The cancel line itself was then read as an ordinary notification.
    assert_eq!(stats.notifications, 1);
}

#[test]
fn a_cancelled_call_is_dropped_and_never_answered_legacy() {
    let (mut s, seen) = device();
    let hang = call_legacy("5", "hang", "", r#""progressToken":5"#);
    let input = format!("{INITIALIZE}\n{INITIALIZED}\n{hang}\n");
    let ping = r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#;
    let (lines, stats) = run(
        &mut s,
        &[(0, &input), (2, &(cancel("5") + "\n" + ping + "\n"))],
    );
    check_all(V25, &lines);
    assert_eq!(
        lines[1..],
        [
            progress("5", 1, None, Some("waiting")),
            r#"{"jsonrpc":"2.0","id":6,"result":{}}"#.to_owned(),
        ]
    );
    assert!(seen.dropped.get());
    assert_eq!(stats.cancelled, 1);
}

#[test]
fn a_tool_that_stops_on_cancel_sends_nothing_more() {
    let (mut s, seen) = device();
    let call = call26(
        "1",
        "graceful",
        "",
        r#""progressToken":1,"io.modelcontextprotocol/logLevel":"debug""#,
    );
    let (lines, stats) = run(&mut s, &[(0, &(call + "\n")), (1, &(cancel("1") + "\n"))]);
    check_all(V26, &lines);
    assert_eq!(lines, vec![progress("1", 1, None, None)]);
    assert!(seen.stopped.get(), "the tool saw the cancellation");
    assert_eq!(stats.cancelled, 1);
}

#[test]
fn a_cancel_for_another_id_or_a_string_id_does_not_cancel() {
    let (mut s, seen) = device();
    let call = call26("1", "slow", r#""ticks":40"#, "");
    // `"1"` is a string id: not request 1.
    let noise = format!("{}\n{}\n", cancel("2"), cancel("\"1\""));
    let (lines, stats) = run(&mut s, &[(0, &(call + "\n" + &noise))]);
    check_all(V26, &lines);
    assert_eq!(lines, vec![text_result("1", "slow done", false)]);
    assert!(!seen.dropped.get());
    assert_eq!(stats.cancelled, 0);
    assert_eq!(stats.notifications, 2);
}

#[test]
fn requests_pipelined_behind_a_long_call_are_answered_after_it_in_order() {
    let (mut s, _) = device();
    let first = call26("1", "slow", r#""ticks":30"#, "");
    let second = call26("2", "count", r#""n":1"#, r#""progressToken":"b""#);
    let third = call26("3", "slow", r#""ticks":0"#, "");
    // The second request arrives in the same read as the first, the third in pieces of 5
    // bytes while the first still runs.
    let (lines, _) = run(
        &mut s,
        &[
            (0, &format!("{first}\n{second}\n")),
            (0, &format!("{third}\n")),
        ],
    );
    check_all(V26, &lines);
    assert_eq!(
        lines,
        vec![
            text_result("1", "slow done", false),
            progress(r#""b""#, 1, Some(1), Some("step 1")),
            r#"{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"count":1},"content":[{"type":"text","text":"{\"count\":1}"}],"resultType":"complete"}}"#.to_owned(),
            text_result("3", "slow done", false),
        ]
    );
}

#[test]
fn a_full_buffer_stops_reading_and_loses_nothing() {
    let (mut s, _) = device();
    let first = call26("1", "slow", r#""ticks":200"#, "");
    // Ten requests, far more than the 512-byte buffer holds behind the first one.
    let rest: String = (2..12)
        .map(|i| call26(&i.to_string(), "slow", r#""ticks":0"#, "") + "\n")
        .collect();
    assert!(rest.len() > 1024);
    let wire = Wire::default();
    let script = Script::new(&wire, &[(0, &format!("{first}\n")), (0, &rest)]).max_read(64);
    let delivered = script.before_first_line.clone();
    let mut reader = embedded_mcp::transport::LineReader::<_, 512>::new(script);
    let mut writer = wire.clone();
    let mut out = vec![0u8; 1024];
    block_on(s.serve_async(&mut reader, &mut writer, &mut out)).expect("serves");
    // While the first call ran, the reader filled the buffer and then stopped reading.
    assert_eq!(delivered.get(), 512);
    let lines: Vec<String> = wire.text().lines().map(str::to_owned).collect();
    check_all(V26, &lines);
    let expected: Vec<String> = (1..12)
        .map(|i| text_result(&i.to_string(), "slow done", false))
        .collect();
    assert_eq!(lines, expected);
}

#[test]
fn the_idle_hook_logs_between_requests_on_an_initialized_legacy_stream() {
    let (mut s, seen) = device();
    seen.idle_logs.set(1);
    let set_level =
        r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}"#;
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    // The ping is sent once the idle log line is out (the third line).
    let (lines, _) = run(
        &mut s,
        &[
            (0, &format!("{INITIALIZE}\n{set_level}\n")),
            (3, &format!("{ping}\n")),
        ],
    );
    check_all(V25, &lines);
    assert_eq!(
        lines[1..],
        [
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_owned(),
            log("warning", Some("button"), r#""pressed""#),
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#.to_owned(),
        ]
    );
    assert_eq!(seen.idle_logs.get(), 0);
}

#[test]
fn the_idle_hook_never_logs_to_a_2026_peer() {
    let (mut s, seen) = device();
    seen.idle_logs.set(1);
    let (lines, _) = run(
        &mut s,
        &[(0, &(call26("1", "slow", r#""ticks":0"#, "") + "\n"))],
    );
    assert_eq!(lines, vec![text_result("1", "slow done", false)]);
    assert_eq!(seen.idle_logs.get(), 1);
}
