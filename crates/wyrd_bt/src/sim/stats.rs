//! Node statistics from a flight recording (Groot2's log view): per node,
//! the ticks it spent running, its longest run, how often its status
//! changed, and how often it succeeded or failed, over the recorded window.

use crate::recorder::Recording;
use crate::status::{NodeState, Status};

/// What one node did over a recording.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodeStats {
    /// The node's path; a stimulus behavior's nodes under the node it was
    /// inserted at (`root/panic/Flee`), as in traces and scripts.
    pub path: String,
    /// Ticks that ended with the node running (the root: ticks that
    /// returned running).
    pub running_ticks: u64,
    /// The most ticks in a row it ended running.
    pub longest_run: u64,
    /// Status changes from one tick's end to the next.
    pub changes: u64,
    /// Successes: for an action leaf, the reports the tree took; for the
    /// root, the ticks that returned success; for other nodes, ticks that
    /// ended with it newly succeeded (a node that succeeds and starts again
    /// within one tick is seen running).
    pub successes: u64,
    /// Failures, counted as successes are.
    pub failures: u64,
}

impl NodeStats {
    fn is_quiet(&self) -> bool {
        self.running_ticks == 0 && self.changes == 0 && self.successes == 0 && self.failures == 0
    }
}

/// The statistics of every node that did something in the recording, in
/// tree order. Read from the recording alone (its start state and each
/// tick's status changes and action events): no tree is needed, and a
/// recording of an older version of a tree reads the same.
pub fn recording_stats(rec: &Recording) -> Vec<NodeStats> {
    let n = rec.paths.len();
    let mut status: Vec<Status> = (0..n)
        .map(|i| {
            rec.start
                .state
                .nodes
                .get(i)
                .map_or(Status::Idle, |b| NodeState::from_raw(*b).status())
        })
        .collect();
    let mut stats: Vec<NodeStats> = rec
        .paths
        .iter()
        .map(|p| NodeStats {
            path: p.clone(),
            ..Default::default()
        })
        .collect();
    // Action leaves count their reports (an action that succeeds and starts
    // again in one tick ends the tick running: its status does not show it).
    let mut leaf = vec![false; n];
    for t in &rec.ticks {
        for (node, _, _) in &t.actions {
            if let Some(l) = leaf.get_mut(*node as usize) {
                *l = true;
            }
        }
    }
    let mut run = vec![0u64; n];
    for t in &rec.ticks {
        for &(node, old, new) in &t.nodes {
            let i = node as usize;
            let (Some(s), Some(now)) = (stats.get_mut(i), status.get_mut(i)) else {
                continue;
            };
            let (was, is) = (
                NodeState::from_raw(old).status(),
                NodeState::from_raw(new).status(),
            );
            if was != is {
                s.changes += 1;
                if !leaf[i] && i != 0 {
                    match is {
                        Status::Success => s.successes += 1,
                        Status::Failure => s.failures += 1,
                        _ => {}
                    }
                }
            }
            *now = is;
        }
        for (node, event, _) in &t.actions {
            let Some(s) = stats.get_mut(*node as usize) else {
                continue;
            };
            match event.as_str() {
                "success" => s.successes += 1,
                "failure" => s.failures += 1,
                _ => {}
            }
        }
        // The root: what the tick returned (a repeating root that finishes
        // starts again within the tick, so its state would say running).
        let root = match t.status.as_str() {
            "success" => Status::Success,
            "failure" => Status::Failure,
            "running" => Status::Running,
            _ => Status::Idle,
        };
        if let Some(s) = stats.first_mut() {
            match root {
                Status::Success => s.successes += 1,
                Status::Failure => s.failures += 1,
                _ => {}
            }
        }
        for i in 0..n {
            let now = if i == 0 { root } else { status[i] };
            if now == Status::Running {
                run[i] += 1;
                stats[i].running_ticks += 1;
                stats[i].longest_run = stats[i].longest_run.max(run[i]);
            } else {
                run[i] = 0;
            }
        }
    }
    stats.retain(|s| !s.is_quiet());
    for s in &mut stats {
        if let Some(shown) = stimulus_path(rec, &s.path) {
            s.path = shown;
        }
    }
    stats
}

/// A stimulus behavior's node under the node the behavior was inserted at
/// (`~panic/Flee` inserted at `root`: `root/panic/Flee`), as traces and
/// scripts name it; `None` for a node of the tree itself, or a behavior
/// inserted at several nodes in the recording (its own name stays).
fn stimulus_path(rec: &Recording, path: &str) -> Option<String> {
    let inner = path.strip_prefix('~')?;
    let behavior = inner.split('/').next()?;
    let at_start = rec.start.state.stimuli.iter().filter_map(|s| {
        let root = rec.paths.get(s.root as usize)?;
        (root.trim_start_matches('~') == behavior)
            .then(|| rec.paths.get(s.target as usize))
            .flatten()
    });
    let inserted = rec
        .ticks
        .iter()
        .flat_map(|t| &t.stimuli)
        .filter(|s| s.behavior == behavior)
        .map(|s| &s.at);
    let mut targets = at_start.chain(inserted);
    let first = targets.next()?;
    targets
        .all(|t| t == first)
        .then(|| format!("{first}/{inner}"))
}

/// The statistics as a table, one line per node (what `wyrd sim --replay
/// FILE --stats` prints).
pub fn stats_table(stats: &[NodeStats]) -> String {
    let width = stats.iter().map(|s| s.path.len()).max().unwrap_or(4).max(4);
    let mut out = format!(
        "{:<width$}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}\n",
        "node", "running", "longest", "changes", "success", "failure"
    );
    for s in stats {
        out.push_str(&format!(
            "{:<width$}  {:>7}  {:>7}  {:>7}  {:>7}  {:>7}\n",
            s.path, s.running_ticks, s.longest_run, s.changes, s.successes, s.failures
        ));
    }
    out
}
