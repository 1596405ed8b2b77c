//! What the example games share: whether a window can open, and the
//! window's plugins.

use std::path::Path;

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
