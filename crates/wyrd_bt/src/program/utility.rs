//! The compiled form of `Utility` nodes: per node its rules, per child its
//! score, per score its considerations (flat tables of the program).

use crate::def::{Combine, Curve};

pub use crate::kind::MAX_OPTIONS;

/// One `Utility` node's rules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct UtilityInfo {
    /// A challenger must beat the running child by more than this.
    pub(crate) margin: f32,
    /// How considerations combine.
    pub(crate) combine: Combine,
    /// Its children's scores: `child_count` entries of
    /// [`Program::scores`](crate::Program) from here.
    pub(crate) scores: u32,
}

/// One child's score: `weight` times its considerations combined.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ScoreInfo {
    /// Multiplies the combined considerations.
    pub(crate) weight: f32,
    /// First consideration (in the program's table).
    pub(crate) first: u32,
    /// How many.
    pub(crate) len: u32,
}

/// What a compiled consideration reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ScoreSource {
    /// A blackboard key.
    Key(u16),
    /// A world value (its slot in the program's globals).
    Global(u32),
    /// A condition: 1 or 0.
    Cond(u32),
    /// A constant (a behavior parameter bound to one).
    Const(f32),
}

/// One compiled consideration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Consideration {
    /// Its input.
    pub(crate) source: ScoreSource,
    /// The input value mapped to 0.
    pub(crate) lo: f32,
    /// The input value mapped to 1.
    pub(crate) hi: f32,
    /// Its response curve.
    pub(crate) curve: Curve,
    /// `1 - curve`.
    pub(crate) invert: bool,
    /// Its weight in a `Sum`.
    pub(crate) weight: f32,
}

impl Curve {
    /// The curve at `x` (already in 0..=1), clamped to 0..=1 (NaN: 0).
    pub fn at(self, x: f32) -> f32 {
        let y = match self {
            Curve::Linear => x,
            Curve::Power(k) => x.powf(k),
            Curve::Logistic {
                steepness,
                midpoint,
            } => 1.0 / (1.0 + (-steepness * (x - midpoint)).exp()),
            Curve::Step(t) => {
                if x >= t {
                    1.0
                } else {
                    0.0
                }
            }
        };
        if y.is_nan() { 0.0 } else { y.clamp(0.0, 1.0) }
    }
}

impl Consideration {
    /// Its value for the input value `raw`: mapped by its range into
    /// 0..=1 (clamped), shaped by its curve, inverted if asked.
    pub(crate) fn value(&self, raw: f32) -> f32 {
        let x = ((raw - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0);
        let x = if x.is_nan() { 0.0 } else { x };
        let y = self.curve.at(x);
        if self.invert { 1.0 - y } else { y }
    }
}

impl Combine {
    /// The combined score of considerations `values` (each in 0..=1, with
    /// their `weights` for `Sum`).
    pub(crate) fn of(self, values: impl Iterator<Item = (f32, f32)>, n: usize) -> f32 {
        match self {
            Combine::Product => {
                // Compensation: a factor s counts as s + (1 - s)·(1 - 1/n)·s.
                let make_up = 1.0 - 1.0 / n.max(1) as f32;
                values.fold(1.0, |p, (s, _)| p * (s + (1.0 - s) * make_up * s))
            }
            Combine::Sum => {
                let (sum, weights) =
                    values.fold((0.0, 0.0), |(a, w), (s, sw)| (a + s * sw, w + sw));
                if weights > 0.0 { sum / weights } else { 0.0 }
            }
            Combine::Min => values.fold(1.0, |m, (s, _)| m.min(s)),
            Combine::Max => values.fold(0.0, |m, (s, _)| m.max(s)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linear(lo: f32, hi: f32) -> Consideration {
        Consideration {
            source: ScoreSource::Const(0.0),
            lo,
            hi,
            curve: Curve::Linear,
            invert: false,
            weight: 1.0,
        }
    }

    #[test]
    fn a_consideration_maps_its_range_clamps_and_inverts() {
        let c = linear(0.0, 100.0);
        assert_eq!(c.value(25.0), 0.25);
        assert_eq!(c.value(-5.0), 0.0);
        assert_eq!(c.value(500.0), 1.0);
        let falling = linear(100.0, 0.0);
        assert_eq!(falling.value(25.0), 0.75);
        let inverted = Consideration {
            invert: true,
            ..linear(0.0, 100.0)
        };
        assert_eq!(inverted.value(25.0), 0.75);
    }

    #[test]
    fn curves_have_their_shapes() {
        assert_eq!(Curve::Power(2.0).at(0.5), 0.25);
        assert_eq!(Curve::Step(0.5).at(0.49), 0.0);
        assert_eq!(Curve::Step(0.5).at(0.5), 1.0);
        let s = Curve::Logistic {
            steepness: 10.0,
            midpoint: 0.5,
        };
        assert!((s.at(0.5) - 0.5).abs() < 1e-6);
        assert!(s.at(0.0) < 0.01 && s.at(1.0) > 0.99);
        assert_eq!(Curve::Power(-1.0).at(0.0), 1.0, "infinity clamps");
    }

    /// StateTree's AND is the lower score, OR the higher; the product's
    /// compensation keeps 0 a veto and 1·1 a 1.
    #[test]
    fn combines_follow_their_rules() {
        let v = [(0.6, 1.0), (0.4, 1.0)];
        assert_eq!(Combine::Min.of(v.into_iter(), 2), 0.4);
        assert_eq!(Combine::Max.of(v.into_iter(), 2), 0.6);
        let p = Combine::Product.of(v.into_iter(), 2);
        // (0.6 + 0.4·0.5·0.6)·(0.4 + 0.6·0.5·0.4) = 0.72·0.52
        assert!((p - 0.72 * 0.52).abs() < 1e-6, "{p}");
        assert_eq!(
            Combine::Product.of([(0.0, 1.0), (1.0, 1.0)].into_iter(), 2),
            0.0
        );
        assert_eq!(
            Combine::Product.of([(1.0, 1.0), (1.0, 1.0)].into_iter(), 2),
            1.0
        );
        let s = Combine::Sum.of([(1.0, 3.0), (0.0, 1.0)].into_iter(), 2);
        assert_eq!(s, 0.75);
    }
}
