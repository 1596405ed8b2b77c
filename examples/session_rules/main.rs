//! Trainz-style session rules (seed 004): a small driving session built as a
//! rule tree — ordered objectives, a simultaneous block, a select-one
//! branch, a condition rule that can lose COMPLETE and a polled
//! counter-threshold rule — shown live with PAUSED / COMPLETE /
//! WAS COMPLETE / DOES COMPLETE.
//!
//! ```text
//! cargo run --example session_rules                       # a window
//! cargo run --example session_rules -- --headless         # the scripted drive
//! cargo run --example session_rules -- --headless --drive my_drive.txt
//! ```
//!
//! Window: arrows / WASD drive, hold Shift to drive over the speed limit,
//! 1 / 2 choose the scenic or the express route, R restarts, F1 toggles the
//! inspector (open at start, showing the session's rules). `--autopilot`
//! plays the scripted drive in the window; `--screenshot PNG` plays it,
//! saves a screenshot after the deliveries and quits.
//!
//! Headless prints one JSON line per step of the drive
//! (`assets/session_rules/drive.txt` unless `--drive` names one): the step,
//! the session's time, passengers, parcels, warnings, the session's status
//! and every rule's flags (`P` paused, `C` complete, `W` was complete,
//! `D` does complete).

#[path = "../common/mod.rs"]
mod common;
mod game;
mod window;

use std::path::PathBuf;

use game::{Autopilot, GameConfig, SessionState, build_headless, parse_drive, rule_flags};

/// Trainz session rules: a driving session whose rules are a behavior tree
/// of Trainz parent styles.
#[derive(clap::Parser, Debug)]
#[command(
    name = "session_rules",
    after_help = "Examples:\n  cargo run --example session_rules\n  cargo run --example session_rules -- --autopilot\n  cargo run --example session_rules -- --headless --drive my_drive.txt"
)]
struct Args {
    #[command(flatten)]
    common: common::CommonArgs,
    /// Drive these steps (one per line: `goto PLACE`, `speed KMH`, ...);
    /// default `assets/session_rules/drive.txt`.
    #[arg(long, value_name = "FILE")]
    drive: Option<PathBuf>,
    /// In a window: drive the steps instead of the keyboard.
    #[arg(long)]
    autopilot: bool,
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
        common::write_vocabulary(build_headless(&GameConfig { assets }), &path);
    }
    let (drive, autopilot) = (args.drive, args.autopilot);
    // The drive is read only when something plays it.
    let steps = || {
        let path = drive
            .clone()
            .unwrap_or_else(|| assets.join("session_rules/drive.txt"));
        std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| parse_drive(&text))
            .unwrap_or_else(|e| usage(format!("{}: {e}", path.display())))
    };
    if !headless {
        if common::display_available() {
            let pilot = (autopilot || screenshot.is_some() || drive.is_some()).then(steps);
            window::run(&GameConfig { assets }, pilot, screenshot, remote);
            return;
        }
        eprintln!(
            "session_rules: no display (DISPLAY / WAYLAND_DISPLAY unset); playing the drive headless"
        );
    }
    if remote.is_some() {
        usage("--remote needs the window (headless, the session plays its drive and ends)");
    }
    let steps = steps();
    std::process::exit(run_headless(&GameConfig { assets }, steps));
}

fn run_headless(config: &GameConfig, steps: Vec<game::Step>) -> i32 {
    let mut app = build_headless(config);
    if let Err(e) = game::settle(&mut app) {
        eprintln!("session_rules: {e}");
        return 1;
    }
    app.insert_resource(Autopilot::new(steps));
    let mut printed_log = 0;
    loop {
        let before = app.world().resource::<Autopilot>().current;
        if app.world().resource::<Autopilot>().done() {
            break;
        }
        app.update();
        let pilot = app.world().resource::<Autopilot>();
        if pilot.current == before {
            continue;
        }
        let step = pilot.steps[before].to_string();
        let session = app.world().resource::<SessionState>();
        for line in &session.log[printed_log..] {
            eprintln!("{line}");
        }
        printed_log = session.log.len();
        let rules: serde_json::Map<String, serde_json::Value> = rule_flags(app.world())
            .into_iter()
            .map(|(path, flags)| (path, flags.into()))
            .collect();
        let status = game::session_status(app.world()).map_or("Loading", |s| s.as_str());
        let line = serde_json::json!({
            "step": before + 1,
            "command": step,
            "time": (f64::from(session.time) * 100.0).round() / 100.0,
            "passengers": session.passengers,
            "parcels": session.parcels,
            "warnings": session.warnings,
            "status": status,
            "rules": rules,
        });
        println!("{line}");
    }
    0
}
