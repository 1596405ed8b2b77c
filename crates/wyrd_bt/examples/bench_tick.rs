//! Ticks the reference tree (BENCH_REFERENCE.md) for many agents and prints
//! what the performance issue asks for.
//!
//! ```text
//! cargo run --release -p wyrd_bt --example bench_tick -- --agents 10000 [--threads 1] [--ticks 300] [--typed]
//! ```
//! `--plugin --record-all N` / `--record-one N`: the flight recorder on
//! every agent / on one, keeping N ticks.
//! `--plugin`'s action system uses the typed dispatch (`ActionRuns`, one
//! `for_each` per action type); `--act-scan` passes over every agent's
//! `BtActions` finishing every action alike by a table of durations (no
//! parameters read); `--act-by-hand` dispatches by hand as games did
//! before the typed dispatch: per action type, a pass over every agent
//! comparing ids and reading the parameters with `read_action`;
//! `--act-scan-listed`: `--act-scan` while the tick lists every action for
//! the typed dispatch, no system reading the lists (against `--act-scan`,
//! what listing costs the tick).
//! `--tiers` (implies `--plugin`): the crowd load of issue 29, 1 % of the
//! agents ticking every step, 9 % every 4th, 90 % every 16th (`BtTier`);
//! `--tier-every N`: every agent `BtTier::every(N)`. Both also print the
//! whole update per agent tick and the memory per agent.
//! `--single-threaded` (with `--plugin`): every schedule on Bevy's
//! single-threaded executor (a game on one core; `--threads 1` alone keeps
//! the multi-threaded executor, which hands systems to the one compute
//! thread).
//! `--typed`: the reference tree whose actions also read a `Vec3` and an
//! `Entity` parameter from the blackboard (the action loop reads them).
//! The runtime alone (flat state in a loop); with `--plugin`, the full plugin
//! path (a headless app, one `app.update()` per tick; also in
//! `cargo bench -p wyrd_bt`, group `plugin`), split into the tree's decide
//! system, the action system and the rest of the update.

#[path = "../benches/support/load.rs"]
mod load;

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use load::*;
use wyrd_bt::{AgentState, BtActions, TickEnv, TickKind, tick_agent};

/// Counts heap allocations, to show the tick allocates nothing.
struct Counting;
static ALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator; only counts calls.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const DT_MS: u32 = 33;

fn main() {
    let mut agents = 10_000usize;
    let mut threads = 1usize;
    let mut ticks = 300u32;
    let mut plugin = false;
    let mut typed = false;
    let mut act_by = ActBy::Typed;
    let mut record: Option<(bool, usize)> = None;
    let mut crowd = Crowd::Untiered;
    let mut single = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |name: &str| -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match a.as_str() {
            "--agents" => agents = num("--agents"),
            "--threads" => threads = num("--threads"),
            "--ticks" => ticks = num("--ticks") as u32,
            "--plugin" => plugin = true,
            "--tiers" => {
                plugin = true;
                crowd = Crowd::Mix;
            }
            "--tier-every" => {
                plugin = true;
                crowd = Crowd::AllEvery(num("--tier-every") as u16);
            }
            "--typed" => typed = true,
            "--single-threaded" => single = true,
            "--act-scan" => act_by = ActBy::Scan,
            "--act-scan-listed" => act_by = ActBy::ScanListed,
            "--act-by-hand" => act_by = ActBy::Hand,
            "--fixed-cost" => {
                fixed_cost(ticks, std::env::var("WYRD_FIXED_COST_ONLY").ok());
                return;
            }
            "--record-all" => record = Some((true, num("--record-all"))),
            "--record-one" => record = Some((false, num("--record-one"))),
            other => {
                eprintln!(
                    "unknown argument {other}; usage: bench_tick [--agents N] [--threads T] [--ticks K] [--plugin [--record-all N | --record-one N] [--act-scan | --act-scan-listed | --act-by-hand]] [--tiers | --tier-every N] [--single-threaded] [--typed]"
                );
                std::process::exit(2);
            }
        }
    }
    if plugin {
        run_plugin(agents, threads, ticks, record, act_by, crowd, single);
        return;
    }
    let program = if typed {
        typed_reference_program()
    } else {
        reference_program()
    };
    let keys = input_keys(&program);
    let durations = durations(&program);
    let mut rng = Rng(wyrd_bt::SplitMix64::new(42));
    let mut states: Vec<AgentState> = (0..agents)
        .map(|i| AgentState::new(&program, i as u64))
        .collect();
    let mut bbs: Vec<_> = (0..agents)
        .map(|i| {
            let mut bb = random_blackboard(&program, &keys, &mut rng);
            if let Some(k) = program.bb_key("target") {
                let e = bevy::prelude::Entity::from_raw_u32(i as u32).unwrap();
                bb.set_index(k, wyrd_bt::Value::Entity(e));
            }
            bb
        })
        .collect();
    let mut actions: Vec<BtActions> = (0..agents)
        .map(|_| {
            let mut a = BtActions::default();
            a.reserve(program.action_capacity());
            a
        })
        .collect();
    let pool = (threads > 1).then_some(threads);
    let run_tick = |states: &mut [AgentState],
                    bbs: &mut [wyrd_bt::Blackboard],
                    actions: &mut [BtActions]|
     -> u32 {
        let mut done = 0;
        for ((st, bb), ac) in states
            .iter_mut()
            .zip(bbs.iter_mut())
            .zip(actions.iter_mut())
        {
            let env = TickEnv {
                repeat: true,
                ..TickEnv::default()
            };
            tick_agent(&program, st, bb, ac, DT_MS, env);
            done += if typed {
                let (n, sum) =
                    finish_typed_actions(&program, bb, ac, &durations, st.now_ms(), DT_MS);
                std::hint::black_box(sum);
                n
            } else {
                finish_actions(ac, &durations, st.now_ms(), DT_MS)
            };
        }
        done
    };
    // Warm up: every agent's slots and state reach their steady size.
    for _ in 0..30 {
        draw_events(agents, &keys, &mut rng, |a, k, v| {
            bbs[a].set_index(k, wyrd_bt::Value::Bool(v))
        });
        run_tick(&mut states, &mut bbs, &mut actions);
    }
    let allocs_before = ALLOCS.load(Ordering::Relaxed);
    let mut completed = 0u64;
    let (mut skipped, mut resumed) = (0u64, 0u64);
    let mut samples = Vec::with_capacity(ticks as usize);
    for _ in 0..ticks {
        draw_events(agents, &keys, &mut rng, |a, k, v| {
            bbs[a].set_index(k, wyrd_bt::Value::Bool(v))
        });
        let t = Instant::now();
        let done = match pool {
            Some(threads) => {
                let chunk = agents.div_ceil(threads);
                std::thread::scope(|s| {
                    let handles: Vec<_> = states
                        .chunks_mut(chunk)
                        .zip(bbs.chunks_mut(chunk))
                        .zip(actions.chunks_mut(chunk))
                        .map(|((st, bb), ac)| s.spawn(|| run_tick(st, bb, ac)))
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| h.join().unwrap_or(0))
                        .sum::<u32>()
                })
            }
            None => run_tick(&mut states, &mut bbs, &mut actions),
        };
        samples.push(t.elapsed().as_nanos() as f64);
        completed += u64::from(done);
        // Counted after the timing: how each agent's tick went.
        for s in &states {
            match s.last_tick() {
                Some(TickKind::Skipped) => skipped += 1,
                Some(TickKind::Resumed) => resumed += 1,
                _ => {}
            }
        }
    }
    let allocs = ALLOCS.load(Ordering::Relaxed) - allocs_before;
    samples.sort_by(f64::total_cmp);
    let median = samples[samples.len() / 2];
    let per_agent = median / agents as f64;
    // Up to four action slots live in the `BtActions` component itself.
    let slots = if program.action_capacity() > 4 {
        program.action_capacity() * std::mem::size_of::<wyrd_bt::ActiveAction>()
    } else {
        0
    };
    let inline = std::mem::size_of::<AgentState>() + std::mem::size_of::<BtActions>();
    let bytes = states[0].heap_bytes() + inline + slots;
    let total = u64::from(ticks) * agents as u64;
    println!("agents                    {agents}");
    println!(
        "tree                      {}",
        if typed {
            "reference, actions reading a Vec3 and an Entity parameter"
        } else {
            "reference"
        }
    );
    println!("threads                   {threads}");
    println!("actions finished by       {act_by:?}");
    println!("ticks measured            {ticks}");
    println!("ns per agent-tick         {per_agent:.1}");
    println!("tick (median)             {:.3} ms", median / 1e6);
    println!(
        "share of one core at 30Hz {:.1} %",
        median * 30.0 / 1e9 * 100.0 * threads as f64
    );
    println!(
        "bytes per agent           {bytes} (components {inline} with the action slots, node arrays {}, slots on the heap {slots})",
        states[0].heap_bytes()
    );
    println!(
        "allocations per tick      {:.2}{}",
        allocs as f64 / f64::from(ticks),
        if threads > 1 {
            " (thread spawns included)"
        } else {
            ""
        }
    );
    println!(
        "walks skipped (no input)  {:.1} %",
        skipped as f64 * 100.0 / total as f64
    );
    println!(
        "walks resumed (a report)  {:.1} %",
        resumed as f64 * 100.0 / total as f64
    );
    println!(
        "completed actions / agent-tick {:.3}",
        completed as f64 / (f64::from(ticks) * agents as f64)
    );
}

/// The update's fixed cost: the same headless app with no agent, with and
/// without Wyrd's plugin and the bench's two systems (what is Bevy's, what
/// is ours).
/// `only`: one variant (`bare`, `asset`, `plugin`, `bench`), e.g. to count
/// its system calls (`WYRD_FIXED_COST_ONLY=plugin strace -f -c ...`).
fn fixed_cost(ticks: u32, only: Option<String>) {
    let median_update = |app: &mut bevy::prelude::App| {
        for _ in 0..30 {
            app.update();
        }
        let mut v: Vec<f64> = (0..ticks.max(100))
            .map(|_| {
                let t = Instant::now();
                app.update();
                t.elapsed().as_nanos() as f64
            })
            .collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2] / 1e3
    };
    let variant = |name: &str| -> Option<bevy::prelude::App> {
        if only.as_deref().is_some_and(|o| o != name) {
            return None;
        }
        Some(match name {
            "bare" => bare_app(1),
            "asset" => {
                let mut app = bare_app(1);
                bevy::asset::AssetApp::init_asset::<wyrd_bt::BtAsset>(&mut app);
                app
            }
            "plugin" => {
                let mut app = bare_app(1);
                app.add_plugins(wyrd_bt::BtPlugin::default());
                app
            }
            _ => plugin_app(0, Some(1)),
        })
    };
    println!("fixed cost per update (1 compute thread, no agent, median):");
    for (name, what) in [
        ("bare", "Bevy alone (MinimalPlugins, AssetPlugin)"),
        ("asset", "+ the BtAsset asset type"),
        ("plugin", "+ BtPlugin"),
        ("bench", "+ the bench's sense and act systems"),
    ] {
        if let Some(mut app) = variant(name) {
            println!("  {what:<42} {:.1} us", median_update(&mut app));
        }
    }
}

/// The full plugin path: medians of the whole update and of its parts.
fn run_plugin(
    agents: usize,
    threads: usize,
    ticks: u32,
    record: Option<(bool, usize)>,
    act_by: ActBy,
    crowd: Crowd,
    single: bool,
) {
    let tiers = crowd != Crowd::Untiered;
    let rss_before = rss_bytes();
    let mut app = plugin_app_tiered(agents, Some(threads), act_by, crowd);
    let rss_after = rss_bytes();
    if single {
        single_threaded(&mut app);
        for _ in 0..30 {
            app.update();
        }
    }
    // The flight recorder on every agent, or on one; its buffers are
    // allocated when it starts, then filled over a warm-up.
    match record {
        Some((true, n)) => {
            app.world_mut()
                .resource_mut::<wyrd_bt::BtSettings>()
                .record_all = Some(n);
        }
        Some((false, n)) => {
            let world = app.world_mut();
            let mut q = world.query::<&mut wyrd_bt::BtAgent>();
            if let Some(mut a) = q.iter_mut(world).next() {
                a.record(n);
            }
        }
        None => {}
    }
    if let Some((all, n)) = record {
        for _ in 0..n.min(400) + 30 {
            app.update();
        }
        println!(
            "flight recorder           {} ({n} ticks)",
            if all { "every agent" } else { "one agent" }
        );
    }
    let (mut total, mut decide, mut act, mut sense) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut ticked = 0u64;
    let allocs_before = ALLOCS.load(Ordering::Relaxed);
    for _ in 0..ticks {
        let t = Instant::now();
        app.update();
        total.push(t.elapsed().as_nanos() as f64);
        let stats = app.world().resource::<wyrd_bt::BtStats>();
        ticked += u64::from(stats.ticked);
        decide.push(stats.decide_ns as f64);
        act.push(stats.act_ns as f64);
        sense.push(app.world().resource::<Load>().sense_ns as f64);
    }
    let allocs = ALLOCS.load(Ordering::Relaxed) - allocs_before;
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (total, decide, act, sense) = (
        median(&mut total),
        median(&mut decide),
        median(&mut act),
        median(&mut sense),
    );
    println!("agents                    {agents}");
    if crowd == Crowd::Mix {
        println!(
            "tiers                     {} (agent ticks per step: {:.0})",
            CROWD_TIERS
                .iter()
                .map(|(every, share)| format!("{:.0} % every {every}", share * 100.0))
                .collect::<Vec<_>>()
                .join(", "),
            ticked as f64 / f64::from(ticks)
        );
    }
    println!("threads                   {threads}");
    println!(
        "executor                  {}",
        if single {
            "single-threaded (every system on the main thread)"
        } else {
            "multi-threaded (Bevy's default)"
        }
    );
    println!("actions finished by       {act_by:?}");
    println!("ticks measured            {ticks}");
    println!(
        "ns per agent-tick         {:.1} (whole update)",
        total / agents as f64
    );
    println!("tick (median)             {:.3} ms", total / 1e6);
    println!(
        "  decide (tree tick)      {:.3} ms = {:.1} ns per agent",
        decide / 1e6,
        decide / agents as f64
    );
    println!(
        "  act (action system)     {:.3} ms = {:.1} ns per agent",
        act / 1e6,
        act / agents as f64
    );
    println!(
        "  sense (input system)    {:.3} ms = {:.1} ns per agent",
        sense / 1e6,
        sense / agents as f64
    );
    println!(
        "  rest (Bevy's schedule)  {:.3} ms",
        (total - decide - act - sense) / 1e6
    );
    if tiers {
        let per_step = ticked as f64 / f64::from(ticks);
        println!(
            "ns per agent tick         {:.1} (whole update / agent ticks in it)",
            total / per_step
        );
    }
    println!(
        "allocations per tick      {:.2} (the app's own included)",
        allocs as f64 / f64::from(ticks)
    );
    if let (Some(before), Some(after)) = (rss_before, rss_after) {
        println!(
            "memory per agent          {:.0} B (resident memory the app and its agents took)",
            after.saturating_sub(before) as f64 / agents.max(1) as f64
        );
        print_component_sizes(&mut app, tiers);
    }
}

/// What one agent's components take inline (in Bevy's tables) and on the
/// heap, to show where the resident memory goes.
fn print_component_sizes(app: &mut bevy::prelude::App, tiers: bool) {
    use std::mem::size_of;
    let world = app.world_mut();
    let mut q = world.query::<(&wyrd_bt::BtAgent, &wyrd_bt::Blackboard)>();
    let Some((agent, bb)) = q.iter(world).next() else {
        return;
    };
    let tree_heap = agent.state().heap_bytes();
    let bb_heap = bb.heap_bytes();
    // Counted as BENCH_REFERENCE.md counts memory (bytes of tree state per
    // agent): the tree's components and heap, not the game's blackboard
    // inputs nor Bevy's bookkeeping.
    let tree = size_of::<wyrd_bt::BtAgent>() + size_of::<wyrd_bt::BtActions>() + tree_heap;
    println!("tree state per agent      {tree} B (BtAgent, BtActions, the tree state's heap)");
    if tiers {
        println!(
            "  with its tier            {} B (nothing else per agent without a budget; with one, about 20 B more: the groups list their agents)",
            tree + size_of::<wyrd_bt::BtTier>()
        );
    }
    println!(
        "  inline: BtAgent {}, Blackboard {}, BtActions {}, BehaviorTree {}, BtTier {}, AgentIndex {}; heap: tree state {tree_heap}, blackboard values {bb_heap}",
        size_of::<wyrd_bt::BtAgent>(),
        size_of::<wyrd_bt::Blackboard>(),
        size_of::<wyrd_bt::BtActions>(),
        size_of::<wyrd_bt::BehaviorTree>(),
        size_of::<wyrd_bt::BtTier>(),
        size_of::<AgentIndex>(),
    );
}

/// The process's resident memory (Linux), in bytes.
fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
