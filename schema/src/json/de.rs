//! A serde deserializer over checked JSON.
//!
//! The input is checked first by [`Value::parse`] (strict grammar, UTF-8, escapes, surrogates,
//! bounded depth, no trailing data), so deserialisation cannot recurse deeper than
//! [`Limits::max_depth`](super::Limits) and ignored members are never skipped leniently.
//! Strings without escapes are borrowed from the input; escaped strings are decoded into the
//! caller's scratch buffer and borrowed from there, so `&'a str` fields always hold the real,
//! unescaped text (unlike `serde-json-core`, which hands back escaped text).

use serde::de::{self, DeserializeSeed, Visitor};

use super::error::{DecodeError, DecodeErrorKind as K};
use super::value::{Elements, JsonStr, Kind, Members, Value};

/// Deserialises a complete JSON document; escaped strings are decoded into `scratch`.
///
/// Every escaped string is decoded into `scratch`, also when the target owns it (`String`,
/// `heapless::String`): serde does not tell a deserializer which kind of string it wants.
/// A scratch as long as `bytes` always suffices; pass `&mut []` when no string has escapes.
pub fn from_slice<'a, T: de::Deserialize<'a>>(
    bytes: &'a [u8],
    scratch: &'a mut [u8],
) -> Result<T, DecodeError> {
    let value = Value::parse(bytes)?;
    let base = bytes.as_ptr() as usize;
    let mut scratch = Scratch {
        buf: scratch,
        base,
        end: None,
    };
    T::deserialize(ValueDeserializer {
        value,
        scratch: &mut scratch,
    })
}

/// Deserialises an already checked [`Value`]; escaped strings are decoded into `scratch`.
pub fn from_value<'a, T: de::Deserialize<'a>>(
    value: Value<'a>,
    scratch: &'a mut [u8],
) -> Result<T, DecodeError> {
    let base = value.raw().as_ptr() as usize;
    let mut scratch = Scratch {
        buf: scratch,
        base,
        end: None,
    };
    T::deserialize(ValueDeserializer {
        value,
        scratch: &mut scratch,
    })
}

pub(crate) struct Scratch<'a> {
    buf: &'a mut [u8],
    /// Address of the start of the document, to report offsets.
    base: usize,
    /// Address just past the container deserialised last, when known: lets a sequence or map
    /// that handed out a container element open-ended continue after it without scanning it
    /// a second time (see `Elements::next_open`).
    end: Option<usize>,
}

impl<'a> Scratch<'a> {
    /// A scratch over `buf` for a document starting at `value`.
    pub(crate) fn new(buf: &'a mut [u8], value: &Value<'a>) -> Self {
        Self {
            buf,
            base: value.raw().as_ptr() as usize,
            end: None,
        }
    }

    /// Deserialises `value` with serde (a field type without `FromJson`).
    pub(crate) fn deserialize<T: de::Deserialize<'a>>(
        &mut self,
        value: Value<'a>,
    ) -> Result<T, DecodeError> {
        self.end = None;
        T::deserialize(ValueDeserializer {
            value,
            scratch: self,
        })
    }

    /// The offset of the byte at `addr` in the document.
    pub(crate) fn offset_at(&self, addr: *const u8) -> usize {
        (addr as usize).saturating_sub(self.base)
    }

    pub(crate) fn offset(&self, v: &Value<'_>) -> usize {
        (v.raw().as_ptr() as usize).saturating_sub(self.base)
    }

    /// The decoded text of `s`, borrowed from the input or from the scratch buffer.
    pub(crate) fn text(&mut self, s: JsonStr<'a>) -> Result<&'a str, DecodeError> {
        if let Some(plain) = s.as_plain() {
            return Ok(plain);
        }
        let n = s.decoded_len();
        if n > self.buf.len() {
            return Err(DecodeError::new(K::ScratchTooSmall, 0));
        }
        let buf = core::mem::take(&mut self.buf);
        let (head, tail) = buf.split_at_mut(n);
        self.buf = tail;
        s.decode_into(head)
    }
}

struct ValueDeserializer<'a, 's> {
    value: Value<'a>,
    scratch: &'s mut Scratch<'a>,
}

impl<'a> ValueDeserializer<'a, '_> {
    fn err(&self, kind: K) -> DecodeError {
        DecodeError::new(kind, self.scratch.offset(&self.value))
    }

    fn at(&self, e: DecodeError) -> DecodeError {
        if e.offset == 0 {
            DecodeError::new(e.kind, self.scratch.offset(&self.value))
        } else {
            e
        }
    }

    fn string(&mut self) -> Result<&'a str, DecodeError> {
        let s = self
            .value
            .as_str()
            .ok_or_else(|| self.err(K::InvalidType))?;
        let off = self.scratch.offset(&self.value);
        self.scratch
            .text(s)
            .map_err(|e| DecodeError::new(e.kind, off))
    }

    fn number(&self) -> Result<super::Number<'a>, DecodeError> {
        self.value
            .as_number()
            .ok_or_else(|| self.err(K::InvalidType))
    }

    fn unsigned(&self) -> Result<u64, DecodeError> {
        let n = self.number()?;
        n.as_u64().ok_or_else(|| self.err(K::NumberOutOfRange))
    }

    fn signed(&self) -> Result<i64, DecodeError> {
        let n = self.number()?;
        n.as_i64().ok_or_else(|| self.err(K::NumberOutOfRange))
    }
}

macro_rules! deserialize_int {
    ($method:ident, $visit:ident, $ty:ty, $get:ident) => {
        fn $method<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
            let v = self.$get()?;
            let v = <$ty>::try_from(v).map_err(|_| self.err(K::NumberOutOfRange))?;
            let r = visitor.$visit(v);
            r.map_err(|e| self.at(e))
        }
    };
}

impl<'a> de::Deserializer<'a> for ValueDeserializer<'a, '_> {
    type Error = DecodeError;

    fn deserialize_any<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
        let r = match self.value.kind() {
            Kind::Null => visitor.visit_unit(),
            Kind::Bool => visitor.visit_bool(self.value.as_bool().unwrap_or_default()),
            Kind::Number => {
                let n = self.number()?;
                if n.is_plain_integer() {
                    if let Some(u) = n.as_u64().filter(|_| !n.is_negative()) {
                        visitor.visit_u64(u)
                    } else if let Some(i) = n.as_i64() {
                        visitor.visit_i64(i)
                    } else {
                        let f = n.as_f64().ok_or_else(|| self.err(K::NumberOutOfRange))?;
                        visitor.visit_f64(f)
                    }
                } else {
                    let f = n.as_f64().ok_or_else(|| self.err(K::NumberOutOfRange))?;
                    visitor.visit_f64(f)
                }
            }
            Kind::String => {
                let s = self.string()?;
                visitor.visit_borrowed_str(s)
            }
            Kind::Array => return self.deserialize_seq(visitor),
            Kind::Object => return self.deserialize_map(visitor),
        };
        r.map_err(|e| self.at(e))
    }

    fn deserialize_bool<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let b = self
            .value
            .as_bool()
            .ok_or_else(|| self.err(K::InvalidType))?;
        visitor.visit_bool(b).map_err(|e| self.at(e))
    }

    deserialize_int!(deserialize_i8, visit_i8, i8, signed);
    deserialize_int!(deserialize_i16, visit_i16, i16, signed);
    deserialize_int!(deserialize_i32, visit_i32, i32, signed);
    deserialize_int!(deserialize_i64, visit_i64, i64, signed);
    deserialize_int!(deserialize_u8, visit_u8, u8, unsigned);
    deserialize_int!(deserialize_u16, visit_u16, u16, unsigned);
    deserialize_int!(deserialize_u32, visit_u32, u32, unsigned);
    deserialize_int!(deserialize_u64, visit_u64, u64, unsigned);

    fn deserialize_i128<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let n = self.number()?;
        let v: i128 = if n.is_plain_integer() {
            n.raw().parse().map_err(|_| self.err(K::NumberOutOfRange))?
        } else {
            n.as_i64()
                .ok_or_else(|| self.err(K::NumberOutOfRange))?
                .into()
        };
        visitor.visit_i128(v).map_err(|e| self.at(e))
    }

    fn deserialize_u128<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let n = self.number()?;
        let v: u128 = if n.is_plain_integer() && !n.is_negative() {
            n.raw().parse().map_err(|_| self.err(K::NumberOutOfRange))?
        } else {
            n.as_u64()
                .ok_or_else(|| self.err(K::NumberOutOfRange))?
                .into()
        };
        visitor.visit_u128(v).map_err(|e| self.at(e))
    }

    fn deserialize_f32<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let n = self.number()?;
        // Rounded once, from the decimal digits to f32 (not through f64).
        let f: f32 =
            super::parse_float::parse(n.raw()).ok_or_else(|| self.err(K::InvalidNumber))?;
        if !f.is_finite() {
            return Err(self.err(K::NumberOutOfRange));
        }
        visitor.visit_f32(f).map_err(|e| self.at(e))
    }

    fn deserialize_f64<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let n = self.number()?;
        let f = n.as_f64().ok_or_else(|| self.err(K::NumberOutOfRange))?;
        visitor.visit_f64(f).map_err(|e| self.at(e))
    }

    fn deserialize_char<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
        let s = self
            .value
            .as_str()
            .ok_or_else(|| self.err(K::InvalidType))?;
        let mut chars = s.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => visitor.visit_char(c).map_err(|e| self.at(e)),
            _ => {
                // Keep the error precise: a string, but not of one character.
                let _ = self.string();
                Err(self.err(K::InvalidValue))
            }
        }
    }

    fn deserialize_str<V: Visitor<'a>>(mut self, visitor: V) -> Result<V::Value, DecodeError> {
        let s = self.string()?;
        visitor.visit_borrowed_str(s).map_err(|e| self.at(e))
    }

    fn deserialize_string<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        match self.value.kind() {
            Kind::Array => self.deserialize_seq(visitor),
            _ => {
                let mut this = self;
                let s = this.string()?;
                visitor
                    .visit_borrowed_bytes(s.as_bytes())
                    .map_err(|e| this.at(e))
            }
        }
    }

    fn deserialize_byte_buf<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        if self.value.is_null() {
            visitor.visit_none().map_err(|e| self.at(e))
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        if self.value.is_null() {
            visitor.visit_unit().map_err(|e| self.at(e))
        } else {
            Err(self.err(K::InvalidType))
        }
    }

    fn deserialize_unit_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let elements = self
            .value
            .elements()
            .ok_or_else(|| self.err(K::InvalidType))?;
        let offset = self.scratch.offset(&self.value);
        let mut access = SeqAccess {
            elements,
            scratch: self.scratch,
        };
        let v = visitor.visit_seq(&mut access)?;
        if access.elements.next().is_some() {
            return Err(DecodeError::new(K::InvalidLength, offset));
        }
        access.scratch.end = access.elements.end_addr();
        Ok(v)
    }

    fn deserialize_tuple<V: Visitor<'a>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let members = self
            .value
            .members()
            .ok_or_else(|| self.err(K::InvalidType))?;
        let offset = self.scratch.offset(&self.value);
        let mut access = MapAccess {
            members,
            value_pending: false,
            scratch: self.scratch,
        };
        let v = visitor.visit_map(&mut access).map_err(|e| {
            if e.offset == 0 {
                DecodeError::new(e.kind, offset)
            } else {
                e
            }
        })?;
        if access.value_pending {
            access.members.skip_value();
        }
        access.scratch.end = access.members.end_addr();
        Ok(v)
    }

    fn deserialize_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        match self.value.kind() {
            Kind::String => visitor.visit_enum(EnumAccess {
                variant: self.value,
                content: None,
                scratch: self.scratch,
            }),
            Kind::Object => {
                let mut members = self
                    .value
                    .members()
                    .ok_or_else(|| self.err(K::InvalidType))?;
                let (Some((key, content)), None) = (members.next_pair(), members.next_pair())
                else {
                    return Err(self.err(K::InvalidValue));
                };
                let scratch = self.scratch;
                let v = visitor.visit_enum(EnumAccess {
                    variant: key,
                    content: Some(content),
                    scratch: &mut *scratch,
                })?;
                // The content set `end` to its own end; the enum's object ends after it.
                scratch.end = members.end_addr();
                Ok(v)
            }
            _ => Err(self.err(K::InvalidType)),
        }
    }

    fn deserialize_identifier<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        let s = self
            .value
            .as_str()
            .ok_or_else(|| self.err(K::InvalidType))?;
        if let Some(plain) = s.as_plain() {
            return visitor.visit_borrowed_str(plain).map_err(|e| self.at(e));
        }
        // Escaped keys are decoded on the stack when short, so they do not use scratch.
        let mut local = [0u8; 64];
        if let Ok(text) = s.decode_into(&mut local) {
            return visitor.visit_str(text).map_err(|e| self.at(e));
        }
        let mut this = self;
        let text = this.string()?;
        visitor.visit_borrowed_str(text).map_err(|e| this.at(e))
    }

    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, DecodeError> {
        // The whole document was checked strictly already; nothing to scan.
        visitor.visit_unit()
    }
}

struct SeqAccess<'a, 's> {
    elements: Elements<'a>,
    scratch: &'s mut Scratch<'a>,
}

impl<'a> de::SeqAccess<'a> for &mut SeqAccess<'a, '_> {
    type Error = DecodeError;

    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DecodeError> {
        let Some((value, open)) = self.elements.next_open() else {
            return Ok(None);
        };
        self.scratch.end = None;
        let r = seed.deserialize(ValueDeserializer {
            value,
            scratch: self.scratch,
        });
        if open {
            self.elements.resume(value, self.scratch.end.take());
        }
        r.map(Some)
    }
}

struct MapAccess<'a, 's> {
    members: Members<'a>,
    /// A key was read and its value not yet.
    value_pending: bool,
    scratch: &'s mut Scratch<'a>,
}

impl<'a> de::MapAccess<'a> for &mut MapAccess<'a, '_> {
    type Error = DecodeError;

    fn next_key_seed<K2: DeserializeSeed<'a>>(
        &mut self,
        seed: K2,
    ) -> Result<Option<K2::Value>, DecodeError> {
        if self.value_pending {
            // The visitor did not read the previous value: step over it.
            self.members.skip_value();
            self.value_pending = false;
        }
        let Some(key) = self.members.next_key() else {
            return Ok(None);
        };
        self.value_pending = true;
        seed.deserialize(ValueDeserializer {
            value: key,
            scratch: self.scratch,
        })
        .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, DecodeError> {
        if !self.value_pending {
            return Err(DecodeError::new(K::InvalidLength, 0));
        }
        self.value_pending = false;
        let (value, open) = self
            .members
            .open_value()
            .ok_or(DecodeError::new(K::InvalidLength, 0))?;
        self.scratch.end = None;
        let r = seed.deserialize(ValueDeserializer {
            value,
            scratch: self.scratch,
        });
        if open {
            self.members.resume(value, self.scratch.end.take());
        }
        r
    }
}

struct EnumAccess<'a, 's> {
    variant: Value<'a>,
    content: Option<Value<'a>>,
    scratch: &'s mut Scratch<'a>,
}

impl<'a, 's> de::EnumAccess<'a> for EnumAccess<'a, 's> {
    type Error = DecodeError;
    type Variant = VariantAccess<'a, 's>;

    fn variant_seed<V: DeserializeSeed<'a>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), DecodeError> {
        let v = seed.deserialize(ValueDeserializer {
            value: self.variant,
            scratch: &mut *self.scratch,
        })?;
        Ok((
            v,
            VariantAccess {
                content: self.content,
                scratch: self.scratch,
            },
        ))
    }
}

struct VariantAccess<'a, 's> {
    content: Option<Value<'a>>,
    scratch: &'s mut Scratch<'a>,
}

impl<'a> VariantAccess<'a, '_> {
    fn content(&self) -> Result<Value<'a>, DecodeError> {
        self.content.ok_or(DecodeError::new(K::InvalidType, 0))
    }
}

impl<'a> de::VariantAccess<'a> for VariantAccess<'a, '_> {
    type Error = DecodeError;

    fn unit_variant(self) -> Result<(), DecodeError> {
        match self.content {
            None => Ok(()),
            Some(v) if v.is_null() => Ok(()),
            Some(_) => Err(DecodeError::new(K::InvalidType, 0)),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'a>>(
        self,
        seed: T,
    ) -> Result<T::Value, DecodeError> {
        let value = self.content()?;
        seed.deserialize(ValueDeserializer {
            value,
            scratch: self.scratch,
        })
    }

    fn tuple_variant<V: Visitor<'a>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        let value = self.content()?;
        de::Deserializer::deserialize_seq(
            ValueDeserializer {
                value,
                scratch: self.scratch,
            },
            visitor,
        )
    }

    fn struct_variant<V: Visitor<'a>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DecodeError> {
        let value = self.content()?;
        de::Deserializer::deserialize_map(
            ValueDeserializer {
                value,
                scratch: self.scratch,
            },
            visitor,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Reading<'a> {
        sensor: &'a str,
        value: f32,
        count: u32,
        unit: Unit,
        tags: [i8; 2],
        note: Option<char>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Unit {
        Celsius,
    }

    #[test]
    fn borrowed_strings_come_back_unescaped() {
        let json = br#"{"sensor":"t\"1\u00e9","value":21.5,"count":1.0,"unit":"celsius","tags":[-1,2],"note":"\n","extra":[{"x":1}]}"#;
        let mut scratch = [0u8; 16];
        let r: Reading<'_> = from_slice(json, &mut scratch).unwrap();
        assert_eq!(
            r,
            Reading {
                sensor: "t\"1é",
                value: 21.5,
                count: 1,
                unit: Unit::Celsius,
                tags: [-1, 2],
                note: Some('\n'),
            }
        );
    }

    #[test]
    fn errors_are_reported() {
        let mut scratch = [0u8; 0];
        let e = from_slice::<Reading<'_>>(br#"{"sensor":"a\"b"}"#, &mut scratch).unwrap_err();
        assert_eq!(e.kind, K::ScratchTooSmall);
        assert_eq!(e.offset, 10);
        let e = from_slice::<Reading<'_>>(br#"{"sensor":"ab"}"#, &mut []).unwrap_err();
        assert_eq!(e.kind, K::MissingField("value"));
        let e = from_slice::<u8>(b"256", &mut []).unwrap_err();
        assert_eq!(e.kind, K::NumberOutOfRange);
        let e = from_slice::<u8>(b"1.5", &mut []).unwrap_err();
        assert_eq!(e.kind, K::NumberOutOfRange);
        // Ignored members are still checked strictly: the whole document is checked first.
        let e = from_slice::<Reading<'_>>(br#"{"x":[1,]}"#, &mut []).unwrap_err();
        assert_eq!(e.kind, K::UnexpectedByte);
        let deep = [b'['; 10_000];
        assert_eq!(
            from_slice::<u8>(&deep, &mut []).unwrap_err().kind,
            K::TooDeep
        );
    }

    #[test]
    fn floats_are_rounded_once_and_overflow_is_refused() {
        // Straight to f32: 16777217 is halfway between two f32s (even: 16777216), and
        // 1.00000005960464477539062500001 just above the halfway point above 1.0; rounding
        // through f64 would get the second wrong.
        let f = |json: &[u8]| from_slice::<f32>(json, &mut []);
        assert_eq!(f(b"16777217").unwrap().to_bits(), 16_777_216f32.to_bits());
        let above_halfway = b"1.00000005960464477539062500001";
        assert_eq!(
            f(above_halfway).unwrap().to_bits(),
            "1.00000005960464477539062500001"
                .parse::<f32>()
                .unwrap()
                .to_bits()
        );
        assert_ne!(f(above_halfway).unwrap(), 1.0);
        assert_eq!(f(b"-1e-60").unwrap().to_bits(), (-0.0f32).to_bits());
        assert_eq!(
            f(b"3.4028235677973367e38").unwrap_err().kind,
            K::NumberOutOfRange
        );
        assert_eq!(f(b"3.4028235677973366e38").unwrap(), f32::MAX);
        let d = |json: &[u8]| from_slice::<f64>(json, &mut []);
        assert_eq!(
            d(b"2.2250738585072011e-308").unwrap(),
            2.225_073_858_507_201e-308
        );
        assert_eq!(
            d(b"1.7976931348623159e308").unwrap_err().kind,
            K::NumberOutOfRange
        );
        assert_eq!(d(b"4.9e-324").unwrap(), 5e-324);
        assert_eq!(d(b"1e-400").unwrap().to_bits(), 0);
    }
}
