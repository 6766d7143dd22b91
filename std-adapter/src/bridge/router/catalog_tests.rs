//! The device's one tool catalog, under simulated time: filled once, renewed on
//! `list_changed` and on a reconnect, and a tool it does not know costs one listing however
//! many need it.

use std::time::Duration;

use super::Router;
use crate::bridge::catalog::ToolsView;
use crate::bridge::machine::LinkEvent;
use crate::bridge::sim::{config, quiet, Sim};
use crate::bridge::BridgeConfig;

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}"#;
const INIT_ANSWER: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"d","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LIST_CHANGED: &str = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;

/// The device's answer to `tools/list` `id` (exact id text): tools `names`, each with an output
/// schema that asks for a number `v`.
fn listed(id: &str, names: &[&str]) -> String {
    let tools: Vec<String> = names
        .iter()
        .map(|n| {
            format!(
                r#"{{"name":"{n}","inputSchema":{{"type":"object"}},"outputSchema":{{"type":"object","properties":{{"v":{{"type":"number"}}}},"required":["v"]}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"tools":[{}]}}}}"#,
        tools.join(",")
    )
}

fn call(id: u32, tool: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"{tool}","arguments":{{}}}}}}"#
    )
}

fn result(id: u32, v: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"structuredContent":{{"v":{v}}}}}}}"#
    )
}

/// How many `tools/list` requests `lines` (written to the device) hold.
fn lists(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| l.contains(r#""method":"tools/list""#))
        .count()
}

/// The last catalog the router published.
fn last(sim: &Sim<Router>) -> ToolsView {
    sim.tools.last().cloned().unwrap_or_default()
}

/// A router whose first link is open, the host's handshake done.
fn initialized(cfg: BridgeConfig) -> Sim<Router> {
    let mut sim = Sim::new(|now| Router::new(cfg, quiet(), false, now));
    sim.link(0, LinkEvent::Opened { gen: 1 });
    sim.host_line(INIT);
    sim.device_line(0, 1, INIT_ANSWER);
    sim.host_line(INITIALIZED);
    sim
}

#[test]
fn the_hosts_listing_fills_the_catalog_once_for_every_reader() {
    let mut sim = initialized(config());
    sim.host_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    sim.device_line(0, 1, &listed("1", &["t"]));
    assert_eq!(last(&sim).tool("t").unwrap()["name"], "t");
    assert!(last(&sim).settled());
    for id in 2..6 {
        sim.host_line(&call(id, "t"));
        sim.device_line(0, 1, &result(id, "1"));
    }
    // A result breaking the schema is caught from the same catalog.
    sim.host_line(&call(6, "t"));
    sim.device_line(0, 1, &result(6, "\"x\""));
    let host = sim.host_out();
    assert!(
        host.last().unwrap().contains(r#""isError":true"#),
        "{host:?}"
    );
    assert_eq!(lists(&sim.device_out()), 1, "one listing, the host's");
}

#[test]
fn a_tool_unknown_to_the_catalog_costs_one_listing_whoever_needs_it() {
    let mut sim = initialized(config());
    sim.device_out();
    sim.host_out();
    sim.host_line(&call(7, "a"));
    sim.host_line(&call(8, "b"));
    sim.device_line(0, 1, &result(7, "1"));
    sim.device_line(0, 1, &result(8, "\"x\""));
    assert!(sim.host_out().is_empty(), "both results wait for the list");
    assert!(!last(&sim).settled(), "a listing is under way");
    let out = sim.device_out();
    assert_eq!(lists(&out), 1, "{out:?}");
    assert_eq!(
        out.last().unwrap(),
        r#"{"id":"embedded-mcp-bridge-1","jsonrpc":"2.0","method":"tools/list","params":{}}"#
    );
    sim.device_line(0, 1, &listed(r#""embedded-mcp-bridge-1""#, &["a", "b"]));
    let host = sim.host_out();
    assert_eq!(host[0], result(7, "1"));
    assert!(host[1].contains(r#""isError":true"#), "{host:?}");
    // Known now: later calls list nothing.
    sim.host_line(&call(9, "b"));
    sim.device_line(0, 1, &result(9, "2"));
    // A tool the complete list does not have is passed unchecked, without listing again.
    sim.host_line(&call(10, "zz"));
    sim.device_line(0, 1, &result(10, "2"));
    assert_eq!(sim.host_out(), vec![result(9, "2"), result(10, "2")]);
    assert_eq!(lists(&sim.device_out()), 0);
}

#[test]
fn a_kept_catalog_is_listed_after_the_handshake_and_renewed_on_list_changed_and_on_reconnect() {
    let mut cfg = config();
    cfg.keep_catalog = true;
    let mut sim = initialized(cfg);
    let bridge_list = |n: u32| {
        format!(
            r#"{{"id":"embedded-mcp-bridge-{n}","jsonrpc":"2.0","method":"tools/list","params":{{}}}}"#
        )
    };
    // The initialize, then the host's initialized, then the bridge's one listing.
    let out = sim.device_out();
    assert_eq!(out[1..], [INITIALIZED.to_string(), bridge_list(1)]);
    assert!(!last(&sim).settled(), "a listing is under way");
    sim.device_line(0, 1, &listed(r#""embedded-mcp-bridge-1""#, &["a"]));
    assert!(last(&sim).tool("a").is_some() && last(&sim).settled());
    assert!(
        sim.host_out().len() == 1,
        "the host sees its initialize only"
    );

    // The device's list changed: listed again once; the old tools serve until then.
    sim.advance(Duration::from_millis(50));
    sim.device_line(0, 1, LIST_CHANGED);
    assert_eq!(sim.device_out(), vec![bridge_list(2)]);
    assert_eq!(sim.host_out(), vec![LIST_CHANGED.to_string()]);
    assert!(last(&sim).tool("a").is_some());
    sim.host_line(&call(3, "a"));
    sim.device_line(0, 1, &listed(r#""embedded-mcp-bridge-2""#, &["b"]));
    assert!(last(&sim).tool("a").is_none() && last(&sim).tool("b").is_some());
    assert!(last(&sim).settled());
    // The call's answer, after the renewal, is not held: `a` is no longer listed.
    sim.device_line(0, 1, &result(3, "\"x\""));
    assert_eq!(sim.host_out(), vec![result(3, "\"x\"")]);
    sim.device_out();

    // A reconnect: listed again once the handshake is replayed.
    sim.link(
        0,
        LinkEvent::Closed {
            gen: 1,
            why: "reset".into(),
        },
    );
    sim.link(0, LinkEvent::Opened { gen: 2 });
    let replay = sim.device_out();
    assert_eq!(lists(&replay), 0, "not before the handshake: {replay:?}");
    sim.device_line(
        0,
        2,
        &INIT_ANSWER.replace(r#""id":0"#, r#""id":"embedded-mcp-bridge-3""#),
    );
    assert_eq!(
        sim.device_out(),
        vec![INITIALIZED.to_string(), bridge_list(4)]
    );
    sim.device_line(0, 2, &listed(r#""embedded-mcp-bridge-4""#, &["c"]));
    assert!(last(&sim).tool("c").is_some() && last(&sim).tool("b").is_none());
    assert!(last(&sim).settled());
    // Calls read the catalog; nothing more is listed.
    sim.host_line(&call(5, "c"));
    sim.device_line(0, 2, &result(5, "1"));
    assert_eq!(lists(&sim.device_out()), 0);
}
