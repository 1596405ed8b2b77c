//! The plugin's systems: binding agents to their programs, restoring saved
//! states, the tick of every agent, the running-actions index.

use std::sync::Arc;

use bevy::asset::Assets;
use bevy::asset::prelude::AssetChanged;
use bevy::diagnostic::Diagnostics;
use bevy::ecs::prelude::*;
use bevy::log::{error, info, warn};
use bevy::reflect::Reflect;
use bevy::reflect::std_traits::ReflectDefault;
use bevy::time::Time;

use crate::agent::{BehaviorTree, BtAgent, RunMode, TickContext, Updated};
use crate::asset::BtAsset;
use crate::blackboard::Blackboard;
use crate::breakpoints::{BtBreakpointHit, BtBreakpoints};
use crate::clock::AgentClock;
use crate::dispatch::{Listed, Posting, RunningActions};
use crate::persist::{SavedTree, diff, restore};
use crate::problem::AgentProblem;
use crate::program::Program;
use crate::resources::{
    BtGlobals, BtSettings, BtStats, BtWorldValues, DECIDE_MS, Declared, PARALLEL_FROM, TICKED,
};
use crate::runtime::{ActionState, ActiveAction, AgentState, BtActions, Status};
use crate::tier::{BtTier, BtTiers, Slotted};
use crate::tier_tables::{TickData, TierTables};
use crate::value::Value;

fn bind(
    agent: &mut BtAgent,
    tree: &BehaviorTree,
    program: &Arc<Program>,
    bb: &mut Mut<Blackboard>,
    actions: &mut BtActions,
) {
    agent.state = AgentState::new(program, tree.seed);
    agent.program = Some(program.clone());
    agent.record_again();
    agent.finished = false;
    agent.clock = AgentClock::default();
    actions.reserve(program.action_capacity());
    if !bb.is_bound_to(program) {
        for error in bb.bind(program) {
            let problem = AgentProblem::Blackboard {
                tree: program.source.clone(),
                error,
            };
            if agent.add_problem(problem.clone()) {
                warn!("{problem}");
            }
        }
    }
}

/// `Decide`, first: the world values each program reads, looked up once per
/// program and tick; a name the world does not publish is reported once.
/// The agents [`restore_trees`] restores.
pub(crate) type RestoreQuery<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static BehaviorTree,
        &'static RestoreTree,
        &'static mut BtAgent,
        &'static mut Blackboard,
        &'static mut BtActions,
    ),
>;

/// The agents [`decide_trees`] ticks (`F`: those with a tier or those
/// without, which tick differently).
pub(crate) type TickQuery<'w, 's, F = ()> = Query<'w, 's, TickData, F>;

/// One agent of [`TickQuery`].
type TickItem<'a> = (
    Entity,
    &'a BehaviorTree,
    Mut<'a, BtAgent>,
    Mut<'a, Blackboard>,
    Mut<'a, BtActions>,
    Option<&'a BtTier>,
);

/// Tiered agents that wake on changes, changed since the last tick.
type WakeQuery<'w, 's> =
    Query<'w, 's, (Entity, &'static BtTier), Or<(Changed<Blackboard>, Changed<BtAgent>)>>;

/// Every query of [`decide_trees`], one at a time.
pub(crate) type Agents<'w, 's> = ParamSet<
    'w,
    's,
    (
        BindQuery<'static, 'static, Changed<BehaviorTree>>,
        BindQuery<'static, 'static, AssetChanged<BehaviorTree>>,
        RestoreQuery<'static, 'static>,
        TickQuery<'static, 'static, Without<BtTier>>,
        TickQuery<'static, 'static, (With<BtTier>, Without<Slotted>)>,
        Query<'static, 'static, &'static mut BtActions>,
        WakeQuery<'static, 'static>,
        TierTables<'static, 'static>,
    ),
>;

/// What [`decide_trees`] needs besides the agents to prepare them.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct Prepare<'w, 's> {
    commands: Commands<'w, 's>,
    assets: Res<'w, Assets<BtAsset>>,
    server: Option<Res<'w, bevy::asset::AssetServer>>,
    log: ResMut<'w, BtReloads>,
    hints: Res<'w, TreeLoadHints>,
    asset_events: MessageReader<'w, 's, bevy::asset::AssetEvent<BtAsset>>,
    started: Local<'s, bool>,
}

/// `Decide`: world values published ([`publish_world_values`]), agents
/// bound to new or reloaded trees ([`bind_trees`]), saved tree states
/// restored ([`restore_trees`]), then every agent due ticked
/// ([`tick_trees`]). One system: each system run is a task handed to a
/// worker and back, a fixed cost per update that dominates small crowds.
#[allow(
    clippy::too_many_arguments,
    clippy::type_complexity,
    reason = "a Bevy system's parameters"
)]
pub(crate) fn decide_trees(
    mut prepare: Prepare,
    time: Res<Time>,
    settings: ResMut<BtSettings>,
    globals: Res<BtGlobals>,
    mut world: ResMut<BtWorldValues>,
    stats: ResMut<BtStats>,
    diagnostics: Diagnostics,
    mut dispatch: Dispatch,
    mut agents: Agents,
) {
    let p = &mut prepare;
    // Reports made since the last `Act` (by systems outside it) reach the
    // slots before the trees read them.
    {
        let mut slots = agents.p5();
        dispatch.running.write_back(|e, report| {
            if let Ok(mut actions) = slots.get_mut(e) {
                actions.take_report(report);
            }
        });
    }
    publish_world_values(&p.assets, &globals, &mut world);
    let assets_changed =
        p.asset_events.read().count() > 0 || !std::mem::replace(&mut *p.started, true);
    bind_trees(
        &p.assets,
        p.server.as_deref().map(|server| (server, &*p.hints)),
        &mut p.log,
        assets_changed,
        &mut agents,
    );
    restore_trees(&mut p.commands, &globals, &mut agents.p2());
    if dispatch.tiers.needs_index() {
        let Dispatch { tiers, tiered, .. } = &mut dispatch;
        tiers.index(tiered.iter().map(|(e, tier)| (e, tier.group())));
    }
    tick_trees(
        &time,
        settings,
        &globals,
        &world,
        stats,
        diagnostics,
        &mut dispatch.tiers,
        dispatch.running.listed(),
        &mut dispatch.locals,
        &mut agents,
    );
    dispatch.apply();
}

/// Per tick thread: agents ticked, the slots for the running-actions index.
#[derive(Default)]
pub(crate) struct TickLocal {
    ticked: u32,
    posting: Posting,
    /// Breakpoints that hit in this tick.
    hits: Vec<BtBreakpointHit>,
}

/// What [`decide_trees`] keeps the running-actions index with.
#[derive(bevy::ecs::system::SystemParam)]
pub(crate) struct Dispatch<'w, 's> {
    running: ResMut<'w, RunningActions>,
    tiers: ResMut<'w, BtTiers>,
    /// Every tiered agent and its group, for the groups to list their
    /// agents when a budget first needs them (`BtTiers::index`).
    tiered: Query<'w, 's, (Entity, &'static BtTier)>,
    entities: &'w bevy::ecs::entity::Entities,
    locals: Local<'s, bevy::utils::Parallel<TickLocal>>,
    breakpoints: ResMut<'w, BtBreakpoints>,
    hits: MessageWriter<'w, BtBreakpointHit>,
}

impl Dispatch<'_, '_> {
    /// The tick's slots into the index.
    fn apply(&mut self) {
        let mut hits = Vec::new();
        for local in self.locals.iter_mut() {
            hits.append(&mut local.hits);
        }
        self.running.rebuild(
            self.locals.iter_mut().map(|l| &mut l.posting),
            self.entities,
        );
        if !hits.is_empty() {
            // In entity order, whatever threads ticked the agents.
            hits.sort_by_key(|h| h.entity);
            self.breakpoints.last_hit = hits.first().cloned();
            for h in hits {
                bevy::log::info!(
                    "breakpoint {:?} hit: {} (agent {}, tick {}); trees paused",
                    h.hit.name,
                    h.hit.why,
                    h.entity,
                    h.tick
                );
                self.hits.write(h);
            }
        }
    }
}

/// Agents whose tree file failed to load get it in [`BtAgent::problems`]
/// ([`AgentProblem::TreeNotLoaded`]), said once per failure: without a
/// `LogPlugin` (headless games, tests) nothing else tells why they never
/// tick (with one, Bevy's asset server logs it; this does not again).
/// Agents given the failed handle later get it when they bind.
pub(crate) fn report_failed_trees(
    mut failed: MessageReader<bevy::asset::AssetLoadFailedEvent<BtAsset>>,
    assets: Res<Assets<BtAsset>>,
    server: Option<Res<bevy::asset::AssetServer>>,
    mut hints: ResMut<TreeLoadHints>,
    mut agents: Query<(&BehaviorTree, &mut BtAgent)>,
) {
    for event in failed.read() {
        // A reload that failed: the agents go on with the version they
        // have (Bevy logs the error).
        if assets.contains(event.id) {
            continue;
        }
        let hint = server.as_deref().map_or_else(String::new, |s| {
            missing_file_hint(s, &event.error, &event.path)
        });
        if !hint.is_empty() {
            // Bevy's log line has the error; the hint only this one.
            warn!("{}: no such tree file{hint}", event.path);
        }
        hints.0.insert(event.id, hint.clone());
        let problem = AgentProblem::TreeNotLoaded {
            tree: event.path.to_string(),
            error: load_error_text(&event.error) + &hint,
        };
        // Not logged again: Bevy's asset server logs the failure.
        for (tree, mut agent) in &mut agents {
            if tree.handle.id() == event.id {
                agent.add_problem(problem.clone());
            }
        }
    }
}

/// Why a tree file did not load, in words: the compiler's errors (file,
/// line, column, the nearest name), every one, when it did not compile,
/// without the loader's preamble and Bevy's backtrace.
fn load_error_text(error: &bevy::asset::AssetLoadError) -> String {
    if let bevy::asset::AssetLoadError::AssetLoaderError(e) = error {
        if let Some(bt) = e.error().downcast_ref::<crate::asset::BtLoadError>() {
            return bt.to_string();
        }
        let text = e.error().to_string();
        return text.lines().next().unwrap_or_default().to_owned();
    }
    error.to_string()
}

/// The "did you mean" of each tree file that failed to load (see
/// `missing_file_hint`), worked out once per failure: agents given the
/// failed tree later get it from here (one listing of the folder per
/// agent was a stall for a crowd spawned with a misspelt path).
#[derive(Resource, Debug, Default)]
pub(crate) struct TreeLoadHints(
    bevy::platform::collections::HashMap<bevy::asset::AssetId<BtAsset>, String>,
);

/// `; did you mean "trees/guard.bt.ron"?` when a tree file was not found
/// and its folder has a tree file whose path is near (a misspelt path in
/// the game's `load`), else nothing. Lists the folder through the asset
/// source (once per failed file: [`report_failed_trees`] keeps it in
/// [`TreeLoadHints`]); on the web, where the asset reader cannot list a
/// folder (and logs an error when asked), nothing.
fn missing_file_hint(
    server: &bevy::asset::AssetServer,
    error: &bevy::asset::AssetLoadError,
    path: &bevy::asset::AssetPath,
) -> String {
    use bevy::asset::AssetLoadError;
    use bevy::asset::io::AssetReaderError;
    use bevy::tasks::futures_lite::StreamExt;
    if cfg!(target_arch = "wasm32") {
        return String::new();
    }
    if !matches!(
        error,
        AssetLoadError::AssetReaderError(AssetReaderError::NotFound(_))
    ) {
        return String::new();
    }
    let Ok(source) = server.get_source(path.source()) else {
        return String::new();
    };
    let folder = path.path().parent().unwrap_or(std::path::Path::new(""));
    let listed = bevy::tasks::block_on(async {
        let mut entries = source.reader().read_directory(folder).await.ok()?;
        let mut trees = Vec::new();
        while let Some(entry) = entries.next().await {
            let Some(name) = entry.file_name() else {
                continue;
            };
            let name = name.to_string_lossy();
            if name.ends_with(".bt.ron") {
                trees.push(folder.join(&*name).to_string_lossy().replace('\\', "/"));
            }
        }
        Some(trees)
    });
    let wanted = path.path().to_string_lossy().replace('\\', "/");
    listed.map_or_else(String::new, |trees| {
        crate::compile::closest_name(&wanted, trees.iter().map(String::as_str))
    })
}

/// An agent given a tree whose file already failed to load: the problem
/// [`report_failed_trees`] gives the agents that had it then.
fn report_failed_tree(
    server: &bevy::asset::AssetServer,
    hints: &TreeLoadHints,
    tree: &BehaviorTree,
    agent: &mut BtAgent,
) {
    if let Some(bevy::asset::LoadState::Failed(error)) = server.get_load_state(&tree.handle) {
        let hint = hints.0.get(&tree.handle.id()).map_or("", String::as_str);
        let path = tree
            .handle
            .path()
            .map_or_else(|| format!("{:?}", tree.handle.id()), ToString::to_string);
        let problem = AgentProblem::TreeNotLoaded {
            tree: path,
            error: load_error_text(&error) + hint,
        };
        agent.add_problem(problem);
    }
}

/// Agents of a tree that names a world value no declaration has get it in
/// [`BtAgent::problems`] (the inspector shows them): every agent when a new
/// one is found, and agents whose tree is new since.
pub(crate) fn report_undeclared_world_values(
    world: Res<BtWorldValues>,
    mut seen: Local<u64>,
    mut agents: Query<(Ref<BehaviorTree>, &mut BtAgent)>,
) {
    let everyone = std::mem::replace(&mut *seen, world.undeclared_gen) != world.undeclared_gen;
    for (tree, mut agent) in &mut agents {
        if !everyone && !tree.is_changed() {
            continue;
        }
        let Some(problems) = world.undeclared.get(&tree.handle.id()) else {
            continue;
        };
        for p in problems {
            agent.add_problem(p.clone());
        }
    }
}

fn publish_world_values(assets: &Assets<BtAsset>, globals: &BtGlobals, world: &mut BtWorldValues) {
    world.values.retain(|id, _| assets.contains(*id));
    world.undeclared.retain(|id, _| assets.contains(*id));
    for (id, asset) in assets.iter() {
        if asset.program.globals.is_empty() {
            continue;
        }
        let slots = world.values.entry(id).or_default();
        slots.clear();
        // With a declaration file failed, the names it may declare: one
        // line per tree, not an error per name blaming the tree.
        let mut unpublished: Vec<&str> = Vec::new();
        for (slot, g) in asset.program.globals.iter().enumerate() {
            let v = globals.get(&g.name);
            // Reported once per program and name; the key allocates nothing.
            // While the declarations load, a missing name is not news.
            if v.is_none()
                && globals.declared() != Declared::Loading
                && world.reported.insert((id, slot))
            {
                if globals.declared() == Declared::Complete {
                    let problem = AgentProblem::UndeclaredWorldValue {
                        at: format!("{}:{}:{}", g.file, g.line, g.column),
                        name: g.name.clone(),
                        hint: {
                            // Sorted: of two as near, the same one each run.
                            let mut names: Vec<&str> = globals.names().collect();
                            names.sort_unstable();
                            crate::closest_name(&g.name, names.into_iter())
                        },
                    };
                    error!("{problem}");
                    world.undeclared.entry(id).or_default().push(problem);
                    world.undeclared_gen += 1;
                } else if globals.declared() == Declared::Incomplete {
                    unpublished.push(&g.name);
                } else {
                    warn!(
                        "{}:{}:{}: no world value {:?} is published (yet); the condition does not hold",
                        g.file, g.line, g.column, g.name
                    );
                }
            }
            // A world action's write that its flag or counter cannot hold,
            // said once (it passed the load, then failed the evaluation).
            if let (Some(declared), Some(written)) = (v, g.written)
                && let Some(what) = g.write_misfit(matches!(declared, Value::Bool(_)))
                && world.reported.insert((id, slot))
            {
                let problem = AgentProblem::WorldValueType {
                    at: format!("{}:{}:{}", g.file, g.line, g.column),
                    name: g.name.clone(),
                    declared: what,
                    written: written.to_string(),
                };
                error!("{problem}");
                world.undeclared.entry(id).or_default().push(problem);
                world.undeclared_gen += 1;
            }
            slots.push(v);
        }
        if !unpublished.is_empty() {
            warn!(
                "{}: the world values {unpublished:?} are not published: a flags file failed to load (its error is above), and may declare them; their conditions do not hold",
                asset.program.source()
            );
        }
    }
}

/// `Decide`, second: agents whose tree is new, swapped, or whose asset was
/// (re)loaded bind to its program (Bevy's `AssetChanged` change detection):
/// a reload restarts them cleanly on the new program.
///
/// `AssetChanged` looks every agent's handle up in a map of changed assets
/// (a pointer chase and a hash per agent: ~38 ns per agent per update at
/// 10,000 agents), so that query runs only in updates after a tree asset
/// event; agents whose `BehaviorTree` component changed are found by the
/// cheap `Changed` filter every update.
pub(crate) type BindQuery<'w, 's, F> = Query<
    'w,
    's,
    (
        &'static BehaviorTree,
        &'static mut BtAgent,
        &'static mut Blackboard,
        &'static mut BtActions,
    ),
    F,
>;

/// One reload: old and new program, agents that kept their state, reasons
/// of those that restarted.
type Reload = (Arc<Program>, Arc<Program>, usize, Vec<String>);

#[allow(clippy::type_complexity, reason = "decide_trees' queries")]
fn bind_trees(
    assets: &Assets<BtAsset>,
    server: Option<(&bevy::asset::AssetServer, &TreeLoadHints)>,
    log: &mut BtReloads,
    assets_changed: bool,
    agents: &mut Agents,
) {
    let mut reloads: Vec<Reload> = Vec::new();
    bind_changed(assets, server, &mut reloads, &mut agents.p0());
    if assets_changed {
        bind_changed(assets, None, &mut reloads, &mut agents.p1());
    }
    report_reloads(log, reloads);
}

/// Binds the agents a query found to their tree's current program.
fn bind_changed<F: bevy::ecs::query::QueryFilter>(
    assets: &Assets<BtAsset>,
    server: Option<(&bevy::asset::AssetServer, &TreeLoadHints)>,
    reloads: &mut Vec<Reload>,
    agents: &mut BindQuery<F>,
) {
    // A reload keeps what did not change: per (old, new) program, the diff
    // and how many agents kept their state, said once.
    for (tree, mut agent, mut bb, mut actions) in agents.iter_mut() {
        // What the tick reads the tree for, kept as of the tree's change
        // (see `BtAgent::paced`).
        agent.bypass_change_detection().paced =
            tree.rate_hz.is_some() || tree.mode == RunMode::Once;
        let Some(asset) = assets.get(&tree.handle) else {
            if let Some((server, hints)) = server {
                report_failed_tree(server, hints, tree, &mut agent);
            }
            continue;
        };
        if agent
            .program
            .as_ref()
            .is_none_or(|p| !Arc::ptr_eq(p, &asset.program))
        {
            let old = agent.program.clone();
            let saved = old
                .as_ref()
                .map(|old| agent.state.save(old, &actions, &bb, agent.clock.us()));
            let clock = agent.clock;
            let untold = agent.state.has_untold_aborts();
            let mut stopped = std::mem::take(&mut actions.slots);
            bind(&mut agent, tree, &asset.program, &mut bb, &mut actions);
            agent.forget_problems(|p| matches!(p, AgentProblem::TreeNotLoaded { .. }));
            let (Some(old), Some(saved)) = (old, saved) else {
                continue;
            };
            let once = tree.mode == RunMode::Once;
            let outcome = restore(&asset.program, &saved).map(|(state, slots, _)| {
                agent.state = state;
                actions.slots.extend(slots);
                agent.clock = clock;
                agent.finished = once && agent.state.live != Status::Running;
            });
            if outcome.is_err() {
                // The agent starts afresh on the new tree: what ran on the
                // old one is told to stop, as an abort (its leaf is in the
                // old tree: `node` is `u16::MAX`), and so are aborts not
                // told yet.
                stopped.retain(|a| a.is_running() || (untold && a.state == ActionState::Aborted));
                for a in &mut stopped {
                    a.state = ActionState::Aborted;
                    a.node = u16::MAX;
                }
                actions.slots.extend(stopped);
            } else if untold {
                // Aborts not told yet that the kept state dropped (of an
                // older tree, or whose leaf the edit changed): told still,
                // their leaves in no tree now.
                let dropped: Vec<ActiveAction> = stopped
                    .into_iter()
                    .filter(|a| {
                        a.state == ActionState::Aborted
                            && !actions.slots.iter().any(|s| {
                                s.id == a.id
                                    && s.started_ms == a.started_ms
                                    && s.state == ActionState::Aborted
                            })
                    })
                    .map(|a| ActiveAction {
                        node: u16::MAX,
                        ..a
                    })
                    .collect();
                actions.slots.extend(dropped);
            }
            // The state kept or made afresh: aborts not told yet still are.
            if actions
                .slots
                .iter()
                .any(|a| a.state == ActionState::Aborted)
                && (untold || outcome.is_err())
            {
                agent.state.keep_aborted();
            }
            let i = match reloads
                .iter()
                .position(|r| Arc::ptr_eq(&r.0, &old) && Arc::ptr_eq(&r.1, &asset.program))
            {
                Some(i) => i,
                None => {
                    reloads.push((old, asset.program.clone(), 0, Vec::new()));
                    reloads.len() - 1
                }
            };
            match outcome {
                Ok(()) => reloads[i].2 += 1,
                Err(e) => reloads[i].3.push(e.to_string()),
            }
        }
    }
}

/// Says once per (old, new) program what a reload changed and kept.
fn report_reloads(log: &mut BtReloads, reloads: Vec<Reload>) {
    for (old, new, kept, restarted) in reloads {
        let d = diff(&old, &new);
        // Agents given another tree file (their `BehaviorTree` changed) are
        // not a reload of it.
        let what = if old.source == new.source {
            "reloaded".to_owned()
        } else {
            format!("in place of {}", old.source)
        };
        let line = format!(
            "{}: {what}: {}; {kept} agents kept their state, {} restarted{}",
            new.source,
            d.summary(),
            restarted.len(),
            restarted
                .first()
                .map_or(String::new(), |r| format!(" (first: {r})"))
        );
        info!("{line}");
        log.0.push(line);
        if log.0.len() > 20 {
            log.0.remove(0);
        }
    }
}

/// `Decide`, after binding: saved tree states given with [`RestoreTree`]
/// are restored once the agent's tree is bound.
fn restore_trees(commands: &mut Commands, globals: &BtGlobals, agents: &mut RestoreQuery) {
    for (e, tree, saved, mut agent, mut bb, mut actions) in agents.iter_mut() {
        let Some(program) = agent.program.clone() else {
            continue;
        };
        commands.entity(e).remove::<RestoreTree>();
        match restore(&program, &saved.0) {
            Ok((state, slots, report)) => {
                restore_blackboard(&program, &saved.0, &mut bb);
                let untold = agent.state.has_untold_aborts();
                agent.state = state;
                // What ran before and is not among the saved actions is
                // told to stop, as an abort (and aborts not told yet still
                // are).
                actions
                    .slots
                    .retain(|a| !slots.iter().any(|s| a.same_run(s)));
                let stopped = actions.abort_all(untold);
                actions.slots.extend(slots);
                if stopped {
                    agent.state.keep_aborted();
                }
                agent.clock = AgentClock::at(saved.0.clock_us);
                // A finished run-once tree stays finished.
                agent.finished = tree.mode == RunMode::Once && agent.state.live != Status::Running;
                agent.record_again();
                if saved.0.inputs_seen
                    && program.globals().is_empty()
                    && saved.0.tree_hash == format!("{:016x}", program.content_hash)
                    && report.not_kept.is_empty()
                {
                    // As the saved agent: nothing changed since its last
                    // walk (its next may be skipped). Only without world
                    // values, which may differ in this app, and for the
                    // very tree it was saved on, all kept (an edited tree
                    // may decide otherwise with the same inputs).
                    agent.state.seen_inputs =
                        crate::runtime::inputs_key(bb.generation(), globals.generation());
                }
                if !report.not_kept.is_empty() || !report.values_dropped.is_empty() {
                    info!(
                        "{}: restored the saved tree state; {report}",
                        program.source
                    );
                }
                agent.extras_mut().restored = Some(Box::new(report));
            }
            Err(error) => {
                // The agent starts fresh, and its blackboard stays as the
                // game set it: values saved beside a state that does not
                // fit the tree any more are not half-applied.
                let problem = AgentProblem::NotRestored {
                    tree: program.source.clone(),
                    error,
                };
                warn!("{problem}");
                agent.add_problem(problem);
            }
        }
    }
}

/// The saved blackboard values and tags the tree still declares.
fn restore_blackboard(program: &Program, saved: &SavedTree, bb: &mut Blackboard) {
    for (k, v) in &saved.blackboard {
        if let Some(i) = program.bb_key(k) {
            match v {
                Some(v) => bb.set_index(i, *v),
                None => bb.clear_index(i),
            }
        }
    }
    let mut tags = 0u64;
    for t in &saved.tags {
        tags |= program.tag_bit(t).unwrap_or(0);
    }
    bb.set_tags(tags);
}

/// The last hot reloads of trees: what changed and how many agents kept
/// their state (the inspector shows them).
#[derive(Resource, Debug, Default, Clone, Reflect)]
// The reflected type path from before the plugin file was split (scenes
// and remote clients name types by it).
#[type_path = "wyrd_bt::plugin"]
#[reflect(Resource, Default, Debug)]
pub struct BtReloads(pub Vec<String>);

/// Restores a saved tree state ([`SavedTree`]) on this agent once its tree
/// is bound (then the component is removed). What could not be kept is
/// reported in [`BtAgent::problems`]; a state that cannot be restored at all
/// (another tree, a newer format, a running node that changed) leaves the
/// agent starting fresh.
#[derive(Component, Debug, Clone)]
pub struct RestoreTree(pub SavedTree);

/// `Decide`, third: restarts, rate division and the tick of every agent due
/// (in parallel), then the tick's statistics (also published as Bevy
/// diagnostics: [`BtPlugin::TICKED`], [`BtPlugin::DECIDE_MS`]).
#[allow(clippy::too_many_arguments, reason = "a Bevy system's parameters")]
fn tick_trees(
    time: &Time,
    mut settings: ResMut<BtSettings>,
    globals: &BtGlobals,
    world: &BtWorldValues,
    mut stats: ResMut<BtStats>,
    mut diagnostics: Diagnostics,
    tiers: &mut BtTiers,
    listed: &Listed,
    locals: &mut bevy::utils::Parallel<TickLocal>,
    agents: &mut Agents,
) {
    // The world is still loading: no tree starts deciding yet.
    let waiting = settings.wait_for_world && globals.declared() == Declared::Loading;
    // Paused by a debugger: no tree ticks, but for the steps asked.
    let paused = settings.paused && settings.steps == 0;
    stats.paused = waiting || paused;
    if waiting || paused {
        stats.ticked = 0;
        // Held trees tick none (the inspector and a HUD said 1440 a
        // second while paused).
        stats.ticks_per_second = 0.0;
        // No action is listed: while the world loads, a restored agent's
        // action waits for the agent's first tick (how fast the files
        // load changes nothing); paused by a debugger, the actions hold
        // with their trees (the state a breakpoint shows stays as it was,
        // and a run with breakpoints goes as one without).
        return;
    }
    if settings.paused {
        settings.steps -= 1;
    }
    if tiers.waking() > 0 {
        for (e, tier) in &agents.p6() {
            if tier.wakes_on_change() {
                tiers.wake(e);
            }
        }
    }
    tiers.plan();
    let dt = time.delta_secs();
    // What every agent reads, once per update (the step of agents that
    // tick every update rounded once).
    let cx = TickContext {
        settings: &settings,
        world_values: &world.values,
        globals_generation: globals.generation(),
        dt,
        update_step_us: (f64::from(dt) * 1e6).round() as u64,
        tiers,
    };
    let started = std::time::Instant::now();
    // A closure over the context, as the parallel iteration wants it (the
    // compiler inlines it into the iteration's loop).
    // The parallel iteration's closures call `tick_one`, which is inlined
    // into the iteration's loop.
    let init = || {
        let mut local = locals.borrow_local_mut();
        local.posting.begin_run(listed);
        local
    };
    // Agents without a tier, then the tables of the tier groups that may be
    // due (each agent looked at for its group's plan: over budget a due
    // group ticks a share), the tiered agents without a table of their own
    // (each looked at likewise), and the woken agents not in a due table.
    // With one compute thread a parallel iteration only adds its tasks
    // (and, on the single-threaded executor, runs on the main thread).
    let one_thread = bevy::tasks::ComputeTaskPool::try_get().is_none_or(|p| p.thread_num() <= 1);
    macro_rules! tick_all {
        ($query:expr) => {{
            let mut agents = $query;
            if one_thread || agents.iter().len() < PARALLEL_FROM {
                // A parallel iteration hands batches to the compute threads
                // and waits for them: tens of microseconds on a small
                // machine, more than a small crowd's whole tick.
                let mut local = init();
                for item in agents.iter_mut() {
                    tick_one(&mut local, &cx, item);
                }
            } else {
                agents
                    .par_iter_mut()
                    .for_each_init(init, |local, item| tick_one(local, &cx, item));
            }
        }};
    }
    tick_all!(agents.p3());
    if cx.tiers.has_agents() {
        let mut tables = agents.p7();
        for slot in cx.tiers.due_slots() {
            if let Some(group) = tables.group(slot) {
                tick_all!(group);
            }
        }
        // Woken agents in tables not due (one ticked already is not
        // ticked again: its tier step is this step's).
        if cx.tiers.woken().next().is_some() {
            let mut all = tables.all();
            let mut local = init();
            for agent in cx.tiers.woken() {
                if let Ok(item) = all.get_mut(agent) {
                    // A run each: woken agents come in entity order, their
                    // tables mixed (a run's slots are split by table).
                    local.posting.begin_run(listed);
                    tick_one(&mut local, &cx, item);
                }
            }
        }
        tick_all!(agents.p4());
    }
    tiers.ticked();
    let ticked = locals
        .iter_mut()
        .map(|l| std::mem::take(&mut l.ticked))
        .sum();
    publish_stats(&mut stats, &mut diagnostics, ticked, started, dt);
    // A breakpoint hit: the trees pause at the end of this tick.
    if locals.iter_mut().any(|l| !l.hits.is_empty()) {
        settings.paused = true;
        settings.steps = 0;
    }
    // `Act` starts now (its systems run after this one): timed from here
    // to `act_end`, without a system of its own.
    stats.act_start = Some(std::time::Instant::now());
}

/// One agent of the tree tick: its tick, then its entry in the
/// running-actions index. Always inlined: its argument is five component
/// references, copied through memory on every agent when it is a call.
#[inline(always)]
fn tick_one(
    local: &mut TickLocal,
    cx: &TickContext,
    (entity, tree, mut agent, mut bb, mut actions, tier): TickItem,
) {
    // A tiered agent not due in this step is left as it is (nothing of it
    // written or marked changed, its slots not listed); one due ticks over
    // the steps since its last tick, as does the first tick of one whose
    // tier was removed.
    if let Some(t) = tier
        && !cx.tiers.serves(t.group(), entity)
        && !cx.tiers.overdue(t.group(), agent.tier_step)
    {
        return;
    }
    let steps = agent
        .bypass_change_detection()
        .take_tier_steps(cx.tiers.step(), tier.is_some());
    if tier.is_some() && steps.is_none() {
        return;
    }
    let tier_step_us = steps.map(|steps| steps * cx.update_step_us);
    // The tree writes its blackboard only through `SetBlackboard` /
    // `UnsetBlackboard`: the component is marked changed only when one
    // wrote (game systems watching `Changed<Blackboard>` see the
    // tree's writes and nothing else).
    let generation = bb.generation();
    // The ticked count is per thread, borrowed once per batch of
    // agents (one shared atomic would bounce between cores).
    // An agent that did not tick (finished, not due at its rate) is not
    // marked changed: a save of changed agents passes it by.
    let updated = agent.bypass_change_detection().update(
        tree,
        bb.bypass_change_detection(),
        actions.bypass_change_detection(),
        cx,
        tier_step_us,
    );
    if updated == Updated::Ticked {
        local.ticked += 1;
        agent.set_changed();
        actions.set_changed();
    }
    if bb.generation() != generation {
        bb.set_changed();
    }
    let (agent, actions) = (
        agent.bypass_change_detection(),
        actions.bypass_change_detection(),
    );
    let now_ms = agent.state.now_ms;
    // An agent that did not tick (its rate, a finished tree) is listed
    // with what runs, its starts and aborts already told.
    if local.posting.lists_any() {
        local.posting.post(
            entity,
            actions,
            agent.program.as_ref(),
            now_ms,
            updated != Updated::Idle,
        );
    }
    if agent.extras().is_some_and(|x| x.breaks.is_some()) {
        take_break_hit(local, entity, agent);
    }
}

/// A breakpoint that hit in the agent's tick, to report after the tick
/// (apart from `tick_one`: only agents with breakpoints come here).
#[cold]
#[inline(never)]
fn take_break_hit(local: &mut TickLocal, entity: Entity, agent: &mut BtAgent) {
    if let Some(hit) = agent.breaks_mut().and_then(|b| b.hit.take()) {
        local.hits.push(BtBreakpointHit {
            entity,
            tree: agent.tree_source().to_owned(),
            tick: agent.state.ticks(),
            hit,
        });
    }
}

/// The tick's statistics, also published as Bevy diagnostics
/// ([`TICKED`], [`DECIDE_MS`]).
fn publish_stats(
    stats: &mut BtStats,
    diagnostics: &mut Diagnostics,
    ticked: u32,
    started: std::time::Instant,
    dt: f32,
) {
    stats.ticked = ticked;
    stats.decide_ns = started.elapsed().as_nanos() as u64;
    let per_second = ticked as f32 / dt.max(1e-6);
    stats.ticks_per_second = if stats.ticks_per_second == 0.0 {
        per_second
    } else {
        stats.ticks_per_second * 0.9 + per_second * 0.1
    };
    let decide_ms = stats.decide_ns as f64 / 1e6;
    diagnostics.add_measurement(&TICKED, || f64::from(ticked));
    diagnostics.add_measurement(&DECIDE_MS, || decide_ms);
}
