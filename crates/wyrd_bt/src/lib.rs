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
//!         GuardSequence(name: "fight", tags: ["infantry"], children: [
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
//! ## Nodes
//!
//! The table below is the contract: what each kind does, in one line, and
//! its nearest BehaviorTree.CPP 4.x and Unreal equivalents. It is generated
//! from [`Kind::info`] (`crates/wyrd_bt/NODES.md`; a test keeps the two
//! equal). Besides these, files may write `Fallback` (= `Selector`),
//! `CheckWorldStateFlags` / `CheckWorldStateCounters` (conditions on world
//! values) and `Use(behavior: ..)` (a named behavior placed here).
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

//! ## How the crate fits together (and adding a node kind)
//!
//! `def` (the file format, serde) → `compile` (checks names, types and
//! arities, lowers each node to a [`Kind`], lays the tree out flat in
//! depth-first order: a [`Program`]) → `runtime` (one agent's tick over the
//! shared program: `runtime/mod.rs` walks and keeps the bookkeeping, one
//! file per node family ticks its kinds). [`Kind::info`] is the one table of
//! per-kind facts the compiler and the runtime read: family, child counts,
//! what state the node needs and how it starts, whether it reads time, its
//! rule and equivalents (the docs table).
//!
//! Adding a node kind touches three files, nothing else (this is how
//! `ReactiveFallback` was added):
//! 1. `def.rs`, the file format: its variant of [`NodeDef`] (with a fields
//!    struct if it has a new shape) and its arms in `kind_name`, `common`,
//!    `children`;
//! 2. `kind.rs`, its facts: its [`Kind`] variant, its row in [`Kind::info`]
//!    (family, child counts, state, timed, rule, BT.CPP / Unreal
//!    equivalents) and in [`Kind::ALL`], its arm in `lower` (file node →
//!    kind payload) and in `completes` (instant? DOES_COMPLETE?). Arity
//!    checks, state slots, their initial values and skippability follow
//!    from the row: the compiler and the interpreter's bookkeeping need no
//!    edit;
//! 3. `runtime/<family>.rs`, its rule: its tick function and its arm in the
//!    family's dispatch (`tick_standard`, `tick_halo`, ...).
//!
//! Then regenerate `NODES.md` (`cargo test -p wyrd_bt --test node_table`
//! prints the table when it differs) and add a conformance case under
//! `tests/conformance/`.

mod blackboard;
mod compile;
mod def;
mod kind;
mod plugin;
mod program;
mod registry;
mod rng;
mod runtime;
pub mod sim;
mod value;

pub use blackboard::{Blackboard, BlackboardError};
pub use compile::{
    BtError, BtProblem, ParsedFile, compile, compile_str, file_refs, load_tree_files, parse_tree,
    resolve,
};
pub use def::{Check, ImpulseMode, NodeDef, Policy, TreeDef};
pub use kind::{AuxInit, CursorInit, Family, Kind, KindInfo, node_table};
pub use plugin::{
    BehaviorTree, BtAgent, BtAppExt, BtAsset, BtAssetGeneration, BtGlobals, BtLoader, BtPlugin,
    BtSettings, BtStats, BtSystems, RunMode,
};
pub use program::{ActionInfo, Cond, GlobalRef, ImpulseInfo, NONE, Node, PredicateSlot, Program};
pub use registry::{ActionId, BtRegistry, CustomNode, PredicateFn, Vocabulary};
pub use rng::SplitMix64;
pub use runtime::{
    ActionEvent, ActionState, ActiveAction, AgentState, BtActions, CustomCtx, LOOPS_PER_TICK,
    MAX_STIMULI, NodeState, PredicateStub, Status, Stimulus, StimulusError, TickEnv, TickTrace,
    rule, tick_agent, tick_agent_traced,
};
pub use value::{Op, Value};

/// The names most users need.
pub mod prelude {
    pub use crate::{
        ActionId, ActionState, BehaviorTree, Blackboard, BtActions, BtAgent, BtAppExt, BtAsset,
        BtGlobals, BtPlugin, BtSystems, RunMode, Status, Value,
    };
}
