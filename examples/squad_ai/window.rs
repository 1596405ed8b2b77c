//! The windowed skirmish.
pub fn display_available() -> bool {
    false
}
pub fn run(_: &crate::game::GameConfig, _: usize, _: u64, _: Option<std::path::PathBuf>) {}
