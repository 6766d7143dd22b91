//! The compiler: schema JSON in, [`Program`] out, in caller-provided storage.
//!
//! Subschemas are compiled breadth-first from a queue kept in the node table (each pending node
//! remembers its source span), so the compiler does not recurse and its stack use does not
//! depend on the schema. A subschema reached twice (through `$ref`) is compiled once: nodes are
//! identified by their byte offset in the schema text. `$defs` are compiled only when referenced.
//! JSON Pointers for errors are recomputed from the root by byte offset, only when an error is
//! reported.

mod keywords_array;
mod keywords_core;
mod keywords_object;
mod keywords_value;
mod locate;
mod refs;
mod sort;
mod state;
mod text;

pub use self::refs::{REF_CAPACITY, REF_WORK_LIMIT};
#[cfg(test)]
pub(crate) use self::sort::heap_sort;

use self::locate::pointer_at;
use self::state::{Compiler, Halt, Kw, Report, KEYWORDS, KW_COUNT};
use crate::json::{DecodeErrorKind, Kind, Limits, Value};
use crate::schema::error::CompileError;
use crate::schema::pointer::SchemaPointer;
use crate::schema::program::{find_loop, verify_structure, Op, Parts, Program, Scratch, NONE};
use crate::schema::SCHEMA_MAX_DEPTH;

/// Compiles `schema` into `parts`.
pub(crate) fn compile<'p>(
    schema: &[u8],
    parts: Parts<'p>,
    report: Report<'_>,
) -> Result<Program<'p>, CompileError> {
    let limits = Limits {
        max_depth: SCHEMA_MAX_DEPTH,
    };
    let root = match Value::parse_with(schema, limits) {
        Ok(v) => v,
        Err(e) if e.kind == DecodeErrorKind::TooDeep => {
            return fail(report, CompileError::TooDeep);
        }
        Err(e) => return fail(report, CompileError::NotJson(e)),
    };
    if u32::try_from(schema.len()).is_err() {
        return fail(
            report,
            CompileError::TooManyNodes {
                capacity: parts.nodes.len(),
            },
        );
    }
    let doc = core::str::from_utf8(schema).unwrap_or_default();
    let mut c = Compiler {
        doc,
        root,
        nodes: parts.nodes,
        scratch: parts.scratch,
        n_nodes: 0,
        ops: parts.ops,
        n_ops: 0,
        text: parts.text,
        n_text: 0,
        report,
        first: None,
        has_ids: false,
        work: core::cell::Cell::new(0),
    };
    c.has_ids = c
        .find_key("$id", |at| c.schema_with_key_at(at).is_some())
        .is_some();
    match c.run() {
        Ok(()) => {}
        Err(halt) => {
            let e = c.error(halt);
            // A problem was reported when found; a capacity or internal error is reported here.
            if let (Some(r), false) = (c.report.as_mut(), halt == Halt::Problem) {
                r(&e);
            }
            // The first problem wins over a halt that came after it (only when reporting does
            // compilation go on past a problem and can then run out of storage).
            return Err(c.first.take().unwrap_or(e));
        }
    }
    if let Some(first) = c.first {
        return Err(first);
    }
    // `finish` finds `$ref` loops; they are problems to report too.
    let mut report = c.report.take();
    let result = c.finish();
    if let (Err(e), Some(r)) = (&result, report.as_mut()) {
        r(e);
    }
    result
}

fn fail<T>(report: Report<'_>, e: CompileError) -> Result<T, CompileError> {
    if let Some(r) = report {
        r(&e);
    }
    Err(e)
}

impl<'s, 'p> Compiler<'s, 'p, '_> {
    fn run(&mut self) -> Result<(), Halt> {
        self.child(self.root)?;
        let mut next = 0;
        while next < self.n_nodes {
            self.compile_node(next)?;
            next = next.wrapping_add(1); // `next < n_nodes`
        }
        Ok(())
    }

    fn finish(self) -> Result<Program<'p>, CompileError> {
        let Compiler {
            nodes,
            scratch,
            ops,
            text,
            n_nodes,
            n_ops,
            n_text,
            root,
            doc,
            ..
        } = self;
        let nodes: &'p [u16] = nodes;
        let ops: &'p [Op] = ops;
        let text: &'p [u8] = text;
        let internal = CompileError::Internal;
        let program = Program {
            nodes: nodes.get(..n_nodes).ok_or(internal)?,
            ops: ops.get(..n_ops).ok_or(internal)?,
            text: text
                .get(..n_text)
                .and_then(|t| core::str::from_utf8(t).ok())
                .ok_or(internal)?,
        };
        if let Some(node) = find_loop(&program, scratch) {
            let start = scratch
                .get(usize::from(node))
                .map_or(0, |s| s.start as usize);
            return Err(CompileError::RefCycle {
                pointer: pointer_at(doc, root, start),
            });
        }
        verify_structure(&program).map_err(|_| internal)?;
        Ok(program)
    }

    /// A refused or invalid keyword: reported (and compilation goes on) in "collect" mode,
    /// otherwise kept as the error and compilation stops.
    fn problem(&mut self, e: CompileError) -> Result<(), Halt> {
        let collect = match self.report.as_mut() {
            Some(r) => {
                r(&e);
                true
            }
            None => false,
        };
        if self.first.is_none() {
            self.first = Some(e);
        }
        if collect {
            Ok(())
        } else {
            Err(Halt::Problem)
        }
    }

    /// The error a [`Halt`] stands for.
    fn error(&mut self, halt: Halt) -> CompileError {
        match halt {
            Halt::Problem => self.first.take().unwrap_or(CompileError::Internal),
            Halt::TooManyNodes => CompileError::TooManyNodes {
                capacity: self.nodes.len(),
            },
            Halt::TooManyOps => CompileError::TooManyOps {
                capacity: self.ops.len(),
            },
            Halt::TextFull => CompileError::TextFull {
                capacity: self.text.len(),
            },
            Halt::TooComplex => CompileError::TooComplex,
            Halt::Internal => CompileError::Internal,
        }
    }

    fn offset(&self, v: Value<'s>) -> usize {
        (v.raw().as_ptr() as usize).wrapping_sub(self.doc.as_ptr() as usize)
    }

    fn ptr(&self, at: Value<'s>) -> SchemaPointer {
        pointer_at(self.doc, self.root, self.offset(at))
    }

    fn refuse(&mut self, kw: Kw, at: Value<'s>, reason: &'static str) -> Result<(), Halt> {
        let pointer = self.ptr(at);
        self.problem(CompileError::Refused {
            keyword: kw.name(),
            pointer,
            reason,
        })
    }

    fn invalid(&mut self, kw: Kw, at: Value<'s>, reason: &'static str) -> Result<(), Halt> {
        let pointer = self.ptr(at);
        self.problem(CompileError::Invalid {
            keyword: kw.name(),
            pointer,
            reason,
        })
    }

    fn emit(&mut self, op: Op) -> Result<(), Halt> {
        let slot = self.ops.get_mut(self.n_ops).ok_or(Halt::TooManyOps)?;
        *slot = op;
        self.n_ops = self.n_ops.wrapping_add(1); // `n_ops < ops.len()` (the slot exists)
        Ok(())
    }

    fn count16(&self, n: usize) -> Result<u16, Halt> {
        u16::try_from(n).map_err(|_| Halt::TooManyOps)
    }

    /// The node for subschema `v`, queued for compilation if new.
    fn child(&mut self, v: Value<'s>) -> Result<u16, Halt> {
        let start = u32::try_from(self.offset(v)).unwrap_or(u32::MAX);
        let known = self
            .scratch
            .get(..self.n_nodes)
            .unwrap_or_default()
            .iter()
            .position(|s| s.start == start);
        if let Some(id) = known {
            return u16::try_from(id).map_err(|_| Halt::Internal);
        }
        let slot = self
            .scratch
            .get_mut(self.n_nodes)
            .ok_or(Halt::TooManyNodes)?;
        *slot = Scratch {
            start,
            len: u32::try_from(v.raw().len()).unwrap_or(u32::MAX),
            mark: 0,
        };
        let id = u16::try_from(self.n_nodes).map_err(|_| Halt::TooManyNodes)?;
        self.n_nodes = self.n_nodes.wrapping_add(1); // the scratch slot `n_nodes` exists
        Ok(id)
    }

    fn node_value(&self, id: usize) -> Value<'s> {
        let span = self.scratch.get(id).copied().unwrap_or(Scratch {
            start: 0,
            len: 0,
            mark: 0,
        });
        let start = span.start as usize;
        let raw = self
            .doc
            .get(start..start.saturating_add(span.len as usize))
            .unwrap_or("false");
        Value::from_checked(raw)
    }

    #[inline(never)]
    fn compile_node(&mut self, id: usize) -> Result<(), Halt> {
        let v = self.node_value(id);
        let start = u16::try_from(self.n_ops).map_err(|_| Halt::TooManyOps)?;
        if let Some(slot) = self.nodes.get_mut(id) {
            *slot = start;
        }
        match v.kind() {
            Kind::Bool => {
                if v.as_bool() == Some(false) {
                    self.emit(Op::False)?;
                }
                return Ok(());
            }
            Kind::Object => {}
            _ => {
                let pointer = self.ptr(v);
                return self.problem(CompileError::Invalid {
                    keyword: "(schema)",
                    pointer,
                    reason: "a schema must be an object or a boolean",
                });
            }
        }
        let mut kw: [Option<Value<'s>>; KW_COUNT] = [None; KW_COUNT];
        for (key, value) in v.members().into_iter().flatten() {
            let Some(k) = KEYWORDS.iter().position(|k| key.eq_str(k.name())) else {
                continue; // annotation or unknown keyword: ignored
            };
            match kw.get_mut(k) {
                Some(slot @ None) => *slot = Some(value),
                Some(Some(_)) => {
                    let name = KEYWORDS.get(k).copied().unwrap_or(Kw::Schema);
                    self.invalid(name, value, "keyword appears twice")?;
                }
                None => {}
            }
        }
        let get = |k: Kw| kw.get(k as usize).copied().flatten();

        self.core_keywords(&get)?;
        if let Some(t) = get(Kw::Type) {
            self.type_keyword(t)?;
        }
        if let Some(c) = get(Kw::Const) {
            let s = self.put_text(c.raw())?;
            self.emit(Op::Const(s))?;
        }
        if let Some(e) = get(Kw::Enum) {
            self.enum_keyword(e)?;
        }
        self.number_keywords(&get)?;
        self.string_keywords(&get)?;
        self.array_keywords(&get)?;
        self.object_keywords(&get)?;
        if let Some(r) = get(Kw::Ref) {
            if let Some(target) = self.resolve_ref(r, v)? {
                self.emit(Op::Ref(target))?;
            }
        }
        for (k, make) in [
            (Kw::AllOf, Op::AllOf as fn(u16) -> Op),
            (Kw::AnyOf, Op::AnyOf),
            (Kw::OneOf, Op::OneOf),
        ] {
            if let Some(list) = get(k) {
                self.schema_list(k, list, make)?;
            }
        }
        if let Some(n) = get(Kw::Not) {
            let node = self.child(n)?;
            self.emit(Op::Not(node))?;
        }
        if let Some(cond) = get(Kw::If) {
            let cond = self.child(cond)?;
            let then = get(Kw::Then).map(|t| self.child(t)).transpose()?;
            let otherwise = get(Kw::Else).map(|e| self.child(e)).transpose()?;
            self.emit(Op::If {
                cond,
                then: then.unwrap_or(NONE),
                otherwise: otherwise.unwrap_or(NONE),
            })?;
        }
        if let Some(u) = get(Kw::UnevaluatedItems) {
            let node = self.child(u)?;
            self.emit(Op::UnevaluatedItems(node))?;
        }
        if let Some(u) = get(Kw::UnevaluatedProperties) {
            let node = self.child(u)?;
            self.emit(Op::UnevaluatedProperties(node))?;
        }
        Ok(())
    }

    fn schema_list(&mut self, kw: Kw, list: Value<'s>, make: fn(u16) -> Op) -> Result<(), Halt> {
        let Some(items) = list.elements().filter(|e| e.clone().next().is_some()) else {
            return self.invalid(kw, list, "must be a non-empty array of schemas");
        };
        let n = self.count16(items.clone().count())?;
        self.emit(make(n))?;
        for item in items {
            let node = self.child(item)?;
            self.emit(Op::Child(node))?;
        }
        Ok(())
    }
}
