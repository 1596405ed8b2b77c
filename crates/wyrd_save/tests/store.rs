//! The signed store: round trips, tampering, crashes, bad input, random bytes.

use std::fs;
use std::path::Path;

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use wyrd_save::{LoadError, LoadOutcome, SaveKey, SaveStore, SaveWriter, WriteStep};

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
    SaveStore::new(dir, "save.json", key())
}

fn save(store: &SaveStore, d: &Doc) {
    store.write(&store.key().seal_json(d).unwrap()).unwrap();
}

fn load(store: &SaveStore) -> Result<(Doc, LoadOutcome), LoadOutcome> {
    store.load::<Doc>(1).map(|l| (l.document, l.outcome))
}

#[test]
fn round_trip_and_backup_rotation() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    assert_eq!(
        load(&s).unwrap_err(),
        LoadOutcome::Fresh {
            primary: LoadError::Missing,
            backup: LoadError::Missing,
            moved_to: vec![]
        }
    );
    save(&s, &doc(1));
    save(&s, &doc(2));
    assert_eq!(load(&s).unwrap(), (doc(2), LoadOutcome::Primary));
    let backup: Doc = s.read_file(&s.backup_path(), 1).unwrap();
    assert_eq!(backup, doc(1));
    // The file is the seed's format: 44-char signature line, pretty JSON.
    let text = fs::read_to_string(s.primary_path()).unwrap();
    let (sig, body) = text.split_once('\n').unwrap();
    assert_eq!(sig.len(), 44);
    assert!(sig.ends_with('='));
    assert!(body.starts_with("{\n  \"SchemaVersion\": 1,"), "{body}");
}

/// Flips bits of every byte of the primary in turn: each change must be
/// caught, the backup used and restored as the primary.
#[test]
fn every_single_byte_change_is_detected_and_the_backup_used() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let old = s.key().seal_json(&doc(1)).unwrap();
    let new = s.key().seal_json(&doc(2)).unwrap();
    let mut checked = 0;
    for i in 0..new.len() {
        for mask in [0x01u8, 0x02, 0x20, 0x80, 0xff] {
            let mut bad = new.clone();
            bad[i] ^= mask;
            // Clear the folder of files moved aside by the previous round.
            for e in fs::read_dir(dir.path()).unwrap() {
                fs::remove_file(e.unwrap().path()).unwrap();
            }
            fs::write(s.backup_path(), &old).unwrap();
            fs::write(s.primary_path(), &bad).unwrap();
            match load(&s) {
                Ok((d, LoadOutcome::FromBackup { primary, moved_to })) => {
                    assert_eq!(d, doc(1), "byte {i} mask {mask:#x}");
                    assert!(!matches!(primary, LoadError::Missing));
                    // The bad file is kept aside, byte for byte.
                    assert_eq!(fs::read(moved_to.unwrap()).unwrap(), bad);
                    // The backup is the primary again.
                    assert_eq!(fs::read(s.primary_path()).unwrap(), old);
                }
                other => panic!("byte {i} mask {mask:#x}: {other:?}"),
            }
            checked += 1;
        }
    }
    assert!(checked > 300);
}

/// A crash after each write step leaves the old or the new progress, never
/// a fresh document while a good copy exists.
#[test]
fn a_crash_at_any_write_step_keeps_old_or_new_progress() {
    let steps = [
        WriteStep::TempPartlyWritten,
        WriteStep::TempWritten,
        WriteStep::TempSynced,
        WriteStep::Rotated,
        WriteStep::Renamed,
    ];
    for prior in [1u32, 2] {
        for step in steps {
            let dir = tempfile::tempdir().unwrap();
            let s = store(dir.path());
            for p in 1..=prior {
                save(&s, &doc(p));
            }
            let next = s.key().seal_json(&doc(prior + 1)).unwrap();
            assert!(s.write_crashing_after(&next, step).is_err());
            let (d, outcome) = load(&s).unwrap_or_else(|o| panic!("{step:?}: fresh: {o:?}"));
            assert!(
                d == doc(prior) || d == doc(prior + 1),
                "{step:?}: got {d:?}"
            );
            if matches!(step, WriteStep::Renamed) {
                assert_eq!(d, doc(prior + 1));
            }
            // Once loaded, the next save works normally.
            save(&s, &doc(10));
            assert_eq!(
                load(&s).unwrap(),
                (doc(10), LoadOutcome::Primary),
                "{step:?} {outcome:?}"
            );
        }
    }
}

#[test]
fn both_files_bad_gives_fresh_and_moves_both_aside() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    fs::write(s.primary_path(), b"garbage").unwrap();
    fs::write(s.backup_path(), b"").unwrap();
    let fresh = s.load_or(1, || doc(0));
    assert_eq!(fresh.document, doc(0));
    let LoadOutcome::Fresh {
        primary,
        backup,
        moved_to,
    } = fresh.outcome
    else {
        panic!("{:?}", fresh.outcome)
    };
    assert_eq!(primary, LoadError::NoNewline);
    assert_eq!(backup, LoadError::Empty);
    assert_eq!(moved_to.len(), 2);
    assert!(
        moved_to
            .iter()
            .all(|p| p.to_string_lossy().contains(".corrupt-"))
    );
    assert!(!s.primary_path().exists());
    let kept: Vec<Vec<u8>> = moved_to.iter().map(|p| fs::read(p).unwrap()).collect();
    assert!(kept.contains(&b"garbage".to_vec()));
}

fn open(bytes: &[u8]) -> Result<Doc, LoadError> {
    key().open_json(bytes, 1)
}

#[test]
fn each_bad_input_has_its_own_error() {
    let good = key().seal_json(&doc(1)).unwrap();
    let nl = good.iter().position(|&b| b == b'\n').unwrap();
    let body = &good[nl + 1..];

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
    // Truncated: cut the document short.
    assert_eq!(open(&good[..good.len() - 10]), Err(LoadError::Truncated));
    // Signed, but not JSON / not UTF-8 / wrong schema / newer schema.
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
        Err(LoadError::WrongSchema(m)) if m.contains("Progress") || m.contains("string")
    ));
    assert!(matches!(
        open(&signed(br#"{"Progress": 1}"#)),
        Err(LoadError::WrongSchema(m)) if m.contains("SchemaVersion")
    ));
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
    fs::write(small.primary_path(), &good).unwrap();
    assert!(good.len() > 64);
    assert_eq!(
        small.read_file::<Doc>(&small.primary_path(), 1),
        Err(LoadError::TooLarge {
            size: good.len() as u64,
            limit: 64
        })
    );
    // And the good file itself is fine.
    assert_eq!(open(&good), Ok(doc(1)));
    assert_eq!(body.first(), Some(&b'{'));
    // Every error explains itself in words.
    for e in [
        LoadError::Empty,
        LoadError::Truncated,
        LoadError::SignatureMismatch,
    ] {
        assert!(e.to_string().len() > 10);
    }
}

#[test]
fn writer_writes_in_order_newest_wins_and_flushes_on_drop() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let writer = SaveWriter::new(s.clone());
    for p in 1..=50 {
        let key = s.key().clone();
        writer.submit(Box::new(move || {
            key.seal_json(&doc(p)).map_err(|e| e.to_string())
        }));
    }
    drop(writer);
    assert_eq!(load(&s).unwrap().0, doc(50));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let r = open(&bytes);
        prop_assert!(r.is_err());
    }

    #[test]
    fn random_edits_of_a_good_file_are_caught(pos in 0usize..200, value in any::<u8>()) {
        let mut file = key().seal_json(&doc(7)).unwrap();
        let pos = pos % file.len();
        prop_assume!(file[pos] != value);
        file[pos] = value;
        prop_assert!(open(&file).is_err());
    }
}
