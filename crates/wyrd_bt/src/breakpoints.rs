//! Breakpoints: the moments a debugger stops the trees at. A node becomes
//! running, finishes with success or failure, or is aborted; an action
//! starts, finishes or is aborted; a condition over the blackboard, the
//! agent's tags and the world values the tree reads becomes true (written
//! in the tree's own condition syntax). For one agent (by its `Name`) or
//! any agent of the tree.
//!
//! Kept in a file beside the tree, `NAME.breakpoints.ron`:
//!
//! ```ron
//! (
//!     breakpoints: [
//!         (node: "root/fight/attack/Shoot", on: Aborted),
//!         (action: "Shoot", on: Aborted, when: Is("target_visible")),
//!         (name: "low ammo", when: Bb("ammo", Lt, 3)),
//!         (node: "root/hide", on: Running, agent: "squad 0 grunt 2"),
//!     ],
//! )
//! ```
//!
//! With `node` or `action`, `on` says which event (default `Running`) and
//! `when`, if given, must also hold after the tick. With `when` alone, the
//! breakpoint hits in the tick the condition turns true (not in every tick
//! it stays true). An action leaf's events come from the tick's trace (an
//! action that ends and starts again in one tick hits both); a composite
//! is judged by its status before and after the tick, so one that finishes
//! and starts again within a tick (a repeating root) is seen running. Checked only for agents whose tree has breakpoints: an
//! agent without pays one `Option` test per tick.

use std::collections::HashMap;
use std::sync::Arc;

use bevy::ecs::prelude::*;

use serde::{Deserialize, Serialize};

use crate::blackboard::Blackboard;
use crate::def::Check;
use crate::program::Program;
use crate::runtime::{ActionEvent, AgentState, TickTrace};
use crate::status::Status;
use crate::value::{Op, Value, ValueDef, ValueType};

/// What happens to a breakpoint's node or action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum BreakOn {
    /// It becomes running (an action: it starts).
    #[default]
    Running,
    /// It finishes with success (an action: the tree takes its success).
    Success,
    /// It finishes with failure.
    Failure,
    /// The tree stops it while it runs (a higher priority took over, a
    /// guard broke, a timeout, ...).
    Aborted,
}

impl BreakOn {
    fn as_str(self) -> &'static str {
        match self {
            BreakOn::Running => "became running",
            BreakOn::Success => "succeeded",
            BreakOn::Failure => "failed",
            BreakOn::Aborted => "was aborted",
        }
    }
}

/// One breakpoint as written in a breakpoints file.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakpointDef {
    /// A name for messages and script assertions (default: made from the
    /// rest, e.g. `root/fight/attack/Shoot aborted`).
    #[serde(default)]
    pub name: Option<String>,
    /// A node path, as `wyrd check` and the inspector print it.
    #[serde(default)]
    pub node: Option<String>,
    /// An action name: every leaf of the tree that runs it.
    #[serde(default)]
    pub action: Option<String>,
    /// The event (with `node` or `action`; default `Running`).
    #[serde(default)]
    pub on: Option<BreakOn>,
    /// A condition that must hold after the tick, in the tree's syntax.
    #[serde(default)]
    pub when: Option<Check>,
    /// Only the agent with this `Name` (default: any agent of the tree).
    #[serde(default)]
    pub agent: Option<String>,
}

impl BreakpointDef {
    /// The name it is reported by.
    pub fn display_name(&self) -> String {
        if let Some(n) = &self.name {
            return n.clone();
        }
        let on = self.on.unwrap_or_default();
        let mut s = match (&self.node, &self.action) {
            (Some(n), _) => format!("{n} {}", on.as_str()),
            (None, Some(a)) => format!("action {a} {}", on.as_str()),
            (None, None) => "condition".to_owned(),
        };
        if self.when.is_some() && (self.node.is_some() || self.action.is_some()) {
            s.push_str(" (with a condition)");
        }
        s
    }
}

/// A breakpoints file (`NAME.breakpoints.ron`).
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakpointsDef {
    /// The breakpoints, in order (the first that hits in a tick is
    /// reported).
    #[serde(default)]
    pub breakpoints: Vec<BreakpointDef>,
}

/// Why a breakpoints file or a breakpoint cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BreakpointError {
    /// The file is not valid RON for a breakpoints file.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A breakpoint names something the tree does not have.
    #[error("{file}: breakpoint {number} ({name}): {message}")]
    Breakpoint {
        /// The file.
        file: String,
        /// Its number in the file (from 1).
        number: usize,
        /// Its name.
        name: String,
        /// What is wrong.
        message: String,
    },
}

impl BreakpointsDef {
    /// Where each breakpoint of a breakpoints file's text starts (1-based
    /// line and column), in file order: errors about a breakpoint point
    /// at it. Empty when the text does not parse.
    pub fn places(text: &str) -> Vec<(usize, usize)> {
        crate::compile::outline::list_places(text, "breakpoints")
    }

    /// Where breakpoint `number` (from 1) of a breakpoints file's text
    /// writes the string `value` (`node: "root/fle"`): 1-based line and
    /// column inside its quotes, as the parser reads the file, for an
    /// error about that value to point at it (`None`: no such field).
    pub fn value_place(text: &str, number: usize, value: &str) -> Option<(usize, usize)> {
        use crate::compile::outline::{Body, outline};
        let top = outline(text)?;
        let Body::List(items) = &top.unwrapped().field("breakpoints")?.body else {
            return None;
        };
        let Body::Named(_, fields) = &items.get(number.checked_sub(1)?)?.unwrapped().body else {
            return None;
        };
        fields
            .iter()
            .find(|f| matches!(&f.value.body, Body::Str(s) if s == value))
            .map(|f| crate::compile::line_col(text, f.value.start + 1))
    }

    /// Parses a breakpoints file; `file` names it in errors.
    /// The breakpoints as a file's text, one breakpoint per line (what
    /// [`BreakpointsDef::parse`] reads back to the same breakpoints).
    pub fn to_ron(&self) -> String {
        let mut out = String::from("(\n    breakpoints: [\n");
        for b in &self.breakpoints {
            let mut fields = Vec::new();
            let text =
                |name: &str, v: &Option<String>| v.as_ref().map(|v| format!("{name}: {v:?}"));
            fields.extend(text("name", &b.name));
            fields.extend(text("node", &b.node));
            fields.extend(text("action", &b.action));
            if let Some(on) = b.on {
                fields.push(format!("on: {}", ron_text(&on)));
            }
            if let Some(when) = &b.when {
                fields.push(format!("when: {}", ron_text(when)));
            }
            fields.extend(text("agent", &b.agent));
            out.push_str(&format!("        ({}),\n", fields.join(", ")));
        }
        out.push_str("    ],\n)\n");
        out
    }

    /// Reads a breakpoints file's text (`file` names it in errors).
    pub fn parse(file: &str, text: &str) -> Result<Self, BreakpointError> {
        // A byte-order mark is not content (editors count columns without it).
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .map_err(|e| BreakpointError::Syntax {
                file: file.to_owned(),
                line: e.span.start.line,
                column: e.span.start.col,
                message: syntax_message(&e.code),
            })
    }
}

/// A RON error in the file's words: the parser names its own types ("in
/// enum `BreakOn`").
fn syntax_message(code: &ron::Error) -> String {
    match code {
        ron::Error::NoSuchEnumVariant {
            expected, found, ..
        } => format!(
            "unknown value `{found}`{} (one of {})",
            crate::closest_name(found, expected.iter().copied()),
            expected.join(", ")
        ),
        ron::Error::NoSuchStructField {
            expected,
            found,
            outer,
        } => {
            let what = match outer.as_deref() {
                Some("BreakpointDef") => "a breakpoint",
                Some("BreakpointsDef") => "a breakpoints file",
                _ => "this place",
            };
            format!(
                "unknown field `{found}` in {what}{} (its fields: {})",
                crate::closest_name(found, expected.iter().copied()),
                expected.join(", ")
            )
        }
        other => other.to_string(),
    }
}

/// A value as RON writes it, with a space after each comma.
fn ron_text(v: &impl Serialize) -> String {
    let compact = ron::to_string(v).unwrap_or_default();
    // Commas outside strings get a space (RON's compact form has none).
    let mut out = String::with_capacity(compact.len() + 8);
    let (mut in_string, mut escaped) = (false, false);
    for c in compact.chars() {
        out.push(c);
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' {
            out.push(' ');
        }
    }
    out
}

/// A condition of a breakpoint, resolved against the tree.
#[derive(Debug, Clone, PartialEq)]
enum BreakCond {
    Bb { key: u16, op: Op, rhs: Operand },
    Tags(u64),
    World { slot: usize, op: Op, value: Value },
    All(Vec<BreakCond>),
    Any(Vec<BreakCond>),
    Not(Box<BreakCond>),
}

/// The right-hand side of a blackboard comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Operand {
    Const(Value),
    Key(u16),
}

/// A breakpoint's comparison follows the tree's rule: a key is compared
/// with a value of its own type (`wyrd check` said `ok` to a float
/// compared with `true`, which the tree's compiler refuses).
fn same_type(p: &Program, name: &str, key: u16, found: ValueType) -> Result<(), String> {
    let expected = p.bb_types[usize::from(key)];
    if expected.accepts_type(found) {
        return Ok(());
    }
    Err(format!(
        "blackboard key {name:?} is {}, compared with {}",
        crate::value::with_article(expected.name()),
        crate::value::with_article(found.name())
    ))
}

impl BreakCond {
    fn resolve(check: &Check, p: &Program) -> Result<BreakCond, String> {
        let key = |k: &str| {
            p.bb_key(k).ok_or_else(|| {
                let hint = crate::compile::closest_name(k, p.bb_keys.iter().map(String::as_str));
                format!("the tree declares no blackboard key {k:?}{hint}")
            })
        };
        Ok(match check {
            Check::Is(k) | Check::IsNot(k) => {
                let key = key(k)?;
                same_type(p, k, key, ValueType::Bool)?;
                BreakCond::Bb {
                    key,
                    op: Op::Eq,
                    rhs: Operand::Const(Value::Bool(matches!(check, Check::Is(_)))),
                }
            }
            Check::Bb(k, op, rhs) => {
                let lhs = key(k)?;
                let rhs = match rhs {
                    ValueDef::Value(v) => Operand::Const(*v),
                    ValueDef::Ref(r) => Operand::Key(key(r)?),
                    ValueDef::Type(t) => {
                        return Err(format!("compare {k:?} with a value, not the type {t:?}"));
                    }
                };
                let rhs_type = match rhs {
                    Operand::Const(v) => v.value_type(),
                    Operand::Key(r) => p.bb_types[usize::from(r)],
                };
                same_type(p, k, lhs, rhs_type)?;
                let ty = p.bb_types[usize::from(lhs)];
                if !ty.is_ordered() && !matches!(op, Op::Eq | Op::Ne) {
                    return Err(format!(
                        "blackboard key {k:?} is {}: it has no order for `{}`",
                        crate::value::with_article(ty.name()),
                        op.symbol()
                    ));
                }
                BreakCond::Bb { key: lhs, op: *op, rhs }
            }
            Check::HasTag(t) => BreakCond::Tags(
                p.tag_bit(t)
                    .ok_or_else(|| format!("the tree declares no tag {t:?}"))?,
            ),
            Check::World(name, op, value) => BreakCond::World {
                slot: p.globals.iter().position(|g| &g.name == name).ok_or_else(|| {
                    format!(
                        "the tree reads no world value {name:?} (a breakpoint watches only the world values its tree reads)"
                    )
                })?,
                op: *op,
                value: *value,
            },
            Check::Predicate(name, _) => {
                return Err(format!(
                    "predicates ({name:?}) cannot be breakpoint conditions: write the condition over blackboard keys, tags or world values"
                ));
            }
            Check::All(list) => BreakCond::All(Self::resolve_all(list, p)?),
            Check::Any(list) => BreakCond::Any(Self::resolve_all(list, p)?),
            Check::Not(c) => BreakCond::Not(Box::new(Self::resolve(c, p)?)),
        })
    }

    fn resolve_all(list: &[Check], p: &Program) -> Result<Vec<BreakCond>, String> {
        list.iter().map(|c| Self::resolve(c, p)).collect()
    }

    fn holds(&self, bb: &Blackboard, globals: &[Option<Value>]) -> bool {
        match self {
            BreakCond::Bb { key, op, rhs } => {
                let rhs = match *rhs {
                    Operand::Const(v) => Some(v),
                    Operand::Key(k) => bb.get_index(k),
                };
                match (bb.get_index(*key), rhs) {
                    (Some(l), Some(r)) => op.eval(l, r),
                    _ => false,
                }
            }
            BreakCond::Tags(bit) => bb.tags() & bit != 0,
            BreakCond::World { slot, op, value } => {
                matches!(globals.get(*slot), Some(Some(v)) if op.eval(*v, *value))
            }
            BreakCond::All(l) => l.iter().all(|c| c.holds(bb, globals)),
            BreakCond::Any(l) => l.iter().any(|c| c.holds(bb, globals)),
            BreakCond::Not(c) => !c.holds(bb, globals),
        }
    }
}

/// One breakpoint resolved against a tree.
#[derive(Debug, Clone, PartialEq)]
struct Breakpoint {
    name: String,
    /// The nodes it watches (a node, or every leaf of an action).
    nodes: Vec<u32>,
    /// Watches action events (the leaves of `action`), not node statuses.
    action: bool,
    on: BreakOn,
    when: Option<BreakCond>,
    agent: Option<String>,
}

/// A tree's breakpoints, resolved against its program: node paths to node
/// indexes, condition keys to key indexes.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Breakpoints {
    items: Vec<Breakpoint>,
}

/// A breakpoint that hit: which, for which node, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakHit {
    /// Its place in the file (from 0).
    pub index: usize,
    /// Its name.
    pub name: String,
    /// The node whose event hit it (none for a condition alone).
    pub node: Option<u32>,
    /// One line: what happened.
    pub why: String,
}

/// What a breakpoint check reads of the tick that just ran.
#[derive(Clone, Copy)]
pub struct TickSeen<'a> {
    /// The agent's program.
    pub program: &'a Program,
    /// Its tree state after the tick.
    pub state: &'a AgentState,
    /// Its blackboard after the tick.
    pub blackboard: &'a Blackboard,
    /// The world values its tree reads.
    pub globals: &'a [Option<Value>],
    /// What the tick did.
    pub trace: &'a TickTrace,
}

/// Per agent: what a breakpoint check compares with (the watched nodes'
/// statuses before the tick, each condition's last answer).
#[derive(Debug, Clone, Default)]
pub struct BreakWatch {
    before: Vec<Vec<Status>>,
    held: Vec<bool>,
}

impl Breakpoints {
    /// Resolves a breakpoints file against a tree; `file` names it in
    /// errors. Every breakpoint that cannot be resolved is an error.
    pub fn resolve(
        def: &BreakpointsDef,
        program: &Program,
        file: &str,
    ) -> Result<Breakpoints, Vec<BreakpointError>> {
        let mut items = Vec::new();
        let mut errors = Vec::new();
        for (n, b) in def.breakpoints.iter().enumerate() {
            match Self::resolve_one(b, program) {
                Ok(item) => items.push(item),
                Err(message) => errors.push(BreakpointError::Breakpoint {
                    file: file.to_owned(),
                    number: n + 1,
                    name: b.display_name(),
                    message,
                }),
            }
        }
        if errors.is_empty() {
            Ok(Breakpoints { items })
        } else {
            Err(errors)
        }
    }

    fn resolve_one(b: &BreakpointDef, p: &Program) -> Result<Breakpoint, String> {
        let when = b
            .when
            .as_ref()
            .map(|c| BreakCond::resolve(c, p))
            .transpose()?;
        let (nodes, action) = match (&b.node, &b.action) {
            (Some(_), Some(_)) => return Err("give `node` or `action`, not both".into()),
            (Some(path), None) => {
                let node = p.node(path).ok_or_else(|| {
                    let hint = crate::compile::closest_name(path, p.paths.iter().map(String::as_str));
                    format!(
                        "the tree has no node {path:?}{hint} (paths as `wyrd sim` and `wyrd graph` print them)"
                    )
                })?;
                (vec![node], false)
            }
            (None, Some(name)) => {
                let leaves: Vec<u32> = (0..p.nodes.len() as u32)
                    .filter(|&i| p.action_of(i).is_some_and(|a| a.name() == name))
                    .collect();
                if leaves.is_empty() {
                    let hint =
                        crate::compile::closest_name(name, p.actions.iter().map(|a| a.name()));
                    return Err(format!(
                        "no leaf of the tree runs the action {name:?}{hint}"
                    ));
                }
                (leaves, true)
            }
            (None, None) if when.is_some() => {
                if b.on.is_some() {
                    return Err("`on` needs a `node` or an `action`".into());
                }
                (Vec::new(), false)
            }
            (None, None) => return Err("give a `node`, an `action` or a `when`".into()),
        };
        Ok(Breakpoint {
            name: b.display_name(),
            nodes,
            action,
            on: b.on.unwrap_or_default(),
            when,
            agent: b.agent.clone(),
        })
    }

    /// Their names, in file order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.items.iter().map(|b| b.name.as_str())
    }

    /// How many breakpoints.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether some breakpoint applies to an agent of this name (or to
    /// any agent).
    pub fn applies_to(&self, agent: Option<&str>) -> bool {
        self.items
            .iter()
            .any(|b| b.agent.is_none() || b.agent.as_deref() == agent)
    }

    /// Call before the agent's tick: keeps the watched nodes' statuses.
    pub fn before_tick(&self, state: &AgentState, watch: &mut BreakWatch) {
        watch.before.resize_with(self.items.len(), Vec::new);
        for (b, before) in self.items.iter().zip(&mut watch.before) {
            before.clear();
            before.extend(b.nodes.iter().map(|&i| status_of(state, i)));
        }
    }

    /// Call after the agent's tick: the first breakpoint that hit, if any.
    /// `agent` is the agent's name.
    pub fn after_tick(
        &self,
        tick: &TickSeen<'_>,
        watch: &mut BreakWatch,
        agent: Option<&str>,
    ) -> Option<BreakHit> {
        let TickSeen {
            program,
            state,
            blackboard: bb,
            globals,
            trace,
        } = *tick;
        watch.held.resize(self.items.len(), false);
        let mut hit = None;
        for (index, b) in self.items.iter().enumerate() {
            if b.agent.as_deref().is_some_and(|a| Some(a) != agent) {
                continue;
            }
            let holds = b.when.as_ref().map(|c| c.holds(bb, globals));
            let held_before = std::mem::replace(&mut watch.held[index], holds == Some(true));
            if hit.is_some() {
                continue; // keep every condition's last answer up to date
            }
            let before = watch.before.get(index).map_or(&[][..], Vec::as_slice);
            let event = if b.nodes.is_empty() {
                // A condition alone: when it turns true.
                (holds == Some(true) && !held_before).then_some(None)
            } else if holds == Some(false) {
                None
            } else {
                b.event(state, trace, before).map(Some)
            };
            if let Some(node) = event {
                let why = match node {
                    Some(n) => format!("{} {}", program.paths[n as usize], b.on.as_str()),
                    None => format!("{} became true", b.name),
                };
                hit = Some(BreakHit {
                    index,
                    name: b.name.clone(),
                    node,
                    why,
                });
            }
        }
        hit
    }
}

impl Breakpoint {
    /// The first watched node whose event happened in the tick.
    fn event(&self, state: &AgentState, trace: &TickTrace, before: &[Status]) -> Option<u32> {
        if self.action {
            let wanted = |e: ActionEvent| {
                matches!(
                    (self.on, e),
                    (BreakOn::Running, ActionEvent::Started)
                        | (BreakOn::Success, ActionEvent::Finished(Status::Success))
                        | (BreakOn::Failure, ActionEvent::Finished(Status::Failure))
                        | (BreakOn::Aborted, ActionEvent::Aborted)
                )
            };
            return trace
                .actions
                .iter()
                .find(|(n, e)| self.nodes.contains(n) && wanted(*e))
                .map(|(n, _)| *n);
        }
        self.nodes.iter().enumerate().find_map(|(k, &i)| {
            let was = before.get(k).copied().unwrap_or(Status::Idle);
            let now = status_of(state, i);
            let ticked = trace.ticked.contains(&i);
            // An action leaf's events are in the trace, also when it ends
            // and starts again in one tick (a repeating root); other nodes
            // are judged by their status before and after the tick.
            let leaf = |e: ActionEvent| trace.actions.contains(&(i, e));
            let happened = match self.on {
                BreakOn::Running => {
                    (now == Status::Running && was != Status::Running) || leaf(ActionEvent::Started)
                }
                BreakOn::Success => {
                    (ticked && now == Status::Success)
                        || leaf(ActionEvent::Finished(Status::Success))
                }
                BreakOn::Failure => {
                    (ticked && now == Status::Failure)
                        || leaf(ActionEvent::Finished(Status::Failure))
                }
                // Halted: running before, not running now, and not by a
                // tick of its own (a halt does not tick the node).
                BreakOn::Aborted => {
                    (was == Status::Running && now != Status::Running && !ticked)
                        || leaf(ActionEvent::Aborted)
                }
            };
            happened.then_some(i)
        })
    }
}

fn status_of(state: &AgentState, node: u32) -> Status {
    state
        .mem
        .nodes()
        .get(node as usize)
        .map_or(Status::Idle, |n| n.status())
}

/// Per agent: the breakpoints that apply to it, and what they compare with.
#[derive(Debug)]
pub(crate) struct AgentBreaks {
    breakpoints: Arc<Breakpoints>,
    watch: BreakWatch,
    name: Option<String>,
    /// The hit of the last tick, for the tick system to report.
    pub(crate) hit: Option<BreakHit>,
    /// Ticks of flight recording the agent keeps while watched (the lead-up
    /// a hit shows; `BtBreakpoints::record`).
    pub(crate) lead_up: usize,
}

impl AgentBreaks {
    /// The breakpoints of an agent of this name, keeping `lead_up` ticks
    /// of recording while watched.
    pub(crate) fn new(breakpoints: Arc<Breakpoints>, name: Option<String>, lead_up: usize) -> Self {
        AgentBreaks {
            breakpoints,
            watch: BreakWatch::default(),
            name,
            hit: None,
            lead_up,
        }
    }

    /// Before the agent's tick.
    pub(crate) fn before_tick(&mut self, state: &AgentState) {
        self.breakpoints.before_tick(state, &mut self.watch);
    }

    /// After the agent's tick.
    pub(crate) fn after_tick(
        &mut self,
        program: &Program,
        state: &AgentState,
        bb: &Blackboard,
        globals: &[Option<Value>],
        trace: &TickTrace,
    ) {
        self.hit = self.breakpoints.after_tick(
            &TickSeen {
                program,
                state,
                blackboard: bb,
                globals,
                trace,
            },
            &mut self.watch,
            self.name.as_deref(),
        );
    }
}

/// The breakpoints of every tree, by the tree's asset path
/// (`squad_ai/combat.bt.ron`). Set them from code or a debugger, or load
/// a `NAME.breakpoints.ron` file beside the tree ([`BtBreakpointsFile`](crate::BtBreakpointsFile)).
/// With none, nothing is checked and the tick pays one `Option` test per
/// agent.
#[derive(Resource, Debug, Default)]
pub struct BtBreakpoints {
    trees: HashMap<String, BreakpointsDef>,
    /// Bumped by every change of `trees` (the last hit is not one).
    pub(crate) generation: u64,
    /// The last breakpoint that hit (the debugger's "why it stopped").
    pub last_hit: Option<BtBreakpointHit>,
    /// Ticks of flight recording kept by every agent a breakpoint watches,
    /// so that when one hits, the debugger's timeline holds the ticks that
    /// led to it (0: none). [`BtBreakpointsPlugin::record`](crate::BtBreakpointsPlugin::record)
    /// sets it.
    pub record: usize,
}

impl BtBreakpoints {
    /// Sets a tree's breakpoints (replacing what it had).
    pub fn set(&mut self, tree: impl Into<String>, breakpoints: BreakpointsDef) {
        self.trees.insert(tree.into(), breakpoints);
        self.generation += 1;
    }

    /// Removes a tree's breakpoints.
    pub fn clear(&mut self, tree: &str) {
        if self.trees.remove(tree).is_some() {
            self.generation += 1;
        }
    }

    /// A tree's breakpoints.
    pub fn get(&self, tree: &str) -> Option<&BreakpointsDef> {
        self.trees.get(tree)
    }

    /// Whether no tree has a breakpoint.
    pub fn is_empty(&self) -> bool {
        self.trees.values().all(|d| d.breakpoints.is_empty())
    }
}

/// A breakpoint hit: the trees paused at the end of this tick.
#[derive(Message, Debug, Clone, PartialEq, Eq)]
pub struct BtBreakpointHit {
    /// The agent.
    pub entity: Entity,
    /// Its tree file.
    pub tree: String,
    /// The agent's tick (as its recording and the inspector count).
    pub tick: u64,
    /// Which breakpoint, and why.
    pub hit: BreakHit,
}
