//! Property tests: byte flips, truncations and junk never load as valid and
//! never panic; random signed documents never panic.

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use wyrd_save::testing::MemFs;
use wyrd_save::{CopyKind, DocSpec, SaveKey, SaveStore, Verdict, insert_save_counter};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Entry {
    id: String,
    value: i64,
    #[serde(default)]
    version: Option<u32>,
}

/// A typed document shaped like the world state's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Doc {
    schema_version: u32,
    #[serde(default)]
    last_saved_utc_ticks: i64,
    int_counters: Vec<Entry>,
}

fn key() -> SaveKey {
    SaveKey::new("prop-key")
}

fn good_doc() -> Doc {
    Doc {
        schema_version: 1,
        last_saved_utc_ticks: 639_287_208_004_213_377,
        int_counters: (0..4)
            .map(|i| Entry {
                id: format!("{i:032x}"),
                value: i * 7,
                version: Some(1),
            })
            .collect(),
    }
}

fn good_file() -> Vec<u8> {
    let body = serde_json::to_vec_pretty(&good_doc()).unwrap();
    key().seal(&insert_save_counter(&body, 3).unwrap())
}

fn store(fs: &MemFs) -> SaveStore {
    SaveStore::new("/s", key())
        .with_fs(fs.clone())
        .with_documents([DocSpec::new::<Doc>("doc.json", 1)])
}

/// The file as the primary, a good backup beside it: the bad primary is
/// never the copy loaded, and the backup's document is.
fn assert_rejected(bad: &[u8]) -> Result<(), TestCaseError> {
    prop_assert!(key().open_json::<Doc>(bad, 1).is_err());
    let fs = MemFs::new();
    fs.put("/s/doc.json", bad.to_vec());
    fs.put("/s/doc.json.bak", good_file());
    let mut l = store(&fs).load();
    let d = &l.outcome.documents[0];
    prop_assert!(matches!(
        d.copy(CopyKind::Primary).verdict,
        Verdict::Invalid(_)
    ));
    prop_assert_eq!(d.source, Some(CopyKind::Backup));
    prop_assert_eq!(l.take::<Doc>(0), Some(good_doc()));
    Ok(())
}

/// Any JSON value, nested a few levels, with the header names among the
/// keys so that they come with random types too.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::from),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("SchemaVersion".to_string()),
                        Just("SaveCounter".to_string()),
                        Just("IntCounters".to_string()),
                        Just("Id".to_string()),
                        Just("Value".to_string()),
                        Just("Version".to_string()),
                        "[A-Za-z]{1,8}",
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_flipped_byte_never_loads(pos in any::<prop::sample::Index>(), mask in 1u8..=255) {
        let mut file = good_file();
        let i = pos.index(file.len());
        file[i] ^= mask;
        assert_rejected(&file)?;
    }

    #[test]
    fn a_truncated_file_never_loads(pos in any::<prop::sample::Index>()) {
        let file = good_file();
        let cut = pos.index(file.len());
        assert_rejected(&file[..cut])?;
    }

    #[test]
    fn junk_before_inside_or_after_never_loads(
        junk in prop::collection::vec(any::<u8>(), 1..64),
        pos in any::<prop::sample::Index>(),
    ) {
        let mut file = good_file();
        let at = pos.index(file.len() + 1);
        file.splice(at..at, junk);
        assert_rejected(&file)?;
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        prop_assert!(key().open_json::<Doc>(&bytes, 1).is_err());
        let fs = MemFs::new();
        fs.put("/s/doc.json", bytes.clone());
        fs.put("/s/doc.json.tmp", bytes);
        let l = store(&fs).load();
        prop_assert_eq!(l.outcome.documents[0].source, None);
    }

    /// Correctly signed documents with random shapes and values: loading
    /// never panics, and what loads is exactly what was signed.
    #[test]
    fn random_signed_documents_never_panic(doc in json(), counter in any::<u64>()) {
        let body = serde_json::to_vec_pretty(&doc).unwrap();
        let files = [key().seal(&body), key().seal(&insert_save_counter(&body, counter).unwrap_or_default())];
        for file in files {
            let fs = MemFs::new();
            fs.put("/s/doc.json", file.clone());
            let mut l = store(&fs).load();
            let _ = l.outcome.describe();
            if let Some(loaded) = l.take::<Doc>(0) {
                let expected: Doc = serde_json::from_slice(&file[45..]).unwrap();
                prop_assert_eq!(loaded, expected);
            }
        }
    }

    /// Random documents of the right shape with random values load as they
    /// were signed.
    #[test]
    fn random_values_of_the_right_shape_load_as_signed(
        ticks in any::<i64>(),
        values in prop::collection::vec((any::<u128>(), any::<i64>(), any::<Option<u32>>()), 0..20),
        counter in any::<u64>(),
    ) {
        let doc = Doc {
            schema_version: 1,
            last_saved_utc_ticks: ticks,
            int_counters: values
                .into_iter()
                .map(|(id, value, version)| Entry { id: format!("{id:032x}"), value, version })
                .collect(),
        };
        let fs = MemFs::new();
        let s = store(&fs);
        s.commit_bodies(&[serde_json::to_vec_pretty(&doc).unwrap()], counter).unwrap();
        let mut l = s.load();
        prop_assert_eq!(l.outcome.save_point, Some(counter));
        prop_assert_eq!(l.take::<Doc>(0), Some(doc));
        prop_assert_eq!(l.next_save_point, counter.saturating_add(1));
    }
}
