//! The [`WorldState`] resource: values of every declared flag and counter.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bevy::ecs::resource::Resource;

use crate::asset::{EntryDecl, FlagsFile, Scope};
use crate::document::{Adopt, Parked, adopt};
use crate::id::StableId;
use crate::messages::{CounterChanged, EventCompleted, FlagChanged, WorldStateLoaded};

/// A label saying who changed a value (`"quest_manager"`, `"inspector"`,
/// `"bt:hub/drone/step_1"`). Carried by every change message.
pub type ChangeSource = Cow<'static, str>;

/// O(1) reference to a declared flag. Obtained from [`WorldState::flag_handle`];
/// stays valid for the life of the [`WorldState`] (entries are never removed,
/// only orphaned).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, bevy::reflect::Reflect)]
pub struct FlagHandle(pub(crate) u32);

/// O(1) reference to a declared counter. See [`FlagHandle`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, bevy::reflect::Reflect)]
pub struct CounterHandle(pub(crate) u32);

impl FlagHandle {
    /// Index in [`WorldState::flags`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl CounterHandle {
    /// Index in [`WorldState::counters`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Slot {
    Flag(u32),
    Counter(u32),
}

/// A declared entry with its current value.
#[derive(Debug, Clone, PartialEq, bevy::reflect::Reflect)]
pub struct Entry<T> {
    /// Stable identity.
    pub id: StableId,
    /// Debug name (shared; reflection shows the entry's id and value).
    #[reflect(ignore)]
    pub name: Arc<str>,
    /// Current value.
    pub value: T,
    /// Default from the declaring file.
    pub default: T,
    /// Version from the declaring file.
    pub version: u32,
    /// Meta or Run.
    pub scope: Scope,
    /// Designer-facing description.
    pub description: String,
    /// The file that declares the entry; `None` once the file stopped
    /// declaring it (the value is kept so that no progress is lost).
    pub file: Option<PathBuf>,
}

/// A flag and its value.
pub type FlagEntry = Entry<bool>;
/// A counter and its value.
pub type CounterEntry = Entry<i64>;

/// Errors of the [`WorldState`] API. Never a panic: every look-up that can
/// miss returns one of these, naming what was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WorldStateError {
    /// No flag or counter has this name.
    #[error("no flag or counter is named {0:?}")]
    UnknownName(String),
    /// No flag or counter has this id.
    #[error("no flag or counter has the id {0}")]
    UnknownId(StableId),
    /// The name or id belongs to a counter.
    #[error("{0:?} is a counter, not a flag")]
    NotAFlag(String),
    /// The name or id belongs to a flag.
    #[error("{0:?} is a flag, not a counter")]
    NotACounter(String),
    /// A handle from another `WorldState`.
    #[error("handle {0} does not belong to this world state")]
    BadHandle(u32),
}

/// Two files disagree about an entry; the second file was not applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeclarationConflict {
    /// The same id in two files.
    #[error("id {id} ({name:?}) is declared in both {} and {}; {} was not applied", first.display(), second.display(), second.display())]
    SameId {
        /// The id.
        id: StableId,
        /// Its name in the second file.
        name: String,
        /// The file that declared it first (and still does).
        first: PathBuf,
        /// The file that was rejected.
        second: PathBuf,
    },
    /// The same name in two files.
    #[error("name {name:?} is declared in both {} and {}; {} was not applied", first.display(), second.display(), second.display())]
    SameName {
        /// The name.
        name: String,
        /// The file that declared it first (and still does).
        first: PathBuf,
        /// The file that was rejected.
        second: PathBuf,
    },
    /// An id declared as a flag is now declared as a counter, or back.
    #[error("{name:?} ({id}) was a {was} and {} declares it as a {now}; the file was not applied", file.display())]
    KindChanged {
        /// The id.
        id: StableId,
        /// The name.
        name: String,
        /// "flag" or "counter".
        was: &'static str,
        /// "flag" or "counter".
        now: &'static str,
        /// The file that was rejected.
        file: PathBuf,
    },
}

/// What merging a file changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// Names of newly declared entries.
    pub added: Vec<String>,
    /// Names of entries whose metadata the file updated (values are kept).
    pub updated: Vec<String>,
    /// Names of entries this file used to declare and no longer does (their
    /// values are kept).
    pub removed: Vec<String>,
    /// New entries that took a value from the loaded save.
    pub restored: Vec<String>,
    /// New entries whose saved value was older than their version and was
    /// reset to the default.
    pub reset_by_version: Vec<String>,
}

/// Anything that names a flag: a [`FlagHandle`], a name (`&str`) or a
/// [`StableId`].
pub trait FlagKey {
    /// Finds the flag.
    fn flag_handle(&self, state: &WorldState) -> Result<FlagHandle, WorldStateError>;
}

/// Anything that names a counter: a [`CounterHandle`], a name or a
/// [`StableId`].
pub trait CounterKey {
    /// Finds the counter.
    fn counter_handle(&self, state: &WorldState) -> Result<CounterHandle, WorldStateError>;
}

impl FlagKey for FlagHandle {
    fn flag_handle(&self, state: &WorldState) -> Result<FlagHandle, WorldStateError> {
        if self.index() < state.flags.len() {
            Ok(*self)
        } else {
            Err(WorldStateError::BadHandle(self.0))
        }
    }
}

impl CounterKey for CounterHandle {
    fn counter_handle(&self, state: &WorldState) -> Result<CounterHandle, WorldStateError> {
        if self.index() < state.counters.len() {
            Ok(*self)
        } else {
            Err(WorldStateError::BadHandle(self.0))
        }
    }
}

impl FlagKey for str {
    fn flag_handle(&self, state: &WorldState) -> Result<FlagHandle, WorldStateError> {
        match state.by_name.get(self) {
            Some(Slot::Flag(i)) => Ok(FlagHandle(*i)),
            Some(Slot::Counter(_)) => Err(WorldStateError::NotAFlag(self.to_owned())),
            None => Err(WorldStateError::UnknownName(self.to_owned())),
        }
    }
}

impl CounterKey for str {
    fn counter_handle(&self, state: &WorldState) -> Result<CounterHandle, WorldStateError> {
        match state.by_name.get(self) {
            Some(Slot::Counter(i)) => Ok(CounterHandle(*i)),
            Some(Slot::Flag(_)) => Err(WorldStateError::NotACounter(self.to_owned())),
            None => Err(WorldStateError::UnknownName(self.to_owned())),
        }
    }
}

impl FlagKey for StableId {
    fn flag_handle(&self, state: &WorldState) -> Result<FlagHandle, WorldStateError> {
        match state.by_id.get(self) {
            Some(Slot::Flag(i)) => Ok(FlagHandle(*i)),
            Some(Slot::Counter(_)) => Err(WorldStateError::NotAFlag(self.to_string())),
            None => Err(WorldStateError::UnknownId(*self)),
        }
    }
}

impl CounterKey for StableId {
    fn counter_handle(&self, state: &WorldState) -> Result<CounterHandle, WorldStateError> {
        match state.by_id.get(self) {
            Some(Slot::Counter(i)) => Ok(CounterHandle(*i)),
            Some(Slot::Flag(_)) => Err(WorldStateError::NotACounter(self.to_string())),
            None => Err(WorldStateError::UnknownId(*self)),
        }
    }
}

impl<K: FlagKey + ?Sized> FlagKey for &K {
    fn flag_handle(&self, state: &WorldState) -> Result<FlagHandle, WorldStateError> {
        (**self).flag_handle(state)
    }
}

impl<K: CounterKey + ?Sized> CounterKey for &K {
    fn counter_handle(&self, state: &WorldState) -> Result<CounterHandle, WorldStateError> {
        (**self).counter_handle(state)
    }
}

impl FlagKey for String {
    fn flag_handle(&self, state: &WorldState) -> Result<FlagHandle, WorldStateError> {
        self.as_str().flag_handle(state)
    }
}

impl CounterKey for String {
    fn counter_handle(&self, state: &WorldState) -> Result<CounterHandle, WorldStateError> {
        self.as_str().counter_handle(state)
    }
}

/// Changes made since the last flush, turned into messages by
/// [`WorldStateSystems::Flush`](crate::WorldStateSystems::Flush).
#[derive(Debug, Default)]
pub(crate) struct Pending {
    pub flags: Vec<FlagChanged>,
    pub counters: Vec<CounterChanged>,
    pub events: Vec<EventCompleted>,
    pub loaded: Vec<WorldStateLoaded>,
}

/// The values of every declared flag and counter, and the completed event ids.
///
/// Game systems read and write it through `Res<WorldState>` /
/// `ResMut<WorldState>`. Every real change is recorded and sent as a
/// [`FlagChanged`] / [`CounterChanged`] message by
/// [`WorldStateSystems::Flush`](crate::WorldStateSystems::Flush) (in `Last`);
/// writing the value an entry already has records nothing.
///
/// ```
/// # use wyrd_state::prelude::*;
/// # let mut state = WorldState::default();
/// # let file = FlagsFile::from_bytes("doc.flags.ron", br#"(flags: [(id: "a3f19c7e52d04b8e9c1f6d2a7b4e0c58", name: "NPC_DRONE_SPK_01", default: false)],
/// #   counters: [(id: "5904375b06586af41bd4c25aedc0b193", name: "QST_DST_TOWER_5", default: 0)])"#).unwrap();
/// # state.merge_file(&file).unwrap();
/// state.set_flag("NPC_DRONE_SPK_01", true, "dialogue")?;
/// assert_eq!(state.add_counter("QST_DST_TOWER_5", 2, "combat")?, 2);
/// assert!(state.check(&Condition::counter("QST_DST_TOWER_5", CounterOp::Ge, 2))?);
/// assert!(matches!(state.flag("NO_SUCH_FLAG"), Err(WorldStateError::UnknownName(_))));
/// # Ok::<(), WorldStateError>(())
/// ```
///
/// Reflected (for bevy-inspector-egui and the Bevy Remote Protocol): the
/// declared flags and counters with their values, and the completed
/// events. Edit values through the API, which records changes.
#[derive(Resource, Debug, Default, bevy::reflect::Reflect)]
#[reflect(from_reflect = false)]
pub struct WorldState {
    pub(crate) flags: Vec<FlagEntry>,
    pub(crate) counters: Vec<CounterEntry>,
    #[reflect(ignore)]
    by_name: HashMap<Arc<str>, Slot>,
    #[reflect(ignore)]
    by_id: HashMap<StableId, Slot>,
    completed: Vec<String>,
    #[reflect(ignore)]
    completed_set: HashSet<String>,
    #[reflect(ignore)]
    pub(crate) pending: Pending,
    /// Saved values no declared entry took yet, by id text.
    #[reflect(ignore)]
    pub(crate) parked: HashMap<String, Parked>,
    pub(crate) profile_id: String,
    /// Problems of the loaded save's values (see `save_problems`).
    pub(crate) save_problems: Vec<String>,
    /// The saved values no entry takes were said since the last load or
    /// merge (`report_unmatched_saved`).
    #[reflect(ignore)]
    pub(crate) unmatched_said: bool,
}

impl WorldState {
    /// Handle of the flag named, or with the id, given.
    pub fn flag_handle(&self, key: impl FlagKey) -> Result<FlagHandle, WorldStateError> {
        key.flag_handle(self)
    }

    /// Handle of the counter named, or with the id, given.
    pub fn counter_handle(&self, key: impl CounterKey) -> Result<CounterHandle, WorldStateError> {
        key.counter_handle(self)
    }

    /// Current value of a flag.
    pub fn flag(&self, key: impl FlagKey) -> Result<bool, WorldStateError> {
        Ok(self.flags[key.flag_handle(self)?.index()].value)
    }

    /// Current value of a counter.
    pub fn counter(&self, key: impl CounterKey) -> Result<i64, WorldStateError> {
        Ok(self.counters[key.counter_handle(self)?.index()].value)
    }

    /// Declaration and value of a flag.
    pub fn flag_entry(&self, key: impl FlagKey) -> Result<&FlagEntry, WorldStateError> {
        Ok(&self.flags[key.flag_handle(self)?.index()])
    }

    /// Declaration and value of a counter.
    pub fn counter_entry(&self, key: impl CounterKey) -> Result<&CounterEntry, WorldStateError> {
        Ok(&self.counters[key.counter_handle(self)?.index()])
    }

    /// Every flag ever declared, in declaration order (index = handle).
    pub fn flags(&self) -> &[FlagEntry] {
        &self.flags
    }

    /// Every counter ever declared, in declaration order (index = handle).
    pub fn counters(&self) -> &[CounterEntry] {
        &self.counters
    }

    /// Sets a flag. Returns whether the value changed (a change is recorded
    /// and sent as a [`FlagChanged`] message).
    pub fn set_flag(
        &mut self,
        key: impl FlagKey,
        value: bool,
        source: impl Into<ChangeSource>,
    ) -> Result<bool, WorldStateError> {
        let handle = key.flag_handle(self)?;
        Ok(self.write_flag(handle, value, source.into()))
    }

    /// Sets a counter. Returns whether the value changed.
    pub fn set_counter(
        &mut self,
        key: impl CounterKey,
        value: i64,
        source: impl Into<ChangeSource>,
    ) -> Result<bool, WorldStateError> {
        let handle = key.counter_handle(self)?;
        Ok(self.write_counter(handle, value, source.into()))
    }

    /// Adds `delta` (saturating) to a counter and returns the new value.
    pub fn add_counter(
        &mut self,
        key: impl CounterKey,
        delta: i64,
        source: impl Into<ChangeSource>,
    ) -> Result<i64, WorldStateError> {
        let handle = key.counter_handle(self)?;
        let value = self.counters[handle.index()].value.saturating_add(delta);
        self.write_counter(handle, value, source.into());
        Ok(value)
    }

    /// Resets every entry of `scope` to its default (e.g. `Scope::Run` when a
    /// run begins). Each entry that changes sends its own message.
    pub fn reset_scope(&mut self, scope: Scope, source: impl Into<ChangeSource>) {
        let source = source.into();
        for i in 0..self.flags.len() {
            if self.flags[i].scope == scope {
                self.write_flag(FlagHandle(i as u32), self.flags[i].default, source.clone());
            }
        }
        for i in 0..self.counters.len() {
            if self.counters[i].scope == scope {
                let default = self.counters[i].default;
                self.write_counter(CounterHandle(i as u32), default, source.clone());
            }
        }
    }

    /// Marks an event id as completed. True only the first time for an id.
    pub fn complete_event(
        &mut self,
        id: impl Into<String>,
        source: impl Into<ChangeSource>,
    ) -> bool {
        let id = id.into();
        if !self.completed_set.insert(id.clone()) {
            return false;
        }
        self.completed.push(id.clone());
        self.pending.events.push(EventCompleted {
            id,
            source: source.into(),
        });
        true
    }

    /// Whether [`complete_event`](Self::complete_event) was called for `id`.
    pub fn is_event_completed(&self, id: &str) -> bool {
        self.completed_set.contains(id)
    }

    /// Completed event ids, in completion order.
    pub fn completed_events(&self) -> &[String] {
        &self.completed
    }

    pub(crate) fn write_flag(&mut self, h: FlagHandle, value: bool, source: ChangeSource) -> bool {
        let entry = &mut self.flags[h.index()];
        if entry.value == value {
            return false;
        }
        let old = std::mem::replace(&mut entry.value, value);
        self.pending.flags.push(FlagChanged {
            flag: h,
            name: entry.name.clone(),
            old,
            new: value,
            source,
        });
        true
    }

    pub(crate) fn write_counter(
        &mut self,
        h: CounterHandle,
        value: i64,
        source: ChangeSource,
    ) -> bool {
        let entry = &mut self.counters[h.index()];
        if entry.value == value {
            return false;
        }
        let old = std::mem::replace(&mut entry.value, value);
        self.pending.counters.push(CounterChanged {
            counter: h,
            name: entry.name.clone(),
            old,
            new: value,
            source,
        });
        true
    }

    /// Replaces values and completed events wholesale, without change
    /// messages (used when a save is loaded: one "loaded" message instead).
    pub(crate) fn clear_completed(&mut self) {
        self.completed.clear();
        self.completed_set.clear();
    }

    pub(crate) fn mark_completed_silently(&mut self, id: &str) {
        if self.completed_set.insert(id.to_owned()) {
            self.completed.push(id.to_owned());
        }
    }

    /// The player profile of the loaded save (empty by default).
    pub fn profile_id(&self) -> &str {
        &self.profile_id
    }

    /// Sets the profile written into the next save.
    pub fn set_profile_id(&mut self, profile: impl Into<String>) {
        self.profile_id = profile.into();
    }

    /// Merges a file's declarations.
    ///
    /// New entries start at their default; entries the file declared before
    /// get the new metadata but keep their value; entries the file no longer
    /// declares keep their value and are reported in
    /// [`MergeReport::removed`]. A new entry whose id a loaded save holds
    /// takes the saved value (or its default, if the saved version is older). If an id or name is declared by another file,
    /// nothing of this file is applied and every conflict is returned.
    pub fn merge_file(
        &mut self,
        file: &FlagsFile,
    ) -> Result<MergeReport, Vec<DeclarationConflict>> {
        self.unmatched_said = false;
        let conflicts = self.conflicts(file);
        if !conflicts.is_empty() {
            return Err(conflicts);
        }
        let mut report = MergeReport::default();
        let mut declared: HashSet<Slot> = HashSet::new();
        for decl in &file.flags {
            let slot = self.apply_decl(decl, &file.path, &mut report, true);
            declared.insert(slot);
        }
        for decl in &file.counters {
            let slot = self.apply_decl(decl, &file.path, &mut report, false);
            declared.insert(slot);
        }
        for (i, e) in self.flags.iter_mut().enumerate() {
            if e.file.as_deref() == Some(&file.path) && !declared.contains(&Slot::Flag(i as u32)) {
                e.file = None;
                report.removed.push(e.name.to_string());
            }
        }
        for (i, e) in self.counters.iter_mut().enumerate() {
            if e.file.as_deref() == Some(&file.path) && !declared.contains(&Slot::Counter(i as u32))
            {
                e.file = None;
                report.removed.push(e.name.to_string());
            }
        }
        Ok(report)
    }

    /// The file is gone (asset removed): its entries are orphaned, values
    /// kept. Returns their names.
    pub fn forget_file(&mut self, path: &Path) -> Vec<String> {
        let mut removed = Vec::new();
        for e in &mut self.flags {
            if e.file.as_deref() == Some(path) {
                e.file = None;
                removed.push(e.name.to_string());
            }
        }
        for e in &mut self.counters {
            if e.file.as_deref() == Some(path) {
                e.file = None;
                removed.push(e.name.to_string());
            }
        }
        removed
    }

    fn slot_file(&self, slot: Slot) -> Option<&Path> {
        match slot {
            Slot::Flag(i) => self.flags[i as usize].file.as_deref(),
            Slot::Counter(i) => self.counters[i as usize].file.as_deref(),
        }
    }

    fn conflicts(&self, file: &FlagsFile) -> Vec<DeclarationConflict> {
        let mut out = Vec::new();
        let decls = file
            .flags
            .iter()
            .map(|d| (d.id, d.name.as_str(), true))
            .chain(file.counters.iter().map(|d| (d.id, d.name.as_str(), false)));
        for (id, name, is_flag) in decls {
            let kind = |flag: bool| if flag { "flag" } else { "counter" };
            if let Some(&slot) = self.by_id.get(&id) {
                let was_flag = matches!(slot, Slot::Flag(_));
                match self.slot_file(slot) {
                    Some(owner) if owner != file.path => out.push(DeclarationConflict::SameId {
                        id,
                        name: name.to_owned(),
                        first: owner.to_owned(),
                        second: file.path.clone(),
                    }),
                    _ if was_flag != is_flag => out.push(DeclarationConflict::KindChanged {
                        id,
                        name: name.to_owned(),
                        was: kind(was_flag),
                        now: kind(is_flag),
                        file: file.path.clone(),
                    }),
                    _ => {}
                }
            }
            if let Some(&slot) = self.by_name.get(name)
                && self.by_id.get(&id) != Some(&slot)
                && let Some(owner) = self.slot_file(slot)
                && owner != file.path
            {
                out.push(DeclarationConflict::SameName {
                    name: name.to_owned(),
                    first: owner.to_owned(),
                    second: file.path.clone(),
                });
            }
        }
        out
    }

    /// The id of the declared entry named `name`, if any.
    pub(crate) fn declared_id_of(&self, name: &str) -> Option<String> {
        self.by_name.get(name).map(|slot| match *slot {
            Slot::Flag(i) => self.flags[i as usize].id.to_string(),
            Slot::Counter(i) => self.counters[i as usize].id.to_string(),
        })
    }

    fn apply_decl<T: Copy + DeclValue>(
        &mut self,
        decl: &EntryDecl<T>,
        path: &Path,
        report: &mut MergeReport,
        is_flag: bool,
    ) -> Slot {
        let name: Arc<str> = Arc::from(decl.name.as_str());
        let slot = match self.by_id.get(&decl.id) {
            Some(&slot) => {
                let entry = T::entry_mut(self, slot);
                if entry.name != name {
                    let old = std::mem::replace(&mut entry.name, name.clone());
                    // Only if the old name still means this entry: two
                    // names swapped in one edit, the other entry took it
                    // already (removing it lost that entry's name).
                    if self.by_name.get(&old) == Some(&slot) {
                        self.by_name.remove(&old);
                    }
                }
                let entry = T::entry_mut(self, slot);
                // A Meta value made Run-scoped by an edit (hot reload)
                // stays in the save, as one loaded so is.
                if entry.scope == Scope::Meta
                    && decl.scope == Scope::Run
                    && entry.value != entry.default
                {
                    let saved = crate::document::SavedEntry {
                        id: entry.id.to_string(),
                        debug_name: entry.name.to_string(),
                        value: entry.value,
                        version: Some(entry.version),
                    };
                    let key = crate::document::parked_key(is_flag, &saved.id);
                    let problem = crate::document::run_scoped_problem(&saved.debug_name);
                    let parked = T::park(saved, u64::MAX);
                    self.parked.insert(key, parked);
                    self.save_problems.push(problem);
                }
                let entry = T::entry_mut(self, slot);
                let changed = entry.default != decl.default
                    || entry.version != decl.version
                    || entry.scope != decl.scope
                    || entry.description != decl.description
                    || entry.file.as_deref() != Some(path);
                entry.default = decl.default;
                entry.version = decl.version;
                entry.scope = decl.scope;
                entry.description.clone_from(&decl.description);
                entry.file = Some(path.to_owned());
                if changed {
                    report.updated.push(decl.name.clone());
                }
                // Meta again: the value kept while it was Run-scoped.
                let key = crate::document::parked_key(is_flag, &decl.id.to_string());
                if decl.scope == Scope::Meta
                    && let Some(parked) = self.parked.remove(&key)
                    && T::adopt_parked(self, slot, &parked).is_none()
                {
                    self.parked.insert(key, parked);
                }
                slot
            }
            None => {
                let entry = Entry {
                    id: decl.id,
                    name: name.clone(),
                    value: decl.default,
                    default: decl.default,
                    version: decl.version,
                    scope: decl.scope,
                    description: decl.description.clone(),
                    file: Some(path.to_owned()),
                };
                let slot = T::push(self, entry);
                debug_assert_eq!(is_flag, matches!(slot, Slot::Flag(_)));
                let id = decl.id.to_string();
                let other_kind = self
                    .parked
                    .get(&crate::document::parked_key(!is_flag, &id))
                    .map(|p| match p {
                        Parked::Flag(e, _) => e.debug_name.clone(),
                        Parked::Counter(e, _) => e.debug_name.clone(),
                    });
                if let Some(name) = other_kind {
                    // Saved as the other kind: kept untouched, reported.
                    self.save_problems
                        .push(crate::document::kind_problem(&name, !is_flag));
                }
                if let Some(parked) = self
                    .parked
                    .remove(&crate::document::parked_key(is_flag, &id))
                {
                    let (saved_name, saved_version) = match &parked {
                        Parked::Flag(e, _) => (e.debug_name.clone(), e.version),
                        Parked::Counter(e, _) => (e.debug_name.clone(), e.version),
                    };
                    self.save_problems.extend(crate::document::version_problem(
                        &saved_name,
                        saved_version,
                        decl.version,
                    ));
                    match T::adopt_parked(self, slot, &parked) {
                        Some(Adopt::Applied) => report.restored.push(decl.name.clone()),
                        Some(Adopt::Reset(_)) => report.reset_by_version.push(decl.name.clone()),
                        Some(Adopt::RunScoped) => {
                            // Kept in the save, as an undeclared entry's
                            // is: a scope edited by mistake for a session
                            // lost the progress for good.
                            self.save_problems
                                .push(crate::document::run_scoped_problem(&saved_name));
                            self.parked
                                .insert(crate::document::parked_key(is_flag, &id), parked);
                        }
                        None => {}
                    }
                }
                self.by_id.insert(decl.id, slot);
                report.added.push(decl.name.clone());
                slot
            }
        };
        // A name taken over from an orphaned entry (or one this file renamed)
        // now points at the new declaration.
        self.by_name.insert(name, slot);
        slot
    }
}

/// Lets [`WorldState::apply_decl`] treat flags and counters alike.
trait DeclValue: Sized + PartialEq {
    fn entry_mut(state: &mut WorldState, slot: Slot) -> &mut Entry<Self>;
    fn push(state: &mut WorldState, entry: Entry<Self>) -> Slot;
    fn adopt_parked(state: &mut WorldState, slot: Slot, parked: &Parked) -> Option<Adopt>;
    fn park(saved: crate::document::SavedEntry<Self>, order: u64) -> Parked;
}

impl DeclValue for bool {
    fn entry_mut(state: &mut WorldState, slot: Slot) -> &mut Entry<bool> {
        match slot {
            Slot::Flag(i) => &mut state.flags[i as usize],
            Slot::Counter(_) => unreachable!("kind conflicts are rejected before applying"),
        }
    }
    fn push(state: &mut WorldState, entry: Entry<bool>) -> Slot {
        state.flags.push(entry);
        Slot::Flag(state.flags.len() as u32 - 1)
    }
    fn adopt_parked(state: &mut WorldState, slot: Slot, parked: &Parked) -> Option<Adopt> {
        match parked {
            Parked::Flag(saved, _) => Some(adopt(
                Self::entry_mut(state, slot),
                saved.value,
                saved.version,
            )),
            Parked::Counter(..) => None,
        }
    }
    fn park(saved: crate::document::SavedEntry<bool>, order: u64) -> Parked {
        Parked::Flag(saved, order)
    }
}

impl DeclValue for i64 {
    fn entry_mut(state: &mut WorldState, slot: Slot) -> &mut Entry<i64> {
        match slot {
            Slot::Counter(i) => &mut state.counters[i as usize],
            Slot::Flag(_) => unreachable!("kind conflicts are rejected before applying"),
        }
    }
    fn push(state: &mut WorldState, entry: Entry<i64>) -> Slot {
        state.counters.push(entry);
        Slot::Counter(state.counters.len() as u32 - 1)
    }
    fn adopt_parked(state: &mut WorldState, slot: Slot, parked: &Parked) -> Option<Adopt> {
        match parked {
            Parked::Counter(saved, _) => Some(adopt(
                Self::entry_mut(state, slot),
                saved.value,
                saved.version,
            )),
            Parked::Flag(..) => None,
        }
    }
    fn park(saved: crate::document::SavedEntry<i64>, order: u64) -> Parked {
        Parked::Counter(saved, order)
    }
}
