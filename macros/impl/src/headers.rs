//! The `x-mcp-header` marks of a whole input schema (nested derived types filled in), checked
//! against the 2026-07-28 rules the field-level checks cannot see: a mark is reached from the
//! root through `properties` members only (not through `items`, `anyOf`, `$defs`, ...), and no
//! two marks of one schema share a name regardless of case.

use embedded_mcp_schema::json::Value;

/// Keywords whose values are data, not subschemas (an object there is never a schema).
const DATA: [&str; 4] = ["default", "examples", "enum", "const"];

/// The marks of `schema` (JSON text) in document order, or why they break the rules.
pub(crate) fn marks(schema: &str) -> Result<Vec<String>, String> {
    let root = Value::parse(schema.as_bytes()).map_err(|e| format!("schema not JSON: {e}"))?;
    let mut found = Vec::new();
    walk(root, Via::Root, &mut found)?;
    Ok(found)
}

/// How a subschema was reached from the root.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Via {
    /// It is the root.
    Root,
    /// Through `properties` members only.
    Properties,
    /// Through any other keyword on the way.
    Other,
}

/// Walks the schema `v`, reached `via`.
fn walk(v: Value<'_>, via: Via, found: &mut Vec<String>) -> Result<(), String> {
    let below = if via == Via::Other {
        Via::Other
    } else {
        Via::Properties
    };
    let Some(members) = v.members() else {
        return Ok(());
    };
    for (key, value) in members {
        if key.eq_str("x-mcp-header") {
            let name = value.as_str().map(|s| s.raw()).unwrap_or_default();
            if via != Via::Properties {
                return Err(format!(
                    "`header = {name:?}` is on a field that is not reached through object \
                     properties alone (it is inside an array or a composition such as `anyOf`, \
                     or at the top); x-mcp-header allows only nesting through properties"
                ));
            }
            if let Some(other) = found.iter().find(|o| o.eq_ignore_ascii_case(name)) {
                return Err(format!(
                    "`header = {name:?}` is declared twice in one input schema (also as \
                     {other:?}; x-mcp-header names are compared without case)"
                ));
            }
            found.push(name.to_owned());
        } else if key.eq_str("properties") {
            for (_, property) in value.members().into_iter().flatten() {
                walk(property, below, found)?;
            }
        } else if DATA.iter().any(|d| key.eq_str(d)) {
            continue;
        } else if let Some(elements) = value.elements() {
            for element in elements {
                walk(element, Via::Other, found)?;
            }
        } else {
            walk(value, Via::Other, found)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::marks;

    #[test]
    fn marks_through_properties_are_collected_in_order() {
        let s = r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"object","properties":{"c":{"type":"integer","x-mcp-header":"Zone"}}}}}"#;
        assert_eq!(marks(s).unwrap(), ["Region", "Zone"]);
    }

    #[test]
    fn marks_elsewhere_or_twice_are_refused() {
        for bad in [
            r#"{"type":"object","properties":{"a":{"type":"array","items":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}}}}}"#,
            r#"{"type":"object","properties":{"a":{"anyOf":[{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"}}},{"type":"null"}]}}}"#,
            r#"{"type":"string","x-mcp-header":"Top"}"#,
            r#"{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Dup"},"b":{"type":"object","properties":{"c":{"type":"boolean","x-mcp-header":"dUP"}}}}}"#,
        ] {
            assert!(marks(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn data_that_looks_like_a_mark_is_not_one() {
        let s = r#"{"type":"object","properties":{"x-mcp-header":{"type":"string","default":{"x-mcp-header":"No"}}}}"#;
        assert_eq!(marks(s).unwrap(), Vec::<String>::new());
    }
}
