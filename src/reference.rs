//! The scalar reference: what "closest points" means, written to be read.
//!
//! Every other path in the crate (the 8-lane kernel, the parallel driver, the queries) is
//! checked against this file. It is branchy on purpose: each `if` below is one case of the
//! semantics, and the kernel turns each into a named mask and a `select` with the same
//! variable names, so the two files can be read side by side.
//!
//! # Method
//!
//! With `dA = A1 - A0`, `dB = B1 - B0` and `r = A0 - B0` the closest points are
//! `C = A0 + s·dA` and `D = B0 + t·dB`. Following Rhodes (Game Programming Gems 2, 2.3) and
//! Ericson (Real-Time Collision Detection, 5.1.9):
//!
//! 1. **Non-finite**: a NaN or infinite coordinate gives an all-NaN result, flagged.
//! 2. **Degenerate** sides (length at most a couple of ulps of their own coordinates) collapse
//!    to their first point.
//! 3. **First estimate of s**: for parallel directions Rhodes' rule, the midpoint of the
//!    overlap of B's projection onto A with A's extent; otherwise the interior solution from
//!    the triple product `s = ((B0 - A0) × dB)·n / (n·n)` with `n = dA × dB`, which keeps
//!    the information that forming `a·e - b²` from rounded dot products throws away.
//! 4. **Clamp and adjust**: clamp s to A's extent, take t by projecting C onto B (clamped),
//!    then s once more by projecting D back onto A (clamped).
//! 5. **Distance** from the separation formed locally, `r + s·dA - t·dB`, never by
//!    subtracting two far-from-origin points.
//!
//! `docs/algorithm.md` derives each step and gives the accuracy measured for it.
//!
//! # Operation order
//!
//! The reference uses the same operations in the same order as the kernel, including fused
//! multiply-adds exactly where the kernel's `wide::f32x8::mul_add` is fused on this build
//! ([`FUSED_MUL_ADD`]). The two therefore agree bit for bit on x86_64 (both the AVX2+FMA
//! and the SSE2 build); the tests check that, and a looser documented tolerance elsewhere.

use crate::motion::{Contact, Cpa, Cpa64, Track, Track64, Window, Window64};
use crate::query::FirstHit;
use crate::real::Real;
use crate::seg2d::{Intersection2, Segment2};
use crate::segment::{Closest, Closest64, Flags, Options, Params, Segment, Segment64};

/// True when this build fuses multiply-adds in the kernel (`wide` uses `vfmadd` with the
/// `fma` target feature, and NEON's fused multiply-add on aarch64); the reference then fuses
/// the same operations, so both round identically.
pub const FUSED_MUL_ADD: bool = cfg!(any(
    target_feature = "fma",
    all(target_arch = "aarch64", target_feature = "neon")
));

/// Closest points of two segments (both sides [`Extent::Segment`](crate::Extent)) with the
/// default scale-free tolerance.
///
/// Never panics. A NaN or infinite coordinate gives [`Closest::NON_FINITE`].
///
/// ```
/// use segbatch::{reference, Segment};
/// // Rhodes' thought experiment: the closest points are the end of A and the start of B.
/// let a = Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let b = Segment::new([1.0, 0.0, 1.0], [1.0, 1.0, 1.0]);
/// let c = reference::closest_points(&a, &b);
/// assert_eq!((c.s, c.t), (1.0, 0.0));
/// assert_eq!(c.point_a, [1.0, 0.0, 0.0]);
/// assert_eq!(c.point_b, [1.0, 0.0, 1.0]);
/// assert_eq!(c.distance(), 1.0);
/// ```
#[must_use]
pub fn closest_points(a: &Segment, b: &Segment) -> Closest {
    closest_points_with(a, b, &Options::SEGMENTS)
}

/// Closest points of two sides, each a segment, ray or line as `options` says, with the
/// tolerance of `options`.
///
/// Never panics. A NaN or infinite coordinate gives [`Closest::NON_FINITE`]. The returned
/// `s` and `t` always lie in their extents.
///
/// ```
/// use segbatch::{reference, Extent, Options, Segment};
/// // A ray from the origin along +x against a wall segment crossing it at x = 5.
/// let ray = Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let wall = Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]);
/// let c = reference::closest_points_with(&ray, &wall, &Options::new(Extent::Ray, Extent::Segment));
/// assert_eq!(c.s, 5.0);
/// assert_eq!(c.t, 0.5);
/// assert_eq!(c.dist2, 0.0);
/// ```
#[must_use]
pub fn closest_points_with(a: &Segment, b: &Segment, options: &Options) -> Closest {
    closest_points_params(a, b, &options.params())
}

/// Closest points of two `f64` segments (both sides [`Extent::Segment`](crate::Extent)) with
/// the default scale-free tolerance in `f64` (`2·f64::EPSILON`): the same algorithm as
/// [`closest_points`], one generic body, in double precision.
///
/// Never panics. A NaN or infinite coordinate gives [`Closest64::NON_FINITE`].
///
/// ```
/// use segbatch::{reference, Segment64};
/// // Rhodes' thought experiment, 6.4e6 m from the origin (ECEF-sized coordinates).
/// let o = 6.4e6;
/// let a = Segment64::new([o, 0.0, 0.0], [o + 1.0, 0.0, 0.0]);
/// let b = Segment64::new([o + 1.0, 0.0, 1.0], [o + 1.0, 1.0, 1.0]);
/// let c = reference::closest_points64(&a, &b);
/// assert_eq!((c.s, c.t), (1.0, 0.0));
/// assert_eq!(c.distance(), 1.0);
/// ```
#[must_use]
pub fn closest_points64(a: &Segment64, b: &Segment64) -> Closest64 {
    closest_points64_with(a, b, &Options::SEGMENTS)
}

/// Closest points of two `f64` sides, each a segment, ray or line as `options` says: the
/// `f64` twin of [`closest_points_with`]. The default tolerance is taken in `f64`
/// (`2·f64::EPSILON`); any other [`Tolerance`](crate::Tolerance) as given.
///
/// Never panics. A NaN or infinite coordinate gives [`Closest64::NON_FINITE`]. The
/// returned `s` and `t` always lie in their extents.
///
/// ```
/// use segbatch::{reference, Extent, Options, Segment64};
/// let ray = Segment64::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let wall = Segment64::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]);
/// let c = reference::closest_points64_with(&ray, &wall, &Options::new(Extent::Ray, Extent::Segment));
/// assert_eq!((c.s, c.t, c.dist2), (5.0, 0.5, 0.0));
/// ```
#[must_use]
pub fn closest_points64_with(a: &Segment64, b: &Segment64, options: &Options) -> Closest64 {
    closest_pair(&Ends::from(a), &Ends::from(b), &options.params64()).into()
}

// ---------------------------------------------------------------------------------------
// The other queries' references. Each is written beside its 8-lane twin, in the query's own
// file (same variable names, same operation order); these are their public entry points.

/// Closest point of approach of two tracks over `window` (scalar reference).
///
/// Never panics; a NaN or infinite input gives [`Cpa::NON_FINITE`](crate::motion::Cpa::NON_FINITE).
///
/// ```
/// use segbatch::motion::{Track, Window};
/// use segbatch::reference::cpa;
/// // Head-on along x, 1 apart in y: closest at t = 0.5.
/// let a = Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Track::new([2.0, 1.0, 0.0], [-2.0, 0.0, 0.0]);
/// let c = cpa(&a, &b, Window::STEP);
/// assert_eq!((c.t, c.dist2), (0.5, 1.0));
/// assert_eq!(c.point_a, [1.0, 0.0, 0.0]);
/// ```
#[must_use]
pub fn cpa(a: &Track, b: &Track, window: Window) -> Cpa {
    crate::motion::cpa_pair::<_, false>(
        a.position,
        a.velocity,
        b.position,
        b.velocity,
        window.end(),
    )
    .into()
}

/// Closest point of approach of two objects moving from `a.p0` to `a.p1` and from `b.p0`
/// to `b.p1` during the same step (time `[0, 1]`), scalar reference.
///
/// Never panics; a NaN or infinite input gives [`Cpa::NON_FINITE`](crate::motion::Cpa::NON_FINITE).
///
/// ```
/// use segbatch::reference::cpa_segments;
/// use segbatch::Segment;
/// // The paths cross at (1, 0, 0), but A is there at t = 0.5 and B at t = 1.
/// let a = Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Segment::new([1.0, -2.0, 0.0], [1.0, 0.0, 0.0]);
/// let c = cpa_segments(&a, &b);
/// assert_eq!((c.t, c.dist2), (0.75, 0.5)); // closest at t = 0.75, still 0.707 apart
/// ```
#[must_use]
pub fn cpa_segments(a: &Segment, b: &Segment) -> Cpa {
    crate::motion::cpa_pair::<_, true>(a.p0, a.p1, b.p0, b.p1, 1.0).into()
}

/// Closest point of approach of two `f64` tracks over `window` (scalar reference): the same
/// algorithm as [`cpa`], one generic body, in double precision ("same velocity" is
/// `|dv| <= 2·f64::EPSILON` times the larger speed).
///
/// Never panics; a NaN or infinite input gives [`Cpa64::NON_FINITE`](crate::motion::Cpa64::NON_FINITE).
///
/// ```
/// use segbatch::motion::{Track64, Window64};
/// use segbatch::reference::cpa64;
/// // Head-on along x, 1 apart in y, 1e9 from the origin: closest at t = 0.5.
/// let o = 1.0e9;
/// let a = Track64::new([o, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Track64::new([o + 2.0, 1.0, 0.0], [-2.0, 0.0, 0.0]);
/// let c = cpa64(&a, &b, Window64::STEP);
/// assert_eq!((c.t, c.dist2), (0.5, 1.0));
/// assert_eq!(c.point_a, [o + 1.0, 0.0, 0.0]);
/// ```
#[must_use]
pub fn cpa64(a: &Track64, b: &Track64, window: Window64) -> Cpa64 {
    crate::motion::cpa_pair::<_, false>(
        a.position,
        a.velocity,
        b.position,
        b.velocity,
        window.end(),
    )
    .into()
}

/// Closest point of approach of two objects moving from `a.p0` to `a.p1` and from `b.p0`
/// to `b.p1` during the same step (time `[0, 1]`), in `f64` (scalar reference): the same
/// algorithm as [`cpa_segments`] in double precision.
///
/// Never panics; a NaN or infinite input gives [`Cpa64::NON_FINITE`](crate::motion::Cpa64::NON_FINITE).
///
/// ```
/// use segbatch::reference::cpa_segments64;
/// use segbatch::Segment64;
/// // The paths cross at (o + 1, 0, 0), but A is there at t = 0.5 and B at t = 1.
/// let o = 6_378_137.0;
/// let a = Segment64::new([o, 0.0, 0.0], [o + 2.0, 0.0, 0.0]);
/// let b = Segment64::new([o + 1.0, -2.0, 0.0], [o + 1.0, 0.0, 0.0]);
/// let c = cpa_segments64(&a, &b);
/// assert_eq!((c.t, c.dist2), (0.75, 0.5));
/// ```
#[must_use]
pub fn cpa_segments64(a: &Segment64, b: &Segment64) -> Cpa64 {
    crate::motion::cpa_pair::<_, true>(a.p0, a.p1, b.p0, b.p1, 1.0).into()
}

/// First contact, within `window`, of a sphere of radius `radius_a` moving along track `a`
/// and one of radius `radius_b` moving along `b` (scalar reference). Radii are expected to
/// be non-negative; contact is at distance `radius_a + radius_b`.
///
/// Never panics; a NaN or infinite input gives [`Contact::NON_FINITE`](crate::motion::Contact::NON_FINITE).
///
/// ```
/// use segbatch::motion::{Track, Window};
/// use segbatch::reference::first_contact;
/// // Closing at 4 units per step from 4 apart, radii 0.5 + 0.5: contact at t = 0.75.
/// let a = Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Track::new([4.0, 0.0, 0.0], [-2.0, 0.0, 0.0]);
/// let c = first_contact(&a, 0.5, &b, 0.5, Window::STEP);
/// assert!(c.hit);
/// assert_eq!(c.t, 0.75);
/// ```
#[must_use]
pub fn first_contact(
    a: &Track,
    radius_a: f32,
    b: &Track,
    radius_b: f32,
    window: Window,
) -> Contact {
    crate::motion::contact_pair::<false>(
        a.position,
        a.velocity,
        b.position,
        b.velocity,
        radius_a + radius_b,
        window.end(),
    )
}

/// First contact, during one step (time `[0, 1]`), of spheres whose centres move from
/// `a.p0` to `a.p1` and from `b.p0` to `b.p1` (scalar reference).
///
/// Never panics; a NaN or infinite input gives [`Contact::NON_FINITE`](crate::motion::Contact::NON_FINITE).
///
/// ```
/// use segbatch::reference::first_contact_segments;
/// use segbatch::Segment;
/// // Paths cross at right angles, but B arrives after A has gone: no contact.
/// let a = Segment::new([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let b = Segment::new([0.0, -3.0, 0.0], [0.0, -1.0, 0.0]);
/// assert!(!first_contact_segments(&a, 0.25, &b, 0.25).hit);
/// ```
#[must_use]
pub fn first_contact_segments(a: &Segment, radius_a: f32, b: &Segment, radius_b: f32) -> Contact {
    crate::motion::contact_pair::<true>(a.p0, a.p1, b.p0, b.p1, radius_a + radius_b, 1.0)
}

/// Intersection of two 2D segments, or their closest points (scalar reference).
///
/// Never panics; a NaN or infinite input gives [`Intersection2::NON_FINITE`](crate::Intersection2::NON_FINITE).
///
/// ```
/// use segbatch::{Crossing, Segment2};
/// use segbatch::reference::intersect2;
/// // The tutorial's example: P1 = (4,7), v1 = (12,-4); P2 = (1,1), v2 = (16,4).
/// let a = Segment2::new([4.0, 7.0], [16.0, 3.0]);
/// let b = Segment2::new([1.0, 1.0], [17.0, 5.0]);
/// let x = intersect2(&a, &b);
/// assert_eq!(x.kind, Crossing::Point);
/// assert_eq!((x.s, x.t), (0.75, 0.75));
/// assert_eq!(x.point_a, [13.0, 4.0]);
/// ```
#[must_use]
pub fn intersect2(a: &Segment2, b: &Segment2) -> Intersection2 {
    crate::seg2d::intersect2_pair(a, b)
}

/// The first hit of a thick ray on one segment: `None` unless a sphere of `radius` whose
/// centre moves along `ray` (`P0 + u·(P1 - P0)`, `u` from 0 to `range`) touches `wall`;
/// else the first `u`, and the contact point on `wall` (`index` is 0). The scalar twin of
/// [`SegmentIndex::first_hits`](crate::SegmentIndex::first_hits), which gives for each ray
/// the least `(u, index)` of this over the indexed set.
///
/// ```
/// use segbatch::{reference, Segment};
/// let ray = Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let wall = Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]);
/// let hit = reference::first_hit(&ray, 0.5, 10.0, &wall).unwrap();
/// assert_eq!((hit.u, hit.point), (4.5, [5.0, 0.0, 0.0]));
/// assert_eq!(reference::first_hit(&ray, 0.5, 4.0, &wall), None); // out of range
/// ```
#[must_use]
pub fn first_hit(ray: &Segment, radius: f32, range: f32, wall: &Segment) -> Option<FirstHit> {
    crate::query::first_hit_pair(ray, radius, range, wall)
}

/// The contacts of capsules `(a, radius_a)` and `(b, radius_b)`: none when they do not
/// touch (the squared distance of [`closest_points`] above `(radius_a + radius_b)²`), two
/// for (near-)parallel overlapping cores, one otherwise, by the rule documented on
/// [`CapsuleContact`](crate::CapsuleContact) (`pair` is 0). The scalar twin of
/// [`capsule_contacts`](crate::capsule_contacts), which gives these contacts bit for bit.
///
/// ```
/// use segbatch::{reference, Segment};
/// // A capsule resting along another: two points, the same normal.
/// let a = Segment::new([0.0, 0.75, 0.0], [2.0, 0.75, 0.0]);
/// let b = Segment::new([1.0, 0.0, 0.0], [3.0, 0.0, 0.0]);
/// let [p, q] = reference::capsule_contact(&a, 0.5, &b, 0.5);
/// let (p, q) = (p.unwrap(), q.unwrap());
/// assert_eq!((p.normal, q.normal), ([0.0, 1.0, 0.0], [0.0, 1.0, 0.0]));
/// assert_eq!((p.point_a, q.point_a), ([1.0, 0.25, 0.0], [2.0, 0.25, 0.0]));
/// assert_eq!((p.depth, q.depth), (0.25, 0.25));
/// // Crossing capsules: one point.
/// let c = Segment::new([1.5, 0.5, -1.0], [1.5, 0.5, 1.0]);
/// assert!(matches!(reference::capsule_contact(&c, 0.5, &b, 0.5), [Some(_), None]));
/// ```
#[must_use]
pub fn capsule_contact(
    a: &Segment,
    radius_a: f32,
    b: &Segment,
    radius_b: f32,
) -> [Option<crate::CapsuleContact>; 2] {
    let c = closest_points(a, b);
    crate::query::manifold(
        0,
        (a, radius_a),
        (b, radius_b),
        (c.point_a, c.point_b, c.dist2),
    )
}

/// One side's end points in either precision: what the generic body reads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ends<F> {
    pub p0: [F; 3],
    pub p1: [F; 3],
}

impl From<&Segment> for Ends<f32> {
    #[inline(always)]
    fn from(x: &Segment) -> Self {
        Ends { p0: x.p0, p1: x.p1 }
    }
}

impl From<&Segment64> for Ends<f64> {
    #[inline(always)]
    fn from(x: &Segment64) -> Self {
        Ends { p0: x.p0, p1: x.p1 }
    }
}

/// One result in either precision: what the generic body returns ([`Closest`] and
/// [`Closest64`] are its public forms).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Solved<F> {
    pub s: F,
    pub t: F,
    pub point_a: [F; 3],
    pub point_b: [F; 3],
    pub dist2: F,
    pub flags: Flags,
}

impl<F: Real> Solved<F> {
    /// The result for a pair with a NaN or infinite coordinate.
    const NON_FINITE: Solved<F> = Solved {
        s: F::NAN,
        t: F::NAN,
        point_a: [F::NAN; 3],
        point_b: [F::NAN; 3],
        dist2: F::NAN,
        flags: Flags::NON_FINITE,
    };
}

impl From<Solved<f32>> for Closest {
    #[inline(always)]
    fn from(x: Solved<f32>) -> Self {
        Closest {
            s: x.s,
            t: x.t,
            point_a: x.point_a,
            point_b: x.point_b,
            dist2: x.dist2,
            flags: x.flags,
        }
    }
}

impl From<Solved<f64>> for Closest64 {
    #[inline(always)]
    fn from(x: Solved<f64>) -> Self {
        Closest64 {
            s: x.s,
            t: x.t,
            point_a: x.point_a,
            point_b: x.point_b,
            dist2: x.dist2,
            flags: x.flags,
        }
    }
}

/// [`closest_pair`] on `f32` segments: the reference's entry for the kernel's tests and
/// the public functions.
#[inline]
pub(crate) fn closest_points_params(a: &Segment, b: &Segment, p: &Params) -> Closest {
    closest_pair(&Ends::from(a), &Ends::from(b), p).into()
}

/// The algorithm, with the per-call constants already derived.
///
/// 0. **Range**: a pair whose lengths are so small or so large that products of four of them
///    could under- or overflow, or whose finite coordinates are so large that a difference,
///    a squared magnitude or `4·|A0 - B0|²` overflows, or whose first estimate of `s`
///    (Goldman's, step 3) overflows, is solved scaled by a power of two `σ` chosen from its
///    own lengths and separation (or, when those themselves under- or overflow, from its
///    largest coordinate), then scaled back. Scaling by a power of two
///    commutes with rounding, so this changes no bit of any result that did not under- or
///    overflow: it only rescues the ones that would have, over the whole finite f32 range.
///    A squared distance that cannot be represented at the caller's scale is flagged
///    [`Flags::DIST2_OUT_OF_RANGE`].
///
///    One `σ` cannot always hold both sides: a ray `1e-24` times shorter than the
///    separation has `|σ·dA|² ≈ 1e-48`, which underflows to 0. So a rescaled pair is solved
///    with each direction scaled once more by its own power of two (`solve`'s per-side
///    frame), which keeps `|dA|²`, `|dB|²` and their products normal whatever the ratio of
///    the two lengths to the separation.
///
///    The range test on `|dA|²·|dB|²` does not bound Goldman's `s = (w·n)/(n·n)`: its
///    numerator is `|dA|·|dB|²·|A0 - B0|` in size and `s` itself up to `|A0 - B0|/|dA|`
///    over the sine of the angle, so a side short against the separation (a ray `3e-8`
///    long `2e17` from a ray `3e17` long) overflows either with `a·e` in range. An infinite
///    `s` passes a ray's clamp, and the projections that follow cannot repair it (the
///    numerator's sign is lost too). Likewise the projections of step 4 (`b·t`, `b·s`)
///    overflow for near-parallel unbounded sides whose closest points lie far out (a line
///    2.6e-14 long near the origin, nearly parallel to one 2.6e17 long and 4e17 away).
///    `solve` reports either (`None`) and the pair is solved rescaled, where both sides'
///    directions and the separation are of size 1, so `s` and `t` are at most about
///    `1/sin(angle)`.
pub(crate) fn closest_pair<F: Real>(a: &Ends<F>, b: &Ends<F>, p: &Params<F>) -> Solved<F> {
    let d_a = sub(a.p1, a.p0);
    let d_b = sub(b.p1, b.p0);
    let r = sub(a.p0, b.p0);
    let ae = dot(d_a, d_a) * dot(d_b, d_b);
    let in_range = (F::RANGE_LO..=F::RANGE_HI).contains(&ae);
    // Finite coordinates whose differences or squares overflow: the non-finite probe of
    // step 1 or a squared magnitude of step 2 would misread them.
    let overflow = finite(a, b)
        && (probe(d_a, d_b, r) != F::ZERO
            || !(..=F::MAX).contains(&dot(a.p0, a.p0))
            || !(..=F::MAX).contains(&dot(b.p0, b.p0)));
    if in_range && !overflow {
        // (`None`: Goldman's first `s` overflowed; see `solve`.)
        if let Some(direct) = solve(a, b, p, false) {
            return direct;
        }
    }
    let m = max_ps(max_ps(dot(d_a, d_a), dot(d_b, d_b)), dot(r, r));
    let (sigma, inv_sigma) = if (F::MIN_POSITIVE..=F::MAX).contains(&m) {
        m.power_of_two_scale()
    } else {
        max_abs(a, b).magnitude_scale()
    };
    let scale = |x: &Ends<F>| Ends {
        p0: x.p0.map(|c| c * sigma),
        p1: x.p1.map(|c| c * sigma),
    };
    // (Never `None`: `solve` reports an overflow only unscaled.)
    let scaled = solve(&scale(a), &scale(b), &p.scaled(sigma), true).unwrap_or(Solved::NON_FINITE);
    let dist2 = scaled.dist2 * inv_sigma * inv_sigma;
    let mut flags = scaled.flags;
    if scaled.dist2 > F::ZERO && !(F::MIN_POSITIVE..=F::MAX).contains(&dist2) {
        flags |= Flags::DIST2_OUT_OF_RANGE;
    }
    Solved {
        point_a: scaled.point_a.map(|c| c * inv_sigma),
        point_b: scaled.point_b.map(|c| c * inv_sigma),
        dist2,
        flags,
        ..scaled
    }
}

/// True when every coordinate of the pair is finite (`x·0` is 0 exactly for finite `x`).
#[inline(always)]
fn finite<F: Real>(a: &Ends<F>, b: &Ends<F>) -> bool {
    let zero_sum = |q: [F; 3]| fma(q[0], F::ZERO, fma(q[1], F::ZERO, q[2] * F::ZERO));
    zero_sum(a.p0) + zero_sum(a.p1) + zero_sum(b.p0) + zero_sum(b.p1) == F::ZERO
}

/// Step 0's overflow probe: `a·0 + e·0 + (4·|r|²)·0 + c·0`, NaN exactly when `|dA|²`,
/// `|dB|²`, `4·|A0 - B0|²` or `dA·(A0 - B0)` is not finite.
#[inline(always)]
fn probe<F: Real>(d_a: [F; 3], d_b: [F; 3], r: [F; 3]) -> F {
    let rr4 = dot(r, r) * F::FOUR;
    fma(
        dot(d_a, d_a),
        F::ZERO,
        fma(
            dot(d_b, d_b),
            F::ZERO,
            fma(rr4, F::ZERO, dot(d_a, r) * F::ZERO),
        ),
    )
}

/// The largest coordinate magnitude of the pair (`maxps` rule, as the kernel).
#[inline(always)]
fn max_abs<F: Real>(a: &Ends<F>, b: &Ends<F>) -> F {
    let m3 = |q: [F; 3]| max_ps(max_ps(q[0].abs(), q[1].abs()), q[2].abs());
    max_ps(max_ps(m3(a.p0), m3(a.p1)), max_ps(m3(b.p0), m3(b.p1)))
}

/// Powers of two `(λ, 1/λ)` for a direction `d`: `λ·max|d_i|` in `[1, 2)` (the
/// [`Real::magnitude_scale`] of its largest component), so `|λ·d|²` is in `[1, 12)` for any
/// nonzero `d`, even one whose own square underflows.
#[inline(always)]
pub(crate) fn direction_scale<F: Real>(d: [F; 3]) -> (F, F) {
    max_ps(max_ps(d[0].abs(), d[1].abs()), d[2].abs()).magnitude_scale()
}

/// Steps 1-5 for a pair in range.
///
/// With `per_side` (a pair step 0 rescaled), each direction is solved in its own frame:
/// `dA` is replaced by `λA·dA` and `s` by `s/λA` (A's extent bounds by `bound/λA`), and
/// likewise for B, with `λ` from [`direction_scale`]. Every formula below is homogeneous in
/// each side's direction (Goldman's `s` has degree `-1` in `dA` and `0` in `dB`, the
/// projections likewise, and `s·dA` is unchanged), and multiplying by a power of two is
/// exact, so this changes no bit unless a square of a direction, or a product of two,
/// would have under- or overflowed, which is what it is for. The degenerate test moves to
/// the same frame: `|λA·dA|² <= rel²·|λA·A0|² + abs²·λA²` (`|λA·A0|²` capped at
/// `F::MAX`: it overflows only for a side `2^-64` times shorter than its coordinates,
/// degenerate for any relative tolerance above `2^-125`).
///
/// `None` when, unscaled (`!per_side`), Goldman's first estimate of `s` or the squared
/// distance is not finite (only possible for finite inputs, which step 0 then rescales).
fn solve<F: Real>(a: &Ends<F>, b: &Ends<F>, p: &Params<F>, per_side: bool) -> Option<Solved<F>> {
    let (a0, a1, b0, b1) = (a.p0, a.p1, b.p0, b.p1);
    let r = sub(a0, b0);
    let (lambda_a, inv_lambda_a) = if per_side {
        direction_scale(sub(a1, a0))
    } else {
        (F::ONE, F::ONE)
    };
    let (lambda_b, inv_lambda_b) = if per_side {
        direction_scale(sub(b1, b0))
    } else {
        (F::ONE, F::ONE)
    };
    let d_a = sub(a1, a0).map(|x| x * lambda_a);
    let d_b = sub(b1, b0).map(|x| x * lambda_b);
    // Extent bounds in the per-side frames (0, 1, ±∞ times a power of two: exact).
    let (lo_a, hi_a) = (p.lo_a * inv_lambda_a, p.hi_a * inv_lambda_a);
    let (lo_b, hi_b) = (p.lo_b * inv_lambda_b, p.hi_b * inv_lambda_b);

    // Ericson's dot products, each one rounding per term (fused).
    let a_ = dot(d_a, d_a);
    let e = dot(d_b, d_b);
    let b_ = dot(d_a, d_b);
    let c = dot(d_a, r);
    let f = dot(d_b, r);

    // 1. Non-finite: a NaN or infinite coordinate makes d_a or d_b, hence a or e, non-finite
    //    (and 4·|r|² catches A0 - B0 overflowing, which step 0 has already rescued for
    //    finite inputs; with a and 4·|r|² finite, |c| <= |dA|·|r| is finite too); x·0 is
    //    NaN exactly when x is NaN or infinite. (4·|r|² finite also keeps dist2 <= |r|²
    //    finite.)
    let rr4 = dot(r, r) * F::FOUR;
    let probe = fma(a_, F::ZERO, fma(e, F::ZERO, rr4 * F::ZERO));
    let non_finite = probe != F::ZERO;
    if non_finite {
        return Some(Solved::NON_FINITE);
    }

    // 2. Degenerate: length² against the squared magnitude of the side's first point (when
    //    the side is short enough for this to matter, both ends have that magnitude).
    //    In the per-side frames (see above); with λ = 1 the cap and the products are exact.
    let scale2_a = min_ps(
        dot(a0.map(|x| x * lambda_a), a0.map(|x| x * lambda_a)),
        F::MAX,
    );
    let scale2_b = min_ps(
        dot(b0.map(|x| x * lambda_b), b0.map(|x| x * lambda_b)),
        F::MAX,
    );
    let length_abs2_a = p.length_abs2 * lambda_a * lambda_a;
    let length_abs2_b = p.length_abs2 * lambda_b * lambda_b;
    let degenerate_a = a_ <= fma(p.length_rel2, scale2_a, length_abs2_a);
    let degenerate_b = e <= fma(p.length_rel2, scale2_b, length_abs2_b);

    // Parallel: |dA × dB|² = |dA|²|dB|² sin²(angle).
    let n = if p.accurate_cross {
        // Two unbounded sides: nothing clamps a badly placed s back, so n must be accurate
        // to an ulp of itself (docs/algorithm.md).
        cross_accurate(d_a, d_b)
    } else {
        cross(d_a, d_b)
    };
    let nn = dot(n, n);
    let parallel = !degenerate_a && !degenerate_b && nn <= p.parallel_sin2 * (a_ * e);

    // 3. First estimate of s.
    let s_first = if degenerate_a || degenerate_b {
        // A point: s = 0. B a point: s comes from projecting B0 in step 4 (t = 0).
        F::ZERO
    } else if parallel {
        // Rhodes: project B's extent onto A, s = midpoint of its overlap with A's extent.
        let s_b0 = -c / a_; // where B0 projects on A
        let k = b_ / a_; // ds per unit of t
        let end_lo = fma(lo_b, k, s_b0); // B's lower bound (maybe infinite) on A
        let end_hi = fma(hi_b, k, s_b0);
        let lo = max_ps(lo_a, min_ps(end_lo, end_hi));
        let hi = min_ps(hi_a, max_ps(end_lo, end_hi));
        let lo_finite = lo > F::NEG_INFINITY;
        let hi_finite = hi < F::INFINITY;
        if lo_finite && hi_finite {
            // Without overlap lo > hi and the clamp below picks A's nearest end.
            (lo + hi) * F::HALF
        } else if lo_finite {
            lo
        } else if hi_finite {
            hi
        } else {
            // Two parallel lines: any point will do; Rhodes takes s = 0.
            F::ZERO
        }
    } else {
        // Goldman's triple product: s = ((B0 - A0) × dB)·n / (n·n).
        let w = cross(d_b, r);
        let s_general = dot(w, n) / nn;
        // Overflowed (numerator or quotient; see `closest_points_params`, step 0): the
        // caller solves the pair again rescaled. (x·0 is 0 exactly for finite x.)
        if !per_side && s_general * F::ZERO != F::ZERO {
            return None;
        }
        s_general
    };

    // 4. Clamp, project C onto B, project D back onto A.
    let s = clamp(s_first, lo_a, hi_a);
    let t = if degenerate_b {
        F::ZERO
    } else {
        clamp(fma(b_, s, f) / e, lo_b, hi_b)
    };
    let s = if degenerate_a {
        F::ZERO
    } else {
        clamp(fms(b_, t, c) / a_, lo_a, hi_a)
    };

    // 5. Separation r + s·dA - t·dB, formed locally.
    let v: [F; 3] = core::array::from_fn(|i| fnma(t, d_b[i], fma(s, d_a[i], r[i])));
    let dist2 = dot(v, v);
    // The projections overflowed (`b·t` or `b·s` beyond the largest float: closest points
    // of near-parallel unbounded sides far out, a short side far from a long one): with
    // `4·|r|²` finite the exact `dist2 <= |r|²` is finite, so this too is solved rescaled.
    if !per_side && dist2 * F::ZERO != F::ZERO {
        return None;
    }

    let mut flags = Flags::empty();
    if degenerate_a {
        flags |= Flags::DEGENERATE_A;
    }
    if degenerate_b {
        flags |= Flags::DEGENERATE_B;
    }
    if parallel {
        flags |= Flags::PARALLEL;
    }
    Some(Solved {
        // Back from the per-side frames (exact: s/λA times λA).
        s: s * lambda_a,
        t: t * lambda_b,
        point_a: core::array::from_fn(|i| fma(s, d_a[i], a0[i])),
        point_b: core::array::from_fn(|i| fma(t, d_b[i], b0[i])),
        dist2,
        flags,
    })
}

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

/// `x > y ? x : y`, the x86 `maxps` rule the kernel's `fast_max` follows (never sees NaN
/// here: non-finite pairs have returned already).
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
fn sub<F: Real>(u: [F; 3], v: [F; 3]) -> [F; 3] {
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
