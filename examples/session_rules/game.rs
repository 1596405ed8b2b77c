//! The session's game: a car, the places of the map, the passengers and
//! parcels, the sensing that feeds the rule tree's blackboard, the speeding
//! warning action, and the autopilot that plays a scripted drive.

use std::path::PathBuf;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use wyrd::bt::Status;
use wyrd::prelude::*;

/// The rule tree.
pub const TREE: &str = "session_rules/session.bt.ron";

/// The speed limit (units per second). Driving `fast` goes over it.
pub const SPEED_LIMIT: f32 = 140.0;
/// Normal speed.
pub const SPEED: f32 = 110.0;
/// Fast speed.
pub const FAST: f32 = 170.0;
/// How close counts as "at" a place.
pub const RADIUS: f32 = 28.0;
/// Passengers board one per this many seconds while the car stands at A.
pub const BOARDING_SECONDS: f32 = 1.0;

wyrd::bt::bt_action! {
    /// The speed camera's warning to the driver (the rule's action).
    pub struct SpeedingWarning {}
}

/// Half the map's size: the car stays inside.
pub const ARENA: Vec2 = Vec2::new(300.0, 230.0);

/// The places of the map.
pub const PLACES: [(&str, Vec2); 7] = [
    ("start", Vec2::new(-260.0, -200.0)),
    ("A", Vec2::new(-240.0, 180.0)),
    ("P1", Vec2::new(-30.0, -190.0)),
    ("P2", Vec2::new(70.0, 190.0)),
    ("lookout", Vec2::new(200.0, -160.0)),
    ("tunnel", Vec2::new(250.0, 40.0)),
    ("B", Vec2::new(270.0, 200.0)),
];

/// A place by name.
pub fn place(name: &str) -> Option<Vec2> {
    PLACES.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// Where the example finds its assets.
pub struct GameConfig {
    /// The assets folder.
    pub assets: PathBuf,
}

/// The car.
#[derive(Resource, Debug, Clone, Copy)]
pub struct Car {
    /// Position.
    pub pos: Vec2,
    /// Heading (unit vector).
    pub heading: Vec2,
    /// Current speed (units per second).
    pub speed: f32,
}

/// What the driver (keyboard or autopilot) asks for this tick.
#[derive(Resource, Debug, Clone, Copy, Default)]
pub struct DriverInput {
    /// Direction (zero: stand still).
    pub dir: Vec2,
    /// Over the speed limit.
    pub fast: bool,
}

/// The session's progress as the game sees it.
#[derive(Resource, Debug, Default)]
pub struct SessionState {
    /// The entity running the rule tree.
    pub entity: Option<Entity>,
    /// Passengers aboard.
    pub passengers: i64,
    /// Seconds the car has stood at A since the last passenger boarded.
    pub boarding: f32,
    /// Parcels delivered.
    pub parcels: [bool; 2],
    /// The route chosen (`None`: not chosen, the express route).
    pub scenic: Option<bool>,
    /// Speeding warnings issued by the rule tree's camera.
    pub warnings: u32,
    /// Seconds since the session started.
    pub time: f32,
    /// What happened, newest last (for the screen).
    pub log: Vec<String>,
}

/// One step of a scripted drive.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Drive to a place.
    Goto {
        /// The place's name.
        place: String,
        /// Over the speed limit.
        fast: bool,
    },
    /// Stand still.
    Wait(f32),
    /// Choose the route (scenic or express).
    Choose(bool),
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Goto { place, fast: true } => write!(f, "goto {place} fast"),
            Step::Goto { place, .. } => write!(f, "goto {place}"),
            Step::Wait(s) => write!(f, "wait {s}"),
            Step::Choose(true) => write!(f, "choose scenic"),
            Step::Choose(false) => write!(f, "choose express"),
        }
    }
}

/// Parses a drive script; errors name the line.
pub fn parse_drive(text: &str) -> Result<Vec<Step>, String> {
    let mut steps = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let bad = |why: &str| format!("line {}: {why}: {line:?}", n + 1);
        let step = match words.as_slice() {
            ["goto", p] | ["goto", p, "fast"] => {
                if place(p).is_none() {
                    let names: Vec<&str> = PLACES.iter().map(|(n, _)| *n).collect();
                    return Err(bad(&format!(
                        "no place {p:?} (places: {})",
                        names.join(", ")
                    )));
                }
                Step::Goto {
                    place: (*p).to_owned(),
                    fast: words.len() == 3,
                }
            }
            ["wait", s] => match s.parse::<f32>() {
                Ok(s) if s.is_finite() && (0.0..=600.0).contains(&s) => Step::Wait(s),
                _ => return Err(bad("wait needs seconds between 0 and 600")),
            },
            ["choose", "scenic"] => Step::Choose(true),
            ["choose", "express"] => Step::Choose(false),
            _ => {
                return Err(bad(
                    "expected `goto PLACE [fast]`, `wait SECONDS` or `choose scenic|express`",
                ));
            }
        };
        steps.push(step);
    }
    Ok(steps)
}

/// Plays a drive script: steers the car step by step.
#[derive(Resource, Debug, Default)]
pub struct Autopilot {
    /// The steps.
    pub steps: Vec<Step>,
    /// The step being played (`steps.len()`: done).
    pub current: usize,
    elapsed: f32,
}

impl Autopilot {
    /// Plays `steps` from the first.
    pub fn new(steps: Vec<Step>) -> Self {
        Autopilot {
            steps,
            current: 0,
            elapsed: 0.0,
        }
    }

    /// Whether every step was played.
    pub fn done(&self) -> bool {
        self.current >= self.steps.len()
    }
}

/// Adds the game to an app that has the engine's plugins.
pub fn add_game(app: &mut App) {
    // The session's rules tick at 30 Hz (the app's fixed timestep).
    app.insert_resource(Time::<Fixed>::from_hz(30.0))
        .add_plugins(BtPlugin::default())
        .add_bt_action::<SpeedingWarning>()
        .insert_resource(Car {
            pos: PLACES[0].1,
            heading: Vec2::Y,
            speed: 0.0,
        })
        .init_resource::<DriverInput>()
        .init_resource::<SessionState>()
        .add_systems(Startup, spawn_session)
        .add_systems(
            FixedUpdate,
            (autopilot, drive, sense)
                .chain()
                .in_set(BtSystems::Sense)
                .run_if(resource_exists::<Playing>),
        )
        .add_systems(FixedUpdate, warn_speeding.in_set(BtSystems::Act));
}

/// A headless app stepping exactly one 30 Hz tick per update.
pub fn build_headless(config: &GameConfig) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: config.assets.to_string_lossy().into_owned(),
            ..Default::default()
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 30.0,
    )));
    add_game(&mut app);
    app
}

/// Present while the session plays; the headless mode inserts it once the
/// tree is loaded (see [`settle`]), the window at once.
#[derive(Resource, Debug, Default)]
pub struct Playing;

fn spawn_session(
    mut commands: Commands,
    server: Res<AssetServer>,
    mut session: ResMut<SessionState>,
) {
    // Runs once: the session ends when its rules succeed.
    let entity = commands
        .spawn((
            Name::new("session"),
            BehaviorTree::new(server.load(TREE)).once(),
        ))
        .id();
    session.entity = Some(entity);
}

fn autopilot(
    time: Res<Time>,
    car: Res<Car>,
    pilot: Option<ResMut<Autopilot>>,
    mut input: ResMut<DriverInput>,
    mut session: ResMut<SessionState>,
) {
    let Some(mut pilot) = pilot else { return };
    // Done: the keyboard has the car.
    let Some(step) = pilot.steps.get(pilot.current).cloned() else {
        return;
    };
    pilot.elapsed += time.delta_secs();
    let finished = match step {
        Step::Goto { place: name, fast } => {
            let target = place(&name).unwrap_or(car.pos);
            let to = target - car.pos;
            // Close enough, or stuck for a minute: next step.
            if to.length() < RADIUS * 0.5 || pilot.elapsed > 60.0 {
                true
            } else {
                *input = DriverInput {
                    dir: to.normalize_or_zero(),
                    fast,
                };
                false
            }
        }
        Step::Wait(seconds) => {
            *input = DriverInput::default();
            pilot.elapsed + 1e-4 >= seconds
        }
        Step::Choose(scenic) => {
            session.scenic = Some(scenic);
            true
        }
    };
    if finished {
        // The car keeps its speed through the tick it arrives in (a drive
        // passes through places); `wait` stops it.
        pilot.current += 1;
        pilot.elapsed = 0.0;
    }
}

fn drive(time: Res<Time>, input: Res<DriverInput>, mut car: ResMut<Car>) {
    let dt = time.delta_secs();
    let dir = input.dir.normalize_or_zero();
    car.speed = if dir == Vec2::ZERO {
        0.0
    } else if input.fast {
        FAST
    } else {
        SPEED
    };
    if dir != Vec2::ZERO {
        car.heading = dir;
    }
    let next = car.pos + dir * car.speed * dt;
    car.pos = next.clamp(-ARENA, ARENA);
}

fn at(car: &Car, name: &str) -> bool {
    place(name).is_some_and(|p| p.distance(car.pos) <= RADIUS)
}

fn sense(
    time: Res<Time>,
    car: Res<Car>,
    mut session: ResMut<SessionState>,
    mut boards: Query<&mut Blackboard>,
) {
    let dt = time.delta_secs();
    session.time += dt;
    // Passengers board while the car stands at A.
    if at(&car, "A") && car.speed == 0.0 && session.passengers < 3 {
        session.boarding += dt;
        if session.boarding + 1e-4 >= BOARDING_SECONDS {
            session.boarding = 0.0;
            session.passengers += 1;
            let n = session.passengers;
            session.log.push(format!("passenger {n} boarded"));
        }
    } else {
        session.boarding = 0.0;
    }
    for (k, name) in ["P1", "P2"].into_iter().enumerate() {
        if at(&car, name) && !session.parcels[k] {
            session.parcels[k] = true;
            session.log.push(format!("parcel {} delivered", k + 1));
        }
    }
    let Some(entity) = session.entity else { return };
    let Ok(mut bb) = boards.get_mut(entity) else {
        return;
    };
    // Keys the tree declares: a mistake here is a bug in this example.
    let values: [(&str, Value); 9] = [
        ("at_a", at(&car, "A").into()),
        ("passengers", session.passengers.into()),
        ("parcel_1", session.parcels[0].into()),
        ("parcel_2", session.parcels[1].into()),
        ("speeding", (car.speed > SPEED_LIMIT).into()),
        ("chose_scenic", (session.scenic == Some(true)).into()),
        ("at_lookout", at(&car, "lookout").into()),
        ("at_tunnel", at(&car, "tunnel").into()),
        ("at_b", at(&car, "B").into()),
    ];
    for (key, value) in values {
        // Setting an unchanged value keeps the blackboard's generation, so
        // the tree skips its walk when nothing moved.
        if bb.get(key) != Some(value)
            && let Err(e) = bb.set(key, value)
        {
            warn!("session_rules: {e}");
        }
    }
}

fn warn_speeding(mut warnings: Running<SpeedingWarning>, mut session: ResMut<SessionState>) {
    warnings.for_each(|mut warning| {
        warning.succeed();
        session.warnings += 1;
        let n = session.warnings;
        session
            .log
            .push(format!("warning {n}: 1.5 s over the limit"));
    });
}

/// Each node's path with its rule flags (`P` paused, `C` complete, `W` was
/// complete, `D` does complete), in tree order; empty until the tree loaded.
pub fn rule_flags(world: &World) -> Vec<(String, String)> {
    let Some(entity) = world.resource::<SessionState>().entity else {
        return Vec::new();
    };
    world.get::<BtAgent>(entity).map_or(Vec::new(), flags_of)
}

/// An agent's nodes with their rule flags, in tree order.
pub fn flags_of(agent: &BtAgent) -> Vec<(String, String)> {
    let Some(program) = agent.program() else {
        return Vec::new();
    };
    program
        .nodes()
        .map(|n| {
            let flags = agent.state().node(n.index()).flags();
            (n.path().to_owned(), flags.to_string())
        })
        .collect()
}

/// The session's root status (`None` until the tree loaded).
pub fn session_status(world: &World) -> Option<Status> {
    let entity = world.resource::<SessionState>().entity?;
    let agent = world.get::<BtAgent>(entity)?;
    agent.program()?;
    Some(agent.status())
}

/// Updates until the tree is loaded (bounded by a number of frames, never
/// by the wall clock), then starts play: the session's time starts with its
/// first tick, however long loading took.
pub fn settle(app: &mut App) -> Result<(), String> {
    let loaded = wyrd_test_support::try_run_until(app, wyrd_test_support::LOAD_UPDATES, |w| {
        let server = w.resource::<AssetServer>();
        w.resource::<SessionState>()
            .entity
            .and_then(|e| w.get::<BehaviorTree>(e))
            .is_some_and(|t| {
                server.is_loaded_with_dependencies(&t.handle)
                    || matches!(
                        server.get_load_state(&t.handle),
                        Some(bevy::asset::LoadState::Failed(_))
                    )
            })
    });
    if let Some(e) = load_error(app) {
        return Err(e);
    }
    loaded.map_err(|e| format!("{TREE} did not load: {e}"))?;
    app.insert_resource(Playing);
    Ok(())
}

fn load_error(app: &App) -> Option<String> {
    let server = app.world().resource::<AssetServer>();
    let entity = app.world().resource::<SessionState>().entity?;
    let tree = app.world().get::<BehaviorTree>(entity)?;
    match server.get_load_state(&tree.handle) {
        Some(bevy::asset::LoadState::Failed(e)) => Some(e.to_string()),
        _ => None,
    }
}
