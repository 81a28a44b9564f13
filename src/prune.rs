//! The pruning layer under the set queries: a uniform grid of bounding spheres that names
//! candidate pairs, conservatively, for the kernel to decide.
//!
//! # Why a grid (and not sort-and-sweep)
//!
//! Sort-and-sweep on one axis tests every pair whose intervals overlap on that axis: for
//! `N` short segments spread through a cube that is `N·w/L` candidates per segment (`w` the
//! interval width, `L` the cube's side), growing like `N^(2/3)`. The grid tests only the
//! neighbouring cells, a constant number of candidates per segment at a given density, so
//! the work is `O(N log N + K)` (the log from sorting the cell keys). Measured on the
//! `sets` workload (`segbatch bench --only sets`, docs/performance.md): at 100K hair-like
//! segments the sweep over x tests about 40 times as many candidates as the grid's
//! half-shell, and the gap grows with `N`.
//!
//! # The grid
//!
//! Every object is reduced to a bounding sphere (centre, radius inflated against rounding,
//! as the brute-force prefilter does, see [`crate::query`]). The cell edge is
//! `c >= 2·cap + r`, `cap` the largest sphere radius kept in the cells and `r` the query
//! radius: two spheres within `r` of each other then have their centres in the same or
//! neighbouring cells. `cap` is the largest radius when that is at most twice the 99th
//! percentile, else the 99th percentile ([`Grid::build`]); the spheres above it (at most
//! 1% of the set) are kept aside as *big* objects and meet the others through box queries
//! over the cells, so a few very long segments do not inflate every cell.
//!
//! Objects are sorted by cell key (`z`, then `y`, then `x`, most significant first), then
//! by centre `x` within a cell, so a run of cells along `x` is one contiguous range of the
//! sorted sphere columns, sorted by `x`: the pair loop reads 8 candidate spheres at a time
//! straight from memory. Within one set the pairs are enumerated once, over a half shell
//! (the cell itself, its `+x` neighbour and the rows `y+1` and `z+1`: 13 neighbours in 3D,
//! 4 in 2D), with cursors that only move forward.
//!
//! The pair enumeration ([`Plan`]) cuts space into columns along `x` instead of cubes
//! ([`Layout::Columns`]: cells on the other axes only) and sweeps along `x` within each
//! column and its half shell of neighbouring columns: object `p` meets only the window of
//! each neighbour whose centres lie within the largest bound of the sphere test on `x`
//! (two cursors a neighbour that only move forward). Measured on 100K hair sticks
//! (callgrind, one thread), this tests 156 lanes an object where the 3x3x3 cubes tested 249
//! (the candidates are the same), and takes the whole query from 567M to 552M
//! instructions: the lanes saved pay for the cursors and a little more. A static index
//! ([`Layout::Cubes`]) keeps cubes, since its queries ask for small boxes.
//!
//! The grid never decides a result: it only names candidates, and its sphere test is the
//! prefilter of the brute-force queries, so a query with and without it reports the same
//! pairs with the same values. The scan hands its candidates on a group of eight at a time
//! ([`Group`]); a narrow phase may drop lanes with a tighter test that is as conservative
//! ([`Narrow::refine`]: the radius queries test the segment against the other's sphere,
//! which halves the candidates the gathered kernel sees on short segments).
//!
//! # Running a set query
//!
//! A query supplies its narrow phase ([`Narrow`]: which pair a candidate stands for, and
//! the kernel run that decides a batch of candidates); a [`Plan`] cuts the grid into tasks
//! of about [`TASK_OBJECTS`] objects (whole cells; a crowded cell, such as a set along one
//! line or many copies of one object, in runs of its objects; then runs of big objects),
//! feeds each task's candidates to the narrow phase [`FLUSH`] at a time, and hands each
//! task's hits on in task order, in blocks of at most [`MAX_BLOCK_HITS`]: a task hands its
//! hits on whenever another run of the narrow phase could take them past the cap, so no
//! layout of the set (collinear, identical, dense) makes a block larger. The parallel forms
//! run the tasks on as many threads as the rayon pool has, each with a queue of at most
//! [`BLOCKS_AHEAD`] finished blocks that the calling thread reads in task order
//! ([`ordered`]). The tasks and their blocks do not depend on the thread count, so every
//! thread count gives the same blocks in the same order, and a streamed query holds the
//! input, the grid and a few blocks a thread, never its whole output.
//!
//! # Extreme inputs
//!
//! The grid is built for any finite radius and any coordinates: its cell and origin are
//! `f64`, the spheres' lengths are measured in `f64`, and a sphere whose radius overflows
//! `f32` is a big object, met through the box queries (which then cover every cell). So a
//! set with a wall from `-f32::MAX` to `f32::MAX` still gets a grid, whose big objects
//! cost a pass over the others each. Objects with a NaN or infinite coordinate have no
//! sphere: they are never within any radius and are left out of the grid.

use crate::batch::{Error, Record, Soa, padded_len};
use crate::columns::LANES;
use crate::driver::Row;
use core::ops::Range;
use wide::{f32x8, u32x8};

/// Objects per task (whole cells, or a run of the objects of one crowded cell), the unit
/// of work of the parallel forms.
pub(crate) const TASK_OBJECTS: usize = 4096;
/// The most hits a streamed set query hands its sink at once (`for_each_pair_within`,
/// `for_each_self_pair_within`, `for_each_crossing_pair` and their parallel forms),
/// whatever the set's layout: a task whose hits reach this many hands them on and goes on
/// (see the module docs). 65 536 compact hits are 768 KiB of `PairHit`s.
pub const MAX_BLOCK_HITS: usize = 1 << 16;
/// Blocks a worker of the parallel forms may have finished and not yet handed to the
/// sink: with the one it fills, the memory of a streamed call is the input, the grid and
/// `BLOCKS_AHEAD + 1` blocks a thread, whatever the number of hits.
#[cfg(feature = "rayon")]
const BLOCKS_AHEAD: usize = 2;
/// Big objects per task.
const TASK_BIG: usize = 64;
/// Rows (values of `i`) per bucket of the collected forms' sort.
const BUCKET_ROWS: usize = 4096;
/// Candidate pairs per run of the narrow phase: the gathered kernel's buffers stay in L2,
/// and its fixed costs (zeroing its staging buffer, sizing the outputs) are shared by
/// enough pairs.
const FLUSH: usize = 8192;

const _: () = assert!(FLUSH < MAX_BLOCK_HITS);

/// Groups of candidates (a position and up to [`LANES`] others) the grid hands on at a
/// time: the scan fills them in a tight loop, and the refinement and the narrow phase's
/// batching run over them in another.
const GROUPS: usize = 2048;

/// A group of candidates: position `p` with the positions `j + k` (`j` a multiple of
/// [`LANES`]) of the bits `k` set in `bits`.
#[derive(Clone, Copy, Default)]
struct Group {
    p: u32,
    j: u32,
    bits: u32,
}

/// Values stored without a branch: every value is written at the end and the length
/// grows only when it is kept (room reserved first). The scan stores its groups this way
/// (about half the groups it tests are empty, in no pattern a predictor learns, and a branch
/// on that mispredicted about once an object in two groups: perf on 1M hair, the scan's
/// hottest instruction), and the narrow phases their hits (about half the candidates are
/// hits).
pub(crate) struct Kept<T> {
    /// Storage, at least `len` long (the slots past `len` are scratch, written before they
    /// are kept).
    buf: Vec<T>,
    /// The values kept.
    len: usize,
}

impl<T: Copy + Default> Kept<T> {
    /// Room for `n` values.
    pub(crate) fn with_room(n: usize) -> Self {
        Kept {
            buf: vec![T::default(); n],
            len: 0,
        }
    }

    /// The number of values kept.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Room for `more` values past the kept ones (at least doubling the storage when it
    /// grows, so that filling the scratch slots costs a constant a value).
    #[inline(always)]
    pub(crate) fn reserve(&mut self, more: usize) {
        if self.buf.len() < self.len + more {
            let room = (self.len + more).max(2 * self.buf.len());
            self.buf.resize(room, T::default());
        }
    }

    /// Writes `x` into the next slot and keeps it when `keep` (room reserved by the
    /// caller).
    #[inline(always)]
    pub(crate) fn put(&mut self, x: T, keep: bool) {
        self.buf[self.len] = x;
        self.len += usize::from(keep);
    }

    /// Keeps `x`.
    pub(crate) fn push(&mut self, x: T) {
        self.reserve(1);
        self.put(x, true);
    }

    /// Empties the store (its storage stays).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The values kept, and empties the store.
    fn take(&mut self) -> &[T] {
        let n = core::mem::take(&mut self.len);
        &self.buf[..n]
    }
}

/// Relative inflation of each sphere radius.
const SPHERE_REL: f32 = 1.0 + 4.0 * f32::EPSILON;
/// Absolute inflation of each sphere radius, times the object's largest coordinate.
const SPHERE_ABS: f32 = 256.0 * f32::EPSILON;
/// Relative inflation of the sum `radA + radB + R`.
pub(crate) const BOUND_REL: f32 = 1.0 + 16.0 * f32::EPSILON;
/// Extra room in the cell edge over the largest distance two neighbours' centres can have,
/// for the rounding of that bound in `f32`.
const CELL_MARGIN: f64 = 1.0 + 1e-4;

/// A bounding sphere, inflated so that rounding never makes it too small: centre and
/// radius of the points `p0 .. p1` (any dimension), `None` when a coordinate is not finite
/// (such objects are never within any radius).
#[inline]
pub(crate) fn sphere<const D: usize>(p0: [f32; D], p1: [f32; D]) -> Option<([f32; D], f32)> {
    if !p0.iter().chain(&p1).all(|x| x.is_finite()) {
        return None;
    }
    // Halves first: the sum of two finite coordinates may overflow, this may not.
    let m: [f32; D] = core::array::from_fn(|k| 0.5 * p0[k] + 0.5 * p1[k]);
    // The length in `f64`: in `f32` the squares of a segment longer than about 1.8e19
    // overflow, which made its sphere infinite. A segment longer than `f32::MAX` (say from
    // `-f32::MAX` to `f32::MAX`) still has an infinite radius in `f32`; the grid keeps such
    // objects aside as big ones ([`Grid::build`]).
    let len2: f64 = (0..D)
        .map(|k| {
            let d = f64::from(p1[k]) - f64::from(p0[k]);
            d * d
        })
        .sum();
    let scale = p0.iter().chain(&p1).fold(0.0f32, |acc, x| acc.max(x.abs()));
    let radius = 0.5 * len2.sqrt() * f64::from(SPHERE_REL) + f64::from(SPHERE_ABS * scale);
    Some((m, radius as f32))
}

/// The bounding sphere of a staged row: a segment's two end points of `D` coordinates.
#[inline]
fn row_sphere<const D: usize>(row: &Row) -> Option<([f32; D], f32)> {
    sphere(
        core::array::from_fn(|k| row.0[k]),
        core::array::from_fn(|k| row.0[D + k]),
    )
}

/// The objects of `rows` (the first `C` values of each) as a batch, written a chunk of
/// rows at a time on all cores when `parallel`: the copy in the grid's order for the
/// queries that read columns.
pub(crate) fn rows_to_batch<T: Record<C>, const C: usize>(
    rows: &[Row],
    parallel: bool,
) -> Soa<T, C> {
    const { assert!(C <= LANES) };
    let mut batch = Soa::zeroed(rows.len());
    fill_columns(batch.columns_mut(), parallel, |p| {
        core::array::from_fn(|c| rows[p].0[c])
    });
    batch
}

/// Bounding spheres as SIMD-ready columns: centres per axis and radii, padded to whole
/// groups with spheres infinitely far away.
pub(crate) struct SphereColumns<const D: usize> {
    centre: [Vec<f32>; D],
    rad: Vec<f32>,
}

impl<const D: usize> SphereColumns<D> {
    /// The columns of the spheres `sphere(0..n)` (`None`, a non-finite object, becomes a
    /// sphere infinitely far away, which the test never passes for a finite radius),
    /// padded, written a chunk at a time on all cores when `parallel`.
    pub(crate) fn of(
        n: usize,
        parallel: bool,
        sphere: impl Fn(usize) -> Option<([f32; D], f32)> + Sync,
    ) -> Self {
        let len = padded_len(n);
        let mut centre: [Vec<f32>; D] = core::array::from_fn(|_| vec![f32::INFINITY; len]);
        let mut rad = vec![0.0; len];
        let at = |p: usize| sphere(p).unwrap_or(([f32::INFINITY; D], 0.0));
        fill_columns(centre.each_mut().map(|c| &mut c[..n]), parallel, |p| {
            at(p).0
        });
        fill_each(&mut rad[..n], parallel, |p| at(p).1);
        SphereColumns { centre, rad }
    }

    /// Sphere `p` broadcast to every lane.
    #[inline(always)]
    pub(crate) fn splat(&self, p: usize) -> ([f32x8; D], f32x8) {
        (
            core::array::from_fn(|k| f32x8::splat(self.centre[k][p])),
            f32x8::splat(self.rad[p]),
        )
    }

    /// Lanes of the group at `j` (a multiple of [`LANES`]) whose sphere may come within
    /// `radius` of the sphere `(m, rad)`:
    /// `|m - m_j|² <= ((rad + rad_j + radius)·(1 + 16ε))²`, conservative. NaN compares
    /// false.
    #[inline(always)]
    pub(crate) fn near_bits(&self, j: usize, me: &([f32x8; D], f32x8), radius: f32x8) -> u32 {
        near_lanes(self.group(j), me, radius)
    }

    /// The groups `g` (group `g` holds positions `8g .. 8g + 8`) as slices of lanes: the
    /// centres per axis and the radii, all `g.len()` long.
    #[inline(always)]
    fn groups(&self, g: Range<usize>) -> ([&[[f32; LANES]]; D], &[[f32; LANES]]) {
        fn lanes(c: &[f32], g: Range<usize>) -> &[[f32; LANES]] {
            &c.as_chunks::<LANES>().0[g]
        }
        (
            core::array::from_fn(|k| lanes(&self.centre[k], g.clone())),
            lanes(&self.rad, g),
        )
    }

    /// The spheres of the group at `j` (a multiple of [`LANES`]): centres and radii.
    #[inline(always)]
    pub(crate) fn group(&self, j: usize) -> ([f32x8; D], f32x8) {
        let load = |c: &[f32]| -> f32x8 {
            let a: [f32; LANES] = c[j..j + LANES].try_into().expect("8 values");
            f32x8::from(a)
        };
        (
            core::array::from_fn(|k| load(&self.centre[k])),
            load(&self.rad),
        )
    }
}

/// The sphere test of [`SphereColumns::near_bits`] on a group already loaded.
#[inline(always)]
fn near_lanes<const D: usize>(
    (centre, rad_j): ([f32x8; D], f32x8),
    (m, rad): &([f32x8; D], f32x8),
    radius: f32x8,
) -> u32 {
    let mut dm2 = f32x8::ZERO;
    for (c, x) in centre.iter().zip(m) {
        let d = *c - *x;
        dm2 = d.mul_add(d, dm2);
    }
    let bound = (rad_j + *rad + radius) * f32x8::splat(BOUND_REL);
    dm2.simd_le(bound * bound).to_bitmask()
}

/// The same test for two single spheres.
#[inline]
fn near<const D: usize>(a: &([f32; D], f32), b: &([f32; D], f32), radius: f32) -> bool {
    let mut dm2 = 0.0f32;
    for k in 0..D {
        let d = b.0[k] - a.0[k];
        dm2 = d.mul_add(d, dm2);
    }
    let bound = (b.1 + a.1 + radius) * BOUND_REL;
    dm2 <= bound * bound
}

/// Hands `j + k` to `emit` for every bit `k` set in `bits`, lowest first.
#[inline(always)]
pub(crate) fn each_bit(j: usize, mut bits: u32, mut emit: impl FnMut(u32)) {
    while bits != 0 {
        let k = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        emit((j + k) as u32);
    }
}

/// Moves `pos` forward past the positions before `end` whose centres' `x` pass `go`
/// (lanes of `xs`, the padded first centre column), eight at a time. The sweep windows
/// move a few positions an object, in no pattern a predictor learns: a loop testing one
/// position at a time mispredicted its exit on most calls (callgrind --branch-sim on hair:
/// 40% of the remaining mispredictions); this one loops only past eight.
#[inline(always)]
fn advance(xs: &[f32], pos: &mut usize, end: usize, go: impl Fn(f32x8) -> f32x8) {
    while *pos < end {
        let v = match xs.get(*pos..*pos + LANES) {
            Some(v) => f32x8::new(v.try_into().expect("eight lanes")),
            // The column's last group, read from an unaligned start: its padding is +inf,
            // which no window passes, and the lanes from `end` on are masked below anyway.
            None => f32x8::new(core::array::from_fn(|k| {
                xs.get(*pos + k).copied().unwrap_or(f32::INFINITY)
            })),
        };
        let pass = go(v).to_bitmask() & lane_bits(*pos, end, *pos);
        let run = (!pass).trailing_zeros() as usize;
        *pos += run;
        if run < LANES {
            break;
        }
    }
}

/// Bits `k` (0..8) for which `lo <= j + k < hi`.
#[inline(always)]
pub(crate) fn lane_bits(lo: usize, hi: usize, j: usize) -> u32 {
    let from = lo.saturating_sub(j).min(LANES) as u32;
    let to = hi.saturating_sub(j).min(LANES) as u32;
    if to <= from {
        0
    } else {
        ((1u32 << to) - 1) & !((1u32 << from) - 1)
    }
}

/// Objects per chunk of the grid's passes over a set.
const CHUNK: usize = 64 * 1024;
/// Radii sampled for the cap's percentile.
const CAP_SAMPLE: usize = 64 * 1024;
/// The sort key of a big object (above every cell's key, which has 63 bits).
const BIG_KEY: u64 = u64::MAX - 1;
/// The sort key of a non-finite object (after the big ones).
const NONE_KEY: u64 = u64::MAX;

/// `fill(k, piece)` for every chunk `piece` of [`CHUNK`] values of `out` (`k` the index of
/// its first value), on all cores when `parallel`; the results in order. The grid's passes
/// write straight into their outputs this way, with no merging copy.
fn fill<T: Send, R: Send>(
    out: &mut [T],
    parallel: bool,
    fill: impl Fn(usize, &mut [T]) -> R + Sync,
) -> Vec<R> {
    let big = parallel && out.len() > CHUNK;
    let pieces: Vec<(usize, &mut [T])> = out
        .chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, piece)| (c * CHUNK, piece))
        .collect();
    par_map(pieces, big, |(k, piece)| fill(k, piece))
}

/// `cols[c][k] = value(k)[c]` for every `k` (columns of one length), on all cores when
/// `parallel`.
fn fill_columns<const K: usize>(
    cols: [&mut [f32]; K],
    parallel: bool,
    value: impl Fn(usize) -> [f32; K] + Sync,
) {
    let n = cols.first().map_or(0, |c| c.len());
    let mut chunks = cols.map(|c| c.chunks_mut(CHUNK));
    let pieces: Vec<(usize, [&mut [f32]; K])> = (0..n)
        .step_by(CHUNK)
        .map(|k| {
            (
                k,
                chunks
                    .each_mut()
                    .map(|c| c.next().expect("a chunk per column")),
            )
        })
        .collect();
    par_map(pieces, parallel && n > CHUNK, |(k, mut piece)| {
        for j in 0..piece.first().map_or(0, |c| c.len()) {
            for (column, x) in piece.iter_mut().zip(value(k + j)) {
                column[j] = x;
            }
        }
    });
}

/// `out[k] = value(k)` for every `k`, on all cores when `parallel`.
fn fill_each<T: Send>(out: &mut [T], parallel: bool, value: impl Fn(usize) -> T + Sync) {
    fill(out, parallel, |k, piece| {
        for (slot, k) in piece.iter_mut().zip(k..) {
            *slot = value(k);
        }
    });
}

/// Sorts the `(key, x order << 32 | id)` pairs, on all cores when `parallel` and there are
/// many.
fn sort_keys(keyed: &mut [(u64, u64)], parallel: bool) {
    #[cfg(feature = "rayon")]
    if parallel && keyed.len() >= crate::driver::PAR_MIN_PAIRS {
        use rayon::slice::ParallelSliceMut;
        keyed.par_sort_unstable();
        return;
    }
    let _ = parallel;
    keyed.sort_unstable();
}

/// A `u32` that orders like the `f32` `x` (finite): the objects of a cell are sorted by
/// their centre's first coordinate, ties by id.
fn x_order(x: f32) -> u32 {
    let b = x.to_bits();
    if b >> 31 == 1 { !b } else { b | 1 << 31 }
}

/// Bits of a cell key per axis: 21 in 3D, 31 in 2D.
const fn axis_bits(d: usize) -> u32 {
    63 / d as u32
}

/// How a [`Grid`] cuts space.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Cubes of the cell edge: for a static index, whose queries ask for small boxes.
    Cubes,
    /// Columns along `x`, the cell edge on the other axes, each sorted by `x`: for the
    /// pair enumeration, which sweeps along `x` within each pair of neighbouring columns.
    Columns,
}

/// The grid over a set of objects (see the module docs).
pub(crate) struct Grid<const D: usize> {
    /// Cubes, or columns along `x`.
    layout: Layout,
    /// Cell edge.
    cell: f64,
    /// Lowest corner (the cell of coordinate 1 on every axis starts here).
    origin: [f64; D],
    /// Ids of the objects by position: the objects in the cells in key order, then the big
    /// objects. Queries name objects by position, so that a copy of the set in this order
    /// (which the queries keep) is read near where the grid reads.
    ids: Vec<u32>,
    /// Their spheres, in the same order.
    spheres: SphereColumns<D>,
    /// Keys of the occupied cells, ascending.
    keys: Vec<u64>,
    /// Start of each occupied cell's objects, plus one end entry.
    starts: Vec<u32>,
    /// The big objects' spheres, in id order (positions `cells_len ..`).
    big: Vec<([f32; D], f32)>,
    /// Number of objects in the cells.
    cells_len: usize,
    /// Largest sphere radius in the cells.
    cap: f32,
}

impl<const D: usize> Grid<D> {
    /// Largest cell coordinate: coordinates run `1 ..= MAX_CELL`, so `±1` stays in range.
    const MAX_CELL: u64 = (1 << axis_bits(D)) - 2;

    /// The grid over the objects `object(0..n)` (segments: two end points of `D`
    /// coordinates, `C = 2·D` values), for pairs within `radius` of each other, and the
    /// objects as rows in the grid's order (by position: the copy a query reads; the ones
    /// with a non-finite coordinate are never within any radius and left out). `None` only
    /// for an infinite or NaN radius or more than `u32::MAX` objects (the caller falls back
    /// to brute force): for any finite radius (0 included) and at most `u32::MAX` objects
    /// it returns a grid, whatever the coordinates (every finite `f32`, extents up to
    /// `±f32::MAX` included; the cell and the origin are computed in `f64`, where they
    /// cannot overflow).
    ///
    /// The cell holds spheres up to `cap`: the 99th percentile of the finite radii, but at
    /// least the largest finite one when that is within twice the percentile (sets of
    /// similar objects then have no big objects at all). A sphere whose radius overflows
    /// `f32` (a segment longer than `f32::MAX`) is always a big object.
    pub(crate) fn build<T: Record<C>, const C: usize>(
        n: usize,
        object: impl Fn(usize) -> T + Sync,
        radius: f32,
        layout: Layout,
        parallel: bool,
    ) -> Option<(Grid<D>, Vec<Row>)> {
        const { assert!(C == 2 * D && C <= LANES) };
        if n > u32::MAX as usize || !radius.is_finite() {
            return None;
        }
        // Pass 1: the objects staged as rows by id (read in order from the caller's
        // columns) and, a chunk at a time, the centres' bounds and the largest radius.
        let mut staged = vec![Row::default(); n];
        let parts = fill(&mut staged, parallel, |k, piece| {
            let mut lo = [f64::INFINITY; D];
            let mut hi = [f64::NEG_INFINITY; D];
            let mut max = 0.0f32;
            for (slot, i) in piece.iter_mut().zip(k..) {
                let record = bytemuck::cast::<T, [f32; C]>(object(i));
                *slot = Row(core::array::from_fn(
                    |c| if c < C { record[c] } else { 0.0 },
                ));
                if let Some((m, h)) = row_sphere::<D>(slot) {
                    if h.is_finite() {
                        max = max.max(h);
                    }
                    for k in 0..D {
                        lo[k] = lo[k].min(f64::from(m[k]));
                        hi[k] = hi[k].max(f64::from(m[k]));
                    }
                }
            }
            (lo, hi, max)
        });
        let mut lo = [f64::INFINITY; D];
        let mut hi = [f64::NEG_INFINITY; D];
        let mut max = 0.0f32;
        for (l, h, m) in parts {
            max = max.max(m);
            for k in 0..D {
                lo[k] = lo[k].min(l[k]);
                hi[k] = hi[k].max(h[k]);
            }
        }
        // The percentile from an evenly spaced sample of at most `CAP_SAMPLE` radii: the
        // cap only sizes the cells (any cap gives the same pairs), and a sample keeps the
        // selection a constant cost.
        let stride = n.div_ceil(CAP_SAMPLE).max(1);
        let mut radii: Vec<f32> = staged
            .iter()
            .step_by(stride)
            .filter_map(|r| row_sphere::<D>(r).map(|s| s.1))
            .collect();
        let cap = if radii.is_empty() {
            max
        } else {
            let q = (radii.len() * 99 / 100).min(radii.len() - 1);
            let (_, &mut p99, _) = radii.select_nth_unstable_by(q, f32::total_cmp);
            // (`p99` is infinite when more than 1% of the spheres are: the largest finite
            // radius, `max`, is then the cap.)
            if max <= 2.0 * p99 { max } else { p99 }
        };
        let extent = (0..D).map(|k| hi[k] - lo[k]).fold(0.0f64, f64::max);
        let reach = (2.0 * f64::from(cap) + f64::from(radius)) * f64::from(BOUND_REL);
        // Finite: `cap` and `radius` are finite `f32`s, and so is every centre.
        let cell = (reach * CELL_MARGIN)
            .max(extent / (Self::MAX_CELL - 2) as f64)
            .max(f64::MIN_POSITIVE);
        let origin = lo.map(|x| if x.is_finite() { x } else { 0.0 });
        let mut grid = Grid {
            layout,
            cell,
            origin,
            ids: Vec::new(),
            spheres: SphereColumns::of(0, false, |_| None),
            keys: Vec::new(),
            starts: Vec::new(),
            big: Vec::new(),
            cells_len: 0,
            cap,
        };
        // Pass 2: the keys, sorted: the objects in the cells by cell and `x`, then the big
        // ones by id, then the non-finite ones (left out).
        let mut keyed: Vec<(u64, u64)> = vec![(0, 0); n];
        fill_each(&mut keyed, parallel, |i| {
            match row_sphere::<D>(&staged[i]) {
                Some(s) if s.1 <= cap => {
                    let key = grid.key(grid.cell_of(s.0.map(f64::from)));
                    (key, u64::from(x_order(s.0[0])) << 32 | i as u64)
                }
                Some(_) => (BIG_KEY, i as u64),
                None => (NONE_KEY, i as u64),
            }
        });
        sort_keys(&mut keyed, parallel);
        let cells_len = keyed.partition_point(|&(key, _)| key < BIG_KEY);
        let listed = keyed.partition_point(|&(key, _)| key < NONE_KEY);
        grid.cells_len = cells_len;
        grid.ids = vec![0; listed];
        fill_each(&mut grid.ids, parallel, |p| keyed[p].1 as u32);
        grid.big = grid.ids[cells_len..]
            .iter()
            .map(|&id| row_sphere::<D>(&staged[id as usize]).expect("a finite sphere"))
            .collect();
        // Where each occupied cell starts: the positions whose key differs from the one
        // before, found a chunk at a time.
        let cells = &keyed[..cells_len];
        let mut firsts = vec![false; cells_len];
        fill_each(&mut firsts, parallel, |p| {
            p == 0 || cells[p].0 != cells[p - 1].0
        });
        for (p, _) in firsts.iter().enumerate().filter(|&(_, &first)| first) {
            grid.keys.push(cells[p].0);
            grid.starts.push(p as u32);
        }
        grid.starts.push(cells_len as u32);
        drop(firsts);
        drop(keyed);
        // Pass 3: the objects in the grid's order (the one random read of the staged rows),
        // and their spheres.
        let mut rows = vec![Row::default(); listed];
        fill_each(&mut rows, parallel, |p| staged[grid.ids[p] as usize]);
        drop(staged);
        let cells = &rows[..cells_len];
        grid.spheres = SphereColumns::of(cells_len, parallel, |p| row_sphere::<D>(&cells[p]));
        Some((grid, rows))
    }

    /// Cell coordinates of a point (each `1 ..= MAX_CELL`; `x` always 1 in columns).
    fn cell_of(&self, m: [f64; D]) -> [u64; D] {
        core::array::from_fn(|k| {
            if k == 0 && self.layout == Layout::Columns {
                return 1;
            }
            let x = ((m[k] - self.origin[k]) / self.cell).floor() + 1.0;
            x.clamp(1.0, Self::MAX_CELL as f64) as u64
        })
    }

    /// The key of a cell: the last axis most significant.
    fn key(&self, c: [u64; D]) -> u64 {
        (0..D).rev().fold(0, |key, k| (key << axis_bits(D)) | c[k])
    }

    /// The cells' coordinates back from a key.
    fn coords(key: u64) -> [u64; D] {
        let mask = (1u64 << axis_bits(D)) - 1;
        core::array::from_fn(|k| (key >> (axis_bits(D) * k as u32)) & mask)
    }

    /// Cuts the occupied cells into runs of about `per_task` objects, never splitting a
    /// cell but a crowded one (more than `per_task` objects: a set along one line, or
    /// many copies of one object), which is cut into runs of `per_task` of its objects.
    /// Each task is `(cells, objects)`: the objects, by position, whose pairs it
    /// enumerates. The units of work of the parallel forms, the same on any thread count.
    fn cell_tasks(&self, per_task: usize) -> Vec<(Range<usize>, Range<usize>)> {
        let objects = |c0: usize, c1: usize| self.starts[c0] as usize..self.starts[c1] as usize;
        let mut tasks = Vec::new();
        let mut first = 0;
        for c in 0..self.keys.len() {
            let own = objects(c, c + 1);
            if own.len() > per_task {
                if first < c {
                    tasks.push((first..c, objects(first, c)));
                }
                tasks.extend(
                    own.clone()
                        .step_by(per_task)
                        .map(|k| (c..c + 1, k..(k + per_task).min(own.end))),
                );
                first = c + 1;
            } else if objects(first, c + 1).len() >= per_task {
                tasks.push((first..c + 1, objects(first, c + 1)));
                first = c + 1;
            }
        }
        if first < self.keys.len() {
            tasks.push((first..self.keys.len(), objects(first, self.keys.len())));
        }
        tasks
    }

    /// Key offsets of the half shell's rows: `(lowest key, highest key)` of each row of
    /// three cells `x-1 ..= x+1` at a lexicographically later `(y, z)`.
    fn shell_rows() -> Vec<(i64, i64)> {
        let bits = axis_bits(D);
        let mut rows = Vec::new();
        for code in 0..3usize.pow(D as u32 - 1) {
            // Offsets of axes 1..D in -1..=1; the row is in the half shell when its most
            // significant non-zero offset is positive.
            let mut c = code;
            let offs: Vec<i64> = (1..D)
                .map(|_| {
                    let o = (c % 3) as i64 - 1;
                    c /= 3;
                    o
                })
                .collect();
            if offs.iter().rev().find(|&&o| o != 0).is_some_and(|&o| o > 0) {
                let base: i64 = offs
                    .iter()
                    .enumerate()
                    .map(|(k, &o)| o << (bits * (k as u32 + 1)))
                    .sum();
                rows.push((base - 1, base + 1));
            }
        }
        rows
    }

    /// Every candidate pair among the objects of `cells` (those at the positions
    /// `objects`) and their half-shell neighbours (each unordered pair of the cells once),
    /// within `radius` by the sphere test, stored in `groups` a group at a time; `full`
    /// gets `groups` whenever it holds [`GROUPS`] or more (after an object, so the groups
    /// held are at most one object's more than that, however crowded the cell), to empty
    /// it, and answers whether to go on.
    fn shell_pairs(
        &self,
        cells: Range<usize>,
        objects: Range<usize>,
        radius: f32,
        groups: &mut Kept<Group>,
        mut full: impl FnMut(&mut Kept<Group>) -> bool,
    ) {
        let rows = Self::shell_rows();
        let radius8 = f32x8::splat(radius);
        let mut cursors: Vec<(usize, usize)> = Vec::with_capacity(rows.len());
        let first_key = self.keys.get(cells.start).copied().unwrap_or(0) as i64;
        for &(lo, hi) in &rows {
            cursors.push((
                self.keys.partition_point(|&k| (k as i64) < first_key + lo),
                self.keys.partition_point(|&k| (k as i64) <= first_key + hi),
            ));
        }
        // The sphere test fails whenever the centres' `x` alone are farther apart than the
        // largest bound any two spheres in the cells can have: `fl(d²) > fl(w²)` with `d`
        // rounded as the test rounds it, since every term the test adds is non-negative and
        // every rounding step is monotone. The objects of a row of cells (a column, in
        // columns) are sorted by centre `x` (cells along `x`, then `x` within a cell), so
        // the candidates of `p` in a row are one window, whose ends only move forward as
        // `p` moves through its cell: a sweep on `x` within each row.
        let w = (self.cap + self.cap + radius) * BOUND_REL;
        let reach2 = f32x8::splat(w * w);
        let xs = &self.spheres.centre[0];
        // `x - xs[q]` far beyond the reach (`d² > reach²`, rounded as the test rounds it),
        // for eight positions.
        let far = |v: f32x8, x: f32x8| {
            let d = v - x;
            (d * d).simd_gt(reach2)
        };
        // A window's left end passes the positions far to the left of `x`, its right end
        // those not far to its right.
        let left = |v: f32x8, x: f32x8| v.simd_lt(x) & far(v, x);
        let right = |v: f32x8, x: f32x8| v.simd_le(x) | !far(v, x);
        let mut ranges = Vec::with_capacity(rows.len());
        let mut windows: Vec<(usize, usize)> = Vec::with_capacity(rows.len());
        for c in cells {
            let key = self.keys[c] as i64;
            let (s, e) = (self.starts[c] as usize, self.starts[c + 1] as usize);
            let own_end = if self.keys.get(c + 1) == Some(&(key as u64 + 1)) {
                self.starts[c + 2] as usize
            } else {
                e
            };
            ranges.clear();
            for (&(lo, hi), cur) in rows.iter().zip(&mut cursors) {
                while cur.0 < self.keys.len() && (self.keys[cur.0] as i64) < key + lo {
                    cur.0 += 1;
                }
                cur.1 = cur.1.max(cur.0);
                while cur.1 < self.keys.len() && (self.keys[cur.1] as i64) <= key + hi {
                    cur.1 += 1;
                }
                if cur.0 < cur.1 {
                    ranges.push(self.starts[cur.0] as usize..self.starts[cur.1] as usize);
                }
            }
            windows.clear();
            windows.extend(ranges.iter().map(|r| (r.start, r.start)));
            let mut own_hi = s;
            for p in s.max(objects.start)..e.min(objects.end) {
                if groups.len() >= GROUPS && !full(groups) {
                    return;
                }
                let x = f32x8::splat(xs[p]);
                let me = self.spheres.splat(p);
                let mut scan = |range: Range<usize>| {
                    // At most this many groups, the first and the last partial.
                    groups.reserve(range.len() / LANES + 2);
                    self.scan(range, &me, radius8, |j, bits| {
                        let g = Group {
                            p: p as u32,
                            j: j as u32,
                            bits,
                        };
                        groups.put(g, bits != 0);
                    });
                };
                advance(xs, &mut own_hi, own_end, |v| right(v, x));
                scan(p + 1..own_hi.max(p + 1));
                for (r, (lo, hi)) in ranges.iter().zip(&mut windows) {
                    advance(xs, lo, r.end, |v| left(v, x));
                    *hi = (*hi).max(*lo);
                    advance(xs, hi, r.end, |v| right(v, x));
                    scan(*lo..*hi);
                }
            }
        }
    }

    /// The positions in `range` whose spheres pass the sphere test against `me`, handed to
    /// `emit` a group at a time: `(j, bits)`, bit `k` for position `j + k`, for every group
    /// of the range, empty or not (the pair scan stores each group without a branch; a
    /// branch on `bits != 0` here was the scan's most mispredicted one).
    #[inline(always)]
    fn scan(
        &self,
        range: Range<usize>,
        me: &([f32x8; D], f32x8),
        radius: f32x8,
        mut emit: impl FnMut(usize, u32),
    ) {
        if range.is_empty() {
            return;
        }
        let (g0, g1) = (range.start / LANES, range.end.div_ceil(LANES));
        // Only the first and the last group of a range can be partial.
        let first = lane_bits(range.start, range.end, g0 * LANES);
        let last = lane_bits(range.start, range.end, (g1 - 1) * LANES);
        let (centre, rad) = self.spheres.groups(g0..g1);
        for g in 0..g1 - g0 {
            let valid = if g == 0 {
                first
            } else if g == g1 - g0 - 1 {
                last
            } else {
                0xff
            };
            let lanes = (
                core::array::from_fn(|k| f32x8::from(centre[k][g])),
                f32x8::from(rad[g]),
            );
            emit((g0 + g) * LANES, valid & near_lanes(lanes, me, radius));
        }
    }

    /// The ranges (in key order) of the cells whose objects' centres may lie within `reach`
    /// of `m` on every axis, handed to `visit`.
    fn box_ranges(&self, m: [f32; D], reach: f64, mut visit: impl FnMut(Range<usize>)) {
        if self.keys.is_empty() {
            return;
        }
        let lo: [f64; D] = core::array::from_fn(|k| f64::from(m[k]) - reach);
        let hi: [f64; D] = core::array::from_fn(|k| f64::from(m[k]) + reach);
        let (x_lo, x_hi) = (lo[0], hi[0]);
        let (lo, hi) = (self.cell_of(lo), self.cell_of(hi));
        let rows: u64 = (1..D).map(|k| hi[k] - lo[k] + 1).product();
        // In columns, the run of a column whose centres lie within `lo..=hi` on `x` (a
        // column is sorted by `x`).
        let xs = &self.spheres.centre[0];
        let range_of = |c0: usize, c1: usize| {
            let (s, e) = (self.starts[c0] as usize, self.starts[c1] as usize);
            if self.layout == Layout::Cubes {
                return s..e;
            }
            let run = &xs[s..e];
            s + run.partition_point(|&x| f64::from(x) < x_lo)
                ..s + run.partition_point(|&x| f64::from(x) <= x_hi)
        };
        // Two binary searches a row, or one pass over every cell: whichever reads less.
        if rows.saturating_mul(2 * u64::from(usize::BITS - self.keys.len().leading_zeros()))
            >= self.keys.len() as u64
        {
            // A box as large as the grid: filter the cells instead of searching rows.
            let mut run: Option<usize> = None;
            for c in 0..=self.keys.len() {
                let inside = c < self.keys.len() && {
                    let x = Self::coords(self.keys[c]);
                    (0..D).all(|k| lo[k] <= x[k] && x[k] <= hi[k])
                };
                match (inside, run) {
                    // Columns are trimmed one by one.
                    (true, None) if self.layout == Layout::Columns => visit(range_of(c, c + 1)),
                    (true, None) => run = Some(c),
                    (false, Some(c0)) => {
                        visit(range_of(c0, c));
                        run = None;
                    }
                    _ => {}
                }
            }
            return;
        }
        let mut row = lo;
        loop {
            row[0] = lo[0];
            let k0 = self.key(row);
            row[0] = hi[0];
            let k1 = self.key(row);
            let c0 = self.keys.partition_point(|&k| k < k0);
            let c1 = c0 + self.keys[c0..].partition_point(|&k| k <= k1);
            if c0 < c1 {
                visit(range_of(c0, c1));
            }
            // Next row: odometer over axes 1..D.
            let mut k = 1;
            loop {
                if k == D {
                    return;
                }
                if row[k] < hi[k] {
                    row[k] += 1;
                    break;
                }
                row[k] = lo[k];
                k += 1;
            }
        }
    }

    /// Every object in the cells that may come within `radius` of the sphere `s`, by the
    /// sphere test, handed to `emit` as positions.
    fn near(&self, s: &([f32; D], f32), radius: f32, mut emit: impl FnMut(u32)) {
        let reach = (f64::from(s.1) + f64::from(self.cap) + f64::from(radius))
            * f64::from(BOUND_REL)
            * CELL_MARGIN;
        let me = (s.0.map(f32x8::splat), f32x8::splat(s.1));
        let radius8 = f32x8::splat(radius);
        self.box_ranges(s.0, reach, |r| {
            self.scan(r, &me, radius8, |j, bits| {
                if bits != 0 {
                    each_bit(j, bits, &mut emit);
                }
            });
        });
    }

    /// Every object of the grid, in the cells or big, that may come within `radius` of the
    /// sphere `s`, handed to `emit` as positions: the query of a static index.
    pub(crate) fn near_all(&self, s: &([f32; D], f32), radius: f32, mut emit: impl FnMut(u32)) {
        self.near(s, radius, &mut emit);
        for (k, t) in self.big.iter().enumerate() {
            if near(s, t, radius) {
                emit((self.cells_len + k) as u32);
            }
        }
    }

    /// The ids of the objects by position: the order in which the queries copy the set.
    pub(crate) fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Every candidate pair of big object `k` (in `0..big.len()`): with the objects in the
    /// cells, then with the big objects after it, handed to `emit` as positions (the big
    /// object's first).
    fn big_pairs(&self, k: usize, radius: f32, mut emit: impl FnMut(u32, u32)) {
        let s = self.big[k];
        let me = (self.cells_len + k) as u32;
        self.near(&s, radius, |q| emit(me, q));
        for (other, t) in self.big.iter().enumerate().skip(k + 1) {
            if near(&s, t, radius) {
                emit(me, (self.cells_len + other) as u32);
            }
        }
    }
}

/// A set query's narrow phase over a grid of `D` dimensions: which pairs the grid's
/// candidates stand for, a tighter test than the spheres' where the query has one, and how
/// the candidates are decided.
pub(crate) trait Narrow<const D: usize>: Sync + Sized {
    /// A reported pair.
    type Hit: Send + Copy + Default;
    /// Buffers reused from one batch of candidates to the next.
    type Scratch: Default;

    /// `None` when the query pairs the objects of one set, `(i, j)` with `i < j` (ids);
    /// `Some(na)` when it pairs the objects of set A (ids below `na`) with those of set B
    /// (the others), A's first.
    fn split(&self) -> Option<u32>;

    /// What [`Narrow::refine`] needs of one position, prepared once for all its groups.
    type Probe: Copy;

    /// The probe of position `p`, `None` when [`Narrow::refine`] would keep every lane.
    #[inline(always)]
    fn probe(&self, p: usize) -> Option<Self::Probe> {
        let _ = p;
        None
    }

    /// Of the lanes `bits` of the group of positions `j .. j + LANES` (in the cells), the
    /// ones that may still form a pair of the query with the position of `probe`: a test
    /// tighter than the spheres' (`spheres`, by position) and as conservative, so it never
    /// drops a pair the kernel would report. The default keeps them all.
    #[inline(always)]
    fn refine(&self, probe: &Self::Probe, j: usize, spheres: &SphereColumns<D>, bits: u32) -> u32 {
        let _ = (probe, j, spheres);
        bits
    }

    /// The query's pair `(i, j)` (ids) a hit reports.
    fn pair(hit: &Self::Hit) -> (u32, u32);

    /// Runs the kernel on `candidates` (pairs of positions, oriented) and keeps the pairs
    /// it reports in `out`.
    fn decide(
        &self,
        ids: &[u32],
        candidates: &[(u32, u32)],
        scratch: &mut Self::Scratch,
        out: &mut Kept<Self::Hit>,
    );
}

/// The grid's candidate `(p, q)` (positions) as the query's pair of positions, its first
/// side first (see [`Narrow::split`]), or `None` when both are of the same side.
#[inline]
fn orient(split: Option<u32>, ids: &[u32], p: u32, q: u32) -> Option<(u32, u32)> {
    let (ip, iq) = (ids[p as usize], ids[q as usize]);
    match split {
        None if ip < iq => Some((p, q)),
        None => Some((q, p)),
        Some(na) => match (ip < na, iq < na) {
            (true, false) => Some((p, q)),
            (false, true) => Some((q, p)),
            _ => None,
        },
    }
}

/// For every set of lanes `bits` (0..256), the lanes in ascending order, then zeros: the
/// shuffle that packs a group's candidates at the front.
const PACK: [[u32; LANES]; 256] = {
    let mut table = [[0u32; LANES]; 256];
    let mut bits = 0;
    while bits < 256 {
        let (mut k, mut n) = (0, 0);
        while k < LANES {
            if bits >> k & 1 != 0 {
                table[bits][n] = k as u32;
                n += 1;
            }
            k += 1;
        }
        bits += 1;
    }
    table
};

/// Where a task's hits go: kept in `hits` until another run of the narrow phase could take
/// them past [`MAX_BLOCK_HITS`], then handed to `emit` as one block; `emit` answers whether
/// the query goes on.
struct Out<'a, H> {
    hits: &'a mut Kept<H>,
    emit: &'a mut dyn FnMut(&[H]) -> bool,
    /// Set once `emit` asked to stop: nothing more is decided or handed on.
    stopped: bool,
}

impl<H: Copy + Default> Out<'_, H> {
    /// After a run of the narrow phase (which keeps at most [`FLUSH`] hits): hands the
    /// hits on when the next run could take them past [`MAX_BLOCK_HITS`].
    fn spill(&mut self) {
        if self.hits.len() > MAX_BLOCK_HITS - FLUSH {
            self.hand_on();
        }
    }

    /// Hands the kept hits on as one block, if there are any.
    fn hand_on(&mut self) {
        if self.hits.len() > 0 && !self.stopped {
            self.stopped = !(self.emit)(self.hits.take());
        }
        self.hits.clear();
    }
}

/// Oriented candidate pairs waiting for [`Narrow::decide`]: `candidates[..count]` (the
/// slots past them are scratch), and the narrow phase's buffers.
struct Pending<const D: usize, N: Narrow<D>> {
    candidates: Vec<(u32, u32)>,
    count: usize,
    scratch: N::Scratch,
}

impl<const D: usize, N: Narrow<D>> Pending<D, N> {
    fn new() -> Self {
        Pending {
            candidates: vec![(0, 0); FLUSH],
            count: 0,
            scratch: N::Scratch::default(),
        }
    }

    /// Room for [`LANES`] more candidates: decides the pending ones first when needed.
    #[inline(always)]
    fn room(&mut self, narrow: &N, ids: &[u32], out: &mut Out<'_, N::Hit>) {
        if self.count > FLUSH - LANES {
            self.flush(narrow, ids, out);
        }
    }

    /// Decides the pending candidates (dropped once the query stopped).
    fn flush(&mut self, narrow: &N, ids: &[u32], out: &mut Out<'_, N::Hit>) {
        let candidates = &self.candidates[..core::mem::take(&mut self.count)];
        if out.stopped {
            return;
        }
        narrow.decide(ids, candidates, &mut self.scratch, out.hits);
        out.spill();
    }

    /// One candidate pair of positions, oriented.
    fn push(&mut self, narrow: &N, ids: &[u32], p: u32, q: u32, out: &mut Out<'_, N::Hit>) {
        if let Some(pair) = orient(narrow.split(), ids, p, q) {
            self.room(narrow, ids, out);
            self.candidates[self.count] = pair;
            self.count += 1;
        }
    }

    /// The candidates of the scan's `groups` (`spheres` the cells' spheres by position),
    /// refined, oriented and packed eight lanes at a time: each group's lanes are oriented
    /// by a vector compare of the ids, packed to the front by a shuffle and stored whole
    /// (the next group overwrites the lanes past its candidates). Writing the lanes one by
    /// one cost some 300 instructions a group (callgrind on hair), and a loop over the set
    /// bits mispredicted its exit about twice a group.
    fn groups(
        &mut self,
        narrow: &N,
        ids: &[u32],
        spheres: &SphereColumns<D>,
        groups: &[Group],
        out: &mut Out<'_, N::Hit>,
    ) {
        if out.stopped {
            return;
        }
        let lane = u32x8::new(core::array::from_fn(|k| k as u32));
        let split = narrow.split();
        let mut probe = (u32::MAX, None);
        let mut me = (u32x8::ZERO, u32x8::ZERO);
        for g in groups {
            self.room(narrow, ids, out);
            let j = g.j as usize;
            if probe.0 != g.p {
                probe = (g.p, narrow.probe(g.p as usize));
                me = (u32x8::splat(g.p), u32x8::splat(ids[g.p as usize]));
            }
            let bits = match &probe.1 {
                Some(probe) => narrow.refine(probe, j, spheres, g.bits),
                None => g.bits,
            };
            let (p, ip) = me;
            let q = u32x8::splat(g.j) + lane;
            // Positions past the last object have no bit: any id does.
            let iq = match ids.get(j..j + LANES) {
                Some(run) => u32x8::new(run.try_into().expect("eight ids")),
                None => u32x8::new(core::array::from_fn(|k| {
                    ids.get(j + k).copied().unwrap_or(0)
                })),
            };
            // The lanes whose pair puts `q` first, and the lanes that are pairs at all.
            let (swap, bits) = match split {
                None => (iq.simd_lt(ip), bits),
                Some(na) => {
                    let na = u32x8::splat(na);
                    let (p_b, q_b) = (ip.simd_ge(na), iq.simd_ge(na));
                    (p_b, bits & (p_b ^ q_b).to_bitmask())
                }
            };
            let pack = u32x8::new(PACK[bits as usize]);
            let first = swap.select(q, p).shuffle(pack);
            let second = swap.select(p, q).shuffle(pack);
            let (lo, hi) = (first.unpack_lo(second), first.unpack_hi(second));
            let slots = &mut self.candidates[self.count..self.count + LANES];
            let (lo, hi) = (lo.to_array(), hi.to_array());
            for k in 0..LANES / 2 {
                slots[k] = (lo[2 * k], lo[2 * k + 1]);
                slots[LANES / 2 + k] = (hi[2 * k], hi[2 * k + 1]);
            }
            self.count += bits.count_ones() as usize;
        }
    }
}

/// The storage a thread reuses from task to task: the task's hits, the scan's groups and
/// the candidates waiting for the kernel (allocating and filling them for every task cost
/// about 200 KB of fresh memory a task).
struct Work<const D: usize, N: Narrow<D>> {
    hits: Kept<N::Hit>,
    groups: Kept<Group>,
    pending: Pending<D, N>,
}

impl<const D: usize, N: Narrow<D>> Work<D, N> {
    fn new() -> Self {
        Work {
            hits: Kept::with_room(0),
            // Room for a full store and a cell's worth more.
            groups: Kept::with_room(2 * GROUPS),
            pending: Pending::new(),
        }
    }
}

/// A unit of work: a run of cells (the objects `objects` of them, which is all of them but
/// for a crowded cell cut into runs of objects), or a run of big objects.
enum Task {
    Cells {
        cells: Range<usize>,
        objects: Range<usize>,
    },
    Big(Range<usize>),
}

/// A grid cut into tasks, ready to run a [`Narrow`] phase (see the module docs).
pub(crate) struct Plan<const D: usize> {
    grid: Grid<D>,
    tasks: Vec<Task>,
    radius: f32,
}

impl<const D: usize> Plan<D> {
    /// The tasks of `grid` for pairs within `radius`.
    pub(crate) fn new(grid: Grid<D>, radius: f32) -> Self {
        let mut tasks: Vec<Task> = grid
            .cell_tasks(TASK_OBJECTS)
            .into_iter()
            .map(|(cells, objects)| Task::Cells { cells, objects })
            .collect();
        let big = grid.big.len();
        tasks.extend(
            (0..big)
                .step_by(TASK_BIG)
                .map(|k| Task::Big(k..(k + TASK_BIG).min(big))),
        );
        Plan {
            grid,
            tasks,
            radius,
        }
    }

    /// The hits of one task, in the order the grid names them, handed to `emit` in
    /// blocks of at most [`MAX_BLOCK_HITS`] (from `work`, which a thread reuses from task
    /// to task); stops early when `emit` answers `false`.
    fn run<N: Narrow<D>>(
        &self,
        narrow: &N,
        task: &Task,
        work: &mut Work<D, N>,
        emit: &mut dyn FnMut(&[N::Hit]) -> bool,
    ) {
        let Work {
            hits,
            groups,
            pending,
        } = work;
        hits.clear();
        groups.clear();
        pending.count = 0;
        let mut out = Out {
            hits,
            emit,
            stopped: false,
        };
        let ids = self.grid.ids();
        match task {
            Task::Cells { cells, objects } => {
                let spheres = &self.grid.spheres;
                let mut decide = |groups: &mut Kept<Group>| {
                    pending.groups(narrow, ids, spheres, groups.take(), &mut out);
                    !out.stopped
                };
                self.grid.shell_pairs(
                    cells.clone(),
                    objects.clone(),
                    self.radius,
                    groups,
                    &mut decide,
                );
                decide(groups);
            }
            Task::Big(big) => {
                for k in big.clone() {
                    if out.stopped {
                        break;
                    }
                    self.grid.big_pairs(k, self.radius, |p, q| {
                        pending.push(narrow, ids, p, q, &mut out);
                    });
                }
            }
        }
        pending.flush(narrow, ids, &mut out);
        out.hand_on();
    }

    /// Every hit, in blocks of at most [`MAX_BLOCK_HITS`]: each task's hits, in the order
    /// the grid names them, become blocks by `finish` on the thread that ran the task
    /// (while they are in its cache, from storage each thread reuses), and `sink` gets the
    /// blocks in task order, on the calling thread ([`ordered`]); `sink` answering `false`
    /// stops the query.
    pub(crate) fn each<N: Narrow<D>, B: Send>(
        &self,
        narrow: &N,
        parallel: bool,
        finish: impl Fn(&[N::Hit]) -> B + Sync,
        sink: impl FnMut(B) -> bool,
    ) {
        ordered(
            self.tasks.len(),
            parallel,
            Work::<D, N>::new,
            |t, work, emit| self.run(narrow, &self.tasks[t], work, emit),
            finish,
            sink,
        );
    }

    /// Every hit, as `T`, sorted by its pair `(i, j)` (`i < n`), appended to `out`.
    ///
    /// A counting sort on `i` in two steps, so that neither scatters across the whole
    /// output (a one-pass scatter of millions of hits missed cache on every write), both on
    /// all cores when `parallel`: each task's block is ordered by bucket ([`BUCKET_ROWS`]
    /// consecutive `i`) within itself; then each bucket gathers its runs from every block
    /// into a cache-resident copy, where they are counted, placed by `i` and each `i`'s
    /// hits sorted by `j`, and is converted into its own slice of `out`. `O(n + K)`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] (naming `what`) as soon as the blocks or `out` cannot grow
    /// to the hits found so far (`out` is reserved as the blocks arrive, with
    /// `try_reserve`, so an output larger than memory is refused before it is filled);
    /// the query then stops.
    pub(crate) fn collect<N: Narrow<D>, T: Copy + Default + Send>(
        &self,
        narrow: &N,
        n: usize,
        into: impl Fn(N::Hit) -> T + Sync,
        parallel: bool,
        (what, out): (&'static str, &mut Vec<T>),
    ) -> Result<(), Error>
    where
        N::Hit: Copy + Sync,
    {
        let buckets = n.div_ceil(BUCKET_ROWS);
        let bucket = |h: &N::Hit| N::pair(h).0 as usize / BUCKET_ROWS;
        // Each task's hits ordered by bucket, and where each bucket's run starts.
        let by_bucket = |hits: &[N::Hit]| -> (Vec<N::Hit>, Vec<u32>) {
            let mut starts = vec![0u32; buckets + 1];
            for h in hits {
                starts[bucket(h) + 1] += 1;
            }
            for b in 0..buckets {
                starts[b + 1] += starts[b];
            }
            let mut next = starts.clone();
            let mut sorted = vec![N::Hit::default(); hits.len()];
            for h in hits {
                let slot = &mut next[bucket(h)];
                sorted[*slot as usize] = *h;
                *slot += 1;
            }
            (sorted, starts)
        };
        let mut blocks: Vec<(Vec<N::Hit>, Vec<u32>)> = Vec::new();
        let (mut total, mut short) = (0usize, false);
        self.each(narrow, parallel, by_bucket, |block| {
            total += block.0.len();
            short = blocks.try_reserve(1).is_err() || out.try_reserve(total).is_err();
            if !short {
                blocks.push(block);
            }
            !short
        });
        if short {
            return Err(Error::OutOfMemory {
                what,
                elements: total,
            });
        }
        let runs = |b: usize| {
            blocks
                .iter()
                .map(move |(hits, starts)| &hits[starts[b] as usize..starts[b + 1] as usize])
        };
        let base = out.len();
        let sizes: Vec<usize> = (0..buckets)
            .map(|b| runs(b).map(<[_]>::len).sum())
            .collect();
        grow(out, sizes.iter().sum(), parallel);
        let mut parts: Vec<(usize, &mut [T])> = Vec::with_capacity(buckets);
        let mut rest = &mut out[base..];
        for (b, &size) in sizes.iter().enumerate() {
            let (part, tail) = rest.split_at_mut(size);
            parts.push((b, part));
            rest = tail;
        }
        // Each bucket's runs are read from the blocks once, into a cache-resident copy;
        // there they are counted, placed by `i` and sorted by `j` as the compact hits, and
        // the output is written once, in order.
        let place = |(b, part): (usize, &mut [T])| {
            let first = b * BUCKET_ROWS;
            let row = |h: &N::Hit| N::pair(h).0 as usize - first;
            let mut gathered: Vec<N::Hit> = Vec::with_capacity(part.len());
            for run in runs(b) {
                gathered.extend_from_slice(run);
            }
            let mut starts = vec![0u32; BUCKET_ROWS + 1];
            for h in &gathered {
                starts[row(h) + 1] += 1;
            }
            for r in 0..BUCKET_ROWS {
                starts[r + 1] += starts[r];
            }
            let mut next = starts.clone();
            let mut placed = gathered.clone();
            for h in gathered {
                let slot = &mut next[row(&h)];
                placed[*slot as usize] = h;
                *slot += 1;
            }
            for w in starts.windows(2) {
                placed[w[0] as usize..w[1] as usize].sort_unstable_by_key(|h| N::pair(h).1);
            }
            for (out, &h) in part.iter_mut().zip(&placed) {
                *out = into(h);
            }
        };
        par_map(parts, parallel, place);
        Ok(())
    }
}

/// Appends `n` default values to `out`, on all cores when `parallel`: most of the time of
/// a large fill goes to the first touch of fresh pages, which the cores then share.
fn grow<T: Copy + Default + Send>(out: &mut Vec<T>, n: usize, parallel: bool) {
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        out.par_extend(rayon::iter::repeat_n(T::default(), n));
        return;
    }
    let _ = parallel;
    out.resize(out.len() + n, T::default());
}

/// `f` over `items`, in order, on all cores when `parallel`.
fn par_map<I: Send, R: Send>(items: Vec<I>, parallel: bool, f: impl Fn(I) -> R + Sync) -> Vec<R> {
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        return items.into_par_iter().map(&f).collect();
    }
    let _ = parallel;
    items.into_iter().map(f).collect()
}

/// Runs `units` units of work, each handing its hits to `emit` in blocks (which answers
/// whether to go on), and hands every block, made by `finish` on the thread that ran its
/// unit, to `sink` in unit order on the calling thread: sequentially, or when `parallel` on
/// as many threads as the current rayon pool has. `sink` answering `false` stops every
/// unit at its next block. The blocks and their order do not depend on the thread count.
///
/// The parallel form keeps at most [`BLOCKS_AHEAD`] finished blocks a thread waiting for
/// the sink (a thread that runs ahead waits for it), so its memory is bounded by the
/// threads' blocks, whatever the number of hits: unlike a parallel map over waves of units,
/// which holds every hit of a wave, and of a unit, at once.
pub(crate) fn ordered<W, H, B: Send>(
    units: usize,
    parallel: bool,
    init: impl Fn() -> W + Sync,
    produce: impl Fn(usize, &mut W, &mut dyn FnMut(&[H]) -> bool) + Sync,
    finish: impl Fn(&[H]) -> B + Sync,
    mut sink: impl FnMut(B) -> bool,
) {
    #[cfg(feature = "rayon")]
    if parallel {
        let threads = rayon::current_num_threads().min(units);
        if threads > 1 {
            ordered_threads(threads, units, &init, &produce, &finish, &mut sink);
            return;
        }
    }
    let _ = parallel;
    let mut work = init();
    let mut go = true;
    for unit in 0..units {
        produce(unit, &mut work, &mut |hits| {
            go = go && sink(finish(hits));
            go
        });
        if !go {
            return;
        }
    }
}

/// The parallel form of [`ordered`], on `threads` scoped threads (their own, not the
/// pool's: a pool thread blocked on a full queue could hold up the unit the sink waits
/// for). Each thread claims the next unit in order and sends its blocks through its own
/// bounded queue; the calling thread reads the queue of the unit's owner until the unit
/// ends. A thread works on its units in claiming order, so the unit the sink waits for is
/// always being run by a thread that is not waiting for a later one.
#[cfg(feature = "rayon")]
fn ordered_threads<W, H, B: Send>(
    threads: usize,
    units: usize,
    init: &(impl Fn() -> W + Sync),
    produce: &(impl Fn(usize, &mut W, &mut dyn FnMut(&[H]) -> bool) + Sync),
    finish: &(impl Fn(&[H]) -> B + Sync),
    sink: &mut impl FnMut(B) -> bool,
) {
    use std::sync::{Condvar, Mutex, PoisonError, mpsc};
    enum Message<B> {
        Block(B),
        End,
    }
    /// The owner of every unit claimed so far, and how many threads have left.
    struct Claims {
        owners: Vec<u32>,
        left: usize,
    }
    /// Counts its thread as gone however it leaves (a panic included), so the calling
    /// thread never waits for a claim that cannot come.
    struct Leave<'a>(&'a Mutex<Claims>, &'a Condvar);
    impl Drop for Leave<'_> {
        fn drop(&mut self) {
            self.0.lock().unwrap_or_else(PoisonError::into_inner).left += 1;
            self.1.notify_all();
        }
    }
    let claims = Mutex::new(Claims {
        owners: Vec::with_capacity(units),
        left: 0,
    });
    let claimed = Condvar::new();
    std::thread::scope(|scope| {
        let queues: Vec<mpsc::Receiver<Message<B>>> = (0..threads)
            .map(|w| {
                let (tx, rx) = mpsc::sync_channel(BLOCKS_AHEAD);
                let (claims, claimed) = (&claims, &claimed);
                scope.spawn(move || {
                    let _leave = Leave(claims, claimed);
                    let mut work = init();
                    loop {
                        let unit = {
                            let mut c = claims.lock().unwrap_or_else(PoisonError::into_inner);
                            let unit = c.owners.len();
                            if unit == units {
                                return;
                            }
                            c.owners.push(w as u32);
                            unit
                        };
                        claimed.notify_all();
                        // A failed send: the calling thread stopped reading.
                        let mut open = true;
                        produce(unit, &mut work, &mut |hits| {
                            open = open && tx.send(Message::Block(finish(hits))).is_ok();
                            open
                        });
                        if !open || tx.send(Message::End).is_err() {
                            return;
                        }
                    }
                });
                rx
            })
            .collect();
        for unit in 0..units {
            let owner = {
                let mut c = claims.lock().unwrap_or_else(PoisonError::into_inner);
                loop {
                    if let Some(&w) = c.owners.get(unit) {
                        break Some(w);
                    }
                    if c.left == threads {
                        break None;
                    }
                    c = claimed.wait(c).unwrap_or_else(PoisonError::into_inner);
                }
            };
            // No owner, or a queue closed before its unit ended: a thread panicked, and
            // the scope raises its panic once every thread has left (dropping the queues
            // here makes the others stop at their next block).
            let Some(w) = owner else { return };
            loop {
                match queues[w as usize].recv() {
                    Ok(Message::Block(b)) => {
                        if !sink(b) {
                            return;
                        }
                    }
                    Ok(Message::End) => break,
                    Err(_) => return,
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_bits_cover_ranges() {
        assert_eq!(lane_bits(0, 8, 0), 0xff);
        assert_eq!(lane_bits(3, 8, 0), 0b1111_1000);
        assert_eq!(lane_bits(0, 5, 0), 0b1_1111);
        assert_eq!(lane_bits(9, 12, 8), 0b1110);
        assert_eq!(lane_bits(20, 30, 8), 0);
        assert_eq!(lane_bits(0, 3, 8), 0);
    }

    #[test]
    fn half_shell_rows() {
        // 3D: the row y+1 (z same) and the three rows at z+1.
        assert_eq!(Grid::<3>::shell_rows().len(), 4);
        // 2D: the row y+1.
        let b = 1i64 << 31;
        assert_eq!(Grid::<2>::shell_rows(), vec![(b - 1, b + 1)]);
    }

    #[test]
    fn keys_round_trip() {
        let stick = crate::segment::Segment::new([0.0; 3], [1.0, 0.0, 0.0]);
        let (g, _) = Grid::<3>::build(1, |_| stick, 1.0, Layout::Cubes, false).unwrap();
        let c = [5, 7, 9];
        assert_eq!(Grid::<3>::coords(g.key(c)), c);
    }
}
