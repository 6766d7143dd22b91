//! One-line summaries of JSON Schemas and descriptions for the `tools` table.

use serde_json::Value;

/// `text` on one line, cut to `max` characters with an ellipsis.
pub(super) fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut + "…"
}

/// A one-line summary of a JSON Schema: `{a: number, b?: "x"|"y"}`, `[string]`, `integer 0..100`.
pub fn summarize(schema: &Value) -> String {
    one_line(&summary(schema, 0), 160)
}

fn summary(schema: &Value, depth: usize) -> String {
    let object = match schema {
        Value::Bool(true) => return "any".into(),
        Value::Bool(false) => return "nothing".into(),
        Value::Object(o) => o,
        _ => return "?".into(),
    };
    if depth > 3 {
        return "…".into();
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("|");
    }
    if let Some(value) = object.get("const") {
        return value.to_string();
    }
    if let Some(r) = object.get("$ref").and_then(Value::as_str) {
        return format!("<{r}>");
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = object.get(key).and_then(Value::as_array) {
            return options
                .iter()
                .map(|s| summary(s, depth + 1))
                .collect::<Vec<_>>()
                .join(" | ");
        }
    }
    let types: Vec<&str> = match object.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if object.contains_key("properties") => vec!["object"],
        _ => Vec::new(),
    };
    if types.is_empty() {
        return "any".into();
    }
    types
        .iter()
        .map(|t| match *t {
            "object" => summarize_object(object, depth),
            "array" => {
                let items = match object.get("items") {
                    Some(items) => format!("[{}]", summary(items, depth + 1)),
                    None => "[any]".into(),
                };
                match bounds(object, "minItems", "maxItems") {
                    Some(range) => format!("{items} {range} items"),
                    None => items,
                }
            }
            "number" | "integer" => {
                let min = object
                    .get("minimum")
                    .or_else(|| object.get("exclusiveMinimum"));
                let max = object
                    .get("maximum")
                    .or_else(|| object.get("exclusiveMaximum"));
                match (min, max) {
                    (None, None) => (*t).to_string(),
                    (min, max) => format!(
                        "{t} {}..{}",
                        min.map(Value::to_string).unwrap_or_default(),
                        max.map(Value::to_string).unwrap_or_default()
                    ),
                }
            }
            "string" => {
                let mut text = match object.get("format").and_then(Value::as_str) {
                    Some(f) => format!("string({f})"),
                    None => "string".into(),
                };
                if let Some(range) = bounds(object, "minLength", "maxLength") {
                    text.push_str(&format!(" len {range}"));
                }
                if let Some(pattern) = object.get("pattern").and_then(Value::as_str) {
                    text.push_str(&format!(" /{pattern}/"));
                }
                text
            }
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join("|")
}

/// `MIN..MAX` of the keywords `min` and `max` (a missing side left empty), if either is there.
fn bounds(object: &serde_json::Map<String, Value>, min: &str, max: &str) -> Option<String> {
    let (min, max) = (object.get(min), object.get(max));
    (min.is_some() || max.is_some()).then(|| {
        format!(
            "{}..{}",
            min.map(Value::to_string).unwrap_or_default(),
            max.map(Value::to_string).unwrap_or_default()
        )
    })
}

fn summarize_object(object: &serde_json::Map<String, Value>, depth: usize) -> String {
    let Some(properties) = object.get("properties").and_then(Value::as_object) else {
        return "{}".into();
    };
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = properties
        .iter()
        .map(|(k, v)| {
            let optional = if required.contains(&k.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{k}{optional}: {}", summary(v, depth + 1))
        })
        .collect();
    format!("{{{}}}", fields.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schema_summaries() {
        let s = json!({"type": "object", "properties": {
            "celsius": {"type": "number", "minimum": -40, "maximum": 125},
            "unit": {"enum": ["C", "F"]},
            "tags": {"type": "array", "items": {"type": "string"}}
        }, "required": ["celsius"]});
        assert_eq!(
            summarize(&s),
            r#"{celsius: number -40..125, tags?: [string], unit?: "C"|"F"}"#
        );
        assert_eq!(
            summarize(&json!({"type": ["integer", "null"]})),
            "integer|null"
        );
        assert_eq!(summarize(&json!(true)), "any");
        let bounded = json!({"type": "object", "properties": {
            "name": {"type": "string", "minLength": 1, "maxLength": 32, "pattern": "^[a-z]+$"},
            "note": {"type": "string", "maxLength": 64},
            "samples": {"type": "array", "items": {"type": "integer"}, "maxItems": 8}
        }, "required": ["name"]});
        assert_eq!(
            summarize(&bounded),
            "{name: string len 1..32 /^[a-z]+$/, note?: string len ..64, samples?: [integer] ..8 items}"
        );
    }
}
