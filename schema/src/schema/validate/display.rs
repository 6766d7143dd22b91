//! Short renderings of instance values and keyword values for violation messages.

use crate::json::{Describe, EncodeError, Sink};
use crate::json::{Kind, Value};
use crate::schema::program::types;

/// A short rendering of an instance value for messages.
pub(super) struct Brief<'a>(pub(super) Value<'a>);

impl Describe for Brief<'_> {
    fn describe(&self, f: &mut dyn Sink) -> Result<(), EncodeError> {
        const MAX: usize = 20;
        match self.0.kind() {
            Kind::Array => f.put("an array".as_bytes()),
            Kind::Object => f.put("an object".as_bytes()),
            _ => {
                let raw = self.0.raw();
                if raw.len() <= MAX {
                    return f.put(raw.as_bytes());
                }
                let mut cut = MAX - 4;
                // 0 is a char boundary, so `cut` stops before it could wrap.
                while !raw.is_char_boundary(cut) {
                    cut = cut.wrapping_sub(1);
                }
                f.put(raw.get(..cut).unwrap_or_default().as_bytes())?;
                f.put("…".as_bytes())?;
                if self.0.kind() == Kind::String {
                    f.put("\"".as_bytes())?;
                }
                Ok(())
            }
        }
    }
}

/// The type names of a `type` mask, joined with " or ".
pub(super) struct TypeNames(pub(super) u8);

impl Describe for TypeNames {
    fn describe(&self, f: &mut dyn Sink) -> Result<(), EncodeError> {
        let mut first = true;
        for (name, bit) in types::NAMES {
            if self.0 & bit != 0 {
                if !first {
                    f.put(" or ".as_bytes())?;
                }
                f.put(name.as_bytes())?;
                first = false;
            }
        }
        Ok(())
    }
}

/// A property name in quotes, as JSON text (the name's string value).
pub(super) struct Quoted<'a>(pub(super) Value<'a>);

impl Describe for Quoted<'_> {
    fn describe(&self, f: &mut dyn Sink) -> Result<(), EncodeError> {
        f.put(self.0.raw().as_bytes())
    }
}
