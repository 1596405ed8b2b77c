//! Plain data the panels draw: taken from the world only while the
//! inspector is open.

use wyrd_bt::{Kind, Program, Status, rule};

/// One agent in the list.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRow {
    /// Name or entity.
    pub label: String,
    /// Its tree's file.
    pub tree: String,
    /// Root status after the last tick.
    pub status: Status,
}

/// One node of the selected agent's tree, in depth-first order.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeRow {
    /// Depth (indentation).
    pub depth: usize,
    /// Kind (`Sequence`, `Action`...).
    pub kind: String,
    /// Last path segment.
    pub name: String,
    /// Full path.
    pub path: String,
    /// Status after the last tick.
    pub status: Status,
    /// Rule flags as letters (`PCWD`).
    pub flags: String,
    /// On the running path (a running node whose parent runs it).
    pub running: bool,
    /// Masked out by the agent's tags.
    pub masked: bool,
    /// Decorator state, impulse or stimulus notes ("cooldown 0.3 s").
    pub note: String,
    /// Whether the node has children (collapsible).
    pub has_children: bool,
}

/// The selected agent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TreeSnapshot {
    /// The agent.
    pub label: String,
    /// Nodes in tree order.
    pub nodes: Vec<NodeRow>,
    /// Blackboard keys and values.
    pub blackboard: Vec<(String, String)>,
    /// Tags and whether set.
    pub tags: Vec<(String, bool)>,
    /// Impulses: name, behavior, times fired.
    pub impulses: Vec<(String, String, u32)>,
}

/// What happened to a node of the selected agent, for the history: the
/// events of the tick trace (`wyrd sim` prints the same ones) and status
/// changes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HistoryEvent {
    /// The node's status changed.
    Status {
        /// From.
        from: Status,
        /// To.
        to: Status,
    },
    /// The tree started this action.
    Started,
    /// The tree took the action's report.
    Finished(Status),
    /// The tree stopped this action.
    Aborted,
}

/// One entry of the selected agent's history.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryEntry {
    /// Agent tick.
    pub tick: u64,
    /// Node path.
    pub path: String,
    /// What happened.
    pub event: HistoryEvent,
}

impl HistoryEntry {
    /// One line: `tick 12: root/fight/Shoot aborted`.
    pub fn line(&self) -> String {
        let what = match self.event {
            HistoryEvent::Status { from, to } => format!("{} -> {}", from.as_str(), to.as_str()),
            HistoryEvent::Started => "started".into(),
            HistoryEvent::Finished(s) => format!("finished ({})", s.as_str()),
            HistoryEvent::Aborted => "aborted".into(),
        };
        format!("tick {}: {} {what}", self.tick, self.path)
    }
}

/// A flag or counter.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldRow {
    /// Debug name.
    pub name: String,
    /// `Some(bool)` for flags.
    pub flag: Option<bool>,
    /// The counter's value (flags: 0/1).
    pub value: i64,
    /// Default, as text.
    pub default: String,
    /// `Meta` or `Run`.
    pub scope: String,
    /// Version.
    pub version: u32,
}

/// The save slot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SaveRow {
    /// The save folder.
    pub path: String,
    /// The documents committed together.
    pub documents: String,
    /// One line: saved / unsaved changes / SAVE FAILED … / paused.
    pub status: String,
    /// Whether saving is failing or paused (shown in red).
    pub failing: bool,
    /// Where the last load came from.
    pub last_load: String,
    /// Last successful save, seconds since the Unix epoch.
    pub last_saved: Option<f64>,
    /// Last error.
    pub error: Option<String>,
}

/// Tick timing.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct TimingRow {
    /// Agents ticked per second.
    pub ticks_per_second: f32,
    /// Time in the decide set, last tick, ms.
    pub decide_ms: f32,
    /// Time in the act set, last tick, ms.
    pub act_ms: f32,
}

/// Everything the inspector shows.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InspectorSnapshot {
    /// Agents.
    pub agents: Vec<AgentRow>,
    /// Index of the selected agent in `agents`.
    pub selected: Option<usize>,
    /// Its tree.
    pub tree: Option<TreeSnapshot>,
    /// Its recent status changes, newest last.
    pub history: Vec<HistoryEntry>,
    /// World state.
    pub world: Vec<WorldRow>,
    /// Save status.
    pub save: Option<SaveRow>,
    /// Timing.
    pub timing: TimingRow,
}

/// The rows of a program's tree for one agent.
pub fn tree_rows(program: &Program, state: &wyrd_bt::AgentState, tags: u64) -> Vec<NodeRow> {
    let mut rows = Vec::with_capacity(program.main_len());
    for i in 0..program.main_len() {
        let n = &program.nodes[i];
        let s = state.nodes.get(i).copied().unwrap_or_default();
        let masked = tags & n.tags_all != n.tags_all
            || (n.tags_any != 0 && tags & n.tags_any == 0)
            || tags & n.tags_not != 0;
        let kind = match n.kind {
            Kind::Action { action } => format!("Action {}", program.actions[action as usize].name),
            k => k.name().to_owned(),
        };
        let note = match n.kind {
            Kind::Cooldown { ms } if n.aux != wyrd_bt::NONE => {
                let last = state.aux.get(n.aux as usize).copied().unwrap_or(0);
                let left = if last == 0 {
                    0
                } else {
                    (last - 1 + ms).saturating_sub(state.now_ms)
                };
                if left > 0 {
                    format!("cooldown {:.1} s", left as f32 / 1000.0)
                } else {
                    String::new()
                }
            }
            Kind::Repeat { count } if n.aux != wyrd_bt::NONE => {
                let done = state.aux.get(n.aux as usize).copied().unwrap_or(0);
                if count == 0 {
                    format!("repeat {done}")
                } else {
                    format!("repeat {done}/{count}")
                }
            }
            Kind::Impulse { .. } => "impulse".into(),
            Kind::RetryUntilSuccessful { attempts } if n.aux != wyrd_bt::NONE => {
                let failed = state.aux.get(n.aux as usize).copied().unwrap_or(0);
                if attempts == 0 {
                    format!("failed {failed}")
                } else {
                    format!("failed {failed}/{attempts}")
                }
            }
            Kind::RunOnce { .. } if n.aux != wyrd_bt::NONE => {
                match state.aux.get(n.aux as usize).copied().unwrap_or(0) {
                    0 => String::new(),
                    _ => "ran once".into(),
                }
            }
            _ => String::new(),
        };
        let parent_running = n.parent == wyrd_bt::NONE
            || state
                .nodes
                .get(n.parent as usize)
                .is_some_and(|p| p.status() == Status::Running);
        rows.push(NodeRow {
            depth: n.depth as usize,
            kind,
            name: program.name(i as u32).to_owned(),
            path: program.paths[i].clone(),
            status: s.status(),
            flags: rule::letters(s.flags()),
            running: s.status() == Status::Running
                && s.flags() & rule::PAUSED == 0
                && parent_running,
            masked,
            note,
            has_children: n.child_count > 0,
        });
    }
    // Inserted stimuli appear under the node they compete in.
    for st in &state.stimuli {
        let root = st.root as usize;
        let end = program.nodes[root].end as usize;
        let base = program.nodes[st.target as usize].depth as usize + 1;
        let at = rows
            .iter()
            .position(|r| r.path == program.paths[st.target as usize])
            .map_or(rows.len(), |p| p + 1);
        let left = st.expires_ms.saturating_sub(state.now_ms) as f32 / 1000.0;
        let mut inserted = Vec::new();
        for j in root..end {
            let n = &program.nodes[j];
            let s = state.nodes[j];
            inserted.push(NodeRow {
                depth: base + n.depth as usize,
                kind: n.kind.name().to_owned(),
                name: program.name(j as u32).trim_start_matches('~').to_owned(),
                path: state.display_path(program, j as u32),
                status: s.status(),
                flags: rule::letters(s.flags()),
                running: s.status() == Status::Running,
                masked: false,
                note: if j == root {
                    format!("stimulus {left:.1} s")
                } else {
                    String::new()
                },
                has_children: n.child_count > 0,
            });
        }
        rows.splice(at..at, inserted);
    }
    rows
}
