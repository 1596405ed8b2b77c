//! Decision schemes, decorators, impulses, tags, stimuli: which leaves run
//! when, tick by tick.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use wyrd_bt::sim::{Outcome, Sim};
use wyrd_bt::{ActionState, Program, Status, Vocabulary, compile_str};

fn program(text: &str) -> Program {
    compile_str("test.bt.ron", text, &Vocabulary::permissive()).unwrap_or_else(|e| panic!("{e}"))
}

fn active(sim: &Sim) -> Vec<String> {
    sim.state
        .active_leaves(sim.program)
        .map(|i| sim.state.display_path(sim.program, i))
        .collect()
}

fn step(sim: &mut Sim) -> Vec<String> {
    sim.step();
    active(sim)
}

const PRIORITIZED: &str = r#"(
    blackboard: {"danger": false, "target": false},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "flee", children: [Condition(check: Is("danger")), Action(action: "Run")]),
        GuardSequence(name: "fight", children: [Condition(check: Is("target")), Action(action: "Shoot"), Action(action: "Reload")]),
        Action(name: "idle", action: "Idle"),
    ]),
)"#;

#[test]
fn prioritized_list_interrupts_a_lower_priority_on_the_next_tick() {
    let p = program(PRIORITIZED);
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["root/idle"]);
    sim.set("target", true).unwrap();
    assert_eq!(step(&mut sim), ["root/fight/Shoot"]);
    // The interrupted action is told: its slot says Aborted for one tick.
    assert!(sim.actions.iter().any(|a| a.state == ActionState::Aborted));
    sim.finish("root/fight/Shoot", Outcome::Success).unwrap();
    assert_eq!(step(&mut sim), ["root/fight/Reload"]);
    sim.set("danger", true).unwrap();
    assert_eq!(step(&mut sim), ["root/flee/Run"]);
    // Danger gone: the running flee's guard breaks, fight starts over.
    sim.set("danger", false).unwrap();
    assert_eq!(step(&mut sim), ["root/fight/Shoot"]);
    // The target gone: fight's guard breaks, idle.
    sim.set("target", false).unwrap();
    assert_eq!(step(&mut sim), ["root/idle"]);
}

#[test]
fn plain_selector_keeps_its_choice_until_it_finishes() {
    let p = program(&PRIORITIZED.replace("PrioritizedList", "Selector"));
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["root/idle"]);
    sim.set("danger", true).unwrap();
    assert_eq!(
        step(&mut sim),
        ["root/idle"],
        "no re-check of higher priorities"
    );
    sim.finish("root/idle", Outcome::Success).unwrap();
    assert_eq!(sim.step().status, Status::Success);
    assert_eq!(step(&mut sim), ["root/flee/Run"]);
}

#[test]
fn sequential_skips_irrelevant_children_and_never_revisits() {
    let p = program(
        r#"(
        blackboard: {"armed": false},
        root: Sequential(name: "root", children: [
            GuardSequence(name: "shoot", children: [Condition(check: Is("armed")), Action(action: "Shoot")]),
            Action(action: "Walk"),
            Action(action: "Talk"),
        ]),
    )"#,
    );
    let mut sim = Sim::new(&p, 0);
    assert_eq!(
        step(&mut sim),
        ["root/Walk"],
        "shoot is not relevant: skipped"
    );
    sim.set("armed", true).unwrap();
    sim.finish("root/Walk", Outcome::Failure).unwrap();
    assert_eq!(
        step(&mut sim),
        ["root/Talk"],
        "a failed child is passed, shoot is not revisited"
    );
    sim.finish("root/Talk", Outcome::Success).unwrap();
    assert_eq!(sim.step().status, Status::Success);
    // The tree repeats: a new pass, shoot is relevant now.
    assert_eq!(step(&mut sim), ["root/shoot/Shoot"]);
}

#[test]
fn sequential_looping_starts_again_at_the_end() {
    let p = program(
        r#"(root: SequentialLooping(name: "root", children: [Action(action: "A"), Action(action: "B")]))"#,
    );
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["root/A"]);
    sim.finish("root/A", Outcome::Success).unwrap();
    assert_eq!(step(&mut sim), ["root/B"]);
    sim.finish("root/B", Outcome::Success).unwrap();
    let r = sim.step();
    assert_eq!(r.status, Status::Running, "never finishes by itself");
    assert_eq!(active(&sim), ["root/A"]);
}

#[test]
fn probabilistic_is_seeded_weighted_and_only_picks_relevant_children() {
    let text = r#"(
        blackboard: {"c_ok": false},
        root: Probabilistic(name: "root", weights: [1.0, 0.0, 3.0], children: [
            Action(action: "A"), Action(action: "B"),
            GuardSequence(name: "c", children: [Condition(check: Is("c_ok")), Action(action: "C")]),
        ]),
    )"#;
    let p = program(text);
    let picks = |seed: u64, c_ok: bool| -> Vec<String> {
        let mut sim = Sim::new(&p, seed);
        sim.set("c_ok", c_ok).unwrap();
        (0..40)
            .map(|_| {
                let a = step(&mut sim);
                let path = a[0].clone();
                sim.finish(&path, Outcome::Success).unwrap();
                sim.step();
                path
            })
            .collect()
    };
    let a = picks(1, true);
    assert_eq!(a, picks(1, true), "same seed, same choices");
    assert_ne!(a, picks(2, true), "another seed, other choices");
    assert!(a.iter().all(|p| p != "root/B"), "weight 0 never chosen");
    assert!(a.iter().any(|p| p == "root/c/C") && a.iter().any(|p| p == "root/A"));
    let c = a.iter().filter(|p| *p == "root/c/C").count();
    assert!(c > 20, "C has 3/4 of the weight: {c}/40");
    assert!(
        picks(3, false).iter().all(|p| p == "root/A"),
        "C not relevant"
    );
}

#[test]
fn one_off_never_repeats_a_choice() {
    let p = program(
        r#"(root: OneOff(name: "root", random: true, children: [Action(action: "A"), Action(action: "B"), Action(action: "C")]))"#,
    );
    let mut sim = Sim::new(&p, 5);
    let mut seen = Vec::new();
    for _ in 0..3 {
        let a = step(&mut sim);
        sim.finish(&a[0], Outcome::Success).unwrap();
        assert_eq!(sim.step().status, Status::Success);
        seen.push(a[0].clone());
    }
    seen.sort();
    assert_eq!(seen, ["root/A", "root/B", "root/C"]);
    assert_eq!(sim.step().status, Status::Failure, "nothing left to choose");
}

#[test]
fn parallel_policies() {
    let p = program(
        r#"(root: Parallel(name: "root", success: One, failure: All, children: [Action(action: "A"), Action(action: "B")]))"#,
    );
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["root/A", "root/B"]);
    sim.finish("root/A", Outcome::Failure).unwrap();
    assert_eq!(
        sim.step().status,
        Status::Running,
        "one failure of two is not All"
    );
    sim.finish("root/B", Outcome::Success).unwrap();
    assert_eq!(sim.step().status, Status::Success);

    let p = program(
        r#"(root: Parallel(name: "root", children: [Action(action: "A"), Action(action: "B")]))"#,
    );
    let mut sim = Sim::new(&p, 0);
    sim.step();
    sim.finish("root/B", Outcome::Failure).unwrap();
    assert_eq!(
        sim.step().status,
        Status::Failure,
        "default: one failure fails"
    );
    assert!(
        sim.actions.iter().any(|a| a.state == ActionState::Aborted),
        "A was stopped"
    );
}

#[test]
fn decorators_invert_repeat_timeout_guard_cooldown() {
    let p =
        program(r#"(blackboard: {"x": false}, root: Invert(child: Condition(check: Is("x"))))"#);
    let mut sim = Sim::new(&p, 0);
    assert_eq!(sim.step().status, Status::Success);

    let p = program(r#"(root: Repeat(name: "r", count: 3, child: Action(action: "A")))"#);
    let mut sim = Sim::new(&p, 0);
    for round in 0..3 {
        assert_eq!(step(&mut sim), ["r/A"], "round {round}");
        sim.finish("r/A", Outcome::Success).unwrap();
        let s = sim.step().status;
        assert_eq!(
            s,
            if round == 2 {
                Status::Success
            } else {
                Status::Running
            }
        );
    }

    // Timeout: 0.1 s at 30 Hz is 3 ticks.
    let p = program(r#"(root: Timeout(name: "t", seconds: 0.1, child: Action(action: "A")))"#);
    let mut sim = Sim::new(&p, 0);
    assert_eq!(sim.step().status, Status::Running);
    assert_eq!(sim.step().status, Status::Running);
    assert_eq!(sim.step().status, Status::Running);
    assert_eq!(sim.step().status, Status::Failure);
    assert!(sim.actions.iter().any(|a| a.state == ActionState::Aborted));

    let p = program(
        r#"(blackboard: {"ok": true}, root: Guard(name: "g", when: [Is("ok")], child: Action(action: "A")))"#,
    );
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["g/A"]);
    sim.set("ok", false).unwrap();
    assert_eq!(sim.step().status, Status::Failure);
    assert!(active(&sim).is_empty());

    // Cooldown: after finishing, not relevant for 0.2 s (6 ticks).
    let p = program(
        r#"(root: PrioritizedList(name: "root", children: [
            Cooldown(name: "cd", seconds: 0.2, child: Action(action: "Special")),
            Action(action: "Basic"),
        ]))"#,
    );
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["root/cd/Special"]);
    sim.finish("root/cd/Special", Outcome::Success).unwrap();
    sim.step();
    let mut basic_ticks = 0;
    loop {
        let a = step(&mut sim);
        if a == ["root/cd/Special"] {
            break;
        }
        assert_eq!(a, ["root/Basic"]);
        basic_ticks += 1;
        assert!(basic_ticks < 20);
    }
    assert!((5..=7).contains(&basic_ticks), "{basic_ticks}");
}

#[test]
fn min_duration_prevents_dithering() {
    let text = r#"(
        blackboard: {"a": false},
        root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "hi", children: [Condition(check: Is("a")), Action(action: "High")]),
            MinDuration(name: "low", seconds: 0.2, child: Action(action: "Low")),
        ]),
    )"#;
    let p = program(text);
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["root/low/Low"]);
    sim.set("a", true).unwrap();
    // Locked for 0.2 s (6 ticks): the higher priority must wait.
    let mut waited = 0;
    while step(&mut sim) == ["root/low/Low"] {
        waited += 1;
        assert!(waited < 20);
    }
    assert_eq!(active(&sim), ["root/hi/High"]);
    assert!((4..=6).contains(&waited), "{waited}");
}

const HALO_IMPULSES: &str = r#"(
    tags: ["infantry", "driver", "passenger"],
    blackboard: {"player_in_vehicle": false, "target": true, "hurt": false, "scared": false},
    behaviors: [
        GuardSequence(name: "enter_vehicle", children: [Action(action: "GoToVehicle"), Action(action: "GetIn")]),
        GuardSequence(name: "self_preservation", children: [Action(action: "DiveToCover")]),
    ],
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "hurt", children: [Condition(check: Is("hurt")), Use(behavior: "self_preservation")]),
        PrioritizedList(name: "engage", children: [
            Impulse(name: "player_in_vehicle", behavior: "enter_vehicle", when: [Is("player_in_vehicle")]),
            Impulse(name: "scared", behavior: "self_preservation", mode: Redirect, when: [Is("scared")]),
            Impulse(name: "log_hook", behavior: "enter_vehicle", when: [Predicate("never")]),
            GuardSequence(name: "fight", children: [Condition(check: Is("target")), Action(action: "Shoot")]),
            Use(behavior: "enter_vehicle"),
        ]),
    ]),
)"#;

#[test]
fn impulse_in_place_runs_the_behavior_at_the_impulse() {
    let p = program(HALO_IMPULSES);
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["root/engage/fight/Shoot"]);
    sim.set("player_in_vehicle", true).unwrap();
    assert_eq!(
        step(&mut sim),
        ["root/engage/player_in_vehicle/enter_vehicle/GoToVehicle"],
        "the impulse outranks fight and runs enter_vehicle in its own place"
    );
    let imp = p
        .impulses()
        .position(|i| i.behavior() == "enter_vehicle")
        .unwrap();
    assert_eq!(sim.state.impulse_counts()[imp], 1);
    // The runtime lists every impulse, including the hook that never fires.
    let names: Vec<&str> = p.impulses().map(|i| i.node().name()).collect();
    assert_eq!(names, ["player_in_vehicle", "scared", "log_hook"]);
}

#[test]
fn impulse_redirect_jumps_to_the_behaviors_native_position() {
    let p = program(HALO_IMPULSES);
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["root/engage/fight/Shoot"]);
    sim.set("scared", true).unwrap();
    assert_eq!(
        step(&mut sim),
        ["root/hurt/self_preservation/DiveToCover"],
        "redirected to where self_preservation lives, not under engage"
    );
    assert!(
        sim.actions.iter().any(|a| a.state == ActionState::Aborted),
        "Shoot aborted"
    );
    // It keeps running there until it finishes.
    assert_eq!(step(&mut sim), ["root/hurt/self_preservation/DiveToCover"]);
    sim.finish("root/hurt/self_preservation/DiveToCover", Outcome::Success)
        .unwrap();
    sim.set("scared", false).unwrap();
    sim.step();
    assert_eq!(step(&mut sim), ["root/engage/fight/Shoot"]);
}

#[test]
fn tag_masked_nodes_are_skipped_without_evaluating_their_conditions() {
    let calls = Arc::new(AtomicUsize::new(0));
    let mut vocab = Vocabulary::permissive();
    let c = calls.clone();
    vocab.add_predicate("leader_dead", move |_| {
        c.fetch_add(1, Ordering::Relaxed);
        true
    });
    let p = wyrd_bt::compile_str(
        "t.bt.ron",
        r#"(
            tags: ["infantry", "driver", "passenger"],
            root: PrioritizedList(name: "root", children: [
                GuardSequence(name: "flee", not_tags: ["passenger"], children: [
                    Condition(check: Predicate("leader_dead")), Action(action: "Flee"),
                ]),
                GuardSequence(name: "vehicle_fight", tags: ["driver"], children: [Action(action: "Drive")]),
                Action(name: "ride", action: "Ride"),
            ]),
        )"#,
        &vocab,
    )
    .unwrap();
    let mut sim = Sim::new(&p, 0);
    sim.tag("passenger", true).unwrap();
    for _ in 0..10 {
        assert_eq!(
            step(&mut sim),
            ["root/ride"],
            "a passenger never considers flight"
        );
    }
    assert_eq!(
        calls.load(Ordering::Relaxed),
        0,
        "flee's condition was never evaluated"
    );
    let mut sim = Sim::new(&p, 0);
    sim.tag("driver", true).unwrap();
    assert_eq!(step(&mut sim), ["root/flee/Flee"]);
    assert!(calls.load(Ordering::Relaxed) > 0);
}

#[test]
fn a_stimulus_competes_in_place_then_expires() {
    let text = r#"(
        blackboard: {"grenade": false},
        behaviors: [GuardSequence(name: "flee_leader_died", children: [Action(action: "Flee")])],
        root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "self_preservation", children: [Condition(check: Is("grenade")), Action(action: "Dive")]),
            GuardSequence(name: "engage", children: [Action(action: "Shoot")]),
        ]),
    )"#;
    let p = program(text);
    let mut sim = Sim::new(&p, 0);
    assert_eq!(step(&mut sim), ["root/engage/Shoot"]);
    // Leader died: flee for 1.5 s, competing below self-preservation.
    sim.stimulus("root", "flee_leader_died", 1, 1.5).unwrap();
    assert_eq!(
        step(&mut sim),
        ["root/flee_leader_died/Flee"],
        "interrupts engage"
    );
    sim.set("grenade", true).unwrap();
    assert_eq!(
        step(&mut sim),
        ["root/self_preservation/Dive"],
        "but not self-preservation"
    );
    sim.set("grenade", false).unwrap();
    let mut ticks = 3;
    while step(&mut sim) == ["root/flee_leader_died/Flee"] {
        ticks += 1;
        assert!(ticks < 100);
    }
    assert_eq!(active(&sim), ["root/engage/Shoot"], "expired by itself");
    assert!(
        (44..=47).contains(&ticks),
        "1.5 s at 30 Hz is ~45 ticks, got {ticks}"
    );
    assert!(
        sim.stimulus("root/engage", "flee_leader_died", 0, 1.0)
            .is_err(),
        "not a competition"
    );
    assert!(sim.stimulus("root", "nope", 0, 1.0).is_err());
    // A duration that is not seconds above 0 was taken, and the stimulus
    // never ran (or never ended): refused, saying why.
    for seconds in [0.0, -1.5, f32::NAN, f32::INFINITY] {
        let e = sim
            .stimulus("root", "flee_leader_died", 1, seconds)
            .unwrap_err();
        assert!(e.to_string().contains("above 0"), "{seconds}: {e}");
    }
}

#[test]
fn the_same_inputs_and_seed_give_the_same_trace() {
    let p = program(HALO_IMPULSES);
    let script = wyrd_bt::sim::Script::parse(
        r#"(ticks: 12, seed: 3, events: [
            (tick: 2, set: ("player_in_vehicle", true)),
            (tick: 4, finish: ("root/engage/player_in_vehicle/enter_vehicle/GoToVehicle", Success)),
            (tick: 6, set: ("scared", true)),
        ])"#,
    )
    .unwrap();
    let a: Vec<String> = Sim::run_script(&p, &script, |_| {})
        .unwrap()
        .iter()
        .map(|r| r.to_json())
        .collect();
    let b: Vec<String> = Sim::run_script(&p, &script, |_| {})
        .unwrap()
        .iter()
        .map(|r| r.to_json())
        .collect();
    assert_eq!(a, b);
    assert!(
        a[4].contains("\"active\":[\"root/engage/player_in_vehicle/enter_vehicle/GetIn\"]"),
        "{}",
        a[4]
    );
}

#[test]
fn world_values_are_conditions() {
    let p = program(
        r#"(root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "quest", children: [
                Condition(check: World("QST_DST_TOWER_5", Ge, 5)),
                Condition(check: World("NPC_DRONE_SPK_01", Eq, true)),
                Action(action: "Reward"),
            ]),
            Action(name: "idle", action: "Idle"),
        ]))"#,
    );
    assert_eq!(p.globals().len(), 2);
    assert_eq!(
        (p.globals()[0].line, p.globals()[0].file.as_str()),
        (3, "test.bt.ron")
    );
    let mut sim = Sim::new(&p, 0);
    assert_eq!(
        step(&mut sim),
        ["root/idle"],
        "unknown world values never hold"
    );
    sim.world
        .insert("QST_DST_TOWER_5".into(), wyrd_bt::Value::Int(5));
    sim.world
        .insert("NPC_DRONE_SPK_01".into(), wyrd_bt::Value::Bool(true));
    assert_eq!(step(&mut sim), ["root/quest/Reward"]);
}

#[test]
fn trees_use_behaviors_from_other_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/trees");
    let files = wyrd_bt::load_tree_files("uses_common.bt.ron", &mut |f| {
        std::fs::read(dir.join(f)).map_err(|e| e.to_string())
    })
    .unwrap();
    assert_eq!(files.len(), 2);
    let p = wyrd_bt::compile("uses_common.bt.ron", &files, &Vocabulary::permissive()).unwrap();
    let mut sim = Sim::new(&p, 0);
    sim.set("danger", true).unwrap();
    assert_eq!(step(&mut sim), ["root/escape/flee/Run"]);
}

#[test]
fn force_success_and_failure() {
    let p = program(
        r#"(root: GuardSequence(name: "s", children: [ForceSuccess(child: Fail()), ForceFailure(name: "ff", child: Action(action: "A"))]))"#,
    );
    let mut sim = Sim::new(&p, 0);
    assert_eq!(
        step(&mut sim),
        ["s/ff/A"],
        "a forced success lets the sequence go on"
    );
    sim.finish("s/ff/A", Outcome::Success).unwrap();
    assert_eq!(sim.step().status, Status::Failure);
}
