//! Bad input a designer's session made of the `wyrd` command (a helper
//! hunting for crashes, hangs and wrong `ok`s): each case crashed, hung,
//! said `ok` to a mistake or exited with the wrong code before.

use std::path::Path;
use std::process::{Command, Output};

fn wyrd_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the wyrd binary runs")
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn out(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// No panic: exit 0, 1 or 2, never 101 (a panic) or a signal.
fn no_crash(o: &Output) {
    assert!(
        matches!(o.status.code(), Some(0..=2)),
        "{:?}: {}",
        o.status,
        err(o)
    );
    assert!(!err(o).contains("panicked"), "{}", err(o));
}

const TREE: &str = r#"(
    blackboard: {"danger": false, "alarmed": false},
    root: PrioritizedList(name: "root", children: [
        Sequence(name: "escape", children: [Condition(check: Is("danger")), Action(name: "run", action: "Run")]),
        Action(name: "idle", action: "Idle"),
    ]),
)"#;

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.bt.ron"), TREE).unwrap();
    dir
}

#[test]
fn characters_outside_ascii_and_a_byte_order_mark_do_not_crash() {
    let dir = folder();
    let p = dir.path();
    // A no-break space pasted from a web page: named, at its place.
    std::fs::write(
        p.join("nbsp.bt.ron"),
        TREE.replace("[\n        Sequence", "[\u{a0}Sequence"),
    )
    .unwrap();
    let o = wyrd_in(p, &["check", "nbsp.bt.ron"]);
    no_crash(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        out(&o).contains("U+00A0") || err(&o).contains("U+00A0"),
        "{o:?}"
    );
    // Notepad's byte-order mark: read as nothing, everywhere.
    std::fs::write(p.join("bom.bt.ron"), format!("\u{feff}{TREE}")).unwrap();
    for args in [
        &["check", "bom.bt.ron"][..],
        &["graph", "bom.bt.ron"],
        &["diff", "bom.bt.ron", "t.bt.ron", "--exit-code"],
    ] {
        let o = wyrd_in(p, args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", err(&o));
    }
    std::fs::write(
        p.join("bom.script.ron"),
        "\u{feff}(ticks: 2, events: [(tick: 1, set: (\"danger\", true))])",
    )
    .unwrap();
    let o = wyrd_in(p, &["sim", "t.bt.ron", "--script", "bom.script.ron"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    std::fs::write(p.join("bom.flags.ron"), "\u{feff}(flags: [], counters: [])").unwrap();
    let o = wyrd_in(p, &["check", "bom.flags.ron"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    // An accent in a name is fine.
    std::fs::write(
        p.join("accent.bt.ron"),
        TREE.replace("\"idle\"", "\"repos é\""),
    )
    .unwrap();
    let o = wyrd_in(p, &["check", "accent.bt.ron"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let dir = folder();
    let p = dir.path();
    let deep = |n: usize| {
        format!(
            "(root: {}Action(action: \"X\"){})",
            "Sequence(children: [".repeat(n),
            "])".repeat(n)
        )
    };
    std::fs::write(p.join("deep.bt.ron"), deep(3000)).unwrap();
    std::fs::write(p.join("brackets.bt.ron"), "[".repeat(5000)).unwrap();
    for file in ["deep.bt.ron", "brackets.bt.ron"] {
        let o = wyrd_in(p, &["check", file]);
        no_crash(&o);
        assert_eq!(o.status.code(), Some(1), "{file}");
        let shown = out(&o) + &err(&o);
        assert!(
            shown.len() < 4000,
            "{file}: the long line is cut: {}",
            shown.len()
        );
    }
    let o = wyrd_in(p, &["check", "deep.bt.ron"]);
    assert!(
        (out(&o) + &err(&o)).contains("nest deeper than a tree file may"),
        "{o:?}"
    );
}

#[test]
fn scripts_are_refused_alike_by_check_and_sim() {
    let dir = folder();
    let p = dir.path();
    let cases = [
        // An event at a tick mistyped by some zeros ran for hours.
        (
            "far",
            "(events: [(tick: 10000000000, set: (\"danger\", true))])",
            "past the last",
        ),
        (
            "max",
            "(events: [(tick: 18446744073709551615, set: (\"danger\", true))])",
            "past the last",
        ),
        (
            "zero",
            "(ticks: 3, events: [(tick: 0, set: (\"danger\", true))])",
            "count from 1",
        ),
        (
            "hz",
            "(hz: 0.0, ticks: 3, events: [])",
            "hz is the ticks per second",
        ),
        (
            "stimulus",
            "(ticks: 3, events: [(tick: 1, stimulus: (at: \"root\", behavior: \"b\", seconds: -1.5))])",
            "above 0",
        ),
    ];
    for (name, script, says) in cases {
        let file = format!("{name}.script.ron");
        std::fs::write(p.join(&file), script).unwrap();
        let sim = wyrd_in(p, &["sim", "t.bt.ron", "--script", &file]);
        no_crash(&sim);
        assert_eq!(sim.status.code(), Some(1), "{name}: {}", out(&sim));
        assert!(err(&sim).contains(says), "{name}: {}", err(&sim));
        let check = wyrd_in(p, &["check", "--tree", "t.bt.ron", &file]);
        assert_eq!(check.status.code(), Some(1), "{name}");
        assert!(
            (out(&check) + &err(&check)).contains(says),
            "{name}: {check:?}"
        );
    }
    // In the file, an event after `ticks` is a mistake (a run with
    // `--ticks` stops early on purpose); a finish path with a made-up
    // prefix too.
    std::fs::write(
        p.join("after.script.ron"),
        "(ticks: 3, events: [(tick: 5, set: (\"danger\", true))])",
    )
    .unwrap();
    std::fs::write(
        p.join("prefix.script.ron"),
        "(ticks: 3, events: [(tick: 2, finish: (\"typo/root/idle\", Success))])",
    )
    .unwrap();
    for (file, says) in [
        ("after.script.ron", "never happens"),
        ("prefix.script.ron", "no action leaf has the path"),
    ] {
        let o = wyrd_in(p, &["check", "--tree", "t.bt.ron", file]);
        assert_eq!(o.status.code(), Some(1), "{file}");
        assert!((out(&o) + &err(&o)).contains(says), "{file}: {o:?}");
    }
}

#[test]
fn options_of_the_other_mode_and_bad_names_are_usage_errors() {
    let dir = folder();
    let p = dir.path();
    std::fs::write(p.join("s.script.ron"), "(ticks: 2, events: [])").unwrap();
    for args in [
        &["sim", "t.bt.ron", "--script", "s.script.ron", "--stats"][..],
        &[
            "sim",
            "t.bt.ron",
            "--script",
            "s.script.ron",
            "--emit-script",
        ],
        &["sim", "t.bt.ron", "--replay", "r.json", "--ticks", "3"],
        &["flags", "new", ""],
        &["flags", "new", "two words"],
        &["flags", "new", "A\"B"],
    ] {
        let o = wyrd_in(p, args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", out(&o));
    }
    // A node name that cannot be a path segment.
    for name in ["a/b", "", "~x"] {
        std::fs::write(
            p.join("n.bt.ron"),
            TREE.replace("\"idle\"", &format!("{name:?}")),
        )
        .unwrap();
        let o = wyrd_in(p, &["check", "n.bt.ron"]);
        assert_eq!(o.status.code(), Some(1), "{name:?}");
        assert!(
            (out(&o) + &err(&o)).contains("node name"),
            "{name:?}: {o:?}"
        );
    }
}

#[test]
fn graph_escapes_what_names_hold() {
    let dir = folder();
    let p = dir.path();
    std::fs::write(
        p.join("b.bt.ron"),
        TREE.replace("\"idle\"", r#""C:\\temp\\""#),
    )
    .unwrap();
    let o = wyrd_in(p, &["graph", "b.bt.ron"]);
    assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    assert!(
        out(&o).contains(r#"label="!Idle\nC:\\temp\\""#),
        "{}",
        out(&o)
    );
}

#[test]
fn diff_reports_a_changed_declaration() {
    let dir = folder();
    let p = dir.path();
    std::fs::write(
        p.join("u.bt.ron"),
        TREE.replace("\"alarmed\": false", "\"alarmed\": true"),
    )
    .unwrap();
    let o = wyrd_in(p, &["diff", "t.bt.ron", "u.bt.ron", "--exit-code"]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(
        out(&o).contains("~ blackboard \"alarmed\": bool false -> bool true"),
        "{}",
        out(&o)
    );
}

#[test]
fn saves_a_game_would_refuse_are_refused() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../wyrd_state/tests/fixtures");
    let key = fixtures.join("test.key");
    let key = key.to_str().unwrap();
    let seed = std::fs::read_to_string(fixtures.join("seed_save.json")).unwrap();
    let body = seed.split_once('\n').unwrap().1;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let sign = |name: &str, text: &str| {
        std::fs::create_dir_all(p.join(name).parent().unwrap()).unwrap();
        std::fs::write(p.join(format!("{name}.plain")), text).unwrap();
        let o = wyrd_in(
            p,
            &[
                "save",
                "sign",
                &format!("{name}.plain"),
                "--key-file",
                key,
                "-o",
                name,
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{}", err(&o));
    };
    // A world state with `BoolFlags` misspelt was taken for a game's own
    // document and said `ok`.
    // (Signed under another name, where it passes as a game's own
    // document: signing it as `world_state.json` is refused too.)
    let typo = body
        .replace("BoolFlags", "Boolflags")
        .replace("IntCounters", "Intcounters");
    sign("own.json", &typo);
    std::fs::create_dir(p.join("typo")).unwrap();
    std::fs::copy(p.join("own.json"), p.join("typo/world_state.json")).unwrap();
    let o = wyrd_in(
        p,
        &["save", "verify", "typo/world_state.json", "--key-file", key],
    );
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(err(&o).contains("BoolFlags"), "{}", err(&o));
    // One flag id twice: the game would keep one value, silently.
    let first = body.find("\"Id\": \"").unwrap();
    let id = &body[first + 7..first + 39];
    let second = body[first + 39..].find("\"Id\": \"").unwrap() + first + 39;
    let twice = format!("{}{id}{}", &body[..second + 7], &body[second + 39..]);
    // (`save sign` checks what it signs as `verify` does.)
    std::fs::write(p.join("dup.plain"), &twice).unwrap();
    let o = wyrd_in(
        p,
        &[
            "save",
            "sign",
            "dup.plain",
            "--key-file",
            key,
            "-o",
            "dup.json",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    assert!(err(&o).contains("listed twice"), "{}", err(&o));
    // An empty folder has nothing usable; a note beside a save is not one.
    std::fs::create_dir(p.join("empty")).unwrap();
    let o = wyrd_in(p, &["save", "status", "empty", "--key-file", key]);
    assert_eq!(o.status.code(), Some(1), "{}", out(&o));
    std::fs::create_dir(p.join("notes")).unwrap();
    std::fs::write(p.join("notes/README.txt"), "my notes").unwrap();
    std::fs::copy(
        fixtures.join("seed_save.json"),
        p.join("notes/world_state.json"),
    )
    .unwrap();
    let o = wyrd_in(p, &["save", "status", "notes", "--key-file", key]);
    assert_eq!(o.status.code(), Some(0), "{}", out(&o));
    assert!(!out(&o).contains("README"), "{}", out(&o));
}
