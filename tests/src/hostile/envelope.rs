//! The JSON-RPC envelope: versions, ids, methods, params.

use super::*;

/// Appends this part of the corpus to `c`, in order.
pub(super) fn push(c: &mut Vec<Case>) {
    let ping = |id: &str| req(id, "ping", "");
    c.push(Case::new(
        "batch_array",
        format!("[{}]\n", ping("60").trim_end()),
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "empty_array",
        "[]\n",
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "number_message",
        "42\n",
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "string_message",
        "\"ping\"\n",
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "null_message",
        "null\n",
        vec![invalid(None, NOT_OBJECT)],
    ));
    c.push(Case::new(
        "empty_object",
        "{}\n",
        vec![invalid(None, NO_METHOD)],
    ));
    c.push(Case::new(
        "null_id",
        ping("null"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "float_id",
        ping("1.5"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "integral_float_id",
        ping("2.0"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "exponent_id",
        ping("1e3"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "object_id",
        ping(r#"{"a":1}"#),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "array_id",
        ping("[1]"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "boolean_id",
        ping("true"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new(
        "empty_string_id",
        ping("\"\""),
        vec![pong("\"\"")],
    ));
    {
        let id = format!("\"{}\"", "i".repeat(126));
        assert_eq!(id.len(), 128);
        c.push(Case::new("id_of_128_bytes", ping(&id), vec![pong(&id)]));
        let id = format!("\"{}\"", "i".repeat(127));
        c.push(Case::new(
            "id_of_129_bytes",
            ping(&id),
            vec![invalid(None, ID_TOO_LONG)],
        ));
        let id = format!("\"{}\"", "j".repeat(300));
        c.push(Case::new(
            "id_of_300_bytes",
            ping(&id),
            vec![invalid(None, ID_TOO_LONG)],
        ));
    }
    c.push(Case::new(
        "missing_jsonrpc",
        "{\"id\":61,\"method\":\"ping\"}\n",
        vec![invalid(Some("61"), BAD_VERSION)],
    ));
    c.push(Case::new(
        "jsonrpc_1_0",
        "{\"jsonrpc\":\"1.0\",\"id\":62,\"method\":\"ping\"}\n",
        vec![invalid(Some("62"), BAD_VERSION)],
    ));
    c.push(Case::new(
        "jsonrpc_as_number",
        "{\"jsonrpc\":2.0,\"id\":63,\"method\":\"ping\"}\n",
        vec![invalid(Some("63"), BAD_VERSION)],
    ));
    c.push(Case::new(
        "jsonrpc_null",
        "{\"jsonrpc\":null,\"id\":64,\"method\":\"ping\"}\n",
        vec![invalid(Some("64"), BAD_VERSION)],
    ));
    c.push(Case::new(
        "jsonrpc_with_trailing_space",
        "{\"jsonrpc\":\"2.0 \",\"id\":65,\"method\":\"ping\"}\n",
        vec![invalid(Some("65"), BAD_VERSION)],
    ));
    for (name, method, id) in [
        ("method_number", "42", "66"),
        ("method_null", "null", "67"),
        ("method_object", "{\"name\":\"ping\"}", "68"),
        ("method_array", "[\"ping\"]", "69"),
        ("method_boolean", "false", "70"),
    ] {
        c.push(Case::new(
            name,
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":{method}}}\n"),
            vec![invalid(Some(id), METHOD_NOT_STRING)],
        ));
    }
    c.push(Case::new(
        "method_missing",
        "{\"jsonrpc\":\"2.0\",\"id\":71}\n",
        vec![invalid(Some("71"), NO_METHOD)],
    ));
    for (name, params, id) in [
        ("params_array", "[1,2]", "72"),
        ("params_string", "\"x\"", "73"),
        ("params_null", "null", "74"),
        ("params_number", "0", "75"),
    ] {
        c.push(Case::new(
            name,
            format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{params}}}\n"),
            vec![invalid(Some(id), PARAMS_NOT_OBJECT)],
        ));
    }
    c.push(Case::new(
        "unknown_method",
        ping("76").replace("ping", "resources/list"),
        vec![error(Some("76"), -32601, "Method not found")],
    ));
    c.push(Case::new(
        "empty_method",
        ping("77").replace("ping", ""),
        vec![error(Some("77"), -32601, "Method not found")],
    ));
    c.push(Case::new(
        "method_with_escapes",
        ping("78").replace("ping", "p\\u0069ng"),
        vec![pong("78")],
    ));
    c.push(Case::new(
        "method_case_differs",
        ping("79").replace("ping", "PING"),
        vec![error(Some("79"), -32601, "Method not found")],
    ));
    c.push(Case::new(
        "unknown_notification",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}\n",
        vec![],
    ));
    c.push(Case::new(
        "notification_with_params_array",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":[1]}\n",
        vec![],
    ));
    c.push(Case::new(
        "notification_with_wrong_jsonrpc",
        "{\"jsonrpc\":\"1.0\",\"method\":\"notifications/initialized\"}\n",
        vec![],
    ));
    c.push(Case::new(
        "cancel_unknown_request",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":999}}\n",
        vec![],
    ));
    c.push(Case::new(
        "peer_result_response",
        "{\"jsonrpc\":\"2.0\",\"id\":80,\"result\":{}}\n",
        vec![],
    ));
    c.push(Case::new(
        "peer_error_response",
        "{\"jsonrpc\":\"2.0\",\"id\":81,\"error\":{\"code\":-1,\"message\":\"x\"}}\n",
        vec![],
    ));
    c.push(Case::new(
        "request_that_also_has_a_result",
        "{\"jsonrpc\":\"2.0\",\"id\":82,\"method\":\"ping\",\"result\":{}}\n",
        vec![pong("82")],
    ));
}
