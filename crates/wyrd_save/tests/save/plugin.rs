//! SavePlugin on the in-memory file system: failed writes are reported,
//! kept dirty, retried with backoff and at exit; newer saves pause saving.
//! Time is stepped exactly; writes are waited for with `flush`, never sleep.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use serde::{Deserialize, Serialize};
use wyrd_save::prelude::*;
use wyrd_save::testing::{FaultKind, MemFs};
use wyrd_save::{SaveError, SaveKey};

#[derive(Resource, Default, Debug, Clone, Copy, PartialEq)]
struct Score(i64);

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
struct ScoreDoc {
    schema_version: u32,
    value: i64,
}

impl SaveDocument for ScoreDoc {
    const SCHEMA_VERSION: u32 = 1;
    fn fresh() -> Self {
        ScoreDoc {
            schema_version: 1,
            value: 0,
        }
    }
    fn capture(world: &mut World) -> Self {
        ScoreDoc {
            schema_version: 1,
            value: world.resource::<Score>().0,
        }
    }
    fn apply(self, world: &mut World, _load: &DocumentLoad) {
        world.insert_resource(Score(self.value));
    }
}

const PRIMARY: &str = "/saves/score.json";

fn key() -> SaveKey {
    SaveKey::new("plugin-key")
}

fn app(fs: &MemFs, autosave: Option<Duration>) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins)
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            100,
        )))
        .init_resource::<Score>()
        .add_plugins(
            SavePlugin::new("/saves", key())
                .with_fs(Arc::new(fs.clone()))
                .with_autosave(autosave),
        )
        .add_save_document::<ScoreDoc>("score.json");
    app.update();
    app
}

/// Sets the score and marks the slot dirty, as a game system would.
fn set(app: &mut App, value: i64) {
    app.world_mut().resource_mut::<Score>().0 = value;
    app.world_mut().resource_mut::<SaveSlot>().mark_dirty();
}

/// One frame, then waits for the writer and lets the next frame see the
/// result. Returns the failures and completions reported.
fn step(app: &mut App) -> (Vec<SaveFailed>, Vec<SaveCompleted>) {
    for _ in 0..2 {
        app.update();
        app.world().resource::<SaveSlot>().flush();
    }
    let failed = app
        .world_mut()
        .resource_mut::<Messages<SaveFailed>>()
        .drain()
        .collect();
    let done = app
        .world_mut()
        .resource_mut::<Messages<SaveCompleted>>()
        .drain()
        .collect();
    (failed, done)
}

fn on_disk(fs: &MemFs) -> Option<i64> {
    let bytes = fs.file(Path::new(PRIMARY))?;
    let doc: ScoreDoc = key().open_json(&bytes, 1).ok()?;
    Some(doc.value)
}

#[test]
fn a_failed_save_is_reported_stays_dirty_and_is_retried_with_backoff_until_it_lands() {
    let fs = MemFs::new();
    let mut app = app(&fs, None);
    fs.fail_from(fs.call_count(), FaultKind::NoSpace);
    set(&mut app, 3);
    app.world_mut().write_message(SaveRequest);
    let (failed, done) = step(&mut app);
    assert!(done.is_empty());
    assert_eq!(failed.len(), 1);
    assert!(
        failed[0]
            .error
            .to_string()
            .contains("No space left on device"),
        "{}",
        failed[0].describe()
    );
    assert_eq!(failed[0].retry_in, Some(Duration::from_secs(1)));
    assert!(failed[0].describe().contains("progress is kept in memory"));
    let status = app.world().resource::<SaveStatus>().clone();
    assert!(status.dirty, "the dirty mark survives the failure");
    assert!(
        status.summary().starts_with("SAVE FAILED (1x): cannot "),
        "{}",
        status.summary()
    );
    // Retries back off: after 1 s, 2 s, 4 s (a step is 0.2 s).
    let mut attempts = vec![];
    for frame in 0..40 {
        let (failed, _) = step(&mut app);
        for f in failed {
            attempts.push((frame, f.attempt, f.retry_in));
        }
    }
    let secs = |d: u64| Some(Duration::from_secs(d));
    assert_eq!(
        attempts,
        vec![(5, 2, secs(2)), (15, 3, secs(4)), (36, 4, secs(8))],
        "retried 1 s, 2 s and 4 s after each failure"
    );
    // Space comes back: the next retry lands with the newest progress.
    fs.clear_faults();
    set(&mut app, 5);
    let mut landed = vec![];
    for _ in 0..60 {
        landed.extend(step(&mut app).1);
        if !landed.is_empty() {
            break;
        }
    }
    assert_eq!(landed.len(), 1);
    assert_eq!(on_disk(&fs), Some(5));
    let status = app.world().resource::<SaveStatus>().clone();
    assert!(!status.dirty && status.last_error.is_none(), "{status:?}");
    assert!(
        status.summary().starts_with("saved (save point"),
        "{}",
        status.summary()
    );
}

/// Bug 3: space came back mid-session; quitting left the disk behind the
/// session because the dirty mark had been cleared when the write was queued.
#[test]
fn exit_writes_what_a_failed_save_left_dirty() {
    let fs = MemFs::new();
    let mut app = app(&fs, Some(Duration::from_secs(1)));
    set(&mut app, 1);
    app.world_mut().write_message(SaveRequest);
    step(&mut app);
    assert_eq!(on_disk(&fs), Some(1));
    fs.fail_from(fs.call_count(), FaultKind::ReadOnly);
    set(&mut app, 3);
    app.world_mut().write_message(SaveRequest);
    let (failed, _) = step(&mut app);
    assert!(
        failed[0]
            .error
            .to_string()
            .contains("Read-only file system")
    );
    fs.clear_faults();
    // More play, no new save yet (the retry is not due).
    set(&mut app, 5);
    app.world_mut().write_message(AppExit::Success);
    app.update();
    assert_eq!(
        on_disk(&fs),
        Some(5),
        "the exit flush wrote the session's progress"
    );
}

#[test]
fn a_save_that_fails_at_exit_says_the_progress_is_not_on_disk() {
    let fs = MemFs::new();
    let mut app = app(&fs, None);
    fs.fail_from(fs.call_count(), FaultKind::PermissionDenied);
    set(&mut app, 9);
    app.world_mut().write_message(AppExit::Success);
    app.update();
    let failed: Vec<SaveFailed> = app
        .world_mut()
        .resource_mut::<Messages<SaveFailed>>()
        .drain()
        .collect();
    assert_eq!(failed.len(), 1);
    assert!(failed[0].at_exit);
    assert!(
        failed[0].describe().contains("not on disk"),
        "{}",
        failed[0].describe()
    );
    assert!(failed[0].error.to_string().contains("Permission denied"));
}

#[test]
fn a_newer_versions_save_pauses_saving_and_stays_untouched() {
    let fs = MemFs::new();
    let newer = key().seal(br#"{"SchemaVersion": 7, "Value": 100, "SaveCounter": 40}"#);
    fs.put(PRIMARY, newer.clone());
    let mut app = app(&fs, None);
    let status = app.world().resource::<SaveStatus>().clone();
    let paused = status.paused.clone().unwrap();
    assert!(paused.contains("newer version"), "{paused}");
    assert!(status.summary().starts_with("saving paused"));
    assert_eq!(app.world().resource::<Score>().0, 0, "runs fresh");
    set(&mut app, 2);
    app.world_mut().write_message(SaveRequest);
    let (failed, _) = step(&mut app);
    assert!(matches!(
        failed[0].error,
        SaveError::NewerSaveInPlace { found: 7, .. }
    ));
    assert_eq!(failed[0].retry_in, None, "no point retrying");
    assert_eq!(fs.file(Path::new(PRIMARY)), Some(newer));
    assert_eq!(fs.paths().len(), 1, "nothing written beside it");
}

/// A launch with another key (a misconfigured or rotated key) moved every
/// file of the slot aside, and the next launch with the right key started
/// fresh. Now nothing is moved or written: saving is paused, said why.
#[test]
fn a_save_signed_with_another_key_pauses_saving_and_stays_untouched() {
    let fs = MemFs::new();
    let other =
        SaveKey::new("rotated").seal(br#"{"SchemaVersion": 1, "Value": 100, "SaveCounter": 40}"#);
    fs.put(PRIMARY, other.clone());
    let mut app = app(&fs, None);
    let status = app.world().resource::<SaveStatus>().clone();
    let paused = status.paused.unwrap();
    assert!(paused.contains("another key"), "{paused}");
    set(&mut app, 2);
    app.world_mut().write_message(SaveRequest);
    let (failed, _) = step(&mut app);
    assert!(matches!(failed[0].error, SaveError::SignedWithAnotherKey));
    assert_eq!(failed[0].retry_in, None, "no point retrying");
    assert_eq!(fs.file(Path::new(PRIMARY)), Some(other));
    assert_eq!(fs.paths().len(), 1, "nothing moved or written beside it");
}

/// A stranger's farm earned a coin every half second: the autosave, timed
/// from the last change, never came, and a crash after 30 s lost them all.
/// Timed from the first change not saved yet, the save on disk is never
/// more than the delay behind.
#[test]
fn autosave_comes_while_changes_go_on() {
    let fs = MemFs::new();
    let mut app = app(&fs, Some(Duration::from_secs(1)));
    let mut saves = 0;
    for v in 1..=50 {
        // A change every second (a step is two 100 ms frames): never a
        // whole second without one.
        if v % 5 == 0 {
            set(&mut app, v / 5);
        }
        saves += step(&mut app).1.len();
    }
    assert!(saves >= 4, "{saves} saves in 10 s of changes");
    let on = on_disk(&fs).expect("saved");
    assert!(on >= 8, "the save on disk is {on}, the game at 10");
}

/// A game's exit system in `Last`, after the save's systems, changed the
/// score and sent `AppExit`: the app stopped at the end of that frame and
/// the exit save never ran (a stranger's farm lost 5 s of its agents).
/// The exit is seen after `Last`, and the save holds the last change.
#[test]
fn an_exit_sent_late_in_last_is_still_saved() {
    let fs = MemFs::new();
    let mut app = app(&fs, None);
    app.add_systems(
        bevy::app::Last,
        (|mut score: ResMut<Score>,
          mut slot: ResMut<SaveSlot>,
          mut exit: MessageWriter<AppExit>| {
            score.0 = 42;
            slot.mark_dirty();
            exit.write(AppExit::Success);
        })
        .after(SaveSystems::Write),
    );
    app.update();
    app.world().resource::<SaveSlot>().flush();
    assert_eq!(on_disk(&fs), Some(42));
}

/// The exit is sent early in `Last` and a change is marked later in the
/// same frame (a stranger's farm: its exit system ran before the agents'
/// plugin marked their last seconds, and the exit save, taken when the
/// exit was seen, left them out). The exit save comes after `Last`.
#[test]
fn a_change_marked_after_the_exit_in_its_frame_is_saved() {
    let fs = MemFs::new();
    let mut app = app(&fs, None);
    set(&mut app, 1);
    app.world_mut().write_message(SaveRequest);
    step(&mut app);
    assert_eq!(on_disk(&fs), Some(1));
    app.add_systems(
        bevy::app::Last,
        (
            (|mut exit: MessageWriter<AppExit>| {
                exit.write(AppExit::Success);
            })
            .before(SaveSystems::Write),
            (|mut score: ResMut<Score>, mut slot: ResMut<SaveSlot>| {
                score.0 = 7;
                slot.mark_dirty();
            })
            .after(SaveSystems::Write),
        ),
    );
    app.update();
    app.world().resource::<SaveSlot>().flush();
    assert_eq!(on_disk(&fs), Some(7));
}

/// A slot that never held a save and saw no change writes nothing at
/// exit.
#[test]
fn an_exit_with_nothing_to_keep_writes_nothing() {
    let fs = MemFs::new();
    let mut app = app(&fs, None);
    app.world_mut().write_message(AppExit::Success);
    app.update();
    app.world().resource::<SaveSlot>().flush();
    assert_eq!(on_disk(&fs), None);
}

/// A burst of changes within the delay is one save.
#[test]
fn autosave_waits_for_quiet_then_commits_once() {
    let fs = MemFs::new();
    let mut app = app(&fs, Some(Duration::from_secs(1)));
    for v in 1..=5 {
        set(&mut app, v);
        app.update();
    }
    app.world().resource::<SaveSlot>().flush();
    assert_eq!(on_disk(&fs), None, "saved too early");
    let mut done = vec![];
    for _ in 0..15 {
        done.extend(step(&mut app).1);
    }
    assert_eq!(done.len(), 1);
    assert_eq!(on_disk(&fs), Some(5));
}

/// Issue 15: a save request is read, not drained: the save lands and a
/// game system reading `SaveRequest` too still sees it.
#[test]
fn a_save_request_is_read_not_drained() {
    #[derive(Resource, Default)]
    struct Heard(u32);
    let fs = MemFs::new();
    let mut app = app(&fs, None);
    // Runs after the store took the request (it used to drain them).
    app.init_resource::<Heard>().add_systems(
        bevy::app::Last,
        (|mut r: MessageReader<SaveRequest>, mut heard: ResMut<Heard>| {
            heard.0 += r.read().count() as u32;
        })
        .after(SaveSystems::Write),
    );
    set(&mut app, 7);
    app.world_mut().write_message(SaveRequest);
    let (failed, done) = step(&mut app);
    assert!(failed.is_empty() && !done.is_empty());
    assert_eq!(on_disk(&fs), Some(7));
    assert_eq!(app.world().resource::<Heard>().0, 1);
}

/// Issue 25: the HUD said `retrying in 0 s` in the frame a retry was due.
#[test]
fn a_retry_that_is_due_says_now_not_in_0_s() {
    let mut status = SaveStatus {
        last_error: Some("cannot write".into()),
        failures: 1,
        retry_in: Some(Duration::ZERO),
        ..Default::default()
    };
    assert!(
        status.summary().contains("retrying now"),
        "{}",
        status.summary()
    );
    status.retry_in = Some(Duration::from_millis(300));
    assert!(
        status.summary().contains("retrying in 1 s"),
        "{}",
        status.summary()
    );
}

/// Issue 25: `finish_writes` takes the landed commit at once, so the status
/// says "saved", not "saving...", in the same frame.
#[test]
fn finish_writes_reports_the_landed_save_at_once() {
    let fs = MemFs::new();
    let mut app = app(&fs, None);
    set(&mut app, 5);
    app.world_mut().write_message(SaveRequest);
    app.update();
    SaveSlot::finish_writes(app.world_mut());
    let status = app.world().resource::<SaveStatus>();
    assert_eq!(status.summary(), "saved (save point 1)");
    assert_eq!(on_disk(&fs), Some(5));
}

/// Issue 25: with [`MissingDocument::PauseSaving`], a document deleted from
/// a slot saved at point N pauses saving: the other files stay as they
/// are until it is put back.
#[test]
fn a_missing_document_can_pause_saving() {
    #[derive(Debug, Serialize, Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct Other {
        schema_version: u32,
    }
    impl SaveDocument for Other {
        const SCHEMA_VERSION: u32 = 1;
        fn fresh() -> Self {
            Other { schema_version: 1 }
        }
        fn capture(_: &mut World) -> Self {
            Other::fresh()
        }
        fn apply(self, _: &mut World, _: &DocumentLoad) {}
    }
    let two = |fs: &MemFs, policy| {
        let mut app = App::new();
        app.add_plugins(MinimalPlugins)
            .init_resource::<Score>()
            .add_plugins(
                SavePlugin::new("/saves", key())
                    .with_fs(Arc::new(fs.clone()))
                    .with_missing_document(policy),
            )
            .add_save_document::<ScoreDoc>("score.json")
            .add_save_document::<Other>("other.json");
        app.update();
        app
    };
    let fs = MemFs::new();
    let mut app = two(&fs, MissingDocument::PauseSaving);
    set(&mut app, 7);
    app.world_mut().write_message(SaveRequest);
    step(&mut app);
    drop(app);
    fs.delete(Path::new("/saves/other.json"));
    fs.delete(Path::new("/saves/other.json.bak"));
    let mut app = two(&fs, MissingDocument::PauseSaving);
    let status = app.world().resource::<SaveStatus>().clone();
    let load = status.last_load.clone().unwrap();
    assert_eq!(load.missing().count(), 1);
    assert!(
        status
            .summary()
            .contains("other.json is missing from the slot saved at point 1"),
        "{}",
        status.summary()
    );
    set(&mut app, 8);
    app.world_mut().write_message(SaveRequest);
    step(&mut app);
    assert_eq!(on_disk(&fs), Some(7), "the slot's files stay as they are");
    drop(app);
    // The default starts the document fresh and saves the slot whole.
    let mut app = two(&fs, MissingDocument::StartFresh);
    assert!(app.world().resource::<SaveStatus>().paused.is_none());
    set(&mut app, 9);
    app.world_mut().write_message(SaveRequest);
    step(&mut app);
    assert_eq!(on_disk(&fs), Some(9));
    assert!(fs.file(Path::new("/saves/other.json")).is_some());
    drop(app);
    // Deleted again and nothing changes in the session: the slot is
    // written whole at the next autosave (it waited for a change, and
    // every launch said the document was missing while the status said
    // "saved").
    fs.delete(Path::new("/saves/other.json"));
    fs.delete(Path::new("/saves/other.json.bak"));
    let mut app = two(&fs, MissingDocument::StartFresh);
    assert!(app.world().resource::<SaveSlot>().is_dirty());
    for _ in 0..3 {
        step(&mut app);
    }
    app.world_mut().write_message(AppExit::Success);
    step(&mut app);
    SaveSlot::finish_writes(app.world_mut());
    assert!(
        fs.file(Path::new("/saves/other.json")).is_some(),
        "written again"
    );
    assert!(fs.file(Path::new("/saves/other.json.bak")).is_some());
    assert_eq!(on_disk(&fs), Some(9), "the others' save kept");
}
