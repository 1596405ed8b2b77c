//! No action is aborted and started again within one tick (DESIGN
//! "Interruption without dithering"; the Halo seed: "we must avoid at all
//! costs the problem of dithering"), over 10,000 ticks of random inputs on
//! the reference combat tree and on squad_ai's Halo combat tree: random
//! blackboard writes, tags, action reports, stimuli.

use std::path::Path;

use wyrd_bt::sim::{Outcome, Sim};
use wyrd_bt::{SplitMix64, UtilityReason, Value, ValueType, Vocabulary, compile_str};

struct Rng(SplitMix64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
}

fn fuzz(asset: &str, stimuli: &[(&str, &str, u16)]) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets")
        .join(asset);
    let text = std::fs::read_to_string(&path).unwrap();
    let program = compile_str(asset, &text, &Vocabulary::permissive()).unwrap();
    let mut rng = Rng(SplitMix64::new(0x5EED));
    let mut sim = Sim::new(&program, 7).with_repeat(true);
    let keys = program.blackboard_keys().to_vec();
    let tags = program.tag_names().to_vec();
    let (mut started, mut aborted, mut interruptions) = (0usize, 0usize, 0usize);
    for tick in 1..=10_000u32 {
        for _ in 0..rng.below(3) {
            let k = rng.below(keys.len());
            let v = match program.blackboard_types()[k] {
                ValueType::Bool => Value::Bool(rng.below(2) == 0),
                ValueType::Int => Value::Int(rng.below(40) as i64),
                ValueType::Float => Value::Float(rng.below(100) as f64 / 10.0),
                ValueType::Entity => {
                    Value::Entity(bevy::prelude::Entity::from_raw_u32(rng.below(3) as u32).unwrap())
                }
                ValueType::Vec2 => Value::Vec2(bevy::math::Vec2::new(rng.below(10) as f32, 0.0)),
                ValueType::Vec3 => Value::Vec3(bevy::math::Vec3::splat(rng.below(10) as f32)),
                ValueType::Str => Value::from("s"),
            };
            sim.set(&keys[k], v).unwrap();
        }
        if !tags.is_empty() && rng.below(10) == 0 {
            let t = rng.below(tags.len());
            sim.tag(&tags[t], rng.below(2) == 0).unwrap();
        }
        if !stimuli.is_empty() && rng.below(50) == 0 {
            let (at, behavior, priority) = stimuli[rng.below(stimuli.len())];
            sim.stimulus(at, behavior, priority, 1.5).unwrap();
        }
        let running: Vec<String> = sim
            .state
            .active_leaves(&program)
            .map(|i| sim.state.display_path(&program, i))
            .collect();
        for leaf in running {
            if rng.below(4) == 0 {
                let outcome = if rng.below(3) == 0 {
                    Outcome::Failure
                } else {
                    Outcome::Success
                };
                // A running leaf may be a rule or a wait (not an action).
                let _ = sim.finish(&leaf, outcome);
            }
        }
        let r = sim.step();
        let restarted = sim.trace.restarted();
        assert!(
            restarted.is_empty(),
            "{asset} tick {tick}: aborted and restarted in one tick: {:?}",
            restarted
                .iter()
                .map(|&n| sim.state.display_path(&program, n))
                .collect::<Vec<_>>()
        );
        started += r.started.len();
        aborted += r.aborted.len();
        interruptions += usize::from(!r.aborted.is_empty());
    }
    // The inputs really exercise the tree: actions start and get
    // interrupted all the time.
    assert!(started > 2_000, "{asset}: only {started} starts");
    assert!(aborted > 300, "{asset}: only {aborted} aborts");
    assert!(
        interruptions > 300,
        "{asset}: only {interruptions} interrupting ticks"
    );
}

#[test]
fn reference_combat_tree_never_dithers() {
    fuzz("bench/reference.bt.ron", &[]);
}

#[test]
fn squad_ai_combat_tree_never_dithers() {
    fuzz("squad_ai/combat.bt.ron", &[("root", "flee_leader_died", 2)]);
}

/// A utility tree under 10,000 ticks of random inputs (every consideration
/// moving, food coming and going, random reports): no action is aborted
/// and restarted in a tick, and every time the running option is replaced
/// its challenger beat it by more than the margin after the commitment
/// time (or it had finished): a near-tie never cancels a running option.
#[test]
fn utility_tree_never_dithers() {
    let asset = "utility/villager.bt.ron";
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets")
        .join(asset);
    let text = std::fs::read_to_string(&path).unwrap();
    let program = compile_str(asset, &text, &Vocabulary::permissive()).unwrap();
    let (margin, commit_ticks) = (0.15, 30);
    let mut rng = Rng(SplitMix64::new(0x5EED));
    let mut sim = Sim::new(&program, 7).with_repeat(true);
    let floats = ["hunger", "fatigue", "danger"];
    let (mut replaced, mut kept_near_ties) = (0usize, 0usize);
    let mut started_at = 0u32;
    for tick in 1..=10_000u32 {
        for _ in 0..rng.below(3) {
            let key = floats[rng.below(floats.len())];
            sim.set(key, Value::Float(rng.below(101) as f64 / 100.0))
                .unwrap();
        }
        if rng.below(20) == 0 {
            sim.set("has_food", Value::Bool(rng.below(2) == 0)).unwrap();
        }
        let running: Vec<String> = sim
            .state
            .active_leaves(&program)
            .map(|i| sim.state.display_path(&program, i))
            .collect();
        for leaf in running {
            if rng.below(40) == 0 {
                let outcome = if rng.below(3) == 0 {
                    Outcome::Failure
                } else {
                    Outcome::Success
                };
                let _ = sim.finish(&leaf, outcome);
            }
        }
        let r = sim.step();
        assert!(r.restarted.is_empty(), "tick {tick}: {:?}", r.restarted);
        for d in sim.trace.decisions() {
            let score_of = |node: u32| {
                d.scores
                    .iter()
                    .find(|s| s.child == node)
                    .and_then(|s| s.score)
                    .unwrap_or(0.0)
            };
            match d.choice.reason {
                UtilityReason::Beat { over, by } => {
                    let chosen = score_of(d.choice.chosen);
                    assert!(by > margin, "tick {tick}: replaced by a margin of {by}");
                    assert!(
                        (chosen - score_of(over).max(0.0) - by).abs() < 1e-5,
                        "tick {tick}: the margin is the scores' difference"
                    );
                    assert!(
                        tick - started_at >= commit_ticks,
                        "tick {tick}: replaced {} ticks after it started",
                        tick - started_at
                    );
                    replaced += 1;
                    started_at = tick;
                }
                UtilityReason::Best => started_at = tick,
                UtilityReason::Kept => {
                    let best_other = d
                        .scores
                        .iter()
                        .filter(|s| s.child != d.choice.chosen)
                        .filter_map(|s| s.score)
                        .fold(f32::NEG_INFINITY, f32::max);
                    if best_other > score_of(d.choice.chosen) {
                        kept_near_ties += 1;
                    }
                }
                _ => {}
            }
        }
    }
    // The inputs really move the choice: options are replaced, and kept
    // against challengers that score higher but not by enough.
    assert!(replaced > 100, "only {replaced} replacements");
    assert!(kept_near_ties > 30, "only {kept_near_ties} near-ties kept");
}
