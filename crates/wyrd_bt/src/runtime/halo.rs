//! Halo 2's decision schemes: the prioritized list (interruption without
//! dithering), sequential and sequential-looping, probabilistic, one-off,
//! and impulses.

use super::{Interp, Status};
use crate::program::{Kind, NONE};

impl Interp<'_> {
    #[inline(always)]
    pub(super) fn tick_halo(&mut self, i: u32, kind: Kind) -> Status {
        match kind {
            Kind::PrioritizedList => self.prioritized(i),
            Kind::Sequential => self.sequential(i, false),
            Kind::SequentialLooping => self.sequential(i, true),
            Kind::Probabilistic { weights } => self.probabilistic(i, weights),
            Kind::OneOff { random } => self.one_off(i, random),
            Kind::Impulse { impulse } => self.impulse(i, impulse),
            _ => unreachable!("{} is not a Halo scheme", kind.name()),
        }
    }

    /// Halo's prioritized list: the first relevant child runs. Every tick
    /// the higher-priority children that are relevant are tried; one
    /// interrupts the running child only when it takes over (ends the tick
    /// running or succeeding). A child that is relevant but fails at once
    /// leaves the running one alone: no action is aborted and restarted in
    /// one tick (the Halo paper: "we must avoid at all costs the problem of
    /// dithering").
    pub(super) fn prioritized(&mut self, i: u32) -> Status {
        // Stimuli do not change during a walk: without any, the children
        // are the static ones (no look-up per child).
        if self.st.stimuli.is_empty() {
            self.prioritized_over::<false>(i)
        } else {
            self.prioritized_over::<true>(i)
        }
    }

    /// [`prioritized`](Self::prioritized) over the static children, or
    /// (`STIMULI`) over the children with the inserted stimuli.
    #[inline(always)]
    fn prioritized_over<const STIMULI: bool>(&mut self, i: u32) -> Status {
        let (first, count) = if STIMULI {
            (0, self.dyn_count(i))
        } else {
            let n = &self.p.nodes[i as usize];
            (n.first_child as usize, n.child_count as usize)
        };
        let mut running = self.running_child(i);
        if running != NONE && self.status_of(running) != Status::Running {
            running = NONE;
        }
        // A running child whose report ends the list (a success, or any
        // result of the last child) takes it before the higher priorities
        // are tried again (see `report_first`).
        let mut start = 0;
        if self.reports && running != NONE {
            let k = (0..count).position(|k| {
                let c = if STIMULI {
                    self.dyn_child_with_stimuli(i, k)
                } else {
                    self.p.children[first + k]
                };
                c == running
            });
            let rule = self.p.nodes[i as usize].kind.info().report;
            if let Some(k) = k
                && self.report_first(i, running, |r| rule.ends(r, k + 1 == count))
            {
                start = k;
            }
        }
        self.prioritized_loop::<STIMULI>(i, first, count, start, running)
    }

    /// The prioritized list's loop over its children from `start` on
    /// (`first`, `count`: its static children, or with `STIMULI` 0 and the
    /// number of children with the stimuli), `running` its running child.
    #[inline(always)]
    pub(super) fn prioritized_loop<const STIMULI: bool>(
        &mut self,
        i: u32,
        first: usize,
        count: usize,
        start: usize,
        mut running: u32,
    ) -> Status {
        for k in start..count {
            let c = if STIMULI {
                self.dyn_child_with_stimuli(i, k)
            } else {
                self.p.children[first + k]
            };
            if c == running {
                match self.tick_node(c) {
                    Status::Running => return Status::Running,
                    Status::Success => {
                        self.set_running_child(i, NONE);
                        return Status::Success;
                    }
                    _ => {
                        running = NONE;
                        continue;
                    }
                }
            }
            if !self.relevant(c) {
                continue;
            }
            // Minimum duration: a running child that is locked cannot be
            // interrupted yet (against dithering).
            if running != NONE && self.locked(i, running) {
                continue;
            }
            // Tried first, halting the running child only if it takes over.
            let s = self.tick_node(c);
            if matches!(s, Status::Running | Status::Success) {
                if running != NONE {
                    self.halt(running);
                }
                self.set_running_child(i, if s == Status::Running { c } else { NONE });
                return s;
            }
        }
        self.set_running_child(i, NONE);
        Status::Failure
    }

    /// Halo's sequential (and sequential-looping): children in order,
    /// skipping those not relevant, never revisiting one.
    pub(super) fn sequential(&mut self, i: u32, looping: bool) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let mut k = self.cursor_of(i) as usize;
        let mut steps = 0;
        while steps <= count {
            if k >= count {
                if !looping {
                    self.set_cursor_at(i as usize, 0);
                    return Status::Success;
                }
                k = 0;
            }
            let c = self.p.children_of(i)[k];
            let continuing = self.st.mem.node(c as usize).status() == Status::Running;
            if (continuing || self.relevant(c)) && self.tick_node(c) == Status::Running {
                self.set_cursor_at(i as usize, k as u16);
                return Status::Running;
            }
            k += 1;
            steps += 1;
        }
        // A full loop without anything to run: try again next tick.
        self.set_cursor_at(i as usize, (k % count.max(1)) as u16);
        Status::Running
    }

    pub(super) fn probabilistic(&mut self, i: u32, weights: u32) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let mut chosen = self.cursor_of(i);
        if chosen == u16::MAX {
            let weight = |this: &Self, k: usize| {
                if weights == NONE {
                    1.0
                } else {
                    this.p.weights[weights as usize + k]
                }
            };
            let mut total = 0.0;
            for k in 0..count {
                let c = self.p.children_of(i)[k];
                if self.relevant(c) {
                    total += weight(self, k);
                }
            }
            if total <= 0.0 {
                return Status::Failure;
            }
            let mut pick = self.random_unit() * total;
            for k in 0..count {
                let c = self.p.children_of(i)[k];
                if self.relevant(c) {
                    let w = weight(self, k);
                    chosen = k as u16;
                    if pick < w {
                        break;
                    }
                    pick -= w;
                }
            }
            self.set_cursor_at(i as usize, chosen);
        }
        let c = self.p.children_of(i)[chosen as usize];
        self.tick_node(c)
    }

    pub(super) fn one_off(&mut self, i: u32, random: bool) -> Status {
        let count = self.p.nodes[i as usize].child_count as usize;
        let a = self.p.nodes[i as usize].aux as usize;
        let mut chosen = self.cursor_of(i);
        if chosen == u16::MAX {
            let used = self.st.mem.aux_word(a);
            let candidates: u32 = (0..count)
                .filter(|&k| used & (1 << k) == 0 && self.relevant(self.p.children_of(i)[k]))
                .fold(0, |m, k| m | (1 << k));
            if candidates == 0 {
                return Status::Failure;
            }
            let k = if random {
                let nth = (self.next_random() % u64::from(candidates.count_ones())) as usize;
                (0..count)
                    .filter(|&k| candidates & (1 << k) != 0)
                    .nth(nth)
                    .unwrap_or(0)
            } else {
                candidates.trailing_zeros() as usize
            };
            *self.st.mem.aux_word_mut(a) |= 1 << k;
            chosen = k as u16;
            self.set_cursor_at(i as usize, chosen);
        }
        let c = self.p.children_of(i)[chosen as usize];
        self.tick_node(c)
    }

    /// Whether the running child `c` of the prioritized list `list` holds a
    /// minimum-duration lock. A lock only guards against its own nearest
    /// list (the competition where dithering happens); higher lists, e.g.
    /// self-preservation at the root, still interrupt.
    pub(super) fn locked(&self, list: u32, c: u32) -> bool {
        let end = self.p.nodes[c as usize].end;
        (c..end).any(|j| {
            let n = &self.p.nodes[j as usize];
            let Kind::MinDuration { ms } = n.kind else {
                return false;
            };
            if self.st.mem.node(j as usize).status() != Status::Running
                || self.elapsed(self.st.mem.aux_word(n.aux as usize), ms)
            {
                return false;
            }
            let mut up = n.parent;
            while up != NONE && !matches!(self.p.nodes[up as usize].kind, Kind::PrioritizedList) {
                up = self.p.nodes[up as usize].parent;
            }
            up == list
        })
    }

    /// An impulse: when its `when` holds it runs its behavior, in place
    /// (its child) or at the behavior's native position (redirect), without
    /// the behavior's own leading guards; while it runs, `when` is its
    /// guard. A redirected behavior outlives its impulse only if its native
    /// parent ticks it in the same walk (then it keeps running, it is not
    /// restarted); otherwise it stops at the end of the walk.
    pub(super) fn impulse(&mut self, i: u32, impulse: u32) -> Status {
        let imp = &self.p.impulses[impulse as usize];
        let (when, redirect_to) = (imp.when, imp.redirect_to);
        let was_running = self.status_of(i) == Status::Running;
        // A behavior run in place whose running child the game's report
        // ends takes it before `when` (its guard) is asked again (see
        // `report_first`).
        let reported =
            redirect_to == NONE && was_running && self.report_first(i, self.child(i, 0), |_| true);
        if !reported && !self.test(when) {
            if was_running && redirect_to == NONE {
                let c = self.child(i, 0);
                self.halt(c);
            }
            return Status::Failure;
        }
        let target = if redirect_to != NONE {
            redirect_to
        } else {
            self.child(i, 0)
        };
        let saved = std::mem::replace(&mut self.unguarded, target);
        let s = self.tick_node(target);
        self.unguarded = saved;
        if redirect_to != NONE && s == Status::Running {
            self.spare = target;
        }
        if !was_running && matches!(s, Status::Running | Status::Success) {
            self.st.mem.impulses_mut()[impulse as usize] += 1;
        }
        s
    }
}
