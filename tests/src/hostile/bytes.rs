//! Bytes that are not UTF-8 or not text.

use super::*;

/// Appends this part of the corpus to `c`, in order.
pub(super) fn push(c: &mut Vec<Case>) {
    c.push(Case::new(
        "invalid_utf8_in_string",
        b"{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "overlong_utf8_encoding",
        b"{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"ping\",\"params\":{\"x\":\"\xc0\xaf\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "utf8_encoded_surrogate",
        b"{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"ping\",\"params\":{\"x\":\"\xed\xa0\x80\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "truncated_utf8_sequence",
        b"{\"jsonrpc\":\"2.0\",\"id\":23,\"method\":\"ping\",\"params\":{\"x\":\"\xe2\x82\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "latin1_bytes",
        b"{\"jsonrpc\":\"2.0\",\"id\":24,\"method\":\"ping\",\"params\":{\"x\":\"caf\xe9\"}}\n"
            .to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "nul_byte_inside_string",
        b"{\"jsonrpc\":\"2.0\",\"id\":25,\"method\":\"pi\x00ng\"}\n".to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "nul_byte_between_tokens",
        b"{\"jsonrpc\":\"2.0\",\x00\"id\":26,\"method\":\"ping\"}\n".to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "nul_bytes_only",
        b"\x00\x00\x00\n".to_vec(),
        vec![],
    ));
    c.push(Case::new(
        "escaped_nul_in_argument_is_checked",
        call("27", "set_led", r#"{"led":"red\u0000","brightness":1}"#),
        vec![bad_args(
            "27",
            "set_led",
            "/led: \"red\\u0000\" is not one of the enum values",
        )],
    ));
    c.push(Case::new(
        "binary_noise_with_lf_inside",
        [(0u8..=255).collect::<Vec<u8>>(), b"\n".to_vec()].concat(),
        vec![],
    ));
    c.push(Case::new(
        "binary_noise_then_lf",
        [
            (0u8..=255)
                .rev()
                .filter(|&b| b != b'\n')
                .collect::<Vec<u8>>(),
            b"\n".to_vec(),
        ]
        .concat(),
        vec![],
    ));
}
