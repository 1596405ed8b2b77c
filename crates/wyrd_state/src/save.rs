//! Saving the world state with `wyrd_save` (feature `save`).
//!
//! ```no_run
//! use bevy::prelude::*;
//! use wyrd_state::prelude::*;
//! use wyrd_save::SaveKey;
//!
//! App::new()
//!     .add_plugins((MinimalPlugins, AssetPlugin::default()))
//!     .add_plugins(WorldStatePlugin::with_files(["drone_quest/world_state.flags.ron"]))
//!     .add_plugins(WorldStateSavePlugin::new("saves", SaveKey::from_env_or_dev()))
//!     .run();
//! ```

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bevy::app::{App, Last, Plugin};
use bevy::ecs::prelude::*;
use bevy::log::{info, warn};
use wyrd_save::{
    DocumentLoad, ReloadRequest, SaveAppExt, SaveDocument, SaveFs, SaveKey, SavePlugin,
    SaveRequest, SaveSlot, SaveSystems,
};

use crate::WorldStateSystems;
use crate::asset::Scope;
use crate::document::{WORLD_STATE_SCHEMA_VERSION, WorldStateDocument};
use crate::messages::{CounterChanged, EventCompleted, FlagChanged};
use crate::state::WorldState;

/// Save the world state now (with every other document of the slot).
pub type SaveWorldState = SaveRequest;
/// Reload the world state (and the slot's other documents) from disk.
pub type ReloadWorldState = ReloadRequest;

impl SaveDocument for WorldStateDocument {
    const SCHEMA_VERSION: u32 = WORLD_STATE_SCHEMA_VERSION;

    fn fresh() -> Self {
        WorldStateDocument::default()
    }

    fn capture(world: &mut World) -> Self {
        let ticks = wyrd_save::now_ticks();
        world
            .get_resource::<WorldState>()
            .map(|s| s.to_document(ticks))
            .unwrap_or_default()
    }

    fn apply(self, world: &mut World, load: &DocumentLoad) {
        let Some(mut state) = world.get_resource_mut::<WorldState>() else {
            warn!(
                "a world-state save was loaded but there is no WorldState; add WorldStatePlugin first"
            );
            return;
        };
        let report = state.apply_document(&self);
        let source = load.source.map_or("fresh", |k| k.describe());
        info!(
            "world state from {source}: {} values applied, {} reset by version, {} waiting for a flags file to declare them (kept; the flags files may not have loaded yet)",
            report.applied,
            report.reset.len(),
            report.undeclared.len()
        );
        for (name, saved, now) in &report.reset {
            info!("{name}: saved version {saved} is older than {now}; reset to its default");
        }
        for problem in report.problems() {
            warn!("{}: {problem}", load.file);
        }
    }
}

/// Loads the world state from a signed save at startup and saves it after
/// Meta-scoped changes (debounced), on [`SaveWorldState`], on retry after a
/// failure and at exit.
///
/// It adds a [`SavePlugin`] slot in `dir` with the world state as its
/// first document; add the game's other documents to the same slot with
/// [`SaveAppExt::add_save_document`] so they commit together.
///
/// Add it after [`WorldStatePlugin`](crate::WorldStatePlugin). The save can
/// load before the flags files: saved values wait until their entry is
/// declared.
#[derive(Debug, Clone)]
pub struct WorldStateSavePlugin {
    /// The slot: folder, key, autosave delay, retries, quarantine cap, file
    /// system.
    pub slot: SavePlugin,
    /// The world state's file name in the slot (default `world_state.json`).
    pub file_name: String,
}

impl WorldStateSavePlugin {
    /// Saves to `dir/world_state.json`, autosaving 1 s after changes.
    pub fn new(dir: impl Into<PathBuf>, key: SaveKey) -> Self {
        WorldStateSavePlugin {
            slot: SavePlugin::new(dir, key),
            file_name: "world_state.json".into(),
        }
    }

    /// Sets the autosave delay (`None`: only on request, on retry and at
    /// exit).
    pub fn with_autosave(mut self, delay: Option<Duration>) -> Self {
        self.slot.autosave = delay;
        self
    }

    /// Sets what happens when a document of the slot is missing at load
    /// (default: it starts fresh and the others keep their save).
    pub fn with_missing_document(mut self, policy: wyrd_save::MissingDocument) -> Self {
        self.slot.missing_document = policy;
        self
    }

    /// Uses another file system (tests: `wyrd_save::testing::MemFs`).
    pub fn with_fs(mut self, fs: Arc<dyn SaveFs>) -> Self {
        self.slot.fs = Some(fs);
        self
    }
}

impl Plugin for WorldStateSavePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(self.slot.clone())
            .add_save_document::<WorldStateDocument>(self.file_name.clone())
            .configure_sets(Last, WorldStateSystems::Flush.before(SaveSystems::Write))
            .add_systems(
                Last,
                mark_dirty
                    .after(WorldStateSystems::Flush)
                    .before(SaveSystems::Write),
            );
    }
}

/// Run-scoped changes never reach the save, so they do not trigger one.
fn mark_dirty(
    state: Res<WorldState>,
    mut flags: MessageReader<FlagChanged>,
    mut counters: MessageReader<CounterChanged>,
    mut events: MessageReader<EventCompleted>,
    mut slot: ResMut<SaveSlot>,
) {
    let meta_flag = flags
        .read()
        .any(|c| state.flags()[c.flag.index()].scope == Scope::Meta);
    let meta_counter = counters
        .read()
        .any(|c| state.counters()[c.counter.index()].scope == Scope::Meta);
    let event = events.read().count() > 0;
    if meta_flag || meta_counter || event {
        slot.mark_dirty();
    }
}
