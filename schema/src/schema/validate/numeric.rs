//! `multipleOf`, `minimum`, `exclusiveMinimum`, `maximum` and `exclusiveMaximum`, compared
//! on the number lexemes (no floating point).

use super::display::Brief;
use super::{Eval, Flow, Path};
use crate::json::Piece::{Of, Text};
use crate::json::Value;
use crate::schema::keywords::{bit, Keywords};
use crate::schema::number::{cmp_lexemes, lexeme_is_multiple_of};
use crate::schema::program::{Op, Str};
use core::cmp::Ordering;

impl<K: Keywords> Eval<'_, '_, K> {
    #[inline(never)]
    pub(super) fn number(&mut self, op: Op, s: Str, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let limit_text = self.text(s);
        // (`multipleOf` only reaches here when the evaluator is built for it.)
        let multiple_of = K::SET.has(bit::MULTIPLE_OF) && matches!(op, Op::MultipleOf(_));
        let (ok, keyword, rel) = if multiple_of {
            (
                lexeme_is_multiple_of(inst.raw(), limit_text),
                "multipleOf",
                "not a multiple of",
            )
        } else {
            let ord = cmp_lexemes(inst.raw(), limit_text);
            match op {
                Op::Minimum(_) => (ord != Ordering::Less, "minimum", "less than the minimum"),
                Op::ExclusiveMinimum(_) => (
                    ord == Ordering::Greater,
                    "exclusiveMinimum",
                    "not greater than exclusiveMinimum",
                ),
                Op::Maximum(_) => (
                    ord != Ordering::Greater,
                    "maximum",
                    "greater than the maximum",
                ),
                _ => (
                    ord == Ordering::Less,
                    "exclusiveMaximum",
                    "not less than exclusiveMaximum",
                ),
            }
        };
        if ok {
            return Ok(());
        }
        self.fail_with(
            path,
            keyword,
            &[
                Of(&Brief(inst)),
                Text(" is "),
                Text(rel),
                Text(" "),
                Text(limit_text),
            ],
        )
    }
}
