//! The JSON Pointer of a place in the schema document, recomputed from the root by byte
//! offset when an error is reported.

use crate::json::{Kind, Value};
use crate::schema::pointer::{format_index, PointerBuf, SchemaPointer, SCHEMA_POINTER_CAPACITY};

/// The JSON Pointer of the value starting at byte `target` of `doc`.
pub(crate) fn pointer_at(doc: &str, root: Value<'_>, target: usize) -> SchemaPointer {
    let base = doc.as_ptr() as usize;
    let offset = |v: Value<'_>| (v.raw().as_ptr() as usize).wrapping_sub(base);
    let inside = |v: Value<'_>| {
        let s = offset(v);
        s <= target && target.wrapping_sub(s) < v.raw().len() // `s <= target`: no wrap
    };
    let mut p = PointerBuf::<SCHEMA_POINTER_CAPACITY>::new();
    let mut cur = root;
    while offset(cur) != target {
        match cur.kind() {
            Kind::Object => {
                let Some((k, v)) = cur.members().and_then(|mut m| m.find(|(_, v)| inside(*v)))
                else {
                    break;
                };
                let mut buf = [0u8; SCHEMA_POINTER_CAPACITY];
                p.push_back(k.decode_into(&mut buf).unwrap_or("…"));
                cur = v;
            }
            Kind::Array => {
                let Some((i, v)) = cur
                    .elements()
                    .and_then(|e| e.enumerate().find(|(_, v)| inside(*v)))
                else {
                    break;
                };
                let mut buf = [0u8; 20];
                p.push_back(format_index(i, &mut buf));
                cur = v;
            }
            _ => break,
        }
    }
    SchemaPointer(p)
}
