//! What seals a Pico's approvals (feature `approval`): the key from provisioning, a boot salt
//! from the ring oscillator and the embassy-time clock.
//!
//! The key is read while this crate compiles from `EMBEDDED_MCP_APPROVAL_KEY`, 64 hex digits
//! (`embedded_mcp::provisioned_key!()`): build with
//!
//! ```sh
//! EMBEDDED_MCP_APPROVAL_KEY=$(cat ~/keys/my-probe.hex) cargo build --release
//! ```
//!
//! A build without it fails and says what to set. Keep the key out of the repository and out
//! of logs: anyone who has it can approve anything on the boards that share it (a key per board
//! avoids that). The public QEMU demo key does not compile here.

use embassy_rp::clocks::RoscRng;
use embedded_mcp::server::approval::{Key, Sealing};

/// The key this firmware was built with.
pub const KEY: Key = embedded_mcp::provisioned_key!();

/// This boot's sealing: [`KEY`], [`boot_salt`] and milliseconds of embassy-time since boot.
/// Call once, after `embassy_rp::init`.
pub fn sealing() -> Sealing {
    Sealing {
        key: KEY,
        boot_salt: boot_salt(),
        clock: uptime_ms,
    }
}

/// 64 bits of the ring oscillator's random bit (ROSC `RANDOMBIT`): differs at every boot.
pub fn boot_salt() -> u64 {
    RoscRng.next_u64()
}

/// Milliseconds since boot.
fn uptime_ms() -> u64 {
    embassy_time::Instant::now().as_millis()
}
