//! # Wyrd inspector
//!
//! A live egui panel for designers: the agents that run trees (a column on
//! the left); the selected agent's tree (a list, and a graph in a window of
//! its own: fit, pan, zoom, minimap, follow, find); the crowd in each node;
//! breakpoints set by right-click and saved beside the tree; the flight
//! recorder's timeline; each node's status and rule flags (P/C/W/D), the
//! running path, tag-masked nodes dimmed, impulses and stimuli (with time left),
//! decorator state; a short history of status changes; its blackboard and
//! tags; the world state's flags and counters (editable, through the same API
//! and messages as game code); the save's status with "save now" and "reload
//! from disk"; tick timing.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use wyrd_inspector::WyrdInspectorPlugin;
//!
//! App::new()
//!     .add_plugins(DefaultPlugins)
//!     .add_plugins(WyrdInspectorPlugin::default()) // F1 toggles it
//!     .run();
//! ```
//!
//! The panels are drawn by [`draw_inspector`] and [`draw_graph_window`]
//! from plain [`InspectorSnapshot`] data into any `egui::Ui`, so they are testable
//! without a GPU. Snapshots are only taken while the panel is open: closed,
//! it costs nothing.

mod graph;
mod snapshot;
mod ui;

pub use graph::{GraphOrientation, GraphView, draw_graph, draw_graph_window};
pub use snapshot::{
    AgentRow, HistoryEntry, HistoryEvent, InspectorSnapshot, SaveRow, TimelineRow, TimingRow,
    TreeSnapshot, WorldRow,
};
pub use ui::{InspectorAction, InspectorUiState, MAX_AGENT_ROWS, draw_inspector, status_color};
pub use wyrd_bt::rows::{
    NodeRow, apply_breakpoints, apply_crowd, crowd_counts, running_names, tree_rows,
};

use std::collections::VecDeque;

use bevy::asset::AssetServer;
use bevy::input::ButtonInput;
use bevy::input::keyboard::KeyCode;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPlugin, EguiPrimaryContextPass, egui};
use wyrd_bt::{BehaviorTree, Blackboard, BtAgent, BtStats, BtSystems, Status};
use wyrd_save::SaveStatus;
use wyrd_state::WorldState;
use wyrd_state::bt::WorldStateEvaluation;
use wyrd_state::save::{ReloadWorldState, SaveWorldState};

/// The inspector panel, toggled by a key (F1 by default), closed at start.
#[derive(Debug, Clone)]
pub struct WyrdInspectorPlugin {
    /// The key that opens and closes it.
    pub toggle: KeyCode,
    /// Status changes kept for the history.
    pub history: usize,
    /// Where "save" writes flight recordings.
    pub recordings: std::path::PathBuf,
    /// The game's asset folder (`AssetPlugin::file_path`, relative to
    /// Bevy's base path as the asset server resolves it, or absolute):
    /// "save to file" writes a tree's breakpoints beside it there.
    pub assets: std::path::PathBuf,
    /// Keys and clicks egui uses (typing in the panel's filter and find
    /// fields, clicking its buttons) do not reach the game: turns on
    /// bevy_egui's `enable_absorb_bevy_input_system` (on by default; off
    /// leaves bevy_egui's settings as the game made them).
    pub absorb_input: bool,
}

impl Default for WyrdInspectorPlugin {
    fn default() -> Self {
        WyrdInspectorPlugin {
            toggle: KeyCode::F1,
            history: 200,
            recordings: "recordings".into(),
            assets: "assets".into(),
            absorb_input: true,
        }
    }
}

/// Why nodes changed in a recorded tick, one line each: a branch that
/// stopped because a higher-priority sibling took over, with the inputs
/// that changed in that tick ("fight stopped: self_preservation took over;
/// grenade_near became true"); and each `Utility`'s decision with its
/// children's scores ("utility root: eat=0.80 sleep=0.48 -> eat (beat
/// sleep by 0.32)").
pub fn why_lines(program: &wyrd_bt::Program, t: &wyrd_bt::RecordedTick) -> Vec<String> {
    let running = |b: u8| wyrd_bt::node_text(b).starts_with("running");
    let started: Vec<u32> = t
        .nodes
        .iter()
        .filter(|(_, a, b)| !running(*a) && running(*b))
        .map(|c| c.0)
        .collect();
    let mut inputs: Vec<String> = t
        .set
        .iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k} became {v}"),
            None => format!("{k} was unset"),
        })
        .collect();
    inputs.extend(t.world.iter().map(|(k, v)| match v {
        Some(v) => format!("world {k} became {v}"),
        None => format!("world {k} is unknown"),
    }));
    inputs.extend(
        t.predicates
            .iter()
            .map(|(p, _, a)| format!("{p} became {a}")),
    );
    inputs.extend(
        t.stimuli
            .iter()
            .map(|s| format!("stimulus {} inserted", s.behavior)),
    );
    let because = if inputs.is_empty() {
        String::new()
    } else {
        format!("; {}", inputs.join(", "))
    };
    let mut lines = Vec::new();
    for &(node, from, to) in &t.nodes {
        if !running(from) || running(to) {
            continue;
        }
        let Some(n) = program.get(node) else { continue };
        let Some(parent) = n.parent() else { continue };
        // Only a stopped child of a still-running parent, whose sibling
        // started: a takeover.
        let Some(taker) = parent
            .children()
            .find(|c| c.index() != node && started.contains(&c.index()))
        else {
            continue;
        };
        let higher = taker.index() < node;
        lines.push(format!(
            "{} stopped: {}{} took over{because}",
            n.path(),
            if higher { "higher-priority " } else { "" },
            taker.name()
        ));
    }
    if lines.is_empty() && !inputs.is_empty() && !t.nodes.is_empty() {
        lines.push(format!("changed{because}"));
    }
    // Each Utility's scores and why its choice won.
    lines.extend(
        t.utility
            .iter()
            .map(|c| format!("utility {}", c.text(program))),
    );
    lines
}

/// The timeline's markers: action starts and aborts, stimuli, impulses
/// taking over.
fn timeline_marks(program: &wyrd_bt::Program, rec: &wyrd_bt::Recording) -> Vec<(u64, char)> {
    let mut marks = Vec::new();
    for t in &rec.ticks {
        if t.actions.iter().any(|a| a.1 == "started") {
            marks.push((t.tick, 'S'));
        }
        if t.actions.iter().any(|a| a.1 == "aborted") {
            marks.push((t.tick, 'A'));
        }
        if !t.stimuli.is_empty() {
            marks.push((t.tick, '!'));
        }
        let impulse = t.nodes.iter().any(|&(n, from, to)| {
            program.get(n).is_some_and(|v| v.impulse().is_some())
                && !wyrd_bt::node_text(from).starts_with("running")
                && wyrd_bt::node_text(to).starts_with("running")
        });
        if impulse {
            marks.push((t.tick, 'I'));
        }
    }
    marks
}

/// Shows the last recorded tick before the one shown (or the newest) where
/// the node at `path` changed.
fn previous_change(world: &mut World, path: &str) {
    let Some((selected, shown)) = world
        .get_resource::<InspectorState>()
        .and_then(|s| Some((s.selected?, s.shown_tick)))
    else {
        return;
    };
    let Some(rec) = world.get::<BtAgent>(selected).and_then(BtAgent::recording) else {
        return;
    };
    let Some(node) = rec.paths.iter().position(|p| p == path) else {
        return;
    };
    let before = shown.unwrap_or(u64::MAX);
    let found = rec
        .ticks
        .iter()
        .rev()
        .filter(|t| t.tick < before)
        .find(|t| t.nodes.iter().any(|c| c.0 as usize == node))
        .map(|t| t.tick);
    if let (Some(t), Some(mut s)) = (found, world.get_resource_mut::<InspectorState>()) {
        s.shown_tick = Some(t);
        s.shown_for = Some(selected);
    }
}

/// Writes the selected agent's flight recording to the recordings folder.
fn save_recording(world: &mut World) {
    let Some((selected, dir)) = world
        .get_resource::<InspectorState>()
        .and_then(|s| Some((s.selected?, s.recordings.clone())))
    else {
        return;
    };
    let name = world
        .get::<Name>(selected)
        .map_or_else(|| format!("{selected}"), |n| n.as_str().to_owned());
    let Some(rec) = world.get::<BtAgent>(selected).and_then(BtAgent::recording) else {
        warn!("inspector: {name} is not recording");
        return;
    };
    let last = rec.ticks.last().map_or(0, |t| t.tick);
    let file: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let path = dir.join(format!("{file}-tick{last}.recording.json"));
    let written = std::fs::create_dir_all(&dir)
        .and_then(|()| std::fs::write(&path, serde_json::to_vec(&rec).unwrap_or_default()));
    // The tree as a file from where the game runs (the recording names
    // it by asset path: the printed command failed as printed).
    let assets = world
        .get_resource::<InspectorState>()
        .map(|s| s.assets.clone())
        .unwrap_or_default();
    let tree = assets.join(&rec.tree);
    let said = match written {
        Ok(()) => {
            info!(
                "inspector: wrote {} ({} ticks); replay it with `wyrd sim {} --replay {}`",
                path.display(),
                rec.ticks.len(),
                tree.display(),
                path.display()
            );
            format!("saved {} ({} ticks)", path.display(), rec.ticks.len())
        }
        Err(e) => {
            warn!("inspector: cannot write {}: {e}", path.display());
            format!("cannot write {}: {e}", path.display())
        }
    };
    if let Some(mut state) = world.get_resource_mut::<InspectorState>() {
        state.saved_recording = Some(said);
    }
}

/// Ticks the inspector's "record" button keeps (20 s at 30 Hz).
pub const RECORD_TICKS: usize = 600;

/// The inspector's state.
#[derive(Resource, Debug, Default, bevy::reflect::Reflect)]
#[reflect(from_reflect = false)]
pub struct InspectorState {
    /// Whether the panel is shown.
    pub open: bool,
    /// The selected agent.
    pub selected: Option<Entity>,
    /// Filters, collapsed nodes.
    #[reflect(ignore)]
    pub ui: InspectorUiState,
    /// The pointer is over the inspector (or it is dragging): games should
    /// not treat clicks as theirs this frame.
    pub wants_pointer: bool,
    #[reflect(ignore)]
    history: VecDeque<HistoryEntry>,
    capacity: usize,
    last: Vec<Status>,
    toggle: Option<KeyCode>,
    /// The recorded tick the tree panel shows (`None`: live).
    pub shown_tick: Option<u64>,
    /// The breakpoint the trees stopped at, while they stay paused.
    pub stopped_at: Option<String>,
    /// Where "save" writes flight recordings.
    pub recordings: std::path::PathBuf,
    /// The game's asset folder (see [`WyrdInspectorPlugin::assets`]).
    pub assets: std::path::PathBuf,
    /// The agent whose ticks are traced for the history.
    traced: Option<Entity>,
    /// The inspector started the traced agent's flight recorder (one a
    /// breakpoint or the game started is left running when it moves on).
    started_recording: bool,
    /// The agent `shown_tick` was chosen for (a breakpoint hit chooses it
    /// before the panel has moved to the agent).
    shown_for: Option<Entity>,
    last_traced_tick: u64,
    /// What the last "save" of a recording wrote, for the panel to say.
    saved_recording: Option<String>,
}

impl Plugin for WyrdInspectorPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        // Breakpoints set from the panel (right-click a node).
        if !app.is_plugin_added::<wyrd_bt::BtBreakpointsPlugin>() {
            app.add_plugins(wyrd_bt::BtBreakpointsPlugin::default());
        }
        if self.absorb_input {
            app.add_systems(Startup, absorb_egui_input);
        }
        app.register_type::<InspectorState>()
            .insert_resource(InspectorState {
                capacity: self.history,
                toggle: Some(self.toggle),
                recordings: self.recordings.clone(),
                assets: self.assets.clone(),
                ..Default::default()
            })
            .add_systems(Update, (toggle, show_breakpoint_hits))
            .add_systems(FixedUpdate, record_history.after(BtSystems::Decide))
            .add_systems(EguiPrimaryContextPass, draw);
    }
}

/// Input egui uses does not reach the game (see
/// [`WyrdInspectorPlugin::absorb_input`]).
fn absorb_egui_input(settings: Option<ResMut<bevy_egui::EguiGlobalSettings>>) {
    if let Some(mut s) = settings {
        s.enable_absorb_bevy_input_system = true;
    }
}

fn toggle(keys: Option<Res<ButtonInput<KeyCode>>>, mut state: ResMut<InspectorState>) {
    if let (Some(keys), Some(key)) = (keys, state.toggle)
        && keys.just_pressed(key)
    {
        state.open = !state.open;
    }
}

/// A breakpoint on a node of the selected agent's tree set, or cleared
/// when it is set (for every agent of the tree).
fn toggle_breakpoint(world: &mut World, path: String, on: wyrd_bt::BreakOn) {
    let selected = world
        .get_resource::<InspectorState>()
        .and_then(|s| s.selected);
    let Some(tree) = selected
        .and_then(|e| world.get::<BtAgent>(e))
        .map(|a| a.tree_source().to_owned())
    else {
        return;
    };
    let Some(mut breakpoints) = world.get_resource_mut::<wyrd_bt::BtBreakpoints>() else {
        warn!("inspector: breakpoints need wyrd_bt::BtBreakpointsPlugin");
        return;
    };
    let mut def = breakpoints.get(&tree).cloned().unwrap_or_default();
    let same = |b: &wyrd_bt::BreakpointDef| {
        b.node.as_deref() == Some(path.as_str())
            && b.on.unwrap_or_default() == on
            && b.agent.is_none()
            && b.when.is_none()
    };
    if def.breakpoints.iter().any(same) {
        def.breakpoints.retain(|b| !same(b));
    } else {
        def.breakpoints.push(wyrd_bt::BreakpointDef {
            node: Some(path),
            on: Some(on),
            ..Default::default()
        });
    }
    breakpoints.set(tree, def);
}

/// Writes the selected agent's tree's breakpoints to the file beside the
/// tree in the game's asset folder (the file's leading comments are kept).
fn save_breakpoints(world: &mut World) {
    let Some((selected, assets)) = world
        .get_resource::<InspectorState>()
        .and_then(|s| Some((s.selected?, s.assets.clone())))
    else {
        return;
    };
    let Some(tree) = world
        .get::<BtAgent>(selected)
        .map(|a| a.tree_source().to_owned())
    else {
        return;
    };
    let mut def = world
        .get_resource::<wyrd_bt::BtBreakpoints>()
        .and_then(|b| b.get(&tree).cloned())
        .unwrap_or_default();
    let Some(stem) = tree.strip_suffix(".bt.ron") else {
        warn!("inspector: {tree} is not a .bt.ron file: no breakpoints file beside it");
        return;
    };
    let folder = if assets.is_absolute() {
        assets
    } else {
        bevy::asset::io::file::FileAssetReader::get_base_path().join(assets)
    };
    let path = folder.join(format!("{stem}.breakpoints.ron"));
    // A file the game does not load is not in the resource: its
    // breakpoints are kept, the panel's added after them.
    let loaded = world
        .get_resource::<Assets<wyrd_bt::BtBreakpointsFile>>()
        .is_some_and(|files| files.iter().any(|(_, f)| f.tree == tree));
    if !loaded && let Ok(text) = std::fs::read_to_string(&path) {
        match wyrd_bt::BreakpointsDef::parse(&path.display().to_string(), &text) {
            Ok(mut kept) => {
                for b in def.breakpoints {
                    if !kept.breakpoints.contains(&b) {
                        kept.breakpoints.push(b);
                    }
                }
                def = kept;
            }
            Err(e) => {
                warn!("inspector: not writing over {}: {e}", path.display());
                return;
            }
        }
    }
    match write_breakpoints(&path, &def) {
        Ok(()) => info!(
            "inspector: wrote {} breakpoints of {tree} to {}",
            def.breakpoints.len(),
            path.display()
        ),
        Err(e) => warn!("inspector: cannot write {}: {e}", path.display()),
    }
}

/// Writes a breakpoints file (through a temporary file, so a watching
/// asset server never reads half of it), keeping the comment lines the
/// file starts with.
pub fn write_breakpoints(
    path: &std::path::Path,
    def: &wyrd_bt::BreakpointsDef,
) -> std::io::Result<()> {
    let header: String = std::fs::read_to_string(path)
        .map(|old| {
            old.lines()
                .take_while(|l| l.trim_start().starts_with("//"))
                .map(|l| format!("{l}\n"))
                .collect()
        })
        .unwrap_or_default();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".tmp");
    std::fs::write(&temporary, header + &def.to_ron())?;
    std::fs::rename(&temporary, path)
}

/// A breakpoint hit: the inspector opens on the agent that hit it, live
/// (the trees are paused in the tick it happened), and says which and why.
fn show_breakpoint_hits(
    mut hits: MessageReader<wyrd_bt::BtBreakpointHit>,
    mut state: ResMut<InspectorState>,
) {
    if let Some(hit) = hits.read().last() {
        state.follow_breakpoint_hit(hit);
    }
}

impl InspectorState {
    /// Opens the panel on the agent that hit a breakpoint, its timeline at
    /// the tick of the hit (the trees are paused at the end of it), with a
    /// line saying which breakpoint and why.
    pub fn follow_breakpoint_hit(&mut self, hit: &wyrd_bt::BtBreakpointHit) {
        self.open = true;
        if self.selected != Some(hit.entity) {
            self.selected = Some(hit.entity);
            self.history.clear();
            self.last.clear();
        }
        // The timeline moves to the hit (when the agent records it: a
        // breakpoint makes the agents it watches record their last ticks).
        self.shown_tick = Some(hit.tick);
        self.shown_for = Some(hit.entity);
        self.stopped_at = Some(format!(
            "stopped at breakpoint \"{}\": {} (tick {})",
            hit.hit.name, hit.hit.why, hit.tick
        ));
    }
}

/// Records the selected agent's history (only while open): the actions its
/// ticks started, finished and aborted (the tick trace, on for this agent
/// only) and its nodes' status changes.
fn record_history(mut state: ResMut<InspectorState>, mut agents: Query<&mut BtAgent>) {
    let want = if state.open { state.selected } else { None };
    if state.traced != want {
        // The agent shown is traced and flight-recorded; the one before
        // stops (off costs nothing).
        if let Some(mut old) = state.traced.and_then(|e| agents.get_mut(e).ok()) {
            old.set_tracing(false);
            if state.started_recording {
                old.stop_recording();
            }
        }
        state.started_recording = false;
        if let Some(mut new) = want.and_then(|e| agents.get_mut(e).ok()) {
            new.set_tracing(true);
            if new.recorder().is_none() {
                new.record(RECORD_TICKS);
                state.started_recording = true;
            }
        }
        if state.shown_for != want {
            state.shown_tick = None;
        }
        state.traced = want;
    }
    let Some(agent) = want.and_then(|e| agents.get(e).ok()) else {
        return;
    };
    let Some(program) = agent.program() else {
        return;
    };
    let state = &mut *state;
    let nodes = agent.state().node_states();
    if state.last.len() != nodes.len() {
        state.last = nodes.iter().map(|n| n.status()).collect();
        return;
    }
    let tick = agent.state().ticks();
    if let Some(trace) = agent.trace()
        && state.last_traced_tick != tick
    {
        state.last_traced_tick = tick;
        for &(node, e) in &trace.actions {
            let event = match e {
                wyrd_bt::ActionEvent::Started => HistoryEvent::Started,
                wyrd_bt::ActionEvent::Finished(s) => HistoryEvent::Finished(s),
                wyrd_bt::ActionEvent::Aborted => HistoryEvent::Aborted,
            };
            state.history.push_back(HistoryEntry {
                tick,
                path: agent.state().display_path(program, node),
                event,
            });
        }
        // A Utility's change of mind (not each tick it keeps its choice).
        for d in trace.decisions() {
            if matches!(
                d.choice.reason,
                wyrd_bt::UtilityReason::Kept
                    | wyrd_bt::UtilityReason::Committed
                    | wyrd_bt::UtilityReason::Done
            ) {
                continue;
            }
            let name = |n: u32| program.name(n).to_owned();
            let scores: Vec<String> = d
                .scores
                .iter()
                .map(|s| match s.score {
                    Some(v) => format!("{}={v:.2}", name(s.child)),
                    None => format!("{}=-", name(s.child)),
                })
                .collect();
            let chosen = if d.choice.chosen == wyrd_bt::NONE {
                "none".to_owned()
            } else {
                name(d.choice.chosen)
            };
            state.history.push_back(HistoryEntry {
                tick,
                path: agent.state().display_path(program, d.choice.utility),
                event: HistoryEvent::Chose(format!(
                    "{chosen}: {} ({})",
                    scores.join(" "),
                    d.choice.why(name)
                )),
            });
        }
    }
    for (i, n) in nodes.iter().enumerate().take(program.main_len()) {
        if state.last[i] != n.status() {
            state.history.push_back(HistoryEntry {
                tick,
                path: program.path(i as u32).to_owned(),
                event: HistoryEvent::Status {
                    from: state.last[i],
                    to: n.status(),
                },
            });
            state.last[i] = n.status();
        }
    }
    while state.history.len() > state.capacity {
        state.history.pop_front();
    }
}

/// Takes the snapshot the panels show.
#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
pub fn take_snapshot(
    state: &InspectorState,
    agents: &Query<(Entity, Option<&Name>, &BehaviorTree, &BtAgent, &Blackboard)>,
    server: Option<&AssetServer>,
    world_state: Option<&WorldState>,
    save: Option<&SaveStatus>,
    stats: Option<&BtStats>,
    evaluation: Option<&WorldStateEvaluation>,
) -> (InspectorSnapshot, Vec<Entity>) {
    let mut snap = InspectorSnapshot::default();
    let mut entities = Vec::new();
    let by_running = state.ui.agent_filter.starts_with("running:");
    for (e, name, tree, agent, _) in agents.iter() {
        let label = name.map_or_else(|| format!("{e}"), |n| n.as_str().to_owned());
        let tree_name = server
            .and_then(|s| s.get_path(tree.handle.id()))
            .map_or_else(|| "(loading)".to_owned(), |p| p.to_string());
        if Some(e) == state.selected {
            snap.selected = Some(snap.agents.len());
        }
        // The names of its running nodes, for the `running:NAME` filter.
        // Only while the list is filtered by it: it is a string per agent.
        let active = match agent.program() {
            Some(p) if by_running => running_names(p, agent.state()),
            _ => String::new(),
        };
        // What it does, for the rows the list can show (a designer saw a
        // cut-off tree path in each row).
        let doing = match agent.program() {
            Some(p) if snap.agents.len() < MAX_AGENT_ROWS || Some(e) == state.selected => {
                let leaves: Vec<&str> = agent
                    .state()
                    .active_leaves(p)
                    .map(|i| p.view(i).name())
                    .collect();
                leaves.join(", ")
            }
            _ => String::new(),
        };
        snap.agents.push(AgentRow {
            label,
            tree: tree_name,
            status: agent.status(),
            active,
            doing,
        });
        entities.push(e);
    }
    // The World State Evaluation is listed like an agent (its last pass).
    if let Some((program, run)) = evaluation.and_then(|e| e.last_run.as_ref()) {
        if state.selected == Some(Entity::PLACEHOLDER) {
            snap.selected = Some(snap.agents.len());
            snap.tree = Some(TreeSnapshot {
                label: "World State Evaluation".into(),
                nodes: tree_rows(program, run, 0),
                ..Default::default()
            });
        }
        snap.agents.push(AgentRow {
            label: "World State Evaluation".into(),
            tree: program.source().to_owned(),
            status: run.status(),
            active: String::new(),
            doing: String::new(),
        });
        entities.push(Entity::PLACEHOLDER);
    }
    if let Some((e, name, _, agent, bb)) = state.selected.and_then(|e| agents.get(e).ok())
        && let Some(program) = agent.program()
    {
        snap.tree = Some(TreeSnapshot {
            label: name.map_or_else(|| format!("{e}"), |n| n.as_str().to_owned()),
            nodes: tree_rows(program, agent.state(), bb.tags()),
            blackboard: bb
                .iter()
                .map(|(k, v)| {
                    (
                        k.to_owned(),
                        v.map_or_else(|| "(unset)".to_owned(), |v| v.to_string()),
                    )
                })
                .collect(),
            tags: program
                .tag_names()
                .iter()
                .map(|t| (t.clone(), bb.has_tag(t)))
                .collect(),
            impulses: program
                .impulses()
                .map(|imp| {
                    (
                        imp.node().name().to_owned(),
                        imp.behavior().to_owned(),
                        agent
                            .state()
                            .impulse_counts()
                            .get(imp.index())
                            .copied()
                            .unwrap_or(0),
                    )
                })
                .collect(),
            timeline: None,
            why: Vec::new(),
            changed_keys: Vec::new(),
            recordable: true,
            crowd_agents: 0,
            breakpoints: 0,
            stats: Vec::new(),
        });
        // The flight recorder: the tree as it was at the tick shown,
        // rebuilt by replaying the recording up to it.
        if let (Some(tree), Some(rec)) = (snap.tree.as_mut(), agent.recorder())
            && !rec.is_empty()
        {
            let recording = agent.recording();
            let first = recording
                .as_ref()
                .and_then(|r| r.ticks.first())
                .map_or(0, |t| t.tick);
            let last = recording
                .as_ref()
                .and_then(|r| r.ticks.last())
                .map_or(0, |t| t.tick);
            let shown = state.shown_tick.filter(|t| (first..=last).contains(t));
            let marks = recording
                .as_ref()
                .map_or_else(Vec::new, |r| timeline_marks(program, r));
            tree.timeline = Some(TimelineRow {
                first,
                last,
                shown,
                marks,
                saved: state.saved_recording.clone(),
            });
            tree.stats = recording
                .as_ref()
                .map_or_else(Vec::new, wyrd_bt::sim::recording_stats);
            if let (Some(t), Some(recording)) = (shown, recording.as_ref()) {
                let upto = (t - first + 1) as usize;
                match wyrd_bt::sim::rebuild(program, recording, upto) {
                    Ok((st, old_bb)) => {
                        tree.nodes = tree_rows(program, &st, old_bb.tags());
                        tree.blackboard = old_bb
                            .iter()
                            .map(|(k, v)| {
                                (
                                    k.to_owned(),
                                    v.map_or_else(|| "(unset)".to_owned(), |v| v.to_string()),
                                )
                            })
                            .collect();
                        tree.tags = program
                            .tag_names()
                            .iter()
                            .map(|t| (t.clone(), old_bb.has_tag(t)))
                            .collect();
                    }
                    Err(e) => warn!("inspector: cannot rebuild tick {t}: {e}"),
                }
                if let Some(rt) = recording.ticks.iter().find(|r| r.tick == t) {
                    tree.why = why_lines(program, rt);
                    tree.changed_keys = rt.set.iter().map(|(k, _)| k.clone()).collect();
                }
            }
        }
        snap.history = state.history.iter().cloned().collect();
    }
    // The crowd view: how many agents of the selected agent's tree are in
    // each node now (not over an earlier recorded tick: the counts are of
    // now; the tick the trees are paused at is now).
    let now = state
        .selected
        .and_then(|e| agents.get(e).ok())
        .map(|(_, _, _, a, _)| a.state().ticks());
    if let (Some(tree), Some(program)) = (
        snap.tree.as_mut().filter(|t| {
            t.timeline
                .as_ref()
                .is_none_or(|tl| tl.shown.is_none() || tl.shown == now)
        }),
        state
            .selected
            .and_then(|e| agents.get(e).ok())
            .and_then(|(_, _, _, a, _)| a.program()),
    ) {
        let same: Vec<&wyrd_bt::AgentState> = agents
            .iter()
            .filter(|(_, _, _, a, _)| {
                a.program()
                    .is_some_and(|p| std::sync::Arc::ptr_eq(p, program))
            })
            .map(|(_, _, _, a, _)| a.state())
            .collect();
        tree.crowd_agents = same.len();
        apply_crowd(&mut tree.nodes, program, &crowd_counts(program, same));
    }
    if let Some(ws) = world_state {
        for f in ws.flags() {
            snap.world.push(WorldRow {
                name: f.name.to_string(),
                flag: Some(f.value),
                value: i64::from(f.value),
                default: f.default.to_string(),
                scope: f.scope.to_string(),
                version: f.version,
            });
        }
        for c in ws.counters() {
            snap.world.push(WorldRow {
                name: c.name.to_string(),
                flag: None,
                value: c.value,
                default: c.default.to_string(),
                scope: c.scope.to_string(),
                version: c.version,
            });
        }
    }
    if let Some(s) = save {
        snap.save = Some(SaveRow {
            path: s.dir.display().to_string(),
            documents: s.documents.join(", "),
            status: s.summary(),
            failing: s.last_error.is_some() || s.paused.is_some(),
            last_load: s
                .last_load
                .as_ref()
                .map_or_else(|| "not loaded".to_owned(), |o| o.describe()),
            last_saved: s.last_saved_ticks.map(wyrd_save::ticks_to_unix_seconds),
            error: s.last_error.clone(),
        });
    }
    if let Some(stats) = stats {
        snap.timing = TimingRow {
            ticks_per_second: stats.ticks_per_second,
            decide_ms: stats.decide_ns as f32 / 1e6,
            act_ms: stats.act_ns as f32 / 1e6,
        };
    }
    (snap, entities)
}

/// Applies what the user did through the same API and messages as game code.
pub fn apply_actions(world: &mut World, actions: Vec<InspectorAction>, entities: &[Entity]) {
    for action in actions {
        match action {
            InspectorAction::SelectAgent(i) => {
                if let Some(mut s) = world.get_resource_mut::<InspectorState>() {
                    s.selected = entities.get(i).copied();
                    s.history.clear();
                    s.last.clear();
                }
            }
            InspectorAction::SetFlag(name, v) => {
                if let Some(mut ws) = world.get_resource_mut::<WorldState>()
                    && let Err(e) = ws.set_flag(name.as_str(), v, "inspector")
                {
                    warn!("inspector: {e}");
                }
            }
            InspectorAction::SetCounter(name, v) => {
                if let Some(mut ws) = world.get_resource_mut::<WorldState>()
                    && let Err(e) = ws.set_counter(name.as_str(), v, "inspector")
                {
                    warn!("inspector: {e}");
                }
            }
            InspectorAction::ToggleBreakpoint(path, on) => toggle_breakpoint(world, path, on),
            InspectorAction::SaveBreakpoints => save_breakpoints(world),
            InspectorAction::SaveNow => {
                world.write_message(SaveWorldState::default());
            }
            InspectorAction::ReloadSave => {
                world.write_message(ReloadWorldState::default());
            }
            InspectorAction::Record(on) => {
                let selected = world
                    .get_resource::<InspectorState>()
                    .and_then(|s| s.selected);
                if let Some(mut agent) = selected.and_then(|e| world.get_mut::<BtAgent>(e)) {
                    if on {
                        agent.record(RECORD_TICKS);
                    } else {
                        agent.stop_recording();
                    }
                }
                if !on && let Some(mut s) = world.get_resource_mut::<InspectorState>() {
                    s.shown_tick = None;
                }
            }
            InspectorAction::SaveRecording => save_recording(world),
            InspectorAction::PreviousChange(path) => previous_change(world, &path),
            InspectorAction::Pause(on) => {
                if let Some(mut s) = world.get_resource_mut::<wyrd_bt::BtSettings>() {
                    s.paused = on;
                    s.steps = 0;
                }
            }
            InspectorAction::Step => {
                if let Some(mut s) = world.get_resource_mut::<wyrd_bt::BtSettings>() {
                    s.steps += 1;
                }
            }
            InspectorAction::ShowTick(t) => {
                if let Some(mut s) = world.get_resource_mut::<InspectorState>() {
                    s.shown_tick = t;
                    s.shown_for = s.selected;
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
fn draw(
    mut commands: Commands,
    mut contexts: EguiContexts,
    mut state: ResMut<InspectorState>,
    agents: Query<(Entity, Option<&Name>, &BehaviorTree, &BtAgent, &Blackboard)>,
    server: Option<Res<AssetServer>>,
    world_state: Option<Res<WorldState>>,
    save: Option<Res<SaveStatus>>,
    stats: Option<Res<BtStats>>,
    diagnostics: Option<Res<bevy::diagnostic::DiagnosticsStore>>,
    evaluation: Option<Res<WorldStateEvaluation>>,
    settings: Option<Res<wyrd_bt::BtSettings>>,
    reloads: Option<Res<wyrd_bt::BtReloads>>,
    breakpoints: Option<Res<wyrd_bt::BtBreakpoints>>,
) -> Result {
    if !state.open {
        state.wants_pointer = false;
        return Ok(());
    }
    if state.selected.is_none() {
        state.selected = agents
            .iter()
            .next()
            .map(|a| a.0)
            .or_else(|| evaluation.as_ref().map(|_| Entity::PLACEHOLDER));
    }
    let paused = settings.as_deref().is_some_and(|s| s.paused);
    let (mut snap, entities) = take_snapshot(
        &state,
        &agents,
        server.as_deref(),
        world_state.as_deref(),
        save.as_deref(),
        stats.as_deref(),
        evaluation.as_deref(),
    );
    snap.paused = paused;
    if !paused {
        state.stopped_at = None;
    }
    snap.stopped_at = state.stopped_at.clone();
    snap.reloads = reloads.map(|r| r.0.clone()).unwrap_or_default();
    // The selected tree's breakpoints, marked on its nodes.
    if let (Some(tree), Some(b), Some(source)) = (
        snap.tree.as_mut(),
        breakpoints.as_deref(),
        state
            .selected
            .and_then(|e| agents.get(e).ok())
            .map(|(_, _, _, a, _)| a.tree_source()),
    ) && let Some(def) = b.get(source)
    {
        apply_breakpoints(&mut tree.nodes, def);
        tree.breakpoints = def.breakpoints.len();
    }
    // The tick's timings as Bevy's diagnostics smooth them (what any
    // diagnostics overlay shows too).
    if let Some(d) = diagnostics.as_deref() {
        let smoothed = |p: &bevy::diagnostic::DiagnosticPath| {
            d.get(p).and_then(|d| d.smoothed()).map(|v| v as f32)
        };
        let (decide, act) = (wyrd_bt::BtPlugin::DECIDE_MS, wyrd_bt::BtPlugin::ACT_MS);
        if let Some(ms) = smoothed(&decide) {
            snap.timing.decide_ms = ms;
        }
        if let Some(ms) = smoothed(&act) {
            snap.timing.act_ms = ms;
        }
    }
    let ctx = contexts.ctx_mut()?;
    let mut actions = Vec::new();
    egui::Window::new("Wyrd inspector (F1)")
        .default_width(720.0)
        .default_height(600.0)
        .default_pos((540.0, 60.0))
        .scroll(false)
        .show(ctx, |ui| {
            actions = draw_inspector(ui, &snap, &mut state.ui);
        });
    actions.extend(draw_graph_window(ctx, &snap, &mut state.ui));
    state.wants_pointer = ctx.is_pointer_over_egui() || ctx.egui_wants_pointer_input();
    if !actions.is_empty() {
        commands.queue(move |world: &mut World| apply_actions(world, actions, &entities));
    }
    Ok(())
}
