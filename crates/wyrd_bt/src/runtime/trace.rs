//! What one tick did, for tools: the nodes it ticked and the actions it
//! started, finished and aborted. `wyrd sim`, the inspector's history and
//! tests share this one event type.

use super::Status;

/// What happened to an action leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionEvent {
    /// The tree started it.
    Started,
    /// The tree took the game's report (success or failure).
    Finished(Status),
    /// The tree stopped it (interrupted, a broken guard, a timeout, a
    /// parallel's decision, ...).
    Aborted,
}

/// The events of one tick (node indexes into the program), in the order
/// they happened. Filled by
/// [`tick_agent_traced`](crate::tick_agent_traced); buffers are reused from
/// tick to tick.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TickTrace {
    /// Nodes ticked, in order (a node ticked twice appears twice).
    pub ticked: Vec<u32>,
    /// Action events, in order.
    pub actions: Vec<(u32, ActionEvent)>,
}

impl TickTrace {
    /// Empties the buffers (keeps their memory).
    pub fn clear(&mut self) {
        self.ticked.clear();
        self.actions.clear();
    }

    /// Action leaves started.
    pub fn started(&self) -> impl Iterator<Item = u32> + '_ {
        self.of(|e| e == ActionEvent::Started)
    }

    /// Action leaves finished (the tree took their report).
    pub fn finished(&self) -> impl Iterator<Item = u32> + '_ {
        self.of(|e| matches!(e, ActionEvent::Finished(_)))
    }

    /// Action leaves aborted.
    pub fn aborted(&self) -> impl Iterator<Item = u32> + '_ {
        self.of(|e| e == ActionEvent::Aborted)
    }

    fn of(&self, f: fn(ActionEvent) -> bool) -> impl Iterator<Item = u32> + '_ {
        self.actions
            .iter()
            .filter(move |(_, e)| f(*e))
            .map(|(n, _)| *n)
    }

    /// Action leaves aborted and then started again in this tick: the
    /// dithering the semantics forbid (always empty).
    pub fn restarted(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for (k, &(n, e)) in self.actions.iter().enumerate() {
            if e == ActionEvent::Aborted
                && self.actions[k + 1..]
                    .iter()
                    .any(|&(m, f)| m == n && f == ActionEvent::Started)
                && !out.contains(&n)
            {
                out.push(n);
            }
        }
        out
    }
}
