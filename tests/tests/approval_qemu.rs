//! A person approves `set_relay` on the qemu-sensors firmware through `embedded-mcp bridge
//! --qemu` for a legacy host (2025-11-25, `initialize`): the bridge's input-required shim asks
//! the host with `elicitation/create`, retries on the device in 2026-07-28 with the answer and
//! the device's `requestState`, and answers under the host's id in the host's revision. The relay
//! is read back with `device_info`.
//!
//! Every line the bridge writes is validated against the official 2025-11-25 schema
//! (`tests/vectors/mcp-schema`): the message against `JSONRPCMessage`, an `elicitation/create`
//! against `ElicitRequest`, a `tools/call` answer against `CallToolResult`.
//!
//! The last tests talk to the firmware straight over its UART in 2026-07-28: a state from before
//! a reboot is refused after it (the boot salt differs at every run), a state whose expiry
//! outlives the boot is refused, and a pending approval survives 256 other asks.
#![cfg(unix)]

mod bridge_support;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bridge_support::*;
use embedded_mcp_std::mcp_schema::McpSchemas;
use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu, Board};
use serde_json::{json, Value};

const VERSION: &str = "2025-11-25";

fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        ensure_qemu().unwrap_or_else(|e| panic!("{e}"));
        let dir = embedded_mcp_tests::project_root()
            .join("examples")
            .join("qemu-sensors");
        build_firmware(&dir, Board::Lm3s6965evb.rust_target()).unwrap_or_else(|e| panic!("{e}"))
    })
}

fn schemas() -> &'static McpSchemas {
    static SCHEMAS: OnceLock<McpSchemas> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        McpSchemas::load(&embedded_mcp_tests::mcp_schema_dir()).expect("official MCP schemas")
    })
}

/// A legacy host of the bridge: every line it reads is validated.
struct Host {
    bridge: BridgeProcess,
}

impl Host {
    /// A bridge on the firmware whose host initialized with `capabilities`.
    fn start(capabilities: &str) -> Self {
        let fw = firmware().to_string_lossy().into_owned();
        let mut host = Self {
            bridge: BridgeProcess::start(&["--qemu", &fw, "--timeout-ms", "8000"]),
        };
        let init = format!(
            r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{capabilities},"clientInfo":{{"name":"approval-test","version":"1"}}}}}}"#
        );
        let answer = host.request(&init, "initialize");
        assert_eq!(answer["result"]["protocolVersion"], VERSION, "{answer}");
        host.bridge.send(INITIALIZED);
        host
    }

    /// The next line, validated as a message of the revision.
    fn recv(&self) -> Value {
        let line = self.bridge.recv();
        let message = json(&line);
        schemas()
            .check_message(VERSION, &message)
            .unwrap_or_else(|e| panic!("{e}\n{line}"));
        message
    }

    /// Sends a request and reads its answer (validated as an answer to `method`).
    fn request(&mut self, line: &str, method: &str) -> Value {
        self.bridge.send(line);
        let answer = self.recv();
        schemas()
            .check_response(VERSION, method, &answer)
            .unwrap_or_else(|e| panic!("{e}\n{answer}"));
        answer
    }

    /// Calls `set_relay` and reads the bridge's question (validated as an `ElicitRequest`).
    fn switch_on(&mut self, id: &str, relay: u8) -> Value {
        self.bridge.send(&relay_call(id, relay, true));
        let ask = self.recv();
        assert_eq!(ask["method"], "elicitation/create", "{ask}");
        schemas()
            .check_def(VERSION, "ElicitRequest", &ask)
            .unwrap_or_else(|e| panic!("{e}\n{ask}"));
        assert_eq!(
            ask["params"]["message"],
            format!("Switch relay {relay} on?"),
            "{ask}"
        );
        ask
    }

    /// Answers the bridge's question `ask` with `result` and reads the call's answer.
    fn answer(&mut self, ask: &Value, result: Value) -> Value {
        let response = json!({"jsonrpc": "2.0", "id": ask["id"], "result": result});
        self.bridge.send(&response.to_string());
        let answer = self.recv();
        schemas()
            .check_response(VERSION, "tools/call", &answer)
            .unwrap_or_else(|e| panic!("{e}\n{answer}"));
        assert!(answer["result"].get("resultType").is_none(), "{answer}");
        answer
    }

    fn relays(&mut self, id: u32) -> Value {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"device_info","arguments":{{}}}}}}"#
        );
        let info = self.request(&line, "tools/call");
        info["result"]["structuredContent"]["relays"].clone()
    }

    fn finish(mut self) {
        self.bridge.stdin = None;
        assert_eq!(self.bridge.wait_exit().code(), Some(0));
    }
}

fn relay_call(id: &str, relay: u8, on: bool) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","method":"tools/call","params":{{"name":"set_relay","arguments":{{"relay":{relay},"on":{on}}}}}}}"#
    )
}

fn tool_text(answer: &Value) -> String {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_legacy_host_approves_declines_and_cancels_through_elicitation() {
    let mut host = Host::start(r#"{"elicitation":{}}"#);
    assert_eq!(host.relays(1), json!([false, false]));

    // Accept: the relay switches, the answer is under the host's id in legacy shape.
    let ask = host.switch_on("on-1", 1);
    let done = host.answer(
        &ask,
        json!({"action": "accept", "content": {"approve": true}}),
    );
    assert_eq!(done["id"], "on-1", "{done}");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 1, "on": true, "wasOn": false}),
        "{done}"
    );
    assert_eq!(host.relays(2), json!([false, true]));

    // Decline: a tool error, the relay stays off.
    let ask = host.switch_on("on-0", 0);
    let declined = host.answer(&ask, json!({"action": "decline"}));
    assert_eq!(declined["result"]["isError"], true, "{declined}");
    assert!(tool_text(&declined).contains("declined"), "{declined}");
    assert_eq!(host.relays(3), json!([false, true]));

    // Cancel: the same, saying so.
    let ask = host.switch_on("on-0b", 0);
    let cancelled = host.answer(&ask, json!({"action": "cancel"}));
    assert_eq!(cancelled["result"]["isError"], true, "{cancelled}");
    assert!(tool_text(&cancelled).contains("cancelled"), "{cancelled}");
    assert_eq!(host.relays(4), json!([false, true]));

    // Accepted with approve: false is no approval either.
    let ask = host.switch_on("on-0c", 0);
    let no = host.answer(
        &ask,
        json!({"action": "accept", "content": {"approve": false}}),
    );
    assert_eq!(no["result"]["isError"], true, "{no}");
    assert_eq!(host.relays(5), json!([false, true]));

    // Switching off needs nobody: answered at once.
    let off = host.request(&relay_call("off-1", 1, false), "tools/call");
    assert_eq!(
        off["result"]["structuredContent"],
        json!({"relay": 1, "on": false, "wasOn": true}),
        "{off}"
    );
    assert_eq!(host.relays(6), json!([false, false]));

    // The host gives up while the person thinks: no answer, the question is withdrawn.
    let ask = host.switch_on("gone", 1);
    host.bridge.send(
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"gone","reason":"user"}}"#,
    );
    let withdrawn = host.recv();
    assert_eq!(
        withdrawn["method"], "notifications/cancelled",
        "{withdrawn}"
    );
    assert_eq!(withdrawn["params"]["requestId"], ask["id"], "{withdrawn}");
    // The next answer the host reads is device_info's: nothing came for "gone".
    assert_eq!(host.relays(7), json!([false, false]));
    host.finish();
}

#[test]
fn a_legacy_host_without_elicitation_gets_a_tool_error_and_the_relay_stays_off() {
    let mut host = Host::start("{}");
    let refused = host.request(&relay_call("on", 1, true), "tools/call");
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert!(tool_text(&refused).contains("did not act"), "{refused}");
    assert_eq!(host.relays(2), json!([false, false]));
    host.finish();
}

#[test]
fn through_a_hub_a_legacy_host_approves_a_device_relay() {
    let fw = firmware().to_string_lossy().into_owned();
    let mut host = Host {
        bridge: BridgeProcess::start(&[
            "--device",
            &format!("m1=qemu:{fw}"),
            "--timeout-ms",
            "8000",
        ]),
    };
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{{"elicitation":{{}}}},"clientInfo":{{"name":"approval-test","version":"1"}}}}}}"#
    );
    host.request(&init, "initialize");
    host.bridge.send(INITIALIZED);
    let list = host.request(
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
        "tools/list",
    );
    assert!(list.to_string().contains("m1.set_relay"), "{list}");
    host.bridge.send(
        r#"{"jsonrpc":"2.0","id":"on","method":"tools/call","params":{"name":"m1.set_relay","arguments":{"relay":0,"on":true}}}"#,
    );
    let ask = host.recv();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    schemas()
        .check_def(VERSION, "ElicitRequest", &ask)
        .unwrap_or_else(|e| panic!("{e}\n{ask}"));
    let done = host.answer(
        &ask,
        json!({"action": "accept", "content": {"approve": true}}),
    );
    assert_eq!(done["id"], "on", "{done}");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 0, "on": true, "wasOn": false}),
        "{done}"
    );
    let info = host.request(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"m1.device_info","arguments":{}}}"#,
        "tools/call",
    );
    assert_eq!(
        info["result"]["structuredContent"]["relays"],
        json!([true, false]),
        "{info}"
    );
    host.finish();
}

/// `embedded-mcp bridge --http 127.0.0.1:0 --qemu FIRMWARE`, killed on drop.
struct HttpQemu {
    child: std::process::Child,
    port: u16,
}

impl Drop for HttpQemu {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl HttpQemu {
    fn start() -> Self {
        use std::io::Read;
        let fw = firmware().to_string_lossy().into_owned();
        let mut child = std::process::Command::new(BRIDGE)
            .args([
                "bridge",
                "--http",
                "127.0.0.1:0",
                "--qemu",
                &fw,
                "--timeout-ms",
                "8000",
            ])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start the bridge");
        let mut stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let mut buf = [0u8; 1024];
            while let Ok(n) = stderr.read(&mut buf) {
                if n == 0 {
                    return;
                }
                text.push_str(&String::from_utf8_lossy(&buf[..n]));
                if let Some(at) = text.find("listening: http://127.0.0.1:") {
                    let rest = &text[at + "listening: http://127.0.0.1:".len()..];
                    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                    if rest.len() > digits.len() {
                        let _ = tx.send(digits.parse::<u16>().unwrap_or(0));
                        text.clear();
                    }
                }
            }
        });
        let port = rx.recv_timeout(TIMEOUT).expect("the bridge listens");
        Self { child, port }
    }

    /// Sends a POST on a fresh connection; returns the connection to read its answer from.
    fn send(&self, session: Option<&str>, body: &str) -> std::io::BufReader<std::net::TcpStream> {
        use std::io::Write;
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(TIMEOUT)).unwrap();
        let mut head = format!(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: {VERSION}\r\nContent-Length: {}\r\n",
            self.port,
            body.len()
        );
        if let Some(id) = session {
            head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        std::io::BufReader::new(stream)
    }
}

/// An answer being read: its status, headers, and the SSE events or JSON body as they come.
struct Answer {
    input: std::io::BufReader<std::net::TcpStream>,
    status: u16,
    headers: Vec<(String, String)>,
    chunked: bool,
    pending: String,
}

impl Answer {
    fn read(mut input: std::io::BufReader<std::net::TcpStream>) -> Self {
        use std::io::BufRead;
        let mut line = String::new();
        input.read_line(&mut line).unwrap();
        let status = line.split(' ').nth(1).unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            line.clear();
            input.read_line(&mut line).unwrap();
            let l = line.trim_end();
            if l.is_empty() {
                break;
            }
            let (n, v) = l.split_once(':').unwrap();
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
        }
        let chunked = headers
            .iter()
            .any(|(n, v)| n == "transfer-encoding" && v == "chunked");
        Self {
            input,
            status,
            headers,
            chunked,
            pending: String::new(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The next message: an SSE event's data, or the whole JSON body.
    fn next(&mut self) -> Value {
        use std::io::{BufRead, Read};
        if self.header("content-type") == Some("application/json") {
            let len: usize = self
                .header("content-length")
                .unwrap_or("0")
                .parse()
                .unwrap();
            let mut body = vec![0; len];
            self.input.read_exact(&mut body).unwrap();
            return serde_json::from_slice(&body).unwrap();
        }
        assert!(self.chunked, "an event stream is chunked");
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let event: String = self.pending.drain(..end + 2).collect();
                let data: String = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .collect();
                if !data.is_empty() {
                    return serde_json::from_str(&data).unwrap();
                }
                continue;
            }
            let mut size = String::new();
            self.input.read_line(&mut size).unwrap();
            let size = usize::from_str_radix(size.trim_end(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            self.input.read_exact(&mut chunk).unwrap();
            assert!(size > 0, "the stream ended before its answer");
            self.pending
                .push_str(&String::from_utf8_lossy(&chunk[..size]));
        }
    }
}

/// Validates a message of the HTTP session.
fn valid(message: Value) -> Value {
    schemas()
        .check_message(VERSION, &message)
        .unwrap_or_else(|e| panic!("{e}\n{message}"));
    message
}

#[test]
fn an_http_session_approves_on_the_call_stream() {
    let bridge = HttpQemu::start();
    let init = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{VERSION}","capabilities":{{"elicitation":{{}}}},"clientInfo":{{"name":"approval-test","version":"1"}}}}}}"#
    );
    let mut opened = Answer::read(bridge.send(None, &init));
    assert_eq!(opened.status, 200);
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    valid(opened.next());
    let note = Answer::read(bridge.send(Some(&session), INITIALIZED));
    assert_eq!(note.status, 202);

    let mut call = Answer::read(bridge.send(Some(&session), &relay_call("on", 1, true)));
    assert_eq!(call.status, 200);
    let ask = valid(call.next());
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    schemas()
        .check_def(VERSION, "ElicitRequest", &ask)
        .unwrap_or_else(|e| panic!("{e}\n{ask}"));
    let answer = json!({"jsonrpc": "2.0", "id": ask["id"],
        "result": {"action": "accept", "content": {"approve": true}}});
    let posted = Answer::read(bridge.send(Some(&session), &answer.to_string()));
    assert_eq!(posted.status, 202);
    let done = valid(call.next());
    schemas()
        .check_response(VERSION, "tools/call", &done)
        .unwrap_or_else(|e| panic!("{e}\n{done}"));
    assert_eq!(done["id"], "on", "{done}");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 1, "on": true, "wasOn": false}),
        "{done}"
    );
    let info = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"device_info","arguments":{}}}"#;
    let info = valid(Answer::read(bridge.send(Some(&session), info)).next());
    assert_eq!(
        info["result"]["structuredContent"]["relays"],
        json!([false, true]),
        "{info}"
    );
}

/// A 2026-07-28 host (no `initialize`; each request carries the revision and the client's
/// capabilities in `_meta`) of a hub of two qemu-sensors boards: `input_required` of the device
/// comes through the hub as it is, and the retry with the answer and the state goes back to
/// the board. Accept switches that board's relay (read back with `device_info`), decline does
/// not; the other board is untouched.
#[test]
fn through_a_hub_a_2026_host_approves_and_declines_on_the_board_it_names() {
    const MODERN: &str = "2026-07-28";
    let fw = firmware().to_string_lossy().into_owned();
    let mut bridge = BridgeProcess::start(&[
        "--device",
        &format!("m1=qemu:{fw}"),
        "--device",
        &format!("m2=qemu:{fw}"),
        "--timeout-ms",
        "8000",
    ]);
    let meta = json!({"io.modelcontextprotocol/protocolVersion": MODERN,
                      "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}});
    let mut ask = |id: &str, method: &str, mut params: Value| -> Value {
        params["_meta"] = meta.clone();
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        bridge.send(&request.to_string());
        let answer = json(&bridge.recv());
        schemas()
            .check_response(MODERN, method, &answer)
            .unwrap_or_else(|e| panic!("{e}\n{answer}"));
        assert_eq!(answer["id"], id, "{answer}");
        answer
    };
    let list = ask("l", "tools/list", json!({}));
    assert!(list.to_string().contains("m2.set_relay"), "{list}");
    let relays = |ask: &mut dyn FnMut(&str, &str, Value) -> Value, id: &str, board: &str| {
        let info = ask(
            id,
            "tools/call",
            json!({"name": format!("{board}.device_info"), "arguments": {}}),
        );
        info["result"]["structuredContent"]["relays"].clone()
    };
    // Round 1 of each call: the device asks; round 2 answers with `action`.
    let mut switch_on = |id: &str, board: &str, relay: u8, action: &str| -> Value {
        let params = json!({"name": format!("{board}.set_relay"),
                            "arguments": {"relay": relay, "on": true}});
        let first = ask(&format!("{id}-1"), "tools/call", params.clone());
        let result = &first["result"];
        assert_eq!(result["resultType"], "input_required", "{first}");
        let (key, request) = result["inputRequests"]
            .as_object()
            .and_then(|m| m.iter().next())
            .expect("one input request");
        assert_eq!(request["method"], "elicitation/create", "{first}");
        assert_eq!(
            request["params"]["message"],
            format!("Switch relay {relay} on?"),
            "{first}"
        );
        let mut response = json!({"action": action});
        if action == "accept" {
            response["content"] = json!({"approve": true});
        }
        let mut retry = params;
        retry["inputResponses"] = json!({ key.as_str(): response });
        retry["requestState"] = result["requestState"].clone();
        ask(&format!("{id}-2"), "tools/call", retry)
    };
    let done = switch_on("on", "m2", 1, "accept");
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 1, "on": true, "wasOn": false}),
        "{done}"
    );
    let declined = switch_on("no", "m1", 0, "decline");
    assert_eq!(declined["result"]["isError"], true, "{declined}");
    assert_eq!(relays(&mut ask, "i2", "m2"), json!([false, true]));
    assert_eq!(relays(&mut ask, "i1", "m1"), json!([false, false]));
    // A 2026-07-28 host without `elicitation` gets the device's -32021.
    let bare = json!({"jsonrpc": "2.0", "id": "bare", "method": "tools/call",
        "params": {"name": "m1.set_relay", "arguments": {"relay": 0, "on": true},
                   "_meta": {"io.modelcontextprotocol/protocolVersion": MODERN,
                             "io.modelcontextprotocol/clientCapabilities": {}}}});
    bridge.send(&bare.to_string());
    let refused = json(&bridge.recv());
    schemas()
        .check_message(MODERN, &refused)
        .unwrap_or_else(|e| panic!("{e}\n{refused}"));
    assert_eq!(refused["id"], "bare", "{refused}");
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    bridge.stdin = None;
    assert_eq!(bridge.wait_exit().code(), Some(0), "{}", bridge.stderr());
}

/// The firmware on its UART socket, no bridge: 2026-07-28 requests with elicitation declared.
struct Uart(embedded_mcp_tests::qemu::QemuGuard);

/// The refusal of a state from another boot, as the device words it.
const OTHER_BOOT: &str = "Approval refused: the requestState is from another boot; ask again: tool set_relay did not act";

impl Uart {
    fn boot() -> Self {
        let qemu =
            embedded_mcp_tests::qemu::QemuGuard::start_socket(Board::Lm3s6965evb, firmware())
                .unwrap_or_else(|e| panic!("{e}"));
        Self(qemu)
    }

    fn call(&mut self, id: u32, name: &str, arguments: Value, extra: Value) -> Value {
        let mut params = json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}},
            "name": name, "arguments": arguments});
        if let Value::Object(extra) = extra {
            params.as_object_mut().unwrap().extend(extra);
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let answer = self
            .0
            .exchange(&line.to_string(), TIMEOUT)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// Asks to switch `relay` on: the device's `requestState`.
    fn ask(&mut self, id: u32, relay: u8) -> String {
        let answer = self.call(
            id,
            "set_relay",
            json!({"relay": relay, "on": true}),
            json!({}),
        );
        assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
        answer["result"]["requestState"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Retries switching `relay` on with an accepted answer under `state`.
    fn accept(&mut self, id: u32, relay: u8, state: &str) -> Value {
        self.call(
            id,
            "set_relay",
            json!({"relay": relay, "on": true}),
            json!({"inputResponses": {"approval": {"action": "accept", "content": {"approve": true}}},
                   "requestState": state}),
        )
    }

    fn relays(&mut self, id: u32) -> Value {
        let info = self.call(id, "device_info", json!({}), json!({}));
        info["result"]["structuredContent"]["relays"].clone()
    }
}

#[test]
fn a_state_from_before_a_reboot_is_refused_after_it() {
    let mut boot_1 = Uart::boot();
    let old = boot_1.ask(1, 1);
    drop(boot_1);
    let mut boot_2 = Uart::boot();
    let new = boot_2.ask(1, 1);
    // The same approval number (and the same uptime-based expiry, give or take): only the boot
    // tells them apart.
    assert_eq!(old[9..17], new[9..17], "{old} {new}");
    assert_ne!(old[1..9], new[1..9], "{old} {new}");
    let refused = boot_2.accept(2, 1, &old);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert_eq!(tool_text(&refused), OTHER_BOOT, "{refused}");
    assert_eq!(boot_2.relays(3), json!([false, false]));
    // The new boot's own approval was not touched and acts.
    let done = boot_2.accept(4, 1, &new);
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 1, "on": true, "wasOn": false}),
        "{done}"
    );
    assert_eq!(boot_2.relays(5), json!([false, true]));
}

/// A state for approval 0 of `set_relay {"relay":1,"on":true}` sealed offline with the public
/// demo key under boot salt `salt`, expiring at `expiry_ms`.
fn forged(salt: u64, expiry_ms: u64) -> String {
    use hmac::{Hmac, KeyInit, Mac};
    let key = b"embedded-mcp QEMU demo key, open";
    let mut boot = <Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key).unwrap();
    boot.update(b"embedded-mcp boot id\0");
    boot.update(&salt.to_le_bytes());
    let boot = boot.finalize().into_bytes();
    let boot = u32::from_le_bytes(boot[..4].try_into().unwrap());
    let mut mac = <Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key).unwrap();
    mac.update(b"embedded-mcp approval state 3\0");
    mac.update(&salt.to_le_bytes());
    mac.update(&0u32.to_le_bytes());
    mac.update(&expiry_ms.to_le_bytes());
    mac.update(b"set_relay\0");
    mac.update(br#"{"relay":1,"on":true}"#);
    let tag: String = mac.finalize().into_bytes()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("3{boot:08x}{:08x}{expiry_ms:016x}{tag}", 0)
}

#[test]
fn a_state_whose_expiry_outlives_the_boot_is_refused() {
    let mut uart = Uart::boot();
    let genuine = uart.ask(1, 1);
    // The genuine state with its expiry stretched to 2^64 - 1: the tag no longer matches.
    let stretched = format!("{}{:016x}{}", &genuine[..17], u64::MAX, &genuine[33..]);
    let refused = uart.accept(2, 1, &stretched);
    assert_eq!(
        tool_text(&refused),
        "Approval refused: the requestState was not issued for this tool and these arguments: tool set_relay did not act",
        "{refused}"
    );
    // Sealed offline with the demo key, expiry 2^64 - 1, under the salt the firmware used to
    // have (0): the boot's salt is 64 random bits the host gives each run, so the state names
    // another boot. (A state sealed under this boot's own salt and key with that expiry is
    // refused as well: the core's tests, `states_forged_with_the_key_and_salt_never_outlive_the_boot`.)
    let refused = uart.accept(3, 1, &forged(0, u64::MAX));
    assert_eq!(tool_text(&refused), OTHER_BOOT, "{refused}");
    assert_eq!(uart.relays(4), json!([false, false]));
    assert!(uart.accept(5, 1, &genuine)["result"]["structuredContent"]["on"] == true);
}

#[test]
fn a_pending_approval_survives_256_other_asks() {
    let mut uart = Uart::boot();
    let pending = uart.ask(1, 1);
    // 256 asks from anyone (relay 0 here), never answered.
    for id in 0..256 {
        uart.ask(100 + id, 0);
    }
    let done = uart.accept(2, 1, &pending);
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"relay": 1, "on": true, "wasOn": false}),
        "{done}"
    );
    assert_eq!(uart.relays(3), json!([false, true]));
}
