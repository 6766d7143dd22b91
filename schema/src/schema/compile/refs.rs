//! Same-document references: `$ref` resolved against `$id` base URIs, `$anchor`s and JSON
//! Pointer fragments, with the work bounded by [`REF_WORK_LIMIT`].

use super::state::{Compiler, Halt, Kw};
use crate::json::{JsonStr, Kind, Value};
use crate::schema::error::CompileError;
use crate::schema::uri;
use crate::schema::uri::Uri;

/// Longest `$ref` (and `$id`) accepted, in bytes once unescaped.
pub const REF_CAPACITY: usize = 256;

/// Most bytes the compiler scans to resolve `$ref`s, `$id`s and `$anchor`s (each resolution
/// rescans parts of the document instead of keeping a table): 64 MiB, far above what real
/// schemas need, and a bound on adversarial ones ([`CompileError::TooComplex`]).
pub const REF_WORK_LIMIT: u64 = 64 << 20;

/// Where a value sits relative to subschemas, for finding `$anchor`s.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pos {
    Schema,
    SchemaMap,
    SchemaArray,
    Data,
}

pub(super) fn child_pos(parent: Pos, key: Option<JsonStr<'_>>) -> Pos {
    match parent {
        Pos::SchemaMap | Pos::SchemaArray => Pos::Schema,
        Pos::Data => Pos::Data,
        Pos::Schema => {
            let Some(key) = key else {
                return Pos::Data;
            };
            let is = |names: &[&str]| names.iter().any(|n| key.eq_str(n));
            if is(&[
                "items",
                "contains",
                "additionalProperties",
                "propertyNames",
                "not",
                "if",
                "then",
                "else",
                "unevaluatedItems",
                "unevaluatedProperties",
                "contentSchema",
            ]) {
                Pos::Schema
            } else if is(&[
                "properties",
                "patternProperties",
                "$defs",
                "dependentSchemas",
            ]) {
                Pos::SchemaMap
            } else if is(&["allOf", "anyOf", "oneOf", "prefixItems"]) {
                Pos::SchemaArray
            } else {
                Pos::Data
            }
        }
    }
}

impl<'s> Compiler<'s, '_, '_> {
    /// Resolves the `$ref` at `at`, found in schema `node`, to a node of this document. Out of
    /// line: its 256-byte buffers exist only while a reference is resolved, not in the frame of
    /// every keyword's compilation.
    #[inline(never)]
    pub(super) fn resolve_ref(
        &mut self,
        at: Value<'s>,
        node: Value<'s>,
    ) -> Result<Option<u16>, Halt> {
        let Some(js) = at.as_str() else {
            self.invalid(Kw::Ref, at, "must be a string")?;
            return Ok(None);
        };
        let mut buf = [0u8; REF_CAPACITY];
        let Ok(reference) = js.decode_into(&mut buf) else {
            self.refuse(Kw::Ref, at, "reference longer than 256 bytes")?;
            return Ok(None);
        };
        const REMOTE: &str = "not a same-document reference (other documents are never fetched)";
        // The resource the reference names, and the fragment within it.
        let target;
        let (resource, fragment, resource_uri) = if self.has_ids {
            let resolved = self
                .base_at(self.offset(node))
                .and_then(|base| uri::resolve(base.as_str(), reference));
            let Some(resolved) = resolved else {
                self.refuse(Kw::Ref, at, "URI longer than 256 bytes")?;
                return Ok(None);
            };
            target = resolved;
            let (absolute, fragment) = match target.as_str().split_once('#') {
                Some((a, f)) => (a, f),
                None => (target.as_str(), ""),
            };
            match self.find_resource(absolute) {
                Some(r) => (r, fragment, Some(absolute)),
                None => {
                    self.refuse(Kw::Ref, at, REMOTE)?;
                    return Ok(None);
                }
            }
        } else {
            // No `$id` anywhere: only a bare fragment stays in the document.
            match reference.strip_prefix('#') {
                Some(fragment) => (self.root, fragment, None),
                None => {
                    self.refuse(Kw::Ref, at, REMOTE)?;
                    return Ok(None);
                }
            }
        };
        let mut fbuf = [0u8; REF_CAPACITY];
        let found = match percent_decode(fragment, &mut fbuf) {
            None => None,
            Some("") => Some(resource),
            Some(p) if p.starts_with('/') => resolve_pointer(resource, p),
            Some(name) => self.find_anchor(name, resource_uri),
        };
        if self.work.get() > REF_WORK_LIMIT {
            return Err(Halt::TooComplex);
        }
        match found {
            Some(t) => Ok(Some(self.child(t)?)),
            None => {
                let pointer = self.ptr(at);
                self.problem(CompileError::UnresolvedRef { pointer })?;
                Ok(None)
            }
        }
    }

    /// The base URI of the schema starting at byte `target`: every `$id` on the way from the
    /// root, resolved in turn (an empty base when there is none).
    pub(super) fn base_at(&self, target: usize) -> Option<Uri> {
        let mut base = Uri::new();
        let mut cur = self.root;
        let mut pos = Pos::Schema;
        loop {
            if pos == Pos::Schema {
                if let Some(id) = cur.get("$id").and_then(|v| v.as_str()) {
                    let mut buf = [0u8; REF_CAPACITY];
                    let id = id.decode_into(&mut buf).ok()?;
                    let id = id.strip_suffix('#').unwrap_or(id);
                    base = uri::resolve(base.as_str(), id)?;
                }
            }
            if self.offset(cur) == target {
                return Some(base);
            }
            self.charge(cur.raw().len());
            match cur.kind() {
                Kind::Object => {
                    let (k, v) = cur.members()?.find(|(_, v)| self.contains(*v, target))?;
                    pos = child_pos(pos, Some(k));
                    cur = v;
                }
                Kind::Array => {
                    cur = cur.elements()?.find(|e| self.contains(*e, target))?;
                    pos = child_pos(pos, None);
                }
                _ => return None,
            }
        }
    }

    /// The schema whose base URI (without fragment) is `absolute`: the root or a schema with an
    /// `$id` (an embedded resource).
    pub(super) fn find_resource(&self, absolute: &str) -> Option<Value<'s>> {
        let is = |v: Value<'s>| {
            self.base_at(self.offset(v))
                .is_some_and(|u| u.without_fragment() == absolute)
        };
        if is(self.root) {
            return Some(self.root);
        }
        let at = self.find_key("$id", |at| self.schema_with_key_at(at).is_some_and(is))?;
        self.schema_with_key_at(at)
    }

    /// The schema object declaring `"$anchor": name`, searched at schema positions only and,
    /// when `resource` is given, only in the resource with that URI.
    pub(super) fn find_anchor(&self, name: &str, resource: Option<&str>) -> Option<Value<'s>> {
        if !is_anchor_name_str(name) {
            return None;
        }
        let accept = |at: usize| {
            let Some(obj) = self.schema_with_key_at(at) else {
                return false;
            };
            let named = obj
                .get("$anchor")
                .and_then(|a| a.as_str())
                .is_some_and(|a| a.eq_str(name));
            named
                && resource.is_none_or(|r| {
                    self.base_at(self.offset(obj))
                        .is_some_and(|u| u.without_fragment() == r)
                })
        };
        let at = self.find_key("$anchor", accept)?;
        self.schema_with_key_at(at)
    }

    /// The byte offset of the first object key equal to `key` for which `accept` holds, found
    /// by a linear scan of the (checked) document: no stack, no recursion.
    pub(super) fn find_key(
        &self,
        key: &str,
        mut accept: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        let bytes = self.doc.as_bytes();
        self.charge(bytes.len());
        // `i` and `j` step at most 2 past a byte that exists, so they stay below
        // `bytes.len() + 3`: no wrap.
        let mut i = 0usize;
        while let Some(&b) = bytes.get(i) {
            if b != b'"' {
                i = i.wrapping_add(1);
                continue;
            }
            let start = i;
            i = i.wrapping_add(1);
            while let Some(&c) = bytes.get(i) {
                match c {
                    b'\\' => i = i.wrapping_add(2),
                    b'"' => break,
                    _ => i = i.wrapping_add(1),
                }
            }
            i = i.wrapping_add(1);
            let mut j = i;
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(j) {
                j = j.wrapping_add(1);
            }
            if bytes.get(j) != Some(&b':') {
                continue;
            }
            let text = Value::from_checked(self.doc.get(start..i).unwrap_or_default());
            if text.as_str().is_some_and(|k| k.eq_str(key)) && accept(start) {
                return Some(start);
            }
        }
        None
    }

    /// The object that has a member whose key starts at byte `key_at`, if that object sits at
    /// a schema position.
    pub(super) fn schema_with_key_at(&self, key_at: usize) -> Option<Value<'s>> {
        let mut cur = self.root;
        let mut pos = Pos::Schema;
        loop {
            if pos == Pos::Data {
                return None;
            }
            self.charge(cur.raw().len());
            match cur.kind() {
                Kind::Object => {
                    let mut members = cur.members()?;
                    let mut next = None;
                    while let Some((k, v)) = members.next_pair() {
                        if self.offset(k) == key_at {
                            return (pos == Pos::Schema).then_some(cur);
                        }
                        if self.contains(v, key_at) {
                            next = Some((k, v));
                            break;
                        }
                    }
                    let (k, v) = next?;
                    pos = child_pos(pos, k.as_str());
                    cur = v;
                }
                Kind::Array => {
                    cur = cur.elements()?.find(|e| self.contains(*e, key_at))?;
                    pos = child_pos(pos, None);
                }
                _ => return None,
            }
        }
    }

    /// Counts `n` bytes of scanning against [`REF_WORK_LIMIT`].
    pub(super) fn charge(&self, n: usize) {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        self.work.set(self.work.get().saturating_add(n));
    }

    pub(super) fn contains(&self, v: Value<'s>, at: usize) -> bool {
        let start = self.offset(v);
        start <= at && at.wrapping_sub(start) < v.raw().len() // `start <= at`: no wrap
    }
}

pub(super) fn is_anchor_name(s: JsonStr<'_>) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

pub(super) fn is_anchor_name_str(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// Decodes `%XX` escapes of a URI fragment into `buf`.
pub(super) fn percent_decode<'b>(s: &str, buf: &'b mut [u8; REF_CAPACITY]) -> Option<&'b str> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut n = 0;
    while let Some(&b) = bytes.get(i) {
        let out = if b == b'%' {
            // `i < bytes.len()`, so `i + 3` does not wrap; two hex digits are below 256.
            let hi = char::from(*bytes.get(i.wrapping_add(1))?).to_digit(16)?;
            let lo = char::from(*bytes.get(i.wrapping_add(2))?).to_digit(16)?;
            i = i.wrapping_add(3);
            u8::try_from(hi.wrapping_mul(16).wrapping_add(lo)).ok()?
        } else {
            i = i.wrapping_add(1);
            b
        };
        *buf.get_mut(n)? = out;
        n = n.wrapping_add(1); // `n < buf.len()`
    }
    core::str::from_utf8(buf.get(..n)?).ok()
}

/// Follows a JSON Pointer (RFC 6901) from `root`.
pub(super) fn resolve_pointer<'s>(root: Value<'s>, pointer: &str) -> Option<Value<'s>> {
    let mut cur = root;
    // A one-char array, not `split('/')`: the char searcher keeps a bounds check that can
    // panic.
    for token in pointer.split(['/']).skip(1) {
        cur = match cur.kind() {
            Kind::Object => cur.members()?.find(|(k, _)| token_eq(*k, token))?.1,
            Kind::Array => {
                let ok = !token.is_empty()
                    && token.bytes().all(|b| b.is_ascii_digit())
                    && (token == "0" || !token.starts_with('0'));
                if !ok {
                    return None;
                }
                cur.index(token.parse().ok()?)?
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// True when `key` equals the pointer token once `~1` and `~0` are unescaped.
pub(super) fn token_eq(key: JsonStr<'_>, token: &str) -> bool {
    let mut t = token.chars();
    let mut k = key.chars();
    loop {
        let tc = match t.next() {
            None => return k.next().is_none(),
            Some('~') => match t.next() {
                Some('0') => '~',
                Some('1') => '/',
                _ => return false,
            },
            Some(c) => c,
        };
        if k.next() != Some(tc) {
            return false;
        }
    }
}
