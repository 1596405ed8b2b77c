//! What the example games share: their common flags, whether a window can
//! open, and the window's plugins.

use std::path::{Path, PathBuf};

use bevy::app::PluginGroupBuilder;
use bevy::prelude::*;
use bevy::window::WindowResolution;

/// Whether a window can open (X11 or Wayland display set).
pub fn display_available() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// `DefaultPlugins` reading assets from `assets`, with a 1280x720 window
/// titled `title`.
pub fn window_plugins(title: &str, assets: &Path) -> PluginGroupBuilder {
    DefaultPlugins
        .set(AssetPlugin {
            file_path: assets.to_string_lossy().into_owned(),
            ..Default::default()
        })
        .set(WindowPlugin {
            primary_window: Some(Window {
                title: title.into(),
                resolution: WindowResolution::new(1280, 720),
                ..Default::default()
            }),
            ..Default::default()
        })
}

/// The flags every example game takes (`#[command(flatten)]` into its own).
#[derive(clap::Args, Debug, Clone)]
pub struct CommonArgs {
    /// Play without a window, printing JSON on stdout (the default when no
    /// display is available).
    #[arg(long)]
    pub headless: bool,
    /// The asset folder (a relative one is the current directory's, as
    /// for every other path on the command line).
    #[arg(long, value_name = "DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/assets"), value_parser = from_current_dir)]
    pub assets: PathBuf,
    /// Play the scripted start in a window, save a screenshot and quit.
    #[arg(long, value_name = "PNG", conflicts_with = "headless")]
    pub screenshot: Option<PathBuf>,
    /// Write the game's vocabulary (its actions with their parameters,
    /// predicates, custom nodes, flags files) to FILE for `wyrd check
    /// --vocabulary`, and quit.
    #[arg(long, value_name = "FILE")]
    pub vocabulary: Option<PathBuf>,
    /// Let tools attach over the Bevy Remote Protocol (Wyrd's `wyrd.*`
    /// methods) on this port of 127.0.0.1 (15702 without a number).
    #[arg(long, value_name = "PORT", num_args = 0..=1, default_missing_value = "15702")]
    pub remote: Option<u16>,
}

/// Serves Wyrd's remote methods on `port` when one is given.
#[allow(dead_code, reason = "each example calls it from its own modes")]
pub fn add_remote(app: &mut App, port: Option<u16>) {
    if let Some(port) = port {
        app.add_plugins(wyrd_remote::WyrdRemotePlugin {
            port,
            ..Default::default()
        });
        eprintln!("Wyrd's remote methods on http://127.0.0.1:{port} (wyrd.agents, wyrd.tree, ...)");
    }
}

/// A path from the command line, absolute: Bevy's asset reader would take
/// a relative one from the executable's folder (or `CARGO_MANIFEST_DIR`).
fn from_current_dir(path: &str) -> Result<PathBuf, String> {
    std::path::absolute(path).map_err(|e| format!("{path}: {e}"))
}

/// Writes the vocabulary of the headless `app` (the game's registrations)
/// and exits: 0, or 1 with the error.
#[allow(dead_code, reason = "each example calls it with its own app")]
pub fn write_vocabulary(mut app: App, path: &Path) -> ! {
    use wyrd::prelude::BtAppExt as _;
    match app.write_bt_vocabulary(path) {
        Ok(()) => {
            eprintln!("wrote the vocabulary to {}", path.display());
            std::process::exit(0)
        }
        Err(e) => {
            eprintln!("{}: cannot write the vocabulary: {e}", path.display());
            std::process::exit(1)
        }
    }
}

/// Exits with clap's usage error (exit code 2) for a problem found after
/// parsing (a bad script file, an out-of-range combination).
#[allow(dead_code, reason = "not every example reads files after parsing")]
pub fn usage_error<P: clap::CommandFactory>(problem: impl std::fmt::Display) -> ! {
    P::command()
        .error(clap::error::ErrorKind::ValueValidation, problem)
        .exit()
}
