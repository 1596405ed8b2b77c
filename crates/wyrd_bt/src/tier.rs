//! Tick tiers: agents that tick every 2nd, 4th, 16th... step, spread over
//! the steps so each does about the same work, under a budget of agent
//! ticks per step.
//!
//! An agent's [`BtTier`] puts it in a *group*: its period (`every`) and its
//! phase (which of the period's steps it ticks in), chosen when the tier is
//! inserted as the phase with the fewest agents, so a uniform crowd puts
//! the same number in each step. [`BtTiers`] plans each step before the
//! tick: which groups are due and, over budget, how many of each group's
//! agents tick (each group at least the share its bound needs, what the
//! budget leaves to the short periods first, the share moving round the
//! group step after step so that the same agents are not the ones left
//! out).
//!
//! A group whose period is a power of two up to 16 has a table of its own:
//! its agents carry the group's marker component ([`Slotted`] and a
//! `Slot<PERIOD, PHASE>`), so Bevy keeps their components together and the
//! tick visits the due groups' tables only, not every tiered agent (a
//! million-agent crowd's step was a quarter passing over agents not due).

use bevy::ecs::change_detection::DetectChangesMut;
use std::collections::BTreeSet;

use bevy::ecs::component::{Component, ComponentId};
use bevy::ecs::entity::Entity;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::resource::Resource;
use bevy::ecs::world::{DeferredWorld, EntityWorldMut, World};
use bevy::reflect::Reflect;

/// How often an agent's tree ticks: every `n`th step of the plugin's
/// schedule (`BtTier::every(1)` is every step). The game sets it from
/// distance or importance (`commands.entity(e).insert(BtTier::every(16))`);
/// inserting it again with another period moves the agent.
///
/// A tiered agent's tree keeps real time: a tick after `k` steps advances
/// its clock by `k` steps, and durations are counted in the schedule's
/// steps, so timers, cooldowns and stimuli last as long in every tier, to
/// the agent's next tick: each ends at the agent's first tick after it
/// passed (a 1.5 s stimulus of an agent ticking every 16th step of 30 Hz
/// ends 1.5 s to 1.5 s + 16 steps after its time started, which is the
/// agent's first tick after the insertion). The agent's
/// actions are handed to the action systems ([`Running`](crate::Running))
/// in the steps it ticks. [`BehaviorTree::rate_hz`](crate::BehaviorTree::rate_hz)
/// is not used while an agent has a tier.
///
/// Periods that are powers of two up to 16 keep each group (period and
/// phase) in a table of its own: the agent gets the group's marker
/// component, and a step's tick visits the due groups' tables only.
/// Inserting another tier or removing it moves the agent between tables,
/// as any component insert does: set tiers when they change.
///
/// With [`waking_on_change`](Self::waking_on_change), a change to the
/// agent's blackboard (a key, a tag) or to its `BtAgent` (a stimulus
/// inserted) ticks it at the next step, whatever its phase;
/// [`BtTiers::wake`] does the same from game code.
#[derive(Component, Debug, Clone, Copy, PartialEq, Reflect)]
#[component(on_insert = tier_inserted, on_discard = tier_discarded)]
pub struct BtTier {
    every: u16,
    wake_on_change: bool,
    /// Set when inserted: the agent's group in [`BtTiers`] (`u32::MAX`:
    /// none yet).
    group: u32,
    /// Set when inserted: its group's table in [`SLOTS`] (`u8::MAX`:
    /// none), kept here so that the markers come off whatever became of
    /// [`BtTiers`].
    #[reflect(ignore)]
    slot: u8,
}

impl BtTier {
    /// Ticks every `n`th step (`0` is read as `1`).
    pub fn every(n: u16) -> Self {
        BtTier {
            every: n.max(1),
            wake_on_change: false,
            group: u32::MAX,
            slot: u8::MAX,
        }
    }

    /// A change to the blackboard or the agent wakes it: it ticks at the
    /// next step.
    pub fn waking_on_change(mut self) -> Self {
        self.wake_on_change = true;
        self
    }

    /// Its period, in steps.
    pub fn period(&self) -> u16 {
        self.every
    }

    /// Whether a change wakes it.
    pub fn wakes_on_change(&self) -> bool {
        self.wake_on_change
    }

    /// Its group in [`BtTiers`].
    #[inline]
    pub(crate) fn group(&self) -> u32 {
        self.group
    }
}

/// A period's groups by phase (`NO_GROUP`: none now), while it has agents.
#[derive(Debug, Clone)]
struct PeriodGroups {
    every: u16,
    phases: Vec<u32>,
    /// Its agents, in all phases.
    agents: u32,
    /// The phase it last put an agent in (`NO_GROUP`: none yet).
    last_phase: u32,
}

/// No group (see [`PeriodGroups`]).
const NO_GROUP: u32 = u32::MAX;

/// One period and phase: the agents that tick in the same steps.
#[derive(Debug, Clone, Default)]
struct Group {
    every: u16,
    phase: u16,
    /// How many agents it has.
    count: u32,
    /// Its agents, in entity order, once a budget asked for them (see
    /// `BtTiers::indexed`).
    members: BTreeSet<Entity>,
    /// Over budget: where the next step's share starts (the share moves
    /// round the group).
    cursor: Option<Entity>,
    /// This step: due, and (over budget) the share that ticks: agents in
    /// `[from, to)` (`None`: from the first, to the end), twice when the
    /// share wraps round.
    due: bool,
    share: [Option<(Option<Entity>, Option<Entity>)>; 2],
}

impl Group {
    /// Its table's place in [`SLOTS`], if it has one.
    fn slot(&self) -> Option<usize> {
        slot_of(self.every, self.phase)
    }

    /// Over budget: `take` of its agents tick in this step, from the
    /// cursor on (wrapping round); the cursor moves past them.
    fn plan_share(&mut self, take: usize) {
        let from = self
            .cursor
            .filter(|c| self.members.range(c..).next().is_some());
        let mut after = match from {
            Some(c) => self.members.range(c..),
            None => self.members.range(..),
        };
        let tail = after.by_ref().take(take).count();
        let to = after.next().copied();
        if tail == take {
            self.share = [Some((from, to)), None];
            self.cursor = to;
            return;
        }
        // Wraps round: the rest from the first agent on.
        let mut head = self.members.iter();
        let _ = head.by_ref().take(take - tail).count();
        let end = head.next().copied();
        self.share = [Some((from, None)), Some((None, end))];
        self.cursor = end;
    }

    #[inline]
    fn serves(&self, agent: Entity) -> bool {
        if !self.due {
            return false;
        }
        if self.share[0].is_none() {
            return true;
        }
        self.share
            .iter()
            .flatten()
            .any(|&(from, to)| from.is_none_or(|f| agent >= f) && to.is_none_or(|t| agent < t))
    }
}

/// The tick tiers' plan ([`BtTier`]): the groups of agents by period and
/// phase, the step count, and the budget. [`wake`](Self::wake) ticks an
/// agent at the next step.
#[derive(Resource, Debug, Clone)]
pub struct BtTiers {
    /// Most ticks of tiered agents a step plans (`None`: no limit). Over
    /// it, agents of longer periods are left for a later step first: each
    /// due group gets the share that keeps [`max_missed`](Self::max_missed),
    /// and what the budget leaves after those shares goes to the shortest
    /// periods first. When the shares alone are over the budget, the
    /// budget yields. Agents a share left out too long (agents that
    /// joined their group ahead of them pushed them back) tick on top of
    /// the plan, as do woken ones.
    pub budget: Option<u32>,
    /// The bound of the budget: an agent misses at most this many of its
    /// steps in a row (default 3: an agent ticking every 16th step ticks
    /// at least every 64th). The budget yields to it. An agent whose tier
    /// changed counts in its new group's steps: it ticks at the first of
    /// them past the bound.
    pub max_missed: u32,
    step: u64,
    groups: Vec<Group>,
    /// The groups with agents, shortest period first (the budget's order;
    /// a step plans these only).
    order: Vec<u32>,
    /// Per period with agents: the group of each phase (groups and
    /// periods are made when an agent first goes there and let go when
    /// its last leaves: a game that sets periods from distance every step
    /// made a group for every phase of every period it ever used, and each
    /// step planned them all).
    periods: Vec<PeriodGroups>,
    /// Group places let go, to use again.
    free: Vec<u32>,
    /// The agents woken for this step.
    woken: BTreeSet<Entity>,
    /// Agents woken by changes, to look for them only when there are any.
    waking: u32,
    /// Ticks the budget planned for this step.
    planned: u32,
    /// The groups list their agents ([`Group::members`]): from the first
    /// step with a budget on (a share of a group over budget is a range
    /// of its agents). Without a budget the groups only count them: a
    /// crowd's tiers then keep nothing per agent (the sets took about 20
    /// bytes an agent).
    indexed: bool,
}

impl Default for BtTiers {
    fn default() -> Self {
        BtTiers {
            budget: None,
            max_missed: 3,
            step: 0,
            groups: Vec::new(),
            order: Vec::new(),
            periods: Vec::new(),
            free: Vec::new(),
            woken: BTreeSet::new(),
            waking: 0,
            planned: 0,
            indexed: false,
        }
    }
}

impl BtTiers {
    /// Steps planned so far.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// Agents with each period: `(every, agents)`, shortest first.
    pub fn periods(&self) -> Vec<(u16, u32)> {
        let mut out: Vec<(u16, u32)> = Vec::new();
        for &g in &self.order {
            let g = &self.groups[g as usize];
            let n = g.count;
            match out.last_mut() {
                Some((every, total)) if *every == g.every => *total += n,
                _ => out.push((g.every, n)),
            }
        }
        out
    }

    /// Ticks of tiered agents the plan of this step allows (woken agents,
    /// and agents a group's share left out longer than the bound allows,
    /// come on top).
    pub fn planned(&self) -> u32 {
        self.planned
    }

    /// Ticks a tiered agent at the next step, whatever its phase and the
    /// budget.
    pub fn wake(&mut self, agent: Entity) {
        self.woken.insert(agent);
    }

    /// The agents woken for this step.
    pub(crate) fn woken(&self) -> impl Iterator<Item = Entity> + '_ {
        self.woken.iter().copied()
    }

    /// The tables (places in [`SLOTS`]) of the groups due in this step,
    /// shortest period first.
    pub(crate) fn due_slots(&self) -> impl Iterator<Item = usize> + '_ {
        self.order
            .iter()
            .map(|&g| &self.groups[g as usize])
            .filter(|g| g.due)
            .filter_map(Group::slot)
    }

    /// Whether any agent has a tier.
    pub(crate) fn has_agents(&self) -> bool {
        self.groups.iter().any(|g| g.count > 0)
    }

    /// Agents whose tier wakes them on changes.
    pub(crate) fn waking(&self) -> u32 {
        self.waking
    }

    /// Whether a tiered agent of `group` ticks in this step (its group is
    /// due and it is in the group's share, or it was woken).
    #[inline]
    pub(crate) fn serves(&self, group: u32, agent: Entity) -> bool {
        let planned = match self.groups.get(group as usize) {
            Some(g) => g.serves(agent),
            None => true,
        };
        planned || (!self.woken.is_empty() && self.woken.contains(&agent))
    }

    /// Plans the next step: which groups are due and how much of each (the
    /// agents woken for it are kept until the step's tick is done).
    pub(crate) fn plan(&mut self) {
        self.step += 1;
        let step = self.step;
        let bound = self.max_missed as usize + 1;
        self.planned = 0;
        // Each due group gets at least a share that reaches every member
        // within the bound; those shares are counted first, and what the
        // budget leaves goes to the short periods first (the short periods
        // took it all, and the long periods' shares came on top).
        let mut least = 0usize;
        for &at in &self.order {
            let g = &mut self.groups[at as usize];
            let n = g.count as usize;
            g.due = n > 0 && step % u64::from(g.every) == u64::from(g.phase);
            g.share = [None, None];
            if g.due {
                least += n.div_ceil(bound);
            }
        }
        let mut left = (self.budget.unwrap_or(u32::MAX) as usize).saturating_sub(least);
        for &at in &self.order {
            let g = &mut self.groups[at as usize];
            if !g.due {
                continue;
            }
            let n = g.count as usize;
            let more = left.min(n - n.div_ceil(bound));
            left -= more;
            let take = n.div_ceil(bound) + more;
            self.planned += take as u32;
            // Without its agents listed (no budget when they joined, and
            // none since `index`), the whole group: a share needs them.
            if take < n && self.indexed {
                g.plan_share(take);
            }
        }
    }

    /// Whether the next [`plan`](Self::plan) needs the groups to list their
    /// agents first (a budget is on and they do not yet).
    pub(crate) fn needs_index(&self) -> bool {
        self.budget.is_some() && !self.indexed
    }

    /// Lists the groups' agents from every tiered agent and its group (see
    /// [`BtTiers::indexed`]); they are kept listed from then on.
    pub(crate) fn index(&mut self, agents: impl Iterator<Item = (Entity, u32)>) {
        for (agent, group) in agents {
            if let Some(g) = self.groups.get_mut(group as usize) {
                g.members.insert(agent);
            }
        }
        self.indexed = true;
    }

    /// Whether a tiered agent of `group` that last ticked in step `last`
    /// ticks in this step though its group's share leaves it out: the
    /// group is due, and waiting for its next step would miss more than
    /// `max_missed` of its steps in a row. The shares alone keep the bound
    /// while a group's agents stay; agents joining a group ahead of its
    /// share pushed the others back (a crowd re-tiered by distance every
    /// step saw gaps of 80 steps for a bound of 64).
    #[inline]
    pub(crate) fn overdue(&self, group: u32, last: u64) -> bool {
        let Some(g) = self.groups.get(group as usize) else {
            return false;
        };
        g.due
            && g.share[0].is_some()
            && last != 0
            && self.step.saturating_sub(last) > u64::from(g.every) * u64::from(self.max_missed)
    }

    /// The step's tick is done: the woken agents have ticked.
    pub(crate) fn ticked(&mut self) {
        self.woken.clear();
    }

    /// Puts an agent of period `every` in a phase: the last one it put an
    /// agent of that period in while that phase has less than a block more
    /// than the emptiest (agents spawned together tick together: their
    /// tree states, allocated in spawn order, lie together, and so do the
    /// components of periods without a table of their own), else the
    /// emptiest. Its group.
    fn join(&mut self, agent: Entity, every: u16, waking: bool) -> u32 {
        let every = every.max(1);
        let k = match self.periods.iter().position(|p| p.every == every) {
            Some(k) => k,
            None => {
                self.periods.push(PeriodGroups {
                    every,
                    phases: vec![NO_GROUP; usize::from(every)],
                    agents: 0,
                    last_phase: NO_GROUP,
                });
                self.periods.len() - 1
            }
        };
        let size = |g: u32| {
            self.groups
                .get(g as usize)
                .filter(|_| g != NO_GROUP)
                .map_or(0, |g| g.count as usize)
        };
        let period = &self.periods[k];
        let phases = &period.phases;
        // The emptiest phase; of equally empty ones, the one due soonest
        // (a period's first agent ticks at the next step, not a whole
        // period later).
        let next = self.step + 1;
        let wait = |phase: usize| {
            (phase as u64 + u64::from(every) - next % u64::from(every)) % u64::from(every)
        };
        let (emptiest, least) = (0..phases.len())
            .map(|p| (p, size(phases[p])))
            .min_by_key(|&(p, n)| (n, wait(p)))
            .expect("a period has a phase");
        let block = (period.agents as usize / (usize::from(every) * 8)).clamp(1, 64);
        let last = period.last_phase as usize;
        let phase = if last < phases.len()
            && size(phases[last]) > 0
            && size(phases[last]) < least + block
        {
            last
        } else {
            emptiest
        };
        let period = &mut self.periods[k];
        period.last_phase = phase as u32;
        period.agents += 1;
        let at = match period.phases[phase] {
            NO_GROUP => self.open_group(k, every, phase as u16),
            g => g,
        };
        let group = &mut self.groups[at as usize];
        group.count += 1;
        if self.indexed {
            group.members.insert(agent);
        }
        self.waking += u32::from(waking);
        at
    }

    /// A group for `phase` of period `every` (the `k`-th period seen), in
    /// a place let go if there is one, planned in the budget's order.
    fn open_group(&mut self, k: usize, every: u16, phase: u16) -> u32 {
        let group = Group {
            every,
            phase,
            ..Default::default()
        };
        let at = match self.free.pop() {
            Some(at) => {
                self.groups[at as usize] = group;
                at
            }
            None => {
                self.groups.push(group);
                self.groups.len() as u32 - 1
            }
        };
        self.periods[k].phases[usize::from(phase)] = at;
        let groups = &self.groups;
        let key = |g: u32| (groups[g as usize].every, groups[g as usize].phase);
        let place = self.order.partition_point(|&g| key(g) < (every, phase));
        self.order.insert(place, at);
        at
    }

    fn leave(&mut self, agent: Entity, group: u32, waking: bool) {
        if let Some(g) = self.groups.get_mut(group as usize) {
            g.count = g.count.saturating_sub(1);
            // A cursor that left stays a place: the share starts at the
            // next agent after it.
            g.members.remove(&agent);
            self.waking -= u32::from(waking).min(self.waking);
            let (every, phase, empty) = (g.every, g.phase, g.count == 0);
            if empty && every > 0 {
                // Let go: planned no more, its place used again.
                *g = Group::default();
                self.order.retain(|&o| o != group);
                self.free.push(group);
            }
            if let Some(k) = self.periods.iter().position(|p| p.every == every) {
                let p = &mut self.periods[k];
                p.agents = p.agents.saturating_sub(1);
                if empty && p.phases.get(usize::from(phase)) == Some(&group) {
                    p.phases[usize::from(phase)] = NO_GROUP;
                }
                if p.agents == 0 {
                    // Its last agent left: the period goes with its phases.
                    self.periods.swap_remove(k);
                }
            }
        }
        self.woken.remove(&agent);
    }
}

fn tier_inserted(mut world: DeferredWorld, cx: HookContext) {
    let Some(tier) = world.get::<BtTier>(cx.entity).copied() else {
        return;
    };
    let Some(mut tiers) = world.get_resource_mut::<BtTiers>() else {
        return;
    };
    let group = tiers.join(cx.entity, tier.every, tier.wake_on_change);
    let slot = tiers.groups[group as usize].slot();
    if let Some(mut tier) = world.get_mut::<BtTier>(cx.entity) {
        let tier = tier.bypass_change_detection();
        tier.group = group;
        tier.slot = slot.map_or(u8::MAX, |s| s as u8);
    }
    // Into the group's table (a move between tables: after the hook).
    if let Some(slot) = slot {
        let entity = cx.entity;
        world.commands().queue(move |world: &mut World| {
            let Ok(mut agent) = world.get_entity_mut(entity) else {
                return;
            };
            // Unless its tier changed again before the move.
            if agent.get::<BtTier>().is_some_and(|t| t.group == group) {
                (SLOTS[slot].mark)(&mut agent);
            }
        });
    }
}

fn tier_discarded(mut world: DeferredWorld, cx: HookContext) {
    let Some(tier) = world.get::<BtTier>(cx.entity).copied() else {
        return;
    };
    if let Some(mut tiers) = world.get_resource_mut::<BtTiers>() {
        tiers.leave(cx.entity, tier.group, tier.wake_on_change);
    }
    let Some(&kind) = SLOTS.get(usize::from(tier.slot)) else {
        return;
    };
    let (entity, slot) = (cx.entity, tier.slot);
    world.commands().queue(move |world: &mut World| {
        let Ok(mut agent) = world.get_entity_mut(entity) else {
            return;
        };
        // A tier put in its place in the same table keeps the markers (no
        // move out and back).
        if agent.get::<BtTier>().is_none_or(|t| t.slot != slot) {
            (kind.unmark)(&mut agent);
        }
    });
}

/// On every tiered agent in a group's own table (see [`SLOTS`]); the
/// others (periods that are not a power of two up to 16) tick in a pass
/// over all of them. Not cloned with the entity: a clone's `BtTier` puts
/// it in a group of its own choosing, and marks it.
#[derive(Component)]
#[component(clone_behavior = Ignore)]
pub(crate) struct Slotted;

/// The marker of a group's table: period `E`, phase `P` (not cloned, as
/// [`Slotted`]).
#[derive(Component)]
#[component(clone_behavior = Ignore)]
struct Slot<const E: u16, const P: u16>;

/// One group's table: its marker, registered, put on and taken off.
#[derive(Clone, Copy)]
pub(crate) struct SlotKind {
    /// The marker's id.
    pub(crate) register: fn(&mut World) -> ComponentId,
    mark: fn(&mut EntityWorldMut),
    unmark: fn(&mut EntityWorldMut),
}

macro_rules! slots {
    ($($e:literal: [$($p:literal)*])*) => {
        /// The groups with a table of their own, at [`slot_of`]'s places.
        pub(crate) const SLOTS: &[SlotKind] = &[$($(SlotKind {
            register: |world| world.register_component::<Slot<$e, $p>>(),
            mark: |agent| {
                agent.insert((Slotted, Slot::<$e, $p>));
            },
            unmark: |agent| {
                agent.remove::<(Slotted, Slot<$e, $p>)>();
            },
        },)*)*];
    };
}

slots! {
    1: [0]
    2: [0 1]
    4: [0 1 2 3]
    8: [0 1 2 3 4 5 6 7]
    16: [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]
}

/// The periods with tables of their own.
pub(crate) const SLOT_PERIODS: [u16; 5] = [1, 2, 4, 8, 16];

/// The place in [`SLOTS`] of the group of period `every` and `phase`: the
/// groups of period `e` start at `e - 1`.
pub(crate) fn slot_of(every: u16, phase: u16) -> Option<usize> {
    (SLOT_PERIODS.contains(&every) && phase < every).then(|| usize::from(every - 1 + phase))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each group of a period with tables has its own place in [`SLOTS`],
    /// and every place belongs to one group (`SLOTS` and `slot_of` agree).
    #[test]
    fn every_slot_is_one_groups() {
        let places: Vec<usize> = SLOT_PERIODS
            .iter()
            .flat_map(|&e| (0..e).map(move |p| slot_of(e, p).unwrap()))
            .collect();
        assert_eq!(places, (0..SLOTS.len()).collect::<Vec<_>>());
        assert_eq!(slot_of(3, 0), None);
        assert_eq!(slot_of(4, 4), None);
        assert_eq!(slot_of(32, 0), None);
        assert!(
            SLOTS.len() < usize::from(u8::MAX),
            "a place fits BtTier::slot"
        );
    }

    /// A game setting periods from distance each step (50 agents, periods
    /// 1..2000): a group was made for every phase of every period ever
    /// used and each step planned them all (345, then 819 ms per update).
    /// Groups are let go with their last agent and used again.
    #[test]
    fn groups_of_periods_no_longer_used_are_let_go() {
        let mut world = World::new();
        let agents: Vec<Entity> = (0..50).map(|_| world.spawn_empty().id()).collect();
        let mut tiers = BtTiers::default();
        let mut groups: Vec<u32> = agents.iter().map(|&a| tiers.join(a, 1, false)).collect();
        for step in 0..200u64 {
            for (i, &a) in agents.iter().enumerate() {
                tiers.leave(a, groups[i], false);
                let every = 1 + ((step * 37 + i as u64 * 101) % 2000) as u16;
                groups[i] = tiers.join(a, every, false);
            }
            tiers.plan();
            tiers.ticked();
            assert!(tiers.order.len() <= agents.len(), "{}", tiers.order.len());
            // Periods go with their last agent too (each kept a phase
            // table as long as its period, for good).
            assert!(
                tiers.periods.len() <= agents.len(),
                "{}",
                tiers.periods.len()
            );
        }
        assert!(
            tiers.groups.len() <= 2 * agents.len(),
            "{}",
            tiers.groups.len()
        );
    }

    /// A period's first agent ticks at the next step, not a whole period
    /// later (the emptiest phases tie; the soonest due is taken).
    #[test]
    fn a_periods_first_agent_ticks_at_the_next_step() {
        let mut world = World::new();
        let agent = world.spawn_empty().id();
        let mut tiers = BtTiers::default();
        for _ in 0..5 {
            tiers.plan();
            tiers.ticked();
        }
        let group = tiers.join(agent, 1000, false);
        tiers.plan();
        assert!(tiers.serves(group, agent), "due at once");
    }

    /// Agents of one period spread evenly over its phases; over budget a
    /// group's share moves round it, so each agent ticks within the bound.
    #[test]
    fn a_period_spreads_over_its_phases_and_a_share_moves_round() {
        let mut tiers = BtTiers::default();
        let agents: Vec<Entity> = (1..=40).map(|i| Entity::from_raw_u32(i).unwrap()).collect();
        let groups: Vec<u32> = agents.iter().map(|&e| tiers.join(e, 4, false)).collect();
        let due = |tiers: &BtTiers| -> Vec<Entity> {
            agents
                .iter()
                .zip(&groups)
                .filter(|&(&e, &g)| tiers.serves(g, e))
                .map(|(&e, _)| e)
                .collect()
        };
        let mut seen = std::collections::BTreeMap::<Entity, u32>::new();
        for _ in 0..8 {
            tiers.plan();
            let now = due(&tiers);
            assert_eq!(now.len(), 10);
            for e in now {
                *seen.entry(e).or_default() += 1;
            }
        }
        assert!(agents.iter().all(|e| seen[e] == 2), "each twice in 8 steps");
        // A budget of 5 in a step: half a group, the other half next time.
        tiers.budget = Some(5);
        tiers.max_missed = 1;
        // The groups count their agents; a budget needs them listed (the
        // plugin's tick does this).
        assert!(tiers.needs_index() && tiers.groups.iter().all(|g| g.members.is_empty()));
        tiers.index(agents.iter().copied().zip(groups.iter().copied()));
        let mut halves = Vec::new();
        for _ in 0..8 {
            tiers.plan();
            let now = due(&tiers);
            if !now.is_empty() {
                assert_eq!(now.len(), 5);
                halves.push(now);
            }
        }
        let group0: std::collections::BTreeSet<Entity> =
            halves[0].iter().chain(&halves[4]).copied().collect();
        assert_eq!(
            group0.len(),
            10,
            "two steps of a group cover it: {halves:?}"
        );
    }
}
