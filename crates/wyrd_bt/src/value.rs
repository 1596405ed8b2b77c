//! Blackboard values and comparisons.

use std::fmt;

use bevy::ecs::entity::Entity;
use bevy::math::{Vec2, Vec3};
use bevy::reflect::Reflect;
use serde::{Deserialize, Serialize};

/// A blackboard value: small and `Copy`, so reading and writing one never
/// allocates.
///
/// In RON: `true`, `3`, `1.5`, `"destroy_5_towers"` (a string, interned),
/// `(1.0, 2.0)` or `Vec2(1.0, 2.0)`, `(1.0, 2.0, 3.0)` or
/// `Vec3(1.0, 2.0, 3.0)`, and in scripts `Entity(7)` (the entity with that
/// index). Entities come from game code.
#[derive(Debug, Clone, Copy, PartialEq, Reflect)]
#[reflect(opaque, Debug, PartialEq)]
pub enum Value {
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// An entity (a target, a vehicle).
    Entity(Entity),
    /// A 2D vector (a position on a map).
    Vec2(Vec2),
    /// A 3D vector.
    Vec3(Vec3),
    /// A string (a quest, a dialogue line, an NPC), interned.
    Str(Sym),
}

/// The type of a blackboard key or parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Reflect)]
pub enum ValueType {
    /// `bool`.
    Bool,
    /// `int` (accepts floats too: numbers compare with each other).
    Int,
    /// `float` (accepts ints too).
    Float,
    /// `Entity`.
    Entity,
    /// `Vec2`.
    Vec2,
    /// `Vec3`.
    Vec3,
    /// `String`.
    Str,
}

impl ValueType {
    /// The name written in tree files (`Entity`, `Vec3`, `String`) or in
    /// messages (`bool`, `int`, `float`).
    pub fn name(self) -> &'static str {
        match self {
            ValueType::Bool => "bool",
            ValueType::Int => "int",
            ValueType::Float => "float",
            ValueType::Entity => "Entity",
            ValueType::Vec2 => "Vec2",
            ValueType::Vec3 => "Vec3",
            ValueType::Str => "String",
        }
    }

    /// The type a tree file names: `Bool`, `Int`, `Float`, `Entity`,
    /// `Vec2`, `Vec3`, `String` (a key or parameter declared without a
    /// default).
    pub fn from_name(name: &str) -> Option<ValueType> {
        Some(match name {
            "Bool" => ValueType::Bool,
            "Int" => ValueType::Int,
            "Float" => ValueType::Float,
            "Entity" => ValueType::Entity,
            "Vec2" => ValueType::Vec2,
            "Vec3" => ValueType::Vec3,
            "String" => ValueType::Str,
            _ => return None,
        })
    }

    /// Whether a value fits a key of this type (ints and floats fit each
    /// other's keys).
    pub fn accepts(self, v: &Value) -> bool {
        self.accepts_type(v.value_type())
    }

    /// `v` as a value of this type: `v` itself when it is of this type, a
    /// number converted when nothing is lost (an int key takes `2.0` as
    /// `2`, a float key takes `3` as `3.0`), else `None` (`2.5` does not
    /// fit an int key, nor a bool an int key). A key keeps its own type:
    /// an int key holds ints, whatever was written to it. As
    /// BehaviorTree.CPP converts numbers between ports: a conversion that
    /// would lose precision or range is refused (`safe_any.hpp`,
    /// `convertNumber`: "Floating point truncated", "Value outside the max
    /// numerical limit").
    pub fn fit(self, v: Value) -> Option<Value> {
        match (self, v) {
            (ValueType::Int, Value::Float(f)) => exact_int(f).map(Value::Int),
            (ValueType::Float, Value::Int(i)) => exact_float(i).map(Value::Float),
            (t, v) if t == v.value_type() => Some(v),
            _ => None,
        }
    }

    /// Whether values of type `other` fit (ints and floats fit each other).
    pub fn accepts_type(self, other: ValueType) -> bool {
        self == other || (self.is_number() && other.is_number())
    }

    /// Whether values of the type are numbers.
    pub fn is_number(self) -> bool {
        matches!(self, ValueType::Int | ValueType::Float)
    }

    /// Whether `<`, `<=`, `>`, `>=` compare values of the type (numbers and
    /// bools; entities, vectors and strings compare only with `==` / `!=`).
    pub fn is_ordered(self) -> bool {
        matches!(self, ValueType::Bool | ValueType::Int | ValueType::Float)
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An interned string: a `Copy` id into the app-wide string table, so a
/// string value costs 4 bytes and comparing two is one integer compare.
/// Interning happens when a tree compiles or game code calls [`Sym::new`],
/// never on the tick.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
#[reflect(opaque, Debug, PartialEq, Hash)]
pub struct Sym(u32);

struct Interner {
    ids: std::collections::HashMap<&'static str, u32>,
    names: Vec<&'static str>,
}

fn interner() -> &'static std::sync::RwLock<Interner> {
    static TABLE: std::sync::OnceLock<std::sync::RwLock<Interner>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        std::sync::RwLock::new(Interner {
            ids: std::collections::HashMap::new(),
            names: Vec::new(),
        })
    })
}

impl Sym {
    /// The id of a string, interning it the first time. The table only
    /// grows (strings are the game's and the trees' names: a bounded set).
    pub fn new(s: &str) -> Sym {
        if let Some(&id) = interner()
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .ids
            .get(s)
        {
            return Sym(id);
        }
        let mut t = interner()
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&id) = t.ids.get(s) {
            return Sym(id);
        }
        let id = t.names.len() as u32;
        let name: &'static str = Box::leak(s.to_owned().into_boxed_str());
        t.names.push(name);
        t.ids.insert(name, id);
        Sym(id)
    }

    /// The string.
    pub fn as_str(self) -> &'static str {
        interner()
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .names
            .get(self.0 as usize)
            .copied()
            .unwrap_or("")
    }
}

impl fmt::Debug for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for Sym {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Sym {
    fn from(s: &str) -> Self {
        Sym::new(s)
    }
}

impl Value {
    /// The type's name, for messages.
    pub fn type_name(&self) -> &'static str {
        self.value_type().name()
    }

    /// The value's type.
    pub fn value_type(&self) -> ValueType {
        match self {
            Value::Bool(_) => ValueType::Bool,
            Value::Int(_) => ValueType::Int,
            Value::Float(_) => ValueType::Float,
            Value::Entity(_) => ValueType::Entity,
            Value::Vec2(_) => ValueType::Vec2,
            Value::Vec3(_) => ValueType::Vec3,
            Value::Str(_) => ValueType::Str,
        }
    }

    /// Whether two values have the same type (ints and floats compare with
    /// each other).
    pub fn same_kind(&self, other: &Value) -> bool {
        self.value_type().accepts(other)
    }

    /// The value as a bool (numbers: non-zero; other kinds: `false`).
    pub fn as_bool(&self) -> bool {
        match *self {
            Value::Bool(b) => b,
            Value::Int(i) => i != 0,
            Value::Float(f) => f != 0.0,
            _ => false,
        }
    }

    /// The value as a float (bools: 0 or 1; other kinds: NaN).
    pub fn as_f64(&self) -> f64 {
        match *self {
            Value::Bool(b) => f64::from(u8::from(b)),
            Value::Int(i) => i as f64,
            Value::Float(f) => f,
            _ => f64::NAN,
        }
    }
}

/// A Rust type a value converts to: what typed parameter reads return.
pub trait FromValue: Sized {
    /// The blackboard type it reads.
    const TYPE: ValueType;
    /// The conversion (`None` for a value of another type).
    fn from_value(v: Value) -> Option<Self>;
    /// Whether a parameter of type `ty` can be read as this type.
    fn accepts(ty: ValueType) -> bool {
        Self::TYPE.accepts_type(ty)
    }
}

/// Any value, as it is (untyped reads; not a [`bt_action!`](crate::bt_action)
/// field type: a schema needs a type).
impl FromValue for Value {
    const TYPE: ValueType = ValueType::Bool;
    fn from_value(v: Value) -> Option<Self> {
        Some(v)
    }
    fn accepts(_: ValueType) -> bool {
        true
    }
}

/// `f` as an `i64`, if it is a whole number in the `i64` range.
pub(crate) fn exact_int(f: f64) -> Option<i64> {
    // 2^63: `i64::MAX` is not a float, and `as` would saturate to it.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    (f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f)).then_some(f as i64)
}

/// `i` as an `f64`, if the float holds it exactly.
fn exact_float(i: i64) -> Option<f64> {
    let f = i as f64;
    (exact_int(f) == Some(i)).then_some(f)
}

macro_rules! from_value {
    ($t:ty, $vt:ident, $($pat:pat => $e:expr),+) => {
        impl FromValue for $t {
            const TYPE: ValueType = ValueType::$vt;
            #[inline]
            fn from_value(v: Value) -> Option<Self> {
                #[allow(clippy::cast_possible_truncation, reason = "floats are read as floats")]
                match v {
                    $($pat => $e,)+
                    _ => None,
                }
            }
        }
    };
}
from_value!(bool, Bool, Value::Bool(b) => Some(b));
// Whole numbers only, and only in the type's range: `2.9` is no `i64`,
// `-5` no `u32`, `3000000000` no `i32` (a read that would change the number
// fails, as a write to a key that would does).
from_value!(i64, Int, Value::Int(i) => Some(i), Value::Float(f) => exact_int(f));
from_value!(i32, Int, Value::Int(i) => i32::try_from(i).ok(), Value::Float(f) => exact_int(f).and_then(|i| i32::try_from(i).ok()));
from_value!(u32, Int, Value::Int(i) => u32::try_from(i).ok(), Value::Float(f) => exact_int(f).and_then(|i| u32::try_from(i).ok()));
from_value!(f64, Float, Value::Float(f) => Some(f), Value::Int(i) => Some(i as f64));
from_value!(f32, Float, Value::Float(f) => Some(f as f32), Value::Int(i) => Some(i as f32));
from_value!(Entity, Entity, Value::Entity(e) => Some(e));
from_value!(Vec2, Vec2, Value::Vec2(v) => Some(v));
from_value!(Vec3, Vec3, Value::Vec3(v) => Some(v));
from_value!(Sym, Str, Value::Str(s) => Some(s));

/// A value as written in a tree file: a constant, a reference to a
/// blackboard key or a behavior's parameter (`"{target}"`), or a type with
/// no value yet (`Entity`: a key declared without a default).
#[derive(Debug, Clone, PartialEq)]
pub enum ValueDef {
    /// A constant.
    Value(Value),
    /// `"{name}"`: the key or parameter `name`.
    Ref(String),
    /// A type name: declared, no value yet.
    Type(ValueType),
}

impl ValueDef {
    /// The text as written, for error positions (`{target}`, `12.5`).
    pub fn text(&self) -> String {
        match self {
            ValueDef::Value(v) => v.to_string(),
            ValueDef::Ref(k) => format!("{{{k}}}"),
            ValueDef::Type(t) => t.name().to_owned(),
        }
    }
}

/// Bindings or parameters by name, as written.
pub type Bindings = std::collections::BTreeMap<String, ValueDef>;

/// The shapes RON gives for a value (serde's untagged form: a bare
/// identifier arrives as a string, `Name(x)` as a one-entry map).
#[derive(Deserialize)]
#[serde(untagged)]
enum Raw {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Numbers(Vec<f64>),
    Named(std::collections::BTreeMap<String, RawArg>),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawArg {
    Int(u64),
    Numbers(Vec<f64>),
    Str(String),
}

fn from_raw(raw: Raw) -> Result<ValueDef, String> {
    Ok(match raw {
        Raw::Bool(b) => ValueDef::Value(Value::Bool(b)),
        Raw::Int(i) => ValueDef::Value(Value::Int(i)),
        Raw::Float(f) => ValueDef::Value(Value::Float(f)),
        Raw::Str(s) => {
            if let Some(k) = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
                ValueDef::Ref(k.to_owned())
            } else if let Some(t) = ValueType::from_name(&s) {
                ValueDef::Type(t)
            } else {
                ValueDef::Value(Value::Str(Sym::new(&s)))
            }
        }
        Raw::Numbers(n) => ValueDef::Value(vector(&n)?),
        Raw::Named(m) => {
            let mut it = m.into_iter();
            let (Some((name, arg)), None) = (it.next(), it.next()) else {
                return Err("expected one value".into());
            };
            match (name.as_str(), arg) {
                ("Entity", RawArg::Int(i)) => ValueDef::Value(Value::Entity(
                    u32::try_from(i)
                        .ok()
                        .and_then(Entity::from_raw_u32)
                        .ok_or_else(|| format!("Entity({i}): not an entity index"))?,
                )),
                ("Vec2", RawArg::Numbers(n)) if n.len() == 2 => ValueDef::Value(vector(&n)?),
                ("Vec3", RawArg::Numbers(n)) if n.len() == 3 => ValueDef::Value(vector(&n)?),
                ("Str", RawArg::Str(s)) => ValueDef::Value(Value::Str(Sym::new(&s))),
                (other, _) => {
                    return Err(format!(
                        "{other}(..) is not a value (expected Entity(index), Vec2(x, y), Vec3(x, y, z) or Str(\"text\"))"
                    ));
                }
            }
        }
    })
}

fn vector(n: &[f64]) -> Result<Value, String> {
    match *n {
        [x, y] => Ok(Value::Vec2(Vec2::new(x as f32, y as f32))),
        [x, y, z] => Ok(Value::Vec3(Vec3::new(x as f32, y as f32, z as f32))),
        _ => Err(format!(
            "a vector has 2 or 3 numbers, this one has {}",
            n.len()
        )),
    }
}

impl<'de> Deserialize<'de> for ValueDef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Raw::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "expected a value: true, 3, 1.5, \"text\", \"{key}\", (x, y), (x, y, z), Entity(index) or a type (Entity, Vec2, Vec3, String, Bool, Int, Float)",
            )
        })?;
        from_raw(raw).map_err(serde::de::Error::custom)
    }
}

/// As a tree file writes it: a constant as itself, a reference as
/// `"{key}"`, a type by its name.
impl Serialize for ValueDef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ValueDef::Value(v) => v.serialize(s),
            ValueDef::Ref(k) => s.serialize_str(&format!("{{{k}}}")),
            ValueDef::Type(t) => s.serialize_str(t.name()),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match ValueDef::deserialize(d)? {
            ValueDef::Value(v) => Ok(v),
            ValueDef::Ref(k) => Err(serde::de::Error::custom(format!(
                "\"{{{k}}}\" refers to a key; a value is needed here"
            ))),
            ValueDef::Type(t) => Err(serde::de::Error::custom(format!(
                "{t} is a type; a value is needed here"
            ))),
        }
    }
}

impl Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Value::Bool(b) => s.serialize_bool(b),
            Value::Int(i) => s.serialize_i64(i),
            Value::Float(f) => s.serialize_f64(f),
            // By index, as `Entity(index)` reads it back.
            Value::Entity(e) => s.serialize_newtype_variant("Value", 3, "Entity", &e.index_u32()),
            Value::Vec2(v) => [v.x, v.y].serialize(s),
            Value::Vec3(v) => [v.x, v.y, v.z].serialize(s),
            // Tagged: a bare string could read back as a `{key}` or a type.
            Value::Str(x) => s.serialize_newtype_variant("Value", 6, "Str", x.as_str()),
        }
    }
}

/// A type name with its article, for messages: "a bool", "an int".
pub fn with_article(type_name: &str) -> String {
    match type_name.chars().next().map(|c| c.to_ascii_lowercase()) {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {type_name}"),
        _ => format!("a {type_name}"),
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            // A float the game wrote as an `f32` (2.7 is 2.700000047683716
            // as an `f64`) shows as it was written.
            #[allow(clippy::cast_possible_truncation, reason = "compared back")]
            Value::Float(x) if f64::from(*x as f32) == *x => write!(f, "{}", *x as f32),
            Value::Float(x) => write!(f, "{x}"),
            Value::Entity(e) => write!(f, "Entity({})", e.index()),
            Value::Vec2(v) => write!(f, "({}, {})", v.x, v.y),
            Value::Vec3(v) => write!(f, "({}, {}, {})", v.x, v.y, v.z),
            Value::Str(s) => write!(f, "{:?}", s.as_str()),
        }
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
impl From<i64> for Value {
    fn from(v: i64) -> Self {
        Value::Int(v)
    }
}
impl From<i32> for Value {
    fn from(v: i32) -> Self {
        Value::Int(v.into())
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
impl From<f32> for Value {
    fn from(v: f32) -> Self {
        Value::Float(v.into())
    }
}
impl From<Entity> for Value {
    fn from(v: Entity) -> Self {
        Value::Entity(v)
    }
}
impl From<Vec2> for Value {
    fn from(v: Vec2) -> Self {
        Value::Vec2(v)
    }
}
impl From<Vec3> for Value {
    fn from(v: Vec3) -> Self {
        Value::Vec3(v)
    }
}
impl From<Sym> for Value {
    fn from(v: Sym) -> Self {
        Value::Str(v)
    }
}
impl From<&str> for Value {
    /// Interns the string.
    fn from(v: &str) -> Self {
        Value::Str(Sym::new(v))
    }
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Op {
    /// `lhs <op> rhs`. Bools compare as 0/1; ints exactly; mixed as floats.
    /// Entities, vectors and strings are equal or not (the compiler refuses
    /// ordering operators on them).
    #[inline]
    pub fn eval(self, lhs: Value, rhs: Value) -> bool {
        let ord = match (lhs, rhs) {
            (Value::Int(a), Value::Int(b)) => a.partial_cmp(&b),
            (Value::Bool(a), Value::Bool(b)) => a.partial_cmp(&b),
            (Value::Float(_) | Value::Int(_), Value::Float(_) | Value::Int(_)) => {
                lhs.as_f64().partial_cmp(&rhs.as_f64())
            }
            (a, b) if a.value_type() == b.value_type() => {
                return match self {
                    Op::Eq => a == b,
                    Op::Ne => a != b,
                    _ => false,
                };
            }
            // Values of different kinds are never equal.
            _ => return matches!(self, Op::Ne),
        };
        let Some(ord) = ord else {
            return matches!(self, Op::Ne);
        };
        use std::cmp::Ordering::*;
        match self {
            Op::Eq => ord == Equal,
            Op::Ne => ord != Equal,
            Op::Lt => ord == Less,
            Op::Le => ord != Greater,
            Op::Gt => ord == Greater,
            Op::Ge => ord != Less,
        }
    }

    /// The operator with its operands swapped (`a < b` is `b > a`).
    pub fn flipped(self) -> Op {
        match self {
            Op::Lt => Op::Gt,
            Op::Le => Op::Ge,
            Op::Gt => Op::Lt,
            Op::Ge => Op::Le,
            other => other,
        }
    }

    /// The operator as written in code.
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }
}

/// One parameter of an action's schema (see [`BtAction`](crate::BtAction)),
/// a predicate's arguments or a custom node's
/// ([`CustomNode::params`](crate::CustomNode::params)).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamSpec {
    /// The name tree files use.
    pub name: &'static str,
    /// Its type.
    pub ty: ValueType,
    /// The value when a tree leaves it out (`None`: required).
    pub default: Option<Value>,
    /// Whether the action writes it (an output port: the tree must give a
    /// `"{key}"` of this type).
    pub output: bool,
}

impl ParamSpec {
    /// A parameter a tree must give (of a custom node's
    /// [`params`](crate::CustomNode::params)).
    pub const fn required(name: &'static str, ty: ValueType) -> ParamSpec {
        ParamSpec {
            name,
            ty,
            default: None,
            output: false,
        }
    }

    /// A parameter a tree may leave out, then `default`.
    pub const fn optional(name: &'static str, ty: ValueType, default: Value) -> ParamSpec {
        ParamSpec {
            name,
            ty,
            default: Some(default),
            output: false,
        }
    }
}
