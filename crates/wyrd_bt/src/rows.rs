//! The live state of an agent's tree as plain rows, one per node (path,
//! kind, status, rule flags, bound parameters, guard...), and the crowd
//! counts of a tree over many agents: what debuggers show, the in-game
//! inspector and tools over the Bevy Remote Protocol alike.

use crate::breakpoints::{BreakOn, BreakpointsDef};
use crate::program::Program;
use crate::runtime::AgentState;
use crate::status::Status;
use crate::view::NodeView;

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
    pub breaks: Vec<BreakOn>,
}

/// An action's parameters as bound at its place (keys as `{key}`).
fn params_text(program: &Program, n: &NodeView<'_>) -> String {
    let Some(a) = n.action() else {
        return String::new();
    };
    a.params()
        .iter()
        .map(|(k, v)| match v {
            crate::Param::Key { key, .. } => format!(
                "{k}={{{}}}",
                program
                    .blackboard_keys()
                    .get(*key as usize)
                    .map_or("?", String::as_str)
            ),
            crate::Param::Const(c) => format!("{k}={c}"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The rows of a program's tree for one agent.
pub fn tree_rows(program: &Program, state: &AgentState, tags: u64) -> Vec<NodeRow> {
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
        let left = state.stimulus_time_left(st.root()).unwrap_or(0.0);
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
    states: impl IntoIterator<Item = &'a AgentState>,
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
pub fn running_names(program: &Program, state: &AgentState) -> String {
    (0..program.main_len() as u32)
        .filter(|&i| state.node(i).status() == Status::Running)
        .map(|i| program.name(i))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Marks the rows that have node breakpoints in these breakpoints.
pub fn apply_breakpoints(rows: &mut [NodeRow], breakpoints: &BreakpointsDef) {
    for row in rows {
        row.breaks = breakpoints
            .breakpoints
            .iter()
            .filter(|b| b.node.as_deref() == Some(row.path.as_str()) && b.agent.is_none())
            .map(|b| b.on.unwrap_or_default())
            .collect();
    }
}
