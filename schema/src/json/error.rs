//! Error types of the JSON layer: one for writing, one for reading.

use core::fmt;

use super::{Dec, Text};

/// Why a value could not be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum EncodeError {
    /// The output buffer is too small. `needed` is the exact size the whole output takes.
    BufferTooSmall {
        /// Bytes the complete output needs.
        needed: usize,
        /// Bytes the buffer has.
        capacity: usize,
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

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BufferTooSmall { needed, capacity } => write!(
                f,
                "output buffer too small: {} bytes needed, {} available",
                Dec::of(*needed),
                Dec::of(*capacity)
            ),
            Self::NonFiniteFloat => f.write_str("NaN or infinite float cannot be encoded as JSON"),
            Self::KeyMustBeString => f.write_str("JSON object keys must be strings"),
            Self::Sink => f.write_str("the output sink refused the bytes"),
            Self::Custom => f.write_str("the value's Serialize implementation failed"),
            Self::IncompleteValue => f.write_str(
                "the value's Serialize implementation did not write one complete JSON value",
            ),
        }
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

impl fmt::Display for DecodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Self::UnexpectedEnd => "unexpected end of input",
            Self::UnexpectedByte => "unexpected character",
            Self::InvalidUtf8 => "invalid UTF-8",
            Self::InvalidEscape => "invalid escape sequence",
            Self::UnpairedSurrogate => "unpaired UTF-16 surrogate escape",
            Self::ControlCharacter => "unescaped control character in string",
            Self::InvalidNumber => "invalid number",
            Self::TooDeep => "nesting too deep",
            Self::TrailingData => "trailing data after the JSON value",
            Self::ScratchTooSmall => "scratch buffer too small for unescaped strings",
            Self::NumberOutOfRange => "number out of range",
            Self::InvalidType => "invalid type",
            Self::InvalidValue => "invalid value",
            Self::InvalidLength => "invalid length",
            Self::MissingField(name) => return write!(f, "missing field `{}`", Text(name)),
            Self::DuplicateField(name) => return write!(f, "duplicate field `{}`", Text(name)),
            Self::UnknownField => "unknown field",
            Self::UnknownVariant => "unknown variant",
            Self::Custom => "invalid data",
        };
        f.write_str(s)
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind, Dec::of(self.offset))
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
