//! Test helpers: [`MemFs`], an in-memory [`SaveFs`] that crashes or fails at
//! a chosen call. Games can use it for their own save tests too.
//!
//! ```
//! use std::path::Path;
//! use wyrd_save::testing::{FaultKind, MemFs};
//! use wyrd_save::{DocSpec, SaveKey, SaveStore};
//!
//! let fs = MemFs::new();
//! let store = SaveStore::new("/saves", SaveKey::new("k"))
//!     .with_fs(fs.clone())
//!     .with_documents([DocSpec::json("save.json", 1)]);
//! // The disk is full from the first call on: the save fails, and says why.
//! fs.fail_from(0, FaultKind::NoSpace);
//! let err = store.commit_bodies(&[br#"{"SchemaVersion": 1}"#.to_vec()], 1).unwrap_err();
//! assert!(err.to_string().contains("No space left on device"), "{err}");
//! // Space comes back: the retry lands.
//! fs.clear_faults();
//! store.commit_bodies(&[br#"{"SchemaVersion": 1}"#.to_vec()], 2).unwrap();
//! assert!(fs.file(Path::new("/saves/save.json")).is_some());
//! ```

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use crate::fs::{ReadBytes, SaveFs};

/// An error [`MemFs`] injects, with the operating system's own code and text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultKind {
    /// ENOSPC: the disk is full.
    NoSpace,
    /// EROFS: the file system is read-only.
    ReadOnly,
    /// EACCES: permission denied.
    PermissionDenied,
}

impl FaultKind {
    /// Every kind, for tests that enumerate them.
    pub const ALL: [FaultKind; 3] = [
        FaultKind::NoSpace,
        FaultKind::ReadOnly,
        FaultKind::PermissionDenied,
    ];

    /// The `errno` value (Linux).
    pub fn errno(self) -> i32 {
        match self {
            FaultKind::NoSpace => 28,
            FaultKind::ReadOnly => 30,
            FaultKind::PermissionDenied => 13,
        }
    }

    fn error(self) -> io::Error {
        io::Error::from_raw_os_error(self.errno())
    }
}

/// The kind of a file-system call, as logged by [`MemFs::calls`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FsOp {
    /// [`SaveFs::create_dir_all`].
    CreateDir,
    /// [`SaveFs::read`].
    Read,
    /// [`SaveFs::write`].
    Write,
    /// [`SaveFs::sync_file`].
    SyncFile,
    /// [`SaveFs::rename`].
    Rename,
    /// [`SaveFs::remove_file`].
    Remove,
    /// [`SaveFs::list`].
    List,
    /// [`SaveFs::sync_dir`].
    SyncDir,
}

/// One logged call: its number, kind and (first) path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FsCall {
    /// 0-based number of the call since the file system was made.
    pub index: usize,
    /// What was called.
    pub op: FsOp,
    /// The path it was called on.
    pub path: PathBuf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// Call `at` and every later one fail with no effect (the process is
    /// dead); a write at `at` leaves the first half of its bytes (torn).
    Crash { at: usize, torn: bool },
    /// Call `at` fails (and, if `persistent`, every later one until
    /// [`MemFs::clear_faults`]); a failing write leaves half its bytes.
    Error {
        at: usize,
        kind: FaultKind,
        persistent: bool,
    },
}

#[derive(Debug)]
struct State {
    files: BTreeMap<PathBuf, Vec<u8>>,
    calls: Vec<FsCall>,
    fault: Option<Fault>,
    crashed: bool,
    now: SystemTime,
}

/// An in-memory file system that can crash or fail at a chosen call.
///
/// Model: a call that returned `Ok` is durable (as if every write were
/// synced); a crash stops every later call; a write that crashes or fails
/// leaves the first half of its bytes. Clones share the same disk, so a
/// "restarted" game ([`MemFs::restart`]) sees what the crashed one left.
#[derive(Debug, Clone)]
pub struct MemFs {
    state: Arc<Mutex<State>>,
}

impl Default for MemFs {
    fn default() -> Self {
        MemFs::new()
    }
}

enum Allowed {
    Yes,
    Torn(io::Error),
    No(io::Error),
}

impl MemFs {
    /// An empty disk; the clock starts at 2026-12-01 00:00:00 UTC.
    pub fn new() -> Self {
        MemFs {
            state: Arc::new(Mutex::new(State {
                files: BTreeMap::new(),
                calls: Vec::new(),
                fault: None,
                crashed: false,
                now: SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_083_200),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Crash before call `at` (0-based, counted since creation): it and
    /// every later call fail without effect.
    pub fn crash_before(&self, at: usize) {
        self.lock().fault = Some(Fault::Crash { at, torn: false });
    }

    /// Crash during call `at`: a write leaves half its bytes; later calls fail.
    pub fn crash_during(&self, at: usize) {
        self.lock().fault = Some(Fault::Crash { at, torn: true });
    }

    /// Call `at` fails with `kind`; later calls succeed.
    pub fn fail_at(&self, at: usize, kind: FaultKind) {
        self.lock().fault = Some(Fault::Error {
            at,
            kind,
            persistent: false,
        });
    }

    /// Call `at` and every later one fail with `kind` until
    /// [`clear_faults`](Self::clear_faults) (a full disk, a read-only folder).
    pub fn fail_from(&self, at: usize, kind: FaultKind) {
        self.lock().fault = Some(Fault::Error {
            at,
            kind,
            persistent: true,
        });
    }

    /// No more faults (space came back, the folder is writable again).
    pub fn clear_faults(&self) {
        self.lock().fault = None;
    }

    /// The game starts again after a crash: faults are cleared, the disk is
    /// what the crash left.
    pub fn restart(&self) {
        let mut st = self.lock();
        st.fault = None;
        st.crashed = false;
    }

    /// Whether a crash happened (every call since failed).
    pub fn crashed(&self) -> bool {
        self.lock().crashed
    }

    /// How many calls were made so far.
    pub fn call_count(&self) -> usize {
        self.lock().calls.len()
    }

    /// Every call made so far.
    pub fn calls(&self) -> Vec<FsCall> {
        self.lock().calls.clone()
    }

    /// A file's bytes.
    pub fn file(&self, path: &Path) -> Option<Vec<u8>> {
        self.lock().files.get(path).cloned()
    }

    /// Puts a file on the disk directly (not a logged call).
    pub fn put(&self, path: impl Into<PathBuf>, bytes: impl Into<Vec<u8>>) {
        self.lock().files.insert(path.into(), bytes.into());
    }

    /// Removes a file directly (not a logged call).
    pub fn delete(&self, path: &Path) {
        self.lock().files.remove(path);
    }

    /// Every file path on the disk.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.lock().files.keys().cloned().collect()
    }

    /// Moves the clock on.
    pub fn advance_clock(&self, by: Duration) {
        let mut st = self.lock();
        st.now += by;
    }

    /// Logs a call and decides whether it may happen.
    fn enter(&self, op: FsOp, path: &Path) -> Allowed {
        let mut st = self.lock();
        let index = st.calls.len();
        st.calls.push(FsCall {
            index,
            op,
            path: path.to_owned(),
        });
        if st.crashed {
            return Allowed::No(crash_error());
        }
        match st.fault {
            Some(Fault::Crash { at, torn }) if index >= at => {
                st.crashed = true;
                if torn && index == at && op == FsOp::Write {
                    Allowed::Torn(crash_error())
                } else {
                    Allowed::No(crash_error())
                }
            }
            Some(Fault::Error {
                at,
                kind,
                persistent,
            }) if index == at || (persistent && index > at) => {
                if op == FsOp::Write {
                    Allowed::Torn(kind.error())
                } else {
                    Allowed::No(kind.error())
                }
            }
            _ => Allowed::Yes,
        }
    }

    fn simple(&self, op: FsOp, path: &Path) -> io::Result<()> {
        match self.enter(op, path) {
            Allowed::Yes => Ok(()),
            Allowed::Torn(e) | Allowed::No(e) => Err(e),
        }
    }
}

fn crash_error() -> io::Error {
    io::Error::other("simulated crash: the process is gone")
}

fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("{}: no such file", path.display()),
    )
}

impl SaveFs for MemFs {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        self.simple(FsOp::CreateDir, dir)
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<ReadBytes> {
        self.simple(FsOp::Read, path)?;
        let st = self.lock();
        let bytes = st.files.get(path).ok_or_else(|| not_found(path))?;
        if bytes.len() as u64 > limit {
            return Ok(ReadBytes::TooLarge(bytes.len() as u64));
        }
        Ok(ReadBytes::Bytes(bytes.clone()))
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        match self.enter(FsOp::Write, path) {
            Allowed::Yes => {
                self.lock().files.insert(path.to_owned(), bytes.to_vec());
                Ok(())
            }
            Allowed::Torn(e) => {
                let half = bytes[..bytes.len() / 2].to_vec();
                self.lock().files.insert(path.to_owned(), half);
                Err(e)
            }
            Allowed::No(e) => Err(e),
        }
    }

    fn sync_file(&self, path: &Path) -> io::Result<()> {
        self.simple(FsOp::SyncFile, path)?;
        if self.lock().files.contains_key(path) {
            Ok(())
        } else {
            Err(not_found(path))
        }
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        self.simple(FsOp::Rename, from)?;
        let mut st = self.lock();
        let bytes = st.files.remove(from).ok_or_else(|| not_found(from))?;
        st.files.insert(to.to_owned(), bytes);
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.simple(FsOp::Remove, path)?;
        self.lock()
            .files
            .remove(path)
            .map(|_| ())
            .ok_or_else(|| not_found(path))
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        self.simple(FsOp::List, dir)?;
        let st = self.lock();
        Ok(st
            .files
            .keys()
            .filter(|p| p.parent() == Some(dir))
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect())
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        self.simple(FsOp::SyncDir, dir)
    }

    fn now(&self) -> SystemTime {
        self.lock().now
    }
}
