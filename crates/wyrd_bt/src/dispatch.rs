//! Typed action dispatch: [`Running<A>`], the agents running action `A`.
//!
//! The tree tick keeps an index of which agents have a slot of which
//! action ([`RunningActions`]): after each agent's tick it compares the
//! action ids of its slots with what the index lists it under (a compare
//! of at most four ids; most ticks start and stop nothing) and records the
//! difference. An action system then visits only the agents in its list,
//! instead of every agent's [`BtActions`].

use std::collections::HashMap;
use std::marker::PhantomData;

use bevy::ecs::entity::Entity;
use bevy::ecs::prelude::*;
use bevy::ecs::query::QueryFilter;
use bevy::ecs::system::SystemParam;
use bevy::log::warn;

use crate::agent::BtAgent;
use crate::blackboard::Blackboard;
use crate::problem::AgentProblem;
use crate::program::ActionId;
use crate::registry::BtAction;
use crate::runtime::{ActionState, ActiveAction, BtActions, ListingChange};

/// Which agents have a slot of which action (started, running, or aborted
/// and still to be cleaned up), kept by the tree tick in
/// [`BtSystems::Decide`](crate::BtSystems::Decide). [`Running<A>`] reads it;
/// tools can count with it (how many agents run each action).
///
/// An agent is listed from the tick that starts an action to the tick after
/// the action ended (so that its system sees it aborted). Each list is in
/// entity order: the same in every run, whatever threads ticked, and close
/// to the order the agents' components lie in memory (visiting a list in
/// the order its changes came would read the components at random).
#[derive(Resource, Debug, Default)]
pub struct RunningActions {
    lists: HashMap<ActionId, ActionList>,
    /// Read by actions whose parameters are all constants.
    no_keys: Blackboard,
    /// Lists with changes to merge.
    dirty: Vec<ActionId>,
    scratch: Vec<Entity>,
}

/// One action's agents, sorted, and this tick's changes to them.
#[derive(Debug, Default)]
struct ActionList {
    agents: Vec<Entity>,
    added: Vec<Entity>,
    removed: Vec<Entity>,
}

impl ActionList {
    /// Merges the changes in (both sorted first): one pass over the list.
    fn settle(&mut self, out: &mut Vec<Entity>) {
        self.added.sort_unstable();
        self.removed.sort_unstable();
        out.clear();
        let (mut old, mut new) = (self.agents.iter().peekable(), self.added.iter().peekable());
        let mut removed = self.removed.iter().peekable();
        loop {
            let next = match (old.peek(), new.peek()) {
                (Some(&&a), Some(&&b)) if b < a => new.next().copied(),
                (Some(_), _) => old.next().copied(),
                (None, Some(_)) => new.next().copied(),
                (None, None) => break,
            };
            let Some(e) = next else { break };
            while removed.next_if(|&&r| r < e).is_some() {}
            if removed.peek() == Some(&&e) || out.last() == Some(&e) {
                continue;
            }
            out.push(e);
        }
        std::mem::swap(&mut self.agents, out);
        self.added.clear();
        self.removed.clear();
    }
}

impl RunningActions {
    /// The agents listed under an action, in entity order.
    pub fn agents(&self, id: ActionId) -> &[Entity] {
        self.lists.get(&id).map_or(&[], |l| l.agents.as_slice())
    }

    /// How many agents are listed under an action.
    pub fn count(&self, id: ActionId) -> usize {
        self.agents(id).len()
    }

    /// Every action with at least one agent listed, and how many.
    pub fn counts(&self) -> impl Iterator<Item = (ActionId, usize)> + '_ {
        self.lists
            .iter()
            .filter(|(_, l)| !l.agents.is_empty())
            .map(|(id, l)| (*id, l.agents.len()))
    }

    /// Takes a thread's changes (its buffer keeps its room for the next
    /// tick).
    pub(crate) fn gather(&mut self, changes: &mut Vec<ListingChange>) {
        for c in changes.drain(..) {
            let list = self.lists.entry(c.id).or_default();
            if list.added.is_empty() && list.removed.is_empty() {
                self.dirty.push(c.id);
            }
            if c.listed {
                list.added.push(c.entity);
            } else {
                list.removed.push(c.entity);
            }
        }
    }

    /// An agent left (despawned, or its tree components removed).
    pub(crate) fn forget(&mut self, entity: Entity) {
        for (id, list) in &mut self.lists {
            if list.agents.binary_search(&entity).is_ok() || list.added.contains(&entity) {
                if list.added.is_empty() && list.removed.is_empty() {
                    self.dirty.push(*id);
                }
                list.removed.push(entity);
            }
        }
    }

    /// Merges the gathered changes into the lists.
    pub(crate) fn settle(&mut self) {
        for id in self.dirty.drain(..) {
            if let Some(list) = self.lists.get_mut(&id) {
                list.settle(&mut self.scratch);
            }
        }
    }
}

/// The agents running action `A`, with `A`'s parameters read: a system
/// parameter for your action systems in
/// [`BtSystems::Act`](crate::BtSystems::Act). It visits only the agents
/// that run `A` (see [`RunningActions`]), not every agent. `F` filters them
/// like a query filter (`Running<Chase, With<Guard>>`). For several actions
/// in one system, use [`ActionRuns`] (two `Running` in one system would
/// both borrow the agents' components).
///
/// ```
/// use bevy::prelude::*;
/// use wyrd_bt::prelude::*;
///
/// bt_action! {
///     /// Walk to a point.
///     pub struct Walk {
///         /// Where.
///         pub goal: Vec2,
///         /// Metres per second.
///         pub speed: f32,
///     }
/// }
///
/// #[derive(Component)]
/// struct Pos(Vec2);
///
/// fn walk(mut walks: Running<Walk>, mut pos: Query<&mut Pos>, time: Res<Time>) {
///     walks.for_each(|mut walk| {
///         let Ok(mut pos) = pos.get_mut(walk.entity()) else {
///             return walk.fail();
///         };
///         let Walk { goal, speed } = *walk.params();
///         pos.0 = pos.0.move_towards(goal, speed * time.delta_secs());
///         if pos.0 == goal {
///             walk.succeed();
///         }
///     });
/// }
/// # App::new().add_systems(FixedUpdate, walk.in_set(BtSystems::Act));
/// ```
///
/// An action whose parameters cannot be read (an entity parameter whose
/// key is not set) fails, with an [`AgentProblem::ActionParams`] on the
/// agent. [`Running::for_each_aborted`] visits the slots the tree stopped,
/// for clean-up.
#[derive(SystemParam)]
pub struct Running<'w, 's, A: BtAction, F: QueryFilter + 'static = ()> {
    runs: ActionRuns<'w, 's, F>,
    action: PhantomData<fn() -> A>,
}

impl<A: BtAction, F: QueryFilter + 'static> Running<'_, '_, A, F> {
    /// Calls `f` for each running slot of `A` (started in the last tick or
    /// running on), with its parameters read.
    pub fn for_each(&mut self, f: impl FnMut(RunningAction<'_, A>)) {
        self.runs.for_each::<A>(f);
    }

    /// Calls `f` for each slot of `A` the tree stopped in its last tick
    /// (interrupted by a higher priority, a broken guard, a timeout): undo
    /// what the action started. The slot goes at the next tick.
    pub fn for_each_aborted(&mut self, f: impl FnMut(Entity, &ActiveAction)) {
        self.runs.for_each_aborted::<A>(f);
    }

    /// How many agents have a slot of `A` (running or just aborted; before
    /// the filter).
    pub fn len(&self) -> usize {
        self.runs.count::<A>()
    }

    /// Whether no agent has a slot of `A`.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The agents running each action, for systems that run several:
/// `runs.for_each::<Shoot>(..)`, then `runs.for_each::<Aim>(..)`. Like
/// [`Running`], each call visits only the agents running that action.
///
/// ```
/// use bevy::prelude::*;
/// use wyrd_bt::prelude::*;
///
/// bt_action! {
///     /// Crouch for a while.
///     pub struct Crouch { /// Milliseconds.
///         pub ms: i64 }
///     /// Cower for a while.
///     pub struct Cower { /// Milliseconds.
///         pub ms: i64 }
/// }
///
/// fn timed(mut runs: ActionRuns) {
///     runs.for_each::<Crouch>(|mut a| if a.elapsed_ms() as i64 >= a.params().ms { a.succeed() });
///     runs.for_each::<Cower>(|mut a| if a.elapsed_ms() as i64 >= a.params().ms { a.succeed() });
/// }
/// # App::new().add_systems(FixedUpdate, timed.in_set(BtSystems::Act));
/// ```
#[derive(SystemParam)]
pub struct ActionRuns<'w, 's, F: QueryFilter + 'static = ()> {
    index: Res<'w, RunningActions>,
    // Three queries, not one: visiting a listed agent costs a look-up per
    // component fetched, so the blackboard is fetched only when a
    // parameter or the game reads it, and the agent only for a problem.
    actions: Query<'w, 's, (Entity, &'static mut BtActions), (With<Blackboard>, F)>,
    boards: Query<'w, 's, &'static mut Blackboard>,
    agents: Query<'w, 's, &'static mut BtAgent>,
}

impl<F: QueryFilter + 'static> ActionRuns<'_, '_, F> {
    /// Calls `f` for each running slot of `A` (started in the last tick or
    /// running on), with its parameters read; a slot whose parameters
    /// cannot be read fails (see [`Running`]).
    pub fn for_each<A: BtAction>(&mut self, mut f: impl FnMut(RunningAction<'_, A>)) {
        let mut listed = self.actions.iter_many_mut(self.index.agents(A::ID));
        while let Some((entity, mut actions)) = listed.fetch_next() {
            // Marked changed only when a slot's state changes: visiting an
            // agent is not a change (`Changed<BtActions>` then means a
            // result was reported).
            let mut reported = false;
            let BtActions {
                slots,
                program,
                now_ms,
                ..
            } = actions.bypass_change_detection();
            let Some(program) = program.as_deref() else {
                continue;
            };
            for slot in slots.iter_mut() {
                if slot.id != A::ID || !slot.is_running() {
                    continue;
                }
                let Some(info) = program.action_of(slot.node) else {
                    continue;
                };
                let params = if info.reads_keys {
                    match self.boards.get(entity) {
                        Ok(bb) => A::read(info, bb),
                        Err(_) => continue,
                    }
                } else {
                    A::read(info, &self.index.no_keys)
                };
                match params {
                    Ok(params) => {
                        let before = slot.state;
                        f(RunningAction {
                            entity,
                            params,
                            slot: &mut *slot,
                            boards: &mut self.boards,
                            now_ms: *now_ms,
                        });
                        reported |= slot.state != before;
                    }
                    Err(error) => {
                        slot.fail();
                        reported = true;
                        let problem = AgentProblem::ActionParams {
                            tree: program.source().to_owned(),
                            error,
                        };
                        if let Ok(mut agent) = self.agents.get_mut(entity)
                            && agent.add_problem(problem.clone())
                        {
                            warn!("{problem}");
                        }
                    }
                }
            }
            if reported {
                actions.set_changed();
            }
        }
    }

    /// Calls `f` for each slot of `A` the tree stopped in its last tick
    /// (see [`Running::for_each_aborted`]).
    pub fn for_each_aborted<A: BtAction>(&mut self, mut f: impl FnMut(Entity, &ActiveAction)) {
        for (entity, actions) in self.actions.iter_many(self.index.agents(A::ID)) {
            for slot in actions.slots.iter() {
                if slot.id == A::ID && slot.state == ActionState::Aborted {
                    f(entity, slot);
                }
            }
        }
    }

    /// How many agents have a slot of `A` (running or just aborted; before
    /// the filter).
    pub fn count<A: BtAction>(&self) -> usize {
        self.index.count(A::ID)
    }
}

/// One running slot of action `A`, handed out by [`Running::for_each`] and
/// [`ActionRuns::for_each`].
pub struct RunningAction<'a, A> {
    entity: Entity,
    params: A,
    slot: &'a mut ActiveAction,
    boards: &'a mut dyn Boards,
    now_ms: u32,
}

/// Where a [`RunningAction`] finds its agent's blackboard when asked.
trait Boards {
    fn board(&mut self, entity: Entity) -> Option<&mut Blackboard>;
}

impl Boards for Query<'_, '_, &'static mut Blackboard> {
    fn board(&mut self, entity: Entity) -> Option<&mut Blackboard> {
        self.get_mut(entity).ok().map(Mut::into_inner)
    }
}

impl<A> RunningAction<'_, A> {
    /// The agent.
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// The action's parameters, as the tree gives them this tick.
    pub fn params(&self) -> &A {
        &self.params
    }

    /// Started in the last tick (set things up) rather than running on.
    pub fn is_new(&self) -> bool {
        self.slot.state == ActionState::Started
    }

    /// The agent's time (ms) when the action started.
    pub fn started_ms(&self) -> u32 {
        self.slot.started_ms
    }

    /// How long it has run, in the agent's time (ms).
    pub fn elapsed_ms(&self) -> u32 {
        self.now_ms.saturating_sub(self.slot.started_ms)
    }

    /// The slot (its leaf node, for [`BtAgent::action_info`]).
    pub fn slot(&self) -> &ActiveAction {
        self.slot
    }

    /// The agent's blackboard, to read other keys or write the action's
    /// outputs ([`Out`](crate::Out) parameters, [`Blackboard::write`]).
    pub fn blackboard(&mut self) -> &mut Blackboard {
        self.boards
            .board(self.entity)
            // Only agents with a blackboard are visited (`ActionRuns`'
            // filter), and nothing removes it while the system runs.
            .expect("a visited agent has a Blackboard")
    }

    /// Reports success: the tree goes on at its next tick.
    pub fn succeed(&mut self) {
        self.slot.succeed();
    }

    /// Reports failure.
    pub fn fail(&mut self) {
        self.slot.fail();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lists stay sorted, unique and equal to a set model over random
    /// batches of changes (agents that start and stop actions, agents that
    /// leave), whatever order a batch comes in.
    #[test]
    fn the_lists_follow_the_changes() {
        let mut rng = crate::SplitMix64::new(7);
        let mut index = RunningActions::default();
        let ids = [ActionId::of("A"), ActionId::of("B")];
        let mut model: [std::collections::BTreeSet<Entity>; 2] = Default::default();
        for _ in 0..300 {
            let mut changes = Vec::new();
            let mut touched = std::collections::HashSet::new();
            for _ in 0..(rng.next() % 12) {
                let (k, e) = (
                    (rng.next() % 2) as usize,
                    Entity::from_raw_u32(1 + (rng.next() % 40) as u32).unwrap(),
                );
                // One change per agent and action per tick, as the tick makes.
                if !touched.insert((k, e)) {
                    continue;
                }
                let listed = !model[k].contains(&e);
                if listed {
                    model[k].insert(e);
                } else {
                    model[k].remove(&e);
                }
                changes.push(ListingChange {
                    entity: e,
                    id: ids[k],
                    listed,
                });
            }
            changes.reverse();
            index.gather(&mut changes);
            if rng.next().is_multiple_of(5) {
                let gone = Entity::from_raw_u32(1 + (rng.next() % 40) as u32).unwrap();
                index.forget(gone);
                model.iter_mut().for_each(|m| {
                    m.remove(&gone);
                });
            }
            index.settle();
            for k in 0..2 {
                assert_eq!(
                    index.agents(ids[k]),
                    model[k].iter().copied().collect::<Vec<_>>()
                );
            }
        }
    }
}
