//! Keyword sets: which keywords an evaluator is built for.
//!
//! The validator is one generic evaluator; [`Program::validate_for`] builds it for a
//! [`Keywords`] type whose [`Keywords::SET`] is known at compile time. The code of every keyword
//! outside the set is left out (the optimiser drops it), so firmware whose programs are all
//! known when it is built — the derive's programs, served by `Server::from_tools` — links only
//! the keywords they use. A program holding a keyword outside the set is refused, never
//! validated permissively; for a program the set covers ([`KeywordSet::covers`]) the verdict
//! and the violation are exactly those of [`Program::validate`], which is the same evaluator
//! built for [`AllKeywords`].

use super::program::{payload_ops, Op, Program, Str, NONE};

/// Most `required` names the validator checks in one pass (a bit each in a `u64`).
pub(crate) const REQUIRED_BATCH: usize = 64;

/// A set of keywords (and of the two features of their values that need code of their own:
/// `patternProperties` entries and container values compared for equality).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct KeywordSet(u64);

/// One bit per keyword op of a program, and two for features of keyword values.
pub(crate) mod bit {
    pub(crate) const TYPE: u64 = 1;
    pub(crate) const FALSE: u64 = 1 << 1;
    pub(crate) const CONST: u64 = 1 << 2;
    pub(crate) const ENUM: u64 = 1 << 3;
    pub(crate) const MULTIPLE_OF: u64 = 1 << 4;
    pub(crate) const MINIMUM: u64 = 1 << 5;
    pub(crate) const EXCLUSIVE_MINIMUM: u64 = 1 << 6;
    pub(crate) const MAXIMUM: u64 = 1 << 7;
    pub(crate) const EXCLUSIVE_MAXIMUM: u64 = 1 << 8;
    pub(crate) const MIN_LENGTH: u64 = 1 << 9;
    pub(crate) const MAX_LENGTH: u64 = 1 << 10;
    pub(crate) const PATTERN: u64 = 1 << 11;
    pub(crate) const MIN_ITEMS: u64 = 1 << 12;
    pub(crate) const MAX_ITEMS: u64 = 1 << 13;
    pub(crate) const UNIQUE_ITEMS: u64 = 1 << 14;
    pub(crate) const ITEMS: u64 = 1 << 15;
    pub(crate) const CONTAINS: u64 = 1 << 16;
    pub(crate) const REQUIRED: u64 = 1 << 17;
    pub(crate) const MIN_PROPERTIES: u64 = 1 << 18;
    pub(crate) const MAX_PROPERTIES: u64 = 1 << 19;
    pub(crate) const MEMBERS: u64 = 1 << 20;
    pub(crate) const PROPERTY_NAMES: u64 = 1 << 21;
    pub(crate) const DEPENDENT_REQUIRED: u64 = 1 << 22;
    pub(crate) const DEPENDENT_SCHEMA: u64 = 1 << 23;
    pub(crate) const REF: u64 = 1 << 24;
    pub(crate) const ALL_OF: u64 = 1 << 25;
    pub(crate) const ANY_OF: u64 = 1 << 26;
    pub(crate) const ONE_OF: u64 = 1 << 27;
    pub(crate) const NOT: u64 = 1 << 28;
    pub(crate) const IF: u64 = 1 << 29;
    pub(crate) const UNEVALUATED_ITEMS: u64 = 1 << 30;
    pub(crate) const UNEVALUATED_PROPERTIES: u64 = 1 << 31;
    /// A `Members` op with `patternProperties` entries.
    pub(crate) const PATTERN_PROPERTIES: u64 = 1 << 32;
    /// Arrays or objects compared for equality: `uniqueItems`, or a `const` or `enum` value
    /// that is (or may be) a container.
    pub(crate) const CONTAINER_EQUALITY: u64 = 1 << 33;
    /// `required` names checked in a pass of their own, not during the `properties` pass: a
    /// node with a `required` op that no `Members` op follows, or with more than
    /// [`REQUIRED_BATCH`](super::REQUIRED_BATCH) of them.
    pub(crate) const REQUIRED_PASS: u64 = 1 << 34;
    /// `minItems` or `maxItems` counted in a pass of their own, not during the `items` pass: a
    /// node with one that no `items` schema follows.
    pub(crate) const COUNT_PASS: u64 = 1 << 35;
    /// An `enum` value that is not a string.
    pub(crate) const NON_STRING_ENUM: u64 = 1 << 36;
    /// `prefixItems`: an `Items` op with prefix schemas.
    pub(crate) const PREFIX_ITEMS: u64 = 1 << 37;
    /// `items: false` (an `Items` op whose `items` schema is the `false` schema).
    pub(crate) const ITEMS_FALSE: u64 = 1 << 38;
}

impl KeywordSet {
    /// Every keyword: the full evaluator.
    pub const ALL: Self = Self(u64::MAX);
    /// No keyword (only the `true` schema, a program with no ops).
    pub const EMPTY: Self = Self(0);

    /// The keywords `program` holds.
    pub const fn of(program: &Program<'_>) -> Self {
        let text = program.text.as_bytes();
        let mut set = 0u64;
        let mut ops = program.ops;
        while let [op, rest @ ..] = ops {
            set |= keyword_bit(*op);
            set |= match *op {
                Op::Const(s) => container_bit(text, s),
                Op::EnumValue(s) => value_bits(text, s),
                Op::UniqueItems => bit::CONTAINER_EQUALITY,
                Op::Members { patterns, .. } if patterns > 0 => bit::PATTERN_PROPERTIES,
                Op::Items { prefix, rest } => {
                    let prefixed = if prefix > 0 { bit::PREFIX_ITEMS } else { 0 };
                    let closed = match rest != NONE && is_false_node(program, rest) {
                        true => bit::ITEMS_FALSE,
                        false => 0,
                    };
                    prefixed | closed
                }
                _ => 0,
            };
            ops = rest;
        }
        Self(set | pass_bits(program))
    }

    /// The keywords of both sets.
    pub const fn union(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    /// True when every keyword of `other` is in this set.
    pub const fn covers(self, other: Self) -> bool {
        other.0 & !self.0 == 0
    }

    /// True when the keyword (or feature) `bit` is in the set; always for [`KeywordSet::ALL`]
    /// (also for a `bit` the optimiser does not know: the full evaluator keeps no check).
    #[inline(always)]
    pub(crate) const fn has(self, bit: u64) -> bool {
        self.0 == u64::MAX || self.0 & bit != 0
    }
}

/// The bit of keyword op `op` (0 for a payload op).
#[inline(always)]
pub(crate) const fn keyword_bit(op: Op) -> u64 {
    match op {
        Op::Type(_) => bit::TYPE,
        Op::False => bit::FALSE,
        Op::Const(_) => bit::CONST,
        Op::Enum(_) => bit::ENUM,
        Op::MultipleOf(_) => bit::MULTIPLE_OF,
        Op::Minimum(_) => bit::MINIMUM,
        Op::ExclusiveMinimum(_) => bit::EXCLUSIVE_MINIMUM,
        Op::Maximum(_) => bit::MAXIMUM,
        Op::ExclusiveMaximum(_) => bit::EXCLUSIVE_MAXIMUM,
        Op::MinLength(_) => bit::MIN_LENGTH,
        Op::MaxLength(_) => bit::MAX_LENGTH,
        Op::Pattern(_) => bit::PATTERN,
        Op::MinItems(_) => bit::MIN_ITEMS,
        Op::MaxItems(_) => bit::MAX_ITEMS,
        Op::UniqueItems => bit::UNIQUE_ITEMS,
        Op::Items { .. } => bit::ITEMS,
        Op::Contains(_) => bit::CONTAINS,
        Op::Required(_) => bit::REQUIRED,
        Op::MinProperties(_) => bit::MIN_PROPERTIES,
        Op::MaxProperties(_) => bit::MAX_PROPERTIES,
        Op::Members { .. } => bit::MEMBERS,
        Op::PropertyNames(_) => bit::PROPERTY_NAMES,
        Op::DependentRequired { .. } => bit::DEPENDENT_REQUIRED,
        Op::DependentSchema { .. } => bit::DEPENDENT_SCHEMA,
        Op::Ref(_) => bit::REF,
        Op::AllOf(_) => bit::ALL_OF,
        Op::AnyOf(_) => bit::ANY_OF,
        Op::OneOf(_) => bit::ONE_OF,
        Op::Not(_) => bit::NOT,
        Op::If { .. } => bit::IF,
        Op::UnevaluatedItems(_) => bit::UNEVALUATED_ITEMS,
        Op::UnevaluatedProperties(_) => bit::UNEVALUATED_PROPERTIES,
        // Payloads: read by their keyword.
        payload_ops!() | Op::Regex { .. } => 0,
    }
}

/// The first byte of the JSON text `s` (`[` for an empty or out-of-range one, which then
/// counts as a container and not a string: the set only grows).
const fn first_byte(text: &[u8], s: Str) -> u8 {
    match text.split_at_checked(s.off as usize) {
        Some((_, [first, ..])) if s.len > 0 => *first,
        _ => b'[',
    }
}

/// [`bit::CONTAINER_EQUALITY`] unless the JSON text `s` starts like a scalar.
const fn container_bit(text: &[u8], s: Str) -> u64 {
    match first_byte(text, s) {
        b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => 0,
        _ => bit::CONTAINER_EQUALITY,
    }
}

/// The bits of an `enum` value: [`container_bit`], and [`bit::NON_STRING_ENUM`] unless it is
/// a string.
const fn value_bits(text: &[u8], s: Str) -> u64 {
    match first_byte(text, s) {
        b'"' => 0,
        _ => bit::NON_STRING_ENUM | container_bit(text, s),
    }
}

/// [`bit::REQUIRED_PASS`] and [`bit::COUNT_PASS`] of the nodes of `program` (both when its
/// node table does not fit its ops: the set only grows).
const fn pass_bits(program: &Program<'_>) -> u64 {
    let mut bits = 0;
    let mut nodes = program.nodes;
    while let [start, rest @ ..] = nodes {
        bits |= match node_ops(program, *start, rest) {
            Some(ops) => node_pass_bits(ops),
            None => bit::REQUIRED_PASS | bit::COUNT_PASS,
        };
        nodes = rest;
    }
    bits
}

/// The ops of the node that starts at op `start`, `later` being the starts of the nodes after
/// it (as `Program::node` reads them); `None` when they do not fit the ops.
const fn node_ops<'p>(program: &Program<'p>, start: u16, later: &[u16]) -> Option<&'p [Op]> {
    let end = match later {
        [next, ..] => *next as usize,
        [] => program.ops.len(),
    };
    match program.ops.split_at_checked(end) {
        Some((head, _)) => match head.split_at_checked(start as usize) {
            Some((_, ops)) => Some(ops),
            None => None,
        },
        None => None,
    }
}

/// True when node `id` is the `false` schema (or may be: an unknown node counts as one).
const fn is_false_node(program: &Program<'_>, id: u16) -> bool {
    match program.nodes.split_at_checked(id as usize) {
        Some((_, [start, later @ ..])) => match node_ops(program, *start, later) {
            Some(ops) => matches!(ops, [Op::False]),
            None => true,
        },
        _ => true,
    }
}

/// The pass bits of one node's ops (as `eval_ops` decides: `required` is deferred to a
/// `Members` op after it, item counts to an `items` schema after them).
const fn node_pass_bits(mut ops: &[Op]) -> u64 {
    let (mut required, mut names, mut counts) = (false, 0usize, false);
    while let [op, rest @ ..] = ops {
        match *op {
            Op::Required(_) => {
                required = true;
                names = names.saturating_add(1);
            }
            Op::Members { .. } => required = false,
            Op::MinItems(_) | Op::MaxItems(_) => counts = true,
            Op::Items { rest, .. } if rest != NONE => counts = false,
            _ => {}
        }
        ops = rest;
    }
    let mut bits = 0;
    if required || names > REQUIRED_BATCH {
        bits |= bit::REQUIRED_PASS;
    }
    if counts {
        bits |= bit::COUNT_PASS;
    }
    bits
}

/// A keyword set known at compile time, to build an evaluator for
/// ([`Program::validate_for`]).
pub trait Keywords {
    /// The keywords the evaluator checks; it refuses every other.
    const SET: KeywordSet;
}

/// Every keyword: [`Program::validate_for`]`::<AllKeywords>` is [`Program::validate`].
#[derive(Debug, Clone, Copy)]
pub enum AllKeywords {}

impl Keywords for AllKeywords {
    const SET: KeywordSet = KeywordSet::ALL;
}

#[cfg(test)]
mod tests {
    use super::KeywordSet;
    use crate::schema::{compile, Storage};

    fn set(schema: &str) -> KeywordSet {
        let mut storage: Storage<8, 32, 64> = Storage::new();
        KeywordSet::of(&compile(schema.as_bytes(), &mut storage).unwrap())
    }

    #[test]
    fn value_features_only_grow_the_set() {
        let covers = |a: &str, b: &str| set(a).covers(set(b));
        assert!(covers(r#"{"enum":[1]}"#, r#"{"enum":["a"]}"#));
        assert!(!covers(r#"{"enum":["a"]}"#, r#"{"enum":[1]}"#));
        assert!(!covers(r#"{"enum":[1]}"#, r#"{"enum":[[1]]}"#));
        assert!(!covers(r#"{"enum":["a"]}"#, r#"{"const":{}}"#));
        assert!(covers(r#"{"const":[]}"#, r#"{"const":"a"}"#));
        assert!(!covers(r#"{"const":"a"}"#, r#"{"uniqueItems":true}"#));
        assert!(covers(
            r#"{"properties":{"a":false}}"#,
            r#"{"additionalProperties":false}"#
        ));
        #[cfg(feature = "pattern")]
        assert!(!covers(
            r#"{"properties":{}}"#,
            r#"{"patternProperties":{"a":{}}}"#
        ));
        // `required` deferred to the properties pass needs no pass of its own.
        let deferred = r#"{"required":["a"],"properties":{"a":true}}"#;
        assert!(!covers(deferred, r#"{"required":["a"]}"#));
        let alone_and_members = set(r#"{"required":["a"]}"#).union(set(r#"{"properties":{}}"#));
        assert!(alone_and_members.covers(set(deferred)));
        let counted = r#"{"minItems":1,"items":true}"#;
        assert!(!covers(counted, r#"{"minItems":1}"#));
        assert!(!covers(counted, r#"{"minItems":1,"prefixItems":[true]}"#));
        let alone_and_items = set(r#"{"minItems":2}"#).union(set(r#"{"items":true}"#));
        assert!(alone_and_items.covers(set(counted)));
        let open_items = r#"{"items":{"type":"null"}}"#;
        assert!(!covers(open_items, r#"{"items":false}"#));
        assert!(!covers(
            open_items,
            r#"{"prefixItems":[true],"items":{"type":"null"}}"#
        ));
        let both = r#"{"prefixItems":[{"type":"null"}],"items":false}"#;
        assert!(covers(both, open_items));
        assert!(KeywordSet::ALL.covers(set(r#"{"not":{"contains":{}}}"#)));
        assert!(KeywordSet::EMPTY.covers(set("true")));
        assert!(!KeywordSet::EMPTY.covers(set("false")));
    }
}
