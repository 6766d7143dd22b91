//! Surgical edits of a device's response line: unsafe icons are removed, every other byte stays.
//!
//! The line is checked once by the core JSON scanner ([`embedded_mcp::json::Value`]); its
//! borrowed views give the exact byte span of each `icons` array, which is replaced by the same
//! array without the icons whose `src` is not `https:` or `data:`.

use embedded_mcp::json::{Kind, Limits, Value, MAX_DEPTH_LIMIT};

use super::message::meta;

/// An icon the bridge removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedIcon {
    /// Where it was (`serverInfo`, `tools[2] (name)`, ...).
    pub place: String,
    /// Its `src` (or a note when it had no string `src`).
    pub src: String,
}

/// True for the icon sources MCP clients may load: `https:` and `data:` URIs.
pub fn icon_src_allowed(src: &str) -> bool {
    let Some((scheme, _)) = src.split_once(':') else {
        return false;
    };
    scheme.eq_ignore_ascii_case("https") || scheme.eq_ignore_ascii_case("data")
}

/// Removes icons with a disallowed `src` from a response's `result.serverInfo.icons`,
/// `result._meta["io.modelcontextprotocol/serverInfo"].icons` and `result.tools[*].icons`.
///
/// Returns the edited line, or `None` when nothing had to go (then forward the line as is).
/// Each removed icon is appended to `dropped`.
pub fn drop_unsafe_icons(line: &[u8], dropped: &mut Vec<DroppedIcon>) -> Option<Vec<u8>> {
    let doc = Value::parse_with(
        line,
        Limits {
            max_depth: MAX_DEPTH_LIMIT,
        },
    )
    .ok()?;
    let result = doc.get("result")?;
    let mut arrays: Vec<(String, Value<'_>)> = Vec::new();
    if let Some(icons) = result.get("serverInfo").and_then(|s| s.get("icons")) {
        arrays.push(("serverInfo".into(), icons));
    }
    if let Some(icons) = result
        .get(meta::KEY)
        .and_then(|m| m.get(meta::SERVER_INFO))
        .and_then(|s| s.get("icons"))
    {
        arrays.push((format!("{}.{}", meta::KEY, meta::SERVER_INFO), icons));
    }
    if let Some(tools) = result.get("tools").and_then(|t| t.elements()) {
        for (index, tool) in tools.enumerate() {
            if let Some(icons) = tool.get("icons") {
                let name = tool
                    .get("name")
                    .and_then(|n| n.as_str())
                    .map(|n| n.chars().collect::<String>())
                    .unwrap_or_default();
                arrays.push((format!("tools[{index}] ({name})"), icons));
            }
        }
    }
    let base = line.as_ptr() as usize;
    let mut edits: Vec<(usize, usize, Vec<u8>)> = Vec::new();
    for (place, icons) in arrays {
        let Some(elements) = icons.elements() else {
            continue;
        };
        let mut kept: Vec<&str> = Vec::new();
        let mut removed = false;
        for icon in elements {
            let src = icon
                .get("src")
                .and_then(|s| s.as_str())
                .map(|s| s.chars().collect::<String>());
            match (icon.kind(), src) {
                (Kind::Object, Some(src)) if icon_src_allowed(&src) => kept.push(icon.raw()),
                (_, src) => {
                    removed = true;
                    dropped.push(DroppedIcon {
                        place: place.clone(),
                        src: src.unwrap_or_else(|| "(no string src)".into()),
                    });
                }
            }
        }
        if removed {
            let start = (icons.raw().as_ptr() as usize).checked_sub(base)?;
            let mut replacement = Vec::with_capacity(icons.raw().len());
            replacement.push(b'[');
            for (i, raw) in kept.iter().enumerate() {
                if i > 0 {
                    replacement.push(b',');
                }
                replacement.extend_from_slice(raw.as_bytes());
            }
            replacement.push(b']');
            edits.push((start, start + icons.raw().len(), replacement));
        }
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|(start, _, _)| *start);
    let mut out = Vec::with_capacity(line.len());
    let mut at = 0usize;
    for (start, end, replacement) in edits {
        out.extend_from_slice(line.get(at..start)?);
        out.extend_from_slice(&replacement);
        at = end;
    }
    out.extend_from_slice(line.get(at..)?);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes() {
        assert!(icon_src_allowed("https://x/i.png"));
        assert!(icon_src_allowed("HTTPS://x/i.png"));
        assert!(icon_src_allowed("data:image/png;base64,AA=="));
        for bad in [
            "http://x",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "ftp://x",
            "ws://x",
            "//x",
            " https://x",
            "",
        ] {
            assert!(!icon_src_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn removes_only_bad_icons_and_keeps_every_other_byte() {
        let line = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","icons":[{"src":"https://x/a.png"}, {"src":"javascript:alert(1)"} ,{"src":"data:image/png;base64,AA=="}],"inputSchema":{"type":"object"}},{"name":"b","icons":[ ]}],"nextCursor":"c"}}"#;
        let mut dropped = Vec::new();
        let out = drop_unsafe_icons(line, &mut dropped).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","icons":[{"src":"https://x/a.png"},{"src":"data:image/png;base64,AA=="}],"inputSchema":{"type":"object"}},{"name":"b","icons":[ ]}],"nextCursor":"c"}}"#
        );
        assert_eq!(
            dropped,
            vec![DroppedIcon {
                place: "tools[0] (a)".into(),
                src: "javascript:alert(1)".into()
            }]
        );
    }

    #[test]
    fn server_info_icons_in_both_eras() {
        let line = br#"{"id":1,"result":{"serverInfo":{"name":"s","icons":[{"src":"file:///x.png"}]},"_meta":{"io.modelcontextprotocol/serverInfo":{"icons":[{"src":"http://x"},7]}}}}"#;
        let mut dropped = Vec::new();
        let out = drop_unsafe_icons(line, &mut dropped).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"id":1,"result":{"serverInfo":{"name":"s","icons":[]},"_meta":{"io.modelcontextprotocol/serverInfo":{"icons":[]}}}}"#
        );
        assert_eq!(dropped.len(), 3);
    }

    #[test]
    fn nothing_to_drop_means_no_edit() {
        let mut dropped = Vec::new();
        assert!(drop_unsafe_icons(
            br#"{"id":1,"result":{"tools":[{"name":"a","icons":[{"src":"https://x"}]}]}}"#,
            &mut dropped
        )
        .is_none());
        assert!(drop_unsafe_icons(b"not json", &mut dropped).is_none());
        assert!(dropped.is_empty());
    }
}
