//! Running state that survives: an agent's tree state saved keyed by node
//! paths (so it restores onto a fresh app, and onto an edited tree as far
//! as the tree still leads there), and the diff between two versions of a
//! tree that hot reload and `wyrd diff` report.

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::blackboard::Blackboard;
use crate::program::{NONE, Program};
use crate::runtime::{
    ActionState, ActiveAction, AgentState, BtActions, NodeState, Status, Stimulus,
};
use crate::value::Value;

/// The version of [`SavedTree`] this build writes and reads.
pub const SAVED_TREE_FORMAT: u32 = 1;

/// One node's saved state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedNode {
    /// Its path.
    pub path: String,
    /// Its definition's signature (hex): a different one means the node
    /// changed.
    pub signature: String,
    /// Status and rule flags (packed).
    pub state: u8,
    /// Its timer or counter, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aux: Option<u32>,
    /// Its cursor, if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<u16>,
}

impl SavedNode {
    /// Its status when saved (a running node is where the agent was).
    pub fn status(&self) -> Status {
        NodeState::from_raw(self.state).status()
    }
}

/// A running or just-reported action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedAction {
    /// The leaf's path.
    pub leaf: String,
    /// The action's name.
    pub action: String,
    /// `started`, `running`, `succeeded`, `failed` or `aborted`.
    pub state: String,
    /// Agent time (ms) it started.
    pub started_ms: u32,
}

/// A stimulus with its time left.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedStimulus {
    /// The composite it competes in.
    pub at: String,
    /// The behavior.
    pub behavior: String,
    /// Its priority.
    pub priority: u16,
    /// Agent time (ms) it expires; `u32::MAX` for one inserted since the
    /// agent's last tick (its time starts at the next).
    pub expires_ms: u32,
    /// Its duration (ms).
    pub duration_ms: u32,
}

/// An agent's whole tree state, keyed by node paths, with the tree's
/// content hash: what a save carries and what a reload maps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedTree {
    /// [`SAVED_TREE_FORMAT`].
    pub format: u32,
    /// The tree file.
    pub tree: String,
    /// Its content hash (hex).
    pub tree_hash: String,
    /// The agent's seed and random state.
    pub seed: u64,
    /// Random state.
    pub rng: u64,
    /// Agent time (ms), its µs clock, ticks.
    pub now_ms: u32,
    /// The agent's µs clock.
    pub clock_us: u64,
    /// Ticks so far.
    pub ticks: u64,
    /// Root status after the last tick and after the whole tick.
    pub status: (String, String),
    /// Redirect bookkeeping.
    pub redirect_live: bool,
    /// The blackboard did not change since the last walk (the agent may
    /// skip its next one: the restored agent decides the same).
    #[serde(default)]
    pub inputs_seen: bool,
    /// Every node's state.
    pub nodes: Vec<SavedNode>,
    /// Stimuli competing.
    pub stimuli: Vec<SavedStimulus>,
    /// How often each impulse (by path) won.
    pub impulses: Vec<(String, u32)>,
    /// Actions running or reported.
    pub actions: Vec<SavedAction>,
    /// Blackboard values (`None`: unset).
    pub blackboard: Vec<(String, Option<Value>)>,
    /// Tags set.
    pub tags: Vec<String>,
}

/// Why a saved state was not restored (the agent starts fresh).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RestoreError {
    /// Written by a newer version.
    #[error("saved tree state format {0} is newer than this build reads ({SAVED_TREE_FORMAT})")]
    NewerFormat(u32),
    /// Saved from another tree file.
    #[error("saved from {saved}, but this agent runs {running}")]
    OtherTree {
        /// The saved tree.
        saved: String,
        /// The agent's tree.
        running: String,
    },
    /// A running node of the saved state is gone or changed: the agent
    /// restarts cleanly rather than run a mixed state.
    #[error("{0} was running and changed or is gone: the agent starts fresh")]
    RunningNodeChanged(String),
    /// The text is not a saved tree state.
    #[error("not a saved tree state: {0}")]
    Corrupt(String),
}

/// What a restore kept and what it could not.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RestoreReport {
    /// Nodes whose state was kept.
    pub kept: usize,
    /// Saved nodes not kept (gone, changed, or under a changed node).
    pub not_kept: Vec<String>,
    /// Actions kept running.
    pub actions_kept: usize,
    /// Blackboard keys the tree no longer declares, or of another type.
    pub values_dropped: Vec<String>,
}

/// `kept 12 nodes and 1 action; not kept: root/flee; values dropped: x`.
impl std::fmt::Display for RestoreReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "kept {} node{} and {} action{}",
            self.kept,
            plural(self.kept),
            self.actions_kept,
            plural(self.actions_kept)
        )?;
        if !self.not_kept.is_empty() {
            write!(f, "; not kept: {}", self.not_kept.join(", "))?;
        }
        if !self.values_dropped.is_empty() {
            write!(f, "; values dropped: {}", self.values_dropped.join(", "))?;
        }
        Ok(())
    }
}

fn status_name(s: Status) -> String {
    s.as_str().to_owned()
}

fn status_of(s: &str) -> Status {
    match s {
        "running" => Status::Running,
        "success" => Status::Success,
        "failure" => Status::Failure,
        "skipped" => Status::Skipped,
        _ => Status::Idle,
    }
}

impl AgentState {
    /// The state keyed by node paths (see [`SavedTree`]).
    pub fn save(
        &self,
        program: &Program,
        actions: &BtActions,
        blackboard: &Blackboard,
        clock_us: u64,
    ) -> SavedTree {
        let nodes = (0..program.nodes.len())
            .map(|i| {
                let n = &program.nodes[i];
                SavedNode {
                    path: program.paths[i].clone(),
                    signature: format!("{:016x}", program.signatures.get(i).copied().unwrap_or(0)),
                    state: self.mem.nodes()[i].raw(),
                    aux: (n.aux != NONE).then(|| self.mem.aux()[n.aux as usize]),
                    cursor: (n.cursor != NONE).then(|| self.mem.cursors()[n.cursor as usize]),
                }
            })
            .collect();
        SavedTree {
            format: SAVED_TREE_FORMAT,
            tree: program.source.clone(),
            tree_hash: format!("{:016x}", program.content_hash),
            seed: self.seed,
            rng: self.rng(),
            now_ms: self.now_ms,
            clock_us,
            ticks: self.ticks,
            status: (status_name(self.status), status_name(self.live)),
            redirect_live: self.redirect_live,
            // A walk the next tick must do (after an unsettled one) is
            // not skipped by the restored agent either.
            inputs_seen: self.seen_inputs.0 == blackboard.generation() as u32
                && self.walked & crate::runtime::walked::UNSETTLED == 0,
            nodes,
            stimuli: self
                .stimuli
                .iter()
                .map(|s| SavedStimulus {
                    at: program.paths[s.target as usize].clone(),
                    behavior: program.name(s.root).trim_start_matches('~').to_owned(),
                    priority: s.priority,
                    expires_ms: s.expires_ms,
                    duration_ms: s.duration_ms,
                })
                .collect(),
            impulses: program
                .impulses
                .iter()
                .zip(self.mem.impulses().iter())
                .map(|(imp, &n)| (program.paths[imp.node as usize].clone(), n))
                .collect(),
            // An aborted slot is not saved: the game was told in its
            // session (a restore would tell it again, or drop it, as
            // what else happened chose), and one whose leaf is in another
            // tree is not this tree's.
            actions: actions
                .iter()
                .filter(|a| a.state != ActionState::Aborted)
                .filter_map(|a| {
                    Some(SavedAction {
                        leaf: program.paths.get(usize::from(a.node))?.clone(),
                        action: program
                            .action_of(a.node)
                            .map_or_else(String::new, |i| i.name.to_string()),
                        state: crate::recorder::action_state_name(a.state).to_owned(),
                        started_ms: a.started_ms,
                    })
                })
                .collect(),
            blackboard: blackboard.iter().map(|(k, v)| (k.to_owned(), v)).collect(),
            tags: program
                .tag_names
                .iter()
                .filter(|t| blackboard.has_tag(t))
                .cloned()
                .collect(),
        }
    }
}

/// Restores a saved state onto `program` (the same tree, or an edited
/// version of it). A node keeps its state when it is at the same path with
/// the same signature (its own definition, children by name), and so is
/// every ancestor; whatever changed inside sibling branches does not
/// matter, because the first tick after a restore onto an edited tree
/// walks from the root: an edited higher-priority branch still takes over
/// if it should. The others start fresh. If a node that was running is not
/// kept, nothing is: the agent restarts cleanly. Never a mixed state.
///
/// Returns the state, the action slots and the blackboard values to set.
pub fn restore(
    program: &Program,
    saved: &SavedTree,
) -> Result<(AgentState, Vec<ActiveAction>, RestoreReport), RestoreError> {
    if saved.format > SAVED_TREE_FORMAT {
        return Err(RestoreError::NewerFormat(saved.format));
    }
    if saved.tree != program.source {
        return Err(RestoreError::OtherTree {
            saved: saved.tree.clone(),
            running: program.source.clone(),
        });
    }
    let by_path: HashMap<&str, &SavedNode> =
        saved.nodes.iter().map(|n| (n.path.as_str(), n)).collect();
    let sig = |i: usize| format!("{:016x}", program.signatures.get(i).copied().unwrap_or(0));
    // A node is the same when its definition is, at the same path.
    let same = |j: u32| {
        by_path
            .get(program.paths[j as usize].as_str())
            .is_some_and(|s| s.signature == sig(j as usize))
    };
    // Kept: the node and every ancestor are the same (each one's own
    // definition lists its children by name, so the path still leads
    // there). A sibling branch may have changed: the first walk decides
    // again whether it takes over.
    let kept_at = |i: u32| -> bool {
        let mut j = i;
        loop {
            if !same(j) {
                return false;
            }
            let p = program.nodes[j as usize].parent;
            if p == NONE {
                return true;
            }
            j = p;
        }
    };
    let mut state = AgentState::new(program, saved.seed);
    let mut report = RestoreReport::default();
    let mut kept_paths: HashMap<&str, u32> = HashMap::new();
    for i in 0..program.nodes.len() as u32 {
        if kept_at(i) {
            kept_paths.insert(program.paths[i as usize].as_str(), i);
        }
    }
    for s in &saved.nodes {
        let running = NodeState::from_raw(s.state).status() == Status::Running
            && !NodeState::from_raw(s.state)
                .flags()
                .contains(crate::view::RuleFlags::PAUSED);
        match kept_paths.get(s.path.as_str()) {
            Some(&i) => {
                let n = &program.nodes[i as usize];
                state.mem.nodes_mut()[i as usize] = NodeState::from_raw(s.state);
                if let (true, Some(v)) = (n.aux != NONE, s.aux) {
                    state.mem.aux_mut()[n.aux as usize] =
                        if n.facts.aux == crate::kind::AuxInit::NoChild {
                            // A remembered child: a node index of the saved
                            // tree, mapped by path (or none).
                            if v == NONE {
                                NONE
                            } else {
                                saved
                                    .nodes
                                    .get(v as usize)
                                    .and_then(|c| kept_paths.get(c.path.as_str()).copied())
                                    .unwrap_or(NONE)
                            }
                        } else {
                            v
                        };
                }
                if let (true, Some(v)) = (n.cursor != NONE, s.cursor) {
                    // A cursor past the children (an edited file) starts over.
                    if v == u16::MAX || usize::from(v) < n.child_count as usize {
                        state.mem.cursors_mut()[n.cursor as usize] = v;
                    }
                }
                report.kept += 1;
            }
            None if running => return Err(RestoreError::RunningNodeChanged(s.path.clone())),
            None => report.not_kept.push(s.path.clone()),
        }
    }
    state.mem.set_rng(saved.rng);
    state.now_ms = saved.now_ms;
    state.ticks = saved.ticks;
    state.status = status_of(&saved.status.0);
    state.live = status_of(&saved.status.1);
    state.redirect_live = saved.redirect_live;
    for st in &saved.stimuli {
        let target = kept_paths.get(st.at.as_str()).copied().filter(|&t| {
            // A stimulus competes in a prioritized list or selector of the
            // main tree.
            t < program.detached_start && program.nodes[t as usize].kind.info().stimulus_target
        });
        let (Some(target), Some(&root)) = (target, program.detached.get(&st.behavior)) else {
            report
                .not_kept
                .push(format!("stimulus {} at {}", st.behavior, st.at));
            continue;
        };
        state.stimuli.push(Stimulus {
            target,
            root,
            priority: st.priority,
            expires_ms: st.expires_ms,
            duration_ms: st.duration_ms,
        });
    }
    for (path, n) in &saved.impulses {
        if let Some(k) = program
            .impulses
            .iter()
            .position(|imp| &program.paths[imp.node as usize] == path)
        {
            state.mem.impulses_mut()[k] = *n;
        }
    }
    let mut slots = Vec::with_capacity(program.action_capacity());
    for a in &saved.actions {
        let Some(&node) = kept_paths.get(a.leaf.as_str()) else {
            continue;
        };
        let Some(info) = program.action_of(node) else {
            continue;
        };
        let Some(st) = crate::recorder::action_state_of(&a.state) else {
            continue;
        };
        slots.push(ActiveAction {
            id: info.id,
            node: crate::runtime::slot_node(node),
            state: st,
            started_ms: a.started_ms,
        });
        report.actions_kept += 1;
    }
    for (k, v) in &saved.blackboard {
        match program.bb_key(k) {
            Some(i) if v.is_none_or(|v| program.bb_types[i as usize].fit(v).is_some()) => {}
            _ => report.values_dropped.push(k.clone()),
        }
    }
    Ok((state, slots, report))
}

/// What changed between two versions of a tree, by node path.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TreeDiff {
    /// Paths only the new version has.
    pub added: Vec<String>,
    /// Paths only the old version has.
    pub removed: Vec<String>,
    /// Paths in both whose node changed (kind, parameters, guard,
    /// bindings, or its number of children).
    pub changed: Vec<String>,
    /// Nodes at a new path with an unchanged definition: (old, new).
    pub moved: Vec<(String, String)>,
    /// Blackboard keys (type, default) and tags declared otherwise, a line
    /// each: `+ blackboard "noise": int 0`, `~ blackboard "alarmed": bool
    /// false -> bool true`, `- tag "b"` (a key's default changes what every
    /// agent starts with, though no node changed).
    pub declarations: Vec<String>,
}

impl TreeDiff {
    /// Whether the versions are the same.
    pub fn is_empty(&self) -> bool {
        self.nodes_unchanged() && self.declarations.is_empty()
    }

    fn nodes_unchanged(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }

    /// One line: the counts and the first few paths (what the reload log
    /// and `wyrd diff` print).
    pub fn summary(&self) -> String {
        if self.is_empty() {
            return "no change".into();
        }
        if self.nodes_unchanged() {
            return format!(
                "no node changed; {} declaration(s) changed: {}",
                self.declarations.len(),
                self.declarations
                    .iter()
                    .take(3)
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let declared = if self.declarations.is_empty() {
            String::new()
        } else {
            format!("; {} declaration(s) changed", self.declarations.len())
        };
        let first: Vec<&str> = self
            .changed
            .iter()
            .chain(&self.added)
            .chain(&self.removed)
            .take(3)
            .map(String::as_str)
            .collect();
        format!(
            "{} changed, {} added, {} removed ({} moved): {}{declared}",
            self.changed.len(),
            self.added.len(),
            self.removed.len(),
            self.moved.len(),
            first.join(", ")
        )
    }
}

impl fmt::Display for TreeDiff {
    /// One line per change: `~ changed`, `+ added`, `- removed`,
    /// `> old -> new` (moved).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.changed {
            writeln!(f, "~ {p}")?;
        }
        for p in &self.added {
            writeln!(f, "+ {p}")?;
        }
        for p in &self.removed {
            writeln!(f, "- {p}")?;
        }
        for (a, b) in &self.moved {
            writeln!(f, "> {a} -> {b}")?;
        }
        for d in &self.declarations {
            writeln!(f, "{d}")?;
        }
        Ok(())
    }
}

/// The blackboard keys (type, default) and tags two versions of a tree
/// declare differently, a line each (see [`TreeDiff::declarations`]).
fn declaration_lines(a: &Program, b: &Program) -> Vec<String> {
    type Declared = std::collections::BTreeMap<String, String>;
    let keys = |p: &Program| -> Declared {
        p.blackboard_keys()
            .iter()
            .zip(p.blackboard_types())
            .zip(p.blackboard_defaults())
            .map(|((k, t), d)| {
                let shown = d.map_or_else(|| format!("{t} (unset)"), |v| format!("{t} {v}"));
                (k.clone(), shown)
            })
            .collect()
    };
    let (ka, kb) = (keys(a), keys(b));
    let mut lines = Vec::new();
    let names: std::collections::BTreeSet<&String> = ka.keys().chain(kb.keys()).collect();
    for k in names {
        match (ka.get(k), kb.get(k)) {
            (Some(x), Some(y)) if x != y => lines.push(format!("~ blackboard {k:?}: {x} -> {y}")),
            (Some(_), None) => lines.push(format!("- blackboard {k:?}")),
            (None, Some(y)) => lines.push(format!("+ blackboard {k:?}: {y}")),
            _ => {}
        }
    }
    for t in a.tag_names().iter().filter(|t| !b.tag_names().contains(t)) {
        lines.push(format!("- tag {t:?}"));
    }
    for t in b.tag_names().iter().filter(|t| !a.tag_names().contains(t)) {
        lines.push(format!("+ tag {t:?}"));
    }
    lines
}

/// The diff old → new by node path.
pub fn diff(old: &Program, new: &Program) -> TreeDiff {
    let old_at: HashMap<&str, usize> = old
        .paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let new_at: HashMap<&str, usize> = new
        .paths
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let mut d = TreeDiff::default();
    for (i, p) in new.paths.iter().enumerate() {
        match old_at.get(p.as_str()) {
            Some(&j) if old.signatures.get(j) != new.signatures.get(i) => d.changed.push(p.clone()),
            Some(_) => {}
            None => d.added.push(p.clone()),
        }
    }
    for p in &old.paths {
        if !new_at.contains_key(p.as_str()) {
            d.removed.push(p.clone());
        }
    }
    // A removed node whose definition reappears at an added path moved.
    for r in &d.removed {
        let sig = old.signatures[old_at[r.as_str()]];
        if let Some(a) = d
            .added
            .iter()
            .find(|a| new.signatures[new_at[a.as_str()]] == sig)
        {
            d.moved.push((r.clone(), a.clone()));
        }
    }
    d.declarations = declaration_lines(old, new);
    d
}
