//! The integration tests of `wyrd_state`.
//!
//! One test binary for the crate (a cold build links one, not one per file).

mod agents;
mod evaluation;
mod save;
mod world_names;
mod world_state;
