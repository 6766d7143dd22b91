//! The legacy handshake (the session is legacy from here on).

use super::*;

/// Appends this part of the corpus to `c`, in order.
pub(super) fn push(c: &mut Vec<Case>) {
    let ping = |id: &str| req(id, "ping", "");
    c.push(Case::new(
        "initialize_with_numeric_version",
        req("121", "initialize", "\"protocolVersion\":2025,\"capabilities\":{},\"clientInfo\":{\"name\":\"h\",\"version\":\"1\"}"),
        vec![error(
            Some("121"),
            -32602,
            "Invalid params: \"protocolVersion\" must be a string",
        )],
    ));
    c.push(Case::new(
        "initialize_with_unknown_version",
        req("122", "initialize", "\"protocolVersion\":\"1.0\",\"capabilities\":{},\"clientInfo\":{\"name\":\"h\",\"version\":\"1\"}"),
        vec![Reply(
            "{\"jsonrpc\":\"2.0\",\"id\":122,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{\"listChanged\":false},\"logging\":{}},\"serverInfo\":{\"name\":\"qemu-sensors\",\"version\":\"0.1.0\",\"title\":\"QEMU sensor board\",\"description\":\"Simulated sensors and an RGB LED on an LM3S6965 (Cortex-M3) under QEMU\"},\"instructions\":\"Sensor values are simulated: deterministic sequences that change on every call.\"}}"
                .into(),
        )],
    ));
    c.push(Case::new(
        "legacy_call_with_array_output_is_wrapped",
        req(
            "123",
            "tools/call",
            "\"name\":\"read_acceleration\"",
        ),
        vec![Reply("{\"jsonrpc\":\"2.0\",\"id\":123,\"result\":{\"structuredContent\":{\"result\":[{NUM},{NUM},{NUM}]},\"content\":[{\"type\":\"text\",\"text\":\"{\\\"result\\\":[{NUM},{NUM},{NUM}]}\"}]}}".into())],
    ));
    c.push(Case::new(
        "legacy_call_bad_arguments",
        req(
            "124",
            "tools/call",
            "\"name\":\"set_led\",\"arguments\":{\"led\":\"red\",\"brightness\":-1}",
        ),
        vec![Reply("{\"jsonrpc\":\"2.0\",\"id\":124,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Invalid arguments for tool set_led: /brightness: -1 is less than the minimum 0\"}],\"isError\":true}}".into())],
    ));
    c.push(Case::new(
        "legacy_ping_after_garbage_handshake",
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":\"x\"}}\n{}",
            ping("125")
        ),
        vec![pong("125")],
    ));
}
