//! A reusable index over a static set (walls, level geometry): built once, queried many
//! times, for the pairs within a radius of query segments and for the **first hit** of
//! thick rays.
//!
//! The semantics of a first hit are documented on [`SegmentIndex`]. Two structures serve
//! the two queries: the grid of [`crate::prune`] over the members' bounding spheres for
//! the pairs within a radius (the same grid the set queries prune with, so the lists agree
//! bit for bit), and the eight-wide tree of [`super::bvh8`] for first hits, a
//! nearest-first search whose cost follows the walls around a ray's path rather than the
//! cells it crosses (its module docs say why). A set whose extent is
//! too large for the grid's cell keys (walls spanning `±f32::MAX`) is indexed without the
//! grid: its pair queries compare every query with every member.
//!
//! # Scale of a first hit
//!
//! Every quantity of a first hit is computed in `f64` from the `f32` inputs, and the one
//! tolerance (the contact radius of a zero radius) takes its scale from the pair itself,
//! the ray's origin and the member, never from how far the ray may travel: a range of
//! `1e30` or `+∞` decides the same hits as a range just past the first one. In `f64` the
//! squares of any `f32` distance and radius (up to `f32::MAX`) are exact enough and never
//! overflow.
//!
//! # Both precisions, one decision
//!
//! [`SegmentIndex64`](super::SegmentIndex64) indexes `f64` members (world coordinates).
//! The decision of a pair takes the ray as an `f64` origin and direction and the member
//! widened to `f64` (exactly, for `f32`), so both indexes run the same routine, the same
//! driver and the same tree (generic over the member type); they differ only in the
//! tolerance's `ε` and in rounding the hit to the member's precision. A ray is a segment
//! (`P1 - P0` its direction, exact in `f64` for `f32` end points) or an origin and a
//! direction ([`Rays::Along`]), which keeps a direction's bits when the origin is far
//! from the coordinates' zero.

use super::bvh8::{Bvh8, Member};
use super::hits::{Hit, within_wide};
use super::radius::{PairRadius, Radius};
use crate::batch::{Error, Record, Segments, SegmentsView, Soa, SoaView, check_len, check_u32};
use crate::pairs::{ClosestBatch, Outputs, closest_points_indexed_into};
use crate::prune::{Grid, Layout, rows_to_batch, sphere};
use crate::segment::{Flags, Options, Segment, Segment64};

/// The first member a thick ray touches ([`SegmentIndex::first_hits`]; in `f64`,
/// [`FirstHit64`] of [`SegmentIndex64::first_hits`](super::SegmentIndex64::first_hits)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstHit<R = f32> {
    /// Index of the member in the indexed set.
    pub index: u32,
    /// Parameter along the ray where the sphere first touches it: the sphere's centre is
    /// then `P0 + u·(P1 - P0)` (`origin + u·direction` for [`Rays::Along`]).
    pub u: R,
    /// The contact point on the member (its point closest to that centre).
    pub point: [R; 3],
}

/// [`FirstHit`] in `f64`: the hits of
/// [`SegmentIndex64::first_hits`](super::SegmentIndex64::first_hits).
pub type FirstHit64 = FirstHit<f64>;

/// One value for every ray, or one per ray: the radius and the range of
/// [`SegmentIndex::first_hits`] (`f32`) and of
/// [`SegmentIndex64::first_hits`](super::SegmentIndex64::first_hits) ([`PerRay64`]).
///
/// Converts from an `f32` or `f64` (every ray) and from a slice or vector with one value
/// per ray.
///
/// ```
/// use segbatch::sets::PerRay;
/// let radii = [0.5f32, 0.25];
/// assert_eq!(PerRay::from(0.5f32).get(7), 0.5);
/// assert_eq!(PerRay::from(&radii[..]).get(1), 0.25);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PerRay<'a, R = f32> {
    /// The same value for every ray.
    One(R),
    /// Value `k` for ray `k`.
    Each(&'a [R]),
}

/// [`PerRay`] in `f64`.
pub type PerRay64<'a> = PerRay<'a, f64>;

impl<R: Copy> PerRay<'_, R> {
    /// The value of ray `k`.
    ///
    /// # Panics
    /// For `Each` with `k` past the end of the slice.
    #[must_use]
    pub fn get(&self, k: usize) -> R {
        match self {
            PerRay::One(x) => *x,
            PerRay::Each(xs) => xs[k],
        }
    }
}

impl<R: Copy + Into<f64>> PerRay<'_, R> {
    /// `Ok` when the list has one value per ray (`rays` of them) and every value is zero,
    /// positive or `+∞`, else the error `invalid` makes of the first failing position
    /// (`None` for a single value).
    fn check(
        &self,
        what: &'static str,
        rays: usize,
        invalid: impl Fn(Option<usize>) -> Error,
    ) -> Result<(), Error> {
        let valid = |x: R| x.into() >= 0.0;
        match self {
            PerRay::One(x) => {
                if valid(*x) {
                    Ok(())
                } else {
                    Err(invalid(None))
                }
            }
            PerRay::Each(xs) => {
                check_len(what, rays, xs.len())?;
                match xs.iter().position(|&x| !valid(x)) {
                    Some(i) => Err(invalid(Some(i))),
                    None => Ok(()),
                }
            }
        }
    }
}

macro_rules! per_ray_from {
    ($($r:ty),*) => {$(
        impl From<$r> for PerRay<'_, $r> {
            fn from(x: $r) -> Self {
                PerRay::One(x)
            }
        }

        impl<'a> From<&'a [$r]> for PerRay<'a, $r> {
            fn from(xs: &'a [$r]) -> Self {
                PerRay::Each(xs)
            }
        }

        impl<'a> From<&'a Vec<$r>> for PerRay<'a, $r> {
            fn from(xs: &'a Vec<$r>) -> Self {
                PerRay::Each(xs)
            }
        }

        impl<'a, const N: usize> From<&'a [$r; N]> for PerRay<'a, $r> {
            fn from(xs: &'a [$r; N]) -> Self {
                PerRay::Each(xs)
            }
        }
    )*};
}

per_ray_from!(f32, f64);

/// The rays of a first-hit query: segments, or origins and directions.
///
/// A ray from `P0` to `P1` has the direction `P1 - P0`, and its range and hits count in
/// units of that direction's length. Formed from an origin far from the coordinates' zero
/// (`P1 = O + D·range`, 10 km out in `f32`), that difference keeps only the bits of `D` the
/// origin's ulp leaves (a direction off by `1e-3` rad): [`Rays::Along`] takes the direction
/// as given, and [`SegmentIndex64`](super::SegmentIndex64) both in `f64`.
///
/// Converts from a batch or a view of segments ([`Segments`], [`Segments64`](crate::Segments64)).
///
/// ```
/// use segbatch::sets::Rays;
/// use segbatch::{Segment, SegmentIndex, Segments};
/// let walls = Segments::from(&[Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0])]);
/// let index = SegmentIndex::new(&walls)?;
/// // From an origin along a direction of any length: u counts in units of it.
/// let (origins, directions) = ([[0.0f32, 0.0, 0.0]], [[2.0f32, 0.0, 0.0]]);
/// let rays = Rays::Along { origins: &origins, directions: &directions };
/// let hit = index.first_hits(rays, 0.5, 10.0)?[0].unwrap();
/// assert_eq!((hit.index, hit.u, hit.point), (0, 2.25, [5.0, 0.0, 0.0]));
/// # Ok::<(), segbatch::Error>(())
/// ```
#[derive(Clone, Copy)]
pub enum Rays<'a, T = Segment, E = f32> {
    /// Ray `k` from `P0` along `P1 - P0`.
    Segments(SoaView<'a, T, 6, E>),
    /// Ray `k` from `origins[k]` along `directions[k]` (not necessarily unit; one direction
    /// an origin).
    Along {
        /// The rays' origins.
        origins: &'a [[E; 3]],
        /// Their directions.
        directions: &'a [[E; 3]],
    },
}

/// [`Rays`] in `f64`: the rays of [`SegmentIndex64`](super::SegmentIndex64).
pub type Rays64<'a> = Rays<'a, Segment64, f64>;

impl<'a, T, E> From<SoaView<'a, T, 6, E>> for Rays<'a, T, E> {
    fn from(view: SoaView<'a, T, 6, E>) -> Self {
        Rays::Segments(view)
    }
}

impl<'a, T: Record<6, E>, E: crate::columns::Cell + bytemuck::Pod> From<&'a Soa<T, 6, E>>
    for Rays<'a, T, E>
{
    fn from(batch: &'a Soa<T, 6, E>) -> Self {
        Rays::Segments(batch.into())
    }
}

/// What the driver reads of [`Rays`]: each ray as an `f64` origin and direction.
trait RaySource {
    /// Number of rays.
    fn len(&self) -> usize;
    /// `Ok` with one direction an origin.
    fn check(&self) -> Result<(), Error>;
    /// Ray `i`'s origin and direction in `f64`.
    fn at(&self, i: usize) -> ([f64; 3], [f64; 3]);
    /// Ray `i`'s origin in `f64` (the first of [`RaySource::at`], without reading the
    /// direction).
    fn origin(&self, i: usize) -> [f64; 3];
}

impl<T: Record<6, E> + Member, E: bytemuck::Pod + Into<f64>> RaySource for Rays<'_, T, E> {
    fn len(&self) -> usize {
        match self {
            Rays::Segments(v) => v.len(),
            Rays::Along { origins, .. } => origins.len(),
        }
    }

    fn check(&self) -> Result<(), Error> {
        match self {
            Rays::Segments(_) => Ok(()),
            Rays::Along {
                origins,
                directions,
            } => check_len("directions of the rays", origins.len(), directions.len()),
        }
    }

    #[inline]
    fn at(&self, i: usize) -> ([f64; 3], [f64; 3]) {
        match self {
            Rays::Segments(v) => segment_ray(&v.at(i).wide()),
            Rays::Along {
                origins,
                directions,
            } => (origins[i].map(Into::into), directions[i].map(Into::into)),
        }
    }

    #[inline]
    fn origin(&self, i: usize) -> [f64; 3] {
        match self {
            // A segment's columns are `P0`'s coordinates, then `P1`'s.
            Rays::Segments(v) => {
                let cols = v.columns();
                core::array::from_fn(|c| cols[c][i].into())
            }
            Rays::Along { origins, .. } => origins[i].map(Into::into),
        }
    }
}

/// The origin `P0` and direction `P1 - P0` of a segment's ray (exact for widened `f32`).
fn segment_ray(ray: &Segment64) -> ([f64; 3], [f64; 3]) {
    (ray.p0, sub64(ray.p1, ray.p0))
}

fn sub64(p: [f64; 3], q: [f64; 3]) -> [f64; 3] {
    [p[0] - q[0], p[1] - q[1], p[2] - q[2]]
}

fn dot64(p: [f64; 3], q: [f64; 3]) -> f64 {
    p[0] * q[0] + p[1] * q[1] + p[2] * q[2]
}

/// The largest coordinate magnitude of `p`.
fn magnitude(p: &[f64; 3]) -> f64 {
    p.iter().fold(0.0f64, |m, x| m.max(x.abs()))
}

/// The contact radius of a ray and a member: `max(radius, tolerance·S)`, `S` the largest
/// coordinate magnitude of the ray's origin (`origin_scale`, its [`magnitude`]) and the
/// member's end points.
fn contact_radius(radius: f64, origin_scale: f64, wall: &Segment64, tolerance: f64) -> f64 {
    let s = origin_scale
        .max(magnitude(&wall.p0))
        .max(magnitude(&wall.p1));
    radius.max(tolerance * s)
}

/// The smaller root of `A·u² + 2B·u + C = 0` (the entry of a convex quadratic into its
/// sub-zero set), in the cancellation-free form; `None` without real roots or `A = 0`.
fn entry_root(a: f64, b: f64, c: f64) -> Option<f64> {
    let disc = b * b - a * c;
    // NaN fails both tests.
    (a > 0.0 && disc >= 0.0).then(|| {
        let q = -b - disc.sqrt().copysign(b);
        // Roots q / a and c / q; the smaller one.
        let (r1, r2) = (q / a, c / q);
        if r2.is_nan() { r1 } else { r1.min(r2) }
    })
}

/// The first `u` in `[0, range]` at which the sphere of radius `r` centred on the ray from
/// `o` along `d` touches `wall` (see [`SegmentIndex`]), and the contact point, all in
/// `f64`: both precisions' one decision.
fn first_contact(
    o: [f64; 3],
    d: [f64; 3],
    r: f64,
    range: f64,
    wall: &Segment64,
) -> Option<(f64, [f64; 3])> {
    let (w0, w1) = (wall.p0, wall.p1);
    let w = sub64(w1, w0);
    let r2 = r * r;
    let ww = dot64(w, w);
    // Distance² from a point to the wall, with the wall's point closest to it.
    let to_wall = |x: [f64; 3]| {
        let t = if ww > 0.0 {
            (dot64(sub64(x, w0), w) / ww).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let p = [w0[0] + t * w[0], w0[1] + t * w[1], w0[2] + t * w[2]];
        let e = sub64(x, p);
        (dot64(e, e), p)
    };
    let mut best: Option<f64> = None;
    if to_wall(o).0 <= r2 {
        best = Some(0.0);
    } else {
        let within = |u: f64| (0.0..=range).contains(&u);
        if ww > 0.0 {
            // The cylinder: components perpendicular to the wall. The capsule lies inside
            // it, so where the ray enters it over the member (the projection inside), it
            // enters the capsule: the end spheres, inside the cylinder too, are entered no
            // earlier.
            let perp = |x: [f64; 3]| {
                let k = dot64(x, w) / ww;
                [x[0] - k * w[0], x[1] - k * w[1], x[2] - k * w[2]]
            };
            let (q, v) = (perp(sub64(o, w0)), perp(d));
            if let Some(u) = entry_root(dot64(v, v), dot64(q, v), dot64(q, q) - r2) {
                let c = [o[0] + u * d[0], o[1] + u * d[1], o[2] + u * d[2]];
                let t = dot64(sub64(c, w0), w) / ww;
                if within(u) && (0.0..=1.0).contains(&t) {
                    best = Some(u);
                }
            }
        }
        if best.is_none() {
            let dd = dot64(d, d);
            for p in [w0, w1] {
                let q = sub64(o, p);
                if let Some(u) = entry_root(dd, dot64(d, q), dot64(q, q) - r2)
                    && within(u)
                    && best.is_none_or(|b| u < b)
                {
                    best = Some(u);
                }
            }
        }
    }
    let u = best?;
    let c = [o[0] + u * d[0], o[1] + u * d[1], o[2] + u * d[2]];
    Some((u, to_wall(c).1))
}

/// The better of two hits: the smaller `u`, then the lower index.
fn better<R: PartialOrd>(a: Option<FirstHit<R>>, b: FirstHit<R>) -> Option<FirstHit<R>> {
    match a {
        Some(a) if (&a.u, a.index) <= (&b.u, b.index) => Some(a),
        _ => Some(b),
    }
}

fn finite(p: &[f64; 3]) -> bool {
    p.iter().all(|x| x.is_finite())
}

/// A static set (walls, level geometry) ready for repeated queries: the pairs within a
/// radius of query segments, and the first hits of thick rays.
///
/// # First hit of a thick ray
///
/// A sight ray with the agent's radius `r` and a maximum range sweeps a sphere: its centre
/// runs along `c(u) = P0 + u·(P1 - P0)` for `u` in `[0, range]` (`range` in units of the
/// direction's length: with unit directions, a distance; `+∞` for a ray without end). The
/// first hit is the smallest `u` at which the sphere touches a member of the set (its
/// distance to the segment is at most `r`), the member touched (the lowest index among
/// equals), and the contact point on it (the point of the member closest to `c(u)`).
/// Contact is taken within `max(r, 4·ε·S)`, `S` the largest coordinate magnitude of the
/// ray's origin and the member (the touching tolerance of
/// [`intersect2`](crate::planar::intersect2)), so a ray of radius zero gives the first crossing of
/// the members in its plane despite rounding. The tolerance depends on the pair alone:
/// the range only bounds `u`.
///
/// Each pair is decided in `f64` from the `f32` coordinates: `u = 0` when the sphere
/// starts in contact, else the smallest root in `[0, range]` of `|c(u) - X|² = r²` over
/// the member's two end points and its cylinder (where the projection falls inside the
/// member). The distance along the ray is convex, so the first contact is where the ray
/// enters the capsule around the member: one of those roots. The capsule and its end
/// spheres lie inside the infinite cylinder, so a cylinder root within range whose
/// projection falls inside the member is that entry, and the end points' roots are
/// computed only without one. A ray or member with a NaN or infinite coordinate touches
/// nothing.
///
/// [`reference::first_hit`](crate::reference::first_hit) is that decision for one ray and
/// one member; [`SegmentIndex::first_hits`] returns, for every ray, the minimum over the
/// set of what it gives, bit for bit, with `(u, index)` ordering ties.
///
/// # Example
///
/// ```
/// use segbatch::{Segment, SegmentIndex, Segments};
/// let walls = Segments::from(&[
///     Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]),
///     Segment::new([3.0, 2.0, 0.0], [3.0, 4.0, 0.0]),
/// ]);
/// let index = SegmentIndex::new(&walls)?;
/// // A sight ray along +x from the origin, radius 0.5, range 10: the sphere touches the
/// // first wall when its centre reaches x = 4.5.
/// let rays = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
/// let hits = index.first_hits(&rays, 0.5, 10.0)?;
/// let hit = hits[0].unwrap();
/// assert_eq!((hit.index, hit.u, hit.point), (0, 4.5, [5.0, 0.0, 0.0]));
/// // Per-ray radii and ranges, into a reused output; a range of +∞ is a ray without end.
/// let mut out = Vec::new();
/// index.first_hits_into(&rays, &[0.0][..], f32::INFINITY, &mut out)?;
/// // A zero radius touches within the contact tolerance 4·ε·S of the crossing (S = 5).
/// let u = out[0].map(|h| h.u).unwrap();
/// assert!(u <= 5.0 && 5.0 - u <= 4.0 * f32::EPSILON * 5.0);
/// # Ok::<(), segbatch::Error>(())
/// ```
pub struct SegmentIndex {
    /// The grid of the pair queries, `None` when the set's extent is too large for it.
    grid: Option<Grid<3>>,
    /// The set in the grid's order (by position; the set's order without a grid): the
    /// queries read their lanes near where the grid read the spheres.
    sorted: Segments,
    /// The tree of the first hits.
    bvh: Bvh8<Segment>,
}

impl SegmentIndex {
    /// Builds the index over `set`, which it copies twice in its own orders (24 bytes a
    /// segment each, beside the grid's 20 and the tree's nodes, about 32): results name
    /// members by their index in `set`. Never panics: members with a NaN or infinite
    /// coordinate are kept (they touch nothing), and a set too large in extent for the
    /// grid is indexed without it.
    ///
    /// # Errors
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments.
    pub fn new<'a>(set: impl Into<SegmentsView<'a>>) -> Result<Self, Error> {
        Self::build(set.into(), false)
    }

    /// [`SegmentIndex::new`] with the sort of the cell keys and the subtrees of the tree's
    /// top levels on all cores (the same index).
    ///
    /// # Errors
    /// As [`SegmentIndex::new`].
    #[cfg(feature = "rayon")]
    pub fn par_new<'a>(set: impl Into<SegmentsView<'a>>) -> Result<Self, Error> {
        Self::build(set.into(), true)
    }

    /// Every form of the first hits in one body for this index's types: the public forms
    /// only convert their arguments, so the walk is compiled once, in this crate, not in
    /// each caller for each argument type.
    fn hits(
        &self,
        rays: Rays<'_>,
        radius: PerRay<'_>,
        range: PerRay<'_>,
        parallel: bool,
        out: &mut Vec<Option<FirstHit>>,
    ) -> Result<(), Error> {
        first_hits_run(&self.bvh, rays, radius, range, parallel, out)
    }

    fn build(set: SegmentsView<'_>, parallel: bool) -> Result<Self, Error> {
        check_u32(set.len())?;
        let bvh = Bvh8::build(set.len(), |i| set.at(i), parallel);
        let (grid, sorted) =
            match Grid::build(set.len(), |i| set.at(i), None, 0.0, Layout::Cubes, parallel) {
                Some((grid, rows)) => (Some(grid), rows_to_batch(&rows, parallel)),
                None => (None, set.iter().collect()),
            };
        Ok(SegmentIndex { grid, sorted, bvh })
    }

    /// Number of members.
    #[must_use]
    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    /// True for an index over an empty set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// For every ray of `rays` (segments: `P0` the origin, `P1 - P0` the direction; or
    /// [`Rays::Along`] an origin and a direction), the first member of the set that a
    /// sphere of `radius` moving along it from `u = 0` to `u = range` touches, or `None`
    /// (see [`SegmentIndex`] for what a hit is). `radius` and `range` are one value for
    /// every ray or one per ray ([`PerRay`]); a zero radius gives the exact first crossing,
    /// a range of `+∞` a ray without end.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN;
    /// [`Error::InvalidRange`] when a range is negative or NaN;
    /// [`Error::LengthMismatch`] when a per-ray list is not one value per ray, or
    /// [`Rays::Along`] not one direction an origin;
    /// [`Error::TooManyObjects`] for more than `u32::MAX` rays.
    pub fn first_hits<'r, 'p>(
        &self,
        rays: impl Into<Rays<'r>>,
        radius: impl Into<PerRay<'p>>,
        range: impl Into<PerRay<'p>>,
    ) -> Result<Vec<Option<FirstHit>>, Error> {
        let mut out = Vec::new();
        self.hits(rays.into(), radius.into(), range.into(), false, &mut out)?;
        Ok(out)
    }

    /// [`first_hits`](Self::first_hits) into `out` (cleared first, one entry per ray),
    /// reusing its allocation from frame to frame.
    ///
    /// # Errors
    /// As [`first_hits`](Self::first_hits); `out` is then empty.
    pub fn first_hits_into<'r, 'p>(
        &self,
        rays: impl Into<Rays<'r>>,
        radius: impl Into<PerRay<'p>>,
        range: impl Into<PerRay<'p>>,
        out: &mut Vec<Option<FirstHit>>,
    ) -> Result<(), Error> {
        self.hits(rays.into(), radius.into(), range.into(), false, out)
    }

    /// [`first_hits`](Self::first_hits) on all cores, bitwise the same results.
    ///
    /// # Errors
    /// As [`first_hits`](Self::first_hits).
    #[cfg(feature = "rayon")]
    pub fn par_first_hits<'r, 'p>(
        &self,
        rays: impl Into<Rays<'r>>,
        radius: impl Into<PerRay<'p>>,
        range: impl Into<PerRay<'p>>,
    ) -> Result<Vec<Option<FirstHit>>, Error> {
        let mut out = Vec::new();
        self.hits(rays.into(), radius.into(), range.into(), true, &mut out)?;
        Ok(out)
    }

    /// [`first_hits_into`](Self::first_hits_into) on all cores, bitwise the same results.
    ///
    /// # Errors
    /// As [`first_hits`](Self::first_hits); `out` is then empty.
    #[cfg(feature = "rayon")]
    pub fn par_first_hits_into<'r, 'p>(
        &self,
        rays: impl Into<Rays<'r>>,
        radius: impl Into<PerRay<'p>>,
        range: impl Into<PerRay<'p>>,
        out: &mut Vec<Option<FirstHit>>,
    ) -> Result<(), Error> {
        self.hits(rays.into(), radius.into(), range.into(), true, out)
    }

    /// Every pair of a query segment `queries[i]` and a member `set[j]` within `radius`,
    /// sorted by `(i, j)`: [`pairs_within`](crate::sets::pairs_within)`(queries, set, radius)`,
    /// bit for bit, without rebuilding the index.
    ///
    /// `radius` is one for every pair (an `f32`), one a query ([`Radius::Each`]: the
    /// members are bare segments, `distance <= radii[i]`) or one a query and one a member
    /// ([`Radius::Sides`]: `distance <= rq[i] + rm[j]`, `j` the member's index in the
    /// indexed set). The grid was built for bare segments; a query's sphere reaches its own
    /// radius plus the largest member radius, and the kernel decides each candidate once.
    ///
    /// ```
    /// use segbatch::{Segment, SegmentIndex, Segments};
    /// let walls = Segments::from(&[
    ///     Segment::new([0.0, 0.0, 0.0], [0.0, 4.0, 0.0]),
    ///     Segment::new([3.0, 0.0, 0.0], [3.0, 4.0, 0.0]),
    /// ]);
    /// let index = SegmentIndex::new(&walls)?;
    /// // Two agents at x = 1 with radii 0.5 and 1: only the second reaches the wall at 0.
    /// let agents = Segments::from(&[
    ///     Segment::new([1.0, 1.0, 0.0], [1.0, 1.0, 0.0]),
    ///     Segment::new([1.0, 3.0, 0.0], [1.0, 3.0, 0.0]),
    /// ]);
    /// let hits = index.pairs_within(&agents, &[0.5, 1.0])?;
    /// assert_eq!(hits.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), vec![(1, 0)]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN (with the first index in a
    /// list, the queries' first); [`Error::LengthMismatch`] when a list is not one radius a
    /// query (or a member); [`Error::TooManyObjects`] for more than `u32::MAX` queries.
    pub fn pairs_within<'q, 'r>(
        &self,
        queries: impl Into<SegmentsView<'q>>,
        radius: impl Into<Radius<'r>>,
    ) -> Result<Vec<Hit>, Error> {
        let mut out = Vec::new();
        self.within_run(queries.into(), radius.into(), false, &mut out)?;
        Ok(out)
    }

    /// [`pairs_within`](Self::pairs_within) on all cores, the same list.
    ///
    /// # Errors
    /// As [`pairs_within`](Self::pairs_within).
    #[cfg(feature = "rayon")]
    pub fn par_pairs_within<'q, 'r>(
        &self,
        queries: impl Into<SegmentsView<'q>>,
        radius: impl Into<Radius<'r>>,
    ) -> Result<Vec<Hit>, Error> {
        let mut out = Vec::new();
        self.within_run(queries.into(), radius.into(), true, &mut out)?;
        Ok(out)
    }

    fn within_run(
        &self,
        queries: SegmentsView<'_>,
        radius: Radius<'_>,
        parallel: bool,
        out: &mut Vec<Hit>,
    ) -> Result<(), Error> {
        out.clear();
        let radius = PairRadius::two_sets(radius, queries.len(), self.len())?;
        check_u32(queries.len())?;
        // The members' radii by position (the grid's order), when there are any.
        let ids = self.grid.as_ref().map(Grid::ids);
        let member_radii: Vec<f32> = match radius {
            PairRadius::Sum { b: Some(_), .. } => (0..self.len())
                .map(|p| radius.of_b(ids.map_or(p, |ids| ids[p] as usize)))
                .collect(),
            _ => Vec::new(),
        };
        // Without a grid, or with an infinite radius for every pair, every query meets
        // every member.
        let grid = match &self.grid {
            Some(grid) if radius.uniform().is_none_or(f32::is_finite) => grid,
            _ => {
                let by_position = match radius {
                    PairRadius::All(r) => Radius::All(r),
                    PairRadius::Sum { a, b } => {
                        let a = a.expect("the queries' radii");
                        match b {
                            Some(_) => Radius::Sides(a, &member_radii),
                            None => Radius::Each(a),
                        }
                    }
                };
                super::within::within_sets(
                    queries,
                    (&self.sorted).into(),
                    by_position,
                    &Options::SEGMENTS,
                    false,
                    out,
                )?;
                if let Some(ids) = ids {
                    for h in out.iter_mut() {
                        h.j = ids[h.j as usize];
                    }
                    out.sort_unstable_by_key(|h| (h.i, h.j));
                }
                return Ok(());
            }
        };
        let max_member = radius.max_b();
        let block = |first: usize, len: usize| -> Vec<Hit> {
            let mut candidates = Vec::new();
            for i in first..first + len {
                let q = queries.at(i);
                // With per-object radii the query's sphere reaches its own radius plus the
                // largest member's (the grid's spheres are the bare members').
                let reach = radius.reach(i, max_member);
                if let Some(ball) = sphere(q.p0, q.p1) {
                    grid.near_all(&ball, reach, |pos| candidates.push((i as u32, pos)));
                }
            }
            // Sorted by (i, j), j the member's id: the order of the brute-force list.
            let ids = grid.ids();
            candidates.sort_unstable_by_key(|&(i, pos)| (i, ids[pos as usize]));
            let mut closest = ClosestBatch::new();
            let outputs = Outputs {
                params: true,
                points: false,
                flags: true,
            };
            closest_points_indexed_into(
                queries,
                &self.sorted,
                &candidates,
                &Options::SEGMENTS,
                outputs,
                &mut closest,
            )
            .expect("candidates name queries and members");
            let (d, s, t, flags) = (closest.dist2(), closest.s(), closest.t(), closest.flags());
            // The set queries' rule: a squared distance that left f32's range is decided in
            // f64 (`within_radius`).
            let within = |c: usize| {
                let (i, pos) = candidates[c];
                let r = match radius {
                    PairRadius::All(r) => r,
                    PairRadius::Sum { .. } => {
                        radius.of_a(i as usize) + member_radii.get(pos as usize).map_or(0.0, |&m| m)
                    }
                };
                if flags[c].contains(Flags::DIST2_OUT_OF_RANGE) {
                    let member = self.sorted.get(pos as usize).expect("a member's position");
                    within_wide(&queries.at(i as usize), &member, s[c], t[c], r)
                } else {
                    d[c] <= r * r
                }
            };
            (0..candidates.len())
                .filter(|&c| within(c))
                .map(|c| Hit {
                    i: candidates[c].0,
                    j: ids[candidates[c].1 as usize],
                    dist2: d[c],
                    s: s[c],
                    t: t[c],
                })
                .collect()
        };
        in_blocks(queries.len(), parallel, block, out);
        Ok(())
    }
}

/// Rays per task of the parallel first hits.
const RAY_BLOCK: usize = 256;

/// The results of `n` queries in order, appended to `out`: `block(first, len)` gives those
/// of the queries `first..first + len`, for blocks of [`RAY_BLOCK`] (on all cores when
/// `parallel`: the same list).
pub(super) fn in_blocks<H: Send>(
    n: usize,
    parallel: bool,
    block: impl Fn(usize, usize) -> Vec<H> + Sync,
    out: &mut Vec<H>,
) {
    let starts: Vec<usize> = (0..n).step_by(RAY_BLOCK).collect();
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        let parts: Vec<Vec<H>> = starts
            .par_iter()
            .map(|&f| block(f, RAY_BLOCK.min(n - f)))
            .collect();
        out.extend(parts.into_iter().flatten());
        return;
    }
    let _ = parallel;
    for f in starts {
        out.extend(block(f, RAY_BLOCK.min(n - f)));
    }
}

/// The first hits of `rays` in `bvh`'s set, into `out`: the body of both indexes'
/// `first_hits` forms.
pub(super) fn first_hits_run<
    W: Member,
    T: Record<6, E> + Member,
    E: bytemuck::Pod + Into<f64> + Sync,
>(
    bvh: &Bvh8<W>,
    rays: Rays<'_, T, E>,
    radius: PerRay<'_, W::Real>,
    range: PerRay<'_, W::Real>,
    parallel: bool,
    out: &mut Vec<Option<FirstHit<W::Real>>>,
) -> Result<(), Error> {
    out.clear();
    rays.check()?;
    radius.check("radii of the rays", rays.len(), |index| {
        Error::InvalidRadius { index }
    })?;
    range.check("ranges of the rays", rays.len(), |index| {
        Error::InvalidRange { index }
    })?;
    check_u32(rays.len())?;
    if out.try_reserve(rays.len()).is_err() {
        return Err(Error::OutOfMemory {
            what: "first hits",
            elements: rays.len(),
        });
    }
    // The rays in the order of their origins along a Morton curve over the set's box:
    // consecutive rays then walk the same nodes and walls while they are in cache.
    let codes: Vec<u32> = (0..rays.len())
        .map(|i| bvh.morton(rays.origin(i)))
        .collect();
    let order = morton_order(&codes);
    drop(codes);
    out.resize(rays.len(), None);
    // The first hit of ray `i`.
    let hit = |i: u32, stack: &mut Vec<(u32, f32)>| {
        let i = i as usize;
        let (o, d) = rays.at(i);
        first_hit_of(bvh, o, d, radius.get(i).into(), range.get(i).into(), stack)
    };
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        let parts: Vec<Vec<Option<FirstHit<W::Real>>>> = order
            .par_chunks(RAY_BLOCK)
            .map(|part| {
                let mut stack = Vec::new();
                part.iter().map(|&i| hit(i, &mut stack)).collect()
            })
            .collect();
        for (part, hits) in order.chunks(RAY_BLOCK).zip(parts) {
            for (&i, h) in part.iter().zip(hits) {
                out[i as usize] = h;
            }
        }
        return Ok(());
    }
    let _ = parallel;
    let mut stack = Vec::new();
    for &i in &order {
        out[i as usize] = hit(i, &mut stack);
    }
    Ok(())
}

/// The indices `0..codes.len()` ordered by their 30-bit Morton codes, ties by index: three
/// stable counting passes over ten bits each (least significant first), a few operations
/// a ray where a comparison sort of `(code, index)` keys took about a hundred.
fn morton_order(codes: &[u32]) -> Vec<u32> {
    const BITS: u32 = 10;
    let mut order: Vec<u32> = (0..codes.len() as u32).collect();
    let mut next = vec![0u32; codes.len()];
    for pass in 0..3 {
        let digit = |i: u32| ((codes[i as usize] >> (pass * BITS)) & ((1 << BITS) - 1)) as usize;
        let mut start = [0u32; 1 << BITS];
        for &i in &order {
            start[digit(i)] += 1;
        }
        let mut sum = 0;
        for s in &mut start {
            (*s, sum) = (sum, sum + *s);
        }
        for &i in &order {
            let d = digit(i);
            next[start[d] as usize] = i;
            start[d] += 1;
        }
        core::mem::swap(&mut order, &mut next);
    }
    order
}

/// The first hit of the ray from `o` along `d`: the tree's nearest-first walk, each member
/// it reaches decided by [`pair_hit`]; every member for a ray the slab test cannot take.
fn first_hit_of<W: Member>(
    bvh: &Bvh8<W>,
    o: [f64; 3],
    d: [f64; 3],
    radius: f64,
    range: f64,
    stack: &mut Vec<(u32, f32)>,
) -> Option<FirstHit<W::Real>> {
    if !(finite(&o) && finite(&d)) || bvh.is_empty() {
        return None;
    }
    let mut best: Option<FirstHit<W::Real>> = None;
    let origin_scale = magnitude(&o);
    let mut decide = |k: usize| {
        let (wall, id) = bvh.wall(k);
        // The tree's members are finite, and so are the ray and (checked) its radius and
        // range: the decision without [`pair_hit`]'s checks.
        if let Some(mut hit) = decided_hit::<W>(o, d, radius, origin_scale, range, &wall.wide()) {
            hit.index = id;
            best = better(best, hit);
        }
        best
    };
    match bvh.prepare(o, d, radius) {
        Some(prep) => {
            let start = prep.bound(range);
            bvh.cast(&prep, start, stack, |k| {
                decide(k).map_or(start, |b| prep.bound(b.u.into()))
            });
        }
        None => {
            for k in 0..bvh.len() {
                decide(k);
            }
        }
    }
    best
}

/// The first hit of the ray from `o` along `d` on one member: `None` unless the sphere of
/// `radius` moving along the ray over `[0, range]` touches it (see [`SegmentIndex`]);
/// `index` is 0.
#[inline]
fn pair_hit<W: Member>(
    o: [f64; 3],
    d: [f64; 3],
    radius: f64,
    range: f64,
    wall: &W,
) -> Option<FirstHit<W::Real>> {
    let wall = wall.wide();
    if !(finite(&o) && finite(&d) && finite(&wall.p0) && finite(&wall.p1))
        || radius.is_nan()
        || range.is_nan()
    {
        return None;
    }
    decided_hit::<W>(o, d, radius, magnitude(&o), range, &wall)
}

/// [`pair_hit`] for a finite ray and member, a radius and range that are not NaN, and
/// `origin_scale` the [`magnitude`] of `o`.
#[inline]
fn decided_hit<W: Member>(
    o: [f64; 3],
    d: [f64; 3],
    radius: f64,
    origin_scale: f64,
    range: f64,
    wall: &Segment64,
) -> Option<FirstHit<W::Real>> {
    let touch = contact_radius(radius, origin_scale, wall, W::TOLERANCE);
    let (u, point) = first_contact(o, d, touch, range, wall)?;
    Some(FirstHit {
        index: 0,
        u: W::narrow(u),
        point: point.map(W::narrow),
    })
}

/// The first hit of one ray on one member: `None` unless the sphere of `radius` moving
/// along the ray over `[0, range]` touches it (see [`SegmentIndex`]).
pub(crate) fn first_hit_pair(
    ray: &Segment,
    radius: f32,
    range: f32,
    wall: &Segment,
) -> Option<FirstHit> {
    let (o, d) = segment_ray(&ray.wide());
    pair_hit(o, d, f64::from(radius), f64::from(range), wall)
}

/// [`first_hit_pair`] in `f64`.
pub(crate) fn first_hit_pair64(
    ray: &Segment64,
    radius: f64,
    range: f64,
    wall: &Segment64,
) -> Option<FirstHit64> {
    let (o, d) = segment_ray(ray);
    pair_hit(o, d, radius, range, wall)
}

#[cfg(test)]
mod tests {
    use super::morton_order;
    use segbatch_testkit::Rng;

    /// The radix order is the comparison sort of `(code, index)`, on codes with many ties
    /// and on codes spread over all 30 bits.
    #[test]
    fn morton_order_is_the_sorted_order() {
        let mut rng = Rng::new(7);
        for mask in [0x3fff_ffffu32, 0x3f, 0x3ff0_0c01] {
            let codes: Vec<u32> = (0..5000).map(|_| rng.next_u64() as u32 & mask).collect();
            let mut keys: Vec<u64> = (0..codes.len())
                .map(|i| (u64::from(codes[i]) << 32) | i as u64)
                .collect();
            keys.sort_unstable();
            let sorted: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
            assert_eq!(morton_order(&codes), sorted, "mask {mask:#x}");
        }
        assert!(morton_order(&[]).is_empty());
    }
}
