//! Array keywords: `prefixItems`, `items`, `contains` with its bounds, `minItems`, `maxItems`
//! and `uniqueItems`.

use super::state::{Compiler, Halt, Kw};
use crate::json::Value;
use crate::schema::program::{Op, NONE};

impl<'s> Compiler<'s, '_, '_> {
    pub(super) fn array_keywords(
        &mut self,
        get: &dyn Fn(Kw) -> Option<Value<'s>>,
    ) -> Result<(), Halt> {
        for (kw, make) in [
            (Kw::MinItems, Op::MinItems as fn(u32) -> Op),
            (Kw::MaxItems, Op::MaxItems),
        ] {
            if let Some(v) = get(kw) {
                if let Some(n) = self.count(kw, v)? {
                    self.emit(make(n))?;
                }
            }
        }
        if let Some(u) = get(Kw::UniqueItems) {
            match u.as_bool() {
                Some(true) => self.emit(Op::UniqueItems)?,
                Some(false) => {}
                None => self.invalid(Kw::UniqueItems, u, "must be a boolean")?,
            }
        }
        let prefix = get(Kw::PrefixItems);
        let rest = get(Kw::Items);
        if prefix.is_some() || rest.is_some() {
            let mut n = 0usize;
            if let Some(p) = prefix {
                match p.elements() {
                    Some(items) if items.clone().next().is_some() => n = items.count(),
                    _ => {
                        return self.invalid(
                            Kw::PrefixItems,
                            p,
                            "must be a non-empty array of schemas",
                        )
                    }
                }
            }
            let rest = rest.map(|r| self.child(r)).transpose()?.unwrap_or(NONE);
            let prefix_count = self.count16(n)?;
            self.emit(Op::Items {
                prefix: prefix_count,
                rest,
            })?;
            for item in prefix.and_then(|p| p.elements()).into_iter().flatten() {
                let node = self.child(item)?;
                self.emit(Op::Child(node))?;
            }
        }
        if let Some(c) = get(Kw::Contains) {
            let min = match get(Kw::MinContains) {
                Some(v) => self.count(Kw::MinContains, v)?.unwrap_or(1),
                None => 1,
            };
            let max = match get(Kw::MaxContains) {
                Some(v) => self.count(Kw::MaxContains, v)?.unwrap_or(u32::MAX),
                None => u32::MAX,
            };
            let node = self.child(c)?;
            self.emit(Op::Contains(node))?;
            self.emit(Op::MinContains(min))?;
            self.emit(Op::MaxContains(max))?;
        } else {
            for kw in [Kw::MinContains, Kw::MaxContains] {
                if let Some(v) = get(kw) {
                    self.count(kw, v)?;
                }
            }
        }
        Ok(())
    }
}
