//! The `CallToolResult` decoder (`ResultView`) and the result encoders.
//!
//! Input: any bytes. Asserted:
//! - a result the view accepts is JSON to `serde_json` too, an object with a `content` array;
//! - every accessor works on an accepted result (blocks, text decoding, `structured_as`);
//! - encode/decode round trip: `structuredContent` re-encoded with `encode_structured_raw` (both
//!   eras) and with `write_structured_raw` (a sink) gives the same bytes, decodes again, keeps
//!   the value (compact, or wrapped as `{"result":…}` for legacy peers when not an object) and
//!   its text block decodes to exactly that JSON; re-encoding the decoded result is a fixpoint;
//! - error and text results encode and decode back to their message.
#![no_main]

use embedded_mcp::json::{CountingSink, EncodeError, SliceSink, Value};
use embedded_mcp::result::{
    encode_error, encode_structured_raw, encode_text, write_structured_raw, ContentBlock, Era,
    ResultView,
};
use embedded_mcp_fuzz::{canonical, first, serde_json_accepts, top_level_members};
use libfuzzer_sys::fuzz_target;

fn compact(raw: &str) -> String {
    canonical(raw.as_bytes()).expect("JSON")
}

fn first_text(view: &ResultView<'_>) -> Option<String> {
    match view.content().next()? {
        ContentBlock::Text(t) => {
            let mut scratch = vec![0u8; t.raw().len()];
            Some(t.decode_into(&mut scratch).expect("decodes").to_owned())
        }
        _ => None,
    }
}

fn encode(era: Era, structured: Value<'_>) -> Vec<u8> {
    let mut counter = CountingSink::default();
    write_structured_raw(&mut counter, era, structured).expect("counting never fails");
    let mut buf = vec![0u8; counter.count];
    let done = encode_structured_raw(&mut buf, era, structured).expect("exact size suffices");
    assert_eq!(done.len, counter.count, "counted size is the written size");
    // One byte less: the exact size needed is reported.
    if counter.count > 0 {
        let mut small = vec![0u8; counter.count - 1];
        assert_eq!(
            encode_structured_raw(&mut small, era, structured),
            Err(EncodeError::BufferTooSmall {
                needed: counter.count })
        );
    }
    // The sink writer gives the same bytes.
    let mut again = vec![0u8; counter.count];
    let mut sink = SliceSink::new(&mut again);
    write_structured_raw(&mut sink, era, structured).expect("fits");
    assert_eq!(sink.finish(), Ok(counter.count));
    assert_eq!(again, buf, "slice and sink encoders agree");
    buf.truncate(done.len);
    buf
}

fn round_trip(era: Era, structured: Value<'_>) {
    let bytes = encode(era, structured);
    let view = ResultView::parse(&bytes).unwrap_or_else(|e| {
        panic!(
            "re-encoded result does not decode: {e}: {}",
            String::from_utf8_lossy(&bytes)
        )
    });
    let decoded = view.structured().expect("structuredContent present");
    let original = compact(structured.raw());
    let wrapped = era == Era::Legacy && !structured.raw().starts_with('{');
    let expected = if wrapped {
        format!("{{\"result\":{original}}}")
    } else {
        original
    };
    assert_eq!(
        compact(decoded.raw()),
        expected,
        "value survives the round trip"
    );
    assert_eq!(
        first_text(&view).as_deref(),
        Some(decoded.raw()),
        "text mirrors JSON"
    );
    assert_eq!(view.result_type().is_some(), era == Era::Stateless);
    assert!(!view.is_error());
    // Fixpoint: the decoded value (wrapper included) encodes to the same bytes in 2026.
    if era == Era::Stateless {
        assert_eq!(encode(era, decoded), bytes, "re-encoding is a fixpoint");
    }
}

fuzz_target!(|data: &[u8]| {
    if let Ok(view) = ResultView::parse(data) {
        assert!(
            serde_json_accepts(data),
            "accepted a result that is not JSON"
        );
        let text = std::str::from_utf8(data).expect("UTF-8");
        let members = top_level_members(text).expect("an object");
        assert!(
            first(&members, "content").is_some_and(|c| c.get().starts_with('[')),
            "content array"
        );
        for block in view.content() {
            if let ContentBlock::Text(t) = block {
                let mut scratch = vec![0u8; t.raw().len()];
                let decoded = t.decode_into(&mut scratch).expect("text decodes");
                assert_eq!(decoded.chars().count(), t.char_count());
            }
        }
        assert_eq!(view.content_values().count(), view.content().count());
        let _ = view.is_error();
        let _ = view.meta();
        let _ = view.unwrap_legacy();
        if let Some(structured) = view.structured() {
            let mut scratch = vec![0u8; structured.raw().len()];
            let _ = view.structured_as::<serde::de::IgnoredAny>(&mut scratch);
            round_trip(Era::Legacy, structured);
            round_trip(Era::Stateless, structured);
        }
    }
    // Text and error results of arbitrary messages.
    if let Ok(message) = std::str::from_utf8(data) {
        let mut buf = vec![0u8; data.len() * 6 + 128];
        for era in [Era::Legacy, Era::Stateless] {
            let done = encode_error(&mut buf, era, message).expect("fits");
            let view = ResultView::parse(&buf[..done.len]).expect("error result decodes");
            assert!(view.is_error());
            assert_eq!(first_text(&view).as_deref(), Some(message));
            let done = encode_text(&mut buf, era, message).expect("fits");
            let view = ResultView::parse(&buf[..done.len]).expect("text result decodes");
            assert!(!view.is_error());
            assert_eq!(first_text(&view).as_deref(), Some(message));
        }
    }
});
