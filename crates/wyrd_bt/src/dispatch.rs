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
use bevy::log::{info, warn};
use bevy::platform::collections::HashMap;

use crate::agent::BtAgent;
use crate::blackboard::Blackboard;
use crate::problem::AgentProblem;
use crate::program::{ActionId, Program};
use crate::registry::BtAction;
use crate::runtime::{ActionState, ActiveAction, BtActions};

/// One action slot as the tree tick left it: what an action system reads,
/// and reports on (copied whole, with its agent and the agent's time).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Posted {
    entity: Entity,
    slot: ActiveAction,
    /// The agent's time (ms) after its tick.
    now_ms: u32,
}

/// A thread's slots of one action of one program, in the order posted.
#[derive(Debug)]
struct Bucket {
    id: ActionId,
    /// Its program's place in the posting's programs.
    program: u16,
    posted: Vec<Posted>,
    /// Where the runs after the first start in `posted` (a run's slots lie
    /// together: a thread posts one run at a time). Marked by `begin_run`,
    /// not by `post`: keeping them, and the agents, slot by slot was work on
    /// the tick's path (about 0.5 ns per agent with every action listed).
    run_starts: Vec<u32>,
    /// Slots of an agent with an earlier slot here (one agent running one
    /// action twice): the bucket's agents are its slots less these.
    twice: usize,
}

impl Bucket {
    /// An empty bucket of action `id` of the posting's program `program`.
    fn new(id: ActionId, program: u16) -> Self {
        Bucket {
            id,
            program,
            posted: Vec::new(),
            run_starts: Vec::new(),
            twice: 0,
        }
    }

    /// Agents with a slot here.
    fn agents(&self) -> usize {
        self.posted.len() - self.twice
    }

    /// The slots of each run, in order (`posted` cut at `run_starts`).
    fn runs(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        let ends = self.run_starts.iter().map(|&s| s as usize);
        std::iter::once(0)
            .chain(ends.clone())
            .zip(ends.chain(std::iter::once(self.posted.len())))
            .map(|(start, end)| start..end)
            .filter(|range| !range.is_empty())
    }
}

/// A program a thread posted slots of, and the bucket of each of its
/// action leaves.
#[derive(Debug)]
struct PostedProgram {
    program: Arc<Program>,
    /// Per node: the bucket of its action (`u32::MAX`: not an action).
    buckets: Vec<u32>,
}

/// A tick thread's slot copies, already sorted by action: each slot goes
/// straight into its action's bucket, so that building the lists after
/// the tick copies nothing (kept across ticks: the room is allocated
/// once, and the programs' buckets stay laid out).
#[derive(Debug, Default)]
pub(crate) struct Posting {
    /// The actions listed, as of this posting's layout (see [`Listed`]):
    /// with none, `post` returns at once (a game that dispatches by hand
    /// pays nothing for the lists).
    listed: Listed,
    buckets: Vec<Bucket>,
    programs: Vec<PostedProgram>,
    /// Slots were posted since the last run began: the next run starts
    /// apart in each bucket (see `Bucket::run_starts`). A run is the
    /// agents one tick thread ticked in a row (one task of the parallel
    /// iteration, or the single-threaded tick of one query).
    run_posted: bool,
    /// The program of the last agent posted.
    last_program: u16,
}

/// Programs a posting keeps laid out before it starts afresh (each hot
/// reload brings new programs; the old ones are let go then).
const KEPT_PROGRAMS: usize = 32;

impl Posting {
    /// A task of the parallel iteration starts on this thread, listing the
    /// actions of `listed` (laid out afresh if they changed since this
    /// posting was: a system reading another action was added).
    pub(crate) fn begin_run(&mut self, listed: &Listed) {
        if self.listed.generation != listed.generation {
            *self = Posting {
                listed: listed.clone(),
                ..Posting::default()
            };
        }
        if std::mem::take(&mut self.run_posted) {
            for bucket in &mut self.buckets {
                let len = bucket.posted.len() as u32;
                if len > bucket.run_starts.last().copied().unwrap_or(0) {
                    bucket.run_starts.push(len);
                }
            }
        }
    }

    /// Whether the tick lists any action (a game that finishes its actions
    /// by hand lists none): checked before `post` on the tick's path, so
    /// that such a game's tick does not call it (a call per agent cost its
    /// tick about 2.6 ns on the reference load).
    #[inline(always)]
    pub(crate) fn lists_any(&self) -> bool {
        self.listed.any()
    }

    /// Copies an agent's slots, after its tick: the leaves of `program`
    /// (the agent's), its time `now_ms`. `news`: the slots are this
    /// update's (the agent ticked); otherwise the game was told of its
    /// starts and aborts already (an agent that did not tick, at its rate
    /// or finished, is listed with what runs, a start as running on).
    /// Always inlined into the tick's loop: as a call it cost the tick
    /// about 1 ns per agent (its arguments and registers through memory).
    #[inline(always)]
    pub(crate) fn post(
        &mut self,
        entity: Entity,
        actions: &BtActions,
        program: Option<&Arc<Program>>,
        now_ms: u32,
        news: bool,
    ) {
        if actions.slots.is_empty() || !self.listed.any() {
            return;
        }
        let Some(program) = program else {
            return;
        };
        let at = usize::from(self.program_at(program));
        self.run_posted = true;
        let Posting {
            programs,
            buckets,
            listed,
            ..
        } = self;
        let by_node = &programs[at].buckets;
        for (i, slot) in actions.slots.iter().enumerate() {
            let mut slot = *slot;
            if !news {
                match slot.state {
                    ActionState::Aborted => continue,
                    ActionState::Started => slot.state = ActionState::Running,
                    _ => {}
                }
            }
            let b = match by_node.get(usize::from(slot.node)) {
                Some(&b) => b,
                None => foreign_bucket(buckets, listed, at as u16, &slot),
            };
            let Some(bucket) = buckets.get_mut(b as usize) else {
                continue;
            };
            // The agent's slots are posted together: an earlier one in
            // this bucket is its last.
            if i > 0 && bucket.posted.last().is_some_and(|p| p.entity == entity) {
                bucket.twice += 1;
            }
            bucket.posted.push(Posted {
                entity,
                slot,
                now_ms,
            });
        }
    }

    /// Where a program is in this thread's list (laid out if new: a game
    /// has a few trees, and agents of one tree mostly come in rows).
    #[inline]
    fn program_at(&mut self, program: &Arc<Program>) -> u16 {
        if let Some(last) = self.programs.get(usize::from(self.last_program))
            && Arc::ptr_eq(&last.program, program)
        {
            return self.last_program;
        }
        self.find_program(program)
    }

    #[cold]
    fn find_program(&mut self, program: &Arc<Program>) -> u16 {
        let found = self
            .programs
            .iter()
            .position(|p| Arc::ptr_eq(&p.program, program));
        let at = match found {
            Some(at) => at,
            None => {
                let at = self.programs.len() as u16;
                // One bucket per action id of the program (two leaves of
                // one action share it).
                let mut ids: Vec<ActionId> = Vec::new();
                let mut buckets = vec![u32::MAX; program.nodes.len()];
                for info in &program.actions {
                    if !self.listed.lists(info.id) {
                        continue;
                    }
                    let k = ids.iter().position(|id| *id == info.id).unwrap_or_else(|| {
                        ids.push(info.id);
                        ids.len() - 1
                    });
                    if let Some(b) = buckets.get_mut(info.node as usize) {
                        *b = (self.buckets.len() + k) as u32;
                    }
                }
                self.buckets
                    .extend(ids.into_iter().map(|id| Bucket::new(id, at)));
                self.programs.push(PostedProgram {
                    program: program.clone(),
                    buckets,
                });
                usize::from(at)
            }
        };
        self.last_program = at as u16;
        self.last_program
    }

    /// Empties the buckets for the next tick (their room kept).
    fn clear(&mut self) {
        if self.programs.len() > KEPT_PROGRAMS {
            *self = Posting {
                listed: std::mem::take(&mut self.listed),
                ..Posting::default()
            };
            return;
        }
        for bucket in &mut self.buckets {
            bucket.posted.clear();
            bucket.run_starts.clear();
            bucket.twice = 0;
        }
        self.run_posted = false;
    }
}

/// The bucket of a slot whose leaf is not in its agent's tree: one aborted
/// when the agent was bound to another tree (`node` is `u16::MAX`), listed
/// by its action (`u32::MAX`: none, the action is not listed).
#[cold]
fn foreign_bucket(
    buckets: &mut Vec<Bucket>,
    listed: &Listed,
    program: u16,
    slot: &ActiveAction,
) -> u32 {
    if slot.state != ActionState::Aborted || !listed.lists(slot.id) {
        return u32::MAX;
    }
    let b = buckets
        .iter()
        .position(|b| b.program == program && b.id == slot.id)
        .unwrap_or_else(|| {
            buckets.push(Bucket::new(slot.id, program));
            buckets.len() - 1
        });
    b as u32
}

/// Which actions the tick lists in [`RunningActions`]: each that a system
/// reads with [`Running<A>`], every one once a system has an
/// [`ActionRuns`] (it may ask for any), and each asked for with
/// [`RunningActions::watch`]. Copying a slot into its action's list is
/// most of what the typed dispatch costs the tick (about 4 ns per
/// agent-tick on the reference load, `bench_tick --plugin
/// --act-scan-listed` against `--act-scan`; 3 of them the copy itself,
/// sorted by action or not): a game that finishes its actions by hand,
/// from `BtActions`, does not pay it.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listed {
    all: bool,
    ids: Vec<ActionId>,
    /// Bumped by each change: a tick thread's posting laid out for another
    /// generation is laid out again (0: nothing listed yet).
    generation: u32,
}

impl Listed {
    fn lists(&self, id: ActionId) -> bool {
        self.all || self.ids.contains(&id)
    }

    #[inline(always)]
    fn any(&self) -> bool {
        self.all || !self.ids.is_empty()
    }
}

/// Which agents have a slot of which action (started, running, or aborted
/// and still to be cleaned up), as of the last tree tick
/// ([`BtSystems::Decide`](crate::BtSystems::Decide)). [`Running<A>`] reads
/// it; tools can count with it (how many agents run each action).
///
/// An agent is listed from the tick that starts an action while it runs,
/// and in the tick after the tree stopped it (so that its system sees it
/// aborted); an action the game finished (succeeded, failed) is gone from
/// the next tick, when the tree takes the report. Only the actions
/// some system reads are listed: each read with [`Running<A>`], every
/// action once a system has an [`ActionRuns`], and those asked for with
/// [`RunningActions::watch`] (a tool that counts them). A game that
/// finishes its actions by hand from `BtActions` pays nothing for lists it
/// does not read. Each list is in
/// the order the agents' components lie in memory (by ECS table, then
/// row): the same in every run, whatever threads ticked and however many
/// cores the machine has.
#[derive(Resource, Debug, Default)]
pub struct RunningActions {
    /// The actions the tick lists.
    listed: Listed,
    /// Ticks whose lists were built (a reader set up after the first was
    /// late for those before it).
    rebuilds: u64,
    ids: HashMap<ActionId, usize>,
    lists: Vec<ActionList>,
    /// The tick threads' postings of the last tick (swapped with the
    /// threads' own after each tick: nothing is copied).
    postings: Vec<Posting>,
    /// Read by actions whose parameters are all constants.
    no_keys: Blackboard,
    /// The reports of the action systems, to write back into the agents'
    /// slots (room kept across ticks).
    reports: Vec<(Entity, ActiveAction)>,
    /// Room to sort many reports by entity before the write-back.
    sorted: Vec<(Entity, ActiveAction)>,
    /// Actions read by a system that ran twice between two ticks (see
    /// [`RunningActions::out_of_pace`]).
    out_of_pace: Vec<&'static str>,
    /// `BtSystems::Act` ended this many times.
    acts: u64,
}

/// From this many reports in a step, the write-back visits the agents in
/// entity order (see [`RunningActions::write_back`]).
const SORT_REPORTS_FROM: usize = 4096;

/// One action's slots: pieces of the postings' buckets, in the tick's
/// order, and how many agents they belong to.
#[derive(Debug, Default)]
struct ActionList {
    pieces: Vec<Piece>,
    agents: usize,
}

/// A run's slots of one action: `postings[posting].buckets[bucket]
/// .posted[range]`.
#[derive(Debug, Clone)]
struct Piece {
    at: (u32, u32),
    posting: u32,
    bucket: u32,
    range: Range<usize>,
}

impl RunningActions {
    /// Lists action `id` from the next tick on, whether or not a system
    /// reads it with [`Running`] (a [`Running<A>`] does this when its
    /// system is set up: when its schedule first runs).
    pub fn watch(&mut self, id: ActionId) {
        if !self.listed.lists(id) {
            self.listed.ids.push(id);
            self.listed.generation += 1;
        }
    }

    /// Lists every action from the next tick on (an [`ActionRuns`] does
    /// this when its system is set up).
    pub fn watch_all(&mut self) {
        if !self.listed.all {
            self.listed.all = true;
            self.listed.generation += 1;
        }
    }

    /// The actions a system read with [`Running`] or [`ActionRuns`] in two
    /// of its runs between two ticks of the trees, no `Act` ending between
    /// (each said once): such a system runs outside `BtSystems::Act` (its
    /// later runs see the actions running on; each start and abort is seen
    /// once). Empty in a game whose action systems are in `Act`.
    pub fn out_of_pace(&self) -> &[&'static str] {
        &self.out_of_pace
    }

    /// Whether the tick lists action `id` (see [`RunningActions::watch`]).
    pub fn watches(&self, id: ActionId) -> bool {
        self.listed.lists(id)
    }

    /// The actions the tick lists.
    pub(crate) fn listed(&self) -> &Listed {
        &self.listed
    }

    /// The agents listed under an action, in the tick's order (none for
    /// an action no system reads: see [`RunningActions::watches`]).
    pub fn agents(&self, id: ActionId) -> impl Iterator<Item = Entity> + '_ {
        let pieces = self.list(id).map_or(&[][..], |l| &l.pieces[..]);
        let mut last = None;
        pieces
            .iter()
            .flat_map(|piece| self.slots(piece).iter().map(|p| p.entity))
            // Once per agent (a tree may run one action twice at once).
            .filter(move |e| last.replace(*e) != Some(*e))
    }

    /// How many agents are listed under an action (0 for an action no
    /// system reads: see [`RunningActions::watches`]).
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

    fn slots(&self, piece: &Piece) -> &[Posted] {
        &self.postings[piece.posting as usize].buckets[piece.bucket as usize].posted
            [piece.range.clone()]
    }

    /// Takes the tick threads' postings as the lists (and hands the
    /// threads back last tick's, emptied, for the next tick).
    pub(crate) fn rebuild<'a>(
        &mut self,
        postings: impl Iterator<Item = &'a mut Posting>,
        entities: &Entities,
    ) {
        // A report not written back is lost with the old lists: done first.
        debug_assert!(self.reports.is_empty(), "reports are written back first");
        self.rebuilds += 1;
        for list in &mut self.lists {
            list.pieces.clear();
            list.agents = 0;
        }
        let mut threads = 0;
        for (t, posting) in postings.enumerate() {
            if self.postings.len() <= t {
                self.postings.push(Posting::default());
            }
            std::mem::swap(&mut self.postings[t], posting);
            posting.clear();
            threads = t + 1;
        }
        for posting in &mut self.postings[threads..] {
            posting.clear();
        }
        for (t, posting) in self.postings[..threads].iter_mut().enumerate() {
            for (b, bucket) in posting.buckets.iter().enumerate() {
                if bucket.posted.is_empty() {
                    continue;
                }
                let next = self.lists.len();
                let i = *self.ids.entry(bucket.id).or_insert(next);
                if i == next {
                    self.lists.push(ActionList::default());
                }
                let list = &mut self.lists[i];
                list.agents += bucket.agents();
                for range in bucket.runs() {
                    split_by_table(&bucket.posted, range, entities, |range, at| {
                        list.pieces.push(Piece {
                            at,
                            posting: t as u32,
                            bucket: b as u32,
                            range,
                        });
                    });
                }
            }
        }
        for list in &mut self.lists {
            list.pieces.sort_unstable_by_key(|p| p.at);
        }
    }

    /// `BtSystems::Act` ended (see `Visits::keep_pace`).
    pub(crate) fn act_ended(&mut self) {
        self.acts += 1;
    }

    /// Writes the action systems' reports back into the agents' slots
    /// (each report once): `to_slots(entity, report)` finds the agent's
    /// [`BtActions`] and [takes](BtActions::take_report) it.
    ///
    /// Many reports are first sorted by entity: each report is a look-up
    /// of its agent, and agents spawned together lie together in memory
    /// (and tick together under tiers), so in entity order the look-ups
    /// walk memory forward instead of jumping about a crowd's gigabyte
    /// (the reports come action by action).
    pub(crate) fn write_back(&mut self, mut to_slots: impl FnMut(Entity, &ActiveAction)) {
        if self.reports.len() >= SORT_REPORTS_FROM {
            sort_by_entity(&mut self.reports, &mut self.sorted);
        }
        for (entity, report) in self.reports.drain(..) {
            to_slots(entity, &report);
        }
    }
}

/// Where an agent lies: its table and row (`u32::MAX` for one gone).
fn place(entities: &Entities, entity: Entity) -> (u32, u32) {
    entities
        .get_spawned(entity)
        .map_or((u32::MAX, u32::MAX), |l| {
            (l.table_id.as_u32(), l.table_row.index_u32())
        })
}

/// The slots `posted[range]` of one run, in pieces of one ECS table each,
/// with where each piece's first agent lies: sorted by that, the lists
/// are in the order of the tables and their rows, whatever threads
/// ticked. (A task of the parallel iteration ticks rows of one table; the
/// single-threaded tick of a query crosses its tables in the query's own
/// order, and a list once followed that order there and the tables' in
/// parallel: a game's visits changed order with the number of cores, or
/// when its crowd grew past `BtPlugin::PARALLEL_FROM`.)
fn split_by_table(
    posted: &[Posted],
    range: Range<usize>,
    entities: &Entities,
    mut piece: impl FnMut(Range<usize>, (u32, u32)),
) {
    let table = |i: usize| place(entities, posted[i].entity).0;
    let mut start = range.start;
    while start < range.end {
        let at = place(entities, posted[start].entity);
        // A run ticks one table's agents together: those of the first
        // table are a prefix, whose end is found by halving.
        let (mut lo, mut hi) = (start + 1, range.end);
        if table(hi - 1) == at.0 {
            lo = hi;
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if table(mid) == at.0 {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        piece(start..lo, at);
        start = lo;
    }
}

/// Sorts `items` by entity index, keeping the order of one entity's
/// reports (the first report on a slot wins): a least-significant-digit
/// radix sort, a byte at a time, over the bytes the indices use; `room`
/// is its second buffer (kept across steps: nothing allocated once warm).
fn sort_by_entity(items: &mut Vec<(Entity, ActiveAction)>, room: &mut Vec<(Entity, ActiveAction)>) {
    let max = items.iter().map(|(e, _)| e.index_u32()).max().unwrap_or(0);
    let bytes = (32 - max.leading_zeros()).div_ceil(8);
    room.clear();
    room.resize(items.len(), items[0]);
    for byte in 0..bytes {
        let shift = byte * 8;
        let digit = |e: &Entity| ((e.index_u32() >> shift) & 0xff) as usize;
        let mut starts = [0usize; 257];
        for (e, _) in items.iter() {
            starts[digit(e) + 1] += 1;
        }
        for d in 0..256 {
            starts[d + 1] += starts[d];
        }
        for item in items.iter() {
            let d = digit(&item.0);
            room[starts[d]] = *item;
            starts[d] += 1;
        }
        std::mem::swap(items, room);
    }
}

/// The agents running action `A`, with `A`'s parameters read: a system
/// parameter for your action systems in
/// [`BtSystems::Act`](crate::BtSystems::Act). It visits only the agents
/// that run `A` (see [`RunningActions`]), not every agent. `F` filters them
/// like a query filter (`Running<Chase, With<Guard>>`). For several actions
/// in one system, use [`ActionRuns`]: two `Running` in one system would
/// both borrow the agents' components, and Bevy refuses the system when
/// it first runs with error B0002 (`ResMut<..> in system .. conflicts
/// with a previous system parameter`; the names show with Bevy's `debug`
/// feature).
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
/// An action whose input reads a key that is not set (an entity not
/// chosen yet) does not start: its leaf fails at once, with an
/// [`AgentProblem::UnsetKey`] on the agent (a higher priority waiting on
/// that key does not take over what runs). One whose parameters cannot be
/// read otherwise (a number its field cannot hold) fails, with an
/// [`AgentProblem::ActionParams`]. [`Running::for_each_aborted`] visits
/// the slots the tree stopped, for clean-up.
///
/// What to know:
/// - **Where it runs.** Put the system in `BtSystems::Act`, in the
///   plugin's schedule (`FixedUpdate` by default): the lists are made by
///   each tick of the trees. A run that comes again before the next tick
///   (`Decide` gated off by the game, or a system in `Update` whose frames
///   outrun the fixed steps, said once and listed in
///   [`RunningActions::out_of_pace`]) sees the actions running on, each
///   start and abort only in the first run; a system slower than the ticks
///   misses starts and aborts.
/// - **Aborts before starts.** After a restart or a new tree, one agent
///   may have an aborted slot and a new one of the same action in the
///   same `Act`: call [`Running::for_each_aborted`] before
///   [`Running::for_each`], so that a clean-up keyed on the entity does
///   not undo the new set-up.
/// - **Other queries.** The system reads the agents' [`Blackboard`] and
///   [`BtAgent`] mutably: it cannot also have a `Query<&Blackboard>` or
///   `Query<&BtAgent>` (Bevy's error B0001 when it first runs). Read them
///   in another system, or put both in a `ParamSet`.
/// - **Agents despawned earlier in `Act`** (by a system before this one)
///   are still in the lists: an action that reads no key and a system
///   without a filter visit them, with a blank blackboard (see
///   [`RunningAction::blackboard`]); one reading a key, or filtered, skips
///   them. Check the entity where that matters.
/// - **Tick tiers.** An agent of a slow [`BtTier`](crate::BtTier) is
///   listed in the steps it ticks: its actions are visited then, and
///   `elapsed_ms` grows by its tier's steps.
/// - **After a restore** (a saved agent loaded), an action that was running
///   is visited as running on, not new: what it set up in the last session
///   is the game's to set up again ([`BtAgent::restore_report`]).
#[derive(SystemParam)]
pub struct Running<'w, 's, A: BtAction, F: QueryFilter + 'static = ()> {
    runs: Visits<'w, 's, F>,
    /// Made when the system is set up (its schedule's first run): `A` is
    /// listed from then on.
    _lists: Local<'s, ListsAction<A>>,
}

/// Lists action `A` in [`RunningActions`] when made: a `Local` of a
/// system with [`Running<A>`], made from the world when the system is set
/// up, when its schedule first runs. In `BtSystems::Act`, in the plugin's
/// schedule, that is before the first tick, so no tick goes unlisted; one
/// set up later is warned about.
struct ListsAction<A>(PhantomData<fn() -> A>);

impl<A: BtAction> FromWorld for ListsAction<A> {
    fn from_world(world: &mut World) -> Self {
        let mut index = world.get_resource_or_init::<RunningActions>();
        if index.rebuilds > 0 && !index.watches(A::ID) {
            warn_late(A::NAME);
        }
        index.watch(A::ID);
        ListsAction(PhantomData)
    }
}

/// A `Running<A>` of an action registered by name only: its parameters are
/// read by name, but trees were not checked against `A`'s fields.
#[cold]
fn warn_by_name(action: &str) {
    warn!(
        "{action} is read as a type (Running or ActionRuns), but registered by name only (register_bt_action): its parameters are found by name, and trees are not checked against its fields when they load (a missing or mistyped parameter fails the action at run time); register it with add_bt_action::<{action}>()"
    );
}

/// A `Running<A>` (or `ActionRuns`) set up after the trees began ticking:
/// the ticks before were not listed for it.
#[cold]
fn warn_late(action: &str) {
    warn!(
        "a system reading {action} with Running/ActionRuns was set up after the trees began ticking (its schedule first ran later than theirs): actions started before are visited as running, not new, and their aborts before are not seen; put it in BtSystems::Act, in the plugin's schedule, or call RunningActions::watch at startup"
    );
}

/// Lists every action in [`RunningActions`] when made (see
/// [`ListsAction`]): a `Local` of a system with [`ActionRuns`].
struct ListsAll;

impl FromWorld for ListsAll {
    fn from_world(world: &mut World) -> Self {
        let mut index = world.get_resource_or_init::<RunningActions>();
        if index.rebuilds > 0 && !index.listed.all {
            warn_late("every action");
        }
        index.watch_all();
        ListsAll
    }
}

impl<A: BtAction, F: QueryFilter + 'static> Running<'_, '_, A, F> {
    /// Calls `f` for each running slot of `A` (started in the last tick or
    /// running on), with its parameters read.
    pub fn for_each(&mut self, f: impl FnMut(RunningAction<'_, A>)) {
        self.runs.for_each::<A>(f);
    }

    /// Calls `f` for each slot of `A` the tree stopped in its last tick
    /// (interrupted by a higher priority, a broken guard, a timeout, a
    /// restart, or the agent's tree changed or restored to another state):
    /// undo what the action started. The slot goes at the next tick. After
    /// the agent's tree changed, the slot's leaf is in the old tree: its
    /// `node` is `u16::MAX`.
    ///
    /// An action started and stopped in one tick (a `Parallel` that fails
    /// at a later child, a `Timeout` of zero) is only seen here, never by
    /// [`for_each`](Self::for_each): undo only what your game did for that
    /// agent and action (BT.CPP's `onHalted` always follows an `onStart`;
    /// here a clean-up may find nothing to undo).
    pub fn for_each_aborted(&mut self, f: impl FnMut(Entity, &ActiveAction)) {
        self.runs.for_each_aborted::<A>(f);
    }

    /// How many agents have a slot of `A` (running or just aborted; before
    /// the filter) in the last tick's lists: every agent without a tier,
    /// and, under tick tiers, the tiered agents due in that step (not
    /// every agent running `A`).
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
    visits: Visits<'w, 's, F>,
    /// Made when the system is set up: every action is listed from then
    /// on (which this system asks for is known only at each call).
    _lists: Local<'s, ListsAll>,
}

impl<F: QueryFilter + 'static> ActionRuns<'_, '_, F> {
    /// Calls `f` for each running slot of `A` (started in the last tick or
    /// running on), with its parameters read; a slot whose parameters
    /// cannot be read fails (see [`Running`]).
    pub fn for_each<A: BtAction>(&mut self, f: impl FnMut(RunningAction<'_, A>)) {
        self.visits.for_each::<A>(f);
    }

    /// Calls `f` for each slot of `A` the tree stopped in its last tick
    /// (see [`Running::for_each_aborted`]).
    pub fn for_each_aborted<A: BtAction>(&mut self, f: impl FnMut(Entity, &ActiveAction)) {
        self.visits.for_each_aborted::<A>(f);
    }

    /// How many agents have a slot of `A` (running or just aborted; before
    /// the filter) in the last tick's lists (see [`Running::len`]).
    pub fn count<A: BtAction>(&self) -> usize {
        self.visits.count::<A>()
    }
}

/// What [`Running`] and [`ActionRuns`] visit the lists with (apart from
/// which actions they list).
#[derive(SystemParam)]
struct Visits<'w, 's, F: QueryFilter + 'static = ()> {
    index: ResMut<'w, RunningActions>,
    // The lists hold what a visit needs; the agents' components are
    // looked up only to filter, for a parameter or the game reading the
    // blackboard, and for a problem.
    filter: Query<'w, 's, (), (With<Blackboard>, F)>,
    boards: Query<'w, 's, &'static mut Blackboard>,
    agents: Query<'w, 's, &'static mut BtAgent>,
    /// The blackboard a visit of an agent despawned since the tick gets.
    gone: Local<'s, Blackboard>,
    /// Which tick's lists the system visited last, and in which run.
    pace: Local<'s, Pace>,
    run: bevy::ecs::system::SystemChangeTick,
    /// The actions this system read, each checked once for a schema.
    checked: Local<'s, Vec<ActionId>>,
    registry: Option<Res<'w, crate::registry::BtRegistry>>,
}

/// How a run of a system visits the lists (see `Visits::keep_pace`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Visit {
    /// The tick's lists, for the first time: starts, runs and aborts.
    #[default]
    Fresh,
    /// Lists it saw in an earlier run: what runs on only.
    Again,
}

/// The lists a system visited last: in which of its runs, of which tick.
#[derive(Default)]
struct Pace {
    /// The tick whose lists the system visited last.
    rebuild: u64,
    /// `RunningActions::acts` when it last ran.
    acts: u64,
    /// Its run that did, and whether that run visits.
    run: Option<bevy::ecs::change_detection::Tick>,
    visit: Visit,
    warned: bool,
}

impl<F: QueryFilter + 'static> Visits<'_, '_, F> {
    /// How this run of the system visits the lists: afresh, or again when
    /// it visited this tick's lists in an earlier run (`Decide` gated off
    /// by the game, or a system outside `BtSystems::Act` running more often
    /// than the trees): then it sees what runs on, no start or abort a
    /// second time. The latter is said once (no `Act` ended between its
    /// two runs).
    fn keep_pace(&mut self, action: &'static str) -> Visit {
        let pace = &mut *self.pace;
        let run = self.run.this_run();
        if pace.run == Some(run) {
            return pace.visit;
        }
        let seen = pace.run.is_some() && pace.rebuild == self.index.rebuilds;
        pace.run = Some(run);
        let acts = std::mem::replace(&mut pace.acts, self.index.acts);
        pace.visit = if seen { Visit::Again } else { Visit::Fresh };
        if !seen {
            pace.rebuild = self.index.rebuilds;
        } else if acts == self.index.acts && !pace.warned && self.index.rebuilds > 0 {
            pace.warned = true;
            self.index.out_of_pace.push(action);
            info!(
                "a system reading {action} with Running/ActionRuns runs more often than the trees tick (outside BtSystems::Act): its runs between two ticks see the actions running on, each start and abort once, in the first"
            );
        }
        pace.visit
    }

    /// Warns once per action read as a type but registered by name only.
    fn check_schema<A: BtAction>(&mut self) {
        if self.checked.contains(&A::ID) {
            return;
        }
        self.checked.push(A::ID);
        if self
            .registry
            .as_ref()
            .is_some_and(|r| r.has_action_without_schema(A::NAME))
        {
            warn_by_name(A::NAME);
        }
    }

    fn for_each<A: BtAction>(&mut self, mut f: impl FnMut(RunningAction<'_, A>)) {
        self.check_schema::<A>();
        let again = self.keep_pace(A::NAME) == Visit::Again;
        let RunningActions {
            ids,
            lists,
            postings,
            no_keys,
            reports,
            ..
        } = &mut *self.index;
        let Some(&i) = ids.get(&A::ID) else {
            return;
        };
        // Every agent a tick listed has a blackboard: only a filter of the
        // game's own is looked up.
        let filtered = TypeId::of::<F>() != TypeId::of::<()>();
        for piece in &lists[i].pieces {
            let Posting {
                buckets, programs, ..
            } = &mut postings[piece.posting as usize];
            let bucket = &mut buckets[piece.bucket as usize];
            let program = &programs[usize::from(bucket.program)].program;
            // The parameters of a leaf whose parameters are all constants,
            // read once for the run of slots of that leaf (most of a
            // list: an action has a leaf or two in a tree).
            let mut constant: Option<(u16, A)> = None;
            for p in &mut bucket.posted[piece.range.clone()] {
                if !p.slot.is_running() || (filtered && !self.filter.contains(p.entity)) {
                    continue;
                }
                let mut read_here = None;
                if constant
                    .as_ref()
                    .is_none_or(|(node, _)| *node != p.slot.node)
                {
                    let Some(info) = program.action_of(p.slot.node) else {
                        continue;
                    };
                    let read = if info.reads_keys {
                        match self.boards.get(p.entity) {
                            Ok(bb) => A::read(info, bb),
                            Err(_) => continue,
                        }
                    } else {
                        A::read(info, no_keys)
                    };
                    match read {
                        Ok(params) if !info.reads_keys => constant = Some((p.slot.node, params)),
                        read => read_here = Some(read),
                    }
                }
                let params = match (&read_here, &constant) {
                    (Some(read), _) => read.as_ref(),
                    (None, Some((_, params))) => Ok(params),
                    (None, None) => continue,
                };
                // Seen again: a start is running on.
                let seen = match p.slot.state {
                    ActionState::Started if again => ActionState::Running,
                    state => state,
                };
                let mut slot = ActiveAction {
                    state: seen,
                    ..p.slot
                };
                match params {
                    Ok(params) => f(RunningAction {
                        entity: p.entity,
                        params,
                        slot: &mut slot,
                        boards: &mut AgentBoards {
                            boards: &mut self.boards,
                            gone: &mut self.gone,
                        },
                        now_ms: p.now_ms,
                    }),
                    Err(error) => {
                        slot.fail();
                        let problem = AgentProblem::ActionParams {
                            tree: program.source().to_owned(),
                            error: error.clone(),
                        };
                        if let Ok(mut agent) = self.agents.get_mut(p.entity)
                            && agent.add_problem(problem.clone())
                        {
                            warn!("{problem}");
                        }
                    }
                }
                if slot.state != seen {
                    p.slot.state = slot.state;
                    reports.push((p.entity, slot));
                }
            }
        }
    }

    fn for_each_aborted<A: BtAction>(&mut self, mut f: impl FnMut(Entity, &ActiveAction)) {
        if self.keep_pace(A::NAME) == Visit::Again {
            return;
        }
        let Some(list) = self.index.list(A::ID) else {
            return;
        };
        let filtered = TypeId::of::<F>() != TypeId::of::<()>();
        for piece in &list.pieces {
            for p in self.index.slots(piece) {
                if p.slot.state == ActionState::Aborted
                    && (!filtered || self.filter.contains(p.entity))
                {
                    f(p.entity, &p.slot);
                }
            }
        }
    }

    fn count<A: BtAction>(&self) -> usize {
        self.index.count(A::ID)
    }
}

/// One running slot of action `A`, handed out by [`Running::for_each`] and
/// [`ActionRuns::for_each`].
pub struct RunningAction<'a, A> {
    entity: Entity,
    params: &'a A,
    slot: &'a mut ActiveAction,
    boards: &'a mut dyn Boards,
    now_ms: u32,
}

/// Where a [`RunningAction`] finds its agent's blackboard when asked.
trait Boards {
    fn board(&mut self, entity: Entity) -> &mut Blackboard;
}

/// The agents' blackboards, and a blank one for an agent despawned since
/// the tick (by a system earlier in `Act`): what is written to it goes
/// nowhere, as the agent went.
struct AgentBoards<'a, 'w, 's> {
    boards: &'a mut Query<'w, 's, &'static mut Blackboard>,
    gone: &'a mut Blackboard,
}

impl Boards for AgentBoards<'_, '_, '_> {
    fn board(&mut self, entity: Entity) -> &mut Blackboard {
        let gone = &mut *self.gone;
        self.boards
            .get_mut(entity)
            .map(Mut::into_inner)
            .unwrap_or_else(|_| {
                *gone = Blackboard::default();
                gone
            })
    }
}

impl<A> RunningAction<'_, A> {
    /// The agent.
    pub fn entity(&self) -> Entity {
        self.entity
    }

    /// The action's parameters, as the tree gives them this tick.
    pub fn params(&self) -> &A {
        self.params
    }

    /// Started in the last tick (set things up) rather than running on. An
    /// action restored from a save runs on (see [`Running`], "After a
    /// restore").
    pub fn is_new(&self) -> bool {
        self.slot.state == ActionState::Started
    }

    /// The agent's time (ms) when the action started.
    pub fn started_ms(&self) -> u32 {
        self.slot.started_ms
    }

    /// How long it has run, in the agent's time (ms).
    pub fn elapsed_ms(&self) -> u32 {
        // Wrapping, as the tree's own timers: agent time in ms wraps after
        // 49.7 days (saved agents carry it across sessions).
        self.now_ms.wrapping_sub(self.slot.started_ms)
    }

    /// The slot (its leaf node, for [`BtAgent::action_info`]).
    pub fn slot(&self) -> &ActiveAction {
        self.slot
    }

    /// The agent's blackboard, to read other keys or write the action's
    /// outputs ([`Out`](crate::Out) parameters, [`Blackboard::write`]). For
    /// an agent a system despawned earlier in this `Act`, a blank one
    /// (what is written to it goes nowhere).
    pub fn blackboard(&mut self) -> &mut Blackboard {
        self.boards.board(self.entity)
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
    fn slots(ids: &[&str]) -> BtActions {
        let mut actions = BtActions::default();
        for id in ids {
            // The leaf of the action: "a" (node 1) runs A, "b" (node 2) B.
            let node = if *id == "A" { 1 } else { 2 };
            actions.slots.push(ActiveAction {
                id: ActionId::of(id),
                node,
                state: ActionState::Running,
                started_ms: 10,
            });
        }
        actions
    }

    /// Every action listed (as with an `ActionRuns`).
    fn every_action() -> Listed {
        let mut running = RunningActions::default();
        running.watch_all();
        running.listed
    }

    /// A posting copies the slots of the actions listed only, none
    /// before one is, and is laid out again when another is listed.
    #[test]
    fn only_listed_actions_are_posted() {
        let mut world = World::new();
        let agent = world.spawn_empty().id();
        let program = program();
        let mut running = RunningActions::default();
        let mut thread = Posting::default();
        let tick = |running: &mut RunningActions, thread: &mut Posting| {
            thread.begin_run(&running.listed);
            thread.post(agent, &slots(&["A", "B"]), Some(&program), 40, true);
            running.rebuild([&mut *thread].into_iter(), world.entities());
            (
                running.count(ActionId::of("A")),
                running.count(ActionId::of("B")),
            )
        };
        assert_eq!(tick(&mut running, &mut thread), (0, 0), "none listed");
        running.watch(ActionId::of("B"));
        assert_eq!(tick(&mut running, &mut thread), (0, 1));
        running.watch(ActionId::of("A"));
        assert_eq!(tick(&mut running, &mut thread), (1, 1));
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
            posting.begin_run(&every_action());
            for i in range {
                let ids: &[&str] = if i % 2 == 0 { &["A", "B"] } else { &["A"] };
                posting.post(agents[i], &slots(ids), Some(&program), 40, true);
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
            assert!(
                first.buckets.iter().all(|b| b.posted.is_empty()),
                "the threads get emptied buffers back"
            );
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

    /// Agents in two ECS tables: ticked in one run that crosses the tables
    /// in the query's order (the single-threaded tick, here the second
    /// table first) or in one run per table on two threads, the lists are
    /// the same, in the tables' order. A stranger's crowd found the visits
    /// in another order with one compute thread than with two.
    #[test]
    fn the_lists_keep_one_order_when_one_run_crosses_tables() {
        #[derive(Component)]
        struct Marker;
        let mut world = World::new();
        let plain: Vec<Entity> = (0..3).map(|_| world.spawn_empty().id()).collect();
        let marked: Vec<Entity> = (0..3).map(|_| world.spawn(Marker).id()).collect();
        let program = program();
        let post = |posting: &mut Posting, agents: &[Entity]| {
            posting.begin_run(&every_action());
            for &agent in agents {
                posting.post(agent, &slots(&["A", "B"]), Some(&program), 40, true);
            }
        };
        let lists = |postings: &mut [Posting]| {
            let mut running = RunningActions::default();
            running.rebuild(postings.iter_mut(), world.entities());
            let a: Vec<Entity> = running.agents(ActionId::of("A")).collect();
            let b: Vec<Entity> = running.agents(ActionId::of("B")).collect();
            (a, b)
        };
        let mut one = Posting::default();
        let crossing: Vec<Entity> = marked.iter().chain(&plain).copied().collect();
        post(&mut one, &crossing);
        let single = lists(std::slice::from_mut(&mut one));
        let (mut first, mut second) = (Posting::default(), Posting::default());
        post(&mut first, &marked);
        post(&mut second, &plain);
        let parallel = lists(&mut [first, second]);
        assert_eq!(single, parallel);
        let tables: Vec<Entity> = plain.iter().chain(&marked).copied().collect();
        assert_eq!(single.0, tables, "the tables' order");
        assert_eq!(single.1, tables);
    }

    /// The lists of a tick hold that tick's slots only, and a thread gets
    /// buckets back already laid out for its programs (the next tick
    /// posts without allocating).
    #[test]
    fn each_tick_lists_its_own_slots_and_the_buckets_are_reused() {
        let mut world = World::new();
        let agents: Vec<Entity> = (0..4).map(|_| world.spawn_empty().id()).collect();
        let program = program();
        let mut thread = Posting::default();
        let mut running = RunningActions::default();
        for (tick, ids) in [&["A", "B"][..], &["B"][..], &["A"][..]].iter().enumerate() {
            thread.begin_run(&every_action());
            for &agent in &agents[..tick + 2] {
                thread.post(agent, &slots(ids), Some(&program), 40, true);
            }
            running.rebuild([&mut thread].into_iter(), world.entities());
            let count = |id| running.count(ActionId::of(id));
            let expect = |id| if ids.contains(&id) { tick + 2 } else { 0 };
            assert_eq!((count("A"), count("B")), (expect("A"), expect("B")));
            let listed: Vec<Entity> = running.agents(ActionId::of(ids[0])).collect();
            assert_eq!(listed, agents[..tick + 2]);
            if tick > 0 {
                assert_eq!(thread.programs.len(), 1, "laid out once");
                assert!(thread.buckets.iter().any(|b| b.posted.capacity() > 0));
            }
        }
    }

    /// Many reports are written back in entity order, one entity's in the
    /// order they were made (the first report on a slot wins).
    #[test]
    fn many_reports_are_sorted_by_entity_keeping_each_agents_order() {
        let mut world = World::new();
        let agents: Vec<Entity> = (0..300).map(|_| world.spawn_empty().id()).collect();
        let report = |node: u16| ActiveAction {
            id: ActionId::of("A"),
            node,
            state: ActionState::Succeeded,
            started_ms: 0,
        };
        // Made action by action: agents from the back, two per agent.
        let mut items: Vec<(Entity, ActiveAction)> = Vec::new();
        for (k, &e) in agents.iter().enumerate().rev() {
            items.push((e, report(k as u16)));
        }
        for &e in &agents {
            items.push((e, report(u16::MAX)));
        }
        let mut room = Vec::new();
        sort_by_entity(&mut items, &mut room);
        let order: Vec<Entity> = items.iter().map(|(e, _)| *e).collect();
        let mut expected: Vec<Entity> = agents.iter().flat_map(|&e| [e, e]).collect();
        expected.sort_by_key(|e| e.index_u32());
        assert_eq!(order, expected);
        for pair in items.chunks(2) {
            assert_ne!(pair[0].1.node, u16::MAX, "the first made comes first");
            assert_eq!(pair[1].1.node, u16::MAX);
        }
    }

    /// A report goes back to the slot it was copied from, once, and only
    /// while that slot still runs.
    #[test]
    fn a_report_reaches_its_slot_once() {
        let mut world = World::new();
        let agent = world.spawn_empty().id();
        let program = program();
        let mut actions = slots(&["A", "B"]);
        let mut posting = Posting::default();
        posting.begin_run(&every_action());
        posting.post(agent, &actions, Some(&program), 40, true);
        let mut running = RunningActions::default();
        running.rebuild([&mut posting].into_iter(), world.entities());
        // What `ActionRuns::for_each` does when a system reports.
        let list = running.list(ActionId::of("B")).unwrap();
        let posted = running.slots(&list.pieces[0])[0];
        let mut report = posted.slot;
        report.succeed();
        running.reports.push((posted.entity, report));
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
