//! The hostile and malformed input corpus of issue 8, as data shared by two runners: the host
//! engine through the blocking serve loop (`tests/tests/hostile_corpus.rs`) and the QEMU
//! firmware over its UART (`tests/tests/qemu_hostile.rs`).
//!
//! Each [`Case`] is bytes to send (and how to split them into writes) with the exact response
//! lines expected, in order, or none (deliberate silence). A runner sends the cases in order on
//! one connection to one device, each followed by a [`probe`] (`ping`) that must be answered:
//! whatever a case did, the device still serves the next message. Order matters: cases after
//! the `initialize` cases see a legacy session, and `set_led` answers its previous level.
//!
//! The host runner serves the firmware's own tool definitions and their derived programs (the
//! `Toolbox` of `examples/sensor-tools`, a dev-dependency of this crate) with the firmware's
//! buffer sizes and nesting limit, so both runners expect the same bytes. Simulated sensor values differ between
//! the two and are matched with the `{NUM}` placeholder of [`Reply::matches`].
//!
//! Over QEMU's emulated UART bytes move at a few tens of KB/s, so a megabyte costs about half a
//! minute. The very large cases therefore carry a smaller stand-in ([`Case::for_uart`]) that
//! the QEMU runner sends instead; the host runner sends the full cases, and also the stand-ins,
//! checking that they get the same answers. One stand-in is simply fewer requests
//! (`ten_thousand_requests_in_one_write`, see there); the others are overlong lines, and this
//! is why such a stand-in proves the same thing on the device as the full case:
//! every line longer than the firmware's [`LINE_BYTES`] buffer is discarded as it streams past,
//! and from the first byte past the buffer to the LF each byte takes the same path, whatever the
//! line's length: the line reader adds it to a saturating `usize` length and feeds it to the
//! `IdTracker` (a few flags, a saturating `u32` depth and at most 64 bytes of captured id); nothing
//! is stored or parsed, and the reply depends only on the recovered id. A line of the same shape
//! just over the buffer thus ends in the same state and gets the same reply as a megabyte one; the
//! length it reaches before the LF is all that differs. On the device no such line reaches the
//! JSON parser, so 100,000-deep nesting is only ever an overlong line there (the parser's own
//! bounds on it are tested on the host with a 2 MiB line buffer, in `hostile_corpus.rs`). One
//! megabyte case, `one_megabyte_line_with_id_last`, keeps its full size over QEMU, so the
//! firmware still streams a real megabyte through its UART, ring buffer and discard path and
//! recovers an id that comes after all of it.

mod bytes;
mod envelope;
mod framing;
mod grammar;
mod handshake;
mod tools;

/// The firmware's longest request line, LF included (`mcp::INPUT_LINE_BYTES`).
pub const LINE_BYTES: usize = 512;
/// The firmware's output buffer (`sensor_tools::server::OUTPUT_BYTES`), also its `tools/list`
/// page budget.
pub const OUTPUT_BYTES: usize = 1400;
/// The firmware's request nesting limit (`Config::max_depth`).
pub const MAX_DEPTH: u8 = 16;

/// The `_meta` member of a 2026-07-28 request.
pub const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// How a runner splits a case's bytes into writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// One write.
    Whole,
    /// One write per byte.
    ByteByByte,
    /// Writes of this many bytes.
    Chunks(usize),
}

/// One expected response line (without its LF).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply(pub String);

impl Reply {
    /// True when `line` is this reply: byte for byte, where each `{NUM}` of the expectation
    /// stands for one JSON number (a simulated sensor value).
    pub fn matches(&self, line: &str) -> bool {
        let mut rest = line;
        let mut parts = self.0.split("{NUM}");
        let Some(head) = parts.next() else {
            return false;
        };
        let Some(after) = rest.strip_prefix(head) else {
            return false;
        };
        rest = after;
        for part in parts {
            let len = rest
                .find(|c: char| !(c.is_ascii_digit() || "-+.eE".contains(c)))
                .unwrap_or(rest.len());
            if len == 0 {
                return false;
            }
            let Some(after) = rest[len..].strip_prefix(part) else {
                return false;
            };
            rest = after;
        }
        rest.is_empty()
    }
}

/// A named hostile input and what the device must answer to it.
#[derive(Debug, Clone)]
pub struct Case {
    /// What the case is (unique, used in the probe's id).
    pub name: &'static str,
    /// The bytes sent.
    pub input: Vec<u8>,
    /// How they are written.
    pub split: Split,
    /// The response lines expected, in order; empty for deliberate silence.
    pub replies: Vec<Reply>,
    /// A smaller input of the same shape, and its replies, sent instead by runners over an
    /// emulated UART (see the module documentation).
    uart: Option<(Vec<u8>, Vec<Reply>)>,
}

impl Case {
    fn new(name: &'static str, input: impl Into<Vec<u8>>, replies: Vec<Reply>) -> Self {
        Self {
            name,
            input: input.into(),
            split: Split::Whole,
            replies,
            uart: None,
        }
    }

    fn split(mut self, split: Split) -> Self {
        self.split = split;
        self
    }

    /// Gives the case a smaller stand-in for runners over an emulated UART, with the same
    /// replies.
    fn over_uart(self, input: impl Into<Vec<u8>>) -> Self {
        let replies = self.replies.clone();
        self.over_uart_answered(input, replies)
    }

    /// Gives the case a smaller stand-in for runners over an emulated UART, and its replies.
    fn over_uart_answered(mut self, input: impl Into<Vec<u8>>, replies: Vec<Reply>) -> Self {
        self.uart = Some((input.into(), replies));
        self
    }

    /// True when the case has a smaller stand-in for runners over an emulated UART.
    pub fn has_uart_stand_in(&self) -> bool {
        self.uart.is_some()
    }

    /// The case as a runner over an emulated UART sends it: the same name and split, with its
    /// smaller stand-in's input and replies when it has one (see the module documentation),
    /// else unchanged.
    pub fn for_uart(mut self) -> Case {
        if let Some((input, replies)) = self.uart.take() {
            self.input = input;
            self.replies = replies;
        }
        self
    }

    /// Checks the lines received after this case and its probe: the expected replies, then
    /// the probe's answer, and nothing else.
    pub fn check(&self, lines: &[String]) -> Result<(), String> {
        let (_, probe_reply) = probe(self.name);
        let expected: Vec<&Reply> = self.replies.iter().chain([&probe_reply]).collect();
        if lines.len() != expected.len() {
            return Err(format!(
                "case {}: {} response lines, expected {}; first lines: {:?}",
                self.name,
                lines.len(),
                expected.len(),
                lines.iter().take(3).collect::<Vec<_>>()
            ));
        }
        for (i, (line, want)) in lines.iter().zip(expected).enumerate() {
            if !want.matches(line) {
                return Err(format!(
                    "case {}: response {i}:\n  got      {line}\n  expected {}",
                    self.name, want.0
                ));
            }
        }
        Ok(())
    }
}

/// The request that follows every case, and its answer: a legacy `ping` (answered `{}` in
/// every session state).
pub fn probe(case: &str) -> (String, Reply) {
    let id = format!("\"probe:{case}\"");
    (
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"),
        Reply(format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}"
        )),
    )
}

/// A JSON string literal (RFC 8259 escaping, as the engine writes it for these texts).
fn quote(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// A request line (LF included) with raw JSON for the id and the params object's members.
fn req(id: &str, method: &str, params: &str) -> String {
    if params.is_empty() {
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{method}\"}}\n")
    } else {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"{method}\",\"params\":{{{params}}}}}\n"
        )
    }
}

/// A 2026-07-28 `tools/call` line.
fn call(id: &str, tool: &str, arguments: &str) -> String {
    req(
        id,
        "tools/call",
        &format!("{META},\"name\":\"{tool}\",\"arguments\":{arguments}"),
    )
}

fn error(id: Option<&str>, code: i32, message: &str) -> Reply {
    let id = id.map(|id| format!("\"id\":{id},")).unwrap_or_default();
    Reply(format!(
        "{{\"jsonrpc\":\"2.0\",{id}\"error\":{{\"code\":{code},\"message\":{}}}}}",
        quote(message)
    ))
}

fn invalid(id: Option<&str>, message: &str) -> Reply {
    error(id, -32600, message)
}

fn pong(id: &str) -> Reply {
    Reply(format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{}}}}"
    ))
}

/// A 2026-07-28 structured result of `json` (text block = the same JSON).
fn structured(id: &str, json: &str) -> Reply {
    let text = quote(json);
    Reply(format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"structuredContent\":{json},\"content\":[{{\"type\":\"text\",\"text\":{text}}}],\"resultType\":\"complete\"}}}}"
    ))
}

/// A 2026-07-28 `isError` result.
fn tool_error(id: &str, message: &str) -> Reply {
    Reply(format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":{}}}],\"isError\":true,\"resultType\":\"complete\"}}}}",
        quote(message)
    ))
}

fn led(id: &str, led: &str, brightness: u8, previous: u8) -> Reply {
    structured(
        id,
        &format!("{{\"led\":\"{led}\",\"brightness\":{brightness},\"previous\":{previous}}}"),
    )
}

fn bad_args(id: &str, tool: &str, violation: &str) -> Reply {
    tool_error(
        id,
        &format!("Invalid arguments for tool {tool}: {violation}"),
    )
}

const TOO_DEEP: &str = "Invalid request: the message is nested deeper than the device accepts";
const TOO_LONG: &str = "Invalid request: the message is longer than the device's input buffer";
const NOT_OBJECT: &str =
    "Invalid request: a message must be a JSON object (batches are not supported)";
const BAD_VERSION: &str = "Invalid request: \"jsonrpc\" must be \"2.0\"";
const BAD_ID: &str = "Invalid request: \"id\" must be a string or an integer";
const NO_METHOD: &str = "Invalid request: \"method\" is missing";
const METHOD_NOT_STRING: &str = "Invalid request: \"method\" must be a string";
const PARAMS_NOT_OBJECT: &str = "Invalid request: \"params\" must be an object";
const ID_TOO_LONG: &str = "Invalid request: the id is longer than the device accepts";
const MISSING_META: &str = "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] and [\"io.modelcontextprotocol/clientCapabilities\"] are required (or send initialize first)";
const NAME_NOT_STRING: &str = "Invalid params: \"name\" must be a string";
const ARGS_NOT_OBJECT: &str = "Invalid params: \"arguments\" must be an object";

/// `depth` nested arrays around `inner`.
fn nested(depth: usize, inner: &str) -> String {
    format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
}

/// The corpus, in the order the runners send it (at least 100 cases).
pub fn corpus() -> Vec<Case> {
    let mut c = Vec::new();
    framing::push(&mut c);
    bytes::push(&mut c);
    grammar::push(&mut c);
    envelope::push(&mut c);
    tools::push(&mut c);
    handshake::push(&mut c);
    c
}
