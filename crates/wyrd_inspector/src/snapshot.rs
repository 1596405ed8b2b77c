//! Plain data the panels draw: taken from the world only while the
//! inspector is open.

use wyrd_bt::Status;

pub use wyrd_bt::rows::NodeRow;

/// One agent in the list.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentRow {
    /// Name or entity.
    pub label: String,
    /// Its tree's file.
    pub tree: String,
    /// Root status after the last tick.
    pub status: Status,
    /// The names of its running nodes, space-separated, while the list is
    /// filtered with `running:NAME` (empty otherwise).
    pub active: String,
    /// What it does: its running leaves' names, for the rows the list
    /// shows (the first [`MAX_AGENT_ROWS`](crate::MAX_AGENT_ROWS) and the
    /// selected one; empty for the others).
    pub doing: String,
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
    /// The flight recorder's ticks, when the agent records.
    pub timeline: Option<TimelineRow>,
    /// At the tick shown: why nodes changed (one line each).
    pub why: Vec<String>,
    /// At the tick shown: the blackboard keys written before it.
    pub changed_keys: Vec<String>,
    /// The agent can record (a live agent, not the evaluation).
    pub recordable: bool,
    /// How many agents run the same tree (the crowd the nodes' counts are
    /// out of).
    pub crowd_agents: usize,
    /// How many breakpoints the tree has (any node, action or condition).
    pub breakpoints: usize,
    /// Node statistics over the recorded window (Groot2's log view), when
    /// the agent records.
    pub stats: Vec<wyrd_bt::sim::NodeStats>,
}

/// The recorded ticks of the selected agent.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TimelineRow {
    /// The oldest recorded tick.
    pub first: u64,
    /// The newest.
    pub last: u64,
    /// The tick shown (`None`: live).
    pub shown: Option<u64>,
    /// Ticks worth a marker: `S` an action started, `A` one was aborted,
    /// `!` a stimulus was inserted, `I` an impulse took over.
    pub marks: Vec<(u64, char)>,
    /// What the last "save" of a recording wrote (or why it could not).
    pub saved: Option<String>,
}

/// What happened to a node of the selected agent, for the history: the
/// events of the tick trace (`wyrd sim` prints the same ones) and status
/// changes.
#[derive(Debug, Clone, PartialEq)]
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
    /// This `Utility` ran another child (or none): its choice, the
    /// children's scores and why it won (`eat: eat=0.80 sleep=0.48 (beat
    /// sleep by 0.32)`).
    Chose(String),
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
        let what = match &self.event {
            HistoryEvent::Status { from, to } => format!("{} -> {}", from.as_str(), to.as_str()),
            HistoryEvent::Started => "started".into(),
            HistoryEvent::Finished(s) => format!("finished ({})", s.as_str()),
            HistoryEvent::Aborted => "aborted".into(),
            HistoryEvent::Chose(what) => format!("chose {what}"),
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
    /// Trees are paused (see [`BtSettings::paused`](wyrd_bt::BtSettings::paused)).
    pub paused: bool,
    /// The last hot reloads of trees (what changed, who kept their state).
    pub reloads: Vec<String>,
    /// The breakpoint the trees stopped at, one line (while paused by it).
    pub stopped_at: Option<String>,
}
