//! The ground floor: a node's status, its rule flags and the one-byte
//! state the interpreter keeps per node. Imports nothing of the crate, so
//! every layer above (program, runtime, views, the custom-node API) can
//! name them without importing each other.

use std::fmt;

/// A node's (or tree's) status.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Hash, bevy::reflect::Reflect, serde::Deserialize,
)]
// The reflected type path from before the move (scenes and remote clients
// name types by it).
#[type_path = "wyrd_bt::runtime"]
#[repr(u8)]
pub enum Status {
    /// Not started (or halted).
    #[default]
    Idle,
    /// Started, not finished.
    Running,
    /// Finished well.
    Success,
    /// Finished badly, or not relevant.
    Failure,
    /// Had nothing to do (`RunOnce` after its run): parents carry on as if
    /// the node were not there (BT.CPP's SKIPPED).
    Skipped,
}

impl Status {
    /// Lower-case name (`running`, `success`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Idle => "idle",
            Status::Running => "running",
            Status::Success => "success",
            Status::Failure => "failure",
            Status::Skipped => "skipped",
        }
    }
}

/// Flag bits of [`NodeState`] (`flag`, not `rule`: `rule` is a kind's rule
/// text and `Rule` the Trainz leaf; the interpreter's bits; users read
/// [`RuleFlags`](crate::RuleFlags)).
pub(crate) mod flag {
    use super::RuleFlags;
    pub(crate) const PAUSED: u8 = RuleFlags::PAUSED.bits();
    pub(crate) const COMPLETE: u8 = RuleFlags::COMPLETE.bits();
    pub(crate) const WAS_COMPLETE: u8 = RuleFlags::WAS_COMPLETE.bits();
    pub(crate) const DOES_COMPLETE: u8 = RuleFlags::DOES_COMPLETE.bits();
}

/// Per-node runtime state, one byte: the status after the node's last tick
/// (bits 4-6) and its rule flags ([`RuleFlags`](crate::RuleFlags), bits 0-3). Composites' cursors
/// live apart, in the agent state's cursors.
#[derive(Clone, Copy, PartialEq, Eq, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(transparent)]
pub struct NodeState(pub(crate) u8);

impl NodeState {
    /// The packed byte (status and flags).
    #[inline]
    pub(crate) fn raw(self) -> u8 {
        self.0
    }

    /// A node state from its packed byte.
    pub(crate) fn from_raw(b: u8) -> NodeState {
        NodeState(b)
    }

    /// Status after the node's last tick.
    #[inline]
    pub fn status(self) -> Status {
        // A table look-up: one load, no branches (the hot path reads it for
        // every node it visits).
        const BY_BITS: [Status; 8] = [
            Status::Idle,
            Status::Running,
            Status::Success,
            Status::Failure,
            Status::Skipped,
            Status::Skipped,
            Status::Skipped,
            Status::Skipped,
        ];
        BY_BITS[((self.0 >> 4) & 7) as usize]
    }

    /// Sets the status.
    #[inline]
    pub(crate) fn set_status(&mut self, status: Status) {
        // The discriminants are the bits (`repr(u8)`, 0..=4).
        self.0 = (self.0 & 0x0F) | ((status as u8) << 4);
    }

    /// Rule flags.
    #[inline]
    pub fn flags(self) -> RuleFlags {
        RuleFlags::from_bits_truncate(self.0)
    }

    /// Rule flag bits ([`rule`]).
    #[inline]
    pub(crate) fn bits(self) -> u8 {
        self.0 & 0x0F
    }

    /// Sets these rule flags.
    #[inline]
    pub(crate) fn add_flags(&mut self, flags: u8) {
        self.0 |= flags & 0x0F;
    }

    /// Clears these rule flags.
    #[inline]
    pub(crate) fn clear_flags(&mut self, flags: u8) {
        self.0 &= !(flags & 0x0F);
    }

    /// The outcome of an instant node (conditions only): running by its
    /// parent, success or failure now, COMPLETE with it.
    #[inline]
    pub(crate) fn finish_instant(&mut self, ok: bool) -> Status {
        self.clear_flags(flag::PAUSED);
        if ok {
            self.add_flags(flag::COMPLETE | flag::WAS_COMPLETE);
            self.set_status(Status::Success);
        } else {
            self.clear_flags(flag::COMPLETE);
            self.set_status(Status::Failure);
        }
        self.status()
    }
}

impl std::fmt::Debug for NodeState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeState")
            .field("status", &self.status())
            .field("flags", &self.flags().to_string())
            .finish()
    }
}

bitflags::bitflags! {
    /// A node's Trainz rule flags.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub struct RuleFlags: u8 {
        /// The parent is not running the node; it does not change state.
        const PAUSED = 1;
        /// The node has completed (may be lost again, e.g. a rule whose
        /// condition stops holding).
        const COMPLETE = 2;
        /// The node completed at some point (latches until the node starts
        /// afresh).
        const WAS_COMPLETE = 4;
        /// The node can ever complete (static).
        const DOES_COMPLETE = 8;
    }
}

impl fmt::Display for RuleFlags {
    /// The flags as the letters `PCWD` (only those set), as in the Trainz
    /// documentation's tables.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (flag, c) in [
            (RuleFlags::PAUSED, 'P'),
            (RuleFlags::COMPLETE, 'C'),
            (RuleFlags::WAS_COMPLETE, 'W'),
            (RuleFlags::DOES_COMPLETE, 'D'),
        ] {
            if self.contains(flag) {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}
