//! The flight recorder: per agent, a bounded ring of what each tick read
//! and did, and the agent's state at the start of the ring, so any
//! recorded tick can be rebuilt and the whole window replayed
//! ([`sim::replay`](crate::sim::replay)).
//!
//! Off by default (an agent without a recorder pays one `Option` check).
//! On, nothing is allocated per tick: the ring and the baselines are
//! allocated when recording starts. When the ring is full, the oldest tick
//! is folded into the start state by ticking a shadow copy of the agent with
//! that tick's recorded inputs (the tree is deterministic), so the window
//! always starts from a known state.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::blackboard::Blackboard;
use crate::clock::AgentClock;
use crate::program::Program;
use crate::runtime::{
    ActionEvent, ActionState, AgentState, BtActions, ChildScore, NodeState, StateSnapshot, Status,
    TickEnv, TickTrace, UtilityChoice, tick_agent,
};
use crate::value::Value;

/// Most ticks a flight recording keeps (its room is taken when it
/// starts, 256 bytes or so a tick: about 25 MB, 55 minutes at 30 Hz).
pub const MAX_RECORDED_TICKS: usize = 100_000;

/// One recorded fact. Node and key indices are the program's.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rec {
    /// Starts a tick's facts: the agent's tick number, how far its clock
    /// advanced, and the step its durations are counted in.
    Tick {
        tick: u64,
        step_us: u32,
        count_us: u32,
    },
    /// Inputs, as the tree saw them before the tick.
    Set {
        key: u16,
        value: Option<Value>,
    },
    Tags(u64),
    World {
        slot: u32,
        value: Option<Value>,
    },
    Predicate {
        slot: u32,
        value: bool,
    },
    Report {
        node: u32,
        ok: bool,
    },
    Stimulus {
        target: u32,
        root: u32,
        priority: u16,
        ms: u32,
    },
    Restart,
    /// Outputs.
    Status(Status),
    /// The tick skipped its walk (quiet): the tree decided nothing anew,
    /// and a replay, which walks every tick, does not compare decisions.
    Skipped,
    Node {
        node: u32,
        from: u8,
        to: u8,
    },
    Action {
        node: u32,
        event: ActionEvent,
    },
    /// A `Utility` child's score, then the `Utility`'s decision.
    Score(ChildScore),
    Choice(UtilityChoice),
}

/// The recorder of one agent.
#[derive(Debug, Clone)]
pub struct Recorder {
    capacity: usize,
    facts: VecDeque<Rec>,
    /// Facts per recorded tick, oldest first.
    ticks: VecDeque<u32>,
    repeat: bool,
    // What the tree saw at the last tick (inputs are recorded as changes).
    values: Vec<Option<Value>>,
    tags: u64,
    world: Vec<Option<Value>>,
    predicates: Vec<bool>,
    nodes: Vec<u8>,
    /// Stimuli inserted and restarts asked since the last tick.
    pending: Vec<Rec>,
    /// The agent at the start of the window (a shadow, ticked forward when
    /// the oldest tick leaves the ring).
    start: Start,
}

#[derive(Debug, Clone)]
struct Start {
    clock_us: u64,
    /// Bumped when a world value changes (lets the shadow skip walks whose
    /// inputs did not change, as the agent does).
    world_generation: u64,
    state: AgentState,
    blackboard: Blackboard,
    actions: BtActions,
    world: Vec<Option<Value>>,
    predicates: Vec<bool>,
}

/// Facts kept per tick, on average, when sizing the ring (a tick with more
/// facts than this pushes older ticks out sooner).
const FACTS_PER_TICK: usize = 8;

impl Recorder {
    /// Starts recording an agent as it is now, keeping the last `ticks`
    /// ticks (the plugin's [`BtAgent::record`](crate::BtAgent::record)).
    #[allow(
        clippy::too_many_arguments,
        reason = "the agent's parts, taken apart by the plugin"
    )]
    pub(crate) fn new(
        program: &Program,
        state: &AgentState,
        blackboard: &Blackboard,
        actions: &BtActions,
        globals: &[Option<Value>],
        ticks: usize,
        repeat: bool,
        clock_us: u64,
    ) -> Self {
        let ticks = ticks.max(1);
        let predicates = predicate_answers(program, blackboard);
        let mut world = globals.to_vec();
        world.resize(program.globals.len(), None);
        let mut shadow_actions = actions.clone();
        shadow_actions.slots.reserve(
            program
                .action_capacity()
                .saturating_sub(actions.slots.len()),
        );
        Recorder {
            capacity: ticks,
            // Room for the average ticks, and always for one tick at its
            // worst (every node, key, world value, predicate, action and
            // stimulus changing): a tick's facts are never cut.
            facts: VecDeque::with_capacity(
                ticks * FACTS_PER_TICK
                    + program.nodes.len()
                    + program.bb_keys.len()
                    + program.globals.len()
                    + program.predicates.len()
                    + 4 * program.action_capacity()
                    + 2 * crate::runtime::MAX_STIMULI
                    + 8,
            ),
            ticks: VecDeque::with_capacity(ticks),
            repeat,
            values: (0..program.bb_keys.len() as u16)
                .map(|k| blackboard.get_index(k))
                .collect(),
            tags: blackboard.tags(),
            world: world.clone(),
            predicates: predicates.clone(),
            nodes: state.mem.nodes().iter().map(|n| n.raw()).collect(),
            pending: Vec::with_capacity(crate::runtime::MAX_STIMULI + 1),
            start: Start {
                clock_us,
                world_generation: 0,
                state: state.clone(),
                blackboard: blackboard.clone(),
                actions: shadow_actions,
                world,
                predicates,
            },
        }
    }

    /// Ticks kept at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Ticks recorded (at most the capacity).
    pub fn len(&self) -> usize {
        self.ticks.len()
    }

    /// Whether nothing is recorded yet.
    pub fn is_empty(&self) -> bool {
        self.ticks.is_empty()
    }

    /// A stimulus was inserted (recorded with the next tick).
    pub(crate) fn note_stimulus(&mut self, state: &AgentState, root: u32) {
        let Some(s) = state.stimuli.iter().find(|s| s.root == root) else {
            return;
        };
        let fact = Rec::Stimulus {
            target: s.target,
            root: s.root,
            priority: s.priority,
            ms: s.duration_ms,
        };
        // A renewal of a pending one replaces it (the last insertion wins,
        // as in the agent).
        let same = self
            .pending
            .iter()
            .position(|r| matches!(r, Rec::Stimulus { root: r0, .. } if *r0 == root));
        match same {
            Some(k) => self.pending[k] = fact,
            None if self.pending.len() < self.pending.capacity() => self.pending.push(fact),
            None => {}
        }
    }

    /// The tree was restarted (recorded with the next tick).
    pub(crate) fn note_restart(&mut self) {
        if self.pending.len() < self.pending.capacity() {
            self.pending.push(Rec::Restart);
        }
    }

    fn push(&mut self, program: &Program, r: Rec) {
        // Room for one more fact: drop whole old ticks first.
        while self.facts.len() == self.facts.capacity() && self.ticks.len() > 1 {
            self.drop_oldest_tick(program);
        }
        if self.facts.len() < self.facts.capacity() {
            self.facts.push_back(r);
            if let Some(n) = self.ticks.back_mut() {
                *n += 1;
            }
        }
    }

    /// Records what the tree is about to read (call right before the tick).
    pub(crate) fn before_tick(
        &mut self,
        program: &Program,
        tick: u64,
        (step_us, count_us): (u32, u32),
        blackboard: &Blackboard,
        actions: &BtActions,
        globals: &[Option<Value>],
    ) {
        if self.ticks.len() == self.capacity {
            self.drop_oldest_tick(program);
        }
        self.ticks.push_back(0);
        self.push(
            program,
            Rec::Tick {
                tick,
                step_us,
                count_us,
            },
        );
        self.record_inputs(program, blackboard, globals);
        for a in actions.iter() {
            let ok = match a.state {
                ActionState::Succeeded => true,
                ActionState::Failed => false,
                _ => continue,
            };
            self.push(program, Rec::Report { node: a.leaf(), ok });
        }
        // Stimuli and a restart asked during the last Act come after the
        // reports the game made then (a restart aborts what runs).
        for i in 0..self.pending.len() {
            let r = self.pending[i];
            self.push(program, r);
        }
        self.pending.clear();
    }

    /// Records the inputs that changed since the last tick: blackboard
    /// values, tags, world values and predicate results.
    fn record_inputs(
        &mut self,
        program: &Program,
        blackboard: &Blackboard,
        globals: &[Option<Value>],
    ) {
        for k in 0..self.values.len() {
            let now = blackboard.get_index(k as u16);
            if now != self.values[k] {
                self.values[k] = now;
                self.push(
                    program,
                    Rec::Set {
                        key: k as u16,
                        value: now,
                    },
                );
            }
        }
        if blackboard.tags() != self.tags {
            self.tags = blackboard.tags();
            self.push(program, Rec::Tags(self.tags));
        }
        for slot in 0..self.world.len() {
            let now = globals.get(slot).copied().flatten();
            if now != self.world[slot] {
                self.world[slot] = now;
                self.push(
                    program,
                    Rec::World {
                        slot: slot as u32,
                        value: now,
                    },
                );
            }
        }
        for (i, p) in program.predicates.iter().enumerate() {
            if let Some(f) = &p.f {
                let now = f(
                    blackboard,
                    &crate::program::PredicateArgs {
                        args: &p.args,
                        bb: blackboard,
                    },
                );
                if now != self.predicates[i] {
                    self.predicates[i] = now;
                    self.push(
                        program,
                        Rec::Predicate {
                            slot: i as u32,
                            value: now,
                        },
                    );
                }
            }
        }
    }

    /// Records what the tick did (call right after it, with its trace and
    /// the blackboard it left).
    pub(crate) fn after_tick(
        &mut self,
        program: &Program,
        state: &AgentState,
        blackboard: &Blackboard,
        trace: &TickTrace,
        status: Status,
    ) {
        self.push(program, Rec::Status(status));
        if state.last_tick() == Some(crate::runtime::TickKind::Skipped) {
            self.push(program, Rec::Skipped);
        }
        // The tree's own writes (`SetBlackboard`, `AddBlackboard`...) are
        // the tree's to redo when replayed: only what changes between this
        // tick and the next is the game's input. Recorded as inputs, they
        // set the key in emitted scripts the game never set, and forced
        // the old values back on an edited tree's replay.
        for (k, seen) in self.values.iter_mut().enumerate() {
            *seen = blackboard.get_index(k as u16);
        }
        // Tags too (a custom node may set them).
        self.tags = blackboard.tags();
        for k in 0..self.nodes.len().min(state.mem.nodes().len()) {
            let now = state.mem.nodes()[k].raw();
            if now != self.nodes[k] {
                self.push(
                    program,
                    Rec::Node {
                        node: k as u32,
                        from: self.nodes[k],
                        to: now,
                    },
                );
                self.nodes[k] = now;
            }
        }
        for i in 0..trace.actions.len() {
            let (node, event) = trace.actions[i];
            self.push(program, Rec::Action { node, event });
        }
        for i in 0..trace.scores.len() {
            self.push(program, Rec::Score(trace.scores[i]));
        }
        for i in 0..trace.choices.len() {
            self.push(program, Rec::Choice(trace.choices[i]));
        }
    }

    /// Folds the oldest tick into the start state: the shadow agent reads
    /// that tick's inputs and ticks.
    fn drop_oldest_tick(&mut self, program: &Program) {
        let Some(n) = self.ticks.pop_front() else {
            return;
        };
        let start = &mut self.start;
        let (mut step_us, mut count_us) = (0, 0);
        for _ in 0..n {
            let Some(r) = self.facts.pop_front() else {
                break;
            };
            match r {
                Rec::Tick {
                    step_us: us,
                    count_us: count,
                    ..
                } => (step_us, count_us) = (us, count),
                Rec::Set { key, value } => match value {
                    Some(v) => start.blackboard.set_index(key, v),
                    None => start.blackboard.clear_index(key),
                },
                Rec::Tags(bits) => start.blackboard.set_tags(bits),
                Rec::World { slot, value } => {
                    if let Some(w) = start.world.get_mut(slot as usize) {
                        *w = value;
                        start.world_generation += 1;
                    }
                }
                Rec::Predicate { slot, value } => {
                    if let Some(p) = start.predicates.get_mut(slot as usize) {
                        *p = value;
                        // A predicate is read through the stub: walk again.
                        start.world_generation += 1;
                    }
                }
                Rec::Report { node, ok } => report(&mut start.actions, node, ok),
                Rec::Stimulus {
                    target,
                    root,
                    priority,
                    ms,
                } => {
                    let _ = start
                        .state
                        .insert_stimulus_at(program, target, root, priority, ms);
                }
                Rec::Restart => start.state.reset(program, &mut start.actions),
                Rec::Status(_)
                | Rec::Skipped
                | Rec::Node { .. }
                | Rec::Action { .. }
                | Rec::Score(_)
                | Rec::Choice(_) => {}
            }
        }
        shadow_tick(program, start, (step_us, count_us), self.repeat);
    }

    /// The recording as a file's data (paths and names beside indices).
    pub fn recording(&self, program: &Program) -> Recording {
        let key = |k: u16| program.bb_keys.get(k as usize).cloned().unwrap_or_default();
        let mut ticks: Vec<RecordedTick> = Vec::with_capacity(self.ticks.len());
        // The `Utility` decisions of the tick being read.
        let mut decided = TickTrace::default();
        for &r in &self.facts {
            if let Rec::Tick {
                tick,
                step_us,
                count_us,
            } = r
            {
                if let Some(t) = ticks.last_mut() {
                    t.utility = recorded_choices(program, &decided);
                    decided.clear();
                }
                ticks.push(RecordedTick {
                    tick,
                    step_us,
                    count_us: if count_us == step_us { 0 } else { count_us },
                    ..Default::default()
                });
                continue;
            }
            let Some(t) = ticks.last_mut() else { continue };
            match r {
                Rec::Tick { .. } => {}
                Rec::Set { key: k, value } => t.set.push((key(k), value)),
                Rec::Tags(bits) => t.tags = Some(tag_names(program, bits)),
                Rec::World { slot, value } => t.world.push((
                    program
                        .globals
                        .get(slot as usize)
                        .map_or_else(String::new, |g| g.name.clone()),
                    value,
                )),
                Rec::Predicate { slot, value } => t.predicates.push((
                    program
                        .predicates
                        .get(slot as usize)
                        .map_or_else(String::new, |p| p.name.clone()),
                    slot,
                    value,
                )),
                Rec::Report { node, ok } => t.reports.push((node, ok)),
                Rec::Stimulus {
                    target,
                    root,
                    priority,
                    ms,
                } => t.stimuli.push(RecordedStimulus {
                    at: program.path(target).to_owned(),
                    behavior: program.name(root).trim_start_matches('~').to_owned(),
                    priority,
                    ms,
                }),
                Rec::Restart => t.restart = true,
                Rec::Status(s) => t.status = s.as_str().to_owned(),
                Rec::Skipped => t.skipped = true,
                Rec::Node { node, from, to } => t.nodes.push((node, from, to)),
                Rec::Action { node, event } => t.actions.push((
                    node,
                    event_name(event).to_owned(),
                    program
                        .action_of(node)
                        .map_or_else(String::new, |a| a.name().to_owned()),
                )),
                Rec::Score(score) => decided.scores.push(score),
                Rec::Choice(choice) => decided.choices.push(choice),
            }
        }
        if let Some(t) = ticks.last_mut() {
            t.utility = recorded_choices(program, &decided);
        }
        let s = &self.start;
        Recording {
            format: RECORDING_FORMAT,
            tree: program.source.clone(),
            tree_hash: format!("{:016x}", program.content_hash),
            repeat: self.repeat,
            paths: program.paths.clone(),
            start: StartState {
                clock_us: s.clock_us,
                state: s.state.snapshot(),
                blackboard: (0..program.bb_keys.len() as u16)
                    .map(|k| (key(k), s.blackboard.get_index(k)))
                    .collect(),
                tags: tag_names(program, s.blackboard.tags()),
                world: program
                    .globals
                    .iter()
                    .zip(&s.world)
                    .map(|(g, v)| (g.name.clone(), *v))
                    .collect(),
                predicates: s.predicates.clone(),
                actions: s
                    .actions
                    .iter()
                    .map(|a| {
                        (
                            a.leaf(),
                            u64::from(a.id.0),
                            action_state_name(a.state).to_owned(),
                            a.started_ms,
                        )
                    })
                    .collect(),
            },
            ticks,
        }
    }
}

fn report(actions: &mut BtActions, node: u32, ok: bool) {
    if let Some(a) = actions
        .slots
        .iter_mut()
        .find(|a| a.leaf() == node && a.is_running())
    {
        if ok { a.succeed() } else { a.fail() }
    }
}

fn shadow_tick(
    program: &Program,
    start: &mut Start,
    (step_us, count_us): (u32, u32),
    repeat: bool,
) {
    let names = &program.predicates;
    let answers = &start.predicates;
    let stub = |name: &str| {
        names
            .iter()
            .position(|p| p.name == name)
            .and_then(|i| answers.get(i).copied())
            .unwrap_or(false)
    };
    let mut clock = AgentClock::at(start.clock_us);
    let step_ms = clock.advance(u64::from(step_us));
    start.clock_us = clock.us();
    tick_agent(
        program,
        &mut start.state,
        &mut start.blackboard,
        &mut start.actions,
        step_ms,
        TickEnv {
            stub: Some(&stub),
            globals: &start.world,
            globals_generation: start.world_generation,
            repeat,
            always_walk: false,
            dt_us: count_us,
        },
    );
}

pub(crate) fn event_name(e: ActionEvent) -> &'static str {
    match e {
        ActionEvent::Started => "started",
        ActionEvent::Finished(s) => s.as_str(),
        ActionEvent::Aborted => "aborted",
    }
}

fn tag_names(program: &Program, bits: u64) -> Vec<String> {
    program
        .tag_names
        .iter()
        .enumerate()
        .filter(|(i, _)| bits & (1u64 << i) != 0)
        .map(|(_, t)| t.clone())
        .collect()
}

pub(crate) fn action_state_name(s: ActionState) -> &'static str {
    match s {
        ActionState::Started => "started",
        ActionState::Running => "running",
        ActionState::Succeeded => "succeeded",
        ActionState::Failed => "failed",
        ActionState::Aborted => "aborted",
    }
}

pub(crate) fn action_state_of(name: &str) -> Option<ActionState> {
    Some(match name {
        "started" => ActionState::Started,
        "running" => ActionState::Running,
        "succeeded" => ActionState::Succeeded,
        "failed" => ActionState::Failed,
        "aborted" => ActionState::Aborted,
        _ => return None,
    })
}

/// The version of the recording format this build writes and reads.
pub const RECORDING_FORMAT: u32 = 1;

/// A recording as a file (JSON): the tree and its content hash, the
/// agent's state where the window starts, and per tick what the tree read
/// (inputs) and did (outputs). Indices are the program's; names and paths
/// are there for reading. See [`sim::replay`](crate::sim::replay).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recording {
    /// [`RECORDING_FORMAT`].
    pub format: u32,
    /// The tree file.
    pub tree: String,
    /// The tree's content hash (its files' texts), hex.
    pub tree_hash: String,
    /// The root restarts when it finishes (`RunMode::Repeat`).
    pub repeat: bool,
    /// Every node's path, by index (a replay on a changed tree compares
    /// by path).
    pub paths: Vec<String>,
    /// The agent where the window starts.
    pub start: StartState,
    /// The recorded ticks, oldest first.
    pub ticks: Vec<RecordedTick>,
}

/// The agent where a recording starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StartState {
    /// The agent's µs clock.
    pub clock_us: u64,
    /// The tree state.
    pub state: StateSnapshot,
    /// Blackboard values by key (`None`: unset).
    pub blackboard: Vec<(String, Option<Value>)>,
    /// Tags set.
    pub tags: Vec<String>,
    /// World values the tree reads.
    pub world: Vec<(String, Option<Value>)>,
    /// Predicate answers, per predicate of the program.
    pub predicates: Vec<bool>,
    /// Action slots: leaf node, action id, state, start time (ms).
    pub actions: Vec<(u32, u64, String, u32)>,
}

/// A stimulus inserted before a tick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedStimulus {
    /// The composite's path.
    pub at: String,
    /// The behavior.
    pub behavior: String,
    /// Its priority.
    pub priority: u16,
    /// Its duration (ms).
    pub ms: u32,
}

/// One recorded tick: inputs, then outputs.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RecordedTick {
    /// The agent's tick number.
    pub tick: u64,
    /// Its period (µs): how far the agent's clock advanced.
    pub step_us: u32,
    /// The step its durations were counted in (µs), when not `step_us`:
    /// an agent of a tick tier counts in the schedule's steps. 0: `step_us`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub count_us: u32,
    /// The agent skipped this tick's walk (nothing it reads changed): the
    /// tree decided nothing anew, and a replay, which walks every tick,
    /// does not compare this tick's utility decisions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// Blackboard values the game changed since the last tick (`None`:
    /// unset). The tree's own writes are not here: a replay redoes them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set: Vec<(String, Option<Value>)>,
    /// The tags, when they changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// World values that changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub world: Vec<(String, Option<Value>)>,
    /// Predicate answers that changed: name, slot, answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predicates: Vec<(String, u32, bool)>,
    /// Action reports the tree took: leaf node, success.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reports: Vec<(u32, bool)>,
    /// Stimuli inserted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stimuli: Vec<RecordedStimulus>,
    /// The tree was restarted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub restart: bool,
    /// The root's status after the tick.
    pub status: String,
    /// Nodes whose status or rule flags changed: node, old, new (packed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<(u32, u8, u8)>,
    /// Action events in order: leaf node, `started` / `success` /
    /// `failure` / `aborted`, the action's name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<(u32, String, String)>,
    /// What each `Utility` decided, in order: its children's scores and
    /// why its choice won.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub utility: Vec<RecordedChoice>,
}

/// One `Utility` decision of a recorded tick.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RecordedChoice {
    /// The `Utility` node.
    pub node: u32,
    /// Each child node with its score (`None`: not an option).
    pub scores: Vec<(u32, Option<f32>)>,
    /// The child it ran (`None`: none).
    pub chosen: Option<u32>,
    /// Why, in words (`beat sleep by 0.32`, `kept`, ...).
    pub why: String,
}

impl RecordedChoice {
    /// `root: eat=0.80 sleep=0.48 -> eat (beat sleep by 0.32)`, children
    /// by name.
    pub fn text(&self, program: &Program) -> String {
        let scores: Vec<String> = self
            .scores
            .iter()
            .map(|&(c, s)| match s {
                Some(s) => format!("{}={s:.2}", program.name(c)),
                None => format!("{}=-", program.name(c)),
            })
            .collect();
        format!(
            "{}: {} -> {} ({})",
            program.path(self.node),
            scores.join(" "),
            self.chosen.map_or("none", |c| program.name(c)),
            self.why
        )
    }
}

/// A tick's `Utility` decisions as a recording keeps them.
pub(crate) fn recorded_choices(program: &Program, trace: &TickTrace) -> Vec<RecordedChoice> {
    trace
        .decisions()
        .map(|d| RecordedChoice {
            node: d.choice.utility,
            scores: d.scores.iter().map(|s| (s.child, s.score)).collect(),
            chosen: (d.choice.chosen != crate::NONE).then_some(d.choice.chosen),
            why: d.choice.why(|n| program.name(n).to_owned()),
        })
        .collect()
}

/// The packed node byte as text (`running PCW`), for messages.
pub fn node_text(b: u8) -> String {
    let n = NodeState::from_raw(b);
    format!("{} {}", n.status().as_str(), n.flags())
}

/// What the predicates answer now, per program slot (`false` for ones the
/// app does not implement).
fn predicate_answers(program: &Program, bb: &Blackboard) -> Vec<bool> {
    program
        .predicates
        .iter()
        .map(|p| {
            p.f.as_ref()
                .is_some_and(|f| f(bb, &crate::program::PredicateArgs { args: &p.args, bb }))
        })
        .collect()
}

impl RecordedTick {
    /// The step its durations were counted in (µs): `count_us`, or
    /// `step_us` when that is 0.
    pub fn counted_in_us(&self) -> u32 {
        if self.count_us == 0 {
            self.step_us
        } else {
            self.count_us
        }
    }
}

/// Serde: a field left out when 0.
fn is_zero(v: &u32) -> bool {
    *v == 0
}
