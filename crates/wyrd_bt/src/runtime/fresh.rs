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
//! shortcuts are checked against walks from the root in `tests/resume.rs`.

use super::{ActionState, ActiveAction, AgentState, BtActions, Interp, Status, rule};
use crate::blackboard::Blackboard;
use crate::program::{Cond, Kind, NONE, Program};
use crate::value::Value;

/// Most bool keys a table covers (2^11 fresh walks when the tree compiles,
/// at most a few hundred kilobytes).
pub(crate) const MAX_BITS: u32 = 11;

/// The outcomes of a program's fresh walk, one per combination of the bool
/// keys its conditions read. Each entry is whole arrays with masks, so that
/// applying one is a few vector operations: a node's new state is the
/// entry's where the mask is set (the nodes the walk ticked) and the old
/// status with the rule flags of a node passed by elsewhere; a cursor or
/// aux word is the entry's where the mask is set (composites the walk
/// entered) and the old one elsewhere.
#[derive(Debug, Clone, Default)]
pub(crate) struct FreshTable {
    /// The bit of each key the table is indexed by, low bit first.
    bits: Vec<u8>,
    /// Per entry, per node: the state byte and the mask (0xFF: ticked).
    nodes: Vec<u8>,
    node_masks: Vec<u8>,
    /// Per node: the flags of a node the walk passes by (paused, and
    /// DOES_COMPLETE when it can complete).
    passed: Vec<u8>,
    /// Per entry, per cursor and per aux word: the value and the mask.
    cursors: Vec<u16>,
    cursor_masks: Vec<u16>,
    aux: Vec<u32>,
    aux_masks: Vec<u32>,
    /// Per entry, the actions started (leaf nodes, in order): a range of
    /// `started`.
    started_at: Vec<(u32, u32)>,
    started: Vec<u32>,
    /// Per entry, the root's status.
    status: Vec<Status>,
}

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
        let (n, nc, na) = (p.nodes.len(), p.cursor_count as usize, p.aux_count as usize);
        let mut t = FreshTable {
            nodes: Vec::with_capacity(entries * n),
            node_masks: Vec::with_capacity(entries * n),
            passed: p
                .nodes
                .iter()
                .map(|n| {
                    rule::PAUSED
                        | if n.does_complete {
                            rule::DOES_COMPLETE
                        } else {
                            0
                        }
                })
                .collect(),
            cursors: Vec::with_capacity(entries * nc),
            cursor_masks: Vec::with_capacity(entries * nc),
            aux: Vec::with_capacity(entries * na),
            aux_masks: Vec::with_capacity(entries * na),
            started_at: Vec::with_capacity(entries),
            started: Vec::new(),
            status: Vec::with_capacity(entries),
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
                let mut it = Interp::new(p, &mut state, &bb, &mut actions, None);
                for s in it.st.mem.nodes_mut() {
                    s.add_flags(rule::PAUSED);
                }
                it.walk()
            };
            let mut cursor_masks = vec![0u16; nc];
            let mut aux_masks = vec![0u32; na];
            for (i, s) in state.mem.nodes().iter().enumerate() {
                let ticked = s.bits() & rule::PAUSED == 0;
                t.nodes.push(s.raw());
                t.node_masks.push(if ticked { 0xFF } else { 0 });
                // A ticked composite was entered (instant nodes never
                // are): its cursor and remembered child are the walk's.
                let node = &p.nodes[i];
                if ticked && !node.instant {
                    if node.cursor != NONE {
                        cursor_masks[node.cursor as usize] = u16::MAX;
                    }
                    if node.aux != NONE {
                        aux_masks[node.aux as usize] = u32::MAX;
                    }
                }
            }
            t.cursors.extend_from_slice(state.mem.cursors());
            t.cursor_masks.extend_from_slice(&cursor_masks);
            t.aux.extend_from_slice(state.mem.aux());
            t.aux_masks.extend_from_slice(&aux_masks);
            let from = t.started.len() as u32;
            t.started.extend(actions.slots.iter().map(|a| a.node));
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
        if !self.tables || self.trace.is_some() || !self.st.stimuli.is_empty() {
            return None;
        }
        // Nothing runs (status bits 0x10), without branches per node.
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
        let n = t.passed.len();
        let (bytes, masks) = (&t.nodes[e * n..][..n], &t.node_masks[e * n..][..n]);
        for (((s, &b), &m), &passed) in self
            .st
            .mem
            .nodes_mut()
            .iter_mut()
            .zip(bytes)
            .zip(masks)
            .zip(&t.passed)
        {
            let old = s.raw();
            *s = super::NodeState::from_raw((b & m) | (((old & 0x70) | passed) & !m));
        }
        let nc = t.cursors.len() / t.status.len();
        let (cursors, masks) = (&t.cursors[e * nc..][..nc], &t.cursor_masks[e * nc..][..nc]);
        for ((c, &v), &m) in self.st.mem.cursors_mut().iter_mut().zip(cursors).zip(masks) {
            *c = (v & m) | (*c & !m);
        }
        let na = t.aux.len() / t.status.len();
        let (aux, masks) = (&t.aux[e * na..][..na], &t.aux_masks[e * na..][..na]);
        for ((a, &v), &m) in self.st.mem.aux_mut().iter_mut().zip(aux).zip(masks) {
            *a = (v & m) | (*a & !m);
        }
        let (from, to) = t.started_at[e];
        for &leaf in &t.started[from as usize..to as usize] {
            let Kind::Action { action } = self.p.nodes[leaf as usize].kind else {
                continue;
            };
            self.actions.slots.push(ActiveAction {
                id: self.p.actions[action as usize].id,
                node: leaf,
                state: ActionState::Started,
                started_ms: self.st.now_ms,
            });
        }
        Some(t.status[e])
    }
}
