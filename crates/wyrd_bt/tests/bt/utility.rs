//! Utility selection (issue 29) beyond the conformance cases: scores are
//! evaluated only when an input changed, ties follow the agent's seed, a
//! decision allocates nothing, and the flight recorder keeps each
//! decision's scores and replays utility trees exactly.

use std::path::Path;

use bevy::prelude::*;
use wyrd_bt::prelude::*;
use wyrd_bt::sim::Sim;
use wyrd_bt::{Program, SplitMix64, UtilityReason, Vocabulary, compile_str};
use wyrd_test_support::{MemoryAssets, TestApp, step};

fn villager_text() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/utility/villager.bt.ron");
    std::fs::read_to_string(path).unwrap()
}

fn compile(text: &str) -> Program {
    compile_str("u.bt.ron", text, &Vocabulary::permissive()).unwrap_or_else(|e| panic!("{e}"))
}

/// A Utility without a commitment time decides only when something it
/// reads changed: ticks with unchanged inputs skip the walk (no scores in
/// the trace), and a changed input is scored in the next tick. (`Sim`
/// always walks; this is the game's tick.)
#[test]
fn scores_are_evaluated_only_when_an_input_changed() {
    let p = compile(
        r#"(blackboard: {"hunger": 0.9, "fatigue": 0.2}, root: Utility(name: "root", children: [
            Action(name: "eat", action: "Eat", score: (consider: [(input: Bb("hunger"))])),
            Action(name: "sleep", action: "Sleep", score: (consider: [(input: Bb("fatigue"))])),
        ]))"#,
    );
    let mut state = wyrd_bt::AgentState::new(&p, 1);
    let mut bb = Blackboard::new();
    bb.bind(&p);
    let mut actions = BtActions::default();
    let mut trace = wyrd_bt::TickTrace::default();
    let mut tick = |state: &mut wyrd_bt::AgentState, bb: &mut Blackboard| {
        let env = wyrd_bt::TickEnv::default();
        wyrd_bt::tick_agent_traced(&p, state, bb, &mut actions, 33, env, Some(&mut trace));
        trace.decisions().map(|d| d.choice).collect::<Vec<_>>()
    };
    assert_eq!(tick(&mut state, &mut bb).len(), 1, "the first tick decides");
    let mut decided = 0;
    for _ in 0..10 {
        decided += tick(&mut state, &mut bb).len();
    }
    assert!(decided <= 1, "{decided} of 10 quiet ticks decided");
    bb.set("hunger", 0.5).unwrap();
    bb.set("fatigue", 1.0).unwrap();
    let d = tick(&mut state, &mut bb);
    assert_eq!(d.len(), 1);
    assert!(matches!(d[0].reason, UtilityReason::Beat { .. }), "{d:?}");
    assert_eq!(p.path(d[0].chosen), "root/sleep");
}

/// A new user's crowd (issue 29's utility): a `commit` made the tree walk
/// every tick, 2.7 times the tree's time, though while committed the
/// running child is kept whatever the scores. A quiet tick now skips its
/// walk unless a commitment the last walk kept has ended since, and the
/// decisions are those of a tree that always walks, tick for tick:
/// hunger rises past fatigue during the commitment, and sleep takes over
/// at the first tick after it ends, as before.
#[test]
fn a_committed_utility_skips_quiet_ticks_and_decides_as_if_it_walked() {
    let p = compile(
        r#"(blackboard: {"hunger": 0.9, "fatigue": 0.2}, root: Utility(name: "root", margin: 0.1, commit: 0.5, children: [
            Action(name: "eat", action: "Eat", score: (consider: [(input: Bb("hunger"))])),
            Action(name: "sleep", action: "Sleep", score: (consider: [(input: Bb("fatigue"))])),
        ]))"#,
    );
    let run = |always_walk: bool| {
        let mut state = wyrd_bt::AgentState::new(&p, 1);
        let mut bb = Blackboard::new();
        bb.bind(&p);
        let mut actions = BtActions::default();
        let mut trace = wyrd_bt::TickTrace::default();
        let mut lines = Vec::new();
        let mut walks = 0;
        for tick in 1..=40 {
            if tick == 3 {
                bb.set("hunger", 0.1).unwrap();
                bb.set("fatigue", 0.9).unwrap();
            }
            let env = wyrd_bt::TickEnv {
                always_walk,
                ..Default::default()
            };
            wyrd_bt::tick_agent_traced(
                &p,
                &mut state,
                &mut bb,
                &mut actions,
                33,
                env,
                Some(&mut trace),
            );
            if state.last_tick() == Some(wyrd_bt::TickKind::Walked) {
                walks += 1;
            }
            let running: Vec<String> = actions
                .iter()
                .filter(|a| a.is_running())
                .map(|a| p.path(a.leaf()).to_owned())
                .collect();
            lines.push((tick, running));
        }
        (lines, walks)
    };
    let (walked, all) = run(true);
    let (skipping, walks) = run(false);
    assert_eq!(skipping, walked, "the same decisions, tick for tick");
    assert_eq!(walked[0].1, ["root/eat"]);
    assert_eq!(
        walked[39].1,
        ["root/sleep"],
        "sleep took over after the commitment"
    );
    let took_over = walked.iter().find(|(_, r)| r == &["root/sleep"]).unwrap().0;
    assert!(
        took_over > 3,
        "not before the commitment ended: {took_over}"
    );
    // The first ticks, the changed inputs, the end of the commitment, the
    // takeover and the tick after it (a halted action unsettles the walk):
    // a handful of the 40 a tree that always walks takes (and it took all
    // 40 before, the commitment counted as time).
    assert_eq!(all, 40);
    assert!(walks <= 6, "{walks} walks");
}

/// The review of the commitment's skip: a walk that draws a random number
/// (challengers tied) and keeps the running child could not be stood for
/// by a skipped tick, which draws nothing: the agent's random numbers
/// parted from a tree that walks every tick. Such a walk now counts as
/// unsettled (the next tick walks): the random state, tick for tick, is
/// that of a tree that always walks.
#[test]
fn tied_challengers_that_fail_keep_the_random_numbers_of_a_walking_tree() {
    wyrd_bt::bt_action! {
        /// Goes to an entity (fails without starting while none is set).
        pub struct GoTo { /// Where.
            pub to: Entity }
    }
    let mut vocab = Vocabulary::permissive();
    vocab.add_action_type::<GoTo>();
    let p = compile_str(
        "u.bt.ron",
        r#"(blackboard: {"tgt": Entity}, root: Utility(name: "root", margin: 0.1, children: [
            Action(name: "work", action: "Work", score: (weight: 0.5)),
            Action(name: "a", action: "GoTo", params: {"to": "{tgt}"}, score: (weight: 0.9)),
            Action(name: "b", action: "GoTo", params: {"to": "{tgt}"}, score: (weight: 0.9)),
        ]))"#,
        &vocab,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let run = |always_walk: bool| {
        let mut state = wyrd_bt::AgentState::new(&p, 7);
        let mut bb = Blackboard::new();
        bb.bind(&p);
        let mut actions = BtActions::default();
        (1..=20)
            .map(|_| {
                let env = wyrd_bt::TickEnv {
                    always_walk,
                    ..Default::default()
                };
                wyrd_bt::tick_agent(&p, &mut state, &mut bb, &mut actions, 33, env);
                let snapshot = state.snapshot();
                (
                    snapshot.rng,
                    actions.iter().map(|a| a.leaf()).collect::<Vec<_>>(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (skipping, walking) = (run(false), run(true));
    assert_eq!(skipping, walking);
}

/// Equal scores: the agent's seeded random numbers pick, so two seeds may
/// pick differently and one seed always picks the same.
#[test]
fn ties_follow_the_agents_seed() {
    let p = compile(
        r#"(root: Utility(name: "root", children: [
            Action(name: "left", action: "Left", score: (weight: 0.5)),
            Action(name: "right", action: "Right", score: (weight: 0.5)),
        ]))"#,
    );
    let pick = |seed: u64| Sim::new(&p, seed).step().active;
    let picks: std::collections::BTreeSet<Vec<String>> = (0..32).map(pick).collect();
    assert_eq!(picks.len(), 2, "{picks:?}");
    for seed in 0..32 {
        assert_eq!(pick(seed), pick(seed), "seed {seed}");
    }
    assert!(Sim::new(&p, 3).step().utility[0].why.ends_with(", tie"));
}

/// Ticks of a utility tree allocate nothing: its scores live on the
/// stack (counted by the test binary's allocator on this thread only).
#[test]
fn a_utility_tick_allocates_nothing() {
    let p = compile(&villager_text());
    let mut state = wyrd_bt::AgentState::new(&p, 5);
    let mut bb = Blackboard::new();
    bb.bind(&p);
    let mut actions = BtActions::default();
    actions.reserve(p.action_capacity());
    let mut rng = SplitMix64::new(9);
    let keys = ["hunger", "fatigue", "danger"].map(|k| p.bb_key(k).unwrap());
    let mut tick =
        |state: &mut wyrd_bt::AgentState, bb: &mut Blackboard, actions: &mut BtActions| {
            let k = keys[rng.below(3) as usize];
            bb.set_index(k, wyrd_bt::Value::Float(rng.below(101) as f64 / 100.0));
            let env = wyrd_bt::TickEnv::default();
            wyrd_bt::tick_agent(&p, state, bb, actions, 33, env);
        };
    for _ in 0..100 {
        tick(&mut state, &mut bb, &mut actions);
    }
    let allocations = crate::count_allocations(|| {
        for _ in 0..1_000 {
            tick(&mut state, &mut bb, &mut actions);
        }
    });
    assert_eq!(allocations, 0);
}

/// The villager in a game: its needs change every step (a fixed
/// sequence), its actions run until replaced.
fn villager_app() -> (App, Entity) {
    let files = MemoryAssets::new().with("villager.bt.ron", &villager_text());
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            for a in ["Flee", "Eat", "Sleep", "WalkToWork", "Work", "Idle"] {
                app.register_bt_action(a);
            }
            app.add_systems(Update, change_needs);
        })
        .build();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<BtAsset>("villager.bt.ron");
    wyrd_test_support::wait_loaded(&mut app, &handle).unwrap();
    let e = app
        .world_mut()
        .spawn((BehaviorTree::new(handle), Blackboard::new()))
        .id();
    (app, e)
}

fn change_needs(mut agents: Query<&mut Blackboard>, mut n: Local<u64>) {
    *n += 1;
    let mut rng = SplitMix64::new(*n);
    for mut bb in &mut agents {
        if rng.below(3) == 0 {
            let key = ["hunger", "fatigue", "danger"][rng.below(3) as usize];
            let _ = bb.set(key, rng.below(101) as f64 / 100.0);
        }
    }
}

/// The recorder keeps every decision with its scores and reason; the
/// recording (through JSON) replays exactly; a recorded score changed by
/// hand is found where it differs.
#[test]
fn the_recorder_keeps_the_scores_and_replays_a_utility_tree_exactly() {
    let (mut app, e) = villager_app();
    app.world_mut().get_mut::<BtAgent>(e).unwrap().record(400);
    step(&mut app, 300);
    let agent = app.world().get::<BtAgent>(e).unwrap();
    let rec = agent.recording().unwrap();
    let program = agent.program().unwrap().clone();
    let choices: Vec<&wyrd_bt::RecordedChoice> =
        rec.ticks.iter().flat_map(|t| &t.utility).collect();
    // A decision per walked tick: quiet ticks skip their walk, committed
    // or not (they walked every tick while a commitment counted as time).
    let skipped = rec.ticks.iter().filter(|t| t.skipped).count();
    assert!(skipped > 0, "quiet ticks skip");
    assert!(
        rec.ticks.iter().all(|t| t.skipped == t.utility.is_empty()),
        "a decision in every walked tick, none in a skipped one"
    );
    assert_eq!(choices.len() + skipped, 300);
    assert!(choices.iter().all(|c| c.scores.len() == 5));
    assert!(
        choices.iter().filter(|c| c.why.starts_with("beat")).count() >= 3,
        "the needs changed the choice"
    );
    assert!(choices.iter().any(|c| c.why == "committed"));
    let json = serde_json::to_string(&rec).unwrap();
    assert!(json.contains("\"utility\""));
    let rec: wyrd_bt::Recording = serde_json::from_str(&json).unwrap();
    let report = wyrd_bt::sim::replay(&program, &rec, false).unwrap();
    assert_eq!(report.divergence, None);

    let mut forged = rec;
    let t = forged
        .ticks
        .iter_mut()
        .find(|t| !t.utility.is_empty())
        .unwrap();
    let tick = t.tick;
    t.utility[0].scores[0].1 = Some(0.123);
    let report = wyrd_bt::sim::replay(&program, &forged, false).unwrap();
    let d = report.divergence.expect("a changed score diverges");
    assert_eq!(d.tick, tick);
    assert!(d.what.starts_with("utility: recorded"), "{}", d.what);
}
