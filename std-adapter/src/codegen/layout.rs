//! The few line-breaking and quoting rules the emitters share, chosen so that prettier, black
//! and rustfmt leave the output as it is.
//!
//! The emitters only produce constructs whose formatting these rules settle: a bracketed list
//! that stays on one line when it fits and otherwise puts one item per line with a trailing
//! comma (prettier and rustfmt for parameters and arguments; black keeps such a list exploded
//! because of the trailing comma), and a string constant that moves below its `=` when the line
//! is too long.

/// Display width of `text` (characters; the generated text has no wide characters but in
/// comments and strings, which no formatter breaks).
pub fn width(text: &str) -> usize {
    text.chars().count()
}

/// `head` + items + `tail` on one line at `indent` when it fits in `max`, else one item per
/// line (indented by `step` more) with a trailing comma, `tail` on its own line.
pub fn list(
    indent: &str,
    head: &str,
    items: &[String],
    tail: &str,
    step: &str,
    max: usize,
) -> String {
    let one = format!("{indent}{head}{}{tail}", items.join(", "));
    if width(&one) <= max || items.is_empty() {
        return one;
    }
    exploded(indent, head, items, tail, step)
}

/// `head` + items + `tail` with one item per line and a trailing comma, always.
pub fn exploded(indent: &str, head: &str, items: &[String], tail: &str, step: &str) -> String {
    let mut out = format!("{indent}{head}\n");
    for item in items {
        out.push_str(&format!("{indent}{step}{item},\n"));
    }
    out.push_str(&format!("{indent}{tail}"));
    out
}

/// The JSON text of `value` for a string literal: no `'` (written `\u0027`, which JSON reads
/// back as `'`), so the literal can be single-quoted without escapes of its own.
pub fn embedded_json(value: &serde_json::Value) -> String {
    value.to_string().replace('\'', "\\u0027")
}

/// A JavaScript or Python string literal holding the JSON text of `value`: single-quoted (the
/// text has `"` and no `'`), backslashes doubled; double-quoted when the text has no `"`, as the
/// formatters would quote it.
pub fn json_literal(value: &serde_json::Value) -> String {
    let text = embedded_json(value).replace('\\', "\\\\");
    if text.contains('"') {
        format!("'{text}'")
    } else {
        format!("\"{text}\"")
    }
}

/// A JavaScript or Python string literal for `text`, quoted the way prettier and black choose
/// (double quotes unless the text holds more `"` than `'`), with the escapes both read alike.
pub fn quoted(text: &str) -> String {
    let doubles = text.matches('"').count();
    let singles = text.matches('\'').count();
    let quote = if doubles > singles { '\'' } else { '"' };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// `text` as one line of a comment: every character any of the three languages may read as a
/// line break (`\r`, `\n`, U+0085, U+2028, U+2029, form feed, …) and every other control
/// character becomes a space, so device text can never end a comment line and become code.
pub fn comment_line(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\u{2028}' | '\u{2029}' => ' ',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect::<String>()
        .trim_end()
        .to_owned()
}

/// A line of a Rust doc comment from device text: [`comment_line`], without leading spaces and
/// with code fences broken (`` ``` `` → `` ` ` ` ``), so rustdoc never reads device text as a
/// doctest that `cargo test` would compile and run.
///
/// A line that would open a Markdown block quote or list item (`>`, `- `, `* `, `+ `, `1. `)
/// gets its marker escaped: device text is plain text, and a quote or list followed by plain
/// lines is what clippy's `doc_lazy_continuation` refuses.
pub fn rust_doc_line(text: &str) -> String {
    let line = comment_line(text)
        .trim_start()
        .replace("```", "` ` `")
        .replace("~~~", "~ ~ ~");
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let rest = &line[digits..];
    let marker = matches!(
        (digits, rest.chars().next(), rest.chars().nth(1)),
        (0, Some('>'), _)
            | (0, Some('-' | '*' | '+'), Some(' ') | None)
            | (1.., Some('.' | ')'), Some(' ') | None)
    );
    if marker {
        format!("{}\\{}", &line[..digits], rest)
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_fit_or_explode() {
        let items = vec!["a: u8".to_owned(), "b: u8".to_owned()];
        assert_eq!(
            list("", "fn f(", &items, ") {", "    ", 100),
            "fn f(a: u8, b: u8) {"
        );
        assert_eq!(
            list("", "fn f(", &items, ") {", "    ", 10),
            "fn f(\n    a: u8,\n    b: u8,\n) {"
        );
    }

    #[test]
    fn device_text_stays_inside_comments() {
        assert_eq!(comment_line("a\nb\rc\u{2028}d\u{85}e\u{c}f"), "a b c d e f");
        assert_eq!(rust_doc_line("    ```\nrm -rf"), "` ` ` rm -rf");
        assert_eq!(rust_doc_line(">>> x"), "\\>>> x");
        assert_eq!(rust_doc_line("- item"), "\\- item");
        assert_eq!(rust_doc_line("12. step"), "12\\. step");
        assert_eq!(rust_doc_line("-40 to 125"), "-40 to 125");
    }

    #[test]
    fn quoting_follows_the_formatters() {
        assert_eq!(quoted("set_led"), "\"set_led\"");
        assert_eq!(quoted("a\"b"), "'a\"b'");
        assert_eq!(quoted("it's"), "\"it's\"");
        assert_eq!(quoted("\\\n"), "\"\\\\\\n\"");
        assert_eq!(
            embedded_json(&serde_json::json!({"d": "it's"})),
            "{\"d\":\"it\\u0027s\"}"
        );
        assert_eq!(
            json_literal(&serde_json::json!({"d": "a\"b"})),
            "'{\"d\":\"a\\\\\"b\"}'"
        );
        assert_eq!(json_literal(&serde_json::json!({})), "\"{}\"");
    }
}
