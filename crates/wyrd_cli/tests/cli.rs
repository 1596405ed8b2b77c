//! Drives the `wyrd` binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn wyrd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args(args)
        .output()
        .expect("the wyrd binary runs")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

fn fixture(name: &str) -> String {
    repo("crates/wyrd_state/tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn verify_accepts_the_seed_save_and_rejects_tampering_with_a_reason() {
    let key = fixture("test.key");
    let save = fixture("seed_save.json");
    let o = wyrd(&["save", "verify", &save, "--key-file", &key]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert_eq!(text(&o).0, "ok\n");

    let dir = tempfile::tempdir().unwrap();
    let tampered = dir.path().join("t.json");
    let body = std::fs::read_to_string(&save)
        .unwrap()
        .replace("\"Value\": 5", "\"Value\": 6");
    std::fs::write(&tampered, body).unwrap();
    let o = wyrd(&[
        "save",
        "verify",
        tampered.to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).1.contains("signature does not match"),
        "{:?}",
        text(&o)
    );

    let wrong_key = dir.path().join("k");
    std::fs::write(&wrong_key, "other").unwrap();
    let o = wyrd(&[
        "save",
        "verify",
        &save,
        "--key-file",
        wrong_key.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));

    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, "").unwrap();
    let o = wyrd(&[
        "save",
        "verify",
        empty.to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("empty"), "{:?}", text(&o));

    let o = wyrd(&["save", "verify", "/no/such/file", "--key-file", &key]);
    assert_eq!(o.status.code(), Some(1));
    let o = wyrd(&["save", "verify", &save]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "missing --key-file is a usage error"
    );
}

#[test]
fn show_prints_the_document_and_the_verdict() {
    let o = wyrd(&[
        "save",
        "show",
        &fixture("seed_save.json"),
        "--key-file",
        &fixture("test.key"),
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(out.contains("\"DebugName\": \"QST_DST_TOWER_5\""));
    assert!(out.contains("verified: the signature holds"));
}

#[test]
fn sign_makes_an_edited_save_load_again() {
    let dir = tempfile::tempdir().unwrap();
    let key = fixture("test.key");
    let edited = dir.path().join("edited.json");
    let body = std::fs::read_to_string(fixture("seed_save.json"))
        .unwrap()
        .replace("\"Value\": 5", "\"Value\": 2");
    std::fs::write(&edited, &body).unwrap();
    let out = dir.path().join("signed.json");
    let o = wyrd(&[
        "save",
        "sign",
        edited.to_str().unwrap(),
        "--key-file",
        &key,
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = wyrd(&["save", "verify", out.to_str().unwrap(), "--key-file", &key]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // A plain JSON document (no signature line) signs too, in place.
    let plain = dir.path().join("plain.json");
    std::fs::write(&plain, body.split_once('\n').unwrap().1).unwrap();
    let o = wyrd(&["save", "sign", plain.to_str().unwrap(), "--key-file", &key]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    let o = wyrd(&[
        "save",
        "verify",
        plain.to_str().unwrap(),
        "--key-file",
        &key,
    ]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    // Something the game would refuse is not signed.
    std::fs::write(&plain, "{\"SchemaVersion\": 9}").unwrap();
    let o = wyrd(&["save", "sign", plain.to_str().unwrap(), "--key-file", &key]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).1.contains("schema version 9"), "{:?}", text(&o));
}

#[test]
fn check_reports_ok_and_file_line_column_errors() {
    let good = repo("assets/drone_quest/world_state.flags.ron");
    let o = wyrd(&["check", good.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{:?}", text(&o));
    assert!(text(&o).0.contains("ok (5 flags, 2 counters)"));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.flags.ron");
    std::fs::write(
        &bad,
        "(flags: [\n  (id: \"xyz\", name: \"A\", default: true),\n])",
    )
    .unwrap();
    let o = wyrd(&["check", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o).1;
    assert!(err.contains("bad.flags.ron:2:9:"), "{err}");
    assert!(err.contains("\"xyz\""), "{err}");
    assert_eq!(wyrd(&["nonsense"]).status.code(), Some(2));
}
