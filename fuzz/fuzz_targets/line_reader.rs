//! The line framing fed an arbitrary byte stream in arbitrary read sizes.
//!
//! Input: two bytes choosing the read sizes, then the stream. Asserted:
//! - `LineBuffer::feed` (in chunks), `LineReader::next_frame` (blocking) and
//!   `LineReader::next_frame_async` produce exactly the frames of an independent model of the
//!   documented rules (LF ends a line, CR/BOM/blank handling, overlong lines and their length),
//!   for three buffer sizes;
//! - the id recovered from an overlong line is the same whatever the chunking, is what an
//!   `IdTracker` fed the whole line at once finds, and is a JSON string or integer.
#![no_main]

use embedded_mcp::transport::{FeedResult, Frame, IdTracker, LineBuffer, LineReader};
use embedded_mcp_fuzz::{block_on, model_frames, raw_lines, split_input, Chunked, ModelFrame};
use libfuzzer_sys::fuzz_target;

/// A frame with the overlong line's recovered id.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Got {
    frame: ModelFrame,
    id: Option<String>,
}

fn got(frame: Frame<'_>) -> Got {
    match frame {
        Frame::Line(l) => Got {
            frame: ModelFrame::Line(l.to_owned()),
            id: None,
        },
        Frame::InvalidUtf8(b) => Got {
            frame: ModelFrame::InvalidUtf8(b.to_vec()),
            id: None,
        },
        Frame::Overlong(o) => Got {
            frame: ModelFrame::Overlong(o.len),
            id: o.id.map(|id| id.as_str().to_owned()),
        },
    }
}

fn check<const N: usize>(data: &[u8]) {
    let (sizes, stream) = split_input(data);
    let model = model_frames(stream, N);

    // The accumulator, fed in the same chunks a reader would get.
    let mut acc = LineBuffer::<N>::new();
    let mut fed = Vec::new();
    let mut chunk_sizes = sizes.clone();
    let mut rest = stream;
    while !rest.is_empty() {
        let n = chunk_sizes.next_size().min(rest.len());
        let (chunk, tail) = rest.split_at(n);
        rest = tail;
        let mut window = chunk;
        while let FeedResult::Frame { frame, remaining } = acc.feed(window) {
            assert!(remaining.len() < window.len(), "feed makes progress");
            fed.push(got(frame));
            window = remaining;
        }
    }

    // The blocking reader.
    let mut reader = LineReader::<_, N>::new(Chunked::new(stream, sizes.clone()));
    let mut read = Vec::new();
    while let Some(frame) = reader.next_frame().unwrap_or_else(|e| match e {}) {
        read.push(got(frame));
    }

    // The async reader.
    let mut reader = LineReader::<_, N>::new(Chunked::new(stream, sizes));
    let read_async = block_on(async {
        let mut out = Vec::new();
        while let Some(frame) = reader
            .next_frame_async()
            .await
            .unwrap_or_else(|e| match e {})
        {
            out.push(got(frame));
        }
        out
    });

    let frames: Vec<ModelFrame> = fed.iter().map(|g| g.frame.clone()).collect();
    assert_eq!(frames, model, "feed vs model (N = {N})");
    assert_eq!(fed, read, "feed vs blocking reader (N = {N})");
    assert_eq!(fed, read_async, "feed vs async reader (N = {N})");

    // Overlong ids: what a tracker fed the whole line at once finds, and a string or integer.
    let mut lines = raw_lines(stream);
    for g in &fed {
        let raw = loop {
            let line = lines.pop_front().expect("a raw line per frame");
            // Blank lines give no frame.
            let mut l = line.strip_suffix(b"\r").unwrap_or(line);
            l = l.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l);
            if line.len() + 1 > N || !l.iter().all(|&b| b == b' ' || b == b'\t') {
                break line;
            }
        };
        if let ModelFrame::Overlong(len) = g.frame {
            assert_eq!(len, raw.len());
            let mut tracker = IdTracker::new();
            tracker.feed(raw);
            let whole = tracker.id().map(|id| id.as_str().to_owned());
            assert_eq!(g.id, whole, "id recovery depends on chunking");
            if let Some(id) = &g.id {
                assert!(embedded_mcp_fuzz::is_id_text(id), "{id}");
                assert!(
                    embedded_mcp_fuzz::serde_json_accepts(id.as_bytes()),
                    "recovered id is JSON: {id}"
                );
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    check::<8>(data);
    check::<64>(data);
    check::<512>(data);
});
