//! Tick tiers by distance to the player, for crowds: from
//! [`TIERS_FROM`] AIs on, near AIs decide every step, farther ones every
//! 4th and 16th (`BtTier`), re-sorted twice a second.

use bevy::prelude::*;
use wyrd::bt::BtTier;

use super::{Ai, Player};

/// AIs from which the tiers are used (a skirmish of a few squads keeps
/// every AI at full rate, and the battles of the tests as they were).
pub const TIERS_FROM: usize = 500;

/// Steps between two sortings (30 Hz: twice a second).
const EVERY_STEPS: u32 = 15;

/// Distance within which an AI decides every step, and every 4th.
const NEAR: f32 = 250.0;
const MID: f32 = 500.0;

/// The period an AI at `distance` from the player gets.
pub fn period_at(distance: f32) -> u16 {
    if distance < NEAR {
        1
    } else if distance < MID {
        4
    } else {
        16
    }
}

/// Gives each AI the tier of its distance to the player (inserting a tier
/// only when it changes: an insert moves the agent between groups).
pub(crate) fn tier_by_distance(
    mut commands: Commands,
    mut steps: Local<u32>,
    player: Res<Player>,
    ais: Query<(Entity, &Ai, Option<&BtTier>)>,
) {
    *steps += 1;
    if *steps % EVERY_STEPS != 1 {
        return;
    }
    let count = ais.iter().len();
    for (e, ai, tier) in &ais {
        let period = if count >= TIERS_FROM {
            period_at(ai.pos.distance(player.pos))
        } else {
            1
        };
        match tier {
            Some(t) if t.period() == period => {}
            None if period == 1 => {}
            _ => {
                commands.entity(e).insert(BtTier::every(period));
            }
        }
    }
}

/// AIs per period: `(every, AIs)` (untiered AIs count as every step).
pub(crate) fn counts(world: &World) -> Vec<(u16, usize)> {
    let mut out: std::collections::BTreeMap<u16, usize> = Default::default();
    if let Some(mut q) = world.try_query::<(&Ai, Option<&BtTier>)>() {
        for (_, tier) in q.iter(world) {
            *out.entry(tier.map_or(1, BtTier::period)).or_default() += 1;
        }
    }
    out.into_iter().collect()
}
