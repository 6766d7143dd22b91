//! The bridge's overhead: the time from a host line to its answer, against a fake device that
//! answers at once, straight to the device (the peer) and through `embedded-mcp bridge`.
//!
//! - The device: a thread on loopback TCP that answers each `ping` line at once (its bytes with
//!   `"method":"ping"` turned into `"result":{}`).
//! - direct: a client on its own TCP connection to the device writes the line and reads the
//!   answer line.
//! - bridge: `embedded_mcp_std::bridge::run_fds` in process (the code of the binary's `bridge`
//!   command, `--tcp` to the same device, default settings), its host descriptors one end of a
//!   unix socket pair; the client writes the line to the other end and reads the answer line.
//!
//! After criterion's report the bench prints both times and the ratio (bridge / direct) from an
//! interleaved measurement (`embedded_mcp_benches::measure::interleaved`), with the machine's
//! load average, and the overhead in microseconds (bridge minus direct).
//!
//! Run: `cargo bench -p embedded-mcp-benches --bench bridge_overhead`.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use criterion::Criterion;
use embedded_mcp_benches::measure::{interleaved, load_average};
use embedded_mcp_std::bridge::{self, BridgeConfig};
use embedded_mcp_std::device::{Endpoint, Logger};

const PING: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
const ANSWER: &str = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";

/// Starts the fake device; returns its address.
fn device() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let addr = listener.local_addr().expect("address").to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let _ = stream.set_nodelay(true);
            std::thread::spawn(move || {
                let Ok(mut out) = stream.try_clone() else {
                    return;
                };
                let mut lines = BufReader::new(stream);
                let mut line = String::new();
                while lines.read_line(&mut line).is_ok_and(|n| n > 0) {
                    let answer = line.replace(",\"method\":\"ping\"}", ",\"result\":{}}");
                    if out.write_all(answer.as_bytes()).is_err() {
                        return;
                    }
                    line.clear();
                }
            });
        }
    });
    addr
}

/// One client: writes the ping, reads one line.
struct Client<S: std::io::Read + Write> {
    out: S,
    lines: BufReader<S>,
    line: String,
}

impl<S: std::io::Read + Write> Client<S> {
    fn round_trip(&mut self) {
        self.out.write_all(PING).expect("write");
        self.line.clear();
        self.lines.read_line(&mut self.line).expect("read");
        assert_eq!(self.line, ANSWER);
    }
}

fn direct(addr: &str) -> Client<TcpStream> {
    let stream = TcpStream::connect(addr).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    Client {
        out: stream.try_clone().expect("clone"),
        lines: BufReader::new(stream),
        line: String::new(),
    }
}

fn through_bridge(addr: &str) -> Client<UnixStream> {
    let (ours, theirs) = UnixStream::pair().expect("socket pair");
    let host_in = theirs.try_clone().expect("clone");
    let mut config = BridgeConfig::new(Endpoint::Tcp(addr.to_string()));
    config.timeout = Duration::from_secs(60);
    let log = Logger::to_writer(0, "bench", Box::new(std::io::sink()));
    // As the binary runs it: the host's descriptors, a socket here (tokio I/O of the bridge).
    std::thread::spawn(move || {
        let _ = bridge::run_fds(config, host_in.into(), theirs.into(), log);
    });
    let mut client = Client {
        out: ours.try_clone().expect("clone"),
        lines: BufReader::new(ours),
        line: String::new(),
    };
    client.round_trip(); // the link is up
    client
}

fn main() {
    let addr = device();
    let mut plain = direct(&addr);
    let mut bridged = through_bridge(&addr);
    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(50)
        .measurement_time(Duration::from_secs(3));
    let mut group = c.benchmark_group("bridge_overhead");
    group.bench_function("direct", |b| b.iter(|| plain.round_trip()));
    group.bench_function("bridge", |b| b.iter(|| bridged.round_trip()));
    group.finish();
    c.final_summary();
    let (bridge_ns, direct_ns) = interleaved(|| bridged.round_trip(), || plain.round_trip());
    println!(
        "host line to answer (interleaved, fastest batches; load {}): direct {:.1} µs, bridge {:.1} µs: ratio {:.2}x, overhead {:.1} µs",
        load_average(),
        direct_ns / 1000.0,
        bridge_ns / 1000.0,
        bridge_ns / direct_ns,
        (bridge_ns - direct_ns) / 1000.0
    );
}
