//! A serde serializer that writes compact JSON into a [`Sink`].
//!
//! The mapping follows `serde_json`: unit and `None` are `null`, unit variants are strings,
//! other variants are one-member objects, bytes are arrays of numbers, map keys that are
//! integers, chars or bools become strings. Unlike `serde-json-core`, `char` is supported and
//! escaped, and non-finite floats are an error.

use serde::ser::{self, Serialize};

use super::escape::{write_escaped, write_string};
use super::number::{write_f32, write_f64, write_i128, write_i64, write_u128, write_u64};
use super::{EncodeError, Sink, SliceSink};

/// Serialises `value` as compact JSON into `buf`; returns the number of bytes written.
///
/// If `buf` is too small the error is [`EncodeError::BufferTooSmall`] with the exact size needed.
pub fn to_slice<T: Serialize + ?Sized>(value: &T, buf: &mut [u8]) -> Result<usize, EncodeError> {
    let mut sink = SliceSink::new(buf);
    Serializer::new(&mut sink).value(value)?;
    sink.finish()
}

/// Serialises `value` as compact JSON into any sink.
pub fn to_sink<T: Serialize + ?Sized, S: Sink + ?Sized>(
    value: &T,
    sink: &mut S,
) -> Result<(), EncodeError> {
    Serializer::new(sink).value(value)
}

/// The serializer; most users want [`to_slice`] or [`to_sink`].
///
/// Its output is one well-formed JSON value whatever the `Serialize` implementation does.
/// serde's types already make every value end in exactly one call that writes (there is no
/// other way to obtain the `Ok` value), and every method here writes at least one byte; the one
/// misuse the types allow, map keys and values out of turn (`serialize_key` twice, a
/// `serialize_value` without its key, `end` after a key), fails with
/// [`EncodeError::IncompleteValue`]. So output that serialised without error needs no second
/// check before it is read as JSON.
#[derive(Debug)]
pub struct Serializer<'s, S: Sink + ?Sized> {
    sink: &'s mut S,
}

impl<'s, S: Sink + ?Sized> Serializer<'s, S> {
    /// A serializer writing to `sink`.
    pub fn new(sink: &'s mut S) -> Self {
        Self { sink }
    }

    /// Writes `value`.
    #[inline]
    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        value.serialize(&mut *self)
    }

    /// Starts a compound whose closing bytes are `close`.
    fn begin(&mut self, close: &'static [u8]) -> Compound<'_, 's, S> {
        Compound {
            ser: self,
            first: true,
            key_pending: false,
            close,
        }
    }
}

/// State of a compound value being written: whether a comma is due.
#[derive(Debug)]
pub struct Compound<'a, 's, S: Sink + ?Sized> {
    ser: &'a mut Serializer<'s, S>,
    first: bool,
    /// A map key was written and its value is due.
    key_pending: bool,
    /// Closing bytes written at the end (`]`, `}`, or `]}`/`}}` for variants).
    close: &'static [u8],
}

impl<S: Sink + ?Sized> Compound<'_, '_, S> {
    /// The comma (when due), the key and the colon of a struct field. Below 64 bits out of
    /// line: one copy for every field type instead of one in each (flash first).
    #[cfg_attr(not(target_pointer_width = "64"), inline(never))]
    fn field_head(&mut self, key: &'static str) -> Result<(), EncodeError> {
        self.comma()?;
        write_string(self.ser.sink, key)?;
        self.ser.sink.put_byte(b':')
    }
    fn comma(&mut self) -> Result<(), EncodeError> {
        if self.first {
            self.first = false;
            Ok(())
        } else {
            self.ser.sink.put_byte(b',')
        }
    }
    fn finish(self) -> Result<(), EncodeError> {
        if self.key_pending {
            return Err(EncodeError::IncompleteValue);
        }
        self.ser.sink.put(self.close)
    }
}

impl<'a, 's, S: Sink + ?Sized> ser::Serializer for &'a mut Serializer<'s, S> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Compound<'a, 's, S>;
    type SerializeTuple = Compound<'a, 's, S>;
    type SerializeTupleStruct = Compound<'a, 's, S>;
    type SerializeTupleVariant = Compound<'a, 's, S>;
    type SerializeMap = Compound<'a, 's, S>;
    type SerializeStruct = Compound<'a, 's, S>;
    type SerializeStructVariant = Compound<'a, 's, S>;

    fn serialize_bool(self, v: bool) -> Result<(), EncodeError> {
        self.sink.put(if v { b"true" } else { b"false" })
    }
    fn serialize_i8(self, v: i8) -> Result<(), EncodeError> {
        write_i64(self.sink, v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), EncodeError> {
        write_i64(self.sink, v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), EncodeError> {
        write_i64(self.sink, v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), EncodeError> {
        write_i64(self.sink, v)
    }
    fn serialize_i128(self, v: i128) -> Result<(), EncodeError> {
        write_i128(self.sink, v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), EncodeError> {
        write_u64(self.sink, v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), EncodeError> {
        write_u64(self.sink, v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), EncodeError> {
        write_u64(self.sink, v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), EncodeError> {
        write_u64(self.sink, v)
    }
    fn serialize_u128(self, v: u128) -> Result<(), EncodeError> {
        write_u128(self.sink, v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), EncodeError> {
        write_f32(self.sink, v)
    }
    fn serialize_f64(self, v: f64) -> Result<(), EncodeError> {
        write_f64(self.sink, v)
    }
    fn serialize_char(self, v: char) -> Result<(), EncodeError> {
        let mut buf = [0u8; 4];
        write_string(self.sink, v.encode_utf8(&mut buf))
    }
    fn serialize_str(self, v: &str) -> Result<(), EncodeError> {
        write_string(self.sink, v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), EncodeError> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), EncodeError> {
        self.sink.put(b"null")
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), EncodeError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        self.sink.put(b"null")
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), EncodeError> {
        self.sink.put(b"null")
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), EncodeError> {
        write_string(self.sink, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        self.sink.put_byte(b'{')?;
        write_string(self.sink, variant)?;
        self.sink.put_byte(b':')?;
        self.value(value)?;
        self.sink.put_byte(b'}')
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, EncodeError> {
        self.sink.put_byte(b'[')?;
        Ok(self.begin(b"]"))
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, EncodeError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, EncodeError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, EncodeError> {
        self.sink.put_byte(b'{')?;
        write_string(self.sink, variant)?;
        self.sink.put(b":[")?;
        Ok(self.begin(b"]}"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, EncodeError> {
        self.sink.put_byte(b'{')?;
        Ok(self.begin(b"}"))
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, EncodeError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, EncodeError> {
        self.sink.put_byte(b'{')?;
        write_string(self.sink, variant)?;
        self.sink.put(b":{")?;
        Ok(self.begin(b"}}"))
    }
    fn collect_str<T: core::fmt::Display + ?Sized>(self, value: &T) -> Result<(), EncodeError> {
        self.sink.put_byte(b'"')?;
        let mut w = EscapingWriter {
            sink: &mut *self.sink,
            failed: None,
        };
        if core::fmt::write(&mut w, format_args!("{value}")).is_err() {
            return Err(w.failed.unwrap_or(EncodeError::Custom));
        }
        self.sink.put_byte(b'"')
    }
    fn is_human_readable(&self) -> bool {
        true
    }
}

/// `core::fmt::Write` adapter that escapes what a `Display` impl writes.
struct EscapingWriter<'a, S: Sink + ?Sized> {
    sink: &'a mut S,
    failed: Option<EncodeError>,
}

impl<S: Sink + ?Sized> core::fmt::Write for EscapingWriter<'_, S> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        write_escaped(self.sink, s).map_err(|e| {
            self.failed = Some(e);
            core::fmt::Error
        })
    }
}

impl<S: Sink + ?Sized> ser::SerializeSeq for Compound<'_, '_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        self.comma()?;
        self.ser.value(value)
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl<S: Sink + ?Sized> ser::SerializeTuple for Compound<'_, '_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl<S: Sink + ?Sized> ser::SerializeTupleStruct for Compound<'_, '_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl<S: Sink + ?Sized> ser::SerializeTupleVariant for Compound<'_, '_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl<S: Sink + ?Sized> ser::SerializeMap for Compound<'_, '_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), EncodeError> {
        if self.key_pending {
            return Err(EncodeError::IncompleteValue);
        }
        self.comma()?;
        key.serialize(KeySerializer {
            sink: &mut *self.ser.sink,
        })?;
        self.key_pending = true;
        self.ser.sink.put_byte(b':')
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), EncodeError> {
        if !self.key_pending {
            return Err(EncodeError::IncompleteValue);
        }
        self.key_pending = false;
        self.ser.value(value)
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl<S: Sink + ?Sized> ser::SerializeStruct for Compound<'_, '_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        self.field_head(key)?;
        self.ser.value(value)
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

impl<S: Sink + ?Sized> ser::SerializeStructVariant for Compound<'_, '_, S> {
    type Ok = ();
    type Error = EncodeError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<(), EncodeError> {
        self.finish()
    }
}

/// Writes map keys: strings as they are, integers, chars and bools quoted.
struct KeySerializer<'a, S: Sink + ?Sized> {
    sink: &'a mut S,
}

impl<S: Sink + ?Sized> KeySerializer<'_, S> {
    fn quoted_i(self, v: i128) -> Result<(), EncodeError> {
        self.sink.put_byte(b'"')?;
        write_i128(self.sink, v)?;
        self.sink.put_byte(b'"')
    }
    fn quoted_u(self, v: u128) -> Result<(), EncodeError> {
        self.sink.put_byte(b'"')?;
        write_u128(self.sink, v)?;
        self.sink.put_byte(b'"')
    }
}

type Impossible = ser::Impossible<(), EncodeError>;

impl<S: Sink + ?Sized> ser::Serializer for KeySerializer<'_, S> {
    type Ok = ();
    type Error = EncodeError;
    type SerializeSeq = Impossible;
    type SerializeTuple = Impossible;
    type SerializeTupleStruct = Impossible;
    type SerializeTupleVariant = Impossible;
    type SerializeMap = Impossible;
    type SerializeStruct = Impossible;
    type SerializeStructVariant = Impossible;

    fn serialize_bool(self, v: bool) -> Result<(), EncodeError> {
        self.sink.put(if v { b"\"true\"" } else { b"\"false\"" })
    }
    fn serialize_i8(self, v: i8) -> Result<(), EncodeError> {
        self.quoted_i(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), EncodeError> {
        self.quoted_i(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), EncodeError> {
        self.quoted_i(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), EncodeError> {
        self.quoted_i(v.into())
    }
    fn serialize_i128(self, v: i128) -> Result<(), EncodeError> {
        self.quoted_i(v)
    }
    fn serialize_u8(self, v: u8) -> Result<(), EncodeError> {
        self.quoted_u(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), EncodeError> {
        self.quoted_u(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), EncodeError> {
        self.quoted_u(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), EncodeError> {
        self.quoted_u(v.into())
    }
    fn serialize_u128(self, v: u128) -> Result<(), EncodeError> {
        self.quoted_u(v)
    }
    fn serialize_f32(self, _v: f32) -> Result<(), EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_f64(self, _v: f64) -> Result<(), EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_char(self, v: char) -> Result<(), EncodeError> {
        let mut buf = [0u8; 4];
        write_string(self.sink, v.encode_utf8(&mut buf))
    }
    fn serialize_str(self, v: &str) -> Result<(), EncodeError> {
        write_string(self.sink, v)
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_none(self) -> Result<(), EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), EncodeError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), EncodeError> {
        write_string(self.sink, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), EncodeError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Impossible, EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_tuple(self, _len: usize) -> Result<Impossible, EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Impossible, EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible, EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Impossible, EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Impossible, EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible, EncodeError> {
        Err(EncodeError::KeyMustBeString)
    }
    fn collect_str<T: core::fmt::Display + ?Sized>(self, value: &T) -> Result<(), EncodeError> {
        self.sink.put_byte(b'"')?;
        let mut w = EscapingWriter {
            sink: &mut *self.sink,
            failed: None,
        };
        if core::fmt::write(&mut w, format_args!("{value}")).is_err() {
            return Err(w.failed.unwrap_or(EncodeError::Custom));
        }
        self.sink.put_byte(b'"')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::ser::SerializeMap;

    /// Map keys and values out of turn, which serde's types allow.
    #[derive(Clone, Copy, Debug)]
    enum OutOfTurn {
        KeyWithoutValue,
        ValueWithoutKey,
        TwoKeys,
    }

    impl Serialize for OutOfTurn {
        fn serialize<Z: ser::Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
            let mut map = s.serialize_map(None)?;
            match self {
                OutOfTurn::KeyWithoutValue => map.serialize_key("a")?,
                OutOfTurn::ValueWithoutKey => map.serialize_value(&1)?,
                OutOfTurn::TwoKeys => {
                    map.serialize_key("a")?;
                    map.serialize_key("b")?;
                    map.serialize_value(&1)?;
                }
            }
            map.end()
        }
    }

    #[test]
    fn map_members_out_of_turn_are_refused() {
        for broken in [
            OutOfTurn::KeyWithoutValue,
            OutOfTurn::ValueWithoutKey,
            OutOfTurn::TwoKeys,
        ] {
            let mut buf = [0u8; 64];
            assert_eq!(
                to_slice(&broken, &mut buf),
                Err(EncodeError::IncompleteValue),
                "{broken:?}"
            );
            assert_eq!(
                to_slice(&[broken], &mut buf),
                Err(EncodeError::IncompleteValue),
                "{broken:?}"
            );
        }
        // Keys and values in turn, through `serialize_key`/`serialize_value` and `entry`.
        struct InTurn;
        impl Serialize for InTurn {
            fn serialize<Z: ser::Serializer>(&self, s: Z) -> Result<Z::Ok, Z::Error> {
                let mut map = s.serialize_map(None)?;
                map.serialize_key("a")?;
                map.serialize_value(&1)?;
                map.serialize_entry(&2, &[true])?;
                map.end()
            }
        }
        let mut buf = [0u8; 64];
        let n = to_slice(&InTurn, &mut buf).unwrap();
        assert_eq!(&buf[..n], br#"{"a":1,"2":[true]}"#);
    }
}
