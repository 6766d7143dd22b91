//! `bridge-fake-device`: the scripted MCP device of `fake_device.rs` on stdin/stdout, for the
//! bridge and CLI tests that need a device process (`embedded-mcp ... --command`).
//!
//! Options: `--silent` (answer nothing), `--drop-first N` (ignore the first N lines), `--banner`
//! (print a non-JSON boot line first), `--hostile` (the attacks of `fake_device.rs`'s hostile
//! tools too). The `crash` tool makes the process exit.

#[path = "fake_device.rs"]
mod fake_device;

use std::io::{BufRead, Write};

fn main() {
    let mut device = fake_device::FakeDevice::default();
    let mut banner = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--silent" => device.silent = true,
            "--banner" => banner = true,
            "--hostile" => device.hostile = true,
            "--drop-first" => {
                device.drop_first = args.next().and_then(|n| n.parse().ok()).unwrap_or(1)
            }
            other => {
                eprintln!("bridge-fake-device: unknown option {other}");
                std::process::exit(2);
            }
        }
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if banner {
        let _ = writeln!(out, "fake device booting... (not JSON)");
        let _ = out.flush();
    }
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { return };
        for action in device.handle(&line) {
            match action {
                fake_device::Action::Send(text) => {
                    if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
                        return;
                    }
                }
                fake_device::Action::Close => std::process::exit(0),
            }
        }
    }
}
