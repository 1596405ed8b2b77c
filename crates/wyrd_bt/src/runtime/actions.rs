//! Action slots: what game systems query and report on.

use bevy::ecs::component::Component;
use bevy::ecs::reflect::ReflectComponent;
use bevy::reflect::std_traits::ReflectDefault;

use bevy::ecs::entity::Entity;

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
    /// a timeout...): clean up. Removed on the next tick.
    Aborted,
}

/// An action the agent runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bevy::reflect::Reflect)]
pub struct ActiveAction {
    /// Which action.
    pub id: ActionId,
    /// The leaf node (for parameters: [`Program::action_of`](crate::Program::action_of)).
    pub node: u32,
    /// Its state.
    pub state: ActionState,
    /// Agent time (ms) when it started.
    pub started_ms: u32,
}

impl ActiveAction {
    /// Whether the game still has to act on it (started or running).
    pub fn is_running(&self) -> bool {
        matches!(self.state, ActionState::Started | ActionState::Running)
    }

    /// Reports success (ignored unless running).
    pub fn succeed(&mut self) {
        if self.is_running() {
            self.state = ActionState::Succeeded;
        }
    }

    /// Reports failure (ignored unless running).
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
    /// The program the slots' leaves belong to (set when the tree binds),
    /// so that an action system reads parameters from this component alone:
    /// [`Running`](crate::Running) visits agents in list order, and every
    /// other component it touched would be one more cache miss per agent.
    #[reflect(ignore)]
    pub(crate) program: Option<std::sync::Arc<crate::program::Program>>,
    /// The agent's time (ms) after its last tick.
    pub(crate) now_ms: u32,
    /// What the running-actions index lists the agent under (here, not on
    /// `BtAgent`: the tick compares it with the slots it just touched).
    #[reflect(ignore)]
    pub(crate) listing: Listing,
}

impl BtActions {
    /// All slots (running, just finished, just aborted).
    pub fn iter(&self) -> impl Iterator<Item = &ActiveAction> {
        self.slots.iter()
    }

    /// All slots, to report results.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut ActiveAction> {
        self.slots.iter_mut()
    }

    /// The running slot of an action, if any.
    pub fn running(&mut self, id: ActionId) -> Option<&mut ActiveAction> {
        self.slots.iter_mut().find(|a| a.id == id && a.is_running())
    }

    /// Whether an action is running.
    pub fn is_running(&self, id: ActionId) -> bool {
        self.slots.iter().any(|a| a.id == id && a.is_running())
    }

    /// A slot's leaf data (name, parameters), once the tree is bound.
    pub fn action_info(&self, slot: &ActiveAction) -> Option<&crate::program::ActionInfo> {
        self.program.as_ref()?.action_of(slot.node)
    }

    /// The agent's time (ms) after its last tick (a slot's `started_ms` is
    /// on the same clock).
    pub fn now_ms(&self) -> u32 {
        self.now_ms
    }

    /// Brings the running-actions listing up to date with the slots.
    #[inline]
    pub(crate) fn relist(&mut self, entity: Entity, changes: &mut Vec<ListingChange>) {
        self.listing.update(entity, &self.slots, changes);
    }

    /// The pass every tick starts with (walked or skipped): started slots
    /// now run, aborted ones (told last tick) go. Returns whether a slot
    /// has a report for the tree to take; `stop_at_report`: then at once
    /// (a skip that finds one gives way to a walk, which settles the slots
    /// again: settling is idempotent).
    #[inline(always)]
    pub(crate) fn settle(&mut self, stop_at_report: bool) -> bool {
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
        if aborted {
            self.slots.retain(|a| a.state != ActionState::Aborted);
        }
        report
    }

    /// Clears the slots and reserves room for `n` actions (done when a tree
    /// binds: the tick never grows it).
    pub fn reserve(&mut self, n: usize) {
        self.slots.clear();
        self.slots.reserve(n);
    }
}

/// One agent's entry in the index changed: it now has (or no longer has) a
/// slot of an action.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListingChange {
    pub(crate) entity: Entity,
    pub(crate) id: ActionId,
    pub(crate) listed: bool,
}

/// Per agent: the action ids of its slots as the running-actions index
/// ([`RunningActions`](crate::RunningActions)) lists them (slot order, as
/// of its last tick).
#[derive(Debug, Clone, Default)]
pub(crate) struct Listing(smallvec::SmallVec<[ActionId; 4]>);

impl Listing {
    /// Brings the listing up to date with the slots, recording what the
    /// index must change.
    #[inline]
    pub(crate) fn update(
        &mut self,
        entity: Entity,
        slots: &[ActiveAction],
        changes: &mut Vec<ListingChange>,
    ) {
        if self.0.len() == slots.len() && self.0.iter().zip(slots).all(|(id, s)| *id == s.id) {
            return;
        }
        self.changed(entity, slots, changes);
    }

    #[cold]
    fn changed(
        &mut self,
        entity: Entity,
        slots: &[ActiveAction],
        changes: &mut Vec<ListingChange>,
    ) {
        let now = |id: ActionId| slots.iter().any(|s| s.id == id);
        for (i, &id) in self.0.iter().enumerate() {
            // Once per id (a tree may run one action twice at once).
            if !self.0[..i].contains(&id) && !now(id) {
                changes.push(ListingChange {
                    entity,
                    id,
                    listed: false,
                });
            }
        }
        for (i, s) in slots.iter().enumerate() {
            if !slots[..i].iter().any(|o| o.id == s.id) && !self.0.contains(&s.id) {
                changes.push(ListingChange {
                    entity,
                    id: s.id,
                    listed: true,
                });
            }
        }
        self.0.clear();
        self.0.extend(slots.iter().map(|s| s.id));
    }
}
