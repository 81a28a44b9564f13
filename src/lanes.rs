//! Vector helpers over lanes, written once for every kernel, and the [`Lane`] trait that
//! lets a kernel be written once for `f32x8`, `f32x16`, `f64x4` and `f64x8`.
//!
//! Each helper is the twin of a scalar one in [`crate::reference`] with the same operation
//! order (which products are fused, which are rounded), so a kernel built from them agrees
//! with its reference bit for bit. The naming rule: the scalar helper is `dot`, its twin
//! over any [`Lane`] type `dot_lanes` (2D, whose kernel is `f32x8` only: `dot2`, `dot2x8`),
//! so a file that holds a reference and its kernel side by side can use both.
//!
//! Masks are `f32x8` values with all bits set in selected lanes (what `simd_lt` and friends
//! return). Turning them into stored bytes goes through `movmskps` ([`mask_bytes`]), one
//! instruction and one multiplication where converting lane by lane costs some fifty.

use crate::columns::LANES;
use crate::real::{FUSED_MUL_ADD, Real};
use bytemuck::Pod;
use wide::{f32x4, f32x8, f32x16, f64x4, f64x8, i32x8, i32x16, u8x32, u32x8, u32x16, u64x4, u64x8};

/// Three coordinates, one lane vector each (eight lanes unless said otherwise): the
/// kernels' `[f32; 3]`.
#[derive(Clone, Copy)]
pub(crate) struct V3<L: Lane = f32x8> {
    pub x: L,
    pub y: L,
    pub z: L,
}

impl<L: Lane> V3<L> {
    /// The same point in every lane.
    #[inline(always)]
    pub(crate) fn splat(p: [L::Elem; 3]) -> V3<L> {
        V3 {
            x: L::splat(p[0]),
            y: L::splat(p[1]),
            z: L::splat(p[2]),
        }
    }

    /// `[x, y, z]` from three consecutive lane vectors starting at `k`.
    #[inline(always)]
    pub(crate) fn at_column<const C: usize>(c: &[L; C], k: usize) -> V3<L> {
        V3 {
            x: c[k],
            y: c[k + 1],
            z: c[k + 2],
        }
    }

    /// `f` applied to each coordinate.
    #[inline(always)]
    pub(crate) fn map(self, f: impl Fn(L) -> L) -> V3<L> {
        V3 {
            x: f(self.x),
            y: f(self.y),
            z: f(self.z),
        }
    }

    /// The coordinates as an array, for stores.
    #[inline(always)]
    pub(crate) fn to_array(self) -> [L; 3] {
        [self.x, self.y, self.z]
    }
}

/// The vector twins of the reference's scalar [`fma`](crate::real::fma),
/// [`fms`](crate::real::fms), [`fnma`](crate::real::fnma), [`min_ps`](crate::real::min_ps)
/// and [`max_ps`](crate::real::max_ps), for every `wide` float type the crate uses: the
/// only way its vector code multiplies-and-adds or takes a minimum or maximum (clippy's
/// `disallowed-methods` in `clippy.toml` rejects `wide`'s own `mul_add`, `fast_max`, `max`
/// and the like outside this file).
///
/// `wide` lets these five depend on the instruction set, and the reference cannot follow
/// what it does not know:
/// - `wide`'s `mul_add` is fused with `fma` and on aarch64 (NEON), unfused elsewhere.
///   [`Twin::fma`] is fused exactly when
///   [`FUSED_MUL_ADD`] says so: as `wide` in a default
///   build, never with the `same-bits` feature.
/// - `wide`'s `fast_max` is `maxps` on x86 (`self > rhs ? self : rhs`: the second operand
///   when either is NaN, and when the two are equal, `-0` against `+0` included) but
///   `fmax` on NEON (NaN when either is NaN, `+0` above `-0`). [`Twin::max_ps`] is the
///   `maxps` rule on every instruction set (`maxps` itself on x86, a compare and a select
///   elsewhere), so NEON builds give x86's bits; likewise [`Twin::min_ps`].
pub(crate) trait Twin: Copy {
    /// `self·a + b`, rounded once when [`FUSED_MUL_ADD`],
    /// else twice: the reference's `fma`.
    fn fma(self, a: Self, b: Self) -> Self;
    /// `self·a - b`: the reference's `fms`.
    fn fms(self, a: Self, b: Self) -> Self;
    /// `b - self·a`: the reference's `fnma`.
    fn fnma(self, a: Self, b: Self) -> Self;
    /// `self < rhs ? self : rhs` per lane (`minps`): the reference's `min_ps`.
    fn min_ps(self, rhs: Self) -> Self;
    /// `self > rhs ? self : rhs` per lane (`maxps`): the reference's `max_ps`.
    fn max_ps(self, rhs: Self) -> Self;
}

/// [`Twin`] for the `wide` float type `$f`.
macro_rules! twin {
    ($f:ident) => {
        #[allow(clippy::disallowed_methods)] // the one place `wide`'s own forms are used
        impl Twin for $f {
            #[inline(always)]
            fn fma(self, a: Self, b: Self) -> Self {
                if FUSED_MUL_ADD {
                    $f::mul_add(self, a, b)
                } else {
                    self * a + b
                }
            }
            #[inline(always)]
            fn fms(self, a: Self, b: Self) -> Self {
                if FUSED_MUL_ADD {
                    $f::mul_sub(self, a, b)
                } else {
                    self * a - b
                }
            }
            #[inline(always)]
            fn fnma(self, a: Self, b: Self) -> Self {
                if FUSED_MUL_ADD {
                    $f::mul_neg_add(self, a, b)
                } else {
                    b - self * a
                }
            }
            #[inline(always)]
            fn min_ps(self, rhs: Self) -> Self {
                if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
                    $f::fast_min(self, rhs)
                } else {
                    self.simd_lt(rhs).select(self, rhs)
                }
            }
            #[inline(always)]
            fn max_ps(self, rhs: Self) -> Self {
                if cfg!(any(target_arch = "x86", target_arch = "x86_64")) {
                    $f::fast_max(self, rhs)
                } else {
                    self.simd_gt(rhs).select(self, rhs)
                }
            }
        }
    };
}

twin!(f32x4);
twin!(f32x8);
twin!(f32x16);
twin!(f64x4);
twin!(f64x8);

/// A vector of float lanes the kernels are written over once: `wide::f32x8` (AVX2, or two
/// SSE2 halves) or `wide::f32x16` (one AVX-512 register with `avx512f`, else two `f32x8`),
/// and their `f64` twins `wide::f64x4` and `wide::f64x8` (the same rules), each with its
/// scalar type [`Lane::Elem`], the one the generic reference runs in.
///
/// Only what the kernels use, with `wide`'s meaning and names, except for the five
/// operations whose result `wide` lets depend on the instruction set: `mul_add`,
/// `mul_sub`, `mul_neg_add`, `fast_min` and `fast_max` are [`Twin`]'s (fused exactly when
/// [`FUSED_MUL_ADD`] says so, `minps`/`maxps`'s rule on
/// every instruction set). Every other method is a plain forward to `wide`'s inherent
/// method of the same name, so a kernel written over `L: Lane` compiles to what it would
/// have written against the concrete type.
pub(crate) trait Lane:
    Twin
    + Send
    + Sync
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + core::ops::Neg<Output = Self>
    + core::ops::BitAnd<Output = Self>
    + core::ops::BitOr<Output = Self>
    + core::ops::Not<Output = Self>
{
    /// The scalar type of a lane (`f32` or `f64`): the reference's [`Real`].
    type Elem: Real + Pod + Send + Sync;
    /// Number of lanes.
    const WIDTH: usize;
    /// The lanes as an array, `[Elem; WIDTH]`: what the driver cuts columns into.
    type Group: Pod + Send + Sync;
    /// Lanes from an array.
    fn from_group(g: Self::Group) -> Self;
    /// `values` (a multiple of [`Lane::WIDTH`] long) as whole groups.
    fn groups(values: &[Self::Elem]) -> &[Self::Group];
    /// The same lanes as unsigned integers of the same width (flag bits).
    type Bits: Copy + core::ops::BitAnd<Output = Self::Bits> + core::ops::BitOr<Output = Self::Bits>;
    /// All lanes 0.
    const ZERO: Self;
    /// All lanes 1.
    const ONE: Self;
    /// All lanes 0.5.
    const HALF: Self;
    /// `x` in every lane.
    fn splat(x: Self::Elem) -> Self;
    /// `self·a + b`: [`Twin::fma`] (`wide`'s name, so that a generic kernel reads like one
    /// written against `wide`).
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `self·a - b`: [`Twin::fms`].
    fn mul_sub(self, a: Self, b: Self) -> Self;
    /// `b - self·a`: [`Twin::fnma`].
    fn mul_neg_add(self, a: Self, b: Self) -> Self;
    /// `self < rhs ? self : rhs`: [`Twin::min_ps`].
    fn fast_min(self, rhs: Self) -> Self;
    /// `self > rhs ? self : rhs`: [`Twin::max_ps`].
    fn fast_max(self, rhs: Self) -> Self;
    /// `|self|`.
    fn abs(self) -> Self;
    /// `√self`, correctly rounded (`sqrtps`/`sqrtpd`, as the scalar `sqrt`).
    fn sqrt(self) -> Self;
    /// Mask of `self <= rhs`.
    fn simd_le(self, rhs: Self) -> Self;
    /// Mask of `self >= rhs`.
    fn simd_ge(self, rhs: Self) -> Self;
    /// Mask of `self < rhs`.
    fn simd_lt(self, rhs: Self) -> Self;
    /// Mask of `self > rhs`.
    fn simd_gt(self, rhs: Self) -> Self;
    /// Mask of `self == rhs`.
    fn simd_eq(self, rhs: Self) -> Self;
    /// Mask of `self != rhs`.
    fn simd_ne(self, rhs: Self) -> Self;
    /// `t` where the mask `self` is set, else `f`.
    fn select(self, t: Self, f: Self) -> Self;
    /// True when some lane of the mask is set.
    fn any(self) -> bool;
    /// True when every lane of the mask is set.
    fn all(self) -> bool;
    /// The lanes' bits.
    fn to_bits(self) -> Self::Bits;
    /// `x` in every lane of a bits vector.
    fn splat_bits(x: u32) -> Self::Bits;
    /// `t` where the mask `self` is set, else `f`, on bits.
    fn select_bits(self, t: Self::Bits, f: Self::Bits) -> Self::Bits;
    /// Per lane `reference::magnitude_scale`: powers of two `(σ, 1/σ)` with `σ·x` in
    /// `[1, 2)`, the exponent clamped to `[-126, 126]`.
    fn magnitude_scale(self) -> (Self, Self);
    /// Per lane `reference::power_of_two_scale`: powers of two `(σ, 1/σ)` with `σ²·m` in
    /// `[1, 4)`.
    fn power_of_two_scale(self) -> (Self, Self);
}

/// [`Lane`] for a `wide` float type `$f` of `$n` lanes of scalar `$e` with bits `$u`; the
/// power-of-two scales come from `$scales`.
macro_rules! lane {
    ($f:ident, $e:ident, $n:literal, $u:ident, $scales:ident $(, $i:ident)?) => {
        impl Lane for $f {
            type Elem = $e;
            const WIDTH: usize = $n;
            type Group = [$e; $n];
            #[inline(always)]
            fn from_group(g: [$e; $n]) -> Self {
                $f::from(g)
            }
            #[inline(always)]
            fn groups(values: &[$e]) -> &[[$e; $n]] {
                values.as_chunks::<$n>().0
            }
            type Bits = $u;
            const ZERO: Self = $f::ZERO;
            const ONE: Self = $f::ONE;
            const HALF: Self = $f::HALF;
            #[inline(always)]
            fn splat(x: $e) -> Self {
                $f::splat(x)
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                Twin::fma(self, a, b)
            }
            #[inline(always)]
            fn mul_sub(self, a: Self, b: Self) -> Self {
                Twin::fms(self, a, b)
            }
            #[inline(always)]
            fn mul_neg_add(self, a: Self, b: Self) -> Self {
                Twin::fnma(self, a, b)
            }
            #[inline(always)]
            fn fast_min(self, rhs: Self) -> Self {
                Twin::min_ps(self, rhs)
            }
            #[inline(always)]
            fn fast_max(self, rhs: Self) -> Self {
                Twin::max_ps(self, rhs)
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
            fn simd_le(self, rhs: Self) -> Self {
                $f::simd_le(self, rhs)
            }
            #[inline(always)]
            fn simd_ge(self, rhs: Self) -> Self {
                $f::simd_ge(self, rhs)
            }
            #[inline(always)]
            fn simd_lt(self, rhs: Self) -> Self {
                $f::simd_lt(self, rhs)
            }
            #[inline(always)]
            fn simd_gt(self, rhs: Self) -> Self {
                $f::simd_gt(self, rhs)
            }
            #[inline(always)]
            fn simd_eq(self, rhs: Self) -> Self {
                $f::simd_eq(self, rhs)
            }
            #[inline(always)]
            fn simd_ne(self, rhs: Self) -> Self {
                $f::simd_ne(self, rhs)
            }
            #[inline(always)]
            fn select(self, t: Self, f: Self) -> Self {
                $f::select(self, t, f)
            }
            #[inline(always)]
            fn any(self) -> bool {
                $f::any(self)
            }
            #[inline(always)]
            fn all(self) -> bool {
                $f::all(self)
            }
            #[inline(always)]
            fn to_bits(self) -> $u {
                $f::to_bits(self)
            }
            #[inline(always)]
            fn splat_bits(x: u32) -> $u {
                $u::splat(x.into())
            }
            #[inline(always)]
            fn select_bits(self, t: $u, f: $u) -> $u {
                $f::to_bits(self).select(t, f)
            }
            $scales!($f, $u $(, $i)?);
        }
    };
}

/// The scales of an `f32` lane type, on the exponent field in integer lanes.
macro_rules! simd_scales {
    ($f:ident, $u:ident, $i:ident) => {
        #[inline(always)]
        fn magnitude_scale(self) -> (Self, Self) {
            let field = ((self.to_bits() >> 23_u32) & $u::splat(0xff)).cast_signed();
            let exponent = (field - $i::splat(127))
                .max($i::splat(-126))
                .min($i::splat(126));
            let pow2 = |biased: $i| $f::from_bits((biased << 23_u32).cast_unsigned());
            (
                pow2($i::splat(127) - exponent),
                pow2($i::splat(127) + exponent),
            )
        }
        #[inline(always)]
        fn power_of_two_scale(self) -> (Self, Self) {
            let field = ((self.to_bits() >> 23_u32) & $u::splat(0xff)).cast_signed();
            let half = (field - $i::splat(127)) >> 1_u32;
            let pow2 = |biased: $i| $f::from_bits((biased << 23_u32).cast_unsigned());
            (pow2($i::splat(127) - half), pow2($i::splat(127) + half))
        }
    };
}

/// The scales of an `f64` lane type, lane by lane with the reference's own scalar
/// functions (`wide` 1.7 has no 64-bit lane shifts and min/max on every path; the scales
/// run only on the masked path's rescaled groups).
macro_rules! lane_by_lane_scales {
    ($f:ident, $u:ident) => {
        #[inline(always)]
        fn magnitude_scale(self) -> (Self, Self) {
            let x = self.to_array();
            let s = x.map(|v| Real::magnitude_scale(v));
            ($f::new(s.map(|p| p.0)), $f::new(s.map(|p| p.1)))
        }
        #[inline(always)]
        fn power_of_two_scale(self) -> (Self, Self) {
            let x = self.to_array();
            let s = x.map(|v| Real::power_of_two_scale(v));
            ($f::new(s.map(|p| p.0)), $f::new(s.map(|p| p.1)))
        }
    };
}

lane!(f32x8, f32, 8, u32x8, simd_scales, i32x8);
lane!(f32x16, f32, 16, u32x16, simd_scales, i32x16);
lane!(f64x4, f64, 4, u64x4, lane_by_lane_scales);
lane!(f64x8, f64, 8, u64x8, lane_by_lane_scales);

/// Lanes 0-7 and 8-15 of a 16-lane vector (or bits vector) as two 8-lane ones, for the
/// stores of 8-lane groups.
#[inline(always)]
pub(crate) fn halves<W: Pod, H: Pod>(x: W) -> [H; 2] {
    bytemuck::cast(x)
}

/// Two coordinates, eight lanes each: the 2D kernel's `[f32; 2]`.
#[derive(Clone, Copy)]
pub(crate) struct V2 {
    pub x: f32x8,
    pub y: f32x8,
}

impl V2 {
    /// `[x, y]` from two consecutive lane vectors starting at `k`.
    #[inline(always)]
    pub(crate) fn at_column<const C: usize>(c: &[f32x8; C], k: usize) -> V2 {
        V2 {
            x: c[k],
            y: c[k + 1],
        }
    }

    /// `f` applied to each coordinate.
    #[inline(always)]
    pub(crate) fn map(self, f: impl Fn(f32x8) -> f32x8) -> V2 {
        V2 {
            x: f(self.x),
            y: f(self.y),
        }
    }
}

/// `u - v`, as `reference::sub`.
#[inline(always)]
pub(crate) fn sub8<L: Lane>(u: V3<L>, v: V3<L>) -> V3<L> {
    V3 {
        x: u.x - v.x,
        y: u.y - v.y,
        z: u.z - v.z,
    }
}

/// `u·v` as `fma(u.x, v.x, fma(u.y, v.y, u.z·v.z))`, as `reference::dot`.
#[inline(always)]
pub(crate) fn dot_lanes<L: Lane>(u: V3<L>, v: V3<L>) -> L {
    u.x.mul_add(v.x, u.y.mul_add(v.y, u.z * v.z))
}

/// `u × v`, each component one product minus one fused product, as `reference::cross`.
#[inline(always)]
pub(crate) fn cross_lanes<L: Lane>(u: V3<L>, v: V3<L>) -> V3<L> {
    V3 {
        x: u.y.mul_sub(v.z, u.z * v.y),
        y: u.z.mul_sub(v.x, u.x * v.z),
        z: u.x.mul_sub(v.y, u.y * v.x),
    }
}

/// `t·d + p` per coordinate (one fused multiply-add each).
#[inline(always)]
pub(crate) fn at8<L: Lane>(t: L, d: V3<L>, p: V3<L>) -> V3<L> {
    V3 {
        x: t.mul_add(d.x, p.x),
        y: t.mul_add(d.y, p.y),
        z: t.mul_add(d.z, p.z),
    }
}

/// `u - v` in 2D.
#[inline(always)]
pub(crate) fn sub2x8(u: V2, v: V2) -> V2 {
    V2 {
        x: u.x - v.x,
        y: u.y - v.y,
    }
}

/// `u·v` in 2D, as the 2D reference's `dot2`.
#[inline(always)]
pub(crate) fn dot2x8(u: V2, v: V2) -> f32x8 {
    u.x.fma(v.x, u.y * v.y)
}

/// The 2D cross product (perp-dot) `u.x·v.y - u.y·v.x`, as the 2D reference's `cross2`.
#[inline(always)]
pub(crate) fn cross2x8(u: V2, v: V2) -> f32x8 {
    u.x.fms(v.y, u.y * v.x)
}

/// `max(lo, min(hi, x))` with `maxps`/`minps`, as `reference::clamp`.
#[inline(always)]
pub(crate) fn clamp8<L: Lane>(x: L, lo: L, hi: L) -> L {
    lo.fast_max(hi.fast_min(x))
}

/// Σ x·0 over `xs`, fused as `reference::probe`: the lanes where some `x` is NaN or
/// infinite.
#[inline(always)]
pub(crate) fn probe8(xs: &[f32x8]) -> f32x8 {
    let zero = f32x8::ZERO;
    xs.iter()
        .fold(zero, |acc, &x| x.fma(zero, acc))
        .simd_ne(zero)
}

/// [`probe8`] over any [`Lane`] type (the same fused operations): the lanes where some `x`
/// is NaN or infinite. The CPA kernel, written once for `f32x8` and the `f64` lanes, uses
/// this one.
#[inline(always)]
pub(crate) fn probe_lanes<L: Lane>(xs: &[L]) -> L {
    xs.iter()
        .fold(L::ZERO, |acc, &x| x.mul_add(L::ZERO, acc))
        .simd_ne(L::ZERO)
}

/// `bits` in the lanes of `mask`, zero elsewhere (flag bits, kind codes).
#[inline(always)]
pub(crate) fn bits8(mask: f32x8, bits: u8) -> u32x8 {
    mask.to_bits() & u32x8::splat(u32::from(bits))
}

/// Eight lanes of small values (flag bits, kind codes below 256) as eight bytes, converted
/// by `from_byte` (for example `Flags::from_bits_truncate`).
///
/// One byte shuffle (`pshufb`) gathers each lane's low byte into the first eight bytes of
/// its 128-bit half; the two halves' 64-bit words are or'ed. Taking the lanes one by one
/// cost some thirty instructions a group (callgrind, `query_profile nav`).
#[inline(always)]
pub(crate) fn bytes8<T>(bits: u32x8, from_byte: impl Fn(u8) -> T) -> [T; LANES] {
    const Z: u8 = 0x80; // a zero byte
    // Half 0: its lanes' low bytes to bytes 0-3; half 1: its lanes' to bytes 4-7.
    const GATHER: [u8; 32] = [
        0, 4, 8, 12, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, Z, //
        Z, Z, Z, Z, 0, 4, 8, 12, Z, Z, Z, Z, Z, Z, Z, Z,
    ];
    let bytes: u8x32 = bytemuck::cast(bits);
    let words: u64x4 = bytemuck::cast(bytes.swizzle_half_relaxed(u8x32::new(GATHER)));
    let [low, _, high, _] = words.to_array();
    (low | high).to_le_bytes().map(from_byte)
}

/// One byte per lane as the bytes of a `u64` (lane `k` in byte `k`, little-endian): 1 where
/// `mask` is set, 0 elsewhere. `movmskps` and one multiplication.
#[inline(always)]
pub(crate) fn mask_bytes(mask: f32x8) -> u64 {
    let bits = u64::from(mask.to_bitmask());
    // Multiplying by Σ 2^(7k) puts bit k at bit 8k; without bit 7 no two copies overlap.
    (((bits & 0x7f) * 0x0002_0408_1020_4081) & 0x0101_0101_0101_0101) | ((bits >> 7 & 1) << 56)
}

/// The byte `value` in the lanes of `mask` and 0 elsewhere, as eight values of a one-byte
/// [`Pod`] type (a flag set).
#[inline(always)]
pub(crate) fn mask_to<T: Pod>(mask: f32x8, value: u8) -> [T; LANES] {
    bytemuck::cast(mask_bytes(mask) * u64::from(value))
}

/// The mask as eight `bool`s.
#[inline(always)]
pub(crate) fn mask_bools(mask: f32x8) -> [bool; LANES] {
    mask_bytes(mask).to_le_bytes().map(|b| b != 0)
}

/// The lane type of the `f64` queries, chosen by the build: `wide::f64x8` (one AVX-512
/// register) when the build has `avx512f`, else `wide::f64x4` (one AVX2 register, or two
/// SSE2 halves; an `f64x8` there is two `f64x4` with twice the register pressure).
#[cfg(all(target_feature = "avx512f", not(feature = "same-bits")))]
pub(crate) type F64Lanes = wide::f64x8;
/// The lane type of the `f64` queries, chosen by the build: `wide::f64x8` (one AVX-512
/// register) when the build has `avx512f`, else `wide::f64x4` (one AVX2 register, or two
/// SSE2 halves; an `f64x8` there is two `f64x4` with twice the register pressure). Always
/// `f64x4` with the `same-bits` feature.
#[cfg(not(all(target_feature = "avx512f", not(feature = "same-bits"))))]
pub(crate) type F64Lanes = wide::f64x4;
