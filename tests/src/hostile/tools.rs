//! MCP `tools/call` and friends at 2026-07-28, before any handshake.

use super::*;

/// Appends this part of the corpus to `c`, in order.
pub(super) fn push(c: &mut Vec<Case>) {
    c.push(Case::new(
        "call_without_meta_or_session",
        req("90", "tools/call", "\"name\":\"set_led\",\"arguments\":{}"),
        vec![error(Some("90"), -32602, MISSING_META)],
    ));
    c.push(Case::new(
        "call_without_name",
        req("91", "tools/call", META),
        vec![error(Some("91"), -32602, NAME_NOT_STRING)],
    ));
    c.push(Case::new(
        "call_with_numeric_name",
        req("92", "tools/call", &format!("{META},\"name\":42")),
        vec![error(Some("92"), -32602, NAME_NOT_STRING)],
    ));
    c.push(Case::new(
        "call_unknown_tool",
        call("93", "self_destruct", "{}"),
        vec![error(Some("93"), -32602, "Unknown tool: self_destruct")],
    ));
    {
        let name = "t".repeat(200);
        c.push(Case::new(
            "call_tool_name_of_200_characters",
            call("94", &name, "{}"),
            vec![error(Some("94"), -32602, "Unknown tool")],
        ));
    }
    c.push(Case::new(
        "call_tool_name_with_escapes",
        call("95", "set\\u005fled", r#"{"led":"red","brightness":11}"#),
        vec![led("95", "red", 11, 10)],
    ));
    c.push(Case::new(
        "call_tool_name_with_quote_is_not_echoed_raw",
        call("96", "a\\\"b", "{}"),
        vec![error(Some("96"), -32602, "Unknown tool")],
    ));
    for (name, args, id) in [
        ("arguments_array", "[1]", "97"),
        ("arguments_string", "\"x\"", "98"),
        ("arguments_null", "null", "99"),
        ("arguments_number", "7", "100"),
        ("arguments_boolean", "true", "101"),
    ] {
        c.push(Case::new(
            name,
            call(id, "set_led", args),
            vec![error(Some(id), -32602, ARGS_NOT_OBJECT)],
        ));
    }
    c.push(Case::new(
        "arguments_missing_required",
        call("102", "set_led", r#"{"led":"red"}"#),
        vec![bad_args(
            "102",
            "set_led",
            "(root): missing required property \"brightness\"",
        )],
    ));
    c.push(Case::new(
        "arguments_out_of_range",
        call("103", "set_led", r#"{"led":"red","brightness":101}"#),
        vec![bad_args(
            "103",
            "set_led",
            "/brightness: 101 is greater than the maximum 100",
        )],
    ));
    c.push(Case::new(
        "arguments_wrong_type",
        call("104", "set_led", r#"{"led":"red","brightness":"50"}"#),
        vec![bad_args(
            "104",
            "set_led",
            "/brightness: \"50\" is not of type integer",
        )],
    ));
    c.push(Case::new(
        "arguments_not_in_enum",
        call("105", "set_led", r#"{"led":"purple","brightness":5}"#),
        vec![bad_args(
            "105",
            "set_led",
            "/led: \"purple\" is not one of the enum values",
        )],
    ));
    c.push(Case::new(
        "arguments_extra_property",
        call(
            "106",
            "set_led",
            r#"{"led":"red","brightness":5,"power":9000}"#,
        ),
        vec![bad_args(
            "106",
            "set_led",
            "(root): property \"power\" not allowed (additionalProperties)",
        )],
    ));
    c.push(Case::new(
        "arguments_deeply_nested_value",
        call(
            "107",
            "set_led",
            &format!(
                "{{\"led\":\"red\",\"brightness\":5,\"x\":{}}}",
                nested(10, "")
            ),
        ),
        vec![bad_args(
            "107",
            "set_led",
            "(root): property \"x\" not allowed (additionalProperties)",
        )],
    ));
    c.push(Case::new(
        "arguments_for_a_tool_without_arguments",
        call("108", "device_info", r#"{"verbose":true}"#),
        vec![bad_args(
            "108",
            "device_info",
            "(root): property \"verbose\" not allowed (additionalProperties)",
        )],
    ));
    c.push(Case::new(
        "valid_call_after_all_that",
        call("109", "set_led", r#"{"led":"red","brightness":12}"#),
        vec![led("109", "red", 12, 11)],
    ));
    c.push(Case::new(
        "temperature_read",
        call("110", "read_temperature", r#"{"sensor":1}"#),
        vec![structured(
            "110",
            "{\"value\":{NUM},\"unit\":\"°C\",\"sensorId\":\"tmp-ambient\",\"sample\":1}",
        )],
    ));
    c.push(Case::new(
        "unsupported_protocol_version",
        req(
            "111",
            "tools/list",
            "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\",\"io.modelcontextprotocol/clientCapabilities\":{}}",
        ),
        vec![Reply("{\"jsonrpc\":\"2.0\",\"id\":111,\"error\":{\"code\":-32022,\"message\":\"Unsupported protocol version\",\"data\":{\"supported\":[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\"],\"requested\":\"1999-01-01\"}}}".into())],
    ));
    c.push(Case::new(
        "unsupported_protocol_version_of_300_bytes",
        req(
            "112",
            "tools/list",
            &format!("\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"{}\",\"io.modelcontextprotocol/clientCapabilities\":{{}}}}", "v".repeat(300)),
        ),
        vec![Reply(format!("{{\"jsonrpc\":\"2.0\",\"id\":112,\"error\":{{\"code\":-32022,\"message\":\"Unsupported protocol version\",\"data\":{{\"supported\":[\"2026-07-28\",\"2025-11-25\",\"2025-06-18\"],\"requested\":\"{}\"}}}}}}", "v".repeat(64)))],
    ));
    c.push(Case::new(
        "protocol_version_not_a_string",
        req(
            "113",
            "tools/list",
            "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":20260728,\"io.modelcontextprotocol/clientCapabilities\":{}}",
        ),
        vec![error(
            Some("113"),
            -32602,
            "Invalid params: _meta[\"io.modelcontextprotocol/protocolVersion\"] must be a string",
        )],
    ));
    c.push(Case::new(
        "client_capabilities_missing",
        req(
            "114",
            "tools/list",
            "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}",
        ),
        vec![error(
            Some("114"),
            -32602,
            "Invalid params: _meta[\"io.modelcontextprotocol/clientCapabilities\"] is required",
        )],
    ));
    c.push(Case::new(
        "meta_not_an_object",
        req("115", "tools/call", "\"_meta\":[1],\"name\":\"set_led\""),
        vec![error(Some("115"), -32602, MISSING_META)],
    ));
    c.push(Case::new(
        "ping_in_2026",
        req("116", "ping", META),
        vec![error(
            Some("116"),
            -32601,
            "Method not found: ping does not exist in 2026-07-28",
        )],
    ));
    c.push(Case::new(
        "discover_without_meta",
        req("117", "server/discover", ""),
        vec![error(Some("117"), -32602, MISSING_META)],
    ));
    c.push(Case::new(
        "list_with_random_cursor",
        req(
            "118",
            "tools/list",
            &format!("{META},\"cursor\":\"0123456789ab\""),
        ),
        vec![error(Some("118"), -32602, "Invalid cursor")],
    ));
    c.push(Case::new(
        "list_with_numeric_cursor",
        req("119", "tools/list", &format!("{META},\"cursor\":7")),
        vec![error(Some("119"), -32602, "Invalid cursor")],
    ));
    c.push(Case::new(
        "list_with_huge_cursor",
        req(
            "120",
            "tools/list",
            &format!("{META},\"cursor\":\"{}\"", "f".repeat(300)),
        ),
        vec![error(Some("120"), -32602, "Invalid cursor")],
    ));
}
