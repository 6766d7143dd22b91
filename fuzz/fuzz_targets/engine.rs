//! The whole server engine fed arbitrary bytes.
//!
//! Input: two bytes choosing the read sizes, then the stream a host would send. The stream is
//! served twice by identical servers: frame by frame (`LineBuffer::feed` + `handle_frame`, so
//! each response is tied to its line) and by the blocking `Server::serve` loop over a reader
//! that returns the chosen read sizes. Asserted:
//! - both runs write exactly the same bytes (chunking changes nothing);
//! - every response is one line ending with LF, valid JSON (`serde_json`), a JSON-RPC 2.0
//!   response with exactly one of `result`/`error`, written with one flush;
//! - every line that `serde_json` reads as a request with a string or integer id gets exactly
//!   one response, carrying that id byte for byte (ids longer than `MAX_ID_LEN` get an error
//!   without id); notifications, responses from the peer, invalid UTF-8 and non-JSON lines get
//!   none; JSON that is no request gets an error without id;
//! - a line nested too deep or too long gets at most one `-32600` error, with an id only when
//!   one was recovered;
//! - every `tools/call` result decodes with `ResultView::parse`, and when it has
//!   `structuredContent` its first block is a `text` block holding exactly that JSON.
#![no_main]

use std::cell::RefCell;

use embedded_mcp::result::{ContentBlock, ResultView};
use embedded_mcp::server::MAX_ID_LEN;
use embedded_mcp::transport::{FeedResult, Frame, LineBuffer, LineReader};
use embedded_mcp_fuzz::device::{self, FuzzServer, LINE, MAX_DEPTH};
use embedded_mcp_fuzz::{
    check_response_line, expect_for_json_line, first, json_depth, serde_json_accepts, split_input,
    top_level_members, Chunked, Collect, Expect,
};
use libfuzzer_sys::fuzz_target;
use serde_json::value::RawValue;

thread_local! {
    static SERVERS: RefCell<(FuzzServer, FuzzServer, Vec<u8>)> = RefCell::new({
        let a = device::server();
        let b = device::server();
        let out = vec![0u8; a.required_output_len()];
        (a, b, out)
    });
}

/// Checks a `tools/call` result: it decodes, and its text block mirrors `structuredContent`.
fn check_call_result(result: &RawValue) {
    let raw = result.get();
    let view = ResultView::parse(raw.as_bytes())
        .unwrap_or_else(|e| panic!("the engine's result does not decode: {e}: {raw}"));
    if let Some(structured) = view.structured() {
        let first = view
            .content()
            .next()
            .expect("a structured result has a text block");
        let ContentBlock::Text(text) = first else {
            panic!("first block is not text: {raw}");
        };
        let mut scratch = vec![0u8; text.raw().len()];
        let decoded = text.decode_into(&mut scratch).expect("text decodes");
        assert_eq!(
            decoded,
            structured.raw(),
            "text block mirrors structuredContent"
        );
    }
}

/// Checks the response to one frame.
fn check_frame(line: Option<&str>, overlong_id: Option<Option<String>>, response: Option<&[u8]>) {
    let members = response.map(check_response_line);
    let response_id = members
        .as_ref()
        .and_then(|m| first(m, "id").map(|v| v.get().to_owned()));
    let error_code = members.as_ref().and_then(|m| {
        first(m, "error").map(|e| {
            let error = top_level_members(e.get()).expect("an error object");
            first(&error, "code").expect("a code").get().to_owned()
        })
    });
    if let Some(recovered) = overlong_id {
        // Too long to keep: an error only when the id was recovered, with that id.
        match recovered {
            Some(id) => {
                assert_eq!(response_id.as_deref(), Some(id.as_str()));
                assert_eq!(error_code.as_deref(), Some("-32600"));
            }
            None => assert!(response.is_none(), "overlong line without id answered"),
        }
        return;
    }
    let Some(line) = line else {
        assert!(response.is_none(), "an invalid UTF-8 line was answered");
        return;
    };
    let json = serde_json_accepts(line.as_bytes());
    let depth = json_depth(line.as_bytes());
    if json && depth <= usize::from(MAX_DEPTH) {
        match expect_for_json_line(line, MAX_ID_LEN) {
            Expect::AnswerWithId(id) => {
                assert_eq!(response_id.as_deref(), Some(id.as_str()), "line: {line}");
            }
            Expect::AnswerWithoutId => {
                assert!(response.is_some(), "no answer to {line}");
                assert_eq!(response_id, None, "line: {line}");
                assert_eq!(error_code.as_deref(), Some("-32600"), "line: {line}");
            }
            Expect::Silence => assert!(response.is_none(), "answered: {line}"),
        }
        // A tools/call answered with a result: the result must decode.
        let members = top_level_members(line).unwrap_or_default();
        let is_call = first(&members, "method").is_some_and(|m| m.get() == "\"tools/call\"");
        if let (true, Some(m)) = (is_call, members_of(response)) {
            if let Some(result) = first(&m, "result") {
                check_call_result(result);
            }
        }
    } else if response.is_some() {
        // Only a line nested too deep may be answered (when its id is recovered).
        assert!(
            depth > usize::from(MAX_DEPTH),
            "a line that is not JSON was answered: {line}"
        );
        assert_eq!(error_code.as_deref(), Some("-32600"), "line: {line}");
    }
}

fn members_of(response: Option<&[u8]>) -> Option<Vec<(String, Box<RawValue>)>> {
    let text = std::str::from_utf8(response?).ok()?;
    top_level_members(text.trim_end())
}

fuzz_target!(|data: &[u8]| {
    let (sizes, stream) = split_input(data);
    SERVERS.with(|servers| {
        let (a, b, out) = &mut *servers.borrow_mut();
        a.reset_session();
        b.reset_session();

        // Frame by frame.
        let mut acc = LineBuffer::<LINE>::new();
        let mut framed = Vec::new();
        let mut window = stream;
        while let FeedResult::Frame { frame, remaining } = acc.feed(window) {
            window = remaining;
            let response = a.handle_frame(frame, out).map(|n| out[..n].to_vec());
            match frame {
                Frame::Line(line) => check_frame(Some(line), None, response.as_deref()),
                Frame::InvalidUtf8(_) => check_frame(None, None, response.as_deref()),
                Frame::Overlong(o) => {
                    let id = o.id.map(|id| id.as_str().to_owned());
                    check_frame(None, Some(id), response.as_deref())
                }
            }
            if let Some(r) = response {
                framed.push(r);
            }
        }

        // The serve loop, in the chosen read sizes.
        let mut reader = LineReader::<_, LINE>::new(Chunked::new(stream, sizes));
        let mut writer = Collect::default();
        b.serve(&mut reader, &mut writer, out)
            .unwrap_or_else(|e| match e {
                embedded_mcp::server::ServeError::Read(e) => match e {},
                embedded_mcp::server::ServeError::Write(e) => match e {},
                other => panic!("the in-memory writer takes every byte: {other:?}"),
            });
        assert_eq!(
            writer.bytes,
            framed.concat(),
            "serve loop vs frame by frame"
        );
        assert_eq!(writer.flushes, framed.len(), "one flush per response");
    });
});
