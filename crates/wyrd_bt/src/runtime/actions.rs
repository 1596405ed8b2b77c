//! Action slots: what game systems query and report on.

use bevy::ecs::component::Component;
use bevy::ecs::reflect::ReflectComponent;
use bevy::reflect::std_traits::ReflectDefault;

use crate::program::ActionId;

/// What an action is doing. Game systems read and set it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bevy::reflect::Reflect)]
pub enum ActionState {
    /// Started in the last tick: set things up.
    Started,
    /// Still running.
    Running,
    /// The game reported success; the tree sees it on its next tick.
    Succeeded,
    /// The game reported failure.
    Failed,
    /// The tree stopped it (interrupted by a higher priority, a broken guard,
    /// a timeout, a restart, the agent bound to another tree...): clean up.
    /// Removed on the next tick.
    Aborted,
}

/// An action the agent runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bevy::reflect::Reflect)]
pub struct ActiveAction {
    /// Which action.
    pub id: ActionId,
    /// The leaf node (for parameters: [`Program::action_of`](crate::Program::action_of));
    /// `u16::MAX` for a slot aborted when the agent was bound to another
    /// tree (its leaf is in the old one).
    /// A `u16`: a compiled tree has at most 20,000 nodes, and a slot of 12
    /// bytes keeps four slots and the `BtActions` component in 56 bytes
    /// (issue 29's 256 bytes per agent).
    pub node: u16,
    /// Its state.
    pub state: ActionState,
    /// Agent time (ms) when it started.
    pub started_ms: u32,
}

impl ActionState {
    /// Whether the game still has to act on it (started or running).
    #[inline]
    pub(crate) fn is_running(self) -> bool {
        matches!(self, ActionState::Started | ActionState::Running)
    }
}

/// A program's node index as a slot's [`ActiveAction::node`] (a compiled
/// tree has at most 20,000 nodes; `u16::MAX`, no node, otherwise).
#[inline(always)]
pub(crate) fn slot_node(node: u32) -> u16 {
    u16::try_from(node).unwrap_or(u16::MAX)
}

impl ActiveAction {
    /// The slot's leaf node as a program's node index (the `u32` the
    /// program's views take).
    #[inline]
    pub fn leaf(&self) -> u32 {
        u32::from(self.node)
    }

    /// Whether two slots are one run of one action (the same leaf, started
    /// at the same time): a report on a copy, or a saved slot, and the
    /// agent's own.
    pub(crate) fn same_run(&self, other: &ActiveAction) -> bool {
        self.id == other.id && self.node == other.node && self.started_ms == other.started_ms
    }

    /// Whether the game still has to act on it (started or running).
    #[inline]
    pub fn is_running(&self) -> bool {
        self.state.is_running()
    }

    /// Reports success (ignored unless running).
    #[inline]
    pub fn succeed(&mut self) {
        if self.is_running() {
            self.state = ActionState::Succeeded;
        }
    }

    /// Reports failure (ignored unless running).
    #[inline]
    pub fn fail(&mut self) {
        if self.is_running() {
            self.state = ActionState::Failed;
        }
    }
}

/// Slots kept in the component itself: the reference tree needs four
/// (two per action that can run at once, and two), more spill to the heap
/// when the tree binds.
pub(crate) type Slots = smallvec::SmallVec<[ActiveAction; 4]>;

/// The actions an agent runs: what ordinary game systems query.
///
/// The slots are allocated once (in the component for up to four);
/// starting and stopping actions changes fields, never the entity's
/// archetype.
#[derive(Component, Debug, Clone, Default, bevy::reflect::Reflect)]
#[reflect(Component, Default, Debug)]
pub struct BtActions {
    pub(crate) slots: Slots,
}

impl BtActions {
    /// All slots (running, just finished, just aborted).
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = &ActiveAction> {
        self.slots.iter()
    }

    /// All slots, to report results.
    #[inline]
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut ActiveAction> {
        self.slots.iter_mut()
    }

    /// The running slot of an action, if any.
    #[inline]
    pub fn running(&mut self, id: ActionId) -> Option<&mut ActiveAction> {
        self.slots.iter_mut().find(|a| a.id == id && a.is_running())
    }

    /// Whether an action is running.
    #[inline]
    pub fn is_running(&self, id: ActionId) -> bool {
        self.slots.iter().any(|a| a.id == id && a.is_running())
    }

    /// The pass every tick starts with (walked or skipped): started slots
    /// now run, aborted ones (told last tick) go, unless `keep_aborted`
    /// (the first tick after slots were aborted outside a tick: a restart,
    /// another tree, a restore; the game has not been told yet). Returns
    /// whether a slot has a report for the tree to take; `stop_at_report`:
    /// then at once (a skip that finds one gives way to a walk, which
    /// settles the slots again: settling is idempotent).
    #[inline(always)]
    pub(crate) fn settle(&mut self, stop_at_report: bool, keep_aborted: bool) -> bool {
        let (mut aborted, mut report) = (false, false);
        for a in self.slots.iter_mut() {
            match a.state {
                ActionState::Started => a.state = ActionState::Running,
                ActionState::Running => {}
                ActionState::Aborted => aborted = true,
                ActionState::Succeeded | ActionState::Failed if stop_at_report => return true,
                ActionState::Succeeded | ActionState::Failed => report = true,
            }
        }
        if aborted && !keep_aborted {
            self.slots.retain(|a| a.state != ActionState::Aborted);
        }
        report
    }

    /// A result an action system reported on a copy of a slot
    /// ([`RunningActions`](crate::RunningActions)): the slot it was copied
    /// from, if it still runs, takes its state.
    pub(crate) fn take_report(&mut self, report: &ActiveAction) {
        if let Some(slot) = self
            .slots
            .iter_mut()
            .find(|s| s.same_run(report) && s.is_running())
        {
            slot.state = report.state;
        }
    }

    /// Marks the running slots aborted and drops the others: reports the
    /// fresh tree must not take, and aborts the game was told of (`untold`:
    /// the aborts are not told yet, kept too). What a tree that starts
    /// afresh leaves for the game to clean up; returns whether any slot is
    /// left (aborted).
    pub(crate) fn abort_all(&mut self, untold: bool) -> bool {
        self.slots
            .retain(|a| a.is_running() || (untold && a.state == ActionState::Aborted));
        for a in self.slots.iter_mut() {
            a.state = ActionState::Aborted;
        }
        !self.slots.is_empty()
    }

    /// Clears the slots and reserves room for `n` actions (done when a tree
    /// binds: the tick never grows it).
    pub fn reserve(&mut self, n: usize) {
        self.slots.clear();
        self.slots.reserve(n);
    }
}
