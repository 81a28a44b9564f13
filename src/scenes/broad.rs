//! The persistent broad phase of [`Capsules`](super::Capsules): padded boxes in a hashed
//! grid, re-binned only when an object leaves its padded box, and the list of padded-box
//! pairs kept between frames.
//!
//! # Boxes
//!
//! Each object has a *tight* box, its core segment's bounds grown by its own radius and by
//! a rounding allowance (`r·(1 + 16ε) + 256ε·S`, `S` its largest coordinate, as the
//! spheres of [`crate::prune`] are inflated): two capsules the kernel finds touching
//! (`dist2 <= (rA + rB)²` in `f32`) always have overlapping tight boxes. The *padded* box
//! is the tight box grown by [`MARGIN`] times its largest extent, set when the object
//! enters the grid and again only when its tight box leaves it.
//!
//! # The grid
//!
//! An object lives in the cell of its padded box's low corner; the cell edge is at least
//! every resident's padded extent, so two overlapping padded boxes sit in the same or
//! neighbouring cells (27 to look at). The edge is the largest padded extent when that is at
//! most twice the 99th percentile, else the 99th percentile, chosen when the grid is built;
//! larger objects are kept aside as *big* ones, which meet every binned object by a box
//! test (the grid is built again when they become more than 1/16 of the set). Cells are a
//! hash map from packed cell coordinates (computed in `f64` and clamped to ±2²⁰, which keeps
//! "same or neighbouring" true far from the origin) to the ids living there.
//!
//! # Pairs kept between frames
//!
//! The padded-box pairs change only when a padded box does. A frame recomputes every tight
//! box (O(N), every object may have moved), marks the objects whose tight box left their
//! padded box *dirty*, re-pads and re-bins them, drops the kept pairs that name a dirty
//! object and asks the grid for the dirty objects' new pairs (the smaller id of two dirty
//! objects adds their pair). The kept list stays sorted by `(i, j)`; the frame's
//! candidates are its pairs whose tight boxes overlap. On coherent motion few objects are
//! dirty a frame, so the grid work follows what moved; a frame of teleports costs one
//! build.

use crate::Segments;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Padding of a box, as a fraction of its largest extent.
pub const MARGIN: f32 = 0.25;

/// Relative inflation of a radius against rounding (as the grid's spheres).
const RADIUS_REL: f32 = 1.0 + 16.0 * f32::EPSILON;
/// Absolute inflation, times the object's largest coordinate.
const SCALE_ABS: f32 = 256.0 * f32::EPSILON;
/// Cell coordinates are clamped to `-LIMIT .. LIMIT` (21 bits each in a key).
const LIMIT: i64 = 1 << 20;
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

    /// The tight box of the capsule `(p0, p1, r)`, finite coordinates.
    #[inline]
    fn capsule(p0: [f32; 3], p1: [f32; 3], r: f32) -> Aabb {
        let scale = p0.iter().chain(&p1).fold(0.0f32, |m, x| m.max(x.abs()));
        let pad = r * RADIUS_REL + SCALE_ABS * scale;
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
    /// In the cell with this key.
    Cell(u64),
    /// In the list of big objects.
    Big,
}

/// A multiplicative hash of a packed cell key (the key's bits folded so that the low bits
/// the table indexes by depend on all three coordinates).
#[derive(Debug, Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        self.0 = x.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
}

type Cells = HashMap<u64, Vec<u32>, BuildHasherDefault<KeyHasher>>;

/// The broad phase's state between frames (see the module docs).
#[derive(Debug, Default)]
pub(crate) struct Broad {
    tight: Vec<Aabb>,
    fat: Vec<Aabb>,
    place: Vec<Place>,
    dirty: Vec<bool>,
    dirty_list: Vec<u32>,
    cells: Cells,
    big: Vec<u32>,
    /// `1 / edge`, 0 until the grid is built.
    inv: f64,
    /// Padded-box pairs `(i, j)`, `i < j`, sorted.
    pairs: Vec<(u32, u32)>,
    fresh: Vec<(u32, u32)>,
    merged: Vec<(u32, u32)>,
}

impl Broad {
    /// Brings the boxes, the grid and the kept pairs up to date with the objects
    /// (`segs[i]`, `radii[i]`, live when `live[i]`), appending the live objects with a
    /// non-finite coordinate to `non_finite`.
    pub(crate) fn update(
        &mut self,
        segs: &Segments,
        radii: &[f32],
        live: &[bool],
        non_finite: &mut Vec<u32>,
    ) {
        let n = live.len();
        self.tight.resize(n, Aabb::default());
        self.fat.resize(n, Aabb::default());
        self.place.resize(n, Place::Out);
        self.dirty.resize(n, false);
        if self.big.len() > 32 + n / 16 {
            self.reset();
        }
        let [x0, y0, z0, x1, y1, z1] = segs.columns();
        for i in 0..n {
            let p0 = [x0[i], y0[i], z0[i]];
            let p1 = [x1[i], y1[i], z1[i]];
            let finite = p0.iter().chain(&p1).all(|x| x.is_finite());
            if !live[i] || !finite {
                if live[i] {
                    non_finite.push(i as u32);
                }
                if self.place[i] != Place::Out {
                    self.unbin(i);
                    self.mark(i);
                }
                continue;
            }
            let tight = Aabb::capsule(p0, p1, radii[i]);
            self.tight[i] = tight;
            if self.place[i] == Place::Out || !self.fat[i].contains(&tight) {
                self.fat[i] = tight.padded();
                self.mark(i);
            }
        }
        if self.dirty_list.is_empty() {
            return;
        }
        if self.inv == 0.0 {
            self.choose_edge();
        }
        for k in 0..self.dirty_list.len() {
            let i = self.dirty_list[k] as usize;
            if live[i] && is_finite(segs, i) {
                self.rebin(i);
            }
        }
        self.find_pairs();
        for &i in &self.dirty_list {
            self.dirty[i as usize] = false;
        }
        self.dirty_list.clear();
    }

    /// The kept pairs whose tight boxes overlap, appended to `out` in `(i, j)` order.
    pub(crate) fn candidates(&self, out: &mut Vec<(u32, u32)>) {
        let tight = &self.tight;
        out.extend(
            self.pairs
                .iter()
                .filter(|&&(i, j)| tight[i as usize].overlaps(&tight[j as usize])),
        );
    }

    /// The place object `i` belongs in by its padded box (`None` before the grid exists).
    fn place_of(&self, i: usize) -> Option<Place> {
        if self.inv == 0.0 {
            return None;
        }
        let fat = &self.fat[i];
        if f64::from(fat.extent()) * self.inv > FILL || !fat.extent().is_finite() {
            return Some(Place::Big);
        }
        Some(Place::Cell(pack(self.cell(fat.lo))))
    }

    fn cell(&self, lo: [f32; 3]) -> [i64; 3] {
        lo.map(|x| {
            (f64::from(x) * self.inv)
                .floor()
                .clamp(-LIMIT as f64, (LIMIT - 1) as f64) as i64
        })
    }

    fn mark(&mut self, i: usize) {
        if !self.dirty[i] {
            self.dirty[i] = true;
            self.dirty_list.push(i as u32);
        }
    }

    /// Forgets the grid and the kept pairs; the next update builds them from scratch.
    fn reset(&mut self) {
        self.cells.clear();
        self.big.clear();
        self.pairs.clear();
        self.place.fill(Place::Out);
        self.inv = 0.0;
    }

    /// The cell edge from the padded boxes of the dirty objects (every placed object when
    /// the grid is empty).
    fn choose_edge(&mut self) {
        let mut extents: Vec<f32> = self
            .dirty_list
            .iter()
            .map(|&i| self.fat[i as usize].extent())
            .filter(|e| e.is_finite())
            .collect();
        let mut edge = 0.0f32;
        if !extents.is_empty() {
            let k = (extents.len() * 99 / 100).min(extents.len() - 1);
            let (_, &mut p99, _) = extents.select_nth_unstable_by(k, f32::total_cmp);
            let max = extents.iter().fold(0.0f32, |m, &e| m.max(e));
            edge = if max <= 2.0 * p99 { max } else { p99 };
        }
        let mut edge = f64::from(edge) / FILL * 1.001;
        if !(edge > 0.0 && edge.is_finite()) {
            // Points of radius 0: cells a thousandth of the spread.
            let spread = self
                .dirty_list
                .iter()
                .map(|&i| self.fat[i as usize].lo)
                .filter(|lo| lo.iter().all(|x| x.is_finite()))
                .flat_map(|lo| lo.map(|x| f64::from(x).abs()))
                .fold(0.0f64, f64::max);
            edge = if spread > 0.0 { spread / 1024.0 } else { 1.0 };
        }
        self.inv = 1.0 / edge;
    }

    /// Removes object `i` from its cell or the big list.
    fn unbin(&mut self, i: usize) {
        let id = i as u32;
        match self.place[i] {
            Place::Out => {}
            Place::Big => remove_id(&mut self.big, id),
            Place::Cell(key) => {
                if let Some(list) = self.cells.get_mut(&key) {
                    remove_id(list, id);
                    if list.is_empty() {
                        self.cells.remove(&key);
                    }
                }
            }
        }
        self.place[i] = Place::Out;
    }

    /// Moves object `i` to the place its padded box belongs in.
    fn rebin(&mut self, i: usize) {
        let Some(new) = self.place_of(i) else { return };
        if new == self.place[i] {
            return;
        }
        self.unbin(i);
        match new {
            Place::Out => {}
            Place::Big => self.big.push(i as u32),
            Place::Cell(key) => self.cells.entry(key).or_default().push(i as u32),
        }
        self.place[i] = new;
    }

    /// Drops the kept pairs naming a dirty object and adds the dirty objects' pairs.
    fn find_pairs(&mut self) {
        let dirty = &self.dirty;
        self.pairs
            .retain(|&(i, j)| !dirty[i as usize] && !dirty[j as usize]);
        let mut fresh = core::mem::take(&mut self.fresh);
        fresh.clear();
        for &i in &self.dirty_list {
            let iu = i as usize;
            let fat = self.fat[iu];
            let mut visit = |j: u32| {
                let ju = j as usize;
                if j != i && !(dirty[ju] && j < i) && fat.overlaps(&self.fat[ju]) {
                    fresh.push((i.min(j), i.max(j)));
                }
            };
            match self.place[iu] {
                Place::Out => continue,
                Place::Cell(_) => {
                    let c = self.cell(fat.lo);
                    let axis = |k: usize| neighbours(c[k]);
                    for z in axis(2).into_iter().flatten() {
                        for y in axis(1).into_iter().flatten() {
                            for x in axis(0).into_iter().flatten() {
                                if let Some(list) = self.cells.get(&pack([x, y, z])) {
                                    list.iter().for_each(|&j| visit(j));
                                }
                            }
                        }
                    }
                    self.big.iter().for_each(|&j| visit(j));
                }
                Place::Big => {
                    for list in self.cells.values() {
                        list.iter().for_each(|&j| visit(j));
                    }
                    self.big.iter().for_each(|&j| visit(j));
                }
            }
        }
        fresh.sort_unstable();
        self.merged.clear();
        merge(&self.pairs, &fresh, &mut self.merged);
        core::mem::swap(&mut self.pairs, &mut self.merged);
        self.fresh = fresh;
    }
}

/// True when every coordinate of `segs[i]` is finite.
fn is_finite(segs: &Segments, i: usize) -> bool {
    segs.columns().iter().all(|c| c[i].is_finite())
}

/// The distinct cell coordinates `c - 1, c, c + 1` after clamping.
fn neighbours(c: i64) -> [Option<i64>; 3] {
    let lo = (c - 1).max(-LIMIT);
    let hi = (c + 1).min(LIMIT - 1);
    [(lo < c).then_some(lo), Some(c), (hi > c).then_some(hi)]
}

fn pack(c: [i64; 3]) -> u64 {
    let u = c.map(|x| (x + LIMIT) as u64);
    u[0] | u[1] << 21 | u[2] << 42
}

fn remove_id(list: &mut Vec<u32>, id: u32) {
    if let Some(p) = list.iter().position(|&x| x == id) {
        list.swap_remove(p);
    }
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
