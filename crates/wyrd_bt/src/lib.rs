//! # Wyrd behavior trees
//!
//! Behavior trees authored as RON assets (`*.bt.ron`), compiled into flat
//! immutable programs, and ticked as Bevy ECS systems. The decision schemes
//! of Halo 2 (prioritized list, sequential, sequential-looping,
//! probabilistic, one-off), impulses, behavior tags, stimuli, and the Trainz
//! session-rule flags (PAUSED, COMPLETE, WAS_COMPLETE, DOES_COMPLETE) with
//! their parent styles.
//!
//! ## A tree file
//!
//! ```ron
//! (
//!     tags: ["infantry", "driver", "passenger"],
//!     blackboard: { "target_visible": false, "health": 100, "player_in_vehicle": false },
//!     behaviors: [
//!         Sequence(name: "enter_vehicle", children: [
//!             Action(action: "GoToVehicle"),
//!             Action(action: "GetIn"),
//!         ]),
//!         Sequence(name: "flee", children: [Action(action: "Flee", params: {"seconds": 1.5})]),
//!     ],
//!     root: PrioritizedList(name: "root", children: [
//!         // Run enter_vehicle here when the player drives up (Halo's impulse).
//!         Impulse(name: "player_in_vehicle", behavior: "enter_vehicle",
//!                 when: [Is("player_in_vehicle")], not_tags: ["passenger"]),
//!         Sequence(name: "fight", tags: ["infantry"], children: [
//!             Condition(check: Is("target_visible")),   // a guard: re-checked every tick
//!             Cooldown(seconds: 0.5, child: Action(action: "Shoot", params: {"burst": 3})),
//!         ]),
//!         Use(behavior: "enter_vehicle"),   // its native position (a DAG)
//!         Action(name: "idle", action: "Idle"),
//!     ]),
//! )
//! ```
//!
//! Node paths join names with `/` (`root/fight/Shoot`); unnamed nodes are
//! named after their action, condition or kind. Paths are unique.
//!
//! | kind | semantics |
//! |---|---|
//! | `PrioritizedList` | first relevant child runs; a higher-priority child that becomes relevant interrupts it on the next tick |
//! | `Selector` | first child that does not fail; kept until it finishes |
//! | `Sequence` | children in order; its leading conditions are guards re-checked every tick |
//! | `Sequential` / `SequentialLooping` | Halo: children in order, skipping those not relevant, never revisiting (looping starts again) |
//! | `Probabilistic` | a random relevant child (optional `weights`), seeded per agent |
//! | `OneOff` | picks (first or `random`) among relevant children never chosen before |
//! | `Parallel` | all children; `success` / `failure` policies `All`, `One`, `Count(n)` |
//! | `Ordered`, `Simultaneous`, `SelectOne` | Trainz parent styles |
//! | `Invert`, `ForceSuccess`, `ForceFailure`, `Repeat`, `Cooldown`, `MinDuration`, `Timeout`, `Guard` | decorators |
//! | `Action`, `Condition`, `Rule`, `Threshold`, `Wait`, `Succeed`, `Fail`, `Forever` | leaves |
//! | `CheckWorldStateFlags`, `CheckWorldStateCounters` | the seed's world-state checks (conditions on world values) |
//! | `Use`, `Impulse` | references to named behaviors (`Impulse(mode: InPlace / Redirect)`) |
//! | `Custom(kind: ..)` | game-registered composites and decorators |
//!
//! ## In an app
//!
//! ```no_run
//! use bevy::prelude::*;
//! use wyrd_bt::prelude::*;
//!
//! const SHOOT: ActionId = ActionId::of("Shoot");
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((MinimalPlugins, AssetPlugin::default(), BtPlugin::default()))
//!         .register_bt_action("Shoot")
//!         .add_systems(Startup, |mut commands: Commands, server: Res<AssetServer>| {
//!             commands.spawn(BehaviorTree::new(server.load("squad/grunt.bt.ron")));
//!         })
//!         .add_systems(FixedUpdate, shoot.in_set(BtSystems::Act))
//!         .run();
//! }
//!
//! fn shoot(mut agents: Query<&mut BtActions>) {
//!     for mut actions in &mut agents {
//!         if let Some(action) = actions.running(SHOOT) {
//!             action.succeed(); // or keep it running over several ticks
//!         }
//!     }
//! }
//! ```

mod blackboard;
mod compile;
mod def;
mod plugin;
mod program;
mod registry;
mod runtime;
pub mod sim;
mod value;

pub use blackboard::{Blackboard, BlackboardError};
pub use compile::{
    BtError, BtProblem, ParsedFile, compile, compile_str, file_refs, load_tree_files, parse_tree,
    resolve,
};
pub use def::{Check, ImpulseMode, NodeDef, Policy, TreeDef};
pub use plugin::{
    BehaviorTree, BtAgent, BtAppExt, BtAsset, BtAssetGeneration, BtGlobals, BtLoader, BtPlugin,
    BtSettings, BtStats, BtSystems, RunMode,
};
pub use program::{
    ActionInfo, Cond, GlobalRef, ImpulseInfo, Kind, NONE, Node, PredicateSlot, Program,
};
pub use registry::{ActionId, BtRegistry, CustomNode, PredicateFn, Vocabulary};
pub use runtime::{
    ActionState, ActiveAction, AgentState, BtActions, CustomCtx, MAX_STIMULI, NodeState,
    PredicateStub, Status, Stimulus, StimulusError, TickEnv, rule, tick_agent,
};
pub use value::{Op, Value};

/// The names most users need.
pub mod prelude {
    pub use crate::{
        ActionId, ActionState, BehaviorTree, Blackboard, BtActions, BtAgent, BtAppExt, BtAsset,
        BtGlobals, BtPlugin, BtSystems, RunMode, Status, Value,
    };
}
