//! Short renderings of instance values and keyword values for violation messages.

use crate::json::{Kind, Value};
use crate::schema::program::types;
use core::fmt;

/// A short rendering of an instance value for messages.
pub(super) struct Brief<'a>(pub(super) Value<'a>);

impl fmt::Display for Brief<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MAX: usize = 20;
        match self.0.kind() {
            Kind::Array => f.write_str("an array"),
            Kind::Object => f.write_str("an object"),
            _ => {
                let raw = self.0.raw();
                if raw.len() <= MAX {
                    return f.write_str(raw);
                }
                let mut cut = MAX - 4;
                // 0 is a char boundary, so `cut` stops before it could wrap.
                while !raw.is_char_boundary(cut) {
                    cut = cut.wrapping_sub(1);
                }
                f.write_str(raw.get(..cut).unwrap_or_default())?;
                f.write_str("…")?;
                if self.0.kind() == Kind::String {
                    f.write_str("\"")?;
                }
                Ok(())
            }
        }
    }
}

/// The type names of a `type` mask, joined with " or ".
pub(super) struct TypeNames(pub(super) u8);

impl fmt::Display for TypeNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (name, bit) in types::NAMES {
            if self.0 & bit != 0 {
                if !first {
                    f.write_str(" or ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

/// A property name in quotes, as JSON text (the name's string value).
pub(super) struct Quoted<'a>(pub(super) Value<'a>);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.raw())
    }
}
