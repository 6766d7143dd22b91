//! The tool-result codec never touches the heap: a counting global allocator sees zero
//! allocations while results are encoded and decoded.
//!
//! Counting is per thread (a const-initialised thread-local needs no allocation itself), so the
//! test harness's own threads cannot disturb the count.
#![allow(unsafe_code)] // `GlobalAlloc` is an unsafe trait; this file only forwards to `System`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use embedded_mcp::json::{self, CountingSink, EncodeError, SliceSink};
use embedded_mcp::result::{
    encode_error, encode_structured, encode_structured_raw, encode_structured_with, encode_text,
    write_error, write_structured, ContentBlock, Era, ResultView, ResultWriter,
};
use serde::{Deserialize, Serialize};

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the only
// addition is a thread-local counter increment, which neither allocates nor unwinds.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as our caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as our caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as our caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the number of heap allocations it made on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let r = f();
    let after = ALLOCATIONS.with(Cell::get);
    (r, after - before)
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Percent,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone, Copy)]
struct Reading<'a> {
    sensor: &'a str,
    channel: u8,
    value: f32,
    unit: Unit,
    timestamp_ms: u64,
    ok: bool,
}

const READINGS: [Reading<'static>; 3] = [
    Reading {
        sensor: "temp-0",
        channel: 0,
        value: 21.5,
        unit: Unit::Celsius,
        timestamp_ms: 1_700_000_000_123,
        ok: true,
    },
    Reading {
        sensor: "hum \"outdoor\"\n",
        channel: 1,
        value: 0.1,
        unit: Unit::Percent,
        timestamp_ms: 0,
        ok: false,
    },
    Reading {
        sensor: "é😀",
        channel: 255,
        value: -1e-7,
        unit: Unit::Celsius,
        timestamp_ms: u64::MAX,
        ok: true,
    },
];

#[test]
fn the_counter_sees_allocations() {
    let (b, n) = allocations(|| Box::new(7u64));
    assert_eq!(*b, 7);
    assert_eq!(n, 1, "the counting allocator is live");
}

#[test]
fn encoding_does_not_allocate() {
    let mut buf = [0u8; 2048];
    let mut small = [0u8; 16];
    let raw_text = br#" { "a" : [ 1 , "x\n" ] } "#;
    let ((), n) = allocations(|| {
        for era in [Era::Legacy, Era::Stateless] {
            let done = encode_structured(&mut buf, era, &READINGS[1]).unwrap();
            assert!(done.len > 0);
            encode_structured(&mut buf, era, &READINGS).unwrap(); // an array: wrapped for legacy
            encode_structured(&mut buf, era, "just a string").unwrap();
            let raw = json::Value::parse(raw_text).unwrap();
            encode_structured_raw(&mut buf, era, raw).unwrap();
            encode_error(&mut buf, era, "sensor \"t0\" timed out").unwrap();
            encode_text(&mut buf, era, "ok").unwrap();
            // The too-small path counts the size without storing: still no heap.
            assert!(matches!(
                encode_structured(&mut small, era, &READINGS),
                Err(EncodeError::BufferTooSmall { .. })
            ));
            let done = encode_structured_with(&mut buf, era, &READINGS[0], |w| {
                w.image_bytes(&[0x89, b'P', b'N', b'G'], "image/png")?;
                w.set_error(true);
                Ok(())
            })
            .unwrap();
            assert!(done.structured.is_some());
            assert!(matches!(
                encode_structured_with(&mut small, era, &READINGS[0], |w| w.text("x")),
                Err(EncodeError::BufferTooSmall { .. })
            ));
            let mut count = CountingSink::default();
            write_structured(&mut count, era, &READINGS[2]).unwrap();
            write_error(&mut count, era, "x").unwrap();
            let mut sink = SliceSink::new(&mut buf);
            let mut w = ResultWriter::with_structured(&mut sink, era, &READINGS[0]).unwrap();
            w.text("more").unwrap();
            w.text_fmt(format_args!("{} readings, last {:?}", 3, READINGS[2].value))
                .unwrap();
            w.image("iVBORw0KGgo=", "image/png").unwrap();
            w.audio_bytes(&[1, 2, 3, 4], "audio/wav").unwrap();
            w.resource_link("file:///log.csv", "log", Some("text/csv"), None)
                .unwrap();
            w.set_error(true);
            w.finish().unwrap();
            sink.finish().unwrap();
            assert_eq!(
                encode_structured(&mut buf, era, &f32::NAN),
                Err(EncodeError::NonFiniteFloat)
            );
        }
    });
    assert_eq!(n, 0, "encoding allocated {n} times");
}

#[test]
fn decoding_does_not_allocate() {
    let mut encoded = [0u8; 2048];
    let len = encode_structured(&mut encoded, Era::Legacy, &READINGS)
        .unwrap()
        .len;
    let mut one = [0u8; 512];
    let one_len = encode_structured(&mut one, Era::Stateless, &READINGS[1])
        .unwrap()
        .len;
    let mut scratch = [0u8; 256];
    let mut scratch2 = [0u8; 256];
    let (total, n) = allocations(|| {
        let mut total = 0usize;
        // Legacy: the array came wrapped as {"result": [...]}.
        let view = ResultView::parse(&encoded[..len]).unwrap();
        for block in view.content() {
            if let ContentBlock::Text(t) = block {
                total += t.char_count();
            }
        }
        let inner = view.unwrap_legacy().unwrap();
        let back: [Reading<'_>; 3] = json::from_value(inner, &mut scratch).unwrap();
        assert_eq!(back, READINGS);
        // Stateless: one reading, with escaped strings decoded into scratch.
        let view = ResultView::parse(&one[..one_len]).unwrap();
        let r: Reading<'_> = view.structured_as(&mut scratch2).unwrap();
        assert_eq!(r, READINGS[1]);
        assert!(view.result_type().unwrap().eq_str("complete"));
        // Errors do not allocate either.
        assert!(ResultView::parse(b"{\"content\":[]} x").is_err());
        assert!(ResultView::parse(b"{\"content\":[{\"type\":\"text\"}]}").is_err());
        assert!(ResultView::parse(&[b'['; 4096]).is_err());
        total
    });
    assert!(total > 0);
    assert_eq!(n, 0, "decoding allocated {n} times");
}
