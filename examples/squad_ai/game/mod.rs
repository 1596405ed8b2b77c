//! The skirmish: the player, squads of AI with leaders, vehicles, cover,
//! grenades. By concern:
//!
//! - here: the world (arena, squads, vehicles, the player's state), the app
//!   and its schedule;
//! - `sense`: each AI's blackboard values (the target entity, positions)
//!   and tags;
//! - `actions`: the actions the tree asks for, declared as types, one
//!   system per action family;
//! - `life`: spawning, deaths (the "leader died" stimulus), respawning;
//! - `player`: the player, its body entity, grenades, the scripted player;
//! - `track`: behavior labels, interruptions, stimuli: the summary.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use wyrd::bt::{ActionState, BtStats, NONE, Program, RunningAction, Value};
use wyrd::prelude::*;

mod actions;
mod life;
mod player;
mod sense;
mod tiers;
mod track;

pub use actions::*;
pub use life::*;
pub use player::*;
pub(crate) use sense::*;
pub use track::*;

/// The AI's tree.
pub const TREE: &str = "squad_ai/combat.bt.ron";
/// The skirmish's world state (`AIS_KILLED`).
pub const WORLD: &str = "squad_ai/skirmish.flags.ron";
/// The world-state source of the game's own changes.
pub const SOURCE: &str = "squad_ai";
/// Half the arena's size.
pub const ARENA: Vec2 = Vec2::new(700.0, 400.0);
/// AIs see the player this far.
pub const SIGHT: f32 = 380.0;
/// AIs shoot this far.
pub const RANGE: f32 = 240.0;
/// Cover blocks stand on a lattice this wide (so the nearest is arithmetic).
pub const COVER_SPACING: f32 = 200.0;
/// An AI uses cover this close.
pub const COVER_NEAR: f32 = 150.0;
/// An AI walks to its squad's vehicle from this far.
pub const VEHICLE_NEAR: f32 = 260.0;
/// AIs per squad (one leader).
pub const SQUAD_SIZE: usize = 4;
/// Seats per vehicle (a driver and passengers): one of a squad of four
/// always stays on foot.
pub const SEATS: u8 = 3;
/// Seconds a leader's death makes the squad flee.
pub const LEADER_DIED_FLEE: f32 = 1.5;
/// Grenade blast radius; AIs notice a live grenade a bit farther.
pub const BLAST: f32 = 90.0;

/// Behaviors a passenger must never enter (flight and its relatives).
pub const PASSENGER_NEVER: [&str; 5] = [
    "flee",
    "flee_leader_died",
    "retreat",
    "self_preservation",
    "search",
];

/// Where the example finds its assets.
pub struct GameConfig {
    /// The assets folder.
    pub assets: PathBuf,
}

/// Where an AI sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Seat {
    /// On foot.
    #[default]
    Infantry,
    /// Driving vehicle `n`.
    Driver(usize),
    /// Riding in vehicle `n`.
    Passenger(usize),
}

impl Seat {
    /// The vehicle, if any.
    pub fn vehicle(self) -> Option<usize> {
        match self {
            Seat::Infantry => None,
            Seat::Driver(v) | Seat::Passenger(v) => Some(v),
        }
    }
}

/// An AI.
#[derive(Component, Debug, Clone)]
pub struct Ai {
    /// Its squad.
    pub squad: usize,
    /// Whether it leads the squad.
    pub leader: bool,
    /// Health (dies at 0).
    pub health: f32,
    /// Rounds left.
    pub ammo: i64,
    /// On foot or in a vehicle.
    pub seat: Seat,
    /// Seen the player (alert) until this time.
    pub alert_until: f32,
    /// When it last saw the player.
    pub last_seen: f32,
    /// Where it last saw the player.
    pub last_known: Option<Vec2>,
    /// Shot at until this time.
    pub under_fire_until: f32,
    /// Its squad's leader died.
    pub leader_dead: bool,
    /// Where it patrols to.
    pub dest: Vec2,
    /// Where it is.
    pub pos: Vec2,
    /// Last time it was hurt (its shield recharges 3 s after).
    pub hurt_at: f32,
}

/// A vehicle.
#[derive(Debug, Clone)]
pub struct Vehicle {
    /// Where it is.
    pub pos: Vec2,
    /// Its driver (AI).
    pub driver: Option<Entity>,
    /// Seats taken (driver included).
    pub taken: u8,
    /// The player drives it.
    pub player: bool,
}

/// All vehicles (squad `n` parks vehicle `n`).
#[derive(Resource, Debug, Default)]
pub struct Vehicles(pub Vec<Vehicle>);

/// A squad.
#[derive(Debug, Clone)]
pub struct Squad {
    /// Where it spawns and patrols.
    pub home: Vec2,
    /// Members alive.
    pub alive: usize,
    /// Respawns at this time once wiped out.
    pub respawn_at: Option<f32>,
}

/// All squads.
#[derive(Resource, Debug, Default)]
pub struct Squads(pub Vec<Squad>);

/// The player.
#[derive(Resource, Debug, Clone)]
pub struct Player {
    /// Where it is.
    pub pos: Vec2,
    /// Health (respawns at 0).
    pub health: f32,
    /// The vehicle it drives.
    pub vehicle: Option<usize>,
    /// Deaths so far.
    pub deaths: u32,
    pub(crate) cooldown: f32,
    pub(crate) grenade_cooldown: f32,
}

impl Default for Player {
    fn default() -> Self {
        Player {
            pos: Vec2::new(-ARENA.x + 60.0, 0.0),
            health: 100.0,
            vehicle: None,
            deaths: 0,
            cooldown: 0.0,
            grenade_cooldown: 0.0,
        }
    }
}

/// What the player (keyboard and mouse, or the headless script) wants this
/// tick.
#[derive(Resource, Debug, Clone, Copy, Default)]
pub struct PlayerIntent {
    /// Movement direction.
    pub dir: Vec2,
    /// Aim point (world).
    pub aim: Vec2,
    /// Fire (held).
    pub shoot: bool,
    /// Throw a grenade at the aim point.
    pub grenade: bool,
    /// Enter or leave a vehicle.
    pub toggle_vehicle: bool,
}

/// A thrown grenade.
#[derive(Debug, Clone, Copy)]
pub struct Grenade {
    /// Where it lies.
    pub pos: Vec2,
    /// Seconds to the blast.
    pub fuse: f32,
}

/// Live grenades, and blasts for the screen to flash.
#[derive(Resource, Debug, Default)]
pub struct Grenades {
    /// Live ones.
    pub live: Vec<Grenade>,
    /// Recent blasts (position, seconds ago).
    pub blasts: Vec<(Vec2, f32)>,
}

/// Recent shots for the screen (from, to, seconds ago, by the player).
#[derive(Resource, Debug, Default)]
pub struct Tracers(pub Vec<(Vec2, Vec2, f32, bool)>);

/// Deterministic random numbers (Wyrd's seeded SplitMix64).
#[derive(Resource, Debug, Clone)]
pub struct Rng(pub wyrd::bt::SplitMix64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0.next()
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        self.0.unit_f32()
    }

    /// A point in the arena, `margin` from its edges.
    pub fn point(&mut self, margin: f32) -> Vec2 {
        Vec2::new(
            (self.unit() * 2.0 - 1.0) * (ARENA.x - margin),
            (self.unit() * 2.0 - 1.0) * (ARENA.y - margin),
        )
    }
}

/// Adds the game to an app that has the engine's plugins.
pub fn add_game(app: &mut App, agents: usize, seed: u64) {
    // Halo's AI ticks at 30 Hz (the app's fixed timestep).
    app.insert_resource(Time::<Fixed>::from_hz(30.0))
        .add_plugins((BtPlugin::default(), WorldStatePlugin::with_files([WORLD])));
    register_actions(app);
    // A logging hook the tree names; it never fires the impulse.
    app.register_bt_predicate("log_engage", |_| false)
        .insert_resource(Rng(wyrd::bt::SplitMix64::new(seed)))
        .init_resource::<Player>()
        .init_resource::<PlayerIntent>()
        .init_resource::<Vehicles>()
        .init_resource::<Squads>()
        .init_resource::<Grenades>()
        .init_resource::<Tracers>()
        .init_resource::<Behaviors>()
        .init_resource::<Summary>()
        .init_resource::<Deaths>()
        .insert_resource(SpawnRequest(agents))
        .init_resource::<Clock>()
        .add_systems(
            FixedUpdate,
            (
                spawn_requested,
                player,
                grenades,
                deaths,
                count_killed,
                sense,
                tiers::tier_by_distance,
            )
                .chain()
                .in_set(BtSystems::Sense)
                .run_if(resource_exists::<Playing>),
        )
        .add_systems(Startup, (load_tree, spawn_player_body))
        .add_systems(
            FixedUpdate,
            (
                track,
                shoot_actions,
                move_actions,
                vehicle_actions,
                timed_actions,
                ride_along,
                respawn,
            )
                .chain()
                .in_set(BtSystems::Act)
                .run_if(resource_exists::<Playing>),
        )
        .add_systems(FixedLast, count_ticks.run_if(resource_exists::<Playing>))
        .add_systems(Last, report_world_changes.after(WorldStateSystems::Flush));
}

/// Every core for the compute pool, which ticks the trees in parallel (by
/// default Bevy gives it one thread on a 2-core machine).
pub fn task_pools() -> TaskPoolPlugin {
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = bevy::tasks::available_parallelism();
    TaskPoolPlugin {
        task_pool_options: options,
    }
}

/// A headless app stepping exactly one 30 Hz tick per update.
pub fn build_headless(config: &GameConfig, agents: usize, seed: u64) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(task_pools()),
        AssetPlugin {
            file_path: config.assets.to_string_lossy().into_owned(),
            ..Default::default()
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 30.0,
    )));
    add_game(&mut app, agents, seed);
    app
}

/// The AIs' tree, loaded at startup and kept alive.
#[derive(Resource, Debug, Clone)]
pub struct TreeHandle(pub Handle<BtAsset>);

pub(crate) fn load_tree(mut commands: Commands, server: Res<AssetServer>) {
    commands.insert_resource(TreeHandle(server.load(TREE)));
}

/// The battle's clock: fixed ticks since play started (not since the app
/// started: loading takes as long as it takes, the battle does not).
#[derive(Resource, Debug, Default)]
pub struct Clock {
    /// Fixed ticks played.
    pub ticks: u64,
}

impl Clock {
    /// Seconds played.
    pub fn secs(&self) -> f32 {
        self.ticks as f32 / 30.0
    }
}

/// Present while the game plays; the headless mode inserts it once the
/// tree is loaded (see [`settle`]), the window at once.
#[derive(Resource, Debug, Default)]
pub struct Playing;

/// Distance from `p` to the segment `a`-`b`.
pub(crate) fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared().max(1e-6)).clamp(0.0, 1.0);
    p.distance(a + ab * t)
}

/// The cover block nearest to `p` (they stand on a lattice).
pub fn nearest_cover(p: Vec2) -> Vec2 {
    let c =
        ((p + COVER_SPACING / 2.0) / COVER_SPACING).round() * COVER_SPACING - COVER_SPACING / 2.0;
    c.clamp(-ARENA + COVER_SPACING / 2.0, ARENA - COVER_SPACING / 2.0)
}

/// All cover blocks.
pub fn covers() -> Vec<Vec2> {
    let mut out = Vec::new();
    let mut x = -ARENA.x + COVER_SPACING / 2.0;
    while x < ARENA.x {
        let mut y = -ARENA.y + COVER_SPACING / 2.0;
        while y < ARENA.y {
            out.push(Vec2::new(x, y));
            y += COVER_SPACING;
        }
        x += COVER_SPACING;
    }
    out
}

/// Updates until the tree is loaded (or gives up), then starts play: the
/// battle starts on the next tick however long loading took, so a seed
/// always gives the same battle.
pub fn settle(app: &mut App) -> Result<(), String> {
    let done = wyrd_test_support::try_run_until(app, wyrd_test_support::LOAD_UPDATES, |w| {
        let handle = &w.resource::<TreeHandle>().0;
        let server = w.resource::<AssetServer>();
        let world = w.resource::<WorldStateFiles>();
        let world_done = world.all_merged() || world.failures().next().is_some();
        world_done
            && (server.is_loaded_with_dependencies(handle)
                || matches!(
                    server.get_load_state(handle),
                    Some(bevy::asset::LoadState::Failed(_))
                ))
    });
    let world = app.world();
    let handle = &world.resource::<TreeHandle>().0;
    if let Some(bevy::asset::LoadState::Failed(e)) =
        world.resource::<AssetServer>().get_load_state(handle)
    {
        return Err(e.to_string());
    }
    if let Some(why) = world.resource::<WorldStateFiles>().failures().next() {
        return Err(why.to_owned());
    }
    done.map_err(|e| format!("{TREE} did not load: {e}"))?;
    app.insert_resource(Playing);
    Ok(())
}
