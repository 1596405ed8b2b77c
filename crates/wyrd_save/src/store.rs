//! A save slot on disk: primary file, backup, atomic writes, recovery.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;

use crate::error::LoadError;
use crate::signed::SaveKey;
use crate::ticks::now_ticks;

/// Default limit on the size of a save file: 16 MiB.
pub const DEFAULT_MAX_SIZE: u64 = 16 * 1024 * 1024;

/// Where a loaded document came from. The game can show it; the inspector
/// does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadOutcome {
    /// The primary file verified and parsed.
    Primary,
    /// The primary could not be used; the backup was, and is the primary
    /// again.
    FromBackup {
        /// What was wrong with the primary.
        primary: LoadError,
        /// Where the bad primary was moved (`None` if it was missing).
        moved_to: Option<PathBuf>,
    },
    /// Neither file could be used: a fresh document.
    Fresh {
        /// What was wrong with the primary.
        primary: LoadError,
        /// What was wrong with the backup.
        backup: LoadError,
        /// Where bad files were moved (never deleted).
        moved_to: Vec<PathBuf>,
    },
}

impl LoadOutcome {
    /// Whether this is a first start (no file at all), as opposed to a
    /// recovery.
    pub fn is_first_start(&self) -> bool {
        matches!(
            self,
            LoadOutcome::Fresh {
                primary: LoadError::Missing,
                backup: LoadError::Missing,
                ..
            }
        )
    }

    /// A one-line summary for players and logs.
    pub fn describe(&self) -> String {
        match self {
            LoadOutcome::Primary => "loaded the save".into(),
            LoadOutcome::FromBackup { primary, .. } => {
                format!("loaded the backup save ({primary})")
            }
            LoadOutcome::Fresh { .. } if self.is_first_start() => "new save (first start)".into(),
            LoadOutcome::Fresh {
                primary, backup, ..
            } => format!(
                "new save: the save ({primary}) and its backup ({backup}) could not be used"
            ),
        }
    }
}

/// A document and where it came from.
#[derive(Debug, Clone)]
pub struct Loaded<T> {
    /// The document (fresh when nothing could be loaded).
    pub document: T,
    /// Where it came from.
    pub outcome: LoadOutcome,
}

/// The steps of [`SaveStore::write`], for the crash-injection test seam.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteStep {
    /// Half of the temp file is written.
    TempPartlyWritten,
    /// The temp file is written, not yet synced.
    TempWritten,
    /// The temp file is synced.
    TempSynced,
    /// The current primary was moved to the backup.
    Rotated,
    /// The temp file was renamed to the primary.
    Renamed,
}

/// One save slot: `dir/name` (primary), `dir/name.bak` (backup),
/// `dir/name.tmp` (while writing).
///
/// ```
/// # let dir = tempfile::tempdir().unwrap();
/// use wyrd_save::{SaveKey, SaveStore, LoadOutcome};
/// let store = SaveStore::new(dir.path(), "save.json", SaveKey::new("secret"));
/// store.write(&store.key().seal(br#"{"SchemaVersion": 1}"#)).unwrap();
/// let loaded = store.load::<serde_json::Value>(1).unwrap();
/// assert_eq!(loaded.outcome, LoadOutcome::Primary);
/// ```
#[derive(Debug, Clone)]
pub struct SaveStore {
    dir: PathBuf,
    name: String,
    key: SaveKey,
    max_size: u64,
}

impl SaveStore {
    /// A slot named `name` in `dir`.
    pub fn new(dir: impl Into<PathBuf>, name: impl Into<String>, key: SaveKey) -> Self {
        SaveStore {
            dir: dir.into(),
            name: name.into(),
            key,
            max_size: DEFAULT_MAX_SIZE,
        }
    }

    /// Files larger than this are rejected without being read.
    pub fn with_max_size(mut self, bytes: u64) -> Self {
        self.max_size = bytes;
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

    /// The primary file.
    pub fn primary_path(&self) -> PathBuf {
        self.dir.join(&self.name)
    }

    /// The backup file.
    pub fn backup_path(&self) -> PathBuf {
        self.dir.join(format!("{}.bak", self.name))
    }

    fn temp_path(&self) -> PathBuf {
        self.dir.join(format!("{}.tmp", self.name))
    }

    /// Reads a file, bounded by the size limit.
    fn read_bounded(&self, path: &Path) -> Result<Vec<u8>, LoadError> {
        let file = match File::open(path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(LoadError::Missing),
            Err(e) => return Err(LoadError::Io(e.to_string())),
        };
        let size = file
            .metadata()
            .map_err(|e| LoadError::Io(e.to_string()))?
            .len();
        if size > self.max_size {
            return Err(LoadError::TooLarge {
                size,
                limit: self.max_size,
            });
        }
        let mut bytes = Vec::with_capacity(size as usize);
        // `take` guards against a file that grows while we read it.
        file.take(self.max_size + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| LoadError::Io(e.to_string()))?;
        if bytes.len() as u64 > self.max_size {
            return Err(LoadError::TooLarge {
                size: bytes.len() as u64,
                limit: self.max_size,
            });
        }
        Ok(bytes)
    }

    /// Reads and verifies one file.
    pub fn read_file<T: DeserializeOwned>(
        &self,
        path: &Path,
        supported: u32,
    ) -> Result<T, LoadError> {
        let bytes = self.read_bounded(path)?;
        self.key.open_json(&bytes, supported)
    }

    /// Moves a bad file aside as `NAME.corrupt-<ticks>`; never deletes it.
    fn move_aside(&self, path: &Path) -> Option<PathBuf> {
        if !path.exists() {
            return None;
        }
        let file_name = path.file_name()?.to_string_lossy().into_owned();
        let ticks = now_ticks();
        let mut target = self.dir.join(format!("{file_name}.corrupt-{ticks}"));
        let mut n = 1;
        while target.exists() {
            target = self.dir.join(format!("{file_name}.corrupt-{ticks}-{n}"));
            n += 1;
        }
        match fs::rename(path, &target) {
            Ok(()) => Some(target),
            Err(e) => {
                bevy::log::error!("could not move the bad save {} aside: {e}", path.display());
                None
            }
        }
    }

    /// Loads the primary, else the backup (restoring it as the primary),
    /// else returns `Err` with both reasons after moving bad files aside.
    ///
    /// [`load_or`](Self::load_or) turns the error into a fresh document.
    pub fn load<T: DeserializeOwned>(&self, supported: u32) -> Result<Loaded<T>, LoadOutcome> {
        let primary = match self.read_file(&self.primary_path(), supported) {
            Ok(document) => {
                return Ok(Loaded {
                    document,
                    outcome: LoadOutcome::Primary,
                });
            }
            Err(e) => e,
        };
        match self.read_bounded(&self.backup_path()).and_then(|bytes| {
            let doc = self.key.open_json(&bytes, supported)?;
            Ok((doc, bytes))
        }) {
            Ok((document, bytes)) => {
                let moved_to = self.move_aside(&self.primary_path());
                if let Err(e) = self.install_primary(&bytes, None) {
                    bevy::log::error!("could not restore the backup save as primary: {e}");
                }
                Ok(Loaded {
                    document,
                    outcome: LoadOutcome::FromBackup { primary, moved_to },
                })
            }
            Err(backup) => {
                let moved_to = [self.primary_path(), self.backup_path()]
                    .iter()
                    .filter_map(|p| self.move_aside(p))
                    .collect();
                Err(LoadOutcome::Fresh {
                    primary,
                    backup,
                    moved_to,
                })
            }
        }
    }

    /// [`load`](Self::load), with `fresh()` when neither file can be used.
    pub fn load_or<T: DeserializeOwned>(
        &self,
        supported: u32,
        fresh: impl FnOnce() -> T,
    ) -> Loaded<T> {
        self.load(supported).unwrap_or_else(|outcome| Loaded {
            document: fresh(),
            outcome,
        })
    }

    /// Writes a signed file crash-safely: temp file, fsync, current good
    /// primary → backup, rename temp → primary, fsync the folder.
    pub fn write(&self, sealed: &[u8]) -> io::Result<()> {
        self.write_inner(sealed, None, true)
    }

    /// [`write`](Self::write) without the fsyncs (benchmarks only: a crash
    /// may then lose the last save).
    pub fn write_unsynced(&self, sealed: &[u8]) -> io::Result<()> {
        self.write_inner(sealed, None, false)
    }

    /// Test seam: performs [`write`](Self::write) but stops ("crashes")
    /// right after `step`, returning an error.
    #[doc(hidden)]
    pub fn write_crashing_after(&self, sealed: &[u8], step: WriteStep) -> io::Result<()> {
        self.write_inner(sealed, Some(step), true)
    }

    fn install_primary(&self, sealed: &[u8], crash: Option<WriteStep>) -> io::Result<()> {
        self.write_inner_rotate(sealed, crash, true, false)
    }

    fn write_inner(&self, sealed: &[u8], crash: Option<WriteStep>, sync: bool) -> io::Result<()> {
        self.write_inner_rotate(sealed, crash, sync, true)
    }

    fn write_inner_rotate(
        &self,
        sealed: &[u8],
        crash: Option<WriteStep>,
        sync: bool,
        rotate: bool,
    ) -> io::Result<()> {
        let crashed = |step| {
            if crash == Some(step) {
                Err(io::Error::other(format!("simulated crash after {step:?}")))
            } else {
                Ok(())
            }
        };
        fs::create_dir_all(&self.dir)?;
        let temp = self.temp_path();
        {
            let mut file = File::create(&temp)?;
            let half = sealed.len() / 2;
            file.write_all(&sealed[..half])?;
            crashed(WriteStep::TempPartlyWritten)?;
            file.write_all(&sealed[half..])?;
            crashed(WriteStep::TempWritten)?;
            if sync {
                file.sync_all()?;
            }
            crashed(WriteStep::TempSynced)?;
        }
        let primary = self.primary_path();
        if rotate && primary.exists() {
            // Only a good primary may replace the backup: a tampered one is
            // moved aside and the backup kept.
            match self
                .read_bounded(&primary)
                .and_then(|b| self.key.open(&b).map(|_| ()))
            {
                Ok(()) => fs::rename(&primary, self.backup_path())?,
                Err(_) => {
                    self.move_aside(&primary);
                }
            }
        }
        crashed(WriteStep::Rotated)?;
        fs::rename(&temp, &primary)?;
        crashed(WriteStep::Renamed)?;
        if sync {
            sync_dir(&self.dir)?;
        }
        Ok(())
    }
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    // Directories cannot be opened for syncing here; rename is durable
    // enough on these platforms' journaling file systems.
    Ok(())
}
