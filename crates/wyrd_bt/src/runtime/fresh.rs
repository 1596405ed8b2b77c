//! A decision table for fresh walks.
//!
//! A walk that starts with nothing running (the first tick, or a repeating
//! tree's next cycle) enters every node it ticks afresh, so in a tree whose
//! every decision is a test of a few bool keys (folded guards, no tags, no
//! timers, no randomness, no world values) its outcome depends on those
//! bools alone. Such trees keep, from when they compile, the outcome of
//! that walk for every combination of their bools: which nodes it ticks
//! and how it leaves them, the cursors and remembered children of the
//! composites it enters, the actions it starts, the root's status. A fresh
//! walk is then a table look-up and a copy (about a tenth of the walk).
//! What the walk leaves to the nodes it does not tick (their status kept,
//! their rule flags cleared and paused) is done by hand. The tick's
//! shortcuts are checked against walks from the root in `tests/bt/resume.rs`.

use super::{ActionState, ActiveAction, AgentState, BtActions, Interp, Status, flag, slot_node};
use crate::blackboard::Blackboard;
use crate::program::{Cond, FreshTable, Kind, NONE, Program};
use crate::value::Value;

/// Most bool keys a table covers (2^11 fresh walks when the tree compiles,
/// at most a few hundred kilobytes).
pub(crate) const MAX_BITS: u32 = 11;

/// Whether a condition is a function of the bool mask alone (and its
/// mask's bits).
fn bits_of(p: &Program, c: u32, mask: &mut u64) -> bool {
    match p.conds[c as usize] {
        Cond::Bits { mask: m, .. } | Cond::AnyBits { mask: m, .. } => {
            *mask |= m;
            true
        }
        Cond::Const(_) => true,
        Cond::Not(x) => bits_of(p, x, mask),
        Cond::All { start, len } | Cond::Any { start, len } => p.cond_lists
            [start as usize..(start + len) as usize]
            .iter()
            .all(|&x| bits_of(p, x, mask)),
        _ => false,
    }
}

impl FreshTable {
    /// The table of a program, if its fresh walks depend on a few bool
    /// keys only.
    pub(crate) fn build(p: &Program) -> Option<FreshTable> {
        if !p.resumable
            || p.random
            || p.reads_unset
            || !p.globals.is_empty()
            || !p.detached.is_empty()
            || p.nodes.iter().any(|n| n.tagged)
        {
            return None;
        }
        let mut mask = 0u64;
        for n in &p.nodes {
            let ok = match n.kind {
                Kind::Condition { cond } => bits_of(p, cond, &mut mask),
                _ => n.guard == NONE || bits_of(p, n.guard, &mut mask),
            };
            if !ok {
                return None;
            }
        }
        if mask.count_ones() > MAX_BITS {
            return None;
        }
        let bits: Vec<u8> = (0..64u8).filter(|b| mask & (1u64 << b) != 0).collect();
        let entries = 1usize << bits.len();
        let words = AgentState::new(p, 0).mem.words().len();
        let mut t = FreshTable {
            words,
            keep: Vec::with_capacity(entries * words),
            value: Vec::with_capacity(entries * words),
            started_at: Vec::with_capacity(entries),
            started: Vec::new(),
            status: Vec::with_capacity(entries),
            shift: if bits.is_empty() {
                0
            } else if mask >> bits[0] == (1u64 << bits.len()) - 1 {
                u32::from(bits[0])
            } else {
                u32::MAX
            },
            bits,
        };
        let mut bb = Blackboard::new();
        bb.bind(p);
        for key in 0..entries {
            // The bits are keys below 64 with defaults (folded guards).
            for (j, &b) in t.bits.iter().enumerate() {
                bb.set_index(u16::from(b), Value::Bool(key & (1 << j) != 0));
            }
            let mut state = AgentState::new(p, 0);
            let mut actions = BtActions::default();
            actions.reserve(p.action_capacity());
            let status = {
                let mut it = Interp::new(p, &mut state, &mut bb, &mut actions, None);
                it.check_needs = false;
                for s in it.st.mem.nodes_mut() {
                    s.add_flags(flag::PAUSED);
                }
                it.walk()
            };
            // The masks, built in a state of the same layout: all kept,
            // then per node what the walk did.
            let mut keep = AgentState::new(p, 0);
            let mut value = AgentState::new(p, 0);
            keep.mem.words_mut().fill(u32::MAX);
            value.mem.words_mut().fill(0);
            for (i, s) in state.mem.nodes().iter().enumerate() {
                let node = &p.nodes[i];
                let ticked = s.bits() & flag::PAUSED == 0;
                if ticked {
                    *keep.mem.node_mut(i) = super::NodeState::from_raw(0);
                    *value.mem.node_mut(i) = *s;
                } else {
                    // Passed by: the status kept, the root's entry cleared
                    // the flags, the walk paused it.
                    *keep.mem.node_mut(i) = super::NodeState::from_raw(0x70);
                    *value.mem.node_mut(i) = super::NodeState::from_raw(
                        flag::PAUSED
                            | if node.does_complete {
                                flag::DOES_COMPLETE
                            } else {
                                0
                            },
                    );
                }
                // A ticked composite was entered (instant nodes never
                // are): its cursor and remembered child are the walk's.
                if ticked && !node.instant {
                    if node.cursor != NONE {
                        let c = node.cursor as usize;
                        *keep.mem.cursor_mut(c) = 0;
                        *value.mem.cursor_mut(c) = state.mem.cursor(c);
                    }
                    if node.aux != NONE {
                        let a = node.aux as usize;
                        *keep.mem.aux_word_mut(a) = 0;
                        *value.mem.aux_word_mut(a) = state.mem.aux_word(a);
                    }
                }
            }
            t.keep.extend_from_slice(keep.mem.words());
            t.value.extend_from_slice(value.mem.words());
            let from = t.started.len() as u32;
            t.started.extend(actions.slots.iter().map(|a| a.leaf()));
            t.started_at.push((from, t.started.len() as u32));
            t.status.push(status);
        }
        Some(t)
    }

    /// Entries (0: none).
    pub(crate) fn len(&self) -> usize {
        self.status.len()
    }

    /// The entry of a bool mask.
    #[inline]
    fn entry(&self, bools: u64) -> usize {
        if self.shift != u32::MAX {
            return ((bools >> self.shift) & ((1u64 << self.bits.len()) - 1)) as usize;
        }
        let mut k = 0;
        for (j, &b) in self.bits.iter().enumerate() {
            k |= (((bools >> b) & 1) as usize) << j;
        }
        k
    }
}

impl Interp<'_> {
    /// A fresh walk from the table, when the program has one, the walk is
    /// fresh (nothing runs) and untraced; `None`: walk.
    #[inline]
    pub(super) fn fresh_walk(&mut self) -> Option<Status> {
        let t = self.p.fresh.as_deref()?;
        if !self.tables
            || self.trace.is_some()
            || !self.st.stimuli.is_empty()
            || self.st.mem.node(0).status() == Status::Running
        {
            return None;
        }
        // Nothing runs (status bits 0x10; the root's parents-run-children
        // rule makes this so when the root does not, but a restored state
        // is checked), without branches per node.
        let running = self
            .st
            .mem
            .nodes()
            .iter()
            .fold(0u8, |acc, s| acc | u8::from(s.raw() & 0x70 == 0x10));
        if running != 0 {
            return None;
        }
        let e = t.entry(self.bb.bools());
        let (from, to) = t.started_at[e];
        // The table's walk started its actions; one whose input key is
        // unset here would fail instead: that walk is walked.
        for &leaf in &t.started[from as usize..to as usize] {
            if let Kind::Action { action } = self.p.nodes[leaf as usize].kind
                && self.p.actions[action as usize]
                    .needs
                    .iter()
                    .any(|&k| !self.bb.is_set(k))
            {
                return None;
            }
        }
        let words = self.st.mem.words_mut();
        let n = t.words;
        if words.len() != n {
            return None;
        }
        let (keep, value) = (&t.keep[e * n..][..n], &t.value[e * n..][..n]);
        for i in 0..n {
            words[i] = (words[i] & keep[i]) | value[i];
        }
        for &leaf in &t.started[from as usize..to as usize] {
            let Kind::Action { action } = self.p.nodes[leaf as usize].kind else {
                continue;
            };
            self.actions.slots.push(ActiveAction {
                id: self.p.actions[action as usize].id,
                node: slot_node(leaf),
                state: ActionState::Started,
                started_ms: self.st.now_ms,
            });
        }
        Some(t.status[e])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::TickEnv;

    crate::bt_action! {
        /// Chases someone.
        pub struct Chase {
            /// Whom.
            pub whom: bevy::ecs::entity::Entity,
        }
    }

    /// A tree whose action reads a key keeps its fresh-walk table (the
    /// review: failing such an action when its key is unset had turned
    /// the table off for every tree with one); a fresh walk that would
    /// start it with the key unset walks instead, and fails it.
    #[test]
    fn an_action_reading_a_key_keeps_the_table_and_an_unset_key_walks() {
        let mut vocab = crate::Vocabulary::default();
        vocab.add_action_type::<Chase>();
        let text = r#"(
    blackboard: {"alarmed": true, "whom": Entity},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "chase", children: [Condition(check: Is("alarmed")), Action(action: "Chase", params: {"whom": "{whom}"})]),
        Succeed(name: "calm"),
    ]),
)"#;
        let p = crate::compile_str("t.bt.ron", text, &vocab).unwrap();
        assert!(p.fresh.is_some(), "the table is kept");
        let run = |whom: Option<bevy::ecs::entity::Entity>| {
            let mut bb = Blackboard::new();
            bb.bind(&p);
            if let Some(e) = whom {
                bb.set("whom", e).unwrap();
            }
            let mut state = AgentState::new(&p, 0);
            let mut actions = BtActions::default();
            actions.reserve(p.action_capacity());
            crate::runtime::tick_agent(
                &p,
                &mut state,
                &mut bb,
                &mut actions,
                33,
                TickEnv::default(),
            );
            actions.iter().filter(|a| a.is_running()).count()
        };
        assert_eq!(run(None), 0, "not started: its key is unset");
        let e = bevy::ecs::entity::Entity::from_raw_u32(7).unwrap();
        assert_eq!(run(Some(e)), 1, "started from the table");
    }
}
