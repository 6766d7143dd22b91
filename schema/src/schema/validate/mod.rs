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
//!
//! The evaluator is generic over the [`Keywords`] it is built for (see
//! `schema/keywords.rs`): [`Program::validate`] runs it built for every keyword, and
//! [`Program::validate_for`] for a set known at compile time, without the code of the others.
//!
//! This file holds the evaluator: the instance path, the limits (steps, depth) and failure
//! recording; the dispatch loop over a node's ops is in `dispatch.rs`, each keyword family in
//! its own file.

mod applicators;
mod array;
mod dispatch;
mod display;
mod numeric;
mod object;
mod string;
mod types_const_enum;

use core::marker::PhantomData;

use crate::json::EncodeError;
use crate::json::Piece::{self, Dec, Text};
use crate::json::Value;
use crate::schema::error::{Message, Violation, ViolationKind};
use crate::schema::keywords::{Keywords, REQUIRED_BATCH};
use crate::schema::pointer::{format_index, InstancePath, PointerBuf, POINTER_CAPACITY};
use crate::schema::program::{skip, Op, Program, Str};
use crate::schema::ValidationLimits;

/// Why evaluation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The instance is invalid (a violation was recorded unless quiet).
    Invalid,
    /// A limit was hit (a violation is always recorded).
    Abort,
}

type Flow = Result<(), Stop>;

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

/// Validates `instance` against `program` with the evaluator built for `K`.
pub(crate) fn run<K: Keywords>(
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
    let stopped = Eval::<K> {
        prog: *program,
        steps: 0,
        max_steps: limits.max_steps,
        depth: 0,
        max_depth: limits.max_depth,
        quiet: 0,
        out: &mut out,
        end_hint: None,
        keywords: PhantomData,
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

struct Eval<'p, 'o, K> {
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
    /// The keywords the evaluator is built for.
    keywords: PhantomData<K>,
}

fn payload(ops: &[Op], i: usize, k: u16) -> &[Op] {
    ops.get(i..skip(i, k)).unwrap_or_default()
}

/// The words of a count keyword pair's messages: "2 items, fewer than minItems 3", "more than
/// maxItems 3 items".
pub(super) struct CountWords {
    min: &'static str,
    fewer: &'static str,
    max: &'static str,
    more: &'static str,
    unit: &'static str,
}

/// `minItems` / `maxItems`.
pub(super) const ITEMS: CountWords = CountWords {
    min: "minItems",
    fewer: " items, fewer than minItems ",
    max: "maxItems",
    more: "more than maxItems ",
    unit: " items",
};

/// `minProperties` / `maxProperties`.
pub(super) const PROPERTIES: CountWords = CountWords {
    min: "minProperties",
    fewer: " properties, fewer than minProperties ",
    max: "maxProperties",
    more: "more than maxProperties ",
    unit: " properties",
};

/// How many items or members to count for a bound of `n`: one past it is enough to tell.
pub(super) fn count_limit(n: u32) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1)
}

impl<'p, K: Keywords> Eval<'p, '_, K> {
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
        message: &mut dyn FnMut(&mut Message) -> Result<(), EncodeError>,
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
        message: &mut dyn FnMut(&mut Message) -> Result<(), EncodeError>,
    ) -> Flow {
        if self.quiet == 0 {
            self.record(ViolationKind::Invalid, keyword, path, message);
        }
        Err(Stop::Invalid)
    }

    /// `minItems`/`maxItems` or `minProperties`/`maxProperties` (`min` tells which) of `n`
    /// against `len`, the count of the instance's items or members (taken up to
    /// [`count_limit`]`(n)`).
    fn count_bound(
        &mut self,
        path: &Path<'_>,
        min: bool,
        n: u32,
        len: usize,
        words: &CountWords,
    ) -> Flow {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        if min && len < n {
            return self.fail_with(
                path,
                words.min,
                &[Dec(len as u64), Text(words.fewer), Dec(n as u64)],
            );
        }
        if !min && len > n {
            return self.fail_with(
                path,
                words.max,
                &[Text(words.more), Dec(n as u64), Text(words.unit)],
            );
        }
        Ok(())
    }

    /// [`Eval::fail`] with the message in pieces, for the keyword checks that do not recurse
    /// (their frames are leaves, so the pieces cost no stack per nesting level): one closure
    /// serves all their messages.
    #[inline(never)]
    #[cold]
    fn fail_with(&mut self, path: &Path<'_>, keyword: &'static str, pieces: &[Piece<'_>]) -> Flow {
        self.fail(path, keyword, &mut |m| m.write(pieces))
    }

    #[inline(never)]
    #[cold]
    fn abort(&mut self, path: &Path<'_>, kind: ViolationKind) -> Flow {
        let (steps, depth) = (self.max_steps, self.max_depth);
        let budget = kind == ViolationKind::BudgetExceeded;
        let keyword = if budget { "$budget" } else { "$depth" };
        self.record(kind, keyword, path, &mut |m| {
            if budget {
                m.write(&[
                    Text("budget of "),
                    Dec(steps as u64),
                    Text(" steps exceeded"),
                ])
            } else {
                m.write(&[
                    Text("evaluation deeper than "),
                    Dec(depth as u64),
                    Text(" levels"),
                ])
            }
        });
        Err(Stop::Abort)
    }

    /// Refuses a program op the evaluator is not built for: a violation recorded even when
    /// quiet, and a stop that no applicator turns into a verdict (as for a limit).
    #[inline(never)]
    #[cold]
    fn unsupported(&mut self, path: &Path<'_>) -> Stop {
        self.record(ViolationKind::Unsupported, "$keywords", path, &mut |m| {
            m.write_str("keyword not built into this validator")
        });
        Stop::Abort
    }

    fn step(&mut self, path: &Path<'_>) -> Flow {
        self.steps = self.steps.saturating_add(1);
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
        self.depth = self.depth.wrapping_add(1); // below max_depth (checked above)
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
        // Quiet runs nest at most once per depth level (`u16`): no wrap either way.
        self.quiet = self.quiet.wrapping_add(1);
        let r = self.eval(node, inst, path);
        self.quiet = self.quiet.wrapping_sub(1);
        match r {
            Ok(()) => Ok(true),
            Err(Stop::Invalid) => Ok(false),
            Err(Stop::Abort) => Err(Stop::Abort),
        }
    }

    fn is_false(&self, node: u16) -> bool {
        matches!(self.prog.node(node), [Op::False])
    }
}
