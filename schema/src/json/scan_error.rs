//! The scanner's error: a grammar fault and its byte offset, in two machine words.
//!
//! [`DecodeError`] carries a [`DecodeErrorKind`], whose field-name variants make it three words
//! long; a `Result` holding it is returned through a hidden pointer on 32-bit targets, with
//! the error copied out at every `?`. The scanner's own results hold this smaller error and
//! turn into [`DecodeError`] where they leave it (`?` converts).

use core::fmt;

use super::error::{DecodeError, DecodeErrorKind};

/// What the scanner found wrong: the first nine variants of [`DecodeErrorKind`] (the grammar
/// part), with the same positions, so the conversion is a plain copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
#[repr(u8)]
pub enum Fault {
    /// [`DecodeErrorKind::UnexpectedEnd`].
    UnexpectedEnd = 0,
    /// [`DecodeErrorKind::UnexpectedByte`].
    UnexpectedByte = 1,
    /// [`DecodeErrorKind::InvalidUtf8`].
    InvalidUtf8 = 2,
    /// [`DecodeErrorKind::InvalidEscape`].
    InvalidEscape = 3,
    /// [`DecodeErrorKind::UnpairedSurrogate`].
    UnpairedSurrogate = 4,
    /// [`DecodeErrorKind::ControlCharacter`].
    ControlCharacter = 5,
    /// [`DecodeErrorKind::InvalidNumber`].
    InvalidNumber = 6,
    /// [`DecodeErrorKind::TooDeep`].
    TooDeep = 7,
    /// [`DecodeErrorKind::TrailingData`].
    TrailingData = 8,
}

impl From<Fault> for DecodeErrorKind {
    fn from(fault: Fault) -> Self {
        match fault {
            Fault::UnexpectedEnd => Self::UnexpectedEnd,
            Fault::UnexpectedByte => Self::UnexpectedByte,
            Fault::InvalidUtf8 => Self::InvalidUtf8,
            Fault::InvalidEscape => Self::InvalidEscape,
            Fault::UnpairedSurrogate => Self::UnpairedSurrogate,
            Fault::ControlCharacter => Self::ControlCharacter,
            Fault::InvalidNumber => Self::InvalidNumber,
            Fault::TooDeep => Self::TooDeep,
            Fault::TrailingData => Self::TrailingData,
        }
    }
}

/// A scanner error: the fault and the byte offset where it was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ScanError {
    /// What went wrong.
    pub fault: Fault,
    /// Byte offset in the scanned text.
    pub offset: usize,
}

impl ScanError {
    /// A `fault` at byte `offset`.
    pub const fn new(fault: Fault, offset: usize) -> Self {
        Self { fault, offset }
    }
}

impl From<ScanError> for DecodeError {
    fn from(e: ScanError) -> Self {
        Self::new(e.fault.into(), e.offset)
    }
}

impl fmt::Display for ScanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        DecodeError::from(*self).fmt(f)
    }
}

impl core::error::Error for ScanError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_to_the_same_decode_error() {
        let e = ScanError::new(Fault::TrailingData, 7);
        assert_eq!(
            DecodeError::from(e),
            DecodeError::new(DecodeErrorKind::TrailingData, 7)
        );
        assert_eq!(
            std::format!("{e}"),
            "trailing data after the JSON value at byte 7"
        );
    }

    #[test]
    fn a_scan_outcome_fits_two_words() {
        assert!(core::mem::size_of::<Result<(), ScanError>>() <= 2 * core::mem::size_of::<usize>());
        assert!(core::mem::size_of::<Result<u8, ScanError>>() <= 2 * core::mem::size_of::<usize>());
    }
}
