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

/// A scalar float the reference is generic over: `f32` or `f64` (sealed: only these two;
/// public only so that the public [`planar::Element`](crate::planar::Element) can build on it,
/// in a module no user can name).
pub trait Real:
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
    /// `MAX/64`: a pair whose `|dA|² + |dB|² + |A0|² + |B0|²` is at most this has
    /// `4·|A0 - B0|²` finite and, with `s` and `t` in `[-1, 1]`, a finite squared
    /// distance, rounding included (every length at most `√MAX/8`).
    const MAX_OVER_64: Self;
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
    /// `√self`, correctly rounded.
    fn sqrt(self) -> Self;
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
            const MAX_OVER_64: Self = $f::MAX / 64.0;
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
            fn sqrt(self) -> Self {
                $f::sqrt(self)
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

/// True when this build fuses multiply-adds in the kernel; the reference then fuses the
/// same operations, so both round identically.
///
/// In a default build this is what `wide` does: `vfmadd` with the `fma` target feature
/// (x86-64-v3, v4), NEON's `fmla` on aarch64 (every aarch64 build has NEON: the Linux,
/// Apple and Windows targets all enable it), and separate multiplies and adds otherwise
/// (plain x86-64, SSE2). aarch64 fuses because its vector multiply-add is fused whatever
/// the flags, and the reference follows the kernel, not the other way round: unfusing the
/// kernel there would cost a second instruction per multiply-add and a rounding error,
/// for bits no other default build would share (the unfused default build, SSE2, is slower
/// and differs from it in every product). The scalar `mul_add` the reference calls is one `fmadd` there,
/// as on x86-64-v3; on SSE2 it would be a call into libm's `fma`, which is why the
/// reference's helpers call it only when this is true.
///
/// With the `same-bits` feature this is false on every CPU: kernel and reference round
/// every product and every sum separately, as a plain SSE2 build does, so every build
/// (SSE2, AVX2, AVX-512, aarch64) gives the SSE2 build's bits.
pub const FUSED_MUL_ADD: bool = cfg!(all(
    not(feature = "same-bits"),
    any(
        target_feature = "fma",
        all(target_arch = "aarch64", target_feature = "neon")
    )
));

// Scalar twins of the `wide` operations the kernel uses, so both round identically.

/// `x·y + z`, fused exactly when the kernel's `mul_add` is.
#[inline(always)]
pub(crate) fn fma<F: Real>(x: F, y: F, z: F) -> F {
    if FUSED_MUL_ADD {
        x.mul_add(y, z)
    } else {
        x * y + z
    }
}

/// `x·y - z` (the kernel's `mul_sub`).
#[inline(always)]
pub(crate) fn fms<F: Real>(x: F, y: F, z: F) -> F {
    if FUSED_MUL_ADD {
        x.mul_add(y, -z)
    } else {
        x * y - z
    }
}

/// `z - x·y` (the kernel's `mul_neg_add`).
#[inline(always)]
pub(crate) fn fnma<F: Real>(x: F, y: F, z: F) -> F {
    if FUSED_MUL_ADD {
        (-x).mul_add(y, z)
    } else {
        z - x * y
    }
}

/// `x > y ? x : y`, the x86 `maxps` rule the kernel's `fast_max` follows on every
/// instruction set ([`Twin::max_ps`](crate::lanes::Twin::max_ps): NEON's own `fmax` would
/// give `+0` for `-0` against `+0`, and NaN for NaN), so a `-0` clamped to `[0, 1]` stays
/// `-0` on every CPU. Never sees NaN in a kept lane: non-finite pairs have returned
/// already.
#[inline(always)]
pub(crate) fn max_ps<F: Real>(x: F, y: F) -> F {
    if x > y { x } else { y }
}

/// `x < y ? x : y`, the x86 `minps` rule (see [`max_ps`]).
#[inline(always)]
pub(crate) fn min_ps<F: Real>(x: F, y: F) -> F {
    if x < y { x } else { y }
}

/// Clamp to `[lo, hi]` as the kernel does: `max(lo, min(hi, x))`.
#[inline(always)]
pub(crate) fn clamp<F: Real>(x: F, lo: F, hi: F) -> F {
    max_ps(lo, min_ps(hi, x))
}

#[inline(always)]
pub(crate) fn sub<F: Real>(u: [F; 3], v: [F; 3]) -> [F; 3] {
    [u[0] - v[0], u[1] - v[1], u[2] - v[2]]
}

/// `u·v` as `fma(u.x, v.x, fma(u.y, v.y, u.z·v.z))`.
#[inline(always)]
pub(crate) fn dot<F: Real>(u: [F; 3], v: [F; 3]) -> F {
    fma(u[0], v[0], fma(u[1], v[1], u[2] * v[2]))
}

/// `x·y - z·w` accurate to about one ulp of the *result*, however much the products cancel.
///
/// With fused multiply-add this is Kahan's algorithm: `p = z·w` rounded, `err = z·w - p`
/// exactly (one fused operation), `f = x·y - p` rounded once, result `f - err`. Without it,
/// both products are split exactly (Dekker's two-product with Veltkamp's splitting) and the
/// result is `(p1 - p2) + (e1 - e2)`.
#[inline(always)]
pub(crate) fn diff_of_products<F: Real>(x: F, y: F, z: F, w: F) -> F {
    if FUSED_MUL_ADD {
        let p = z * w;
        let err = fms(z, w, p);
        let f = fms(x, y, p);
        f - err
    } else {
        let (p1, e1) = two_product(x, y);
        let (p2, e2) = two_product(z, w);
        (p1 - p2) + (e1 - e2)
    }
}

/// Dekker's exact product without FMA: `x·y = p + e` exactly (barring over/underflow).
#[inline(always)]
fn two_product<F: Real>(x: F, y: F) -> (F, F) {
    let p = x * y;
    let (xh, xl) = split(x);
    let (yh, yl) = split(y);
    let e = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl;
    (p, e)
}

/// Veltkamp's splitting of a float into two halves (12 bits each in `f32`, 26 and 27 in `f64`), `x = hi + lo` exactly.
#[inline(always)]
fn split<F: Real>(x: F) -> (F, F) {
    let c = F::SPLITTER * x; // 2^12 + 1
    let hi = c - (c - x);
    (hi, x - hi)
}

/// `u × v` with each component from [`diff_of_products`]: accurate to about an ulp of
/// itself even when `u` and `v` are parallel to within a few ulps, which is what keeps the
/// direction of `n = dA × dB` (and so Goldman's `s`) meaningful near parallel.
#[inline(always)]
pub(crate) fn cross_accurate<F: Real>(u: [F; 3], v: [F; 3]) -> [F; 3] {
    [
        diff_of_products(u[1], v[2], u[2], v[1]),
        diff_of_products(u[2], v[0], u[0], v[2]),
        diff_of_products(u[0], v[1], u[1], v[0]),
    ]
}

/// `u × v`, each component one product minus one fused product.
#[inline(always)]
pub(crate) fn cross<F: Real>(u: [F; 3], v: [F; 3]) -> [F; 3] {
    [
        fms(u[1], v[2], u[2] * v[1]),
        fms(u[2], v[0], u[0] * v[2]),
        fms(u[0], v[1], u[1] * v[0]),
    ]
}

#[inline(always)]
pub(crate) fn sub3<F: Real>(u: [F; 3], v: [F; 3]) -> [F; 3] {
    [u[0] - v[0], u[1] - v[1], u[2] - v[2]]
}

/// `t·d + p` per coordinate (one fused multiply-add each): the lanes' `at8`.
#[inline(always)]
pub(crate) fn at<F: Real>(t: F, d: [F; 3], p: [F; 3]) -> [F; 3] {
    [fma(t, d[0], p[0]), fma(t, d[1], p[1]), fma(t, d[2], p[2])]
}

/// Σ x·0 over `xs`, fused as the kernel: NaN exactly when some `x` is NaN or infinite.
#[inline(always)]
pub(crate) fn probe<F: Real>(xs: &[F]) -> bool {
    xs.iter().fold(F::ZERO, |acc, &x| fma(x, F::ZERO, acc)) != F::ZERO
}

#[cfg(test)]
mod tests {
    use crate::real::Real;

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
