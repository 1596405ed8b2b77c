//! Halo-style squad AI (seed 002): a top-down skirmish against squads with
//! leaders, every AI running the 62-node combat tree in
//! `assets/squad_ai/combat.bt.ron` — idle, search, engage (fight, vehicle
//! fight, take cover, advance), flee, self-preservation, enter / exit
//! vehicle; impulses, tags (infantry / driver / passenger, unaware / alert)
//! and the stimulus "leader died → flee" for 1.5 s.
//!
//! ```text
//! cargo run --release --example squad_ai                  # a window
//! cargo run --release --example squad_ai -- --headless --ticks 3000 --agents 64
//! ```
//!
//! Window: WASD move, mouse aims, left click shoots, right click throws a
//! grenade, E enters / leaves a vehicle, Ctrl+click selects an AI in the
//! inspector (F1), N spawns 1,000 more AIs, L toggles the labels. Each AI
//! shows its behavior; the counter shows agents and the tree's tick time.
//! `--screenshot PNG` plays the scripted player, saves a screenshot and quits.
//!
//! Headless plays the scripted player (walks from squad to squad shooting,
//! throws grenades, drives a vehicle in every 20-second cycle, hunts the
//! leaders last) for `--ticks` fixed 30 Hz ticks and prints a JSON summary:
//! behaviors entered, interruptions (and which higher-priority behavior
//! took over), stimuli fired and expired, impulses, passengers' ticks and
//! flight (always 0: the tags mask it), ns per agent-tick.

#[path = "../common/mod.rs"]
mod common;
mod game;
mod window;

use bevy::prelude::*;
use game::{GameConfig, build_headless, scripted_player, settle, summary_json};

/// Halo-style squad AI: a top-down skirmish against squads running the
/// combat tree.
#[derive(clap::Parser, Debug)]
#[command(
    name = "squad_ai",
    after_help = "Examples:\n  cargo run --release --example squad_ai\n  cargo run --release --example squad_ai -- --headless --ticks 3000 --agents 64"
)]
struct Args {
    #[command(flatten)]
    common: common::CommonArgs,
    /// Headless: fixed 30 Hz ticks to play.
    #[arg(long, value_name = "N", default_value_t = 3000)]
    ticks: u64,
    /// AIs at the start.
    #[arg(long, value_name = "N", default_value_t = 48,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    agents: u64,
    /// Seed of the battle (the same seed fights the same battle).
    #[arg(long, value_name = "N", default_value_t = 2)]
    seed: u64,
    /// Headless: record this AI (by name, e.g. "squad 0 grunt 1") with the
    /// flight recorder from its first tick, and write the recording to
    /// --record-file when the run ends (replay it with `wyrd sim --replay`).
    #[arg(long, value_name = "NAME", requires = "record_file")]
    record: Option<String>,
    /// With --screenshot: what the inspector shows.
    #[arg(long, value_enum, default_value_t = window::View::List)]
    view: window::View,
    /// Where --record writes the recording (JSON).
    #[arg(long, value_name = "FILE", requires = "record")]
    record_file: Option<std::path::PathBuf>,
}

fn main() {
    let args = <Args as clap::Parser>::parse();
    let common::CommonArgs {
        headless,
        assets,
        screenshot,
        vocabulary,
        remote,
    } = args.common;
    let (ticks, agents, seed) = (args.ticks, args.agents as usize, args.seed);
    let record = args.record.zip(args.record_file);
    let config = GameConfig { assets };
    if let Some(path) = vocabulary {
        common::write_vocabulary(build_headless(&config, 0, seed), &path);
    }
    if !headless {
        if common::display_available() {
            window::run(
                &config,
                agents,
                seed,
                screenshot.map(|s| (s, args.view)),
                remote,
            );
            return;
        }
        eprintln!("squad_ai: no display (DISPLAY / WAYLAND_DISPLAY unset); running headless");
    }
    let mut app = build_headless(&config, agents, seed);
    // With --remote, headless plays in real time (30 ticks a second).
    common::add_remote(&mut app, remote);
    app.add_systems(
        FixedUpdate,
        scripted_player
            .before(wyrd::bt::BtSystems::Sense)
            .run_if(resource_exists::<game::Playing>),
    );
    if let Some((name, _)) = &record {
        let name = name.clone();
        let keep = ticks as usize;
        // The named AI records from its first tick.
        app.add_systems(
            FixedUpdate,
            (move |mut spawned: Query<
                (&Name, &mut wyrd::bt::BtAgent),
                Added<wyrd::bt::BtAgent>,
            >| {
                for (n, mut agent) in &mut spawned {
                    if n.as_str() == name {
                        agent.record(keep);
                    }
                }
            })
            // After the spawning systems (their commands applied), before
            // the first tick.
            .after(wyrd::bt::BtSystems::Sense)
            .before(wyrd::bt::BtSystems::Decide),
        );
    }
    if let Err(e) = settle(&mut app) {
        eprintln!("squad_ai: {e}");
        std::process::exit(1);
    }
    // With tools attached, real time: one tick every 1/30 s.
    let pace = remote.map(|_| std::time::Duration::from_secs_f64(1.0 / 30.0));
    let mut next = std::time::Instant::now();
    for _ in 0..ticks {
        app.update();
        if let Some(dt) = pace {
            next += dt;
            if let Some(wait) = next.checked_duration_since(std::time::Instant::now()) {
                std::thread::sleep(wait);
            }
        }
    }
    if let Some((name, file)) = &record {
        let world = app.world_mut();
        let mut agents = world.query::<(&Name, &wyrd::bt::BtAgent)>();
        let recording = agents
            .iter(world)
            .find(|(n, _)| n.as_str() == name.as_str())
            .and_then(|(_, a)| a.recording());
        let Some(recording) = recording else {
            eprintln!("squad_ai: no AI named {name:?} recorded (it died, or no such name)");
            std::process::exit(1);
        };
        let json = serde_json::to_string(&recording).expect("a recording is plain data");
        if let Err(e) = std::fs::write(file, json) {
            eprintln!("squad_ai: {}: {e}", file.display());
            std::process::exit(1);
        }
    }
    println!("{}", summary_json(app.world()));
}
