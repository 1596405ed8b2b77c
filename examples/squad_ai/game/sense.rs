//! Sensing: each AI's blackboard values and tags, written before the trees
//! tick.

#[allow(unused_imports, reason = "each file uses part of the shared names")]
use super::*;

#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
pub(crate) fn sense(
    time: Res<Time>,
    clock: Res<Clock>,
    player: Res<Player>,
    vehicles: Res<Vehicles>,
    grenades: Res<Grenades>,
    mut behaviors: ResMut<Behaviors>,
    body: Res<PlayerBody>,
    mut bodies: Query<&mut Body>,
    mut ais: Query<(&mut Ai, &BtAgent, &mut Blackboard)>,
) {
    let t = clock.secs();
    if let Ok(mut b) = bodies.get_mut(body.0) {
        b.pos = player.pos;
    }
    let target = body.0;
    let dt = time.delta_secs();
    // Blackboard slots come from the loaded program.
    if let Some(program) = ais.iter().find_map(|(_, a, _)| a.program().cloned())
        && let Err(e) = behaviors.prepare(&program)
    {
        error!("squad_ai: {e}");
        return;
    }
    let Some(_) = behaviors.program else { return };
    let k = behaviors.keys;
    let ppos = player.pos;
    ais.par_iter_mut().for_each(|(mut ai, _, mut bb)| {
        let ai = &mut *ai;
        if let Some(v) = ai.seat.vehicle() {
            ai.pos = vehicles.0[v].pos;
        }
        // Halo's shields: health comes back 3 s after the last hit.
        let max = if ai.leader { 120.0 } else { 80.0 };
        if t - ai.hurt_at > 3.0 && ai.health < max {
            ai.health = (ai.health + 20.0 * dt).min(max);
        }
        let d = ai.pos.distance(ppos);
        let visible = player.health > 0.0 && d < SIGHT;
        if visible {
            ai.last_seen = t;
            ai.last_known = Some(ppos);
            ai.alert_until = t + 20.0;
        }
        let has_target = t - ai.last_seen < 3.0;
        let cover = nearest_cover(ai.pos).distance(ai.pos) < COVER_NEAR;
        let grenade = grenades
            .live
            .iter()
            .any(|g| g.pos.distance(ai.pos) < BLAST + 40.0);
        let own = &vehicles.0[ai.squad];
        let vehicle_near = ai.seat == Seat::Infantry
            && !own.player
            && own.taken < SEATS
            && own.pos.distance(ai.pos) < VEHICLE_NEAR;
        let values = [
            (k.grenade_near, Value::Bool(grenade)),
            (k.health_low, Value::Bool(ai.health < 35.0)),
            (k.scared, Value::Bool(player.vehicle.is_some() && d < 140.0)),
            (k.leader_dead, Value::Bool(ai.leader_dead)),
            (k.has_target, Value::Bool(has_target)),
            (k.target_visible, Value::Bool(visible)),
            (k.target_in_range, Value::Bool(visible && d < RANGE)),
            (k.cover_available, Value::Bool(cover)),
            (k.under_fire, Value::Bool(t < ai.under_fire_until)),
            (
                k.has_last_known,
                Value::Bool(ai.last_known.is_some() && !has_target),
            ),
            (
                k.player_in_vehicle,
                Value::Bool(visible && player.vehicle.is_some()),
            ),
            (k.vehicle_near, Value::Bool(vehicle_near)),
            (k.ammo, Value::Int(ai.ammo)),
        ];
        for (key, value) in values {
            bb.set_index(key, value);
        }
        // The values actions read: whom to fight, where it was seen, where
        // to take cover (beside the nearest block, away from the player).
        if has_target {
            bb.set_index(k.target, Value::Entity(target));
        } else {
            bb.clear_index(k.target);
        }
        match ai.last_known {
            Some(p) => bb.set_index(k.last_known, Value::Vec2(p)),
            None => bb.clear_index(k.last_known),
        }
        let block = nearest_cover(ai.pos);
        let spot = block + (block - ppos).normalize_or(Vec2::X) * 26.0;
        bb.set_index(k.cover, Value::Vec2(spot));
        let role = match ai.seat {
            Seat::Infantry => k.infantry,
            Seat::Driver(_) => k.driver,
            Seat::Passenger(_) => k.passenger,
        };
        let alertness = if t < ai.alert_until {
            k.alert
        } else {
            k.unaware
        };
        bb.set_tags(role | alertness);
    });
}
