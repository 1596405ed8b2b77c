//! The integration tests of `wyrd_save`.
//!
//! One test binary for the crate (a cold build links one, not one per file).

mod faults;
mod plugin;
mod properties;
mod slot_properties;
mod store;
