//! The one seeded random number generator of Wyrd: SplitMix64 (tiny state,
//! a fixed algorithm, good enough for behavior choices and test loads).
//! Agents' random choices use it, so do the benches, tests and examples:
//! the same seed gives the same numbers on every machine and version.

/// SplitMix64 (Steele, Lea, Flood 2014). The state is the public field, so
/// it can be saved and restored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The golden-ratio increment of the state.
    pub const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

    /// A generator with this seed.
    pub const fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    #[inline]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(Self::GAMMA);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` (24 bits: exact in an `f32`).
    #[inline]
    pub fn unit_f32(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[0, 1)` (53 bits: exact in an `f64`).
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n` (`n` > 0; the modulo bias is below 2^-32 for the
    /// small `n` trees use).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn matches_the_reference_sequence() {
        // The published first outputs of SplitMix64 seeded with 0.
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(r.next(), 0x06C4_5D18_8009_454F);
    }
}
