//! # Wyrd signed saves
//!
//! Tamper-evident save files that never lose progress.
//!
//! - **Format**: the first line is the base64 HMAC-SHA256 (44 characters) of
//!   every byte after the first `\n`; then the document as pretty JSON
//!   ([`SaveKey::seal`], [`SaveKey::open`]). The signature is checked in
//!   constant time before anything is parsed.
//! - **Writing** ([`SaveStore::write`]): temp file in the same folder, fsync,
//!   the current good primary becomes the backup, atomic rename, fsync of the
//!   folder. A crash at any point leaves a primary or a backup that loads.
//! - **Loading** ([`SaveStore::load`]): the primary; else the backup, which
//!   becomes the primary again; else a fresh document. Bad files are moved
//!   aside as `NAME.corrupt-<ticks>`, never deleted. The [`LoadOutcome`] says
//!   which and why.
//! - **In Bevy** ([`SavePlugin`]): load at startup, write off the frame on a
//!   writer thread (in order, newest wins), on request, after changes
//!   (debounced) and at exit.
//!
//! ```
//! use wyrd_save::{SaveKey, LoadError};
//! let key = SaveKey::new("secret");
//! let file = key.seal(br#"{"SchemaVersion": 1}"#);
//! let doc: serde_json::Value = key.open_json(&file, 1).unwrap();
//! assert_eq!(doc["SchemaVersion"], 1);
//! assert_eq!(SaveKey::new("wrong").open(&file), Err(LoadError::SignatureMismatch));
//! ```

mod error;
mod plugin;
mod signed;
mod store;
mod ticks;
mod writer;

pub use error::LoadError;
pub use plugin::{
    ReloadRequest, SaveDocument, SaveLoaded, SavePlugin, SaveRequest, SaveSlot, SaveStatus,
    SaveSystems, SaveWritten,
};
pub use signed::{SIGNATURE_LEN, SaveKey, parse_document};
pub use store::{DEFAULT_MAX_SIZE, LoadOutcome, Loaded, SaveStore, WriteStep};
pub use ticks::{UNIX_EPOCH_TICKS, now_ticks, system_time_to_ticks, ticks_to_unix_seconds};
pub use writer::{SaveJob, SaveWriter, WriteResult};

/// The names most users need.
pub mod prelude {
    pub use crate::{
        LoadOutcome, ReloadRequest, SaveDocument, SaveKey, SaveLoaded, SavePlugin, SaveRequest,
        SaveSlot, SaveStatus, SaveSystems, SaveWritten,
    };
}
