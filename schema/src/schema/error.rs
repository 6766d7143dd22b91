//! Errors of the schema layer: compiling ([`CompileError`]), loading a stored program
//! ([`LoadError`]) and validating ([`Violation`]).

use core::fmt;

use super::pointer::{InstancePath, SchemaPointer, MARKER};
use crate::json::{copy_bytes, fmt_described, DecodeError, Describe, EncodeError, Piece, Sink};

/// Capacity in bytes of a [`Violation`]'s message.
pub const MESSAGE_CAPACITY: usize = 60;

/// A short human-readable message in a fixed buffer, truncated with `…` when too long.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Message {
    buf: [u8; MESSAGE_CAPACITY],
    len: u8,
    full: bool,
}

impl Message {
    pub(crate) const fn new() -> Self {
        Self {
            buf: [0; MESSAGE_CAPACITY],
            len: 0,
            full: false,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        let bytes = self.buf.get(..usize::from(self.len)).unwrap_or_default();
        core::str::from_utf8(bytes).unwrap_or_default()
    }
}

impl Message {
    /// Appends `s`; once the room is used up, whole characters up to it, the marker, and
    /// [`EncodeError::BufferTooSmall`] for this and every later piece.
    pub(crate) fn write_str(&mut self, s: &str) -> Result<(), EncodeError> {
        let full = EncodeError::BufferTooSmall {
            needed: MESSAGE_CAPACITY.wrapping_add(1),
        };
        if self.full {
            return Err(full);
        }
        // Checked when compiled: the marker fits.
        const ROOM: usize = MESSAGE_CAPACITY - MARKER.len();
        // `len <= MESSAGE_CAPACITY` (60) and `s.len() <= isize::MAX`: the sum does not wrap.
        let len = usize::from(self.len);
        let total = len.wrapping_add(s.len());
        if total <= ROOM {
            if let Some(dst) = self.buf.get_mut(len..total) {
                copy_bytes(dst, s.as_bytes());
            }
            self.len = u8::try_from(total).unwrap_or(u8::MAX);
            return Ok(());
        }
        // Keep whole characters up to the room left, then the marker, then stop writing.
        let mut cut = ROOM.saturating_sub(len).min(s.len());
        // 0 is a char boundary: `cut` stops before it could wrap.
        while !s.is_char_boundary(cut) {
            cut = cut.wrapping_sub(1);
        }
        // `cut <= room - len` when `len <= room`; else `cut == 0`: `end <= MESSAGE_CAPACITY`.
        let end = len.wrapping_add(cut);
        let marker_end = end.wrapping_add(MARKER.len());
        // Both exactly `cut` bytes long, so the copy cannot fail its length check.
        let dst = self.buf.get_mut(len..).and_then(|rest| rest.get_mut(..cut));
        if let (Some(dst), Some(src)) = (dst, s.as_bytes().get(..cut)) {
            copy_bytes(dst, src);
        }
        if let Some(dst) = self.buf.get_mut(end..marker_end) {
            copy_bytes(dst, MARKER.as_bytes());
        }
        self.len = u8::try_from(marker_end).unwrap_or(u8::MAX);
        self.full = true;
        Err(full)
    }

    /// Appends the pieces' text (see [`Message::write_str`] for what happens when it is full).
    pub(crate) fn write(&mut self, pieces: &[Piece<'_>]) -> Result<(), EncodeError> {
        pieces.describe(self)
    }
}

/// The pieces of a message come as whole `str`s (integers as ASCII digits), so the bytes are
/// UTF-8.
impl Sink for Message {
    fn put(&mut self, bytes: &[u8]) -> Result<(), EncodeError> {
        let text = core::str::from_utf8(bytes).map_err(|_| EncodeError::Custom)?;
        self.write_str(text)
    }
}

impl fmt::Write for Message {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        Message::write_str(self, s).map_err(|_| fmt::Error)
    }
}

/// Why an instance was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum ViolationKind {
    /// The instance does not satisfy a keyword of the schema.
    Invalid,
    /// The bytes given to [`Program::validate_bytes`](super::Program::validate_bytes) are not a
    /// JSON document within the nesting limit (the message says why and at which byte).
    NotJson,
    /// Evaluation went deeper than [`ValidationLimits::max_depth`](super::ValidationLimits).
    TooDeep,
    /// Evaluation took more than [`ValidationLimits::max_steps`](super::ValidationLimits) steps.
    /// The instance is not known to be valid.
    BudgetExceeded,
    /// The instance text is 4 GiB or more (counts are kept in 32 bits).
    TooLarge,
    /// The program holds a keyword the evaluator was not built for
    /// ([`Program::validate_for`](super::Program::validate_for)). The instance is not known to
    /// be valid.
    Unsupported,
}

/// The first reason an instance was not accepted: where, which keyword, and a short message.
///
/// `Display` gives `<instance path>: <message>`, e.g. `/level: 12 is greater than the maximum
/// 10`; the root is shown as `(root)`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Violation {
    /// What kind of failure this is.
    pub kind: ViolationKind,
    /// The schema keyword that failed (`""` for [`ViolationKind::NotJson`] and
    /// [`ViolationKind::TooLarge`], `"$budget"` and `"$depth"` for the limits, `"$keywords"` for
    /// [`ViolationKind::Unsupported`]).
    pub keyword: &'static str,
    /// Where in the instance.
    pub path: InstancePath,
    pub(crate) message: Message,
}

impl Violation {
    /// The human-readable message (without the path).
    pub fn message(&self) -> &str {
        self.message.as_str()
    }
}

impl Describe for Violation {
    fn describe(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        let path = self.path.as_str();
        let path = if path.is_empty() { "(root)" } else { path };
        [
            Piece::Text(path),
            Piece::Text(": "),
            Piece::Text(self.message()),
        ][..]
            .describe(out)
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_described(self, f)
    }
}

impl fmt::Debug for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Violation")
            .field("kind", &self.kind)
            .field("keyword", &self.keyword)
            .field("path", &self.path)
            .field("message", &self.message())
            .finish()
    }
}

impl core::error::Error for Violation {}

#[cfg(feature = "defmt")]
impl defmt::Format for Violation {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "{=str}: {=str} ({=str})",
            self.path.as_str(),
            self.message(),
            self.keyword
        )
    }
}

/// Why a schema could not be compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum CompileError {
    /// The schema is not JSON.
    NotJson(DecodeError),
    /// The schema nests arrays and objects deeper than
    /// [`SCHEMA_MAX_DEPTH`](super::SCHEMA_MAX_DEPTH).
    TooDeep,
    /// The keyword is outside the dialect (see `DIALECT.md`); the schema is never validated
    /// permissively.
    Refused {
        /// The keyword.
        keyword: &'static str,
        /// Where it is.
        pointer: SchemaPointer,
        /// Why, in a few words.
        reason: &'static str,
    },
    /// The keyword's value is not valid JSON Schema 2020-12 (for example `"minLength": -1`).
    Invalid {
        /// The keyword.
        keyword: &'static str,
        /// Where it is.
        pointer: SchemaPointer,
        /// What is wrong, in a few words.
        reason: &'static str,
    },
    /// A same-document `$ref` points nowhere.
    UnresolvedRef {
        /// The `$ref`'s place.
        pointer: SchemaPointer,
    },
    /// `$ref`s (or in-place applicators) form a loop that never moves into the instance, such as
    /// `{"$ref": "#"}`: evaluation could never end.
    RefCycle {
        /// A schema on the loop.
        pointer: SchemaPointer,
    },
    /// More subschemas than the storage's node capacity (or 65 534).
    TooManyNodes {
        /// The capacity.
        capacity: usize,
    },
    /// More instructions than the storage's op capacity (or 65 535).
    TooManyOps {
        /// The capacity.
        capacity: usize,
    },
    /// Strings and values need more bytes than the storage's text capacity (or 65 535).
    TextFull {
        /// The capacity.
        capacity: usize,
    },
    /// Resolving `$ref`s, `$id`s and `$anchor`s would scan more than
    /// [`REF_WORK_LIMIT`](super::REF_WORK_LIMIT) bytes of the schema.
    TooComplex,
    /// The compiler built an inconsistent program (a bug in this crate; please report it).
    Internal,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |p: &SchemaPointer| if p.as_str().is_empty() { "#" } else { "" };
        match self {
            Self::NotJson(e) => write!(f, "schema is not JSON: {e}"),
            Self::TooDeep => write!(
                f,
                "schema nests deeper than {} levels",
                super::SCHEMA_MAX_DEPTH
            ),
            Self::Refused {
                keyword,
                pointer,
                reason,
            } => write!(
                f,
                "{}{pointer}: `{keyword}` is refused: {reason}",
                at(pointer)
            ),
            Self::Invalid {
                keyword,
                pointer,
                reason,
            } => write!(f, "{}{pointer}: invalid `{keyword}`: {reason}", at(pointer)),
            Self::UnresolvedRef { pointer } => write!(
                f,
                "{}{pointer}: `$ref` does not resolve inside the document",
                at(pointer)
            ),
            Self::RefCycle { pointer } => write!(
                f,
                "{}{pointer}: `$ref` loop that never descends into the instance",
                at(pointer)
            ),
            Self::TooManyNodes { capacity } => {
                write!(f, "schema has more than {capacity} subschemas")
            }
            Self::TooManyOps { capacity } => {
                write!(f, "compiled schema needs more than {capacity} instructions")
            }
            Self::TextFull { capacity } => write!(
                f,
                "compiled schema needs more than {capacity} bytes of names and values"
            ),
            Self::TooComplex => f.write_str(
                "resolving references needs more work than the compiler's bound (REF_WORK_LIMIT)",
            ),
            Self::Internal => f.write_str("internal error: inconsistent compiled program"),
        }
    }
}

impl core::error::Error for CompileError {}

/// Why a stored program could not be loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum LoadError {
    /// The bytes are not a postcard program (truncated, bad varint, unknown instruction).
    Malformed,
    /// The header does not start with the program magic.
    BadMagic,
    /// The program was written by an incompatible format version.
    UnsupportedVersion(u16),
    /// The program needs more nodes or ops than the storage has.
    TooLarge,
    /// The program decodes but is inconsistent (an index out of range, a bad string, a loop).
    Corrupt,
    /// The output buffer is too small (when writing a program).
    BufferTooSmall,
    /// The program uses something this build of the crate leaves out: the named cargo feature
    /// of `embedded-mcp` (`"pattern"` for regular expressions).
    NeedsFeature(&'static str),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Malformed => f.write_str("not a postcard schema program"),
            Self::BadMagic => f.write_str("not a schema program (bad magic)"),
            Self::UnsupportedVersion(v) => write!(f, "unsupported schema program version {v}"),
            Self::TooLarge => f.write_str("schema program larger than the storage"),
            Self::Corrupt => f.write_str("schema program is corrupt"),
            Self::BufferTooSmall => f.write_str("output buffer too small for the program"),
            Self::NeedsFeature(feature) => write!(
                f,
                "schema program needs the `{feature}` feature of embedded-mcp"
            ),
        }
    }
}

impl core::error::Error for LoadError {}

#[cfg(test)]
mod tests {
    use super::*;
    use core::fmt::Write;
    use std::string::ToString;

    #[test]
    fn message_truncates_on_char_boundary() {
        let mut m = Message::new();
        let _ = write!(m, "{}", "é".repeat(100));
        // 28 two-byte characters fit before the three-byte marker.
        assert_eq!(m.as_str().chars().count(), (MESSAGE_CAPACITY - 3) / 2 + 1);
        let s = m.as_str();
        assert!(s.ends_with('…'));
        assert!(s.len() <= MESSAGE_CAPACITY);
        let v = Violation {
            kind: ViolationKind::Invalid,
            keyword: "maximum",
            path: InstancePath::default(),
            message: Message::new(),
        };
        assert_eq!(v.to_string(), "(root): ");
        // Small enough to return by value (clippy's result_large_err threshold is 128).
        assert!(core::mem::size_of::<Violation>() <= 120);
        assert!(core::mem::size_of::<CompileError>() <= 120);
    }
}
