//! `anyOf` and `oneOf`, and the walk over in-place applicators that finds the annotations
//! `unevaluatedItems` and `unevaluatedProperties` depend on. (`allOf`, `$ref`, `not`, `if`
//! and `dependentSchemas` are dispatched in `mod.rs`, where a subschema applied last can be
//! handed back to `eval` instead of being called.)

use super::display::Brief;
use super::{payload, skip, Eval, Flow, Path, Stop};
use crate::json::Piece::{Dec, Of, Text};
use crate::json::Value;
use crate::schema::keywords::Keywords;
use crate::schema::program::{Op, NONE};

impl<K: Keywords> Eval<'_, '_, K> {
    #[inline(never)]
    pub(super) fn any_of(&mut self, children: &[Op], inst: Value<'_>, path: &Path<'_>) -> Flow {
        for c in children {
            if let Op::Child(n) = *c {
                if self.test(n, inst, path)? {
                    return Ok(());
                }
            }
        }
        self.fail(path, "anyOf", &mut |m| {
            m.write(&[Of(&Brief(inst)), Text(" matches no schema of anyOf")])
        })
    }

    #[inline(never)]
    pub(super) fn one_of(&mut self, children: &[Op], inst: Value<'_>, path: &Path<'_>) -> Flow {
        let mut first = None;
        for (idx, c) in children.iter().enumerate() {
            if let Op::Child(n) = *c {
                if self.test(n, inst, path)? {
                    if let Some(f) = first {
                        return self.fail(path, "oneOf", &mut |m| {
                            m.write(&[
                                Of(&Brief(inst)),
                                Text(" matches oneOf "),
                                Dec(f as u64),
                                Text(" and "),
                                Dec(idx as u64),
                                Text(", not one"),
                            ])
                        });
                    }
                    first = Some(idx);
                }
            }
        }
        if first.is_none() {
            return self.fail(path, "oneOf", &mut |m| {
                m.write(&[Of(&Brief(inst)), Text(" matches no schema of oneOf")])
            });
        }
        Ok(())
    }

    /// For annotation collection: applies `query` to the in-place subschemas of `op` whose
    /// annotations survive (valid `anyOf`/`oneOf` branches, the taken `if` branch, triggered
    /// `dependentSchemas`, `$ref`, `allOf`). Returns (payload ops to skip, any hit).
    pub(super) fn in_place(
        &mut self,
        ops: &[Op],
        i: usize,
        op: Op,
        inst: Value<'_>,
        path: &Path<'_>,
        query: &mut dyn FnMut(&mut Self, u16, &Path<'_>) -> Result<bool, Stop>,
    ) -> Result<(usize, bool), Stop> {
        let mut ask = |e: &mut Self, n: u16| -> Result<bool, Stop> {
            e.enter(path)?;
            let r = query(e, n, path);
            e.depth = e.depth.wrapping_sub(1); // `enter` succeeded: depth >= 1
            r
        };
        match op {
            Op::Ref(n) => Ok((0, ask(self, n)?)),
            Op::AllOf(k) | Op::AnyOf(k) | Op::OneOf(k) => {
                let must_pass = !matches!(op, Op::AllOf(_));
                for c in payload(ops, i, k) {
                    if let Op::Child(n) = *c {
                        if must_pass && !self.test(n, inst, path)? {
                            continue;
                        }
                        if ask(self, n)? {
                            return Ok((usize::from(k), true));
                        }
                    }
                }
                Ok((usize::from(k), false))
            }
            Op::If {
                cond,
                then,
                otherwise,
            } => {
                if self.test(cond, inst, path)? {
                    Ok((0, ask(self, cond)? || (then != NONE && ask(self, then)?)))
                } else {
                    Ok((0, otherwise != NONE && ask(self, otherwise)?))
                }
            }
            Op::DependentSchema { trigger, node } => {
                let present = inst.get(self.text(trigger)).is_some();
                Ok((0, present && ask(self, node)?))
            }
            Op::Enum(k) | Op::DependentRequired { count: k, .. } => Ok((usize::from(k), false)),
            Op::Items { prefix: k, .. } => Ok((usize::from(k), false)),
            Op::Members {
                props, patterns, ..
            } => Ok((skip(usize::from(props), patterns), false)),
            Op::Contains(_) => Ok((2, false)),
            Op::Regex { len, .. } => Ok((usize::from(len), false)),
            _ => Ok((0, false)),
        }
    }
}
