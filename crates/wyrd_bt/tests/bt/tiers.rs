//! Tick tiers (issue 29): agents that tick every nth step, spread over the
//! steps, under a budget, keeping real time, woken by changes.

use bevy::prelude::*;
use wyrd_bt::BtStats;
use wyrd_bt::prelude::*;
use wyrd_test_support::{MemoryAssets, TestApp, step};

/// One update is one 30 Hz step.
const STEP_MS: f64 = 1000.0 / 30.0;

/// An agent waits 1.5 s, then idles; a stimulus (`panic`, inserted by the
/// tests) runs while it lasts.
const TREE: &str = r#"(
    blackboard: {"poke": false},
    behaviors: [Action(name: "panic", action: "Panic")],
    root: PrioritizedList(name: "root", children: [
        Sequence(name: "life", children: [Wait(name: "wait", seconds: 1.5), Action(name: "idle", action: "Idle")]),
    ]),
)"#;

fn app() -> (App, Handle<BtAsset>) {
    let files = MemoryAssets::new().with("t.bt.ron", TREE);
    let mut app = TestApp::in_memory(&files, 30.0)
        .plugins(BtPlugin::default())
        .with(|app| {
            app.register_bt_action("Idle").register_bt_action("Panic");
        })
        .build();
    let handle = app
        .world()
        .resource::<AssetServer>()
        .load::<BtAsset>("t.bt.ron");
    wyrd_test_support::wait_loaded(&mut app, &handle).unwrap();
    (app, handle)
}

fn spawn(app: &mut App, h: &Handle<BtAsset>, tier: Option<BtTier>) -> Entity {
    let mut e = app
        .world_mut()
        .spawn((BehaviorTree::new(h.clone()), Blackboard::new()));
    if let Some(tier) = tier {
        e.insert(tier);
    }
    e.id()
}

fn ticks(app: &App, e: Entity) -> u64 {
    app.world().get::<BtAgent>(e).unwrap().state().ticks()
}

/// A uniform mix (as many agents ticking every step as every 2nd, 4th
/// and 16th) does the same work in every step: the phases of a period get
/// the same number of agents.
#[test]
fn work_per_step_is_even_over_the_phases() {
    let (mut app, h) = app();
    for every in [1, 2, 4, 16] {
        for _ in 0..80 {
            spawn(&mut app, &h, Some(BtTier::every(every)));
        }
    }
    step(&mut app, 2);
    let per_step: Vec<u32> = (0..32)
        .map(|_| {
            step(&mut app, 1);
            app.world().resource::<BtStats>().ticked
        })
        .collect();
    let (min, max) = (
        *per_step.iter().min().unwrap(),
        *per_step.iter().max().unwrap(),
    );
    let mean = per_step.iter().sum::<u32>() as f64 / per_step.len() as f64;
    assert!(
        f64::from(max - min) <= 0.1 * mean,
        "ticks per step vary by more than 10 %: {per_step:?}"
    );
    // 80 + 40 + 20 + 5 agent ticks in each step.
    assert_eq!(mean, 145.0, "{per_step:?}");
    assert_eq!(
        app.world().resource::<BtTiers>().periods(),
        vec![(1, 80), (2, 80), (4, 80), (16, 80)]
    );
}

/// The Wait of 1.5 s and a stimulus of 1.5 s last 1.5 s of real time in
/// every tier, to the tier's step: a tiered agent's clock advances by the
/// steps since its last tick.
#[test]
fn a_wait_and_a_stimulus_last_the_same_real_time_in_every_tier() {
    for every in [1u16, 2, 4, 16] {
        let (mut app, h) = app();
        let e = spawn(&mut app, &h, Some(BtTier::every(every)));
        let period_ms = f64::from(every) * STEP_MS;
        // The wait: steps until the idle action starts.
        let mut steps = 0;
        while app
            .world()
            .get::<BtActions>(e)
            .is_none_or(|a| a.iter().next().is_none())
        {
            step(&mut app, 1);
            steps += 1;
            assert!(steps < 200, "every {every}: the wait never ends");
        }
        let first_tick = ticks(&app, e);
        assert!(first_tick > 0);
        let waited_ms = f64::from(steps) * STEP_MS;
        assert!(
            waited_ms >= 1500.0 - STEP_MS && waited_ms <= 1500.0 + 2.0 * period_ms,
            "every {every}: the 1.5 s wait took {waited_ms:.0} ms of real time"
        );
        // The stimulus, inserted now: steps until it is gone.
        app.world_mut()
            .get_mut::<BtAgent>(e)
            .unwrap()
            .insert_stimulus("root", "panic", 0, 1.5)
            .unwrap();
        let mut steps = 0;
        loop {
            step(&mut app, 1);
            steps += 1;
            let agent = app.world().get::<BtAgent>(e).unwrap();
            if agent.state().stimuli().is_empty() {
                break;
            }
            assert!(steps < 200, "every {every}: the stimulus never ends");
        }
        let lasted_ms = f64::from(steps) * STEP_MS;
        assert!(
            lasted_ms >= 1500.0 - STEP_MS && lasted_ms <= 1500.0 + 2.0 * period_ms,
            "every {every}: the 1.5 s stimulus lasted {lasted_ms:.0} ms of real time"
        );
    }
}

/// A stimulus inserted between a slow tier's ticks lasts its time from the
/// insertion, not from the agent's last tick (a new user's village, issue
/// 29: a villager ticking every 16th step, woken by changes, fled for 1.3 s
/// of a 1.5 s howl). Its time starts at the agent's first tick after the
/// insertion, taken as one step before; it is counted in steps whatever
/// the length of the agent's ticks, and ends at the first tick after it
/// passed.
#[test]
fn a_stimulus_inserted_between_tier_ticks_lasts_its_time_from_the_insertion() {
    // `poke`: the game writes the blackboard every step (the agent, woken
    // by each change, ticks every step), or only inserts the stimulus
    // (which wakes it once; then it ticks in its phase).
    for poke in [true, false] {
        let (mut app, h) = app();
        let every = 16u16;
        let e = spawn(&mut app, &h, Some(BtTier::every(every).waking_on_change()));
        step(&mut app, 2);
        // A tier tick, then half a period without one.
        let t0 = ticks(&app, e);
        let mut n = 0;
        while ticks(&app, e) == t0 {
            step(&mut app, 1);
            n += 1;
            assert!(n < 40, "the agent never ticks");
        }
        let ticked = ticks(&app, e);
        step(&mut app, 8);
        assert_eq!(ticks(&app, e), ticked, "no tick within the period");
        app.world_mut()
            .get_mut::<BtAgent>(e)
            .unwrap()
            .insert_stimulus("root", "panic", 0, 1.5)
            .unwrap();
        let mut steps = 0;
        loop {
            if poke {
                let mut bb = app.world_mut().get_mut::<Blackboard>(e).unwrap();
                bb.set("poke", steps % 2 == 0).unwrap();
            }
            step(&mut app, 1);
            steps += 1;
            if app
                .world()
                .get::<BtAgent>(e)
                .unwrap()
                .state()
                .stimuli()
                .is_empty()
            {
                break;
            }
            assert!(steps < 200, "the stimulus never ends");
        }
        let lasted_ms = f64::from(steps) * STEP_MS;
        // Ticking every step, it ends within a step of 1.5 s; in its phase,
        // at its first tick after 1.5 s.
        let late = if poke {
            STEP_MS
        } else {
            f64::from(every) * STEP_MS
        };
        assert!(
            lasted_ms >= 1500.0 - STEP_MS && lasted_ms <= 1500.0 + late + STEP_MS,
            "poke {poke}: the 1.5 s stimulus lasted {lasted_ms:.0} ms of real time"
        );
    }
}

/// Over budget, agents of the longer period tick less (each group gets
/// the share its bound needs, and the short period what the budget leaves
/// after those), the step's ticks stay within the budget, and no agent
/// misses more of its steps in a row than `BtTiers::max_missed`.
#[test]
fn over_budget_far_tiers_wait_first_within_the_bound() {
    let (mut app, h) = app();
    {
        let mut tiers = app.world_mut().resource_mut::<BtTiers>();
        tiers.budget = Some(50);
        tiers.max_missed = 3;
    }
    let near: Vec<Entity> = (0..40)
        .map(|_| spawn(&mut app, &h, Some(BtTier::every(1))))
        .collect();
    let far: Vec<Entity> = (0..160)
        .map(|_| spawn(&mut app, &h, Some(BtTier::every(4))))
        .collect();
    step(&mut app, 1);
    // Per agent: its ticks, the step of its last tick, its longest gap.
    let mut near_gaps = vec![(0u64, 0usize, 0usize); near.len()];
    let mut far_gaps = vec![(0u64, 0usize, 0usize); far.len()];
    for (agents, g) in [(&near, &mut near_gaps), (&far, &mut far_gaps)] {
        for (&e, g) in agents.iter().zip(g.iter_mut()) {
            g.0 = ticks(&app, e);
        }
    }
    let near_start: Vec<u64> = near.iter().map(|&e| ticks(&app, e)).collect();
    for s in 1..=96 {
        step(&mut app, 1);
        let ticked = app.world().resource::<BtStats>().ticked;
        let planned = app.world().resource::<BtTiers>().planned();
        assert_eq!(ticked, planned, "step {s}: every planned tick, no other");
        // The bound's shares (a quarter of the near group, a quarter of a
        // far phase of 40 or a few more) fit in 50: the budget holds.
        assert!(ticked <= 50, "step {s}: {ticked} ticks over a budget of 50");
        for (agents, g) in [(&near, &mut near_gaps), (&far, &mut far_gaps)] {
            for (&e, g) in agents.iter().zip(g.iter_mut()) {
                let t = ticks(&app, e);
                if t != g.0 {
                    g.0 = t;
                    g.1 = s;
                }
                g.2 = g.2.max(s - g.1);
            }
        }
    }
    let longest = |g: &[(u64, usize, usize)]| g.iter().map(|g| g.2).max().unwrap_or(0);
    // Every step, missing at most 3 in a row: a gap of 4; every 4th: 16.
    assert!(
        longest(&near_gaps) <= 4,
        "a near agent waited {}",
        longest(&near_gaps)
    );
    assert!(
        longest(&far_gaps) <= 16,
        "a far agent waited {}",
        longest(&far_gaps)
    );
    assert!(
        longest(&far_gaps) > 4,
        "the budget did leave far agents out ({})",
        longest(&far_gaps)
    );
    // The far tiers wait first: the near agents tick in most steps.
    for (&e, start) in near.iter().zip(near_start) {
        let n = ticks(&app, e) - start;
        assert!(n >= 80, "a near agent ticked {n} times in 96 steps");
    }
}

/// Over budget while other agents change tiers every step (a game setting
/// tiers from distance to a moving player), an agent misses at most
/// `max_missed` of its steps in a row: agents joining a group ahead of its
/// share's cursor pushed those behind it back (a stranger's crowd saw
/// gaps of 80 steps for every 16th step, bound 64, agents whose own tier
/// never changed among them); such an agent now ticks on top of the plan.
/// And the plan keeps the budget when the bound's shares fit in it (the
/// short periods took it all, and the long periods' shares came on top:
/// 145 ticks a step for a budget of 120).
#[test]
fn over_budget_with_tiers_changing_the_bound_holds() {
    let (mut app, h) = app();
    {
        let mut tiers = app.world_mut().resource_mut::<BtTiers>();
        tiers.budget = Some(60);
        tiers.max_missed = 3;
    }
    let every = |i: usize| if i < 40 { 1 } else { 16 };
    // Movers spawned between the others: changing tiers, they join groups
    // in the middle of their agents, ahead of the shares.
    let mut fixed = Vec::new();
    let mut movers = Vec::new();
    for i in 0..424 {
        fixed.push(spawn(&mut app, &h, Some(BtTier::every(every(i)))));
        if i % 2 == 0 {
            movers.push(spawn(&mut app, &h, Some(BtTier::every(16))));
        }
    }
    step(&mut app, 1);
    let mut last: Vec<(u64, usize)> = fixed.iter().map(|&e| (ticks(&app, e), 0)).collect();
    let mut worst = vec![0usize; fixed.len()];
    let mut over = 0;
    let mut extra = 0;
    for s in 1..=256usize {
        // Ten movers change period every step (1, 4, 16, 1, ...).
        for k in 0..10 {
            let e = movers[(s * 10 + k) % movers.len()];
            let period = [1, 4, 16][(s + k) % 3];
            app.world_mut().entity_mut(e).insert(BtTier::every(period));
        }
        step(&mut app, 1);
        let ticked = app.world().resource::<BtStats>().ticked;
        let planned = app.world().resource::<BtTiers>().planned();
        over = over.max(planned.saturating_sub(60));
        extra = extra.max(ticked.saturating_sub(planned));
        for (i, (&e, l)) in fixed.iter().zip(&mut last).enumerate() {
            let t = ticks(&app, e);
            if t != l.0 {
                *l = (t, s);
            }
            worst[i] = worst[i].max(s - l.1);
        }
    }
    for (i, w) in worst.iter().enumerate() {
        let bound = 4 * every(i) as usize;
        assert!(
            *w <= bound,
            "agent {i} (every {}): a gap of {w} steps, bound {bound}",
            every(i)
        );
    }
    assert_eq!(
        over, 0,
        "the bound's shares fit in the budget: no plan over it"
    );
    // Those the movers pushed back tick on top of the plan: a few a step.
    assert!(
        extra <= 20,
        "{extra} agents left out by the shares in one step"
    );
}

/// A budget turned on while agents tick holds from its first step: the
/// groups only count their agents without a budget (a list of them took
/// about 20 bytes an agent) and list them when a budget first needs it.
#[test]
fn a_budget_turned_on_later_holds_at_once() {
    let (mut app, h) = app();
    let agents: Vec<Entity> = (0..200)
        .map(|i| {
            spawn(
                &mut app,
                &h,
                Some(BtTier::every(if i < 40 { 1 } else { 4 })),
            )
        })
        .collect();
    step(&mut app, 4);
    assert_eq!(
        app.world().resource::<BtStats>().ticked,
        80,
        "no budget: all due"
    );
    app.world_mut().resource_mut::<BtTiers>().budget = Some(50);
    let before: Vec<u64> = agents.iter().map(|&e| ticks(&app, e)).collect();
    for s in 1..=16 {
        step(&mut app, 1);
        let ticked = app.world().resource::<BtStats>().ticked;
        let planned = app.world().resource::<BtTiers>().planned();
        assert_eq!(ticked, planned, "step {s}");
        assert!(
            ticked <= 50 + 3,
            "step {s}: {ticked} ticks over a budget of 50"
        );
    }
    // Within the bound (every 4th step, at most 3 missed): all ticked.
    assert!(
        agents.iter().zip(before).all(|(&e, b)| ticks(&app, e) > b),
        "every agent ticked within 16 steps"
    );
}

/// A change to the blackboard of an agent that wakes on changes ticks it
/// at the next step; one that does not wake waits for its phase.
#[test]
fn a_change_wakes_a_slow_agent_at_the_next_step() {
    let (mut app, h) = app();
    let waking = spawn(&mut app, &h, Some(BtTier::every(16).waking_on_change()));
    let sleeping = spawn(&mut app, &h, Some(BtTier::every(16)));
    // Both have ticked once, then sleep.
    step(&mut app, 20);
    let (w, s) = (ticks(&app, waking), ticks(&app, sleeping));
    step(&mut app, 1);
    assert_eq!(
        (ticks(&app, waking), ticks(&app, sleeping)),
        (w, s),
        "a quiet step"
    );
    for e in [waking, sleeping] {
        app.world_mut()
            .get_mut::<Blackboard>(e)
            .unwrap()
            .set("poke", true)
            .unwrap();
    }
    step(&mut app, 1);
    assert_eq!(ticks(&app, waking), w + 1, "woken by the write");
    assert_eq!(ticks(&app, sleeping), s, "not woken");
    // `wake` from game code, whatever the tier's setting.
    app.world_mut().resource_mut::<BtTiers>().wake(sleeping);
    step(&mut app, 1);
    assert_eq!(ticks(&app, sleeping), s + 1, "woken by the game");
}

/// The flight recorder of an agent ticking every 4th step records each
/// tick's step (4 steps of time), and the recording replays exactly: its
/// Wait and stimulus keep the real time they kept in the game.
#[test]
fn a_tiered_agent_records_its_steps_and_replays_exactly() {
    let (mut app, h) = app();
    let e = spawn(&mut app, &h, Some(BtTier::every(4)));
    app.world_mut().get_mut::<BtAgent>(e).unwrap().record(64);
    step(&mut app, 30);
    app.world_mut()
        .get_mut::<BtAgent>(e)
        .unwrap()
        .insert_stimulus("root", "panic", 0, 0.5)
        .unwrap();
    step(&mut app, 90);
    let agent = app.world().get::<BtAgent>(e).unwrap();
    let rec = agent.recording().unwrap();
    assert!(rec.ticks.len() >= 25, "about one tick in 4 of 120 steps");
    assert!(
        rec.ticks.iter().skip(1).all(|t| t.step_us == 133_332),
        "each tick after the first is 4 steps of 33,333 us"
    );
    assert!(rec.ticks.iter().any(|t| !t.stimuli.is_empty()));
    let program = agent.program().unwrap().clone();
    let json = serde_json::to_string(&rec).unwrap();
    let rec: wyrd_bt::Recording = serde_json::from_str(&json).unwrap();
    let report = wyrd_bt::sim::replay(&program, &rec, false).unwrap();
    assert_eq!(report.divergence, None);
    // Durations are counted in the schedule's steps (the stimulus keeps
    // real time), which the recording says per tick.
    assert!(
        rec.ticks.iter().skip(1).all(|t| t.count_us == 33_333),
        "counted in steps of 33,333 us"
    );
    // A script ticks at one rate: a tiered recording is refused, saying why.
    let err = wyrd_bt::sim::recording_script(&program, &rec, false).unwrap_err();
    assert!(err.to_string().contains("tick tier"), "{err}");
}

/// A new tier, or the tier removed, still counts the steps since the
/// agent's last tick: its clock keeps real time across the change (the
/// step count lived on the tier, and a new tier started it over).
#[test]
fn a_changed_or_removed_tier_keeps_the_time_since_the_last_tick() {
    let now_ms = |app: &App, e| app.world().get::<BtAgent>(e).unwrap().state().now_ms();
    for removed in [false, true] {
        let (mut app, h) = app();
        let e = spawn(&mut app, &h, Some(BtTier::every(16)));
        // Up to its first tick, then 8 steps without one.
        while ticks(&app, e) == 0 {
            step(&mut app, 1);
        }
        let (before, mut steps) = (now_ms(&app, e), 8);
        step(&mut app, 8);
        if removed {
            app.world_mut().entity_mut(e).remove::<BtTier>();
        } else {
            app.world_mut().entity_mut(e).insert(BtTier::every(1));
        }
        step(&mut app, 1);
        steps += 1;
        let advanced = f64::from(now_ms(&app, e) - before);
        let real = f64::from(steps) * STEP_MS;
        assert!(
            (advanced - real).abs() <= 1.0,
            "removed {removed}: the clock advanced {advanced} ms over {real:.0} ms of steps"
        );
    }
}

/// Each agent ticks once per period, whether its period's groups have
/// tables of their own (powers of two up to 16) or not (3, 5, 32), and an
/// agent given a new tier (with or without a table) or none ticks on its
/// new period only: moved out of its old group's table, never twice in a
/// step.
#[test]
fn every_period_ticks_once_per_period_with_or_without_a_table() {
    let (mut app, h) = app();
    const STEPS: u64 = 480;
    let periods = [1u16, 2, 3, 4, 5, 8, 16, 32];
    let agents: Vec<(u16, Entity)> = periods
        .iter()
        .flat_map(|&p| [p; 3])
        .map(|p| (p, spawn(&mut app, &h, Some(BtTier::every(p)))))
        .collect();
    step(&mut app, 2);
    let before: Vec<u64> = agents.iter().map(|&(_, e)| ticks(&app, e)).collect();
    step(&mut app, STEPS as usize);
    for (&(every, e), b) in agents.iter().zip(before) {
        assert_eq!(
            ticks(&app, e) - b,
            STEPS / u64::from(every),
            "every {every}"
        );
    }
    let moved = agents[9].1;
    for (tier, per) in [(Some(3), 3), (Some(16), 16), (Some(2), 2), (None, 1)] {
        match tier {
            Some(every) => app
                .world_mut()
                .entity_mut(moved)
                .insert(BtTier::every(every)),
            None => app.world_mut().entity_mut(moved).remove::<BtTier>(),
        };
        step(&mut app, 32);
        let b = ticks(&app, moved);
        step(&mut app, STEPS as usize);
        assert_eq!(ticks(&app, moved) - b, STEPS / per, "moved to {tier:?}");
    }
}

/// As a game sets tiers (README: from distance, through `Commands`, only
/// when they change): agents spawned by a system, their tier changed by
/// another, tick on the tier they have, whatever table it puts them in.
#[test]
fn tiers_set_by_a_games_systems_through_commands() {
    #[derive(Component)]
    struct Far(bool);
    #[derive(Resource)]
    struct Tree(Handle<BtAsset>);
    let (mut app, h) = app();
    app.insert_resource(Tree(h));
    // (The app has started: spawned by an `Update` system, once.)
    app.add_systems(
        Update,
        |mut commands: Commands, tree: Res<Tree>, mut done: Local<bool>| {
            if std::mem::replace(&mut *done, true) {
                return;
            }
            for i in 0..8 {
                commands.spawn((
                    BehaviorTree::new(tree.0.clone()),
                    Blackboard::new(),
                    Far(i % 2 == 0),
                ));
            }
        },
    );
    app.add_systems(
        Update,
        |mut commands: Commands, agents: Query<(Entity, &Far, Option<&BtTier>)>| {
            for (e, far, tier) in &agents {
                let every = if far.0 { 16 } else { 4 };
                if tier.is_none_or(|t| t.period() != every) {
                    commands.entity(e).insert(BtTier::every(every));
                }
            }
        },
    );
    step(&mut app, 40);
    let agents: Vec<(Entity, bool)> = app
        .world_mut()
        .query::<(Entity, &Far)>()
        .iter(app.world())
        .map(|(e, f)| (e, f.0))
        .collect();
    assert_eq!(agents.len(), 8);
    let count = |app: &App| -> Vec<u64> { agents.iter().map(|&(e, _)| ticks(app, e)).collect() };
    let before = count(&app);
    step(&mut app, 64);
    for ((&(_, far), b), a) in agents.iter().zip(before).zip(count(&app)) {
        assert_eq!(a - b, if far { 4 } else { 16 }, "far: {far}");
    }
    // Near and far swap: each ticks on its new period.
    for (_, mut far) in app
        .world_mut()
        .query::<(Entity, &mut Far)>()
        .iter_mut(app.world_mut())
    {
        far.0 = !far.0;
    }
    step(&mut app, 32);
    let before = count(&app);
    step(&mut app, 64);
    for ((&(_, far), b), a) in agents.iter().zip(before).zip(count(&app)) {
        assert_eq!(a - b, if far { 16 } else { 4 }, "swapped, was far: {far}");
    }
}

/// An agent's tier removed after the game reset `BtTiers` (a new
/// resource: its groups are gone) ticks once a step, as an untiered agent:
/// the group table's markers come off with the tier whatever became of
/// the plan.
#[test]
fn a_tier_removed_after_the_plan_was_reset_ticks_once_a_step() {
    let (mut app, h) = app();
    let agent = spawn(&mut app, &h, Some(BtTier::every(4)));
    step(&mut app, 8);
    app.insert_resource(BtTiers::default());
    app.world_mut().entity_mut(agent).remove::<BtTier>();
    // Tiered agents of the new plan: its tables' steps come round.
    for _ in 0..4 {
        spawn(&mut app, &h, Some(BtTier::every(4)));
    }
    step(&mut app, 2);
    let before = ticks(&app, agent);
    step(&mut app, 32);
    assert_eq!(ticks(&app, agent) - before, 32);
}

/// Issue 29's "memory ≤ 256 B per agent", counted as BENCH_REFERENCE.md
/// counts memory (bytes of tree state per agent), for an agent of a
/// crowd on the plugin path: its `BtAgent`, `BtActions` and `BtTier`
/// components and its tree state's heap, on the reference tree (296 bytes
/// before: a fat pointer, two counters, a padded clock, 16-byte slots).
/// The game's blackboard and Bevy's own bookkeeping are not tree state.
/// Without a budget the tiers keep nothing else per agent (the groups
/// count their agents); with one, each group lists them (about 20 bytes
/// an agent on `BtTiers`' heap).
#[test]
fn a_tiered_agent_of_the_reference_tree_keeps_at_most_256_bytes_of_tree_state() {
    use std::mem::size_of;
    let text = include_str!("../../../../assets/bench/reference.bt.ron");
    let program =
        wyrd_bt::compile_str("reference.bt.ron", text, &wyrd_bt::Vocabulary::permissive())
            .expect("the reference tree compiles");
    let state = wyrd_bt::AgentState::new(&program, 1);
    // Up to four slots live in the component; more would be on the heap.
    assert!(program.action_capacity() <= 4);
    let inline = size_of::<BtAgent>() + size_of::<BtActions>() + size_of::<BtTier>();
    let bytes = inline + state.heap_bytes();
    assert!(
        bytes <= 256,
        "{bytes} bytes: BtAgent {}, BtActions {}, BtTier {}, heap {}",
        size_of::<BtAgent>(),
        size_of::<BtActions>(),
        size_of::<BtTier>(),
        state.heap_bytes()
    );
}
