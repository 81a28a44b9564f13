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

pub use crate::real::FUSED_MUL_ADD;

use crate::batch::Record;
use crate::motion::{Contact, Cpa, Motion, MotionElement, SweptContact, Window};
use crate::pairs::CapsuleContact;
use crate::pairs::Element;
use crate::planar::types::Intersection2;
use crate::scalar::Ends;
use crate::segment::{Closest, Options};
use crate::sets::{FirstHit, SetElement};

/// Closest points of two segments (both sides [`Extent::Segment`](crate::Extent)) with the
/// default scale-free tolerance, in the precision of the segments ([`Segment`](crate::Segment) or
/// [`Segment64`](crate::Segment64): in `f64` the default tolerance is `2·f64::EPSILON`, the same ulps).
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
///
/// // The same 6.4e6 m from the origin (ECEF-sized coordinates), in f64.
/// use segbatch::Segment64;
/// let o = 6.4e6;
/// let a = Segment64::new([o, 0.0, 0.0], [o + 1.0, 0.0, 0.0]);
/// let b = Segment64::new([o + 1.0, 0.0, 1.0], [o + 1.0, 1.0, 1.0]);
/// let c = reference::closest_points(&a, &b);
/// assert_eq!((c.s, c.t), (1.0, 0.0));
/// assert_eq!(c.distance(), 1.0);
/// ```
#[must_use]
pub fn closest_points<T, E>(a: &T, b: &T) -> Closest<E>
where
    T: Record<6, E> + Into<[[E; 3]; 2]>,
    E: Element<Segment = T>,
{
    closest_points_with(a, b, &Options::SEGMENTS)
}

/// Closest points of two sides, each a segment, ray or line as `options` says, with the
/// tolerance of `options`, in the precision of the segments (in `f64` the default
/// tolerance is taken as `2·f64::EPSILON`; any other [`Tolerance`](crate::Tolerance) as
/// given).
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
pub fn closest_points_with<T, E>(a: &T, b: &T, options: &Options) -> Closest<E>
where
    T: Record<6, E> + Into<[[E; 3]; 2]>,
    E: Element<Segment = T>,
{
    crate::scalar::closest_pair(&Ends::of(*a), &Ends::of(*b), &E::params(options))
}

// ---------------------------------------------------------------------------------------
// The other queries' references. Each is written beside its 8-lane twin, in the query's own
// file (same variable names, same operation order); these are their public entry points.

/// Closest point of approach of two moving objects over `window` (scalar reference), in
/// the precision of the records: tracks ([`Track`](crate::motion::Track),
/// [`Track64`](crate::motion::Track64)) or steps from `p0` at `t = 0` to `p1` at `t = 1`
/// ([`Segment`](crate::Segment), [`Segment64`](crate::Segment64); see
/// [`Motion`]). In `f64` "same velocity" is `|dv| <= 2·f64::EPSILON`
/// times the larger speed, the same ulps.
///
/// Never panics; a NaN or infinite input gives [`Cpa::NON_FINITE`](crate::motion::Cpa::NON_FINITE).
///
/// ```
/// use segbatch::motion::{Track, Track64, Window, Window64};
/// use segbatch::reference::cpa;
/// use segbatch::{Segment, Segment64};
/// // Head-on along x, 1 apart in y: closest at t = 0.5.
/// let a = Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Track::new([2.0, 1.0, 0.0], [-2.0, 0.0, 0.0]);
/// let c = cpa(&a, &b, Window::STEP);
/// assert_eq!((c.t, c.dist2), (0.5, 1.0));
/// assert_eq!(c.point_a, [1.0, 0.0, 0.0]);
/// // The same 1e9 from the origin, in f64.
/// let o = 1.0e9;
/// let a = Track64::new([o, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Track64::new([o + 2.0, 1.0, 0.0], [-2.0, 0.0, 0.0]);
/// let c = cpa(&a, &b, Window64::STEP);
/// assert_eq!((c.t, c.dist2), (0.5, 1.0));
/// assert_eq!(c.point_a, [o + 1.0, 0.0, 0.0]);
/// // Steps whose paths cross at (1, 0, 0), but A is there at t = 0.5 and B at t = 1.
/// let a = Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Segment::new([1.0, -2.0, 0.0], [1.0, 0.0, 0.0]);
/// let c = cpa(&a, &b, Window::STEP);
/// assert_eq!((c.t, c.dist2), (0.75, 0.5)); // closest at t = 0.75, still 0.707 apart
/// // Steps in f64, 6378 km from the origin.
/// let o = 6_378_137.0;
/// let a = Segment64::new([o, 0.0, 0.0], [o + 2.0, 0.0, 0.0]);
/// let b = Segment64::new([o + 1.0, -2.0, 0.0], [o + 1.0, 0.0, 0.0]);
/// let c = cpa(&a, &b, Window64::STEP);
/// assert_eq!((c.t, c.dist2), (0.75, 0.5));
/// ```
#[must_use]
pub fn cpa<M: Motion>(a: &M, b: &M, window: Window<M::Elem>) -> Cpa<M::Elem> {
    let ([p, u], [q, v]) = ((*a).into(), (*b).into());
    if M::ENDPOINTS {
        crate::motion::cpa_pair::<_, true>(p, u, q, v, window.end())
    } else {
        crate::motion::cpa_pair::<_, false>(p, u, q, v, window.end())
    }
}

/// First contact, within `window`, of a sphere of radius `radius_a` moving along `a` and
/// one of radius `radius_b` moving along `b` (scalar reference), in the precision of the
/// records: tracks ([`Track`](crate::motion::Track), [`Track64`](crate::motion::Track64))
/// or steps from `p0` at `t = 0` to `p1` at `t = 1` ([`Segment`](crate::Segment),
/// [`Segment64`](crate::Segment64); see [`Motion`]). Radii are
/// expected to be non-negative; contact is at distance `radius_a + radius_b`.
///
/// Never panics; a NaN or infinite input gives [`Contact::NON_FINITE`](crate::motion::Contact::NON_FINITE).
///
/// ```
/// use segbatch::motion::{Track, Track64, Window, Window64};
/// use segbatch::reference::first_contact;
/// use segbatch::{Segment, Segment64};
/// // Closing at 4 units per step from 4 apart, radii 0.5 + 0.5: contact at t = 0.75.
/// let a = Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Track::new([4.0, 0.0, 0.0], [-2.0, 0.0, 0.0]);
/// let c = first_contact(&a, 0.5, &b, 0.5, Window::STEP);
/// assert!(c.hit);
/// assert_eq!(c.t, 0.75);
/// // The same 1e9 from the origin, in f64.
/// let o = 1.0e9;
/// let a = Track64::new([o, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Track64::new([o + 4.0, 0.0, 0.0], [-2.0, 0.0, 0.0]);
/// let c = first_contact(&a, 0.5, &b, 0.5, Window64::STEP);
/// assert!(c.hit && c.t == 0.75);
/// // Steps whose paths cross at right angles, but B arrives after A has gone: no contact.
/// let a = Segment::new([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let b = Segment::new([0.0, -3.0, 0.0], [0.0, -1.0, 0.0]);
/// assert!(!first_contact(&a, 0.25, &b, 0.25, Window::STEP).hit);
/// // Head-on steps 6.4e6 m from the origin, in f64, 2 m apart at the start, radii 0.25:
/// // contact at 0.375.
/// let o = 6.4e6;
/// let a = Segment64::new([o, 0.0, 0.0], [o + 2.0, 0.0, 0.0]);
/// let b = Segment64::new([o + 2.0, 0.0, 0.0], [o, 0.0, 0.0]);
/// let c = first_contact(&a, 0.25, &b, 0.25, Window64::STEP);
/// assert!(c.hit && c.t == 0.375);
/// ```
#[must_use]
pub fn first_contact<M: Motion>(
    a: &M,
    radius_a: M::Elem,
    b: &M,
    radius_b: M::Elem,
    window: Window<M::Elem>,
) -> Contact<M::Elem> {
    let ([p, u], [q, v]) = ((*a).into(), (*b).into());
    let r = radius_a + radius_b;
    if M::ENDPOINTS {
        crate::motion::contact_pair::<_, true>(p, u, q, v, r, window.end())
    } else {
        crate::motion::contact_pair::<_, false>(p, u, q, v, r, window.end())
    }
}

/// First contact during one step of capsules `(a, radius_a)` and `(b, radius_b)` whose core
/// end points move linearly from `a.start` to `a.end` and from `b.start` to `b.end` (scalar
/// reference of [`first_contact_capsules`](crate::motion::first_contact_capsules)), in the
/// precision of the sweeps ([`Sweep`](crate::motion::Sweep) or [`Sweep64`](crate::motion::Sweep64)): the conservative advancement
/// documented there and in `docs/motion.md`. The reported `t` is never after the first
/// contact; the gap there is within `rA + rB` times
/// [`SWEPT_TOLERANCE_REL`](crate::motion::SWEPT_TOLERANCE_REL) plus `32·ε` of the largest
/// coordinate.
///
/// Never panics; a NaN or infinite coordinate (or a NaN radius) gives no hit, `t` NaN and
/// [`MotionFlags::NON_FINITE`](crate::motion::MotionFlags::NON_FINITE).
///
/// ```
/// use segbatch::motion::Sweep;
/// use segbatch::reference::first_contact_capsules;
/// use segbatch::Segment;
/// // A sword (radius 0.05) swinging a quarter turn about the origin through a rope at x = y.
/// let sword = Sweep::new(
///     Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]),
///     Segment::new([0.0, 0.0, 0.0], [0.0, 2.0, 0.0]),
/// );
/// let rope = Sweep::fixed(Segment::new([1.0, 1.0, -1.0], [1.0, 1.0, 1.0]));
/// let c = first_contact_capsules(&sword, 0.05, &rope, 0.05);
/// assert!(c.hit && c.t > 0.0 && c.t < 0.5);
/// // The ends alone (t = 0 and t = 1) do not touch it.
/// assert!(!first_contact_capsules(&Sweep::fixed(sword.start), 0.05, &rope, 0.05).hit);
/// assert!(!first_contact_capsules(&Sweep::fixed(sword.end), 0.05, &rope, 0.05).hit);
/// ```
///
/// In `f64`: head-on along x, 1e9 from the origin, the cores' facing ends closing 4 units
/// a step from 2 apart, radii 0.25 each: contact at `t = 0.375` (within the tolerance).
///
/// ```
/// use segbatch::motion::Sweep64;
/// use segbatch::reference::first_contact_capsules;
/// use segbatch::Segment64;
/// let o = 1.0e9;
/// let a = Sweep64::new(
///     Segment64::new([o - 1.0, 0.0, 0.0], [o, 0.0, 0.0]),
///     Segment64::new([o + 1.0, 0.0, 0.0], [o + 2.0, 0.0, 0.0]),
/// );
/// let b = Sweep64::new(
///     Segment64::new([o + 2.0, 0.0, 0.0], [o + 3.0, 0.0, 0.0]),
///     Segment64::new([o, 0.0, 0.0], [o + 1.0, 0.0, 0.0]),
/// );
/// let c = first_contact_capsules(&a, 0.25, &b, 0.25);
/// assert!(c.hit && (c.t - 0.375).abs() < 1e-3 && c.t <= 0.375);
/// assert_eq!(c.normal, [-1.0, 0.0, 0.0]);
/// ```
#[must_use]
pub fn first_contact_capsules<T, E>(a: &T, radius_a: E, b: &T, radius_b: E) -> SweptContact<E>
where
    T: Record<12, E> + Into<[[E; 3]; 4]>,
    E: MotionElement<Sweep = T>,
{
    crate::motion::swept_pair((*a).into(), (*b).into(), radius_a, radius_b)
}

/// Intersection of two 2D segments, or their closest points (scalar reference), in the
/// precision of the segments ([`Segment2`](crate::planar::Segment2) or
/// [`Segment2_64`](crate::planar::Segment2_64): one body, tolerances of the
/// precision's epsilon, the meeting decided exactly on the given end points). The reference
/// of [`intersect2`](crate::planar::intersect2) and of the crossing sets
/// ([`crossing_pairs`](crate::planar::crossing_pairs)).
///
/// Never panics; a NaN or infinite input gives
/// [`Intersection2::NON_FINITE`](crate::planar::Intersection2::NON_FINITE).
///
/// ```
/// use segbatch::planar::{Crossing, Segment2};
/// use segbatch::reference::intersect2;
/// // The tutorial's example: P1 = (4,7), v1 = (12,-4); P2 = (1,1), v2 = (16,4).
/// let a = Segment2::new([4.0, 7.0], [16.0, 3.0]);
/// let b = Segment2::new([1.0, 1.0], [17.0, 5.0]);
/// let x = intersect2(&a, &b);
/// assert_eq!(x.kind, Crossing::Point);
/// assert_eq!((x.s, x.t), (0.75, 0.75));
/// assert_eq!(x.point_a, [13.0, 4.0]);
///
/// // Two streets in UTM metres, in f64, that miss each other by 1 mm.
/// use segbatch::planar::Segment2_64;
/// let a = Segment2_64::new([500_000.0, 5_000_000.0], [500_010.0, 5_000_000.0]);
/// let b = Segment2_64::new([500_005.0, 5_000_000.001], [500_005.0, 5_000_010.0]);
/// let x = intersect2(&a, &b);
/// assert_eq!(x.kind, Crossing::Disjoint);
/// assert!((x.dist2.sqrt() - 0.001).abs() < 1e-9);
/// ```
#[must_use]
pub fn intersect2<T, E>(a: &T, b: &T) -> Intersection2<E>
where
    T: Record<4, E>,
    E: crate::planar::Element<Segment = T>,
{
    crate::planar::kernel::intersect2_pair(a, b)
}

/// The first hit of a thick ray on one segment: `None` unless a sphere of `radius` whose
/// centre moves along `ray` (`P0 + u·(P1 - P0)`, `u` from 0 to `range`) touches `wall`;
/// else the first `u`, and the contact point on `wall` (`index` is 0), every quantity in
/// `f64` and rounded to the segments' precision ([`Segment`](crate::Segment) or
/// [`Segment64`](crate::Segment64)); the contact
/// tolerance of a zero radius is `4·ε·S` with `ε` that precision's. The scalar twin of
/// [`SegmentIndex::first_hits`](crate::SegmentIndex::first_hits), which gives for each ray
/// the least `(u, index)` of this over the indexed set.
///
/// ```
/// use segbatch::{reference, Segment, Segment64};
/// let ray = Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let wall = Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]);
/// let hit = reference::first_hit(&ray, 0.5, 10.0, &wall).unwrap();
/// assert_eq!((hit.u, hit.point), (4.5, [5.0, 0.0, 0.0]));
/// assert_eq!(reference::first_hit(&ray, 0.5, 4.0, &wall), None); // out of range
/// // In f64, 5e6 from the origin.
/// let o = 5.0e6;
/// let ray = Segment64::new([o, 0.0, 0.0], [o + 1.0, 0.0, 0.0]);
/// let wall = Segment64::new([o + 5.0, -1.0, 0.0], [o + 5.0, 1.0, 0.0]);
/// let hit = reference::first_hit(&ray, 0.5, 10.0, &wall).unwrap();
/// assert_eq!((hit.u, hit.point), (4.5, [o + 5.0, 0.0, 0.0]));
/// ```
#[must_use]
pub fn first_hit<T, E>(ray: &T, radius: E, range: E, wall: &T) -> Option<FirstHit<E>>
where
    T: Record<6, E>,
    E: SetElement<Segment = T>,
{
    crate::sets::first_hit_pair(ray, radius, range, wall)
}

/// The contacts of capsules `(a, radius_a)` and `(b, radius_b)`: none when they do not
/// touch (the squared distance of [`closest_points`] above `(radius_a + radius_b)²`), two
/// for (near-)parallel overlapping cores, one otherwise, by the rule documented on
/// [`CapsuleContact`] (`pair`, `i` and `j` are 0), every step in the precision of the
/// segments. The scalar twin of [`capsule_contacts`](crate::pairs::capsule_contacts), which
/// gives these contacts bit for bit.
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
///
/// // The same in f64, 1e9 from the origin.
/// use segbatch::Segment64;
/// let o = 1.0e9;
/// let a = Segment64::new([o, 0.75, 0.0], [o + 2.0, 0.75, 0.0]);
/// let b = Segment64::new([o + 1.0, 0.0, 0.0], [o + 3.0, 0.0, 0.0]);
/// let [p, q] = reference::capsule_contact(&a, 0.5, &b, 0.5);
/// let (p, q) = (p.unwrap(), q.unwrap());
/// assert_eq!((p.normal, q.normal), ([0.0, 1.0, 0.0], [0.0, 1.0, 0.0]));
/// assert_eq!((p.point_a, q.point_a), ([o + 1.0, 0.25, 0.0], [o + 2.0, 0.25, 0.0]));
/// assert_eq!((p.depth, q.depth), (0.25, 0.25));
/// ```
#[must_use]
pub fn capsule_contact<T, E>(
    a: &T,
    radius_a: E,
    b: &T,
    radius_b: E,
) -> [Option<CapsuleContact<E>>; 2]
where
    T: Record<6, E> + Into<[[E; 3]; 2]>,
    E: Element<Segment = T>,
{
    let c = closest_points(a, b);
    crate::pairs::manifold(
        (0, 0, 0),
        (a, radius_a),
        (b, radius_b),
        (c.point_a, c.point_b, c.dist2, c.s, c.t),
    )
}
