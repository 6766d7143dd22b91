//! The `examples/microbit` firmware (BBC micro:bit v1: nRF51822, Cortex-M0, on nrf51-hal) under
//! QEMU's `microbit` machine, with UART0 on a socket: both eras (the `initialize` handshake and
//! 2026-07-28), `tools/list` and every tool byte for byte where the answer is deterministic
//! (the display, the buttons, the temperature's "not ready" error: QEMU 7.2 does not model
//! TEMP), the die rolls by range, refused arguments, hostile lines, 500 pipelined calls, and an
//! idle firmware that sleeps. Every response is checked against its revision's official schema
//! (`sensor_sessions::check_schema`) and every result against the tool's `outputSchema`.
#![cfg(unix)]

#[allow(dead_code)] // The sensor scenarios are not run here: only the session client is.
mod sensor_sessions;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use embedded_mcp_tests::qemu::{build_firmware_with_features, Board, QemuGuard};
use sensor_sessions::{check_schema, tail, Session, LEGACY, STATELESS, TIMEOUT};
use serde_json::{json, Value};

const BOARD: Board = Board::Microbit;

/// `read_temperature`'s answer under QEMU (`NOT_READY` in the firmware's src/tools.rs).
const NOT_READY: &str = "sensor not ready: TEMP gave no reading within 1 ms";

/// The tools as `tools/list` lists them (the same in every revision: every output is an object).
const TOOLS: &str = r#"[
{"name":"set_pixel","title":"Set one LED","description":"Switches one LED of the 5×5 display on or off; returns the display's rows before and after (16 is a row's leftmost LED, 1 its rightmost).","inputSchema":{"type":"object","properties":{"x":{"description":"Column, 0 (left) to 4","type":"integer","minimum":0,"maximum":4},"y":{"description":"Row, 0 (top) to 4","type":"integer","minimum":0,"maximum":4},"on":{"description":"true: LED on","type":"boolean"}},"required":["x","y","on"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"rows":{"type":"array","items":{"type":"integer","minimum":0,"maximum":31},"minItems":5,"maxItems":5},"previous":{"type":"array","items":{"type":"integer","minimum":0,"maximum":31},"minItems":5,"maxItems":5}},"required":["rows","previous"]},"annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},
{"name":"show_pattern","title":"Show a picture","description":"Shows a picture on the 5×5 display, given as five rows from the top (in each, 16 is the leftmost LED and 1 the rightmost); returns the rows before and after.","inputSchema":{"type":"object","properties":{"rows":{"description":"Five rows, top first; in each, 16 is the leftmost LED and 1 the rightmost (31: all five)","type":"array","items":{"type":"integer","minimum":0,"maximum":31},"minItems":5,"maxItems":5}},"required":["rows"],"additionalProperties":false},"outputSchema":{"type":"object","properties":{"rows":{"type":"array","items":{"type":"integer","minimum":0,"maximum":31},"minItems":5,"maxItems":5},"previous":{"type":"array","items":{"type":"integer","minimum":0,"maximum":31},"minItems":5,"maxItems":5}},"required":["rows","previous"]},"annotations":{"readOnlyHint":false,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}},
{"name":"read_buttons","title":"Read the buttons","description":"Reads buttons A and B: true while held down.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"a":{"type":"boolean"},"b":{"type":"boolean"}},"required":["a","b"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}},
{"name":"roll_die","title":"Roll a die","description":"Rolls a die with the hardware random number generator (bias-corrected); 6 sides unless told otherwise.","inputSchema":{"type":"object","properties":{"sides":{"description":"Faces of the die","type":"integer","minimum":2,"maximum":100,"default":6}},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"value":{"type":"integer","minimum":1,"maximum":100},"sides":{"type":"integer","minimum":2,"maximum":100}},"required":["value","sides"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}},
{"name":"read_temperature","title":"Read die temperature","description":"Reads the chip's die temperature in degrees Celsius (steps of 0.25; a few degrees above the room). Answers an error if the sensor gives no reading within 1 ms.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"value":{"type":"number","minimum":-40,"maximum":125},"unit":{"type":"string","enum":["°C"]}},"required":["value","unit"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}},
{"name":"device_info","title":"Device information","description":"Firmware, uptime, flash and RAM use against the chip's, and the deepest stack use.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"outputSchema":{"type":"object","properties":{"firmware":{"type":"string"},"version":{"type":"string"},"board":{"type":"string"},"uptimeMs":{"type":"integer","minimum":0,"maximum":18446744073709551615},"calls":{"type":"integer","minimum":1,"maximum":4294967295},"flashUsedBytes":{"type":"integer","minimum":0,"maximum":4294967295},"flashSizeBytes":{"type":"integer","minimum":0,"maximum":4294967295},"staticRamBytes":{"type":"integer","minimum":0,"maximum":4294967295},"ramSizeBytes":{"type":"integer","minimum":0,"maximum":4294967295},"stackPeakBytes":{"type":"integer","minimum":0,"maximum":4294967295},"stackSizeBytes":{"type":"integer","minimum":0,"maximum":4294967295},"rxFreeBytes":{"type":"integer","minimum":0,"maximum":4294967295}},"required":["firmware","version","board","uptimeMs","calls","flashUsedBytes","flashSizeBytes","staticRamBytes","ramSizeBytes","stackPeakBytes","stackSizeBytes","rxFreeBytes"]},"annotations":{"readOnlyHint":true,"openWorldHint":false}}
]"#;

/// The firmware with its `qemu` feature (logs on semihosting stderr), built once per run.
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        let dir = embedded_mcp_tests::project_root()
            .join("examples")
            .join("microbit");
        let started = Instant::now();
        let elf = build_firmware_with_features(&dir, BOARD.rust_target(), &["qemu"])
            .unwrap_or_else(|e| panic!("{e}"));
        eprintln!("firmware build: {:?}", started.elapsed());
        elf
    })
}

/// Boots the firmware with UART0 on a socket and waits for its "ready" log line.
fn boot() -> QemuGuard {
    let qemu = QemuGuard::start_socket(BOARD, firmware()).unwrap_or_else(|e| panic!("{e}"));
    qemu.wait_for_log("microbit: ready", TIMEOUT)
        .unwrap_or_else(|| panic!("never ready; QEMU stderr:\n{}", qemu.logs().join("\n")));
    qemu
}

/// A successful result line of request `id` whose structured content is `content` (a JSON
/// object's text), as the firmware writes it.
fn result_line(id: &str, content: &str, version: &str) -> String {
    let text = content.replace('"', r#"\""#);
    let t = tail(version);
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"structuredContent":{content},"content":[{{"type":"text","text":"{text}"}}]{t}"#
    )
}

/// An `isError` result line of request `id` with `message`.
fn error_line(id: &str, message: &str, version: &str) -> String {
    let t = tail(version);
    let message = message.replace('"', r#"\""#);
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"{message}"}}],"isError":true{t}"#
    )
}

/// Calls `tool` and checks the answer line byte for byte against `expected(id)`.
fn call_exact(s: &mut Session, tool: &str, arguments: Value, expected: impl Fn(&str) -> String) {
    let id = s.next_id.to_string();
    let (line, _) = s.call(tool, arguments);
    assert_eq!(line, expected(&id));
}

/// `text`, `data` and `bss` of `elf` as `llvm-size -B` counts them (the rustup toolchain's
/// `llvm-size`, component `llvm-tools`, else one on `PATH`).
fn llvm_size(elf: &Path) -> [u64; 3] {
    let sysroot = Command::new("rustc").args(["--print", "sysroot"]).output();
    let sysroot = String::from_utf8_lossy(&sysroot.expect("rustc").stdout).into_owned();
    let host = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc -vV");
    let host = String::from_utf8_lossy(&host.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .expect("rustc -vV names the host");
    let bundled = Path::new(sysroot.trim()).join(format!("lib/rustlib/{host}/bin/llvm-size"));
    let program = if bundled.exists() {
        bundled
    } else {
        "llvm-size".into()
    };
    let output = Command::new(&program)
        .arg("-B")
        .arg(elf)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (rustup component add llvm-tools)",
                program.display()
            )
        });
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let numbers: Vec<u64> = text
        .lines()
        .nth(1)
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .map(|n| n.parse().expect("a number"))
        .collect();
    numbers.try_into().expect("text, data and bss")
}

/// Lists the tools (walking the pages) and compares them with [`TOOLS`].
fn list_tools(s: &mut Session) {
    let (tools, pages) = s.list_tools();
    assert!(pages >= 2, "the output buffer makes tools/list page");
    let expected: Value = serde_json::from_str(TOOLS).expect("TOOLS is JSON");
    assert_eq!(Value::Array(tools), expected);
}

/// Calls every tool; deterministic answers byte for byte. Returns how many calls reached a
/// tool.
fn call_every_tool(s: &mut Session) -> u64 {
    let v = s.version;
    let picture =
        |rows: &str, previous: &str| format!(r#"{{"rows":[{rows}],"previous":[{previous}]}}"#);
    call_exact(s, "set_pixel", json!({"x": 0, "y": 0, "on": true}), |id| {
        result_line(id, &picture("16,0,0,0,0", "0,0,0,0,0"), v)
    });
    call_exact(s, "set_pixel", json!({"x": 4, "y": 4, "on": true}), |id| {
        result_line(id, &picture("16,0,0,0,1", "16,0,0,0,0"), v)
    });
    call_exact(s, "set_pixel", json!({"x": 0, "y": 0, "on": false}), |id| {
        result_line(id, &picture("0,0,0,0,1", "16,0,0,0,1"), v)
    });
    // Idempotent: the same call again changes nothing.
    call_exact(s, "set_pixel", json!({"x": 0, "y": 0, "on": false}), |id| {
        result_line(id, &picture("0,0,0,0,1", "0,0,0,0,1"), v)
    });
    let heart = json!({"rows": [10, 31, 31, 14, 4]});
    call_exact(s, "show_pattern", heart, |id| {
        result_line(id, &picture("10,31,31,14,4", "0,0,0,0,1"), v)
    });
    call_exact(s, "show_pattern", json!({"rows": [0, 0, 0, 0, 0]}), |id| {
        result_line(id, &picture("0,0,0,0,0", "10,31,31,14,4"), v)
    });
    // QEMU wires no buttons: the pull-ups read "up".
    call_exact(s, "read_buttons", json!({}), |id| {
        result_line(id, r#"{"a":false,"b":false}"#, v)
    });
    call_exact(s, "read_temperature", json!({}), |id| {
        error_line(id, NOT_READY, v)
    });
    // The RNG: in range, and not one value every time.
    let mut faces = std::collections::BTreeSet::new();
    for _ in 0..20 {
        let (line, roll) = s.call("roll_die", json!({}));
        let value = roll["structuredContent"]["value"].as_u64().expect(&line);
        assert!((1..=6).contains(&value), "{line}");
        assert_eq!(roll["structuredContent"]["sides"], 6, "{line}");
        faces.insert(value);
    }
    assert!(faces.len() >= 2, "20 rolls gave only {faces:?}");
    for sides in [2u64, 100] {
        let (line, roll) = s.call("roll_die", json!({"sides": sides}));
        let value = roll["structuredContent"]["value"].as_u64().expect(&line);
        assert!((1..=sides).contains(&value), "{line}");
    }
    let calls = 30;

    let (line, info) = s.call("device_info", json!({}));
    let info = &info["structuredContent"];
    assert_eq!(info["firmware"], "microbit", "{line}");
    assert_eq!(info["board"], "BBC micro:bit v1 (nRF51822)", "{line}");
    assert_eq!(
        info["calls"],
        calls + 1,
        "every call reached a tool once: {line}"
    );
    // The chip's sizes (FICR, memory.x) and the firmware's, as the ELF counts them.
    assert_eq!(info["flashSizeBytes"], 256 * 1024, "{line}");
    assert_eq!(info["ramSizeBytes"], 16 * 1024, "{line}");
    let [text, data, bss] = llvm_size(firmware());
    let flash = info["flashUsedBytes"].as_u64().unwrap();
    assert!(
        (text + data..text + data + 8).contains(&flash),
        "{line} vs text {text} data {data}"
    );
    assert_eq!(info["staticRamBytes"], data + bss, "{line}");
    let (peak, stack) = (
        info["stackPeakBytes"].as_u64().unwrap(),
        info["stackSizeBytes"].as_u64().unwrap(),
    );
    assert_eq!(stack, 16 * 1024 - data - bss, "{line}");
    assert!(peak > 0 && peak < stack / 2, "{line}");
    let uptime = info["uptimeMs"].as_u64().unwrap();
    assert!(uptime < 600_000, "{line}");
    calls + 1
}

/// Arguments that fail the compiled `inputSchema`: `isError` results that say what is wrong;
/// none reaches a tool (the display stays as it was).
fn refused_arguments(s: &mut Session) {
    let v = s.version;
    for (tool, arguments, message) in [
        (
            "set_pixel",
            json!({"x": 5, "y": 0, "on": true}),
            "/x: 5 is greater than the maximum 4",
        ),
        (
            "set_pixel",
            json!({"x": 0, "y": -1, "on": true}),
            "/y: -1 is less than the minimum 0",
        ),
        (
            "set_pixel",
            json!({"x": 0, "y": 0}),
            r#"(root): missing required property "on""#,
        ),
        (
            "set_pixel",
            json!({"x": 0, "y": 0, "on": 1}),
            "/on: 1 is not of type boolean",
        ),
        (
            "set_pixel",
            json!({"x": 1.5, "y": 0, "on": true}),
            "/x: 1.5 is not of type integer",
        ),
        (
            "show_pattern",
            json!({"rows": [1, 2, 3]}),
            "/rows: 3 items, fewer than minItems 5",
        ),
        (
            "show_pattern",
            json!({"rows": [1, 2, 3, 4, 5, 6]}),
            "/rows: more than maxItems 5 items",
        ),
        (
            "show_pattern",
            json!({"rows": [32, 0, 0, 0, 0]}),
            "/rows/0: 32 is greater than the maximum 31",
        ),
        (
            "show_pattern",
            json!({}),
            r#"(root): missing required property "rows""#,
        ),
        (
            "roll_die",
            json!({"sides": 1}),
            "/sides: 1 is less than the minimum 2",
        ),
        (
            "roll_die",
            json!({"sides": 101}),
            "/sides: 101 is greater than the maximum 100",
        ),
        (
            "roll_die",
            json!({"sides": 6, "x": 1}),
            r#"(root): property "x" not allowed (additionalProperties)"#,
        ),
        (
            "read_buttons",
            json!({"a": true}),
            r#"(root): property "a" not allowed (additionalProperties)"#,
        ),
        (
            "read_temperature",
            json!({"unit": "K"}),
            r#"(root): property "unit" not allowed (additionalProperties)"#,
        ),
    ] {
        let message = format!("Invalid arguments for tool {tool}: {message}");
        call_exact(s, tool, arguments, |id| error_line(id, &message, v));
    }
    let picture = r#"{"rows":[0,0,4,0,0],"previous":[0,0,0,0,0]}"#;
    call_exact(s, "set_pixel", json!({"x": 2, "y": 2, "on": true}), |id| {
        result_line(id, picture, v)
    });
}

/// Protocol errors, garbage and overlong or deep lines: each answered as it should be (or
/// dropped), and the next request is still served.
fn hostile_lines(s: &mut Session) {
    let v = s.version;
    let id = s.next_id;
    let (line, _) = s.request(
        "tools/call",
        json!({"name": "self_destruct", "arguments": {}}),
    );
    assert_eq!(
        line,
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":-32602,"message":"Unknown tool: self_destruct"}}}}"#
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
    // Garbage is dropped without an answer.
    for garbage in [
        &b"hello micro:bit\n"[..],
        b"{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\n",
        b"\x01\x02\x1b[0m binary noise\n",
        b"\xff\xfe not UTF-8 \xc0\n",
        b"\n",
        b"   \r\n",
        b"]]]}}}\n",
    ] {
        s.qemu.send_bytes(garbage).unwrap();
    }
    // Longer than the 512-byte input buffer (and the 256-byte receive ring, several times):
    // -32600 with the id; without an id, dropped.
    let pad = "x".repeat(3 * 512);
    let overlong = format!(
        r#"{{"jsonrpc":"2.0","id":"too-long","method":"tools/call","params":{{"name":"set_pixel","arguments":{{"x":0,"y":0,"on":true,"pad":"{pad}"}}}}}}"#
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
            "y".repeat(5000)
        ))
        .unwrap();
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
    // The overlong call never reached the display (2, 2 is the only LED on).
    let picture = r#"{"rows":[0,0,0,0,0],"previous":[0,0,4,0,0]}"#;
    call_exact(s, "show_pattern", json!({"rows": [0, 0, 0, 0, 0]}), |id| {
        result_line(id, picture, v)
    });
    assert_eq!(
        s.qemu.read_line(Duration::from_millis(200)),
        None,
        "one answer per request"
    );
}

#[test]
fn legacy_sessions_list_and_call_every_tool_refuse_bad_arguments_and_survive_hostile_lines() {
    for version in LEGACY {
        let started = Instant::now();
        let mut s = Session::new(boot(), version);
        let line = s.initialize();
        let description = if version == "2025-06-18" {
            String::new()
        } else {
            r#","description":"The 5x5 LED display, buttons A and B, the random number generator and the die temperature of a BBC micro:bit v1 (nRF51822, Cortex-M0)""#.to_owned()
        };
        assert_eq!(
            line,
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{"protocolVersion":"{version}","capabilities":{{"tools":{{"listChanged":false}},"logging":{{}}}},"serverInfo":{{"name":"microbit","version":"0.1.0","title":"BBC micro:bit"{description}}}}}}}"#
            )
        );
        let (ping, _) = s.request("ping", json!({}));
        assert_eq!(ping, r#"{"jsonrpc":"2.0","id":2,"result":{}}"#);
        list_tools(&mut s);
        call_every_tool(&mut s);
        refused_arguments(&mut s);
        hostile_lines(&mut s);
        eprintln!("{version}: session took {:?}", started.elapsed());
    }
}

#[test]
fn stateless_session_2026_discovers_lists_and_calls_every_tool_and_refuses_bad_input() {
    let mut s = Session::new(boot(), STATELESS);
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
    let discover = s.result("server/discover", json!({}));
    assert_eq!(
        discover["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18"])
    );
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "microbit"
    );
    list_tools(&mut s);
    call_every_tool(&mut s);
    refused_arguments(&mut s);
    hostile_lines(&mut s);
}

#[test]
fn five_hundred_pipelined_calls_get_five_hundred_answers_in_order() {
    const CALLS: usize = 500;
    let mut qemu = boot();
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    // Tools rotate; set_pixel walks the display, switching LEDs on and then off again, so each
    // answer (with the picture before) is known; ids alternate between numbers and strings.
    let mut frame = [0u8; 5];
    let requests: Vec<(String, Option<String>)> = (0..CALLS)
        .map(|i| {
            let id = if i % 2 == 0 { i.to_string() } else { format!(r#""req-{i}""#) };
            let (tool, arguments, expected) = match i % 4 {
                0 => {
                    let (n, on) = ((i / 4) % 25, (i / 100) % 2 == 0);
                    let (x, y) = (n % 5, n / 5);
                    let previous = frame;
                    let bit = 16 >> x;
                    frame[y] = if on { frame[y] | bit } else { frame[y] & !bit };
                    let rows = |f: [u8; 5]| f.map(|r| r.to_string()).join(",");
                    let content = format!(r#"{{"rows":[{}],"previous":[{}]}}"#, rows(frame), rows(previous));
                    let arguments = format!(r#"{{"x":{x},"y":{y},"on":{on}}}"#);
                    ("set_pixel", arguments, Some(result_line(&id, &content, STATELESS)))
                }
                1 => ("read_buttons", "{}".to_owned(), Some(result_line(&id, r#"{"a":false,"b":false}"#, STATELESS))),
                2 => ("roll_die", format!(r#"{{"sides":{}}}"#, 2 + i % 99), None),
                _ => ("read_temperature", "{}".to_owned(), Some(error_line(&id, NOT_READY, STATELESS))),
            };
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{meta},"name":"{tool}","arguments":{arguments}}}}}"#
            );
            (line, expected)
        })
        .collect();
    let payload: String = requests
        .iter()
        .map(|(line, _)| format!("{line}\n"))
        .collect();
    let mut writer = qemu.stream().expect("socket UART").try_clone().unwrap();
    let started = Instant::now();
    let sender = std::thread::spawn(move || writer.write_all(payload.as_bytes()));
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
        "one answer per request"
    );
    for (i, ((request, expected), answer)) in requests.iter().zip(&answers).enumerate() {
        let value = check_schema(STATELESS, "tools/call", answer);
        match expected {
            Some(expected) => assert_eq!(answer, expected, "answer {i} to {request}"),
            None => {
                let sides = (2 + i % 99) as u64;
                let roll = &value["result"]["structuredContent"];
                assert_eq!(roll["sides"], sides, "{answer}");
                let face = roll["value"].as_u64().expect(answer);
                assert!((1..=sides).contains(&face), "{answer}");
                let id = if i % 2 == 0 {
                    json!(i)
                } else {
                    json!(format!("req-{i}"))
                };
                assert_eq!(value["id"], id, "answers out of order at {i}: {answer}");
            }
        }
    }
    if let Some(log) = qemu.wait_for_log("microbit: 256 responses", TIMEOUT) {
        eprintln!("{log}");
    }
    eprintln!("{CALLS} pipelined tools/call: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(60), "took {elapsed:?}");
}

#[test]
fn idle_firmware_sleeps_also_while_the_display_scans() {
    let mut s = Session::new(boot(), STATELESS);
    s.list_tools();
    s.call("read_temperature", json!({}));
    let window = Duration::from_secs(2);
    for rows in [[0, 0, 0, 0, 0], [31, 17, 17, 17, 31]] {
        // Dark: no interrupts at all; lit: the row scan's 500 interrupts a second.
        s.call("show_pattern", json!({ "rows": rows }));
        let before = s.qemu.cpu_time().expect("/proc/PID/stat");
        std::thread::sleep(window);
        let used = s.qemu.cpu_time().expect("/proc/PID/stat") - before;
        eprintln!("display {rows:?}: QEMU used {used:?} of CPU in {window:?}");
        // A spinning executor burns about the whole window (a host core); WFI idles near 0.
        assert!(
            used < window / 5,
            "idle QEMU used {used:?} of CPU in {window:?}"
        );
    }
}
