//! The skirmish: the player, squads of AI with leaders, vehicles, cover,
//! grenades; the sensing that writes each AI's blackboard and tags, the
//! actions its tree asks for, and the bookkeeping behind the summary
//! (behaviors entered, interruptions, stimuli).

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use wyrd::bt::{ActionState, ActiveAction, BtStats, NONE, Program, Value};
use wyrd::prelude::*;

/// The AI's tree.
pub const TREE: &str = "squad_ai/combat.bt.ron";
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
fn register_actions(app: &mut App) {
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

fn spawn_player_body(mut commands: Commands) {
    let e = commands.spawn((Name::new("player"), Body::default())).id();
    commands.insert_resource(PlayerBody(e));
}

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
    cooldown: f32,
    grenade_cooldown: f32,
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

/// Per-AI bookkeeping for labels and the summary.
#[derive(Component, Debug, Clone)]
pub struct Tracked {
    /// The running leaf (NONE: none yet).
    pub leaf: u32,
    /// Its behavior label (index into [`Behaviors::labels`]).
    pub label: u16,
    /// Its top-level behavior (index into [`Behaviors::labels`]).
    pub top: u16,
    rank: [u16; 4],
    stimulus: bool,
    /// The agent's tick count when its stimulus was (last) inserted.
    stimulus_at: u64,
    /// The last tick it ended with the stimulus in its tree.
    stimulus_seen: u64,
}

impl Default for Tracked {
    fn default() -> Self {
        Tracked {
            leaf: NONE,
            label: 0,
            top: 0,
            rank: [u16::MAX; 4],
            stimulus: false,
            stimulus_at: 0,
            stimulus_seen: 0,
        }
    }
}

/// Behavior labels of the tree's leaves, computed once per program: a
/// behavior is a child of a prioritized list (Halo's competitions), so a
/// leaf's label is the chain of those above it (`engage/fight`) and its
/// rank is their positions (lower ranks are higher priorities).
#[derive(Resource, Debug, Default)]
pub struct Behaviors {
    program: Option<Arc<Program>>,
    /// Distinct labels; 0 is "-" (nothing running).
    pub labels: Vec<String>,
    leaf_label: Vec<u16>,
    leaf_top: Vec<u16>,
    /// Per label: one of its parts is a behavior passengers never enter.
    flight: Vec<bool>,
    leaf_rank: Vec<[u16; 4]>,
    keys: Keys,
}

/// Blackboard slots and tag bits, looked up once.
#[derive(Debug, Default, Clone, Copy)]
struct Keys {
    grenade_near: u16,
    health_low: u16,
    scared: u16,
    leader_dead: u16,
    has_target: u16,
    target_visible: u16,
    target_in_range: u16,
    cover_available: u16,
    under_fire: u16,
    has_last_known: u16,
    player_in_vehicle: u16,
    vehicle_near: u16,
    ammo: u16,
    target: u16,
    last_known: u16,
    cover: u16,
    infantry: u64,
    driver: u64,
    passenger: u64,
    unaware: u64,
    alert: u64,
}

impl Behaviors {
    fn intern(&mut self, label: &str) -> u16 {
        match self.labels.iter().position(|l| l == label) {
            Some(i) => i as u16,
            None => {
                self.labels.push(label.to_owned());
                (self.labels.len() - 1) as u16
            }
        }
    }

    /// Prepares labels for `program` (once per program).
    fn prepare(&mut self, program: &Arc<Program>) -> Result<(), String> {
        if self
            .program
            .as_ref()
            .is_some_and(|p| Arc::ptr_eq(p, program))
        {
            return Ok(());
        }
        self.labels = vec!["-".to_owned()];
        let n = program.len();
        self.leaf_label = vec![0; n];
        self.leaf_top = vec![0; n];
        self.leaf_rank = vec![[u16::MAX; 4]; n];
        for leaf in program.all_nodes().filter(|n| n.is_leaf()) {
            let i = leaf.index();
            let mut chain: Vec<(String, u16)> = Vec::new();
            let mut j = leaf;
            loop {
                let Some(parent) = j.parent() else {
                    if j.is_detached() {
                        // A detached behavior (a stimulus): its rank comes
                        // from where it is inserted, at run time.
                        chain.push((j.name().trim_start_matches('~').to_owned(), 0));
                    }
                    break;
                };
                if parent.is_prioritized_list() {
                    let k = parent
                        .children()
                        .position(|c| c.index() == j.index())
                        .unwrap_or(0);
                    // An impulse is labelled with the behavior it runs.
                    let name = match j.impulse() {
                        Some(_) => j.children().next().map_or(j.name(), |c| c.name()),
                        None => j.name(),
                    };
                    chain.push((name.to_owned(), 2 * k as u16 + 1));
                }
                j = parent;
            }
            chain.reverse();
            if chain.is_empty() {
                continue;
            }
            let label: Vec<&str> = chain.iter().map(|(n, _)| n.as_str()).collect();
            let label = label.join("/");
            self.leaf_label[i as usize] = self.intern(&label);
            let top = chain[0].0.clone();
            self.leaf_top[i as usize] = self.intern(&top);
            for (d, (_, r)) in chain.iter().take(4).enumerate() {
                self.leaf_rank[i as usize][d] = *r;
            }
        }
        let key = |name: &str| {
            program
                .bb_key(name)
                .ok_or_else(|| format!("{TREE} declares no blackboard key {name:?}"))
        };
        let tag = |name: &str| {
            program
                .tag_bit(name)
                .ok_or_else(|| format!("{TREE} declares no tag {name:?}"))
        };
        self.keys = Keys {
            grenade_near: key("grenade_near")?,
            health_low: key("health_low")?,
            scared: key("scared")?,
            leader_dead: key("leader_dead")?,
            has_target: key("has_target")?,
            target_visible: key("target_visible")?,
            target_in_range: key("target_in_range")?,
            cover_available: key("cover_available")?,
            under_fire: key("under_fire")?,
            has_last_known: key("has_last_known")?,
            player_in_vehicle: key("player_in_vehicle")?,
            vehicle_near: key("vehicle_near")?,
            ammo: key("ammo")?,
            target: key("target")?,
            last_known: key("last_known")?,
            cover: key("cover")?,
            infantry: tag("infantry")?,
            driver: tag("driver")?,
            passenger: tag("passenger")?,
            unaware: tag("unaware")?,
            alert: tag("alert")?,
        };
        self.flight = self
            .labels
            .iter()
            .map(|l| l.split('/').any(|part| PASSENGER_NEVER.contains(&part)))
            .collect();
        self.program = Some(program.clone());
        Ok(())
    }

    /// The label of a label index.
    pub fn label(&self, i: u16) -> &str {
        self.labels.get(i as usize).map_or("-", String::as_str)
    }
}

/// What the run did (the headless summary).
#[derive(Resource, Debug, Default)]
pub struct Summary {
    /// Top-level behaviors entered, by label index.
    pub entered: HashMap<u16, u64>,
    /// Running actions stopped by the tree.
    pub interruptions: u64,
    /// ... of which by a higher-priority behavior taking over.
    pub higher_priority_interruptions: u64,
    /// (from label, to label) → count, for higher-priority interruptions.
    pub interruption_pairs: HashMap<(u16, u16), u64>,
    /// "Leader died → flee" stimuli inserted.
    pub stimuli_fired: u64,
    /// ... that ran out.
    pub stimuli_expired: u64,
    /// ... whose AI died first.
    pub stimuli_cut_short: u64,
    /// ... inserted again while running (the running one starts over).
    pub stimuli_refreshed: u64,
    /// Fewest and most ticks an expired stimulus competed in.
    pub stimulus_ticks: Option<(u64, u64)>,
    /// Impulses fired by AIs that died, per impulse.
    pub impulses_of_dead: Vec<u64>,
    /// AIs killed.
    pub killed: u64,
    /// Leaders killed.
    pub leaders_killed: u64,
    /// Ticks an AI spent as a passenger.
    pub passenger_ticks: u64,
    /// ... with its leader dead.
    pub passenger_ticks_leader_dead: u64,
    /// ... with a live "leader died" stimulus.
    pub passenger_ticks_stimulus: u64,
    /// Times a passenger entered a flight behavior (must stay 0).
    pub passenger_flight: u64,
    /// Vehicles entered by AIs.
    pub vehicles_entered: u64,
    /// Sum of the tree's decide time (ns) and agent ticks, for ns per
    /// agent-tick.
    pub decide_ns: u64,
    /// Agent ticks.
    pub agent_ticks: u64,
}

/// Adds the game to an app that has the engine's plugins.
pub fn add_game(app: &mut App, agents: usize, seed: u64) {
    // Halo's AI ticks at 30 Hz (the app's fixed timestep).
    app.insert_resource(Time::<Fixed>::from_hz(30.0))
        .add_plugins(BtPlugin::default());
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
            (spawn_requested, player, grenades, deaths, sense)
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
        .add_systems(FixedLast, count_ticks.run_if(resource_exists::<Playing>));
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

fn load_tree(mut commands: Commands, server: Res<AssetServer>) {
    commands.insert_resource(TreeHandle(server.load(TREE)));
}

/// AIs to spawn on the next tick (rounded up to whole squads).
#[derive(Resource, Debug, Default)]
pub struct SpawnRequest(pub usize);

/// AIs killed this tick, handled once per stage.
#[derive(Resource, Debug, Default)]
pub struct Deaths(pub Vec<Entity>);

fn spawn_requested(
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

fn spawn_squad(
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
fn segment_distance(p: Vec2, a: Vec2, b: Vec2) -> f32 {
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

#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
fn player(
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

fn grenades(
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

/// Removes the dead; a leader's death tells its squad (the stimulus).
fn deaths(
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

fn respawn(
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

#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
fn sense(
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

/// Labels, behaviors entered, interruptions, stimuli expiring.
fn track(
    behaviors: Res<Behaviors>,
    mut summary: ResMut<Summary>,
    mut ais: Query<(&BtAgent, &BtActions, &Blackboard, &mut Tracked)>,
) {
    let Some(labelled) = &behaviors.program else {
        return;
    };
    let k = behaviors.keys;
    let leader_dead_key = k.leader_dead;
    for (agent, actions, bb, mut tracked) in &mut ais {
        // Labels are for the program they were made from.
        let Some(program) = agent.program().filter(|p| Arc::ptr_eq(p, labelled)) else {
            continue;
        };
        let passenger = bb.tags() & k.passenger != 0;
        if passenger {
            summary.passenger_ticks += 1;
            if bb.get_index(leader_dead_key) == Some(Value::Bool(true)) {
                summary.passenger_ticks_leader_dead += 1;
            }
            if !agent.state().stimuli().is_empty() {
                summary.passenger_ticks_stimulus += 1;
            }
        }
        if !agent.state().stimuli().is_empty() {
            tracked.stimulus_seen = agent.state().ticks();
        } else if tracked.stimulus {
            tracked.stimulus = false;
            summary.stimuli_expired += 1;
            // The ticks it competed in.
            let lived = tracked.stimulus_seen - tracked.stimulus_at;
            let (lo, hi) = summary.stimulus_ticks.unwrap_or((lived, lived));
            summary.stimulus_ticks = Some((lo.min(lived), hi.max(lived)));
        }
        let leaf = agent.state().active_leaves(program).next().unwrap_or(NONE);
        if leaf == tracked.leaf {
            continue;
        }
        let (label, top, mut rank) = if leaf == NONE {
            (0, 0, [u16::MAX; 4])
        } else {
            let l = leaf as usize;
            (
                behaviors.leaf_label[l],
                behaviors.leaf_top[l],
                behaviors.leaf_rank[l],
            )
        };
        if leaf != NONE && leaf as usize >= program.main_len() {
            // A stimulus ranks just above the child at its priority.
            if let Some(s) = agent.state().stimulus_of(program, leaf) {
                // (Stimuli are inserted at the root here: rank among its
                // children.)
                rank = [s.priority().saturating_mul(2), u16::MAX, u16::MAX, u16::MAX];
            }
        }
        // A passenger entering anything with flight in it, at any depth.
        if passenger
            && behaviors
                .flight
                .get(label as usize)
                .copied()
                .unwrap_or(false)
        {
            summary.passenger_flight += 1;
        }
        let interrupted = actions.iter().any(|a| a.state == ActionState::Aborted);
        if interrupted && tracked.leaf != NONE {
            summary.interruptions += 1;
            if rank < tracked.rank {
                summary.higher_priority_interruptions += 1;
                *summary
                    .interruption_pairs
                    .entry((tracked.label, label))
                    .or_default() += 1;
            }
        }
        if top != tracked.top && top != 0 {
            *summary.entered.entry(top).or_default() += 1;
        }
        *tracked = Tracked {
            leaf,
            label,
            top,
            rank,
            ..*tracked
        };
    }
}

/// How long an action runs: its `ticks` parameter at 30 Hz.
fn step_towards(pos: &mut Vec2, to: Vec2, speed: f32, dt: f32) -> bool {
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
fn timing(agent: &BtAgent, slot: &ActiveAction, ticks: i64) -> (u32, bool) {
    let elapsed = agent.state().now_ms().wrapping_sub(slot.started_ms);
    (elapsed, elapsed >= ticks.clamp(0, 1_000_000) as u32 * 33)
}

/// The running slots of one action type with its parameters, read by
/// position; a slot whose parameters cannot be read (a key still unset)
/// fails.
fn each<A: BtAction>(
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
fn shoot_actions(
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
fn move_actions(
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
fn vehicle_actions(
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
fn timed_actions(mut ais: Query<(&mut Ai, &BtAgent, &Blackboard, &mut BtActions)>) {
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
fn ride_along(mut vehicles: ResMut<Vehicles>, mut ais: Query<&mut Ai>) {
    for mut ai in &mut ais {
        match ai.seat {
            Seat::Driver(v) => vehicles.0[v].pos = ai.pos.clamp(-ARENA, ARENA),
            Seat::Passenger(v) => ai.pos = vehicles.0[v].pos,
            Seat::Infantry => {}
        }
    }
}

fn count_ticks(stats: Res<BtStats>, mut summary: ResMut<Summary>, mut clock: ResMut<Clock>) {
    clock.ticks += 1;
    summary.decide_ns += stats.decide_ns;
    summary.agent_ticks += u64::from(stats.ticked);
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

/// Counts as the summary prints them.
pub fn summary_json(world: &World) -> serde_json::Value {
    let s = world.resource::<Summary>();
    let b = world.resource::<Behaviors>();
    let entered: BTreeMap<&str, u64> = s.entered.iter().map(|(k, v)| (b.label(*k), *v)).collect();
    let mut pairs: Vec<(String, u64)> = s
        .interruption_pairs
        .iter()
        .map(|((from, to), n)| (format!("{} -> {}", b.label(*from), b.label(*to)), *n))
        .collect();
    pairs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let pairs: serde_json::Map<String, serde_json::Value> =
        pairs.into_iter().map(|(k, v)| (k, v.into())).collect();
    let alive = world
        .try_query::<&Ai>()
        .map_or(0, |mut q| q.iter(world).count());
    let mut impulses = BTreeMap::new();
    if let Some(p) = &b.program {
        let mut q = world.try_query::<&BtAgent>();
        for imp in p.impulses() {
            let i = imp.index();
            let alive: u64 = q.as_mut().map_or(0, |q| {
                q.iter(world)
                    .map(|a| u64::from(a.state().impulse_counts().get(i).copied().unwrap_or(0)))
                    .sum()
            });
            let n = alive + s.impulses_of_dead.get(i).copied().unwrap_or(0);
            impulses.insert(imp.node().name().to_owned(), n);
        }
    }
    serde_json::json!({
        "ticks": world.resource::<Clock>().ticks,
        "agents_alive": alive,
        "killed": s.killed,
        "leaders_killed": s.leaders_killed,
        "player_deaths": world.resource::<Player>().deaths,
        "entered": entered,
        "interruptions": s.interruptions,
        "higher_priority_interruptions": s.higher_priority_interruptions,
        "interruption_pairs": pairs,
        "stimuli_fired": s.stimuli_fired,
        "stimuli_expired": s.stimuli_expired,
        "stimuli_cut_short": s.stimuli_cut_short,
        "stimuli_refreshed": s.stimuli_refreshed,
        "stimuli_running": world
            .try_query::<(&Tracked, &Ai)>()
            .map_or(0, |mut q| q.iter(world).filter(|(t, _)| t.stimulus).count()),
        "stimulus_ticks": s.stimulus_ticks.map(|(lo, hi)| [lo, hi]),
        "impulses_fired": impulses,
        "vehicles_entered": s.vehicles_entered,
        "passenger_ticks": s.passenger_ticks,
        "passenger_ticks_leader_dead": s.passenger_ticks_leader_dead,
        "passenger_ticks_stimulus": s.passenger_ticks_stimulus,
        "passenger_flight": s.passenger_flight,
        "ns_per_agent_tick": s.decide_ns.checked_div(s.agent_ticks).unwrap_or(0),
    })
}

/// Updates until the tree is loaded (or gives up), then starts play: the
/// battle starts on the next tick however long loading took, so a seed
/// always gives the same battle.
pub fn settle(app: &mut App) -> Result<(), String> {
    let done = wyrd_test_support::try_run_until(app, wyrd_test_support::LOAD_UPDATES, |w| {
        let handle = &w.resource::<TreeHandle>().0;
        let server = w.resource::<AssetServer>();
        server.is_loaded_with_dependencies(handle)
            || matches!(
                server.get_load_state(handle),
                Some(bevy::asset::LoadState::Failed(_))
            )
    });
    let world = app.world();
    let handle = &world.resource::<TreeHandle>().0;
    if let Some(bevy::asset::LoadState::Failed(e)) =
        world.resource::<AssetServer>().get_load_state(handle)
    {
        return Err(e.to_string());
    }
    done.map_err(|e| format!("{TREE} did not load: {e}"))?;
    app.insert_resource(Playing);
    Ok(())
}
