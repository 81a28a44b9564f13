//! Vector helpers over eight lanes (`wide::f32x8`), written once for every kernel.
//!
//! Each helper is the twin of a scalar one in [`crate::reference`] with the same operation
//! order (which products are fused, which are rounded), so a kernel built from them agrees
//! with its reference bit for bit. The naming rule: the scalar helper is `dot`, its 8-lane
//! twin `dot8` (2D: `dot2`, `dot2x8`), so a file that holds a reference and its kernel side
//! by side can use both.
//!
//! Masks are `f32x8` values with all bits set in selected lanes (what `simd_lt` and friends
//! return). Turning them into stored bytes goes through `movmskps` ([`mask_bytes`]), one
//! instruction and one multiplication where converting lane by lane costs some fifty.

use crate::batch::LANES;
use bytemuck::Pod;
use wide::{f32x8, u32x8};

/// Three coordinates, eight lanes each: the kernels' `[f32; 3]`.
#[derive(Clone, Copy)]
pub(crate) struct V3 {
    pub x: f32x8,
    pub y: f32x8,
    pub z: f32x8,
}

impl V3 {
    /// The same point in every lane.
    #[inline(always)]
    pub(crate) fn splat(p: [f32; 3]) -> V3 {
        V3 {
            x: f32x8::splat(p[0]),
            y: f32x8::splat(p[1]),
            z: f32x8::splat(p[2]),
        }
    }

    /// `[x, y, z]` from three consecutive lane vectors starting at `k`.
    #[inline(always)]
    pub(crate) fn at_column<const C: usize>(c: &[f32x8; C], k: usize) -> V3 {
        V3 {
            x: c[k],
            y: c[k + 1],
            z: c[k + 2],
        }
    }

    /// `f` applied to each coordinate.
    #[inline(always)]
    pub(crate) fn map(self, f: impl Fn(f32x8) -> f32x8) -> V3 {
        V3 {
            x: f(self.x),
            y: f(self.y),
            z: f(self.z),
        }
    }

    /// The coordinates as an array, for stores.
    #[inline(always)]
    pub(crate) fn to_array(self) -> [f32x8; 3] {
        [self.x, self.y, self.z]
    }
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
pub(crate) fn sub8(u: V3, v: V3) -> V3 {
    V3 {
        x: u.x - v.x,
        y: u.y - v.y,
        z: u.z - v.z,
    }
}

/// `u·v` as `fma(u.x, v.x, fma(u.y, v.y, u.z·v.z))`, as `reference::dot`.
#[inline(always)]
pub(crate) fn dot8(u: V3, v: V3) -> f32x8 {
    u.x.mul_add(v.x, u.y.mul_add(v.y, u.z * v.z))
}

/// `u × v`, each component one product minus one fused product, as `reference::cross`.
#[inline(always)]
pub(crate) fn cross8(u: V3, v: V3) -> V3 {
    V3 {
        x: u.y.mul_sub(v.z, u.z * v.y),
        y: u.z.mul_sub(v.x, u.x * v.z),
        z: u.x.mul_sub(v.y, u.y * v.x),
    }
}

/// `t·d + p` per coordinate (one fused multiply-add each).
#[inline(always)]
pub(crate) fn at8(t: f32x8, d: V3, p: V3) -> V3 {
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
    u.x.mul_add(v.x, u.y * v.y)
}

/// The 2D cross product (perp-dot) `u.x·v.y - u.y·v.x`, as the 2D reference's `cross2`.
#[inline(always)]
pub(crate) fn cross2x8(u: V2, v: V2) -> f32x8 {
    u.x.mul_sub(v.y, u.y * v.x)
}

/// `max(lo, min(hi, x))` with `maxps`/`minps`, as `reference::clamp`.
#[inline(always)]
pub(crate) fn clamp8(x: f32x8, lo: f32x8, hi: f32x8) -> f32x8 {
    lo.fast_max(hi.fast_min(x))
}

/// Σ x·0 over `xs`, fused as `reference::probe`: the lanes where some `x` is NaN or
/// infinite.
#[inline(always)]
pub(crate) fn probe8(xs: &[f32x8]) -> f32x8 {
    let zero = f32x8::ZERO;
    xs.iter()
        .fold(zero, |acc, &x| x.mul_add(zero, acc))
        .simd_ne(zero)
}

/// `bits` in the lanes of `mask`, zero elsewhere (flag bits, kind codes).
#[inline(always)]
pub(crate) fn bits8(mask: f32x8, bits: u8) -> u32x8 {
    mask.to_bits() & u32x8::splat(u32::from(bits))
}

/// Eight lanes of small values (flag bits, kind codes below 256) as eight bytes, converted
/// by `from_byte` (for example `Flags::from_bits_truncate`).
#[inline(always)]
pub(crate) fn bytes8<T>(bits: u32x8, from_byte: impl Fn(u8) -> T) -> [T; LANES] {
    bits.to_array().map(|b| from_byte(b as u8))
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
