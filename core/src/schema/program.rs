//! The compiled program: its instructions, the caller-provided [`Storage`] it lives in, its
//! postcard form, and the checks run when a stored program is loaded.
//!
//! A program is three arrays:
//! - `nodes`: one entry per compiled (sub)schema, the index of its first instruction; node `i`'s
//!   instructions run up to the next node's first one. Node 0 is the root.
//! - `ops`: instructions ([`Op`]). A keyword is one op, followed by its payload ops (children,
//!   property entries, enum values) when it has any.
//! - `text`: UTF-8 bytes holding property names, number lexemes, `const`/`enum` JSON texts and
//!   regular expressions, referenced by [`Str`] (offset, length).
//!
//! Everything is indexed with `u16`, so a program has at most 65 534 nodes, 65 535 ops and
//! 65 535 text bytes. [`NONE`] marks an absent optional child.

use serde::de::{self, DeserializeSeed, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::error::LoadError;
use super::number::{Decimal, MULTIPLE_OF_MAX_DIGITS};
#[cfg(feature = "pattern")]
use super::regex;
use crate::json::{Kind, Limits, Value};

/// An absent optional child.
pub(crate) const NONE: u16 = u16::MAX;

/// Magic bytes at the start of a postcard program.
pub const PROGRAM_MAGIC: [u8; 4] = *b"EMSP";

/// Version of the postcard program format written by this crate (2: regular expressions are
/// stored compiled, as automata, instead of as source to compile at every match).
pub const PROGRAM_VERSION: u16 = 2;

/// Bit of the `type` mask for each JSON Schema type.
pub(crate) mod types {
    pub(crate) const NULL: u8 = 1;
    pub(crate) const BOOLEAN: u8 = 2;
    pub(crate) const INTEGER: u8 = 4;
    pub(crate) const NUMBER: u8 = 8;
    pub(crate) const STRING: u8 = 16;
    pub(crate) const ARRAY: u8 = 32;
    pub(crate) const OBJECT: u8 = 64;
    /// Names in bit order.
    pub(crate) const NAMES: [(&str, u8); 7] = [
        ("null", NULL),
        ("boolean", BOOLEAN),
        ("integer", INTEGER),
        ("number", NUMBER),
        ("string", STRING),
        ("array", ARRAY),
        ("object", OBJECT),
    ];
}

/// A string in the program's text area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Str {
    /// Byte offset in the text area.
    pub off: u16,
    /// Length in bytes.
    pub len: u16,
}

/// One instruction. Payload ops (`Child`, `EnumValue`, `Name`, `Prop`, `PatternProp`,
/// `MinContains`, `MaxContains`) only appear right after the keyword op that counts them; a
/// `Regex` block (its header, then `len` `Re*` ops) only right after `Pattern` or a
/// `PatternProp`. Eight bytes each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `type`: a mask of [`types`] bits.
    Type(u8),
    /// The `false` schema: nothing is valid.
    False,
    /// `const`: the JSON text of the value.
    Const(Str),
    /// `enum`: followed by this many `EnumValue`.
    Enum(u16),
    /// `multipleOf` (number lexeme).
    MultipleOf(Str),
    /// `minimum` (number lexeme).
    Minimum(Str),
    /// `exclusiveMinimum` (number lexeme).
    ExclusiveMinimum(Str),
    /// `maximum` (number lexeme).
    Maximum(Str),
    /// `exclusiveMaximum` (number lexeme).
    ExclusiveMaximum(Str),
    /// `minLength` in code points.
    MinLength(u32),
    /// `maxLength` in code points.
    MaxLength(u32),
    /// `pattern` (regular expression source, for messages), followed by its `Regex` block.
    Pattern(Str),
    /// `minItems`.
    MinItems(u32),
    /// `maxItems`.
    MaxItems(u32),
    /// `uniqueItems: true`.
    UniqueItems,
    /// `prefixItems` (followed by `prefix` `Child`) and `items` (`rest`, or [`NONE`]).
    Items {
        /// Number of `prefixItems` children that follow.
        prefix: u16,
        /// The `items` schema.
        rest: u16,
    },
    /// `contains`, followed by `MinContains` and `MaxContains`.
    Contains(u16),
    /// `minContains` (payload of `Contains`).
    MinContains(u32),
    /// `maxContains` (payload of `Contains`; `u32::MAX` when absent).
    MaxContains(u32),
    /// `required`: one op per name.
    Required(Str),
    /// `minProperties`.
    MinProperties(u32),
    /// `maxProperties`.
    MaxProperties(u32),
    /// `properties` (`props` `Prop` follow), `patternProperties` (`patterns` ops follow: each
    /// entry a `PatternProp` and its `Regex` block), `additionalProperties` (`additional`, or
    /// [`NONE`]).
    Members {
        /// Number of `Prop` that follow.
        props: u16,
        /// Number of ops of the `patternProperties` entries that follow the `Prop`s.
        patterns: u16,
        /// The `additionalProperties` schema.
        additional: u16,
    },
    /// `propertyNames`.
    PropertyNames(u16),
    /// One `dependentRequired` entry, followed by `count` `Name`.
    DependentRequired {
        /// The property whose presence triggers the requirement.
        trigger: Str,
        /// Number of `Name` that follow.
        count: u16,
    },
    /// One `dependentSchemas` entry.
    DependentSchema {
        /// The property whose presence triggers the schema.
        trigger: Str,
        /// The schema.
        node: u16,
    },
    /// `$ref` (same document, resolved at compile time).
    Ref(u16),
    /// `allOf`, followed by this many `Child`.
    AllOf(u16),
    /// `anyOf`, followed by this many `Child`.
    AnyOf(u16),
    /// `oneOf`, followed by this many `Child`.
    OneOf(u16),
    /// `not`.
    Not(u16),
    /// `if` / `then` / `else` (`then` and `else` may be [`NONE`]).
    If {
        /// The `if` schema.
        cond: u16,
        /// The `then` schema.
        then: u16,
        /// The `else` schema.
        otherwise: u16,
    },
    /// `unevaluatedItems`.
    UnevaluatedItems(u16),
    /// `unevaluatedProperties`.
    UnevaluatedProperties(u16),
    /// Payload: a subschema.
    Child(u16),
    /// Payload of `Enum`: the JSON text of one value.
    EnumValue(Str),
    /// Payload of `DependentRequired`: a property name.
    Name(Str),
    /// Payload of `Members`: a `properties` entry.
    Prop {
        /// The property name.
        name: Str,
        /// Its schema.
        node: u16,
    },
    /// Payload of `Members`: a `patternProperties` entry, followed by its `Regex` block.
    PatternProp {
        /// The regular expression's source.
        pattern: Str,
        /// Its schema.
        node: u16,
    },
    /// Header of a compiled regular expression: `len` ops follow, the first `states` of them
    /// automaton states, the rest class ranges (see `regex::nfa`).
    Regex {
        /// Ops that follow.
        len: u16,
        /// How many of them are states (1 to 128).
        states: u8,
    },
    /// Automaton state: this code point.
    ReChar(char),
    /// Automaton state: any code point but a line terminator.
    ReAny,
    /// Automaton state: a character class over the `ranges` `ReRange`s at block offset `at`
    /// and the escapes in `flags` (`regex::class`).
    ReClass {
        /// Block offset of the first range.
        at: u16,
        /// Number of ranges.
        ranges: u8,
        /// `regex::class` bits.
        flags: u8,
    },
    /// Automaton state: continue at both states.
    ReSplit(u8, u8),
    /// Automaton state: continue at this state.
    ReJmp(u8),
    /// Automaton state: only at the start of the subject.
    ReStart,
    /// Automaton state: only at the end of the subject.
    ReEnd,
    /// Automaton state: a match.
    ReMatch,
    /// A class range `lo..=hi` (see [`Op::re_range`]; `hi` is split to keep ops at 8 bytes).
    ReRange {
        /// The first code point.
        lo: char,
        /// The last code point's low 16 bits.
        hi_low: u16,
        /// The last code point's high bits.
        hi_plane: u8,
    },
}

/// The wire form of an op: a tag and three numbers, written as postcard varints. One small
/// fixed shape keeps the decoder a few hundred bytes of flash (a derived visitor for the whole
/// enum costs several KiB).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WireOp(u8, u32, u16, u16);

#[cfg(test)]
impl WireOp {
    /// The same wire op with another `a`.
    pub(crate) fn with_a(self, a: u32) -> Self {
        Self(self.0, a, self.2, self.3)
    }
}

impl Op {
    /// The op as (tag, a, b, c).
    pub(crate) fn to_wire(self) -> WireOp {
        let s = |x: Str| (u32::from(x.off), x.len);
        let w = |t: u8, a: u32, b: u16, c: u16| WireOp(t, a, b, c);
        match self {
            Op::Type(m) => w(0, u32::from(m), 0, 0),
            Op::False => w(1, 0, 0, 0),
            Op::Const(x) => w(2, s(x).0, s(x).1, 0),
            Op::Enum(k) => w(3, u32::from(k), 0, 0),
            Op::MultipleOf(x) => w(4, s(x).0, s(x).1, 0),
            Op::Minimum(x) => w(5, s(x).0, s(x).1, 0),
            Op::ExclusiveMinimum(x) => w(6, s(x).0, s(x).1, 0),
            Op::Maximum(x) => w(7, s(x).0, s(x).1, 0),
            Op::ExclusiveMaximum(x) => w(8, s(x).0, s(x).1, 0),
            Op::MinLength(n) => w(9, n, 0, 0),
            Op::MaxLength(n) => w(10, n, 0, 0),
            Op::Pattern(x) => w(11, s(x).0, s(x).1, 0),
            Op::MinItems(n) => w(12, n, 0, 0),
            Op::MaxItems(n) => w(13, n, 0, 0),
            Op::UniqueItems => w(14, 0, 0, 0),
            Op::Items { prefix, rest } => w(15, u32::from(prefix), rest, 0),
            Op::Contains(n) => w(16, u32::from(n), 0, 0),
            Op::MinContains(n) => w(17, n, 0, 0),
            Op::MaxContains(n) => w(18, n, 0, 0),
            Op::Required(x) => w(19, s(x).0, s(x).1, 0),
            Op::MinProperties(n) => w(20, n, 0, 0),
            Op::MaxProperties(n) => w(21, n, 0, 0),
            Op::Members {
                props,
                patterns,
                additional,
            } => w(22, u32::from(props), patterns, additional),
            Op::PropertyNames(n) => w(23, u32::from(n), 0, 0),
            Op::DependentRequired { trigger, count } => w(24, s(trigger).0, s(trigger).1, count),
            Op::DependentSchema { trigger, node } => w(25, s(trigger).0, s(trigger).1, node),
            Op::Ref(n) => w(26, u32::from(n), 0, 0),
            Op::AllOf(k) => w(27, u32::from(k), 0, 0),
            Op::AnyOf(k) => w(28, u32::from(k), 0, 0),
            Op::OneOf(k) => w(29, u32::from(k), 0, 0),
            Op::Not(n) => w(30, u32::from(n), 0, 0),
            Op::If {
                cond,
                then,
                otherwise,
            } => w(31, u32::from(cond), then, otherwise),
            Op::UnevaluatedItems(n) => w(32, u32::from(n), 0, 0),
            Op::UnevaluatedProperties(n) => w(33, u32::from(n), 0, 0),
            Op::Child(n) => w(34, u32::from(n), 0, 0),
            Op::EnumValue(x) => w(35, s(x).0, s(x).1, 0),
            Op::Name(x) => w(36, s(x).0, s(x).1, 0),
            Op::Prop { name, node } => w(37, s(name).0, s(name).1, node),
            Op::PatternProp { pattern, node } => w(38, s(pattern).0, s(pattern).1, node),
            Op::Regex { len, states } => w(39, u32::from(len), u16::from(states), 0),
            Op::ReChar(c) => w(40, u32::from(c), 0, 0),
            Op::ReAny => w(41, 0, 0, 0),
            Op::ReClass { at, ranges, flags } => {
                w(42, u32::from(at), u16::from(ranges), u16::from(flags))
            }
            Op::ReSplit(a, b) => w(43, u32::from(a), u16::from(b), 0),
            Op::ReJmp(a) => w(44, u32::from(a), 0, 0),
            Op::ReStart => w(45, 0, 0, 0),
            Op::ReEnd => w(46, 0, 0, 0),
            Op::ReMatch => w(47, 0, 0, 0),
            Op::ReRange {
                lo,
                hi_low,
                hi_plane,
            } => w(48, u32::from(lo), hi_low, u16::from(hi_plane)),
        }
    }

    /// A class range op (`lo <= hi` is checked where ranges are loaded).
    #[cfg(feature = "pattern")]
    pub(crate) fn re_range(lo: char, hi: char) -> Op {
        let hi = u32::from(hi);
        Op::ReRange {
            lo,
            hi_low: (hi & 0xffff) as u16,
            hi_plane: (hi >> 16) as u8,
        }
    }

    /// The range of a `ReRange` op.
    #[cfg(feature = "pattern")]
    pub(crate) fn range(&self) -> Option<(char, char)> {
        match *self {
            Op::ReRange {
                lo,
                hi_low,
                hi_plane,
            } => Some((
                lo,
                char::from_u32(u32::from(hi_plane) << 16 | u32::from(hi_low))?,
            )),
            _ => None,
        }
    }

    /// The op a wire form stands for; `None` for an unknown tag or a number out of range.
    pub(crate) fn from_wire(WireOp(tag, a, b, c): WireOp) -> Option<Op> {
        let a16 = u16::try_from(a).ok();
        let a8 = u8::try_from(a).ok();
        let s = || Some(Str { off: a16?, len: b });
        Some(match tag {
            0 => Op::Type(a8?),
            1 => Op::False,
            2 => Op::Const(s()?),
            3 => Op::Enum(a16?),
            4 => Op::MultipleOf(s()?),
            5 => Op::Minimum(s()?),
            6 => Op::ExclusiveMinimum(s()?),
            7 => Op::Maximum(s()?),
            8 => Op::ExclusiveMaximum(s()?),
            9 => Op::MinLength(a),
            10 => Op::MaxLength(a),
            11 => Op::Pattern(s()?),
            12 => Op::MinItems(a),
            13 => Op::MaxItems(a),
            14 => Op::UniqueItems,
            15 => Op::Items {
                prefix: a16?,
                rest: b,
            },
            16 => Op::Contains(a16?),
            17 => Op::MinContains(a),
            18 => Op::MaxContains(a),
            19 => Op::Required(s()?),
            20 => Op::MinProperties(a),
            21 => Op::MaxProperties(a),
            22 => Op::Members {
                props: a16?,
                patterns: b,
                additional: c,
            },
            23 => Op::PropertyNames(a16?),
            24 => Op::DependentRequired {
                trigger: s()?,
                count: c,
            },
            25 => Op::DependentSchema {
                trigger: s()?,
                node: c,
            },
            26 => Op::Ref(a16?),
            27 => Op::AllOf(a16?),
            28 => Op::AnyOf(a16?),
            29 => Op::OneOf(a16?),
            30 => Op::Not(a16?),
            31 => Op::If {
                cond: a16?,
                then: b,
                otherwise: c,
            },
            32 => Op::UnevaluatedItems(a16?),
            33 => Op::UnevaluatedProperties(a16?),
            34 => Op::Child(a16?),
            35 => Op::EnumValue(s()?),
            36 => Op::Name(s()?),
            37 => Op::Prop {
                name: s()?,
                node: c,
            },
            38 => Op::PatternProp {
                pattern: s()?,
                node: c,
            },
            39 => Op::Regex {
                len: a16?,
                states: u8::try_from(b).ok()?,
            },
            40 => Op::ReChar(char::from_u32(a)?),
            41 => Op::ReAny,
            42 => Op::ReClass {
                at: a16?,
                ranges: u8::try_from(b).ok()?,
                flags: u8::try_from(c).ok()?,
            },
            43 => Op::ReSplit(a8?, u8::try_from(b).ok()?),
            44 => Op::ReJmp(a8?),
            45 => Op::ReStart,
            46 => Op::ReEnd,
            47 => Op::ReMatch,
            48 => Op::ReRange {
                lo: char::from_u32(a)?,
                hi_low: b,
                hi_plane: u8::try_from(c).ok()?,
            },
            _ => return None,
        })
    }
}

/// Serializes ops in their wire form.
struct WireOps<'a>(&'a [Op]);

impl Serialize for WireOps<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for op in self.0 {
            seq.serialize_element(&op.to_wire())?;
        }
        seq.end()
    }
}

/// Compile-time bookkeeping for one node (source span in the schema, and a mark used by the
/// loop check). Unused once the program is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scratch {
    pub(crate) start: u32,
    pub(crate) len: u32,
    pub(crate) mark: u32,
}

impl Scratch {
    const EMPTY: Self = Self {
        start: 0,
        len: 0,
        mark: 0,
    };
}

/// Caller-provided memory for one compiled program: up to `NODES` subschemas, `OPS`
/// instructions and `TEXT` bytes of names and values. Capacities above the format's limits
/// (65 534 nodes, 65 535 ops and bytes) are not used.
///
/// In RAM a node costs 14 bytes (2 in the program, 12 of compile-time scratch), an op 8 bytes.
/// A regular expression (feature `pattern`) takes one op per automaton state and class range,
/// plus a header.
///
/// ```
/// use embedded_mcp::schema::{compile, Storage};
/// static SCHEMA: &[u8] = br#"{"type":"object","properties":{"celsius":{"type":"number"}}}"#;
/// let mut storage: Storage<8, 32, 64> = Storage::new();
/// let program = compile(SCHEMA, &mut storage)?;
/// assert!(program.validate_bytes(br#"{"celsius": 21.5}"#).is_ok());
/// # Ok::<(), embedded_mcp::schema::CompileError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Storage<const NODES: usize, const OPS: usize, const TEXT: usize> {
    pub(crate) nodes: [u16; NODES],
    pub(crate) scratch: [Scratch; NODES],
    pub(crate) ops: [Op; OPS],
    pub(crate) text: [u8; TEXT],
}

impl<const NODES: usize, const OPS: usize, const TEXT: usize> Storage<NODES, OPS, TEXT> {
    /// Empty storage (usable in a `static`).
    pub const fn new() -> Self {
        Self {
            nodes: [0; NODES],
            scratch: [Scratch::EMPTY; NODES],
            ops: [Op::False; OPS],
            text: [0; TEXT],
        }
    }

    /// The storage as slices, clamped to the format's index limits.
    pub(crate) fn parts(&mut self) -> Parts<'_> {
        let n = NODES.min(usize::from(NONE) - 1);
        let o = OPS.min(usize::from(u16::MAX));
        let t = TEXT.min(usize::from(u16::MAX));
        Parts {
            nodes: self.nodes.get_mut(..n).unwrap_or_default(),
            scratch: self.scratch.get_mut(..n).unwrap_or_default(),
            ops: self.ops.get_mut(..o).unwrap_or_default(),
            text: self.text.get_mut(..t).unwrap_or_default(),
        }
    }
}

impl<const NODES: usize, const OPS: usize, const TEXT: usize> Default
    for Storage<NODES, OPS, TEXT>
{
    fn default() -> Self {
        Self::new()
    }
}

/// Mutable views of a [`Storage`].
pub(crate) struct Parts<'s> {
    pub(crate) nodes: &'s mut [u16],
    pub(crate) scratch: &'s mut [Scratch],
    pub(crate) ops: &'s mut [Op],
    pub(crate) text: &'s mut [u8],
}

/// A compiled schema: a cheap `Copy` handle over its storage (or over the flash bytes it was
/// loaded from, for the text area).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Program<'p> {
    pub(crate) nodes: &'p [u16],
    pub(crate) ops: &'p [Op],
    pub(crate) text: &'p str,
}

impl<'p> Program<'p> {
    /// A program over static parts emitted by `#[derive(McpSchema)]` (not checked: the validator
    /// never panics on a malformed program, and the derive's parts come from the compiler).
    #[doc(hidden)]
    pub const fn from_static_parts(nodes: &'p [u16], ops: &'p [Op], text: &'p str) -> Self {
        Self { nodes, ops, text }
    }

    /// The parts, for the derive to emit them as statics.
    #[doc(hidden)]
    pub fn parts(&self) -> (&'p [u16], &'p [Op], &'p str) {
        (self.nodes, self.ops, self.text)
    }

    /// The instructions of node `id` (empty for an unknown id).
    pub(crate) fn node(&self, id: u16) -> &'p [Op] {
        let i = usize::from(id);
        let Some(&start) = self.nodes.get(i) else {
            return &[];
        };
        let end = self
            .nodes
            .get(i + 1)
            .map_or(self.ops.len(), |&e| usize::from(e));
        self.ops.get(usize::from(start)..end).unwrap_or_default()
    }

    /// A string of the text area (empty when out of range, which a loaded program never is).
    pub(crate) fn str(&self, s: Str) -> &'p str {
        let start = usize::from(s.off);
        self.text
            .get(start..start + usize::from(s.len))
            .unwrap_or_default()
    }

    /// Number of compiled (sub)schemas.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of instructions.
    pub fn op_count(&self) -> usize {
        self.ops.len()
    }

    /// Bytes of names and values.
    pub fn text_len(&self) -> usize {
        self.text.len()
    }

    /// True when the root schema requires an object (`"type": "object"`), as MCP requires of
    /// an `inputSchema`.
    pub fn is_object_schema(&self) -> bool {
        self.node(0)
            .iter()
            .any(|op| matches!(op, Op::Type(mask) if *mask == types::OBJECT))
    }

    fn wire(&self) -> Wire<'_> {
        Wire {
            magic: PROGRAM_MAGIC,
            version: PROGRAM_VERSION,
            nodes: self.nodes,
            ops: WireOps(self.ops),
            text: self.text,
        }
    }

    /// Writes the program in its postcard form into `buf`; returns the written part.
    ///
    /// The form is `magic, version, nodes, ops, text` as a postcard struct; it is
    /// self-contained and can be loaded with [`Program::from_postcard`].
    pub fn to_postcard<'b>(&self, buf: &'b mut [u8]) -> Result<&'b mut [u8], LoadError> {
        postcard::to_slice(&self.wire(), buf).map_err(|_| LoadError::BufferTooSmall)
    }

    /// Size in bytes of the postcard form.
    pub fn postcard_len(&self) -> usize {
        postcard::serialize_with_flavor::<_, _, usize>(
            &self.wire(),
            postcard::ser_flavors::Size::default(),
        )
        .unwrap_or(0)
    }

    /// Loads a program written by [`Program::to_postcard`] (for example from flash with
    /// `include_bytes!`). Nodes and ops are decoded into `storage`; the text area is borrowed
    /// from `bytes`. Every index, string, number, value and pattern is checked, and loops
    /// that never descend into the instance are rejected: a corrupted program is an error,
    /// never a panic.
    pub fn from_postcard<const NODES: usize, const OPS: usize, const TEXT: usize>(
        bytes: &'p [u8],
        storage: &'p mut Storage<NODES, OPS, TEXT>,
    ) -> Result<Self, LoadError> {
        let Parts {
            nodes,
            scratch,
            ops,
            ..
        } = storage.parts();
        let mut status = None;
        let mut de = postcard::Deserializer::from_bytes(bytes);
        let loaded = ProgramSeed {
            nodes: &mut *nodes,
            ops: &mut *ops,
            status: &mut status,
        }
        .deserialize(&mut de);
        let loaded = match (loaded, status) {
            (_, Some(e)) => return Err(e),
            (Err(_), None) => return Err(LoadError::Malformed),
            (Ok(l), None) => l,
        };
        match de.finalize() {
            Ok([]) => {}
            _ => return Err(LoadError::Malformed),
        }
        let nodes: &'p [u16] = nodes;
        let ops: &'p [Op] = ops;
        let program = Program {
            nodes: nodes.get(..loaded.nodes).ok_or(LoadError::TooLarge)?,
            ops: ops.get(..loaded.ops).ok_or(LoadError::TooLarge)?,
            text: loaded.text,
        };
        verify(&program, scratch)?;
        Ok(program)
    }
}

#[derive(Serialize)]
struct Wire<'a> {
    magic: [u8; 4],
    version: u16,
    nodes: &'a [u16],
    ops: WireOps<'a>,
    text: &'a str,
}

struct Loaded<'de> {
    nodes: usize,
    ops: usize,
    text: &'de str,
}

struct ProgramSeed<'s> {
    nodes: &'s mut [u16],
    ops: &'s mut [Op],
    status: &'s mut Option<LoadError>,
}

impl<'de> DeserializeSeed<'de> for ProgramSeed<'_> {
    type Value = Loaded<'de>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_tuple(5, self)
    }
}

impl<'de> Visitor<'de> for ProgramSeed<'_> {
    type Value = Loaded<'de>;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a schema program")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let missing = || de::Error::custom("truncated program");
        let magic: [u8; 4] = seq.next_element()?.ok_or_else(missing)?;
        if magic != PROGRAM_MAGIC {
            *self.status = Some(LoadError::BadMagic);
            return Err(de::Error::custom("bad magic"));
        }
        let version: u16 = seq.next_element()?.ok_or_else(missing)?;
        if version != PROGRAM_VERSION {
            *self.status = Some(LoadError::UnsupportedVersion(version));
            return Err(de::Error::custom("bad version"));
        }
        let nodes = seq
            .next_element_seed(SliceSeed {
                slots: self.nodes,
                status: &mut *self.status,
                convert: Some,
            })?
            .ok_or_else(missing)?;
        let ops = seq
            .next_element_seed(SliceSeed {
                slots: self.ops,
                status: &mut *self.status,
                convert: Op::from_wire,
            })?
            .ok_or_else(missing)?;
        let text: &'de str = seq.next_element()?.ok_or_else(missing)?;
        Ok(Loaded { nodes, ops, text })
    }
}

/// Decodes a sequence of `W` into a caller-provided slice of `T` (through `convert`, which
/// rejects impossible values); the value is the element count.
struct SliceSeed<'s, W, T> {
    slots: &'s mut [T],
    status: &'s mut Option<LoadError>,
    convert: fn(W) -> Option<T>,
}

impl<'de, W: Deserialize<'de>, T> DeserializeSeed<'de> for SliceSeed<'_, W, T> {
    type Value = usize;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, W: Deserialize<'de>, T> Visitor<'de> for SliceSeed<'_, W, T> {
    type Value = usize;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut n = 0usize;
        while let Some(item) = seq.next_element::<W>()? {
            let Some(slot) = self.slots.get_mut(n) else {
                *self.status = Some(LoadError::TooLarge);
                return Err(de::Error::custom("program larger than storage"));
            };
            let Some(value) = (self.convert)(item) else {
                *self.status = Some(LoadError::Corrupt);
                return Err(de::Error::custom("impossible instruction"));
            };
            *slot = value;
            n += 1;
        }
        Ok(n)
    }
}

/// Calls `f` for every child a node applies to the same instance (in-place applicators).
pub(crate) fn in_place_children(ops: &[Op], mut f: impl FnMut(u16)) {
    let mut i = 0;
    while let Some(op) = ops.get(i) {
        i += 1;
        match *op {
            Op::Ref(n) | Op::Not(n) | Op::DependentSchema { node: n, .. } => f(n),
            Op::AllOf(k) | Op::AnyOf(k) | Op::OneOf(k) => {
                for child in ops.get(i..i + usize::from(k)).unwrap_or_default() {
                    if let Op::Child(n) = child {
                        f(*n);
                    }
                }
                i += usize::from(k);
            }
            Op::If {
                cond,
                then,
                otherwise,
            } => {
                for n in [cond, then, otherwise] {
                    if n != NONE {
                        f(n);
                    }
                }
            }
            Op::Regex { len, .. } => i += usize::from(len),
            _ => {}
        }
    }
}

const REMOVED: u32 = u32::MAX;

/// Finds a node on a loop of in-place applicators (a `$ref` cycle that never descends into the
/// instance), using `scratch[..nodes].mark`. Kahn's algorithm, O(nodes × edges) worst case.
pub(crate) fn find_loop(program: &Program<'_>, scratch: &mut [Scratch]) -> Option<u16> {
    let n = program.nodes.len();
    let marks = scratch.get_mut(..n)?;
    for s in marks.iter_mut() {
        s.mark = 0;
    }
    for id in 0..n {
        let id = u16::try_from(id).ok()?;
        in_place_children(program.node(id), |c| {
            if let Some(s) = marks.get_mut(usize::from(c)) {
                s.mark = s.mark.saturating_add(1);
            }
        });
    }
    loop {
        let mut progress = false;
        for id in 0..n {
            let free = marks.get(id).is_some_and(|s| s.mark == 0);
            if !free {
                continue;
            }
            if let Some(s) = marks.get_mut(id) {
                s.mark = REMOVED;
            }
            progress = true;
            let id = u16::try_from(id).ok()?;
            in_place_children(program.node(id), |c| {
                if let Some(s) = marks.get_mut(usize::from(c)) {
                    if s.mark != REMOVED {
                        s.mark = s.mark.saturating_sub(1);
                    }
                }
            });
        }
        if !progress {
            break;
        }
    }
    let stuck = marks.iter().position(|s| s.mark != REMOVED)?;
    u16::try_from(stuck).ok()
}

/// Checks that a program is consistent: what [`Program::from_postcard`] runs on load.
pub(crate) fn verify(program: &Program<'_>, scratch: &mut [Scratch]) -> Result<(), LoadError> {
    verify_structure(program)?;
    if scratch.len() < program.nodes.len() {
        return Err(LoadError::TooLarge);
    }
    if find_loop(program, scratch).is_some() {
        return Err(LoadError::Corrupt);
    }
    Ok(())
}

/// Checks indices, payload layout, strings, numbers, values and patterns.
pub(crate) fn verify_structure(program: &Program<'_>) -> Result<(), LoadError> {
    let n = program.nodes.len();
    if n == 0 || n >= usize::from(NONE) || program.nodes.first() != Some(&0) {
        return Err(LoadError::Corrupt);
    }
    let mut prev = 0u16;
    for &start in program.nodes {
        if start < prev || usize::from(start) > program.ops.len() {
            return Err(LoadError::Corrupt);
        }
        prev = start;
    }
    for id in 0..n {
        let id = u16::try_from(id).map_err(|_| LoadError::Corrupt)?;
        verify_node(program, program.node(id))?;
    }
    Ok(())
}

fn verify_node(program: &Program<'_>, ops: &[Op]) -> Result<(), LoadError> {
    let n = program.nodes.len();
    let node = |id: u16| {
        if usize::from(id) < n {
            Ok(())
        } else {
            Err(LoadError::Corrupt)
        }
    };
    let optional = |id: u16| if id == NONE { Ok(()) } else { node(id) };
    let text = |s: Str| -> Result<&str, LoadError> {
        let start = usize::from(s.off);
        program
            .text
            .get(start..start + usize::from(s.len))
            .ok_or(LoadError::Corrupt)
    };
    let number = |s: Str| -> Result<(), LoadError> {
        let t = text(s)?;
        match Value::parse(t.as_bytes()) {
            Ok(v) if v.kind() == Kind::Number && v.raw().len() == t.len() => Ok(()),
            _ => Err(LoadError::Corrupt),
        }
    };
    let json = |s: Str| -> Result<(), LoadError> {
        let limits = Limits {
            max_depth: super::SCHEMA_MAX_DEPTH,
        };
        Value::parse_with(text(s)?.as_bytes(), limits)
            .map(drop)
            .map_err(|_| LoadError::Corrupt)
    };
    // The `Regex` block at `ops[i]`; the index after it.
    let regex_block = |i: usize| -> Result<usize, LoadError> {
        let Some(&Op::Regex { len, states }) = ops.get(i) else {
            return Err(LoadError::Corrupt);
        };
        let end = i + 1 + usize::from(len);
        let block = ops.get(i + 1..end).ok_or(LoadError::Corrupt)?;
        #[cfg(feature = "pattern")]
        return match regex::verify(states, block) {
            true => Ok(end),
            false => Err(LoadError::Corrupt),
        };
        #[cfg(not(feature = "pattern"))]
        {
            let _ = (states, block);
            Err(LoadError::NeedsFeature("pattern"))
        }
    };
    // Payloads `ops[i..i+k]`, each checked by `check`.
    let payload = |i: usize,
                   k: u16,
                   check: &mut dyn FnMut(&Op) -> Result<(), LoadError>|
     -> Result<usize, LoadError> {
        let items = ops.get(i..i + usize::from(k)).ok_or(LoadError::Corrupt)?;
        for op in items {
            check(op)?;
        }
        Ok(i + usize::from(k))
    };
    let mut i = 0;
    while let Some(&op) = ops.get(i) {
        i += 1;
        match op {
            Op::Type(mask) => {
                if mask == 0 || mask >= 128 {
                    return Err(LoadError::Corrupt);
                }
            }
            Op::False | Op::UniqueItems => {}
            Op::Const(s) => json(s)?,
            Op::Enum(k) => {
                i = payload(i, k, &mut |op| match op {
                    Op::EnumValue(s) => json(*s),
                    _ => Err(LoadError::Corrupt),
                })?;
            }
            Op::MultipleOf(s) => {
                number(s)?;
                let d = Decimal::parse(text(s)?).ok_or(LoadError::Corrupt)?;
                if d.is_zero() || d.is_negative() || d.significant_digits() > MULTIPLE_OF_MAX_DIGITS
                {
                    return Err(LoadError::Corrupt);
                }
            }
            Op::Minimum(s) | Op::ExclusiveMinimum(s) | Op::Maximum(s) | Op::ExclusiveMaximum(s) => {
                number(s)?
            }
            Op::MinLength(_)
            | Op::MaxLength(_)
            | Op::MinItems(_)
            | Op::MaxItems(_)
            | Op::MinProperties(_)
            | Op::MaxProperties(_) => {}
            Op::Pattern(s) => {
                text(s)?;
                i = regex_block(i)?;
            }
            Op::Items { prefix, rest } => {
                optional(rest)?;
                i = payload(i, prefix, &mut |op| match op {
                    Op::Child(c) => node(*c),
                    _ => Err(LoadError::Corrupt),
                })?;
            }
            Op::Contains(c) => {
                node(c)?;
                match (ops.get(i), ops.get(i + 1)) {
                    (Some(Op::MinContains(_)), Some(Op::MaxContains(_))) => i += 2,
                    _ => return Err(LoadError::Corrupt),
                }
            }
            Op::Required(s) => {
                text(s)?;
            }
            Op::Members {
                props,
                patterns,
                additional,
            } => {
                optional(additional)?;
                i = payload(i, props, &mut |op| match op {
                    Op::Prop { name, node: c } => text(*name).and_then(|_| node(*c)),
                    _ => Err(LoadError::Corrupt),
                })?;
                let end = i + usize::from(patterns);
                while i < end {
                    let Some(&Op::PatternProp { pattern, node: c }) = ops.get(i) else {
                        return Err(LoadError::Corrupt);
                    };
                    text(pattern)?;
                    node(c)?;
                    i = regex_block(i + 1)?;
                }
                if i != end {
                    return Err(LoadError::Corrupt);
                }
            }
            Op::PropertyNames(c)
            | Op::Ref(c)
            | Op::Not(c)
            | Op::UnevaluatedItems(c)
            | Op::UnevaluatedProperties(c) => node(c)?,
            Op::DependentRequired { trigger, count } => {
                text(trigger)?;
                i = payload(i, count, &mut |op| match op {
                    Op::Name(s) => text(*s).map(drop),
                    _ => Err(LoadError::Corrupt),
                })?;
            }
            Op::DependentSchema { trigger, node: c } => {
                text(trigger)?;
                node(c)?;
            }
            Op::AllOf(k) | Op::AnyOf(k) | Op::OneOf(k) => {
                i = payload(i, k, &mut |op| match op {
                    Op::Child(c) => node(*c),
                    _ => Err(LoadError::Corrupt),
                })?;
            }
            Op::If {
                cond,
                then,
                otherwise,
            } => {
                node(cond)?;
                optional(then)?;
                optional(otherwise)?;
            }
            // A payload op where a keyword is expected.
            Op::MinContains(_)
            | Op::MaxContains(_)
            | Op::Child(_)
            | Op::EnumValue(_)
            | Op::Name(_)
            | Op::Prop { .. }
            | Op::PatternProp { .. }
            | Op::Regex { .. }
            | Op::ReChar(_)
            | Op::ReAny
            | Op::ReClass { .. }
            | Op::ReSplit(..)
            | Op::ReJmp(_)
            | Op::ReStart
            | Op::ReEnd
            | Op::ReMatch
            | Op::ReRange { .. } => return Err(LoadError::Corrupt),
        }
    }
    Ok(())
}
