//! # Wyrd world state
//!
//! Flags (`bool`) and counters (`i64`) declared as data in `*.flags.ron`
//! asset files, held in the [`WorldState`] resource, read and written by game
//! systems and behavior trees, with a message for every change.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use wyrd_state::prelude::*;
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((MinimalPlugins, AssetPlugin::default()))
//!         .add_plugins(WorldStatePlugin::with_files(["drone_quest/world_state.flags.ron"]))
//!         .add_systems(Update, count_towers.run_if(world_state_ready))
//!         .run();
//! }
//!
//! fn count_towers(mut state: ResMut<WorldState>, mut changes: MessageReader<CounterChanged>) {
//!     for change in changes.read() {
//!         info!("{} {} -> {} by {}", change.name, change.old, change.new, change.source);
//!     }
//!     state.add_counter("QST_DST_TOWER_5", 1, "combat").unwrap();
//! }
//! ```
//!
//! ## Systems, in order
//! - [`WorldStateSystems::SyncAssets`] (`PreUpdate`): merges loaded or
//!   reloaded flags files into [`WorldState`]; reports problems as
//!   [`FlagsFileReport`] messages.
//! - your systems change values through [`WorldState`] in any schedule;
//! - [`WorldStateSystems::Flush`] (`Last`): sends the recorded changes as
//!   [`FlagChanged`], [`CounterChanged`] and [`EventCompleted`] messages.
//!
//! ## Hot reload
//! When the app enables Bevy's `file_watcher`, an edited flags file adds its
//! new entries and updates metadata (default, version, scope, description)
//! without touching current values. An entry the file no longer declares is
//! reported and keeps its value. A file that declares an id or name another
//! file owns is rejected whole, with an error naming both files.
//!
//! ## Features
//! - `save`: [`WorldStateSavePlugin`](save::WorldStateSavePlugin), built on
//!   `wyrd_save`, saves [`WorldStateDocument`] (the seed's JSON schema).
//! - `bt`: [`WorldStateBtPlugin`](bt::WorldStateBtPlugin) publishes flags and
//!   counters to behavior trees (`World("NAME", Op, value)` conditions).

mod asset;
mod condition;
mod document;
mod id;
mod messages;
mod state;

#[cfg(feature = "save")]
pub mod save;

#[cfg(feature = "bt")]
pub mod bt;

#[cfg(all(feature = "bt", feature = "save"))]
pub mod agents;

pub use asset::{
    CounterDecl, EntryDecl, FlagDecl, FlagsFile, FlagsFileError, FlagsFileLoader, FlagsProblem,
    Scope, valid_name as valid_flag_name,
};
pub use condition::{Condition, CounterOp, ResolvedCondition};
pub use document::{LoadReport, SavedEntry, WORLD_STATE_SCHEMA_VERSION, WorldStateDocument};
pub use id::{StableId, StableIdError};
pub use messages::{
    CounterChanged, EventCompleted, FlagChanged, FlagsFileReport, WorldStateLoaded,
};
pub use state::{
    ChangeSource, CounterEntry, CounterHandle, CounterKey, DeclarationConflict, Entry, FlagEntry,
    FlagHandle, FlagKey, MergeReport, WorldState, WorldStateError,
};

use std::collections::HashMap;
use std::path::PathBuf;

use bevy::app::{App, Last, Plugin, PreUpdate, Startup};
use bevy::asset::{
    AssetApp, AssetEvent, AssetId, AssetLoadFailedEvent, AssetServer, Assets, Handle,
};
use bevy::ecs::prelude::*;
use bevy::log::{error, info, warn};

/// The names most users need.
pub mod prelude {
    #[cfg(all(feature = "bt", feature = "save"))]
    pub use crate::agents::{AgentsSaveInterval, AgentsSavePlugin, PersistAgent, PersistId};
    #[cfg(feature = "bt")]
    pub use crate::bt::{
        EvaluateWorldState, NodeEffect, ResetWorldStateManagers, WorldStateBtPlugin,
        WorldStateEvalAppExt, WorldStateEvaluated, WorldStateEvaluation,
        WorldStateEvaluationPlugin, WorldStateManager,
    };
    #[cfg(feature = "save")]
    pub use crate::save::{ReloadWorldState, SaveWorldState, WorldStateSavePlugin};
    pub use crate::{
        Condition, CounterChanged, CounterHandle, CounterOp, EventCompleted, FlagChanged,
        FlagHandle, FlagsFile, FlagsFileReport, Scope, StableId, WorldState, WorldStateDocument,
        WorldStateError, WorldStateFiles, WorldStateLoaded, WorldStatePlugin, WorldStateSystems,
        world_state_ready, world_state_settled,
    };
}

/// Adds flags files as assets and the [`WorldState`] resource.
///
/// Safe to add more than once: later copies only add their files.
#[derive(Debug, Clone, Default)]
pub struct WorldStatePlugin {
    /// Asset paths of `*.flags.ron` files loaded at startup and kept loaded.
    pub files: Vec<String>,
}

impl WorldStatePlugin {
    /// A plugin that loads these files at startup.
    pub fn with_files<S: Into<String>>(files: impl IntoIterator<Item = S>) -> Self {
        Self {
            files: files.into_iter().map(Into::into).collect(),
        }
    }
}

/// The world state's system sets. See the [crate docs](crate) for the order.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorldStateSystems {
    /// `PreUpdate`: merge loaded and reloaded flags files.
    SyncAssets,
    /// `Last`: turn recorded changes into messages.
    Flush,
}

/// The flags files the world state keeps loaded, and which of them are merged.
#[derive(Resource, Debug, Default, bevy::reflect::Reflect)]
#[reflect(from_reflect = false)]
pub struct WorldStateFiles {
    /// Files requested by [`WorldStatePlugin::files`] (or added by you).
    pub handles: Vec<Handle<FlagsFile>>,
    /// Assets merged into the world state, with their paths.
    #[reflect(ignore)]
    merged: HashMap<AssetId<FlagsFile>, PathBuf>,
    /// Assets that failed to load or were rejected since their last success.
    #[reflect(ignore)]
    failed: HashMap<AssetId<FlagsFile>, String>,
    /// Requested files loaded while others of the list still load: merged
    /// together, in the list's order, once all have loaded or failed.
    #[reflect(ignore)]
    waiting: Vec<AssetId<FlagsFile>>,
    pending_paths: Vec<String>,
}

impl WorldStateFiles {
    /// Whether every requested file is loaded and merged.
    pub fn all_merged(&self) -> bool {
        self.pending_paths.is_empty()
            && self
                .handles
                .iter()
                .all(|h| self.merged.contains_key(&h.id()))
    }

    /// Whether every requested file has merged or failed: nothing is still
    /// loading (a file that failed is reported, and does not hold trees
    /// back forever).
    pub fn all_settled(&self) -> bool {
        self.pending_paths.is_empty()
            && self
                .handles
                .iter()
                .all(|h| self.merged.contains_key(&h.id()) || self.failed.contains_key(&h.id()))
    }

    /// Requested files that failed to load or were rejected, with the reason.
    pub fn failures(&self) -> impl Iterator<Item = &str> {
        self.failed.values().map(String::as_str)
    }
}

/// Run condition: every file of [`WorldStatePlugin::files`] is merged. A
/// file that failed to load (reported in [`WorldStateFiles::failures`] and
/// logged) keeps it false until a version of it that loads replaces it:
/// game logic that needs the declared values does not run without them.
/// Trees wait for [`world_state_settled`] instead.
pub fn world_state_ready(files: Option<Res<WorldStateFiles>>) -> bool {
    files.is_some_and(|f| f.all_merged())
}

/// Run condition: every file of [`WorldStatePlugin::files`] has merged or
/// failed, nothing is still loading ([`WorldStateFiles::all_settled`]).
/// What behavior trees wait for before their first tick (a broken file is
/// reported and does not hold them back forever); for game systems that
/// should start with the trees.
pub fn world_state_settled(files: Option<Res<WorldStateFiles>>) -> bool {
    // Without the world state's plugin there is nothing to wait for, as
    // the trees see it.
    files.is_none_or(|f| f.all_settled())
}

impl Plugin for WorldStatePlugin {
    fn build(&self, app: &mut App) {
        // For bevy-inspector-egui and the Bevy Remote Protocol.
        app.register_type::<WorldState>()
            .register_type::<WorldStateFiles>()
            .register_type::<FlagChanged>()
            .register_type::<CounterChanged>()
            .register_type::<EventCompleted>()
            .register_type::<FlagsFileReport>()
            .register_type::<WorldStateLoaded>();
        if !app.world().contains_resource::<WorldStateFiles>() {
            app.init_asset::<FlagsFile>()
                .init_asset_loader::<FlagsFileLoader>()
                .init_resource::<WorldState>()
                .init_resource::<WorldStateFiles>()
                .add_message::<FlagChanged>()
                .add_message::<CounterChanged>()
                .add_message::<EventCompleted>()
                .add_message::<FlagsFileReport>()
                .add_message::<WorldStateLoaded>()
                .add_systems(Startup, load_requested_files)
                .add_systems(
                    PreUpdate,
                    sync_flags_files.in_set(WorldStateSystems::SyncAssets),
                )
                .add_systems(Last, flush_changes.in_set(WorldStateSystems::Flush));
        }
        app.world_mut()
            .resource_mut::<WorldStateFiles>()
            .pending_paths
            .extend(self.files.iter().cloned());
        // The game's vocabulary names the files that declare its world
        // values, so that `wyrd check` knows them.
        #[cfg(feature = "bt")]
        {
            let registry = app
                .world_mut()
                .get_resource_or_init::<wyrd_bt::BtRegistry>()
                .clone();
            registry.edit(|v| v.world_files.extend(self.files.iter().cloned()));
        }
    }

    fn is_unique(&self) -> bool {
        false
    }
}

fn load_requested_files(server: Res<AssetServer>, mut files: ResMut<WorldStateFiles>) {
    let paths = std::mem::take(&mut files.pending_paths);
    for path in paths {
        let handle = server.load::<FlagsFile>(path);
        files.handles.push(handle);
    }
}

fn sync_flags_files(
    mut events: MessageReader<AssetEvent<FlagsFile>>,
    mut failures: MessageReader<AssetLoadFailedEvent<FlagsFile>>,
    assets: Res<Assets<FlagsFile>>,
    mut state: ResMut<WorldState>,
    mut files: ResMut<WorldStateFiles>,
    mut reports: MessageWriter<FlagsFileReport>,
) {
    for failure in failures.read() {
        let file = failure.path.path().to_owned();
        let (report, text) = match &failure.error {
            bevy::asset::AssetLoadError::AssetLoaderError(e) => {
                match e.error().downcast_ref::<FlagsFileError>() {
                    Some(flags_error) => (
                        FlagsFileReport::Invalid(flags_error.clone()),
                        flags_error.to_string(),
                    ),
                    None => {
                        let error = e.to_string();
                        let text = format!("{}: {error}", file.display());
                        (FlagsFileReport::LoadFailed { file, error }, text)
                    }
                }
            }
            other => {
                let error = other.to_string();
                let text = format!("{}: {error}", file.display());
                (FlagsFileReport::LoadFailed { file, error }, text)
            }
        };
        error!("flags file not applied: {text}");
        files.failed.insert(failure.id, text);
        reports.write(report);
    }
    // The requested files merge in the order of the list once they have
    // all loaded (or failed): which of two files declaring one id is
    // refused does not depend on which loaded first.
    let loading = |files: &WorldStateFiles| {
        !files.pending_paths.is_empty()
            || files
                .handles
                .iter()
                .any(|h| !assets.contains(h.id()) && !files.failed.contains_key(&h.id()))
    };
    for event in events.read() {
        match *event {
            AssetEvent::Added { id } | AssetEvent::Modified { id } => {
                // A requested file's first merge waits for the list (and
                // goes in its order, also when several arrive at once).
                let requested = files.handles.iter().any(|h| h.id() == id);
                if requested && !files.merged.contains_key(&id) {
                    if !files.waiting.contains(&id) {
                        files.waiting.push(id);
                    }
                    continue;
                }
                merge_one(id, &assets, &mut state, &mut files, &mut reports);
            }
            AssetEvent::Removed { id } => {
                if let Some(path) = files.merged.remove(&id) {
                    let names = state.forget_file(&path);
                    if !names.is_empty() {
                        warn!(
                            "{} was unloaded; its entries {:?} keep their values",
                            path.display(),
                            names
                        );
                        reports.write(FlagsFileReport::EntriesRemoved { file: path, names });
                    }
                }
            }
            AssetEvent::Unused { .. } | AssetEvent::LoadedWithDependencies { .. } => {}
        }
    }
    if !files.waiting.is_empty() && !loading(&files) {
        let mut waiting = std::mem::take(&mut files.waiting);
        let place = |id: &AssetId<FlagsFile>| files.handles.iter().position(|h| h.id() == *id);
        waiting.sort_by_key(place);
        for id in waiting {
            merge_one(id, &assets, &mut state, &mut files, &mut reports);
        }
    }
    report_unmatched_saved(&mut state, &files);
}

/// Once every requested file merged, each saved value no declared entry
/// takes is said once (a warning and [`WorldState::save_problems`]): an
/// id changed by mistake looked like lost progress, and the load's own
/// line ("waiting for a flags file to declare them") is the same on every
/// launch, before the files merge.
fn report_unmatched_saved(state: &mut ResMut<WorldState>, files: &WorldStateFiles) {
    if state.unmatched_said || !files.all_merged() {
        return;
    }
    let state = state.as_mut();
    state.unmatched_said = true;
    for line in state.unmatched_saved() {
        if !state.save_problems.contains(&line) {
            warn!("{line}");
            state.save_problems.push(line);
        }
    }
}

/// Merges one loaded flags file into the world state, reporting what it
/// declared, or its conflicts (nothing of it is merged then).
fn merge_one(
    id: AssetId<FlagsFile>,
    assets: &Assets<FlagsFile>,
    state: &mut WorldState,
    files: &mut WorldStateFiles,
    reports: &mut MessageWriter<FlagsFileReport>,
) {
    let Some(file) = assets.get(id) else {
        return;
    };
    let said = state.save_problems.len();
    match state.merge_file(file) {
        Ok(merge) => {
            // What the merge found in the saved values (a saved Meta value
            // whose entry is Run-scoped now, a version out of range): in
            // the log, not only in `save_problems`.
            for problem in &state.save_problems[said.min(state.save_problems.len())..] {
                warn!("{}: {problem}", file.path.display());
            }
            info!(
                "flags file {} applied: {} new, {} updated",
                file.path.display(),
                merge.added.len(),
                merge.updated.len()
            );
            files.merged.insert(id, file.path.clone());
            files.failed.remove(&id);
            reports.write(FlagsFileReport::Applied {
                file: file.path.clone(),
                entries: file.flags.len() + file.counters.len(),
            });
            if !merge.removed.is_empty() {
                warn!(
                    "{} no longer declares {:?}; their values are kept",
                    file.path.display(),
                    merge.removed
                );
                reports.write(FlagsFileReport::EntriesRemoved {
                    file: file.path.clone(),
                    names: merge.removed,
                });
            }
        }
        Err(conflicts) => {
            let mut text = String::new();
            for conflict in conflicts {
                error!("{conflict}");
                text.push_str(&conflict.to_string());
                reports.write(FlagsFileReport::Conflict(conflict));
            }
            files.failed.insert(id, text);
        }
    }
}

fn flush_changes(
    mut state: ResMut<WorldState>,
    mut flags: MessageWriter<FlagChanged>,
    mut counters: MessageWriter<CounterChanged>,
    mut events: MessageWriter<EventCompleted>,
    mut loaded: MessageWriter<WorldStateLoaded>,
) {
    // Draining the buffers is bookkeeping, not a change of the world state:
    // keep `is_changed()` meaningful for systems that watch it.
    let pending = &mut state.bypass_change_detection().pending;
    if !pending.flags.is_empty() {
        flags.write_batch(pending.flags.drain(..));
    }
    if !pending.counters.is_empty() {
        counters.write_batch(pending.counters.drain(..));
    }
    if !pending.events.is_empty() {
        events.write_batch(pending.events.drain(..));
    }
    if !pending.loaded.is_empty() {
        loaded.write_batch(pending.loaded.drain(..));
    }
}
