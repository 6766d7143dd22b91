//! What seals this board's approvals (feature `approval`): the public QEMU demo key, a boot
//! salt that differs at every run, and [`clock::uptime_ms`](crate::clock::uptime_ms).
//!
//! The salt is 64 random bits the firmware reads at start from the host's `/dev/urandom`
//! through semihosting (QEMU runs every firmware of this board with semihosting on: it carries
//! the logs). Chosen over the semihosting clock, whose whole seconds two quick boots share,
//! and over a seed the bridge would hand QEMU, which every other way of starting QEMU (the test
//! harness, `cargo run`, a host's own command) would have to repeat. A host without
//! `/dev/urandom` gets its clock (seconds and ticks) instead.
//!
//! A real board takes the key from provisioning (`embedded_mcp::provisioned_key!()`, see
//! `embedded_mcp::server::approval`) and the salt from its RNG: `Key::DEMO` does not compile
//! outside a QEMU build.

use cortex_m_semihosting::{nr, syscall};
use embedded_mcp::server::approval::{Key, Sealing};

/// The public demo key (compiles only into QEMU builds: this library turns on the core's
/// `qemu-demo-key`).
pub const KEY: Key = Key::DEMO;

/// This boot's sealing: [`KEY`], [`boot_salt`] and the uptime clock. Call once at start.
pub fn sealing() -> Sealing {
    Sealing {
        key: KEY,
        boot_salt: boot_salt(),
        clock: crate::clock::uptime_ms,
    }
}

/// A salt that differs at every boot: 8 bytes of the host's `/dev/urandom`, or the host clock.
pub fn boot_salt() -> u64 {
    host_random().unwrap_or_else(host_clock)
}

/// 8 bytes of the host's `/dev/urandom`, read through semihosting.
fn host_random() -> Option<u64> {
    const PATH: &[u8] = b"/dev/urandom\0";
    let mut bytes = [0u8; 8];
    // SAFETY: SYS_OPEN reads the NUL-terminated name (length without the NUL), SYS_READ writes
    // at most `bytes.len()` bytes into `bytes`, SYS_CLOSE takes the handle; all three only
    // touch the memory passed.
    let unread = unsafe {
        let handle = syscall!(OPEN, PATH.as_ptr(), nr::open::R_BINARY, PATH.len() - 1);
        if handle == usize::MAX {
            return None;
        }
        let unread = syscall!(READ, handle, bytes.as_mut_ptr(), bytes.len());
        syscall!(CLOSE, handle);
        unread
    };
    (unread == 0).then(|| u64::from_le_bytes(bytes))
}

/// The host's clock: seconds since 1970 and the ticks since QEMU started.
fn host_clock() -> u64 {
    // SAFETY: SYS_TIME and SYS_CLOCK take no argument block.
    let (seconds, centiseconds) = unsafe { (syscall!(TIME), syscall!(CLOCK)) };
    (seconds as u64) << 32 ^ centiseconds as u64
}
