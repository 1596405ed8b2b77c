//! Running state that survives (issue 17): an agent's tree state saved
//! mid-run restores into a fresh app and runs on exactly as the original; a
//! hot reload keeps every agent whose running branch did not change; bad
//! saved states are refused and the agent starts fresh; the diff of two
//! versions of a tree.

use bevy::prelude::*;
use wyrd_bt::prelude::*;
use wyrd_bt::{BtRegistry, RestoreTree, SavedTree, Vocabulary, compile_str};
use wyrd_test_support::{MemoryAssets, TestApp, step, wait_loaded};

/// Which agent this is, the same in both apps.
#[derive(Component, Clone, Copy)]
struct Id(u64);

fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The game: inputs and action reports drawn from (agent, its tick), so
/// the original and the restored agent see the same ones.
fn game(mut q: Query<(&Id, &mut BtAgent, &mut Blackboard, &mut BtActions)>) {
    for (id, mut agent, mut bb, mut actions) in &mut q {
        let Some(program) = agent.program().cloned() else {
            continue;
        };
        let t = agent.state().ticks();
        let r = mix(id.0.wrapping_mul(1_000_003) ^ t);
        for (k, ty) in program.blackboard_types().iter().enumerate() {
            if *ty == wyrd_bt::ValueType::Bool && (r >> (k % 60)) & 7 == 0 {
                bb.set_index(k as u16, Value::Bool((r >> 61) & 1 == 1));
            }
        }
        for a in actions.iter_mut().filter(|a| a.is_running()) {
            if mix(r ^ u64::from(a.node)).is_multiple_of(3) {
                if r.is_multiple_of(11) {
                    a.fail()
                } else {
                    a.succeed()
                }
            }
        }
        if program.blackboard_keys().iter().any(|k| k == "leader_dead") && r % 97 == 5 {
            let _ = agent.insert_stimulus("root", "flee_leader_died", 2, 1.5);
        }
    }
}

/// An app whose trees may name any action, with the game's actions.
fn app(files: &MemoryAssets) -> App {
    permissive_test_app(files)
        .with(|app| {
            app.add_systems(FixedUpdate, game.in_set(BtSystems::Act));
        })
        .build()
}

/// An app whose trees may name any action; nothing finishes them.
fn permissive_app(files: &MemoryAssets) -> App {
    permissive_test_app(files).build()
}

fn permissive_test_app(files: &MemoryAssets) -> TestApp {
    TestApp::in_memory(files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            app.world_mut()
                .get_resource_or_init::<BtRegistry>()
                .edit(|v| v.permissive = true);
        })
}

fn tree_text(name: &str) -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/").to_owned() + name)
        .unwrap()
}

fn full_states(app: &mut App) -> Vec<(u64, String)> {
    let world = app.world_mut();
    let mut q = world.query::<(&Id, &BtAgent, &BtActions, &Blackboard)>();
    let mut v: Vec<_> = q
        .iter(world)
        .map(|(id, a, ac, bb)| {
            let saved = a.save_state(bb, ac).unwrap();
            // Everything but the clock-independent bookkeeping, as text.
            (
                id.0,
                serde_json::to_string(&(
                    saved.nodes,
                    saved.actions,
                    saved.stimuli,
                    saved.rng,
                    saved.now_ms,
                    saved.blackboard,
                ))
                .unwrap(),
            )
        })
        .collect();
    v.sort_by_key(|x| x.0);
    v
}

/// Save mid-run, restore into a new app, and both run the next 300 ticks
/// the same: two trees, several seeds, random inputs.
#[test]
fn a_state_saved_mid_run_restores_into_a_new_app_and_runs_on_identically() {
    for tree in ["bench/reference.bt.ron", "squad_ai/combat.bt.ron"] {
        for seed in [1u64, 7, 42] {
            let files = MemoryAssets::new().with("t.bt.ron", &tree_text(tree));
            let mut a = app(&files);
            let h = a.world().resource::<AssetServer>().load("t.bt.ron");
            wait_loaded(&mut a, &h).unwrap();
            for i in 0..6u64 {
                let tags = if tree.contains("combat") {
                    Blackboard::new()
                        .with_tag(if i % 3 == 0 { "passenger" } else { "infantry" })
                        .with_tag("alert")
                } else {
                    Blackboard::new()
                };
                a.world_mut().spawn((
                    Id(seed * 100 + i),
                    BehaviorTree::new(h.clone()).with_seed(seed + i),
                    tags,
                ));
            }
            step(&mut a, 100);
            // Saved through JSON, as a game's save file would carry it.
            let saved: Vec<(u64, String)> = {
                let world = a.world_mut();
                let mut q = world.query::<(&Id, &BtAgent, &Blackboard, &BtActions)>();
                q.iter(world)
                    .map(|(id, ag, bb, ac)| {
                        (
                            id.0,
                            serde_json::to_string(&ag.save_state(bb, ac).unwrap()).unwrap(),
                        )
                    })
                    .collect()
            };
            let mut b = app(&files);
            let hb = b.world().resource::<AssetServer>().load("t.bt.ron");
            wait_loaded(&mut b, &hb).unwrap();
            for (id, json) in &saved {
                let s: SavedTree = serde_json::from_str(json).unwrap();
                b.world_mut().spawn((
                    Id(*id),
                    BehaviorTree::new(hb.clone()).with_seed(999),
                    RestoreTree(s),
                ));
            }
            // The restore happens at the next tick, before it runs.
            for tick in 0..300 {
                step(&mut a, 1);
                step(&mut b, 1);
                let (sa, sb) = (full_states(&mut a), full_states(&mut b));
                for ((id, x), (_, y)) in sa.iter().zip(&sb) {
                    if x != y {
                        let k = x
                            .chars()
                            .zip(y.chars())
                            .position(|(p, q)| p != q)
                            .unwrap_or(0);
                        panic!(
                            "{tree}, seed {seed}, agent {id}: differs {tick} ticks after the restore:\n  original {}\n  restored {}",
                            &x[k.saturating_sub(120)..(k + 80).min(x.len())],
                            &y[k.saturating_sub(120)..(k + 80).min(y.len())]
                        );
                    }
                }
                assert_eq!(sa.len(), sb.len());
            }
        }
    }
}

const TWO_BRANCHES: &str = r#"(
    tags: ["a", "b"],
    blackboard: {"go": true, "n": 5},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "branch_a", tags: ["a"], children: [
            Condition(check: Is("go")),
            Sequence(name: "work", children: [Action(name: "dig", action: "Dig"), Action(name: "rest", action: "Rest")]),
        ]),
        GuardSequence(name: "branch_b", tags: ["b"], children: [
            Condition(check: Is("go")),
            Sequence(name: "work", children: [
                Condition(name: "enough", check: Bb("n", Gt, 2)),
                Action(name: "build", action: "Build"),
            ]),
        ]),
        Action(name: "idle", action: "Idle"),
    ]),
)"#;

/// One branch's own definition changes while the game runs: agents on the
/// other branch keep their running action (the same slot, started when it
/// was); agents under the edited node restart cleanly; the diff names it.
/// (An edit inside a sibling of the running node no longer restarts it:
/// `an_edit_in_a_sibling_branch_keeps_the_running_agent`.)
#[test]
fn a_reload_keeps_agents_on_untouched_branches_and_restarts_the_others() {
    let files = MemoryAssets::new().with("t.bt.ron", TWO_BRANCHES);
    let mut app = permissive_app(&files);
    let h = app.world().resource::<AssetServer>().load("t.bt.ron");
    wait_loaded(&mut app, &h).unwrap();
    let mut on_a = Vec::new();
    let mut on_b = Vec::new();
    for i in 0..6 {
        let tag = if i % 2 == 0 { "a" } else { "b" };
        let e = app
            .world_mut()
            .spawn((
                BehaviorTree::new(h.clone()),
                Blackboard::new().with_tag(tag),
            ))
            .id();
        if tag == "a" {
            on_a.push(e)
        } else {
            on_b.push(e)
        }
    }
    step(&mut app, 20);
    let running = |app: &App, e: Entity| {
        app.world()
            .get::<BtActions>(e)
            .unwrap()
            .iter()
            .find(|a| a.is_running())
            .map(|a| (a.id, a.started_ms))
    };
    let before_a: Vec<_> = on_a.iter().map(|&e| running(&app, e).unwrap()).collect();
    let ticks_b: Vec<u64> = on_b
        .iter()
        .map(|&e| app.world().get::<BtAgent>(e).unwrap().state().ticks())
        .collect();
    // Edit branch_b itself (its tag rule, same meaning).
    let edited = TWO_BRANCHES.replace(
        "GuardSequence(name: \"branch_b\", tags: [\"b\"],",
        "GuardSequence(name: \"branch_b\", any_tags: [\"b\"],",
    );
    let old = compile_str("t.bt.ron", TWO_BRANCHES, &Vocabulary::permissive()).unwrap();
    let new = compile_str("t.bt.ron", &edited, &Vocabulary::permissive()).unwrap();
    let d = wyrd_bt::diff(&old, &new);
    assert_eq!(d.changed, ["root/branch_b"]);
    files.insert("t.bt.ron", &edited);
    app.world().resource::<AssetServer>().reload("t.bt.ron");
    wyrd_test_support::run_until(&mut app, "the reload", 100_000, |w| {
        w.get::<BtAgent>(on_b[0])
            .unwrap()
            .program()
            .is_some_and(|p| p.content_hash() == new.content_hash())
    });
    // The reload is said once: what changed, who kept their state.
    let log = &app.world().resource::<wyrd_bt::BtReloads>().0;
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        log[0].contains("1 changed, 0 added, 0 removed")
            && log[0].contains("3 agents kept their state, 3 restarted"),
        "{}",
        log[0]
    );
    // Agents on branch a kept their running action: same action, same start.
    let after_a: Vec<_> = on_a.iter().map(|&e| running(&app, e).unwrap()).collect();
    assert_eq!(
        after_a, before_a,
        "every agent on the untouched branch keeps its action"
    );
    assert_eq!(on_a.len(), 3);
    // Agents on branch b restarted: their tick count started over.
    for (&e, &t) in on_b.iter().zip(&ticks_b) {
        let now = app.world().get::<BtAgent>(e).unwrap().state().ticks();
        assert!(
            now < t,
            "an agent on the edited branch restarts ({now} ticks, had {t})"
        );
    }
}

/// Saved states that do not fit are refused with a clear message; the
/// agent starts fresh.
#[test]
fn bad_saved_states_are_refused_and_the_agent_starts_fresh() {
    let program = compile_str("t.bt.ron", TWO_BRANCHES, &Vocabulary::permissive()).unwrap();
    let good = wyrd_bt::AgentState::new(&program, 1).save(
        &program,
        &BtActions::default(),
        &Blackboard::default(),
        0,
    );
    let json = serde_json::to_string(&good).unwrap();
    // Truncated: not a saved state at all.
    assert!(serde_json::from_str::<SavedTree>(&json[..json.len() / 2]).is_err());
    // From another tree.
    let mut other = good.clone();
    other.tree = "other.bt.ron".into();
    let e = wyrd_bt::restore(&program, &other).unwrap_err().to_string();
    assert_eq!(e, "saved from other.bt.ron, but this agent runs t.bt.ron");
    // From a newer format.
    let mut newer = good;
    newer.format = wyrd_bt::SAVED_TREE_FORMAT + 1;
    let e = wyrd_bt::restore(&program, &newer).unwrap_err().to_string();
    assert!(e.contains("newer than this build reads"), "{e}");
    // In an app: the agent reports it and runs from the start.
    let files = MemoryAssets::new().with("t.bt.ron", TWO_BRANCHES);
    let mut app = permissive_app(&files);
    let h = app.world().resource::<AssetServer>().load("t.bt.ron");
    wait_loaded(&mut app, &h).unwrap();
    // Issue 24, 7: the blackboard saved beside the refused state is not
    // applied either (it was, and the fresh agent ran on half a save).
    other.blackboard = vec![("n".into(), Some(Value::Int(9)))];
    other.tags = vec!["b".into()];
    let e = app
        .world_mut()
        .spawn((
            BehaviorTree::new(h),
            Blackboard::new().with_tag("a").with("n", 4),
            RestoreTree(other),
        ))
        .id();
    step(&mut app, 3);
    let bb = app.world().get::<Blackboard>(e).unwrap();
    assert_eq!(bb.get("n"), Some(Value::Int(4)), "the game's value stays");
    assert!(bb.has_tag("a") && !bb.has_tag("b"), "the game's tags stay");
    let agent = app.world().get::<BtAgent>(e).unwrap();
    assert!(agent.restore_report().is_none());
    assert!(
        agent
            .problems()
            .iter()
            .any(|p| matches!(p, AgentProblem::NotRestored { .. })
                && p.to_string()
                    .contains("saved tree state not restored: saved from other.bt.ron")),
        "{:?}",
        agent.problems()
    );
    assert!(agent.state().ticks() <= 3, "it started fresh");
    assert!(app.world().get::<RestoreTree>(e).is_none());
}

/// A saved cursor past its node's children (a hand-edited or damaged save)
/// is not taken: the sequence starts over at its first child and the agent
/// runs on. A regression test: such a cursor was once restored as it was.
#[test]
fn a_cursor_past_the_children_starts_the_sequence_over() {
    let program = compile_str("t.bt.ron", TWO_BRANCHES, &Vocabulary::permissive()).unwrap();
    let mut sim = wyrd_bt::sim::Sim::new(&program, 1);
    sim.tag("a", true).unwrap();
    sim.finish("root/branch_a/work/dig", wyrd_bt::sim::Outcome::Success)
        .ok();
    assert_eq!(sim.step().active, ["root/branch_a/work/dig"]);
    sim.finish("root/branch_a/work/dig", wyrd_bt::sim::Outcome::Success)
        .unwrap();
    assert_eq!(sim.step().active, ["root/branch_a/work/rest"]);
    let mut saved = sim.state.save(&program, &sim.actions, &sim.blackboard, 0);
    let work = saved
        .nodes
        .iter_mut()
        .find(|n| n.path == "root/branch_a/work")
        .unwrap();
    assert_eq!(work.cursor, Some(1), "the sequence is at its second child");
    work.cursor = Some(9);
    // The running action stays in `sim.actions`, as restored.
    sim.state = wyrd_bt::restore(&program, &saved).unwrap().0;
    let r = sim.step();
    assert_eq!(r.active, ["root/branch_a/work/dig"], "started over");
    assert_eq!(r.started, ["root/branch_a/work/dig"]);
    sim.finish("root/branch_a/work/dig", wyrd_bt::sim::Outcome::Success)
        .unwrap();
    assert_eq!(
        sim.step().active,
        ["root/branch_a/work/rest"],
        "and runs on"
    );
}

/// The diff of a set of edits, by path.
#[test]
fn the_diff_names_added_removed_moved_and_changed_nodes() {
    let old = compile_str("t.bt.ron", TWO_BRANCHES, &Vocabulary::permissive()).unwrap();
    let edited = TWO_BRANCHES
        .replace("Bb(\"n\", Gt, 2)", "Bb(\"n\", Ge, 2)")
        .replace(
            "Action(name: \"rest\", action: \"Rest\")",
            "Action(name: \"nap\", action: \"Rest\")",
        )
        .replace(
            "Action(name: \"idle\", action: \"Idle\"),",
            "Action(name: \"idle\", action: \"Idle\"), Action(name: \"wave\", action: \"Wave\"),",
        );
    let new = compile_str("t.bt.ron", &edited, &Vocabulary::permissive()).unwrap();
    let d = wyrd_bt::diff(&old, &new);
    // A parent lists its children by name and order: renaming one changes
    // the parent too (its decisions may lead elsewhere).
    assert_eq!(
        d.to_string(),
        "~ root\n~ root/branch_a/work\n~ root/branch_b/work/enough\n+ root/branch_a/work/nap\n+ root/wave\n- root/branch_a/work/rest\n",
        "{d}"
    );
    assert!(
        d.summary().starts_with("3 changed, 2 added, 1 removed"),
        "{}",
        d.summary()
    );
}

/// Review findings: a reorder of a running sequence's children is a change
/// (the agent restarts, no action orphaned); saved values round-trip,
/// entities by index and strings that look like references or types.
#[test]
fn reorders_are_changes_and_values_round_trip() {
    let old = compile_str("t.bt.ron", TWO_BRANCHES, &Vocabulary::permissive()).unwrap();
    let swapped = TWO_BRANCHES.replace(
        "[Action(name: \"dig\", action: \"Dig\"), Action(name: \"rest\", action: \"Rest\")]",
        "[Action(name: \"rest\", action: \"Rest\"), Action(name: \"dig\", action: \"Dig\")]",
    );
    assert_ne!(swapped, TWO_BRANCHES);
    let new = compile_str("t.bt.ron", &swapped, &Vocabulary::permissive()).unwrap();
    assert_eq!(wyrd_bt::diff(&old, &new).changed, ["root/branch_a/work"]);
    // An agent digging (cursor 0 of work) is not continued on the swapped tree.
    let mut sim = wyrd_bt::sim::Sim::new(&old, 0);
    sim.tag("a", true).unwrap();
    assert_eq!(sim.step().active, ["root/branch_a/work/dig"]);
    let saved = sim.state.save(&old, &sim.actions, &sim.blackboard, 0);
    let e = wyrd_bt::restore(&new, &saved).unwrap_err();
    assert!(
        matches!(e, wyrd_bt::RestoreError::RunningNodeChanged(_)),
        "{e}"
    );

    for v in [
        Value::Entity(Entity::from_raw_u32(5).unwrap()),
        Value::from("{target}"),
        Value::from("Entity"),
        Value::Vec3(bevy::math::Vec3::new(1.0, 2.5, -3.0)),
    ] {
        let json = serde_json::to_string(&v).unwrap();
        let back: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, v, "{json}");
    }
}

/// A state saved by a settled agent may let the restored agent skip its
/// first walk, but only on the very tree it was saved on. Edited two
/// levels down in a higher-priority branch, the tree keeps the running
/// branch (its nodes did not change) and decides otherwise with the same
/// inputs: the restored agent walks, and the edited branch takes over
/// (it stayed in the old branch until some input changed).
#[test]
fn a_state_restored_on_an_edited_tree_walks_before_it_skips() {
    let before = r#"(
    blackboard: {"enemy": true, "ammo": false},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "attack", children: [
            Condition(check: Is("enemy")),
            Sequence(name: "go", children: [Condition(check: Is("ammo")), Action(name: "shoot", action: "Shoot")]),
        ]),
        Action(name: "wander", action: "Wander"),
    ]),
)"#;
    let after = before.replace(
        r#"Sequence(name: "go", children: [Condition(check: Is("ammo"))"#,
        r#"Sequence(name: "go", children: [Condition(check: Is("enemy"))"#,
    );
    let running = |app: &mut App, e: Entity| -> Vec<String> {
        let agent = app.world().get::<BtAgent>(e).unwrap();
        let program = agent.program().unwrap().clone();
        app.world()
            .get::<BtActions>(e)
            .unwrap()
            .iter()
            .filter(|s| s.is_running())
            .map(|s| program.action_of(s.node).unwrap().name().to_owned())
            .collect()
    };
    // Saved after a few settled ticks in "wander".
    let files = MemoryAssets::new().with("t.bt.ron", before);
    let mut app = permissive_app(&files);
    let h = app.world().resource::<AssetServer>().load("t.bt.ron");
    wait_loaded(&mut app, &h).unwrap();
    let e = app.world_mut().spawn(BehaviorTree::new(h)).id();
    step(&mut app, 5);
    assert_eq!(running(&mut app, e), ["Wander"]);
    let saved = crate::plugin::saved_state(&app, e);
    assert!(saved.inputs_seen);
    // Restored on the edited tree: "go" now holds, "attack" takes over.
    let files = MemoryAssets::new().with("t.bt.ron", &after);
    let mut app = permissive_app(&files);
    let h = app.world().resource::<AssetServer>().load("t.bt.ron");
    wait_loaded(&mut app, &h).unwrap();
    let e = app
        .world_mut()
        .spawn((BehaviorTree::new(h), RestoreTree(saved)))
        .id();
    step(&mut app, 3);
    assert_eq!(running(&mut app, e), ["Shoot"]);
    // Issue 24, 7: what an edited tree could not keep is a note on the
    // agent, not a problem.
    let agent = app.world().get::<BtAgent>(e).unwrap();
    assert!(agent.problems().is_empty(), "{:?}", agent.problems());
    let report = agent.restore_report().expect("restored");
    assert!(!report.not_kept.is_empty(), "{report}");
}

/// Issue 24, 5: adding an action to the `patrol` branch while the guard
/// chased (a sibling branch) restarted the agent ("root was running and
/// changed"), while `wyrd diff` listed only `~ root/patrol` and
/// `+ root/patrol/LookAround`. The running node and each ancestor are
/// unchanged, so the chase keeps its state; an edited branch of higher
/// priority still takes over on the first walk.
#[test]
fn an_edit_in_a_sibling_branch_keeps_the_running_agent() {
    let tree = r#"(
    blackboard: {"alarm": false, "calm": false},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "calm_down", children: [Condition(check: Is("calm")), Action(name: "Sit", action: "Sit")]),
        GuardSequence(name: "chase", children: [Condition(check: Is("alarm")), Action(name: "Chase", action: "Chase")]),
        Sequence(name: "patrol", children: [Action(name: "Walk", action: "Walk")]),
    ]),
)"#;
    let old = compile_str("t.bt.ron", tree, &Vocabulary::permissive()).unwrap();
    let mut sim = wyrd_bt::sim::Sim::new(&old, 0);
    sim.set("alarm", true).unwrap();
    sim.step();
    assert_eq!(sim.step().active, ["root/chase/Chase"]);
    let saved = sim.state.save(&old, &sim.actions, &sim.blackboard, 0);
    let edited = tree.replace(
        r#"[Action(name: "Walk", action: "Walk")]"#,
        r#"[Action(name: "Walk", action: "Walk"), Action(name: "LookAround", action: "LookAround")]"#,
    );
    let new = compile_str("t.bt.ron", &edited, &Vocabulary::permissive()).unwrap();
    let d = wyrd_bt::diff(&old, &new);
    assert_eq!(d.changed, ["root/patrol"]);
    let running = |p: &wyrd_bt::Program, state: &wyrd_bt::AgentState| {
        state.node(p.node("root/chase/Chase").unwrap()).status() == wyrd_bt::Status::Running
    };
    let (state, slots, _) = wyrd_bt::restore(&new, &saved).expect("the chase is kept");
    assert_eq!(slots.len(), 1, "the running Chase slot is kept");
    assert!(running(&new, &state));
    // An edit in the higher-priority branch keeps it too (the first walk
    // after the restore decides whether that branch takes over: see
    // `a_state_restored_on_an_edited_tree_walks_before_it_skips`).
    let edited = tree.replace(
        r#"Action(name: "Sit", action: "Sit")]"#,
        r#"Action(name: "Sit", action: "Sit"), Action(name: "Nap", action: "Nap")]"#,
    );
    let new = compile_str("t.bt.ron", &edited, &Vocabulary::permissive()).unwrap();
    let (state, slots, _) = wyrd_bt::restore(&new, &saved).expect("kept");
    assert_eq!(slots.len(), 1);
    assert!(running(&new, &state));
    // The running node's own parent edited: the agent restarts, named.
    let edited = tree.replace(
        r#"GuardSequence(name: "chase", children: [Condition(check: Is("alarm")),"#,
        r#"GuardSequence(name: "chase", children: [Condition(check: Is("calm")),"#,
    );
    let new = compile_str("t.bt.ron", &edited, &Vocabulary::permissive()).unwrap();
    let e = wyrd_bt::restore(&new, &saved).unwrap_err();
    assert!(e.to_string().contains("root/chase"), "{e}");
}

/// A key added to the blackboard's declaration, before the keys a
/// behavior's `Use` binds, changes no node: a node's signature names the
/// keys its place binds, not their places in the declaration. A
/// stranger's game found every node of a `Use(.., with: {"goal":
/// "{post}"})` changed by `"aaa": 3` added first: a hot reload restarted
/// the agent and a save did not restore.
#[test]
fn a_key_added_first_changes_no_node_placed_with_bindings() {
    const GUARD: &str = r#"(
    blackboard: {"post": Vec3(1.0, 0.0, 0.0), "rounds": 0},
    behaviors: [
        Sequence(name: "go_to", parameters: {"goal": Vec3}, children: [
            Action(name: "walk", action: "Walk", params: {"to": "{goal}"}),
        ]),
    ],
    root: Sequence(name: "patrol", children: [
        Use(name: "walk", behavior: "go_to", with: {"goal": "{post}"}),
        AddBlackboard(key: "rounds", by: 1),
    ]),
)"#;
    let v = Vocabulary::permissive();
    let old = compile_str("t.bt.ron", GUARD, &v).unwrap();
    let edited = GUARD.replace("blackboard: {", "blackboard: {\"aaa\": 3, ");
    let new = compile_str("t.bt.ron", &edited, &v).unwrap();
    let d = wyrd_bt::diff(&old, &new);
    assert!(
        d.changed.is_empty() && d.added.is_empty() && d.removed.is_empty(),
        "{d}"
    );
    assert_eq!(d.declarations, ["+ blackboard \"aaa\": int 3"]);
    // A guard saved walking restores onto the edited tree.
    let mut sim = wyrd_bt::sim::Sim::new(&old, 0);
    sim.step();
    assert!(sim.actions.iter().any(|a| a.is_running()), "walking");
    let saved = sim.state.save(&old, &sim.actions, &sim.blackboard, 0);
    let (_, slots, _) = wyrd_bt::restore(&new, &saved).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(slots.len(), 1, "the walk runs on");
}

/// An abort not told yet (a restart asked while the agent was not due)
/// survives a hot reload that keeps the agent's state, even when the edit
/// changed the aborted action's leaf (the second review: the kept state
/// had dropped it, and the game's clean-up never ran).
#[test]
fn an_abort_not_told_yet_survives_a_reload_that_keeps_the_state() {
    const SLOW: &str =
        r#"(root: Sequence(name: "root", children: [Action(name: "long", action: "Long")]))"#;
    let files = MemoryAssets::new().with("t.bt.ron", SLOW);
    let mut app = permissive_app(&files);
    let h = app.world().resource::<AssetServer>().load("t.bt.ron");
    wait_loaded(&mut app, &h).unwrap();
    let e = app
        .world_mut()
        .spawn((BehaviorTree::new(h).with_rate(1.0), Blackboard::new()))
        .id();
    // Its first tick, a second in (a tick each second).
    step(&mut app, 31);
    let long = ActionId::of("Long");
    let slots = |app: &App| -> Vec<wyrd_bt::ActiveAction> {
        app.world()
            .get::<BtActions>(e)
            .unwrap()
            .iter()
            .copied()
            .collect()
    };
    assert!(slots(&app).iter().any(|a| a.id == long && a.is_running()));
    // Restarted between two of its ticks: aborted, not told yet.
    app.world_mut().get_mut::<BtAgent>(e).unwrap().restart();
    step(&mut app, 1);
    assert!(
        slots(&app)
            .iter()
            .any(|a| a.id == long && a.state == ActionState::Aborted)
    );
    // The leaf edited and reloaded before the agent's next tick.
    let edited = SLOW.replace("name: \"long\"", "name: \"longer\"");
    files.insert("t.bt.ron", &edited);
    app.world().resource::<AssetServer>().reload("t.bt.ron");
    let new = compile_str("t.bt.ron", &edited, &Vocabulary::permissive()).unwrap();
    wyrd_test_support::run_until(&mut app, "the reload", 100_000, |w| {
        w.get::<BtAgent>(e)
            .unwrap()
            .program()
            .is_some_and(|p| p.content_hash() == new.content_hash())
    });
    assert!(
        slots(&app)
            .iter()
            .any(|a| a.id == long && a.state == ActionState::Aborted),
        "still to be told: {:?}",
        slots(&app)
    );
}

/// A stranger's game (issue 24, "`wyrd diff` and the reload log agree"): a
/// key added to a tree's blackboard logged "reloaded: no change" while
/// `wyrd diff` listed `+ blackboard "noise": int 0`. The diff the reload
/// log and the command print is one: declarations are part of it.
#[test]
fn a_changed_declaration_is_in_the_diff_the_reload_log_prints() {
    let old = compile_str("t.bt.ron", TWO_BRANCHES, &Vocabulary::permissive()).unwrap();
    let edited = TWO_BRANCHES
        .replace(r#""n": 5}"#, r#""n": 5, "noise": 0}"#)
        .replace(r#"tags: ["a", "b"]"#, r#"tags: ["a", "b", "c"]"#);
    let new = compile_str("t.bt.ron", &edited, &Vocabulary::permissive()).unwrap();
    let d = wyrd_bt::diff(&old, &new);
    assert!(!d.is_empty());
    assert_eq!(
        d.declarations,
        ["+ blackboard \"noise\": int 0", "+ tag \"c\""]
    );
    assert_eq!(
        d.summary(),
        "no node changed; 2 declaration(s) changed: + blackboard \"noise\": int 0, + tag \"c\""
    );
    assert_eq!(
        d.to_string(),
        "+ blackboard \"noise\": int 0\n+ tag \"c\"\n"
    );
    // With a node changed too, both.
    let both = edited.replace(r#"Bb("n", Gt, 2)"#, r#"Bb("n", Ge, 2)"#);
    let new = compile_str("t.bt.ron", &both, &Vocabulary::permissive()).unwrap();
    let d = wyrd_bt::diff(&old, &new);
    assert_eq!(
        d.summary(),
        "1 changed, 0 added, 0 removed (0 moved): root/branch_b/work/enough; 2 declaration(s) changed"
    );
    // The same tree: no change.
    assert_eq!(wyrd_bt::diff(&old, &old).summary(), "no change");
}
