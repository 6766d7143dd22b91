//! The instructions ([`Op`]) a program is made of, and the [`Str`] references into its text.

/// A string in the program's text area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Str {
    /// Byte offset in the text area.
    pub off: u16,
    /// Length in bytes.
    pub len: u16,
}

impl Str {
    /// Its byte range in the text area (two `u16`s: the end never wraps).
    pub(crate) const fn range(self) -> core::ops::Range<usize> {
        (self.off as usize)..super::address::skip(self.off as usize, self.len)
    }
}

/// The pattern of the payload ops: those read by the keyword op before them, the `Regex` header
/// aside (one list for every exhaustive `match` over [`Op`] that passes over them).
macro_rules! payload_ops {
    () => {
        Op::MinContains(_)
            | Op::MaxContains(_)
            | Op::Child(_)
            | Op::EnumValue(_)
            | Op::Name(_)
            | Op::Prop { .. }
            | Op::PatternProp { .. }
            | Op::ReChar(_)
            | Op::ReAny
            | Op::ReClass { .. }
            | Op::ReSplit(..)
            | Op::ReJmp(_)
            | Op::ReStart
            | Op::ReEnd
            | Op::ReMatch
            | Op::ReRange { .. }
    };
}
pub(crate) use payload_ops;

/// One instruction. Payload ops (`Child`, `EnumValue`, `Name`, `Prop`, `PatternProp`,
/// `MinContains`, `MaxContains`) only appear right after the keyword op that counts them; a
/// `Regex` block (its header, then `len` `Re*` ops) only right after `Pattern` or a
/// `PatternProp`. Eight bytes each.
// Public only for the derive's generated statics (`schema::__private`, hidden from the docs);
// its docs are for this crate's developers and link to private items.
#[allow(rustdoc::private_intra_doc_links)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `type`: a mask of [`types`](super::layout::types) bits.
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
    /// `prefixItems` (followed by `prefix` `Child`) and `items` (`rest`, or [`NONE`](super::address::NONE)).
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
    /// [`NONE`](super::address::NONE)).
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
    /// `if` / `then` / `else` (`then` and `else` may be [`NONE`](super::address::NONE)).
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

impl Op {
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
}
