//! Nesting depth, counted without recursion, so that nothing after it recurses deeper than the
//! bound (the preparation walk, the crate's compiler, its meta-schema validation).

use serde_json::Value;

/// The JSON Pointer of the first container nested deeper than `max`, if any.
///
/// The depth of a scalar is 0, of `[]` or `{}` 1, of `[[]]` 2.
pub(crate) fn first_too_deep(value: &Value, max: usize) -> Option<String> {
    // (value, depth of value, parent index in `trail`, segment from the parent)
    let mut stack: Vec<(&Value, usize, usize, String)> =
        vec![(value, 0, usize::MAX, String::new())];
    // (parent index, segment): enough to rebuild the pointer of the offending node only.
    let mut trail: Vec<(usize, String)> = Vec::new();
    while let Some((node, depth, parent, segment)) = stack.pop() {
        let depth = match node {
            Value::Object(_) | Value::Array(_) => depth + 1,
            _ => continue,
        };
        let here = trail.len();
        trail.push((parent, segment));
        if depth > max {
            return Some(pointer(&trail, here));
        }
        match node {
            Value::Object(map) => {
                for (key, child) in map {
                    if matches!(child, Value::Object(_) | Value::Array(_)) {
                        stack.push((child, depth, here, escape(key)));
                    }
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    if matches!(child, Value::Object(_) | Value::Array(_)) {
                        stack.push((child, depth, here, index.to_string()));
                    }
                }
            }
            _ => {}
        }
    }
    None
}

fn pointer(trail: &[(usize, String)], mut at: usize) -> String {
    let mut segments = Vec::new();
    while let Some((parent, segment)) = trail.get(at) {
        if *parent == usize::MAX {
            break;
        }
        segments.push(segment.as_str());
        at = *parent;
    }
    segments
        .iter()
        .rev()
        .fold(String::new(), |mut out, segment| {
            out.push('/');
            out.push_str(segment);
            out
        })
}

/// Escapes one JSON Pointer segment (RFC 6901).
pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}
