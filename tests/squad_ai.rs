//! The squad-AI example played headless through its binary: the Halo 2
//! behaviors seen in the summary of a scripted skirmish.

mod support;

use std::process::Output;

use serde_json::Value as Json;

fn run(args: &[&str]) -> Output {
    support::headless("squad_ai").args(args).output().unwrap()
}

fn summary(args: &[&str]) -> Json {
    let out = run(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn n(v: &Json, key: &str) -> u64 {
    v[key]
        .as_u64()
        .unwrap_or_else(|| panic!("no number {key} in {v}"))
}

#[test]
fn a_skirmish_shows_interruption_stimuli_and_passengers_that_never_flee() {
    let s = summary(&["--headless", "--ticks", "1800", "--agents", "48"]);
    assert_eq!(
        n(&s, "ticks"),
        1800,
        "the clock starts once the tree is loaded"
    );

    // Higher-priority behaviors interrupt running ones: self-preservation
    // (a grenade, low health) takes over from the fight, a target in range
    // takes over from holding position.
    assert!(n(&s, "higher_priority_interruptions") > 0, "{s}");
    let pairs = s["interruption_pairs"].as_object().unwrap();
    assert!(
        pairs
            .keys()
            .any(|k| k.starts_with("engage/") && k.ends_with("-> self_preservation")),
        "self-preservation interrupts engaging: {pairs:?}"
    );
    assert!(
        pairs.contains_key("engage/hold -> engage/fight"),
        "{pairs:?}"
    );

    // Leaders die; their squads get the stimulus, which runs and expires.
    assert!(n(&s, "leaders_killed") > 0);
    let fired = n(&s, "stimuli_fired");
    assert!(fired > 0);
    assert!(n(&s, "stimuli_expired") > 0, "stimuli run out after 1.5 s");
    assert!(
        s["entered"]["flee_leader_died"].as_u64().unwrap_or(0) > 0,
        "infantry flee when the leader dies: {s}"
    );

    // The impulse puts infantry into vehicles when the player drives.
    assert!(s["impulses_fired"]["player_in_vehicle"].as_u64().unwrap() > 0);
    assert!(n(&s, "vehicles_entered") > 0);

    // Passengers whose leader died, holding the stimulus, never flee.
    assert!(n(&s, "passenger_ticks_leader_dead") > 0, "{s}");
    assert!(n(&s, "passenger_ticks_stimulus") > 0, "{s}");
    assert_eq!(n(&s, "passenger_flight"), 0);
}

#[test]
fn the_same_seed_fights_the_same_battle() {
    // Timing differs between runs; everything else is deterministic.
    let battle = |seed: &str| {
        let mut s = summary(&[
            "--headless",
            "--ticks",
            "600",
            "--agents",
            "24",
            "--seed",
            seed,
        ]);
        s.as_object_mut().unwrap().remove("ns_per_agent_tick");
        s
    };
    let seven = battle("7");
    assert_eq!(seven, battle("7"));
    assert_ne!(seven, battle("8"), "another seed, another battle");
}

#[test]
fn bad_arguments_are_named() {
    let out = run(&["--headless", "--agents", "0"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--agents must be between 1"));
    let out = run(&["--headless", "--ticks", "many"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("\"many\" is not a whole number"));
    // A missing tree is an error naming it, not a hang.
    let empty = tempfile::tempdir().unwrap();
    let out = run(&["--headless", "--assets", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("squad_ai/combat.bt.ron"));
}
