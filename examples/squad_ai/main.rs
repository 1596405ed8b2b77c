//! Halo-style squad AI (seed 002): a top-down skirmish against squads with
//! leaders, every AI running the ~60-node combat tree in
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

use std::path::PathBuf;

use bevy::prelude::*;
use game::{GameConfig, build_headless, scripted_player, settle, summary_json};

fn usage(problem: &str) -> ! {
    eprintln!("error: {problem}");
    eprintln!(
        "usage: squad_ai [--headless] [--ticks N] [--agents N] [--seed N] [--assets DIR] [--screenshot PNG]"
    );
    std::process::exit(2);
}

fn number(args: &mut impl Iterator<Item = String>, flag: &str) -> u64 {
    let v = args
        .next()
        .unwrap_or_else(|| usage(&format!("{flag} needs a number")));
    v.parse()
        .unwrap_or_else(|_| usage(&format!("{flag}: {v:?} is not a whole number")))
}

fn main() {
    let mut headless = false;
    let mut ticks = 3000;
    let mut agents = 48;
    let mut seed = 2;
    let mut screenshot: Option<PathBuf> = None;
    let mut assets = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/assets"));
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--headless" => headless = true,
            "--ticks" => ticks = number(&mut args, "--ticks"),
            "--agents" => agents = number(&mut args, "--agents") as usize,
            "--seed" => seed = number(&mut args, "--seed"),
            "--screenshot" => {
                screenshot = Some(
                    args.next()
                        .unwrap_or_else(|| usage("--screenshot needs a file"))
                        .into(),
                )
            }
            "--assets" => {
                assets = args
                    .next()
                    .unwrap_or_else(|| usage("--assets needs a folder"))
                    .into()
            }
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    if agents == 0 || agents > 1_000_000 {
        usage("--agents must be between 1 and 1000000");
    }
    let config = GameConfig { assets };
    if !headless {
        if common::display_available() {
            window::run(&config, agents, seed, screenshot);
            return;
        }
        eprintln!("squad_ai: no display (DISPLAY / WAYLAND_DISPLAY unset); running headless");
    } else if screenshot.is_some() {
        usage("--screenshot needs a window, not --headless");
    }
    let mut app = build_headless(&config, agents, seed);
    app.add_systems(
        FixedUpdate,
        scripted_player
            .before(wyrd::bt::BtSystems::Sense)
            .run_if(resource_exists::<game::Playing>),
    );
    if let Err(e) = settle(&mut app) {
        eprintln!("squad_ai: {e}");
        std::process::exit(1);
    }
    for _ in 0..ticks {
        app.update();
    }
    println!("{}", summary_json(app.world()));
}
