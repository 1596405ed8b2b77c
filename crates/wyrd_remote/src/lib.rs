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
//! bevy_remote's `RemoteLast` schedule): reading never blocks the tick, and
//! with no request nothing of Wyrd runs.

pub mod methods;

use std::net::{IpAddr, Ipv4Addr};

use bevy::app::{App, Plugin};
use bevy::ecs::system::IntoSystem;
use bevy_remote::http::RemoteHttpPlugin;
use bevy_remote::{RemoteMethodSystemId, RemoteMethods, RemotePlugin};

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

/// Registers a method's system with the app's world.
fn register<M>(
    app: &mut App,
    system: impl IntoSystem<bevy::ecs::system::In<Option<serde_json::Value>>, bevy_remote::BrpResult, M>
    + 'static,
) -> bevy_remote::RemoteInstantMethodSystemId {
    app.world_mut().register_system(system)
}
