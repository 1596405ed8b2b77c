//! The Bevy plugin in headless apps with exact time steps.

use std::path::Path;
use std::time::Duration;

use bevy::asset::{AssetLoadFailedEvent, AssetPlugin};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use wyrd_bt::prelude::*;
use wyrd_bt::{CustomCtx, CustomNode, RunningActions};
use wyrd_test_support::step;

const SHOOT: ActionId = ActionId::of("Shoot");

const TREE: &str = r#"(
    tags: ["infantry", "passenger"],
    blackboard: {"target": false},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "fight", not_tags: ["passenger"], children: [Condition(check: Is("target")), Action(action: "Shoot")]),
        Action(name: "idle", action: "Idle"),
    ]),
)"#;

fn app(dir: &Path) -> App {
    app_with(dir, BtPlugin::default())
}

fn app_with(dir: &Path, plugin: BtPlugin) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: dir.to_string_lossy().into_owned(),
            ..Default::default()
        },
        plugin,
    ))
    // One update = one 30 Hz fixed step.
    .insert_resource(Time::<Fixed>::from_hz(30.0))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 30.0,
    )))
    .register_bt_action("Shoot")
    .register_bt_action("Idle");
    app
}

fn dir_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// An agent's tree state as a save holds it.
pub(crate) fn saved_state(app: &App, e: Entity) -> wyrd_bt::SavedTree {
    let w = app.world();
    w.get::<BtAgent>(e)
        .unwrap()
        .save_state(
            w.get::<Blackboard>(e).unwrap(),
            w.get::<BtActions>(e).unwrap(),
        )
        .unwrap()
}

fn run_until(app: &mut App, what: &str, done: impl FnMut(&mut World) -> bool) {
    wyrd_test_support::run_until(app, what, wyrd_test_support::LOAD_UPDATES, done);
}

fn active(app: &mut App, e: Entity) -> Vec<String> {
    app.world().get::<BtAgent>(e).unwrap().active_paths()
}

fn spawn(app: &mut App, tree: BehaviorTree, bb: Blackboard) -> Entity {
    let e = app.world_mut().spawn((tree, bb)).id();
    run_until(app, "the tree to bind and tick", |w| {
        w.get::<BtAgent>(e).is_some_and(|a| a.state().ticks() > 0)
    });
    e
}

fn load(app: &mut App, path: &str) -> Handle<BtAsset> {
    app.world().resource::<AssetServer>().load(path.to_owned())
}

/// A tree loaded (the app stepped until it is) and its program.
fn loaded(app: &mut App, path: &str) -> (Handle<BtAsset>, std::sync::Arc<wyrd_bt::Program>) {
    let handle = load(app, path);
    wyrd_test_support::wait_loaded(app, &handle).unwrap();
    let program = app
        .world()
        .resource::<Assets<BtAsset>>()
        .get(&handle)
        .unwrap()
        .program
        .clone();
    (handle, program)
}

#[test]
fn actions_run_as_component_data_and_report_back() {
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app(dir.path());
    // A game action system: Shoot takes 3 ticks.
    app.add_systems(
        FixedUpdate,
        (|mut q: Query<&mut BtActions>, mut ticks: Local<u32>| {
            for mut actions in &mut q {
                if let Some(a) = actions.running(SHOOT) {
                    *ticks += 1;
                    if *ticks == 3 {
                        a.succeed();
                        *ticks = 0;
                    }
                }
            }
        })
        .in_set(BtSystems::Act),
    );
    let h = load(&mut app, "a.bt.ron");
    let e = spawn(
        &mut app,
        BehaviorTree::new(h),
        Blackboard::new().with_tag("infantry"),
    );
    assert_eq!(active(&mut app, e), ["root/idle"]);
    let archetype = app.world().entity(e).archetype().id();
    app.world_mut()
        .get_mut::<Blackboard>(e)
        .unwrap()
        .set("target", true)
        .unwrap();
    app.update();
    assert_eq!(active(&mut app, e), ["root/fight/Shoot"]);
    assert!(app.world().get::<BtActions>(e).unwrap().is_running(SHOOT));
    assert_eq!(
        app.world().entity(e).archetype().id(),
        archetype,
        "no archetype change"
    );
    // Shoot succeeds after 3 ticks; the sequence succeeds; the tree repeats.
    for _ in 0..3 {
        app.update();
    }
    assert_eq!(
        app.world().get::<BtAgent>(e).unwrap().status(),
        Status::Success
    );
    app.update();
    assert_eq!(active(&mut app, e), ["root/fight/Shoot"]);
}

#[test]
fn per_tree_rates_and_run_once() {
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app(dir.path());
    let h = load(&mut app, "a.bt.ron");
    let fast = app.world_mut().spawn(BehaviorTree::new(h.clone())).id();
    let slow = app
        .world_mut()
        .spawn(BehaviorTree::new(h).with_rate(5.0))
        .id();
    run_until(&mut app, "bind", |w| {
        w.get::<BtAgent>(fast).unwrap().state().ticks() > 0
    });
    let (f0, s0) = (
        app.world().get::<BtAgent>(fast).unwrap().state().ticks(),
        app.world().get::<BtAgent>(slow).unwrap().state().ticks(),
    );
    for _ in 0..60 {
        app.update();
    }
    let f = app.world().get::<BtAgent>(fast).unwrap().state().ticks() - f0;
    let s = app.world().get::<BtAgent>(slow).unwrap().state().ticks() - s0;
    assert_eq!(f, 60, "30 Hz: one tick per fixed step");
    assert!((9..=11).contains(&s), "5 Hz over 2 s: {s}");
}

/// A rate or mode given to a running agent's tree takes effect at once,
/// and taken away, the agent ticks every update again (the tick reads the
/// tree only for agents with a rate or run once, as of the tree's last
/// change).
#[test]
fn a_rate_or_mode_changed_on_a_running_tree_takes_effect() {
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app(dir.path());
    let h = load(&mut app, "a.bt.ron");
    let e = app.world_mut().spawn(BehaviorTree::new(h)).id();
    run_until(&mut app, "bind", |w| {
        w.get::<BtAgent>(e).unwrap().state().ticks() > 0
    });
    let ticks = |app: &App| app.world().get::<BtAgent>(e).unwrap().state().ticks();
    let over = |app: &mut App, updates: usize| {
        let before = ticks(app);
        for _ in 0..updates {
            app.update();
        }
        ticks(app) - before
    };
    assert_eq!(over(&mut app, 30), 30, "30 Hz: one tick per fixed step");
    app.world_mut().get_mut::<BehaviorTree>(e).unwrap().rate_hz = Some(5.0);
    let slow = over(&mut app, 60);
    assert!((9..=11).contains(&slow), "5 Hz over 2 s: {slow}");
    app.world_mut().get_mut::<BehaviorTree>(e).unwrap().rate_hz = None;
    assert_eq!(over(&mut app, 30), 30, "every step again");
    // Run once: the tree finishes when its root does (idle succeeds), and
    // ticks no more.
    app.world_mut().get_mut::<BehaviorTree>(e).unwrap().mode = RunMode::Once;
    app.update();
    let mut actions = app.world_mut().get_mut::<BtActions>(e).unwrap();
    actions.iter_mut().for_each(|a| a.succeed());
    app.update();
    assert!(app.world().get::<BtAgent>(e).unwrap().is_finished());
    assert_eq!(over(&mut app, 10), 0, "a finished tree that runs once");
}

#[test]
fn a_reload_swaps_the_program_and_a_bad_file_never_replaces_a_good_one() {
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app(dir.path());
    let h = load(&mut app, "a.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    assert_eq!(active(&mut app, e), ["root/idle"]);

    // A good edit: the agent restarts cleanly on the new program.
    std::fs::write(
        dir.path().join("a.bt.ron"),
        TREE.replace("name: \"idle\"", "name: \"rest\""),
    )
    .unwrap();
    app.world().resource::<AssetServer>().reload("a.bt.ron");
    run_until(&mut app, "the reload", |w| {
        w.get::<BtAgent>(e).unwrap().active_paths() == ["root/rest"]
    });

    // A bad edit: an error with file:line:column; the good program keeps running.
    std::fs::write(
        dir.path().join("a.bt.ron"),
        TREE.replace("Action(name: \"idle\"", "Dance(name: \"idle\""),
    )
    .unwrap();
    app.world().resource::<AssetServer>().reload("a.bt.ron");
    let mut error = None;
    run_until(&mut app, "the load failure", |w| {
        error = w
            .resource_mut::<Messages<AssetLoadFailedEvent<BtAsset>>>()
            .drain()
            .next()
            .map(|e| e.error.to_string());
        error.is_some()
    });
    let error = error.unwrap();
    assert!(
        error.contains("a.bt.ron:6:") && error.contains("unknown node kind \"Dance\""),
        "{error}"
    );
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(active(&mut app, e), ["root/rest"]);
}

#[test]
fn unknown_actions_are_load_errors_in_an_app() {
    let dir = dir_with(&[("b.bt.ron", &TREE.replace("\"Shoot\"", "\"Teleport\""))]);
    let mut app = app(dir.path());
    let _h = load(&mut app, "b.bt.ron");
    let mut error = None;
    run_until(&mut app, "the load failure", |w| {
        error = w
            .resource_mut::<Messages<AssetLoadFailedEvent<BtAsset>>>()
            .drain()
            .next()
            .map(|e| e.error.to_string());
        error.is_some()
    });
    assert!(error.unwrap().contains("unknown action \"Teleport\""));
}

/// Runs children in turn, one tick each (a custom composite).
struct RoundRobin;
impl CustomNode for RoundRobin {
    fn tick(&self, ctx: &mut CustomCtx<'_, '_>) -> Status {
        let n = ctx.child_count();
        let k = (*ctx.aux() as usize) % n;
        *ctx.aux() += 1;
        for other in (0..n).filter(|&o| o != k) {
            ctx.halt_child(other);
        }
        ctx.tick_child(k);
        Status::Running
    }
}

#[test]
fn game_code_registers_custom_nodes_and_inserts_stimuli() {
    let tree = r#"(
        behaviors: [Action(name: "flee", action: "Idle")],
        root: PrioritizedList(name: "root", children: [
            Custom(name: "rr", kind: "RoundRobin", children: [Action(action: "Shoot"), Action(action: "Idle")]),
        ]),
    )"#;
    let dir = dir_with(&[("c.bt.ron", tree)]);
    let mut app = app(dir.path());
    app.register_bt_node("RoundRobin", RoundRobin);
    let h = load(&mut app, "c.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    let first = active(&mut app, e);
    app.update();
    let second = active(&mut app, e);
    assert_ne!(first, second);
    assert!(first.len() == 1 && second.len() == 1);
    app.world_mut()
        .get_mut::<BtAgent>(e)
        .unwrap()
        .insert_stimulus("root", "flee", 0, 0.2)
        .unwrap();
    app.update();
    assert_eq!(active(&mut app, e), ["root/flee"]);
    for _ in 0..7 {
        app.update();
    }
    assert_ne!(active(&mut app, e), ["root/flee"], "expired after 0.2 s");
}

#[test]
fn trees_read_published_world_values_and_other_files() {
    let tree = r#"(root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "quest", children: [Condition(check: World("TOWERS", Ge, 5)), Use(behavior: "flee", file: "lib/common.bt.ron")]),
        Action(name: "idle", action: "Idle"),
    ]))"#;
    let common = r#"(behaviors: [GuardSequence(name: "flee", children: [Action(action: "Shoot")])], root: Use(behavior: "flee"))"#;
    let dir = dir_with(&[("q.bt.ron", tree)]);
    std::fs::create_dir(dir.path().join("lib")).unwrap();
    std::fs::write(dir.path().join("lib/common.bt.ron"), common).unwrap();
    let mut app = app(dir.path());
    let h = load(&mut app, "q.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    assert_eq!(active(&mut app, e), ["root/idle"]);
    app.world_mut().resource_mut::<BtGlobals>().set("TOWERS", 5);
    app.update();
    assert_eq!(active(&mut app, e), ["root/quest/flee/Shoot"]);
}

/// A tree whose `Use(file: ..)` goes above the assets folder does not
/// load, and says why: the `..` was dropped, and the tree silently used
/// the file of that name in the assets folder itself.
#[test]
fn a_use_above_the_assets_folder_is_refused_not_read_from_the_root() {
    let tree = r#"(root: Sequence(name: "root", children: [Use(behavior: "flee", file: "../../common.bt.ron")]))"#;
    let common =
        r#"(behaviors: [Action(name: "flee", action: "Shoot")], root: Use(behavior: "flee"))"#;
    let dir = dir_with(&[("common.bt.ron", common)]);
    std::fs::create_dir(dir.path().join("trees")).unwrap();
    std::fs::write(dir.path().join("trees/q.bt.ron"), tree).unwrap();
    let mut app = app(dir.path());
    let h = load(&mut app, "trees/q.bt.ron");
    let err = wyrd_test_support::wait_loaded(&mut app, &h).unwrap_err();
    // At the `Use`, with the path as written.
    assert!(
        err.contains("trees/q.bt.ron:1:")
            && err.contains("cannot read ../../common.bt.ron")
            && err.contains("above the assets folder"),
        "{err}"
    );
}

/// A used file that cannot be read is an error of the tree that uses it,
/// at its `Use` (it was reported at the missing file's own 1:1).
#[test]
fn a_missing_used_file_is_reported_where_the_tree_names_it() {
    let tree = "(root: Sequence(name: \"root\", children: [\n    Use(behavior: \"flee\", file: \"lib/nothere.bt.ron\"),\n]))";
    let dir = dir_with(&[("q.bt.ron", tree)]);
    let mut app = app(dir.path());
    let h = load(&mut app, "q.bt.ron");
    let err = wyrd_test_support::wait_loaded(&mut app, &h).unwrap_err();
    assert!(
        err.contains("q.bt.ron:2:34") && err.contains("cannot read lib/nothere.bt.ron"),
        "{err}"
    );
}

#[test]
fn a_traced_agent_records_what_each_tick_did() {
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app(dir.path());
    let h = load(&mut app, "a.bt.ron");
    let e = spawn(
        &mut app,
        BehaviorTree::new(h),
        Blackboard::new().with_tag("infantry"),
    );
    // Off by default: nothing recorded.
    assert!(app.world().get::<BtAgent>(e).unwrap().trace().is_none());
    app.world_mut()
        .get_mut::<BtAgent>(e)
        .unwrap()
        .set_tracing(true);
    app.world_mut()
        .get_mut::<Blackboard>(e)
        .unwrap()
        .set("target", true)
        .unwrap();
    app.update();
    let agent = app.world().get::<BtAgent>(e).unwrap();
    let program = agent.program().unwrap().clone();
    let trace = agent.trace().unwrap();
    let paths = |nodes: Vec<u32>| -> Vec<String> {
        nodes.iter().map(|&n| program.path(n).to_owned()).collect()
    };
    assert_eq!(paths(trace.started().collect()), ["root/fight/Shoot"]);
    assert_eq!(paths(trace.aborted().collect()), ["root/idle"]);
    assert!(trace.restarted().is_empty());
    assert_eq!(
        paths(trace.ticked.clone()),
        [
            "root",
            "root/fight",
            "root/fight/?target",
            "root/fight/Shoot"
        ]
    );
}

/// DESIGN "Time" in the app: a 10 s wait at 30 Hz lasts 300 ticks (agent
/// time once advanced 33 ms a tick and ran 1 % slow: 303 ticks).
#[test]
fn a_long_wait_lasts_its_ticks_in_the_app() {
    let tree = r#"(root: Sequence(name: "root", children: [Wait(name: "w", seconds: 10.0), Action(name: "end", action: "Idle")]))"#;
    let dir = dir_with(&[("w.bt.ron", tree)]);
    let mut app = app(dir.path());
    let h = load(&mut app, "w.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    while active(&mut app, e) != ["root/end"] {
        app.update();
        assert!(app.world().get::<BtAgent>(e).unwrap().state().ticks() < 400);
    }
    assert_eq!(app.world().get::<BtAgent>(e).unwrap().state().ticks(), 301);
}

/// `BtPlugin::new(schedule)` runs the sets there (issue 15: the schedule is
/// the user's choice, like avian's `PhysicsSchedulePlugin::new`).
#[test]
fn trees_tick_in_the_schedule_the_plugin_is_given() {
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app_with(dir.path(), BtPlugin::new(Update));
    // An action system in the plugin's schedule sees the tick's actions.
    #[derive(Resource, Default)]
    struct Seen(u32);
    app.init_resource::<Seen>().add_systems(
        Update,
        (|q: Query<&BtActions>, mut seen: ResMut<Seen>| {
            seen.0 += q.iter().filter(|a| a.iter().next().is_some()).count() as u32;
        })
        .in_set(BtSystems::Act),
    );
    let h = load(&mut app, "a.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    let ticks = app.world().get::<BtAgent>(e).unwrap().state().ticks();
    for _ in 0..10 {
        app.update();
    }
    // One tick per frame (no fixed timestep involved).
    assert_eq!(
        app.world().get::<BtAgent>(e).unwrap().state().ticks(),
        ticks + 10
    );
    assert!(app.world().resource::<Seen>().0 >= 10);
    assert_eq!(active(&mut app, e), ["root/idle"]);
}

/// Issue 15: the plugin leaves `Time<Fixed>` as the app set it (it used to
/// set the whole app's fixed timestep to 30 Hz, physics included) unless
/// asked with `tick_hz`.
#[test]
fn the_plugin_leaves_the_fixed_timestep_alone_unless_asked() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default()))
        .insert_resource(Time::<Fixed>::from_hz(50.0))
        .add_plugins(BtPlugin::default());
    let step = app.world().resource::<Time<Fixed>>().timestep();
    assert_eq!(step, Duration::from_millis(20));
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, AssetPlugin::default()))
        .insert_resource(Time::<Fixed>::from_hz(50.0))
        .add_plugins(BtPlugin {
            tick_hz: Some(25.0),
            ..Default::default()
        });
    let step = app.world().resource::<Time<Fixed>>().timestep();
    assert_eq!(step, Duration::from_millis(40));
}

/// Issue 15: tick timings are Bevy diagnostics (what the inspector and HUDs
/// can read from `DiagnosticsStore`).
#[test]
fn tick_timings_are_published_as_diagnostics() {
    use bevy::diagnostic::DiagnosticsStore;
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app(dir.path());
    let h = load(&mut app, "a.bt.ron");
    spawn(&mut app, BehaviorTree::new(h.clone()), Blackboard::new());
    spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    for _ in 0..3 {
        app.update();
    }
    let store = app.world().resource::<DiagnosticsStore>();
    let ticked = store.get(&BtPlugin::TICKED).and_then(|d| d.value());
    assert_eq!(ticked, Some(2.0));
    assert!(
        store
            .get(&BtPlugin::DECIDE_MS)
            .and_then(|d| d.value())
            .is_some()
    );
}

/// A run-once tree whose root is skipped (masked by the agent's tags) has
/// finished: it is not ticked again (it used to finish only on success or
/// failure, so a skipped root ran every tick).
#[test]
fn a_run_once_tree_whose_root_is_skipped_is_finished() {
    let tree =
        r#"(tags: ["driver"], root: Action(name: "root", action: "Idle", tags: ["driver"]))"#;
    let dir = dir_with(&[("m.bt.ron", tree)]);
    let mut app = app(dir.path());
    let h = load(&mut app, "m.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(h).once(), Blackboard::new());
    let agent = app.world().get::<BtAgent>(e).unwrap();
    assert_eq!(agent.status(), Status::Skipped);
    let ticks = agent.state().ticks();
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(
        app.world().get::<BtAgent>(e).unwrap().state().ticks(),
        ticks
    );
}

/// The test-support crate's in-memory folder: a tree loads with no file on
/// disk, a missing one is an error naming it, and one update is one tick.
#[test]
fn trees_load_from_an_in_memory_folder_and_tick_once_per_update() {
    use wyrd_test_support::{MemoryAssets, TestApp, step, wait_loaded};
    let files = MemoryAssets::new().with("a.bt.ron", TREE);
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            app.register_bt_action("Shoot").register_bt_action("Idle");
        })
        .build();
    let missing = load(&mut app, "missing.bt.ron");
    let err = wait_loaded(&mut app, &missing).unwrap_err();
    assert!(err.contains("missing.bt.ron"), "{err}");
    let handle = load(&mut app, "a.bt.ron");
    wait_loaded(&mut app, &handle).unwrap();
    let e = app
        .world_mut()
        .spawn((BehaviorTree::new(handle), Blackboard::default()))
        .id();
    step(&mut app, 1);
    let first = app.world().get::<BtAgent>(e).unwrap().state().ticks();
    step(&mut app, 10);
    let agent = app.world().get::<BtAgent>(e).unwrap();
    assert_eq!(agent.state().ticks(), first + 10);
    assert_eq!(agent.active_paths(), ["root/idle"]);
}

/// Issue 14: a condition reading a key the game has not set yet fails and
/// is reported once (a warning and one entry in `problems`), not every
/// tick; typed actions registered with `add_bt_action` read their fields.
#[test]
fn unset_keys_are_reported_once_and_typed_actions_read_their_fields() {
    use bevy::math::Vec3;
    use wyrd_test_support::{MemoryAssets, TestApp, step, wait_loaded};
    wyrd_bt::bt_action! {
        /// Moves to the goal.
        pub struct MoveTo {
            /// Where to.
            pub goal: Vec3,
            /// How fast.
            pub speed: f32 = 2.0,
        }
    }
    let files = MemoryAssets::new().with(
        "u.bt.ron",
        r#"(
            blackboard: {"target": Entity, "cover": Vec3(1.0, 2.0, 3.0)},
            root: PrioritizedList(name: "root", children: [
                GuardSequence(name: "attack", children: [
                    Condition(check: Bb("target", Ne, Entity(0))),
                    Action(action: "Shoot"),
                ]),
                Action(name: "hide", action: "MoveTo", params: {"goal": "{cover}"}),
            ]),
        )"#,
    );
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            app.register_bt_action("Shoot").add_bt_action::<MoveTo>();
        })
        .build();
    let handle = load(&mut app, "u.bt.ron");
    wait_loaded(&mut app, &handle).unwrap();
    let e = app
        .world_mut()
        .spawn((BehaviorTree::new(handle), Blackboard::default()))
        .id();
    step(&mut app, 10);
    let agent = app.world().get::<BtAgent>(e).unwrap();
    let about_target: Vec<&AgentProblem> = agent
        .problems()
        .iter()
        .filter(|p| matches!(p, AgentProblem::UnsetKey { key, .. } if key == "target"))
        .collect();
    assert_eq!(about_target.len(), 1, "{:?}", agent.problems());
    assert!(
        about_target[0].to_string().contains("before it was set"),
        "{about_target:?}"
    );
    let actions = app.world().get::<BtActions>(e).unwrap();
    let slot = actions
        .iter()
        .find(|a| a.id == MoveTo::ID && a.is_running())
        .expect("hide runs");
    let bb = app.world().get::<Blackboard>(e).unwrap();
    let go: MoveTo = agent.read_action(slot, bb).unwrap();
    assert_eq!(
        go,
        MoveTo {
            goal: Vec3::new(1.0, 2.0, 3.0),
            speed: 2.0
        }
    );
}

/// Issue 16: the flight recorder keeps the last N ticks of an agent (the
/// ring folds older ticks into its start state), and the recording replays
/// exactly: timers, random choices, stimuli, reports and inputs included.
#[test]
fn the_flight_recorder_keeps_the_last_ticks_and_replays_exactly() {
    use wyrd_test_support::{MemoryAssets, TestApp, step};
    let tree = r#"(
        blackboard: {"enemy": false, "ammo": 5},
        behaviors: [Sequence(name: "panic", children: [Action(action: "Flee")])],
        root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "fight", children: [
                Condition(check: Is("enemy")),
                Condition(check: Bb("ammo", Gt, 0)),
                Cooldown(seconds: 0.2, child: Action(action: "Shoot")),
            ]),
            Probabilistic(name: "idle", children: [Action(action: "Wander"), Wait(seconds: 0.3)]),
        ]),
    )"#;
    let files = MemoryAssets::new().with("r.bt.ron", tree);
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            for a in ["Shoot", "Flee", "Wander"] {
                app.register_bt_action(a);
            }
            // The game: actions take 3 ticks; inputs change over time.
            app.add_systems(
                FixedUpdate,
                (|mut q: Query<(&mut BtActions, &mut Blackboard, &mut BtAgent)>,
                  mut n: Local<u32>| {
                    *n += 1;
                    for (mut actions, mut bb, mut agent) in &mut q {
                        for a in actions.iter_mut().filter(|a| a.is_running()) {
                            if (*n + a.leaf()).is_multiple_of(3) {
                                a.succeed();
                            }
                        }
                        bb.set("enemy", (*n / 17) % 2 == 1).unwrap();
                        bb.set("ammo", i64::from(*n % 7)).unwrap();
                        if *n % 40 == 30 {
                            agent.insert_stimulus("root", "panic", 0, 0.5).unwrap();
                        }
                    }
                })
                .in_set(BtSystems::Act),
            );
        })
        .build();
    let (handle, program) = loaded(&mut app, "r.bt.ron");
    let e = app
        .world_mut()
        .spawn(BehaviorTree::new(handle).with_seed(9))
        .id();
    app.world_mut().get_mut::<BtAgent>(e).unwrap().record(40);
    step(&mut app, 120);
    let agent = app.world().get::<BtAgent>(e).unwrap();
    assert_eq!(
        agent.recorder().unwrap().len(),
        40,
        "the ring keeps 40 ticks"
    );
    let rec = agent.recording().unwrap();
    assert_eq!(rec.ticks.len(), 40);
    assert_eq!(rec.start.state.ticks, 80, "the window starts 80 ticks in");
    assert!(
        rec.ticks.iter().any(|t| !t.stimuli.is_empty()),
        "a stimulus is in the window"
    );
    // Through JSON, as `wyrd sim --replay` reads it.
    let json = serde_json::to_string(&rec).unwrap();
    let rec: wyrd_bt::Recording = serde_json::from_str(&json).unwrap();
    let report = wyrd_bt::sim::replay(&program, &rec, false).unwrap();
    assert_eq!(report.divergence, None);
    assert_eq!(report.ticks, 40);
    // A script starts from a fresh agent: a window starting mid-run is not one.
    let e = wyrd_bt::sim::recording_script(&program, &rec, false).unwrap_err();
    // Numbered as `--stats` numbers the ticks (the first recorded is 81).
    assert!(
        e.to_string()
            .contains("starts after agent tick 80 (its first tick is 81"),
        "{e}"
    );
    // A recording whose inputs were tampered with is caught at that tick.
    let mut bad = rec;
    let t = bad
        .ticks
        .iter_mut()
        .find(|t| !t.reports.is_empty())
        .unwrap();
    let tick = t.tick;
    t.reports.clear();
    let report = wyrd_bt::sim::replay(&program, &bad, false).unwrap();
    assert_eq!(report.divergence.map(|d| d.tick), Some(tick));
}

/// Issue 18: a recorded agent on a tree whose ticks take shortcuts (the
/// reference tree: reports taken where the action is, fresh walks from the
/// decision table) replays exactly, after the ring has folded ticks into
/// its start state.
#[test]
fn a_recording_of_a_tree_with_shortcuts_replays_exactly() {
    use wyrd_test_support::{MemoryAssets, TestApp, step};
    let tree = include_str!("../../../../assets/bench/reference.bt.ron");
    let files = MemoryAssets::new().with("r.bt.ron", tree);
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            for a in [
                "DiveToCover",
                "Crouch",
                "FleeRun",
                "Cower",
                "VehicleShoot",
                "VehicleDrive",
                "MoveToCover",
                "PeekShoot",
                "Aim",
                "Shoot",
                "Advance",
                "GoToLastKnown",
                "LookAround",
                "Patrol",
                "Idle",
            ] {
                app.register_bt_action(a);
            }
            // The game: actions end after a few ticks, some fail; inputs
            // change now and then.
            app.add_systems(
                FixedUpdate,
                (|mut q: Query<(&mut BtActions, &mut Blackboard)>, mut n: Local<u32>| {
                    *n += 1;
                    for (mut actions, mut bb) in &mut q {
                        for a in actions.iter_mut().filter(|a| a.is_running()) {
                            if (*n + a.leaf()).is_multiple_of(11) {
                                a.fail();
                            } else if (*n + a.leaf()).is_multiple_of(3) {
                                a.succeed();
                            }
                        }
                        if n.is_multiple_of(13) {
                            bb.set("has_target", !(*n / 13).is_multiple_of(3)).unwrap();
                        }
                        if n.is_multiple_of(29) {
                            bb.set("grenade_near", (*n / 29) % 2 == 1).unwrap();
                        }
                    }
                })
                .in_set(BtSystems::Act),
            );
        })
        .build();
    let (handle, program) = loaded(&mut app, "r.bt.ron");
    assert_eq!(program.decision_table_entries(), 1024);
    let e = app
        .world_mut()
        .spawn(BehaviorTree::new(handle).with_seed(3))
        .id();
    app.world_mut().get_mut::<BtAgent>(e).unwrap().record(40);
    step(&mut app, 150);
    let rec = app.world().get::<BtAgent>(e).unwrap().recording().unwrap();
    assert_eq!(rec.start.state.ticks, 110, "the window starts 110 ticks in");
    let json = serde_json::to_string(&rec).unwrap();
    let rec: wyrd_bt::Recording = serde_json::from_str(&json).unwrap();
    let report = wyrd_bt::sim::replay(&program, &rec, false).unwrap();
    assert_eq!(report.divergence, None);
    assert_eq!(report.ticks, 40);
}

/// Issue 24, 6: trees ticked 2 to 39 times before the game's files had
/// loaded, so the agent clock and the first decisions depended on load
/// speed. While the declared world values load (`Declared::Loading`, set by
/// the world state until its flags files merged) no tree ticks; the first
/// tick comes after, and `wait_for_world: false` turns it off.
#[test]
fn trees_wait_for_their_world() {
    for wait in [true, false] {
        let dir = dir_with(&[("a.bt.ron", TREE)]);
        let mut app = app_with(
            dir.path(),
            BtPlugin {
                wait_for_world: wait,
                ..Default::default()
            },
        );
        let (h, _) = loaded(&mut app, "a.bt.ron");
        app.world_mut()
            .resource_mut::<BtGlobals>()
            .set_declared(wyrd_bt::Declared::Loading);
        let e = app
            .world_mut()
            .spawn((BehaviorTree::new(h), Blackboard::default()))
            .id();
        wyrd_test_support::step(&mut app, 5);
        let ticks = app.world().get::<BtAgent>(e).unwrap().state().ticks();
        if wait {
            assert_eq!(ticks, 0, "no tick while the world loads");
        } else {
            assert!(ticks > 0);
        }
        app.world_mut()
            .resource_mut::<BtGlobals>()
            .set_declared(wyrd_bt::Declared::Complete);
        wyrd_test_support::step(&mut app, 3);
        let after = app.world().get::<BtAgent>(e).unwrap().state().ticks();
        assert_eq!(after, ticks + 3, "one tick per step once it is loaded");
    }
}

/// A restored agent's running action waits for the agent's first tick
/// while the world loads: visiting it before (the agent's clock stopped)
/// made a continued run depend on how fast the files loaded (a BT.CPP
/// user's robot, issue 24: its `MoveTo` was visited once more in 6 of 12
/// relaunches).
#[test]
fn a_restored_action_waits_for_the_first_tick_while_the_world_loads() {
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app(dir.path());
    let (h, _) = loaded(&mut app, "a.bt.ron");
    let first = app
        .world_mut()
        .spawn((BehaviorTree::new(h.clone()), Blackboard::default()))
        .id();
    wyrd_test_support::step(&mut app, 3);
    let saved = saved_state(&app, first);
    app.world_mut().despawn(first);
    app.world_mut()
        .resource_mut::<BtGlobals>()
        .set_declared(wyrd_bt::Declared::Loading);
    let e = app
        .world_mut()
        .spawn((BehaviorTree::new(h), wyrd_bt::RestoreTree(saved)))
        .id();
    let idle = wyrd_bt::ActionId::of("Idle");
    // No system reads `Idle`: listed for the test to count.
    app.world_mut().resource_mut::<RunningActions>().watch(idle);
    for _ in 0..4 {
        wyrd_test_support::step(&mut app, 1);
        let listed = app.world().resource::<RunningActions>().count(idle);
        assert_eq!(listed, 0, "no action visit while the world loads");
    }
    let agent = app.world().get::<BtAgent>(e).unwrap();
    assert_eq!(agent.active_paths(), ["root/idle"], "restored");
    app.world_mut()
        .resource_mut::<BtGlobals>()
        .set_declared(wyrd_bt::Declared::Complete);
    wyrd_test_support::step(&mut app, 1);
    assert_eq!(app.world().resource::<RunningActions>().count(idle), 1);
}

/// While a debugger holds the trees (`BtSettings::paused`), their actions
/// are held too: `Running<A>` lists no agent, so the game's action
/// systems do not go on with an action the tree cannot see end (a
/// stranger's miner finished a whole rest during a breakpoint's pause,
/// and with breakpoints on the run went otherwise than without); a step
/// ticks the trees once and lists their actions for that update.
#[test]
fn paused_trees_hold_their_actions_and_a_step_lists_them_once() {
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app(dir.path());
    let (h, _) = loaded(&mut app, "a.bt.ron");
    let e = app
        .world_mut()
        .spawn((BehaviorTree::new(h), Blackboard::default()))
        .id();
    let idle = wyrd_bt::ActionId::of("Idle");
    app.world_mut().resource_mut::<RunningActions>().watch(idle);
    wyrd_test_support::step(&mut app, 3);
    assert_eq!(app.world().resource::<RunningActions>().count(idle), 1);
    app.world_mut().resource_mut::<BtSettings>().paused = true;
    let ticks = |app: &App| app.world().get::<BtAgent>(e).unwrap().state().ticks();
    let before = ticks(&app);
    for _ in 0..4 {
        wyrd_test_support::step(&mut app, 1);
        assert_eq!(
            app.world().resource::<RunningActions>().count(idle),
            0,
            "held"
        );
        assert!(app.world().resource::<BtStats>().paused);
        // Held trees tick none: the inspector's timing said 1440 a second.
        assert_eq!(app.world().resource::<BtStats>().ticks_per_second, 0.0);
    }
    assert_eq!(ticks(&app), before);
    app.world_mut().resource_mut::<BtSettings>().steps = 1;
    wyrd_test_support::step(&mut app, 1);
    assert_eq!(ticks(&app), before + 1, "one step");
    assert_eq!(app.world().resource::<RunningActions>().count(idle), 1);
    assert!(!app.world().resource::<BtStats>().paused, "the trees ran");
    wyrd_test_support::step(&mut app, 1);
    assert_eq!(app.world().resource::<RunningActions>().count(idle), 0);
}

/// A finished agent (or one not due) is not marked changed: saving
/// "agents that changed" passed every agent every interval, finished or
/// not (a BT.CPP user's robot, issue 24: 40 saves in 200 s of a finished
/// run).
#[test]
fn an_agent_that_does_not_tick_is_not_marked_changed() {
    let dir = dir_with(&[(
        "done.bt.ron",
        r#"(root: Sequence(name: "root", children: [Succeed(name: "ok")]))"#,
    )]);
    let mut app = app(dir.path());
    let (h, _) = loaded(&mut app, "done.bt.ron");
    let e = app
        .world_mut()
        .spawn((
            BehaviorTree {
                mode: RunMode::Once,
                ..BehaviorTree::new(h)
            },
            Blackboard::default(),
        ))
        .id();
    // What a game system sees changed, each update.
    #[derive(Resource, Default)]
    struct Seen(usize);
    type AgentChanged = Or<(Changed<BtAgent>, Changed<BtActions>)>;
    app.init_resource::<Seen>().add_systems(
        Last,
        |q: Query<(), AgentChanged>, mut seen: ResMut<Seen>| {
            seen.0 += q.iter().count();
        },
    );
    wyrd_test_support::step(&mut app, 3);
    assert!(app.world().get::<BtAgent>(e).unwrap().is_finished());
    assert!(app.world().resource::<Seen>().0 > 0, "seen while it ran");
    wyrd_test_support::step(&mut app, 1);
    app.world_mut().resource_mut::<Seen>().0 = 0;
    wyrd_test_support::step(&mut app, 5);
    assert_eq!(
        app.world().resource::<Seen>().0,
        0,
        "a finished agent changes nothing"
    );
}

// Typed dispatch: `Running<A>` visits the agents running `A`, with its
// parameters read.

bt_action! {
    /// Walk a distance.
    pub struct Walk {
        /// Metres.
        pub metres: f32,
    }
}

bt_action! {
    /// Follow someone.
    pub struct Follow {
        /// Whom.
        pub whom: Entity,
    }
}

const DISPATCH_TREE: &str = r#"(
    blackboard: {"walk": false, "whom": Entity},
    root: PrioritizedList(name: "root", children: [
        ReactiveSequence(name: "walking", children: [Condition(check: Is("walk")), Action(action: "Walk", params: {"metres": 3.0})]),
        Action(name: "follow", action: "Follow", params: {"whom": "{whom}"}),
    ]),
)"#;

/// What the test's action systems saw, per update.
#[derive(Resource, Default)]
struct Seen {
    walks: Vec<(Entity, f32, bool)>,
    follows: Vec<(Entity, Entity)>,
    aborted: Vec<Entity>,
    /// Walks run on forever.
    endless: bool,
}

fn walk(mut walks: Running<Walk>, mut seen: ResMut<Seen>) {
    walks.for_each(|mut w| {
        seen.walks.push((w.entity(), w.params().metres, w.is_new()));
        if w.elapsed_ms() >= 60 && !seen.endless {
            w.succeed();
        }
    });
    walks.for_each_aborted(|e, _| seen.aborted.push(e));
}

fn follow(mut follows: Running<Follow>, mut seen: ResMut<Seen>) {
    follows.for_each(|f| seen.follows.push((f.entity(), f.params().whom)));
}

fn dispatch_app(dir: &Path) -> App {
    let mut app = app(dir);
    app.add_bt_action::<Walk>()
        .add_bt_action::<Follow>()
        .init_resource::<Seen>()
        .add_systems(FixedUpdate, (walk, follow).chain().in_set(BtSystems::Act));
    app
}

/// Two leaves of one action with different constant parameters, and one
/// reading a key, their agents interleaved in the action's list: each
/// agent gets its own leaf's parameters (a leaf's constants are read once
/// per run of its slots in the list).
#[test]
fn each_leaf_of_an_action_gives_its_own_parameters() {
    const TREE: &str = r#"(
        blackboard: {"far": false, "keyed": false, "metres": 5.5},
        root: PrioritizedList(name: "root", children: [
            ReactiveSequence(name: "far", children: [Condition(check: Is("far")), Action(action: "Walk", params: {"metres": 9.0})]),
            ReactiveSequence(name: "keyed", children: [Condition(check: Is("keyed")), Action(action: "Walk", params: {"metres": "{metres}"})]),
            Action(name: "near", action: "Walk", params: {"metres": 3.0}),
        ]),
    )"#;
    let dir = dir_with(&[("w.bt.ron", TREE)]);
    let mut app = dispatch_app(dir.path());
    app.world_mut().resource_mut::<Seen>().endless = true;
    let h = load(&mut app, "w.bt.ron");
    let kinds = [
        "far", "far", "near", "keyed", "far", "near", "near", "keyed",
    ];
    let agents: Vec<(Entity, f32)> = kinds
        .iter()
        .map(|kind| {
            let bb = Blackboard::new()
                .with("far", *kind == "far")
                .with("keyed", *kind == "keyed");
            let e = app
                .world_mut()
                .spawn((BehaviorTree::new(h.clone()), bb))
                .id();
            let metres = match *kind {
                "far" => 9.0,
                "keyed" => 5.5,
                _ => 3.0,
            };
            (e, metres)
        })
        .collect();
    run_until(&mut app, "every agent walks", |w| {
        w.resource::<Seen>().walks.len() >= agents.len()
    });
    let seen: Vec<(Entity, f32)> = app.world().resource::<Seen>().walks[..agents.len()]
        .iter()
        .map(|(e, metres, _)| (*e, *metres))
        .collect();
    assert_eq!(
        seen, agents,
        "in the list's order, each with its leaf's metres"
    );
}

/// The tick lists only the actions some system reads: a game that
/// finishes its actions by hand from `BtActions` does not pay for lists
/// no one reads (copying the slots was about 10 ns per agent-tick of the
/// plugin path, issue 24); a `Running<A>` in `BtSystems::Act` lists `A`
/// from its system's set-up, before the first tick, so its first visit
/// sees the action started; an `ActionRuns` lists every action.
#[test]
fn only_the_actions_a_system_reads_are_listed() {
    let dir = dir_with(&[("d.bt.ron", DISPATCH_TREE)]);
    let run = |systems: Option<fn(&mut App)>| {
        let mut app = app(dir.path());
        app.add_bt_action::<Walk>()
            .add_bt_action::<Follow>()
            .init_resource::<Seen>();
        if let Some(add) = systems {
            add(&mut app);
        }
        let h = load(&mut app, "d.bt.ron");
        let walker = spawn(
            &mut app,
            BehaviorTree::new(h),
            Blackboard::new().with("walk", true),
        );
        let running = app.world().resource::<RunningActions>();
        let listed = (
            running.count(Walk::ID),
            running.watches(Walk::ID),
            running.watches(Follow::ID),
        );
        let seen = app.world().resource::<Seen>();
        (listed, seen.walks.first().copied(), walker)
    };
    // By hand: nothing listed.
    let (listed, _, _) = run(None);
    assert_eq!(listed, (0, false, false), "no reader, no list");
    // `Running<Walk>`: `Walk` listed from the first tick (its first visit
    // sees it new), `Follow` not.
    let (listed, first, walker) = run(Some(|app| {
        app.add_systems(FixedUpdate, walk.in_set(BtSystems::Act));
    }));
    assert_eq!(listed, (1, true, false));
    assert_eq!(first, Some((walker, 3.0, true)), "seen started");
    // `ActionRuns`: every action listed.
    fn both(mut runs: ActionRuns) {
        runs.for_each::<Follow>(|_| {});
    }
    let (listed, _, _) = run(Some(|app| {
        app.add_systems(FixedUpdate, both.in_set(BtSystems::Act));
    }));
    assert_eq!(listed, (1, true, true));
}

#[test]
fn running_visits_only_the_agents_running_the_action_with_its_parameters() {
    let dir = dir_with(&[("d.bt.ron", DISPATCH_TREE)]);
    let mut app = dispatch_app(dir.path());
    let h = load(&mut app, "d.bt.ron");
    let leader = app.world_mut().spawn_empty().id();
    let walker = spawn(
        &mut app,
        BehaviorTree::new(h.clone()),
        Blackboard::new().with("walk", true),
    );
    let follower = spawn(
        &mut app,
        BehaviorTree::new(h),
        Blackboard::new().with("whom", leader),
    );
    app.world_mut().resource_mut::<Seen>().walks.clear();
    app.world_mut().resource_mut::<Seen>().follows.clear();
    step(&mut app, 1);
    let seen = app.world().resource::<Seen>();
    assert!(seen.walks.iter().all(|w| w.0 == walker && w.1 == 3.0));
    assert_eq!(seen.walks.len(), 1, "only the walker walks");
    assert_eq!(seen.follows, vec![(follower, leader)], "only the follower");
    let running = app.world().resource::<RunningActions>();
    assert_eq!(running.count(Walk::ID), 1);
    assert_eq!(
        running.agents(Follow::ID).collect::<Vec<_>>(),
        vec![follower]
    );

    // Success is reported through the handle: the walk starts again (a new
    // slot, "new" once).
    app.world_mut().resource_mut::<Seen>().walks.clear();
    step(&mut app, 4);
    let walks = &app.world().resource::<Seen>().walks;
    assert!(walks.iter().filter(|w| w.2).count() >= 1, "{walks:?}");

    // The walker stops walking: its walk is seen aborted once, then it
    // would follow (unset whom: the action fails without starting,
    // reported as a problem).
    app.world_mut().resource_mut::<Seen>().endless = true;
    step(&mut app, 1);
    app.world_mut()
        .get_mut::<Blackboard>(walker)
        .unwrap()
        .set("walk", false)
        .unwrap();
    step(&mut app, 2);
    assert_eq!(app.world().resource::<Seen>().aborted, vec![walker]);
    let running = app.world().resource::<RunningActions>();
    assert_eq!(running.count(Walk::ID), 0, "listed until the tick after");
    let problems = app.world().get::<BtAgent>(walker).unwrap().problems();
    assert!(
        problems
            .iter()
            .any(|p| matches!(p, AgentProblem::UnsetKey { .. })
                && p.to_string().contains("\"whom\"")),
        "{problems:?}"
    );
    assert_eq!(problems.len(), 1, "once, not every tick: {problems:?}");

    // A despawned agent leaves the index.
    app.world_mut().despawn(follower);
    step(&mut app, 1);
    let running = app.world().resource::<RunningActions>();
    assert!(!running.agents(Follow::ID).any(|e| e == follower));
}

/// A tree's `SetBlackboard` writes the agent's component, which is marked
/// changed in the ticks the tree wrote and in no other: a game system
/// watching `Changed<Blackboard>` sees the tree's writes, and a tick that
/// writes nothing does not wake it.
#[test]
fn a_trees_write_marks_the_blackboard_changed_and_a_quiet_tick_does_not() {
    const WRITER: &str = r#"(
    blackboard: {"seen": false},
    root: Sequence(name: "root", children: [
        SetBlackboard(name: "mark", key: "seen", value: true),
        Action(name: "idle", action: "Idle"),
    ]),
)"#;
    /// Updates in which a system saw a changed blackboard.
    #[derive(Resource, Default)]
    struct Seen(Vec<usize>);
    let dir = dir_with(&[("w.bt.ron", WRITER)]);
    let mut app = app(dir.path());
    app.init_resource::<Seen>().add_systems(
        PostUpdate,
        |q: Query<(), Changed<Blackboard>>, mut seen: ResMut<Seen>| {
            seen.0.push(q.iter().count());
        },
    );
    let h = load(&mut app, "w.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    let seen = |app: &App| app.world().get::<Blackboard>(e).unwrap().get("seen");
    assert_eq!(
        seen(&app),
        Some(Value::Bool(true)),
        "written in the first tick"
    );
    let mut quiet = || {
        app.world_mut().resource_mut::<Seen>().0.clear();
        app.update();
        app.world().resource::<Seen>().0.clone()
    };
    for _ in 0..3 {
        assert_eq!(quiet(), [0], "a tick running Idle wrote nothing");
    }
    // The game clears the flag (a change the game made)...
    app.world_mut()
        .get_mut::<Blackboard>(e)
        .unwrap()
        .set("seen", false)
        .unwrap();
    app.update();
    // ...then Idle ends: the sequence starts again and the tree writes the
    // flag back in that tick.
    for mut actions in app
        .world_mut()
        .query::<&mut BtActions>()
        .iter_mut(app.world_mut())
    {
        actions.iter_mut().for_each(|a| a.succeed());
    }
    app.world_mut().resource_mut::<Seen>().0.clear();
    app.update();
    assert_eq!(seen(&app), Some(Value::Bool(true)), "written again");
    assert_eq!(app.world().resource::<Seen>().0, [1], "the tree's write");
}

/// A success reported through `Running` is in the agent's `BtActions` when
/// the update ends (a system reading the component sees it), and a report
/// made outside `BtSystems::Act` (here in `Update`) reaches the tree too:
/// the walk starts again after each.
#[test]
fn a_typed_report_reaches_the_slot_from_act_and_from_outside_it() {
    fn walk_in_update(mut walks: Running<Walk>, mut seen: ResMut<Seen>) {
        walks.for_each(|mut w| {
            if !w.is_new() {
                seen.walks.push((w.entity(), w.params().metres, false));
                w.succeed();
            }
        });
    }
    for in_act in [true, false] {
        let dir = dir_with(&[("d.bt.ron", DISPATCH_TREE)]);
        let mut app = app(dir.path());
        app.add_bt_action::<Walk>()
            .add_bt_action::<Follow>()
            .init_resource::<Seen>();
        if in_act {
            app.add_systems(FixedUpdate, walk_in_update.in_set(BtSystems::Act));
        } else {
            app.add_systems(Update, walk_in_update);
        }
        let h = load(&mut app, "d.bt.ron");
        let walker = spawn(
            &mut app,
            BehaviorTree::new(h),
            Blackboard::new().with("walk", true),
        );
        let mut succeeded_seen = 0;
        let mut started = std::collections::BTreeSet::new();
        for _ in 0..12 {
            step(&mut app, 1);
            let actions = app.world().get::<BtActions>(walker).unwrap();
            for slot in actions.iter() {
                started.insert(slot.started_ms);
                succeeded_seen += usize::from(slot.state == ActionState::Succeeded);
            }
        }
        let reports = app.world().resource::<Seen>().walks.len();
        assert!(reports >= 3, "in_act {in_act}: {reports} reports");
        assert!(
            started.len() >= reports,
            "in_act {in_act}: each report starts a new walk: {started:?}, {reports} reports"
        );
        if in_act {
            assert!(succeeded_seen >= 3, "seen in BtActions after the update");
        }
    }
}

/// A misspelt tree path (`trees/gaurd.bt.ron`) gets the tree file near it
/// in its folder, on the agents now and later; a path near none gets no
/// guess. The folder is listed once per failed file, however many agents
/// are given it later (a crowd spawned with the misspelt path listed it
/// once per agent, blocking the tick).
#[test]
fn a_misspelt_tree_path_gets_the_file_it_is_near() {
    use bevy::asset::io::memory::{Dir, MemoryAssetReader};
    use bevy::asset::io::{
        AssetReader, AssetReaderError, AssetSourceBuilder, AssetSourceId, PathStream, Reader,
    };
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use wyrd_test_support::{step, wait_loaded};

    /// The memory source, counting its folder listings.
    struct Counting {
        inner: MemoryAssetReader,
        listings: Arc<AtomicUsize>,
    }
    impl AssetReader for Counting {
        async fn read<'a>(&'a self, path: &'a Path) -> Result<impl Reader + 'a, AssetReaderError> {
            self.inner.read(path).await
        }
        async fn read_meta<'a>(
            &'a self,
            path: &'a Path,
        ) -> Result<impl Reader + 'a, AssetReaderError> {
            self.inner.read_meta(path).await
        }
        async fn read_directory<'a>(
            &'a self,
            path: &'a Path,
        ) -> Result<Box<PathStream>, AssetReaderError> {
            self.listings.fetch_add(1, Ordering::SeqCst);
            self.inner.read_directory(path).await
        }
        async fn is_directory<'a>(&'a self, path: &'a Path) -> Result<bool, AssetReaderError> {
            self.inner.is_directory(path).await
        }
    }

    let dir = Dir::new(Default::default());
    dir.insert_asset_text(Path::new("trees/guard.bt.ron"), TREE);
    dir.insert_asset_text(Path::new("trees/patrol.bt.ron"), TREE);
    dir.insert_asset_text(Path::new("trees/notes.txt"), "not a tree");
    let listings = Arc::new(AtomicUsize::new(0));
    let mut app = App::new();
    let counted = listings.clone();
    app.register_asset_source(
        AssetSourceId::Default,
        AssetSourceBuilder::new(move || {
            Box::new(Counting {
                inner: MemoryAssetReader { root: dir.clone() },
                listings: counted.clone(),
            })
        }),
    );
    let step_time = Duration::from_secs_f64(1.0 / 30.0);
    app.add_plugins((MinimalPlugins, AssetPlugin::default(), BtPlugin::default()))
        .insert_resource(Time::<Fixed>::from_duration(step_time))
        .insert_resource(TimeUpdateStrategy::ManualDuration(step_time));
    let problems_of = |app: &mut App, path: &str| {
        let handle: Handle<BtAsset> = app.world().resource::<AssetServer>().load(path.to_owned());
        let first = app
            .world_mut()
            .spawn((BehaviorTree::new(handle.clone()), Blackboard::default()))
            .id();
        assert!(wait_loaded(app, &handle).is_err());
        step(app, 2);
        let later: Vec<Entity> = (0..20)
            .map(|_| {
                app.world_mut()
                    .spawn((BehaviorTree::new(handle.clone()), Blackboard::default()))
                    .id()
            })
            .collect();
        step(app, 2);
        let text = |e: Entity| app.world().get::<BtAgent>(e).unwrap().problems()[0].to_string();
        let first_text = text(first);
        for e in later {
            assert_eq!(text(e), first_text, "now and later alike");
        }
        first_text
    };
    let text = problems_of(&mut app, "trees/gaurd.bt.ron");
    assert!(
        text.ends_with("; did you mean \"trees/guard.bt.ron\"?"),
        "{text}"
    );
    assert_eq!(
        listings.load(Ordering::SeqCst),
        1,
        "one listing for 21 agents"
    );
    let text = problems_of(&mut app, "trees/dance.bt.ron");
    assert!(!text.contains("did you mean"), "{text}");
    assert_eq!(listings.load(Ordering::SeqCst), 2);
}

/// A tree file that does not compile: without a `LogPlugin` (a headless
/// game, a test) the agents that use it say why they never tick, in
/// `BtAgent::problems`, with the file, line and column (a new user's
/// village, issue 29: a typo left 2,000 villagers idle and `problems`
/// empty). An agent given the failed tree later gets it too.
#[test]
fn agents_of_a_tree_that_failed_to_load_say_why() {
    use wyrd_test_support::{MemoryAssets, TestApp, step, wait_loaded};
    let broken = r#"(
    blackboard: {"hunger": 0.5, "thirst": 0.1},
    root: Sequence(name: "root", children: [
        Condition(name: "hungry", check: Bb("hungr", Gt, 0.7)),
        Condition(name: "thirsty", check: Bb("thirts", Gt, 0.7)),
    ]),
)"#;
    let files = MemoryAssets::new().with("broken.bt.ron", broken);
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .build();
    let handle = load(&mut app, "broken.bt.ron");
    let first = app
        .world_mut()
        .spawn((BehaviorTree::new(handle.clone()), Blackboard::default()))
        .id();
    let err = wait_loaded(&mut app, &handle).unwrap_err();
    step(&mut app, 2);
    let later = app
        .world_mut()
        .spawn((BehaviorTree::new(handle), Blackboard::default()))
        .id();
    step(&mut app, 2);
    for e in [first, later] {
        let agent = app.world().get::<BtAgent>(e).unwrap();
        assert_eq!(agent.state().ticks(), 0);
        let problems: Vec<String> = agent.problems().iter().map(ToString::to_string).collect();
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(
            matches!(agent.problems()[0], AgentProblem::TreeNotLoaded { .. }),
            "{problems:?}"
        );
        let text = &problems[0];
        assert!(
            text.starts_with("broken.bt.ron: the tree did not load"),
            "{text}"
        );
        assert!(
            text.contains("hungr") && text.contains("4:"),
            "{text} (loader: {err})"
        );
        // Every error, with its hint, as the log and `wyrd check` say (a
        // stranger's test saw the first only, without the hint).
        assert!(
            text.contains("broken.bt.ron:4:") && text.contains("did you mean \"hunger\"?"),
            "{text}"
        );
        assert!(
            text.contains("broken.bt.ron:5:") && text.contains("did you mean \"thirst\"?"),
            "{text}"
        );
    }
    assert!(
        err.contains("did you mean \"thirst\"?"),
        "the load's error: {err}"
    );
    // Fixed and reloaded: the agents tick, the problem is gone.
    files.insert(
        "broken.bt.ron",
        &broken
            .replace("hungr", "hunger")
            .replace("thirts", "thirst"),
    );
    app.world()
        .resource::<AssetServer>()
        .reload("broken.bt.ron");
    wyrd_test_support::run_until(&mut app, "the fixed tree", 1_000, |w| {
        [first, later]
            .iter()
            .all(|&e| w.get::<BtAgent>(e).unwrap().state().ticks() > 0)
    });
    for e in [first, later] {
        let problems = app.world().get::<BtAgent>(e).unwrap().problems();
        assert!(problems.is_empty(), "{problems:?}");
    }
    // Broken again by a reload: the agents go on with the version they
    // have, and nothing says they do not tick.
    let ticks = app.world().get::<BtAgent>(first).unwrap().state().ticks();
    files.insert("broken.bt.ron", broken);
    app.world()
        .resource::<AssetServer>()
        .reload("broken.bt.ron");
    wyrd_test_support::run_until(&mut app, "the failed reload", 1_000, |w| {
        matches!(
            w.resource::<AssetServer>()
                .get_load_state(w.get::<BehaviorTree>(first).unwrap().handle.id()),
            Some(bevy::asset::LoadState::Failed(_))
        )
    });
    step(&mut app, 3);
    for e in [first, later] {
        let agent = app.world().get::<BtAgent>(e).unwrap();
        assert!(agent.problems().is_empty(), "{:?}", agent.problems());
    }
    let now = app.world().get::<BtAgent>(first).unwrap().state().ticks();
    assert!(now > ticks, "the old version still ticks");
}

/// An agent a system despawned earlier in `Act` is still in the lists of
/// the tick; a later system that asked for its blackboard panicked ("a
/// visited agent has a Blackboard"). It gets a blank one now, whose
/// writes go nowhere.
#[test]
fn an_agent_despawned_earlier_in_act_does_not_crash_a_later_visit() {
    fn despawn(mut walks: Running<Walk>, mut commands: Commands) {
        walks.for_each(|w| commands.entity(w.entity()).despawn());
    }
    fn touch(mut walks: Running<Walk>, mut seen: ResMut<Seen>) {
        walks.for_each(|mut w| {
            let walking = w.blackboard().get("walk");
            seen.walks
                .push((w.entity(), w.params().metres, walking.is_some()));
        });
    }
    let dir = dir_with(&[("d.bt.ron", DISPATCH_TREE)]);
    let mut app = app(dir.path());
    app.add_bt_action::<Walk>()
        .add_bt_action::<Follow>()
        .init_resource::<Seen>()
        .add_systems(FixedUpdate, (despawn, touch).chain().in_set(BtSystems::Act));
    let h = load(&mut app, "d.bt.ron");
    let walker = app
        .world_mut()
        .spawn((BehaviorTree::new(h), Blackboard::new().with("walk", true)))
        .id();
    run_until(&mut app, "the walk to be visited", |w| {
        !w.resource::<Seen>().walks.is_empty()
    });
    let seen = &app.world().resource::<Seen>().walks;
    assert_eq!(seen[0], (walker, 3.0, false), "a blank blackboard");
    assert!(app.world().get_entity(walker).is_err());
    step(&mut app, 2);
}

/// Agent time in ms wraps after 2^32 ms (49.7 days, which saves carry
/// across sessions); the tree's timers wrap with it, but
/// `RunningAction::elapsed_ms` saturated and stuck at 0 past the wrap, so
/// timed actions never finished.
#[test]
fn elapsed_ms_goes_on_across_the_wrap_of_agent_time() {
    #[derive(Resource, Default)]
    struct Elapsed(Vec<u32>);
    fn watch(mut walks: Running<Walk>, mut seen: ResMut<Elapsed>) {
        walks.for_each(|w| seen.0.push(w.elapsed_ms()));
    }
    let dir = dir_with(&[("d.bt.ron", DISPATCH_TREE)]);
    let mut app = app(dir.path());
    app.add_bt_action::<Walk>()
        .add_bt_action::<Follow>()
        .init_resource::<Elapsed>()
        .add_systems(FixedUpdate, watch.in_set(BtSystems::Act));
    let (h, _) = loaded(&mut app, "d.bt.ron");
    let first = app
        .world_mut()
        .spawn((
            BehaviorTree::new(h.clone()),
            Blackboard::new().with("walk", true),
        ))
        .id();
    step(&mut app, 2);
    let mut saved = saved_state(&app, first);
    app.world_mut().despawn(first);
    // The walk started 40 ms before agent time wraps, 10 ms ago.
    let now_ms = u32::MAX - 30;
    saved.now_ms = now_ms;
    saved.clock_us = u64::from(now_ms) * 1000;
    for a in &mut saved.actions {
        a.started_ms = u32::MAX - 40;
    }
    app.world_mut()
        .spawn((BehaviorTree::new(h), wyrd_bt::RestoreTree(saved)));
    app.world_mut().resource_mut::<Elapsed>().0.clear();
    step(&mut app, 4);
    let seen = &app.world().resource::<Elapsed>().0;
    assert!(seen.len() >= 3, "{seen:?}");
    assert!(seen.windows(2).all(|p| p[1] > p[0]), "{seen:?}");
    assert!(*seen.last().unwrap() > 40, "past the wrap: {seen:?}");
}

/// A recording's room is taken when it starts: asking for 4 billion ticks
/// (as a remote tool did) took a terabyte and the game died. It keeps at
/// most `MAX_RECORDED_TICKS`.
#[test]
fn a_huge_recording_is_capped_not_allocated() {
    let dir = dir_with(&[("a.bt.ron", TREE)]);
    let mut app = app(dir.path());
    let (h, _) = loaded(&mut app, "a.bt.ron");
    let e = app
        .world_mut()
        .spawn((BehaviorTree::new(h), Blackboard::default()))
        .id();
    step(&mut app, 1);
    app.world_mut()
        .get_mut::<BtAgent>(e)
        .unwrap()
        .record(usize::MAX);
    step(&mut app, 3);
    let agent = app.world().get::<BtAgent>(e).unwrap();
    let recorder = agent.recorder().expect("recording");
    assert_eq!(recorder.capacity(), wyrd_bt::MAX_RECORDED_TICKS);
}

bt_action! {
    /// Fields in another order than the file's (which is alphabetical
    /// once read).
    pub struct Swap {
        /// Declared first.
        pub z: i64,
        /// Declared second.
        pub a: f32,
    }
}

/// An action registered by name only (`register_bt_action`), read as a
/// type with `Running`: its parameters are found by name. A stranger's
/// game found them read by position from a leaf whose parameters were in
/// the file's order: `{"z": 1, "a": 2.5}` read as `Swap { z: 2, a: 1.0 }`,
/// with nothing reported.
#[test]
fn a_type_reads_an_action_registered_by_name_by_its_names() {
    const SWAP: &str =
        r#"(root: Action(name: "swap", action: "Swap", params: {"z": 1, "a": 2.5}))"#;
    let dir = dir_with(&[("s.bt.ron", SWAP)]);
    let mut app = app(dir.path());
    #[derive(Resource, Default)]
    struct Read(Vec<Swap>);
    app.register_bt_action("Swap")
        .init_resource::<Read>()
        .add_systems(
            FixedUpdate,
            (|mut swaps: Running<Swap>, mut read: ResMut<Read>| {
                swaps.for_each(|s| read.0.push(*s.params()));
            })
            .in_set(BtSystems::Act),
        );
    let h = load(&mut app, "s.bt.ron");
    spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    step(&mut app, 2);
    let read = &app.world().resource::<Read>().0;
    assert!(!read.is_empty(), "visited");
    assert!(read.iter().all(|s| *s == Swap { z: 1, a: 2.5 }), "{read:?}");
}

bt_action! {
    /// Runs until the tree stops it.
    pub struct Long {}
    /// Another action, of another tree.
    pub struct Other {}
}

/// A tree running `Long` until it is stopped, and one running `Other`.
const LONG: &str = r#"(root: Action(name: "long", action: "Long"))"#;
const OTHER: &str = r#"(root: Action(name: "other", action: "Other"))"#;

/// What the action systems of [`a_running_action_is_told_to_stop_when_its_tree_restarts_or_changes`] saw.
#[derive(Resource, Default, Debug)]
struct Told {
    started: Vec<&'static str>,
    aborted: Vec<(&'static str, u16)>,
    /// Visits of running `Long`s.
    visits: usize,
}

fn long_and_other(mut runs: ActionRuns, mut told: ResMut<Told>) {
    runs.for_each::<Long>(|a| {
        told.visits += 1;
        if a.is_new() {
            told.started.push("Long");
        }
    });
    runs.for_each::<Other>(|a| {
        if a.is_new() {
            told.started.push("Other");
        }
    });
    runs.for_each_aborted::<Long>(|_, slot| told.aborted.push(("Long", slot.node)));
    runs.for_each_aborted::<Other>(|_, slot| told.aborted.push(("Other", slot.node)));
}

/// A running action is told to stop (`for_each_aborted`, once) when its
/// agent's tree restarts or the agent is bound to another tree, as when a
/// walk stops it: the game undoes what the action started. A stranger's
/// game found neither told: the slots were dropped before the tick that
/// would have listed them, so a game's clean-up never ran, and setting up
/// the same action again ran twice.
#[test]
fn a_running_action_is_told_to_stop_when_its_tree_restarts_or_changes() {
    let dir = dir_with(&[("long.bt.ron", LONG), ("other.bt.ron", OTHER)]);
    let mut app = app_in_act(dir.path());
    let long = load(&mut app, "long.bt.ron");
    let (other, _) = loaded(&mut app, "other.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(long), Blackboard::new());
    step(&mut app, 2);
    let told = |app: &mut App| std::mem::take(&mut *app.world_mut().resource_mut::<Told>());
    let seen = told(&mut app);
    assert_eq!(seen.started, ["Long"]);
    assert!(seen.aborted.is_empty(), "{seen:?}");
    // A restart: the running Long is aborted, and a new Long starts.
    app.world_mut().get_mut::<BtAgent>(e).unwrap().restart();
    step(&mut app, 1);
    let seen = told(&mut app);
    assert_eq!(seen.aborted.len(), 1, "{seen:?}");
    assert_eq!(seen.aborted[0].0, "Long");
    assert_eq!(seen.started, ["Long"], "started afresh");
    step(&mut app, 2);
    assert!(told(&mut app).aborted.is_empty(), "told once");
    // Another tree: Long is aborted (its leaf in the old tree), Other starts.
    app.world_mut().get_mut::<BehaviorTree>(e).unwrap().handle = other;
    step(&mut app, 1);
    let seen = told(&mut app);
    assert_eq!(seen.aborted, [("Long", u16::MAX)], "{seen:?}");
    assert_eq!(seen.started, ["Other"]);
    step(&mut app, 2);
    let seen = told(&mut app);
    assert!(
        seen.aborted.is_empty() && seen.started.is_empty(),
        "{seen:?}"
    );
    let actions = app.world().get::<BtActions>(e).unwrap();
    assert_eq!(actions.iter().count(), 1, "the old slot is gone");
}

/// A `Running` system outside `BtSystems::Act` that runs twice between
/// two ticks (in `Update`, frames twice as fast as the fixed steps) sees
/// an action started twice: said once, with where the system belongs. A
/// stranger's game found `is_new()` true twice for one start, silently.
#[test]
fn a_running_system_faster_than_the_trees_is_told_where_it_belongs() {
    let dir = dir_with(&[("long.bt.ron", LONG)]);
    let mut app = app(dir.path());
    // Two frames per fixed step.
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 60.0,
    )))
    .add_bt_action::<Long>()
    .init_resource::<Told>()
    .add_systems(Update, |mut long: Running<Long>, mut told: ResMut<Told>| {
        long.for_each(|a| {
            if a.is_new() {
                told.started.push("Long");
            }
        });
    });
    let h = load(&mut app, "long.bt.ron");
    spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    step(&mut app, 6);
    assert_eq!(
        app.world().resource::<RunningActions>().out_of_pace(),
        ["Long"]
    );
    assert_eq!(
        app.world().resource::<Told>().started,
        ["Long"],
        "seen new once, not in each frame of its tick"
    );
    // The same system in `Act` is in step.
    let mut app = app_in_act(dir.path());
    let h = load(&mut app, "long.bt.ron");
    spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    step(&mut app, 6);
    assert!(
        app.world()
            .resource::<RunningActions>()
            .out_of_pace()
            .is_empty()
    );
    assert_eq!(app.world().resource::<Told>().started, ["Long"], "new once");
}

fn app_in_act(dir: &Path) -> App {
    let mut app = app(dir);
    app.add_bt_action::<Long>()
        .add_bt_action::<Other>()
        .init_resource::<Told>()
        .add_systems(FixedUpdate, long_and_other.in_set(BtSystems::Act));
    app
}

/// An action whose input reads an unset key does not start: its leaf fails
/// at once, so a higher priority waiting on that key does not take over
/// and abort what runs below it. A stranger's guard, restored with its
/// `alarmed` flag set but its target gone, aborted and restarted its patrol
/// every other tick (the chase took over, then failed when the game read
/// its parameter). As the PrioritizedList rule: a relevant child that
/// fails at once does not interrupt the running one.
#[test]
fn an_action_with_an_unset_input_fails_without_taking_over() {
    const GUARD: &str = r#"(
    blackboard: {"alarmed": true, "whom": Entity},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "chase", children: [Condition(check: Is("alarmed")), Action(action: "Follow", params: {"whom": "{whom}"})]),
        Action(name: "patrol", action: "Long"),
    ]),
)"#;
    let dir = dir_with(&[("guard.bt.ron", GUARD)]);
    let mut app = app_in_act(dir.path());
    app.add_bt_action::<Follow>();
    let h = load(&mut app, "guard.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(h), Blackboard::new());
    step(&mut app, 30);
    let told = app.world().resource::<Told>();
    assert!(told.aborted.is_empty(), "the patrol runs on: {told:?}");
    assert_eq!(told.started, ["Long"], "{told:?}");
    let problems = app.world().get::<BtAgent>(e).unwrap().problems();
    assert!(
        problems
            .iter()
            .any(|p| matches!(p, AgentProblem::UnsetKey { key, .. } if key == "whom")),
        "{problems:?}"
    );
    // Once the game sets the key, the chase takes over.
    let leader = app.world_mut().spawn_empty().id();
    app.world_mut()
        .get_mut::<Blackboard>(e)
        .unwrap()
        .set("whom", leader)
        .unwrap();
    step(&mut app, 2);
    let told = app.world().resource::<Told>();
    assert_eq!(told.aborted.len(), 1, "the patrol stops: {told:?}");
}

/// Each abort is told once, whatever comes between it and the game: a
/// tree swapped and restarted in one frame, a tree that runs once and
/// finished aborting what ran, a tree slower than the schedule, and a
/// `Decide` the game gates off (the review of the abort changes).
#[test]
fn each_abort_and_start_is_told_once() {
    let dir = dir_with(&[
        ("long.bt.ron", LONG),
        ("other.bt.ron", OTHER),
        (
            "stop.bt.ron",
            r#"(blackboard: {"stop": false}, root: PrioritizedList(name: "root", children: [
                GuardSequence(name: "done", children: [Condition(check: Is("stop")), Succeed()]),
                Action(name: "long", action: "Long"),
            ]))"#,
        ),
    ]);
    let told = |app: &mut App| std::mem::take(&mut *app.world_mut().resource_mut::<Told>());
    // Swapped and restarted in one frame: the old tree's Long, once.
    let mut app = app_in_act(dir.path());
    let long = load(&mut app, "long.bt.ron");
    let (other, _) = loaded(&mut app, "other.bt.ron");
    let e = spawn(&mut app, BehaviorTree::new(long), Blackboard::new());
    step(&mut app, 2);
    told(&mut app);
    app.world_mut().get_mut::<BehaviorTree>(e).unwrap().handle = other;
    app.world_mut().get_mut::<BtAgent>(e).unwrap().restart();
    step(&mut app, 3);
    let seen = told(&mut app);
    assert_eq!(seen.aborted, [("Long", u16::MAX)], "{seen:?}");
    assert_eq!(seen.started, ["Other"]);
    // A tree that runs once, finished by a walk that aborted Long: told
    // once, not in every update after.
    let stop = load(&mut app, "stop.bt.ron");
    let e = spawn(
        &mut app,
        BehaviorTree {
            mode: RunMode::Once,
            ..BehaviorTree::new(stop)
        },
        Blackboard::new(),
    );
    step(&mut app, 2);
    told(&mut app);
    app.world_mut()
        .get_mut::<Blackboard>(e)
        .unwrap()
        .set("stop", true)
        .unwrap();
    step(&mut app, 6);
    assert!(app.world().get::<BtAgent>(e).unwrap().is_finished());
    let seen = told(&mut app);
    assert_eq!(seen.aborted.len(), 1, "{seen:?}");
    // A tree at 5 Hz in a 30 Hz schedule: its start and its abort once.
    let long = load(&mut app, "long.bt.ron");
    let e = spawn(
        &mut app,
        BehaviorTree::new(long).with_rate(5.0),
        Blackboard::new(),
    );
    step(&mut app, 12);
    let seen = told(&mut app);
    assert_eq!(seen.started, ["Long"], "new once: {seen:?}");
    app.world_mut().get_mut::<BtAgent>(e).unwrap().restart();
    step(&mut app, 12);
    let seen = told(&mut app);
    assert_eq!(seen.aborted.len(), 1, "{seen:?}");
    assert_eq!(seen.started, ["Long"], "the new start once: {seen:?}");
    // `Decide` gated off by the game: `Act` sees what runs on, no start
    // again.
    #[derive(Resource)]
    struct Deciding(bool);
    app.insert_resource(Deciding(true)).configure_sets(
        FixedUpdate,
        BtSystems::Decide.run_if(|d: Res<Deciding>| d.0),
    );
    let long = load(&mut app, "long.bt.ron");
    spawn(&mut app, BehaviorTree::new(long), Blackboard::new());
    step(&mut app, 1);
    told(&mut app);
    app.world_mut().resource_mut::<Deciding>().0 = false;
    step(&mut app, 4);
    let seen = told(&mut app);
    assert!(
        seen.started.is_empty() && seen.aborted.is_empty(),
        "{seen:?}"
    );
    assert!(seen.visits >= 4, "what runs is visited on: {seen:?}");
    assert!(
        app.world()
            .resource::<RunningActions>()
            .out_of_pace()
            .is_empty()
    );
}

/// A stranger's game (issue 24, a recording becomes a regression test): a
/// tree's own blackboard writes (`AddBlackboard`) were recorded as inputs
/// the game gave, at the next tick. The emitted script then set the key
/// the game never set, and a replay of an edited tree (one adding 2, not
/// one) had the old values forced back before each tick: "replayed exactly"
/// where the game diverges. A recording keeps what the game changed
/// between ticks; the tree's writes are the tree's to redo.
#[test]
fn a_trees_own_writes_are_not_recorded_as_the_games_inputs() {
    use wyrd_test_support::{MemoryAssets, TestApp, step};
    let tree = |by: i64| {
        format!(
            r#"(
        blackboard: {{"n": 0}},
        root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "proud", children: [
                Condition(check: Bb("n", Ge, 12)),
                Action(action: "Celebrate"),
            ]),
            Sequence(name: "work", children: [
                AddBlackboard(key: "n", by: {by}),
                Action(action: "Work"),
            ]),
        ]),
    )"#
        )
    };
    let files = MemoryAssets::new().with("r.bt.ron", &tree(1));
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            app.register_bt_action("Work");
            app.register_bt_action("Celebrate");
            // The game finishes each action in its first `Act`; it never
            // writes the blackboard.
            app.add_systems(
                FixedUpdate,
                (|mut q: Query<&mut BtActions>| {
                    for mut actions in &mut q {
                        for a in actions.iter_mut().filter(|a| a.is_running()) {
                            a.succeed();
                        }
                    }
                })
                .in_set(BtSystems::Act),
            );
        })
        .build();
    let (handle, program) = loaded(&mut app, "r.bt.ron");
    let e = app.world_mut().spawn(BehaviorTree::new(handle)).id();
    app.world_mut().get_mut::<BtAgent>(e).unwrap().record(100);
    step(&mut app, 20);
    let rec = app.world().get::<BtAgent>(e).unwrap().recording().unwrap();
    assert_eq!(rec.start.state.ticks, 0, "recorded from the first tick");
    let sets: Vec<_> = rec
        .ticks
        .iter()
        .filter(|t| !t.set.is_empty())
        .map(|t| (t.tick, t.set.clone()))
        .collect();
    assert_eq!(sets, vec![], "the game set nothing");
    assert_eq!(
        wyrd_bt::sim::replay(&program, &rec, false)
            .unwrap()
            .divergence,
        None
    );
    let script = wyrd_bt::sim::recording_script(&program, &rec, false).unwrap();
    assert!(!script.contains("set:"), "{script}");
    // The edited tree counts twice as fast: it celebrates 6 ticks sooner.
    let edited =
        wyrd_bt::compile_str("r.bt.ron", &tree(2), &wyrd_bt::Vocabulary::permissive()).unwrap();
    let report = wyrd_bt::sim::replay(&edited, &rec, true).unwrap();
    assert!(report.changed_tree);
    let divergence = report
        .divergence
        .expect("the edit changes what the tree does");
    assert!(
        divergence.tick < 20,
        "diverges where the edit shows: {divergence}"
    );
}

/// A stranger's game (issue 24, one path syntax): `wyrd sim --replay
/// --stats` named a stimulus behavior's nodes by their inner names
/// (`~panic/Flee`), where traces and scripts name them under the node the
/// stimulus was inserted at (`root/panic/Flee`).
#[test]
fn recording_stats_name_a_stimulus_where_it_was_inserted() {
    use wyrd_test_support::{MemoryAssets, TestApp, step};
    let tree = r#"(
        behaviors: [Sequence(name: "panic", children: [Action(action: "Flee")])],
        root: PrioritizedList(name: "root", children: [Action(name: "idle", action: "Wander")]),
    )"#;
    let files = MemoryAssets::new().with("r.bt.ron", tree);
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            app.register_bt_action("Flee");
            app.register_bt_action("Wander");
            app.add_systems(
                FixedUpdate,
                // By the agent's own ticks: the updates before it spawned
                // depend on how fast the tree loads.
                (|mut q: Query<(&mut BtActions, &mut BtAgent)>| {
                    for (mut actions, mut agent) in &mut q {
                        let n = agent.state().ticks();
                        for a in actions.iter_mut().filter(|a| a.is_running()) {
                            if n.is_multiple_of(3) {
                                a.succeed();
                            }
                        }
                        if n == 5 {
                            agent.insert_stimulus("root", "panic", 0, 0.5).unwrap();
                        }
                    }
                })
                .in_set(BtSystems::Act),
            );
        })
        .build();
    let (handle, _) = loaded(&mut app, "r.bt.ron");
    let e = app.world_mut().spawn(BehaviorTree::new(handle)).id();
    app.world_mut().get_mut::<BtAgent>(e).unwrap().record(100);
    step(&mut app, 40);
    let rec = app.world().get::<BtAgent>(e).unwrap().recording().unwrap();
    let paths: Vec<String> = wyrd_bt::sim::recording_stats(&rec)
        .into_iter()
        .map(|s| s.path)
        .collect();
    assert!(paths.iter().any(|p| p == "root/panic/Flee"), "{paths:?}");
    assert!(!paths.iter().any(|p| p.contains('~')), "{paths:?}");
}
