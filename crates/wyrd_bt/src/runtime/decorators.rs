//! Decorators: one child, one rule each.

use super::{Interp, LOOPS_PER_TICK, Status};
use crate::program::Kind;

impl Interp<'_> {
    #[inline(always)]
    pub(super) fn tick_decorator(&mut self, i: u32, kind: Kind) -> Status {
        let c = self.child(i, 0);
        match kind {
            Kind::Invert => match self.tick_node(c) {
                Status::Success => Status::Failure,
                Status::Failure => Status::Success,
                s => s,
            },
            Kind::ForceSuccess => match self.tick_node(c) {
                Status::Success | Status::Failure => Status::Success,
                s => s,
            },
            Kind::ForceFailure => match self.tick_node(c) {
                Status::Success | Status::Failure => Status::Failure,
                s => s,
            },
            Kind::Repeat { count } => self.repeat(i, c, count),
            Kind::RetryUntilSuccessful { attempts } => self.retry(i, c, attempts),
            // BT.CPP `KeepRunningUntilFailure`: a success starts the child
            // again on the next tick.
            Kind::KeepRunningUntilFailure => match self.tick_node(c) {
                Status::Failure => Status::Failure,
                _ => Status::Running,
            },
            Kind::RunOnce { then_skip } => self.run_once(i, c, then_skip),
            Kind::Delay { ms } => {
                let start = *self.aux_of(i);
                if self.elapsed(start, ms) {
                    self.tick_node(c)
                } else {
                    Status::Running
                }
            }
            Kind::Cooldown { ms } => self.cooldown(i, c, ms),
            Kind::MinDuration { .. } => self.tick_node(c),
            Kind::Timeout { ms } => {
                let start = *self.aux_of(i);
                if self.elapsed(start, ms) {
                    self.halt(c);
                    Status::Failure
                } else {
                    self.tick_node(c)
                }
            }
            Kind::Guard { cond, skip } => {
                // A running child the game's report ends (and so the
                // guard) takes it before the guard is asked again (see
                // `report_first`).
                if self.report_first(i, c, |_| true) || self.test(cond) {
                    self.tick_node(c)
                } else {
                    // `skip`: BT.CPP's `_while`, SKIPPED before the child
                    // starts and after halting it (`TreeNode::
                    // checkPreConditions`).
                    self.halt(c);
                    if skip {
                        Status::Skipped
                    } else {
                        Status::Failure
                    }
                }
            }
            _ => unreachable!("{} is not a decorator", kind.name()),
        }
    }

    /// BT.CPP `Repeat`: a success starts the next run in the same tick
    /// (BT.CPP `RepeatTest.RepeatTestA`: three runs of a synchronous child
    /// in one tick), at most [`LOOPS_PER_TICK`] runs per tick; a failure
    /// fails. `count` 0: forever.
    pub(super) fn repeat(&mut self, i: u32, c: u32, count: u32) -> Status {
        for _ in 0..LOOPS_PER_TICK {
            match self.tick_node(c) {
                Status::Success => {
                    *self.aux_of(i) += 1;
                    if count > 0 && *self.aux_of(i) >= count {
                        return Status::Success;
                    }
                }
                s => return s,
            }
        }
        Status::Running
    }

    /// BT.CPP `RetryUntilSuccessful`: a failure starts the next attempt in
    /// the same tick (BT.CPP `RetryTest.RetryTestA`), up to `attempts` runs
    /// (0: forever), at most [`LOOPS_PER_TICK`] per tick.
    pub(super) fn retry(&mut self, i: u32, c: u32, attempts: u32) -> Status {
        for _ in 0..LOOPS_PER_TICK {
            match self.tick_node(c) {
                Status::Failure => {
                    *self.aux_of(i) += 1;
                    if attempts > 0 && *self.aux_of(i) >= attempts {
                        return Status::Failure;
                    }
                }
                s => return s,
            }
        }
        Status::Running
    }

    /// BT.CPP `RunOnce`: the child runs until it finishes, once per agent;
    /// afterwards the node is Skipped (parents carry on) or, with
    /// `then_skip: false`, repeats the first result (BT.CPP
    /// `Decorator.RunOnce`). The memory outlives halts and restarts.
    pub(super) fn run_once(&mut self, i: u32, c: u32, then_skip: bool) -> Status {
        match *self.aux_of(i) {
            0 => {}
            1 if !then_skip => return Status::Success,
            2 if !then_skip => return Status::Failure,
            _ => return Status::Skipped,
        }
        let s = self.tick_node(c);
        match s {
            Status::Success => *self.aux_of(i) = 1,
            Status::Failure => *self.aux_of(i) = 2,
            _ => {}
        }
        s
    }

    pub(super) fn cooldown(&mut self, i: u32, c: u32, ms: u32) -> Status {
        if self.cooling(i, ms) && self.status_of(i) != Status::Running {
            return Status::Failure;
        }
        let s = self.tick_node(c);
        if s != Status::Running {
            // Stored +1 so that 0 means "never ran".
            *self.aux_of(i) = self.st.now_ms.wrapping_add(1);
        }
        s
    }
}
