//! Object keywords: `required`, `minProperties`/`maxProperties`, `dependentRequired`,
//! `dependentSchemas` (and the refused `dependencies`), `propertyNames`, and the one
//! `Members` op of `properties`, `patternProperties` and `additionalProperties`.

#[cfg(not(feature = "pattern"))]
use super::keywords_value::NO_PATTERN;
use super::state::{Compiler, Halt, Kw};
use crate::json::{Kind, Value};
use crate::schema::program::{Op, NONE};
#[cfg(feature = "pattern")]
use crate::schema::regex;

impl<'s> Compiler<'s, '_, '_> {
    pub(super) fn object_keywords(
        &mut self,
        get: &dyn Fn(Kw) -> Option<Value<'s>>,
    ) -> Result<(), Halt> {
        if let Some(r) = get(Kw::Required) {
            let ok = r
                .elements()
                .is_some_and(|mut e| e.all(|n| n.kind() == Kind::String));
            if !ok {
                self.invalid(Kw::Required, r, "must be an array of strings")?;
            } else {
                for name in r
                    .elements()
                    .into_iter()
                    .flatten()
                    .filter_map(|n| n.as_str())
                {
                    let s = self.put_json_str(name)?;
                    self.emit(Op::Required(s))?;
                }
            }
        }
        for (kw, make) in [
            (Kw::MinProperties, Op::MinProperties as fn(u32) -> Op),
            (Kw::MaxProperties, Op::MaxProperties),
        ] {
            if let Some(v) = get(kw) {
                if let Some(n) = self.count(kw, v)? {
                    self.emit(make(n))?;
                }
            }
        }
        self.members(get)?;
        if let Some(p) = get(Kw::PropertyNames) {
            let node = self.child(p)?;
            self.emit(Op::PropertyNames(node))?;
        }
        if let Some(d) = get(Kw::DependentRequired) {
            let valid = d.members().is_some_and(|mut m| {
                m.all(|(_, names)| {
                    names
                        .elements()
                        .is_some_and(|mut e| e.all(|n| n.kind() == Kind::String))
                })
            });
            if !valid {
                self.invalid(
                    Kw::DependentRequired,
                    d,
                    "must be an object of arrays of strings",
                )?;
            } else {
                for (trigger, names) in d.members().into_iter().flatten() {
                    let trigger = self.put_json_str(trigger)?;
                    let list = names.elements();
                    let count = self.count16(list.clone().map_or(0, |l| l.count()))?;
                    self.emit(Op::DependentRequired { trigger, count })?;
                    for name in list.into_iter().flatten().filter_map(|n| n.as_str()) {
                        let s = self.put_json_str(name)?;
                        self.emit(Op::Name(s))?;
                    }
                }
            }
        }
        if let Some(d) = get(Kw::Dependencies) {
            self.dependencies(d)?;
        }
        if let Some(d) = get(Kw::DependentSchemas) {
            match d.members() {
                None => self.invalid(Kw::DependentSchemas, d, "must be an object of schemas")?,
                Some(members) => {
                    for (trigger, schema) in members {
                        let trigger = self.put_json_str(trigger)?;
                        let node = self.child(schema)?;
                        self.emit(Op::DependentSchema { trigger, node })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Draft 7 `dependencies`, kept for compatibility: an array value acts as
    /// `dependentRequired`, a schema value as `dependentSchemas`.
    pub(super) fn dependencies(&mut self, d: Value<'s>) -> Result<(), Halt> {
        let valid = d.members().is_some_and(|mut m| {
            m.all(|(_, v)| match v.kind() {
                Kind::Array => v
                    .elements()
                    .is_some_and(|mut e| e.all(|n| n.kind() == Kind::String)),
                Kind::Object | Kind::Bool => true,
                _ => false,
            })
        });
        if !valid {
            return self.invalid(
                Kw::Dependencies,
                d,
                "must be an object of string arrays or schemas",
            );
        }
        for (trigger, dep) in d.members().into_iter().flatten() {
            let trigger = self.put_json_str(trigger)?;
            if let Some(list) = dep.elements() {
                let count = self.count16(list.clone().count())?;
                self.emit(Op::DependentRequired { trigger, count })?;
                for name in list.filter_map(|n| n.as_str()) {
                    let s = self.put_json_str(name)?;
                    self.emit(Op::Name(s))?;
                }
            } else {
                let node = self.child(dep)?;
                self.emit(Op::DependentSchema { trigger, node })?;
            }
        }
        Ok(())
    }

    /// `properties`, `patternProperties` and `additionalProperties` as one `Members` op.
    pub(super) fn members(&mut self, get: &dyn Fn(Kw) -> Option<Value<'s>>) -> Result<(), Halt> {
        let props = get(Kw::Properties);
        let pats = get(Kw::PatternProperties);
        let additional = get(Kw::AdditionalProperties);
        if props.is_none() && pats.is_none() && additional.is_none() {
            return Ok(());
        }
        let mut ok = true;
        for (kw, map) in [(Kw::Properties, props), (Kw::PatternProperties, pats)] {
            let Some(map) = map else { continue };
            match map.members() {
                None => {
                    self.invalid(kw, map, "must be an object of schemas")?;
                    ok = false;
                }
                Some(members) => {
                    // Every member needs a node: refuse an object that cannot fit at once (the
                    // duplicate check below also needs one free node's scratch per member).
                    if members.clone().count() > self.nodes.len().saturating_sub(self.n_nodes) {
                        return Err(Halt::TooManyNodes);
                    }
                    if self.has_duplicate_keys(members)? {
                        self.invalid(kw, map, "a name appears twice")?;
                        ok = false;
                    }
                }
            }
        }
        // Check every pattern before emitting, so a refusal leaves no half-built op.
        #[cfg(feature = "pattern")]
        for (key, schema) in pats.and_then(|p| p.members()).into_iter().flatten() {
            let s = self.put_json_str(key)?;
            if self
                .check_regex(Kw::PatternProperties, schema, s)?
                .is_none()
            {
                ok = false;
            }
        }
        #[cfg(not(feature = "pattern"))]
        if let Some(p) = pats.filter(|p| p.members().is_some_and(|mut m| m.next().is_some())) {
            self.refuse(Kw::PatternProperties, p, NO_PATTERN)?;
            ok = false;
        }
        if !ok {
            return Ok(());
        }
        let n_props = props.and_then(|p| p.members()).map_or(0, |m| m.count());
        let additional = additional
            .map(|a| self.child(a))
            .transpose()?
            .unwrap_or(NONE);
        let props_count = self.count16(n_props)?;
        let members_at = self.n_ops;
        self.emit(Op::Members {
            props: props_count,
            patterns: 0,
            additional,
        })?;
        for (key, schema) in props.and_then(|p| p.members()).into_iter().flatten() {
            let name = self.put_json_str(key)?;
            let node = self.child(schema)?;
            self.emit(Op::Prop { name, node })?;
        }
        #[cfg(feature = "pattern")]
        {
            let section = self.n_ops;
            for (key, schema) in pats.and_then(|p| p.members()).into_iter().flatten() {
                let pattern = self.put_json_str(key)?;
                let node = self.child(schema)?;
                self.emit(Op::PatternProp { pattern, node })?;
                let states = regex::check(self.stored(pattern)).map_err(|_| Halt::Internal)?;
                self.emit_regex(pattern, states)?;
            }
            let patterns = self.count16(self.n_ops.wrapping_sub(section))?; // n_ops only grows
            if let Some(Op::Members { patterns: slot, .. }) = self.ops.get_mut(members_at) {
                *slot = patterns;
            }
        }
        #[cfg(not(feature = "pattern"))]
        let _ = members_at;
        Ok(())
    }
}
