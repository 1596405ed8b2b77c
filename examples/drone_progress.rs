//! The Drone quest's world state and signed save, in the console.
//!
//! Plays the seed's "Expected sequence" through the `WorldState` API, one
//! step per frame, as the game's managers would (dialogue, combat, quests),
//! prints every change message, and saves to a signed file. Run it again and
//! it continues from the save; `--steps N` stops after N steps, so progress
//! across launches is easy to see.
//!
//! ```text
//! cargo run --example drone_progress -- --save-dir /tmp/wyrd-demo [--steps N]
//! ```
//!
//! The playable hub/run game comes with the behavior-tree runtime.

use std::path::PathBuf;
use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::prelude::*;
use wyrd::prelude::*;

const FLAGS: &str = "drone_quest/world_state.flags.ron";

#[derive(Resource)]
struct Script {
    steps_left: usize,
    finished: bool,
}

fn main() {
    let mut save_dir = PathBuf::from("wyrd-saves");
    let mut steps = usize::MAX;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--save-dir" => match args.next() {
                Some(dir) => save_dir = dir.into(),
                None => return usage("--save-dir needs a folder"),
            },
            "--steps" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => steps = n,
                None => return usage("--steps needs a number"),
            },
            "-h" | "--help" => return usage(""),
            other => return usage(&format!("unknown argument {other:?}")),
        }
    }

    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::ZERO)),
        AssetPlugin::default(),
    ))
    .insert_resource(Time::<Fixed>::from_hz(30.0))
    .add_plugins(WyrdPlugins.set(WorldStatePlugin::with_files([FLAGS])))
    .add_plugins(
        WorldStateSavePlugin::new(&save_dir, SaveKey::from_env_or_dev()).with_autosave(None),
    )
    .insert_resource(Script {
        steps_left: steps,
        finished: false,
    })
    .add_systems(
        Update,
        (play_one_step, quest_manager)
            .chain()
            .run_if(world_state_ready),
    )
    .add_systems(
        Last,
        (print_changes, print_load).after(WorldStateSystems::Flush),
    )
    .add_systems(Last, exit_when_done.after(SaveSystems::Write));
    let path = save_dir.join("world_state.json");
    app.run();

    match std::fs::read_to_string(&path) {
        Ok(text) => println!("\n--- {} ---\n{text}", path.display()),
        Err(e) => println!("\nno save file at {}: {e}", path.display()),
    }
}

fn usage(problem: &str) {
    if !problem.is_empty() {
        eprintln!("error: {problem}");
    }
    eprintln!("usage: drone_progress [--save-dir DIR] [--steps N]");
    if !problem.is_empty() {
        std::process::exit(2);
    }
}

/// The player's next action, chosen from the world state alone: exactly what
/// a player who just loaded this save would do next.
fn play_one_step(mut state: ResMut<WorldState>, mut script: ResMut<Script>) {
    if script.finished {
        return;
    }
    if script.steps_left == 0 {
        script.finished = true;
        return;
    }
    script.steps_left -= 1;
    let flag = |state: &WorldState, name: &str| state.flag(name).unwrap_or(false);
    let run_towers = |state: &mut WorldState, n: i64| {
        state.reset_scope(Scope::Run, "run_start");
        for _ in 0..n {
            let _ = state.add_counter("QST_DST_TOWER_5", 1, "combat");
            let _ = state.add_counter("QST_DST_SAMERUN_5", 1, "combat");
        }
    };
    if !flag(&state, "NPC_DRONE_SPK_01") {
        println!("> talk Drone: \"Towers are evil. Take them down.\"");
        let _ = state.set_flag("NPC_DRONE_SPK_01", true, "dialogue");
    } else if !flag(&state, "QST_DST_TOWER_5_COMPLT") {
        println!("> start a run and destroy 3 towers");
        run_towers(&mut state, 3);
    } else if !flag(&state, "NPC_DRONE_SPK_02") {
        println!("> talk Drone: \"They multiply. Destroy 5 in one run.\"");
        let _ = state.set_flag("NPC_DRONE_SPK_02", true, "dialogue");
    } else if !flag(&state, "QST_DST_SAMERUN_5_COMPLT") {
        println!("> start a run and destroy 5 towers");
        run_towers(&mut state, 5);
    } else if !flag(&state, "DIALOGUE_OPT_DRONE_ENDQST") {
        println!("> talk Drone, choose \"Keep it secret\" (+100 coins, the Drone leaves)");
        let _ = state.set_flag("DIALOGUE_OPT_DRONE_ENDQST", true, "dialogue_choice");
    } else {
        println!("> the Drone's quest line is over");
        script.finished = true;
    }
}

/// The quest manager completes quests when their counters reach 5.
fn quest_manager(mut state: ResMut<WorldState>) {
    let counter = |state: &WorldState, name: &str| state.counter(name).unwrap_or(0);
    if state.flag("NPC_DRONE_SPK_01") == Ok(true) && counter(&state, "QST_DST_TOWER_5") >= 5 {
        let _ = state.set_flag("QST_DST_TOWER_5_COMPLT", true, "quest_manager");
    }
    if state.flag("NPC_DRONE_SPK_02") == Ok(true) && counter(&state, "QST_DST_SAMERUN_5") >= 5 {
        let _ = state.set_flag("QST_DST_SAMERUN_5_COMPLT", true, "quest_manager");
    }
}

fn print_changes(
    mut flags: MessageReader<FlagChanged>,
    mut counters: MessageReader<CounterChanged>,
) {
    for c in flags.read() {
        println!(
            "  flag    {:<26} {} -> {}  ({})",
            c.name, c.old, c.new, c.source
        );
    }
    for c in counters.read() {
        println!(
            "  counter {:<26} {} -> {}  ({})",
            c.name, c.old, c.new, c.source
        );
    }
}

fn print_load(mut loaded: MessageReader<SaveLoaded>) {
    for l in loaded.read() {
        println!("save: {}", l.outcome.describe());
    }
}

fn exit_when_done(
    script: Res<Script>,
    mut exit: MessageWriter<AppExit>,
    mut saved: Local<bool>,
    mut save: MessageWriter<SaveWorldState>,
) {
    if script.finished && !*saved {
        save.write_default();
        *saved = true;
    } else if *saved {
        exit.write(AppExit::Success);
    }
}
