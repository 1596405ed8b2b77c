#![doc = include_str!("../README.md")]
//!
//! ## This crate
//!
//! `wyrd` re-exports the suite's crates and offers [`WyrdPlugins`] and a
//! [`prelude`]. Use the crates directly for finer control over features.

pub use wyrd_state as state;

#[cfg(feature = "save")]
pub use wyrd_save as save;

use bevy::app::{PluginGroup, PluginGroupBuilder};

/// Every Wyrd plugin that needs no configuration beyond its defaults.
///
/// Configure one with `.set(...)`, leave one out with
/// `.build().disable::<...>()`:
///
/// ```
/// use bevy::prelude::*;
/// use wyrd::prelude::*;
///
/// App::new()
///     .add_plugins((MinimalPlugins, AssetPlugin::default()))
///     .add_plugins(
///         WyrdPlugins.set(WorldStatePlugin::with_files(["drone_quest/world_state.flags.ron"])),
///     );
/// ```
///
/// Saving needs a folder and a key, so it is added on its own:
/// [`WorldStateSavePlugin`](wyrd_state::save::WorldStateSavePlugin).
pub struct WyrdPlugins;

impl PluginGroup for WyrdPlugins {
    fn build(self) -> PluginGroupBuilder {
        PluginGroupBuilder::start::<Self>().add(wyrd_state::WorldStatePlugin::default())
    }
}

/// The names most users need: `use wyrd::prelude::*;`.
pub mod prelude {
    pub use crate::WyrdPlugins;
    #[cfg(feature = "save")]
    pub use wyrd_save::prelude::*;
    pub use wyrd_state::prelude::*;
}
