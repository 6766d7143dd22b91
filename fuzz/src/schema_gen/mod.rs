//! Generated JSON Schemas for the structure-aware `schema_compiler` target: a tree that
//! `arbitrary` builds from the fuzzer's bytes, written out as JSON text.
//!
//! The tree is shaped after what makes the compiler build JSON Pointers and follow references:
//! deeply nested subschemas and non-keyword members (objects only a `$ref` reaches), `$defs`
//! chains, keys of 0 to 2 bytes, long keys (up to 64 repeats of one character, mostly 40 to
//! 64), compact chains of non-keyword members with a `$ref` to their end, keys with `~`
//! and `/` (`~0`/`~1` in a pointer), non-ASCII and `\u`-escaped keys, keyword values of the
//! wrong type anywhere, `$id`s and `$anchor`s.
//!
//! A `$ref` does not carry its target as text: it names one of the locations of the document
//! by index, so that most references resolve. The text is written twice: the first pass
//! records where every object and boolean value sits (its pointer, and the nearest enclosing
//! `$id` with the pointer relative to it), the second writes the references to those places:
//! as `#/pointer`, percent-encoded, relative to a `$id` (`d1.json#/x`), to a missing member
//! below a location, to an anchor, or as free text.

use arbitrary::{Arbitrary, Unstructured};

mod writer;

/// `Arbitrary` for an enum that reads its variant from one byte (the derive reads four), so
/// that a tree costs few bytes and libFuzzer's slowly growing length limit reaches deep ones
/// sooner. Variant 0 of every enum is a leaf: an input that runs out ends the tree.
macro_rules! one_byte_enum {
    ($ty:ident { $($variant:ident $(($($field:ident),*))?),* $(,)? }) => {
        impl<'a> Arbitrary<'a> for $ty {
            #[allow(unused_assignments)]
            fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
                const COUNT: usize = [$(stringify!($variant)),*].len();
                let chosen = usize::from(u8::arbitrary(u)?) % COUNT;
                let mut i = 0;
                $(
                    if chosen == i {
                        return Ok($ty::$variant $(($({
                            let $field = u.arbitrary()?;
                            $field
                        }),*))?);
                    }
                    i += 1;
                )*
                unreachable!("the variant index is below the count")
            }
        }
    };
}

one_byte_enum!(Node { Bool(a), Object(a) });
one_byte_enum!(Member {
    Valid(a), Invalid(a, b), Child(a, b), Map(a, b), List(a, b), Ref(a, b), Id(a),
    Anchor(a, b), Extra(a, b), Data(a, b), Chain(a, b, c, d, e, f, g),
});
one_byte_enum!(Valid {
    Type(a, b), Number(a, b), Count(a, b), Required(a), DependentRequired(a), Enum(a),
    Const(a), Pattern(a), UniqueItems(a), Annotation(a, b), Schema(a),
});
one_byte_enum!(Bad { Fixed(a), Data(a) });
one_byte_enum!(Key { Empty, One(a), Two(a, b), Long(a, b), Word(a), Text(a), Escaped(a) });
one_byte_enum!(Num { Small(a), Int(a), Float(a), Lexeme(a) });
one_byte_enum!(Data { Null, Bool(a), Num(a), Str(a), Arr(a), Obj(a) });
one_byte_enum!(Ref {
    Root, Pointer(a, b), Into(a, b), ViaId(a, b), Dangling(a, b), Anchor(a, b, c), Resource(a),
    Text(a),
});
one_byte_enum!(Style {
    Plain,
    Percent,
    PercentAll
});
one_byte_enum!(IdValue {
    Relative(a), Absolute(a), Root, EmptyFragment(a), Fragment(a), Bad(a),
});

/// Deepest JSON nesting written; deeper values become `true` (the compiler refuses schemas
/// nested over 64 levels, which would hide everything else).
const MAX_DEPTH: usize = 48;

/// Characters of short and long keys.
#[rustfmt::skip]
const ALPHABET: [&str; 16] = [
    "a", "b", "c", "d", "B", "x", "0", "~", "/", "é", "$", "%", " ", "\"", "\\", "\u{1F600}",
];

/// Whole keys: keywords (as non-keyword members they stay data), escapes, numbers, non-ASCII.
#[rustfmt::skip]
const WORDS: [&str; 20] = [
    "type", "properties", "$defs", "items", "$ref", "$id", "0", "1", "-", "a/b", "~1", "~0x",
    "%25", "%2F", "ключ", "名前", "\u{0}", "definitions", "#", "a~b/c",
];

/// Every keyword name the compiler knows, plus annotations and legacy names.
#[rustfmt::skip]
const KEYWORDS: [&str; 52] = [
    "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "type", "const",
    "enum", "multipleOf", "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum",
    "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "prefixItems",
    "items", "contains", "minContains", "maxContains", "required", "minProperties",
    "maxProperties", "properties", "patternProperties", "additionalProperties",
    "propertyNames", "dependentRequired", "dependentSchemas", "allOf", "anyOf", "oneOf", "not",
    "if", "then", "else", "unevaluatedItems", "unevaluatedProperties", "dependencies", "format",
    "title", "default", "contentSchema", "$comment", "$vocabulary", "definitions", "$defs",
];

/// Keyword values of the wrong type or out of range for most keywords.
#[rustfmt::skip]
const BAD: [&str; 20] = [
    "5", "\"x\"", "[1]", "[]", "{}", "null", "true", "-1", "1.5", "\"integer\"",
    "[\"string\",\"string\"]", "{\"a\":5}", "[{\"type\":5}]", "\"(\"", "1e400", "[\"a\",\"a\"]",
    "0", "\"#/nowhere\"", "[true,5]", "{\"type\":\"x\"}",
];

#[rustfmt::skip]
const TYPES: [&str; 8] = [
    "null", "boolean", "object", "array", "number", "string", "integer", "float",
];
#[rustfmt::skip]
const NUMBER_KEYWORDS: [&str; 5] = [
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
];
#[rustfmt::skip]
const COUNT_KEYWORDS: [&str; 8] = [
    "minLength", "maxLength", "minItems", "maxItems", "minContains", "maxContains",
    "minProperties", "maxProperties",
];
#[rustfmt::skip]
const CHILD_KEYWORDS: [&str; 11] = [
    "items", "contains", "additionalProperties", "propertyNames", "not", "if", "then", "else",
    "unevaluatedItems", "unevaluatedProperties", "contentSchema",
];
#[rustfmt::skip]
const MAP_KEYWORDS: [&str; 6] = [
    "$defs", "properties", "patternProperties", "dependentSchemas", "definitions",
    "dependencies",
];
#[rustfmt::skip]
const LIST_KEYWORDS: [&str; 5] = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
#[rustfmt::skip]
const ANNOTATIONS: [&str; 7] = [
    "title", "description", "$comment", "format", "default", "examples", "deprecated",
];
#[rustfmt::skip]
const PATTERNS: [&str; 10] = [
    "^a", "a+b*", "[0-9]{2,3}", "^(ab|cd)$", "\\\\d", "é.", "(", "a{99999}", ".*", "^[^/]+$",
];
#[rustfmt::skip]
const NUMBERS: [&str; 9] = [
    "1e400", "-0", "0.0", "1E-5", "12345678901234567890123", "0.1", "-1e-400", "1.0e+2",
    "9007199254740993",
];
#[rustfmt::skip]
const ANCHORS: [&str; 7] = ["A0", "A1", "A2", "A3", "1x", "a b", ""];
#[rustfmt::skip]
const SCHEMA_URIS: [&str; 3] = [
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft-07/schema#",
    "x",
];

/// First keys of a [`Member::Chain`]: mostly one byte or empty (an error pointer starting
/// with a segment shorter than the `…` marker), a few longer.
#[rustfmt::skip]
const FIRST_KEYS: [&str; 8] = ["a", "", "b", "0", "B", "x", "é", "~"];

/// The length of a long key: 40 to 64 for three in five choices (pointers of about 64 bytes
/// with a few short segments), 1 to 64 otherwise.
fn long_len(n: u8) -> usize {
    if n < 150 {
        40 + usize::from(n % 25)
    } else {
        1 + usize::from(n % 64)
    }
}

fn pick<T: Copy, const N: usize>(list: &[T; N], i: impl Into<usize>) -> T {
    list[i.into() % N]
}

/// A schema document and the storage size it is compiled into.
#[derive(Arbitrary, Debug)]
pub struct GenSchema {
    /// Chooses the storage (the target maps it to one of its sizes).
    pub storage: u8,
    /// The root schema.
    pub root: Node,
}

/// A value in a schema position (or under a non-keyword member, where only `$ref` reaches).
#[derive(Debug)]
pub enum Node {
    /// `true` or `false`.
    Bool(bool),
    /// An object with these members, in this order (duplicates allowed).
    Object(Vec<Member>),
}

/// One member of a schema object.
#[derive(Debug)]
pub enum Member {
    /// A keyword with a value of the right type.
    Valid(Valid),
    /// Any keyword with a value of the wrong type (or a doubtful one).
    Invalid(u8, Bad),
    /// A keyword holding one subschema.
    Child(u8, Box<Node>),
    /// A keyword holding a map of subschemas (`$defs`, `properties`, ...).
    Map(u8, Vec<(Key, Node)>),
    /// A keyword holding a list of subschemas (`allOf`, `prefixItems`, ...).
    List(u8, Vec<Node>),
    /// `$ref` (or `$dynamicRef` when the flag is set).
    Ref(bool, Ref),
    /// `$id`.
    Id(IdValue),
    /// `$anchor` (or `$dynamicAnchor` when the flag is set) with one of a few names.
    Anchor(bool, u8),
    /// A non-keyword member holding a schema-like object.
    Extra(Key, Box<Node>),
    /// A non-keyword member holding data.
    Data(Key, Data),
    /// A chain of nested non-keyword members, `"a":{"BBB…":{…:{"type":5,…}}}`, written with
    /// a `$ref` to its end before it: the first key is one of [`FIRST_KEYS`] (mostly one byte
    /// or empty), then a long key (as [`Key::Long`]), then more keys; the object at the end
    /// holds `type` (half the time, else a keyword of [`KEYWORDS`]) with a bad value, then
    /// more members. At the root this
    /// builds error pointers of 40 to 80 bytes that start with a short segment.
    Chain(u8, (u8, u8), Vec<Key>, u8, Bad, Vec<Member>, Style),
}

/// Keyword values of the right JSON type.
#[derive(Debug)]
pub enum Valid {
    /// `"type"`: one name, or a list of names when the list is not empty.
    Type(u8, Vec<u8>),
    /// `minimum`, `multipleOf`, ...
    Number(u8, Num),
    /// `minLength`, `maxItems`, ...
    Count(u8, u16),
    /// `required`.
    Required(Vec<Key>),
    /// `dependentRequired`.
    DependentRequired(Vec<(Key, Vec<Key>)>),
    /// `enum`.
    Enum(Vec<Data>),
    /// `const`.
    Const(Data),
    /// `pattern`.
    Pattern(u8),
    /// `uniqueItems`.
    UniqueItems(bool),
    /// `title`, `format`, `default`, ...
    Annotation(u8, Data),
    /// `$schema`.
    Schema(u8),
}

/// A bad keyword value: a fixed doubtful text or any JSON value.
#[derive(Debug)]
pub enum Bad {
    /// One of [`BAD`].
    Fixed(u8),
    /// Any value.
    Data(Data),
}

/// A member name.
#[derive(Debug)]
pub enum Key {
    /// `""`.
    Empty,
    /// One character of [`ALPHABET`].
    One(u8),
    /// Two characters of [`ALPHABET`].
    Two(u8, u8),
    /// One character of [`ALPHABET`] repeated 1 to 64 times, mostly 40 to 64 (see
    /// [`long_len`]).
    Long(u8, u8),
    /// One of [`WORDS`].
    Word(u8),
    /// Any text.
    Text(String),
    /// The same key written with `\u` escapes only.
    Escaped(Box<Key>),
}

/// A number, as a JSON lexeme.
#[derive(Debug)]
pub enum Num {
    /// A small integer.
    Small(i8),
    /// Any 64-bit integer.
    Int(i64),
    /// A finite float (others are written as `0.5`).
    Float(f64),
    /// One of [`NUMBERS`] (huge, tiny, negative zero, exponents).
    Lexeme(u8),
}

/// Any JSON value.
#[derive(Debug)]
pub enum Data {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Num(Num),
    /// A string.
    Str(Key),
    /// An array.
    Arr(Vec<Data>),
    /// An object.
    Obj(Vec<(Key, Data)>),
}

/// The value of a `$ref`.
#[derive(Debug)]
pub enum Ref {
    /// `#` (the document's root).
    Root,
    /// The location with this index, as a fragment pointer.
    Pointer(u16, Style),
    /// The location with this index among those under a non-keyword member (the only places
    /// where a pointer's first segment can be shorter than any keyword), as a fragment pointer.
    Into(u16, Style),
    /// The location with this index relative to its enclosing `$id` (`d1.json#/x`), or as a
    /// fragment pointer when it has none.
    ViaId(u16, Style),
    /// A member that does not exist below the location with this index.
    Dangling(u16, Key),
    /// `#A1` (an anchor), or `d2.json#A1` when the flag is set.
    Anchor(bool, u8, u8),
    /// `d1.json` (a resource by its `$id`).
    Resource(u8),
    /// Any text.
    Text(Key),
}

/// How a fragment pointer is written.
#[derive(Debug, Clone, Copy)]
pub enum Style {
    /// As is (only JSON escapes).
    Plain,
    /// Bytes outside the URI fragment characters percent-encoded.
    Percent,
    /// Every byte but `/` percent-encoded.
    PercentAll,
}

/// The value of a `$id`.
#[derive(Debug)]
pub enum IdValue {
    /// `d<n>.json`, relative.
    Relative(u8),
    /// `https://e.x/d<n>.json`.
    Absolute(u8),
    /// `https://e.x/root.json`.
    Root,
    /// `d<n>.json#` (an empty fragment).
    EmptyFragment(u8),
    /// `#A<n>` (a fragment, refused in 2020-12).
    Fragment(u8),
    /// A bad value.
    Bad(Bad),
}

impl Key {
    fn text(&self) -> String {
        match self {
            Key::Empty => String::new(),
            Key::One(a) => pick(&ALPHABET, *a).to_owned(),
            Key::Two(a, b) => [pick(&ALPHABET, *a), pick(&ALPHABET, *b)].concat(),
            Key::Long(a, n) => pick(&ALPHABET, *a).repeat(long_len(*n)),
            Key::Word(w) => pick(&WORDS, *w).to_owned(),
            Key::Text(s) => s.clone(),
            Key::Escaped(k) => k.text(),
        }
    }

    fn escaped(&self) -> bool {
        matches!(self, Key::Escaped(_))
    }
}

impl Num {
    fn write(&self, out: &mut String) {
        match self {
            Num::Small(n) => out.push_str(&n.to_string()),
            Num::Int(n) => out.push_str(&n.to_string()),
            Num::Float(f) if f.is_finite() => out.push_str(&format!("{f:?}")),
            Num::Float(_) => out.push_str("0.5"),
            Num::Lexeme(i) => out.push_str(pick(&NUMBERS, *i)),
        }
    }
}

impl IdValue {
    /// The `$id` text, or `None` for a bad value.
    fn text(&self) -> Option<String> {
        Some(match self {
            IdValue::Relative(n) => format!("d{}.json", n % 8),
            IdValue::Absolute(n) => format!("https://e.x/d{}.json", n % 8),
            IdValue::Root => "https://e.x/root.json".to_owned(),
            IdValue::EmptyFragment(n) => format!("d{}.json#", n % 8),
            IdValue::Fragment(n) => format!("#{}", pick(&ANCHORS, *n)),
            IdValue::Bad(_) => return None,
        })
    }
}

impl GenSchema {
    /// The schema as JSON text.
    pub fn to_json(&self) -> String {
        writer::to_json(&self.root)
    }
}
