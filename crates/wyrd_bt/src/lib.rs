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
//! ## Values, parameters and subtrees
//!
//! A [`Value`] is `Copy` and small: bool, int, float, `Entity`, `Vec2`,
//! `Vec3` and interned strings ([`Sym`]). Reading or writing one never
//! allocates.
//!
//! - **Keys** are typed by their declaration under `blackboard`: a default
//!   (`"ammo": 30`, `"cover": (1.0, 2.0)`, `"goal": Vec3(0.0, 0.0, 1.0)`,
//!   `"quest": "destroy_5_towers"`) or a type alone (`"target": Entity`,
//!   also `Vec2`, `Vec3`, `String`, `Bool`, `Int`, `Float`), unset until the
//!   game sets it. A condition that reads an unset key does not hold; the
//!   plugin reports it once per agent and key (a warning and
//!   [`BtAgent::problems`]). Writes of the wrong type are refused with the
//!   key named. A key keeps its type: a number is converted when nothing
//!   is lost (2.0 to an int key is 2, 3 to a float key 3.0) and refused
//!   otherwise (2.5 to an int key), as BehaviorTree.CPP converts numbers
//!   between ports; a typed integer field reads a number only if it holds
//!   it unchanged (-5 is no `u32`, 2.5 no `i64`; a float field reads any
//!   number, rounded to its precision).
//! - **References**: `"{key}"` stands for a key in action parameters
//!   (`Action(action: "MoveTo", params: {"goal": "{cover}", "speed":
//!   3.5})`), the right side of a comparison
//!   (`Bb("ammo", Lt, "{max_ammo}")`), predicate arguments
//!   (`Predicate("within", {"of": "{target}", "meters": 8.0})`), the value
//!   of `SetBlackboard` / `AddBlackboard` and a behavior's `with` bindings.
//!   The compiler resolves each to a key index and checks its type. A
//!   node's own fields (`seconds`, `count`, `attempts`, `Parallel`'s
//!   thresholds) and a custom node's `params` are constants: a duration
//!   read from a key is a custom leaf (a parameter naming the key, read
//!   with `ctx.blackboard()`) or an action of the game's. A
//!   predicate registered with its arguments
//!   (`app.register_bt_predicate_args("within", &[("of", ValueType::Vec3),
//!   ("meters", ValueType::Float)], f)`) has each call checked against
//!   them: a misspelt, missing or mistyped argument is an error at the
//!   call, in the game and in `wyrd check`.
//!   Entities, vectors and strings compare with `Eq` / `Ne` only.
//! - **Subtrees**: a named behavior declares `parameters` (a default or a
//!   type each); `Use(behavior: "attack", with: {"target": "{enemy}",
//!   "range": 12.0})` places it with its parameters bound to this place's
//!   keys or to constants, and in the behavior `"{target}"` means the
//!   binding. In-place impulses take `with` too; a stimulus binds a
//!   parameter without default to the key of its name. A missing, unknown
//!   or mistyped binding is a compile error at the `Use`. A behavior has
//!   no blackboard of its own: the agent has one, declared in the tree's
//!   `blackboard`, and every behavior reads and writes its keys, two uses
//!   of a behavior the same ones (BehaviorTree.CPP gives each `SubTree` a
//!   blackboard of its own, with `_autoremap` to share). Pass values in
//!   and out through `parameters`, and give per-use keys different names
//!   through them (`with: {"counter": "{left_count}"}`).
//! - **Shared files**: `Use(behavior: "flee", file: "../common/flee.bt.ron")`
//!   places a behavior of another tree file, relative to this file's
//!   folder (a file of behaviors only still has a `root`, e.g.
//!   `root: Succeed()`). Editing it reloads every tree that uses it. It
//!   must lie in the assets folder: the loader refuses a path above it,
//!   and so does `wyrd check` when it knows the folder (`--assets`,
//!   `wyrd.toml`).
//! - **Typed actions**: [`bt_action!`] declares an action as a Rust type
//!   (name, id, parameter schema with defaults, [`Out`] ports);
//!   `app.add_bt_action::<T>()` registers it, trees are checked against its
//!   schema when they load, and the system parameters [`Running<A>`] and
//!   [`ActionRuns`] visit the agents running `A` with its parameters read
//!   as the type's fields, by position ([`BtAgent::read_action`] reads one
//!   slot by hand). An output port is
//!   written with [`Blackboard::write`]; the tree reads the key in its next
//!   tick.
//!
//! ## Nodes
//!
//! The table below is the contract: what each kind does, in one line, and
//! its nearest BehaviorTree.CPP 4.x and Unreal equivalents. It is generated
//! from `Kind::info` (`crates/wyrd_bt/NODES.md`; a test keeps the two
//! equal). Besides these, files may write `Fallback` (= `Selector`),
//! `CheckWorldStateFlags` / `CheckWorldStateCounters` (conditions on world
//! values) and `Use(behavior: ..)` (a named behavior placed here).
//!
//! How a finished root goes on is the agent's run mode, not a node's rule:
//! [`RunMode::Repeat`] (games; `mode: Repeat` in a sim script) starts the
//! next cycle in the tick the last one finished, so an agent never idles
//! a tick; [`RunMode::Once`] (`Once`) stays finished. A sim script's
//! `mode: NextTick` drives the tree as BehaviorTree.CPP's loop does
//! (`tickOnce()` every tick): the finished root reports its status and
//! starts again on the next tick, so no action of the new cycle is running
//! in the tick the old one ended (compare BT.CPP traces in this mode).
//!
//! BehaviorTree.CPP's pre- and post-condition attributes are nodes here:
//! `_while="c"` is `Guard(when: [c], skip: true, child: ..)`; `_skipIf="c"`
//! is the same with `when: [Not(c)]`, re-checked every tick where BT.CPP
//! checks it once, at the start; `_successIf` / `_failureIf` are an
//! `IfThenElse(children: [Condition(..), Succeed() or Fail(), node])`;
//! `_onSuccess` / `_onFailure` / `_post` are a `SetBlackboard` after the
//! node in a `Sequence` (or a `Selector` for a failure); `_onHalted` is the
//! game's [`Running::for_each_aborted`]. A `Script` is `SetBlackboard`
//! (`key := value`, or another key's value) and `AddBlackboard` (`key +=
//! n`); there is no expression language.
//!
#![doc = include_str!("../NODES.md")]
//!
//! ## Rules every kind keeps
//!
//! - **Interruption without dithering.** In a `PrioritizedList` (and any
//!   reactive composite), a higher-priority child interrupts the running one
//!   only when it *takes over*: it ends the tick Running or Success. A child
//!   that is relevant but fails at once leaves the running child alone. No
//!   re-check (a reactive or prioritized parent asking its children again,
//!   a guard, a Utility's scores) aborts an action leaf and restarts it in
//!   one tick (the same action at two leaves of a DAG may hand over from
//!   one to the other). A loop may: `RetryUntilSuccessful` over a
//!   `Timeout` that halts its action starts the next attempt in that tick,
//!   as BT.CPP does (`TimeoutAndRetry.Issue57`); the game is told of the
//!   abort, then of a new slot.
//! - **Re-checked every tick, not on change.** Guards, reactive composites
//!   and prioritized lists ask their conditions at every tick, where
//!   Unreal's observer aborts fire when an observed key changes: a branch
//!   that ended (its `Timeout` ran out) while its condition still holds is
//!   taken again at the next tick. To give up for a while, put it under a
//!   `Cooldown`, or have the branch clear the key it waits on.
//! - **Reports take a tick.** What the game reports on an action in `Act`
//!   (succeeded, failed) reaches the tree at its next tick, which goes on
//!   from there in that tick: a `Sequence` of an action and a `Wait(0.25)`
//!   at 10 Hz takes the action's ticks, one tick for the report, then the
//!   wait's three.
//! - **Relevancy.** A node is relevant when its tags match and its guard
//!   holds: a sequence's leading conditions, an impulse's `when` (an impulse
//!   without `when` is always relevant), a cooldown not cooling down. Halo
//!   schemes skip children that are not relevant; asking a guard is not a
//!   tick (traces list ticks only).
//! - **Tags.** A node whose tag mask does not match is ignored entirely (the
//!   Halo seed): it is not ticked, a running one is halted, and it reports
//!   `Skipped`, so its parent carries on as if it were not there. A masked
//!   condition inside a guard simply does not hold.
//! - **Impulses.** An impulse's `when` stands in for its behavior's guards:
//!   once it wins, the behavior runs (in place, or at its native position for
//!   `mode: Redirect`) without its own leading guards being asked; while it
//!   runs, `when` is its guard, re-checked every tick. When `when` stops
//!   holding, an in-place behavior stops; a redirected one keeps running only
//!   if its native parent runs it in the same tick (its own guards hold
//!   there), else it stops. A redirect runs the behavior's own nodes, keeping
//!   their state at its native position; the native ancestors are not started
//!   by it. A redirect needs exactly one native position outside the impulse:
//!   a behavior placed twice, or one that contains the impulse, is a compile
//!   error.
//! - **Parallel** decides after each child (BT.CPP): successes reaching the
//!   success threshold succeed; failures reaching the failure threshold, or a
//!   success threshold out of reach, fail; then the running children are
//!   halted and later children are not ticked in that tick. `ParallelAll`
//!   never stops early.
//! - **Activations.** A node started afresh by its parent (including the root
//!   of a repeating tree starting a new cycle) begins with COMPLETE and
//!   WAS_COMPLETE cleared, itself and its subtree; within one activation
//!   WAS_COMPLETE latches (Trainz). Trainz rules do not fail: a child of
//!   `Ordered` or `Simultaneous` that fails is started again on the next tick
//!   (the parent waits for it). `Simultaneous` leaves COMPLETE children alone,
//!   but a COMPLETE condition rule keeps checking its condition (traces show
//!   it ticked) and may lose COMPLETE, never WAS_COMPLETE.
//! - **Time.** A duration of S seconds at H ticks per second lasts round(S·H)
//!   ticks, halves rounding up (durations are kept in whole milliseconds): a
//!   `Wait(seconds: 1.0)` at 30 Hz runs 30 ticks and succeeds in the 31st; a
//!   stimulus of 1.5 s competes in 45 ticks; 0.05 s at 30 Hz is 2 ticks. A
//!   `Timeout` is checked before its child: in the tick its time is up the
//!   child is halted, not ticked.
//! - **Loops.** `Repeat` and `RetryUntilSuccessful` start the next run in the
//!   tick the last one ended, at most [`LOOPS_PER_TICK`] runs per tick.
//!   `RunMode::Repeat` restarts the root in the tick it finished.
//! - **Skipped.** A node with nothing to do (`RunOnce` after its run, a
//!   masked node) reports `Skipped`; sequences and selectors carry on, a
//!   composite whose children all skipped is skipped itself. A `Parallel`
//!   whose `success` is `All` (the default) counts a skipped child as a
//!   success; with `success: Count(n)` a skipped child counts neither way
//!   (as BT.CPP 4.x's `ParallelNode` with its default threshold -1 and
//!   with a count).
//!
//! ## In an app
//!
//! ```no_run
//! use bevy::prelude::*;
//! use wyrd_bt::prelude::*;
//!
//! bt_action! {
//!     /// Fire at the target.
//!     pub struct Shoot {
//!         /// Whom: `"{target}"` in the tree.
//!         pub at: Entity,
//!     }
//! }
//!
//! fn main() {
//!     App::new()
//!         .add_plugins((MinimalPlugins, AssetPlugin::default(), BtPlugin::default()))
//!         .add_bt_action::<Shoot>()
//!         .add_systems(Startup, |mut commands: Commands, server: Res<AssetServer>| {
//!             commands.spawn(BehaviorTree::new(server.load("squad/grunt.bt.ron")));
//!         })
//!         .add_systems(FixedUpdate, shoot.in_set(BtSystems::Act))
//!         .run();
//! }
//!
//! /// Only the agents running `Shoot`, its parameters read (one whose
//! /// target key is not set fails, as an `AgentProblem` on the agent).
//! fn shoot(mut shots: Running<Shoot>) {
//!     shots.for_each(|mut shot| {
//!         info!("{} shoots at {}", shot.entity(), shot.params().at);
//!         shot.succeed(); // or keep it running over several ticks
//!     });
//! }
//! ```

//! ## Utility selection
//!
//! A `Utility` runs the option that scores best, instead of the first in
//! a priority list. Each child has a `score`: its considerations, each an
//! input (`Bb("hunger")`, a number or bool key or a behavior parameter;
//! `World("THREAT")`; `Check(..)`, any condition, 1 or 0) mapped into 0..1
//! by its `range` (clamped; `(100, 0)` falls as the input rises) and
//! shaped by its `curve` (`Linear`, `Power(2.0)`, `Logistic(steepness:,
//! midpoint:)`, `Step(t)`; `invert: true` takes 1 minus the curve's
//! value, after the curve: `Power(0.5)` inverted at 0.1 is 1 − √0.1),
//! combined by the Utility's
//! `combine` (`Product` with the usual compensation for many factors, the
//! default; `Sum`, a weighted average; `Min` / `Max`, StateTree's AND /
//! OR), times the score's `weight` (default 1; no considerations: the
//! score is the weight). An unset key or unknown world value reads 0.
//! A quiet agent skips its walk with a `commit` too: it walks at the first
//! tick after a commitment the last walk kept has ended (the choice may go
//! to another option then), and while committed only when an input
//! changed. (A commitment made every such tree walk every tick: 121
//! against 45 ns per agent-tick in a new user's 10,000-agent crowd.)
//!
//! ```ron
//! Utility(name: "needs", margin: 0.15, commit: 1.0, children: [
//!     Action(name: "eat", action: "Eat", score: (consider: [
//!         (input: Bb("hunger"), curve: Power(2.0)),
//!     ])),
//!     Action(name: "sleep", action: "Sleep", score: (consider: [
//!         (input: Bb("fatigue")),
//!         (input: Bb("danger"), invert: true),
//!     ])),
//!     Action(name: "idle", action: "Idle", score: (weight: 0.05)),
//! ])
//! ```
//!
//! Each tick (when something it reads changed: a quiet agent skips its
//! walk as with any tree) every relevant child scores; a child that is not
//! relevant (its tags or leading guards) or scores 0 is no option. With
//! nothing running the best option is tried, then the next best if it
//! fails at once; none left, the Utility fails. Against dithering: a
//! running child is kept unless another beats its score by more than
//! `margin` (default 0.1), and for its first `commit` seconds (default 0)
//! whatever the scores; a challenger replaces it only if it takes over
//! (runs or succeeds), so nothing is aborted and restarted in a tick. A
//! running child that succeeds ends the Utility with success; one that
//! fails gives way to the next best. A running child that the game's
//! report ends (the action itself, or a sequence whose last action it is)
//! takes that report before any challenger is tried, so an action that
//! finishes and changes the inputs in the same step (eating lowers hunger)
//! ends, rather than being aborted by the scores it changed; a child that
//! goes on meets its challengers first, as before. Equal scores go to the
//! agent's seeded random numbers (`ties: First`: the first, StateTree's
//! rule). The tick
//! trace, `wyrd sim`'s lines (`"utility": [..]`), the flight recorder and
//! the inspector (why lines, history) show each child's score and why the
//! winner won (`best`, `beat sleep by 0.32`, `kept`, `committed`).
//! `assets/utility/villager.bt.ron` is a whole one.
//!
//! ## Crowds: tick tiers
//!
//! [`BtTier::every(n)`](BtTier::every) makes an agent's tree tick every nth
//! step, the agents of a period spread over its phases so each step does
//! about the same work; a tiered agent's clock advances by the steps since
//! its last tick, and it counts durations in the schedule's steps: a Wait,
//! a cooldown or a stimulus ends at the agent's first tick after it passed
//! (a 1.5 s stimulus of an agent ticking every 16th step of 30 Hz ends
//! 1.5 s to 1.5 s + 16 steps after its time started).
//! [`BtTiers`] holds the plan: a `budget` of tiered ticks per step (longer
//! periods wait first, `max_missed` bounds how long; set it on the
//! resource: `app.world_mut().resource_mut::<BtTiers>().budget =
//! Some(2_000)`, or from a system with `ResMut<BtTiers>`) and
//! [`BtTiers::wake`]; `BtTier::every(16).waking_on_change()` wakes on a
//! blackboard or agent change. Set the tier from distance or importance,
//! inserting it only when it changes (an insert moves the agent between
//! groups). A tiered agent's actions reach [`Running`] in the steps it
//! ticks.
//!
//! ## Stimuli
//!
//! A stimulus is a named behavior (under `behaviors`, not placed in the
//! tree) that game code inserts into a running agent for a while: Halo 2's
//! "leader died: flee", a noise to investigate.
//! `agent.insert_stimulus("root", "investigate", 0, 1.5)` makes it a child
//! of the composite at path `root`, at `priority` (0 = before the first
//! child, k = just before child k: it competes with the children after it
//! and yields to those before), for 1.5 s of the agent's time (round(S·H)
//! ticks). Its time starts at the agent's first tick after the insertion,
//! counted from one step before it: at once for an agent that ticks every
//! step or wakes on change; an agent of a slow tier notices it at its next
//! tick, and it then lasts its whole time. While it lasts, its behavior
//! runs like any child there: when it finishes it starts again, so a one-step behavior re-runs every tick
//! until the stimulus expires; then it leaves the tree (halted if running)
//! and the composite goes on. Inserting the same behavior again renews it;
//! at most [`MAX_STIMULI`] at once. Its nodes show under the node it was
//! inserted at (`root/investigate/Listen`) in traces, scripts and the
//! inspector. `examples/first_ai.rs` inserts one.
//!
//! ## Breakpoints
//!
//! A `NAME.breakpoints.ron` file beside a tree stops the trees at the
//! moment something happens: a node becomes running, succeeds, fails or is
//! aborted; an action starts, finishes or is aborted; a condition in the
//! tree's own syntax turns true; for the agent with a given `Name` or any
//! agent of the tree ([`BreakpointsDef`] has the format). Add
//! [`BtBreakpointsPlugin`], then load the file like any asset
//! (`asset_server.load::<BtBreakpointsFile>(..)`, keep the handle) or set
//! [`BtBreakpoints`] from code. A hit pauses every tree at
//! the end of that tick ([`BtSettings::paused`]; the game keeps running),
//! and [`BtBreakpoints::last_hit`] and a [`BtBreakpointHit`] message say
//! which agent, at which tick, and why; `steps` and `paused = false` go
//! on. `wyrd sim --break FILE` stops at the same breakpoints, and a
//! script's `expect_breaks` / `never_breaks` check them in CI. Without the
//! plugin nothing runs for breakpoints; with it, an agent whose tree has
//! none pays one `Option` test per tick.
//!
//! ## Headless (tests, servers, tools)
//!
//! `MinimalPlugins` + `AssetPlugin` + `BtPlugin`, with
//! `Time::<Fixed>::from_hz(H)` and
//! `TimeUpdateStrategy::ManualDuration(Duration::from_secs_f64(1.0 / H))`:
//! every `app.update()` after the first is then exactly one fixed step, one
//! tick of every tree (Bevy's first update starts the clock and runs no
//! fixed step). Nothing prints Wyrd's warnings and errors without Bevy's
//! `LogPlugin`: add it (or read `BtAgent::problems`, `SaveStatus`). Trees
//! wait for the world state's flags files to load before their first tick
//! (`BtPlugin::wait_for_world`); step until `world_state_ready` and the
//! tree's asset is loaded (`wyrd_test_support` has helpers that count
//! updates, never the wall clock).
//!
//! ## How the crate fits together (and adding a node kind)
//!
//! `def` (the file format, serde) → `compile` (checks names, types and
//! arities, lowers each node to a `Kind` in `compile/lower.rs`, lays the
//! tree out flat in depth-first order: a [`Program`]) → `runtime` (one
//! agent's tick over the shared program: `runtime/mod.rs` is the tick's
//! entry, `shortcuts.rs` the skip and the resume, `interp.rs` the walk and
//! its bookkeeping, `state.rs` the agent's state, one file per node family
//! ticks its kinds) → the Bevy side (`asset.rs` the loader, `agent.rs` the
//! components and one agent's update, `resources.rs`, `systems.rs`,
//! `plugin.rs`).
//!
//! Modules depend on each other one way, from the ground up: `status`
//! (node status, rule flags), `kind` (the table), `value` and `rng` import
//! nothing of the crate; then `blackboard` (owns its key layout), `custom`
//! (the custom-node API over a host trait the interpreter implements),
//! `program`, `registry`, `compile` and `runtime` (neither imports the
//! other: the decision table's data lives beside `Program`, its builder in
//! `runtime/fresh.rs`), the views and tools (`breakpoints` among them),
//! and the Bevy side last (`debugger`: the breakpoints resource, asset and
//! system).
//! `tests/bt/layering.rs` reads the `use` lines and fails on any circle. `Kind::info` is the one table of
//! per-kind facts the compiler and the runtime read: family, child counts,
//! what state the node needs and how it starts, whether it reads time, how
//! it folds into one condition when instant, when it can complete, whether
//! it draws random numbers, whether the resume shortcut can continue it,
//! whether its leading conditions are guards, whether its children run at
//! once, whether a stimulus can target it, what makes it relevant (its
//! guard, or `Cooldown`'s timer), its rule and equivalents (the docs
//! table). No other code lists kinds to decide one of these facts.
//!
//! Adding a node kind touches these places, nothing else:
//! 1. **its row in the table** (`kind/table.rs`): one entry of
//!    `kind_table!`, its name with its payload fields (type and the
//!    placeholder `Kind::ALL` uses) and its `KindInfo`, a struct literal
//!    whose every field is a fact above, with an `example` node as a file
//!    writes it. The `Kind` enum, `Kind::info` and `Kind::ALL` are made
//!    from that one list. Arity checks, state slots, their initial values,
//!    skippability, instant folding, DOES_COMPLETE, random state, guards,
//!    action slots and stimuli follow from the row: the compiler and the
//!    interpreter's bookkeeping need no edit, and `kind::row_tests` checks
//!    the row against what a tree of the kind (built from its `example`)
//!    does;
//! 2. **its function in its family file** (`runtime/<family>.rs`): its
//!    tick function and its arm in that file's dispatch (`tick_standard`,
//!    `tick_halo`, ...);
//! 3. **the def parsing**: its line in `node_defs!` (`def.rs`: the file's
//!    name for it and its fields struct; a new shape of fields is one
//!    `node_struct!`, marked `<children>` or `<child>` when it has them),
//!    and its arm in `compile/lower.rs` that turns the file's node into the
//!    kind's payload;
//! 4. **a conformance case** under `tests/conformance/`, citing its source.
//!
//! Then regenerate `NODES.md` (`cargo test -p wyrd_bt --test bt node_table`
//! prints the table when it differs).

mod agent;
mod asset;
mod blackboard;
mod breakpoints;
mod clock;
mod compile;
mod custom;
mod debugger;
mod def;
mod dispatch;
mod kind;
mod persist;
mod plugin;
mod problem;
mod program;
mod recorder;
mod registry;
mod resources;
mod rng;
pub mod rows;
mod runtime;
pub mod sim;
mod status;
mod systems;
mod tier;
mod tier_tables;
mod value;
mod view;
mod vocab_file;

pub use agent::{BehaviorTree, BtAgent, RunMode};
pub use asset::{BtAsset, BtLoadError, BtLoader};
pub use blackboard::{Blackboard, BlackboardError};
pub use breakpoints::{
    BreakHit, BreakOn, BreakWatch, BreakpointDef, BreakpointError, Breakpoints, BreakpointsDef,
    BtBreakpointHit, BtBreakpoints, TickSeen,
};
pub use compile::{
    BtError, BtProblem, FileUse, ParsedFile, above_root, closest_name, compile, compile_all,
    compile_str, file_refs, file_uses, load_tree_files, parse_tree, parse_tree_all, resolve,
    with_caret,
};
pub use debugger::{BtBreakpointsFile, BtBreakpointsLoader, BtBreakpointsPlugin};
pub use def::{Check, ImpulseMode, NodeDef, Policy, TreeDef};
pub use dispatch::{ActionRuns, Running, RunningAction, RunningActions};
pub use kind::{Family, KindInfo, kinds, node_table};
pub use persist::{
    RestoreError, RestoreReport, SAVED_TREE_FORMAT, SavedAction, SavedNode, SavedStimulus,
    SavedTree, TreeDiff, diff, restore,
};
pub use plugin::{BtAppExt, BtPlugin, BtSystems};
pub use problem::AgentProblem;
pub use program::{ActionInfo, GlobalRef, NONE, Param, ParamError, Port, Program};
pub use recorder::{
    MAX_RECORDED_TICKS, RECORDING_FORMAT, RecordedChoice, RecordedStimulus, RecordedTick, Recorder,
    Recording, StartState, node_text,
};
pub use registry::{
    ActionField, ActionId, BtAction, BtRegistry, CustomNode, Out, ParamSpec, PredicateArgs,
    PredicateFn, Vocabulary,
};
pub use resources::{BtGlobals, BtSettings, BtStats, Declared};
pub use rng::SplitMix64;
pub use runtime::{
    ActionEvent, ActionState, ActiveAction, AgentState, BtActions, ChildScore, CustomCtx,
    LOOPS_PER_TICK, MAX_STIMULI, NodeState, PredicateStub, SnapshotStimulus, StateSnapshot, Status,
    Stimulus, StimulusError, TickEnv, TickKind, TickTrace, UtilityChoice, UtilityDecision,
    UtilityReason, tick_agent, tick_agent_traced,
};
pub use systems::{BtReloads, RestoreTree};
pub use tier::{BtTier, BtTiers};
pub use value::{Bindings, FromValue, Op, Sym, Value, ValueDef, ValueType};
pub use view::{ImpulseView, NodeView, Progress, RuleFlags};
pub use vocab_file::{
    ActionDecl, NodeDecl, ParamDecl, VOCABULARY_FORMAT, VOCABULARY_VERSION, VocabularyError,
    VocabularyFile,
};

/// The names most users need.
pub mod prelude {
    pub use crate::{
        ActionId, ActionRuns, ActionState, AgentProblem, BehaviorTree, Blackboard, BtAction,
        BtActions, BtAgent, BtAppExt, BtAsset, BtBreakpointHit, BtBreakpoints, BtBreakpointsFile,
        BtBreakpointsPlugin, BtGlobals, BtPlugin, BtSettings, BtStats, BtSystems, BtTier, BtTiers,
        Out, RunMode, Running, Status, Sym, Value, ValueType, bt_action,
    };
}
