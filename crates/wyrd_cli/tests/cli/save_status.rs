//! `wyrd save status DIR` and `wyrd save diff A B`.

use std::path::Path;
use std::process::{Command, Output};

fn wyrd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args(args)
        .output()
        .expect("the wyrd binary runs")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../wyrd_state/tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// `wyrd save status DIR` with the fixture key.
fn status(dir: &Path) -> Output {
    wyrd(&[
        "save",
        "status",
        dir.to_str().unwrap(),
        "--key-file",
        &fixture("test.key"),
    ])
}

/// Signs `body` with the fixture key.
fn sign(dir: &Path, name: &str, body: &str) -> String {
    let plain = dir.join(format!("{name}.plain"));
    std::fs::write(&plain, body).unwrap();
    let out = dir.join(name);
    let o = wyrd(&[
        "save",
        "sign",
        plain.to_str().unwrap(),
        "--key-file",
        &fixture("test.key"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    std::fs::remove_file(plain).unwrap();
    out.to_string_lossy().into_owned()
}

#[test]
fn status_says_which_copy_would_load_and_why_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::fs::read(fixture("seed_save.json")).unwrap();
    std::fs::write(dir.path().join("world_state.json"), b"edited by hand").unwrap();
    std::fs::write(dir.path().join("world_state.json.bak"), &seed).unwrap();
    let o = status(dir.path());
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("1 document(s); would load: loaded save point 0"),
        "{out}"
    );
    assert!(out.contains("world_state.json: from its backup"), "{out}");
    assert!(out.contains("the file has no signature line"), "{out}");
    assert!(
        out.contains("world_state.json.bak         valid, save point 0  <- loads"),
        "{out}"
    );
    assert!(
        out.contains("progress: 5 flag(s) and 1 counter(s) saved, last saved 2026-"),
        "{out}"
    );
    // A survey: nothing moved, nothing repaired.
    assert_eq!(
        std::fs::read(dir.path().join("world_state.json")).unwrap(),
        b"edited by hand"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

/// A game's own unsigned JSON file beside its save slot (its positions,
/// written by the game itself) is no save document: `status` said "no
/// usable copy of positions.json ... started fresh" and failed, for a
/// folder the game loads whole.
#[test]
fn status_leaves_out_the_games_own_unsigned_json_beside_the_slot() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::fs::read(fixture("seed_save.json")).unwrap();
    std::fs::write(dir.path().join("world_state.json"), &seed).unwrap();
    std::fs::write(dir.path().join("world_state.json.bak"), &seed).unwrap();
    std::fs::write(
        dir.path().join("positions.json"),
        br#"{"guard": [1.0, 2.0]}"#,
    )
    .unwrap();
    let o = status(dir.path());
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("1 document(s); would load: loaded save point 0"),
        "{out}"
    );
    assert!(
        out.contains("positions.json: plain JSON without a signature line, not a save document"),
        "{out}"
    );
    assert!(!out.contains("no usable copy"), "{out}");
}

/// A document the slot lists and the folder lacks (both copies deleted)
/// is surveyed as the game loads it: reported missing, where `status`
/// left it out and said nothing.
#[test]
fn status_reports_a_document_the_slot_lists_and_the_folder_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let body = r#"{"SchemaVersion": 1, "SaveCounter": 3, "SlotDocuments": ["profile.json", "world_state.json"], "Coins": 5}"#;
    sign(dir.path(), "profile.json", body);
    sign(dir.path(), "profile.json.bak", body);
    let o = status(dir.path());
    let out = stdout(&o);
    assert!(out.contains("2 document(s)"), "{out}");
    assert!(
        out.contains("world_state.json is missing: the slot was saved at point 3"),
        "{out}"
    );
}

#[test]
fn status_fails_when_no_copy_is_usable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("profile.json"), b"").unwrap();
    let o = status(dir.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no usable copy of profile.json"));
    assert!(stdout(&o).contains("the file is empty"), "{}", stdout(&o));
}

#[test]
fn diff_lists_the_flags_and_counters_that_differ() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::fs::read_to_string(fixture("seed_save.json")).unwrap();
    let body = seed.split_once('\n').unwrap().1;
    let earlier = body
        .replace("\"Value\": 5", "\"Value\": 3")
        .replace(
            "{\n      \"Id\": \"d4a7c3e9b1f8460da2e5c7b9f3d1684e\",\n      \"DebugName\": \"DIALOGUE_OPT_DRONE_ENDQST\",\n      \"Value\": true\n    }",
            "{\n      \"Id\": \"d4a7c3e9b1f8460da2e5c7b9f3d1684e\",\n      \"DebugName\": \"DIALOGUE_OPT_DRONE_ENDQST\",\n      \"Value\": false\n    }",
        );
    assert_ne!(earlier, body);
    let a = sign(dir.path(), "a.json", &earlier);
    let o = wyrd(&[
        "save",
        "diff",
        &a,
        &fixture("seed_save.json"),
        "--key-file",
        &fixture("test.key"),
    ]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "flag    DIALOGUE_OPT_DRONE_ENDQST: false -> true\ncounter QST_DST_TOWER_5: 3 -> 5\n"
    );
    let o = wyrd(&["save", "diff", &a, &a, "--key-file", &fixture("test.key")]);
    assert_eq!(stdout(&o), "no differences in flags, counters or events\n");
    // A tampered file is refused with the reason.
    std::fs::write(&a, earlier).unwrap();
    let o = wyrd(&[
        "save",
        "diff",
        &a,
        &fixture("seed_save.json"),
        "--key-file",
        &fixture("test.key"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("a.json:"),
        "{o:?}"
    );
}

/// `wyrd save diff` compared the world state only, and exited 0 whatever
/// differed: two save folders whose agents differ said "no differences".
/// It now compares the saved agents too (tree, running actions,
/// blackboard, tags, entity references), and `--exit-code` exits 1 when
/// anything differs, for CI.
#[test]
fn diff_compares_the_saved_agents_and_exit_code_says_they_differ() {
    use wyrd_bt::{SavedAction, SavedTree, Value};
    use wyrd_state::agents::{AgentsDocument, SavedEntityRef};
    let key = fixture("test.key");
    let tree = |ammo: i64, running: &str| SavedTree {
        format: wyrd_bt::SAVED_TREE_FORMAT,
        tree: "grunt.bt.ron".into(),
        tree_hash: "00".into(),
        seed: 1,
        rng: 2,
        now_ms: 330,
        clock_us: 330_000,
        ticks: 10,
        status: ("Running".into(), "Running".into()),
        redirect_live: false,
        inputs_seen: false,
        nodes: Vec::new(),
        stimuli: Vec::new(),
        impulses: Vec::new(),
        actions: vec![SavedAction {
            leaf: running.into(),
            action: "Walk".into(),
            state: "running".into(),
            started_ms: 100,
        }],
        blackboard: vec![
            ("ammo".into(), Some(Value::Int(ammo))),
            ("target".into(), None),
        ],
        tags: Vec::new(),
    };
    let doc = |ammo, running: &str, target: &str, second: bool| {
        let mut agents = vec![("grunt".to_owned(), tree(ammo, running))];
        if second {
            agents.push(("medic".to_owned(), tree(1, "root/heal")));
        }
        let doc = AgentsDocument {
            schema_version: wyrd_state::agents::AGENTS_SCHEMA_VERSION,
            agents,
            entity_refs: vec![SavedEntityRef {
                agent: "grunt".into(),
                key: "target".into(),
                target: Some(target.into()),
            }],
        };
        serde_json::to_string_pretty(&doc).unwrap()
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let world = std::fs::read(fixture("seed_save.json")).unwrap();
    for dir in [&a, &b] {
        std::fs::write(dir.path().join("world_state.json"), &world).unwrap();
    }
    sign(
        a.path(),
        "agents.json",
        &doc(5, "root/patrol/walk", "intruder", false),
    );
    sign(
        b.path(),
        "agents.json",
        &doc(3, "root/chase/walk", "door", true),
    );
    let diff = |extra: &[&str]| {
        let mut args = vec![
            "save",
            "diff",
            a.path().to_str().unwrap(),
            b.path().to_str().unwrap(),
            "--key-file",
            &key,
        ];
        args.extend(extra);
        wyrd(&args)
    };
    let o = diff(&[]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(
        stdout(&o),
        "agent   grunt: \"ammo\": 5 -> 3\n\
         agent   grunt: \"target\": entity \"intruder\" -> entity \"door\"\n\
         agent   grunt: actions: root/patrol/walk (running) -> root/chase/walk (running)\n\
         agent   medic: (not saved) -> saved\n"
    );
    let o = diff(&["--exit-code"]);
    assert_eq!(o.status.code(), Some(1), "they differ: {o:?}");
    assert!(o.stderr.is_empty(), "{o:?}");
    // Trouble is 2 with `--exit-code` (as `diff`): a CI job tells a
    // broken save from a changed one.
    let o = wyrd(&[
        "save",
        "diff",
        a.path().to_str().unwrap(),
        "/nowhere",
        "--key-file",
        &key,
        "--exit-code",
    ]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    // The same folder: no difference, 0 with `--exit-code`.
    let o = wyrd(&[
        "save",
        "diff",
        a.path().to_str().unwrap(),
        a.path().to_str().unwrap(),
        "--key-file",
        &key,
        "--exit-code",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert_eq!(
        stdout(&o),
        "no differences in flags, counters, events or agents\n"
    );
    // An agent between actions (its last one finished, not taken yet) that
    // went on is not "the same" (a stranger's guard, Walk then LookAround).
    let finished = |leaf: &str, ticks| {
        let mut t = tree(5, leaf);
        t.actions[0].state = "succeeded".into();
        t.ticks = ticks;
        let doc = AgentsDocument {
            schema_version: wyrd_state::agents::AGENTS_SCHEMA_VERSION,
            agents: vec![("grunt".to_owned(), t)],
            entity_refs: Vec::new(),
        };
        serde_json::to_string_pretty(&doc).unwrap()
    };
    let (c, d) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let c = sign(c.path(), "agents.json", &finished("root/walk", 58));
    let d = sign(d.path(), "agents.json", &finished("root/look", 96));
    let o = wyrd(&["save", "diff", &c, &d, "--key-file", &key, "--exit-code"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(
        stdout(&o),
        "agent   grunt: actions: root/walk (succeeded) -> root/look (succeeded)\n\
         agent   grunt: ticks: 58 -> 96\n"
    );
    // A world-state file against a folder says the agents were left out.
    let o = wyrd(&[
        "save",
        "diff",
        &fixture("seed_save.json"),
        a.path().to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert!(stdout(&o).contains("(the world state only"), "{o:?}");
    // Two agents.json files compare as agents; an agents file against a
    // world state is refused.
    let o = wyrd(&[
        "save",
        "diff",
        a.path().join("agents.json").to_str().unwrap(),
        b.path().join("agents.json").to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert!(
        stdout(&o).contains("agent   medic: (not saved) -> saved"),
        "{o:?}"
    );
    let o = wyrd(&[
        "save",
        "diff",
        a.path().join("agents.json").to_str().unwrap(),
        &fixture("seed_save.json"),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(2), "a usage error: {o:?}");
    // The same ticks, no action: a different node running (a `Wait`) and
    // an edited tree file are differences too.
    let waiting = |path: &str, hash: &str| {
        let mut t = tree(5, "root/walk");
        t.actions.clear();
        t.tree_hash = hash.into();
        t.nodes = vec![wyrd_bt::SavedNode {
            path: path.into(),
            signature: "00".into(),
            // Running (the status in the high bits).
            state: 1 << 4,
            aux: None,
            cursor: None,
        }];
        assert_eq!(t.nodes[0].status(), wyrd_bt::Status::Running);
        let doc = AgentsDocument {
            schema_version: wyrd_state::agents::AGENTS_SCHEMA_VERSION,
            agents: vec![("grunt".to_owned(), t)],
            entity_refs: Vec::new(),
        };
        serde_json::to_string_pretty(&doc).unwrap()
    };
    let (e, f) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let e = sign(e.path(), "agents.json", &waiting("root/rest", "aa"));
    let f = sign(f.path(), "agents.json", &waiting("root/watch", "bb"));
    let o = wyrd(&["save", "diff", &e, &f, "--key-file", &key]);
    assert_eq!(
        stdout(&o),
        "agent   grunt: running: root/rest -> root/watch\n\
         agent   grunt: tree: grunt.bt.ron (content aa) -> grunt.bt.ron (content bb)\n"
    );
}

/// A stranger's CI gate on saves: two Drone quest folders differing only in
/// the game's own `profile.json` (coins, a paid reward's record) said "no
/// differences", exit 0. Two folders compare every document: the game's
/// own ones value by value.
#[test]
fn save_diff_compares_the_games_own_documents_too() {
    let key = fixture("test.key");
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let profile = |coins: u32, events: &str| {
        format!(
            "{{\"SchemaVersion\": 1, \"Coins\": {coins}, \"CompletedEvents\": [{events}], \"SaveCounter\": 3}}"
        )
    };
    sign(a.path(), "profile.json", &profile(100, "\"tower_5\""));
    sign(b.path(), "profile.json", &profile(5, ""));
    let o = wyrd(&[
        "save",
        "diff",
        a.path().to_str().unwrap(),
        b.path().to_str().unwrap(),
        "--key-file",
        &key,
        "--exit-code",
    ]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert_eq!(
        stdout(&o),
        "profile.json: Coins: 100 -> 5\n\
         profile.json: CompletedEvents: [\"tower_5\"] -> []\n"
    );
    // The same documents: no difference. A stray unsigned file beside the
    // slot (the game's settings) is said, not a failure of the diff.
    std::fs::write(a.path().join("settings.json"), "{\"volume\": 3}").unwrap();
    let o = wyrd(&[
        "save",
        "diff",
        a.path().to_str().unwrap(),
        a.path().to_str().unwrap(),
        "--key-file",
        &key,
        "--exit-code",
    ]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(stdout(&o).contains("(settings.json in "), "{o:?}");
    // A list of one length, item by item.
    let (c, d) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    sign(c.path(), "profile.json", &profile(1, "\"a\", \"b\", \"c\""));
    sign(d.path(), "profile.json", &profile(1, "\"a\", \"x\", \"c\""));
    let o = wyrd(&[
        "save",
        "diff",
        c.path().to_str().unwrap(),
        d.path().to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(
        stdout(&o),
        "profile.json: CompletedEvents[1]: \"b\" -> \"x\"\n",
        "{o:?}"
    );
}
