//! The player (keyboard or scripted), its body entity, grenades.

#[allow(unused_imports, reason = "each file uses part of the shared names")]
use super::*;

/// The player's body: the entity AIs target (`"target": Entity` on their
/// blackboards), where the player is.
#[derive(Component, Debug, Clone, Copy, Default)]
pub struct Body {
    /// Where it is.
    pub pos: Vec2,
}

/// The player's body entity.
#[derive(Resource, Debug, Clone, Copy)]
pub struct PlayerBody(pub Entity);

pub(crate) fn spawn_player_body(mut commands: Commands) {
    let e = commands.spawn((Name::new("player"), Body::default())).id();
    commands.insert_resource(PlayerBody(e));
}

#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
pub(crate) fn player(
    time: Res<Time>,
    clock: Res<Clock>,
    mut intent: ResMut<PlayerIntent>,
    mut player: ResMut<Player>,
    mut vehicles: ResMut<Vehicles>,
    mut grenades: ResMut<Grenades>,
    mut tracers: ResMut<Tracers>,
    mut rng: ResMut<Rng>,
    mut ais: Query<(Entity, &mut Ai)>,
    mut deaths: ResMut<Deaths>,
) {
    let dt = time.delta_secs();
    let t = clock.secs();
    player.cooldown -= dt;
    player.grenade_cooldown -= dt;
    if player.health <= 0.0 {
        // Respawn where the match started, out of any vehicle.
        if let Some(v) = player.vehicle.take() {
            vehicles.0[v].player = false;
        }
        *player = Player {
            deaths: player.deaths + 1,
            ..Default::default()
        };
    }
    if intent.toggle_vehicle {
        match player.vehicle.take() {
            Some(v) => {
                vehicles.0[v].player = false;
                player.pos = vehicles.0[v].pos + Vec2::new(0.0, -30.0);
            }
            None => {
                let pos = player.pos;
                if let Some((v, _)) = vehicles
                    .0
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| v.taken == 0 && !v.player)
                    .map(|(i, v)| (i, v.pos.distance(pos)))
                    .filter(|(_, d)| *d < 70.0)
                    .min_by(|a, b| a.1.total_cmp(&b.1))
                {
                    vehicles.0[v].player = true;
                    player.vehicle = Some(v);
                }
            }
        }
    }
    let speed = if player.vehicle.is_some() {
        240.0
    } else {
        140.0
    };
    let next = player.pos + intent.dir.normalize_or_zero() * speed * dt;
    player.pos = next.clamp(-ARENA + 10.0, ARENA - 10.0);
    if let Some(v) = player.vehicle {
        vehicles.0[v].pos = player.pos;
    }
    if intent.shoot && player.cooldown <= 0.0 {
        player.cooldown = 0.25;
        let from = player.pos;
        let dir = (intent.aim - from).normalize_or(Vec2::X);
        let to = from + dir * 500.0;
        // The first AI near the line of fire is hit (half the time).
        let mut hit: Option<(Entity, f32)> = None;
        for (e, mut ai) in &mut ais {
            if segment_distance(ai.pos, from, to) < 80.0 {
                ai.under_fire_until = t + 3.0;
                ai.last_known = Some(from);
                ai.alert_until = t + 20.0;
            }
            if segment_distance(ai.pos, from, to) < 16.0 {
                let along = (ai.pos - from).dot(dir);
                if hit.is_none_or(|(_, d)| along < d) {
                    hit = Some((e, along));
                }
            }
        }
        let mut end = to;
        if let Some((e, along)) = hit
            && rng.unit() < 0.5
            && let Ok((_, mut ai)) = ais.get_mut(e)
        {
            end = from + dir * along;
            ai.health -= 34.0;
            ai.hurt_at = t;
            if ai.health <= 0.0 {
                deaths.0.push(e);
            }
        }
        tracers.0.push((from, end, 0.0, true));
    }
    if intent.grenade && player.grenade_cooldown <= 0.0 && grenades.live.len() < 3 {
        player.grenade_cooldown = 2.0;
        let to = player.pos + (intent.aim - player.pos).clamp_length_max(300.0);
        grenades.live.push(Grenade { pos: to, fuse: 1.5 });
    }
    // One-shot requests are used up.
    intent.grenade = false;
    intent.toggle_vehicle = false;
    for tr in &mut tracers.0 {
        tr.2 += dt;
    }
    tracers.0.retain(|tr| tr.2 < 0.15);
}

pub(crate) fn grenades(
    time: Res<Time>,
    clock: Res<Clock>,
    mut grenades: ResMut<Grenades>,
    mut ais: Query<(Entity, &mut Ai)>,
    mut deaths: ResMut<Deaths>,
) {
    let dt = time.delta_secs();
    let mut exploded = Vec::new();
    grenades.live.retain_mut(|g| {
        g.fuse -= dt;
        if g.fuse <= 0.0 {
            exploded.push(g.pos);
            false
        } else {
            true
        }
    });
    for b in &mut grenades.blasts {
        b.1 += dt;
    }
    grenades.blasts.retain(|b| b.1 < 0.4);
    for pos in exploded {
        grenades.blasts.push((pos, 0.0));
        for (e, mut ai) in &mut ais {
            if ai.pos.distance(pos) < BLAST && ai.health > 0.0 {
                ai.health -= 60.0;
                ai.hurt_at = clock.secs();
                if ai.health <= 0.0 {
                    deaths.0.push(e);
                }
            }
        }
    }
}

/// The headless player: walks from squad to squad shooting (leaders last,
/// so squads first get into vehicles), throws grenades, and drives a
/// vehicle for a while in every 20-second cycle.
pub fn scripted_player(
    clock: Res<Clock>,
    mut intent: ResMut<PlayerIntent>,
    player: Res<Player>,
    squads: Res<Squads>,
    vehicles: Res<Vehicles>,
    ais: Query<&Ai>,
    mut waypoint: Local<usize>,
) {
    let t = clock.secs();
    let cycle = t % 20.0;
    let driving_phase = (6.0..13.0).contains(&cycle);
    let hunt_leaders = cycle >= 13.0;
    *intent = PlayerIntent {
        aim: player.pos + Vec2::X,
        ..Default::default()
    };
    // Into a vehicle for the driving phase, out after it.
    if driving_phase != player.vehicle.is_some() {
        if driving_phase {
            let near = vehicles
                .0
                .iter()
                .filter(|v| v.taken == 0 && !v.player)
                .map(|v| v.pos)
                .min_by(|a, b| a.distance(player.pos).total_cmp(&b.distance(player.pos)));
            if let Some(v) = near {
                if v.distance(player.pos) < 60.0 {
                    intent.toggle_vehicle = true;
                } else {
                    intent.dir = v - player.pos;
                    return;
                }
            }
        } else {
            intent.toggle_vehicle = true;
        }
    }
    // Drive or walk through the squads' homes.
    if squads.0.is_empty() {
        return;
    }
    let goal = squads.0[*waypoint % squads.0.len()].home + Vec2::new(-150.0, 0.0);
    if goal.distance(player.pos) < 30.0 {
        *waypoint += 1;
    }
    intent.dir = goal - player.pos;
    // Shoot the nearest AI in range (leaders only in the hunting phase).
    let target = ais
        .iter()
        .filter(|ai| ai.leader == hunt_leaders)
        .map(|ai| ai.pos)
        .filter(|p| p.distance(player.pos) < 420.0)
        .min_by(|a, b| a.distance(player.pos).total_cmp(&b.distance(player.pos)));
    if let Some(target) = target {
        intent.aim = target;
        intent.shoot = !driving_phase;
        intent.grenade = !driving_phase && (t % 4.0) < 0.05;
    }
}
