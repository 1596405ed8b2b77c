//! bevy_behave 0.5 (bevy 0.18) on the reference tree and load of
//! `BENCH_REFERENCE.md`, for `benches/compare.sh`.
//!
//! ```text
//! wyrd-peer-bevy-behave [AGENTS...] [--reps R] [--ticks T]
//! ```
//! Agent counts default to 1000 10000 100000. For each count: a headless
//! `App` (MinimalPlugins + `BehavePlugin` with synchronous ticking in
//! `Update`), one `app.update()` per tick, 30 warm-up ticks, then R (default
//! 5) repetitions of T ticks (default 300000 / N, clamped to 10..=300). One
//! line per count on stdout:
//!
//! ```text
//! bevy_behave <agents> <ns per agent-tick, median of the repetitions>
//!     <completed actions per agent-tick> <heap allocations per agent-tick>
//!     <heap bytes per agent>
//! ```
//!
//! The load is the one of `crates/wyrd_bt/benches/support/load.rs`, draw for
//! draw: SplitMix64 seeded with 42, inputs drawn agent by agent in `INPUTS`
//! order, then every tick N/10 events (agent, input, new value).
//!
//! How the reference tree maps onto bevy_behave:
//! - `?x` is `Behave::trigger(Cond(x))`; one global observer answers at once
//!   with `ctx.success()` / `ctx.failure()` from the agent's `Inputs`.
//! - `!A(d)` is `Behave::spawn_named("A", Act { left: d })`: bevy_behave
//!   spawns a task entity with `Act` and a `BehaveCtx`; `run_actions` counts
//!   `left` down once per tick (before the trees tick) and reports
//!   `ctx.success()` when it reaches 0. An action started on tick t succeeds
//!   at the start of tick t + d, so it occupies d ticks, as in Wyrd's bench.
//! - selector / prioritized list are `Behave::Fallback`, sequence is
//!   `Behave::Sequence`, not is `Behave::Invert`, and the whole tree sits
//!   under `Behave::Forever` (the reference tree repeats forever).
//!
//! What differs from the reference tree (the library has no equivalent):
//! - bevy_behave has no reactive selector (no "prioritized list"): a Fallback
//!   or Sequence remembers its running child and does not re-check earlier
//!   children while it runs. So a higher-priority branch whose guard becomes
//!   true does NOT interrupt a running lower one, and a running branch whose
//!   own guard breaks does NOT stop: priorities are re-checked only when the
//!   running branch ends and `Forever` restarts the root. A task entity that
//!   is running is not ticked at all (the tree sleeps until it reports).
//!   This is slightly less work per tick than the reference tree asks for,
//!   and the completed-actions figure differs from ~0.31 for that reason.
//! - `Forever` is one extra node (the reference root repeats implicitly).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Instant;

use bevy::prelude::*;
use bevy_behave::prelude::*;

// ---------------------------------------------------------------------------
// Heap accounting (as in crates/wyrd_bt/examples/bench_tick.rs, plus live
// bytes for the heap-per-agent figure).

struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);
static LIVE_BYTES: AtomicI64 = AtomicI64::new(0);

// SAFETY: forwards every call to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        LIVE_BYTES.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// ---------------------------------------------------------------------------
// The load (copied from crates/wyrd_bt/benches/support/load.rs).

/// Input names and the probability each is true.
const INPUTS: [(&str, f64); 10] = [
    ("grenade_near", 0.10),
    ("health_low", 0.15),
    ("leader_dead", 0.10),
    ("has_target", 0.70),
    ("in_vehicle", 0.15),
    ("target_visible", 0.60),
    ("cover_available", 0.50),
    ("target_in_range", 0.50),
    ("under_fire", 0.40),
    ("has_last_known", 0.50),
];

const GRENADE_NEAR: usize = 0;
const HEALTH_LOW: usize = 1;
const LEADER_DEAD: usize = 2;
const HAS_TARGET: usize = 3;
const IN_VEHICLE: usize = 4;
const TARGET_VISIBLE: usize = 5;
const COVER_AVAILABLE: usize = 6;
const TARGET_IN_RANGE: usize = 7;
const UNDER_FIRE: usize = 8;
const HAS_LAST_KNOWN: usize = 9;

/// SplitMix64.
struct Rng(u64);

impl Rng {
    /// The next 64 random bits.
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const WARMUP_TICKS: u32 = 30;
const DEFAULT_REPS: u32 = 5;
const DEFAULT_SIZES: [usize; 3] = [1_000, 10_000, 100_000];

// ---------------------------------------------------------------------------
// The game side: inputs, conditions, actions.

/// An agent's 10 input bools (on the agent entity, the trees' target).
#[derive(Component)]
struct Inputs([bool; 10]);

/// Trigger payload of a condition node: the input it reads.
#[derive(Clone, Copy, Debug)]
struct Cond(usize);

/// Component of an action's task entity: ticks left before it succeeds.
#[derive(Component, Clone, Debug)]
struct Act {
    left: u32,
}

/// Actions completed so far.
#[derive(Resource, Default)]
struct Completed(u64);

/// The agents (in spawn order) and the event generator.
#[derive(Resource)]
struct Load {
    agents: Vec<Entity>,
    rng: Rng,
}

/// Answers a condition at once from the target agent's inputs.
fn on_cond(trigger: On<BehaveTrigger<Cond>>, inputs: Query<&Inputs>, mut commands: Commands) {
    let ev = trigger.event();
    let ctx = ev.ctx();
    let Cond(input) = *ev.inner();
    let holds = inputs
        .get(ctx.target_entity())
        .is_ok_and(|agent| agent.0[input]);
    if holds {
        commands.trigger(ctx.success());
    } else {
        commands.trigger(ctx.failure());
    }
}

/// One tick's input events: N/10 draws, each re-drawing one input of one
/// agent with its probability (same draws as `load::draw_events`).
fn sense(mut load: ResMut<Load>, mut inputs: Query<&mut Inputs>) {
    let Load { agents, rng } = &mut *load;
    let n = agents.len();
    for _ in 0..n / 10 {
        let agent = (rng.next() % n as u64) as usize;
        let input = (rng.next() % 10) as usize;
        let value = rng.unit() < INPUTS[input].1;
        if let Ok(mut i) = inputs.get_mut(agents[agent]) {
            i.0[input] = value;
        }
    }
}

/// The game's action system: every running action counts one tick down and
/// reports success when it has run its ticks.
fn run_actions(
    mut tasks: Query<(&mut Act, &BehaveCtx)>,
    mut completed: ResMut<Completed>,
    mut commands: Commands,
) {
    for (mut act, ctx) in &mut tasks {
        if act.left == 0 {
            // Reported already; bevy_behave despawns the entity later.
            continue;
        }
        act.left -= 1;
        if act.left == 0 {
            commands.trigger(ctx.success());
            completed.0 += 1;
        }
    }
}

// ---------------------------------------------------------------------------
// The reference tree.

fn is(input: usize) -> Behave {
    Behave::trigger(Cond(input))
}

fn action(name: &'static str, ticks: u32) -> Behave {
    Behave::spawn_named(name, Act { left: ticks })
}

/// The reference tree of BENCH_REFERENCE.md, as close as bevy_behave allows:
/// both prioritized lists are plain (non-reactive) Fallbacks, see the top of
/// this file. 14 conditions, 15 actions, 11 sequences, 5 fallbacks, 1 invert,
/// plus the `Forever` root.
fn reference_tree() -> Tree<Behave> {
    behave! {
        Behave::Forever => {
            // root: prioritized-list (here: a Fallback, re-checked only when
            // the running branch ends and Forever restarts it)
            Behave::Fallback => {
                // self_preservation
                Behave::Sequence => {
                    Behave::Fallback => { is(GRENADE_NEAR), is(HEALTH_LOW) },
                    Behave::Fallback => {
                        Behave::Sequence => { is(COVER_AVAILABLE), action("DiveToCover", 2) },
                        action("Crouch", 3),
                    },
                },
                // flee
                Behave::Sequence => {
                    is(LEADER_DEAD),
                    Behave::Invert => { is(IN_VEHICLE) },
                    action("FleeRun", 4),
                    action("Cower", 3),
                },
                // engage
                Behave::Sequence => {
                    is(HAS_TARGET),
                    // combat: prioritized-list (here: a Fallback)
                    Behave::Fallback => {
                        // vehicle_fight
                        Behave::Sequence => {
                            is(IN_VEHICLE),
                            Behave::Fallback => {
                                Behave::Sequence => { is(TARGET_IN_RANGE), action("VehicleShoot", 3) },
                                action("VehicleDrive", 4),
                            },
                        },
                        // take_cover
                        Behave::Sequence => {
                            is(UNDER_FIRE),
                            is(COVER_AVAILABLE),
                            action("MoveToCover", 3),
                            action("PeekShoot", 2),
                        },
                        // fight
                        Behave::Sequence => {
                            is(TARGET_VISIBLE),
                            is(TARGET_IN_RANGE),
                            action("Aim", 2),
                            action("Shoot", 3),
                        },
                        // advance
                        Behave::Sequence => { is(TARGET_VISIBLE), action("Advance", 4) },
                    },
                },
                // search
                Behave::Sequence => {
                    is(HAS_LAST_KNOWN),
                    action("GoToLastKnown", 5),
                    action("LookAround", 3),
                },
                // idle
                Behave::Sequence => { action("Patrol", 5), action("Idle", 4) },
            }
        }
    }
}

// ---------------------------------------------------------------------------
// The app and the measurement.

/// A headless app with no agents yet: one `update()` is one tick.
fn empty_app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        // Trees tick in Update (not the default FixedPreUpdate, whose runs per
        // update depend on wall time), synchronously: a condition answered at
        // once lets the tree go on in the same tick instead of the next one.
        BehavePlugin::new(Update).with_synchronous(),
    ))
    .init_resource::<Completed>()
    .insert_resource(Load {
        agents: Vec::new(),
        rng: Rng(42),
    })
    .add_observer(on_cond)
    .add_systems(
        Update,
        (sense, run_actions, ApplyDeferred)
            .chain()
            .before(BehaveSet),
    );
    app
}

/// Spawns `n` agents with inputs drawn as `load::random_blackboard` does,
/// each with a tree entity targeting it.
fn spawn_agents(app: &mut App, n: usize) {
    let template = BehaveTree::new(reference_tree());
    let mut rng = Rng(42);
    let mut agents = Vec::with_capacity(n);
    let world = app.world_mut();
    for _ in 0..n {
        let mut inputs = [false; 10];
        for (v, (_, p)) in inputs.iter_mut().zip(INPUTS) {
            *v = rng.unit() < p;
        }
        let agent = world.spawn(Inputs(inputs)).id();
        world.spawn((template.clone(), BehaveTargetEntity::Entity(agent)));
        agents.push(agent);
    }
    world.insert_resource(Load { agents, rng });
}

struct Figures {
    ns_per_agent_tick: f64,
    completed_per_agent_tick: f64,
    allocs_per_agent_tick: f64,
    heap_bytes_per_agent: f64,
}

fn measure(n: usize, reps: u32, ticks: u32) -> Figures {
    let mut app = empty_app();
    // Build the schedules and observers before counting the agents' heap.
    app.update();
    let live_before = LIVE_BYTES.load(Ordering::Relaxed);
    spawn_agents(&mut app, n);
    for _ in 0..WARMUP_TICKS {
        app.update();
    }
    let heap = (LIVE_BYTES.load(Ordering::Relaxed) - live_before) as f64 / n as f64;

    let completed_before = app.world().resource::<Completed>().0;
    let allocs_before = ALLOCS.load(Ordering::Relaxed);
    let mut samples = Vec::with_capacity(reps as usize);
    for _ in 0..reps {
        let t = Instant::now();
        for _ in 0..ticks {
            app.update();
        }
        samples.push(t.elapsed().as_nanos() as f64 / (f64::from(ticks) * n as f64));
    }
    let allocs = ALLOCS.load(Ordering::Relaxed) - allocs_before;
    let completed = app.world().resource::<Completed>().0 - completed_before;
    samples.sort_by(f64::total_cmp);
    let agent_ticks = f64::from(reps) * f64::from(ticks) * n as f64;
    Figures {
        ns_per_agent_tick: samples[samples.len() / 2],
        completed_per_agent_tick: completed as f64 / agent_ticks,
        allocs_per_agent_tick: allocs as f64 / agent_ticks,
        heap_bytes_per_agent: heap,
    }
}

fn usage() -> ! {
    eprintln!("usage: wyrd-peer-bevy-behave [AGENTS...] [--reps R] [--ticks T]");
    std::process::exit(2);
}

fn main() {
    let mut sizes = Vec::new();
    let mut reps = DEFAULT_REPS;
    let mut ticks: Option<u32> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = || -> u32 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| usage())
        };
        match a.as_str() {
            "--reps" => reps = number(),
            "--ticks" => ticks = Some(number()),
            "-h" | "--help" => usage(),
            n => match n.parse::<usize>() {
                Ok(n) if n > 0 => sizes.push(n),
                _ => usage(),
            },
        }
    }
    if sizes.is_empty() {
        sizes.extend(DEFAULT_SIZES);
    }
    let reps = reps.max(1);
    eprintln!(
        "# library agents ns_per_agent_tick completed_per_agent_tick allocs_per_agent_tick heap_bytes_per_agent"
    );
    for n in sizes {
        let ticks = ticks.unwrap_or_else(|| (300_000 / n).clamp(10, 300) as u32).max(1);
        let f = measure(n, reps, ticks);
        println!(
            "bevy_behave {n} {:.1} {:.3} {:.2} {:.0}",
            f.ns_per_agent_tick,
            f.completed_per_agent_tick,
            f.allocs_per_agent_tick,
            f.heap_bytes_per_agent
        );
    }
}
