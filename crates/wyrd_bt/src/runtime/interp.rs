//! The interpreter of one tick: the walk from the root, relevancy, entering
//! and halting nodes, the bookkeeping every family shares.

use super::*;
use crate::blackboard::Blackboard;
use crate::kind::{AuxInit, CursorInit, Family, Relevance, ReportEnd};
use crate::program::{Cond, Kind, NONE, Program};

pub(crate) struct Interp<'a> {
    pub(crate) p: &'a Program,
    pub(crate) st: &'a mut AgentState,
    pub(crate) bb: &'a mut Blackboard,
    pub(crate) actions: &'a mut BtActions,
    pub(crate) stub: Option<PredicateStub<'a>>,
    pub(crate) globals: &'a [Option<crate::value::Value>],
    /// This tick's period in µs: timers and stimuli count whole ticks, so a
    /// duration of S seconds lasts round(S·hz) ticks (halves round up)
    /// whatever the rounding of agent time to milliseconds.
    pub(crate) dt_us: u32,
    /// The node whose leading guards are not asked: the behavior an impulse
    /// runs (the impulse's relevancy stands in for them).
    pub(crate) unguarded: u32,
    /// The behavior a redirect impulse ran at its native position in this
    /// tick: halts of the impulse's old branch spare it.
    pub(crate) spare: u32,
    /// Where the tick's events go, when someone asked for them.
    pub(crate) trace: Option<&'a mut TickTrace>,
    /// Keys conditions read unset in this tick (see `AgentState::unset_reads`).
    pub(crate) unset: std::cell::Cell<u64>,
    /// A node stopped running in this walk (see [`walked::UNSETTLED`]).
    pub(crate) unsettled: bool,
    /// Fresh walks may come from the program's table (not for agents that
    /// always walk).
    pub(crate) tables: bool,
    /// An action whose input key is unset fails instead of starting (not
    /// in the walks that build the fresh-walk table, whose blackboard
    /// leaves such keys unset: the table checks them when it is used).
    pub(crate) check_needs: bool,
    /// A slot held a game report when the tick began (see
    /// [`report_first`](Self::report_first)); set by the tick, from its
    /// pass over the slots (`BtActions::settle`).
    pub(crate) reports: bool,
}

impl<'a> Interp<'a> {
    /// One walk from the root.
    pub(crate) fn walk(&mut self) -> Status {
        if let Some(status) = self.fresh_walk() {
            return status;
        }
        let swept = self.st.redirect_live;
        self.spare = NONE;
        let status = self.tick_node(0);
        let live = self.spare != NONE;
        if swept || live {
            self.sweep_orphans();
        }
        self.st.redirect_live = live;
        status
    }

    /// A behavior a redirect impulse ran at its native position is left
    /// running when the impulse stops; if no parent ticked it in this walk,
    /// it stops now (an orphan: Running but not ticked).
    #[cold]
    pub(crate) fn sweep_orphans(&mut self) {
        for j in 0..self.p.nodes.len() as u32 {
            let s = self.st.mem.node_mut(j as usize);
            if s.status() == Status::Running && s.bits() & flag::PAUSED != 0 {
                let spare = std::mem::replace(&mut self.spare, NONE);
                self.halt(j);
                self.spare = spare;
            }
        }
    }

    pub(crate) fn next_random(&mut self) -> u64 {
        let mut r = crate::rng::SplitMix64(self.st.rng());
        let x = r.next();
        self.st.mem.set_rng(r.0);
        x
    }

    pub(crate) fn random_unit(&mut self) -> f32 {
        (self.next_random() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A duration in whole ticks of this tick's period: round(ms / period),
    /// halves up (agent time is kept in ms, so an elapsed time is a whole
    /// number of ticks give or take a millisecond, far from a half).
    #[inline]
    pub(crate) fn ticks_of(&self, ms: u32) -> u64 {
        // floor(ms / period + 0.501): the thousandth of a tick keeps exact
        // halves rounding up when the period itself was rounded to a µs
        // (60 Hz: 16,667 µs).
        let dt = u64::from(self.dt_us.max(1));
        (u64::from(ms) * 1_000_000 + dt * 501) / (dt * 1000)
    }

    /// Whether a duration of `ms` has passed since `start` (agent time),
    /// counted in ticks: S seconds at H Hz pass after round(S·H) ticks.
    #[inline]
    pub(crate) fn elapsed(&self, start: u32, ms: u32) -> bool {
        self.ticks_of(self.st.now_ms.wrapping_sub(start)) >= self.ticks_of(ms)
    }

    #[inline]
    pub(crate) fn tags_ok(&self, i: u32) -> bool {
        let n = &self.p.nodes[i as usize];
        let t = self.bb.tags();
        t & n.tags_all == n.tags_all
            && (n.tags_any == 0 || t & n.tags_any != 0)
            && t & n.tags_not == 0
    }

    /// [`eval`](Self::eval) with the common cases (folded bit tests)
    /// inlined at the call site.
    #[inline(always)]
    pub(crate) fn test(&self, c: u32) -> bool {
        match self.p.conds.get(c as usize) {
            Some(&Cond::Bits { mask, want }) => (self.bb.bools() ^ want) & mask == 0,
            Some(&Cond::AnyBits { mask, want }) => !(self.bb.bools() ^ want) & mask != 0,
            _ => self.eval(c),
        }
    }

    pub(crate) fn eval(&self, c: u32) -> bool {
        if c == NONE {
            return true;
        }
        match self.p.conds[c as usize] {
            Cond::Bits { mask, want } => (self.bb.bools() ^ want) & mask == 0,
            Cond::AnyBits { mask, want } => !(self.bb.bools() ^ want) & mask != 0,
            Cond::BbIs { key, value } => match self.bb.get_index(key) {
                Some(v) => v == crate::value::Value::Bool(value),
                None => self.unset(key),
            },
            Cond::Bb { key, op, value } => match self.bb.get_index(key) {
                Some(v) => op.eval(v, value),
                None => self.unset(key),
            },
            Cond::BbKey { key, op, other } => {
                match (self.bb.get_index(key), self.bb.get_index(other)) {
                    (Some(a), Some(b)) => op.eval(a, b),
                    (None, _) => self.unset(key),
                    (_, None) => self.unset(other),
                }
            }
            Cond::Predicate(i) => {
                let slot = &self.p.predicates[i as usize];
                match (&slot.f, self.stub) {
                    (Some(f), _) => f(
                        &*self.bb,
                        &crate::program::PredicateArgs {
                            args: &slot.args,
                            bb: &*self.bb,
                        },
                    ),
                    (None, Some(stub)) => stub(&slot.name),
                    (None, None) => false,
                }
            }
            Cond::Tags(mask) => self.bb.tags() & mask == mask,
            Cond::All { start, len } => self.p.cond_lists[start as usize..(start + len) as usize]
                .iter()
                .all(|&x| self.eval(x)),
            Cond::Any { start, len } => self.p.cond_lists[start as usize..(start + len) as usize]
                .iter()
                .any(|&x| self.eval(x)),
            Cond::Not(x) => !self.eval(x),
            Cond::Const(b) => b,
            Cond::TagReq { all, any, not } => {
                let t = self.bb.tags();
                t & all == all && (any == 0 || t & any != 0) && t & not == 0
            }
            Cond::Global { slot, op, value } => match self.globals.get(slot as usize) {
                Some(Some(v)) => op.eval(*v, value),
                // Unknown to the world (reported at bind): never holds.
                _ => false,
            },
        }
    }

    /// A condition read a key the game has not set: it does not hold, and
    /// the key is noted for the plugin to report once.
    #[cold]
    pub(crate) fn unset(&self, key: u16) -> bool {
        // The mask has the first 64 keys; a later one is not noted (under
        // bit 63 it was reported by another key's name).
        if let Some(bit) = 1u64.checked_shl(u32::from(key)) {
            self.unset.set(self.unset.get() | bit);
        }
        false
    }

    /// Binary relevancy: tags match and the node's own guard holds (an
    /// impulse's `when`, a sequence's leading conditions, a cooldown not
    /// cooling down).
    #[inline]
    pub(crate) fn relevant(&self, i: u32) -> bool {
        let n = &self.p.nodes[i as usize];
        if n.tagged && !self.tags_ok(i) {
            return false;
        }
        match n.facts.relevance {
            Relevance::Guard => n.guard == NONE || self.test(n.guard),
            Relevance::Timer => !self.cooling(i, n.kind.duration_ms()),
        }
    }

    pub(crate) fn cooling(&self, i: u32, ms: u32) -> bool {
        let last = self.st.mem.aux_word(self.p.nodes[i as usize].aux as usize);
        last != 0 && !self.elapsed(last - 1, ms)
    }

    /// The cursor of composite `i`.
    #[inline]
    pub(crate) fn cursor_of(&self, i: u32) -> u16 {
        self.st.mem.cursor(self.p.nodes[i as usize].cursor as usize)
    }

    /// Sets the cursor of composite `i`.
    #[inline]
    pub(crate) fn set_cursor_at(&mut self, i: usize, value: u16) {
        let c = self.p.nodes[i].cursor as usize;
        *self.st.mem.cursor_mut(c) = value;
    }

    /// The aux word of node `i`.
    #[inline]
    pub(crate) fn aux_of(&mut self, i: u32) -> &mut u32 {
        let a = self.p.nodes[i as usize].aux as usize;
        self.st.mem.aux_word_mut(a)
    }

    /// Child `k` of node `i` (static children).
    #[inline]
    pub(crate) fn child(&self, i: u32, k: usize) -> u32 {
        self.p.children[self.p.nodes[i as usize].first_child as usize + k]
    }

    #[inline]
    pub(crate) fn child_count(&self, i: u32) -> usize {
        self.p.nodes[i as usize].child_count as usize
    }

    #[inline]
    pub(crate) fn status_of(&self, c: u32) -> Status {
        self.st.mem.node(c as usize).status()
    }

    /// A node starts afresh (its parent starts it): its state starts as the
    /// kind's table says, and it and its subtree lose COMPLETE and
    /// WAS_COMPLETE (a new activation; within one, WAS_COMPLETE latches).
    pub(crate) fn enter(&mut self, i: u32) {
        let n = &self.p.nodes[i as usize];
        let facts = n.facts;
        if n.cursor != NONE {
            match facts.cursor {
                CursorInit::Zero => *self.st.mem.cursor_mut(n.cursor as usize) = 0,
                CursorInit::Unchosen => *self.st.mem.cursor_mut(n.cursor as usize) = u16::MAX,
                CursorInit::None | CursorInit::Keep => {}
            }
        }
        if n.aux != NONE {
            let a = self.st.mem.aux_word_mut(n.aux as usize);
            match facts.aux {
                AuxInit::Zero => *a = 0,
                AuxInit::NoChild => *a = NONE,
                AuxInit::Now => *a = self.st.now_ms,
                AuxInit::None | AuxInit::Keep => {}
            }
        }
        for s in &mut self.st.mem.nodes_mut()[i as usize..n.end as usize] {
            s.clear_flags(flag::COMPLETE | flag::WAS_COMPLETE);
        }
        if let Kind::Action { .. } = n.kind {
            self.start_action(i);
        } else if facts.concurrent {
            for k in 0..n.child_count as usize {
                let c = self.child(i, k);
                self.st.mem.node_mut(c as usize).set_status(Status::Idle);
            }
        }
    }

    /// Stops a subtree: running actions are aborted, statuses reset, and the
    /// nodes paused. A behavior a redirect impulse ran in this tick is
    /// spared (it stops by itself when no one runs it).
    /// An interpreter for one tick (a period of `dt_us`, 0: none) of an
    /// agent.
    pub(crate) fn new(
        p: &'a Program,
        st: &'a mut AgentState,
        bb: &'a mut Blackboard,
        actions: &'a mut BtActions,
        trace: Option<&'a mut TickTrace>,
    ) -> Self {
        Interp {
            reports: false,
            p,
            st,
            bb,
            actions,
            stub: None,
            globals: &[],
            dt_us: 0,
            unguarded: NONE,
            spare: NONE,
            trace,
            unset: std::cell::Cell::new(0),
            unsettled: false,
            tables: true,
            check_needs: true,
        }
    }

    pub(crate) fn halt(&mut self, i: u32) {
        if i == self.spare {
            return;
        }
        let end = self.p.nodes[i as usize].end;
        let (keep_lo, keep_hi) = if self.spare != NONE {
            (self.spare, self.p.nodes[self.spare as usize].end)
        } else {
            (NONE, NONE)
        };
        let mut j = i;
        while j < end {
            if j == keep_lo {
                j = keep_hi;
                continue;
            }
            let s = self.st.mem.node_mut(j as usize);
            if s.status() == Status::Running {
                self.unsettled = true;
                if let Kind::Action { .. } = self.p.nodes[j as usize].kind {
                    self.abort_action(j);
                }
                self.st.mem.node_mut(j as usize).set_status(Status::Idle);
            }
            self.st.mem.node_mut(j as usize).add_flags(flag::PAUSED);
            j += 1;
        }
        // Stimuli inserted inside the subtree stop too.
        for k in 0..self.st.stimuli.len() {
            let s = self.st.stimuli[k];
            if i <= s.target && s.target < end {
                self.halt(s.root);
            }
        }
    }

    /// Halts the running children of `i` among `from..to`.
    pub(crate) fn halt_running_children(&mut self, i: u32, from: usize, to: usize) {
        for k in from..to {
            let c = self.child(i, k);
            if self.status_of(c) == Status::Running {
                self.halt(c);
            }
        }
    }

    /// Ticks a node: tags, activation, the kind's rule, rule flags.
    pub(crate) fn tick_node(&mut self, i: u32) -> Status {
        let iu = i as usize;
        let p = self.p;
        let node = &p.nodes[iu];
        if node.instant {
            return self.tick_instant(i);
        }
        if let Some(t) = self.trace.as_deref_mut() {
            t.ticked.push(i);
        }
        if node.tagged && !self.tags_ok(i) {
            return self.masked(i);
        }
        let s = &mut self.st.mem.node_mut(iu);
        s.clear_flags(flag::PAUSED);
        let was_running = s.status() == Status::Running;
        if !was_running {
            self.enter(i);
        }
        let kind = node.kind;
        let status = match kind {
            // The hot kinds first, dispatched directly.
            Kind::GuardSequence => self.guard_sequence(i),
            Kind::PrioritizedList => self.prioritized(i),
            Kind::Action { .. } => self.action(i),
            _ => self.tick_other(i, kind),
        };
        self.finish_node(i, was_running, status)
    }

    /// The end of a node's tick: its status, its rule flags (a finished
    /// node is complete or not), and whether the walk is still settled.
    #[inline(always)]
    pub(crate) fn finish_node(&mut self, i: u32, was_running: bool, status: Status) -> Status {
        let s = &mut self.st.mem.node_mut(i as usize);
        match status {
            // Skipped: nothing left to do, which for a rule is complete.
            Status::Success | Status::Skipped => s.add_flags(flag::COMPLETE | flag::WAS_COMPLETE),
            Status::Failure => s.clear_flags(flag::COMPLETE),
            _ => {}
        }
        s.set_status(status);
        // A running node that stopped: unless it succeeded in a program
        // whose nodes never tick a finished child again (resumable ones),
        // the next walk may differ from this one.
        if was_running
            && status != Status::Running
            && !(status == Status::Success && self.p.resumable)
        {
            self.unsettled = true;
        }
        status
    }

    /// The rarer kinds, by family (kept out of [`tick_node`](Self::tick_node)
    /// so its hot path stays small).
    #[inline(never)]
    pub(crate) fn tick_other(&mut self, i: u32, kind: Kind) -> Status {
        match self.p.nodes[i as usize].facts.family {
            Family::Standard => self.tick_standard(i, kind),
            Family::Utility => self.tick_utility(i, kind),
            Family::Halo => self.tick_halo(i, kind),
            Family::Trainz => self.tick_trainz(i, kind),
            Family::Decorator => self.tick_decorator(i, kind),
            Family::Leaf => self.tick_leaf(i, kind),
            Family::Custom => self.tick_custom(i, kind),
        }
    }

    /// Takes the report of the running action `leaf` and goes up from it
    /// as a walk from the root would come back up: each parent continues
    /// its loop after the child's result, until one keeps running or the
    /// root finishes. Only for ticks [`resume_point`] allows: what a walk
    /// would ask on the way down has the last walk's answers.
    #[inline]
    pub(crate) fn bubble(&mut self, leaf: u32) -> Status {
        let mut child = leaf;
        let mut status = self.tick_node(leaf);
        while status != Status::Running {
            let q = self.p.nodes[child as usize].parent;
            if q == NONE {
                break;
            }
            let n = &self.p.nodes[q as usize];
            let (first, count) = (n.first_child as usize, n.child_count as usize);
            let k = self.p.children[first..first + count]
                .iter()
                .position(|&c| c == child)
                .unwrap_or(count);
            let skipped = usize::from(status == Status::Skipped);
            let s = match (n.kind, status) {
                (Kind::GuardSequence | Kind::Sequence, Status::Failure) => {
                    self.set_cursor_at(q as usize, 0);
                    Status::Failure
                }
                (Kind::GuardSequence | Kind::Sequence, _) => {
                    self.sequence_from(q, k + 1, false, skipped)
                }
                (Kind::PrioritizedList, Status::Success) => {
                    self.set_running_child(q, NONE);
                    Status::Success
                }
                (Kind::PrioritizedList, _) => {
                    self.prioritized_loop::<false>(q, first, count, k + 1, NONE)
                }
                (Kind::Selector, Status::Success) => {
                    self.set_running_child(q, NONE);
                    Status::Success
                }
                (Kind::Selector, _) => self.selector_from(q, k + 1, skipped),
                // An instant invert around a running child cannot be.
                _ => unreachable!("{} does not resume", n.kind.name()),
            };
            status = self.finish_node(q, true, s);
            child = q;
        }
        // Running: the parents above keep running, as they were.
        status
    }

    /// Whether the running child `c` of `parent` takes the game's report
    /// before `parent` asks its guards or higher priorities again: the
    /// report ends `c` ([`report_ending`](Self::report_ending)) and, with
    /// it, `parent` (`ends_parent`, told the result `c` ends with: a
    /// success ends a prioritized list or fallback, a failure a sequence,
    /// either a guard or the last step of a sequence). The game made the
    /// report and whatever else it changed in the same step: the report
    /// comes first, as BT.CPP's action returns its result from the call
    /// that changed the blackboard. A report that would not end `parent`
    /// (a failure in a list, a step of a sequence with more to come) meets
    /// the guards and priorities first: nothing new starts on inputs not
    /// asked. Not with a stimulus inserted at `parent` (it is to be
    /// considered now). The walk is then unsettled: what it did not ask
    /// is asked in the next tick's walk (skipping it would leave an input
    /// changed with the report unseen until the next change).
    #[inline]
    pub(crate) fn report_first(
        &mut self,
        parent: u32,
        c: u32,
        ends_parent: impl Fn(Option<bool>) -> bool,
    ) -> bool {
        let first = self.reports
            && c != NONE
            && self.st.mem.node(c as usize).status() == Status::Running
            && !self.st.stimuli.iter().any(|s| s.target == parent)
            && self.report_ending(c).is_some_and(ends_parent);
        if first {
            self.unsettled = true;
        }
        first
    }

    /// Whether ticking `c` takes a report that ends it (see
    /// [`report_ending`](Self::report_ending)).
    #[inline]
    pub(crate) fn report_ends(&self, c: u32) -> bool {
        self.report_ending(c).is_some()
    }

    /// When ticking `c` takes a report that ends it, the result it ends
    /// with (`Some(None)`: it ends, with a result conditions after the
    /// action decide): one action leaf in it was reported on (succeeded or
    /// failed), nothing else in it runs (no other slot, no stimulus
    /// inserted in it), no node from that leaf up to `c` is masked by tags
    /// (the masking would decide first), and each one ends with that
    /// result as the node table's `report` column says: a decorator that
    /// ends with its child (`Invert`, `ForceSuccess`, `ForceFailure`,
    /// `Guard`), or a sequence, selector, list or fallback that the leaf's
    /// result ends: a failure ends a sequence, a success a selector, and
    /// either ends the last child's parent, and a sequence or selector
    /// whose children after the leaf are all conditions.
    #[inline(never)]
    pub(crate) fn report_ending(&self, c: u32) -> Option<Option<bool>> {
        let end = self.p.nodes[c as usize].end;
        if self
            .st
            .stimuli
            .iter()
            .any(|s| c <= s.target && s.target < end)
        {
            return None;
        }
        let mut done = None;
        for a in &self.actions.slots {
            if a.leaf() < c || a.leaf() >= end {
                continue;
            }
            match a.state {
                ActionState::Succeeded | ActionState::Failed if done.is_none() => {
                    done = Some((a.leaf(), a.state == ActionState::Succeeded));
                }
                ActionState::Aborted => {}
                // Another report, or a slot still running.
                _ => return None,
            }
        }
        let (leaf, ok) = done?;
        if self.p.nodes[leaf as usize].tagged {
            return None;
        }
        // The result each node up the chain ends with (`None`: it ends,
        // with a result that depends on conditions).
        let mut result = Some(ok);
        let mut node = leaf;
        while node != c {
            let q = self.p.nodes[node as usize].parent;
            if q == NONE || self.p.nodes[q as usize].tagged {
                return None;
            }
            // How this kind ends with its child: the node table's `report`.
            let (ends, conditions_end) = match self.p.nodes[q as usize].kind.info().report {
                ReportEnd::No => return None,
                ReportEnd::Through { always, invert } => {
                    result = always.map_or(result.map(|r| r != invert), Some);
                    node = q;
                    continue;
                }
                ReportEnd::Sequence => (false, true),
                ReportEnd::ReactiveSequence => (false, false),
                ReportEnd::Selector => (true, true),
                ReportEnd::Fallback => (true, false),
            };
            let kids = self.p.children_of(q);
            let after = kids
                .iter()
                .position(|&k| k == node)
                .map_or(&[][..], |k| &kids[k + 1..]);
            let only_conditions = after.iter().all(|&k| self.p.nodes[k as usize].instant);
            result = match result {
                Some(r) if r == ends => Some(r),
                _ if after.is_empty() => result,
                _ if only_conditions && conditions_end => None,
                _ => return None,
            };
            node = q;
        }
        Some(result)
    }

    /// A node masked by the agent's tags: ignored entirely (the Halo seed),
    /// so the parent carries on as if the node were not there.
    #[cold]
    pub(crate) fn masked(&mut self, i: u32) -> Status {
        let iu = i as usize;
        if self.st.mem.node(iu).status() == Status::Running {
            self.halt(i);
        }
        let s = &mut self.st.mem.node_mut(iu);
        s.clear_flags(flag::PAUSED | flag::COMPLETE);
        s.set_status(Status::Skipped);
        Status::Skipped
    }
}
