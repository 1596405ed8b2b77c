//! Node kinds of the compiled program and the one table of facts about
//! each: its family (which interpreter file ticks it), how many children it
//! takes, what per-agent state it needs and how that state starts, whether
//! it reads time, and its rule in one line with its BehaviorTree.CPP and
//! Unreal equivalents (the crate docs' node table is generated from it).

/// What a node does. Payload indexes point into the
/// [`Program`](crate::Program)'s tables.
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)]
pub(crate) enum Kind {
    // Standard composites (BT.CPP names and rules).
    Sequence,
    SequenceWithMemory,
    ReactiveSequence,
    GuardSequence,
    Selector,
    ReactiveFallback,
    Parallel { success: u16, failure: u16 },
    ParallelAll { max_failures: u32 },
    IfThenElse,
    WhileDoElse,
    Switch { key: u16, cases: u32 },
    // Halo 2 decision schemes.
    PrioritizedList,
    Sequential,
    SequentialLooping,
    Probabilistic { weights: u32 },
    OneOff { random: bool },
    Impulse { impulse: u32 },
    // Trainz parent styles.
    Ordered,
    Simultaneous,
    SelectOne { random: bool },
    // Decorators.
    Invert,
    ForceSuccess,
    ForceFailure,
    Repeat { count: u32 },
    RetryUntilSuccessful { attempts: u32 },
    KeepRunningUntilFailure,
    RunOnce { then_skip: bool },
    Delay { ms: u32 },
    Cooldown { ms: u32 },
    MinDuration { ms: u32 },
    Timeout { ms: u32 },
    Guard { cond: u32 },
    // Leaves.
    Action { action: u32 },
    Condition { cond: u32 },
    Rule { cond: u32 },
    Threshold { cond: u32, count: u32 },
    Wait { ms: u32 },
    Succeed,
    Fail,
    Forever,
    // Game-registered.
    Custom { custom: u32 },
}

use crate::compile::{BtError, BtProblem, Compiler};
use crate::def::{Check, ImpulseMode, NodeDef, Policy};
use crate::program::{ActionInfo, CustomInfo, ImpulseInfo, NONE};
use crate::registry::ActionId;
use crate::value::Value;
use std::sync::Arc;

/// Which part of the interpreter ticks a kind (one file each under
/// `runtime/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `runtime/composites.rs`: sequences, selector, parallel, if / while /
    /// switch.
    Standard,
    /// `runtime/halo.rs`: Halo 2 decision schemes and impulses.
    Halo,
    /// `runtime/trainz.rs`: Trainz parent styles.
    Trainz,
    /// `runtime/decorators.rs`.
    Decorator,
    /// `runtime/leaves.rs`: actions, conditions, rules, timers.
    Leaf,
    /// `runtime/custom.rs`: game-registered nodes.
    Custom,
}

/// How a node's aux word (timer, counter, remembered child) starts when the
/// node is entered afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AuxInit {
    /// The node has no aux word.
    None,
    /// Zero.
    Zero,
    /// "No child" ([`NONE`](crate::NONE)).
    NoChild,
    /// The agent's time (a timer starts).
    Now,
    /// Kept across activations (one-off memories, cooldowns, run-once).
    Keep,
}

/// How a node's cursor starts when the node is entered afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CursorInit {
    /// The node has no cursor.
    None,
    /// The first child.
    Zero,
    /// "Not chosen yet" (`u16::MAX`).
    Unchosen,
    /// Kept across activations (`SequenceWithMemory` retries the child
    /// that failed).
    Keep,
}

/// The facts about one kind.
#[derive(Debug, Clone, Copy)]
pub struct KindInfo {
    /// The kind as written in tree files.
    pub name: &'static str,
    /// The interpreter family that ticks it.
    pub family: Family,
    /// Fewest children (leaves: 0).
    pub min_children: usize,
    /// Most children (`usize::MAX`: any number).
    pub max_children: usize,
    /// Its aux word.
    pub(crate) aux: AuxInit,
    /// Its cursor.
    pub(crate) cursor: CursorInit,
    /// It reads time or counts ticks, so a walk with unchanged inputs may
    /// still change something (the agent cannot skip the walk).
    pub timed: bool,
    /// Its rule, one line (the crate docs' node table).
    pub rule: &'static str,
    /// BehaviorTree.CPP 4.x equivalent (`-`: none).
    pub bt_cpp: &'static str,
    /// Unreal Engine behavior tree equivalent (`-`: none).
    pub unreal: &'static str,
}

const ANY: usize = usize::MAX;

#[allow(clippy::too_many_arguments)]
const fn info(
    name: &'static str,
    family: Family,
    children: (usize, usize),
    aux: AuxInit,
    cursor: CursorInit,
    timed: bool,
    rule: &'static str,
    bt_cpp: &'static str,
    unreal: &'static str,
) -> KindInfo {
    KindInfo {
        name,
        family,
        min_children: children.0,
        max_children: children.1,
        aux,
        cursor,
        timed,
        rule,
        bt_cpp,
        unreal,
    }
}

use AuxInit as A;
use CursorInit as C;
use Family as F;

impl Kind {
    /// The facts about this kind.
    pub const fn info(&self) -> KindInfo {
        match self {
            Kind::Sequence => info(
                "Sequence",
                F::Standard,
                (1, ANY),
                A::None,
                C::Zero,
                false,
                "children in order; a running child is resumed, finished ones are not re-checked; a failure resets it",
                "Sequence",
                "Sequence",
            ),
            Kind::SequenceWithMemory => info(
                "SequenceWithMemory",
                F::Standard,
                (1, ANY),
                A::None,
                C::Keep,
                false,
                "like Sequence, but after a failure the next activation retries the failed child, not the first",
                "SequenceWithMemory",
                "-",
            ),
            Kind::ReactiveSequence => info(
                "ReactiveSequence",
                F::Standard,
                (1, ANY),
                A::None,
                C::None,
                false,
                "every tick from the first child (actions too); a child running halts the later ones",
                "ReactiveSequence",
                "-",
            ),
            Kind::GuardSequence => info(
                "GuardSequence",
                F::Standard,
                (1, ANY),
                A::None,
                C::Zero,
                false,
                "children in order; its leading conditions are guards re-checked every tick, a broken guard stops it",
                "ReactiveSequence over the guards + Sequence",
                "Sequence with a Blackboard decorator (Observer aborts: Self)",
            ),
            Kind::Selector => info(
                "Selector",
                F::Standard,
                (1, ANY),
                A::NoChild,
                C::None,
                false,
                "the first child that does not fail; kept until it finishes (alias `Fallback`)",
                "Fallback",
                "Selector",
            ),
            Kind::ReactiveFallback => info(
                "ReactiveFallback",
                F::Standard,
                (1, ANY),
                A::None,
                C::None,
                false,
                "every tick from the first child (actions too); the first that runs or succeeds halts the others",
                "ReactiveFallback",
                "Selector with Observer aborts: Lower Priority (without relevancy)",
            ),
            Kind::Parallel { .. } => info(
                "Parallel",
                F::Standard,
                (1, ANY),
                A::None,
                C::None,
                false,
                "children in order, finished ones not re-ticked; decides after each child (`success` / `failure` thresholds: All, One, Count(n)), then halts the rest",
                "Parallel (success_count / failure_count)",
                "Simple Parallel",
            ),
            Kind::ParallelAll { .. } => info(
                "ParallelAll",
                F::Standard,
                (1, ANY),
                A::None,
                C::None,
                false,
                "every child runs to its end (never stops early); then fails if `max_failures` (default 1) failed, else succeeds",
                "ParallelAll (max_failures)",
                "-",
            ),
            Kind::IfThenElse => info(
                "IfThenElse",
                F::Standard,
                (2, 3),
                A::None,
                C::Zero,
                false,
                "ticks the first child once; success runs the second, failure the third (or fails); not re-checked",
                "IfThenElse",
                "-",
            ),
            Kind::WhileDoElse => info(
                "WhileDoElse",
                F::Standard,
                (2, 3),
                A::None,
                C::Zero,
                false,
                "the first child every tick; success runs the second, failure the third (or fails); a change halts the other branch",
                "WhileDoElse",
                "-",
            ),
            Kind::Switch { .. } => info(
                "Switch",
                F::Standard,
                (2, ANY),
                A::None,
                C::Unchosen,
                false,
                "the child of the case equal to a blackboard key, else the last (default); re-checked every tick",
                "Switch2..Switch6",
                "-",
            ),
            Kind::PrioritizedList => info(
                "PrioritizedList",
                F::Halo,
                (1, ANY),
                A::NoChild,
                C::None,
                false,
                "first relevant child runs; a higher-priority child interrupts it only by taking over (running or succeeding)",
                "ReactiveFallback",
                "Selector with Observer aborts: Lower Priority",
            ),
            Kind::Sequential => info(
                "Sequential",
                F::Halo,
                (1, ANY),
                A::None,
                C::Zero,
                false,
                "children in order, skipping those not relevant, never revisiting; succeeds at the end",
                "-",
                "-",
            ),
            Kind::SequentialLooping => info(
                "SequentialLooping",
                F::Halo,
                (1, ANY),
                A::None,
                C::Zero,
                true,
                "like Sequential, then starts again from the first",
                "-",
                "-",
            ),
            Kind::Probabilistic { .. } => info(
                "Probabilistic",
                F::Halo,
                (1, ANY),
                A::None,
                C::Unchosen,
                false,
                "a random relevant child (optional `weights`), seeded per agent",
                "-",
                "-",
            ),
            Kind::OneOff { .. } => info(
                "OneOff",
                F::Halo,
                (1, 32),
                A::Keep,
                C::Unchosen,
                false,
                "picks (first or `random`) among relevant children never chosen before",
                "-",
                "-",
            ),
            Kind::Impulse { .. } => info(
                "Impulse",
                F::Halo,
                (0, 1),
                A::None,
                C::None,
                false,
                "a behavior with its own relevancy `when` (its guard while it runs), run in place or at its native position",
                "-",
                "-",
            ),
            Kind::Ordered => info(
                "Ordered",
                F::Trainz,
                (1, ANY),
                A::None,
                C::None,
                false,
                "Trainz: the first child not WAS_COMPLETE runs, the others are paused; completes when all are",
                "-",
                "-",
            ),
            Kind::Simultaneous => info(
                "Simultaneous",
                F::Trainz,
                (1, ANY),
                A::None,
                C::None,
                false,
                "Trainz: children not COMPLETE run; completes when all are WAS_COMPLETE, then pauses them",
                "-",
                "-",
            ),
            Kind::SelectOne { .. } => info(
                "SelectOne",
                F::Trainz,
                (1, ANY),
                A::None,
                C::Unchosen,
                false,
                "Trainz: one relevant child (first, or `random`) chosen at start, run until WAS_COMPLETE",
                "-",
                "-",
            ),
            Kind::Invert => info(
                "Invert",
                F::Decorator,
                (1, 1),
                A::None,
                C::None,
                false,
                "swaps success and failure",
                "Inverter",
                "Blackboard decorator with Inverse Condition",
            ),
            Kind::ForceSuccess => info(
                "ForceSuccess",
                F::Decorator,
                (1, 1),
                A::None,
                C::None,
                false,
                "a finished child succeeds",
                "ForceSuccess",
                "Force Success",
            ),
            Kind::ForceFailure => info(
                "ForceFailure",
                F::Decorator,
                (1, 1),
                A::None,
                C::None,
                false,
                "a finished child fails",
                "ForceFailure",
                "-",
            ),
            Kind::Repeat { .. } => info(
                "Repeat",
                F::Decorator,
                (1, 1),
                A::Zero,
                C::None,
                true,
                "runs the child `count` times (default forever), the next run in the tick the last ended; a failure fails",
                "Repeat (num_cycles)",
                "Loop",
            ),
            Kind::RetryUntilSuccessful { .. } => info(
                "RetryUntilSuccessful",
                F::Decorator,
                (1, 1),
                A::Zero,
                C::None,
                true,
                "re-runs a failed child in the same tick, up to `attempts` runs (default forever); success succeeds",
                "RetryUntilSuccessful (num_attempts)",
                "-",
            ),
            Kind::KeepRunningUntilFailure => info(
                "KeepRunningUntilFailure",
                F::Decorator,
                (1, 1),
                A::None,
                C::None,
                true,
                "a succeeded child starts again on the next tick; running until the child fails",
                "KeepRunningUntilFailure",
                "-",
            ),
            Kind::RunOnce { .. } => info(
                "RunOnce",
                F::Decorator,
                (1, 1),
                A::Keep,
                C::None,
                false,
                "runs the child once per agent; afterwards Skipped (parents carry on), or its first result with `then_skip: false`",
                "RunOnce (then_skip)",
                "-",
            ),
            Kind::Delay { .. } => info(
                "Delay",
                F::Decorator,
                (1, 1),
                A::Now,
                C::None,
                true,
                "running for `seconds` (round(seconds*hz) ticks), then ticks the child",
                "Delay (delay_msec)",
                "Wait + Sequence",
            ),
            Kind::Cooldown { .. } => info(
                "Cooldown",
                F::Decorator,
                (1, 1),
                A::Keep,
                C::None,
                true,
                "after the child finishes, fails (not relevant) for `seconds`",
                "-",
                "Cooldown",
            ),
            Kind::MinDuration { .. } => info(
                "MinDuration",
                F::Decorator,
                (1, 1),
                A::Now,
                C::None,
                true,
                "its nearest PrioritizedList cannot interrupt it for `seconds` (against dithering)",
                "-",
                "-",
            ),
            Kind::Timeout { .. } => info(
                "Timeout",
                F::Decorator,
                (1, 1),
                A::Now,
                C::None,
                true,
                "halts the child and fails after `seconds`",
                "Timeout (msec)",
                "Time Limit",
            ),
            Kind::Guard { .. } => info(
                "Guard",
                F::Decorator,
                (1, 1),
                A::None,
                C::None,
                false,
                "ticks the child while `when` holds; halts it and fails when it stops holding",
                "Precondition (_while)",
                "Blackboard decorator (Observer aborts: Self)",
            ),
            Kind::Action { .. } => info(
                "Action",
                F::Leaf,
                (0, 0),
                A::None,
                C::None,
                false,
                "a game action: running until the game reports success or failure",
                "StatefulActionNode",
                "Task",
            ),
            Kind::Condition { .. } => info(
                "Condition",
                F::Leaf,
                (0, 0),
                A::None,
                C::None,
                false,
                "succeeds or fails at once (also `CheckWorldStateFlags`, `CheckWorldStateCounters`)",
                "ConditionNode / ScriptCondition",
                "Blackboard decorator",
            ),
            Kind::Rule { .. } => info(
                "Rule",
                F::Leaf,
                (0, 0),
                A::None,
                C::None,
                false,
                "Trainz condition rule: running until the condition holds, COMPLETE while it holds",
                "-",
                "-",
            ),
            Kind::Threshold { .. } => info(
                "Threshold",
                F::Leaf,
                (0, 0),
                A::Zero,
                C::None,
                true,
                "counts ticks in which the condition holds; succeeds at `count`",
                "-",
                "-",
            ),
            Kind::Wait { .. } => info(
                "Wait",
                F::Leaf,
                (0, 0),
                A::Now,
                C::None,
                true,
                "running for `seconds` (round(seconds*hz) ticks), then succeeds",
                "Sleep (msec)",
                "Wait",
            ),
            Kind::Succeed => info(
                "Succeed",
                F::Leaf,
                (0, 0),
                A::None,
                C::None,
                false,
                "succeeds",
                "AlwaysSuccess",
                "-",
            ),
            Kind::Fail => info(
                "Fail",
                F::Leaf,
                (0, 0),
                A::None,
                C::None,
                false,
                "fails",
                "AlwaysFailure",
                "-",
            ),
            Kind::Forever => info(
                "Forever",
                F::Leaf,
                (0, 0),
                A::None,
                C::None,
                false,
                "running forever (never completes: DOES_COMPLETE unset)",
                "-",
                "-",
            ),
            Kind::Custom { .. } => info(
                "Custom",
                F::Custom,
                (0, ANY),
                A::Zero,
                C::Zero,
                true,
                "a game-registered composite or decorator (`register_bt_node`)",
                "custom ControlNode / DecoratorNode",
                "custom Composite / Decorator",
            ),
        }
    }

    /// Its children run at the same time (parallels, simultaneous, custom
    /// nodes): their actions count together for the agent's action slots,
    /// and their statuses start over when the node starts afresh.
    pub const fn concurrent(&self) -> bool {
        matches!(
            self,
            Kind::Parallel { .. }
                | Kind::ParallelAll { .. }
                | Kind::Simultaneous
                | Kind::Custom { .. }
        )
    }

    /// The kind as written in tree files.
    pub const fn name(&self) -> &'static str {
        self.info().name
    }

    /// Whether the node is a leaf.
    pub fn is_leaf(&self) -> bool {
        self.info().family == Family::Leaf
    }

    /// One of each kind, in table order (payloads are placeholders): for
    /// docs and tools that list kinds.
    pub const ALL: &'static [Kind] = &[
        Kind::Sequence,
        Kind::SequenceWithMemory,
        Kind::ReactiveSequence,
        Kind::GuardSequence,
        Kind::Selector,
        Kind::ReactiveFallback,
        Kind::Parallel {
            success: 0,
            failure: 0,
        },
        Kind::ParallelAll { max_failures: 1 },
        Kind::IfThenElse,
        Kind::WhileDoElse,
        Kind::Switch { key: 0, cases: 0 },
        Kind::PrioritizedList,
        Kind::Sequential,
        Kind::SequentialLooping,
        Kind::Probabilistic { weights: 0 },
        Kind::OneOff { random: false },
        Kind::Impulse { impulse: 0 },
        Kind::Ordered,
        Kind::Simultaneous,
        Kind::SelectOne { random: false },
        Kind::Invert,
        Kind::ForceSuccess,
        Kind::ForceFailure,
        Kind::Repeat { count: 0 },
        Kind::RetryUntilSuccessful { attempts: 0 },
        Kind::KeepRunningUntilFailure,
        Kind::RunOnce { then_skip: true },
        Kind::Delay { ms: 0 },
        Kind::Cooldown { ms: 0 },
        Kind::MinDuration { ms: 0 },
        Kind::Timeout { ms: 0 },
        Kind::Guard { cond: 0 },
        Kind::Action { action: 0 },
        Kind::Condition { cond: 0 },
        Kind::Rule { cond: 0 },
        Kind::Threshold { cond: 0, count: 0 },
        Kind::Wait { ms: 0 },
        Kind::Succeed,
        Kind::Fail,
        Kind::Forever,
        Kind::Custom { custom: 0 },
    ];
}

/// The facts of every node kind, in table order (for docs and tools that
/// list kinds).
pub fn kinds() -> impl ExactSizeIterator<Item = KindInfo> {
    Kind::ALL.iter().map(Kind::info)
}

/// The node table of the crate docs, as markdown (kind, rule, BT.CPP,
/// Unreal), generated from [`kinds`]. A test keeps the docs equal to
/// it.
pub fn node_table() -> String {
    let mut s =
        String::from("| kind | rule | BehaviorTree.CPP 4.x | Unreal |\n|---|---|---|---|\n");
    for k in Kind::ALL {
        let i = k.info();
        s.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            i.name, i.rule, i.bt_cpp, i.unreal
        ));
    }
    s
}

/// What the compiler knows of a node's children when it decides the node's
/// own facts.
pub(crate) struct ChildFacts {
    /// Number of children.
    pub count: usize,
    /// There are children, all instant (conditions only).
    pub all_instant: bool,
    /// Every child can complete.
    pub all_done: bool,
    /// Some child can complete.
    pub any_done: bool,
    /// How many children can complete.
    pub done: usize,
    /// Some child after the first can complete (branches of if / while).
    pub later_done: bool,
    /// A redirect impulse (no child of its own).
    pub redirect: bool,
}

impl Kind {
    /// Whether a node of this kind is instant (conditions only: finishes in
    /// the tick it starts, no effects, usable as a guard) and whether it
    /// can ever complete (Trainz DOES_COMPLETE).
    pub(crate) fn completes(&self, f: &ChildFacts) -> (bool, bool) {
        // A node that keeps its cursor across activations remembers where it
        // stopped: what it answers depends on its past, not only on its
        // children's answers now, so it is never folded into an instant
        // test (BT.CPP `SequenceWithMemoryTest.Issue_636`: all-condition
        // children resume at the one that failed). Read from the row.
        if self.info().cursor == CursorInit::Keep {
            let (_, done) = Kind::Sequence.completes(f);
            return (false, done);
        }
        match *self {
            Kind::Condition { .. } | Kind::Succeed => (true, true),
            Kind::Fail => (true, false),
            Kind::Invert => (f.all_instant, true),
            Kind::Sequence
            | Kind::GuardSequence
            | Kind::SequenceWithMemory
            | Kind::ReactiveSequence => (f.all_instant, f.all_done),
            Kind::Selector | Kind::PrioritizedList => (f.all_instant, f.any_done),
            Kind::ReactiveFallback => (false, f.any_done),
            // Completes when the branch taken does.
            Kind::IfThenElse | Kind::WhileDoElse => (false, f.later_done),
            Kind::ParallelAll { .. } => (false, f.all_done),
            Kind::Switch { .. } => (false, f.any_done),
            Kind::Ordered | Kind::Simultaneous => (false, f.all_done),
            // Completes once `success` children do (all by default).
            Kind::Parallel { success, .. } => {
                let need = if success == 0 {
                    f.count
                } else {
                    success as usize
                };
                (false, f.done >= need)
            }
            Kind::Probabilistic { .. } | Kind::OneOff { .. } | Kind::SelectOne { .. } => {
                (false, f.any_done)
            }
            Kind::Sequential => (false, true),
            Kind::SequentialLooping | Kind::Forever | Kind::KeepRunningUntilFailure => {
                (false, false)
            }
            Kind::Repeat { count } => (false, count > 0 && f.all_done),
            Kind::ForceSuccess => (false, true),
            Kind::ForceFailure => (false, false),
            Kind::RetryUntilSuccessful { .. }
            | Kind::RunOnce { .. }
            | Kind::Delay { .. }
            | Kind::Guard { .. }
            | Kind::Cooldown { .. }
            | Kind::MinDuration { .. }
            | Kind::Timeout { .. } => (false, f.all_done),
            Kind::Impulse { .. } => (false, !f.redirect && f.all_done && f.count > 0),
            Kind::Action { .. }
            | Kind::Rule { .. }
            | Kind::Threshold { .. }
            | Kind::Wait { .. }
            | Kind::Custom { .. } => (false, true),
        }
    }
}

/// Lowers a file node to its compiled kind (payloads only: arity, state
/// slots and skippability follow from [`Kind::info`]). `in_place` is set to
/// the behavior an in-place impulse runs (the compiler emits it as the
/// impulse's child).
pub(crate) fn lower(
    c: &mut Compiler<'_>,
    def: &NodeDef,
    file: &str,
    idx: u32,
    in_place: &mut Option<crate::compile::InPlace>,
) -> Result<Kind, BtError> {
    let arity = |this: &Compiler<'_>, min: usize, max: usize| this.check_arity(file, def, min, max);
    let policy = |this: &Compiler<'_>, p: Policy| -> Result<u16, BtError> {
        let n = def.children().len();
        match p {
            Policy::All => Ok(0),
            Policy::One => Ok(1),
            Policy::Count(c) if (c as usize) <= n && c > 0 => Ok(c),
            Policy::Count(c) => Err(this.err_node(
                file,
                def,
                BtProblem::BadPolicy {
                    policy: c,
                    children: n,
                },
            )),
        }
    };
    let zero =
        |this: &Compiler<'_>, kind: &'static str, field: &'static str, hint: &'static str| {
            this.err_node(file, def, BtProblem::ZeroCount { kind, field, hint })
        };
    const NEVER_RUNS: &str = "would never run its child (leave the field out to repeat forever)";
    let in_place_impulse = in_place;
    Ok(match def {
        NodeDef::Sequence(_) => Kind::Sequence,
        NodeDef::SequenceWithMemory(_) => Kind::SequenceWithMemory,
        NodeDef::ReactiveSequence(_) => Kind::ReactiveSequence,
        NodeDef::GuardSequence(_) => Kind::GuardSequence,
        NodeDef::Selector(_) => Kind::Selector,
        NodeDef::ReactiveFallback(_) => Kind::ReactiveFallback,
        NodeDef::IfThenElse(_) => Kind::IfThenElse,
        NodeDef::WhileDoElse(_) => Kind::WhileDoElse,
        NodeDef::Switch(d) => {
            let key = match c.key_operand(file, &d.key)? {
                crate::program::Param::Key { key, .. } => key,
                crate::program::Param::Const(_) => {
                    return Err(c.err_key_use(file, &d.key, BtProblem::UnknownKey(d.key.clone())));
                }
            };
            let declared = c.p.bb_types[key as usize];
            for v in &d.cases {
                if !declared.accepts(v) {
                    return Err(c.err_key_use(
                        file,
                        &d.key,
                        BtProblem::KeyType {
                            key: d.key.clone(),
                            expected: declared.name(),
                            found: v.type_name(),
                        },
                    ));
                }
            }
            if d.children.len() != d.cases.len() + 1 {
                return Err(c.err_node(
                    file,
                    def,
                    BtProblem::SwitchArity {
                        cases: d.cases.len(),
                        children: d.children.len(),
                    },
                ));
            }
            let cases = c.p.switch_cases.len() as u32;
            c.p.switch_cases.extend(&d.cases);
            Kind::Switch { key, cases }
        }
        NodeDef::PrioritizedList(_) => Kind::PrioritizedList,
        NodeDef::Sequential(_) => Kind::Sequential,
        NodeDef::SequentialLooping(_) => Kind::SequentialLooping,
        NodeDef::Ordered(_) => Kind::Ordered,
        NodeDef::Simultaneous(_) => Kind::Simultaneous,
        NodeDef::Parallel(d) => {
            arity(c, 1, usize::MAX)?;
            Kind::Parallel {
                success: policy(c, d.success)?,
                failure: policy(c, d.failure)?,
            }
        }
        NodeDef::ParallelAll(d) => {
            if d.max_failures == 0 {
                let hint = "would fail even when no child fails";
                return Err(zero(c, "ParallelAll", "max_failures", hint));
            }
            Kind::ParallelAll {
                max_failures: d.max_failures,
            }
        }
        NodeDef::Probabilistic(d) => {
            arity(c, 1, usize::MAX)?;
            let weights = if d.weights.is_empty() {
                NONE
            } else {
                if d.weights.len() != d.children.len()
                    || d.weights.iter().any(|w| !w.is_finite() || *w < 0.0)
                {
                    return Err(c.err_node(
                        file,
                        def,
                        BtProblem::BadWeights {
                            weights: d.weights.len(),
                            children: d.children.len(),
                        },
                    ));
                }
                let start = c.p.weights.len() as u32;
                c.p.weights.extend(&d.weights);
                start
            };
            Kind::Probabilistic { weights }
        }
        NodeDef::OneOff(d) => Kind::OneOff { random: d.random },
        NodeDef::SelectOne(d) => Kind::SelectOne { random: d.random },
        NodeDef::Invert(_) => Kind::Invert,
        NodeDef::ForceSuccess(_) => Kind::ForceSuccess,
        NodeDef::ForceFailure(_) => Kind::ForceFailure,
        NodeDef::Repeat(d) => Kind::Repeat {
            count: match d.count {
                Some(0) => return Err(zero(c, "Repeat", "count", NEVER_RUNS)),
                Some(n) => n,
                None => 0,
            },
        },
        NodeDef::RetryUntilSuccessful(d) => Kind::RetryUntilSuccessful {
            attempts: match d.attempts {
                Some(0) => return Err(zero(c, "RetryUntilSuccessful", "attempts", NEVER_RUNS)),
                Some(n) => n,
                None => 0,
            },
        },
        NodeDef::KeepRunningUntilFailure(_) => Kind::KeepRunningUntilFailure,
        NodeDef::RunOnce(d) => Kind::RunOnce {
            then_skip: d.then_skip,
        },
        NodeDef::Delay(d) => Kind::Delay {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::Cooldown(d) => Kind::Cooldown {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::MinDuration(d) => Kind::MinDuration {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::Timeout(d) => Kind::Timeout {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::Guard(d) => Kind::Guard {
            cond: c.checks(file, &d.when)?,
        },

        NodeDef::Action(d) => {
            let id = match c.vocab.actions.get(&d.action) {
                Some(id) => *id,
                None if c.vocab.permissive => ActionId::of(&d.action),
                None => {
                    let mut known: Vec<&str> = c.vocab.actions.keys().map(String::as_str).collect();
                    known.sort_unstable();
                    return Err(c.err_part(
                        file,
                        "action",
                        &d.action,
                        BtProblem::UnknownAction {
                            name: d.action.clone(),
                            known: if known.is_empty() {
                                "none".into()
                            } else {
                                known.join(", ")
                            },
                        },
                    ));
                }
            };
            if let Some(other) =
                c.p.actions
                    .iter()
                    .find(|a| a.id == id && *a.name != *d.action)
            {
                return Err(c.err_at(
                    file,
                    &d.action,
                    BtProblem::ActionIdClash {
                        name: d.action.clone(),
                        other: other.name.to_string(),
                    },
                ));
            }
            let schema = c.vocab.schemas.get(&d.action).map(Vec::as_slice);
            let params = c.action_params(file, &d.action, &d.params, schema)?;
            let name: Arc<str> = Arc::from(d.action.as_str());
            let reads_keys = params
                .iter()
                .any(|(_, p)| matches!(p, crate::program::Param::Key { .. }));
            c.p.actions.push(ActionInfo {
                id,
                name,
                params,
                node: idx,
                reads_keys,
            });
            Kind::Action {
                action: c.p.actions.len() as u32 - 1,
            }
        }
        NodeDef::Condition(d) => Kind::Condition {
            cond: c.check(file, &d.check)?,
        },
        NodeDef::CheckWorldStateFlags(d) => {
            let checks: Vec<Check> = d
                .flags
                .iter()
                .map(|(f, v)| Check::World(f.clone(), crate::value::Op::Eq, Value::Bool(*v)))
                .collect();
            Kind::Condition {
                cond: c.check(file, &Check::All(checks))?,
            }
        }
        NodeDef::CheckWorldStateCounters(d) => {
            let checks: Vec<Check> = d
                .counters
                .iter()
                .map(|(c, op, v)| Check::World(c.clone(), *op, Value::Int(*v)))
                .collect();
            Kind::Condition {
                cond: c.check(file, &Check::All(checks))?,
            }
        }
        NodeDef::Rule(d) => Kind::Rule {
            cond: c.check(file, &d.check)?,
        },
        NodeDef::Threshold(d) if d.count == 0 => {
            let hint = "would succeed without polling its condition once";
            return Err(zero(c, "Threshold", "count", hint));
        }
        NodeDef::Threshold(d) => Kind::Threshold {
            cond: c.check(file, &d.check)?,
            count: d.count,
        },
        NodeDef::Wait(d) => Kind::Wait {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::Succeed(_) => Kind::Succeed,
        NodeDef::Fail(_) => Kind::Fail,
        NodeDef::Forever(_) => Kind::Forever,
        NodeDef::Impulse(d) => {
            if c.find_behavior(file, &d.behavior).is_none() {
                return Err(c.err_ref(
                    file,
                    &d.behavior,
                    BtProblem::UnknownBehavior(d.behavior.clone()),
                ));
            }
            let when = c.checks(file, &d.when)?;
            c.p.impulses.push(ImpulseInfo {
                node: idx,
                behavior: d.behavior.clone(),
                when,
                redirect_to: NONE,
            });
            let impulse = c.p.impulses.len() as u32 - 1;
            match d.mode {
                ImpulseMode::InPlace => {
                    *in_place_impulse = Some(crate::compile::InPlace {
                        file: file.to_owned(),
                        behavior: d.behavior.clone(),
                        with: d.with.clone(),
                    });
                }
                ImpulseMode::Redirect if !d.with.is_empty() => {
                    return Err(c.err_ref(
                        file,
                        &d.behavior,
                        BtProblem::RedirectWith(d.behavior.clone()),
                    ));
                }
                ImpulseMode::Redirect => {
                    c.redirects.push(crate::compile::Redirect {
                        impulse,
                        file: file.to_owned(),
                        behavior: d.behavior.clone(),
                        from: file.to_owned(),
                    });
                }
            }
            Kind::Impulse { impulse }
        }
        NodeDef::Custom(d) => {
            let Some(node) = c.vocab.customs.get(&d.kind).cloned() else {
                return Err(c.err_at(file, &d.kind, BtProblem::UnknownCustom(d.kind.clone())));
            };
            let (min, max) = node.arity();
            arity(c, min, max)?;
            c.p.customs.push(CustomInfo {
                kind: d.kind.clone(),
                node,
                params: d
                    .params
                    .iter()
                    .map(|(k, v)| (k.as_str().into(), *v))
                    .collect(),
            });
            Kind::Custom {
                custom: c.p.customs.len() as u32 - 1,
            }
        }
        NodeDef::Use(_) => unreachable!("handled above"),
    })
}
