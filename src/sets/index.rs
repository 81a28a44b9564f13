//! A reusable index over a static set (walls, level geometry): built once, queried many
//! times, for the pairs within a radius of query segments and for the **first hit** of
//! thick rays.
//!
//! The semantics of a first hit are documented on [`SegmentIndex`]. One structure serves
//! both queries: the eight-wide tree of [`super::bvh8`], a nearest-first search for the
//! first hits whose cost follows the walls around a ray's path rather than the cells it
//! crosses (its module docs say why), and for the pairs within a radius the members whose
//! boxes meet a query's box grown by its reach and the kernel's error allowance. The tree
//! only names candidates: the kernel of the index's precision decides every pair, so the
//! lists are brute force's, bit for bit.
//!
//! The index is generic over its precision ([`SetElement`]: `f32`, or `f64` for world
//! coordinates, [`SegmentIndex64`]), and so is each of its queries, written once. The
//! tree's `f32` boxes are taken relative to the set's centre and rounded outward, so they
//! are as tight at UTM coordinates as at the origin; what differs between the precisions
//! is the kernel and its error allowance (`bvh8::Member`).
//!
//! Why the tree for the pairs too, not the grid the set queries prune with: over the
//! members' spheres (and a copy of the set in grid order beside the tree) the grid named
//! the candidates 1.4-5x slower, on walls of a city block and on random sticks alike
//! (docs/performance.md, "Index pairs: the pairs within a radius of an index's members"),
//! and the index then holds nothing beyond the tree.
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
//! The decision of a first hit takes the ray as an `f64` origin and direction and the
//! member widened to `f64` (exactly, for `f32`), so both precisions run the same routine,
//! the same driver and the same tree; they differ only in the tolerance's `ε` and in
//! rounding the hit to the member's precision. A ray is a segment (`P1 - P0` its
//! direction, exact in `f64` for `f32` end points) or an origin and a direction
//! ([`Rays::Along`]), which keeps a direction's bits when the origin is far from the
//! coordinates' zero.

use super::bvh8::{Bvh8, Member};
use super::element::SetElement;
use super::hits::Hit;
use super::radius::{PairRadius, Radius};
use super::rays::{FirstHit, PerRay, Rays, first_hits_run, in_blocks};
use crate::batch::{Error, SegmentsView, Soa, check_u32};
use crate::pairs::{ClosestBatch, Outputs, closest_points_into};
use crate::segment::{Closest, Options};

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
/// # Precision
///
/// The index takes the precision of its set: `SegmentIndex::new(&walls)` over
/// [`Segments64`](crate::Segments64) is a `SegmentIndex<f64>` ([`SegmentIndex64`]),
/// whose rays, radii, ranges, hits and radius queries are `f64`. Its contact tolerance of
/// a zero radius is `4·ε·S` with `ε = f64::EPSILON` (at `S = 5e6` a zero radius touches
/// within 4.4 nm); the squares of its distances are formed in `f64`, so a pair whose
/// coordinates or radius pass about `1e150` overflows them and is never a hit.
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
///
/// // In f64: a wall 5 m east of a UTM origin, a ray given as an origin and a direction.
/// use segbatch::sets::Rays;
/// use segbatch::{Segment64, Segments64};
/// let (x, y) = (500_000.0, 5_000_000.0);
/// let walls = Segments64::from(&[Segment64::new([x + 5.0, y - 1.0, 0.0], [x + 5.0, y + 1.0, 0.0])]);
/// let index = SegmentIndex::new(&walls)?;
/// let (origins, directions) = ([[x, y, 0.0]], [[1.0, 0.0, 0.0]]);
/// let hit = index.first_hits(Rays::Along { origins: &origins, directions: &directions }, 0.5, 10.0)?[0];
/// assert_eq!(hit.map(|h| (h.index, h.u, h.point)), Some((0, 4.5, [x + 5.0, y, 0.0])));
/// # Ok::<(), segbatch::Error>(())
/// ```
pub struct SegmentIndex<E: SetElement = f32> {
    /// The tree of both queries, over the members with finite coordinates.
    bvh: Bvh8<E::Segment>,
    /// Number of members.
    len: usize,
}

/// [`SegmentIndex`] over `f64` segments.
pub type SegmentIndex64 = SegmentIndex<f64>;

/// Candidates of [`SegmentIndex::pairs_within`] gathered and decided at a time: the
/// gathered pairs and the kernel's output stay a few hundred KiB, however many members a
/// query's reach takes in.
const DECIDE_RUN: usize = 4096;

/// The buffers of [`SegmentIndex::decide`]: the gathered sides and the kernel's output.
struct Gather<E: SetElement> {
    a: Soa<E::Segment, 6, E>,
    b: Soa<E::Segment, 6, E>,
    closest: ClosestBatch<E>,
}

impl<E: SetElement> SegmentIndex<E> {
    /// Builds the index over `set` (`f32` or `f64` segments: the index's precision), which
    /// it copies in the tree's order (a segment each, beside the tree's nodes, about 32
    /// bytes): results name members by their index in `set`. Never panics: members with a
    /// NaN or infinite coordinate are kept (they touch nothing), and a set too large in
    /// extent for the tree's `f32` boxes is searched member by member.
    ///
    /// # Errors
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments.
    pub fn new<'a>(set: impl Into<SegmentsView<'a, E>>) -> Result<Self, Error> {
        Self::build(set.into(), false)
    }

    /// [`SegmentIndex::new`] with the subtrees of the tree's top levels built on all cores
    /// (the same index).
    ///
    /// # Errors
    /// As [`SegmentIndex::new`].
    #[cfg(feature = "rayon")]
    pub fn par_new<'a>(set: impl Into<SegmentsView<'a, E>>) -> Result<Self, Error> {
        Self::build(set.into(), true)
    }

    /// Every form of the first hits in one body for this index's types: the public forms
    /// only convert their arguments, so the walk is compiled once, in this crate, not in
    /// each caller for each argument type.
    fn hits(
        &self,
        rays: Rays<'_, E::Segment, E>,
        radius: PerRay<'_, E>,
        range: PerRay<'_, E>,
        parallel: bool,
        out: &mut Vec<Option<FirstHit<E>>>,
    ) -> Result<(), Error> {
        first_hits_run(&self.bvh, rays, radius, range, parallel, out)
    }

    fn build(set: SegmentsView<'_, E>, parallel: bool) -> Result<Self, Error> {
        check_u32(set.len())?;
        Ok(SegmentIndex {
            bvh: Bvh8::build(set.len(), |i| set.at(i), parallel),
            len: set.len(),
        })
    }

    /// Number of members.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an index over an empty set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
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
        rays: impl Into<Rays<'r, E::Segment, E>>,
        radius: impl Into<PerRay<'p, E>>,
        range: impl Into<PerRay<'p, E>>,
    ) -> Result<Vec<Option<FirstHit<E>>>, Error> {
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
        rays: impl Into<Rays<'r, E::Segment, E>>,
        radius: impl Into<PerRay<'p, E>>,
        range: impl Into<PerRay<'p, E>>,
        out: &mut Vec<Option<FirstHit<E>>>,
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
        rays: impl Into<Rays<'r, E::Segment, E>>,
        radius: impl Into<PerRay<'p, E>>,
        range: impl Into<PerRay<'p, E>>,
    ) -> Result<Vec<Option<FirstHit<E>>>, Error> {
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
        rays: impl Into<Rays<'r, E::Segment, E>>,
        radius: impl Into<PerRay<'p, E>>,
        range: impl Into<PerRay<'p, E>>,
        out: &mut Vec<Option<FirstHit<E>>>,
    ) -> Result<(), Error> {
        self.hits(rays.into(), radius.into(), range.into(), true, out)
    }

    /// Every pair of a query segment `queries[i]` and a member `set[j]` within `radius`,
    /// sorted by `(i, j)`: [`pairs_within`](crate::sets::pairs_within)`(queries, set, radius)`,
    /// bit for bit, without rebuilding the index.
    ///
    /// `radius` is one for every pair (an `f32`, or an `f64` for an `f64` index), one a
    /// query ([`Radius::Each`]: the members are bare segments, `distance <= radii[i]`) or
    /// one a query and one a member ([`Radius::Sides`]: `distance <= rq[i] + rm[j]`, `j`
    /// the member's index in the indexed set). The tree names the members whose boxes meet
    /// the query's box grown by its reach (its radius plus the largest member radius), and
    /// the kernel decides each one once. Members or queries with a non-finite coordinate
    /// are never within any radius.
    ///
    /// ```
    /// use segbatch::{Segment, Segment64, SegmentIndex, Segments, Segments64};
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
    ///
    /// // The same walls and agents in f64 at UTM coordinates.
    /// let (x, y) = (500_000.0, 5_000_000.0);
    /// let at = |p: [f64; 3]| [x + p[0], y + p[1], p[2]];
    /// let walls64: Segments64 = walls.iter().map(|s| Segment64::new(at(s.p0.map(f64::from)), at(s.p1.map(f64::from)))).collect();
    /// let agents64: Segments64 = agents.iter().map(|s| Segment64::new(at(s.p0.map(f64::from)), at(s.p1.map(f64::from)))).collect();
    /// let index = SegmentIndex::new(&walls64)?;
    /// let hits = index.pairs_within(&agents64, &[0.5, 1.0])?;
    /// assert_eq!(hits.iter().map(|h| (h.i, h.j, h.dist2)).collect::<Vec<_>>(), vec![(1, 0, 1.0)]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN (with the first index in a
    /// list, the queries' first); [`Error::LengthMismatch`] when a list is not one radius a
    /// query (or a member); [`Error::TooManyObjects`] for more than `u32::MAX` queries.
    pub fn pairs_within<'q, 'r>(
        &self,
        queries: impl Into<SegmentsView<'q, E>>,
        radius: impl Into<Radius<'r, E>>,
    ) -> Result<Vec<Hit<E>>, Error> {
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
        queries: impl Into<SegmentsView<'q, E>>,
        radius: impl Into<Radius<'r, E>>,
    ) -> Result<Vec<Hit<E>>, Error> {
        let mut out = Vec::new();
        self.within_run(queries.into(), radius.into(), true, &mut out)?;
        Ok(out)
    }

    fn within_run(
        &self,
        queries: SegmentsView<'_, E>,
        radius: Radius<'_, E>,
        parallel: bool,
        out: &mut Vec<Hit<E>>,
    ) -> Result<(), Error> {
        out.clear();
        let radius = PairRadius::two_sets(radius, queries.len(), self.len)?;
        check_u32(queries.len())?;
        let max_member = radius.max_b();
        let block = |first: usize, len: usize| -> Vec<Hit<E>> {
            let (mut stack, mut found) = (Vec::new(), Vec::new());
            // (query, member position in tree order), by query and then member index,
            // decided a run of about `DECIDE_RUN` at a time.
            let mut candidates: Vec<(u32, u32)> = Vec::new();
            let mut gather = Gather {
                a: Soa::zeroed(0),
                b: Soa::zeroed(0),
                closest: ClosestBatch::new(),
            };
            let mut hits = Vec::new();
            for i in first..first + len {
                let q = queries.at(i).wide();
                found.clear();
                // A query with a non-finite coordinate is within no radius; one whose box
                // the tree cannot take meets every member.
                if q.p0.iter().chain(&q.p1).all(|x| x.is_finite()) {
                    let reach = radius.reach(i, max_member).into();
                    match self.bvh.reach_box(&q, reach) {
                        Some(bounds) => self.bvh.overlapping(bounds, &mut stack, |k| found.push(k)),
                        None => found.extend(0..self.bvh.len()),
                    }
                }
                found.sort_unstable_by_key(|&k| self.bvh.wall(k).1);
                candidates.extend(found.iter().map(|&k| (i as u32, k as u32)));
                if candidates.len() >= DECIDE_RUN || i + 1 == first + len {
                    self.decide(queries, &candidates, radius, &mut gather, &mut hits);
                    candidates.clear();
                }
            }
            hits
        };
        in_blocks(queries.len(), parallel, block, out);
        Ok(())
    }

    /// Appends to `hits` the candidates `(query, member position)` within their pair's
    /// radius, in order: the kernel of the index's precision over the gathered pairs, and
    /// the set queries' rule ([`within_radius`](crate::sets::within_radius)).
    fn decide(
        &self,
        queries: SegmentsView<'_, E>,
        candidates: &[(u32, u32)],
        radius: PairRadius<'_, E>,
        gather: &mut Gather<E>,
        hits: &mut Vec<Hit<E>>,
    ) {
        let Gather { a, b, closest } = gather;
        a.clear();
        b.clear();
        a.extend(candidates.iter().map(|&(i, _)| queries.at(i as usize)));
        b.extend(
            candidates
                .iter()
                .map(|&(_, k)| *self.bvh.wall(k as usize).0),
        );
        let outputs = Outputs {
            params: true,
            points: false,
            flags: true,
        };
        closest_points_into(&*a, &*b, &Options::SEGMENTS, outputs, closest)
            .expect("two gathers of one length");
        let (d, s, t, flags) = (closest.dist2(), closest.s(), closest.t(), closest.flags());
        hits.extend(candidates.iter().enumerate().filter_map(|(c, &(i, k))| {
            let (wall, j) = self.bvh.wall(k as usize);
            let pair = Closest {
                s: s[c],
                t: t[c],
                point_a: [E::NAN; 3],
                point_b: [E::NAN; 3],
                dist2: d[c],
                flags: flags[c],
            };
            let r = radius.of(i as usize, j as usize);
            E::within_radius(&queries.at(i as usize), wall, &pair, r).then_some(Hit {
                i,
                j,
                dist2: d[c],
                s: s[c],
                t: t[c],
            })
        }));
    }
}
