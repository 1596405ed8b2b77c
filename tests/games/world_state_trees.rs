//! The facade: world-state flags and counters drive behavior trees.

use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use wyrd::prelude::*;

#[test]
fn a_tree_reacts_to_world_state_changes() {
    let assets = tempfile::tempdir().unwrap();
    let flags = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/drone_quest/world_state.flags.ron"
    ))
    .unwrap();
    std::fs::write(assets.path().join("w.flags.ron"), flags).unwrap();
    std::fs::write(
        assets.path().join("drone.bt.ron"),
        r#"(root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "reward", children: [
                Condition(check: World("QST_DST_TOWER_5", Ge, 5)),
                Condition(check: World("NPC_DRONE_SPK_01", Eq, true)),
                Action(action: "GiveReward"),
            ]),
            Action(name: "wait", action: "Wait"),
        ]))"#,
    )
    .unwrap();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets.path().to_string_lossy().into_owned(),
            ..Default::default()
        },
    ))
    .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(
        1.0 / 30.0,
    )))
    .insert_resource(Time::<Fixed>::from_hz(30.0))
    .add_plugins(WyrdPlugins.set(WorldStatePlugin::with_files(["w.flags.ron"])))
    .register_bt_action("GiveReward")
    .register_bt_action("Wait");
    let tree = app.world().resource::<AssetServer>().load("drone.bt.ron");
    let e = app.world_mut().spawn(BehaviorTree::new(tree)).id();
    let active = |app: &App| app.world().get::<BtAgent>(e).unwrap().active_paths();
    wyrd_test_support::run_until(
        &mut app,
        "the tree and the flags file",
        wyrd_test_support::LOAD_UPDATES,
        |w| {
            w.get::<BtAgent>(e).unwrap().active_paths() == ["root/wait"]
                && w.resource::<WorldStateFiles>().all_merged()
        },
    );
    assert_eq!(active(&app), ["root/wait"]);
    {
        let mut state = app.world_mut().resource_mut::<WorldState>();
        state.set_counter("QST_DST_TOWER_5", 5, "combat").unwrap();
        state
            .set_flag("NPC_DRONE_SPK_01", true, "dialogue")
            .unwrap();
    }
    app.update();
    app.update();
    assert_eq!(active(&app), ["root/reward/GiveReward"]);
}

/// Issue 14: the public components, resources and messages are registered
/// for reflection, so bevy-inspector-egui and the Bevy Remote Protocol can
/// show and edit blackboards, agents and the world state.
#[test]
fn components_resources_and_messages_are_reflected() {
    use bevy::reflect::{ReflectRef, TypeRegistry};
    use wyrd_test_support::{MemoryAssets, TestApp, step, wait_loaded};
    let files = MemoryAssets::new()
        .with(
            "w.flags.ron",
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/assets/drone_quest/world_state.flags.ron"
            ))
            .unwrap(),
        )
        .with(
            "t.bt.ron",
            r#"(blackboard: {"ammo": 3, "goal": (1.0, 2.0)}, root: Action(name: "wait", action: "Wait"))"#,
        );
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(WyrdPlugins.set(WorldStatePlugin::with_files(["w.flags.ron"])))
        .with(|app| {
            app.register_bt_action("Wait");
        })
        .build();
    let tree = app.world().resource::<AssetServer>().load("t.bt.ron");
    wait_loaded(&mut app, &tree).unwrap();
    let e = app.world_mut().spawn(BehaviorTree::new(tree)).id();
    step(&mut app, 2);
    let registry = app.world().resource::<AppTypeRegistry>().read();
    let registered =
        |registry: &TypeRegistry, path: &str| registry.get_with_type_path(path).is_some();
    for path in [
        "wyrd_bt::plugin::BehaviorTree",
        "wyrd_bt::plugin::BtAgent",
        "wyrd_bt::blackboard::Blackboard",
        "wyrd_bt::runtime::actions::BtActions",
        "wyrd_bt::plugin::BtGlobals",
        "wyrd_bt::plugin::BtStats",
        "wyrd_state::state::WorldState",
        "wyrd_state::messages::FlagChanged",
        "wyrd_state::messages::CounterChanged",
        "wyrd_state::bt::WorldStateEvaluated",
        "wyrd_save::plugin::SaveStatus",
        "wyrd_save::plugin::SaveRequest",
        "wyrd_save::plugin::SaveFailed",
    ] {
        assert!(registered(&registry, path), "{path} is not registered");
    }
    // A reflected read of the agent's blackboard sees its values.
    let reflect = registry
        .get_type_data::<ReflectComponent>(std::any::TypeId::of::<Blackboard>())
        .unwrap();
    let entity = app.world().entity(e);
    let bb = reflect.reflect(entity).unwrap();
    let ReflectRef::Struct(bb) = bb.reflect_ref() else {
        panic!("a struct")
    };
    let values = bb.field("values").unwrap();
    let text = format!("{values:?}");
    assert!(text.contains("Int(3)") && text.contains("Vec2"), "{text}");
}
