//! The `examples/panic-free` proof firmware under QEMU (`lm3s6965evb`, Cortex-M3): the build
//! that links only if no panic is reachable also answers correctly. Its four setup lines (input
//! schema, output schema, program in hex, instance) and a short MCP session get their answers
//! byte for byte, and the end-of-stream byte ends the run with the firmware's statistics.
//!
//! QEMU is killed by `QemuGuard` when the test ends, also when it fails.
#![cfg(unix)]

use std::path::PathBuf;
use std::time::Duration;

use embedded_mcp_tests::project_root;
use embedded_mcp_tests::qemu::{build_firmware, Board, QemuGuard};

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
}
