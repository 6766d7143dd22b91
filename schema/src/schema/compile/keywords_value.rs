//! Keywords on a single value: `type`, `enum`, the numeric bounds and `multipleOf`,
//! `minLength`/`maxLength` and `pattern` (with its regular expression compiled in place).

use super::state::{Compiler, Halt, Kw};
use crate::json::{JsonStr, Kind, Value};
use crate::schema::number::{Decimal, MULTIPLE_OF_MAX_DIGITS};
use crate::schema::program::{types, Op, Str};
#[cfg(feature = "pattern")]
use crate::schema::regex;
#[cfg(feature = "pattern")]
use crate::schema::regex::RegexError;

/// Why `pattern` and `patternProperties` are refused without the `pattern` feature.
#[cfg(not(feature = "pattern"))]
pub(super) const NO_PATTERN: &str =
    "regular expressions need the `pattern` feature of embedded-mcp";

impl<'s> Compiler<'s, '_, '_> {
    pub(super) fn type_keyword(&mut self, t: Value<'s>) -> Result<(), Halt> {
        let name_bit = |s: JsonStr<'_>| {
            types::NAMES
                .iter()
                .find(|(n, _)| s.eq_str(n))
                .map(|&(_, bit)| bit)
        };
        let mask = match t.kind() {
            Kind::String => t.as_str().and_then(name_bit),
            Kind::Array => {
                let mut mask = 0u8;
                let mut ok = true;
                for e in t.elements().into_iter().flatten() {
                    match e.as_str().and_then(name_bit) {
                        Some(bit) => mask |= bit,
                        None => ok = false,
                    }
                }
                (ok && mask != 0).then_some(mask)
            }
            _ => None,
        };
        match mask {
            Some(mask) => self.emit(Op::Type(mask)),
            None => self.invalid(
                Kw::Type,
                t,
                "must be a type name or a non-empty array of type names",
            ),
        }
    }

    pub(super) fn enum_keyword(&mut self, e: Value<'s>) -> Result<(), Halt> {
        let Some(items) = e.elements() else {
            return self.invalid(Kw::Enum, e, "must be an array");
        };
        let n = self.count16(items.clone().count())?;
        self.emit(Op::Enum(n))?;
        for item in items {
            let s = self.put_text(item.raw())?;
            self.emit(Op::EnumValue(s))?;
        }
        Ok(())
    }

    /// A non-negative integer keyword value, saturated to `u32::MAX` (exact: no instance
    /// below 4 GiB has that many items, properties or characters).
    pub(super) fn count(&mut self, kw: Kw, v: Value<'s>) -> Result<Option<u32>, Halt> {
        let n = v
            .as_number()
            .and_then(|n| Decimal::parse(n.raw()))
            .and_then(|d| d.to_u64_saturating());
        match n {
            Some(n) => Ok(Some(u32::try_from(n).unwrap_or(u32::MAX))),
            None => {
                self.invalid(kw, v, "must be a non-negative integer")?;
                Ok(None)
            }
        }
    }

    pub(super) fn number(&mut self, kw: Kw, v: Value<'s>) -> Result<Option<Str>, Halt> {
        match v.as_number() {
            Some(n) => Ok(Some(self.put_text(n.raw())?)),
            None => {
                self.invalid(kw, v, "must be a number")?;
                Ok(None)
            }
        }
    }

    pub(super) fn number_keywords(
        &mut self,
        get: &dyn Fn(Kw) -> Option<Value<'s>>,
    ) -> Result<(), Halt> {
        if let Some(m) = get(Kw::MultipleOf) {
            match m.as_number().and_then(|n| Decimal::parse(n.raw())) {
                Some(d) if d.is_zero() || d.is_negative() => {
                    self.invalid(Kw::MultipleOf, m, "must be greater than 0")?;
                }
                Some(d) if d.significant_digits() > MULTIPLE_OF_MAX_DIGITS => {
                    self.refuse(
                        Kw::MultipleOf,
                        m,
                        "divisors with more than 18 significant digits are not supported",
                    )?;
                }
                Some(_) => {
                    if let Some(s) = self.number(Kw::MultipleOf, m)? {
                        self.emit(Op::MultipleOf(s))?;
                    }
                }
                None => self.invalid(Kw::MultipleOf, m, "must be a number")?,
            }
        }
        for (kw, make) in [
            (Kw::Minimum, Op::Minimum as fn(Str) -> Op),
            (Kw::ExclusiveMinimum, Op::ExclusiveMinimum),
            (Kw::Maximum, Op::Maximum),
            (Kw::ExclusiveMaximum, Op::ExclusiveMaximum),
        ] {
            if let Some(v) = get(kw) {
                if let Some(s) = self.number(kw, v)? {
                    self.emit(make(s))?;
                }
            }
        }
        Ok(())
    }

    pub(super) fn string_keywords(
        &mut self,
        get: &dyn Fn(Kw) -> Option<Value<'s>>,
    ) -> Result<(), Halt> {
        for (kw, make) in [
            (Kw::MinLength, Op::MinLength as fn(u32) -> Op),
            (Kw::MaxLength, Op::MaxLength),
        ] {
            if let Some(v) = get(kw) {
                if let Some(n) = self.count(kw, v)? {
                    self.emit(make(n))?;
                }
            }
        }
        if let Some(p) = get(Kw::Pattern) {
            self.pattern_keyword(p)?;
        }
        Ok(())
    }

    /// `pattern`: its source (kept for messages), then its automaton.
    pub(super) fn pattern_keyword(&mut self, p: Value<'s>) -> Result<(), Halt> {
        let Some(source) = p.as_str() else {
            return self.invalid(Kw::Pattern, p, "must be a string");
        };
        #[cfg(not(feature = "pattern"))]
        {
            let _ = source;
            self.refuse(Kw::Pattern, p, NO_PATTERN)
        }
        #[cfg(feature = "pattern")]
        {
            let s = self.put_json_str(source)?;
            if let Some(states) = self.check_regex(Kw::Pattern, p, s)? {
                self.emit(Op::Pattern(s))?;
                self.emit_regex(s, states)?;
            }
            Ok(())
        }
    }

    /// Checks the regular expression stored at `s` against the subset: its number of
    /// automaton states, or `None` once the refusal is reported.
    #[cfg(feature = "pattern")]
    pub(super) fn check_regex(
        &mut self,
        kw: Kw,
        at: Value<'s>,
        s: Str,
    ) -> Result<Option<u8>, Halt> {
        match regex::check(self.stored(s)) {
            Ok(states) => Ok(Some(states)),
            Err(RegexError::Refused(reason)) => {
                self.refuse(kw, at, reason)?;
                Ok(None)
            }
            Err(RegexError::Full) => Err(Halt::Internal),
        }
    }

    /// Emits the `Regex` block (header and automaton) of the checked regular expression stored
    /// at `s`, which has `states` states.
    #[cfg(feature = "pattern")]
    pub(super) fn emit_regex(&mut self, s: Str, states: u8) -> Result<(), Halt> {
        let full = Halt::TooManyOps;
        let source = self
            .text
            .get(s.range())
            .and_then(|t| core::str::from_utf8(t).ok())
            .unwrap_or_default();
        // `n_ops <= ops.len()`: no wrap.
        let block = self.ops.get_mut(self.n_ops.wrapping_add(1)..).ok_or(full)?;
        let len = match regex::compile_into(source, states, block) {
            Ok(len) => len,
            Err(RegexError::Full) => return Err(full),
            Err(RegexError::Refused(_)) => return Err(Halt::Internal),
        };
        let len16 = u16::try_from(len).map_err(|_| full)?;
        self.emit(Op::Regex { len: len16, states })?;
        // The automaton was written into `block` (after the header just emitted): `n_ops + len`
        // is at most `ops.len()`.
        self.n_ops = self.n_ops.wrapping_add(len);
        Ok(())
    }
}
