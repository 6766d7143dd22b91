//! Surgical edits of a peer's line: the bridge replaces an id or a progress token, or adds
//! members to `params._meta`, and every other byte stays as the peer wrote it (numbers beyond
//! 64 bits, long decimals, escapes and key order included). Nothing here re-serializes JSON.

use embedded_mcp::json::{Kind, Limits, Value, MAX_DEPTH_LIMIT};

use super::meta;

fn parse(line: &[u8]) -> Option<Value<'_>> {
    Value::parse_with(
        line,
        Limits {
            max_depth: MAX_DEPTH_LIMIT,
        },
    )
    .ok()
}

/// Where `target` (a view into `line`) starts and ends in `line`.
fn span(line: &[u8], target: Value<'_>) -> Option<(usize, usize)> {
    let start = (target.raw().as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start.checked_add(target.raw().len())?;
    (end <= line.len()).then_some((start, end))
}

/// `line` with the bytes `start..end` replaced by `replacement`.
fn splice(line: &[u8], start: usize, end: usize, replacement: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(line.len() + replacement.len());
    out.extend_from_slice(line.get(..start)?);
    out.extend_from_slice(replacement);
    out.extend_from_slice(line.get(end..)?);
    Some(out)
}

/// `line` with the JSON text of `target` (a view into `line`) replaced by `replacement`.
fn replace(line: &[u8], target: Value<'_>, replacement: &str) -> Option<Vec<u8>> {
    let (start, end) = span(line, target)?;
    splice(line, start, end, replacement.as_bytes())
}

/// `line` with `members` (`"key":value,...` text, not empty) put first in `object` (a view
/// into `line`).
fn prepend(line: &[u8], object: Value<'_>, members: &str) -> Option<Vec<u8>> {
    let (start, _) = span(line, object)?;
    let empty = object.members()?.next().is_none();
    let mut text = members.as_bytes().to_vec();
    if !empty {
        text.push(b',');
    }
    splice(line, start + 1, start + 1, &text)
}

/// `line` with `members` (`"key":value,...` text, not empty) put last in `object` (a view into
/// `line`).
fn append(line: &[u8], object: Value<'_>, members: &str) -> Option<Vec<u8>> {
    let (_, end) = span(line, object)?;
    let empty = object.members()?.next().is_none();
    let mut text = Vec::with_capacity(members.len() + 1);
    if !empty {
        text.push(b',');
    }
    text.extend_from_slice(members.as_bytes());
    splice(line, end - 1, end - 1, &text)
}

/// The object `object` (exact JSON text) with member `key` set to `value` (exact JSON text) and,
/// when `drop_meta_prefix` is given, the members of its `_meta` whose keys start with it left
/// out (and `_meta` too when nothing is left). Every other member keeps its bytes. `None` if
/// `object` is not a JSON object.
pub fn with_member(
    object: &str,
    key: &str,
    value: &str,
    drop_meta_prefix: Option<&str>,
) -> Option<String> {
    let doc = parse(object.as_bytes())?;
    let mut out = String::with_capacity(object.len() + value.len());
    out.push('{');
    let push = |out: &mut String, name: &str, text: &str| {
        if out.len() > 1 {
            out.push(',');
        }
        out.push('"');
        out.push_str(name);
        out.push_str("\":");
        out.push_str(text);
    };
    let mut set = false;
    for (name, member) in doc.members()? {
        if name.eq_str(key) {
            if !set {
                push(&mut out, name.raw(), value);
                set = true;
            }
            continue;
        }
        match drop_meta_prefix {
            Some(prefix) if name.eq_str(meta::KEY) && member.kind() == Kind::Object => {
                let kept: Vec<String> = member
                    .members()?
                    .filter(|(k, _)| !k.chars().collect::<String>().starts_with(prefix))
                    .map(|(k, v)| format!("\"{}\":{}", k.raw(), v.raw()))
                    .collect();
                if !kept.is_empty() {
                    push(&mut out, name.raw(), &format!("{{{}}}", kept.join(",")));
                }
            }
            _ => push(&mut out, name.raw(), member.raw()),
        }
    }
    if !set {
        let mut quoted = Vec::new();
        super::push_json_string(&mut quoted, key);
        let quoted = String::from_utf8(quoted).ok()?;
        push(&mut out, quoted.trim_matches('"'), value);
    }
    out.push('}');
    Some(out)
}

/// `line` with `members` (`"key":value,...` text, not empty) put first in the object that
/// `path` names (members of members from the top: `["result", "capabilities"]`). `None` when
/// `line` has no object there. Every other byte stays.
pub fn with_first_members(line: &[u8], path: &[&str], members: &str) -> Option<Vec<u8>> {
    let mut object = parse(line)?;
    for key in path {
        object = object.get(key)?;
    }
    if object.kind() != Kind::Object {
        return None;
    }
    prepend(line, object, members)
}

/// The exact JSON text of the top-level member `key` of `line`.
pub fn member_text<'a>(line: &'a [u8], key: &str) -> Option<&'a str> {
    Some(parse(line)?.get(key)?.raw())
}

/// The message `line` with its top-level `id` replaced by `id` (exact JSON text).
pub fn with_id(line: &[u8], id: &str) -> Option<Vec<u8>> {
    let doc = parse(line)?;
    replace(line, doc.get("id")?, id)
}

/// The `notifications/progress` `line` with `params.progressToken` replaced by `token`.
pub fn with_progress_token(line: &[u8], token: &str) -> Option<Vec<u8>> {
    let doc = parse(line)?;
    replace(line, doc.get("params")?.get("progressToken")?, token)
}

/// The request `line` under id `id`, and with its `params._meta.progressToken` (if any)
/// replaced by `token`; also returns the token it had (exact JSON text). `None` if `line` is
/// not a JSON object with an `id`.
pub fn with_id_and_token(line: &[u8], id: &str, token: &str) -> Option<(Vec<u8>, Option<String>)> {
    let doc = parse(line)?;
    let id_span = span(line, doc.get("id")?)?;
    let old_token = doc
        .get("params")
        .and_then(|p| p.get(meta::KEY))
        .and_then(|m| m.get(meta::PROGRESS_TOKEN));
    let Some(old_token) = old_token else {
        return Some((splice(line, id_span.0, id_span.1, id.as_bytes())?, None));
    };
    let token_span = span(line, old_token)?;
    // Edit the later span first so the earlier one's offsets still hold.
    let (first, second, first_text, second_text) = if id_span.0 < token_span.0 {
        (id_span, token_span, id, token)
    } else {
        (token_span, id_span, token, id)
    };
    let out = splice(line, second.0, second.1, second_text.as_bytes())?;
    let out = splice(&out, first.0, first.1, first_text.as_bytes())?;
    Some((out, Some(old_token.raw().to_owned())))
}

/// The request `line` with each of `members` (key, exact JSON text) that its `params._meta`
/// lacks added to it; `params` and `_meta` are made when missing. `None` if `line` is not a
/// JSON object, or its `params` or `_meta` is not an object.
pub fn with_meta_defaults(line: &[u8], members: &[(&str, &str)]) -> Option<Vec<u8>> {
    let doc = parse(line)?;
    if doc.kind() != Kind::Object {
        return None;
    }
    let params = doc.get("params");
    let request_meta = params.and_then(|p| p.get(meta::KEY));
    let mut text = Vec::new();
    for (key, value) in members {
        if request_meta.is_some_and(|m| m.get(key).is_some()) {
            continue;
        }
        if !text.is_empty() {
            text.push(b',');
        }
        super::push_json_string(&mut text, key);
        text.push(b':');
        text.extend_from_slice(value.as_bytes());
    }
    if text.is_empty() {
        return Some(line.to_vec());
    }
    let text = String::from_utf8(text).ok()?;
    match (params, request_meta) {
        (_, Some(m)) if m.kind() == Kind::Object => prepend(line, m, &text),
        (Some(p), None) if p.kind() == Kind::Object => {
            prepend(line, p, &format!("\"{}\":{{{text}}}", meta::KEY))
        }
        (None, _) => append(
            line,
            doc,
            &format!("\"params\":{{\"{}\":{{{text}}}}}", meta::KEY),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ODD: &str = r#"{"zeta":1,"alpha":18446744073709551617,"pi":3.14159265358979323846264338327,"mid":1.0e2,"s":"\u00e9\/"}"#;

    #[test]
    fn replaces_only_the_id_or_the_token() {
        let line = br#"{"jsonrpc":"2.0","id":17,"result":{"id":17,"content":[]}}"#;
        assert_eq!(
            with_id(line, r#""a\u0062""#).unwrap(),
            br#"{"jsonrpc":"2.0","id":"a\u0062","result":{"id":17,"content":[]}}"#.to_vec()
        );
        let line = br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":9,"progress":1}}"#;
        assert_eq!(
            with_progress_token(line, r#""progress-test-1""#).unwrap(),
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"progress-test-1","progress":1}}"#.to_vec()
        );
        assert!(with_id(b"{}", "1").is_none());
        assert!(with_progress_token(b"{oops", "1").is_none());
    }

    #[test]
    fn a_request_keeps_its_arguments_byte_for_byte_under_a_new_id_and_token() {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":"c-1","method":"tools/call","params":{{"name":"x","arguments":{ODD},"_meta":{{"progressToken":"t"}}}}}}"#
        );
        let (out, token) = with_id_and_token(line.as_bytes(), "41", "41").unwrap();
        assert_eq!(token.as_deref(), Some(r#""t""#));
        assert_eq!(
            String::from_utf8(out).unwrap(),
            format!(
                r#"{{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{{"name":"x","arguments":{ODD},"_meta":{{"progressToken":41}}}}}}"#
            )
        );
        // The id after the token, and no token at all.
        let line = br#"{"params":{"_meta":{"progressToken":1}},"id":2}"#;
        let (out, _) = with_id_and_token(line, "9", "9").unwrap();
        assert_eq!(
            out,
            br#"{"params":{"_meta":{"progressToken":9}},"id":9}"#.to_vec()
        );
        let (out, token) = with_id_and_token(br#"{"id": 2 ,"method":"ping"}"#, "3", "3").unwrap();
        assert_eq!(
            (out, token),
            (br#"{"id": 3 ,"method":"ping"}"#.to_vec(), None)
        );
        assert!(with_id_and_token(br#"{"method":"x"}"#, "1", "1").is_none());
    }

    #[test]
    fn a_member_is_set_and_protocol_meta_dropped_while_the_rest_keeps_its_bytes() {
        let params = format!(
            r#"{{"name":"m1.a","arguments":{ODD},"_meta":{{"io.mcp/v":"x","progressToken":1.0e0}}}}"#
        );
        assert_eq!(
            with_member(&params, "name", r#""a""#, Some("io.mcp/")).unwrap(),
            format!(r#"{{"name":"a","arguments":{ODD},"_meta":{{"progressToken":1.0e0}}}}"#)
        );
        assert_eq!(
            with_member(
                r#"{"_meta":{"io.mcp/v":1}}"#,
                "name",
                r#""a""#,
                Some("io.mcp/")
            )
            .unwrap(),
            r#"{"name":"a"}"#
        );
        assert_eq!(
            with_member(r#"{"_meta":{"io.mcp/v":1}}"#, "name", "1", None).unwrap(),
            r#"{"_meta":{"io.mcp/v":1},"name":1}"#
        );
        assert!(with_member("[]", "name", "1", None).is_none());
    }

    #[test]
    fn meta_defaults_are_added_where_missing_and_nothing_else_moves() {
        let v = [("a/v", r#""2026""#), ("a/c", "{}")];
        let args = format!(r#""arguments":{ODD}"#);
        let with_meta = format!(r#"{{"id":1,"params":{{{args},"_meta":{{"a/v":"mine"}}}}}}"#);
        assert_eq!(
            String::from_utf8(with_meta_defaults(with_meta.as_bytes(), &v).unwrap()).unwrap(),
            format!(r#"{{"id":1,"params":{{{args},"_meta":{{"a/c":{{}},"a/v":"mine"}}}}}}"#)
        );
        let no_meta = format!(r#"{{"id":1,"params":{{{args}}}}}"#);
        assert_eq!(
            String::from_utf8(with_meta_defaults(no_meta.as_bytes(), &v).unwrap()).unwrap(),
            format!(r#"{{"id":1,"params":{{"_meta":{{"a/v":"2026","a/c":{{}}}},{args}}}}}"#)
        );
        assert_eq!(
            with_meta_defaults(br#"{"id":1,"params":{}}"#, &v).unwrap(),
            br#"{"id":1,"params":{"_meta":{"a/v":"2026","a/c":{}}}}"#.to_vec()
        );
        assert_eq!(
            with_meta_defaults(br#"{"id":1}"#, &v).unwrap(),
            br#"{"id":1,"params":{"_meta":{"a/v":"2026","a/c":{}}}}"#.to_vec()
        );
        assert_eq!(
            with_meta_defaults(b"{}", &v[..1]).unwrap(),
            br#"{"params":{"_meta":{"a/v":"2026"}}}"#.to_vec()
        );
        assert_eq!(
            with_meta_defaults(br#"{"_meta":{}}"#, &[]).unwrap(),
            br#"{"_meta":{}}"#.to_vec()
        );
        assert!(with_meta_defaults(br#"{"params":[]}"#, &v).is_none());
        assert!(with_meta_defaults(b"[1]", &v).is_none());
    }
}
