//! The Drone quest played by scripts: the seed's expected sequence and its
//! edge cases, through the example's game code and its binary.

#[allow(dead_code)]
#[path = "../../examples/drone_quest/game.rs"]
mod game;
use crate::support;

use std::path::{Path, PathBuf};

use bevy::prelude::*;
use game::{GameConfig, build_app, flush_saves, play, settle, snapshot};
use serde_json::Value as Json;
use wyrd::save::{ReloadRequest, SaveKey, SaveStatus};
use wyrd::state::WorldStateDocument;

struct Session {
    config: GameConfig,
    app: Option<App>,
    step: usize,
}

impl Session {
    fn new(save_dir: &Path) -> Session {
        Session::with_assets(
            save_dir,
            Path::new(env!("CARGO_MANIFEST_DIR")).join("assets"),
        )
    }

    fn with_assets(save_dir: &Path, assets: PathBuf) -> Session {
        let config = GameConfig::new(assets, save_dir.to_owned());
        let mut app = build_app(&config).unwrap();
        settle(&mut app);
        Session {
            config,
            app: Some(app),
            step: 0,
        }
    }

    fn app(&mut self) -> &mut App {
        self.app.as_mut().unwrap()
    }

    /// Plays lines; returns the state after the last one.
    fn play(&mut self, script: &str) -> Json {
        let mut last = Json::Null;
        for line in script
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            self.step += 1;
            if line == "reload" {
                let mut app = self.app.take().unwrap();
                app.world_mut().write_message(AppExit::Success);
                app.update();
                flush_saves(&mut app);
                drop(app);
                let mut app = build_app(&self.config).unwrap();
                settle(&mut app);
                self.app = Some(app);
            } else {
                let r = play(self.app(), line);
                assert!(r.is_ok(), "{line}: {r:?}");
            }
            flush_saves(self.app.as_mut().unwrap());
            last = serde_json::from_str(&snapshot(self.app.as_ref().unwrap(), self.step, line))
                .unwrap();
        }
        last
    }

    fn try_play(&mut self, line: &str) -> Result<(), String> {
        play(self.app(), line)
    }

    /// The inspector's "reload from disk": the slot loads again in the
    /// running game.
    fn reload_in_place(&mut self) -> Json {
        self.app().world_mut().write_message(ReloadRequest);
        self.app().update();
        settle(self.app());
        self.step += 1;
        serde_json::from_str(&snapshot(self.app.as_ref().unwrap(), self.step, "reload")).unwrap()
    }

    fn report(&self) -> String {
        game::load_report(self.app.as_ref().unwrap())
    }
}

fn flag(state: &Json, name: &str) -> bool {
    state["flags"][name]
        .as_bool()
        .unwrap_or_else(|| panic!("no flag {name}"))
}

fn autoplay() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/drone_quest/autoplay.txt"
    ))
    .unwrap()
}

#[test]
fn the_expected_sequence_ends_with_the_seeds_save() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let end = s.play(&autoplay());
    assert_eq!(end["coins"], 100);
    assert!(
        end["npcs"].as_array().unwrap().iter().all(|n| n != "Drone"),
        "the Drone left"
    );
    // The save, field by field, against the seed's example.
    let bytes = std::fs::read(dir.path().join("world_state.json")).unwrap();
    let ours: WorldStateDocument = SaveKey::from_env_or_dev().open_json(&bytes, 1).unwrap();
    let seed_bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/crates/wyrd_state/tests/fixtures/seed_save.json"
    ))
    .unwrap();
    let seed: WorldStateDocument = SaveKey::new("wyrd-test-key")
        .open_json(&seed_bytes, 1)
        .unwrap();
    let strip = |d: &WorldStateDocument| {
        let mut d = d.clone();
        d.last_saved_utc_ticks = 0;
        d.profile_id.clear();
        for f in &mut d.bool_flags {
            f.version = None;
        }
        for c in &mut d.int_counters {
            c.version = None;
        }
        d
    };
    assert_eq!(strip(&ours), strip(&seed));
    assert!(
        ours.int_counters
            .iter()
            .all(|c| c.debug_name != "QST_DST_SAMERUN_5")
    );
    assert!(ours.completed_event_ids.is_empty());
}

#[test]
fn towers_over_several_runs_complete_the_first_quest_but_not_the_same_run_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let st = s.play(
        "talk Drone\nstart_run\nend_run\n\
         start_run\ndestroy tower 3\nend_run\nstart_run\ndestroy tower 2\nend_run\n\
         talk Drone\nstart_run\nend_run\n\
         start_run\ndestroy tower 3\nend_run\nstart_run\ndestroy tower 4\nend_run",
    );
    assert!(flag(&st, "QST_DST_TOWER_5_COMPLT"));
    assert!(
        !flag(&st, "QST_DST_SAMERUN_5_COMPLT"),
        "3 + 4 towers in two runs is not 5 in one"
    );
    assert_eq!(st["quests"][0], "destroy_5_towers_one_run");
    assert_eq!(st["counters"]["QST_DST_SAMERUN_5"], 4);
    let st = s.play("start_run");
    assert_eq!(
        st["counters"]["QST_DST_SAMERUN_5"], 0,
        "run-scoped: reset when a run begins"
    );
}

#[test]
fn talking_to_the_drone_early_advances_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let st = s.play("talk Drone\nstart_run\nend_run\ntalk Drone\ntalk Drone\nstart_run\nend_run");
    assert!(flag(&st, "NPC_DRONE_SPK_01"));
    assert!(
        !flag(&st, "NPC_DRONE_SPK_02"),
        "the second line needs the 5 towers first"
    );
    assert_eq!(st["dialogue"][0], "Drone: drone_towers");
    // Destroying towers before having the quest counts for nothing.
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let st = s.play("start_run\ndestroy tower 6\nend_run");
    assert_eq!(st["counters"]["QST_DST_TOWER_5"], 0);
}

#[test]
fn the_reward_is_paid_once_however_often_the_hub_is_entered_or_the_game_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    s.play(&autoplay());
    // Choose again before the next evaluation: no Drone, no pending answer.
    assert!(s.try_play("choose keep_secret").is_err());
    let st = s.play("start_run\nend_run\nstart_run\nend_run\nreload\nstart_run\nend_run\nreload");
    assert_eq!(st["coins"], 100);
    assert!(st["npcs"].as_array().unwrap().iter().all(|n| n != "Drone"));
}

#[test]
fn flags_set_in_the_hub_after_an_evaluation_take_effect_on_the_next_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let st = s.play("talk Drone");
    assert!(flag(&st, "NPC_DRONE_SPK_01"));
    assert!(
        st["quests"].as_array().unwrap().is_empty(),
        "no quest until the next evaluation"
    );
    let st = s.play("start_run\nend_run");
    assert_eq!(st["quests"][0], "destroy_5_towers");
    // Repeated evaluations never duplicate quests, NPCs or shop items.
    let st = s.play("start_run\nend_run\nstart_run\nend_run");
    assert_eq!(st["quests"].as_array().unwrap().len(), 1, "{st}");
    assert_eq!(st["npcs"].as_array().unwrap().len(), 2);
    // The Smith's line runs beside the Drone's (the parallel).
    let st = s.play(
        "talk Smith
start_run
end_run",
    );
    assert_eq!(
        st["quests"],
        serde_json::json!(["destroy_5_towers", "kill_3_guards"])
    );
    let st = s.play("start_run");
    assert_eq!(
        st["enemies"]["guard"], 3,
        "the combat manager's extra enemies"
    );
    let st = s.play(
        "destroy guard 3
end_run",
    );
    assert!(flag(&st, "QST_KILL_GUARDS_COMPLT"));
    assert_eq!(st["shop"], serde_json::json!(["shield", "boots"]));
}

#[test]
fn a_bumped_flag_version_resets_that_step_after_reload() {
    // Play to step 3 with the shipped assets.
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    s.play("talk Drone\nstart_run\nend_run\nstart_run\ndestroy tower 5\nend_run\ntalk Drone\nsave");
    drop(s);
    // A patch bumps NPC_DRONE_SPK_02's version: players must hear line 2 again.
    let assets = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/drone_quest"),
        &assets.path().join("drone_quest"),
    );
    let flags = assets.path().join("drone_quest/world_state.flags.ron");
    let text = std::fs::read_to_string(&flags).unwrap().replace(
        "name: \"NPC_DRONE_SPK_02\",",
        "name: \"NPC_DRONE_SPK_02\", version: 2,",
    );
    std::fs::write(&flags, text).unwrap();
    let mut s = Session::with_assets(dir.path(), assets.path().to_owned());
    let st = s.play("start_run\nend_run");
    assert!(!flag(&st, "NPC_DRONE_SPK_02"), "reset by the version bump");
    assert!(flag(&st, "QST_DST_TOWER_5_COMPLT"), "other progress kept");
    assert_eq!(st["dialogue"][0], "Drone: drone_multiply");
}

#[test]
fn bad_commands_get_a_clear_message_and_play_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    for (line, words) in [
        ("destroy tower 1", "nothing to destroy in the hub"),
        ("talk Ghost", "no NPC named \"Ghost\""),
        ("end_run", "not in a run"),
        ("dance", "unknown command"),
        ("choose yes", "nobody is waiting"),
    ] {
        let e = s.try_play(line).unwrap_err();
        assert!(e.contains(words), "{line}: {e}");
    }
    s.play("start_run");
    assert!(
        s.try_play("destroy tower 99")
            .unwrap_err()
            .contains("6 tower(s) left")
    );
    assert!(
        s.try_play("talk Drone")
            .unwrap_err()
            .contains("no one to talk to")
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// The binary itself: `--headless --autoplay` prints one JSON line per
/// command and leaves a save that `wyrd save verify` accepts.
#[test]
fn the_binary_plays_the_autoplay_headless() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<Json> = support::stdout_of(
        support::headless("drone_quest")
            .args(["--headless", "--autoplay", "--save-dir"])
            .arg(dir.path())
            .env("WYRD_SAVE_KEY", "ci-key"),
    )
    .lines()
    .map(|l| serde_json::from_str(l).unwrap())
    .collect();
    assert_eq!(lines.len(), 19);
    assert_eq!(lines[0]["step"], 1);
    assert_eq!(lines[0]["cmd"], "talk Drone");
    for key in [
        "mode", "quests", "npcs", "dialogue", "coins", "flags", "counters",
    ] {
        assert!(lines[0].get(key).is_some(), "{key}");
    }
    let bytes = std::fs::read(dir.path().join("world_state.json")).unwrap();
    assert!(SaveKey::new("ci-key").open(&bytes).is_ok());
    assert!(SaveKey::new("other").open(&bytes).is_err());
}

/// HMAC-SHA256 from its definition (RFC 2104) on top of `sha2`: an
/// independent check of the game's signature line.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |b: u8| block.iter().map(|k| k ^ b).collect::<Vec<u8>>();
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// The seed's format: first line the base64 HMAC-SHA256 of the rest, the
/// rest the seed's JSON document (plus the save counter, documented in
/// `wyrd_save`).
#[test]
fn the_world_state_file_is_the_seeds_format_and_an_independent_hmac_check_passes() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    s.play(&autoplay());
    let bytes = std::fs::read(dir.path().join("world_state.json")).unwrap();
    let nl = bytes.iter().position(|&b| b == b'\n').unwrap();
    let (line, body) = (&bytes[..nl], &bytes[nl + 1..]);
    let key = SaveKey::from_env_or_dev();
    let expected = base64::engine::general_purpose::STANDARD.encode(hmac_sha256(key.bytes(), body));
    assert_eq!(std::str::from_utf8(line).unwrap(), expected);
    let doc: Json = serde_json::from_slice(body).unwrap();
    let keys: Vec<&str> = doc
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "SchemaVersion",
            "ProfileId",
            "LastSavedUtcTicks",
            "BoolFlags",
            "IntCounters",
            "CompletedEventIds",
            "SlotDocuments",
            "SaveCounter"
        ]
    );
    // The backup is the same save point, byte for byte.
    assert_eq!(
        std::fs::read(dir.path().join("world_state.json.bak")).unwrap(),
        bytes
    );
}

fn corrupt(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(path, bytes).unwrap();
}

/// Bug 1: after one session only the primary existed; corrupting it lost
/// every flag.
#[test]
fn a_first_session_then_a_corrupt_primary_keeps_all_progress() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let end = s.play(&autoplay());
    drop(s);
    corrupt(&dir.path().join("world_state.json"));
    corrupt(&dir.path().join("profile.json"));
    let mut s = Session::new(dir.path());
    let report = game::load_report(s.app.as_ref().unwrap());
    assert!(
        report.contains("world_state.json: from its backup"),
        "{report}"
    );
    assert!(
        report.contains("bad copy kept as world_state.json.corrupt-"),
        "{report}"
    );
    let st = s.play("start_run\nend_run");
    assert_eq!(st["flags"], end["flags"]);
    assert_eq!(st["counters"]["QST_DST_TOWER_5"], 5);
    assert_eq!(st["coins"], 100);
}

/// Bug 5: coins near i64::MAX and the reward: `attempt to add with
/// overflow`. Negative coins were taken as they were.
#[test]
fn coins_saturate_and_negative_coins_are_reported() {
    use wyrd::save::{DocSpec, SaveStore};
    for (coins, expect, words) in [
        (i64::MAX - 5, i64::MAX, None),
        (-40, 100, Some("Coins is -40, below 0; read as 0")),
    ] {
        let dir = tempfile::tempdir().unwrap();
        // Play to the choice, then give the profile `coins` (signed).
        let mut s = Session::new(dir.path());
        s.play(
            "talk Drone\nstart_run\nend_run\nstart_run\ndestroy tower 5\nend_run\n\
             talk Drone\nstart_run\nend_run\nstart_run\ndestroy tower 5\nend_run\nsave",
        );
        drop(s);
        let store = SaveStore::new(dir.path(), SaveKey::from_env_or_dev()).with_documents([
            DocSpec::json("world_state.json", 1),
            DocSpec::json("profile.json", 1),
        ]);
        let mut l = store.load();
        let mut world: Json = l.take(0).unwrap();
        // The store adds the save counter and the slot's documents itself.
        world.as_object_mut().unwrap().remove("SaveCounter");
        world.as_object_mut().unwrap().remove("SlotDocuments");
        let bodies = vec![
            serde_json::to_vec_pretty(&world).unwrap(),
            serde_json::to_vec_pretty(&serde_json::json!({"SchemaVersion": 1, "Coins": coins}))
                .unwrap(),
        ];
        store.commit_bodies(&bodies, l.next_save_point).unwrap();
        let mut s = Session::new(dir.path());
        let report = game::load_report(s.app.as_ref().unwrap());
        if let Some(words) = words {
            assert!(report.contains(words), "{report}");
        }
        let st = s.play("talk Drone\nchoose keep_secret");
        assert_eq!(st["coins"], expect);
        assert!(flag(&st, "DIALOGUE_OPT_DRONE_ENDQST"));
    }
}

/// Bug 4: coins were saved at once, the quest flag a second later: a kill
/// in between paid the reward twice. Now a crash before any file call of
/// the reward's commit leaves both or neither.
#[test]
fn coins_and_the_quest_flag_never_disagree_after_a_kill_at_any_point_of_the_reward_step() {
    use wyrd::save::testing::MemFs;
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let config = |fs: &MemFs| {
        let mut c = GameConfig::new(assets.clone(), "/saves".into());
        c.fs = Some(std::sync::Arc::new(fs.clone()));
        c
    };
    let start = |fs: &MemFs| {
        let mut app = build_app(&config(fs)).unwrap();
        settle(&mut app);
        app
    };
    // The first session, up to the Drone's last line, saved.
    let before = MemFs::new();
    let mut app = start(&before);
    for line in [
        "talk Drone",
        "start_run",
        "end_run",
        "start_run",
        "destroy tower 5",
        "end_run",
        "talk Drone",
        "start_run",
        "end_run",
        "start_run",
        "destroy tower 5",
        "end_run",
        "save",
    ] {
        play(&mut app, line).unwrap();
    }
    flush_saves(&mut app);
    app.update();
    drop(app);
    let fresh_copy = || {
        let fs = MemFs::new();
        for p in before.paths() {
            fs.put(p.clone(), before.file(&p).unwrap());
        }
        fs
    };
    // How many file calls the reward makes.
    let fs = fresh_copy();
    let mut app = start(&fs);
    play(&mut app, "talk Drone").unwrap();
    let first = fs.call_count();
    play(&mut app, "choose keep_secret").unwrap();
    flush_saves(&mut app);
    app.update();
    let calls = fs.call_count() - first;
    assert!(calls >= 15, "the reward's commit makes {calls} calls");
    drop(app);
    let mut outcomes = std::collections::BTreeSet::new();
    for k in 0..=calls {
        let fs = fresh_copy();
        let mut app = start(&fs);
        play(&mut app, "talk Drone").unwrap();
        fs.crash_before(fs.call_count() + k);
        play(&mut app, "choose keep_secret").unwrap();
        flush_saves(&mut app);
        // The process is killed: no exit flush, the app is just gone.
        std::mem::forget(app);
        fs.restart();
        let app = start(&fs);
        let st: Json = serde_json::from_str(&snapshot(&app, 0, "")).unwrap();
        let paid = st["coins"] == 100;
        let chosen = flag(&st, "DIALOGUE_OPT_DRONE_ENDQST");
        assert_eq!(paid, chosen, "kill before call {k} of {calls}: {st}");
        outcomes.insert(paid);
    }
    assert_eq!(
        outcomes.len(),
        2,
        "some kills land before the commit, some after"
    );
}

/// Issue 17: quitting mid-run and loading again continues the run: the
/// same towers are left, the run's counters are where they were; a run
/// that ended is not resumed.
#[test]
fn quitting_mid_run_and_reloading_continues_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    // (The quest starts at the hub after the first talk.)
    let before = s.play("talk Drone\nstart_run\nend_run\nstart_run\ndestroy tower 2");
    assert_eq!(before["mode"], "run");
    assert_eq!(before["enemies"]["tower"], 4);
    assert_eq!(before["counters"]["QST_DST_TOWER_5"], 2);
    let after = s.play("reload");
    assert_eq!(after["mode"], "run", "the run continues");
    assert_eq!(
        after["enemies"], before["enemies"],
        "the same towers are left"
    );
    assert_eq!(after["counters"], before["counters"]);
    // The rest of the run's towers count on.
    let st = s.play("destroy tower 3");
    assert_eq!(st["enemies"]["tower"], 1);
    assert_eq!(st["counters"]["QST_DST_TOWER_5"], 5);
    let st = s.play("end_run\nreload");
    assert_eq!(st["mode"], "hub", "an ended run is not resumed");
}

/// To the point where the same-run quest is active, then 3 towers of it.
const SAME_RUN_AT_3: &str = "talk Drone\nstart_run\nend_run\nstart_run\ndestroy tower 5\nend_run\n\
    talk Drone\nstart_run\nend_run\nstart_run\ndestroy tower 3";

/// Issue 25, 1: quitting mid-run with the same-run quest at 3 and starting
/// again put the run back with 3 towers left but the counter at 0 (it was
/// applied before the flags files merged, and the error went to a warning):
/// the quest could no longer be completed in that run.
#[test]
fn a_continued_run_keeps_its_run_counters_after_a_restart_and_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let before = s.play(SAME_RUN_AT_3);
    assert_eq!(before["quests"][0], "destroy_5_towers_one_run", "{before}");
    assert_eq!(before["counters"]["QST_DST_SAMERUN_5"], 3);
    // Quit and start again.
    let after = s.play("reload");
    assert_eq!(after["mode"], "run");
    assert_eq!(after["enemies"]["tower"], 3);
    assert_eq!(after["counters"]["QST_DST_SAMERUN_5"], 3, "{after}");
    let report = s.report();
    assert!(!report.contains("run.json:"), "nothing to report: {report}");
    let st = s.play("destroy tower 2");
    assert!(flag(&st, "QST_DST_SAMERUN_5_COMPLT"), "{st}");
    // The same with the in-game reload, mid-run.
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    s.play(&format!("{SAME_RUN_AT_3}\nsave"));
    let after = s.reload_in_place();
    assert_eq!(after["mode"], "run");
    assert_eq!(after["counters"]["QST_DST_SAMERUN_5"], 3, "{after}");
    let st = s.play("destroy tower 2");
    assert!(flag(&st, "QST_DST_SAMERUN_5_COMPLT"), "{st}");
}

/// Issue 25, 2: deleting both copies of `world_state.json` after the reward
/// said "no save file yet", restarted the quest line and paid the reward
/// again on replay (200 coins; repeat to farm).
#[test]
fn a_deleted_world_state_is_reported_and_the_replayed_quest_pays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let end = s.play(&autoplay());
    assert_eq!(end["coins"], 100);
    let point = s
        .app
        .as_ref()
        .unwrap()
        .world()
        .resource::<SaveStatus>()
        .save_point
        .unwrap();
    s.play("reload");
    drop(s);
    std::fs::remove_file(dir.path().join("world_state.json")).unwrap();
    std::fs::remove_file(dir.path().join("world_state.json.bak")).unwrap();
    let mut s = Session::new(dir.path());
    let report = s.report();
    assert!(
        report.contains(&format!(
            "world_state.json is missing: the slot was saved at point {point}"
        )),
        "{report}"
    );
    assert!(!report.contains("no save file yet"), "{report}");
    // The quest line starts over; playing it again pays nothing more.
    let st = s.play(&autoplay());
    assert!(flag(&st, "DIALOGUE_OPT_DRONE_ENDQST"));
    assert_eq!(st["coins"], 100, "the reward is paid once");
}

/// Issue 25, 3: a correctly signed `run.json` with 9.2·10¹⁸ towers and a
/// counter no flags file declares loaded silently.
#[test]
fn a_signed_run_with_values_out_of_range_loads_clamped_and_says_so() {
    use wyrd::save::{DocSpec, SaveStore};
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    s.play("talk Drone\nstart_run\ndestroy tower 1\nsave");
    drop(s);
    let store = SaveStore::new(dir.path(), SaveKey::from_env_or_dev()).with_documents([
        DocSpec::json("world_state.json", 1),
        DocSpec::json("profile.json", 1),
        DocSpec::json("run.json", 1),
    ]);
    let mut l = store.load();
    let bodies: Vec<Vec<u8>> = (0..3)
        .map(|i| {
            let mut doc: Json = l.take(i).unwrap();
            let obj = doc.as_object_mut().unwrap();
            obj.remove("SaveCounter");
            obj.remove("SlotDocuments");
            if i == 2 {
                obj.insert(
                    "Enemies".into(),
                    serde_json::json!({"tower": i64::MAX, "dragon": 2}),
                );
                obj.insert(
                    "RunCounters".into(),
                    serde_json::json!([["QST_DST_SAMERUN_5", 1], ["NO_SUCH_COUNTER", 3]]),
                );
            }
            serde_json::to_vec_pretty(&doc).unwrap()
        })
        .collect();
    store.commit_bodies(&bodies, l.next_save_point).unwrap();
    let mut s = Session::new(dir.path());
    let report = s.report();
    for words in [
        "run.json: Enemies tower is 9223372036854775807, above the 6 a run can have; read as 6",
        "run.json: Enemies has a kind the game does not know, \"dragon\" (2); dropped",
        "run.json: RunCounters has NO_SUCH_COUNTER, which no flags file declares; dropped",
    ] {
        assert!(report.contains(words), "{words}\n{report}");
    }
    let st = s.play("save");
    assert_eq!(st["mode"], "run");
    assert_eq!(st["enemies"], serde_json::json!({"tower": 6}));
    assert_eq!(st["counters"]["QST_DST_SAMERUN_5"], 1);
}

/// Issue 25, 4: the headless snapshot said `saving...` after the save
/// landed; right after a reload the status said `unsaved changes`; after
/// the first save of a first start the HUD kept `no save yet: a fresh
/// start`.
#[test]
fn the_save_status_says_saved_after_a_save_and_after_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Session::new(dir.path());
    let status = |s: &Session| {
        s.app
            .as_ref()
            .unwrap()
            .world()
            .resource::<SaveStatus>()
            .clone()
    };
    assert_eq!(
        status(&s).load_summary().as_deref(),
        Some("no save yet: a fresh start")
    );
    let st = s.play("talk Drone\nsave");
    assert!(
        st["save"]
            .as_str()
            .unwrap()
            .starts_with("saved (save point"),
        "{st}"
    );
    assert_eq!(status(&s).load_summary(), None, "no longer a fresh start");
    for line in ["reload", "start_run\ndestroy tower 1\nsave\nreload"] {
        let st = s.play(line);
        assert!(
            st["save"]
                .as_str()
                .unwrap()
                .starts_with("saved (save point"),
            "{line}: {st}"
        );
    }
    let st = s.reload_in_place();
    assert!(
        st["save"]
            .as_str()
            .unwrap()
            .starts_with("saved (save point"),
        "{st}"
    );
}
