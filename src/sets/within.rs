//! Set queries that scale: the radius queries over whole sets, pruned by the grid of
//! [`crate::prune`] and decided by the kernel over index pairs (`pairs/indexed.rs`).
//!
//! [`self_pairs_within`](crate::sets::self_pairs_within) and
//! [`pairs_within`] run here whenever both sides are segments and the
//! radius is finite: the grid names candidate pairs (a conservative sphere test over the
//! cells' neighbours), the candidates are gathered a few thousand at a time and run through
//! the kernel, and the kernel's squared distance decides. Every reported value is therefore the
//! brute-force query's, bit for bit, and the work is `O((N + M) log(N + M) + K)` instead of
//! `O(N·M)`.
//!
//! The streaming forms ([`for_each_self_pair_within`], [`for_each_pair_within`]) hand the
//! hits to a callback in blocks of compact [`PairHit`]s (12 bytes in `f32`, 16 in `f64`) of at most
//! [`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS), so a query needs memory for the input, the
//! grid and a few blocks a thread, not for its hits: 5e9 pairs of 100K identical segments
//! stream in blocks like 50 pairs of a sparse set (see [`crate::prune`] for how the tasks
//! are cut and the blocks bounded). The collected forms grow their output with
//! `try_reserve` and return [`Error::OutOfMemory`] when it cannot grow.
//!
//! # In either precision
//!
//! Each query is one generic body over its element ([`SetElement`]: `f32` or `f64`): the
//! checks, the choice between the grid and the tiles, the collection, the sorting and the
//! streaming are written once. What differs is in the precision's sealed methods: how the
//! grid is built over the sets and which kernel decides its candidates (`near.rs`: `f64`
//! moves the sets to a local frame and grows each sphere by the `f64` kernel's error, so a
//! set at UTM northings costs what it costs at the origin), and the brute-force tile
//! (`many.rs`). Rays and lines, an infinite radius (in `f64`, one whose square overflows)
//! and a side of at most a few objects take the tiles.
//!
//! # Decisions at the edges of the range
//!
//! A pair is within the radius when the kernel's `dist2 <= radius²`, except where that
//! comparison would lie: in `f32` a pair whose squared distance left `f32`'s range
//! (flagged [`Flags::DIST2_OUT_OF_RANGE`] by the kernel) is decided in `f64` from its
//! closest points; in `f64` a pair whose squared distance and radius² both left `f64`'s
//! range is decided at a power-of-two scale where neither does, so the decisions of a scene
//! at `1e300` are those of the same scene scaled to `1` ([`within_radius`] states both rules,
//! and the tiles apply them too). An infinite radius holds every finite pair. Members with
//! a NaN or infinite coordinate are never within any radius: the grid leaves them out, the
//! tiles find their `dist2` NaN ([`count_non_finite`] counts them). The parallel forms
//! return exactly what the sequential ones do, and the streamed ones the same pairs and
//! values in blocks.

use super::element::{Near, SetElement, Tiles, sealed};
use super::hits::{Hit, Hit64, PairHit, SharedEndpoints, distance_wide, within_wide};
use super::many::{TilePrep32, rect32, rect64};
use super::near::{Exact64, Gather64, decide32, decide64, grid32, grid64, pruned};
use super::radius::{PairRadius, Radius, distance64, within64};
use super::rows::{ByRow, Ranked, RowAnswer, RowHit, RowSink, Rows};
use crate::batch::{Error, Record, SegmentsView, SoaView, check_u32};
use crate::forms::{query_forms, stream_forms};
use crate::pairs::ClosestBatch;
use crate::prune::Kept;
use crate::segment::{Closest, Closest64, Flags, Options, Segment, Segment64};
use core::ops::Range;

/// `f32`: the grid over the sets as they are, the `f32` kernel gathering from its rows;
/// the kernel's `dist2` against `radius²`, in `f64` where `dist2` left `f32`'s range.
#[allow(private_interfaces)]
impl sealed::Sets for f32 {
    type Exact = ();
    type Scratch = ClosestBatch;
    type TilePrep = TilePrep32;

    #[inline]
    fn within_radius(a: &Segment, b: &Segment, closest: &Closest, radius: f32) -> bool {
        if closest.flags.contains(Flags::DIST2_OUT_OF_RANGE) {
            within_wide(a, b, closest.s, closest.t, radius)
        } else {
            closest.dist2 <= radius * radius
        }
    }

    fn pair_distance(a: &Segment, b: &Segment, closest: &Closest) -> f32 {
        if closest.flags.contains(Flags::DIST2_OUT_OF_RANGE) {
            distance_wide(a, b, closest.s, closest.t) as f32
        } else {
            closest.dist2.sqrt()
        }
    }

    fn grid(
        n: usize,
        object: &(dyn Fn(usize) -> Segment + Sync),
        own: Option<&(dyn Fn(usize) -> f32 + Sync)>,
        uniform: f32,
        parallel: bool,
    ) -> Option<sealed::Gridded<f32>> {
        grid32(n, object, own, uniform, parallel)
    }

    #[inline(always)]
    fn decide(
        near: &Near<f32>,
        ids: &[u32],
        candidates: &[(u32, u32)],
        scratch: &mut ClosestBatch,
        out: &mut Kept<Hit>,
    ) {
        decide32(near, ids, candidates, scratch, out);
    }

    fn tile_prep(
        a: SegmentsView<'_>,
        b: Option<SegmentsView<'_>>,
        radius: PairRadius<'_>,
        options: &Options,
    ) -> TilePrep32 {
        TilePrep32::new(a, b, radius, options)
    }

    #[inline(always)]
    fn rect(tiles: &Tiles<'_, f32>, rows: Range<usize>, cols: Range<usize>, out: &mut Vec<Hit>) {
        rect32(tiles, rows, cols, out);
    }
}

/// `f64`: the grid in a local frame, the `f64` kernel deciding over gathered `f64`
/// segments; the `f64` range rule ([`within_radius`]).
#[allow(private_interfaces)]
impl sealed::Sets for f64 {
    type Exact = Exact64;
    type Scratch = Gather64;
    type TilePrep = ();

    #[inline]
    fn within_radius(a: &Segment64, b: &Segment64, closest: &Closest64, radius: f64) -> bool {
        within64(closest.dist2, radius, || (*a, *b, closest.s, closest.t))
    }

    fn pair_distance(a: &Segment64, b: &Segment64, closest: &Closest64) -> f64 {
        distance64(a, b, closest.s, closest.t, closest.dist2)
    }

    fn grid(
        n: usize,
        object: &(dyn Fn(usize) -> Segment64 + Sync),
        own: Option<&(dyn Fn(usize) -> f64 + Sync)>,
        uniform: f64,
        parallel: bool,
    ) -> Option<sealed::Gridded<f64>> {
        grid64(n, object, own, uniform, parallel)
    }

    #[inline(always)]
    fn decide(
        near: &Near<f64>,
        ids: &[u32],
        candidates: &[(u32, u32)],
        scratch: &mut Gather64,
        out: &mut Kept<Hit64>,
    ) {
        decide64(near, ids, candidates, scratch, out);
    }

    fn tile_prep(
        _: SegmentsView<'_, f64>,
        _: Option<SegmentsView<'_, f64>>,
        _: PairRadius<'_, f64>,
        _: &Options,
    ) {
    }

    #[inline(always)]
    fn rect(tiles: &Tiles<'_, f64>, rows: Range<usize>, cols: Range<usize>, out: &mut Vec<Hit64>) {
        rect64(tiles, rows, cols, out);
    }
}

/// Whether segments `a` and `b`, whose closest points are `closest` (from any closest-points
/// query or [`reference::closest_points_with`](crate::reference::closest_points_with), in
/// either precision), lie within `radius` of each other: the decision every radius query
/// makes ([`pairs_within`], [`self_pairs_within`](crate::sets::self_pairs_within), their
/// streamed and row forms, [`SegmentIndex::pairs_within`](crate::SegmentIndex::pairs_within))
/// and, in `f64`, the capsule test ([`capsules_touch`](crate::pairs::capsules_touch) and
/// its indexed form) and contact ([`capsule_contacts`](crate::pairs::capsule_contacts)),
/// so a caller can reproduce them pair by pair.
///
/// **In `f32`** it is `closest.dist2 <= radius²` in `f32`, except for a pair flagged
/// [`Flags::DIST2_OUT_OF_RANGE`]: its squared distance under- or overflowed `f32` (two
/// segments `1e-38` apart read `dist2 = 0`, two `1e20` apart read `+∞`), so comparing it
/// with `radius²` would report the first within a radius of `1e-45` and the second within
/// any radius above `1.8e19`. Such a pair is decided in `f64` from its closest points:
/// `|a(s) - b(t)|² <= radius²`, the points `p0 + u·(p1 - p0)` and the square in `f64`
/// (where neither can under- or overflow). A hit's `dist2` stays the kernel's `f32` value
/// (`0` or `+∞` for such a pair); `s` and `t` give its points.
///
/// **In `f64`, the range rule.** It is `closest.dist2 <= radius²` in `f64` whenever
/// `radius²` is at least `2^-968` and finite (`radius` from about `2e-146` to `1.3e154`), or
/// `radius` is `+∞`: a squared distance that left `f64`'s range is then on the right side
/// of `radius²` whatever its true value (one that overflowed, `+∞` and flagged
/// [`Flags::DIST2_OUT_OF_RANGE`], is beyond any such radius; one that underflowed within
/// it). For a radius of `0` (a squared distance that underflowed to `0` is not a distance
/// of `0`) and beyond, when the squared distance and `radius²` both overflowed (segments
/// more than about `1.3e154` apart, a larger radius) or both underflowed, the pair is
/// decided at a scale where neither does: the kernel's separation `(A0 - B0) + s·dA - t·dB`
/// formed from the end points scaled by one power of two `2^e` (chosen from the pair's size
/// and the separation's, so that the larger of it and `radius·2^e` is about 1), its square
/// against `(radius·2^e)²`. Scaling by a power of two changes no rounding that stays
/// normal, so the pair is within the radius exactly when the same pair and radius scaled
/// into the ordinary range are: the decisions of a scene at `1e300` are those of the scene
/// at `1`, bit for bit. The radius of a pair of capsules is `rA + rB` summed in `f64` (an
/// infinite sum holds every finite pair).
///
/// A pair with a non-finite coordinate (NaN `dist2`) is never within any radius.
///
/// ```
/// use segbatch::{Flags, Options, Segment, Segment64};
/// use segbatch::reference::{closest_points, closest_points_with};
/// use segbatch::sets::{pair_distance, within_radius};
/// let a = Segment::new([0.0, 0.0, 0.0], [1e-30, 0.0, 0.0]);
/// let b = Segment::new([0.0, 1e-38, 0.0], [1e-30, 1e-38, 0.0]);
/// let c = closest_points_with(&a, &b, &Options::SEGMENTS);
/// assert_eq!(c.dist2, 0.0); // 1e-76 underflows
/// assert!(!within_radius(&a, &b, &c, 1e-45)); // but the pair is 1e-38 apart
/// assert!(within_radius(&a, &b, &c, 2e-38));
/// // Two parallel f64 segments 2e300 apart: their squared distance overflows.
/// let a = Segment64::new([0.0, 0.0, 0.0], [1e300, 0.0, 0.0]);
/// let b = Segment64::new([0.0, 2e300, 0.0], [1e300, 2e300, 0.0]);
/// let c = closest_points(&a, &b);
/// assert_eq!(c.dist2, f64::INFINITY);
/// assert!(c.flags.contains(Flags::DIST2_OUT_OF_RANGE));
/// assert!(!within_radius(&a, &b, &c, 1.9e300));
/// assert!(within_radius(&a, &b, &c, 2e300));
/// assert_eq!(pair_distance(&a, &b, &c), 2e300);
/// ```
#[must_use]
pub fn within_radius<E: SetElement>(
    a: &E::Segment,
    b: &E::Segment,
    closest: &Closest<E>,
    radius: E,
) -> bool {
    E::within_radius(a, b, closest, radius)
}

/// The distance of segments `a` and `b` whose closest points are `closest`, finite
/// whenever it is representable: `closest.distance()` (`sqrt(dist2)`) when `dist2` is
/// within the element's range; else the distance at the closest points measured where it
/// cannot under- or overflow (as [`within_radius`] decides such a pair): in `f32`, for a
/// pair flagged [`Flags::DIST2_OUT_OF_RANGE`], `|a(s) - b(t)|` in `f64`, rounded to `f32`;
/// in `f64`, when `dist2` is below `2^-968` or not finite (segments more than about
/// `1.3e154` apart, closest points less than about `2e-146` apart), the kernel's
/// separation at `(s, t)` at a power-of-two scale, scaled back. `+∞` only beyond the
/// element's largest value; NaN for a pair with a non-finite coordinate.
///
/// ```
/// use segbatch::{Options, Segment};
/// use segbatch::reference::closest_points_with;
/// use segbatch::sets::pair_distance;
/// let a = Segment::new([0.0, 0.0, 0.0], [1e-30, 0.0, 0.0]);
/// let b = Segment::new([0.0, 1e-38, 0.0], [1e-30, 1e-38, 0.0]);
/// let c = closest_points_with(&a, &b, &Options::SEGMENTS);
/// assert_eq!(c.distance(), 0.0); // 1e-76 underflows
/// assert_eq!(pair_distance(&a, &b, &c), 1e-38);
/// ```
#[must_use]
pub fn pair_distance<E: SetElement>(a: &E::Segment, b: &E::Segment, closest: &Closest<E>) -> E {
    E::pair_distance(a, b, closest)
}

/// The number of records of `set` with a NaN or infinite coordinate.
///
/// The set queries ([`pairs_within`],
/// [`self_pairs_within`](crate::sets::self_pairs_within),
/// [`crossing_pairs`](crate::planar::crossing_pairs), their streamed forms and
/// [`SegmentIndex`](crate::SegmentIndex)) and their `f64` forms leave such members out:
/// their distance to anything is NaN, so they are never within any radius and never
/// cross. This tells how many were left out (one pass over the columns, about a
/// millisecond a million segments), for `f32` and `f64` sets alike.
///
/// ```
/// use segbatch::{Segment, Segment64, Segments, Segments64};
/// use segbatch::planar::{Segment2, Segments2};
/// use segbatch::sets::{count_non_finite, self_pairs_within, SharedEndpoints};
/// let set = Segments::from(&[
///     Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
///     Segment::new([0.0, f32::NAN, 0.0], [1.0, 0.0, 0.0]),
///     Segment::new([0.0, 0.0, 0.0], [f32::INFINITY, 0.0, 0.0]),
/// ]);
/// assert!(self_pairs_within(&set, 1.0, SharedEndpoints::Keep).is_empty());
/// assert_eq!(count_non_finite(&set), 2);
/// let flat = Segments2::from(&[Segment2::new([0.0, 0.0], [f32::NAN, 1.0])]);
/// assert_eq!(count_non_finite(&flat), 1);
/// let utm = Segments64::from(&[Segment64::new([5e5, 5e6, 0.0], [5e5, f64::INFINITY, 0.0])]);
/// assert_eq!(count_non_finite(&utm), 1);
/// ```
#[must_use]
pub fn count_non_finite<'a, T: Record<C, E> + 'a, E: bytemuck::Pod + Into<f64>, const C: usize>(
    set: impl Into<SoaView<'a, T, C, E>>,
) -> usize {
    let set = set.into();
    let cols = set.columns();
    // One pass a column, no branch (an f32 widens to f64 keeping NaN and infinities).
    let mut bad = vec![false; set.len()];
    for col in cols {
        for (b, &x) in bad.iter_mut().zip(col) {
            *b |= !x.into().is_finite();
        }
    }
    bad.iter().filter(|&&b| b).count()
}

/// The radius of a query over `a` alone (`b` `None`) or `a` against `b`, checked against
/// the sets, and the sets' sizes checked.
///
/// # Errors
/// As [`PairRadius::one_set`] and [`PairRadius::two_sets`]; [`Error::TooManyObjects`] for
/// more than `u32::MAX` segments in a set.
fn checked<'v, E: SetElement>(
    radius: Radius<'v, E>,
    a: SegmentsView<'v, E>,
    b: Option<SegmentsView<'v, E>>,
) -> Result<PairRadius<'v, E>, Error> {
    let radius = match b {
        None => PairRadius::one_set(radius, a.len())?,
        Some(b) => PairRadius::two_sets(radius, a.len(), b.len())?,
    };
    check_u32(a.len().max(b.map_or(0, |b| b.len())))?;
    Ok(radius)
}

/// Every hit of the tiles, sorted by `(i, j)`, appended to `out` (which the callers clear
/// before validating their inputs), grown with `try_reserve` block by block: the blocks of
/// [`Tiles::each`], then one sort (on all cores when `parallel`).
///
/// # Errors
/// [`Error::OutOfMemory`] naming `what` when `out` cannot grow (`out` is then empty).
fn tiles_collect<E: SetElement>(
    tiles: &Tiles<'_, E>,
    parallel: bool,
    what: &'static str,
    out: &mut Vec<Hit<E>>,
) -> Result<(), Error> {
    let mut short = None;
    tiles.each(parallel, <[Hit<E>]>::to_vec, |block: Vec<Hit<E>>| {
        if out.try_reserve(block.len()).is_err() {
            short = Some(out.len() + block.len());
            return false;
        }
        out.extend_from_slice(&block);
        true
    });
    if let Some(elements) = short {
        out.clear();
        return Err(Error::OutOfMemory { what, elements });
    }
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::slice::ParallelSliceMut;
        out.par_sort_unstable_by_key(|h| (h.i, h.j));
        return Ok(());
    }
    out.sort_unstable_by_key(|h| (h.i, h.j));
    Ok(())
}

/// Every hit of `a` against `b` (or of `a` with itself, `i < j`), sorted by `(i, j)`,
/// into `out` (cleared first, after the checks), grown with `try_reserve`: the grid's
/// tasks ([`pruned`]), or the brute-force tiles.
pub(super) fn collected<'v, E: SetElement>(
    a: SegmentsView<'v, E>,
    b: Option<SegmentsView<'v, E>>,
    (radius, skip): (Radius<'v, E>, bool),
    options: &Options,
    parallel: bool,
    (what, out): (&'static str, &mut Vec<Hit<E>>),
) -> Result<(), Error> {
    out.clear();
    let radius = checked(radius, a, b)?;
    let done = match pruned(a, b, radius, skip, options, parallel) {
        Some((plan, narrow)) => plan.collect(&narrow, a.len(), |h| h, parallel, (what, out)),
        None => tiles_collect(
            &Tiles::new(a, b, radius, skip, options),
            parallel,
            what,
            out,
        ),
    };
    if done.is_err() {
        out.clear();
    }
    done
}

/// Streams the hits of `a` against `b` (or of `a` with itself) to `sink` as [`PairHit`]
/// blocks of at most [`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS), after the checks:
/// the grid's tasks, or the brute-force tiles; `sink` answering `false` stops the query.
fn streamed<'v, E: SetElement>(
    a: SegmentsView<'v, E>,
    b: Option<SegmentsView<'v, E>>,
    (radius, skip): (Radius<'v, E>, bool),
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit<E>]) -> bool,
) -> Result<(), Error> {
    let radius = checked(radius, a, b)?;
    let finish =
        |hits: &[Hit<E>]| -> Vec<PairHit<E>> { hits.iter().map(|&h| PairHit::from(h)).collect() };
    let deliver = |block: Vec<PairHit<E>>| sink(&block);
    match pruned(a, b, radius, skip, options, parallel) {
        Some((plan, narrow)) => plan.each(&narrow, parallel, finish, deliver),
        None => Tiles::new(a, b, radius, skip, options).each(parallel, finish, deliver),
    }
    Ok(())
}

fn each_self<'a, 'r, E: SetElement>(
    set: SegmentsView<'a, E>,
    radius: Radius<'r, E>,
    shared: SharedEndpoints,
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit<E>]) -> bool,
) -> Result<(), Error> {
    let skip = shared == SharedEndpoints::Skip;
    streamed(set, None, (radius, skip), options, parallel, sink)
}

fn each_pair<'a, 'b, 'r, E: SetElement>(
    a: SegmentsView<'a, E>,
    b: SegmentsView<'b, E>,
    radius: Radius<'r, E>,
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit<E>]) -> bool,
) -> Result<(), Error> {
    streamed(a, Some(b), (radius, false), options, parallel, sink)
}

stream_forms! {
    /// The streaming form of [`self_pairs_within_into`](crate::sets::self_pairs_within_into): every
    /// pair `i < j` of `set` within `radius`, handed to `sink` in blocks of [`PairHit`]s of
    /// at most [`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS), whatever the set's layout
    /// (collinear, identical or dense sets included). The call holds the input, the grid
    /// and a few blocks (a few a thread for the parallel form), never the whole output, so
    /// it takes any number of hits. `radius` is one for every pair or one an object, as for
    /// [`self_pairs_within`](crate::sets::self_pairs_within). The pairs and values are those of
    /// [`self_pairs_within`](crate::sets::self_pairs_within); the order is the grid's (sort a
    /// collected list by `(i, j)` to compare). Rays, lines and an infinite radius take the
    /// brute-force tiles, streamed the same way: blocks of 64 rows in order, each block
    /// sorted by `(i, j)`. Members with a NaN or infinite coordinate are never within any
    /// radius ([`count_non_finite`] counts them); a pair whose squared distance leaves the
    /// precision's range is decided as [`within_radius`] states. On
    /// [`Segments64`](crate::Segments64) the query runs in `f64` (the grid in a local frame,
    /// the `f64` kernel deciding) and streams [`PairHit64`](crate::sets::PairHit64)s.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN (the first such index of a
    /// list), [`Error::LengthMismatch`] for a list that is not one radius an object of the
    /// set (or two lists), [`Error::TooManyObjects`] for more than `u32::MAX` segments
    /// (`sink` is not called).
    ///
    /// ```
    /// use segbatch::{Options, Segment, Segments};
    /// use segbatch::sets::{for_each_self_pair_within, SharedEndpoints};
    /// let set: Segments = (0..1000).map(|k| {
    ///     let x = k as f32;
    ///     Segment::new([x, 0.0, 0.0], [x + 0.5, 0.0, 0.0]) // 0.5 apart end to start
    /// }).collect();
    /// let mut count = 0;
    /// for_each_self_pair_within(&set, 0.5, SharedEndpoints::Keep, &Options::SEGMENTS, |block| {
    ///     count += block.len();
    /// })?;
    /// assert_eq!(count, 999);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn for_each_self_pair_within / par_for_each_self_pair_within
        <'a, 'r; E: SetElement>(set: impl Into<SegmentsView<'a, E>>, radius: impl Into<Radius<'r, E>>, shared: SharedEndpoints, options: &Options)
        -> sink(&[PairHit<E>]) = each_self;
}

stream_forms! {
    /// The streaming form of [`pairs_within_into`]: every pair of
    /// `a[i]` and `b[j]` within `radius`, handed to `sink` in blocks of [`PairHit`]s (see
    /// [`for_each_self_pair_within`]).
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN (the first such index of a
    /// list), [`Error::LengthMismatch`] for a list that is not one radius an object of its
    /// set, [`Error::TooManyObjects`] for more than `u32::MAX` segments in a set (`sink` is
    /// not called).
    ///
    /// ```
    /// use segbatch::{Options, Segment, Segments};
    /// use segbatch::sets::{for_each_pair_within, PairHit};
    /// let walls = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [0.0, 4.0, 0.0])]);
    /// let paths = Segments::from(&[
    ///     Segment::new([0.5, 2.0, 0.0], [3.0, 2.0, 0.0]),
    ///     Segment::new([5.0, 2.0, 0.0], [9.0, 2.0, 0.0]),
    /// ]);
    /// let mut hits: Vec<PairHit> = Vec::new();
    /// for_each_pair_within(&walls, &paths, 1.0, &Options::SEGMENTS, |block| hits.extend_from_slice(block))?;
    /// assert_eq!(hits, vec![PairHit { i: 0, j: 0, dist2: 0.25 }]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn for_each_pair_within / par_for_each_pair_within
        <'a, 'b, 'r; E: SetElement>(a: impl Into<SegmentsView<'a, E>>, b: impl Into<SegmentsView<'b, E>>, radius: impl Into<Radius<'r, E>>, options: &Options)
        -> sink(&[PairHit<E>]) = each_pair;
}

query_forms! {
    /// Every pair `(i, j)` of `a[i]` and `b[j]` whose squared distance is at most
    /// `radius²`, segment against segment, sorted by `(i, j)`. `radius` is one for every
    /// pair (a number of the sets' precision), one an object of A ([`Radius::Each`], from a slice: B's objects are
    /// bare segments) or one an object of each side ([`Radius::Sides`]: a pair reported
    /// when `distance <= ra[i] + rb[j]`), each pair decided once.
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// use segbatch::sets::pairs_within;
    /// let walls = Segments::from(&[
    ///     Segment::new([0.0, 0.0, 0.0], [0.0, 4.0, 0.0]),
    ///     Segment::new([10.0, 0.0, 0.0], [10.0, 4.0, 0.0]),
    /// ]);
    /// let paths = Segments::from(&[Segment::new([0.5, 2.0, 0.0], [3.0, 2.0, 0.0])]);
    /// let hits = pairs_within(&walls, &paths, 1.0);
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!((hits[0].i, hits[0].j, hits[0].dist2), (0, 0, 0.25));
    /// ```
    pub fn pairs_within / pairs_within_into / par_pairs_within / par_pairs_within_into
        <'a, 'b, 'r; E: SetElement>(a: impl Into<SegmentsView<'a, E>>, b: impl Into<SegmentsView<'b, E>>, radius: impl Into<Radius<'r, E>>)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<Hit<E>> = within_forms;
    /// The general form of [`pairs_within`]: extents and tolerance from `options`, the hits
    /// written into `out` (cleared first, allocation reused). The parallel forms split the
    /// pair space into rectangles of tiles above
    /// [`PAR_MIN_PAIR_TESTS`](crate::pairs::PAR_MIN_PAIR_TESTS) pair tests.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN (the first such index of a
    /// list, A's first); [`Error::LengthMismatch`] when a list is not one radius an object
    /// of its set; [`Error::TooManyObjects`] for more than `u32::MAX` segments in a set;
    /// [`Error::OutOfMemory`] when the
    /// output cannot grow to the hits found (it is grown with `try_reserve`; `out` is then
    /// empty: the streamed forms take any number of hits).
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// use segbatch::sets::{pairs_within, par_pairs_within};
    /// let a: Segments = (0..400).map(|k| Segment::new([k as f32, 0.0, 0.0], [k as f32, 1.0, 0.0])).collect();
    /// let b: Segments = (0..700).map(|k| Segment::new([0.5 * k as f32, 0.5, 0.3], [0.5 * k as f32, 0.5, 1.3])).collect();
    /// let hits = par_pairs_within(&a, &b, 0.6);
    /// assert_eq!(hits, pairs_within(&a, &b, 0.6));
    /// // a[k] meets b[2k-1], b[2k] and b[2k+1] where they exist: 2 + 349·3 + 1 pairs.
    /// assert_eq!(hits.len(), 1050);
    /// ```
    into;
}

fn within_forms<'a, 'b, 'r, E: SetElement>(
    a: SegmentsView<'a, E>,
    b: SegmentsView<'b, E>,
    radius: Radius<'r, E>,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit<E>>,
) -> Result<(), Error> {
    let what = "pairs_within output";
    collected(a, Some(b), (radius, false), options, parallel, (what, out))
}

impl<E: SetElement> Ranked for Hit<E> {
    #[inline]
    fn pieces(&self) -> (u32, u32) {
        (self.i, self.j)
    }

    /// The squared distance's bits (in `f64`, where an `f32` converts exactly): a hit's
    /// `dist2` is never NaN and never negative, and the bits of non-negative `f64`s order
    /// as their values do.
    #[inline]
    fn distance_key(&self) -> u64 {
        self.dist2.into().to_bits()
    }
}

/// Runs the row query of `a` (against `b`, or within `a`) at `radius`, segment against
/// segment, and hands its blocks of row hits to `sink` (each row pair at most once a task;
/// the brute-force tiles of small sets as one block, each row pair once).
///
/// # Errors
/// As [`checked`]; [`Error::OutOfMemory`] when the brute-force hits cannot be held.
fn each_row<E: SetElement>(
    a: SegmentsView<'_, E>,
    b: Option<SegmentsView<'_, E>>,
    rows: Rows<'_>,
    radius: Radius<'_, E>,
    answer: RowAnswer,
    parallel: bool,
    sink: &mut RowSink<'_, Hit<E>>,
) -> Result<(), Error> {
    let radius = checked(radius, a, b)?;
    let options = &Options::SEGMENTS;
    match pruned(a, b, radius, false, options, parallel) {
        Some((plan, inner)) => {
            let by_position = b.is_none().then(|| rows.by_position(plan.ids()));
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
        None => {
            let what = "row query output";
            let mut hits = Vec::new();
            tiles_collect(
                &Tiles::new(a, b, radius, false, options),
                parallel,
                what,
                &mut hits,
            )?;
            let mut out = Vec::new();
            super::rows::of_pieces(&hits, rows, what, &mut out)?;
            super::rows::once(&mut out, parallel);
            sink(&out);
        }
    }
    Ok(())
}

fn rows_within_run<'a, E: SetElement>(
    set: SegmentsView<'a, E>,
    rows: &[u32],
    radius: Radius<'_, E>,
    answer: RowAnswer,
    parallel: bool,
    out: &mut Vec<RowHit<Hit<E>>>,
) -> Result<(), Error> {
    out.clear();
    let rows = Rows::checked(rows, set.len(), None)?;
    let query = (set, None, radius, answer);
    collect_rows(query, rows, parallel, "rows_within output", out)
}

/// The row hits of [`each_row`] on `(a, b, radius, answer)`, collected into `out` (empty
/// on an error).
fn collect_rows<E: SetElement>(
    (a, b, radius, answer): (
        SegmentsView<'_, E>,
        Option<SegmentsView<'_, E>>,
        Radius<'_, E>,
        RowAnswer,
    ),
    rows: Rows<'_>,
    parallel: bool,
    what: &'static str,
    out: &mut Vec<RowHit<Hit<E>>>,
) -> Result<(), Error> {
    let mut failed = Ok(());
    super::rows::collect(
        |sink| failed = each_row(a, b, rows, radius, answer, parallel, sink),
        parallel,
        what,
        out,
    )?;
    failed.inspect_err(|_| out.clear())
}

query_forms! {
    /// Every pair of rows `a < b` of `set` that come within `radius` of each other (in the
    /// precision of `set`, segment against segment: some piece of one and some piece of the
    /// other have `dist2 <= r²`, decided as [`within_radius`] decides), each once, sorted by
    /// `(a, b)`; `rows[i]` is the row of `set[i]`. `r` is `radius` for a number, or
    /// `radii[i] + radii[j]` for one radius a piece ([`Radius::Each`]). Pairs of pieces of one row are
    /// masked in the grid's scan, never decided; with [`RowAnswer::Any`] (the default) a
    /// row pair stops being decided once it met, with [`RowAnswer::Least`] each row pair
    /// reports its closest piece pair (the rows' distance: [`RowHit`]).
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::rows_within;
    /// // Two tracks 25 m apart at UTM coordinates, and a third far away.
    /// let (e, n) = (500_000.0, 5_000_000.0);
    /// let set = Segments64::from(&[
    ///     Segment64::new([e, n, 0.0], [e + 10.0, n, 0.0]),
    ///     Segment64::new([e + 10.0, n, 0.0], [e + 20.0, n, 0.0]),
    ///     Segment64::new([e + 20.0, n + 25.0, 0.0], [e + 40.0, n + 25.0, 0.0]),
    ///     Segment64::new([e + 900.0, n, 0.0], [e + 910.0, n, 0.0]),
    /// ]);
    /// let hits = rows_within(&set, &[0, 0, 1, 2], 25.0);
    /// assert_eq!(hits.iter().map(|h| (h.a, h.b)).collect::<Vec<_>>(), vec![(0, 1)]);
    /// assert_eq!(hits[0].hit.dist2, 625.0);
    /// ```
    pub fn rows_within / rows_within_into / par_rows_within / par_rows_within_into
        <'a, 'r, 'q; E: SetElement>(set: impl Into<SegmentsView<'a, E>>, rows: &'r [u32], radius: impl Into<Radius<'q, E>>)
        with (answer: RowAnswer = RowAnswer::Any)
        -> Vec<RowHit<Hit<E>>> = rows_within_run;
    /// The general form of [`rows_within`]: `answer` picks the hit each row pair reports;
    /// the row hits are written into `out` (cleared first, allocation reused, grown with
    /// `try_reserve`).
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::{rows_within_into, RowAnswer};
    /// let set = Segments64::from(&[
    ///     Segment64::new([0.0, 0.0, 0.0], [10.0, 0.0, 0.0]),
    ///     Segment64::new([0.0, 3.0, 0.0], [5.0, 3.0, 0.0]),
    ///     Segment64::new([5.0, 3.0, 0.0], [5.0, 1.0, 0.0]),
    /// ]);
    /// let mut hits = Vec::new();
    /// rows_within_into(&set, &[0, 1, 1], 4.0, RowAnswer::Least, &mut hits)?;
    /// assert_eq!((hits[0].hit.j, hits[0].hit.dist2), (2, 1.0)); // the closest piece pair
    /// assert!(rows_within_into(&set, &[0, 1, 1], -1.0, RowAnswer::Any, &mut hits).is_err());
    /// // The same in `f32`.
    /// let set: segbatch::Segments = set.iter().map(|s| {
    ///     segbatch::Segment::new(s.p0.map(|x| x as f32), s.p1.map(|x| x as f32))
    /// }).collect();
    /// let mut hits = Vec::new();
    /// rows_within_into(&set, &[0, 1, 1], 4.0, RowAnswer::Least, &mut hits)?;
    /// assert_eq!((hits[0].hit.j, hits[0].hit.dist2), (2, 1.0f32));
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN (the first such index of a
    /// list); [`Error::LengthMismatch`] when `rows` is not one row a segment, or a list not
    /// one radius a segment; [`Error::TooManyObjects`] for more than
    /// `u32::MAX` segments; [`Error::OutOfMemory`] when the output cannot grow to the row
    /// pairs found (`out` is then empty).
    into;
}

#[allow(clippy::too_many_arguments)] // the query's inputs, as its forms take them
fn rows_within_between_run<'a, 'b, E: SetElement>(
    a: SegmentsView<'a, E>,
    rows_a: &[u32],
    b: SegmentsView<'b, E>,
    rows_b: &[u32],
    radius: Radius<'_, E>,
    answer: RowAnswer,
    parallel: bool,
    out: &mut Vec<RowHit<Hit<E>>>,
) -> Result<(), Error> {
    out.clear();
    let rows = Rows::checked(rows_a, a.len(), Some((rows_b, b.len())))?;
    let query = (a, Some(b), radius, answer);
    collect_rows(query, rows, parallel, "rows_within_between output", out)
}

query_forms! {
    /// Every pair of a row `a` of set A and a row `b` of set B that come within `radius` of
    /// each other, each once, sorted by `(a, b)` (`rows_a[i]` the row of `a[i]`, `rows_b[j]`
    /// that of `b[j]`), decided as [`rows_within`] decides.
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::rows_within_between;
    /// let wells = Segments64::from(&[Segment64::new([0.0, 0.0, 0.0], [0.0, 0.0, -100.0])]);
    /// let faults = Segments64::from(&[
    ///     Segment64::new([3.0, 0.0, -50.0], [3.0, 10.0, -50.0]),
    ///     Segment64::new([30.0, 0.0, -50.0], [30.0, 10.0, -50.0]),
    /// ]);
    /// let hits = rows_within_between(&wells, &[0], &faults, &[5, 6], 3.0);
    /// assert_eq!(hits.iter().map(|h| (h.a, h.b)).collect::<Vec<_>>(), vec![(0, 5)]);
    /// ```
    pub fn rows_within_between / rows_within_between_into
        / par_rows_within_between / par_rows_within_between_into
        <'a, 'b, 'r, 's, 'q; E: SetElement>(a: impl Into<SegmentsView<'a, E>>, rows_a: &'r [u32],
            b: impl Into<SegmentsView<'b, E>>, rows_b: &'s [u32], radius: impl Into<Radius<'q, E>>)
        with (answer: RowAnswer = RowAnswer::Any)
        -> Vec<RowHit<Hit<E>>> = rows_within_between_run;
    /// The general form of [`rows_within_between`] (`answer` as in
    /// [`rows_within_into`]).
    ///
    /// # Errors
    /// As [`rows_within_into`], for either set.
    into;
}

fn each_row_within<'a, E: SetElement>(
    set: SegmentsView<'a, E>,
    rows: &[u32],
    radius: Radius<'_, E>,
    answer: RowAnswer,
    parallel: bool,
    sink: &mut RowSink<'_, Hit<E>>,
) -> Result<(), Error> {
    let rows = Rows::checked(rows, set.len(), None)?;
    each_row(set, None, rows, radius, answer, parallel, sink)
}

stream_forms! {
    /// The streaming form of [`rows_within_into`], for outputs larger than memory: the row
    /// pairs within `radius` handed to `sink` in blocks of at most
    /// [`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS), a task's blocks in the grid's order. A task reports each of its
    /// row pairs once; a row pair whose pieces fall in several tasks comes once from each
    /// (the collected forms keep the first by rank).
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::{for_each_row_within, RowAnswer};
    /// let set = Segments64::from(&[
    ///     Segment64::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
    ///     Segment64::new([0.0, 0.5, 0.0], [1.0, 0.5, 0.0]),
    /// ]);
    /// let mut pairs = Vec::new();
    /// for_each_row_within(&set, &[3, 8], 1.0, RowAnswer::Any, |block| {
    ///     pairs.extend(block.iter().map(|h| (h.a, h.b)));
    /// })?;
    /// assert_eq!(pairs, vec![(3, 8)]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`rows_within_into`] (`sink` is not called).
    pub fn for_each_row_within / par_for_each_row_within
        <'a, 'r, 'q; E: SetElement>(set: impl Into<SegmentsView<'a, E>>, rows: &'r [u32], radius: impl Into<Radius<'q, E>>, answer: RowAnswer)
        -> sink(&[RowHit<Hit<E>>]) = each_row_within;
}
