//! Tick tiers: agents that tick every 2nd, 4th, 16th... step, spread over
//! the steps so each does about the same work, under a budget of agent
//! ticks per step.
//!
//! An agent's [`BtTier`] puts it in a *group*: its period (`every`) and its
//! phase (which of the period's steps it ticks in), chosen when the tier is
//! inserted as the phase with the fewest agents, so a uniform crowd puts
//! the same number in each step. [`BtTiers`] plans each step before the
//! tick: which groups are due and, over budget, how many of each group's
//! agents tick (groups of short periods first, each group at least the
//! share its bound needs, the share moving round the group step after
//! step so that the same agents are not the ones left out).

use bevy::ecs::change_detection::DetectChangesMut;
use bevy::ecs::component::Component;
use bevy::ecs::lifecycle::HookContext;
use bevy::ecs::resource::Resource;
use bevy::ecs::world::DeferredWorld;
use bevy::reflect::Reflect;

/// How often an agent's tree ticks: every `n`th step of the plugin's
/// schedule (`BtTier::every(1)` is every step). The game sets it from
/// distance or importance (`commands.entity(e).insert(BtTier::every(16))`);
/// inserting it again with another period moves the agent.
///
/// A tiered agent's tree keeps real time: a tick after `k` steps advances
/// its clock by `k` steps, so timers, cooldowns and stimuli last as long in
/// every tier (to the tier's step: a 1.5 s stimulus of an agent ticking
/// every 16th step of 30 Hz lasts 1.5 s rounded up to 533 ms). The agent's
/// actions are handed to the action systems ([`Running`](crate::Running))
/// in the steps it ticks. [`BehaviorTree::rate_hz`](crate::BehaviorTree::rate_hz)
/// is not used while an agent has a tier.
///
/// With [`waking_on_change`](Self::waking_on_change), a change to the
/// agent's blackboard (a key, a tag) or to its `BtAgent` (a stimulus
/// inserted) ticks it at the next step, whatever its phase;
/// [`wake`](Self::wake) does the same from game code.
#[derive(Component, Debug, Clone, Copy, PartialEq, Reflect)]
#[component(on_insert = tier_inserted, on_discard = tier_discarded)]
pub struct BtTier {
    every: u16,
    wake_on_change: bool,
    woken: bool,
    /// Set when inserted: the agent's group in [`BtTiers`] (`u32::MAX`:
    /// none, without the plugin: every step).
    group: u32,
    /// Its place in the group, for the budget's share.
    slot: u32,
    /// The step it last ticked (`u64::MAX`: never).
    last_step: u64,
}

impl BtTier {
    /// Ticks every `n`th step (`0` is read as `1`).
    pub fn every(n: u16) -> Self {
        BtTier {
            every: n.max(1),
            wake_on_change: false,
            woken: false,
            group: u32::MAX,
            slot: 0,
            last_step: u64::MAX,
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

    /// Ticks the agent at the next step, whatever its phase (and the
    /// budget).
    pub fn wake(&mut self) {
        self.woken = true;
    }

    /// How many steps since it last ticked, if it ticks in this step
    /// (`changed`: its blackboard or agent changed since the last step).
    /// Records the tick.
    #[inline]
    pub(crate) fn take_due(
        &mut self,
        plan: &BtTiers,
        changed: impl FnOnce() -> bool,
    ) -> Option<u64> {
        let due = match plan.groups.get(self.group as usize) {
            Some(g) => g.serves(self.slot),
            None => true,
        };
        if !(due || self.woken || (self.wake_on_change && changed())) {
            return None;
        }
        self.woken = false;
        let steps = if self.last_step == u64::MAX {
            1
        } else {
            plan.step.saturating_sub(self.last_step).max(1)
        };
        self.last_step = plan.step;
        Some(steps)
    }
}

/// One period and phase: the agents that tick in the same steps.
#[derive(Debug, Clone, Default, Reflect)]
struct Group {
    every: u16,
    phase: u16,
    /// Agents in it.
    members: u32,
    /// Slots given out (members that left leave theirs unused).
    slots: u32,
    /// This step: it is due, and the share of its slots that tick.
    due: bool,
    share: u32,
    /// Where the share starts this step.
    rotate: u32,
}

impl Group {
    #[inline]
    fn serves(&self, slot: u32) -> bool {
        self.due
            && (self.share >= self.slots || (slot + self.rotate) % self.slots.max(1) < self.share)
    }
}

/// The tick tiers' plan ([`BtTier`]): the groups of agents by period and
/// phase, the step count, and the budget.
#[derive(Resource, Debug, Clone, Reflect)]
pub struct BtTiers {
    /// Most ticks of tiered agents per step (`None`: no limit). Over it,
    /// agents of longer periods are left for a later step first.
    pub budget: Option<u32>,
    /// The bound of the budget: an agent misses at most this many of its
    /// steps in a row (default 3: an agent ticking every 16th step ticks
    /// at least every 64th). The budget yields to it.
    pub max_missed: u32,
    step: u64,
    groups: Vec<Group>,
    /// Group places, shortest period first (the budget's order).
    order: Vec<u32>,
    /// Ticks the budget planned for this step.
    planned: u32,
}

impl Default for BtTiers {
    fn default() -> Self {
        BtTiers {
            budget: None,
            max_missed: 3,
            step: 0,
            groups: Vec::new(),
            order: Vec::new(),
            planned: 0,
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
            match out.last_mut() {
                Some((every, n)) if *every == g.every => *n += g.members,
                _ => out.push((g.every, g.members)),
            }
        }
        out
    }

    /// Ticks of tiered agents the plan of this step allows (woken agents
    /// come on top).
    pub fn planned(&self) -> u32 {
        self.planned
    }

    /// Plans the next step: which groups are due and how much of each.
    pub(crate) fn plan(&mut self) {
        self.step += 1;
        let step = self.step;
        let mut left = self.budget.unwrap_or(u32::MAX);
        let bound = self.max_missed + 1;
        self.planned = 0;
        for &g in &self.order {
            let g = &mut self.groups[g as usize];
            g.due = step % u64::from(g.every) == u64::from(g.phase);
            if !g.due || g.members == 0 {
                continue;
            }
            // At least a share that reaches every member within the bound.
            let least = g.members.div_ceil(bound);
            let take = left.clamp(least.min(g.members), g.members);
            left = left.saturating_sub(take);
            self.planned += take;
            // The share is of slots (with gaps where members left).
            g.share = if take >= g.members {
                g.slots
            } else {
                (u64::from(take) * u64::from(g.slots)).div_ceil(u64::from(g.members.max(1))) as u32
            };
            if g.share < g.slots {
                g.rotate = (g.rotate + g.share) % g.slots.max(1);
            }
        }
    }

    /// Puts an agent of period `every` in the phase with the fewest agents;
    /// its group and slot.
    fn join(&mut self, every: u16) -> (u32, u32) {
        if !self.groups.iter().any(|g| g.every == every) {
            for phase in 0..every {
                self.groups.push(Group {
                    every,
                    phase,
                    ..Default::default()
                });
            }
            let groups = &self.groups;
            let mut order: Vec<u32> = (0..groups.len() as u32).collect();
            order.sort_by_key(|&g| (groups[g as usize].every, groups[g as usize].phase));
            self.order = order;
        }
        let (at, g) = self
            .groups
            .iter_mut()
            .enumerate()
            .filter(|(_, g)| g.every == every)
            .min_by_key(|(_, g)| g.members)
            .expect("the period's groups were made");
        g.members += 1;
        g.slots += 1;
        (at as u32, g.slots - 1)
    }

    fn leave(&mut self, group: u32) {
        if let Some(g) = self.groups.get_mut(group as usize) {
            g.members = g.members.saturating_sub(1);
            if g.members == 0 {
                g.slots = 0;
                g.rotate = 0;
            }
        }
    }
}

fn tier_inserted(mut world: DeferredWorld, cx: HookContext) {
    let Some(every) = world.get::<BtTier>(cx.entity).map(|t| t.every) else {
        return;
    };
    let Some(mut tiers) = world.get_resource_mut::<BtTiers>() else {
        return;
    };
    let (group, slot) = tiers.join(every);
    if let Some(mut tier) = world.get_mut::<BtTier>(cx.entity) {
        let tier = tier.bypass_change_detection();
        tier.group = group;
        tier.slot = slot;
    }
}

fn tier_discarded(mut world: DeferredWorld, cx: HookContext) {
    let Some(group) = world.get::<BtTier>(cx.entity).map(|t| t.group) else {
        return;
    };
    if let Some(mut tiers) = world.get_resource_mut::<BtTiers>() {
        tiers.leave(group);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Agents of one period spread evenly over its phases; a due group
    /// serves all of its agents without a budget.
    #[test]
    fn a_period_spreads_over_its_phases() {
        let mut tiers = BtTiers::default();
        let mut tiered: Vec<BtTier> = (0..40)
            .map(|_| {
                let mut t = BtTier::every(4);
                (t.group, t.slot) = tiers.join(4);
                t
            })
            .collect();
        let mut per_step = Vec::new();
        for _ in 0..8 {
            tiers.plan();
            let due = tiered
                .iter_mut()
                .map(|t| t.take_due(&tiers, || false))
                .filter(Option::is_some);
            per_step.push(due.count());
        }
        assert_eq!(per_step, vec![10; 8]);
        assert!(
            tiered.iter().all(|t| t.last_step >= 5),
            "each ticked in the last period"
        );
    }
}
