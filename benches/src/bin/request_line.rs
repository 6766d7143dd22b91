//! The request bench's embedded-mcp side (`benches/request.rs`) without criterion, for
//! instruction counts and profiles: `request_line N` sends the bench's `tools/call` line
//! through `LineBuffer::feed` and `Server::handle_frame` N times.
//!
//! `valgrind --tool=callgrind target/release/request_line 1000` shows where a request's
//! instructions go; (count with N = 1000 − count with N = 0) / 1000 is the cost of one.

use std::hint::black_box;

use embedded_mcp::transport::{FeedResult, LineBuffer};
use embedded_mcp_benches::sensor_tool::{engine, REQUEST};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let mut server = engine();
    let mut lines = LineBuffer::<1024>::new();
    let mut wire = REQUEST.as_bytes().to_vec();
    wire.push(b'\n');
    let mut out = [0u8; 1024];
    let mut total = 0usize;
    for _ in 0..n {
        let mut window = black_box(&wire[..]);
        while let FeedResult::Frame { frame, remaining } = lines.feed(window) {
            total += server.handle_frame(frame, &mut out).unwrap_or(0);
            window = remaining;
        }
    }
    assert!(n == 0 || total > 0);
    black_box(total);
}
