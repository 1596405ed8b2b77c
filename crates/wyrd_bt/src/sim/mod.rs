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
//!         (tick: 6, expect: ("root/fight/Shoot", Running)),  // checked after tick 6
//!         (tick: 6, expect_value: ("ammo", 2)),
//!     ],
//! )
//! ```
//! Events of tick `N` apply just before tick `N` runs (ticks count from 1);
//! `expect` and `expect_value` are checked after it, and a run where one
//! does not hold fails there.

use std::collections::HashMap;

use serde::Deserialize;

use crate::blackboard::Blackboard;
use crate::breakpoints::{BreakHit, BreakWatch, Breakpoints, TickSeen};
use crate::clock::AgentClock;
use crate::program::Program;
use crate::runtime::{
    ActionEvent, ActionState, AgentState, BtActions, Status, TickEnv, TickTrace, tick_agent_traced,
};
use crate::value::Value;

mod replay;
mod script;
mod stats;
pub use replay::*;
pub use script::*;
pub use stats::*;

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
    /// What each `Utility` decided in this tick, in order.
    pub utility: Vec<UtilityRecord>,
}

/// One `Utility`'s decision in a tick, by name.
#[derive(Debug, Clone, PartialEq)]
pub struct UtilityRecord {
    /// The `Utility`'s path.
    pub node: String,
    /// Each child's name (its path segment) and score (`None`: not an
    /// option: its tags or guard rule it out).
    pub scores: Vec<(String, Option<f32>)>,
    /// The child it ran, by name (`None`: it had nothing to run).
    pub chosen: Option<String>,
    /// Why: `best`, `beat flee by 0.32`, `kept`, `committed`, `done`,
    /// `nothing to run`, with `, tie` when the tie rule picked.
    pub why: String,
}

impl UtilityRecord {
    /// `root/choose: attack=0.80 flee=0.30 idle=- -> attack (beat flee by
    /// 0.50)`: the scores with two decimals, `-` for a child that is not an
    /// option.
    pub fn text(&self) -> String {
        let scores: Vec<String> = self
            .scores
            .iter()
            .map(|(n, s)| match s {
                Some(s) => format!("{n}={s:.2}"),
                None => format!("{n}=-"),
            })
            .collect();
        format!(
            "{}: {} -> {} ({})",
            self.node,
            scores.join(" "),
            self.chosen.as_deref().unwrap_or("none"),
            self.why
        )
    }
}

impl serde::Serialize for UtilityRecord {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeStruct};
        struct Scores<'a>(&'a [(String, Option<f32>)]);
        impl serde::Serialize for Scores<'_> {
            fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
                let mut map = ser.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
        let mut st = ser.serialize_struct("UtilityRecord", 4)?;
        st.serialize_field("node", &self.node)?;
        st.serialize_field("scores", &Scores(&self.scores))?;
        st.serialize_field("chosen", &self.chosen)?;
        st.serialize_field("why", &self.why)?;
        st.end()
    }
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
        let fields = if self.utility.is_empty() { 8 } else { 9 };
        let mut st = ser.serialize_struct("TickRecord", fields)?;
        st.serialize_field("tick", &self.tick)?;
        st.serialize_field("status", self.status.as_str())?;
        st.serialize_field("active", &self.active)?;
        st.serialize_field("started", &self.started)?;
        st.serialize_field("finished", &Pairs(&self.finished, |s| s.as_str()))?;
        st.serialize_field("aborted", &self.aborted)?;
        st.serialize_field("ticked", &self.ticked)?;
        st.serialize_field("flags", &Pairs(&self.flags, |f| f.as_str()))?;
        // Only trees with a `Utility` have the key (other lines unchanged).
        if self.utility.is_empty() {
            st.skip_field("utility")?;
        } else {
            st.serialize_field("utility", &self.utility)?;
        }
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
    /// World actions write their values and succeed (`with_world_writes`).
    world_writes: bool,
    repeat: bool,
    tick: u64,
    /// The agent's clock for [`Sim::step`].
    clock: AgentClock,
    /// Breakpoints checked after each [`Sim::step`], and what they compare
    /// with.
    breaks: Option<(Breakpoints, BreakWatch)>,
    /// The breakpoint that hit in the last step.
    last_break: Option<BreakHit>,
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
            world_writes: false,
            repeat: false,
            tick: 0,
            clock: AgentClock::default(),
            breaks: None,
            last_break: None,
        }
    }

    /// Checks these breakpoints after every [`Sim::step`] (see
    /// [`Sim::last_break`]).
    pub fn with_breakpoints(mut self, breakpoints: Breakpoints) -> Self {
        self.breaks = Some((breakpoints, BreakWatch::default()));
        self
    }

    /// The breakpoint that hit in the last step, if any.
    pub fn last_break(&self) -> Option<&BreakHit> {
        self.last_break.as_ref()
    }

    /// The blackboard's keys with their values (`unset` for a key with
    /// none), in declaration order: what a breakpoint stop prints.
    pub fn blackboard_lines(&self) -> Vec<(String, String)> {
        self.program
            .bb_keys
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let v = self.blackboard.get_index(i as u16);
                (
                    k.clone(),
                    v.map_or_else(|| "unset".to_owned(), |v| v.to_string()),
                )
            })
            .collect()
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

    /// World actions (`SetFlagValue`) write their values to the sim's world
    /// and succeed, as the game's handler does (scripts; a replay takes
    /// what the recording says instead).
    pub fn with_world_writes(mut self, on: bool) -> Self {
        self.world_writes = on;
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
            .find(|a| a.leaf() == node && a.is_running())
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
        self.step_counting(clock_us, step_us, step_us)
    }

    /// [`Sim::step_us`] for an agent that counts durations in steps of
    /// `count_us` µs while its clock advances by `step_us` (an agent of a
    /// tick tier: see [`TickEnv::dt_us`](crate::TickEnv::dt_us)).
    pub fn step_counting(&mut self, clock_us: &mut u64, step_us: u32, count_us: u32) -> Status {
        self.tick += 1;
        let mut clock = AgentClock::at(*clock_us);
        let step_ms = clock.advance(u64::from(step_us));
        *clock_us = clock.us();
        self.tick_env(step_ms, count_us)
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
        // A world action (`SetFlagValue`) writes its values to the sim's
        // world and succeeds, as the game's handler does: a sim of a World
        // State Evaluation needed a `world` and a `finish` event per node.
        for a in self.actions.iter_mut().filter(|_| self.world_writes) {
            if a.is_running()
                && let Some(info) = self.program.action_of(a.node)
                && info.writes_world()
            {
                for (name, p) in info.params() {
                    if let crate::program::Param::Const(v) = p {
                        self.world.insert(name.to_string(), *v);
                    }
                }
                a.state = ActionState::Succeeded;
            }
        }
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
        if let Some((b, watch)) = &mut self.breaks {
            b.before_tick(&self.state, watch);
        }
        let status = self.tick_env(step_ms, step_us);
        if let Some((b, watch)) = &mut self.breaks {
            self.last_break = b.after_tick(
                &TickSeen {
                    program: self.program,
                    state: &self.state,
                    blackboard: &self.blackboard,
                    globals: &self.globals,
                    trace: &self.trace,
                },
                watch,
                None,
            );
        }
        self.record(status)
    }

    /// The tick's `Utility` decisions by name (`path` names nodes).
    fn utility_records(&self, path: &dyn Fn(u32) -> String) -> Vec<UtilityRecord> {
        let segment = |i: u32| {
            let p = path(i);
            p.rsplit('/').next().unwrap_or(&p).to_owned()
        };
        self.trace
            .decisions()
            .map(|d| UtilityRecord {
                node: path(d.choice.utility),
                scores: d
                    .scores
                    .iter()
                    .map(|s| (segment(s.child), s.score))
                    .collect(),
                chosen: (d.choice.chosen != crate::NONE).then(|| segment(d.choice.chosen)),
                why: d.choice.why(segment),
            })
            .collect()
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
            utility: self.utility_records(&path),
        }
    }

    /// Runs a whole script, calling `out` with each tick's record.
    pub fn run_script(
        program: &'p Program,
        script: &Script,
        mut out: impl FnMut(&TickRecord),
    ) -> Result<Vec<TickRecord>, SimError> {
        Self::run_script_breaking(program, script, None, |r, _| {
            out(r);
            true
        })
    }

    /// Runs a script with breakpoints: `out` gets each tick's record, the
    /// simulation (its blackboard, its state) and the breakpoint that hit
    /// in the tick, if any; it returns whether to go on (`false`: stop
    /// after this tick).
    pub fn run_script_breaking(
        program: &'p Program,
        script: &Script,
        breakpoints: Option<&Breakpoints>,
        mut out: impl FnMut(&TickRecord, &Sim<'_>) -> bool,
    ) -> Result<Vec<TickRecord>, SimError> {
        let mut sim = Sim::new(program, script.seed)
            .with_hz(script.hz.unwrap_or(30.0))
            .with_auto_finish(script.auto_finish)
            .with_world_writes(true)
            .with_repeat(script.mode == SimMode::Repeat);
        if let Some(b) = breakpoints {
            sim = sim.with_breakpoints(b.clone());
        }
        // What `wyrd check` refuses, a run refuses too (an event at tick 0
        // was dropped; one at a tick mistyped by some zeros ran for hours).
        if let Some(problem) = script.structure().into_iter().next() {
            return Err(problem);
        }
        let ticks = script.ticks.unwrap_or_else(|| {
            script
                .events
                .iter()
                .map(|e| e.tick)
                .max()
                .unwrap_or(0)
                .saturating_add(1)
        });
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
                    utility: Vec::new(),
                    ..last
                }
            } else {
                sim.step()
            };
            if finished {
                sim.last_break = None;
            }
            let go_on = out(&r, &sim);
            records.push(r);
            // The tick's expectations, once its record is out (a failed
            // one is the last line a reader sees before the error).
            for (n, e) in script
                .events
                .iter()
                .enumerate()
                .filter(|(_, e)| e.tick == tick)
            {
                let fail = |message: String| SimError::Event {
                    position: script.position(n),
                    number: n + 1,
                    tick,
                    error: Box::new(SimError::Mismatch(message)),
                };
                if let Some((key, want)) = &e.expect_value {
                    let want = program
                        .bb_key(key)
                        .and_then(|i| program.bb_types[usize::from(i)].fit(*want));
                    let is = sim.blackboard.get(key);
                    if want.is_none() || is != want {
                        let is = is.map_or_else(|| "unset".to_owned(), |v| v.to_string());
                        let want = want.map_or_else(|| "?".to_owned(), |v| v.to_string());
                        return Err(fail(format!(
                            "expected {key:?} to hold {want} after tick {tick}; it holds {is}"
                        )));
                    }
                }
                let Some((path, want)) = &e.expect else {
                    continue;
                };
                let is = sim.status_of(path);
                if is != Some(*want) {
                    return Err(fail(format!(
                        "expected {path:?} to be {} after tick {tick}; it is {}",
                        want.as_str(),
                        is.map_or("not in the tree", Status::as_str)
                    )));
                }
            }
            if !go_on {
                break;
            }
        }
        // An expectation the run never reached (`--ticks` fewer, a
        // breakpoint's stop) is a failure, not a pass: a script as a test
        // would test nothing.
        let last = records.last().map_or(0, |r| r.tick);
        if let Some((n, e)) = script
            .events
            .iter()
            .enumerate()
            .find(|(_, e)| (e.expect.is_some() || e.expect_value.is_some()) && e.tick > last)
        {
            return Err(SimError::Event {
                position: script.position(n),
                number: n + 1,
                tick: e.tick,
                error: Box::new(SimError::Mismatch(format!(
                    "the run ended at tick {last}: this expectation was never checked"
                ))),
            });
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
