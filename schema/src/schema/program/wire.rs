//! The postcard form of a program: each [`Op`] as a fixed four-field [`WireOp`], the header
//! (magic, version), and loading into caller storage followed by [`verify`](super::verify).

use super::layout::{Parts, Program, Storage, PROGRAM_MAGIC, PROGRAM_VERSION};
use super::op::{Op, Str};
use super::verify::verify;
use crate::schema::error::LoadError;
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde::{de, Deserialize, Serialize};

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
pub(super) struct WireOps<'a>(&'a [Op]);

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

impl<'p> Program<'p> {
    pub(super) fn wire(&self) -> Wire<'_> {
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
pub(super) struct Wire<'a> {
    magic: [u8; 4],
    version: u16,
    nodes: &'a [u16],
    ops: WireOps<'a>,
    text: &'a str,
}

pub(super) struct Loaded<'de> {
    nodes: usize,
    ops: usize,
    text: &'de str,
}

pub(super) struct ProgramSeed<'s> {
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
pub(super) struct SliceSeed<'s, W, T> {
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
            n = n.wrapping_add(1); // `slots.get_mut(n)` was `Some`: `n < slots.len()`
        }
        Ok(n)
    }
}
