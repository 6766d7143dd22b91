//! The validator: runs a [`Program`] over a checked [`Value`] without building a document.
//!
//! Evaluation recurses once per subschema applied (bounded by
//! [`ValidationLimits::max_depth`]; a subschema applied last to the same instance, such as a
//! `$ref`, counts as a level but runs in the frame of the one that applies it, see
//! [`Eval::eval`]) and counts one step per subschema, array element, object
//! member and equality comparison (bounded by [`ValidationLimits::max_steps`]). Exceeding
//! either bound is an error, never a verdict. Inside `anyOf`, `oneOf`, `not`, `if`, `contains`
//! and `propertyNames` subschemas are evaluated quietly (no message is built); the first
//! failure outside them is reported with its instance path.

use core::cmp::Ordering;
use core::fmt::{self, Write};

use super::compile::format_index;
use super::error::{Message, Violation, ViolationKind};
use super::number::{cmp_lexemes, lexeme_is_integer, lexeme_is_multiple_of};
use super::pointer::{InstancePath, PointerBuf, POINTER_CAPACITY};
use super::program::{types, Op, Program, Str, NONE};
#[cfg(feature = "pattern")]
use super::regex;
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
    /// A member name: the string value, quotes and escapes included (decoded only when a
    /// violation's path is built).
    Key(Value<'a>),
    Index(usize),
}

impl<'a> Path<'a> {
    fn key(&'a self, k: Value<'a>) -> Path<'a> {
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
                    let decoded = k.as_str().map(|k| k.decode_into(&mut buf));
                    match decoded.unwrap_or(Ok("")) {
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
    // The violation is written straight into the result: one 120-byte slot, not two.
    let mut out = Ok(());
    let root = Path {
        parent: None,
        seg: Seg::Root,
    };
    let stopped = Eval {
        prog: *program,
        steps: 0,
        max_steps: limits.max_steps,
        depth: 0,
        max_depth: limits.max_depth,
        quiet: 0,
        out: &mut out,
        end_hint: None,
    }
    .eval(0, instance, &root)
    .is_err();
    if stopped && out.is_ok() {
        // Every stop outside quiet evaluation records its violation; never report "valid".
        out = Err(Violation {
            kind: ViolationKind::Invalid,
            keyword: "",
            path: InstancePath::default(),
            message: Message::new(),
        });
    }
    out
}

struct Eval<'p, 'o> {
    prog: Program<'p>,
    steps: u32,
    max_steps: u32,
    depth: u16,
    max_depth: u16,
    quiet: u32,
    /// The result: the first violation recorded outside quiet evaluation.
    out: &'o mut Result<(), Violation>,
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

/// A property name in quotes, as JSON text (the name's string value).
struct Quoted<'a>(Value<'a>);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.raw())
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

/// A member name as the validator compares it: its string value, the text between the
/// quotes, and whether that text has escapes (found with a plain byte loop: names are short).
struct Name<'a> {
    value: Value<'a>,
    body: &'a [u8],
    escaped: bool,
}

impl<'a> Name<'a> {
    /// A key whose escape flag the caller already knows (from stepping over it).
    fn known(value: Value<'a>, escaped: bool) -> Self {
        let raw = value.raw().as_bytes();
        let body = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
        Self {
            value,
            body,
            escaped,
        }
    }

    fn of(value: Value<'a>) -> Self {
        let raw = value.raw().as_bytes();
        let body = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
        Self {
            value,
            body,
            escaped: has_backslash(raw),
        }
    }
}

/// True when `text` holds a `\`: eight bytes at a time (the last word overlaps the one before
/// it), a byte at a time below eight bytes. Faster than `memchr` on names this short.
fn has_backslash(text: &[u8]) -> bool {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    if text.len() < 8 {
        #[allow(clippy::manual_contains)] // `contains` calls `memchr`
        return text.iter().any(|&b| b == b'\\');
    }
    let word = |at: usize| {
        text.get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .map_or(0, u64::from_le_bytes)
    };
    // Exact for "is there such a byte" (only the position of further ones can be wrong).
    let hit = |w: u64| {
        let x = w ^ (LO * u64::from(b'\\'));
        x.wrapping_sub(LO) & !x & HI != 0
    };
    let mut at = 0;
    while at + 8 < text.len() {
        if hit(word(at)) {
            return true;
        }
        at += 8;
    }
    hit(word(text.len() - 8))
}

/// Most bytes of JSON text one code point takes inside a string: a surrogate pair escape
/// (`\uD83D\uDE00`). A UTF-8 sequence takes 1 to 4, other escapes 2 or 6.
const MAX_TEXT_PER_CHAR: usize = 12;

/// True when the string `inst` has at least `n` code points, counting no further than needed.
fn has_min_chars(inst: Value<'_>, n: usize) -> bool {
    let text = inst.raw().len().saturating_sub(2);
    if text >= n.saturating_mul(MAX_TEXT_PER_CHAR) {
        return true;
    }
    if text < n {
        return false;
    }
    inst.as_str()
        .is_some_and(|s| s.chars().take(n).count() == n)
}

/// True when the string `inst` has at most `n` code points, counting no further than needed.
fn has_max_chars(inst: Value<'_>, n: usize) -> bool {
    let text = inst.raw().len().saturating_sub(2);
    if text <= n {
        return true;
    }
    inst.as_str()
        .is_some_and(|s| s.chars().take(n.saturating_add(1)).count() <= n)
}

fn str_eq(a: JsonStr<'_>, b: JsonStr<'_>) -> bool {
    if !a.has_escapes() && !b.has_escapes() {
        return a.raw() == b.raw();
    }
    a.chars().eq(b.chars())
}

/// The `Regex` block at `ops[i]`: its number of states, its automaton, and the index after it.
fn regex_block(ops: &[Op], i: usize) -> (u8, &[Op], usize) {
    match ops.get(i) {
        Some(&Op::Regex { len, states }) => {
            let end = i + 1 + usize::from(len);
            (states, ops.get(i + 1..end).unwrap_or_default(), end)
        }
        _ => (0, &[], i + 1),
    }
}

/// Searches `subject` with a stored automaton: `Some(found)`. `None` without the `pattern`
/// feature, where no program can hold one (the compiler refuses regular expressions and the
/// loader rejects them); callers then fail closed.
fn regex_search(states: u8, block: &[Op], subject: JsonStr<'_>) -> Option<bool> {
    #[cfg(feature = "pattern")]
    return Some(regex::is_match(states, block, subject.chars()));
    #[cfg(not(feature = "pattern"))]
    {
        let _ = (states, block, subject);
        None
    }
}

/// The failure message of a regular expression in a build without them (unreachable, see
/// [`regex_search`]).
const NO_REGEX: &str = "regular expressions are not built in (feature `pattern`)";

/// True when a `patternProperties` entry of `pats` (a `Members` pattern section) matches `key`.
fn pattern_hit(pats: &[Op], key: JsonStr<'_>) -> bool {
    let mut j = 0;
    while let Some(Op::PatternProp { .. }) = pats.get(j) {
        let (states, block, next) = regex_block(pats, j + 1);
        j = next;
        if regex_search(states, block, key) == Some(true) {
            return true;
        }
    }
    false
}

fn payload(ops: &[Op], i: usize, k: u16) -> &[Op] {
    ops.get(i..i + usize::from(k)).unwrap_or_default()
}

impl<'p> Eval<'p, '_> {
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
        message: &mut dyn FnMut(&mut Message) -> fmt::Result,
    ) {
        let mut m = Message::new();
        // A message too long for the buffer is truncated with a marker; that is fine.
        let _ = message(&mut m);
        *self.out = Err(Violation {
            kind,
            keyword,
            path: path.instance_path(),
            message: m,
        });
    }

    /// Records a violation (unless quiet) and stops. Out of line and cold: messages are built
    /// only on the failure path, in their own frames.
    #[inline(never)]
    #[cold]
    fn fail(
        &mut self,
        path: &Path<'_>,
        keyword: &'static str,
        message: &mut dyn FnMut(&mut Message) -> fmt::Result,
    ) -> Flow {
        if self.quiet == 0 {
            self.record(ViolationKind::Invalid, keyword, path, message);
        }
        Err(Stop::Invalid)
    }

    #[inline(never)]
    #[cold]
    fn abort(&mut self, path: &Path<'_>, kind: ViolationKind) -> Flow {
        let (steps, depth) = (self.max_steps, self.max_depth);
        let budget = kind == ViolationKind::BudgetExceeded;
        let keyword = if budget { "$budget" } else { "$depth" };
        self.record(kind, keyword, path, &mut |m| {
            if budget {
                write!(m, "budget of {steps} steps exceeded")
            } else {
                write!(m, "evaluation deeper than {depth} levels")
            }
        });
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
    ///
    /// A subschema that a node applies last to the same instance (`$ref`, the last of `allOf`,
    /// the taken `if` branch) is evaluated in this frame, not in a new one: it still counts as
    /// a level of [`ValidationLimits::max_depth`] and a step, but takes no stack.
    fn eval(&mut self, node: u16, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let depth = self.depth;
        let mut node = node;
        let r = loop {
            if let Err(e) = self.enter(path) {
                break Err(e);
            }
            match self.eval_ops(node, inst, path) {
                Ok(Some(next)) => node = next,
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.depth = depth;
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

    /// Runs the ops of `node` on `inst`; `Some(next)` when the last op hands the instance on
    /// to subschema `next` (see [`Eval::eval`]).
    fn eval_ops(
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
            i += 1;
            match op {
                Op::Type(mask) => {
                    if !type_matches(mask, inst) {
                        self.fail(path, "type", &mut |m| {
                            write!(m, "{} is not of type {}", Brief(inst), TypeNames(mask))
                        })?;
                    }
                }
                Op::False => {
                    self.fail(path, "false", &mut |m| {
                        m.write_str("not allowed (the schema is false)")
                    })?;
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
                Op::Ref(n) => {
                    if i >= ops.len() {
                        return Ok(Some(n));
                    }
                    self.eval(n, inst, path)?;
                }
                Op::AllOf(k) => {
                    let children = payload(ops, i, k);
                    i += usize::from(k);
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
                        self.fail(path, "not", &mut |m| {
                            write!(m, "{} must not match \"not\"", Brief(inst))
                        })?;
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
                        if i >= ops.len() {
                            return Ok(Some(branch));
                        }
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
                // An automaton is read by the `Pattern` before it.
                Op::Regex { len, .. } => i += usize::from(len),
                // Payloads are consumed by their keyword.
                Op::MinContains(_)
                | Op::MaxContains(_)
                | Op::Child(_)
                | Op::EnumValue(_)
                | Op::Name(_)
                | Op::Prop { .. }
                | Op::PatternProp { .. }
                | Op::ReChar(_)
                | Op::ReAny
                | Op::ReClass { .. }
                | Op::ReSplit(..)
                | Op::ReJmp(_)
                | Op::ReStart
                | Op::ReEnd
                | Op::ReMatch
                | Op::ReRange { .. } => {}
            }
        }
        Ok(None)
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
                    return self.fail(path, "const", &mut |m| {
                        write!(m, "{} is not the const {}", Brief(inst), Brief(c))
                    });
                }
            }
            Op::Enum(k) => {
                let values = payload(ops, i, k);
                if !self.in_enum(inst, values, path)? {
                    return self.fail(path, "enum", &mut |m| {
                        write!(m, "{} is not one of the enum values", Brief(inst))
                    });
                }
            }
            Op::MinLength(n) | Op::MaxLength(n) if kind == Kind::String => {
                let min = matches!(op, Op::MinLength(_));
                let n = usize::try_from(n).unwrap_or(usize::MAX);
                if min && !has_min_chars(inst, n) {
                    return self.fail(path, "minLength", &mut |m| {
                        write!(m, "{} is shorter than {n} characters", Brief(inst))
                    });
                }
                if !min && !has_max_chars(inst, n) {
                    return self.fail(path, "maxLength", &mut |m| {
                        write!(m, "{} is longer than {n} characters", Brief(inst))
                    });
                }
            }
            Op::Pattern(s) => {
                if let Some(subject) = inst.as_str() {
                    let (states, block, _) = regex_block(ops, i);
                    match regex_search(states, block, subject) {
                        Some(true) => {}
                        Some(false) => {
                            let source = self.text(s);
                            return self.fail(path, "pattern", &mut |m| {
                                write!(m, "{} does not match {source}", Brief(inst))
                            });
                        }
                        None => return self.fail(path, "pattern", &mut |m| m.write_str(NO_REGEX)),
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
                        return self.fail(path, "minProperties", &mut |m| {
                            write!(m, "{len} properties, fewer than minProperties {n}")
                        });
                    }
                    if !min && len > n {
                        return self.fail(path, "maxProperties", &mut |m| {
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
                                return self.fail(path, "dependentRequired", &mut |m| {
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
                        return self.fail(path, "minItems", &mut |m| {
                            write!(m, "{len} items, fewer than minItems {n}")
                        });
                    }
                    if !min && len > n {
                        return self.fail(path, "maxItems", &mut |m| {
                            write!(m, "more than maxItems {n} items")
                        });
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// True when `inst` equals one of the `EnumValue`s (JSON equality, one step each).
    fn in_enum(&mut self, inst: Value<'_>, values: &[Op], path: &Path<'_>) -> Result<bool, Stop> {
        let raw = inst.raw();
        // A string without escapes equals a string value exactly when their texts are equal,
        // or when the value has escapes and decodes to it.
        let plain_string = inst.kind() == Kind::String && !raw.as_bytes().contains(&b'\\');
        for v in values {
            let Op::EnumValue(s) = *v else { continue };
            let c = self.value(s);
            if plain_string {
                self.step(path)?;
                let text = c.raw();
                if text == raw {
                    return Ok(true);
                }
                if c.kind() != Kind::String || !text.as_bytes().contains(&b'\\') {
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

    /// Checks up to [`REQUIRED_BATCH`] `Required` ops in one pass over the members.
    #[inline(never)]
    fn required(&mut self, names: &[Op], inst: Value<'_>, path: &Path<'_>) -> Flow {
        let all: u64 = match names.len() {
            REQUIRED_BATCH => u64::MAX,
            n => (1u64 << n) - 1,
        };
        let mut found = 0u64;
        let Some(mut members) = inst.members() else {
            return Ok(());
        };
        while let Some((key, _)) = members.next_pair() {
            let key = Name::of(key);
            for (bit, op) in names.iter().enumerate() {
                if let Op::Required(s) = *op {
                    if found & (1 << bit) == 0 && self.key_is(&key, s) {
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
    fn key_is(&self, key: &Name<'_>, s: Str) -> bool {
        if key.escaped {
            return key.value.as_str().is_some_and(|k| k.eq_str(self.text(s)));
        }
        let raw = key.body;
        // Most names differ in length: compare that before touching the text.
        if raw.len() != usize::from(s.len) {
            return false;
        }
        let start = usize::from(s.off);
        let name = self
            .prog
            .text
            .as_bytes()
            .get(start..start + usize::from(s.len))
            .unwrap_or_default();
        raw.first() == name.first() && raw == name
    }

    #[inline(never)]
    fn number(&mut self, op: Op, s: Str, inst: Value<'_>, path: &Path<'_>) -> Flow {
        let limit_text = self.text(s);
        let (ok, keyword, rel) = if let Op::MultipleOf(_) = op {
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
        self.fail(path, keyword, &mut |m| {
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
                    return self.fail(path, "uniqueItems", &mut |m| {
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
        // A lone `type` needs no evaluation frame; look the `items` schema up once.
        let lone_type = |ops: &[Op]| match ops {
            [Op::Type(mask)] => Some(*mask),
            _ => None,
        };
        let rest_type = lone_type(self.prog.node(rest));
        let mut count = 0usize;
        let mut idx = 0usize;
        while let Some((item, open)) = elements.next_open() {
            count = idx + 1;
            if count > max {
                return self.fail(path, "maxItems", &mut |m| {
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
                return self.fail(path, "items", &mut |m| {
                    write!(m, "item {idx} not allowed: at most {allowed} items")
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
            idx += 1;
        }
        self.walked(inst, elements.end_addr());
        if count < min {
            return self.fail(path, "minItems", &mut |m| {
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
                    return self.fail(path, "maxContains", &mut |m| {
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
            return self.fail(path, keyword, &mut |m| {
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
        let mut hint = 0usize;
        let Some(mut members) = inst.members() else {
            return Ok(());
        };
        // Each member value is stepped onto without scanning it first; a container is walked
        // once by its subschema, which leaves its end address behind for `resume`.
        while let Some((key, escaped)) = members.next_key_escaped() {
            let Some((value, open)) = members.open_value() else {
                break;
            };
            let name = Name::known(key, escaped);
            self.step(path)?;
            let p = path.key(key);
            let mut matched = None;
            // Members usually come in the order of `properties`: start looking after the
            // entry that matched last.
            let mut k = hint;
            for _ in 0..props.len() {
                if k >= props.len() {
                    k = 0;
                }
                if let Some(&Op::Prop { name: s, node }) = props.get(k) {
                    if self.key_is(&name, s) {
                        matched = Some(s);
                        hint = k + 1;
                        self.member(node, "properties", key, value, path, &p)?;
                        break; // names in `properties` are unique
                    }
                }
                k += 1;
            }
            if found != all {
                // A required name usually shares its text with the `properties` entry.
                let bit = required
                    .iter()
                    .position(|op| matches!(op, Op::Required(s) if Some(*s) == matched))
                    .or_else(|| {
                        required.iter().enumerate().position(|(bit, op)| {
                            matches!(op, Op::Required(s) if found & (1 << bit) == 0 && self.key_is(&name, *s))
                        })
                    });
                if let Some(bit) = bit {
                    found |= 1 << bit;
                }
            }
            let mut matched = matched.is_some();
            let mut j = 0;
            while let Some(&Op::PatternProp { node, .. }) = pats.get(j) {
                let (states, block, next) = regex_block(pats, j + 1);
                j = next;
                let Some(text) = key.as_str() else { break };
                match regex_search(states, block, text) {
                    Some(true) => {
                        matched = true;
                        self.member(node, "patternProperties", key, value, path, &p)?;
                    }
                    Some(false) => {}
                    None => {
                        return self.fail(path, "patternProperties", &mut |m| m.write_str(NO_REGEX))
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
        self.fail(path, "required", &mut |m| {
            write!(m, "missing required property \"{name}\"")
        })
    }

    /// Applies `node` to one member; a `false` schema is reported on the object.
    fn member(
        &mut self,
        node: u16,
        keyword: &'static str,
        key: Value<'_>,
        value: Value<'_>,
        object: &Path<'_>,
        at: &Path<'_>,
    ) -> Flow {
        match self.prog.node(node) {
            [Op::False] => self.fail(object, keyword, &mut |m| {
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
                return self.fail(path, "propertyNames", &mut |m| {
                    write!(m, "name {} fails propertyNames", Quoted(key))
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
        self.fail(path, "anyOf", &mut |m| {
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
                        return self.fail(path, "oneOf", &mut |m| {
                            write!(m, "{} matches oneOf {f} and {idx}, not one", Brief(inst))
                        });
                    }
                    first = Some(idx);
                }
            }
        }
        if first.is_none() {
            return self.fail(path, "oneOf", &mut |m| {
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
        let Some(mut members) = inst.members() else {
            return Ok(());
        };
        while let Some((key, value)) = members.next_pair() {
            self.step(path)?;
            let Some(text) = key.as_str() else { break };
            if !self.prop_evaluated(own, true, inst, text, path)? {
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
                    return self.fail(path, "unevaluatedItems", &mut |m| {
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
                        || pattern_hit(pats, key)
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
            Op::Regex { len, .. } => Ok((usize::from(len), false)),
            _ => Ok((0, false)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::has_backslash;

    #[test]
    fn every_position_and_length() {
        for len in 0..40 {
            let plain = std::vec![b'a'; len];
            assert!(!has_backslash(&plain), "{len}");
            for at in 0..len {
                let mut t = plain.clone();
                t[at] = b'\\';
                assert!(has_backslash(&t), "{len} {at}");
                // Bytes one bit or one value away from a backslash are not one.
                t[at] = [0x5b, 0x5d, 0x5c ^ 0x80, 0x5c ^ 0x40][at % 4];
                assert!(!has_backslash(&t), "{len} {at}");
            }
        }
    }
}
