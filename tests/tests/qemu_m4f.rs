//! The `examples/m4f-smoke` firmware under QEMU's `mps2-an386` (Cortex-M4F,
//! `thumbv7em-none-eabihf`, CMSDK UART, blocking serve loop): the same core answers MCP on
//! another board. Responses are checked against the official MCP schema and the tools' output
//! schemas, and compared byte for byte.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use embedded_mcp_std::full::ToolChecker;
use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::qemu::{build_firmware, cargo_runner, Board, QemuGuard};
use embedded_mcp_tests::{mcp_schema_dir, project_root};
use serde_json::{json, Value};

const BOARD: Board = Board::Mps2An386;
const READY: &str = "m4f-smoke: ready";
const TIMEOUT: Duration = Duration::from_secs(10);
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

fn firmware_dir() -> PathBuf {
    project_root().join("examples").join("m4f-smoke")
}

fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        build_firmware(&firmware_dir(), BOARD.rust_target()).unwrap_or_else(|e| panic!("{e}"))
    })
}

fn schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| McpSchemas::load(&mcp_schema_dir()).expect("official MCP schemas"))
}

/// Sends `request`, reads one line, checks it against the 2026-07-28 schema as the answer to
/// `method`; returns the line and its value.
fn ask(qemu: &mut QemuGuard, method: &str, request: &str) -> (String, Value) {
    qemu.send_line(request).unwrap();
    let line = qemu.read_line(TIMEOUT).unwrap_or_else(|| {
        panic!(
            "no answer to {request}; QEMU stderr:\n{}",
            qemu.logs().join("\n")
        )
    });
    let value: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    let schemas = schemas();
    schemas
        .check_message("2026-07-28", &value)
        .unwrap_or_else(|e| panic!("{e}\n{line}"));
    schemas
        .check_response("2026-07-28", method, &value)
        .unwrap_or_else(|e| panic!("{e}\n{line}"));
    (line, value)
}

#[test]
fn m4f_smoke_firmware_lists_and_calls_its_tools_on_mps2_an386() {
    // The runner of `cargo run` boots this board.
    let runner = cargo_runner(&firmware_dir(), BOARD.rust_target()).unwrap();
    assert!(
        runner.windows(2).any(|w| w == ["-machine", "mps2-an386"]),
        "{runner:?}"
    );

    let mut qemu = QemuGuard::start_socket(BOARD, firmware()).unwrap_or_else(|e| panic!("{e}"));
    if qemu.wait_for_log(READY, TIMEOUT).is_none() {
        panic!("never ready; QEMU stderr:\n{}", qemu.logs().join("\n"));
    }
    let pid = qemu.pid();

    // tools/list, following the cursor.
    let mut checker = ToolChecker::new();
    let mut names = Vec::new();
    let mut cursor = String::new();
    for page in 1.. {
        let params = if cursor.is_empty() {
            META.to_owned()
        } else {
            format!(r#"{META},"cursor":"{cursor}""#)
        };
        let (line, value) = ask(
            &mut qemu,
            "tools/list",
            &format!(
                r#"{{"jsonrpc":"2.0","id":{page},"method":"tools/list","params":{{{params}}}}}"#
            ),
        );
        let tools = &value["result"]["tools"];
        assert!(checker.register_tools(tools).is_empty(), "{line}");
        names.extend(tools.as_array().unwrap().iter().map(|t| t["name"].clone()));
        match value["result"]["nextCursor"].as_str() {
            Some(next) => cursor = next.to_owned(),
            None => break,
        }
        assert!(page < 5, "tools/list never ends");
    }
    assert_eq!(names, [json!("board_info"), json!("multiply")]);

    // tools/call: hardware floats through the FPU and the core's float formatting.
    let (line, value) = ask(
        &mut qemu,
        "tools/call",
        &format!(
            r#"{{"jsonrpc":"2.0","id":"m1","method":"tools/call","params":{{{META},"name":"multiply","arguments":{{"a":1.5,"b":-2.25}}}}}}"#
        ),
    );
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"m1","result":{"structuredContent":{"product":-3.375},"content":[{"type":"text","text":"{\"product\":-3.375}"}],"resultType":"complete"}}"#
    );
    checker
        .check_result("2026-07-28", "multiply", &value["result"])
        .unwrap();
    let (line, value) = ask(
        &mut qemu,
        "tools/call",
        &format!(
            r#"{{"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{{{META},"name":"board_info"}}}}"#
        ),
    );
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"b1","result":{"structuredContent":{"board":"mps2-an386","cpu":"cortex-m4f","fpu":true,"firmware":"m4f-smoke 0.1.0"},"content":[{"type":"text","text":"{\"board\":\"mps2-an386\",\"cpu\":\"cortex-m4f\",\"fpu\":true,\"firmware\":\"m4f-smoke 0.1.0\"}"}],"resultType":"complete"}}"#
    );
    checker
        .check_result("2026-07-28", "board_info", &value["result"])
        .unwrap();
    // The compiled input schema is enforced here too; an infinite product is a tool error.
    let (line, _) = ask(
        &mut qemu,
        "tools/call",
        &format!(
            r#"{{"jsonrpc":"2.0","id":"m2","method":"tools/call","params":{{{META},"name":"multiply","arguments":{{"a":"two","b":2}}}}}}"#
        ),
    );
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"m2","result":{"content":[{"type":"text","text":"Invalid arguments for tool multiply: /a: \"two\" is not of type number"}],"isError":true,"resultType":"complete"}}"#
    );
    let (line, _) = ask(
        &mut qemu,
        "tools/call",
        &format!(
            r#"{{"jsonrpc":"2.0","id":"m3","method":"tools/call","params":{{{META},"name":"multiply","arguments":{{"a":1e30,"b":1e30}}}}}}"#
        ),
    );
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"m3","result":{"content":[{"type":"text","text":"Tool multiply produced a result that cannot be encoded: NaN or infinite float cannot be encoded as JSON"}],"isError":true,"resultType":"complete"}}"#
    );

    drop(qemu);
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "QEMU (pid {pid}) still exists after its guard dropped"
    );
}
