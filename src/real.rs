//! [`Real`]: the scalar float type (`f32` or `f64`) the reference is written over once.
//!
//! The scalar reference (`src/reference.rs`) is one generic body; this trait gives it the
//! few things that differ between the precisions: the constants of the range rescaling
//! (`RANGE_LO`/`RANGE_HI`), Veltkamp's splitting constant, and the power-of-two scales
//! read from the exponent field. Everything else is the same operations in the same order,
//! so the `f32` instantiation is the reference it replaced, bit for bit (the equivalence
//! tests of the kernel prove it), and the `f64` one has the same semantics in double
//! precision.

use core::fmt::Debug;
use core::ops::{Add, Div, Mul, Neg, Sub};

/// A scalar float the reference is generic over: `f32` or `f64` (sealed: only these two).
pub(crate) trait Real:
    Copy
    + Debug
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// 0.5.
    const HALF: Self;
    /// 4.
    const FOUR: Self;
    /// The largest finite value.
    const MAX: Self;
    /// The smallest positive normal value.
    const MIN_POSITIVE: Self;
    /// `+∞`.
    const INFINITY: Self;
    /// `-∞`.
    const NEG_INFINITY: Self;
    /// A quiet NaN.
    const NAN: Self;
    /// `|dA|²·|dB|²` at least this (and at most [`Real::RANGE_HI`]) keeps every product of
    /// four lengths the algorithm forms clear of underflow and overflow: `2^-80` in `f32`
    /// (exponents down to -126), `2^-640` in `f64` (down to -1022).
    const RANGE_LO: Self;
    /// See [`Real::RANGE_LO`]: `2^80` in `f32`, `2^640` in `f64`.
    const RANGE_HI: Self;
    /// Veltkamp's splitting constant `2^⌈p/2⌉ + 1` (`p` the significand's bits): `4097` in
    /// `f32`, `2^27 + 1` in `f64`.
    const SPLITTER: Self;

    /// `self·a + b`, rounded once.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `|self|`.
    fn abs(self) -> Self;
    /// Powers of two `(σ, 1/σ)` with `σ·x` in `[1, 2)` for a normal `x` of exponent `E`,
    /// `E` clamped so both stay normal (`[-126, 126]` in `f32`, `[-1022, 1022]` in `f64`;
    /// zero and subnormal `x` count as the lowest, NaN, infinity and the top binade as the
    /// highest).
    fn magnitude_scale(self) -> (Self, Self);
    /// Powers of two `(σ, 1/σ)` with `σ²·m` in `[1, 4)`: `σ = 2^-⌊E/2⌋`, `E` the exponent
    /// of `m` (zero and subnormal `m` count as the field's lowest value, NaN and infinity
    /// as its highest).
    fn power_of_two_scale(self) -> (Self, Self);
}

/// [`Real`] for `$f`, whose bits are `$u`, with `$mant` significand bits stored,
/// exponent bias `$bias` and `$field` exponent-field mask.
macro_rules! real {
    ($f:ident, $u:ident, $mant:expr, $bias:expr, $field:expr, $range:expr, $splitter:expr) => {
        impl Real for $f {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const HALF: Self = 0.5;
            const FOUR: Self = 4.0;
            const MAX: Self = $f::MAX;
            const MIN_POSITIVE: Self = $f::MIN_POSITIVE;
            const INFINITY: Self = $f::INFINITY;
            const NEG_INFINITY: Self = $f::NEG_INFINITY;
            const NAN: Self = $f::NAN;
            const RANGE_LO: Self = $f::from_bits((($bias - $range) as $u) << $mant);
            const RANGE_HI: Self = $f::from_bits((($bias + $range) as $u) << $mant);
            const SPLITTER: Self = $splitter;

            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                $f::mul_add(self, a, b)
            }
            #[inline(always)]
            fn abs(self) -> Self {
                $f::abs(self)
            }
            #[inline(always)]
            fn magnitude_scale(self) -> (Self, Self) {
                let top: i32 = $bias - 1;
                let exponent =
                    (((self.to_bits() >> $mant) & $field) as i32 - $bias).clamp(-top, top);
                (
                    $f::from_bits((($bias - exponent) as $u) << $mant),
                    $f::from_bits((($bias + exponent) as $u) << $mant),
                )
            }
            #[inline(always)]
            fn power_of_two_scale(self) -> (Self, Self) {
                let exponent = ((self.to_bits() >> $mant) & $field) as i32 - $bias;
                let half = exponent >> 1;
                (
                    $f::from_bits((($bias - half) as $u) << $mant),
                    $f::from_bits((($bias + half) as $u) << $mant),
                )
            }
        }
    };
}

real!(f32, u32, 23, 127, 0xff, 80, 4097.0);
real!(f64, u64, 52, 1023, 0x7ff, 640, 134_217_729.0);

#[cfg(test)]
mod tests {
    use super::Real;

    #[test]
    fn constants() {
        assert_eq!(<f32 as Real>::RANGE_LO, 2f32.powi(-80));
        assert_eq!(<f32 as Real>::RANGE_HI, 2f32.powi(80));
        assert_eq!(<f64 as Real>::RANGE_LO, 2f64.powi(-640));
        assert_eq!(<f64 as Real>::RANGE_HI, 2f64.powi(640));
    }

    #[test]
    fn scales() {
        for x in [
            1e-300f64,
            3.0,
            1e300,
            0.0,
            f64::MAX,
            f64::MIN_POSITIVE / 4.0,
        ] {
            let (s, inv) = x.magnitude_scale();
            assert_eq!(s * inv, 1.0, "{x}");
            if (f64::MIN_POSITIVE..f64::MAX / 2.0).contains(&x) {
                assert!((1.0..2.0).contains(&(s * x)), "{x}");
            }
            let (s, inv) = x.power_of_two_scale();
            if (f64::MIN_POSITIVE..=f64::MAX).contains(&x) {
                assert_eq!(s * inv, 1.0, "{x}");
                assert!((1.0..4.0).contains(&(s * s * x)), "{x}");
            }
        }
    }
}
