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
use std::time::Duration;

use bevy::app::{App, Last, Plugin};
use bevy::ecs::prelude::*;
use bevy::log::{info, warn};
use wyrd_save::{
    LoadOutcome, ReloadRequest, SaveDocument, SaveKey, SavePlugin, SaveRequest, SaveSlot,
    SaveSystems,
};

use crate::WorldStateSystems;
use crate::asset::Scope;
use crate::document::{WORLD_STATE_SCHEMA_VERSION, WorldStateDocument};
use crate::messages::{CounterChanged, EventCompleted, FlagChanged};
use crate::state::WorldState;

/// Save the world state now.
pub type SaveWorldState = SaveRequest<WorldStateDocument>;
/// Reload the world state from disk.
pub type ReloadWorldState = ReloadRequest<WorldStateDocument>;

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

    fn apply(self, world: &mut World, outcome: &LoadOutcome) {
        let Some(mut state) = world.get_resource_mut::<WorldState>() else {
            warn!(
                "a world-state save was loaded but there is no WorldState; add WorldStatePlugin first"
            );
            return;
        };
        let report = state.apply_document(&self);
        info!(
            "world state {}: {} values applied, {} reset by version, {} not declared (kept)",
            outcome.describe(),
            report.applied,
            report.reset.len(),
            report.undeclared.len()
        );
        for (name, saved, now) in &report.reset {
            info!("{name}: saved version {saved} is older than {now}; reset to its default");
        }
    }
}

/// Loads the world state from a signed save at startup and saves it after
/// Meta-scoped changes (debounced), on [`SaveWorldState`] and at exit.
///
/// Add it after [`WorldStatePlugin`](crate::WorldStatePlugin). The save can
/// load before the flags files: saved values wait until their entry is
/// declared.
#[derive(Debug, Clone)]
pub struct WorldStateSavePlugin {
    /// Folder of the save files.
    pub dir: PathBuf,
    /// Primary file name (default `world_state.json`).
    pub file_name: String,
    /// Signing key.
    pub key: SaveKey,
    /// Autosave delay after the last Meta change (`None`: off).
    pub autosave: Option<Duration>,
}

impl WorldStateSavePlugin {
    /// Saves to `dir/world_state.json`, autosaving 1 s after changes.
    pub fn new(dir: impl Into<PathBuf>, key: SaveKey) -> Self {
        WorldStateSavePlugin {
            dir: dir.into(),
            file_name: "world_state.json".into(),
            key,
            autosave: Some(Duration::from_secs(1)),
        }
    }

    /// Sets the autosave delay (`None`: only on request and at exit).
    pub fn with_autosave(mut self, delay: Option<Duration>) -> Self {
        self.autosave = delay;
        self
    }
}

impl Plugin for WorldStateSavePlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(
            SavePlugin::<WorldStateDocument>::new(&self.dir, &self.file_name, self.key.clone())
                .with_autosave(self.autosave),
        )
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
    mut slot: ResMut<SaveSlot<WorldStateDocument>>,
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
