#![doc = include_str!("../README.md")]
//!
//! ## This crate
//!
//! `wyrd` re-exports the suite's crates and offers [`WyrdPlugins`] and a
//! [`prelude`]. Use the crates directly for finer control over features.

pub use wyrd_bt as bt;
#[cfg(feature = "inspector")]
pub use wyrd_inspector as inspector;
/// Wyrd over the Bevy Remote Protocol (the `remote` feature).
#[cfg(feature = "remote")]
pub use wyrd_remote as remote;
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
        let group = PluginGroupBuilder::start::<Self>()
            .add(wyrd_state::WorldStatePlugin::default())
            .add(wyrd_bt::BtPlugin::default());
        #[cfg(feature = "bt")]
        let group = group.add(wyrd_state::bt::WorldStateBtPlugin);
        group
    }
}

/// The names most users need: `use wyrd::prelude::*;`.
pub mod prelude {
    pub use crate::WyrdPlugins;
    pub use wyrd_bt::prelude::*;
    #[cfg(feature = "inspector")]
    pub use wyrd_inspector::WyrdInspectorPlugin;
    #[cfg(feature = "remote")]
    pub use wyrd_remote::WyrdRemotePlugin;
    #[cfg(feature = "save")]
    pub use wyrd_save::prelude::*;
    pub use wyrd_state::prelude::*;
}
