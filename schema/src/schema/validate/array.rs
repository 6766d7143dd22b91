//! `minItems`, `maxItems`, `uniqueItems`, `prefixItems`/`items`, `contains` (with
//! `minContains`/`maxContains`) and `unevaluatedItems`.

use super::types_const_enum::type_matches;
use super::{count_limit, skip, Eval, Flow, Path, Stop, ITEMS};
use crate::json::Piece::{Dec, Text};
use crate::json::Value;
use crate::schema::keywords::{bit, Keywords};
use crate::schema::program::{Op, NONE};

impl<K: Keywords> Eval<'_, '_, K> {
    /// `minItems` and `maxItems` when no `items` pass counts the items instead.
    #[inline(never)]
    pub(super) fn item_count(&mut self, op: Op, inst: Value<'_>, path: &Path<'_>) -> Flow {
        match op {
            Op::MinItems(n) | Op::MaxItems(n) => {
                if let Some(items) = inst.elements() {
                    let min = matches!(op, Op::MinItems(_));
                    let len = items.take(count_limit(n)).count();
                    return self.count_bound(path, min, n, len, &ITEMS);
                }
            }
            _ => {}
        }
        Ok(())
    }

    #[inline(never)]
    pub(super) fn unique(&mut self, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let Some(mut outer) = inst.elements() else {
            return Ok(());
        };
        let mut i = 0usize;
        while let Some(a) = outer.next() {
            for (j, b) in outer.clone().enumerate() {
                if self.equal(a, b, path)? {
                    // Element indices of one document: far below `usize::MAX`.
                    let j = i.wrapping_add(1).wrapping_add(j);
                    return self.fail_with(
                        path,
                        "uniqueItems",
                        &[
                            Text("items "),
                            Dec(i as u64),
                            Text(" and "),
                            Dec(j as u64),
                            Text(" are equal (uniqueItems)"),
                        ],
                    );
                }
            }
            i = i.wrapping_add(1); // an element index
        }
        Ok(())
    }

    #[inline(never)]
    pub(super) fn items(
        &mut self,
        prefix: &[Op],
        rest: u16,
        (min, max): (usize, usize),
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        // Without `prefixItems` in the evaluator's set there are none (`eval_ops` refuses a
        // program with them), and without `items: false` the check for it is left out.
        let prefix: &[Op] = match K::SET.has(bit::PREFIX_ITEMS) {
            true => prefix,
            false => &[],
        };
        let Some(mut elements) = inst.elements() else {
            return Ok(());
        };
        let rest_is_false = rest != NONE && self.is_false(rest);
        if rest_is_false && !K::SET.has(bit::ITEMS_FALSE) {
            return Err(self.unsupported(path));
        }
        // A lone `type` needs no evaluation frame; look the `items` schema up once.
        let lone_type = |ops: &[Op]| match ops {
            [Op::Type(mask)] => Some(*mask),
            _ => None,
        };
        let rest_type = lone_type(self.prog.node(rest));
        let mut count = 0usize;
        let mut idx = 0usize;
        while let Some((item, open)) = elements.next_open() {
            count = idx.wrapping_add(1); // an element index: no wrap
            if count > max {
                return self.fail(path, "maxItems", &mut |m| {
                    m.write(&[Text("more than maxItems "), Dec(max as u64), Text(" items")])
                });
            }
            let child = match prefix.get(idx) {
                Some(Op::Child(n)) => *n,
                _ => rest,
            };
            if child == NONE {
                // Only `prefixItems`: the remaining elements are not looked at.
                return Ok(());
            }
            self.step(path)?;
            if idx >= prefix.len() && rest_is_false {
                let allowed = prefix.len();
                return self.fail(path, "items", &mut |m| {
                    m.write(&[
                        Text("item "),
                        Dec(idx as u64),
                        Text(" not allowed: at most "),
                        Dec(allowed as u64),
                        Text(" items"),
                    ])
                });
            }
            let p = path.index(idx);
            let child_type = match idx < prefix.len() {
                true => lone_type(self.prog.node(child)),
                false => rest_type,
            };
            match child_type {
                Some(mask) if type_matches(mask, item) => self.step(&p)?,
                _ => self.eval(child, item, &p)?,
            }
            if open {
                let end = self.end_of(item);
                elements.resume(item, end);
            }
            idx = idx.wrapping_add(1); // an element index
        }
        self.walked(inst, elements.end_addr());
        if count < min {
            return self.fail(path, "minItems", &mut |m| {
                m.write(&[
                    Dec(count as u64),
                    Text(" items, fewer than minItems "),
                    Dec(min as u64),
                ])
            });
        }
        Ok(())
    }

    #[inline(never)]
    pub(super) fn contains(
        &mut self,
        node: u16,
        min: u32,
        max: u32,
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        if min == 0 && max == u32::MAX {
            return Ok(());
        }
        let mut count = 0u32;
        let Some(elements) = inst.elements() else {
            return Ok(());
        };
        for (idx, item) in elements.enumerate() {
            self.step(path)?;
            let p = path.index(idx);
            if self.test(node, item, &p)? {
                count = count.saturating_add(1);
                if count > max {
                    return self.fail(path, "maxContains", &mut |m| {
                        m.write(&[
                            Text("more than maxContains "),
                            Dec(max as u64),
                            Text(" items match"),
                        ])
                    });
                }
                if count >= min && max == u32::MAX {
                    return Ok(());
                }
            }
        }
        if count < min {
            let keyword = if min == 1 { "contains" } else { "minContains" };
            return self.fail(path, keyword, &mut |m| {
                m.write(&[
                    Dec(count as u64),
                    Text(" items match \"contains\", need "),
                    Dec(min as u64),
                ])
            });
        }
        Ok(())
    }

    #[inline(never)]
    pub(super) fn unevaluated_items(
        &mut self,
        own: &[Op],
        u: u16,
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        for (idx, item) in inst.elements().into_iter().flatten().enumerate() {
            self.step(path)?;
            if !self.item_evaluated(own, true, inst, idx, item, path)? {
                if self.is_false(u) {
                    return self.fail(path, "unevaluatedItems", &mut |m| {
                        m.write(&[
                            Text("item "),
                            Dec(idx as u64),
                            Text(" not allowed (unevaluatedItems)"),
                        ])
                    });
                }
                let p = path.index(idx);
                self.eval(u, item, &p)?;
            }
        }
        Ok(())
    }

    /// Whether item `idx` of `inst` is evaluated by the keywords in `ops`.
    pub(super) fn item_evaluated(
        &mut self,
        ops: &[Op],
        own: bool,
        inst: Value<'_>,
        idx: usize,
        item: Value<'_>,
        path: &Path<'_>,
    ) -> Result<bool, Stop> {
        let mut i = 0;
        // Op addresses: see `skip` in mod.rs.
        while let Some(&op) = ops.get(i) {
            i = i.wrapping_add(1);
            let hit = match op {
                Op::Items { prefix, rest } => {
                    i = skip(i, prefix);
                    rest != NONE || idx < usize::from(prefix)
                }
                Op::Contains(c) => {
                    i = i.wrapping_add(2);
                    let p = path.index(idx);
                    self.test(c, item, &p)?
                }
                Op::UnevaluatedItems(_) => !own,
                _ => {
                    let (len, hit) = self.in_place(ops, i, op, inst, path, &mut |e, n, path| {
                        e.item_evaluated(e.prog.node(n), false, inst, idx, item, path)
                    })?;
                    i = i.wrapping_add(len); // at most two `u16` counts
                    hit
                }
            };
            if hit {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
