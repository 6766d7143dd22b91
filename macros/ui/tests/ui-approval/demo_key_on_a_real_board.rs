// A real-board firmware (no QEMU board library, so no core feature `qemu-demo-key`) that
// copied a QEMU board's sealing: the demo key is refused, and the message says what to do.
use embedded_mcp::server::approval::{Approvals, Key, Sealing};

fn uptime_ms() -> u64 {
    0
}

fn main() {
    let sealing = Sealing {
        key: Key::DEMO,
        boot_salt: 1,
        clock: uptime_ms,
    };
    let _ = Approvals::new(sealing);
}
