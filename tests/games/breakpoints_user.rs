//! Breakpoints as a user of the facade meets them, from the README only
//! (`wyrd::prelude::*`, `BtBreakpointsPlugin` beside `BtPlugin`, a
//! breakpoints file loaded as an asset, the hit read as a message): a
//! guard whose patrol is aborted when it sees its target stops the trees.

use bevy::prelude::*;
use wyrd::prelude::*;

/// What the game saw: the hits its own system read.
#[derive(Resource, Default)]
struct Seen(Vec<String>);

fn watch(mut hits: MessageReader<BtBreakpointHit>, mut seen: ResMut<Seen>) {
    for h in hits.read() {
        seen.0.push(format!("{} at tick {}", h.hit.why, h.tick));
    }
}

#[test]
fn a_users_guard_stops_at_its_breakpoint() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("guard.bt.ron"),
        r#"(
    blackboard: {"target_visible": false},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "chase", children: [
            Condition(check: Is("target_visible")),
            Action(action: "Chase"),
        ]),
        Action(name: "patrol", action: "Patrol"),
    ]),
)"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("guard.breakpoints.ron"),
        r#"(breakpoints: [(action: "Patrol", on: Aborted)])"#,
    )
    .unwrap();
    let mut app = wyrd_test_support::TestApp::in_folder(dir.path(), 30.0)
        .plugins((BtPlugin::default(), BtBreakpointsPlugin::default()))
        .with(|app| {
            app.register_bt_action("Chase")
                .register_bt_action("Patrol")
                .init_resource::<Seen>()
                .add_systems(Update, watch);
        })
        .build();
    let server = app.world().resource::<AssetServer>().clone();
    let _breakpoints: Handle<BtBreakpointsFile> = server.load("guard.breakpoints.ron");
    let guard = app
        .world_mut()
        .spawn((
            BehaviorTree::new(server.load("guard.bt.ron")),
            Blackboard::default(),
        ))
        .id();
    wyrd_test_support::run_until(
        &mut app,
        "the guard patrolling with its breakpoints",
        wyrd_test_support::LOAD_UPDATES,
        |w| {
            w.resource::<BtBreakpoints>().get("guard.bt.ron").is_some()
                && w.get::<BtAgent>(guard)
                    .is_some_and(|a| a.active_paths() == ["root/patrol"])
        },
    );
    app.world_mut()
        .get_mut::<Blackboard>(guard)
        .unwrap()
        .set("target_visible", true)
        .unwrap();
    wyrd_test_support::step(&mut app, 3);
    let seen = &app.world().resource::<Seen>().0;
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(
        seen[0].starts_with("root/patrol was aborted at tick "),
        "{seen:?}"
    );
    // Paused in that tick: Chase started and the trees wait.
    let agent = app.world().get::<BtAgent>(guard).unwrap();
    assert_eq!(agent.active_paths(), ["root/chase/Chase"]);
    let ticks = agent.state().ticks();
    wyrd_test_support::step(&mut app, 3);
    assert_eq!(
        app.world().get::<BtAgent>(guard).unwrap().state().ticks(),
        ticks
    );
}
