//! The standard composites, with BehaviorTree.CPP 4.x's rules: sequences
//! (memory, with memory of failures, reactive), Wyrd's guard sequence, the
//! selector (BT.CPP's Fallback), parallel, IfThenElse, WhileDoElse, Switch.

use super::{Interp, Status};
use crate::program::{Kind, NONE};

/// `Skipped` when every child was skipped (BT.CPP: a composite whose
/// children all skipped is skipped itself), else `outcome`.
#[inline]
fn unless_all_skipped(skipped: usize, count: usize, outcome: Status) -> Status {
    if skipped == count {
        Status::Skipped
    } else {
        outcome
    }
}

impl Interp<'_> {
    #[inline(always)]
    pub(super) fn tick_standard(&mut self, i: u32, kind: Kind) -> Status {
        match kind {
            Kind::Sequence => self.sequence(i, false),
            Kind::SequenceWithMemory => self.sequence(i, true),
            Kind::ReactiveSequence => self.reactive_sequence(i),
            Kind::GuardSequence => self.guard_sequence(i),
            Kind::Selector => self.selector(i),
            Kind::ReactiveFallback => self.reactive_fallback(i),
            Kind::Parallel { success, failure } => self.parallel(i, success, failure),
            Kind::ParallelAll { max_failures } => self.parallel_all(i, max_failures),
            Kind::IfThenElse => self.if_then_else(i),
            Kind::WhileDoElse => self.while_do_else(i),
            Kind::Switch { key, cases } => self.switch(i, key, cases),
            _ => unreachable!("{} is not a standard composite", kind.name()),
        }
    }

    /// Where a sequence starts: an impulse's behavior skips its leading
    /// conditions (the impulse's relevancy stands in for them).
    #[inline]
    pub(super) fn sequence_start(&self, i: u32, cursor: usize) -> usize {
        if i == self.unguarded {
            cursor.max(self.p.nodes[i as usize].guard_len as usize)
        } else {
            cursor
        }
    }

    /// BT.CPP `Sequence` (and `SequenceWithMemory` with `retry`): from the
    /// remembered child on; finished children are not ticked again in this
    /// activation. A failure resets it to the first child (with `retry`: the
    /// next activation retries the failed child; BT.CPP
    /// `SequenceWithMemoryTest.Issue_636`).
    pub(super) fn sequence(&mut self, i: u32, retry: bool) -> Status {
        let start = self.sequence_start(i, self.cursor_of(i) as usize);
        self.sequence_from(i, start, retry, 0)
    }

    /// The loop of every sequence: children from `k` on, until one runs or
    /// fails (`skipped`: children already skipped in this tick). Inlined:
    /// the guard sequence is the hottest composite.
    #[inline(always)]
    pub(super) fn sequence_from(
        &mut self,
        i: u32,
        mut k: usize,
        retry: bool,
        mut skipped: usize,
    ) -> Status {
        let count = self.child_count(i);
        while k < count {
            let c = self.child(i, k);
            match self.tick_child(c) {
                Status::Running => {
                    self.set_cursor_at(i as usize, k as u16);
                    return Status::Running;
                }
                Status::Failure => {
                    self.set_cursor_at(i as usize, if retry { k as u16 } else { 0 });
                    return Status::Failure;
                }
                Status::Skipped => skipped += 1,
                _ => {}
            }
            k += 1;
        }
        self.set_cursor_at(i as usize, 0);
        unless_all_skipped(skipped, count, Status::Success)
    }

    /// BT.CPP `ReactiveSequence`: every tick from the first child, actions
    /// too; a running child halts the others, a failure halts all.
    pub(super) fn reactive_sequence(&mut self, i: u32) -> Status {
        let count = self.child_count(i);
        let start = self.sequence_start(i, 0);
        // A running child whose report ends the sequence takes it first
        // (the children before it passed last tick: see `report_first`).
        let start = self.reported_child(i, start, count).unwrap_or(start);
        let mut skipped = 0;
        for k in start..count {
            let c = self.child(i, k);
            match self.tick_child(c) {
                Status::Running => {
                    self.halt_running_children(i, k + 1, count);
                    return Status::Running;
                }
                Status::Failure => {
                    self.halt_running_children(i, k + 1, count);
                    return Status::Failure;
                }
                Status::Skipped => skipped += 1,
                _ => {}
            }
        }
        unless_all_skipped(skipped, count, Status::Success)
    }

    /// Wyrd's guard sequence: children in order; the leading conditions
    /// (guards) are re-checked every tick while a later child runs, and a
    /// broken guard stops the sequence. The guards are its relevancy in
    /// Halo schemes.
    pub(super) fn guard_sequence(&mut self, i: u32) -> Status {
        let guard_len = self.p.nodes[i as usize].guard_len as usize;
        let unguarded = i == self.unguarded;
        let cursor = self.sequence_start(i, self.cursor_of(i) as usize);
        // A running child whose report ends the sequence takes it before
        // the guards are asked again (see `report_first`).
        let count = self.child_count(i);
        let rule = self.p.nodes[i as usize].kind.info().report;
        let reported = self.reports
            && cursor < count
            && self.report_first(i, self.child(i, cursor), |r| {
                rule.ends(r, cursor + 1 == count)
            });
        if !unguarded && !reported {
            for k in 0..cursor.min(guard_len) {
                let c = self.child(i, k);
                if self.tick_child(c) == Status::Failure {
                    let running = self.child(i, cursor);
                    self.halt(running);
                    self.set_cursor_at(i as usize, 0);
                    return Status::Failure;
                }
            }
        }
        self.sequence_from(i, cursor, false, 0)
    }

    /// The child among `from..count` that is to take the game's report
    /// first ([`report_first`](Self::report_first)), if any: its report
    /// ends `i` as the node table's `report` column says.
    #[inline]
    pub(super) fn reported_child(&mut self, i: u32, from: usize, count: usize) -> Option<usize> {
        if !self.reports {
            return None;
        }
        let rule = self.p.nodes[i as usize].kind.info().report;
        (from..count).find(|&k| {
            let c = self.child(i, k);
            self.report_first(i, c, |r| rule.ends(r, k + 1 == count))
        })
    }

    pub(super) fn running_child(&self, i: u32) -> u32 {
        self.st.mem.aux_word(self.p.nodes[i as usize].aux as usize)
    }

    pub(super) fn set_running_child(&mut self, i: u32, c: u32) {
        let a = self.p.nodes[i as usize].aux as usize;
        *self.st.mem.aux_word_mut(a) = c;
    }

    /// Selector (BT.CPP `Fallback`): the first child that does not fail,
    /// kept until it finishes (no re-checking of higher priorities).
    pub(super) fn selector(&mut self, i: u32) -> Status {
        let count = self.dyn_count(i);
        let running = self.running_child(i);
        let start = if running != NONE && self.status_of(running) == Status::Running {
            (0..count)
                .position(|k| self.dyn_child(i, k) == running)
                .unwrap_or(0)
        } else {
            0
        };
        self.selector_from(i, start, 0)
    }

    /// The selector's loop: children from `start` on (`skipped`: children
    /// already skipped in this tick).
    pub(super) fn selector_from(&mut self, i: u32, start: usize, mut skipped: usize) -> Status {
        let count = self.dyn_count(i);
        for k in start..count {
            let c = self.dyn_child(i, k);
            match self.tick_node(c) {
                Status::Running => {
                    self.set_running_child(i, c);
                    return Status::Running;
                }
                Status::Success => {
                    self.set_running_child(i, NONE);
                    return Status::Success;
                }
                Status::Skipped => skipped += 1,
                _ => {}
            }
        }
        self.set_running_child(i, NONE);
        unless_all_skipped(skipped, count, Status::Failure)
    }

    /// BT.CPP `ReactiveFallback`: every tick from the first child; the first
    /// child that runs or succeeds halts the running ones after it (those
    /// before it failed in this tick, or, when the running child's report
    /// ends it with success, in the last tick: see `report_first`). A child
    /// failing leaves a running later one alone (no dithering).
    pub(super) fn reactive_fallback(&mut self, i: u32) -> Status {
        let count = self.child_count(i);
        let mut skipped = 0;
        let start = self.reported_child(i, 0, count).unwrap_or(0);
        for k in start..count {
            let c = self.child(i, k);
            match self.tick_child(c) {
                s @ (Status::Running | Status::Success) => {
                    self.halt_running_children(i, k + 1, count);
                    return s;
                }
                Status::Skipped => skipped += 1,
                _ => {}
            }
        }
        unless_all_skipped(skipped, count, Status::Failure)
    }

    /// BT.CPP `Parallel`: children in order, those finished in this
    /// activation not ticked again; after each child it decides (successes
    /// reached the success threshold: Success; failures reached the failure
    /// threshold, or the success threshold can no longer be reached:
    /// Failure), then stops and halts the running children. A skipped
    /// child counts toward success with the "all" threshold (BT.CPP 4.x
    /// `ParallelNode::tick`: `success_threshold_ < 0 && success_count_ +
    /// skipped_count >= required`, checked after each child, so that all
    /// skipped succeeds too), never with a count (then all skipped: the
    /// parallel is skipped).
    pub(super) fn parallel(&mut self, i: u32, success: u16, failure: u16) -> Status {
        let count = self.child_count(i);
        let need_ok = if success == 0 {
            count
        } else {
            success as usize
        };
        let need_fail = if failure == 0 {
            count
        } else {
            failure as usize
        };
        let (mut ok, mut bad) = (0, 0);
        for k in 0..count {
            match self.status_of(self.child(i, k)) {
                Status::Success => ok += 1,
                Status::Failure => bad += 1,
                _ => {}
            }
        }
        let mut skipped = 0;
        for k in 0..count {
            let c = self.child(i, k);
            if matches!(self.status_of(c), Status::Success | Status::Failure) {
                continue;
            }
            match self.tick_node(c) {
                Status::Success => ok += 1,
                Status::Failure => bad += 1,
                Status::Skipped => skipped += 1,
                Status::Running | Status::Idle => {}
            }
            // With "all" (BT.CPP's default -1), a skipped child counts
            // toward success (BT.CPP 4.x `ParallelNode::tick`); with a
            // count, only successes do.
            let result = if ok >= need_ok || (success == 0 && ok + skipped >= need_ok) {
                Status::Success
            } else if bad >= need_fail || count - bad < need_ok {
                Status::Failure
            } else {
                continue;
            };
            self.halt_running_children(i, 0, count);
            return result;
        }
        unless_all_skipped(skipped, count, Status::Running)
    }

    /// BT.CPP `ParallelAll`: every child not finished in this activation is
    /// ticked, never stopping early; when all have finished it fails if at
    /// least `max_failures` failed, else succeeds (BT.CPP
    /// `Parallel.ParallelAll`). The seed's World State Evaluation runs its
    /// independent quest lines this way.
    pub(super) fn parallel_all(&mut self, i: u32, max_failures: u32) -> Status {
        let count = self.child_count(i);
        let (mut done, mut bad, mut skipped) = (0, 0, 0);
        for k in 0..count {
            let c = self.child(i, k);
            let s = match self.status_of(c) {
                s @ (Status::Success | Status::Failure) => s,
                _ => self.tick_node(c),
            };
            match s {
                Status::Success => done += 1,
                Status::Failure => {
                    done += 1;
                    bad += 1;
                }
                Status::Skipped => skipped += 1,
                _ => {}
            }
        }
        if done + skipped < count {
            return Status::Running;
        }
        if skipped == count {
            Status::Skipped
        } else if bad >= max_failures as usize {
            Status::Failure
        } else {
            Status::Success
        }
    }

    /// BT.CPP `IfThenElse`: the first child is ticked until it finishes;
    /// success runs the second, failure the third (or fails). The choice is
    /// not re-checked while the branch runs (BT.CPP
    /// `IfThenElseTest.ConditionRunning`).
    pub(super) fn if_then_else(&mut self, i: u32) -> Status {
        let count = self.child_count(i);
        let mut branch = self.cursor_of(i) as usize;
        if branch == 0 {
            match self.tick_node(self.child(i, 0)) {
                Status::Running => return Status::Running,
                Status::Success => branch = 1,
                _ if count == 3 => branch = 2,
                _ => return Status::Failure,
            }
        }
        let s = self.tick_node(self.child(i, branch));
        self.set_cursor_at(
            i as usize,
            if s == Status::Running {
                branch as u16
            } else {
                0
            },
        );
        s
    }

    /// BT.CPP `WhileDoElse`: the first child every tick; success runs the
    /// second, failure the third (or fails, halting the second); a change
    /// halts the branch that was running.
    pub(super) fn while_do_else(&mut self, i: u32) -> Status {
        let count = self.child_count(i);
        // A running branch the game's report ends takes it before the
        // condition is asked again: its result is the node's (see
        // `report_first`).
        if self.reports {
            for k in 1..count {
                let c = self.child(i, k);
                if self.report_first(i, c, |_| true) {
                    return self.tick_node(c);
                }
            }
        }
        match self.tick_node(self.child(i, 0)) {
            Status::Running => {
                self.halt_running_children(i, 1, count);
                Status::Running
            }
            Status::Success => {
                self.halt_running_children(i, 2, count);
                self.tick_node(self.child(i, 1))
            }
            _ => {
                self.halt_running_children(i, 1, 2);
                if count == 3 {
                    self.tick_node(self.child(i, 2))
                } else {
                    Status::Failure
                }
            }
        }
    }

    /// BT.CPP `Switch`: the child of the first case equal to the key's
    /// value, else the last child (default); the key is read every tick and
    /// a change halts the running case (BT.CPP
    /// `SwitchTest.CaseSwitchToAction2`).
    pub(super) fn switch(&mut self, i: u32, key: u16, cases: u32) -> Status {
        let count = self.child_count(i);
        let n = count - 1;
        // A running case the game's report ends takes it before the key is
        // read again: its result is the node's (see `report_first`).
        let was = self.cursor_of(i) as usize;
        if self.reports && was < count {
            let c = self.child(i, was);
            if self.report_first(i, c, |_| true) {
                return self.tick_node(c);
            }
        }
        // An unset key matches no case: the default runs.
        let chosen = match self.bb.get_index(key) {
            Some(value) => (0..n)
                .find(|&k| {
                    crate::value::Op::Eq.eval(value, self.p.switch_cases[cases as usize + k])
                })
                .unwrap_or(n),
            None => n,
        };
        if was != u16::MAX as usize && was != chosen {
            self.halt_running_children(i, was, was + 1);
        }
        self.set_cursor_at(i as usize, chosen as u16);
        self.tick_node(self.child(i, chosen))
    }
}
