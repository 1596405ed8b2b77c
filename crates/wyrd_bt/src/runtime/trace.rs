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

/// A `Utility` child's score in a tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChildScore {
    /// The `Utility` node.
    pub utility: u32,
    /// The child node.
    pub child: u32,
    /// Its score; `None`: not relevant (its tags or guard), not an option.
    pub score: Option<f32>,
}

/// Why a `Utility` ran the child it ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UtilityReason {
    /// Nothing was running: the best option that started (better ones
    /// that failed to start are in the tick's `ticked`).
    Best,
    /// It beat the running child `over` by `by`, more than the margin.
    Beat {
        /// The child it replaced.
        over: u32,
        /// By how much its score was higher.
        by: f32,
    },
    /// The running child went on: no option beat it by more than the
    /// margin (or those that did failed to start).
    Kept,
    /// The running child went on: it is within its commitment time.
    Committed,
    /// The running child succeeded: the `Utility` succeeds.
    Done,
    /// No option could run: the `Utility` failed.
    Nothing,
}

/// What a `Utility` decided in a tick.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UtilityChoice {
    /// The `Utility` node.
    pub utility: u32,
    /// The child it ran ([`NONE`](crate::NONE): none).
    pub chosen: u32,
    /// Why.
    pub reason: UtilityReason,
    /// It tied with another option (the tie rule picked it).
    pub tie: bool,
    /// Where its scores are in the tick's
    /// [`scores`](TickTrace::scores) (one per child from here).
    pub scores_at: u32,
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
    /// Scores of `Utility` children, each time a `Utility` decided.
    pub scores: Vec<ChildScore>,
    /// What each `Utility` decided, in order.
    pub choices: Vec<UtilityChoice>,
}

impl TickTrace {
    /// Empties the buffers (keeps their memory).
    pub fn clear(&mut self) {
        self.ticked.clear();
        self.actions.clear();
        self.scores.clear();
        self.choices.clear();
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

/// One `Utility`'s decision in a tick: the scores it saw and its choice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UtilityDecision<'a> {
    /// What it decided.
    pub choice: UtilityChoice,
    /// Its children's scores, in child order.
    pub scores: &'a [ChildScore],
}

impl TickTrace {
    /// Every `Utility` decision of the tick with the scores it saw, in the
    /// order they were made (a nested `Utility` decides before its parent
    /// does).
    pub fn decisions(&self) -> impl Iterator<Item = UtilityDecision<'_>> + '_ {
        self.choices.iter().map(|choice| {
            // Its run: from `at`, while the scores are of its children (in
            // increasing order: a repeat of the same Utility starts over).
            let at = (choice.scores_at as usize).min(self.scores.len());
            let mut end = at;
            while end < self.scores.len()
                && self.scores[end].utility == choice.utility
                && (end == at || self.scores[end].child > self.scores[end - 1].child)
            {
                end += 1;
            }
            UtilityDecision {
                choice: *choice,
                scores: &self.scores[at..end],
            }
        })
    }
}

impl UtilityChoice {
    /// Why, in words, nodes named by `name`: `best`, `beat flee by 0.32`,
    /// `kept`, `committed`, `done`, `nothing to run`; `, tie` when the tie
    /// rule picked it.
    pub fn why(&self, name: impl Fn(u32) -> String) -> String {
        let mut s = match self.reason {
            UtilityReason::Best => "best".to_owned(),
            UtilityReason::Beat { over, by } => format!("beat {} by {by:.2}", name(over)),
            UtilityReason::Kept => "kept".to_owned(),
            UtilityReason::Committed => "committed".to_owned(),
            UtilityReason::Done => "done".to_owned(),
            UtilityReason::Nothing => "nothing to run".to_owned(),
        };
        if self.tie {
            s.push_str(", tie");
        }
        s
    }
}
