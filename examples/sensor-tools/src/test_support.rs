//! Test helpers: a server's async serve loop over request lines in memory.

extern crate std;

use std::string::String;
use std::vec;

use embedded_mcp::server::{AsyncHandler, Server};

use crate::board::Board;
use embedded_mcp::transport::LineReader;

/// Polls a future whose I/O never waits (in-memory streams) and whose timers are ready.
pub fn block_on<F: core::future::Future>(f: F) -> F::Output {
    let mut f = core::pin::pin!(f);
    let mut cx = core::task::Context::from_waker(core::task::Waker::noop());
    loop {
        if let core::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// Serves `requests` (one per line) to the end and returns what the server wrote.
pub fn serve<H: AsyncHandler, const N: usize>(
    server: &mut Server<'_, H, N>,
    requests: &str,
) -> String {
    let mut reader: LineReader<&[u8], 512> = LineReader::new(requests.as_bytes());
    let mut written = vec![0u8; 1 << 16];
    let mut out = [0u8; 1200];
    let mut sink: &mut [u8] = &mut written;
    block_on(server.serve_async(&mut reader, &mut sink, &mut out)).expect("serve");
    let len = (1 << 16) - sink.len();
    String::from_utf8(written[..len].to_vec()).expect("UTF-8")
}

/// The `_meta` members of a 2026-07-28 request.
pub const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A 2026-07-28 `tools/call` line (LF included).
pub fn call(id: u32, tool: &str, arguments: &str) -> String {
    std::format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{META},"name":"{tool}","arguments":{arguments}}}}}"#
    ) + "\n"
}

/// A board whose clock stands at 1234 ms and whose timer is always due.
pub struct TestBoard;

impl Board for TestBoard {
    const FIRMWARE: &'static str = "test-firmware";
    const VERSION: &'static str = "9.9.9";
    const NAME: &'static str = "test-board";

    fn uptime_ms() -> u64 {
        1234
    }
    fn rx_free() -> usize {
        200
    }
    fn stack_peak() -> usize {
        3000
    }
    fn stack_size() -> usize {
        16384
    }
    fn sealing() -> embedded_mcp::server::approval::Sealing {
        embedded_mcp::server::approval::Sealing {
            key: embedded_mcp::server::approval::Key::provisioned([0x42; 32]),
            boot_salt: 1,
            clock: Self::uptime_ms,
        }
    }
    async fn sleep_ms(_ms: u64) {}
}
