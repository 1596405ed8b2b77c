//! Headless app tests: the drone flags file, messages, run scope, hot reload,
//! conflicts and bad files.

use std::path::{Path, PathBuf};

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use wyrd_state::prelude::*;
use wyrd_state::{DeclarationConflict, FlagsFileError, FlagsProblem};

fn assets_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets")
}

fn app_with(root: &Path, files: &[&str]) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: root.to_string_lossy().into_owned(),
            ..Default::default()
        },
    ))
    .add_plugins(WorldStatePlugin::with_files(files.iter().copied()));
    app
}

/// Updates until `done` holds; fails the test after a bounded number of frames.
fn run_until(app: &mut App, what: &str, done: impl FnMut(&mut World) -> bool) {
    wyrd_test_support::run_until(app, what, wyrd_test_support::LOAD_UPDATES, done);
}

fn ready(world: &mut World) -> bool {
    world.resource::<WorldStateFiles>().all_merged()
}

fn drain<M: Message + Clone>(app: &mut App) -> Vec<M> {
    app.world_mut()
        .resource_mut::<Messages<M>>()
        .drain()
        .collect()
}

fn drone_app() -> App {
    let mut app = app_with(&assets_dir(), &["drone_quest/world_state.flags.ron"]);
    run_until(&mut app, "the drone flags file", ready);
    app
}

#[test]
fn drone_flags_load_with_seed_ids_and_defaults() {
    let app = drone_app();
    let state = app.world().resource::<WorldState>();
    assert_eq!(state.flags().len(), 5);
    assert_eq!(state.counters().len(), 2);
    let spk = state.flag_entry("NPC_DRONE_SPK_01").unwrap();
    assert_eq!(spk.id.to_string(), "a3f19c7e52d04b8e9c1f6d2a7b4e0c58");
    assert!(!spk.value);
    assert_eq!(spk.scope, Scope::Meta);
    let tower = state.counter_entry("QST_DST_TOWER_5").unwrap();
    assert_eq!(tower.id.to_string(), "5904375b06586af41bd4c25aedc0b193");
    assert_eq!(
        state.counter_entry("QST_DST_SAMERUN_5").unwrap().scope,
        Scope::Run
    );
    // Look-up by id gives the same entry as by name.
    let by_id = StableId::parse("d4a7c3e9b1f8460da2e5c7b9f3d1684e").unwrap();
    assert_eq!(
        state.flag_handle(by_id).unwrap(),
        state.flag_handle("DIALOGUE_OPT_DRONE_ENDQST").unwrap()
    );
}

#[test]
fn changes_emit_exactly_one_message_each_with_old_new_and_source() {
    let mut app = drone_app();
    drain::<FlagChanged>(&mut app);
    drain::<CounterChanged>(&mut app);
    {
        let mut state = app.world_mut().resource_mut::<WorldState>();
        assert!(
            state
                .set_flag("NPC_DRONE_SPK_01", true, "dialogue")
                .unwrap()
        );
        // Same value again: no change, no message.
        assert!(
            !state
                .set_flag("NPC_DRONE_SPK_01", true, "dialogue")
                .unwrap()
        );
        assert_eq!(
            state.add_counter("QST_DST_TOWER_5", 3, "combat").unwrap(),
            3
        );
        assert!(!state.set_counter("QST_DST_TOWER_5", 3, "quests").unwrap());
        assert_eq!(
            state.add_counter("QST_DST_TOWER_5", 0, "combat").unwrap(),
            3
        );
        let h = state.counter_handle("QST_DST_TOWER_5").unwrap();
        assert!(state.set_counter(h, 5, "quests").unwrap());
    }
    app.update();
    let flags = drain::<FlagChanged>(&mut app);
    assert_eq!(flags.len(), 1);
    assert_eq!(&*flags[0].name, "NPC_DRONE_SPK_01");
    assert_eq!((flags[0].old, flags[0].new), (false, true));
    assert_eq!(flags[0].source, "dialogue");
    let counters: Vec<_> = drain::<CounterChanged>(&mut app)
        .into_iter()
        .map(|c| (c.name.to_string(), c.old, c.new, c.source.to_string()))
        .collect();
    assert_eq!(
        counters,
        vec![
            ("QST_DST_TOWER_5".into(), 0, 3, "combat".into()),
            ("QST_DST_TOWER_5".into(), 3, 5, "quests".into()),
        ]
    );
    // Nothing further on the next frame.
    app.update();
    assert!(drain::<FlagChanged>(&mut app).is_empty());
    assert!(drain::<CounterChanged>(&mut app).is_empty());
}

#[test]
fn run_scope_reset_touches_only_run_entries() {
    let mut app = drone_app();
    {
        let mut state = app.world_mut().resource_mut::<WorldState>();
        state.add_counter("QST_DST_SAMERUN_5", 4, "combat").unwrap();
        state.add_counter("QST_DST_TOWER_5", 4, "combat").unwrap();
    }
    app.update();
    drain::<CounterChanged>(&mut app);
    app.world_mut()
        .resource_mut::<WorldState>()
        .reset_scope(Scope::Run, "run_start");
    app.update();
    let changes = drain::<CounterChanged>(&mut app);
    assert_eq!(changes.len(), 1);
    assert_eq!(&*changes[0].name, "QST_DST_SAMERUN_5");
    assert_eq!((changes[0].old, changes[0].new), (4, 0));
    assert_eq!(changes[0].source, "run_start");
    let state = app.world().resource::<WorldState>();
    assert_eq!(state.counter("QST_DST_SAMERUN_5").unwrap(), 0);
    assert_eq!(state.counter("QST_DST_TOWER_5").unwrap(), 4);
}

#[test]
fn unknown_and_wrong_kind_names_are_error_values() {
    let app = drone_app();
    let state = app.world().resource::<WorldState>();
    assert_eq!(
        state.flag("NPC_DRONE_SPK_99"),
        Err(WorldStateError::UnknownName("NPC_DRONE_SPK_99".into()))
    );
    assert_eq!(
        state.flag("QST_DST_TOWER_5"),
        Err(WorldStateError::NotAFlag("QST_DST_TOWER_5".into()))
    );
    let err = state.counter("NO_SUCH_COUNTER").unwrap_err();
    assert!(err.to_string().contains("NO_SUCH_COUNTER"), "{err}");
    assert!(matches!(
        state.check(&Condition::flag("TYPO", true)),
        Err(WorldStateError::UnknownName(n)) if n == "TYPO"
    ));
}

#[test]
fn completed_events_are_true_only_the_first_time() {
    let mut app = drone_app();
    {
        let mut state = app.world_mut().resource_mut::<WorldState>();
        assert!(state.complete_event("boss_intro", "cutscene"));
        assert!(!state.complete_event("boss_intro", "cutscene"));
        assert!(state.is_event_completed("boss_intro"));
        assert!(!state.is_event_completed("other"));
    }
    app.update();
    let events = drain::<EventCompleted>(&mut app);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].id, "boss_intro");
}

#[test]
fn conditions_compare_flags_and_counters() {
    let mut app = drone_app();
    let mut state = app.world_mut().resource_mut::<WorldState>();
    state.set_counter("QST_DST_TOWER_5", 5, "test").unwrap();
    let c = |op, v| Condition::counter("QST_DST_TOWER_5", op, v);
    for (op, v, expect) in [
        (CounterOp::Eq, 5, true),
        (CounterOp::Eq, 4, false),
        (CounterOp::Ne, 4, true),
        (CounterOp::Lt, 5, false),
        (CounterOp::Le, 5, true),
        (CounterOp::Gt, 4, true),
        (CounterOp::Gt, 5, false),
        (CounterOp::Ge, 5, true),
        (CounterOp::Ge, 6, false),
    ] {
        assert_eq!(state.check(&c(op, v)).unwrap(), expect, "{op:?} {v}");
    }
    let all = [
        Condition::flag("NPC_DRONE_SPK_01", false),
        c(CounterOp::Ge, 5),
    ];
    assert!(state.check_all(&all).unwrap());
    state.set_flag("NPC_DRONE_SPK_01", true, "test").unwrap();
    assert!(!state.check_all(&all).unwrap());
    assert!(state.check_all(&[]).unwrap());
}

const A: &str = r#"(
    flags: [
        (id: "00000000000000000000000000000001", name: "ALPHA", default: false, description: "first"),
        (id: "00000000000000000000000000000002", name: "BETA", default: false),
    ],
)"#;

fn temp_assets(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn hot_reload_adds_entries_updates_metadata_keeps_values_and_reports_removals() {
    let dir = temp_assets(&[("a.flags.ron", A)]);
    let mut app = app_with(dir.path(), &["a.flags.ron"]);
    run_until(&mut app, "a.flags.ron", ready);
    app.world_mut()
        .resource_mut::<WorldState>()
        .set_flag("ALPHA", true, "test")
        .unwrap();
    app.update();
    drain::<FlagsFileReport>(&mut app);

    // The designer edits the file: ALPHA gets a new default and description,
    // BETA is removed, GAMMA is added.
    let edited = wyrd_state::FlagsFile::from_bytes(
        "a.flags.ron",
        br#"(flags: [
            (id: "00000000000000000000000000000001", name: "ALPHA", default: true, description: "edited", version: 2),
            (id: "00000000000000000000000000000003", name: "GAMMA", default: true),
        ])"#,
    )
    .unwrap();
    let handle = app.world().resource::<WorldStateFiles>().handles[0].clone();
    app.world_mut()
        .resource_mut::<Assets<wyrd_state::FlagsFile>>()
        .insert(handle.id(), edited)
        .unwrap();
    run_until(&mut app, "the edit to be merged", |world| {
        world.resource::<WorldState>().flag("GAMMA").is_ok()
    });

    let state = app.world().resource::<WorldState>();
    let alpha = state.flag_entry("ALPHA").unwrap();
    assert!(alpha.value, "the current value is kept");
    assert_eq!(alpha.description, "edited");
    assert_eq!(alpha.version, 2);
    assert!(alpha.default);
    assert!(
        state.flag("GAMMA").unwrap(),
        "a new entry starts at its default"
    );
    let beta = state.flag_entry("BETA").unwrap();
    assert_eq!(beta.file, None, "BETA is orphaned but kept");
    let reports = drain::<FlagsFileReport>(&mut app);
    assert!(
        reports.iter().any(|r| matches!(r,
            FlagsFileReport::EntriesRemoved { names, .. } if names == &vec!["BETA".to_string()])),
        "{reports:?}"
    );
}

#[test]
fn two_files_declaring_the_same_id_or_name_is_an_error_naming_both() {
    let b_same_id =
        r#"(flags: [(id: "00000000000000000000000000000001", name: "OTHER", default: true)])"#;
    let c_same_name =
        r#"(counters: [(id: "00000000000000000000000000000009", name: "ALPHA", default: 1)])"#;
    let dir = temp_assets(&[
        ("a.flags.ron", A),
        ("b.flags.ron", b_same_id),
        ("c.flags.ron", c_same_name),
    ]);
    let mut app = app_with(dir.path(), &["a.flags.ron"]);
    run_until(&mut app, "a.flags.ron", ready);
    drain::<FlagsFileReport>(&mut app);
    let server = app.world().resource::<AssetServer>().clone();
    let b: Handle<wyrd_state::FlagsFile> = server.load("b.flags.ron");
    let c: Handle<wyrd_state::FlagsFile> = server.load("c.flags.ron");
    let mut conflicts = Vec::new();
    run_until(&mut app, "two conflicts", |world| {
        conflicts.extend(
            world
                .resource_mut::<Messages<FlagsFileReport>>()
                .drain()
                .filter_map(|r| match r {
                    FlagsFileReport::Conflict(c) => Some(c),
                    _ => None,
                }),
        );
        conflicts.len() >= 2
    });
    let texts: Vec<String> = conflicts.iter().map(ToString::to_string).collect();
    assert!(
        conflicts
            .iter()
            .any(|c| matches!(c, DeclarationConflict::SameId { .. })),
        "{texts:?}"
    );
    assert!(
        conflicts
            .iter()
            .any(|c| matches!(c, DeclarationConflict::SameName { .. })),
        "{texts:?}"
    );
    for t in &texts {
        assert!(t.contains("a.flags.ron"), "{t}");
        assert!(
            t.contains("b.flags.ron") || t.contains("c.flags.ron"),
            "{t}"
        );
    }
    // Neither wins silently: the first file's entries are untouched and the
    // rejected files added nothing.
    let state = app.world().resource::<WorldState>();
    assert!(!state.flag("ALPHA").unwrap());
    assert_eq!(
        state.flag_entry("ALPHA").unwrap().file.as_deref(),
        Some(Path::new("a.flags.ron"))
    );
    assert!(matches!(
        state.flag("OTHER"),
        Err(WorldStateError::UnknownName(_))
    ));
    drop((b, c));
}

#[test]
fn a_malformed_file_is_reported_with_line_and_column_and_never_panics() {
    let bad = "(\n  flags: [\n    (id: \"00000000000000000000000000000001\", name: \"X\", default: maybe),\n  ],\n)";
    let dir = temp_assets(&[("bad.flags.ron", bad)]);
    let mut app = app_with(dir.path(), &["bad.flags.ron"]);
    let mut invalid = None;
    run_until(&mut app, "an Invalid report", |world| {
        invalid = world
            .resource_mut::<Messages<FlagsFileReport>>()
            .drain()
            .find_map(|r| match r {
                FlagsFileReport::Invalid(e) => Some(e),
                _ => None,
            });
        invalid.is_some()
    });
    let e = invalid.unwrap();
    assert_eq!(e.path, Path::new("bad.flags.ron"));
    assert_eq!(e.line, 3);
    assert!(e.to_string().starts_with("bad.flags.ron:3:"), "{e}");
    assert!(!app.world().resource::<WorldStateFiles>().all_merged());
}

fn parse_err(text: &str) -> FlagsFileError {
    wyrd_state::FlagsFile::from_bytes("x.flags.ron", text.as_bytes()).unwrap_err()
}

#[test]
fn bad_input_errors_name_file_line_and_column() {
    // Malformed RON.
    let e = parse_err(
        "(flags: [\n  (id: \"00000000000000000000000000000001\" name: \"A\", default: true),\n])",
    );
    assert!(matches!(e.problem, FlagsProblem::Syntax(_)), "{e}");
    assert_eq!((e.line, e.path.to_str().unwrap()), (2, "x.flags.ron"));
    assert!(e.to_string().starts_with("x.flags.ron:2:"), "{e}");

    // Bad id: wrong length, then upper case.
    let e = parse_err("(flags: [\n\n  (id: \"abc\", name: \"A\", default: true),\n])");
    assert!(matches!(e.problem, FlagsProblem::BadId(_)), "{e}");
    assert_eq!((e.line, e.column), (3, 9));
    assert!(e.to_string().contains("\"abc\""), "{e}");
    let e = parse_err(
        "(flags: [(id: \"A3F19C7E52D04B8E9C1F6D2A7B4E0C58\", name: \"A\", default: true)])",
    );
    assert!(matches!(e.problem, FlagsProblem::BadId(_)), "{e}");

    // Duplicate id (second occurrence is pointed at).
    let e = parse_err(
        "(flags: [\n  (id: \"00000000000000000000000000000001\", name: \"A\", default: true),\n  (id: \"00000000000000000000000000000001\", name: \"B\", default: true),\n])",
    );
    assert_eq!(
        e.problem,
        FlagsProblem::DuplicateId {
            id: "00000000000000000000000000000001".into(),
            first_line: 2
        }
    );
    assert_eq!(e.line, 3);

    // Duplicate name, across flags and counters.
    let e = parse_err(
        "(flags: [(id: \"00000000000000000000000000000001\", name: \"A\", default: true)],\n counters: [(id: \"00000000000000000000000000000002\", name: \"A\", default: 0)])",
    );
    assert!(
        matches!(e.problem, FlagsProblem::DuplicateName { ref name, first_line: 1 } if name == "A"),
        "{e}"
    );
    assert_eq!(e.line, 2);

    // Wrong value type: a counter default on a flag, text on a counter.
    let e =
        parse_err("(flags: [(id: \"00000000000000000000000000000001\", name: \"A\", default: 3)])");
    assert!(matches!(e.problem, FlagsProblem::Syntax(_)), "{e}");
    assert_eq!(e.line, 1);
    assert!(e.column > 60, "{e}");
    let e = parse_err(
        "(counters: [\n (id: \"00000000000000000000000000000001\", name: \"A\", default: \"five\")])",
    );
    assert!(matches!(e.problem, FlagsProblem::Syntax(_)), "{e}");
    assert_eq!(e.line, 2);

    // Unknown field (a typo) and a bad scope.
    let e = parse_err(
        "(flags: [(id: \"00000000000000000000000000000001\", name: \"A\", defualt: true)])",
    );
    assert!(e.to_string().contains("defualt"), "{e}");
    // In the file's words, not the parser's (a stranger saw "in `RawEntry`"
    // and "Expected boolean").
    assert!(
        e.to_string()
            .contains("in a flag or counter (its fields: id, name, default,")
            && !e.to_string().contains("RawEntry"),
        "{e}"
    );
    let e =
        parse_err("(flags: [(id: \"00000000000000000000000000000001\", name: \"A\", default: 3)])");
    assert!(
        e.to_string().contains("a flag's default is true or false"),
        "{e}"
    );
    let e = parse_err("(flags: [(id: \"00000000000000000000000000000001\", name: \"A\")])");
    assert!(e.to_string().contains("without `default`"), "{e}");
    // At the entry it is missing from, not at the entry's closing bracket
    // (where the parser noticed), a bracket in a description skipped.
    let e =
        parse_err("(flags: [\n    (name: \"A\", description: \"(unused)\", default: true),\n])");
    assert!(e.to_string().contains("without `id`"), "{e}");
    assert_eq!((e.line, e.column), (2, 5), "{e}");
    let e = parse_err(
        "(flags: [(id: \"00000000000000000000000000000001\", name: \"A\", default: true, scope: Forever)])",
    );
    assert!(e.to_string().contains("Forever"), "{e}");

    // Not UTF-8.
    let e = wyrd_state::FlagsFile::from_bytes("x.flags.ron", b"(flags: [\n\xff])").unwrap_err();
    assert_eq!((e.problem, e.line), (FlagsProblem::NotUtf8, 2));
}

/// Two names swapped in one edit (COINS and GEMS trade ids): the second
/// rename removed the name the first had just given, and `GEMS` was
/// unknown until a restart.
#[test]
fn names_swapped_in_one_edit_both_resolve() {
    let mut state = WorldState::default();
    let file = |coins: &str, gems: &str| {
        wyrd_state::FlagsFile::from_bytes(
            "c.flags.ron",
            format!(
                r#"(counters: [
            (id: "{coins}", name: "COINS", default: 0),
            (id: "{gems}", name: "GEMS", default: 0),
        ])"#
            )
            .as_bytes(),
        )
        .unwrap()
    };
    let (a, b) = (
        "000000000000000000000000000000a1",
        "000000000000000000000000000000b2",
    );
    state.merge_file(&file(a, b)).unwrap();
    state.set_counter("COINS", 5, "test").unwrap();
    state.merge_file(&file(b, a)).unwrap();
    assert_eq!(state.counter("GEMS").unwrap(), 5, "the entry of id a");
    assert_eq!(state.counter("COINS").unwrap(), 0, "the entry of id b");
    state.set_counter("GEMS", 7, "test").unwrap();
}

/// Two requested files declaring one id: the later in the list is refused,
/// whichever loads first (it depended on load timing, and the refused
/// file's other entries went with it).
#[test]
fn of_two_requested_files_declaring_one_id_the_later_is_refused() {
    let first = r#"(flags: [(id: "00000000000000000000000000000001", name: "ALPHA", default: true), (id: "00000000000000000000000000000002", name: "KEYS", default: true)])"#;
    let second = r#"(flags: [(id: "00000000000000000000000000000001", name: "OTHER", default: true), (id: "00000000000000000000000000000003", name: "GEMS", default: true)])"#;
    for order in [
        ["one.flags.ron", "two.flags.ron"],
        ["two.flags.ron", "one.flags.ron"],
    ] {
        let dir = temp_assets(&[("one.flags.ron", first), ("two.flags.ron", second)]);
        let mut app = app_with(dir.path(), &order);
        run_until(&mut app, "both settled", |w| {
            w.resource::<WorldStateFiles>().all_settled()
        });
        let state = app.world().resource::<WorldState>();
        // The first in the list keeps its entries; the second is refused.
        let (kept, refused) = if order[0] == "one.flags.ron" {
            ("KEYS", "GEMS")
        } else {
            ("GEMS", "KEYS")
        };
        assert!(state.flag(kept).is_ok(), "{order:?}");
        assert!(state.flag(refused).is_err(), "{order:?}");
    }
}

/// A stranger's game: with a flags file that failed to load, the trees
/// started (the world settled, the failure reported) while a system gated
/// on `world_state_ready` never ran, and nothing said which condition
/// trees wait for. `world_state_settled` is that condition.
#[test]
fn a_failed_file_settles_the_world_but_does_not_make_it_ready() {
    use bevy::ecs::system::RunSystemOnce;
    let dir = temp_assets(&[(
        "one.flags.ron",
        r#"(flags: [(id: "00000000000000000000000000000001", name: "ALPHA", default: true)])"#,
    )]);
    let mut app = app_with(dir.path(), &["one.flags.ron", "missing.flags.ron"]);
    run_until(&mut app, "settled", |w| {
        w.resource::<WorldStateFiles>().all_settled()
    });
    let world = app.world_mut();
    assert!(
        world
            .run_system_once(wyrd_state::world_state_settled)
            .unwrap()
    );
    assert!(
        !world
            .run_system_once(wyrd_state::world_state_ready)
            .unwrap()
    );
    assert_eq!(
        world.resource::<WorldStateFiles>().failures().count(),
        1,
        "the missing file is reported"
    );
}

/// A flags file with `scope: Run` on a saved Meta counter for one session
/// (a designer's experiment, a mistake): the saved value is kept in the
/// save and said, and comes back with `scope: Meta` (a stranger's 5 towers
/// were gone for good after one such session). Whichever merged first,
/// the save or the file.
#[test]
fn a_saved_value_whose_entry_is_run_scoped_now_is_kept_in_the_save() {
    let file = |scope: &str| {
        wyrd_state::FlagsFile::from_bytes(
            "p.flags.ron",
            format!(
                r#"(counters: [(id: "000000000000000000000000000000a1", name: "TOWERS", default: 0, scope: {scope})])"#
            )
            .as_bytes(),
        )
        .unwrap()
    };
    let mut saved = WorldState::default();
    saved.merge_file(&file("Meta")).unwrap();
    saved.set_counter("TOWERS", 5, "test").unwrap();
    let doc = saved.to_document(0);
    for save_first in [true, false] {
        let mut state = WorldState::default();
        if save_first {
            state.apply_document(&doc);
            state.merge_file(&file("Run")).unwrap();
        } else {
            state.merge_file(&file("Run")).unwrap();
            state.apply_document(&doc);
        }
        assert_eq!(state.counter("TOWERS").unwrap(), 0, "Run-scoped: unused");
        assert!(
            state.save_problems().iter().any(
                |p| p.contains("TOWERS is saved as a Meta value and declared `scope: Run` now")
            ),
            "{:?}",
            state.save_problems()
        );
        let again = state.to_document(0);
        assert_eq!(again.int_counters.len(), 1, "kept in the save: {again:?}");
        assert_eq!(again.int_counters[0].value, 5);
        // The scope back to Meta: the value is back.
        let mut next = WorldState::default();
        next.merge_file(&file("Meta")).unwrap();
        next.apply_document(&again);
        assert_eq!(
            next.counter("TOWERS").unwrap(),
            5,
            "save first: {save_first}"
        );
    }
    // The same edit as a hot reload of the running game, and back.
    let mut state = WorldState::default();
    state.merge_file(&file("Meta")).unwrap();
    state.set_counter("TOWERS", 5, "test").unwrap();
    state.merge_file(&file("Run")).unwrap();
    assert_eq!(
        state.to_document(0).int_counters[0].value,
        5,
        "kept in the save"
    );
    state.merge_file(&file("Meta")).unwrap();
    assert_eq!(state.counter("TOWERS").unwrap(), 5, "Meta again");
    assert_eq!(state.to_document(0).int_counters.len(), 1, "once");
}

/// A saved value that no declared entry takes is said once the files
/// merged, with the id the files declare its name with (an id edited by
/// mistake showed 0 towers, and the only line was the one every launch
/// logs before the files merge).
#[test]
fn a_saved_value_no_entry_takes_is_said_once_the_files_merged() {
    let old =
        r#"(counters: [(id: "000000000000000000000000000000a1", name: "TOWERS", default: 0)])"#;
    let mut saved = WorldState::default();
    saved
        .merge_file(&wyrd_state::FlagsFile::from_bytes("p.flags.ron", old.as_bytes()).unwrap())
        .unwrap();
    saved.set_counter("TOWERS", 5, "test").unwrap();
    let doc = saved.to_document(0);
    let edited =
        r#"(counters: [(id: "000000000000000000000000000000a2", name: "TOWERS", default: 0)])"#;
    let dir = temp_assets(&[("p.flags.ron", edited)]);
    let mut app = app_with(dir.path(), &["p.flags.ron"]);
    app.world_mut()
        .resource_mut::<WorldState>()
        .apply_document(&doc);
    run_until(&mut app, "merged", |w| {
        w.resource::<WorldStateFiles>().all_merged()
    });
    app.update();
    let state = app.world().resource::<WorldState>();
    let said: Vec<&String> = state
        .save_problems()
        .iter()
        .filter(|p| p.contains("TOWERS (id 000000000000000000000000000000a1) is in the save and no flags file declares it"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", state.save_problems());
    assert!(
        said[0].contains("the flags files declare TOWERS with id 000000000000000000000000000000a2"),
        "{}",
        said[0]
    );
    assert_eq!(
        state.to_document(0).int_counters.len(),
        1,
        "kept and written back"
    );
}
