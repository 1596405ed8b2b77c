//! Bevy glue: the tree asset and loader, agent components, systems.

use bevy::app::{App, FixedUpdate, Plugin};
use bevy::asset::AssetApp;
use bevy::diagnostic::{Diagnostic, DiagnosticPath, RegisterDiagnostic};
use bevy::ecs::intern::Interned;
use bevy::ecs::prelude::*;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::time::{Fixed, Time};

use crate::agent::{BehaviorTree, BtAgent};
use crate::asset::{BtAsset, BtLoader};
use crate::blackboard::Blackboard;
use crate::breakpoints::{BtBreakpointHit, BtBreakpoints};
use crate::dispatch::RunningActions;
use crate::registry::{BtRegistry, CustomNode};
use crate::resources::{BtGlobals, BtSettings, BtStats, BtWorldValues};
use crate::runtime::BtActions;
use crate::systems::{
    BtReloads, TreeLoadHints, decide_trees, report_failed_trees, report_undeclared_world_values,
};

/// After `Act`: the action systems' reports written back into the agents'
/// slots ([`RunningActions`]), and `Act`'s time. Exclusive, so that the
/// executor runs it on its own thread instead of handing it to a worker (a
/// few microseconds of work, tens of microseconds of hand-off on a small
/// machine).
fn act_end(
    world: &mut World,
    reports: &mut bevy::ecs::system::SystemState<(ResMut<RunningActions>, Query<&mut BtActions>)>,
) {
    // Fails only without `RunningActions` (the plugin was not built).
    if let Ok((mut running, mut slots)) = reports.get_mut(world) {
        running.write_back(|entity, report| {
            if let Ok(mut actions) = slots.get_mut(entity) {
                actions.take_report(report);
            }
        });
        running.act_ended();
    }
    let Some(mut stats) = world.get_resource_mut::<BtStats>() else {
        return;
    };
    let Some(t) = stats.act_start.take() else {
        return;
    };
    stats.act_ns = t.elapsed().as_nanos() as u64;
    let act_ms = stats.act_ns as f64 / 1e6;
    if let Some(mut store) = world.get_resource_mut::<bevy::diagnostic::DiagnosticsStore>()
        && let Some(d) = store.get_mut(&BtPlugin::ACT_MS)
        && d.is_enabled
    {
        d.add_measurement(bevy::diagnostic::DiagnosticMeasurement {
            time: bevy::platform::time::Instant::now(),
            value: act_ms,
        });
    }
}

/// The behavior-tree system sets, chained in the plugin's schedule
/// ([`BtPlugin::schedule`], `FixedUpdate` by default):
/// - `Sense`: your systems that write blackboards and tags;
/// - `Decide`, one system doing in this order: the world values each
///   program reads are looked up (once per program); agents whose tree is
///   new or whose asset was (re)loaded bind to its program (`AssetChanged`,
///   asked only after a tree asset event); saved states given with
///   [`RestoreTree`](crate::RestoreTree) are restored; then restarts, per-tree rates and the
///   tick of every agent (in parallel from [`BtPlugin::PARALLEL_FROM`]
///   agents when the compute pool has more than one thread; each agent only touches its own components), with the tick's
///   statistics in [`BtStats`] and Bevy's diagnostics ([`BtPlugin::TICKED`],
///   [`BtPlugin::DECIDE_MS`], [`BtPlugin::ACT_MS`]);
/// - `Act`: your action systems read [`BtActions`] and report results.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BtSystems {
    /// Update inputs.
    Sense,
    /// Tick the trees.
    Decide,
    /// Perform actions.
    Act,
}

/// Behavior trees as assets, ticked in `FixedUpdate`.
///
/// Agents are ticked in parallel on Bevy's compute task pool. On machines
/// with few cores Bevy gives that pool only part of them (on 2 cores, one
/// thread: a quarter each goes to IO and async tasks, at least one); when
/// trees are the heavy part of a frame, give it more:
///
/// ```no_run
/// use bevy::prelude::*;
///
/// let mut options = TaskPoolOptions::default();
/// options.compute.min_threads = 2;
/// App::new().add_plugins(MinimalPlugins.set(TaskPoolPlugin { task_pool_options: options }));
/// ```
#[derive(Debug, Clone)]
pub struct BtPlugin {
    /// Sets the app's fixed timestep to this rate; `None` (the default)
    /// leaves `Time<Fixed>` as the app set it (physics and everything else
    /// in `FixedUpdate` share it). Trees tick once per run of the plugin's
    /// schedule, or at their own `BehaviorTree::with_rate`.
    pub tick_hz: Option<f64>,
    /// Restarts allowed per agent per tick (default 8; at most 255 are
    /// counted: a limit above that allows 255).
    pub max_restarts_per_tick: u32,
    /// Record every agent's last N ticks (see [`BtSettings::record_all`]).
    pub record_all: Option<usize>,
    /// The schedule [`BtSystems`] run in (default `FixedUpdate`), like
    /// avian's `PhysicsSchedulePlugin::new(schedule)`.
    pub schedule: Interned<dyn ScheduleLabel>,
    /// Trees wait for their world (see [`BtSettings::wait_for_world`];
    /// default on). For a readiness condition of the game's own, gate the
    /// sets: `app.configure_sets(FixedUpdate, BtSystems::Decide.run_if(my_level_loaded))`.
    pub wait_for_world: bool,
}

impl Default for BtPlugin {
    fn default() -> Self {
        BtPlugin {
            tick_hz: None,
            max_restarts_per_tick: 8,
            record_all: None,
            schedule: FixedUpdate.intern(),
            wait_for_world: true,
        }
    }
}

impl BtPlugin {
    /// Agents from which the tree tick runs in parallel on the compute
    /// threads; fewer are ticked on the system's own thread (handing
    /// batches out and waiting for them costs more than ticking a small
    /// crowd: measured in BENCHMARKS.md). With one compute thread every
    /// crowd is ticked on the system's own thread.
    pub const PARALLEL_FROM: usize = crate::resources::PARALLEL_FROM;

    /// Diagnostic: agents ticked in the last step.
    pub const TICKED: DiagnosticPath = crate::resources::TICKED;
    /// Diagnostic: time in `BtSystems::Decide`'s tick, ms.
    pub const DECIDE_MS: DiagnosticPath = crate::resources::DECIDE_MS;
    /// Diagnostic: time in `BtSystems::Act`, ms.
    pub const ACT_MS: DiagnosticPath = DiagnosticPath::const_new("wyrd_bt/act_ms");

    /// Trees ticked in `schedule` (e.g. `FixedPostUpdate`, or `Update` for
    /// a frame-rate tick) instead of `FixedUpdate`. Time advances by that
    /// schedule's `Time` delta.
    pub fn new(schedule: impl ScheduleLabel) -> Self {
        BtPlugin {
            schedule: schedule.intern(),
            ..Default::default()
        }
    }
}

impl Plugin for BtPlugin {
    fn build(&self, app: &mut App) {
        app.world_mut().get_resource_or_init::<BtRegistry>();
        app.init_asset::<BtAsset>()
            .init_asset_loader::<BtLoader>()
            // For bevy-inspector-egui and the Bevy Remote Protocol.
            .register_type::<BehaviorTree>()
            .register_type::<BtAgent>()
            .register_type::<Blackboard>()
            .register_type::<BtActions>()
            .register_type::<BtGlobals>()
            .register_type::<BtStats>()
            .register_type::<BtSettings>()
            .register_type::<BtRegistry>()
            .init_resource::<BtGlobals>()
            .init_resource::<BtReloads>()
            .init_resource::<TreeLoadHints>()
            .register_type::<BtReloads>()
            .init_resource::<BtWorldValues>()
            .init_resource::<RunningActions>()
            .init_resource::<crate::tier::BtTiers>()
            .register_type::<crate::tier::BtTier>()
            .init_resource::<BtBreakpoints>()
            .add_message::<BtBreakpointHit>()
            .register_diagnostic(Diagnostic::new(BtPlugin::TICKED).with_smoothing_factor(0.1))
            .register_diagnostic(
                Diagnostic::new(BtPlugin::DECIDE_MS)
                    .with_suffix(" ms")
                    .with_smoothing_factor(0.1),
            )
            .register_diagnostic(
                Diagnostic::new(BtPlugin::ACT_MS)
                    .with_suffix(" ms")
                    .with_smoothing_factor(0.1),
            )
            .insert_resource(BtSettings {
                max_restarts_per_tick: self.max_restarts_per_tick,
                record_all: self.record_all,
                paused: false,
                steps: 0,
                wait_for_world: self.wait_for_world,
            })
            .configure_sets(
                self.schedule,
                (BtSystems::Sense, BtSystems::Decide, BtSystems::Act).chain(),
            )
            .init_resource::<BtStats>()
            .add_systems(
                self.schedule,
                // One system for the whole of Decide (see `decide_trees`).
                decide_trees.in_set(BtSystems::Decide),
            )
            .add_systems(
                self.schedule,
                // Only while some tree names an undeclared world value.
                report_undeclared_world_values
                    .after(decide_trees)
                    .in_set(BtSystems::Decide)
                    .run_if(|w: Res<BtWorldValues>| !w.undeclared.is_empty()),
            )
            .add_systems(
                self.schedule,
                // Only in the updates a tree file failed to load.
                report_failed_trees
                    .before(decide_trees)
                    .in_set(BtSystems::Decide)
                    .run_if(on_message::<bevy::asset::AssetLoadFailedEvent<BtAsset>>),
            )
            .add_systems(self.schedule, act_end.after(BtSystems::Act));
        if let Some(hz) = self.tick_hz {
            app.insert_resource(Time::<Fixed>::from_hz(hz));
        }
    }
}

/// Edits the app's vocabulary (the [`BtRegistry`], made if missing): what
/// every `register_bt_*` does.
fn edit_vocabulary(app: &mut App, f: impl FnOnce(&mut crate::Vocabulary)) {
    app.world_mut()
        .get_resource_or_init::<BtRegistry>()
        .clone()
        .edit(f);
}

/// Registration of game code's actions, predicates and nodes.
pub trait BtAppExt {
    /// Registers an action name trees may use.
    fn register_bt_action(&mut self, name: &str) -> &mut Self;
    /// Registers an action whose parameters are named by the world values
    /// (flags and counters) it writes, `GrantReward(params: {"COINS":
    /// 100})`: each name is checked as a `World(..)` condition's is, when
    /// the tree loads and by `wyrd check` (a misspelt flag only failed
    /// when its branch ran).
    fn register_bt_world_action(&mut self, name: &str) -> &mut Self;
    /// Registers a predicate trees may use in `Predicate("name")`.
    fn register_bt_predicate(
        &mut self,
        name: &str,
        f: impl Fn(&Blackboard) -> bool + Send + Sync + 'static,
    ) -> &mut Self;
    /// Registers a predicate that takes arguments:
    /// `Predicate("within", {"of": "{target}", "meters": 8.0})`.
    fn register_bt_predicate_with(
        &mut self,
        name: &str,
        f: impl Fn(&Blackboard, &crate::PredicateArgs<'_>) -> bool + Send + Sync + 'static,
    ) -> &mut Self;
    /// Registers a predicate with the arguments it reads, by name and type:
    /// `app.register_bt_predicate_args("within", &[("of", ValueType::Vec3),
    /// ("meters", ValueType::Float)], |bb, args| ..)`. Trees calling it are
    /// checked when they load and by `wyrd check`: an argument misspelt,
    /// missing or of another type is an error at its place (with
    /// [`register_bt_predicate_with`](Self::register_bt_predicate_with) it
    /// reads as missing, and the predicate decides what that means).
    fn register_bt_predicate_args(
        &mut self,
        name: &str,
        args: &[(&'static str, crate::ValueType)],
        f: impl Fn(&Blackboard, &crate::PredicateArgs<'_>) -> bool + Send + Sync + 'static,
    ) -> &mut Self;
    /// Registers a custom composite or decorator for `Custom(kind: "name")`.
    fn register_bt_node(&mut self, kind: &str, node: impl CustomNode) -> &mut Self;
    /// Registers an action type ([`bt_action!`](crate::bt_action)): its
    /// name, id and parameter schema, checked in every tree that uses it.
    fn add_bt_action<A: crate::BtAction>(&mut self) -> &mut Self;
    /// Writes what the app registered so far (actions with their schemas,
    /// predicates, custom nodes, the world state's flags files) as a
    /// [vocabulary file](crate::VocabularyFile) for `wyrd check
    /// --vocabulary`. Call it after adding the game's plugins, e.g. from a
    /// test or a `--vocabulary FILE` flag of the game. The file is written
    /// only when its content changed (so that a checked-in copy keeps its
    /// timestamp).
    fn write_bt_vocabulary(&mut self, path: impl AsRef<std::path::Path>) -> std::io::Result<()>;
}

impl BtAppExt for App {
    fn register_bt_action(&mut self, name: &str) -> &mut Self {
        edit_vocabulary(self, |v| {
            v.add_action(name);
        });
        self
    }

    fn register_bt_world_action(&mut self, name: &str) -> &mut Self {
        edit_vocabulary(self, |v| {
            v.add_world_action(name);
        });
        self
    }

    fn register_bt_predicate(
        &mut self,
        name: &str,
        f: impl Fn(&Blackboard) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        edit_vocabulary(self, |v| {
            v.add_predicate(name, f);
        });
        self
    }

    fn register_bt_predicate_with(
        &mut self,
        name: &str,
        f: impl Fn(&Blackboard, &crate::PredicateArgs<'_>) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        edit_vocabulary(self, |v| {
            v.add_predicate_with(name, f);
        });
        self
    }

    fn register_bt_predicate_args(
        &mut self,
        name: &str,
        args: &[(&'static str, crate::ValueType)],
        f: impl Fn(&Blackboard, &crate::PredicateArgs<'_>) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        edit_vocabulary(self, |v| {
            v.add_predicate_args(name, args, f);
        });
        self
    }

    fn register_bt_node(&mut self, kind: &str, node: impl CustomNode) -> &mut Self {
        edit_vocabulary(self, |v| {
            v.add_custom(kind, node);
        });
        self
    }

    fn add_bt_action<A: crate::BtAction>(&mut self) -> &mut Self {
        edit_vocabulary(self, |v| {
            v.add_action_type::<A>();
        });
        self
    }

    fn write_bt_vocabulary(&mut self, path: impl AsRef<std::path::Path>) -> std::io::Result<()> {
        let vocabulary = self
            .world_mut()
            .get_resource_or_init::<BtRegistry>()
            .snapshot();
        let text = crate::VocabularyFile::of(&vocabulary).to_json();
        let path = path.as_ref();
        if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
            return Ok(());
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, text)
    }
}
