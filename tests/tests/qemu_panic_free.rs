//! The `examples/panic-free` proof firmware under QEMU (`lm3s6965evb`, Cortex-M3): the build
//! that links only if no panic is reachable also answers correctly. Its four setup lines (input
//! schema, output schema, program in hex, instance) and a short MCP session get their answers
//! byte for byte, and the end-of-stream byte ends the run with the firmware's statistics.
//! Then its second phase, the path a QEMU firmware runs (typed tools, `confirm`, a `Context`,
//! `serve_async_into`): a legacy session with progress, a log line, `null` for an optional
//! argument and a float past `f32`'s range, byte for byte, and a 2026-07-28 approval in two
//! rounds (the device seals the state, the retry with the answer switches the relay).
//!
//! QEMU is killed by `QemuGuard` when the test ends, also when it fails.
#![cfg(unix)]

use std::path::PathBuf;
use std::time::Duration;

use embedded_mcp_tests::project_root;
use embedded_mcp_tests::qemu::{build_firmware, Board, QemuGuard};
use serde_json::{json, Value};

const BOARD: Board = Board::Lm3s6965evb;
/// Generous: two cores are shared with builds of other work.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Each line sent, then the lines it must be answered with (none for a notification).
const SCRIPT: &[(&str, &[&str])] = &[
    (
        r#"{"type":"object","properties":{"label":{"type":"string"},"count":{"type":"integer","minimum":0}},"required":["label"]}"#,
        &["compiled: 3 nodes, 8 ops, 11 text bytes, object root: true"],
    ),
    (r#"{"type":"object","required":["label","count"]}"#, &[]),
    // Not hex: the server compiles both schema texts itself.
    ("zz", &["load error: not hex or too long"]),
    (
        r#"{"label":"x","count":-1}"#,
        &[
            "input: invalid: /count: -1 is less than the minimum 0",
            "output: no program",
            "serving",
        ],
    ),
    (
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false},"logging":{}},"serverInfo":{"name":"panic-free","version":"0.1.0","title":"Panic-free proof firmware"},"instructions":"Tool schemas and programs are read from the UART before serving."}}"#,
        ],
    ),
    (
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        &[],
    ),
    // scale 3: value 3 × 1.5, scaled 3 / 3; count doubled; values negated; first call.
    (
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"probe","arguments":{"label":"hi","count":21,"scale":3,"values":[1,-2,3]}}}"#,
        &[
            r#"{"jsonrpc":"2.0","id":2,"result":{"structuredContent":{"label":"hi","value":4.5,"scaled":1.0,"count":42,"calls":1,"values":[-1,2,-3]},"content":[{"type":"text","text":"{\"label\":\"hi\",\"value\":4.5,\"scaled\":1.0,\"count\":42,\"calls\":1,\"values\":[-1,2,-3]}"}]}}"#,
        ],
    ),
    // Refused by the compiled `inputSchema` before the handler runs.
    (
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"probe","arguments":{"count":1}}}"#,
        &[
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Invalid arguments for tool probe: (root): missing required property \"label\""}],"isError":true}}"#,
        ],
    ),
    // The handler's second call (the refused one never reached it).
    (
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"probe","arguments":{"label":"a","fail":true}}}"#,
        &[
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"asked to fail after 2 calls"}],"isError":true}}"#,
        ],
    ),
];

/// The typed phase's legacy session: each line sent, then the lines it must be answered with.
const TYPED_SCRIPT: &[(&str, &[&str])] = &[
    (
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        &[
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":false},"logging":{}},"serverInfo":{"name":"panic-free-typed","version":"0.1.0"}}}"#,
        ],
    ),
    (
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        &[],
    ),
    (
        r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}"#,
        &[r#"{"jsonrpc":"2.0","id":2,"result":{}}"#],
    ),
    // Switching off asks nobody: progress (the request has a token), a log line, the result;
    // the optional level takes `null`.
    (
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"switch","arguments":{"relay":1,"on":false,"level":null},"_meta":{"progressToken":7}}}"#,
        &[
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1,"total":2}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"switch","data":{"relay":1,"on":false,"wasOn":false,"level":null}}}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":{"structuredContent":{"relay":1,"on":false,"wasOn":false,"level":null},"content":[{"type":"text","text":"{\"relay\":1,\"on\":false,\"wasOn\":false,\"level\":null}"}]}}"#,
        ],
    ),
    // Refused by the schema: past f32's range.
    (
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"switch","arguments":{"relay":0,"on":true,"level":1e300}}}"#,
        &[
            r#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"Invalid arguments for tool switch: /level: 1e300 is greater than the maximum 3.4028235e38"}],"isError":true}}"#,
        ],
    ),
    (
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"count","arguments":{}}}"#,
        &[
            r#"{"jsonrpc":"2.0","id":5,"result":{"structuredContent":{"calls":2},"content":[{"type":"text","text":"{\"calls\":2}"}]}}"#,
        ],
    ),
];

fn firmware() -> PathBuf {
    let dir = project_root().join("examples").join("panic-free");
    build_firmware(&dir, BOARD.rust_target()).unwrap_or_else(|e| panic!("{e}"))
}

fn expect_line(qemu: &mut QemuGuard, expected: &str) {
    let got = qemu.read_line(TIMEOUT).unwrap_or_else(|| {
        panic!(
            "no line within {TIMEOUT:?}, expected {expected:?}; QEMU stderr:\n{}",
            qemu.logs().join("\n")
        )
    });
    assert_eq!(got, expected);
}

#[test]
fn the_panic_free_firmware_answers_its_setup_lines_and_a_session_byte_for_byte() {
    let elf = firmware();
    let mut qemu = QemuGuard::start_socket(BOARD, &elf).unwrap_or_else(|e| panic!("{e}"));
    expect_line(&mut qemu, "panic-free: ready");
    for (line, answers) in SCRIPT {
        qemu.send_line(line).unwrap_or_else(|e| panic!("{e}"));
        for answer in *answers {
            expect_line(&mut qemu, answer);
        }
    }
    // End of stream: the serve loop returns and the firmware reports what it saw.
    qemu.send_bytes(&[0x04]).unwrap_or_else(|e| panic!("{e}"));
    expect_line(
        &mut qemu,
        "panic-free: done, Stats { requests: 4, notifications: 1, unparsable: 0, invalid_utf8: 0, \
         overlong: 0, too_deep: 0, invalid: 0, cancelled: 0 }",
    );
    // The second phase: typed tools on `serve_async_into`.
    expect_line(&mut qemu, "typed: serving");
    for (line, answers) in TYPED_SCRIPT {
        qemu.send_line(line).unwrap_or_else(|e| panic!("{e}"));
        for answer in *answers {
            expect_line(&mut qemu, answer);
        }
    }
    approve_in_two_rounds(&mut qemu);
    qemu.send_bytes(&[0x04]).unwrap_or_else(|e| panic!("{e}"));
    expect_line(
        &mut qemu,
        "typed: done, Ok(()), Stats { requests: 7, notifications: 1, unparsable: 0, \
         invalid_utf8: 0, overlong: 0, too_deep: 0, invalid: 0, cancelled: 0 }",
    );
}

/// A 2026-07-28 call that needs a person's yes: round 1 gets `input_required` with the sealed
/// state, round 2 (the answer and the state) switches the relay.
fn approve_in_two_rounds(qemu: &mut QemuGuard) {
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let mut params = json!({"name": "switch", "arguments": {"relay": 0, "on": true, "level": 1.5},
                            "_meta": meta});
    let call = |id: &str, params: &Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
    };
    qemu.send_line(&call("a1", &params))
        .unwrap_or_else(|e| panic!("{e}"));
    let first = read_json(qemu);
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let (key, request) = result["inputRequests"]
        .as_object()
        .and_then(|m| m.iter().next())
        .unwrap_or_else(|| panic!("one input request: {first}"));
    assert_eq!(
        request["params"]["message"], "Switch relay 0 on?",
        "{first}"
    );
    params["inputResponses"] =
        json!({ key.as_str(): {"action": "accept", "content": {"approve": true}} });
    params["requestState"] = result["requestState"].clone();
    qemu.send_line(&call("a2", &params))
        .unwrap_or_else(|e| panic!("{e}"));
    let done = read_json(qemu);
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 0, "on": true, "wasOn": false, "level": 1.5}),
        "{done}"
    );
}

fn read_json(qemu: &mut QemuGuard) -> Value {
    let line = qemu
        .read_line(TIMEOUT)
        .unwrap_or_else(|| panic!("no line within {TIMEOUT:?}"));
    serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
}
