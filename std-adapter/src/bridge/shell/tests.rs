//! The shell on real loopback I/O (bounded in time): `serve` in a tokio runtime.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::time::Duration;

use tokio::sync::mpsc::channel;

use crate::bridge::sim::quiet;
use crate::bridge::BridgeConfig;
use crate::device::Endpoint;

/// A device on loopback TCP that answers each `ping` at once; its address.
fn ping_device() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let Ok((stream, _)) = listener.accept() else {
            return;
        };
        let mut out = stream.try_clone().unwrap();
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            let answer = line.replace(r#","method":"ping"}"#, r#","result":{}}"#);
            if writeln!(out, "{answer}").is_err() {
                return;
            }
        }
    });
    addr
}

/// The names of this process's threads that serve a device link (the blocking pump's
/// `device-reader-…` and `device-writer-…`, a serial port's).
fn link_threads() -> Vec<String> {
    let tasks = std::fs::read_dir("/proc/self/task").expect("/proc/self/task");
    let names: Vec<String> = tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("comm")).ok())
        .collect();
    assert!(!names.is_empty(), "no thread names read");
    names
        .into_iter()
        .filter(|n| n.starts_with("device-"))
        .collect()
}

#[test]
fn serve_answers_in_the_callers_runtime_and_ends_with_the_host_input() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let config = BridgeConfig::new(Endpoint::Tcp(ping_device()));
    let (to_bridge, host_in) = channel(4);
    let (host_out, mut from_bridge) = channel(4);
    let answers = runtime.block_on(async move {
        let bridge = tokio::spawn(crate::bridge::serve(config, host_in, host_out, quiet()));
        let mut answers = Vec::new();
        for line in [
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec(),
            vec![b'x'; 2 << 20],
        ] {
            to_bridge.send(line).await.unwrap();
            let answer = tokio::time::timeout(Duration::from_secs(10), from_bridge.recv()).await;
            answers.push(String::from_utf8(answer.unwrap().unwrap()).unwrap());
            // The link is open and has carried a line: tasks read and write it, not threads.
            assert_eq!(link_threads(), Vec::<String>::new());
        }
        drop(to_bridge);
        let end = tokio::time::timeout(Duration::from_secs(10), bridge).await;
        assert!(matches!(end, Ok(Ok(Ok(())))), "{end:?}");
        answers
    });
    assert_eq!(
        answers,
        [
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.to_string(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a line of 2097152 bytes is longer than the bridge's limit of 1048576 bytes"}}"#.to_string(),
        ]
    );
}
