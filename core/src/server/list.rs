//! `tools/list`: tool entries as each revision shows them, and pages budgeted in bytes.

use crate::json::{write_compact, write_string, CountingSink, EncodeError, Sink, SliceSink};
use crate::protocol::{write_result_start, Envelope, ErrorCode, RequestId, Version};

use super::cursor::{decode_cursor, encode_cursor};
use super::reply::{error_line, fallback};
use super::tool::{Annotations, Icon};
use super::{Server, Tool};

/// Writes `key` (the member's text up to its `:`) and `value` as a JSON string.
pub(super) fn member_str(sink: &mut dyn Sink, key: &[u8], value: &str) -> Result<(), EncodeError> {
    sink.put(key)?;
    write_string(sink, value)
}

/// Writes `key` and `json` (JSON text, written compact).
fn member_json(sink: &mut dyn Sink, key: &[u8], json: &str) -> Result<(), EncodeError> {
    sink.put(key)?;
    write_compact(sink, json.as_bytes())
}

/// [`member_str`] when `value` is present; nothing otherwise.
pub(super) fn member_opt(
    sink: &mut dyn Sink,
    key: &[u8],
    value: Option<&str>,
) -> Result<(), EncodeError> {
    match value {
        Some(value) => member_str(sink, key, value),
        None => Ok(()),
    }
}

/// Writes `,"annotations":{…}` (nothing when no member is set).
fn write_annotations(sink: &mut dyn Sink, a: &Annotations) -> Result<(), EncodeError> {
    const HINTS: [&[u8]; 4] = [
        b"\"readOnlyHint\":",
        b"\"destructiveHint\":",
        b"\"idempotentHint\":",
        b"\"openWorldHint\":",
    ];
    // What goes before the next member: the object's head before the first (so nothing is
    // written when there is no member).
    let mut sep: &[u8] = b",\"annotations\":{";
    if let Some(title) = a.title {
        sink.put(sep)?;
        sep = b",";
        member_str(sink, b"\"title\":", title)?;
    }
    let hints = [a.read_only, a.destructive, a.idempotent, a.open_world];
    for (key, hint) in HINTS.into_iter().zip(hints) {
        if let Some(hint) = hint {
            sink.put(sep)?;
            sep = b",";
            sink.put(key)?;
            sink.put(if hint { b"true" } else { b"false" })?;
        }
    }
    // `sep` is `,` once a member was written.
    if sep.len() == 1 {
        sink.put_byte(b'}')?;
    }
    Ok(())
}

/// Writes `,"icons":[...]` (nothing for an empty list).
pub(crate) fn write_icons(sink: &mut dyn Sink, icons: &[Icon]) -> Result<(), EncodeError> {
    // Each icon's head also closes the one before it.
    let mut head: &[u8] = b",\"icons\":[{\"src\":";
    for icon in icons {
        member_str(sink, head, icon.src)?;
        head = b"},{\"src\":";
        member_opt(sink, b",\"mimeType\":", icon.mime_type)?;
        let mut key: &[u8] = b",\"sizes\":[";
        for size in icon.sizes {
            member_str(sink, key, size)?;
            key = b",";
        }
        if !icon.sizes.is_empty() {
            sink.put_byte(b']')?;
        }
        if let Some(theme) = icon.theme {
            member_str(sink, b",\"theme\":", theme.as_str())?;
        }
    }
    if icons.is_empty() {
        return Ok(());
    }
    sink.put(b"}]")
}

/// Writes one tool object as `version` shows it. `object_output` says whether the output
/// schema's root is an object (else legacy peers get it wrapped).
pub(crate) fn write_tool(
    sink: &mut dyn Sink,
    tool: &Tool,
    version: Version,
    object_output: bool,
) -> Result<(), EncodeError> {
    member_str(sink, b"{\"name\":", tool.name)?;
    member_opt(sink, b",\"title\":", tool.title)?;
    member_opt(sink, b",\"description\":", tool.description)?;
    member_json(sink, b",\"inputSchema\":", tool.input_schema)?;
    if let Some(output) = tool.output_schema {
        if version.is_legacy() && !object_output {
            let head = b",\"outputSchema\":{\"type\":\"object\",\"properties\":{\"result\":";
            member_json(sink, head, output)?;
            sink.put(b"},\"required\":[\"result\"]}")?;
        } else {
            member_json(sink, b",\"outputSchema\":", output)?;
        }
    }
    write_annotations(sink, &tool.annotations)?;
    if version.has_icons() {
        write_icons(sink, tool.icons)?;
    }
    if let Some(support) = tool.task_support {
        sink.put(b",\"execution\":{\"taskSupport\":\"")?;
        sink.put(support.as_str().as_bytes())?;
        sink.put(b"\"}")?;
    }
    if let Some(meta) = tool.meta {
        member_json(sink, b",\"_meta\":", meta)?;
    }
    sink.put_byte(b'}')
}

impl<H, const TOOLS: usize> Server<'_, H, TOOLS> {
    /// Writes the end of a `tools/list` result after the last tool: `]`, `nextCursor` when
    /// `next` is set, the 2026 cache members, `}`.
    pub(super) fn write_list_tail(
        &self,
        s: &mut dyn Sink,
        version: Version,
        next: Option<u16>,
    ) -> Result<(), EncodeError> {
        s.put_byte(b']')?;
        if let Some(next) = next {
            s.put(b",\"nextCursor\":\"")?;
            s.put(&encode_cursor(self.salt, next))?;
            s.put_byte(b'"')?;
        }
        if !version.is_legacy() {
            self.config.write_cache_tail(s)?;
        }
        s.put_byte(b'}')
    }

    /// Answers `tools/list`: the page that starts at the request's cursor and holds as many
    /// tools as fit min([`Config::page_bytes`](super::Config::page_bytes), `out`).
    pub(super) fn tools_list(
        &mut self,
        id: RequestId<'_>,
        params: &Envelope<'_>,
        version: Version,
        out: &mut [u8],
    ) -> Option<usize> {
        let start = match params.cursor {
            None => 0,
            Some(cursor) => match cursor
                .as_str()
                .and_then(|c| decode_cursor(self.salt, TOOLS, c))
            {
                Some(start) => start,
                None => {
                    return error_line(out, Some(id), ErrorCode::InvalidParams, "Invalid cursor")
                }
            },
        };
        let budget = self.config.page_bytes.min(out.len());
        let tail = |next: bool| {
            let mut c = CountingSink::default();
            // A cursor is always the same length, so any index measures it.
            let _ = self.write_list_tail(&mut c, version, next.then_some(1));
            c.count.saturating_add(2) // `}` closing the response and LF
        };
        let (with_cursor, without_cursor) = (tail(true), tail(false));
        let mut sink = SliceSink::new(out.get_mut(..budget).unwrap_or_default());
        let head = write_result_start(&mut sink, id).and_then(|()| sink.put(b"{\"tools\":["));
        if head.is_err() {
            return fallback(out, Some(id));
        }
        let mut next = None;
        for (index, tool) in self.tools.iter().enumerate().skip(start) {
            let object = self.object_output.get(index).copied().unwrap_or(false);
            let mut c = CountingSink::default();
            let _ = write_tool(&mut c, tool, version, object);
            let comma = usize::from(index > start);
            // `index < self.tools.len()`: no wrap.
            let reserve = if index.wrapping_add(1) < TOOLS {
                with_cursor
            } else {
                without_cursor
            };
            let need = sink
                .len()
                .saturating_add(comma)
                .saturating_add(c.count)
                .saturating_add(reserve);
            if need > budget {
                if index == start {
                    // Cannot happen with an output buffer of `required_output_len` bytes.
                    return fallback(out, Some(id));
                }
                next = u16::try_from(index).ok();
                break;
            }
            let written = if comma == 1 {
                sink.put_byte(b',')
            } else {
                Ok(())
            };
            if written
                .and_then(|()| write_tool(&mut sink, tool, version, object))
                .is_err()
            {
                return fallback(out, Some(id));
            }
        }
        let done = self
            .write_list_tail(&mut sink, version, next)
            .and_then(|()| sink.put(b"}\n"));
        match done.and_then(|()| sink.finish()) {
            Ok(n) => Some(n),
            Err(_) => fallback(out, Some(id)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::tool::Theme;

    #[test]
    fn task_support_byte_for_byte_and_counted() {
        for (support, text) in [
            (crate::server::TaskSupport::Optional, "optional"),
            (crate::server::TaskSupport::Required, "required"),
        ] {
            let tool = Tool::new("t", "{}")
                .task_support(support)
                .meta(r#"{"k":1}"#);
            let mut buf = [0u8; 128];
            let mut sink = SliceSink::new(&mut buf);
            write_tool(&mut sink, &tool, Version::V2026_07_28, true).unwrap();
            let n = sink.finish().unwrap();
            let expected = std::format!(
                r#"{{"name":"t","inputSchema":{{}},"execution":{{"taskSupport":"{text}"}},"_meta":{{"k":1}}}}"#
            );
            assert_eq!(core::str::from_utf8(&buf[..n]).unwrap(), expected);
            assert_eq!(
                crate::server::output_len::tool_len(&tool, Version::V2026_07_28, true),
                n
            );
        }
    }

    #[test]
    fn icons_and_annotations_byte_for_byte() {
        static ICONS: [Icon; 2] = [
            Icon::new("https://a/1.png")
                .mime_type("image/png")
                .sizes(&["16x16", "any"])
                .theme(Theme::Dark),
            Icon::new("data:,x"),
        ];
        let annotations = Annotations {
            title: Some("T"),
            destructive: Some(false),
            open_world: Some(true),
            ..Annotations::NONE
        };
        let tool = Tool::new("t", "{}").annotations(annotations).icons(&ICONS);
        let mut buf = [0u8; 512];
        let mut sink = SliceSink::new(&mut buf);
        write_tool(&mut sink, &tool, Version::V2025_11_25, true).unwrap();
        let n = sink.finish().unwrap();
        assert_eq!(
            core::str::from_utf8(&buf[..n]).unwrap(),
            r#"{"name":"t","inputSchema":{},"annotations":{"title":"T","destructiveHint":false,"openWorldHint":true},"icons":[{"src":"https://a/1.png","mimeType":"image/png","sizes":["16x16","any"],"theme":"dark"},{"src":"data:,x"}]}"#
        );
        let hints_only = Tool::new("t", "{}").annotations(Annotations {
            title: None,
            ..annotations
        });
        let mut sink = SliceSink::new(&mut buf);
        write_tool(&mut sink, &hints_only, Version::V2025_11_25, true).unwrap();
        let n = sink.finish().unwrap();
        assert_eq!(
            core::str::from_utf8(&buf[..n]).unwrap(),
            r#"{"name":"t","inputSchema":{},"annotations":{"destructiveHint":false,"openWorldHint":true}}"#
        );
        let mut sink = SliceSink::new(&mut buf);
        write_tool(&mut sink, &Tool::new("t", "{}"), Version::V2025_11_25, true).unwrap();
        let n = sink.finish().unwrap();
        assert_eq!(
            core::str::from_utf8(&buf[..n]).unwrap(),
            r#"{"name":"t","inputSchema":{}}"#
        );
    }
}
