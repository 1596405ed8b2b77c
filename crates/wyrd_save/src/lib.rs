//! # Wyrd signed saves
//!
//! Tamper-evident save files that never lose progress: one save slot holds
//! several documents (world state, profile, …) that are committed together
//! as one *save point*; every completed save leaves a primary and a backup
//! that both verify; loading picks the newest complete save point among
//! the primary, the backup and a complete temp file an interrupted save
//! left, says which and why, and repairs the rest.
//!
//! ```
//! use wyrd_save::{SaveKey, LoadError};
//! let key = SaveKey::new("secret");
//! let file = key.seal(br#"{"SchemaVersion": 1}"#);
//! let doc: serde_json::Value = key.open_json(&file, 1).unwrap();
//! assert_eq!(doc["SchemaVersion"], 1);
//! assert_eq!(SaveKey::new("wrong").open(&file), Err(LoadError::SignatureMismatch));
//! ```
//!
//! ## The file, byte for byte
//!
//! Every document file (primary, backup, temp) is:
//!
//! ```text
//! <signature>\n<body>
//! ```
//!
//! - `<signature>`: 44 ASCII characters, standard padded base64 of
//!   HMAC-SHA256(key, body). Checked in constant time before anything is
//!   parsed ([`SaveKey::open`]). A `\r` before the `\n` is tolerated.
//! - `<body>`: every byte after the first `\n`: the document as
//!   `serde_json` pretty JSON (2-space indent, no trailing newline), an
//!   object whose **first** member is `"SchemaVersion": N` (a whole number
//!   from 1 up) and whose **last** two members, added by the store
//!   ([`insert_slot_fields`]), are `"SlotDocuments": [..]` (the file names
//!   of every document of the slot at that save point) and
//!   `"SaveCounter": S` (a whole number from 0 up):
//!
//! ```text
//! kQ7rT2xNfV9bLs4HcZ1pWm8YdE3uJa6oRgX0tBiCv5s=
//! {
//!   "SchemaVersion": 1,
//!   "ProfileId": "",
//!   ...the seed's fields...
//!   "CompletedEventIds": [],
//!   "SlotDocuments": ["world_state.json", "profile.json", "run.json"],
//!   "SaveCounter": 12
//! }
//! ```
//!
//! `SaveCounter` is the save point the file belongs to, and the only thing
//! that decides which copy is newer (not file names, not clocks). A
//! document without it (the seed's example save, saves of earlier builds)
//! is save point 0. `SlotDocuments` lets the load tell a deleted document
//! from one the slot never had; a document without it (earlier builds)
//! lists nothing. These two are the only fields this crate adds; games must
//! not use the names themselves.
//!
//! ## Files of a slot
//!
//! For each document `NAME` (e.g. `world_state.json`, `profile.json`), in
//! the slot's folder:
//!
//! | file | what |
//! |---|---|
//! | `NAME` | primary |
//! | `NAME.bak` | backup: the same bytes as the primary after every completed save |
//! | `NAME.tmp` | scratch; a complete one is what an interrupted save left |
//! | `NAME.corrupt-YYYY-MM-DDTHH-MM-SSZ[-K]` | a bad primary or backup moved aside (UTC, `K` from 2 for name clashes); the newest N kept (default [`DEFAULT_QUARANTINE_KEEP`]) |
//! | `NAME.kept-YYYY-MM-DDTHH-MM-SSZ[-K]` | a valid copy of another save point, moved aside when its document started fresh (documents never mix save points; a partial restore from an older backup): a save, not damage, kept rather than overwritten; the newest N kept, as above |
//!
//! There is no manifest and no journal: the save counter inside each signed
//! document is the commit record.
//!
//! ## Commit ([`SaveStore::commit_bodies`])
//!
//! Save point `S` of documents `D1..Dn`, every call through the
//! [`SaveFs`] seam:
//!
//! 1. create the folder;
//! 2. for each `Di`: write `Di.tmp`, fsync it;
//! 3. for each `Di`: rename `Di.tmp` → `Di`;
//! 4. fsync the folder;
//! 5. for each `Di`: write `Di.tmp`, fsync it, rename `Di.tmp` → `Di.bak`;
//! 6. fsync the folder. The save is reported complete only now.
//!
//! Until step 5 every document's backup holds the previous save point, and
//! from step 3 on every document has `S` in its primary or a complete temp:
//! whatever call a crash or an error stops, each document holds a copy of
//! the previous save point or of `S`, and the load below finds one save
//! point they all share.
//!
//! ## Load ([`SaveStore::load`])
//!
//! 1. Read primary, backup and temp of every document; each copy is
//!    *valid* (signature holds, header reads, save counter `S`) or not,
//!    and why ([`Verdict`], [`LoadError`]).
//! 2. Pick the highest `S` that every document with a valid copy has; per
//!    document prefer primary, then backup, then temp at that `S`, and
//!    parse it in full (a failure marks that copy invalid and picks again).
//!    Documents with no valid copy start fresh. If no save point is shared
//!    (several files bad), the `S` most documents have wins (the newest
//!    among equals), the others start fresh, and the outcome says so
//!    (`mixed`): documents are never loaded from different save points.
//!    A document with no copy of `S` that `S` lists in `SlotDocuments`
//!    (or that has copies of other save points) is *missing*
//!    ([`DocumentLoad::missing_at`]): reported as `world_state.json is
//!    missing: the slot was saved at point 4`, never as a first start; the
//!    game picks what happens then ([`MissingDocument`]).
//! 3. Move bad primaries and backups aside (never temps: they are scratch),
//!    keep the newest N per document.
//! 4. Repair: rewrite primary and backup of each document that does not
//!    hold the loaded bytes in both, with the commit protocol above.
//! 5. The next commit uses a save point above every one seen on disk.
//!
//! A copy from a newer schema (`SchemaVersion` above what this build
//! reads) is never moved, repaired or overwritten: it is reported "from a
//! newer version of the game" and the plugin pauses saving.
//!
//! ## Effects that happen once
//!
//! A save slot of several documents can lose one (deleted by the player,
//! every copy damaged) while the others load. Anything that must happen
//! once, a reward above all, is therefore recorded **in the same document
//! as its effect**: the coins and the ids of the rewards that paid them
//! ([`CompletedEvents`], saved as `CompletedEventIds`) are one file, so
//! replaying a quest after the quest flags' document was lost finds the
//! reward already paid. Checking another document's flag instead ("pay when
//! the quest flag is newly set") pays again as soon as that document is
//! lost. The Drone quest's profile does it:
//!
//! ```
//! # use serde::{Deserialize, Serialize};
//! use wyrd_save::CompletedEvents;
//! #[derive(Serialize, Deserialize)]
//! #[serde(rename_all = "PascalCase")]
//! struct Profile {
//!     schema_version: u32,
//!     coins: i64,
//!     #[serde(default, rename = "CompletedEventIds")]
//!     paid: CompletedEvents,
//! }
//! fn reward(profile: &mut Profile, id: &str, coins: i64) {
//!     if profile.paid.complete(id) {
//!         profile.coins = profile.coins.saturating_add(coins);
//!     }
//! }
//! ```
//!
//! ## In Bevy ([`SavePlugin`])
//!
//! One slot per app; add documents with [`SaveAppExt::add_save_document`].
//! In `PreStartup` the slot loads and each document's
//! [`SaveDocument::apply`] runs; [`SaveLoaded`] says what happened. In
//! `Last` ([`SaveSystems::Write`]): [`SaveRequest`] commits now,
//! [`SaveSlot::mark_dirty`] autosaves a delay after the first change not
//! saved yet, a failed commit keeps the changes dirty, sends [`SaveFailed`]
//! and is retried ([`RetryPolicy`]: 1 s, doubling to 60 s); and after
//! `Last` ([`SaveExit`], [`SaveSystems::Exit`]), at an
//! [`AppExit`](bevy::app::AppExit) sent anywhere in the frame, whatever is
//! not on disk is committed once more (a failure then is reported with
//! `at_exit`). Commits run on a writer thread, in order,
//! newest wins. [`SaveStatus`] (a resource) is what HUDs and the inspector
//! show ([`SaveStatus::summary`]).
//!
//! ## Testing saves
//!
//! [`testing::MemFs`] is an in-memory [`SaveFs`] that crashes before or
//! during any call, or fails it with ENOSPC, EROFS or EACCES; give it to
//! [`SaveStore::with_fs`] or [`SavePlugin::with_fs`].

mod error;
mod fs;
mod once;
mod plugin;
mod signed;
mod store;
pub mod testing;
mod ticks;
mod writer;

pub use error::{LoadError, SaveError};
pub use fs::{OsFs, ReadBytes, SaveFs};
pub use once::CompletedEvents;
pub use plugin::{
    MissingDocument, ReloadRequest, RetryPolicy, SaveAppExt, SaveCompleted, SaveDocument, SaveExit,
    SaveFailed, SaveLoaded, SavePlugin, SaveRequest, SaveSlot, SaveStatus, SaveSystems,
};
pub use signed::{
    DocumentHeader, SAVE_COUNTER_FIELD, SIGNATURE_LEN, SLOT_DOCUMENTS_FIELD, SaveKey,
    insert_save_counter, insert_slot_fields, parse_body, parse_document, read_header,
};
pub use store::{
    CommitReport, CopyKind, CopyReport, DEFAULT_MAX_SIZE, DEFAULT_QUARANTINE_KEEP, DocSpec,
    DocumentLoad, LoadOutcome, SaveStore, SlotLoad, UnverifiedSave, Verdict, aside_prefix,
};
pub use ticks::{
    UNIX_EPOCH_TICKS, now_ticks, system_time_to_ticks, ticks_to_unix_seconds, utc_file_stamp,
};
pub use writer::{SaveJob, SaveWriter, WriteResult};

/// The names most users need.
pub mod prelude {
    pub use crate::{
        CompletedEvents, CopyKind, DocumentLoad, LoadOutcome, MissingDocument, ReloadRequest,
        SaveAppExt, SaveCompleted, SaveDocument, SaveFailed, SaveKey, SaveLoaded, SavePlugin,
        SaveRequest, SaveSlot, SaveStatus, SaveSystems, UnverifiedSave,
    };
}
