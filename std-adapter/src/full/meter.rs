//! The step and time budget of one validation call.
//!
//! `jsonschema` has no budget of its own, and a `$ref` graph can make its evaluation exponential
//! (`d0: anyOf[d1, d1]`, `d1: anyOf[d2, d2]`, … costs 2^k visits). The validator is therefore
//! built over [`Metered`], a JSON representation that wraps `serde_json::Value` and counts every
//! read the validator makes of the instance. Once a call has spent its steps or its time the next
//! read unwinds out of the validator (`resume_unwind`, which prints nothing), and the caller
//! reports the spent budget instead of a verdict.
//!
//! Every schema object reads the instance on each visit because `prepare` gives each one
//! lacking `type` the always-true `type` of all six JSON types, the first keyword the crate runs.

use std::borrow::Cow;
use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::time::{Duration, Instant};

use jsonschema::json::{Array, Json, Node, NodeIdentity, Object, SerdeJson};
use jsonschema::types::JsonType;
use serde_json::{Map, Number, Value};

/// Which budget a validation call ran out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exhausted {
    /// More instance reads than `FullOptions::max_steps`.
    Steps,
    /// Longer than `FullOptions::time_limit`.
    Time,
}

/// The limits of one validation call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub(crate) max_steps: u64,
    pub(crate) time_limit: Option<Duration>,
}

/// Reads between two looks at the clock.
const CLOCK_EVERY: u32 = 256;

#[derive(Clone, Copy)]
struct Meter {
    active: bool,
    steps_left: u64,
    deadline: Option<Instant>,
    until_clock: u32,
    exhausted: Option<Exhausted>,
}

impl Meter {
    const IDLE: Meter = Meter {
        active: false,
        steps_left: 0,
        deadline: None,
        until_clock: 0,
        exhausted: None,
    };
}

thread_local! {
    static METER: Cell<Meter> = const { Cell::new(Meter::IDLE) };
}

/// Counts one read of the instance; unwinds once the budget is spent.
#[inline]
fn step() {
    METER.with(|cell| {
        let mut meter = cell.get();
        if !meter.active {
            return;
        }
        if meter.steps_left == 0 {
            stop(cell, meter, Exhausted::Steps);
            return;
        }
        meter.steps_left -= 1;
        if let Some(deadline) = meter.deadline {
            if meter.until_clock == 0 {
                meter.until_clock = CLOCK_EVERY;
                if Instant::now() >= deadline {
                    stop(cell, meter, Exhausted::Time);
                    return;
                }
            } else {
                meter.until_clock -= 1;
            }
        }
        cell.set(meter);
    });
}

fn stop(cell: &Cell<Meter>, mut meter: Meter, why: Exhausted) {
    meter.active = false;
    meter.exhausted = Some(why);
    cell.set(meter);
    // Without unwinding the validation runs to its end and its verdict is replaced afterwards.
    #[cfg(panic = "unwind")]
    panic::resume_unwind(Box::new(why));
}

/// Runs `f` (one validation call) under `budget`; `Err` when the budget ran out first.
pub(crate) fn run<T>(budget: Budget, f: impl FnOnce() -> T) -> Result<T, Exhausted> {
    struct Restore(Meter);
    impl Drop for Restore {
        fn drop(&mut self) {
            METER.with(|cell| cell.set(self.0));
        }
    }
    let start = Meter {
        active: true,
        steps_left: budget.max_steps,
        deadline: budget.time_limit.map(|limit| Instant::now() + limit),
        until_clock: 0,
        exhausted: None,
    };
    let _restore = Restore(METER.with(|cell| cell.replace(start)));
    let outcome = panic::catch_unwind(AssertUnwindSafe(f));
    let exhausted = METER.with(|cell| cell.get().exhausted);
    match outcome {
        Ok(value) => match exhausted {
            None => Ok(value),
            Some(why) => Err(why),
        },
        Err(payload) => match payload.downcast::<Exhausted>() {
            Ok(why) => Err(*why),
            Err(other) => panic::resume_unwind(other),
        },
    }
}

/// `serde_json::Value` as `jsonschema` reads it, one counted step per read.
pub(crate) struct Metered;

impl Json for Metered {
    type Node<'a> = MeteredNode<'a>;
    type PreparedKey = String;
    type StringBuffer = ();

    const KEYS_PER_LOOKUP: usize = <SerdeJson as Json>::KEYS_PER_LOOKUP;
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>((): &mut (), string: &str, f: impl FnOnce(MeteredNode<'_>) -> T) -> T {
        let node = Value::String(string.to_owned());
        f(MeteredNode(&node))
    }
}

/// One instance value.
#[derive(Clone, Copy)]
pub(crate) struct MeteredNode<'a>(pub(crate) &'a Value);

impl<'a> MeteredNode<'a> {
    fn serde(&self) -> &&'a Value {
        &self.0
    }
}

impl<'a> Node<'a, Metered> for MeteredNode<'a> {
    type Object = MeteredObject<'a>;
    type Array = MeteredArray<'a>;
    type Number = &'a Number;

    fn as_object(&self) -> Option<MeteredObject<'a>> {
        step();
        self.0.as_object().map(MeteredObject)
    }

    fn as_array(&self) -> Option<MeteredArray<'a>> {
        step();
        self.0
            .as_array()
            .map(|items| MeteredArray(items.as_slice()))
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        step();
        self.0.as_str().map(Cow::Borrowed)
    }

    fn as_number(&self) -> Option<&'a Number> {
        step();
        match self.0 {
            Value::Number(number) => Some(number),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        step();
        self.0.as_bool()
    }

    fn is_null(&self) -> bool {
        step();
        self.0.is_null()
    }

    fn is_number(&self) -> bool {
        step();
        self.0.is_number()
    }

    fn is_string(&self) -> bool {
        step();
        self.0.is_string()
    }

    fn json_type(&self) -> JsonType {
        step();
        Node::<SerdeJson>::json_type(self.serde())
    }

    fn string_length(&self) -> Option<u64> {
        step();
        Node::<SerdeJson>::string_length(self.serde())
    }

    fn string_length_within(&self, min: u64, max: u64) -> Option<bool> {
        step();
        Node::<SerdeJson>::string_length_within(self.serde(), min, max)
    }

    fn equals_value(&self, expected: &Value) -> bool {
        step();
        Node::<SerdeJson>::equals_value(self.serde(), expected)
    }

    fn to_value(&self) -> Cow<'a, Value> {
        step();
        Cow::Borrowed(self.0)
    }

    fn identity(&self) -> Option<NodeIdentity> {
        step();
        Node::<SerdeJson>::identity(self.serde())
    }
}

/// One instance object.
#[derive(Clone, Copy)]
pub(crate) struct MeteredObject<'a>(&'a Map<String, Value>);

impl<'a> Object<'a, Metered> for MeteredObject<'a> {
    type Node = MeteredNode<'a>;
    type MemberName = &'a str;
    type MembersIter = MeteredMembers<'a>;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn get(&self, key: &String) -> Option<MeteredNode<'a>> {
        step();
        self.0.get(key.as_str()).map(MeteredNode)
    }

    fn members(&self) -> MeteredMembers<'a> {
        MeteredMembers(self.0.iter())
    }
}

/// The members of one instance object, one step each.
pub(crate) struct MeteredMembers<'a>(serde_json::map::Iter<'a>);

impl<'a> Iterator for MeteredMembers<'a> {
    type Item = (&'a str, MeteredNode<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        step();
        self.0
            .next()
            .map(|(name, value)| (name.as_str(), MeteredNode(value)))
    }
}

/// One instance array.
#[derive(Clone, Copy)]
pub(crate) struct MeteredArray<'a>(&'a [Value]);

impl<'a> Array<'a, Metered> for MeteredArray<'a> {
    type Node = MeteredNode<'a>;
    type ElementsIter = MeteredElements<'a>;

    fn len(&self) -> usize {
        self.0.len()
    }

    fn elements(&self) -> MeteredElements<'a> {
        MeteredElements(self.0.iter())
    }

    fn is_unique(&self) -> bool {
        step();
        jsonschema::json::unique::is_unique(self.0)
    }
}

/// The elements of one instance array, one step each.
pub(crate) struct MeteredElements<'a>(std::slice::Iter<'a, Value>);

impl<'a> Iterator for MeteredElements<'a> {
    type Item = MeteredNode<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        step();
        self.0.next().map(MeteredNode)
    }
}
