//! The hub with real QEMU devices: `embedded-mcp bridge --device NAME=qemu:qemu-sensors ...`,
//! two and eight boards behind one bridge process.
//!
//! - Calls are routed to the right board: each board has its own simulated LED and sample
//!   counter, so `set_led`'s `previous` and `read_temperature`'s `sample` tell the boards apart.
//! - One board's QEMU killed: every other board still answers each call within a second, and the
//!   killed one comes back as a fresh boot (its sample counter starts again).
//! - The bridge process and its QEMUs: a SIGKILLed bridge (one board, or a hub of two) leaves
//!   no QEMU behind (`PR_SET_PDEATHSIG`), and SIGTERM or SIGINT stop the bridge and every QEMU
//!   within a second. Each QEMU is checked by the pid the bridge logged, not by a process search
//!   (other tests run QEMUs at the same time).
//! - No QEMU outlives a test: the bridge (killed on drop) takes its QEMUs with it, and [`Boards`]
//!   SIGKILLs every QEMU pid the bridge logged, also when the test fails.
#![cfg(unix)]

mod bridge_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bridge_support::*;
use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu, Board};
use serde_json::{json, Value};

/// The slowest answer a live board may give while another board is being killed.
const LIVE_ANSWER: Duration = Duration::from_secs(1);

/// The qemu-sensors ELF, built once per run (QEMU installed if missing, as the harness does).
fn firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    ELF.get_or_init(|| {
        ensure_qemu().unwrap_or_else(|e| panic!("{e}"));
        let dir = embedded_mcp_tests::project_root()
            .join("examples")
            .join("qemu-sensors");
        build_firmware(&dir, Board::Lm3s6965evb.rust_target()).unwrap_or_else(|e| panic!("{e}"))
    })
}

/// A hub bridge process over QEMU boards, and every QEMU pid it logged.
///
/// Dropping it kills the bridge, then every QEMU pid seen (each checked to still be a QEMU
/// first, so a recycled pid is left alone).
struct Boards {
    bridge: BridgeProcess,
    names: Vec<String>,
    pids: BTreeMap<String, Vec<u32>>,
    next_id: u64,
}

impl Boards {
    /// A hub of `count` boards named `b0`, `b1`, ...; `count == 0` is one board behind a plain
    /// `--qemu` bridge (its pid is listed under "bridge").
    fn start(count: usize) -> Self {
        let fw = firmware().to_string_lossy().into_owned();
        let names: Vec<String> = (0..count).map(|n| format!("b{n}")).collect();
        let links: Vec<String> = names.iter().map(|n| format!("{n}=qemu:{fw}")).collect();
        let mut args: Vec<&str> = Vec::new();
        for link in &links {
            args.extend(["--device", link]);
        }
        if count == 0 {
            args.extend(["--qemu", &fw]);
        }
        args.extend(["--timeout-ms", "8000"]);
        let bridge = BridgeProcess::start(&args);
        let count = count.max(1);
        let mut boards = Self {
            bridge,
            names,
            pids: BTreeMap::new(),
            next_id: 1,
        };
        boards.wait_pids(|pids| pids.len() == count);
        boards
    }

    /// Reads the bridge's "NAME: info: device process pid N" lines into `pids`.
    fn scan_pids(&mut self) {
        let stderr = self.bridge.stderr();
        self.pids.clear();
        for line in stderr.lines() {
            let Some((head, pid)) = line.split_once(": info: device process pid ") else {
                continue;
            };
            // "embedded-mcp bridge: NAME" in a hub, "embedded-mcp bridge" for one device.
            let (Some(name), Ok(pid)) = (head.rsplit([':', ' ']).next(), pid.trim().parse()) else {
                continue;
            };
            self.pids.entry(name.to_owned()).or_default().push(pid);
        }
    }

    /// Waits until the logged pids satisfy `done`.
    fn wait_pids(&mut self, done: impl Fn(&BTreeMap<String, Vec<u32>>) -> bool) {
        let end = Instant::now() + TIMEOUT;
        loop {
            self.scan_pids();
            if done(&self.pids) {
                return;
            }
            assert!(
                Instant::now() < end,
                "the bridge did not log the QEMU pids; stderr:\n{}",
                self.bridge.stderr()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The current QEMU pid of board `name`.
    fn pid(&self, name: &str) -> u32 {
        *self.pids[name].last().expect("a pid")
    }

    fn initialize(&mut self) {
        let init = json(&self.bridge.request(&initialize_request("2025-11-25")));
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
        self.bridge.send(INITIALIZED);
    }

    /// Calls `tool` with `arguments`; returns the answer and how long it took.
    fn call(&mut self, tool: &str, arguments: Value) -> (Value, Duration) {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                          "params": {"name": tool, "arguments": arguments}});
        let started = Instant::now();
        let answer = json(&self.bridge.request(&line.to_string()));
        let took = started.elapsed();
        assert_eq!(answer["id"], id, "answers come in order here: {answer}");
        (answer, took)
    }

    /// `structuredContent` of a successful call.
    fn structured(&mut self, tool: &str, arguments: Value) -> Value {
        let (answer, _) = self.call(tool, arguments);
        let content = &answer["result"]["structuredContent"];
        assert!(content.is_object(), "{tool}: {answer}");
        content.clone()
    }

    /// `set_led red` on board `name`; returns the previous brightness.
    fn set_red(&mut self, name: &str, brightness: u64) -> Value {
        let tool = format!("{name}.set_led");
        self.structured(&tool, json!({"led": "red", "brightness": brightness}))["previous"].clone()
    }

    /// `read_temperature`'s sample counter on board `name`.
    fn sample(&mut self, name: &str) -> Value {
        self.structured(&format!("{name}.read_temperature"), json!({}))["sample"].clone()
    }

    /// Checks the one-page list: every board's five tools, `NAME.tool`, in board order.
    fn check_list(&mut self) {
        let list = json(
            &self
                .bridge
                .request(r#"{"jsonrpc":"2.0","id":"list","method":"tools/list"}"#),
        );
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{list}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default())
            .collect();
        let expected: Vec<String> = self
            .names
            .iter()
            .flat_map(|n| {
                [
                    "read_temperature",
                    "read_acceleration",
                    "set_led",
                    "device_info",
                    "sample_temperature",
                ]
                .map(|t| format!("{n}.{t}"))
            })
            .collect();
        assert_eq!(names, expected);
        assert!(list["result"].get("nextCursor").is_none(), "{list}");
    }

    /// Kills board `victim`'s QEMU; meanwhile every other board answers each call within
    /// [`LIVE_ANSWER`]; then the victim answers again as a fresh boot. Returns the slowest
    /// live answer.
    fn kill_one_while_others_answer(&mut self, victim: &str) -> Duration {
        let old = self.pid(victim);
        let killed = std::process::Command::new("kill")
            .args(["-KILL", &old.to_string()])
            .status();
        assert!(killed.is_ok_and(|s| s.success()));
        let others: Vec<String> = self
            .names
            .iter()
            .filter(|n| *n != victim)
            .cloned()
            .collect();
        let mut slowest = Duration::ZERO;
        // Two rounds over the live boards while the victim is down and being restarted.
        for _ in 0..2 {
            for name in &others {
                let (answer, took) = self.call(&format!("{name}.device_info"), json!({}));
                assert!(
                    answer["result"]["structuredContent"]["firmware"] == "qemu-sensors",
                    "{name}: {answer}"
                );
                assert!(
                    took < LIVE_ANSWER,
                    "{name} took {took:?} while {victim} was down; stderr:\n{}",
                    self.bridge.stderr()
                );
                slowest = slowest.max(took);
            }
        }
        // The victim comes back under a new QEMU, as a fresh boot.
        let victim_name = victim.to_owned();
        self.wait_pids(|pids| pids.get(&victim_name).is_some_and(|p| p.len() >= 2));
        assert!(wait_gone(old), "the killed QEMU {old} is still there");
        let end = Instant::now() + TIMEOUT;
        loop {
            let (answer, _) = self.call(&format!("{victim}.read_temperature"), json!({}));
            if let Some(sample) = answer["result"]["structuredContent"]["sample"].as_u64() {
                assert_eq!(sample, 1, "a rebooted board counts from 1: {answer}");
                break;
            }
            // Until the new boot has answered the replayed handshake, calls fail cleanly.
            assert!(answer.get("error").is_some(), "{answer}");
            assert!(Instant::now() < end, "{victim} did not come back: {answer}");
            std::thread::sleep(Duration::from_millis(100));
        }
        slowest
    }

    /// Closes the bridge's stdin: it exits 0 and every QEMU it started is gone.
    fn finish(mut self) {
        self.bridge.stdin = None;
        let status = self.bridge.wait_exit();
        assert_eq!(status.code(), Some(0), "stderr:\n{}", self.bridge.stderr());
        self.scan_pids();
        for (name, pids) in &self.pids {
            for pid in pids {
                assert!(wait_gone(*pid), "{name}'s QEMU {pid} outlived the bridge");
            }
        }
    }
}

/// True when `pid` is a running QEMU (its command line names qemu-system).
fn is_qemu(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .is_ok_and(|c| String::from_utf8_lossy(&c).contains("qemu-system"))
}

impl Drop for Boards {
    fn drop(&mut self) {
        let _ = self.bridge.child.kill();
        let _ = self.bridge.child.wait();
        self.scan_pids();
        for pid in self.pids.values().flatten() {
            if is_qemu(*pid) {
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
        }
    }
}

#[test]
fn two_boards_calls_routed_and_one_killed_while_the_other_answers() {
    let started = Instant::now();
    let mut boards = Boards::start(2);
    boards.initialize();
    boards.check_list();
    // Each board keeps its own state: the LED level and the sample counter.
    assert_eq!(boards.set_red("b0", 40), 0);
    assert_eq!(boards.set_red("b1", 70), 0);
    assert_eq!(boards.set_red("b0", 10), 40);
    assert_eq!(boards.set_red("b1", 20), 70);
    for n in 1..=3 {
        assert_eq!(boards.sample("b0"), n);
    }
    assert_eq!(boards.sample("b1"), 1);
    let slowest = boards.kill_one_while_others_answer("b0");
    // The survivor kept its state; the list is the same after the reboot.
    assert_eq!(boards.sample("b1"), 2);
    boards.check_list();
    boards.finish();
    eprintln!(
        "two boards: slowest live answer {slowest:?}, test {:?}",
        started.elapsed()
    );
}

#[test]
fn eight_boards_calls_routed_and_one_killed_while_the_others_answer() {
    let started = Instant::now();
    let mut boards = Boards::start(8);
    boards.initialize();
    boards.check_list();
    let names = boards.names.clone();
    for (n, name) in names.iter().enumerate() {
        assert_eq!(boards.set_red(name, 10 + n as u64), 0, "{name}");
    }
    for (n, name) in names.iter().enumerate() {
        assert_eq!(boards.set_red(name, 0), 10 + n as u64, "{name}");
    }
    let slowest = boards.kill_one_while_others_answer("b3");
    boards.check_list();
    boards.finish();
    eprintln!(
        "eight boards: slowest live answer {slowest:?}, test {:?}",
        started.elapsed()
    );
}

/// Signals the bridge; returns how long until the bridge and every QEMU it logged were gone.
fn stop_with(boards: &mut Boards, signal: &str, code: Option<i32>) -> Duration {
    boards.scan_pids();
    let pids: Vec<u32> = boards.pids.values().flatten().copied().collect();
    assert!(pids.iter().all(|p| process_alive(*p)), "{pids:?}");
    let started = Instant::now();
    boards.bridge.signal(signal);
    let status = boards.bridge.wait_exit();
    assert_eq!(
        status.code(),
        code,
        "SIG{signal}: {status}; stderr:\n{}",
        boards.bridge.stderr()
    );
    for pid in &pids {
        assert!(
            wait_gone(*pid),
            "SIG{signal}: QEMU {pid} outlived the bridge"
        );
    }
    started.elapsed()
}

#[test]
fn a_sigkilled_bridge_leaves_no_qemu() {
    for count in [0, 2] {
        let mut boards = Boards::start(count);
        boards.initialize();
        let took = stop_with(&mut boards, "KILL", None);
        assert!(took < Duration::from_secs(2), "{count} board(s): {took:?}");
        eprintln!("SIGKILL, {} QEMU(s) gone in {took:?}", count.max(1));
    }
}

#[test]
fn sigterm_and_sigint_stop_the_bridge_and_every_qemu_within_a_second() {
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        for count in [0, 2] {
            let mut boards = Boards::start(count);
            boards.initialize();
            let took = stop_with(&mut boards, signal, Some(code));
            assert!(
                took < Duration::from_secs(1),
                "SIG{signal}, {count} board(s): {took:?}"
            );
            eprintln!("SIG{signal}, {} QEMU(s) gone in {took:?}", count.max(1));
        }
    }
}
