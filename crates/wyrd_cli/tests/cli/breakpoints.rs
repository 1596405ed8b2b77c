//! `wyrd sim --break FILE` (issue 27): stops at the first breakpoint that
//! hits and prints the tick's state; a script's `expect_breaks` /
//! `never_breaks` make a run a CI check.

use std::process::{Command, Output};

fn wyrd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args(args)
        .output()
        .expect("the wyrd binary runs")
}

const TREE: &str = r#"(
    blackboard: {"target_visible": false, "hurt": false, "ammo": 10},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "flee", children: [
            Condition(check: Is("hurt")),
            Action(name: "run", action: "Flee"),
        ]),
        GuardSequence(name: "fight", children: [
            Condition(check: Is("target_visible")),
            Action(name: "shoot", action: "Shoot"),
        ]),
        Action(name: "patrol", action: "Patrol"),
    ]),
)"#;

const BREAKS: &str = r#"(breakpoints: [
    (name: "patrol aborted", action: "Patrol", on: Aborted),
    (name: "shoot aborted while visible", action: "Shoot", on: Aborted, when: Is("target_visible")),
])"#;

/// The files in a folder: the tree, its breakpoints and a script.
fn files(script: &str) -> (tempfile::TempDir, [String; 3]) {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).to_string_lossy().into_owned();
    std::fs::write(dir.path().join("guard.bt.ron"), TREE).unwrap();
    std::fs::write(dir.path().join("guard.breakpoints.ron"), BREAKS).unwrap();
    std::fs::write(dir.path().join("run.script.ron"), script).unwrap();
    let paths = [
        path("guard.bt.ron"),
        path("run.script.ron"),
        path("guard.breakpoints.ron"),
    ];
    (dir, paths)
}

const SIGHTING: &str = r#"(ticks: 12, events: [
    (tick: 4, set: ("target_visible", true)),
    (tick: 8, set: ("target_visible", false)),
])"#;

#[test]
fn break_stops_at_the_first_hit_and_prints_the_state() {
    let (_dir, [tree, script, breaks]) = files(SIGHTING);
    let o = wyrd(&["sim", &tree, "--script", &script, "--break", &breaks]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Ticks 1..=4, then the break line: the run stopped at tick 4.
    assert_eq!(lines.len(), 5, "{out}");
    assert_eq!(lines[3]["tick"], 4);
    let b = &lines[4];
    assert_eq!(b["break"], "patrol aborted");
    assert_eq!(b["tick"], 4);
    assert_eq!(b["why"], "root/patrol was aborted");
    assert_eq!(b["active"], serde_json::json!(["root/fight/shoot"]));
    assert_eq!(b["blackboard"]["target_visible"], "true");
    assert_eq!(b["blackboard"]["ammo"], "10");
}

#[test]
fn a_script_can_say_a_breakpoint_never_hits_and_ci_fails_when_it_does() {
    // Shoot is aborted at tick 8, when the target is no longer visible:
    // the "while visible" breakpoint never hits, and "patrol aborted" does.
    let (_dir, [tree, script, breaks]) = files(
        r#"(ticks: 12,
            expect_breaks: ["patrol aborted"],
            never_breaks: ["shoot aborted while visible"],
            events: [
                (tick: 4, set: ("target_visible", true)),
                (tick: 8, set: ("target_visible", false)),
            ])"#,
    );
    let o = wyrd(&["sim", &tree, "--script", &script, "--break", &breaks]);
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
    );
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    // With assertions the run goes to the end.
    assert_eq!(
        out.lines().filter(|l| l.contains("\"tick\"")).count(),
        12 + 1
    );

    // Hurt while the target is visible: fleeing takes over, and Shoot is
    // aborted while visible.
    let (_dir, [tree, script, breaks]) = files(
        r#"(ticks: 12,
            never_breaks: ["shoot aborted while visible"],
            events: [
                (tick: 4, set: ("target_visible", true)),
                (tick: 6, set: ("hurt", true)),
            ])"#,
    );
    let o = wyrd(&["sim", &tree, "--script", &script, "--break", &breaks]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("breakpoint \"shoot aborted while visible\" hit at tick 6")
            && err.contains("the script says it never does"),
        "{err}"
    );
}

#[test]
fn an_expected_breakpoint_that_never_hits_fails_and_unknown_names_are_errors() {
    let (_dir, [tree, script, breaks]) =
        files(r#"(ticks: 5, expect_breaks: ["patrol aborted"], events: [])"#);
    let o = wyrd(&["sim", &tree, "--script", &script, "--break", &breaks]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err.contains("\"patrol aborted\" was expected to hit; it never did"),
        "{err}"
    );

    let (_dir, [tree, script, breaks]) =
        files(r#"(ticks: 5, never_breaks: ["patrol abroted"], events: [])"#);
    let o = wyrd(&["sim", &tree, "--script", &script, "--break", &breaks]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err.contains("no breakpoint named \"patrol abroted\""),
        "{err}"
    );
    assert!(err.contains("\"patrol aborted\""), "{err}");
    // Assertions without --break.
    let o = wyrd(&["sim", &tree, "--script", &script]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("give them with --break FILE"), "{err}");
}

#[test]
fn check_reads_a_breakpoints_file_against_the_tree_beside_it() {
    let (dir, [_, _, breaks]) = files(SIGHTING);
    let o = wyrd(&["check", &breaks]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("guard.breakpoints.ron: ok (2 breakpoints, against "),
        "{out}"
    );
    std::fs::write(
        dir.path().join("guard.breakpoints.ron"),
        "(breakpoints: [\n    (action: \"Shoot\"),\n    (node: \"root/figth\", on: Aborted),\n])",
    )
    .unwrap();
    let o = wyrd(&["check", &dir.path().to_string_lossy()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    // At the misspelt path itself (it pointed at the breakpoint's start),
    // with the nearest path (a stranger's misspelt node had neither).
    assert!(
        err.contains("guard.breakpoints.ron:3:13: breakpoint 2 (root/figth was aborted): the tree has no node \"root/figth\"; did you mean \"root/fight\"?"),
        "{err}"
    );
    assert!(
        err.contains("3 |     (node: \"root/figth\", on: Aborted),"),
        "{err}"
    );
}
