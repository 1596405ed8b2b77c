//! Issue 27: the graph window on squad_ai's combat tree (the 62-node tree
//! of the issue): fit-to-view shows every node, readably, at 1280×720; the
//! wheel pans the graph and never the panel around it; Ctrl+wheel zooms
//! around the pointer; a drag pans; find jumps to a node; follow keeps the
//! running path in the middle; the minimap shows where the view is.

use super::*;
use egui::{Modifiers, MouseWheelUnit, TouchPhase, Vec2, pos2, vec2};
use wyrd_inspector::{GraphOrientation, draw_graph};

/// squad_ai's combat tree with a crowd of four grunts: two fight, one
/// searches, one idles; the first fighter is the one shown.
fn combat() -> InspectorSnapshot {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/squad_ai/combat.bt.ron"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let program = compile_str("squad_ai/combat.bt.ron", &text, &Vocabulary::permissive()).unwrap();
    let fighter: &[&str] = &["has_target", "target_visible", "target_in_range"];
    let crowd: [&[&str]; 4] = [fighter, fighter, &["has_last_known"], &[]];
    let sims: Vec<Sim> = crowd
        .iter()
        .map(|keys| {
            let mut sim = Sim::new(&program, 0);
            sim.tag("infantry", true).unwrap();
            sim.tag("alert", true).unwrap();
            for key in *keys {
                sim.set(key, true).unwrap();
            }
            sim.step();
            sim
        })
        .collect();
    let counts = crowd_counts(&program, sims.iter().map(|s| &s.state));
    let mut nodes = tree_rows(&program, &sims[0].state, sims[0].blackboard.tags());
    apply_crowd(&mut nodes, &program, &counts);
    InspectorSnapshot {
        tree: Some(TreeSnapshot {
            label: "grunt".into(),
            nodes,
            crowd_agents: crowd.len(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The inspector with its graph window open, at the screen size given.
fn graph_open(size: Vec2) -> Harness<'static, State> {
    let mut h = harness_sized(combat(), size);
    h.state_mut().1.graph = true;
    h.state_mut().1.graph_view.fit();
    h.run();
    h
}

fn node_rect(h: &Harness<'static, State>, path: &str) -> egui::Rect {
    let (snap, state, _) = h.state();
    let nodes = &snap.tree.as_ref().unwrap().nodes;
    state
        .graph_view
        .node_rects()
        .iter()
        .find(|(i, _)| nodes[*i].path == path)
        .map(|(_, r)| *r)
        .unwrap_or_else(|| panic!("{path} is not drawn"))
}

fn wheel(delta: Vec2, modifiers: Modifiers) -> egui::Event {
    egui::Event::MouseWheel {
        unit: MouseWheelUnit::Point,
        delta,
        phase: TouchPhase::Move,
        modifiers,
    }
}

#[test]
fn fit_to_view_shows_every_node_of_the_combat_tree_readably_at_1280x720() {
    let h = graph_open(vec2(1280.0, 720.0));
    let (snap, state, _) = h.state();
    let nodes = &snap.tree.as_ref().unwrap().nodes;
    assert!(
        nodes.len() >= 60,
        "the combat tree has {} nodes",
        nodes.len()
    );
    let view = &state.graph_view;
    let canvas = view.canvas();
    assert!(
        canvas.width() > 1000.0 && canvas.height() > 500.0,
        "the graph window is large: {canvas:?}"
    );
    assert_eq!(view.node_rects().len(), nodes.len(), "every node drawn");
    for (i, r) in view.node_rects() {
        assert!(
            canvas.contains_rect(*r),
            "{} at {r:?} is outside the graph {canvas:?}",
            nodes[*i].path
        );
    }
    // Readable: the names are drawn at 9 points or more.
    assert!(13.0 * view.zoom >= 9.0, "zoom {} after fit", view.zoom);
    assert_eq!(view.orientation, GraphOrientation::LeftRight);
    // Every box is a widget with its name and kind.
    for row in nodes {
        let label = format!("{}\n{} [", row.name, row.kind);
        assert!(
            h.query_all_by_label_contains(&label).count() >= 1,
            "{label}"
        );
    }
    // All of it in view: no minimap.
    assert!(h.query_by_label("minimap of the tree").is_none());
}

#[test]
fn the_wheel_over_the_graph_pans_it_and_leaves_the_panel_around_it_still() {
    // The graph inside a tall scroll area, as in a panel.
    type Outer = (InspectorSnapshot, InspectorUiState, f32);
    let mut h = Harness::new_ui_state(
        |ui, (snap, state, offset): &mut Outer| {
            let out = egui::ScrollArea::vertical()
                .id_salt("outer")
                .show(ui, |ui| {
                    ui.label("above the graph");
                    ui.allocate_ui(vec2(600.0, 400.0), |ui| {
                        ui.set_min_size(vec2(600.0, 400.0));
                        draw_graph(ui, snap.tree.as_ref().unwrap(), state);
                    });
                    ui.allocate_space(vec2(10.0, 2000.0));
                });
            *offset = out.state.offset.y;
        },
        (combat(), InspectorUiState::default(), 0.0),
    );
    h.set_size(vec2(800.0, 600.0));
    h.run();
    let canvas = h.state().1.graph_view.canvas();
    let pan = h.state().1.graph_view.pan;
    h.hover_at(canvas.center());
    h.event(wheel(vec2(0.0, -120.0), Modifiers::NONE));
    h.run_steps(30);
    let moved = h.state().1.graph_view.pan.y - pan.y;
    assert!(moved < -100.0, "the graph panned up by the wheel: {moved}");
    assert_eq!(h.state().2, 0.0, "the scroll area around it did not move");
    // The same wheel outside the graph scrolls the panel (the check above
    // can fail).
    h.hover_at(pos2(canvas.center().x, canvas.bottom() + 80.0));
    h.event(wheel(vec2(0.0, -120.0), Modifiers::NONE));
    h.run_steps(30);
    assert!(h.state().2 > 50.0, "outside: {}", h.state().2);
}

#[test]
fn ctrl_wheel_zooms_around_the_pointer_and_a_drag_pans() {
    let mut h = graph_open(vec2(1280.0, 720.0));
    let zoom = h.state().1.graph_view.zoom;
    let fight = node_rect(&h, "root/engage/combat/fight");
    let at = fight.center();
    h.hover_at(at);
    let ctrl = Modifiers {
        ctrl: true,
        command: true,
        ..Default::default()
    };
    h.event(wheel(vec2(0.0, 120.0), ctrl));
    h.run_steps(30);
    let after = h.state().1.graph_view.zoom;
    assert!(after > zoom * 1.2, "zoomed in: {zoom} -> {after}");
    let fight_after = node_rect(&h, "root/engage/combat/fight");
    assert!(
        fight_after.contains(at),
        "the node under the pointer stays under it: {at:?} in {fight_after:?}"
    );
    assert!(fight_after.width() > fight.width() * 1.2);
    // A drag on the background moves the whole graph by the drag.
    let canvas = h.state().1.graph_view.canvas();
    let empty = canvas.min + vec2(3.0, 3.0);
    assert!(
        h.state()
            .1
            .graph_view
            .node_rects()
            .iter()
            .all(|(_, r)| !r.contains(empty))
    );
    let pan = h.state().1.graph_view.pan;
    h.drag_at(empty);
    h.run();
    h.hover_at(empty + vec2(40.0, 30.0));
    h.run();
    h.hover_at(empty + vec2(80.0, 60.0));
    h.run();
    h.drop_at(empty + vec2(80.0, 60.0));
    h.run();
    let moved = h.state().1.graph_view.pan - pan;
    assert!(
        (moved - vec2(80.0, 60.0)).length() < 12.0,
        "dragged by (80, 60): {moved:?}"
    );
}

#[test]
fn find_jumps_to_the_node_and_follow_keeps_the_running_path_in_the_middle() {
    let mut h = graph_open(vec2(1280.0, 720.0));
    // Zoomed in far: most of the tree is out of view.
    h.state_mut().1.graph_view.zoom = 2.5;
    h.state_mut().1.graph_view.pan = Vec2::ZERO;
    h.run();
    let canvas = h.state().1.graph_view.canvas();
    let look = node_rect(&h, "root/search/LookAround");
    assert!(
        !canvas.contains_rect(look),
        "out of view at first: {look:?}"
    );
    h.state_mut().1.find = "lookaround".into();
    h.run();
    let look = node_rect(&h, "root/search/LookAround");
    assert!(canvas.contains_rect(look), "in view after find: {look:?}");
    assert_eq!(
        h.query_all_by_label_contains("» LookAround").count(),
        1,
        "marked"
    );
    // Follow: the deepest running node (this grunt aims) in the middle.
    h.state_mut().1.find.clear();
    h.state_mut().1.graph_view.follow = true;
    h.run();
    let aim = node_rect(&h, "root/engage/combat/fight/Aim");
    assert!(
        (aim.center() - canvas.center()).length() < 2.0,
        "{aim:?} centred in {canvas:?}"
    );
}

#[test]
fn the_minimap_shows_the_whole_tree_and_a_click_in_it_looks_there() {
    let mut h = graph_open(vec2(1280.0, 720.0));
    h.state_mut().1.graph_view.zoom = 2.5;
    h.state_mut().1.graph_view.pan = Vec2::ZERO;
    h.run();
    let map = h.get_by_label("minimap of the tree").rect();
    let canvas = h.state().1.graph_view.canvas();
    assert!(canvas.contains_rect(map), "{map:?} in {canvas:?}");
    // Where idle's last action is in the minimap (it holds the whole tree,
    // the boxes' union, scaled into it): a click there centres the view
    // on it.
    let idle = node_rect(&h, "root/idle/Idle");
    assert!(!canvas.intersects(idle), "out of view at first: {idle:?}");
    let all = h
        .state()
        .1
        .graph_view
        .node_rects()
        .iter()
        .fold(egui::Rect::NOTHING, |u, (_, r)| u.union(*r));
    let inner = map.shrink(4.0);
    let at = inner.min + (idle.center() - all.min) * (inner.width() / all.width());
    h.hover_at(at);
    h.drag_at(at);
    h.drop_at(at);
    h.run();
    let idle = node_rect(&h, "root/idle/Idle");
    assert!(
        (idle.center() - canvas.center()).length() < 4.0,
        "idle in the middle: {idle:?} in {canvas:?}"
    );
}
