//! The integration tests of the `wyrd` command.
//!
//! One test binary for the crate (a cold build links one, not one per file).

mod breakpoints;
mod cli;
mod hostile;
mod monitor;
mod save_status;
