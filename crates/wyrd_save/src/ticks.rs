//! .NET ticks, the time unit of the seed's `LastSavedUtcTicks`.

use std::time::{SystemTime, UNIX_EPOCH};

/// .NET ticks (100 ns) between 0001-01-01 and 1970-01-01 UTC.
pub const UNIX_EPOCH_TICKS: i64 = 621_355_968_000_000_000;

/// Now, in .NET ticks: 100 ns units since 0001-01-01 00:00 UTC.
pub fn now_ticks() -> i64 {
    system_time_to_ticks(SystemTime::now())
}

/// A system time in .NET ticks.
pub fn system_time_to_ticks(time: SystemTime) -> i64 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(d) => UNIX_EPOCH_TICKS.saturating_add((d.as_nanos() / 100).min(i64::MAX as u128) as i64),
        Err(e) => UNIX_EPOCH_TICKS
            .saturating_sub((e.duration().as_nanos() / 100).min(i64::MAX as u128) as i64),
    }
}

/// .NET ticks as seconds since the Unix epoch (for display).
pub fn ticks_to_unix_seconds(ticks: i64) -> f64 {
    (ticks - UNIX_EPOCH_TICKS) as f64 / 10_000_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_timestamp_is_in_2026() {
        // The seed's save: 639287208004213377 ticks.
        let secs = ticks_to_unix_seconds(639_287_208_004_213_377);
        // 2026-11-.. : between 2026-01-01 (1767225600) and 2027-01-01.
        assert!((1_767_225_600.0..1_798_761_600.0).contains(&secs), "{secs}");
        assert_eq!(system_time_to_ticks(UNIX_EPOCH), UNIX_EPOCH_TICKS);
    }
}
