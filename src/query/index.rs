//! A reusable index over a static set (walls, level geometry): built once, queried many
//! times, for the pairs within a radius of query segments and for the **first hit** of
//! thick rays.
//!
//! The semantics of a first hit are documented on [`SegmentIndex`].
//!
//! # The walk
//!
//! The index is the grid of [`crate::prune`] over the set's bounding spheres (no query
//! radius: any radius works). A ray is cut into pieces about one cell long; the pieces
//! are queried in order (a conservative sphere test against the cells around them, and
//! the few members too long for the cells), and a ray stops as soon as its best hit lies
//! before the end of the pieces seen: any member it has not met yet is farther along. Only
//! the run of pieces that meets the members' box is walked, and a ray whose run has at
//! least an eighth as many pieces as the set has members (a small set, or cells much
//! smaller than the rays) is not walked at all: its whole sweep is one piece, and the
//! kernel decides the members near it. Either way every member the sweep touches is a
//! candidate, so the hits are the same. The rays are handled in blocks, each block's
//! candidates decided by the kernel together.

use super::closest::{ClosestBatch, Outputs};
use super::indexed::closest_points_indexed_into;
use super::{Hit, radius2};
use crate::batch::{Error, Segments, SegmentsView, check_u32};
use crate::prune::{Grid, Layout, rows_to_batch, sphere};
use crate::reference;
use crate::segment::{Options, Segment};
use core::ops::Range;

/// The first member a thick ray touches ([`SegmentIndex::first_hits`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstHit {
    /// Index of the member in the indexed set.
    pub index: u32,
    /// Parameter along the ray where the sphere first touches it: the sphere's centre is
    /// then `P0 + u·(P1 - P0)`.
    pub u: f32,
    /// The contact point on the member (its point closest to that centre).
    pub point: [f32; 3],
}

/// The swept segment of a ray: `[P0, P0 + range·(P1 - P0)]`, in `f32`.
pub(crate) fn swept(ray: &Segment, range: f32) -> Segment {
    let d = ray.direction();
    Segment::new(
        ray.p0,
        core::array::from_fn(|k| range.mul_add(d[k], ray.p0[k])),
    )
}

fn sub64(p: [f64; 3], q: [f64; 3]) -> [f64; 3] {
    [p[0] - q[0], p[1] - q[1], p[2] - q[2]]
}

fn dot64(p: [f64; 3], q: [f64; 3]) -> f64 {
    p[0] * q[0] + p[1] * q[1] + p[2] * q[2]
}

/// The contact radius of a ray's sweep and a member: `max(radius, 4·ε·S)`, `S` the
/// largest coordinate magnitude of the two.
pub(crate) fn contact_radius(radius: f32, sweep: &Segment, wall: &Segment) -> f32 {
    let s = [sweep.p0, sweep.p1, wall.p0, wall.p1]
        .iter()
        .flatten()
        .fold(0.0f32, |m, x| m.max(x.abs()));
    radius.max(4.0 * f32::EPSILON * s)
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

/// Step 2 of the module docs: the first `u` in `[0, range]` at which the sphere of radius
/// `r` centred on the ray touches `wall`, given the kernel's closest points `closest` of
/// the swept segment and the wall (already known to be within `r`).
pub(crate) fn first_contact_on(
    ray: &Segment,
    r: f32,
    range: f32,
    wall: &Segment,
    closest_s: f32,
) -> FirstHit {
    let o = ray.p0.map(f64::from);
    let d = sub64(ray.p1.map(f64::from), o);
    let (w0, w1) = (wall.p0.map(f64::from), wall.p1.map(f64::from));
    let w = sub64(w1, w0);
    let (r, range) = (f64::from(r), f64::from(range));
    let r2 = r * r;
    let ww = dot64(w, w);
    // Distance² from a point to the wall, with the wall parameter of its closest point.
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
    let mut keep = |u: f64| {
        if (0.0..=range).contains(&u) && best.is_none_or(|b| u < b) {
            best = Some(u);
        }
    };
    if to_wall(o).0 <= r2 {
        keep(0.0);
    }
    let dd = dot64(d, d);
    for p in [w0, w1] {
        let q = sub64(o, p);
        if let Some(u) = entry_root(dd, dot64(d, q), dot64(q, q) - r2) {
            keep(u);
        }
    }
    if ww > 0.0 {
        // The cylinder: components perpendicular to the wall.
        let perp = |x: [f64; 3]| {
            let k = dot64(x, w) / ww;
            [x[0] - k * w[0], x[1] - k * w[1], x[2] - k * w[2]]
        };
        let (q, v) = (perp(sub64(o, w0)), perp(d));
        if let Some(u) = entry_root(dot64(v, v), dot64(q, v), dot64(q, q) - r2) {
            let c = [o[0] + u * d[0], o[1] + u * d[1], o[2] + u * d[2]];
            let t = dot64(sub64(c, w0), w) / ww;
            if (0.0..=1.0).contains(&t) {
                keep(u);
            }
        }
    }
    let u = best.unwrap_or(f64::from(closest_s) * range);
    let c = [o[0] + u * d[0], o[1] + u * d[1], o[2] + u * d[2]];
    FirstHit {
        index: 0,
        u: u as f32,
        point: to_wall(c).1.map(|x| x as f32),
    }
}

/// The better of two hits: the smaller `u`, then the lower index.
fn better(a: Option<FirstHit>, b: FirstHit) -> Option<FirstHit> {
    match a {
        Some(a) if (a.u, a.index) <= (b.u, b.index) => Some(a),
        _ => Some(b),
    }
}

/// A static set (walls, level geometry) ready for repeated queries: the pairs within a
/// radius of query segments, and the first hits of thick rays.
///
/// # First hit of a thick ray
///
/// A sight ray with the agent's radius `r` and a maximum range sweeps a sphere: its centre
/// runs along `c(u) = P0 + u·(P1 - P0)` for `u` in `[0, range]` (`range` in units of the
/// direction's length: with unit directions, a distance). The first hit is the smallest `u`
/// at which the sphere touches a member of the set (its distance to the segment is at most
/// `r`), the member touched (the lowest index among equals), and the contact point on it
/// (the point of the member closest to `c(u)`). Contact is taken within
/// `max(r, 4·ε·S)`, `S` the largest coordinate magnitude of the pair (the touching
/// tolerance of [`intersect2`](crate::intersect2)), so a ray of radius zero gives the
/// first crossing of the members in its plane despite rounding.
///
/// Each pair is decided in two steps:
/// 1. the kernel's closest points of the swept segment `[P0, P0 + range·(P1 - P0)]` (in
///    `f32`) and the member: touched exactly when `dist2 <= r'²`, `r'` the contact radius
///    above (for radii above the rounding level, the test of
///    [`capsules_touch`](crate::capsules_touch));
/// 2. for a touched member, the entry parameter solved in `f64`: the smallest root in
///    `[0, range]` of `|c(u) - X|² = r²` over the member's two end points and its
///    cylinder (where the projection falls inside the member), or `0` when the sphere
///    starts in contact. The distance along the ray is convex, so the first contact is
///    where the ray enters the capsule around the member: one of those roots. When
///    rounding leaves no root although step 1 saw contact (a graze within an ulp), the
///    kernel's closest approach parameter is the hit.
///
/// [`reference::first_hit`](crate::reference::first_hit) is the same two steps for one
/// ray and one member; [`SegmentIndex::first_hits`] returns, for every ray, the minimum
/// over the set of what it gives, bit for bit, with `(u, index)` ordering ties.
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
/// # Ok::<(), segbatch::Error>(())
/// ```
pub struct SegmentIndex {
    grid: Grid<3>,
    /// The set in the grid's order (by position): the queries read their lanes near where
    /// the grid read the spheres.
    sorted: Segments,
    /// The box of the members' finite end points (`f64`), `None` when there are none: the
    /// first-hit walk skips the parts of a ray that cannot come near it.
    bounds: Option<([f64; 3], [f64; 3])>,
}

/// Rays per block of the first-hit walk: their candidates are decided together.
const RAY_BLOCK: usize = 256;

/// A ray is walked piece by piece only while its pieces near the set number fewer than the
/// members over this: a piece's look-up (a few binary searches over the cell keys per row
/// of cells around it) costs more than deciding several members in the kernel, so a longer
/// walk (a small set, or cells much smaller than the rays) is replaced by one piece, the
/// whole sweep, and the kernel decides every member near it.
const WALK_PER_MEMBER: u64 = 8;

impl SegmentIndex {
    /// Builds the index over `set`, which it copies in its own order (24 bytes a segment,
    /// beside the grid's 20): results name members by their index in `set`.
    ///
    /// # Errors
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments.
    pub fn new<'a>(set: impl Into<SegmentsView<'a>>) -> Result<Self, Error> {
        Self::build(set.into(), false)
    }

    /// [`SegmentIndex::new`] with the sort of the cell keys on all cores.
    ///
    /// # Errors
    /// As [`SegmentIndex::new`].
    #[cfg(feature = "rayon")]
    pub fn par_new<'a>(set: impl Into<SegmentsView<'a>>) -> Result<Self, Error> {
        Self::build(set.into(), true)
    }

    fn build(set: SegmentsView<'_>, parallel: bool) -> Result<Self, Error> {
        check_u32(set.len())?;
        // Without a query radius the grid can always be built.
        let (grid, rows) = Grid::build(set.len(), |i| set.at(i), 0.0, Layout::Cubes, parallel)
            .expect("a grid for a finite radius and at most u32::MAX objects");
        let sorted: Segments = rows_to_batch(&rows, parallel);
        let mut bounds: Option<([f64; 3], [f64; 3])> = None;
        for s in sorted.iter().filter(|s| sphere(s.p0, s.p1).is_some()) {
            let (lo, hi) = bounds.get_or_insert(([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]));
            for p in [s.p0, s.p1] {
                for c in 0..3 {
                    lo[c] = lo[c].min(f64::from(p[c]));
                    hi[c] = hi[c].max(f64::from(p[c]));
                }
            }
        }
        Ok(SegmentIndex {
            grid,
            sorted,
            bounds,
        })
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

    /// For every ray of `rays` (`P0` the origin, `P1 - P0` the direction), the first member
    /// of the set that a sphere of `radius` moving along it from `u = 0` to `u = range`
    /// touches, or `None` (see [`SegmentIndex`] for what a hit is).
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when `radius` or `range` is negative, NaN or infinite.
    pub fn first_hits<'r>(
        &self,
        rays: impl Into<SegmentsView<'r>>,
        radius: f32,
        range: f32,
    ) -> Result<Vec<Option<FirstHit>>, Error> {
        let mut out = Vec::new();
        self.first_hits_run(rays.into(), radius, range, false, &mut out)?;
        Ok(out)
    }

    /// [`first_hits`](Self::first_hits) on all cores, bitwise the same results.
    ///
    /// # Errors
    /// As [`first_hits`](Self::first_hits).
    #[cfg(feature = "rayon")]
    pub fn par_first_hits<'r>(
        &self,
        rays: impl Into<SegmentsView<'r>>,
        radius: f32,
        range: f32,
    ) -> Result<Vec<Option<FirstHit>>, Error> {
        let mut out = Vec::new();
        self.first_hits_run(rays.into(), radius, range, true, &mut out)?;
        Ok(out)
    }

    fn first_hits_run(
        &self,
        rays: SegmentsView<'_>,
        radius: f32,
        range: f32,
        parallel: bool,
        out: &mut Vec<Option<FirstHit>>,
    ) -> Result<(), Error> {
        out.clear();
        radius2(radius)?;
        if !(radius.is_finite() && range >= 0.0 && range.is_finite()) {
            return Err(Error::InvalidRadius { index: None });
        }
        check_u32(rays.len())?;
        let sweeps: Segments = rays.iter().map(|r| swept(&r, range)).collect();
        out.resize(rays.len(), None);
        let block = |first: usize, hits: &mut [Option<FirstHit>]| {
            self.first_hits_block(rays, &sweeps, first, radius, range, hits);
        };
        #[cfg(feature = "rayon")]
        if parallel {
            use rayon::prelude::*;
            out.par_chunks_mut(RAY_BLOCK)
                .enumerate()
                .for_each(|(k, hits)| block(k * RAY_BLOCK, hits));
            return Ok(());
        }
        let _ = parallel;
        for (k, hits) in out.chunks_mut(RAY_BLOCK).enumerate() {
            block(k * RAY_BLOCK, hits);
        }
        Ok(())
    }

    /// The first hits of rays `first .. first + hits.len()`, walking all of them piece by
    /// piece together.
    fn first_hits_block(
        &self,
        rays: SegmentsView<'_>,
        sweeps: &Segments,
        first: usize,
        radius: f32,
        range: f32,
        hits: &mut [Option<FirstHit>],
    ) {
        let step = self.grid.cell_edge();
        // Pieces per ray: about one cell each (at least one, at most 2^20), and the run of
        // them that can come near the members' box. A run of at least
        // `members / WALK_PER_MEMBER` pieces is not walked: the ray is one piece, its whole
        // sweep, whose candidates (at most every member) cost less than the walk's look-ups.
        let members = self.sorted.len() as u64;
        let (pieces, runs): (Vec<u32>, Vec<Range<u32>>) = (0..hits.len())
            .map(|k| {
                let s = sweeps.get(first + k).expect("a sweep per ray");
                let len = (0..3)
                    .map(|c| f64::from(s.p1[c]) - f64::from(s.p0[c]))
                    .map(|x| x * x)
                    .sum::<f64>()
                    .sqrt();
                let n = (len / step).ceil().clamp(1.0, f64::from(1u32 << 20)) as u32;
                let run = self.pieces_near(&s, n, len / f64::from(n), radius);
                if !run.is_empty() && u64::from(run.end - run.start) * WALK_PER_MEMBER >= members {
                    (1, 0..1)
                } else {
                    (n, run)
                }
            })
            .unzip();
        let mut active: Vec<u32> = (0..hits.len() as u32)
            .filter(|&k| !runs[k as usize].is_empty())
            .collect();
        let mut candidates: Vec<(u32, u32)> = Vec::new();
        let mut closest = ClosestBatch::new();
        let outputs = Outputs {
            params: true,
            points: false,
            flags: false,
        };
        let mut piece = 0u32;
        while !active.is_empty() {
            candidates.clear();
            for &k in &active {
                let ray = first + k as usize;
                let s = sweeps.get(ray).expect("a sweep per ray");
                let n = pieces[k as usize];
                let at = |i: u32| -> [f32; 3] {
                    let f = i as f32 / n as f32;
                    core::array::from_fn(|c| f.mul_add(s.p1[c] - s.p0[c], s.p0[c]))
                };
                let i = runs[k as usize].start + piece;
                // The sweep's own end points at its ends (a ray of one piece is its sweep).
                let p0 = if i == 0 { s.p0 } else { at(i) };
                let p1 = if i + 1 == n { s.p1 } else { at(i + 1) };
                if let Some(ball) = sphere(p0, p1) {
                    self.grid
                        .near_all(&ball, radius, |pos| candidates.push((ray as u32, pos)));
                }
            }
            if !candidates.is_empty() {
                closest_points_indexed_into(
                    sweeps,
                    &self.sorted,
                    &candidates,
                    &Options::SEGMENTS,
                    outputs,
                    &mut closest,
                )
                .expect("candidates name rays and members");
            }
            for (c, &(ray, pos)) in candidates.iter().enumerate() {
                let member = self.sorted.get(pos as usize).expect("a member's position");
                let sweep = sweeps.get(ray as usize).expect("a sweep per ray");
                let touch = contact_radius(radius, &sweep, &member);
                if closest.dist2()[c] <= touch * touch {
                    let mut hit = first_contact_on(
                        &rays.at(ray as usize),
                        touch,
                        range,
                        &member,
                        closest.s()[c],
                    );
                    hit.index = self.grid.ids()[pos as usize];
                    let slot = &mut hits[ray as usize - first];
                    *slot = better(*slot, hit);
                }
            }
            // A ray is done at its last piece, or once its best hit lies before the end of
            // the pieces seen (members not met yet are all farther along).
            active.retain(|&k| {
                let (n, run) = (pieces[k as usize], &runs[k as usize]);
                let next = run.start + piece + 1;
                let seen = range * next as f32 / n as f32;
                next < run.end && hits[k as usize].is_none_or(|h| h.u >= seen)
            });
            piece += 1;
        }
    }

    /// The pieces `i` (of `n`, each about `piece` long) of `sweep` that may come within
    /// `radius` of the members: those meeting the members' box grown by `radius`, a piece
    /// and a thousandth of the largest coordinate (far more than the rounding of the pieces
    /// and of the contact radius). All `n` when the clip is not finite; none without
    /// members. The walk then never visits the pieces of a long ray beyond the set.
    fn pieces_near(&self, sweep: &Segment, n: u32, piece: f64, radius: f32) -> Range<u32> {
        let Some((lo, hi)) = self.bounds else {
            return 0..0;
        };
        let p0 = sweep.p0.map(f64::from);
        let d: [f64; 3] = core::array::from_fn(|c| f64::from(sweep.p1[c]) - p0[c]);
        let scale = lo
            .iter()
            .chain(&hi)
            .chain(&p0)
            .fold(0.0f64, |m, x| m.max(x.abs()));
        let grow = (f64::from(radius) + piece) * 1.001 + 1e-3 * scale;
        // The slab clip of p0 + f·d, f in [0, 1], against the grown box.
        let (mut f0, mut f1) = (0.0f64, 1.0f64);
        for c in 0..3 {
            let (a, b) = (lo[c] - grow - p0[c], hi[c] + grow - p0[c]);
            if d[c] == 0.0 {
                if a > 0.0 || b < 0.0 {
                    return 0..0;
                }
            } else {
                let (t0, t1) = (a / d[c], b / d[c]);
                f0 = f0.max(t0.min(t1));
                f1 = f1.min(t0.max(t1));
            }
        }
        if !(f0.is_finite() && f1.is_finite() && grow.is_finite()) {
            return 0..n;
        }
        if f0 > f1 {
            return 0..0;
        }
        let nf = f64::from(n);
        ((f0 * nf).floor() as u32).min(n)..((f1 * nf).floor() as u32 + 1).min(n)
    }

    /// Every pair of a query segment `queries[i]` and a member `set[j]` within `radius`,
    /// sorted by `(i, j)`: [`pairs_within`](crate::pairs_within)`(queries, set, radius)`,
    /// bit for bit, without rebuilding the index.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when `radius` is negative or NaN;
    /// [`Error::TooManyObjects`] for more than `u32::MAX` queries.
    pub fn pairs_within<'q>(
        &self,
        queries: impl Into<SegmentsView<'q>>,
        radius: f32,
    ) -> Result<Vec<Hit>, Error> {
        let mut out = Vec::new();
        self.within_run(queries.into(), radius, false, &mut out)?;
        Ok(out)
    }

    /// [`pairs_within`](Self::pairs_within) on all cores, the same list.
    ///
    /// # Errors
    /// As [`pairs_within`](Self::pairs_within).
    #[cfg(feature = "rayon")]
    pub fn par_pairs_within<'q>(
        &self,
        queries: impl Into<SegmentsView<'q>>,
        radius: f32,
    ) -> Result<Vec<Hit>, Error> {
        let mut out = Vec::new();
        self.within_run(queries.into(), radius, true, &mut out)?;
        Ok(out)
    }

    fn within_run(
        &self,
        queries: SegmentsView<'_>,
        radius: f32,
        parallel: bool,
        out: &mut Vec<Hit>,
    ) -> Result<(), Error> {
        out.clear();
        let r2 = radius2(radius)?;
        check_u32(queries.len())?;
        if !radius.is_finite() {
            crate::pairs_within_into(queries, &self.sorted, radius, &Options::SEGMENTS, out)?;
            for h in out.iter_mut() {
                h.j = self.grid.ids()[h.j] as usize;
            }
            out.sort_unstable_by_key(|h| (h.i, h.j));
            return Ok(());
        }
        let block = |first: usize, len: usize| -> Vec<Hit> {
            let mut candidates = Vec::new();
            for i in first..first + len {
                let q = queries.at(i);
                if let Some(ball) = sphere(q.p0, q.p1) {
                    self.grid
                        .near_all(&ball, radius, |pos| candidates.push((i as u32, pos)));
                }
            }
            // Sorted by (i, j), j the member's id: the order of the brute-force list.
            let ids = self.grid.ids();
            candidates.sort_unstable_by_key(|&(i, pos)| (i, ids[pos as usize]));
            let mut closest = ClosestBatch::new();
            let outputs = Outputs {
                params: true,
                points: false,
                flags: false,
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
            let (d, s, t) = (closest.dist2(), closest.s(), closest.t());
            (0..candidates.len())
                .filter(|&c| d[c] <= r2)
                .map(|c| Hit {
                    i: candidates[c].0 as usize,
                    j: ids[candidates[c].1 as usize] as usize,
                    dist2: d[c],
                    s: s[c],
                    t: t[c],
                })
                .collect()
        };
        let n = queries.len();
        let starts: Vec<usize> = (0..n).step_by(RAY_BLOCK).collect();
        #[cfg(feature = "rayon")]
        if parallel {
            use rayon::prelude::*;
            let parts: Vec<Vec<Hit>> = starts
                .par_iter()
                .map(|&f| block(f, RAY_BLOCK.min(n - f)))
                .collect();
            out.extend(parts.into_iter().flatten());
            return Ok(());
        }
        let _ = parallel;
        for f in starts {
            out.extend(block(f, RAY_BLOCK.min(n - f)));
        }
        Ok(())
    }
}

/// The scalar first hit of one ray on one member: `None` unless the sphere of `radius`
/// moving along the ray over `[0, range]` touches it (see [`SegmentIndex`]).
pub(crate) fn first_hit_pair(
    ray: &Segment,
    radius: f32,
    range: f32,
    wall: &Segment,
) -> Option<FirstHit> {
    let sweep = swept(ray, range);
    let c = reference::closest_points(&sweep, wall);
    let touch = contact_radius(radius, &sweep, wall);
    (c.dist2 <= touch * touch).then(|| first_contact_on(ray, touch, range, wall, c.s))
}
