//! An action leaf's compiled data: its parameters and how a game reads
//! them.

use std::sync::Arc;

use super::ActionId;
use crate::blackboard::{Blackboard, Port};
use crate::value::{FromValue, Value, ValueType};

/// A compiled parameter: a constant, or a blackboard key read (or, for an
/// output, written) when the action runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Param {
    /// A constant from the tree file (or a behavior's binding).
    Const(Value),
    /// A blackboard key (`"{key}"`), with its declared type.
    Key {
        /// Key index (see [`Program::blackboard_keys`](crate::Program::blackboard_keys)).
        key: u16,
        /// Its type.
        ty: ValueType,
    },
}

impl Param {
    /// The value: the constant, or the key's current value (`None` while
    /// the key is unset).
    #[inline]
    pub fn read(&self, bb: &Blackboard) -> Option<Value> {
        match *self {
            Param::Const(v) => Some(v),
            Param::Key { key, .. } => bb.get_index(key),
        }
    }

    /// The parameter's type.
    pub fn value_type(&self) -> ValueType {
        match self {
            Param::Const(v) => v.value_type(),
            Param::Key { ty, .. } => *ty,
        }
    }
}

/// Why a parameter could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// The leaf has no such parameter.
    #[error("{action} has no parameter {name:?}")]
    Missing {
        /// The action.
        action: String,
        /// The parameter.
        name: String,
    },
    /// It refers to a key the game has not set yet.
    #[error("{action}: parameter {name:?} reads blackboard key {key:?}, which is not set yet")]
    Unset {
        /// The action.
        action: String,
        /// The parameter.
        name: String,
        /// The key.
        key: String,
    },
    /// Its type is not the one asked for.
    #[error("{action}: parameter {name:?} is {}, not {}", crate::value::with_article(found.name()), crate::value::with_article(wanted.name()))]
    WrongType {
        /// The action.
        action: String,
        /// The parameter.
        name: String,
        /// Its type.
        found: ValueType,
        /// The type asked for.
        wanted: ValueType,
    },
    /// An output parameter must name a key (`"{key}"`), not a constant.
    #[error("{action}: parameter {name:?} is written, so it must be a \"{{key}}\", not a constant")]
    NotAKey {
        /// The action.
        action: String,
        /// The parameter.
        name: String,
    },
    /// A number the field's type cannot hold without changing it (`2.5`
    /// for an `i64`, `-5` for a `u32`, `3000000000` for an `i32`).
    #[error("{action}: parameter {name:?} is {value}: the field's type, {field}, cannot hold it")]
    DoesNotFit {
        /// The action.
        action: String,
        /// The parameter.
        name: String,
        /// Its value.
        value: crate::value::Value,
        /// The field's Rust type.
        field: &'static str,
    },
}

/// An action leaf's data.
#[derive(Debug, Clone)]
pub struct ActionInfo {
    /// Registered id.
    pub(crate) id: ActionId,
    /// Registered name.
    pub(crate) name: Arc<str>,
    /// Parameters: in the action's schema order when it was registered
    /// with one ([`BtAction`](crate::BtAction)), else in file order.
    pub(crate) params: Vec<(Box<str>, Param)>,
    /// The leaf's node index.
    pub(crate) node: u32,
    /// Some parameter reads a blackboard key (else reading the parameters
    /// needs no blackboard: typed dispatch then fetches none).
    pub(crate) reads_keys: bool,
    /// The parameters are in the order of the action's schema (it was
    /// registered as a type, [`BtAction`](crate::BtAction)): a typed read
    /// takes them by position. Otherwise (registered by name) it finds
    /// each by its name.
    pub(crate) schema_order: bool,
    /// The keys its input parameters read (of an action registered as a
    /// type: its outputs are known): the leaf fails, instead of starting,
    /// while one is unset.
    pub(crate) needs: Box<[u16]>,
    /// A world action ([`Vocabulary::world_actions`](crate::Vocabulary::world_actions)):
    /// its parameters name the flags and counters it writes (`wyrd sim`
    /// writes them, as the game's handler would).
    pub(crate) writes_world: bool,
}

impl ActionInfo {
    /// The action's registered id.
    pub fn id(&self) -> ActionId {
        self.id
    }

    /// The action's registered name (as the tree file writes it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The action's name, shared.
    pub fn name_arc(&self) -> &Arc<str> {
        &self.name
    }

    /// Its parameters: for an action registered with a schema
    /// ([`BtAction`](crate::BtAction)) in the schema's order (defaults
    /// filled in), else in file order.
    pub fn params(&self) -> &[(Box<str>, Param)] {
        &self.params
    }

    /// The action leaf's node index.
    pub fn node(&self) -> u32 {
        self.node
    }

    /// Whether it is a world action: its constant parameters are the flags
    /// and counters it writes ([`Vocabulary::world_actions`](crate::Vocabulary::world_actions)).
    pub fn writes_world(&self) -> bool {
        self.writes_world
    }

    /// A constant parameter by name (`None` for a missing one or one that
    /// reads a key: see [`ActionInfo::read`]).
    pub fn param(&self, name: &str) -> Option<Value> {
        match self.params.iter().find(|(k, _)| &**k == name)?.1 {
            Param::Const(v) => Some(v),
            Param::Key { .. } => None,
        }
    }

    fn find(&self, name: &str) -> Result<usize, ParamError> {
        self.params
            .iter()
            .position(|(k, _)| &**k == name)
            .ok_or_else(|| ParamError::Missing {
                action: self.name.to_string(),
                name: name.to_owned(),
            })
    }

    /// A parameter by name, typed, reading its key on `bb` when it refers
    /// to one. (Schema actions read by position: [`ActionInfo::read_at`].)
    pub fn read<T: FromValue>(&self, name: &str, bb: &Blackboard) -> Result<T, ParamError> {
        self.read_at(self.find(name)?, bb)
    }

    /// The parameter at position `i` (schema order), typed: no name is
    /// looked up.
    #[inline]
    pub fn read_at<T: FromValue>(&self, i: usize, bb: &Blackboard) -> Result<T, ParamError> {
        // The path every running action takes each tick is these few
        // loads; building an error (strings) is apart, out of line, so
        // that this inlines into the action systems' loops.
        if let Some((_, param)) = self.params.get(i)
            && T::accepts(param.value_type())
            && let Some(v) = param.read(bb)
            && let Some(t) = T::from_value(v)
        {
            return Ok(t);
        }
        Err(self.read_error::<T>(i, bb))
    }

    /// Why [`ActionInfo::read_at`] could not read parameter `i`.
    #[cold]
    #[inline(never)]
    fn read_error<T: FromValue>(&self, i: usize, bb: &Blackboard) -> ParamError {
        let Some((name, param)) = self.params.get(i) else {
            return ParamError::Missing {
                action: self.name.to_string(),
                name: format!("#{i}"),
            };
        };
        let wrong = |found| ParamError::WrongType {
            action: self.name.to_string(),
            name: name.to_string(),
            found,
            wanted: T::TYPE,
        };
        if !T::accepts(param.value_type()) {
            return wrong(param.value_type());
        }
        match param.read(bb) {
            Some(v) if T::accepts(v.value_type()) => ParamError::DoesNotFit {
                action: self.name.to_string(),
                name: name.to_string(),
                value: v,
                field: std::any::type_name::<T>(),
            },
            Some(v) => wrong(v.value_type()),
            None => ParamError::Unset {
                action: self.name.to_string(),
                name: name.to_string(),
                key: match param {
                    Param::Key { key, .. } => bb.key_name(*key).unwrap_or("?").to_owned(),
                    Param::Const(_) => String::new(),
                },
            },
        }
    }

    /// The output port of a parameter: the key it names.
    pub fn port(&self, name: &str) -> Result<Port, ParamError> {
        self.port_at(self.find(name)?)
    }

    /// Where a typed read finds field `i` of its action type, named `name`
    /// ([`bt_action!`](crate::bt_action)'s `read`): at `i` when the leaf was
    /// compiled with the type's schema, else where the tree gives `name`
    /// (an action registered by name only: its parameters are in the
    /// order of their names, and a read by position would take another's;
    /// the type's defaults do not apply there, so a field the tree leaves
    /// out fails the read).
    #[doc(hidden)]
    #[inline]
    pub fn field_at(&self, i: usize, name: &str) -> Result<usize, ParamError> {
        if self.schema_order {
            return Ok(i);
        }
        self.find(name)
    }

    /// The output port of the parameter at position `i`.
    pub fn port_at(&self, i: usize) -> Result<Port, ParamError> {
        match self.params.get(i) {
            Some((_, Param::Key { key, ty })) => Ok(Port { key: *key, ty: *ty }),
            Some((name, Param::Const(_))) => Err(ParamError::NotAKey {
                action: self.name.to_string(),
                name: name.to_string(),
            }),
            None => Err(ParamError::Missing {
                action: self.name.to_string(),
                name: format!("#{i}"),
            }),
        }
    }
}
