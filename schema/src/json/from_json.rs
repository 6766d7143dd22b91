//! [`FromJson`]: a type that reads itself from checked JSON, the reading counterpart of
//! [`ToJson`](super::ToJson).
//!
//! serde's `Deserialize` goes through visitors generic over the deserializer, inlined per type;
//! a `FromJson` impl is one function per type that calls small shared readers (the member
//! loop, integers, strings) through a [`Reader`]. `#[derive(McpSchema)]` implements it with the
//! same results and the same errors (kind and offset) as serde's derive over
//! [`from_value`](super::from_value); a field type without it is read by serde.

use core::marker::PhantomData;

use serde::de::Deserialize;

use super::de::Scratch;
use super::error::{DecodeError, DecodeErrorKind as K};
use super::value::{Kind, Value};

/// A type read from checked JSON.
pub trait FromJson<'a>: Sized {
    /// Reads `value`; escaped strings are decoded into the reader's scratch.
    fn from_json(value: Value<'a>, r: &mut Reader<'a, '_>) -> Result<Self, DecodeError>;
}

/// Reads an already checked [`Value`] as `T`; escaped strings are decoded into `scratch` (the
/// same results and errors as [`from_value`](super::from_value) with serde's derive).
pub fn from_value_json<'a, T: FromJson<'a>>(
    value: Value<'a>,
    scratch: &'a mut [u8],
) -> Result<T, DecodeError> {
    let mut scratch = Scratch::new(scratch, &value);
    T::from_json(
        value,
        &mut Reader {
            scratch: &mut scratch,
        },
    )
}

/// Where a [`FromJson`] impl reads: the document's scratch and its start (for offsets).
pub struct Reader<'a, 's> {
    scratch: &'s mut Scratch<'a>,
}

impl<'a> Reader<'a, '_> {
    /// An error of `kind` at `value`.
    pub fn error(&self, value: &Value<'_>, kind: K) -> DecodeError {
        DecodeError::new(kind, self.scratch.offset(value))
    }

    /// `value` as a string, borrowed from the input or (escaped) decoded into the scratch.
    pub fn text(&mut self, value: &Value<'a>) -> Result<&'a str, DecodeError> {
        let s = value
            .as_str()
            .ok_or_else(|| self.error(value, K::InvalidType))?;
        let off = self.scratch.offset(value);
        self.scratch
            .text(s)
            .map_err(|e| DecodeError::new(e.kind, off))
    }

    /// Reads `value` with serde (for a type without [`FromJson`]).
    pub fn serde<T: Deserialize<'a>>(&mut self, value: Value<'a>) -> Result<T, DecodeError> {
        self.scratch.deserialize(value)
    }

    /// `value` as an integer from `-low` to `high`: its sign (never for 0) and magnitude. One
    /// exact decimal reading for every integer type (what `as_u64` and `as_i64` do).
    #[inline(never)]
    fn integer(&self, value: &Value<'_>, low: u64, high: u64) -> Result<(bool, u64), DecodeError> {
        let n = value
            .as_number()
            .ok_or_else(|| self.error(value, K::InvalidType))?;
        super::number::exact_integer(n.raw())
            .map(|(negative, magnitude)| (negative && magnitude != 0, magnitude))
            .filter(|&(negative, magnitude)| magnitude <= if negative { low } else { high })
            .ok_or_else(|| self.error(value, K::NumberOutOfRange))
    }

    /// The members of an object as serde's derive reads them: each known key's index in
    /// `names` handed to `field` with its value, in document order; unknown keys skipped (an
    /// error under `deny_unknown_fields`); a key given twice an error. At most 64 names.
    #[doc(hidden)]
    #[inline(never)]
    pub fn object(
        &mut self,
        value: &Value<'a>,
        names: &[&'static str],
        deny_unknown: bool,
        field: &mut dyn FnMut(usize, Value<'a>, &mut Reader<'a, '_>) -> Result<(), DecodeError>,
    ) -> Result<(), DecodeError> {
        let members = value
            .members()
            .ok_or_else(|| self.error(value, K::InvalidType))?;
        let mut seen = 0u64;
        for (key, member) in members {
            let Some(i) = names.iter().position(|n| key.eq_str(n)) else {
                if deny_unknown {
                    // At the key's opening quote, where serde's field visitor fails.
                    let at = self.scratch.offset_at(key.raw().as_ptr()).saturating_sub(1);
                    return Err(DecodeError::new(K::UnknownField, at));
                }
                continue;
            };
            let bit = 1u64
                .checked_shl(u32::try_from(i).unwrap_or(u32::MAX))
                .unwrap_or(0);
            if seen & bit != 0 {
                let name = names.get(i).copied().unwrap_or_default();
                return Err(self.error(value, K::DuplicateField(name)));
            }
            seen |= bit;
            field(
                i,
                member,
                &mut Reader {
                    scratch: &mut *self.scratch,
                },
            )?;
        }
        Ok(())
    }

    /// A missing field's error (at the object, as serde's derive reports it).
    #[doc(hidden)]
    pub fn missing(&self, object: &Value<'_>, name: &'static str) -> DecodeError {
        self.error(object, K::MissingField(name))
    }

    /// The index of the string `value` in `names` (an enum of unit variants).
    #[doc(hidden)]
    #[inline(never)]
    pub fn variant(&self, value: &Value<'_>, names: &[&str]) -> Result<usize, DecodeError> {
        if value.kind() != Kind::String {
            return Err(self.error(value, K::InvalidType));
        }
        let s = value
            .as_str()
            .ok_or_else(|| self.error(value, K::InvalidType))?;
        names
            .iter()
            .position(|n| s.eq_str(n))
            .ok_or_else(|| self.error(value, K::UnknownVariant))
    }
}

impl<'a> FromJson<'a> for bool {
    fn from_json(value: Value<'a>, r: &mut Reader<'a, '_>) -> Result<Self, DecodeError> {
        value
            .as_bool()
            .ok_or_else(|| r.error(&value, K::InvalidType))
    }
}

macro_rules! unsigned {
    ($($t:ty)*) => {$(
        impl<'a> FromJson<'a> for $t {
            fn from_json(value: Value<'a>, r: &mut Reader<'a, '_>) -> Result<Self, DecodeError> {
                // `integer` checked the range: the value fits.
                let (_, magnitude) = r.integer(&value, 0, <$t>::MAX as u64)?;
                Ok(magnitude as $t)
            }
        }
    )*};
}
unsigned!(u8 u16 u32 u64);

macro_rules! signed {
    ($($t:ty)*) => {$(
        impl<'a> FromJson<'a> for $t {
            fn from_json(value: Value<'a>, r: &mut Reader<'a, '_>) -> Result<Self, DecodeError> {
                let (negative, magnitude) =
                    r.integer(&value, <$t>::MIN.unsigned_abs() as u64, <$t>::MAX as u64)?;
                // `integer` checked the range: the value fits (`MIN` wraps to itself).
                let v = magnitude as i64;
                Ok((if negative { v.wrapping_neg() } else { v }) as $t)
            }
        }
    )*};
}
signed!(i8 i16 i32 i64);

impl<'de: 'x, 'x> FromJson<'de> for &'x str {
    fn from_json(value: Value<'de>, r: &mut Reader<'de, '_>) -> Result<Self, DecodeError> {
        r.text(&value)
    }
}

impl<'a, T: FromJson<'a>> FromJson<'a> for Option<T> {
    fn from_json(value: Value<'a>, r: &mut Reader<'a, '_>) -> Result<Self, DecodeError> {
        if value.is_null() {
            Ok(None)
        } else {
            T::from_json(value, r).map(Some)
        }
    }
}

/// What the derive calls for a field of type `T`: its [`FromJson`] when it has one, else
/// serde's `Deserialize`, else an error (autoref specialization on a concrete type:
/// `(&&&Pick::<T>::NEW).read_via(value, r)`).
#[doc(hidden)]
pub mod pick {
    use super::{DecodeError, Deserialize, FromJson, PhantomData, Reader, Value, K};

    /// The type being read.
    pub struct Pick<T: ?Sized>(PhantomData<fn() -> *const T>);

    impl<T: ?Sized> Pick<T> {
        /// The picker.
        pub const NEW: Self = Self(PhantomData);
    }

    /// By [`FromJson`].
    pub trait ByFromJson<'a> {
        /// The type read.
        type Out;
        /// Reads it.
        fn read_via(&self, v: Value<'a>, r: &mut Reader<'a, '_>) -> Result<Self::Out, DecodeError>;
    }
    impl<'a, T: FromJson<'a>> ByFromJson<'a> for &&Pick<T> {
        type Out = T;
        fn read_via(&self, v: Value<'a>, r: &mut Reader<'a, '_>) -> Result<T, DecodeError> {
            T::from_json(v, r)
        }
    }

    /// By serde.
    pub trait BySerde<'a> {
        /// The type read.
        type Out;
        /// Reads it.
        fn read_via(&self, v: Value<'a>, r: &mut Reader<'a, '_>) -> Result<Self::Out, DecodeError>;
    }
    impl<'a, T: Deserialize<'a>> BySerde<'a> for &Pick<T> {
        type Out = T;
        fn read_via(&self, v: Value<'a>, r: &mut Reader<'a, '_>) -> Result<T, DecodeError> {
            r.serde(v)
        }
    }

    /// Cannot be read (a type that is only written).
    pub trait ByNothing<'a> {
        /// The type read.
        type Out;
        /// Fails.
        fn read_via(&self, v: Value<'a>, r: &mut Reader<'a, '_>) -> Result<Self::Out, DecodeError>;
    }
    impl<'a, T> ByNothing<'a> for Pick<T> {
        type Out = T;
        fn read_via(&self, v: Value<'a>, r: &mut Reader<'a, '_>) -> Result<T, DecodeError> {
            Err(r.error(&v, K::Custom))
        }
    }
}
