//! # Wyrd over the Bevy Remote Protocol
//!
//! [`WyrdRemotePlugin`] registers JSON-RPC methods under a `wyrd.` prefix
//! on Bevy's remote protocol (`bevy_remote`, JSON-RPC 2.0 over HTTP), so a
//! tool outside the game (a browser page, an editor, a script) can list the
//! agents, read a tree's live state, count the crowd in each node, pause
//! and step the trees, set breakpoints, fetch flight recordings and read or
//! set the world state, in any build: it needs no renderer and no egui.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use wyrd_remote::WyrdRemotePlugin;
//!
//! App::new()
//!     .add_plugins(MinimalPlugins)
//!     // 127.0.0.1:15702 (bevy_remote's port) by default.
//!     .add_plugins(WyrdRemotePlugin::default())
//!     .run();
//! ```
//!
//! ```sh
//! curl -s -X POST http://127.0.0.1:15702 \
//!   -d '{"jsonrpc": "2.0", "id": 1, "method": "wyrd.agents", "params": {"running": "Shoot"}}'
//! ```
//!
//! Every method, its parameters and its answer are in [`methods`]. Each
//! request is answered by a system run once for it, between frames (in
//! bevy_remote's `RemoteLast` schedule): reading never blocks the tick.
//! `RemoteLast` itself runs only in frames with a request waiting (or every
//! frame while a client keeps one of Bevy's `+watch` requests open), so with no
//! client connected neither Wyrd's methods nor bevy_remote's schedule run.

pub mod methods;

use std::net::{IpAddr, Ipv4Addr};

use bevy::app::{App, Last, MainScheduleOrder, Plugin};
use bevy::ecs::prelude::*;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::ecs::system::IntoSystem;
use bevy_remote::http::RemoteHttpPlugin;
use bevy_remote::{
    BrpReceiver, RemoteLast, RemoteMethodSystemId, RemoteMethods, RemotePlugin,
    RemoteWatchingRequests,
};

/// Wyrd's remote methods (`wyrd.agents`, `wyrd.tree`, ...) on the Bevy
/// Remote Protocol. Adds bevy_remote's `RemotePlugin` (with Bevy's own
/// methods, `world.query` and the rest) unless the game added it first
/// (add it before this plugin, or let this one add it), its HTTP server
/// unless [`http`](Self::http) is off, and
/// [`BtBreakpointsPlugin`](wyrd_bt::BtBreakpointsPlugin) (for breakpoints
/// set from a tool) unless added. Trees tick in `FixedUpdate`.
#[derive(Debug, Clone)]
pub struct WyrdRemotePlugin {
    /// The address the server listens on (127.0.0.1: this machine only).
    pub address: IpAddr,
    /// The port (bevy_remote's 15702 by default).
    pub port: u16,
    /// A page on another origin that may call the methods from a browser
    /// (sent as `Access-Control-Allow-Origin`; `None`: same origin only).
    pub cors_origin: Option<String>,
    /// Start bevy_remote's HTTP server (off: the methods only, for a game
    /// that adds the transport itself, or tests that call them directly).
    pub http: bool,
}

impl Default for WyrdRemotePlugin {
    fn default() -> Self {
        WyrdRemotePlugin {
            address: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: bevy_remote::http::DEFAULT_PORT,
            cors_origin: None,
            http: true,
        }
    }
}

impl Plugin for WyrdRemotePlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<RemotePlugin>() {
            app.add_plugins(RemotePlugin::default());
        }
        run_remote_only_when_asked(app);
        // Breakpoints set from a tool (`wyrd.breakpoints.set`).
        if !app.is_plugin_added::<wyrd_bt::BtBreakpointsPlugin>() {
            app.add_plugins(wyrd_bt::BtBreakpointsPlugin::default());
        }
        if self.http && !app.is_plugin_added::<RemoteHttpPlugin>() {
            let mut http = RemoteHttpPlugin::default()
                .with_address(self.address)
                .with_port(self.port);
            if let Some(origin) = &self.cors_origin {
                http = http
                    .with_header("Access-Control-Allow-Origin", origin.as_str())
                    .with_header("Access-Control-Allow-Headers", "content-type");
            }
            app.add_plugins(http);
        }
        for (name, register) in methods::ALL {
            let id = register(app);
            app.world_mut()
                .resource_mut::<RemoteMethods>()
                .insert(*name, RemoteMethodSystemId::Instant(id));
        }
    }
}

/// Whether bevy_remote's schedule has work besides waiting requests:
/// watching requests (Bevy's `+watch` methods) are open, answered in every
/// frame as the world changes.
#[derive(Resource, Debug, Default)]
struct RemoteWork {
    watching: bool,
}

/// bevy_remote runs its `RemoteLast` schedule after `Last` in every frame,
/// client or not: a fixed cost (three systems, two of them exclusive) that
/// a game with nothing connected should not pay. It is taken out of the
/// main schedule order and run from `Last` only in frames with a request
/// waiting, or while a watching request is open.
fn run_remote_only_when_asked(app: &mut App) {
    app.world_mut()
        .resource_mut::<MainScheduleOrder>()
        .labels
        .retain(|label| *label != RemoteLast.intern());
    app.init_resource::<RemoteWork>()
        .add_systems(Last, run_remote_schedule.run_if(remote_work_waiting));
}

/// A request is in bevy_remote's mailbox, or watching requests are open.
fn remote_work_waiting(work: Res<RemoteWork>, mailbox: Option<Res<BrpReceiver>>) -> bool {
    work.watching || mailbox.is_some_and(|m| !m.is_empty())
}

/// Runs bevy_remote's schedule (its requests, then its clean-up), and
/// notes whether watching requests are left open.
fn run_remote_schedule(world: &mut World) {
    world.run_schedule(RemoteLast);
    let open = world
        .get_resource::<RemoteWatchingRequests>()
        .is_some_and(watches_open);
    world.resource_mut::<RemoteWork>().watching = open;
}

/// Whether bevy_remote's list of watching requests has any. The list keeps
/// its field private; its `Debug` says `RemoteWatchingRequests([])` when
/// empty. Only the start of that text is written (no allocation), and any
/// other text counts as open: the schedule then runs every frame, as
/// bevy_remote itself would.
fn watches_open(requests: &RemoteWatchingRequests) -> bool {
    use std::fmt::Write;
    const EMPTY: &str = "RemoteWatchingRequests([])";
    struct Start {
        text: [u8; EMPTY.len()],
        len: usize,
    }
    impl Write for Start {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            let room = self.text.len() - self.len;
            let n = s.len().min(room);
            self.text[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
            self.len += n;
            if n < s.len() {
                // Enough seen: stop formatting.
                return Err(std::fmt::Error);
            }
            Ok(())
        }
    }
    let mut start = Start {
        text: [0; EMPTY.len()],
        len: 0,
    };
    let complete = write!(start, "{requests:?}").is_ok();
    !(complete && &start.text[..start.len] == EMPTY.as_bytes())
}

/// Registers a method's system with the app's world.
fn register<M>(
    app: &mut App,
    system: impl IntoSystem<bevy::ecs::system::In<Option<serde_json::Value>>, bevy_remote::BrpResult, M>
    + 'static,
) -> bevy_remote::RemoteInstantMethodSystemId {
    app.world_mut().register_system(system)
}
