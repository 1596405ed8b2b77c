//! The signed store: round trips, backups, the newest valid copy, tampering,
//! bad input, quarantine names and cap, newer schemas.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use wyrd_save::testing::MemFs;
use wyrd_save::{
    CopyKind, DocSpec, LoadError, SaveKey, SaveStore, SaveWriter, UnverifiedSave, Verdict,
    insert_save_counter,
};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Doc {
    schema_version: u32,
    progress: u32,
}

fn doc(progress: u32) -> Doc {
    Doc {
        schema_version: 1,
        progress,
    }
}

fn key() -> SaveKey {
    SaveKey::new("test-key")
}

fn store(dir: &Path) -> SaveStore {
    SaveStore::new(dir, key()).with_documents([DocSpec::new::<Doc>("save.json", 1)])
}

fn body(d: &Doc) -> Vec<u8> {
    serde_json::to_vec_pretty(d).unwrap()
}

fn save(store: &SaveStore, d: &Doc, point: u64) {
    store.commit_bodies(&[body(d)], point).unwrap();
}

/// Loads and returns (progress, source, save point).
fn load(store: &SaveStore) -> (Option<Doc>, Option<CopyKind>, Option<u64>, String) {
    let mut l = store.load();
    let d = l.take::<Doc>(0);
    (
        d,
        l.outcome.documents[0].source,
        l.outcome.save_point,
        l.outcome.describe(),
    )
}

fn sealed(point: u64, d: &Doc) -> Vec<u8> {
    key().seal(&insert_save_counter(&body(d), point).unwrap())
}

#[test]
fn a_first_save_leaves_a_primary_and_a_backup_that_both_verify() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let (d, source, _, words) = load(&s);
    assert_eq!((d, source), (None, None));
    assert_eq!(words, "no save yet: a fresh start");
    save(&s, &doc(1), 1);
    // Bug 1 of the issue: after one session there was only the primary.
    let primary: Doc = s
        .read_file(&s.path("save.json", CopyKind::Primary), 1)
        .unwrap();
    let backup: Doc = s
        .read_file(&s.path("save.json", CopyKind::Backup), 1)
        .unwrap();
    assert_eq!((primary, backup), (doc(1), doc(1)));
    assert!(!s.path("save.json", CopyKind::Temp).exists());
    // The file is the seed's format: 44-char signature line, pretty JSON,
    // the save counter last.
    let text = fs::read_to_string(s.path("save.json", CopyKind::Primary)).unwrap();
    let (sig, body) = text.split_once('\n').unwrap();
    assert_eq!(sig.len(), 44);
    assert!(body.starts_with("{\n  \"SchemaVersion\": 1,"), "{body}");
    assert!(body.ends_with(",\n  \"SaveCounter\": 1\n}"), "{body}");
}

#[test]
fn a_corrupt_primary_after_the_first_save_loses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    save(&s, &doc(7), 1);
    fs::write(s.path("save.json", CopyKind::Primary), b"junk").unwrap();
    let (d, source, point, words) = load(&s);
    assert_eq!(
        (d, source, point),
        (Some(doc(7)), Some(CopyKind::Backup), Some(1))
    );
    assert!(words.contains("from its backup"), "{words}");
    assert!(words.contains("no signature line"), "{words}");
    // Repaired: both copies verify again, the bad one is kept aside.
    let (d, source, ..) = load(&s);
    assert_eq!((d, source), (Some(doc(7)), Some(CopyKind::Primary)));
    let kept: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".corrupt-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(fs::read(dir.path().join(&kept[0])).unwrap(), b"junk");
}

/// Bug 2 of the issue: primary missing, backup the previous save, temp the
/// new complete one: the temp wins and is not thrown away.
#[test]
fn a_complete_temp_file_newer_than_the_backup_wins() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    save(&s, &doc(1), 1);
    fs::remove_file(s.path("save.json", CopyKind::Primary)).unwrap();
    fs::write(s.path("save.json", CopyKind::Temp), sealed(2, &doc(2))).unwrap();
    let (d, source, point, words) = load(&s);
    assert_eq!(
        (d, source, point),
        (Some(doc(2)), Some(CopyKind::Temp), Some(2))
    );
    assert!(words.contains("interrupted save"), "{words}");
    assert!(words.contains("there is no save file"), "{words}");
    assert!(!words.contains("fresh"), "{words}");
    // Repaired: primary and backup hold save point 2.
    let (d, source, point, _) = load(&s);
    assert_eq!(
        (d, source, point),
        (Some(doc(2)), Some(CopyKind::Primary), Some(2))
    );
    let backup: Doc = s
        .read_file(&s.path("save.json", CopyKind::Backup), 1)
        .unwrap();
    assert_eq!(backup, doc(2));
}

#[test]
fn the_save_counter_decides_not_the_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    // A backup newer than the primary (a restore by hand, say): newest wins.
    fs::write(s.path("save.json", CopyKind::Primary), sealed(3, &doc(3))).unwrap();
    fs::write(s.path("save.json", CopyKind::Backup), sealed(4, &doc(4))).unwrap();
    let mut l = s.load();
    assert_eq!(l.take::<Doc>(0), Some(doc(4)));
    assert_eq!(l.next_save_point, 5);
    assert!(
        l.outcome.describe().contains("older, save point 3"),
        "{}",
        l.outcome.describe()
    );
}

#[test]
fn every_single_byte_change_of_the_primary_is_caught_and_the_backup_used() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let good = sealed(5, &doc(5));
    let mut checked = 0;
    for i in 0..good.len() {
        for mask in [0x01u8, 0x20, 0x80, 0xff] {
            let mut bad = good.clone();
            bad[i] ^= mask;
            for e in fs::read_dir(dir.path()).unwrap() {
                fs::remove_file(e.unwrap().path()).unwrap();
            }
            fs::write(s.path("save.json", CopyKind::Backup), &good).unwrap();
            fs::write(s.path("save.json", CopyKind::Primary), &bad).unwrap();
            let mut l = s.load();
            let d = &l.outcome.documents[0];
            assert_eq!(d.source, Some(CopyKind::Backup), "byte {i} mask {mask:#x}");
            let kept = d.copy(CopyKind::Primary).quarantined_to.clone().unwrap();
            assert_eq!(fs::read(kept).unwrap(), bad);
            assert_eq!(l.take::<Doc>(0), Some(doc(5)));
            assert_eq!(
                fs::read(s.path("save.json", CopyKind::Primary)).unwrap(),
                good
            );
            checked += 1;
        }
    }
    assert!(checked > 300);
}

#[test]
fn both_copies_bad_gives_fresh_and_keeps_both_aside() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    fs::write(s.path("save.json", CopyKind::Primary), b"garbage").unwrap();
    fs::write(s.path("save.json", CopyKind::Backup), b"").unwrap();
    let l = s.load();
    let d = &l.outcome.documents[0];
    assert_eq!(d.source, None);
    assert_eq!(
        d.copy(CopyKind::Primary).verdict,
        Verdict::Invalid(LoadError::NoNewline)
    );
    assert_eq!(
        d.copy(CopyKind::Backup).verdict,
        Verdict::Invalid(LoadError::Empty)
    );
    let words = l.outcome.describe();
    assert!(words.contains("no usable copy"), "{words}");
    assert!(!words.contains("first start"), "{words}");
    for kind in [CopyKind::Primary, CopyKind::Backup] {
        let kept = d.copy(kind).quarantined_to.clone().unwrap();
        assert!(kept.exists());
    }
    assert!(!s.path("save.json", CopyKind::Primary).exists());
}

/// Bug 6: quarantine names were .NET ticks; they are readable UTC now, and
/// only the newest N are kept.
#[test]
fn quarantined_files_get_utc_names_and_a_cap() {
    let fs = MemFs::new();
    let s = SaveStore::new("/saves", key())
        .with_fs(fs.clone())
        .with_documents([DocSpec::new::<Doc>("save.json", 1)])
        .with_quarantine_keep(3);
    for round in 0..5u8 {
        fs.put("/saves/save.json", vec![b'x', round]);
        let l = s.load();
        let kept = l.outcome.documents[0]
            .copy(CopyKind::Primary)
            .quarantined_to
            .clone()
            .unwrap();
        let name = kept.file_name().unwrap().to_string_lossy().into_owned();
        let expected = format!("save.json.corrupt-2026-12-01T00-00-{:02}Z", round);
        assert_eq!(name, expected);
        fs.advance_clock(std::time::Duration::from_secs(1));
    }
    let names: Vec<PathBuf> = fs
        .paths()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".corrupt-"))
        .collect();
    assert_eq!(
        names,
        (2..5)
            .map(|s| PathBuf::from(format!("/saves/save.json.corrupt-2026-12-01T00-00-{s:02}Z")))
            .collect::<Vec<_>>(),
        "the newest 3 are kept"
    );
    // Two bad files in the same second get distinct names.
    fs.put("/saves/save.json", b"a".to_vec());
    fs.put("/saves/save.json.bak", b"b".to_vec());
    let l = s.load();
    let d = &l.outcome.documents[0];
    let a = d.copy(CopyKind::Primary).quarantined_to.clone().unwrap();
    let b = d.copy(CopyKind::Backup).quarantined_to.clone().unwrap();
    assert_ne!(a, b);
    assert_eq!(fs.file(&a).unwrap(), b"a");
    assert_eq!(fs.file(&b).unwrap(), b"b");
}

/// Bug 6: a newer build's save was renamed `.corrupt-`; it stays in place,
/// untouched, and is reported as newer.
#[test]
fn a_newer_schema_save_is_kept_in_place_and_reported_as_newer() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    save(&s, &doc(1), 1);
    let newer = key().seal(br#"{"SchemaVersion": 99, "Progress": 50, "SaveCounter": 9}"#);
    fs::write(s.path("save.json", CopyKind::Primary), &newer).unwrap();
    let mut l = s.load();
    assert_eq!(l.take::<Doc>(0), Some(doc(1)), "runs on the backup");
    let words = l.outcome.describe();
    assert!(
        words.contains("from a newer version of the game"),
        "{words}"
    );
    assert!(words.contains("saving is paused"), "{words}");
    assert!(!words.contains("corrupt"), "{words}");
    assert_eq!(l.outcome.newer(), Some(("save.json", 99, 1)));
    assert_eq!(
        fs::read(s.path("save.json", CopyKind::Primary)).unwrap(),
        newer,
        "not moved, not overwritten"
    );
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        2,
        "nothing quarantined, nothing repaired"
    );
}

fn open(bytes: &[u8]) -> Result<Doc, LoadError> {
    key().open_json(bytes, 1)
}

#[test]
fn each_bad_input_has_its_own_error() {
    let good = key().seal_json(&doc(1)).unwrap();
    assert_eq!(open(b""), Err(LoadError::Empty));
    assert_eq!(open(b"abc"), Err(LoadError::NoNewline));
    assert!(matches!(
        open(b"not base64!\n{}"),
        Err(LoadError::BadBase64(_))
    ));
    assert_eq!(
        open(b"AAAA\n{}"),
        Err(LoadError::SignatureLength { len: 3 })
    );
    assert_eq!(
        SaveKey::new("other").open_json::<Doc>(&good, 1),
        Err(LoadError::SignatureMismatch)
    );
    assert_eq!(open(&good[..good.len() - 10]), Err(LoadError::Truncated));
    let signed = |b: &[u8]| key().seal(b);
    assert!(matches!(
        open(&signed(b"hello")),
        Err(LoadError::NotJson {
            line: 1,
            column: 1,
            ..
        })
    ));
    assert_eq!(
        open(&signed(b"{\"a\": \"\xff\"}")),
        Err(LoadError::NotUtf8 { offset: 7 })
    );
    assert!(matches!(
        open(&signed(br#"{"SchemaVersion": 1, "Progress": "lots"}"#)),
        Err(LoadError::WrongSchema(m)) if m.contains("string")
    ));
    assert!(matches!(
        open(&signed(br#"{"Progress": 1}"#)),
        Err(LoadError::WrongSchema(m)) if m.contains("SchemaVersion")
    ));
    // Bug 6: "SchemaVersion is -1, not a number"; version 0 was accepted.
    for (v, words) in [
        ("-1", "found -1"),
        ("0", "found 0"),
        ("\"1\"", "found \"1\""),
    ] {
        let e = open(&signed(
            format!("{{\"SchemaVersion\": {v}, \"Progress\": 1}}").as_bytes(),
        ))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("whole number from 1 up") && e.contains(words),
            "{e}"
        );
        assert!(!e.contains("not a number"), "{e}");
    }
    // Duplicate fields are reported, not "last wins".
    assert!(matches!(
        open(&signed(br#"{"SchemaVersion": 1, "SchemaVersion": 1, "Progress": 1}"#)),
        Err(LoadError::WrongSchema(m)) if m.contains("duplicate")
    ));
    // Bug 6: deep nesting is valid JSON, not "not JSON".
    let deep = format!(
        "{{\"SchemaVersion\": 1, \"Progress\": 1, \"X\": {}{}}}",
        "[".repeat(300),
        "]".repeat(300)
    );
    let e = key()
        .open_json::<serde_json::Value>(&signed(deep.as_bytes()), 1)
        .unwrap_err();
    assert!(matches!(e, LoadError::TooDeep { limit: 128, .. }), "{e:?}");
    assert!(!e.to_string().contains("not JSON"));
    assert_eq!(
        open(&signed(br#"{"SchemaVersion": 2, "Progress": 1}"#)),
        Err(LoadError::NewerSchema {
            found: 2,
            supported: 1
        })
    );
    // Over the size limit: refused without reading.
    let dir = tempfile::tempdir().unwrap();
    let small = store(dir.path()).with_max_size(64);
    fs::write(small.path("save.json", CopyKind::Primary), &good).unwrap();
    assert_eq!(
        small.read_file::<Doc>(&small.path("save.json", CopyKind::Primary), 1),
        Err(LoadError::TooLarge {
            size: good.len() as u64,
            limit: 64
        })
    );
    assert_eq!(open(&good), Ok(doc(1)));
}

/// The seed's own save (no SaveCounter) loads as save point 0.
#[test]
fn the_seeds_example_save_loads() {
    let seed =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../wyrd_state/tests/fixtures/seed_save.json");
    let dir = tempfile::tempdir().unwrap();
    fs::copy(&seed, dir.path().join("world_state.json")).unwrap();
    let s = SaveStore::new(dir.path(), SaveKey::new("wyrd-test-key"))
        .with_documents([DocSpec::json("world_state.json", 1)]);
    let mut l = s.load();
    assert_eq!(l.outcome.save_point, Some(0));
    assert_eq!(l.outcome.documents[0].source, Some(CopyKind::Primary));
    let v: serde_json::Value = l.take(0).unwrap();
    assert_eq!(v["IntCounters"][0]["Value"], 5);
    assert_eq!(l.next_save_point, 1);
    // It gets its backup; the primary is left byte for byte.
    assert_eq!(
        fs::read(dir.path().join("world_state.json")).unwrap(),
        fs::read(&seed).unwrap()
    );
    assert_eq!(
        fs::read(dir.path().join("world_state.json.bak")).unwrap(),
        fs::read(&seed).unwrap()
    );
}

/// Issue 25 (the property "never a value from a save point newer than
/// another document's"): with no save point shared, the one most documents
/// have wins and the rest start fresh; before, each document loaded its own
/// newest copy (a.json at 1 beside b.json at 2).
#[test]
fn documents_of_a_slot_load_from_the_same_save_point() {
    let dir = tempfile::tempdir().unwrap();
    let s = SaveStore::new(dir.path(), key()).with_documents([
        DocSpec::json("a.json", 1),
        DocSpec::json("b.json", 1),
        DocSpec::json("c.json", 1),
    ]);
    let b = |n: u32| format!("{{\"SchemaVersion\": 1, \"N\": {n}}}").into_bytes();
    s.commit_bodies(&[b(1), b(10), b(100)], 1).unwrap();
    s.commit_bodies(&[b(2), b(20), b(200)], 2).unwrap();
    // Two bad files: a.json's primary and backup. Only an old leftover
    // temp of save point 1 remains for it, while b and c are at 2.
    fs::write(dir.path().join("a.json"), &sealed(2, &doc(0))[..30]).unwrap();
    fs::write(
        dir.path().join("a.json.tmp"),
        key().seal(&insert_save_counter(&b(1), 1).unwrap()),
    )
    .unwrap();
    fs::write(dir.path().join("a.json.bak"), b"x").unwrap();
    let mut l = s.load();
    let a: Option<serde_json::Value> = l.take(0);
    let bb: serde_json::Value = l.take(1).unwrap();
    let c: serde_json::Value = l.take(2).unwrap();
    assert_eq!(a, None, "a.json has no copy of save point 2: fresh");
    assert_eq!((bb["N"].clone(), c["N"].clone()), (20.into(), 200.into()));
    assert!(l.outcome.mixed, "no save point is complete in all three");
    assert_eq!(l.outcome.save_point, Some(2));
    assert_eq!(l.outcome.documents[0].missing_at, Some(2));
    let text = l.outcome.describe();
    assert!(text.contains("no save point is complete"), "{text}");
    assert!(
        text.contains("a.json has no usable copy of save point 2"),
        "{text}"
    );
    assert_eq!(l.next_save_point, 3);
}

/// Issue 25: both copies of a document deleted while the slot is at save
/// point 4 was reported as "no save file yet", a first start.
#[test]
fn a_deleted_document_is_reported_missing_with_the_slots_save_point() {
    let dir = tempfile::tempdir().unwrap();
    let s = SaveStore::new(dir.path(), key()).with_documents([
        DocSpec::json("world.json", 1),
        DocSpec::json("profile.json", 1),
    ]);
    let b = |n: u32| format!("{{\"SchemaVersion\": 1, \"N\": {n}}}").into_bytes();
    for p in 1..=4 {
        s.commit_bodies(&[b(p), b(p * 10)], u64::from(p)).unwrap();
    }
    // Every document lists the slot's documents.
    let body = fs::read_to_string(dir.path().join("profile.json")).unwrap();
    assert!(
        body.contains(
            "\"SlotDocuments\": [\"world.json\", \"profile.json\"],\n  \"SaveCounter\": 4\n}"
        ),
        "{body}"
    );
    fs::remove_file(dir.path().join("world.json")).unwrap();
    fs::remove_file(dir.path().join("world.json.bak")).unwrap();
    let mut l = s.load();
    let profile: serde_json::Value = l.take(1).unwrap();
    assert_eq!(profile["N"], 40, "the other document keeps its save");
    assert_eq!(l.outcome.save_point, Some(4));
    assert!(!l.outcome.is_first_start());
    let missing: Vec<&str> = l.outcome.missing().map(|d| d.file.as_str()).collect();
    assert_eq!(missing, ["world.json"]);
    let text = l.outcome.describe();
    assert!(
        text.contains("world.json is missing: the slot was saved at point 4; started fresh"),
        "{text}"
    );
    assert!(!text.contains("no save file yet"), "{text}");
}

/// Issue 25: after a first save interrupted between primaries and backups,
/// the missing backup was worded "backup unusable (there is no save file)".
#[test]
fn a_backup_never_written_is_not_called_unusable() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    save(&s, &doc(1), 1);
    fs::remove_file(dir.path().join("save.json.bak")).unwrap();
    let (_, source, _, text) = load(&s);
    assert_eq!(source, Some(CopyKind::Primary));
    assert!(text.contains("save.json: it had no backup yet"), "{text}");
    assert!(!text.contains("unusable"), "{text}");
    assert!(dir.path().join("save.json.bak").exists(), "repaired");
    // A backup deleted after later saves was written: it is not "yet".
    save(&s, &doc(2), 2);
    save(&s, &doc(3), 3);
    fs::remove_file(dir.path().join("save.json.bak")).unwrap();
    let (_, _, _, text) = load(&s);
    assert!(
        text.contains("save.json: its backup is missing (deleted since it was written)"),
        "{text}"
    );
}

#[test]
fn writer_writes_in_order_newest_wins_and_flushes_on_drop() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let writer = SaveWriter::new();
    for p in 1..=50u32 {
        let s = s.clone();
        writer.submit(
            u64::from(p),
            Box::new(move || s.commit_bodies(&[body(&doc(p))], u64::from(p))),
        );
    }
    drop(writer);
    assert_eq!(load(&s).0, Some(doc(50)));
}

#[test]
fn a_document_that_would_not_load_back_is_not_written() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let e = s
        .commit_bodies(
            &[br#"{"SchemaVersion": 1, "Progress": 1, "SaveCounter": 4}"#.to_vec()],
            5,
        )
        .unwrap_err();
    assert!(e.to_string().contains("would not load back"), "{e}");
    assert!(
        e.to_string().contains("duplicate field `SaveCounter`"),
        "{e}"
    );
    assert!(!s.path("save.json", CopyKind::Primary).exists());
}

/// A stranger's launch with a misconfigured key (issue 24's "never lost
/// data"): every file of the slot failed its signature, all were moved
/// aside as `.corrupt-`, and the next launch with the right key said "no
/// save yet: a fresh start". When no file verifies and every one fails
/// only its signature, the save was signed with another key: nothing is
/// moved or rewritten, the outcome says so, and the right key loads it.
#[test]
fn a_save_signed_with_another_key_is_left_in_place_and_said() {
    let dir = tempfile::tempdir().unwrap();
    let docs = || [DocSpec::json("a.json", 1), DocSpec::json("b.json", 1)];
    let right = SaveStore::new(dir.path(), key()).with_documents(docs());
    let b = |n: u32| format!("{{\"SchemaVersion\": 1, \"N\": {n}}}").into_bytes();
    right.commit_bodies(&[b(1), b(10)], 1).unwrap();
    right.commit_bodies(&[b(2), b(20)], 2).unwrap();
    let wrong = SaveStore::new(dir.path(), SaveKey::new("rotated")).with_documents(docs());
    let l = wrong.load();
    assert!(l.outcome.other_key);
    assert_eq!(l.outcome.save_point, None);
    assert!(!l.outcome.is_first_start());
    let text = l.outcome.describe();
    assert!(text.contains("signed with another key"), "{text}");
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["a.json", "a.json.bak", "b.json", "b.json.bak"]);
    // The right key still loads save point 2.
    let mut l = right.load();
    assert_eq!(l.outcome.save_point, Some(2));
    let a: serde_json::Value = l.take(0).unwrap();
    assert_eq!(a["N"], 2);
    // Damage beside it (a cut file) does not make the rest bad files:
    // still kept (moving them aside with the wrong key was the loss).
    fs::write(dir.path().join("a.json.bak"), b"x").unwrap();
    let l = wrong.load();
    assert!(l.outcome.other_key, "{}", l.outcome.describe());
    assert!(dir.path().join("b.json.bak").exists(), "nothing moved");
    // A game that changed its key on purpose starts fresh and saves.
    let fresh = SaveStore::new(dir.path(), SaveKey::new("rotated"))
        .with_documents(docs())
        .with_unverified(UnverifiedSave::StartFresh);
    let l = fresh.load();
    assert!(!l.outcome.other_key);
    assert!(
        !dir.path().join("b.json").exists(),
        "moved aside as bad files"
    );
}

/// A temp file that verifies proves the key: primaries and backups that
/// fail their signature beside it are bad files (an interrupted save over
/// damaged copies), not another key's save.
#[test]
fn a_temp_that_verifies_is_not_another_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    save(&s, &doc(1), 1);
    let mut edited = fs::read(s.path("save.json", CopyKind::Primary)).unwrap();
    let last = edited.len() - 3;
    edited[last] ^= 1;
    fs::write(s.path("save.json", CopyKind::Primary), &edited).unwrap();
    fs::write(s.path("save.json", CopyKind::Backup), &edited).unwrap();
    fs::write(s.path("save.json", CopyKind::Temp), sealed(2, &doc(2))).unwrap();
    let (d, _, point, words) = load(&s);
    assert_eq!((d, point), (Some(doc(2)), Some(2)), "{words}");
}

/// A stranger's partial restore (one document's copies from an older save
/// point): the document started fresh, as documents never mix save points,
/// but its older, valid files were overwritten by the next save. They are
/// kept aside now, as a bad file is.
#[test]
fn a_documents_older_save_point_is_kept_aside_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let s = SaveStore::new(dir.path(), key()).with_documents([
        DocSpec::json("world.json", 1),
        DocSpec::json("profile.json", 1),
    ]);
    let b = |n: u32| format!("{{\"SchemaVersion\": 1, \"N\": {n}}}").into_bytes();
    s.commit_bodies(&[b(1), b(10)], 1).unwrap();
    let old = (
        fs::read(dir.path().join("world.json")).unwrap(),
        fs::read(dir.path().join("world.json.bak")).unwrap(),
    );
    s.commit_bodies(&[b(2), b(20)], 2).unwrap();
    fs::write(dir.path().join("world.json"), &old.0).unwrap();
    fs::write(dir.path().join("world.json.bak"), &old.1).unwrap();
    let mut l = s.load();
    let world: Option<serde_json::Value> = l.take(0);
    assert_eq!(world, None, "no copy of save point 2: fresh");
    assert_eq!(l.outcome.save_point, Some(2));
    let kept = l.outcome.documents[0]
        .copy(CopyKind::Primary)
        .quarantined_to
        .clone()
        .expect("the older copy is kept aside");
    assert_eq!(fs::read(&kept).unwrap(), old.0);
    // Named as a save kept, not as damage.
    let name = kept.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("world.json.kept-"), "{name}");
    // The next save writes save point 3; the older copy is still there.
    s.commit_bodies(&[b(3), b(30)], 3).unwrap();
    assert_eq!(fs::read(&kept).unwrap(), old.0);
    // A cap of none keeps no bad file, but a save moved aside in the same
    // load is not deleted by it.
    fs::write(dir.path().join("world.json"), &old.0).unwrap();
    fs::write(dir.path().join("world.json.bak"), &old.1).unwrap();
    let capped = SaveStore::new(dir.path(), key())
        .with_documents([
            DocSpec::json("world.json", 1),
            DocSpec::json("profile.json", 1),
        ])
        .with_quarantine_keep(0);
    let l = capped.load();
    let kept = l.outcome.documents[0]
        .copy(CopyKind::Primary)
        .quarantined_to
        .clone()
        .expect("kept aside");
    assert_eq!(fs::read(&kept).unwrap(), old.0);
}

/// A stranger's eleven quarantines in one second: the cap sorted names as
/// text, so `-10` went before `-2` and a newer file was deleted before an
/// older one.
#[test]
fn the_quarantine_cap_keeps_the_newest_of_one_second() {
    let fs = MemFs::new();
    let s = SaveStore::new("/saves", key())
        .with_fs(fs.clone())
        .with_documents([DocSpec::new::<Doc>("save.json", 1)])
        .with_quarantine_keep(3);
    let stamp = "save.json.corrupt-2026-12-01T00-00-00Z";
    fs.put(format!("/saves/{stamp}"), b"1".to_vec());
    for n in 2..=11 {
        fs.put(format!("/saves/{stamp}-{n}"), vec![n]);
    }
    fs.put("/saves/save.json", b"bad".to_vec());
    s.load();
    let mut kept: Vec<String> = fs
        .paths()
        .into_iter()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p.contains(".corrupt-"))
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            format!("/saves/{stamp}-10"),
            format!("/saves/{stamp}-11"),
            format!("/saves/{stamp}-12"),
        ],
        "the three newest: -12 is the file moved aside now"
    );
}
