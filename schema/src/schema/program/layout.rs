//! The program's parts: the `type` bits, the caller-provided [`Storage`] and its views, and
//! the [`Program`] handle over them.

use super::address::NONE;
use super::op::{Op, Str};

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
            // `Type(0)`, the first variant with a zero payload: all zero bits in practice, so a
            // `static` storage lands in `.bss` (no flash image). Unused slots are never read.
            ops: [Op::Type(0); OPS],
            text: [0; TEXT],
        }
    }

    /// The storage as slices, clamped to the format's index limits.
    pub(crate) fn parts(&mut self) -> Parts<'_> {
        let n = NODES.min(usize::from(NONE - 1));
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
        self.text.get(s.range()).unwrap_or_default()
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
}
