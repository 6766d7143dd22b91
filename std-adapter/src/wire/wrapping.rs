//! The legacy revisions' wrapping of a tool's output, the one place it is written: before
//! 2026-07-28 `structuredContent` must be an object, so a tool whose output is not one shows
//! its value as `{"result": value}` and its `outputSchema` `S` (a root that does not declare
//! `"type": "object"`) as `{"type":"object","properties":{"result":S},"required":["result"]}`.

/// The member that carries a wrapped value.
pub const MEMBER: &str = "result";

/// True when a value (or an `outputSchema` root) is wrapped for legacy peers: it is not an
/// object.
pub fn is_wrapped(is_object: bool) -> bool {
    !is_object
}

/// `{"result":VALUE}` from `value`, exact JSON text (kept byte for byte).
pub fn wrap(value: &str) -> String {
    format!("{{\"{MEMBER}\":{value}}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_the_exact_text() {
        assert_eq!(wrap("[1.0e2]"), r#"{"result":[1.0e2]}"#);
        assert!(is_wrapped(false) && !is_wrapped(true));
    }
}
