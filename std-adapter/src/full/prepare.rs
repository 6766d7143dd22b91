//! Checks on the schema JSON before `jsonschema` sees it, and the copy it compiles: a
//! schema-aware walk that counts subschemas, refuses declared dialects we do not serve and gives
//! each schema object lacking `type` the always-true `type` of all six JSON types (see
//! [`super::meter`] for why every schema object must read the instance). The schema must already
//! have passed [`super::depth::first_too_deep`]: the walk recurses.

use serde_json::{Map, Value};

use super::SchemaError;

/// What [`prepare`] checks besides depth.
pub(crate) struct Rules<'r> {
    /// Most subschemas allowed.
    pub(crate) max_subschemas: usize,
    /// Whether a declared `$schema` is served; `None` accepts any (registered documents, which
    /// are trusted).
    pub(crate) dialect_served: Option<&'r dyn Fn(&str) -> bool>,
}

/// Checks `schema` against `rules` and returns the copy to compile. `schema` must already have
/// passed [`super::depth::first_too_deep`]: the walk recurses.
pub(crate) fn prepare(schema: &Value, rules: &Rules<'_>) -> Result<Value, SchemaError> {
    let mut copy = schema.clone();
    let mut walk = Walk { rules, count: 0 };
    walk.schema(&mut copy, true)?;
    Ok(copy)
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
                if let (true, Some(served)) = (known, self.rules.dialect_served) {
                    if let Some(Value::String(dialect)) = map.get("$schema") {
                        if !served(dialect) {
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
