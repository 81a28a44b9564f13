//! The grid: keys of cells, objects sorted by cell, big objects apart, and the scans that
//! name the candidate pairs of a cell and its half shell.

use super::spheres::{
    BOUND_REL, CELL_MARGIN, SphereColumns, advance, each_bit, lane_bits, near, near_lanes,
    row_sphere,
};
use super::store::{GROUPS, Group, Kept, fill, fill_each};
use crate::batch::Record;
use crate::columns::LANES;
use crate::driver::Row;
use core::ops::Range;
use wide::f32x8;

/// Radii sampled for the cap's percentile.
pub(super) const CAP_SAMPLE: usize = 64 * 1024;
/// The sort key of a big object (above every cell's key, which has 63 bits).
pub(super) const BIG_KEY: u64 = u64::MAX - 1;
/// The sort key of a non-finite object (after the big ones).
pub(super) const NONE_KEY: u64 = u64::MAX;

/// Pass 1 of [`Grid::build`]: the objects `object(0..n)` staged as rows by id (read in
/// order from the caller's columns; the object's own radius `pad(i)`, or 0, after its `C`
/// coordinates) and, a chunk at a time, the bounds of the spheres' centres and the largest
/// finite radius: `(rows, lo, hi, max)`.
#[inline(always)]
fn stage<T: Record<C>, const C: usize, const D: usize>(
    n: usize,
    object: impl Fn(usize) -> T + Sync,
    pad: Option<&(dyn Fn(usize) -> f32 + Sync)>,
    parallel: bool,
) -> (Vec<Row>, [f64; D], [f64; D], f32) {
    let mut staged = vec![Row::default(); n];
    let parts = fill(&mut staged, parallel, |k, piece| {
        let mut lo = [f64::INFINITY; D];
        let mut hi = [f64::NEG_INFINITY; D];
        let mut max = 0.0f32;
        for (slot, i) in piece.iter_mut().zip(k..) {
            let record = bytemuck::cast::<T, [f32; C]>(object(i));
            let own = pad.map_or(0.0, |pad| pad(i));
            *slot = Row(core::array::from_fn(|c| {
                if c < C {
                    record[c]
                } else if c == C {
                    own
                } else {
                    0.0
                }
            }));
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
    (staged, lo, hi, max)
}

/// The largest sphere radius the cells of [`Grid::build`] hold, given the staged rows and
/// their largest finite radius `max` (the rule is on [`Grid::build`]). The percentile comes
/// from an evenly spaced sample of at most [`CAP_SAMPLE`] radii: the cap only sizes the
/// cells (any cap gives the same pairs), and a sample keeps the selection a constant cost.
#[inline(always)]
fn cap<const D: usize>(staged: &[Row], max: f32) -> f32 {
    let stride = staged.len().div_ceil(CAP_SAMPLE).max(1);
    let mut radii: Vec<f32> = staged
        .iter()
        .step_by(stride)
        .filter_map(|r| row_sphere::<D>(r).map(|s| s.1))
        .collect();
    if radii.is_empty() {
        max
    } else {
        let q = (radii.len() * 99 / 100).min(radii.len() - 1);
        let (_, &mut p99, _) = radii.select_nth_unstable_by(q, f32::total_cmp);
        // (`p99` is infinite when more than 1% of the spheres are: the largest finite
        // radius, `max`, is then the cap.)
        if max <= 2.0 * p99 { max } else { p99 }
    }
}

/// Below this many pairs [`sort_keys`] sorts by comparisons; from it, by the key's bytes.
const RADIX_MIN: usize = 1 << 12;

/// Sorts the `(key, x order << 32 | id)` pairs (each pair unique, by its id).
///
/// Many pairs are sorted by a least-significant-digit radix sort of their cell key and x
/// order, over only the bytes in which those differ (a grid of a few hundred cells a side
/// varies in about four of the key's eight), then each run of equal key and x order (two
/// objects with one centre `x` in a cell: rare) by the ids, with comparisons; the keys of
/// big and non-finite objects, which would make every byte of the key differ, are sorted
/// apart by comparisons and go last (docs/performance.md, "Python", has what it saves).
/// Few pairs are sorted by comparisons, on all cores when `parallel`.
pub(super) fn sort_keys(keyed: &mut [(u64, u64)], parallel: bool) {
    if keyed.len() < RADIX_MIN {
        #[cfg(feature = "rayon")]
        if parallel && keyed.len() >= crate::driver::PAR_MIN_PAIRS {
            use rayon::slice::ParallelSliceMut;
            keyed.par_sort_unstable();
            return;
        }
        let _ = parallel;
        keyed.sort_unstable();
        return;
    }
    // The cells' pairs first (in their order, in place), then the big and non-finite
    // ones, sorted.
    let mut rest: Vec<(u64, u64)> = keyed.iter().copied().filter(|e| e.0 >= BIG_KEY).collect();
    let mut cells = 0;
    for k in 0..keyed.len() {
        if keyed[k].0 < BIG_KEY {
            keyed[cells] = keyed[k];
            cells += 1;
        }
    }
    rest.sort_unstable();
    keyed[cells..].copy_from_slice(&rest);
    drop(rest);
    let cell = &mut keyed[..cells];
    // The digits, least significant first: the x order's bytes, then the key's, each where
    // the pairs differ. Each pass moves the pairs between `cell` and one scratch copy.
    let first = cell.first().copied().unwrap_or_default();
    let differ = cell.iter().fold((0, 0), |d, e| {
        (d.0 | (e.0 ^ first.0), d.1 | ((e.1 ^ first.1) >> 32))
    });
    let digits = (0..4)
        .filter(|b| (differ.1 >> (8 * b)) & 0xff != 0)
        .map(|b| (1, 32 + 8 * b))
        .chain(
            (0..8)
                .filter(|b| (differ.0 >> (8 * b)) & 0xff != 0)
                .map(|b| (0, 8 * b)),
        );
    type Pair = (u64, u64);
    let mut scratch: Vec<Pair> = vec![(0, 0); cells];
    let mut in_scratch = false;
    for (field, shift) in digits {
        let digit = |e: &(u64, u64)| {
            let v = if field == 0 { e.0 } else { e.1 };
            ((v >> shift) & 0xff) as usize
        };
        let (from, to): (&[Pair], &mut [Pair]) = if in_scratch {
            (&scratch, cell)
        } else {
            (cell, &mut scratch)
        };
        let mut at = [0usize; 256];
        for e in from {
            at[digit(e)] += 1;
        }
        let mut sum = 0;
        for a in &mut at {
            (*a, sum) = (sum, sum + *a);
        }
        for e in from {
            let d = digit(e);
            to[at[d]] = *e;
            at[d] += 1;
        }
        in_scratch = !in_scratch;
    }
    if in_scratch {
        cell.copy_from_slice(&scratch);
    }
    for run in cell.chunk_by_mut(|a, b| a.0 == b.0 && a.1 >> 32 == b.1 >> 32) {
        if run.len() > 1 {
            run.sort_unstable();
        }
    }
}

/// A `u32` that orders like the `f32` `x` (finite): the objects of a cell are sorted by
/// their centre's first coordinate, ties by id.
pub(super) fn x_order(x: f32) -> u32 {
    let b = x.to_bits();
    if b >> 31 == 1 { !b } else { b | 1 << 31 }
}

/// Bits of a cell key per axis: 21 in 3D, 31 in 2D.
pub(super) const fn axis_bits(d: usize) -> u32 {
    63 / d as u32
}

/// The grid over a set of objects (see the module docs): columns along `x`, the cell edge
/// on the other axes, each sorted by `x`, for the pair enumeration, which sweeps along `x`
/// within each pair of neighbouring columns.
pub(crate) struct Grid<const D: usize> {
    /// Cell edge.
    cell: f64,
    /// Lowest corner (the cell of coordinate 1 on every axis starts here).
    origin: [f64; D],
    /// Ids of the objects by position: the objects in the cells in key order, then the big
    /// objects. Queries name objects by position, so that a copy of the set in this order
    /// (which the queries keep) is read near where the grid reads.
    ids: Vec<u32>,
    /// Their spheres, in the same order.
    pub(super) spheres: SphereColumns<D>,
    /// Keys of the occupied cells, ascending.
    keys: Vec<u64>,
    /// Start of each occupied cell's objects, plus one end entry.
    starts: Vec<u32>,
    /// The big objects' spheres, in id order (positions `cells_len ..`).
    pub(super) big: Vec<([f32; D], f32)>,
    /// Number of objects in the cells.
    cells_len: usize,
    /// Largest sphere radius in the cells.
    cap: f32,
}

impl<const D: usize> Grid<D> {
    /// Largest cell coordinate: coordinates run `1 ..= MAX_CELL`, so `±1` stays in range.
    const MAX_CELL: u64 = (1 << axis_bits(D)) - 2;

    /// The grid over the objects `object(0..n)` (segments: two end points of `D`
    /// coordinates, `C = 2·D` values), for pairs within `radius` of each other, each
    /// object's sphere grown by its own radius `pad(i)` when there is one (capsules: pairs
    /// within `pad(i) + pad(j) + radius`; the radius is kept in the row, value
    /// [`pad_slot`](super::spheres::pad_slot)`(D)`, for the narrow phase), and the
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
        pad: Option<&(dyn Fn(usize) -> f32 + Sync)>,
        radius: f32,
        parallel: bool,
    ) -> Option<(Grid<D>, Vec<Row>)> {
        const { assert!(C == 2 * D && C < LANES) };
        if n > u32::MAX as usize || !radius.is_finite() {
            return None;
        }
        // Pass 1: the objects staged as rows by id, the centres' bounds, the largest radius.
        let (staged, lo, hi, max) = stage::<T, C, D>(n, object, pad, parallel);
        let cap = cap::<D>(&staged, max);
        let extent = (0..D).map(|k| hi[k] - lo[k]).fold(0.0f64, f64::max);
        let reach = (2.0 * f64::from(cap) + f64::from(radius)) * f64::from(BOUND_REL);
        // Finite: `cap` and `radius` are finite `f32`s, and so is every centre.
        let cell = (reach * CELL_MARGIN)
            .max(extent / (Self::MAX_CELL - 2) as f64)
            .max(f64::MIN_POSITIVE);
        let origin = lo.map(|x| if x.is_finite() { x } else { 0.0 });
        let mut grid = Grid {
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
        grid.cells(&keyed[..cells_len], parallel);
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

    /// The occupied cells' keys and where each starts, from the sorted keys of the objects
    /// in the cells (`(key, order)` pairs): the positions whose key differs from the one
    /// before, found a chunk at a time.
    #[inline(always)]
    fn cells(&mut self, cells: &[(u64, u64)], parallel: bool) {
        let mut firsts = vec![false; cells.len()];
        fill_each(&mut firsts, parallel, |p| {
            p == 0 || cells[p].0 != cells[p - 1].0
        });
        for (p, _) in firsts.iter().enumerate().filter(|&(_, &first)| first) {
            self.keys.push(cells[p].0);
            self.starts.push(p as u32);
        }
        self.starts.push(cells.len() as u32);
    }

    /// Cell coordinates of a point (each `1 ..= MAX_CELL`; `x` always 1: cells are columns).
    fn cell_of(&self, m: [f64; D]) -> [u64; D] {
        core::array::from_fn(|k| {
            if k == 0 {
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
    pub(super) fn cell_tasks(&self, per_task: usize) -> Vec<(Range<usize>, Range<usize>)> {
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
    pub(super) fn shell_pairs(
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
            let run = &xs[s..e];
            s + run.partition_point(|&x| f64::from(x) < x_lo)
                ..s + run.partition_point(|&x| f64::from(x) <= x_hi)
        };
        // Two binary searches a row, or one pass over every cell: whichever reads less.
        if rows.saturating_mul(2 * u64::from(usize::BITS - self.keys.len().leading_zeros()))
            >= self.keys.len() as u64
        {
            // A box as large as the grid: filter the cells instead of searching rows.
            // Columns are trimmed one by one.
            for c in 0..self.keys.len() {
                let x = Self::coords(self.keys[c]);
                if (0..D).all(|k| lo[k] <= x[k] && x[k] <= hi[k]) {
                    visit(range_of(c, c + 1));
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

    /// The ids of the objects by position: the order in which the queries copy the set.
    pub(crate) fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Every candidate pair of big object `k` (in `0..big.len()`): with the objects in the
    /// cells, then with the big objects after it, handed to `emit` as positions (the big
    /// object's first).
    pub(super) fn big_pairs(&self, k: usize, radius: f32, mut emit: impl FnMut(u32, u32)) {
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
    fn radix_sort_of_keys_equals_a_comparison_sort() {
        // Keys in few cells and in many, with big and non-finite objects among them.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // x orders from a few values (ties within a cell) to all 32 bits.
        let sets = [
            (RADIX_MIN, 3u64, 8u64),
            (RADIX_MIN + 7, 1 << 40, 1 << 32),
            (50_000, 900, 1 << 16),
        ];
        for (n, cells, xs) in sets {
            let keyed: Vec<(u64, u64)> = (0..n as u64)
                .map(|i| {
                    let key = match next() % 50 {
                        0 => BIG_KEY,
                        1 => NONE_KEY,
                        _ => {
                            (next() % cells)
                                .wrapping_mul(0x8000_0001)
                                .wrapping_add(1 << 40)
                                >> 1
                        }
                    };
                    (key, (next() % xs) << 32 | i)
                })
                .collect();
            let mut want = keyed.clone();
            want.sort_unstable();
            for parallel in [false, true] {
                let mut got = keyed.clone();
                sort_keys(&mut got, parallel);
                assert_eq!(got, want, "{n} pairs in {cells} cells, {xs} x orders");
            }
        }
    }

    #[test]
    fn keys_round_trip() {
        let stick = crate::segment::Segment::new([0.0; 3], [1.0, 0.0, 0.0]);
        let (g, _) = Grid::<3>::build(1, |_| stick, None, 1.0, false).unwrap();
        let c = [5, 7, 9];
        assert_eq!(Grid::<3>::coords(g.key(c)), c);
    }
}
