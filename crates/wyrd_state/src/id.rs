//! Stable identifiers of flags and counters.

use core::fmt;
use core::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The stable identity of a flag or counter: 128 bits, written as 32 lowercase
/// hex characters (the seed's save files use this form, e.g.
/// `a3f19c7e52d04b8e9c1f6d2a7b4e0c58`).
///
/// Ids never change once a flag ships: saves refer to entries by id, so a
/// renamed flag keeps its progress.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, bevy::reflect::Reflect)]
pub struct StableId(pub u128);

/// Why a string is not a [`StableId`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("id {text:?} is not 32 lowercase hex characters ({reason})")]
pub struct StableIdError {
    /// The rejected text.
    pub text: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl StableId {
    /// Parses exactly 32 lowercase hex characters.
    pub fn parse(text: &str) -> Result<Self, StableIdError> {
        let fail = |reason| StableIdError {
            text: text.to_owned(),
            reason,
        };
        if text.len() != 32 {
            return Err(fail("wrong length"));
        }
        if !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(fail("only 0-9 and a-f are allowed"));
        }
        u128::from_str_radix(text, 16)
            .map(StableId)
            .map_err(|_| fail("not hex"))
    }
}

impl FromStr for StableId {
    type Err = StableIdError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl fmt::Display for StableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl fmt::Debug for StableId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StableId({self})")
    }
}

impl Serialize for StableId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for StableId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        StableId::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects() {
        let id = StableId::parse("a3f19c7e52d04b8e9c1f6d2a7b4e0c58").unwrap();
        assert_eq!(id.to_string(), "a3f19c7e52d04b8e9c1f6d2a7b4e0c58");
        assert_eq!(
            StableId::parse("00000000000000000000000000000001")
                .unwrap()
                .to_string(),
            "00000000000000000000000000000001"
        );
        assert_eq!(StableId::parse("abc").unwrap_err().reason, "wrong length");
        assert!(StableId::parse("A3F19C7E52D04B8E9C1F6D2A7B4E0C58").is_err());
        assert!(StableId::parse("+3f19c7e52d04b8e9c1f6d2a7b4e0c58").is_err());
    }
}
