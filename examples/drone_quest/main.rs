//! The Drone quest (seed 000): a hub/run game whose progression is a World
//! State Evaluation behavior tree over flags and counters, saved in signed
//! files.
//!
//! ```text
//! cargo run --example drone_quest -- --headless --autoplay --save-dir /tmp/dq
//! cargo run --example drone_quest -- --headless --script my_script.txt --save-dir /tmp/dq
//! ```
//!
//! With a display it opens a window (WASD move, E talk, 1/2 answer, Space
//! destroy, the purple portal starts and ends runs, F1 the inspector);
//! `--screenshot PNG` talks to the Drone, saves a screenshot and quits;
//! `--inspector` opens the inspector at start. Without one it says so and
//! plays the autoplay headless.
//!
//! Headless play reads commands, one per line: `talk NPC`, `choose OPTION`,
//! `start_run`, `destroy KIND N`, `end_run`, `save`, `reload`, `# comments`,
//! and prints one JSON line per command (the game's state) on stdout;
//! dialogue and problems go to stderr. `--autoplay` plays the seed's
//! "Expected sequence" (`assets/drone_quest/autoplay.txt`).
//!
//! The save folder defaults to the per-user data folder
//! (`$XDG_DATA_HOME/wyrd/drone_quest`, else `~/.local/share/wyrd/drone_quest`).
//! Saves are signed with `WYRD_SAVE_KEY` (or the development key).

#[path = "../common/mod.rs"]
mod common;
mod game;
mod window;

use std::path::PathBuf;

use bevy::prelude::*;

use game::{GameConfig, build_app, flush_saves, load_report, play, settle, snapshot};

fn default_save_dir() -> PathBuf {
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("wyrd/drone_quest")
}

/// The Drone quest: a hub/run game whose progression is a behavior tree
/// over flags and counters, saved in signed files.
#[derive(clap::Parser, Debug)]
#[command(
    name = "drone_quest",
    after_help = "Examples:\n  cargo run --example drone_quest\n  cargo run --example drone_quest -- --headless --autoplay --save-dir /tmp/dq\n  cargo run --example drone_quest -- --headless --script my_script.txt"
)]
struct Args {
    #[command(flatten)]
    common: common::CommonArgs,
    /// Headless: play these commands, one per line (`talk NPC`, `choose
    /// OPTION`, `start_run`, `destroy KIND N`, `end_run`, `save`, `reload`).
    #[arg(long, value_name = "FILE", conflicts_with = "autoplay")]
    script: Option<PathBuf>,
    /// Headless: play the seed's expected sequence
    /// (`assets/drone_quest/autoplay.txt`).
    #[arg(long)]
    autoplay: bool,
    /// The save folder (default: `$XDG_DATA_HOME/wyrd/drone_quest`, else
    /// `~/.local/share/wyrd/drone_quest`).
    #[arg(long, value_name = "DIR")]
    save_dir: Option<PathBuf>,
    /// Open the inspector at start.
    #[arg(long)]
    inspector: bool,
}

fn usage(problem: impl std::fmt::Display) -> ! {
    common::usage_error::<Args>(problem)
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
    if let Some(path) = vocabulary {
        // The game's registrations, with saves in a folder nobody reads.
        let scratch = std::env::temp_dir().join("wyrd-drone-quest-vocabulary");
        match build_app(&GameConfig::new(assets, scratch)) {
            Ok(app) => common::write_vocabulary(app, &path),
            Err(e) => usage(e),
        }
    }
    let (script, mut autoplay, inspector) = (args.script, args.autoplay, args.inspector);
    let save_dir = args.save_dir.unwrap_or_else(default_save_dir);
    if !headless {
        if common::display_available() {
            let config = GameConfig::new(assets, save_dir);
            if let Err(e) = window::run(&config, screenshot, inspector, remote) {
                eprintln!("drone_quest: {e}");
                std::process::exit(1);
            }
            return;
        }
        eprintln!(
            "drone_quest: no display (DISPLAY / WAYLAND_DISPLAY unset); playing the autoplay headless"
        );
        autoplay = script.is_none();
    }
    if remote.is_some() {
        usage("--remote needs the window (headless, the Drone quest plays a script and ends)");
    }
    let text = match (&script, autoplay) {
        (Some(path), _) => std::fs::read_to_string(path)
            .unwrap_or_else(|e| usage(format!("{}: {e}", path.display()))),
        (None, _) => std::fs::read_to_string(assets.join("drone_quest/autoplay.txt"))
            .unwrap_or_else(|e| usage(format!("autoplay script: {e}"))),
    };
    let config = GameConfig::new(assets, save_dir);
    std::process::exit(run_script(&config, &text));
}

fn start(config: &GameConfig) -> App {
    let mut app = build_app(config).unwrap_or_else(|e| {
        eprintln!("drone_quest: {e}");
        std::process::exit(1);
    });
    settle(&mut app);
    eprintln!(
        "save: {} ({})",
        load_report(&app),
        config.save_dir.display()
    );
    app
}

fn quit(mut app: App) {
    // Quitting flushes what changed since the last save.
    app.world_mut().write_message(AppExit::Success);
    app.update();
    flush_saves(&mut app);
}

fn run_script(config: &GameConfig, text: &str) -> i32 {
    let mut app = start(config);
    let mut step = 0;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        step += 1;
        if line == "reload" {
            quit(app);
            app = start(config);
        } else if let Err(problem) = play(&mut app, line) {
            eprintln!("step {step} ({line}): {problem}");
        }
        flush_saves(&mut app);
        println!("{}", snapshot(&app, step, line));
    }
    quit(app);
    0
}
