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
//! - A board whose image is swapped under the bridge (other tools, another architecture, no
//!   image at all, back again): the host gets `notifications/tools/list_changed` each time, and
//!   `tools/list` shows the change.
//! - No QEMU outlives a test: the bridge (killed on drop) takes its QEMUs with it, and [`Boards`]
//!   SIGKILLs every QEMU pid the bridge logged, also when the test fails.
#![cfg(unix)]

mod bridge_support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bridge_support::*;
use embedded_mcp_tests::qemu::{build_firmware, ensure_qemu, example_firmware, Board};
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
        let fw = firmware();
        let names: Vec<String> = (0..count).map(|n| format!("b{n}")).collect();
        let devices: Vec<(&str, &Path)> = names.iter().map(|n| (n.as_str(), fw)).collect();
        if count == 0 {
            let fw = fw.to_string_lossy().into_owned();
            return Self::launch(Vec::new(), &["--qemu", &fw], 1);
        }
        Self::with_devices(&devices)
    }

    /// A hub of the boards `devices` (name, firmware ELF), in that order.
    fn with_devices(devices: &[(&str, &Path)]) -> Self {
        let links: Vec<String> = devices
            .iter()
            .map(|(name, elf)| format!("{name}=qemu:{}", elf.display()))
            .collect();
        let mut args: Vec<&str> = Vec::new();
        for link in &links {
            args.extend(["--device", link]);
        }
        let names = devices.iter().map(|(name, _)| (*name).to_owned()).collect();
        Self::launch(names, &args, devices.len())
    }

    /// Starts the bridge with `args` and waits until it logged `count` QEMU pids.
    fn launch(names: Vec<String>, args: &[&str], count: usize) -> Self {
        let mut args = args.to_vec();
        args.extend(["--timeout-ms", "8000"]);
        let bridge = BridgeProcess::start(&args);
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
            .flat_map(|n| SENSOR_TOOLS.map(|t| format!("{n}.{t}")))
            .collect();
        assert_eq!(names, expected);
        assert!(list["result"].get("nextCursor").is_none(), "{list}");
    }

    /// Kills board `victim`'s QEMU; meanwhile every other board answers each call within
    /// [`LIVE_ANSWER`]; then the victim answers again as a fresh boot. Returns the slowest
    /// live answer.
    fn kill_one_while_others_answer(&mut self, victim: &str) -> Duration {
        let old = self.kill_qemu(victim);
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

    /// SIGKILLs board `name`'s current QEMU; returns its pid.
    fn kill_qemu(&mut self, name: &str) -> u32 {
        let pid = self.pid(name);
        let killed = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
        assert!(
            killed.is_ok_and(|s| s.success()),
            "kill {name}'s QEMU {pid}"
        );
        pid
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

/// The list-changed notification, byte for byte.
const LIST_CHANGED: &str = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
/// The sensor firmware's tools (qemu-sensors and qemu-riscv list the same), in listing order.
const SENSOR_TOOLS: [&str; 6] = [
    "read_temperature",
    "read_acceleration",
    "set_led",
    "device_info",
    "sample_temperature",
    "set_relay",
];

fn riscv_firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    example_firmware("qemu-riscv", Board::RiscvVirt, &ELF)
}

fn conformance_firmware() -> &'static Path {
    static ELF: OnceLock<PathBuf> = OnceLock::new();
    example_firmware("qemu-conformance", Board::Lm3s6965evb, &ELF)
}

/// A folder of this test's own, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("emcp-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        Self(dir)
    }

    /// Puts a copy of `elf` at `name` in one step (written aside, then renamed over it), so a
    /// QEMU started meanwhile reads either the old image or the new one.
    fn install(&self, elf: &Path, name: &str) -> PathBuf {
        let target = self.0.join(name);
        let aside = self.0.join(format!("{name}.new"));
        std::fs::copy(elf, &aside).unwrap_or_else(|e| panic!("{}: {e}", elf.display()));
        std::fs::rename(&aside, &target).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        target
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Boards {
    /// Sends `request` (whose id is `id`) and reads up to its answer; every line before it must
    /// be `notifications/tools/list_changed`. Returns the answer and how many of those came.
    fn exchange(&mut self, request: &Value, id: &Value) -> (Value, usize) {
        self.bridge.send(&request.to_string());
        let mut notes = 0;
        loop {
            let line = self.bridge.recv();
            if line == LIST_CHANGED {
                notes += 1;
                continue;
            }
            let answer = json(&line);
            assert_eq!(&answer["id"], id, "answers come in order here: {answer}");
            return (answer, notes);
        }
    }

    /// The names in the hub's one-page `tools/list`, and how many list-changed notifications
    /// came before its answer.
    fn list_names(&mut self) -> (Vec<String>, usize) {
        let id = json!(format!("list-{}", self.next_id));
        self.next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"});
        let (list, notes) = self.exchange(&request, &id);
        assert!(list["result"].get("nextCursor").is_none(), "{list}");
        let names = list["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{list}"))
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
            .collect();
        (names, notes)
    }

    /// Waits until the hub's list satisfies `done`: after each list-changed notification it
    /// lists again. Returns the list and how many notifications came (at least one: the list
    /// is expected to change).
    fn wait_list_change(&mut self, what: &str, done: impl Fn(&[String]) -> bool) -> Vec<String> {
        let end = Instant::now() + TIMEOUT;
        let mut notes = 0;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let line = self.bridge.lines.recv_timeout(left).unwrap_or_else(|_| {
                panic!(
                    "no list_changed for {what} ({notes} so far); stderr:\n{}",
                    self.bridge.stderr()
                )
            });
            assert_eq!(
                line, LIST_CHANGED,
                "{what}: only list_changed is sent unasked"
            );
            notes += 1;
            let (names, more) = self.list_names();
            notes += more;
            if done(&names) {
                eprintln!("{what}: {notes} list_changed, then {names:?}");
                return names;
            }
        }
    }

    /// A call of `tool` routed through the hub (list-changed notifications before its answer
    /// are skipped).
    fn call_tool(&mut self, tool: &str, arguments: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                             "params": {"name": tool, "arguments": arguments}});
        self.exchange(&request, &id).0
    }

    /// Kills board `name`'s QEMU and waits until the bridge logged the pid of its next one.
    fn restart_qemu(&mut self, name: &str) {
        let before = self.pids.get(name).map_or(0, Vec::len);
        let old = self.kill_qemu(name);
        assert!(wait_gone(old), "the killed QEMU {old} is still there");
        let name = name.to_owned();
        self.wait_pids(|pids| pids.get(&name).is_some_and(|p| p.len() > before));
    }
}

/// `names` as the hub lists board `board`'s tools.
fn on(board: &str, names: &[&str]) -> Vec<String> {
    names.iter().map(|n| format!("{board}.{n}")).collect()
}

/// A hub of a RISC-V board `a` (qemu-riscv) and an Arm board `b` whose image file is swapped
/// under the bridge while its QEMU is killed: b comes back with other tools (qemu-conformance),
/// then on another architecture (qemu-riscv: the bridge picks `qemu-system-riscv32` from the
/// ELF), then goes away (no image: its tools are withdrawn) and comes back (qemu-sensors). Each
/// time the host gets `notifications/tools/list_changed` and a `tools/list` that shows the
/// change, and calls reach the firmware now behind b.
#[test]
fn a_board_swapped_to_other_firmware_brings_list_changed_and_its_new_tools() {
    let started = Instant::now();
    let scratch = Scratch::new("hub-swap");
    let b_elf = scratch.install(firmware(), "b.elf");
    let mut boards = Boards::with_devices(&[("a", riscv_firmware()), ("b", &b_elf)]);
    boards.initialize();
    let sensors_on_both = [on("a", &SENSOR_TOOLS), on("b", &SENSOR_TOOLS)].concat();
    let (names, notes) = boards.list_names();
    assert_eq!((names, notes), (sensors_on_both.clone(), 0));
    let info = boards.call_tool("b.device_info", json!({}));
    assert_eq!(
        info["result"]["structuredContent"]["firmware"], "qemu-sensors",
        "{info}"
    );

    // Other tools: the conformance fixtures.
    scratch.install(conformance_firmware(), "b.elf");
    boards.restart_qemu("b");
    let names = boards.wait_list_change("b now qemu-conformance", |names| {
        names.iter().any(|n| n == "b.test_simple_text")
    });
    let kept = SENSOR_TOOLS.len();
    assert_eq!(
        names[..kept],
        on("a", &SENSOR_TOOLS)[..],
        "a's tools stay: {names:?}"
    );
    assert!(
        names[kept..]
            .iter()
            .all(|n| n.starts_with("b.") && !SENSOR_TOOLS.contains(&&n[2..])),
        "b lists only the conformance tools: {names:?}"
    );
    let text = boards.call_tool("b.test_simple_text", json!({}));
    assert_eq!(text["result"]["content"][0]["type"], "text", "{text}");
    let gone = boards.call_tool("b.device_info", json!({}));
    assert!(
        gone.get("error").is_some() || gone["result"]["isError"] == true,
        "{gone}"
    );

    // Another architecture, the sensor tools again.
    scratch.install(riscv_firmware(), "b.elf");
    boards.restart_qemu("b");
    let names = boards.wait_list_change("b now qemu-riscv", |names| names == sensors_on_both);
    assert_eq!(names, sensors_on_both);
    let info = boards.call_tool("b.device_info", json!({}));
    let info = &info["result"]["structuredContent"];
    assert_eq!(
        (&info["firmware"], &info["board"]),
        (&json!("qemu-riscv"), &json!("riscv-virt"))
    );

    // Gone: no image to boot. Its tools are withdrawn while a still answers.
    std::fs::remove_file(&b_elf).expect("remove b.elf");
    let old = boards.kill_qemu("b");
    assert!(wait_gone(old), "the killed QEMU {old} is still there");
    let names = boards.wait_list_change("b gone", |names| names == on("a", &SENSOR_TOOLS));
    assert_eq!(names, on("a", &SENSOR_TOOLS));
    let sample = boards.call_tool("a.read_temperature", json!({}));
    assert!(
        sample["result"]["structuredContent"]["sample"].is_u64(),
        "{sample}"
    );

    // Back, as qemu-sensors: its tools are listed again.
    scratch.install(firmware(), "b.elf");
    let names = boards.wait_list_change("b back as qemu-sensors", |names| names == sensors_on_both);
    assert_eq!(names, sensors_on_both);
    let info = boards.call_tool("b.device_info", json!({}));
    assert_eq!(
        info["result"]["structuredContent"]["firmware"], "qemu-sensors",
        "{info}"
    );
    boards.finish();
    eprintln!("firmware swaps: test {:?}", started.elapsed());
}
