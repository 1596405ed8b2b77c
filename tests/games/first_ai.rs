//! The first-AI example (issue 24): run twice with one save folder, the
//! second run continues the first, mid-action, and the world counter it
//! raised is kept.

use crate::support;

fn run(save: &std::path::Path, ticks: &str) -> Vec<String> {
    support::stdout_of(
        support::headless("first_ai")
            .args(["--ticks", ticks, "--save-dir"])
            .arg(save),
    )
    .lines()
    .map(str::to_owned)
    .collect()
}

#[test]
fn a_second_run_continues_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let first = run(dir.path(), "100");
    assert_eq!(
        first.first().map(String::as_str),
        Some("tick 1: root/patrol/Walk")
    );
    assert_eq!(
        first.last().map(String::as_str),
        Some("end: agent tick 100, running root/chase/Chase"),
        "{first:?}"
    );
    // Quit mid-chase, start again: the chase goes on from tick 100.
    let second = run(dir.path(), "300");
    let (tick, leaf) = second[0].split_once(": ").unwrap();
    assert!(
        matches!(tick, "tick 100" | "tick 101") && leaf == "root/chase/Chase",
        "continued mid-chase: {second:?}"
    );
    assert!(
        second
            .iter()
            .any(|l| l.contains("stimulus \"investigate\"")),
        "{second:?}"
    );
    assert!(
        second.iter().any(|l| l == "caught the intruder (3 so far)"),
        "{second:?}"
    );
    // The counter is in the save: a third run starts in the lockdown.
    let third = run(dir.path(), "5");
    assert!(third[0].ends_with(": root/lockdown/Lockdown"), "{third:?}");
}
