//! What the open inspector costs per frame with the crowd view on many
//! agents: the snapshot (the agent rows, the selected agent's tree and the
//! crowd counts over every agent of its tree) and drawing the panel and
//! the graph window into an egui context (layout and tessellation, no GPU).
//! The trees tick between frames and are not measured here (`bench_tick`
//! does that; closed, the inspector takes no snapshot and draws nothing).
//!
//! `cargo run --release -p wyrd_inspector --example panel_cost -- --agents 10000`

#[path = "../../wyrd_bt/benches/support/load.rs"]
mod load;

use std::time::Instant;

use bevy::ecs::system::SystemState;
use bevy::prelude::*;
use bevy_egui::egui;
use wyrd_bt::{BehaviorTree, Blackboard, BtAgent};
use wyrd_inspector::{InspectorState, draw_graph_window, draw_inspector, take_snapshot};

type Agents<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        Option<&'static Name>,
        &'static BehaviorTree,
        &'static BtAgent,
        &'static Blackboard,
    ),
>;

fn main() {
    let agents = load::arg("--agents", 10_000);
    let frames = load::arg("--frames", 60);
    let mut app = load::plugin_app(agents, Some(1));
    for _ in 0..30 {
        app.update();
    }
    let mut query = SystemState::<Agents>::new(app.world_mut());
    let selected = query.get(app.world()).unwrap().iter().next().map(|a| a.0);
    let mut state = InspectorState::default();
    state.open = true;
    state.selected = selected;
    state.ui.graph = true; // the graph window open too
    let ctx = egui::Context::default();
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1280.0, 720.0),
        )),
        ..Default::default()
    };
    let (mut snapshot_ms, mut draw_ms) = (Vec::new(), Vec::new());
    let mut crowd = 0;
    for _ in 0..frames {
        app.update();
        let t = Instant::now();
        let agents = query.get(app.world()).unwrap();
        let (snap, _) = take_snapshot(&state, &agents, None, None, None, None, None);
        snapshot_ms.push(t.elapsed().as_secs_f64() * 1e3);
        crowd = snap.tree.as_ref().map_or(0, |t| t.crowd_agents);
        let t = Instant::now();
        let output = ctx.run_ui(input(), |ui| {
            let ctx = ui.ctx().clone();
            egui::Window::new("Wyrd inspector (F1)").show(&ctx, |ui| {
                draw_inspector(ui, &snap, &mut state.ui);
            });
            draw_graph_window(&ctx, &snap, &mut state.ui);
        });
        let meshes = ctx.tessellate(output.shapes, output.pixels_per_point);
        std::hint::black_box(meshes);
        draw_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (s, d) = (median(&mut snapshot_ms), median(&mut draw_ms));
    println!("agents                    {agents}");
    println!("crowd counted over        {crowd} agents (the selected tree's)");
    println!("frames measured           {frames}");
    println!("snapshot (median)         {s:.3} ms");
    println!("draw panel + graph        {d:.3} ms");
    println!("panel per frame           {:.3} ms", s + d);
}
