//! [`ToJson`]: a value that writes its own compact JSON through a `dyn Sink`.
//!
//! serde's `Serialize` is generic over the serializer, so every type gets its own copy of the
//! writing code, with the serializer's methods inlined into it. A `ToJson` impl is one plain
//! function per type that calls small shared writers (integers, strings, floats) through
//! `&mut dyn Sink`: on a Cortex-M the typed tools' results and log messages take a fraction of
//! the flash. `#[derive(McpSchema)]` implements it (same bytes as serde's derive with the
//! attributes it reads); [`Serde`] writes any `Serialize` value through it.

use serde::Serialize;

use super::escape::write_string;
use super::number::{write_f32, write_f64, write_i64, write_u64};
use super::{to_sink, EncodeError, Sink};

/// A value that writes its compact JSON (the same bytes as [`to_sink`] writes for its serde
/// form) to a `dyn Sink`.
pub trait ToJson {
    /// Writes the value as compact JSON.
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError>;
}

/// Any `Serialize` value as a [`ToJson`] (through the one `Serializer<dyn Sink>`).
#[derive(Debug, Clone, Copy)]
pub struct Serde<'a, T: ?Sized>(pub &'a T);

impl<T: Serialize + ?Sized> ToJson for Serde<'_, T> {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        to_sink(self.0, sink)
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        (**self).to_json(sink)
    }
}

impl<F: Fn(&mut dyn Sink) -> Result<(), EncodeError>> ToJson for Written<F> {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        (self.0)(sink)
    }
}

/// A closure that writes one JSON value, as a [`ToJson`].
#[derive(Debug, Clone, Copy)]
pub struct Written<F>(pub F);

impl ToJson for bool {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        sink.put(if *self { b"true" } else { b"false" })
    }
}

macro_rules! unsigned {
    ($($t:ty)*) => {$(
        impl ToJson for $t {
            fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
                write_u64(sink, u64::from(*self))
            }
        }
    )*};
}
unsigned!(u8 u16 u32 u64);

macro_rules! signed {
    ($($t:ty)*) => {$(
        impl ToJson for $t {
            fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
                write_i64(sink, i64::from(*self))
            }
        }
    )*};
}
signed!(i8 i16 i32 i64);

impl ToJson for f32 {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        write_f32(sink, *self)
    }
}

impl ToJson for f64 {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        write_f64(sink, *self)
    }
}

impl ToJson for char {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        let mut buf = [0u8; 4];
        write_string(sink, self.encode_utf8(&mut buf))
    }
}

impl ToJson for str {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        write_string(sink, self)
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        match self {
            Some(v) => v.to_json(sink),
            None => sink.put(b"null"),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        write_elements(sink, &mut self.iter().map(|v| v as &dyn ToJson))
    }
}

impl<T: ToJson, const N: usize> ToJson for [T; N] {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        self.as_slice().to_json(sink)
    }
}

impl<const N: usize> ToJson for heapless::String<N> {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        write_string(sink, self)
    }
}

impl<T: ToJson, const N: usize> ToJson for heapless::Vec<T, N> {
    fn to_json(&self, sink: &mut dyn Sink) -> Result<(), EncodeError> {
        self.as_slice().to_json(sink)
    }
}

/// `[`, the elements separated by commas, `]`: one copy for every element type.
fn write_elements(
    sink: &mut dyn Sink,
    elements: &mut dyn Iterator<Item = &dyn ToJson>,
) -> Result<(), EncodeError> {
    sink.put_byte(b'[')?;
    for (i, v) in elements.enumerate() {
        if i > 0 {
            sink.put_byte(b',')?;
        }
        v.to_json(sink)?;
    }
    sink.put_byte(b']')
}

/// Writes one object member of a derived [`ToJson`]: `head` is the bytes before the value
/// (`{"key":` for the first member, `,"key":` after it), then the value. One copy for every
/// field.
#[doc(hidden)]
#[inline(never)]
pub fn member(sink: &mut dyn Sink, head: &[u8], value: &dyn ToJson) -> Result<(), EncodeError> {
    sink.put(head)?;
    value.to_json(sink)
}

/// Writes the object of a derived [`ToJson`] whose members are all always written: each
/// member's `head` (`{"key":` for the first, `,"key":` after it), then its value, then `}`.
/// One loop for every type, its heads a static table.
#[doc(hidden)]
#[inline(never)]
pub fn object(
    sink: &mut dyn Sink,
    heads: &[&[u8]],
    values: &[&dyn ToJson],
) -> Result<(), EncodeError> {
    for (head, value) in heads.iter().zip(values) {
        sink.put(head)?;
        value.to_json(sink)?;
    }
    sink.put_byte(b'}')
}

/// Writes an object member whose presence is decided at run time (`skip_serializing_if`):
/// the comma when a member came before, the key, the value.
#[doc(hidden)]
#[inline(never)]
pub fn member_after(
    sink: &mut dyn Sink,
    first: &mut bool,
    key: &[u8],
    value: &dyn ToJson,
) -> Result<(), EncodeError> {
    sink.put_byte(if *first { b'{' } else { b',' })?;
    *first = false;
    sink.put(key)?;
    value.to_json(sink)
}

/// Closes an object of [`member_after`] members (`{}` when none was written).
#[doc(hidden)]
pub fn members_end(sink: &mut dyn Sink, first: bool) -> Result<(), EncodeError> {
    sink.put(if first { b"{}" } else { b"}" })
}

/// What the derive calls for a field: the field as a `&dyn ToJson`, by its type's own
/// [`ToJson`] when it has one, else by serde's `Serialize`, else one that fails with
/// [`EncodeError::Custom`] (autoref specialization: the generated call is
/// `(&&&Via(Serde(&field))).pick()` on a concrete type).
#[doc(hidden)]
pub mod via {
    use super::{EncodeError, Serde, Serialize, Sink, ToJson};

    /// A field being written.
    pub struct Via<'a, T: ?Sized>(pub Serde<'a, T>);

    /// The field has [`ToJson`].
    pub trait ByToJson {
        /// The field, to write.
        fn pick(&self) -> &dyn ToJson;
    }
    impl<T: ToJson> ByToJson for &&Via<'_, T> {
        fn pick(&self) -> &dyn ToJson {
            self.0 .0
        }
    }

    /// The field has serde's `Serialize` only.
    pub trait BySerde {
        /// The field, to write.
        fn pick(&self) -> &dyn ToJson;
    }
    impl<T: Serialize + ?Sized> BySerde for &Via<'_, T> {
        fn pick(&self) -> &dyn ToJson {
            &self.0
        }
    }

    /// The field cannot be written (a type read only, as arguments).
    pub trait ByNothing {
        /// The field, to write.
        fn pick(&self) -> &dyn ToJson;
    }
    impl<T: ?Sized> ByNothing for Via<'_, T> {
        fn pick(&self) -> &dyn ToJson {
            &Unwritable
        }
    }

    /// Fails: the value's type has no way to be written.
    struct Unwritable;

    impl ToJson for Unwritable {
        fn to_json(&self, _: &mut dyn Sink) -> Result<(), EncodeError> {
            Err(EncodeError::Custom)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::SliceSink;

    fn text(v: &dyn ToJson) -> std::string::String {
        let mut buf = [0u8; 128];
        let mut sink = SliceSink::new(&mut buf);
        v.to_json(&mut sink).unwrap();
        let n = sink.finish().unwrap();
        std::string::String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn same_bytes_as_serde() {
        fn both<T: ToJson + Serialize>(v: T) {
            let mut buf = [0u8; 128];
            let n = crate::json::to_slice(&v, &mut buf).unwrap();
            assert_eq!(text(&v).as_bytes(), &buf[..n]);
            assert_eq!(text(&Serde(&v)).as_bytes(), &buf[..n]);
        }
        both(true);
        both(0u8);
        both(u64::MAX);
        both(i64::MIN);
        both(-7i8);
        both(36.88f32);
        both(1e-7f64);
        both('"');
        both("a\"b\n\u{1}é");
        both(Some(3u16));
        both(None::<u16>);
        both([0.4f32, 0.98, 9.68]);
        both([[1u8], [2]]);
        both::<[u8; 0]>([]);
        both(heapless::String::<8>::try_from("x\\y").unwrap());
        both(heapless::Vec::<i32, 4>::from_slice(&[1, -2]).unwrap());
    }

    #[test]
    fn members_write_an_object() {
        let w = Written(|s: &mut dyn Sink| {
            let mut first = true;
            member_after(s, &mut first, b"\"a\":", &1u8)?;
            member_after(s, &mut first, b"\"b\":", &"x")?;
            members_end(s, first)
        });
        assert_eq!(text(&w), r#"{"a":1,"b":"x"}"#);
        let none = Written(|s: &mut dyn Sink| members_end(s, true));
        assert_eq!(text(&none), "{}");
        let fixed = Written(|s: &mut dyn Sink| {
            member(s, b"{\"a\":", &1u8)?;
            member(s, b",\"b\":", &[true])?;
            s.put_byte(b'}')
        });
        assert_eq!(text(&fixed), r#"{"a":1,"b":[true]}"#);
        let table =
            Written(|s: &mut dyn Sink| object(s, &[b"{\"a\":", b",\"b\":"], &[&1u8, &[true]]));
        assert_eq!(text(&table), r#"{"a":1,"b":[true]}"#);
    }

    #[test]
    #[allow(clippy::needless_borrow)] // the three references are the point
    fn fields_pick_to_json_then_serde_then_fail() {
        #[allow(unused_imports)]
        use via::{ByNothing, BySerde, ByToJson, Via};
        #[derive(Serialize)]
        struct OnlySerde(u8);
        struct Neither;
        let mut buf = [0u8; 16];
        let mut sink = SliceSink::new(&mut buf);
        (&&&Via(Serde(&5u8))).pick().to_json(&mut sink).unwrap();
        (&&&Via(Serde(&OnlySerde(6))))
            .pick()
            .to_json(&mut sink)
            .unwrap();
        assert_eq!(
            (&&&Via(Serde(&Neither))).pick().to_json(&mut sink),
            Err(EncodeError::Custom)
        );
        assert_eq!(sink.written(), Some(&b"56"[..]));
    }
}
