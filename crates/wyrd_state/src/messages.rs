//! Messages sent when the world state changes.

use std::path::PathBuf;
use std::sync::Arc;

use bevy::ecs::message::Message;

use crate::asset::FlagsFileError;
use crate::document::LoadReport;
use crate::state::{ChangeSource, CounterHandle, DeclarationConflict, FlagHandle};

/// A flag took a new value.
#[derive(Message, Debug, Clone, PartialEq, Eq, bevy::reflect::Reflect)]
#[reflect(Debug, from_reflect = false)]
pub struct FlagChanged {
    /// The flag.
    pub flag: FlagHandle,
    /// Its debug name.
    #[reflect(ignore)]
    pub name: Arc<str>,
    /// The value before.
    pub old: bool,
    /// The value now.
    pub new: bool,
    /// Who changed it.
    pub source: ChangeSource,
}

/// A counter took a new value.
#[derive(Message, Debug, Clone, PartialEq, Eq, bevy::reflect::Reflect)]
#[reflect(Debug, from_reflect = false)]
pub struct CounterChanged {
    /// The counter.
    pub counter: CounterHandle,
    /// Its debug name.
    #[reflect(ignore)]
    pub name: Arc<str>,
    /// The value before.
    pub old: i64,
    /// The value now.
    pub new: i64,
    /// Who changed it.
    pub source: ChangeSource,
}

/// An event id was completed for the first time.
#[derive(Message, Debug, Clone, PartialEq, Eq, bevy::reflect::Reflect)]
#[reflect(Debug)]
pub struct EventCompleted {
    /// The event id.
    pub id: String,
    /// Who completed it.
    pub source: ChangeSource,
}

/// Something about the flags files that a developer should know: a file that
/// failed to load, two files that disagree, entries a file stopped declaring.
/// Also logged (errors as `error!`, removals as `warn!`).
#[derive(Message, Debug, Clone, PartialEq, Eq, bevy::reflect::Reflect)]
#[reflect(opaque, Debug, PartialEq)]
pub enum FlagsFileReport {
    /// A flags file was merged into the world state.
    Applied {
        /// The file.
        file: PathBuf,
        /// How many entries it declares.
        entries: usize,
    },
    /// A file could not be parsed; a version of it that loaded before stays
    /// in effect.
    Invalid(FlagsFileError),
    /// A file could not be loaded for another reason (missing, no loader).
    LoadFailed {
        /// The asset path.
        file: PathBuf,
        /// Bevy's error text.
        error: String,
    },
    /// A file declares an id or name that another file owns; the file was not
    /// applied.
    Conflict(DeclarationConflict),
    /// A file no longer declares these entries (or was removed); their values
    /// are kept.
    EntriesRemoved {
        /// The file.
        file: PathBuf,
        /// Names of the entries.
        names: Vec<String>,
    },
}

/// A saved document was applied to the world state: one message for the
/// whole load, not one per entry.
#[derive(Message, Debug, Clone, PartialEq, Eq, bevy::reflect::Reflect)]
#[reflect(Debug)]
pub struct WorldStateLoaded {
    /// What the load applied, reset and kept aside.
    pub report: LoadReport,
}
