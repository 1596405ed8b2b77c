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

/// A UTC time as `YYYY-MM-DDTHH-MM-SSZ` (ISO 8601 with `-` for `:`, so it
/// is a valid file name everywhere and sorts by time).
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// let t = UNIX_EPOCH + Duration::from_secs(1_796_083_200 + 3_723);
/// assert_eq!(wyrd_save::utc_file_stamp(t), "2026-12-01T01-02-03Z");
/// ```
pub fn utc_file_stamp(time: SystemTime) -> String {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}-{:02}-{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
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
        assert_eq!(utc_file_stamp(UNIX_EPOCH), "1970-01-01T00-00-00Z");
        // A leap day.
        let t = UNIX_EPOCH + std::time::Duration::from_secs(951_782_400);
        assert_eq!(utc_file_stamp(t), "2000-02-29T00-00-00Z");
    }
}
