//! Fault injection through the file-system seam: a crash before (and
//! during) every call of load + save + save, and an error (ENOSPC, EROFS,
//! EACCES) at every call. A slot of two documents that must never disagree.

use std::path::Path;

use serde_json::{Value, json};
use wyrd_save::testing::{FaultKind, MemFs};
use wyrd_save::{DocSpec, SaveKey, SaveStore};

fn store(fs: &MemFs) -> SaveStore {
    SaveStore::new("/saves", SaveKey::new("fault-key"))
        .with_fs(fs.clone())
        .with_documents([
            DocSpec::json("world_state.json", 1),
            DocSpec::json("profile.json", 1),
        ])
}

/// Progress `p` as two documents: the world's counter and the profile's
/// coins, which must always agree (coins = 10 × progress).
fn bodies(p: i64) -> Vec<Vec<u8>> {
    vec![
        serde_json::to_vec_pretty(&json!({"SchemaVersion": 1, "Progress": p})).unwrap(),
        serde_json::to_vec_pretty(&json!({"SchemaVersion": 1, "Coins": p * 10})).unwrap(),
    ]
}

/// Loads; returns the progress both documents agree on (panics if they
/// disagree), or `None` when both are fresh.
fn load_progress(s: &SaveStore, what: &str) -> Option<i64> {
    let mut l = s.load();
    let world: Option<Value> = l.take(0);
    let profile: Option<Value> = l.take(1);
    match (world, profile) {
        (None, None) => None,
        (Some(w), Some(p)) => {
            let progress = w["Progress"].as_i64().unwrap();
            assert_eq!(
                p["Coins"].as_i64().unwrap(),
                progress * 10,
                "{what}: the documents disagree: {}",
                l.outcome.describe()
            );
            Some(progress)
        }
        (w, p) => panic!("{what}: one document loaded, not the other: {w:?} {p:?}"),
    }
}

/// The disk after a completed first session at progress 1.
fn prior() -> MemFs {
    let fs = MemFs::new();
    let s = store(&fs);
    let l = s.load();
    s.commit_bodies(&bodies(1), l.next_save_point).unwrap();
    fs
}

fn copy_disk(from: &MemFs) -> MemFs {
    let fs = MemFs::new();
    for p in from.paths() {
        fs.put(p.clone(), from.file(&p).unwrap());
    }
    fs
}

/// Load, then save progress 2, then progress 3; stops at the first error.
/// Returns the newest progress whose save was reported complete.
fn session(fs: &MemFs) -> (i64, Option<String>) {
    let s = store(fs);
    let l = s.load();
    let mut completed = 1;
    for (next, p) in (l.next_save_point..).zip([2, 3]) {
        match s.commit_bodies(&bodies(p), next) {
            Ok(_) => completed = p,
            Err(e) => return (completed, Some(e.to_string())),
        }
    }
    (completed, None)
}

fn calls_of_a_session() -> usize {
    let fs = prior();
    let before = fs.call_count();
    assert_eq!(session(&fs), (3, None));
    fs.call_count() - before
}

#[test]
fn a_crash_before_or_during_any_call_keeps_the_last_completed_save() {
    let calls = calls_of_a_session();
    assert!(calls > 25, "load + save + save makes {calls} calls");
    for torn in [false, true] {
        for k in 0..calls {
            let fs = prior();
            let at = fs.call_count() + k;
            if torn {
                fs.crash_during(at);
            } else {
                fs.crash_before(at);
            }
            let (completed, error) = session(&fs);
            assert!(error.is_some(), "call {k}: the crash stops the session");
            assert!(fs.crashed());
            fs.restart();
            let what = format!("crash {} call {k}", if torn { "during" } else { "before" });
            let loaded = load_progress(&store(&fs), &what);
            assert!(
                loaded.is_some_and(|p| p >= completed && p <= 3),
                "{what}: loaded {loaded:?}, last completed {completed}"
            );
            // The next session saves normally and loads what it saved.
            let s = store(&fs);
            let next = s.load().next_save_point;
            s.commit_bodies(&bodies(10), next).unwrap();
            assert_eq!(load_progress(&s, &what), Some(10));
        }
    }
}

/// Found by an independent review: a kill during the very first save could
/// load the world's complete temp file without the profile (the profile had
/// no file at all, so it did not hold the save point down): the quest flag
/// without its coins. A crash before or during any call of a first session
/// (load + save from an empty disk) loads nothing or all of it.
#[test]
fn a_crash_during_the_first_save_loads_nothing_or_everything() {
    let calls = {
        let fs = MemFs::new();
        let s = store(&fs);
        let l = s.load();
        s.commit_bodies(&bodies(1), l.next_save_point).unwrap();
        fs.call_count()
    };
    for torn in [false, true] {
        for k in 0..calls {
            let fs = MemFs::new();
            if torn {
                fs.crash_during(k);
            } else {
                fs.crash_before(k);
            }
            let s = store(&fs);
            let l = s.load();
            let completed = s.commit_bodies(&bodies(1), l.next_save_point).is_ok();
            fs.restart();
            let what = format!(
                "first save, crash {} call {k}",
                if torn { "during" } else { "before" }
            );
            let loaded = load_progress(&store(&fs), &what);
            if completed {
                assert_eq!(loaded, Some(1), "{what}");
            } else {
                assert!(matches!(loaded, None | Some(1)), "{what}: {loaded:?}");
            }
        }
    }
}

#[test]
fn an_error_at_any_call_is_reported_keeps_the_good_state_and_a_retry_lands() {
    let calls = calls_of_a_session();
    let mut reported = 0;
    for kind in FaultKind::ALL {
        for k in 0..calls {
            let fs = prior();
            fs.fail_at(fs.call_count() + k, kind);
            let what = format!("{kind:?} at call {k}");
            let (completed, error) = session(&fs);
            if let Some(e) = &error {
                reported += 1;
                let os = std::io::Error::from_raw_os_error(kind.errno()).to_string();
                assert!(e.contains(&os), "{what}: {e}");
                assert!(
                    e.contains("/saves"),
                    "{what}: the message names the file: {e}"
                );
            }
            // The good state stays: a look at the disk (without touching
            // it) finds progress no older than the last completed save.
            let survey = copy_disk(&fs);
            let loaded = load_progress(&store(&survey), &what);
            assert!(
                loaded.is_some_and(|p| p >= completed),
                "{what}: {loaded:?} < {completed}"
            );
            // The retry lands.
            let s = store(&fs);
            let next = s.load().next_save_point;
            s.commit_bodies(&bodies(4), next).unwrap();
            assert_eq!(load_progress(&s, &what), Some(4), "{what}");
        }
    }
    assert!(reported > 0);
}

#[test]
fn a_disk_full_for_a_while_fails_every_save_then_the_retry_lands() {
    let fs = prior();
    let s = store(&fs);
    fs.fail_from(fs.call_count(), FaultKind::NoSpace);
    let l = s.load();
    let next = l.next_save_point;
    for attempt in 0..3 {
        let e = s.commit_bodies(&bodies(2), next + attempt).unwrap_err();
        assert!(e.to_string().contains("No space left on device"), "{e}");
    }
    fs.clear_faults();
    assert_eq!(
        load_progress(&store(&copy_disk(&fs)), "while full"),
        Some(1)
    );
    s.commit_bodies(&bodies(2), next + 3).unwrap();
    assert_eq!(load_progress(&s, "after"), Some(2));
    assert!(fs.file(Path::new("/saves/profile.json.bak")).is_some());
}

/// A document a later version adds to the slot has no file yet: the others
/// keep their committed save, it starts fresh, and the message says so.
#[test]
fn a_document_added_later_starts_fresh_and_the_others_keep_their_save() {
    let fs = MemFs::new();
    let old = SaveStore::new("/saves", SaveKey::new("fault-key"))
        .with_fs(fs.clone())
        .with_documents([DocSpec::json("world_state.json", 1)]);
    let l = old.load();
    old.commit_bodies(&bodies(4)[..1], l.next_save_point)
        .unwrap();
    let mut l = store(&fs).load();
    let world: Option<Value> = l.take(0);
    let profile: Option<Value> = l.take(1);
    assert_eq!(world.unwrap()["Progress"], 4);
    assert!(profile.is_none());
    let text = l.outcome.describe();
    assert!(
        text.contains("profile.json: no save file yet, started fresh"),
        "{text}"
    );
}
