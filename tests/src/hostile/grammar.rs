//! The JSON grammar: malformed, truncated, deep and odd documents.

use super::*;

/// Appends this part of the corpus to `c`, in order.
pub(super) fn push(c: &mut Vec<Case>) {
    let ping = |id: &str| req(id, "ping", "");
    // Over the UART (module documentation): the same shapes about twice the line buffer long.
    let deep_array = |depth: usize| format!("{}\n", nested(depth, ""));
    c.push(
        Case::new("nesting_100000_deep_array", deep_array(100_000), vec![])
            .over_uart(deep_array(LINE_BYTES)),
    );
    let deep_request = |depth: usize| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"ping\",\"params\":{{\"x\":{}}}}}\n",
            nested(depth, "")
        )
    };
    c.push(
        Case::new(
            "nesting_100000_deep_in_a_request",
            deep_request(100_000),
            vec![invalid(Some("30"), TOO_LONG)],
        )
        .over_uart(deep_request(LINE_BYTES)),
    );
    let unclosed = |depth: usize| format!("{}\n", "{\"a\":".repeat(depth));
    c.push(
        Case::new("nesting_100000_unclosed", unclosed(100_000), vec![])
            .over_uart(unclosed((2 * LINE_BYTES).div_ceil(5))),
    );
    c.push(Case::new(
        "nesting_one_over_the_limit",
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":31,\"method\":\"ping\",\"params\":{{\"x\":{}}}}}\n",
            nested(usize::from(MAX_DEPTH) - 1, "")
        ),
        vec![invalid(Some("31"), TOO_DEEP)],
    ));
    c.push(Case::new(
        "nesting_at_the_limit",
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":32,\"method\":\"ping\",\"params\":{{\"x\":{}}}}}\n",
            nested(usize::from(MAX_DEPTH) - 2, "")
        ),
        vec![pong("32")],
    ));
    c.push(Case::new(
        "too_deep_with_id_after_the_deep_part",
        format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{{\"x\":{}}},\"id\":\"after\"}}\n",
            nested(40, "")
        ),
        vec![invalid(Some("\"after\""), TOO_DEEP)],
    ));
    c.push(Case::new(
        "too_deep_array_root",
        format!("{}\n", nested(40, "1")),
        vec![],
    ));
    c.push(Case::new(
        "lone_high_surrogate_escape_in_id",
        ping(r#""\ud800""#),
        vec![],
    ));
    c.push(Case::new(
        "lone_low_surrogate_escape_in_argument",
        call("33", "set_led", r#"{"led":"\udc00","brightness":1}"#),
        vec![],
    ));
    c.push(Case::new(
        "reversed_surrogate_pair",
        ping(r#""\ude00\ud83d""#),
        vec![],
    ));
    c.push(Case::new(
        "high_surrogate_then_letter",
        ping(r#""\ud83dx""#),
        vec![],
    ));
    c.push(Case::new(
        "valid_surrogate_pair_in_id",
        ping(r#""\ud83d\ude00""#),
        vec![pong(r#""\ud83d\ude00""#)],
    ));
    c.push(Case::new(
        "escaped_id_echoed_as_written",
        ping(r#""a\"b\\c\/d\u0041""#),
        vec![pong(r#""a\"b\\c\/d\u0041""#)],
    ));
    c.push(Case::new(
        "duplicate_id_first_wins",
        "{\"jsonrpc\":\"2.0\",\"id\":40,\"id\":41,\"method\":\"ping\"}\n",
        vec![pong("40")],
    ));
    c.push(Case::new(
        "duplicate_method_first_wins",
        "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"ping\",\"method\":\"nope\"}\n",
        vec![pong("42")],
    ));
    c.push(Case::new(
        // The handler would read the first `brightness`; the validator checks every member, so
        // a second, out-of-range one cannot slip past it.
        "duplicate_argument_every_value_is_validated",
        call(
            "43",
            "set_led",
            r#"{"led":"green","brightness":20,"brightness":500}"#,
        ),
        vec![bad_args(
            "43",
            "set_led",
            "/brightness: 500 is greater than the maximum 100",
        )],
    ));
    c.push(Case::new(
        "duplicate_tool_name_first_wins",
        req(
            "44",
            "tools/call",
            &format!("{META},\"name\":\"set_led\",\"name\":\"nope\",\"arguments\":{{\"led\":\"green\",\"brightness\":21}}"),
        ),
        vec![led("44", "green", 21, 0)],
    ));
    c.push(Case::new(
        "number_1e400_as_id",
        ping("1e400"),
        vec![invalid(None, BAD_ID)],
    ));
    c.push(Case::new("negative_zero_id", ping("-0"), vec![pong("-0")]));
    c.push(Case::new(
        "thirty_digit_integer_id",
        ping("123456789012345678901234567890"),
        vec![pong("123456789012345678901234567890")],
    ));
    c.push(Case::new(
        "negative_thirty_digit_integer_id",
        ping("-123456789012345678901234567890"),
        vec![pong("-123456789012345678901234567890")],
    ));
    c.push(Case::new(
        "number_1e400_as_argument",
        call("45", "set_led", r#"{"led":"blue","brightness":1e400}"#),
        vec![bad_args(
            "45",
            "set_led",
            "/brightness: 1e400 is greater than the maximum 100",
        )],
    ));
    c.push(Case::new(
        "negative_zero_argument",
        call("46", "set_led", r#"{"led":"blue","brightness":-0}"#),
        vec![led("46", "blue", 0, 0)],
    ));
    c.push(Case::new(
        "thirty_digit_integer_argument",
        call(
            "47",
            "set_led",
            r#"{"led":"blue","brightness":123456789012345678901234567890}"#,
        ),
        vec![bad_args(
            "47",
            "set_led",
            // Long numbers are cut in messages, which have a fixed capacity.
            "/brightness: 1234567890123456\u{2026} is greater than the maximum 100",
        )],
    ));
    c.push(Case::new(
        "integral_float_argument",
        call("48", "set_led", r#"{"led":"blue","brightness":5e1}"#),
        vec![led("48", "blue", 50, 0)],
    ));
    c.push(Case::new(
        "fractional_argument",
        call("49", "set_led", r#"{"led":"blue","brightness":50.5}"#),
        vec![bad_args(
            "49",
            "set_led",
            "/brightness: 50.5 is not of type integer",
        )],
    ));
    c.push(Case::new(
        "tiny_exponent_argument",
        call("50", "set_led", r#"{"led":"blue","brightness":1e-400}"#),
        vec![bad_args(
            "50",
            "set_led",
            "/brightness: 1e-400 is not of type integer",
        )],
    ));
    for (name, text) in [
        ("leading_zero_number", "01"),
        ("plus_sign_number", "+1"),
        ("bare_fraction_number", ".5"),
        ("trailing_dot_number", "1."),
        ("nan_literal", "NaN"),
        ("infinity_literal", "Infinity"),
        ("hex_number", "0x10"),
    ] {
        c.push(Case::new(name, ping(text), vec![]));
    }
    for (name, line) in [
        (
            "raw_tab_in_string",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\tb\",\"method\":\"ping\"}\n",
        ),
        (
            "invalid_escape",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\\xb\",\"method\":\"ping\"}\n",
        ),
        (
            "short_unicode_escape",
            "{\"jsonrpc\":\"2.0\",\"id\":\"\\u12\",\"method\":\"ping\"}\n",
        ),
        (
            "truncated_literal",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":tru}\n",
        ),
        (
            "unterminated_object",
            "{\"jsonrpc\":\"2.0\",\"id\":51,\"method\":\"ping\"\n",
        ),
        ("unterminated_string", "{\"jsonrpc\":\"2.0\",\"id\":\"51\n"),
        (
            "single_quotes",
            "{'jsonrpc':'2.0','id':52,'method':'ping'}\n",
        ),
        (
            "trailing_comma",
            "{\"jsonrpc\":\"2.0\",\"id\":53,\"method\":\"ping\",}\n",
        ),
        (
            "comment",
            "// {\"jsonrpc\":\"2.0\",\"id\":54,\"method\":\"ping\"}\n",
        ),
        (
            "unquoted_key",
            "{jsonrpc:\"2.0\",\"id\":55,\"method\":\"ping\"}\n",
        ),
        (
            "missing_colon",
            "{\"jsonrpc\" \"2.0\",\"id\":56,\"method\":\"ping\"}\n",
        ),
        ("lone_closing_brace", "}\n"),
    ] {
        c.push(Case::new(name, line, vec![]));
    }
}
