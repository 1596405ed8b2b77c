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
