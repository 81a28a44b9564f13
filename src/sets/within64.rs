//! The radius queries in `f64`: every A against every B ([`pairs_within64`]) and all pairs
//! `i < j` of one set ([`self_pairs_within64`]), collected or streamed
//! ([`for_each_pair_within64`], [`for_each_self_pair_within64`]), on the grid of
//! [`crate::prune`] whenever the `f32` queries take it (segments against segments, a
//! radius whose square is finite, two sets of more than [`FEW`] objects each). The radius
//! is one for every pair or one an object ([`Radius64`]: capsules, `rI + rJ` summed in
//! `f64`), as in the `f32` queries.
//!
//! # The grid in `f32`, the decision in `f64`
//!
//! The grid only names candidates; the `f64` kernel decides each one (`dist2 <= r²` in
//! `f64`, `r` the pair's radius, by the `f64` range rule of [`within_radius64`] where `r²`
//! leaves `f64`'s range), so the pairs and values are exactly those of brute force over
//! [`reference::closest_points_with`](crate::reference::closest_points_with), whatever
//! the grid names. What the grid must do is name every pair the kernel reports, and it
//! does so in `f32`, with the machinery of the `f32` queries unchanged:
//!
//! - the sets are moved to a local frame ([`LocalFrame`]: the centre of their bounding box
//!   subtracted in `f64`, scaled down by a power of two only beyond `2^63`) and rounded to
//!   `f32`; the rounding moves a point by at most `ε/2` of its coordinate in the frame,
//!   which each object's growth adds ([`frame_rounding`]);
//! - each object's sphere is grown by [`KERNEL_ABS64`] times its largest coordinate in the
//!   caller's frame (rounded up into the local one): 32 times the `f64` kernel's error bound
//!   of `8·ε·S`, so an exact distance of up to `radius + 8·ε·S` (everything the kernel
//!   may round to within the radius) meets the spheres;
//! - the radius is rounded up into the local frame; per-object radii are added to each
//!   object's growth instead (the grid then looks for spheres that meet).
//!
//! The spheres then hold the `f64` segments, and the sphere test and the refinement are
//! those of the `f32` queries, conservative for them. The narrow phase gathers each run of
//! candidates from a copy of the sets in the grid's order (one 64-byte row a segment) into
//! an `f64` batch and runs the `f64` kernel over it ([`closest_points_into`]).
//!
//! **What it costs.** In the local frame the spheres are as tight as the `f32` query's on
//! the same scene moved to the origin: the coordinates are offsets within the set, so a set
//! at UTM northings (5e6 m) or in ECEF metres costs what it costs near the origin (in the
//! caller's frame the `f32` spheres would be 0.45 m wider at 5e6, and the rounded objects
//! another 0.6 m). The `f64` error term is `5.7e-14` of the coordinates (0.3 µm at 5e6),
//! nothing next to any radius a caller asks for. A set spread over `2^63` is scaled and its
//! small features share `f32` values, so candidates grow there, never results. The work
//! over the `f32` query is the `f64` kernel (half the lanes a register), its gather (96
//! bytes a candidate) and the copy of the sets in grid order (64 bytes a segment):
//! measured in docs/performance.md (sets).
//!
//! # Brute force
//!
//! Rays and lines (unbounded), a radius whose square overflows (above about `1.3e154`: the
//! range rule decides its pairs) and a side of at most [`FEW`] objects take tiles:
//! each row `a[i]` against a tile of [`TILE_B`] segments of B through the driver's
//! one-to-many loop over the `f64` lane type, into a scratch batch that stays in L1, in
//! blocks of [`TILE_A`] rows by `MAX_BLOCK_HITS / TILE_A` columns (so a streamed block never
//! holds more than [`MAX_BLOCK_HITS`] hits).
//!
//! # The edges of `f64`'s range
//!
//! Two segments more than about `1.3e154` apart have a squared distance that overflows
//! (`+∞`, flagged [`Flags::DIST2_OUT_OF_RANGE`](crate::Flags::DIST2_OUT_OF_RANGE)), and
//! closest points less than about `1.5e-154` apart one that underflows. Against a radius
//! whose square is a normal number that changes no decision; against a larger or smaller
//! one (`1e300`, `1e-200`) it would, so such a pair is decided at a power-of-two scale
//! where neither square leaves the range ([`within_radius64`], the `f64` range rule): the
//! decisions of a scene at `1e300` are those of the same scene scaled to `1`. An infinite
//! radius holds every finite pair.
//!
//! Members with a NaN or infinite coordinate are never within any radius: the grid leaves
//! them out, the tiles find their `dist2` NaN ([`count_non_finite`](crate::sets::count_non_finite)
//! counts them). The parallel forms return exactly what the sequential ones do, and the
//! streamed ones the same pairs and values in blocks.

use super::hits::SharedEndpoints;
use super::hits::{TILE_A, TILE_B};
use super::radius::{PairRadius, Radius, Radius64};
use super::rows::{ByRow, RowAnswer, RowHit, RowSink, Rows};
use super::within::{FEW, Probe};
use crate::batch::{Error, Segments64, Segments64View, Soa, check_u32};
use crate::driver::Row;
use crate::forms::{query_forms, stream_forms};
use crate::pairs::{ClosestBatch64, Outputs, closest_points_into, closest_points_one_to_many_into};
use crate::prune::{
    Grid, KERNEL_ABS64, Kept, Layout, LocalFrame, MAX_BLOCK_HITS, Narrow, Plan, SphereColumns,
    fill_each, frame_rounding, ordered, pad_slot,
};
use crate::segment::{Closest64, Extent, Options, Segment, Segment64};
use bytemuck::{Pod, Zeroable};
use core::ops::Range;

/// A pair within the radius of a [`pairs_within64`] or [`self_pairs_within64`] query:
/// [`Hit`](crate::sets::Hit)'s `f64` twin, `a[i]` against `b[j]` (or `set[i]` against `set[j]`,
/// `i < j`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hit64 {
    /// Index in A (or in the set).
    pub i: u32,
    /// Index in B (or in the set, `j > i`).
    pub j: u32,
    /// Squared distance of the closest points.
    pub dist2: f64,
    /// Parameter of the closest point along `a[i]`.
    pub s: f64,
    /// Parameter of the closest point along `b[j]`.
    pub t: f64,
}

impl Hit64 {
    /// The distance `sqrt(dist2)`.
    #[inline]
    #[must_use]
    pub fn distance(&self) -> f64 {
        self.dist2.sqrt()
    }
}

/// A hit of the streamed `f64` radius queries, 16 bytes: `a[i]` (or `set[i]`) within the
/// radius of `b[j]` (or `set[j]`, `i < j`), at squared distance `dist2`
/// ([`PairHit`](crate::sets::PairHit)'s `f64` twin).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairHit64 {
    /// Index in A (or in the set).
    pub i: u32,
    /// Index in B (or in the set, `j > i`).
    pub j: u32,
    /// Squared distance of the closest points (as [`Hit64::dist2`]).
    pub dist2: f64,
}

impl From<Hit64> for PairHit64 {
    fn from(h: Hit64) -> PairHit64 {
        PairHit64 {
            i: h.i,
            j: h.j,
            dist2: h.dist2,
        }
    }
}

/// True when an end point of `a` equals one of `b` (all three coordinates, with `==`).
fn shares_endpoint(a: &Segment64, b: &Segment64) -> bool {
    [a.p0, a.p1].iter().any(|p| *p == b.p0 || *p == b.p1)
}

/// Whether `f64` segments `a` and `b`, whose closest points are `closest` (from any `f64`
/// closest-points query or
/// [`reference::closest_points_with`](crate::reference::closest_points_with)), lie
/// within `radius` of each other: the decision every `f64` radius query
/// ([`pairs_within64`], [`self_pairs_within64`], their streamed forms,
/// [`SegmentIndex64::pairs_within`](crate::sets::SegmentIndex64::pairs_within)), capsule
/// test ([`capsules_touch`](crate::pairs::capsules_touch) and its indexed form) and
/// contact ([`capsule_contacts`](crate::pairs::capsule_contacts)) makes, so a caller
/// can reproduce them pair by pair.
///
/// **The `f64` range rule.** It is `closest.dist2 <= radius²` in `f64` whenever `radius²`
/// is at least `2^-968` and finite (`radius` from about `2e-146` to `1.3e154`), or `radius` is
/// `+∞`: a squared distance that left `f64`'s range is then on the right side of `radius²`
/// whatever its true value (one that overflowed, `+∞` and flagged
/// [`Flags::DIST2_OUT_OF_RANGE`](crate::Flags::DIST2_OUT_OF_RANGE), is beyond any such
/// radius; one that underflowed within it). For a radius of `0` (a squared distance that
/// underflowed to `0` is not a distance of `0`) and beyond, when the squared distance and
/// `radius²` both overflowed (segments more than about `1.3e154` apart, a larger radius)
/// or both underflowed, the pair is decided at a scale where neither does: the kernel's
/// separation `(A0 - B0) + s·dA - t·dB` formed from the end points scaled by one power of
/// two `2^e` (chosen from the pair's size and the separation's, so that the larger of it
/// and `radius·2^e` is about 1), its square against `(radius·2^e)²`. Scaling by a power of
/// two changes no rounding that stays normal, so the pair is within the radius exactly
/// when the same pair and radius scaled into the ordinary range are: the decisions of a
/// scene at `1e300` are those of the scene at `1`, bit for bit. The radius of a pair of
/// capsules is `rA + rB` summed in `f64` (an infinite sum holds every finite pair).
///
/// A pair with a non-finite coordinate (NaN `dist2`) is never within any radius.
///
/// ```
/// use segbatch::{Flags, Segment64};
/// use segbatch::reference::closest_points;
/// use segbatch::sets::{pair_distance64, within_radius64};
/// // Two parallel segments 2e300 apart: their squared distance overflows.
/// let a = Segment64::new([0.0, 0.0, 0.0], [1e300, 0.0, 0.0]);
/// let b = Segment64::new([0.0, 2e300, 0.0], [1e300, 2e300, 0.0]);
/// let c = closest_points(&a, &b);
/// assert_eq!(c.dist2, f64::INFINITY);
/// assert!(c.flags.contains(Flags::DIST2_OUT_OF_RANGE));
/// assert!(!within_radius64(&a, &b, &c, 1.9e300));
/// assert!(within_radius64(&a, &b, &c, 2e300));
/// assert_eq!(pair_distance64(&a, &b, &c), 2e300);
/// ```
#[must_use]
pub fn within_radius64(a: &Segment64, b: &Segment64, closest: &Closest64, radius: f64) -> bool {
    within(closest.dist2, radius, || (*a, *b, closest.s, closest.t))
}

/// The distance of `f64` segments `a` and `b` whose closest points are `closest`, finite
/// whenever it is representable: `closest.distance()` (`sqrt(dist2)`) when `dist2` is at
/// least `2^-968` and finite; else (segments more than about `1.3e154` apart, closest
/// points less than about `2e-146` apart) the kernel's separation at `(s, t)` measured at
/// a power-of-two scale and scaled back (see [`within_radius64`]): `+∞` only beyond `f64::MAX`. NaN for a pair with a
/// non-finite coordinate.
#[must_use]
pub fn pair_distance64(a: &Segment64, b: &Segment64, closest: &Closest64) -> f64 {
    super::radius::distance64(a, b, closest.s, closest.t, closest.dist2)
}

/// Columns of B a brute-force block covers: a block of [`TILE_A`] rows then holds at most
/// [`MAX_BLOCK_HITS`] hits.
const BRUTE_COLS: usize = MAX_BLOCK_HITS / TILE_A;

pub(super) use super::radius::within64 as within;

/// One brute-force radius query: rows of `a` against columns of `b`.
struct Within64<'v, 'o> {
    a: Segments64View<'v>,
    b: Segments64View<'v>,
    options: &'o Options,
    radius: PairRadius<'v, f64>,
    /// Only pairs `j > i` (a set against itself).
    upper: bool,
    /// Drop pairs that share an end point.
    skip_shared: bool,
}

impl Within64<'_, '_> {
    /// Appends the hits of rows `rows` against the columns `cols` to `out`, sorted by
    /// `(i, j)`.
    fn rect(&self, rows: Range<usize>, cols: Range<usize>, out: &mut Vec<Hit64>) {
        let start = out.len();
        let mut scratch = ClosestBatch64::new();
        for bb in cols.clone().step_by(TILE_B) {
            let bend = (bb + TILE_B).min(cols.end);
            for i in rows.clone() {
                let lo = if self.upper { bb.max(i + 1) } else { bb };
                if lo >= bend {
                    continue;
                }
                let one = self.a.get(i).expect("a row of A");
                let tile = self.b.view(lo..bend);
                closest_points_one_to_many_into(
                    &one,
                    tile,
                    self.options,
                    Outputs::PARAMS,
                    &mut scratch,
                )
                .expect("one-to-many takes every input");
                let (s, t) = (scratch.s(), scratch.t());
                for (k, &dist2) in scratch.dist2().iter().enumerate() {
                    let pair = || (one, tile.at(k), s[k], t[k]);
                    if within(dist2, self.radius.of(i, lo + k), pair)
                        && !(self.skip_shared && shares_endpoint(&one, &tile.at(k)))
                    {
                        // The queries check that their sets have at most `u32::MAX` objects.
                        out.push(Hit64 {
                            i: i as u32,
                            j: (lo + k) as u32,
                            dist2,
                            s: s[k],
                            t: t[k],
                        });
                    }
                }
            }
        }
        out[start..].sort_unstable_by_key(|h| (h.i, h.j));
    }

    /// Every hit, in blocks of at most [`MAX_BLOCK_HITS`]: blocks of [`TILE_A`] rows in
    /// order, each cut into runs of [`BRUTE_COLS`] columns, each block sorted by `(i, j)`;
    /// made by `finish` and handed to `sink` as [`ordered`] does (on all cores when
    /// `parallel` and there are at least
    /// [`PAR_MIN_PAIR_TESTS`](crate::pairs::PAR_MIN_PAIR_TESTS) pair tests: the same
    /// blocks).
    fn each<B: Send>(
        &self,
        parallel: bool,
        finish: impl Fn(&[Hit64]) -> B + Sync,
        sink: impl FnMut(B) -> bool,
    ) {
        let (na, nb) = (self.a.len(), self.b.len());
        let block = |k: usize, buf: &mut Vec<Hit64>, emit: &mut dyn FnMut(&[Hit64]) -> bool| {
            let rows = k * TILE_A..((k + 1) * TILE_A).min(na);
            // A set against itself: only the columns past the block's first row.
            let first = if self.upper {
                (rows.start + 1) / BRUTE_COLS * BRUTE_COLS
            } else {
                0
            };
            for c in (first..nb).step_by(BRUTE_COLS) {
                buf.clear();
                self.rect(rows.clone(), c..(c + BRUTE_COLS).min(nb), buf);
                if !buf.is_empty() && !emit(buf) {
                    return;
                }
            }
        };
        let tests = if self.upper {
            na.saturating_mul(na) / 2
        } else {
            na.saturating_mul(nb)
        };
        let parallel = parallel && tests >= crate::driver::PAR_MIN_PAIR_TESTS;
        ordered(na.div_ceil(TILE_A), parallel, Vec::new, block, finish, sink);
    }

    /// Every hit, sorted by `(i, j)`, appended to `out` (grown with `try_reserve`).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] naming `what` when `out` cannot grow (`out` is then empty).
    fn collect(
        &self,
        parallel: bool,
        what: &'static str,
        out: &mut Vec<Hit64>,
    ) -> Result<(), Error> {
        let mut short = None;
        self.each(parallel, <[Hit64]>::to_vec, |hits: Vec<Hit64>| {
            if out.try_reserve(hits.len()).is_err() {
                short = Some(out.len() + hits.len());
                return false;
            }
            out.extend_from_slice(&hits);
            true
        });
        if let Some(elements) = short {
            out.clear();
            return Err(Error::OutOfMemory { what, elements });
        }
        // The blocks of one row block come by runs of columns.
        out.sort_unstable_by_key(|h| (h.i, h.j));
        Ok(())
    }
}

/// The value of the grid's rows that holds an object's growth ([`KERNEL_ABS64`] in the
/// local frame).
const PAD: usize = pad_slot(3);

/// A segment of the copy in the grid's order, one cache line.
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Row64(Segment64);

/// The values of a row's segment, in column order.
#[inline(always)]
fn values(row: &Row64) -> [f64; 6] {
    bytemuck::cast(row.0)
}

/// The largest coordinate magnitude of a segment.
fn largest(s: &Segment64) -> f64 {
    s.p0.iter().chain(&s.p1).fold(0.0, |m, x| m.max(x.abs()))
}

/// The narrow phase of the `f64` radius queries on the grid: the candidates' `f64`
/// segments gathered into a batch and decided by the `f64` kernel (module docs).
struct Near64 {
    /// The sets in the grid's order (by position), in the local frame, as the grid's
    /// `f32` rows (the refinement reads them).
    local: Vec<Row>,
    /// The same segments in `f64`, unmoved (the kernel reads them).
    rows: Vec<Row64>,
    /// `None` within one set; `Some(na)` when ids `>= na` are B's.
    split: Option<u32>,
    options: Options,
    /// The radius of every pair (the decision), `0` with per-object radii.
    uniform: f64,
    /// Per-object radii by position, empty without them: a pair's radius is `rP + rQ`.
    own: Vec<f64>,
    /// The radius in the local frame, rounded up (`0` with per-object radii, which are in
    /// the objects' growths).
    radius: f32,
    skip_shared: bool,
}

/// The buffers of [`Near64::decide`]: the gathered sides and the kernel's output.
struct Gather64 {
    a: Segments64,
    b: Segments64,
    closest: ClosestBatch64,
}

impl Default for Gather64 {
    fn default() -> Self {
        Gather64 {
            a: Segments64::new(),
            b: Segments64::new(),
            closest: ClosestBatch64::new(),
        }
    }
}

impl Narrow<3> for Near64 {
    type Hit = Hit64;
    type Probe = Probe;
    type Scratch = Gather64;

    fn split(&self) -> Option<u32> {
        self.split
    }

    fn pair(hit: &Hit64) -> (u32, u32) {
        (hit.i, hit.j)
    }

    /// The local segment at `p`: a segment of a reported pair lies within the radius and
    /// both objects' growths of the other's sphere, so the probe's radius is the radius
    /// and its own growth (the other's is in its sphere).
    #[inline(always)]
    fn probe(&self, p: usize) -> Option<Probe> {
        let r = &self.local[p].0;
        let seg = Segment::new([r[0], r[1], r[2]], [r[3], r[4], r[5]]);
        Probe::of(&seg, self.radius + r[PAD])
    }

    #[inline(always)]
    fn refine(&self, probe: &Probe, j: usize, spheres: &SphereColumns<3>, bits: u32) -> u32 {
        probe.refine(j, spheres, bits)
    }

    fn decide(
        &self,
        ids: &[u32],
        candidates: &[(u32, u32)],
        scratch: &mut Gather64,
        out: &mut Kept<Hit64>,
    ) {
        let n = candidates.len();
        if scratch.a.len() < n {
            scratch.a = Soa::zeroed(n);
            scratch.b = Soa::zeroed(n);
        }
        let (ca, cb) = (scratch.a.columns_mut(), scratch.b.columns_mut());
        let (ca, cb) = (ca.map(|c| &mut c[..n]), cb.map(|c| &mut c[..n]));
        for (k, &(p, q)) in candidates.iter().enumerate() {
            let (x, y) = (
                values(&self.rows[p as usize]),
                values(&self.rows[q as usize]),
            );
            for c in 0..6 {
                ca[c][k] = x[c];
                cb[c][k] = y[c];
            }
        }
        let outputs = Outputs {
            params: true,
            points: false,
            flags: false,
        };
        let closest = &mut scratch.closest;
        closest_points_into(
            scratch.a.view(..n),
            scratch.b.view(..n),
            &self.options,
            outputs,
            closest,
        )
        .expect("two gathers of one length");
        let (d, s, t) = (closest.dist2(), closest.s(), closest.t());
        let b_first = self.split.unwrap_or(0);
        // Every candidate is written and kept when a hit (as the `f32` narrow phase does).
        out.reserve(n);
        for (k, &(p, q)) in candidates.iter().enumerate() {
            let (a, b) = (&self.rows[p as usize].0, &self.rows[q as usize].0);
            let r = match self.own.as_slice() {
                [] => self.uniform,
                own => own[p as usize] + own[q as usize],
            };
            let keep = within(d[k], r, || (*a, *b, s[k], t[k]))
                && !(self.skip_shared && shares_endpoint(a, b));
            let hit = Hit64 {
                i: ids[p as usize],
                j: ids[q as usize].wrapping_sub(b_first),
                dist2: d[k],
                s: s[k],
                t: t[k],
            };
            out.put(hit, keep);
        }
    }
}

/// A pruned `f64` radius query: the plan and its narrow phase, or `None` when the grid does
/// not apply (rays or lines, a radius for every pair whose square overflows, a side of at
/// most [`FEW`] objects, more than `u32::MAX` objects, a radius beyond `f32` in the local
/// frame). With per-object radii each object's sphere is grown by its own radius besides
/// its growth and the grid looks for spheres that meet (a query radius of `0`), as the
/// `f32` query does: every candidate is decided once, with `rI + rJ`.
fn pruned64(
    a: Segments64View<'_>,
    b: Option<Segments64View<'_>>,
    radius: PairRadius<'_, f64>,
    skip_shared: bool,
    options: &Options,
    parallel: bool,
) -> Option<(Plan<3>, Near64)> {
    let uniform = radius.uniform().unwrap_or(0.0);
    if options.extent_a != Extent::Segment
        || options.extent_b != Extent::Segment
        || !(uniform * uniform).is_finite()
    {
        return None;
    }
    let na = a.len();
    if b.is_some_and(|b| na.min(b.len()) <= FEW) {
        return None;
    }
    let n = na.checked_add(b.map_or(0, |b| b.len()))?;
    let object = |i: usize| match b {
        Some(b) if i >= na => b.at(i - na),
        _ => a.at(i),
    };
    let frame = LocalFrame::<3>::of((0..n).flat_map(|i| {
        let s = object(i);
        [s.p0, s.p1]
    }));
    let local = |i: usize| {
        let s = object(i);
        Segment::new(frame.point(s.p0), frame.point(s.p1))
    };
    let own = |i: usize| {
        if i < na {
            radius.of_a(i)
        } else {
            radius.of_b(i - na)
        }
    };
    let grow = |i: usize| {
        let s = local(i);
        frame.length(KERNEL_ABS64 * largest(&object(i)) + own(i)) + frame_rounding(s.p0, s.p1)
    };
    let local_radius = frame.length(uniform);
    let (grid, local) = Grid::build(
        n,
        local,
        Some(&grow),
        local_radius,
        Layout::Columns,
        parallel,
    )?;
    let ids = grid.ids();
    let mut rows = vec![Row64::default(); ids.len()];
    fill_each(&mut rows, parallel, |p| Row64(object(ids[p] as usize)));
    let own = match radius.uniform() {
        Some(_) => Vec::new(),
        None => ids.iter().map(|&id| own(id as usize)).collect(),
    };
    let plan = Plan::new(grid, local_radius);
    let narrow = Near64 {
        local,
        rows,
        split: b.map(|_| na as u32),
        options: *options,
        uniform,
        own,
        radius: local_radius,
        skip_shared,
    };
    Some((plan, narrow))
}

/// The brute-force query of `a` against `b` (or of `a` with itself).
fn brute64<'v, 'o>(
    a: Segments64View<'v>,
    b: Option<Segments64View<'v>>,
    radius: PairRadius<'v, f64>,
    skip_shared: bool,
    options: &'o Options,
) -> Within64<'v, 'o> {
    Within64 {
        a,
        b: b.unwrap_or(a),
        options,
        radius,
        upper: b.is_none(),
        skip_shared,
    }
}

/// Every hit of `a` against `b` (or of `a` with itself, `i < j`), sorted by `(i, j)`,
/// into `out` (cleared first, after the checks), grown with `try_reserve`.
fn collected64<'v>(
    a: Segments64View<'v>,
    b: Option<Segments64View<'v>>,
    (radius, skip): (Radius<'v, f64>, bool),
    options: &Options,
    parallel: bool,
    (what, out): (&'static str, &mut Vec<Hit64>),
) -> Result<(), Error> {
    out.clear();
    let radius = checked(radius, a, b)?;
    let done = match pruned64(a, b, radius, skip, options, parallel) {
        Some((plan, narrow)) => plan.collect(&narrow, a.len(), |h| h, parallel, (what, out)),
        None => brute64(a, b, radius, skip, options).collect(parallel, what, out),
    };
    if done.is_err() {
        out.clear();
    }
    done
}

/// Streams the hits of `a` against `b` (or of `a` with itself) to `sink` as [`PairHit64`]
/// blocks of at most [`MAX_BLOCK_HITS`], after the checks: the grid's tasks, or the
/// brute-force blocks; `sink` answering `false` stops the query.
fn streamed64<'v>(
    a: Segments64View<'v>,
    b: Option<Segments64View<'v>>,
    (radius, skip): (Radius<'v, f64>, bool),
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit64]) -> bool,
) -> Result<(), Error> {
    let radius = checked(radius, a, b)?;
    let finish = |hits: &[Hit64]| -> Vec<PairHit64> { hits.iter().map(|&h| h.into()).collect() };
    let deliver = |block: Vec<PairHit64>| sink(&block);
    match pruned64(a, b, radius, skip, options, parallel) {
        Some((plan, narrow)) => plan.each(&narrow, parallel, finish, deliver),
        None => brute64(a, b, radius, skip, options).each(parallel, finish, deliver),
    }
    Ok(())
}

/// The radius of a query over `a` alone (`b` `None`) or `a` against `b`, checked against
/// the sets, and the sets' sizes checked.
///
/// # Errors
/// As [`PairRadius::one_set`] and [`PairRadius::two_sets`]; [`Error::TooManyObjects`] for
/// more than `u32::MAX` segments in a set.
fn checked<'v>(
    radius: Radius<'v, f64>,
    a: Segments64View<'v>,
    b: Option<Segments64View<'v>>,
) -> Result<PairRadius<'v, f64>, Error> {
    let radius = match b {
        None => PairRadius::one_set(radius, a.len())?,
        Some(b) => PairRadius::two_sets(radius, a.len(), b.len())?,
    };
    check_u32(a.len().max(b.map_or(0, |b| b.len())))?;
    Ok(radius)
}

query_forms! {
    /// Every pair `(i, j)` of `a[i]` and `b[j]` whose squared distance is at most `r²` (in
    /// `f64`), segment against segment, sorted by `(i, j)`: `r` is `radius` for an `f64`,
    /// `radii[i]` for one radius an object of A ([`Radius::Each`]; B's objects are bare
    /// segments), `ra[i] + rb[j]` for [`Radius::Sides`] (see [`Radius64`]).
    /// [`pairs_within`](crate::sets::pairs_within)'s `f64` twin, on the grid in a local
    /// frame, decided by the `f64` kernel (module docs): the pairs and values of brute
    /// force over [`reference::closest_points_with`](crate::reference::closest_points_with),
    /// at any distance from the origin. A pair with a non-finite coordinate is never within
    /// any radius.
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::pairs_within64;
    /// let o = 6_378_137.0;
    /// let walls = Segments64::from(&[
    ///     Segment64::new([o, 0.0, 0.0], [o, 4.0, 0.0]),
    ///     Segment64::new([o + 10.0, 0.0, 0.0], [o + 10.0, 4.0, 0.0]),
    /// ]);
    /// let paths = Segments64::from(&[Segment64::new([o + 0.5, 2.0, 0.0], [o + 3.0, 2.0, 0.0])]);
    /// let hits = pairs_within64(&walls, &paths, 1.0);
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!((hits[0].i, hits[0].j, hits[0].dist2), (0, 0, 0.25));
    /// ```
    pub fn pairs_within64 / pairs_within64_into / par_pairs_within64 / par_pairs_within64_into
        <'a, 'b, 'r>(a: impl Into<Segments64View<'a>>, b: impl Into<Segments64View<'b>>, radius: impl Into<Radius64<'r>>)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<Hit64> = within64;
    /// The general form of [`pairs_within64`]: extents and tolerance from `options`, the
    /// hits written into `out` (cleared first, allocation reused).
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
    /// use segbatch::{Extent, Options, Segment64, Segments64};
    /// use segbatch::sets::pairs_within64_into;
    /// // A sight ray against walls: only the wall it points at is within 0.5.
    /// let ray = Segments64::from(&[Segment64::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
    /// let walls = Segments64::from(&[
    ///     Segment64::new([50.0, -1.0, 0.25], [50.0, 1.0, 0.25]),
    ///     Segment64::new([-50.0, -1.0, 0.25], [-50.0, 1.0, 0.25]),
    /// ]);
    /// let mut hits = Vec::new();
    /// pairs_within64_into(&ray, &walls, 0.5, &Options::new(Extent::Ray, Extent::Segment), &mut hits)?;
    /// assert_eq!(hits.iter().map(|h| h.j).collect::<Vec<_>>(), vec![0]);
    /// assert!(pairs_within64_into(&ray, &walls, -1.0, &Options::SEGMENTS, &mut hits).is_err());
    /// assert!(hits.is_empty());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    into;
}

fn within64<'a, 'b, 'r>(
    a: Segments64View<'a>,
    b: Segments64View<'b>,
    radius: Radius64<'r>,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit64>,
) -> Result<(), Error> {
    let what = "pairs_within64 output";
    collected64(a, Some(b), (radius, false), options, parallel, (what, out))
}

query_forms! {
    /// Every pair `i < j` of `set` whose squared distance is at most `r²` (in `f64`),
    /// segment against segment, sorted by `(i, j)`: `r` is `radius` for an `f64`, or
    /// `radii[i] + radii[j]` for one radius an object ([`Radius::Each`], a slice; see
    /// [`Radius64`]).
    /// [`self_pairs_within`](crate::sets::self_pairs_within)'s `f64` twin, on the grid in a
    /// local frame, decided by the `f64` kernel (module docs).
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::{self_pairs_within64, SharedEndpoints};
    /// // A path 1e9 from the origin that folds back 0.25 from its own start.
    /// let o = 1.0e9;
    /// let path = Segments64::from(&[
    ///     Segment64::new([o, 0.0, 0.0], [o + 4.0, 0.0, 0.0]),
    ///     Segment64::new([o + 4.0, 0.0, 0.0], [o + 4.0, 2.0, 0.0]),
    ///     Segment64::new([o + 4.0, 2.0, 0.0], [o + 1.0, 0.25, 0.0]),
    /// ]);
    /// let all = self_pairs_within64(&path, 0.5, SharedEndpoints::Keep);
    /// assert_eq!(all.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), vec![(0, 1), (0, 2), (1, 2)]);
    /// let folds = self_pairs_within64(&path, 0.5, SharedEndpoints::Skip);
    /// assert_eq!(folds.len(), 1);
    /// assert_eq!((folds[0].i, folds[0].j, folds[0].dist2), (0, 2, 0.0625));
    /// ```
    pub fn self_pairs_within64 / self_pairs_within64_into
        / par_self_pairs_within64 / par_self_pairs_within64_into
        <'a, 'r>(set: impl Into<Segments64View<'a>>, radius: impl Into<Radius64<'r>>, shared: SharedEndpoints)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<Hit64> = self_within64;
    /// The general form of [`self_pairs_within64`]: `options.extent_a` applies to
    /// `set[i]`, `options.extent_b` to `set[j]`; the hits are written into `out` (cleared
    /// first, allocation reused).
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
    /// use segbatch::{Options, Segment64, Segments64};
    /// use segbatch::sets::{self_pairs_within64_into, SharedEndpoints};
    /// let set = Segments64::from(&[Segment64::new([0.0; 3], [1.0, 0.0, 0.0]); 3]);
    /// let mut hits = Vec::new();
    /// self_pairs_within64_into(&set, 0.0, SharedEndpoints::Keep, &Options::SEGMENTS, &mut hits)?;
    /// assert_eq!(hits.len(), 3); // three identical segments: every pair at distance 0
    /// assert!(self_pairs_within64_into(&set, f64::NAN, SharedEndpoints::Keep, &Options::SEGMENTS, &mut hits).is_err());
    /// assert!(hits.is_empty());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    into;
}

fn self_within64<'a, 'r>(
    set: Segments64View<'a>,
    radius: Radius64<'r>,
    shared: SharedEndpoints,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit64>,
) -> Result<(), Error> {
    let what = "self_pairs_within64 output";
    let skip = shared == SharedEndpoints::Skip;
    collected64(set, None, (radius, skip), options, parallel, (what, out))
}

fn each_self64<'a, 'r>(
    set: Segments64View<'a>,
    radius: Radius64<'r>,
    shared: SharedEndpoints,
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit64]) -> bool,
) -> Result<(), Error> {
    let skip = shared == SharedEndpoints::Skip;
    streamed64(set, None, (radius, skip), options, parallel, sink)
}

fn each_pair64<'a, 'b, 'r>(
    a: Segments64View<'a>,
    b: Segments64View<'b>,
    radius: Radius64<'r>,
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit64]) -> bool,
) -> Result<(), Error> {
    streamed64(a, Some(b), (radius, false), options, parallel, sink)
}

stream_forms! {
    /// The streaming form of [`self_pairs_within64_into`]: every pair `i < j` of `set`
    /// within `radius` (in `f64`), handed to `sink` in blocks of [`PairHit64`]s of at most
    /// [`MAX_BLOCK_HITS`], whatever the set's layout
    /// ([`for_each_self_pair_within`](crate::sets::for_each_self_pair_within)'s `f64` twin:
    /// the call holds the input, the grid and a few blocks, never the whole output). The
    /// pairs and values are those of [`self_pairs_within64`]; the order is the grid's (sort
    /// a collected list by `(i, j)` to compare). Rays, lines and a radius whose square
    /// overflows take the brute-force tiles, streamed the same way: blocks of 64 rows in
    /// order, each block sorted by `(i, j)`.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN (the first such index of a
    /// list), [`Error::LengthMismatch`] when a list is not one radius an object of its set,
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments (`sink` is not called).
    ///
    /// ```
    /// use segbatch::{Options, Segment64, Segments64};
    /// use segbatch::sets::{for_each_self_pair_within64, SharedEndpoints};
    /// let (e, n) = (500_000.0, 5_000_000.0); // UTM metres
    /// let set: Segments64 = (0..1000).map(|k| {
    ///     let x = e + k as f64;
    ///     Segment64::new([x, n, 0.0], [x + 0.5, n, 0.0]) // 0.5 apart end to start
    /// }).collect();
    /// let mut count = 0;
    /// for_each_self_pair_within64(&set, 0.5, SharedEndpoints::Keep, &Options::SEGMENTS, |block| {
    ///     count += block.len();
    /// })?;
    /// assert_eq!(count, 999);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn for_each_self_pair_within64 / par_for_each_self_pair_within64
        <'a, 'r>(set: impl Into<Segments64View<'a>>, radius: impl Into<Radius64<'r>>, shared: SharedEndpoints, options: &Options)
        -> sink(&[PairHit64]) = each_self64;
}

stream_forms! {
    /// The streaming form of [`pairs_within64_into`]: every pair of `a[i]` and `b[j]`
    /// within `radius` (in `f64`), handed to `sink` in blocks of [`PairHit64`]s (see
    /// [`for_each_self_pair_within64`]).
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN (the first such index of a
    /// list), [`Error::LengthMismatch`] when a list is not one radius an object of its set,
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments in a set (`sink` is not called).
    ///
    /// ```
    /// use segbatch::{Options, Segment64, Segments64};
    /// use segbatch::sets::{for_each_pair_within64, PairHit64};
    /// let o = 6_378_137.0;
    /// let walls = Segments64::from(&[Segment64::new([o, 0.0, 0.0], [o, 4.0, 0.0])]);
    /// let paths = Segments64::from(&[
    ///     Segment64::new([o + 0.5, 2.0, 0.0], [o + 3.0, 2.0, 0.0]),
    ///     Segment64::new([o + 5.0, 2.0, 0.0], [o + 9.0, 2.0, 0.0]),
    /// ]);
    /// let mut hits: Vec<PairHit64> = Vec::new();
    /// for_each_pair_within64(&walls, &paths, 1.0, &Options::SEGMENTS, |block| hits.extend_from_slice(block))?;
    /// assert_eq!(hits, vec![PairHit64 { i: 0, j: 0, dist2: 0.25 }]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn for_each_pair_within64 / par_for_each_pair_within64
        <'a, 'b, 'r>(a: impl Into<Segments64View<'a>>, b: impl Into<Segments64View<'b>>, radius: impl Into<Radius64<'r>>, options: &Options)
        -> sink(&[PairHit64]) = each_pair64;
}

impl super::rows::Ranked for Hit64 {
    #[inline]
    fn pieces(&self) -> (u32, u32) {
        (self.i, self.j)
    }

    /// The squared distance's bits: a hit's `dist2` is never NaN and never negative, and
    /// the bits of non-negative `f64`s order as their values do.
    #[inline]
    fn distance_key(&self) -> u64 {
        self.dist2.to_bits()
    }
}

/// Runs the row query of `a` (against `b`, or within `a`) at `radius`, segment against
/// segment, and hands its blocks of row hits to `sink` (each row pair at most once a task;
/// the brute-force tiles of small sets as one block, each row pair once).
///
/// # Errors
/// As [`checked`]; [`Error::OutOfMemory`] when the brute-force hits cannot be held.
fn each_row64(
    a: Segments64View<'_>,
    b: Option<Segments64View<'_>>,
    rows: Rows<'_>,
    radius: f64,
    answer: RowAnswer,
    parallel: bool,
    sink: &mut RowSink<'_, Hit64>,
) -> Result<(), Error> {
    let radius = checked(radius.into(), a, b)?;
    let options = &Options::SEGMENTS;
    match pruned64(a, b, radius, false, options, parallel) {
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
            brute64(a, b, radius, false, options).collect(parallel, what, &mut hits)?;
            let mut out = Vec::new();
            super::rows::of_pieces(&hits, rows, what, &mut out)?;
            super::rows::once(&mut out, parallel);
            sink(&out);
        }
    }
    Ok(())
}

fn rows_within64_run<'a>(
    set: Segments64View<'a>,
    rows: &[u32],
    radius: f64,
    answer: RowAnswer,
    parallel: bool,
    out: &mut Vec<RowHit<Hit64>>,
) -> Result<(), Error> {
    out.clear();
    let rows = Rows::checked(rows, set.len(), None)?;
    let query = (set, None, radius, answer);
    collect_rows64(query, rows, parallel, "rows_within64 output", out)
}

/// The row hits of [`each_row64`] on `(a, b, radius, answer)`, collected into `out` (empty
/// on an error).
fn collect_rows64(
    (a, b, radius, answer): (
        Segments64View<'_>,
        Option<Segments64View<'_>>,
        f64,
        RowAnswer,
    ),
    rows: Rows<'_>,
    parallel: bool,
    what: &'static str,
    out: &mut Vec<RowHit<Hit64>>,
) -> Result<(), Error> {
    let mut failed = Ok(());
    super::rows::collect(
        |sink| failed = each_row64(a, b, rows, radius, answer, parallel, sink),
        parallel,
        what,
        out,
    )?;
    failed.inspect_err(|_| out.clear())
}

query_forms! {
    /// Every pair of rows `a < b` of `set` that come within `radius` of each other (in
    /// `f64`, segment against segment: some piece of one and some piece of the other have
    /// `dist2 <= radius²`, by the `f64` range rule of [`within_radius64`]), each once,
    /// sorted by `(a, b)`; `rows[i]` is the row of `set[i]`. Pairs of pieces of one row are
    /// masked in the grid's scan, never decided; with [`RowAnswer::Any`] (the default) a
    /// row pair stops being decided once it met, with [`RowAnswer::Least`] each row pair
    /// reports its closest piece pair (the rows' distance: [`RowHit`]).
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::rows_within64;
    /// // Two tracks 25 m apart at UTM coordinates, and a third far away.
    /// let (e, n) = (500_000.0, 5_000_000.0);
    /// let set = Segments64::from(&[
    ///     Segment64::new([e, n, 0.0], [e + 10.0, n, 0.0]),
    ///     Segment64::new([e + 10.0, n, 0.0], [e + 20.0, n, 0.0]),
    ///     Segment64::new([e + 20.0, n + 25.0, 0.0], [e + 40.0, n + 25.0, 0.0]),
    ///     Segment64::new([e + 900.0, n, 0.0], [e + 910.0, n, 0.0]),
    /// ]);
    /// let hits = rows_within64(&set, &[0, 0, 1, 2], 25.0);
    /// assert_eq!(hits.iter().map(|h| (h.a, h.b)).collect::<Vec<_>>(), vec![(0, 1)]);
    /// assert_eq!(hits[0].hit.dist2, 625.0);
    /// ```
    pub fn rows_within64 / rows_within64_into / par_rows_within64 / par_rows_within64_into
        <'a, 'r>(set: impl Into<Segments64View<'a>>, rows: &'r [u32], radius: f64)
        with (answer: RowAnswer = RowAnswer::Any)
        -> Vec<RowHit<Hit64>> = rows_within64_run;
    /// The general form of [`rows_within64`]: `answer` picks the hit each row pair reports;
    /// the row hits are written into `out` (cleared first, allocation reused, grown with
    /// `try_reserve`).
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::{rows_within64_into, RowAnswer};
    /// let set = Segments64::from(&[
    ///     Segment64::new([0.0, 0.0, 0.0], [10.0, 0.0, 0.0]),
    ///     Segment64::new([0.0, 3.0, 0.0], [5.0, 3.0, 0.0]),
    ///     Segment64::new([5.0, 3.0, 0.0], [5.0, 1.0, 0.0]),
    /// ]);
    /// let mut hits = Vec::new();
    /// rows_within64_into(&set, &[0, 1, 1], 4.0, RowAnswer::Least, &mut hits)?;
    /// assert_eq!((hits[0].hit.j, hits[0].hit.dist2), (2, 1.0)); // the closest piece pair
    /// assert!(rows_within64_into(&set, &[0, 1, 1], -1.0, RowAnswer::Any, &mut hits).is_err());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when `radius` is negative or NaN; [`Error::LengthMismatch`]
    /// when `rows` is not one row a segment; [`Error::TooManyObjects`] for more than
    /// `u32::MAX` segments; [`Error::OutOfMemory`] when the output cannot grow to the row
    /// pairs found (`out` is then empty).
    into;
}

#[allow(clippy::too_many_arguments)] // the query's inputs, as its forms take them
fn rows_within64_between_run<'a, 'b>(
    a: Segments64View<'a>,
    rows_a: &[u32],
    b: Segments64View<'b>,
    rows_b: &[u32],
    radius: f64,
    answer: RowAnswer,
    parallel: bool,
    out: &mut Vec<RowHit<Hit64>>,
) -> Result<(), Error> {
    out.clear();
    let rows = Rows::checked(rows_a, a.len(), Some((rows_b, b.len())))?;
    let query = (a, Some(b), radius, answer);
    collect_rows64(query, rows, parallel, "rows_within64_between output", out)
}

query_forms! {
    /// Every pair of a row `a` of set A and a row `b` of set B that come within `radius` of
    /// each other, each once, sorted by `(a, b)` (`rows_a[i]` the row of `a[i]`, `rows_b[j]`
    /// that of `b[j]`), decided as [`rows_within64`] decides.
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::rows_within64_between;
    /// let wells = Segments64::from(&[Segment64::new([0.0, 0.0, 0.0], [0.0, 0.0, -100.0])]);
    /// let faults = Segments64::from(&[
    ///     Segment64::new([3.0, 0.0, -50.0], [3.0, 10.0, -50.0]),
    ///     Segment64::new([30.0, 0.0, -50.0], [30.0, 10.0, -50.0]),
    /// ]);
    /// let hits = rows_within64_between(&wells, &[0], &faults, &[5, 6], 3.0);
    /// assert_eq!(hits.iter().map(|h| (h.a, h.b)).collect::<Vec<_>>(), vec![(0, 5)]);
    /// ```
    pub fn rows_within64_between / rows_within64_between_into
        / par_rows_within64_between / par_rows_within64_between_into
        <'a, 'b, 'r, 's>(a: impl Into<Segments64View<'a>>, rows_a: &'r [u32],
            b: impl Into<Segments64View<'b>>, rows_b: &'s [u32], radius: f64)
        with (answer: RowAnswer = RowAnswer::Any)
        -> Vec<RowHit<Hit64>> = rows_within64_between_run;
    /// The general form of [`rows_within64_between`] (`answer` as in
    /// [`rows_within64_into`]).
    ///
    /// # Errors
    /// As [`rows_within64_into`], for either set.
    into;
}

fn each_row_within64<'a>(
    set: Segments64View<'a>,
    rows: &[u32],
    radius: f64,
    answer: RowAnswer,
    parallel: bool,
    sink: &mut RowSink<'_, Hit64>,
) -> Result<(), Error> {
    let rows = Rows::checked(rows, set.len(), None)?;
    each_row64(set, None, rows, radius, answer, parallel, sink)
}

stream_forms! {
    /// The streaming form of [`rows_within64_into`], for outputs larger than memory: the row
    /// pairs within `radius` handed to `sink` in blocks of at most
    /// [`MAX_BLOCK_HITS`], a task's blocks in the grid's order. A task reports each of its
    /// row pairs once; a row pair whose pieces fall in several tasks comes once from each
    /// (the collected forms keep the first by rank).
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::{for_each_row_within64, RowAnswer};
    /// let set = Segments64::from(&[
    ///     Segment64::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
    ///     Segment64::new([0.0, 0.5, 0.0], [1.0, 0.5, 0.0]),
    /// ]);
    /// let mut pairs = Vec::new();
    /// for_each_row_within64(&set, &[3, 8], 1.0, RowAnswer::Any, |block| {
    ///     pairs.extend(block.iter().map(|h| (h.a, h.b)));
    /// })?;
    /// assert_eq!(pairs, vec![(3, 8)]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`rows_within64_into`] (`sink` is not called).
    pub fn for_each_row_within64 / par_for_each_row_within64
        <'a, 'r>(set: impl Into<Segments64View<'a>>, rows: &'r [u32], radius: f64, answer: RowAnswer)
        -> sink(&[RowHit<Hit64>]) = each_row_within64;
}
