//! The squad-AI example played headless through its binary: the Halo 2
//! behaviors seen in the summary of a scripted skirmish.

use crate::support;

use std::process::Output;

use serde_json::Value as Json;

fn run(args: &[&str]) -> Output {
    support::headless("squad_ai").args(args).output().unwrap()
}

/// Records one AI of a 600-tick skirmish of `agents` AIs into `dir`: the
/// recording, or the game's error (the AI died before the end, say).
fn try_record(
    dir: &std::path::Path,
    agents: usize,
    name: &str,
) -> Result<std::path::PathBuf, String> {
    let rec = dir.join("grunt.recording.json");
    let agents = agents.to_string();
    let out = run(&[
        "--headless",
        "--ticks",
        "600",
        "--agents",
        &agents,
        "--record",
        name,
        "--record-file",
        rec.to_str().unwrap(),
    ]);
    if out.status.success() {
        Ok(rec)
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// [`try_record`], which must succeed.
fn record(dir: &std::path::Path, agents: usize, name: &str) -> std::path::PathBuf {
    try_record(dir, agents, name).unwrap_or_else(|e| panic!("{e}"))
}

/// The `wyrd` command: exit code, stdout, stderr.
fn wyrd(args: &[&str]) -> (Option<i32>, String, String) {
    let o = support::wyrd().args(args).output().unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn summary(args: &[&str]) -> Json {
    serde_json::from_str(&support::stdout_of(
        support::headless("squad_ai").args(args),
    ))
    .unwrap()
}

/// The rank of a behavior label of the summary (`engage/fight`), read from
/// the tree file: at each prioritized list on the way down, child k ranks
/// 2k + 1 (an impulse by the behavior it runs); the `flee_leader_died`
/// stimulus is inserted at the root at priority 2, just above child 2
/// (rank 4). Lower ranks take over from higher ones (Halo 2 seed: "the
/// higher-priority behavior interrupts").
fn rank(program: &wyrd::bt::Program, label: &str) -> Vec<u16> {
    use wyrd::bt::NodeView;
    fn named<'a>(n: NodeView<'a>) -> &'a str {
        match n.impulse() {
            Some(i) => i.behavior(),
            None => n.name(),
        }
    }
    // The nearest prioritized lists at or under `n` that have a child `seg`.
    fn find<'a>(n: NodeView<'a>, seg: &str) -> Option<(usize, NodeView<'a>)> {
        if n.is_prioritized_list()
            && let Some(k) = n.children().position(|c| named(c) == seg)
        {
            return Some((k, n.children().nth(k).unwrap()));
        }
        n.children().find_map(|c| find(c, seg))
    }
    if label == "flee_leader_died" {
        return vec![4];
    }
    let mut at = program.root();
    let mut ranks = Vec::new();
    for seg in label.split('/') {
        let (k, child) = find(at, seg).unwrap_or_else(|| panic!("{label}: no behavior {seg}"));
        ranks.push(2 * k as u16 + 1);
        at = child;
    }
    ranks
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
    // takes over from holding position. Every pair the game counts as such
    // goes up the tree file's priorities.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/squad_ai/combat.bt.ron"),
    )
    .unwrap();
    let program =
        wyrd::bt::compile_str("combat.bt.ron", &text, &wyrd::bt::Vocabulary::permissive()).unwrap();
    let pairs = s["interruption_pairs"].as_object().unwrap();
    let mut counted = 0;
    for (pair, count) in pairs {
        let (from, to) = pair.split_once(" -> ").unwrap();
        assert!(
            rank(&program, to) < rank(&program, from),
            "{pair}: {to} does not outrank {from} in the tree file"
        );
        counted += count.as_u64().unwrap();
    }
    assert_eq!(counted, n(&s, "higher_priority_interruptions"), "{s}");
    assert!(n(&s, "higher_priority_interruptions") <= n(&s, "interruptions"));
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

    // Leaders die; each living squad mate gets the stimulus, which competes
    // for exactly its 1.5 s (45 ticks at 30 Hz) and leaves; every stimulus
    // is accounted for (expired, cut short by death, refreshed by a second
    // leader's death, or still running).
    assert!(
        (1..=n(&s, "killed")).contains(&n(&s, "leaders_killed")),
        "{s}"
    );
    let fired = n(&s, "stimuli_fired");
    assert!(fired >= n(&s, "leaders_killed") / 2, "{s}");
    assert_eq!(
        fired,
        n(&s, "stimuli_expired")
            + n(&s, "stimuli_cut_short")
            + n(&s, "stimuli_refreshed")
            + n(&s, "stimuli_running"),
        "{s}"
    );
    assert!(n(&s, "stimuli_expired") > 0, "{s}");
    assert_eq!(s["stimulus_ticks"], serde_json::json!([45, 45]), "{s}");
    let fled = s["entered"]["flee_leader_died"].as_u64().unwrap_or(0);
    assert!(
        (1..=fired).contains(&fled),
        "infantry flee when the leader dies, and only then: {s}"
    );

    // The impulse puts infantry into vehicles when the player drives; no
    // one boards without it.
    let impulse = s["impulses_fired"]["player_in_vehicle"].as_u64().unwrap();
    assert!((1..=impulse).contains(&n(&s, "vehicles_entered")), "{s}");
    assert_eq!(
        s["impulses_fired"]["log_engage"], 0,
        "a hook that never fires"
    );

    // Passengers whose leader died, holding the stimulus, never flee.
    assert!(n(&s, "passenger_ticks_leader_dead") > 0, "{s}");
    assert!(
        (1..=n(&s, "passenger_ticks")).contains(&n(&s, "passenger_ticks_stimulus")),
        "{s}"
    );
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
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("'0' for '--agents <N>'") && err.contains("not in 1..=1000000"),
        "{err}"
    );
    let out = run(&["--headless", "--ticks", "many"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid value 'many' for '--ticks <N>'"),
        "{err}"
    );
    // A missing tree is an error naming it, not a hang.
    let empty = tempfile::tempdir().unwrap();
    let out = run(&["--headless", "--assets", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("squad_ai/combat.bt.ron"));
}

/// The example games share their flags (clap, `examples/common`): each
/// prints its help with the common flags and its own.
#[test]
fn the_games_print_their_flags() {
    for (game, own) in [
        ("squad_ai", "--agents <N>"),
        ("drone_quest", "--save-dir <DIR>"),
        ("session_rules", "--drive <FILE>"),
    ] {
        let out = support::headless(game).arg("--help").output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{game}");
        let help = String::from_utf8_lossy(&out.stdout);
        for flag in [
            "--headless",
            "--assets <DIR>",
            "--screenshot <PNG>",
            own,
            "Examples:",
        ] {
            assert!(help.contains(flag), "{game} --help lacks {flag}:\n{help}");
        }
    }
}

/// Issue 16: a squad AI recorded for 600 ticks replays exactly with `wyrd
/// sim --replay`; the same recording on a deliberately edited tree is
/// reported at the first tick it diverges, naming the node; its inputs
/// become a sim script `wyrd check` accepts.
#[test]
fn a_recorded_ai_replays_exactly_and_an_edited_tree_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let rec = record(dir.path(), 24, "squad 5 grunt 3");
    let tree =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/squad_ai/combat.bt.ron");
    let replay = |tree: &std::path::Path, extra: &[&str]| {
        let mut args = vec![
            "sim",
            tree.to_str().unwrap(),
            "--replay",
            rec.to_str().unwrap(),
        ];
        args.extend(extra);
        wyrd(&args)
    };
    let (code, stdout, stderr) = replay(&tree, &[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("ok: 600 ticks replayed exactly"),
        "{stdout}"
    );

    // Issue 27: node statistics, checked against counts made by hand from
    // the recording's own fields (the root's status after each tick, the
    // action events of each leaf).
    let (code, table, stderr) = replay(&tree, &["--stats"]);
    assert_eq!(code, Some(0), "{stderr}");
    let recording: Json = serde_json::from_str(&std::fs::read_to_string(&rec).unwrap()).unwrap();
    let ticks = recording["ticks"].as_array().unwrap();
    let row = |path: &str| -> Vec<u64> {
        let line = table
            .lines()
            .find(|l| l.split_whitespace().next() == Some(path))
            .unwrap_or_else(|| panic!("no row for {path} in\n{table}"));
        line.split_whitespace()
            .skip(1)
            .map(|n| n.parse().unwrap())
            .collect()
    };
    let root_running = ticks.iter().filter(|t| t["status"] == "running").count() as u64;
    let mut longest = 0u64;
    let mut streak = 0u64;
    for t in ticks {
        streak = if t["status"] == "running" {
            streak + 1
        } else {
            0
        };
        longest = longest.max(streak);
    }
    let root = row("root");
    assert_eq!((root[0], root[1]), (root_running, longest), "{table}");
    // Every leaf that reported: its successes and failures are the events.
    let paths = recording["paths"].as_array().unwrap();
    let mut checked = 0;
    for (i, path) in paths.iter().enumerate() {
        let count = |what: &str| {
            ticks
                .iter()
                .flat_map(|t| t["actions"].as_array().into_iter().flatten())
                .filter(|a| a[0] == i as u64 && a[1] == what)
                .count() as u64
        };
        let (ok, failed) = (count("success"), count("failure"));
        if ok + failed == 0 {
            continue;
        }
        let r = row(path.as_str().unwrap());
        assert_eq!((r[3], r[4]), (ok, failed), "{path}: {table}");
        checked += 1;
    }
    assert!(checked >= 2, "leaves that reported: {checked}\n{table}");

    // The idle behavior's two steps swapped: the AI starts idle, so the
    // first tick already differs.
    let edited = dir.path().join("combat.bt.ron");
    let text = std::fs::read_to_string(&tree).unwrap();
    let swapped = text.replace(
        "            Action(action: \"Patrol\", params: {\"ticks\": 5}),\n            Action(action: \"Idle\", params: {\"ticks\": 4}),",
        "            Action(action: \"Idle\", params: {\"ticks\": 4}),\n            Action(action: \"Patrol\", params: {\"ticks\": 5}),",
    );
    assert_ne!(swapped, text, "the edit applies");
    std::fs::write(&edited, swapped).unwrap();
    let (code, _, stderr) = replay(&edited, &[]);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("content hash") && stderr.contains("--allow-changed"),
        "{stderr}"
    );
    let (code, _, stderr) = replay(&edited, &["--allow-changed"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("diverges at tick 1: root/idle/Patrol"),
        "{stderr}"
    );

    // Another tree's recording does not become a script of this one.
    let (code, _, stderr) = replay(&edited, &["--emit-script"]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("content hash"), "{stderr}");
    let (code, script, stderr) = replay(&tree, &["--emit-script"]);
    assert_eq!(code, Some(0), "{stderr}");
    let script_file = dir.path().join("grunt.script.ron");
    std::fs::write(&script_file, script).unwrap();
    // The script names its tree (`// tree: ...`): checked without `--tree`.
    let o = support::wyrd()
        .args(["check", script_file.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Issue 24, 3: a recording of an AI that a stimulus reached emitted its
/// leaves as `~flee_leader_died/Scream`, which `wyrd check` and `wyrd sim
/// --script` rejected. The script names them where the stimulus was
/// inserted, as the trace does, and it loads and runs.
#[test]
fn a_recording_with_a_stimulus_becomes_a_script_that_loads_and_runs() {
    let dir = tempfile::tempdir().unwrap();
    let tree =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/squad_ai/combat.bt.ron");
    let tree = tree.to_str().unwrap();
    // Which AI a stimulus reaches, and lives to finish its scream, depends
    // on the whole skirmish (any change in the order action systems visit
    // the AIs changes the battle): the first such AI of a 48-AI one, else
    // of a larger one.
    let script = [48, 64, 96]
        .into_iter()
        .flat_map(|ais| {
            (0..ais / 4).flat_map(move |squad| {
                (0..4).map(move |grunt| (ais, format!("squad {squad} grunt {grunt}")))
            })
        })
        .find_map(|(ais, name)| {
            let rec = try_record(dir.path(), ais, &name).ok()?;
            let (code, script, stderr) = wyrd(&[
                "sim",
                tree,
                "--replay",
                rec.to_str().unwrap(),
                "--emit-script",
            ]);
            assert_eq!(code, Some(0), "{name}: {stderr}");
            script
                .contains("finish: (\"root/flee_leader_died/Scream\", Success)")
                .then_some(script)
        })
        .expect("a stimulus reached some AI, which screamed");
    assert!(
        script.contains("behavior: \"flee_leader_died\""),
        "the stimulus reached this AI"
    );
    assert!(
        script.contains("finish: (\"root/flee_leader_died/Scream\", Success)"),
        "{script}"
    );
    assert!(!script.contains("\"~"), "{script}");
    let file = dir.path().join("grunt.script.ron");
    std::fs::write(&file, &script).unwrap();
    let file = file.to_str().unwrap();
    let (code, _, stderr) = wyrd(&["check", "--tree", tree, file]);
    assert_eq!(code, Some(0), "{stderr}");
    let (code, lines, stderr) = wyrd(&["sim", tree, "--script", file]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(lines.lines().count(), 600);
}

/// Issue 24, 8: `--assets assets` was resolved against the binary's folder
/// (Bevy's asset reader does that with a relative path), not the current
/// directory, so a designer's `--assets my_assets` loaded nothing. Now a
/// relative folder is the current directory's, like every other path.
#[test]
fn a_relative_assets_folder_is_the_current_directorys() {
    let args = ["--headless", "--ticks", "60", "--agents", "8"];
    let default = run(&args);
    assert!(default.status.success());
    let relative = support::headless("squad_ai")
        .args(args)
        .args(["--assets", "assets"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("BEVY_ASSET_ROOT")
        .output()
        .unwrap();
    assert!(
        relative.status.success(),
        "{}",
        String::from_utf8_lossy(&relative.stderr)
    );
    let summary = |o: &Output| {
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        // The timing figure differs from run to run.
        text.split(",\"ns_per_agent_tick\"")
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(summary(&relative), summary(&default));
}

/// Issue 28: a headless skirmish with `--remote PORT` answers the `wyrd.*`
/// methods over HTTP while it plays in real time: the agents and their
/// running leaves, an agent's tree whose running leaves are its running
/// nodes, pause (the tick stops), step (one tick), resume, the crowd, the
/// world state read and set, a flight recording, a breakpoint that stops
/// the trees, and the save methods' answer for a game that keeps none.
#[test]
fn a_headless_skirmish_answers_the_remote_methods_over_http() {
    use serde_json::json;
    use wyrd_test_support::brp_call;
    let port = wyrd_test_support::free_port();
    let mut game = support::headless("squad_ai")
        .args([
            "--headless",
            "--agents",
            "8",
            "--ticks",
            "100000",
            "--remote",
        ])
        .arg(port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed however the test ends.
    struct Kill<'a>(&'a mut std::process::Child);
    impl Drop for Kill<'_> {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _kill = Kill(&mut game);
    // The server is up once the game has started (polling the port: the
    // game is another process).
    let until = |what: &str, mut done: Box<dyn FnMut() -> Option<Json>>| -> Json {
        for _ in 0..600 {
            if let Some(v) = done() {
                return v;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("{what}: not within 30 s");
    };
    let agents = until(
        "agents over HTTP",
        Box::new(move || {
            brp_call(port, "wyrd.agents", json!({}))
                .ok()
                .filter(|a| a["agents"].as_array().is_some_and(|l| l.len() >= 8))
        }),
    );
    let first = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["tree"] == "squad_ai/combat.bt.ron")
        .expect("an AI on the combat tree")
        .clone();
    let tree = brp_call(port, "wyrd.tree", json!({"entity": first["entity"]})).unwrap();
    assert_eq!(tree["name"], first["name"]);
    let from_nodes: Vec<&Json> = tree["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["running"] == true && n["children"] == false)
        .map(|n| &n["path"])
        .collect();
    let running: Vec<&Json> = tree["running"].as_array().unwrap().iter().collect();
    assert_eq!(running, from_nodes, "{tree}");
    assert!(!running.is_empty(), "an AI always runs a leaf: {tree}");
    let tick = |port| {
        brp_call(port, "wyrd.tree", json!({"entity": first["entity"]})).unwrap()["tick"]
            .as_u64()
            .unwrap()
    };
    // Pause: the tick stops; step: one more; resume: it goes on.
    brp_call(port, "wyrd.pause", json!({})).unwrap();
    let paused_at = tick(port);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(tick(port), paused_at, "paused");
    brp_call(port, "wyrd.step", json!({"ticks": 1})).unwrap();
    until(
        "one step",
        Box::new(move || (tick(port) == paused_at + 1).then_some(Json::Null)),
    );
    brp_call(port, "wyrd.resume", json!({})).unwrap();
    until(
        "ticking again",
        Box::new(move || (tick(port) > paused_at + 3).then_some(Json::Null)),
    );
    let crowd = brp_call(
        port,
        "wyrd.crowd",
        json!({"tree": "squad_ai/combat.bt.ron"}),
    )
    .unwrap();
    assert!(crowd["agents"].as_u64().unwrap() >= 8, "{crowd}");

    // The world state: the skirmish's counter, set by a tool.
    let world = brp_call(port, "wyrd.world", json!({})).unwrap();
    let killed = |w: &Json| {
        w["counters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "AIS_KILLED")
            .map(|c| c["value"].as_i64().unwrap())
    };
    let before = killed(&world).expect("squad_ai declares AIS_KILLED");
    let set = brp_call(
        port,
        "wyrd.world.set",
        json!({"name": "AIS_KILLED", "value": before + 1000}),
    )
    .unwrap();
    assert_eq!(set["changed"], true, "{set}");
    let after = killed(&brp_call(port, "wyrd.world", json!({})).unwrap()).unwrap();
    assert!(
        after >= before + 1000,
        "{after} after setting {}",
        before + 1000
    );

    // A flight recording of one agent, in the file format.
    let agent = json!({"entity": first["entity"]});
    let mut record = agent.clone();
    record["on"] = json!(true);
    record["ticks"] = json!(50);
    assert_eq!(
        brp_call(port, "wyrd.record", record).unwrap()["recording"],
        true
    );
    let entity = first["entity"].clone();
    let recording = until(
        "a few recorded ticks",
        Box::new(move || {
            brp_call(port, "wyrd.recording", json!({"entity": entity}))
                .ok()
                .filter(|r| r["ticks"].as_array().is_some_and(|t| t.len() >= 3))
        }),
    );
    assert_eq!(recording["tree"], "squad_ai/combat.bt.ron");

    // Breakpoints on the end of a leaf the AI runs (any AI of the tree):
    // the trees stop when one ends it.
    let leaf = running[0].as_str().unwrap().to_owned();
    let tree_file = json!({"tree": "squad_ai/combat.bt.ron"});
    let mut bp = tree_file.clone();
    bp["breakpoints"] =
        json!(["Success", "Failure", "Aborted"].map(|on| json!({"node": leaf, "on": on})));
    assert_eq!(
        brp_call(port, "wyrd.breakpoints.set", bp).unwrap()["count"],
        3
    );
    let hit = until(
        "the breakpoint's hit",
        Box::new(move || {
            brp_call(
                port,
                "wyrd.breakpoints.get",
                json!({"tree": "squad_ai/combat.bt.ron"}),
            )
            .ok()
            .filter(|g| !g["last_hit"].is_null())
        }),
    );
    assert!(hit["file"].as_str().unwrap().contains(&leaf), "{hit}");
    assert!(
        hit["last_hit"]["why"].as_str().unwrap().starts_with(&leaf),
        "{hit}"
    );
    assert_eq!(brp_call(port, "wyrd.tree", agent).unwrap()["paused"], true);
    assert_eq!(
        brp_call(port, "wyrd.breakpoints.clear", tree_file).unwrap()["count"],
        0
    );
    brp_call(port, "wyrd.resume", json!({})).unwrap();

    // squad_ai keeps no save: both save methods say what is missing.
    for method in ["wyrd.save", "wyrd.save.now"] {
        let err = brp_call(port, method, json!({})).unwrap_err();
        assert!(err.contains("WorldStateSavePlugin"), "{method}: {err}");
    }
}

/// Issue 29: a crowd of AIs ticks in tiers by distance to the player (near
/// every step, then every 4th and 16th); a skirmish of a few squads keeps
/// every AI at full rate.
#[test]
fn a_crowd_ticks_in_tiers_by_distance_and_a_skirmish_does_not() {
    let tiers = |agents: &str| {
        let s = summary(&["--headless", "--ticks", "40", "--agents", agents]);
        s["tiers"].as_object().unwrap().clone()
    };
    let crowd = tiers("1200");
    for period in ["every 1", "every 4", "every 16"] {
        assert!(
            crowd.get(period).and_then(|n| n.as_u64()).unwrap_or(0) > 0,
            "no AI {period}: {crowd:?}"
        );
    }
    let skirmish = tiers("64");
    assert_eq!(
        skirmish.keys().collect::<Vec<_>>(),
        ["every 1"],
        "{skirmish:?}"
    );
}
