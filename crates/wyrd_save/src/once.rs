//! Effects that must happen once across saves and losses (rewards): the
//! record that an effect happened lives in the same document as the
//! effect, so no loss of another document can undo one without the other.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// The ids of effects that happened (a reward paid, a unique item given),
/// saved in the same document as what they changed. Serialized as a JSON
/// list of strings, the shape of the seed's `CompletedEventIds`.
///
/// The coins of a profile document and the ids of the rewards that paid
/// them are one commit, one file: when any other document of the slot is
/// deleted or damaged and the quest is played again, the profile still
/// says the reward was paid.
///
/// ```
/// use wyrd_save::CompletedEvents;
/// let mut paid = CompletedEvents::default();
/// let mut coins = 0;
/// for _ in 0..2 {
///     if paid.complete("reward:drone_secret") {
///         coins += 100;
///     }
/// }
/// assert_eq!(coins, 100);
/// assert_eq!(serde_json::to_string(&paid).unwrap(), r#"["reward:drone_secret"]"#);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CompletedEvents(BTreeSet<String>);

impl CompletedEvents {
    /// Records `id`; `true` when it is new (do the effect now), `false`
    /// when it already happened (do nothing).
    pub fn complete(&mut self, id: impl Into<String>) -> bool {
        self.0.insert(id.into())
    }

    /// Whether `id` happened.
    pub fn contains(&self, id: &str) -> bool {
        self.0.contains(id)
    }

    /// The ids, sorted.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// How many effects happened.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether none did.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
