//! Bevy glue: [`SavePlugin`] loads a document at startup and writes it on
//! request, after changes (debounced) and at exit.

use std::marker::PhantomData;
use std::path::PathBuf;
use std::time::Duration;

use bevy::app::{App, AppExit, Last, Plugin, PreStartup};
use bevy::ecs::prelude::*;
use bevy::log::{info, warn};
use bevy::time::Time;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::signed::SaveKey;
use crate::store::{LoadOutcome, SaveStore};
use crate::writer::SaveWriter;

/// A document an app saves with [`SavePlugin`]: how to make a fresh one, how
/// to take one from the world, and how to put one into it.
///
/// The JSON must have a top-level `SchemaVersion` number; files with a
/// higher version than [`SCHEMA_VERSION`](Self::SCHEMA_VERSION) are refused.
pub trait SaveDocument: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// Newest schema version this build reads and writes.
    const SCHEMA_VERSION: u32;
    /// A document for a first start.
    fn fresh() -> Self;
    /// Takes the document from the world (on the main thread; keep it cheap:
    /// serializing and writing happen on the writer thread).
    fn capture(world: &mut World) -> Self;
    /// Puts a loaded (or fresh) document into the world.
    fn apply(self, world: &mut World, outcome: &LoadOutcome);
}

/// Loads a [`SaveDocument`] at startup and writes it crash-safely.
///
/// - [`SaveRequest<D>`]: save now. [`ReloadRequest<D>`]: load from disk again.
/// - [`SaveSlot::mark_dirty`]: schedule an autosave after
///   [`autosave`](Self::autosave) without further changes.
/// - On [`AppExit`] and when the app is dropped, the last save is flushed.
pub struct SavePlugin<D> {
    /// Folder of the save files (created if missing).
    pub dir: PathBuf,
    /// File name of the primary (`.bak`, `.tmp`, `.corrupt-*` are derived).
    pub file_name: String,
    /// The signing key.
    pub key: SaveKey,
    /// Autosave this long after the last change; `None` disables autosave.
    pub autosave: Option<Duration>,
    /// Files above this size are refused unread.
    pub max_size: u64,
    _document: PhantomData<fn() -> D>,
}

impl<D> SavePlugin<D> {
    /// A plugin for `dir/file_name`, autosaving 1 s after changes.
    pub fn new(dir: impl Into<PathBuf>, file_name: impl Into<String>, key: SaveKey) -> Self {
        SavePlugin {
            dir: dir.into(),
            file_name: file_name.into(),
            key,
            autosave: Some(Duration::from_secs(1)),
            max_size: crate::store::DEFAULT_MAX_SIZE,
            _document: PhantomData,
        }
    }

    /// Sets the autosave delay (`None`: only on request and at exit).
    pub fn with_autosave(mut self, delay: Option<Duration>) -> Self {
        self.autosave = delay;
        self
    }
}

/// The save's system sets, in `Last`, after your systems and before exit.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SaveSystems {
    /// Handles requests, autosave, finished writes and exit flushing.
    Write,
}

/// Save now.
#[derive(Message, Debug)]
pub struct SaveRequest<D>(PhantomData<fn() -> D>);

impl<D> Default for SaveRequest<D> {
    fn default() -> Self {
        SaveRequest(PhantomData)
    }
}

/// Load the document from disk again and apply it (the inspector's
/// "reload from disk").
#[derive(Message, Debug)]
pub struct ReloadRequest<D>(PhantomData<fn() -> D>);

impl<D> Default for ReloadRequest<D> {
    fn default() -> Self {
        ReloadRequest(PhantomData)
    }
}

/// A document was loaded (at startup or on reload).
#[derive(Message, Debug, Clone)]
pub struct SaveLoaded<D> {
    /// Where it came from.
    pub outcome: LoadOutcome,
    _document: PhantomData<fn() -> D>,
}

/// A write finished.
#[derive(Message, Debug, Clone)]
pub struct SaveWritten<D> {
    /// Bytes written, or the error.
    pub result: Result<usize, String>,
    _document: PhantomData<fn() -> D>,
}

/// What the game and the inspector show about a save slot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SaveStatus {
    /// The primary file.
    pub path: PathBuf,
    /// Where the last load came from.
    pub last_load: Option<LoadOutcome>,
    /// When the last successful write finished (.NET ticks).
    pub last_saved_ticks: Option<i64>,
    /// The last write error, cleared by the next success.
    pub last_error: Option<String>,
    /// Successful writes since startup.
    pub writes: u64,
    /// Whether a save is queued or being written.
    pub writing: bool,
    /// Whether there are changes not yet queued for saving.
    pub dirty: bool,
}

/// The save slot of document `D`: its store, writer and status.
#[derive(Resource)]
pub struct SaveSlot<D> {
    store: SaveStore,
    writer: SaveWriter,
    status: SaveStatus,
    autosave: Option<Duration>,
    /// Time (of `Time`) of the last change not yet saved.
    dirty_at: Option<Duration>,
    dirty_requested: bool,
    _document: PhantomData<fn() -> D>,
}

impl<D: SaveDocument> SaveSlot<D> {
    /// The status to show.
    pub fn status(&self) -> &SaveStatus {
        &self.status
    }

    /// The store (paths, key).
    pub fn store(&self) -> &SaveStore {
        &self.store
    }

    /// Something that belongs in the save changed: autosave after the delay.
    pub fn mark_dirty(&mut self) {
        self.dirty_requested = true;
        self.status.dirty = true;
    }

    /// Blocks until every queued save is on disk.
    pub fn flush(&self) {
        self.writer.flush();
    }

    /// Loads from disk (primary, backup, or fresh) and applies the document.
    pub fn load_into(world: &mut World) {
        let Some(slot) = world.get_resource::<SaveSlot<D>>() else {
            return;
        };
        // Let a pending write land first, so a reload sees it.
        slot.writer.flush();
        let loaded = slot.store.load_or(D::SCHEMA_VERSION, D::fresh);
        match &loaded.outcome {
            LoadOutcome::Primary => info!("{}", loaded.outcome.describe()),
            _ if loaded.outcome.is_first_start() => info!("{}", loaded.outcome.describe()),
            other => warn!("{}", other.describe()),
        }
        let outcome = loaded.outcome.clone();
        loaded.document.apply(world, &outcome);
        if let Some(mut slot) = world.get_resource_mut::<SaveSlot<D>>() {
            slot.status.last_load = Some(outcome.clone());
            slot.status.dirty = false;
            slot.dirty_at = None;
            slot.dirty_requested = false;
        }
        world.write_message(SaveLoaded::<D> {
            outcome,
            _document: PhantomData,
        });
    }

    /// Captures the document now and queues it for writing.
    pub fn save_now(world: &mut World) {
        if !world.contains_resource::<SaveSlot<D>>() {
            return;
        }
        let document = D::capture(world);
        let Some(mut slot) = world.get_resource_mut::<SaveSlot<D>>() else {
            return;
        };
        let key = slot.store.key().clone();
        slot.writer.submit(Box::new(move || {
            key.seal_json(&document).map_err(|e| e.to_string())
        }));
        slot.status.dirty = false;
        slot.status.writing = true;
        slot.dirty_at = None;
        slot.dirty_requested = false;
    }
}

impl<D: SaveDocument> Plugin for SavePlugin<D> {
    fn build(&self, app: &mut App) {
        let store = SaveStore::new(&self.dir, &self.file_name, self.key.clone())
            .with_max_size(self.max_size);
        let status = SaveStatus {
            path: store.primary_path(),
            ..Default::default()
        };
        app.insert_resource(SaveSlot::<D> {
            writer: SaveWriter::new(store.clone()),
            store,
            status,
            autosave: self.autosave,
            dirty_at: None,
            dirty_requested: false,
            _document: PhantomData,
        })
        .add_message::<SaveRequest<D>>()
        .add_message::<ReloadRequest<D>>()
        .add_message::<SaveLoaded<D>>()
        .add_message::<SaveWritten<D>>()
        .add_systems(PreStartup, SaveSlot::<D>::load_into)
        .add_systems(Last, drive_saves::<D>.in_set(SaveSystems::Write));
    }
}

fn drive_saves<D: SaveDocument>(world: &mut World) {
    let now = world
        .get_resource::<Time>()
        .map(|t| t.elapsed())
        .unwrap_or_default();
    let reload = drain::<ReloadRequest<D>>(world);
    let requested = drain::<SaveRequest<D>>(world);
    let exiting = world
        .get_resource::<Messages<AppExit>>()
        .is_some_and(|m| !m.is_empty());
    if reload {
        SaveSlot::<D>::load_into(world);
    }
    let Some(mut slot) = world.get_resource_mut::<SaveSlot<D>>() else {
        return;
    };
    if slot.dirty_requested {
        slot.dirty_requested = false;
        slot.dirty_at = Some(now);
    }
    let autosave_due = match (slot.autosave, slot.dirty_at) {
        (Some(delay), Some(at)) => now.saturating_sub(at) >= delay,
        _ => false,
    };
    let flush_on_exit = exiting && slot.status.dirty;
    if requested || autosave_due || flush_on_exit {
        SaveSlot::<D>::save_now(world);
    }
    let Some(mut slot) = world.get_resource_mut::<SaveSlot<D>>() else {
        return;
    };
    if exiting {
        slot.writer.flush();
    }
    let results = slot.writer.take_results();
    slot.status.writing = slot.writer.is_busy();
    for r in &results {
        match &r.result {
            Ok(_) => {
                slot.status.writes += 1;
                slot.status.last_saved_ticks = Some(r.finished_ticks);
                slot.status.last_error = None;
            }
            Err(e) => slot.status.last_error = Some(e.clone()),
        }
    }
    for r in results {
        world.write_message(SaveWritten::<D> {
            result: r.result,
            _document: PhantomData,
        });
    }
}

/// Whether any message of type `M` arrived since the last call; consumes them.
fn drain<M: Message>(world: &mut World) -> bool {
    world
        .get_resource_mut::<Messages<M>>()
        .is_some_and(|mut m| m.drain().count() > 0)
}
