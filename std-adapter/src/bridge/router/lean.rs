//! The router's hooks of the lean hop ([`crate::bridge::lean_hop`]): requests edited as they
//! are written to the device, lean results restored as they come back.

use serde_json::Value;

use super::flight::Pending;
use super::Router;
use crate::bridge::lean_hop::{self, Hop};
use crate::bridge::message::method;

/// What the lean hop knows of the link.
#[derive(Default)]
pub(super) struct LeanLink {
    /// The link generation that has had the client's info (it goes once a link).
    client_info_on: Option<u64>,
}

impl Router {
    /// `line`, to be written on link `gen`, as the lean hop sends it (as it is when the hop is
    /// off or the line is not a request it edits). A `tools/call` keeps the host's capabilities
    /// a device may ask with (`elicitation`, `sampling`, `roots`): a tool may read them to decide
    /// whether and how to ask a person (MCP 2026-07-28 asks a server to send only the input
    /// requests its client declared), so leaving them out could change what the device does.
    pub(super) fn lean_for_device(&mut self, line: Vec<u8>, gen: u64) -> Vec<u8> {
        if !self.cfg.lean_hop {
            return line;
        }
        let hop = Hop {
            client_info: self.lean.client_info_on != Some(gen),
            call_capabilities: true,
        };
        let edit = lean_hop::for_device(&line, hop);
        if edit.client_info {
            self.lean.client_info_on = Some(gen);
        }
        edit.line.unwrap_or(line)
    }

    /// The device's answer to `p` as the host must see it: a lean `tools/call` result gets its
    /// `content` back.
    pub(super) fn lean_for_host(
        &mut self,
        p: Pending,
        line: Vec<u8>,
        value: Value,
    ) -> Option<(Pending, Vec<u8>, Value)> {
        if !self.cfg.lean_hop || p.method != method::TOOLS_CALL {
            return Some((p, line, value));
        }
        // The device had the call in its 2026-07-28 form (a shim call's rounds too).
        let stateless = p.version.is_some();
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
        // Of the capabilities, those a device may ask with stay (`experimental` goes).
        assert_eq!(sim.device_out(), vec![sent(1, info)]);
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
        assert_eq!(sim.device_out(), vec![sent(2, "")]);
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
        assert_eq!(sim.device_out(), vec![sent(3, info)]);
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
