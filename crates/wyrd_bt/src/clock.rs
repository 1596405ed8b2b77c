//! An agent's clock: the one place agent time is computed (the plugin's
//! tick, `wyrd sim`, recordings replayed).

/// An agent's time: an exact µs clock whose whole milliseconds are the
/// agent's time, and the accumulator of a tree with its own rate. Steps of
/// a period that is not a whole number of ms (30 Hz: 33,333 µs) advance
/// agent time by 33 and 34 ms, never by a rounded 33 ms forever (which
/// would run 1 % slow).
///
/// The µs are kept as two halves: 12 bytes with 4-byte alignment, where a
/// `u64` beside the `f32` took 16 in every agent (issue 29's 256 bytes per
/// agent).
#[derive(Debug, Clone, Copy, Default, PartialEq, bevy::reflect::Reflect)]
pub(crate) struct AgentClock {
    us_low: u32,
    us_high: u32,
    accum: f32,
}

impl AgentClock {
    /// A clock at `us` µs (a restored agent's).
    pub(crate) fn at(us: u64) -> Self {
        let mut clock = AgentClock::default();
        clock.set_us(us);
        clock
    }

    /// The clock's time in µs.
    pub(crate) fn us(&self) -> u64 {
        (u64::from(self.us_high) << 32) | u64::from(self.us_low)
    }

    fn set_us(&mut self, us: u64) {
        self.us_low = us as u32;
        self.us_high = (us >> 32) as u32;
    }

    /// Whether a tree ticking at `rate_hz` (`None` or 0: every update) is
    /// due in an update of `dt` seconds, and its step in µs (`None`: not
    /// this update). `update_step_us` is `dt` in µs, rounded once per
    /// update by the caller.
    pub(crate) fn due(
        &mut self,
        rate_hz: Option<f32>,
        dt: f32,
        update_step_us: u64,
    ) -> Option<u64> {
        match rate_hz {
            Some(hz) if hz > 0.0 => {
                let period = 1.0 / hz;
                // No faster than the schedule: a rate at or above it ticks
                // every update by the update's step (a period's step each
                // update made agent time run slow: 1000 Hz at 30 Hz ran
                // 33 times too slow, an infinite rate not at all).
                if period <= dt {
                    self.accum = 0.0;
                    return Some(update_step_us);
                }
                self.accum += dt;
                if self.accum + 1e-6 < period {
                    return None;
                }
                // At most one period owed: a long frame does not make the
                // tree tick several times to catch up.
                self.accum = (self.accum - period).min(period);
                Some((f64::from(period) * 1e6).round() as u64)
            }
            _ => Some(update_step_us),
        }
    }

    /// Advances the clock by `step_us`; returns how many whole ms agent
    /// time advances.
    pub(crate) fn advance(&mut self, step_us: u64) -> u32 {
        let before = self.us();
        // Saturating: a restored or recorded clock may be anything.
        let after = before.saturating_add(step_us);
        self.set_us(after);
        (after / 1000 - before / 1000) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rate above the schedule's ticks every update by the update's step
    /// (agent time ran slow by the ratio; an infinite rate stood still).
    #[test]
    fn a_rate_above_the_schedule_keeps_real_time() {
        for hz in [30.0, 60.0, 1000.0, f32::INFINITY] {
            let mut clock = AgentClock::default();
            for _ in 0..30 {
                let step = clock.due(Some(hz), 1.0 / 30.0, 33_333).unwrap();
                clock.advance(step);
            }
            assert_eq!(clock.us() / 1000, 999, "{hz} Hz");
        }
    }

    /// A clock restored from a save or a recording may be anything: its
    /// end saturates (a recording with the largest clock crashed replay).
    #[test]
    fn a_clock_at_its_end_saturates() {
        let mut clock = AgentClock::at(u64::MAX - 10);
        assert_eq!(clock.advance(33_333), 0);
        assert_eq!(clock.us(), u64::MAX);
    }

    /// 30 Hz keeps real time: 30 steps are exactly 1,000 ms (33,333 µs
    /// each, the ms following the µs clock).
    #[test]
    fn thirty_steps_of_30_hz_are_one_second() {
        let mut c = AgentClock::default();
        let ms: u32 = (0..30).map(|_| c.advance(33_333)).sum();
        assert_eq!(ms, 999, "30 × 33,333 µs = 999,990 µs");
        assert_eq!(c.advance(10), 1);
    }

    /// A 10 Hz tree in a 30 Hz update ticks every third update with a
    /// 100 ms step.
    #[test]
    fn a_slower_rate_ticks_every_nth_update() {
        let mut c = AgentClock::default();
        let due: Vec<Option<u64>> = (0..6)
            .map(|_| c.due(Some(10.0), 1.0 / 30.0, 33_333))
            .collect();
        assert_eq!(due, [None, None, Some(100_000), None, None, Some(100_000)]);
    }
}
