//! wyrd
