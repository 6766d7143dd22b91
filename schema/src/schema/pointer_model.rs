//! Model-based test of [`PointerBuf`]: random sequences of operations checked against a model
//! that keeps the segments in a list and renders the text the way the truncation rule of
//! `pointer.rs` says it must look.

use std::collections::VecDeque;
use std::string::String;
use std::vec::Vec;

use proptest::prelude::*;

use super::pointer::{PointerBuf, MARKER, POINTER_CAPACITY, SCHEMA_POINTER_CAPACITY};

/// The pointer as a list of unescaped segments and a flag for the marker.
#[derive(Debug, Default)]
struct Model {
    segments: VecDeque<String>,
    truncated: bool,
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

impl Model {
    fn text(&self) -> String {
        let mut s = String::new();
        if self.truncated {
            s.push_str(MARKER);
        }
        for seg in &self.segments {
            s.push('/');
            s.push_str(&escape(seg));
        }
        s
    }

    /// Drops leading segments while the text (with the marker) is longer than `cap`.
    fn shed(&mut self, cap: usize) {
        while self.text().len() > cap {
            self.segments.pop_front();
            self.truncated = true;
        }
    }

    fn push_back(&mut self, cap: usize, seg: &str) {
        if 1 + escape(seg).len() > cap - MARKER.len() {
            self.segments.clear();
            self.truncated = true;
            return;
        }
        self.segments.push_back(seg.into());
        self.shed(cap);
    }

    fn push_front(&mut self, cap: usize, seg: &str) -> bool {
        if self.truncated {
            return false;
        }
        if self.text().len() + 1 + escape(seg).len() > cap - MARKER.len() {
            self.truncate_front(cap);
            return false;
        }
        self.segments.push_front(seg.into());
        true
    }

    fn truncate_front(&mut self, cap: usize) {
        if !self.truncated {
            self.truncated = true;
            self.shed(cap);
        }
    }
}

#[derive(Debug, Clone)]
enum Op {
    Back(String),
    Front(String),
    Truncate,
}

/// Keys around the edges of the rule: empty and 1 to 2 bytes (shorter than the marker),
/// escapes, non-ASCII, the marker itself, and keys near and over the capacities.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-c]{0,2}",
        2 => "[a~/]{0,6}",
        2 => "[é€😀ab~/]{0,5}",
        1 => Just(String::from(MARKER)),
        2 => (20usize..70).prop_map(|n| "B".repeat(n)),
        1 => (10usize..40).prop_map(|n| "~/".repeat(n / 2)),
        1 => "\\PC{0,12}",
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => segment().prop_map(Op::Back),
        3 => segment().prop_map(Op::Front),
        1 => Just(Op::Truncate),
    ]
}

fn run<const N: usize>(ops: &[Op]) -> Result<(), TestCaseError> {
    let mut p = PointerBuf::<N>::new();
    let mut m = Model::default();
    for (i, op) in ops.iter().enumerate() {
        match op {
            Op::Back(s) => {
                p.push_back(s);
                m.push_back(N, s);
            }
            Op::Front(s) => {
                let got = p.push_front(s);
                prop_assert_eq!(got, m.push_front(N, s), "push_front result at op {}", i);
            }
            Op::Truncate => {
                p.truncate_front();
                m.truncate_front(N);
            }
        }
        prop_assert_eq!(p.as_str(), m.text(), "after op {}: {:?}", i, op);
        prop_assert_eq!(p.is_truncated(), m.truncated);
        prop_assert!(p.as_str().len() <= N);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn schema_pointer_matches_the_model(ops in proptest::collection::vec(op(), 0..40)) {
        run::<SCHEMA_POINTER_CAPACITY>(&ops)?;
    }

    #[test]
    fn instance_path_matches_the_model(ops in proptest::collection::vec(op(), 0..40)) {
        run::<POINTER_CAPACITY>(&ops)?;
    }

    /// Only appends (how the compiler builds schema pointers), so that long runs reach the
    /// full buffer often.
    #[test]
    fn appending_only_matches_the_model(segs in proptest::collection::vec(segment(), 0..30)) {
        let ops: Vec<Op> = segs.into_iter().map(Op::Back).collect();
        run::<SCHEMA_POINTER_CAPACITY>(&ops)?;
    }
}
