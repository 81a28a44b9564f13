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

use super::bvh8::Bvh8;
use super::hits::{Hit, within_wide};
use super::radius::{PairRadius, Radius};
use super::rays::{FirstHit, PerRay, Rays, first_hits_run, in_blocks};
use crate::batch::{Error, Segments, SegmentsView, check_u32};
use crate::pairs::{ClosestBatch, Outputs, closest_points_indexed_into};
use crate::prune::{Grid, Layout, rows_to_batch, sphere};
use crate::segment::{Flags, Options, Segment};

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
                super::within::collected(
                    queries,
                    Some((&self.sorted).into()),
                    (by_position, false),
                    &Options::SEGMENTS,
                    false,
                    ("pairs_within output", out),
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
