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

use std::fmt::Write as _;

/// The firmware's longest request line, LF included (`mcp::INPUT_LINE_BYTES`).
pub const LINE_BYTES: usize = 512;
/// The firmware's output buffer (`sensor_tools::server::OUTPUT_BYTES`), also its `tools/list`
/// page budget.
pub const OUTPUT_BYTES: usize = 1320;
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
    let ping = |id: &str| req(id, "ping", "");

    // ---- framing --------------------------------------------------------------------------
    c.push(Case::new("plain_ping", ping("1"), vec![pong("1")]));
    c.push(Case::new(
        "crlf_line_ending",
        ping("2").replace('\n', "\r\n"),
        vec![pong("2")],
    ));
    c.push(Case::new(
        "cr_only_line_endings_are_not_line_ends",
        // Two requests ended by CR only: one line (CR is JSON whitespace inside it, so it holds
        // two documents and is not JSON) until an LF arrives; dropped without an answer.
        format!("{}\r{}\r\n", ping("3").trim_end(), ping("4").trim_end()),
        vec![],
    ));
    c.push(Case::new(
        "utf8_bom_at_line_start",
        format!("\u{feff}{}", ping("5")),
        vec![pong("5")],
    ));
    c.push(Case::new("empty_lines", "\n\n\n\n", vec![]));
    c.push(Case::new(
        "blank_lines_spaces_tabs",
        " \n\t\n \t \r\n",
        vec![],
    ));
    c.push(Case::new("thousand_empty_lines", "\n".repeat(1000), vec![]));
    c.push(Case::new(
        "leading_and_trailing_whitespace",
        format!(" \t{} \t\n", ping("6").trim_end()),
        vec![pong("6")],
    ));
    c.push(
        Case::new("request_split_byte_by_byte", ping("7"), vec![pong("7")])
            .split(Split::ByteByByte),
    );
    c.push(
        Case::new(
            "call_split_byte_by_byte",
            call("8", "set_led", r#"{"led":"red","brightness":10}"#),
            vec![led("8", "red", 10, 0)],
        )
        .split(Split::ByteByByte),
    );
    c.push(
        Case::new(
            "requests_split_in_odd_chunks",
            format!("{}{}{}", ping("9"), ping("10"), ping("11")),
            vec![pong("9"), pong("10"), pong("11")],
        )
        .split(Split::Chunks(7)),
    );
    c.push(
        Case::new(
            "utf8_character_split_across_writes",
            // "é" (2 bytes), split by 1-byte writes inside an id.
            ping("\"caf\u{e9}\""),
            vec![pong("\"caf\u{e9}\"")],
        )
        .split(Split::ByteByByte),
    );
    c.push(Case::new(
        "two_requests_on_one_line",
        format!("{}{}", ping("12").trim_end(), ping("13")),
        vec![],
    ));
    c.push(Case::new(
        "trailing_garbage_after_request",
        format!("{} x\n", ping("14").trim_end()),
        vec![],
    ));
    c.push(Case::new(
        "request_without_lf_then_garbage",
        format!("{}garbage\n", ping("15").trim_end()),
        vec![],
    ));
    {
        let line = ping("16");
        let fit = format!(
            "{}{}{}\n",
            &line[..line.len() - 2],
            " ".repeat(LINE_BYTES - line.len()),
            "}"
        );
        assert_eq!(fit.len(), LINE_BYTES);
        c.push(Case::new(
            "line_of_exactly_the_buffer_size",
            fit,
            vec![pong("16")],
        ));
        let over = format!(
            "{}{}{}\n",
            &line[..line.len() - 2],
            " ".repeat(LINE_BYTES - line.len() + 1),
            "}"
        );
        c.push(Case::new(
            "line_one_byte_over_the_buffer",
            over,
            vec![invalid(Some("16"), TOO_LONG)],
        ));
    }
    {
        // Over the UART (module documentation): the same lines with a pad of twice the line
        // buffer instead of a megabyte, except `..._with_id_last`, sent full size everywhere.
        let id_first = |pad: &str| {
            format!("{{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"ping\",\"params\":{{\"pad\":\"{pad}\"}}}}\n")
        };
        let pad = "a".repeat(1 << 20);
        let small = "a".repeat(2 * LINE_BYTES);
        c.push(
            Case::new(
                "one_megabyte_line_with_id_first",
                id_first(&pad),
                vec![invalid(Some("17"), TOO_LONG)],
            )
            .over_uart(id_first(&small)),
        );
        c.push(Case::new(
            "one_megabyte_line_with_id_last",
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{{\"pad\":\"{pad}\"}},\"id\":\"last\"}}\n"),
            vec![invalid(Some("\"last\""), TOO_LONG)],
        ));
        c.push(
            Case::new("one_megabyte_of_garbage", format!("{pad}\n"), vec![])
                .over_uart(format!("{small}\n")),
        );
    }
    let nul_line = |len: usize| [vec![0u8; len], b"\n".to_vec()].concat();
    c.push(
        Case::new("one_megabyte_of_nul_bytes", nul_line(1 << 20), vec![])
            .over_uart(nul_line(2 * LINE_BYTES)),
    );
    c.push(Case::new(
        "id_inside_a_nested_object_is_not_recovered",
        format!(
            "{{\"params\":{{\"id\":5,\"pad\":\"{}\"}},\"jsonrpc\":\"2.0\",\"method\":\"ping\"}}\n",
            "b".repeat(600)
        ),
        vec![],
    ));
    c.push(Case::new(
        "overlong_line_with_float_id",
        format!(
            "{{\"id\":1.5,\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}\n",
            "c".repeat(600)
        ),
        vec![],
    ));
    c.push(Case::new(
        "overlong_line_with_braces_in_strings",
        format!(
            "{{\"pad\":\"{}\\\"}}{{\",\"id\":\"x}}y\",\"jsonrpc\":\"2.0\",\"method\":\"ping\"}}\n",
            "}{".repeat(300)
        ),
        vec![invalid(Some("\"x}y\""), TOO_LONG)],
    ));
    {
        // Over the UART: the first 1,000 of them (46 KB, still 180 times the firmware's
        // 256-byte receive ring, so its back-pressure pauses and resumes all along, as with
        // 10,000). `qemu_sensors` pipelines 1,000 calls and `soak_bridge` 2,000 or more too.
        let requests = |count: usize| {
            let mut many = String::new();
            let mut replies = Vec::new();
            for i in 0..count {
                let id = format!("{}", 100_000 + i);
                many.push_str(&ping(&id));
                replies.push(pong(&id));
            }
            (many, replies)
        };
        let (many, replies) = requests(10_000);
        let (fewer, fewer_replies) = requests(1_000);
        c.push(
            Case::new("ten_thousand_requests_in_one_write", many, replies)
                .over_uart_answered(fewer, fewer_replies),
        );
    }
    {
        let mut lines = String::new();
        for i in 0..1000 {
            let _ = writeln!(lines, "garbage line {i} {{{{ \"\\");
        }
        c.push(Case::new("thousand_garbage_lines", lines, vec![]));
    }

    // ---- bytes that are not UTF-8 or not text ---------------------------------------------
    c.push(Case::new(
        "invalid_utf8_in_string",
        b"{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "overlong_utf8_encoding",
        b"{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"ping\",\"params\":{\"x\":\"\xc0\xaf\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "utf8_encoded_surrogate",
        b"{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"ping\",\"params\":{\"x\":\"\xed\xa0\x80\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "truncated_utf8_sequence",
        b"{\"jsonrpc\":\"2.0\",\"id\":23,\"method\":\"ping\",\"params\":{\"x\":\"\xe2\x82\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "latin1_bytes",
        b"{\"jsonrpc\":\"2.0\",\"id\":24,\"method\":\"ping\",\"params\":{\"x\":\"caf\xe9\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "nul_byte_inside_string",
        b"{\"jsonrpc\":\"2.0\",\"id\":25,\"method\":\"pi\x00ng\"}\n".to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "nul_byte_between_tokens",
        b"{\"jsonrpc\":\"2.0\",\x00\"id\":26,\"method\":\"ping\"}\n".to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "nul_bytes_only",
        b"\x00\x00\x00\n".to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "escaped_nul_in_argument_is_checked",
        call("27", "set_led", r#"{"led":"red\u0000","brightness":1}"#),
        vec![bad_args(
            "27",
            "set_led",
            "/led: \"red\\u0000\" is not one of the enum values",
        )],
    ));
    c.push(Case::new(
        "binary_noise_with_lf_inside",
        [(0u8..=255).collect::<Vec<u8>>(), b"\n".to_vec()].concat(),
        vec![],
    ));
    c.push(Case::new(
        "binary_noise_then_lf",
        [
            (0u8..=255)
                .rev()
                .filter(|&b| b != b'\n')
                .collect::<Vec<u8>>(),
            b"\n".to_vec(),
        ]
        .concat(),
        vec![],
    ));

    // ---- JSON grammar ---------------------------------------------------------------------
    // Over the UART (module documentation): the same shapes about twice the line buffer long.
    let deep_array = |depth: usize| format!("{}\n", nested(depth, ""));
    c.push(
        Case::new("nesting_100000_deep_array", deep_array(100_000), vec![])
            .over_uart(deep_array(LINE_BYTES)),
    );
    let deep_request = |depth: usize| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"ping\",\"params\":{{\"x\":{}}}}}\n",
            nested(depth, "")
        )
    };
    c.push(
        Case::new(
            "nesting_100000_deep_in_a_request",
            deep_request(100_000),
            vec![invalid(Some("30"), TOO_LONG)],
        )
        .over_uart(deep_request(LINE_BYTES)),
    );
    let unclosed = |depth: usize| format!("{}\n", "{\"a\":".repeat(depth));
    c.push(
        Case::new("nesting_100000_unclosed", unclosed(100_000), vec![])
            .over_uart(unclosed((2 * LINE_BYTES).div_ceil(5))),
    );
    c.push(Case::new(
        "nesting_one_over_the_limit",
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":31,\"method\":\"ping\",\"params\":{{\"x\":{}}}}}\n",
            nested(usize::from(MAX_DEPTH) - 1, "")
        ),
        vec![invalid(Some("31"), TOO_DEEP)],
    ));
    c.push(Case::new(
        "nesting_at_the_limit",
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":32,\"method\":\"ping\",\"params\":{{\"x\":{}}}}}\n",
            nested(usize::from(MAX_DEPTH) - 2, "")
        ),
        vec![pong("32")],
    ));
    c.push(Case::new(
        "too_deep_with_id_after_the_deep_part",
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{{\"x\":{}}},\"id\":\"after\"}}\n",
            nested(40, "")
        ),
        vec![invalid(Some("\"after\""), TOO_DEEP)],
    ));
    c.push(Case::new(
        "too_deep_array_root",
        format!("{}\n", nested(40, "1")),
        vec![],
    ));
    c.push(Case::new(
        "lone_high_surrogate_escape_in_id",
        ping(r#""\ud800""#),
        vec![],
    ));
    c.push(Case::new(
        "lone_low_surrogate_escape_in_argument",
        call("33", "set_led", r#"{"led":"\udc00","brightness":1}"#),
        vec![],
    ));
    c.push(Case::new(
        "reversed_surrogate_pair",
        ping(r#""\ude00\ud83d""#),
        vec![],
    ));
    c.push(Case::new(
        "high_surrogate_then_letter",
        ping(r#""\ud83dx""#),
        vec![],
    ));
    c.push(Case::new(
        "valid_surrogate_pair_in_id",
        ping(r#""\ud83d\ude00""#),
        vec![pong(r#""\ud83d\ude00""#)],
    ));
    c.push(Case::new(
        "escaped_id_echoed_as_written",
        ping(r#""a\"b\\c\/d\u0041""#),
        vec![pong(r#""a\"b\\c\/d\u0041""#)],
    ));
    c.push(Case::new(
        "duplicate_id_first_wins",
        "{\"jsonrpc\":\"2.0\",\"id\":40,\"id\":41,\"method\":\"ping\"}\n",
        vec![pong("40")],
    ));
    c.push(Case::new(
        "duplicate_method_first_wins",
        "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"ping\",\"method\":\"nope\"}\n",
        vec![pong("42")],
    ));
    c.push(Case::new(
        // The handler would read the first `brightness`; the validator checks every member, so
        // a second, out-of-range one cannot slip past it.
        "duplicate_argument_every_value_is_validated",
        call(
            "43",
            "set_led",
            r#"{"led":"green","brightness":20,"brightness":500}"#,
        ),
        vec![bad_args(
            "43",
            "set_led",
            "/brightness: 500 is greater than the maximum 100",
        )],
    ));
    c.push(Case::new(
        "duplicate_tool_name_first_wins",
        req(
            "44",
            "tools/call",
            &format!("{META},\"name\":\"set_led\",\"name\":\"nope\",\"arguments\":{{\"led\":\"green\",\"brightness\":21}}"),
        ),
        vec![led("44", "green", 21, 0)],
    ));
    c.push(Case::new(
        "number_1e400_as_id",
        ping("1e400"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new("negative_zero_id", ping("-0"), vec![pong("-0")]));
    c.push(Case::new(
        "thirty_digit_integer_id",
        ping("123456789012345678901234567890"),
        vec![pong("123456789012345678901234567890")],
    ));
    c.push(Case::new(
        "negative_thirty_digit_integer_id",
        ping("-123456789012345678901234567890"),
        vec![pong("-123456789012345678901234567890")],
    ));
    c.push(Case::new(
        "number_1e400_as_argument",
        call("45", "set_led", r#"{"led":"blue","brightness":1e400}"#),
        vec![bad_args(
            "45",
            "set_led",
            "/brightness: 1e400 is greater than the maximum 100",
        )],
    ));
    c.push(Case::new(
        "negative_zero_argument",
        call("46", "set_led", r#"{"led":"blue","brightness":-0}"#),
        vec![led("46", "blue", 0, 0)],
    ));
    c.push(Case::new(
        "thirty_digit_integer_argument",
        call(
            "47",
            "set_led",
            r#"{"led":"blue","brightness":123456789012345678901234567890}"#,
        ),
        vec![bad_args(
            "47",
            "set_led",
            // Long numbers are cut in messages, which have a fixed capacity.
            "/brightness: 1234567890123456\u{2026} is greater than the maximum 100",
        )],
    ));
    c.push(Case::new(
        "integral_float_argument",
        call("48", "set_led", r#"{"led":"blue","brightness":5e1}"#),
        vec![led("48", "blue", 50, 0)],
    ));
    c.push(Case::new(
        "fractional_argument",
        call("49", "set_led", r#"{"led":"blue","brightness":50.5}"#),
        vec![bad_args(
            "49",
            "set_led",
            "/brightness: 50.5 is not of type integer",
        )],
    ));
    c.push(Case::new(
        "tiny_exponent_argument",
        call("50", "set_led", r#"{"led":"blue","brightness":1e-400}"#),
        vec![bad_args(
            "50",
            "set_led",
            "/brightness: 1e-400 is not of type integer",
        )],
    ));
    for (name, text) in [
        ("leading_zero_number", "01"),
        ("plus_sign_number", "+1"),
        ("bare_fraction_number", ".5"),
        ("trailing_dot_number", "1."),
        ("nan_literal", "NaN"),
        ("infinity_literal", "Infinity"),
        ("hex_number", "0x10"),
    ] {
        c.push(Case::new(name, ping(text), vec![]));
    }
    for (name, line) in [
        (
            "raw_tab_in_string",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\tb\",\"method\":\"ping\"}\n",
        ),
        (
            "invalid_escape",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\\xb\",\"method\":\"ping\"}\n",
        ),
        (
            "short_unicode_escape",
            "{\"jsonrpc\":\"2.0\",\"id\":\"\\u12\",\"method\":\"ping\"}\n",
        ),
        (
            "truncated_literal",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":tru}\n",
        ),
        (
            "unterminated_object",
            "{\"jsonrpc\":\"2.0\",\"id\":51,\"method\":\"ping\"\n",
        ),
        ("unterminated_string", "{\"jsonrpc\":\"2.0\",\"id\":\"51\n"),
        (
            "single_quotes",
            "{'jsonrpc':'2.0','id':52,'method':'ping'}\n",
        ),
        (
            "trailing_comma",
            "{\"jsonrpc\":\"2.0\",\"id\":53,\"method\":\"ping\",}\n",
        ),
        (
            "comment",
            "// {\"jsonrpc\":\"2.0\",\"id\":54,\"method\":\"ping\"}\n",
        ),
        (
            "unquoted_key",
            "{jsonrpc:\"2.0\",\"id\":55,\"method\":\"ping\"}\n",
        ),
        (
            "missing_colon",
            "{\"jsonrpc\" \"2.0\",\"id\":56,\"method\":\"ping\"}\n",
        ),
        ("lone_closing_brace", "}\n"),
    ] {
        c.push(Case::new(name, line, vec![]));
    }

    // ---- JSON-RPC envelope ----------------------------------------------------------------
    c.push(Case::new(
        "batch_array",
        format!("[{}]\n", ping("60").trim_end()),
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "empty_array",
        "[]\n",
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "number_message",
        "42\n",
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "string_message",
        "\"ping\"\n",
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "null_message",
        "null\n",
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "empty_object",
        "{}\n",
        vec![invalid(None, NO_METHOD)],
    ));
    c.push(Case::new(
        "null_id",
        ping("null"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "float_id",
        ping("1.5"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "integral_float_id",
        ping("2.0"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "exponent_id",
        ping("1e3"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "object_id",
        ping(r#"{"a":1}"#),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "array_id",
        ping("[1]"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "boolean_id",
        ping("true"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "empty_string_id",
        ping("\"\""),
        vec![pong("\"\"")],
    ));
    {
        let id = format!("\"{}\"", "i".repeat(126));
        assert_eq!(id.len(), 128);
        c.push(Case::new("id_of_128_bytes", ping(&id), vec![pong(&id)]));
        let id = format!("\"{}\"", "i".repeat(127));
        c.push(Case::new(
            "id_of_129_bytes",
            ping(&id),
            vec![invalid(None, ID_TOO_LONG)],
        ));
        let id = format!("\"{}\"", "j".repeat(300));
        c.push(Case::new(
            "id_of_300_bytes",
            ping(&id),
            vec![invalid(None, ID_TOO_LONG)],
        ));
    }
    c.push(Case::new(
        "missing_jsonrpc",
        "{\"id\":61,\"method\":\"ping\"}\n",
        vec![invalid(Some("61"), BAD_VERSION)],
    ));
    c.push(Case::new(
        "jsonrpc_1_0",
        "{\"jsonrpc\":\"1.0\",\"id\":62,\"method\":\"ping\"}\n",
        vec![invalid(Some("62"), BAD_VERSION)],
    ));
    c.push(Case::new(
        "jsonrpc_as_number",
        "{\"jsonrpc\":2.0,\"id\":63,\"method\":\"ping\"}\n",
        vec![invalid(Some("63"), BAD_VERSION)],
    ));
    c.push(Case::new(
        "jsonrpc_null",
        "{\"jsonrpc\":null,\"id\":64,\"method\":\"ping\"}\n",
        vec![invalid(Some("64"), BAD_VERSION)],
    ));
    c.push(Case::new(
        "jsonrpc_with_trailing_space",
        "{\"jsonrpc\":\"2.0 \",\"id\":65,\"method\":\"ping\"}\n",
        vec![invalid(Some("65"), BAD_VERSION)],
    ));
    for (name, method, id) in [
        ("method_number", "42", "66"),
        ("method_null", "null", "67"),
        ("method_object", "{\"name\":\"ping\"}", "68"),
        ("method_array", "[\"ping\"]", "69"),
        ("method_boolean", "false", "70"),
    ] {
        c.push(Case::new(
            name,
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":{method}}}\n"),
            vec![invalid(Some(id), METHOD_NOT_STRING)],
        ));
    }
    c.push(Case::new(
        "method_missing",
        "{\"jsonrpc\":\"2.0\",\"id\":71}\n",
        vec![invalid(Some("71"), NO_METHOD)],
    ));
    for (name, params, id) in [
        ("params_array", "[1,2]", "72"),
        ("params_string", "\"x\"", "73"),
        ("params_null", "null", "74"),
        ("params_number", "0", "75"),
    ] {
        c.push(Case::new(
            name,
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{params}}}\n"),
            vec![invalid(Some(id), PARAMS_NOT_OBJECT)],
        ));
    }
    c.push(Case::new(
        "unknown_method",
        ping("76").replace("ping", "resources/list"),
        vec![error(Some("76"), -32601, "Method not found")],
    ));
    c.push(Case::new(
        "empty_method",
        ping("77").replace("ping", ""),
        vec![error(Some("77"), -32601, "Method not found")],
    ));
    c.push(Case::new(
        "method_with_escapes",
        ping("78").replace("ping", "p\\u0069ng"),
        vec![pong("78")],
    ));
    c.push(Case::new(
        "method_case_differs",
        ping("79").replace("ping", "PING"),
        vec![error(Some("79"), -32601, "Method not found")],
    ));
    c.push(Case::new(
        "unknown_notification",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}\n",
        vec![],
    ));
    c.push(Case::new(
        "notification_with_params_array",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":[1]}\n",
        vec![],
    ));
    c.push(Case::new(
        "notification_with_wrong_jsonrpc",
        "{\"jsonrpc\":\"1.0\",\"method\":\"notifications/initialized\"}\n",
        vec![],
    ));
    c.push(Case::new(
        "cancel_unknown_request",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":999}}\n",
        vec![],
    ));
    c.push(Case::new(
        "peer_result_response",
        "{\"jsonrpc\":\"2.0\",\"id\":80,\"result\":{}}\n",
        vec![],
    ));
    c.push(Case::new(
        "peer_error_response",
        "{\"jsonrpc\":\"2.0\",\"id\":81,\"error\":{\"code\":-1,\"message\":\"x\"}}\n",
        vec![],
    ));
    c.push(Case::new(
        "request_that_also_has_a_result",
        "{\"jsonrpc\":\"2.0\",\"id\":82,\"method\":\"ping\",\"result\":{}}\n",
        vec![pong("82")],
    ));

    // ---- MCP: tools/call and friends (2026-07-28, no handshake) ------------------------------
    c.push(Case::new(
        "call_without_meta_or_session",
        req("90", "tools/call", "\"name\":\"set_led\",\"arguments\":{}"),
        vec![error(Some("90"), -32602, MISSING_META)],
    ));
    c.push(Case::new(
        "call_without_name",
        req("91", "tools/call", META),
        vec![error(Some("91"), -32602, NAME_NOT_STRING)],
    ));
    c.push(Case::new(
        "call_with_numeric_name",
        req("92", "tools/call", &format!("{META},\"name\":42")),
        vec![error(Some("92"), -32602, NAME_NOT_STRING)],
    ));
    c.push(Case::new(
        "call_unknown_tool",
        call("93", "self_destruct", "{}"),
        vec![error(Some("93"), -32602, "Unknown tool: self_destruct")],
    ));
    {
        let name = "t".repeat(200);
        c.push(Case::new(
            "call_tool_name_of_200_characters",
            call("94", &name, "{}"),
            vec![error(Some("94"), -32602, "Unknown tool")],
        ));
    }
    c.push(Case::new(
        "call_tool_name_with_escapes",
        call("95", "set\\u005fled", r#"{"led":"red","brightness":11}"#),
        vec![led("95", "red", 11, 10)],
    ));
    c.push(Case::new(
        "call_tool_name_with_quote_is_not_echoed_raw",
        call("96", "a\\\"b", "{}"),
        vec![error(Some("96"), -32602, "Unknown tool")],
    ));
    for (name, args, id) in [
        ("arguments_array", "[1]", "97"),
        ("arguments_string", "\"x\"", "98"),
        ("arguments_null", "null", "99"),
        ("arguments_number", "7", "100"),
        ("arguments_boolean", "true", "101"),
    ] {
        c.push(Case::new(
            name,
            call(id, "set_led", args),
            vec![error(Some(id), -32602, ARGS_NOT_OBJECT)],
        ));
    }
    c.push(Case::new(
        "arguments_missing_required",
        call("102", "set_led", r#"{"led":"red"}"#),
        vec![bad_args(
            "102",
            "set_led",
            "(root): missing required property \"brightness\"",
        )],
    ));
    c.push(Case::new(
        "arguments_out_of_range",
        call("103", "set_led", r#"{"led":"red","brightness":101}"#),
        vec![bad_args(
            "103",
            "set_led",
            "/brightness: 101 is greater than the maximum 100",
        )],
    ));
    c.push(Case::new(
        "arguments_wrong_type",
        call("104", "set_led", r#"{"led":"red","brightness":"50"}"#),
        vec![bad_args(
            "104",
            "set_led",
            "/brightness: \"50\" is not of type integer",
        )],
    ));
    c.push(Case::new(
        "arguments_not_in_enum",
        call("105", "set_led", r#"{"led":"purple","brightness":5}"#),
        vec![bad_args(
            "105",
            "set_led",
            "/led: \"purple\" is not one of the enum values",
        )],
    ));
    c.push(Case::new(
        "arguments_extra_property",
        call(
            "106",
            "set_led",
            r#"{"led":"red","brightness":5,"power":9000}"#,
        ),
        vec![bad_args(
            "106",
            "set_led",
            "(root): property \"power\" not allowed (additionalProperties)",
        )],
    ));
    c.push(Case::new(
        "arguments_deeply_nested_value",
        call(
            "107",
            "set_led",
            &format!(
                "{{\"led\":\"red\",\"brightness\":5,\"x\":{}}}",
                nested(10, "")
            ),
        ),
        vec![bad_args(
            "107",
            "set_led",
            "(root): property \"x\" not allowed (additionalProperties)",
        )],
    ));
    c.push(Case::new(
        "arguments_for_a_tool_without_arguments",
        call("108", "device_info", r#"{"verbose":true}"#),
        vec![bad_args(
            "108",
            "device_info",
            "(root): property \"verbose\" not allowed (additionalProperties)",
        )],
    ));
    c.push(Case::new(
        "valid_call_after_all_that",
        call("109", "set_led", r#"{"led":"red","brightness":12}"#),
        vec![led("109", "red", 12, 11)],
    ));
    c.push(Case::new(
        "temperature_read",
        call("110", "read_temperature", r#"{"sensor":1}"#),
        vec![structured(
            "110",
            "{\"value\":{NUM},\"unit\":\"°C\",\"sensorId\":\"tmp-ambient\",\"sample\":1}",
        )],
    ));
    c.push(Case::new(
        "unsupported_protocol_version",
        req(
            "111",
            "tools/list",
            "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\",\"io.modelcontextprotocol/clientCapabilities\":{}}",
        ),
        vec![Reply("{\"jsonrpc\":\"2.0\",\"id\":111,\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol version\",\"data\":{\"supported\":[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\"],\"requested\":\"1999-01-01\"}}}".into())],
    ));
    c.push(Case::new(
        "unsupported_protocol_version_of_300_bytes",
        req(
            "112",
            "tools/list",
            &format!("\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"{}\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}", "v".repeat(300)),
        ),
        vec![Reply(format!("{{\"jsonrpc\":\"2.0\",\"id\":112,\"error\":{{\"code\":-32022,\"message\":\"Unsupported protocol version\",\"data\":{{\"supported\":[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\"],\"requested\":\"{}\"}}}}}}", "v".repeat(64)))],
    ));
    c.push(Case::new(
        "protocol_version_not_a_string",
        req(
            "113",
            "tools/list",
            "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":20260728,\"io.modelcontextprotocol/clientCapabilities\":{}}",
        ),
        vec![error(
            Some("113"),
            -32602,
            "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] must be a string",
        )],
    ));
    c.push(Case::new(
        "client_capabilities_missing",
        req(
            "114",
            "tools/list",
            "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}",
        ),
        vec![error(
            Some("114"),
            -32602,
            "Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] is required",
        )],
    ));
    c.push(Case::new(
        "meta_not_an_object",
        req("115", "tools/call", "\"_meta\":[1],\"name\":\"set_led\""),
        vec![error(Some("115"), -32602, MISSING_META)],
    ));
    c.push(Case::new(
        "ping_in_2026",
        req("116", "ping", META),
        vec![error(
            Some("116"),
            -32601,
            "Method not found: ping does not exist in 2026-07-28",
        )],
    ));
    c.push(Case::new(
        "discover_without_meta",
        req("117", "server/discover", ""),
        vec![error(Some("117"), -32602, MISSING_META)],
    ));
    c.push(Case::new(
        "list_with_random_cursor",
        req(
            "118",
            "tools/list",
            &format!("{META},\"cursor\":\"0123456789ab\""),
        ),
        vec![error(Some("118"), -32602, "Invalid cursor")],
    ));
    c.push(Case::new(
        "list_with_numeric_cursor",
        req("119", "tools/list", &format!("{META},\"cursor\":7")),
        vec![error(Some("119"), -32602, "Invalid cursor")],
    ));
    c.push(Case::new(
        "list_with_huge_cursor",
        req(
            "120",
            "tools/list",
            &format!("{META},\"cursor\":\"{}\"", "f".repeat(300)),
        ),
        vec![error(Some("120"), -32602, "Invalid cursor")],
    ));

    // ---- legacy handshake (the session is legacy from here on) ------------------------------
    c.push(Case::new(
        "initialize_with_numeric_version",
        req("121", "initialize", "\"protocolVersion\":2025,\"capabilities\":{},\"clientInfo\":{\"name\":\"h\",\"version\":\"1\"}"),
        vec![error(
            Some("121"),
            -32602,
            "Invalid params: \"protocolVersion\" must be a string",
        )],
    ));
    c.push(Case::new(
        "initialize_with_unknown_version",
        req("122", "initialize", "\"protocolVersion\":\"1.0\",\"capabilities\":{},\"clientInfo\":{\"name\":\"h\",\"version\":\"1\"}"),
        vec![Reply(
            "{\"jsonrpc\":\"2.0\",\"id\":122,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{\"listChanged\":false},\"logging\":{}},\"serverInfo\":{\"name\":\"qemu-sensors\",\"version\":\"0.1.0\",\"title\":\"QEMU sensor board\",\"description\":\"Simulated sensors and an RGB LED on an LM3S6965 (Cortex-M3) under QEMU\"},\"instructions\":\"Sensor values are simulated: deterministic sequences that change on every call.\"}}"
                .into(),
        )],
    ));
    c.push(Case::new(
        "legacy_call_with_array_output_is_wrapped",
        req(
            "123",
            "tools/call",
            "\"name\":\"read_acceleration\"",
        ),
        vec![Reply("{\"jsonrpc\":\"2.0\",\"id\":123,\"result\":{\"structuredContent\":{\"result\":[{NUM},{NUM},{NUM}]},\"content\":[{\"type\":\"text\",\"text\":\"{\\\"result\\\":[{NUM},{NUM},{NUM}]}\"}]}}".into())],
    ));
    c.push(Case::new(
        "legacy_call_bad_arguments",
        req(
            "124",
            "tools/call",
            "\"name\":\"set_led\",\"arguments\":{\"led\":\"red\",\"brightness\":-1}",
        ),
        vec![Reply("{\"jsonrpc\":\"2.0\",\"id\":124,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Invalid arguments for tool set_led: /brightness: -1 is less than the minimum 0\"}],\"isError\":true}}".into())],
    ));
    c.push(Case::new(
        "legacy_ping_after_garbage_handshake",
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":\"x\"}}\n{}",
            ping("125")
        ),
        vec![pong("125")],
    ));
    c
}
