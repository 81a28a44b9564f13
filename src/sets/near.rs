//! The narrow phase of the radius queries on the grid ([`Near`]): the candidates the grid
//! of [`crate::prune`] names (a conservative sphere test over the cells' neighbours, then
//! [`Probe::refine`]) are gathered a few thousand at a time and decided by the kernel of
//! the query's precision, so every reported value is the brute-force query's, bit for bit.
//! The grid itself works in `f32`: what differs between the precisions is how the sets are
//! put into it (below) and which kernel decides
//! ([`Sets::grid`],
//! [`Sets::decide`]).
//!
//! In `f32` the sets go into the grid as they are, each object's sphere grown by its own
//! radius with per-object radii, and the `f32` kernel gathers its lanes from the grid's
//! own rows (`pairs/indexed.rs`), eight pairs at a time with two transposes.
//!
//! # The grid in `f32`, the decision in `f64`
//!
//! The grid only names candidates; the `f64` kernel decides each one (`dist2 <= r²` in
//! `f64`, `r` the pair's radius, by the `f64` range rule of [`within_radius`](crate::sets::within_radius) where `r²`
//! leaves `f64`'s range), so the pairs and values are exactly those of brute force over
//! [`reference::closest_points_with`](crate::reference::closest_points_with), whatever
//! the grid names. What the grid must do is name every pair the kernel reports, and it
//! does so in `f32`, with the machinery of the `f32` queries unchanged:
//!
//! - the sets are moved to a local frame (`LocalFrame`: the centre of their bounding box
//!   subtracted in `f64`, scaled down by a power of two only beyond `2^63`) and rounded to
//!   `f32`; the rounding moves a point by at most `ε/2` of its coordinate in the frame,
//!   which each object's growth adds (`frame_rounding`);
//! - each object's sphere is grown by `KERNEL_ABS64` times its largest coordinate in the
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

use super::element::sealed::Sets;
use super::element::{Near, SetElement};
use super::hits::{Hit, Hit64, within_wide};
use super::many::shares;
use super::radius::{PairRadius, within64};
use crate::batch::{Segments64, SegmentsView, Soa};
use crate::driver::{Row, Rows};
use crate::lanes::Twin;
use crate::pairs::{ClosestBatch, ClosestBatch64, Outputs, closest_points_into, closest_rows_into};
use crate::prune::{
    BOUND_REL, Grid, KERNEL_ABS64, Kept, LocalFrame, Narrow, Plan, SphereColumns, fill_each,
    frame_rounding, pad_slot,
};
use crate::segment::{Extent, Flags, Options, Segment, Segment64};
use wide::f32x8;

/// Two sets one of which has at most this many objects are tested by brute force (tiles
/// with the bounding-sphere prefilter): `FEW · M` pair tests cost less than a grid over the
/// `M` others, and a crowded cell cannot make the grid's sweep compare the many with each
/// other (it enumerates the pairs of a cell before dropping those within one set). A few
/// sight paths against a clump of 100K hair strands take a millisecond either way.
pub(crate) const FEW: usize = 32;

/// The value of the grid's rows that holds an object's own radius (`f32`) or its growth
/// (`f64`: `KERNEL_ABS64` in the local frame, the rounding into it and its own radius);
/// `0` without either.
const PAD: usize = pad_slot(3);

impl<E: Sets> Near<E> {
    /// The grid's row at position `p` (`f64`: in the local frame).
    #[inline(always)]
    pub(crate) fn row(&self, p: usize) -> &[f32; crate::columns::LANES] {
        &self.rows.get().0[p].0
    }

    /// The grid's segment at position `p` (`f64`: in the local frame).
    #[inline(always)]
    pub(crate) fn at(&self, p: usize) -> Segment {
        let r = self.row(p);
        Segment::new([r[0], r[1], r[2]], [r[3], r[4], r[5]])
    }
}

/// A segment of the grid's refinement ([`Probe::refine`]), splat to every lane: the radius
/// queries' [`Narrow::probe`], in `f32` and (in the local frame of the grid) in `f64`.
#[derive(Clone, Copy)]
pub(crate) struct Probe {
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
    pub(crate) fn of(seg: &Segment, radius: f32) -> Option<Probe> {
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
    pub(crate) fn refine(&self, j: usize, spheres: &SphereColumns<3>, bits: u32) -> u32 {
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

impl<E: SetElement> Narrow<3> for Near<E> {
    type Hit = Hit<E>;
    type Probe = Probe;
    type Scratch = E::Scratch;

    fn split(&self) -> Option<u32> {
        self.split
    }

    fn pair(hit: &Hit<E>) -> (u32, u32) {
        (hit.i, hit.j)
    }

    /// The segment at `p`: a segment of a reported pair lies within the radius and its own
    /// growth of the other's sphere (with per-object radii its own radius; the other's
    /// growth and radius are in its sphere), so the probe's radius is the grid's and its
    /// row's (value [`PAD`], `0` without per-object radii in `f32`).
    #[inline(always)]
    fn probe(&self, p: usize) -> Option<Probe> {
        Probe::of(&self.at(p), self.radius + self.row(p)[PAD])
    }

    #[inline(always)]
    fn refine(&self, probe: &Probe, j: usize, spheres: &SphereColumns<3>, bits: u32) -> u32 {
        probe.refine(j, spheres, bits)
    }

    fn decide(
        &self,
        ids: &[u32],
        candidates: &[(u32, u32)],
        scratch: &mut E::Scratch,
        out: &mut Kept<Hit<E>>,
    ) {
        E::decide(self, ids, candidates, scratch, out);
    }
}

/// A pruned radius query: the plan and its narrow phase, or `None` when the grid does not
/// apply (rays or lines, a side of at most [`FEW`] objects, more than `u32::MAX` objects,
/// a radius for every pair the grid cannot take: infinite in `f32`, one whose square
/// overflows in `f64`). With per-object radii each object's sphere is grown by its own
/// radius and the grid looks for spheres that meet (a query radius of `0`): the cells are
/// sized by the largest grown sphere, and every candidate is decided once, with `rI + rJ`.
pub(crate) fn pruned<E: SetElement>(
    a: SegmentsView<'_, E>,
    b: Option<SegmentsView<'_, E>>,
    radius: PairRadius<'_, E>,
    skip_shared: bool,
    options: &Options,
    parallel: bool,
) -> Option<(Plan<3>, Near<E>)> {
    if options.extent_a != Extent::Segment || options.extent_b != Extent::Segment {
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
    let own = |i: usize| {
        if i < na {
            radius.of_a(i)
        } else {
            radius.of_b(i - na)
        }
    };
    let uniform = radius.uniform();
    let each = uniform.is_none();
    let own = each.then_some(&own as &(dyn Fn(usize) -> E + Sync));
    let uniform = uniform.unwrap_or(E::ZERO);
    let (grid, rows, local_radius, exact) = E::grid(n, &object, own, uniform, parallel)?;
    let plan = Plan::new(grid, local_radius);
    let narrow = Near {
        rows: Rows::one(rows),
        exact,
        split: b.map(|_| na as u32),
        options: *options,
        uniform,
        radius: local_radius,
        each,
        skip_shared,
    };
    Some((plan, narrow))
}

/// The grid of [`pruned`] in `f32`: the objects as they are, per-object radii in the
/// spheres (and in the rows, value [`PAD`]).
#[allow(clippy::type_complexity)]
pub(crate) fn grid32(
    n: usize,
    object: &(dyn Fn(usize) -> Segment + Sync),
    own: Option<&(dyn Fn(usize) -> f32 + Sync)>,
    uniform: f32,
    parallel: bool,
) -> Option<(Grid<3>, Vec<Row>, f32, ())> {
    let (grid, rows) = Grid::build(n, object, own, uniform, parallel)?;
    Some((grid, rows, uniform, ()))
}

/// The `f32` decision: the kernel over the candidates gathered from the grid's rows,
/// `dist2 <= r²` (in `f64` for a pair whose squared distance left `f32`'s range).
pub(crate) fn decide32(
    near: &Near<f32>,
    ids: &[u32],
    candidates: &[(u32, u32)],
    scratch: &mut ClosestBatch,
    out: &mut Kept<Hit>,
) {
    let outputs = Outputs {
        params: true,
        points: false,
        flags: true,
    };
    closest_rows_into(&near.rows, candidates, &near.options, outputs, scratch);
    let (d, s, t, flags) = (scratch.dist2(), scratch.s(), scratch.t(), scratch.flags());
    let b_first = near.split.unwrap_or(0);
    // Every candidate is written and kept when a hit: about half of them are hits, in
    // no pattern, and a branch on that was the narrow phase's most mispredicted one
    // (callgrind --branch-sim on hair).
    out.reserve(candidates.len());
    for (k, &(p, q)) in candidates.iter().enumerate() {
        let (a, b) = (p as usize, q as usize);
        // The radius of the pair: the query's, or `rP + rQ` (each kept in its row).
        let r = if near.each {
            near.row(a)[PAD] + near.row(b)[PAD]
        } else {
            near.uniform
        };
        let within = if flags[k].contains(Flags::DIST2_OUT_OF_RANGE) {
            within_wide(&near.at(a), &near.at(b), s[k], t[k], r)
        } else {
            d[k] <= r * r
        };
        let keep = within && !(near.skip_shared && shares(&near.at(a), &near.at(b)));
        let hit = Hit {
            i: ids[a],
            j: ids[b].wrapping_sub(b_first),
            dist2: d[k],
            s: s[k],
            t: t[k],
        };
        out.put(hit, keep);
    }
}

/// What the `f64` kernel reads besides the grid's rows.
pub struct Exact64 {
    /// The segments in the grid's order, unmoved, one cache line each.
    rows: Vec<Row64>,
    /// Per-object radii by position, empty without them.
    own: Vec<f64>,
}

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

/// The grid of [`pruned`] in `f64`: the sets in a local frame, rounded to `f32`, each
/// sphere grown by `KERNEL_ABS64` of its largest coordinate, its rounding and its own
/// radius (module docs); `None` also for a radius whose square overflows.
#[allow(clippy::type_complexity)]
pub(crate) fn grid64(
    n: usize,
    object: &(dyn Fn(usize) -> Segment64 + Sync),
    own: Option<&(dyn Fn(usize) -> f64 + Sync)>,
    uniform: f64,
    parallel: bool,
) -> Option<(Grid<3>, Vec<Row>, f32, Exact64)> {
    if !(uniform * uniform).is_finite() {
        return None;
    }
    let frame = LocalFrame::<3>::of((0..n).flat_map(|i| {
        let s = object(i);
        [s.p0, s.p1]
    }));
    let local = |i: usize| {
        let s = object(i);
        Segment::new(frame.point(s.p0), frame.point(s.p1))
    };
    let own_of = |i: usize| own.map_or(0.0, |own| own(i));
    let grow = |i: usize| {
        let s = local(i);
        frame.length(KERNEL_ABS64 * largest(&object(i)) + own_of(i)) + frame_rounding(s.p0, s.p1)
    };
    let local_radius = frame.length(uniform);
    let (grid, local) = Grid::build(n, local, Some(&grow), local_radius, parallel)?;
    let ids = grid.ids();
    let mut rows = vec![Row64::default(); ids.len()];
    fill_each(&mut rows, parallel, |p| Row64(object(ids[p] as usize)));
    let own = match own {
        None => Vec::new(),
        Some(own) => ids.iter().map(|&id| own(id as usize)).collect(),
    };
    Some((grid, local, local_radius, Exact64 { rows, own }))
}

/// The buffers of the `f64` decision: the gathered sides and the kernel's output.
pub struct Gather64 {
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

/// The `f64` decision: the candidates' `f64` segments gathered into a batch and decided by
/// the `f64` kernel, by the `f64` range rule.
pub(crate) fn decide64(
    near: &Near<f64>,
    ids: &[u32],
    candidates: &[(u32, u32)],
    scratch: &mut Gather64,
    out: &mut Kept<Hit64>,
) {
    let rows = &near.exact.rows;
    let n = candidates.len();
    if scratch.a.len() < n {
        scratch.a = Soa::zeroed(n);
        scratch.b = Soa::zeroed(n);
    }
    let (ca, cb) = (scratch.a.columns_mut(), scratch.b.columns_mut());
    let (ca, cb) = (ca.map(|c| &mut c[..n]), cb.map(|c| &mut c[..n]));
    for (k, &(p, q)) in candidates.iter().enumerate() {
        let (x, y) = (values(&rows[p as usize]), values(&rows[q as usize]));
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
        &near.options,
        outputs,
        closest,
    )
    .expect("two gathers of one length");
    let (d, s, t) = (closest.dist2(), closest.s(), closest.t());
    let b_first = near.split.unwrap_or(0);
    // Every candidate is written and kept when a hit (as the `f32` decision does).
    out.reserve(n);
    for (k, &(p, q)) in candidates.iter().enumerate() {
        let (a, b) = (&rows[p as usize].0, &rows[q as usize].0);
        let r = if near.each {
            near.exact.own[p as usize] + near.exact.own[q as usize]
        } else {
            near.uniform
        };
        let keep =
            within64(d[k], r, || (*a, *b, s[k], t[k])) && !(near.skip_shared && shares(a, b));
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
