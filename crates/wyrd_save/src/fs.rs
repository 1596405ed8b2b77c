//! The file-system seam: every file operation of a [`SaveStore`](crate::SaveStore)
//! goes through a [`SaveFs`], so that tests can fail or crash at each call
//! ([`MemFs`](crate::testing::MemFs)) without root, tmpfs or a full disk.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::Path;
use std::time::SystemTime;

/// What [`SaveFs::read`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadBytes {
    /// The whole file.
    Bytes(Vec<u8>),
    /// The file is larger than the limit asked for; it was not read.
    TooLarge(u64),
}

/// The file operations a save store needs, and nothing else.
///
/// [`OsFs`] is the real file system; [`MemFs`](crate::testing::MemFs) is an
/// in-memory one that injects crashes and errors at a chosen call.
pub trait SaveFs: Send + Sync + fmt::Debug {
    /// Creates `dir` and its parents if missing.
    fn create_dir_all(&self, dir: &Path) -> io::Result<()>;
    /// Reads a whole file, unless it is larger than `limit` bytes.
    /// A missing file is an error of kind [`io::ErrorKind::NotFound`].
    fn read(&self, path: &Path, limit: u64) -> io::Result<ReadBytes>;
    /// Creates or truncates `path` and writes `bytes` (not yet durable).
    fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Makes the contents of `path` durable (fsync).
    fn sync_file(&self, path: &Path) -> io::Result<()>;
    /// Atomically replaces `to` with `from`.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Deletes a file (only used to cap the number of quarantined files).
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    /// The names of the files in `dir` (not recursive).
    fn list(&self, dir: &Path) -> io::Result<Vec<String>>;
    /// Makes renames in `dir` durable (fsync of the folder).
    fn sync_dir(&self, dir: &Path) -> io::Result<()>;
    /// The current time (names quarantined files).
    fn now(&self) -> SystemTime;
}

/// The real file system.
#[derive(Debug, Clone, Copy)]
pub struct OsFs {
    sync: bool,
}

impl Default for OsFs {
    fn default() -> Self {
        OsFs { sync: true }
    }
}

impl OsFs {
    /// The real file system, with fsyncs.
    pub fn new() -> Self {
        OsFs::default()
    }

    /// Without fsyncs: for benchmarks only (a power cut may then lose the
    /// last save; a crash of the process still cannot).
    pub fn unsynced() -> Self {
        OsFs { sync: false }
    }
}

impl SaveFs for OsFs {
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        fs::create_dir_all(dir)
    }

    fn read(&self, path: &Path, limit: u64) -> io::Result<ReadBytes> {
        let file = File::open(path)?;
        let size = file.metadata()?.len();
        if size > limit {
            return Ok(ReadBytes::TooLarge(size));
        }
        let mut bytes = Vec::with_capacity(size as usize);
        // `take` guards against a file that grows while it is read.
        file.take(limit + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > limit {
            return Ok(ReadBytes::TooLarge(bytes.len() as u64));
        }
        Ok(ReadBytes::Bytes(bytes))
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut file = File::create(path)?;
        file.write_all(bytes)?;
        file.flush()
    }

    fn sync_file(&self, path: &Path) -> io::Result<()> {
        if self.sync {
            File::options().write(true).open(path)?.sync_all()?;
        }
        Ok(())
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        fs::rename(from, to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        fs::remove_file(path)
    }

    fn list(&self, dir: &Path) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(dir)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    fn sync_dir(&self, dir: &Path) -> io::Result<()> {
        if self.sync {
            sync_dir(dir)?;
        }
        Ok(())
    }

    fn now(&self) -> SystemTime {
        SystemTime::now()
    }
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> io::Result<()> {
    // Folders cannot be opened for syncing there; their journaling file
    // systems make renames durable with the metadata.
    Ok(())
}
