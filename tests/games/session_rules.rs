//! The session-rules example played headless through its binary: the
//! Trainz rule semantics seen from a scripted drive.

use crate::support;

use std::process::Output;

use serde_json::Value as Json;

fn run(args: &[&str]) -> Output {
    support::headless("session_rules")
        .args(args)
        .output()
        .unwrap()
}

/// Plays a drive (the default one when `None`) and returns its JSON lines.
fn drive(script: Option<&str>) -> Vec<Json> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("drive.txt");
    let mut args = vec!["--headless"];
    let path_str;
    if let Some(text) = script {
        std::fs::write(&path, text).unwrap();
        path_str = path.to_string_lossy().into_owned();
        args.extend(["--drive", &path_str]);
    }
    support::stdout_of(support::headless("session_rules").args(&args))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn flags<'a>(line: &'a Json, rule: &str) -> &'a str {
    let path = if rule == "session" {
        "session".to_owned()
    } else {
        format!("session/objectives/{rule}")
    };
    line["rules"][&path]
        .as_str()
        .unwrap_or_else(|| panic!("no rule {path} in {line}"))
}

#[test]
fn the_scripted_drive_shows_the_seeds_rule_semantics() {
    let lines = drive(None);
    let step = |n: usize| &lines[n - 1];
    assert_eq!(lines.len(), 8, "one line per step");
    assert_eq!(step(1)["command"], "goto A");

    // Ordered: a completed child is paused; later ones wait paused.
    assert_eq!(flags(step(1), "drive_to_a"), "PCWD");
    assert_eq!(flags(step(1), "wait_for_passengers"), "D", "now running");
    assert_eq!(flags(step(1), "deliveries"), "PD");
    assert_eq!(flags(step(1), "drive_to_b"), "PD");
    assert_eq!(step(2)["passengers"], 3);
    assert_eq!(flags(step(2), "wait_for_passengers"), "PCWD");

    // Simultaneous: parcel 2 is complete, parcel 1 is not: not complete.
    assert_eq!(flags(step(3), "deliveries/parcel_2"), "CWD");
    assert_eq!(flags(step(3), "deliveries/parcel_1"), "D");
    assert_eq!(flags(step(3), "deliveries"), "D");
    // The condition rule lost COMPLETE while speeding; WAS_COMPLETE stays,
    // so it does not hold the deliveries up.
    assert_eq!(flags(step(3), "deliveries/speed_limit_held"), "WD");
    // 1.5 s over the limit: one warning from the polled camera.
    assert_eq!(step(3)["warnings"], 1);
    // Parcel 1: every child was complete at some point.
    assert_eq!(flags(step(5), "deliveries"), "PCWD");
    assert_eq!(flags(step(5), "deliveries/parcel_1"), "PCWD");

    // Select one: the scenic branch was chosen before the route started;
    // driving through the tunnel afterwards does not touch the other one.
    assert_eq!(flags(step(6), "route/scenic/visit_lookout"), "PCWD");
    assert_eq!(step(7)["command"], "goto tunnel");
    assert_eq!(flags(step(7), "route/express_tunnel"), "PD");
    assert_eq!(flags(step(7), "route"), "PCWD");

    assert_eq!(step(7)["status"], "running");
    assert_eq!(step(8)["status"], "success");
    assert_eq!(flags(step(8), "session"), "CWD");
    assert_eq!(flags(step(8), "drive_to_b"), "PCWD");
}

#[test]
fn without_a_choice_the_else_branch_runs() {
    let lines = drive(Some(
        "goto A\nwait 3.5\ngoto P1\ngoto P2\ngoto lookout\ngoto tunnel\ngoto B\n",
    ));
    let last = lines.last().unwrap();
    assert_eq!(flags(&lines[4], "route/scenic/visit_lookout"), "PD");
    assert_eq!(flags(&lines[5], "route/express_tunnel"), "PCWD");
    assert_eq!(last["status"], "success");
    assert_eq!(last["warnings"], 0, "never over the limit");
}

#[test]
fn a_brief_overspeed_is_polled_but_not_acted_on() {
    // About 1.3 s over the limit: under the camera's 45-tick threshold.
    let lines = drive(Some(
        "goto A\nwait 3.5\ngoto P2\ngoto tunnel fast\nwait 1\n",
    ));
    assert_eq!(flags(&lines[3], "deliveries/speed_limit_held"), "WD");
    assert_eq!(lines[4]["warnings"], 0);
    assert_eq!(flags(&lines[4], "deliveries/speed_limit_held"), "CWD");
}

#[test]
fn a_session_is_not_complete_until_its_objectives_are() {
    // Reaching B first does nothing: drive_to_b is paused until its turn.
    let lines = drive(Some("goto B\nwait 1\ngoto A\n"));
    assert_eq!(flags(&lines[0], "drive_to_b"), "PD");
    assert_eq!(flags(&lines[2], "drive_to_a"), "PCWD");
    assert_eq!(lines[2]["status"], "running");
}

#[test]
fn a_bad_drive_script_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.txt");
    std::fs::write(&path, "goto A\n# fine\ngoto Z\n").unwrap();
    let out = run(&["--headless", "--drive", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 3"), "{err}");
    assert!(err.contains("no place \"Z\""), "{err}");
}

#[test]
fn a_missing_rule_tree_is_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("session_rules")).unwrap();
    std::fs::write(dir.path().join("session_rules/drive.txt"), "goto A\n").unwrap();
    let out = run(&["--headless", "--assets", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("session_rules/session.bt.ron"));
}
