//! The interpreter: one tick of one agent over a shared [`Program`].
//!
//! Per-agent state is a few flat arrays allocated once when the agent binds
//! to a program; a tick allocates nothing.

use bevy::ecs::component::Component;

use crate::blackboard::Blackboard;
use crate::program::{Cond, Kind, NONE, Program};
use crate::registry::ActionId;
use crate::value::Value;

/// A node's (or tree's) status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Status {
    /// Not started (or halted).
    #[default]
    Idle,
    /// Started, not finished.
    Running,
    /// Finished well.
    Success,
    /// Finished badly, or not relevant.
    Failure,
}

impl Status {
    /// Lower-case name (`running`, `success`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Running => "running",
            Status::Success => "success",
            Status::Failure => "failure",
        }
    }
}

/// Trainz rule flags of a node, as bits of [`NodeState::flags`].
pub mod rule {
    /// PAUSED: the parent is not running the node; it does not change state.
    pub const PAUSED: u8 = 1;
    /// COMPLETE: the node has completed (may be lost again, e.g. a rule whose
    /// condition stops holding).
    pub const COMPLETE: u8 = 2;
    /// WAS_COMPLETE: the node completed at some point (latches).
    pub const WAS_COMPLETE: u8 = 4;
    /// DOES_COMPLETE: the node can ever complete (static).
    pub const DOES_COMPLETE: u8 = 8;

    /// The flags as letters `PCWD` (only those set).
    pub fn letters(flags: u8) -> String {
        let mut s = String::with_capacity(4);
        for (bit, c) in [
            (PAUSED, 'P'),
            (COMPLETE, 'C'),
            (WAS_COMPLETE, 'W'),
            (DOES_COMPLETE, 'D'),
        ] {
            if flags & bit != 0 {
                s.push(c);
            }
        }
        s
    }
}

/// Per-node runtime state, one byte: the status after the node's last tick
/// (bits 4-5) and its rule flags ([`rule`], bits 0-3). Composites' cursors
/// live apart, in [`AgentState::cursors`].
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct NodeState(u8);

impl NodeState {
    /// Status after the node's last tick.
    #[inline]
    pub fn status(self) -> Status {
        match (self.0 >> 4) & 3 {
            0 => Status::Idle,
            1 => Status::Running,
            2 => Status::Success,
            _ => Status::Failure,
        }
    }

    /// Sets the status.
    #[inline]
    pub fn set_status(&mut self, status: Status) {
        let bits = match status {
            Status::Idle => 0,
            Status::Running => 1,
            Status::Success => 2,
            Status::Failure => 3,
        };
        self.0 = (self.0 & 0x0F) | (bits << 4);
    }

    /// Rule flags ([`rule`]).
    #[inline]
    pub fn flags(self) -> u8 {
        self.0 & 0x0F
    }

    /// Sets these rule flags.
    #[inline]
    pub fn add_flags(&mut self, flags: u8) {
        self.0 |= flags & 0x0F;
    }

    /// Clears these rule flags.
    #[inline]
    pub fn clear_flags(&mut self, flags: u8) {
        self.0 &= !(flags & 0x0F);
    }

    /// The outcome of an instant node (conditions only): running by its
    /// parent, success or failure now, COMPLETE with it.
    #[inline]
    pub(crate) fn finish_instant(&mut self, ok: bool) -> Status {
        self.clear_flags(rule::PAUSED);
        if ok {
            self.add_flags(rule::COMPLETE | rule::WAS_COMPLETE);
            self.set_status(Status::Success);
        } else {
            self.clear_flags(rule::COMPLETE);
            self.set_status(Status::Failure);
        }
        self.status()
    }
}

impl std::fmt::Debug for NodeState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeState")
            .field("status", &self.status())
            .field("flags", &rule::letters(self.flags()))
            .finish()
    }
}

/// What an action is doing. Game systems read and set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionState {
    /// Started in the last tick: set things up.
    Started,
    /// Still running.
    Running,
    /// The game reported success; the tree sees it on its next tick.
    Succeeded,
    /// The game reported failure.
    Failed,
    /// The tree stopped it (interrupted by a higher priority, a broken guard,
    /// a timeout...): clean up. Removed on the next tick.
    Aborted,
}

/// An action the agent runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ActiveAction {
    /// Which action.
    pub id: ActionId,
    /// The leaf node (for parameters: [`Program::action_of`]).
    pub node: u32,
    /// Its state.
    pub state: ActionState,
    /// Agent time (ms) when it started.
    pub started_ms: u32,
}

impl ActiveAction {
    /// Whether the game still has to act on it (started or running).
    pub fn is_running(&self) -> bool {
        matches!(self.state, ActionState::Started | ActionState::Running)
    }

    /// Reports success (ignored unless running).
    pub fn succeed(&mut self) {
        if self.is_running() {
            self.state = ActionState::Succeeded;
        }
    }

    /// Reports failure (ignored unless running).
    pub fn fail(&mut self) {
        if self.is_running() {
            self.state = ActionState::Failed;
        }
    }
}

/// The actions an agent runs: what ordinary game systems query.
///
/// The slots are allocated once; starting and stopping actions changes
/// fields, never the entity's archetype.
#[derive(Component, Debug, Clone, Default)]
pub struct BtActions {
    slots: Vec<ActiveAction>,
}

impl BtActions {
    /// All slots (running, just finished, just aborted).
    pub fn iter(&self) -> impl Iterator<Item = &ActiveAction> {
        self.slots.iter()
    }

    /// All slots, to report results.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut ActiveAction> {
        self.slots.iter_mut()
    }

    /// The running slot of an action, if any.
    pub fn running(&mut self, id: ActionId) -> Option<&mut ActiveAction> {
        self.slots.iter_mut().find(|a| a.id == id && a.is_running())
    }

    /// Whether an action is running.
    pub fn is_running(&self, id: ActionId) -> bool {
        self.slots.iter().any(|a| a.id == id && a.is_running())
    }

    /// Clears the slots and reserves room for `n` actions (done when a tree
    /// binds: the tick never grows it).
    pub fn reserve(&mut self, n: usize) {
        self.slots.clear();
        self.slots.reserve(n);
    }
}

/// A behavior inserted into one agent's tree for a while.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stimulus {
    /// The composite it competes in.
    pub target: u32,
    /// The detached behavior's root node.
    pub root: u32,
    /// Position among the target's children (0 = highest priority).
    pub priority: u16,
    /// Agent time (ms) when it expires.
    pub expires_ms: u32,
}

/// Why a stimulus could not be inserted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StimulusError {
    /// No node has that path.
    #[error("no node has the path {0:?}")]
    UnknownTarget(String),
    /// Stimuli compete in prioritized lists and selectors.
    #[error("{0:?} is not a PrioritizedList or Selector")]
    NotACompetition(String),
    /// The tree declares no such behavior.
    #[error("the tree declares no behavior {0:?}")]
    UnknownBehavior(String),
    /// Too many at once.
    #[error("at most {0} stimuli at once")]
    Full(usize),
    /// No program bound yet.
    #[error("the agent's tree is not loaded yet")]
    NotBound,
}

/// Most stimuli one agent holds at once.
pub const MAX_STIMULI: usize = 8;

/// The tree state of one agent. Lives in [`BtAgent`](crate::BtAgent).
#[derive(Debug, Clone, Default)]
pub struct AgentState {
    /// Per node, in program order.
    pub nodes: Box<[NodeState]>,
    /// Timers and counters of nodes that need them.
    pub aux: Box<[u32]>,
    /// Cursors of composites (child position or choice), per
    /// [`Node::cursor`](crate::Node::cursor).
    pub cursors: Box<[u16]>,
    /// Per-agent random state (SplitMix64).
    pub rng: u64,
    /// Agent time in ms (sum of its tick periods).
    pub now_ms: u32,
    /// Ticks so far.
    pub ticks: u64,
    /// Active stimuli.
    pub stimuli: Vec<Stimulus>,
    /// Pending redirect target (an impulse jumped here), or [`NONE`].
    pub redirect: u32,
    /// An impulse asked for a redirect during this pass.
    redirect_requested: bool,
    /// The root's status after the last tick.
    pub status: Status,
    /// Impulses that won, counted per impulse (index into
    /// [`Program::impulses`]).
    pub impulse_fired: Box<[u32]>,
    seed: u64,
    /// Inputs seen by the last walk (blackboard and world generations).
    seen_inputs: (u64, u64),
    /// Walks skipped because nothing the tree reads changed.
    pub skipped: u64,
    /// The root's status after the whole tick (a repeating tree that
    /// finished is already running its next cycle).
    live: Status,
}

impl AgentState {
    /// Fresh state for a program, seeded for reproducible random choices.
    pub fn new(program: &Program, seed: u64) -> Self {
        let mut nodes = vec![NodeState::default(); program.nodes.len()];
        for (s, n) in nodes.iter_mut().zip(&program.nodes) {
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
            nodes: nodes.into_boxed_slice(),
            aux: vec![0; program.aux_count as usize].into_boxed_slice(),
            cursors: vec![0; program.cursor_count as usize].into_boxed_slice(),
            rng: seed ^ 0x9E37_79B9_7F4A_7C15,
            now_ms: 0,
            ticks: 0,
            // Allocated on the first insertion, not per agent up front.
            stimuli: Vec::new(),
            redirect: NONE,
            redirect_requested: false,
            status: Status::Idle,
            impulse_fired: vec![0; program.impulses.len()].into_boxed_slice(),
            seed,
            seen_inputs: (u64::MAX, u64::MAX),
            skipped: 0,
            live: Status::Idle,
        }
    }

    /// Resets everything (statuses, flags, timers, stimuli) as at spawn.
    pub fn reset(&mut self, program: &Program, actions: &mut BtActions) {
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
        self.nodes.len() * std::mem::size_of::<NodeState>()
            + self.aux.len() * 4
            + self.cursors.len() * 2
            + self.stimuli.capacity() * std::mem::size_of::<Stimulus>()
            + self.impulse_fired.len() * 4
    }

    /// Inserts a named behavior as a child of the composite at `at`, at
    /// `priority` (0 = before the first child), for `seconds`. Inserting a
    /// behavior that is already active renews it.
    pub fn insert_stimulus(
        &mut self,
        program: &Program,
        at: &str,
        behavior: &str,
        priority: u16,
        seconds: f32,
    ) -> Result<(), StimulusError> {
        if self.nodes.len() != program.nodes.len() {
            return Err(StimulusError::NotBound);
        }
        let target = program
            .node(at)
            .ok_or_else(|| StimulusError::UnknownTarget(at.to_owned()))?;
        if !matches!(
            program.nodes[target as usize].kind,
            Kind::PrioritizedList | Kind::Selector
        ) {
            return Err(StimulusError::NotACompetition(at.to_owned()));
        }
        let root = *program
            .detached
            .get(behavior)
            .ok_or_else(|| StimulusError::UnknownBehavior(behavior.to_owned()))?;
        let expires_ms = self
            .now_ms
            .saturating_add((seconds.max(0.0) * 1000.0).round() as u32);
        if let Some(s) = self.stimuli.iter_mut().find(|s| s.root == root) {
            s.target = target;
            s.priority = priority;
            s.expires_ms = expires_ms;
            return Ok(());
        }
        if self.stimuli.len() >= MAX_STIMULI {
            return Err(StimulusError::Full(MAX_STIMULI));
        }
        if self.stimuli.capacity() == 0 {
            self.stimuli.reserve_exact(MAX_STIMULI);
        }
        self.stimuli.push(Stimulus {
            target,
            root,
            priority,
            expires_ms,
        });
        Ok(())
    }

    /// Time left of the stimulus whose behavior root is `root`, in seconds.
    pub fn stimulus_time_left(&self, root: u32) -> Option<f32> {
        self.stimuli
            .iter()
            .find(|s| s.root == root)
            .map(|s| s.expires_ms.saturating_sub(self.now_ms) as f32 / 1000.0)
    }

    /// The path of a node as shown to users: stimulus behaviors appear under
    /// the node they were inserted at.
    pub fn display_path(&self, program: &Program, node: u32) -> String {
        let path = &program.paths[node as usize];
        if node >= program.detached_start
            && let Some(s) = self
                .stimuli
                .iter()
                .find(|s| s.root <= node && node < program.nodes[s.root as usize].end)
        {
            return format!(
                "{}/{}",
                program.paths[s.target as usize],
                path.trim_start_matches('~')
            );
        }
        path.clone()
    }

    /// Leaves running after the last tick, in tree order.
    pub fn active_leaves<'a>(&'a self, program: &'a Program) -> impl Iterator<Item = u32> + 'a {
        (0..program.nodes.len() as u32).filter(move |&i| {
            program.nodes[i as usize].kind.is_leaf()
                && self.nodes[i as usize].status() == Status::Running
                && self.nodes[i as usize].flags() & rule::PAUSED == 0
        })
    }
}

/// Context handed to [`CustomNode::tick`](crate::CustomNode::tick).
pub struct CustomCtx<'i, 'a> {
    interp: &'i mut Interp<'a>,
    node: u32,
}

impl CustomCtx<'_, '_> {
    /// Number of children.
    pub fn child_count(&self) -> usize {
        self.interp.p.nodes[self.node as usize].child_count as usize
    }

    /// Ticks child `k` (unpausing it).
    pub fn tick_child(&mut self, k: usize) -> Status {
        let c = self.interp.p.children_of(self.node)[k];
        self.interp.tick_node(c)
    }

    /// Stops child `k` if it runs.
    pub fn halt_child(&mut self, k: usize) {
        let c = self.interp.p.children_of(self.node)[k];
        self.interp.halt(c);
    }

    /// Whether child `k` is relevant now (tags and guards).
    pub fn relevant(&mut self, k: usize) -> bool {
        let c = self.interp.p.children_of(self.node)[k];
        self.interp.relevant(c)
    }

    /// The node's cursor (reset to 0 when it starts).
    pub fn cursor(&mut self) -> &mut u16 {
        let c = self.interp.p.nodes[self.node as usize].cursor as usize;
        &mut self.interp.st.cursors[c]
    }

    /// The node's aux word (reset to 0 when it starts).
    pub fn aux(&mut self) -> &mut u32 {
        let a = self.interp.p.nodes[self.node as usize].aux as usize;
        &mut self.interp.st.aux[a]
    }

    /// A parameter from the tree file.
    pub fn param(&self, name: &str) -> Option<crate::value::Value> {
        let Kind::Custom { custom } = self.interp.p.nodes[self.node as usize].kind else {
            return None;
        };
        self.interp.p.customs[custom as usize]
            .params
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| *v)
    }

    /// Agent time in ms.
    pub fn now_ms(&self) -> u32 {
        self.interp.st.now_ms
    }

    /// A random number from the agent's seeded generator.
    pub fn random(&mut self) -> u64 {
        self.interp.next_random()
    }

    /// The agent's blackboard.
    pub fn blackboard(&self) -> &Blackboard {
        self.interp.bb
    }
}

/// Answers predicates the program has no implementation for (tools).
pub type PredicateStub<'a> = &'a dyn Fn(&str) -> bool;

pub(crate) struct Interp<'a> {
    p: &'a Program,
    st: &'a mut AgentState,
    bb: &'a Blackboard,
    actions: &'a mut BtActions,
    stub: Option<PredicateStub<'a>>,
    globals: &'a [Option<crate::value::Value>],
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
}

/// One tick of one agent: advances time by `dt_ms`, removes expired stimuli
/// and finished action slots, then walks the tree from the root.
pub fn tick_agent(
    program: &Program,
    state: &mut AgentState,
    blackboard: &Blackboard,
    actions: &mut BtActions,
    dt_ms: u32,
    env: TickEnv<'_>,
) -> Status {
    if state.nodes.len() != program.nodes.len() {
        *state = AgentState::new(program, 0);
    }
    state.now_ms = state.now_ms.wrapping_add(dt_ms);
    state.ticks += 1;
    let mut it = Interp {
        p: program,
        st: state,
        bb: blackboard,
        actions,
        stub: env.stub,
        globals: env.globals,
    };
    // One pass over the slots: started ones now run, reports are noted,
    // aborted ones (told last tick) go.
    let mut reported = false;
    let mut aborted = false;
    for a in it.actions.slots.iter_mut() {
        match a.state {
            ActionState::Started => a.state = ActionState::Running,
            ActionState::Succeeded | ActionState::Failed => reported = true,
            ActionState::Aborted => aborted = true,
            ActionState::Running => {}
        }
    }
    if aborted {
        it.actions.slots.retain(|a| a.state != ActionState::Aborted);
    }
    // Event-driven: if nothing the tree reads changed (inputs, world values,
    // action reports, stimuli, time-dependent nodes), the walk would repeat
    // the last one exactly: skip it.
    let inputs = (it.bb.generation(), env.globals_generation);
    if program.skippable
        && !env.always_walk
        && !reported
        && it.st.stimuli.is_empty()
        && it.st.redirect == NONE
        && it.st.live == Status::Running
        && it.st.seen_inputs == inputs
    {
        it.st.skipped += 1;
        return Status::Running;
    }
    it.st.seen_inputs = inputs;
    // Expired stimuli leave the tree (their behavior is stopped).
    let mut k = 0;
    while k < it.st.stimuli.len() {
        let s = it.st.stimuli[k];
        if it.st.now_ms >= s.expires_ms {
            it.halt(s.root);
            it.st.stimuli.swap_remove(k);
        } else {
            k += 1;
        }
    }
    for n in it.st.nodes.iter_mut() {
        n.add_flags(rule::PAUSED);
    }
    let status = it.walk();
    it.st.status = status;
    it.st.live = status;
    if env.repeat && status != Status::Running {
        // The tick reports the finished cycle; the state is the new one's.
        it.st.live = it.walk();
    }
    status
}

impl<'a> Interp<'a> {
    /// One walk from the root, with the redirect passes it asks for.
    fn walk(&mut self) -> Status {
        let mut status = self.tick_node(0);
        // An impulse that redirected asks for another pass from the root
        // (bounded), in which the path to its behavior is forced.
        let mut passes = 0;
        while self.st.redirect_requested && passes < 3 {
            self.st.redirect_requested = false;
            passes += 1;
            status = self.tick_node(0);
        }
        self.st.redirect_requested = false;
        let r = self.st.redirect;
        if r != NONE && self.st.nodes[r as usize].status() != Status::Running {
            self.st.redirect = NONE;
        }
        status
    }

    fn next_random(&mut self) -> u64 {
        // SplitMix64: tiny state, good enough for behavior choices.
        self.st.rng = self.st.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.st.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn random_unit(&mut self) -> f32 {
        (self.next_random() >> 40) as f32 / (1u64 << 24) as f32
    }

    #[inline]
    fn tags_ok(&self, i: u32) -> bool {
        let n = &self.p.nodes[i as usize];
        let t = self.bb.tags();
        t & n.tags_all == n.tags_all
            && (n.tags_any == 0 || t & n.tags_any != 0)
            && t & n.tags_not == 0
    }

    /// [`eval`](Self::eval) with the common case (a folded bit test)
    /// inlined at the call site.
    #[inline(always)]
    fn test(&self, c: u32) -> bool {
        match self.p.conds.get(c as usize) {
            Some(&Cond::Bits { mask, want }) => (self.bb.bools() ^ want) & mask == 0,
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
            Cond::BbIs { key, value } => self.bb.get_index(key) == Value::Bool(value),
            Cond::Bb { key, op, value } => op.eval(self.bb.get_index(key), value),
            Cond::Predicate(i) => {
                let slot = &self.p.predicates[i as usize];
                match (&slot.f, self.stub) {
                    (Some(f), _) => f(self.bb),
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

    /// Binary relevancy: tags match and the node's own guard holds.
    fn relevant(&self, i: u32) -> bool {
        if !self.tags_ok(i) {
            return false;
        }
        let n = &self.p.nodes[i as usize];
        match n.kind {
            Kind::Impulse { impulse } => {
                let imp = &self.p.impulses[impulse as usize];
                // A redirect already under way is not asked for again.
                (imp.redirect_to == NONE || self.st.redirect != imp.redirect_to)
                    && self.test(imp.when)
            }
            Kind::Cooldown { ms } => !self.cooling(i, ms),
            _ => n.guard == NONE || self.test(n.guard),
        }
    }

    fn cooling(&self, i: u32, ms: u32) -> bool {
        let last = self.st.aux[self.p.nodes[i as usize].aux as usize];
        last != 0 && self.st.now_ms.wrapping_sub(last - 1) < ms
    }

    /// Whether node `c` contains the pending redirect target.
    #[inline]
    fn forced(&self, c: u32) -> bool {
        let r = self.st.redirect;
        r != NONE && c <= r && r < self.p.nodes[c as usize].end
    }

    /// The cursor of composite `i`.
    #[inline]
    fn cursor_of(&self, i: u32) -> u16 {
        self.st.cursors[self.p.nodes[i as usize].cursor as usize]
    }

    /// Sets the cursor of composite `i`.
    #[inline]
    fn set_cursor_at(&mut self, i: usize, value: u16) {
        let c = self.p.nodes[i].cursor as usize;
        self.st.cursors[c] = value;
    }

    fn enter(&mut self, i: u32) {
        let n = &self.p.nodes[i as usize];
        if n.cursor != NONE {
            self.st.cursors[n.cursor as usize] = match n.kind {
                // "Not chosen yet".
                Kind::Probabilistic { .. } | Kind::SelectOne { .. } | Kind::OneOff { .. } => {
                    u16::MAX
                }
                _ => 0,
            };
        }
        let s = &mut self.st.nodes[i as usize];
        s.clear_flags(rule::COMPLETE);
        if n.aux != NONE {
            let a = &mut self.st.aux[n.aux as usize];
            match n.kind {
                Kind::PrioritizedList | Kind::Selector => *a = NONE,
                Kind::MinDuration { .. } | Kind::Timeout { .. } | Kind::Wait { .. } => {
                    *a = self.st.now_ms
                }
                // One-off choices and cooldowns outlive restarts.
                Kind::OneOff { .. } | Kind::Cooldown { .. } => {}
                _ => *a = 0,
            }
        }
        match n.kind {
            Kind::Parallel { .. } => {
                for &c in self.p.children_of(i) {
                    self.st.nodes[c as usize].set_status(Status::Idle);
                }
            }
            Kind::Action { action } => {
                let info = &self.p.actions[action as usize];
                self.actions.slots.push(crate::runtime::ActiveAction {
                    id: info.id,
                    node: i,
                    state: ActionState::Started,
                    started_ms: self.st.now_ms,
                });
            }
            _ => {}
        }
    }

    /// Stops a subtree: running actions are aborted, statuses reset, and the
    /// nodes paused.
    pub(crate) fn halt(&mut self, i: u32) {
        let end = self.p.nodes[i as usize].end;
        for j in i..end {
            let s = &mut self.st.nodes[j as usize];
            if s.status() == Status::Running {
                if let Kind::Action { .. } = self.p.nodes[j as usize].kind
                    && let Some(k) = self
                        .actions
                        .slots
                        .iter()
                        .position(|a| a.node == j && a.state != ActionState::Aborted)
                {
                    if self.actions.slots[k].is_running() {
                        self.actions.slots[k].state = ActionState::Aborted;
                    } else {
                        // Finished by the game but stopped before the tree
                        // saw it: nothing to abort, drop the slot.
                        self.actions.slots.swap_remove(k);
                    }
                }
                s.set_status(Status::Idle);
            }
            s.add_flags(rule::PAUSED);
        }
        // Stimuli inserted inside the subtree stop too.
        for k in 0..self.st.stimuli.len() {
            let s = self.st.stimuli[k];
            if i <= s.target && s.target < end {
                self.halt(s.root);
            }
        }
    }

    /// Children of a competition node, with stimuli merged in by priority.
    #[inline]
    fn dyn_count(&self, i: u32) -> usize {
        let base = self.p.nodes[i as usize].child_count as usize;
        if self.st.stimuli.is_empty() {
            return base;
        }
        base + self.st.stimuli.iter().filter(|s| s.target == i).count()
    }

    #[inline]
    fn dyn_child(&self, i: u32, k: usize) -> u32 {
        if self.st.stimuli.is_empty() {
            return self.p.children[self.p.nodes[i as usize].first_child as usize + k];
        }
        self.dyn_child_with_stimuli(i, k)
    }

    #[cold]
    fn dyn_child_with_stimuli(&self, i: u32, k: usize) -> u32 {
        let kids = self.p.children_of(i);
        let mut pos = 0;
        for s in 0..=kids.len() {
            for st in self.st.stimuli.iter().filter(|x| x.target == i) {
                if (st.priority as usize).min(kids.len()) == s {
                    if pos == k {
                        return st.root;
                    }
                    pos += 1;
                }
            }
            if s < kids.len() {
                if pos == k {
                    return kids[s];
                }
                pos += 1;
            }
        }
        kids[kids.len() - 1]
    }

    /// Whether the running child `c` of the prioritized list `list` holds a
    /// minimum-duration lock. A lock only guards against its own nearest
    /// list (the competition where dithering happens); higher lists, e.g.
    /// self-preservation at the root, still interrupt.
    fn locked(&self, list: u32, c: u32) -> bool {
        let end = self.p.nodes[c as usize].end;
        (c..end).any(|j| {
            let n = &self.p.nodes[j as usize];
            let Kind::MinDuration { ms } = n.kind else {
                return false;
            };
            if self.st.nodes[j as usize].status() != Status::Running
                || self.st.now_ms.wrapping_sub(self.st.aux[n.aux as usize]) >= ms
            {
                return false;
            }
            let mut up = n.parent;
            while up != NONE && !matches!(self.p.nodes[up as usize].kind, Kind::PrioritizedList) {
                up = self.p.nodes[up as usize].parent;
            }
            up == list
        })
    }

    /// Ticks a node made of conditions only: no timers, no actions, no
    /// cursor, so none of the bookkeeping of [`tick_node`](Self::tick_node).
    fn tick_instant(&mut self, i: u32) -> Status {
        let iu = i as usize;
        let p = self.p;
        let node = &p.nodes[iu];
        self.st.nodes[iu].clear_flags(rule::PAUSED);
        let ok = (!node.is_tagged() || self.tags_ok(i))
            && match node.kind {
                Kind::Condition { cond } => self.test(cond),
                Kind::Succeed => true,
                Kind::Fail => false,
                Kind::Invert => {
                    let c = self.p.children[self.p.nodes[iu].first_child as usize];
                    self.tick_instant(c) == Status::Failure
                }
                Kind::Sequence => {
                    let (first, count) = (
                        self.p.nodes[iu].first_child as usize,
                        self.p.nodes[iu].child_count as usize,
                    );
                    (first..first + count)
                        .all(|k| self.tick_instant(self.p.children[k]) == Status::Success)
                }
                _ => {
                    let (first, count) = (
                        self.p.nodes[iu].first_child as usize,
                        self.p.nodes[iu].child_count as usize,
                    );
                    (first..first + count)
                        .any(|k| self.tick_instant(self.p.children[k]) == Status::Success)
                }
            };
        self.st.nodes[iu].finish_instant(ok)
    }

    /// [`tick_node`](Self::tick_node) with the commonest child, an untagged
    /// condition, done in place (no calls): the bookkeeping is the same as
    /// [`tick_instant`](Self::tick_instant)'s.
    #[inline(always)]
    fn tick_child(&mut self, c: u32) -> Status {
        let p = self.p;
        let node = &p.nodes[c as usize];
        if let Kind::Condition { cond } = node.kind
            && !node.is_tagged()
        {
            let ok = self.test(cond);
            return self.st.nodes[c as usize].finish_instant(ok);
        }
        self.tick_node(c)
    }

    pub(crate) fn tick_node(&mut self, i: u32) -> Status {
        let iu = i as usize;
        let p = self.p;
        let node = &p.nodes[iu];
        if node.instant {
            return self.tick_instant(i);
        }
        self.st.nodes[iu].clear_flags(rule::PAUSED);
        if node.is_tagged() && !self.tags_ok(i) {
            if self.st.nodes[iu].status() == Status::Running {
                self.halt(i);
                self.st.nodes[iu].clear_flags(rule::PAUSED);
            }
            self.st.nodes[iu].set_status(Status::Failure);
            self.st.nodes[iu].clear_flags(rule::COMPLETE);
            return Status::Failure;
        }
        if self.st.nodes[iu].status() != Status::Running {
            self.enter(i);
        }
        let kind = node.kind;
        let status = match kind {
            Kind::Sequence => self.sequence(i),
            Kind::Selector => self.selector(i),
            Kind::PrioritizedList => self.prioritized(i),
            Kind::Parallel { success, failure } => self.parallel(i, success, failure),
            Kind::Sequential => self.sequential(i, false),
            Kind::SequentialLooping => self.sequential(i, true),
            Kind::Probabilistic { weights } => self.probabilistic(i, weights),
            Kind::OneOff { random } => self.one_off(i, random),
            Kind::Ordered => self.ordered(i),
            Kind::Simultaneous => self.simultaneous(i),
            Kind::SelectOne { random } => self.select_one(i, random),
            Kind::Invert => match self.tick_node(self.p.children_of(i)[0]) {
                Status::Success => Status::Failure,
                Status::Failure => Status::Success,
                s => s,
            },
            Kind::ForceSuccess | Kind::ForceFailure => {
                match self.tick_node(self.p.children_of(i)[0]) {
                    Status::Running => Status::Running,
                    _ if kind == Kind::ForceSuccess => Status::Success,
                    _ => Status::Failure,
                }
            }
            Kind::Repeat { count } => self.repeat(i, count),
            Kind::Cooldown { ms } => self.cooldown(i, ms),
            Kind::MinDuration { .. } => self.tick_node(self.p.children_of(i)[0]),
            Kind::Timeout { ms } => {
                let a = self.p.nodes[iu].aux as usize;
                let c = self.p.children_of(i)[0];
                if self.st.now_ms.wrapping_sub(self.st.aux[a]) >= ms {
                    self.halt(c);
                    Status::Failure
                } else {
                    self.tick_node(c)
                }
            }
            Kind::Guard { cond } => {
                let c = self.p.children_of(i)[0];
                if self.test(cond) {
                    self.tick_node(c)
                } else {
                    self.halt(c);
                    Status::Failure
                }
            }
            Kind::Action { .. } => self.action(i),
            Kind::Condition { cond } => {
                if self.test(cond) {
                    Status::Success
                } else {
                    Status::Failure
                }
            }
            Kind::Rule { cond } => {
                if self.test(cond) {
                    Status::Success
                } else {
                    self.st.nodes[iu].clear_flags(rule::COMPLETE);
                    Status::Running
                }
            }
            Kind::Threshold { cond, count } => {
                let a = self.p.nodes[iu].aux as usize;
                if self.test(cond) {
                    self.st.aux[a] += 1;
                }
                if self.st.aux[a] >= count {
                    Status::Success
                } else {
                    Status::Running
                }
            }
            Kind::Wait { ms } => {
                let a = self.p.nodes[iu].aux as usize;
                if self.st.now_ms.wrapping_sub(self.st.aux[a]) >= ms {
                    Status::Success
                } else {
                    Status::Running
                }
            }
            Kind::Succeed => Status::Success,
            Kind::Fail => Status::Failure,
            Kind::Forever => Status::Running,
            Kind::Impulse { impulse } => self.impulse(i, impulse),
            Kind::Custom { custom } => {
                let node = self.p.customs[custom as usize].node.clone();
                let mut ctx = CustomCtx {
                    interp: self,
                    node: i,
                };
                node.tick(&mut ctx)
            }
        };
        let s = &mut self.st.nodes[iu];
        match status {
            Status::Success => s.add_flags(rule::COMPLETE | rule::WAS_COMPLETE),
            Status::Failure => s.clear_flags(rule::COMPLETE),
            _ => {}
        }
        s.set_status(status);
        status
    }

    fn action(&mut self, i: u32) -> Status {
        match self
            .actions
            .slots
            .iter()
            .position(|a| a.node == i && a.state != ActionState::Aborted)
        {
            Some(k) => match self.actions.slots[k].state {
                ActionState::Succeeded => {
                    self.actions.slots.swap_remove(k);
                    Status::Success
                }
                ActionState::Failed => {
                    self.actions.slots.swap_remove(k);
                    Status::Failure
                }
                _ => Status::Running,
            },
            // The slot vanished (e.g. the game cleared actions): start over.
            None => Status::Failure,
        }
    }

    fn sequence(&mut self, i: u32) -> Status {
        let n = &self.p.nodes[i as usize];
        let (guard_len, count) = (n.guard_len as usize, n.child_count as usize);
        let mut cursor = self.cursor_of(i) as usize;
        // A forced path (impulse redirect) jumps to the child holding the
        // target; the guards before it are not asked (the impulse was).
        let mut jumped = false;
        if self.st.redirect != NONE
            && let Some(k) = self.p.children_of(i).iter().position(|&c| self.forced(c))
            && k >= cursor
        {
            cursor = k;
            jumped = true;
        }
        // Guards (leading conditions) are re-checked every tick while a
        // later child runs: a broken guard stops the sequence.
        for k in 0..cursor.min(guard_len) {
            if jumped {
                break;
            }
            let c = self.p.children_of(i)[k];
            if self.tick_child(c) == Status::Failure {
                let running = self.p.children_of(i)[cursor];
                self.halt(running);
                self.set_cursor_at(i as usize, 0);
                return Status::Failure;
            }
        }
        for k in cursor..count {
            let c = self.p.children_of(i)[k];
            match self.tick_child(c) {
                Status::Running => {
                    self.set_cursor_at(i as usize, k as u16);
                    return Status::Running;
                }
                Status::Failure => {
                    self.set_cursor_at(i as usize, 0);
                    return Status::Failure;
                }
                _ => {}
            }
        }
        self.set_cursor_at(i as usize, 0);
        Status::Success
    }

    fn running_child(&self, i: u32) -> u32 {
        self.st.aux[self.p.nodes[i as usize].aux as usize]
    }

    fn set_running_child(&mut self, i: u32, c: u32) {
        let a = self.p.nodes[i as usize].aux as usize;
        self.st.aux[a] = c;
    }

    /// Halo's prioritized list: the first relevant child runs; a higher
    /// priority child that becomes relevant interrupts it on a later tick.
    fn prioritized(&mut self, i: u32) -> Status {
        let count = self.dyn_count(i);
        let mut running = self.running_child(i);
        if running != NONE && self.st.nodes[running as usize].status() != Status::Running {
            running = NONE;
        }
        for k in 0..count {
            let c = self.dyn_child(i, k);
            if c != running {
                if !(self.forced(c) || self.relevant(c)) {
                    continue;
                }
                if running != NONE {
                    // Minimum duration: a running child that is locked cannot
                    // be interrupted yet (against dithering).
                    if self.locked(i, running) {
                        continue;
                    }
                    self.halt(running);
                    running = NONE;
                }
            }
            match self.tick_node(c) {
                Status::Running => {
                    self.set_running_child(i, c);
                    return Status::Running;
                }
                Status::Success => {
                    self.set_running_child(i, NONE);
                    return Status::Success;
                }
                _ => {
                    if c == running {
                        running = NONE;
                    }
                }
            }
        }
        self.set_running_child(i, NONE);
        Status::Failure
    }

    /// Plain selector: the first child that does not fail, kept until it
    /// finishes (no re-checking of higher priorities).
    fn selector(&mut self, i: u32) -> Status {
        let count = self.dyn_count(i);
        let running = self.running_child(i);
        let start =
            if running != NONE && self.st.nodes[running as usize].status() == Status::Running {
                (0..count)
                    .position(|k| self.dyn_child(i, k) == running)
                    .unwrap_or(0)
            } else {
                0
            };
        for k in start..count {
            let c = self.dyn_child(i, k);
            match self.tick_node(c) {
                Status::Running => {
                    self.set_running_child(i, c);
                    return Status::Running;
                }
                Status::Success => {
                    self.set_running_child(i, NONE);
                    return Status::Success;
                }
                _ => {}
            }
        }
        self.set_running_child(i, NONE);
        Status::Failure
    }

    fn parallel(&mut self, i: u32, success: u16, failure: u16) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let need_ok = if success == 0 {
            count
        } else {
            success as usize
        };
        let need_fail = if failure == 0 {
            count
        } else {
            failure as usize
        };
        let (mut ok, mut bad) = (0, 0);
        for k in 0..count {
            let c = self.p.children_of(i)[k];
            let s = match self.st.nodes[c as usize].status() {
                Status::Success => Status::Success,
                Status::Failure => Status::Failure,
                _ => self.tick_node(c),
            };
            match s {
                Status::Success => ok += 1,
                Status::Failure => bad += 1,
                _ => {}
            }
        }
        let result = if ok >= need_ok {
            Status::Success
        } else if bad >= need_fail || ok + bad == count {
            Status::Failure
        } else {
            return Status::Running;
        };
        for k in 0..count {
            let c = self.p.children_of(i)[k];
            self.halt(c);
        }
        result
    }

    /// Halo's sequential (and sequential-looping): children in order,
    /// skipping those not relevant, never revisiting one.
    fn sequential(&mut self, i: u32, looping: bool) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let mut k = self.cursor_of(i) as usize;
        let mut steps = 0;
        while steps <= count {
            if k >= count {
                if !looping {
                    self.set_cursor_at(i as usize, 0);
                    return Status::Success;
                }
                k = 0;
            }
            let c = self.p.children_of(i)[k];
            let continuing = self.st.nodes[c as usize].status() == Status::Running;
            if (continuing || self.forced(c) || self.relevant(c))
                && self.tick_node(c) == Status::Running
            {
                self.set_cursor_at(i as usize, k as u16);
                return Status::Running;
            }
            k += 1;
            steps += 1;
        }
        // A full loop without anything to run: try again next tick.
        self.set_cursor_at(i as usize, (k % count.max(1)) as u16);
        Status::Running
    }

    fn probabilistic(&mut self, i: u32, weights: u32) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let mut chosen = self.cursor_of(i);
        if chosen == u16::MAX {
            let weight = |this: &Self, k: usize| {
                if weights == NONE {
                    1.0
                } else {
                    this.p.weights[weights as usize + k]
                }
            };
            let mut total = 0.0;
            for k in 0..count {
                let c = self.p.children_of(i)[k];
                if self.relevant(c) {
                    total += weight(self, k);
                }
            }
            if total <= 0.0 {
                return Status::Failure;
            }
            let mut pick = self.random_unit() * total;
            for k in 0..count {
                let c = self.p.children_of(i)[k];
                if self.relevant(c) {
                    let w = weight(self, k);
                    chosen = k as u16;
                    if pick < w {
                        break;
                    }
                    pick -= w;
                }
            }
            self.set_cursor_at(i as usize, chosen);
        }
        let c = self.p.children_of(i)[chosen as usize];
        self.tick_node(c)
    }

    fn one_off(&mut self, i: u32, random: bool) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let a = self.p.nodes[i as usize].aux as usize;
        let mut chosen = self.cursor_of(i);
        if chosen == u16::MAX {
            let used = self.st.aux[a];
            let candidates: u32 = (0..count)
                .filter(|&k| used & (1 << k) == 0 && self.relevant(self.p.children_of(i)[k]))
                .fold(0, |m, k| m | (1 << k));
            if candidates == 0 {
                return Status::Failure;
            }
            let k = if random {
                let nth = (self.next_random() % u64::from(candidates.count_ones())) as usize;
                (0..count)
                    .filter(|&k| candidates & (1 << k) != 0)
                    .nth(nth)
                    .unwrap_or(0)
            } else {
                candidates.trailing_zeros() as usize
            };
            self.st.aux[a] |= 1 << k;
            chosen = k as u16;
            self.set_cursor_at(i as usize, chosen);
        }
        let c = self.p.children_of(i)[chosen as usize];
        self.tick_node(c)
    }

    fn was_complete(&self, c: u32) -> bool {
        self.st.nodes[c as usize].flags() & rule::WAS_COMPLETE != 0
    }

    /// Trainz ordered execution: iterate top to bottom, pausing children that
    /// WAS_COMPLETE and running the first that is not; complete when none is
    /// left. A child completing "touches" this node, which iterates again at
    /// once.
    fn ordered(&mut self, i: u32) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        for k in 0..count {
            let c = self.p.children_of(i)[k];
            if self.was_complete(c) {
                self.halt(c);
                continue;
            }
            self.tick_node(c);
            if !self.was_complete(c) {
                return Status::Running;
            }
            // Completed: the touch makes this node iterate again, which
            // pauses the child and moves on.
            self.halt(c);
        }
        Status::Success
    }

    /// Trainz simultaneous execution: all children run until every one
    /// WAS_COMPLETE; then they are paused and this completes.
    fn simultaneous(&mut self, i: u32) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let mut all = true;
        for k in 0..count {
            let c = self.p.children_of(i)[k];
            self.tick_node(c);
            all &= self.was_complete(c);
        }
        if all {
            for k in 0..count {
                let c = self.p.children_of(i)[k];
                self.halt(c);
            }
            Status::Success
        } else {
            Status::Running
        }
    }

    /// Trainz controlled selection: one relevant child is chosen (first, or
    /// at random) and run until it WAS_COMPLETE.
    fn select_one(&mut self, i: u32, random: bool) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let mut chosen = self.cursor_of(i);
        if chosen == u16::MAX {
            let mut n_rel = 0u64;
            for k in 0..count {
                if self.relevant(self.p.children_of(i)[k]) {
                    n_rel += 1;
                }
            }
            if n_rel == 0 {
                return Status::Failure;
            }
            let nth = if random {
                self.next_random() % n_rel
            } else {
                0
            };
            let mut seen = 0;
            for k in 0..count {
                if self.relevant(self.p.children_of(i)[k]) {
                    if seen == nth {
                        chosen = k as u16;
                        break;
                    }
                    seen += 1;
                }
            }
            self.set_cursor_at(i as usize, chosen);
        }
        let c = self.p.children_of(i)[chosen as usize];
        self.tick_node(c);
        if self.was_complete(c) {
            self.halt(c);
            Status::Success
        } else {
            Status::Running
        }
    }

    fn repeat(&mut self, i: u32, count: u32) -> Status {
        let a = self.p.nodes[i as usize].aux as usize;
        let c = self.p.children_of(i)[0];
        match self.tick_node(c) {
            Status::Success => {
                self.st.aux[a] += 1;
                if count > 0 && self.st.aux[a] >= count {
                    Status::Success
                } else {
                    // Restarted on the next tick (never loops within a tick).
                    Status::Running
                }
            }
            s => s,
        }
    }

    fn cooldown(&mut self, i: u32, ms: u32) -> Status {
        if self.cooling(i, ms) && self.st.nodes[i as usize].status() != Status::Running {
            return Status::Failure;
        }
        let c = self.p.children_of(i)[0];
        let s = self.tick_node(c);
        if s != Status::Running {
            let a = self.p.nodes[i as usize].aux as usize;
            // Stored +1 so that 0 means "never ran".
            self.st.aux[a] = self.st.now_ms.wrapping_add(1);
        }
        s
    }

    fn impulse(&mut self, i: u32, impulse: u32) -> Status {
        let imp = &self.p.impulses[impulse as usize];
        let (when, redirect_to) = (imp.when, imp.redirect_to);
        let running = self.st.nodes[i as usize].status() == Status::Running;
        if !self.test(when) {
            if let Some(&c) = self.p.children_of(i).first() {
                self.halt(c);
            }
            return Status::Failure;
        }
        if !running {
            self.st.impulse_fired[impulse as usize] += 1;
        }
        if redirect_to != NONE {
            // Jump: the walk restarts from the root with the path to the
            // behavior's own position forced.
            self.st.redirect = redirect_to;
            self.st.redirect_requested = true;
            return Status::Running;
        }
        let c = self.p.children_of(i)[0];
        self.tick_node(c)
    }
}
