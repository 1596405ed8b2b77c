//! Sim scripts: the events a scripted run applies, tick by tick.

use super::*;

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
    /// After this tick, the node at this path has this status
    /// (`expect: ("root/fight/Shoot", Running)`): a run whose tree does
    /// otherwise fails there, naming the event (a script as a test), and
    /// so does a run that ends before the tick. The status is the one the
    /// tree holds for the node then, that of its last tick: a node the
    /// tick did not reach keeps the status it ended with (`Idle`: never
    /// ticked, or halted), as `wyrd sim`'s lines and the inspector show it.
    #[serde(default)]
    pub expect: Option<(String, Status)>,
    /// After this tick, the blackboard key holds this value
    /// (`expect_value: ("ammo", 2)`; a number as the key's type holds it):
    /// a run where it is otherwise, or unset, fails there, as `expect` does.
    #[serde(default)]
    pub expect_value: Option<(String, Value)>,
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
    /// Breakpoints (by name) that must hit at least once in the run, with
    /// `wyrd sim --break FILE`: a script as a CI check.
    #[serde(default)]
    pub expect_breaks: Vec<String>,
    /// Breakpoints that must never hit ("the guard never aborts Shoot while
    /// the target is visible").
    #[serde(default)]
    pub never_breaks: Vec<String>,
    /// Where each event is in the text (for messages).
    #[serde(skip)]
    positions: Vec<(usize, usize)>,
}

impl Script {
    /// Parses a script (RON). The error carries line and column.
    pub fn parse(text: &str) -> Result<Script, SimError> {
        // A byte-order mark is not content (editors count columns without it).
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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
        let mut problems = self.structure();
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
            // A run stops at `ticks` (`wyrd sim --ticks N` runs fewer on
            // purpose); in the file, an event after it is a mistake.
            if let Some(ticks) = self.ticks
                && e.tick > ticks
                && e.tick <= MAX_SCRIPT_TICKS
            {
                say(format!(
                    "the script runs {ticks} ticks (`ticks`): an event at tick {} never happens",
                    e.tick
                ));
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
                    let leaf = &program.paths[a.node as usize];
                    match leaf.strip_prefix('~') {
                        None => path == leaf,
                        Some(own) => {
                            path == own
                                || path
                                    .strip_suffix(own)
                                    .and_then(|at| at.strip_suffix('/'))
                                    .is_some_and(|at| program.node(at).is_some())
                        }
                    }
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
            if let Some((key, v)) = &e.expect_value {
                match program.bb_key(key) {
                    None => {
                        let hint =
                            crate::closest_name(key, program.bb_keys.iter().map(String::as_str));
                        say(format!("no blackboard key {key:?}{hint}"));
                    }
                    Some(i) => {
                        let ty = program.bb_types[usize::from(i)];
                        if ty.fit(*v).is_none() {
                            say(format!(
                                "{key:?} is {}: it cannot hold {v}",
                                crate::value::with_article(ty.name())
                            ));
                        }
                    }
                }
            }
            if let Some((path, _)) = &e.expect
                && program.node(path).is_none()
            {
                let hint = crate::closest_name(path, program.paths.iter().map(String::as_str));
                say(format!("no node has the path {path:?}{hint}"));
            }
        }
        problems
    }

    /// What is wrong with the script whatever tree it drives: the rate,
    /// tick numbers (from 1, at most [`MAX_SCRIPT_TICKS`]) and stimulus
    /// durations. [`Script::check`] includes these;
    /// a run refuses a script that has any.
    pub fn structure(&self) -> Vec<SimError> {
        let mut problems = Vec::new();
        if let Some(hz) = self.hz
            && !(hz.is_finite() && (MIN_SCRIPT_HZ..=MAX_SCRIPT_HZ).contains(&hz))
        {
            problems.push(SimError::Mismatch(format!(
                "hz is the ticks per second, from {MIN_SCRIPT_HZ} to {MAX_SCRIPT_HZ}: not {hz}"
            )));
        }
        if let Some(ticks) = self.ticks
            && ticks > MAX_SCRIPT_TICKS
        {
            problems.push(SimError::Mismatch(format!(
                "ticks: {ticks} is more than a script runs ({MAX_SCRIPT_TICKS})"
            )));
        }
        for (n, e) in self.events.iter().enumerate() {
            let mut say = |m: String| {
                problems.push(SimError::Event {
                    position: self.position(n),
                    number: n + 1,
                    tick: e.tick,
                    error: Box::new(SimError::Mismatch(m)),
                })
            };
            if e.tick == 0 {
                say("ticks count from 1".into());
            } else if e.tick > MAX_SCRIPT_TICKS {
                say(format!(
                    "tick {} is past the last a script runs ({MAX_SCRIPT_TICKS})",
                    e.tick
                ));
            }
            if let Some(st) = &e.stimulus
                && !(st.seconds.is_finite() && st.seconds > 0.0)
            {
                say(format!(
                    "a stimulus lasts a number of seconds above 0, not {}",
                    st.seconds
                ));
            }
        }
        problems
    }
}

/// Most ticks a script runs (over 9 hours at 30 Hz): an event's tick
/// mistyped by a few zeros would otherwise run for hours and fill memory.
pub const MAX_SCRIPT_TICKS: u64 = 1_000_000;

/// The highest rate a script ticks at.
pub const MAX_SCRIPT_HZ: f32 = 10_000.0;

/// The lowest rate a script ticks at (a tick every 100 s).
pub const MIN_SCRIPT_HZ: f32 = 0.01;

/// Line and column of each event of a script's `events` list: the opening
/// parenthesis of each entry (from the file's outline: comments and
/// strings that say "events" are not the list).
fn event_positions(text: &str) -> Vec<(usize, usize)> {
    crate::compile::outline::list_places(text, "events")
}
