//! Running a tree without a game: scripted timelines, one JSON line per
//! tick. Used by `wyrd sim` and by tests.
//!
//! A script (RON):
//!
//! ```ron
//! (
//!     ticks: 20,          // default: the last event's tick + 1
//!     seed: 7,            // random choices (default 0)
//!     hz: 30,             // tick rate (default 30)
//!     auto_finish: true,  // actions with a `ticks` param succeed after that many ticks
//!     mode: Repeat,       // or Once: the tree stays finished (rule sessions);
//!                         // or NextTick: a finished root starts again on the next tick (BT.CPP's loop)
//!     events: [
//!         (tick: 1, set: ("target_visible", true)),
//!         (tick: 2, tag: ("driver", true)),
//!         (tick: 3, finish: ("root/fight/Shoot", Success)),
//!         (tick: 4, stimulus: (at: "root", behavior: "flee", priority: 0, seconds: 1.5)),
//!         (tick: 5, predicate: ("can_see_player", true)),
//!         (tick: 6, world: ("QST_DST_TOWER_5", 5)),
//!     ],
//! )
//! ```
//! Events of tick `N` apply just before tick `N` runs (ticks count from 1).

use std::collections::HashMap;

use serde::Deserialize;

use crate::blackboard::Blackboard;
use crate::clock::AgentClock;
use crate::program::Program;
use crate::runtime::{
    ActionEvent, ActionState, AgentState, BtActions, Status, TickEnv, TickTrace, tick_agent_traced,
};
use crate::value::Value;

/// Why a simulated agent refused a change or a script could not run. The
/// messages are what `wyrd sim` prints.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A blackboard or tag write the tree refuses.
    #[error(transparent)]
    Blackboard(#[from] crate::blackboard::BlackboardError),
    /// A stimulus the tree refuses.
    #[error(transparent)]
    Stimulus(#[from] crate::runtime::StimulusError),
    /// `finish` named a path where no leaf runs.
    #[error("no running leaf at {path:?} ({})", running_text(.running))]
    NoRunningLeaf {
        /// The path given.
        path: String,
        /// The leaves that do run.
        running: Vec<String>,
    },
    /// `finish` named a running leaf that is not an action (a rule, a wait).
    #[error("{0} is not a running action")]
    NotAnAction(String),
    /// The script's text (RON) is malformed.
    #[error("{line}:{column}: {message}")]
    Syntax {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A script names something the tree does not have (or with the wrong
    /// type): found by [`Script::check`] before anything runs.
    #[error("{0}")]
    Mismatch(String),
    /// An event of a script could not be applied.
    #[error("{position}: event {number} (tick {tick}): {error}")]
    Event {
        /// Where the event is written (`line:column`).
        position: String,
        /// Its number in the script (from 1).
        number: usize,
        /// The tick it applies before.
        tick: u64,
        /// Why.
        error: Box<SimError>,
    },
}

fn running_text(running: &[String]) -> String {
    if running.is_empty() {
        "no leaf is running".into()
    } else {
        format!("running: {}", running.join(", "))
    }
}

/// How a scripted `finish` ends an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Outcome {
    /// Report success.
    Success,
    /// Report failure.
    Failure,
}

/// Whether a simulated tree repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
pub enum SimMode {
    /// Start again in the tick it finishes.
    #[default]
    Repeat,
    /// Stop when finished (rule sessions, evaluations).
    Once,
    /// BehaviorTree.CPP's loop (`tree.tickOnce()` every tick): a finished
    /// root reports its status, and the next tick ticks it again, afresh.
    /// No action of a new cycle starts in the tick the last one ended.
    NextTick,
}

/// A stimulus insertion in a script.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StimulusEvent {
    /// Path of the composite.
    pub at: String,
    /// Named behavior.
    pub behavior: String,
    /// Position among the children (default 0: first).
    #[serde(default)]
    pub priority: u16,
    /// Duration.
    pub seconds: f32,
}

/// One scripted event. Exactly one of the fields besides `tick` is set.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// The tick it applies before (1 = the first tick).
    pub tick: u64,
    /// Set a blackboard value.
    #[serde(default)]
    pub set: Option<(String, Value)>,
    /// Make a key unset again (a key declared with a type only).
    #[serde(default)]
    pub unset: Option<String>,
    /// Set or clear a tag.
    #[serde(default)]
    pub tag: Option<(String, bool)>,
    /// Finish the running action at this path.
    #[serde(default)]
    pub finish: Option<(String, Outcome)>,
    /// Insert a stimulus.
    #[serde(default)]
    pub stimulus: Option<StimulusEvent>,
    /// Set a predicate's answer (predicates default to false).
    #[serde(default)]
    pub predicate: Option<(String, bool)>,
    /// Set a world value (a world-state flag or counter).
    #[serde(default)]
    pub world: Option<(String, Value)>,
    /// Restart the tree.
    #[serde(default)]
    pub restart: bool,
}

/// A timeline for [`Sim`].
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// Ticks to run (default: last event + 1).
    #[serde(default)]
    pub ticks: Option<u64>,
    /// Seed of random choices.
    #[serde(default)]
    pub seed: u64,
    /// Tick rate (default 30).
    #[serde(default)]
    pub hz: Option<f32>,
    /// Actions with a `ticks` parameter succeed by themselves after that
    /// many ticks.
    #[serde(default)]
    pub auto_finish: bool,
    /// `Repeat` (default): the root starts again in the tick it finishes, as
    /// in a game; `Once`: the tree stays finished; `NextTick`: the root
    /// starts again on the next tick, as BehaviorTree.CPP's tick loop does.
    #[serde(default)]
    pub mode: SimMode,
    /// Events in any order.
    #[serde(default)]
    pub events: Vec<Event>,
    /// Where each event is in the text (for messages).
    #[serde(skip)]
    positions: Vec<(usize, usize)>,
}

impl Script {
    /// Parses a script (RON). The error carries line and column.
    pub fn parse(text: &str) -> Result<Script, SimError> {
        let mut script: Script = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e| SimError::Syntax {
                line: e.span.start.line,
                column: e.span.start.col,
                message: e.code.to_string(),
            })?;
        script.positions = event_positions(text);
        Ok(script)
    }

    /// Where event `n` (0-based) starts in the script text, as
    /// `line:column` (`?` when unknown, e.g. a script built in code).
    pub fn position(&self, n: usize) -> String {
        match self.positions.get(n) {
            Some((l, c)) => format!("{l}:{c}"),
            None => "?".into(),
        }
    }

    /// Checks the script against a program without running it: every key,
    /// tag, action path, stimulus target and behavior, predicate and world
    /// value it names must exist in the tree, with the right type. Each
    /// problem names the event's line:column ([`SimError::position`]).
    pub fn check(&self, program: &Program) -> Vec<SimError> {
        let mut problems = Vec::new();
        for (n, e) in self.events.iter().enumerate() {
            let at = self.position(n);
            let mut say = |m: String| {
                problems.push(SimError::Event {
                    position: at.clone(),
                    number: n + 1,
                    tick: e.tick,
                    error: Box::new(SimError::Mismatch(m)),
                })
            };
            if e.tick == 0 {
                say("ticks count from 1".into());
            }
            if let Some((k, v)) = &e.set {
                match program.bb_key(k) {
                    None => say(format!("unknown blackboard key {k:?}")),
                    Some(i) if !program.bb_types[i as usize].accepts(v) => say(format!(
                        "blackboard key {k:?} holds {}, not {}",
                        crate::value::with_article(program.bb_types[i as usize].name()),
                        crate::value::with_article(v.type_name())
                    )),
                    Some(_) => {}
                }
            }
            if let Some((t, _)) = &e.tag
                && program.tag_bit(t).is_none()
            {
                say(format!(
                    "unknown tag {t:?} (the tree declares {:?})",
                    program.tag_names
                ));
            }
            if let Some((path, _)) = &e.finish
                && !program.actions.iter().any(|a| {
                    // Stimulus behaviors show under the node they were
                    // inserted at: `root/flee/Run` for `~flee/Run`.
                    let own = program.paths[a.node as usize].trim_start_matches('~');
                    path == own || path.ends_with(&format!("/{own}"))
                })
            {
                say(format!("no action leaf has the path {path:?}"));
            }
            if let Some(st) = &e.stimulus {
                match program.node(&st.at) {
                    None => say(format!("no node has the path {:?}", st.at)),
                    Some(i) if !program.nodes[i as usize].kind.info().stimulus_target => {
                        say(format!("{:?} is not a PrioritizedList or Selector", st.at))
                    }
                    Some(_) => {}
                }
                if !program.detached.contains_key(&st.behavior) {
                    say(format!("the tree declares no behavior {:?}", st.behavior));
                }
            }
            if let Some((name, _)) = &e.predicate
                && !program.predicates.iter().any(|p| p.name == *name)
            {
                say(format!("the tree uses no predicate {name:?}"));
            }
            if let Some((name, _)) = &e.world
                && !program.globals.iter().any(|g| g.name == *name)
            {
                say(format!("the tree reads no world value {name:?}"));
            }
        }
        problems
    }
}

/// Line and column of each event of a script's `events` list: the opening
/// parenthesis of each entry.
fn event_positions(text: &str) -> Vec<(usize, usize)> {
    let Some(start) = text.find("events") else {
        return Vec::new();
    };
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut depth = 0i32;
    let (mut in_str, mut comment) = (false, false);
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if comment {
            if b == b'\n' {
                comment = false;
            }
        } else if in_str {
            if b == b'\\' {
                i += 1;
            } else if b == b'"' {
                in_str = false;
            }
        } else {
            match b {
                b'"' => in_str = true,
                b'/' if bytes.get(i + 1) == Some(&b'/') => comment = true,
                b'[' | b'(' | b'{' => {
                    depth += 1;
                    if b == b'(' && depth == 2 {
                        let before = &text[..i];
                        let line = before.matches('\n').count() + 1;
                        let col = i - before.rfind('\n').map_or(0, |p| p + 1) + 1;
                        out.push((line, col));
                    }
                }
                b']' | b')' | b'}' => {
                    depth -= 1;
                    if depth <= 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    out
}

/// What one tick did.
#[derive(Debug, Clone, PartialEq)]
pub struct TickRecord {
    /// Tick number (from 1).
    pub tick: u64,
    /// Root status.
    pub status: Status,
    /// Paths of the running leaves, in tree order.
    pub active: Vec<String>,
    /// Every node's rule flags as letters.
    pub flags: Vec<(String, String)>,
    /// Actions started in this tick (paths, in order).
    pub started: Vec<String>,
    /// Actions whose report the tree took in this tick, with the outcome.
    pub finished: Vec<(String, Status)>,
    /// Actions the tree stopped in this tick.
    pub aborted: Vec<String>,
    /// Actions aborted and then started again in this tick (the dithering
    /// the semantics forbid: always empty; tests check it).
    pub restarted: Vec<String>,
    /// Nodes ticked in this tick, in order, each time it was ticked (loops
    /// and a restarted root tick nodes more than once). Relevancy checks
    /// (a prioritized list asking a child's guard) are not ticks.
    pub ticked: Vec<String>,
}

impl TickRecord {
    /// One line of JSON, keys in a fixed order (`tick`, `status`, `active`,
    /// `started`, `finished`, `aborted`, `ticked`, `flags`).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a tick record is plain strings and numbers")
    }
}

/// `(key, value)` pairs written as a JSON object, in their order.
struct Pairs<'a, V>(&'a [(String, V)], fn(&V) -> &str);

impl<V> serde::Serialize for Pairs<'_, V> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = ser.serialize_map(Some(self.0.len()))?;
        for (k, v) in self.0 {
            map.serialize_entry(k, (self.1)(v))?;
        }
        map.end()
    }
}

impl serde::Serialize for TickRecord {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = ser.serialize_struct("TickRecord", 8)?;
        st.serialize_field("tick", &self.tick)?;
        st.serialize_field("status", self.status.as_str())?;
        st.serialize_field("active", &self.active)?;
        st.serialize_field("started", &self.started)?;
        st.serialize_field("finished", &Pairs(&self.finished, |s| s.as_str()))?;
        st.serialize_field("aborted", &self.aborted)?;
        st.serialize_field("ticked", &self.ticked)?;
        st.serialize_field("flags", &Pairs(&self.flags, |f| f.as_str()))?;
        st.end()
    }
}

impl SimError {
    /// Where in the script text the error is (1-based line and column),
    /// when it is about a place in it.
    pub fn position(&self) -> Option<(usize, usize)> {
        match self {
            SimError::Syntax { line, column, .. } => Some((*line, *column)),
            SimError::Event { position, .. } => {
                let (l, c) = position.split_once(':')?;
                Some((l.parse().ok()?, c.parse().ok()?))
            }
            _ => None,
        }
    }
}

/// One agent running a program, driven by hand.
pub struct Sim<'p> {
    /// The program.
    pub program: &'p Program,
    /// The agent's state.
    pub state: AgentState,
    /// Its blackboard.
    pub blackboard: Blackboard,
    /// Its actions.
    pub actions: BtActions,
    /// Answers of predicates without an implementation.
    pub predicates: HashMap<String, bool>,
    /// World values by name (world-state flags and counters).
    pub world: HashMap<String, Value>,
    globals: Vec<Option<Value>>,
    /// What the last tick did.
    pub trace: TickTrace,
    /// The stimuli before the last tick (to name the nodes of one that
    /// expired in it).
    stimuli_before: Vec<crate::runtime::Stimulus>,
    hz: f32,
    auto_finish: bool,
    repeat: bool,
    tick: u64,
    /// The agent's clock for [`Sim::step`].
    clock: AgentClock,
}

impl<'p> Sim<'p> {
    /// A fresh agent.
    pub fn new(program: &'p Program, seed: u64) -> Self {
        let mut blackboard = Blackboard::new();
        blackboard.bind(program);
        let mut actions = BtActions::default();
        actions.reserve(program.action_capacity());
        Sim {
            program,
            state: AgentState::new(program, seed),
            blackboard,
            actions,
            predicates: HashMap::new(),
            world: HashMap::new(),
            globals: vec![None; program.globals.len()],
            trace: TickTrace::default(),
            stimuli_before: Vec::new(),
            hz: 30.0,
            auto_finish: false,
            repeat: false,
            tick: 0,
            clock: AgentClock::default(),
        }
    }

    /// Sets the tick rate.
    pub fn with_hz(mut self, hz: f32) -> Self {
        self.hz = hz;
        self
    }

    /// Start the root again within the tick it finishes (as the plugin's
    /// `RunMode::Repeat` does).
    pub fn with_repeat(mut self, on: bool) -> Self {
        self.repeat = on;
        self
    }

    /// Actions with a `ticks` parameter finish by themselves.
    pub fn with_auto_finish(mut self, on: bool) -> Self {
        self.auto_finish = on;
        self
    }

    /// Sets a blackboard value.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) -> Result<(), SimError> {
        Ok(self.blackboard.set(key, value)?)
    }

    /// Sets or clears a tag.
    pub fn tag(&mut self, tag: &str, on: bool) -> Result<(), SimError> {
        Ok(self.blackboard.set_tag(tag, on)?)
    }

    /// Finishes the running action at `path`.
    pub fn finish(&mut self, path: &str, outcome: Outcome) -> Result<(), SimError> {
        let node = self.running_leaf(path)?;
        let slot = self
            .actions
            .iter_mut()
            .find(|a| a.node == node && a.is_running())
            .ok_or_else(|| SimError::NotAnAction(path.to_owned()))?;
        match outcome {
            Outcome::Success => slot.succeed(),
            Outcome::Failure => slot.fail(),
        }
        Ok(())
    }

    fn running_leaf(&self, path: &str) -> Result<u32, SimError> {
        self.state
            .active_leaves(self.program)
            .find(|&i| self.state.display_path(self.program, i) == path)
            .ok_or_else(|| SimError::NoRunningLeaf {
                path: path.to_owned(),
                running: self
                    .state
                    .active_leaves(self.program)
                    .map(|i| self.state.display_path(self.program, i))
                    .collect(),
            })
    }

    /// Inserts a stimulus.
    pub fn stimulus(
        &mut self,
        at: &str,
        behavior: &str,
        priority: u16,
        seconds: f32,
    ) -> Result<(), SimError> {
        Ok(self
            .state
            .insert_stimulus(self.program, at, behavior, priority, seconds)?)
    }

    /// Runs one tick of `step_us` µs on an exact µs clock (the plugin's:
    /// agent time in ms is the clock's floor), as recordings replay.
    pub fn step_us(&mut self, clock_us: &mut u64, step_us: u32) -> Status {
        self.tick += 1;
        let mut clock = AgentClock::at(*clock_us);
        let step_ms = clock.advance(u64::from(step_us));
        *clock_us = clock.us();
        self.tick_env(step_ms, step_us)
    }

    /// The tick itself: world values and predicate answers from the sim's
    /// maps, every walk taken.
    fn tick_env(&mut self, step_ms: u32, dt_us: u32) -> Status {
        for (slot, g) in self.globals.iter_mut().zip(&self.program.globals) {
            *slot = self.world.get(&g.name).copied();
        }
        self.stimuli_before.clear();
        self.stimuli_before.extend_from_slice(&self.state.stimuli);
        let predicates = &self.predicates;
        let stub = |name: &str| predicates.get(name).copied().unwrap_or(false);
        tick_agent_traced(
            self.program,
            &mut self.state,
            &mut self.blackboard,
            &mut self.actions,
            step_ms,
            TickEnv {
                stub: Some(&stub),
                globals: &self.globals,
                globals_generation: 0,
                repeat: self.repeat,
                always_walk: true,
                dt_us,
            },
            Some(&mut self.trace),
        )
    }

    /// Runs one tick and reports it.
    pub fn step(&mut self) -> TickRecord {
        self.tick += 1;
        let hz = if self.hz > 0.0 { self.hz } else { 30.0 };
        let step_us = (1_000_000.0 / f64::from(hz)).round() as u32;
        // The plugin's clock: agent time is the whole ms of an exact µs
        // clock.
        let step_ms = self.clock.advance(u64::from(step_us));
        if self.auto_finish {
            let period = 1000.0 / hz;
            for a in self.actions.iter_mut() {
                if a.is_running()
                    && let Some(info) = self.program.action_of(a.node)
                    && let Some(t) = info.param("ticks")
                {
                    // Ticks it will have run once this tick's time passes.
                    let ran = (self.state.now_ms + step_ms - a.started_ms) as f32 / period;
                    if ran + 0.5 >= t.as_f64() as f32 {
                        a.state = ActionState::Succeeded;
                    }
                }
            }
        }
        let status = self.tick_env(step_ms, step_us);
        self.record(status)
    }

    fn record(&self, status: Status) -> TickRecord {
        let p = self.program;
        let active = self
            .state
            .active_leaves(p)
            .map(|i| self.state.display_path(p, i))
            .collect();
        let mut flags: Vec<(String, String)> = (0..p.main_len())
            .map(|i| {
                (
                    p.paths[i].clone(),
                    self.state.mem.nodes()[i].flags().to_string(),
                )
            })
            .collect();
        for s in self.state.stimuli.iter() {
            for i in s.root..p.nodes[s.root as usize].end {
                flags.push((
                    self.state.display_path(p, i),
                    self.state.mem.nodes()[i as usize].flags().to_string(),
                ));
            }
        }
        // Nodes of a stimulus that expired in this tick are named where it
        // was inserted.
        let path = |i: u32| {
            let shown = self.state.display_path(p, i);
            if !shown.starts_with('~') {
                return shown;
            }
            match self
                .stimuli_before
                .iter()
                .find(|s| s.root <= i && i < p.nodes[s.root as usize].end)
            {
                Some(s) => format!(
                    "{}/{}",
                    p.paths[s.target as usize],
                    shown.trim_start_matches('~')
                ),
                None => shown,
            }
        };
        let ticked: Vec<String> = self.trace.ticked.iter().map(|&i| path(i)).collect();
        let mut started = Vec::new();
        let mut finished = Vec::new();
        let mut aborted = Vec::new();
        for &(i, e) in &self.trace.actions {
            match e {
                ActionEvent::Started => started.push(path(i)),
                ActionEvent::Finished(s) => finished.push((path(i), s)),
                ActionEvent::Aborted => aborted.push(path(i)),
            }
        }
        TickRecord {
            tick: self.tick,
            status,
            active,
            flags,
            started,
            finished,
            aborted,
            restarted: self.trace.restarted().into_iter().map(path).collect(),
            ticked,
        }
    }

    /// Runs a whole script, calling `out` with each tick's record.
    pub fn run_script(
        program: &'p Program,
        script: &Script,
        mut out: impl FnMut(&TickRecord),
    ) -> Result<Vec<TickRecord>, SimError> {
        let mut sim = Sim::new(program, script.seed)
            .with_hz(script.hz.unwrap_or(30.0))
            .with_auto_finish(script.auto_finish)
            .with_repeat(script.mode == SimMode::Repeat);
        let ticks = script
            .ticks
            .unwrap_or_else(|| script.events.iter().map(|e| e.tick).max().unwrap_or(0) + 1);
        let mut records = Vec::new();
        for tick in 1..=ticks {
            let mut restarted = false;
            for (n, e) in script
                .events
                .iter()
                .enumerate()
                .filter(|(_, e)| e.tick == tick)
            {
                let fail = |error: SimError| SimError::Event {
                    position: script.position(n),
                    number: n + 1,
                    tick,
                    error: Box::new(error),
                };
                if let Some((k, v)) = &e.set {
                    sim.set(k, *v).map_err(fail)?;
                }
                if let Some(k) = &e.unset {
                    let i = program.bb_key(k).ok_or_else(|| {
                        fail(SimError::Mismatch(format!("unknown blackboard key {k:?}")))
                    })?;
                    sim.blackboard.clear_index(i);
                }
                if let Some((t, on)) = &e.tag {
                    sim.tag(t, *on).map_err(fail)?;
                }
                if let Some((path, outcome)) = &e.finish {
                    sim.finish(path, *outcome).map_err(fail)?;
                }
                if let Some(s) = &e.stimulus {
                    sim.stimulus(&s.at, &s.behavior, s.priority, s.seconds)
                        .map_err(fail)?;
                }
                if let Some((name, v)) = &e.predicate {
                    sim.predicates.insert(name.clone(), *v);
                }
                if let Some((name, v)) = &e.world {
                    sim.world.insert(name.clone(), *v);
                }
                if e.restart {
                    sim.state.reset(program, &mut sim.actions);
                    restarted = true;
                }
            }
            // A finished run-once tree is not ticked again until a scripted
            // restart starts it afresh.
            let finished = script.mode == SimMode::Once
                && !restarted
                && records
                    .last()
                    .is_some_and(|r: &TickRecord| r.status != Status::Running);
            let r = if finished {
                // A finished run-once tree is not ticked again.
                let last = records
                    .last()
                    .cloned()
                    .unwrap_or_else(|| sim.record(Status::Idle));
                TickRecord {
                    tick,
                    started: Vec::new(),
                    finished: Vec::new(),
                    aborted: Vec::new(),
                    restarted: Vec::new(),
                    ticked: Vec::new(),
                    ..last
                }
            } else {
                sim.step()
            };
            out(&r);
            records.push(r);
        }
        Ok(records)
    }

    /// The flag letters of a node path after the last tick.
    pub fn flags_of(&self, path: &str) -> Option<String> {
        let i = self.program.node(path)?;
        Some(self.state.mem.nodes()[i as usize].flags().to_string())
    }

    /// Node status by path.
    pub fn status_of(&self, path: &str) -> Option<Status> {
        let i = self.program.node(path)?;
        Some(self.state.mem.nodes()[i as usize].status())
    }
}

/// Where a replay first differed from its recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    /// The agent tick.
    pub tick: u64,
    /// The node (path), when it is about one.
    pub node: Option<String>,
    /// What differed.
    pub what: String,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.node {
            Some(n) => write!(f, "tick {}: {n}: {}", self.tick, self.what),
            None => write!(f, "tick {}: {}", self.tick, self.what),
        }
    }
}

/// What a replay found.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayReport {
    /// Ticks replayed.
    pub ticks: usize,
    /// The first tick where the tree did not do what was recorded.
    pub divergence: Option<Divergence>,
    /// Whether the recording was made with another version of the tree.
    pub changed_tree: bool,
}

/// Re-runs a [`Recording`](crate::Recording) on `program` from its start
/// state and recorded inputs, checking tick by tick that the root status,
/// every node's status and rule flags and the action events are the ones
/// recorded. A recording of another version of the tree (content hash) is
/// refused unless `allow_changed`, which shows where the new tree
/// diverges.
pub fn replay(
    program: &Program,
    rec: &crate::Recording,
    allow_changed: bool,
) -> Result<ReplayReport, SimError> {
    replay_from(program, rec, allow_changed, rec.ticks.len(), true).map(|(r, _)| r)
}

/// The agent's tree state and blackboard after the first `ticks` ticks of
/// a recording (the inspector's timeline: the tree as it was at a tick).
pub fn rebuild(
    program: &Program,
    rec: &crate::Recording,
    ticks: usize,
) -> Result<(AgentState, Blackboard), SimError> {
    let (_, sim) = replay_from(program, rec, true, ticks, false)?;
    Ok((sim.state, sim.blackboard))
}

fn replay_from<'p>(
    program: &'p Program,
    rec: &crate::Recording,
    allow_changed: bool,
    limit: usize,
    check: bool,
) -> Result<(ReplayReport, Sim<'p>), SimError> {
    let bad = |m: String| SimError::Mismatch(m);
    if rec.format != crate::RECORDING_FORMAT {
        return Err(bad(format!(
            "recording format {} (this build reads {})",
            rec.format,
            crate::RECORDING_FORMAT
        )));
    }
    let hash = format!("{:016x}", program.content_hash);
    let changed_tree = hash != rec.tree_hash;
    if changed_tree && !allow_changed {
        return Err(bad(format!(
            "the recording is of {} with content hash {}; this tree's is {hash}: it changed since (replay with --allow-changed to see where it diverges)",
            rec.tree, rec.tree_hash
        )));
    }
    // Node indices of the recording, as this tree's (by path: the same
    // index when the tree did not change).
    let here = |i: u32| -> Option<u32> {
        if changed_tree {
            rec.paths.get(i as usize).and_then(|p| program.node(p))
        } else {
            Some(i)
        }
    };
    let fresh = rec.start.state.ticks == 0 && rec.start.actions.is_empty();
    let state = if changed_tree && fresh {
        // A changed tree starts fresh, as the recorded agent did.
        Some(AgentState::new(program, rec.start.state.seed))
    } else {
        AgentState::from_snapshot(program, &rec.start.state)
    }
    .ok_or_else(|| {
        bad("the recording's start state does not fit this tree (nodes, timers or impulses differ); a recording from the agent's first tick replays on a changed tree".into())
    })?;
    let mut sim = Sim::new(program, rec.start.state.seed).with_repeat(rec.repeat);
    sim.state = state;
    for (k, v) in &rec.start.blackboard {
        set_key(&mut sim, k, *v)?;
    }
    let tag_bits = |names: &[String]| {
        names
            .iter()
            .filter_map(|t| program.tag_names.iter().position(|x| x == t))
            .fold(0u64, |b, i| b | 1 << i)
    };
    sim.blackboard.set_tags(tag_bits(&rec.start.tags));
    for (name, v) in &rec.start.world {
        match v {
            Some(v) => sim.world.insert(name.clone(), *v),
            None => sim.world.remove(name),
        };
    }
    for (slot, answer) in program.predicates.iter().zip(&rec.start.predicates) {
        sim.predicates.insert(slot.name.clone(), *answer);
    }
    sim.actions.slots.clear();
    for (node, id, st, started_ms) in &rec.start.actions {
        let state = crate::recorder::action_state_of(st)
            .ok_or_else(|| bad(format!("unknown action state {st:?}")))?;
        let Some(node) = here(*node) else { continue };
        sim.actions.slots.push(crate::runtime::ActiveAction {
            // The program's id of the leaf's action (recordings made
            // before ids were 32-bit carry 64-bit ones).
            id: program
                .action_of(node)
                .map_or(crate::program::ActionId(*id as u32), |a| a.id),
            node,
            state,
            started_ms: *started_ms,
        });
    }
    let mut clock_us = rec.start.clock_us;
    let mut nodes: Vec<u8> = sim.state.mem.nodes().iter().map(|n| n.raw()).collect();
    let path = |i: u32| program.paths.get(i as usize).cloned();
    let recorded_path = |i: u32| rec.paths.get(i as usize).cloned().unwrap_or_default();
    for (n, t) in rec.ticks.iter().enumerate().take(limit) {
        for (k, v) in &t.set {
            set_key(&mut sim, k, *v)?;
        }
        if let Some(tags) = &t.tags {
            sim.blackboard.set_tags(tag_bits(tags));
        }
        for (name, v) in &t.world {
            match v {
                Some(v) => sim.world.insert(name.clone(), *v),
                None => sim.world.remove(name),
            };
        }
        for (name, _, answer) in &t.predicates {
            sim.predicates.insert(name.clone(), *answer);
        }
        for &(node, ok) in &t.reports {
            let Some(node) = here(node) else { continue };
            if let Some(a) = sim
                .actions
                .slots
                .iter_mut()
                .find(|a| a.node == node && a.is_running())
            {
                if ok { a.succeed() } else { a.fail() }
            }
        }
        for st in &t.stimuli {
            let (Some(target), Some(&root)) =
                (program.node(&st.at), program.detached.get(&st.behavior))
            else {
                return Err(bad(format!(
                    "tick {}: no stimulus {} at {}",
                    t.tick, st.behavior, st.at
                )));
            };
            sim.state
                .insert_stimulus_at(program, target, root, st.priority, st.ms)
                .map_err(SimError::from)?;
        }
        if t.restart {
            sim.state.reset(program, &mut sim.actions);
        }
        let status = sim.step_us(&mut clock_us, t.step_us);
        if !check {
            continue;
        }
        if status.as_str() != t.status {
            return Ok((
                ReplayReport {
                    ticks: n + 1,
                    divergence: Some(Divergence {
                        tick: t.tick,
                        node: None,
                        what: format!("the root is {}, recorded {}", status.as_str(), t.status),
                    }),
                    changed_tree,
                },
                sim,
            ));
        }
        // Node changes and action events, by path (and action name). The
        // paused flag of a node that is not running is not compared: a
        // tick that skips its walk, or takes a report where the action
        // is, leaves it as the last walk left it, where a walk from the
        // root (the replay's) pauses the finished nodes it passes by.
        let norm = |b: u8| {
            if (b >> 4) & 7 == 1 {
                b
            } else {
                b & !crate::runtime::rule::PAUSED
            }
        };
        let mut changes = Vec::new();
        for (i, now) in sim.state.mem.nodes().iter().map(|s| s.raw()).enumerate() {
            if norm(now) != norm(nodes[i]) {
                changes.push((
                    path(i as u32).unwrap_or_default(),
                    norm(nodes[i]),
                    norm(now),
                ));
            }
            nodes[i] = now;
        }
        let recorded: Vec<(String, u8, u8)> = t
            .nodes
            .iter()
            .filter(|&&(_, a, b)| norm(a) != norm(b))
            .map(|&(i, a, b)| (recorded_path(i), norm(a), norm(b)))
            .collect();
        if changed_tree {
            changes.sort();
        }
        let mut want = recorded.clone();
        if changed_tree {
            want.sort();
        }
        for k in 0..changes.len().max(want.len()) {
            let (got, exp) = (changes.get(k), want.get(k));
            if got == exp {
                continue;
            }
            let text = |c: Option<&(String, u8, u8)>| {
                c.map_or("unchanged".to_owned(), |c| {
                    format!("{} -> {}", crate::node_text(c.1), crate::node_text(c.2))
                })
            };
            // Name the node whose change is missing or different.
            let node = match (got, exp) {
                (Some(g), Some(e)) if g.0 != e.0 => e.0.clone(),
                (_, Some(e)) => e.0.clone(),
                (Some(g), None) => g.0.clone(),
                (None, None) => String::new(),
            };
            let (g, e) = (
                changes.iter().find(|c| c.0 == node),
                want.iter().find(|c| c.0 == node),
            );
            return Ok((
                ReplayReport {
                    ticks: n + 1,
                    divergence: Some(Divergence {
                        tick: t.tick,
                        node: Some(node),
                        what: format!("recorded {}, replayed {}", text(e), text(g)),
                    }),
                    changed_tree,
                },
                sim,
            ));
        }
        let events: Vec<(String, String, String)> = sim
            .trace
            .actions
            .iter()
            .map(|&(node, e)| {
                (
                    path(node).unwrap_or_default(),
                    crate::recorder::event_name(e).to_owned(),
                    program
                        .action_of(node)
                        .map_or_else(String::new, |a| a.name().to_owned()),
                )
            })
            .collect();
        let recorded: Vec<(String, String, String)> = t
            .actions
            .iter()
            .map(|(i, e, a)| (recorded_path(*i), e.clone(), a.clone()))
            .collect();
        if events != recorded {
            let k = events
                .iter()
                .zip(&recorded)
                .position(|(a, b)| a != b)
                .unwrap_or(events.len().min(recorded.len()));
            let show = |e: Option<&(String, String, String)>| {
                e.map_or("nothing".to_owned(), |e| {
                    format!("{} {} ({})", e.2, e.1, e.0)
                })
            };
            let node = recorded.get(k).or(events.get(k)).map(|e| e.0.clone());
            return Ok((
                ReplayReport {
                    ticks: n + 1,
                    divergence: Some(Divergence {
                        tick: t.tick,
                        node,
                        what: format!(
                            "action events: recorded {}, replayed {}",
                            show(recorded.get(k)),
                            show(events.get(k))
                        ),
                    }),
                    changed_tree,
                },
                sim,
            ));
        }
    }
    Ok((
        ReplayReport {
            ticks: rec.ticks.len().min(limit),
            divergence: None,
            changed_tree,
        },
        sim,
    ))
}

fn set_key(sim: &mut Sim<'_>, key: &str, value: Option<Value>) -> Result<(), SimError> {
    let k = sim.program.bb_key(key).ok_or_else(|| {
        SimError::Mismatch(format!("the tree declares no blackboard key {key:?}"))
    })?;
    match value {
        Some(v) => sim.blackboard.set_index(k, v),
        None => sim.blackboard.clear_index(k),
    }
    Ok(())
}

/// A recording's inputs as a sim script (`wyrd sim --replay FILE
/// --emit-script`): a regression test of what the agent did. Only a
/// recording that starts at the agent's first tick replays exactly as a
/// script (a script starts from a fresh agent); others are refused.
pub fn recording_script(program: &Program, rec: &crate::Recording) -> Result<String, SimError> {
    if rec.start.state.ticks != 0 {
        return Err(SimError::Mismatch(format!(
            "the recording starts at agent tick {} (its ring dropped older ticks or it began mid-run); a script starts from a fresh agent: record from the agent's first tick",
            rec.start.state.ticks
        )));
    }
    let mut out = format!(
        "// From a recording of {} ({} ticks). Inputs only: replay checks the outputs.\n(\n    seed: {},\n    hz: {:.3},\n    ticks: {},\n    mode: {},\n    events: [\n",
        rec.tree,
        rec.ticks.len(),
        rec.start.state.seed,
        rec.ticks
            .first()
            .map_or(30.0, |t| 1e6 / f64::from(t.step_us.max(1))),
        rec.ticks.len(),
        if rec.repeat { "Repeat" } else { "Once" },
    );
    let value = |v: &Value| match v {
        Value::Entity(e) => format!("Entity({})", e.index_u32()),
        Value::Vec2(v) => format!("({:?}, {:?})", v.x, v.y),
        Value::Vec3(v) => format!("Vec3({:?}, {:?}, {:?})", v.x, v.y, v.z),
        Value::Float(f) => format!("{f:?}"),
        other => other.to_string(),
    };
    let mut tags: Vec<String> = rec.start.tags.clone();
    // Where each stimulus behavior was inserted last: its leaves are named
    // under that node, as the trace, the checker and `finish` name them
    // (`root/flee/Run`, not the program's `~flee/Run`).
    let mut inserted: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    let shown = |inserted: &std::collections::HashMap<String, String>, node: u32| {
        let raw = program
            .paths
            .get(node as usize)
            .cloned()
            .unwrap_or_default();
        let Some(own) = raw.strip_prefix('~') else {
            return raw;
        };
        let behavior = own.split('/').next().unwrap_or(own);
        match inserted.get(behavior) {
            Some(at) => format!("{at}/{own}"),
            None => raw,
        }
    };
    let mut emit = |tick: u64, line: String| {
        out.push_str(&format!("        (tick: {tick}, {line}),\n"));
    };
    for (n, t) in rec.ticks.iter().enumerate() {
        let tick = n as u64 + 1;
        let start = (n == 0).then_some(&rec.start);
        if let Some(s) = start {
            for (k, v) in &s.blackboard {
                if let Some(v) = v
                    && program
                        .bb_key(k)
                        .and_then(|i| program.bb_defaults[i as usize])
                        != Some(*v)
                {
                    emit(tick, format!("set: ({k:?}, {})", value(v)));
                }
            }
            for t in &s.tags {
                emit(tick, format!("tag: ({t:?}, true)"));
            }
            for (k, v) in &s.world {
                if let Some(v) = v {
                    emit(tick, format!("world: ({k:?}, {})", value(v)));
                }
            }
            for (p, a) in program.predicates.iter().zip(&s.predicates) {
                if *a {
                    emit(tick, format!("predicate: ({:?}, true)", p.name));
                }
            }
        }
        for (k, v) in &t.set {
            match v {
                Some(v) => emit(tick, format!("set: ({k:?}, {})", value(v))),
                None => emit(tick, format!("unset: {k:?}")),
            }
        }
        if let Some(now) = &t.tags {
            for gone in tags.iter().filter(|x| !now.contains(x)) {
                emit(tick, format!("tag: ({gone:?}, false)"));
            }
            for new in now.iter().filter(|x| !tags.contains(x)) {
                emit(tick, format!("tag: ({new:?}, true)"));
            }
            tags.clone_from(now);
        }
        for (k, v) in &t.world {
            if let Some(v) = v {
                emit(tick, format!("world: ({k:?}, {})", value(v)));
            }
        }
        for (name, _, a) in &t.predicates {
            emit(tick, format!("predicate: ({name:?}, {a})"));
        }
        for st in &t.stimuli {
            inserted.insert(st.behavior.clone(), st.at.clone());
        }
        for &(node, ok) in &t.reports {
            emit(
                tick,
                format!(
                    "finish: ({:?}, {})",
                    shown(&inserted, node),
                    if ok { "Success" } else { "Failure" }
                ),
            );
        }
        for st in &t.stimuli {
            emit(
                tick,
                format!(
                    "stimulus: (at: {:?}, behavior: {:?}, priority: {}, seconds: {:?})",
                    st.at,
                    st.behavior,
                    st.priority,
                    st.ms as f32 / 1000.0
                ),
            );
        }
        if t.restart {
            emit(tick, "restart: true".into());
        }
    }
    out.push_str("    ],\n)\n");
    Ok(out)
}
