//! JSON Schema 2020-12 to a language-neutral type model.
//!
//! [`Builder::ty`] maps one schema to a [`Ty`]; named parts (objects, string enums, unions) are
//! added to the [`Model`] under a Pascal-case name derived from where they occur
//! (`SetLedInput`, `SetLedInputLed`, `RunInputStepsItem`), unique in the module. A schema the
//! model cannot type precisely becomes [`Ty::Any`] with the reason, never a narrower type.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::keywords::{bound, describe, merged_all_of, number_text, resolve, variant_label};
use super::names::{Case, Namer};

/// Arrays with `minItems == maxItems` up to this length are typed as fixed-length (tuples in
/// TypeScript, `[T; N]` in Rust).
pub const MAX_FIXED_LEN: u64 = 16;

/// A type.
#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    /// Any JSON value: the schema could not be typed more precisely (the reason, for a comment).
    Any(String),
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// An integer within the bounds (inclusive, when given).
    Integer {
        /// Least value.
        min: Option<i128>,
        /// Greatest value.
        max: Option<i128>,
    },
    /// A number within the bounds (inclusive, when given; the JSON text of each).
    Number {
        /// Least value.
        min: Option<String>,
        /// Greatest value.
        max: Option<String>,
    },
    /// A string, with its `format`, lengths and `pattern` when given.
    String {
        /// The `format` keyword.
        format: Option<String>,
        /// `minLength`.
        min_length: Option<u64>,
        /// `maxLength`.
        max_length: Option<u64>,
        /// `pattern`.
        pattern: Option<String>,
    },
    /// One of these JSON values (`enum`, or `const` of a non-string); never all strings.
    Literals(Vec<Value>),
    /// A string enum (or a string `const`): [`Model::enums`] index.
    Enum(usize),
    /// An array.
    Array {
        /// Each item's type.
        items: Box<Ty>,
        /// `minItems`.
        min: Option<u64>,
        /// `maxItems`.
        max: Option<u64>,
    },
    /// `prefixItems`: the types in order; `closed` when no further items are allowed.
    Tuple {
        /// The item types in order.
        items: Vec<Ty>,
        /// No items after these (`items: false`).
        closed: bool,
    },
    /// An object with any keys and values of one type.
    Map(Box<Ty>),
    /// An object with named properties: [`Model::objects`] index.
    Object(usize),
    /// One of several types: [`Model::unions`] index.
    Union(usize),
    /// The type or `null`.
    Nullable(Box<Ty>),
}

/// What an object allows beyond its named properties.
#[derive(Debug, Clone, PartialEq)]
pub enum Extra {
    /// `additionalProperties: false`.
    Closed,
    /// Absent or `true`: other properties may come, untyped.
    Open,
    /// `additionalProperties` with a schema.
    Typed(Ty),
}

/// One property of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property's name on the wire.
    pub wire: String,
    /// Its type.
    pub ty: Ty,
    /// Listed in `required`.
    pub required: bool,
    /// Its `description` (or `title`).
    pub description: Option<String>,
    /// Its `default`.
    pub default: Option<Value>,
}

/// A named object type.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectDef {
    /// Pascal-case name, unique in the module.
    pub name: String,
    /// The schema's `description` (or `title`).
    pub description: Option<String>,
    /// The properties: required ones in `required` order, then the others in name order.
    pub fields: Vec<Field>,
    /// Other properties.
    pub extra: Extra,
}

/// A named string enum.
#[derive(Debug, Clone, PartialEq)]
pub struct EnumDef {
    /// Pascal-case name, unique in the module.
    pub name: String,
    /// The strings.
    pub values: Vec<String>,
}

/// A named union.
#[derive(Debug, Clone, PartialEq)]
pub struct UnionDef {
    /// Pascal-case name, unique in the module.
    pub name: String,
    /// Pascal-case variant names (unique in the union) and their types.
    pub variants: Vec<(String, Ty)>,
}

/// The named types of a module.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Model {
    /// Objects.
    pub objects: Vec<ObjectDef>,
    /// String enums.
    pub enums: Vec<EnumDef>,
    /// Unions.
    pub unions: Vec<UnionDef>,
}

impl Model {
    /// Whether a value of object `from` can contain object `target` without an array or map
    /// in between (a Rust field on that path needs a `Box`).
    pub fn contains_directly(&self, from: usize, target: usize) -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from];
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            for field in &self.objects[id].fields {
                for next in self.direct_objects(&field.ty) {
                    if next == target {
                        return true;
                    }
                    stack.push(next);
                }
            }
        }
        false
    }

    /// Objects a value of `ty` holds in place (not behind an array or a map).
    pub fn direct_objects(&self, ty: &Ty) -> Vec<usize> {
        match ty {
            Ty::Object(id) => vec![*id],
            Ty::Nullable(inner) => self.direct_objects(inner),
            Ty::Tuple { items, .. } => items.iter().flat_map(|t| self.direct_objects(t)).collect(),
            Ty::Union(id) => self.unions[*id]
                .variants
                .iter()
                .flat_map(|(_, t)| self.direct_objects(t))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Maps the schemas of one document (a tool's input or output schema) into a [`Model`].
pub struct Builder<'a> {
    model: &'a mut Model,
    type_names: &'a mut Namer,
    root: &'a Value,
    /// `$ref` targets already mapped.
    refs: BTreeMap<String, Ty>,
    /// `$ref`s being mapped (a ref met again while in here is recursive).
    open_refs: BTreeSet<String>,
    /// The `$ref` whose target is being mapped right now, claimed by the first object made.
    pending_ref: Option<String>,
    /// Enums from this index on are reused for an enum of the same values.
    shared_enums: usize,
}

impl<'a> Builder<'a> {
    /// A builder for the schema document `root`.
    pub fn new(model: &'a mut Model, type_names: &'a mut Namer, root: &'a Value) -> Self {
        Self {
            model,
            type_names,
            root,
            refs: BTreeMap::new(),
            open_refs: BTreeSet::new(),
            pending_ref: None,
            shared_enums: usize::MAX,
        }
    }

    /// Reuses an enum of [`Model::enums`] from index `first` on for a schema with the same
    /// values (a tool's input and output naming the same set get one type).
    pub fn sharing_enums_from(mut self, first: usize) -> Self {
        self.shared_enums = first;
        self
    }

    /// The root schema as an object type named `name` (a tool's input: always an object).
    pub fn root_object(&mut self, name: &str) -> usize {
        let root = self.root;
        let merged = merged_all_of(root, root);
        let schema = merged.as_ref().unwrap_or(root);
        self.pending_ref = Some("#".into());
        self.object(schema, name)
    }

    /// The type of `schema`; `hint` names what it makes (Pascal case).
    pub fn ty(&mut self, schema: &Value, hint: &str) -> Ty {
        let Some(map) = schema.as_object() else {
            return match schema {
                Value::Bool(false) => Ty::Any("the schema `false` accepts no value".into()),
                _ => Ty::Any("the schema accepts any value".into()),
            };
        };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, hint);
        }
        if let Some(value) = map.get("const") {
            return self.literals(std::slice::from_ref(value), hint);
        }
        if let Some(values) = map.get("enum").and_then(Value::as_array) {
            return self.literals(values, hint);
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(members) = map.get(key).and_then(Value::as_array) {
                return self.union(members, hint);
            }
        }
        if map.contains_key("allOf") {
            return match merged_all_of(self.root, schema) {
                Some(merged) => self.ty(&merged, hint),
                None => match map
                    .get("allOf")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                {
                    Some([only]) => self.ty(only, hint),
                    _ => Ty::Any("`allOf` of schemas that are not all objects".into()),
                },
            };
        }
        match map.get("type") {
            Some(Value::String(name)) => self.typed(map, name, hint),
            Some(Value::Array(names)) => {
                let types: Vec<Ty> = names
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|name| self.typed(map, name, hint))
                    .collect();
                self.union_of(types, hint)
            }
            _ if ["properties", "additionalProperties", "required"]
                .iter()
                .any(|k| map.contains_key(*k)) =>
            {
                self.typed(map, "object", hint)
            }
            _ if map.contains_key("items") || map.contains_key("prefixItems") => {
                self.typed(map, "array", hint)
            }
            _ => Ty::Any("the schema states no type".into()),
        }
    }

    fn typed(&mut self, map: &Map<String, Value>, name: &str, hint: &str) -> Ty {
        match name {
            "null" => Ty::Null,
            "boolean" => Ty::Bool,
            "string" => Ty::String {
                format: map.get("format").and_then(Value::as_str).map(str::to_owned),
                min_length: map.get("minLength").and_then(Value::as_u64),
                max_length: map.get("maxLength").and_then(Value::as_u64),
                pattern: map
                    .get("pattern")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            },
            "integer" => Ty::Integer {
                min: bound(map, "minimum", "exclusiveMinimum", 1),
                max: bound(map, "maximum", "exclusiveMaximum", -1),
            },
            "number" => Ty::Number {
                min: number_text(map, "minimum"),
                max: number_text(map, "maximum"),
            },
            "array" => self.array(map, hint),
            "object" => {
                let has_props = map
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty());
                match map.get("additionalProperties") {
                    Some(extra @ Value::Object(_)) if !has_props => {
                        Ty::Map(Box::new(self.ty(extra, &format!("{hint}Value"))))
                    }
                    None | Some(Value::Bool(true)) if !map.contains_key("properties") => {
                        Ty::Map(Box::new(Ty::Any("any object".into())))
                    }
                    _ => Ty::Object(self.object(&Value::Object(map.clone()), hint)),
                }
            }
            other => Ty::Any(format!("unknown type `{other}`")),
        }
    }

    fn array(&mut self, map: &Map<String, Value>, hint: &str) -> Ty {
        let item_hint = format!("{hint}Item");
        if let Some(prefix) = map.get("prefixItems").and_then(Value::as_array) {
            let items = prefix
                .iter()
                .enumerate()
                .map(|(i, s)| self.ty(s, &format!("{hint}Item{i}")))
                .collect();
            return Ty::Tuple {
                items,
                closed: map.get("items") == Some(&Value::Bool(false)),
            };
        }
        let items = match map.get("items") {
            Some(schema) => self.ty(schema, &item_hint),
            None => Ty::Any("the array's items are not described".into()),
        };
        Ty::Array {
            items: Box::new(items),
            min: map.get("minItems").and_then(Value::as_u64),
            max: map.get("maxItems").and_then(Value::as_u64),
        }
    }

    /// A named object from an object schema.
    fn object(&mut self, schema: &Value, hint: &str) -> usize {
        let name = self.type_names.claim(hint, "");
        let id = self.model.objects.len();
        self.model.objects.push(ObjectDef {
            name,
            description: describe(schema),
            fields: Vec::new(),
            extra: Extra::Open,
        });
        if let Some(reference) = self.pending_ref.take() {
            self.refs.insert(reference, Ty::Object(id));
        }
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut order: Vec<&str> = required
            .iter()
            .copied()
            .filter(|r| properties.contains_key(*r))
            .collect();
        order.extend(
            properties
                .keys()
                .map(String::as_str)
                .filter(|k| !required.contains(k)),
        );
        let mut fields = Vec::new();
        for wire in order {
            let property = &properties[wire];
            let owner = self.model.objects[id].name.clone();
            let ty = self.ty(
                property,
                &format!("{owner}{}", Case::Pascal.apply(wire, "Field")),
            );
            fields.push(Field {
                wire: wire.to_owned(),
                ty,
                required: required.contains(&wire),
                description: describe(property),
                default: property.get("default").cloned(),
            });
        }
        let extra = match schema.get("additionalProperties") {
            Some(Value::Bool(false)) => Extra::Closed,
            Some(extra @ Value::Object(_)) => {
                let owner = self.model.objects[id].name.clone();
                Extra::Typed(self.ty(extra, &format!("{owner}Value")))
            }
            _ => Extra::Open,
        };
        let object = &mut self.model.objects[id];
        object.fields = fields;
        object.extra = extra;
        id
    }

    fn literals(&mut self, values: &[Value], hint: &str) -> Ty {
        let strings: Option<Vec<String>> = values
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect();
        match strings {
            Some(values) if !values.is_empty() => {
                let shared = self.model.enums.iter().enumerate().skip(self.shared_enums);
                if let Some((id, _)) = shared.clone().find(|(_, e)| e.values == values) {
                    return Ty::Enum(id);
                }
                let name = self.type_names.claim(hint, "");
                self.model.enums.push(EnumDef { name, values });
                Ty::Enum(self.model.enums.len() - 1)
            }
            _ if values.is_empty() => Ty::Any("an empty `enum` accepts no value".into()),
            _ => Ty::Literals(values.to_vec()),
        }
    }

    fn union(&mut self, members: &[Value], hint: &str) -> Ty {
        let types = members
            .iter()
            .enumerate()
            .map(|(i, member)| {
                let label =
                    variant_label(self.root, member).unwrap_or_else(|| format!("V{}", i + 1));
                self.ty(member, &format!("{hint}{label}"))
            })
            .collect();
        self.union_of(types, hint)
    }

    /// `types` as one type: a lone type, a nullable one, or a named union.
    fn union_of(&mut self, types: Vec<Ty>, hint: &str) -> Ty {
        let mut types: Vec<Ty> = types.into_iter().fold(Vec::new(), |mut acc, t| {
            if !acc.contains(&t) {
                acc.push(t);
            }
            acc
        });
        if let Some(any) = types.iter().find(|t| matches!(t, Ty::Any(_))) {
            return any.clone();
        }
        let nullable = types.contains(&Ty::Null);
        types.retain(|t| *t != Ty::Null);
        let inner = match types.len() {
            0 => return Ty::Null,
            1 => types.remove(0),
            _ => {
                let mut labels = Namer::new(&[]);
                let variants = types
                    .into_iter()
                    .map(|t| {
                        let label = labels.claim(&self.variant_name(&t), "");
                        (label, t)
                    })
                    .collect();
                let name = self.type_names.claim(hint, "");
                self.model.unions.push(UnionDef { name, variants });
                Ty::Union(self.model.unions.len() - 1)
            }
        };
        if nullable {
            Ty::Nullable(Box::new(inner))
        } else {
            inner
        }
    }

    /// A variant's name from its type.
    fn variant_name(&self, ty: &Ty) -> String {
        match ty {
            Ty::Object(id) => self.model.objects[*id].name.clone(),
            Ty::Enum(id) => self.model.enums[*id].name.clone(),
            Ty::Union(id) => self.model.unions[*id].name.clone(),
            Ty::Bool => "Bool".into(),
            Ty::Integer { .. } => "Integer".into(),
            Ty::Number { .. } => "Number".into(),
            Ty::String { .. } => "String".into(),
            Ty::Array { .. } | Ty::Tuple { .. } => "Array".into(),
            Ty::Map(_) => "Map".into(),
            Ty::Literals(_) => "Literal".into(),
            Ty::Nullable(inner) => self.variant_name(inner),
            Ty::Null | Ty::Any(_) => "Value".into(),
        }
    }

    fn reference(&mut self, reference: &str, hint: &str) -> Ty {
        if let Some(done) = self.refs.get(reference) {
            return done.clone();
        }
        if self.open_refs.contains(reference) {
            return Ty::Any(format!(
                "recursive `$ref` {reference} that is not an object"
            ));
        }
        let Some(target) = resolve(self.root, reference) else {
            return Ty::Any(format!("`$ref` {reference} is not in this schema"));
        };
        let def_name = reference.rsplit('/').next().unwrap_or_default();
        let hint = match Case::Pascal.apply(def_name, "") {
            name if name.is_empty() || reference == "#" => hint.to_owned(),
            name => format!("{}{name}", tool_prefix(hint)),
        };
        self.open_refs.insert(reference.to_owned());
        self.pending_ref = Some(reference.to_owned());
        let ty = self.ty(target, &hint);
        self.pending_ref = None;
        self.open_refs.remove(reference);
        self.refs.insert(reference.to_owned(), ty.clone());
        ty
    }
}

/// The part of a hint naming the tool (`SetLedInputLed` → `SetLed`), for `$defs` names.
fn tool_prefix(hint: &str) -> &str {
    for marker in ["Input", "Output"] {
        if let Some(at) = hint.find(marker) {
            return &hint[..at];
        }
    }
    hint
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map(schema: Value) -> (Ty, Model) {
        let mut model = Model::default();
        let mut names = Namer::new(&[]);
        let ty = Builder::new(&mut model, &mut names, &schema).ty(&schema, "T");
        (ty, model)
    }

    #[test]
    fn scalars_and_ranges() {
        let (ty, _) = map(json!({"type": "integer", "minimum": 0, "exclusiveMaximum": 256}));
        assert_eq!(
            ty,
            Ty::Integer {
                min: Some(0),
                max: Some(255)
            }
        );
        let (ty, _) = map(json!({"type": "integer", "maximum": 18446744073709551615u64}));
        assert_eq!(
            ty,
            Ty::Integer {
                min: None,
                max: Some(u64::MAX.into())
            }
        );
        let (ty, _) = map(json!({"type": ["number", "null"], "maximum": 1.5}));
        let number = Ty::Number {
            min: None,
            max: Some("1.5".into()),
        };
        assert_eq!(ty, Ty::Nullable(Box::new(number)));
        let (ty, _) = map(json!({"format": "date-time", "type": "string"}));
        assert_eq!(
            ty,
            Ty::String {
                format: Some("date-time".into()),
                min_length: None,
                max_length: None,
                pattern: None,
            }
        );
    }

    #[test]
    fn enums_consts_and_literals() {
        let (ty, model) = map(json!({"enum": ["red", "green"]}));
        assert_eq!(ty, Ty::Enum(0));
        assert_eq!(model.enums[0].values, ["red", "green"]);
        let (ty, _) = map(json!({"const": 3}));
        assert_eq!(ty, Ty::Literals(vec![json!(3)]));
        let (ty, _) = map(json!({"enum": []}));
        assert!(matches!(ty, Ty::Any(_)));
    }

    #[test]
    fn objects_keep_required_order_then_names() {
        let schema = json!({"type": "object", "required": ["b", "a"], "additionalProperties": false,
            "properties": {"a": {"type": "boolean"}, "b": {"type": "string"}, "c": {"type": "null"}}});
        let (ty, model) = map(schema);
        assert_eq!(ty, Ty::Object(0));
        let names: Vec<_> = model.objects[0]
            .fields
            .iter()
            .map(|f| (f.wire.as_str(), f.required))
            .collect();
        assert_eq!(names, [("b", true), ("a", true), ("c", false)]);
        assert_eq!(model.objects[0].extra, Extra::Closed);
    }

    #[test]
    fn recursive_refs_become_one_named_object() {
        let schema = json!({"$ref": "#/$defs/node", "$defs": {"node": {"type": "object",
            "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                           "next": {"$ref": "#/$defs/node"}}}}});
        let (ty, model) = map(schema);
        assert_eq!(ty, Ty::Object(0));
        assert_eq!(model.objects.len(), 1);
        assert_eq!(model.objects[0].name, "TNode");
        assert_eq!(model.objects[0].fields[1].ty, Ty::Object(0));
        assert!(model.contains_directly(0, 0));
    }

    #[test]
    fn unions_all_of_and_maps() {
        let schema = json!({"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "wait"}, "ms": {"type": "integer"}}},
            {"type": "object", "properties": {"kind": {"const": "led"}}}]});
        let (ty, model) = map(schema);
        assert_eq!(ty, Ty::Union(0));
        let labels: Vec<_> = model.unions[0]
            .variants
            .iter()
            .map(|(l, _)| l.as_str())
            .collect();
        assert_eq!(labels, ["TWait", "TLed"]);
        let (ty, model) = map(json!({"allOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "string"}}}]}));
        assert_eq!(ty, Ty::Object(0));
        assert_eq!(model.objects[0].fields.len(), 2);
        let (ty, _) = map(json!({"type": "object", "additionalProperties": {"type": "number"}}));
        assert_eq!(
            ty,
            Ty::Map(Box::new(Ty::Number {
                min: None,
                max: None
            }))
        );
        let (ty, _) = map(json!({"allOf": [{"type": "string"}, {"minLength": 1}]}));
        assert!(matches!(ty, Ty::Any(_)));
    }
}
