//! `wyrd monitor` in a real headless Chromium (issue 28), against a
//! headless squad_ai started with `--remote`: `tests/browser/monitor.mjs`
//! (playwright-core driving Debian's `chromium`) picks an agent, checks its
//! running path is highlighted, pauses and sees the tick stop, steps,
//! resumes, and sets a world counter, which the game then reports.
//!
//! Needs Node.js, `/usr/bin/chromium` (or `CHROMIUM`) and
//! `npm ci --prefix tests/browser`; `.ci/browser` installs them, and
//! `.ci/run` runs it. A missing browser fails the test: it is not skipped.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support;

/// Kills a child process however the test ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What the browser test needs, or what is missing and how to get it.
fn browser_tools(root: &Path) -> Result<PathBuf, String> {
    let chromium =
        std::env::var_os("CHROMIUM").map_or_else(|| "/usr/bin/chromium".into(), PathBuf::from);
    let mut missing = Vec::new();
    if Command::new("node").arg("--version").output().is_err() {
        missing.push("Node.js (`node`)".to_owned());
    }
    if !chromium.exists() {
        missing.push(format!("Chromium at {}", chromium.display()));
    }
    if !root
        .join("tests/browser/node_modules/playwright-core")
        .exists()
    {
        missing.push("playwright-core in tests/browser/node_modules".to_owned());
    }
    if missing.is_empty() {
        Ok(chromium)
    } else {
        Err(format!(
            "the browser test needs {}: run .ci/browser (apt-get install chromium, npm ci --prefix tests/browser)",
            missing.join(", ")
        ))
    }
}

/// Keeps a child's stderr lines as they come.
fn collect_stderr(child: &mut Child) -> Arc<Mutex<String>> {
    let seen = Arc::new(Mutex::new(String::new()));
    let stderr = child.stderr.take().expect("stderr piped");
    let sink = Arc::clone(&seen);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let mut s = sink.lock().unwrap();
            s.push_str(&line);
            s.push('\n');
        }
    });
    seen
}

fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_monitor_in_chromium_watches_pauses_and_edits_a_headless_skirmish() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chromium = browser_tools(root).unwrap_or_else(|why| panic!("{why}"));

    let game_port = wyrd_test_support::free_port();
    let mut game = support::headless("squad_ai")
        .args([
            "--headless",
            "--agents",
            "24",
            "--ticks",
            "100000",
            "--remote",
        ])
        .arg(game_port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let game_says = collect_stderr(&mut game);
    let _game = Running(game);

    let page_port = wyrd_test_support::free_port();
    let monitor = support::wyrd()
        .args(["monitor", "--game"])
        .arg(game_port.to_string())
        .arg("--port")
        .arg(page_port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let _monitor = Running(monitor);

    // The game answers once it has started and loaded (another process:
    // polled).
    wait_for(
        "the game's agents over HTTP",
        Duration::from_secs(60),
        || {
            wyrd_test_support::brp_call(game_port, "wyrd.agents", serde_json::json!({}))
                .is_ok_and(|a| a["agents"].as_array().is_some_and(|l| l.len() >= 8))
        },
    );

    let shot = std::env::var_os("WYRD_MONITOR_SCREENSHOT").map_or_else(
        || std::env::temp_dir().join(format!("wyrd-monitor-{page_port}.png")),
        PathBuf::from,
    );
    let out = Command::new("node")
        .arg(root.join("tests/browser/monitor.mjs"))
        .arg(format!("http://127.0.0.1:{page_port}/"))
        .arg(&shot)
        .args(["AIS_KILLED", "4242"])
        .env("CHROMIUM", chromium)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let leaves = seen["leaves"].as_array().unwrap();
    assert!(!leaves.is_empty(), "a running leaf highlighted: {seen}");
    assert_eq!(
        &seen["leaves"], &seen["listed"],
        "the highlighted leaves are the game's: {seen}"
    );
    assert!(shot.exists(), "the screenshot {}", shot.display());

    // The game reports the counter the page set.
    wait_for(
        "the game's report of the set",
        Duration::from_secs(10),
        || {
            game_says.lock().unwrap().lines().any(|l| {
                l.starts_with("squad_ai: world AIS_KILLED = 4242 ") && l.ends_with("set by remote")
            })
        },
    );
}
