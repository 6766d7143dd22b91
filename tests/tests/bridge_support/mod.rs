//! Shared harness of the `bridge_*` tests: the scripted device served on a unix socket, the
//! bridge run in-process with pipes for stdin/stdout, and a captured log.
//!
//! Every wait is bounded ([`TIMEOUT`]); every thread and socket is stopped on drop, also when a
//! test fails.
#![allow(dead_code)]

#[path = "../../clients/fake_device.rs"]
pub mod fake_device;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use embedded_mcp_std::bridge::{self, BridgeConfig, Reconnect};
use embedded_mcp_std::device::{Endpoint, Logger};
use embedded_mcp_tests::child_log::collect_stderr;
use serde_json::Value;

use fake_device::{Action, FakeDevice};

/// Longest wait for anything that should happen (two shared cores, builds running beside).
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// A fresh path in the temporary folder.
pub fn temp_path(tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    std::env::temp_dir().join(format!(
        "emcp-{tag}-{}-{}.sock",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ))
}

/// What one connection to the fake device saw and sent.
#[derive(Debug, Default, Clone)]
pub struct Conn {
    /// Lines received from the bridge, exactly.
    pub received: Vec<String>,
    /// Lines sent to the bridge, exactly.
    pub sent: Vec<String>,
}

/// Knobs of the fake device for its next connections.
#[derive(Debug, Default, Clone)]
pub struct Knobs {
    /// Ignore the first N lines of each connection.
    pub drop_first: usize,
    /// Answer nothing.
    pub silent: bool,
    /// Lines written as soon as a connection is accepted (a boot banner, say).
    pub greeting: Vec<String>,
    /// Serve the hostile tools too (`FakeDevice::hostile`).
    pub hostile: bool,
}

#[derive(Default)]
struct Shared {
    stop: AtomicBool,
    conns: Mutex<Vec<Conn>>,
    current: Mutex<Option<UnixStream>>,
    knobs: Mutex<Knobs>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The fake device on a unix socket; each accepted connection is a fresh boot.
pub struct SocketDevice {
    /// The socket path (what `--unix` gets).
    pub path: PathBuf,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl SocketDevice {
    /// Listens on a fresh path.
    pub fn start() -> Self {
        Self::listen(temp_path("dev"), Knobs::default())
    }

    /// Listens on `path` with `knobs`.
    pub fn listen(path: PathBuf, knobs: Knobs) -> Self {
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path).expect("bind the fake device socket");
        let shared = Arc::new(Shared::default());
        *lock(&shared.knobs) = knobs;
        let accept_shared = Arc::clone(&shared);
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_shared.stop.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { return };
                let index = {
                    let mut conns = lock(&accept_shared.conns);
                    conns.push(Conn::default());
                    conns.len() - 1
                };
                *lock(&accept_shared.current) = stream.try_clone().ok();
                let conn_shared = Arc::clone(&accept_shared);
                std::thread::spawn(move || serve(stream, index, &conn_shared));
            }
        });
        Self {
            path,
            shared,
            accept: Some(accept),
        }
    }

    /// Changes the knobs for connections accepted from now on.
    pub fn set_knobs(&self, knobs: Knobs) {
        *lock(&self.shared.knobs) = knobs;
    }

    /// Connections accepted so far.
    pub fn connections(&self) -> usize {
        lock(&self.shared.conns).len()
    }

    /// Waits until `n` connections were accepted.
    pub fn wait_connections(&self, n: usize) {
        let end = Instant::now() + TIMEOUT;
        while self.connections() < n {
            assert!(
                Instant::now() < end,
                "the bridge did not connect {n} time(s)"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// What connection `index` saw.
    pub fn conn(&self, index: usize) -> Conn {
        lock(&self.shared.conns)
            .get(index)
            .cloned()
            .unwrap_or_default()
    }

    /// Waits until connection `index` has received `n` lines, and returns them.
    pub fn wait_received(&self, index: usize, n: usize) -> Vec<String> {
        let end = Instant::now() + TIMEOUT;
        loop {
            let received = self.conn(index).received;
            if received.len() >= n {
                return received;
            }
            assert!(
                Instant::now() < end,
                "connection {index} received only {received:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Resets the device: closes the current connection as a reboot or an unplug would.
    pub fn reset(&self) {
        if let Some(s) = lock(&self.shared.current).take() {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

impl Drop for SocketDevice {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.reset();
        let _ = UnixStream::connect(&self.path); // Unblocks accept().
        if let Some(t) = self.accept.take() {
            let _ = t.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

fn serve(stream: UnixStream, index: usize, shared: &Shared) {
    let knobs = lock(&shared.knobs).clone();
    let mut device = FakeDevice::default();
    device.drop_first = knobs.drop_first;
    device.silent = knobs.silent;
    device.hostile = knobs.hostile;
    let Ok(mut out) = stream.try_clone() else {
        return;
    };
    let send = |out: &mut UnixStream, text: &str| -> bool {
        if let Some(c) = lock(&shared.conns).get_mut(index) {
            c.sent.push(text.to_string());
        }
        out.write_all(format!("{text}\n").as_bytes()).is_ok()
    };
    for line in knobs.greeting {
        if !send(&mut out, &line) {
            return;
        }
    }
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { return };
        if let Some(c) = lock(&shared.conns).get_mut(index) {
            c.received.push(line.clone());
        }
        for action in device.handle(&line) {
            match action {
                Action::Send(text) => {
                    if !send(&mut out, &text) {
                        return;
                    }
                }
                Action::Close => {
                    let _ = out.shutdown(std::net::Shutdown::Both);
                    return;
                }
            }
        }
    }
}

/// The bridge's log, captured.
#[derive(Clone, Default)]
pub struct LogCapture(Arc<Mutex<Vec<u8>>>);

impl Write for LogCapture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        lock(&self.0).extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl LogCapture {
    /// Everything logged so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&lock(&self.0)).into_owned()
    }

    /// Waits until the log contains `needle`.
    pub fn wait_for(&self, needle: &str) {
        let end = Instant::now() + TIMEOUT;
        while !self.text().contains(needle) {
            assert!(
                Instant::now() < end,
                "log never said {needle:?}; log:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A config for `endpoint` with test-sized timings.
pub fn config(endpoint: Endpoint) -> BridgeConfig {
    let mut c = BridgeConfig::new(endpoint);
    c.timeout = Duration::from_secs(5);
    c.reconnect = Reconnect {
        first_delay: Duration::from_millis(20),
        max_delay: Duration::from_millis(200),
        attempts: 10,
    };
    c.startup_retry = Duration::ZERO;
    c
}

/// The bridge running in this process, its stdin and stdout being pipes.
pub struct Bridge {
    input: Option<std::io::PipeWriter>,
    lines: Receiver<String>,
    done: Receiver<Result<(), String>>,
    /// Closed when the stdout reader has seen the end of the bridge's output.
    drained: Receiver<()>,
    /// The bridge's log (`-vv`).
    pub log: LogCapture,
    /// Every line the bridge wrote to its stdout.
    pub out: Arc<Mutex<Vec<String>>>,
}

impl Bridge {
    /// Starts `bridge::run` with `config`.
    pub fn start(config: BridgeConfig) -> Self {
        let (host_in, input) = std::io::pipe().expect("pipe");
        let (output, host_out) = std::io::pipe().expect("pipe");
        let log = LogCapture::default();
        let logger = Logger::to_writer(2, "bridge", Box::new(log.clone()));
        let (done_tx, done) = channel();
        std::thread::spawn(move || {
            let r = bridge::run(config, host_in, host_out, logger).map_err(|e| e.to_string());
            let _ = done_tx.send(r);
        });
        let (tx, lines) = channel();
        let out = Arc::new(Mutex::new(Vec::new()));
        let out_copy = Arc::clone(&out);
        let (drained_tx, drained) = channel::<()>();
        std::thread::spawn(move || {
            let _drained = drained_tx;
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { return };
                lock(&out_copy).push(line.clone());
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Self {
            input: Some(input),
            lines,
            done,
            drained,
            log,
            out,
        }
    }

    /// Writes one line to the bridge's stdin.
    pub fn send(&mut self, line: &str) {
        let input = self.input.as_mut().expect("input still open");
        input
            .write_all(format!("{line}\n").as_bytes())
            .expect("write to the bridge");
    }

    /// The next line of the bridge's stdout; checks that it is one JSON-RPC message.
    pub fn recv(&self) -> String {
        match self.try_recv(TIMEOUT) {
            Some(line) => line,
            None => panic!(
                "no line from the bridge within {TIMEOUT:?}; log:\n{}",
                self.log.text()
            ),
        }
    }

    /// The next line within `wait`, if any.
    pub fn try_recv(&self, wait: Duration) -> Option<String> {
        match self.lines.recv_timeout(wait) {
            Ok(line) => {
                assert_jsonrpc_line(&line);
                Some(line)
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => None,
        }
    }

    /// Sends a request and returns the next line.
    pub fn request(&mut self, line: &str) -> String {
        self.send(line);
        self.recv()
    }

    /// The legacy handshake; returns the `initialize` response line.
    pub fn initialize(&mut self, version: &str) -> String {
        let response = self.request(&initialize_request(version));
        self.send(INITIALIZED);
        response
    }

    /// Closes stdin and waits for the bridge to return and for every line it wrote to be in
    /// [`Bridge::out`].
    pub fn finish(mut self) -> Result<(), String> {
        self.input = None;
        let r = match self.done.recv_timeout(TIMEOUT) {
            Ok(r) => r,
            Err(_) => {
                return Err(format!(
                    "the bridge did not stop after its input closed; log:\n{}",
                    self.log.text()
                ))
            }
        };
        // The reader may still hold the last lines: its channel closes at the output's end.
        if let Err(RecvTimeoutError::Timeout) = self.drained.recv_timeout(TIMEOUT) {
            return Err("the bridge's output did not end after it returned".into());
        }
        r
    }
}

/// The `initialize` request the tests send.
pub fn initialize_request(version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"bridge-test","version":"0"}}}}}}"#
    )
}

/// `notifications/initialized`.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// The `_meta` of a 2026-07-28 request.
pub const MODERN_META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// A `tools/call` request line.
pub fn call(id: &str, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
    )
}

/// A 2026-07-28 `tools/call` request line.
pub fn call_modern(id: &str, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{MODERN_META},"name":"{tool}","arguments":{{}}}}}}"#
    )
}

/// Asserts that `line` is one JSON-RPC 2.0 message object, or a non-empty array of them (a
/// 2025-03-26 batch answer): what stdout may carry.
pub fn assert_jsonrpc_line(line: &str) {
    let v: Value = serde_json::from_str(line).unwrap_or_else(|e| {
        panic!("bridge stdout carried a line that is not JSON ({e}): {line:?}")
    });
    let messages = match &v {
        Value::Array(batch) => batch.iter().collect(),
        one => vec![one],
    };
    assert!(!messages.is_empty(), "an empty array on stdout");
    for message in messages {
        assert_eq!(
            message.get("jsonrpc").and_then(Value::as_str),
            Some("2.0"),
            "not a JSON-RPC message: {line}"
        );
    }
}

/// The parsed form of a line.
pub fn json(line: &str) -> Value {
    serde_json::from_str(line).expect("JSON")
}

/// True while the process `pid` exists and is not a zombie.
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z"),
        Err(_) => false,
    }
}

/// Waits until `pid` is gone.
pub fn wait_gone(pid: u32) -> bool {
    let end = Instant::now() + TIMEOUT;
    while process_alive(pid) {
        if Instant::now() > end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// The path of a file under the project root.
pub fn in_project(rel: &str) -> PathBuf {
    embedded_mcp_tests::project_root().join(rel)
}

/// Whether `path` exists (for guards with a clear message).
pub fn exists(path: &Path) -> bool {
    path.exists()
}

/// The bridge binary (`cli::main` of `embedded-mcp`, built in this package).
pub const BRIDGE: &str = env!("CARGO_BIN_EXE_embedded-mcp-under-test");
/// The scripted device as a process.
pub const DEVICE: &str = env!("CARGO_BIN_EXE_bridge-fake-device");

/// A bridge process; killed on drop (also when the test fails).
pub struct BridgeProcess {
    /// The process.
    pub child: Child,
    /// Its stdin (`None` once closed).
    pub stdin: Option<ChildStdin>,
    /// Lines of its stdout.
    pub lines: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl BridgeProcess {
    pub fn start(extra: &[&str]) -> Self {
        let mut child = Command::new(BRIDGE)
            .arg("bridge")
            .args(extra)
            .arg("-v")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the bridge");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout");
        let stderr = collect_stderr(&mut child);
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    pub fn with_device(device_args: &str) -> Self {
        Self::start(&[
            "--command",
            &format!("{DEVICE} {device_args}"),
            "--timeout-ms",
            "3000",
        ])
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .expect("write");
        stdin.flush().expect("flush");
    }

    pub fn recv(&self) -> String {
        let line = self
            .lines
            .recv_timeout(TIMEOUT)
            .unwrap_or_else(|_| panic!("no answer from the bridge; stderr:\n{}", self.stderr()));
        assert_jsonrpc_line(&line);
        line
    }

    pub fn request(&mut self, line: &str) -> String {
        self.send(line);
        self.recv()
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub fn device_pid(&mut self, id: u32) -> u32 {
        let v = json(&self.request(&call(&id.to_string(), "pid")));
        u32::try_from(
            v["result"]["structuredContent"]["pid"]
                .as_u64()
                .expect("a pid"),
        )
        .unwrap()
    }

    pub fn wait_exit(&mut self) -> ExitStatus {
        let end = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(
                Instant::now() < end,
                "the bridge did not exit; stderr:\n{}",
                self.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("run kill")
            .success();
        assert!(ok, "kill -{name} failed");
    }
}

impl Drop for BridgeProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
