//! Each kind's place in the table, and every kind's row checked against
//! what a tree of that kind does: the table is the single source of these
//! facts, so a wrong row is a wrong behaviour, and these tests name the
//! kind.

use super::*;
use crate::program::Program;
use crate::registry::{CustomNode, Vocabulary};
use crate::runtime::CustomCtx;
use crate::runtime::Status;
use crate::sim::Sim;
use std::sync::Arc;

impl Kind {
    /// The kind's place in [`Kind::ALL`]. Exhaustive: a new kind does not
    /// compile until it has one, and a test checks `ALL` against it.
    pub(crate) const fn ordinal(&self) -> usize {
        match self {
            Kind::Sequence => 0,
            Kind::SequenceWithMemory => 1,
            Kind::ReactiveSequence => 2,
            Kind::GuardSequence => 3,
            Kind::Selector => 4,
            Kind::ReactiveFallback => 5,
            Kind::Parallel { .. } => 6,
            Kind::ParallelAll { .. } => 7,
            Kind::IfThenElse => 8,
            Kind::WhileDoElse => 9,
            Kind::Switch { .. } => 10,
            Kind::PrioritizedList => 11,
            Kind::Sequential => 12,
            Kind::SequentialLooping => 13,
            Kind::Probabilistic { .. } => 14,
            Kind::OneOff { .. } => 15,
            Kind::Impulse { .. } => 16,
            Kind::Ordered => 17,
            Kind::Simultaneous => 18,
            Kind::SelectOne { .. } => 19,
            Kind::Invert => 20,
            Kind::ForceSuccess => 21,
            Kind::ForceFailure => 22,
            Kind::Repeat { .. } => 23,
            Kind::RetryUntilSuccessful { .. } => 24,
            Kind::KeepRunningUntilFailure => 25,
            Kind::RunOnce { .. } => 26,
            Kind::Delay { .. } => 27,
            Kind::Cooldown { .. } => 28,
            Kind::MinDuration { .. } => 29,
            Kind::Timeout { .. } => 30,
            Kind::Guard { .. } => 31,
            Kind::Action { .. } => 32,
            Kind::Condition { .. } => 33,
            Kind::Rule { .. } => 34,
            Kind::Threshold { .. } => 35,
            Kind::Wait { .. } => 36,
            Kind::SetBlackboard { .. } => 37,
            Kind::UnsetBlackboard { .. } => 38,
            Kind::Succeed => 39,
            Kind::Fail => 40,
            Kind::Forever => 41,
            Kind::Custom { .. } => 42,
        }
    }
}

/// A custom composite for the `Custom` row: ticks every child, like a
/// parallel of all.
struct All;
impl CustomNode for All {
    fn tick(&self, ctx: &mut CustomCtx<'_, '_>) -> Status {
        let mut status = Status::Success;
        for k in 0..ctx.child_count() {
            match ctx.tick_child(k) {
                Status::Running => status = Status::Running,
                Status::Failure if status == Status::Success => status = Status::Failure,
                _ => {}
            }
        }
        status
    }
}

/// A tree whose root is of the kind, over `kids` (two children; one
/// for decorators; none for leaves).
fn template(kind: &str, kids: [&str; 2]) -> String {
    let [a, b] = kids;
    let two = format!("children: [{a}, {b}]");
    match kind {
        "Parallel" | "ParallelAll" | "Sequence" | "SequenceWithMemory" | "ReactiveSequence"
        | "GuardSequence" | "Selector" | "ReactiveFallback" | "IfThenElse" | "WhileDoElse"
        | "PrioritizedList" | "Sequential" | "SequentialLooping" | "Probabilistic" | "Ordered"
        | "Simultaneous" => format!("{kind}(name: \"root\", {two})"),
        "OneOff" | "SelectOne" => format!("{kind}(name: \"root\", random: true, {two})"),
        "Switch" => format!("Switch(name: \"root\", key: \"k\", cases: [1], {two})"),
        "Impulse" => "Impulse(name: \"root\", behavior: \"stim\")".into(),
        "Custom" => format!("Custom(name: \"root\", kind: \"All\", {two})"),
        "Invert" | "ForceSuccess" | "ForceFailure" | "KeepRunningUntilFailure" | "RunOnce" => {
            format!("{kind}(name: \"root\", child: {a})")
        }
        "Repeat" => format!("Repeat(name: \"root\", count: 2, child: {a})"),
        "RetryUntilSuccessful" => {
            format!("RetryUntilSuccessful(name: \"root\", attempts: 2, child: {a})")
        }
        "Delay" | "Cooldown" | "MinDuration" | "Timeout" => {
            format!("{kind}(name: \"root\", seconds: 1.0, child: {a})")
        }
        "Guard" => format!("Guard(name: \"root\", when: [Is(\"a\")], child: {a})"),
        "Action" => "Action(name: \"root\", action: \"Act\")".into(),
        "Condition" | "Rule" => format!("{kind}(name: \"root\", check: Is(\"a\"))"),
        "Threshold" => "Threshold(name: \"root\", check: Is(\"a\"), count: 2)".into(),
        "Wait" => "Wait(name: \"root\", seconds: 1.0)".into(),
        "SetBlackboard" => "SetBlackboard(name: \"root\", key: \"a\", value: true)".into(),
        "UnsetBlackboard" => "UnsetBlackboard(name: \"root\", key: \"a\")".into(),
        "Succeed" | "Fail" | "Forever" => format!("{kind}(name: \"root\")"),
        other => panic!("no template for the kind {other}: add one"),
    }
}

fn compile(kind: &str, kids: [&str; 2]) -> Program {
    let text = format!(
        "(blackboard: {{\"a\": false, \"b\": false, \"k\": 1}}, \
         behaviors: [Action(name: \"stim\", action: \"Stim\")], root: {})",
        template(kind, kids)
    );
    let mut vocab = Vocabulary::permissive();
    vocab.customs.insert("All".into(), Arc::new(All));
    crate::compile_str("row.bt.ron", &text, &vocab)
        .unwrap_or_else(|e| panic!("{kind}: {e}\n{text}"))
}

const CONDS: [&str; 2] = [
    "Condition(name: \"ca\", check: Is(\"a\"))",
    "Condition(name: \"cb\", check: Is(\"b\"))",
];
const ACTS: [&str; 2] = [
    "Action(name: \"x\", action: \"X\")",
    "Action(name: \"y\", action: \"Y\")",
];

#[test]
fn all_lists_every_kind_once_in_table_order() {
    for (i, k) in Kind::ALL.iter().enumerate() {
        assert_eq!(k.ordinal(), i, "{} is out of place in Kind::ALL", k.name());
    }
    let last = Kind::Custom { custom: 0 }.ordinal();
    assert_eq!(Kind::ALL.len(), last + 1, "Kind::ALL misses a kind");
}

/// A kind whose row folds it into one condition is instant over
/// conditions: one tick, no action, the row's answer for every input.
#[test]
fn a_kind_marked_instant_finishes_in_one_tick_with_its_folds_answer() {
    for kind in Kind::ALL {
        let row = kind.info();
        let p = compile(row.name, CONDS);
        assert_eq!(p.nodes[0].kind.name(), row.name, "the template's root");
        assert_eq!(
            p.nodes[0].instant,
            row.instant != Instant::Never,
            "{}: compiled instant, row {:?}",
            row.name,
            row.instant
        );
        if row.instant == Instant::Never {
            continue;
        }
        for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
            let mut sim = Sim::new(&p, 0).with_repeat(false);
            sim.set("a", a).unwrap();
            sim.set("b", b).unwrap();
            let t = sim.step();
            let want = match row.instant {
                Instant::Own | Instant::All if row.family == Family::Leaf => a,
                Instant::All => a && b,
                Instant::Any => a || b,
                Instant::Not => !a,
                Instant::True => true,
                Instant::False => false,
                Instant::Own | Instant::Never => unreachable!(),
            };
            let status = if want {
                Status::Success
            } else {
                Status::Failure
            };
            assert_eq!(t.status, status, "{} with a={a} b={b}", row.name);
            assert!(t.started.is_empty(), "{} started an action", row.name);
        }
    }
}

/// A kind marked concurrent runs both its action children at once;
/// any other runs at most one. Every kind ticks (its family's
/// dispatch has its arm: a missing one would panic here, not in a
/// game).
#[test]
fn a_kind_marked_concurrent_runs_its_children_at_once() {
    for kind in Kind::ALL {
        let row = kind.info();
        let p = compile(row.name, ACTS);
        let mut sim = Sim::new(&p, 0).with_repeat(false);
        sim.set("k", 1).unwrap();
        let t = sim.step();
        if row.max_children < 2 {
            continue;
        }
        assert_eq!(
            t.active.len() == 2,
            row.concurrent,
            "{}: running {:?}, row concurrent {}",
            row.name,
            t.active,
            row.concurrent
        );
    }
}

/// A kind marked random picks differently with different seeds, and
/// only such a kind does: one left out of the random rows would pick
/// the same child for every seed (the agent keeps no random state).
#[test]
fn exactly_the_kinds_marked_random_draw_from_the_seed() {
    for kind in Kind::ALL {
        let row = kind.info();
        // The test's custom node draws nothing (game nodes may).
        if row.max_children < 2 || row.name == "Custom" {
            continue;
        }
        let p = compile(row.name, ACTS);
        let firsts: std::collections::BTreeSet<Vec<String>> = (0..32)
            .map(|seed| {
                let mut sim = Sim::new(&p, seed);
                sim.set("k", 1).unwrap();
                sim.step().active
            })
            .collect();
        let random = row.random != Random::Never;
        assert_eq!(p.random, random, "{}: the program's random state", row.name);
        assert_eq!(
            firsts.len() > 1,
            random,
            "{}: the seeds picked {firsts:?}, row {:?}",
            row.name,
            row.random
        );
    }
}

/// A stimulus can be inserted into exactly the kinds marked as its
/// target.
#[test]
fn a_stimulus_goes_into_exactly_the_kinds_marked_as_its_target() {
    for kind in Kind::ALL {
        let row = kind.info();
        let p = compile(row.name, ACTS);
        let mut sim = Sim::new(&p, 0);
        let inserted = sim.stimulus("root", "stim", 1, 1.0).is_ok();
        assert_eq!(inserted, row.stimulus_target, "{}", row.name);
    }
}
