//! The integration tests of `wyrd_bt`.
//!
//! One test binary for the crate (a cold build links one, not one per file).

mod blackboard_nodes;
mod breakpoints;
mod conditions;
mod conformance;
mod data_model;
mod layering;
mod malformed;
mod no_dithering;
mod node_table;
mod persist;
mod plugin;
mod resume;
mod rules;
mod schemes;
mod tiers;
