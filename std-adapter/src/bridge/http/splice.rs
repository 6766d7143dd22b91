//! Surgical edits of lines on their way back to an HTTP client: the bridge-side id (or progress
//! token) is replaced by the client's own text, every other byte stays as the device wrote it.

use embedded_mcp::json::{Limits, Value, MAX_DEPTH_LIMIT};

fn parse(line: &[u8]) -> Option<Value<'_>> {
    Value::parse_with(
        line,
        Limits {
            max_depth: MAX_DEPTH_LIMIT,
        },
    )
    .ok()
}

/// `line` with the JSON text of `target` (a view into `line`) replaced by `replacement`.
fn replace(line: &[u8], target: Value<'_>, replacement: &str) -> Option<Vec<u8>> {
    let start = (target.raw().as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start.checked_add(target.raw().len())?;
    let mut out = Vec::with_capacity(line.len() + replacement.len());
    out.extend_from_slice(line.get(..start)?);
    out.extend_from_slice(replacement.as_bytes());
    out.extend_from_slice(line.get(end..)?);
    Some(out)
}

/// The response `line` with its top-level `id` replaced by `id` (exact JSON text).
pub(super) fn with_id(line: &[u8], id: &str) -> Option<Vec<u8>> {
    let doc = parse(line)?;
    replace(line, doc.get("id")?, id)
}

/// The `notifications/progress` `line` with `params.progressToken` replaced by `token`.
pub(super) fn with_progress_token(line: &[u8], token: &str) -> Option<Vec<u8>> {
    let doc = parse(line)?;
    replace(line, doc.get("params")?.get("progressToken")?, token)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
