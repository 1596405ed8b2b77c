//! The tree as a graph on a canvas of its own: boxes and edges laid out
//! left to right (compact: one line per node) or top down, a camera that
//! pans (drag, mouse wheel) and zooms (Ctrl+wheel, pinch, the slider)
//! around the pointer, fit-to-view, a minimap when the tree is larger than
//! the view, "follow the running path", find by name. The wheel over the
//! canvas is the graph's: it never scrolls the panel around it.

use std::collections::HashSet;

use bevy_egui::egui::{self, Color32, Pos2, Rect, Sense, Stroke, Vec2};
use wyrd_bt::Status;

use crate::snapshot::{NodeRow, TreeSnapshot};
use crate::ui::{
    FOUND_MARK, InspectorAction, InspectorUiState, breakpoint_menu, crowd_hover, finds,
    status_color,
};

/// Zoom limits: below the lower one no text is drawn anyway.
const MIN_ZOOM: f32 = 0.1;
const MAX_ZOOM: f32 = 3.0;
/// Space kept around the tree when it is fitted.
const FIT_MARGIN: f32 = 12.0;
/// The minimap's largest side.
const MINIMAP: f32 = 180.0;

/// How the tree is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GraphOrientation {
    /// Depth grows to the right, siblings stack down: one line per node,
    /// so a tree of some sixty nodes fits a 1280×720 screen readably.
    #[default]
    LeftRight,
    /// Depth grows down, siblings side by side (two lines per box).
    TopDown,
}

impl GraphOrientation {
    /// A box's size and the gaps between boxes (along depth, along
    /// siblings), at zoom 1.
    fn metrics(self) -> (Vec2, f32, f32) {
        match self {
            GraphOrientation::LeftRight => (egui::vec2(176.0, 19.0), 34.0, 3.0),
            GraphOrientation::TopDown => (egui::vec2(128.0, 40.0), 30.0, 10.0),
        }
    }
}

/// The graph's camera and options (kept in [`InspectorUiState`]).
#[derive(Debug, Clone)]
pub struct GraphView {
    /// Zoom (1 = 100 %).
    pub zoom: f32,
    /// Where the tree's top-left corner is, from the canvas' top-left, in
    /// screen points.
    pub pan: Vec2,
    /// Layout direction.
    pub orientation: GraphOrientation,
    /// Keep the deepest running node in the middle of the view (a drag
    /// turns it off).
    pub follow: bool,
    /// Show the minimap when the tree is larger than the view.
    pub minimap: bool,
    /// Fit at the next frame (set when the graph opens, by the "fit"
    /// button and the F key over the canvas).
    fit_pending: bool,
    /// The first fit picks the orientation in which the tree is largest.
    orientation_chosen: bool,
    /// The canvas as last drawn.
    canvas: Rect,
    /// The boxes as last drawn: (index in the tree's nodes, screen rect).
    drawn: Vec<(usize, Rect)>,
}

impl Default for GraphView {
    fn default() -> Self {
        GraphView {
            zoom: 1.0,
            pan: Vec2::ZERO,
            orientation: GraphOrientation::default(),
            follow: false,
            minimap: true,
            fit_pending: true,
            orientation_chosen: false,
            canvas: Rect::NOTHING,
            drawn: Vec::new(),
        }
    }
}

impl GraphView {
    /// Fit the whole tree in the view at the next frame.
    pub fn fit(&mut self) {
        self.fit_pending = true;
    }

    /// The canvas as last drawn (screen points).
    pub fn canvas(&self) -> Rect {
        self.canvas
    }

    /// The boxes as last drawn: each node's index in
    /// [`TreeSnapshot::nodes`] and its rect on screen (nodes of collapsed
    /// subtrees are left out; boxes outside the canvas are not drawn but
    /// listed, so a caller can tell what is out of view).
    pub fn node_rects(&self) -> &[(usize, Rect)] {
        &self.drawn
    }

    /// A point of the tree (zoom 1) on screen.
    fn to_screen(&self, p: Pos2) -> Pos2 {
        self.canvas.min + self.pan + p.to_vec2() * self.zoom
    }

    /// Zoom by `factor` keeping the tree point under `at` (screen) still.
    fn zoom_around(&mut self, factor: f32, at: Pos2) {
        let new = (self.zoom * factor).clamp(MIN_ZOOM, MAX_ZOOM);
        let under = (at - self.canvas.min - self.pan) / self.zoom;
        self.pan = at - self.canvas.min - under * new;
        self.zoom = new;
    }

    /// Put a tree point (zoom 1) in the middle of the view.
    fn center_on(&mut self, p: Pos2) {
        self.pan = self.canvas.size() / 2.0 - p.to_vec2() * self.zoom;
    }
}

/// Where every visible node goes, at zoom 1.
struct Layout {
    /// Rows of the tree that are drawn (collapsed subtrees left out).
    rows: Vec<usize>,
    /// Each drawn row's parent, as an index into `rows`.
    parent: Vec<Option<usize>>,
    /// Whether a drawn row has drawn children.
    leaf: Vec<bool>,
    /// Each drawn row's box.
    boxes: Vec<Rect>,
    /// The whole tree's size.
    size: Vec2,
}

impl Layout {
    /// Leaves take the next slot along the siblings' axis; a parent sits
    /// in the middle of its children.
    fn new(
        tree: &TreeSnapshot,
        collapsed: &HashSet<String>,
        orientation: GraphOrientation,
    ) -> Self {
        let (rows, parent) = visible_rows(tree, collapsed);
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); rows.len()];
        for (v, p) in parent.iter().enumerate() {
            if let Some(p) = *p {
                children[p].push(v);
            }
        }
        let mut slot = vec![0.0f32; rows.len()];
        let mut next = 0.0f32;
        for (v, p) in parent.iter().enumerate() {
            if p.is_none() {
                place(v, &children, &mut slot, &mut next);
            }
        }
        let (size, along_depth, along_siblings) = orientation.metrics();
        let depth_max = rows.iter().map(|&i| tree.nodes[i].depth).max().unwrap_or(0);
        let boxes = rows
            .iter()
            .zip(&slot)
            .map(|(&i, &s)| {
                let d = tree.nodes[i].depth as f32;
                let min = match orientation {
                    GraphOrientation::LeftRight => {
                        egui::pos2(d * (size.x + along_depth), s * (size.y + along_siblings))
                    }
                    GraphOrientation::TopDown => {
                        egui::pos2(s * (size.x + along_siblings), d * (size.y + along_depth))
                    }
                };
                Rect::from_min_size(min, size)
            })
            .collect();
        let slots = next.max(1.0);
        let depths = (depth_max + 1) as f32;
        let extent = match orientation {
            GraphOrientation::LeftRight => egui::vec2(
                depths * (size.x + along_depth) - along_depth,
                slots * (size.y + along_siblings) - along_siblings,
            ),
            GraphOrientation::TopDown => egui::vec2(
                slots * (size.x + along_siblings) - along_siblings,
                depths * (size.y + along_depth) - along_depth,
            ),
        };
        Layout {
            rows,
            leaf: children.iter().map(Vec::is_empty).collect(),
            parent,
            boxes,
            size: extent,
        }
    }

    /// The zoom at which the whole tree fits `canvas`.
    fn fit_zoom(&self, canvas: Vec2) -> f32 {
        let room = (canvas - Vec2::splat(2.0 * FIT_MARGIN)).max(Vec2::splat(1.0));
        (room.x / self.size.x)
            .min(room.y / self.size.y)
            .clamp(MIN_ZOOM, 1.5)
    }
}

/// The rows drawn (collapsed subtrees left out) and each one's parent.
fn visible_rows(
    tree: &TreeSnapshot,
    collapsed: &HashSet<String>,
) -> (Vec<usize>, Vec<Option<usize>>) {
    let mut rows = Vec::new();
    let mut parent = Vec::new();
    let mut stack: Vec<(usize, usize)> = Vec::new(); // (depth, drawn index)
    let mut hidden_below: Option<usize> = None;
    for (i, row) in tree.nodes.iter().enumerate() {
        if let Some(d) = hidden_below {
            if row.depth > d {
                continue;
            }
            hidden_below = None;
        }
        while stack.last().is_some_and(|&(d, _)| d >= row.depth) {
            stack.pop();
        }
        parent.push(stack.last().map(|&(_, v)| v));
        stack.push((row.depth, rows.len()));
        rows.push(i);
        if collapsed.contains(&row.path) {
            hidden_below = Some(row.depth);
        }
    }
    (rows, parent)
}

/// A leaf takes the next slot; a parent the middle of its children's.
fn place(v: usize, children: &[Vec<usize>], slot: &mut [f32], next: &mut f32) {
    if children[v].is_empty() {
        slot[v] = *next;
        *next += 1.0;
        return;
    }
    for &c in &children[v] {
        place(c, children, slot, next);
    }
    let first = slot[children[v][0]];
    let last = slot[children[v][children[v].len() - 1]];
    slot[v] = (first + last) / 2.0;
}

/// Draws the graph toolbar, the canvas filling the rest of `ui` and the
/// picked node's details; returns what the user asked for.
pub fn draw_graph(
    ui: &mut egui::Ui,
    tree: &TreeSnapshot,
    state: &mut InspectorUiState,
) -> Vec<InspectorAction> {
    toolbar(ui, state);
    let details = state
        .picked
        .as_ref()
        .and_then(|p| tree.nodes.iter().find(|r| &r.path == p))
        .cloned();
    let reserve = if details.is_some() { 74.0 } else { 0.0 };
    let mut canvas = ui.available_rect_before_wrap();
    canvas.max.y = (canvas.max.y - reserve).max(canvas.min.y + 60.0);
    canvas.max.x = canvas.max.x.max(canvas.min.x + 60.0);
    draw_canvas(ui, tree, state, canvas);
    ui.advance_cursor_after_rect(canvas);
    if let Some(row) = details {
        node_details(ui, tree, &row, state);
    }
    std::mem::take(&mut state.pending)
}

/// Fit, layout, follow, minimap, zoom, find.
fn toolbar(ui: &mut egui::Ui, state: &mut InspectorUiState) {
    let view = &mut state.graph_view;
    ui.horizontal(|ui| {
        if ui
            .button("fit")
            .on_hover_text("the whole tree in view (F over the graph)")
            .clicked()
        {
            view.fit();
        }
        let lr = view.orientation == GraphOrientation::LeftRight;
        if ui.selectable_label(lr, "left-right").clicked() && !lr {
            view.orientation = GraphOrientation::LeftRight;
            view.fit();
        }
        if ui.selectable_label(!lr, "top-down").clicked() && lr {
            view.orientation = GraphOrientation::TopDown;
            view.fit();
        }
        ui.checkbox(&mut view.follow, "follow")
            .on_hover_text("keep the running path in view");
        ui.checkbox(&mut view.minimap, "minimap");
        let mut percent = view.zoom * 100.0;
        let slider = egui::Slider::new(&mut percent, MIN_ZOOM * 100.0..=MAX_ZOOM * 100.0)
            .suffix(" %")
            .text("zoom");
        if ui.add(slider).changed() {
            let at = view.canvas.center();
            view.zoom_around(percent / 100.0 / view.zoom, at);
        }
        ui.label("find");
        ui.add(egui::TextEdit::singleline(&mut state.find).desired_width(110.0));
    });
}

/// The orientation in which the whole tree fits `canvas` at the larger
/// zoom (a wide, shallow tree reads better left to right, and most do).
fn best_orientation(
    tree: &TreeSnapshot,
    collapsed: &HashSet<String>,
    canvas: Vec2,
) -> GraphOrientation {
    let fit = |o| Layout::new(tree, collapsed, o).fit_zoom(canvas);
    if fit(GraphOrientation::TopDown) > fit(GraphOrientation::LeftRight) {
        GraphOrientation::TopDown
    } else {
        GraphOrientation::LeftRight
    }
}

/// The canvas: camera input first (the boxes are on top of it for
/// clicks), then edges, boxes with their badges, and the minimap.
fn draw_canvas(ui: &mut egui::Ui, tree: &TreeSnapshot, state: &mut InspectorUiState, canvas: Rect) {
    state.graph_view.canvas = canvas;
    if !state.graph_view.orientation_chosen {
        state.graph_view.orientation_chosen = true;
        state.graph_view.orientation = best_orientation(tree, &state.collapsed, canvas.size());
    }
    let layout = Layout::new(tree, &state.collapsed, state.graph_view.orientation);
    let background = ui.interact(
        canvas,
        ui.id().with("wyrd_graph_canvas"),
        Sense::click_and_drag(),
    );
    camera_input(ui, &background, &mut state.graph_view);
    aim_camera(tree, &layout, state);
    let painter = ui.painter_at(canvas);
    painter.rect_filled(canvas, 4.0, Color32::from_gray(24));
    draw_edges(&painter, tree, &layout, &state.graph_view);
    state.graph_view.drawn.clear();
    for v in 0..layout.rows.len() {
        draw_node(ui, &painter, tree, &layout, v, state);
    }
    if state.graph_view.minimap {
        minimap(ui, tree, &layout, &mut state.graph_view);
    }
}

/// Drag pans; the wheel pans, Ctrl+wheel and pinch zoom around the
/// pointer; F fits. The wheel's delta is used up here, so no scroll area
/// around the graph moves.
fn camera_input(ui: &egui::Ui, background: &egui::Response, view: &mut GraphView) {
    if background.dragged() {
        view.pan += background.drag_delta();
        view.follow = false;
    }
    if !ui.rect_contains_pointer(view.canvas) {
        return;
    }
    let (zoom, scroll, pointer, fit_key) = ui.input(|i| {
        (
            i.zoom_delta(),
            i.smooth_scroll_delta,
            i.pointer.hover_pos(),
            i.key_pressed(egui::Key::F),
        )
    });
    if zoom != 1.0 {
        view.zoom_around(zoom, pointer.unwrap_or(view.canvas.center()));
    } else if scroll != Vec2::ZERO {
        view.pan += scroll;
        view.follow = false;
    }
    ui.ctx().input_mut(|i| i.smooth_scroll_delta = Vec2::ZERO);
    if fit_key && !ui.ctx().egui_wants_keyboard_input() {
        view.fit();
    }
}

/// Fit when asked, jump to a found node once per find text, follow the
/// running path.
fn aim_camera(tree: &TreeSnapshot, layout: &Layout, state: &mut InspectorUiState) {
    let view = &mut state.graph_view;
    if view.fit_pending {
        view.fit_pending = false;
        view.zoom = layout.fit_zoom(view.canvas.size());
        view.pan = (view.canvas.size() - layout.size * view.zoom) / 2.0;
    }
    if state.graph_found_for != state.find {
        let found =
            (0..layout.rows.len()).find(|&v| finds(&state.find, &tree.nodes[layout.rows[v]].name));
        if let Some(v) = found {
            view.zoom = view.zoom.max(0.8);
            view.center_on(layout.boxes[v].center());
            view.follow = false;
            state.graph_found_for = state.find.clone();
        }
    }
    if view.follow {
        let deepest = (0..layout.rows.len())
            .rev()
            .find(|&v| layout.leaf[v] && tree.nodes[layout.rows[v]].running);
        if let Some(v) = deepest {
            view.center_on(layout.boxes[v].center());
        }
    }
}

/// A box of the tree (zoom 1) on screen.
fn screen_rect(view: &GraphView, r: Rect) -> Rect {
    Rect::from_min_max(view.to_screen(r.min), view.to_screen(r.max))
}

/// Parent-child edges as elbows; the running path bold.
fn draw_edges(painter: &egui::Painter, tree: &TreeSnapshot, layout: &Layout, view: &GraphView) {
    for v in 0..layout.rows.len() {
        let Some(p) = layout.parent[v] else { continue };
        let (a, b) = (
            screen_rect(view, layout.boxes[p]),
            screen_rect(view, layout.boxes[v]),
        );
        let points = match view.orientation {
            GraphOrientation::LeftRight => {
                let mid = (a.right() + b.left()) / 2.0;
                vec![
                    a.right_center(),
                    egui::pos2(mid, a.center().y),
                    egui::pos2(mid, b.center().y),
                    b.left_center(),
                ]
            }
            GraphOrientation::TopDown => {
                let mid = (a.bottom() + b.top()) / 2.0;
                vec![
                    a.center_bottom(),
                    egui::pos2(a.center().x, mid),
                    egui::pos2(b.center().x, mid),
                    b.center_top(),
                ]
            }
        };
        if !Rect::from_points(&points).intersects(view.canvas) {
            continue;
        }
        let stroke = if tree.nodes[layout.rows[v]].running {
            Stroke::new((3.0 * view.zoom).max(1.5), status_color(Status::Running))
        } else {
            Stroke::new(1.0, Color32::from_gray(110))
        };
        painter.add(egui::Shape::line(points, stroke));
    }
}

/// One box: status colour, the running path and found nodes bordered, its
/// name (and in top-down boxes its kind and flags); a click picks it, a
/// right-click offers breakpoints; its crowd badge, breakpoint mark and
/// collapse button.
fn draw_node(
    ui: &mut egui::Ui,
    painter: &egui::Painter,
    tree: &TreeSnapshot,
    layout: &Layout,
    v: usize,
    state: &mut InspectorUiState,
) {
    let i = layout.rows[v];
    let row = &tree.nodes[i];
    let (zoom, canvas, orientation) = (
        state.graph_view.zoom,
        state.graph_view.canvas,
        state.graph_view.orientation,
    );
    let rect = screen_rect(&state.graph_view, layout.boxes[v]);
    state.graph_view.drawn.push((i, rect));
    if !rect.intersects(canvas) {
        return;
    }
    let found = finds(&state.find, &row.name);
    let mut color = status_color(row.status);
    if row.masked {
        color = color.gamma_multiply(0.35);
    }
    let fill = if row.running {
        Color32::from_rgb(26, 50, 64)
    } else {
        Color32::from_gray(40)
    };
    let stroke = if found {
        Stroke::new(3.0, FOUND_MARK)
    } else if row.running {
        Stroke::new(2.5, status_color(Status::Running))
    } else {
        Stroke::new(1.0, color.gamma_multiply(0.6))
    };
    painter.rect(rect, 3.0 * zoom, fill, stroke, egui::StrokeKind::Inside);
    let mark = match (found, row.running) {
        (true, _) => "» ",
        (false, true) => "> ",
        (false, false) => "",
    };
    let crowd = (tree.crowd_agents > 1 && row.crowd > 0).then_some(row.crowd);
    node_text(
        painter,
        rect,
        row,
        mark,
        color,
        zoom,
        orientation,
        crowd.is_some(),
    );
    // What a screen reader (and a test) reads: name, kind, flags.
    let label = format!("{mark}{}\n{} [{}]", row.name, row.kind, row.flags);
    let response = ui.interact(
        rect.intersect(canvas),
        ui.id().with(("wyrd_graph_node", i)),
        Sense::click(),
    );
    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &label));
    let response = response.on_hover_text(format!(
        "{}\n{} [{}]  {}  {}",
        row.path,
        row.kind,
        row.flags,
        row.status.as_str(),
        row.note
    ));
    response.context_menu(|ui| breakpoint_menu(ui, tree, row, state));
    if response.clicked() {
        state.picked = Some(row.path.clone());
    }
    if !row.breaks.is_empty() {
        painter.circle_filled(
            rect.left_top(),
            (4.0 * zoom).max(3.0),
            Color32::from_rgb(240, 90, 80),
        );
    }
    if zoom < 0.35 {
        return; // too small to click
    }
    if let Some(n) = crowd {
        // Left to right: inside the box's right end; top down: on its
        // top right corner.
        let at = match orientation {
            GraphOrientation::LeftRight => egui::Rect::from_min_size(
                rect.right_top() + egui::vec2(-26.0, 2.0),
                egui::vec2(24.0, (rect.height() - 4.0).clamp(10.0, 16.0)),
            ),
            GraphOrientation::TopDown => egui::Rect::from_center_size(
                rect.right_top() + egui::vec2(-12.0, 0.0),
                egui::vec2(24.0, 14.0),
            ),
        };
        if canvas.contains_rect(at) {
            let badge = ui
                .put(at, crate::ui::crowd_button(n, tree.crowd_agents))
                .on_hover_text(crowd_hover(n, tree.crowd_agents, &row.name));
            if badge.clicked() {
                state.agent_filter = format!("running:{}", row.name);
            }
        }
    }
    if row.has_children {
        collapse_button(ui, rect, row, orientation, zoom, state);
    }
}

/// The text of a box: left to right, one line (name, flags at the right);
/// top down, the name over its kind and flags.
#[allow(clippy::too_many_arguments, reason = "the parts of one box")]
fn node_text(
    painter: &egui::Painter,
    rect: Rect,
    row: &NodeRow,
    mark: &str,
    color: Color32,
    zoom: f32,
    orientation: GraphOrientation,
    badge: bool,
) {
    let size = 13.0 * zoom;
    if size < 5.0 {
        return; // unreadable: boxes only
    }
    let clip = painter.with_clip_rect(rect.intersect(painter.clip_rect()));
    let name = egui::FontId::proportional(size);
    let small = egui::FontId::proportional(11.0 * zoom);
    let weak = Color32::from_gray(150);
    match orientation {
        GraphOrientation::LeftRight => {
            let pad = 6.0 * zoom + if row.breaks.is_empty() { 0.0 } else { 4.0 };
            clip.text(
                rect.left_center() + egui::vec2(pad, 0.0),
                egui::Align2::LEFT_CENTER,
                format!("{mark}{}", row.name),
                name,
                color,
            );
            let right = if badge { 30.0 } else { 5.0 * zoom };
            clip.text(
                rect.right_center() - egui::vec2(right, 0.0),
                egui::Align2::RIGHT_CENTER,
                &row.flags,
                small,
                weak,
            );
        }
        GraphOrientation::TopDown => {
            clip.text(
                rect.center_top() + egui::vec2(0.0, 4.0 * zoom),
                egui::Align2::CENTER_TOP,
                format!("{mark}{}", row.name),
                name,
                color,
            );
            clip.text(
                rect.center_bottom() - egui::vec2(0.0, 4.0 * zoom),
                egui::Align2::CENTER_BOTTOM,
                format!("{} [{}]", row.kind, row.flags),
                small,
                weak,
            );
        }
    }
}

/// The small "-" / "+" beside a parent that collapses or opens its
/// subtree.
fn collapse_button(
    ui: &mut egui::Ui,
    rect: Rect,
    row: &NodeRow,
    orientation: GraphOrientation,
    zoom: f32,
    state: &mut InspectorUiState,
) {
    let center = match orientation {
        GraphOrientation::LeftRight => rect.right_center() + egui::vec2(9.0 * zoom + 2.0, 0.0),
        GraphOrientation::TopDown => rect.center_bottom() + egui::vec2(0.0, 8.0 * zoom),
    };
    let at = Rect::from_center_size(center, egui::vec2(14.0, 14.0));
    if !state.graph_view.canvas.contains_rect(at) {
        return;
    }
    let collapsed = state.collapsed.contains(&row.path);
    let button = egui::Button::new(if collapsed { "+" } else { "-" }).small();
    if ui.put(at, button).clicked() {
        if collapsed {
            state.collapsed.remove(&row.path);
        } else {
            state.collapsed.insert(row.path.clone());
        }
    }
}

/// The whole tree small in the canvas' corner with the view's outline,
/// when the tree is larger than the view; click or drag in it to look
/// there.
fn minimap(ui: &mut egui::Ui, tree: &TreeSnapshot, layout: &Layout, view: &mut GraphView) {
    let canvas = view.canvas;
    let shown = Rect::from_min_size(view.to_screen(Pos2::ZERO), layout.size * view.zoom);
    if canvas.expand(1.0).contains_rect(shown) {
        return; // all of it in view
    }
    let scale = (MINIMAP / layout.size.x).min(MINIMAP / layout.size.y);
    let inner = Rect::from_min_size(
        canvas.right_bottom() - layout.size * scale - Vec2::splat(10.0),
        layout.size * scale,
    );
    let map = inner.expand(4.0);
    if !canvas.contains_rect(map) {
        return; // the canvas is too small for it
    }
    let response = ui.interact(
        map,
        ui.id().with("wyrd_graph_minimap"),
        Sense::click_and_drag(),
    );
    response.widget_info(|| {
        egui::WidgetInfo::labeled(egui::WidgetType::Other, true, "minimap of the tree")
    });
    if (response.clicked() || response.dragged())
        && let Some(p) = response.interact_pointer_pos()
    {
        view.center_on(((p - inner.min) / scale).to_pos2());
        view.follow = false;
    }
    let painter = ui.painter_at(map);
    painter.rect_filled(map, 3.0, Color32::from_black_alpha(210));
    for (v, b) in layout.boxes.iter().enumerate() {
        let r = Rect::from_min_max(
            inner.min + b.min.to_vec2() * scale,
            inner.min + b.max.to_vec2() * scale,
        );
        let status = tree.nodes[layout.rows[v]].status;
        painter.rect_filled(r, 0.0, status_color(status).gamma_multiply(0.8));
    }
    let seen = Rect::from_min_size(
        inner.min + (-view.pan / view.zoom) * scale,
        canvas.size() / view.zoom * scale,
    );
    painter.rect_stroke(
        seen,
        0.0,
        Stroke::new(1.5, Color32::WHITE),
        egui::StrokeKind::Outside,
    );
}

/// Under the canvas: the picked node's path, kind, status, parameters and
/// guard.
fn node_details(
    ui: &mut egui::Ui,
    tree: &TreeSnapshot,
    row: &NodeRow,
    state: &mut InspectorUiState,
) {
    ui.separator();
    ui.label(format!("{}  ({})", row.path, row.kind));
    ui.label(format!(
        "{}  [{}]  {}",
        row.status.as_str(),
        row.flags,
        row.note
    ));
    if !row.params.is_empty() {
        ui.label(format!("params: {}", row.params));
    }
    if !row.guard.is_empty() {
        ui.label(format!("guard: {}", row.guard));
    }
    if row.masked {
        ui.weak("masked by the agent's tags");
    }
    if tree.timeline.is_some() && ui.button("previous change of this node").clicked() {
        state
            .pending
            .push(InspectorAction::PreviousChange(row.path.clone()));
    }
}

/// The graph window of the selected agent's tree, while
/// [`InspectorUiState::graph`] is set: large (the screen less a margin),
/// resizable, closed with its ×. Returns what the user asked for in it.
pub fn draw_graph_window(
    ctx: &egui::Context,
    snap: &crate::InspectorSnapshot,
    state: &mut InspectorUiState,
) -> Vec<InspectorAction> {
    let Some(tree) = snap.tree.as_ref().filter(|_| state.graph) else {
        return Vec::new();
    };
    let mut open = true;
    let mut actions = Vec::new();
    let title = match tree.timeline.as_ref().and_then(|t| t.shown) {
        Some(t) => format!("Graph of {} at tick {t}", tree.label),
        None => format!("Graph of {}", tree.label),
    };
    egui::Window::new(title)
        .id(egui::Id::new("wyrd_graph_window"))
        .open(&mut open)
        .default_rect(ctx.content_rect().shrink(16.0))
        .min_size(egui::vec2(320.0, 240.0))
        .resizable(true)
        .collapsible(false)
        .scroll(false)
        .show(ctx, |ui| actions = draw_graph(ui, tree, state));
    if !open {
        state.graph = false;
    }
    actions
}
