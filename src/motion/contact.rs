//! Time of first contact of two spheres moving linearly (the dynamic sphere-sphere test):
//! the scalar reference and its 8-lane twin, side by side.
//!
//! # Method
//!
//! With the relative motion `w(t) = w0 + t·dv` formed locally (as in `cpa.rs`) and
//! `R = rA + rB`, contact is `|w(t)|² = R²`, the quadratic `a·t² + 2b·t + c = 0` with
//!
//! - `a = dv·dv`, `b = w0·dv`, `c = |w0|² - R²` (one fused operation: `ww - R·R`);
//! - the discriminant in Lagrange's form `b² - a·c = R²·a - |w0 × dv|²`, which does not
//!   cancel the two large terms `b²` and `a·|w0|²` against each other: what is left is the
//!   intrinsic cancellation of a tangent contact (`R` against the miss distance of the
//!   relative line).
//!
//! Cases, in order:
//!
//! 1. `c <= 0`: **touching at start** (distance at most `R` at `t = 0`): `t = 0`, hit,
//!    [`MotionFlags::TOUCHING_AT_START`].
//! 2. `b < 0` (approaching) and `disc >= 0` (the relative line comes within `R`): the first
//!    root in the stable form `t = c / (-b + sqrt(disc))`. The denominator is at least
//!    `-b > 0` and never cancels, and nothing is divided by `a`, so zero or tiny relative
//!    velocities need no special case (they give `b = 0`, a miss, or a huge `t`, outside
//!    the window). A hit when `t <= T`.
//! 3. Otherwise **no contact** in the window: `t = +∞`.
//!
//! A pair whose terms are not all finite takes `beyond`: a NaN or infinite coordinate (or a
//! NaN `R`) gives no hit and `t` NaN ([`MotionFlags::NON_FINITE`]); an **infinite `R`
//! touches everything at the start** (`t = 0`, [`MotionFlags::TOUCHING_AT_START`], as an
//! infinite radius touches every pair in `capsules_touch` and the radius queries); and
//! finite inputs whose squares overflowed (separations beyond about `1.3e154` in `f64`,
//! `1.8e19` in `f32`) are solved again scaled by the power of two that brings the largest
//! input into `[1, 2)`: every term is homogeneous in the lengths, so `t` is the one of the
//! same scene in the ordinary range. The kernel's masked path hands the lanes its probe
//! flagged to the same scalar code, so it stays the reference's twin.
//!
//! Near a tangent contact the time itself is ill-conditioned (the distance barely changes
//! with `t`), but the distance at the reported time is within a few ulps of `R`, which is
//! what `tests/suite/motion.rs` checks against an f64 oracle.
//!
//! | reference                                   | kernel                                                |
//! |---------------------------------------------|-------------------------------------------------------|
//! | `if touching { 0 } else if hit_later { t_root } else { ∞ }` | nested `select` on `touching`, `hit_later` |
//! | `c / if approaching { q } else { 1 }`       | `c / approaching.select(q, 1)`                        |

use super::types::{MotionFlags, MotionLane, MotionReal, hit_indices, points};
use crate::columns::{Cell, GroupStore, SplitColumns, result_batch};
use crate::driver::{self, PairKernel};
use crate::lanes::{F64Lanes, Lane, V3, cross_lanes, dot_lanes, probe_lanes, sub8};
use crate::pairs::Radii;
use crate::real::Real;
use crate::real::{cross, dot, fms, fnma, max_ps, probe, sub3};
use wide::f32x8;

/// The first contact of one pair of moving spheres, in the precision of the pair (`f32`
/// unless said otherwise, or `f64`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact<E = f32> {
    /// True when the spheres touch at some time of the window.
    pub hit: bool,
    /// The first time of contact (0 when touching at start); `+∞` without contact; NaN for
    /// a non-finite input.
    pub t: E,
    /// [`MotionFlags::TOUCHING_AT_START`] and/or [`MotionFlags::NON_FINITE`].
    pub flags: MotionFlags,
}

impl<E: Real> Contact<E> {
    /// The result for a pair with a non-finite input: no hit, `t` NaN, flagged.
    pub const NON_FINITE: Contact<E> = Contact {
        hit: false,
        t: E::NAN,
        flags: MotionFlags::NON_FINITE,
    };
}

// ---------------------------------------------------------------------------------------
// Scalar reference.

/// The algorithm for one pair, in `f32` or `f64`; `a1`/`b1` are end positions with
/// `ENDPOINTS`, velocities otherwise.
pub(crate) fn contact_pair<F: MotionReal, const ENDPOINTS: bool>(
    a0: [F; 3],
    a1: [F; 3],
    b0: [F; 3],
    b1: [F; 3],
    r_sum: F,
    t_end: F,
) -> Contact<F> {
    let zero = F::ZERO;
    let w0 = sub3(a0, b0);
    let dv = if ENDPOINTS {
        sub3(sub3(a1, b1), w0)
    } else {
        sub3(a1, b1)
    };

    let ww = dot(w0, w0);
    let rr = r_sum * r_sum;
    let c = fnma(r_sum, r_sum, ww); // |w0|² - R²
    let touching = c <= zero;
    let a = dot(dv, dv);
    let b = dot(w0, dv);
    let n = cross(w0, dv);
    let disc = fms(rr, a, dot(n, n)); // R²·a - |w0 × dv|² = b² - a·c
    let approaching = b < zero && disc >= zero;
    let q = max_ps(disc, zero).sqrt() - b; // -b + sqrt(disc) >= -b > 0
    let t_root = c / if approaching { q } else { F::ONE };
    let hit_later = !touching && approaching && t_root <= t_end;
    let t = if touching {
        zero
    } else if hit_later {
        t_root
    } else {
        F::INFINITY
    };

    let non_finite = probe(&[
        w0[0], w0[1], w0[2], dv[0], dv[1], dv[2], r_sum, ww, rr, a, b, disc,
    ]);
    if non_finite {
        return beyond::<F, ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end);
    }
    Contact {
        hit: touching || hit_later,
        t,
        flags: if touching {
            MotionFlags::TOUCHING_AT_START
        } else {
            MotionFlags::empty()
        },
    }
}

/// [`contact_pair`] for a pair whose probe found a non-finite value, in this order:
///
/// - an input that is NaN or infinite (a coordinate, or a NaN `R`): no hit, `t` NaN,
///   [`MotionFlags::NON_FINITE`];
/// - an infinite `R` (finite inputs): it touches everything, at the start: hit, `t = 0`,
///   [`MotionFlags::TOUCHING_AT_START`] (as `capsules_touch` and the radius queries, where
///   an infinite radius holds every finite pair);
/// - finite inputs whose squares overflowed (coordinates, velocities or `R` beyond about
///   `1.3e154` in `f64`, `1.8e19` in `f32`): the pair solved again with every input and
///   `R` scaled by the power of two `σ` that brings the largest into `[1, 2)`. Positions,
///   velocities (or end positions) and `R` are all lengths, so `t` is unchanged by the
///   scaling, which is exact but for inputs under `2^-p` of the largest (their rounding
///   moves `t` by no more than it moves the distance).
#[cold]
#[inline(never)]
fn beyond<F: MotionReal, const ENDPOINTS: bool>(
    a0: [F; 3],
    a1: [F; 3],
    b0: [F; 3],
    b1: [F; 3],
    r_sum: F,
    t_end: F,
) -> Contact<F> {
    let ends = [a0, a1, b0, b1];
    let coordinates: [F; 12] = core::array::from_fn(|k| ends[k / 3][k % 3]);
    let radius_valid = matches!(
        r_sum.partial_cmp(&F::ZERO),
        Some(core::cmp::Ordering::Greater | core::cmp::Ordering::Equal)
    );
    if probe(&coordinates) || !radius_valid {
        return Contact::NON_FINITE;
    }
    if r_sum == F::INFINITY {
        return Contact {
            hit: true,
            t: F::ZERO,
            flags: MotionFlags::TOUCHING_AT_START,
        };
    }
    let largest = coordinates.iter().fold(r_sum, |m, &x| max_ps(m, x.abs()));
    let (sigma, _) = largest.magnitude_scale();
    let scale = |p: [F; 3]| p.map(|x| x * sigma);
    // Scaled into `[1, 2)`, no square overflows: `contact_pair` does not come back here.
    contact_pair::<F, ENDPOINTS>(
        scale(a0),
        scale(a1),
        scale(b0),
        scale(b1),
        r_sum * sigma,
        t_end,
    )
}

// ---------------------------------------------------------------------------------------
// The lane twin (any lane type: `f32x8`, and `f64x4`/`f64x8` for the `f64` queries).

/// One group's results as stored.
pub(crate) struct ContactLanes<L: MotionLane> {
    hit: L::Bools,
    t: L,
    flags: L::Flags,
}

/// The twin of `contact_pair` without its non-finite case: the hit mask, `t`, the touching
/// mask and the non-finite mask. Every lane's result is final unless the last mask has a
/// lane set.
#[inline(always)]
fn contact_lanes_finite<L: MotionLane, const ENDPOINTS: bool>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    r_sum: L,
    t_end: L,
) -> (L, L, L, L) {
    let zero = L::ZERO;
    let w0 = sub8(a0, b0);
    let dv = if ENDPOINTS {
        sub8(sub8(a1, b1), w0)
    } else {
        sub8(a1, b1)
    };

    let ww = dot_lanes(w0, w0);
    let rr = r_sum * r_sum;
    let c = r_sum.mul_neg_add(r_sum, ww);
    let touching = c.simd_le(zero);
    let a = dot_lanes(dv, dv);
    let b = dot_lanes(w0, dv);
    let n = cross_lanes(w0, dv);
    let disc = rr.mul_sub(a, dot_lanes(n, n));
    let approaching = b.simd_lt(zero) & disc.simd_ge(zero);
    let q = disc.fast_max(zero).sqrt() - b;
    let t_root = c / approaching.select(q, L::ONE);
    let hit_later = !touching & approaching & t_root.simd_le(t_end);
    let infinity = L::splat(<L::Elem as Real>::INFINITY);
    let t = touching.select(zero, hit_later.select(t_root, infinity));
    let hit = touching | hit_later;

    let non_finite = probe_lanes(&[
        w0.x, w0.y, w0.z, dv.x, dv.y, dv.z, r_sum, ww, rr, a, b, disc,
    ]);
    (hit, t, touching, non_finite)
}

/// The common case: `None` when a lane is non-finite.
#[inline(always)]
fn contact_lanes_general<L: MotionLane, const ENDPOINTS: bool>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    r_sum: L,
    t_end: L,
) -> Option<ContactLanes<L>> {
    let (hit, t, touching, non_finite) =
        contact_lanes_finite::<L, ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end);
    if non_finite.any() {
        return None;
    }
    Some(ContactLanes {
        hit: L::mask_bools(hit),
        t,
        // The only flag of a finite lane, straight from its mask.
        flags: L::mask_flags(touching, MotionFlags::TOUCHING_AT_START),
    })
}

/// The twin of `contact_pair` for a group of pairs, non-finite lanes included.
#[inline(always)]
fn contact_lanes<L: MotionLane, const ENDPOINTS: bool>(
    a0: V3<L>,
    a1: V3<L>,
    b0: V3<L>,
    b1: V3<L>,
    r_sum: L,
    t_end: L,
) -> ContactLanes<L> {
    let (hit, t, touching, non_finite) =
        contact_lanes_finite::<L, ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end);
    let flags = non_finite.select_bits(
        L::splat_bits(u32::from(MotionFlags::NON_FINITE.bits())),
        touching.to_bits() & L::splat_bits(u32::from(MotionFlags::TOUCHING_AT_START.bits())),
    );
    ContactLanes {
        hit: L::mask_bools(!non_finite & hit),
        t: non_finite.select(L::splat(<L::Elem as Real>::NAN), t),
        flags: L::bits_flags(flags),
    }
}

// ---------------------------------------------------------------------------------------
// Batches.

result_batch! {
    /// First contacts for a batch of pairs, stored as columns, in the precision of the
    /// pairs (`f32` unless said otherwise, or `f64`).
    ///
    /// Reuse one across calls to the `*_into` functions: buffers grow and are never shrunk.
    pub struct ContactBatch<E>(Contact) stored as ContactOut {
        columns {
            /// The mask of hits, exactly `len()` values.
            hit: bool,
            /// First contact times (`+∞` without contact), exactly `len()` values.
            t: E,
            /// Per-pair flags, exactly `len()` values.
            flags: MotionFlags,
        }
        points {}
    }
}

impl<E: Cell> ContactBatch<E> {
    /// Indices of the pairs that make contact, in order.
    pub fn hits(&self) -> impl Iterator<Item = usize> + '_ {
        hit_indices(self.hit())
    }
}

/// The [`GroupStore`] of a batch of `$elem` (every column) for the results of lane type
/// `$lane`.
macro_rules! contact_store {
    ($elem:ty, $lane:ty) => {
        impl GroupStore for ContactOut<'_, $elem, { <$lane as Lane>::WIDTH }> {
            type Lanes = ContactLanes<$lane>;
            #[inline(always)]
            fn store(&mut self, g: usize, lanes: &ContactLanes<$lane>) {
                self.t[g] = lanes.t.to_array();
                self.hit[g] = lanes.hit;
                self.flags[g] = lanes.flags;
            }
            #[inline(always)]
            fn split_at(self, mid: usize) -> (Self, Self) {
                self.split_columns(mid)
            }
        }
    };
}

contact_store!(f32, f32x8);
contact_store!(f64, F64Lanes);

/// First contact over tracks (`ENDPOINTS = false`) or start/end segments, time clamped to
/// `[0, t_end]`, any lane type: twelve input columns with uniform radii (`r_sum`
/// broadcast), fourteen with per-pair radii (the last two columns).
struct ContactKernel<L, const ENDPOINTS: bool> {
    t_end: L,
    r_sum: L,
}

/// Lane `k` of `x`.
#[inline(always)]
fn lane<L: MotionLane>(x: &L, k: usize) -> L::Elem {
    bytemuck::cast_slice::<L, L::Elem>(core::slice::from_ref(x))[k]
}

/// The lanes of a group whose probe found a non-finite value (flagged
/// [`MotionFlags::NON_FINITE`] by [`contact_lanes`]) decided again, one at a time, by the
/// reference ([`contact_pair`], whose non-finite case is [`beyond`]: an infinite `R`, or
/// finite inputs whose squares overflowed, get their answer there), so the kernel stays its
/// twin bit for bit. Only the masked path reaches here, and it does only for groups with
/// such a lane.
#[cold]
#[inline(never)]
fn decide_beyond<L: MotionLane, const ENDPOINTS: bool>(
    lanes: &mut ContactLanes<L>,
    x: &[L; 12],
    r_sum: L,
    t_end: L,
) {
    for k in 0..L::WIDTH {
        if !lanes.flags.as_ref()[k].contains(MotionFlags::NON_FINITE) {
            continue;
        }
        let p = |c: usize| [lane(&x[c], k), lane(&x[c + 1], k), lane(&x[c + 2], k)];
        let m = contact_pair::<L::Elem, ENDPOINTS>(
            p(0),
            p(3),
            p(6),
            p(9),
            lane(&r_sum, k),
            lane(&t_end, k),
        );
        lanes.hit.as_mut()[k] = m.hit;
        bytemuck::cast_slice_mut::<L, L::Elem>(core::slice::from_mut(&mut lanes.t))[k] = m.t;
        lanes.flags.as_mut()[k] = m.flags;
    }
}

/// [`contact_lanes`], then [`decide_beyond`] when some lane was flagged non-finite.
#[inline(always)]
fn contact8_masked<L: MotionLane, const ENDPOINTS: bool>(
    x: &[L; 12],
    r_sum: L,
    t_end: L,
) -> ContactLanes<L> {
    let (a0, a1, b0, b1) = points(x);
    let mut lanes = contact_lanes::<L, ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end);
    if lanes
        .flags
        .as_ref()
        .iter()
        .any(|f| f.contains(MotionFlags::NON_FINITE))
    {
        decide_beyond::<L, ENDPOINTS>(&mut lanes, x, r_sum, t_end);
    }
    lanes
}

impl<L: MotionLane, const ENDPOINTS: bool> PairKernel<12, L> for ContactKernel<L, ENDPOINTS> {
    type Lanes = ContactLanes<L>;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [L; 12]) -> Option<ContactLanes<L>> {
        let (a0, a1, b0, b1) = points(&load());
        contact_lanes_general::<L, ENDPOINTS>(a0, a1, b0, b1, self.r_sum, self.t_end)
    }
    #[inline(always)]
    fn masked(&self, x: [L; 12]) -> ContactLanes<L> {
        contact8_masked::<L, ENDPOINTS>(&x, self.r_sum, self.t_end)
    }
}

impl<L: MotionLane, const ENDPOINTS: bool> PairKernel<14, L> for ContactKernel<L, ENDPOINTS> {
    type Lanes = ContactLanes<L>;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [L; 14]) -> Option<ContactLanes<L>> {
        let x = load();
        let (a0, a1, b0, b1) = points(&x);
        contact_lanes_general::<L, ENDPOINTS>(a0, a1, b0, b1, x[12] + x[13], self.t_end)
    }
    #[inline(always)]
    fn masked(&self, x: [L; 14]) -> ContactLanes<L> {
        let pair: [L; 12] = core::array::from_fn(|c| x[c]);
        contact8_masked::<L, ENDPOINTS>(&pair, x[12] + x[13], self.t_end)
    }
}

/// Runs the kernel of lane type `L` over the `n` pairs of `a`, `b` (checked by the
/// caller) into `out` (sized by the caller), sequentially or on all cores.
pub(super) fn run<L, const ENDPOINTS: bool, S>(
    a: [&[L::Elem]; 6],
    b: [&[L::Elem]; 6],
    n: usize,
    radii: Radii<'_, L::Elem>,
    t_end: L::Elem,
    parallel: bool,
    out: S,
) where
    L: MotionLane,
    S: GroupStore<Lanes = ContactLanes<L>>,
{
    let pair: [&[L::Elem]; 12] = core::array::from_fn(|k| if k < 6 { a[k] } else { b[k - 6] });
    let t_end = L::splat(t_end);
    if let Some((ra, rb)) = radii.as_per_pair() {
        let cols: [&[L::Elem]; 14] = core::array::from_fn(|k| match k {
            0..12 => pair[k],
            12 => ra,
            _ => rb,
        });
        let kernel = ContactKernel::<L, ENDPOINTS> {
            t_end,
            r_sum: L::ZERO,
        };
        driver::run_on(parallel, &kernel, cols, n, out);
    } else {
        let (ra, rb) = radii.as_uniform().unwrap_or((L::Elem::ZERO, L::Elem::ZERO));
        let kernel = ContactKernel::<L, ENDPOINTS> {
            t_end,
            r_sum: L::splat(ra + rb),
        };
        driver::run_on(parallel, &kernel, pair, n, out);
    }
}

/// Both `f64` lane types against the `f64` reference, bit for bit, in every lane, through
/// both paths of the kernel (`general` where it answers, `masked` always): the public
/// queries run only the build's width ([`F64Lanes`]), so the other one is checked here.
/// `tests/suite/pairs64.rs` checks the public queries on the test kit's classes.
#[cfg(test)]
mod f64_widths {
    use super::{Contact, ContactKernel, ContactLanes, MotionLane, contact_pair};
    use crate::driver::PairKernel;
    use crate::motion::types::MotionFlags;
    use crate::test_mix::Mix;
    use wide::{f64x4, f64x8};

    fn same(x: f64, y: f64) -> bool {
        x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
    }

    fn agrees<L, const N: usize>(
        got: &ContactLanes<L>,
        want: &[Contact<f64>; N],
        from: fn(L) -> [f64; N],
    ) -> bool
    where
        L: MotionLane<Elem = f64, Flags = [MotionFlags; N], Bools = [bool; N]>,
    {
        let t = from(got.t);
        want.iter()
            .enumerate()
            .all(|(k, w)| got.hit[k] == w.hit && same(t[k], w.t) && got.flags[k] == w.flags)
    }

    fn check<L, const N: usize, const ENDPOINTS: bool>(
        to: fn([f64; N]) -> L,
        from: fn(L) -> [f64; N],
    ) where
        L: MotionLane<Elem = f64, Flags = [MotionFlags; N], Bools = [bool; N]>,
    {
        let mut g = Mix(0x00c0_7a64);
        let (mut general, mut hits) = (0, 0);
        for round in 0..4000 {
            let t_end = g.pick(&[0.0, 0.5, 1.0, 1e3, f64::INFINITY]);
            let scale = g.pick(&[1e-100, 1e-3, 1.0, 1e6, 1e100]);
            let offset = g.pick(&[0.0, 6.4e6, 1e12]);
            let bad = g.next().is_multiple_of(4);
            let pairs: [[[f64; 3]; 4]; N] = core::array::from_fn(|_| {
                let mut p = [g.point(), g.point(), g.point(), g.point()]
                    .map(|q| q.map(|x| x * scale + offset));
                if bad && g.next().is_multiple_of(3) {
                    p[(g.next() % 4) as usize][0] = g.pick(&[f64::NAN, f64::INFINITY]);
                }
                p
            });
            let r_sum = g.pick(&[0.0, 0.3, 1.0, 2.0]) * scale;
            let cols: [L; 12] = core::array::from_fn(|c| to(pairs.map(|p| p[c / 3][c % 3])));
            let want = pairs.map(|[a0, a1, b0, b1]| {
                contact_pair::<f64, ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end)
            });
            hits += want.iter().filter(|w| w.hit).count();
            let kernel = ContactKernel::<L, ENDPOINTS> {
                t_end: L::splat(t_end),
                r_sum: L::splat(r_sum),
            };
            assert!(
                agrees(&PairKernel::<12, L>::masked(&kernel, cols), &want, from),
                "masked, round {round}: {pairs:?}, R = {r_sum}, [0, {t_end}]"
            );
            if let Some(got) = PairKernel::<12, L>::general(&kernel, || cols) {
                general += 1;
                assert!(
                    agrees(&got, &want, from),
                    "general, round {round}: {pairs:?}, R = {r_sum}, [0, {t_end}]"
                );
            }
        }
        assert!(general > 1000, "the common path answered {general} groups");
        assert!(hits > 1000, "{hits} contacts");
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
