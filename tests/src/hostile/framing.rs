//! Framing: line ends, splits, blank and overlong lines, garbage lines.

use std::fmt::Write as _;

use super::*;

/// Appends this part of the corpus to `c`, in order.
pub(super) fn push(c: &mut Vec<Case>) {
    let ping = |id: &str| req(id, "ping", "");
    c.push(Case::new("plain_ping", ping("1"), vec![pong("1")]));
    c.push(Case::new(
        "crlf_line_ending",
        ping("2").replace('\n', "\r\n"),
        vec![pong("2")],
    ));
    c.push(Case::new(
        "cr_only_line_endings_are_not_line_ends",
        // Two requests ended by CR only: one line (CR is JSON whitespace inside it, so it holds
        // two documents and is not JSON) until an LF arrives; dropped without an answer.
        format!("{}\r{}\r\n", ping("3").trim_end(), ping("4").trim_end()),
        vec![],
    ));
    c.push(Case::new(
        "utf8_bom_at_line_start",
        format!("\u{feff}{}", ping("5")),
        vec![pong("5")],
    ));
    c.push(Case::new("empty_lines", "\n\n\n\n", vec![]));
    c.push(Case::new(
        "blank_lines_spaces_tabs",
        " \n\t\n \t \r\n",
        vec![],
    ));
    c.push(Case::new("thousand_empty_lines", "\n".repeat(1000), vec![]));
    c.push(Case::new(
        "leading_and_trailing_whitespace",
        format!(" \t{} \t\n", ping("6").trim_end()),
        vec![pong("6")],
    ));
    c.push(
        Case::new("request_split_byte_by_byte", ping("7"), vec![pong("7")])
            .split(Split::ByteByByte),
    );
    c.push(
        Case::new(
            "call_split_byte_by_byte",
            call("8", "set_led", r#"{"led":"red","brightness":10}"#),
            vec![led("8", "red", 10, 0)],
        )
        .split(Split::ByteByByte),
    );
    c.push(
        Case::new(
            "requests_split_in_odd_chunks",
            format!("{}{}{}", ping("9"), ping("10"), ping("11")),
            vec![pong("9"), pong("10"), pong("11")],
        )
        .split(Split::Chunks(7)),
    );
    c.push(
        Case::new(
            "utf8_character_split_across_writes",
            // "é" (2 bytes), split by 1-byte writes inside an id.
            ping("\"caf\u{e9}\""),
            vec![pong("\"caf\u{e9}\"")],
        )
        .split(Split::ByteByByte),
    );
    c.push(Case::new(
        "two_requests_on_one_line",
        format!("{}{}", ping("12").trim_end(), ping("13")),
        vec![],
    ));
    c.push(Case::new(
        "trailing_garbage_after_request",
        format!("{} x\n", ping("14").trim_end()),
        vec![],
    ));
    c.push(Case::new(
        "request_without_lf_then_garbage",
        format!("{}garbage\n", ping("15").trim_end()),
        vec![],
    ));
    {
        let line = ping("16");
        let fit = format!(
            "{}{}{}\n",
            &line[..line.len() - 2],
            " ".repeat(LINE_BYTES - line.len()),
            "}"
        );
        assert_eq!(fit.len(), LINE_BYTES);
        c.push(Case::new(
            "line_of_exactly_the_buffer_size",
            fit,
            vec![pong("16")],
        ));
        let over = format!(
            "{}{}{}\n",
            &line[..line.len() - 2],
            " ".repeat(LINE_BYTES - line.len() + 1),
            "}"
        );
        c.push(Case::new(
            "line_one_byte_over_the_buffer",
            over,
            vec![invalid(Some("16"), TOO_LONG)],
        ));
    }
    {
        // Over the UART (module documentation): the same lines with a pad of twice the line
        // buffer instead of a megabyte, except `..._with_id_last`, sent full size everywhere.
        let id_first = |pad: &str| {
            format!("{{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"ping\",\"params\":{{\"pad\":\"{pad}\"}}}}\n")
        };
        let pad = "a".repeat(1 << 20);
        let small = "a".repeat(2 * LINE_BYTES);
        c.push(
            Case::new(
                "one_megabyte_line_with_id_first",
                id_first(&pad),
                vec![invalid(Some("17"), TOO_LONG)],
            )
            .over_uart(id_first(&small)),
        );
        c.push(Case::new(
            "one_megabyte_line_with_id_last",
            format!("{{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{{\"pad\":\"{pad}\"}},\"id\":\"last\"}}\n"),
            vec![invalid(Some("\"last\""), TOO_LONG)],
        ));
        c.push(
            Case::new("one_megabyte_of_garbage", format!("{pad}\n"), vec![])
                .over_uart(format!("{small}\n")),
        );
    }
    let nul_line = |len: usize| [vec![0u8; len], b"\n".to_vec()].concat();
    c.push(
        Case::new("one_megabyte_of_nul_bytes", nul_line(1 << 20), vec![])
            .over_uart(nul_line(2 * LINE_BYTES)),
    );
    c.push(Case::new(
        "id_inside_a_nested_object_is_not_recovered",
        format!(
            "{{\"params\":{{\"id\":5,\"pad\":\"{}\"}},\"jsonrpc\":\"2.0\",\"method\":\"ping\"}}\n",
            "b".repeat(600)
        ),
        vec![],
    ));
    c.push(Case::new(
        "overlong_line_with_float_id",
        format!(
            "{{\"id\":1.5,\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}\n",
            "c".repeat(600)
        ),
        vec![],
    ));
    c.push(Case::new(
        "overlong_line_with_braces_in_strings",
        format!(
            "{{\"pad\":\"{}\\\"}}{{\",\"id\":\"x}}y\",\"jsonrpc\":\"2.0\",\"method\":\"ping\"}}\n",
            "}{".repeat(300)
        ),
        vec![invalid(Some("\"x}y\""), TOO_LONG)],
    ));
    {
        // Over the UART: the first 1,000 of them (46 KB, still 180 times the firmware's
        // 256-byte receive ring, so its back-pressure pauses and resumes all along, as with
        // 10,000). `qemu_sensors` pipelines 1,000 calls and `soak_bridge` 2,000 or more too.
        let requests = |count: usize| {
            let mut many = String::new();
            let mut replies = Vec::new();
            for i in 0..count {
                let id = format!("{}", 100_000 + i);
                many.push_str(&ping(&id));
                replies.push(pong(&id));
            }
            (many, replies)
        };
        let (many, replies) = requests(10_000);
        let (fewer, fewer_replies) = requests(1_000);
        c.push(
            Case::new("ten_thousand_requests_in_one_write", many, replies)
                .over_uart_answered(fewer, fewer_replies),
        );
    }
    {
        let mut lines = String::new();
        for i in 0..1000 {
            let _ = writeln!(lines, "garbage line {i} {{{{ \"\\");
        }
        c.push(Case::new("thousand_garbage_lines", lines, vec![]));
    }
}
