//! The panels rendered from snapshots (no GPU): what a designer reads, and
//! an edit that goes through the world-state API.

use bevy::prelude::*;
use bevy_egui::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use wyrd_bt::sim::Sim;
use wyrd_bt::{Status, Vocabulary, compile_str};
use wyrd_inspector::{
    AgentRow, InspectorAction, InspectorSnapshot, InspectorUiState, TreeSnapshot, WorldRow,
    apply_crowd, crowd_counts, draw_graph_window, draw_inspector, running_names, tree_rows,
};

#[path = "panels/graph.rs"]
mod graph;

const TREE: &str = r#"(
    tags: ["infantry", "passenger"],
    blackboard: {"target": true},
    behaviors: [GuardSequence(name: "flee", children: [Action(action: "Run")])],
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "panic", not_tags: ["passenger"], children: [Condition(check: Is("target")), Action(action: "Hide")]),
        GuardSequence(name: "fight", children: [Condition(check: Is("target")), Cooldown(name: "burst", seconds: 2.0, child: Action(action: "Shoot"))]),
        Action(name: "idle", action: "Idle"),
    ]),
)"#;

fn snapshot() -> InspectorSnapshot {
    let program = compile_str("grunt.bt.ron", TREE, &Vocabulary::permissive()).unwrap();
    let mut sim = Sim::new(&program, 0);
    sim.tag("passenger", true).unwrap();
    sim.step();
    sim.stimulus("root", "flee", 0, 1.5).unwrap();
    let nodes = tree_rows(&program, &sim.state, sim.blackboard.tags());
    InspectorSnapshot {
        agents: vec![AgentRow {
            label: "Grunt 7".into(),
            tree: "squad/grunt.bt.ron".into(),
            status: Status::Running,
            active: String::new(),
            doing: "Shoot".into(),
        }],
        selected: Some(0),
        tree: Some(TreeSnapshot {
            label: "Grunt 7".into(),
            nodes,
            blackboard: vec![("target".into(), "true".into())],
            tags: vec![("infantry".into(), false), ("passenger".into(), true)],
            impulses: vec![],
            timeline: None,
            why: vec![],
            changed_keys: vec![],
            recordable: true,
            crowd_agents: 0,
            breakpoints: 0,
            stats: Vec::new(),
        }),
        world: vec![
            WorldRow {
                name: "NPC_DRONE_SPK_01".into(),
                flag: Some(false),
                value: 0,
                default: "false".into(),
                scope: "Meta".into(),
                version: 1,
            },
            WorldRow {
                name: "QST_DST_TOWER_5".into(),
                flag: None,
                value: 3,
                default: "0".into(),
                scope: "Meta".into(),
                version: 2,
            },
        ],
        ..Default::default()
    }
}

type State = (InspectorSnapshot, InspectorUiState, Vec<InspectorAction>);

/// The panel and, while open, the graph window, as the plugin draws them.
fn harness(snap: InspectorSnapshot) -> Harness<'static, State> {
    harness_sized(snap, egui::Vec2::new(900.0, 1400.0))
}

fn harness_sized(snap: InspectorSnapshot, size: egui::Vec2) -> Harness<'static, State> {
    let mut h = Harness::new_ui_state(
        |ui, (snap, ui_state, actions): &mut State| {
            let ctx = ui.ctx().clone();
            actions.extend(draw_inspector(ui, snap, ui_state));
            actions.extend(draw_graph_window(&ctx, snap, ui_state));
        },
        (snap, InspectorUiState::default(), Vec::new()),
    );
    h.set_size(size);
    h.run();
    h
}

/// The graph's "-" of a node: the one on the node's right (left-right
/// layout), not the list's.
fn graph_collapse_button<'h>(
    h: &'h Harness<'static, State>,
    node: egui::Rect,
) -> egui_kittest::Node<'h> {
    h.get_all_by_label("-")
        .find(|b| {
            let r = b.rect();
            (r.center().y - node.center().y).abs() < 2.0 && r.left() >= node.right()
        })
        .expect("the node's collapse button in the graph")
}

#[test]
fn the_tree_panel_shows_names_statuses_flags_the_running_path_and_masked_nodes() {
    let h = harness(snapshot());
    // Names, kinds, rule flags and statuses.
    h.get_by_label_contains("GuardSequence fight  [D]  running");
    h.get_by_label_contains("PrioritizedList root  [D]  running");
    // The running path is marked.
    h.get_by_label_contains("> Action Shoot Shoot  [D]  running");
    h.get_by_label_contains("> GuardSequence fight");
    // A node masked by the agent's tags is dimmed and says so.
    h.get_by_label_contains("GuardSequence panic  [PD]  idle  (masked by tags)");
    // Idle, paused nodes are not on the running path.
    assert!(h.query_by_label_contains("> Action idle").is_none());
    // The inserted stimulus is shown with its time left; decorators with state.
    h.get_by_label_contains("(stimulus 1.5 s)");
    // Blackboard, tags, agent list.
    h.get_by_label_contains("target = true");
    h.get_by_label_contains("tags: -infantry +passenger");
    // Each row says what the agent does (its running leaves).
    h.get_by_label_contains("Grunt 7  running: Shoot  squad/grunt.bt.ron");
}

#[test]
fn the_world_state_panel_shows_values_and_edits_become_actions() {
    let mut h = harness(snapshot());
    h.get_by_label("NPC_DRONE_SPK_01");
    // The flag's value and default read "false".
    assert_eq!(h.query_all_by_label("false").count(), 2);
    assert_eq!(
        h.query_all_by_label_contains("Meta").count(),
        2,
        "both rows show their scope"
    );
    h.get_by_label("NPC_DRONE_SPK_01").click();
    h.run();
    assert_eq!(
        h.state().2,
        vec![InspectorAction::SetFlag("NPC_DRONE_SPK_01".into(), true)]
    );
}

#[test]
fn collapsing_a_subtree_hides_its_nodes() {
    let mut h = harness(snapshot());
    assert_eq!(
        h.query_all_by_label_contains("Condition ?target").count(),
        2
    );
    // The first "-" button belongs to the root: collapse everything.
    h.get_all_by_label("-").next().unwrap().click();
    h.run();
    assert!(h.query_by_label_contains("Sequence fight").is_none());
    assert_eq!(
        h.query_all_by_label_contains("Condition ?target").count(),
        0
    );
    h.get_by_label_contains("PrioritizedList root");
}

#[test]
fn an_edit_changes_the_world_state_and_sends_its_message() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("w.flags.ron"),
        r#"(flags: [(id: "a3f19c7e52d04b8e9c1f6d2a7b4e0c58", name: "NPC_DRONE_SPK_01", default: false)],
            counters: [(id: "5904375b06586af41bd4c25aedc0b193", name: "QST_DST_TOWER_5", default: 0)])"#,
    )
    .unwrap();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: dir.path().to_string_lossy().into_owned(),
            ..Default::default()
        },
    ))
    .add_plugins(wyrd_state::WorldStatePlugin::with_files(["w.flags.ron"]));
    wyrd_test_support::run_until(
        &mut app,
        "the flags file",
        wyrd_test_support::LOAD_UPDATES,
        |w| w.resource::<wyrd_state::WorldStateFiles>().all_merged(),
    );
    // The panel's edits, applied as the plugin applies them.
    let mut h = harness(snapshot());
    h.get_by_label("NPC_DRONE_SPK_01").click();
    h.run();
    let mut actions = std::mem::take(&mut h.state_mut().2);
    actions.push(InspectorAction::SetCounter("QST_DST_TOWER_5".into(), 4));
    wyrd_inspector::apply_actions(app.world_mut(), actions, &[]);
    app.update();
    let ws = app.world().resource::<wyrd_state::WorldState>();
    assert_eq!(ws.flag("NPC_DRONE_SPK_01"), Ok(true));
    assert_eq!(ws.counter("QST_DST_TOWER_5"), Ok(4));
    let flags: Vec<_> = app
        .world_mut()
        .resource_mut::<Messages<wyrd_state::FlagChanged>>()
        .drain()
        .collect();
    assert_eq!(flags.len(), 1);
    assert_eq!(flags[0].source, "inspector");
}

#[test]
fn the_history_shows_started_finished_and_aborted_actions() {
    use wyrd_inspector::{HistoryEntry, HistoryEvent};
    let mut snap = snapshot();
    snap.history = vec![
        HistoryEntry {
            tick: 3,
            path: "root/idle".into(),
            event: HistoryEvent::Aborted,
        },
        HistoryEntry {
            tick: 3,
            path: "root/fight/burst/Shoot".into(),
            event: HistoryEvent::Started,
        },
        HistoryEntry {
            tick: 5,
            path: "root/fight/burst/Shoot".into(),
            event: HistoryEvent::Finished(Status::Success),
        },
        HistoryEntry {
            tick: 5,
            path: "root/fight".into(),
            event: HistoryEvent::Status {
                from: Status::Running,
                to: Status::Success,
            },
        },
    ];
    let h = harness(snap);
    h.get_by_label("tick 3: root/idle aborted");
    h.get_by_label("tick 3: root/fight/burst/Shoot started");
    h.get_by_label("tick 5: root/fight/burst/Shoot finished (success)");
    h.get_by_label("tick 5: root/fight running -> success");
}

/// Issue 16: the timeline shows the selected agent's tree as it was at a
/// recorded tick (statuses and blackboard of that tick, rebuilt from the
/// flight recording), and its buttons step through the ticks.
#[test]
fn the_timeline_shows_the_tree_and_blackboard_of_a_recorded_tick() {
    use bevy::ecs::system::RunSystemOnce;
    use wyrd_bt::prelude::*;
    use wyrd_inspector::{InspectorState, take_snapshot};
    use wyrd_test_support::{MemoryAssets, TestApp, step, wait_loaded};
    let files = MemoryAssets::new().with("t.bt.ron", TREE);
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            for a in ["Run", "Hide", "Shoot", "Idle"] {
                app.register_bt_action(a);
            }
            // The game: the target comes and goes; actions take 4 ticks.
            app.add_systems(
                FixedUpdate,
                // (By the agent's own ticks: loading takes a varying
                // number of updates.)
                (|mut q: Query<(&BtAgent, &mut BtActions, &mut Blackboard)>| {
                    for (agent, mut actions, mut bb) in &mut q {
                        let n = agent.state().ticks();
                        for a in actions.iter_mut().filter(|a| a.is_running()) {
                            if n.is_multiple_of(4) {
                                a.succeed();
                            }
                        }
                        bb.set("target", (n / 6) % 2 == 1).unwrap();
                    }
                })
                .in_set(BtSystems::Act),
            );
        })
        .build();
    let handle = app.world().resource::<AssetServer>().load("t.bt.ron");
    wait_loaded(&mut app, &handle).unwrap();
    let e = app
        .world_mut()
        .spawn((
            BehaviorTree::new(handle),
            Blackboard::new().with_tag("infantry"),
        ))
        .id();
    app.world_mut().get_mut::<BtAgent>(e).unwrap().record(100);
    // What the panel must show for tick 8: the live rows then.
    let mut expected = None;
    for _ in 0..16 {
        step(&mut app, 1);
        let agent = app.world().get::<BtAgent>(e).unwrap();
        if agent.state().ticks() == 8 {
            let bb = app.world().get::<Blackboard>(e).unwrap();
            expected = Some((
                tree_rows(agent.program().unwrap(), agent.state(), bb.tags()),
                bb.get("target"),
            ));
        }
    }
    let (rows, target) = expected.expect("tick 8 was seen");
    let live = app.world().get::<Blackboard>(e).unwrap().get("target");
    assert_ne!(live, target, "the blackboard moved on since tick 8");
    let snap = |app: &mut App, shown: Option<u64>| {
        app.world_mut()
            .run_system_once(
                move |agents: Query<(
                    Entity,
                    Option<&Name>,
                    &BehaviorTree,
                    &BtAgent,
                    &Blackboard,
                )>| {
                    let mut state = InspectorState::default();
                    state.selected = Some(e);
                    state.shown_tick = shown;
                    take_snapshot(&state, &agents, None, None, None, None, None).0
                },
            )
            .unwrap()
    };
    let at8 = snap(&mut app, Some(8));
    let tree = at8.tree.as_ref().unwrap();
    assert_eq!(tree.nodes, rows, "the tree as it was at tick 8");
    let shown_target = target.map_or("(unset)".to_owned(), |v| v.to_string());
    assert!(
        tree.blackboard
            .contains(&("target".into(), shown_target.clone())),
        "{:?}",
        tree.blackboard
    );
    assert_eq!(tree.timeline.as_ref().unwrap().shown, Some(8));
    let mut h = harness(at8);
    h.get_by_label_contains("at tick 8");
    h.get_by_label_contains(&format!("target = {shown_target}"));
    h.get_by_label(">").click();
    h.run();
    h.get_by_label("live").click();
    h.run();
    assert_eq!(
        h.state().2,
        vec![
            InspectorAction::ShowTick(Some(9)),
            InspectorAction::ShowTick(None)
        ]
    );
    // Live again: the panel shows the agent now.
    let now = snap(&mut app, None);
    let doing = &now.agents[0].doing;
    assert!(!doing.is_empty(), "the row says what the agent does");
    assert!(now.tree.unwrap().timeline.unwrap().shown.is_none());

    // Why: at the tick the target appeared, the higher-priority branch took
    // over from idling, and the panel says so with the input that changed.
    let agent = app.world().get::<BtAgent>(e).unwrap();
    let rec = agent.recording().unwrap();
    let program = agent.program().unwrap().clone();
    let (tick, line) = rec
        .ticks
        .iter()
        .find_map(|t| {
            wyrd_inspector::why_lines(&program, t)
                .into_iter()
                .find(|l| l.starts_with("root/idle stopped"))
                .map(|l| (t.tick, l))
        })
        .expect("a takeover was recorded");
    assert_eq!(
        line,
        "root/idle stopped: higher-priority panic took over; target became true"
    );
    let why = snap(&mut app, Some(tick));
    assert!(why.tree.as_ref().unwrap().why.contains(&line));
    let h = harness(why);
    h.get_by_label_contains("why: root/idle stopped");
    // The key written in that tick is highlighted.
    h.get_by_label_contains("target = true  (changed)");

    // Markers: actions started; and "previous change of this node".
    let marks = &snap(&mut app, None).tree.unwrap().timeline.unwrap().marks;
    assert!(marks.iter().any(|m| m.1 == 'S'), "{marks:?}");
    let idle = rec.paths.iter().position(|p| p == "root/idle").unwrap() as u32;
    let last_change = rec
        .ticks
        .iter()
        .rev()
        .find(|t| t.nodes.iter().any(|c| c.0 == idle))
        .unwrap()
        .tick;
    let mut state = InspectorState::default();
    state.selected = Some(e);
    app.world_mut().insert_resource(state);
    wyrd_inspector::apply_actions(
        app.world_mut(),
        vec![InspectorAction::PreviousChange("root/idle".into())],
        &[],
    );
    assert_eq!(
        app.world().resource::<InspectorState>().shown_tick,
        Some(last_change)
    );

    // Pause and single-step the trees from the inspector.
    let ticks = |app: &App| app.world().get::<BtAgent>(e).unwrap().state().ticks();
    wyrd_inspector::apply_actions(app.world_mut(), vec![InspectorAction::Pause(true)], &[]);
    let before = ticks(&app);
    step(&mut app, 3);
    assert_eq!(ticks(&app), before, "paused");
    wyrd_inspector::apply_actions(app.world_mut(), vec![InspectorAction::Step], &[]);
    step(&mut app, 3);
    assert_eq!(ticks(&app), before + 1, "one step");
    wyrd_inspector::apply_actions(app.world_mut(), vec![InspectorAction::Pause(false)], &[]);
    step(&mut app, 2);
    assert_eq!(ticks(&app), before + 3, "resumed");
}

/// Issue 16: the graph view draws every node as a box (no node limit),
/// shows a clicked node's details and collapses a subtree.
#[test]
fn the_graph_view_draws_boxes_shows_details_and_collapses() {
    let mut h = harness(snapshot());
    h.get_by_label("graph").click();
    h.run();
    // A box per node: names, kinds and flags.
    h.get_by_label_contains("fight\nGuardSequence [D]");
    h.get_by_label_contains("Shoot\nAction Shoot [D]");
    h.get_by_label_contains("idle\nAction Idle [PD]");
    h.get_by_label_contains("panic\nGuardSequence [PD]");
    // The running path is marked; idle nodes are not on it.
    h.get_by_label_contains("> fight\nGuardSequence");
    h.get_by_label_contains("> Shoot\nAction Shoot");
    assert!(h.query_by_label_contains("> idle").is_none());
    // Click a box: its path, kind, status and flags.
    h.get_by_label_contains("Shoot\nAction Shoot").click();
    h.run();
    h.get_by_label_contains("root/fight/burst/Shoot  (Action Shoot)");
    h.get_by_label_contains("running  [D]");
    // A guarded node shows its guard.
    h.get_by_label_contains("> fight\nGuardSequence").click();
    h.run();
    h.get_by_label_contains("guard: ?target");
    // Collapse the root in the graph: only its box is left.
    let root = h.get_by_label_contains("root\nPrioritizedList").rect();
    graph_collapse_button(&h, root).click();
    h.run();
    assert!(h.query_by_label_contains("fight\nGuardSequence").is_none());
    h.get_by_label_contains("root\nPrioritizedList");
}

/// Issue 27's crowd view: each node's count is the number of agents of the
/// tree whose state has it running (checked against the agents' states),
/// shown as a badge; a click on it lists those agents.
#[test]
fn crowd_counts_are_the_agents_in_each_node_and_a_click_lists_them() {
    let program = compile_str("grunt.bt.ron", TREE, &Vocabulary::permissive()).unwrap();
    // (name, sees the target, passenger): one panics, two fight, two idle.
    let crowd = [
        ("a", true, false),
        ("b", true, true),
        ("c", true, true),
        ("d", false, false),
        ("e", false, true),
    ];
    let mut sims = Vec::new();
    for (_, target, passenger) in crowd {
        let mut sim = Sim::new(&program, 0);
        sim.set("target", target).unwrap();
        sim.tag("passenger", passenger).unwrap();
        sim.step();
        sims.push(sim);
    }
    let counts = crowd_counts(&program, sims.iter().map(|s| &s.state));
    for node in program.nodes() {
        let by_hand = sims
            .iter()
            .filter(|s| s.status_of(node.path()) == Some(Status::Running))
            .count() as u32;
        assert_eq!(counts[node.index() as usize], by_hand, "{}", node.path());
    }
    assert_eq!(counts[program.node("root/fight").unwrap() as usize], 2);
    assert_eq!(counts[program.node("root/idle").unwrap() as usize], 2);
    assert_eq!(counts[program.node("root/panic").unwrap() as usize], 1);

    let mut nodes = tree_rows(&program, &sims[1].state, sims[1].blackboard.tags());
    apply_crowd(&mut nodes, &program, &counts);
    let snap = InspectorSnapshot {
        agents: crowd
            .iter()
            .zip(&sims)
            .map(|((name, ..), sim)| AgentRow {
                label: format!("grunt {name}"),
                tree: "squad/grunt.bt.ron".into(),
                status: Status::Running,
                active: running_names(&program, &sim.state),
                doing: String::new(),
            })
            .collect(),
        selected: Some(1),
        tree: Some(TreeSnapshot {
            label: "grunt b".into(),
            nodes,
            crowd_agents: crowd.len(),
            recordable: true,
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut h = harness(snap);
    // Every agent listed before the click.
    for name in ["a", "b", "c", "d", "e"] {
        h.get_by_label_contains(&format!("grunt {name}  running  squad/grunt.bt.ron"));
    }
    // The badge of "fight" says 2 of 5; a click keeps the two fighters.
    let fight = h
        .query_all_by_label("2")
        .next()
        .expect("a crowd badge with 2");
    fight.click();
    h.run();
    assert!(
        h.state().1.agent_filter.starts_with("running:"),
        "{}",
        h.state().1.agent_filter
    );
    let filter = h.state().1.agent_filter.clone();
    let listed: Vec<&str> = ["a", "b", "c", "d", "e"]
        .into_iter()
        .filter(|n| {
            h.query_by_label_contains(&format!("grunt {n}  running  squad/grunt.bt.ron"))
                .is_some()
        })
        .collect();
    let expected: Vec<&str> = crowd
        .iter()
        .zip(&sims)
        .filter(|(_, s)| {
            running_names(&program, &s.state)
                .split(' ')
                .any(|n| n == filter.trim_start_matches("running:"))
        })
        .map(|((n, ..), _)| *n)
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(listed.len(), 2, "{filter}");

    // The graph view shows the same counts on the boxes: root 5, and the
    // two branches with 2 (fight, idle) and their running children.
    h.get_by_label("graph").click();
    h.run();
    // The list's badges and the graph's: 5 twice, 2 on four nodes twice.
    assert_eq!(h.query_all_by_label("5").count(), 2);
    assert!(h.query_all_by_label("2").count() >= 4);
    // A right-click on a box offers its breakpoints too.
    h.get_by_label_contains("fight\nGuardSequence")
        .click_secondary();
    h.run();
    h.get_by_label("break when it is aborted").click();
    h.run();
    assert!(
        h.state().2.contains(&InspectorAction::ToggleBreakpoint(
            "root/fight".into(),
            wyrd_bt::BreakOn::Aborted
        )),
        "{:?}",
        h.state().2
    );
}

/// Issue 27: a right-click on a node offers its breakpoints; choosing one
/// asks for it (applied to the tree's breakpoints by `apply_actions`), and a
/// node with a breakpoint is marked.
#[test]
fn a_right_click_on_a_node_sets_a_breakpoint_and_marked_nodes_show_it() {
    let mut h = harness(snapshot());
    h.get_by_label_contains("GuardSequence fight")
        .click_secondary();
    h.run();
    h.get_by_label("break when it is aborted").click();
    h.run();
    let actions = std::mem::take(&mut h.state_mut().2);
    assert!(
        actions.contains(&InspectorAction::ToggleBreakpoint(
            "root/fight".into(),
            wyrd_bt::BreakOn::Aborted
        )),
        "{actions:?}"
    );
    // A node with a breakpoint shows a mark; its menu offers to clear it.
    let mut snap = snapshot();
    let def = wyrd_bt::BreakpointsDef::parse(
        "grunt.breakpoints.ron",
        r#"(breakpoints: [(node: "root/fight", on: Aborted)])"#,
    )
    .unwrap();
    wyrd_inspector::apply_breakpoints(&mut snap.tree.as_mut().unwrap().nodes, &def);
    snap.tree.as_mut().unwrap().breakpoints = def.breakpoints.len();
    let mut h = harness(snap);
    assert_eq!(h.query_all_by_label("break").count(), 1);
    h.get_by_label_contains("GuardSequence fight")
        .click_secondary();
    h.run();
    h.get_by_label("clear when it is aborted");
    h.key_press(egui::Key::Escape);
    h.run();
    // They can be written to the file beside the tree.
    h.get_by_label("breakpoints: 1");
    h.get_by_label("save to file").click();
    h.run();
    assert!(h.state().2.contains(&InspectorAction::SaveBreakpoints));
}

/// The World State Evaluation's nodes say that they take no breakpoint
/// (its breakpoint menu did nothing, without a word), and a node's menu
/// names its node.
#[test]
fn the_evaluations_node_menu_says_it_takes_no_breakpoint() {
    let mut snap = snapshot();
    snap.tree.as_mut().unwrap().recordable = false;
    let mut h = harness(snap);
    h.get_by_label_contains("GuardSequence fight")
        .click_secondary();
    h.run();
    h.get_by_label_contains("no breakpoints here: the World State Evaluation");
    assert_eq!(h.query_all_by_label_contains("break when").count(), 0);
    h.key_press(egui::Key::Escape);
    h.run();
    let mut h = harness(snapshot());
    h.get_by_label_contains("GuardSequence fight")
        .click_secondary();
    h.run();
    h.get_by_label("root/fight");
}

/// Issue 27, in an app: a breakpoint set from the panel (as `apply_actions`
/// applies it) for the selected agent's tree hits when that node is
/// aborted, pauses the trees, and the inspector follows the hit to the
/// agent with a line saying why.
#[test]
fn a_breakpoint_set_from_the_panel_stops_the_trees_and_the_panel_follows_it() {
    use wyrd_bt::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("guard.bt.ron"),
        r#"(
    blackboard: {"target": false},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "fight", children: [Condition(check: Is("target")), Action(action: "Shoot")]),
        Action(name: "patrol", action: "Patrol"),
    ]),
)"#,
    )
    .unwrap();
    let mut app = wyrd_test_support::TestApp::in_folder(dir.path(), 30.0)
        .plugins((BtPlugin::default(), wyrd_bt::BtBreakpointsPlugin::default()))
        .with(|app| {
            app.register_bt_action("Shoot")
                .register_bt_action("Patrol")
                .init_resource::<wyrd_inspector::InspectorState>();
        })
        .build();
    let tree: Handle<BtAsset> = app.world().resource::<AssetServer>().load("guard.bt.ron");
    let guard = app
        .world_mut()
        .spawn((
            Name::new("guard"),
            BehaviorTree::new(tree),
            Blackboard::default(),
        ))
        .id();
    wyrd_test_support::run_until(
        &mut app,
        "the guard ticking",
        wyrd_test_support::LOAD_UPDATES,
        |w| {
            w.get::<BtAgent>(guard)
                .is_some_and(|a| a.state().ticks() > 1)
        },
    );
    app.world_mut()
        .resource_mut::<wyrd_inspector::InspectorState>()
        .selected = Some(guard);
    wyrd_inspector::apply_actions(
        app.world_mut(),
        vec![InspectorAction::ToggleBreakpoint(
            "root/patrol".into(),
            wyrd_bt::BreakOn::Aborted,
        )],
        &[],
    );
    assert_eq!(
        app.world()
            .resource::<wyrd_bt::BtBreakpoints>()
            .get("guard.bt.ron")
            .map(|d| d.breakpoints.len()),
        Some(1)
    );
    // "save to file" writes it beside the tree in the asset folder,
    // keeping the comment the file starts with, and the breakpoints of the
    // file the game did not load (the panel's come after them).
    let file = dir.path().join("guard.breakpoints.ron");
    std::fs::write(
        &file,
        "// The guard's breakpoints.\n(breakpoints: [(action: \"Shoot\", on: Success)])\n",
    )
    .unwrap();
    app.world_mut()
        .resource_mut::<wyrd_inspector::InspectorState>()
        .assets = dir.path().to_owned();
    wyrd_inspector::apply_actions(app.world_mut(), vec![InspectorAction::SaveBreakpoints], &[]);
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(
        written.starts_with("// The guard's breakpoints.\n("),
        "{written}"
    );
    let saved = wyrd_bt::BreakpointsDef::parse("guard.breakpoints.ron", &written).unwrap();
    let set = app
        .world()
        .resource::<wyrd_bt::BtBreakpoints>()
        .get("guard.bt.ron")
        .unwrap()
        .clone();
    assert_eq!(saved.breakpoints.len(), 2, "{written}");
    assert_eq!(saved.breakpoints[0].action.as_deref(), Some("Shoot"));
    assert_eq!(saved.breakpoints[1], set.breakpoints[0], "{written}");
    // Saved again: nothing doubles.
    wyrd_inspector::apply_actions(app.world_mut(), vec![InspectorAction::SaveBreakpoints], &[]);
    let again = std::fs::read_to_string(&file).unwrap();
    assert_eq!(again, written);
    wyrd_test_support::step(&mut app, 2);
    assert!(!app.world().resource::<wyrd_bt::BtSettings>().paused);
    app.world_mut()
        .get_mut::<Blackboard>(guard)
        .unwrap()
        .set("target", true)
        .unwrap();
    wyrd_test_support::step(&mut app, 1);
    assert!(app.world().resource::<wyrd_bt::BtSettings>().paused);
    let hit = app
        .world()
        .resource::<wyrd_bt::BtBreakpoints>()
        .last_hit
        .clone()
        .unwrap();
    let mut state = wyrd_inspector::InspectorState::default();
    state.follow_breakpoint_hit(&hit);
    assert_eq!(state.selected, Some(guard));
    assert!(state.open);
    assert_eq!(
        state.stopped_at.as_deref(),
        Some(format!("stopped at breakpoint \"root/patrol was aborted\": root/patrol was aborted (tick {})", hit.tick).as_str())
    );
    // The same toggle again clears it.
    wyrd_inspector::apply_actions(
        app.world_mut(),
        vec![InspectorAction::ToggleBreakpoint(
            "root/patrol".into(),
            wyrd_bt::BreakOn::Aborted,
        )],
        &[],
    );
    assert_eq!(
        app.world()
            .resource::<wyrd_bt::BtBreakpoints>()
            .get("guard.bt.ron")
            .map(|d| d.breakpoints.len()),
        Some(0)
    );
}

/// Issue 27: a breakpoint on "Shoot aborted" pauses the trees in the tick
/// it happens; the panel selects the agent and its timeline moves to that
/// tick, with the ticks before it recorded (an agent a breakpoint watches
/// keeps a flight recording), and the abort marked on the timeline.
#[test]
fn a_shoot_aborted_breakpoint_pauses_selects_the_agent_and_moves_the_timeline_there() {
    use bevy::ecs::system::SystemState;
    use wyrd_bt::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("guard.bt.ron"),
        r#"(
    blackboard: {"target_visible": false},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "fight", children: [Condition(check: Is("target_visible")), Action(action: "Shoot")]),
        Action(name: "patrol", action: "Patrol"),
    ]),
)"#,
    )
    .unwrap();
    let mut app = wyrd_test_support::TestApp::in_folder(dir.path(), 30.0)
        .plugins((BtPlugin::default(), wyrd_bt::BtBreakpointsPlugin::default()))
        .with(|app| {
            app.register_bt_action("Shoot")
                .register_bt_action("Patrol")
                .init_resource::<wyrd_inspector::InspectorState>();
        })
        .build();
    let tree: Handle<BtAsset> = app.world().resource::<AssetServer>().load("guard.bt.ron");
    let spawn = |app: &mut App, name: &str| {
        app.world_mut()
            .spawn((
                Name::new(name.to_owned()),
                BehaviorTree::new(tree.clone()),
                Blackboard::default(),
            ))
            .id()
    };
    let (guard, other) = (spawn(&mut app, "guard"), spawn(&mut app, "other"));
    app.world_mut()
        .resource_mut::<wyrd_bt::BtBreakpoints>()
        .set(
            "guard.bt.ron",
            wyrd_bt::BreakpointsDef {
                breakpoints: vec![wyrd_bt::BreakpointDef {
                    node: Some("root/fight/Shoot".into()),
                    on: Some(wyrd_bt::BreakOn::Aborted),
                    agent: Some("guard".into()),
                    ..Default::default()
                }],
            },
        );
    wyrd_test_support::run_until(
        &mut app,
        "the guard ticking",
        wyrd_test_support::LOAD_UPDATES,
        |w| {
            w.get::<BtAgent>(guard)
                .is_some_and(|a| a.state().ticks() > 2)
        },
    );
    for e in [guard, other] {
        app.world_mut()
            .get_mut::<Blackboard>(e)
            .unwrap()
            .set("target_visible", true)
            .unwrap();
    }
    wyrd_test_support::step(&mut app, 5);
    assert!(!app.world().resource::<wyrd_bt::BtSettings>().paused);
    for e in [guard, other] {
        app.world_mut()
            .get_mut::<Blackboard>(e)
            .unwrap()
            .set("target_visible", false)
            .unwrap();
    }
    wyrd_test_support::step(&mut app, 1);
    assert!(
        app.world().resource::<wyrd_bt::BtSettings>().paused,
        "paused"
    );
    let hit = app
        .world()
        .resource::<wyrd_bt::BtBreakpoints>()
        .last_hit
        .clone()
        .unwrap();
    assert_eq!(hit.entity, guard);
    let ticks = app.world().get::<BtAgent>(guard).unwrap().state().ticks();
    assert_eq!(hit.tick, ticks, "paused at the end of the tick it hit");
    // Only the watched agent records.
    assert!(
        app.world()
            .get::<BtAgent>(other)
            .unwrap()
            .recorder()
            .is_none()
    );
    let recording = app
        .world()
        .get::<BtAgent>(guard)
        .unwrap()
        .recording()
        .unwrap();
    let first = recording.ticks.first().unwrap().tick;
    assert!(
        first + 5 <= hit.tick,
        "the lead-up is recorded: from {first} to {}",
        hit.tick
    );
    // The panel follows: the agent selected, the timeline at the hit.
    app.world_mut()
        .resource_mut::<wyrd_inspector::InspectorState>()
        .follow_breakpoint_hit(&hit);
    let mut agents = SystemState::<
        Query<(Entity, Option<&Name>, &BehaviorTree, &BtAgent, &Blackboard)>,
    >::new(app.world_mut());
    let query = agents.get(app.world()).unwrap();
    let state = app.world().resource::<wyrd_inspector::InspectorState>();
    assert_eq!(state.selected, Some(guard));
    let (snap, _) = wyrd_inspector::take_snapshot(
        state,
        &query,
        Some(app.world().resource::<AssetServer>()),
        None,
        None,
        None,
        None,
    );
    // Drawn: the panel says where it stopped, and the tree is the one at
    // the tick of the hit.
    let mut drawn = snap.clone();
    drawn.paused = true;
    drawn.stopped_at = state.stopped_at.clone();
    let h = harness(drawn);
    h.get_by_label_contains("stopped at breakpoint \"root/fight/Shoot was aborted\"");
    h.get_by_label(&format!("Tree of guard at tick {}", hit.tick));
    h.get_by_label("resume");
    let tree = snap.tree.unwrap();
    let timeline = tree.timeline.unwrap();
    assert_eq!(timeline.shown, Some(hit.tick), "the timeline at the hit");
    assert!(
        timeline.marks.contains(&(hit.tick, 'A')),
        "{:?}",
        timeline.marks
    );
    // The trees are paused at the hit: its tick is now, and the crowd
    // counts (of now) are shown over it: the guard and the other agent.
    assert_eq!(tree.crowd_agents, 2);
    let row = |path: &str| tree.nodes.iter().find(|r| r.path == path).unwrap();
    assert!(!row("root/fight/Shoot").running);
    assert!(row("root/patrol").running);
    // The same tick one step before the hit had Shoot running.
    let mut state = std::mem::take(
        &mut *app
            .world_mut()
            .resource_mut::<wyrd_inspector::InspectorState>(),
    );
    state.shown_tick = Some(hit.tick - 1);
    let query = agents.get(app.world()).unwrap();
    let (snap, _) = wyrd_inspector::take_snapshot(&state, &query, None, None, None, None, None);
    let tree = snap.tree.unwrap();
    assert!(
        tree.nodes
            .iter()
            .any(|r| r.path == "root/fight/Shoot" && r.running)
    );
    // Breakpoints cleared: the recording they started stops.
    app.world_mut()
        .resource_mut::<wyrd_bt::BtBreakpoints>()
        .clear("guard.bt.ron");
    wyrd_test_support::step(&mut app, 1);
    assert!(
        app.world()
            .get::<BtAgent>(guard)
            .unwrap()
            .recorder()
            .is_none()
    );
}

/// Issue 27: the node statistics of the recorded ticks, in a section of
/// their own (closed until opened).
#[test]
fn the_statistics_of_the_recorded_ticks_are_shown_per_node() {
    let mut snap = snapshot();
    snap.tree.as_mut().unwrap().stats = vec![wyrd_bt::sim::NodeStats {
        path: "root/fight/burst/Shoot".into(),
        running_ticks: 17,
        longest_run: 9,
        changes: 6,
        successes: 3,
        failures: 1,
    }];
    let mut h = harness(snap);
    h.get_by_label("Statistics (recorded ticks)").click();
    h.run();
    h.get_by_label("root/fight/burst/Shoot");
    for n in ["17", "9", "6", "3", "1"] {
        assert!(h.query_all_by_label(n).count() >= 1, "{n}");
    }
}

/// Issue 27: find a node by name: matching nodes are marked `»` in the
/// list and the graph, and the view jumps to the first one (a node far
/// below the fold comes into the panel's view).
#[test]
fn find_marks_the_nodes_by_name_and_jumps_to_the_first() {
    let leaves: Vec<String> = (0..40)
        .map(|k| format!("Action(name: \"step{k}\", action: \"Step\")"))
        .collect();
    let text = format!(
        "(root: Sequence(name: \"root\", children: [{}, Action(name: \"far_away\", action: \"Look\")]))",
        leaves.join(", ")
    );
    let program = compile_str("long.bt.ron", &text, &Vocabulary::permissive()).unwrap();
    let mut sim = Sim::new(&program, 0);
    sim.step();
    let snap = InspectorSnapshot {
        tree: Some(TreeSnapshot {
            label: "walker".into(),
            nodes: tree_rows(&program, &sim.state, 0),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut h = harness_sized(snap, egui::Vec2::new(700.0, 400.0));
    let far = |h: &Harness<'_, State>| h.get_by_label_contains("far_away  [").rect();
    assert!(
        far(&h).min.y > 400.0,
        "below the fold at first: {:?}",
        far(&h)
    );
    assert_eq!(h.query_all_by_label("»").count(), 0);
    h.state_mut().1.find = "FAR".into();
    h.run();
    h.run();
    assert_eq!(h.query_all_by_label("»").count(), 1);
    let r = far(&h);
    assert!(
        r.min.y >= 0.0 && r.max.y <= 400.0,
        "in view after find: {r:?}"
    );
    // The graph marks the same node (opened by the state: the list has
    // scrolled its toggle out of view).
    h.state_mut().1.graph = true;
    h.run();
    h.run();
    let boxes: Vec<String> = h
        .query_all_by_label_contains("far_away")
        .map(|n| format!("{n:?}"))
        .collect();
    assert!(boxes.iter().any(|b| b.contains("» far_away")), "{boxes:?}");
}

/// Issue 29: a `Utility`'s decisions are in the panels: the why lines of a
/// recorded tick give each child's score and why the winner won, and the
/// history's line of a change of mind reads the same way.
#[test]
fn a_utility_decision_shows_its_scores_and_why_the_winner_won() {
    use wyrd_bt::prelude::*;
    use wyrd_inspector::{HistoryEntry, HistoryEvent};
    use wyrd_test_support::{MemoryAssets, TestApp, step, wait_loaded};
    const UTILITY: &str = r#"(
        blackboard: {"hunger": 0.9, "fatigue": 0.2},
        root: Utility(name: "root", children: [
            Action(name: "eat", action: "Eat", score: (consider: [(input: Bb("hunger"))])),
            Action(name: "sleep", action: "Sleep", score: (consider: [(input: Bb("fatigue"))])),
        ]),
    )"#;
    let files = MemoryAssets::new().with("u.bt.ron", UTILITY);
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            app.register_bt_action("Eat").register_bt_action("Sleep");
        })
        .build();
    let handle = app.world().resource::<AssetServer>().load("u.bt.ron");
    wait_loaded(&mut app, &handle).unwrap();
    let e = app
        .world_mut()
        .spawn((BehaviorTree::new(handle), Blackboard::new()))
        .id();
    app.world_mut().get_mut::<BtAgent>(e).unwrap().record(50);
    step(&mut app, 3);
    app.world_mut()
        .get_mut::<Blackboard>(e)
        .unwrap()
        .set("fatigue", 1.0)
        .unwrap();
    step(&mut app, 2);
    app.world_mut()
        .get_mut::<Blackboard>(e)
        .unwrap()
        .set("hunger", 0.5)
        .unwrap();
    step(&mut app, 2);
    let agent = app.world().get::<BtAgent>(e).unwrap();
    let rec = agent.recording().unwrap();
    let program = agent.program().unwrap().clone();
    let lines: Vec<String> = rec
        .ticks
        .iter()
        .flat_map(|t| wyrd_inspector::why_lines(&program, t))
        .filter(|l| l.starts_with("utility "))
        .collect();
    assert_eq!(
        lines.first().map(String::as_str),
        Some("utility root: eat=0.90 sleep=0.20 -> eat (best)"),
        "{lines:?}"
    );
    // Within the margin (0.1) the running child is kept; beaten by more,
    // replaced.
    assert_eq!(
        &lines[1..3],
        [
            "utility root: eat=0.90 sleep=1.00 -> eat (kept)",
            "utility root: eat=0.50 sleep=1.00 -> sleep (beat eat by 0.50)"
        ],
        "{lines:?}"
    );
    let mut snap = snapshot();
    snap.history = vec![HistoryEntry {
        tick: 4,
        path: "root".into(),
        event: HistoryEvent::Chose("sleep: eat=0.50 sleep=1.00 (beat eat by 0.50)".into()),
    }];
    let h = harness(snap);
    h.get_by_label("tick 4: root chose sleep: eat=0.50 sleep=1.00 (beat eat by 0.50)");
}

/// The timeline's stepping buttons stay where they are, live or at a
/// recorded tick, whatever the tick numbers (a "live" button appeared
/// between ">" and "save", and a designer's repeated "<" clicks saved the
/// recording three times); a saved recording is said in the panel.
#[test]
fn the_timelines_buttons_stay_in_place_and_a_save_is_said() {
    let timeline = |shown: Option<u64>, last: u64, saved: Option<&str>| {
        let mut snap = snapshot();
        snap.tree.as_mut().unwrap().timeline = Some(wyrd_inspector::TimelineRow {
            first: 1,
            last,
            shown,
            marks: Vec::new(),
            saved: saved.map(str::to_owned),
        });
        snap
    };
    let place = |snap| {
        let h = harness(snap);
        ["<", ">", "live"].map(|b| h.get_by_label(b).rect().min)
    };
    let live = place(timeline(None, 9, None));
    assert_eq!(place(timeline(Some(4), 9, None)), live);
    assert_eq!(place(timeline(Some(4), 123_456, None)), live);
    let h = harness(timeline(
        None,
        9,
        Some("saved recordings/grunt-tick9.recording.json (9 ticks)"),
    ));
    h.get_by_label("saved recordings/grunt-tick9.recording.json (9 ticks)");
}

/// An empty history says why: for an agent, since when changes are
/// listed; for the World State Evaluation, that it keeps none (a designer
/// waited for one and saw an empty section).
#[test]
fn an_empty_history_says_why() {
    let mut snap = snapshot();
    snap.history.clear();
    let h = harness(snap.clone());
    h.get_by_label_contains(
        "nothing yet: the agent's node changes are listed from when it was selected",
    );
    snap.tree.as_mut().unwrap().recordable = false;
    let h = harness(snap);
    h.get_by_label_contains("none: the World State Evaluation runs at once when asked");
}

/// The panel says what its colours, letters and marks mean (a designer
/// found no legend anywhere).
#[test]
fn the_legend_says_what_the_colours_letters_and_marks_mean() {
    let mut h = harness(snapshot());
    h.get_by_label("Legend").click();
    h.run();
    h.get_by_label_contains("[PCWD] rule flags: P paused");
    h.get_by_label_contains("a number on a badge: how many agents");
    h.get_by_label("skipped");
}

/// The last hot reload is said at the top of the panel (it was only in a
/// folded section at the bottom, and a designer missed it).
#[test]
fn the_last_reload_is_said_at_the_top() {
    let mut snap = snapshot();
    snap.reloads = vec![
        "squad/grunt.bt.ron reloaded: no change".into(),
        "squad/grunt.bt.ron reloaded: 1 added; 8 agents kept their state".into(),
    ];
    let h = harness(snap);
    h.get_by_label(
        "last tree reload: squad/grunt.bt.ron reloaded: 1 added; 8 agents kept their state",
    );
}
