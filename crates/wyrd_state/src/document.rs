//! The persisted world-state document, in the seed's JSON schema.
//!
//! ```json
//! {
//!   "SchemaVersion": 1,
//!   "ProfileId": "",
//!   "LastSavedUtcTicks": 639287208004213377,
//!   "BoolFlags": [ { "Id": "a3f1…0c58", "DebugName": "NPC_DRONE_SPK_01", "Value": true, "Version": 1 } ],
//!   "IntCounters": [ { "Id": "5904…b193", "DebugName": "QST_DST_TOWER_5", "Value": 5 } ],
//!   "CompletedEventIds": []
//! }
//! ```
//! `Version` is optional (a missing version reads as 1). Run-scoped entries
//! are never written, nor are values at their default (absent means default).

use serde::{Deserialize, Serialize};

use crate::asset::Scope;
use crate::id::StableId;
use crate::state::{Entry, WorldState};

/// Schema version this build reads and writes.
pub const WORLD_STATE_SCHEMA_VERSION: u32 = 1;

/// One saved flag or counter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct SavedEntry<T> {
    /// Stable id (32 hex chars). Kept as text so that an entry this build
    /// does not understand survives untouched.
    pub id: String,
    /// Debug name at save time (informational: entries are matched by id).
    pub debug_name: String,
    /// The value.
    pub value: T,
    /// The entry's version at save time; `None` reads as 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
}

/// The world state as saved on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct WorldStateDocument {
    /// Always [`WORLD_STATE_SCHEMA_VERSION`] when written by this build.
    pub schema_version: u32,
    /// The player profile the save belongs to.
    #[serde(default)]
    pub profile_id: String,
    /// .NET ticks (100 ns since 0001-01-01 UTC) of the save.
    #[serde(default)]
    pub last_saved_utc_ticks: i64,
    /// Meta-scoped flags.
    pub bool_flags: Vec<SavedEntry<bool>>,
    /// Meta-scoped counters.
    pub int_counters: Vec<SavedEntry<i64>>,
    /// Completed event ids.
    #[serde(default)]
    pub completed_event_ids: Vec<String>,
}

impl Default for WorldStateDocument {
    fn default() -> Self {
        WorldStateDocument {
            schema_version: WORLD_STATE_SCHEMA_VERSION,
            profile_id: String::new(),
            last_saved_utc_ticks: 0,
            bool_flags: Vec::new(),
            int_counters: Vec::new(),
            completed_event_ids: Vec::new(),
        }
    }
}

/// A saved value no declared entry took (yet): kept untouched and written
/// back, so that nothing is lost when a game is downgraded or a flags file
/// loads late.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Parked {
    Flag(SavedEntry<bool>, u64),
    Counter(SavedEntry<i64>, u64),
}

/// What applying a saved document did.
#[derive(Debug, Clone, Default, PartialEq, Eq, bevy::reflect::Reflect)]
pub struct LoadReport {
    /// Entries whose saved value was applied.
    pub applied: usize,
    /// Entries reset to their default because the saved version was older
    /// than the declared one: `(name, saved version, declared version)`.
    pub reset: Vec<(String, u32, u32)>,
    /// Saved entries no loaded flags file declares (kept untouched, written
    /// back on the next save; applied if a file declares them later).
    pub undeclared: Vec<String>,
    /// Saved entries that are Run-scoped now (ignored).
    pub ignored_run_scoped: Vec<String>,
    /// Ids saved more than once: the first value is used, the others are
    /// dropped (by debug name).
    pub duplicates: Vec<String>,
    /// Saved values that do not fit their declaration: a version of 0
    /// (versions start at 1) or newer than the declared one (the value is
    /// kept), an id declared as the other kind (kept untouched).
    pub out_of_range: Vec<String>,
}

impl LoadReport {
    /// Problems worth a warning, one line each.
    pub fn problems(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .duplicates
            .iter()
            .map(|d| format!("{d} is saved more than once; the first value is used"))
            .collect();
        out.extend(self.out_of_range.iter().cloned());
        out.extend(
            self.ignored_run_scoped
                .iter()
                .map(|n| run_scoped_problem(n)),
        );
        out
    }
}

/// A saved value whose entry is declared Run-scoped now, in words.
pub(crate) fn run_scoped_problem(name: &str) -> String {
    format!(
        "{name} is saved as a Meta value and declared `scope: Run` now: the saved value is kept in the save, unused while the entry is Run-scoped"
    )
}

/// Outcome of offering a saved value to a declared entry.
pub(crate) enum Adopt {
    Applied,
    Reset(u32),
    RunScoped,
}

pub(crate) fn adopt<T: Copy>(entry: &mut Entry<T>, value: T, version: Option<u32>) -> Adopt {
    if entry.scope == Scope::Run {
        return Adopt::RunScoped;
    }
    let saved = version.unwrap_or(1).max(1);
    if saved < entry.version {
        entry.value = entry.default;
        Adopt::Reset(saved)
    } else {
        entry.value = value;
        Adopt::Applied
    }
}

impl WorldState {
    /// Takes the document to save: every Meta-scoped entry (declared or
    /// orphaned) whose value is not its default, then saved entries no file
    /// declares, unchanged.
    pub fn to_document(&self, last_saved_utc_ticks: i64) -> WorldStateDocument {
        fn saved<T: Copy>(e: &Entry<T>) -> SavedEntry<T> {
            SavedEntry {
                id: e.id.to_string(),
                debug_name: e.name.to_string(),
                value: e.value,
                version: Some(e.version),
            }
        }
        let mut doc = WorldStateDocument {
            profile_id: self.profile_id.clone(),
            last_saved_utc_ticks,
            completed_event_ids: self.completed_events().to_vec(),
            ..Default::default()
        };
        // A value at its default is not written: absent means default, and
        // the save lists exactly the progress made (as the seed's does).
        doc.bool_flags = self
            .flags
            .iter()
            .filter(|e| e.scope == Scope::Meta && e.value != e.default)
            .map(saved)
            .collect();
        doc.int_counters = self
            .counters
            .iter()
            .filter(|e| e.scope == Scope::Meta && e.value != e.default)
            .map(saved)
            .collect();
        let mut parked: Vec<&Parked> = self.parked.values().collect();
        parked.sort_by_key(|p| match p {
            Parked::Flag(_, order) | Parked::Counter(_, order) => *order,
        });
        for p in parked {
            match p {
                Parked::Flag(e, _) => doc.bool_flags.push(e.clone()),
                Parked::Counter(e, _) => doc.int_counters.push(e.clone()),
            }
        }
        doc
    }

    /// Replaces the Meta-scoped values and completed events with a saved
    /// document's. Entries absent from the document go back to their
    /// default. Sends one [`WorldStateLoaded`](crate::WorldStateLoaded)
    /// message, no per-entry change messages.
    pub fn apply_document(&mut self, doc: &WorldStateDocument) -> LoadReport {
        let mut report = LoadReport::default();
        for e in self.flags.iter_mut().filter(|e| e.scope == Scope::Meta) {
            e.value = e.default;
        }
        for e in self.counters.iter_mut().filter(|e| e.scope == Scope::Meta) {
            e.value = e.default;
        }
        self.parked.clear();
        self.profile_id.clone_from(&doc.profile_id);
        self.clear_completed();
        for id in &doc.completed_event_ids {
            self.mark_completed_silently(id);
        }
        let mut order = 0u64;
        let mut seen = std::collections::HashSet::new();
        for s in &doc.bool_flags {
            order += 1;
            if !seen.insert(s.id.as_str()) {
                report.duplicates.push(s.debug_name.clone());
                continue;
            }
            let id = StableId::parse(&s.id).ok();
            let handle = id.and_then(|id| self.flag_handle(id).ok());
            match handle {
                Some(h) => {
                    let entry = &mut self.flags[h.index()];
                    check_version(&mut report, entry.name.as_ref(), s.version, entry.version);
                    let outcome = adopt(entry, s.value, s.version);
                    if matches!(outcome, Adopt::RunScoped) {
                        self.parked
                            .insert(parked_key(true, &s.id), Parked::Flag(s.clone(), order));
                    }
                    record(&mut report, outcome, entry.name.as_ref(), entry.version);
                }
                None => {
                    if id.is_some_and(|id| self.counter_handle(id).is_ok()) {
                        report.out_of_range.push(kind_problem(&s.debug_name, true));
                    }
                    report.undeclared.push(s.debug_name.clone());
                    self.parked
                        .insert(parked_key(true, &s.id), Parked::Flag(s.clone(), order));
                }
            }
        }
        let mut seen = std::collections::HashSet::new();
        for s in &doc.int_counters {
            order += 1;
            if !seen.insert(s.id.as_str()) {
                report.duplicates.push(s.debug_name.clone());
                continue;
            }
            let id = StableId::parse(&s.id).ok();
            let handle = id.and_then(|id| self.counter_handle(id).ok());
            match handle {
                Some(h) => {
                    let entry = &mut self.counters[h.index()];
                    check_version(&mut report, entry.name.as_ref(), s.version, entry.version);
                    let outcome = adopt(entry, s.value, s.version);
                    if matches!(outcome, Adopt::RunScoped) {
                        self.parked
                            .insert(parked_key(false, &s.id), Parked::Counter(s.clone(), order));
                    }
                    record(&mut report, outcome, entry.name.as_ref(), entry.version);
                }
                None => {
                    if id.is_some_and(|id| self.flag_handle(id).is_ok()) {
                        report.out_of_range.push(kind_problem(&s.debug_name, false));
                    }
                    report.undeclared.push(s.debug_name.clone());
                    self.parked
                        .insert(parked_key(false, &s.id), Parked::Counter(s.clone(), order));
                }
            }
        }
        self.save_problems = report.problems();
        self.unmatched_said = false;
        self.pending.loaded.push(crate::WorldStateLoaded {
            report: report.clone(),
        });
        report
    }

    /// What was wrong with the loaded save's values (duplicates, versions
    /// out of range, ids saved as the other kind), including entries
    /// declared after the save loaded. One line each.
    pub fn save_problems(&self) -> &[String] {
        &self.save_problems
    }

    /// The saved values no declared entry takes, one line each (after the
    /// flags files merged: an id changed by mistake, a removed entry), and
    /// for a name the files declare with another id, that id: saves match
    /// entries by id.
    pub fn unmatched_saved(&self) -> Vec<String> {
        let mut parked: Vec<&Parked> = self.parked.values().collect();
        parked.sort_by_key(|p| match p {
            Parked::Flag(_, order) | Parked::Counter(_, order) => *order,
        });
        parked
            .into_iter()
            .filter_map(|p| {
                let (name, id, value, flag) = match p {
                    Parked::Flag(e, _) => (&e.debug_name, &e.id, e.value.to_string(), true),
                    Parked::Counter(e, _) => (&e.debug_name, &e.id, e.value.to_string(), false),
                };
                let declared = StableId::parse(id).ok().is_some_and(|id| {
                    if flag {
                        self.flag_handle(id).is_ok()
                    } else {
                        self.counter_handle(id).is_ok()
                    }
                });
                // A declared one is Run-scoped now (said when it merged).
                if declared {
                    return None;
                }
                let other = self
                    .declared_id_of(name)
                    .map_or_else(String::new, |other| {
                        format!(
                            "; the flags files declare {name} with id {other}: saves match entries by id, keep an entry's id when editing it"
                        )
                    });
                Some(format!(
                    "{name} (id {id}) is in the save and no flags file declares it: its value {value} is kept and written back{other}"
                ))
            })
            .collect()
    }

    /// Saved entries that no loaded flags file declares, by debug name.
    pub fn undeclared_saved(&self) -> impl Iterator<Item = &str> {
        self.parked.values().map(|p| match p {
            Parked::Flag(e, _) => e.debug_name.as_str(),
            Parked::Counter(e, _) => e.debug_name.as_str(),
        })
    }
}

fn check_version(report: &mut LoadReport, name: &str, saved: Option<u32>, declared: u32) {
    report
        .out_of_range
        .extend(version_problem(name, saved, declared));
}

/// Parked entries are keyed by kind and id: a flag and a counter saved
/// with the same id are both kept.
pub(crate) fn parked_key(flag: bool, id: &str) -> String {
    format!("{}:{id}", if flag { 'f' } else { 'c' })
}

/// A saved version that does not fit the declared one, in words.
pub(crate) fn version_problem(name: &str, saved: Option<u32>, declared: u32) -> Option<String> {
    match saved {
        Some(0) => Some(format!(
            "{name} is saved with version 0 (versions start at 1); read as 1"
        )),
        Some(v) if v > declared => Some(format!(
            "{name} is saved with version {v}, newer than the declared {declared}; the value is kept"
        )),
        _ => None,
    }
}

/// A saved entry whose id is declared as the other kind, in words.
pub(crate) fn kind_problem(name: &str, saved_as_flag: bool) -> String {
    let (saved, declared) = if saved_as_flag {
        ("flag", "counter")
    } else {
        ("counter", "flag")
    };
    format!("{name} is saved as a {saved} but declared as a {declared}; kept untouched")
}

fn record(report: &mut LoadReport, outcome: Adopt, name: &str, declared_version: u32) {
    match outcome {
        Adopt::Applied => report.applied += 1,
        Adopt::Reset(saved) => report
            .reset
            .push((name.to_owned(), saved, declared_version)),
        Adopt::RunScoped => report.ignored_run_scoped.push(name.to_owned()),
    }
}
