//! `type`, the `false` schema, `const` and `enum`, and the JSON equality they use (also
//! used by `uniqueItems`).

use super::display::{Brief, TypeNames};
use super::{payload, Eval, Flow, Path, Stop};
use crate::json::Piece::{Of, Text};
use crate::json::{JsonStr, Kind, Value};
use crate::schema::keywords::{bit, Keywords};
use crate::schema::number::{cmp_lexemes, lexeme_is_integer};
use crate::schema::program::{types, Op};
use core::cmp::Ordering;

pub(super) fn type_matches(mask: u8, inst: Value<'_>) -> bool {
    let bit = match inst.kind() {
        Kind::Null => types::NULL,
        Kind::Bool => types::BOOLEAN,
        Kind::String => types::STRING,
        Kind::Array => types::ARRAY,
        Kind::Object => types::OBJECT,
        Kind::Number => {
            if mask & types::NUMBER != 0 {
                return true;
            }
            return mask & types::INTEGER != 0 && lexeme_is_integer(inst.raw());
        }
    };
    mask & bit != 0
}

pub(super) fn str_eq(a: JsonStr<'_>, b: JsonStr<'_>) -> bool {
    if !a.has_escapes() && !b.has_escapes() {
        return a.raw() == b.raw();
    }
    a.chars().eq(b.chars())
}

impl<K: Keywords> Eval<'_, '_, K> {
    /// `type`, inlined into the dispatch loop (almost every node has one).
    #[inline]
    pub(super) fn type_keyword(&mut self, mask: u8, inst: Value<'_>, path: &Path<'_>) -> Flow {
        if !type_matches(mask, inst) {
            return self.fail(path, "type", &mut |m| {
                m.write(&[
                    Of(&Brief(inst)),
                    Text(" is not of type "),
                    Of(&TypeNames(mask)),
                ])
            });
        }
        Ok(())
    }

    /// The `false` schema.
    #[inline]
    pub(super) fn false_schema(&mut self, path: &Path<'_>) -> Flow {
        self.fail(path, "false", &mut |m| {
            m.write_str("not allowed (the schema is false)")
        })
    }

    /// `const` and `enum` (an `enum`'s values are the payload at `ops[i..]`).
    #[inline(never)]
    pub(super) fn const_enum(
        &mut self,
        op: Op,
        ops: &[Op],
        i: usize,
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        // Each arm is left out of an evaluator not built for its keyword.
        match op {
            Op::Const(s) if K::SET.has(bit::CONST) => {
                let c = self.value(s);
                if !self.equal(inst, c, path)? {
                    return self.fail_with(
                        path,
                        "const",
                        &[Of(&Brief(inst)), Text(" is not the const "), Of(&Brief(c))],
                    );
                }
            }
            Op::Enum(k) if K::SET.has(bit::ENUM) => {
                let values = payload(ops, i, k);
                if !self.in_enum(inst, values, path)? {
                    return self.fail_with(
                        path,
                        "enum",
                        &[Of(&Brief(inst)), Text(" is not one of the enum values")],
                    );
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// True when `inst` equals one of the `EnumValue`s (JSON equality, one step each).
    pub(super) fn in_enum(
        &mut self,
        inst: Value<'_>,
        values: &[Op],
        path: &Path<'_>,
    ) -> Result<bool, Stop> {
        let raw = inst.raw();
        let is_string = inst.kind() == Kind::String;
        // A string without escapes equals a string value exactly when their texts are equal,
        // or when the value has escapes and decodes to it. When every enum value is a string
        // (an evaluator built without `bit::NON_STRING_ENUM`), any instance is compared so,
        // and the general equality is left out: a string with escapes equals a value when
        // they decode alike, any other instance equals none.
        let escaped = is_string && raw.as_bytes().contains(&b'\\');
        let plain_string = is_string && !escaped;
        let string_values = !K::SET.has(bit::NON_STRING_ENUM);
        for v in values {
            let Op::EnumValue(s) = *v else { continue };
            let c = self.value(s);
            if plain_string || string_values {
                self.step(path)?;
                if c.kind() != Kind::String {
                    if string_values {
                        return Err(self.unsupported(path));
                    }
                    continue;
                }
                let text = c.raw();
                if !is_string {
                    continue;
                }
                if text == raw {
                    return Ok(true);
                }
                if !escaped && !text.as_bytes().contains(&b'\\') {
                    continue;
                }
                if let (Some(x), Some(y)) = (inst.as_str(), c.as_str()) {
                    if str_eq(x, y) {
                        return Ok(true);
                    }
                }
                continue;
            }
            if self.equal(inst, c, path)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// JSON equality: numbers by value, strings after unescaping, objects in any order.
    pub(super) fn equal(
        &mut self,
        a: Value<'_>,
        b: Value<'_>,
        path: &Path<'_>,
    ) -> Result<bool, Stop> {
        self.step(path)?;
        // The same text is the same scalar; different texts may still be equal numbers or
        // strings with escapes. (Containers are compared by structure: a container met during
        // a walk can be open-ended, its text running past its end.)
        let scalar = !matches!(a.kind(), Kind::Array | Kind::Object);
        if scalar && a.raw() == b.raw() {
            return Ok(true);
        }
        Ok(match (a.kind(), b.kind()) {
            (Kind::Number, Kind::Number) => cmp_lexemes(a.raw(), b.raw()) == Ordering::Equal,
            // Different texts without escapes are different strings.
            (Kind::String, Kind::String)
                if !a.raw().as_bytes().contains(&b'\\') && !b.raw().as_bytes().contains(&b'\\') =>
            {
                false
            }
            (Kind::String, Kind::String) => match (a.as_str(), b.as_str()) {
                (Some(x), Some(y)) => str_eq(x, y),
                _ => false,
            },
            (Kind::Null, Kind::Null) => true,
            (Kind::Bool, Kind::Bool) => a.as_bool() == b.as_bool(),
            // Containers are compared only where a program can compare two of them (see
            // `bit::CONTAINER_EQUALITY`); elsewhere the evaluator leaves that code out and
            // refuses the program if it finds two.
            (Kind::Array, Kind::Array) | (Kind::Object, Kind::Object)
                if !K::SET.has(bit::CONTAINER_EQUALITY) =>
            {
                return Err(self.unsupported(path));
            }
            (Kind::Array, Kind::Array) => {
                self.enter(path)?;
                let r = self.arrays_equal(a, b, path);
                self.depth = self.depth.wrapping_sub(1); // `enter` succeeded: depth >= 1
                r?
            }
            (Kind::Object, Kind::Object) => {
                self.enter(path)?;
                let r = self.objects_equal(a, b, path);
                self.depth = self.depth.wrapping_sub(1); // `enter` succeeded: depth >= 1
                r?
            }
            _ => false,
        })
    }

    pub(super) fn arrays_equal(
        &mut self,
        a: Value<'_>,
        b: Value<'_>,
        path: &Path<'_>,
    ) -> Result<bool, Stop> {
        let (Some(mut xs), Some(mut ys)) = (a.elements(), b.elements()) else {
            return Ok(false);
        };
        loop {
            match (xs.next(), ys.next()) {
                (None, None) => return Ok(true),
                (Some(x), Some(y)) => {
                    if !self.equal(x, y, path)? {
                        return Ok(false);
                    }
                }
                _ => return Ok(false),
            }
        }
    }

    pub(super) fn objects_equal(
        &mut self,
        a: Value<'_>,
        b: Value<'_>,
        path: &Path<'_>,
    ) -> Result<bool, Stop> {
        let (Some(xs), Some(ys)) = (a.members(), b.members()) else {
            return Ok(false);
        };
        if xs.clone().count() != ys.clone().count() {
            return Ok(false);
        }
        for (k, x) in xs {
            let Some((_, y)) = ys.clone().find(|(k2, _)| str_eq(k, *k2)) else {
                return Ok(false);
            };
            if !self.equal(x, y, path)? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
