//! The world state persisted with `wyrd_save`: the seed's save, Run scope,
//! versions, unknown entries, autosave, exit flush, relaunch.
#![cfg(feature = "save")]

use std::path::{Path, PathBuf};
use std::time::Duration;

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use wyrd_save::{CopyKind, SaveCompleted, SaveKey, SaveLoaded, SaveSlot, SaveStatus, Verdict};
use wyrd_state::prelude::*;
use wyrd_state::{SavedEntry, WORLD_STATE_SCHEMA_VERSION};

const FLAGS: &str = "drone_quest/world_state.flags.ron";

fn assets_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn key() -> SaveKey {
    SaveKey::new("wyrd-test-key")
}

fn app(assets: &Path, save_dir: &Path, autosave: Option<Duration>) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets.to_string_lossy().into_owned(),
            ..Default::default()
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        100,
    )))
    .add_plugins(WorldStatePlugin::with_files([FLAGS]))
    .add_plugins(WorldStateSavePlugin::new(save_dir, key()).with_autosave(autosave));
    app
}

fn run_until(app: &mut App, what: &str, done: impl FnMut(&mut World) -> bool) {
    wyrd_test_support::run_until(app, what, wyrd_test_support::LOAD_UPDATES, done);
}

fn ready(app: &mut App) {
    run_until(app, "the flags file", |w| {
        w.resource::<WorldStateFiles>().all_merged()
    });
}

fn drain<M: Message + Clone>(app: &mut App) -> Vec<M> {
    app.world_mut()
        .resource_mut::<Messages<M>>()
        .drain()
        .collect()
}

fn read_doc(dir: &Path) -> WorldStateDocument {
    let bytes = std::fs::read(dir.join("world_state.json")).unwrap();
    key().open_json(&bytes, WORLD_STATE_SCHEMA_VERSION).unwrap()
}

fn wait_written(app: &mut App) {
    run_until(app, "a write", |w| {
        w.resource::<SaveSlot>().flush();
        w.resource_mut::<Messages<SaveCompleted>>().drain().count() > 0
    });
}

#[test]
fn the_seed_save_loads_with_one_loaded_message_and_no_change_messages() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixture("seed_save.json"),
        dir.path().join("world_state.json"),
    )
    .unwrap();
    let mut app = app(&assets_dir(), dir.path(), None);
    // Every message is kept: they only live for two frames.
    wyrd_test_support::collect::<SaveLoaded>(&mut app);
    wyrd_test_support::collect::<WorldStateLoaded>(&mut app);
    wyrd_test_support::collect::<FlagChanged>(&mut app);
    wyrd_test_support::collect::<CounterChanged>(&mut app);
    run_until(&mut app, "the flags file", |w| {
        w.resource::<WorldStateFiles>().all_merged()
    });
    app.update();
    let w = app.world();
    let loaded = wyrd_test_support::collected::<SaveLoaded>(w).to_vec();
    let world_loaded = wyrd_test_support::collected::<WorldStateLoaded>(w).len();
    let changes = wyrd_test_support::collected::<FlagChanged>(w).len()
        + wyrd_test_support::collected::<CounterChanged>(w).len();
    let state = app.world().resource::<WorldState>();
    for flag in [
        "NPC_DRONE_SPK_01",
        "QST_DST_TOWER_5_COMPLT",
        "NPC_DRONE_SPK_02",
        "QST_DST_SAMERUN_5_COMPLT",
        "DIALOGUE_OPT_DRONE_ENDQST",
    ] {
        assert_eq!(state.flag(flag), Ok(true), "{flag}");
    }
    assert_eq!(state.counter("QST_DST_TOWER_5"), Ok(5));
    assert_eq!(state.counter("QST_DST_SAMERUN_5"), Ok(0));
    assert_eq!(loaded.len(), 1);
    assert_eq!(
        loaded[0].outcome.documents[0].source,
        Some(CopyKind::Primary)
    );
    assert_eq!(
        loaded[0].outcome.save_point,
        Some(0),
        "no SaveCounter: save point 0"
    );
    assert_eq!(world_loaded, 1);
    assert_eq!(changes, 0);
}

#[test]
fn run_scoped_entries_are_never_written_and_meta_ones_are() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app(&assets_dir(), dir.path(), None);
    ready(&mut app);
    {
        let mut state = app.world_mut().resource_mut::<WorldState>();
        state.set_counter("QST_DST_SAMERUN_5", 3, "combat").unwrap();
        state.set_counter("QST_DST_TOWER_5", 2, "combat").unwrap();
        state
            .set_flag("NPC_DRONE_SPK_01", true, "dialogue")
            .unwrap();
        assert!(state.complete_event("intro", "test"));
    }
    app.world_mut().write_message(SaveWorldState::default());
    wait_written(&mut app);
    let doc = read_doc(dir.path());
    assert_eq!(doc.schema_version, 1);
    assert!(doc.last_saved_utc_ticks > 630_000_000_000_000_000);
    assert!(
        doc.int_counters
            .iter()
            .all(|c| c.debug_name != "QST_DST_SAMERUN_5")
    );
    let tower = doc
        .int_counters
        .iter()
        .find(|c| c.debug_name == "QST_DST_TOWER_5")
        .unwrap();
    assert_eq!(
        (tower.value, tower.id.as_str()),
        (2, "5904375b06586af41bd4c25aedc0b193")
    );
    assert!(
        doc.bool_flags
            .iter()
            .any(|f| f.debug_name == "NPC_DRONE_SPK_01" && f.value)
    );
    assert_eq!(doc.completed_event_ids, vec!["intro".to_string()]);
}

fn write_signed(dir: &Path, doc: &WorldStateDocument) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("world_state.json"), key().seal_json(doc).unwrap()).unwrap();
}

#[test]
fn an_older_saved_version_resets_and_undeclared_entries_survive_a_save() {
    // Assets where QST_DST_TOWER_5 is at version 2.
    let assets = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(assets_dir().join(FLAGS))
        .unwrap()
        .replace(
            "name: \"QST_DST_TOWER_5\",",
            "name: \"QST_DST_TOWER_5\", version: 2,",
        );
    std::fs::create_dir_all(assets.path().join("drone_quest")).unwrap();
    std::fs::write(assets.path().join(FLAGS), text).unwrap();

    let unknown = SavedEntry {
        id: "ffffffffffffffffffffffffffffffff".into(),
        debug_name: "FROM_A_NEWER_GAME".into(),
        value: true,
        version: Some(3),
    };
    let saves = tempfile::tempdir().unwrap();
    write_signed(
        saves.path(),
        &WorldStateDocument {
            bool_flags: vec![
                unknown.clone(),
                SavedEntry {
                    id: "a3f19c7e52d04b8e9c1f6d2a7b4e0c58".into(),
                    debug_name: "NPC_DRONE_SPK_01".into(),
                    value: true,
                    version: None,
                },
            ],
            int_counters: vec![SavedEntry {
                id: "5904375b06586af41bd4c25aedc0b193".into(),
                debug_name: "QST_DST_TOWER_5".into(),
                value: 5,
                version: Some(1),
            }],
            ..Default::default()
        },
    );
    let mut app = app(assets.path(), saves.path(), None);
    ready(&mut app);
    let state = app.world().resource::<WorldState>();
    assert_eq!(
        state.counter("QST_DST_TOWER_5"),
        Ok(0),
        "version 1 < 2: reset"
    );
    assert_eq!(
        state.flag("NPC_DRONE_SPK_01"),
        Ok(true),
        "no version reads as 1"
    );
    assert_eq!(
        state.undeclared_saved().collect::<Vec<_>>(),
        vec!["FROM_A_NEWER_GAME"]
    );

    app.world_mut().write_message(SaveWorldState::default());
    wait_written(&mut app);
    let doc = read_doc(saves.path());
    assert!(
        doc.bool_flags.contains(&unknown),
        "kept untouched: {:?}",
        doc.bool_flags
    );
    assert!(
        doc.int_counters
            .iter()
            .all(|c| c.debug_name != "QST_DST_TOWER_5"),
        "reset to its default: not written"
    );
    // Defaults are never written; progress is.
    assert!(doc.bool_flags.iter().all(|f| f.value));
    assert_eq!(doc.bool_flags.len(), 2, "{:?}", doc.bool_flags);
}

#[test]
fn autosave_waits_for_quiet_then_writes_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = app(&assets_dir(), dir.path(), Some(Duration::from_secs(1)));
    ready(&mut app);
    drain::<SaveCompleted>(&mut app);
    // A change every frame for 0.5 s (100 ms frames) keeps postponing it.
    for _ in 0..5 {
        app.world_mut()
            .resource_mut::<WorldState>()
            .add_counter("QST_DST_TOWER_5", 1, "combat")
            .unwrap();
        app.update();
    }
    // Run-scoped changes do not trigger a save.
    app.world_mut()
        .resource_mut::<WorldState>()
        .add_counter("QST_DST_SAMERUN_5", 1, "combat")
        .unwrap();
    for _ in 0..5 {
        app.update();
    }
    app.world().resource::<SaveSlot>().flush();
    assert!(
        !dir.path().join("world_state.json").exists(),
        "saved too early"
    );
    wait_written(&mut app);
    assert_eq!(read_doc(dir.path()).int_counters[0].value, 5);
    // Nothing more is written without changes.
    for _ in 0..30 {
        app.update();
    }
    app.world().resource::<SaveSlot>().flush();
    app.update();
    assert!(drain::<SaveCompleted>(&mut app).is_empty());
}

#[test]
fn exit_flushes_the_last_change_and_a_relaunch_continues_from_it() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut app = app(&assets_dir(), dir.path(), None);
        ready(&mut app);
        app.world_mut()
            .resource_mut::<WorldState>()
            .set_flag("NPC_DRONE_SPK_02", true, "dialogue")
            .unwrap();
        app.world_mut().write_message(AppExit::Success);
        app.update();
        // Dropping the app here is "quitting the game".
    }
    let mut app = app(&assets_dir(), dir.path(), None);
    ready(&mut app);
    assert_eq!(
        app.world()
            .resource::<WorldState>()
            .flag("NPC_DRONE_SPK_02"),
        Ok(true)
    );
    let status = app.world().resource::<SaveStatus>().clone();
    let load = status.last_load.unwrap();
    assert!(load.is_clean(), "{}", load.describe());
    assert_eq!(status.dir, dir.path());
    assert_eq!(status.documents, vec!["world_state.json".to_string()]);
}

#[test]
fn a_tampered_save_falls_back_to_the_backup_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut app = app(&assets_dir(), dir.path(), None);
        ready(&mut app);
        for value in [3, 4] {
            app.world_mut()
                .resource_mut::<WorldState>()
                .set_counter("QST_DST_TOWER_5", value, "test")
                .unwrap();
            app.world_mut().write_message(SaveWorldState::default());
            wait_written(&mut app);
        }
    }
    // The player edits the save by hand.
    let path = dir.path().join("world_state.json");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("\"Value\": 4", "\"Value\": 99");
    std::fs::write(&path, text).unwrap();
    let mut app = app(&assets_dir(), dir.path(), None);
    // Messages live two frames: collect the load's while waiting (on a
    // busy machine it can come frames before the flags file is merged).
    let mut loaded = Vec::new();
    run_until(&mut app, "the flags file and the load", |w| {
        loaded.extend(w.resource_mut::<Messages<SaveLoaded>>().drain());
        w.resource::<WorldStateFiles>().all_merged() && !loaded.is_empty()
    });
    assert_eq!(
        app.world()
            .resource::<WorldState>()
            .counter("QST_DST_TOWER_5"),
        Ok(4),
        "the backup holds the same save point as the primary: nothing lost"
    );
    let doc = &loaded[0].outcome.documents[0];
    assert_eq!(doc.source, Some(CopyKind::Backup));
    let primary = doc.copy(CopyKind::Primary);
    assert_eq!(
        primary.verdict,
        Verdict::Invalid(wyrd_save::LoadError::SignatureMismatch)
    );
    assert!(primary.quarantined_to.is_some());
    assert!(loaded[0].outcome.describe().contains("from its backup"));
}

/// Bug 5: duplicate ids were accepted silently (last wins), as were
/// versions of 0 and ids saved as the wrong kind.
#[test]
fn saved_values_are_checked_against_the_declarations() {
    fn entry<T>(id: &str, name: &str, value: T, version: Option<u32>) -> SavedEntry<T> {
        SavedEntry {
            id: id.into(),
            debug_name: name.into(),
            value,
            version,
        }
    }
    let tower = "5904375b06586af41bd4c25aedc0b193";
    let spk = "a3f19c7e52d04b8e9c1f6d2a7b4e0c58";
    let saves = tempfile::tempdir().unwrap();
    write_signed(
        saves.path(),
        &WorldStateDocument {
            bool_flags: vec![
                entry(spk, "NPC_DRONE_SPK_01", true, Some(0)),
                entry(spk, "NPC_DRONE_SPK_01", false, None),
                // A counter's id saved as a flag.
                entry(tower, "QST_DST_TOWER_5", true, None),
            ],
            int_counters: vec![
                entry(tower, "QST_DST_TOWER_5", 4, Some(1)),
                entry(tower, "QST_DST_TOWER_5", i64::MIN, Some(1)),
            ],
            ..Default::default()
        },
    );
    let mut app = app(&assets_dir(), saves.path(), None);
    let mut reports = Vec::new();
    run_until(&mut app, "the flags file and the load report", |w| {
        reports.extend(
            w.resource_mut::<Messages<WorldStateLoaded>>()
                .drain()
                .map(|m| m.report),
        );
        w.resource::<WorldStateFiles>().all_merged() && !reports.is_empty()
    });
    let report = reports.last().unwrap();
    let state = app.world().resource::<WorldState>();
    assert_eq!(
        state.flag("NPC_DRONE_SPK_01"),
        Ok(true),
        "the first value is used"
    );
    assert_eq!(
        state.counter("QST_DST_TOWER_5"),
        Ok(4),
        "not i64::MIN: {report:?}"
    );
    assert_eq!(
        report.duplicates,
        vec!["NPC_DRONE_SPK_01", "QST_DST_TOWER_5"]
    );
    let problems = state.save_problems().join("\n");
    assert!(
        problems.contains("NPC_DRONE_SPK_01 is saved with version 0"),
        "{problems}"
    );
    assert!(
        problems.contains("QST_DST_TOWER_5 is saved as a flag but declared as a counter"),
        "{problems}"
    );
    assert!(problems.contains("saved more than once"), "{problems}");
}
