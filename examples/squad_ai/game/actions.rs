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
pub(crate) fn timing<A>(run: &RunningAction<A>, ticks: i64) -> (u32, bool) {
    let elapsed = run.elapsed_ms();
    (elapsed, elapsed >= ticks.clamp(0, 1_000_000) as u32 * 33)
}

/// Shoot, PeekShoot, VehicleShoot: a round at the target entity.
pub(crate) fn shoot_actions(
    mut player: ResMut<Player>,
    mut rng: ResMut<Rng>,
    mut tracers: ResMut<Tracers>,
    bodies: Query<&Body>,
    mut ais: Query<&mut Ai>,
    mut runs: ActionRuns,
) {
    let mut fire = |e: Entity, is_new: bool, at: Entity| -> Result<(), ()> {
        if !is_new {
            return Ok(());
        }
        let (Ok(mut ai), Ok(target)) = (ais.get_mut(e), bodies.get(at)) else {
            return Err(());
        };
        if ai.ammo <= 0 {
            return Err(());
        }
        ai.ammo -= 1;
        if ai.pos.distance(target.pos) < RANGE && rng.unit() < 0.25 {
            player.health -= 3.0;
        }
        tracers.0.push((ai.pos, target.pos, 0.0, false));
        Ok(())
    };
    // A round when the action starts; it succeeds when its ticks are up.
    macro_rules! shots {
        ($a:ty) => {
            runs.for_each::<$a>(|mut run| {
                let p = *run.params();
                if fire(run.entity(), run.is_new(), p.at).is_err() {
                    run.fail();
                } else if timing(&run, p.ticks).1 {
                    run.succeed();
                }
            })
        };
    }
    shots!(Shoot);
    shots!(PeekShoot);
    shots!(VehicleShoot);
}

/// MoveToCover, FleeRun, Advance, GoToLastKnown, Patrol: moving on foot.
pub(crate) fn move_actions(
    time: Res<Time>,
    player: Res<Player>,
    squads: Res<Squads>,
    mut rng: ResMut<Rng>,
    bodies: Query<&Body>,
    mut ais: Query<&mut Ai>,
    mut runs: ActionRuns,
) {
    let dt = time.delta_secs();
    let ppos = player.pos;
    runs.for_each::<MoveToCover>(|mut run| {
        let (a, (elapsed, _)) = (*run.params(), timing(&run, run.params().ticks));
        let Ok(mut ai) = ais.get_mut(run.entity()) else {
            return run.fail();
        };
        if step_towards(&mut ai.pos, a.spot, a.speed, dt) {
            run.succeed();
        } else if elapsed > 4000 {
            run.fail();
        }
    });
    runs.for_each::<FleeRun>(|mut run| {
        let Ok(mut ai) = ais.get_mut(run.entity()) else {
            return run.fail();
        };
        let away = (ai.pos - ppos).normalize_or(Vec2::X);
        ai.pos = (ai.pos + away * 130.0 * dt).clamp(-ARENA, ARENA);
        if timing(&run, run.params().ticks).1 {
            run.succeed();
        }
    });
    runs.for_each::<Advance>(|mut run| {
        let Ok(mut ai) = ais.get_mut(run.entity()) else {
            return run.fail();
        };
        if let Ok(target) = bodies.get(run.params().toward)
            && ai.pos.distance(target.pos) > 80.0
        {
            step_towards(&mut ai.pos, target.pos, 90.0, dt);
        }
        if timing(&run, run.params().ticks).1 {
            run.succeed();
        }
    });
    runs.for_each::<GoToLastKnown>(|mut run| {
        let (elapsed, _) = timing(&run, run.params().ticks);
        let Ok(mut ai) = ais.get_mut(run.entity()) else {
            return run.fail();
        };
        if step_towards(&mut ai.pos, run.params().goal, 90.0, dt) {
            ai.last_known = None;
            run.succeed();
        } else if elapsed > 6000 {
            ai.last_known = None;
            run.fail();
        }
    });
    runs.for_each::<Patrol>(|mut run| {
        let Ok(mut ai) = ais.get_mut(run.entity()) else {
            return run.fail();
        };
        if run.is_new() {
            let home = squads.0[ai.squad].home;
            ai.dest =
                (home + Vec2::new(rng.unit() - 0.5, rng.unit() - 0.5) * 160.0).clamp(-ARENA, ARENA);
        }
        let dest = ai.dest;
        if step_towards(&mut ai.pos, dest, 50.0, dt) || timing(&run, run.params().ticks).1 {
            run.succeed();
        }
    });
}

/// GoToVehicle, EnterVehicle, ExitVehicle, VehicleDrive.
pub(crate) fn vehicle_actions(
    time: Res<Time>,
    player: Res<Player>,
    mut vehicles: ResMut<Vehicles>,
    mut rng: ResMut<Rng>,
    mut summary: ResMut<Summary>,
    mut ais: Query<&mut Ai>,
    mut runs: ActionRuns,
) {
    let dt = time.delta_secs();
    let ppos = player.pos;
    runs.for_each::<GoToVehicle>(|mut run| {
        let (elapsed, _) = timing(&run, run.params().ticks);
        let Ok(mut ai) = ais.get_mut(run.entity()) else {
            return run.fail();
        };
        let v = &vehicles.0[ai.squad];
        if v.player || v.taken >= SEATS || elapsed > 6000 {
            run.fail();
        } else if step_towards(&mut ai.pos, v.pos, 110.0, dt) {
            run.succeed();
        }
    });
    runs.for_each::<EnterVehicle>(|mut run| {
        let e = run.entity();
        let Ok(mut ai) = ais.get_mut(e) else {
            return run.fail();
        };
        if !timing(&run, run.params().ticks).1 {
            return;
        }
        let v = &mut vehicles.0[ai.squad];
        if v.player || v.taken >= SEATS || v.pos.distance(ai.pos) > 30.0 {
            run.fail();
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
            run.succeed();
        }
    });
    runs.for_each::<ExitVehicle>(|mut run| {
        let e = run.entity();
        let Ok(mut ai) = ais.get_mut(e) else {
            return run.fail();
        };
        if !timing(&run, run.params().ticks).1 {
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
        run.succeed();
    });
    runs.for_each::<VehicleDrive>(|mut run| {
        let Ok(mut ai) = ais.get_mut(run.entity()) else {
            return run.fail();
        };
        if let Seat::Driver(v) = ai.seat {
            let v = &mut vehicles.0[v];
            if v.pos.distance(ppos) > 150.0 {
                step_towards(&mut v.pos, ppos, 150.0, dt);
                v.pos = v.pos.clamp(-ARENA, ARENA);
            }
            ai.pos = v.pos;
        }
        if timing(&run, run.params().ticks).1 {
            run.succeed();
        }
    });
}

/// Crouch, Cower, Scream, Aim, HoldPosition, LookAround, Idle: they take
/// their time, in place.
pub(crate) fn timed_actions(mut ais: Query<&mut Ai>, mut runs: ActionRuns) {
    macro_rules! timed {
        ($a:ty) => {
            runs.for_each::<$a>(|mut run| {
                if timing(&run, run.params().ticks).1 {
                    run.succeed();
                }
            })
        };
    }
    timed!(Crouch);
    timed!(Cower);
    timed!(Scream);
    timed!(Aim);
    timed!(LookAround);
    timed!(Idle);
    runs.for_each::<HoldPosition>(|mut run| {
        if timing(&run, run.params().ticks).1 {
            if let Ok(mut ai) = ais.get_mut(run.entity()) {
                ai.ammo = (ai.ammo + 5).min(30);
            }
            run.succeed();
        }
    });
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
