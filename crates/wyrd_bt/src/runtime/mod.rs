//! The interpreter: one tick of one agent over a shared [`Program`].
//!
//! Per-agent state is one allocation of flat arrays made when the agent
//! binds to a program; a tick allocates nothing. Besides walking from the
//! root, a tick may skip its walk, take an action's report where the action
//! is, or look a fresh walk up in the program's decision table: shortcuts
//! with the walk's outcome (see [`tick_agent`]).

mod actions;
mod composites;
mod custom;
mod decorators;
mod fresh;
mod halo;
mod interp;
mod leaves;
mod shortcuts;
mod state;
mod stimuli;
mod trace;
mod trainz;
mod utility;

pub use crate::custom::CustomCtx;
pub(crate) use actions::slot_node;
pub use actions::{ActionState, ActiveAction, BtActions};

pub(crate) use interp::Interp;
pub(crate) use shortcuts::{
    commitment_ended, inputs_key, quiet_since_walk, resume_point, skip_walk, walked,
};
pub use state::{AgentState, SnapshotStimulus, StateSnapshot};
pub use stimuli::{MAX_STIMULI, Stimulus, StimulusError};
pub use trace::{
    ActionEvent, ChildScore, TickTrace, UtilityChoice, UtilityDecision, UtilityReason,
};

use crate::blackboard::Blackboard;
use crate::program::Program;

/// Most times a looping decorator (`Repeat`, `RetryUntilSuccessful`) runs
/// its child again within one tick; then it reports Running and goes on in
/// the next tick (a tree of instant children cannot hang the game).
pub const LOOPS_PER_TICK: u32 = 32;

pub(crate) use crate::status::flag;
pub use crate::status::{NodeState, Status};

/// How a tick went ([`AgentState::last_tick`]): each has the outcome of a
/// walk from the root; the two shortcuts do less work for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TickKind {
    /// Walked the tree from the root.
    Walked,
    /// Took an action's report where the action is, going up from it,
    /// instead of walking down from the root.
    Resumed,
    /// Skipped the walk: nothing the tree reads changed and no action
    /// reported (time passed, the action slots moved on).
    Skipped,
}

/// Answers predicates the program has no implementation for (tools).
pub type PredicateStub<'a> = &'a dyn Fn(&str) -> bool;

/// What one tick reads besides the agent's own components.
#[derive(Clone, Copy, Default)]
pub struct TickEnv<'a> {
    /// Answers for predicates the program has no implementation for.
    pub stub: Option<PredicateStub<'a>>,
    /// World values, one per [`Program::globals`] entry (`None`: unknown).
    pub globals: &'a [Option<crate::value::Value>],
    /// Changes whenever any world value changes (lets unchanged agents skip
    /// their walk).
    pub globals_generation: u64,
    /// Start the root again in the same tick when it finishes (trees that
    /// repeat forever have no idle tick between cycles).
    pub repeat: bool,
    /// Never skip a walk (tools that change predicate answers behind the
    /// blackboard's back).
    pub always_walk: bool,
    /// The tick period in µs, when known more exactly than `dt_ms` (30 Hz:
    /// 33,333 µs): durations are counted in ticks of this period. 0: `dt_ms`.
    /// An agent of a tick tier ([`BtTier`](crate::BtTier)) counts in the
    /// schedule's steps (its tick advances by many): durations end at its
    /// first tick after they passed, whatever its tier.
    pub dt_us: u32,
}

/// One tick of one agent: advances time by `dt_ms`, removes expired stimuli
/// and finished action slots, then walks the tree from the root.
///
/// Two shortcuts give the same outcome with less work (the tree's node
/// states, cursors, timers and action slots are those of the walk; only the
/// paused flag of finished nodes a walk would pass by keeps its last
/// value): a tick in which nothing the tree reads changed skips the walk,
/// and a tick whose only news is the report of the running action takes it
/// where the action is and goes up from there. Both need the last walk to
/// be settled (nothing stopped running in it but by succeeding), and only
/// trees whose decisions do not depend on time use them (the second: made
/// of prioritized lists, sequences and selectors). `TickEnv::always_walk`
/// turns them off; a traced tick never resumes.
pub fn tick_agent(
    program: &Program,
    state: &mut AgentState,
    blackboard: &mut Blackboard,
    actions: &mut BtActions,
    dt_ms: u32,
    env: TickEnv<'_>,
) -> Status {
    tick_agent_traced(program, state, blackboard, actions, dt_ms, env, None)
}

/// [`tick_agent`], recording what the tick did (nodes ticked, actions
/// started / finished / aborted) into `trace` (cleared first). Used by
/// `wyrd sim`, the inspector's history and tests.
pub fn tick_agent_traced(
    program: &Program,
    state: &mut AgentState,
    blackboard: &mut Blackboard,
    actions: &mut BtActions,
    dt_ms: u32,
    env: TickEnv<'_>,
    mut trace: Option<&mut TickTrace>,
) -> Status {
    // Most ticks of a settled crowd change nothing the tree reads: those
    // are decided here, before any interpreter state is set up.
    let quiet = quiet_since_walk(program, state, blackboard, &env)
        && (program.commits.is_empty()
            || !commitment_ended(
                program,
                state,
                state.now_ms.wrapping_add(dt_ms),
                if env.dt_us > 0 {
                    env.dt_us
                } else {
                    dt_ms.saturating_mul(1000)
                },
            ));
    if quiet && skip_walk(state, actions, dt_ms) {
        if let Some(t) = trace.as_deref_mut() {
            t.clear();
        }
        return Status::Running;
    }
    let resume = if quiet && program.resumable && trace.is_none() {
        resume_point(program, state, actions)
    } else {
        None
    };
    walk_agent(
        program, state, blackboard, actions, dt_ms, env, trace, resume,
    )
}

#[inline(never)]
#[allow(clippy::too_many_arguments, reason = "the tick's inputs")]
fn walk_agent(
    program: &Program,
    state: &mut AgentState,
    blackboard: &mut Blackboard,
    actions: &mut BtActions,
    dt_ms: u32,
    env: TickEnv<'_>,
    mut trace: Option<&mut TickTrace>,
    resume: Option<u32>,
) -> Status {
    if state.mem.nodes().len() != program.nodes.len() {
        *state = AgentState::new(program, 0);
    }
    if let Some(t) = trace.as_deref_mut() {
        t.clear();
    }
    state.now_ms = state.now_ms.wrapping_add(dt_ms);
    state.ticks += 1;
    let count_us = if env.dt_us > 0 {
        env.dt_us
    } else {
        dt_ms.saturating_mul(1000)
    };
    if !state.stimuli.is_empty() {
        // Inserted one step before this tick: for an agent ticking every
        // step, at its last tick (`dt_ms`); for a tiered one, in the step
        // before (a slow tier's tick advances by many steps at once).
        state.stamp_stimuli(dt_ms.min(count_us.div_ceil(1000)));
    }
    let mut it = Interp::new(program, state, blackboard, actions, trace);
    it.stub = env.stub;
    it.globals = env.globals;
    it.dt_us = count_us;
    it.tables = !env.always_walk;
    // Reports are taken by the action leaves in the walk.
    it.reports = it
        .actions
        .settle(false, it.st.walked & walked::KEEP_ABORTED != 0);
    it.st.seen_inputs = inputs_key(it.bb.generation(), env.globals_generation);
    it.expire_stimuli();
    let status = match resume {
        Some(leaf) => it.bubble(leaf),
        None => {
            for n in it.st.mem.nodes_mut().iter_mut() {
                n.add_flags(flag::PAUSED);
            }
            it.walk()
        }
    };
    it.st.status = status;
    it.st.live = status;
    if env.repeat && status != Status::Running {
        // `RunMode::Repeat`: the tick reports the finished cycle; the root
        // starts its next cycle in this same tick (no idle tick), as a new
        // activation. Every node it ticks starts fresh, so what stopped in
        // the first walk does not unsettle the second.
        it.unsettled = false;
        it.st.live = it.walk();
    }
    it.st.walked = if it.unsettled { walked::UNSETTLED } else { 0 }
        | if resume.is_some() { walked::RESUMED } else { 0 };
    let unset = it.unset.get();
    if unset != 0 {
        it.st.mem.add_unset(unset);
    }
    status
}
