//! Plain data the panels draw: taken from the world only while the
//! inspector is open.

use wyrd_bt::{Program, Status};

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
    /// An action's parameters as bound at its place (`at={target}
    /// range=12`), else empty.
    pub params: String,
    /// What it checks (its guard), else empty.
    pub guard: String,
    /// The crowd: how many agents of the same tree have this node running
    /// now (0 when not counted).
    pub crowd: u32,
    /// Breakpoints on this node (`aborted`, `running`...), set from the
    /// inspector or a breakpoints file.
    pub breaks: Vec<wyrd_bt::BreakOn>,
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
    /// Trees are paused (see [`BtSettings::paused`](wyrd_bt::BtSettings::paused)).
    pub paused: bool,
    /// The last hot reloads of trees (what changed, who kept their state).
    pub reloads: Vec<String>,
    /// The breakpoint the trees stopped at, one line (while paused by it).
    pub stopped_at: Option<String>,
}

/// An action's parameters as bound at its place (keys as `{key}`).
fn params_text(program: &Program, n: &wyrd_bt::NodeView<'_>) -> String {
    let Some(a) = n.action() else {
        return String::new();
    };
    a.params()
        .iter()
        .map(|(k, v)| match v {
            wyrd_bt::Param::Key { key, .. } => format!(
                "{k}={{{}}}",
                program
                    .blackboard_keys()
                    .get(*key as usize)
                    .map_or("?", String::as_str)
            ),
            wyrd_bt::Param::Const(c) => format!("{k}={c}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rows of a program's tree for one agent.
pub fn tree_rows(program: &Program, state: &wyrd_bt::AgentState, tags: u64) -> Vec<NodeRow> {
    let mut rows = Vec::with_capacity(program.main_len());
    for n in program.nodes() {
        let i = n.index();
        let s = state.node(i);
        let note = if n.impulse().is_some() {
            "impulse".to_owned()
        } else {
            state
                .progress(program, i)
                .map_or_else(String::new, |p| p.to_string())
        };
        rows.push(NodeRow {
            params: params_text(program, &n),
            guard: n.check_text(),
            depth: n.depth(),
            kind: n.label(),
            name: n.name().to_owned(),
            path: n.path().to_owned(),
            status: s.status(),
            flags: s.flags().to_string(),
            running: state.is_live(program, i),
            masked: !n.runs_with_tags(tags),
            note,
            has_children: n.child_count() > 0,
            crowd: 0,
            breaks: Vec::new(),
        });
    }
    // Inserted stimuli appear under the node they compete in.
    for st in state.stimuli() {
        let root = program.view(st.root());
        let target = program.view(st.target());
        let base = target.depth() + 1;
        let at = rows
            .iter()
            .position(|r| r.path == target.path())
            .map_or(rows.len(), |p| p + 1);
        let left = st.expires_ms().saturating_sub(state.now_ms()) as f32 / 1000.0;
        let inserted = program
            .all_nodes()
            .filter(|n| root.contains(n.index()))
            .map(|n| {
                let s = state.node(n.index());
                NodeRow {
                    params: params_text(program, &n),
                    guard: n.check_text(),
                    depth: base + n.depth(),
                    kind: n.label(),
                    name: n.name().trim_start_matches('~').to_owned(),
                    path: state.display_path(program, n.index()),
                    status: s.status(),
                    flags: s.flags().to_string(),
                    running: s.status() == Status::Running,
                    masked: false,
                    note: if n.index() == root.index() {
                        format!("stimulus {left:.1} s")
                    } else {
                        String::new()
                    },
                    has_children: n.child_count() > 0,
                    crowd: 0,
                    breaks: Vec::new(),
                }
            })
            .collect::<Vec<_>>();
        rows.splice(at..at, inserted);
    }
    rows
}

/// The crowd view: per node of `program` (by index), how many of these
/// agents' states have it running now. Computed from the states, only
/// while the panel is open.
pub fn crowd_counts<'a>(
    program: &Program,
    states: impl IntoIterator<Item = &'a wyrd_bt::AgentState>,
) -> Vec<u32> {
    let n = program.main_len();
    let mut counts = vec![0u32; n];
    for st in states {
        for (i, c) in counts.iter_mut().enumerate() {
            if st.node(i as u32).status() == Status::Running {
                *c += 1;
            }
        }
    }
    counts
}

/// Puts the crowd counts on the rows of the tree they were counted for.
pub fn apply_crowd(rows: &mut [NodeRow], program: &Program, counts: &[u32]) {
    for row in rows {
        row.crowd = program
            .node(&row.path)
            .and_then(|i| counts.get(i as usize))
            .copied()
            .unwrap_or(0);
    }
}

/// The names of an agent's running nodes, space-separated (an agent row's
/// `active`, for the list's `running:NAME` filter).
pub fn running_names(program: &Program, state: &wyrd_bt::AgentState) -> String {
    (0..program.main_len() as u32)
        .filter(|&i| state.node(i).status() == Status::Running)
        .map(|i| program.name(i))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Marks the rows that have node breakpoints in these breakpoints.
pub fn apply_breakpoints(rows: &mut [NodeRow], breakpoints: &wyrd_bt::BreakpointsDef) {
    for row in rows {
        row.breaks = breakpoints
            .breakpoints
            .iter()
            .filter(|b| b.node.as_deref() == Some(row.path.as_str()) && b.agent.is_none())
            .map(|b| b.on.unwrap_or_default())
            .collect();
    }
}
