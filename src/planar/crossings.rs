//! 2D crossing sets: every pair of one set of 2D segments that meets, with
//! [`intersect2`](crate::planar::intersect2)'s semantics (a crossing or touching point, or a
//! collinear overlap), in `O(N log N + K)`.
//!
//! The 2D grid of [`crate::prune`] names the candidates (pairs whose inflated bounding
//! circles overlap), and the precision's narrow phase decides them over gathered index
//! pairs (the 8-lane kernel in `f32`, the scalar reference in `f64`), so every reported
//! pair and value is what [`reference::intersect2`](crate::reference::intersect2) gives
//! (in the set's precision) for `(set[i], set[j])`,
//! `i < j`, bit for bit. Segments with a NaN or infinite coordinate never meet anything
//! and are left out ([`count_non_finite`](crate::sets::count_non_finite) counts them). The
//! streamed form hands bounded blocks on, the collected one refuses an output it cannot
//! allocate.
//!
//! # A local frame for the grid
//!
//! The grid's spheres are `f32`, each inflated by `0.75·ε` times its centre's norm for its
//! rounding to `f32`: in the caller's frame that grows with the distance from the origin
//! (0.45 m at UTM northings, 5e6 m). So the grid is built over the set moved to a local
//! frame: the centre of the set's bounding box subtracted in `f64` and, for a set wider
//! than `2^62`, scaled by a power of two; then rounded to `f32`. Moving and scaling change
//! no pair's relation, and the rounding to `f32` moves an end point by at most `ε/2` of
//! its coordinate in the frame (or `2^-150` when it underflows): each sphere grows by that
//! rounding ([`crate::prune::frame_rounding`]; the floor of `2^-72` covers underflow), so
//! the spheres still contain the exactly moved segments: every pair that meets is a
//! candidate, in `f32` and `f64` alike. The narrow phase reads the caller's coordinates,
//! unmoved: the grid never decides a result.
//!
//! # Shared end points
//!
//! Street networks cut at their nodes, polygon rings and paths make most meeting pairs
//! out of pieces that share a node (658K of 847K on a 370K-piece street network).
//! [`SharedEndpoints::Skip`] drops a candidate when an end point of one equals an end
//! point of the other (both coordinates equal with `==`, in the given precision) before the
//! kernel runs, so those pairs cost a comparison, not a decision.

use super::element::{Element, Segments2, Segments2View};
use super::types::Crossing;
use super::types::Segment2;
use super::types::lerp;
use crate::batch::{Error, Soa, check_u32};
use crate::forms::{query_forms, stream_forms};
use crate::prune::{Grid, Kept, Narrow, Plan, frame_rounding};
use crate::sets::hits::SharedEndpoints;
use crate::sets::rows::{self, ByRow, Ranked, RowAnswer, RowHit, RowSink, Rows};

/// A pair of a 2D crossing set: `set[i]` meets `set[j]` (`i < j`), 16 bytes in `f32`,
/// 24 in `f64` (`E`, the set's precision).
///
/// The meeting point is not stored: it is `set[i].at(s)` ([`CrossHit::point`]), one
/// fused multiply-add a coordinate, bit for bit
/// [`Intersection2::point_a`](crate::planar::Intersection2::point_a) of the pair. Storing
/// it would add 8 bytes (16 in `f64`) to every streamed record for a value the caller can
/// form when it needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CrossHit<E = f32> {
    /// Index of the first segment.
    pub i: u32,
    /// Index of the second segment (`j > i`).
    pub j: u32,
    /// Parameter on `set[i]` of the meeting point, or of the start of the overlap
    /// ([`Intersection2::s`](crate::planar::Intersection2::s)).
    pub s: E,
    /// How they meet: [`Crossing::Point`] or [`Crossing::Overlap`].
    pub kind: Crossing,
}

impl<E: Element> CrossHit<E> {
    /// The meeting point (of a [`Crossing::Point`]) or the start of the overlap on
    /// `set[i]` (of a [`Crossing::Overlap`]): `p0 + s·(p1 - p0)` of `set[i]`, as
    /// [`Segment2::at`] computes it; `None` when `set` has no segment `i` (a hit of
    /// another set).
    ///
    /// ```
    /// use segbatch::planar::{crossing_pairs, Segment2_64, Segments2};
    /// let set: Segments2<f64> = Segments2::from(&[
    ///     Segment2_64::new([480_000.0, 4_990_000.0], [480_010.0, 4_990_000.0]),
    ///     Segment2_64::new([480_002.5, 4_989_990.0], [480_002.5, 4_990_010.0]),
    /// ]);
    /// let hits = crossing_pairs(&set);
    /// assert_eq!(hits[0].point(&set), Some([480_002.5, 4_990_000.0]));
    /// ```
    #[must_use]
    pub fn point<'a>(&self, set: impl Into<Segments2View<'a, E>>) -> Option<[E; 2]> {
        let [p0, p1]: [[E; 2]; 2] = set.into().get(self.i as usize)?.into();
        Some(core::array::from_fn(|k| lerp(self.s, p0[k], p1[k])))
    }
}

/// The narrow phase of the crossing set: the precision's decision over gathered index
/// pairs, read from a copy of the set in the grid's order (by position).
struct Meet<E: Element> {
    sorted: Segments2<E>,
    /// Drop the candidates that share an end point (module docs).
    skip: bool,
    /// `None` within one set; `Some(na)` for two sets (ids `>= na` are B's, reported as
    /// `id - na`).
    split: Option<u32>,
}

impl<E: Element> Meet<E> {
    /// Whether the segments at positions `p` and `q` share an end point.
    #[inline]
    fn shares(&self, p: u32, q: u32) -> bool {
        let c = self.sorted.columns();
        let (p, q) = (p as usize, q as usize);
        let end = |i: usize, k: usize| [c[2 * k][i], c[2 * k + 1][i]];
        (0..2).any(|k| (0..2).any(|l| end(p, k) == end(q, l)))
    }
}

impl<E: Element> Narrow<2> for Meet<E> {
    type Hit = CrossHit<E>;
    type Scratch = (Vec<(u32, u32)>, E::Scratch);

    fn split(&self) -> Option<u32> {
        self.split
    }

    type Probe = ();

    fn pair(hit: &CrossHit<E>) -> (u32, u32) {
        (hit.i, hit.j)
    }

    fn decide(
        &self,
        ids: &[u32],
        candidates: &[(u32, u32)],
        (kept, scratch): &mut Self::Scratch,
        out: &mut Kept<CrossHit<E>>,
    ) {
        let candidates = if self.skip {
            kept.clear();
            kept.extend(candidates.iter().filter(|&&(p, q)| !self.shares(p, q)));
            kept.as_slice()
        } else {
            candidates
        };
        let b_first = self.split.unwrap_or(0);
        E::decide(&self.sorted, candidates, scratch, |k, kind, s| {
            let (p, q) = candidates[k];
            out.push(CrossHit {
                i: ids[p as usize],
                j: ids[q as usize] - b_first,
                s,
                kind,
            });
        });
    }
}

/// The local frame of the grid (module docs): the centre of the bounding box of the
/// finite segments, and a power-of-two scale that brings the set's half extent to at
/// most `2^62`.
fn frame<E: Element>(set: Segments2View<'_, E>) -> ([f64; 2], f64) {
    let c = set.columns();
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    let points = c[0].iter().zip(c[1]).zip(c[2]).zip(c[3]);
    for (((&x0, &y0), &x1), &y1) in points {
        let v: [f64; 4] = [x0.into(), y0.into(), x1.into(), y1.into()];
        if v.iter().all(|x| x.is_finite()) {
            for k in 0..2 {
                lo[k] = lo[k].min(v[k]).min(v[k + 2]);
                hi[k] = hi[k].max(v[k]).max(v[k + 2]);
            }
        }
    }
    if lo[0] > hi[0] {
        return ([0.0; 2], 1.0);
    }
    // Halves first: neither the sum nor the difference of two finite values may overflow.
    let origin: [f64; 2] = core::array::from_fn(|k| 0.5 * lo[k] + 0.5 * hi[k]);
    let half = (0..2)
        .map(|k| 0.5 * hi[k] - 0.5 * lo[k])
        .fold(0.0, f64::max);
    let limit = 2f64.powi(62);
    let mut scale = 1.0;
    while half * scale > limit {
        scale *= 0.5f64.powi(64);
    }
    (origin, scale)
}

/// The plan of a crossing set: the grid of [`crate::prune`] over the set in its local
/// frame, which takes every set of at most `u32::MAX` segments (the callers check that
/// first), whatever its coordinates; `split` as [`Meet::split`] (the set is then A and B
/// one after the other).
fn plan<E: Element>(
    set: Segments2View<'_, E>,
    skip: bool,
    split: Option<u32>,
    parallel: bool,
) -> (Plan<2>, Meet<E>) {
    let (origin, scale) = frame(set);
    let c = set.columns();
    let local = |i: usize| {
        let at = |k: usize| ((c[k][i].into() - origin[k % 2]) * scale) as f32;
        Segment2::new([at(0), at(1)], [at(2), at(3)])
    };
    // Each sphere grows by its segment's rounding into the frame (module docs).
    let rounding = |i: usize| {
        let s = local(i);
        frame_rounding(s.p0, s.p1)
    };
    let (grid, _) = Grid::build(set.len(), local, Some(&rounding), 0.0, parallel)
        .expect("a grid for radius 0 and at most u32::MAX segments");
    let ids = grid.ids();
    let mut sorted = Soa::zeroed(ids.len());
    for (col, from) in sorted.columns_mut().into_iter().zip(c) {
        for (x, &id) in col.iter_mut().zip(ids) {
            *x = from[id as usize];
        }
    }
    (
        Plan::new(grid, 0.0),
        Meet {
            sorted,
            skip,
            split,
        },
    )
}

fn crossings<'a, E: Element>(
    set: Segments2View<'a, E>,
    shared: SharedEndpoints,
    parallel: bool,
    out: &mut Vec<CrossHit<E>>,
) -> Result<(), Error> {
    out.clear();
    check_u32(set.len())?;
    let (plan, narrow) = plan(set, shared == SharedEndpoints::Skip, None, parallel);
    let what = "crossing_pairs output";
    let done = plan.collect(&narrow, set.len(), |h| h, parallel, (what, &mut *out));
    if done.is_err() {
        out.clear();
    }
    done
}

query_forms! {
    /// Every pair `i < j` of `set` that meets (a point or a collinear overlap, touching
    /// included, as [`intersect2`](crate::planar::intersect2) decides), sorted by `(i, j)`.
    ///
    /// ```
    /// use segbatch::planar::{crossing_pairs, Crossing, Segment2, Segments2};
    /// // A path that crosses itself, and a piece lying along its first leg.
    /// let set = Segments2::from(&[
    ///     Segment2::new([0.0, 0.0], [4.0, 0.0]),
    ///     Segment2::new([4.0, 0.0], [2.0, 2.0]),
    ///     Segment2::new([2.0, 2.0], [2.0, -1.0]),
    ///     Segment2::new([1.0, 0.0], [3.0, 0.0]),
    /// ]);
    /// let hits = crossing_pairs(&set);
    /// let pairs: Vec<(u32, u32)> = hits.iter().map(|h| (h.i, h.j)).collect();
    /// assert_eq!(pairs, vec![(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)]);
    /// assert_eq!((hits[1].s, hits[1].kind), (0.5, Crossing::Point));
    /// assert_eq!(hits[2].kind, Crossing::Overlap);
    /// ```
    pub fn crossing_pairs / crossing_pairs_into / par_crossing_pairs / par_crossing_pairs_into
        <'a; E: Element>(set: impl Into<Segments2View<'a, E>>)
        with (shared: SharedEndpoints = SharedEndpoints::Keep)
        -> Vec<CrossHit<E>> = crossings;
    /// The general form of [`crossing_pairs`]: with [`SharedEndpoints::Skip`] the pairs
    /// that share an end point (consecutive pieces of a path, streets meeting at a node)
    /// are not reported; the hits are written into `out` (cleared first, allocation
    /// reused, grown with `try_reserve`).
    ///
    /// ```
    /// use segbatch::planar::{crossing_pairs_into, Segment2_64, Segments2};
    /// use segbatch::sets::SharedEndpoints;
    /// // Two streets cut at their common node, and a third crossing the first.
    /// let streets: Segments2<f64> = Segments2::from(&[
    ///     Segment2_64::new([480_000.0, 4_990_000.0], [480_100.0, 4_990_000.0]),
    ///     Segment2_64::new([480_100.0, 4_990_000.0], [480_100.0, 4_990_100.0]),
    ///     Segment2_64::new([480_050.0, 4_989_950.0], [480_050.0, 4_990_050.0]),
    /// ]);
    /// let mut hits = Vec::new();
    /// crossing_pairs_into(&streets, SharedEndpoints::Keep, &mut hits)?;
    /// assert_eq!(hits.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), vec![(0, 1), (0, 2)]);
    /// crossing_pairs_into(&streets, SharedEndpoints::Skip, &mut hits)?;
    /// assert_eq!(hits.iter().map(|h| (h.i, h.j, h.s)).collect::<Vec<_>>(), vec![(0, 2, 0.5)]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments;
    /// [`Error::OutOfMemory`] when the output cannot grow to the crossings found (`out` is
    /// then empty; [`for_each_crossing_pair`] streams them instead).
    into;
}

fn each<'a, E: Element>(
    set: Segments2View<'a, E>,
    shared: SharedEndpoints,
    parallel: bool,
    sink: &mut dyn FnMut(&[CrossHit<E>]) -> bool,
) -> Result<(), Error> {
    check_u32(set.len())?;
    let (plan, narrow) = plan(set, shared == SharedEndpoints::Skip, None, parallel);
    plan.each(&narrow, parallel, <[CrossHit<E>]>::to_vec, |block| {
        sink(&block)
    });
    Ok(())
}

stream_forms! {
    /// The streaming form of [`crossing_pairs_into`]: every meeting pair (but those that
    /// share an end point, with [`SharedEndpoints::Skip`]) handed to `sink` in
    /// blocks of at most [`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS), whatever the set's
    /// layout (30K copies of one segment, 4.5e8 crossings, stream like any other set), in
    /// memory for a few blocks (a few a thread for the parallel form); the pairs and values
    /// of [`crossing_pairs`], in the grid's order.
    ///
    /// ```
    /// use segbatch::planar::{for_each_crossing_pair, Segment2, Segments2};
    /// use segbatch::sets::SharedEndpoints;
    /// // A grid of 30 horizontal and 30 vertical streets: 900 crossings.
    /// let set: Segments2 = (0..60).map(|k| {
    ///     let c = (k % 30) as f32;
    ///     if k < 30 { Segment2::new([-1.0, c], [30.0, c]) } else { Segment2::new([c, -1.0], [c, 30.0]) }
    /// }).collect();
    /// let mut count = 0;
    /// for_each_crossing_pair(&set, SharedEndpoints::Keep, |block| count += block.len())?;
    /// assert_eq!(count, 900);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments (`sink` is not called).
    pub fn for_each_crossing_pair / par_for_each_crossing_pair
        <'a; E: Element>(set: impl Into<Segments2View<'a, E>>, shared: SharedEndpoints)
        -> sink(&[CrossHit<E>]) = each;
}

impl<E: Element> Ranked for CrossHit<E> {
    #[inline]
    fn pieces(&self) -> (u32, u32) {
        (self.i, self.j)
    }

    #[inline]
    fn distance_key(&self) -> u64 {
        0
    }
}

/// A and B one after the other, as one set (the two-set queries' grid takes them so).
fn joined<E: Element>(a: Segments2View<'_, E>, b: Segments2View<'_, E>) -> Segments2<E> {
    let mut both = Soa::zeroed(a.len() + b.len());
    for ((col, ca), cb) in both
        .columns_mut()
        .into_iter()
        .zip(a.columns())
        .zip(b.columns())
    {
        col[..ca.len()].copy_from_slice(ca);
        col[ca.len()..].copy_from_slice(cb);
    }
    both
}

/// Runs the row query of `set` (A then B when `rows.b` is given, `na` = A's length) and
/// hands its blocks of row hits to `sink` (each row pair at most once a task).
fn each_row<E: Element>(
    set: Segments2View<'_, E>,
    rows: Rows<'_>,
    answer: RowAnswer,
    parallel: bool,
    sink: &mut RowSink<'_, CrossHit<E>>,
) {
    let split = rows.b.map(|_| rows.a.len() as u32);
    let (plan, inner) = plan(set, false, split, parallel);
    let by_position = split.is_none().then(|| rows.by_position(plan.ids()));
    let narrow = ByRow {
        inner,
        rows,
        by_position,
        answer,
    };
    plan.each(&narrow, parallel, <[_]>::to_vec, |block: Vec<_>| {
        sink(&block)
    });
}

fn crossing_rows_run<'a, E: Element>(
    set: Segments2View<'a, E>,
    rows: &[u32],
    answer: RowAnswer,
    parallel: bool,
    out: &mut Vec<RowHit<CrossHit<E>>>,
) -> Result<(), Error> {
    out.clear();
    check_u32(set.len())?;
    let rows = Rows::checked(rows, set.len(), None)?;
    let what = "crossing_rows output";
    rows::collect(
        |sink| each_row(set, rows, answer, parallel, sink),
        parallel,
        what,
        out,
    )
}

query_forms! {
    /// Every pair of rows `a < b` of `set` that meet, each once, sorted by `(a, b)`:
    /// `rows[i]` is the row of piece `set[i]` (the pieces of one polyline share a row), and
    /// two rows meet when a piece of one meets a piece of the other (a point or a collinear
    /// overlap, touching included, decided exactly as [`crossing_pairs`] decides). Pairs of
    /// pieces of one row are masked in the grid's scan, never decided; with
    /// [`RowAnswer::Any`] (the default) a row pair stops being decided once it met
    /// ([`crate::sets::rows`] explains which piece pair each row pair reports).
    ///
    /// ```
    /// use segbatch::planar::{crossing_rows, Segment2_64, Segments2};
    /// // Row 0: an L; row 1 crosses both of its legs; row 2 touches nothing.
    /// let set: Segments2<f64> = Segments2::from(&[
    ///     Segment2_64::new([0.0, 0.0], [4.0, 0.0]),
    ///     Segment2_64::new([4.0, 0.0], [4.0, 4.0]),
    ///     Segment2_64::new([2.0, -1.0], [2.0, 1.0]),
    ///     Segment2_64::new([2.0, 1.0], [5.0, 1.0]),
    ///     Segment2_64::new([9.0, 9.0], [9.5, 9.0]),
    /// ]);
    /// let hits = crossing_rows(&set, &[0, 0, 1, 1, 2]);
    /// assert_eq!(hits.iter().map(|h| (h.a, h.b)).collect::<Vec<_>>(), vec![(0, 1)]);
    /// ```
    pub fn crossing_rows / crossing_rows_into / par_crossing_rows / par_crossing_rows_into
        <'a, 'r; E: Element>(set: impl Into<Segments2View<'a, E>>, rows: &'r [u32])
        with (answer: RowAnswer = RowAnswer::Any)
        -> Vec<RowHit<CrossHit<E>>> = crossing_rows_run;
    /// The general form of [`crossing_rows`]: `answer` picks the hit each row pair reports
    /// ([`RowAnswer::Least`]: the meeting piece pair with the lowest `(i, j)`, whatever the
    /// partition of the work); the row hits are written into `out` (cleared first,
    /// allocation reused, grown with `try_reserve`).
    ///
    /// ```
    /// use segbatch::planar::{crossing_rows_into, Segment2_64, Segments2};
    /// use segbatch::sets::RowAnswer;
    /// // Two crossing tracks of two pieces each: pieces 1 and 2 meet first in (i, j).
    /// let set: Segments2<f64> = Segments2::from(&[
    ///     Segment2_64::new([0.0, 0.0], [1.0, 0.0]),
    ///     Segment2_64::new([1.0, 0.0], [3.0, 0.0]),
    ///     Segment2_64::new([2.0, -1.0], [2.0, 0.0]),
    ///     Segment2_64::new([2.0, 0.0], [2.0, 1.0]),
    /// ]);
    /// let mut hits = Vec::new();
    /// crossing_rows_into(&set, &[7, 7, 9, 9], RowAnswer::Least, &mut hits)?;
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!((hits[0].a, hits[0].b, hits[0].hit.i, hits[0].hit.j), (7, 9, 1, 2));
    /// assert_eq!(hits[0].hit.point(&set), Some([2.0, 0.0]));
    /// assert!(crossing_rows_into(&set, &[0, 0], RowAnswer::Any, &mut hits).is_err());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `rows` is not one row a segment;
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments;
    /// [`Error::OutOfMemory`] when the output cannot grow to the row pairs found (`out` is
    /// then empty; [`for_each_crossing_row`] streams them instead).
    into;
}

fn crossing_rows_between_run<'a, 'b, E: Element>(
    a: Segments2View<'a, E>,
    rows_a: &[u32],
    b: Segments2View<'b, E>,
    rows_b: &[u32],
    answer: RowAnswer,
    parallel: bool,
    out: &mut Vec<RowHit<CrossHit<E>>>,
) -> Result<(), Error> {
    out.clear();
    check_u32(a.len() + b.len())?;
    let rows = Rows::checked(rows_a, a.len(), Some((rows_b, b.len())))?;
    let both = joined(a, b);
    let what = "crossing_rows_between output";
    rows::collect(
        |sink| each_row(both.as_view(), rows, answer, parallel, sink),
        parallel,
        what,
        out,
    )
}

query_forms! {
    /// Every pair of a row `a` of set A and a row `b` of set B that meet, each once, sorted
    /// by `(a, b)` (`rows_a[i]` the row of `a[i]`, `rows_b[j]` that of `b[j]`; the hit's `i`
    /// indexes A, its `j` B), decided as [`crossing_rows`] decides.
    ///
    /// ```
    /// use segbatch::planar::{crossing_rows_between, Segment2_64, Segments2};
    /// let roads: Segments2<f64> = Segments2::from(&[Segment2_64::new([0.0, 0.0], [10.0, 0.0])]);
    /// let rivers: Segments2<f64> = Segments2::from(&[
    ///     Segment2_64::new([5.0, -5.0], [5.0, -1.0]),
    ///     Segment2_64::new([5.0, -1.0], [6.0, 3.0]),
    /// ]);
    /// let hits = crossing_rows_between(&roads, &[0], &rivers, &[4, 4]);
    /// assert_eq!(hits.iter().map(|h| (h.a, h.b, h.hit.j)).collect::<Vec<_>>(), vec![(0, 4, 1)]);
    /// ```
    pub fn crossing_rows_between / crossing_rows_between_into
        / par_crossing_rows_between / par_crossing_rows_between_into
        <'a, 'b, 'r, 's; E: Element>(a: impl Into<Segments2View<'a, E>>, rows_a: &'r [u32],
            b: impl Into<Segments2View<'b, E>>, rows_b: &'s [u32])
        with (answer: RowAnswer = RowAnswer::Any)
        -> Vec<RowHit<CrossHit<E>>> = crossing_rows_between_run;
    /// The general form of [`crossing_rows_between`] (`answer` as in
    /// [`crossing_rows_into`]).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when a list of rows is not one row a segment of its set;
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments in the two sets;
    /// [`Error::OutOfMemory`] when the output cannot grow to the row pairs found (`out` is
    /// then empty).
    into;
}

fn each_crossing_row<'a, E: Element>(
    set: Segments2View<'a, E>,
    rows: &[u32],
    answer: RowAnswer,
    parallel: bool,
    sink: &mut RowSink<'_, CrossHit<E>>,
) -> Result<(), Error> {
    check_u32(set.len())?;
    let rows = Rows::checked(rows, set.len(), None)?;
    each_row(set, rows, answer, parallel, sink);
    Ok(())
}

stream_forms! {
    /// The streaming form of [`crossing_rows_into`], for outputs larger than memory: the
    /// row pairs that meet handed to `sink` in blocks of at most
    /// [`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS), a task's blocks in the grid's order.
    /// A task reports each of its row pairs once; a row pair whose pieces fall in several
    /// tasks comes once from each (the collected forms keep the first by rank), so a
    /// caller that needs each once keeps a set, or sorts and deduplicates what it stores.
    ///
    /// ```
    /// use segbatch::planar::{for_each_crossing_row, Segment2, Segments2};
    /// use segbatch::sets::RowAnswer;
    /// // 30 horizontal rows of 31 pieces and 30 vertical ones: 900 row pairs meet.
    /// let mut set = Vec::new();
    /// let mut rows = Vec::new();
    /// for k in 0..60u32 {
    ///     let c = (k % 30) as f32;
    ///     for s in 0..31 {
    ///         let (u, v) = (s as f32 - 1.0, s as f32);
    ///         set.push(if k < 30 { Segment2::new([u, c], [v, c]) } else { Segment2::new([c, u], [c, v]) });
    ///         rows.push(k);
    ///     }
    /// }
    /// let set: Segments2 = set.into_iter().collect();
    /// let mut seen = std::collections::HashSet::new();
    /// for_each_crossing_row(&set, &rows, RowAnswer::Any, |block| {
    ///     seen.extend(block.iter().map(|h| (h.a, h.b)));
    /// })?;
    /// assert_eq!(seen.len(), 900);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `rows` is not one row a segment;
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments (`sink` is not called).
    pub fn for_each_crossing_row / par_for_each_crossing_row
        <'a, 'r; E: Element>(set: impl Into<Segments2View<'a, E>>, rows: &'r [u32], answer: RowAnswer)
        -> sink(&[RowHit<CrossHit<E>>]) = each_crossing_row;
}
