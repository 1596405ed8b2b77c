//! The panels, drawn from an [`InspectorSnapshot`] into any `egui::Ui`
//! (testable without a GPU).

use std::collections::HashSet;

use bevy_egui::egui::{self, Color32, RichText};
use wyrd_bt::Status;

use crate::snapshot::InspectorSnapshot;

/// What the user did in the panels; applied to the world by the plugin (or
/// by tests) through the same API game code uses.
#[derive(Debug, Clone, PartialEq)]
pub enum InspectorAction {
    /// Select the agent at this index.
    SelectAgent(usize),
    /// Set a flag.
    SetFlag(String, bool),
    /// Set a counter.
    SetCounter(String, i64),
    /// Save now.
    SaveNow,
    /// Reload the save from disk.
    ReloadSave,
    /// Start (`true`) or stop the selected agent's flight recorder.
    Record(bool),
    /// Show the selected agent's tree as it was at this recorded tick
    /// (`None`: live).
    ShowTick(Option<u64>),
    /// Write the selected agent's recording to a file.
    SaveRecording,
    /// Pause (`true`) or resume every tree's tick.
    Pause(bool),
    /// While paused: run one tree tick.
    Step,
    /// Show the last recorded tick before the one shown where this node
    /// (a path) changed.
    PreviousChange(String),
    /// Set, or clear when it is set, a breakpoint on a node (a path) of
    /// the selected agent's tree, for every agent of the tree.
    ToggleBreakpoint(String, wyrd_bt::BreakOn),
    /// Write the selected agent's tree's breakpoints to the file beside
    /// the tree (`NAME.breakpoints.ron`), to keep and commit.
    SaveBreakpoints,
}

/// UI-only state: filters and collapsed subtrees.
#[derive(Debug, Clone, Default)]
pub struct InspectorUiState {
    /// Agent filter.
    pub agent_filter: String,
    /// World-state filter.
    pub world_filter: String,
    /// Collapsed node paths.
    pub collapsed: HashSet<String>,
    /// The graph window is open (the tree list stays in the panel).
    pub graph: bool,
    /// The graph's camera and options.
    pub graph_view: crate::graph::GraphView,
    /// The node clicked in the graph (its path).
    pub picked: Option<String>,
    /// The agent list's column is folded away.
    pub hide_agents: bool,
    /// The selected row the list last showed (it scrolls to a new one).
    listed_selected: Option<usize>,
    /// Actions asked for inside the tree view, handed out with the others.
    pub pending: Vec<InspectorAction>,
    /// Find a node by name: matching nodes are marked `»`, and the view
    /// jumps to the first when the text changes.
    pub find: String,
    /// The find text the list last jumped for.
    pub found_for: String,
    /// The find text the graph last jumped for.
    pub(crate) graph_found_for: String,
}

/// The colour of a status.
pub fn status_color(status: Status) -> Color32 {
    match status {
        Status::Running => Color32::from_rgb(90, 200, 250),
        Status::Success => Color32::from_rgb(110, 210, 110),
        Status::Failure => Color32::from_rgb(235, 100, 90),
        Status::Skipped => Color32::from_rgb(170, 150, 220),
        Status::Idle => Color32::GRAY,
    }
}

/// The agent column's width at first (it can be dragged wider).
const AGENT_COLUMN_WIDTH: f32 = 230.0;

/// Agents listed at most (the filter narrows the list).
pub const MAX_AGENT_ROWS: usize = 40;

/// Draws every panel: the agent list as a column on the left (folded
/// away with «), the selected agent's tree and the rest beside it, in a
/// scroll area of their own. Returns what the user asked for. The graph
/// has a window of its own: [`draw_graph_window`](crate::draw_graph_window).
pub fn draw_inspector(
    ui: &mut egui::Ui,
    snap: &InspectorSnapshot,
    state: &mut InspectorUiState,
) -> Vec<InspectorAction> {
    let mut actions = Vec::new();
    if !state.hide_agents {
        egui::Panel::left("wyrd_agent_column")
            .resizable(true)
            .default_size(AGENT_COLUMN_WIDTH)
            .size_range(120.0..=480.0)
            .show(ui, |ui| draw_agents(ui, snap, state, &mut actions));
    }
    egui::CentralPanel::default().show(ui, |ui| {
        egui::ScrollArea::vertical()
            .id_salt("wyrd_inspector_body")
            .show(ui, |ui| draw_body(ui, snap, state, &mut actions));
    });
    actions.append(&mut state.pending);
    actions
}

/// The agent column: a filter (text, or `running:NAME`) and the agents,
/// one line each, scrolling in the column's full height.
fn draw_agents(
    ui: &mut egui::Ui,
    snap: &InspectorSnapshot,
    state: &mut InspectorUiState,
    actions: &mut Vec<InspectorAction>,
) {
    ui.horizontal(|ui| {
        ui.strong(format!("Agents ({})", snap.agents.len()));
        if ui
            .small_button("«")
            .on_hover_text("fold the list away")
            .clicked()
        {
            state.hide_agents = true;
        }
    });
    ui.add(
        egui::TextEdit::singleline(&mut state.agent_filter)
            .hint_text("filter, or running:NAME")
            .desired_width(f32::INFINITY),
    );
    // One line per agent however narrow the column (the whole text is
    // still what a screen reader reads).
    ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
    egui::ScrollArea::vertical()
        .id_salt("wyrd_agents")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            // Thousands of agents: list the first matches (and the
            // selected one); the filter finds the rest.
            let mut shown = 0;
            let mut hidden = 0;
            for (i, a) in snap.agents.iter().enumerate() {
                // What it does before the tree's file: a narrow column
                // cuts the end.
                let text = if a.doing.is_empty() {
                    format!("{}  {}  {}", a.label, a.status.as_str(), a.tree)
                } else {
                    format!(
                        "{}  {}: {}  {}",
                        a.label,
                        a.status.as_str(),
                        a.doing,
                        a.tree
                    )
                };
                if !agent_matches(a, &text, &state.agent_filter) {
                    continue;
                }
                let selected = snap.selected == Some(i);
                if shown >= MAX_AGENT_ROWS && !selected {
                    hidden += 1;
                    continue;
                }
                shown += 1;
                let row = ui.selectable_label(selected, text);
                if row.clicked() {
                    actions.push(InspectorAction::SelectAgent(i));
                }
                if selected && state.listed_selected != snap.selected {
                    // Chosen elsewhere (a breakpoint hit, a click in the
                    // game): bring its row into view once.
                    row.scroll_to_me(None);
                }
            }
            if hidden > 0 {
                ui.weak(format!("... {hidden} more (narrow the filter)"));
            }
            state.listed_selected = snap.selected;
            if snap.agents.is_empty() {
                ui.weak("no agents run a tree");
            }
        });
}

/// Beside the agents: the selected tree, its timeline, history and
/// blackboard; the world state, the save, reloads and timing.
fn draw_body(
    ui: &mut egui::Ui,
    snap: &InspectorSnapshot,
    state: &mut InspectorUiState,
    actions: &mut Vec<InspectorAction>,
) {
    if state.hide_agents && ui.small_button("agents »").clicked() {
        state.hide_agents = false;
    }
    // The last hot reload where it is seen (it was only in a folded
    // section at the bottom; the rest stay there).
    if let Some(last) = snap.reloads.last() {
        ui.colored_label(
            Color32::from_rgb(250, 200, 90),
            format!("last tree reload: {last}"),
        );
    }
    draw_selected(ui, snap, state, actions);
    draw_world(ui, snap, state, actions);
    draw_save_and_timing(ui, snap, actions);
    draw_legend(ui);
}

/// What the colours, letters and marks of the tree mean (a designer found
/// them nowhere in the panel).
fn draw_legend(ui: &mut egui::Ui) {
    egui::CollapsingHeader::new("Legend")
        .default_open(false)
        .show(ui, |ui| {
            ui.horizontal_wrapped(|ui| {
                for status in [
                    Status::Running,
                    Status::Success,
                    Status::Failure,
                    Status::Skipped,
                    Status::Idle,
                ] {
                    ui.colored_label(status_color(status), status.as_str());
                }
            });
            for line in [
                "[PCWD] rule flags: P paused (its parent does not run it), C complete, W was complete (latched until it starts afresh), D does complete (it can ever complete)",
                "a number on a badge: how many agents of the tree have the node running now, greener for few, redder for most (click: list them)",
                "break: a breakpoint on the node (right-click a node to set or clear one)",
                "greyed, (masked by tags): the agent's tags leave the node out; it is skipped",
                "»: matches the find text",
            ] {
                ui.label(line);
            }
        });
}

/// The selected agent: pause and step, the timeline, its tree (a list; the
/// graph opens in its window), statistics, history, blackboard and tags.
fn draw_selected(
    ui: &mut egui::Ui,
    snap: &InspectorSnapshot,
    state: &mut InspectorUiState,
    actions: &mut Vec<InspectorAction>,
) {
    if let Some(tree) = &snap.tree {
        if let Some(stop) = &snap.stopped_at {
            ui.colored_label(Color32::from_rgb(240, 90, 80), stop);
        }
        ui.horizontal(|ui| {
            if snap.paused {
                ui.colored_label(Color32::from_rgb(250, 200, 90), "trees paused");
                if ui.button("resume").clicked() {
                    actions.push(InspectorAction::Pause(false));
                }
                if ui.button("step").on_hover_text("one tree tick").clicked() {
                    actions.push(InspectorAction::Step);
                }
            } else if ui.button("pause trees").clicked() {
                actions.push(InspectorAction::Pause(true));
            }
        });
        if let Some(tl) = &tree.timeline {
            draw_timeline(ui, tl, actions);
            for w in &tree.why {
                ui.label(format!("why: {w}"));
            }
        } else if tree.recordable {
            ui.horizontal(|ui| {
                ui.weak("not recording");
                if ui.button("record").clicked() {
                    actions.push(InspectorAction::Record(true));
                }
            });
        }
        let title = match tree.timeline.as_ref().and_then(|t| t.shown) {
            Some(t) => format!("Tree of {} at tick {t}", tree.label),
            None => format!("Tree of {}", tree.label),
        };
        egui::CollapsingHeader::new(title)
            .id_salt("tree")
            .default_open(true)
            .show(ui, |ui| {
                ui.horizontal(|ui| {
                    // The graph opens in a window of its own, fitted.
                    if ui
                        .selectable_label(state.graph, "graph")
                        .on_hover_text("open the tree as a graph in its own window")
                        .clicked()
                    {
                        state.graph = !state.graph;
                        state.graph_view.fit();
                    }
                    ui.label("find");
                    ui.add(egui::TextEdit::singleline(&mut state.find).desired_width(110.0));
                });
                if tree.breakpoints > 0 {
                    ui.horizontal(|ui| {
                        ui.label(format!("breakpoints: {}", tree.breakpoints));
                        if ui
                            .button("save to file")
                            .on_hover_text("write them to the breakpoints file beside the tree")
                            .clicked()
                        {
                            actions.push(InspectorAction::SaveBreakpoints);
                        }
                    });
                }
                draw_tree(ui, tree, state);
            });
        if !tree.stats.is_empty() {
            egui::CollapsingHeader::new("Statistics (recorded ticks)")
                .default_open(false)
                .show(ui, |ui| draw_stats(ui, &tree.stats));
        }
        egui::CollapsingHeader::new("History")
            .default_open(true)
            .show(ui, |ui| {
                // An empty history says why (a designer waited for the
                // evaluation's and saw nothing).
                if snap.history.is_empty() {
                    ui.label(if tree.recordable {
                        "nothing yet: the agent's node changes are listed from when it was selected, while this panel is open"
                    } else {
                        "none: the World State Evaluation runs at once when asked, its last run is the tree above"
                    });
                }
                for h in snap.history.iter().rev().take(40) {
                    ui.label(h.line());
                }
            });
        egui::CollapsingHeader::new("Blackboard and tags")
            .default_open(true)
            .show(ui, |ui| {
                for (k, v) in &tree.blackboard {
                    if tree.changed_keys.contains(k) {
                        // Written in the tick shown.
                        ui.colored_label(
                            Color32::from_rgb(250, 200, 90),
                            format!("{k} = {v}  (changed)"),
                        );
                    } else {
                        ui.label(format!("{k} = {v}"));
                    }
                }
                let tags: Vec<String> = tree
                    .tags
                    .iter()
                    .map(|(t, on)| format!("{}{t}", if *on { "+" } else { "-" }))
                    .collect();
                ui.label(format!("tags: {}", tags.join(" ")));
                for (name, behavior, fired) in &tree.impulses {
                    ui.label(format!("impulse {name} -> {behavior}: fired {fired}x"));
                }
            });
    }
}

/// The world state's flags and counters (editable).
fn draw_world(
    ui: &mut egui::Ui,
    snap: &InspectorSnapshot,
    state: &mut InspectorUiState,
    actions: &mut Vec<InspectorAction>,
) {
    egui::CollapsingHeader::new("World state")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.label("filter");
                ui.text_edit_singleline(&mut state.world_filter);
            });
            egui::Grid::new("world_state").striped(true).show(ui, |ui| {
                ui.strong("name");
                ui.strong("value");
                ui.strong("default");
                ui.strong("scope")
                    .on_hover_text("Meta: saved; Run: reset when the game starts a run, never saved");
                ui.strong("version").on_hover_text(
                    "the entry's version in its flags file: a saved value of an older version is reset to the default",
                );
                ui.end_row();
                for row in &snap.world {
                    if !state.world_filter.is_empty()
                        && !row
                            .name
                            .to_lowercase()
                            .contains(&state.world_filter.to_lowercase())
                    {
                        continue;
                    }
                    match row.flag {
                        Some(mut v) => {
                            if ui.checkbox(&mut v, row.name.as_str()).changed() {
                                actions.push(InspectorAction::SetFlag(row.name.clone(), v));
                            }
                            ui.label(v.to_string());
                        }
                        None => {
                            ui.label(row.name.as_str());
                            let mut v = row.value;
                            let field = ui.add(egui::DragValue::new(&mut v)).on_hover_text(
                                "drag, or click and type a whole number (anything else is not taken)",
                            );
                            if field.changed() {
                                actions.push(InspectorAction::SetCounter(row.name.clone(), v));
                            }
                        }
                    }
                    ui.label(row.default.as_str());
                    ui.label(row.scope.as_str());
                    ui.label(row.version.to_string());
                    ui.end_row();
                }
            });
        });
}

/// The save's status and buttons, tree reloads, tick timing.
fn draw_save_and_timing(
    ui: &mut egui::Ui,
    snap: &InspectorSnapshot,
    actions: &mut Vec<InspectorAction>,
) {
    if let Some(save) = &snap.save {
        egui::CollapsingHeader::new("Save")
            .default_open(true)
            .show(ui, |ui| {
                let status = format!("status: {}", save.status);
                if save.failing {
                    ui.colored_label(Color32::from_rgb(235, 100, 90), status);
                } else {
                    ui.label(status);
                }
                ui.label(format!("folder: {}", save.path));
                ui.label(format!("documents: {}", save.documents));
                ui.label(format!("last load: {}", save.last_load));
                ui.label(format!(
                    "last saved: {}",
                    saved_at(save.last_saved, now_unix())
                ));
                if let Some(e) = &save.error {
                    ui.colored_label(Color32::from_rgb(235, 100, 90), format!("error: {e}"));
                }
                ui.horizontal(|ui| {
                    if ui.button("Save now").clicked() {
                        actions.push(InspectorAction::SaveNow);
                    }
                    if ui.button("Reload from disk").clicked() {
                        actions.push(InspectorAction::ReloadSave);
                    }
                });
            });
    }
    if !snap.reloads.is_empty() {
        egui::CollapsingHeader::new("Tree reloads")
            .default_open(false)
            .show(ui, |ui| {
                for r in snap.reloads.iter().rev() {
                    ui.label(r);
                }
            });
    }
    egui::CollapsingHeader::new("Timing")
        .default_open(true)
        .show(ui, |ui| {
            ui.label(format!(
                "trees ticked per second: {:.0}",
                snap.timing.ticks_per_second
            ));
            ui.label(format!(
                "decide {:.3} ms, act {:.3} ms",
                snap.timing.decide_ms, snap.timing.act_ms
            ));
        });
}

/// The flight recorder's timeline: a scrubber over the recorded ticks, one
/// tick back / forward, back to live, stop.
fn draw_timeline(ui: &mut egui::Ui, tl: &crate::TimelineRow, actions: &mut Vec<InspectorAction>) {
    // The stepping buttons first, always all there: a "live" button that
    // appeared, and a label whose width followed the tick numbers, moved
    // them under the pointer (repeated clicks on "<" landed on "save").
    ui.horizontal(|ui| {
        let mut t = tl.shown.unwrap_or(tl.last);
        if ui.button("<").on_hover_text("one tick back").clicked() {
            actions.push(InspectorAction::ShowTick(Some(
                t.saturating_sub(1).max(tl.first),
            )));
        }
        if ui.button(">").on_hover_text("one tick forward").clicked() {
            actions.push(InspectorAction::ShowTick(Some((t + 1).min(tl.last))));
        }
        if ui
            .add_enabled(tl.shown.is_some(), egui::Button::new("live"))
            .on_hover_text("back to the live tree")
            .clicked()
        {
            actions.push(InspectorAction::ShowTick(None));
        }
        let slider = ui.add(egui::Slider::new(&mut t, tl.first..=tl.last).text("tick"));
        if slider.changed() {
            actions.push(InspectorAction::ShowTick(Some(t)));
        }
    });
    ui.horizontal(|ui| {
        ui.label(format!("recorded ticks {}..={}", tl.first, tl.last));
        if ui
            .button("save")
            .on_hover_text("write the recording to a file")
            .clicked()
        {
            actions.push(InspectorAction::SaveRecording);
        }
        if ui.button("stop recording").clicked() {
            actions.push(InspectorAction::Record(false));
        }
    });
    if let Some(saved) = &tl.saved {
        ui.label(saved);
    }
    // Markers under the scrubber: where actions started (green) or were
    // aborted (red), stimuli arrived (yellow), impulses took over (violet).
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), 8.0), egui::Sense::hover());
    let span = (tl.last - tl.first).max(1) as f32;
    for &(t, kind) in &tl.marks {
        let x = rect.left() + (t - tl.first) as f32 / span * rect.width();
        let color = match kind {
            'S' => Color32::from_rgb(110, 210, 110),
            'A' => Color32::from_rgb(235, 100, 90),
            '!' => Color32::from_rgb(250, 200, 90),
            _ => Color32::from_rgb(190, 140, 250),
        };
        ui.painter().line_segment(
            [egui::pos2(x, rect.top()), egui::pos2(x, rect.bottom())],
            egui::Stroke::new(1.5, color),
        );
    }
}

/// Per node over the recorded ticks: ticks running, longest run, status
/// changes, successes, failures (the nodes that did something).
fn draw_stats(ui: &mut egui::Ui, stats: &[wyrd_bt::sim::NodeStats]) {
    egui::Grid::new("wyrd_stats").striped(true).show(ui, |ui| {
        for head in [
            "node", "running", "longest", "changes", "success", "failure",
        ] {
            ui.strong(head);
        }
        ui.end_row();
        for s in stats {
            ui.label(s.path.as_str());
            for n in [
                s.running_ticks,
                s.longest_run,
                s.changes,
                s.successes,
                s.failures,
            ] {
                ui.label(n.to_string());
            }
            ui.end_row();
        }
    });
}

/// Background of a row found by name.
const FOUND: Color32 = Color32::from_rgb(70, 60, 20);
/// The mark of a node found by name.
pub(crate) const FOUND_MARK: Color32 = Color32::from_rgb(250, 210, 80);

/// Whether a node's name matches the find text (case-insensitive; empty
/// finds nothing).
pub(crate) fn finds(find: &str, name: &str) -> bool {
    let find = find.trim();
    !find.is_empty() && name.to_lowercase().contains(&find.to_lowercase())
}

/// The word a breakpoint event reads as.
fn break_word(on: wyrd_bt::BreakOn) -> &'static str {
    match on {
        wyrd_bt::BreakOn::Running => "running",
        wyrd_bt::BreakOn::Success => "success",
        wyrd_bt::BreakOn::Failure => "failure",
        wyrd_bt::BreakOn::Aborted => "aborted",
    }
}

/// A node's right-click menu, named by its node: breakpoints on its
/// events, for every agent of the tree (a set one is cleared). The World
/// State Evaluation is no agent's tree and runs at once when asked: its
/// menu says so (its breakpoints did nothing, without a word).
pub(crate) fn breakpoint_menu(
    ui: &mut egui::Ui,
    tree: &crate::snapshot::TreeSnapshot,
    row: &crate::snapshot::NodeRow,
    state: &mut InspectorUiState,
) {
    use wyrd_bt::BreakOn;
    ui.label(RichText::new(&row.path).strong());
    if !tree.recordable {
        ui.label("no breakpoints here: the World State Evaluation is no agent's tree (it runs at once when asked)");
        return;
    }
    for (on, text) in [
        (BreakOn::Running, "becomes running"),
        (BreakOn::Success, "succeeds"),
        (BreakOn::Failure, "fails"),
        (BreakOn::Aborted, "is aborted"),
    ] {
        let verb = if row.breaks.contains(&on) {
            "clear"
        } else {
            "break"
        };
        if ui.button(format!("{verb} when it {text}")).clicked() {
            state
                .pending
                .push(InspectorAction::ToggleBreakpoint(row.path.clone(), on));
            ui.close();
        }
    }
}

/// Whether an agent row passes the list's filter: `running:NAME` keeps the
/// agents with a running node of that name (a node's name, or an action
/// leaf's action); other text is matched against the row.
fn agent_matches(a: &crate::snapshot::AgentRow, text: &str, filter: &str) -> bool {
    match filter.strip_prefix("running:") {
        Some(name) => {
            let name = name.trim();
            name.is_empty() || a.active.split(' ').any(|leaf| leaf == name)
        }
        None => filter.is_empty() || text.contains(filter),
    }
}

/// The crowd count of a node: how many of the tree's agents are in it now,
/// as a number on a heat colour (more agents, hotter); a click filters the
/// agent list to them.
fn crowd_badge(ui: &mut egui::Ui, n: u32, of: usize, name: &str, state: &mut InspectorUiState) {
    let clicked = ui
        .add(crowd_button(n, of))
        .on_hover_text(crowd_hover(n, of, name))
        .clicked();
    if clicked {
        state.agent_filter = format!("running:{name}");
    }
}

/// The crowd count as a button on its heat colour (more agents, hotter).
pub(crate) fn crowd_button(n: u32, of: usize) -> egui::Button<'static> {
    let heat = (n as f32 / of.max(1) as f32).clamp(0.0, 1.0);
    let color = Color32::from_rgb(
        (120.0 + 135.0 * heat) as u8,
        (200.0 - 150.0 * heat) as u8,
        60,
    );
    egui::Button::new(RichText::new(format!("{n}")).color(Color32::BLACK).strong())
        .fill(color)
        .small()
}

pub(crate) fn crowd_hover(n: u32, of: usize, name: &str) -> String {
    format!("{n} of {of} agents of this tree are in {name} now (click: list them)")
}

fn draw_tree(
    ui: &mut egui::Ui,
    tree: &crate::snapshot::TreeSnapshot,
    state: &mut InspectorUiState,
) {
    let mut hidden_below: Option<usize> = None;
    for row in &tree.nodes {
        if let Some(d) = hidden_below {
            if row.depth > d {
                continue;
            }
            hidden_below = None;
        }
        let collapsed = state.collapsed.contains(&row.path);
        let found = finds(&state.find, &row.name);
        ui.horizontal(|ui| {
            ui.add_space(row.depth as f32 * 14.0);
            if row.has_children {
                let icon = if collapsed { "+" } else { "-" };
                if ui.small_button(icon).clicked() {
                    if collapsed {
                        state.collapsed.remove(&row.path);
                    } else {
                        state.collapsed.insert(row.path.clone());
                    }
                }
            }
            let mut text = format!(
                "{} {}  [{}]  {}",
                row.kind,
                row.name,
                row.flags,
                row.status.as_str()
            );
            if !row.note.is_empty() {
                text.push_str(&format!("  ({})", row.note));
            }
            let crowd = (tree.crowd_agents > 1 && row.crowd > 0).then_some(row.crowd);
            let rich = if row.masked {
                text.push_str("  (masked by tags)");
                RichText::new(text).weak()
            } else if row.running {
                RichText::new(format!("> {text}"))
                    .strong()
                    .color(status_color(row.status))
            } else {
                RichText::new(text).color(status_color(row.status))
            };
            let rich = if found {
                rich.background_color(FOUND)
            } else {
                rich
            };
            if found {
                ui.label(RichText::new("»").color(FOUND_MARK));
            }
            let label = ui.label(rich).on_hover_text(row.path.as_str());
            if found && state.found_for != state.find {
                // Jump once per find text, not every frame.
                label.scroll_to_me(Some(egui::Align::Center));
                state.found_for = state.find.clone();
            }
            label.context_menu(|ui| breakpoint_menu(ui, tree, row, state));
            if !row.breaks.is_empty() {
                let on: Vec<&str> = row.breaks.iter().map(|b| break_word(*b)).collect();
                // Text, not a dot glyph: egui's default fonts have none.
                ui.colored_label(Color32::from_rgb(240, 90, 80), "break")
                    .on_hover_text(format!("breakpoint: {}", on.join(", ")));
            }
            if let Some(n) = crowd {
                crowd_badge(ui, n, tree.crowd_agents, &row.name, state);
            }
        });
        if collapsed {
            hidden_below = Some(row.depth);
        }
    }
}

/// Seconds since the Unix epoch, now.
fn now_unix() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// When the slot last saved, as a designer reads it: the UTC time and how
/// long ago (`2026-12-06 16:55:01 UTC, 12 s ago`), or "not yet" (it showed
/// seconds since 1970).
pub(crate) fn saved_at(last_saved: Option<f64>, now: f64) -> String {
    let Some(t) = last_saved else {
        return "not yet in this session".to_owned();
    };
    let stamp = wyrd_save::utc_file_stamp(
        std::time::UNIX_EPOCH + std::time::Duration::from_secs_f64(t.max(0.0)),
    );
    // `2026-12-06T16-55-01Z`: the file name's form, told as a time.
    let (date, time) = stamp.split_once('T').unwrap_or((&stamp, ""));
    let time = time.trim_end_matches('Z').replace('-', ":");
    let ago = (now - t).max(0.0);
    let ago = if ago < 90.0 {
        format!("{ago:.0} s ago")
    } else if ago < 90.0 * 60.0 {
        format!("{:.0} min ago", ago / 60.0)
    } else {
        format!("{:.1} h ago", ago / 3600.0)
    };
    format!("{date} {time} UTC, {ago}")
}

#[cfg(test)]
mod tests {
    /// The Save panel's "last saved" is a time a designer reads (it showed
    /// "1796575454 s after 1970").
    #[test]
    fn last_saved_is_a_utc_time_and_how_long_ago() {
        // 2026-12-06 16:55:01 UTC.
        let t = 1_796_576_101.0;
        assert_eq!(
            super::saved_at(Some(t), t + 12.0),
            "2026-12-06 16:55:01 UTC, 12 s ago"
        );
        assert_eq!(
            super::saved_at(Some(t), t + 600.0),
            "2026-12-06 16:55:01 UTC, 10 min ago"
        );
        assert_eq!(super::saved_at(None, t), "not yet in this session");
    }
}
