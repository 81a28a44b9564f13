//! [`SegmentIndex64`]: the first hits of thick rays, and the pairs within a radius, on a
//! static set of `f64` segments, for world coordinates (UTM `x ~ 5e5`, `y ~ 5e6` metres;
//! ECEF) that `f32` resolves only to half a metre.
//!
//! Its first hits are [`SegmentIndex`](super::SegmentIndex)'s over [`Segments64`]: the
//! same eight-wide tree ([`super::bvh8`], whose `f32` boxes are taken relative to the
//! set's centre and rounded outward, so they stay conservative and as tight as at the
//! origin), the same driver and the same one `f64` decision per pair, with `f64` members,
//! rays, radii, ranges and hits, and the contact tolerance of a zero radius `4·ε·S` with
//! `ε = f64::EPSILON`. So for every ray it returns the least `(u, index)` over the set of
//! [`reference::first_hit64`](crate::reference::first_hit64), bit for bit.
//!
//! Its pairs within a radius ([`SegmentIndex64::pairs_within`]) are those of
//! [`pairs_within`](crate::sets::pairs_within) against the indexed set, bit for bit:
//! the same tree names the members whose boxes meet a query's box grown by its reach
//! (`bvh8`, "Boxes around segments"), and the `f64` kernel decides each one.

use super::bvh8::Bvh8;

use super::hits::Hit64;
use super::radius::within64 as within;
use super::radius::{PairRadius, Radius64};
use super::rays::{FirstHit64, PerRay64, Rays64, first_hits_run, in_blocks};
use crate::batch::{Error, Segments64, Segments64View, check_u32};
use crate::pairs::{ClosestBatch64, Outputs, closest_points_into};
use crate::segment::{Options, Segment64};

/// A static set of `f64` segments ready for repeated first-hit and radius queries:
/// [`SegmentIndex`](super::SegmentIndex)'s `f64` twin.
///
/// A hit is what [`SegmentIndex`](super::SegmentIndex) documents, every quantity in `f64`;
/// the contact tolerance of a zero radius is `4·ε·S` with `ε = f64::EPSILON` (`S` the
/// largest coordinate magnitude of the ray's origin and the member): at `S = 5e6` a zero
/// radius touches within 4.4 nm. The squares of distances are formed in `f64`: a pair
/// whose coordinates or radius pass about `1e150` overflows them and is never a hit.
///
/// ```
/// use segbatch::sets::{Rays64, SegmentIndex64};
/// use segbatch::{Segment64, Segments64};
/// // A wall 5 m east of a UTM origin, a sight ray along +x with radius 0.5 and range 10.
/// let (x, y) = (500_000.0, 5_000_000.0);
/// let walls = Segments64::from(&[Segment64::new([x + 5.0, y - 1.0, 0.0], [x + 5.0, y + 1.0, 0.0])]);
/// let index = SegmentIndex64::new(&walls)?;
/// let (origins, directions) = ([[x, y, 0.0]], [[1.0, 0.0, 0.0]]);
/// let hit = index.first_hits(Rays64::Along { origins: &origins, directions: &directions }, 0.5, 10.0)?[0];
/// assert_eq!(hit.map(|h| (h.index, h.u, h.point)), Some((0, 4.5, [x + 5.0, y, 0.0])));
/// # Ok::<(), segbatch::Error>(())
/// ```
pub struct SegmentIndex64 {
    /// The tree of the first hits.
    bvh: Bvh8<Segment64>,
    /// Number of members.
    len: usize,
}

/// Candidates of [`SegmentIndex64::pairs_within`] gathered and decided at a time: the
/// gathered pairs (96 bytes each) and the kernel's output stay a few hundred KiB, however
/// many members a query's reach takes in.
const DECIDE_RUN: usize = 4096;

/// The buffers of [`SegmentIndex64::decide`]: the gathered sides and the kernel's output.
#[derive(Default)]
struct Gather {
    a: Segments64,
    b: Segments64,
    closest: ClosestBatch64,
}

impl SegmentIndex64 {
    /// Builds the index over `set`, which it copies in the tree's order (48 bytes a
    /// segment, beside the tree's nodes, about 32): results name members by their index in
    /// `set`. Never panics: members with a NaN or infinite coordinate are kept (they touch
    /// nothing), and a set too large in extent for the tree's `f32` boxes is searched member
    /// by member.
    ///
    /// # Errors
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments.
    pub fn new<'a>(set: impl Into<Segments64View<'a>>) -> Result<Self, Error> {
        Self::build(set.into(), false)
    }

    /// [`SegmentIndex64::new`] with the subtrees of the tree's top levels built on all
    /// cores (the same index).
    ///
    /// # Errors
    /// As [`SegmentIndex64::new`].
    #[cfg(feature = "rayon")]
    pub fn par_new<'a>(set: impl Into<Segments64View<'a>>) -> Result<Self, Error> {
        Self::build(set.into(), true)
    }

    /// Every form of the first hits in one body for this index's types: the public forms
    /// only convert their arguments, so the walk is compiled once, in this crate, not in
    /// each caller for each argument type.
    fn hits(
        &self,
        rays: Rays64<'_>,
        radius: PerRay64<'_>,
        range: PerRay64<'_>,
        parallel: bool,
        out: &mut Vec<Option<FirstHit64>>,
    ) -> Result<(), Error> {
        first_hits_run(&self.bvh, rays, radius, range, parallel, out)
    }

    fn build(set: Segments64View<'_>, parallel: bool) -> Result<Self, Error> {
        check_u32(set.len())?;
        Ok(SegmentIndex64 {
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
    /// [`Rays64::Along`] an origin and a direction), the first member of the set that a
    /// sphere of `radius` moving along it from `u = 0` to `u = range` touches, or `None`:
    /// [`SegmentIndex::first_hits`](super::SegmentIndex::first_hits) in `f64`.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN;
    /// [`Error::InvalidRange`] when a range is negative or NaN;
    /// [`Error::LengthMismatch`] when a per-ray list is not one value per ray, or
    /// [`Rays64::Along`] not one direction an origin;
    /// [`Error::TooManyObjects`] for more than `u32::MAX` rays.
    pub fn first_hits<'r, 'p>(
        &self,
        rays: impl Into<Rays64<'r>>,
        radius: impl Into<PerRay64<'p>>,
        range: impl Into<PerRay64<'p>>,
    ) -> Result<Vec<Option<FirstHit64>>, Error> {
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
        rays: impl Into<Rays64<'r>>,
        radius: impl Into<PerRay64<'p>>,
        range: impl Into<PerRay64<'p>>,
        out: &mut Vec<Option<FirstHit64>>,
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
        rays: impl Into<Rays64<'r>>,
        radius: impl Into<PerRay64<'p>>,
        range: impl Into<PerRay64<'p>>,
    ) -> Result<Vec<Option<FirstHit64>>, Error> {
        let mut out = Vec::new();
        self.hits(rays.into(), radius.into(), range.into(), true, &mut out)?;
        Ok(out)
    }

    /// Every pair of a query segment `queries[i]` and a member `set[j]` within a radius,
    /// sorted by `(i, j)`: [`pairs_within`](crate::sets::pairs_within)`(queries, set,
    /// radius)`, bit for bit, without rebuilding anything.
    ///
    /// `radius` is one for every pair (an `f64`), one a query ([`Radius64::Each`]: the
    /// members are bare segments, `distance <= radii[i]`) or one a query and one a member
    /// ([`Radius64::Sides`]: `distance <= rq[i] + rm[j]`, `j` the member's index in the
    /// indexed set). The tree names the members whose boxes meet the query's box grown by
    /// its reach (its radius plus the largest member radius), and the `f64` kernel decides
    /// each one once. Members or queries with a non-finite coordinate are never within any
    /// radius.
    ///
    /// ```
    /// use segbatch::sets::SegmentIndex64;
    /// use segbatch::{Segment64, Segments64};
    /// // Two walls 3 m apart at UTM coordinates, two agents between them.
    /// let (x, y) = (500_000.0, 5_000_000.0);
    /// let walls = Segments64::from(&[
    ///     Segment64::new([x, y, 0.0], [x, y + 4.0, 0.0]),
    ///     Segment64::new([x + 3.0, y, 0.0], [x + 3.0, y + 4.0, 0.0]),
    /// ]);
    /// let index = SegmentIndex64::new(&walls)?;
    /// let agents = Segments64::from(&[
    ///     Segment64::new([x + 1.0, y + 1.0, 0.0], [x + 1.0, y + 1.0, 0.0]),
    ///     Segment64::new([x + 1.0, y + 3.0, 0.0], [x + 1.0, y + 3.0, 0.0]),
    /// ]);
    /// // Radii 0.5 and 1: only the second agent reaches the wall at x.
    /// let hits = index.pairs_within(&agents, &[0.5, 1.0])?;
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
        queries: impl Into<Segments64View<'q>>,
        radius: impl Into<Radius64<'r>>,
    ) -> Result<Vec<Hit64>, Error> {
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
        queries: impl Into<Segments64View<'q>>,
        radius: impl Into<Radius64<'r>>,
    ) -> Result<Vec<Hit64>, Error> {
        let mut out = Vec::new();
        self.within_run(queries.into(), radius.into(), true, &mut out)?;
        Ok(out)
    }

    fn within_run(
        &self,
        queries: Segments64View<'_>,
        radius: Radius64<'_>,
        parallel: bool,
        out: &mut Vec<Hit64>,
    ) -> Result<(), Error> {
        out.clear();
        let radius = PairRadius::two_sets(radius, queries.len(), self.len)?;
        check_u32(queries.len())?;
        let max_member = radius.max_b();
        let block = |first: usize, len: usize| -> Vec<Hit64> {
            let (mut stack, mut found) = (Vec::new(), Vec::new());
            // (query, member position in tree order), by query and then member index,
            // decided a run of at most `DECIDE_RUN` at a time.
            let mut candidates: Vec<(u32, u32)> = Vec::new();
            let mut gather = Gather::default();
            let mut hits = Vec::new();
            for i in first..first + len {
                let q = queries.at(i);
                let reach = radius.reach(i, max_member);
                found.clear();
                match self.bvh.reach_box(&q, reach) {
                    Some(bounds) => self.bvh.overlapping(bounds, &mut stack, |k| found.push(k)),
                    None => found.extend(0..self.bvh.len()),
                }
                found.sort_unstable_by_key(|&k| self.bvh.wall(k).1);
                for &k in &found {
                    candidates.push((i as u32, k as u32));
                    if candidates.len() == DECIDE_RUN {
                        self.decide(queries, &candidates, radius, &mut gather, &mut hits);
                        candidates.clear();
                    }
                }
            }
            self.decide(queries, &candidates, radius, &mut gather, &mut hits);
            hits
        };
        in_blocks(queries.len(), parallel, block, out);
        Ok(())
    }

    /// Appends to `hits` the candidates `(query, member position)` within their pair's
    /// radius, in order: the `f64` kernel over the gathered pairs.
    fn decide(
        &self,
        queries: Segments64View<'_>,
        candidates: &[(u32, u32)],
        radius: PairRadius<'_, f64>,
        gather: &mut Gather,
        hits: &mut Vec<Hit64>,
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
        closest_points_into(&*a, &*b, &Options::SEGMENTS, Outputs::PARAMS, closest)
            .expect("two gathers of one length");
        let (d, s, t) = (closest.dist2(), closest.s(), closest.t());
        hits.extend(candidates.iter().enumerate().filter_map(|(c, &(i, k))| {
            let (wall, j) = self.bvh.wall(k as usize);
            let pair = || (queries.at(i as usize), *wall, s[c], t[c]);
            within(d[c], radius.of(i as usize, j as usize), pair).then_some(Hit64 {
                i,
                j,
                dist2: d[c],
                s: s[c],
                t: t[c],
            })
        }));
    }

    /// [`first_hits_into`](Self::first_hits_into) on all cores, bitwise the same results.
    ///
    /// # Errors
    /// As [`first_hits`](Self::first_hits); `out` is then empty.
    #[cfg(feature = "rayon")]
    pub fn par_first_hits_into<'r, 'p>(
        &self,
        rays: impl Into<Rays64<'r>>,
        radius: impl Into<PerRay64<'p>>,
        range: impl Into<PerRay64<'p>>,
        out: &mut Vec<Option<FirstHit64>>,
    ) -> Result<(), Error> {
        self.hits(rays.into(), radius.into(), range.into(), true, out)
    }
}
