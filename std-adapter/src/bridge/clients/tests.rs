//! The clients layer under simulated time: a fixed base instant plus offsets, routes named by
//! numbers, effects read back; nothing sleeps. Below it stands the engine's real input shim
//! layer, around a recorder of the lines that reach the router ([`Below`]).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use embedded_mcp::protocol::Version;
use serde_json::{json, Value};

use super::*;
use crate::bridge::input_shim::ShimLayer;
use crate::bridge::machine::{Input, Machine, Output};
use crate::bridge::message::{self, Class, Id};
use crate::bridge::subscriptions::Filter;
use crate::log::Logger;

struct Sim {
    c: Clients<u32>,
    /// The engine below the layer: the input shim around the router's stand-in.
    engine: ShimLayer<Below>,
    t0: Instant,
    now: Instant,
    router: Vec<String>,
    got: Vec<(u32, Delivery)>,
}

/// The router's stand-in: records the lines that reach it, hands back the lines a test writes.
#[derive(Default)]
pub(super) struct Below {
    got: Vec<String>,
    out: VecDeque<Output>,
}

impl Machine for Below {
    fn handle(&mut self, input: Input, _now: Instant) {
        if let Input::HostLine(line) | Input::ClientLine { line, .. } = input {
            self.got.push(String::from_utf8(line).unwrap());
        }
    }
    fn handle_timeout(&mut self, _now: Instant) {}
    fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }
    fn poll_timeout(&self) -> Option<Instant> {
        None
    }
    fn is_finished(&self) -> bool {
        true
    }
    fn stop(&mut self) {}
}

fn config(devices: &[&str]) -> ClientsConfig {
    ClientsConfig {
        reply_idle: Duration::from_secs(25),
        input_timeout: Duration::from_secs(120),
        devices: devices.iter().map(|d| d.to_string()).collect(),
        max_sessions: 4,
        limits: admission::Limits::for_connections(512),
        bearer: false,
    }
}

impl Sim {
    fn new(cfg: ClientsConfig) -> Self {
        let t0 = Instant::now();
        let log = Logger::to_writer(0, "t", Box::new(std::io::sink()));
        let timeout = cfg.input_timeout;
        Self {
            c: Clients::new(cfg, log, t0),
            engine: ShimLayer::new(Below::default(), timeout, t0),
            t0,
            now: t0,
            router: Vec::new(),
            got: Vec::new(),
        }
    }

    /// Carries the layer's effects out, and the engine's outputs back, as the shell would.
    fn take(&mut self) {
        loop {
            let mut moved = false;
            while let Some(effect) = self.c.poll_effect() {
                moved = true;
                let input = match effect {
                    Effect::ToRouter {
                        line,
                        msg,
                        client,
                        asker,
                    } => {
                        // What the front read is the line itself, with the bridge's id.
                        if let Some(msg) = &msg {
                            let again = message::parse(&line).expect("the line is JSON");
                            assert_eq!(msg.value, again.value, "the envelope matches its line");
                        }
                        Input::ClientLine {
                            line,
                            msg,
                            client,
                            asker,
                        }
                    }
                    Effect::Ended { client } => Input::ClientEnded { client },
                    Effect::Deliver(route, d) => {
                        self.got.push((route, d));
                        continue;
                    }
                };
                self.engine.handle(input, self.now);
            }
            while let Some(output) = self.engine.poll_output() {
                moved = true;
                match output {
                    Output::Host(line) => self.c.on_router_line(line, None, self.now),
                    Output::HostFrom { device, line } => {
                        self.c.on_router_line(line, Some(device), self.now);
                    }
                    Output::Question { call, line } => self.c.on_question(&call, line, self.now),
                    Output::Link { .. } | Output::Tools(_) => {}
                }
            }
            self.router.append(&mut self.engine.inner_mut().got);
            if !moved {
                return;
            }
        }
    }

    fn at(&mut self, secs: u64) {
        self.now = self.t0 + Duration::from_secs(secs);
    }

    fn event(&mut self, event: Event<u32>) {
        self.c.handle(event, self.now);
        self.take();
    }

    /// The router writes `line` (a device's, when `from` names it).
    fn router_line(&mut self, line: &str, from: Option<usize>) {
        let line = line.as_bytes().to_vec();
        let output = match from {
            Some(device) => Output::HostFrom { device, line },
            None => Output::Host(line),
        };
        self.engine.inner_mut().out.push_back(output);
        // Nothing is due: the engine only takes its machine's outputs.
        self.engine.handle_timeout(self.now);
        self.take();
    }

    /// Runs the layer's timers up to `secs`, as the shell would.
    fn run_until(&mut self, secs: u64) {
        let end = self.t0 + Duration::from_secs(secs);
        loop {
            let next = [self.c.poll_timeout(), self.engine.poll_timeout()]
                .into_iter()
                .flatten()
                .min()
                .filter(|&at| at <= end);
            let Some(at) = next else { break };
            self.now = at;
            if self.engine.poll_timeout().is_some_and(|t| t <= at) {
                self.engine.handle_timeout(at);
            }
            if self.c.poll_timeout().is_some_and(|t| t <= at) {
                self.c.handle_timeout(at);
            }
            self.take();
        }
        self.now = end;
    }

    fn forward(&mut self, ticket: Ticket, line: &str, tool: Option<&str>) {
        let msg = message::parse(line.as_bytes()).unwrap();
        let Class::Request { id, .. } = msg.class.clone() else {
            panic!("a request")
        };
        self.event(Event::Forward {
            ticket,
            line: line.as_bytes().to_vec(),
            msg: Some(msg),
            owner: Owner {
                session: None,
                id_raw: id.raw,
                id_key: id.key,
                peer: "p".into(),
            },
            tool: tool.map(str::to_owned),
            route: ticket as u32,
        });
    }

    fn open_session(&mut self, id: &str, caps: Value, route: u32) -> Delivery {
        self.event(Event::OpenSession(NewSession {
            id: id.into(),
            version: Version::V2025_11_25,
            capabilities: caps,
            translate: false,
            id_raw: "0".into(),
            response: b"{}".to_vec(),
            route,
        }));
        self.got.pop().expect("an answer").1
    }

    fn post(&mut self, ticket: Ticket, session: &str, line: &str, sse: bool) {
        self.event(Event::SessionPost(SessionPost {
            ticket,
            session: session.into(),
            version_ok: true,
            msg: message::parse(line.as_bytes()).unwrap(),
            body: line.as_bytes().to_vec(),
            sse,
            peer: "p".into(),
            route: ticket as u32,
        }));
    }

    fn delivered(&mut self, route: u32) -> Vec<Delivery> {
        let (mine, rest) = std::mem::take(&mut self.got)
            .into_iter()
            .partition(|(r, _)| *r == route);
        self.got = rest;
        mine.into_iter().map(|(_, d)| d).collect()
    }
}

fn text(d: &Delivery) -> String {
    match d {
        Delivery::Notification(l) | Delivery::Response(l) | Delivery::Line(l) => {
            String::from_utf8(l.clone()).unwrap()
        }
        Delivery::Answer(a) => format!("{} {}", a.status, String::from_utf8_lossy(&a.body)),
        Delivery::Opened => "opened".into(),
    }
}

fn texts(ds: &[Delivery]) -> Vec<String> {
    ds.iter().map(text).collect()
}

#[test]
fn ids_and_tokens_are_the_bridges_and_come_back_as_the_clients() {
    let mut s = Sim::new(config(&[]));
    s.forward(
        7,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"t"}}}"#,
        Some("x"),
    );
    s.forward(8, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, None);
    assert_eq!(
        s.router,
        [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":7}}}"#,
            r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#
        ]
    );
    s.router_line(r#"{"jsonrpc":"2.0","id":8,"result":{}}"#, None);
    s.router_line(
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":5}}"#,
        None,
    );
    s.router_line(
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
        None,
    );
    s.router_line(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[]}}"#, None);
    assert_eq!(
        texts(&s.delivered(8)),
        [r#"{"jsonrpc":"2.0","id":1,"result":{}}"#]
    );
    assert_eq!(
        texts(&s.delivered(7)),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":5}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#
        ]
    );
    assert_eq!(s.c.in_flight(), 0);
    // A late or unknown answer reaches nobody.
    s.router_line(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#, None);
    assert!(s.got.is_empty());
}

#[test]
fn a_hubs_device_logs_reach_the_call_on_that_device_only() {
    let mut s = Sim::new(config(&["a", "b"]));
    // Session-less clients Y (on a) then X (on b), as in the issue's report.
    s.forward(
        1,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a.slow"}}"#,
        Some("a.slow"),
    );
    s.forward(
        2,
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"b.slow"}}"#,
        Some("b.slow"),
    );
    let log = |who: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{who}"}}}}"#
        )
    };
    s.router_line(&log("from b"), Some(1));
    s.router_line(&log("from a"), Some(0));
    assert_eq!(texts(&s.delivered(2)), [log("from b")]);
    assert_eq!(texts(&s.delivered(1)), [log("from a")]);
    // Progress names its request, but only the device that has it may send it.
    let progress = |token: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":{token},"progress":1}}}}"#
        )
    };
    s.router_line(&progress(2), Some(0));
    assert!(s.got.is_empty(), "device a cannot reach b's call");
    // The hub's own lines (no device): to nobody in flight.
    s.router_line(&log("hub"), None);
    assert!(s.got.is_empty());
}

#[test]
fn logs_follow_the_session_level_and_a_cancel_reaches_the_router() {
    let mut s = Sim::new(config(&[]));
    assert!(matches!(s.open_session("A", json!({}), 100), Delivery::Answer(a) if a.status == 200));
    s.post(
        1,
        "A",
        r#"{"jsonrpc":"2.0","id":"l","method":"logging/setLevel","params":{"level":"warning"}}"#,
        false,
    );
    assert_eq!(
        texts(&s.delivered(1)),
        [r#"200 {"jsonrpc":"2.0","id":"l","result":{}}"#]
    );
    s.post(
        2,
        "A",
        r#"{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"x"}}"#,
        true,
    );
    s.router.clear();
    s.router_line(
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}"#,
        None,
    );
    s.router_line(
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":2}}"#,
        None,
    );
    assert_eq!(s.delivered(2).len(), 1, "only the error passes the level");
    // The same id again in the session, while in flight: refused.
    s.post(
        3,
        "A",
        r#"{"jsonrpc":"2.0","id":"q","method":"ping"}"#,
        false,
    );
    assert!(text(&s.delivered(3)[0]).starts_with("400 "));
    s.post(
        4,
        "A",
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"q","reason":"user"}}"#,
        false,
    );
    assert_eq!(texts(&s.delivered(4)), ["202 "]);
    assert_eq!(
        s.router,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}"#
        ]
    );
    // The late answer is dropped; an unknown session gets 404.
    s.router_line(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#, None);
    assert!(s.got.is_empty());
    s.post(
        5,
        "nope",
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        false,
    );
    assert!(text(&s.delivered(5)[0]).starts_with("404 "));
}

#[test]
fn a_table_full_of_live_sessions_turns_the_newcomer_away_and_only_abandoned_ones_make_room() {
    let mut s = Sim::new(config(&[]));
    // A idle, B with a GET stream, C with a call in flight, D idle.
    for (n, id) in ["A", "B", "C", "D"].iter().enumerate() {
        s.at(n as u64);
        s.open_session(id, json!({}), 0);
    }
    s.event(Event::SessionStream {
        ticket: 1,
        session: "B".into(),
        version_ok: true,
        peer: "p".into(),
        route: 1,
    });
    s.post(
        2,
        "C",
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
        false,
    );
    s.got.clear();
    s.at(5);
    let Delivery::Answer(full) = s.open_session("E", json!({}), 0) else {
        panic!("an answer")
    };
    assert_eq!(full.status, 503);
    assert!(full.headers.contains(&("Retry-After", "1".into())));
    // Half an hour on, A and D are abandoned (A the least recently used); B and C are not.
    let later = 5 + sessions::ABANDONED_AFTER.as_secs();
    s.at(later);
    assert!(matches!(s.open_session("E", json!({}), 0), Delivery::Answer(a) if a.status == 200));
    assert!(matches!(s.open_session("F", json!({}), 0), Delivery::Answer(a) if a.status == 200));
    assert!(matches!(s.open_session("G", json!({}), 0), Delivery::Answer(a) if a.status == 503));
    for (ticket, session, status) in [(10, "A", 404), (11, "D", 404), (12, "C", 200)] {
        s.post(
            ticket,
            session,
            r#"{"jsonrpc":"2.0","id":"l","method":"logging/setLevel","params":{"level":"info"}}"#,
            false,
        );
        assert!(
            text(&s.delivered(ticket as u32)[0]).starts_with(&status.to_string()),
            "{session}"
        );
    }
    // B's stream closes: B is idle from now on, and abandoned half an hour later.
    s.event(Event::Dropped { ticket: 1 });
    s.at(later + sessions::ABANDONED_AFTER.as_secs());
    assert!(matches!(s.open_session("G", json!({}), 0), Delivery::Answer(a) if a.status == 200));
    // Capabilities are bounded.
    let big = json!({"x": "y".repeat(sessions::MAX_CAPABILITIES)});
    assert!(matches!(s.open_session("H", big, 0), Delivery::Answer(a) if a.status == 400));
}

fn listen_id(text: &str) -> Id {
    let line = format!(r#"{{"jsonrpc":"2.0","id":{text},"method":"subscriptions/listen"}}"#);
    match message::parse(line.as_bytes()).unwrap().class {
        Class::Request { id, .. } => id,
        _ => panic!("a request"),
    }
}

#[test]
fn listen_streams_get_their_acknowledgement_then_tagged_changes_until_closed() {
    let mut s = Sim::new(config(&[]));
    let on = Filter {
        tools_list_changed: true,
        task_ids: None,
    };
    // Two clients may both use id 1.
    s.event(Event::Listen {
        ticket: 1,
        id: listen_id("1"),
        filter: on.clone(),
        peer: "p".into(),
        route: 1,
    });
    s.event(Event::Listen {
        ticket: 2,
        id: listen_id("1"),
        filter: on,
        peer: "p".into(),
        route: 2,
    });
    s.event(Event::Listen {
        ticket: 3,
        id: listen_id(r#""q""#),
        filter: Filter::default(),
        peer: "p".into(),
        route: 3,
    });
    let ack = r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#;
    assert_eq!(texts(&s.delivered(1)), ["opened", ack]);
    assert_eq!(texts(&s.delivered(2)), ["opened", ack]);
    assert_eq!(
        texts(&s.delivered(3)),
        [
            "opened",
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":"q"}}}"#
        ]
    );
    let changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    s.router_line(changed, None);
    let tagged = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#;
    assert_eq!(texts(&s.delivered(1)), [tagged]);
    assert_eq!(texts(&s.delivered(2)), [tagged]);
    assert!(s.delivered(3).is_empty());
    // A client closed its stream: forgotten, and nothing reaches the router for it.
    s.event(Event::Dropped { ticket: 2 });
    s.router_line(changed, None);
    assert_eq!(texts(&s.delivered(1)), [tagged]);
    assert!(s.got.is_empty());
    assert_eq!(s.c.streams.listening(), 2);
    assert!(s.router.is_empty());
}

#[test]
fn task_statuses_reach_the_streams_that_asked_starting_with_the_current_one() {
    let mut s = Sim::new(config(&[]));
    s.router_line(
        r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"working"}}"#,
        None,
    );
    let asks = |ids: &[&str]| Filter {
        tools_list_changed: false,
        task_ids: Some(ids.iter().map(|id| id.to_string()).collect()),
    };
    s.event(Event::Listen {
        ticket: 1,
        id: listen_id("1"),
        filter: asks(&["t1", "t9", "t1"]),
        peer: "p".into(),
        route: 1,
    });
    s.event(Event::Listen {
        ticket: 2,
        id: listen_id("2"),
        filter: asks(&["t2"]),
        peer: "p".into(),
        route: 2,
    });
    assert_eq!(
        texts(&s.delivered(1)),
        [
            "opened",
            r#"{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"taskIds":["t1"]},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"working","_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#
        ]
    );
    assert_eq!(s.delivered(2).len(), 2, "opened and its acknowledgement");
    s.router_line(
        r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed","result":{}}}"#,
        None,
    );
    assert_eq!(
        texts(&s.delivered(1)),
        [
            r#"{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed","result":{},"_meta":{"io.modelcontextprotocol/subscriptionId":1}}}"#
        ]
    );
    assert!(s.got.is_empty(), "t2 was never known");
}

#[test]
fn session_streams_take_lines_tied_to_no_request_and_a_new_get_replaces_the_old() {
    let mut s = Sim::new(config(&[]));
    s.open_session("A", json!({}), 0);
    s.event(Event::SessionStream {
        ticket: 1,
        session: "A".into(),
        version_ok: true,
        peer: "p".into(),
        route: 1,
    });
    assert_eq!(texts(&s.delivered(1)), ["opened"]);
    s.event(Event::SessionStream {
        ticket: 2,
        session: "nope".into(),
        version_ok: true,
        peer: "p".into(),
        route: 2,
    });
    assert!(text(&s.delivered(2)[0]).starts_with("404 "));
    let log =
        r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1}}"#;
    s.router_line(log, None);
    assert_eq!(texts(&s.delivered(1)), [log]);
    s.event(Event::SessionStream {
        ticket: 3,
        session: "A".into(),
        version_ok: true,
        peer: "p".into(),
        route: 3,
    });
    s.got.clear();
    s.router_line(log, None);
    assert_eq!(texts(&s.delivered(3)), [log]);
    assert!(s.delivered(1).is_empty(), "replaced");
    s.event(Event::CloseSession {
        session: "A".into(),
        route: 4,
    });
    assert_eq!(texts(&s.delivered(4)), ["200 "]);
    s.router_line(log, None);
    assert!(s.got.is_empty(), "the session and its stream ended");
}

/// A tool that reports progress every 20 s for 10 minutes finishes: the wait restarts with
/// each line and never cuts a call the router keeps alive.
#[test]
fn progress_keeps_a_long_call_waiting_past_the_idle_bound_and_silence_ends_it() {
    let mut s = Sim::new(config(&[]));
    s.forward(
        1,
        r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p"}}}"#,
        Some("slow"),
    );
    for n in 1..=30 {
        s.run_until(20 * n);
        let line = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":1,"progress":{n}}}}}"#
        );
        s.router_line(&line, None);
    }
    assert_eq!(s.delivered(1).len(), 30);
    s.run_until(620);
    s.router_line(r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#, None);
    assert_eq!(
        texts(&s.delivered(1)),
        [r#"{"jsonrpc":"2.0","id":"c","result":{"content":[]}}"#]
    );
    // A router silent past the idle bound: the client gets -32001 at 25 s, not before.
    s.forward(2, r#"{"jsonrpc":"2.0","id":"d","method":"ping"}"#, None);
    s.run_until(644);
    assert!(s.got.is_empty());
    s.run_until(645);
    assert_eq!(
        texts(&s.delivered(2)),
        [
            r#"{"jsonrpc":"2.0","id":"d","error":{"code":-32001,"message":"Request timed out: the device did not answer"}}"#
        ]
    );
    assert_eq!(s.c.in_flight(), 0);
    assert_eq!(s.c.poll_timeout(), None, "no timer is left behind");
}

const ASKS: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"approval":{"method":"elicitation/create","params":{"mode":"form","message":"m","requestedSchema":{"type":"object"}}}},"requestState":"s"}}"#;

#[test]
fn a_session_call_asks_on_its_stream_and_every_round_keeps_its_ticket() {
    let mut s = Sim::new(config(&[]));
    s.open_session("A", json!({"elicitation": {}}), 0);
    s.post(
        1,
        "A",
        r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"set_relay","arguments":{"relay":1,"on":true}}}"#,
        true,
    );
    let first: Value = serde_json::from_str(&s.router.remove(0)).unwrap();
    assert_eq!(first["id"], 1);
    assert_eq!(
        first["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    s.router_line(ASKS, None);
    assert_eq!(
        texts(&s.delivered(1)),
        [
            r#"{"id":"embedded-mcp-bridge-input-1","jsonrpc":"2.0","method":"elicitation/create","params":{"message":"m","mode":"form","requestedSchema":{"type":"object"}}}"#
        ]
    );
    // A response to nothing the shim asked is not the shim's (and gets 202 all the same).
    s.post(2, "A", r#"{"jsonrpc":"2.0","id":"x","result":{}}"#, false);
    assert_eq!(texts(&s.delivered(2)), ["202 "]);
    assert!(s.router.is_empty());
    s.post(
        3,
        "A",
        r#"{"jsonrpc":"2.0","id":"embedded-mcp-bridge-input-1","result":{"action":"accept","content":{"approve":true}}}"#,
        false,
    );
    let second: Value = serde_json::from_str(&s.router.remove(0)).unwrap();
    assert_eq!(second["id"], 1, "the same ticket");
    assert_eq!(second["params"]["requestState"], "s");
    assert_eq!(
        second["params"]["inputResponses"]["approval"]["action"],
        "accept"
    );
    s.router_line(
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"resultType":"complete"}}"#,
        None,
    );
    assert_eq!(
        texts(&s.delivered(1)),
        [r#"{"jsonrpc":"2.0","id":"c","result":{"content":[]}}"#]
    );
    assert_eq!(s.c.in_flight(), 0);
}

#[test]
fn a_session_that_cancels_while_the_person_thinks_gets_its_question_withdrawn() {
    let mut s = Sim::new(config(&[]));
    s.open_session("A", json!({"elicitation": {}}), 0);
    s.post(
        1,
        "A",
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"set_relay","arguments":{}}}"#,
        true,
    );
    s.router.clear();
    s.router_line(ASKS, None);
    assert_eq!(s.delivered(1).len(), 1, "the question");
    s.post(
        2,
        "A",
        r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"user"}}"#,
        false,
    );
    let withdrawn = texts(&s.delivered(1));
    assert_eq!(withdrawn.len(), 1);
    assert!(withdrawn[0].contains(r#""requestId":"embedded-mcp-bridge-input-1""#));
    assert!(s.router.is_empty(), "nothing is on the device");
    assert_eq!(s.c.in_flight(), 0);
}

/// A person who never answers: the call's wait holds past the router's silence bound until the
/// person's deadline, and then, not a moment later, the shim answers the call.
#[test]
fn a_person_who_never_answers_gets_the_call_answered_at_the_input_timeout() {
    let mut s = Sim::new(config(&[]));
    s.open_session("A", json!({"elicitation": {}}), 0);
    s.post(
        1,
        "A",
        r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"set_relay","arguments":{}}}"#,
        true,
    );
    s.router_line(ASKS, None);
    assert_eq!(s.delivered(1).len(), 1, "the question");
    s.run_until(119);
    assert!(
        s.got.is_empty(),
        "past the 25 s silence, the person still has time"
    );
    s.run_until(120);
    let got = texts(&s.delivered(1));
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[0].starts_with(r#"{"jsonrpc":"2.0","method":"notifications/cancelled""#));
    let answer: Value = serde_json::from_str(&got[1]).unwrap();
    assert_eq!(answer["id"], "c");
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert_eq!(s.c.in_flight(), 0);
}

#[test]
fn a_client_that_goes_away_cancels_a_stateless_call_and_forgets_a_session_one() {
    let mut s = Sim::new(config(&[]));
    s.forward(
        1,
        r#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"x"}}"#,
        Some("x"),
    );
    s.router.clear();
    s.event(Event::Dropped { ticket: 1 });
    assert_eq!(
        s.router,
        [
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"the client closed the stream"}}"#
        ]
    );
    s.open_session("A", json!({}), 0);
    s.post(
        2,
        "A",
        r#"{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"x"}}"#,
        false,
    );
    s.router.clear();
    s.event(Event::Dropped { ticket: 2 });
    assert!(s.router.is_empty());
    assert_eq!(s.c.in_flight(), 0);
    assert_eq!(s.c.poll_timeout(), None);
}

#[test]
fn streams_are_bounded_per_client_apart_from_requests_and_closing_one_frees_its_place() {
    let mut cfg = config(&[]);
    cfg.limits = admission::Limits {
        requests_per_client: 2,
        requests: 10,
        streams_per_client: 2,
        streams: 3,
    };
    let mut s = Sim::new(cfg);
    let listen = |s: &mut Sim, ticket: u64, peer: &str| {
        s.event(Event::Listen {
            ticket,
            id: listen_id("1"),
            filter: Filter::default(),
            peer: peer.into(),
            route: ticket as u32,
        });
        text(&s.delivered(ticket as u32)[0])
    };
    assert_eq!(listen(&mut s, 1, "x"), "opened");
    assert_eq!(listen(&mut s, 2, "x"), "opened");
    assert!(
        listen(&mut s, 3, "x").starts_with("429 "),
        "x holds its two"
    );
    // A stream never takes a request's place: x's calls still go.
    s.forward(4, r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, None);
    s.forward(5, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#, None);
    assert_eq!(s.router.len(), 2);
    // ...within their own bound ("p" is the harness's client).
    s.forward(6, r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#, None);
    assert!(text(&s.delivered(6)[0]).starts_with("429 "));
    // Another client gets the last stream of all; then everyone is turned away (503).
    s.open_session("S", json!({}), 0);
    s.event(Event::SessionStream {
        ticket: 7,
        session: "S".into(),
        version_ok: true,
        peer: "y".into(),
        route: 7,
    });
    assert_eq!(texts(&s.delivered(7)), ["opened"]);
    assert!(listen(&mut s, 8, "z").starts_with("503 "));
    // x closes one: z may open one.
    s.event(Event::Dropped { ticket: 1 });
    assert_eq!(listen(&mut s, 9, "z"), "opened");
    // The session's stream is replaced by its next GET without counting twice.
    s.event(Event::SessionStream {
        ticket: 10,
        session: "S".into(),
        version_ok: true,
        peer: "y".into(),
        route: 10,
    });
    assert_eq!(texts(&s.delivered(10)), ["opened"]);
    assert_eq!(s.c.admission.streams(), 3);
    // Ending the session ends its stream.
    s.event(Event::CloseSession {
        session: "S".into(),
        route: 11,
    });
    assert_eq!(s.c.admission.streams(), 2);
}
