//! The compiled, flat, immutable form of a tree.

use std::collections::HashMap;
use std::sync::Arc;

pub use crate::blackboard::Port;
use crate::blackboard::{Blackboard, BlackboardError, KeyLayout, KeyNames};
use crate::custom::CustomNode;
use crate::status::Status;
use crate::value::{FromValue, Op, Value, ValueType};

/// Index of "none" in `u32` fields.
pub const NONE: u32 = u32::MAX;

pub(crate) use crate::kind::Kind;

mod action;
pub use action::{ActionInfo, Param, ParamError};
mod utility;
pub use utility::MAX_OPTIONS;
pub(crate) use utility::{Consideration, ScoreInfo, ScoreSource, UtilityInfo};

/// A compiled condition.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Cond {
    /// Blackboard key `key` compared with a value.
    Bb {
        /// Key index.
        key: u16,
        /// Operator.
        op: Op,
        /// Right-hand side.
        value: Value,
    },
    /// Blackboard key `key` compared with key `other`.
    BbKey {
        /// Key index.
        key: u16,
        /// Operator.
        op: Op,
        /// The other key.
        other: u16,
    },
    /// A bool blackboard key has this value (the common case, kept apart so
    /// it is a single compare).
    BbIs {
        /// Key index.
        key: u16,
        /// Expected value.
        value: bool,
    },
    /// Bool keys below 64 all have the wanted values: `(bits ^ want) & mask
    /// == 0` over [`Blackboard::bools`](crate::Blackboard::bools) (folded
    /// from `BbIs`, `All` and `Not` at compile time: one instruction for a
    /// whole guard).
    Bits {
        /// The keys' bits.
        mask: u64,
        /// Their wanted values.
        want: u64,
    },
    /// At least one of the bool keys in `mask` has its wanted value.
    AnyBits {
        /// The keys' bits.
        mask: u64,
        /// Their wanted values.
        want: u64,
    },
    /// Registered predicate (index into [`Program::predicates`]).
    Predicate(u32),
    /// The agent has all of these tag bits.
    Tags(u64),
    /// All conditions `list[start..start+len]` hold.
    All {
        /// First index into [`Program::cond_lists`].
        start: u32,
        /// Count.
        len: u32,
    },
    /// Any of them holds.
    Any {
        /// First index into [`Program::cond_lists`].
        start: u32,
        /// Count.
        len: u32,
    },
    /// The condition at this index does not hold.
    Not(u32),
    /// Always this value (`Succeed` / `Fail` inside guards).
    Const(bool),
    /// Tag requirements of a node inside a guard.
    TagReq {
        /// All of these.
        all: u64,
        /// One of these (0: none required).
        any: u64,
        /// None of these.
        not: u64,
    },
    /// A world value (index into [`Program::globals`]) compared with a value.
    Global {
        /// Index into [`Program::globals`].
        slot: u32,
        /// Operator.
        op: Op,
        /// Right-hand side.
        value: Value,
    },
}

/// A world value a program reads, with where the file names it (so that a
/// name the world does not know is reported with file:line:column when the
/// tree binds).
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalRef {
    /// The name.
    pub name: String,
    /// The value a world action writes to it
    /// ([`Vocabulary::world_actions`](crate::Vocabulary::world_actions)),
    /// its first such write; `None` when conditions only read it.
    pub written: Option<crate::Value>,
    /// File.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

impl GlobalRef {
    /// What its entry is, when the value a world action writes to it does
    /// not fit (`a flag (true or false)`, `a counter (a whole number)`);
    /// `None` when it fits or nothing writes it. `flag`: it is declared a
    /// flag (else a counter). The game's load and `wyrd check` say it alike.
    pub fn write_misfit(&self, flag: bool) -> Option<&'static str> {
        let fits = match self.written? {
            Value::Bool(_) => flag,
            Value::Int(_) => !flag,
            Value::Float(f) => !flag && f.fract() == 0.0,
            _ => false,
        };
        let what = if flag {
            "a flag (true or false)"
        } else {
            "a counter (a whole number)"
        };
        (!fits).then_some(what)
    }
}

impl Node {
    /// Whether it is a leaf: a leaf kind, or the game's custom node
    /// without children (BT.CPP's action nodes written as the game's own).
    pub(crate) fn is_leaf(&self) -> bool {
        self.kind.is_leaf() || (self.child_count == 0 && matches!(self.kind, Kind::Custom { .. }))
    }
}

/// One node of the flat program (depth-first order).
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// What it does.
    pub(crate) kind: Kind,
    /// Parent index, or [`NONE`].
    pub(crate) parent: u32,
    /// Index one past the node's subtree.
    pub(crate) end: u32,
    /// First index into [`Program::children`].
    pub(crate) first_child: u32,
    /// Number of (static) children.
    pub(crate) child_count: u16,
    /// Depth from the root (0).
    pub(crate) depth: u16,
    /// Tag bits the agent must all have.
    pub(crate) tags_all: u64,
    /// Tag bits of which the agent must have one (0: no requirement).
    pub(crate) tags_any: u64,
    /// Tag bits the agent must not have.
    pub(crate) tags_not: u64,
    /// Whether any of the three tag masks is set (read on the hot path
    /// instead of the masks).
    pub(crate) tagged: bool,
    /// Trainz DOES_COMPLETE: whether the node can ever complete.
    pub(crate) does_complete: bool,
    /// The subtree is made of conditions only: it finishes in the tick it
    /// starts and has no effects (usable as a guard).
    pub(crate) instant: bool,
    /// Leading instant children of a sequence (its guards).
    pub(crate) guard_len: u16,
    /// Index into the agent's aux words, or [`NONE`].
    pub(crate) aux: u32,
    /// Index into the agent's cursors (composites that walk their children
    /// in order or remember a choice), or [`NONE`].
    pub(crate) cursor: u32,
    /// The node's relevancy as one compiled condition (its guards, or its
    /// own condition), or [`NONE`] for "always". Tags are checked apart.
    pub(crate) guard: u32,
    /// The kind's facts the tick reads, copied from [`Kind::info`] when the
    /// tree compiles (so the hot path does not ask the table).
    pub(crate) facts: NodeFacts,
}

/// The per-kind facts a tick needs, one byte each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NodeFacts {
    /// Which interpreter family ticks it.
    pub(crate) family: crate::kind::Family,
    /// How its aux word starts.
    pub(crate) aux: crate::kind::AuxInit,
    /// How its cursor starts.
    pub(crate) cursor: crate::kind::CursorInit,
    /// Its children run at once ([`Kind::concurrent`]).
    pub(crate) concurrent: bool,
    /// How it reads as one condition when instant.
    pub(crate) instant: crate::kind::Instant,
    /// What makes it relevant.
    pub(crate) relevance: crate::kind::Relevance,
}

impl NodeFacts {
    /// The facts of a kind.
    pub const fn of(kind: &Kind) -> Self {
        let info = kind.info();
        NodeFacts {
            family: info.family,
            aux: info.aux,
            cursor: info.cursor,
            concurrent: info.concurrent,
            instant: info.instant,
            relevance: info.relevance,
        }
    }
}

impl Node {
    /// Whether the node asks anything of the agent's tags.
    #[inline]
    pub fn is_tagged(&self) -> bool {
        self.tagged
    }
}

/// A `SetBlackboard` node's write: the key, and the value (a constant, or
/// another key copied).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BbWrite {
    /// The key written.
    pub(crate) key: u16,
    /// What is written.
    pub(crate) value: Param,
}

/// Identity of an action: a 32-bit hash of its name, so that it can be a
/// constant in game code (`const SHOOT: ActionId = ActionId::of("Shoot");`).
/// 32 bits keep an action slot at 16 bytes; two names of one tree that
/// hash alike are a compile error ([`BtProblem::ActionIdClash`](crate::BtProblem)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, bevy::reflect::Reflect)]
// The reflected type path from before the move (scenes and remote clients
// name types by it).
#[type_path = "wyrd_bt::registry"]
pub struct ActionId(pub u32);

impl ActionId {
    /// The id of an action name (32-bit FNV-1a).
    pub const fn of(name: &str) -> ActionId {
        let bytes = name.as_bytes();
        let mut hash: u32 = 0x811c_9dc5;
        let mut i = 0;
        while i < bytes.len() {
            hash ^= bytes[i] as u32;
            hash = hash.wrapping_mul(0x0100_0193);
            i += 1;
        }
        ActionId(hash)
    }
}

/// A registered Rust predicate: a pure function of the agent's blackboard
/// (values and tags).
pub type PredicateFn = Arc<dyn Fn(&Blackboard, &PredicateArgs<'_>) -> bool + Send + Sync>;

/// The arguments of one predicate call in a tree
/// (`Predicate("within", {"of": "{target}", "meters": 8.0})`), resolved at
/// compile time: constants, or keys read on the agent's blackboard.
#[derive(Clone, Copy)]
pub struct PredicateArgs<'a> {
    pub(crate) args: &'a [(Box<str>, Param)],
    pub(crate) bb: &'a Blackboard,
}

impl PredicateArgs<'_> {
    /// An argument by name, typed (`None`: missing, unset or another type).
    pub fn get<T: FromValue>(&self, name: &str) -> Option<T> {
        let (_, p) = self.args.iter().find(|(k, _)| &**k == name)?;
        p.read(self.bb).and_then(T::from_value)
    }

    /// An argument's value by name.
    pub fn value(&self, name: &str) -> Option<Value> {
        let (_, p) = self.args.iter().find(|(k, _)| &**k == name)?;
        p.read(self.bb)
    }

    /// The argument names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.args.iter().map(|(k, _)| &**k)
    }
}

/// An impulse, for the runtime and the global list of impulses.
#[derive(Debug, Clone)]
pub(crate) struct ImpulseInfo {
    /// The impulse node.
    pub(crate) node: u32,
    /// Referenced behavior.
    pub(crate) behavior: String,
    /// Relevancy condition, or [`NONE`] for "always".
    pub(crate) when: u32,
    /// Redirect target (the behavior's native node) or [`NONE`] when in
    /// place.
    pub(crate) redirect_to: u32,
}

/// A predicate call of the program.
#[derive(Clone)]
pub(crate) struct PredicateSlot {
    /// Its name.
    pub(crate) name: String,
    /// Its arguments, sorted by name.
    pub(crate) args: Box<[(Box<str>, Param)]>,
    /// Its implementation; `None` in tools that run trees without the game.
    pub(crate) f: Option<PredicateFn>,
}

impl std::fmt::Debug for PredicateSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PredicateSlot")
            .field("name", &self.name)
            .field("registered", &self.f.is_some())
            .finish()
    }
}

/// A custom node's registration and parameters.
#[derive(Clone)]
pub(crate) struct CustomInfo {
    /// Registered kind name.
    pub(crate) kind: String,
    /// The implementation.
    pub(crate) node: Arc<dyn CustomNode>,
    /// Parameters.
    pub(crate) params: Vec<(Box<str>, Value)>,
}

impl std::fmt::Debug for CustomInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CustomInfo")
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// A compiled tree: flat arrays, shared read-only by every agent running it.
#[derive(Debug, Clone, Default)]
pub struct Program {
    /// The file it came from.
    pub(crate) source: String,
    /// Nodes in depth-first order; `0` is the root. Nodes at and after
    /// [`detached_start`](Self::detached_start) are named behaviors kept for
    /// stimuli.
    pub(crate) nodes: Vec<Node>,
    /// Children of every node, flat.
    pub(crate) children: Vec<u32>,
    /// Path of every node (`root/engage/fight`).
    pub(crate) paths: Vec<String>,
    /// Path index.
    pub(crate) path_index: HashMap<String, u32>,
    /// First node of the detached behaviors.
    pub(crate) detached_start: u32,
    /// Detached behavior roots by name (stimuli).
    pub(crate) detached: HashMap<String, u32>,
    /// Tag names in bit order.
    pub(crate) tag_names: Vec<String>,
    /// Blackboard keys in index order.
    pub(crate) bb_keys: Vec<String>,
    /// Their types.
    pub(crate) bb_types: Vec<ValueType>,
    /// Their defaults (`None`: declared with a type only, unset until the
    /// game sets it).
    pub(crate) bb_defaults: Vec<Option<Value>>,
    /// The keys, their types and the tag names, shared with every bound
    /// blackboard.
    pub(crate) bb_names: Arc<KeyNames>,
    /// Conditions.
    pub(crate) conds: Vec<Cond>,
    /// Lists of condition indices (for `All` / `Any`).
    pub(crate) cond_lists: Vec<u32>,
    /// Predicates by index: name and implementation (`None` in tools that
    /// run trees without the game, like `wyrd sim`).
    pub(crate) predicates: Vec<PredicateSlot>,
    /// Action leaves.
    pub(crate) actions: Vec<ActionInfo>,
    /// Impulses.
    pub(crate) impulses: Vec<ImpulseInfo>,
    /// Custom nodes.
    pub(crate) customs: Vec<CustomInfo>,
    /// Case values of `Switch` nodes (per node, `child_count - 1` entries
    /// from the index in [`Kind::Switch`]).
    pub(crate) switch_cases: Vec<Value>,
    /// What `SetBlackboard` nodes write (the index in
    /// [`Kind::SetBlackboard`]).
    pub(crate) writes: Vec<BbWrite>,
    /// Probabilistic weights (per node, `child_count` entries from the index
    /// in [`Kind::Probabilistic`]).
    pub(crate) weights: Vec<f32>,
    /// `Utility` nodes (the index in [`Kind::Utility`]).
    pub(crate) utilities: Vec<UtilityInfo>,
    /// Scores of `Utility` children (per node, `child_count` entries from
    /// [`UtilityInfo::scores`]).
    pub(crate) scores: Vec<ScoreInfo>,
    /// Considerations of the scores.
    pub(crate) considerations: Vec<Consideration>,
    /// Number of aux words an agent needs.
    pub(crate) aux_count: u32,
    /// Number of cursors an agent needs.
    pub(crate) cursor_count: u32,
    /// Whether a walk with unchanged inputs is guaranteed to change nothing
    /// (no timers, counters, repeats or custom nodes), but for the end of a
    /// Utility's commitment (`commits`, checked apart): such agents skip
    /// the walk when nothing they read changed.
    pub(crate) skippable: bool,
    /// The Utilities with a commitment time, and that time (ms): the only
    /// time a skippable program's decisions depend on. A quiet tick skips
    /// its walk unless a commitment the last walk kept has ended since
    /// (`runtime::commitment_ended`); with them counted as timed, such a
    /// crowd walked every tick (2.7 times the tree's time).
    pub(crate) commits: Vec<(u32, u32)>,
    /// Whether a tick whose only news is an action's report may take it
    /// where the action is and go up from there instead of walking down
    /// from the root (see `runtime::resume_point`): skippable, made only of
    /// kinds whose loops can be continued after a child's result and that
    /// never tick a finished child again (prioritized lists, sequences,
    /// guard sequences, selectors; conditions, instant inverts, actions,
    /// constants), no impulses.
    pub(crate) resumable: bool,
    /// Whether a node draws random numbers (probabilistic, random one-off
    /// and select-one, custom nodes): only then does an agent keep a
    /// random state.
    pub(crate) random: bool,
    /// Whether a condition can read a key unset (a comparison not folded
    /// into a bit test): only then does an agent keep a mask of such keys.
    pub(crate) reads_unset: bool,
    /// Whether a node can read a key unset: a condition (`reads_unset`)
    /// or an action's input (`ActionInfo::needs`). Only then does an agent
    /// keep a mask of such keys.
    pub(crate) notes_unset: bool,
    /// The outcomes of fresh walks, when they depend on a few bool keys
    /// only (see `runtime::fresh`).
    pub(crate) fresh: Option<Box<FreshTable>>,
    /// Most actions that can run at once (parallels), stimuli excluded.
    pub(crate) max_concurrent_actions: u32,
    /// World values the program reads.
    pub(crate) globals: Vec<GlobalRef>,
    /// Per node: a hash of its own definition (children left out) and of
    /// the bindings it was placed with: equal signatures at the same path
    /// mean the node did not change between two versions of a tree.
    pub(crate) signatures: Vec<u64>,
    /// Per node: what it checks, as text (`?ammo<10 & ?#alert`), or empty.
    pub(crate) check_texts: Vec<String>,
    /// A hash of the texts of the files it was compiled from (FNV-1a):
    /// recordings and saved states name the exact tree they belong to.
    pub(crate) content_hash: u64,
}

impl Program {
    /// Node index of a path.
    pub fn node(&self, path: &str) -> Option<u32> {
        self.path_index.get(path).copied()
    }

    /// The static children of a node.
    pub fn children_of(&self, node: u32) -> &[u32] {
        let n = &self.nodes[node as usize];
        &self.children[n.first_child as usize..n.first_child as usize + n.child_count as usize]
    }

    /// Index of a blackboard key.
    pub fn bb_key(&self, name: &str) -> Option<u16> {
        self.bb_keys
            .iter()
            .position(|k| k == name)
            .map(|i| i as u16)
    }

    /// Bit of a tag.
    pub fn tag_bit(&self, name: &str) -> Option<u64> {
        self.tag_names
            .iter()
            .position(|t| t == name)
            .map(|i| 1u64 << i)
    }

    /// The action data of an action leaf.
    #[inline]
    pub fn action_of(&self, node: impl Into<u32>) -> Option<&ActionInfo> {
        match self.nodes.get(node.into() as usize)?.kind {
            Kind::Action { action } => self.actions.get(action as usize),
            _ => None,
        }
    }

    /// Action slots an agent reserves: running ones, plus ones aborted in the
    /// same tick, plus stimuli.
    pub fn action_capacity(&self) -> usize {
        (2 * self.max_concurrent_actions as usize + 2).min(self.actions.len().max(1))
    }

    /// The number of nodes of the main tree (without detached behaviors).
    pub fn main_len(&self) -> usize {
        self.detached_start as usize
    }

    /// The last segment of a node's path.
    pub fn name(&self, node: u32) -> &str {
        let p = &self.paths[node as usize];
        p.rsplit('/').next().unwrap_or(p)
    }
}

/// The outcomes of a program's fresh walk, one per combination of the bool
/// keys its conditions read. Each entry is an image of the agent's
/// per-node allocation with a mask, so that applying one is a loop over a
/// few dozen words: `new = old & keep | value`. Per byte of a node state:
/// the entry's where the walk ticked the node; the old status with the
/// rule flags of a node passed by (paused, DOES_COMPLETE) elsewhere. Per
/// cursor and aux word: the entry's where the walk entered the composite,
/// the old one elsewhere. Built and read by `runtime::fresh` (it runs the
/// interpreter); kept here, beside the program it belongs to.
#[derive(Debug, Clone, Default)]
pub(crate) struct FreshTable {
    /// The bit of each key the table is indexed by, low bit first.
    pub(crate) bits: Vec<u8>,
    /// When those bits are contiguous, the lowest (the entry is a shift
    /// and a mask of the bools); `u32::MAX` otherwise.
    pub(crate) shift: u32,
    /// Words of the allocation; per entry, `words` of each.
    pub(crate) words: usize,
    pub(crate) keep: Vec<u32>,
    pub(crate) value: Vec<u32>,
    /// Per entry, the actions started (leaf nodes, in order): a range of
    /// `started`.
    pub(crate) started_at: Vec<(u32, u32)>,
    pub(crate) started: Vec<u32>,
    /// Per entry, the root's status.
    pub(crate) status: Vec<Status>,
}

/// The blackboard calls a program offers (the blackboard itself knows only
/// key layouts, not programs).
impl Blackboard {
    /// Whether the blackboard is laid out for this program.
    pub fn is_bound_to(&self, program: &Program) -> bool {
        self.is_laid_out_as(program.key_layout())
    }

    /// Lays the blackboard out for a program: declared keys with defaults,
    /// then values set earlier by name. Returns the values that did not fit
    /// (unknown keys or wrong types), which are dropped.
    pub fn bind(&mut self, program: &Program) -> Vec<BlackboardError> {
        self.lay_out(program.key_layout())
    }
}

impl Program {
    /// The program's blackboard layout.
    pub(crate) fn key_layout(&self) -> KeyLayout<'_> {
        KeyLayout {
            names: &self.bb_names,
            defaults: &self.bb_defaults,
        }
    }
}
