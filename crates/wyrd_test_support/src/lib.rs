//! Headless Bevy apps for tests of Wyrd games and of Wyrd itself.
//!
//! - [`TestApp`]: `MinimalPlugins` and the asset plugin on a folder or on an
//!   in-memory folder ([`MemoryAssets`]), time advancing exactly one fixed
//!   step per update, so N updates are N ticks on every machine.
//! - [`run_until`] / [`wait_loaded`]: update until a condition holds,
//!   bounded by a number of updates, never by the wall clock and never by
//!   sleeping. Asset loads run on Bevy's IO threads; between updates the
//!   helper yields the core to them instead of sleeping a fixed time.
//! - [`Collected`]: every message of a type, kept for the test to read
//!   (a collector reads with its own cursor, so it takes nothing from the
//!   app's readers).
//!
//! ```
//! use bevy::prelude::*;
//! use wyrd_test_support::{MemoryAssets, TestApp, run_until};
//!
//! #[derive(Message, Clone, Debug, PartialEq)]
//! struct Ping(u32);
//!
//! let files = MemoryAssets::new().with("hello.txt", "hi");
//! let mut app = TestApp::in_memory(&files, 30.0).collect::<Ping>().build();
//! app.world_mut().write_message(Ping(7));
//! run_until(&mut app, "the ping", 10, |w| !wyrd_test_support::collected::<Ping>(w).is_empty());
//! assert_eq!(wyrd_test_support::collected::<Ping>(app.world()), [Ping(7)]);
//! ```

use std::path::Path;
use std::time::Duration;

use bevy::asset::io::memory::{Dir, MemoryAssetReader};
use bevy::asset::io::{AssetSourceBuilder, AssetSourceId};
use bevy::asset::{AssetPlugin, LoadState, UntypedAssetId};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;

/// Updates a test waits at most for an asset by default: loads of small
/// files finish in a few hundred updates on a loaded 2-core machine.
pub const LOAD_UPDATES: usize = 200_000;

/// An in-memory asset folder: the app's default asset source reads it, so
/// `asset_server.load("tree.bt.ron")` loads what the test wrote, with no
/// files on disk.
#[derive(Clone, Default)]
pub struct MemoryAssets {
    dir: Dir,
}

impl MemoryAssets {
    /// An empty folder.
    pub fn new() -> Self {
        MemoryAssets {
            dir: Dir::new(Default::default()),
        }
    }

    /// Adds (or replaces) a text file.
    pub fn with(self, path: &str, text: &str) -> Self {
        self.insert(path, text);
        self
    }

    /// Adds (or replaces) a text file.
    pub fn insert(&self, path: &str, text: &str) {
        self.dir.insert_asset_text(Path::new(path), text);
    }
}

/// Builds a headless app whose time moves one fixed step per update.
pub struct TestApp {
    app: App,
    hz: f64,
}

impl TestApp {
    /// Assets read from a folder on disk (hot reload works there).
    pub fn in_folder(dir: &Path, hz: f64) -> Self {
        let mut app = App::new();
        app.add_plugins((
            MinimalPlugins,
            AssetPlugin {
                file_path: dir.to_string_lossy().into_owned(),
                ..Default::default()
            },
        ));
        TestApp { app, hz }.stepped()
    }

    /// Assets read from memory.
    pub fn in_memory(files: &MemoryAssets, hz: f64) -> Self {
        let mut app = App::new();
        let dir = files.dir.clone();
        // The default source must be registered before the asset plugin.
        app.register_asset_source(
            AssetSourceId::Default,
            AssetSourceBuilder::new(move || Box::new(MemoryAssetReader { root: dir.clone() })),
        );
        app.add_plugins((MinimalPlugins, AssetPlugin::default()));
        TestApp { app, hz }.stepped()
    }

    fn stepped(mut self) -> Self {
        // One update advances time by exactly one fixed step: `FixedUpdate`
        // runs once per update and timers count the same on every machine.
        let step = Duration::from_secs_f64(1.0 / self.hz);
        self.app
            .insert_resource(Time::<Fixed>::from_duration(step))
            .insert_resource(TimeUpdateStrategy::ManualDuration(step));
        self
    }

    /// Adds plugins (after the test's own base plugins).
    pub fn plugins<M>(mut self, plugins: impl bevy::app::Plugins<M>) -> Self {
        self.app.add_plugins(plugins);
        self
    }

    /// Keeps every message of type `M` for [`collected`].
    pub fn collect<M: Message + Clone>(mut self) -> Self {
        collect::<M>(&mut self.app);
        self
    }

    /// Changes the app before it is built.
    pub fn with(mut self, f: impl FnOnce(&mut App)) -> Self {
        f(&mut self.app);
        self
    }

    /// The app.
    pub fn build(self) -> App {
        self.app
    }
}

/// Updates `app` until `done` holds, at most `max_updates` times; panics
/// naming `what` when it never does. Never sleeps: between updates it only
/// yields the core to Bevy's IO threads.
pub fn run_until(
    app: &mut App,
    what: &str,
    max_updates: usize,
    mut done: impl FnMut(&mut World) -> bool,
) {
    if let Err(e) = try_run_until(app, max_updates, &mut done) {
        panic!("gave up waiting for {what}: {e}");
    }
}

/// Like [`run_until`], returning an error instead of panicking.
pub fn try_run_until(
    app: &mut App,
    max_updates: usize,
    mut done: impl FnMut(&mut World) -> bool,
) -> Result<usize, String> {
    for n in 1..=max_updates {
        app.update();
        if done(app.world_mut()) {
            return Ok(n);
        }
        std::thread::yield_now();
    }
    Err(format!("not done after {max_updates} updates"))
}

/// Updates until an asset and its dependencies are loaded; the load's error
/// when it fails. Bounded by [`LOAD_UPDATES`].
pub fn wait_loaded(app: &mut App, id: impl Into<UntypedAssetId>) -> Result<(), String> {
    let id = id.into();
    let mut failed = None;
    let done = try_run_until(app, LOAD_UPDATES, |w| {
        let server = w.resource::<AssetServer>();
        if let Some(LoadState::Failed(e)) = server.get_load_state(id) {
            failed = Some(e.to_string());
            return true;
        }
        server.is_loaded_with_dependencies(id)
    });
    match (failed, done) {
        (Some(e), _) => Err(e),
        (None, Ok(_)) => Ok(()),
        (None, Err(e)) => Err(format!("asset {id:?}: {e}")),
    }
}

/// Runs `n` updates (with [`TestApp`], `n` fixed steps).
pub fn step(app: &mut App, n: usize) {
    for _ in 0..n {
        app.update();
    }
}

/// Every message of one type written so far (see [`collect`]).
#[derive(Resource)]
pub struct Collected<M: Message> {
    /// The messages, oldest first.
    pub messages: Vec<M>,
}

impl<M: Message> Default for Collected<M> {
    fn default() -> Self {
        Collected {
            messages: Vec::new(),
        }
    }
}

/// Keeps every message of type `M` in [`Collected<M>`], read in `Last` with
/// the collector's own reader.
pub fn collect<M: Message + Clone>(app: &mut App) {
    app.add_message::<M>()
        .init_resource::<Collected<M>>()
        .add_systems(
            Last,
            |mut r: MessageReader<M>, mut c: ResMut<Collected<M>>| {
                c.messages.extend(r.read().cloned());
            },
        );
}

/// The messages of type `M` collected so far (empty without [`collect`]).
pub fn collected<M: Message>(world: &World) -> &[M] {
    world
        .get_resource::<Collected<M>>()
        .map_or(&[], |c| &c.messages)
}

/// Takes the messages of type `M` collected so far.
pub fn take_collected<M: Message>(world: &mut World) -> Vec<M> {
    world
        .get_resource_mut::<Collected<M>>()
        .map(|mut c| std::mem::take(&mut c.messages))
        .unwrap_or_default()
}

/// A Bevy Remote Protocol call over HTTP (JSON-RPC 2.0, one POST on a
/// fresh connection), as a tool outside the game makes it: the answer's
/// `result`, or its `error` (or why the call failed) as text.
pub fn brp_call(
    port: u16,
    method: &str,
    params: serde_json::Value,
) -> Result<serde_json::Value, String> {
    use std::io::{Read, Write};
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        .to_string();
    let mut stream =
        std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "POST / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&raw);
    let (head, rest) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("not an HTTP answer: {text}"))?;
    let json = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)?
    } else {
        rest.to_owned()
    };
    let answer: serde_json::Value =
        serde_json::from_str(&json).map_err(|e| format!("{e}: {json}"))?;
    match (answer.get("result"), answer.get("error")) {
        (_, Some(error)) => Err(error.to_string()),
        (Some(result), None) => Ok(result.clone()),
        (None, None) => Err(format!("no result: {answer}")),
    }
}

/// An HTTP/1.1 chunked body, joined.
fn dechunk(mut rest: &str) -> Result<String, String> {
    let mut out = String::new();
    loop {
        let (size, after) = rest
            .split_once("\r\n")
            .ok_or_else(|| "a chunk without a size line".to_owned())?;
        let n = usize::from_str_radix(size.trim(), 16).map_err(|e| format!("{size:?}: {e}"))?;
        if n == 0 {
            return Ok(out);
        }
        out.push_str(after.get(..n).ok_or("a chunk shorter than its size")?);
        rest = after.get(n + 2..).ok_or("a chunk without its line end")?;
    }
}

/// A port no one listens on now (the system's pick for port 0).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free local port")
}
