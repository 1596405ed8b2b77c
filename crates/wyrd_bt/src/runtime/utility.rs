//! Utility selection: each relevant child scores, the best one runs, and
//! a running child is kept against near-ties (its margin and commitment).
//!
//! The rules, as the conformance cases check them (`tests/bt/utility.rs`):
//! - every tick, each relevant child (tags and guards, as a prioritized
//!   list asks) scores: its considerations combined, times its weight; a
//!   child not relevant, or scoring 0 or less, is not an option;
//! - with nothing running, the options are tried from the best score
//!   down: the first that runs or succeeds is the Utility's; if all fail,
//!   it fails;
//! - a running child is kept unless an option beats its score by more
//!   than `margin` (its inertia), and never within `commit` seconds of
//!   its start; a challenger is tried first and replaces it only if it
//!   takes over (runs or succeeds): one that fails at once leaves the
//!   running child alone, so no action is aborted and restarted in a tick;
//! - a running child that succeeds ends the Utility with success; one that
//!   fails gives way to the other options, best first;
//! - a running child that the game's report ends takes it before any
//!   challenger is tried: a game that finishes an action and changes the
//!   inputs in the same step (eating lowers hunger) sees the action end,
//!   not aborted by the scores its own finishing changed. The report ends
//!   the child when the child is that action, or a sequence or selector
//!   (nested) that the action's result ends: the last action of a
//!   sequence succeeding, any failing (or only conditions after it). A
//!   child that goes on (a sequence's first action done) meets its
//!   challengers first;
//! - equal scores: the agent's seeded random numbers pick (drawn only on
//!   a tie), or with `ties: First` the first in the list (StateTree).

use super::trace::{ChildScore, UtilityChoice, UtilityReason};
use super::{Interp, Status};
use crate::program::{Kind, MAX_OPTIONS, NONE, ScoreSource, UtilityInfo};

/// "No child" in a Utility's cursor.
const UNCHOSEN: u16 = u16::MAX;

/// A Utility's aux word (the start of its running child's commitment) once
/// a walk saw the commitment end: quiet ticks may skip their walk again
/// (see `commitment_ended`). A commitment starting at this agent time is
/// stored a millisecond earlier (`choose`).
pub(crate) const COMMIT_OVER: u32 = u32::MAX;

/// The best option: its index, and whether it tied with another.
struct Pick {
    k: usize,
    tie: bool,
}

impl Interp<'_> {
    #[inline(always)]
    pub(super) fn tick_utility(&mut self, i: u32, kind: Kind) -> Status {
        match kind {
            Kind::Utility {
                utility,
                commit_ms,
                random,
            } => self.utility(i, utility, commit_ms, random),
            _ => unreachable!("{} is not a utility selector", kind.name()),
        }
    }

    /// A walk that draws a random number here (a tie) is not one a quiet
    /// tick may stand for: skipped, the draw would not happen, and the
    /// agent's random numbers would part from a tree that walks every tick
    /// (a replay's): it counts as unsettled, and the next tick walks.
    fn utility(&mut self, i: u32, u: u32, commit_ms: u32, random: bool) -> Status {
        let rng_before = self.st.mem.rng();
        let status = self.utility_walk(i, u, commit_ms, random);
        if self.st.mem.rng() != rng_before {
            self.unsettled = true;
        }
        status
    }

    fn utility_walk(&mut self, i: u32, u: u32, commit_ms: u32, random: bool) -> Status {
        let info = self.p.utilities[u as usize];
        let count = self.child_count(i);
        let mut scores = [f32::NEG_INFINITY; MAX_OPTIONS];
        for (k, score) in scores.iter_mut().enumerate().take(count) {
            if self.relevant(self.child(i, k)) {
                *score = self.score(&info, k);
            }
        }
        let at = self.trace_scores(i, &scores[..count]);
        let mut tried = 0u64;
        let mut running = self.cursor_of(i);
        if running != UNCHOSEN && self.status_of(self.child(i, running as usize)) != Status::Running
        {
            running = UNCHOSEN;
        }
        if running != UNCHOSEN {
            let r = running as usize;
            tried |= 1 << r;
            let start = *self.aux_of(i);
            let committed =
                commit_ms > 0 && start != COMMIT_OVER && !self.elapsed(start, commit_ms);
            if commit_ms > 0 && !committed {
                // Seen over: it no longer wakes a quiet agent.
                *self.aux_of(i) = COMMIT_OVER;
            }
            // A child that the game's report ends takes it before any
            // challenger is tried: the game finished it, often changing the
            // very inputs that now favour another option (eating lowers
            // hunger). (Only when the report ends it: a child that goes on
            // meets its challengers.)
            let reported = self.report_ends(self.child(i, r));
            if !committed && !reported {
                // The running child's inertia: beaten by more than the margin.
                let bar = scores[r].max(0.0) + info.margin;
                while let Some(p) = self.best(&scores[..count], tried, bar, random) {
                    tried |= 1 << p.k;
                    let c = self.child(i, p.k);
                    let s = self.tick_node(c);
                    if matches!(s, Status::Running | Status::Success) {
                        let rc = self.child(i, r);
                        self.halt(rc);
                        let by = scores[p.k] - scores[r].max(0.0);
                        let reason = UtilityReason::Beat { over: rc, by };
                        self.choose(i, p, s, (reason, at));
                        return s;
                    }
                }
            }
            let rc = self.child(i, r);
            match self.tick_node(rc) {
                Status::Running => {
                    let reason = if committed {
                        UtilityReason::Committed
                    } else {
                        UtilityReason::Kept
                    };
                    self.trace_choice(i, rc, (reason, at), false);
                    return Status::Running;
                }
                Status::Success => {
                    self.set_cursor_at(i as usize, UNCHOSEN);
                    self.trace_choice(i, rc, (UtilityReason::Done, at), false);
                    return Status::Success;
                }
                // It failed: the other options, best first.
                _ => {}
            }
        }
        while let Some(p) = self.best(&scores[..count], tried, 0.0, random) {
            tried |= 1 << p.k;
            let s = self.tick_node(self.child(i, p.k));
            if matches!(s, Status::Running | Status::Success) {
                self.choose(i, p, s, (UtilityReason::Best, at));
                return s;
            }
        }
        self.set_cursor_at(i as usize, UNCHOSEN);
        self.trace_choice(i, NONE, (UtilityReason::Nothing, at), false);
        Status::Failure
    }

    /// Child `p` took over with status `s`: remembered while it runs, with
    /// its start (for the commitment).
    fn choose(&mut self, i: u32, p: Pick, s: Status, reason: (UtilityReason, u32)) {
        let kept = if s == Status::Running {
            p.k as u16
        } else {
            UNCHOSEN
        };
        self.set_cursor_at(i as usize, kept);
        // A start at the mark's own time would read as a commitment over:
        // a millisecond earlier is within the ticks' rounding.
        let now = self.st.now_ms;
        *self.aux_of(i) = if now == COMMIT_OVER { now - 1 } else { now };
        let c = self.child(i, p.k);
        self.trace_choice(i, c, reason, p.tie);
    }

    /// The best untried option scoring more than `floor`; among equal
    /// scores a random one (`random`, drawn only on a tie) or the first.
    fn best(&mut self, scores: &[f32], tried: u64, floor: f32, random: bool) -> Option<Pick> {
        let mut top = f32::NEG_INFINITY;
        let mut first = usize::MAX;
        let mut equal = 0u64;
        for (k, &s) in scores.iter().enumerate() {
            if tried & (1 << k) != 0 || s <= floor {
                continue;
            }
            if s > top {
                (top, first, equal) = (s, k, 0);
            }
            if s == top {
                equal += 1;
            }
        }
        if first == usize::MAX {
            return None;
        }
        if equal < 2 || !random {
            return Some(Pick {
                k: first,
                tie: equal > 1,
            });
        }
        let nth = self.next_random() % equal;
        let k = (first..scores.len())
            .filter(|&k| tried & (1 << k) == 0 && scores[k] == top)
            .nth(nth as usize)
            .unwrap_or(first);
        Some(Pick { k, tie: true })
    }

    /// Child `k`'s score: its considerations combined, times its weight.
    fn score(&self, info: &UtilityInfo, k: usize) -> f32 {
        let s = self.p.scores[info.scores as usize + k];
        if s.len == 0 {
            return s.weight;
        }
        let list = &self.p.considerations[s.first as usize..(s.first + s.len) as usize];
        let values = list
            .iter()
            .map(|c| (c.value(self.score_input(c.source)), c.weight));
        info.combine.of(values, list.len()) * s.weight
    }

    /// A consideration's input value: numbers as they are, bools 0 / 1;
    /// unset keys and unknown world values read 0 (an unset key is noted
    /// for the plugin's report, as a condition's).
    fn score_input(&self, source: ScoreSource) -> f32 {
        let number = |v: crate::value::Value| crate::compile::score_number(v).unwrap_or(0.0);
        match source {
            ScoreSource::Key(key) => match self.bb.get_index(key) {
                Some(v) => number(v),
                None => {
                    self.unset(key);
                    0.0
                }
            },
            ScoreSource::Global(slot) => match self.globals.get(slot as usize) {
                Some(Some(v)) => number(*v),
                _ => 0.0,
            },
            ScoreSource::Cond(c) => {
                if self.test(c) {
                    1.0
                } else {
                    0.0
                }
            }
            ScoreSource::Const(x) => x,
        }
    }

    /// Records the scores when the tick is traced; returns where they are
    /// in the trace.
    fn trace_scores(&mut self, i: u32, scores: &[f32]) -> u32 {
        let Some(t) = self.trace.as_deref_mut() else {
            return 0;
        };
        let at = t.scores.len() as u32;
        let first = self.p.nodes[i as usize].first_child as usize;
        for (k, &s) in scores.iter().enumerate() {
            t.scores.push(ChildScore {
                utility: i,
                child: self.p.children[first + k],
                score: (s > f32::NEG_INFINITY).then_some(s),
            });
        }
        at
    }

    /// Records a decision (`reason` with where its scores are in the
    /// trace) when the tick is traced.
    fn trace_choice(&mut self, i: u32, chosen: u32, reason: (UtilityReason, u32), tie: bool) {
        if let Some(t) = self.trace.as_deref_mut() {
            t.choices.push(UtilityChoice {
                utility: i,
                chosen,
                reason: reason.0,
                tie,
                scores_at: reason.1,
            });
        }
    }
}
