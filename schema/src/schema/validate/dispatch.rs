//! The dispatch loop over a node's ops. Every keyword arm starts with `built!`: in an
//! evaluator built for a [`KeywordSet`](crate::schema::KeywordSet) without that keyword the arm
//! refuses the program, and the keyword's code is left out.

use super::{payload, Eval, Path, Stop, REQUIRED_BATCH};
use crate::json::Piece::{Of, Text};
use crate::json::{Kind, Value};
use crate::schema::keywords::{bit, keyword_bit, Keywords};
use crate::schema::program::{payload_ops, skip, Op, NONE};

use super::display::Brief;

/// Refuses the program (see [`Eval::unsupported`]) unless the evaluator is built for the
/// keyword of `op` (a constant once the arm is known: the rest of the arm is then dropped).
macro_rules! built {
    ($eval:ident, $op:expr, $path:ident) => {
        if !K::SET.has(keyword_bit($op)) {
            return Err($eval.unsupported($path));
        }
    };
}

impl<K: Keywords> Eval<'_, '_, K> {
    /// Runs the ops of `node` on `inst`; `Some(next)` when the last op hands the instance on
    /// to subschema `next` (see [`Eval::eval`]).
    pub(super) fn eval_ops(
        &mut self,
        node: u16,
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Result<Option<u16>, Stop> {
        let ops = self.prog.node(node);
        let kind = inst.kind();
        let mut required: &[Op] = &[];
        // `minItems` / `maxItems` deferred to the `items` pass.
        let mut item_bounds = (0usize, usize::MAX);
        let mut i = 0;
        while let Some(&op) = ops.get(i) {
            i = i.wrapping_add(1); // `i < ops.len()`
            match op {
                // types_const_enum.rs
                Op::Type(mask) => {
                    built!(self, op, path);
                    self.type_keyword(mask, inst, path)?;
                }
                Op::False => {
                    built!(self, op, path);
                    self.false_schema(path)?;
                }
                Op::Const(_) => {
                    built!(self, op, path);
                    self.const_enum(op, ops, i, inst, path)?;
                }
                Op::Enum(k) => {
                    built!(self, op, path);
                    self.const_enum(op, ops, i, inst, path)?;
                    i = skip(i, k);
                }
                // string.rs
                Op::MinLength(_) | Op::MaxLength(_) | Op::Pattern(_) => {
                    built!(self, op, path);
                    self.string_keyword(op, ops, i, inst, path)?;
                }
                // object.rs
                Op::MinProperties(_) | Op::MaxProperties(_) => {
                    built!(self, op, path);
                    self.object_keyword(op, ops, i, inst, path)?;
                }
                Op::DependentRequired { count: k, .. } => {
                    built!(self, op, path);
                    self.object_keyword(op, ops, i, inst, path)?;
                    i = skip(i, k);
                }
                // numeric.rs
                Op::MultipleOf(s)
                | Op::Minimum(s)
                | Op::ExclusiveMinimum(s)
                | Op::Maximum(s)
                | Op::ExclusiveMaximum(s) => {
                    built!(self, op, path);
                    if kind == Kind::Number {
                        self.number(op, s, inst, path)?;
                    }
                }
                // array.rs
                Op::MinItems(n) | Op::MaxItems(n) => {
                    built!(self, op, path);
                    let walks_all = ops
                        .get(i..)
                        .unwrap_or_default()
                        .iter()
                        .any(|op| matches!(op, Op::Items { rest, .. } if *rest != NONE));
                    let n_usize = usize::try_from(n).unwrap_or(usize::MAX);
                    if walks_all {
                        // Counted during the `items` pass instead of a pass of its own.
                        if matches!(op, Op::MinItems(_)) {
                            item_bounds.0 = n_usize;
                        } else {
                            item_bounds.1 = n_usize;
                        }
                    } else {
                        if !K::SET.has(bit::COUNT_PASS) {
                            return Err(self.unsupported(path));
                        }
                        self.item_count(op, inst, path)?;
                    }
                }
                Op::UniqueItems => {
                    built!(self, op, path);
                    if kind == Kind::Array {
                        self.unique(inst, path)?;
                    }
                }
                Op::Items { prefix, rest } => {
                    built!(self, op, path);
                    if prefix != 0 && !K::SET.has(bit::PREFIX_ITEMS) {
                        return Err(self.unsupported(path));
                    }
                    let children = payload(ops, i, prefix);
                    i = skip(i, prefix);
                    if kind == Kind::Array {
                        self.items(children, rest, item_bounds, inst, path)?;
                    }
                }
                Op::Contains(c) => {
                    built!(self, op, path);
                    let (min, max) = match (ops.get(i), ops.get(i.wrapping_add(1))) {
                        (Some(Op::MinContains(min)), Some(Op::MaxContains(max))) => (*min, *max),
                        _ => (1, u32::MAX),
                    };
                    i = i.wrapping_add(2); // see `skip`
                    if kind == Kind::Array {
                        self.contains(c, min, max, inst, path)?;
                    }
                }
                // object.rs
                Op::Required(_) => {
                    built!(self, op, path);
                    // A run of `required` names is checked in one pass over the members.
                    // `i >= 1` (stepped past this op) and only grows from `start`.
                    let start = i.wrapping_sub(1);
                    while i.wrapping_sub(start) < REQUIRED_BATCH
                        && matches!(ops.get(i), Some(Op::Required(_)))
                    {
                        i = i.wrapping_add(1); // `ops.get(i)` was `Some`
                    }
                    let names = ops.get(start..i).unwrap_or_default();
                    let whole_run = !matches!(ops.get(i), Some(Op::Required(_)));
                    let members_later = ops
                        .get(i..)
                        .unwrap_or_default()
                        .iter()
                        .any(|op| matches!(op, Op::Members { .. }));
                    if whole_run && members_later {
                        // Checked during the `Members` pass instead of a pass of its own.
                        required = names;
                    } else if kind == Kind::Object {
                        if !K::SET.has(bit::REQUIRED_PASS) {
                            return Err(self.unsupported(path));
                        }
                        self.required(names, inst, path)?;
                    }
                }
                Op::Members {
                    props,
                    patterns,
                    additional,
                } => {
                    built!(self, op, path);
                    if patterns != 0 && !K::SET.has(bit::PATTERN_PROPERTIES) {
                        return Err(self.unsupported(path));
                    }
                    let p = payload(ops, i, props);
                    i = skip(i, props);
                    let pats = payload(ops, i, patterns);
                    i = skip(i, patterns);
                    if kind == Kind::Object {
                        self.members(p, pats, additional, required, inst, path)?;
                    }
                }
                Op::PropertyNames(c) => {
                    built!(self, op, path);
                    if kind == Kind::Object {
                        self.property_names(c, inst, path)?;
                    }
                }
                // Applicators in place (applicators.rs); a subschema applied last is handed back
                // to `eval` instead of being called.
                Op::DependentSchema { trigger, node } => {
                    built!(self, op, path);
                    if kind == Kind::Object && inst.get(self.text(trigger)).is_some() {
                        self.eval(node, inst, path)?;
                    }
                }
                Op::Ref(n) => {
                    built!(self, op, path);
                    if i >= ops.len() {
                        return Ok(Some(n));
                    }
                    self.eval(n, inst, path)?;
                }
                Op::AllOf(k) => {
                    built!(self, op, path);
                    let children = payload(ops, i, k);
                    i = skip(i, k);
                    let last = children.len().saturating_sub(1);
                    for (j, c) in children.iter().enumerate() {
                        if let Op::Child(n) = *c {
                            if j == last && i >= ops.len() {
                                return Ok(Some(n));
                            }
                            self.eval(n, inst, path)?;
                        }
                    }
                }
                Op::AnyOf(k) => {
                    built!(self, op, path);
                    let children = payload(ops, i, k);
                    i = skip(i, k);
                    self.any_of(children, inst, path)?;
                }
                Op::OneOf(k) => {
                    built!(self, op, path);
                    let children = payload(ops, i, k);
                    i = skip(i, k);
                    self.one_of(children, inst, path)?;
                }
                Op::Not(n) => {
                    built!(self, op, path);
                    if self.test(n, inst, path)? {
                        self.fail(path, "not", &mut |m| {
                            m.write(&[Of(&Brief(inst)), Text(" must not match \"not\"")])
                        })?;
                    }
                }
                Op::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    built!(self, op, path);
                    let branch = if self.test(cond, inst, path)? {
                        then
                    } else {
                        otherwise
                    };
                    if branch != NONE {
                        if i >= ops.len() {
                            return Ok(Some(branch));
                        }
                        self.eval(branch, inst, path)?;
                    }
                }
                Op::UnevaluatedItems(u) => {
                    built!(self, op, path);
                    if kind == Kind::Array {
                        self.unevaluated_items(ops, u, inst, path)?;
                    }
                }
                Op::UnevaluatedProperties(u) => {
                    built!(self, op, path);
                    if kind == Kind::Object {
                        self.unevaluated_properties(ops, u, inst, path)?;
                    }
                }
                // An automaton is read by the `Pattern` before it.
                Op::Regex { len, .. } => i = skip(i, len),
                // Payloads are consumed by their keyword.
                payload_ops!() => {}
            }
        }
        Ok(None)
    }
}
