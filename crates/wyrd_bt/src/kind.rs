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
    SetBlackboard { write: u32 },
    UnsetBlackboard { key: u16 },
    Succeed,
    Fail,
    Forever,
    // Game-registered.
    Custom { custom: u32 },
}

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
    /// Whether, and how, it reads as one condition when it is made of
    /// conditions only (instant: finishes in the tick it starts, no
    /// effects, usable as a guard).
    pub(crate) instant: Instant,
    /// When it can ever complete (Trainz DOES_COMPLETE).
    pub(crate) done: Done,
    /// Whether it draws from the agent's random numbers.
    pub(crate) random: Random,
    /// Whether the tick's resume shortcut can continue it from a finished
    /// child (`bubble` in `runtime/mod.rs` has its continuation).
    pub(crate) resume: Resume,
    /// Its leading instant children are guards: re-checked every tick, a
    /// broken one stops it (and they are its relevancy).
    pub leading_guards: bool,
    /// Its children run at the same time: their actions count together for
    /// the agent's action slots, and their statuses start over when it
    /// starts afresh.
    pub concurrent: bool,
    /// A stimulus can be inserted into it (a competition of children by
    /// priority).
    pub stimulus_target: bool,
    /// Its rule, one line (the crate docs' node table).
    pub rule: &'static str,
    /// BehaviorTree.CPP 4.x equivalent (`-`: none).
    pub bt_cpp: &'static str,
    /// Unreal Engine behavior tree equivalent (`-`: none).
    pub unreal: &'static str,
}

/// How a kind made of conditions only reads as one condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Instant {
    /// Never instant (it has effects, time or memory).
    Never,
    /// Its own condition (a `Condition` leaf).
    Own,
    /// Always true (`Succeed`).
    True,
    /// Always false (`Fail`).
    False,
    /// The opposite of its child, when the child is instant.
    Not,
    /// All children hold, when all are instant.
    All,
    /// Some child holds, when all are instant.
    Any,
}

/// When a kind can ever complete, from what its children can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Done {
    /// Always can.
    Always,
    /// Never does.
    Never,
    /// When every child can.
    AllChildren,
    /// When some child can.
    AnyChild,
    /// When some child after the first can (the branches of if / while).
    LaterChild,
    /// When as many children can as its `success` threshold needs.
    SuccessCount,
    /// When its count is finite and its child can.
    RepeatCount,
    /// When it has a child of its own (not a redirect) that can.
    OwnChild,
}

/// Whether a kind draws random numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Random {
    /// Never.
    Never,
    /// Always (custom nodes may).
    Always,
    /// When its `random` option is set.
    WhenAsked,
}

/// Whether the resume shortcut can continue a kind from a finished child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resume {
    /// No: a tree with it always walks from the root.
    No,
    /// Yes.
    Yes,
    /// When the node is instant.
    IfInstant,
}

const ANY: usize = usize::MAX;

use AuxInit as A;
use CursorInit as C;
use Done as D;
use Family as F;
use Instant as I;
use Random as R;

impl Kind {
    /// The facts about this kind: its row of the table.
    pub const fn info(&self) -> KindInfo {
        match self {
            Kind::Sequence => KindInfo {
                name: "Sequence",
                family: F::Standard,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::Zero,
                timed: false,
                instant: I::All,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::Yes,
                leading_guards: true,
                concurrent: false,
                stimulus_target: false,
                rule: "children in order; a running child is resumed, finished ones are not re-checked; a failure resets it",
                bt_cpp: "Sequence",
                unreal: "Sequence",
            },
            Kind::SequenceWithMemory => KindInfo {
                name: "SequenceWithMemory",
                family: F::Standard,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::Keep,
                timed: false,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: true,
                concurrent: false,
                stimulus_target: false,
                rule: "like Sequence, but after a failure the next activation retries the failed child, not the first",
                bt_cpp: "SequenceWithMemory",
                unreal: "-",
            },
            Kind::ReactiveSequence => KindInfo {
                name: "ReactiveSequence",
                family: F::Standard,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::All,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: true,
                concurrent: false,
                stimulus_target: false,
                rule: "every tick from the first child (actions too); a child running halts the later ones",
                bt_cpp: "ReactiveSequence",
                unreal: "-",
            },
            Kind::GuardSequence => KindInfo {
                name: "GuardSequence",
                family: F::Standard,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::Zero,
                timed: false,
                instant: I::All,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::Yes,
                leading_guards: true,
                concurrent: false,
                stimulus_target: false,
                rule: "children in order; its leading conditions are guards re-checked every tick, a broken guard stops it",
                bt_cpp: "ReactiveSequence over the guards + Sequence",
                unreal: "Sequence with a Blackboard decorator (Observer aborts: Self)",
            },
            Kind::Selector => KindInfo {
                name: "Selector",
                family: F::Standard,
                min_children: 1,
                max_children: ANY,
                aux: A::NoChild,
                cursor: C::None,
                timed: false,
                instant: I::Any,
                done: D::AnyChild,
                random: R::Never,
                resume: Resume::Yes,
                leading_guards: false,
                concurrent: false,
                stimulus_target: true,
                rule: "the first child that does not fail; kept until it finishes (alias `Fallback`)",
                bt_cpp: "Fallback",
                unreal: "Selector",
            },
            Kind::ReactiveFallback => KindInfo {
                name: "ReactiveFallback",
                family: F::Standard,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::AnyChild,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "every tick from the first child (actions too); the first that runs or succeeds halts the others",
                bt_cpp: "ReactiveFallback",
                unreal: "Selector with Observer aborts: Lower Priority (without relevancy)",
            },
            Kind::Parallel { .. } => KindInfo {
                name: "Parallel",
                family: F::Standard,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::SuccessCount,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: true,
                stimulus_target: false,
                rule: "children in order, finished ones not re-ticked; decides after each child (`success` / `failure` thresholds: All, One, Count(n)), then halts the rest",
                bt_cpp: "Parallel (success_count / failure_count)",
                unreal: "Simple Parallel",
            },
            Kind::ParallelAll { .. } => KindInfo {
                name: "ParallelAll",
                family: F::Standard,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: true,
                stimulus_target: false,
                rule: "every child runs to its end (never stops early); then fails if `max_failures` (default 1) failed, else succeeds",
                bt_cpp: "ParallelAll (max_failures)",
                unreal: "-",
            },
            Kind::IfThenElse => KindInfo {
                name: "IfThenElse",
                family: F::Standard,
                min_children: 2,
                max_children: 3,
                aux: A::None,
                cursor: C::Zero,
                timed: false,
                instant: I::Never,
                done: D::LaterChild,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "ticks the first child once; success runs the second, failure the third (or fails); not re-checked",
                bt_cpp: "IfThenElse",
                unreal: "-",
            },
            Kind::WhileDoElse => KindInfo {
                name: "WhileDoElse",
                family: F::Standard,
                min_children: 2,
                max_children: 3,
                aux: A::None,
                cursor: C::Zero,
                timed: false,
                instant: I::Never,
                done: D::LaterChild,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "the first child every tick; success runs the second, failure the third (or fails); a change halts the other branch",
                bt_cpp: "WhileDoElse",
                unreal: "-",
            },
            Kind::Switch { .. } => KindInfo {
                name: "Switch",
                family: F::Standard,
                min_children: 2,
                max_children: ANY,
                aux: A::None,
                cursor: C::Unchosen,
                timed: false,
                instant: I::Never,
                done: D::AnyChild,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "the child of the case equal to a blackboard key, else the last (default); re-checked every tick",
                bt_cpp: "Switch2..Switch6",
                unreal: "-",
            },
            Kind::PrioritizedList => KindInfo {
                name: "PrioritizedList",
                family: F::Halo,
                min_children: 1,
                max_children: ANY,
                aux: A::NoChild,
                cursor: C::None,
                timed: false,
                instant: I::Any,
                done: D::AnyChild,
                random: R::Never,
                resume: Resume::Yes,
                leading_guards: false,
                concurrent: false,
                stimulus_target: true,
                rule: "first relevant child runs; a higher-priority child interrupts it only by taking over (running or succeeding)",
                bt_cpp: "ReactiveFallback",
                unreal: "Selector with Observer aborts: Lower Priority",
            },
            Kind::Sequential => KindInfo {
                name: "Sequential",
                family: F::Halo,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::Zero,
                timed: false,
                instant: I::Never,
                done: D::Always,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "children in order, skipping those not relevant, never revisiting; succeeds at the end",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::SequentialLooping => KindInfo {
                name: "SequentialLooping",
                family: F::Halo,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::Zero,
                timed: true,
                instant: I::Never,
                done: D::Never,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "like Sequential, then starts again from the first",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::Probabilistic { .. } => KindInfo {
                name: "Probabilistic",
                family: F::Halo,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::Unchosen,
                timed: false,
                instant: I::Never,
                done: D::AnyChild,
                random: R::Always,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "a random relevant child (optional `weights`), seeded per agent",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::OneOff { .. } => KindInfo {
                name: "OneOff",
                family: F::Halo,
                min_children: 1,
                max_children: 32,
                aux: A::Keep,
                cursor: C::Unchosen,
                timed: false,
                instant: I::Never,
                done: D::AnyChild,
                random: R::WhenAsked,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "picks (first or `random`) among relevant children never chosen before",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::Impulse { .. } => KindInfo {
                name: "Impulse",
                family: F::Halo,
                min_children: 0,
                max_children: 1,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::OwnChild,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "a behavior with its own relevancy `when` (its guard while it runs), run in place or at its native position",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::Ordered => KindInfo {
                name: "Ordered",
                family: F::Trainz,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "Trainz: the first child not WAS_COMPLETE runs, the others are paused; completes when all are",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::Simultaneous => KindInfo {
                name: "Simultaneous",
                family: F::Trainz,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: true,
                stimulus_target: false,
                rule: "Trainz: children not COMPLETE run; completes when all are WAS_COMPLETE, then pauses them",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::SelectOne { .. } => KindInfo {
                name: "SelectOne",
                family: F::Trainz,
                min_children: 1,
                max_children: ANY,
                aux: A::None,
                cursor: C::Unchosen,
                timed: false,
                instant: I::Never,
                done: D::AnyChild,
                random: R::WhenAsked,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "Trainz: one relevant child (first, or `random`) chosen at start, run until WAS_COMPLETE",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::Invert => KindInfo {
                name: "Invert",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Not,
                done: D::Always,
                random: R::Never,
                resume: Resume::IfInstant,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "swaps success and failure",
                bt_cpp: "Inverter",
                unreal: "Blackboard decorator with Inverse Condition",
            },
            Kind::ForceSuccess => KindInfo {
                name: "ForceSuccess",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::Always,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "a finished child succeeds",
                bt_cpp: "ForceSuccess",
                unreal: "Force Success",
            },
            Kind::ForceFailure => KindInfo {
                name: "ForceFailure",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::Never,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "a finished child fails",
                bt_cpp: "ForceFailure",
                unreal: "-",
            },
            Kind::Repeat { .. } => KindInfo {
                name: "Repeat",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::Zero,
                cursor: C::None,
                timed: true,
                instant: I::Never,
                done: D::RepeatCount,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "runs the child `count` times (default forever), the next run in the tick the last ended; a failure fails",
                bt_cpp: "Repeat (num_cycles)",
                unreal: "Loop",
            },
            Kind::RetryUntilSuccessful { .. } => KindInfo {
                name: "RetryUntilSuccessful",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::Zero,
                cursor: C::None,
                timed: true,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "re-runs a failed child in the same tick, up to `attempts` runs (default forever); success succeeds",
                bt_cpp: "RetryUntilSuccessful (num_attempts)",
                unreal: "-",
            },
            Kind::KeepRunningUntilFailure => KindInfo {
                name: "KeepRunningUntilFailure",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::None,
                cursor: C::None,
                timed: true,
                instant: I::Never,
                done: D::Never,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "a succeeded child starts again on the next tick; running until the child fails",
                bt_cpp: "KeepRunningUntilFailure",
                unreal: "-",
            },
            Kind::RunOnce { .. } => KindInfo {
                name: "RunOnce",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::Keep,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "runs the child once per agent; afterwards Skipped (parents carry on), or its first result with `then_skip: false`",
                bt_cpp: "RunOnce (then_skip)",
                unreal: "-",
            },
            Kind::Delay { .. } => KindInfo {
                name: "Delay",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::Now,
                cursor: C::None,
                timed: true,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "running for `seconds` (round(seconds*hz) ticks), then ticks the child",
                bt_cpp: "Delay (delay_msec)",
                unreal: "Wait + Sequence",
            },
            Kind::Cooldown { .. } => KindInfo {
                name: "Cooldown",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::Keep,
                cursor: C::None,
                timed: true,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "after the child finishes, fails (not relevant) for `seconds`",
                bt_cpp: "-",
                unreal: "Cooldown",
            },
            Kind::MinDuration { .. } => KindInfo {
                name: "MinDuration",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::Now,
                cursor: C::None,
                timed: true,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "its nearest PrioritizedList cannot interrupt it for `seconds` (against dithering)",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::Timeout { .. } => KindInfo {
                name: "Timeout",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::Now,
                cursor: C::None,
                timed: true,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "halts the child and fails after `seconds`",
                bt_cpp: "Timeout (msec)",
                unreal: "Time Limit",
            },
            Kind::Guard { .. } => KindInfo {
                name: "Guard",
                family: F::Decorator,
                min_children: 1,
                max_children: 1,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::AllChildren,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "ticks the child while `when` holds; halts it and fails when it stops holding",
                bt_cpp: "Precondition (_while)",
                unreal: "Blackboard decorator (Observer aborts: Self)",
            },
            Kind::Action { .. } => KindInfo {
                name: "Action",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::Always,
                random: R::Never,
                resume: Resume::Yes,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "a game action: running until the game reports success or failure",
                bt_cpp: "StatefulActionNode",
                unreal: "Task",
            },
            Kind::Condition { .. } => KindInfo {
                name: "Condition",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Own,
                done: D::Always,
                random: R::Never,
                resume: Resume::Yes,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "succeeds or fails at once (also `CheckWorldStateFlags`, `CheckWorldStateCounters`)",
                bt_cpp: "ConditionNode / ScriptCondition",
                unreal: "Blackboard decorator",
            },
            Kind::Rule { .. } => KindInfo {
                name: "Rule",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::Always,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "Trainz condition rule: running until the condition holds, COMPLETE while it holds",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::Threshold { .. } => KindInfo {
                name: "Threshold",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::Zero,
                cursor: C::None,
                timed: true,
                instant: I::Never,
                done: D::Always,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "counts ticks in which the condition holds; succeeds at `count`",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::Wait { .. } => KindInfo {
                name: "Wait",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::Now,
                cursor: C::None,
                timed: true,
                instant: I::Never,
                done: D::Always,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "running for `seconds` (round(seconds*hz) ticks), then succeeds",
                bt_cpp: "Sleep (msec)",
                unreal: "Wait",
            },
            Kind::SetBlackboard { .. } => KindInfo {
                name: "SetBlackboard",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::Always,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "writes `key` (a constant, or `\"{other}\"`: a copy of that key) and succeeds in the same tick, so later siblings read the new value; fails when the key it copies is unset",
                bt_cpp: "SetBlackboard",
                unreal: "-",
            },
            Kind::UnsetBlackboard { .. } => KindInfo {
                name: "UnsetBlackboard",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::Always,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "clears `key` (conditions on it read it unset) and succeeds in the same tick",
                bt_cpp: "UnsetBlackboard",
                unreal: "-",
            },
            Kind::Succeed => KindInfo {
                name: "Succeed",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::True,
                done: D::Always,
                random: R::Never,
                resume: Resume::Yes,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "succeeds",
                bt_cpp: "AlwaysSuccess",
                unreal: "-",
            },
            Kind::Fail => KindInfo {
                name: "Fail",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::False,
                done: D::Never,
                random: R::Never,
                resume: Resume::Yes,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "fails",
                bt_cpp: "AlwaysFailure",
                unreal: "-",
            },
            Kind::Forever => KindInfo {
                name: "Forever",
                family: F::Leaf,
                min_children: 0,
                max_children: 0,
                aux: A::None,
                cursor: C::None,
                timed: false,
                instant: I::Never,
                done: D::Never,
                random: R::Never,
                resume: Resume::No,
                leading_guards: false,
                concurrent: false,
                stimulus_target: false,
                rule: "running forever (never completes: DOES_COMPLETE unset)",
                bt_cpp: "-",
                unreal: "-",
            },
            Kind::Custom { .. } => KindInfo {
                name: "Custom",
                family: F::Custom,
                min_children: 0,
                max_children: ANY,
                aux: A::Zero,
                cursor: C::Zero,
                timed: true,
                instant: I::Never,
                done: D::Always,
                random: R::Always,
                resume: Resume::No,
                leading_guards: false,
                concurrent: true,
                stimulus_target: false,
                rule: "a game-registered composite or decorator (`register_bt_node`)",
                bt_cpp: "custom ControlNode / DecoratorNode",
                unreal: "custom Composite / Decorator",
            },
        }
    }

    /// Its children run at the same time (the row's `concurrent`).
    pub const fn concurrent(&self) -> bool {
        self.info().concurrent
    }

    /// It draws from the agent's random numbers (the row's `random`, and
    /// the node's own `random` option where the row says so).
    pub const fn uses_random(&self) -> bool {
        match self.info().random {
            Random::Never => false,
            Random::Always => true,
            Random::WhenAsked => matches!(
                self,
                Kind::OneOff { random: true } | Kind::SelectOne { random: true }
            ),
        }
    }

    /// Whether a node of this kind is resumable by the resume shortcut
    /// (the row's `resume`; `instant`: the node is).
    pub const fn resumable(&self, instant: bool) -> bool {
        match self.info().resume {
            Resume::No => false,
            Resume::Yes => true,
            Resume::IfInstant => instant,
        }
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
        Kind::SetBlackboard { write: 0 },
        Kind::UnsetBlackboard { key: 0 },
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
        let row = self.info();
        let instant = match row.instant {
            Instant::Never => false,
            Instant::Own | Instant::True | Instant::False => true,
            Instant::Not | Instant::All | Instant::Any => f.all_instant,
        };
        let done = match row.done {
            Done::Always => true,
            Done::Never => false,
            Done::AllChildren => f.all_done,
            Done::AnyChild => f.any_done,
            Done::LaterChild => f.later_done,
            Done::SuccessCount => f.done >= self.success_needed(f.count),
            Done::RepeatCount => matches!(self, Kind::Repeat { count } if *count > 0) && f.all_done,
            Done::OwnChild => !f.redirect && f.all_done && f.count > 0,
        };
        (instant, done)
    }

    /// How many children must succeed for a `Parallel` to (0 in the file:
    /// all of them).
    fn success_needed(&self, children: usize) -> usize {
        match *self {
            Kind::Parallel { success, .. } if success > 0 => success as usize,
            _ => children,
        }
    }
}

#[cfg(test)]
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

/// Every kind's row checked against what a tree of that kind does: the
/// table is the single source of these facts, so a wrong row is a wrong
/// behaviour, and this test names the kind.
#[cfg(test)]
mod row_tests {
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
    /// for decorators; none for leaves).
    fn template(kind: &str, kids: [&str; 2]) -> String {
        let [a, b] = kids;
        let two = format!("children: [{a}, {b}]");
        match kind {
            "Parallel" | "ParallelAll" | "Sequence" | "SequenceWithMemory" | "ReactiveSequence"
            | "GuardSequence" | "Selector" | "ReactiveFallback" | "IfThenElse" | "WhileDoElse"
            | "PrioritizedList" | "Sequential" | "SequentialLooping" | "Probabilistic"
            | "Ordered" | "Simultaneous" => format!("{kind}(name: \"root\", {two})"),
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
}
