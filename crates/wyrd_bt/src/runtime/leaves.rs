//! Leaves: actions, conditions, rules, thresholds, timers, constants.

use super::{ActionEvent, ActionState, ActiveAction, Interp, Status, flag, slot_node};
use crate::kind::Instant;
use crate::program::Kind;
use crate::value::Value;

impl Interp<'_> {
    #[inline(always)]
    pub(super) fn tick_leaf(&mut self, i: u32, kind: Kind) -> Status {
        match kind {
            Kind::Action { .. } => self.action(i),
            Kind::Condition { cond } => {
                if self.test(cond) {
                    Status::Success
                } else {
                    Status::Failure
                }
            }
            // Trainz: waits for its condition; COMPLETE while it holds.
            Kind::Rule { cond } => {
                if self.test(cond) {
                    Status::Success
                } else {
                    self.st.mem.node_mut(i as usize).clear_flags(flag::COMPLETE);
                    Status::Running
                }
            }
            Kind::Threshold { cond, count } => {
                if self.test(cond) {
                    *self.aux_of(i) += 1;
                }
                if *self.aux_of(i) >= count {
                    Status::Success
                } else {
                    Status::Running
                }
            }
            Kind::Wait { ms } => {
                let start = *self.aux_of(i);
                if self.elapsed(start, ms) {
                    Status::Success
                } else {
                    Status::Running
                }
            }
            Kind::SetBlackboard { write } => {
                let w = self.p.writes[write as usize];
                // A value the key cannot hold (2.5 read from a float key
                // for an int one) is not written: the node fails.
                match w.value.read(self.bb) {
                    Some(v) if self.bb.write_index(w.key, v) => Status::Success,
                    _ => Status::Failure,
                }
            }
            Kind::AddBlackboard { write } => {
                let w = self.p.writes[write as usize];
                let sum = match (self.bb.get_index(w.key), w.value.read(self.bb)) {
                    (Some(Value::Int(a)), Some(Value::Int(b))) => Value::Int(a.saturating_add(b)),
                    (Some(Value::Float(a)), Some(b @ (Value::Float(_) | Value::Int(_)))) => {
                        Value::Float(a + b.as_f64())
                    }
                    _ => return Status::Failure,
                };
                self.bb.set_index(w.key, sum);
                Status::Success
            }
            Kind::UnsetBlackboard { key } => {
                self.bb.clear_index(key);
                Status::Success
            }
            Kind::Succeed => Status::Success,
            Kind::Fail => Status::Failure,
            Kind::Forever => Status::Running,
            _ => unreachable!("{} is not a leaf", kind.name()),
        }
    }

    /// An action leaf: running until the game reports; the report is taken
    /// (and the slot freed) in the tree's next tick.
    pub(super) fn action(&mut self, i: u32) -> Status {
        match self
            .actions
            .slots
            .iter()
            .position(|a| a.leaf() == i && a.state != ActionState::Aborted)
        {
            Some(k) => {
                let status = match self.actions.slots[k].state {
                    ActionState::Succeeded => Status::Success,
                    ActionState::Failed => Status::Failure,
                    _ => return Status::Running,
                };
                self.actions.slots.swap_remove(k);
                if let Some(t) = self.trace.as_deref_mut() {
                    t.actions.push((i, ActionEvent::Finished(status)));
                }
                status
            }
            // The slot vanished (e.g. the game cleared actions): start over.
            None => Status::Failure,
        }
    }

    /// Gives a starting action leaf its slot (reserved when the tree
    /// bound: no allocation). An action whose input reads a key that is
    /// unset does not start: its leaf fails at once (it would fail in the
    /// game's first visit, having taken over from what ran), and the key
    /// is noted as read unset.
    pub(super) fn start_action(&mut self, i: u32) {
        let Kind::Action { action } = self.p.nodes[i as usize].kind else {
            return;
        };
        let info = &self.p.actions[action as usize];
        if self.check_needs
            && let Some(&key) = info.needs.iter().find(|&&k| !self.bb.is_set(k))
        {
            self.unset(key);
            return;
        }
        self.actions.slots.push(ActiveAction {
            id: info.id,
            node: slot_node(i),
            state: ActionState::Started,
            started_ms: self.st.now_ms,
        });
        if let Some(t) = self.trace.as_deref_mut() {
            t.actions.push((i, ActionEvent::Started));
        }
    }

    /// Tells the game a running action leaf stopped.
    pub(super) fn abort_action(&mut self, j: u32) {
        if let Some(k) = self
            .actions
            .slots
            .iter()
            .position(|a| a.leaf() == j && a.state != ActionState::Aborted)
        {
            let event = match self.actions.slots[k].state {
                ActionState::Succeeded => ActionEvent::Finished(Status::Success),
                ActionState::Failed => ActionEvent::Finished(Status::Failure),
                _ => ActionEvent::Aborted,
            };
            if event == ActionEvent::Aborted {
                self.actions.slots[k].state = ActionState::Aborted;
            } else {
                // Finished by the game before the branch stopped (the game
                // finished it and, in the same step, changed what woke a
                // higher priority, as BT.CPP's action returns SUCCESS from
                // the call that wrote the blackboard): the report is taken,
                // nothing is aborted.
                self.actions.slots.swap_remove(k);
            }
            if let Some(t) = self.trace.as_deref_mut() {
                t.actions.push((j, event));
            }
        }
    }

    /// Ticks a node made of conditions only: no timers, no actions, no
    /// cursor, so none of the bookkeeping of [`tick_node`](Self::tick_node).
    pub(super) fn tick_instant(&mut self, i: u32) -> Status {
        let iu = i as usize;
        let p = self.p;
        let node = &p.nodes[iu];
        if let Some(t) = self.trace.as_deref_mut() {
            t.ticked.push(i);
        }
        self.st.mem.node_mut(iu).clear_flags(flag::PAUSED);
        let ok = (!node.is_tagged() || self.tags_ok(i))
            // The fold of the kind's row (copied into the node's facts).
            && match node.facts.instant {
                Instant::Own => match node.kind {
                    Kind::Condition { cond } => self.test(cond),
                    _ => false,
                },
                Instant::True => true,
                Instant::False | Instant::Never => false,
                Instant::Not => {
                    let c = self.child(i, 0);
                    self.tick_instant(c) == Status::Failure
                }
                Instant::All => {
                    let (first, count) = (node.first_child as usize, node.child_count as usize);
                    (first..first + count)
                        .all(|k| self.tick_instant(self.p.children[k]) == Status::Success)
                }
                Instant::Any => {
                    let (first, count) = (node.first_child as usize, node.child_count as usize);
                    (first..first + count)
                        .any(|k| self.tick_instant(self.p.children[k]) == Status::Success)
                }
            };
        self.st.mem.node_mut(iu).finish_instant(ok)
    }

    /// [`tick_node`](Self::tick_node) with the commonest child, an untagged
    /// condition, done in place (no calls): the bookkeeping is the same as
    /// [`tick_instant`](Self::tick_instant)'s.
    #[inline(always)]
    pub(super) fn tick_child(&mut self, c: u32) -> Status {
        let p = self.p;
        let node = &p.nodes[c as usize];
        if let Kind::Condition { cond } = node.kind
            && !node.is_tagged()
            && self.trace.is_none()
        {
            let ok = self.test(cond);
            return self.st.mem.node_mut(c as usize).finish_instant(ok);
        }
        self.tick_node(c)
    }
}
