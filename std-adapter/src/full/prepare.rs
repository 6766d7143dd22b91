//! Checks on the schema JSON before `jsonschema` sees it, and the copy it compiles.
//!
//! 1. Nesting depth, counted without recursion, so that nothing below recurses deeper than the
//!    bound (the walk here, the crate's compiler, its meta-schema validation).
//! 2. A schema-aware walk that counts subschemas, refuses declared dialects we do not serve and
//!    gives each schema object lacking `type` the always-true `type` of all six JSON types (see
//!    [`super::meter`] for why every schema object must read the instance).

use serde_json::{Map, Value};

use super::remotes::Remotes;
use super::SchemaError;

/// The dialects served, as `$schema` names them (without a trailing `#`).
pub(crate) const SUPPORTED_DIALECTS: [&str; 6] = [
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema",
];

/// How many registered meta-schemas a `$schema` chain may pass through.
const MAX_META_CHAIN: usize = 8;

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

/// What [`prepare`] checks besides depth.
pub(crate) struct Rules<'r> {
    /// Most subschemas allowed.
    pub(crate) max_subschemas: usize,
    /// Documents a `$schema` may name besides [`SUPPORTED_DIALECTS`] (custom meta-schemas).
    pub(crate) remotes: &'r Remotes,
    /// Whether to refuse dialects (off for registered documents, which are trusted).
    pub(crate) check_dialects: bool,
}

/// Checks `schema` against `rules` and returns the copy to compile. `schema` must already have
/// passed [`first_too_deep`]: the walk recurses.
pub(crate) fn prepare(schema: &Value, rules: &Rules<'_>) -> Result<Value, SchemaError> {
    let mut copy = schema.clone();
    let mut walk = Walk { rules, count: 0 };
    walk.schema(&mut copy, true)?;
    Ok(copy)
}

/// Whether `uri` names a served dialect, directly or through registered meta-schemas.
pub(crate) fn dialect_supported(uri: &str, remotes: &Remotes) -> bool {
    let mut current = uri.trim_end_matches('#').to_owned();
    for _ in 0..=MAX_META_CHAIN {
        if SUPPORTED_DIALECTS.contains(&current.as_str()) {
            return true;
        }
        let next = remotes
            .get(&current)
            .and_then(|doc| doc.get("$schema"))
            .and_then(Value::as_str)
            .map(|meta| meta.trim_end_matches('#').to_owned());
        match next {
            Some(meta) if meta != current => current = meta,
            _ => return false,
        }
    }
    false
}

struct Walk<'a, 'r> {
    rules: &'a Rules<'r>,
    count: usize,
}

/// `type` listing every JSON type: never fails, but makes the crate read the instance.
fn all_types() -> Value {
    Value::Array(
        ["array", "boolean", "null", "number", "object", "string"]
            .into_iter()
            .map(|name| Value::String(name.to_owned()))
            .collect(),
    )
}

impl Walk<'_, '_> {
    fn tick(&mut self) -> Result<(), SchemaError> {
        self.count += 1;
        if self.count > self.rules.max_subschemas {
            return Err(SchemaError::TooManySubschemas {
                max: self.rules.max_subschemas,
            });
        }
        Ok(())
    }

    /// A value in a schema position; `known` is false inside unknown keywords, whose objects are
    /// schemas only if a `$ref` points at them.
    fn schema(&mut self, node: &mut Value, known: bool) -> Result<(), SchemaError> {
        match node {
            Value::Bool(_) => self.tick(),
            Value::Object(map) => {
                self.tick()?;
                if known && self.rules.check_dialects {
                    if let Some(Value::String(dialect)) = map.get("$schema") {
                        if !dialect_supported(dialect, self.rules.remotes) {
                            return Err(SchemaError::UnsupportedDialect(dialect.clone()));
                        }
                    }
                }
                for (keyword, value) in map.iter_mut() {
                    self.keyword(keyword, value, known)?;
                }
                if !map.contains_key("type") {
                    map.insert("type".to_owned(), all_types());
                }
                Ok(())
            }
            // Not a schema: the compiler reports it.
            _ => Ok(()),
        }
    }

    fn keyword(
        &mut self,
        keyword: &str,
        value: &mut Value,
        known: bool,
    ) -> Result<(), SchemaError> {
        match keyword {
            "additionalItems"
            | "additionalProperties"
            | "contains"
            | "contentSchema"
            | "else"
            | "if"
            | "not"
            | "propertyNames"
            | "then"
            | "unevaluatedItems"
            | "unevaluatedProperties" => self.schema(value, known),
            "items" => match value {
                Value::Array(items) => self.each(items, known),
                _ => self.schema(value, known),
            },
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => match value {
                Value::Array(items) => self.each(items, known),
                _ => Ok(()),
            },
            "$defs" | "definitions" | "dependentSchemas" | "patternProperties" | "properties" => {
                match value {
                    Value::Object(map) => self.values(map, known),
                    _ => Ok(()),
                }
            }
            "dependencies" => match value {
                Value::Object(map) => {
                    for member in map.values_mut() {
                        if matches!(member, Value::Object(_) | Value::Bool(_)) {
                            self.schema(member, known)?;
                        }
                    }
                    Ok(())
                }
                _ => Ok(()),
            },
            // Plain data: never a schema.
            "const" | "default" | "enum" | "examples" | "$vocabulary" | "dependentRequired"
            | "required" | "type" => Ok(()),
            _ => self.unknown(value),
        }
    }

    fn each(&mut self, items: &mut [Value], known: bool) -> Result<(), SchemaError> {
        items
            .iter_mut()
            .try_for_each(|item| self.schema(item, known))
    }

    fn values(&mut self, map: &mut Map<String, Value>, known: bool) -> Result<(), SchemaError> {
        map.values_mut()
            .try_for_each(|item| self.schema(item, known))
    }

    fn unknown(&mut self, value: &mut Value) -> Result<(), SchemaError> {
        match value {
            Value::Object(_) => self.schema(value, false),
            Value::Array(items) => items.iter_mut().try_for_each(|item| self.unknown(item)),
            _ => Ok(()),
        }
    }
}
