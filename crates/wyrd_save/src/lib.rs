//! # Wyrd signed saves
//!
//! (docs pending)

mod error;
mod fs;
mod plugin;
mod signed;
mod store;
pub mod testing;
mod ticks;
mod writer;

pub use error::{LoadError, SaveError};
pub use fs::{OsFs, ReadBytes, SaveFs};
pub use plugin::{
    ReloadRequest, RetryPolicy, SaveAppExt, SaveCompleted, SaveDocument, SaveFailed, SaveLoaded,
    SavePlugin, SaveRequest, SaveSlot, SaveStatus, SaveSystems,
};
pub use signed::{
    DocumentHeader, SAVE_COUNTER_FIELD, SIGNATURE_LEN, SaveKey, insert_save_counter, parse_body,
    parse_document, read_header,
};
pub use store::{
    CommitReport, CopyKind, CopyReport, DEFAULT_MAX_SIZE, DEFAULT_QUARANTINE_KEEP, DocSpec,
    DocumentLoad, LoadOutcome, SaveStore, SlotLoad, Verdict,
};
pub use ticks::{
    UNIX_EPOCH_TICKS, now_ticks, system_time_to_ticks, ticks_to_unix_seconds, utc_file_stamp,
};
pub use writer::{SaveJob, SaveWriter, WriteResult};

/// The names most users need.
pub mod prelude {
    pub use crate::{
        CopyKind, DocumentLoad, LoadOutcome, ReloadRequest, SaveAppExt, SaveCompleted,
        SaveDocument, SaveFailed, SaveKey, SaveLoaded, SavePlugin, SaveRequest, SaveSlot,
        SaveStatus, SaveSystems,
    };
}
