//! Typed action dispatch: [`Running<A>`], the agents running action `A`.
//!
//! After each agent's tick, the tick copies its action slots (a few bytes
//! each, with the agent's clock) into its thread's [`Posting`]; after the
//! tick, [`RunningActions`] sorts those copies into one dense list per
//! action. An action system then reads its action's list front to back,
//! and visits none of the agents' components unless it asks for their
//! blackboard: on a crowd, reading each running agent's `BtActions` in
//! the ECS was a cache miss per agent and action, most of the action
//! systems' time. What an action system reports (succeeded, failed) is
//! written back into the agents' slots after [`BtSystems::Act`](crate::BtSystems::Act)
//! (and at the start of the next tick, for a report made outside `Act`).

use std::any::TypeId;
use std::marker::PhantomData;
use std::ops::Range;
use std::sync::Arc;

use bevy::ecs::entity::{Entities, Entity};
use bevy::ecs::prelude::*;
use bevy::ecs::query::QueryFilter;
use bevy::ecs::system::SystemParam;
use bevy::log::warn;
use bevy::platform::collections::HashMap;

use crate::agent::BtAgent;
use crate::blackboard::Blackboard;
use crate::problem::AgentProblem;
use crate::program::{ActionId, Program};
use crate::registry::BtAction;
use crate::runtime::{ActionState, ActiveAction, BtActions};

/// One action slot as the tree tick left it: what an action system reads,
/// and reports on.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Posted {
    entity: Entity,
    slot: ActiveAction,
    /// The agent's time (ms) after its tick.
    now_ms: u32,
    /// Its program: in a thread's posting, a place in its programs; in
    /// [`RunningActions`]' lists, a place in theirs.
    program: u16,
    /// The action system changed the slot's state: to write back.
    reported: bool,
}

/// A run of agents one tick thread ticked in a row (one task of the
/// parallel iteration), and where its first agent lies in the ECS tables:
/// sorting runs by it puts the slots in the tick's iteration order, the
/// same whatever threads ticked which run.
#[derive(Debug, Clone, Copy)]
struct Run {
    start: usize,
    first: Option<Entity>,
}

/// A tick thread's slot copies (kept across ticks: their room is
/// allocated once).
#[derive(Debug, Default)]
pub(crate) struct Posting {
    posted: Vec<Posted>,
    runs: Vec<Run>,
    programs: Vec<Arc<Program>>,
    /// The program of the last agent posted.
    last_program: u16,
}

impl Posting {
    /// A task of the parallel iteration starts on this thread.
    pub(crate) fn begin_run(&mut self) {
        self.runs.push(Run {
            start: self.posted.len(),
            first: None,
        });
    }

    /// Copies an agent's slots, after its tick.
    #[inline]
    pub(crate) fn post(&mut self, entity: Entity, actions: &BtActions) {
        if actions.slots.is_empty() {
            return;
        }
        let Some(program) = actions.program.as_ref() else {
            return;
        };
        let program = self.program_at(program);
        match self.runs.last_mut() {
            Some(run) if run.first.is_none() => run.first = Some(entity),
            Some(_) => {}
            None => self.runs.push(Run {
                start: 0,
                first: Some(entity),
            }),
        }
        for slot in &actions.slots {
            self.posted.push(Posted {
                entity,
                slot: *slot,
                now_ms: actions.now_ms,
                program,
                reported: false,
            });
        }
    }

    /// Where a program is in this thread's list (added if new: a game has
    /// a few trees, and agents of one tree mostly come in rows).
    #[inline]
    fn program_at(&mut self, program: &Arc<Program>) -> u16 {
        if let Some(last) = self.programs.get(usize::from(self.last_program))
            && Arc::ptr_eq(last, program)
        {
            return self.last_program;
        }
        self.find_program(program)
    }

    #[cold]
    fn find_program(&mut self, program: &Arc<Program>) -> u16 {
        let at = match self.programs.iter().position(|p| Arc::ptr_eq(p, program)) {
            Some(at) => at,
            None => {
                self.programs.push(program.clone());
                self.programs.len() - 1
            }
        };
        self.last_program = at as u16;
        self.last_program
    }

    fn clear(&mut self) {
        self.posted.clear();
        self.runs.clear();
        self.programs.clear();
        self.last_program = 0;
    }
}

/// Which agents have a slot of which action (started, running, or aborted
/// and still to be cleaned up), as of the last tree tick
/// ([`BtSystems::Decide`](crate::BtSystems::Decide)). [`Running<A>`] reads
/// it; tools can count with it (how many agents run each action).
///
/// An agent is listed from the tick that starts an action to the tick after
/// the action ended (so that its system sees it aborted). Each list is in
/// the order the tick visited the agents (the order their components lie
/// in memory): the same in every run, whatever threads ticked.
#[derive(Resource, Debug, Default)]
pub struct RunningActions {
    ids: HashMap<ActionId, usize>,
    lists: Vec<ActionList>,
    /// The programs the slots belong to.
    programs: Vec<Arc<Program>>,
    /// Scratch of `rebuild`: each thread's program places in `programs`.
    program_map: Vec<u16>,
    /// Read by actions whose parameters are all constants.
    no_keys: Blackboard,
    /// Runs of all threads, in order (room kept across ticks).
    order: Vec<((u32, u32), usize, Range<usize>)>,
    /// Some slot has a report still to write back.
    pending: bool,
}

/// One action's slots, and how many agents they belong to.
#[derive(Debug, Default)]
struct ActionList {
    posted: Vec<Posted>,
    agents: usize,
}

impl RunningActions {
    /// The agents listed under an action, in the tick's order.
    pub fn agents(&self, id: ActionId) -> impl Iterator<Item = Entity> + '_ {
        let posted = self.list(id).map_or(&[][..], |l| &l.posted[..]);
        posted
            .iter()
            .enumerate()
            // Once per agent (a tree may run one action twice at once).
            .filter(|(i, p)| *i == 0 || posted[i - 1].entity != p.entity)
            .map(|(_, p)| p.entity)
    }

    /// How many agents are listed under an action.
    pub fn count(&self, id: ActionId) -> usize {
        self.list(id).map_or(0, |l| l.agents)
    }

    /// Every action with at least one agent listed, and how many.
    pub fn counts(&self) -> impl Iterator<Item = (ActionId, usize)> + '_ {
        self.ids
            .iter()
            .map(|(id, &i)| (*id, self.lists[i].agents))
            .filter(|(_, n)| *n > 0)
    }

    fn list(&self, id: ActionId) -> Option<&ActionList> {
        self.ids.get(&id).map(|&i| &self.lists[i])
    }

    /// Sorts the tick threads' slot copies into the lists (and empties
    /// the threads' buffers for the next tick).
    pub(crate) fn rebuild<'a>(
        &mut self,
        postings: impl Iterator<Item = &'a mut Posting>,
        entities: &Entities,
    ) {
        // A report not written back is lost with the old lists: done first.
        debug_assert!(!self.pending, "reports are written back before a tick");
        for list in &mut self.lists {
            list.posted.clear();
            list.agents = 0;
        }
        self.programs.clear();
        self.program_map.clear();
        self.order.clear();
        let postings: smallvec::SmallVec<[&mut Posting; 16]> = postings.collect();
        // Each thread's program places, as places in `programs`.
        let mut maps = smallvec::SmallVec::<[usize; 16]>::new();
        for (t, posting) in postings.iter().enumerate() {
            maps.push(self.program_map.len());
            for p in &posting.programs {
                let at = match self.programs.iter().position(|q| Arc::ptr_eq(p, q)) {
                    Some(at) => at,
                    None => {
                        self.programs.push(p.clone());
                        self.programs.len() - 1
                    }
                };
                self.program_map.push(at as u16);
            }
            for (i, run) in posting.runs.iter().enumerate() {
                let end = posting
                    .runs
                    .get(i + 1)
                    .map_or(posting.posted.len(), |r| r.start);
                let Some(first) = run.first else { continue };
                let at = entities
                    .get_spawned(first)
                    .map_or((u32::MAX, u32::MAX), |l| {
                        (l.table_id.as_u32(), l.table_row.index_u32())
                    });
                self.order.push((at, t, run.start..end));
            }
        }
        self.order.sort_unstable_by_key(|(at, ..)| *at);
        let mut last: Option<(ActionId, usize)> = None;
        for (_, t, range) in &self.order {
            let map = &self.program_map[maps[*t]..];
            for p in &postings[*t].posted[range.clone()] {
                let i = match last {
                    Some((id, i)) if id == p.slot.id => i,
                    _ => {
                        let next = self.lists.len();
                        let i = *self.ids.entry(p.slot.id).or_insert(next);
                        if i == next {
                            self.lists.push(ActionList::default());
                        }
                        last = Some((p.slot.id, i));
                        i
                    }
                };
                let list = &mut self.lists[i];
                if list.posted.last().is_none_or(|q| q.entity != p.entity) {
                    list.agents += 1;
                }
                list.posted.push(Posted {
                    program: map[usize::from(p.program)],
                    ..*p
                });
            }
        }
        for posting in postings {
            posting.clear();
        }
    }

    /// Writes the action systems' reports back into the agents' slots
    /// (each report once): `to_slots(entity, report)` finds the agent's
    /// [`BtActions`] and [takes](BtActions::take_report) it.
    pub(crate) fn write_back(&mut self, mut to_slots: impl FnMut(Entity, &ActiveAction)) {
        if !std::mem::take(&mut self.pending) {
            return;
        }
        for list in &mut self.lists {
            for p in list.posted.iter_mut().filter(|p| p.reported) {
                p.reported = false;
                to_slots(p.entity, &p.slot);
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
    index: ResMut<'w, RunningActions>,
    // The lists hold what a visit needs; the agents' components are
    // looked up only to filter, for a parameter or the game reading the
    // blackboard, and for a problem.
    filter: Query<'w, 's, (), (With<Blackboard>, F)>,
    boards: Query<'w, 's, &'static mut Blackboard>,
    agents: Query<'w, 's, &'static mut BtAgent>,
}

impl<F: QueryFilter + 'static> ActionRuns<'_, '_, F> {
    /// Calls `f` for each running slot of `A` (started in the last tick or
    /// running on), with its parameters read; a slot whose parameters
    /// cannot be read fails (see [`Running`]).
    pub fn for_each<A: BtAction>(&mut self, mut f: impl FnMut(RunningAction<'_, A>)) {
        let RunningActions {
            ids,
            lists,
            programs,
            no_keys,
            pending,
            ..
        } = &mut *self.index;
        let Some(&i) = ids.get(&A::ID) else {
            return;
        };
        // Every agent a tick listed has a blackboard: only a filter of the
        // game's own is looked up.
        let filtered = TypeId::of::<F>() != TypeId::of::<()>();
        for p in &mut lists[i].posted {
            if !p.slot.is_running() || (filtered && !self.filter.contains(p.entity)) {
                continue;
            }
            let program = &programs[usize::from(p.program)];
            let Some(info) = program.action_of(p.slot.node) else {
                continue;
            };
            let params = if info.reads_keys {
                match self.boards.get(p.entity) {
                    Ok(bb) => A::read(info, bb),
                    Err(_) => continue,
                }
            } else {
                A::read(info, no_keys)
            };
            let before = p.slot.state;
            match params {
                Ok(params) => f(RunningAction {
                    entity: p.entity,
                    params,
                    slot: &mut p.slot,
                    boards: &mut self.boards,
                    now_ms: p.now_ms,
                }),
                Err(error) => {
                    p.slot.fail();
                    let problem = AgentProblem::ActionParams {
                        tree: program.source().to_owned(),
                        error,
                    };
                    if let Ok(mut agent) = self.agents.get_mut(p.entity)
                        && agent.add_problem(problem.clone())
                    {
                        warn!("{problem}");
                    }
                }
            }
            if p.slot.state != before {
                p.reported = true;
                *pending = true;
            }
        }
    }

    /// Calls `f` for each slot of `A` the tree stopped in its last tick
    /// (see [`Running::for_each_aborted`]).
    pub fn for_each_aborted<A: BtAction>(&mut self, mut f: impl FnMut(Entity, &ActiveAction)) {
        let Some(&i) = self.index.ids.get(&A::ID) else {
            return;
        };
        let filtered = TypeId::of::<F>() != TypeId::of::<()>();
        for p in &self.index.lists[i].posted {
            if p.slot.state == ActionState::Aborted && (!filtered || self.filter.contains(p.entity))
            {
                f(p.entity, &p.slot);
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

    fn program() -> Arc<Program> {
        let text = r#"(root: Sequence(name: "both", children: [
            Action(name: "a", action: "A"), Action(name: "b", action: "B"),
        ]))"#;
        Arc::new(crate::compile_str("t.bt.ron", text, &crate::Vocabulary::permissive()).unwrap())
    }

    /// Slots of actions `ids` (in that order) for an agent.
    fn slots(program: &Arc<Program>, ids: &[&str]) -> BtActions {
        let mut actions = BtActions {
            program: Some(program.clone()),
            now_ms: 40,
            ..Default::default()
        };
        for (node, id) in ids.iter().enumerate() {
            actions.slots.push(ActiveAction {
                id: ActionId::of(id),
                node: node as u32 + 1,
                state: ActionState::Running,
                started_ms: 10,
            });
        }
        actions
    }

    /// Two threads' runs of agents, gathered in either order, make the
    /// same lists: in the order the agents lie in the table, each agent
    /// counted once per action.
    #[test]
    fn the_lists_keep_the_tick_order_whatever_thread_ticked_a_run() {
        let mut world = World::new();
        let agents: Vec<Entity> = (0..6).map(|_| world.spawn_empty().id()).collect();
        let program = program();
        let post = |range: std::ops::Range<usize>| {
            let mut posting = Posting::default();
            posting.begin_run();
            for i in range {
                let ids: &[&str] = if i % 2 == 0 { &["A", "B"] } else { &["A"] };
                posting.post(agents[i], &slots(&program, ids));
            }
            posting
        };
        let mut lists = Vec::new();
        for swapped in [false, true] {
            let (mut first, mut second) = (post(0..3), post(3..6));
            if swapped {
                std::mem::swap(&mut first, &mut second);
            }
            let mut running = RunningActions::default();
            running.rebuild([&mut first, &mut second].into_iter(), world.entities());
            assert!(first.posted.is_empty(), "the threads' buffers are emptied");
            let a: Vec<Entity> = running.agents(ActionId::of("A")).collect();
            let b: Vec<Entity> = running.agents(ActionId::of("B")).collect();
            assert_eq!(running.count(ActionId::of("A")), 6);
            assert_eq!(running.count(ActionId::of("B")), 3);
            lists.push((a, b));
        }
        assert_eq!(lists[0], lists[1]);
        assert_eq!(lists[0].0, agents);
        assert_eq!(lists[0].1, vec![agents[0], agents[2], agents[4]]);
    }

    /// A report goes back to the slot it was copied from, once, and only
    /// while that slot still runs.
    #[test]
    fn a_report_reaches_its_slot_once() {
        let mut world = World::new();
        let agent = world.spawn_empty().id();
        let program = program();
        let mut actions = slots(&program, &["A", "B"]);
        let mut posting = Posting::default();
        posting.post(agent, &actions);
        let mut running = RunningActions::default();
        running.rebuild([&mut posting].into_iter(), world.entities());
        let i = running.ids[&ActionId::of("B")];
        running.lists[i].posted[0].slot.succeed();
        running.lists[i].posted[0].reported = true;
        running.pending = true;
        let mut delivered = 0;
        running.write_back(|e, report| {
            assert_eq!(e, agent);
            actions.take_report(report);
            delivered += 1;
        });
        running.write_back(|_, _| delivered += 1);
        assert_eq!(delivered, 1);
        let states: Vec<ActionState> = actions.iter().map(|s| s.state).collect();
        assert_eq!(states, vec![ActionState::Running, ActionState::Succeeded]);
        // A slot that stopped running (the tree aborted it) keeps its state.
        let mut late = actions.slots[1];
        late.state = ActionState::Failed;
        actions.take_report(&late);
        assert_eq!(actions.slots[1].state, ActionState::Succeeded);
    }
}
