//! The bridge under device faults: silence, resets mid-session, a device that is not there yet,
//! a UART that drops the first bytes, overlong lines, a real pseudo-terminal as serial port.
//! Whatever happens, every request with an id gets exactly one response, in bounded time.
#![cfg(unix)]

mod bridge_support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::time::{Duration, Instant};

use bridge_support::fake_device::{Action, FakeDevice};
use bridge_support::*;
use embedded_mcp_std::bridge::Reconnect;
use embedded_mcp_std::device::Endpoint;
use serde_json::Value;
use serialport::SerialPort;

fn bridge_with_timeout(dev: &SocketDevice, timeout: Duration) -> Bridge {
    let mut c = config(Endpoint::Unix(dev.path.clone()));
    c.timeout = timeout;
    Bridge::start(c)
}

#[test]
fn silent_device_gets_a_timeout_error_and_a_cancellation() {
    let dev = SocketDevice::start();
    let mut b = bridge_with_timeout(&dev, Duration::from_millis(400));
    b.initialize("2025-11-25");
    let started = Instant::now();
    assert_eq!(
        b.request(&call("3", "hang")),
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32001,"message":"The device did not answer `tools/call` within 400 ms"}}"#
    );
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(400) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
    let received = dev.wait_received(0, 4);
    assert_eq!(
        received[3],
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3,"reason":"timeout"}}"#
    );
    // The session goes on.
    assert!(b.request(&call("4", "read_temp")).contains("21.50"));
    b.finish().unwrap();
}

#[test]
fn a_wholly_silent_device_times_out_every_request() {
    let dev = SocketDevice::listen(
        temp_path("silent"),
        Knobs {
            silent: true,
            ..Knobs::default()
        },
    );
    let mut b = bridge_with_timeout(&dev, Duration::from_millis(300));
    let init = b.request(&initialize_request("2025-11-25"));
    assert_eq!(
        init,
        r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32001,"message":"The device did not answer `initialize` within 300 ms"}}"#
    );
    b.finish().unwrap();
}

#[test]
fn reset_mid_session_fails_pending_reconnects_and_replays_the_handshake() {
    let dev = SocketDevice::start();
    let mut b = Bridge::start(config(Endpoint::Unix(dev.path.clone())));
    b.initialize("2025-11-25");
    assert!(b
        .request(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .contains("read_temp"));
    b.send(&call("11", "hang"));
    // initialize, initialized, the three pages of the one-page tools/list, the call.
    dev.wait_received(0, 6);
    dev.reset();
    let lost = json(&b.recv());
    assert_eq!(lost["id"], 11);
    assert_eq!(lost["error"]["code"], -32000);
    let message = lost["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("The device link closed before `tools/call` was answered (")
            && message.ends_with("); the bridge is reconnecting"),
        "{message}"
    );
    dev.wait_connections(2);
    // The new boot of the device gets the host's handshake again, under the bridge's own id.
    let replay = dev.wait_received(1, 2);
    assert_eq!(
        replay[0],
        r#"{"id":"embedded-mcp-bridge-1","jsonrpc":"2.0","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"bridge-test","version":"0"},"protocolVersion":"2025-11-25"}}"#
    );
    assert_eq!(replay[1], INITIALIZED);
    // Later requests work (the fake refuses any request before a handshake).
    let read = call("12", "read_temp");
    let answer = b.request(&read);
    assert!(answer.contains("21.50"), "{answer}");
    // As the lean hop sends it (BRIDGE.md, "The lean hop").
    assert_eq!(
        dev.conn(1).received[2],
        read.replace(
            r#""params":{"#,
            r#""params":{"_meta":{"embedded-mcp/lean":true},"#
        )
    );
    // The replayed handshake's answer did not reach the host.
    assert_eq!(b.try_recv(Duration::from_millis(200)), None);
    b.log.wait_for("handshake replayed");
    b.finish().unwrap();
}

#[test]
fn a_device_that_dies_on_a_request_fails_it_and_comes_back() {
    let dev = SocketDevice::start();
    let mut b = Bridge::start(config(Endpoint::Unix(dev.path.clone())));
    b.initialize("2025-06-18");
    let crashed = json(&b.request(&call("\"c\"", "crash")));
    assert_eq!(
        (crashed["id"].as_str(), crashed["error"]["code"].as_i64()),
        (Some("c"), Some(-32000))
    );
    assert!(b.request(&call("2", "read_temp")).contains("21.50"));
    assert_eq!(dev.connections(), 2);
    b.finish().unwrap();
}

#[test]
fn modern_sessions_reconnect_without_a_handshake() {
    let dev = SocketDevice::start();
    let mut b = Bridge::start(config(Endpoint::Unix(dev.path.clone())));
    assert!(b.request(&call_modern("1", "read_temp")).contains("21.50"));
    dev.reset();
    dev.wait_connections(2);
    b.log.wait_for("device link closed");
    let read = call_modern("2", "read_temp");
    assert!(b.request(&read).contains("21.50"));
    // No handshake: the first line of the new boot is the host's request (then the bridge lists
    // the tools again, since the device may have changed).
    let received = dev.conn(1).received;
    // As the lean hop sends it (BRIDGE.md, "The lean hop").
    assert_eq!(
        received[0],
        read.replace(
            r#""io.modelcontextprotocol/clientCapabilities":{}"#,
            r#""embedded-mcp/lean":true"#
        )
    );
    assert!(
        !received.iter().any(|l| l.contains("initialize")),
        "{received:?}"
    );
    b.finish().unwrap();
}

#[test]
fn an_absent_device_fails_requests_then_works_once_it_appears() {
    let path = temp_path("late");
    let mut c = config(Endpoint::Unix(path.clone()));
    c.reconnect = Reconnect {
        first_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(40),
        attempts: 3,
    };
    let mut b = Bridge::start(c);
    let refused = json(&b.request(&initialize_request("2025-11-25")));
    assert_eq!(refused["id"], 0);
    assert_eq!(refused["error"]["code"], -32000);
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("device unavailable: connecting to "),
        "{message}"
    );
    b.log.wait_for("device unavailable");
    // The device appears; the next message starts a new round of attempts.
    let dev = SocketDevice::listen(path, Knobs::default());
    let init = b.request(&initialize_request("2025-11-25"));
    assert!(init.contains(r#""protocolVersion":"2025-11-25""#), "{init}");
    b.send(INITIALIZED);
    assert!(b.request(&call("1", "read_temp")).contains("21.50"));
    drop(dev);
    b.finish().unwrap();
}

#[test]
fn every_request_gets_exactly_one_response_through_resets() {
    let dev = SocketDevice::start();
    let mut b = bridge_with_timeout(&dev, Duration::from_millis(700));
    b.initialize("2025-11-25");
    let tools = [
        "read_temp",
        "hang",
        "bad_temp",
        "tool_error",
        "garbage",
        "no_structured",
    ];
    let mut ids = Vec::new();
    for round in 0..3 {
        for (i, tool) in tools.iter().enumerate() {
            let id = round * 100 + i;
            b.send(&call(&id.to_string(), tool));
            ids.push(id as u64);
        }
        b.send("definitely not json");
        if round < 2 {
            std::thread::sleep(Duration::from_millis(50));
            dev.reset();
        }
    }
    let mut answers: HashMap<u64, usize> = HashMap::new();
    let end = Instant::now() + TIMEOUT;
    while answers.len() < ids.len() && Instant::now() < end {
        let Some(line) = b.try_recv(Duration::from_millis(200)) else {
            continue;
        };
        let v = json(&line);
        if let Some(id) = v["id"].as_u64() {
            *answers.entry(id).or_default() += 1;
        }
    }
    // Nothing more arrives.
    while let Some(line) = b.try_recv(Duration::from_millis(1000)) {
        if let Some(id) = json(&line)["id"].as_u64() {
            *answers.entry(id).or_default() += 1;
        }
    }
    for id in &ids {
        assert_eq!(
            answers.get(id),
            Some(&1),
            "id {id}; all answers {answers:?}; log:\n{}",
            b.log.text()
        );
    }
    assert_eq!(answers.len(), ids.len());
    b.finish().unwrap();
}

#[test]
fn first_bytes_lost_by_the_device_are_sent_again() {
    let dev = SocketDevice::listen(
        temp_path("drop"),
        Knobs {
            drop_first: 1,
            ..Knobs::default()
        },
    );
    let mut c = config(Endpoint::Unix(dev.path.clone()));
    c.startup_retry = Duration::from_millis(200);
    let mut b = Bridge::start(c);
    let init = b.request(&initialize_request("2025-11-25"));
    assert!(
        init.contains(r#""id":0"#) && init.contains("protocolVersion"),
        "{init}"
    );
    let received = dev.conn(0).received;
    assert_eq!(received[0], received[1]);
    b.send(INITIALIZED);
    assert!(b.request(&call("1", "read_temp")).contains("21.50"));
    assert_eq!(b.try_recv(Duration::from_millis(300)), None);
    b.log.wait_for("device silent so far: sending again");
    b.finish().unwrap();
}

#[test]
fn overlong_device_lines_are_skipped_and_the_link_goes_on() {
    let dev = SocketDevice::start();
    let mut c = config(Endpoint::Unix(dev.path.clone()));
    c.max_line = 512;
    c.timeout = Duration::from_millis(500);
    let mut b = Bridge::start(c);
    b.initialize("2025-11-25");
    // The request fits the bound, the answer (which carries the string twice) does not.
    let long = "x".repeat(300);
    let echo = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"s":"{long}"}}}}}}"#
    );
    b.send(&echo);
    assert_eq!(
        b.recv(),
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"The device did not answer `tools/call` within 500 ms"}}"#
    );
    b.log.wait_for("skipped a device line of");
    // An overlong host line cannot be read for its id: an error without id says it was dropped.
    assert_eq!(
        b.request(&format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"ping","params":{{"pad":"{}"}}}}"#,
            "y".repeat(600)
        )),
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a line of 660 bytes is longer than the bridge's limit of 512 bytes"}}"#
    );
    assert!(b.request(&call("2", "read_temp")).contains("21.50"));
    b.finish().unwrap();
}

#[test]
fn host_eof_answers_what_is_in_flight_then_stops() {
    let dev = SocketDevice::start();
    let mut b = bridge_with_timeout(&dev, Duration::from_millis(300));
    b.initialize("2025-11-25");
    b.send(&call("1", "hang"));
    b.send(&call("2", "read_temp"));
    dev.wait_received(0, 4);
    let out = std::sync::Arc::clone(&b.out);
    b.finish().unwrap();
    let out = out.lock().unwrap().clone();
    assert_eq!(out.len(), 3, "{out:?}");
    assert!(out[1].contains("21.50"));
    assert_eq!(
        out[2],
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"The device did not answer `tools/call` within 300 ms"}}"#
    );
}

#[test]
fn serial_port_on_a_pseudo_terminal() {
    let (master, slave) = serialport::TTYPort::pair().expect("a pty pair");
    let path = slave.name().expect("the pty has a name");
    let reader = master.try_clone_native().expect("clone");
    let mut writer = master;
    let device = std::thread::spawn(move || {
        let mut fake = FakeDevice::default();
        let mut lines = BufReader::new(reader);
        let mut line = String::new();
        let end = Instant::now() + TIMEOUT;
        while Instant::now() < end {
            line.clear();
            match lines.read_line(&mut line) {
                Ok(0) => return,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => continue,
                Err(_) => return,
            }
            for action in fake.handle(line.trim_end()) {
                if let Action::Send(text) = action {
                    let _ = writer.write_all(format!("{text}\n").as_bytes());
                }
            }
        }
    });
    let mut b = Bridge::start(config(Endpoint::Serial {
        path: path.into(),
        baud: 115_200,
    }));
    let init = b.initialize("2025-11-25");
    assert!(init.contains("fake-device"), "{init}");
    let answer: Value = json(&b.request(&call("1", "read_temp")));
    assert_eq!(answer["result"]["structuredContent"]["celsius"], 21.5);
    b.finish().unwrap();
    drop(slave);
    let _ = device.join();
}

#[test]
fn tcp_endpoint() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr").to_string();
    let device = std::thread::spawn(move || {
        let Ok((stream, _)) = listener.accept() else {
            return;
        };
        let mut out = stream.try_clone().expect("clone");
        let mut fake = FakeDevice::default();
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            for action in fake.handle(&line) {
                if let Action::Send(text) = action {
                    let _ = out.write_all(format!("{text}\n").as_bytes());
                }
            }
        }
    });
    let mut b = Bridge::start(config(Endpoint::Tcp(addr)));
    assert!(b.initialize("2025-11-25").contains("fake-device"));
    assert!(b.request(&call("1", "read_temp")).contains("21.50"));
    b.finish().unwrap();
    let _ = device.join();
}
