//! What can be wrong with an agent: [`AgentProblem`], kept in
//! [`BtAgent::problems`](crate::BtAgent::problems) (each once) and logged
//! when it is found.

use crate::blackboard::BlackboardError;
use crate::persist::RestoreError;
use crate::program::ParamError;

/// Something wrong with one agent, found while it binds, restores or runs.
///
/// Each is kept once per agent (an agent that keeps reading an unset key
/// reports it once) and logged when it is found; tests and tools match on
/// the variant, the inspector shows the text ([`Display`](std::fmt::Display)).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AgentProblem {
    /// A value the game put on the blackboard before the tree bound does
    /// not fit the tree's declaration (an unknown key, another type).
    #[error("{tree}: {error}")]
    Blackboard {
        /// The tree file.
        tree: String,
        /// What does not fit.
        error: BlackboardError,
    },
    /// A condition, or an action's input, read a blackboard key the game
    /// has not set: the condition does not hold, the action fails instead
    /// of starting, until the game sets it.
    #[error(
        "{tree}: blackboard key {key:?} was read before it was set (a condition on it does not hold, an action reading it fails without starting, until the game sets it)"
    )]
    UnsetKey {
        /// The tree file.
        tree: String,
        /// The key.
        key: String,
    },
    /// The tree names a world value that no flags file declares: it reads
    /// as unknown (a condition on it never holds, a score reads 0, an
    /// action writing it fails).
    #[error(
        "{at}: no flags file declares the world value {name:?}; it reads as unknown (a condition on it never holds, a score reads 0, an action writing it fails){hint}"
    )]
    UndeclaredWorldValue {
        /// Where the tree names it (`file:line:column`).
        at: String,
        /// The name.
        name: String,
        /// `; did you mean "X"?` for a declared name near it (as `wyrd
        /// check` says), else empty.
        hint: String,
    },
    /// A world action writes a value its flag or counter cannot hold
    /// (`SetCounterValue` on a flag, a number to a flag, 2.7 to a counter).
    #[error("{at}: {name} is {declared}; the action here writes {written} to it")]
    WorldValueType {
        /// Where the tree writes it (`file:line:column`).
        at: String,
        /// The flag or counter.
        name: String,
        /// What it is: `a flag (true or false)`, `a counter (a whole number)`.
        declared: &'static str,
        /// The value written.
        written: String,
    },
    /// A saved tree state was given ([`RestoreTree`](crate::RestoreTree))
    /// but could not be restored: the agent started fresh, its blackboard
    /// as it was.
    #[error("{tree}: saved tree state not restored: {error}")]
    NotRestored {
        /// The tree file.
        tree: String,
        /// Why.
        error: RestoreError,
    },
    /// A saved blackboard value named an entity that cannot be found now:
    /// the key loads unset.
    #[error("blackboard key {key:?} held {held}")]
    UnresolvedEntity {
        /// The key.
        key: String,
        /// What it held when saved and what became of it, in words
        /// ("the entity with PersistId \"intruder\" when saved; no entity
        /// has that id now, so it loads unset until one spawns").
        held: String,
    },
    /// The agent's tree file did not load (it does not exist, or does not
    /// compile): the agent does not tick until a version that loads
    /// replaces it (hot reload; the problem goes then). Bevy logs the same
    /// error with a `LogPlugin`; headless games and tests find it here. (A
    /// reload that fails leaves the agents on the version they had: no
    /// problem then.)
    #[error("{tree}: the tree did not load, the agent does not tick: {error}")]
    TreeNotLoaded {
        /// The tree file.
        tree: String,
        /// Why (with the line and column of a compile error).
        error: String,
    },
    /// A running action's parameters could not be read (an entity
    /// parameter not set yet, say): the action failed.
    #[error("{tree}: {error}; the action failed")]
    ActionParams {
        /// The tree file.
        tree: String,
        /// What could not be read.
        error: ParamError,
    },
}
