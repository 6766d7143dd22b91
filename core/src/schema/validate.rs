//! The validator: runs a [`Program`] over a checked [`Value`] without building a document.
//!
//! Evaluation recurses once per subschema applied (bounded by
//! [`ValidationLimits::max_depth`]) and counts one step per subschema, array element, object
//! member and equality comparison (bounded by [`ValidationLimits::max_steps`]). Exceeding
//! either bound is an error, never a verdict. Inside `anyOf`, `oneOf`, `not`, `if`, `contains`
//! and `propertyNames` subschemas are evaluated quietly (no message is built); the first
//! failure outside them is reported with its instance path.

use core::cmp::Ordering;
use core::fmt::{self, Write};

use super::compile::format_index;
use super::error::{InstancePath, Message, PointerBuf, Violation, ViolationKind, POINTER_CAPACITY};
use super::number::{cmp_lexemes, lexeme_is_integer, Decimal};
use super::program::{types, Op, Program, Str, NONE};
use super::regex::Regex;
use super::ValidationLimits;
use crate::json::{JsonStr, Kind, Value};

/// Why evaluation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The instance is invalid (a violation was recorded unless quiet).
    Invalid,
    /// A limit was hit (a violation is always recorded).
    Abort,
}

type Flow = Result<(), Stop>;

/// Most `required` names checked in one pass (a bit each in a `u64`).
const REQUIRED_BATCH: usize = 64;

/// One step of the instance path, linked to its parent on the stack.
#[derive(Clone, Copy)]
struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Seg<'a>,
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Root,
    Key(JsonStr<'a>),
    Index(usize),
}

impl<'a> Path<'a> {
    fn key(&'a self, k: JsonStr<'a>) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Key(k),
        }
    }

    fn index(&'a self, i: usize) -> Path<'a> {
        Path {
            parent: Some(self),
            seg: Seg::Index(i),
        }
    }

    fn instance_path(&self) -> InstancePath {
        let mut p = PointerBuf::<POINTER_CAPACITY>::new();
        let mut cur = Some(self);
        while let Some(step) = cur {
            let fits = match step.seg {
                Seg::Root => true,
                Seg::Key(k) => {
                    let mut buf = [0u8; POINTER_CAPACITY];
                    match k.decode_into(&mut buf) {
                        Ok(s) => p.push_front(s),
                        Err(_) => {
                            p.truncate_front();
                            false
                        }
                    }
                }
                Seg::Index(i) => {
                    let mut buf = [0u8; 20];
                    p.push_front(format_index(i, &mut buf))
                }
            };
            if !fits {
                break;
            }
            cur = step.parent;
        }
        InstancePath(p)
    }
}

/// Validates `instance` against `program`.
pub(crate) fn run(
    program: &Program<'_>,
    instance: Value<'_>,
    limits: &ValidationLimits,
) -> Result<(), Violation> {
    let mut e = Eval {
        prog: *program,
        steps: 0,
        max_steps: limits.max_steps,
        depth: 0,
        max_depth: limits.max_depth,
        quiet: 0,
        out: None,
        end_hint: None,
    };
    let root = Path {
        parent: None,
        seg: Seg::Root,
    };
    match e.eval(0, instance, &root) {
        Ok(()) => Ok(()),
        Err(_) => Err(e.out.unwrap_or(Violation {
            kind: ViolationKind::Invalid,
            keyword: "",
            path: InstancePath::default(),
            message: Message::new(),
        })),
    }
}

struct Eval<'p> {
    prog: Program<'p>,
    steps: u32,
    max_steps: u32,
    depth: u16,
    max_depth: u16,
    quiet: u32,
    out: Option<Violation>,
    /// Start and end address of the container most recently walked to its end, so that the
    /// walk of its parent can step past it without scanning it again.
    end_hint: Option<(usize, usize)>,
}

/// A short rendering of an instance value for messages.
struct Brief<'a>(Value<'a>);

impl fmt::Display for Brief<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const MAX: usize = 20;
        match self.0.kind() {
            Kind::Array => f.write_str("an array"),
            Kind::Object => f.write_str("an object"),
            _ => {
                let raw = self.0.raw();
                if raw.len() <= MAX {
                    return f.write_str(raw);
                }
                let mut cut = MAX - 4;
                while !raw.is_char_boundary(cut) {
                    cut -= 1;
                }
                f.write_str(raw.get(..cut).unwrap_or_default())?;
                f.write_str("…")?;
                if self.0.kind() == Kind::String {
                    f.write_str("\"")?;
                }
                Ok(())
            }
        }
    }
}

/// The type names of a `type` mask, joined with " or ".
struct TypeNames(u8);

impl fmt::Display for TypeNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (name, bit) in types::NAMES {
            if self.0 & bit != 0 {
                if !first {
                    f.write_str(" or ")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

/// A property name in quotes, as JSON text.
struct Quoted<'a>(JsonStr<'a>);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.0.raw())
    }
}

fn type_matches(mask: u8, inst: Value<'_>) -> bool {
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

fn str_eq(a: JsonStr<'_>, b: JsonStr<'_>) -> bool {
    if !a.has_escapes() && !b.has_escapes() {
        return a.raw() == b.raw();
    }
    a.chars().eq(b.chars())
}

/// Compiles `source` and searches `subject` with it. Kept out of line: the compiled automaton
/// (about 1.6 KiB) must live only in this frame, not in every frame of the recursion.
#[inline(never)]
fn regex_matches(source: &str, subject: JsonStr<'_>) -> bool {
    Regex::compile(source).is_ok_and(|re| re.is_match(subject.chars()))
}

fn payload(ops: &[Op], i: usize, k: u16) -> &[Op] {
    ops.get(i..i + usize::from(k)).unwrap_or_default()
}

impl<'p> Eval<'p> {
    fn text(&self, s: Str) -> &'p str {
        self.prog.str(s)
    }

    fn value(&self, s: Str) -> Value<'p> {
        Value::from_checked(self.text(s))
    }

    #[inline(never)]
    #[cold]
    fn record(
        &mut self,
        kind: ViolationKind,
        keyword: &'static str,
        path: &Path<'_>,
    ) -> &mut Message {
        let v = self.out.insert(Violation {
            kind,
            keyword,
            path: path.instance_path(),
            message: Message::new(),
        });
        &mut v.message
    }

    /// Records a violation (unless quiet) and stops. Out of line and cold: messages are built
    /// only on the failure path, in their own frames.
    #[inline(never)]
    #[cold]
    fn fail(
        &mut self,
        path: &Path<'_>,
        keyword: &'static str,
        message: impl FnOnce(&mut Message) -> fmt::Result,
    ) -> Flow {
        if self.quiet == 0 {
            let m = self.record(ViolationKind::Invalid, keyword, path);
            // A message too long for the buffer is truncated with a marker; that is fine.
            let _ = message(m);
        }
        Err(Stop::Invalid)
    }

    #[inline(never)]
    #[cold]
    fn abort(&mut self, path: &Path<'_>, kind: ViolationKind) -> Flow {
        let (steps, depth) = (self.max_steps, self.max_depth);
        let budget = kind == ViolationKind::BudgetExceeded;
        let keyword = if budget { "$budget" } else { "$depth" };
        let m = self.record(kind, keyword, path);
        let _ = if budget {
            write!(m, "budget of {steps} steps exceeded")
        } else {
            write!(m, "evaluation deeper than {depth} levels")
        };
        Err(Stop::Abort)
    }

    fn step(&mut self, path: &Path<'_>) -> Flow {
        self.steps += 1;
        if self.steps > self.max_steps {
            return self.abort(path, ViolationKind::BudgetExceeded);
        }
        Ok(())
    }

    fn enter(&mut self, path: &Path<'_>) -> Flow {
        self.step(path)?;
        if self.depth >= self.max_depth {
            return self.abort(path, ViolationKind::TooDeep);
        }
        self.depth += 1;
        Ok(())
    }

    /// Applies node `node` to `inst`.
    fn eval(&mut self, node: u16, inst: Value<'_>, path: &Path<'_>) -> Flow {
        self.enter(path)?;
        let r = self.eval_ops(node, inst, path);
        self.depth -= 1;
        r
    }

    /// Applies `node` quietly: `Ok(true)` valid, `Ok(false)` invalid, `Err` a limit.
    fn test(&mut self, node: u16, inst: Value<'_>, path: &Path<'_>) -> Result<bool, Stop> {
        self.quiet += 1;
        let r = self.eval(node, inst, path);
        self.quiet -= 1;
        match r {
            Ok(()) => Ok(true),
            Err(Stop::Invalid) => Ok(false),
            Err(Stop::Abort) => Err(Stop::Abort),
        }
    }

    fn is_false(&self, node: u16) -> bool {
        matches!(self.prog.node(node), [Op::False])
    }

    fn eval_ops(&mut self, node: u16, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let ops = self.prog.node(node);
        let kind = inst.kind();
        let mut required: &[Op] = &[];
        // `minItems` / `maxItems` deferred to the `items` pass.
        let mut item_bounds = (0usize, usize::MAX);
        let mut i = 0;
        while let Some(&op) = ops.get(i) {
            i += 1;
            match op {
                Op::Type(mask) => {
                    if !type_matches(mask, inst) {
                        return self.fail(path, "type", |m| {
                            write!(m, "{} is not of type {}", Brief(inst), TypeNames(mask))
                        });
                    }
                }
                Op::False => {
                    return self.fail(path, "false", |m| {
                        m.write_str("not allowed (the schema is false)")
                    })
                }
                Op::Const(_)
                | Op::MinLength(_)
                | Op::MaxLength(_)
                | Op::Pattern(_)
                | Op::MinProperties(_)
                | Op::MaxProperties(_) => self.leaf(op, ops, i, inst, path)?,
                Op::Enum(k) | Op::DependentRequired { count: k, .. } => {
                    self.leaf(op, ops, i, inst, path)?;
                    i += usize::from(k);
                }
                Op::MultipleOf(s)
                | Op::Minimum(s)
                | Op::ExclusiveMinimum(s)
                | Op::Maximum(s)
                | Op::ExclusiveMaximum(s) => {
                    if kind == Kind::Number {
                        self.number(op, s, inst, path)?;
                    }
                }
                Op::MinItems(n) | Op::MaxItems(n) => {
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
                        self.leaf(op, ops, i, inst, path)?;
                    }
                }
                Op::UniqueItems => {
                    if kind == Kind::Array {
                        self.unique(inst, path)?;
                    }
                }
                Op::Items { prefix, rest } => {
                    let children = payload(ops, i, prefix);
                    i += usize::from(prefix);
                    if kind == Kind::Array {
                        self.items(children, rest, item_bounds, inst, path)?;
                    }
                }
                Op::Contains(c) => {
                    let (min, max) = match (ops.get(i), ops.get(i + 1)) {
                        (Some(Op::MinContains(min)), Some(Op::MaxContains(max))) => (*min, *max),
                        _ => (1, u32::MAX),
                    };
                    i += 2;
                    if kind == Kind::Array {
                        self.contains(c, min, max, inst, path)?;
                    }
                }
                Op::Required(_) => {
                    // A run of `required` names is checked in one pass over the members.
                    let start = i - 1;
                    while i - start < REQUIRED_BATCH && matches!(ops.get(i), Some(Op::Required(_)))
                    {
                        i += 1;
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
                        self.required(names, inst, path)?;
                    }
                }
                Op::Members {
                    props,
                    patterns,
                    additional,
                } => {
                    let p = payload(ops, i, props);
                    i += usize::from(props);
                    let pats = payload(ops, i, patterns);
                    i += usize::from(patterns);
                    if kind == Kind::Object {
                        self.members(p, pats, additional, required, inst, path)?;
                    }
                }
                Op::PropertyNames(c) => {
                    if kind == Kind::Object {
                        self.property_names(c, inst, path)?;
                    }
                }
                Op::DependentSchema { trigger, node } => {
                    if kind == Kind::Object && inst.get(self.text(trigger)).is_some() {
                        self.eval(node, inst, path)?;
                    }
                }
                Op::Ref(n) => self.eval(n, inst, path)?,
                Op::AllOf(k) => {
                    let children = payload(ops, i, k);
                    i += usize::from(k);
                    for c in children {
                        if let Op::Child(n) = *c {
                            self.eval(n, inst, path)?;
                        }
                    }
                }
                Op::AnyOf(k) => {
                    let children = payload(ops, i, k);
                    i += usize::from(k);
                    self.any_of(children, inst, path)?;
                }
                Op::OneOf(k) => {
                    let children = payload(ops, i, k);
                    i += usize::from(k);
                    self.one_of(children, inst, path)?;
                }
                Op::Not(n) => {
                    if self.test(n, inst, path)? {
                        return self.fail(path, "not", |m| {
                            write!(m, "{} must not match \"not\"", Brief(inst))
                        });
                    }
                }
                Op::If {
                    cond,
                    then,
                    otherwise,
                } => {
                    let branch = if self.test(cond, inst, path)? {
                        then
                    } else {
                        otherwise
                    };
                    if branch != NONE {
                        self.eval(branch, inst, path)?;
                    }
                }
                Op::UnevaluatedItems(u) => {
                    if kind == Kind::Array {
                        self.unevaluated_items(ops, u, inst, path)?;
                    }
                }
                Op::UnevaluatedProperties(u) => {
                    if kind == Kind::Object {
                        self.unevaluated_properties(ops, u, inst, path)?;
                    }
                }
                // Payloads are consumed by their keyword.
                Op::MinContains(_)
                | Op::MaxContains(_)
                | Op::Child(_)
                | Op::EnumValue(_)
                | Op::Name(_)
                | Op::Prop { .. }
                | Op::PatternProp { .. } => {}
            }
        }
        Ok(())
    }

    /// Keywords that do not apply subschemas, out of line so that the recursion's frames
    /// (`eval` → applicator → `eval`) stay small. `i` is the index after `op` (its payload).
    #[inline(never)]
    fn leaf(&mut self, op: Op, ops: &[Op], i: usize, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let kind = inst.kind();
        match op {
            Op::Const(s) => {
                let c = self.value(s);
                if !self.equal(inst, c, path)? {
                    return self.fail(path, "const", |m| {
                        write!(m, "{} is not the const {}", Brief(inst), Brief(c))
                    });
                }
            }
            Op::Enum(k) => {
                let values = payload(ops, i, k);
                let mut found = false;
                for v in values {
                    if let Op::EnumValue(s) = *v {
                        let c = self.value(s);
                        if self.equal(inst, c, path)? {
                            found = true;
                            break;
                        }
                    }
                }
                if !found {
                    return self.fail(path, "enum", |m| {
                        write!(m, "{} is not one of the enum values", Brief(inst))
                    });
                }
            }
            Op::MinLength(n) | Op::MaxLength(n) => {
                if let Some(s) = inst.as_str() {
                    let min = matches!(op, Op::MinLength(_));
                    let len = s.char_count();
                    let n = usize::try_from(n).unwrap_or(usize::MAX);
                    if min && len < n {
                        return self.fail(path, "minLength", |m| {
                            write!(m, "{} is shorter than {n} characters", Brief(inst))
                        });
                    }
                    if !min && len > n {
                        return self.fail(path, "maxLength", |m| {
                            write!(m, "{} is longer than {n} characters", Brief(inst))
                        });
                    }
                }
            }
            Op::Pattern(s) => {
                if let Some(subject) = inst.as_str() {
                    let source = self.text(s);
                    let matched = regex_matches(source, subject);
                    if !matched {
                        return self.fail(path, "pattern", |m| {
                            write!(m, "{} does not match {source}", Brief(inst))
                        });
                    }
                }
            }
            Op::MinProperties(n) | Op::MaxProperties(n) => {
                if let Some(members) = inst.members() {
                    let min = matches!(op, Op::MinProperties(_));
                    let limit = usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1);
                    let len = members.take(limit).count();
                    let n = usize::try_from(n).unwrap_or(usize::MAX);
                    if min && len < n {
                        return self.fail(path, "minProperties", |m| {
                            write!(m, "{len} properties, fewer than minProperties {n}")
                        });
                    }
                    if !min && len > n {
                        return self.fail(path, "maxProperties", |m| {
                            write!(m, "more than maxProperties {n} properties")
                        });
                    }
                }
            }
            Op::DependentRequired { trigger, count } => {
                let names = payload(ops, i, count);
                if kind == Kind::Object && inst.get(self.text(trigger)).is_some() {
                    for n in names {
                        if let Op::Name(s) = *n {
                            if inst.get(self.text(s)).is_none() {
                                let (t, name) = (self.text(trigger), self.text(s));
                                return self.fail(path, "dependentRequired", |m| {
                                    write!(m, "\"{t}\" requires property \"{name}\"")
                                });
                            }
                        }
                    }
                }
            }
            Op::MinItems(n) | Op::MaxItems(n) => {
                if let Some(items) = inst.elements() {
                    let min = matches!(op, Op::MinItems(_));
                    let limit = usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1);
                    let len = items.take(limit).count();
                    let n = usize::try_from(n).unwrap_or(usize::MAX);
                    if min && len < n {
                        return self.fail(path, "minItems", |m| {
                            write!(m, "{len} items, fewer than minItems {n}")
                        });
                    }
                    if !min && len > n {
                        return self.fail(path, "maxItems", |m| {
                            write!(m, "more than maxItems {n} items")
                        });
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Checks up to [`REQUIRED_BATCH`] `Required` ops in one pass over the members.
    #[inline(never)]
    fn required(&mut self, names: &[Op], inst: Value<'_>, path: &Path<'_>) -> Flow {
        let all: u64 = match names.len() {
            REQUIRED_BATCH => u64::MAX,
            n => (1u64 << n) - 1,
        };
        let mut found = 0u64;
        let Some(members) = inst.members() else {
            return Ok(());
        };
        for (key, _) in members {
            for (bit, op) in names.iter().enumerate() {
                if let Op::Required(s) = *op {
                    if found & (1 << bit) == 0 && self.key_is(key, s) {
                        found |= 1 << bit;
                        break;
                    }
                }
            }
            if found == all {
                return Ok(());
            }
        }
        self.missing(names, found, path)
    }

    /// True when the member name `key` equals the program string `s`.
    #[inline]
    fn key_is(&self, key: JsonStr<'_>, s: Str) -> bool {
        let start = usize::from(s.off);
        let name = self
            .prog
            .text
            .as_bytes()
            .get(start..start + usize::from(s.len))
            .unwrap_or_default();
        if key.has_escapes() {
            return key.eq_str(self.text(s));
        }
        let raw = key.raw().as_bytes();
        raw.len() == name.len() && raw.first() == name.first() && raw == name
    }

    #[inline(never)]
    fn number(&mut self, op: Op, s: Str, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let limit_text = self.text(s);
        let ord = cmp_lexemes(inst.raw(), limit_text);
        let (ok, keyword, rel) = match op {
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
            Op::ExclusiveMaximum(_) => (
                ord == Ordering::Less,
                "exclusiveMaximum",
                "not less than exclusiveMaximum",
            ),
            _ => (
                Decimal::parse_checked(inst.raw())
                    .is_multiple_of(&Decimal::parse_checked(limit_text))
                    .unwrap_or(false),
                "multipleOf",
                "not a multiple of",
            ),
        };
        if ok {
            return Ok(());
        }
        self.fail(path, keyword, |m| {
            write!(m, "{} is {rel} {limit_text}", Brief(inst))
        })
    }

    /// JSON equality: numbers by value, strings after unescaping, objects in any order.
    fn equal(&mut self, a: Value<'_>, b: Value<'_>, path: &Path<'_>) -> Result<bool, Stop> {
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
            (Kind::Array, Kind::Array) => {
                self.enter(path)?;
                let r = self.arrays_equal(a, b, path);
                self.depth -= 1;
                r?
            }
            (Kind::Object, Kind::Object) => {
                self.enter(path)?;
                let r = self.objects_equal(a, b, path);
                self.depth -= 1;
                r?
            }
            _ => false,
        })
    }

    fn arrays_equal(&mut self, a: Value<'_>, b: Value<'_>, path: &Path<'_>) -> Result<bool, Stop> {
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

    fn objects_equal(&mut self, a: Value<'_>, b: Value<'_>, path: &Path<'_>) -> Result<bool, Stop> {
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

    #[inline(never)]
    fn unique(&mut self, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let Some(mut outer) = inst.elements() else {
            return Ok(());
        };
        let mut i = 0usize;
        while let Some(a) = outer.next() {
            for (j, b) in outer.clone().enumerate() {
                if self.equal(a, b, path)? {
                    let j = i + 1 + j;
                    return self.fail(path, "uniqueItems", |m| {
                        write!(m, "items {i} and {j} are equal (uniqueItems)")
                    });
                }
            }
            i += 1;
        }
        Ok(())
    }

    #[inline(never)]
    fn items(
        &mut self,
        prefix: &[Op],
        rest: u16,
        (min, max): (usize, usize),
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        let Some(mut elements) = inst.elements() else {
            return Ok(());
        };
        let rest_is_false = rest != NONE && self.is_false(rest);
        let mut count = 0usize;
        let mut idx = 0usize;
        while let Some((item, open)) = elements.next_open() {
            count = idx + 1;
            if count > max {
                return self.fail(path, "maxItems", |m| {
                    write!(m, "more than maxItems {max} items")
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
                return self.fail(path, "items", |m| {
                    write!(m, "item {idx} not allowed: at most {allowed} items")
                });
            }
            let p = path.index(idx);
            match self.prog.node(child) {
                [Op::Type(mask)] if type_matches(*mask, item) => self.step(&p)?,
                _ => self.eval(child, item, &p)?,
            }
            if open {
                let end = self.end_of(item);
                elements.resume(item, end);
            }
            idx += 1;
        }
        self.walked(inst, elements.end_addr());
        if count < min {
            return self.fail(path, "minItems", |m| {
                write!(m, "{count} items, fewer than minItems {min}")
            });
        }
        Ok(())
    }

    #[inline(never)]
    fn contains(
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
                count += 1;
                if count > max {
                    return self.fail(path, "maxContains", |m| {
                        write!(m, "more than maxContains {max} items match")
                    });
                }
                if count >= min && max == u32::MAX {
                    return Ok(());
                }
            }
        }
        if count < min {
            let keyword = if min == 1 { "contains" } else { "minContains" };
            return self.fail(path, keyword, |m| {
                write!(m, "{count} items match \"contains\", need {min}")
            });
        }
        Ok(())
    }

    /// `properties`, `patternProperties`, `additionalProperties`, and the `required` names
    /// deferred to this pass, in one walk over the members.
    #[inline(never)]
    fn members(
        &mut self,
        props: &[Op],
        pats: &[Op],
        additional: u16,
        required: &[Op],
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        let all: u64 = match required.len() {
            REQUIRED_BATCH => u64::MAX,
            n => (1u64 << n) - 1,
        };
        let mut found = 0u64;
        let Some(mut members) = inst.members() else {
            return Ok(());
        };
        // Each member value is stepped onto without scanning it first; a container is walked
        // once by its subschema, which leaves its end address behind for `resume`.
        while let Some(key) = members.next_key() {
            let Some(key) = key.as_str() else {
                break;
            };
            let Some((value, open)) = members.open_value() else {
                break;
            };
            self.step(path)?;
            let p = path.key(key);
            let mut matched = None;
            for prop in props {
                if let Op::Prop { name, node } = *prop {
                    if self.key_is(key, name) {
                        matched = Some(name);
                        self.member(node, "properties", key, value, path, &p)?;
                        break; // names in `properties` are unique
                    }
                }
            }
            if found != all {
                // A required name usually shares its text with the `properties` entry.
                let bit = required
                    .iter()
                    .position(|op| matches!(op, Op::Required(s) if Some(*s) == matched))
                    .or_else(|| {
                        required.iter().enumerate().position(|(bit, op)| {
                            matches!(op, Op::Required(s) if found & (1 << bit) == 0 && self.key_is(key, *s))
                        })
                    });
                if let Some(bit) = bit {
                    found |= 1 << bit;
                }
            }
            let mut matched = matched.is_some();
            for pat in pats {
                if let Op::PatternProp { pattern, node } = *pat {
                    let hit = regex_matches(self.text(pattern), key);
                    if hit {
                        matched = true;
                        self.member(node, "patternProperties", key, value, path, &p)?;
                    }
                }
            }
            if !matched && additional != NONE {
                self.member(additional, "additionalProperties", key, value, path, &p)?;
            }
            if open {
                let end = self.end_of(value);
                members.resume(value, end);
            }
        }
        self.walked(inst, members.end_addr());
        if found != all {
            return self.missing(required, found, path);
        }
        Ok(())
    }

    /// Remembers that the container `value` was walked to its end (address just past it).
    fn walked(&mut self, value: Value<'_>, end: Option<usize>) {
        if let Some(end) = end {
            self.end_hint = Some((value.raw().as_ptr() as usize, end));
        }
    }

    /// The end address of `value` if the last complete walk was of this container.
    fn end_of(&self, value: Value<'_>) -> Option<usize> {
        let (start, end) = self.end_hint?;
        (start == value.raw().as_ptr() as usize).then_some(end)
    }

    fn missing(&mut self, names: &[Op], found: u64, path: &Path<'_>) -> Flow {
        let missing = (!found).trailing_zeros() as usize;
        let name = match names.get(missing) {
            Some(Op::Required(s)) => self.text(*s),
            _ => "",
        };
        self.fail(path, "required", |m| {
            write!(m, "missing required property \"{name}\"")
        })
    }

    /// Applies `node` to one member; a `false` schema is reported on the object.
    fn member(
        &mut self,
        node: u16,
        keyword: &'static str,
        key: JsonStr<'_>,
        value: Value<'_>,
        object: &Path<'_>,
        at: &Path<'_>,
    ) -> Flow {
        match self.prog.node(node) {
            [Op::False] => self.fail(object, keyword, |m| {
                write!(m, "property {} not allowed ({keyword})", Quoted(key))
            }),
            // A lone `type` that holds needs no evaluation frame (a failing one is reported
            // by `eval` as usual).
            [Op::Type(mask)] if type_matches(*mask, value) => self.step(at),
            _ => self.eval(node, value, at),
        }
    }

    #[inline(never)]
    fn property_names(&mut self, node: u16, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let Some(mut members) = inst.members() else {
            return Ok(());
        };
        while let Some((key, _)) = members.next_pair() {
            self.step(path)?;
            if !self.test(node, key, path)? {
                let name = key.as_str();
                return self.fail(path, "propertyNames", |m| match name {
                    Some(k) => write!(m, "name {} fails propertyNames", Quoted(k)),
                    None => m.write_str("a name fails propertyNames"),
                });
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn any_of(&mut self, children: &[Op], inst: Value<'_>, path: &Path<'_>) -> Flow {
        for c in children {
            if let Op::Child(n) = *c {
                if self.test(n, inst, path)? {
                    return Ok(());
                }
            }
        }
        self.fail(path, "anyOf", |m| {
            write!(m, "{} matches no schema of anyOf", Brief(inst))
        })
    }

    #[inline(never)]
    fn one_of(&mut self, children: &[Op], inst: Value<'_>, path: &Path<'_>) -> Flow {
        let mut first = None;
        for (idx, c) in children.iter().enumerate() {
            if let Op::Child(n) = *c {
                if self.test(n, inst, path)? {
                    if let Some(f) = first {
                        return self.fail(path, "oneOf", |m| {
                            write!(m, "{} matches oneOf {f} and {idx}, not one", Brief(inst))
                        });
                    }
                    first = Some(idx);
                }
            }
        }
        if first.is_none() {
            return self.fail(path, "oneOf", |m| {
                write!(m, "{} matches no schema of oneOf", Brief(inst))
            });
        }
        Ok(())
    }

    #[inline(never)]
    fn unevaluated_properties(
        &mut self,
        own: &[Op],
        u: u16,
        inst: Value<'_>,
        path: &Path<'_>,
    ) -> Flow {
        for (key, value) in inst.members().into_iter().flatten() {
            self.step(path)?;
            if !self.prop_evaluated(own, true, inst, key, path)? {
                let p = path.key(key);
                self.member(u, "unevaluatedProperties", key, value, path, &p)?;
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn unevaluated_items(&mut self, own: &[Op], u: u16, inst: Value<'_>, path: &Path<'_>) -> Flow {
        for (idx, item) in inst.elements().into_iter().flatten().enumerate() {
            self.step(path)?;
            if !self.item_evaluated(own, true, inst, idx, item, path)? {
                if self.is_false(u) {
                    return self.fail(path, "unevaluatedItems", |m| {
                        write!(m, "item {idx} not allowed (unevaluatedItems)")
                    });
                }
                let p = path.index(idx);
                self.eval(u, item, &p)?;
            }
        }
        Ok(())
    }

    /// Whether property `key` of `inst` is evaluated by the keywords in `ops` (successful
    /// in-place subschemas included), not counting `ops`' own `unevaluatedProperties` when
    /// `own` is true.
    fn prop_evaluated(
        &mut self,
        ops: &[Op],
        own: bool,
        inst: Value<'_>,
        key: JsonStr<'_>,
        path: &Path<'_>,
    ) -> Result<bool, Stop> {
        let mut i = 0;
        while let Some(&op) = ops.get(i) {
            i += 1;
            let hit = match op {
                Op::Members {
                    props,
                    patterns,
                    additional,
                } => {
                    let p = payload(ops, i, props);
                    i += usize::from(props);
                    let pats = payload(ops, i, patterns);
                    i += usize::from(patterns);
                    additional != NONE
                        || p.iter().any(|op| {
                            matches!(op, Op::Prop { name, .. } if key.eq_str(self.text(*name)))
                        })
                        || pats.iter().any(|op| match op {
                            Op::PatternProp { pattern, .. } => {
                                regex_matches(self.text(*pattern), key)
                            }
                            _ => false,
                        })
                }
                Op::UnevaluatedProperties(_) => !own,
                _ => {
                    let (skip, hit) =
                        self.in_place(ops, i, op, inst, path, &mut |e, n, path| {
                            e.prop_evaluated(e.prog.node(n), false, inst, key, path)
                        })?;
                    i += skip;
                    hit
                }
            };
            if hit {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether item `idx` of `inst` is evaluated by the keywords in `ops`.
    fn item_evaluated(
        &mut self,
        ops: &[Op],
        own: bool,
        inst: Value<'_>,
        idx: usize,
        item: Value<'_>,
        path: &Path<'_>,
    ) -> Result<bool, Stop> {
        let mut i = 0;
        while let Some(&op) = ops.get(i) {
            i += 1;
            let hit = match op {
                Op::Items { prefix, rest } => {
                    i += usize::from(prefix);
                    rest != NONE || idx < usize::from(prefix)
                }
                Op::Contains(c) => {
                    i += 2;
                    let p = path.index(idx);
                    self.test(c, item, &p)?
                }
                Op::UnevaluatedItems(_) => !own,
                _ => {
                    let (skip, hit) =
                        self.in_place(ops, i, op, inst, path, &mut |e, n, path| {
                            e.item_evaluated(e.prog.node(n), false, inst, idx, item, path)
                        })?;
                    i += skip;
                    hit
                }
            };
            if hit {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// For annotation collection: applies `query` to the in-place subschemas of `op` whose
    /// annotations survive (valid `anyOf`/`oneOf` branches, the taken `if` branch, triggered
    /// `dependentSchemas`, `$ref`, `allOf`). Returns (payload ops to skip, any hit).
    fn in_place(
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
            e.depth -= 1;
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
            } => Ok((usize::from(props) + usize::from(patterns), false)),
            Op::Contains(_) => Ok((2, false)),
            _ => Ok((0, false)),
        }
    }
}
