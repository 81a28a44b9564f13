//! Set queries that scale: the radius queries over whole sets, pruned by the grid of
//! [`crate::prune`] and decided by the kernel over index pairs (`pairs/indexed.rs`).
//!
//! [`self_pairs_within`](crate::sets::self_pairs_within) and
//! [`pairs_within`] run here whenever both sides are segments and the
//! radius is finite: the grid names candidate pairs (a conservative sphere test over the
//! cells' neighbours), the candidates are gathered a few thousand at a time and run through
//! the kernel, and the kernel's squared distance decides. Every reported value is therefore the
//! brute-force query's, bit for bit, and the work is `O((N + M) log(N + M) + K)` instead of
//! `O(N·M)`. Rays and lines (unbounded) and an infinite radius take the brute-force tiles.
//!
//! The streaming forms ([`for_each_self_pair_within`], [`for_each_pair_within`]) hand the
//! hits to a callback in blocks of compact [`PairHit`]s (12 bytes) of at most
//! [`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS), so a query needs memory for the input, the
//! grid and a few blocks a thread, not for its hits: 5e9 pairs of 100K identical segments
//! stream in blocks like 50 pairs of a sparse set (see [`crate::prune`] for how the tasks
//! are cut and the blocks bounded). The collected forms grow their output with
//! `try_reserve` and return [`Error::OutOfMemory`] when it cannot grow.
//!
//! # Decisions at the edges of `f32`
//!
//! A pair is within the radius when the kernel's `dist2 <= radius²`, except when its
//! squared distance left `f32`'s range (flagged [`Flags::DIST2_OUT_OF_RANGE`] by the
//! kernel): it is then decided in `f64` from its closest points ([`within_radius`], which
//! states the rule and which the brute-force tiles apply too). Members with a NaN or
//! infinite coordinate are never within any radius; [`count_non_finite`] counts them.

use super::hits::{Hit, SharedEndpoints, spheres, within_wide};
use super::many::Within;
use super::radius::{PairRadius, Radius};
use crate::batch::{Error, Record, SegmentsView, SoaView, check_u32};
use crate::columns::padded_len;
use crate::driver::Rows;
use crate::driver::Side;
use crate::forms::{query_forms, stream_forms};
use crate::kernel::Splat;
use crate::lanes::Twin;
use crate::pairs::{ClosestBatch, Outputs, closest_rows_into};
use crate::prune::{BOUND_REL, Grid, Kept, Layout, Narrow, Plan, SphereColumns, pad_slot};
use crate::segment::{Closest, Extent, Flags, Options, Segment};
use bytemuck::{Pod, Zeroable};
use wide::f32x8;

/// A hit of the streaming set queries, 12 bytes: `a[i]` (or `set[i]`) within the radius
/// of `b[j]` (or `set[j]`, `i < j`), at squared distance `dist2`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairHit {
    /// Index in A (or in the set).
    pub i: u32,
    /// Index in B (or in the set, `j > i`).
    pub j: u32,
    /// Squared distance of the closest points, the kernel's (as [`Hit::dist2`]).
    pub dist2: f32,
}

/// A hit with the parameters, before it becomes a [`Hit`] or a [`PairHit`].
#[derive(Clone, Copy, Default)]
struct Found {
    i: u32,
    j: u32,
    dist2: f32,
    s: f32,
    t: f32,
}

impl From<Found> for Hit {
    fn from(f: Found) -> Hit {
        Hit {
            i: f.i,
            j: f.j,
            dist2: f.dist2,
            s: f.s,
            t: f.t,
        }
    }
}

impl From<Found> for PairHit {
    fn from(f: Found) -> PairHit {
        PairHit {
            i: f.i,
            j: f.j,
            dist2: f.dist2,
        }
    }
}

/// Whether segments `a` and `b`, whose closest points are `closest` (from any closest-points
/// query or [`reference::closest_points_with`](crate::reference::closest_points_with)), lie
/// within `radius` of each other: the decision every radius query makes
/// ([`pairs_within`], [`self_pairs_within`](crate::sets::self_pairs_within),
/// their streamed forms), so a caller can reproduce their lists pair by pair.
///
/// It is `closest.dist2 <= radius²` in `f32`, except for a pair flagged
/// [`Flags::DIST2_OUT_OF_RANGE`]: its squared distance under- or overflowed `f32` (two
/// segments `1e-38` apart read `dist2 = 0`, two `1e20` apart read `+∞`), so comparing it
/// with `radius²` would report the first within a radius of `1e-45` and the second within
/// any radius above `1.8e19`. Such a pair is decided in `f64` from its closest points:
/// `|a(s) - b(t)|² <= radius²`, the points `p0 + u·(p1 - p0)` and the square in `f64`
/// (where neither can under- or overflow). A hit's `dist2` stays the kernel's `f32` value
/// (`0` or `+∞` for such a pair); `s` and `t` give its points.
///
/// A pair with a non-finite coordinate (NaN `dist2`) is never within any radius.
///
/// ```
/// use segbatch::{Options, Segment};
/// use segbatch::reference::closest_points_with;
/// use segbatch::sets::within_radius;
/// let a = Segment::new([0.0, 0.0, 0.0], [1e-30, 0.0, 0.0]);
/// let b = Segment::new([0.0, 1e-38, 0.0], [1e-30, 1e-38, 0.0]);
/// let c = closest_points_with(&a, &b, &Options::SEGMENTS);
/// assert_eq!(c.dist2, 0.0); // 1e-76 underflows
/// assert!(!within_radius(&a, &b, &c, 1e-45)); // but the pair is 1e-38 apart
/// assert!(within_radius(&a, &b, &c, 2e-38));
/// ```
#[must_use]
pub fn within_radius(a: &Segment, b: &Segment, closest: &Closest, radius: f32) -> bool {
    if closest.flags.contains(Flags::DIST2_OUT_OF_RANGE) {
        within_wide(a, b, closest.s, closest.t, radius)
    } else {
        closest.dist2 <= radius * radius
    }
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

/// The narrow phase of the 3D radius queries: `a[i]` against `b[j]` by the kernel over
/// gathered index pairs, `dist2 <= r²` with `r` the query's radius or `rI + rJ`.
struct Within3 {
    /// Both sets' segments in the grid's order (by position), as rows: the kernel gathers
    /// its lanes near where the grid read their spheres, eight pairs at a time with two
    /// transposes.
    rows: Rows,
    /// `None` within one set; `Some(na)` when ids `>= na` are B's.
    split: Option<u32>,
    options: Options,
    /// The radius of every pair, or `0` with per-object radii.
    radius: f32,
    /// Per-object radii, kept in each row (value [`PAD`]): a pair's radius is `rI + rJ`.
    each: bool,
    skip_shared: bool,
}

/// The value of a row that holds the object's own radius.
const PAD: usize = pad_slot(3);

/// A segment of the grid's refinement ([`Probe::refine`]), splat to every lane: the radius
/// queries' [`Narrow::probe`], in `f32` and (in the local frame of the grid) in `f64`.
#[derive(Clone, Copy)]
pub(super) struct Probe {
    p0: [f32x8; 3],
    d: [f32x8; 3],
    inv_dd: f32x8,
    radius: f32x8,
    room: f32x8,
}

/// The refinement's room for rounding, times `|w|₁ + |d|₁` of a lane (`w` from the
/// segment's start to the sphere's centre, `d` its direction): the rounding of the
/// point-to-segment distance (`w`, `t` and `e` below, a few `ε/2` each of `|w| + |d|`)
/// and the kernel's own error, which is relative to the pair's extent (module docs of
/// [`crate::sets`]): a pair of extent `L` is reported only if its segments come within
/// the radius and `ε·L` of each other, and `L <= |w| + |d| + 3ρ`, the `ρ` part being in
/// [`BOUND_REL`].
const REFINE_REL: f32 = 8.0 * f32::EPSILON;
/// The refinement's room whatever the coordinates: the kernel's rounding where its values
/// are subnormal (as the spheres' floor).
const REFINE_FLOOR: f32 = 1.0 / (1u128 << 72) as f32;
/// Below this squared length of `p`, or squared bound, the refinement keeps every lane
/// (`1/|d|²` or the squares would lose their precision to subnormals).
const REFINE_TINY: f32 = 1.0 / (1u128 << 100) as f32;

impl Probe {
    /// Segment `seg` (as the grid's rows hold it), its direction and the refinement's room
    /// for rounding, splat, when its squared length is a normal number above
    /// [`REFINE_TINY`]; `radius` is how far beyond the other's sphere a segment of a pair
    /// may lie (the query's radius, or with per-object radii the segment's own, the
    /// other's being in its sphere; a segment rounded into a local frame adds its rounding,
    /// [`crate::prune::frame_rounding`], as its sphere does).
    #[inline(always)]
    pub(super) fn of(seg: &Segment, radius: f32) -> Option<Probe> {
        let Segment { p0, p1 } = *seg;
        let d: [f32; 3] = core::array::from_fn(|k| p1[k] - p0[k]);
        let dd = d[0].mul_add(d[0], d[1].mul_add(d[1], d[2] * d[2]));
        if !(REFINE_TINY..=f32::MAX).contains(&dd) {
            return None;
        }
        Some(Probe {
            p0: p0.map(f32x8::splat),
            d: d.map(f32x8::splat),
            inv_dd: f32x8::splat(1.0 / dd),
            radius: f32x8::splat(radius),
            room: f32x8::splat(REFINE_REL * (d[0].abs() + d[1].abs() + d[2].abs()) + REFINE_FLOOR),
        })
    }

    /// The segment against the spheres `(c, ρ)` of the group at `j`: if it and a segment
    /// inside a sphere are within `r`, then `dist(p, c) <= ρ + r`, so a lane whose
    /// point-to-segment distance exceeds that bound (grown for rounding by [`BOUND_REL`]
    /// and the room: [`REFINE_REL`], [`REFINE_FLOOR`]) cannot be reported (with
    /// per-object radii `r = rP + rQ` and `ρ` already holds `rQ`, so the bound is
    /// `ρ + rP`). It drops about
    /// half of the sphere test's candidates on short segments (a sphere around a stick is
    /// mostly empty) for less than the gathered kernel would spend on them. Lanes where
    /// the computation overflows (a non-finite `e²`) are kept.
    #[inline(always)]
    pub(super) fn refine(&self, j: usize, spheres: &SphereColumns<3>, bits: u32) -> u32 {
        let (centre, rad) = spheres.group(j);
        let w: [f32x8; 3] = core::array::from_fn(|k| centre[k] - self.p0[k]);
        let d = &self.d;
        let wd = w[0].fma(d[0], w[1].fma(d[1], w[2] * d[2]));
        let t = (wd * self.inv_dd).max_ps(f32x8::ZERO).min_ps(f32x8::ONE);
        let e: [f32x8; 3] = core::array::from_fn(|k| w[k] - t * d[k]);
        let e2 = e[0].fma(e[0], e[1].fma(e[1], e[2] * e[2]));
        let w1 = w[0].abs() + w[1].abs() + w[2].abs();
        let room = w1.fma(f32x8::splat(REFINE_REL), self.room);
        let bound = (rad + self.radius).fma(f32x8::splat(BOUND_REL), room);
        let bound2 = bound * bound;
        let keep = e2.simd_le(bound2) | !e2.is_finite() | bound2.simd_lt(f32x8::splat(REFINE_TINY));
        bits & keep.to_bitmask()
    }
}

/// True when A and B share an end point (coordinates equal with `==`), the brute-force
/// query's test.
fn shares(a: &Segment, b: &Segment) -> bool {
    [a.p0, a.p1]
        .iter()
        .any(|p| [b.p0, b.p1].iter().any(|q| p == q))
}

impl Within3 {
    /// The segment at position `p`.
    #[inline(always)]
    fn at(&self, p: usize) -> Segment {
        let r = &self.rows.get().0[p].0;
        Segment::new([r[0], r[1], r[2]], [r[3], r[4], r[5]])
    }

    /// The own radius of the object at position `p` (`0` without per-object radii).
    #[inline(always)]
    fn own(&self, p: usize) -> f32 {
        self.rows.get().0[p].0[PAD]
    }

    /// The radius of the pair at positions `p` (A's) and `q`: the query's, or `rP + rQ`.
    #[inline(always)]
    fn pair_radius(&self, p: usize, q: usize) -> f32 {
        if self.each {
            self.own(p) + self.own(q)
        } else {
            self.radius
        }
    }
}

impl Narrow<3> for Within3 {
    type Hit = Found;
    type Probe = Probe;
    type Scratch = ClosestBatch;

    fn split(&self) -> Option<u32> {
        self.split
    }

    fn pair(hit: &Found) -> (u32, u32) {
        (hit.i, hit.j)
    }

    #[inline(always)]
    fn probe(&self, p: usize) -> Option<Probe> {
        // With per-object radii the spheres are grown by their own radius already.
        Probe::of(
            &self.at(p),
            if self.each { self.own(p) } else { self.radius },
        )
    }

    #[inline(always)]
    fn refine(&self, probe: &Probe, j: usize, spheres: &SphereColumns<3>, bits: u32) -> u32 {
        probe.refine(j, spheres, bits)
    }

    fn decide(
        &self,
        ids: &[u32],
        candidates: &[(u32, u32)],
        scratch: &mut ClosestBatch,
        out: &mut Kept<Found>,
    ) {
        let outputs = Outputs {
            params: true,
            points: false,
            flags: true,
        };
        closest_rows_into(&self.rows, candidates, &self.options, outputs, scratch);
        let (d, s, t, flags) = (scratch.dist2(), scratch.s(), scratch.t(), scratch.flags());
        let b_first = self.split.unwrap_or(0);
        // Every candidate is written and kept when a hit: about half of them are hits, in
        // no pattern, and a branch on that was the narrow phase's most mispredicted one
        // (callgrind --branch-sim on hair).
        out.reserve(candidates.len());
        for (k, &(p, q)) in candidates.iter().enumerate() {
            let (a, b) = (p as usize, q as usize);
            let r = self.pair_radius(a, b);
            let within = if flags[k].contains(Flags::DIST2_OUT_OF_RANGE) {
                within_wide(&self.at(a), &self.at(b), s[k], t[k], r)
            } else {
                d[k] <= r * r
            };
            let keep = within && !(self.skip_shared && shares(&self.at(a), &self.at(b)));
            let hit = Found {
                i: ids[a],
                j: ids[b].wrapping_sub(b_first),
                dist2: d[k],
                s: s[k],
                t: t[k],
            };
            out.put(hit, keep);
        }
    }
}

/// Two sets one of which has at most this many objects are tested by brute force (tiles
/// with the bounding-sphere prefilter): `FEW · M` pair tests cost less than a grid over the
/// `M` others, and a crowded cell cannot make the grid's sweep compare the many with each
/// other (it enumerates the pairs of a cell before dropping those within one set). A few
/// sight paths against a clump of 100K hair strands take a millisecond either way.
pub(super) const FEW: usize = 32;

/// A pruned radius query: the plan and its narrow phase, or `None` when the grid does not
/// apply (rays or lines, an infinite radius for every pair, more than `u32::MAX` objects).
/// With per-object radii each object's sphere is grown by its own radius and the grid
/// looks for spheres that meet (a query radius of `0`): the cells are sized by the
/// largest grown sphere, and every candidate is decided once, with `rI + rJ`.
fn pruned(
    a: SegmentsView<'_>,
    b: Option<SegmentsView<'_>>,
    radius: PairRadius<'_>,
    skip_shared: bool,
    options: &Options,
    parallel: bool,
) -> Option<(Plan<3>, Within3)> {
    if options.extent_a != Extent::Segment || options.extent_b != Extent::Segment {
        return None;
    }
    let na = a.len();
    if b.is_some_and(|b| na.min(b.len()) <= FEW) {
        return None;
    }
    let object = |i: usize| match b {
        Some(b) if i >= na => b.at(i - na),
        _ => a.at(i),
    };
    let own = |i: usize| {
        if i < na {
            radius.of_a(i)
        } else {
            radius.of_b(i - na)
        }
    };
    let n = na.checked_add(b.map_or(0, |b| b.len()))?;
    let (uniform, pad) = match radius.uniform() {
        Some(r) => (r, None),
        None => (0.0, Some(&own as &(dyn Fn(usize) -> f32 + Sync))),
    };
    let (grid, rows) = Grid::build(n, object, pad, uniform, Layout::Columns, parallel)?;
    let plan = Plan::new(grid, uniform);
    let narrow = Within3 {
        rows: Rows::one(rows),
        split: b.map(|_| na as u32),
        options: *options,
        radius: uniform,
        each: pad.is_some(),
        skip_shared,
    };
    Some((plan, narrow))
}

/// The brute-force radius query over tiles (rays and lines, an infinite radius, a side of
/// at most [`FEW`] objects): `go` gets the tile loop and its shape `(na, nb, tests)`. The
/// sphere prefilter runs for segments with one radius for every pair.
fn brute<R>(
    a: SegmentsView<'_>,
    b: Option<SegmentsView<'_>>,
    radius: PairRadius<'_>,
    skip_shared: bool,
    options: &Options,
    go: impl FnOnce(&Within<'_, '_>, (usize, usize, usize)) -> R,
) -> R {
    let uniform = radius.uniform();
    let prefilter = |v| uniform.and_then(|_| spheres(v, options));
    let sa = prefilter(a);
    let sb = b.map(prefilter);
    let nb_all = b.map_or(a.len(), |b| b.len());
    // B's radii padded to whole groups, read eight at a time.
    let b_radii: Vec<f32> = match uniform {
        Some(_) => Vec::new(),
        None => (0..padded_len(nb_all))
            .map(|j| if j < nb_all { radius.of_b(j) } else { 0.0 })
            .collect(),
    };
    let upper = b.is_none();
    let b = b.unwrap_or(a);
    let job = Within {
        a: Side::new(a),
        b: Side::new(b),
        spheres: match &sb {
            None => sa.as_ref().map(|s| (s, s)),
            Some(sb) => sa.as_ref().zip(sb.as_ref()),
        },
        splat: Splat::new(&options.params()),
        radius,
        b_radii: &b_radii,
        uniform: f32x8::splat(uniform.unwrap_or(0.0)),
        upper,
        skip_shared,
    };
    let (na, nb) = (a.len(), b.len());
    let tests = if upper {
        na.saturating_mul(na) / 2
    } else {
        na.saturating_mul(nb)
    };
    go(&job, (na, nb, tests))
}

/// Every hit of `a` against `b` (or of `a` with itself, `i < j`), sorted by `(i, j)`,
/// into `out` (after the checks), grown with `try_reserve`.
#[allow(clippy::too_many_arguments)]
fn collected(
    a: SegmentsView<'_>,
    b: Option<SegmentsView<'_>>,
    radius: PairRadius<'_>,
    skip: bool,
    options: &Options,
    parallel: bool,
    what: &'static str,
    out: &mut Vec<Hit>,
) -> Result<(), Error> {
    match pruned(a, b, radius, skip, options, parallel) {
        Some((plan, narrow)) => {
            let r = plan.collect(&narrow, a.len(), Hit::from, parallel, (what, &mut *out));
            if r.is_err() {
                out.clear();
            }
            r
        }
        None => brute(a, b, radius, skip, options, |job, shape| {
            job.collect(shape, parallel, what, out)
        }),
    }
}

/// All pairs `i < j` of `set` within `radius`, sorted, into `out` (after the checks).
pub(super) fn self_within(
    set: SegmentsView<'_>,
    radius: Radius<'_>,
    shared: SharedEndpoints,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit>,
) -> Result<(), Error> {
    out.clear();
    let radius = PairRadius::one_set(radius, set.len())?;
    check_u32(set.len())?;
    let skip = shared == SharedEndpoints::Skip;
    let what = "self_pairs_within output";
    collected(set, None, radius, skip, options, parallel, what, out)
}

/// All pairs of `a` and `b` within `radius`, sorted, into `out` (after the checks).
pub(super) fn within_sets(
    a: SegmentsView<'_>,
    b: SegmentsView<'_>,
    radius: Radius<'_>,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit>,
) -> Result<(), Error> {
    out.clear();
    let radius = PairRadius::two_sets(radius, a.len(), b.len())?;
    check_u32(a.len().max(b.len()))?;
    let what = "pairs_within output";
    collected(a, Some(b), radius, false, options, parallel, what, out)
}

/// Streams the hits of `a` against `b` (or of `a` with itself) to `sink` as [`PairHit`]
/// blocks of at most [`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS): the grid's tasks, or the
/// brute-force tiles; `sink` answering `false` stops the query.
fn stream(
    a: SegmentsView<'_>,
    b: Option<SegmentsView<'_>>,
    (radius, skip): (PairRadius<'_>, bool),
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit]) -> bool,
) {
    let mut deliver = |block: Vec<PairHit>| sink(&block);
    match pruned(a, b, radius, skip, options, parallel) {
        Some((plan, narrow)) => {
            let finish = |found: &[Found]| found.iter().map(|&f| PairHit::from(f)).collect();
            plan.each(&narrow, parallel, finish, deliver);
        }
        None => brute(a, b, radius, skip, options, |job, shape| {
            let finish = |hits: &[Hit]| {
                hits.iter()
                    .map(|h| PairHit {
                        i: h.i,
                        j: h.j,
                        dist2: h.dist2,
                    })
                    .collect()
            };
            job.each(shape, parallel, finish, &mut deliver);
        }),
    }
}

fn each_self<'a, 'r>(
    set: SegmentsView<'a>,
    radius: Radius<'r>,
    shared: SharedEndpoints,
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit]) -> bool,
) -> Result<(), Error> {
    let radius = PairRadius::one_set(radius, set.len())?;
    check_u32(set.len())?;
    let skip = shared == SharedEndpoints::Skip;
    stream(set, None, (radius, skip), options, parallel, sink);
    Ok(())
}

fn each_pair<'a, 'b, 'r>(
    a: SegmentsView<'a>,
    b: SegmentsView<'b>,
    radius: Radius<'r>,
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit]) -> bool,
) -> Result<(), Error> {
    let radius = PairRadius::two_sets(radius, a.len(), b.len())?;
    check_u32(a.len().max(b.len()))?;
    stream(a, Some(b), (radius, false), options, parallel, sink);
    Ok(())
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
    /// radius ([`count_non_finite`] counts them); a pair whose
    /// squared distance under- or overflows `f32` is decided in `f64`
    /// ([`within_radius`]).
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
        <'a, 'r>(set: impl Into<SegmentsView<'a>>, radius: impl Into<Radius<'r>>, shared: SharedEndpoints, options: &Options)
        -> sink(&[PairHit]) = each_self;
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
        <'a, 'b, 'r>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>, radius: impl Into<Radius<'r>>, options: &Options)
        -> sink(&[PairHit]) = each_pair;
}

query_forms! {
    /// Every pair `(i, j)` of `a[i]` and `b[j]` whose squared distance is at most
    /// `radius²`, segment against segment, sorted by `(i, j)`. `radius` is one for every
    /// pair (an `f32`), one an object of A ([`Radius::Each`], from a slice: B's objects are
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
        <'a, 'b, 'r>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>, radius: impl Into<Radius<'r>>)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<Hit> = within_forms;
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

fn within_forms<'a, 'b, 'r>(
    a: SegmentsView<'a>,
    b: SegmentsView<'b>,
    radius: Radius<'r>,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit>,
) -> Result<(), Error> {
    within_sets(a, b, radius, options, parallel, out)
}
