//! The world state and behavior trees (feature `bt`).
//!
//! - [`WorldStateBtPlugin`] publishes every flag and counter in
//!   [`BtGlobals`], so trees check them with
//!   `CheckWorldStateFlags(flags: [("NPC_DRONE_SPK_01", false)])`,
//!   `CheckWorldStateCounters(counters: [("QST_DST_TOWER_5", Ge, 5)])` or
//!   `Condition(check: World("NAME", Op, value))`.
//! - [`WorldStateEvaluationPlugin`] runs the seed's World State Evaluation
//!   tree on [`EvaluateWorldState`]: synchronously, to the end, within the
//!   frame. Its action nodes are handlers on the world:
//!   `SetFlagValue(params: {"FLAG": true})`, `SetCounterValue`,
//!   `ResetWorldStateManagers`, `EndWorldStateEvaluation`, plus the game's own
//!   (`app.register_world_state_node("AddQuest", ..)`). Setting a flag to a
//!   new value restarts the evaluation (bounded); setting it to its current
//!   value does not.

use std::collections::HashMap;
use std::sync::Arc;

use bevy::app::{App, FixedUpdate, Plugin, PreUpdate, Update};
use bevy::asset::{AssetServer, Assets, Handle};
use bevy::ecs::error::BevyError;
use bevy::ecs::message::MessageCursor;
use bevy::ecs::prelude::*;
use bevy::log::{error, info};
use wyrd_bt::{
    ActionInfo, ActionState, AgentState, Blackboard, BtAction, BtActions, BtAppExt, BtAsset,
    BtGlobals, BtSystems, Declared, Status, TickEnv, Value, tick_agent,
};

use crate::{WorldState, WorldStateFiles, WorldStateSystems};

/// Keeps [`BtGlobals`] in step with [`WorldState`]. Add it with both
/// [`WorldStatePlugin`](crate::WorldStatePlugin) and `BtPlugin`.
#[derive(Debug, Clone, Default)]
pub struct WorldStateBtPlugin;

impl Plugin for WorldStateBtPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<BtGlobals>()
            .add_systems(PreUpdate, publish.after(WorldStateSystems::SyncAssets))
            .add_systems(FixedUpdate, publish.in_set(BtSystems::Sense));
    }
}

/// Publishes values when the world state changed (cheap otherwise), and
/// whether every declared value is published (the flags files merged).
pub fn publish(
    state: Res<WorldState>,
    files: Option<Res<WorldStateFiles>>,
    mut globals: ResMut<BtGlobals>,
) {
    let declared = match files {
        None => Declared::Complete,
        Some(f) if f.all_merged() => Declared::Complete,
        Some(f) if f.all_settled() => Declared::Incomplete,
        Some(_) => Declared::Loading,
    };
    if globals.declared() != declared {
        globals.set_declared(declared);
    }
    if !state.is_changed() {
        return;
    }
    for f in state.flags() {
        globals.set(&f.name, f.value);
    }
    for c in state.counters() {
        globals.set(&c.name, c.value);
    }
}

/// What a world-state node did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeEffect {
    /// Done; go on.
    Done,
    /// The world state changed in a way that must restart the evaluation
    /// (a flag took a new value).
    Restart,
}

/// A world-state evaluation node: runs on the world when its action starts.
/// An error (any error type, or a message: `Err("why".into())`) fails the
/// node and is logged with the node's path.
pub type WorldNodeHandler =
    Arc<dyn Fn(&mut World, &ActionInfo) -> Result<NodeEffect, BevyError> + Send + Sync>;

/// A manager that holds what the last evaluation gave it (quests, shop
/// items, NPCs) and clears it on `ResetWorldStateManagers`.
pub trait WorldStateManager: Resource<Mutability = bevy::ecs::component::Mutable> {
    /// Forgets what the last evaluation added.
    fn reset_world_state(&mut self);
}

/// Clears one manager.
type ManagerReset = Arc<dyn Fn(&mut World) + Send + Sync>;

/// The evaluation's node handlers and managers.
///
/// Reflected without fields (handlers are code).
#[derive(Resource, Default, Clone, bevy::reflect::Reflect)]
#[reflect(from_reflect = false)]
pub struct WorldStateNodes {
    #[reflect(ignore)]
    handlers: HashMap<String, WorldNodeHandler>,
    #[reflect(ignore)]
    resets: Vec<ManagerReset>,
}

/// Ask for an evaluation (e.g. on entering the hub).
#[derive(Message, Debug, Clone, Default, bevy::reflect::Reflect)]
pub struct EvaluateWorldState;

/// Sent when the evaluation resets the managers (for managers that prefer a
/// message to the [`WorldStateManager`] trait).
#[derive(Message, Debug, Clone, Default, bevy::reflect::Reflect)]
pub struct ResetWorldStateManagers;

/// An evaluation finished.
#[derive(Message, Debug, Clone, PartialEq, Eq, bevy::reflect::Reflect)]
pub struct WorldStateEvaluated {
    /// Passes run (1 + restarts).
    pub passes: u32,
    /// Whether `EndWorldStateEvaluation` was reached.
    pub ended: bool,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

/// Registration of evaluation nodes and managers.
pub trait WorldStateEvalAppExt {
    /// Registers a node (an action name trees may use) and its handler.
    fn register_world_state_node(
        &mut self,
        name: &str,
        f: impl Fn(&mut World, &ActionInfo) -> Result<NodeEffect, BevyError> + Send + Sync + 'static,
    ) -> &mut Self;
    /// Registers a node declared as a typed action
    /// ([`bt_action!`](wyrd_bt::bt_action)): trees are checked against its
    /// parameters when they load, and the handler gets them as fields.
    fn add_world_state_action<A: BtAction>(
        &mut self,
        f: impl Fn(&mut World, A) -> Result<NodeEffect, BevyError> + Send + Sync + 'static,
    ) -> &mut Self;
    /// Resets this resource on `ResetWorldStateManagers`.
    fn add_world_state_manager<R: WorldStateManager>(&mut self) -> &mut Self;
}

impl WorldStateEvalAppExt for App {
    fn register_world_state_node(
        &mut self,
        name: &str,
        f: impl Fn(&mut World, &ActionInfo) -> Result<NodeEffect, BevyError> + Send + Sync + 'static,
    ) -> &mut Self {
        self.register_bt_action(name);
        self.world_mut()
            .get_resource_or_init::<WorldStateNodes>()
            .handlers
            .insert(name.to_owned(), Arc::new(f));
        self
    }

    fn add_world_state_action<A: BtAction>(
        &mut self,
        f: impl Fn(&mut World, A) -> Result<NodeEffect, BevyError> + Send + Sync + 'static,
    ) -> &mut Self {
        self.add_bt_action::<A>();
        let handler = move |world: &mut World, info: &ActionInfo| {
            // Evaluation trees read constants (no blackboard keys).
            let params = A::read(info, &Blackboard::default())?;
            f(world, params)
        };
        self.world_mut()
            .get_resource_or_init::<WorldStateNodes>()
            .handlers
            .insert(A::NAME.to_owned(), Arc::new(handler));
        self
    }

    fn add_world_state_manager<R: WorldStateManager>(&mut self) -> &mut Self {
        self.world_mut()
            .get_resource_or_init::<WorldStateNodes>()
            .resets
            .push(Arc::new(|world: &mut World| {
                if let Some(mut r) = world.get_resource_mut::<R>() {
                    r.reset_world_state();
                }
            }));
        self
    }
}

/// The evaluation tree and its last result.
#[derive(Resource, Debug, bevy::reflect::Reflect)]
#[reflect(from_reflect = false)]
pub struct WorldStateEvaluation {
    /// The World State Evaluation tree.
    pub tree: Handle<BtAsset>,
    /// Restarts allowed per evaluation (flags set inside it) before it is
    /// reported as an endless loop.
    pub max_restarts: u32,
    /// The last result.
    pub last: Option<WorldStateEvaluated>,
    /// Evaluations run so far.
    pub count: u32,
    /// The last pass's program and final node states (for the inspector).
    #[reflect(ignore)]
    pub last_run: Option<(Arc<wyrd_bt::Program>, AgentState)>,
    pending: bool,
}

impl WorldStateEvaluation {
    /// Whether an evaluation was asked for and has not run yet (the tree or
    /// the flags files are still loading).
    pub fn is_pending(&self) -> bool {
        self.pending
    }
}

/// Runs the World State Evaluation tree on [`EvaluateWorldState`].
#[derive(Debug, Clone)]
pub struct WorldStateEvaluationPlugin {
    /// Asset path of the evaluation tree.
    pub tree: String,
    /// Restarts allowed per evaluation (default 16).
    pub max_restarts: u32,
}

impl WorldStateEvaluationPlugin {
    /// Evaluates with the tree at this asset path.
    pub fn new(tree: impl Into<String>) -> Self {
        WorldStateEvaluationPlugin {
            tree: tree.into(),
            max_restarts: 16,
        }
    }
}

/// The seed's nodes name flags and counters by their parameters' names
/// (`SetFlagValue(params: {"NPC_DRONE_SPK_01": true})`), with constants.
fn param_names(info: &ActionInfo) -> impl Iterator<Item = (&str, Value)> {
    info.params().iter().filter_map(|(k, p)| match p {
        wyrd_bt::Param::Const(v) => Some((&**k, *v)),
        wyrd_bt::Param::Key { .. } => None,
    })
}

impl Plugin for WorldStateEvaluationPlugin {
    fn build(&self, app: &mut App) {
        app.add_message::<EvaluateWorldState>()
            .add_message::<ResetWorldStateManagers>()
            .add_message::<WorldStateEvaluated>()
            .register_type::<EvaluateWorldState>()
            .register_type::<ResetWorldStateManagers>()
            .register_type::<WorldStateEvaluated>()
            .register_type::<WorldStateEvaluation>()
            .register_type::<WorldStateNodes>()
            .init_resource::<WorldStateNodes>();
        app.register_world_state_node("SetFlagValue", |world, info| {
            let mut state = world.resource_mut::<WorldState>();
            // All or nothing: a misspelt second flag left the first set
            // (a reward half paid).
            for (name, _) in param_names(info) {
                state.flag(name)?;
            }
            let mut effect = NodeEffect::Done;
            for (name, v) in param_names(info) {
                if state.set_flag(name, v.as_bool(), "world_state_evaluation")? {
                    effect = NodeEffect::Restart;
                }
            }
            Ok(effect)
        });
        app.register_world_state_node("SetCounterValue", |world, info| {
            let mut state = world.resource_mut::<WorldState>();
            for (name, v) in param_names(info) {
                state.counter(name)?;
                if v.as_f64().fract() != 0.0 {
                    return Err(format!("{name} is a counter: {v} is not a whole number").into());
                }
            }
            for (name, v) in param_names(info) {
                state.set_counter(name, v.as_f64() as i64, "world_state_evaluation")?;
            }
            Ok(NodeEffect::Done)
        });
        // Their parameters name flags and counters: checked when the tree
        // loads and by `wyrd check`, not only when a branch runs.
        app.register_bt_world_action("SetFlagValue")
            .register_bt_world_action("SetCounterValue");
        app.register_world_state_node("ResetWorldStateManagers", |world, _| {
            let resets = world.resource::<WorldStateNodes>().resets.clone();
            for r in resets {
                r(world);
            }
            world.write_message(ResetWorldStateManagers);
            Ok(NodeEffect::Done)
        });
        app.register_world_state_node("EndWorldStateEvaluation", |_, _| Ok(NodeEffect::Done));
        let tree = self.tree.clone();
        let max_restarts = self.max_restarts;
        app.add_systems(
            bevy::app::Startup,
            move |mut commands: Commands, server: Res<AssetServer>| {
                commands.insert_resource(WorldStateEvaluation {
                    tree: server.load(tree.clone()),
                    max_restarts,
                    last: None,
                    count: 0,
                    last_run: None,
                    pending: false,
                });
            },
        )
        .add_systems(Update, run_evaluations);
    }
}

/// Runs a pending evaluation once the tree and the flags files are loaded.
pub fn run_evaluations(world: &mut World, mut requests: Local<MessageCursor<EvaluateWorldState>>) {
    // Read with this system's own cursor (like a `MessageReader`): other
    // readers of the request still see it.
    let asked = world
        .get_resource::<Messages<EvaluateWorldState>>()
        .is_some_and(|m| requests.read(m).count() > 0);
    let Some(mut eval) = world.get_resource_mut::<WorldStateEvaluation>() else {
        return;
    };
    eval.pending |= asked;
    if !eval.pending {
        return;
    }
    let tree = eval.tree.clone();
    let ready = world
        .get_resource::<WorldStateFiles>()
        .is_some_and(|f| f.all_merged());
    let program = world
        .get_resource::<Assets<BtAsset>>()
        .and_then(|a| a.get(&tree))
        .map(|a| a.program.clone());
    let (Some(program), true) = (program, ready) else {
        return;
    };
    let (result, last_state) = evaluate_with_state(world, &program);
    if let Some(e) = &result.error {
        error!("world state evaluation: {e}");
    } else {
        info!("world state evaluated in {} pass(es)", result.passes);
    }
    let mut eval = world.resource_mut::<WorldStateEvaluation>();
    eval.pending = false;
    eval.count += 1;
    eval.last = Some(result.clone());
    eval.last_run = Some((program, last_state));
    world.write_message(result);
}

/// Runs the evaluation tree to its end against the world, now.
pub fn evaluate(world: &mut World, program: &wyrd_bt::Program) -> WorldStateEvaluated {
    evaluate_with_state(world, program).0
}

/// [`evaluate`], also returning the last pass's node states.
pub fn evaluate_with_state(
    world: &mut World,
    program: &wyrd_bt::Program,
) -> (WorldStateEvaluated, AgentState) {
    let mut last = AgentState::new(program, 0);
    let result = evaluate_inner(world, program, &mut last);
    (result, last)
}

fn evaluate_inner(
    world: &mut World,
    program: &wyrd_bt::Program,
    last: &mut AgentState,
) -> WorldStateEvaluated {
    let max_restarts = world
        .get_resource::<WorldStateEvaluation>()
        .map_or(16, |e| e.max_restarts);
    let handlers = world
        .get_resource::<WorldStateNodes>()
        .cloned()
        .unwrap_or_default();
    let mut bb = Blackboard::new();
    bb.bind(program);
    let mut passes = 0;
    // Nodes whose handler failed: the evaluation goes on (the node fails,
    // as an action does), and says so in its result.
    let mut node_errors: Vec<String> = Vec::new();
    'pass: loop {
        passes += 1;
        if passes > max_restarts + 1 {
            return WorldStateEvaluated {
                passes: passes - 1,
                ended: false,
                error: Some(format!(
                    "{}: restarted more than {max_restarts} times: flags set in the evaluation keep changing (a loop between branches?)",
                    program.source()
                )),
            };
        }
        let mut state = AgentState::new(program, 0);
        let mut actions = BtActions::default();
        actions.reserve(program.action_capacity());
        let mut ended = false;
        for _ in 0..10_000 {
            let globals: Vec<Option<Value>> = {
                let ws = world.resource::<WorldState>();
                program
                    .globals()
                    .iter()
                    .map(|g| {
                        ws.flag(g.name.as_str())
                            .map(Value::Bool)
                            .or_else(|_| ws.counter(g.name.as_str()).map(Value::Int))
                            .ok()
                    })
                    .collect()
            };
            let status = tick_agent(
                program,
                &mut state,
                &mut bb,
                &mut actions,
                0,
                TickEnv {
                    globals: &globals,
                    always_walk: true,
                    ..TickEnv::default()
                },
            );
            if status != Status::Running {
                *last = state.clone();
                return WorldStateEvaluated {
                    passes,
                    ended,
                    error: (!node_errors.is_empty()).then(|| node_errors.join("\n")),
                };
            }
            let started: Vec<u32> = actions
                .iter()
                .filter(|a| a.state == ActionState::Started)
                .map(|a| a.leaf())
                .collect();
            if started.is_empty() && actions.iter().all(|a| !a.is_running()) {
                return WorldStateEvaluated {
                    passes,
                    ended,
                    error: Some(format!(
                        "{}: the evaluation waits on nothing",
                        program.source()
                    )),
                };
            }
            let mut restart = false;
            for node in started {
                let Some(info) = program.action_of(node) else {
                    continue;
                };
                ended |= info.name() == "EndWorldStateEvaluation";
                let outcome = match handlers.handlers.get(info.name()) {
                    Some(h) => h(world, info),
                    None => Err(format!("no handler for node {}", info.name()).into()),
                };
                let slot = actions
                    .iter_mut()
                    .find(|a| a.leaf() == node && a.is_running());
                match (outcome, slot) {
                    (Ok(effect), Some(slot)) => {
                        slot.succeed();
                        restart |= effect == NodeEffect::Restart;
                    }
                    (Err(e), Some(slot)) => {
                        // The error's own words: a `BevyError` shows the
                        // handler's backtrace after them, Wyrd's internals
                        // beside a designer's data error.
                        let text = e.to_string();
                        let why = text.lines().next().unwrap_or_default();
                        // Logged with the result (`run_evaluations`).
                        node_errors.push(format!(
                            "{}: {}: {why}",
                            program.source(),
                            program.path(node)
                        ));
                        slot.fail();
                    }
                    _ => {}
                }
            }
            if restart {
                continue 'pass;
            }
        }
        return WorldStateEvaluated {
            passes,
            ended,
            error: Some(format!(
                "{}: the evaluation did not finish in 10,000 steps",
                program.source()
            )),
        };
    }
}
