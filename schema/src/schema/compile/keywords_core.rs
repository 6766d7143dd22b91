//! The core vocabulary's own keywords: `$schema` (2020-12 only), `$id`, `$anchor`, and the
//! refused dynamic references. (`$ref` is resolved in `refs.rs`.)

use super::refs::{is_anchor_name, REF_CAPACITY};
use super::state::{Compiler, Halt, Kw};
use crate::json::Value;

/// The 2020-12 meta-schema URIs accepted in `$schema`.
pub(super) const DIALECTS: [&str; 2] = [
    "https://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2020-12/schema#",
];

impl<'s> Compiler<'s, '_, '_> {
    /// Out of line, like [`Compiler::resolve_ref`]: its `$id` buffer stays out of
    /// `compile_node`'s frame.
    #[inline(never)]
    pub(super) fn core_keywords(
        &mut self,
        get: &dyn Fn(Kw) -> Option<Value<'s>>,
    ) -> Result<(), Halt> {
        if let Some(s) = get(Kw::Schema) {
            match s.as_str() {
                Some(uri) if DIALECTS.iter().any(|d| uri.eq_str(d)) => {}
                Some(_) => self.refuse(
                    Kw::Schema,
                    s,
                    "only JSON Schema 2020-12 is supported (no other $schema)",
                )?,
                None => self.invalid(Kw::Schema, s, "must be a string")?,
            }
        }
        if let Some(i) = get(Kw::Id) {
            match i.as_str() {
                Some(uri) => {
                    let mut buf = [0u8; REF_CAPACITY];
                    match uri.decode_into(&mut buf) {
                        Ok(text) => {
                            let text = text.strip_suffix('#').unwrap_or(text);
                            if text.contains('#') {
                                self.invalid(Kw::Id, i, "$id must not contain a fragment")?;
                            }
                        }
                        Err(_) => self.refuse(Kw::Id, i, "$id longer than 256 bytes")?,
                    }
                }
                None => self.invalid(Kw::Id, i, "must be a string")?,
            }
        }
        if let Some(a) = get(Kw::Anchor) {
            if !a.as_str().is_some_and(is_anchor_name) {
                self.invalid(
                    Kw::Anchor,
                    a,
                    "must be a plain name ([A-Za-z_][-A-Za-z0-9._]*)",
                )?;
            }
        }
        if let Some(d) = get(Kw::DynamicRef) {
            self.refuse(Kw::DynamicRef, d, "dynamic references are not supported")?;
        }
        if let Some(d) = get(Kw::DynamicAnchor) {
            self.refuse(Kw::DynamicAnchor, d, "dynamic anchors are not supported")?;
        }
        Ok(())
    }
}
