//! `wyrd save status DIR` and `wyrd save diff A B`.

use std::path::Path;
use std::process::{Command, Output};

fn wyrd(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wyrd"))
        .args(args)
        .output()
        .expect("the wyrd binary runs")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../wyrd_state/tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Signs `body` with the fixture key.
fn sign(dir: &Path, name: &str, body: &str) -> String {
    let plain = dir.join(format!("{name}.plain"));
    std::fs::write(&plain, body).unwrap();
    let out = dir.join(name);
    let o = wyrd(&[
        "save",
        "sign",
        plain.to_str().unwrap(),
        "--key-file",
        &fixture("test.key"),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{o:?}");
    std::fs::remove_file(plain).unwrap();
    out.to_string_lossy().into_owned()
}

#[test]
fn status_says_which_copy_would_load_and_why_and_touches_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::fs::read(fixture("seed_save.json")).unwrap();
    std::fs::write(dir.path().join("world_state.json"), b"edited by hand").unwrap();
    std::fs::write(dir.path().join("world_state.json.bak"), &seed).unwrap();
    let o = wyrd(&[
        "save",
        "status",
        dir.path().to_str().unwrap(),
        "--key-file",
        &fixture("test.key"),
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("1 document(s); would load: loaded save point 0"),
        "{out}"
    );
    assert!(out.contains("world_state.json: from its backup"), "{out}");
    assert!(out.contains("the file has no signature line"), "{out}");
    assert!(
        out.contains("world_state.json.bak         valid, save point 0  <- loads"),
        "{out}"
    );
    assert!(
        out.contains("progress: 5 flag(s) and 1 counter(s) saved, last saved 2026-"),
        "{out}"
    );
    // A survey: nothing moved, nothing repaired.
    assert_eq!(
        std::fs::read(dir.path().join("world_state.json")).unwrap(),
        b"edited by hand"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
}

#[test]
fn status_fails_when_no_copy_is_usable() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("profile.json"), b"").unwrap();
    let o = wyrd(&[
        "save",
        "status",
        dir.path().to_str().unwrap(),
        "--key-file",
        &fixture("test.key"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no usable copy of profile.json"));
    assert!(stdout(&o).contains("the file is empty"), "{}", stdout(&o));
}

#[test]
fn diff_lists_the_flags_and_counters_that_differ() {
    let dir = tempfile::tempdir().unwrap();
    let seed = std::fs::read_to_string(fixture("seed_save.json")).unwrap();
    let body = seed.split_once('\n').unwrap().1;
    let earlier = body
        .replace("\"Value\": 5", "\"Value\": 3")
        .replace(
            "{\n      \"Id\": \"d4a7c3e9b1f8460da2e5c7b9f3d1684e\",\n      \"DebugName\": \"DIALOGUE_OPT_DRONE_ENDQST\",\n      \"Value\": true\n    }",
            "{\n      \"Id\": \"d4a7c3e9b1f8460da2e5c7b9f3d1684e\",\n      \"DebugName\": \"DIALOGUE_OPT_DRONE_ENDQST\",\n      \"Value\": false\n    }",
        );
    assert_ne!(earlier, body);
    let a = sign(dir.path(), "a.json", &earlier);
    let o = wyrd(&[
        "save",
        "diff",
        &a,
        &fixture("seed_save.json"),
        "--key-file",
        &fixture("test.key"),
    ]);
    assert!(o.status.success(), "{o:?}");
    assert_eq!(
        stdout(&o),
        "flag    DIALOGUE_OPT_DRONE_ENDQST: false -> true\ncounter QST_DST_TOWER_5: 3 -> 5\n"
    );
    let o = wyrd(&["save", "diff", &a, &a, "--key-file", &fixture("test.key")]);
    assert_eq!(stdout(&o), "no differences in flags, counters or events\n");
    // A tampered file is refused with the reason.
    std::fs::write(&a, earlier).unwrap();
    let o = wyrd(&[
        "save",
        "diff",
        &a,
        &fixture("seed_save.json"),
        "--key-file",
        &fixture("test.key"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("a.json:"),
        "{o:?}"
    );
}
