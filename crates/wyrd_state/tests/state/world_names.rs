//! Issue 23: a tree naming a world value no flags file declares. While the
//! flags files load nothing is said (every correct name was "not published
//! (yet)" too); once they merged, the agent has the problem, with the
//! tree's file, line and column.
#![cfg(feature = "bt")]

use bevy::prelude::*;
use wyrd_bt::BtRegistry;
use wyrd_bt::prelude::*;
use wyrd_state::WorldStatePlugin;
use wyrd_state::bt::WorldStateBtPlugin;
use wyrd_test_support::{TestApp, step, wait_loaded};

const FLAGS: &str = r#"(
    counters: [(id: "7a3c1e9b2d4f6a8c0e1b3d5f7a9c2e4b", name: "ALARMS_RAISED", default: 0)],
)"#;

const TREE: &str = r#"(
    root: Selector(name: "root", children: [
        Condition(name: "known", check: World("ALARMS_RAISED", Ge, 3)),
        Condition(name: "typo", check: World("ALARMS_RAISD", Ge, 3)),
    ]),
)"#;

/// An app with the world state on the folder's `w.flags.ron` (any action
/// name, and `Grant` a world action), an agent of its `t.bt.ron`, stepped
/// until the declarations are `declared` (the flags file loads on the
/// asset threads: a fixed count of updates failed on a loaded machine),
/// then two ticks.
fn agent_once(assets: &std::path::Path, declared: wyrd_bt::Declared) -> (App, Entity) {
    let mut app = TestApp::in_folder(assets, 30.0)
        .plugins((
            WorldStatePlugin::with_files(["w.flags.ron"]),
            BtPlugin::default(),
            WorldStateBtPlugin,
        ))
        .with(|app| {
            app.world_mut()
                .get_resource_or_init::<BtRegistry>()
                .edit(|v| v.permissive = true);
            app.register_bt_world_action("Grant");
        })
        .build();
    let h = app.world().resource::<AssetServer>().load("t.bt.ron");
    wait_loaded(&mut app, &h).unwrap();
    let e = app.world_mut().spawn(BehaviorTree::new(h)).id();
    wyrd_test_support::run_until(
        &mut app,
        "the flags files to settle",
        wyrd_test_support::LOAD_UPDATES,
        |w| w.resource::<wyrd_bt::BtGlobals>().declared() == declared,
    );
    step(&mut app, 2);
    (app, e)
}

#[test]
fn an_undeclared_world_value_is_a_problem_of_the_agent_once_the_flags_merged() {
    let assets = tempfile::tempdir().unwrap();
    std::fs::write(assets.path().join("w.flags.ron"), FLAGS).unwrap();
    std::fs::write(assets.path().join("t.bt.ron"), TREE).unwrap();
    let (mut app, e) = agent_once(assets.path(), wyrd_bt::Declared::Complete);
    let problems = app.world().get::<BtAgent>(e).unwrap().problems().to_vec();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        // With the declared name nearest, as `wyrd check` says it (a
        // stranger's game got the suggestion from the command only).
        problems[0].to_string().ends_with("t.bt.ron:4:47: no flags file declares the world value \"ALARMS_RAISD\"; it reads as unknown (a condition on it never holds, a score reads 0, an action writing it fails); did you mean \"ALARMS_RAISED\"?"),
        "{problems:?}"
    );
    // An agent spawned later gets it too.
    let h = app.world().resource::<AssetServer>().load("t.bt.ron");
    let later = app.world_mut().spawn(BehaviorTree::new(h)).id();
    step(&mut app, 2);
    assert_eq!(
        app.world().get::<BtAgent>(later).unwrap().problems(),
        problems
    );
}

/// A flags file that failed to load (a typo in a field): the tree's
/// names it would declare are not blamed on the tree, an error and a
/// problem per name at the tree's lines (a stranger's six errors pointed
/// at a tree whose every name was right); the world is `Incomplete` and
/// the trees run.
#[test]
fn a_flags_file_that_failed_does_not_make_the_trees_names_undeclared() {
    let assets = tempfile::tempdir().unwrap();
    let broken = FLAGS.replace("default: 0", "defualt: 0");
    std::fs::write(assets.path().join("w.flags.ron"), broken).unwrap();
    std::fs::write(assets.path().join("t.bt.ron"), TREE).unwrap();
    let (app, e) = agent_once(assets.path(), wyrd_bt::Declared::Incomplete);
    let agent = app.world().get::<BtAgent>(e).unwrap();
    assert!(agent.problems().is_empty(), "{:?}", agent.problems());
    assert!(agent.state().ticks() > 0, "the tree runs");
}

/// A world action (`register_bt_world_action`) writing what its flag or
/// counter cannot hold (`true` to a counter) is the agent's problem once
/// the flags merged, at the place it is written, instead of failing only
/// when its branch runs.
#[test]
fn a_world_action_writing_the_wrong_kind_is_a_problem_where_it_is_written() {
    let assets = tempfile::tempdir().unwrap();
    std::fs::write(assets.path().join("w.flags.ron"), FLAGS).unwrap();
    std::fs::write(
        assets.path().join("t.bt.ron"),
        "(root: Sequence(name: \"root\", children: [\n    Action(action: \"Grant\", params: {\"ALARMS_RAISED\": true}),\n]))",
    )
    .unwrap();
    let (app, e) = agent_once(assets.path(), wyrd_bt::Declared::Complete);
    let problems = app.world().get::<BtAgent>(e).unwrap().problems().to_vec();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].to_string().ends_with("t.bt.ron:2:39: ALARMS_RAISED is a counter (a whole number); the action here writes true to it"),
        "{problems:?}"
    );
}
