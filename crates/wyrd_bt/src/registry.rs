//! What game code registers: actions, predicates, custom nodes.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use bevy::ecs::reflect::ReflectResource;
use bevy::ecs::resource::Resource;
use bevy::reflect::std_traits::ReflectDefault;

use crate::blackboard::Blackboard;
pub use crate::custom::CustomNode;
pub use crate::program::{ActionId, PredicateArgs, PredicateFn};
use crate::value::{FromValue, ValueType};

/// 64-bit FNV-1a of a text (content hashes and node signatures).
pub(crate) fn fnv64(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in text.as_bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

pub use crate::value::ParamSpec;

/// An action declared once, in Rust: its name in tree files, its id, and
/// the parameters it takes. Registered with
/// [`BtAppExt::add_bt_action`](crate::BtAppExt::add_bt_action); trees that
/// name an unknown parameter, leave out a required one or give one of the
/// wrong type fail to load with the place in the file. Declare one with
/// [`bt_action!`](crate::bt_action).
pub trait BtAction: Sized + Send + Sync + 'static {
    /// The name tree files use (`Action(action: "MoveTo")`).
    const NAME: &'static str;
    /// Its id (the hash of the name).
    const ID: ActionId = ActionId::of(Self::NAME);
    /// The parameters, in the order [`BtAction::read`] reads them.
    fn schema() -> Vec<ParamSpec>;
    /// Reads the parameters of a running leaf (by position: no names are
    /// looked up).
    fn read(info: &crate::ActionInfo, bb: &Blackboard) -> Result<Self, crate::program::ParamError>;
}

/// An output port parameter of a [`BtAction`]: the key the action writes
/// its result to, with [`Blackboard::write`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Out<T> {
    /// The port.
    pub port: crate::program::Port,
    _t: std::marker::PhantomData<fn() -> T>,
}

impl<T> Out<T> {
    #[doc(hidden)]
    pub fn new(port: crate::program::Port) -> Self {
        Out {
            port,
            _t: std::marker::PhantomData,
        }
    }
}

/// A field type of a [`bt_action!`](crate::bt_action) declaration: an
/// input of a value type, or an [`Out`] port.
pub trait ActionField: Sized {
    /// Its type.
    const TYPE: ValueType;
    /// Whether it is written by the action.
    const OUTPUT: bool;
    /// Reads it from the parameter at position `i`.
    fn read_field(
        info: &crate::ActionInfo,
        i: usize,
        bb: &Blackboard,
    ) -> Result<Self, crate::program::ParamError>;
}

impl<T: FromValue> ActionField for T {
    const TYPE: ValueType = T::TYPE;
    const OUTPUT: bool = false;
    #[inline]
    fn read_field(
        info: &crate::ActionInfo,
        i: usize,
        bb: &Blackboard,
    ) -> Result<Self, crate::program::ParamError> {
        info.read_at(i, bb)
    }
}

impl<T: FromValue + 'static> ActionField for Out<T> {
    const TYPE: ValueType = T::TYPE;
    const OUTPUT: bool = true;
    fn read_field(
        info: &crate::ActionInfo,
        i: usize,
        _bb: &Blackboard,
    ) -> Result<Self, crate::program::ParamError> {
        info.port_at(i).map(Out::new)
    }
}

/// Declares actions as Rust types: each gets its tree-file name, its id and
/// its parameter schema from one declaration, and reads its parameters as
/// typed fields.
///
/// ```
/// use bevy::prelude::*;
/// use wyrd_bt::{bt_action, Out};
///
/// bt_action! {
///     /// Walk to a point at a speed.
///     pub struct MoveTo {
///         /// Where to.
///         pub goal: Vec3,
///         /// Meters per second (default 3.5).
///         pub speed: f32 = 3.5,
///     }
///     /// Look for an enemy; writes it to the key given as `found`.
///     pub struct FindTarget {
///         /// How far to look.
///         pub range: f32 = 10.0,
///         /// The key the enemy is written to.
///         pub found: Out<Entity>,
///     }
/// }
/// # use wyrd_bt::BtAction;
/// assert_eq!(MoveTo::NAME, "MoveTo");
/// assert_eq!(MoveTo::schema()[1].default, Some(wyrd_bt::Value::Float(3.5)));
/// ```
///
/// A field is one of the blackboard's value types: `bool`, `i64` (also
/// `i32`, `u32`), `f32` (also `f64`), `Vec2`, `Vec3`, `Entity`, [`Sym`](crate::Sym)
/// for text (an interned string: the action type is `Copy`, so not
/// `String`), or [`Out<T>`](crate::Out) of one of them for an output port.
#[macro_export]
macro_rules! bt_action {
    ($(
        $(#[$m:meta])*
        $vis:vis struct $name:ident { $($(#[$fm:meta])* $fvis:vis $field:ident : $ty:ty $(= $default:expr)?),* $(,)? }
    )*) => {$(
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        $vis struct $name { $($(#[$fm])* $fvis $field: $ty),* }

        impl $crate::BtAction for $name {
            const NAME: &'static str = stringify!($name);
            fn schema() -> Vec<$crate::ParamSpec> {
                vec![$($crate::ParamSpec {
                    name: stringify!($field),
                    ty: <$ty as $crate::ActionField>::TYPE,
                    default: $crate::bt_action!(@default $($default)?),
                    output: <$ty as $crate::ActionField>::OUTPUT,
                }),*]
            }
            #[allow(unused_variables, unused_mut, unused_assignments, reason = "generated")]
            #[inline]
            fn read(
                info: &$crate::ActionInfo,
                bb: &$crate::Blackboard,
            ) -> Result<Self, $crate::ParamError> {
                let mut i = 0usize;
                Ok($name {$($field: {
                    let at = info.field_at(i, stringify!($field))?;
                    let v = <$ty as $crate::ActionField>::read_field(info, at, bb)?;
                    i += 1;
                    v
                }),*})
            }
        }
    )*};
    (@default) => { None };
    (@default $e:expr) => { Some($crate::Value::from($e)) };
}

/// The names trees may use: registered actions, predicates, custom nodes.
#[derive(Default, Clone)]
pub struct Vocabulary {
    /// Registered actions.
    pub actions: HashMap<String, ActionId>,
    /// The parameter schemas of actions registered as [`BtAction`] types.
    pub schemas: HashMap<String, Vec<ParamSpec>>,
    /// Registered predicates.
    pub predicates: HashMap<String, PredicateFn>,
    /// The arguments of predicates registered with theirs
    /// ([`add_predicate_args`](Self::add_predicate_args)): a tree's call is
    /// checked by name and type (a misspelt argument made the predicate
    /// read nothing and never hold, silently).
    pub predicate_args: HashMap<String, Vec<ParamSpec>>,
    /// Registered custom composites and decorators.
    pub customs: HashMap<String, Arc<dyn CustomNode>>,
    /// Accept any action and predicate name (tools: `wyrd check`,
    /// `wyrd sim`). Custom kinds must still be registered.
    pub permissive: bool,
    /// Asset paths of the flags files that declare the world values trees
    /// may read (`World(..)`); the world state adds its files here. Written
    /// to the [vocabulary file](crate::VocabularyFile) for `wyrd check`.
    pub world_files: Vec<String>,
    /// Actions whose parameters are named by world values (flags and
    /// counters) they write, `SetFlagValue(params: {"QUEST_DONE": true})`:
    /// each name is checked as a `World(..)` condition's is, when the tree
    /// loads (against the flags files) and by `wyrd check`.
    pub world_actions: Vec<String>,
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

    /// Registers an action whose parameters are named by world values it
    /// writes (see [`world_actions`](Self::world_actions)).
    pub fn add_world_action(&mut self, name: &str) -> ActionId {
        if !self.world_actions.iter().any(|a| a == name) {
            self.world_actions.push(name.to_owned());
        }
        self.add_action(name)
    }

    /// Registers a predicate.
    pub fn add_predicate(
        &mut self,
        name: &str,
        f: impl Fn(&Blackboard) -> bool + Send + Sync + 'static,
    ) {
        self.predicates
            .insert(name.to_owned(), Arc::new(move |bb, _| f(bb)));
    }

    /// Registers a predicate that takes arguments
    /// (`Predicate("within", {"of": "{target}", "meters": 8.0})`).
    pub fn add_predicate_with(
        &mut self,
        name: &str,
        f: impl Fn(&Blackboard, &PredicateArgs<'_>) -> bool + Send + Sync + 'static,
    ) {
        self.predicates.insert(name.to_owned(), Arc::new(f));
    }

    /// Registers a predicate with the arguments it reads, by name and
    /// type: trees that call it are checked against them when they load
    /// (and by `wyrd check`), each argument given, none unknown, each of
    /// its type (a constant, or a blackboard key of that type).
    pub fn add_predicate_args(
        &mut self,
        name: &str,
        args: &[(&'static str, ValueType)],
        f: impl Fn(&Blackboard, &PredicateArgs<'_>) -> bool + Send + Sync + 'static,
    ) {
        self.add_predicate_with(name, f);
        self.predicate_args.insert(
            name.to_owned(),
            args.iter()
                .map(|&(name, ty)| ParamSpec {
                    name,
                    ty,
                    default: None,
                    output: false,
                })
                .collect(),
        );
    }

    /// Registers an action type with its parameter schema.
    pub fn add_action_type<A: BtAction>(&mut self) -> ActionId {
        self.actions.insert(A::NAME.to_owned(), A::ID);
        self.schemas.insert(A::NAME.to_owned(), A::schema());
        A::ID
    }

    /// Registers a custom composite or decorator kind.
    pub fn add_custom(&mut self, kind: &str, node: impl CustomNode) {
        self.customs.insert(kind.to_owned(), Arc::new(node));
    }
}

/// The app's vocabulary, shared with the tree asset loader so that unknown
/// names are load errors.
#[derive(Resource, Clone, Default, Debug, bevy::reflect::Reflect)]
#[reflect(opaque, Resource, Default, Debug)]
pub struct BtRegistry(pub Arc<RwLock<Vocabulary>>);

impl BtRegistry {
    /// Whether action `name` is registered by name only, without a
    /// parameter schema ([`BtAppExt::register_bt_action`](crate::BtAppExt::register_bt_action)).
    pub fn has_action_without_schema(&self, name: &str) -> bool {
        self.0
            .read()
            .is_ok_and(|v| v.actions.contains_key(name) && !v.schemas.contains_key(name))
    }

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
