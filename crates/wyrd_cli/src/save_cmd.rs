//! `wyrd save status DIR` and `wyrd save diff A B`: what a save folder
//! would load, and how two saves differ.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

use wyrd_save::{CopyKind, DocSpec, SaveKey, SaveStore, Verdict};
use wyrd_state::agents::{AGENTS_SCHEMA_VERSION, AgentsDocument};
use wyrd_state::{WORLD_STATE_SCHEMA_VERSION, WorldStateDocument};

use super::{Failure, bad, read_save, usage};

/// The documents of a save folder: every JSON file name that is not a backup,
/// temp or quarantined copy, plus the base of orphaned backups and temps;
/// and the JSON files beside them that are no save document (plain JSON,
/// no signature line, no backup or temp: the game's own file, which the
/// slot never loads).
struct Documents {
    names: Vec<String>,
    unsigned: Vec<String>,
}

/// The document a copy moved aside belongs to (`profile.json` for
/// `profile.json.corrupt-…` or `profile.json.kept-…`), if it is one.
fn set_aside_of(name: &str) -> Option<&str> {
    [false, true].into_iter().find_map(|valid| {
        let marker = format!(".{}", wyrd_save::aside_prefix(valid));
        name.find(&marker).map(|at| &name[..at])
    })
}

fn documents(dir: &Path) -> Result<Documents, Failure> {
    let entries = std::fs::read_dir(dir).map_err(|e| bad(format!("{}: {e}", dir.display())))?;
    let mut docs = BTreeSet::new();
    let mut copies = BTreeSet::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if set_aside_of(&name).is_some() || !entry.path().is_file() {
            continue;
        }
        let base = name
            .strip_suffix(".bak")
            .or_else(|| name.strip_suffix(".tmp"))
            .unwrap_or(&name);
        if base != name {
            copies.insert(base.to_owned());
        }
        // A slot's documents are JSON: notes and other files beside them
        // are not saves.
        if base.ends_with(".json") {
            docs.insert(base.to_owned());
        }
    }
    // A signed document starts with its signature line, so it never
    // reads as JSON whole.
    let (unsigned, names): (Vec<String>, Vec<String>) = docs.into_iter().partition(|d| {
        !copies.contains(d)
            && std::fs::read(dir.join(d))
                .is_ok_and(|b| serde_json::from_slice::<serde_json::Value>(&b).is_ok())
    });
    Ok(Documents { names, unsigned })
}

fn utc(ticks: i64) -> String {
    let secs = wyrd_save::ticks_to_unix_seconds(ticks).max(0.0);
    wyrd_save::utc_file_stamp(UNIX_EPOCH + Duration::from_secs_f64(secs))
}

/// `wyrd save status DIR --key-file K [--schema N]`.
pub(crate) fn status(
    dir: &Path,
    key: &SaveKey,
    schema: u32,
    out: &mut String,
) -> Result<(), Failure> {
    let Documents {
        names: docs,
        unsigned,
    } = documents(dir)?;
    for name in &unsigned {
        out.push_str(&format!(
            "{name}: plain JSON without a signature line, not a save document (the game's own file?): left out\n"
        ));
    }
    if docs.is_empty() {
        out.push_str(&format!(
            "{}: no save files (a game would start fresh)\n",
            dir.display()
        ));
        return Err(bad(""));
    }
    let survey_of = |docs: &[String]| {
        SaveStore::new(dir, key.clone())
            .with_documents(docs.iter().map(|d| DocSpec::json(d.clone(), schema)))
            .survey()
    };
    let mut survey = survey_of(&docs);
    let mut loaded: Vec<Option<serde_json::Value>> =
        (0..docs.len()).map(|i| survey.take(i)).collect();
    // A document the slot lists (`SlotDocuments`) and the folder lacks,
    // deleted: surveyed too, as the game loads it (it was left out, and
    // the command said nothing of what the game reports missing).
    let listed: Vec<String> = loaded
        .iter()
        .flatten()
        .find_map(|doc| {
            serde_json::from_value::<Vec<String>>(doc.get(wyrd_save::SLOT_DOCUMENTS_FIELD)?.clone())
                .ok()
        })
        .unwrap_or_default();
    let missing: Vec<String> = listed
        .into_iter()
        .filter(|d| !docs.contains(d) && !unsigned.contains(d))
        .collect();
    let mut docs = docs;
    if !missing.is_empty() {
        docs.extend(missing);
        survey = survey_of(&docs);
        loaded = (0..docs.len()).map(|i| survey.take(i)).collect();
    }
    let outcome = survey.outcome;
    out.push_str(&format!(
        "{}: {} document(s); would load: {}\n",
        dir.display(),
        docs.len(),
        outcome.describe()
    ));
    let mut unusable = Vec::new();
    for (i, d) in outcome.documents.iter().enumerate() {
        out.push_str(&format!("{}\n", d.file));
        for c in &d.copies {
            let name = c
                .path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            let mark = if d.source == Some(c.kind) {
                "  <- loads"
            } else {
                ""
            };
            let kind = match c.kind {
                CopyKind::Primary => "primary",
                CopyKind::Backup => "backup",
                CopyKind::Temp => "temp",
            };
            out.push_str(&format!("  {kind:<8} {name:<28} {}{mark}\n", c.verdict));
        }
        let quarantined: Vec<String> = std::fs::read_dir(dir)
            .map(|rd| {
                let mut v: Vec<String> = rd
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| set_aside_of(n) == Some(d.file.as_str()))
                    .collect();
                v.sort();
                v
            })
            .unwrap_or_default();
        if !quarantined.is_empty() {
            out.push_str(&format!("  kept aside: {}\n", quarantined.join(", ")));
        }
        match loaded[i].take() {
            Some(doc) => {
                if let Ok(ws) = serde_json::from_value::<WorldStateDocument>(doc) {
                    out.push_str(&format!(
                        "  progress: {} flag(s) and {} counter(s) saved, last saved {}\n",
                        ws.bool_flags.len(),
                        ws.int_counters.len(),
                        utc(ws.last_saved_utc_ticks)
                    ));
                }
            }
            None if d
                .copies
                .iter()
                .any(|c| c.verdict != Verdict::Invalid(wyrd_save::LoadError::Missing)) =>
            {
                unusable.push(d.file.clone());
            }
            None => {}
        }
    }
    if unusable.is_empty() {
        Ok(())
    } else {
        Err(bad(format!(
            "{}: no usable copy of {}",
            dir.display(),
            unusable.join(", ")
        )))
    }
}

/// A document from a file, or from a save folder (the copy of `name` that
/// would load).
fn document<D: wyrd_save::SaveDocument>(
    path: &Path,
    key: &SaveKey,
    name: &str,
    schema: u32,
) -> Result<D, Failure> {
    if path.is_dir() {
        let store =
            SaveStore::new(path, key.clone()).with_documents([DocSpec::new::<D>(name, schema)]);
        let mut survey = store.survey();
        return survey.take::<D>(0).ok_or_else(|| {
            bad(format!(
                "{}: no usable {name} ({})",
                path.display(),
                survey.outcome.describe()
            ))
        });
    }
    let bytes = read_save(path)?;
    key.open_json(&bytes, schema)
        .map_err(|e| bad(format!("{}: {e}", path.display())))
}

/// A world-state document from a file, or from a save folder.
fn world_state(path: &Path, key: &SaveKey) -> Result<WorldStateDocument, Failure> {
    document(path, key, "world_state.json", WORLD_STATE_SCHEMA_VERSION)
}

/// Whether a save file is the agents' document (by its name, as the
/// slot names it).
fn is_agents_file(path: &Path) -> bool {
    !path.is_dir() && super::document_name(path) == "agents.json"
}

/// The agents' document of a save folder (the copy that would load; `None`
/// when the slot has none) or an `agents.json` file (`None`: another file).
fn agents(path: &Path, key: &SaveKey) -> Result<Option<AgentsDocument>, Failure> {
    let has = if path.is_dir() {
        path.join("agents.json").exists() || path.join("agents.json.bak").exists()
    } else {
        is_agents_file(path)
    };
    if !has {
        return Ok(None);
    }
    document(path, key, "agents.json", AGENTS_SCHEMA_VERSION).map(Some)
}

/// `wyrd save diff A B --key-file K`: flags, counters and events that
/// differ, by id, and the saved agents that differ (see [`agent_facts`]);
/// whether any differ.
pub(crate) fn diff(a: &Path, b: &Path, key: &SaveKey, out: &mut String) -> Result<bool, Failure> {
    let mut lines = Vec::new();
    let what = match (is_agents_file(a), is_agents_file(b)) {
        (true, true) => "agents",
        // Two folders of a game that saves no world state: its documents.
        (false, false) if !has_world_state(a) && !has_world_state(b) => "documents",
        (false, false) => {
            world_lines(&world_state(a, key)?, &world_state(b, key)?, &mut lines);
            "flags, counters or events"
        }
        _ => {
            return Err(usage(format!(
                "{} and {}: compare two agents.json files, two world-state files or two save folders",
                a.display(),
                b.display()
            )));
        }
    };
    let mut what = what;
    // Agents only between like and like: a world-state file against a
    // folder compares the world state.
    let like = (a.is_dir() && b.is_dir()) || what == "agents";
    if like
        && let (left, right) = (agents(a, key)?, agents(b, key)?)
        && (left.is_some() || right.is_some())
    {
        what = if what == "agents" {
            what
        } else {
            "flags, counters, events or agents"
        };
        agent_lines(
            &left.unwrap_or_default(),
            &right.unwrap_or_default(),
            &mut lines,
        );
    }
    // The game's own documents of two folders, value by value (a CI gate
    // comparing two saves saw only the world state and the agents), each
    // the copy the game would load.
    if a.is_dir() && b.is_dir() {
        let (left, left_skipped) = game_documents(a, key)?;
        let (right, right_skipped) = game_documents(b, key)?;
        let names: BTreeSet<&String> = left.keys().chain(right.keys()).collect();
        for name in &names {
            json_lines(name, "", left.get(*name), right.get(*name), &mut lines);
        }
        for (dir, skipped) in [(a, &left_skipped), (b, &right_skipped)] {
            for name in skipped {
                out.push_str(&format!(
                    "({name} in {}: not compared, no copy of it loads)\n",
                    dir.display()
                ));
            }
        }
        if !names.is_empty() && what != "documents" {
            what = "flags, counters, events, agents or the game's documents";
        }
    }
    if !like && (a.is_dir() || b.is_dir()) {
        lines_note(out);
    }
    if lines.is_empty() {
        out.push_str(&format!("no differences in {what}\n"));
    } else {
        for l in &lines {
            out.push_str(l);
            out.push('\n');
        }
    }
    Ok(!lines.is_empty())
}

/// Whether a save folder has a world-state document (either copy).
fn has_world_state(dir: &Path) -> bool {
    !dir.is_dir()
        || dir.join("world_state.json").exists()
        || dir.join("world_state.json.bak").exists()
}

/// The game's own documents of a save folder (not the world state's or the
/// agents'), each as the copy the slot would load (the same save point for
/// all, as the game chooses it), and the names of those with no copy that
/// loads (a stray unsigned file beside the slot, a damaged document).
fn game_documents(
    dir: &Path,
    key: &SaveKey,
) -> Result<(BTreeMap<String, serde_json::Value>, Vec<String>), Failure> {
    let Documents { names, unsigned } = documents(dir)?;
    let store = SaveStore::new(dir, key.clone())
        .with_documents(names.iter().map(|n| DocSpec::json(n.clone(), u32::MAX)));
    let mut survey = store.survey();
    let (mut loaded, mut skipped) = (BTreeMap::new(), Vec::new());
    for (i, name) in names.iter().enumerate() {
        if name == "world_state.json" || name == "agents.json" {
            continue;
        }
        match survey.take::<serde_json::Value>(i) {
            Some(doc) => {
                loaded.insert(name.clone(), doc);
            }
            None => skipped.push(name.clone()),
        }
    }
    skipped.extend(unsigned);
    Ok((loaded, skipped))
}

/// The values of two versions of a document that differ, a line each by
/// their path in it (`profile.json: Coins: 100 -> 5`); the save slot's own
/// fields (its save point, its documents) are not the game's.
fn json_lines(
    doc: &str,
    at: &str,
    left: Option<&serde_json::Value>,
    right: Option<&serde_json::Value>,
    lines: &mut Vec<String>,
) {
    use serde_json::Value;
    if left == right {
        return;
    }
    // Lists of one length item by item (a change deep in a long list was
    // two lines that looked alike, cut at 80 characters).
    if let (Some(Value::Array(l)), Some(Value::Array(r))) = (left, right)
        && l.len() == r.len()
    {
        for (i, (x, y)) in l.iter().zip(r).enumerate() {
            json_lines(doc, &format!("{at}[{i}]"), Some(x), Some(y), lines);
        }
        return;
    }
    if let (Some(Value::Object(l)), Some(Value::Object(r))) = (left, right) {
        let keys: BTreeSet<&String> = l.keys().chain(r.keys()).collect();
        for k in keys {
            if at.is_empty() && (k == "SaveCounter" || k == "SlotDocuments") {
                continue;
            }
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            json_lines(doc, &path, l.get(k), r.get(k), lines);
        }
        return;
    }
    let shown = |v: Option<&Value>| match v {
        None => "(not saved)".to_owned(),
        Some(v) => {
            let text = v.to_string();
            if text.chars().count() > 80 {
                format!("{}…", text.chars().take(80).collect::<String>())
            } else {
                text
            }
        }
    };
    let at = if at.is_empty() { "(the document)" } else { at };
    lines.push(format!("{doc}: {at}: {} -> {}", shown(left), shown(right)));
}

/// Said when a file is compared with a folder: only the world state is.
fn lines_note(out: &mut String) {
    out.push_str(
        "(the world state only: agents are compared between two save folders or two agents.json files)\n",
    );
}

/// The world state's flags, counters and events that differ.
fn world_lines(left: &WorldStateDocument, right: &WorldStateDocument, lines: &mut Vec<String>) {
    fn table<T: Copy>(e: &[wyrd_state::SavedEntry<T>]) -> BTreeMap<&str, (&str, T)> {
        e.iter()
            .map(|e| (e.id.as_str(), (e.debug_name.as_str(), e.value)))
            .collect()
    }
    fn compare<T: Copy + PartialEq + std::fmt::Display>(
        kind: &str,
        l: &BTreeMap<&str, (&str, T)>,
        r: &BTreeMap<&str, (&str, T)>,
        lines: &mut Vec<String>,
    ) {
        let ids: BTreeSet<&str> = l.keys().chain(r.keys()).copied().collect();
        for id in ids {
            let show =
                |v: Option<&(&str, T)>| v.map_or("(not saved)".to_owned(), |(_, v)| v.to_string());
            let (lv, rv) = (l.get(id), r.get(id));
            if lv.map(|v| v.1) != rv.map(|v| v.1) {
                let name = lv.or(rv).map_or(id, |v| v.0);
                lines.push(format!("{kind:<8}{name}: {} -> {}", show(lv), show(rv)));
            }
        }
    }
    compare(
        "flag",
        &table(&left.bool_flags),
        &table(&right.bool_flags),
        lines,
    );
    compare(
        "counter",
        &table(&left.int_counters),
        &table(&right.int_counters),
        lines,
    );
    let (le, re): (BTreeSet<&String>, BTreeSet<&String>) = (
        left.completed_event_ids.iter().collect(),
        right.completed_event_ids.iter().collect(),
    );
    for e in le.difference(&re) {
        lines.push(format!("event   {e}: completed -> not completed"));
    }
    for e in re.difference(&le) {
        lines.push(format!("event   {e}: not completed -> completed"));
    }
}

/// What a saved agent is, in the terms a designer compares: its tree (and
/// its content hash: an edited file), its ticks and root status, its
/// running nodes, actions with their states, stimuli, blackboard, tags and
/// entity references (timers, cursors and its clock are left out: the
/// ticks already say it ran on).
fn agent_facts(doc: &AgentsDocument) -> BTreeMap<&str, BTreeMap<String, String>> {
    let mut agents: BTreeMap<&str, BTreeMap<String, String>> = BTreeMap::new();
    for (id, saved) in &doc.agents {
        let facts = agents.entry(id.as_str()).or_default();
        facts.insert(
            "tree".into(),
            format!("{} (content {})", saved.tree, saved.tree_hash),
        );
        facts.insert("ticks".into(), saved.ticks.to_string());
        facts.insert("status".into(), saved.status.0.to_lowercase());
        // Where it is in the tree: the running nodes (a `Wait`, a
        // condition rule) as much as its actions.
        let running: Vec<&str> = saved
            .nodes
            .iter()
            .filter(|n| n.status() == wyrd_bt::Status::Running)
            .map(|n| n.path.as_str())
            .collect();
        facts.insert("running".into(), running.join(", "));
        let stimuli: Vec<String> = saved
            .stimuli
            .iter()
            .map(|s| format!("{} at {}", s.behavior, s.at))
            .collect();
        facts.insert("stimuli".into(), stimuli.join(", "));
        // Every slot with its state: a finished action the tree has not
        // taken yet is where the agent is as much as a running one.
        let actions: Vec<String> = saved
            .actions
            .iter()
            .map(|a| format!("{} ({})", a.leaf, a.state))
            .collect();
        facts.insert("actions".into(), actions.join(", "));
        for (key, value) in &saved.blackboard {
            let shown = value.map_or("unset".to_owned(), |v| v.to_string());
            facts.insert(format!("{key:?}"), shown);
        }
        facts.insert("tags".into(), saved.tags.join(", "));
    }
    for r in &doc.entity_refs {
        let target = r
            .target
            .as_deref()
            .map_or("an entity with no id".to_owned(), |t| {
                format!("entity {t:?}")
            });
        agents
            .entry(r.agent.as_str())
            .or_default()
            .insert(format!("{:?}", r.key), target);
    }
    agents
}

/// The saved agents that differ, fact by fact.
fn agent_lines(left: &AgentsDocument, right: &AgentsDocument, lines: &mut Vec<String>) {
    let (l, r) = (agent_facts(left), agent_facts(right));
    let ids: BTreeSet<&str> = l.keys().chain(r.keys()).copied().collect();
    for id in ids {
        match (l.get(id), r.get(id)) {
            (Some(_), None) => lines.push(format!("agent   {id}: saved -> (not saved)")),
            (None, Some(_)) => lines.push(format!("agent   {id}: (not saved) -> saved")),
            (Some(lf), Some(rf)) => {
                let facts: BTreeSet<&String> = lf.keys().chain(rf.keys()).collect();
                for fact in facts {
                    let show = |v: Option<&String>| match v {
                        None => "(none)".to_owned(),
                        Some(v) if v.is_empty() => "(none)".to_owned(),
                        Some(v) => v.clone(),
                    };
                    let (lv, rv) = (lf.get(fact), rf.get(fact));
                    if show(lv) != show(rv) {
                        lines.push(format!(
                            "agent   {id}: {fact}: {} -> {}",
                            show(lv),
                            show(rv)
                        ));
                    }
                }
            }
            (None, None) => {}
        }
    }
}
