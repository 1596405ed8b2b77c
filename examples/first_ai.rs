//! Your first AI with Wyrd: a guard that patrols, chases an intruder it
//! sees and locks the place down after three catches, with typed actions, a
//! subtree with parameters, a stimulus (a noise), a world-state counter and
//! a save that keeps the guard's running tree across runs.
//!
//! ```text
//! cargo run --example first_ai                         # 300 ticks, headless
//! cargo run --example first_ai -- --ticks 90 --save-dir /tmp/guard   # run it twice: it continues
//! cargo run --example first_ai -- --record guard.json --save-dir /tmp/rec  # a fresh save: then
//!     wyrd sim assets/first_ai/guard.bt.ron --replay guard.json [--emit-script]
//! cargo run --example first_ai -- --vocabulary assets/first_ai/first_ai.vocabulary.json
//! ```
//!
//! It prints what the guard does on stdout (saves go to stderr, by default
//! to the temp folder's `wyrd-first-ai`); the tree and the counter are in
//! `assets/first_ai/`.

use std::{path::PathBuf, time::Duration};

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use wyrd::prelude::*;
use wyrd::state::agents::{AgentsSavePlugin, PersistAgent, PersistId};

bt_action! {
    /// Walk to a point (the patrol subtree binds both).
    pub struct Walk {
        /// Where.
        pub goal: Vec2,
        /// Units per second.
        pub speed: f32 = 2.0,
    }
    /// Run after someone until caught.
    pub struct Chase {
        /// Whom (`"{intruder}"`).
        pub target: Entity,
        /// Units per second.
        pub speed: f32 = 3.0,
    }
    /// Stop and listen (the noise's behavior).
    pub struct Listen {}
    /// Close the gates.
    pub struct Lockdown {}
}

/// Where something is; and the guard (there is one).
#[derive(Component, Clone, Copy)]
struct Pos(Vec2);
#[derive(Component)]
struct Guard;

/// Run settings.
#[derive(Resource)]
struct Run {
    ticks: u64,
    record: Option<PathBuf>,
    last: Vec<String>,
    done: u64, // the guard's ticks in this run
}

const HZ: f64 = 30.0;
const POSTS: [Vec2; 2] = [Vec2::new(0.0, 0.0), Vec2::new(4.0, 0.0)];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let ticks = arg("--ticks").and_then(|t| t.parse().ok()).unwrap_or(300);
    let save_dir =
        arg("--save-dir").map_or_else(|| std::env::temp_dir().join("wyrd-first-ai"), PathBuf::from);
    let assets = concat!(env!("CARGO_MANIFEST_DIR"), "/assets").to_owned();
    let mut app = App::new();
    // Headless: one fixed tick per update, time stepped exactly.
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets,
            ..Default::default()
        },
    ))
    .insert_resource(Time::<Fixed>::from_hz(HZ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / HZ,
    )))
    .add_plugins(WyrdPlugins.set(WorldStatePlugin::with_files(["first_ai/world.flags.ron"])))
    .add_plugins(WorldStateSavePlugin::new(
        &save_dir,
        SaveKey::from_env_or_dev(),
    ))
    .add_plugins(AgentsSavePlugin)
    .add_bt_action::<Walk>()
    .add_bt_action::<Chase>()
    .add_bt_action::<Listen>()
    .add_bt_action::<Lockdown>()
    .insert_resource(Run {
        ticks,
        record: arg("--record").map(PathBuf::from),
        last: Vec::new(),
        done: 0,
    })
    .add_systems(Startup, spawn)
    .add_systems(
        FixedUpdate,
        (
            sense.in_set(BtSystems::Sense),
            (walk, chase, instant).in_set(BtSystems::Act),
            count.after(BtSystems::Act),
        ),
    )
    .add_systems(PostUpdate, (report, stop).chain());
    if let Some(path) = arg("--vocabulary") {
        return app.write_bt_vocabulary(path).unwrap();
    }
    app.run();
}

fn spawn(mut commands: Commands, server: Res<AssetServer>, run: Res<Run>, status: Res<SaveStatus>) {
    // Where the progress came from (headless apps have no log output).
    eprintln!(
        "save: {} ({})",
        status.load_summary().unwrap_or_default(),
        status.dir.display()
    );
    let intruder = commands
        .spawn((Pos(Vec2::new(8.0, 3.0)), PersistId("intruder".into())))
        .id();
    let mut bb = Blackboard::new().with("post", POSTS[1]);
    bb.set("intruder", intruder).ok();
    // The flight recorder from the agent's first tick (a recording that
    // starts there becomes a sim script: `wyrd sim --emit-script`).
    let mut agent = BtAgent::default();
    if run.record.is_some() {
        agent.record(600);
    }
    commands.spawn((
        Guard,
        Pos(POSTS[0]),
        PersistAgent("guard".into()),
        BehaviorTree::new(server.load("first_ai/guard.bt.ron")),
        bb,
        agent,
    ));
}

/// What the guard sees and hears: the intruder close by alarms it; at its
/// 200th tick it hears a noise (the stimulus, for one second).
fn sense(
    mut guards: Query<(&Pos, &mut Blackboard, &mut BtAgent), With<Guard>>,
    others: Query<&Pos, Without<Guard>>,
) {
    for (pos, mut bb, mut agent) in &mut guards {
        if let Some(Value::Entity(e)) = bb.get("intruder")
            && let Ok(p) = others.get(e)
            && p.0.distance(pos.0) < 5.5
            && bb.get("alarmed") != Some(Value::Bool(true))
        {
            bb.set("alarmed", true).ok();
        }
        if agent.state().ticks() == 200 {
            match agent.insert_stimulus("root", "investigate", 0, 1.0) {
                Ok(()) => println!("tick 200: a noise! (stimulus \"investigate\" for 1 s)"),
                Err(e) => eprintln!("first_ai: {e}"),
            }
        }
    }
}

/// The actions, typed: `Running<A>` visits the agents running `A`, with
/// `A`'s parameters read.
fn walk(mut walks: Running<Walk>, mut pos: Query<&mut Pos>) {
    walks.for_each(|mut walk| {
        let (Walk { goal, speed }, Ok(mut pos)) = (*walk.params(), pos.get_mut(walk.entity()))
        else {
            return walk.fail();
        };
        pos.0 = pos.0.move_towards(goal, speed / HZ as f32);
        if pos.0 == goal {
            let next = if goal == POSTS[0] { POSTS[1] } else { POSTS[0] };
            walk.blackboard().set("post", next).ok();
            walk.succeed();
        }
    });
}

fn chase(mut chases: Running<Chase>, mut pos: Query<&mut Pos>, mut state: ResMut<WorldState>) {
    chases.for_each(|mut chase| {
        let Chase { target, speed } = *chase.params();
        let Ok([mut me, mut them]) = pos.get_many_mut([chase.entity(), target]) else {
            return chase.fail(); // the target is gone
        };
        them.0.x += 1.0 / HZ as f32; // the intruder flees, slowly
        me.0 = me.0.move_towards(them.0, speed / HZ as f32);
        if me.0.distance(them.0) < 0.5 {
            let caught = state.add_counter("ALARMS_RAISED", 1, "guard").unwrap_or(0);
            println!("caught the intruder ({caught} so far)");
            them.0 = Vec2::new(8.0, 3.0);
            chase.blackboard().set("alarmed", false).ok();
            chase.succeed();
        }
    });
}

/// Listening and locking down take one tick.
/// (`ActionRuns`: several actions in one system.)
fn instant(mut runs: ActionRuns) {
    runs.for_each::<Listen>(|mut a| a.succeed());
    runs.for_each::<Lockdown>(|mut a| a.succeed());
}

/// One line each time the guard's running leaf changes.
fn report(guards: Query<&BtAgent, With<Guard>>, mut run: ResMut<Run>) {
    for agent in &guards {
        let now = agent.active_paths();
        if now != run.last && !now.is_empty() {
            println!("tick {}: {}", agent.state().ticks(), now.join(", "));
            run.last = now;
        }
    }
}

/// Counts this run's ticks of the guard (in the fixed step, after Act).
fn count(stats: Res<wyrd::bt::BtStats>, mut run: ResMut<Run>) {
    if stats.ticked > 0 {
        run.done += 1;
    }
}

/// Quits after the run's ticks of the guard (the exit save keeps it
/// mid-action).
fn stop(guards: Query<&BtAgent, With<Guard>>, run: Res<Run>, mut exit: MessageWriter<AppExit>) {
    let Ok(agent) = guards.single() else {
        return;
    };
    if run.done < run.ticks {
        return;
    }
    let (ticks, leaf) = (agent.state().ticks(), agent.active_paths().join(", "));
    println!("end: agent tick {ticks}, running {leaf}");
    if let (Some(path), Some(rec)) = (&run.record, agent.recording()) {
        let json = serde_json::to_string(&rec).unwrap_or_default();
        if let Err(e) = std::fs::write(path, json) {
            eprintln!("{}: {e}", path.display());
        }
    }
    exit.write(AppExit::Success);
}
