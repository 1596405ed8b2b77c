//! A save slot on disk: several documents committed together, each with a
//! primary, a backup and a temp file; loading picks the newest complete save
//! point and repairs the rest. The format is in the crate docs.

use bevy::reflect::std_traits::ReflectDefault;
use std::any::Any;
use std::collections::BTreeSet;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;

use crate::error::{LoadError, SaveError};
use crate::fs::{OsFs, ReadBytes, SaveFs};
use crate::signed::{SaveKey, insert_slot_fields, parse_body, read_header};
use crate::ticks::utc_file_stamp;

/// Default limit on the size of a save file: 16 MiB.
pub const DEFAULT_MAX_SIZE: u64 = 16 * 1024 * 1024;

/// Default number of quarantined (bad) files kept per document.
pub const DEFAULT_QUARANTINE_KEEP: usize = 10;

type ParseFn = fn(&[u8]) -> Result<Box<dyn Any + Send>, LoadError>;

fn parse_boxed<T: DeserializeOwned + Send + 'static>(
    body: &[u8],
) -> Result<Box<dyn Any + Send>, LoadError> {
    parse_body::<T>(body).map(|d| Box::new(d) as Box<dyn Any + Send>)
}

/// One document of a slot: its file name, the newest schema version this
/// build reads, and how to parse it.
#[derive(Clone)]
pub struct DocSpec {
    /// File name of the primary, e.g. `world_state.json`.
    pub file: String,
    /// Newest `SchemaVersion` this build reads; newer files are kept
    /// untouched.
    pub schema: u32,
    parse: ParseFn,
}

impl fmt::Debug for DocSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DocSpec")
            .field("file", &self.file)
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl DocSpec {
    /// A document parsed as `T`.
    pub fn new<T: DeserializeOwned + Send + 'static>(file: impl Into<String>, schema: u32) -> Self {
        DocSpec {
            file: file.into(),
            schema,
            parse: parse_boxed::<T>,
        }
    }

    /// A document parsed as any JSON ([`serde_json::Value`]): tools that do
    /// not know the game's types.
    pub fn json(file: impl Into<String>, schema: u32) -> Self {
        DocSpec::new::<serde_json::Value>(file, schema)
    }
}

/// Which file of a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CopyKind {
    /// `NAME`.
    Primary,
    /// `NAME.bak`: the same save point as the primary once a save completed.
    Backup,
    /// `NAME.tmp`: what an interrupted save left.
    Temp,
}

impl CopyKind {
    /// The three, in the order they are preferred at equal save points.
    pub const ALL: [CopyKind; 3] = [CopyKind::Primary, CopyKind::Backup, CopyKind::Temp];

    /// Words for players and logs.
    pub fn describe(self) -> &'static str {
        match self {
            CopyKind::Primary => "the save",
            CopyKind::Backup => "its backup",
            CopyKind::Temp => "the complete temp file an interrupted save left",
        }
    }
}

/// What a copy was found to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It verifies and parses; it belongs to this save point.
    Valid {
        /// Its `SaveCounter`.
        save_point: u64,
    },
    /// It cannot be used, and why.
    Invalid(LoadError),
}

impl Verdict {
    fn save_point(&self) -> Option<u64> {
        match self {
            Verdict::Valid { save_point } => Some(*save_point),
            Verdict::Invalid(_) => None,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Valid { save_point } => write!(f, "valid, save point {save_point}"),
            Verdict::Invalid(e) => write!(f, "{e}"),
        }
    }
}

/// One file of a document, as found at load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyReport {
    /// Primary, backup or temp.
    pub kind: CopyKind,
    /// Where it is (was, if quarantined).
    pub path: PathBuf,
    /// What it was found to be.
    pub verdict: Verdict,
    /// Where a bad copy was moved (never deleted at load).
    pub quarantined_to: Option<PathBuf>,
}

/// How one document of the slot was loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentLoad {
    /// The document's file name.
    pub file: String,
    /// The copy that was loaded; `None`: a fresh document.
    pub source: Option<CopyKind>,
    /// Primary, backup and temp, in that order.
    pub copies: Vec<CopyReport>,
    /// The save point the slot was loaded at when this document has no
    /// usable copy of it although it belongs there: the slot's other
    /// documents list it as one of theirs (`SlotDocuments`), or it has
    /// copies of other save points only. `None` for a document the slot
    /// never had (a first start, a document a later version added).
    pub missing_at: Option<u64>,
}

impl DocumentLoad {
    /// The report of one copy.
    pub fn copy(&self, kind: CopyKind) -> &CopyReport {
        &self.copies[kind as usize]
    }

    /// `(found, supported)` schema versions if a kept copy (primary or
    /// backup) is from a newer version of the game.
    pub fn newer(&self) -> Option<(u64, u32)> {
        self.copies[..2].iter().find_map(|c| match &c.verdict {
            Verdict::Invalid(LoadError::NewerSchema { found, supported }) => {
                Some((*found, *supported))
            }
            _ => None,
        })
    }

    /// Whether none of its three files exists.
    pub fn all_missing(&self) -> bool {
        self.copies
            .iter()
            .all(|c| c.verdict == Verdict::Invalid(LoadError::Missing))
    }

    fn describe(&self, save_point: Option<u64>) -> Option<String> {
        let primary = self.copy(CopyKind::Primary);
        let why = |c: &CopyReport| match (&c.verdict, save_point) {
            (Verdict::Valid { save_point: s }, Some(n)) if *s < n => {
                format!("older, save point {s}")
            }
            (Verdict::Valid { save_point: s }, Some(n)) if *s > n => {
                format!("save point {s}, which the other documents did not reach")
            }
            (v, _) => v.to_string(),
        };
        let mut text = match self.source {
            Some(CopyKind::Primary) => {
                let backup = self.copy(CopyKind::Backup);
                match &backup.verdict {
                    // A first save interrupted after its primaries: there
                    // was never a backup (the repair writes one). Later,
                    // every completed save wrote one: it went since.
                    Verdict::Invalid(LoadError::Missing) if save_point.is_none_or(|n| n <= 1) => {
                        format!("{}: it had no backup yet", self.file)
                    }
                    Verdict::Invalid(LoadError::Missing) => format!(
                        "{}: its backup is missing (deleted since it was written); written again",
                        self.file
                    ),
                    Verdict::Invalid(_) => {
                        format!("{}: backup unusable ({})", self.file, why(backup))
                    }
                    Verdict::Valid { save_point: s } if Some(*s) != save_point => {
                        format!("{}: backup was {}", self.file, why(backup))
                    }
                    _ => String::new(),
                }
            }
            Some(kind) => format!(
                "{}: from {} (the save: {})",
                self.file,
                kind.describe(),
                why(primary)
            ),
            None if self.missing_at.is_some() => {
                let n = self.missing_at.unwrap_or_default();
                let found: Vec<String> = self
                    .copies
                    .iter()
                    .filter(|c| c.verdict != Verdict::Invalid(LoadError::Missing))
                    .map(|c| format!("{}: {}", c.kind.describe(), why(c)))
                    .collect();
                if found.is_empty() {
                    format!(
                        "{} is missing: the slot was saved at point {n}; started fresh",
                        self.file
                    )
                } else {
                    format!(
                        "{} has no usable copy of save point {n}, the one the slot loads ({}); started fresh",
                        self.file,
                        found.join("; ")
                    )
                }
            }
            None if self.all_missing() => match save_point {
                Some(_) => format!("{}: no save file yet, started fresh", self.file),
                None => String::new(),
            },
            None if matches!(self.copy(CopyKind::Temp).verdict, Verdict::Valid { .. })
                && !self.copies[..2]
                    .iter()
                    .any(|c| matches!(c.verdict, Verdict::Valid { .. })) =>
            {
                format!(
                    "{}: only the temp file of an interrupted save ({}), which another document never reached: not used, started fresh",
                    self.file,
                    why(self.copy(CopyKind::Temp))
                )
            }
            None => format!(
                "{}: no usable copy (the save: {}; its backup: {}), started fresh",
                self.file,
                why(primary),
                why(self.copy(CopyKind::Backup))
            ),
        };
        // Bad copies, and valid ones of another save point (a document
        // that started fresh keeps them aside, not overwritten).
        for (label, valid) in [("bad copy", false), ("copy of another save point", true)] {
            let kept: Vec<String> = self
                .copies
                .iter()
                .filter(|c| matches!(c.verdict, Verdict::Valid { .. }) == valid)
                .filter_map(|c| c.quarantined_to.as_ref())
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            if !kept.is_empty() {
                if text.is_empty() {
                    text = self.file.clone();
                }
                text.push_str(&format!("; {label} kept as {}", kept.join(", ")));
            }
        }
        (!text.is_empty()).then_some(text)
    }
}

/// What follows a document's name in a copy moved aside: `corrupt-` for a
/// bad copy, `kept-` for a valid copy of another save point (a save, not
/// damage: "corrupt" on it sent a player to delete their older save).
pub fn aside_prefix(valid: bool) -> &'static str {
    if valid { "kept-" } else { "corrupt-" }
}

/// A quarantined name's place in time, from what follows `.corrupt-`:
/// its UTC stamp, then its number in that second (`-2`, `-3`...; 1 without).
fn quarantine_order(rest: &str) -> (&str, u32) {
    match rest.split_once("Z-") {
        Some((stamp, n)) => (stamp, n.parse().unwrap_or(u32::MAX)),
        None => (rest.trim_end_matches('Z'), 1),
    }
}

/// Whether the slot's files are most likely signed with another key (or
/// edited in both copies): none verifies, a complete temp file included (a
/// temp that verifies proves the key), and a primary or backup fails its
/// signature and nothing else. Other damage beside it (an empty or cut
/// file) does not make it bad files: with the wrong key, moving them aside
/// was the loss.
fn signed_with_another_key(docs: &[Vec<Candidate>]) -> bool {
    let files = || docs.iter().flatten();
    !files().any(|c| matches!(c.verdict, Verdict::Valid { .. }))
        && files().any(|c| {
            c.kind != CopyKind::Temp && c.verdict == Verdict::Invalid(LoadError::SignatureMismatch)
        })
}

/// What loading a slot found and did. [`describe`](Self::describe) says it
/// in one line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LoadOutcome {
    /// The save point loaded (`None`: nothing could be loaded).
    pub save_point: Option<u64>,
    /// Per document, in slot order.
    pub documents: Vec<DocumentLoad>,
    /// Files rewritten so that primary and backup hold the loaded save point.
    pub repaired: Vec<PathBuf>,
    /// Why the repair failed (the load itself is fine).
    pub repair_error: Option<SaveError>,
    /// No save point is complete in every document that has a usable copy
    /// (several files bad): the slot loaded the save point most of them
    /// have (the newest among equals), and the documents without a copy of
    /// it started fresh. Documents are never loaded from different save
    /// points.
    pub mixed: bool,
    /// Quarantined files deleted to keep only the newest N.
    pub quarantine_removed: Vec<PathBuf>,
    /// No file of the slot verified, and one failed only its signature:
    /// the save was most likely signed with another key (a misconfigured
    /// or rotated `WYRD_SAVE_KEY`) or edited in both copies. With
    /// [`UnverifiedSave::KeepAndPause`] (the default) nothing was loaded,
    /// moved aside or rewritten, and [`SavePlugin`](crate::SavePlugin)
    /// pauses saving, so that the game started with the right key loads
    /// it. (Moved aside, one wrong launch made the next right one a fresh
    /// start.)
    pub other_key: bool,
}

impl LoadOutcome {
    /// Whether no file of any document exists: a first start.
    pub fn is_first_start(&self) -> bool {
        self.documents.iter().all(DocumentLoad::all_missing)
    }

    /// Documents that belong to the loaded save point but have no usable
    /// copy of it ([`DocumentLoad::missing_at`]): deleted or damaged, not
    /// a first start.
    pub fn missing(&self) -> impl Iterator<Item = &DocumentLoad> {
        self.documents.iter().filter(|d| d.missing_at.is_some())
    }

    /// Whether everything came from the primaries with nothing to report.
    pub fn is_clean(&self) -> bool {
        self.save_point.is_some()
            && !self.mixed
            && self.repair_error.is_none()
            && self.documents.iter().all(|d| {
                d.source == Some(CopyKind::Primary) && d.describe(self.save_point).is_none()
            })
    }

    /// The document of this file name.
    pub fn document(&self, file: &str) -> Option<&DocumentLoad> {
        self.documents.iter().find(|d| d.file == file)
    }

    /// The first document kept from a newer version of the game:
    /// `(file, found, supported)`. Saving is paused while there is one.
    pub fn newer(&self) -> Option<(&str, u64, u32)> {
        self.documents
            .iter()
            .find_map(|d| d.newer().map(|(f, s)| (d.file.as_str(), f, s)))
    }

    /// One line for players and logs: which copy, and why.
    pub fn describe(&self) -> String {
        if self.is_first_start() {
            return "no save yet: a fresh start".into();
        }
        if self.other_key {
            return "no save file verifies: the save was signed with another key (the game's key or WYRD_SAVE_KEY differs from the one that saved it) or edited in both copies; nothing loaded, no file moved, saving paused".into();
        }
        let mut parts = Vec::new();
        parts.push(match self.save_point {
            Some(n) if self.mixed => format!(
                "loaded save point {n} (no save point is complete in all documents; this one is in most of them)"
            ),
            Some(n) => format!("loaded save point {n}"),
            None => "started fresh".into(),
        });
        for d in &self.documents {
            if let Some(text) = d.describe(self.save_point) {
                parts.push(text);
            }
        }
        if let Some((file, found, supported)) = self.newer() {
            parts.push(format!(
                "{file} is from a newer version of the game (schema {found}; this build reads up to {supported}): kept untouched, saving is paused"
            ));
        }
        if !self.repaired.is_empty() {
            let names: Vec<String> = self
                .repaired
                .iter()
                .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .collect();
            parts.push(format!("repaired {}", names.join(", ")));
        }
        if let Some(e) = &self.repair_error {
            parts.push(format!("repair failed: {e}"));
        }
        parts.join("; ")
    }
}

/// The documents loaded from a slot, and what was found.
pub struct SlotLoad {
    /// What was found and done.
    pub outcome: LoadOutcome,
    /// Each document (slot order), parsed; `None` where it is fresh.
    pub documents: Vec<Option<Box<dyn Any + Send>>>,
    /// The save point the next commit must use (above every one on disk).
    pub next_save_point: u64,
}

impl fmt::Debug for SlotLoad {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SlotLoad")
            .field("outcome", &self.outcome)
            .field("next_save_point", &self.next_save_point)
            .finish_non_exhaustive()
    }
}

impl SlotLoad {
    /// Takes document `index` as `T` (`None`: fresh, or another type).
    pub fn take<T: 'static>(&mut self, index: usize) -> Option<T> {
        let boxed = self.documents.get_mut(index)?.take()?;
        boxed.downcast::<T>().ok().map(|b| *b)
    }
}

/// A commit that landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommitReport {
    /// The save point written.
    pub save_point: u64,
    /// Bytes of the signed files (each is written twice: primary and backup).
    pub bytes: usize,
}

/// One save slot: documents in a folder, committed together.
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// use wyrd_save::{CopyKind, DocSpec, SaveKey, SaveStore};
/// let store = SaveStore::new(dir.path(), SaveKey::new("secret"))
///     .with_documents([DocSpec::json("world.json", 1), DocSpec::json("profile.json", 1)]);
/// store
///     .commit_bodies(&[br#"{"SchemaVersion": 1}"#.to_vec(), br#"{"SchemaVersion": 1, "Coins": 5}"#.to_vec()], 1)
///     .unwrap();
/// let mut loaded = store.load();
/// assert_eq!(loaded.outcome.save_point, Some(1));
/// assert_eq!(loaded.outcome.documents[1].source, Some(CopyKind::Primary));
/// let profile: serde_json::Value = loaded.take(1).unwrap();
/// assert_eq!(profile["Coins"], 5);
/// assert_eq!(loaded.next_save_point, 2);
/// ```
#[derive(Debug, Clone)]
pub struct SaveStore {
    dir: PathBuf,
    key: SaveKey,
    fs: Arc<dyn SaveFs>,
    documents: Vec<DocSpec>,
    max_size: u64,
    quarantine_keep: usize,
    unverified: UnverifiedSave,
}

/// What loading does with a slot none of whose files verifies while one
/// fails only its signature: most likely signed with another key (a
/// misconfigured or rotated key, a development build's save), or edited
/// in both copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, bevy::reflect::Reflect)]
#[reflect(Debug, Default)]
pub enum UnverifiedSave {
    /// Nothing is loaded, moved aside or rewritten, and
    /// [`SavePlugin`](crate::SavePlugin) pauses saving
    /// ([`SaveError::SignedWithAnotherKey`](crate::SaveError::SignedWithAnotherKey)):
    /// the game started with the right key loads the save as it was (the
    /// default). Moved aside, one launch with the wrong key made the next
    /// right one a fresh start; this session's progress is not saved.
    #[default]
    KeepAndPause,
    /// The files are moved aside as bad ones are, and the slot starts
    /// fresh and saves: for a game that changed its key on purpose.
    StartFresh,
}

struct Candidate {
    kind: CopyKind,
    path: PathBuf,
    bytes: Option<Vec<u8>>,
    verdict: Verdict,
    /// The slot's documents this copy lists (`SlotDocuments`).
    slot: Option<Vec<String>>,
    parsed: Option<Box<dyn Any + Send>>,
    quarantined_to: Option<PathBuf>,
}

impl SaveStore {
    /// A slot in `dir` on the real file system, with no documents yet.
    pub fn new(dir: impl Into<PathBuf>, key: SaveKey) -> Self {
        SaveStore {
            dir: dir.into(),
            key,
            fs: Arc::new(OsFs::new()),
            documents: Vec::new(),
            max_size: DEFAULT_MAX_SIZE,
            quarantine_keep: DEFAULT_QUARANTINE_KEEP,
            unverified: UnverifiedSave::default(),
        }
    }

    /// What loading does with a slot none of whose files verifies while
    /// one fails only its signature ([`UnverifiedSave`]).
    pub fn with_unverified(mut self, policy: UnverifiedSave) -> Self {
        self.unverified = policy;
        self
    }

    /// Uses another file system (tests: [`MemFs`](crate::testing::MemFs)).
    pub fn with_fs(mut self, fs: impl SaveFs + 'static) -> Self {
        self.fs = Arc::new(fs);
        self
    }

    /// Uses a shared file system.
    pub fn with_shared_fs(mut self, fs: Arc<dyn SaveFs>) -> Self {
        self.fs = fs;
        self
    }

    /// The documents committed together, in order.
    pub fn with_documents(mut self, documents: impl IntoIterator<Item = DocSpec>) -> Self {
        self.documents = documents.into_iter().collect();
        self
    }

    /// Files larger than this are rejected without being read.
    pub fn with_max_size(mut self, bytes: u64) -> Self {
        self.max_size = bytes;
        self
    }

    /// How many quarantined files to keep per document (the newest).
    pub fn with_quarantine_keep(mut self, n: usize) -> Self {
        self.quarantine_keep = n;
        self
    }

    /// The signing key.
    pub fn key(&self) -> &SaveKey {
        &self.key
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The documents.
    pub fn documents(&self) -> &[DocSpec] {
        &self.documents
    }

    /// The file system.
    pub fn fs(&self) -> &Arc<dyn SaveFs> {
        &self.fs
    }

    /// The path of one copy of a document.
    pub fn path(&self, file: &str, kind: CopyKind) -> PathBuf {
        match kind {
            CopyKind::Primary => self.dir.join(file),
            CopyKind::Backup => self.dir.join(format!("{file}.bak")),
            CopyKind::Temp => self.dir.join(format!("{file}.tmp")),
        }
    }

    /// Reads a file, bounded by the size limit.
    pub fn read_bytes(&self, path: &Path) -> Result<Vec<u8>, LoadError> {
        match self.fs.read(path, self.max_size) {
            Ok(ReadBytes::Bytes(b)) => Ok(b),
            Ok(ReadBytes::TooLarge(size)) => Err(LoadError::TooLarge {
                size,
                limit: self.max_size,
            }),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(LoadError::Missing),
            Err(e) => Err(LoadError::Io(e.to_string())),
        }
    }

    /// Reads, verifies and parses one file as `T` (any save point).
    pub fn read_file<T: DeserializeOwned>(
        &self,
        path: &Path,
        supported: u32,
    ) -> Result<T, LoadError> {
        let bytes = self.read_bytes(path)?;
        self.key.open_json(&bytes, supported)
    }

    fn check(&self, bytes: &[u8], schema: u32) -> (Verdict, Option<Vec<String>>) {
        match self
            .key
            .open(bytes)
            .and_then(|body| read_header(body, schema))
        {
            Ok(h) => (
                Verdict::Valid {
                    save_point: h.save_counter,
                },
                h.slot_documents,
            ),
            Err(e) => (Verdict::Invalid(e), None),
        }
    }

    fn read_candidates(&self, spec: &DocSpec) -> Vec<Candidate> {
        let mut out: Vec<Candidate> = Vec::with_capacity(3);
        for kind in CopyKind::ALL {
            let path = self.path(&spec.file, kind);
            let (bytes, (verdict, slot)) = match self.read_bytes(&path) {
                Err(e) => (None, (Verdict::Invalid(e), None)),
                Ok(bytes) => {
                    // Primary and backup are usually the same bytes: check once.
                    let same = out
                        .iter()
                        .find(|c| c.bytes.as_deref() == Some(bytes.as_slice()));
                    let checked = match same {
                        Some(c) => (c.verdict.clone(), c.slot.clone()),
                        None => self.check(&bytes, spec.schema),
                    };
                    (Some(bytes), checked)
                }
            };
            out.push(Candidate {
                kind,
                path,
                bytes,
                verdict,
                slot,
                parsed: None,
                quarantined_to: None,
            });
        }
        out
    }

    /// Loads the newest save point that every document has a valid copy of
    /// (primary, backup or a complete temp file), moves bad files aside,
    /// and rewrites primary and backup of each document to that save point.
    /// Never fails: what could not be loaded is fresh, and the
    /// [`LoadOutcome`] says why.
    pub fn load(&self) -> SlotLoad {
        self.load_inner(true)
    }

    /// What [`load`](Self::load) would load, touching nothing (no
    /// quarantine, no repair): `wyrd save status`.
    pub fn survey(&self) -> SlotLoad {
        self.load_inner(false)
    }

    fn load_inner(&self, repair: bool) -> SlotLoad {
        let mut docs: Vec<Vec<Candidate>> = self
            .documents
            .iter()
            .map(|spec| self.read_candidates(spec))
            .collect();
        let max_seen = docs
            .iter()
            .flatten()
            .filter_map(|c| c.verdict.save_point())
            .max();
        let (chosen, save_point, mixed) = self.choose(&mut docs);
        let mut outcome = LoadOutcome {
            save_point,
            mixed,
            ..Default::default()
        };
        let newer = docs.iter().any(|cands| {
            cands[..2]
                .iter()
                .any(|c| matches!(c.verdict, Verdict::Invalid(LoadError::NewerSchema { .. })))
        });
        outcome.other_key =
            self.unverified == UnverifiedSave::KeepAndPause && signed_with_another_key(&docs);
        if repair && !outcome.other_key {
            self.quarantine(&mut docs, &chosen, save_point, &mut outcome);
            if !newer {
                self.repair(&docs, &chosen, &mut outcome);
            }
        }
        // The slot's documents as the loaded save point lists them.
        let listed: Option<Vec<String>> = docs
            .iter()
            .zip(&chosen)
            .find_map(|(cands, pick)| pick.and_then(|i| cands[i].slot.clone()));
        let mut documents = Vec::with_capacity(docs.len());
        for ((spec, cands), pick) in self.documents.iter().zip(&mut docs).zip(&chosen) {
            let parsed = pick.and_then(|i| cands[i].parsed.take());
            documents.push(parsed);
            let belongs = listed.as_ref().is_some_and(|l| l.contains(&spec.file))
                || cands[..2].iter().any(|c| c.verdict.save_point().is_some());
            outcome.documents.push(DocumentLoad {
                file: spec.file.clone(),
                source: pick.map(|i| cands[i].kind),
                missing_at: save_point.filter(|_| pick.is_none() && belongs),
                copies: cands
                    .iter()
                    .map(|c| CopyReport {
                        kind: c.kind,
                        path: c.path.clone(),
                        verdict: c.verdict.clone(),
                        quarantined_to: c.quarantined_to.clone(),
                    })
                    .collect(),
            });
        }
        SlotLoad {
            outcome,
            documents,
            next_save_point: max_seen.map_or(1, |m| m.saturating_add(1)),
        }
    }

    /// Picks a candidate per document, all of one save point: the newest
    /// save point all documents with a valid copy share; else (several bad
    /// files) the one most of them have, the newest among equals, and the
    /// others start fresh. Documents are never loaded from different save
    /// points: a value of one would be newer than another's (coins without
    /// the quest that paid them).
    fn choose(&self, docs: &mut [Vec<Candidate>]) -> (Vec<Option<usize>>, Option<u64>, bool) {
        // A temp file is an uncommitted write: it counts only for a save
        // point every document reached. A document with no valid copy at all
        // (a save killed before or while it wrote that document's temp,
        // typically the very first one) reached none, so then only committed
        // copies (primaries, backups) count; they still load, e.g. for a
        // document added to the slot by a later version of the game.
        let uncommitted_ok = docs
            .iter()
            .all(|cands| cands.iter().any(|c| c.verdict.save_point().is_some()));
        let usable = |c: &Candidate| {
            if c.kind == CopyKind::Temp && !uncommitted_ok {
                None
            } else {
                c.verdict.save_point()
            }
        };
        loop {
            let points: Vec<BTreeSet<u64>> = docs
                .iter()
                .map(|c| c.iter().filter_map(usable).collect())
                .collect();
            let mut best: Option<(usize, u64)> = None;
            for &p in points.iter().flatten() {
                let holders = points.iter().filter(|set| set.contains(&p)).count();
                if best.is_none_or(|b| (holders, p) > b) {
                    best = Some((holders, p));
                }
            }
            let Some((_, target)) = best else {
                return (vec![None; docs.len()], None, false);
            };
            let mut picks = Vec::with_capacity(docs.len());
            let mut failed = false;
            for (spec, cands) in self.documents.iter().zip(docs.iter_mut()) {
                let Some(i) = cands.iter().position(|c| usable(c) == Some(target)) else {
                    picks.push(None);
                    continue;
                };
                if cands[i].parsed.is_none() {
                    let result = {
                        let bytes = cands[i].bytes.as_deref().unwrap_or_default();
                        self.key.open(bytes).and_then(|body| (spec.parse)(body))
                    };
                    match result {
                        Ok(doc) => cands[i].parsed = Some(doc),
                        Err(e) => {
                            // Every copy with these bytes is bad the same way.
                            let bad = cands[i].bytes.clone();
                            for c in cands.iter_mut().filter(|c| c.bytes == bad) {
                                c.verdict = Verdict::Invalid(e.clone());
                            }
                            failed = true;
                            break;
                        }
                    }
                }
                picks.push(Some(i));
            }
            if failed {
                continue;
            }
            let mixed = points
                .iter()
                .any(|set| !set.is_empty() && !set.contains(&target));
            return (picks, Some(target), mixed);
        }
    }

    /// Moves bad primaries and backups aside (temp files are scratch), and
    /// the valid ones of a document that starts fresh because they are of
    /// another save point than `save_point` (the next save would overwrite
    /// them); keeps the newest N quarantined files of each document.
    fn quarantine(
        &self,
        docs: &mut [Vec<Candidate>],
        chosen: &[Option<usize>],
        save_point: Option<u64>,
        outcome: &mut LoadOutcome,
    ) {
        let aside = |c: &Candidate, fresh: bool| {
            c.kind != CopyKind::Temp
                && match &c.verdict {
                    Verdict::Invalid(e) => e.is_bad_file(),
                    Verdict::Valid { save_point: s } => fresh && save_point != Some(*s),
                }
        };
        if !docs
            .iter()
            .zip(chosen)
            .any(|(cands, pick)| cands.iter().any(|c| aside(c, pick.is_none())))
        {
            return;
        }
        let mut names: BTreeSet<String> = self
            .fs
            .list(&self.dir)
            .unwrap_or_default()
            .into_iter()
            .collect();
        let stamp = utc_file_stamp(self.fs.now());
        for ((spec, cands), pick) in self.documents.iter().zip(docs.iter_mut()).zip(chosen) {
            let mut moved = false;
            // Valid copies moved aside now are a save, not damage: the cap
            // does not delete them in the load that kept them.
            let mut spared: BTreeSet<String> = BTreeSet::new();
            for c in cands.iter_mut().filter(|c| aside(c, pick.is_none())) {
                let valid = matches!(c.verdict, Verdict::Valid { .. });
                let base = format!("{}.{}{stamp}", spec.file, aside_prefix(valid));
                let mut name = base.clone();
                let mut n = 2;
                while names.contains(&name) {
                    name = format!("{base}-{n}");
                    n += 1;
                }
                let target = self.dir.join(&name);
                match self.fs.rename(&c.path, &target) {
                    Ok(()) => {
                        names.remove(
                            &c.path
                                .file_name()
                                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
                        );
                        if valid {
                            spared.insert(name.clone());
                        }
                        names.insert(name);
                        c.quarantined_to = Some(target);
                        moved = true;
                    }
                    Err(e) => bevy::log::error!(
                        "could not move the bad save {} aside: {e}",
                        c.path.display()
                    ),
                }
            }
            // The cap, on bad copies and on valid ones apart.
            for prefix in [false, true]
                .into_iter()
                .filter(|_| moved)
                .map(aside_prefix)
            {
                let prefix = format!("{}.{prefix}", spec.file);
                let mut kept: Vec<&String> = names
                    .iter()
                    .filter(|n| n.starts_with(&prefix) && !spared.contains(*n))
                    .collect();
                // Oldest first: by UTC stamp, then by the number of a name
                // taken in the same second (as text, `-10` sorted before
                // `-2`, and the newer went first).
                kept.sort_by_key(|n| quarantine_order(&n[prefix.len()..]));
                let excess = kept.len().saturating_sub(self.quarantine_keep);
                let old: Vec<String> = kept.into_iter().take(excess).cloned().collect();
                for name in old {
                    let path = self.dir.join(&name);
                    if self.fs.remove_file(&path).is_ok() {
                        names.remove(&name);
                        outcome.quarantine_removed.push(path);
                    }
                }
            }
        }
    }

    /// Rewrites primary and backup of every document whose two copies are
    /// not both the loaded bytes.
    fn repair(&self, docs: &[Vec<Candidate>], chosen: &[Option<usize>], outcome: &mut LoadOutcome) {
        let mut files: Vec<(usize, &[u8])> = Vec::new();
        let mut rewritten = Vec::new();
        for (d, (cands, pick)) in docs.iter().zip(chosen).enumerate() {
            let Some(bytes) = pick.and_then(|i| cands[i].bytes.as_deref()) else {
                continue;
            };
            let stale: Vec<PathBuf> = [CopyKind::Primary, CopyKind::Backup]
                .into_iter()
                .map(|kind| &cands[kind as usize])
                .filter(|c| c.quarantined_to.is_some() || c.bytes.as_deref() != Some(bytes))
                .map(|c| c.path.clone())
                .collect();
            if !stale.is_empty() {
                files.push((d, bytes));
                rewritten.extend(stale);
            }
        }
        if files.is_empty() {
            return;
        }
        match self.commit_sealed(&files) {
            Ok(()) => outcome.repaired = rewritten,
            Err(e) => outcome.repair_error = Some(e),
        }
    }

    /// Serializes nothing: signs each body (in document order) with the save
    /// counter added, and commits them as one save point.
    pub fn commit_bodies(
        &self,
        bodies: &[Vec<u8>],
        save_point: u64,
    ) -> Result<CommitReport, SaveError> {
        if self.documents.is_empty() {
            return Err(SaveError::NoDocuments);
        }
        let mut sealed = Vec::with_capacity(bodies.len());
        let names: Vec<&str> = self.documents.iter().map(|d| d.file.as_str()).collect();
        for (spec, body) in self.documents.iter().zip(bodies) {
            let body = insert_slot_fields(body, &names, save_point).ok_or_else(|| {
                SaveError::Serialize {
                    file: spec.file.clone(),
                    message: "the document is not a JSON object".into(),
                }
            })?;
            // Never write what the next load would refuse (a document with a
            // SaveCounter of its own, a schema this build does not read).
            read_header(&body, spec.schema).map_err(|e| SaveError::Serialize {
                file: spec.file.clone(),
                message: format!("the document would not load back: {e}"),
            })?;
            sealed.push(self.key.seal(&body));
        }
        let files: Vec<(usize, &[u8])> = sealed.iter().map(Vec::as_slice).enumerate().collect();
        self.commit_sealed(&files)?;
        Ok(CommitReport {
            save_point,
            bytes: sealed.iter().map(Vec::len).sum(),
        })
    }

    /// The commit protocol (crate docs, "Commit"): every temp file written
    /// and synced; every temp renamed over its primary; folder synced; then
    /// every backup written the same way; folder synced.
    pub fn commit_sealed(&self, files: &[(usize, &[u8])]) -> Result<(), SaveError> {
        let fs = &*self.fs;
        fs.create_dir_all(&self.dir)
            .map_err(|e| SaveError::io("create the folder", &self.dir, e))?;
        let paths = |d: usize, kind| self.path(&self.documents[d].file, kind);
        for &(d, bytes) in files {
            let temp = paths(d, CopyKind::Temp);
            fs.write(&temp, bytes)
                .map_err(|e| SaveError::io("write", &temp, e))?;
            fs.sync_file(&temp)
                .map_err(|e| SaveError::io("sync", &temp, e))?;
        }
        for &(d, _) in files {
            let (temp, primary) = (paths(d, CopyKind::Temp), paths(d, CopyKind::Primary));
            fs.rename(&temp, &primary)
                .map_err(|e| SaveError::io("rename the new save over", &primary, e))?;
        }
        fs.sync_dir(&self.dir)
            .map_err(|e| SaveError::io("sync the folder", &self.dir, e))?;
        for &(d, bytes) in files {
            let (temp, backup) = (paths(d, CopyKind::Temp), paths(d, CopyKind::Backup));
            fs.write(&temp, bytes)
                .map_err(|e| SaveError::io("write", &temp, e))?;
            fs.sync_file(&temp)
                .map_err(|e| SaveError::io("sync", &temp, e))?;
            fs.rename(&temp, &backup)
                .map_err(|e| SaveError::io("rename the backup over", &backup, e))?;
        }
        fs.sync_dir(&self.dir)
            .map_err(|e| SaveError::io("sync the folder", &self.dir, e))
    }
}
