//! Error types of the JSON layer: one for writing, one for reading.

use core::fmt;

use super::describe::{fmt_described, Describe};
use super::messages::{joined_len, Messages};
use super::Sink;

/// Why a value could not be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EncodeError {
    /// The output buffer is too small. `needed` is the exact size the whole output takes;
    /// the buffer's size is the caller's to tell (it holds the buffer, and
    /// [`SliceSink::capacity`](super::SliceSink::capacity) says it). One number keeps
    /// `Result<(), EncodeError>` in two registers on 32-bit targets.
    BufferTooSmall {
        /// Bytes the complete output needs.
        needed: usize,
    },
    /// A float was NaN or infinite: JSON has no representation for it.
    NonFiniteFloat,
    /// A map key was not a string, an integer, a char or a bool.
    KeyMustBeString,
    /// The sink refused bytes (for example an I/O error on a transport).
    Sink,
    /// A `Serialize` implementation reported its own error.
    Custom,
    /// A `Serialize` implementation broke serde's protocol: a value that wrote nothing, a
    /// compound without its `end`, a map key without its value. Nothing broken is left as
    /// complete output.
    IncompleteValue,
}

impl Describe for EncodeError {
    fn describe(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        let text = match self {
            Self::BufferTooSmall { needed } => {
                out.put(b"output buffer too small: ")?;
                super::write_u64(out, *needed as u64)?;
                " bytes needed"
            }
            Self::NonFiniteFloat => "NaN or infinite float cannot be encoded as JSON",
            Self::KeyMustBeString => "JSON object keys must be strings",
            Self::Sink => "the output sink refused the bytes",
            Self::Custom => "the value's Serialize implementation failed",
            Self::IncompleteValue => {
                "the value's Serialize implementation did not write one complete JSON value"
            }
        };
        out.put(text.as_bytes())
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_described(self, f)
    }
}

impl core::error::Error for EncodeError {}

impl serde::ser::Error for EncodeError {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Self::Custom
    }
}

/// What went wrong while reading JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// The input ended inside a value.
    UnexpectedEnd,
    /// A byte that the JSON grammar does not allow here.
    UnexpectedByte,
    /// The input is not valid UTF-8.
    InvalidUtf8,
    /// A backslash escape that JSON does not define, or a malformed `\u` escape.
    InvalidEscape,
    /// A `\u` escape of a UTF-16 surrogate that is not part of a valid pair.
    UnpairedSurrogate,
    /// A raw control character (below U+0020) inside a string.
    ControlCharacter,
    /// A number that does not follow the JSON grammar.
    InvalidNumber,
    /// Arrays and objects nested deeper than the configured limit.
    TooDeep,
    /// Non-whitespace bytes after the value.
    TrailingData,
    /// The caller's scratch buffer is too small for the unescaped strings.
    ScratchTooSmall,
    /// A number does not fit the requested Rust type.
    NumberOutOfRange,
    /// The JSON type differs from what the Rust type expects.
    InvalidType,
    /// The JSON value is of the right type but not acceptable to the Rust type.
    InvalidValue,
    /// An array or object has the wrong number of elements for the Rust type.
    InvalidLength,
    /// A struct field is missing.
    MissingField(&'static str),
    /// A struct field appears twice.
    DuplicateField(&'static str),
    /// An object key that the Rust type does not know (with `deny_unknown_fields`).
    UnknownField,
    /// A string that names no variant of the Rust enum.
    UnknownVariant,
    /// A `Deserialize` implementation reported its own error.
    Custom,
}

/// A reading error and the byte offset where it was found (0 when unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct DecodeError {
    /// What went wrong.
    pub kind: DecodeErrorKind,
    /// Byte offset in the input.
    pub offset: usize,
}

impl DecodeError {
    /// An error of `kind` at byte `offset`.
    pub const fn new(kind: DecodeErrorKind, offset: usize) -> Self {
        Self { kind, offset }
    }
}

/// The messages of [`DecodeErrorKind`], in the order of its variants (for the two field
/// variants, the text before the name; a backquote follows the name).
const DECODE_TEXTS: [&str; 19] = [
    "unexpected end of input",
    "unexpected character",
    "invalid UTF-8",
    "invalid escape sequence",
    "unpaired UTF-16 surrogate escape",
    "unescaped control character in string",
    "invalid number",
    "nesting too deep",
    "trailing data after the JSON value",
    "scratch buffer too small for unescaped strings",
    "number out of range",
    "invalid type",
    "invalid value",
    "invalid length",
    "missing field `",
    "duplicate field `",
    "unknown field",
    "unknown variant",
    "invalid data",
];

static DECODE_MESSAGES: Messages<{ joined_len(&DECODE_TEXTS) }, 19> = Messages::join(DECODE_TEXTS);

impl DecodeErrorKind {
    /// The variant's position: its message in [`DECODE_TEXTS`].
    fn index(&self) -> usize {
        match *self {
            Self::UnexpectedEnd => 0,
            Self::UnexpectedByte => 1,
            Self::InvalidUtf8 => 2,
            Self::InvalidEscape => 3,
            Self::UnpairedSurrogate => 4,
            Self::ControlCharacter => 5,
            Self::InvalidNumber => 6,
            Self::TooDeep => 7,
            Self::TrailingData => 8,
            Self::ScratchTooSmall => 9,
            Self::NumberOutOfRange => 10,
            Self::InvalidType => 11,
            Self::InvalidValue => 12,
            Self::InvalidLength => 13,
            Self::MissingField(_) => 14,
            Self::DuplicateField(_) => 15,
            Self::UnknownField => 16,
            Self::UnknownVariant => 17,
            Self::Custom => 18,
        }
    }
}

impl Describe for DecodeErrorKind {
    fn describe(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        out.put(DECODE_MESSAGES.get(self.index()))?;
        match *self {
            Self::MissingField(name) | Self::DuplicateField(name) => {
                out.put(name.as_bytes())?;
                out.put(b"`")
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_described(self, f)
    }
}

impl Describe for DecodeError {
    fn describe(&self, out: &mut dyn Sink) -> Result<(), EncodeError> {
        self.kind.describe(out)?;
        out.put(b" at byte ")?;
        super::write_u64(out, self.offset as u64)
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_described(self, f)
    }
}

impl core::error::Error for DecodeError {}

impl serde::de::Error for DecodeError {
    fn custom<T: fmt::Display>(_msg: T) -> Self {
        Self::new(DecodeErrorKind::Custom, 0)
    }
    fn invalid_type(_unexp: serde::de::Unexpected<'_>, _exp: &dyn serde::de::Expected) -> Self {
        Self::new(DecodeErrorKind::InvalidType, 0)
    }
    fn invalid_value(_unexp: serde::de::Unexpected<'_>, _exp: &dyn serde::de::Expected) -> Self {
        Self::new(DecodeErrorKind::InvalidValue, 0)
    }
    fn invalid_length(_len: usize, _exp: &dyn serde::de::Expected) -> Self {
        Self::new(DecodeErrorKind::InvalidLength, 0)
    }
    fn unknown_variant(_variant: &str, _expected: &'static [&'static str]) -> Self {
        Self::new(DecodeErrorKind::UnknownVariant, 0)
    }
    fn unknown_field(_field: &str, _expected: &'static [&'static str]) -> Self {
        Self::new(DecodeErrorKind::UnknownField, 0)
    }
    fn missing_field(field: &'static str) -> Self {
        Self::new(DecodeErrorKind::MissingField(field), 0)
    }
    fn duplicate_field(field: &'static str) -> Self {
        Self::new(DecodeErrorKind::DuplicateField(field), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffer_too_small_says_the_size_needed() {
        let e = EncodeError::BufferTooSmall { needed: 41 };
        assert_eq!(
            std::format!("{e}"),
            "output buffer too small: 41 bytes needed"
        );
    }

    #[test]
    fn an_encoding_outcome_fits_two_words() {
        // Two registers on a 32-bit target: no hidden return pointer at every `?`.
        assert!(
            core::mem::size_of::<Result<(), EncodeError>>() <= 2 * core::mem::size_of::<usize>()
        );
        assert!(
            core::mem::size_of::<Result<usize, EncodeError>>() <= 2 * core::mem::size_of::<usize>()
        );
    }
}
