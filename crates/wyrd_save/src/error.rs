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
    /// Signed JSON, but not of the expected shape.
    #[error("the document does not have the expected schema: {0}")]
    WrongSchema(String),
    /// Written by a newer version of the game.
    #[error("the document has schema version {found}; this build reads up to {supported}")]
    NewerSchema {
        /// Version in the file.
        found: u64,
        /// Newest version this build reads.
        supported: u32,
    },
}
