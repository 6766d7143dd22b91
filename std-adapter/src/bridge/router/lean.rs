//! The router's hooks of the lean hop ([`crate::bridge::lean_hop`]): requests edited as they
//! are written to the device, lean results restored as they come back.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::flight::Pending;
use super::Router;
use crate::bridge::lean_hop::{self, Hop};
use crate::bridge::message::{method, MISSING_CLIENT_CAPABILITY};

/// Calls remembered for a second sending at most; beyond, those no longer in flight go.
const REMEMBERED: usize = 64;

/// What the lean hop knows of the link and the device's tools.
#[derive(Default)]
pub(super) struct LeanLink {
    /// The link generation that has had the client's info (it goes once a link).
    client_info_on: Option<u64>,
    /// Tools that needed a client capability (they answered -32021 without): their calls keep
    /// the host's capabilities.
    asking_tools: HashSet<String>,
    /// The host's lines of calls sent without its capabilities, by request key: sent again
    /// with them if the device answers -32021.
    without_capabilities: HashMap<String, Vec<u8>>,
}

impl Router {
    /// `line`, to be written on link `gen` for request `key`, as the lean hop sends it (as it
    /// is when the hop is off or the line is not a request it edits).
    pub(super) fn lean_for_device(
        &mut self,
        line: Vec<u8>,
        gen: u64,
        key: Option<&str>,
    ) -> Vec<u8> {
        if !self.cfg.lean_hop {
            return line;
        }
        let tool = key
            .and_then(|k| self.flight.pending.get(k))
            .and_then(|p| p.tool.as_deref());
        let hop = Hop {
            client_info: self.lean.client_info_on != Some(gen),
            call_capabilities: tool.is_some_and(|t| self.lean.asking_tools.contains(t)),
        };
        let edit = lean_hop::for_device(&line, hop);
        if edit.client_info {
            self.lean.client_info_on = Some(gen);
        }
        let Some(edited) = edit.line else {
            return line;
        };
        if let (true, Some(key)) = (edit.capabilities_left_out, key) {
            let remembered = &mut self.lean.without_capabilities;
            if remembered.len() >= REMEMBERED {
                remembered.retain(|k, _| self.flight.pending.contains_key(k));
            }
            remembered.insert(key.to_owned(), line);
        }
        edited
    }

    /// The device's answer to `p` as the host must see it: a lean `tools/call` result gets its
    /// `content` back. `None` when the call went to the device again: it had been sent without
    /// the host's capabilities and the device needs one (-32021).
    pub(super) fn lean_for_host(
        &mut self,
        p: Pending,
        line: Vec<u8>,
        value: Value,
    ) -> Option<(Pending, Vec<u8>, Value)> {
        if !self.cfg.lean_hop || p.method != method::TOOLS_CALL {
            return Some((p, line, value));
        }
        let without = self.lean.without_capabilities.remove(&p.id.key);
        let code = value.pointer("/error/code").and_then(Value::as_i64);
        if let (Some(host_line), Some(MISSING_CLIENT_CAPABILITY)) = (without, code) {
            if let Some(tool) = &p.tool {
                self.lean.asking_tools.insert(tool.clone());
            }
            let key = p.id.key.clone();
            self.flight.pending.insert(key.clone(), p);
            self.send_now(host_line, Some(key));
            return None;
        }
        // The device had the call in its 2026-07-28 form (a shim call too).
        let stateless = p.version.is_some() || p.shim;
        match lean_hop::restore_for_host(&line, stateless) {
            Some(full) => {
                let value = serde_json::from_slice(&full).unwrap_or(value);
                Some((p, full, value))
            }
            None => Some((p, line, value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::bridge::machine::LinkEvent;
    use crate::bridge::router::Router;
    use crate::bridge::sim::{config, quiet, Sim};
    use crate::bridge::OnInvalid;

    /// A router with the lean hop on (results unchecked: no tool list here), link 1 open.
    fn lean_router() -> Sim<Router> {
        let mut cfg = config();
        cfg.lean_hop = true;
        cfg.on_invalid = OnInvalid::Pass;
        let mut sim = Sim::new(|now| Router::new(cfg, quiet(), false, now));
        sim.link(0, LinkEvent::Opened { gen: 1 });
        sim
    }

    fn sdk_call(id: u32) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"sdk","version":"1"}},"io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}},"experimental":{{}}}}}},"name":"t","arguments":{{"x":1}}}}}}"#
        )
    }

    fn sent(id: u32, info: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28",{info}"io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}}}},"embedded-mcp/lean":true}},"name":"t","arguments":{{"x":1}}}}}}"#
        )
    }

    #[test]
    fn a_2026_call_goes_lean_and_its_host_sees_the_whole_result() {
        let mut sim = lean_router();
        sim.host_line(&sdk_call(1));
        let info = r#""io.modelcontextprotocol/clientInfo":{"name":"sdk","version":"1"},"#;
        let no_caps = |line: String| {
            line.replace(
                r#""io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"#,
                "",
            )
        };
        assert_eq!(sim.device_out(), vec![no_caps(sent(1, info))]);
        sim.device_line(
            0,
            1,
            r#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"c":"a\"b"}}}"#,
        );
        assert_eq!(
            sim.host_out(),
            vec![
                r#"{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"c":"a\"b"},"content":[{"type":"text","text":"{\"c\":\"a\\\"b\"}"}],"resultType":"complete"}}"#
            ]
        );
        // The client's info went once on this link; a new link gets it again.
        sim.host_line(&sdk_call(2));
        assert_eq!(sim.device_out(), vec![no_caps(sent(2, ""))]);
        sim.link(
            0,
            LinkEvent::Closed {
                gen: 1,
                why: "reset".into(),
            },
        );
        sim.host_out();
        sim.advance(std::time::Duration::from_secs(5));
        sim.link(0, LinkEvent::Opened { gen: 2 });
        sim.host_line(&sdk_call(3));
        assert_eq!(sim.device_out(), vec![no_caps(sent(3, info))]);
    }

    #[test]
    fn a_tool_that_needs_a_capability_gets_its_call_again_with_them_and_keeps_them() {
        let mut sim = lean_router();
        let call = |id: u32| sdk_call(id).replace(r#""name":"t""#, r#""name":"ask""#);
        let without = |id: u32| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","embedded-mcp/lean":true}},"name":"ask","arguments":{{"x":1}}}}}}"#
            )
        };
        let with = |id: u32| sent(id, "").replace(r#""name":"t""#, r#""name":"ask""#);
        sim.host_line(&call(1));
        let first = sim.device_out();
        assert_eq!(first.len(), 1);
        assert!(first[0].contains("clientInfo") && !first[0].contains("Capabilities"));
        let missing = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"Missing capability","data":{"requiredCapabilities":{"elicitation":{}}}}}"#;
        sim.device_line(0, 1, missing);
        assert_eq!(sim.host_out(), Vec::<String>::new());
        assert_eq!(sim.device_out(), vec![with(1)]);
        // Answered -32021 again (the host lacks it): the host gets the device's error.
        sim.device_line(0, 1, missing);
        assert_eq!(sim.host_out(), vec![missing]);
        // From now on the tool's calls carry the capabilities; other tools' do not.
        sim.host_line(&call(2));
        assert_eq!(sim.device_out(), vec![with(2)]);
        sim.host_line(&sdk_call(3));
        assert_eq!(sim.device_out(), vec![without(3).replace("ask", "t")]);
    }

    #[test]
    fn a_device_that_sends_the_whole_result_is_passed_as_it_is() {
        let mut sim = lean_router();
        sim.host_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#);
        assert_eq!(
            sim.device_out(),
            vec![
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"embedded-mcp/lean":true},"name":"t"}}"#
            ]
        );
        let whole =
            r#"{"jsonrpc":"2.0","id":1,"result":{ "structuredContent":{"t":1.50},"content":[]}}"#;
        sim.device_line(0, 1, whole);
        assert_eq!(sim.host_out(), vec![whole]);
    }
}
