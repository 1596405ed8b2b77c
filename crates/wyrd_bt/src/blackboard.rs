//! The per-agent blackboard: typed values and tag bits.

use std::sync::Arc;

use bevy::ecs::component::Component;

use bevy::ecs::reflect::ReflectComponent;
use bevy::reflect::Reflect;
use bevy::reflect::std_traits::ReflectDefault;

use crate::value::{Value, ValueType};

/// An output port of a running action: a blackboard key to write its
/// result to (`Blackboard::write`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Port {
    pub(crate) key: u16,
    pub(crate) ty: ValueType,
}

impl Port {
    /// The key's index.
    pub fn key(&self) -> u16 {
        self.key
    }

    /// The key's type.
    pub fn value_type(&self) -> ValueType {
        self.ty
    }
}

/// A tree's blackboard layout: its keys with their types and defaults, and
/// its tag names. A [`Program`](crate::Program) has one; binding lays a
/// blackboard out as it.
#[derive(Clone, Copy)]
pub(crate) struct KeyLayout<'a> {
    pub(crate) keys: &'a Arc<[String]>,
    pub(crate) types: &'a Arc<[ValueType]>,
    pub(crate) defaults: &'a [Option<Value>],
    pub(crate) tags: &'a Arc<[String]>,
}

/// An agent's inputs: blackboard values (declared in the tree file, typed by
/// their defaults or declared types) and tag bits. A key declared with a
/// type only (`"target": Entity`) holds no value until the game sets one.
///
/// Values can be set by name before the tree has loaded; they are kept and
/// checked against the tree's declarations when it binds.
#[derive(Component, Debug, Clone, Default, Reflect)]
#[reflect(Component, Default, Debug)]
pub struct Blackboard {
    // Shared with the program once bound: no per-agent copies of names.
    #[reflect(ignore)]
    keys: Arc<[String]>,
    #[reflect(ignore)]
    types: Arc<[ValueType]>,
    values: Vec<Option<Value>>,
    #[reflect(ignore)]
    tag_names: Arc<[String]>,
    tags: u64,
    /// Bit `i` is set when value `i` (below 64) is `true`: guards on bool
    /// keys are folded into one mask test against it.
    bools: u64,
    /// Bumped on every change: lets the runtime know inputs changed.
    generation: u64,
    /// Laid out for a program (keys fixed).
    bound: bool,
}

/// Why a blackboard write was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BlackboardError {
    /// The tree declares no such key.
    #[error("the tree declares no blackboard key {0:?}")]
    UnknownKey(String),
    /// The value's type differs from the key's.
    #[error(
        "blackboard key {key:?} holds {}, not {}",
        crate::value::with_article(expected),
        crate::value::with_article(found)
    )]
    WrongType {
        /// The key.
        key: String,
        /// Its type.
        expected: &'static str,
        /// The rejected value's type.
        found: &'static str,
    },
    /// The tree declares no such tag.
    #[error("the tree declares no tag {0:?}")]
    UnknownTag(String),
}

impl Blackboard {
    /// An empty blackboard; values set now are checked when the tree binds.
    pub fn new() -> Self {
        Self::default()
    }

    /// Builder: a value.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.set_unchecked(key, value.into());
        self
    }

    /// Builder: a tag.
    pub fn with_tag(mut self, tag: &str) -> Self {
        self.set_tag_unchecked(tag, true);
        self
    }

    fn set_unchecked(&mut self, key: &str, value: Value) {
        let i = match self.keys.iter().position(|k| k == key) {
            Some(i) => {
                self.values[i] = Some(value);
                i
            }
            None => {
                let mut keys = self.keys.to_vec();
                keys.push(key.to_owned());
                self.keys = keys.into();
                let mut types = self.types.to_vec();
                types.push(value.value_type());
                self.types = types.into();
                self.values.push(Some(value));
                self.values.len() - 1
            }
        };
        self.sync_bool(i);
        self.generation += 1;
    }

    /// Keeps [`bools`](Self::bools) in step with value `i`.
    #[inline]
    fn sync_bool(&mut self, i: usize) {
        if i < 64 {
            let bit = 1u64 << i;
            if self.values[i] == Some(Value::Bool(true)) {
                self.bools |= bit;
            } else {
                self.bools &= !bit;
            }
        }
    }

    /// The bool values as bits: bit `i` is set when value `i` (below 64, in
    /// the tree's key order once bound) is `true`.
    #[inline]
    pub fn bools(&self) -> u64 {
        self.bools
    }

    fn set_tag_unchecked(&mut self, tag: &str, on: bool) {
        let i = match self.tag_names.iter().position(|t| t == tag) {
            Some(i) => i,
            None => {
                let mut tags = self.tag_names.to_vec();
                tags.push(tag.to_owned());
                self.tag_names = tags.into();
                self.tag_names.len() - 1
            }
        };
        if i < 64 {
            let bit = 1u64 << i;
            self.tags = if on {
                self.tags | bit
            } else {
                self.tags & !bit
            };
        }
        self.generation += 1;
    }

    /// Whether the blackboard is laid out as `layout` (see
    /// [`Blackboard::is_bound_to`]).
    pub(crate) fn is_laid_out_as(&self, layout: KeyLayout<'_>) -> bool {
        self.bound
            && Arc::ptr_eq(&self.keys, layout.keys)
            && Arc::ptr_eq(&self.tag_names, layout.tags)
    }

    /// Lays the blackboard out as `layout` (see [`Blackboard::bind`]).
    pub(crate) fn lay_out(&mut self, layout: KeyLayout<'_>) -> Vec<BlackboardError> {
        let mut problems = Vec::new();
        let mut values = layout.defaults.to_vec();
        for (k, v) in self.keys.iter().zip(&self.values) {
            let Some(v) = v else { continue };
            match layout.keys.iter().position(|p| p == k) {
                Some(i) if layout.types[i].accepts(v) => values[i] = Some(*v),
                Some(i) => problems.push(BlackboardError::WrongType {
                    key: k.clone(),
                    expected: layout.types[i].name(),
                    found: v.type_name(),
                }),
                None => problems.push(BlackboardError::UnknownKey(k.clone())),
            }
        }
        let mut tags = 0u64;
        for (i, t) in self.tag_names.iter().enumerate() {
            if i < 64 && self.tags & (1 << i) != 0 {
                match layout.tags.iter().position(|p| p == t) {
                    Some(bit) => tags |= 1 << bit,
                    None => problems.push(BlackboardError::UnknownTag(t.clone())),
                }
            }
        }
        self.keys = layout.keys.clone();
        self.types = layout.types.clone();
        self.values = values;
        self.bools = 0;
        for i in 0..self.values.len().min(64) {
            self.sync_bool(i);
        }
        self.tag_names = layout.tags.clone();
        self.tags = tags;
        self.generation += 1;
        self.bound = true;
        problems
    }

    /// Sets a value by name. Once bound, unknown keys and wrong types are
    /// errors; before binding, they are checked at bind time.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) -> Result<(), BlackboardError> {
        let value = value.into();
        match self.keys.iter().position(|k| k == key) {
            Some(i) => {
                if !self.types[i].accepts(&value) {
                    return Err(BlackboardError::WrongType {
                        key: key.to_owned(),
                        expected: self.types[i].name(),
                        found: value.type_name(),
                    });
                }
                if self.values[i] != Some(value) {
                    self.values[i] = Some(value);
                    self.sync_bool(i);
                    self.generation += 1;
                }
                Ok(())
            }
            None if !self.bound => {
                self.set_unchecked(key, value);
                Ok(())
            }
            None => Err(BlackboardError::UnknownKey(key.to_owned())),
        }
    }

    /// Sets a value by index (fast path; the index comes from
    /// [`Program::bb_key`](crate::Program::bb_key)). A value of the wrong type is ignored (use
    /// [`Blackboard::set`] or [`Blackboard::write`] to be told).
    pub fn set_index(&mut self, key: u16, value: Value) {
        let i = key as usize;
        if self.types.get(i).is_some_and(|t| t.accepts(&value))
            && let Some(slot) = self.values.get_mut(i)
            && *slot != Some(value)
        {
            *slot = Some(value);
            self.sync_bool(i);
            self.generation += 1;
        }
    }

    /// Writes an action's output port (see
    /// [`ActionInfo::port`](crate::ActionInfo::port)): the tree reads it in
    /// its next tick.
    pub fn write(&mut self, port: Port, value: impl Into<Value>) -> Result<(), BlackboardError> {
        let value = value.into();
        if !port.ty.accepts(&value) {
            return Err(BlackboardError::WrongType {
                key: self.key_name(port.key).unwrap_or("?").to_owned(),
                expected: port.ty.name(),
                found: value.type_name(),
            });
        }
        self.set_index(port.key, value);
        Ok(())
    }

    /// Makes a key unset again by name (a target lost): `bb.clear("target")`.
    /// An unknown key is an error once the tree is bound (as for
    /// [`Blackboard::set`]); before, there is nothing to clear.
    ///
    /// ```
    /// # use wyrd_bt::Blackboard;
    /// let mut bb = Blackboard::default();
    /// bb.set("alarm", true).unwrap();
    /// bb.clear("alarm").unwrap();
    /// assert_eq!(bb.get("alarm"), None);
    /// ```
    pub fn clear(&mut self, key: &str) -> Result<(), BlackboardError> {
        match self.keys.iter().position(|k| k == key) {
            Some(i) => {
                self.clear_index(i as u16);
                Ok(())
            }
            None if !self.bound => Ok(()),
            None => Err(BlackboardError::UnknownKey(key.to_owned())),
        }
    }

    /// Makes a key unset again (a target lost).
    pub fn clear_index(&mut self, key: u16) {
        if let Some(slot) = self.values.get_mut(key as usize)
            && slot.is_some()
        {
            *slot = None;
            self.sync_bool(key as usize);
            self.generation += 1;
        }
    }

    /// A value by name (`None` for an unknown or unset key).
    pub fn get(&self, key: &str) -> Option<Value> {
        self.keys
            .iter()
            .position(|k| k == key)
            .and_then(|i| self.values[i])
    }

    /// A value by index (`None` while unset).
    #[inline]
    pub fn get_index(&self, key: u16) -> Option<Value> {
        self.values.get(key as usize).copied().flatten()
    }

    /// The name of a key.
    pub fn key_name(&self, key: u16) -> Option<&str> {
        self.keys.get(key as usize).map(String::as_str)
    }

    /// Sets or clears a tag.
    pub fn set_tag(&mut self, tag: &str, on: bool) -> Result<(), BlackboardError> {
        match self.tag_names.iter().position(|t| t == tag) {
            Some(i) if i < 64 => {
                let bit = 1u64 << i;
                let new = if on {
                    self.tags | bit
                } else {
                    self.tags & !bit
                };
                if new != self.tags {
                    self.tags = new;
                    self.generation += 1;
                }
                Ok(())
            }
            _ if !self.bound => {
                self.set_tag_unchecked(tag, on);
                Ok(())
            }
            _ => Err(BlackboardError::UnknownTag(tag.to_owned())),
        }
    }

    /// Whether a tag is set.
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tag_names
            .iter()
            .position(|t| t == tag)
            .is_some_and(|i| i < 64 && self.tags & (1 << i) != 0)
    }

    /// The tag bits (bit order of the tree's `tags`).
    #[inline]
    pub fn tags(&self) -> u64 {
        self.tags
    }

    /// Sets all tag bits at once.
    pub fn set_tags(&mut self, tags: u64) {
        if self.tags != tags {
            self.tags = tags;
            self.generation += 1;
        }
    }

    /// Changes so far (any write that changed something bumps it).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Keys and values (`None`: unset), in the tree's order once bound.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<Value>)> {
        self.keys
            .iter()
            .map(String::as_str)
            .zip(self.values.iter().copied())
    }
}
