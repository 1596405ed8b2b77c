//! The actions the tree asks for, declared once as types, and one system
//! per action family reading their typed parameters.

#[allow(unused_imports, reason = "each file uses part of the shared names")]
use super::*;

wyrd::bt::bt_action! {
    /// Fire at the target (on foot).
    pub struct Shoot {
        /// Whom.
        pub at: Entity,
        /// Ticks it lasts.
        pub ticks: i64 = 3,
    }
    /// Fire from cover.
    pub struct PeekShoot {
        /// Whom.
        pub at: Entity,
        /// Ticks it lasts.
        pub ticks: i64 = 2,
    }
    /// Fire from a vehicle.
    pub struct VehicleShoot {
        /// Whom.
        pub at: Entity,
        /// Ticks it lasts.
        pub ticks: i64 = 3,
    }
    /// Move beside a cover block (a dive or a walk: the speed says).
    pub struct MoveToCover {
        /// Where: the blackboard's `cover` spot.
        pub spot: Vec2,
        /// Units per second.
        pub speed: f32 = 100.0,
        /// Ticks it lasts in `wyrd sim`.
        pub ticks: i64 = 3,
    }
    /// Run away from the player.
    pub struct FleeRun {
        /// Ticks it lasts.
        pub ticks: i64 = 4,
    }
    /// Close in on the target.
    pub struct Advance {
        /// Whom.
        pub toward: Entity,
        /// Ticks it lasts.
        pub ticks: i64 = 4,
    }
    /// Walk to where the player was last seen.
    pub struct GoToLastKnown {
        /// Where.
        pub goal: Vec2,
        /// Ticks it lasts in `wyrd sim`.
        pub ticks: i64 = 5,
    }
    /// Walk to a random point near the squad's home.
    pub struct Patrol {
        /// Ticks it lasts.
        pub ticks: i64 = 5,
    }
    /// Walk to the squad's vehicle.
    pub struct GoToVehicle {
        /// Ticks it lasts in `wyrd sim`.
        pub ticks: i64 = 5,
    }
    /// Get in (driver first, then passengers).
    pub struct EnterVehicle {
        /// Ticks it takes.
        pub ticks: i64 = 2,
    }
    /// Get out.
    pub struct ExitVehicle {
        /// Ticks it takes.
        pub ticks: i64 = 2,
    }
    /// Drive towards the player.
    pub struct VehicleDrive {
        /// Ticks it lasts.
        pub ticks: i64 = 4,
    }
    /// Crouch in place.
    pub struct Crouch {
        /// Ticks it lasts.
        pub ticks: i64 = 3,
    }
    /// Cower in place.
    pub struct Cower {
        /// Ticks it lasts.
        pub ticks: i64 = 3,
    }
    /// Scream.
    pub struct Scream {
        /// Ticks it lasts.
        pub ticks: i64 = 1,
    }
    /// Aim.
    pub struct Aim {
        /// Ticks it lasts.
        pub ticks: i64 = 2,
    }
    /// Hold position (and reload).
    pub struct HoldPosition {
        /// Ticks it lasts.
        pub ticks: i64 = 3,
    }
    /// Look around.
    pub struct LookAround {
        /// Ticks it lasts.
        pub ticks: i64 = 3,
    }
    /// Stand idle.
    pub struct Idle {
        /// Ticks it lasts.
        pub ticks: i64 = 4,
    }
}

/// Registers every action the tree may ask for (name, id and parameters
/// come from the declarations above).
pub(crate) fn register_actions(app: &mut App) {
    app.add_bt_action::<Shoot>()
        .add_bt_action::<PeekShoot>()
        .add_bt_action::<VehicleShoot>()
        .add_bt_action::<MoveToCover>()
        .add_bt_action::<FleeRun>()
        .add_bt_action::<Advance>()
        .add_bt_action::<GoToLastKnown>()
        .add_bt_action::<Patrol>()
        .add_bt_action::<GoToVehicle>()
        .add_bt_action::<EnterVehicle>()
        .add_bt_action::<ExitVehicle>()
        .add_bt_action::<VehicleDrive>()
        .add_bt_action::<Crouch>()
        .add_bt_action::<Cower>()
        .add_bt_action::<Scream>()
        .add_bt_action::<Aim>()
        .add_bt_action::<HoldPosition>()
        .add_bt_action::<LookAround>()
        .add_bt_action::<Idle>();
}

/// How long an action runs: its `ticks` parameter at 30 Hz.
pub(crate) fn step_towards(pos: &mut Vec2, to: Vec2, speed: f32, dt: f32) -> bool {
    let d = to - *pos;
    let step = speed * dt;
    if d.length() <= step {
        *pos = to;
        true
    } else {
        *pos += d.normalize() * step;
        false
    }
}

/// The agent time an action has run, and whether its `ticks` are up (the
/// agent's clock moves 33 ms per 30 Hz tick).
pub(crate) fn timing(agent: &BtAgent, slot: &ActiveAction, ticks: i64) -> (u32, bool) {
    let elapsed = agent.state().now_ms().wrapping_sub(slot.started_ms);
    (elapsed, elapsed >= ticks.clamp(0, 1_000_000) as u32 * 33)
}

/// The running slots of one action type with its parameters, read by
/// position; a slot whose parameters cannot be read (a key still unset)
/// fails.
pub(crate) fn each<A: BtAction>(
    agent: &BtAgent,
    bb: &Blackboard,
    actions: &mut BtActions,
    mut f: impl FnMut(&mut ActiveAction, A),
) {
    for slot in actions.iter_mut() {
        if slot.id != A::ID || !slot.is_running() {
            continue;
        }
        match agent.read_action::<A>(slot, bb) {
            Ok(params) => f(slot, params),
            Err(e) => {
                warn_once!("squad_ai: {e}");
                slot.fail();
            }
        }
    }
}

/// Shoot, PeekShoot, VehicleShoot: a round at the target entity.
pub(crate) fn shoot_actions(
    mut player: ResMut<Player>,
    mut rng: ResMut<Rng>,
    mut tracers: ResMut<Tracers>,
    bodies: Query<&Body>,
    mut ais: Query<(&mut Ai, &BtAgent, &Blackboard, &mut BtActions)>,
) {
    for (mut ai, agent, bb, mut actions) in &mut ais {
        let ai = &mut *ai;
        let mut fire = |slot: &mut ActiveAction, at: Entity, ticks: i64| {
            let (_, due) = timing(agent, slot, ticks);
            if slot.state == ActionState::Started {
                let Ok(target) = bodies.get(at) else {
                    slot.fail();
                    return;
                };
                if ai.ammo <= 0 {
                    slot.fail();
                    return;
                }
                ai.ammo -= 1;
                if ai.pos.distance(target.pos) < RANGE && rng.unit() < 0.25 {
                    player.health -= 3.0;
                }
                tracers.0.push((ai.pos, target.pos, 0.0, false));
            }
            if due {
                slot.succeed();
            }
        };
        each(agent, bb, &mut actions, |slot, a: Shoot| {
            fire(slot, a.at, a.ticks)
        });
        each(agent, bb, &mut actions, |slot, a: PeekShoot| {
            fire(slot, a.at, a.ticks)
        });
        each(agent, bb, &mut actions, |slot, a: VehicleShoot| {
            fire(slot, a.at, a.ticks)
        });
    }
}

/// MoveToCover, FleeRun, Advance, GoToLastKnown, Patrol: moving on foot.
pub(crate) fn move_actions(
    time: Res<Time>,
    player: Res<Player>,
    squads: Res<Squads>,
    mut rng: ResMut<Rng>,
    bodies: Query<&Body>,
    mut ais: Query<(&mut Ai, &BtAgent, &Blackboard, &mut BtActions)>,
) {
    let dt = time.delta_secs();
    let ppos = player.pos;
    for (mut ai, agent, bb, mut actions) in &mut ais {
        let ai = &mut *ai;
        each(agent, bb, &mut actions, |slot, a: MoveToCover| {
            let (elapsed, _) = timing(agent, slot, a.ticks);
            if step_towards(&mut ai.pos, a.spot, a.speed, dt) {
                slot.succeed();
            } else if elapsed > 4000 {
                slot.fail();
            }
        });
        each(agent, bb, &mut actions, |slot, a: FleeRun| {
            let away = (ai.pos - ppos).normalize_or(Vec2::X);
            ai.pos = (ai.pos + away * 130.0 * dt).clamp(-ARENA, ARENA);
            if timing(agent, slot, a.ticks).1 {
                slot.succeed();
            }
        });
        each(agent, bb, &mut actions, |slot, a: Advance| {
            if let Ok(target) = bodies.get(a.toward)
                && ai.pos.distance(target.pos) > 80.0
            {
                step_towards(&mut ai.pos, target.pos, 90.0, dt);
            }
            if timing(agent, slot, a.ticks).1 {
                slot.succeed();
            }
        });
        each(agent, bb, &mut actions, |slot, a: GoToLastKnown| {
            let (elapsed, _) = timing(agent, slot, a.ticks);
            if step_towards(&mut ai.pos, a.goal, 90.0, dt) {
                ai.last_known = None;
                slot.succeed();
            } else if elapsed > 6000 {
                ai.last_known = None;
                slot.fail();
            }
        });
        each(agent, bb, &mut actions, |slot, a: Patrol| {
            if slot.state == ActionState::Started {
                let home = squads.0[ai.squad].home;
                ai.dest = (home + Vec2::new(rng.unit() - 0.5, rng.unit() - 0.5) * 160.0)
                    .clamp(-ARENA, ARENA);
            }
            if step_towards(&mut ai.pos, ai.dest, 50.0, dt) || timing(agent, slot, a.ticks).1 {
                slot.succeed();
            }
        });
    }
}

/// GoToVehicle, EnterVehicle, ExitVehicle, VehicleDrive.
pub(crate) fn vehicle_actions(
    time: Res<Time>,
    player: Res<Player>,
    mut vehicles: ResMut<Vehicles>,
    mut rng: ResMut<Rng>,
    mut summary: ResMut<Summary>,
    mut ais: Query<(Entity, &mut Ai, &BtAgent, &Blackboard, &mut BtActions)>,
) {
    let dt = time.delta_secs();
    let ppos = player.pos;
    for (e, mut ai, agent, bb, mut actions) in &mut ais {
        let ai = &mut *ai;
        each(agent, bb, &mut actions, |slot, a: GoToVehicle| {
            let (elapsed, _) = timing(agent, slot, a.ticks);
            let v = &vehicles.0[ai.squad];
            if v.player || v.taken >= SEATS || elapsed > 6000 {
                slot.fail();
            } else if step_towards(&mut ai.pos, v.pos, 110.0, dt) {
                slot.succeed();
            }
        });
        each(agent, bb, &mut actions, |slot, a: EnterVehicle| {
            if !timing(agent, slot, a.ticks).1 {
                return;
            }
            let v = &mut vehicles.0[ai.squad];
            if v.player || v.taken >= SEATS || v.pos.distance(ai.pos) > 30.0 {
                slot.fail();
            } else {
                v.taken += 1;
                ai.pos = v.pos;
                ai.seat = if v.driver.is_none() {
                    v.driver = Some(e);
                    Seat::Driver(ai.squad)
                } else {
                    Seat::Passenger(ai.squad)
                };
                summary.vehicles_entered += 1;
                slot.succeed();
            }
        });
        each(agent, bb, &mut actions, |slot, a: ExitVehicle| {
            if !timing(agent, slot, a.ticks).1 {
                return;
            }
            if let Some(v) = ai.seat.vehicle() {
                let v = &mut vehicles.0[v];
                v.taken = v.taken.saturating_sub(1);
                if v.driver == Some(e) {
                    v.driver = None;
                }
                ai.pos = v.pos + Vec2::new(rng.unit() - 0.5, -1.0) * 30.0;
            }
            ai.seat = Seat::Infantry;
            slot.succeed();
        });
        each(agent, bb, &mut actions, |slot, a: VehicleDrive| {
            if let Seat::Driver(v) = ai.seat {
                let v = &mut vehicles.0[v];
                if v.pos.distance(ppos) > 150.0 {
                    step_towards(&mut v.pos, ppos, 150.0, dt);
                    v.pos = v.pos.clamp(-ARENA, ARENA);
                }
                ai.pos = v.pos;
            }
            if timing(agent, slot, a.ticks).1 {
                slot.succeed();
            }
        });
    }
}

/// Crouch, Cower, Scream, Aim, HoldPosition, LookAround, Idle: they take
/// their time, in place.
pub(crate) fn timed_actions(mut ais: Query<(&mut Ai, &BtAgent, &Blackboard, &mut BtActions)>) {
    for (mut ai, agent, bb, mut actions) in &mut ais {
        let done = |slot: &mut ActiveAction, ticks: i64| {
            if timing(agent, slot, ticks).1 {
                slot.succeed();
            }
        };
        each(agent, bb, &mut actions, |s, a: Crouch| done(s, a.ticks));
        each(agent, bb, &mut actions, |s, a: Cower| done(s, a.ticks));
        each(agent, bb, &mut actions, |s, a: Scream| done(s, a.ticks));
        each(agent, bb, &mut actions, |s, a: Aim| done(s, a.ticks));
        each(agent, bb, &mut actions, |s, a: LookAround| done(s, a.ticks));
        each(agent, bb, &mut actions, |s, a: Idle| done(s, a.ticks));
        each(agent, bb, &mut actions, |s, a: HoldPosition| {
            if timing(agent, s, a.ticks).1 {
                ai.ammo = (ai.ammo + 5).min(30);
                s.succeed();
            }
        });
    }
}

/// A driver's moves move its vehicle; passengers ride along.
pub(crate) fn ride_along(mut vehicles: ResMut<Vehicles>, mut ais: Query<&mut Ai>) {
    for mut ai in &mut ais {
        match ai.seat {
            Seat::Driver(v) => vehicles.0[v].pos = ai.pos.clamp(-ARENA, ARENA),
            Seat::Passenger(v) => ai.pos = vehicles.0[v].pos,
            Seat::Infantry => {}
        }
    }
}
