//! Bevy glue: the tree asset and loader, agent components, systems.

use std::collections::HashMap;
use std::sync::Arc;

use bevy::app::{App, FixedUpdate, Plugin};
use bevy::asset::io::Reader;
use bevy::asset::prelude::AssetChanged;
use bevy::asset::{AsAssetId, AssetId};
use bevy::asset::{Asset, AssetApp, AssetLoader, Assets, Handle, LoadContext};
use bevy::diagnostic::{Diagnostic, DiagnosticPath, Diagnostics, RegisterDiagnostic};
use bevy::ecs::intern::Interned;
use bevy::ecs::prelude::*;
use bevy::ecs::schedule::ScheduleLabel;
use bevy::log::{error, info, warn};
use bevy::reflect::Reflect;
use bevy::reflect::TypePath;
use bevy::reflect::std_traits::ReflectDefault;
use bevy::time::{Fixed, Time};

use crate::blackboard::Blackboard;
use crate::compile::{BtError, BtProblem, ParsedFile, compile, file_refs, parse_tree};
use crate::dispatch::RunningActions;
use crate::persist::{RestoreReport, SavedTree, diff, restore};
use crate::problem::AgentProblem;
use crate::program::Program;
use crate::recorder::{Recorder, Recording};
use crate::registry::{BtRegistry, CustomNode};
use crate::runtime::{
    AgentState, BtActions, ListingChange, Status, StimulusError, TickEnv, TickTrace,
    tick_agent_traced,
};
use crate::value::Value;

/// A loaded, compiled behavior tree (`*.bt.ron`).
#[derive(Asset, TypePath, Debug, Clone)]
pub struct BtAsset {
    /// The compiled program, shared by every agent that runs it.
    pub program: Arc<Program>,
}

/// Loads and compiles `*.bt.ron` files, checking names against the app's
/// [`BtRegistry`]. A bad file is an error (with file:line:column); the
/// previous version of an asset, if any, stays in use.
#[derive(TypePath)]
pub struct BtLoader {
    registry: BtRegistry,
}

impl FromWorld for BtLoader {
    fn from_world(world: &mut World) -> Self {
        BtLoader {
            registry: world.get_resource_or_init::<BtRegistry>().clone(),
        }
    }
}

/// A load error in the log as `wyrd check` shows it, with the source line
/// and a caret, before Bevy's own "Failed to load asset" line.
fn log_with_source(e: &BtError, text: Option<&str>) {
    match text {
        Some(t) => error!("{}", e.with_source(t)),
        None => error!("{e}"),
    }
}

impl AssetLoader for BtLoader {
    type Asset = BtAsset;
    type Settings = ();
    type Error = BtError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        ctx: &mut LoadContext<'_>,
    ) -> Result<BtAsset, BtError> {
        let main = ctx.path().path().to_string_lossy().replace('\\', "/");
        let io = |file: &str, error: String| BtError {
            file: file.to_owned(),
            line: 1,
            column: 1,
            problem: BtProblem::Io {
                file: file.to_owned(),
                error,
            },
        };
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| io(&main, e.to_string()))?;
        let mut files: HashMap<String, ParsedFile> = HashMap::new();
        let mut todo = vec![(main.clone(), Some(bytes))];
        while let Some((path, bytes)) = todo.pop() {
            if files.contains_key(&path) {
                continue;
            }
            let bytes = match bytes {
                Some(b) => b,
                // Other files become dependencies: editing them reloads
                // this tree too.
                None => ctx
                    .read_asset_bytes(path.clone())
                    .await
                    .map_err(|e| io(&path, e.to_string()))?,
            };
            let (def, text) = parse_tree(&path, &bytes)
                .inspect_err(|e| log_with_source(e, Some(&String::from_utf8_lossy(&bytes))))?;
            for r in file_refs(&path, &def) {
                todo.push((r, None));
            }
            files.insert(path, ParsedFile { def, text });
        }
        let vocab = self.registry.snapshot();
        let program = compile(&main, &files, &vocab)
            .inspect_err(|e| log_with_source(e, files.get(&e.file).map(|f| f.text.as_str())))?;
        Ok(BtAsset {
            program: Arc::new(program),
        })
    }

    fn extensions(&self) -> &[&str] {
        &["bt.ron"]
    }
}

/// World values trees read with `World("NAME", Op, value)`: the world
/// state's flags and counters (published by `wyrd_state` with feature `bt`)
/// or anything else the game publishes. Read-only during the tick.
#[derive(Resource, Debug, Clone, Default, Reflect)]
#[reflect(Resource, Default, Debug)]
pub struct BtGlobals {
    index: HashMap<String, usize>,
    values: Vec<Value>,
    generation: u64,
    declared: Declared,
}

/// Whether every world value trees may read is published yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Reflect)]
pub enum Declared {
    /// The game publishes values itself (no declarations): a name not
    /// published is warned about as "not published (yet)".
    #[default]
    ByTheGame,
    /// The declarations (the world state's flags files) are still loading:
    /// a name not published is not reported yet.
    Loading,
    /// Every declared value is published: a name not published is declared
    /// nowhere, an error.
    Complete,
}

impl BtGlobals {
    /// Says whether the declared world values are all published (the
    /// world state sets it when its flags files have merged).
    pub fn set_declared(&mut self, declared: Declared) {
        self.declared = declared;
    }

    /// Whether the declared world values are all published.
    pub fn declared(&self) -> Declared {
        self.declared
    }

    /// Publishes (or updates) a value.
    pub fn set(&mut self, name: &str, value: impl Into<Value>) {
        let value = value.into();
        match self.index.get(name) {
            Some(&i) => {
                if self.values[i] != value {
                    self.values[i] = value;
                    self.generation += 1;
                }
            }
            None => {
                self.index.insert(name.to_owned(), self.values.len());
                self.values.push(value);
                self.generation += 1;
            }
        }
    }

    /// A value by name.
    pub fn get(&self, name: &str) -> Option<Value> {
        self.index.get(name).map(|&i| self.values[i])
    }

    /// Bumped on every change.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// Tick statistics (for the inspector and on-screen counters).
#[derive(Resource, Debug, Clone, Copy, Default, Reflect)]
#[reflect(Resource, Default, Debug)]
pub struct BtStats {
    /// Agents ticked in the last fixed step.
    pub ticked: u32,
    /// Time in `BtSystems::Decide`'s tick, last step, in nanoseconds.
    pub decide_ns: u64,
    /// Time in `BtSystems::Act`, last step, in nanoseconds.
    pub act_ns: u64,
    /// Agent ticks per second (smoothed).
    pub ticks_per_second: f32,
    act_start: Option<std::time::Instant>,
}

/// After `Act`: its time. Exclusive, so that the executor runs it on its
/// own thread instead of handing it to a worker (a few microseconds of
/// work, tens of microseconds of hand-off on a small machine).
fn act_end(world: &mut World) {
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

/// The world values each program reads, looked up once per program and
/// tick ([`publish_world_values`]), shared read-only by every agent that runs
/// it.
#[derive(Resource, Default)]
struct BtWorldValues {
    values: HashMap<bevy::asset::AssetId<BtAsset>, Vec<Option<Value>>>,
    reported: std::collections::HashSet<(bevy::asset::AssetId<BtAsset>, usize)>,
    /// Per tree: its world names no declaration has (once every declared
    /// value is published), as problems for its agents.
    undeclared: HashMap<bevy::asset::AssetId<BtAsset>, Vec<AgentProblem>>,
    /// Bumped when `undeclared` grows: agents bound before get theirs.
    undeclared_gen: u64,
}

/// What happens when the root finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Reflect)]
pub enum RunMode {
    /// Start again as soon as the root finishes: a new activation of the
    /// root begins in the same tick it finished (the tick reports the
    /// finished cycle's status; no idle tick between cycles). For AI.
    #[default]
    Repeat,
    /// Stay finished until [`BtAgent::restart`] (evaluations, rule sessions).
    Once,
}

/// Runs a behavior tree on this entity.
#[derive(Component, Debug, Clone, Reflect)]
#[reflect(Component, Debug)]
#[require(BtAgent, Blackboard, BtActions)]
pub struct BehaviorTree {
    /// The tree.
    pub handle: Handle<BtAsset>,
    /// Ticks per second for this agent (`None`: every fixed step of the
    /// schedule, Bevy's `Time<Fixed>`: 64 Hz unless the game sets it).
    /// Lower it for distant agents.
    pub rate_hz: Option<f32>,
    /// Repeat or run once.
    pub mode: RunMode,
    /// Seed of the agent's random choices (same seed, same inputs: same run).
    pub seed: u64,
}

/// Lets `AssetChanged<BehaviorTree>` find agents whose tree asset was
/// (re)loaded.
impl AsAssetId for BehaviorTree {
    type Asset = BtAsset;

    fn as_asset_id(&self) -> AssetId<BtAsset> {
        self.handle.id()
    }
}

impl BehaviorTree {
    /// Runs `handle` at the plugin's rate, repeating.
    pub fn new(handle: Handle<BtAsset>) -> Self {
        BehaviorTree {
            handle,
            rate_hz: None,
            mode: RunMode::Repeat,
            seed: 0,
        }
    }

    /// Ticks this agent `hz` times per second.
    pub fn with_rate(mut self, hz: f32) -> Self {
        self.rate_hz = Some(hz);
        self
    }

    /// Runs once instead of repeating.
    pub fn once(mut self) -> Self {
        self.mode = RunMode::Once;
        self
    }

    /// Seeds the agent's random choices.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

/// The tree state of an agent (added with [`BehaviorTree`]).
#[derive(Component, Debug, Default, Reflect)]
#[reflect(Component, Default, Debug, from_reflect = false)]
// In this order: what every tick reads first (the tree state, the program,
// the clock, the recorder and trace pointers), in two cache lines; what
// only some ticks read after it.
#[repr(C)]
pub struct BtAgent {
    /// Node statuses, rule flags, timers, stimuli.
    #[reflect(ignore)]
    state: AgentState,
    // The program and the packed tree state are the interpreter's: tools
    // read them through `BtAgent::state` and `Program`'s views.
    #[reflect(ignore)]
    program: Option<Arc<Program>>,
    /// The agent's clock in µs (agent time in ms is derived from it).
    clock_us: u64,
    /// What the last tick did, when tracing is on ([`BtAgent::set_tracing`]).
    #[reflect(ignore)]
    trace: Option<Box<TickTrace>>,
    /// The flight recorder, when this agent records.
    #[reflect(ignore)]
    recorder: Option<Box<Recorder>>,
    /// Asked to start recording this many ticks at the next tick.
    record_request: Option<usize>,
    /// Unset keys already reported (see `AgentState::unset_reads`).
    unset_reported: u64,
    accum: f32,
    restarts_this_tick: u32,
    finished: bool,
    restart: bool,
    /// What went wrong (each once), for the inspector and tests.
    #[reflect(ignore)]
    problems: Vec<AgentProblem>,
    /// What the last restore of a saved state kept and did not.
    #[reflect(ignore)]
    restored: Option<RestoreReport>,
}

impl BtAgent {
    /// What went wrong with this agent (binding, restoring, reading an
    /// unset key, an action's parameters), each once, oldest first.
    pub fn problems(&self) -> &[AgentProblem] {
        &self.problems
    }

    /// Adds a problem unless the agent has it already; `true` when it is
    /// new (log it then). For plugins that restore agents.
    pub fn add_problem(&mut self, problem: AgentProblem) -> bool {
        if self.problems.contains(&problem) {
            return false;
        }
        self.problems.push(problem);
        true
    }

    /// What the last restore of a saved state ([`RestoreTree`]) kept and
    /// could not keep; `None` if the agent was not restored. (A restore
    /// that keeps less than everything is not a problem: an edited tree
    /// keeps what it can.)
    pub fn restore_report(&self) -> Option<&RestoreReport> {
        self.restored.as_ref()
    }

    /// The tree file the agent runs (`""` before its tree is bound).
    pub fn tree_source(&self) -> &str {
        self.program.as_ref().map_or("", |p| p.source.as_str())
    }

    /// The leaf data (name, parameters) of a running action.
    pub fn action_info(&self, action: &crate::ActiveAction) -> Option<&crate::ActionInfo> {
        self.program.as_ref()?.action_of(action.node)
    }

    /// A running action's parameters as its [`BtAction`](crate::BtAction)
    /// type, read by position (the tree was checked against the schema
    /// when it loaded).
    pub fn read_action<A: crate::BtAction>(
        &self,
        action: &crate::ActiveAction,
        blackboard: &Blackboard,
    ) -> Result<A, crate::ParamError> {
        let info = self
            .action_info(action)
            .ok_or_else(|| crate::ParamError::Missing {
                action: A::NAME.to_owned(),
                name: "(no program)".into(),
            })?;
        A::read(info, blackboard)
    }

    /// The agent's tree state: node statuses and rule flags, timers,
    /// stimuli (read it with [`AgentState`]'s and the
    /// [`Program`]'s views).
    pub fn state(&self) -> &AgentState {
        &self.state
    }

    /// Records what each tick does (nodes ticked, actions started /
    /// finished / aborted) for [`BtAgent::trace`]. Off by default: an agent
    /// that is not traced pays nothing. The inspector turns it on for the
    /// agent it shows.
    pub fn set_tracing(&mut self, on: bool) {
        // The flight recorder reads the trace: it stays while recording.
        let on = on || self.recorder.is_some();
        match (on, self.trace.is_some()) {
            (true, false) => self.trace = Some(Box::default()),
            (false, true) => self.trace = None,
            _ => {}
        }
    }

    /// What the last tick did, if tracing is on.
    pub fn trace(&self) -> Option<&TickTrace> {
        self.trace.as_deref()
    }

    /// Starts the flight recorder at the next tick, keeping the last
    /// `ticks` ticks (from the agent's state now: see [`Recorder`]).
    /// Tracing is on while it records.
    pub fn record(&mut self, ticks: usize) {
        self.record_request = Some(ticks.max(1));
    }

    /// The agent's tree state keyed by node paths, to save with the game
    /// (restore it with [`RestoreTree`]); `None` before the tree is bound.
    pub fn save_state(&self, blackboard: &Blackboard, actions: &BtActions) -> Option<SavedTree> {
        let p = self.program.as_ref()?;
        Some(self.state.save(p, actions, blackboard, self.clock_us))
    }

    /// Stops and drops the flight recorder.
    pub fn stop_recording(&mut self) {
        self.recorder = None;
        self.record_request = None;
    }

    /// The flight recorder, while recording.
    pub fn recorder(&self) -> Option<&Recorder> {
        self.recorder.as_deref()
    }

    /// What the recorder holds, as a file's data
    /// ([`Recording`], replayed with `wyrd sim --replay`).
    pub fn recording(&self) -> Option<Recording> {
        Some(self.recorder.as_ref()?.recording(self.program.as_ref()?))
    }

    /// The program the agent runs, once loaded.
    pub fn program(&self) -> Option<&Arc<Program>> {
        self.program.as_ref()
    }

    /// The root's status after the last tick.
    pub fn status(&self) -> Status {
        self.state.status
    }

    /// Whether a [`RunMode::Once`] tree has finished.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Asks for a clean restart (all nodes reset, actions aborted) on the
    /// next tick. Bounded: more than [`BtPlugin::max_restarts_per_tick`] in
    /// one tick is reported as an error.
    pub fn restart(&mut self) {
        self.restart = true;
    }

    /// Inserts a named behavior at the composite `at` (a path) for
    /// `seconds`. See [`AgentState::insert_stimulus`].
    pub fn insert_stimulus(
        &mut self,
        at: &str,
        behavior: &str,
        priority: u16,
        seconds: f32,
    ) -> Result<(), StimulusError> {
        let Some(p) = &self.program else {
            return Err(StimulusError::NotBound);
        };
        self.state
            .insert_stimulus(p, at, behavior, priority, seconds)?;
        if let (Some(rec), Some(&root)) = (self.recorder.as_mut(), p.detached.get(behavior)) {
            rec.note_stimulus(&self.state, root);
        }
        Ok(())
    }

    /// Paths of the leaves running after the last tick.
    pub fn active_paths(&self) -> Vec<String> {
        match &self.program {
            Some(p) => self
                .state
                .active_leaves(p)
                .map(|i| self.state.display_path(p, i))
                .collect(),
            None => Vec::new(),
        }
    }
}

/// The behavior-tree system sets, chained in the plugin's schedule
/// ([`BtPlugin::schedule`], `FixedUpdate` by default):
/// - `Sense`: your systems that write blackboards and tags;
/// - `Decide`, one system doing in this order: the world values each
///   program reads are looked up (once per program); agents whose tree is
///   new or whose asset was (re)loaded bind to its program (`AssetChanged`,
///   asked only after a tree asset event); saved states given with
///   [`RestoreTree`] are restored; then restarts, per-tree rates and the
///   tick of every agent (in parallel from [`BtPlugin::PARALLEL_FROM`]
///   agents; each agent only touches its own components), with the tick's
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

/// Runtime settings of the plugin.
#[derive(Resource, Debug, Clone, Copy, Reflect)]
#[reflect(Resource, Debug)]
pub struct BtSettings {
    /// Restarts allowed per agent per tick before it is an error.
    pub max_restarts_per_tick: u32,
    /// Record every agent's last N ticks (the flight recorder; `None`, the
    /// default: only agents asked with [`BtAgent::record`]).
    pub record_all: Option<usize>,
    /// Trees do not tick (a debugger's pause; the rest of the game runs).
    pub paused: bool,
    /// While paused: ticks still to run (a debugger's single step).
    pub steps: u32,
    /// Trees wait for their world: no tree ticks while the declared world
    /// values are still loading ([`Declared::Loading`]: the world state's
    /// flags files), so that an agent's first tick, its clock and its first
    /// decisions do not depend on how fast the files load. Default on.
    pub wait_for_world: bool,
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
    /// Restarts allowed per agent per tick (default 8).
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
    /// crowd: measured in BENCHMARKS.md).
    pub const PARALLEL_FROM: usize = 1024;

    /// Diagnostic: agents ticked in the last step.
    pub const TICKED: DiagnosticPath = DiagnosticPath::const_new("wyrd_bt/ticked");
    /// Diagnostic: time in `BtSystems::Decide`'s tick, ms.
    pub const DECIDE_MS: DiagnosticPath = DiagnosticPath::const_new("wyrd_bt/decide_ms");
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
            .register_type::<BtReloads>()
            .init_resource::<BtWorldValues>()
            .init_resource::<RunningActions>()
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
            .add_systems(self.schedule, act_end.after(BtSystems::Act));
        if let Some(hz) = self.tick_hz {
            app.insert_resource(Time::<Fixed>::from_hz(hz));
        }
    }
}

/// Registration of game code's actions, predicates and nodes.
pub trait BtAppExt {
    /// Registers an action name trees may use.
    fn register_bt_action(&mut self, name: &str) -> &mut Self;
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
        let reg = self
            .world_mut()
            .get_resource_or_init::<BtRegistry>()
            .clone();
        reg.edit(|v| v.add_action(name));
        self
    }

    fn register_bt_predicate(
        &mut self,
        name: &str,
        f: impl Fn(&Blackboard) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        let reg = self
            .world_mut()
            .get_resource_or_init::<BtRegistry>()
            .clone();
        reg.edit(|v| v.add_predicate(name, f));
        self
    }

    fn register_bt_predicate_with(
        &mut self,
        name: &str,
        f: impl Fn(&Blackboard, &crate::PredicateArgs<'_>) -> bool + Send + Sync + 'static,
    ) -> &mut Self {
        let reg = self
            .world_mut()
            .get_resource_or_init::<BtRegistry>()
            .clone();
        reg.edit(|v| v.add_predicate_with(name, f));
        self
    }

    fn register_bt_node(&mut self, kind: &str, node: impl CustomNode) -> &mut Self {
        let reg = self
            .world_mut()
            .get_resource_or_init::<BtRegistry>()
            .clone();
        reg.edit(|v| v.add_custom(kind, node));
        self
    }

    fn add_bt_action<A: crate::BtAction>(&mut self) -> &mut Self {
        let reg = self
            .world_mut()
            .get_resource_or_init::<BtRegistry>()
            .clone();
        reg.edit(|v| v.add_action_type::<A>());
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

fn bind(
    agent: &mut BtAgent,
    tree: &BehaviorTree,
    program: &Arc<Program>,
    bb: &mut Mut<Blackboard>,
    actions: &mut BtActions,
) {
    agent.state = AgentState::new(program, tree.seed);
    agent.program = Some(program.clone());
    // A recording belongs to one program: it starts over on the new one.
    if let Some(r) = agent.recorder.take() {
        agent.record_request = Some(r.capacity());
    }
    agent.finished = false;
    agent.accum = 0.0;
    agent.clock_us = 0;
    actions.reserve(program.action_capacity());
    actions.program = Some(program.clone());
    actions.now_ms = 0;
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
type RestoreQuery<'w, 's> = Query<
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

/// The agents [`decide_trees`] ticks.
type TickQuery<'w, 's> = Query<
    'w,
    's,
    (
        Entity,
        &'static BehaviorTree,
        &'static mut BtAgent,
        &'static mut Blackboard,
        &'static mut BtActions,
    ),
>;

/// What [`decide_trees`] needs besides the agents to prepare them.
#[derive(bevy::ecs::system::SystemParam)]
struct Prepare<'w, 's> {
    commands: Commands<'w, 's>,
    assets: Res<'w, Assets<BtAsset>>,
    log: ResMut<'w, BtReloads>,
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
fn decide_trees(
    mut prepare: Prepare,
    time: Res<Time>,
    settings: ResMut<BtSettings>,
    globals: Res<BtGlobals>,
    mut world: ResMut<BtWorldValues>,
    stats: ResMut<BtStats>,
    diagnostics: Diagnostics,
    mut dispatch: Dispatch,
    mut agents: ParamSet<(
        BindQuery<Changed<BehaviorTree>>,
        BindQuery<AssetChanged<BehaviorTree>>,
        RestoreQuery,
        TickQuery,
    )>,
) {
    let p = &mut prepare;
    publish_world_values(&p.assets, &globals, &mut world);
    let assets_changed =
        p.asset_events.read().count() > 0 || !std::mem::replace(&mut *p.started, true);
    bind_trees(&p.assets, &mut p.log, assets_changed, &mut agents);
    restore_trees(&mut p.commands, &globals, &mut agents.p2());
    tick_trees(
        &time,
        settings,
        &globals,
        &world,
        stats,
        diagnostics,
        &mut dispatch.locals,
        &mut agents.p3(),
    );
    dispatch.apply();
}

/// Per tick thread: agents ticked, changes of the running-actions index.
#[derive(Default)]
struct TickLocal {
    ticked: u32,
    changes: Vec<ListingChange>,
}

/// What [`decide_trees`] keeps the running-actions index with.
#[derive(bevy::ecs::system::SystemParam)]
struct Dispatch<'w, 's> {
    running: ResMut<'w, RunningActions>,
    removed: RemovedComponents<'w, 's, BtAgent>,
    locals: Local<'s, bevy::utils::Parallel<TickLocal>>,
}

impl Dispatch<'_, '_> {
    /// The tick's changes into the index, and agents that left out of it.
    fn apply(&mut self) {
        for local in self.locals.iter_mut() {
            self.running.gather(&mut local.changes);
        }
        for e in self.removed.read() {
            self.running.forget(e);
        }
        self.running.settle();
    }
}

/// Agents of a tree that names a world value no declaration has get it in
/// [`BtAgent::problems`] (the inspector shows them): every agent when a new
/// one is found, and agents whose tree is new since.
fn report_undeclared_world_values(
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
        for (slot, g) in asset.program.globals.iter().enumerate() {
            let v = globals.get(&g.name);
            // Reported once per program and name; the key allocates nothing.
            // While the declarations load, a missing name is not news.
            if v.is_none()
                && globals.declared != Declared::Loading
                && world.reported.insert((id, slot))
            {
                if globals.declared == Declared::Complete {
                    let problem = AgentProblem::UndeclaredWorldValue {
                        at: format!("{}:{}:{}", g.file, g.line, g.column),
                        name: g.name.clone(),
                    };
                    error!("{problem}");
                    world.undeclared.entry(id).or_default().push(problem);
                    world.undeclared_gen += 1;
                } else {
                    warn!(
                        "{}:{}:{}: no world value {:?} is published (yet); the condition does not hold",
                        g.file, g.line, g.column, g.name
                    );
                }
            }
            slots.push(v);
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
type BindQuery<'w, 's, F> = Query<
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
    log: &mut BtReloads,
    assets_changed: bool,
    agents: &mut ParamSet<(
        BindQuery<Changed<BehaviorTree>>,
        BindQuery<AssetChanged<BehaviorTree>>,
        RestoreQuery,
        TickQuery,
    )>,
) {
    let mut reloads: Vec<Reload> = Vec::new();
    bind_changed(assets, &mut reloads, &mut agents.p0());
    if assets_changed {
        bind_changed(assets, &mut reloads, &mut agents.p1());
    }
    report_reloads(log, reloads);
}

/// Binds the agents a query found to their tree's current program.
fn bind_changed<F: bevy::ecs::query::QueryFilter>(
    assets: &Assets<BtAsset>,
    reloads: &mut Vec<Reload>,
    agents: &mut BindQuery<F>,
) {
    // A reload keeps what did not change: per (old, new) program, the diff
    // and how many agents kept their state, said once.
    for (tree, mut agent, mut bb, mut actions) in agents.iter_mut() {
        let Some(asset) = assets.get(&tree.handle) else {
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
                .map(|old| agent.state.save(old, &actions, &bb, agent.clock_us));
            let clock_us = agent.clock_us;
            bind(&mut agent, tree, &asset.program, &mut bb, &mut actions);
            let (Some(old), Some(saved)) = (old, saved) else {
                continue;
            };
            let once = tree.mode == RunMode::Once;
            let outcome = restore(&asset.program, &saved).map(|(state, slots, _)| {
                agent.state = state;
                actions.slots.extend(slots);
                agent.clock_us = clock_us;
                agent.finished = once && agent.state.live != Status::Running;
            });
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
        let line = format!(
            "{}: reloaded: {}; {kept} agents kept their state, {} restarted{}",
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
                agent.state = state;
                actions.slots.clear();
                actions.slots.extend(slots);
                actions.now_ms = agent.state.now_ms;
                agent.clock_us = saved.0.clock_us;
                // A finished run-once tree stays finished.
                agent.finished = tree.mode == RunMode::Once && agent.state.live != Status::Running;
                if let Some(r) = agent.recorder.take() {
                    agent.record_request = Some(r.capacity());
                }
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
                agent.restored = Some(report);
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
                if !agent.problems.contains(&problem) {
                    agent.problems.push(problem);
                }
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
    locals: &mut bevy::utils::Parallel<TickLocal>,
    agents: &mut TickQuery,
) {
    // The world is still loading: no tree starts deciding yet.
    let waiting = settings.wait_for_world && globals.declared() == Declared::Loading;
    // Paused by a debugger: no tree ticks, but for the steps asked.
    let paused = settings.paused && settings.steps == 0;
    if waiting || paused {
        stats.ticked = 0;
        // Bound and restored agents are listed under their actions all the
        // same (a restored action is the game's to run).
        let mut local = locals.borrow_local_mut();
        for (entity, _, _, _, mut actions) in agents.iter_mut() {
            actions.relist(entity, &mut local.changes);
        }
        return;
    }
    if settings.paused {
        settings.steps -= 1;
    }
    let settings = &*settings;
    let world_values = &world.values;
    let globals_generation = globals.generation();
    let dt = time.delta_secs();
    let max_restarts = settings.max_restarts_per_tick;
    // The step of agents that tick every update, rounded once.
    let update_step_us = (f64::from(dt) * 1e6).round() as u64;
    let started = std::time::Instant::now();
    // The ticked count is per thread, borrowed once per batch of agents
    // (one shared atomic would bounce between cores; a thread-local look-up
    // per agent costs more than many ticks).
    let tick = |ticked: &mut u32,
                tree: &BehaviorTree,
                agent: &mut BtAgent,
                bb: &mut Blackboard,
                actions: &mut BtActions| {
        // Borrowed, not cloned: an `Arc` clone per agent and tick is an
        // atomic write to one cache line shared by every thread.
        let Some(program) = agent.program.as_deref() else {
            return;
        };
        if agent.restart {
            agent.restart = false;
            agent.restarts_this_tick += 1;
            if agent.restarts_this_tick > max_restarts {
                error!(
                    "{}: restarted more than {max_restarts} times in one tick; not restarting again this tick",
                    program.source
                );
            } else {
                if let Some(rec) = agent.recorder.as_mut() {
                    rec.note_restart();
                }
                agent.state.reset(program, actions);
                agent.finished = false;
            }
        }
        if agent.finished {
            return;
        }
        let step_us = match tree.rate_hz {
            Some(hz) if hz > 0.0 => {
                agent.accum += dt;
                let period = 1.0 / hz;
                if agent.accum + 1e-6 < period {
                    return;
                }
                agent.accum = (agent.accum - period).min(period);
                (f64::from(period) * 1e6).round() as u64
            }
            _ => update_step_us,
        };
        // Agent time in ms follows an exact µs clock: 30 Hz steps of 33 and
        // 34 ms, not 33 ms forever (which would run 1 % slow).
        let before = agent.clock_us / 1000;
        agent.clock_us += step_us;
        let step_ms = (agent.clock_us / 1000 - before) as u32;
        agent.restarts_this_tick = 0;
        let env = TickEnv {
            stub: None,
            globals: if program.globals.is_empty() {
                &[]
            } else {
                world_values
                    .get(&tree.handle.id())
                    .map_or(&[], Vec::as_slice)
            },
            globals_generation,
            repeat: tree.mode == RunMode::Repeat,
            always_walk: false,
            dt_us: step_us.min(u64::from(u32::MAX)) as u32,
        };
        // The flight recorder starts from the agent as it is now.
        // (Read, and written only when there is one: the line stays clean.)
        let request = agent
            .record_request
            .is_some()
            .then(|| agent.record_request.take())
            .flatten();
        if let Some(n) = request.or(settings.record_all)
            && (request.is_some() || agent.recorder.is_none())
        {
            agent.recorder = Some(Box::new(Recorder::new(
                program,
                &agent.state,
                bb,
                actions,
                env.globals,
                n,
                tree.mode == RunMode::Repeat,
                agent.clock_us - step_us,
            )));
            if agent.trace.is_none() {
                // Sized up front: a recording agent allocates nothing per
                // tick (a tick ticks each node about once, loops aside).
                agent.trace = Some(Box::new(TickTrace {
                    ticked: Vec::with_capacity(program.len() * 4),
                    actions: Vec::with_capacity(program.action_capacity() * 4),
                }));
            }
        }
        if let Some(rec) = agent.recorder.as_mut() {
            rec.before_tick(
                program,
                agent.state.ticks() + 1,
                env.dt_us,
                bb,
                actions,
                env.globals,
            );
        }
        let status = tick_agent_traced(
            program,
            &mut agent.state,
            bb,
            actions,
            step_ms,
            env,
            agent.trace.as_deref_mut(),
        );
        if let (Some(rec), Some(trace)) = (agent.recorder.as_mut(), agent.trace.as_deref()) {
            rec.after_tick(program, &agent.state, trace, status);
        }
        // A condition read a key the game has not set: said once per key.
        let fresh = agent.state.unset_reads() & !agent.unset_reported;
        if fresh != 0 {
            agent.unset_reported |= fresh;
            for k in (0..64).filter(|k| fresh & (1u64 << k) != 0) {
                let key = program.blackboard_keys().get(k).map_or("?", String::as_str);
                let problem = AgentProblem::UnsetKey {
                    tree: program.source().to_owned(),
                    key: key.to_owned(),
                };
                warn!("{problem}");
                if !agent.problems.contains(&problem) {
                    agent.problems.push(problem);
                }
            }
        }
        *ticked += 1;
        if tree.mode == RunMode::Once && status != Status::Running {
            agent.finished = true;
        }
    };
    // Each agent: its tick, then its entry in the running-actions index.
    let each = |local: &mut TickLocal,
                (entity, tree, mut agent, mut bb, mut actions): (
        Entity,
        &BehaviorTree,
        Mut<BtAgent>,
        Mut<Blackboard>,
        Mut<BtActions>,
    )| {
        let (agent, actions) = (&mut *agent, &mut *actions);
        // The tree writes its blackboard only through `SetBlackboard` /
        // `UnsetBlackboard`: the component is marked changed only when one
        // wrote (game systems watching `Changed<Blackboard>` see the
        // tree's writes and nothing else).
        let generation = bb.generation();
        tick(
            &mut local.ticked,
            tree,
            agent,
            bb.bypass_change_detection(),
            actions,
        );
        if bb.generation() != generation {
            bb.set_changed();
        }
        actions.now_ms = agent.state.now_ms;
        actions.relist(entity, &mut local.changes);
    };
    if agents.iter().len() < BtPlugin::PARALLEL_FROM {
        // A parallel iteration hands batches to the compute threads and
        // waits for them: tens of microseconds on a small machine, more
        // than a small crowd's whole tick.
        let mut local = locals.borrow_local_mut();
        for item in agents.iter_mut() {
            each(&mut local, item);
        }
    } else {
        agents.par_iter_mut().for_each_init(
            || locals.borrow_local_mut(),
            |local, item| each(local, item),
        );
    }
    stats.ticked = locals
        .iter_mut()
        .map(|l| std::mem::take(&mut l.ticked))
        .sum();
    stats.decide_ns = started.elapsed().as_nanos() as u64;
    let per_second = stats.ticked as f32 / dt.max(1e-6);
    stats.ticks_per_second = if stats.ticks_per_second == 0.0 {
        per_second
    } else {
        stats.ticks_per_second * 0.9 + per_second * 0.1
    };
    let (ticked, decide_ms) = (stats.ticked, stats.decide_ns as f64 / 1e6);
    diagnostics.add_measurement(&BtPlugin::TICKED, || f64::from(ticked));
    diagnostics.add_measurement(&BtPlugin::DECIDE_MS, || decide_ms);
    // `Act` starts now (its systems run after this one): timed from here
    // to `act_end`, without a system of its own.
    stats.act_start = Some(std::time::Instant::now());
}
