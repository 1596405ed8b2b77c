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
mod leaves;
mod stimuli;
mod trace;
mod trainz;

pub use crate::custom::CustomCtx;
pub(crate) use actions::ListingChange;
pub use actions::{ActionState, ActiveAction, BtActions};

pub use stimuli::{MAX_STIMULI, Stimulus, StimulusError};
pub use trace::{ActionEvent, TickTrace};

use crate::blackboard::Blackboard;
use crate::kind::{AuxInit, CursorInit, Family};
use crate::program::{Cond, Kind, NONE, Program};

/// Most times a looping decorator (`Repeat`, `RetryUntilSuccessful`) runs
/// its child again within one tick; then it reports Running and goes on in
/// the next tick (a tree of instant children cannot hang the game).
pub const LOOPS_PER_TICK: u32 = 32;

pub(crate) use crate::status::rule;
pub use crate::status::{NodeState, Status};

/// The tree state of one agent. Lives in [`BtAgent`](crate::BtAgent).
#[derive(Debug, Clone, Default)]
// In this order: the skip's reads first (a skipped tick reads a few of
// these and nothing else).
#[repr(C)]
pub struct AgentState {
    /// The per-node arrays in one allocation ([`StateMem`]): aux words
    /// (timers, counters, running children), impulse win counts (per
    /// [`Program::impulses`]), composites' cursors (per
    /// [`Node::cursor`](crate::Node::cursor)), node states (per node, in
    /// program order).
    pub(crate) mem: StateMem,
    /// Inputs seen by the last walk: the blackboard's and the world's
    /// generations, their low 32 bits (a walk is skipped only when both
    /// are equal; a false match needs 2^32 changes between two ticks).
    pub(crate) seen_inputs: (u32, u32),
    /// Active stimuli.
    pub(crate) stimuli: stimuli::Stimuli,
    /// Ticks so far.
    pub(crate) ticks: u64,
    pub(crate) seed: u64,
    /// Agent time in ms (sum of its tick periods).
    pub(crate) now_ms: u32,
    /// Walks skipped because nothing the tree reads changed (wrapping).
    pub(crate) skipped: u32,
    /// Ticks that resumed instead of walking (wrapping).
    pub(crate) resumed: u32,
    /// What the last walk leaves for the next tick ([`walked`] bits).
    pub(crate) walked: u8,
    /// The root's status after the whole tick (a repeating tree that
    /// finished is already running its next cycle).
    pub(crate) live: Status,
    /// The root's status after the last tick.
    pub(crate) status: Status,
    /// A redirect impulse ran its behavior at the native position in the
    /// last tick (the next walk checks for a behavior left running by an
    /// impulse that stopped).
    pub(crate) redirect_live: bool,
}

/// An agent's whole tree state as plain data, by node index (valid for the
/// program it was taken from: recordings keep the tree's content hash
/// beside it).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StateSnapshot {
    /// Status and rule flags per node (packed bytes).
    pub nodes: Vec<u8>,
    /// Timers and counters.
    pub aux: Vec<u32>,
    /// Composites' cursors.
    pub cursors: Vec<u16>,
    /// Random state.
    pub rng: u64,
    /// Agent time in ms.
    pub now_ms: u32,
    /// Ticks so far.
    pub ticks: u64,
    /// Stimuli: target, root, priority, expires (ms), duration (ms).
    pub stimuli: Vec<(u32, u32, u16, u32, u32)>,
    /// Impulse win counts.
    pub impulse_fired: Vec<u32>,
    /// Root status after the last tick, and after the whole tick.
    pub status: (u8, u8),
    /// Redirect bookkeeping.
    pub redirect_live: bool,
    /// The seed.
    pub seed: u64,
}

impl AgentState {
    /// The random state (the seed's when the program draws no random
    /// numbers: it never moves).
    pub(crate) fn rng(&self) -> u64 {
        self.mem
            .rng()
            .unwrap_or(self.seed ^ crate::rng::SplitMix64::GAMMA)
    }

    /// The state as plain data (see [`StateSnapshot`]).
    pub fn snapshot(&self) -> StateSnapshot {
        StateSnapshot {
            nodes: self.mem.nodes().iter().map(|n| n.0).collect(),
            aux: self.mem.aux().to_vec(),
            cursors: self.mem.cursors().to_vec(),
            rng: self.rng(),
            now_ms: self.now_ms,
            ticks: self.ticks,
            stimuli: self
                .stimuli
                .iter()
                .map(|s| (s.target, s.root, s.priority, s.expires_ms, s.duration_ms))
                .collect(),
            impulse_fired: self.mem.impulses().to_vec(),
            status: (self.status as u8, self.live as u8),
            redirect_live: self.redirect_live,
            seed: self.seed,
        }
    }

    /// State from a snapshot of the same program; `None` when its sizes do
    /// not fit the program (another tree).
    pub fn from_snapshot(program: &Program, s: &StateSnapshot) -> Option<AgentState> {
        let fresh = AgentState::new(program, s.seed);
        if s.nodes.len() != fresh.mem.nodes().len()
            || s.aux.len() != fresh.mem.aux().len()
            || s.cursors.len() != fresh.mem.cursors().len()
            || s.impulse_fired.len() != fresh.mem.impulses().len()
            || s.stimuli.iter().any(|st| {
                // A stimulus competes in a main-tree list with one of the
                // detached behaviors.
                st.0 >= program.detached_start
                    || !program.nodes[st.0 as usize].kind.info().stimulus_target
                    || !program.detached.values().any(|&r| r == st.1)
            })
        {
            return None;
        }
        // Cursors within their children, remembered children real nodes.
        for n in &program.nodes {
            if n.cursor != NONE {
                let c = s.cursors[n.cursor as usize];
                if c != u16::MAX && usize::from(c) > n.child_count as usize {
                    return None;
                }
            }
            if n.aux != NONE && n.facts.aux == crate::kind::AuxInit::NoChild {
                let a = s.aux[n.aux as usize];
                if a != NONE && a as usize >= program.nodes.len() {
                    return None;
                }
            }
        }
        let status = |b: u8| NodeState((b & 7) << 4).status();
        let mut stimuli = stimuli::Stimuli::default();
        for &(target, root, priority, expires_ms, duration_ms) in &s.stimuli {
            stimuli.push(Stimulus {
                target,
                root,
                priority,
                expires_ms,
                duration_ms,
            });
        }
        let mut mem = fresh.mem;
        for (to, &b) in mem.nodes_mut().iter_mut().zip(&s.nodes) {
            *to = NodeState(b);
        }
        mem.aux_mut().copy_from_slice(&s.aux);
        mem.cursors_mut().copy_from_slice(&s.cursors);
        mem.impulses_mut().copy_from_slice(&s.impulse_fired);
        mem.set_rng(s.rng);
        Some(AgentState {
            mem,
            now_ms: s.now_ms,
            ticks: s.ticks,
            stimuli,
            redirect_live: s.redirect_live,
            status: status(s.status.0),
            seed: s.seed,
            seen_inputs: (u32::MAX, u32::MAX),
            skipped: 0,
            resumed: 0,
            walked: 0,
            live: status(s.status.1),
        })
    }

    /// Fresh state for a program, seeded for reproducible random choices.
    pub fn new(program: &Program, seed: u64) -> Self {
        let mut mem = StateMem::new(
            program.aux_count as usize,
            program.impulses.len(),
            program.cursor_count as usize,
            program.nodes.len(),
            program.random,
            program.reads_unset,
        );
        mem.set_rng(seed ^ crate::rng::SplitMix64::GAMMA);
        for (s, n) in mem.nodes_mut().iter_mut().zip(&program.nodes) {
            s.add_flags(
                rule::PAUSED
                    | if n.does_complete {
                        rule::DOES_COMPLETE
                    } else {
                        0
                    },
            );
        }
        AgentState {
            mem,
            now_ms: 0,
            ticks: 0,
            // Allocated on the first insertion, not per agent up front.
            stimuli: stimuli::Stimuli::default(),
            redirect_live: false,
            status: Status::Idle,
            seed,
            seen_inputs: (u32::MAX, u32::MAX),
            skipped: 0,
            resumed: 0,
            walked: 0,
            live: Status::Idle,
        }
    }

    /// Resets everything (statuses, flags, timers, stimuli) as at spawn.
    pub fn reset(&mut self, program: &Program, actions: &mut BtActions) {
        // Reports of the old activation are dropped (the fresh tree must
        // not take them); running actions are told to stop.
        actions
            .slots
            .retain(|a| a.is_running() || a.state == ActionState::Aborted);
        for a in actions.slots.iter_mut() {
            if a.is_running() {
                a.state = ActionState::Aborted;
            }
        }
        let now = self.now_ms;
        let ticks = self.ticks;
        *self = AgentState::new(program, self.seed);
        self.now_ms = now;
        self.ticks = ticks;
    }

    /// Bytes of tree state held for this agent (heap included).
    pub fn heap_bytes(&self) -> usize {
        self.mem.heap_bytes() + self.stimuli.heap_bytes()
    }

    /// Leaves running after the last tick, in tree order.
    pub fn active_leaves<'a>(&'a self, program: &'a Program) -> impl Iterator<Item = u32> + 'a {
        (0..program.nodes.len() as u32).filter(move |&i| {
            program.nodes[i as usize].kind.is_leaf()
                && self.mem.node(i as usize).status() == Status::Running
                && self.mem.node(i as usize).bits() & rule::PAUSED == 0
        })
    }
}

/// Answers predicates the program has no implementation for (tools).
pub type PredicateStub<'a> = &'a dyn Fn(&str) -> bool;

pub(crate) struct Interp<'a> {
    p: &'a Program,
    st: &'a mut AgentState,
    bb: &'a mut Blackboard,
    actions: &'a mut BtActions,
    stub: Option<PredicateStub<'a>>,
    globals: &'a [Option<crate::value::Value>],
    /// This tick's period in µs: timers and stimuli count whole ticks, so a
    /// duration of S seconds lasts round(S·hz) ticks (halves round up)
    /// whatever the rounding of agent time to milliseconds.
    dt_us: u32,
    /// The node whose leading guards are not asked: the behavior an impulse
    /// runs (the impulse's relevancy stands in for them).
    unguarded: u32,
    /// The behavior a redirect impulse ran at its native position in this
    /// tick: halts of the impulse's old branch spare it.
    spare: u32,
    /// Where the tick's events go, when someone asked for them.
    trace: Option<&'a mut TickTrace>,
    /// Keys conditions read unset in this tick (see `AgentState::unset_reads`).
    unset: std::cell::Cell<u64>,
    /// A node stopped running in this walk (see [`walked::UNSETTLED`]).
    unsettled: bool,
    /// Fresh walks may come from the program's table (not for agents that
    /// always walk).
    tables: bool,
}

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
    let quiet = quiet_since_walk(program, state, blackboard, &env);
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

/// Whether a tick may resume at the running action that reported instead
/// of walking down from the root, and which action: the inputs did not
/// change since the last walk, which was settled (see
/// [`walked::UNSETTLED`]), and the only news is the report of the one
/// running action. A walk from the root would then ask every guard and
/// relevancy on the way down again with the same inputs and get the same
/// answers (the program is skippable: nothing depends on time), try the
/// same higher priorities and see them fail the same way (a settled walk
/// is a fixed point), and reach the action with the same state; from there
/// each parent continues its loop with its child's result
/// ([`Interp::bubble`]). The two leave every node the same but for the
/// paused flag of finished nodes the walk would pass by, which stays as
/// the last walk left it (as after a skipped walk).
/// (Only asked in resumable programs, when [`quiet_since_walk`] holds.)
#[inline]
fn resume_point(program: &Program, state: &AgentState, actions: &BtActions) -> Option<u32> {
    let mut done = NONE;
    for a in &actions.slots {
        match a.state {
            ActionState::Succeeded | ActionState::Failed if done == NONE => done = a.node,
            ActionState::Aborted => {}
            // Another report, or a running action beside it.
            _ => return None,
        }
    }
    (done != NONE
        && (done as usize) < program.nodes.len()
        && matches!(program.nodes[done as usize].kind, Kind::Action { .. })
        && state.mem.node(done as usize).status() == Status::Running)
        .then_some(done)
}

/// The premise of both shortcuts: nothing the tree reads changed since its
/// last walk, which was settled (inputs, world values, stimuli; the tree's
/// decisions do not depend on time), and the root runs.
#[inline(always)]
fn quiet_since_walk(
    program: &Program,
    state: &AgentState,
    blackboard: &Blackboard,
    env: &TickEnv<'_>,
) -> bool {
    program.skippable
        && !env.always_walk
        && state.walked & walked::UNSETTLED == 0
        && state.live == Status::Running
        && !state.redirect_live
        && state.stimuli.is_empty()
        && state.seen_inputs == inputs_key(blackboard.generation(), env.globals_generation)
        && state.mem.nodes().len() == program.nodes.len()
}

/// The event-driven skip, when [`quiet_since_walk`] holds: without an action
/// report either, the walk would repeat the last one, so the tick only
/// advances time and passes the action slots on (started ones now run,
/// aborted ones go). Returns whether the tick was decided so.
#[inline(always)]
fn skip_walk(state: &mut AgentState, actions: &mut BtActions, dt_ms: u32) -> bool {
    let mut aborted = false;
    for a in actions.slots.iter_mut() {
        match a.state {
            ActionState::Started => a.state = ActionState::Running,
            ActionState::Running => {}
            ActionState::Aborted => aborted = true,
            // A report: the tree walks to take it (the walk passes the
            // slots again; the pass is idempotent).
            ActionState::Succeeded | ActionState::Failed => return false,
        }
    }
    if aborted {
        actions.slots.retain(|a| a.state != ActionState::Aborted);
    }
    state.now_ms = state.now_ms.wrapping_add(dt_ms);
    state.ticks += 1;
    state.skipped = state.skipped.wrapping_add(1);
    // The walk it stands for would have left the root running (a tick
    // after a finished cycle reports Running, not the cycle's end).
    state.status = Status::Running;
    true
}

/// A tick that walks the tree (see [`tick_agent_traced`]), or resumes at
/// the action that reported (`resume`, see [`resume_point`]).
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
    let mut it = Interp::new(program, state, blackboard, actions, trace);
    it.stub = env.stub;
    it.globals = env.globals;
    it.dt_us = if env.dt_us > 0 {
        env.dt_us
    } else {
        dt_ms.saturating_mul(1000)
    };
    it.tables = !env.always_walk;
    // One pass over the slots: started ones now run, aborted ones (told
    // last tick) go; reports are taken by the action leaves in the walk.
    let mut aborted = false;
    for a in it.actions.slots.iter_mut() {
        match a.state {
            ActionState::Started => a.state = ActionState::Running,
            ActionState::Aborted => aborted = true,
            ActionState::Succeeded | ActionState::Failed | ActionState::Running => {}
        }
    }
    if aborted {
        it.actions.slots.retain(|a| a.state != ActionState::Aborted);
    }
    it.st.seen_inputs = inputs_key(it.bb.generation(), env.globals_generation);
    it.expire_stimuli();
    let status = match resume {
        Some(leaf) => {
            it.st.resumed = it.st.resumed.wrapping_add(1);
            it.bubble(leaf)
        }
        None => {
            for n in it.st.mem.nodes_mut().iter_mut() {
                n.add_flags(rule::PAUSED);
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
    it.st.walked = if it.unsettled { walked::UNSETTLED } else { 0 };
    let unset = it.unset.get();
    if unset != 0 {
        it.st.mem.add_unset(unset);
    }
    status
}

impl<'a> Interp<'a> {
    /// One walk from the root.
    pub(crate) fn walk(&mut self) -> Status {
        if let Some(status) = self.fresh_walk() {
            return status;
        }
        let swept = self.st.redirect_live;
        self.spare = NONE;
        let status = self.tick_node(0);
        let live = self.spare != NONE;
        if swept || live {
            self.sweep_orphans();
        }
        self.st.redirect_live = live;
        status
    }

    /// A behavior a redirect impulse ran at its native position is left
    /// running when the impulse stops; if no parent ticked it in this walk,
    /// it stops now (an orphan: Running but not ticked).
    #[cold]
    fn sweep_orphans(&mut self) {
        for j in 0..self.p.nodes.len() as u32 {
            let s = self.st.mem.node_mut(j as usize);
            if s.status() == Status::Running && s.bits() & rule::PAUSED != 0 {
                let spare = std::mem::replace(&mut self.spare, NONE);
                self.halt(j);
                self.spare = spare;
            }
        }
    }

    fn next_random(&mut self) -> u64 {
        let mut r = crate::rng::SplitMix64(self.st.rng());
        let x = r.next();
        self.st.mem.set_rng(r.0);
        x
    }

    fn random_unit(&mut self) -> f32 {
        (self.next_random() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A duration in whole ticks of this tick's period: round(ms / period),
    /// halves up (agent time is kept in ms, so an elapsed time is a whole
    /// number of ticks give or take a millisecond, far from a half).
    #[inline]
    fn ticks_of(&self, ms: u32) -> u64 {
        // floor(ms / period + 0.501): the thousandth of a tick keeps exact
        // halves rounding up when the period itself was rounded to a µs
        // (60 Hz: 16,667 µs).
        let dt = u64::from(self.dt_us.max(1));
        (u64::from(ms) * 1_000_000 + dt * 501) / (dt * 1000)
    }

    /// Whether a duration of `ms` has passed since `start` (agent time),
    /// counted in ticks: S seconds at H Hz pass after round(S·H) ticks.
    #[inline]
    fn elapsed(&self, start: u32, ms: u32) -> bool {
        self.ticks_of(self.st.now_ms.wrapping_sub(start)) >= self.ticks_of(ms)
    }

    #[inline]
    fn tags_ok(&self, i: u32) -> bool {
        let n = &self.p.nodes[i as usize];
        let t = self.bb.tags();
        t & n.tags_all == n.tags_all
            && (n.tags_any == 0 || t & n.tags_any != 0)
            && t & n.tags_not == 0
    }

    /// [`eval`](Self::eval) with the common cases (folded bit tests)
    /// inlined at the call site.
    #[inline(always)]
    fn test(&self, c: u32) -> bool {
        match self.p.conds.get(c as usize) {
            Some(&Cond::Bits { mask, want }) => (self.bb.bools() ^ want) & mask == 0,
            Some(&Cond::AnyBits { mask, want }) => !(self.bb.bools() ^ want) & mask != 0,
            _ => self.eval(c),
        }
    }

    fn eval(&self, c: u32) -> bool {
        if c == NONE {
            return true;
        }
        match self.p.conds[c as usize] {
            Cond::Bits { mask, want } => (self.bb.bools() ^ want) & mask == 0,
            Cond::AnyBits { mask, want } => !(self.bb.bools() ^ want) & mask != 0,
            Cond::BbIs { key, value } => match self.bb.get_index(key) {
                Some(v) => v == crate::value::Value::Bool(value),
                None => self.unset(key),
            },
            Cond::Bb { key, op, value } => match self.bb.get_index(key) {
                Some(v) => op.eval(v, value),
                None => self.unset(key),
            },
            Cond::BbKey { key, op, other } => {
                match (self.bb.get_index(key), self.bb.get_index(other)) {
                    (Some(a), Some(b)) => op.eval(a, b),
                    (None, _) => self.unset(key),
                    (_, None) => self.unset(other),
                }
            }
            Cond::Predicate(i) => {
                let slot = &self.p.predicates[i as usize];
                match (&slot.f, self.stub) {
                    (Some(f), _) => f(
                        &*self.bb,
                        &crate::program::PredicateArgs {
                            args: &slot.args,
                            bb: &*self.bb,
                        },
                    ),
                    (None, Some(stub)) => stub(&slot.name),
                    (None, None) => false,
                }
            }
            Cond::Tags(mask) => self.bb.tags() & mask == mask,
            Cond::All { start, len } => self.p.cond_lists[start as usize..(start + len) as usize]
                .iter()
                .all(|&x| self.eval(x)),
            Cond::Any { start, len } => self.p.cond_lists[start as usize..(start + len) as usize]
                .iter()
                .any(|&x| self.eval(x)),
            Cond::Not(x) => !self.eval(x),
            Cond::Const(b) => b,
            Cond::TagReq { all, any, not } => {
                let t = self.bb.tags();
                t & all == all && (any == 0 || t & any != 0) && t & not == 0
            }
            Cond::Global { slot, op, value } => match self.globals.get(slot as usize) {
                Some(Some(v)) => op.eval(*v, value),
                // Unknown to the world (reported at bind): never holds.
                _ => false,
            },
        }
    }

    /// A condition read a key the game has not set: it does not hold, and
    /// the key is noted for the plugin to report once.
    #[cold]
    fn unset(&self, key: u16) -> bool {
        let bit = 1u64 << key.min(63);
        self.unset.set(self.unset.get() | bit);
        false
    }

    /// Binary relevancy: tags match and the node's own guard holds (an
    /// impulse's `when`, a sequence's leading conditions, a cooldown not
    /// cooling down).
    #[inline]
    fn relevant(&self, i: u32) -> bool {
        let n = &self.p.nodes[i as usize];
        if n.tagged && !self.tags_ok(i) {
            return false;
        }
        match n.kind {
            Kind::Cooldown { ms } => !self.cooling(i, ms),
            _ => n.guard == NONE || self.test(n.guard),
        }
    }

    fn cooling(&self, i: u32, ms: u32) -> bool {
        let last = self.st.mem.aux_word(self.p.nodes[i as usize].aux as usize);
        last != 0 && !self.elapsed(last - 1, ms)
    }

    /// The cursor of composite `i`.
    #[inline]
    fn cursor_of(&self, i: u32) -> u16 {
        self.st.mem.cursor(self.p.nodes[i as usize].cursor as usize)
    }

    /// Sets the cursor of composite `i`.
    #[inline]
    fn set_cursor_at(&mut self, i: usize, value: u16) {
        let c = self.p.nodes[i].cursor as usize;
        *self.st.mem.cursor_mut(c) = value;
    }

    /// The aux word of node `i`.
    #[inline]
    fn aux_of(&mut self, i: u32) -> &mut u32 {
        let a = self.p.nodes[i as usize].aux as usize;
        self.st.mem.aux_word_mut(a)
    }

    /// Child `k` of node `i` (static children).
    #[inline]
    fn child(&self, i: u32, k: usize) -> u32 {
        self.p.children[self.p.nodes[i as usize].first_child as usize + k]
    }

    #[inline]
    fn child_count(&self, i: u32) -> usize {
        self.p.nodes[i as usize].child_count as usize
    }

    #[inline]
    fn status_of(&self, c: u32) -> Status {
        self.st.mem.node(c as usize).status()
    }

    /// A node starts afresh (its parent starts it): its state starts as the
    /// kind's table says, and it and its subtree lose COMPLETE and
    /// WAS_COMPLETE (a new activation; within one, WAS_COMPLETE latches).
    fn enter(&mut self, i: u32) {
        let n = &self.p.nodes[i as usize];
        let facts = n.facts;
        if n.cursor != NONE {
            match facts.cursor {
                CursorInit::Zero => *self.st.mem.cursor_mut(n.cursor as usize) = 0,
                CursorInit::Unchosen => *self.st.mem.cursor_mut(n.cursor as usize) = u16::MAX,
                CursorInit::None | CursorInit::Keep => {}
            }
        }
        if n.aux != NONE {
            let a = self.st.mem.aux_word_mut(n.aux as usize);
            match facts.aux {
                AuxInit::Zero => *a = 0,
                AuxInit::NoChild => *a = NONE,
                AuxInit::Now => *a = self.st.now_ms,
                AuxInit::None | AuxInit::Keep => {}
            }
        }
        for s in &mut self.st.mem.nodes_mut()[i as usize..n.end as usize] {
            s.clear_flags(rule::COMPLETE | rule::WAS_COMPLETE);
        }
        if let Kind::Action { .. } = n.kind {
            self.start_action(i);
        } else if facts.concurrent {
            for k in 0..n.child_count as usize {
                let c = self.child(i, k);
                self.st.mem.node_mut(c as usize).set_status(Status::Idle);
            }
        }
    }

    /// Stops a subtree: running actions are aborted, statuses reset, and the
    /// nodes paused. A behavior a redirect impulse ran in this tick is
    /// spared (it stops by itself when no one runs it).
    /// An interpreter for one tick (a period of `dt_us`, 0: none) of an
    /// agent.
    pub(crate) fn new(
        p: &'a Program,
        st: &'a mut AgentState,
        bb: &'a mut Blackboard,
        actions: &'a mut BtActions,
        trace: Option<&'a mut TickTrace>,
    ) -> Self {
        Interp {
            p,
            st,
            bb,
            actions,
            stub: None,
            globals: &[],
            dt_us: 0,
            unguarded: NONE,
            spare: NONE,
            trace,
            unset: std::cell::Cell::new(0),
            unsettled: false,
            tables: true,
        }
    }

    pub(crate) fn halt(&mut self, i: u32) {
        if i == self.spare {
            return;
        }
        let end = self.p.nodes[i as usize].end;
        let (keep_lo, keep_hi) = if self.spare != NONE {
            (self.spare, self.p.nodes[self.spare as usize].end)
        } else {
            (NONE, NONE)
        };
        let mut j = i;
        while j < end {
            if j == keep_lo {
                j = keep_hi;
                continue;
            }
            let s = self.st.mem.node_mut(j as usize);
            if s.status() == Status::Running {
                self.unsettled = true;
                if let Kind::Action { .. } = self.p.nodes[j as usize].kind {
                    self.abort_action(j);
                }
                self.st.mem.node_mut(j as usize).set_status(Status::Idle);
            }
            self.st.mem.node_mut(j as usize).add_flags(rule::PAUSED);
            j += 1;
        }
        // Stimuli inserted inside the subtree stop too.
        for k in 0..self.st.stimuli.len() {
            let s = self.st.stimuli[k];
            if i <= s.target && s.target < end {
                self.halt(s.root);
            }
        }
    }

    /// Halts the running children of `i` among `from..to`.
    fn halt_running_children(&mut self, i: u32, from: usize, to: usize) {
        for k in from..to {
            let c = self.child(i, k);
            if self.status_of(c) == Status::Running {
                self.halt(c);
            }
        }
    }

    /// Ticks a node: tags, activation, the kind's rule, rule flags.
    pub(crate) fn tick_node(&mut self, i: u32) -> Status {
        let iu = i as usize;
        let p = self.p;
        let node = &p.nodes[iu];
        if node.instant {
            return self.tick_instant(i);
        }
        if let Some(t) = self.trace.as_deref_mut() {
            t.ticked.push(i);
        }
        if node.tagged && !self.tags_ok(i) {
            return self.masked(i);
        }
        let s = &mut self.st.mem.node_mut(iu);
        s.clear_flags(rule::PAUSED);
        let was_running = s.status() == Status::Running;
        if !was_running {
            self.enter(i);
        }
        let kind = node.kind;
        let status = match kind {
            // The hot kinds first, dispatched directly.
            Kind::GuardSequence => self.guard_sequence(i),
            Kind::PrioritizedList => self.prioritized(i),
            Kind::Action { .. } => self.action(i),
            _ => self.tick_other(i, kind),
        };
        self.finish_node(i, was_running, status)
    }

    /// The end of a node's tick: its status, its rule flags (a finished
    /// node is complete or not), and whether the walk is still settled.
    #[inline(always)]
    fn finish_node(&mut self, i: u32, was_running: bool, status: Status) -> Status {
        let s = &mut self.st.mem.node_mut(i as usize);
        match status {
            // Skipped: nothing left to do, which for a rule is complete.
            Status::Success | Status::Skipped => s.add_flags(rule::COMPLETE | rule::WAS_COMPLETE),
            Status::Failure => s.clear_flags(rule::COMPLETE),
            _ => {}
        }
        s.set_status(status);
        // A running node that stopped: unless it succeeded in a program
        // whose nodes never tick a finished child again (resumable ones),
        // the next walk may differ from this one.
        if was_running
            && status != Status::Running
            && !(status == Status::Success && self.p.resumable)
        {
            self.unsettled = true;
        }
        status
    }

    /// The rarer kinds, by family (kept out of [`tick_node`](Self::tick_node)
    /// so its hot path stays small).
    #[inline(never)]
    fn tick_other(&mut self, i: u32, kind: Kind) -> Status {
        match self.p.nodes[i as usize].facts.family {
            Family::Standard => self.tick_standard(i, kind),
            Family::Halo => self.tick_halo(i, kind),
            Family::Trainz => self.tick_trainz(i, kind),
            Family::Decorator => self.tick_decorator(i, kind),
            Family::Leaf => self.tick_leaf(i, kind),
            Family::Custom => self.tick_custom(i, kind),
        }
    }

    /// Takes the report of the running action `leaf` and goes up from it
    /// as a walk from the root would come back up: each parent continues
    /// its loop after the child's result, until one keeps running or the
    /// root finishes. Only for ticks [`resume_point`] allows: what a walk
    /// would ask on the way down has the last walk's answers.
    fn bubble(&mut self, leaf: u32) -> Status {
        let mut child = leaf;
        let mut status = self.tick_node(leaf);
        while status != Status::Running {
            let q = self.p.nodes[child as usize].parent;
            if q == NONE {
                break;
            }
            let n = &self.p.nodes[q as usize];
            let (first, count) = (n.first_child as usize, n.child_count as usize);
            let k = self.p.children[first..first + count]
                .iter()
                .position(|&c| c == child)
                .unwrap_or(count);
            let skipped = usize::from(status == Status::Skipped);
            let s = match (n.kind, status) {
                (Kind::GuardSequence | Kind::Sequence, Status::Failure) => {
                    self.set_cursor_at(q as usize, 0);
                    Status::Failure
                }
                (Kind::GuardSequence | Kind::Sequence, _) => {
                    self.sequence_from(q, k + 1, false, skipped)
                }
                (Kind::PrioritizedList, Status::Success) => {
                    self.set_running_child(q, NONE);
                    Status::Success
                }
                (Kind::PrioritizedList, _) => {
                    self.prioritized_loop::<false>(q, first, count, k + 1, NONE)
                }
                (Kind::Selector, Status::Success) => {
                    self.set_running_child(q, NONE);
                    Status::Success
                }
                (Kind::Selector, _) => self.selector_from(q, k + 1, skipped),
                // An instant invert around a running child cannot be.
                _ => unreachable!("{} does not resume", n.kind.name()),
            };
            status = self.finish_node(q, true, s);
            child = q;
        }
        // Running: the parents above keep running, as they were.
        status
    }

    /// A node masked by the agent's tags: ignored entirely (the Halo seed),
    /// so the parent carries on as if the node were not there.
    #[cold]
    fn masked(&mut self, i: u32) -> Status {
        let iu = i as usize;
        if self.st.mem.node(iu).status() == Status::Running {
            self.halt(i);
        }
        let s = &mut self.st.mem.node_mut(iu);
        s.clear_flags(rule::PAUSED | rule::COMPLETE);
        s.set_status(Status::Skipped);
        Status::Skipped
    }
}

/// Bits of `AgentState::walked`.
pub(crate) mod walked {
    /// A node stopped running in the last walk (failed, was halted, was
    /// masked; or, in programs that are not resumable, finished at all):
    /// the next tick walks, even with unchanged inputs. Skipping a walk
    /// assumes walking again would change nothing, and that holds only
    /// for a settled walk: after a branch stopped, a prioritized list (or
    /// a reactive node) tries it again in the next walk, fresh, which may
    /// start its action again (BT.CPP's reactive nodes re-tick finished
    /// actions; Halo's prioritized list retries relevant higher
    /// priorities every tick).
    pub(crate) const UNSETTLED: u8 = 2;
}

/// What a walk remembers of its inputs: the low 32 bits of the
/// blackboard's and the world's generations (see `AgentState::seen_inputs`).
#[inline(always)]
pub(crate) fn inputs_key(blackboard: u64, world: u64) -> (u32, u32) {
    (blackboard as u32, world as u32)
}

/// The per-node arrays of an agent in one heap allocation of words:
/// `[node states (u8) | cursors (u16) | aux words | impulse counts]`, each
/// region aligned for its type, so that an agent's tree state is one
/// allocation and one pointer. Node states come first: the hottest
/// accesses (a node's state by index) need no offset.
#[derive(Debug, Clone, Default)]
pub(crate) struct StateMem {
    words: Box<[u32]>,
    /// Node states (bytes from 0; the cursors start on the next u16), in
    /// the low 30 bits; bit 30: the last two words of the allocation are
    /// the unset-read mask, bit 31: the two before them (or the last two)
    /// are the random state. Programs that draw no random numbers and read
    /// no key unset keep neither.
    n_nodes: u32,
    /// Where the cursors end, in u16 units.
    cur_end: u32,
    /// Where the aux words start and the impulse counts start, in words
    /// (the impulse counts run to the end).
    aux_at: u32,
    imp_at: u32,
}

impl StateMem {
    const UNSET: u32 = 1 << 30;
    const RNG: u32 = 1 << 31;
    const NODES: u32 = Self::UNSET - 1;

    /// Zeroed arrays of these sizes (`rng`, `unset`: with the random state,
    /// with the unset-read mask).
    pub(crate) fn new(
        aux: usize,
        impulses: usize,
        cursors: usize,
        nodes: usize,
        rng: bool,
        unset: bool,
    ) -> StateMem {
        let cur_at = nodes.div_ceil(2);
        let cur_end = cur_at + cursors;
        let aux_at = cur_end.div_ceil(2);
        let imp_at = aux_at + aux;
        let extra = 2 * usize::from(rng) + 2 * usize::from(unset);
        let u32_of = |n: usize| u32::try_from(n).expect("tree state under 16 GiB");
        assert!(nodes <= Self::NODES as usize, "at most 2^30 nodes");
        StateMem {
            words: vec![0u32; imp_at + impulses + extra].into_boxed_slice(),
            n_nodes: u32_of(nodes)
                | if rng { Self::RNG } else { 0 }
                | if unset { Self::UNSET } else { 0 },
            cur_end: u32_of(cur_end),
            aux_at: u32_of(aux_at),
            imp_at: u32_of(imp_at),
        }
    }

    /// Bytes allocated.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.len() * 4
    }

    /// The allocation as words (the decision table writes whole arrays).
    #[inline(always)]
    pub(crate) fn words(&self) -> &[u32] {
        &self.words
    }

    /// The allocation as words.
    #[inline(always)]
    pub(crate) fn words_mut(&mut self) -> &mut [u32] {
        &mut self.words
    }

    /// Where the cursors start, in u16 units.
    #[inline(always)]
    fn cur_at(&self) -> usize {
        ((self.n_nodes & Self::NODES) as usize).div_ceil(2)
    }

    #[inline(always)]
    fn bytes(&self) -> &[NodeState] {
        bytemuck::cast_slice::<u32, NodeState>(&self.words)
    }

    #[inline(always)]
    fn bytes_mut(&mut self) -> &mut [NodeState] {
        bytemuck::cast_slice_mut::<u32, NodeState>(&mut self.words)
    }

    /// Every node's state.
    #[inline(always)]
    pub(crate) fn nodes(&self) -> &[NodeState] {
        &self.bytes()[..(self.n_nodes & Self::NODES) as usize]
    }

    /// Every node's state.
    #[inline(always)]
    pub(crate) fn nodes_mut(&mut self) -> &mut [NodeState] {
        let n = (self.n_nodes & Self::NODES) as usize;
        &mut self.bytes_mut()[..n]
    }

    /// Node `i`'s state (`i` a node of the program the state was made
    /// for).
    #[inline(always)]
    pub(crate) fn node(&self, i: usize) -> NodeState {
        self.bytes()[i]
    }

    /// Node `i`'s state.
    #[inline(always)]
    pub(crate) fn node_mut(&mut self, i: usize) -> &mut NodeState {
        &mut self.bytes_mut()[i]
    }

    #[inline(always)]
    pub(crate) fn aux(&self) -> &[u32] {
        &self.words[self.aux_at as usize..self.imp_at as usize]
    }

    #[inline(always)]
    pub(crate) fn aux_mut(&mut self) -> &mut [u32] {
        let (a, b) = (self.aux_at as usize, self.imp_at as usize);
        &mut self.words[a..b]
    }

    /// Aux word `a`.
    #[inline(always)]
    pub(crate) fn aux_word(&self, a: usize) -> u32 {
        self.words[self.aux_at as usize + a]
    }

    /// Aux word `a`.
    #[inline(always)]
    pub(crate) fn aux_word_mut(&mut self, a: usize) -> &mut u32 {
        let at = self.aux_at as usize;
        &mut self.words[at + a]
    }

    /// Where the impulse counts end (the optional words follow).
    #[inline(always)]
    fn imp_end(&self) -> usize {
        self.words.len()
            - 2 * usize::from(self.n_nodes & Self::RNG != 0)
            - 2 * usize::from(self.n_nodes & Self::UNSET != 0)
    }

    #[inline(always)]
    pub(crate) fn impulses(&self) -> &[u32] {
        &self.words[self.imp_at as usize..self.imp_end()]
    }

    #[inline(always)]
    pub(crate) fn impulses_mut(&mut self) -> &mut [u32] {
        let (a, b) = (self.imp_at as usize, self.imp_end());
        &mut self.words[a..b]
    }

    /// The random state, if kept.
    pub(crate) fn rng(&self) -> Option<u64> {
        (self.n_nodes & Self::RNG != 0).then(|| {
            let at = self.imp_end();
            u64::from(self.words[at]) | u64::from(self.words[at + 1]) << 32
        })
    }

    /// Sets the random state (nothing if not kept).
    pub(crate) fn set_rng(&mut self, rng: u64) {
        if self.n_nodes & Self::RNG != 0 {
            let at = self.imp_end();
            self.words[at] = rng as u32;
            self.words[at + 1] = (rng >> 32) as u32;
        }
    }

    /// Keys read unset so far (0 if not kept).
    pub(crate) fn unset(&self) -> u64 {
        if self.n_nodes & Self::UNSET != 0 {
            let at = self.words.len() - 2;
            u64::from(self.words[at]) | u64::from(self.words[at + 1]) << 32
        } else {
            0
        }
    }

    /// Notes keys read unset (a program that keeps no mask reads none).
    #[cold]
    pub(crate) fn add_unset(&mut self, keys: u64) {
        debug_assert!(self.n_nodes & Self::UNSET != 0, "no unset-read mask");
        if self.n_nodes & Self::UNSET != 0 {
            let keys = self.unset() | keys;
            let at = self.words.len() - 2;
            self.words[at] = keys as u32;
            self.words[at + 1] = (keys >> 32) as u32;
        }
    }

    #[inline(always)]
    pub(crate) fn cursors(&self) -> &[u16] {
        let (a, b) = (self.cur_at(), self.cur_end as usize);
        &bytemuck::cast_slice::<u32, u16>(&self.words)[a..b]
    }

    #[inline(always)]
    pub(crate) fn cursors_mut(&mut self) -> &mut [u16] {
        let (a, b) = (self.cur_at(), self.cur_end as usize);
        &mut bytemuck::cast_slice_mut::<u32, u16>(&mut self.words)[a..b]
    }

    /// Cursor `c`.
    #[inline(always)]
    pub(crate) fn cursor(&self, c: usize) -> u16 {
        bytemuck::cast_slice::<u32, u16>(&self.words)[self.cur_at() + c]
    }

    /// Cursor `c`.
    #[inline(always)]
    pub(crate) fn cursor_mut(&mut self, c: usize) -> &mut u16 {
        let at = self.cur_at();
        &mut bytemuck::cast_slice_mut::<u32, u16>(&mut self.words)[at + c]
    }
}
