//! The scripted sessions, each a function of the [`Firmware`] under test; the test files call
//! them from their `#[test]` functions.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use embedded_mcp_std::full::ToolChecker;
use embedded_mcp_tests::qemu::{cargo_runner, ensure_qemu_for, QemuGuard};
use serde_json::{json, Value};

use super::{
    check_schema, check_tool_list, tail, Firmware, Session, INPUT_LINE_BYTES, LEGACY, STATELESS,
    TIMEOUT, TOOL_NAMES,
};

/// Calls every tool and checks the (deterministic) results byte for byte.
fn call_every_tool(s: &mut Session, fw: &Firmware) {
    let v = s.version;
    let t = tail(v);
    let id = s.next_id;
    let (line, _) = s.call("read_temperature", json!({}));
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{{"value":36.88,"unit":"°C","sensorId":"tmp-board","sample":1}},"content":[{{"type":"text","text":"{{\"value\":36.88,\"unit\":\"°C\",\"sensorId\":\"tmp-board\",\"sample\":1}}"}}]{t}"#
        )
    );
    // The sample counter advances per call, and the value changes.
    let (_, second) = s.call("read_temperature", json!({"sensor": 0}));
    assert_eq!(second["structuredContent"]["sample"], 2);
    assert_ne!(second["structuredContent"]["value"], 36.88);
    let (_, ambient) = s.call("read_temperature", json!({"sensor": 1}));
    assert_eq!(ambient["structuredContent"]["sensorId"], "tmp-ambient");
    assert_eq!(ambient["structuredContent"]["sample"], 1);

    let id = s.next_id;
    let (line, _) = s.call("read_acceleration", json!({}));
    let expected = if v == STATELESS {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":[0.36,1.01,9.69],"content":[{{"type":"text","text":"[0.36,1.01,9.69]"}}]{t}"#
        )
    } else {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{{"result":[0.36,1.01,9.69]}},"content":[{{"type":"text","text":"{{\"result\":[0.36,1.01,9.69]}}"}}]{t}"#
        )
    };
    assert_eq!(line, expected);

    let id = s.next_id;
    let (line, _) = s.call("set_led", json!({"led": "green", "brightness": 40}));
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{{"led":"green","brightness":40,"previous":0}},"content":[{{"type":"text","text":"{{\"led\":\"green\",\"brightness\":40,\"previous\":0}}"}}]{t}"#
        )
    );
    // Idempotent: the same call again leaves the same state. Integral numbers in any JSON
    // spelling are integers (`4e1`, `40.0`).
    for spelling in ["4e1", "40.0", "400e-1"] {
        let raw = format!(
            r#"{{"jsonrpc":"2.0","id":"{spelling}","method":"tools/call","params":{{"name":"set_led","arguments":{{"led":"green","brightness":{spelling}}}{}}}}}"#,
            if v == STATELESS {
                r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#
            } else {
                ""
            }
        );
        s.qemu.send_line(&raw).unwrap();
        let reply = s.qemu.read_line(TIMEOUT).expect("set_led answer");
        check_schema(v, "tools/call", &reply);
        assert!(
            reply.contains(r#"{"led":"green","brightness":40,"previous":40}"#),
            "{reply}"
        );
    }

    let (line, info) = s.call("device_info", json!({}));
    let info = &info["structuredContent"];
    assert_eq!(info["firmware"], fw.name, "{line}");
    assert_eq!(info["board"], fw.board_name);
    assert_eq!(info["inputBufferBytes"], INPUT_LINE_BYTES);
    assert_eq!(info["outputBufferBytes"], 1400);
    assert_eq!(
        info["calls"], 9,
        "every call so far reached the handler once"
    );
    let uptime = info["uptimeMs"].as_u64().unwrap();
    assert!(uptime > 0 && uptime < 600_000, "{line}");
    let (peak, size) = (
        info["stackPeakBytes"].as_u64().unwrap(),
        info["stackSizeBytes"].as_u64().unwrap(),
    );
    assert!(peak > 0 && peak < size, "{line}");
    assert!(info["rxFreeBytes"].as_u64().unwrap() <= 256);
}

/// A raw 2026-07-28 `set_relay` call from a client that declares `elicitation` (or not), with
/// `extra` params members.
fn relay_line(id: &str, arguments: &str, elicitation: bool, extra: &str) -> String {
    let capabilities = if elicitation {
        r#"{"elicitation":{}}"#
    } else {
        "{}"
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{capabilities}}},"name":"set_relay","arguments":{arguments}{extra}}}}}"#
    )
}

/// Sends `line` and returns the schema-checked answer, checked as a strict client does when it
/// is a result.
fn relay_exchange(s: &mut Session, line: &str) -> (String, Value) {
    s.qemu.send_line(line).unwrap();
    let reply = s.qemu.read_line(TIMEOUT).expect("set_relay answer");
    let value = check_schema(s.version, "tools/call", &reply);
    if let Some(result) = value.get("result") {
        s.checker
            .check_result(s.version, "set_relay", result)
            .unwrap_or_else(|e| panic!("{e}\n{reply}"));
    }
    (reply, value)
}

/// The relays `device_info` reports.
fn relays(s: &mut Session) -> Value {
    let (_, info) = s.call("device_info", json!({}));
    info["structuredContent"]["relays"].clone()
}

/// `set_relay` behind a person's approval (2026-07-28 `input_required`): on only after an
/// accepted answer for exactly those arguments, once; off without asking; refusals never act.
/// Legacy sessions straight to the device are told to connect through the bridge.
fn relay_behind_approval(s: &mut Session) {
    let refused = |id: &str, text: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":"{id}","result":{{"content":[{{"type":"text","text":"{text}: tool set_relay did not act"}}],"isError":true{}"#,
            tail(s.version)
        )
    };
    let on = r#"{"relay":0,"on":true}"#;
    if !s.stateless() {
        let (line, _) = s.call("set_relay", json!({"relay": 0, "on": true}));
        let id = s.next_id - 1;
        assert_eq!(
            line,
            refused(&id.to_string(), "This tool needs a person's approval, which this client cannot be asked for: use a client that declares elicitation, or `embedded-mcp call` on a terminal").replace(&format!(r#""id":"{id}""#), &format!(r#""id":{id}"#))
        );
        let (_, off) = s.call("set_relay", json!({"relay": 0, "on": false}));
        assert_eq!(
            off["structuredContent"],
            json!({"relay": 0, "on": false, "wasOn": false})
        );
        assert_eq!(relays(s), json!([false, false]));
        return;
    }
    // Without `elicitation`: -32021, no form.
    let (line, _) = relay_exchange(s, &relay_line("bare", on, false, ""));
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"bare","error":{"code":-32021,"message":"Missing required client capability: elicitation","data":{"requiredCapabilities":{"elicitation":{"form":{}}}}}}"#
    );
    // The form, with a sealed state.
    let (line, value) = relay_exchange(s, &relay_line("ask", on, true, ""));
    let state = value["result"]["requestState"]
        .as_str()
        .expect("a state")
        .to_owned();
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":"ask","result":{{"resultType":"input_required","inputRequests":{{"approval":{{"method":"elicitation/create","params":{{"mode":"form","message":"Switch relay 0 on?","requestedSchema":{{"type":"object","properties":{{"approve":{{"type":"boolean","title":"Approve","description":"Let the device go ahead"}}}},"required":["approve"]}}}}}}}},"requestState":"{state}"}}}}"#
        )
    );
    let answered = |state: &str, action: &str| {
        format!(r#","inputResponses":{{"approval":{action}}},"requestState":"{state}""#)
    };
    let accept = r#"{"action":"accept","content":{"approve":true}}"#;
    // Other arguments, a forged tag: refused, nothing switched.
    let (line, _) = relay_exchange(
        s,
        &relay_line(
            "other",
            r#"{"relay":1,"on":true}"#,
            true,
            &answered(&state, accept),
        ),
    );
    let forged_text =
        "Approval refused: the requestState was not issued for this tool and these arguments";
    assert_eq!(line, refused("other", forged_text));
    let mut forged = state.clone();
    let last = if forged.ends_with('0') { "1" } else { "0" };
    forged.replace_range(forged.len() - 1.., last);
    let (line, _) = relay_exchange(
        s,
        &relay_line("forged", on, true, &answered(&forged, accept)),
    );
    assert_eq!(line, refused("forged", forged_text));
    assert_eq!(relays(s), json!([false, false]));
    // Accepted: the relay switches, once.
    let (line, _) = relay_exchange(s, &relay_line("yes", on, true, &answered(&state, accept)));
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"yes","result":{"structuredContent":{"relay":0,"on":true,"wasOn":false},"content":[{"type":"text","text":"{\"relay\":0,\"on\":true,\"wasOn\":false}"}],"resultType":"complete"}}"#
    );
    let (line, _) = relay_exchange(
        s,
        &relay_line("replay", on, true, &answered(&state, accept)),
    );
    assert_eq!(
        line,
        refused("replay", "Approval refused: already answered")
    );
    assert_eq!(relays(s), json!([true, false]));
    // Declined and cancelled: relay 1 stays off.
    let on1 = r#"{"relay":1,"on":true}"#;
    for (action, text) in [
        (r#"{"action":"decline"}"#, "The user declined"),
        (r#"{"action":"cancel"}"#, "The user cancelled"),
    ] {
        let (_, value) = relay_exchange(s, &relay_line("ask1", on1, true, ""));
        let state = value["result"]["requestState"].as_str().unwrap().to_owned();
        let (line, _) = relay_exchange(s, &relay_line("no", on1, true, &answered(&state, action)));
        assert_eq!(line, refused("no", text));
    }
    assert_eq!(relays(s), json!([true, false]));
    // Off needs no approval; the output has the previous state.
    let (line, _) = relay_exchange(
        s,
        &relay_line("off", r#"{"relay":0,"on":false}"#, false, ""),
    );
    assert!(
        line.contains(r#""structuredContent":{"relay":0,"on":false,"wasOn":true}"#),
        "{line}"
    );
    assert_eq!(relays(s), json!([false, false]));
}

/// Arguments that fail the compiled `inputSchema`: `isError` results that say what is wrong.
fn bad_arguments(s: &mut Session) {
    s.call_refused(
        "read_temperature",
        json!({"sensor": "board"}),
        r#"Invalid arguments for tool read_temperature: /sensor: "board" is not of type integer"#,
    );
    s.call_refused(
        "read_temperature",
        json!({"sensor": 2}),
        "Invalid arguments for tool read_temperature: /sensor: 2 is greater than the maximum 1",
    );
    s.call_refused(
        "set_led",
        json!({"led": "red", "brightness": 101}),
        "Invalid arguments for tool set_led: /brightness: 101 is greater than the maximum 100",
    );
    s.call_refused(
        "set_led",
        json!({"led": "red", "brightness": -1}),
        "Invalid arguments for tool set_led: /brightness: -1 is less than the minimum 0",
    );
    s.call_refused(
        "set_led",
        json!({"led": "purple", "brightness": 1}),
        r#"Invalid arguments for tool set_led: /led: "purple" is not one of the enum values"#,
    );
    s.call_refused(
        "set_led",
        json!({"led": "red", "brightness": 2.5}),
        "Invalid arguments for tool set_led: /brightness: 2.5 is not of type integer",
    );
    s.call_refused(
        "set_led",
        json!({"led": "red"}),
        r#"Invalid arguments for tool set_led: (root): missing required property "brightness""#,
    );
    s.call_refused(
        "read_acceleration",
        json!({"axis": "x"}),
        r#"Invalid arguments for tool read_acceleration: (root): property "axis" not allowed (additionalProperties)"#,
    );
    s.call_refused(
        "set_led",
        json!({"led": "red", "brightness": 3, "blink": true}),
        r#"Invalid arguments for tool set_led: (root): property "blink" not allowed (additionalProperties)"#,
    );
    // None of these reached the handler: the LED is unchanged.
    let (_, level) = s.call("set_led", json!({"led": "red", "brightness": 0}));
    assert_eq!(level["structuredContent"]["previous"], 0);
}

/// Protocol errors, garbage and overlong lines: the next request is still answered.
fn protocol_errors_and_noise(s: &mut Session) {
    let v = s.version;
    let id = s.next_id;
    let (line, _) = s.request(
        "tools/call",
        json!({"name": "read_humidity", "arguments": {}}),
    );
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"Unknown tool: read_humidity"}}}}"#
        )
    );
    let id = s.next_id;
    let (line, _) = s.request("resources/list", json!({}));
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32601,"message":"Method not found"}}}}"#
        )
    );

    // Garbage is dropped without an answer (as the official SDKs do): the next line out is the
    // answer to the next request.
    for garbage in [
        &b"hello device\n"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\n",
        b"\x01\x02\x1b[0m binary noise\n",
        b"\xff\xfe not UTF-8 \xc0\n",
        b"\n",
        b"   \r\n",
        b"]]]}}}\n",
    ] {
        s.qemu.send_bytes(garbage).unwrap();
    }
    // A CRLF-terminated request is fine.
    let (id, request) = s.request_line("tools/call", json!({"name": "read_temperature"}));
    s.qemu
        .send_bytes(format!("{request}\r\n").as_bytes())
        .unwrap();
    s.response_to(id, "tools/call");

    // A line longer than the input buffer: skipped up to its LF and answered with -32600 because
    // its id can be recovered; one without an id is dropped. Both are several times the
    // firmware's 256-byte receive ring.
    let pad = "x".repeat(3 * INPUT_LINE_BYTES);
    let overlong = format!(
        r#"{{"jsonrpc":"2.0","id":"too-long","method":"tools/call","params":{{"name":"set_led","arguments":{{"led":"red","brightness":1,"pad":"{pad}"}}}}}}"#
    );
    s.qemu.send_line(&overlong).unwrap();
    let line = s
        .qemu
        .read_line(TIMEOUT)
        .expect("answer to the overlong line");
    check_schema(v, "tools/call", &line);
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"too-long","error":{"code":-32600,"message":"Invalid request: the message is longer than the device's input buffer"}}"#
    );
    s.qemu
        .send_line(&format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"data":"{}"}}}}"#,
            "y".repeat(10 * INPUT_LINE_BYTES)
        ))
        .unwrap();
    // Nested deeper than the firmware accepts (16 levels): refused with the id.
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"device_info","arguments":{{"a":{}1{}}}}}}}"#,
        "[".repeat(20),
        "]".repeat(20)
    );
    s.qemu.send_line(&deep).unwrap();
    let line = s.qemu.read_line(TIMEOUT).expect("answer to the deep line");
    check_schema(v, "tools/call", &line);
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"deep","error":{"code":-32600,"message":"Invalid request: the message is nested deeper than the device accepts"}}"#
    );
    // The next request is answered normally.
    let (_, result) = s.call("read_temperature", json!({}));
    assert!(result.get("isError").is_none());
    assert_eq!(
        s.qemu.read_line(Duration::from_millis(200)),
        None,
        "one answer per request, nothing else"
    );
}

pub fn legacy_sessions_list_call_every_tool_refuse_bad_input_and_survive_noise(fw: &Firmware) {
    for version in LEGACY {
        let started = Instant::now();
        let mut s = Session::new(fw.boot(), version);
        let line = s.initialize();
        let (name, description) = (fw.name, fw.description);
        let server_info = if version == "2025-06-18" {
            format!(r#"{{"name":"{name}","version":"0.1.0","title":"QEMU sensor board"}}"#)
        } else {
            format!(
                r#"{{"name":"{name}","version":"0.1.0","title":"QEMU sensor board","description":"{description}"}}"#
            )
        };
        assert_eq!(
            line,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{"listChanged":false}},"logging":{{}}}},"serverInfo":{server_info},"instructions":"Sensor values are simulated: deterministic sequences that change on every call."}}}}"#
            )
        );
        let (_, ping) = s.request("ping", json!({}));
        assert_eq!(ping["result"], json!({}));
        let (tools, pages) = s.list_tools();
        assert!(pages >= 2, "the output buffer makes tools/list page");
        check_tool_list(&tools, version);
        call_every_tool(&mut s, fw);
        bad_arguments(&mut s);
        protocol_errors_and_noise(&mut s);
        relay_behind_approval(&mut s);
        eprintln!("{version}: session took {:?}", started.elapsed());
    }
}

pub fn stateless_session_2026_discovers_lists_calls_every_tool_refuses_bad_input_and_survives_noise(
    fw: &Firmware,
) {
    let mut s = Session::new(fw.boot(), STATELESS);
    // Without `_meta` and without a handshake: -32602.
    s.qemu
        .send_line(r#"{"jsonrpc":"2.0","id":"no-meta","method":"tools/list"}"#)
        .unwrap();
    let line = s.qemu.read_line(TIMEOUT).expect("answer");
    check_schema(STATELESS, "tools/list", &line);
    assert!(
        line.starts_with(r#"{"jsonrpc":"2.0","id":"no-meta","error":{"code":-32602,"#),
        "{line}"
    );
    // An unsupported revision: -32022 with the supported ones.
    s.qemu
        .send_line(r#"{"jsonrpc":"2.0","id":"old","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05","io.modelcontextprotocol/clientCapabilities":{}}}}"#)
        .unwrap();
    let line = s.qemu.read_line(TIMEOUT).expect("answer");
    check_schema(STATELESS, "tools/list", &line);
    let value: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(value["error"]["code"], -32022, "{line}");
    assert_eq!(
        value["error"]["data"],
        json!({"supported": ["2026-07-28", "2025-11-25", "2025-06-18"], "requested": "2024-11-05"})
    );

    let discover = s.result("server/discover", json!({}));
    assert_eq!(
        discover["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18"])
    );
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        fw.name
    );
    // `ping` does not exist in 2026-07-28.
    let (line, _) = s.request("ping", json!({}));
    assert!(line.contains(r#""code":-32601"#), "{line}");
    // A cursor the device did not issue.
    let (line, _) = s.request("tools/list", json!({"cursor": "page-2"}));
    assert!(
        line.contains(r#""error":{"code":-32602,"message":"Invalid cursor"}"#),
        "{line}"
    );

    let (tools, pages) = s.list_tools();
    assert!(pages >= 2, "the output buffer makes tools/list page");
    check_tool_list(&tools, STATELESS);
    call_every_tool(&mut s, fw);
    bad_arguments(&mut s);
    protocol_errors_and_noise(&mut s);
    relay_behind_approval(&mut s);
}

pub fn a_thousand_pipelined_calls_get_a_thousand_answers_in_order(fw: &Firmware) {
    const CALLS: usize = 1000;
    let mut qemu = fw.boot();
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    // Ids alternate between integers and strings; tools rotate. All lines are written by another
    // thread without waiting for any answer.
    let lines: Vec<(Value, &str, String)> = (0..CALLS)
        .map(|i| {
            let id = if i % 2 == 0 { json!(i) } else { json!(format!("req-{i}")) };
            let (tool, arguments) = match i % 4 {
                0 | 2 => ("read_temperature", r#"{"sensor":0}"#.to_owned()),
                1 => ("read_acceleration", "{}".to_owned()),
                _ => ("set_led", format!(r#"{{"led":"blue","brightness":{}}}"#, i % 101)),
            };
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{meta},"name":"{tool}","arguments":{arguments}}}}}"#
            );
            (id, tool, line)
        })
        .collect();
    let payload: String = lines.iter().map(|(_, _, l)| format!("{l}\n")).collect();
    let mut writer = qemu.stream().expect("socket UART").try_clone().unwrap();
    let started = Instant::now();
    let sender = std::thread::spawn(move || writer.write_all(payload.as_bytes()));

    let mut checker = ToolChecker::new();
    let failed = checker.register_tools(&json!([
        {"name": "read_temperature", "inputSchema": {"type": "object"}, "outputSchema": {"type":"object","properties":{"value":{"type":"number","minimum":-40,"maximum":125},"unit":{"const":"°C"},"sensorId":{"enum":["tmp-board","tmp-ambient"]},"sample":{"type":"integer","minimum":1}},"required":["value","unit","sensorId","sample"],"additionalProperties":false}},
        {"name": "read_acceleration", "inputSchema": {"type": "object"}, "outputSchema": {"type":"array","items":{"type":"number","minimum":-40,"maximum":40},"minItems":3,"maxItems":3}},
        {"name": "set_led", "inputSchema": {"type": "object"}, "outputSchema": {"type":"object","properties":{"led":{"enum":["red","green","blue"]},"brightness":{"type":"integer","minimum":0,"maximum":100},"previous":{"type":"integer","minimum":0,"maximum":100}},"required":["led","brightness","previous"],"additionalProperties":false}}
    ]));
    assert!(failed.is_empty(), "{failed:?}");
    // Read every answer first (the device's pace), then check them all.
    let answers: Vec<String> = (0..CALLS)
        .map(|i| {
            qemu.read_line(Duration::from_secs(30)).unwrap_or_else(|| {
                panic!(
                    "only {i} of {CALLS} answers; QEMU stderr:\n{}",
                    qemu.logs().join("\n")
                )
            })
        })
        .collect();
    let elapsed = started.elapsed();
    sender.join().unwrap().unwrap();
    assert_eq!(
        qemu.read_line(Duration::from_millis(300)),
        None,
        "exactly one answer per request"
    );
    let mut samples = 0;
    let mut seen = std::collections::HashSet::new();
    for (i, ((id, tool, _), line)) in lines.iter().zip(&answers).enumerate() {
        let value = check_schema(STATELESS, "tools/call", line);
        assert_eq!(
            &value["id"], id,
            "answers out of order or lost at {i}: {line}"
        );
        assert!(seen.insert(id.to_string()), "duplicate answer: {line}");
        let result = &value["result"];
        checker
            .check_result(STATELESS, tool, result)
            .unwrap_or_else(|e| panic!("{e}\n{line}"));
        assert!(result.get("isError").is_none(), "{line}");
        if *tool == "read_temperature" {
            // Each call advanced the board sensor's counter exactly once.
            samples += 1;
            assert_eq!(result["structuredContent"]["sample"], samples, "{line}");
        }
    }
    assert_eq!(seen.len(), CALLS);
    // Under QEMU the device keeps up with the UART (QEMU hands over one byte at a time with the
    // FIFOs off), so its receive ring is not expected to fill here; the count of pauses is
    // logged for the record.
    if let Some(log) = qemu.wait_for_log(&format!("{}: 512 responses", fw.name), TIMEOUT) {
        eprintln!("{log}");
    }
    eprintln!("{CALLS} pipelined tools/call: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(90), "took {elapsed:?}");
}

pub fn idle_firmware_sleeps_instead_of_spinning_a_host_core(fw: &Firmware) {
    let mut s = Session::new(fw.boot(), STATELESS);
    s.list_tools();
    s.call("read_temperature", json!({}));
    let window = Duration::from_secs(2);
    let before = s.qemu.cpu_time().expect("/proc/PID/stat");
    std::thread::sleep(window);
    let used = s.qemu.cpu_time().expect("/proc/PID/stat") - before;
    // A spinning executor burns about the whole window (a full host core); WFI idles near 0.
    assert!(
        used < window / 5,
        "idle QEMU used {used:?} of CPU in {window:?}"
    );
}

pub fn cargo_run_command_is_an_mcp_stdio_server_that_logs_only_on_stderr(fw: &Firmware) {
    // The runner names the QEMU program itself: install it first if need be.
    ensure_qemu_for(fw.board).unwrap_or_else(|e| panic!("{e}"));
    // Exactly what `cargo run --release` runs, taken from the firmware's .cargo/config.toml.
    let runner = cargo_runner(&fw.dir(), fw.board.rust_target()).unwrap();
    assert!(
        runner.iter().any(|arg| arg == "stdio"),
        "runner: {runner:?}"
    );
    let qemu = QemuGuard::start_stdio_command(&runner, fw.elf()).unwrap();
    let mut s = Session::new(qemu, "2025-11-25");
    // Like an MCP host, write `initialize` at once, before the firmware has booted: QEMU hands
    // its first byte to UART0 before the firmware runs a single instruction.
    let line = s.initialize();
    fw.wait_ready(&s.qemu);
    // The first stdout line is the answer: no log came before it on the MCP channel.
    assert!(line.starts_with(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25""#));
    let (tools, _) = s.list_tools();
    check_tool_list(&tools, "2025-11-25");
    s.call("read_acceleration", json!({}));
    assert!(
        s.qemu
            .wait_for_log(&format!("{}: 4 responses", fw.name), TIMEOUT)
            .is_some(),
        "progress logs go to stderr: {:?}",
        s.qemu.logs()
    );
    assert_eq!(
        s.qemu.read_line(Duration::from_millis(300)),
        None,
        "stdout carries only responses"
    );
}

/// Parses "stack peak N of M bytes" from a firmware log line.
fn stack_peak(log: &str) -> (usize, usize) {
    let rest = log
        .split("stack peak ")
        .nth(1)
        .unwrap_or_else(|| panic!("no stack peak in {log:?}"));
    let mut numbers = rest
        .split_whitespace()
        .filter_map(|w| w.parse::<usize>().ok());
    let (Some(used), Some(size)) = (numbers.next(), numbers.next()) else {
        panic!("cannot parse stack peak in {log:?}");
    };
    (used, size)
}

pub fn stack_peak_is_reported_and_bounded_and_qemu_dies_with_its_guard(fw: &Firmware) {
    let mut s = Session::new(fw.boot(), STATELESS);
    let ready = fw.wait_ready(&s.qemu);
    let (at_boot, size) = stack_peak(&ready);
    // Exercise the deepest paths: validation of arguments and results, refusals, listing.
    s.list_tools();
    for tool in TOOL_NAMES {
        s.call(tool, json!({}));
    }
    s.call("set_led", json!({"led": "red", "brightness": 100}));
    s.call("set_led", json!({"led": "red", "brightness": "max"}));
    for refused in [
        format!(
            r#"{{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{{"name":"device_info","pad":"{}"}}}}"#,
            "z".repeat(2 * INPUT_LINE_BYTES)
        ),
        format!(
            r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"device_info","arguments":{{"a":{}0{}}}}}}}"#,
            "[".repeat(40),
            "]".repeat(40)
        ),
    ] {
        s.qemu.send_line(&refused).unwrap();
        let line = s.qemu.read_line(TIMEOUT).expect("answer");
        assert!(line.contains(r#""code":-32600"#), "{line}");
    }
    let (_, info) = s.call("device_info", json!({}));
    let peak = info["structuredContent"]["stackPeakBytes"]
        .as_u64()
        .unwrap() as usize;
    eprintln!("stack peak: {at_boot} bytes at boot, {peak} of {size} after a session");
    assert!(
        peak >= at_boot && peak < fw.stack_peak_limit,
        "stack peak {peak} bytes"
    );
    let log = s
        .qemu
        .wait_for_log(&format!("{}: 8 responses", fw.name), TIMEOUT)
        .expect("log after 8 responses");
    let (logged, _) = stack_peak(&log);
    assert!(logged <= peak, "{log}");

    let pid = s.qemu.pid();
    drop(s);
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "QEMU (pid {pid}) still exists after its guard dropped"
    );
}

/// The firmware's symbols, demangled, as `llvm-nm -C` lists them: the rustup toolchain's
/// `llvm-nm` (component `llvm-tools`), else one on `PATH`.
fn symbols(elf: &Path) -> String {
    let sysroot = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .expect("rustc --print sysroot");
    let host = std::process::Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc -vV");
    let host = String::from_utf8_lossy(&host.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host");
    let bundled = Path::new(String::from_utf8_lossy(&sysroot.stdout).trim())
        .join("lib/rustlib")
        .join(host)
        .join("bin/llvm-nm");
    let nm = if bundled.exists() {
        bundled
    } else {
        "llvm-nm".into()
    };
    let output = std::process::Command::new(&nm)
        .arg("-C")
        .arg(elf)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e} (rustup component add llvm-tools)", nm.display()));
    assert!(output.status.success(), "{nm:?} failed");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Issue 14: the firmware serves the derive's static programs, so no code of the schema
/// compiler (`embedded_mcp::schema::compile`, module `schema::compile` of the schema crate) is
/// linked, while the validator that runs the programs is; issue 16: only the code of the
/// keywords those programs use.
pub fn firmware_links_the_validator_but_no_schema_compiler(fw: &Firmware) {
    let symbols = symbols(fw.elf());
    // Demangled paths read `schema::compile::…`; impl blocks keep the mangled `schema..compile..`.
    let compiler: Vec<&str> = symbols
        .lines()
        .filter(|l| l.contains("schema::compile::") || l.contains("schema..compile.."))
        .collect();
    assert!(
        compiler.is_empty(),
        "schema compiler code in the firmware:\n{}",
        compiler.join("\n")
    );
    assert!(
        symbols
            .lines()
            .any(|l| l.contains("schema::validate::") || l.contains("schema..validate..")),
        "no validator symbol: is this the firmware's symbol table?"
    );
    // Issue 16: `Server::from_tools` runs the evaluator built for the keywords of the derived
    // programs, so the code of keywords they do not use (and the full evaluator) is left out.
    let unused: Vec<&str> = symbols
        .lines()
        .filter(|l| l.contains("schema::") || l.contains("schema.."))
        .filter(|l| {
            [
                "lexeme_is_multiple_of",
                "unevaluated_",
                "::contains::",
                "::unique::",
                "::one_of::",
                "::in_place::",
                "::property_names::",
                "::object_keyword::",
                "::string_keyword::",
            ]
            .iter()
            .any(|name| l.contains(name))
        })
        .collect();
    assert!(
        unused.is_empty(),
        "code of keywords the firmware's programs do not use:\n{}",
        unused.join("\n")
    );
}
