//! Why a save file was not used.

/// Why a save file could not be used. Each kind of bad input has its own
/// variant, so that the game (and a bug report) can say exactly what happened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// There is no file.
    #[error("there is no save file")]
    Missing,
    /// Reading failed.
    #[error("cannot read the file: {0}")]
    Io(String),
    /// The file is larger than the configured limit; it was not read.
    #[error("the file is {size} bytes, over the {limit}-byte limit")]
    TooLarge {
        /// Size on disk.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The file has no bytes.
    #[error("the file is empty")]
    Empty,
    /// There is no line break after the signature.
    #[error("the file has no signature line (no line break)")]
    NoNewline,
    /// The signature line is not base64.
    #[error("the signature is not valid base64: {0}")]
    BadBase64(String),
    /// The signature does not have 32 bytes.
    #[error("the signature has {len} bytes instead of 32")]
    SignatureLength {
        /// Bytes found.
        len: usize,
    },
    /// The signature does not match: the file was edited, or signed with
    /// another key.
    #[error("the signature does not match (the file was changed or signed with another key)")]
    SignatureMismatch,
    /// The signature does not match and the document ends early.
    #[error("the file is truncated (the signature does not match and the document ends early)")]
    Truncated,
    /// Signed, but the document is not UTF-8.
    #[error("the document is not valid UTF-8 (at byte {offset})")]
    NotUtf8 {
        /// Byte offset in the document of the first bad byte.
        offset: usize,
    },
    /// Signed, but the document is not JSON.
    #[error("the document is not JSON at line {line}, column {column}: {message}")]
    NotJson {
        /// 1-based line in the document (after the signature line).
        line: usize,
        /// 1-based column.
        column: usize,
        /// Parser message.
        message: String,
    },
    /// Signed, valid JSON, but nested deeper than any save is.
    #[error(
        "the document nests deeper than {limit} levels (at line {line}, column {column}); no save written by the game does"
    )]
    TooDeep {
        /// Nesting the parser accepts.
        limit: usize,
        /// 1-based line in the document where the limit was passed.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// Signed JSON, but not of the expected shape.
    #[error("the document does not have the expected schema: {0}")]
    WrongSchema(String),
    /// Written by a newer version of the game: kept in place, untouched.
    #[error(
        "the save is from a newer version of the game (schema {found}; this build reads up to {supported}); it is kept untouched"
    )]
    NewerSchema {
        /// Version in the file.
        found: u64,
        /// Newest version this build reads.
        supported: u32,
    },
}

impl LoadError {
    /// Whether the file is bad (edited, truncated, not a save) and is moved
    /// aside, as opposed to missing, unreadable or from a newer version
    /// (those stay where they are).
    pub fn is_bad_file(&self) -> bool {
        !matches!(
            self,
            LoadError::Missing | LoadError::Io(_) | LoadError::NewerSchema { .. }
        )
    }
}

/// Why a save point was not written. The data stays dirty in memory and is
/// written again later.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveError {
    /// A file operation failed (disk full, read-only folder, no permission…).
    #[error("cannot {action} {path}: {message}")]
    Io {
        /// What was being done ("write", "rename", "sync"…).
        action: &'static str,
        /// The file or folder.
        path: std::path::PathBuf,
        /// The operating system's words.
        message: String,
        /// The error's kind.
        kind: std::io::ErrorKind,
    },
    /// A document could not be serialized.
    #[error("cannot serialize {file}: {message}")]
    Serialize {
        /// The document's file name.
        file: String,
        /// Why.
        message: String,
    },
    /// Saving is paused: a file of the slot is from a newer version of the
    /// game and must not be overwritten.
    #[error(
        "not saved: {file} is from a newer version of the game (schema {found}; this build writes {supported}) and is kept untouched"
    )]
    NewerSaveInPlace {
        /// The newer file.
        file: String,
        /// Its schema version.
        found: u64,
        /// This build's.
        supported: u32,
    },
    /// Saving is paused ([`MissingDocument::PauseSaving`](crate::MissingDocument)):
    /// a document of the slot is missing or unusable at the save point the
    /// others are at, and the slot's files are kept as they are until it is
    /// put back.
    #[error(
        "not saved: {file} is missing from the slot saved at point {save_point}; the slot's files are kept as they are until it is put back"
    )]
    MissingDocument {
        /// The missing document.
        file: String,
        /// The save point of the slot's other documents.
        save_point: u64,
    },
    /// Saving is paused: no file of the slot verifies, and one fails only
    /// its signature, so the save was most likely signed with another key,
    /// or edited in both copies ([`LoadOutcome::other_key`](crate::LoadOutcome::other_key));
    /// the files are kept as they are for the game started with the right
    /// key ([`UnverifiedSave`](crate::UnverifiedSave) says how else).
    #[error(
        "not saved: the slot's files are signed with another key (the game's key or WYRD_SAVE_KEY differs from the one that saved them) or edited in both copies, and are kept as they are"
    )]
    SignedWithAnotherKey,
    /// The slot has no documents registered.
    #[error("the save slot has no documents")]
    NoDocuments,
}

impl SaveError {
    pub(crate) fn io(action: &'static str, path: &std::path::Path, e: std::io::Error) -> Self {
        SaveError::Io {
            action,
            path: path.to_owned(),
            message: e.to_string(),
            kind: e.kind(),
        }
    }
}
