//! The Trainz session-rule parent styles: ordered, simultaneous,
//! select-one. Rule flags: PAUSED, COMPLETE, WAS_COMPLETE, DOES_COMPLETE
//! ([`rule`](super::rule)).

use super::{Interp, Status, flag};
use crate::program::Kind;

impl Interp<'_> {
    #[inline(always)]
    pub(super) fn tick_trainz(&mut self, i: u32, kind: Kind) -> Status {
        match kind {
            Kind::Ordered => self.ordered(i),
            Kind::Simultaneous => self.simultaneous(i),
            Kind::SelectOne { random } => self.select_one(i, random),
            _ => unreachable!("{} is not a Trainz parent style", kind.name()),
        }
    }

    pub(super) fn was_complete(&self, c: u32) -> bool {
        self.st.mem.node(c as usize).bits() & flag::WAS_COMPLETE != 0
    }

    /// Trainz ordered execution: iterate top to bottom, pausing children that
    /// WAS_COMPLETE and running the first that is not; complete when none is
    /// left. A child completing "touches" this node, which iterates again at
    /// once.
    pub(super) fn ordered(&mut self, i: u32) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        for k in 0..count {
            let c = self.p.children_of(i)[k];
            if self.was_complete(c) {
                self.halt(c);
                continue;
            }
            self.tick_node(c);
            if !self.was_complete(c) {
                return Status::Running;
            }
            // Completed: the touch makes this node iterate again, which
            // pauses the child and moves on.
            self.halt(c);
        }
        Status::Success
    }

    /// Trainz simultaneous execution: the children not COMPLETE run; a
    /// COMPLETE child "has fully completed its operation … and does not
    /// affect the game world", so it is left alone, except that a condition
    /// rule keeps checking its condition (it may lose COMPLETE, never
    /// WAS_COMPLETE). When every child WAS_COMPLETE, they are paused and
    /// this completes.
    pub(super) fn simultaneous(&mut self, i: u32) -> Status {
        let count = self.child_count(i);
        let mut all = true;
        for k in 0..count {
            let c = self.child(i, k);
            let flags = self.st.mem.node(c as usize).bits();
            if flags & flag::COMPLETE != 0 {
                if let Kind::Rule { cond } = self.p.nodes[c as usize].kind {
                    if let Some(t) = self.trace.as_deref_mut() {
                        t.ticked.push(c);
                    }
                    let holds = self.test(cond);
                    let s = &mut self.st.mem.node_mut(c as usize);
                    s.clear_flags(flag::PAUSED);
                    if !holds {
                        s.clear_flags(flag::COMPLETE);
                        s.set_status(Status::Running);
                    }
                } else {
                    self.st.mem.node_mut(c as usize).clear_flags(flag::PAUSED);
                }
            } else {
                self.tick_node(c);
            }
            all &= self.was_complete(c);
        }
        if all {
            for k in 0..count {
                let c = self.child(i, k);
                self.halt(c);
            }
            Status::Success
        } else {
            Status::Running
        }
    }

    /// Trainz controlled selection: one relevant child is chosen (first, or
    /// at random) and run until it WAS_COMPLETE.
    pub(super) fn select_one(&mut self, i: u32, random: bool) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let mut chosen = self.cursor_of(i);
        if chosen == u16::MAX {
            let mut n_rel = 0u64;
            for k in 0..count {
                if self.relevant(self.p.children_of(i)[k]) {
                    n_rel += 1;
                }
            }
            if n_rel == 0 {
                return Status::Failure;
            }
            let nth = if random {
                self.next_random() % n_rel
            } else {
                0
            };
            let mut seen = 0;
            for k in 0..count {
                if self.relevant(self.p.children_of(i)[k]) {
                    if seen == nth {
                        chosen = k as u16;
                        break;
                    }
                    seen += 1;
                }
            }
            self.set_cursor_at(i as usize, chosen);
        }
        let c = self.p.children_of(i)[chosen as usize];
        self.tick_node(c);
        if self.was_complete(c) {
            self.halt(c);
            Status::Success
        } else {
            Status::Running
        }
    }
}
