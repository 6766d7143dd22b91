//! The `embedded-mcp bridge` process: stdout carries only MCP messages, the device process it
//! starts (`--command`) is stopped when its stdin closes and when it gets SIGTERM or SIGINT, a
//! device process that dies is started again with the handshake replayed, and a host's input and
//! output may be pipes, a unix socket or a file.
//!
//! The bridge binary is `embedded-mcp-under-test` (the same `cli::main` as `embedded-mcp`, built
//! in this package so Cargo hands its path over); the device is `bridge-fake-device`.
#![cfg(unix)]

mod bridge_support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::Duration;

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

/// The two requests every host below sends, and the answers it must read (in order).
fn session() -> (String, [&'static str; 2]) {
    let lines = format!(
        "{}\n{INITIALIZED}\n{}\n",
        initialize_request("2025-11-25"),
        call("1", "read_temp")
    );
    (lines, ["fake-device", "21.50"])
}

/// The fake device, as a child process of the bridge.
fn device_args() -> [String; 2] {
    ["--command".into(), DEVICE.into()]
}

/// A host whose input is a file (no pipe: read by a thread) and whose output is a pipe (tokio
/// I/O): both requests answered, then the bridge stops at the file's end.
#[test]
fn a_host_input_that_is_a_file_is_served_to_its_end() {
    let dir = std::env::temp_dir().join(format!("emcp-file-host-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("host-in.jsonl");
    let (lines, expected) = session();
    std::fs::write(&path, lines).expect("write the host's input");
    let output = Command::new(BRIDGE)
        .arg("bridge")
        .args(device_args())
        .stdin(std::fs::File::open(&path).expect("open"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .expect("run the bridge");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(output.status.success(), "{:?}", output.status);
    let out = String::from_utf8(output.stdout).expect("utf-8");
    let answers: Vec<&str> = out.lines().collect();
    assert_eq!(answers.len(), 2, "{out}");
    for (answer, wanted) in answers.iter().zip(expected) {
        assert!(answer.contains(wanted), "{answer}");
    }
}

/// A host on a unix socket (its one end as the bridge's stdin and stdout, tokio I/O): both
/// requests answered, then the bridge stops when the host shuts its writing side.
#[test]
fn a_host_on_a_unix_socket_is_served() {
    let (host, bridge_end) = UnixStream::pair().expect("socket pair");
    let mut child = Command::new(BRIDGE)
        .arg("bridge")
        .args(device_args())
        .stdin(Stdio::from(std::os::fd::OwnedFd::from(
            bridge_end.try_clone().expect("clone"),
        )))
        .stdout(Stdio::from(std::os::fd::OwnedFd::from(bridge_end)))
        .stderr(Stdio::null())
        .spawn()
        .expect("start the bridge");
    host.set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    let (lines, expected) = session();
    (&host).write_all(lines.as_bytes()).expect("write");
    let mut reader = BufReader::new(&host);
    for wanted in expected {
        let mut answer = String::new();
        reader.read_line(&mut answer).expect("an answer");
        assert!(answer.contains(wanted), "{answer}");
    }
    host.shutdown(std::net::Shutdown::Write).expect("shutdown");
    let status = child.wait().expect("the bridge stops");
    assert!(status.success(), "{status:?}");
}
