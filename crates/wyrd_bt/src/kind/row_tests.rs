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
/// for decorators; none for leaves): the row's example.
fn template(kind: &str, kids: [&str; 2]) -> String {
    let row = Kind::ALL
        .iter()
        .map(Kind::info)
        .find(|row| row.name == kind)
        .unwrap_or_else(|| panic!("no kind {kind} in the table"));
    row.example.replace("{a}", kids[0]).replace("{b}", kids[1])
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

/// Each row's `name` (what tree files say) is its kind's own name, so no
/// two rows answer to one name; and its example is a node of that kind.
#[test]
fn every_row_is_named_as_its_kind_and_its_example_is_one() {
    let mut seen = std::collections::HashSet::new();
    for k in Kind::ALL {
        let debug = format!("{k:?}");
        let variant = debug.split([' ', '{']).next().unwrap();
        assert_eq!(k.name(), variant, "the row of {variant} is named otherwise");
        assert!(seen.insert(k.name()), "{} twice in the table", k.name());
        assert!(
            k.info().example.starts_with(&format!("{}(", k.name())),
            "{}: its example is of another kind",
            k.name()
        );
    }
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
