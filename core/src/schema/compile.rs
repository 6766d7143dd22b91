//! The compiler: schema JSON in, [`Program`] out, in caller-provided storage.
//!
//! Subschemas are compiled breadth-first from a queue kept in the node table (each pending node
//! remembers its source span), so the compiler does not recurse and its stack use does not
//! depend on the schema. A subschema reached twice (through `$ref`) is compiled once: nodes are
//! identified by their byte offset in the schema text. `$defs` are compiled only when referenced.
//! JSON Pointers for errors are recomputed from the root by byte offset, only when an error is
//! reported.

use core::cmp::Ordering;

use super::error::CompileError;
use super::number::{Decimal, MULTIPLE_OF_MAX_DIGITS};
use super::pointer::{format_index, PointerBuf, SchemaPointer, SCHEMA_POINTER_CAPACITY};
use super::program::{find_loop, types, verify_structure, Op, Parts, Program, Scratch, Str, NONE};
#[cfg(feature = "pattern")]
use super::regex::{self, RegexError};
use super::uri::{self, Uri};
use super::SCHEMA_MAX_DEPTH;
use crate::json::{DecodeErrorKind, JsonStr, Kind, Limits, Value};

/// Longest `$ref` (and `$id`) accepted, in bytes once unescaped.
pub const REF_CAPACITY: usize = 256;

/// Most bytes the compiler scans to resolve `$ref`s, `$id`s and `$anchor`s (each resolution
/// rescans parts of the document instead of keeping a table): 64 MiB, far above what real
/// schemas need, and a bound on adversarial ones ([`CompileError::TooComplex`]).
pub const REF_WORK_LIMIT: u64 = 64 << 20;

/// How far back the text area is searched for an identical string to reuse.
const DEDUP_WINDOW: usize = 1024;

/// Why `pattern` and `patternProperties` are refused without the `pattern` feature.
#[cfg(not(feature = "pattern"))]
const NO_PATTERN: &str = "regular expressions need the `pattern` feature of embedded-mcp";

/// The 2020-12 meta-schema URIs accepted in `$schema`.
const DIALECTS: [&str; 2] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
];

macro_rules! keywords {
    ($($v:ident = $s:literal),* $(,)?) => {
        /// Keywords with an effect on validation (annotations and unknown keywords are not listed).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Kw { $($v),* }
        const KEYWORDS: &[Kw] = &[$(Kw::$v),*];
        impl Kw {
            const fn name(self) -> &'static str {
                match self { $(Kw::$v => $s),* }
            }
        }
    };
}

keywords! {
    Schema = "$schema", Id = "$id", Ref = "$ref", Anchor = "$anchor",
    DynamicRef = "$dynamicRef", DynamicAnchor = "$dynamicAnchor",
    Type = "type", Const = "const", Enum = "enum", MultipleOf = "multipleOf",
    Minimum = "minimum", ExclusiveMinimum = "exclusiveMinimum", Maximum = "maximum",
    ExclusiveMaximum = "exclusiveMaximum", MinLength = "minLength", MaxLength = "maxLength",
    Pattern = "pattern", MinItems = "minItems", MaxItems = "maxItems", UniqueItems = "uniqueItems",
    PrefixItems = "prefixItems", Items = "items", Contains = "contains",
    MinContains = "minContains", MaxContains = "maxContains", Required = "required",
    MinProperties = "minProperties", MaxProperties = "maxProperties", Properties = "properties",
    PatternProperties = "patternProperties", AdditionalProperties = "additionalProperties",
    PropertyNames = "propertyNames", DependentRequired = "dependentRequired",
    DependentSchemas = "dependentSchemas", AllOf = "allOf", AnyOf = "anyOf", OneOf = "oneOf",
    Not = "not", If = "if", Then = "then", Else = "else", UnevaluatedItems = "unevaluatedItems",
    UnevaluatedProperties = "unevaluatedProperties", Dependencies = "dependencies",
}

const KW_COUNT: usize = KEYWORDS.len();

/// Where a value sits relative to subschemas, for finding `$anchor`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pos {
    Schema,
    SchemaMap,
    SchemaArray,
    Data,
}

fn child_pos(parent: Pos, key: Option<JsonStr<'_>>) -> Pos {
    match parent {
        Pos::SchemaMap | Pos::SchemaArray => Pos::Schema,
        Pos::Data => Pos::Data,
        Pos::Schema => {
            let Some(key) = key else {
                return Pos::Data;
            };
            let is = |names: &[&str]| names.iter().any(|n| key.eq_str(n));
            if is(&[
                "items",
                "contains",
                "additionalProperties",
                "propertyNames",
                "not",
                "if",
                "then",
                "else",
                "unevaluatedItems",
                "unevaluatedProperties",
                "contentSchema",
            ]) {
                Pos::Schema
            } else if is(&[
                "properties",
                "patternProperties",
                "$defs",
                "dependentSchemas",
            ]) {
                Pos::SchemaMap
            } else if is(&["allOf", "anyOf", "oneOf", "prefixItems"]) {
                Pos::SchemaArray
            } else {
                Pos::Data
            }
        }
    }
}

/// Why compilation stopped early: a problem (the [`CompileError`] is in
/// `Compiler::first`) or a bound; converted to a [`CompileError`] once, at the top. Internal
/// results carry this one byte instead of a 120-byte [`CompileError`], which keeps the
/// compiler's frames small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Halt {
    Problem,
    TooManyNodes,
    TooManyOps,
    TextFull,
    TooComplex,
    Internal,
}

/// Receives every problem in "collect" mode.
pub(crate) type Report<'r> = Option<&'r mut dyn FnMut(&CompileError)>;

pub(crate) struct Compiler<'s, 'p, 'r> {
    doc: &'s str,
    root: Value<'s>,
    nodes: &'p mut [u16],
    scratch: &'p mut [Scratch],
    n_nodes: usize,
    ops: &'p mut [Op],
    n_ops: usize,
    text: &'p mut [u8],
    n_text: usize,
    report: Report<'r>,
    first: Option<CompileError>,
    /// Whether any schema in the document has an `$id` (then references are resolved as URIs
    /// against each schema's base URI; otherwise only fragments are same-document).
    has_ids: bool,
    /// Bytes scanned while resolving references and anchors (bounded by
    /// [`REF_WORK_LIMIT`]).
    work: core::cell::Cell<u64>,
}

/// Compiles `schema` into `parts`.
pub(crate) fn compile<'p>(
    schema: &[u8],
    parts: Parts<'p>,
    report: Report<'_>,
) -> Result<Program<'p>, CompileError> {
    let limits = Limits {
        max_depth: SCHEMA_MAX_DEPTH,
    };
    let root = match Value::parse_with(schema, limits) {
        Ok(v) => v,
        Err(e) if e.kind == DecodeErrorKind::TooDeep => {
            return fail(report, CompileError::TooDeep);
        }
        Err(e) => return fail(report, CompileError::NotJson(e)),
    };
    if u32::try_from(schema.len()).is_err() {
        return fail(
            report,
            CompileError::TooManyNodes {
                capacity: parts.nodes.len(),
            },
        );
    }
    let doc = core::str::from_utf8(schema).unwrap_or_default();
    let mut c = Compiler {
        doc,
        root,
        nodes: parts.nodes,
        scratch: parts.scratch,
        n_nodes: 0,
        ops: parts.ops,
        n_ops: 0,
        text: parts.text,
        n_text: 0,
        report,
        first: None,
        has_ids: false,
        work: core::cell::Cell::new(0),
    };
    c.has_ids = c
        .find_key("$id", |at| c.schema_with_key_at(at).is_some())
        .is_some();
    match c.run() {
        Ok(()) => {}
        Err(halt) => {
            let e = c.error(halt);
            // A problem was reported when found; a capacity or internal error is reported here.
            if let (Some(r), false) = (c.report.as_mut(), halt == Halt::Problem) {
                r(&e);
            }
            return Err(e);
        }
    }
    if let Some(first) = c.first {
        return Err(first);
    }
    // `finish` finds `$ref` loops; they are problems to report too.
    let mut report = c.report.take();
    let result = c.finish();
    if let (Err(e), Some(r)) = (&result, report.as_mut()) {
        r(e);
    }
    result
}

fn fail<T>(report: Report<'_>, e: CompileError) -> Result<T, CompileError> {
    if let Some(r) = report {
        r(&e);
    }
    Err(e)
}

impl<'s, 'p> Compiler<'s, 'p, '_> {
    fn run(&mut self) -> Result<(), Halt> {
        self.child(self.root)?;
        let mut next = 0;
        while next < self.n_nodes {
            self.compile_node(next)?;
            next += 1;
        }
        Ok(())
    }

    fn finish(self) -> Result<Program<'p>, CompileError> {
        let Compiler {
            nodes,
            scratch,
            ops,
            text,
            n_nodes,
            n_ops,
            n_text,
            root,
            doc,
            ..
        } = self;
        let nodes: &'p [u16] = nodes;
        let ops: &'p [Op] = ops;
        let text: &'p [u8] = text;
        let internal = CompileError::Internal;
        let program = Program {
            nodes: nodes.get(..n_nodes).ok_or(internal)?,
            ops: ops.get(..n_ops).ok_or(internal)?,
            text: text
                .get(..n_text)
                .and_then(|t| core::str::from_utf8(t).ok())
                .ok_or(internal)?,
        };
        if let Some(node) = find_loop(&program, scratch) {
            let start = scratch
                .get(usize::from(node))
                .map_or(0, |s| s.start as usize);
            return Err(CompileError::RefCycle {
                pointer: pointer_at(doc, root, start),
            });
        }
        verify_structure(&program).map_err(|_| internal)?;
        Ok(program)
    }

    // ---- errors -------------------------------------------------------------------------

    /// A refused or invalid keyword: reported (and compilation goes on) in "collect" mode,
    /// otherwise kept as the error and compilation stops.
    fn problem(&mut self, e: CompileError) -> Result<(), Halt> {
        let collect = match self.report.as_mut() {
            Some(r) => {
                r(&e);
                true
            }
            None => false,
        };
        if self.first.is_none() {
            self.first = Some(e);
        }
        if collect {
            Ok(())
        } else {
            Err(Halt::Problem)
        }
    }

    /// The error a [`Halt`] stands for.
    fn error(&mut self, halt: Halt) -> CompileError {
        match halt {
            Halt::Problem => self.first.take().unwrap_or(CompileError::Internal),
            Halt::TooManyNodes => CompileError::TooManyNodes {
                capacity: self.nodes.len(),
            },
            Halt::TooManyOps => CompileError::TooManyOps {
                capacity: self.ops.len(),
            },
            Halt::TextFull => CompileError::TextFull {
                capacity: self.text.len(),
            },
            Halt::TooComplex => CompileError::TooComplex,
            Halt::Internal => CompileError::Internal,
        }
    }

    fn offset(&self, v: Value<'s>) -> usize {
        (v.raw().as_ptr() as usize).wrapping_sub(self.doc.as_ptr() as usize)
    }

    fn ptr(&self, at: Value<'s>) -> SchemaPointer {
        pointer_at(self.doc, self.root, self.offset(at))
    }

    fn refuse(&mut self, kw: Kw, at: Value<'s>, reason: &'static str) -> Result<(), Halt> {
        let pointer = self.ptr(at);
        self.problem(CompileError::Refused {
            keyword: kw.name(),
            pointer,
            reason,
        })
    }

    fn invalid(&mut self, kw: Kw, at: Value<'s>, reason: &'static str) -> Result<(), Halt> {
        let pointer = self.ptr(at);
        self.problem(CompileError::Invalid {
            keyword: kw.name(),
            pointer,
            reason,
        })
    }

    // ---- storage ------------------------------------------------------------------------

    fn emit(&mut self, op: Op) -> Result<(), Halt> {
        let slot = self.ops.get_mut(self.n_ops).ok_or(Halt::TooManyOps)?;
        *slot = op;
        self.n_ops += 1;
        Ok(())
    }

    fn count16(&self, n: usize) -> Result<u16, Halt> {
        u16::try_from(n).map_err(|_| Halt::TooManyOps)
    }

    /// The node for subschema `v`, queued for compilation if new.
    fn child(&mut self, v: Value<'s>) -> Result<u16, Halt> {
        let start = u32::try_from(self.offset(v)).unwrap_or(u32::MAX);
        let known = self
            .scratch
            .get(..self.n_nodes)
            .unwrap_or_default()
            .iter()
            .position(|s| s.start == start);
        if let Some(id) = known {
            return u16::try_from(id).map_err(|_| Halt::Internal);
        }
        let slot = self
            .scratch
            .get_mut(self.n_nodes)
            .ok_or(Halt::TooManyNodes)?;
        *slot = Scratch {
            start,
            len: u32::try_from(v.raw().len()).unwrap_or(u32::MAX),
            mark: 0,
        };
        let id = u16::try_from(self.n_nodes).map_err(|_| Halt::TooManyNodes)?;
        self.n_nodes += 1;
        Ok(id)
    }

    fn node_value(&self, id: usize) -> Value<'s> {
        let span = self.scratch.get(id).copied().unwrap_or(Scratch {
            start: 0,
            len: 0,
            mark: 0,
        });
        let start = span.start as usize;
        let raw = self
            .doc
            .get(start..start + span.len as usize)
            .unwrap_or("false");
        Value::from_checked(raw)
    }

    /// Stores `s` in the text area (reusing an earlier identical string).
    fn put_text(&mut self, s: &str) -> Result<Str, Halt> {
        let bytes = s.as_bytes();
        let end = self.n_text + bytes.len();
        let dst = self.text.get_mut(self.n_text..end).ok_or(Halt::TextFull)?;
        dst.copy_from_slice(bytes);
        self.commit_text(bytes.len())
    }

    /// Stores the decoded string.
    fn put_json_str(&mut self, s: JsonStr<'_>) -> Result<Str, Halt> {
        if let Some(plain) = s.as_plain() {
            return self.put_text(plain);
        }
        let tail = self.text.get_mut(self.n_text..).unwrap_or_default();
        let len = s.decode_into(tail).map_err(|_| Halt::TextFull)?.len();
        self.commit_text(len)
    }

    /// The `len` bytes just written after the used area: reuse an identical earlier string,
    /// or keep them.
    fn commit_text(&mut self, len: usize) -> Result<Str, Halt> {
        let (used, tail) = self.text.split_at(self.n_text.min(self.text.len()));
        let new = tail.get(..len).unwrap_or_default();
        // Search only the most recent bytes: repeated names (`required` and `properties` of one
        // schema) are close together, and compile time stays linear in the schema size.
        let window_start = used.len().saturating_sub(DEDUP_WINDOW);
        let off = if len == 0 {
            Some(0)
        } else {
            used.get(window_start..)
                .unwrap_or_default()
                .windows(len)
                .position(|w| w == new)
                .map(|p| p + window_start)
        };
        let off = match off {
            Some(off) => off,
            None => {
                let off = self.n_text;
                self.n_text += len;
                off
            }
        };
        Ok(Str {
            off: u16::try_from(off).map_err(|_| Halt::TextFull)?,
            len: u16::try_from(len).map_err(|_| Halt::TextFull)?,
        })
    }

    // ---- keywords -----------------------------------------------------------------------

    #[inline(never)]
    fn compile_node(&mut self, id: usize) -> Result<(), Halt> {
        let v = self.node_value(id);
        let start = u16::try_from(self.n_ops).map_err(|_| Halt::TooManyOps)?;
        if let Some(slot) = self.nodes.get_mut(id) {
            *slot = start;
        }
        match v.kind() {
            Kind::Bool => {
                if v.as_bool() == Some(false) {
                    self.emit(Op::False)?;
                }
                return Ok(());
            }
            Kind::Object => {}
            _ => {
                let pointer = self.ptr(v);
                return self.problem(CompileError::Invalid {
                    keyword: "(schema)",
                    pointer,
                    reason: "a schema must be an object or a boolean",
                });
            }
        }
        let mut kw: [Option<Value<'s>>; KW_COUNT] = [None; KW_COUNT];
        for (key, value) in v.members().into_iter().flatten() {
            let Some(k) = KEYWORDS.iter().position(|k| key.eq_str(k.name())) else {
                continue; // annotation or unknown keyword: ignored
            };
            match kw.get_mut(k) {
                Some(slot @ None) => *slot = Some(value),
                Some(Some(_)) => {
                    let name = KEYWORDS.get(k).copied().unwrap_or(Kw::Schema);
                    self.invalid(name, value, "keyword appears twice")?;
                }
                None => {}
            }
        }
        let get = |k: Kw| kw.get(k as usize).copied().flatten();

        self.core_keywords(&get)?;
        if let Some(t) = get(Kw::Type) {
            self.type_keyword(t)?;
        }
        if let Some(c) = get(Kw::Const) {
            let s = self.put_text(c.raw())?;
            self.emit(Op::Const(s))?;
        }
        if let Some(e) = get(Kw::Enum) {
            self.enum_keyword(e)?;
        }
        self.number_keywords(&get)?;
        self.string_keywords(&get)?;
        self.array_keywords(&get)?;
        self.object_keywords(&get)?;
        if let Some(r) = get(Kw::Ref) {
            if let Some(target) = self.resolve_ref(r, v)? {
                self.emit(Op::Ref(target))?;
            }
        }
        for (k, make) in [
            (Kw::AllOf, Op::AllOf as fn(u16) -> Op),
            (Kw::AnyOf, Op::AnyOf),
            (Kw::OneOf, Op::OneOf),
        ] {
            if let Some(list) = get(k) {
                self.schema_list(k, list, make)?;
            }
        }
        if let Some(n) = get(Kw::Not) {
            let node = self.child(n)?;
            self.emit(Op::Not(node))?;
        }
        if let Some(cond) = get(Kw::If) {
            let cond = self.child(cond)?;
            let then = get(Kw::Then).map(|t| self.child(t)).transpose()?;
            let otherwise = get(Kw::Else).map(|e| self.child(e)).transpose()?;
            self.emit(Op::If {
                cond,
                then: then.unwrap_or(NONE),
                otherwise: otherwise.unwrap_or(NONE),
            })?;
        }
        if let Some(u) = get(Kw::UnevaluatedItems) {
            let node = self.child(u)?;
            self.emit(Op::UnevaluatedItems(node))?;
        }
        if let Some(u) = get(Kw::UnevaluatedProperties) {
            let node = self.child(u)?;
            self.emit(Op::UnevaluatedProperties(node))?;
        }
        Ok(())
    }

    /// Out of line, like [`Compiler::resolve_ref`]: its `$id` buffer stays out of
    /// `compile_node`'s frame.
    #[inline(never)]
    fn core_keywords(&mut self, get: &dyn Fn(Kw) -> Option<Value<'s>>) -> Result<(), Halt> {
        if let Some(s) = get(Kw::Schema) {
            match s.as_str() {
                Some(uri) if DIALECTS.iter().any(|d| uri.eq_str(d)) => {}
                Some(_) => self.refuse(
                    Kw::Schema,
                    s,
                    "only JSON Schema 2020-12 is supported (no other $schema)",
                )?,
                None => self.invalid(Kw::Schema, s, "must be a string")?,
            }
        }
        if let Some(i) = get(Kw::Id) {
            match i.as_str() {
                Some(uri) => {
                    let mut buf = [0u8; REF_CAPACITY];
                    match uri.decode_into(&mut buf) {
                        Ok(text) => {
                            let text = text.strip_suffix('#').unwrap_or(text);
                            if text.contains('#') {
                                self.invalid(Kw::Id, i, "$id must not contain a fragment")?;
                            }
                        }
                        Err(_) => self.refuse(Kw::Id, i, "$id longer than 256 bytes")?,
                    }
                }
                None => self.invalid(Kw::Id, i, "must be a string")?,
            }
        }
        if let Some(a) = get(Kw::Anchor) {
            if !a.as_str().is_some_and(is_anchor_name) {
                self.invalid(
                    Kw::Anchor,
                    a,
                    "must be a plain name ([A-Za-z_][-A-Za-z0-9._]*)",
                )?;
            }
        }
        if let Some(d) = get(Kw::DynamicRef) {
            self.refuse(Kw::DynamicRef, d, "dynamic references are not supported")?;
        }
        if let Some(d) = get(Kw::DynamicAnchor) {
            self.refuse(Kw::DynamicAnchor, d, "dynamic anchors are not supported")?;
        }
        Ok(())
    }

    fn type_keyword(&mut self, t: Value<'s>) -> Result<(), Halt> {
        let name_bit = |s: JsonStr<'_>| {
            types::NAMES
                .iter()
                .find(|(n, _)| s.eq_str(n))
                .map(|&(_, bit)| bit)
        };
        let mask = match t.kind() {
            Kind::String => t.as_str().and_then(name_bit),
            Kind::Array => {
                let mut mask = 0u8;
                let mut ok = true;
                for e in t.elements().into_iter().flatten() {
                    match e.as_str().and_then(name_bit) {
                        Some(bit) => mask |= bit,
                        None => ok = false,
                    }
                }
                (ok && mask != 0).then_some(mask)
            }
            _ => None,
        };
        match mask {
            Some(mask) => self.emit(Op::Type(mask)),
            None => self.invalid(
                Kw::Type,
                t,
                "must be a type name or a non-empty array of type names",
            ),
        }
    }

    fn enum_keyword(&mut self, e: Value<'s>) -> Result<(), Halt> {
        let Some(items) = e.elements() else {
            return self.invalid(Kw::Enum, e, "must be an array");
        };
        let n = self.count16(items.clone().count())?;
        self.emit(Op::Enum(n))?;
        for item in items {
            let s = self.put_text(item.raw())?;
            self.emit(Op::EnumValue(s))?;
        }
        Ok(())
    }

    /// A non-negative integer keyword value, saturated to `u32::MAX` (exact: no instance
    /// below 4 GiB has that many items, properties or characters).
    fn count(&mut self, kw: Kw, v: Value<'s>) -> Result<Option<u32>, Halt> {
        let n = v
            .as_number()
            .and_then(|n| Decimal::parse(n.raw()))
            .and_then(|d| d.to_u64_saturating());
        match n {
            Some(n) => Ok(Some(u32::try_from(n).unwrap_or(u32::MAX))),
            None => {
                self.invalid(kw, v, "must be a non-negative integer")?;
                Ok(None)
            }
        }
    }

    fn number(&mut self, kw: Kw, v: Value<'s>) -> Result<Option<Str>, Halt> {
        match v.as_number() {
            Some(n) => Ok(Some(self.put_text(n.raw())?)),
            None => {
                self.invalid(kw, v, "must be a number")?;
                Ok(None)
            }
        }
    }

    fn number_keywords(&mut self, get: &dyn Fn(Kw) -> Option<Value<'s>>) -> Result<(), Halt> {
        if let Some(m) = get(Kw::MultipleOf) {
            match m.as_number().and_then(|n| Decimal::parse(n.raw())) {
                Some(d) if d.is_zero() || d.is_negative() => {
                    self.invalid(Kw::MultipleOf, m, "must be greater than 0")?;
                }
                Some(d) if d.significant_digits() > MULTIPLE_OF_MAX_DIGITS => {
                    self.refuse(
                        Kw::MultipleOf,
                        m,
                        "divisors with more than 18 significant digits are not supported",
                    )?;
                }
                Some(_) => {
                    if let Some(s) = self.number(Kw::MultipleOf, m)? {
                        self.emit(Op::MultipleOf(s))?;
                    }
                }
                None => self.invalid(Kw::MultipleOf, m, "must be a number")?,
            }
        }
        for (kw, make) in [
            (Kw::Minimum, Op::Minimum as fn(Str) -> Op),
            (Kw::ExclusiveMinimum, Op::ExclusiveMinimum),
            (Kw::Maximum, Op::Maximum),
            (Kw::ExclusiveMaximum, Op::ExclusiveMaximum),
        ] {
            if let Some(v) = get(kw) {
                if let Some(s) = self.number(kw, v)? {
                    self.emit(make(s))?;
                }
            }
        }
        Ok(())
    }

    fn string_keywords(&mut self, get: &dyn Fn(Kw) -> Option<Value<'s>>) -> Result<(), Halt> {
        for (kw, make) in [
            (Kw::MinLength, Op::MinLength as fn(u32) -> Op),
            (Kw::MaxLength, Op::MaxLength),
        ] {
            if let Some(v) = get(kw) {
                if let Some(n) = self.count(kw, v)? {
                    self.emit(make(n))?;
                }
            }
        }
        if let Some(p) = get(Kw::Pattern) {
            self.pattern_keyword(p)?;
        }
        Ok(())
    }

    /// `pattern`: its source (kept for messages), then its automaton.
    fn pattern_keyword(&mut self, p: Value<'s>) -> Result<(), Halt> {
        let Some(source) = p.as_str() else {
            return self.invalid(Kw::Pattern, p, "must be a string");
        };
        #[cfg(not(feature = "pattern"))]
        {
            let _ = source;
            self.refuse(Kw::Pattern, p, NO_PATTERN)
        }
        #[cfg(feature = "pattern")]
        {
            let s = self.put_json_str(source)?;
            if let Some(states) = self.check_regex(Kw::Pattern, p, s)? {
                self.emit(Op::Pattern(s))?;
                self.emit_regex(s, states)?;
            }
            Ok(())
        }
    }

    /// The stored string `s`.
    #[cfg(feature = "pattern")]
    fn stored(&self, s: Str) -> &str {
        let start = usize::from(s.off);
        self.text
            .get(start..start + usize::from(s.len))
            .and_then(|t| core::str::from_utf8(t).ok())
            .unwrap_or_default()
    }

    /// Checks the regular expression stored at `s` against the subset: its number of
    /// automaton states, or `None` once the refusal is reported.
    #[cfg(feature = "pattern")]
    fn check_regex(&mut self, kw: Kw, at: Value<'s>, s: Str) -> Result<Option<u8>, Halt> {
        match regex::check(self.stored(s)) {
            Ok(states) => Ok(Some(states)),
            Err(RegexError::Refused(reason)) => {
                self.refuse(kw, at, reason)?;
                Ok(None)
            }
            Err(RegexError::Full) => Err(Halt::Internal),
        }
    }

    /// Emits the `Regex` block (header and automaton) of the checked regular expression stored
    /// at `s`, which has `states` states.
    #[cfg(feature = "pattern")]
    fn emit_regex(&mut self, s: Str, states: u8) -> Result<(), Halt> {
        let full = Halt::TooManyOps;
        let start = usize::from(s.off);
        let source = self
            .text
            .get(start..start + usize::from(s.len))
            .and_then(|t| core::str::from_utf8(t).ok())
            .unwrap_or_default();
        let block = self.ops.get_mut(self.n_ops + 1..).ok_or(full)?;
        let len = match regex::compile_into(source, states, block) {
            Ok(len) => len,
            Err(RegexError::Full) => return Err(full),
            Err(RegexError::Refused(_)) => return Err(Halt::Internal),
        };
        let len16 = u16::try_from(len).map_err(|_| full)?;
        self.emit(Op::Regex { len: len16, states })?;
        self.n_ops += len;
        Ok(())
    }

    fn array_keywords(&mut self, get: &dyn Fn(Kw) -> Option<Value<'s>>) -> Result<(), Halt> {
        for (kw, make) in [
            (Kw::MinItems, Op::MinItems as fn(u32) -> Op),
            (Kw::MaxItems, Op::MaxItems),
        ] {
            if let Some(v) = get(kw) {
                if let Some(n) = self.count(kw, v)? {
                    self.emit(make(n))?;
                }
            }
        }
        if let Some(u) = get(Kw::UniqueItems) {
            match u.as_bool() {
                Some(true) => self.emit(Op::UniqueItems)?,
                Some(false) => {}
                None => self.invalid(Kw::UniqueItems, u, "must be a boolean")?,
            }
        }
        let prefix = get(Kw::PrefixItems);
        let rest = get(Kw::Items);
        if prefix.is_some() || rest.is_some() {
            let mut n = 0usize;
            if let Some(p) = prefix {
                match p.elements() {
                    Some(items) if items.clone().next().is_some() => n = items.count(),
                    _ => {
                        return self.invalid(
                            Kw::PrefixItems,
                            p,
                            "must be a non-empty array of schemas",
                        )
                    }
                }
            }
            let rest = rest.map(|r| self.child(r)).transpose()?.unwrap_or(NONE);
            let prefix_count = self.count16(n)?;
            self.emit(Op::Items {
                prefix: prefix_count,
                rest,
            })?;
            for item in prefix.and_then(|p| p.elements()).into_iter().flatten() {
                let node = self.child(item)?;
                self.emit(Op::Child(node))?;
            }
        }
        if let Some(c) = get(Kw::Contains) {
            let min = match get(Kw::MinContains) {
                Some(v) => self.count(Kw::MinContains, v)?.unwrap_or(1),
                None => 1,
            };
            let max = match get(Kw::MaxContains) {
                Some(v) => self.count(Kw::MaxContains, v)?.unwrap_or(u32::MAX),
                None => u32::MAX,
            };
            let node = self.child(c)?;
            self.emit(Op::Contains(node))?;
            self.emit(Op::MinContains(min))?;
            self.emit(Op::MaxContains(max))?;
        } else {
            for kw in [Kw::MinContains, Kw::MaxContains] {
                if let Some(v) = get(kw) {
                    self.count(kw, v)?;
                }
            }
        }
        Ok(())
    }

    fn object_keywords(&mut self, get: &dyn Fn(Kw) -> Option<Value<'s>>) -> Result<(), Halt> {
        if let Some(r) = get(Kw::Required) {
            let ok = r
                .elements()
                .is_some_and(|mut e| e.all(|n| n.kind() == Kind::String));
            if !ok {
                self.invalid(Kw::Required, r, "must be an array of strings")?;
            } else {
                for name in r
                    .elements()
                    .into_iter()
                    .flatten()
                    .filter_map(|n| n.as_str())
                {
                    let s = self.put_json_str(name)?;
                    self.emit(Op::Required(s))?;
                }
            }
        }
        for (kw, make) in [
            (Kw::MinProperties, Op::MinProperties as fn(u32) -> Op),
            (Kw::MaxProperties, Op::MaxProperties),
        ] {
            if let Some(v) = get(kw) {
                if let Some(n) = self.count(kw, v)? {
                    self.emit(make(n))?;
                }
            }
        }
        self.members(get)?;
        if let Some(p) = get(Kw::PropertyNames) {
            let node = self.child(p)?;
            self.emit(Op::PropertyNames(node))?;
        }
        if let Some(d) = get(Kw::DependentRequired) {
            let valid = d.members().is_some_and(|mut m| {
                m.all(|(_, names)| {
                    names
                        .elements()
                        .is_some_and(|mut e| e.all(|n| n.kind() == Kind::String))
                })
            });
            if !valid {
                self.invalid(
                    Kw::DependentRequired,
                    d,
                    "must be an object of arrays of strings",
                )?;
            } else {
                for (trigger, names) in d.members().into_iter().flatten() {
                    let trigger = self.put_json_str(trigger)?;
                    let list = names.elements();
                    let count = self.count16(list.clone().map_or(0, |l| l.count()))?;
                    self.emit(Op::DependentRequired { trigger, count })?;
                    for name in list.into_iter().flatten().filter_map(|n| n.as_str()) {
                        let s = self.put_json_str(name)?;
                        self.emit(Op::Name(s))?;
                    }
                }
            }
        }
        if let Some(d) = get(Kw::Dependencies) {
            self.dependencies(d)?;
        }
        if let Some(d) = get(Kw::DependentSchemas) {
            match d.members() {
                None => self.invalid(Kw::DependentSchemas, d, "must be an object of schemas")?,
                Some(members) => {
                    for (trigger, schema) in members {
                        let trigger = self.put_json_str(trigger)?;
                        let node = self.child(schema)?;
                        self.emit(Op::DependentSchema { trigger, node })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Draft 7 `dependencies`, kept for compatibility: an array value acts as
    /// `dependentRequired`, a schema value as `dependentSchemas`.
    fn dependencies(&mut self, d: Value<'s>) -> Result<(), Halt> {
        let valid = d.members().is_some_and(|mut m| {
            m.all(|(_, v)| match v.kind() {
                Kind::Array => v
                    .elements()
                    .is_some_and(|mut e| e.all(|n| n.kind() == Kind::String)),
                Kind::Object | Kind::Bool => true,
                _ => false,
            })
        });
        if !valid {
            return self.invalid(
                Kw::Dependencies,
                d,
                "must be an object of string arrays or schemas",
            );
        }
        for (trigger, dep) in d.members().into_iter().flatten() {
            let trigger = self.put_json_str(trigger)?;
            if let Some(list) = dep.elements() {
                let count = self.count16(list.clone().count())?;
                self.emit(Op::DependentRequired { trigger, count })?;
                for name in list.filter_map(|n| n.as_str()) {
                    let s = self.put_json_str(name)?;
                    self.emit(Op::Name(s))?;
                }
            } else {
                let node = self.child(dep)?;
                self.emit(Op::DependentSchema { trigger, node })?;
            }
        }
        Ok(())
    }

    /// `properties`, `patternProperties` and `additionalProperties` as one `Members` op.
    fn members(&mut self, get: &dyn Fn(Kw) -> Option<Value<'s>>) -> Result<(), Halt> {
        let props = get(Kw::Properties);
        let pats = get(Kw::PatternProperties);
        let additional = get(Kw::AdditionalProperties);
        if props.is_none() && pats.is_none() && additional.is_none() {
            return Ok(());
        }
        let mut ok = true;
        for (kw, map) in [(Kw::Properties, props), (Kw::PatternProperties, pats)] {
            let Some(map) = map else { continue };
            match map.members() {
                None => {
                    self.invalid(kw, map, "must be an object of schemas")?;
                    ok = false;
                }
                Some(members) => {
                    // Every member needs a node: refuse an object that cannot fit at once (the
                    // duplicate check below also needs one free node's scratch per member).
                    if members.clone().count() > self.nodes.len().saturating_sub(self.n_nodes) {
                        return Err(Halt::TooManyNodes);
                    }
                    if self.has_duplicate_keys(members)? {
                        self.invalid(kw, map, "a name appears twice")?;
                        ok = false;
                    }
                }
            }
        }
        // Check every pattern before emitting, so a refusal leaves no half-built op.
        #[cfg(feature = "pattern")]
        for (key, schema) in pats.and_then(|p| p.members()).into_iter().flatten() {
            let s = self.put_json_str(key)?;
            if self
                .check_regex(Kw::PatternProperties, schema, s)?
                .is_none()
            {
                ok = false;
            }
        }
        #[cfg(not(feature = "pattern"))]
        if let Some(p) = pats.filter(|p| p.members().is_some_and(|mut m| m.next().is_some())) {
            self.refuse(Kw::PatternProperties, p, NO_PATTERN)?;
            ok = false;
        }
        if !ok {
            return Ok(());
        }
        let n_props = props.and_then(|p| p.members()).map_or(0, |m| m.count());
        let additional = additional
            .map(|a| self.child(a))
            .transpose()?
            .unwrap_or(NONE);
        let props_count = self.count16(n_props)?;
        let members_at = self.n_ops;
        self.emit(Op::Members {
            props: props_count,
            patterns: 0,
            additional,
        })?;
        for (key, schema) in props.and_then(|p| p.members()).into_iter().flatten() {
            let name = self.put_json_str(key)?;
            let node = self.child(schema)?;
            self.emit(Op::Prop { name, node })?;
        }
        #[cfg(feature = "pattern")]
        {
            let section = self.n_ops;
            for (key, schema) in pats.and_then(|p| p.members()).into_iter().flatten() {
                let pattern = self.put_json_str(key)?;
                let node = self.child(schema)?;
                self.emit(Op::PatternProp { pattern, node })?;
                let states = regex::check(self.stored(pattern)).map_err(|_| Halt::Internal)?;
                self.emit_regex(pattern, states)?;
            }
            let patterns = self.count16(self.n_ops - section)?;
            if let Some(Op::Members { patterns: slot, .. }) = self.ops.get_mut(members_at) {
                *slot = patterns;
            }
        }
        #[cfg(not(feature = "pattern"))]
        let _ = members_at;
        Ok(())
    }

    /// True when two of `members` have the same name once decoded (`"a"` and `"\u0061"` too).
    ///
    /// O(n log n) without allocation: the names' places in the document go into the scratch of
    /// the free nodes (the caller checked there is one per member; a slot is overwritten when
    /// `child` takes its node, and nothing reads a free slot), are sorted there by decoded name
    /// with a heapsort (constant stack) and compared with their neighbours. The program is not
    /// touched. Comparing every pair instead took 0.48 s for 4 095 names (release build).
    fn has_duplicate_keys(&mut self, members: crate::json::Members<'s>) -> Result<bool, Halt> {
        let doc = self.doc;
        let free = self.scratch.get_mut(self.n_nodes..).unwrap_or_default();
        let mut n = 0;
        for (key, _) in members {
            let body = key.raw();
            // Keys are slices of the document, whose length fits a `u32` (checked up front).
            let start = (body.as_ptr() as usize).wrapping_sub(doc.as_ptr() as usize);
            let slot = free.get_mut(n).ok_or(Halt::TooManyNodes)?;
            *slot = Scratch {
                start: u32::try_from(start).map_err(|_| Halt::Internal)?,
                len: u32::try_from(body.len()).map_err(|_| Halt::Internal)?,
                mark: u32::from(key.has_escapes()),
            };
            n += 1;
        }
        let names = free.get_mut(..n).unwrap_or_default();
        let order = |a: &Scratch, b: &Scratch| {
            let (a, b) = (scratch_str(doc, a), scratch_str(doc, b));
            match (a.as_plain(), b.as_plain()) {
                // UTF-8 byte order is code point order: the same order as the decoded chars.
                (Some(a), Some(b)) => a.cmp(b),
                _ => a.chars().cmp(b.chars()),
            }
        };
        heap_sort(names, order);
        Ok(names
            .windows(2)
            .any(|pair| matches!(pair, [a, b] if order(a, b) == Ordering::Equal)))
    }

    fn schema_list(&mut self, kw: Kw, list: Value<'s>, make: fn(u16) -> Op) -> Result<(), Halt> {
        let Some(items) = list.elements().filter(|e| e.clone().next().is_some()) else {
            return self.invalid(kw, list, "must be a non-empty array of schemas");
        };
        let n = self.count16(items.clone().count())?;
        self.emit(make(n))?;
        for item in items {
            let node = self.child(item)?;
            self.emit(Op::Child(node))?;
        }
        Ok(())
    }

    // ---- references ---------------------------------------------------------------------

    /// Resolves the `$ref` at `at`, found in schema `node`, to a node of this document. Out of
    /// line: its 256-byte buffers exist only while a reference is resolved, not in the frame of
    /// every keyword's compilation.
    #[inline(never)]
    fn resolve_ref(&mut self, at: Value<'s>, node: Value<'s>) -> Result<Option<u16>, Halt> {
        let Some(js) = at.as_str() else {
            self.invalid(Kw::Ref, at, "must be a string")?;
            return Ok(None);
        };
        let mut buf = [0u8; REF_CAPACITY];
        let Ok(reference) = js.decode_into(&mut buf) else {
            self.refuse(Kw::Ref, at, "reference longer than 256 bytes")?;
            return Ok(None);
        };
        const REMOTE: &str = "not a same-document reference (other documents are never fetched)";
        // The resource the reference names, and the fragment within it.
        let target;
        let (resource, fragment, resource_uri) = if self.has_ids {
            let resolved = self
                .base_at(self.offset(node))
                .and_then(|base| uri::resolve(base.as_str(), reference));
            let Some(resolved) = resolved else {
                self.refuse(Kw::Ref, at, "URI longer than 256 bytes")?;
                return Ok(None);
            };
            target = resolved;
            let (absolute, fragment) = match target.as_str().split_once('#') {
                Some((a, f)) => (a, f),
                None => (target.as_str(), ""),
            };
            match self.find_resource(absolute) {
                Some(r) => (r, fragment, Some(absolute)),
                None => {
                    self.refuse(Kw::Ref, at, REMOTE)?;
                    return Ok(None);
                }
            }
        } else {
            // No `$id` anywhere: only a bare fragment stays in the document.
            match reference.strip_prefix('#') {
                Some(fragment) => (self.root, fragment, None),
                None => {
                    self.refuse(Kw::Ref, at, REMOTE)?;
                    return Ok(None);
                }
            }
        };
        let mut fbuf = [0u8; REF_CAPACITY];
        let found = match percent_decode(fragment, &mut fbuf) {
            None => None,
            Some("") => Some(resource),
            Some(p) if p.starts_with('/') => resolve_pointer(resource, p),
            Some(name) => self.find_anchor(name, resource_uri),
        };
        if self.work.get() > REF_WORK_LIMIT {
            return Err(Halt::TooComplex);
        }
        match found {
            Some(t) => Ok(Some(self.child(t)?)),
            None => {
                let pointer = self.ptr(at);
                self.problem(CompileError::UnresolvedRef { pointer })?;
                Ok(None)
            }
        }
    }

    /// The base URI of the schema starting at byte `target`: every `$id` on the way from the
    /// root, resolved in turn (an empty base when there is none).
    fn base_at(&self, target: usize) -> Option<Uri> {
        let mut base = Uri::new();
        let mut cur = self.root;
        let mut pos = Pos::Schema;
        loop {
            if pos == Pos::Schema {
                if let Some(id) = cur.get("$id").and_then(|v| v.as_str()) {
                    let mut buf = [0u8; REF_CAPACITY];
                    let id = id.decode_into(&mut buf).ok()?;
                    let id = id.strip_suffix('#').unwrap_or(id);
                    base = uri::resolve(base.as_str(), id)?;
                }
            }
            if self.offset(cur) == target {
                return Some(base);
            }
            self.charge(cur.raw().len());
            match cur.kind() {
                Kind::Object => {
                    let (k, v) = cur.members()?.find(|(_, v)| self.contains(*v, target))?;
                    pos = child_pos(pos, Some(k));
                    cur = v;
                }
                Kind::Array => {
                    cur = cur.elements()?.find(|e| self.contains(*e, target))?;
                    pos = child_pos(pos, None);
                }
                _ => return None,
            }
        }
    }

    /// The schema whose base URI (without fragment) is `absolute`: the root or a schema with an
    /// `$id` (an embedded resource).
    fn find_resource(&self, absolute: &str) -> Option<Value<'s>> {
        let is = |v: Value<'s>| {
            self.base_at(self.offset(v))
                .is_some_and(|u| u.without_fragment() == absolute)
        };
        if is(self.root) {
            return Some(self.root);
        }
        let at = self.find_key("$id", |at| self.schema_with_key_at(at).is_some_and(is))?;
        self.schema_with_key_at(at)
    }

    /// The schema object declaring `"$anchor": name`, searched at schema positions only and,
    /// when `resource` is given, only in the resource with that URI.
    fn find_anchor(&self, name: &str, resource: Option<&str>) -> Option<Value<'s>> {
        if !is_anchor_name_str(name) {
            return None;
        }
        let accept = |at: usize| {
            let Some(obj) = self.schema_with_key_at(at) else {
                return false;
            };
            let named = obj
                .get("$anchor")
                .and_then(|a| a.as_str())
                .is_some_and(|a| a.eq_str(name));
            named
                && resource.is_none_or(|r| {
                    self.base_at(self.offset(obj))
                        .is_some_and(|u| u.without_fragment() == r)
                })
        };
        let at = self.find_key("$anchor", accept)?;
        self.schema_with_key_at(at)
    }

    /// The byte offset of the first object key equal to `key` for which `accept` holds, found
    /// by a linear scan of the (checked) document: no stack, no recursion.
    fn find_key(&self, key: &str, mut accept: impl FnMut(usize) -> bool) -> Option<usize> {
        let bytes = self.doc.as_bytes();
        self.charge(bytes.len());
        let mut i = 0usize;
        while let Some(&b) = bytes.get(i) {
            if b != b'"' {
                i += 1;
                continue;
            }
            let start = i;
            i += 1;
            while let Some(&c) = bytes.get(i) {
                match c {
                    b'\\' => i += 2,
                    b'"' => break,
                    _ => i += 1,
                }
            }
            i += 1;
            let mut j = i;
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(j) {
                j += 1;
            }
            if bytes.get(j) != Some(&b':') {
                continue;
            }
            let text = Value::from_checked(self.doc.get(start..i).unwrap_or_default());
            if text.as_str().is_some_and(|k| k.eq_str(key)) && accept(start) {
                return Some(start);
            }
        }
        None
    }

    /// The object that has a member whose key starts at byte `key_at`, if that object sits at
    /// a schema position.
    fn schema_with_key_at(&self, key_at: usize) -> Option<Value<'s>> {
        let mut cur = self.root;
        let mut pos = Pos::Schema;
        loop {
            if pos == Pos::Data {
                return None;
            }
            self.charge(cur.raw().len());
            match cur.kind() {
                Kind::Object => {
                    let mut members = cur.members()?;
                    let mut next = None;
                    while let Some((k, v)) = members.next_pair() {
                        if self.offset(k) == key_at {
                            return (pos == Pos::Schema).then_some(cur);
                        }
                        if self.contains(v, key_at) {
                            next = Some((k, v));
                            break;
                        }
                    }
                    let (k, v) = next?;
                    pos = child_pos(pos, k.as_str());
                    cur = v;
                }
                Kind::Array => {
                    cur = cur.elements()?.find(|e| self.contains(*e, key_at))?;
                    pos = child_pos(pos, None);
                }
                _ => return None,
            }
        }
    }

    /// Counts `n` bytes of scanning against [`REF_WORK_LIMIT`].
    fn charge(&self, n: usize) {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        self.work.set(self.work.get().saturating_add(n));
    }

    fn contains(&self, v: Value<'s>, at: usize) -> bool {
        let start = self.offset(v);
        start <= at && at < start + v.raw().len()
    }
}

/// The JSON Pointer of the value starting at byte `target` of `doc`.
pub(crate) fn pointer_at(doc: &str, root: Value<'_>, target: usize) -> SchemaPointer {
    let base = doc.as_ptr() as usize;
    let offset = |v: Value<'_>| (v.raw().as_ptr() as usize).wrapping_sub(base);
    let inside = |v: Value<'_>| {
        let s = offset(v);
        s <= target && target < s + v.raw().len()
    };
    let mut p = PointerBuf::<SCHEMA_POINTER_CAPACITY>::new();
    let mut cur = root;
    while offset(cur) != target {
        match cur.kind() {
            Kind::Object => {
                let Some((k, v)) = cur.members().and_then(|mut m| m.find(|(_, v)| inside(*v)))
                else {
                    break;
                };
                let mut buf = [0u8; SCHEMA_POINTER_CAPACITY];
                p.push_back(k.decode_into(&mut buf).unwrap_or("…"));
                cur = v;
            }
            Kind::Array => {
                let Some((i, v)) = cur
                    .elements()
                    .and_then(|e| e.enumerate().find(|(_, v)| inside(*v)))
                else {
                    break;
                };
                let mut buf = [0u8; 20];
                p.push_back(format_index(i, &mut buf));
                cur = v;
            }
            _ => break,
        }
    }
    SchemaPointer(p)
}

/// The JSON string whose body (the text between the quotes) `s` locates in `doc`, with
/// `s.mark` telling whether it has escapes (see `Compiler::has_duplicate_keys`).
fn scratch_str<'d>(doc: &'d str, s: &Scratch) -> JsonStr<'d> {
    let start = s.start as usize;
    let body = doc
        .get(start..start.saturating_add(s.len as usize))
        .unwrap_or_default();
    JsonStr::from_checked(body, s.mark != 0)
}

/// Sorts `v` by `order` in place: heapsort, O(n log n) comparisons in the worst case, constant
/// stack, no allocation (and much less code than `sort_unstable_by`).
pub(crate) fn heap_sort<T>(v: &mut [T], order: impl Fn(&T, &T) -> Ordering) {
    // Moves the element at `node` down the max-heap `heap` to its place.
    let sift_down = |heap: &mut [T], mut node: usize| loop {
        let left = 2 * node + 1;
        let right = left + 1;
        let mut child = left;
        if let (Some(l), Some(r)) = (heap.get(left), heap.get(right)) {
            if order(l, r) == Ordering::Less {
                child = right;
            }
        }
        match (heap.get(node), heap.get(child)) {
            (Some(parent), Some(c)) if order(parent, c) == Ordering::Less => {
                heap.swap(node, child);
                node = child;
            }
            _ => break,
        }
    };
    for node in (0..v.len() / 2).rev() {
        sift_down(v, node);
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        if let Some(heap) = v.get_mut(..end) {
            sift_down(heap, 0);
        }
    }
}

fn is_anchor_name(s: JsonStr<'_>) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

fn is_anchor_name_str(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// Decodes `%XX` escapes of a URI fragment into `buf`.
fn percent_decode<'b>(s: &str, buf: &'b mut [u8; REF_CAPACITY]) -> Option<&'b str> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut n = 0;
    while let Some(&b) = bytes.get(i) {
        let out = if b == b'%' {
            let hi = char::from(*bytes.get(i + 1)?).to_digit(16)?;
            let lo = char::from(*bytes.get(i + 2)?).to_digit(16)?;
            i += 3;
            u8::try_from(hi * 16 + lo).ok()?
        } else {
            i += 1;
            b
        };
        *buf.get_mut(n)? = out;
        n += 1;
    }
    core::str::from_utf8(buf.get(..n)?).ok()
}

/// Follows a JSON Pointer (RFC 6901) from `root`.
fn resolve_pointer<'s>(root: Value<'s>, pointer: &str) -> Option<Value<'s>> {
    let mut cur = root;
    for token in pointer.split('/').skip(1) {
        cur = match cur.kind() {
            Kind::Object => cur.members()?.find(|(k, _)| token_eq(*k, token))?.1,
            Kind::Array => {
                let ok = !token.is_empty()
                    && token.bytes().all(|b| b.is_ascii_digit())
                    && (token == "0" || !token.starts_with('0'));
                if !ok {
                    return None;
                }
                cur.index(token.parse().ok()?)?
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// True when `key` equals the pointer token once `~1` and `~0` are unescaped.
fn token_eq(key: JsonStr<'_>, token: &str) -> bool {
    let mut t = token.chars();
    let mut k = key.chars();
    loop {
        let tc = match t.next() {
            None => return k.next().is_none(),
            Some('~') => match t.next() {
                Some('0') => '~',
                Some('1') => '/',
                _ => return false,
            },
            Some(c) => c,
        };
        if k.next() != Some(tc) {
            return false;
        }
    }
}
