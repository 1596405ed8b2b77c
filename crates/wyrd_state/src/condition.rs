//! Conditions on the world state: `flag == bool`, `counter <op> value`.

use serde::{Deserialize, Serialize};

use crate::state::{CounterHandle, FlagHandle, WorldState, WorldStateError};

/// Comparison of a counter with a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum CounterOp {
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

impl CounterOp {
    /// `lhs <op> rhs`.
    pub fn eval(self, lhs: i64, rhs: i64) -> bool {
        match self {
            CounterOp::Eq => lhs == rhs,
            CounterOp::Ne => lhs != rhs,
            CounterOp::Lt => lhs < rhs,
            CounterOp::Le => lhs <= rhs,
            CounterOp::Gt => lhs > rhs,
            CounterOp::Ge => lhs >= rhs,
        }
    }

    /// The operator as written in code (`>=`).
    pub fn symbol(self) -> &'static str {
        match self {
            CounterOp::Eq => "==",
            CounterOp::Ne => "!=",
            CounterOp::Lt => "<",
            CounterOp::Le => "<=",
            CounterOp::Gt => ">",
            CounterOp::Ge => ">=",
        }
    }
}

/// A condition on one entry, by name. In RON:
/// `Flag("NPC_DRONE_SPK_01", false)`, `Counter("QST_DST_TOWER_5", Ge, 5)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Condition {
    /// The flag has this value.
    Flag(String, bool),
    /// The counter compares with the value.
    Counter(String, CounterOp, i64),
}

impl Condition {
    /// `flag == value`.
    pub fn flag(name: impl Into<String>, value: bool) -> Self {
        Condition::Flag(name.into(), value)
    }

    /// `counter <op> value`.
    pub fn counter(name: impl Into<String>, op: CounterOp, value: i64) -> Self {
        Condition::Counter(name.into(), op, value)
    }

    /// Looks the name up once, so that checking is O(1) with no hashing
    /// (what behavior-tree nodes keep).
    pub fn resolve(&self, state: &WorldState) -> Result<ResolvedCondition, WorldStateError> {
        Ok(match self {
            Condition::Flag(name, value) => {
                ResolvedCondition::Flag(state.flag_handle(name.as_str())?, *value)
            }
            Condition::Counter(name, op, value) => {
                ResolvedCondition::Counter(state.counter_handle(name.as_str())?, *op, *value)
            }
        })
    }
}

/// A [`Condition`] with its entry already looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ResolvedCondition {
    /// The flag has this value.
    Flag(FlagHandle, bool),
    /// The counter compares with the value.
    Counter(CounterHandle, CounterOp, i64),
}

impl WorldState {
    /// Whether a condition holds.
    pub fn check(&self, condition: &Condition) -> Result<bool, WorldStateError> {
        Ok(self.check_resolved(condition.resolve(self)?))
    }

    /// Whether every condition holds (true for an empty list). Every name is
    /// checked, so a typo is an error even behind a condition that fails.
    pub fn check_all(&self, conditions: &[Condition]) -> Result<bool, WorldStateError> {
        let mut all = true;
        for c in conditions {
            all &= self.check(c)?;
        }
        Ok(all)
    }

    /// Whether a resolved condition holds.
    pub fn check_resolved(&self, condition: ResolvedCondition) -> bool {
        match condition {
            // A handle from another world state matches nothing.
            ResolvedCondition::Flag(h, v) => {
                self.flags.get(h.index()).is_some_and(|e| e.value == v)
            }
            ResolvedCondition::Counter(h, op, v) => self
                .counters
                .get(h.index())
                .is_some_and(|e| op.eval(e.value, v)),
        }
    }
}
