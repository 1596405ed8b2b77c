//! The custom-node API: the trait a game implements for its own composites
//! and decorators, and the context a node ticks with. The context reaches
//! the interpreter through [`CustomHost`], so this module (and the program,
//! which holds the game's nodes) needs nothing of the runtime.

use crate::blackboard::{Blackboard, BlackboardError};
use crate::status::Status;
use crate::value::Value;

/// A game-defined composite, decorator or leaf ("everything is
/// customizable"). A leaf (`arity` `(0, 0)`) that succeeds or fails in
/// the tick it is ticked, reading and writing the blackboard, is
/// BehaviorTree.CPP's `SyncActionNode`: a sequence of them completes in one
/// tick, where an `Action` waits for the game's systems (see
/// [`CustomCtx::set`]). It ticks inside the tree's parallel
/// tick: keep it to the blackboard, its parameters and the agent's clock.
///
/// ```
/// use wyrd_bt::prelude::*;
/// use wyrd_bt::{CustomCtx, CustomNode};
///
/// /// Succeeds when at least half of its children succeed, ticking all.
/// struct Majority;
/// impl CustomNode for Majority {
///     fn tick(&self, ctx: &mut CustomCtx<'_, '_>) -> Status {
///         let (mut ok, mut running) = (0, false);
///         for k in 0..ctx.child_count() {
///             match ctx.tick_child(k) {
///                 Status::Success => ok += 1,
///                 Status::Running => running = true,
///                 _ => {}
///             }
///         }
///         if running { Status::Running }
///         else if ok * 2 >= ctx.child_count() { Status::Success }
///         else { Status::Failure }
///     }
/// }
/// ```
///
/// A leaf that computes an output for the nodes after it:
///
/// ```
/// use wyrd_bt::prelude::*;
/// use wyrd_bt::{CustomCtx, CustomNode};
///
/// /// Writes `goal` = `base` + 1 and succeeds (BT.CPP: a `SyncActionNode`
/// /// with an output port).
/// struct NextGoal;
/// impl CustomNode for NextGoal {
///     fn arity(&self) -> (usize, usize) {
///         (0, 0)
///     }
///     fn tick(&self, ctx: &mut CustomCtx<'_, '_>) -> Status {
///         let base = match ctx.blackboard().get("base") {
///             Some(Value::Int(n)) => n,
///             _ => 0,
///         };
///         match ctx.set("goal", base + 1) {
///             Ok(()) => Status::Success,
///             Err(_) => Status::Failure,
///         }
///     }
/// }
/// ```
pub trait CustomNode: Send + Sync + 'static {
    /// Allowed number of children, inclusive (default: one or more).
    fn arity(&self) -> (usize, usize) {
        (1, usize::MAX)
    }
    /// The parameters it reads with [`CustomCtx::param`], by name and type
    /// (default `None`: not declared, any accepted). Declared, each use in
    /// a tree is checked when it loads and by `wyrd check` (the vocabulary
    /// file carries them): a name not in the list (with the nearest), a
    /// required one left out, one of another type; one left out reads its
    /// default ([`ParamSpec::optional`](crate::ParamSpec::optional)).
    fn params(&self) -> Option<&[crate::value::ParamSpec]> {
        None
    }
    /// One tick of the node. Children not ticked are considered paused.
    fn tick(&self, ctx: &mut CustomCtx<'_, '_>) -> Status;
}

/// Context handed to [`CustomNode::tick`].
pub struct CustomCtx<'i, 'a> {
    pub(crate) host: &'i mut (dyn CustomHost + 'a),
    pub(crate) node: u32,
}

/// What a custom node's context asks of the interpreter ticking it (the
/// runtime implements it).
pub(crate) trait CustomHost {
    fn child_count(&self, node: u32) -> usize;
    fn tick_child(&mut self, node: u32, k: usize) -> Status;
    fn halt_child(&mut self, node: u32, k: usize);
    fn relevant(&mut self, node: u32, k: usize) -> bool;
    fn cursor(&mut self, node: u32) -> &mut u16;
    fn aux(&mut self, node: u32) -> &mut u32;
    fn param(&self, node: u32, name: &str) -> Option<Value>;
    fn now_ms(&self) -> u32;
    fn random(&mut self) -> u64;
    fn blackboard(&self) -> &Blackboard;
    fn blackboard_mut(&mut self) -> &mut Blackboard;
}

impl CustomCtx<'_, '_> {
    /// Number of children.
    pub fn child_count(&self) -> usize {
        self.host.child_count(self.node)
    }

    /// Ticks child `k` (unpausing it).
    pub fn tick_child(&mut self, k: usize) -> Status {
        self.host.tick_child(self.node, k)
    }

    /// Stops child `k` if it runs.
    pub fn halt_child(&mut self, k: usize) {
        self.host.halt_child(self.node, k);
    }

    /// Whether child `k` is relevant now (tags and guards).
    pub fn relevant(&mut self, k: usize) -> bool {
        self.host.relevant(self.node, k)
    }

    /// The node's cursor (reset to 0 when it starts).
    pub fn cursor(&mut self) -> &mut u16 {
        self.host.cursor(self.node)
    }

    /// The node's aux word (reset to 0 when it starts).
    pub fn aux(&mut self) -> &mut u32 {
        self.host.aux(self.node)
    }

    /// A parameter from the tree file.
    pub fn param(&self, name: &str) -> Option<Value> {
        self.host.param(self.node, name)
    }

    /// Agent time in ms.
    pub fn now_ms(&self) -> u32 {
        self.host.now_ms()
    }

    /// A random number from the agent's seeded generator.
    pub fn random(&mut self) -> u64 {
        self.host.random()
    }

    /// The agent's blackboard.
    pub fn blackboard(&self) -> &Blackboard {
        self.host.blackboard()
    }

    /// Writes a blackboard key, typed as the tree declares it: the nodes
    /// after this one read it in the same tick (as after `SetBlackboard`),
    /// and the component is marked changed. A leaf that computes an
    /// output, writes it and succeeds at once is BehaviorTree.CPP's
    /// `SyncActionNode` with an output port. (Only keys are written: the
    /// blackboard's layout is the tree's.)
    pub fn set(&mut self, key: &str, value: impl Into<Value>) -> Result<(), BlackboardError> {
        self.host.blackboard_mut().set(key, value)
    }

    /// Makes a blackboard key unset (as `UnsetBlackboard`).
    pub fn clear(&mut self, key: &str) -> Result<(), BlackboardError> {
        self.host.blackboard_mut().clear(key)
    }
}
