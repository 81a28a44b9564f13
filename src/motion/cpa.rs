//! Closest point of approach (CPA) of two moving points: the scalar reference and its
//! lane twin, side by side, each written once for both precisions.
//!
//! The reference (`cpa_pair`) is generic over the scalar type ([`MotionReal`]: `f32`,
//! `f64`) and the kernel over the lane type ([`MotionLane`]: `f32x8` for
//! [`cpa`](fn@super::cpa) on `f32` batches (of tracks or of start/end segments),
//! `f64x4` or `f64x8` (the build's [`F64Lanes`]) on `f64` batches), as the closest-points
//! reference and kernel are: one body, so the
//! `f64` queries cannot drift from the `f32` ones, and the `f32` instantiation compiles to
//! the code it replaced (docs/performance.md, "Motion queries"). The two traits hold only
//! what differs: the same-velocity tolerance (two ulps of the precision) and how a lane
//! mask becomes stored flag bytes (`movmskps` for `f32x8`, lane by lane for `f64`).
//!
//! # Method (Sunday's `cpa_time` / `cpa_distance`, with a clamped window)
//!
//! Two tracks `P(t) = P0 + t·u` and `Q(t) = Q0 + t·v` are `w(t) = w0 + t·dv` apart, with
//! the relative motion formed locally: `w0 = P0 - Q0`, `dv = u - v`. For start/end segments
//! (`P0 = A0`, `P(1) = A1`) it is `w0 = A0 - B0`, `w1 = A1 - B1`, `dv = w1 - w0`, which
//! keeps all of the separation's digits when both objects are far from the origin.
//!
//! `|w(t)|²` is a convex quadratic; its minimum over the window `[0, T]` is at
//! `t = clamp(-(w0·dv) / (dv·dv), 0, T)`. The distance is then formed from `w0 + t·dv`
//! (one fused multiply-add per coordinate), so an error in `t` near the unclamped minimum
//! costs only second order in the distance.
//!
//! **Same velocity.** When `|dv|` is at most `2·ε` times the scale its rounding comes from
//! (`max(|u|, |v|)` for tracks, `max(|w0|, |w1|)` for segments), the distance is constant up
//! to rounding and there is no unique time: the reference reports `t = 0` (the start of the
//! window, the earliest time the distance is reached) and sets
//! [`MotionFlags::SAME_VELOCITY`]. The division is guarded by that mask in the kernel.
//!
//! **Range.** Nothing is rescaled (unlike closest points): the squares `|w0|²`, `|w1|²`
//! (or `|u|²`, `|v|²`), `dv·dv`, `w0·dv` and the squared distance must stay finite. The
//! probe that detects non-finite input takes all of them, so a pair whose squares overflow
//! (separations beyond about 1.8e19 in `f32`, 1.3e154 in `f64`) is reported
//! [`MotionFlags::NON_FINITE`], never answered wrongly: an overflowing `|w1|²` alone used to
//! make the same-velocity test pass (`a <= c·∞`) and report `t = 0`. At the other end,
//! squares below the normal range lose digits: in `f64` the `8·ε·S` bar holds for `S` down to
//! about 1e-146 (docs/motion.md).
//!
//! | reference                                   | kernel                                          |
//! |---------------------------------------------|-------------------------------------------------|
//! | `if same_velocity { 0 } else { clamp(…) }`  | `same_velocity.select(0, clamp(-b / a_safe, …))`|
//! | `if non_finite { return NON_FINITE }`       | outputs replaced by NaN in `non_finite` lanes   |

use super::types::{MotionFlags, MotionLane, MotionReal, points};
use crate::columns::{GroupStore, SplitColumns, result_batch};
use crate::driver::{self, PairKernel};
use crate::lanes::{F64Lanes, Lane, V3, at8, clamp8, dot_lanes, probe_lanes, sub8};
use crate::real::Real;
use crate::real::{clamp, dot, fma, max_ps, probe, sub3};
use wide::f32x8;

/// The closest point of approach of one pair, in the precision of the pair (`f32` unless
/// said otherwise, or `f64`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cpa<E = f32> {
    /// The time of closest approach, inside the window.
    pub t: E,
    /// Squared distance between the two objects at time `t`.
    pub dist2: E,
    /// Position of A at time `t`.
    pub point_a: [E; 3],
    /// Position of B at time `t`.
    pub point_b: [E; 3],
    /// [`MotionFlags::SAME_VELOCITY`] and/or [`MotionFlags::NON_FINITE`].
    pub flags: MotionFlags,
}

impl<E: Real> Cpa<E> {
    /// The result for a pair with a non-finite input: all NaN, flagged.
    pub const NON_FINITE: Cpa<E> = Cpa {
        t: E::NAN,
        dist2: E::NAN,
        point_a: [E::NAN; 3],
        point_b: [E::NAN; 3],
        flags: MotionFlags::NON_FINITE,
    };

    /// The distance at the closest approach.
    #[must_use]
    pub fn distance(&self) -> E {
        self.dist2.sqrt()
    }
}

// ---------------------------------------------------------------------------------------
// Scalar reference.

/// The algorithm for one pair, in `f32` or `f64`. With `ENDPOINTS`, `a1`/`b1` are the end
/// positions of a step (segments); otherwise they are velocities (tracks).
pub(crate) fn cpa_pair<F: MotionReal, const ENDPOINTS: bool>(
    a0: [F; 3],
    a1: [F; 3],
    b0: [F; 3],
    b1: [F; 3],
    t_end: F,
) -> Cpa<F> {
    // Relative motion, formed locally.
    let w0 = sub3(a0, b0);
    let (dv, scale2, d_a, d_b) = if ENDPOINTS {
        let w1 = sub3(a1, b1);
        let dv = sub3(w1, w0);
        (
            dv,
            max_ps(dot(w0, w0), dot(w1, w1)),
            sub3(a1, a0),
            sub3(b1, b0),
        )
    } else {
        (sub3(a1, b1), max_ps(dot(a1, a1), dot(b1, b1)), a1, b1)
    };

    let a = dot(dv, dv);
    let b = dot(w0, dv);
    let same_velocity = a <= (F::SAME_VELOCITY_REL * F::SAME_VELOCITY_REL) * scale2;
    let t = if same_velocity {
        F::ZERO
    } else {
        clamp(-b / a, F::ZERO, t_end)
    };
    let v: [F; 3] = core::array::from_fn(|i| fma(t, dv[i], w0[i]));
    let dist2 = dot(v, v);

    let non_finite = probe(&[
        w0[0], w0[1], w0[2], dv[0], dv[1], dv[2], a, b, dist2, scale2,
    ]);
    if non_finite {
        return Cpa::NON_FINITE;
    }
    Cpa {
        t,
        dist2,
        point_a: core::array::from_fn(|i| fma(t, d_a[i], a0[i])),
        point_b: core::array::from_fn(|i| fma(t, d_b[i], b0[i])),
        flags: if same_velocity {
            MotionFlags::SAME_VELOCITY
        } else {
            MotionFlags::empty()
        },
    }
}

// ---------------------------------------------------------------------------------------
// The lane twin (any lane type: `f32x8`, and `f64x4`/`f64x8` for the `f64` queries).

/// One group's results, flags as stored.
pub(crate) struct CpaLanes<L: MotionLane> {
    t: L,
    dist2: L,
    point_a: V3<L>,
    point_b: V3<L>,
    flags: L::Flags,
}

/// The relative motion of a group of pairs: `w0`, `dv` and the scale of `dv`'s rounding.
#[inline(always)]
fn relative_lanes<L: Lane, const ENDPOINTS: bool>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
) -> (V3<L>, V3<L>, L) {
    let w0 = sub8(a0, b0);
    if ENDPOINTS {
        let w1 = sub8(a1, b1);
        (
            w0,
            sub8(w1, w0),
            dot_lanes(w0, w0).fast_max(dot_lanes(w1, w1)),
        )
    } else {
        (
            w0,
            sub8(a1, b1),
            dot_lanes(a1, a1).fast_max(dot_lanes(b1, b1)),
        )
    }
}

/// `SAME_VELOCITY_REL²` in every lane.
#[inline(always)]
fn same_velocity_rel2<L: MotionLane>() -> L {
    let rel = <L::Elem as MotionReal>::SAME_VELOCITY_REL;
    L::splat(rel * rel)
}

/// The common case, time and distance only: `None` unless every lane is finite and no lane
/// has the same velocity, in which case every `select` of [`cpa_lanes`] would return its last
/// operand and is skipped (bit for bit the same results). Callers handle `None` out of
/// line, and compute the points with [`points_lanes`] from reloaded inputs.
#[inline(always)]
fn cpa_lanes_general<L: MotionLane, const ENDPOINTS: bool>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    t_end: L,
) -> Option<(L, L)> {
    let zero = L::ZERO;
    let (w0, dv, scale2) = relative_lanes::<L, ENDPOINTS>(a0, a1, b0, b1);
    let a = dot_lanes(dv, dv);
    let b = dot_lanes(w0, dv);
    let same_velocity = a.simd_le(same_velocity_rel2::<L>() * scale2);
    let t = clamp8(-b / a, zero, t_end);
    let v = at8(t, dv, w0);
    let dist2 = dot_lanes(v, v);
    let non_finite = probe_lanes(&[w0.x, w0.y, w0.z, dv.x, dv.y, dv.z, a, b, dist2, scale2]);
    if (same_velocity | non_finite).any() {
        return None;
    }
    Some((t, dist2))
}

/// The positions at time `t`: `A0 + t·dA`, `B0 + t·dB`.
#[inline(always)]
fn points_lanes<L: Lane, const ENDPOINTS: bool>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    t: L,
) -> (V3<L>, V3<L>) {
    let (d_a, d_b) = if ENDPOINTS {
        (sub8(a1, a0), sub8(b1, b0))
    } else {
        (a1, b1)
    };
    (at8(t, d_a, a0), at8(t, d_b, b0))
}

/// The twin of `cpa_pair` for a group of pairs, every branch a mask and a `select`.
#[inline(always)]
fn cpa_lanes<L: MotionLane, const ENDPOINTS: bool>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    t_end: L,
) -> CpaLanes<L> {
    let zero = L::ZERO;
    let one = L::ONE;
    let (w0, dv, scale2) = relative_lanes::<L, ENDPOINTS>(a0, a1, b0, b1);

    let a = dot_lanes(dv, dv);
    let b = dot_lanes(w0, dv);
    let same_velocity = a.simd_le(same_velocity_rel2::<L>() * scale2);
    let a_safe = same_velocity.select(one, a);
    let t = same_velocity.select(zero, clamp8(-b / a_safe, zero, t_end));
    let v = at8(t, dv, w0);
    let dist2 = dot_lanes(v, v);

    let non_finite = probe_lanes(&[w0.x, w0.y, w0.z, dv.x, dv.y, dv.z, a, b, dist2, scale2]);
    let (point_a, point_b) = points_lanes::<L, ENDPOINTS>(a0, a1, b0, b1, t);
    let mut lanes = CpaLanes {
        t,
        dist2,
        point_a,
        point_b,
        flags: L::mask_flags(same_velocity, MotionFlags::SAME_VELOCITY),
    };
    if non_finite.any() {
        let nan = L::splat(<L::Elem as Real>::NAN);
        let blank = |x: L| non_finite.select(nan, x);
        let flags = non_finite.select_bits(
            L::splat_bits(u32::from(MotionFlags::NON_FINITE.bits())),
            same_velocity.to_bits() & L::splat_bits(u32::from(MotionFlags::SAME_VELOCITY.bits())),
        );
        lanes = CpaLanes {
            t: blank(lanes.t),
            dist2: blank(lanes.dist2),
            point_a: lanes.point_a.map(blank),
            point_b: lanes.point_b.map(blank),
            flags: L::bits_flags(flags),
        };
    }
    lanes
}

// ---------------------------------------------------------------------------------------
// Batches.

result_batch! {
    /// Closest points of approach for a batch of pairs, stored as columns, in the
    /// precision of the pairs (`f32` unless said otherwise, or `f64`).
    ///
    /// Reuse one across calls to the `*_into` functions: buffers grow and are never shrunk.
    pub struct CpaBatch<E>(Cpa) stored as CpaOut {
        columns {
            /// Times of closest approach, exactly `len()` values.
            t: E,
            /// Squared distances at the closest approach, exactly `len()` values.
            dist2: E,
            /// Per-pair flags, exactly `len()` values.
            flags: MotionFlags,
        }
        points {
            /// Positions of A at the closest approach, `[x, y, z]` columns of `len()` values.
            point_a: 3,
            /// Positions of B at the closest approach, `[x, y, z]` columns of `len()` values.
            point_b: 3,
        }
    }
}

/// The [`GroupStore`] of a batch of `$elem` (every column) for the results of lane type
/// `$lane`.
macro_rules! cpa_store {
    ($elem:ty, $lane:ty) => {
        impl GroupStore for CpaOut<'_, $elem, { <$lane as Lane>::WIDTH }> {
            type Lanes = CpaLanes<$lane>;
            #[inline(always)]
            fn store(&mut self, g: usize, lanes: &CpaLanes<$lane>) {
                self.t[g] = lanes.t.to_array();
                self.dist2[g] = lanes.dist2.to_array();
                let (pa, pb) = (lanes.point_a.to_array(), lanes.point_b.to_array());
                for k in 0..3 {
                    self.point_a[k][g] = pa[k].to_array();
                    self.point_b[k][g] = pb[k].to_array();
                }
                self.flags[g] = lanes.flags;
            }
            #[inline(always)]
            fn split_at(self, mid: usize) -> (Self, Self) {
                self.split_columns(mid)
            }
        }
    };
}

cpa_store!(f32, f32x8);
cpa_store!(f64, F64Lanes);

/// CPA over twelve input columns: tracks (`ENDPOINTS = false`: positions then velocities)
/// or start/end segments, time clamped to `[0, t_end]`, any lane type.
struct CpaKernel<L, const ENDPOINTS: bool> {
    t_end: L,
}

impl<L: MotionLane, const ENDPOINTS: bool> PairKernel<12, L> for CpaKernel<L, ENDPOINTS> {
    type Lanes = CpaLanes<L>;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [L; 12]) -> Option<CpaLanes<L>> {
        let (a0, a1, b0, b1) = points(&load());
        let (t, dist2) = cpa_lanes_general::<L, ENDPOINTS>(a0, a1, b0, b1, self.t_end)?;
        // The inputs again, from memory: keeping all twelve live through the time
        // computation would spill them (sixteen vector registers). The opaque call stops
        // the compiler from merging this load with the first one (which it would then keep
        // on the stack): 110 instructions per group instead of 131 (callgrind).
        core::hint::black_box(());
        let (a0, a1, b0, b1) = points(&load());
        let (point_a, point_b) = points_lanes::<L, ENDPOINTS>(a0, a1, b0, b1, t);
        Some(CpaLanes {
            t,
            dist2,
            point_a,
            point_b,
            flags: L::NO_FLAGS,
        })
    }
    #[inline(always)]
    fn masked(&self, x: [L; 12]) -> CpaLanes<L> {
        let (a0, a1, b0, b1) = points(&x);
        cpa_lanes::<L, ENDPOINTS>(a0, a1, b0, b1, self.t_end)
    }
}

/// Runs the kernel of lane type `L` over the `n` pairs of `a`, `b` (checked by the
/// caller) into `out` (sized by the caller), sequentially or on all cores.
pub(super) fn run<L: MotionLane, const ENDPOINTS: bool, S: GroupStore<Lanes = CpaLanes<L>>>(
    a: [&[L::Elem]; 6],
    b: [&[L::Elem]; 6],
    n: usize,
    t_end: L::Elem,
    parallel: bool,
    out: S,
) {
    let pair: [&[L::Elem]; 12] = core::array::from_fn(|k| if k < 6 { a[k] } else { b[k - 6] });
    let kernel = CpaKernel::<L, ENDPOINTS> {
        t_end: L::splat(t_end),
    };
    driver::run_on(parallel, &kernel, pair, n, out);
}

/// Both `f64` lane types against the `f64` reference, bit for bit, in every lane, through
/// both paths of the kernel (`general` where it answers, `masked` always): the public
/// queries run only the build's width ([`F64Lanes`]), so the other one is checked here.
/// `tests/suite/motion64.rs` checks the public queries on the test kit's classes.
#[cfg(test)]
mod f64_widths {
    use super::{Cpa, CpaKernel, CpaLanes, MotionLane, cpa_pair};
    use crate::driver::PairKernel;
    use crate::motion::types::MotionFlags;
    use crate::test_mix::Mix;
    use wide::{f64x4, f64x8};

    /// `a0 a1 b0 b1` of one moving pair: general, the same motion (`a1 - a0 = b1 - b0`
    /// on a grid, exact), a relative motion 1e-17..1e-9 of the separation, static, or
    /// non-finite; at scales 1e-100..1e100, offsets to 1e12.
    fn pair(g: &mut Mix) -> [[f64; 3]; 4] {
        let scale = g.pick(&[1e-100, 1e-6, 1.0, 1e3, 1e100]);
        let offset = g.pick(&[0.0, 1.0, 6.4e6, 1e12]);
        let at = |p: [f64; 3]| p.map(|x| x * scale + offset);
        let (a0, b0) = (g.point(), g.point());
        let add = |p: [f64; 3], d: [f64; 3]| [p[0] + d[0], p[1] + d[1], p[2] + d[2]];
        let (a1, b1) = match g.next() % 6 {
            0 | 1 => (g.point(), g.point()),
            2 => {
                let grid = |p: [f64; 3]| p.map(|x| (x * 1024.0).round() / 1024.0);
                let (a0, b0, d) = (grid(a0), grid(b0), grid(g.point()));
                return [a0, add(a0, d), b0, add(b0, d)].map(at);
            }
            3 => {
                let d = g.point();
                let tiny = g.pick(&[1e-17, 1e-15, 1e-12, 1e-9]);
                (add(a0, d), add(b0, add(d, g.point().map(|x| x * tiny))))
            }
            4 => (a0, b0),
            _ => {
                let mut p = g.point();
                p[(g.next() % 3) as usize] = g.pick(&[f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
                (p, g.point())
            }
        };
        [a0, a1, b0, b1].map(at)
    }

    fn same(x: f64, y: f64) -> bool {
        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
    }

    fn agrees<L: MotionLane<Elem = f64, Flags = [MotionFlags; N]>, const N: usize>(
        got: &CpaLanes<L>,
        want: &[Cpa<f64>; N],
        from: fn(L) -> [f64; N],
    ) -> bool {
        let (t, d2) = (from(got.t), from(got.dist2));
        let pa = got.point_a.to_array().map(from);
        let pb = got.point_b.to_array().map(from);
        want.iter().enumerate().all(|(k, w)| {
            same(t[k], w.t)
                && same(d2[k], w.dist2)
                && got.flags[k] == w.flags
                && (0..3).all(|i| same(pa[i][k], w.point_a[i]) && same(pb[i][k], w.point_b[i]))
        })
    }

    fn check<L, const N: usize, const ENDPOINTS: bool>(
        to: fn([f64; N]) -> L,
        from: fn(L) -> [f64; N],
    ) where
        L: MotionLane<Elem = f64, Flags = [MotionFlags; N]>,
    {
        let mut g = Mix(0x00c9_0a64);
        let mut general = 0;
        for round in 0..4000 {
            let t_end = g.pick(&[0.0, 0.5, 1.0, 1e3, f64::INFINITY]);
            // Most groups all general, so the common path answers too.
            let special = g.next().is_multiple_of(2);
            let pairs: [[[f64; 3]; 4]; N] = core::array::from_fn(|_| {
                if special {
                    pair(&mut g)
                } else {
                    [g.point(), g.point(), g.point(), g.point()]
                }
            });
            let cols: [L; 12] = core::array::from_fn(|c| to(pairs.map(|p| p[c / 3][c % 3])));
            let want =
                pairs.map(|[a0, a1, b0, b1]| cpa_pair::<f64, ENDPOINTS>(a0, a1, b0, b1, t_end));
            let kernel = CpaKernel::<L, ENDPOINTS> {
                t_end: L::splat(t_end),
            };
            assert!(
                agrees(&kernel.masked(cols), &want, from),
                "masked, round {round}: {pairs:?} over [0, {t_end}]"
            );
            if let Some(got) = kernel.general(|| cols) {
                general += 1;
                assert!(
                    agrees(&got, &want, from),
                    "general, round {round}: {pairs:?} over [0, {t_end}]"
                );
            }
        }
        assert!(general > 1000, "the common path answered {general} groups");
    }

    #[test]
    fn f64x4_is_the_f64_reference() {
        check::<f64x4, 4, true>(f64x4::new, f64x4::to_array);
        check::<f64x4, 4, false>(f64x4::new, f64x4::to_array);
    }

    #[test]
    fn f64x8_is_the_f64_reference() {
        check::<f64x8, 8, true>(f64x8::new, f64x8::to_array);
        check::<f64x8, 8, false>(f64x8::new, f64x8::to_array);
    }
}
