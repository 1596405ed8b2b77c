//! Drives the `wyrd` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn wyrd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args(args)
        .output()
        .expect("the wyrd binary runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn fixture(name: &str) -> String {
    repo("crates/wyrd_state/tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The slot's other documents: `agents.json` is checked as the agents'
/// tree states, a document of the game's own type by its header (a
/// stranger's `agents.json` "lacked `BoolFlags`" and could not be signed).
#[test]
fn verify_and_sign_take_the_slots_other_documents() {
    let key = fixture("test.key");
    let dir = tempfile::tempdir().unwrap();
    let agents = dir.path().join("agents.json");
    std::fs::write(&agents, "{\"SchemaVersion\": 1, \"Agents\": []}").unwrap();
    let o = wyrd(&["save", "sign", agents.to_str().unwrap(), "--key-file", &key]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = wyrd(&[
        "save",
        "verify",
        agents.to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(text(&o).0, "ok (the agents' tree states)\n");
    let profile = dir.path().join("profile.json");
    std::fs::write(&profile, "{\"SchemaVersion\": 2, \"Coins\": 5}").unwrap();
    let o = wyrd(&[
        "save",
        "sign",
        profile.to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = wyrd(&[
        "save",
        "verify",
        profile.to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(
        text(&o)
            .0
            .contains("a document of the game's own, SchemaVersion 2"),
        "{:?}",
        text(&o)
    );
    // An agents document that is not one is refused.
    std::fs::write(&agents, "{\"SchemaVersion\": 1, \"Agents\": 3}").unwrap();
    let o = wyrd(&["save", "sign", agents.to_str().unwrap(), "--key-file", &key]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
}

#[test]
fn verify_accepts_the_seed_save_and_rejects_tampering_with_a_reason() {
    let key = fixture("test.key");
    let save = fixture("seed_save.json");
    let o = wyrd(&["save", "verify", &save, "--key-file", &key]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(text(&o).0, "ok\n");

    let dir = tempfile::tempdir().unwrap();
    let tampered = dir.path().join("t.json");
    let body = std::fs::read_to_string(&save)
        .unwrap()
        .replace("\"Value\": 5", "\"Value\": 6");
    std::fs::write(&tampered, body).unwrap();
    let o = wyrd(&[
        "save",
        "verify",
        tampered.to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).1.contains("signature does not match"),
        "{:?}",
        text(&o)
    );

    let wrong_key = dir.path().join("k");
    std::fs::write(&wrong_key, "other").unwrap();
    let o = wyrd(&[
        "save",
        "verify",
        &save,
        "--key-file",
        wrong_key.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));

    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "").unwrap();
    let o = wyrd(&[
        "save",
        "verify",
        empty.to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("empty"), "{:?}", text(&o));

    let o = wyrd(&["save", "verify", "/no/such/file", "--key-file", &key]);
    assert_eq!(o.status.code(), Some(1));
    let o = wyrd(&["save", "verify", &save]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "missing --key-file is a usage error"
    );
}

#[test]
fn show_prints_the_document_and_the_verdict() {
    let o = wyrd(&[
        "save",
        "show",
        &fixture("seed_save.json"),
        "--key-file",
        &fixture("test.key"),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(out.contains("\"DebugName\": \"QST_DST_TOWER_5\""));
    // The verdict on stderr: stdout is the document alone, so that
    // `show > edited.json` can be edited and signed again (a stranger's
    // `sign` failed on the verdict line: "trailing characters").
    assert!(err.contains("verified: the signature holds"), "{err}");
    assert!(!out.contains("verified"), "{out}");
    serde_json::from_str::<serde_json::Value>(&out).expect("stdout is the JSON document");
}

#[test]
fn sign_makes_an_edited_save_load_again() {
    let dir = tempfile::tempdir().unwrap();
    let key = fixture("test.key");
    let edited = dir.path().join("edited.json");
    let body = std::fs::read_to_string(fixture("seed_save.json"))
        .unwrap()
        .replace("\"Value\": 5", "\"Value\": 2");
    std::fs::write(&edited, &body).unwrap();
    let out = dir.path().join("signed.json");
    let o = wyrd(&[
        "save",
        "sign",
        edited.to_str().unwrap(),
        "--key-file",
        &key,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = wyrd(&["save", "verify", out.to_str().unwrap(), "--key-file", &key]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // A plain JSON document (no signature line) signs too, in place.
    let plain = dir.path().join("plain.json");
    std::fs::write(&plain, body.split_once('\n').unwrap().1).unwrap();
    let o = wyrd(&["save", "sign", plain.to_str().unwrap(), "--key-file", &key]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = wyrd(&[
        "save",
        "verify",
        plain.to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // Something the game would refuse is not signed (a world state from
    // a newer version).
    std::fs::write(&plain, "{\"SchemaVersion\": 9, \"BoolFlags\": []}").unwrap();
    let o = wyrd(&["save", "sign", plain.to_str().unwrap(), "--key-file", &key]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o)
            .1
            .contains("from a newer version of the game (schema 9"),
        "{:?}",
        text(&o)
    );
}

#[test]
fn check_reports_ok_and_file_line_column_errors() {
    let good = repo("assets/drone_quest/world_state.flags.ron");
    let o = wyrd(&["check", good.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(text(&o).0.contains("ok (5 flags, 2 counters)"));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.flags.ron");
    std::fs::write(
        &bad,
        "(flags: [\n  (id: \"xyz\", name: \"A\", default: true),\n])",
    )
    .unwrap();
    let o = wyrd(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o).1;
    assert!(err.contains("bad.flags.ron:2:9:"), "{err}");
    assert!(err.contains("\"xyz\""), "{err}");
    assert_eq!(wyrd(&["nonsense"]).status.code(), Some(2));
}

/// A tree with three faulty nodes: `check` reports all three, each at
/// its line with a caret, not only the first (a stranger's CI fixed one
/// error per run).
#[test]
fn check_reports_every_faulty_node_of_a_tree() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("guard.bt.ron");
    std::fs::write(
        &tree,
        r#"(
    blackboard: { "alarm": false },
    root: Sequence(children: [
        Condition(check: Is("alrm")),
        Wait(seconds: -2.0),
        Use(behavior: "investigate"),
        Action(action: "Patrol"),
    ]),
)
"#,
    )
    .unwrap();
    let o = wyrd(&["check", tree.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    let err = text(&o).1;
    for at in [
        "guard.bt.ron:4:30:",
        "guard.bt.ron:5:9:",
        "guard.bt.ron:6:13:",
    ] {
        assert!(err.contains(at), "{at} missing in {err}");
    }
    assert!(err.contains("unknown behavior \"investigate\""), "{err}");
    // A misspelt key says the nearest declared one.
    assert!(err.contains("unknown blackboard key \"alrm\" (declare it under `blackboard`); did you mean \"alarm\"?"), "{err}");
    assert_eq!(err.matches('^').count(), 3, "{err}");
}

/// Misspelt kinds and fields in three nodes: `check` reports all three
/// (the parser's errors, each refused node read as `Fail()` to go on).
#[test]
fn check_reports_every_misspelt_node_of_a_tree() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("typos.bt.ron");
    std::fs::write(
        &tree,
        r#"(
    root: Sequence(children: [
        Wiat(seconds: 2.0),
        Inverter(child: Action(action: "Patrol")),
        Wait(secnds: 1.0),
    ]),
)
"#,
    )
    .unwrap();
    let o = wyrd(&["check", tree.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    let err = text(&o).1;
    for at in [
        "typos.bt.ron:3:9:",
        "typos.bt.ron:4:9:",
        "typos.bt.ron:5:14:",
    ] {
        assert!(err.contains(at), "{at} missing in {err}");
    }
    assert!(err.contains("Inverter is `Invert` here"), "{err}");
}

/// Errors in trees, flags files and scripts show the line they point at
/// with a caret under the column.
#[test]
fn errors_show_the_source_line_and_a_caret() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    let tree = write(
        "bad.bt.ron",
        "(\n    root: Selector(name: \"root\", children: [\n        Sequnce(children: []),\n    ]),\n)\n",
    );
    let flags = write(
        "bad.flags.ron",
        "(flags: [\n\t(id: \"xyz\", name: \"A\", default: true),\n])",
    );
    let ok = write(
        "ok.bt.ron",
        "(blackboard: {\"k\": 1}, root: Action(name: \"a\", action: \"A\"))",
    );
    let script = write(
        "s.script.ron",
        "(events: [\n  (tick: 1, set: (\"nokey\", true)),\n])",
    );
    let o = wyrd(&["check", &tree, &flags]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o).1;
    assert!(
        err.contains("bad.bt.ron:3:9: unknown node kind \"Sequnce\"")
            && err.contains("\n  |\n3 |         Sequnce(children: []),\n  |         ^\n"),
        "{err}"
    );
    // A tab before the column stays a tab, so the caret lines up.
    assert!(
        err.contains("2 | \t(id: \"xyz\", name: \"A\", default: true),\n  | \t      ^"),
        "{err}"
    );
    let o = wyrd(&["check", "--tree", &ok, &script]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o).1;
    assert!(
        err.contains("s.script.ron:2:3: event 1 (tick 1): unknown blackboard key \"nokey\"")
            && err.contains("2 |   (tick: 1, set: (\"nokey\", true)),\n  |   ^"),
        "{err}"
    );
}

fn bt(path: &str) -> String {
    repo("crates/wyrd_bt/tests/trees")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

fn sim_lines(tree: &str, script: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let mut args = vec!["sim", tree, "--script", script];
    args.extend_from_slice(extra);
    let o = wyrd(&args);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    text(&o)
        .0
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn active(line: &serde_json::Value) -> Vec<String> {
    line["active"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn check_accepts_the_halo_tree() {
    let o = wyrd(&[
        "check",
        repo("assets/squad_ai/combat.bt.ron").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(text(&o).0.contains("ok (62 nodes"), "{:?}", text(&o));
    let bad = repo("crates/wyrd_bt/tests/malformed/cycle.bt.ron");
    let o = wyrd(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("cycle.bt.ron:4:"), "{:?}", text(&o));
}

#[test]
fn sim_prints_one_json_line_per_tick_with_active_paths_and_flags() {
    let tree = repo("assets/squad_ai/combat.bt.ron")
        .to_string_lossy()
        .into_owned();
    let lines = sim_lines(&tree, &bt("combat_infantry.script.ron"), &[]);
    assert_eq!(lines.len(), 70);
    assert_eq!(lines[0]["tick"], 1);
    assert_eq!(active(&lines[0]), ["root/idle/Patrol"]);
    // The target appears: engage interrupts idle on the next tick.
    assert_eq!(active(&lines[1]), ["root/engage/combat/fight/Aim"]);
    // The stimulus fires at tick 10 and runs in its place for 1.5 s.
    assert_eq!(active(&lines[9]), ["root/flee_leader_died/Scream"]);
    let fleeing: Vec<usize> = (0..70)
        .filter(|&i| {
            active(&lines[i])
                .iter()
                .any(|p| p.starts_with("root/flee_leader_died"))
        })
        .collect();
    assert_eq!(fleeing.first(), Some(&9));
    assert!(
        (44..=46).contains(&fleeing.len()),
        "{} ticks",
        fleeing.len()
    );
    // Then it expired and fighting resumed.
    let after = fleeing.last().unwrap() + 1;
    assert!(
        active(&lines[after])[0].starts_with("root/engage/"),
        "{:?}",
        active(&lines[after])
    );
    // The grenade at tick 65: self-preservation interrupts.
    assert_eq!(active(&lines[64]), ["root/self_preservation/evade/Crouch"]);
    // Flags: every node, with letters.
    // Unpaused; the cycles it completed before do not count: a repeating
    // root starts each cycle as a new activation (DESIGN "Activations").
    assert_eq!(lines[64]["flags"]["root"], "D");
    assert_eq!(lines[64]["flags"]["root/search"], "PD");
    assert_eq!(lines[64]["status"], "running");
}

#[test]
fn a_passenger_never_considers_flight() {
    let tree = repo("assets/squad_ai/combat.bt.ron")
        .to_string_lossy()
        .into_owned();
    let lines = sim_lines(&tree, &bt("combat_passenger.script.ron"), &[]);
    for l in &lines[2..] {
        let a = active(l);
        if a.is_empty() {
            // The tree finished a cycle (fight succeeded); it starts again.
            assert_eq!(l["status"], "success");
            continue;
        }
        assert!(
            a.iter().all(|p| !p.contains("flee")
                && !p.contains("self_preservation")
                && !p.contains("retreat")),
            "{a:?}"
        );
        assert!(a[0].starts_with("root/engage/combat/"), "{a:?}");
    }
}

#[test]
fn sim_shows_rule_flags_and_is_reproducible() {
    let lines = sim_lines(&bt("session.bt.ron"), &bt("session.script.ron"), &[]);
    let flags = |t: usize, p: &str| lines[t - 1]["flags"][p].as_str().unwrap().to_owned();
    assert_eq!(flags(1, "session/drive_to_a"), "D");
    assert_eq!(flags(1, "session/deliveries"), "PD");
    assert_eq!(flags(2, "session/drive_to_a"), "PCWD");
    assert_eq!(flags(3, "session/deliveries/parcel_2"), "CWD");
    // Parcel 2 lost COMPLETE, kept WAS_COMPLETE; with parcel 1 the block completes.
    assert_eq!(flags(4, "session/deliveries/parcel_2"), "PWD");
    assert_eq!(flags(4, "session/deliveries"), "PCWD");
    assert_eq!(lines[5]["status"], "success");
    let again = sim_lines(&bt("session.bt.ron"), &bt("session.script.ron"), &[]);
    assert_eq!(lines, again);
    let shorter = sim_lines(
        &bt("session.bt.ron"),
        &bt("session.script.ron"),
        &["--ticks", "3", "--seed", "9"],
    );
    assert_eq!(shorter.len(), 3);
}

#[test]
fn graph_writes_dot_and_mermaid() {
    let tree = repo("assets/squad_ai/combat.bt.ron")
        .to_string_lossy()
        .into_owned();
    let o = wyrd(&["graph", &tree]);
    assert_eq!(o.status.code(), Some(0));
    let dot = text(&o).0;
    assert!(dot.starts_with("digraph tree {"));
    assert!(
        dot.contains("style=dashed, label=\"redirect\""),
        "the scared impulse's jump is drawn"
    );
    // A condition of several checks shows them (a new user's graph read
    // `?any` for `Any([Is("grenade_near"), ...])`).
    assert!(
        dot.contains("in_danger\\n?any(?grenade_near, ?health_low, ?scared)"),
        "{dot}"
    );
    // Issue 23: the detached behaviors (stimulus targets) are drawn, each
    // in its own dashed box, and conditions show what they check.
    assert!(
        dot.contains("label=\"~flee_leader_died (stimulus target)\"; style=dashed;"),
        "{dot}"
    );
    assert!(dot.contains("Condition\\n?cover_available"), "{dot}");
    let evaluation = repo("assets/drone_quest/evaluation.bt.ron")
        .to_string_lossy()
        .into_owned();
    let dot = text(&wyrd(&["graph", &evaluation])).0;
    assert!(dot.contains("QST_DST_TOWER_5_COMPLT"), "{dot}");
    let o = wyrd(&["graph", &tree, "--format", "mermaid"]);
    let mermaid = text(&o).0;
    assert!(mermaid.starts_with("flowchart TD"));
    assert!(
        mermaid.contains("subgraph stimulus_3[\"~flee_leader_died (stimulus target)\"]"),
        "{mermaid}"
    );
    assert_eq!(
        wyrd(&["graph", &tree, "--format", "svg"]).status.code(),
        Some(2)
    );
}

#[test]
fn check_validates_sim_scripts_against_their_tree() {
    let dir = tempfile::tempdir().unwrap();
    let case = |name: &str| {
        repo("crates/wyrd_bt/tests/conformance")
            .join(name)
            .to_string_lossy()
            .into_owned()
    };
    // A conformance case: the script sits beside its tree.
    let o = wyrd(&["check", &case("std_switch_changes_case.script.ron")]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(
        text(&o).0.contains("ok (2 events, against"),
        "{:?}",
        text(&o)
    );
    // A script naming things the tree lacks: each event with line:column.
    let bad = dir.path().join("bad.script.ron");
    std::fs::write(
        &bad,
        "(\n  events: [\n    (tick: 1, set: (\"varr\", 1)),\n    (tick: 2, finish: (\"root/nine\", Success)),\n  ],\n)\n",
    )
    .unwrap();
    let o = wyrd(&[
        "check",
        &case("std_switch_changes_case.bt.ron"),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    let err = text(&o).1;
    assert!(
        err.contains("bad.script.ron:3:5: event 1 (tick 1): unknown blackboard key \"varr\""),
        "{err}"
    );
    assert!(
        err.contains(
            "bad.script.ron:4:5: event 2 (tick 2): no action leaf has the path \"root/nine\""
        ),
        "{err}"
    );
    // `wyrd sim` finds them before the first tick too (it ran the ticks
    // before a misspelt path, then failed there), with nothing on stdout.
    let o = wyrd(&[
        "sim",
        &case("std_switch_changes_case.bt.ron"),
        "--script",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    let (out, err) = text(&o);
    assert!(out.is_empty(), "no tick ran: {out}");
    assert!(
        err.contains("bad.script.ron:3:5: event 1 (tick 1)"),
        "{err}"
    );
    assert!(
        err.contains("bad.script.ron:4:5: event 2 (tick 2)"),
        "{err}"
    );
    // No tree to check against: said so.
    let o = wyrd(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).1.contains("which tree does this script drive?"),
        "{:?}",
        text(&o)
    );
}

#[test]
fn sim_lines_carry_started_finished_aborted_and_ticked() {
    let case = |name: &str| {
        repo("crates/wyrd_bt/tests/conformance")
            .join(name)
            .to_string_lossy()
            .into_owned()
    };
    let lines = sim_lines(
        &case("halo_prioritized_list_interrupts_by_taking_over.bt.ron"),
        &case("halo_prioritized_list_interrupts_by_taking_over.script.ron"),
        &[],
    );
    assert_eq!(lines[1]["started"], serde_json::json!(["root/flee/Run"]));
    assert_eq!(lines[1]["aborted"], serde_json::json!(["root/idle"]));
    assert_eq!(
        lines[1]["ticked"],
        serde_json::json!(["root", "root/flee", "root/flee/?danger", "root/flee/Run"])
    );
    assert_eq!(lines[3]["finished"], serde_json::json!({}));
}

#[test]
fn graph_labels_switch_cases_and_branches() {
    let tree = repo("crates/wyrd_bt/tests/conformance/std_switch_changes_case.bt.ron");
    let o = wyrd(&["graph", tree.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let dot = text(&o).0;
    assert!(
        dot.contains("[label=\"= 1\"]") && dot.contains("[label=\"default\"]"),
        "{dot}"
    );
    assert!(dot.contains("Switch\\nroot"), "{dot}");
}

/// A node's own fields are drawn beside its kind (a new user's graph left
/// out every duration and count): `seconds=`, `count=`, `attempts=`,
/// thresholds other than the defaults, `skip=true`.
#[test]
fn graph_shows_the_nodes_own_fields() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("fields.bt.ron");
    std::fs::write(
        &tree,
        r#"(
    blackboard: {"go": true},
    root: Sequence(name: "root", children: [
        Repeat(name: "thrice", count: 3, child: Wait(name: "pause", seconds: 1.5)),
        RetryUntilSuccessful(name: "again", attempts: 2, child: Timeout(name: "limit", seconds: 0.25, child: Action(action: "Dig"))),
        Parallel(name: "both", success: Count(2), children: [Succeed(), Succeed(), Fail()]),
        Guard(name: "while", when: [Is("go")], skip: true, child: Succeed()),
    ]),
)"#,
    )
    .unwrap();
    let o = wyrd(&["graph", tree.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let dot = text(&o).0;
    for shown in [
        "Repeat\\nthrice\\ncount=3",
        "Wait\\npause\\nseconds=1.5",
        "RetryUntilSuccessful\\nagain\\nattempts=2",
        "Timeout\\nlimit\\nseconds=0.25",
        "Parallel\\nboth\\nsuccess=Count(2)",
        "skip=true",
    ] {
        assert!(dot.contains(shown), "{shown} in {dot}");
    }
    // A world-state check shows the values it checks (its automatic name
    // has the names only: a designer read `?NPC_DRONE_SPK_01` as "true").
    let o = wyrd(&[
        "graph",
        repo("assets/drone_quest/evaluation.bt.ron")
            .to_str()
            .unwrap(),
    ]);
    let dot = text(&o).0;
    assert!(dot.contains("?World(NPC_DRONE_SPK_01==false)"), "{dot}");
}

/// Issue 15: per-command help with examples; usage errors exit 2.
#[test]
fn every_command_has_its_own_help() {
    let o = wyrd(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    for c in ["check", "sim", "graph", "save"] {
        assert!(text(&o).0.contains(c), "{c} in {:?}", text(&o).0);
    }
    for args in [
        &["check", "--help"][..],
        &["sim", "--help"],
        &["graph", "--help"],
        &["save", "status", "--help"],
    ] {
        let o = wyrd(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert!(text(&o).0.contains("Example"), "{args:?}: {:?}", text(&o).0);
    }
    let o = wyrd(&["sim", "tree.bt.ron"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("--script"), "{:?}", text(&o));
}

/// Every `wyrd` command the README shows parses with the real flags; the
/// ones on the repository's own files succeed.
#[test]
fn the_readme_commands_use_the_real_flags() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let section = readme
        .split("## The `wyrd` command")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("README has a `wyrd` section");
    let mut seen = 0;
    for line in section.lines() {
        let Some(args) = line.strip_prefix("cargo run -p wyrd_cli -- ") else {
            continue;
        };
        let args: Vec<&str> = args.split('#').next().unwrap().split_whitespace().collect();
        let o = Command::new(env!("CARGO_BIN_EXE_wyrd"))
            .args(&args)
            .current_dir(repo(""))
            .output()
            .unwrap();
        let (_, err) = text(&o);
        // 2 is a usage error (with `--exit-code` also a bad file: the
        // README's are the reader's; a usage error shows clap's usage).
        if args.contains(&"--exit-code") {
            assert!(!err.contains("Usage:"), "README: wyrd {args:?}: {err}");
        } else {
            assert_ne!(o.status.code(), Some(2), "README: wyrd {args:?}: {err}");
        }
        // Saves and keys of the README are the reader's; the rest are ours.
        if !args.contains(&"--key-file") {
            assert_eq!(o.status.code(), Some(0), "README: wyrd {args:?}: {err}");
        }
        seen += 1;
    }
    assert!(seen >= 8, "README shows {seen} wyrd commands");
}

/// Issue 14: `wyrd graph` shows each action's parameters as bound at its
/// place (squad_ai's `reach_cover` subtree, used twice with different
/// speeds), and `wyrd sim` scripts set entity and vector values.
#[test]
fn graph_shows_bindings_and_sim_sets_the_new_value_kinds() {
    let tree = repo("assets/squad_ai/combat.bt.ron");
    let o = wyrd(&["graph", tree.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let dot = text(&o).0;
    assert!(
        dot.contains("!MoveToCover\\nspeed=150 spot={cover} ticks=2"),
        "{dot}"
    );
    assert!(
        dot.contains("!MoveToCover\\nspeed=100 spot={cover} ticks=3"),
        "{dot}"
    );
    assert!(dot.contains("!Shoot\\nat={target}"), "{dot}");

    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("t.bt.ron");
    std::fs::write(
        &tree,
        r#"(blackboard: {"target": Entity, "spot": Vec2},
            root: PrioritizedList(name: "root", children: [
                GuardSequence(name: "chase", children: [
                    Condition(check: Bb("target", Eq, Entity(3))),
                    Action(action: "MoveTo", params: {"goal": "{spot}"}),
                ]),
                Action(name: "idle", action: "Idle"),
            ]))"#,
    )
    .unwrap();
    let script = dir.path().join("t.script.ron");
    std::fs::write(
        &script,
        r#"(ticks: 3, events: [(tick: 2, set: ("target", Entity(3))), (tick: 2, set: ("spot", (4.0, 5.0)))])"#,
    )
    .unwrap();
    let lines = sim_lines(tree.to_str().unwrap(), script.to_str().unwrap(), &[]);
    assert_eq!(active(&lines[0]), ["root/idle"]);
    assert_eq!(active(&lines[1]), ["root/chase/MoveTo"]);
}

/// The README's tree example is a tree that loads.
#[test]
fn the_readme_tree_example_checks() {
    let readme = std::fs::read_to_string(repo("README.md")).unwrap();
    let from = readme
        .find("A behavior tree (")
        .expect("the README shows a tree");
    let start = readme[from..].find("```ron").unwrap() + from + "```ron".len();
    let end = readme[start..].find("```").unwrap() + start;
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("readme.bt.ron");
    std::fs::write(&tree, &readme[start..end]).unwrap();
    let o = wyrd(&["check", tree.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
}

/// Issue 17: `wyrd diff` prints what changed by node path.
#[test]
fn diff_prints_the_changes_by_path() {
    let dir = tempfile::tempdir().unwrap();
    let tree = repo("assets/squad_ai/combat.bt.ron");
    let source = std::fs::read_to_string(&tree).unwrap();
    let edited = dir.path().join("combat.bt.ron");
    std::fs::write(
        &edited,
        source.replace("Bb(\"ammo\", Lt, 10)", "Bb(\"ammo\", Lt, 12)"),
    )
    .unwrap();
    let o = wyrd(&["diff", tree.to_str().unwrap(), edited.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // An unnamed condition is named after its check: the edit renames it,
    // and its parent (which lists its children) changes with it.
    assert_eq!(
        text(&o).0,
        "~ root/retreat\n+ root/retreat/?ammo<12\n- root/retreat/?ammo<10\n1 changed, 1 added, 1 removed (0 moved): root/retreat, root/retreat/?ammo<12, root/retreat/?ammo<10\n"
    );
    let o = wyrd(&["diff", tree.to_str().unwrap(), tree.to_str().unwrap()]);
    assert_eq!(text(&o).0, "no change\n");
    // `--exit-code`, for CI: 1 when they differ, 0 when not.
    let (t, e) = (tree.to_str().unwrap(), edited.to_str().unwrap());
    assert_eq!(wyrd(&["diff", t, e, "--exit-code"]).status.code(), Some(1));
    assert_eq!(wyrd(&["diff", t, t, "--exit-code"]).status.code(), Some(0));
}

/// Issue 24, 8: nothing said how to make the 32-hex ids; `wyrd flags new`
/// prints a declaration with a fresh one, which a flags file accepts.
#[test]
fn flags_new_prints_a_declaration_with_a_fresh_id() {
    let one = text(&wyrd(&["flags", "new", "SMITH_MET"])).0;
    let two = text(&wyrd(&["flags", "new", "ALARMS_RAISED", "--counter"])).0;
    assert!(
        one.starts_with("(id: \"") && one.ends_with(", name: \"SMITH_MET\", default: false),\n"),
        "{one}"
    );
    assert!(
        two.ends_with(", name: \"ALARMS_RAISED\", default: 0),\n"),
        "{two}"
    );
    assert_ne!(one[..42], two[..42], "fresh ids");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("w.flags.ron");
    std::fs::write(&file, format!("(flags: [{one}], counters: [{two}])")).unwrap();
    let o = wyrd(&["check", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
}

/// A script emitted from a recording names its tree in a `// tree: PATH`
/// line, and `wyrd check` finds it there (from the current folder, else
/// from the script's): checking one no longer needs `--tree`.
#[test]
fn a_script_that_names_its_tree_is_checked_against_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("guard.bt.ron"),
        r#"(root: Sequence(name: "root", children: [Action(name: "walk", action: "Walk")]))"#,
    )
    .unwrap();
    let script = dir.path().join("regression.script.ron");
    let write = |tree: &str, path: &str| {
        std::fs::write(
            &script,
            format!(
                "// tree: {tree}\n(ticks: 3, events: [(tick: 2, finish: (\"{path}\", Success))])\n"
            ),
        )
        .unwrap();
        wyrd(&["check", script.to_str().unwrap()])
    };
    let o = write("guard.bt.ron", "root/walk");
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(text(&o).0.contains("against"), "{:?}", text(&o));
    // Checked against it: a path the tree does not have is an error.
    let o = write("guard.bt.ron", "root/run");
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    // A tree named nowhere to be found: the usual question.
    let o = write("nowhere.bt.ron", "root/walk");
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    assert!(text(&o).1.contains("names no file"), "{:?}", text(&o));
}

/// The names of a world action's parameters (`SetFlagValue`, and a
/// game's own registered with `register_bt_world_action`) are checked
/// against the flags files as a `World(..)` condition's are: a misspelt
/// flag was `ok`, and its reward never paid.
#[test]
fn check_reads_the_flags_a_world_action_writes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("w.flags.ron"),
        r#"(flags: [(id: "000000000000000000000000000000a1", name: "QST_TOWERS_5_DONE", default: false)])"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("game.vocabulary.json"),
        r#"{"format": "wyrd-vocabulary", "version": 1,
        "actions": [{"name": "SetFlagValue"}], "predicates": [], "nodes": [],
        "world_files": ["w.flags.ron"], "world_actions": ["SetFlagValue"]}"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("wyrd.toml"),
        "vocabulary = \"game.vocabulary.json\"\n",
    )
    .unwrap();
    let tree = dir.path().join("eval.bt.ron");
    std::fs::write(
        &tree,
        "(root: Sequence(name: \"eval\", children: [\n    Action(action: \"SetFlagValue\", params: {\"QST_TOWERS_5_DONEE\": true}),\n]))",
    )
    .unwrap();
    let o = wyrd(&["check", &tree.to_string_lossy()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        err.contains("eval.bt.ron:2:46: no flags file declares the world value \"QST_TOWERS_5_DONEE\"; did you mean \"QST_TOWERS_5_DONE\"?"),
        "{err}"
    );
    // A counter's write to a flag (it passed, then failed the evaluation),
    // and a key for a value (it did nothing, silently).
    let write = |params: &str| {
        std::fs::write(
            &tree,
            format!("(blackboard: {{\"done\": true}}, root: Sequence(name: \"eval\", children: [\n    Action(action: \"SetFlagValue\", params: {{{params}}}),\n]))"),
        )
        .unwrap();
        let o = wyrd(&["check", &tree.to_string_lossy()]);
        (o.status.code(), text(&o).1)
    };
    let (code, err) = write(r#""QST_TOWERS_5_DONE": 3"#);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("QST_TOWERS_5_DONE is a flag (true or false); the action here writes 3 to it"),
        "{err}"
    );
    let (code, err) = write(r#""QST_TOWERS_5_DONE": "{done}""#);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("is given a key (a world action's values are constants)"),
        "{err}"
    );
    let (code, err) = write(r#""QST_TOWERS_5_DONE": true"#);
    assert_eq!(code, Some(0), "{err}");
    // `wyrd sim` with the vocabulary (the wyrd.toml above): the world
    // action writes its flag and succeeds, as the game's handler does,
    // and a condition on the flag then holds (a stranger scripted a
    // `world` and a `finish` event per node).
    std::fs::write(
        &tree,
        "(root: Sequence(name: \"eval\", children: [\n    Action(name: \"pay\", action: \"SetFlagValue\", params: {\"QST_TOWERS_5_DONE\": true}),\n    Condition(name: \"paid\", check: World(\"QST_TOWERS_5_DONE\", Eq, true)),\n]))",
    )
    .unwrap();
    let script = dir.path().join("two.script.ron");
    std::fs::write(&script, "(ticks: 2, mode: Once)").unwrap();
    let o = wyrd(&[
        "sim",
        &tree.to_string_lossy(),
        "--script",
        &script.to_string_lossy(),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let second: serde_json::Value = serde_json::from_str(out.lines().nth(1).unwrap()).unwrap();
    assert_eq!(second["status"], "success", "{out}");
    assert_eq!(second["finished"]["eval/pay"], "success", "{out}");
}

/// A vocabulary written into its game's folder of the assets, its flags
/// files named by asset path: `--vocabulary FILE` finds them without
/// `--assets` (the vocabulary of the repository's own first_ai was
/// refused), and `wyrd sim --vocabulary` does not read them at all.
#[test]
fn a_vocabulary_in_its_games_folder_finds_its_flags_files() {
    let vocabulary = repo("assets/first_ai/first_ai.vocabulary.json");
    let tree = repo("assets/first_ai/guard.bt.ron");
    let o = Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args([
            "check",
            "--vocabulary",
            &vocabulary.to_string_lossy(),
            &tree.to_string_lossy(),
        ])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("one.script.ron");
    std::fs::write(&script, "(ticks: 1)").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args([
            "sim",
            &tree.to_string_lossy(),
            "--script",
            &script.to_string_lossy(),
            "--vocabulary",
            &vocabulary.to_string_lossy(),
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
}

/// A script expects blackboard values too (`expect_value`): a port of a
/// BT.CPP `Script` or `SubTree` checks what the tree wrote, where a new
/// user had to write game code to see it. A number is the key's type
/// (`3` holds for a float key at 3.0); a wrong value, an unset key, a
/// misspelt key fail, the last before the first tick.
#[test]
fn a_script_expects_blackboard_values() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("count.bt.ron");
    std::fs::write(
        &tree,
        r#"(
    blackboard: {"n": 0, "f": 0.5, "target": Entity},
    root: Sequence(name: "root", children: [
        AddBlackboard(key: "n", by: 1),
        AddBlackboard(key: "f", by: 2.5),
        Wait(seconds: 10.0),
    ]),
)"#,
    )
    .unwrap();
    let script = dir.path().join("count.script.ron");
    let run = |events: &str| {
        std::fs::write(&script, format!("(ticks: 3, events: [{events}])")).unwrap();
        let o = wyrd(&[
            "sim",
            &tree.to_string_lossy(),
            "--script",
            &script.to_string_lossy(),
        ]);
        let (out, err) = text(&o);
        (o.status.code(), out, err)
    };
    let (code, out, err) =
        run(r#"(tick: 1, expect_value: ("n", 1)), (tick: 1, expect_value: ("f", 3))"#);
    assert_eq!(code, Some(0), "{out}{err}");
    let (code, _, err) = run(r#"(tick: 2, expect_value: ("n", 2))"#);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("expected \"n\" to hold 2 after tick 2; it holds 1"),
        "{err}"
    );
    let (code, _, err) = run(r#"(tick: 1, expect_value: ("target", 3))"#);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot hold 3"), "{err}");
    let (code, out, err) = run(r#"(tick: 1, expect_value: ("nn", 1))"#);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("no blackboard key \"nn\"; did you mean \"n\"?"),
        "{err}"
    );
    assert!(out.is_empty(), "checked before the first tick: {out}");
}

/// `wyrd sim` runs a tree with the game's actions' parameters (from the
/// vocabulary file of the `wyrd.toml` above it, or `--vocabulary`): an
/// action whose input key is unset fails without starting, as in the game.
/// A new user's recording diverged at tick 1 (the sim started the action),
/// and sim had no `--vocabulary`.
#[test]
fn sim_takes_the_actions_parameters_from_the_games_vocabulary() {
    let dir = tempfile::tempdir().unwrap();
    let game = dir.path().join("game");
    std::fs::create_dir_all(&game).unwrap();
    let tree = game.join("enemy.bt.ron");
    std::fs::write(
        &tree,
        r#"(
    blackboard: {"goal": Vec3},
    root: Selector(name: "root", children: [
        Action(name: "go", action: "MoveTo", params: {"goal": "{goal}"}),
        Wait(name: "idle", seconds: 1.0),
    ]),
)"#,
    )
    .unwrap();
    let vocabulary = r#"{"format": "wyrd-vocabulary", "version": 1,
        "actions": [{"name": "MoveTo", "params": [{"name": "goal", "type": "Vec3"}]}],
        "predicates": [], "nodes": [], "world_files": []}"#;
    std::fs::write(game.join("enemy.vocabulary.json"), vocabulary).unwrap();
    let script = game.join("two.script.ron");
    std::fs::write(&script, "(ticks: 2)").unwrap();
    let (tree, script) = (tree.to_string_lossy(), script.to_string_lossy());
    let first_tick = |o: &Output| {
        let (out, err) = text(o);
        assert_eq!(o.status.code(), Some(0), "{out}{err}");
        let line: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        (line["active"].clone(), err)
    };
    // No vocabulary: the tool knows no parameters, the action starts.
    let o = wyrd(&["sim", &tree, "--script", &script]);
    assert_eq!(first_tick(&o).0, serde_json::json!(["root/go"]));
    // Given on the line: the unset goal fails the action, as in the game.
    let vocab = game.join("enemy.vocabulary.json");
    let o = wyrd(&[
        "sim",
        &tree,
        "--script",
        &script,
        "--vocabulary",
        &vocab.to_string_lossy(),
    ]);
    let (active, err) = first_tick(&o);
    assert_eq!(active, serde_json::json!(["root/idle"]));
    assert!(err.contains("enemy.vocabulary.json"), "{err}");
    // And why, as the game's log says it (the line said only "failure").
    assert!(
        err.contains("note: tick 1: ")
            && err.contains("enemy.bt.ron: blackboard key \"goal\" was read before it was set"),
        "{err}"
    );
    // From the project file above the tree.
    std::fs::write(
        dir.path().join("wyrd.toml"),
        "vocabulary = \"game/enemy.vocabulary.json\"\n",
    )
    .unwrap();
    let o = wyrd(&["sim", &tree, "--script", &script]);
    assert_eq!(first_tick(&o).0, serde_json::json!(["root/idle"]));
}

/// An error in a file of behaviors that a checked tree uses is shown once,
/// not again for each file that reaches it: `wyrd check assets/` printed
/// a broken `lib.bt.ron`'s error for `main.bt.ron` and again for itself.
/// The tree that uses it still fails, and says where.
#[test]
fn an_error_in_a_used_file_is_shown_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("main.bt.ron"),
        r#"(root: Sequence(name: "root", children: [Use(behavior: "patrol", file: "lib.bt.ron")]))"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("lib.bt.ron"),
        "(\n    blackboard: {\"health\": 10},\n    behaviors: [Sequence(name: \"patrol\", children: [Condition(check: Bb(\"helth\", Lt, 3))])],\n    root: Use(behavior: \"patrol\"),\n)\n",
    )
    .unwrap();
    let o = wyrd(&["check", &dir.path().to_string_lossy()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert_eq!(
        err.matches("unknown blackboard key \"helth\"").count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("main.bt.ron: fails with the error above"),
        "the tree that uses it says so: {err}"
    );
}

/// A stranger's CI (issue 24): `wyrd check assets/` checked an emitted
/// script against whichever tree sorted before it in the folder (or was
/// listed before it), though its `// tree:` line named the right one, and
/// failed a correct script over file names. The script's own line wins
/// over the file order, the tree beside it by file name is found from any
/// folder, and every line says which tree was used.
#[test]
fn a_scripts_named_tree_wins_over_the_trees_listed_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets/mine");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::write(
        assets.join("guard.bt.ron"),
        r#"(root: Sequence(name: "root", children: [Action(name: "walk", action: "Walk")]))"#,
    )
    .unwrap();
    std::fs::write(
        assets.join("miner.bt.ron"),
        r#"(root: Sequence(name: "root", children: [Action(name: "dig", action: "Dig")]))"#,
    )
    .unwrap();
    // As `wyrd sim assets/mine/guard.bt.ron --replay ... --emit-script`
    // run from the project writes it, saved beside the tree.
    std::fs::write(
        assets.join("zz_guard_run1.script.ron"),
        "// tree: assets/mine/guard.bt.ron\n(ticks: 3, events: [(tick: 2, finish: (\"root/walk\", Success))])\n",
    )
    .unwrap();
    let p = |f: &str| assets.join(f).to_string_lossy().into_owned();
    // The folder (miner sorts right before the script), from elsewhere.
    let o = wyrd(&["check", &assets.to_string_lossy()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        out.contains("zz_guard_run1.script.ron: ok")
            && out.contains("guard.bt.ron, named by its `// tree:` line"),
        "{out}"
    );
    // Listed after another tree on the line.
    let o = wyrd(&[
        "check",
        &p("guard.bt.ron"),
        &p("miner.bt.ron"),
        &p("zz_guard_run1.script.ron"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // A `// tree:` line left behind by a rename falls back to the tree
    // beside the script, and says so.
    std::fs::write(
        assets.join("guard.script.ron"),
        "// tree: assets/mine/old_guard.bt.ron\n(ticks: 3, events: [(tick: 2, finish: (\"root/walk\", Success))])\n",
    )
    .unwrap();
    let o = wyrd(&["check", &p("guard.script.ron")]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(
        text(&o)
            .0
            .contains("the tree beside it (its `// tree:` line names no file)"),
        "{:?}",
        text(&o)
    );
    // `--tree` still decides, and a failure says against what.
    let o = wyrd(&[
        "check",
        "--tree",
        &p("miner.bt.ron"),
        &p("zz_guard_run1.script.ron"),
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("miner.bt.ron, given with --tree"), "{err}");
}

/// A stranger's CI (issue 24): two flags files that reuse one id, or one
/// name, were each `ok`, and the game refused the second at startup ("is
/// declared in both ...; ... was not applied"). Checked together (on the
/// line, in a folder, or as a vocabulary's world files), they are refused
/// as the game refuses them.
#[test]
fn flags_files_the_game_refuses_together_are_refused_together() {
    let dir = tempfile::tempdir().unwrap();
    let world = dir.path().join("world.flags.ron");
    let extra = dir.path().join("extra.flags.ron");
    std::fs::write(
        &world,
        r#"(flags: [(id: "327c643f2a6b4e0c9d1f5a7b3c8e1d20", name: "ALARM", default: false)],
            counters: [(id: "5904375b06586af41bd4c25aedc0b193", name: "ORE_MINED", default: 0)])"#,
    )
    .unwrap();
    std::fs::write(
        &extra,
        r#"(flags: [(id: "327c643f2a6b4e0c9d1f5a7b3c8e1d20", name: "ALARM2", default: false),
                    (id: "a3f19c7e52d04b8e9c1f6d2a7b4e0c58", name: "ORE_MINED", default: false)])"#,
    )
    .unwrap();
    let (w, x) = (world.to_str().unwrap(), extra.to_str().unwrap());
    let o = wyrd(&["check", w, x]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(
        err.contains("327c643f2a6b4e0c9d1f5a7b3c8e1d20")
            && err.contains("name \"ORE_MINED\" is declared in both"),
        "{err}"
    );
    // Each alone is a valid file, and one named twice (the folder and the
    // file) does not conflict with itself.
    for f in [w, x] {
        assert_eq!(wyrd(&["check", f]).status.code(), Some(0));
    }
    let alone = tempfile::tempdir().unwrap();
    let one = alone.path().join("world.flags.ron");
    std::fs::copy(&world, &one).unwrap();
    let o = wyrd(&[
        "check",
        alone.path().to_str().unwrap(),
        one.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // Two games (a `wyrd.toml` each) are two worlds: the same name in both
    // is no conflict.
    let games = tempfile::tempdir().unwrap();
    for game in ["a", "b"] {
        let d = games.path().join(game);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("wyrd.toml"), "").unwrap();
        std::fs::write(
            d.join("world.flags.ron"),
            r#"(flags: [(id: "327c643f2a6b4e0c9d1f5a7b3c8e1d20", name: "DOOR_OPEN", default: false)])"#,
        )
        .unwrap();
    }
    let o = wyrd(&["check", games.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // A vocabulary whose world files are the two.
    let vocab = dir.path().join("game.vocabulary.json");
    std::fs::write(
        &vocab,
        r#"{"format": "wyrd-vocabulary", "version": 1, "actions": [], "world_files": ["world.flags.ron", "extra.flags.ron"]}"#,
    )
    .unwrap();
    let tree = dir.path().join("t.bt.ron");
    std::fs::write(&tree, r#"(root: Wait(seconds: 1.0))"#).unwrap();
    let o = wyrd(&[
        "check",
        "--vocabulary",
        vocab.to_str().unwrap(),
        tree.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(err.contains("declared in both"), "{err}");
}

/// A stranger's CI (issue 24): a misspelt world value was not reported
/// while the same tree named an unknown action; it showed only once the
/// action was fixed, though every faulty node is to be reported at once.
#[test]
fn a_world_value_typo_is_reported_beside_an_unknown_action() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("world.flags.ron"),
        r#"(counters: [(id: "5904375b06586af41bd4c25aedc0b193", name: "ORE_MINED", default: 0)])"#,
    )
    .unwrap();
    let vocab = dir.path().join("game.vocabulary.json");
    std::fs::write(
        &vocab,
        r#"{"format": "wyrd-vocabulary", "version": 1, "actions": [{"name": "Celebrate", "params": []}], "world_files": ["world.flags.ron"]}"#,
    )
    .unwrap();
    let tree = dir.path().join("t.bt.ron");
    std::fs::write(
        &tree,
        r#"(root: Sequence(name: "root", children: [
    Condition(check: World("ORE_MIND", Ge, 6)),
    Action(action: "Celebrat"),
]))"#,
    )
    .unwrap();
    let o = wyrd(&[
        "check",
        "--vocabulary",
        vocab.to_str().unwrap(),
        tree.to_str().unwrap(),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    assert!(err.contains("\"Celebrat\""), "{err}");
    assert!(
        err.contains("t.bt.ron:2:29: no flags file declares the world value \"ORE_MIND\""),
        "{err}"
    );
}

/// A stranger's CI (issue 24): a tree with a game's custom node
/// (`Custom(kind: "NextPost")`) was refused by `wyrd graph` and `wyrd sim`,
/// by `wyrd check` without a vocabulary (whose ok line says custom nodes
/// are not checked), and by the check of a script or breakpoints file
/// beside it (after the tree itself was `ok`). Without the game's code
/// the tools stand in for the kind: structure is checked and drawn, and
/// `sim` says the node fails there.
#[test]
fn a_tree_with_a_custom_node_is_checked_drawn_and_simulated_without_the_game() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("guard.bt.ron");
    std::fs::write(
        &tree,
        r#"(root: Sequence(name: "root", children: [
    Custom(name: "next", kind: "NextPost"),
    Action(name: "walk", action: "Walk"),
]))"#,
    )
    .unwrap();
    std::fs::write(
        dir.path().join("guard.script.ron"),
        "(ticks: 3, events: [])",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("guard.breakpoints.ron"),
        "(breakpoints: [(node: \"root/walk\")])",
    )
    .unwrap();
    let t = tree.to_str().unwrap();
    let o = wyrd(&["check", dir.path().to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        out.contains("custom nodes"),
        "the ok line says what it did not check: {out}"
    );
    for format in ["dot", "mermaid"] {
        let o = wyrd(&["graph", t, "--format", format]);
        assert_eq!(o.status.code(), Some(0), "{format}: {:?}", text(&o));
        assert!(text(&o).0.contains("NextPost"), "{format}: {:?}", text(&o));
    }
    let script = dir.path().join("guard.script.ron");
    let o = wyrd(&["sim", t, "--script", script.to_str().unwrap()]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(err.contains("\"NextPost\""), "sim says it stood in: {err}");
}

/// A stranger's CI (issue 24): a sim script could assert only through
/// breakpoints; without them `wyrd sim` exited 0 whatever the tree did.
/// `expect: (PATH, Status)` checks a node's status after its tick: the run
/// fails at the first that does not hold, naming the event; `wyrd check`
/// checks the path.
#[test]
fn a_script_expects_node_statuses_and_fails_where_one_does_not_hold() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("guard.bt.ron");
    std::fs::write(
        &tree,
        r#"(
    blackboard: {"enemy": false},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "fight", children: [Condition(check: Is("enemy")), Action(name: "Shoot", action: "Shoot")]),
        Action(name: "Patrol", action: "Patrol"),
    ]),
)"#,
    )
    .unwrap();
    let script = dir.path().join("guard.script.ron");
    let run = |events: &str| {
        std::fs::write(&script, format!("(ticks: 5, events: [{events}])")).unwrap();
        wyrd(&[
            "sim",
            tree.to_str().unwrap(),
            "--script",
            script.to_str().unwrap(),
        ])
    };
    let holds = r#"(tick: 1, expect: ("root/Patrol", Running)),
        (tick: 3, set: ("enemy", true)),
        (tick: 3, expect: ("root/fight/Shoot", Running)),
        (tick: 3, expect: ("root/Patrol", Idle))"#;
    let o = run(holds);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = run(&format!(
        "{holds}, (tick: 4, expect: (\"root/Patrol\", Running))"
    ));
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    let (out, err) = text(&o);
    assert!(
        err.contains(
            "event 5 (tick 4): expected \"root/Patrol\" to be running after tick 4; it is idle"
        ),
        "{err}"
    );
    assert_eq!(
        out.lines().count(),
        4,
        "the ticks up to the failed one: {out}"
    );
    // A run that ends before an expectation (`--ticks 2`) fails: it was
    // never checked.
    std::fs::write(&script, format!("(ticks: 5, events: [{holds}])")).unwrap();
    let o = wyrd(&[
        "sim",
        tree.to_str().unwrap(),
        "--script",
        script.to_str().unwrap(),
        "--ticks",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    assert!(
        text(&o)
            .1
            .contains("the run ended at tick 2: this expectation was never checked"),
        "{:?}",
        text(&o)
    );
    // A path the tree does not have: `check` says so, with the nearest.
    let o = run(r#"(tick: 1, expect: ("root/Patrl", Running))"#);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o)
            .1
            .contains("no node has the path \"root/Patrl\"; did you mean \"root/Patrol\"?"),
        "{:?}",
        text(&o)
    );
}

/// `wyrd check` refuses what the game's loader refuses: a tree in the
/// assets folder (of `--assets` or `wyrd.toml`) that uses a file outside
/// it. Both resolved `..` past the folder away before: the checker said
/// `ok`, and the game silently read the root's file of that name.
#[test]
fn check_refuses_a_use_outside_the_assets_folder() {
    let dir = tempfile::tempdir().unwrap();
    let assets = dir.path().join("assets");
    std::fs::create_dir_all(assets.join("trees")).unwrap();
    let common =
        r#"(behaviors: [Action(name: "flee", action: "Shoot")], root: Use(behavior: "flee"))"#;
    std::fs::write(dir.path().join("common.bt.ron"), common).unwrap();
    std::fs::write(assets.join("common.bt.ron"), common).unwrap();
    let tree = |file: &str| {
        format!(
            r#"(root: Sequence(name: "root", children: [Use(behavior: "flee", file: "{file}")]))"#
        )
    };
    std::fs::write(assets.join("trees/out.bt.ron"), tree("../../common.bt.ron")).unwrap();
    std::fs::write(assets.join("trees/in.bt.ron"), tree("../common.bt.ron")).unwrap();
    let path = |p: &str| assets.join(p).to_string_lossy().into_owned();
    let root = assets.to_string_lossy().into_owned();
    let o = wyrd(&["check", "--assets", &root, &path("trees/out.bt.ron")]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("above the assets folder") && err.contains("../common.bt.ron"),
        "{err}"
    );
    let o = wyrd(&["check", "--assets", &root, &path("trees/in.bt.ron")]);
    assert!(o.status.success(), "{:?}", text(&o));
    // Out and back in is still above the folder for the game's loader
    // (it resolves the tree's asset path, `trees/back.bt.ron`).
    std::fs::write(
        assets.join("trees/back.bt.ron"),
        tree("../../assets/common.bt.ron"),
    )
    .unwrap();
    let o = wyrd(&["check", "--assets", &root, &path("trees/back.bt.ron")]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
    // Without an assets folder it cannot tell, and says so.
    let o = wyrd(&["check", &path("trees/out.bt.ron")]);
    let (out, _) = text(&o);
    assert!(o.status.success(), "{:?}", text(&o));
    assert!(
        out.contains("not checked") && out.contains("the files it uses are in the assets folder"),
        "{out}"
    );
    // The same from a project file.
    std::fs::write(dir.path().join("wyrd.toml"), "assets = \"assets\"\n").unwrap();
    let o = wyrd(&["check", &path("trees/out.bt.ron")]);
    assert_eq!(o.status.code(), Some(1), "{:?}", text(&o));
}
