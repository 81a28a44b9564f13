//! The persistent broad phase of [`Capsules`](super::Capsules): padded boxes in a hashed
//! grid, re-binned only when an object leaves its padded box, and the list of padded-box
//! pairs kept between frames.
//!
//! # Boxes
//!
//! Each object has a *tight* box, its core segment's bounds grown by its own radius and by
//! a rounding allowance, `r·(1 + 16ε) + 16ε·E + 2^-72` with `E` the segment's largest
//! extent along an axis: two capsules the kernel finds touching (`dist2 <= (rA + rB)²` in
//! `f32`) always have overlapping tight boxes. The kernel's error is relative to the
//! pair's own extent (module docs of [`crate::sets`]), and the corners need no allowance
//! for their own rounding to `f32`, however far from the origin: rounding is monotonic, so
//! two corners that meet before it still meet after. (A sphere's centre does need one: a
//! distance between rounded centres is not monotonic in them.) The *padded* box
//! is the tight box grown by [`MARGIN`] times its largest extent, set when the object
//! enters the grid and again only when its tight box leaves it.
//!
//! # The grid
//!
//! An object lives in the cell of its padded box's low corner; the cell edge is at least
//! every resident's padded extent, so two overlapping padded boxes sit in the same or
//! neighbouring cells (27 to look at). Fewer, along each axis: a box that meets the
//! object's has its low corner at most the object's high corner, so no cell past the one
//! of that corner holds it (cell coordinates are monotonic in the point, clamping
//! included). Where the object lies inside its cell along an axis, one layer of cells is
//! skipped; on the moving scene of `segbatch bench --scenes` that halves the entries a
//! moved object looks at. The edge is the largest padded extent when that is at
//! most twice the 99th percentile, else the 99th percentile; larger objects are kept aside
//! as *big* ones, which meet every binned object by a box test. The grid is dense over the
//! padded boxes' region when it is built (at most `8N + 4096` cells, the edge doubled until
//! it fits); cell coordinates are computed in `f64` and clamped to the region, which keeps
//! "same or neighbouring" true for objects that later leave it. It is built again when more
//! than 1/16 of the set is big or outside the region.
//!
//! The cells are one array of entries (id and padded box) sorted by cell, with each cell's
//! start (a counting sort, O(N) sequential passes), rebuilt in a frame where some padded
//! box changed. A dirty object's neighbours are then up to nine contiguous runs (up to
//! three cells along x for each row around it), read with their boxes: the search costs a
//! few cache lines per dirty object, where per-cell lists cost a miss per neighbour
//! (measured: a hashed grid of per-cell lists spent 70% of the frame waiting on those).
//! An entry is half a cache line, its box one row of eight lanes (the low corner and the
//! negated high corner), so each neighbour is one eight-lane comparison and one branch.
//!
//! # Pairs kept between frames
//!
//! The padded-box pairs change only when a padded box does. A frame recomputes every tight
//! box (O(N), every object may have moved), marks the objects whose tight box left their
//! padded box *dirty*, re-pads and re-bins them, drops the kept pairs that name a dirty
//! object and asks the grid for the dirty objects' new pairs (the smaller id of two dirty
//! objects adds their pair). The kept list stays sorted by `(i, j)`; the frame's
//! candidates are its pairs whose tight boxes overlap, handed to the kernel in two lists:
//! those among the pairs kept from the last frame, and those among the new pairs. The
//! first needs no grid, so on two threads its filter and kernel run while the other
//! thread sorts the grid's entries (a pass no second thread can share), and each side
//! hands its larger passes to the pool. On coherent motion few objects are
//! dirty a frame, so the grid work follows what moved; a frame of teleports costs one
//! build.

use crate::lanes::{Lane, Twin};
use wide::f32x8;

use crate::batch::Segments;

/// Objects whose tight boxes are computed at once.
const LANES: usize = 8;

/// Dirty objects a task when their pairs are found on all cores.
#[cfg(feature = "rayon")]
const DIRTY_TASK: usize = 256;

/// Padding of a box, as a fraction of its largest extent.
pub const MARGIN: f32 = 0.25;

/// Relative inflation of a radius against rounding (as the grid's spheres).
const RADIUS_REL: f32 = 1.0 + 16.0 * f32::EPSILON;
/// Inflation times the segment's largest extent along an axis: the kernel's error, which
/// is relative to the pair's own extent (module docs of [`crate::sets`]): two capsules are
/// reported only if their segments come within `rA + rB` (grown by a few `ε`) and a few `ε`
/// times their lengths of each other (`5.5ε·|d|` a segment without FMA, `|d| <= √3·E`).
const EXTENT_REL: f32 = 16.0 * f32::EPSILON;
/// Inflation whatever the coordinates: the kernel's rounding where its values are subnormal
/// (as the grid's spheres).
const FLOOR: f32 = 1.0 / (1u128 << 72) as f32;
/// A resident's padded extent is at most this fraction of the cell edge, so the rounding of
/// `x / edge` never moves a neighbour two cells away.
const FILL: f64 = 0.999;

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Aabb {
    lo: [f32; 3],
    hi: [f32; 3],
}

impl Aabb {
    #[inline]
    fn overlaps(&self, o: &Aabb) -> bool {
        (self.lo[0] <= o.hi[0])
            & (o.lo[0] <= self.hi[0])
            & (self.lo[1] <= o.hi[1])
            & (o.lo[1] <= self.hi[1])
            & (self.lo[2] <= o.hi[2])
            & (o.lo[2] <= self.hi[2])
    }

    #[inline]
    fn contains(&self, o: &Aabb) -> bool {
        (0..3).all(|k| self.lo[k] <= o.lo[k] && o.hi[k] <= self.hi[k])
    }

    #[inline]
    fn extent(&self) -> f32 {
        (0..3).fold(0.0f32, |m, k| m.max(self.hi[k] - self.lo[k]))
    }

    /// The tight box of the capsule `(p0, p1, r)`, finite coordinates: the statement of
    /// what [`tight_boxes`] computes eight lanes at once.
    #[cfg(test)]
    fn capsule(p0: [f32; 3], p1: [f32; 3], r: f32) -> Aabb {
        let extent = (0..3).fold(0.0f32, |m, k| m.max((p1[k] - p0[k]).abs()));
        let pad = r * RADIUS_REL + EXTENT_REL * extent + FLOOR;
        Aabb {
            lo: core::array::from_fn(|k| p0[k].min(p1[k]) - pad),
            hi: core::array::from_fn(|k| p0[k].max(p1[k]) + pad),
        }
    }

    fn padded(&self) -> Aabb {
        let m = MARGIN * self.extent();
        Aabb {
            lo: self.lo.map(|x| x - m),
            hi: self.hi.map(|x| x + m),
        }
    }
}

/// Where an object is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Not in the grid: a free id, a non-finite object, or not placed yet.
    Out,
    /// In the cell with this index (`outside`: its coordinates were clamped to the region).
    Cell { cell: u32, outside: bool },
    /// In the list of big objects.
    Big,
}

/// An object in the grid's sorted array: its padded box as one row of eight lanes
/// ([`Row`]) and its id.
#[derive(Clone, Copy, Debug, Default, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(32))]
struct Entry {
    /// The low corner, then the high corner negated.
    lo_neg_hi: [f32; 6],
    id: u32,
    spare: u32,
}

impl Entry {
    fn new(id: u32, fat: &Aabb) -> Self {
        Entry {
            lo_neg_hi: [
                fat.lo[0], fat.lo[1], fat.lo[2], -fat.hi[0], -fat.hi[1], -fat.hi[2],
            ],
            id,
            spare: 0,
        }
    }
}

/// A padded box against which entries are tested eight lanes at once: the high corner,
/// then the low corner negated, then two lanes the test ignores (an entry's id and spare).
/// An entry's box meets it when its first six lanes are at most the row's: `lo <= hi'`
/// and `-hi <= -lo'`, exactly (negation is exact).
struct Row(f32x8);

impl Row {
    fn new(fat: &Aabb) -> Self {
        Row(f32x8::from([
            fat.hi[0], fat.hi[1], fat.hi[2], -fat.lo[0], -fat.lo[1], -fat.lo[2], 0.0, 0.0,
        ]))
    }

    /// True when `e`'s box meets this one (the lanes of its id and spare are ignored).
    #[inline]
    fn meets(&self, e: &Entry) -> bool {
        let lanes: f32x8 = bytemuck::cast(*e);
        lanes.simd_le(self.0).to_bitmask() & 0x3f == 0x3f
    }
}

/// The dense grid's geometry.
#[derive(Clone, Copy, Debug, Default)]
struct Geometry {
    origin: [f64; 3],
    /// `1 / edge`, 0 until the grid is built.
    inv: f64,
    dims: [usize; 3],
}

impl Geometry {
    /// The cell coordinates of `lo`, clamped to the region, and whether any was clamped.
    fn coords(&self, lo: [f32; 3]) -> ([usize; 3], bool) {
        let mut outside = false;
        let c = core::array::from_fn(|k| {
            let x = ((f64::from(lo[k]) - self.origin[k]) * self.inv).floor();
            let top = (self.dims[k] - 1) as f64;
            outside |= !(0.0..=top).contains(&x);
            x.clamp(0.0, top) as usize
        });
        (c, outside)
    }

    fn index(&self, c: [usize; 3]) -> usize {
        (c[2] * self.dims[1] + c[1]) * self.dims[0] + c[0]
    }

    fn cells(&self) -> usize {
        self.dims.iter().product()
    }
}

/// The broad phase's state between frames (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Broad {
    tight: Vec<Aabb>,
    fat: Vec<Aabb>,
    place: Vec<Place>,
    dirty: Vec<bool>,
    dirty_list: Vec<u32>,
    /// Per chunk of [`LANES`] objects, those live with finite ends (a bit each).
    ok: Vec<u8>,
    grid: Geometry,
    cells: Cells,
    /// Padded-box pairs `(i, j)`, `i < j`, sorted.
    pairs: Vec<(u32, u32)>,
    /// The dirty objects' padded-box pairs of the frame, sorted.
    fresh: Vec<(u32, u32)>,
    merged: Vec<(u32, u32)>,
    /// The frame's candidates among the pairs kept from the last frame, sorted.
    kept_candidates: Vec<(u32, u32)>,
    /// The frame's candidates among the fresh pairs, sorted.
    fresh_candidates: Vec<(u32, u32)>,
}

/// The grid's contents.
#[derive(Debug, Default)]
struct Cells {
    /// `start[c] .. start[c + 1]`: the entries of cell `c`.
    start: Vec<u32>,
    entries: Vec<Entry>,
    big: Vec<u32>,
    /// Objects whose cell coordinates were clamped to the region.
    outside: usize,
}

/// What the neighbour search of the dirty objects reads.
struct Search<'a> {
    grid: &'a Geometry,
    cells: &'a Cells,
    fat: &'a [Aabb],
    place: &'a [Place],
    dirty: &'a [bool],
}

impl Broad {
    /// Brings the boxes, the grid and the kept pairs up to date with the objects
    /// (`segs[i]`, `radii[i]`, live when `live[i]`), appending the live objects with a
    /// non-finite coordinate to `non_finite`, and hands the frame's candidates to `decide`
    /// in two sorted lists: those among the pairs kept from the last frame (with `kept`)
    /// and those among the dirty objects' new pairs (with `fresh`). The two sides share
    /// nothing, so with `parallel` they run side by side on the pool (each on all cores
    /// where it has enough work): the kept side's filter and kernel run while the other
    /// sorts the grid's entries, which takes one thread.
    ///
    /// With `start` (the objects' segments at the previous frame), each tight box covers
    /// the object's whole motion from there ([`swept_boxes`]), so the candidates hold every
    /// pair the swept-capsule query can find touching during the step.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn update<P: Send>(
        &mut self,
        segs: &Segments,
        start: Option<&Segments>,
        radii: &[f32],
        live: &[bool],
        non_finite: &mut Vec<u32>,
        parallel: bool,
        decide: &(impl Fn(&[(u32, u32)], &mut P) + Sync),
        kept: &mut P,
        fresh: &mut P,
    ) {
        let n = live.len();
        self.tight.resize(n, Aabb::default());
        self.fat.resize(n, Aabb::default());
        self.place.resize(n, Place::Out);
        self.dirty.resize(n, false);
        if self.grid.inv > 0.0 && self.cells.big.len().max(self.cells.outside) > 32 + n / 16 {
            self.reset();
        }
        // Every object's tight box, eight at a time (on all cores when `parallel`), written
        // for the live objects with finite ends, which `ok` marks (a bit each); then the
        // marking.
        let columns = segs.columns();
        self.ok.resize(n.div_ceil(LANES), 0);
        if let Some(start) = start {
            let from = start.columns();
            each_chunk(&mut self.tight, &mut self.ok, parallel, |chunk, boxes| {
                swept_boxes(chunk * LANES, boxes, &columns, &from, radii, live)
            });
        } else {
            each_chunk(&mut self.tight, &mut self.ok, parallel, |chunk, boxes| {
                tight_boxes(chunk * LANES, boxes, &columns, radii, live)
            });
        }
        for (i, &alive) in live.iter().enumerate() {
            if self.ok[i / LANES] >> (i % LANES) & 1 == 0 {
                if alive {
                    non_finite.push(i as u32);
                }
                if self.place[i] != Place::Out {
                    self.place[i] = Place::Out;
                    self.mark(i);
                }
                continue;
            }
            let tight = self.tight[i];
            if self.place[i] == Place::Out || !self.fat[i].contains(&tight) {
                self.fat[i] = tight.padded();
                self.mark(i);
                // Placed below, once the grid exists; `Big` stands for "placed".
                self.place[i] = Place::Big;
            }
        }
        let moved = !self.dirty_list.is_empty();
        if moved {
            if self.grid.inv == 0.0 {
                self.build_geometry();
            }
            for k in 0..self.dirty_list.len() {
                let i = self.dirty_list[k] as usize;
                if self.place[i] != Place::Out {
                    self.place[i] = self.place_of(i);
                }
            }
        }
        let Broad {
            tight,
            fat,
            place,
            dirty,
            dirty_list,
            grid,
            cells,
            pairs,
            fresh: fresh_pairs,
            kept_candidates,
            fresh_candidates,
            ..
        } = self;
        let (tight, dirty) = (&tight[..], &dirty[..]);
        let new_side = || {
            fresh_pairs.clear();
            fresh_candidates.clear();
            if moved {
                cells.sort(grid, place, fat);
                let search = Search {
                    grid,
                    cells,
                    fat,
                    place,
                    dirty,
                };
                search.dirty_pairs(dirty_list, parallel, fresh_pairs);
                fresh_pairs.sort_unstable();
                overlapping(fresh_pairs, tight, fresh_candidates);
            }
            decide(fresh_candidates, fresh);
        };
        let kept_side = || {
            if moved {
                pairs.retain(|&(i, j)| !dirty[i as usize] && !dirty[j as usize]);
            }
            kept_candidates.clear();
            overlapping_on(parallel, pairs, tight, kept_candidates);
            decide(kept_candidates, kept);
        };
        both(parallel, new_side, kept_side);
        if moved {
            self.merged.clear();
            merge(&self.pairs, &self.fresh, &mut self.merged);
            core::mem::swap(&mut self.pairs, &mut self.merged);
            for &i in &self.dirty_list {
                self.dirty[i as usize] = false;
            }
            self.dirty_list.clear();
        }
    }

    /// The frame's candidates, appended to `out` in `(i, j)` order: the two lists
    /// [`update`](Broad::update) handed on, merged.
    pub(crate) fn candidates(&self, out: &mut Vec<(u32, u32)>) {
        merge(&self.kept_candidates, &self.fresh_candidates, out);
    }

    /// The place object `i` belongs in by its padded box.
    fn place_of(&self, i: usize) -> Place {
        let fat = &self.fat[i];
        let e = fat.extent();
        if !e.is_finite() || f64::from(e) * self.grid.inv > FILL {
            return Place::Big;
        }
        let (c, outside) = self.grid.coords(fat.lo);
        Place::Cell {
            cell: self.grid.index(c) as u32,
            outside,
        }
    }

    fn mark(&mut self, i: usize) {
        if !self.dirty[i] {
            self.dirty[i] = true;
            self.dirty_list.push(i as u32);
        }
    }

    /// Forgets the grid and the kept pairs; the next update builds them from scratch.
    fn reset(&mut self) {
        self.pairs.clear();
        self.place.fill(Place::Out);
        self.grid = Geometry::default();
    }

    /// The grid's edge, region and size from the padded boxes of the dirty objects (every
    /// placed object, since the grid is empty).
    fn build_geometry(&mut self) {
        let placed: Vec<usize> = self
            .dirty_list
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| self.place[i] != Place::Out)
            .collect();
        let mut extents: Vec<f32> = placed
            .iter()
            .map(|&i| self.fat[i].extent())
            .filter(|e| e.is_finite())
            .collect();
        let mut edge = 0.0f32;
        if !extents.is_empty() {
            let k = (extents.len() * 99 / 100).min(extents.len() - 1);
            let (_, &mut p99, _) = extents.select_nth_unstable_by(k, f32::total_cmp);
            let max = extents.iter().fold(0.0f32, |m, &e| m.max(e));
            edge = if max <= 2.0 * p99 { max } else { p99 };
        }
        let mut edge = (f64::from(edge) / FILL * 1.001).max(1e-30);
        let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
        for &i in &placed {
            let fat = &self.fat[i];
            if fat.extent().is_finite() {
                for k in 0..3 {
                    lo[k] = lo[k].min(f64::from(fat.lo[k]));
                    hi[k] = hi[k].max(f64::from(fat.lo[k]));
                }
            }
        }
        if lo[0] > hi[0] {
            (lo, hi) = ([0.0; 3], [0.0; 3]);
        }
        let cap = (8 * placed.len() + 4096) as f64;
        let dims = |edge: f64| -> [f64; 3] {
            core::array::from_fn(|k| ((hi[k] - lo[k]) / edge).floor() + 1.0)
        };
        while dims(edge).iter().product::<f64>() > cap {
            edge *= 2.0;
        }
        self.grid = Geometry {
            origin: lo,
            inv: 1.0 / edge,
            dims: dims(edge).map(|d| d as usize),
        };
    }
}

impl Search<'_> {
    /// Appends the padded-box pairs of every dirty object (in no particular order), on all
    /// cores when `parallel` and there are many.
    fn dirty_pairs(&self, dirty_list: &[u32], parallel: bool, fresh: &mut Vec<(u32, u32)>) {
        #[cfg(feature = "rayon")]
        if parallel && dirty_list.len() > 2 * DIRTY_TASK {
            use rayon::prelude::*;
            let parts: Vec<Vec<(u32, u32)>> = dirty_list
                .par_chunks(DIRTY_TASK)
                .map(|ids| {
                    let mut part = Vec::new();
                    for &i in ids {
                        self.pairs_of(i, &mut part);
                    }
                    part
                })
                .collect();
            fresh.extend(parts.into_iter().flatten());
            return;
        }
        let _ = parallel;
        for &i in dirty_list {
            self.pairs_of(i, fresh);
        }
    }

    /// Appends the padded-box pairs of dirty object `i`: with every object of its own and
    /// the neighbouring cells and every big one, but with a dirty `j < i` (that one adds
    /// the pair).
    fn pairs_of(&self, i: u32, fresh: &mut Vec<(u32, u32)>) {
        let dirty = self.dirty;
        let (g, cells) = (self.grid, self.cells);
        let iu = i as usize;
        let fat = self.fat[iu];
        let row = Row::new(&fat);
        match self.place[iu] {
            Place::Out => return,
            Place::Cell { .. } => {
                // From the cell before the low corner's to the high corner's (at most the
                // one after: the object's extent is below the edge).
                let (c, _) = g.coords(fat.lo);
                let (h, _) = g.coords(fat.hi);
                let top = |k: usize| h[k].min(c[k] + 1);
                let x0 = c[0].saturating_sub(1);
                for z in c[2].saturating_sub(1)..=top(2) {
                    for y in c[1].saturating_sub(1)..=top(1) {
                        let a = cells.start[g.index([x0, y, z])] as usize;
                        let b = cells.start[g.index([top(0), y, z]) + 1] as usize;
                        run_pairs(i, &row, &cells.entries[a..b], dirty, fresh);
                    }
                }
            }
            Place::Big => run_pairs(i, &row, &cells.entries, dirty, fresh),
        }
        for &j in &cells.big {
            if j != i && fat.overlaps(&self.fat[j as usize]) && !(j < i && dirty[j as usize]) {
                fresh.push((i.min(j), i.max(j)));
            }
        }
    }
}

impl Cells {
    /// The entries sorted by cell (a counting sort) and the big objects, from the places.
    fn sort(&mut self, grid: &Geometry, place: &[Place], fat: &[Aabb]) {
        let cells = grid.cells();
        self.start.clear();
        self.start.resize(cells + 2, 0);
        self.big.clear();
        self.outside = 0;
        for (i, p) in place.iter().enumerate() {
            match *p {
                Place::Cell { cell, outside } => {
                    self.start[cell as usize + 2] += 1;
                    self.outside += usize::from(outside);
                }
                Place::Big => self.big.push(i as u32),
                Place::Out => {}
            }
        }
        for c in 2..cells + 2 {
            self.start[c] += self.start[c - 1];
        }
        // Every slot is written below: the last frame's entries are overwritten, not
        // cleared first (a fill of 32 bytes an object).
        let total = self.start[cells + 1] as usize;
        self.entries.resize(total, Entry::default());
        // `start[c + 1]` is the next free slot of cell `c` while filling; afterwards it is
        // the start of cell `c + 1`, and `start[0] = 0` that of cell 0.
        for (i, p) in place.iter().enumerate() {
            if let Place::Cell { cell, .. } = *p {
                let slot = &mut self.start[cell as usize + 1];
                self.entries[*slot as usize] = Entry::new(i as u32, &fat[i]);
                *slot += 1;
            }
        }
        self.start.truncate(cells + 1);
    }
}

/// Appends the pairs of object `i` (its padded box `row`) with the entries of `run` whose
/// boxes meet it, but with itself or a dirty `j < i` (that one adds the pair).
#[inline]
fn run_pairs(i: u32, row: &Row, run: &[Entry], dirty: &[bool], fresh: &mut Vec<(u32, u32)>) {
    for e in run {
        // The box first: it fails for most, and `dirty[j]` is a random read.
        let j = e.id;
        if row.meets(e) && j != i && !(j < i && dirty[j as usize]) {
            fresh.push((i.min(j), i.max(j)));
        }
    }
}

/// `ok[k] = f(k, boxes of chunk k)` for every chunk of [`LANES`] boxes (the last may be
/// shorter), on all cores when `parallel`.
fn each_chunk(
    boxes: &mut [Aabb],
    ok: &mut [u8],
    parallel: bool,
    f: impl Fn(usize, &mut [Aabb]) -> u8 + Sync,
) {
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        boxes
            .par_chunks_mut(LANES)
            .zip(ok.par_iter_mut())
            .enumerate()
            .with_min_len(512)
            .for_each(|(k, (chunk, bits))| *bits = f(k, chunk));
        return;
    }
    let _ = parallel;
    for (k, (chunk, bits)) in boxes.chunks_mut(LANES).zip(ok.iter_mut()).enumerate() {
        *bits = f(k, chunk);
    }
}

/// The tight boxes (`Aabb::capsule`'s, as the tests check) of the objects
/// `first..first + boxes.len()` (at most [`LANES`]) into `boxes`, computed eight lanes at
/// once, written only for the live objects with finite ends; those are the bits of the
/// result.
#[inline]
fn tight_boxes(
    first: usize,
    boxes: &mut [Aabb],
    columns: &[&[f32]; 6],
    radii: &[f32],
    live: &[bool],
) -> u8 {
    let load = |col: &[f32]| lanes(col, first, boxes.len());
    let [x0, y0, z0, x1, y1, z1] = columns.map(load);
    let (p0, p1) = ([x0, y0, z0], [x1, y1, z1]);
    let finite = finite_ends(p0, p1);
    let extent = (0..3).fold(f32x8::splat(0.0), |m, k| m.max_ps((p1[k] - p0[k]).abs()));
    let pad = load(radii) * f32x8::splat(RADIUS_REL)
        + f32x8::splat(EXTENT_REL) * extent
        + f32x8::splat(FLOOR);
    let lo = core::array::from_fn(|k| p0[k].min_ps(p1[k]));
    let hi = core::array::from_fn(|k| p0[k].max_ps(p1[k]));
    write_boxes(first, boxes, live, finite.to_bitmask(), [lo, hi], pad)
}

/// The values `col[first..first + n]` (`n` at most [`LANES`]) in lanes, the others 0.
#[inline(always)]
fn lanes(col: &[f32], first: usize, n: usize) -> f32x8 {
    let mut lanes = [0.0f32; LANES];
    lanes[..n].copy_from_slice(&col[first..first + n]);
    f32x8::from(lanes)
}

/// The lanes whose end points `p0`, `p1` are finite.
#[inline(always)]
fn finite_ends(p0: [f32x8; 3], p1: [f32x8; 3]) -> f32x8 {
    let infinity = f32x8::splat(f32::INFINITY);
    (0..3).fold(f32x8::ZERO.simd_eq(f32x8::ZERO), |m, k| {
        m & p0[k].abs().simd_lt(infinity) & p1[k].abs().simd_lt(infinity)
    })
}

/// Writes the box `lo - pad ..= hi + pad` of each lane into `boxes` where its object
/// (`first + lane`) is live and its bit of `finite` set: those are the bits of the result.
#[inline(always)]
fn write_boxes(
    first: usize,
    boxes: &mut [Aabb],
    live: &[bool],
    finite: u32,
    [lo, hi]: [[f32x8; 3]; 2],
    pad: f32x8,
) -> u8 {
    let lo: [[f32; LANES]; 3] = core::array::from_fn(|k| (lo[k] - pad).to_array());
    let hi: [[f32; LANES]; 3] = core::array::from_fn(|k| (hi[k] + pad).to_array());
    let mut ok = 0u8;
    for (lane, b) in boxes.iter_mut().enumerate() {
        if live[first + lane] && finite >> lane & 1 == 1 {
            *b = Aabb {
                lo: [lo[0][lane], lo[1][lane], lo[2][lane]],
                hi: [hi[0][lane], hi[1][lane], hi[2][lane]],
            };
            ok |= 1 << lane;
        }
    }
    ok
}

/// Runs `a` and `b`, side by side on the pool when `parallel` (`b` for another thread to
/// take), else one after the other.
fn both(parallel: bool, a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    #[cfg(feature = "rayon")]
    if parallel {
        rayon::join(a, b);
        return;
    }
    let _ = parallel;
    a();
    b();
}

/// [`overlapping`], on all cores when `parallel`.
fn overlapping_on(parallel: bool, pairs: &[(u32, u32)], tight: &[Aabb], out: &mut Vec<(u32, u32)>) {
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        let parts: Vec<Vec<(u32, u32)>> = pairs
            .par_chunks(4096)
            .map(|pairs| {
                let mut part = Vec::new();
                overlapping(pairs, tight, &mut part);
                part
            })
            .collect();
        out.extend(parts.into_iter().flatten());
        return;
    }
    let _ = parallel;
    overlapping(pairs, tight, out);
}

/// Relative inflation of a radius for a swept box: the swept query reports a pair whose
/// gap is within `(rA + rB)·SWEPT_TOLERANCE_REL` (each object carries its share).
const SWEPT_RADIUS_REL: f32 = RADIUS_REL + crate::motion::SWEPT_TOLERANCE_REL;
/// Inflation times the object's largest coordinate for a swept box: the swept query's
/// tolerance holds `32·ε` of the pair's largest coordinate scaled into `[1, 2)` (at most
/// `64·ε` of it unscaled), and its end points are interpolated in `f32` (an ulp of the
/// coordinate each); twice that covers both with room.
const SWEPT_COORD_REL: f32 = 128.0 * f32::EPSILON;

/// The swept boxes of the objects `first..first + boxes.len()`: the box of each object's
/// four end positions, now (`columns`) and at the previous frame (`start`), grown as a
/// tight box ([`tight_boxes`]) by the radius, the extent and the floor, and besides by the
/// swept query's tolerance ([`SWEPT_RADIUS_REL`], [`SWEPT_COORD_REL`]). At every time of
/// the step each point of the core is a convex combination of a start and an end position,
/// so the whole motion lies inside. An object whose start is not finite (it was non-finite
/// at the previous frame) gets the box of its present position: its swept query reports no
/// contact. Written only for the live objects with finite ends now; those are the bits of
/// the result.
#[inline]
fn swept_boxes(
    first: usize,
    boxes: &mut [Aabb],
    columns: &[&[f32]; 6],
    start: &[&[f32]; 6],
    radii: &[f32],
    live: &[bool],
) -> u8 {
    let load = |col: &[f32]| lanes(col, first, boxes.len());
    let [x0, y0, z0, x1, y1, z1] = columns.map(load);
    let [u0, v0, w0, u1, v1, w1] = start.map(load);
    let (p0, p1) = ([x0, y0, z0], [x1, y1, z1]);
    let now = finite_ends(p0, p1);
    let then = finite_ends([u0, v0, w0], [u1, v1, w1]);
    let (s0, s1) = ([u0, v0, w0], [u1, v1, w1]);
    let q0: [f32x8; 3] = core::array::from_fn(|k| Lane::select(then, s0[k], p0[k]));
    let q1: [f32x8; 3] = core::array::from_fn(|k| Lane::select(then, s1[k], p1[k]));
    let lo: [f32x8; 3] = core::array::from_fn(|k| p0[k].min_ps(p1[k]).min_ps(q0[k].min_ps(q1[k])));
    let hi: [f32x8; 3] = core::array::from_fn(|k| p0[k].max_ps(p1[k]).max_ps(q0[k].max_ps(q1[k])));
    let extent = (0..3).fold(f32x8::splat(0.0), |m, k| m.max_ps(hi[k] - lo[k]));
    let largest = (0..3).fold(f32x8::splat(0.0), |m, k| {
        m.max_ps(lo[k].abs()).max_ps(hi[k].abs())
    });
    let pad = load(radii) * f32x8::splat(SWEPT_RADIUS_REL)
        + f32x8::splat(EXTENT_REL) * extent
        + f32x8::splat(SWEPT_COORD_REL) * largest
        + f32x8::splat(FLOOR);
    write_boxes(first, boxes, live, now.to_bitmask(), [lo, hi], pad)
}

/// The pairs of `pairs` whose `tight` boxes overlap, appended to `out` in order: each
/// pair is written and kept or not by the test's outcome, without a branch on it, so the
/// boxes' scattered reads do not wait on mispredictions (a fifth of the kept pairs pass).
fn overlapping(pairs: &[(u32, u32)], tight: &[Aabb], out: &mut Vec<(u32, u32)>) {
    let first = out.len();
    out.resize(first + pairs.len(), (0, 0));
    let slots = &mut out[first..];
    let mut kept = 0;
    for &(i, j) in pairs {
        slots[kept] = (i, j);
        kept += usize::from(tight[i as usize].overlaps(&tight[j as usize]));
    }
    out.truncate(first + kept);
}

/// The sorted union of two sorted, disjoint lists.
fn merge(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    out.reserve(a.len() + b.len());
    let (mut x, mut y) = (0, 0);
    while x < a.len() && y < b.len() {
        if a[x] < b[y] {
            out.push(a[x]);
            x += 1;
        } else {
            out.push(b[y]);
            y += 1;
        }
    }
    out.extend_from_slice(&a[x..]);
    out.extend_from_slice(&b[y..]);
}

#[cfg(test)]
mod tests {
    use super::{Aabb, LANES, tight_boxes};
    use segbatch_testkit::Rng;

    /// The eight-lane tight boxes are [`Aabb::capsule`]'s, bit for bit, at every scale and
    /// in a short last chunk; the lanes of dead or non-finite objects are left as they were
    /// and their bits clear.
    #[test]
    fn tight_boxes_are_the_scalar_boxes() {
        let mut rng = Rng::new(11);
        for round in 0..200 {
            let n = 1 + round % LANES;
            let scale = rng.pow10(-30, 30) as f32;
            let mut columns: [Vec<f32>; 6] = Default::default();
            for col in &mut columns {
                col.extend((0..n).map(|_| rng.sym() as f32 * scale));
            }
            let radii: Vec<f32> = (0..n).map(|_| rng.range_f32(0.0, 2.0) * scale).collect();
            let live: Vec<bool> = (0..n).map(|_| !rng.chance(0.1)).collect();
            if rng.chance(0.3) {
                let at = rng.below(n as u64) as usize;
                columns[rng.below(6) as usize][at] =
                    [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][rng.below(3) as usize];
            }
            let keep = Aabb {
                lo: [7.0; 3],
                hi: [-7.0; 3],
            };
            let mut boxes = vec![keep; n];
            let cols: [&[f32]; 6] = core::array::from_fn(|c| &columns[c][..]);
            let ok = tight_boxes(0, &mut boxes, &cols, &radii, &live);
            for (i, b) in boxes.iter().enumerate() {
                let p0 = [columns[0][i], columns[1][i], columns[2][i]];
                let p1 = [columns[3][i], columns[4][i], columns[5][i]];
                let finite = p0.iter().chain(&p1).all(|x| x.is_finite());
                assert_eq!(
                    ok >> i & 1 == 1,
                    live[i] && finite,
                    "round {round}, lane {i}"
                );
                let want = if live[i] && finite {
                    Aabb::capsule(p0, p1, radii[i])
                } else {
                    keep
                };
                let bits = |a: &Aabb| {
                    a.lo.iter()
                        .chain(&a.hi)
                        .map(|x| x.to_bits())
                        .collect::<Vec<_>>()
                };
                assert_eq!(bits(b), bits(&want), "round {round}, lane {i}");
            }
        }
    }
}
