//! Reading JSON Schema keywords for the type model: local `$ref` resolution, `allOf` merging,
//! integer bounds, descriptions and union variant labels.

use serde_json::{Map, Value};

use super::names::Case;

/// The schema `reference` points to within `root` (`#`, `#/$defs/…`, any local JSON Pointer).
pub(super) fn resolve<'v>(root: &'v Value, reference: &str) -> Option<&'v Value> {
    let pointer = reference.strip_prefix('#')?;
    let decoded = percent_decode(pointer);
    root.pointer(&decoded)
}

pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            if let Some(byte) = text
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A union member's label: its `title`, or the value of a `const` property that discriminates.
pub(super) fn variant_label(root: &Value, member: &Value) -> Option<String> {
    let member = match member.get("$ref").and_then(Value::as_str) {
        Some(reference) => resolve(root, reference)?,
        None => member,
    };
    if let Some(title) = member.get("title").and_then(Value::as_str) {
        let label = Case::Pascal.apply(title, "");
        if !label.is_empty() {
            return Some(label);
        }
    }
    let properties = member.get("properties")?.as_object()?;
    properties.values().find_map(|p| {
        let label = Case::Pascal.apply(p.get("const")?.as_str()?, "");
        (!label.is_empty()).then_some(label)
    })
}

/// `allOf` members (and the schema's own properties) merged into one object schema, when they
/// are all objects.
pub(super) fn merged_all_of(root: &Value, schema: &Value) -> Option<Value> {
    let members = schema.get("allOf")?.as_array()?;
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut extra = None;
    let own = {
        let mut own = schema.as_object()?.clone();
        own.remove("allOf");
        Value::Object(own)
    };
    let mut parts: Vec<&Value> = Vec::new();
    for member in members {
        match member.get("$ref").and_then(Value::as_str) {
            Some(reference) => parts.push(resolve(root, reference)?),
            None => parts.push(member),
        }
    }
    if own.get("properties").is_some() {
        parts.push(&own);
    }
    for part in parts {
        let is_object = part.get("type").and_then(Value::as_str) == Some("object")
            || (part.get("type").is_none() && part.get("properties").is_some());
        if !is_object || part.get("allOf").is_some() {
            return None;
        }
        if let Some(props) = part.get("properties").and_then(Value::as_object) {
            properties.extend(props.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        if let Some(names) = part.get("required").and_then(Value::as_array) {
            required.extend(names.iter().cloned());
        }
        if let Some(value) = part.get("additionalProperties") {
            extra = Some(value.clone());
        }
    }
    let mut merged = Map::new();
    merged.insert("type".into(), "object".into());
    if let Some(description) = schema.get("description") {
        merged.insert("description".into(), description.clone());
    }
    merged.insert("properties".into(), Value::Object(properties));
    merged.insert("required".into(), Value::Array(required));
    // `additionalProperties: false` in one member of an `allOf` would refuse the others'
    // properties, so only a schema (or `true`) is carried over.
    if let Some(extra) = extra.filter(|e| e.is_object()) {
        merged.insert("additionalProperties".into(), extra);
    }
    Some(Value::Object(merged))
}

/// A schema's `description`, else its `title`.
pub(super) fn describe(schema: &Value) -> Option<String> {
    ["description", "title"]
        .iter()
        .find_map(|k| schema.get(*k).and_then(Value::as_str))
        .map(str::to_owned)
}

/// An integer bound: `inclusive`, else `exclusive` moved by `step` (when it is whole).
pub(super) fn bound(
    map: &Map<String, Value>,
    inclusive: &str,
    exclusive: &str,
    step: i128,
) -> Option<i128> {
    let whole = |v: &Value| -> Option<i128> {
        if let Some(i) = v.as_i64() {
            return Some(i128::from(i));
        }
        if let Some(u) = v.as_u64() {
            return Some(i128::from(u));
        }
        let f = v.as_f64()?;
        let rounded = if step > 0 { f.ceil() } else { f.floor() };
        (rounded.abs() < 1e38).then_some(rounded as i128)
    };
    let inclusive = map.get(inclusive).and_then(whole);
    let exclusive = map.get(exclusive).and_then(|v| {
        let w = whole(v)?;
        // A fractional exclusive bound is already moved past by rounding.
        Some(if v.as_f64().is_some_and(|f| f.fract() != 0.0) {
            w
        } else {
            w + step
        })
    });
    match (inclusive, exclusive) {
        (Some(a), Some(b)) => Some(if step > 0 { a.max(b) } else { a.min(b) }),
        (a, b) => a.or(b),
    }
}

pub(super) fn number_text(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).filter(|v| v.is_number()).map(Value::to_string)
}
