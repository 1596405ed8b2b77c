//! Bevy glue: [`SavePlugin`] holds one save slot; games add documents to it
//! ([`SaveAppExt::add_save_document`]); all of them load at startup and are
//! committed together on request, after changes (debounced), on retry after
//! a failure, and at exit.

use std::any::Any;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use bevy::app::{App, AppExit, Last, Plugin, PreStartup};
use bevy::ecs::message::MessageCursor;
use bevy::ecs::prelude::*;
use bevy::log::{error, info, warn};
use bevy::reflect::Reflect;
use bevy::reflect::std_traits::ReflectDefault;
use bevy::time::Time;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::SaveError;
use crate::fs::SaveFs;
use crate::signed::SaveKey;
use crate::store::{DocSpec, DocumentLoad, LoadOutcome, SaveStore};
use crate::writer::{SaveWriter, WriteResult};

/// A document an app saves: how to make a fresh one, how to take one from
/// the world, and how to put one into it.
///
/// The JSON must be an object with a top-level `SchemaVersion` number (1 or
/// more); files with a higher version than
/// [`SCHEMA_VERSION`](Self::SCHEMA_VERSION) are kept untouched and saving
/// pauses. `SaveCounter` is reserved: the store adds it.
pub trait SaveDocument: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// Newest schema version this build reads and writes.
    const SCHEMA_VERSION: u32;
    /// A document for a first start (or when no copy can be used).
    fn fresh() -> Self;
    /// Takes the document from the world (on the main thread; keep it cheap:
    /// serializing and writing happen on the writer thread).
    fn capture(world: &mut World) -> Self;
    /// Puts a loaded (or fresh) document into the world. `load` says where
    /// it came from; check values here and report what is off.
    ///
    /// It runs in `PreStartup`, before any asset has loaded: the world
    /// state's flags files have not merged yet, so a flag or counter named
    /// here is not known (`WorldState::set_counter` says there is no such
    /// name). Keep such values in a resource and put them into the world
    /// state from a system that runs once the files merged
    /// (`.run_if(world_state_ready)`), as the Drone quest's run document
    /// does.
    fn apply(self, world: &mut World, load: &DocumentLoad);
}

/// What the slot does when a document that belongs to the loaded save point
/// has no usable copy of it (deleted, or every copy damaged): the load
/// reports it either way (`world_state.json is missing: the slot was saved
/// at point 4`), never as a first start.
///
/// Neither policy can pay a reward twice when the reward and the record
/// that it was paid live in one document (see the crate docs, "Effects that
/// happen once").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Reflect)]
#[reflect(Debug, Default)]
pub enum MissingDocument {
    /// The missing document starts fresh, the others keep their save, and
    /// the next commit writes the slot whole again (the default).
    #[default]
    StartFresh,
    /// As [`StartFresh`](Self::StartFresh), but saving pauses
    /// ([`SaveError::MissingDocument`]): the slot's files stay as they are,
    /// so that a player (or support) can put the file back; the next start
    /// with it loads everything.
    PauseSaving,
}

/// How failed saves are retried: `first`, then doubling up to `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Delay after the first failure.
    pub first: Duration,
    /// Longest delay.
    pub max: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            first: Duration::from_secs(1),
            max: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The delay after `failures` failures in a row (1 or more).
    pub fn delay(&self, failures: u32) -> Duration {
        let factor = 1u32 << failures.saturating_sub(1).min(16);
        self.first.saturating_mul(factor).min(self.max)
    }
}

/// One save slot in `dir`: loads its documents at startup (primary, backup
/// or a complete temp file, the newest save point all share) and commits
/// them together.
///
/// - [`SaveRequest`]: save now. [`ReloadRequest`]: load from disk again.
/// - [`SaveSlot::mark_dirty`]: autosave [`autosave`](Self::autosave) after
///   the first change not saved yet.
/// - A failed commit keeps the changes dirty, sends [`SaveFailed`] and is
///   retried ([`RetryPolicy`]) and at [`AppExit`].
/// - [`SaveStatus`] (a resource) says where things stand.
#[derive(Debug, Clone)]
pub struct SavePlugin {
    /// Folder of the save files (created if missing).
    pub dir: PathBuf,
    /// The signing key.
    pub key: SaveKey,
    /// Autosave this long after the first change not saved yet (changes
    /// in that time go in the same save; a game that changes something all
    /// the time saves this often); `None` disables autosave.
    pub autosave: Option<Duration>,
    /// Files above this size are refused unread.
    pub max_size: u64,
    /// Quarantined (bad) files kept per document, the newest.
    pub quarantine_keep: usize,
    /// Retries after a failed save.
    pub retry: RetryPolicy,
    /// The file system (`None`: the real one).
    pub fs: Option<Arc<dyn SaveFs>>,
    /// What to do when a document of the slot is missing.
    pub missing_document: MissingDocument,
    /// What to do when no file of the slot verifies while one fails only
    /// its signature (another key, or edited in both copies).
    pub unverified: crate::UnverifiedSave,
}

impl SavePlugin {
    /// A slot in `dir`, autosaving 1 s after changes.
    pub fn new(dir: impl Into<PathBuf>, key: SaveKey) -> Self {
        SavePlugin {
            dir: dir.into(),
            key,
            autosave: Some(Duration::from_secs(1)),
            max_size: crate::store::DEFAULT_MAX_SIZE,
            quarantine_keep: crate::store::DEFAULT_QUARANTINE_KEEP,
            retry: RetryPolicy::default(),
            fs: None,
            missing_document: MissingDocument::default(),
            unverified: crate::UnverifiedSave::default(),
        }
    }

    /// Sets what to do when no file of the slot verifies while one fails
    /// only its signature ([`UnverifiedSave`](crate::UnverifiedSave)): keep
    /// it and pause saving (the default), or start fresh (a game that
    /// changed its key on purpose).
    pub fn with_unverified(mut self, policy: crate::UnverifiedSave) -> Self {
        self.unverified = policy;
        self
    }

    /// Sets what to do when a document of the slot is missing.
    pub fn with_missing_document(mut self, policy: MissingDocument) -> Self {
        self.missing_document = policy;
        self
    }

    /// Sets the autosave delay (`None`: only on request and at exit).
    pub fn with_autosave(mut self, delay: Option<Duration>) -> Self {
        self.autosave = delay;
        self
    }

    /// Uses another file system (tests: [`MemFs`](crate::testing::MemFs)).
    pub fn with_fs(mut self, fs: Arc<dyn SaveFs>) -> Self {
        self.fs = Some(fs);
        self
    }

    /// Keeps the newest `n` quarantined files per document.
    pub fn with_quarantine_keep(mut self, n: usize) -> Self {
        self.quarantine_keep = n;
        self
    }

    /// Sets the retry policy.
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }
}

/// The save's system sets.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SaveSystems {
    /// In `Last`: handles requests, autosave, retries and finished writes.
    Write,
    /// In [`SaveExit`], after `Last`: the exit save.
    Exit,
}

/// Save every document of the slot now.
#[derive(Message, Debug, Clone, Copy, Default, Reflect)]
#[reflect(Debug, Default)]
pub struct SaveRequest;

/// Load the slot from disk again and apply it (the inspector's "reload").
#[derive(Message, Debug, Clone, Copy, Default, Reflect)]
#[reflect(Debug, Default)]
pub struct ReloadRequest;

/// The slot was loaded (at startup or on reload).
#[derive(Message, Debug, Clone, Reflect)]
#[reflect(Debug, from_reflect = false)]
pub struct SaveLoaded {
    /// What was found and done (shown through `Debug`).
    #[reflect(ignore)]
    pub outcome: LoadOutcome,
}

/// A save point landed: every document's primary and backup hold it.
#[derive(Message, Debug, Clone, Copy, Reflect)]
#[reflect(Debug)]
pub struct SaveCompleted {
    /// The save point.
    pub save_point: u64,
    /// Bytes of the signed files.
    pub bytes: usize,
}

/// A save did not land. The changes stay in memory, dirty.
#[derive(Message, Debug, Clone, Reflect)]
#[reflect(Debug, from_reflect = false)]
pub struct SaveFailed {
    /// What went wrong (shown through `Debug` and [`SaveFailed::describe`]).
    #[reflect(ignore)]
    pub error: SaveError,
    /// Failures in a row.
    pub attempt: u32,
    /// When it is tried again (`None`: at exit, or paused).
    pub retry_in: Option<Duration>,
    /// Whether this was the save at exit (the changes are then lost when
    /// the process ends).
    pub at_exit: bool,
}

impl SaveFailed {
    /// One line for players and logs.
    pub fn describe(&self) -> String {
        match (self.at_exit, self.retry_in) {
            (true, _) => format!(
                "SAVE FAILED at exit: {}; the progress since the last save is not on disk",
                self.error
            ),
            (false, Some(d)) => format!(
                "SAVE FAILED (attempt {}): {}; progress is kept in memory, retrying in {} s",
                self.attempt,
                self.error,
                d.as_secs_f32()
            ),
            (false, None) => format!("SAVE FAILED: {}; progress is kept in memory", self.error),
        }
    }
}

/// Where the save slot stands: the game's HUD and the inspector show it.
#[derive(Resource, Debug, Clone, Default, PartialEq, Reflect)]
#[reflect(Resource, Debug, Default)]
pub struct SaveStatus {
    /// The save folder.
    pub dir: PathBuf,
    /// The documents' file names.
    pub documents: Vec<String>,
    /// What the last load found.
    #[reflect(ignore)]
    pub last_load: Option<LoadOutcome>,
    /// The save point on disk (loaded or last committed).
    pub save_point: Option<u64>,
    /// When the last commit landed (.NET ticks).
    pub last_saved_ticks: Option<i64>,
    /// Commits since startup.
    pub writes: u64,
    /// Whether a commit is queued or being written.
    pub writing: bool,
    /// Whether there are changes not on disk yet.
    pub dirty: bool,
    /// The last failure, cleared by the next success.
    pub last_error: Option<String>,
    /// Failures in a row.
    pub failures: u32,
    /// When the next retry is due, from now.
    pub retry_in: Option<Duration>,
    /// Why saving is paused (a newer version's file is kept untouched).
    pub paused: Option<String>,
}

impl SaveStatus {
    /// What the last load found, while it is still news: `None` before any
    /// load, and after a first start once the first save landed ("no save
    /// yet" is no longer true).
    pub fn load_summary(&self) -> Option<String> {
        let outcome = self.last_load.as_ref()?;
        if outcome.is_first_start() && self.writes > 0 {
            return None;
        }
        Some(outcome.describe())
    }

    /// One line for a HUD.
    pub fn summary(&self) -> String {
        if let Some(p) = &self.paused {
            return format!("saving paused: {p}");
        }
        if let Some(e) = &self.last_error {
            // The retry is due in the frame its delay runs out: "now", not
            // "in 0 s".
            let retry = self.retry_in.map_or(String::new(), |d| {
                let secs = d.as_secs_f32().ceil();
                if secs < 1.0 {
                    ", retrying now".to_owned()
                } else {
                    format!(", retrying in {secs:.0} s")
                }
            });
            return format!(
                "SAVE FAILED ({}x): {e}{retry}; progress is kept in memory",
                self.failures
            );
        }
        if self.writing {
            return "saving...".into();
        }
        match (self.dirty, self.save_point) {
            (true, _) => "unsaved changes".into(),
            (false, Some(n)) => format!("saved (save point {n})"),
            (false, None) => "no save yet".into(),
        }
    }
}

type CaptureFn = fn(&mut World, String) -> Box<dyn FnOnce() -> Result<Vec<u8>, SaveError> + Send>;
type ApplyFn = fn(&mut World, Option<Box<dyn Any + Send>>, &DocumentLoad);

#[derive(Clone)]
struct DocEntry {
    spec: DocSpec,
    capture: CaptureFn,
    apply: ApplyFn,
}

fn capture_erased<D: SaveDocument>(
    world: &mut World,
    file: String,
) -> Box<dyn FnOnce() -> Result<Vec<u8>, SaveError> + Send> {
    let document = D::capture(world);
    Box::new(move || {
        serde_json::to_vec_pretty(&document).map_err(|e| SaveError::Serialize {
            file,
            message: e.to_string(),
        })
    })
}

fn apply_erased<D: SaveDocument>(
    world: &mut World,
    parsed: Option<Box<dyn Any + Send>>,
    load: &DocumentLoad,
) {
    let document = parsed
        .and_then(|b| b.downcast::<D>().ok())
        .map_or_else(D::fresh, |b| *b);
    document.apply(world, load);
}

/// The save slot: its store, documents, writer and bookkeeping.
///
/// Reflected without fields: the store and writer are not data to edit
/// (read [`SaveStatus`] instead).
#[derive(Resource, Reflect)]
#[reflect(from_reflect = false)]
pub struct SaveSlot {
    #[reflect(ignore)]
    store: SaveStore,
    #[reflect(ignore)]
    docs: Vec<DocEntry>,
    #[reflect(ignore)]
    writer: SaveWriter,
    autosave: Option<Duration>,
    #[reflect(ignore)]
    retry: RetryPolicy,
    /// Bumped by every change; `saved_gen` is the newest one on disk.
    change_gen: u64,
    saved_gen: u64,
    /// Time of the last change not yet saved (autosave debounce).
    dirty_since: Option<Duration>,
    /// The exit save ran.
    exit_saved: bool,
    marked: bool,
    next_save_point: u64,
    failures: u32,
    retry_at: Option<Duration>,
    #[reflect(ignore)]
    paused: Option<SaveError>,
    missing_document: MissingDocument,
}

impl SaveSlot {
    /// The store (folder, key, documents, file system).
    pub fn store(&self) -> &SaveStore {
        &self.store
    }

    /// Something that belongs in the save changed: autosave after the delay.
    pub fn mark_dirty(&mut self) {
        self.marked = true;
    }

    /// Whether changes are not on disk yet.
    pub fn is_dirty(&self) -> bool {
        self.marked || self.change_gen > self.saved_gen
    }

    /// Counts a [`mark_dirty`](Self::mark_dirty) since the last frame as
    /// a change, at `now`.
    fn take_mark(&mut self, now: Duration) {
        if self.marked {
            self.marked = false;
            self.change_gen += 1;
            // From the first change not saved yet: a game that changes a
            // value every half second never had a second without changes,
            // and was never autosaved (a crash lost everything since the
            // start).
            self.dirty_since.get_or_insert(now);
        }
    }

    /// Blocks until the queued commit (if any) has landed or failed; the
    /// result is handled on the next update (or at once by
    /// [`finish_writes`](Self::finish_writes)).
    pub fn flush(&self) {
        self.writer.flush();
    }

    /// Blocks until the queued commit (if any) has landed or failed and
    /// takes its result now: [`SaveStatus`] says "saved" (or the failure)
    /// right away, and [`SaveCompleted`] / [`SaveFailed`] are sent. For
    /// headless tools and tests that print the status after a save.
    pub fn finish_writes(world: &mut World) {
        let Some(slot) = world.get_resource::<SaveSlot>() else {
            return;
        };
        slot.writer.flush();
        let results = slot.writer.take_results();
        let now = world
            .get_resource::<Time>()
            .map(|t| t.elapsed())
            .unwrap_or_default();
        absorb(world, results, now, false);
        refresh_status(world, now);
    }

    /// Adds a document (before startup; see [`SaveAppExt`]).
    fn add_document<D: SaveDocument>(&mut self, file: String) {
        if self.docs.iter().any(|d| d.spec.file == file) {
            warn!("save document {file} was added twice; the second is ignored");
            return;
        }
        self.docs.push(DocEntry {
            spec: DocSpec::new::<D>(file, D::SCHEMA_VERSION),
            capture: capture_erased::<D>,
            apply: apply_erased::<D>,
        });
        self.store = self
            .store
            .clone()
            .with_documents(self.docs.iter().map(|d| d.spec.clone()));
    }

    /// Loads every document from disk and applies it (startup, reload).
    pub fn load_into(world: &mut World) {
        let Some(slot) = world.get_resource::<SaveSlot>() else {
            return;
        };
        // Let a queued write land first, so a reload sees it.
        slot.writer.flush();
        let store = slot.store.clone();
        let docs = slot.docs.clone();
        let mut loaded = store.load();
        let outcome = loaded.outcome.clone();
        if outcome.is_clean() || outcome.is_first_start() {
            info!("save: {}", outcome.describe());
        } else {
            warn!("save: {}", outcome.describe());
        }
        for (i, entry) in docs.iter().enumerate() {
            (entry.apply)(world, loaded.documents[i].take(), &outcome.documents[i]);
        }
        let Some(mut slot) = world.get_resource_mut::<SaveSlot>() else {
            return;
        };
        slot.next_save_point = slot.next_save_point.max(loaded.next_save_point);
        let missing = match slot.missing_document {
            MissingDocument::StartFresh => None,
            MissingDocument::PauseSaving => {
                outcome
                    .missing()
                    .next()
                    .map(|d| SaveError::MissingDocument {
                        file: d.file.clone(),
                        save_point: d.missing_at.unwrap_or_default(),
                    })
            }
        };
        slot.paused = outcome
            .newer()
            .map(|(file, found, supported)| SaveError::NewerSaveInPlace {
                file: file.to_owned(),
                found,
                supported,
            })
            .or(outcome.other_key.then_some(SaveError::SignedWithAnotherKey))
            .or(missing);
        if let Some(p) = &slot.paused {
            warn!("{p}");
        }
        slot.saved_gen = slot.change_gen;
        // A document of the loaded save point that started fresh (missing,
        // every copy bad or of another point) is not on disk as the game
        // now holds it: the slot is written whole again at the next
        // autosave (it waited for a change, and every launch said the
        // document was missing while the status said "saved").
        slot.marked = slot.paused.is_none()
            && outcome.save_point.is_some()
            && outcome.documents.iter().any(|d| d.source.is_none());
        slot.dirty_since = None;
        slot.failures = 0;
        slot.retry_at = None;
        let paused = slot.paused.as_ref().map(|p| p.to_string());
        let mut status = world.resource_mut::<SaveStatus>();
        status.save_point = outcome.save_point;
        status.last_load = Some(outcome.clone());
        status.paused = paused;
        status.last_error = None;
        status.failures = 0;
        status.retry_in = None;
        status.dirty = false;
        world.write_message(SaveLoaded { outcome });
    }

    /// Captures every document now and queues one commit.
    pub fn save_now(world: &mut World) {
        let Some(slot) = world.get_resource::<SaveSlot>() else {
            return;
        };
        let docs = slot.docs.clone();
        let captures: Vec<_> = docs
            .iter()
            .map(|d| (d.capture)(world, d.spec.file.clone()))
            .collect();
        let Some(mut slot) = world.get_resource_mut::<SaveSlot>() else {
            return;
        };
        let store = slot.store.clone();
        let save_point = slot.next_save_point;
        slot.next_save_point = save_point.saturating_add(1);
        let tag = slot.change_gen;
        let paused = slot.paused.clone();
        slot.dirty_since = None;
        slot.writer.submit(
            tag,
            Box::new(move || {
                if let Some(p) = paused {
                    return Err(p);
                }
                let bodies = captures
                    .into_iter()
                    .map(|c| c())
                    .collect::<Result<Vec<_>, _>>()?;
                store.commit_bodies(&bodies, save_point)
            }),
        );
    }
}

/// Registers save documents on an app.
pub trait SaveAppExt {
    /// Adds document `D`, saved as `file` in the slot's folder, committed
    /// together with the slot's other documents. Add [`SavePlugin`] first.
    fn add_save_document<D: SaveDocument>(&mut self, file: impl Into<String>) -> &mut Self;
}

impl SaveAppExt for App {
    fn add_save_document<D: SaveDocument>(&mut self, file: impl Into<String>) -> &mut Self {
        let file = file.into();
        match self.world_mut().get_resource_mut::<SaveSlot>() {
            Some(mut slot) => {
                slot.add_document::<D>(file);
                let docs = slot
                    .store
                    .documents()
                    .iter()
                    .map(|d| d.file.clone())
                    .collect();
                self.world_mut().resource_mut::<SaveStatus>().documents = docs;
            }
            None => {
                error!("add_save_document({file}): add SavePlugin first; the document is not saved")
            }
        }
        self
    }
}

impl Plugin for SavePlugin {
    fn build(&self, app: &mut App) {
        app.register_type::<SaveStatus>()
            .register_type::<SaveSlot>()
            .register_type::<SaveRequest>()
            .register_type::<ReloadRequest>()
            .register_type::<SaveLoaded>()
            .register_type::<SaveCompleted>()
            .register_type::<SaveFailed>();
        // Anyone can re-sign a save made with the public key: say so once.
        if self.key.bytes() == SaveKey::DEVELOPMENT.as_bytes() {
            warn!(
                "save: {} is signed with the public development key (set WYRD_SAVE_KEY, or your own SaveKey, for a release: anyone can re-sign these saves)",
                self.dir.display()
            );
        }
        let mut store = SaveStore::new(&self.dir, self.key.clone())
            .with_max_size(self.max_size)
            .with_quarantine_keep(self.quarantine_keep)
            .with_unverified(self.unverified);
        if let Some(fs) = &self.fs {
            store = store.with_shared_fs(fs.clone());
        }
        app.insert_resource(SaveStatus {
            dir: self.dir.clone(),
            ..Default::default()
        })
        .insert_resource(SaveSlot {
            store,
            docs: Vec::new(),
            writer: SaveWriter::new(),
            autosave: self.autosave,
            retry: self.retry,
            change_gen: 0,
            saved_gen: 0,
            dirty_since: None,
            marked: false,
            exit_saved: false,
            next_save_point: 1,
            failures: 0,
            retry_at: None,
            paused: None,
            missing_document: self.missing_document,
        })
        .add_message::<SaveRequest>()
        .add_message::<ReloadRequest>()
        .add_message::<SaveLoaded>()
        .add_message::<SaveCompleted>()
        .add_message::<SaveFailed>()
        .add_systems(PreStartup, SaveSlot::load_into)
        .add_systems(Last, drive_saves.in_set(SaveSystems::Write))
        .add_systems(SaveExit, save_at_exit.in_set(SaveSystems::Exit));
        app.init_schedule(SaveExit);
        app.world_mut()
            .resource_mut::<bevy::app::MainScheduleOrder>()
            .insert_after(Last, SaveExit);
    }
}

/// The schedule after `Last` that takes the exit save
/// ([`SaveSystems::Exit`]): an [`AppExit`] sent anywhere in the frame,
/// `Last` included, and every change marked before it, are seen (a game's
/// exit system in `Last` after the save's systems skipped the save of its
/// last seconds). Systems that mark the slot dirty at exit go in it before
/// [`SaveSystems::Exit`].
#[derive(bevy::ecs::schedule::ScheduleLabel, Debug, Clone, PartialEq, Eq, Hash)]
pub struct SaveExit;

/// At exit: what is in flight lands first; whatever is still not on disk
/// then gets one last commit, and a failure of that one is reported as
/// lost at exit.
fn save_at_exit(world: &mut World) {
    let exiting = world
        .get_resource::<Messages<AppExit>>()
        .is_some_and(|m| !m.is_empty());
    if !exiting
        || world
            .get_resource::<SaveSlot>()
            .is_none_or(|s| s.exit_saved)
    {
        return;
    }
    let now = world
        .get_resource::<Time>()
        .map(|t| t.elapsed())
        .unwrap_or_default();
    let mut slot = world.resource_mut::<SaveSlot>();
    slot.exit_saved = true;
    slot.take_mark(now);
    world.resource::<SaveSlot>().writer.flush();
    let results = world.resource::<SaveSlot>().writer.take_results();
    absorb(world, results, now, false);
    if world.resource::<SaveSlot>().is_dirty() {
        SaveSlot::save_now(world);
        world.resource::<SaveSlot>().writer.flush();
        let results = world.resource::<SaveSlot>().writer.take_results();
        absorb(world, results, now, true);
    }
    refresh_status(world, now);
}

/// Applies finished commits: success clears the dirty mark up to the
/// change it captured; failure schedules a retry and reports.
fn absorb(world: &mut World, results: Vec<WriteResult>, now: Duration, at_exit: bool) {
    for r in results {
        let mut slot = world.resource_mut::<SaveSlot>();
        match r.result {
            Ok(report) => {
                slot.saved_gen = slot.saved_gen.max(r.tag);
                slot.failures = 0;
                slot.retry_at = None;
                let mut status = world.resource_mut::<SaveStatus>();
                status.writes += 1;
                status.save_point = Some(report.save_point);
                status.last_saved_ticks = Some(r.finished_ticks);
                status.last_error = None;
                status.failures = 0;
                world.write_message(SaveCompleted {
                    save_point: report.save_point,
                    bytes: report.bytes,
                });
            }
            Err(error) => {
                slot.failures += 1;
                let paused = matches!(
                    error,
                    SaveError::NewerSaveInPlace { .. }
                        | SaveError::MissingDocument { .. }
                        | SaveError::SignedWithAnotherKey
                );
                let retry_in = (!at_exit && !paused).then(|| slot.retry.delay(slot.failures));
                slot.retry_at = retry_in.map(|d| now + d);
                let message = SaveFailed {
                    error,
                    attempt: slot.failures,
                    retry_in,
                    at_exit,
                };
                error!("{}", message.describe());
                let mut status = world.resource_mut::<SaveStatus>();
                status.last_error = Some(message.error.to_string());
                status.failures = message.attempt;
                world.write_message(message);
            }
        }
    }
}

fn drive_saves(
    world: &mut World,
    mut reloads: Local<MessageCursor<ReloadRequest>>,
    mut saves: Local<MessageCursor<SaveRequest>>,
) {
    let now = world
        .get_resource::<Time>()
        .map(|t| t.elapsed())
        .unwrap_or_default();
    let reload = arrived(world, &mut reloads);
    let requested = arrived(world, &mut saves);
    if reload {
        SaveSlot::load_into(world);
    }
    let Some(mut slot) = world.get_resource_mut::<SaveSlot>() else {
        return;
    };
    slot.take_mark(now);
    let results = slot.writer.take_results();
    absorb(world, results, now, false);
    let slot = world.resource::<SaveSlot>();
    let dirty = slot.change_gen > slot.saved_gen;
    let busy = slot.writer.is_busy();
    let autosave_due = slot.failures == 0
        && match (slot.autosave, slot.dirty_since) {
            (Some(delay), Some(at)) => now.saturating_sub(at) >= delay,
            _ => false,
        };
    let retry_due = slot.failures > 0
        && dirty
        && !busy
        && slot.paused.is_none()
        && slot.retry_at.is_some_and(|at| now >= at);
    if requested || autosave_due || retry_due {
        SaveSlot::save_now(world);
    }
    refresh_status(world, now);
}

/// Copies the slot's bookkeeping into [`SaveStatus`].
fn refresh_status(world: &mut World, now: Duration) {
    let slot = world.resource::<SaveSlot>();
    let (dirty, writing) = (slot.is_dirty(), slot.writer.is_busy());
    let retry_in = slot.retry_at.map(|at| at.saturating_sub(now));
    let mut status = world.resource_mut::<SaveStatus>();
    status.dirty = dirty;
    status.writing = writing;
    status.retry_in = retry_in;
}

/// Whether any message of type `M` arrived since the last call. Read with
/// this system's own cursor, like a `MessageReader`: other readers of the
/// same requests still see them.
fn arrived<M: Message>(world: &World, cursor: &mut MessageCursor<M>) -> bool {
    world
        .get_resource::<Messages<M>>()
        .is_some_and(|m| cursor.read(m).count() > 0)
}
