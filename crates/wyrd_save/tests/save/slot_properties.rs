//! Issue 25's property: a slot of several documents, saved up to any save
//! point (the last save possibly killed at any file call), then any subset
//! of its files deleted or damaged. Loading never yields a value from a
//! save point newer than another document's, a document that belongs to
//! the loaded save point and did not load is reported missing (never a
//! first start), and a reward recorded beside its coins
//! ([`CompletedEvents`]) is never paid twice when the quest is played
//! again.

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;
use wyrd_save::testing::MemFs;
use wyrd_save::{CompletedEvents, CopyKind, DocSpec, SaveKey, SaveStore};

const DOCS: [&str; 3] = ["world_state.json", "profile.json", "run.json"];
const REWARD: &str = "reward:drone_secret";
const PAY: i64 = 100;
/// The save point from which the quest is done and paid.
const QUEST_AT: u64 = 3;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct World {
    schema_version: u32,
    point: u64,
    quest_done: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Profile {
    schema_version: u32,
    point: u64,
    coins: i64,
    #[serde(default)]
    completed_event_ids: CompletedEvents,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Run {
    schema_version: u32,
    point: u64,
}

fn store(fs: &MemFs) -> SaveStore {
    SaveStore::new("/slot", SaveKey::new("slot-key"))
        .with_fs(fs.clone())
        .with_documents([
            DocSpec::new::<World>(DOCS[0], 1),
            DocSpec::new::<Profile>(DOCS[1], 1),
            DocSpec::new::<Run>(DOCS[2], 1),
        ])
}

/// The game at save point `p`: the quest is done, and paid once, from
/// `QUEST_AT` on.
fn bodies(p: u64) -> Vec<Vec<u8>> {
    let done = p >= QUEST_AT;
    let mut paid = CompletedEvents::default();
    if done {
        paid.complete(REWARD);
    }
    [
        json!({"SchemaVersion": 1, "Point": p, "QuestDone": done}),
        json!({"SchemaVersion": 1, "Point": p, "Coins": if done { PAY } else { 0 }, "CompletedEventIds": paid}),
        json!({"SchemaVersion": 1, "Point": p}),
    ]
    .iter()
    .map(|v| serde_json::to_vec_pretty(v).unwrap())
    .collect()
}

/// What happens to one file before the load.
#[derive(Debug, Clone, Copy)]
enum Damage {
    Keep,
    Delete,
    Flip(usize),
    Truncate(usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        4 => Just(Damage::Keep),
        2 => Just(Damage::Delete),
        1 => any::<usize>().prop_map(Damage::Flip),
        1 => any::<usize>().prop_map(Damage::Truncate),
    ]
}

fn apply(fs: &MemFs, path: &std::path::Path, d: Damage) {
    let Some(mut bytes) = fs.file(path) else {
        return;
    };
    match d {
        Damage::Keep => {}
        Damage::Delete => fs.delete(path),
        Damage::Flip(at) if !bytes.is_empty() => {
            let i = at % bytes.len();
            bytes[i] ^= 0x20;
            fs.put(path.to_owned(), bytes);
        }
        Damage::Truncate(at) => {
            bytes.truncate(at % (bytes.len() + 1));
            fs.put(path.to_owned(), bytes);
        }
        Damage::Flip(_) => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_loss_of_files_mixes_save_points_or_pays_a_reward_twice(
        points in 1u64..=6,
        kill_at in prop::option::of(0usize..60),
        damages in prop::collection::vec(damage(), 9),
    ) {
        let fs = MemFs::new();
        let s = store(&fs);
        for p in 1..=points {
            if p == points && let Some(k) = kill_at {
                fs.crash_before(fs.call_count() + k);
            }
            let _ = s.commit_bodies(&bodies(p), p);
        }
        fs.restart();
        for (i, d) in damages.iter().enumerate() {
            let path = s.path(DOCS[i / 3], CopyKind::ALL[i % 3]);
            apply(&fs, &path, *d);
        }
        let mut l = store(&fs).load();
        let what = l.outcome.describe();
        let world: Option<World> = l.take(0);
        let profile: Option<Profile> = l.take(1);
        let run: Option<Run> = l.take(2);
        // One save point for every document that loaded.
        let loaded: Vec<u64> = [
            world.as_ref().map(|w| w.point),
            profile.as_ref().map(|p| p.point),
            run.as_ref().map(|r| r.point),
        ]
        .into_iter()
        .flatten()
        .collect();
        prop_assert!(loaded.iter().all(|p| Some(*p) == l.outcome.save_point), "{:?}: {}", loaded, what);
        // A document of the slot that did not load is reported missing.
        for d in &l.outcome.documents {
            if d.source.is_none() && l.outcome.save_point.is_some() {
                prop_assert_eq!(d.missing_at, l.outcome.save_point, "{}: {}", d.file, what);
                prop_assert!(what.contains(&d.file), "{}", what);
            }
        }
        // The player plays the quest again where it is not done: the
        // reward pays only if the profile has no record of it.
        let mut profile = profile.unwrap_or(Profile {
            schema_version: 1,
            point: 0,
            coins: 0,
            completed_event_ids: CompletedEvents::default(),
        });
        let replayed = !world.is_some_and(|w| w.quest_done);
        if replayed && profile.completed_event_ids.complete(REWARD) {
            profile.coins += PAY;
        }
        prop_assert!(profile.coins <= PAY, "paid twice: {}", what);
        if replayed {
            prop_assert_eq!(profile.coins, PAY, "{}", what);
        }
    }
}
