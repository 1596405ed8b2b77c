//! The facade's tests and the example games driven through their binaries.
//!
//! One test binary for the crate (a cold build links one, not one per file).

mod support;

mod breakpoints_user;
mod checking;
mod drone_quest;
mod first_ai;
mod monitor;
mod session_rules;
mod squad_ai;
mod world_state_trees;
