//! The cost of a hop: a 2026-07-28 `tools/call` through a hub whose device is a remote gateway
//! (`--device dev=http://GATEWAY/mcp`, the gateway being `bridge --http` in front of the
//! device), next to the same hub with the device linked directly (`--device dev=tcp:…`). All on
//! loopback, all in this process: each bridge is the HTTP front of this checkout
//! (`serve_on`, two tokio workers each), each device a fake that answers at once.
//!
//! `cargo bench -p embedded-mcp-benches --bench gateway_hop`
//!
//! Latency: one client, one keep-alive connection to each hub, calls one after the other;
//! rounds alternate between the two hubs (a shared machine only slows a side down, alternating
//! gives both the same chances); each side's best round and median round are printed, with the
//! ratio and the difference (what the gateway adds).
//!
//! Bytes: a second remote hub links the gateway through a counting TCP relay, and the devices
//! count their own lines, so each hop's bytes per call (both directions, after warm-up, over
//! `BYTE_CALLS` calls) are measured, not computed: client to hub (HTTP), hub to gateway (HTTP),
//! gateway or hub to device (lines).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use embedded_mcp_benches::measure::load_average;
use embedded_mcp_std::bridge::http::{serve_on, HttpConfig};
use embedded_mcp_std::bridge::{BridgeConfig, HubDevice};
use embedded_mcp_std::device::{Endpoint, Logger, RemoteConfig};

/// Calls per measured round.
const BATCH: usize = 200;
/// Rounds per side.
const ROUNDS: usize = 12;
/// Calls whose bytes are counted.
const BYTE_CALLS: u64 = 100;

/// A device on a loopback port answering each request at once (one link at a time), counting
/// the bytes of its lines both ways.
fn fake_device(bytes: Arc<AtomicU64>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let _ = stream.set_nodelay(true);
            let mut out = stream.try_clone().unwrap();
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                bytes.fetch_add(line.len() as u64 + 1, Ordering::Relaxed);
                let Ok(msg) = serde_json::from_str::<serde_json::Value>(&line) else {
                    continue;
                };
                let Some(id) = msg.get("id") else { continue };
                let result = match msg["method"].as_str() {
                    Some("initialize") => serde_json::json!({
                        "protocolVersion": msg["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "bench", "version": "1"}}),
                    Some("tools/list") => serde_json::json!({"tools": [
                        {"name": "echo", "inputSchema": {"type": "object"}}]}),
                    Some("tools/call") => serde_json::json!({
                        "content": [{"type": "text", "text": "ok"}], "resultType": "complete"}),
                    _ => serde_json::json!({}),
                };
                let answer = format!(
                    "{}\n",
                    serde_json::json!({"jsonrpc": "2.0", "id": id, "result": result})
                );
                bytes.fetch_add(answer.len() as u64, Ordering::Relaxed);
                if out.write_all(answer.as_bytes()).is_err() {
                    break;
                }
            }
        }
    });
    port
}

/// A bridge's HTTP front in this process, serving `bridge`.
fn front(bridge: BridgeConfig) -> SocketAddr {
    front_on(
        TcpListener::bind("127.0.0.1:0").unwrap(),
        bridge,
        Vec::new(),
    )
}

/// A bridge's HTTP front on `listener`, letting in the `Host` values `allowed_hosts` too.
fn front_on(listener: TcpListener, bridge: BridgeConfig, allowed_hosts: Vec<String>) -> SocketAddr {
    let addr = listener.local_addr().unwrap();
    let mut http = HttpConfig::new(addr);
    http.allowed_hosts = allowed_hosts;
    let log = Logger::to_writer(0, "bench", Box::new(std::io::sink()));
    std::thread::spawn(move || serve_on(listener, bridge, http, log));
    addr
}

fn hub_of(endpoint: Endpoint) -> BridgeConfig {
    BridgeConfig::hub(vec![HubDevice {
        name: "dev".into(),
        endpoint,
    }])
}

fn remote(addr: SocketAddr) -> Endpoint {
    Endpoint::Remote(RemoteConfig::parse(&format!("http://{addr}/mcp")).unwrap())
}

/// A TCP relay to `target` counting the bytes it carries both ways.
fn counting_relay(target: SocketAddr, bytes: Arc<AtomicU64>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(target) else {
                continue;
            };
            for (from, to) in [
                (client.try_clone().unwrap(), server.try_clone().unwrap()),
                (server, client),
            ] {
                let bytes = bytes.clone();
                let _ = from.set_nodelay(true);
                std::thread::spawn(move || {
                    let (mut from, mut to) = (from, to);
                    let mut buf = [0u8; 16 * 1024];
                    while let Ok(n) = from.read(&mut buf) {
                        if n == 0 || to.write_all(&buf[..n]).is_err() {
                            break;
                        }
                        bytes.fetch_add(n as u64, Ordering::Relaxed);
                    }
                    let _ = to.shutdown(std::net::Shutdown::Write);
                });
            }
        }
    });
    addr
}

/// A keep-alive client of one hub, counting its own bytes.
struct Client {
    input: BufReader<TcpStream>,
    output: TcpStream,
    host: String,
    bytes: u64,
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"dev.echo","arguments":{"n":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

impl Client {
    fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        Self {
            input: BufReader::new(stream.try_clone().unwrap()),
            output: stream,
            host: addr.to_string(),
            bytes: 0,
        }
    }

    /// One call; its answer's body.
    fn call(&mut self) -> String {
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: dev.echo\r\nContent-Length: {}\r\n\r\n{CALL}",
            self.host,
            CALL.len()
        );
        self.output.write_all(request.as_bytes()).unwrap();
        self.bytes += request.len() as u64;
        let mut line = String::new();
        let mut length = 0;
        loop {
            line.clear();
            self.bytes += self.input.read_line(&mut line).unwrap() as u64;
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap();
                }
            }
        }
        assert!(length > 0, "a JSON answer with Content-Length");
        let mut body = vec![0; length];
        self.input.read_exact(&mut body).unwrap();
        self.bytes += length as u64;
        String::from_utf8(body).unwrap()
    }

    /// Calls until the hub answers with a result (its device may still be connecting).
    fn ready(&mut self) {
        let since = Instant::now();
        loop {
            let answer = self.call();
            if answer.contains("\"result\"") {
                return;
            }
            assert!(
                since.elapsed() < Duration::from_secs(20),
                "the hub never answered: {answer}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let counters: Vec<Arc<AtomicU64>> = (0..5).map(|_| Arc::default()).collect();
    let [direct_device, gateway_device, counted_device, hop, _] =
        [0, 1, 2, 3, 4].map(|n| counters[n].clone());
    // The direct hub: its device on loopback TCP.
    let direct = front(hub_of(Endpoint::Tcp(format!(
        "127.0.0.1:{}",
        fake_device(direct_device.clone())
    ))));
    // The gateway (one device) and the hub that links it.
    let gateway = front(BridgeConfig::new(Endpoint::Tcp(format!(
        "127.0.0.1:{}",
        fake_device(gateway_device)
    ))));
    let remote_hub = front(hub_of(remote(gateway)));
    // For the bytes: another gateway and hub, the link counted by a relay (whose address the
    // gateway lets in as `Host`, as a replica behind a proxy does with --allowed-host).
    let gateway_listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let relay = counting_relay(gateway_listener.local_addr().unwrap(), hop.clone());
    let counted_device_port = fake_device(counted_device.clone());
    front_on(
        gateway_listener,
        BridgeConfig::new(Endpoint::Tcp(format!("127.0.0.1:{counted_device_port}"))),
        vec![relay.to_string()],
    );
    let counted_hub = front(hub_of(remote(relay)));

    let mut sides = [Client::connect(direct), Client::connect(remote_hub)];
    for side in &mut sides {
        side.ready();
    }
    let answer = sides[1].call();
    assert!(answer.contains(r#""text":"ok""#), "{answer}");
    println!("load average before: {}", load_average());
    let mut rounds: [Vec<Duration>; 2] = [Vec::new(), Vec::new()];
    for _ in 0..ROUNDS {
        for (n, side) in sides.iter_mut().enumerate() {
            let start = Instant::now();
            for _ in 0..BATCH {
                side.call();
            }
            rounds[n].push(start.elapsed() / BATCH as u32);
        }
    }
    println!("load average after: {}", load_average());
    let stats = |r: &mut Vec<Duration>| {
        r.sort();
        (r[0], r[r.len() / 2])
    };
    let (direct_best, direct_median) = stats(&mut rounds[0]);
    let (remote_best, remote_median) = stats(&mut rounds[1]);
    println!(
        "tools/call latency, {ROUNDS} alternating rounds of {BATCH} calls (per call, best / median):"
    );
    println!(
        "  direct link (hub -> device)               {:8.1} µs / {:8.1} µs",
        micros(direct_best),
        micros(direct_median)
    );
    println!(
        "  remote gateway (hub -> gateway -> device) {:8.1} µs / {:8.1} µs",
        micros(remote_best),
        micros(remote_median)
    );
    println!(
        "  the gateway adds                          {:8.1} µs / {:8.1} µs  (ratio {:.2}x / {:.2}x)",
        micros(remote_best) - micros(direct_best),
        micros(remote_median) - micros(direct_median),
        remote_best.as_secs_f64() / direct_best.as_secs_f64(),
        remote_median.as_secs_f64() / direct_median.as_secs_f64()
    );

    // Bytes per call on each hop, measured after warm-up.
    let mut client = Client::connect(counted_hub);
    client.ready();
    let mut direct_client = Client::connect(direct);
    direct_client.call();
    let before = (
        client.bytes,
        hop.load(Ordering::Relaxed),
        counted_device.load(Ordering::Relaxed),
    );
    let direct_before = (direct_client.bytes, direct_device.load(Ordering::Relaxed));
    for _ in 0..BYTE_CALLS {
        client.call();
        direct_client.call();
    }
    let per = |now: u64, then: u64| (now - then) as f64 / BYTE_CALLS as f64;
    println!("bytes a 2026-07-28 tools/call puts on each hop (both directions, per call):");
    println!(
        "  direct:  client <-> hub (HTTP) {:.0}, hub <-> device (lines) {:.0}",
        per(direct_client.bytes, direct_before.0),
        per(direct_device.load(Ordering::Relaxed), direct_before.1)
    );
    println!(
        "  gateway: client <-> hub (HTTP) {:.0}, hub <-> gateway (HTTP) {:.0}, gateway <-> device (lines) {:.0}",
        per(client.bytes, before.0),
        per(hop.load(Ordering::Relaxed), before.1),
        per(counted_device.load(Ordering::Relaxed), before.2)
    );
}
