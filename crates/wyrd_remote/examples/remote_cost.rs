//! What `WyrdRemotePlugin` costs a game with no client connected: the
//! reference load of `bench_tick --plugin` (BENCH_REFERENCE.md) on one
//! thread, with and without the plugin (its HTTP server listening on a
//! free port), rounds interleaved in one run.
//!
//! `cargo run --release -p wyrd_remote --example remote_cost -- --agents 10000`

#[path = "../../wyrd_bt/benches/support/load.rs"]
mod load;

use std::time::Instant;

/// Median ns per agent-tick of `ticks` whole updates.
fn measure(app: &mut bevy::app::App, agents: usize, ticks: usize) -> f64 {
    let mut times: Vec<f64> = (0..ticks)
        .map(|_| {
            let t = Instant::now();
            app.update();
            t.elapsed().as_nanos() as f64
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2] / agents as f64
}

fn main() {
    let agents = load::arg("--agents", 10_000);
    let ticks = load::arg("--ticks", 300);
    let rounds = load::arg("--rounds", 3);
    let mut without = load::plugin_app(agents, Some(1));
    let mut with = load::plugin_app(agents, Some(1));
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    if std::env::args().any(|a| a == "--breakpoints-in-both") {
        // The plugin adds BtBreakpointsPlugin: give it to both apps to see
        // bevy_remote's own share.
        without.add_plugins(wyrd_bt::BtBreakpointsPlugin::default());
    }
    with.add_plugins(wyrd_remote::WyrdRemotePlugin {
        port,
        ..Default::default()
    });
    for app in [&mut without, &mut with] {
        for _ in 0..60 {
            app.update();
        }
    }
    println!(
        "agents {agents}, one thread, {ticks} updates per round, ns per agent-tick (whole update)"
    );
    for round in 1..=rounds {
        // Which app goes first alternates (the second of two can pay for
        // the first's cache traffic).
        let (a, b) = if round % 2 == 1 {
            let a = measure(&mut without, agents, ticks);
            (a, measure(&mut with, agents, ticks))
        } else {
            let b = measure(&mut with, agents, ticks);
            (measure(&mut without, agents, ticks), b)
        };
        println!("round {round}: without the plugin {a:.1}, with it (no client) {b:.1}");
    }
}
