//! The `embedded-mcp bridge` process: stdout carries only MCP messages, the device process it
//! starts (`--command`) is stopped when its stdin closes and when it gets SIGTERM or SIGINT, and
//! a device process that dies is started again with the handshake replayed.
//!
//! The bridge binary is `embedded-mcp-under-test` (the same `cli::main` as `embedded-mcp`, built
//! in this package so Cargo hands its path over); the device is `bridge-fake-device`.
#![cfg(unix)]

mod bridge_support;

use std::process::{Command, Stdio};

use bridge_support::*;

#[test]
fn stdin_eof_stops_the_bridge_and_its_device_process() {
    let mut b = BridgeProcess::with_device("--banner");
    let init = b.request(&initialize_request("2025-11-25"));
    assert!(
        init.contains(r#""serverInfo":{"name":"fake-device""#),
        "{init}"
    );
    b.send(INITIALIZED);
    let pid = b.device_pid(1);
    assert!(process_alive(pid));
    let bad = b.request(&call("2", "bad_temp"));
    assert!(
        bad.contains(r#""isError":true"#) && bad.contains("broke rule `maximum`"),
        "{bad}"
    );
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0), "stderr:\n{}", b.stderr());
    assert!(
        wait_gone(pid),
        "the device process {pid} outlived the bridge"
    );
    // Nothing but the three answers went to stdout; the banner was logged to stderr.
    assert!(b.lines.try_recv().is_err());
    assert!(
        b.stderr()
            .contains("skipped a garbled line from the device: fake device booting"),
        "{}",
        b.stderr()
    );
}

#[test]
fn sigterm_and_sigint_stop_the_bridge_and_its_device_process() {
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        let mut b = BridgeProcess::with_device("");
        b.request(&initialize_request("2025-11-25"));
        b.send(INITIALIZED);
        let pid = b.device_pid(1);
        b.signal(signal);
        assert_eq!(
            b.wait_exit().code(),
            Some(code),
            "SIG{signal}; stderr:\n{}",
            b.stderr()
        );
        assert!(
            wait_gone(pid),
            "SIG{signal}: the device process {pid} outlived the bridge"
        );
    }
}

#[test]
fn a_device_process_that_dies_is_restarted_with_the_handshake_replayed() {
    let mut b = BridgeProcess::with_device("");
    b.request(&initialize_request("2025-06-18"));
    b.send(INITIALIZED);
    let first = b.device_pid(1);
    let crashed = json(&b.request(&call("2", "crash")));
    assert_eq!(crashed["error"]["code"], -32000, "{crashed}");
    // The fake refuses requests before a handshake, so this answer proves the replay.
    let second = b.device_pid(3);
    assert_ne!(first, second);
    assert!(wait_gone(first));
    assert!(b.stderr().contains("handshake replayed"), "{}", b.stderr());
    b.stdin = None;
    assert_eq!(b.wait_exit().code(), Some(0));
    assert!(wait_gone(second));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        vec!["bridge"],
        vec!["bridge", "--unix", "a", "--tcp", "b:1"],
        vec!["bridge", "--unix", "a", "extra"],
        vec![
            "bridge",
            "--serial",
            "/dev/null",
            "--on-invalid",
            "sometimes",
        ],
    ] {
        let out = Command::new(BRIDGE)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?} wrote to stdout");
        // clap's usage error: what is wrong, then (but for a bad value) the command's usage.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
        assert!(
            stderr.ends_with("For more information, try '--help'.\n"),
            "{args:?}: {stderr}"
        );
    }
}
