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

/// The names of a blackboard's keys and tags, the keys' types, and where
/// each key's value is kept: shared by a program and every blackboard
/// bound to it (one pointer per agent).
#[derive(Debug, Default, Clone)]
pub(crate) struct KeyNames {
    keys: Vec<String>,
    types: Vec<ValueType>,
    tags: Vec<String>,
    /// Per key: its place in the blackboard's `values`, or [`IN_BITS`] for a
    /// bool key kept in the bit masks only.
    places: Vec<u16>,
    /// How many keys have a place in `values`.
    stored: usize,
}

/// A key kept in the bit masks (`bools`, `set`), not in `values`.
const IN_BITS: u16 = u16::MAX;

impl KeyNames {
    /// A program's layout: its bool keys below 64 are kept in the bit masks
    /// (a crowd's inputs are mostly flags: sixteen bytes each in `values`,
    /// on the heap, against a bit in the component), the others in order.
    pub(crate) fn bound(keys: &[String], types: &[ValueType], tags: &[String]) -> Self {
        let mut stored = 0;
        let places = types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if *t == ValueType::Bool && i < 64 {
                    IN_BITS
                } else {
                    stored += 1;
                    (stored - 1) as u16
                }
            })
            .collect();
        KeyNames {
            keys: keys.to_vec(),
            types: types.to_vec(),
            tags: tags.to_vec(),
            places,
            stored,
        }
    }

    fn key(&self, name: &str) -> Option<usize> {
        self.keys.iter().position(|k| k == name)
    }

    fn tag(&self, name: &str) -> Option<usize> {
        self.tags.iter().position(|t| t == name)
    }
}

/// A tree's blackboard layout: its keys with their types and defaults, and
/// its tag names. A [`Program`](crate::Program) has one; binding lays a
/// blackboard out as it.
#[derive(Clone, Copy)]
pub(crate) struct KeyLayout<'a> {
    pub(crate) names: &'a Arc<KeyNames>,
    pub(crate) defaults: &'a [Option<Value>],
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
    names: Arc<KeyNames>,
    /// The values of keys that are not kept in the bit masks (see
    /// `KeyNames::places`).
    values: Vec<Option<Value>>,
    tags: u64,
    /// Bit `i` is set when value `i` (below 64) is `true`: guards on bool
    /// keys are folded into one mask test against it. Once bound, bool
    /// keys below 64 live here only.
    bools: u64,
    /// Bit `i`: bool key `i`, kept in the bit masks, is set.
    set: u64,
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
    /// The value's type differs from the key's (the value was not
    /// written).
    #[error(
        "blackboard key {key:?} holds {}: {} was not written to it",
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
    /// A number the key's type cannot hold without changing it (`2.5` for
    /// an int key): not written. A number that fits is converted (`2.0`
    /// is written to an int key as `2`), so a key keeps its type.
    #[error(
        "blackboard key {key:?} holds {}: {value} is not one, so it was not written",
        crate::value::with_article(expected)
    )]
    DoesNotFit {
        /// The key.
        key: String,
        /// Its type.
        expected: &'static str,
        /// The rejected value.
        value: Value,
    },
}

/// Why `value` cannot be written to a key of type `ty` named `key`.
fn refused(key: &str, ty: ValueType, value: Value) -> BlackboardError {
    if ty.accepts(&value) {
        BlackboardError::DoesNotFit {
            key: key.to_owned(),
            expected: ty.name(),
            value,
        }
    } else {
        BlackboardError::WrongType {
            key: key.to_owned(),
            expected: ty.name(),
            found: value.type_name(),
        }
    }
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

    /// Sets a value by name, adding its key before binding (each key in
    /// `values` then); once bound, a value of the wrong type is ignored
    /// (as [`Blackboard::set_index`] does).
    fn set_unchecked(&mut self, key: &str, value: Value) {
        let i = match self.names.key(key) {
            Some(i) if self.bound => {
                if let Some(v) = self.names.types[i].fit(value) {
                    self.put(i, Some(v));
                }
                return;
            }
            Some(i) => i,
            None => {
                let names = Arc::make_mut(&mut self.names);
                names.keys.push(key.to_owned());
                names.types.push(value.value_type());
                names.places.push(self.values.len() as u16);
                names.stored += 1;
                self.values.push(None);
                names.keys.len() - 1
            }
        };
        self.put(i, Some(value));
    }

    /// Writes value `i` (`None`: unset) where it is kept (a change bumps
    /// the generation). The type was checked by the caller.
    #[inline]
    fn put(&mut self, i: usize, value: Option<Value>) {
        let Some(&place) = self.names.places.get(i) else {
            return;
        };
        let changed = if place == IN_BITS {
            let bit = 1u64 << i;
            let on = value == Some(Value::Bool(true));
            let (set, bools) = match value {
                Some(_) => (
                    self.set | bit,
                    if on {
                        self.bools | bit
                    } else {
                        self.bools & !bit
                    },
                ),
                None => (self.set & !bit, self.bools & !bit),
            };
            let changed = set != self.set || bools != self.bools;
            (self.set, self.bools) = (set, bools);
            changed
        } else {
            let slot = &mut self.values[usize::from(place)];
            let changed = *slot != value;
            *slot = value;
            if changed && i < 64 {
                let bit = 1u64 << i;
                if value == Some(Value::Bool(true)) {
                    self.bools |= bit;
                } else {
                    self.bools &= !bit;
                }
            }
            changed
        };
        if changed {
            self.generation += 1;
        }
    }

    /// The bool values as bits: bit `i` is set when value `i` (below 64, in
    /// the tree's key order once bound) is `true`.
    #[inline]
    pub fn bools(&self) -> u64 {
        self.bools
    }

    fn set_tag_unchecked(&mut self, tag: &str, on: bool) {
        let i = match self.names.tag(tag) {
            Some(i) => i,
            None => {
                let names = Arc::make_mut(&mut self.names);
                names.tags.push(tag.to_owned());
                names.tags.len() - 1
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
        self.bound && Arc::ptr_eq(&self.names, layout.names)
    }

    /// Lays the blackboard out as `layout` (see [`Blackboard::bind`]).
    pub(crate) fn lay_out(&mut self, layout: KeyLayout<'_>) -> Vec<BlackboardError> {
        let mut problems = Vec::new();
        let old = std::mem::replace(
            self,
            Blackboard {
                names: layout.names.clone(),
                values: vec![None; layout.names.stored],
                tags: 0,
                bools: 0,
                set: 0,
                generation: self.generation,
                bound: true,
            },
        );
        for (i, v) in layout.defaults.iter().enumerate() {
            self.put(i, *v);
        }
        for (k, v) in old.iter() {
            let Some(v) = v else { continue };
            match layout.names.key(k) {
                Some(i) => match layout.names.types[i].fit(v) {
                    Some(v) => self.put(i, Some(v)),
                    None => problems.push(refused(k, layout.names.types[i], v)),
                },
                None => problems.push(BlackboardError::UnknownKey(k.to_owned())),
            }
        }
        let mut tags = 0u64;
        for (i, t) in old.names.tags.iter().enumerate() {
            if i < 64 && old.tags & (1 << i) != 0 {
                match layout.names.tag(t) {
                    Some(bit) if bit < 64 => tags |= 1 << bit,
                    _ => problems.push(BlackboardError::UnknownTag(t.clone())),
                }
            }
        }
        self.tags = tags;
        self.generation = old.generation + 1;
        problems
    }

    /// Sets a value by name. Once bound, unknown keys and wrong types are
    /// errors; before binding, they are checked at bind time.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) -> Result<(), BlackboardError> {
        let value = value.into();
        match self.names.key(key) {
            // Before binding the key's type is the first value's guess:
            // a number is kept as given, and fitted when the tree binds.
            Some(i) if !self.bound => {
                let ty = self.names.types[i];
                if !ty.accepts(&value) {
                    return Err(refused(key, ty, value));
                }
                self.put(i, Some(value));
                Ok(())
            }
            Some(i) => {
                let ty = self.names.types[i];
                let v = ty.fit(value).ok_or_else(|| refused(key, ty, value))?;
                self.put(i, Some(v));
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
    /// [`Program::bb_key`](crate::Program::bb_key)). A number is converted
    /// to the key's type when it fits (see [`ValueType::fit`]); a value of
    /// the wrong type, or a number that does not fit, is ignored (use
    /// [`Blackboard::set`] or [`Blackboard::write`] to be told).
    #[inline]
    pub fn set_index(&mut self, key: u16, value: Value) {
        self.write_index(key, value);
    }

    /// [`Blackboard::set_index`], saying whether the value was written.
    #[inline]
    pub(crate) fn write_index(&mut self, key: u16, value: Value) -> bool {
        let i = key as usize;
        match self.names.types.get(i).and_then(|t| t.fit(value)) {
            Some(v) => {
                self.put(i, Some(v));
                true
            }
            None => false,
        }
    }

    /// Writes an action's output port (see
    /// [`ActionInfo::port`](crate::ActionInfo::port)): the tree reads it in
    /// its next tick.
    pub fn write(&mut self, port: Port, value: impl Into<Value>) -> Result<(), BlackboardError> {
        let value = value.into();
        let Some(v) = port.ty.fit(value) else {
            return Err(refused(
                self.key_name(port.key).unwrap_or("?"),
                port.ty,
                value,
            ));
        };
        self.set_index(port.key, v);
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
        match self.names.key(key) {
            Some(i) => {
                self.put(i, None);
                Ok(())
            }
            None if !self.bound => Ok(()),
            None => Err(BlackboardError::UnknownKey(key.to_owned())),
        }
    }

    /// Makes a key unset again (a target lost).
    pub fn clear_index(&mut self, key: u16) {
        self.put(key as usize, None);
    }

    /// A value by name (`None` for an unknown or unset key).
    pub fn get(&self, key: &str) -> Option<Value> {
        self.names.key(key).and_then(|i| self.get_index(i as u16))
    }

    /// A value by index (`None` while unset).
    #[inline]
    pub fn get_index(&self, key: u16) -> Option<Value> {
        let i = key as usize;
        let place = *self.names.places.get(i)?;
        if place == IN_BITS {
            let bit = 1u64 << i;
            (self.set & bit != 0).then_some(Value::Bool(self.bools & bit != 0))
        } else {
            self.values[usize::from(place)]
        }
    }

    /// Whether a key has a value (by index).
    #[inline]
    pub fn is_set(&self, key: u16) -> bool {
        let i = key as usize;
        match self.names.places.get(i) {
            Some(&IN_BITS) => self.set & (1u64 << i) != 0,
            Some(&place) => self.values[usize::from(place)].is_some(),
            None => false,
        }
    }

    /// The name of a key.
    pub fn key_name(&self, key: u16) -> Option<&str> {
        self.names.keys.get(key as usize).map(String::as_str)
    }

    /// Sets or clears a tag.
    pub fn set_tag(&mut self, tag: &str, on: bool) -> Result<(), BlackboardError> {
        match self.names.tag(tag) {
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
        self.names
            .tag(tag)
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

    /// Bytes this blackboard holds on the heap (its values that are not
    /// kept in the bit masks; the names are shared with the program).
    pub fn heap_bytes(&self) -> usize {
        self.values.capacity() * std::mem::size_of::<Option<Value>>()
    }

    /// Changes so far (any write that changed something bumps it).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Keys and values (`None`: unset), in the tree's order once bound.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Option<Value>)> {
        self.names
            .keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.as_str(), self.get_index(i as u16)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Program;

    fn program(blackboard: &str) -> Program {
        let text =
            format!(r#"(blackboard: {{{blackboard}}}, root: Action(name: "a", action: "A"))"#);
        crate::compile_str("t.bt.ron", &text, &crate::Vocabulary::permissive()).unwrap()
    }

    /// Bound bool keys live in the bit masks only: set, unset, true and
    /// false read back as before, a write that changes nothing is no
    /// change, and the other keys keep their values on the heap.
    #[test]
    fn bool_keys_are_bits_and_read_as_values() {
        let p = program(r#""armed": true, "seen": Bool, "ammo": 3"#);
        let mut bb = Blackboard::new().with("ammo", 5);
        assert!(bb.bind(&p).is_empty());
        assert_eq!(bb.heap_bytes(), std::mem::size_of::<Option<Value>>());
        let (armed, seen) = (p.bb_key("armed").unwrap(), p.bb_key("seen").unwrap());
        assert_eq!(bb.get("armed"), Some(Value::Bool(true)));
        assert_eq!(bb.get("seen"), None, "declared with a type only: unset");
        assert_eq!(bb.get("ammo"), Some(Value::Int(5)));
        assert_eq!(bb.bools(), 1 << armed);
        let generation = bb.generation();
        bb.set_index(seen, Value::Bool(false));
        assert_eq!(bb.get_index(seen), Some(Value::Bool(false)));
        assert_eq!(bb.generation(), generation + 1);
        bb.set("seen", false).unwrap();
        assert_eq!(bb.generation(), generation + 1, "no change, no bump");
        bb.set_index(armed, Value::Int(1));
        assert_eq!(
            bb.get("armed"),
            Some(Value::Bool(true)),
            "wrong type ignored"
        );
        let mut bb = bb.with("armed", 5);
        assert_eq!(
            bb.get("armed"),
            Some(Value::Bool(true)),
            "so in the builder"
        );
        bb.clear("armed").unwrap();
        assert_eq!((bb.get("armed"), bb.bools()), (None, 0));
        let read: Vec<(String, Option<Value>)> =
            bb.iter().map(|(k, v)| (k.to_owned(), v)).collect();
        assert!(read.contains(&("seen".to_owned(), Some(Value::Bool(false)))));
        // Bound again (a reload): the values set are kept.
        let again = program(r#""seen": Bool, "armed": true, "ammo": 3"#);
        assert!(bb.bind(&again).is_empty());
        assert_eq!(bb.get("seen"), Some(Value::Bool(false)));
        assert_eq!(bb.get("ammo"), Some(Value::Int(5)));
        assert_eq!(
            bb.get("armed"),
            Some(Value::Bool(true)),
            "unset: the default"
        );
    }

    /// A bool key past the 64th is kept as a value.
    #[test]
    fn a_bool_key_past_the_64th_is_a_value() {
        let keys: Vec<String> = (0..66).map(|i| format!(r#""k{i}": false"#)).collect();
        let p = program(&keys.join(", "));
        let mut bb = Blackboard::new();
        assert!(bb.bind(&p).is_empty());
        assert_eq!(bb.heap_bytes(), 2 * std::mem::size_of::<Option<Value>>());
        let last = (0..66)
            .map(|i| format!("k{i}"))
            .find(|k| p.bb_key(k) == Some(65))
            .unwrap();
        bb.set(&last, true).unwrap();
        bb.set("k3", true).unwrap();
        assert_eq!(bb.get(&last), Some(Value::Bool(true)));
        assert_eq!(bb.bools(), 1 << p.bb_key("k3").unwrap());
    }
}
