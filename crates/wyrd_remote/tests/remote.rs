//! The `wyrd.*` methods (issue 28), called as bevy_remote calls them (the
//! registered system run with the request's params) and over HTTP, and
//! checked against the game's own components and resources.

use bevy::prelude::*;
use bevy_remote::{RemoteMethodSystemId, RemoteMethods};
use serde_json::{Value, json};
use wyrd_bt::BtSettings;
use wyrd_bt::prelude::*;
use wyrd_remote::WyrdRemotePlugin;
use wyrd_state::prelude::*;

const TREE: &str = r#"(
    blackboard: {"target": false, "ammo": 3},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "fight", children: [Condition(check: Is("target")), Action(action: "Shoot")]),
        Action(name: "patrol", action: "Patrol"),
    ]),
)"#;

struct Game {
    app: App,
    guard: Entity,
    other: Entity,
    _dir: tempfile::TempDir,
}

/// Two agents on one tree (the guard sees its target, the other patrols)
/// and the Drone quest's flags, with the remote methods (`http` as given).
fn game(remote: WyrdRemotePlugin) -> Game {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guard.bt.ron"), TREE).unwrap();
    let flags = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/drone_quest/world_state.flags.ron"
    );
    std::fs::copy(flags, dir.path().join("world.flags.ron")).unwrap();
    let mut app = wyrd_test_support::TestApp::in_folder(dir.path(), 30.0)
        .plugins((
            BtPlugin::default(),
            BtBreakpointsPlugin::default(),
            WorldStatePlugin::with_files(["world.flags.ron"]),
            remote,
        ))
        .with(|app| {
            app.register_bt_action("Shoot").register_bt_action("Patrol");
        })
        .build();
    wyrd_test_support::collect::<CounterChanged>(&mut app);
    let tree: Handle<BtAsset> = app.world().resource::<AssetServer>().load("guard.bt.ron");
    let mut spawn = |name: &str, target: bool| {
        let mut bb = Blackboard::default();
        bb.set("target", target).unwrap();
        app.world_mut()
            .spawn((
                Name::new(name.to_owned()),
                BehaviorTree::new(tree.clone()),
                bb,
            ))
            .id()
    };
    let (guard, other) = (spawn("guard", true), spawn("other", false));
    wyrd_test_support::run_until(
        &mut app,
        "both agents ticking, the flags merged",
        wyrd_test_support::LOAD_UPDATES,
        |w| {
            [guard, other]
                .iter()
                .all(|e| w.get::<BtAgent>(*e).is_some_and(|a| a.state().ticks() > 1))
                && w.resource::<WorldStateFiles>().all_merged()
        },
    );
    Game {
        app,
        guard,
        other,
        _dir: dir,
    }
}

fn methods_only() -> Game {
    game(WyrdRemotePlugin {
        http: false,
        ..Default::default()
    })
}

/// Runs a method the way bevy_remote does for a request.
fn call(app: &mut App, method: &str, params: Value) -> Result<Value, String> {
    let id = match app.world().resource::<RemoteMethods>().get(method) {
        Some(RemoteMethodSystemId::Instant(id)) => *id,
        _ => panic!("{method} is not registered"),
    };
    app.world_mut()
        .run_system_with(id, Some(params))
        .unwrap()
        .map_err(|e| e.message)
}

/// The paths of an agent's running leaves, from its own state.
fn running_leaves(world: &World, e: Entity) -> Vec<String> {
    let agent = world.get::<BtAgent>(e).unwrap();
    let program = agent.program().unwrap();
    program
        .nodes()
        .filter(|n| {
            n.child_count() == 0 && agent.state().node(n.index()).status() == Status::Running
        })
        .map(|n| n.path().to_owned())
        .collect()
}

#[test]
fn agents_and_trees_are_the_agents_own_state() {
    let Game {
        mut app,
        guard,
        other,
        ..
    } = methods_only();
    let all = call(&mut app, "wyrd.agents", json!({})).unwrap();
    let agents = all["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 2, "{all}");
    for (e, name) in [(guard, "guard"), (other, "other")] {
        let row = agents.iter().find(|a| a["name"] == name).unwrap();
        assert_eq!(row["entity"], json!(e.to_bits()));
        assert_eq!(row["tree"], "guard.bt.ron");
        let running: Vec<String> = serde_json::from_value(row["running"].clone()).unwrap();
        assert_eq!(running, running_leaves(app.world(), e), "{name}");
    }
    assert_eq!(
        running_leaves(app.world(), guard),
        ["root/fight/Shoot"],
        "the guard shoots"
    );
    // Filtered by a running node's name or path, and by tree.
    let shooting = call(&mut app, "wyrd.agents", json!({"running": "Shoot"})).unwrap();
    assert_eq!(shooting["agents"].as_array().unwrap().len(), 1);
    assert_eq!(shooting["agents"][0]["name"], "guard");
    let patrolling = call(&mut app, "wyrd.agents", json!({"running": "root/patrol"})).unwrap();
    assert_eq!(patrolling["agents"][0]["name"], "other");
    // A tree no agent runs and none loaded is a typo, not an empty crowd
    // (it answered `[]`).
    let err = call(&mut app, "wyrd.agents", json!({"tree": "gaurd.bt.ron"})).unwrap_err();
    assert_eq!(
        err,
        "no tree \"gaurd.bt.ron\" is loaded; did you mean \"guard.bt.ron\"? (loaded: guard.bt.ron)"
    );
    let err = call(&mut app, "wyrd.crowd", json!({"tree": "gaurd.bt.ron"})).unwrap_err();
    assert!(err.contains("did you mean \"guard.bt.ron\"?"), "{err}");
    let both = call(&mut app, "wyrd.agents", json!({"tree": "guard.bt.ron"})).unwrap();
    assert_eq!(both["agents"].as_array().unwrap().len(), 2);
    // A node no tree has is a typo, not an empty crowd (it answered `[]`).
    let err = call(&mut app, "wyrd.agents", json!({"running": "Shot"})).unwrap_err();
    assert_eq!(
        err,
        "\"running\": no node of the agents' trees is named \"Shot\"; did you mean \"Shoot\"?"
    );

    // One agent's tree: a row per node with the node's own status.
    let tree = call(&mut app, "wyrd.tree", json!({"name": "guard"})).unwrap();
    let agent = app.world().get::<BtAgent>(guard).unwrap();
    let program = agent.program().unwrap();
    let nodes = tree["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), program.main_len());
    for n in program.nodes() {
        let row = nodes.iter().find(|r| r["path"] == n.path()).unwrap();
        assert_eq!(
            row["status"],
            agent.state().node(n.index()).status().as_str(),
            "{}",
            n.path()
        );
    }
    assert_eq!(tree["blackboard"]["target"], json!(true));
    assert_eq!(tree["blackboard"]["ammo"], json!(3));
    assert_eq!(tree["tick"], json!(agent.state().ticks()));
    let by_entity = call(&mut app, "wyrd.tree", json!({"entity": guard.to_bits()})).unwrap();
    assert_eq!(by_entity["name"], "guard");
}

#[test]
fn crowd_counts_are_the_agents_in_each_node() {
    let mut g = methods_only();
    let crowd = call(&mut g.app, "wyrd.crowd", json!({"tree": "guard.bt.ron"})).unwrap();
    assert_eq!(crowd["agents"], 2);
    let count = |path: &str| {
        crowd["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["path"] == path)
            .unwrap()["running"]
            .clone()
    };
    assert_eq!(count("root"), 2);
    assert_eq!(count("root/fight"), 1);
    assert_eq!(count("root/fight/Shoot"), 1);
    assert_eq!(count("root/patrol"), 1);
    let err = call(&mut g.app, "wyrd.crowd", json!({"tree": "nope.bt.ron"})).unwrap_err();
    assert!(err.contains("no tree \"nope.bt.ron\" is loaded"), "{err}");
}

#[test]
fn pause_step_and_resume_drive_the_trees_tick() {
    let Game { mut app, guard, .. } = methods_only();
    let ticks = |app: &App| app.world().get::<BtAgent>(guard).unwrap().state().ticks();
    let paused = call(&mut app, "wyrd.pause", json!(null)).unwrap();
    assert_eq!(paused, json!({"paused": true, "steps": 0}));
    assert!(app.world().resource::<BtSettings>().paused);
    let before = ticks(&app);
    wyrd_test_support::step(&mut app, 3);
    assert_eq!(ticks(&app), before, "paused");
    call(&mut app, "wyrd.step", json!({"ticks": 2})).unwrap();
    wyrd_test_support::step(&mut app, 3);
    assert_eq!(ticks(&app), before + 2, "two steps");
    call(&mut app, "wyrd.resume", json!({})).unwrap();
    wyrd_test_support::step(&mut app, 3);
    assert_eq!(ticks(&app), before + 5, "resumed");
}

#[test]
fn setting_a_counter_changes_the_world_state_and_sends_its_message() {
    let mut g = methods_only();
    let set = call(
        &mut g.app,
        "wyrd.world.set",
        json!({"name": "QST_DST_TOWER_5", "value": 4}),
    )
    .unwrap();
    assert_eq!(set["changed"], true);
    assert_eq!(
        g.app
            .world()
            .resource::<WorldState>()
            .counter("QST_DST_TOWER_5")
            .unwrap(),
        4
    );
    // The world state sends its messages in `Last`, where the collector
    // also reads, in either order: the second update sees them for sure.
    wyrd_test_support::step(&mut g.app, 2);
    let changes = wyrd_test_support::take_collected::<CounterChanged>(g.app.world_mut());
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!((changes[0].old, changes[0].new), (0, 4));
    assert_eq!(changes[0].source.to_string(), "remote");
    let world = call(&mut g.app, "wyrd.world", json!({})).unwrap();
    let counter = world["counters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "QST_DST_TOWER_5")
        .unwrap()
        .clone();
    assert_eq!(counter["value"], 4);
    // A flag takes a bool; bad names and values are errors that say so.
    let flag = call(
        &mut g.app,
        "wyrd.world.set",
        json!({"name": "NPC_DRONE_SPK_01", "value": true}),
    )
    .unwrap();
    assert_eq!(flag["changed"], true);
    let err = call(
        &mut g.app,
        "wyrd.world.set",
        json!({"name": "NOPE", "value": 1}),
    )
    .unwrap_err();
    assert!(err.contains("NOPE"), "{err}");
    let err = call(
        &mut g.app,
        "wyrd.world.set",
        json!({"name": "QST_DST_TOWER_5", "value": "four"}),
    )
    .unwrap_err();
    assert!(err.contains("neither a bool nor an integer"), "{err}");
}

#[test]
fn breakpoints_set_over_the_protocol_stop_the_trees() {
    let Game { mut app, other, .. } = methods_only();
    let set = call(
        &mut app,
        "wyrd.breakpoints.set",
        json!({"tree": "guard.bt.ron", "breakpoints": [{"node": "root/patrol", "on": "Aborted"}]}),
    )
    .unwrap();
    assert_eq!(set["count"], 1);
    wyrd_test_support::step(&mut app, 1);
    app.world_mut()
        .get_mut::<Blackboard>(other)
        .unwrap()
        .set("target", true)
        .unwrap();
    wyrd_test_support::step(&mut app, 1);
    assert!(app.world().resource::<BtSettings>().paused);
    let got = call(
        &mut app,
        "wyrd.breakpoints.get",
        json!({"tree": "guard.bt.ron"}),
    )
    .unwrap();
    assert_eq!(got["last_hit"]["entity"], json!(other.to_bits()));
    assert_eq!(got["last_hit"]["why"], "root/patrol was aborted");
    assert!(
        got["file"]
            .as_str()
            .unwrap()
            .contains(r#"(node: "root/patrol", on: Aborted)"#),
        "{got}"
    );
    call(
        &mut app,
        "wyrd.breakpoints.clear",
        json!({"tree": "guard.bt.ron"}),
    )
    .unwrap();
    assert!(app.world().resource::<BtBreakpoints>().is_empty());
    let err = call(
        &mut app,
        "wyrd.breakpoints.set",
        json!({"tree": "guard.bt.ron", "breakpoints": [{"nod": "root"}]}),
    )
    .unwrap_err();
    assert!(err.contains("unknown field `nod`"), "{err}");
}

/// Breakpoints the tree cannot have are refused with what is wrong, not
/// set silently (a stranger's misspelt node and action answered
/// `count: 1` and only warned in the game's log); a `when` in the file's
/// syntax is taken as a string.
#[test]
fn breakpoints_set_over_the_protocol_are_checked_against_the_tree() {
    let Game { mut app, .. } = methods_only();
    let err = call(
        &mut app,
        "wyrd.breakpoints.set",
        json!({"tree": "guard.bt.ron", "breakpoints": [
            {"node": "root/figth", "on": "Aborted"},
            {"action": "Shot"},
            {"when": {"Bb": ["ammo", "Gt", true]}},
        ]}),
    )
    .unwrap_err();
    assert!(
        err.contains("breakpoint 1") && err.contains("no node \"root/figth\""),
        "{err}"
    );
    assert!(
        err.contains("breakpoint 2") && err.contains("the action \"Shot\""),
        "{err}"
    );
    assert!(
        err.contains("breakpoint 3") && err.contains("compared with a bool"),
        "{err}"
    );
    assert!(
        app.world().resource::<BtBreakpoints>().is_empty(),
        "nothing set"
    );
    let err = call(
        &mut app,
        "wyrd.breakpoints.set",
        json!({"tree": "nope.bt.ron", "breakpoints": [{"action": "Shoot"}]}),
    )
    .unwrap_err();
    assert!(
        err.contains("no tree \"nope.bt.ron\" is loaded (loaded: guard.bt.ron)"),
        "{err}"
    );
    let set = call(
        &mut app,
        "wyrd.breakpoints.set",
        json!({"tree": "guard.bt.ron", "breakpoints": [
            {"when": "All([Is(\"target\"), Bb(\"ammo\", Lt, 2)])"},
        ]}),
    )
    .unwrap();
    assert_eq!(set["count"], 1);
    let got = call(
        &mut app,
        "wyrd.breakpoints.get",
        json!({"tree": "guard.bt.ron"}),
    )
    .unwrap();
    assert!(
        got["file"]
            .as_str()
            .unwrap()
            .contains(r#"when: All([Is("target"), Bb("ammo", Lt, 2)])"#),
        "{got}"
    );
    let err = call(
        &mut app,
        "wyrd.breakpoints.set",
        json!({"tree": "guard.bt.ron", "breakpoints": [{"when": "Is(tired"}]}),
    )
    .unwrap_err();
    assert!(err.starts_with("breakpoint 1: \"when\": 1:"), "{err}");
}

/// Counts that are not positive integers are errors (`-1` and `"x"` were
/// taken as 1); a step from running trees pauses them after it; stopping
/// a recording answers with what it held (stop, then fetch found nothing).
#[test]
fn bad_counts_are_refused_a_step_pauses_and_a_stopped_recording_is_kept() {
    let Game { mut app, guard, .. } = methods_only();
    for bad in [json!(-1), json!("x"), json!(0), json!(1.5)] {
        let err = call(&mut app, "wyrd.step", json!({ "ticks": bad })).unwrap_err();
        assert!(err.contains("is not a positive integer"), "{err}");
        let err = call(
            &mut app,
            "wyrd.record",
            json!({"name": "guard", "on": true, "ticks": bad}),
        )
        .unwrap_err();
        assert!(err.contains("is not a positive integer"), "{err}");
    }
    let err = call(
        &mut app,
        "wyrd.record",
        json!({"name": "guard", "on": "yes"}),
    )
    .unwrap_err();
    assert_eq!(err, "\"on\": \"yes\" is not true or false");
    let stepped = call(&mut app, "wyrd.step", json!({"ticks": 2})).unwrap();
    assert_eq!(stepped, json!({"paused": true, "steps": 2}));
    call(&mut app, "wyrd.resume", json!(null)).unwrap();
    call(
        &mut app,
        "wyrd.record",
        json!({"name": "guard", "on": true, "ticks": 50}),
    )
    .unwrap();
    wyrd_test_support::step(&mut app, 6);
    let held = app
        .world()
        .get::<BtAgent>(guard)
        .unwrap()
        .recording()
        .unwrap();
    let stopped = call(
        &mut app,
        "wyrd.record",
        json!({"name": "guard", "on": false}),
    )
    .unwrap();
    assert_eq!(stopped["recording"], false);
    assert_eq!(stopped["last"], serde_json::to_value(&held).unwrap());
    assert!(
        app.world()
            .get::<BtAgent>(guard)
            .unwrap()
            .recorder()
            .is_none()
    );
}

/// Stopping a recording of an agent a breakpoint watches keeps the
/// breakpoint's lead-up recording going (it was lost until the
/// breakpoints changed: a hit then had no ticks before it to show).
#[test]
fn stopping_a_recording_keeps_the_breakpoints_lead_up() {
    let Game { mut app, guard, .. } = methods_only();
    call(
        &mut app,
        "wyrd.breakpoints.set",
        json!({"tree": "guard.bt.ron", "breakpoints": [{"action": "Shoot", "on": "Aborted", "agent": "guard"}]}),
    )
    .unwrap();
    wyrd_test_support::step(&mut app, 3);
    let recording = |app: &App| {
        app.world()
            .get::<BtAgent>(guard)
            .unwrap()
            .recorder()
            .is_some()
    };
    assert!(recording(&app), "the lead-up records");
    call(
        &mut app,
        "wyrd.record",
        json!({"name": "guard", "on": true, "ticks": 20}),
    )
    .unwrap();
    wyrd_test_support::step(&mut app, 3);
    let stopped = call(
        &mut app,
        "wyrd.record",
        json!({"name": "guard", "on": false}),
    )
    .unwrap();
    assert!(stopped["last"].is_object(), "{stopped}");
    wyrd_test_support::step(&mut app, 3);
    assert!(recording(&app), "the lead-up records again");
    let rec = call(&mut app, "wyrd.recording", json!({"name": "guard"})).unwrap();
    assert!(!rec["ticks"].as_array().unwrap().is_empty(), "{rec}");
}

/// The game's own `BtBreakpointsPlugin`, added after the remote plugin
/// added one for it, sets its `record` instead of panicking ("plugin was
/// already added").
#[test]
fn the_breakpoints_plugin_may_come_after_the_remote_plugin() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        BtPlugin::default(),
        WyrdRemotePlugin {
            http: false,
            ..Default::default()
        },
    ));
    app.add_plugins(BtBreakpointsPlugin {
        record: 50,
        ..Default::default()
    });
    assert_eq!(app.world().resource::<BtBreakpoints>().record, 50);
}

#[test]
fn a_recording_is_started_and_fetched_over_the_protocol() {
    let Game { mut app, guard, .. } = methods_only();
    let err = call(&mut app, "wyrd.recording", json!({"name": "guard"})).unwrap_err();
    assert!(err.contains("is not recording"), "{err}");
    call(
        &mut app,
        "wyrd.record",
        json!({"name": "guard", "on": true, "ticks": 50}),
    )
    .unwrap();
    wyrd_test_support::step(&mut app, 6);
    let rec = call(
        &mut app,
        "wyrd.recording",
        json!({"entity": guard.to_bits()}),
    )
    .unwrap();
    let expected = app
        .world()
        .get::<BtAgent>(guard)
        .unwrap()
        .recording()
        .unwrap();
    assert_eq!(rec, serde_json::to_value(&expected).unwrap());
    assert!(rec["ticks"].as_array().unwrap().len() >= 5, "{rec}");
    let err = call(&mut app, "wyrd.tree", json!({})).unwrap_err();
    assert!(err.contains("name the agent"), "{err}");
    let err = call(&mut app, "wyrd.tree", json!({"name": "nobody"})).unwrap_err();
    assert!(err.contains("no agent is named \"nobody\""), "{err}");
}

/// Over HTTP, as a tool calls it: the server answers between frames, so
/// the app runs while a client thread asks.
#[test]
fn the_methods_answer_over_http() {
    let port = wyrd_test_support::free_port();
    let mut g = game(WyrdRemotePlugin {
        port,
        ..Default::default()
    });
    let client = std::thread::spawn(move || {
        let agents = wyrd_test_support::brp_call(port, "wyrd.agents", json!({}))?;
        let paused = wyrd_test_support::brp_call(port, "wyrd.pause", json!({}))?;
        let missing = wyrd_test_support::brp_call(port, "wyrd.tree", json!({"name": "x"}));
        Ok::<_, String>((agents, paused, missing))
    });
    let mut frames = 0;
    while !client.is_finished() {
        g.app.update();
        frames += 1;
        assert!(frames < 1_000_000, "no answer over HTTP");
        std::thread::yield_now();
    }
    let (agents, paused, missing) = client.join().unwrap().unwrap();
    assert_eq!(agents["agents"].as_array().unwrap().len(), 2, "{agents}");
    assert_eq!(paused["paused"], true);
    assert!(g.app.world().resource::<BtSettings>().paused);
    let err = missing.unwrap_err();
    assert!(
        err.contains("-32602") && err.contains("no agent is named"),
        "{err}"
    );
}

/// How often bevy_remote's schedule ran.
#[derive(Resource, Default)]
struct RemoteRuns(u32);

/// Puts a request into bevy_remote's mailbox, as its HTTP server does;
/// the answer comes on the returned channel.
fn send_request(
    app: &mut App,
    method: &str,
    params: Value,
) -> async_channel::Receiver<bevy_remote::BrpResult> {
    let (sender, answer) = async_channel::bounded(4);
    app.world()
        .resource::<bevy_remote::BrpSender>()
        .force_send(bevy_remote::BrpMessage {
            method: method.to_owned(),
            params: Some(params),
            sender,
        })
        .unwrap();
    answer
}

/// Issue 28: "the cost with nothing connected is zero". bevy_remote runs
/// its schedule after `Last` in every frame; with the plugin it runs only
/// in frames with a request waiting, and every frame while a watching
/// request (answered as the world changes) is open.
#[test]
fn the_remote_schedule_runs_only_when_a_request_waits_or_a_watch_is_open() {
    let mut g = methods_only();
    g.app
        .init_resource::<RemoteRuns>()
        .add_systems(bevy_remote::RemoteLast, |mut r: ResMut<RemoteRuns>| {
            r.0 += 1
        });
    wyrd_test_support::step(&mut g.app, 10);
    assert_eq!(g.app.world().resource::<RemoteRuns>().0, 0, "no client");

    let answer = send_request(&mut g.app, "wyrd.agents", json!({}));
    wyrd_test_support::step(&mut g.app, 1);
    let agents = answer.try_recv().expect("answered in that frame").unwrap();
    assert_eq!(agents["agents"].as_array().unwrap().len(), 2);
    wyrd_test_support::step(&mut g.app, 10);
    assert_eq!(
        g.app.world().resource::<RemoteRuns>().0,
        1,
        "one frame for one request"
    );

    let guard = g.guard.to_bits();
    let watch = send_request(
        &mut g.app,
        "world.get_components+watch",
        json!({"entity": guard, "components": ["bevy_ecs::name::Name"]}),
    );
    wyrd_test_support::step(&mut g.app, 10);
    assert_eq!(
        g.app.world().resource::<RemoteRuns>().0,
        11,
        "every frame while a watch is open"
    );
    assert!(!watch.is_closed(), "the watch is kept open");

    // The client goes: the watch is closed, and the schedule stops again
    // after the frame that clears it.
    drop(watch);
    wyrd_test_support::step(&mut g.app, 10);
    assert_eq!(
        g.app.world().resource::<RemoteRuns>().0,
        12,
        "one frame to clear the closed watch, then none"
    );
}

/// `wyrd.save` reports the save slot as the game's `SaveStatus` has it, and
/// `wyrd.save.now` writes the save at the next frame; without the save
/// plugin both say what is missing.
#[test]
fn the_save_is_reported_and_written_over_the_protocol() {
    let mut bare = methods_only();
    for method in ["wyrd.save", "wyrd.save.now"] {
        let err = call(&mut bare.app, method, json!({})).unwrap_err();
        assert!(err.contains("WorldStateSavePlugin"), "{method}: {err}");
    }

    let saves = tempfile::tempdir().unwrap();
    let mut g = game(WyrdRemotePlugin {
        http: false,
        ..Default::default()
    });
    g.app
        .add_plugins(wyrd_state::save::WorldStateSavePlugin::new(
            saves.path(),
            wyrd_save::SaveKey::new("remote test"),
        ));
    wyrd_test_support::step(&mut g.app, 3);
    let status = call(&mut g.app, "wyrd.save", json!({})).unwrap();
    let own = g.app.world().resource::<wyrd_save::SaveStatus>();
    assert_eq!(status["dir"], own.dir.display().to_string());
    assert_eq!(status["status"], own.summary());
    let writes = own.writes;

    call(
        &mut g.app,
        "wyrd.world.set",
        json!({"name": "QST_DST_TOWER_5", "value": 2}),
    )
    .unwrap();
    assert_eq!(
        call(&mut g.app, "wyrd.save.now", json!({})).unwrap()["requested"],
        true
    );
    wyrd_test_support::run_until(&mut g.app, "the save written", 200, |w| {
        let s = w.resource::<wyrd_save::SaveStatus>();
        s.writes > writes && !s.writing
    });
    let status = call(&mut g.app, "wyrd.save", json!({})).unwrap();
    assert!(status["error"].is_null(), "{status}");
    assert!(
        std::fs::read_dir(saves.path()).unwrap().next().is_some(),
        "a save in {}",
        saves.path().display()
    );
}

/// A tool author's bad requests (a helper hunting the protocol): each
/// crashed the game, froze it, or was answered as if it were right.
#[test]
fn bad_requests_get_errors_not_crashes_or_wrong_answers() {
    let Game { mut app, .. } = methods_only();
    // 4 billion ticks of recording: the room was taken at once and the
    // game died ("memory allocation of 1099511632032 bytes failed").
    let err = call(
        &mut app,
        "wyrd.record",
        json!({"name": "guard", "on": true, "ticks": 4_294_967_295u64}),
    )
    .unwrap_err();
    assert!(err.contains("more than a recording keeps"), "{err}");
    // A 100,000-character name no tree has: the typo hint compared it with
    // every node of every agent and froze the game for minutes; the error
    // echoed it whole.
    let long = "x".repeat(100_000);
    let err = call(&mut app, "wyrd.agents", json!({ "running": long })).unwrap_err();
    assert!(err.len() < 1000, "{}", err.len());
    // Filters of the wrong type listed every agent.
    for bad in [json!({"tree": 5}), json!({"running": ["a"]})] {
        let err = call(&mut app, "wyrd.agents", bad.clone()).unwrap_err();
        assert!(err.contains("is not a string"), "{bad}: {err}");
    }
    // An entity of the wrong type was ignored for the name beside it.
    let err = call(
        &mut app,
        "wyrd.tree",
        json!({"entity": "x", "name": "guard"}),
    )
    .unwrap_err();
    assert!(err.contains("is not an entity number"), "{err}");
    // A despawned entity says so.
    let gone = app.world_mut().spawn_empty().id();
    app.world_mut().despawn(gone);
    let err = call(&mut app, "wyrd.tree", json!({"entity": gone.to_bits()})).unwrap_err();
    assert!(err.contains("no longer exists"), "{err}");
    // Parameters that are not an object were read as none (a step of 1).
    for bad in [json!(5), json!("x"), json!([1, 2])] {
        let err = call(&mut app, "wyrd.step", bad.clone()).unwrap_err();
        assert!(err.contains("is not an object"), "{bad}: {err}");
    }
    // A second recording says what it replaced.
    call(
        &mut app,
        "wyrd.record",
        json!({"name": "guard", "on": true, "ticks": 50}),
    )
    .unwrap();
    wyrd_test_support::step(&mut app, 4);
    let again = call(
        &mut app,
        "wyrd.record",
        json!({"name": "guard", "on": true, "ticks": 50}),
    )
    .unwrap();
    assert!(again["replaced_ticks"].as_u64().unwrap() > 0, "{again}");
}
