//! What game code registers: actions, predicates, custom nodes.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use bevy::ecs::resource::Resource;

use crate::blackboard::Blackboard;
use crate::runtime::{CustomCtx, Status};

/// Identity of an action: a 64-bit hash of its name, so that it can be a
/// constant in game code (`const SHOOT: ActionId = ActionId::of("Shoot");`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ActionId(pub u64);

impl ActionId {
    /// The id of an action name (FNV-1a).
    pub const fn of(name: &str) -> ActionId {
        let bytes = name.as_bytes();
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        let mut i = 0;
        while i < bytes.len() {
            hash ^= bytes[i] as u64;
            hash = hash.wrapping_mul(0x0100_0000_01b3);
            i += 1;
        }
        ActionId(hash)
    }
}

/// A registered Rust predicate: a pure function of the agent's blackboard
/// (values and tags).
pub type PredicateFn = Arc<dyn Fn(&Blackboard) -> bool + Send + Sync>;

/// A game-defined composite or decorator ("everything is customizable").
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
pub trait CustomNode: Send + Sync + 'static {
    /// Allowed number of children, inclusive (default: one or more).
    fn arity(&self) -> (usize, usize) {
        (1, usize::MAX)
    }
    /// One tick of the node. Children not ticked are considered paused.
    fn tick(&self, ctx: &mut CustomCtx<'_, '_>) -> Status;
}

/// The names trees may use: registered actions, predicates, custom nodes.
#[derive(Default, Clone)]
pub struct Vocabulary {
    /// Registered actions.
    pub actions: HashMap<String, ActionId>,
    /// Registered predicates.
    pub predicates: HashMap<String, PredicateFn>,
    /// Registered custom composites and decorators.
    pub customs: HashMap<String, Arc<dyn CustomNode>>,
    /// Accept any action and predicate name (tools: `wyrd check`,
    /// `wyrd sim`). Custom kinds must still be registered.
    pub permissive: bool,
}

impl std::fmt::Debug for Vocabulary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vocabulary")
            .field("actions", &self.actions.keys().collect::<Vec<_>>())
            .field("predicates", &self.predicates.keys().collect::<Vec<_>>())
            .field("customs", &self.customs.keys().collect::<Vec<_>>())
            .field("permissive", &self.permissive)
            .finish()
    }
}

impl Vocabulary {
    /// A vocabulary that accepts any action or predicate name.
    pub fn permissive() -> Self {
        Vocabulary {
            permissive: true,
            ..Default::default()
        }
    }

    /// Registers an action name.
    pub fn add_action(&mut self, name: &str) -> ActionId {
        let id = ActionId::of(name);
        self.actions.insert(name.to_owned(), id);
        id
    }

    /// Registers a predicate.
    pub fn add_predicate(
        &mut self,
        name: &str,
        f: impl Fn(&Blackboard) -> bool + Send + Sync + 'static,
    ) {
        self.predicates.insert(name.to_owned(), Arc::new(f));
    }

    /// Registers a custom composite or decorator kind.
    pub fn add_custom(&mut self, kind: &str, node: impl CustomNode) {
        self.customs.insert(kind.to_owned(), Arc::new(node));
    }
}

/// The app's vocabulary, shared with the tree asset loader so that unknown
/// names are load errors.
#[derive(Resource, Clone, Default, Debug)]
pub struct BtRegistry(pub Arc<RwLock<Vocabulary>>);

impl BtRegistry {
    /// A snapshot of the vocabulary.
    pub fn snapshot(&self) -> Vocabulary {
        self.0.read().map(|v| v.clone()).unwrap_or_default()
    }

    /// Changes the vocabulary.
    pub fn edit<R>(&self, f: impl FnOnce(&mut Vocabulary) -> R) -> R {
        let mut guard = self
            .0
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }
}
