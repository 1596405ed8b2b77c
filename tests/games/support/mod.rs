//! Running the example games' binaries from tests.

use std::path::PathBuf;
use std::process::Command;

/// An example's binary (`cargo test` builds the examples next to the tests).
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join(name);
    assert!(
        bin.exists(),
        "cargo test builds the example: {}",
        bin.display()
    );
    bin
}

/// A command running the example without a display (headless whatever the
/// machine has).
pub fn headless(name: &str) -> Command {
    let mut cmd = Command::new(example(name));
    cmd.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    cmd
}

/// The `wyrd` command (`cargo test --workspace` builds it beside the
/// tests).
#[allow(dead_code, reason = "not every test file runs the command")]
pub fn wyrd() -> Command {
    let exe = std::env::current_exe().unwrap();
    let bin = exe.parent().unwrap().parent().unwrap().join("wyrd");
    assert!(
        bin.exists(),
        "cargo test --workspace builds the wyrd command: {}",
        bin.display()
    );
    Command::new(bin)
}

/// Runs `cmd`, which must succeed (else the test fails with its stderr),
/// and returns its stdout.
#[allow(dead_code, reason = "not every test file needs it")]
pub fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
