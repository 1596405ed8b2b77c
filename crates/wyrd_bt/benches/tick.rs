//! Tick benchmarks on the reference tree and load (BENCH_REFERENCE.md).
//!
//! `cargo bench -p wyrd_bt`. Groups (each element = one agent-tick, so
//! criterion's throughput is agent-ticks per second; time per iteration /
//! agents = ns per agent-tick):
//! - `runtime/N`: the interpreter alone over flat per-agent state;
//! - `bonsai/N`: the same tree and load with bonsai-bt 0.14 (reactive selects);
//! - `plugin/N`: a headless Bevy app, one `app.update()` per tick (input
//!   events on `Blackboard` components, decide, an action system);
//! - `unchanged/N`: nothing changes: every agent keeps running its action;
//! - `evaluation/200_quest_lines`: a world-state evaluation tree.

#[path = "support/load.rs"]
mod load;

use std::time::Duration;

use bevy::prelude::*;
use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use load::*;
use wyrd_bt::prelude::*;
use wyrd_bt::{AgentState, Program, TickEnv, tick_agent};

const DT_MS: u32 = 33;
const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

struct Runtime {
    program: Program,
    keys: [u16; 10],
    durations: Vec<u32>,
    rng: Rng,
    states: Vec<AgentState>,
    bbs: Vec<Blackboard>,
    actions: Vec<BtActions>,
    events: bool,
}

impl Runtime {
    fn new(n: usize, events: bool) -> Self {
        let program = reference_program();
        let keys = input_keys(&program);
        let mut durations = durations(&program);
        if !events {
            // "Nothing changed": actions never finish, inputs never change.
            durations.iter_mut().for_each(|d| *d = u32::MAX);
        }
        let mut rng = Rng(wyrd_bt::SplitMix64::new(42));
        let bbs = (0..n)
            .map(|_| random_blackboard(&program, &keys, &mut rng))
            .collect();
        let states = (0..n)
            .map(|i| AgentState::new(&program, i as u64))
            .collect();
        let actions = (0..n)
            .map(|_| {
                let mut a = BtActions::default();
                a.reserve(program.action_capacity());
                a
            })
            .collect();
        let mut r = Runtime {
            program,
            keys,
            durations,
            rng,
            states,
            bbs,
            actions,
            events,
        };
        for _ in 0..30 {
            r.tick();
        }
        r
    }

    fn tick(&mut self) -> u32 {
        if self.events {
            let bbs = &mut self.bbs;
            draw_events(bbs.len(), &self.keys, &mut self.rng, |a, k, v| {
                bbs[a].set_index(k, Value::Bool(v))
            });
        }
        let env = TickEnv {
            repeat: true,
            ..TickEnv::default()
        };
        let mut done = 0;
        for ((st, bb), ac) in self
            .states
            .iter_mut()
            .zip(self.bbs.iter_mut())
            .zip(self.actions.iter_mut())
        {
            tick_agent(&self.program, st, bb, ac, DT_MS, env);
            done += finish_actions(ac, &self.durations, st.now_ms(), DT_MS);
        }
        done
    }
}

mod bonsai {
    use super::load::{INPUTS, Rng};
    use bonsai_bt::{
        Action, BT, Event, Failure, Invert, Running, Select, Sequence, Success, UpdateArgs,
        WaitForever, While,
    };

    #[derive(Clone, Debug, PartialEq)]
    pub enum A {
        Cond(usize),
        Act(u32, u32),
    }

    pub struct Agent {
        pub inputs: [bool; 10],
        running: Option<(u32, u32)>,
        tick: u32,
        pub done: u32,
    }

    fn c(name: &str) -> bonsai_bt::Behavior<A> {
        Action(A::Cond(
            INPUTS.iter().position(|(n, _)| *n == name).expect("input"),
        ))
    }

    fn act(id: u32, ticks: u32) -> bonsai_bt::Behavior<A> {
        Action(A::Act(id, ticks))
    }

    /// The reference tree; prioritized lists are reactive (memoryless)
    /// selects, as in the peer's measurement.
    pub fn tree() -> bonsai_bt::Behavior<A> {
        let root = Select(vec![
            Sequence(vec![
                Select(vec![c("grenade_near"), c("health_low")]),
                Select(vec![
                    Sequence(vec![c("cover_available"), act(1, 2)]),
                    act(2, 3),
                ]),
            ]),
            Sequence(vec![
                c("leader_dead"),
                Invert(Box::new(c("in_vehicle"))),
                act(3, 4),
                act(4, 3),
            ]),
            Sequence(vec![
                c("has_target"),
                Select(vec![
                    Sequence(vec![
                        c("in_vehicle"),
                        Select(vec![
                            Sequence(vec![c("target_in_range"), act(5, 3)]),
                            act(6, 4),
                        ]),
                    ]),
                    Sequence(vec![
                        c("under_fire"),
                        c("cover_available"),
                        act(7, 3),
                        act(8, 2),
                    ]),
                    Sequence(vec![
                        c("target_visible"),
                        c("target_in_range"),
                        act(9, 2),
                        act(10, 3),
                    ]),
                    Sequence(vec![c("target_visible"), act(11, 4)]),
                ])
                .memory(false),
            ]),
            Sequence(vec![c("has_last_known"), act(12, 5), act(13, 3)]),
            Sequence(vec![act(14, 5), act(15, 4)]),
        ])
        .memory(false);
        While(Box::new(WaitForever), vec![root])
    }

    pub fn new_agent(rng: &mut Rng) -> BT<A, Agent> {
        let mut inputs = [false; 10];
        for (v, (_, p)) in inputs.iter_mut().zip(INPUTS) {
            *v = rng.unit() < p;
        }
        BT::new(
            tree(),
            Agent {
                inputs,
                running: None,
                tick: 0,
                done: 0,
            },
        )
    }

    pub fn tick(bt: &mut BT<A, Agent>) {
        bt.blackboard_mut().tick += 1;
        let e: Event = UpdateArgs { dt: 1.0 / 30.0 }.into();
        bt.tick(&e, &mut |args, bb: &mut Agent| match *args.action {
            A::Cond(i) => (if bb.inputs[i] { Success } else { Failure }, args.dt),
            A::Act(id, ticks) => {
                let started = match bb.running {
                    Some((r, s)) if r == id => s,
                    _ => {
                        bb.running = Some((id, bb.tick));
                        bb.tick
                    }
                };
                if bb.tick - started + 1 >= ticks {
                    bb.running = None;
                    bb.done += 1;
                    (Success, args.dt)
                } else {
                    (Running, 0.0)
                }
            }
        });
    }
}

fn bench_runtime(c: &mut Criterion) {
    let mut g = c.benchmark_group("runtime");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    for n in SIZES {
        let mut r = Runtime::new(n, true);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| b.iter(|| r.tick()));
    }
    g.finish();

    let mut g = c.benchmark_group("bonsai");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    for n in SIZES {
        let mut rng = Rng(wyrd_bt::SplitMix64::new(42));
        let mut agents: Vec<_> = (0..n).map(|_| bonsai::new_agent(&mut rng)).collect();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                draw_events_bonsai(&mut agents, &mut rng);
                for a in agents.iter_mut() {
                    bonsai::tick(a);
                }
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("unchanged");
    g.sample_size(10);
    for n in [10_000, 100_000] {
        let mut r = Runtime::new(n, false);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| b.iter(|| r.tick()));
    }
    g.finish();
}

fn draw_events_bonsai(agents: &mut [bonsai_bt::BT<bonsai::A, bonsai::Agent>], rng: &mut Rng) {
    let n = agents.len();
    for _ in 0..n / 10 {
        let agent = (rng.next() % n as u64) as usize;
        let input = (rng.next() % 10) as usize;
        agents[agent].blackboard_mut().inputs[input] = rng.unit() < INPUTS[input].1;
    }
}

/// The full plugin path with one compute thread (`plugin`, comparable with
/// the single-threaded peers) and with both cores for 100,000 agents
/// (`plugin_both_cores`, the 30 Hz budget target).
///
/// Bevy's task pools are per process and the first app sets them, so apps
/// are built only when their benchmark runs, and a case whose pool is not
/// the one it asks for warns: run `plugin_both_cores` on its own
/// (`benches/compare.sh` does).
fn bench_plugin(c: &mut Criterion) {
    fn case(g: &mut BenchmarkGroup<'_, WallTime>, n: usize, threads: usize) {
        let mut app: Option<App> = None;
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(BenchmarkId::from_parameter(n), |b| {
            let app = app.get_or_insert_with(|| plugin_app(n, Some(threads)));
            let pool = bevy::tasks::ComputeTaskPool::get().thread_num();
            if pool != threads {
                eprintln!(
                    "warning: measured with {pool} compute threads, not {threads}: run this case alone"
                );
            }
            b.iter(|| app.update());
        });
    }
    let mut g = c.benchmark_group("plugin");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for n in SIZES {
        case(&mut g, n, 1);
    }
    g.finish();
    let mut g = c.benchmark_group("plugin_both_cores");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    case(&mut g, 100_000, 2);
    g.finish();
}

/// A world-state evaluation tree with 200 independent quest lines of 5
/// steps each (the seed's structure), run to the end once per iteration.
fn evaluation_tree(lines: usize) -> String {
    let mut s = String::from(
        "(root: GuardSequence(name: \"evaluation\", children: [Action(action: \"ResetWorldStateManagers\"), ForceSuccess(child: Parallel(name: \"quest_lines\", success: All, failure: Count(",
    );
    s.push_str(&format!("{lines}), children: [\n"));
    for l in 0..lines {
        s.push_str(&format!("Selector(name: \"line_{l}\", children: ["));
        for step in 0..5 {
            s.push_str(&format!(
                "GuardSequence(name: \"step_{step}\", children: [Condition(check: World(\"Q{l}_S{step}\", Eq, false)), Action(action: \"AddQuest\", params: {{\"quest\": {step}}})]),"
            ));
        }
        s.push_str("]),\n");
    }
    s.push_str("])), Action(action: \"EndWorldStateEvaluation\")]))");
    s
}

fn bench_evaluation(c: &mut Criterion) {
    let text = evaluation_tree(200);
    let program = wyrd_bt::compile_str(
        "evaluation.bt.ron",
        &text,
        &wyrd_bt::Vocabulary::permissive(),
    )
    .expect("compiles");
    // Progress: line l has finished (l % 5) steps.
    let globals: Vec<Option<Value>> = program
        .globals()
        .iter()
        .map(|g| {
            let (l, s) = g.name[1..].split_once("_S").expect("name");
            let (l, s): (usize, usize) = (l.parse().expect("l"), s.parse().expect("s"));
            Some(Value::Bool(s < l % 5))
        })
        .collect();
    let mut g = c.benchmark_group("evaluation");
    g.sample_size(20);
    g.bench_function("200_quest_lines", |b| {
        let mut state = AgentState::new(&program, 0);
        let mut bb = {
            let mut bb = Blackboard::new();
            bb.bind(&program);
            bb
        };
        let mut actions = BtActions::default();
        actions.reserve(program.action_capacity());
        b.iter(|| {
            state.reset(&program, &mut actions);
            let env = TickEnv {
                globals: &globals,
                ..TickEnv::default()
            };
            let mut ticks = 0;
            loop {
                let s = tick_agent(&program, &mut state, &mut bb, &mut actions, DT_MS, env);
                ticks += 1;
                if s != Status::Running || ticks > 10 {
                    break ticks;
                }
                // Managers apply AddQuest & co. at once.
                for a in actions.iter_mut() {
                    a.succeed();
                }
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench_runtime, bench_plugin, bench_evaluation);
criterion_main!(benches);
