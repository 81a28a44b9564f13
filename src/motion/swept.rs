//! Time of first contact of two capsules whose end points move linearly over a step
//! (continuous collision of thin, fast objects: bullets, swords, ropes against thin walls):
//! the scalar reference and its lane twin, side by side.
//!
//! # What is solved
//!
//! Capsule A is the core segment `A(t) = [A0(t), A1(t)]` with radius `rA`, each end point
//! moving linearly from its start to its end position over `t ∈ [0, 1]`
//! (`A0(t) = A0 + t·vA0`, `vA0 = A0' - A0`; a rotation or a stretch follows from the end
//! points); B likewise. With `R = rA + rB` and `d(t)` the distance of the two core segments
//! at time `t`, the answer is the first `t` with `d(t) <= R`, the contact at that time, or
//! none. `d(t)` is not convex when the end points move independently (a capsule that turns
//! can approach, recede and approach again), so the roots are not isolated by solving an
//! equation: the step is **advanced conservatively** (Mirtich's conservative advancement),
//! from `t = 0`, never past a time at which the capsules could touch.
//!
//! # Why each step is safe
//!
//! At a time `t`, the closest points `C` on A and `D` on B (the crate's accurate
//! closest-points routine at the interpolated end points) give `d`, the unit direction
//! `n = (C - D)/d` from B towards A, and two lower bounds on the time left before contact:
//!
//! - **Along `n`**: every point of A is a convex combination of its end points, so over A
//!   the smallest `n·x` is `min(n·A0(t), n·A1(t))`, and over B the largest `n·y` is
//!   `max(n·B0(t), n·B1(t))`. Their difference, the separation of the two cores along `n`,
//!   is `slab = d + min(n·(A0(t) - C), n·(A1(t) - C)) - max(n·(B0(t) - D), n·(B1(t) - D))`
//!   (at most `d`, equal to it for the exact `n`; it holds for whatever `n` the rounding
//!   gave, since it is measured). A point of A at parameter `u` moves with the constant
//!   velocity `(1-u)·vA0 + u·vA1`, so `n·(x - y)` of any point pair falls at most at the
//!   rate `μn = max over i, j of n·(vBj - vAi)` (linear in `u` and `w`, so largest at a
//!   corner). The distance is at least the separation along any unit direction, so the
//!   capsules cannot touch before `t + (slab - R)/μn`; and if `μn <= 0` with `slab > R`
//!   they never touch during the rest of the step (**receding**).
//! - **By speed**: `d` changes no faster than the largest relative speed of any point
//!   pair, `μl = max over i, j of |vAi - vBj|` (again a corner of a convex combination);
//!   the capsules cannot touch before `t + (d - R)/μl`.
//!
//! The step taken is the larger of the two (both are safe). For objects that translate,
//! the first is exact on the slab and converges in a few steps (one for a head-on hit);
//! the second carries the step where the measured direction is poor.
//!
//! # When to stop, and the tolerance
//!
//! The advancement stops with a **hit** at `t` when the capsules touch (`d² <= R²`, the
//! static test of [`capsules_touch`](crate::pairs::capsules_touch)) or, for a pair that
//! moves and is not receding, when the gap `d - R` is within the tolerance `tol = R/1024 + 32·ε·S` (`S` the largest
//! coordinate of the pair, `ε` the precision's epsilon): scale-free, a thousandth of the
//! radii for what a caller sees, and above the rounding of the closest points at the
//! interpolated end points (a few `ε·S`) so that a contact at zero radius converges too. It
//! stops with a **miss** when receding, when nothing moves relative to the other
//! (`μl = 0`: the static test decided at `t = 0`) or when the next time passes 1. The
//! reported `t` is therefore never after the first contact (up to rounding), and the gap
//! there is at most `tol`. A pair still undecided after [`SWEPT_STEPS`] evaluations is
//! reported as a hit at the last time evaluated, flagged [`MotionFlags::STEP_LIMIT`]: no
//! contact happens before it, so a caller that moves the objects to `t` never lets them
//! pass through each other.
//!
//! Pairs touching at `t = 0` report `t = 0` and [`MotionFlags::TOUCHING_AT_START`]; zero
//! relative motion (parallel motion included: both capsules translating alike) is the
//! static test; parallel cores are the closest-points routine's (Rhodes' midpoint).
//!
//! # Range and non-finite inputs
//!
//! Every input is scaled first by the power of two that brings the largest coordinate into
//! `[1, 2)` (exact), so no square or velocity overflows and the tolerance's `ε·S` is a
//! constant; times are unchanged and points are scaled back. A NaN or infinite coordinate
//! (or a NaN radius) gives no hit, `t` NaN and [`MotionFlags::NON_FINITE`] for that pair
//! only. An infinite radius touches at `t = 0` (its point on that capsule is not finite).
//!
//! # Kernel
//!
//! The lanes run the same steps with the same operations; a lane that has stopped keeps its
//! result (latched by `select`) while the others go on, and the group's loop ends when no
//! lane is active or after [`SWEPT_STEPS`] steps. Each step's closest points are the
//! kernel's [`closest_lanes`], the reference's twin bit for bit, so the
//! whole query is too.
//!
//! | reference                                   | kernel                                                |
//! |---------------------------------------------|-------------------------------------------------------|
//! | `if hit { latch; break }`                   | `latch = active & hit`; results `latch.select(new, kept)` |
//! | `if miss { break }`                         | `active &= !(hit \| miss)`                            |
//! | `t = t_next`                                | `t = active.select(t_next, t)`                        |
//! | `for step in 0..SWEPT_STEPS`                | `for step in 0..SWEPT_STEPS { if !active.any() { break } }` |

use super::types::{MotionFlags, MotionLane, MotionReal, hit_indices};
use crate::batch::Record;
use crate::columns::{Cell, GroupStore, SplitColumns, result_batch};
use crate::driver::{self, PairKernel};
use crate::kernel::{Splat, closest_lanes};
use crate::lanes::{F64Lanes, Lane, V3, at8, dot_lanes, probe_lanes, sub8};
use crate::pairs::Radii;
use crate::real::{Real, dot, fma, max_ps, min_ps, probe, sub3};
use crate::scalar::{Ends, closest_pair};
use crate::segment::{Segment, Segment64};
use bytemuck::{Pod, Zeroable};
use wide::f32x8;

/// Evaluations of the closest points a pair may take before it is reported at its last
/// safe time with [`MotionFlags::STEP_LIMIT`] (see the module docs of
/// [`first_contact_capsules`](super::first_contact_capsules)).
pub const SWEPT_STEPS: usize = 32;

/// The relative part of the stopping tolerance: the advancement stops once the gap between
/// the capsules is at most `SWEPT_TOLERANCE_REL·(rA + rB)` (plus `32·ε` of the pair's
/// largest coordinate).
pub const SWEPT_TOLERANCE_REL: f32 = 1.0 / 1024.0;

/// A capsule core (or any segment) over one step: where its two end points are at the start
/// (`t = 0`) and at the end (`t = 1`); in between each end point moves linearly.
///
/// `#[repr(C)]` and [`Pod`]: twelve `f32`, start then end, so flat data casts to
/// `&[Sweep]` with [`bytemuck::cast_slice`].
///
/// ```
/// use segbatch::motion::Sweep;
/// use segbatch::Segment;
/// // A rod turning a quarter turn about its first end point.
/// let s = Sweep::new(
///     Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
///     Segment::new([0.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
/// );
/// assert_eq!(s.at(0.5), Segment::new([0.0, 0.0, 0.0], [0.5, 0.5, 0.0]));
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Sweep {
    /// The segment at `t = 0`.
    pub start: Segment,
    /// The segment at `t = 1`.
    pub end: Segment,
}

impl Sweep {
    /// The sweep from `start` to `end`.
    #[inline]
    #[must_use]
    pub const fn new(start: Segment, end: Segment) -> Self {
        Sweep { start, end }
    }

    /// A segment that does not move during the step.
    #[inline]
    #[must_use]
    pub const fn fixed(segment: Segment) -> Self {
        Sweep {
            start: segment,
            end: segment,
        }
    }

    /// The segment at time `t`: each end point `p + t·(p' - p)`, fused as the query fuses.
    #[inline]
    #[must_use]
    pub fn at(&self, t: f32) -> Segment {
        let (s, e) = (self.start, self.end);
        Segment::new(
            crate::real::at(t, sub3(e.p0, s.p0), s.p0),
            crate::real::at(t, sub3(e.p1, s.p1), s.p1),
        )
    }
}

impl From<Sweep> for [[f32; 3]; 4] {
    /// `[start.p0, start.p1, end.p0, end.p1]`.
    fn from(s: Sweep) -> Self {
        [s.start.p0, s.start.p1, s.end.p0, s.end.p1]
    }
}

impl Record<12> for Sweep {
    const NAMES: [&'static str; 12] = [
        "x0", "y0", "z0", "x1", "y1", "z1", "ex0", "ey0", "ez0", "ex1", "ey1", "ez1",
    ];
}

/// A segment over one step in `f64`: [`Sweep`]'s twin (twelve `f64`, start then end).
///
/// ```
/// use segbatch::motion::Sweep64;
/// use segbatch::Segment64;
/// let o = 6.4e6;
/// let s = Sweep64::new(
///     Segment64::new([o, 0.0, 0.0], [o + 1.0, 0.0, 0.0]),
///     Segment64::new([o + 2.0, 0.0, 0.0], [o + 3.0, 0.0, 0.0]),
/// );
/// assert_eq!(s.at(0.5), Segment64::new([o + 1.0, 0.0, 0.0], [o + 2.0, 0.0, 0.0]));
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Sweep64 {
    /// The segment at `t = 0`.
    pub start: Segment64,
    /// The segment at `t = 1`.
    pub end: Segment64,
}

impl Sweep64 {
    /// The sweep from `start` to `end`.
    #[inline]
    #[must_use]
    pub const fn new(start: Segment64, end: Segment64) -> Self {
        Sweep64 { start, end }
    }

    /// A segment that does not move during the step.
    #[inline]
    #[must_use]
    pub const fn fixed(segment: Segment64) -> Self {
        Sweep64 {
            start: segment,
            end: segment,
        }
    }

    /// The segment at time `t`: each end point `p + t·(p' - p)`, fused as the query fuses.
    #[inline]
    #[must_use]
    pub fn at(&self, t: f64) -> Segment64 {
        let (s, e) = (self.start, self.end);
        Segment64::new(
            crate::real::at(t, sub3(e.p0, s.p0), s.p0),
            crate::real::at(t, sub3(e.p1, s.p1), s.p1),
        )
    }
}

impl From<Sweep> for Sweep64 {
    /// The same sweep in `f64` (exact).
    fn from(s: Sweep) -> Self {
        let wide = |x: Segment| Segment64::new(x.p0.map(f64::from), x.p1.map(f64::from));
        Sweep64::new(wide(s.start), wide(s.end))
    }
}

impl From<Sweep64> for [[f64; 3]; 4] {
    /// `[start.p0, start.p1, end.p0, end.p1]`.
    fn from(s: Sweep64) -> Self {
        [s.start.p0, s.start.p1, s.end.p0, s.end.p1]
    }
}

impl Record<12, f64> for Sweep64 {
    const NAMES: [&'static str; 12] = [
        "x0", "y0", "z0", "x1", "y1", "z1", "ex0", "ey0", "ez0", "ex1", "ey1", "ez1",
    ];
}

/// A batch of [`Sweep`]s as twelve `f32` columns (start `x0 y0 z0 x1 y1 z1`, then the end's)
/// padded to [`LANES`](crate::LANES), built like [`Segments`](crate::Segments).
///
/// ```
/// use segbatch::motion::{Sweep, Sweeps};
/// use segbatch::Segment;
/// let wall = Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]);
/// let mut sweeps = Sweeps::from(&[Sweep::fixed(wall)]);
/// sweeps.push(Sweep::new(wall, Segment::new([6.0, -1.0, 0.0], [6.0, 1.0, 0.0])));
/// assert_eq!(sweeps.len(), 2);
/// assert_eq!(sweeps.columns()[6], &[5.0, 6.0]);
/// ```
pub type Sweeps = crate::batch::Soa<Sweep, 12>;

/// A batch of [`Sweep64`]s: [`Sweeps`]' `f64` twin.
pub type Sweeps64 = crate::batch::Soa<Sweep64, 12, f64>;

/// The first contact of two swept capsules during a step, in the precision of the pair
/// (`f32` unless said otherwise, or `f64`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweptContact<E = f32> {
    /// True when the capsules touch during the step (or the advancement reached
    /// [`SWEPT_STEPS`]: see [`MotionFlags::STEP_LIMIT`]).
    pub hit: bool,
    /// The first time of contact in `[0, 1]` (never after it; the gap there is within the
    /// tolerance); `+∞` without contact; NaN for a non-finite input.
    pub t: E,
    /// Unit normal from B towards A at `t` (the zero vector where the cores meet); NaN
    /// without a hit.
    pub normal: [E; 3],
    /// The point of capsule A towards B at `t`: `C - rA·normal`; NaN without a hit.
    pub point_a: [E; 3],
    /// The point of capsule B towards A at `t`: `D + rB·normal`; NaN without a hit.
    pub point_b: [E; 3],
    /// [`MotionFlags::TOUCHING_AT_START`], [`MotionFlags::STEP_LIMIT`] or
    /// [`MotionFlags::NON_FINITE`].
    pub flags: MotionFlags,
}

// ---------------------------------------------------------------------------------------
// Scalar reference.

/// `[a0, a1, a0', a1']`: a sweep's four end positions.
pub(crate) type Ends4<F> = [[F; 3]; 4];

/// The algorithm for one pair (module docs), in `f32` or `f64`.
pub(crate) fn swept_pair<F: MotionReal>(a: Ends4<F>, b: Ends4<F>, ra: F, rb: F) -> SweptContact<F> {
    let zero = F::ZERO;
    let coordinates: [F; 24] = core::array::from_fn(|k| {
        let e = if k < 12 { a } else { b };
        e[k % 12 / 3][k % 3]
    });
    #[allow(clippy::eq_op)] // NaN is the one value unequal to itself
    let nan_radius = ra + rb != ra + rb;
    if probe(&coordinates) || nan_radius {
        return SweptContact {
            hit: false,
            t: F::NAN,
            normal: [F::NAN; 3],
            point_a: [F::NAN; 3],
            point_b: [F::NAN; 3],
            flags: MotionFlags::NON_FINITE,
        };
    }
    // Scaled so that the largest coordinate is in [1, 2) (exact).
    let largest = coordinates.iter().fold(zero, |m, &x| max_ps(m, x.abs()));
    let (sigma, inv_sigma) = largest.magnitude_scale();
    let scale = |e: Ends4<F>| e.map(|p| p.map(|x| x * sigma));
    let ([a0, a1, a0e, a1e], [b0, b1, b0e, b1e]) = (scale(a), scale(b));
    let (ra, rb) = (ra * sigma, rb * sigma);
    let r = ra + rb;
    let rr = r * r;
    let tol = fma(F::SWEPT_TOL_REL, r, F::SWEPT_TOL_ABS);

    let (va0, va1, vb0, vb1) = (sub3(a0e, a0), sub3(a1e, a1), sub3(b0e, b0), sub3(b1e, b1));
    let w = [
        sub3(va0, vb0),
        sub3(va0, vb1),
        sub3(va1, vb0),
        sub3(va1, vb1),
    ];
    let mu_l2 = max_ps(
        max_ps(dot(w[0], w[0]), dot(w[1], w[1])),
        max_ps(dot(w[2], w[2]), dot(w[3], w[3])),
    );
    let mu_l = mu_l2.sqrt();
    let moving = mu_l > zero;
    let params = F::segment_params();

    let mut t = zero;
    for step in 0..SWEPT_STEPS {
        let (pa0, pa1) = (crate::real::at(t, va0, a0), crate::real::at(t, va1, a1));
        let (pb0, pb1) = (crate::real::at(t, vb0, b0), crate::real::at(t, vb1, b1));
        let c = closest_pair(
            &Ends { p0: pa0, p1: pa1 },
            &Ends { p0: pb0, p1: pb1 },
            &params,
        );
        let sep = sub3(c.point_a, c.point_b);
        let d = c.dist2.sqrt();
        let touching = c.dist2 <= rr;
        let d_safe = if d > zero { d } else { F::ONE };
        let n = sep.map(|x| x / d_safe);
        let g_a = min_ps(dot(n, sub3(pa0, c.point_a)), dot(n, sub3(pa1, c.point_a)));
        let g_b = max_ps(dot(n, sub3(pb0, c.point_b)), dot(n, sub3(pb1, c.point_b)));
        let slab = d + g_a - g_b;
        let mu_n = max_ps(
            max_ps(-dot(w[0], n), -dot(w[1], n)),
            max_ps(-dot(w[2], n), -dot(w[3], n)),
        );
        let gap = d - r;
        let clear = slab > r;
        let receding = clear && mu_n <= zero;
        let closing = clear && mu_n > zero;
        let dt_n = if closing { (slab - r) / mu_n } else { zero };
        let dt_l = gap / if moving { mu_l } else { F::ONE };
        let t_next = t + max_ps(dt_n, dt_l);
        let hit = touching || (moving && !receding && gap <= tol);
        let miss = !hit && (receding || !moving || t_next > F::ONE);
        let last = step + 1 == SWEPT_STEPS;
        if hit || miss || last {
            if miss {
                break;
            }
            let mut flags = MotionFlags::empty();
            if touching && step == 0 {
                flags |= MotionFlags::TOUCHING_AT_START;
            }
            if !hit {
                flags |= MotionFlags::STEP_LIMIT;
            }
            return SweptContact {
                hit: true,
                t,
                normal: n,
                point_a: fnma3(ra, n, c.point_a).map(|x| x * inv_sigma),
                point_b: fma3(rb, n, c.point_b).map(|x| x * inv_sigma),
                flags,
            };
        }
        t = t_next;
    }
    SweptContact {
        hit: false,
        t: F::INFINITY,
        normal: [F::NAN; 3],
        point_a: [F::NAN; 3],
        point_b: [F::NAN; 3],
        flags: MotionFlags::empty(),
    }
}

/// `p - r·n` per coordinate (one fused operation each).
#[inline(always)]
fn fnma3<F: Real>(r: F, n: [F; 3], p: [F; 3]) -> [F; 3] {
    core::array::from_fn(|k| crate::real::fnma(r, n[k], p[k]))
}

/// `p + r·n` per coordinate (one fused operation each).
#[inline(always)]
fn fma3<F: Real>(r: F, n: [F; 3], p: [F; 3]) -> [F; 3] {
    core::array::from_fn(|k| fma(r, n[k], p[k]))
}

// ---------------------------------------------------------------------------------------
// The lane twin (`f32x8`, and `f64x4`/`f64x8` for the `f64` query).

/// One group's results as stored.
pub(crate) struct SweptLanes<L: MotionLane> {
    hit: L::Bools,
    t: L,
    normal: V3<L>,
    point_a: V3<L>,
    point_b: V3<L>,
    flags: L::Flags,
}

/// `p - r·n` per lane and coordinate, as the reference's `fnma`.
#[inline(always)]
fn fnma_lanes<L: Lane>(r: L, n: V3<L>, p: V3<L>) -> V3<L> {
    V3 {
        x: r.mul_neg_add(n.x, p.x),
        y: r.mul_neg_add(n.y, p.y),
        z: r.mul_neg_add(n.z, p.z),
    }
}

/// The twin of [`swept_pair`] for a group: `x` holds A's twelve columns then B's.
#[inline(always)]
fn swept_lanes<L: MotionLane>(x: &[L; 24], ra: L, rb: L, splat: &Splat<L>) -> SweptLanes<L> {
    let zero = L::ZERO;
    let one = L::ONE;
    let nan = L::splat(<L::Elem as Real>::NAN);
    let non_finite = probe_lanes(x) | (ra + rb).simd_ne(ra + rb);
    let largest = x.iter().fold(zero, |m, &c| m.fast_max(c.abs()));
    let (sigma, inv_sigma) = largest.magnitude_scale();
    let v = |k: usize| V3::at_column(x, k).map(|c| c * sigma);
    let (a0, a1, a0e, a1e) = (v(0), v(3), v(6), v(9));
    let (b0, b1, b0e, b1e) = (v(12), v(15), v(18), v(21));
    let (ra, rb) = (ra * sigma, rb * sigma);
    let r = ra + rb;
    let rr = r * r;
    let tol = L::splat(<L::Elem as MotionReal>::SWEPT_TOL_REL)
        .mul_add(r, L::splat(<L::Elem as MotionReal>::SWEPT_TOL_ABS));

    let (va0, va1, vb0, vb1) = (sub8(a0e, a0), sub8(a1e, a1), sub8(b0e, b0), sub8(b1e, b1));
    let w = [
        sub8(va0, vb0),
        sub8(va0, vb1),
        sub8(va1, vb0),
        sub8(va1, vb1),
    ];
    let mu_l2 = dot_lanes(w[0], w[0])
        .fast_max(dot_lanes(w[1], w[1]))
        .fast_max(dot_lanes(w[2], w[2]).fast_max(dot_lanes(w[3], w[3])));
    let mu_l = mu_l2.sqrt();
    let moving = mu_l.simd_gt(zero);

    let (all, none) = (zero.simd_eq(zero), zero.simd_ne(zero));
    let touching_bit = L::splat_bits(u32::from(MotionFlags::TOUCHING_AT_START.bits()));
    let limit_bit = L::splat_bits(u32::from(MotionFlags::STEP_LIMIT.bits()));
    let mut t = zero;
    let mut active = !non_finite;
    let (mut hit_out, mut t_out, mut flag_bits) = (none, zero, L::splat_bits(0));
    let (mut n_out, mut pa_out, mut pb_out) = (V3::splat([<L::Elem as Real>::NAN; 3]), a0, b0);
    for step in 0..SWEPT_STEPS {
        if !active.any() {
            break;
        }
        let (pa0, pa1) = (at8(t, va0, a0), at8(t, va1, a1));
        let (pb0, pb1) = (at8(t, vb0, b0), at8(t, vb1, b1));
        let c = closest_lanes(pa0, pa1, pb0, pb1, splat);
        let sep = sub8(c.point_a, c.point_b);
        let d = c.dist2.sqrt();
        let touching = c.dist2.simd_le(rr);
        let d_safe = d.simd_gt(zero).select(d, one);
        let n = sep.map(|s| s / d_safe);
        let g_a = dot_lanes(n, sub8(pa0, c.point_a)).fast_min(dot_lanes(n, sub8(pa1, c.point_a)));
        let g_b = dot_lanes(n, sub8(pb0, c.point_b)).fast_max(dot_lanes(n, sub8(pb1, c.point_b)));
        let slab = d + g_a - g_b;
        let mu_n = (-dot_lanes(w[0], n))
            .fast_max(-dot_lanes(w[1], n))
            .fast_max((-dot_lanes(w[2], n)).fast_max(-dot_lanes(w[3], n)));
        let gap = d - r;
        let clear = slab.simd_gt(r);
        let receding = clear & mu_n.simd_le(zero);
        let closing = clear & mu_n.simd_gt(zero);
        let dt_n = closing.select((slab - r) / closing.select(mu_n, one), zero);
        let dt_l = gap / moving.select(mu_l, one);
        let t_next = t + dt_n.fast_max(dt_l);
        let hit = touching | (moving & !receding & gap.simd_le(tol));
        let miss = !hit & (receding | !moving | t_next.simd_gt(one));
        let last = if step + 1 == SWEPT_STEPS { all } else { none };
        let latch = active & !miss & (hit | last);
        hit_out = latch.select(all, hit_out);
        t_out = latch.select(t, t_out);
        n_out = select3(latch, n, n_out);
        pa_out = select3(latch, fnma_lanes(ra, n, c.point_a), pa_out);
        pb_out = select3(latch, at8(rb, n, c.point_b), pb_out);
        let start = if step == 0 { touching } else { none };
        flag_bits = flag_bits
            | ((latch & start).to_bits() & touching_bit)
            | ((latch & !hit).to_bits() & limit_bit);
        active = active & !(hit | miss | last);
        t = active.select(t_next, t);
    }
    let inf = L::splat(<L::Elem as Real>::INFINITY);
    let nan3 = V3::splat([<L::Elem as Real>::NAN; 3]);
    let scaled_back = |p: V3<L>| p.map(|c| c * inv_sigma);
    SweptLanes {
        hit: L::mask_bools(hit_out),
        t: non_finite.select(nan, hit_out.select(t_out, inf)),
        normal: select3(hit_out, n_out, nan3),
        point_a: select3(hit_out, scaled_back(pa_out), nan3),
        point_b: select3(hit_out, scaled_back(pb_out), nan3),
        flags: L::bits_flags(non_finite.select_bits(
            L::splat_bits(u32::from(MotionFlags::NON_FINITE.bits())),
            flag_bits,
        )),
    }
}

/// `t` in the lanes of `mask`, `f` elsewhere, per coordinate.
#[inline(always)]
fn select3<L: Lane>(mask: L, t: V3<L>, f: V3<L>) -> V3<L> {
    V3 {
        x: mask.select(t.x, f.x),
        y: mask.select(t.y, f.y),
        z: mask.select(t.z, f.z),
    }
}

// ---------------------------------------------------------------------------------------
// Batches.

result_batch! {
    /// First contacts of swept capsules for a batch of pairs, stored as columns, in the
    /// precision of the pairs (`f32` unless said otherwise, or `f64`).
    ///
    /// Reuse one across calls to the `*_into` functions: buffers grow and are never shrunk.
    pub struct SweptBatch<E>(SweptContact) stored as SweptOut {
        columns {
            /// The mask of hits, exactly `len()` values.
            hit: bool,
            /// First contact times (`+∞` without contact), exactly `len()` values.
            t: E,
            /// Per-pair flags, exactly `len()` values.
            flags: MotionFlags,
        }
        points {
            /// Unit normals from B towards A at the contact, `[x, y, z]` columns.
            normal: 3,
            /// Points of A towards B at the contact, `[x, y, z]` columns.
            point_a: 3,
            /// Points of B towards A at the contact, `[x, y, z]` columns.
            point_b: 3,
        }
    }
}

impl<E: Cell> SweptBatch<E> {
    /// Indices of the pairs that make contact, in order.
    pub fn hits(&self) -> impl Iterator<Item = usize> + '_ {
        hit_indices(self.hit())
    }
}

/// The [`GroupStore`] of a batch of `$elem` (every column) for the results of lane type
/// `$lane`.
macro_rules! swept_store {
    ($elem:ty, $lane:ty) => {
        impl GroupStore for SweptOut<'_, $elem, { <$lane as Lane>::WIDTH }> {
            type Lanes = SweptLanes<$lane>;
            #[inline(always)]
            fn store(&mut self, g: usize, lanes: &SweptLanes<$lane>) {
                self.t[g] = lanes.t.to_array();
                self.hit[g] = lanes.hit;
                self.flags[g] = lanes.flags;
                for (col, v) in [
                    (&mut self.normal, lanes.normal),
                    (&mut self.point_a, lanes.point_a),
                    (&mut self.point_b, lanes.point_b),
                ] {
                    let [x, y, z] = v.to_array();
                    col[0][g] = x.to_array();
                    col[1][g] = y.to_array();
                    col[2][g] = z.to_array();
                }
            }
            #[inline(always)]
            fn split_at(self, mid: usize) -> (Self, Self) {
                self.split_columns(mid)
            }
        }
    };
}

swept_store!(f32, f32x8);
swept_store!(f64, F64Lanes);

/// Swept capsules, any lane type: twenty-four input columns (A's sweep, then B's) with
/// uniform radii, twenty-six with per-pair or per-object radii (A's sweep and radius, then
/// B's: the order of a gather from one set's thirteen columns).
pub(crate) struct SweptKernel<L: Lane> {
    pub(crate) ra: L,
    pub(crate) rb: L,
    pub(crate) splat: Splat<L>,
}

impl<L: MotionLane> PairKernel<24, L> for SweptKernel<L> {
    type Lanes = SweptLanes<L>;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [L; 24]) -> Option<SweptLanes<L>> {
        Some(swept_lanes(&load(), self.ra, self.rb, &self.splat))
    }
    #[inline(always)]
    fn masked(&self, x: [L; 24]) -> SweptLanes<L> {
        swept_lanes(&x, self.ra, self.rb, &self.splat)
    }
}

impl<L: MotionLane> PairKernel<26, L> for SweptKernel<L> {
    type Lanes = SweptLanes<L>;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [L; 26]) -> Option<SweptLanes<L>> {
        Some(self.masked(load()))
    }
    #[inline(always)]
    fn masked(&self, x: [L; 26]) -> SweptLanes<L> {
        // A's twelve columns and radius, then B's.
        let pair: [L; 24] = core::array::from_fn(|c| if c < 12 { x[c] } else { x[c + 1] });
        swept_lanes(&pair, x[12], x[25], &self.splat)
    }
}

/// Runs the kernel of lane type `L` over the `n` pairs of `a`, `b` (checked by the
/// caller) into `out` (sized by the caller), sequentially or on all cores.
pub(super) fn run<L, S>(
    a: [&[L::Elem]; 12],
    b: [&[L::Elem]; 12],
    n: usize,
    radii: Radii<'_, L::Elem>,
    parallel: bool,
    out: S,
) where
    L: MotionLane,
    S: GroupStore<Lanes = SweptLanes<L>>,
{
    let pair: [&[L::Elem]; 24] = core::array::from_fn(|k| if k < 12 { a[k] } else { b[k - 12] });
    let splat = Splat::new(&<L::Elem as MotionReal>::segment_params());
    if let Some((ra, rb)) = radii.as_per_pair() {
        let cols: [&[L::Elem]; 26] = core::array::from_fn(|k| match k {
            0..12 => a[k],
            12 => ra,
            13..25 => b[k - 13],
            _ => rb,
        });
        let kernel = SweptKernel::<L> {
            ra: L::ZERO,
            rb: L::ZERO,
            splat,
        };
        driver::run_on(parallel, &kernel, cols, n, out);
    } else {
        let (ra, rb) = radii.as_uniform().unwrap_or((L::Elem::ZERO, L::Elem::ZERO));
        let kernel = SweptKernel::<L> {
            ra: L::splat(ra),
            rb: L::splat(rb),
            splat,
        };
        driver::run_on(parallel, &kernel, pair, n, out);
    }
}

/// The swept contacts of the index pairs `pairs` (indices checked by the caller) of sets
/// given as columns, each object its sweep's twelve columns and, with per-object radii,
/// its radius as a thirteenth: what [`first_contact_capsules_indexed`](super::first_contact_capsules_indexed) and
/// [`Capsules`](crate::scenes::Capsules) decide their pairs with, bit for bit
/// [`swept_pair`] of each pair.
pub(crate) fn swept_indexed(
    a: [&[f32]; 12],
    b: [&[f32]; 12],
    pairs: &[(u32, u32)],
    radii: Radii<'_>,
    parallel: bool,
    out: &mut SweptBatch,
) {
    out.reset(pairs.len(), |_| true);
    let splat = Splat::new(&f32::segment_params());
    if let Some((ra, rb)) = radii.as_per_pair() {
        fn with<'c>(c: [&'c [f32]; 12], r: &'c [f32]) -> [&'c [f32]; 13] {
            core::array::from_fn(|k| if k < 12 { c[k] } else { r })
        }
        let input = driver::Gathered::<13, 13> {
            a: with(a, ra),
            b: with(b, rb),
            pairs,
            rows: None,
        };
        let kernel = SweptKernel::<f32x8> {
            ra: f32x8::ZERO,
            rb: f32x8::ZERO,
            splat,
        };
        driver::run_on::<f32x8, 26, _, _>(parallel, &kernel, input, pairs.len(), out.out());
    } else {
        let (ra, rb) = radii.as_uniform().unwrap_or((0.0, 0.0));
        let input = driver::Gathered::<12, 12> {
            a,
            b,
            pairs,
            rows: None,
        };
        let kernel = SweptKernel::<f32x8> {
            ra: f32x8::splat(ra),
            rb: f32x8::splat(rb),
            splat,
        };
        driver::run_on::<f32x8, 24, _, _>(parallel, &kernel, input, pairs.len(), out.out());
    }
}

/// Both `f64` lane types against the `f64` reference, bit for bit, in every lane: the
/// public query runs only the build's width ([`F64Lanes`]), so the other one is checked
/// here.
#[cfg(test)]
mod f64_widths {
    use super::{Ends4, MotionLane, Splat, SweptKernel, SweptLanes, swept_pair};
    use crate::driver::PairKernel;
    use crate::motion::types::{MotionFlags, MotionReal};
    use crate::test_mix::Mix;
    use wide::{f64x4, f64x8};

    fn same(x: f64, y: f64) -> bool {
        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
    }

    fn check<L, const N: usize>(to: fn([f64; N]) -> L, from: fn(L) -> [f64; N])
    where
        L: MotionLane<Elem = f64, Flags = [MotionFlags; N], Bools = [bool; N]>,
    {
        let mut g = Mix(0x5ee9_7a64);
        let mut hits = 0;
        for round in 0..1500 {
            let scale = g.pick(&[1e-3, 1.0, 1e3]);
            let offset = g.pick(&[0.0, 6.4e6]);
            let pairs: [(Ends4<f64>, Ends4<f64>); N] = core::array::from_fn(|k| {
                let mut e = || {
                    [g.point(), g.point(), g.point(), g.point()]
                        .map(|q| q.map(|x| x * scale + offset))
                };
                let (a, mut b) = (e(), e());
                if k == 1 {
                    b[2] = b[0];
                    b[3] = b[1];
                }
                (a, b)
            });
            let (ra, rb) = (0.1 * scale, g.pick(&[0.0, 0.05, 0.3]) * scale);
            let cols: [L; 24] = core::array::from_fn(|c| {
                to(pairs.map(|(a, b)| if c < 12 { a } else { b }[c % 12 / 3][c % 3]))
            });
            let kernel = SweptKernel::<L> {
                ra: L::splat(ra),
                rb: L::splat(rb),
                splat: Splat::new(&f64::segment_params()),
            };
            let got: SweptLanes<L> = PairKernel::<24, L>::masked(&kernel, cols);
            let t = from(got.t);
            let px = from(got.point_a.x);
            for (k, (a, b)) in pairs.iter().enumerate() {
                let want = swept_pair::<f64>(*a, *b, ra, rb);
                hits += usize::from(want.hit);
                assert!(
                    got.hit[k] == want.hit
                        && same(t[k], want.t)
                        && same(px[k], want.point_a[0])
                        && got.flags[k] == want.flags,
                    "round {round}, lane {k}: {a:?} {b:?}"
                );
            }
        }
        assert!(hits > 100, "{hits} contacts");
    }

    #[test]
    fn f64x4_is_the_f64_reference() {
        check::<f64x4, 4>(f64x4::new, f64x4::to_array);
    }

    #[test]
    fn f64x8_is_the_f64_reference() {
        check::<f64x8, 8>(f64x8::new, f64x8::to_array);
    }
}
