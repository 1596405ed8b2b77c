//! Saving and loading a large world state: 10,000 flags + 10,000 counters.
//!
//! `cargo bench -p wyrd_save`. Targets (issues 3 and 13): serialize + sign +
//! commit (primary and backup, without fsync) and load (read every copy,
//! verify, parse) each under 20 ms on a 2-core machine.

use criterion::{Criterion, criterion_group, criterion_main};
use serde::{Deserialize, Serialize};
use wyrd_save::{DocSpec, OsFs, SaveKey, SaveStore};

/// The world-state schema's shape (the real type lives in `wyrd_state`,
/// which depends on this crate).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Entry<T> {
    id: String,
    debug_name: String,
    value: T,
    version: Option<u32>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Doc {
    schema_version: u32,
    profile_id: String,
    last_saved_utc_ticks: i64,
    bool_flags: Vec<Entry<bool>>,
    int_counters: Vec<Entry<i64>>,
    completed_event_ids: Vec<String>,
}

fn document(n: usize) -> Doc {
    Doc {
        schema_version: 1,
        profile_id: "bench".into(),
        last_saved_utc_ticks: 639_287_208_004_213_377,
        bool_flags: (0..n)
            .map(|i| Entry {
                id: format!("{:032x}", i as u128 * 7_919 + 1),
                debug_name: format!("FLAG_{i:05}"),
                value: i % 3 == 0,
                version: Some(1),
            })
            .collect(),
        int_counters: (0..n)
            .map(|i| Entry {
                id: format!("{:032x}", (i as u128 + n as u128) * 7_919 + 1),
                debug_name: format!("COUNTER_{i:05}"),
                value: i as i64 * 37,
                version: Some(1),
            })
            .collect(),
        completed_event_ids: Vec::new(),
    }
}

fn bench(c: &mut Criterion) {
    let doc = document(10_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SaveStore::new(dir.path(), SaveKey::new("bench-key"))
        .with_fs(OsFs::unsynced())
        .with_documents([DocSpec::new::<Doc>("world_state.json", 1)]);
    let mut group = c.benchmark_group("save_10k_flags_10k_counters");
    group.sample_size(20);
    let mut point = 0;
    group.bench_function("serialize_sign_commit_unsynced", |b| {
        b.iter(|| {
            point += 1;
            let body = serde_json::to_vec_pretty(&doc).expect("serializes");
            store.commit_bodies(&[body], point).expect("commits");
        })
    });
    group.bench_function("load_verify_parse", |b| {
        b.iter(|| {
            let mut loaded = store.load();
            let doc: Doc = loaded.take(0).expect("loads");
            assert_eq!(doc.bool_flags.len(), 10_000);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
