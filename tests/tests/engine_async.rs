//! Async tools through `serve_async`, byte for byte: progress (order, count, token echo,
//! monotonicity, rate limit) and log messages (level filtering in both eras), every line
//! checked against the official schema of its era.

mod engine_async_support;

use embedded_mcp::protocol::LogLevel;
use embedded_mcp::server::Config;
use engine_async_support::*;

const V26: &str = "2026-07-28";
const V25: &str = "2025-11-25";

fn count_result(id: &str, n: u32, legacy: bool) -> String {
    let tail = if legacy {
        ""
    } else {
        r#","resultType":"complete""#
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{{"count":{n}}},"content":[{{"type":"text","text":"{{\"count\":{n}}}"}}]{tail}}}}}"#
    )
}

#[test]
fn progress_and_info_logs_come_before_the_response_2026() {
    let (mut s, _) = device();
    let line = call26(
        "7",
        "count",
        "",
        r#""progressToken":"tok-1","io.modelcontextprotocol/logLevel":"info""#,
    );
    let (lines, _) = run(&mut s, &[(0, &(line + "\n"))]);
    check_all(V26, &lines);
    assert_eq!(
        lines,
        vec![
            log("info", Some("count"), r#""counting""#),
            progress(r#""tok-1""#, 1, Some(3), Some("step 1")),
            progress(r#""tok-1""#, 2, Some(3), Some("step 2")),
            progress(r#""tok-1""#, 3, Some(3), Some("step 3")),
            count_result("7", 3, false),
        ]
    );
}

#[test]
fn without_token_or_level_nothing_but_the_response_2026() {
    let (mut s, _) = device();
    let (lines, _) = run(
        &mut s,
        &[(0, &(call26("1", "count", r#""n":5"#, "") + "\n"))],
    );
    check_all(V26, &lines);
    assert_eq!(lines, vec![count_result("1", 5, false)]);
}

#[test]
fn debug_level_admits_everything_warning_only_warnings_2026() {
    let (mut s, _) = device();
    let input = format!(
        "{}\n{}\n",
        call26(
            "1",
            "count",
            r#""n":2"#,
            r#""io.modelcontextprotocol/logLevel":"debug""#
        ),
        call26(
            "2",
            "count",
            r#""n":5"#,
            r#""io.modelcontextprotocol/logLevel":"warning""#
        ),
    );
    let (lines, _) = run(&mut s, &[(0, &input)]);
    check_all(V26, &lines);
    assert_eq!(
        lines,
        vec![
            log("info", Some("count"), r#""counting""#),
            log("debug", None, "[1]"),
            log("debug", None, "[2]"),
            count_result("1", 2, false),
            log("warning", Some("count"), r#"{"count":5}"#),
            count_result("2", 5, false),
        ]
    );
}

#[test]
fn an_unknown_log_level_is_invalid_params_2026() {
    let (mut s, _) = device();
    let line = call26(
        "3",
        "count",
        "",
        r#""io.modelcontextprotocol/logLevel":"verbose""#,
    );
    let (lines, _) = run(&mut s, &[(0, &(line + "\n"))]);
    check_all(V26, &lines);
    assert_eq!(
        lines,
        vec![
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"Invalid params: _meta[\"io.modelcontextprotocol/logLevel\"] must be one of debug, info, notice, warning, error, critical, alert, emergency"}}"#
        ]
    );
}

#[test]
fn set_level_does_not_exist_in_2026() {
    let (mut s, _) = device();
    let line = format!(
        r#"{{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{{"_meta":{{{META26}}},"level":"info"}}}}"#
    );
    let (lines, _) = run(&mut s, &[(0, &(line + "\n"))]);
    check_all(V26, &lines);
    assert_eq!(
        lines,
        vec![
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"Method not found: logging/setLevel does not exist in 2026-07-28 (use _meta[\"io.modelcontextprotocol/logLevel\"])"}}"#
        ]
    );
}

#[test]
fn legacy_stream_level_from_set_level_and_integer_token() {
    let (mut s, _) = device();
    let input = [
        INITIALIZE.to_owned(),
        INITIALIZED.to_owned(),
        // Before setLevel (Config::log_level is None): no log messages.
        call_legacy("1", "count", r#""n":1"#, r#""progressToken":42"#),
        r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}"#
            .to_owned(),
        call_legacy("3", "count", r#""n":1"#, r#""progressToken":43"#),
        r#"{"jsonrpc":"2.0","id":4,"method":"logging/setLevel","params":{"level":"loud"}}"#
            .to_owned(),
        r#"{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"error"}}"#
            .to_owned(),
        call_legacy("6", "count", r#""n":5"#, ""),
    ]
    .join("\n")
        + "\n";
    let (lines, _) = run(&mut s, &[(0, &input)]);
    check_all(V25, &lines);
    assert!(lines[0].contains(r#""capabilities":{"tools":{"listChanged":false},"logging":{}}"#));
    assert_eq!(
        lines[1..],
        [
            progress("42", 1, Some(1), Some("step 1")),
            count_result("1", 1, true),
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#.to_owned(),
            log("info", Some("count"), r#""counting""#),
            log("debug", None, "[1]"),
            progress("43", 1, Some(1), Some("step 1")),
            count_result("3", 1, true),
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params: \"level\" must be one of debug, info, notice, warning, error, critical, alert, emergency"}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":5,"result":{}}"#.to_owned(),
            // `error` admits no warning: nothing but the response.
            count_result("6", 5, true),
        ]
    );
    assert_eq!(s.log_level(), Some(LogLevel::Error));
    // A new initialize starts a new session at the configured level.
    s.reset_session();
    assert_eq!(s.log_level(), None);
}

#[test]
fn a_configured_legacy_level_applies_before_set_level() {
    let (mut s, _) = device_with(Config {
        log_level: Some(LogLevel::Warning),
        ..Config::DEFAULT
    });
    let input = format!(
        "{INITIALIZE}\n{}\n",
        call_legacy("1", "count", r#""n":6"#, "")
    );
    let (lines, _) = run(&mut s, &[(0, &input)]);
    check_all(V25, &lines);
    assert_eq!(
        lines[1..],
        [
            log("warning", Some("count"), r#"{"count":6}"#),
            count_result("1", 6, true)
        ]
    );
}

#[test]
fn progress_strictly_increases() {
    let (mut s, _) = device();
    let line = call26("1", "wobble", "", r#""progressToken":0"#);
    let (lines, _) = run(&mut s, &[(0, &(line + "\n"))]);
    check_all(V26, &lines);
    assert_eq!(
        lines,
        vec![
            progress("0", 1, None, None),
            progress("0", 2, None, None),
            progress("0", 3, None, None),
            r#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":[true,false,false,true,false,true],"content":[{"type":"text","text":"[true,false,false,true,false,true]"}],"resultType":"complete"}}"#.to_owned(),
        ]
    );
}

#[test]
fn the_rate_limit_holds_reports_and_sends_the_last_before_the_response() {
    let (mut s, _) = device_with(Config {
        progress_interval_ms: 100,
        clock: Some(CLOCK),
        ..Config::DEFAULT
    });
    // Steps at 30, 60, ... 300 ms: 30 is sent, then the first report 100 ms after the last
    // sent one (150, 270); 300 is held and sent just before the response.
    let line = call26("9", "count", r#""n":10,"ms":30"#, r#""progressToken":"r""#);
    let (lines, _) = run(&mut s, &[(0, &(line + "\n"))]);
    check_all(V26, &lines);
    let step = |i: u32| progress(r#""r""#, i, Some(10), Some(&format!("step {i}")));
    assert_eq!(
        lines,
        vec![
            step(1),
            step(5),
            step(9),
            step(10),
            count_result("9", 10, false)
        ]
    );
}

#[test]
fn held_progress_goes_out_before_a_log_line() {
    let (mut s, _) = device_with(Config {
        progress_interval_ms: 1_000,
        clock: Some(CLOCK),
        ..Config::DEFAULT
    });
    // Reports 2 to 5 are held in turn; the warning at the end sends the held one (5) first,
    // so the order is kept.
    let line = call26(
        "2",
        "count",
        r#""n":5,"ms":1"#,
        r#""progressToken":5,"io.modelcontextprotocol/logLevel":"warning""#,
    );
    let (lines, _) = run(&mut s, &[(0, &(line + "\n"))]);
    check_all(V26, &lines);
    assert_eq!(
        lines,
        vec![
            progress("5", 1, Some(5), Some("step 1")),
            progress("5", 5, Some(5), Some("step 5")),
            log("warning", Some("count"), r#"{"count":5}"#),
            count_result("2", 5, false),
        ]
    );
}

#[test]
fn sync_handle_line_still_answers_async_devices_tools_with_sync_handlers_only() {
    // A sync handler is an AsyncHandler: serve_async answers it (engine_2026 covers it); here
    // the async device answers every non-call request the same way as the sync path.
    let (mut s, _) = device();
    let discover = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{{"_meta":{{{META26}}}}}}}"#
    );
    let (lines, _) = run(&mut s, &[(0, &(discover + "\n"))]);
    check_all(V26, &lines);
    assert!(lines[0].contains(r#""capabilities":{"tools":{"listChanged":false},"logging":{}}"#));
}
