// A real-board firmware (no QEMU board library, so no core feature `qemu-demo-key`) that
// copied a QEMU board library's key: the demo key is refused, and the message says what to do.
// (Named inside a function instead, it fails the same way when the firmware is built.)
use embedded_mcp::server::approval::{Approvals, Key, Sealing};

const KEY: Key = Key::DEMO;

fn uptime_ms() -> u64 {
    0
}

fn main() {
    let sealing = Sealing {
        key: KEY,
        boot_salt: 1,
        clock: uptime_ms,
    };
    let _ = Approvals::new(sealing);
}
