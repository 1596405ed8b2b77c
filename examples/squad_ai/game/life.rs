//! Squads spawning, AIs dying (leaders' deaths give their squads the
//! "leader died" stimulus), respawning.

#[allow(unused_imports, reason = "each file uses part of the shared names")]
use super::*;

/// AIs to spawn on the next tick (rounded up to whole squads).
#[derive(Resource, Debug, Default)]
pub struct SpawnRequest(pub usize);

/// AIs killed this tick, handled once per stage.
#[derive(Resource, Debug, Default)]
pub struct Deaths(pub Vec<Entity>);

pub(crate) fn spawn_requested(
    mut commands: Commands,
    tree: Res<TreeHandle>,
    mut request: ResMut<SpawnRequest>,
    mut rng: ResMut<Rng>,
    mut squads: ResMut<Squads>,
    mut vehicles: ResMut<Vehicles>,
) {
    if request.0 == 0 {
        return;
    }
    let tree = tree.0.clone();
    for _ in 0..request.0.div_ceil(SQUAD_SIZE) {
        let home = rng.point(80.0);
        let id = squads.0.len();
        squads.0.push(Squad {
            home,
            alive: 0,
            respawn_at: None,
        });
        let park = (home + Vec2::new(60.0, -40.0)).clamp(-ARENA + 20.0, ARENA - 20.0);
        vehicles.0.push(Vehicle {
            pos: park,
            driver: None,
            taken: 0,
            player: false,
        });
        spawn_squad(&mut commands, &tree, &mut rng, &mut squads.0[id], id);
    }
    request.0 = 0;
}

pub(crate) fn spawn_squad(
    commands: &mut Commands,
    tree: &Handle<BtAsset>,
    rng: &mut Rng,
    squad: &mut Squad,
    id: usize,
) {
    for k in 0..SQUAD_SIZE {
        let leader = k == 0;
        let pos = squad.home + Vec2::new(rng.unit() - 0.5, rng.unit() - 0.5) * 60.0;
        commands.spawn((
            Name::new(if leader {
                format!("squad {id} leader")
            } else {
                format!("squad {id} grunt {k}")
            }),
            Ai {
                squad: id,
                leader,
                health: if leader { 120.0 } else { 80.0 },
                ammo: 30,
                seat: Seat::Infantry,
                alert_until: f32::NEG_INFINITY,
                last_seen: f32::NEG_INFINITY,
                last_known: None,
                under_fire_until: f32::NEG_INFINITY,
                leader_dead: false,
                dest: squad.home,
                pos,
                hurt_at: f32::NEG_INFINITY,
            },
            Tracked::default(),
            BehaviorTree::new(tree.clone()).with_seed(rng.next()),
        ));
    }
    squad.alive = SQUAD_SIZE;
    squad.respawn_at = None;
}

/// Removes the dead; a leader's death tells its squad (the stimulus).
pub(crate) fn deaths(
    mut commands: Commands,
    clock: Res<Clock>,
    mut list: ResMut<Deaths>,
    mut squads: ResMut<Squads>,
    mut vehicles: ResMut<Vehicles>,
    mut summary: ResMut<Summary>,
    mut ais: Query<(Entity, &mut Ai, &mut BtAgent, &mut Tracked)>,
) {
    if list.0.is_empty() {
        return;
    }
    list.0.sort();
    list.0.dedup();
    let dying = std::mem::take(&mut list.0);
    for &e in &dying {
        let Ok((_, ai, agent, tracked)) = ais.get(e) else {
            continue;
        };
        if tracked.stimulus {
            summary.stimuli_cut_short += 1;
        }
        // Its impulse counts stay in the summary.
        let fired = agent.state().impulse_counts();
        if summary.impulses_of_dead.len() < fired.len() {
            summary.impulses_of_dead.resize(fired.len(), 0);
        }
        for (sum, n) in summary.impulses_of_dead.iter_mut().zip(fired.iter()) {
            *sum += u64::from(*n);
        }
        let (squad, leader, seat) = (ai.squad, ai.leader, ai.seat);
        if let Some(v) = seat.vehicle() {
            let v = &mut vehicles.0[v];
            v.taken = v.taken.saturating_sub(1);
            if v.driver == Some(e) {
                v.driver = None;
            }
        }
        commands.entity(e).despawn();
        summary.killed += 1;
        let s = &mut squads.0[squad];
        s.alive = s.alive.saturating_sub(1);
        if s.alive == 0 {
            s.respawn_at = Some(clock.secs() + 5.0);
        }
        if leader {
            summary.leaders_killed += 1;
            for (other, mut ai, mut agent, mut tracked) in &mut ais {
                // Not to itself, nor to squad mates dying in the same tick.
                if ai.squad != squad || dying.binary_search(&other).is_ok() {
                    continue;
                }
                ai.leader_dead = true;
                // Halo's stimulus: flee for a moment, inserted at the root
                // below self-preservation and retreat.
                match agent.insert_stimulus("root", "flee_leader_died", 2, LEADER_DIED_FLEE) {
                    Ok(()) => {
                        summary.stimuli_fired += 1;
                        // A second insertion while one runs refreshes it.
                        summary.stimuli_refreshed += u64::from(tracked.stimulus);
                        tracked.stimulus = true;
                        tracked.stimulus_at = agent.state().ticks();
                    }
                    Err(err) => warn!("squad_ai: {err}"),
                }
            }
        }
    }
}

pub(crate) fn respawn(
    mut commands: Commands,
    clock: Res<Clock>,
    tree: Res<TreeHandle>,
    mut rng: ResMut<Rng>,
    mut squads: ResMut<Squads>,
) {
    let t = clock.secs();
    for (id, squad) in squads.0.iter_mut().enumerate() {
        if squad.respawn_at.is_some_and(|at| t >= at) {
            spawn_squad(&mut commands, &tree.0, &mut rng, squad, id);
        }
    }
}

/// The world counter `AIS_KILLED` follows the summary's kills. Added, not
/// set: a value a tool set (`--remote`) stays the base.
pub(crate) fn count_killed(
    summary: Res<Summary>,
    mut counted: Local<u64>,
    mut world: ResMut<WorldState>,
) {
    let new = summary.killed.saturating_sub(*counted);
    if new == 0 {
        return;
    }
    *counted = summary.killed;
    if let Err(e) = world.add_counter("AIS_KILLED", i64::try_from(new).unwrap_or(i64::MAX), SOURCE)
    {
        warn!("squad_ai: {e}");
    }
}

/// Reports the world-state changes the game did not make (a tool attached
/// with `--remote` setting a counter), on stderr: headless prints its
/// summary on stdout.
pub(crate) fn report_world_changes(
    mut flags: MessageReader<FlagChanged>,
    mut counters: MessageReader<CounterChanged>,
) {
    for c in counters.read().filter(|c| c.source != SOURCE) {
        eprintln!(
            "squad_ai: world {} = {} (was {}), set by {}",
            c.name, c.new, c.old, c.source
        );
    }
    for f in flags.read().filter(|f| f.source != SOURCE) {
        eprintln!(
            "squad_ai: world {} = {}, set by {}",
            f.name, f.new, f.source
        );
    }
}
