//! Breakpoints in a running game ([`BtBreakpointsPlugin`]): the
//! [`BtBreakpoints`] resource (per tree file, as breakpoints files write
//! them), the `*.breakpoints.ron` asset that fills it and follows the
//! file's edits, and the system that hands each agent the breakpoints that
//! apply to it. When one hits, the trees pause at the end of that tick
//! ([`BtSettings::paused`](crate::BtSettings::paused)), the hit is in
//! [`BtBreakpoints::last_hit`] and a [`BtBreakpointHit`] message tells the
//! debugger which agent and why; step or resume with
//! [`BtSettings::steps`](crate::BtSettings::steps) / `paused = false`.

use std::collections::HashMap;
use std::sync::Arc;

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, Assets, LoadContext};
use bevy::ecs::prelude::*;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::log::warn;
use bevy::reflect::TypePath;

use crate::agent::{BehaviorTree, BtAgent};
use crate::breakpoints::{
    AgentBreaks, BreakpointError, Breakpoints, BreakpointsDef, BtBreakpointHit, BtBreakpoints,
};
use crate::program::Program;

/// Breakpoints in an app: the `*.breakpoints.ron` asset and the system
/// that hands agents their breakpoints, in the trees' schedule (the one
/// given to [`BtPlugin`](crate::BtPlugin); `FixedUpdate` by default). Add it
/// with [`BtPlugin`](crate::BtPlugin) while debugging (the inspector adds
/// it): without it no agent has breakpoints and nothing runs for them. It
/// is not part of `BtPlugin` because an asset type alone adds systems that
/// run every frame.
#[derive(Debug, Clone)]
pub struct BtBreakpointsPlugin {
    /// The schedule the trees tick in.
    pub schedule: bevy::ecs::intern::Interned<dyn ScheduleLabel>,
    /// Ticks of flight recording each agent a breakpoint watches keeps
    /// (the lead-up a debugger shows when one hits; 0: none). 300 by
    /// default: ten seconds at 30 Hz. Only agents some breakpoint applies
    /// to record (a breakpoint for every agent of a crowd makes the whole
    /// crowd record: set `agent` or lower this for big crowds).
    pub record: usize,
}

impl Default for BtBreakpointsPlugin {
    fn default() -> Self {
        BtBreakpointsPlugin {
            schedule: bevy::app::FixedUpdate.intern(),
            record: 300,
        }
    }
}

/// Set once [`BtBreakpointsPlugin`] built its systems (a second add only
/// sets `record`).
#[derive(Resource)]
struct BreakpointsBuilt;

impl bevy::app::Plugin for BtBreakpointsPlugin {
    fn build(&self, app: &mut bevy::app::App) {
        use bevy::asset::AssetApp;
        app.init_resource::<BtBreakpoints>();
        app.world_mut().resource_mut::<BtBreakpoints>().record = self.record;
        // The inspector and the remote plugin add it when the game did not
        // (yet): the game's own, added after them, sets its `record`.
        if app.world().contains_resource::<BreakpointsBuilt>() {
            return;
        }
        app.insert_resource(BreakpointsBuilt);
        app.add_message::<BtBreakpointHit>()
            .init_asset::<BtBreakpointsFile>()
            .init_asset_loader::<BtBreakpointsLoader>()
            .add_systems(
                self.schedule,
                (
                    // When a breakpoints file loaded or changed (resource
                    // change ticks, not messages: a message can pass
                    // between two fixed steps).
                    merge_breakpoint_files.run_if(resource_changed::<Assets<BtBreakpointsFile>>),
                    // Only while some tree has breakpoints, or they changed.
                    bind_breakpoints
                        .run_if(|b: Res<BtBreakpoints>| b.is_changed() || !b.is_empty()),
                )
                    .chain()
                    .in_set(crate::BtSystems::Decide)
                    .before(crate::systems::decide_trees),
            );
    }

    /// Added again (after the inspector or the remote plugin added it for
    /// the game), it only sets its `record`: no panic over the order.
    fn is_unique(&self) -> bool {
        false
    }
}

/// A `*.breakpoints.ron` file, loaded as an asset: its breakpoints go to
/// [`BtBreakpoints`] under the tree file beside it
/// (`combat.breakpoints.ron` → `combat.bt.ron`), again at every edit when
/// Bevy watches files. Load it like any asset and keep the handle:
/// `asset_server.load::<BtBreakpointsFile>("squad_ai/combat.breakpoints.ron")`.
#[derive(Asset, TypePath, Debug, Clone)]
pub struct BtBreakpointsFile {
    /// The tree file the breakpoints are for.
    pub tree: String,
    /// The breakpoints.
    pub def: BreakpointsDef,
}

/// Loads `*.breakpoints.ron` files.
#[derive(Default, TypePath)]
pub struct BtBreakpointsLoader;

impl AssetLoader for BtBreakpointsLoader {
    type Asset = BtBreakpointsFile;
    type Settings = ();
    type Error = BreakpointError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<BtBreakpointsFile, BreakpointError> {
        let file = ctx.path().path().to_string_lossy().replace('\\', "/");
        let mut bytes = Vec::new();
        let text = match reader.read_to_end(&mut bytes).await {
            Ok(_) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                return Err(BreakpointError::Syntax {
                    file,
                    line: 1,
                    column: 1,
                    message: e.to_string(),
                });
            }
        };
        let def = BreakpointsDef::parse(&file, &text)?;
        let tree = match file.strip_suffix(".breakpoints.ron") {
            Some(stem) => format!("{stem}.bt.ron"),
            None => file,
        };
        Ok(BtBreakpointsFile { tree, def })
    }

    fn extensions(&self) -> &[&str] {
        &["breakpoints.ron"]
    }
}

/// Loaded and edited breakpoints files go into [`BtBreakpoints`] (a file
/// whose breakpoints did not change leaves the resource alone).
fn merge_breakpoint_files(
    files: Res<Assets<BtBreakpointsFile>>,
    mut breakpoints: ResMut<BtBreakpoints>,
) {
    for (_, f) in files.iter() {
        if breakpoints.get(&f.tree) != Some(&f.def) {
            breakpoints.set(f.tree.clone(), f.def.clone());
        }
    }
}

/// Resolved breakpoints per program (its address and content hash; a bad
/// breakpoint is reported once per version of the tree).
type ResolvedCache = HashMap<(usize, u64), Option<Arc<Breakpoints>>>;

/// Hands each agent the breakpoints of its tree that apply to it (by its
/// `Name`), resolved against the program it runs; again when the
/// breakpoints change or the agent's tree is reloaded. Runs only while
/// some tree has breakpoints (and once after the last is removed).
/// A bad breakpoint is logged (file, number, what is wrong) and the tree's
/// breakpoints are not used until it is fixed.
fn bind_breakpoints(
    breakpoints: Res<BtBreakpoints>,
    mut cache: Local<ResolvedCache>,
    mut seen: Local<u64>,
    mut agents: Query<(&mut BtAgent, Option<&Name>), With<BehaviorTree>>,
) {
    let changed = std::mem::replace(&mut *seen, breakpoints.generation) != breakpoints.generation;
    if changed {
        cache.clear();
    }
    for (mut agent, name) in &mut agents {
        let Some(program) = agent.program.clone() else {
            continue;
        };
        let bound_to = Arc::as_ptr(&program) as usize;
        let bound_before = agent.extras().map_or(0, |x| x.breaks_bound_to);
        if bound_before == bound_to && !changed {
            continue;
        }
        let name = name.map(|n| n.as_str().to_owned());
        let resolved = resolve_cached(&breakpoints, &mut cache, &program);
        let applies = resolved
            .as_ref()
            .filter(|b| !b.is_empty() && b.applies_to(name.as_deref()));
        let x = agent.extras_mut();
        x.breaks_bound_to = bound_to;
        x.breaks = applies.map(|b| Box::new(AgentBreaks::new(b.clone(), name, breakpoints.record)));
        keep_lead_up(&mut agent, breakpoints.record);
        // The breakpoints read what the tick did.
        let tracing = agent.trace().is_some();
        agent.set_tracing(tracing);
    }
}

/// An agent a breakpoint watches records its last ticks (unless it
/// records already); one no longer watched stops the recording that
/// watching started.
fn keep_lead_up(agent: &mut BtAgent, ticks: usize) {
    let x = agent.extras();
    let watched = x.is_some_and(|x| x.breaks.is_some());
    let records = x.is_some_and(|x| x.recorder.is_some() || x.record_request.is_some());
    let for_breaks = x.is_some_and(|x| x.recording_for_breaks);
    if watched && ticks > 0 && !records {
        agent.record(ticks);
        agent.extras_mut().recording_for_breaks = true;
    } else if !watched && for_breaks {
        agent.stop_lead_up();
    }
}

fn resolve_cached(
    breakpoints: &BtBreakpoints,
    cache: &mut ResolvedCache,
    program: &Arc<Program>,
) -> Option<Arc<Breakpoints>> {
    let key = (Arc::as_ptr(program) as usize, program.content_hash);
    cache
        .entry(key)
        .or_insert_with(|| {
            let def = breakpoints.get(&program.source)?;
            // Named as the file beside the tree they load from.
            let file = program.source.strip_suffix(".bt.ron").map_or_else(
                || format!("{} (breakpoints)", program.source),
                |stem| format!("{stem}.breakpoints.ron"),
            );
            match Breakpoints::resolve(def, program, &file) {
                Ok(b) => Some(Arc::new(b)),
                Err(errors) => {
                    for e in errors {
                        warn!("{e}");
                    }
                    None
                }
            }
        })
        .clone()
}
