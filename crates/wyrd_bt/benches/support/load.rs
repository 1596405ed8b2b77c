//! The reference load of `BENCH_REFERENCE.md`, shared by the criterion
//! benches and the `bench_tick` example.
#![allow(dead_code)]

use bevy::prelude::*;
use wyrd_bt::prelude::*;
use wyrd_bt::{Program, Value};

/// Input names and the probability each is true.
pub const INPUTS: [(&str, f64); 10] = [
    ("grenade_near", 0.10),
    ("health_low", 0.15),
    ("leader_dead", 0.10),
    ("has_target", 0.70),
    ("in_vehicle", 0.15),
    ("target_visible", 0.60),
    ("cover_available", 0.50),
    ("target_in_range", 0.50),
    ("under_fire", 0.40),
    ("has_last_known", 0.50),
];

/// A number given on the command line as `NAME N` (the examples that
/// measure this load: `--agents 10000`), else `default`.
pub fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} wants a number, not {v}"))
        })
}

/// The reference tree's text.
pub const REFERENCE_TREE: &str = include_str!("../../../../assets/bench/reference.bt.ron");

/// The load's random numbers: Wyrd's one seeded generator.
#[derive(Clone)]
pub struct Rng(pub wyrd_bt::SplitMix64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0.next()
    }
    /// A number in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0.unit_f64()
    }
}

/// The compiled reference tree.
pub fn reference_program() -> Program {
    wyrd_bt::compile_str(
        "reference.bt.ron",
        REFERENCE_TREE,
        &wyrd_bt::Vocabulary::permissive(),
    )
    .expect("the reference tree compiles")
}

/// The reference tree with typed parameters (issue 14): every action also
/// reads a `Vec3` goal and an `Entity` target from the blackboard through
/// `"{key}"` references.
pub fn typed_reference_program() -> Program {
    let text = REFERENCE_TREE
        .replacen(
            "blackboard: {",
            "blackboard: {\n        \"goal\": Vec3(1.0, 2.0, 3.0), \"target\": Entity,",
            1,
        )
        .replace(
            "params: {\"ticks\":",
            "params: {\"goal\": \"{goal}\", \"target\": \"{target}\", \"ticks\":",
        );
    wyrd_bt::compile_str(
        "reference_typed.bt.ron",
        &text,
        &wyrd_bt::Vocabulary::permissive(),
    )
    .expect("the typed reference tree compiles")
}

/// [`finish_actions`] for the typed tree: each running action also reads
/// its `goal` (`Vec3`) and `target` (`Entity`) parameters, by position
/// (the file's sorted order: goal, target, ticks), as a game's action
/// system would. Returns actions completed and a checksum of what was read.
pub fn finish_typed_actions(
    program: &Program,
    bb: &Blackboard,
    actions: &mut BtActions,
    durations: &[u32],
    now_ms: u32,
    dt_ms: u32,
) -> (u32, f32) {
    let mut done = 0;
    let mut sum = 0.0;
    for a in actions.iter_mut() {
        if !a.is_running() {
            continue;
        }
        if let Some(info) = program.action_of(a.node) {
            let goal: bevy::math::Vec3 = info.read_at(0, bb).unwrap_or_default();
            let target: Option<bevy::prelude::Entity> = info.read_at(1, bb).ok();
            sum += goal.x + target.map_or(0.0, |e| e.index_u32() as f32);
        }
        if (now_ms - a.started_ms) / dt_ms + 1 >= durations[a.node as usize] {
            a.succeed();
            done += 1;
        }
    }
    (done, sum)
}

/// Blackboard key index of each input, in `INPUTS` order.
pub fn input_keys(p: &Program) -> [u16; 10] {
    let mut keys = [0u16; 10];
    for (k, (name, _)) in keys.iter_mut().zip(INPUTS) {
        *k = p.bb_key(name).expect("reference input");
    }
    keys
}

/// Ticks each action runs, by node index (0 for non-actions).
pub fn durations(p: &Program) -> Vec<u32> {
    (0..p.len() as u32)
        .map(|i| {
            p.action_of(i)
                .and_then(|a| a.param("ticks"))
                .map_or(0, |v| v.as_f64() as u32)
        })
        .collect()
}

/// A blackboard with inputs drawn at random.
pub fn random_blackboard(p: &Program, keys: &[u16; 10], rng: &mut Rng) -> Blackboard {
    let mut bb = Blackboard::new();
    bb.bind(p);
    for (k, (_, prob)) in keys.iter().zip(INPUTS) {
        bb.set_index(*k, Value::Bool(rng.unit() < prob));
    }
    bb
}

/// One tick's input events: N/10 draws, each re-drawing one input of one
/// agent with its probability. Calls `set(agent, key, value)`.
pub fn draw_events(n: usize, keys: &[u16; 10], rng: &mut Rng, set: impl FnMut(usize, u16, bool)) {
    draw_events_over(n, n / 10, keys, rng, set);
}

/// [`draw_events`] with `draws` events over `n` agents (a crowd of tiers
/// draws a tenth of the step's agent ticks, not of its agents).
pub fn draw_events_over(
    n: usize,
    draws: usize,
    keys: &[u16; 10],
    rng: &mut Rng,
    mut set: impl FnMut(usize, u16, bool),
) {
    for _ in 0..draws {
        let agent = (rng.next() % n as u64) as usize;
        let input = (rng.next() % 10) as usize;
        let value = rng.unit() < INPUTS[input].1;
        set(agent, keys[input], value);
    }
}

/// The game's action system for the bench: an action runs for its `ticks`
/// (agent ticks of `dt_ms`), then succeeds. Returns actions completed.
pub fn finish_actions(actions: &mut BtActions, durations: &[u32], now_ms: u32, dt_ms: u32) -> u32 {
    let mut done = 0;
    for a in actions.iter_mut() {
        if a.is_running() && (now_ms - a.started_ms) / dt_ms + 1 >= durations[a.node as usize] {
            a.succeed();
            done += 1;
        }
    }
    done
}

/// Tick length of the load, in ms.
pub const PLUGIN_DT_MS: u32 = 33;

/// The plugin path's load: which entities, input keys, action durations.
#[derive(Resource)]
pub struct Load {
    agents: usize,
    /// Input events drawn per tick.
    draws: usize,
    /// The agents, by index, when events are written agent by agent (a
    /// crowd of tiers: a pass over a million blackboards for a few
    /// thousand events would be most of the step).
    by_index: Option<Vec<Entity>>,
    keys: [u16; 10],
    durations: Vec<u32>,
    rng: Rng,
    /// This tick's input events, in the order drawn: agent, key, value,
    /// the next event of the same agent (`u32::MAX`: none).
    events: Vec<(u32, u16, bool, u32)>,
    /// Per agent: its first event in `events` (`u32::MAX`: none). Small
    /// enough to stay in cache: the draws are random writes.
    first: Vec<u32>,
    /// Time in the last `sense`, in nanoseconds.
    pub sense_ns: u64,
}

/// The bench's index of an agent (its place in the load's arrays).
#[derive(Component, Clone, Copy)]
pub struct AgentIndex(pub u32);

/// Writes the tick's input events into the agents' blackboards: drawn in
/// order (the same draws as the runtime bench), then written by every
/// agent's own pass over its events, in parallel (random writes into the
/// blackboards from one thread were most of the update's serial part).
pub fn sense(mut load: ResMut<Load>, mut bbs: Query<(&AgentIndex, &mut Blackboard)>) {
    let started = std::time::Instant::now();
    let load = &mut *load;
    // Last tick's events are forgotten.
    for &(a, ..) in &load.events {
        load.first[a as usize] = u32::MAX;
    }
    load.events.clear();
    let (first, events) = (&mut load.first, &mut load.events);
    draw_events_over(
        load.agents,
        load.draws,
        &load.keys,
        &mut load.rng,
        |a, k, v| {
            let at = events.len() as u32;
            events.push((a as u32, k, v, u32::MAX));
            if first[a] == u32::MAX {
                first[a] = at;
            } else {
                // A second event for the agent in one tick (rare): after
                // its others, in order.
                let mut e = first[a] as usize;
                while events[e].3 != u32::MAX {
                    e = events[e].3 as usize;
                }
                events[e].3 = at;
            }
        },
    );
    if let Some(agents) = &load.by_index {
        for &(a, k, v, _) in &load.events {
            if let Ok((_, mut bb)) = bbs.get_mut(agents[a as usize]) {
                bb.set_index(k, Value::Bool(v));
            }
        }
        load.sense_ns = started.elapsed().as_nanos() as u64;
        return;
    }
    let (first, events) = (&load.first, &load.events);
    let apply = |(index, mut bb): (&AgentIndex, Mut<Blackboard>)| {
        let mut e = first[index.0 as usize];
        while e != u32::MAX {
            let (_, k, v, next) = events[e as usize];
            bb.set_index(k, Value::Bool(v));
            e = next;
        }
    };
    if load.agents < BtPlugin::PARALLEL_FROM {
        bbs.iter_mut().for_each(apply);
    } else {
        bbs.par_iter_mut().for_each(apply);
    }
    load.sense_ns = started.elapsed().as_nanos() as u64;
}

wyrd_bt::bt_action! {
    /// The reference tree's actions: each runs its `ticks`.
    pub struct DiveToCover { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct Crouch { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct FleeRun { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct Cower { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct VehicleShoot { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct VehicleDrive { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct MoveToCover { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct PeekShoot { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct Aim { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct Shoot { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct Advance { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct GoToLastKnown { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct LookAround { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct Patrol { /// Ticks it runs.
        pub ticks: i64 }
    /// See [`DiveToCover`].
    pub struct Idle { /// Ticks it runs.
        pub ticks: i64 }
}

/// Calls the macro `$m` with every action type of the reference tree.
macro_rules! every_action {
    ($m:ident) => {
        $m!(
            DiveToCover,
            Crouch,
            FleeRun,
            Cower,
            VehicleShoot,
            VehicleDrive,
            MoveToCover,
            PeekShoot,
            Aim,
            Shoot,
            Advance,
            GoToLastKnown,
            LookAround,
            Patrol,
            Idle
        )
    };
}

/// The reference program as a game compiles it: its action types
/// registered (`add_bt_action::<T>()`), so that their parameters are in the
/// types' order and a typed read takes them by position.
pub fn game_reference_program() -> Program {
    let mut vocabulary = wyrd_bt::Vocabulary::permissive();
    macro_rules! register {
        ($($a:ty),*) => {$( vocabulary.add_action_type::<$a>(); )*};
    }
    every_action!(register);
    wyrd_bt::compile_str("reference.bt.ron", REFERENCE_TREE, &vocabulary)
        .expect("the reference tree compiles")
}

/// How the load's game finishes its actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActBy {
    /// Typed dispatch, as the README shows: one `for_each` per action type
    /// ([`ActionRuns`]), visiting only the agents running it.
    Typed,
    /// One pass over every agent's `BtActions` that finishes every action
    /// alike by the load's table of durations, reading no parameters: the
    /// cheapest game there is, and not one a game with different actions
    /// can write.
    Scan,
    /// [`ActBy::Scan`] while the tick lists every action for the typed
    /// dispatch (`RunningActions::watch_all`), no system reading the lists:
    /// against `Scan`, what listing costs the tick.
    ScanListed,
    /// Dispatch by hand, as games wrote it before the typed dispatch (issue
    /// 24, item 7): per action type, a pass over every agent's `BtActions`
    /// comparing `slot.id == X::ID` and reading `X`'s parameters with
    /// `read_action::<X>` (one system here; a game has one per action).
    Hand,
}

/// Finishes actions that ran their `ticks`, typed: per action, only the
/// agents running it.
pub fn act_typed(mut runs: ActionRuns) {
    macro_rules! finish {
        ($($a:ty),*) => {$(
            runs.for_each::<$a>(|mut a| {
                if i64::from(a.elapsed_ms() / PLUGIN_DT_MS + 1) >= a.params().ticks {
                    a.succeed();
                }
            });
        )*};
    }
    every_action!(finish);
}

/// Finishes actions that ran their `ticks`, by hand: per action type, a
/// pass over every agent ([`ActBy::Hand`]).
pub fn act_by_hand(mut agents: Query<(&BtAgent, &mut BtActions)>, no_keys: Local<Blackboard>) {
    macro_rules! finish {
        ($($a:ty),*) => {$(
            for (agent, mut actions) in &mut agents {
                let now = agent.state().now_ms();
                for slot in actions.iter_mut() {
                    if slot.id != <$a>::ID || !slot.is_running() {
                        continue;
                    }
                    if let Ok(params) = agent.read_action::<$a>(slot, &no_keys)
                        && i64::from(now.saturating_sub(slot.started_ms) / PLUGIN_DT_MS + 1)
                            >= params.ticks
                    {
                        slot.succeed();
                    }
                }
            }
        )*};
    }
    every_action!(finish);
}

/// Finishes actions that ran their duration (the game's action system;
/// in parallel for crowds, as the plugin's tick).
pub fn act(load: Res<Load>, mut agents: Query<(&BtAgent, &mut BtActions)>) {
    let finish = |(agent, mut actions): (&BtAgent, Mut<BtActions>)| {
        if actions.iter().any(|a| a.is_running()) {
            finish_actions(
                &mut actions,
                &load.durations,
                agent.state().now_ms(),
                PLUGIN_DT_MS,
            );
        }
    };
    if load.agents < BtPlugin::PARALLEL_FROM {
        agents.iter_mut().for_each(finish);
    } else {
        agents.par_iter_mut().for_each(finish);
    }
}

/// The headless app of [`plugin_app`] without Wyrd: Bevy's own fixed cost
/// per update (`threads` compute threads).
pub fn bare_app(threads: usize) -> App {
    let mut app = App::new();
    let mut options = TaskPoolOptions::default();
    options.compute.min_threads = threads;
    options.compute.max_threads = threads;
    app.add_plugins((
        MinimalPlugins.set(TaskPoolPlugin {
            task_pool_options: options,
        }),
        AssetPlugin::default(),
    ))
    .insert_resource(bevy::time::Time::<bevy::time::Fixed>::from_hz(30.0))
    .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
        std::time::Duration::from_secs_f64(1.0 / 30.0),
    ));
    app
}

/// A headless app with `n` agents on the reference tree, warmed up.
/// `threads`: threads of the compute pool, which runs the tree tick's
/// `par_iter` (`None`: Bevy's default, which on a 2-core machine is one
/// thread: a quarter of the cores each go to IO and async, at least one).
pub fn plugin_app(n: usize, threads: Option<usize>) -> App {
    plugin_app_acting(n, threads, ActBy::Typed)
}

/// [`plugin_app`] with its actions finished `by` typed dispatch or a scan.
pub fn plugin_app_acting(n: usize, threads: Option<usize>, by: ActBy) -> App {
    plugin_app_tiered(n, threads, by, Crowd::Untiered)
}

/// Which tick tiers the plugin load's agents are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crowd {
    /// No tier: every agent ticks every step.
    Untiered,
    /// [`CROWD_TIERS`].
    Mix,
    /// Every agent `BtTier::every(n)`.
    AllEvery(u16),
}

/// The share of agents in each tick tier of the crowd load (issue 29):
/// 1 % every step, 9 % every 4th, 90 % every 16th.
pub const CROWD_TIERS: [(u16, f64); 3] = [(1, 0.01), (4, 0.09), (16, 0.90)];

/// The tier of agent `i` of `n` in the crowd load.
pub fn crowd_tier(i: usize, n: usize) -> BtTier {
    let mut upto = 0.0;
    for (every, share) in CROWD_TIERS {
        upto += share;
        if (i as f64) < upto * n as f64 {
            return BtTier::every(every);
        }
    }
    BtTier::every(16)
}

/// Agent ticks per step of the crowd load, per agent.
pub fn crowd_ticks_per_agent() -> f64 {
    CROWD_TIERS.iter().map(|(e, s)| s / f64::from(*e)).sum()
}

/// [`plugin_app_acting`], the agents in the tiers of `crowd` (and a tenth
/// of the step's agent ticks drawn as input events).
pub fn plugin_app_tiered(n: usize, threads: Option<usize>, by: ActBy, crowd: Crowd) -> App {
    let mut app = App::new();
    let minimal = match threads {
        Some(t) => {
            let mut options = TaskPoolOptions::default();
            options.compute.min_threads = t;
            options.compute.max_threads = t;
            MinimalPlugins.set(TaskPoolPlugin {
                task_pool_options: options,
            })
        }
        None => MinimalPlugins.build(),
    };
    app.add_plugins((minimal, AssetPlugin::default(), BtPlugin::default()))
        .insert_resource(bevy::time::Time::<bevy::time::Fixed>::from_hz(30.0))
        .insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
            std::time::Duration::from_secs_f64(1.0 / 30.0),
        ))
        .add_systems(FixedUpdate, sense.in_set(BtSystems::Sense));
    match by {
        ActBy::Typed => app.add_systems(FixedUpdate, act_typed.in_set(BtSystems::Act)),
        ActBy::Scan | ActBy::ScanListed => app.add_systems(FixedUpdate, act.in_set(BtSystems::Act)),
        ActBy::Hand => app.add_systems(FixedUpdate, act_by_hand.in_set(BtSystems::Act)),
    };
    if by == ActBy::ScanListed {
        app.world_mut()
            .resource_mut::<wyrd_bt::RunningActions>()
            .watch_all();
    }
    let program = game_reference_program();
    let keys = input_keys(&program);
    let durations = durations(&program);
    let mut rng = Rng(wyrd_bt::SplitMix64::new(42));
    let bbs: Vec<Blackboard> = (0..n)
        .map(|_| random_blackboard(&program, &keys, &mut rng))
        .collect();
    let handle = app
        .world_mut()
        .resource_mut::<Assets<BtAsset>>()
        .add(BtAsset {
            program: std::sync::Arc::new(program),
        });
    let mut spawned = Vec::with_capacity(n);
    for (i, bb) in bbs.into_iter().enumerate() {
        let mut agent = app.world_mut().spawn((
            BehaviorTree::new(handle.clone()).with_seed(i as u64),
            bb,
            AgentIndex(i as u32),
        ));
        match crowd {
            Crowd::Untiered => {}
            Crowd::Mix => {
                agent.insert(crowd_tier(i, n));
            }
            Crowd::AllEvery(every) => {
                agent.insert(BtTier::every(every));
            }
        }
        spawned.push(agent.id());
    }
    let tiers = crowd != Crowd::Untiered;
    let draws = match crowd {
        Crowd::Mix => (n as f64 * crowd_ticks_per_agent()).round() as usize / 10,
        Crowd::AllEvery(every) => n / 10 / usize::from(every.max(1)),
        Crowd::Untiered => n / 10,
    };
    app.insert_resource(Load {
        agents: n,
        draws,
        by_index: tiers.then_some(spawned),
        events: Vec::with_capacity(draws),
        first: vec![u32::MAX; n],
        sense_ns: 0,
        keys,
        durations,
        rng,
    });
    for _ in 0..30 {
        app.update();
    }
    app
}

/// Runs every schedule of the app with Bevy's single-threaded executor
/// (all systems on the main thread, one after another): a game on one
/// core, without the multi-threaded executor's hand-offs between the main
/// thread and the compute thread (a fifth of a one-thread update's time in
/// `perf`: waking and parking threads). The trees' `par_iter` then also
/// runs on the main thread.
pub fn single_threaded(app: &mut App) {
    let mut schedules = app.world_mut().resource_mut::<Schedules>();
    for (_, schedule) in schedules.iter_mut() {
        schedule.set_executor(bevy::ecs::schedule::SingleThreadedExecutor::new());
    }
}
