//! Sets of segments for the set queries: the benchmark workloads and the equivalence
//! tests' inputs, one generator each.
//!
//! - [`hair`]: short segments (length about `2r`, random directions) spread uniformly
//!   through a cube sized so that each has about ten neighbours within `r`: hair,
//!   particle trails, a capsule broad phase.
//! - [`grass`]: strands rooted on a floor, leaning up to 30°: a thin layer of the same
//!   density of neighbours.
//! - [`clustered`]: the same segments packed into a few dense blobs (a thousandth of the
//!   set each), with a tenth of the set spread thinly around them.
//! - [`degenerate`]: the grid's worst cases: every segment on one line along x, or every
//!   segment identical.
//! - [`walls`] and [`rays`]: a level's wall segments in a 2.5D city block and sight rays
//!   through it.

use crate::Rng;
use segbatch::sets::{SharedEndpoints, self_pairs_within};
use segbatch::{Segment, Segments};

/// Side of the cube that gives `n` hair segments of radius `r` about ten neighbours each
/// (measured: 9-11 neighbours within `r` at 10K to 1M).
pub fn hair_side(n: usize, r: f32) -> f32 {
    r * (n as f32 * 2.2).cbrt()
}

/// A segment of length `1.5r .. 2.5r` centred at `c` in a random direction.
fn stick(rng: &mut Rng, c: [f32; 3], r: f32) -> Segment {
    let len = rng.range_f32(1.5 * r, 2.5 * r);
    let d = rng.dir();
    let h = 0.5 * len;
    Segment::new(
        core::array::from_fn(|k| c[k] - h * d[k] as f32),
        core::array::from_fn(|k| c[k] + h * d[k] as f32),
    )
}

/// `n` hair-like segments for radius `r` (see the module docs), offset by `origin`.
pub fn hair(n: usize, r: f32, origin: [f32; 3], seed: u64) -> Vec<Segment> {
    let mut rng = Rng::new(seed);
    let half = 0.5 * hair_side(n, r);
    (0..n)
        .map(|_| {
            let c = rng.cube_f32(half);
            let c = core::array::from_fn(|k| origin[k] + c[k]);
            stick(&mut rng, c, r)
        })
        .collect()
}

/// `n` segments like [`hair`], nine tenths of them in blobs of `n/1000` (at least 8)
/// segments, a tenth spread over a cube ten times the hair cube's side.
pub fn clustered(n: usize, r: f32, seed: u64) -> Vec<Segment> {
    let mut rng = Rng::new(seed);
    let blob = (n / 1000).max(8);
    let side = 10.0 * hair_side(n, r);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        if rng.chance(0.1) {
            let c = rng.cube_f32(0.5 * side);
            out.push(stick(&mut rng, c, r));
            continue;
        }
        let centre = rng.cube_f32(0.5 * side);
        let spread = 0.5 * hair_side(blob, r);
        for _ in 0..blob.min(n - out.len()) {
            let c = rng.cube_f32(spread);
            let c = core::array::from_fn(|k| centre[k] + c[k]);
            out.push(stick(&mut rng, c, r));
        }
    }
    out
}

/// The side of the square floor of [`grass`]: about ten strands within `r` of each.
pub fn grass_side(n: usize, r: f32) -> f32 {
    r * (n as f32 * 0.45).sqrt()
}

/// `n` grass strands on a square floor (`z = 0`, side [`grass_side`]): rooted at random,
/// of length `1.5r .. 2.5r`, leaning up to 30° from the vertical in a random direction. A
/// layer two to three `r` thick, unlike [`hair`]'s cube: the grid's cells are mostly one
/// deep.
pub fn grass(n: usize, r: f32, seed: u64) -> Vec<Segment> {
    let mut rng = Rng::new(seed);
    let side = grass_side(n, r);
    (0..n)
        .map(|_| {
            let root = [rng.range_f32(0.0, side), rng.range_f32(0.0, side), 0.0];
            let len = rng.range_f32(1.5 * r, 2.5 * r);
            let lean = rng.range_f32(0.0, core::f32::consts::FRAC_PI_6);
            let turn = rng.range_f32(0.0, core::f32::consts::TAU);
            let d = [lean.sin() * turn.cos(), lean.sin() * turn.sin(), lean.cos()];
            Segment::new(root, core::array::from_fn(|k| root[k] + len * d[k]))
        })
        .collect()
}

/// The grid's worst cases, `n` segments: `collinear` puts them all on the x axis (random
/// lengths and positions over `n·r`), otherwise they are all the same segment.
pub fn degenerate(n: usize, r: f32, collinear: bool, seed: u64) -> Vec<Segment> {
    let mut rng = Rng::new(seed);
    if !collinear {
        return vec![Segment::new([1.0, 2.0, 3.0], [1.0 + r, 2.0, 3.0]); n];
    }
    (0..n)
        .map(|_| {
            let x = rng.range_f32(0.0, n as f32 * r);
            Segment::new([x, 0.0, 0.0], [x + rng.range_f32(0.0, 3.0 * r), 0.0, 0.0])
        })
        .collect()
}

/// `n` wall segments of a city block on a `side × side` floor: horizontal pieces 1-4 units
/// long along x or y, at heights 0-3.
pub fn walls(n: usize, side: f32, seed: u64) -> Vec<Segment> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let (x, y, z) = (
                rng.range_f32(0.0, side),
                rng.range_f32(0.0, side),
                rng.range_f32(0.0, 3.0),
            );
            let len = rng.range_f32(1.0, 4.0);
            if rng.chance(0.5) {
                Segment::new([x, y, z], [x + len, y, z])
            } else {
                Segment::new([x, y, z], [x, y + len, z])
            }
        })
        .collect()
}

/// `n` walls along x (at most 200) whose lengths and gaps grow by 1.5 each, on three rows
/// (`y` = 0, 1, 2): the surface area heuristic splits the largest few off at every level,
/// so a tree over them is more than twice as deep as a balanced one.
pub fn growing_walls(n: usize) -> Vec<Segment> {
    (0..n.min(200) as i32)
        .map(|k| {
            let x = 1.5f32.powi(k);
            let y = (k % 3) as f32;
            Segment::new([x, y, 0.0], [1.5 * x, y, 0.0])
        })
        .collect()
}

/// `n` sight rays over the same floor: origin at eye height inside it, unit direction
/// mostly horizontal (`p0` the origin, `p1 - p0` the direction).
pub fn rays(n: usize, side: f32, seed: u64) -> Vec<Segment> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| {
            let o = [rng.range_f32(0.0, side), rng.range_f32(0.0, side), 1.5];
            let a = rng.range_f32(0.0, core::f32::consts::TAU);
            let dz = rng.range_f32(-0.1, 0.1);
            Segment::new(o, [o[0] + a.cos(), o[1] + a.sin(), o[2] + dz])
        })
        .collect()
}

/// A broad phase's candidate pairs of `set`: its pairs within `2r` (`self_pairs_within`) in
/// a shuffled order, topped up with random pairs, `count` in all. The index-pair workload of
/// `segbatch bench --sets`, `benches/sets.rs` and `benches/examples/set_profile` (on a
/// [`hair`] set of 20K with 200K pairs).
///
/// # Panics
/// When `set` is empty and `count` is not 0 (no pair to make).
pub fn candidate_pairs(set: &Segments, r: f32, count: usize, seed: u64) -> Vec<(u32, u32)> {
    let mut pairs: Vec<(u32, u32)> = self_pairs_within(set, 2.0 * r, SharedEndpoints::Keep)
        .iter()
        .map(|h| (h.i, h.j))
        .collect();
    let mut rng = Rng::new(seed);
    for k in (1..pairs.len()).rev() {
        pairs.swap(k, rng.below(k as u64 + 1) as usize);
    }
    let n = set.len() as u64;
    while pairs.len() < count {
        pairs.push((rng.below(n) as u32, rng.below(n) as u32));
    }
    pairs.truncate(count);
    pairs
}
