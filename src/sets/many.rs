//! Every A against every B: a dense matrix of squared distances (`f32` or `f64`), or the
//! sparse list of the pairs within a radius by brute force over tiles (the radius queries
//! where the grid does not apply), in either precision.

use super::element::{SetElement, Tiles};
use super::hits::{
    Hit, Hit64, Spheres, TILE_A, TILE_B, push_hits, spheres, within_bits, within_wide,
};
use super::radius::{PairRadius, within64};
use crate::batch::{Error, SegmentsView};
use crate::columns::{LANES, padded_len};
use crate::driver::Side;
use crate::forms::query_forms;
use crate::kernel::{self, Lanes, Splat};
use crate::lanes::V3;
use crate::pairs::{ClosestBatch64, Element, Outputs, closest_points_one_to_many_into};
use crate::prune::lane_bits;
use crate::prune::{MAX_BLOCK_HITS, each_bit, ordered};
use crate::segment::{Flags, Options};
use core::ops::Range;
use wide::f32x8;

query_forms! {
    /// The squared distance of every `a[i]` to every `b[j]`, row-major (entry
    /// `i·b.len() + j`), segment against segment, in the precision of the batches (`f32`,
    /// or `f64` on [`Segments64`](crate::Segments64): entry `(i, j)` is then
    /// `reference::closest_points(&a[i], &b[j]).dist2`, bit for bit).
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// use segbatch::sets::dist2_matrix;
    /// let a = Segments::from(&[
    ///     Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
    ///     Segment::new([0.0, 3.0, 0.0], [1.0, 3.0, 0.0]),
    /// ]);
    /// let b = Segments::from(&[
    ///     Segment::new([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]),
    ///     Segment::new([0.0, 2.0, 0.0], [1.0, 2.0, 0.0]),
    ///     Segment::new([0.0, 5.0, 0.0], [1.0, 5.0, 0.0]),
    /// ]);
    /// let m = dist2_matrix(&a, &b);
    /// assert_eq!(m, vec![1.0, 4.0, 25.0,
    ///                    4.0, 1.0, 4.0]);
    /// ```
    pub fn dist2_matrix / dist2_matrix_into / par_dist2_matrix / par_dist2_matrix_into
        <'a, 'b; E: Element>(a: impl Into<SegmentsView<'a, E>>, b: impl Into<SegmentsView<'b, E>>)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<E> = matrix;
    /// The general form of [`dist2_matrix`]: extents and tolerance from `options`, the
    /// matrix written into `out`, resized to `a.len()·b.len()` (allocation reused, grown
    /// with `try_reserve`). The parallel forms hand out blocks of
    /// [`TILE_A`] rows above [`PAR_MIN_PAIR_TESTS`](crate::pairs::PAR_MIN_PAIR_TESTS)
    /// entries.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the `a.len()·b.len()` entries cannot be allocated (their
    /// count or size overflows, or the allocator refuses them): `out` is then empty, and
    /// nothing was computed. The pairs within a radius
    /// ([`for_each_pair_within`](crate::sets::for_each_pair_within)) need no such matrix.
    ///
    /// ```
    /// use segbatch::{Error, Options, SegmentsView};
    /// use segbatch::sets::dist2_matrix_into;
    /// // 2^23 points (one column serves all six coordinates): their matrix would take
    /// // 2^48 bytes, more than any process can map.
    /// let column = vec![0.0f32; 1 << 23];
    /// let points = SegmentsView::from_columns([&column[..]; 6])?;
    /// let mut out = vec![1.0f32; 4];
    /// let refused = dist2_matrix_into(points, points, &Options::SEGMENTS, &mut out);
    /// assert_eq!(refused, Err(Error::OutOfMemory { what: "dist2_matrix output", elements: 1 << 46 }));
    /// assert!(out.is_empty());
    /// # Ok::<(), Error>(())
    /// ```
    into;
}

/// The matrix into `out`, sequentially or (when `parallel`, above
/// [`PAR_MIN_PAIR_TESTS`](crate::pairs::PAR_MIN_PAIR_TESTS)) in blocks of rows on all cores.
fn matrix<E: Element>(
    a: SegmentsView<'_, E>,
    b: SegmentsView<'_, E>,
    options: &Options,
    parallel: bool,
    out: &mut Vec<E>,
) -> Result<(), Error> {
    let (na, nb) = (a.len(), b.len());
    size_matrix(out, na, nb, "dist2_matrix output")?;
    let rows =
        |rows: Range<usize>, chunk: &mut [E]| E::dist2_rows(a, b, rows, TILE_B, options, chunk);
    fill_rows((na, nb), parallel, out, rows);
    Ok(())
}

fn size_matrix<T: Copy + Default>(
    out: &mut Vec<T>,
    na: usize,
    nb: usize,
    what: &'static str,
) -> Result<(), Error> {
    let refuse = |elements| Error::OutOfMemory { what, elements };
    let len = na.checked_mul(nb).ok_or_else(|| {
        out.clear();
        refuse(usize::MAX)
    })?;
    if let Some(more) = len.checked_sub(out.len())
        && out.try_reserve_exact(more).is_err()
    {
        out.clear();
        return Err(refuse(len));
    }
    out.resize(len, T::default());
    Ok(())
}

/// Every row of an `na × nb` matrix `out` by `rows(range, entries)` (the entries of exactly
/// those rows): in one call, or (when `parallel`, at least two rows and
/// [`PAR_MIN_PAIR_TESTS`](crate::pairs::PAR_MIN_PAIR_TESTS) entries) in blocks of
/// [`TILE_A`] rows on all cores.
fn fill_rows<T: Send>(
    (na, nb): (usize, usize),
    parallel: bool,
    out: &mut [T],
    rows: impl Fn(Range<usize>, &mut [T]) + Sync,
) {
    #[cfg(feature = "rayon")]
    if parallel && na >= 2 && na.saturating_mul(nb) >= crate::driver::PAR_MIN_PAIR_TESTS {
        use rayon::prelude::*;
        let rows_per_task = TILE_A.min(na.div_ceil(2));
        out.par_chunks_mut(rows_per_task * nb)
            .enumerate()
            .for_each(|(k, chunk)| {
                let r0 = k * rows_per_task;
                let r1 = (r0 + rows_per_task).min(na);
                rows(r0..r1, chunk);
            });
        return;
    }
    let _ = (parallel, nb);
    rows(0..na, out);
}

/// Columns of B per block of the brute-force radius queries: a block of [`TILE_A`] rows by
/// this many columns holds at most [`MAX_BLOCK_HITS`] hits.
const BRUTE_COLS: usize = MAX_BLOCK_HITS / TILE_A;

const _: () = assert!(BRUTE_COLS.is_multiple_of(TILE_B));

impl<'v, E: SetElement> Tiles<'v, E> {
    /// The tiles of `a` against `b` (or of `a` with itself).
    pub(crate) fn new(
        a: SegmentsView<'v, E>,
        b: Option<SegmentsView<'v, E>>,
        radius: PairRadius<'v, E>,
        skip_shared: bool,
        options: &'v Options,
    ) -> Self {
        let prep = E::tile_prep(a, b, radius, options);
        Tiles {
            a,
            b: b.unwrap_or(a),
            options,
            radius,
            upper: b.is_none(),
            skip_shared,
            prep,
        }
    }

    /// Every hit, in blocks of at most [`MAX_BLOCK_HITS`]: blocks of [`TILE_A`] rows in
    /// order, each cut into runs of [`BRUTE_COLS`] columns, each block sorted by `(i, j)`;
    /// made by `finish` and handed to `sink` as [`crate::prune::ordered`] does (on all
    /// cores when `parallel` and there are at least
    /// [`PAR_MIN_PAIR_TESTS`](crate::pairs::PAR_MIN_PAIR_TESTS) pair tests: the same
    /// blocks). The units of work are the blocks of rows, cut into 16 runs of columns when
    /// there are fewer than 16 of them (one ray against a long batch still splits).
    pub(crate) fn each<B: Send>(
        &self,
        parallel: bool,
        finish: impl Fn(&[Hit<E>]) -> B + Sync,
        sink: impl FnMut(B) -> bool,
    ) {
        let (na, nb) = (self.a.len(), self.b.len());
        let row_blocks = na.div_ceil(TILE_A);
        let col_units = if row_blocks >= 16 { 1 } else { 16 };
        let unit_cols = nb.div_ceil(col_units).div_ceil(BRUTE_COLS).max(1) * BRUTE_COLS;
        let block =
            |unit: usize, buf: &mut Vec<Hit<E>>, emit: &mut dyn FnMut(&[Hit<E>]) -> bool| {
                let (r, c) = (unit / col_units, unit % col_units);
                let rows = r * TILE_A..((r + 1) * TILE_A).min(na);
                // A set against itself: only the columns past the block's first row.
                let first = if self.upper {
                    (rows.start + 1) / BRUTE_COLS * BRUTE_COLS
                } else {
                    0
                };
                let end = ((c + 1) * unit_cols).min(nb);
                for c in (first.max(c * unit_cols)..end).step_by(BRUTE_COLS) {
                    buf.clear();
                    E::rect(self, rows.clone(), c..(c + BRUTE_COLS).min(nb), buf);
                    buf.sort_unstable_by_key(|h| (h.i, h.j));
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
        ordered(
            row_blocks * col_units,
            parallel,
            Vec::new,
            block,
            finish,
            sink,
        );
    }
}

/// What the `f32` tiles compute once a query: the prefilter's bounding spheres, B's radii
/// padded to whole groups, the kernel's constants and the radius, splat.
pub struct TilePrep32 {
    /// Bounding spheres of A and (of two sets) B when the prefilter applies.
    spheres: Option<(Spheres, Option<Spheres>)>,
    /// B's own radii padded to whole groups (empty with one radius for every pair).
    b_radii: Vec<f32>,
    splat: Splat,
    /// The radius of every pair, splat (`0` with per-object radii).
    uniform: f32x8,
}

impl TilePrep32 {
    /// The prefilter (for segments with one radius for every pair) and B's radii.
    pub(crate) fn new(
        a: SegmentsView<'_>,
        b: Option<SegmentsView<'_>>,
        radius: PairRadius<'_>,
        options: &Options,
    ) -> Self {
        let uniform = radius.uniform();
        let prefilter = |v| uniform.and_then(|_| spheres(v, options));
        let spheres = prefilter(a).map(|sa| (sa, b.and_then(prefilter)));
        let nb_all = b.map_or(a.len(), |b| b.len());
        let b_radii: Vec<f32> = match uniform {
            Some(_) => Vec::new(),
            None => (0..padded_len(nb_all))
                .map(|j| if j < nb_all { radius.of_b(j) } else { 0.0 })
                .collect(),
        };
        TilePrep32 {
            spheres,
            b_radii,
            splat: Splat::new(&options.params()),
            uniform: f32x8::splat(uniform.unwrap_or(0.0)),
        }
    }
}

/// Lanes where A and B share an end point (coordinates equal with `==`).
#[inline(always)]
fn shared_bits(a0: V3, a1: V3, b0: V3, b1: V3) -> u32 {
    let eq = |p: V3, q: V3| p.x.simd_eq(q.x) & p.y.simd_eq(q.y) & p.z.simd_eq(q.z);
    (eq(a0, b0) | eq(a0, b1) | eq(a1, b0) | eq(a1, b1)).to_bitmask()
}

/// The `f32` tile: appends the hits of rows `rows` × columns `cols` to `out`, in tile
/// order. One A segment is broadcast to the eight lanes against B eight at a time, groups
/// whose bounding spheres are all too far apart skipped.
pub(crate) fn rect32(
    tiles: &Tiles<'_, f32>,
    rows: Range<usize>,
    cols: Range<usize>,
    out: &mut Vec<Hit>,
) {
    let prep = &tiles.prep;
    let (a, b) = (Side::new(tiles.a), Side::new(tiles.b));
    let spheres = prep
        .spheres
        .as_ref()
        .map(|(sa, sb)| (sa, sb.as_ref().unwrap_or(sa)));
    let first = cols.start / LANES * LANES;
    for bb in (first..cols.end).step_by(TILE_B) {
        let bend = (bb + TILE_B).min(cols.end);
        for i in rows.clone() {
            let lo = if tiles.upper {
                cols.start.max(i + 1)
            } else {
                cols.start
            };
            if lo >= bend {
                // Upper triangle: this row and every later one are done with the block.
                if tiles.upper {
                    break;
                }
                continue;
            }
            let (a0, a1) = a.splat(i);
            let sphere = spheres.map(|(sa, sb)| (sa.splat(i), sb));
            let mut j = bb.max(lo / LANES * LANES);
            while j < bend {
                let valid = lane_bits(lo, bend, j);
                let candidates = match sphere {
                    Some((me, sb)) => valid & sb.near_bits(j, &me, prep.uniform),
                    None => valid,
                };
                if candidates != 0 {
                    let (b0, b1) = b.load(j);
                    let lanes = kernel::closest_lanes(a0, a1, b0, b1, &prep.splat);
                    let r = lane_radii(tiles, i, j);
                    let mut hits = within_bits(&lanes, r * r) & valid;
                    let wide = out_of_range_bits(&lanes) & valid;
                    if wide != 0 {
                        hits = decide_wide(tiles, i, j, wide, hits, &lanes);
                    }
                    if tiles.skip_shared && hits != 0 {
                        hits &= !shared_bits(a0, a1, b0, b1);
                    }
                    push_hits(out, i, j, hits, &lanes);
                }
                j += LANES;
            }
        }
    }
}

/// The radii of row `i` against the group at `j`: the query's, or `rI + rJ` (in `f32`,
/// as [`PairRadius::of`]).
#[inline(always)]
fn lane_radii(tiles: &Tiles<'_, f32>, i: usize, j: usize) -> f32x8 {
    match tiles.radius {
        PairRadius::All(_) => tiles.prep.uniform,
        PairRadius::Sum { .. } => {
            let rb: [f32; LANES] = tiles.prep.b_radii[j..j + LANES]
                .try_into()
                .expect("8 radii");
            f32x8::splat(tiles.radius.of_a(i)) + f32x8::from(rb)
        }
    }
}

/// `hits` with the lanes `wide` (flagged [`Flags::DIST2_OUT_OF_RANGE`]) decided again
/// in `f64` ([`within_wide`]): row `i` against the group at `j`.
#[cold]
fn decide_wide(
    tiles: &Tiles<'_, f32>,
    i: usize,
    j: usize,
    wide: u32,
    mut hits: u32,
    lanes: &Lanes,
) -> u32 {
    let (s, t) = (lanes.s.to_array(), lanes.t.to_array());
    let a = tiles.a.at(i);
    each_bit(j, wide, |q| {
        let k = q as usize - j;
        let radius = tiles.radius.of(i, q as usize);
        let within = within_wide(&a, &tiles.b.at(q as usize), s[k], t[k], radius);
        hits = (hits & !(1 << k)) | (u32::from(within) << k);
    });
    hits
}

/// Lanes flagged [`Flags::DIST2_OUT_OF_RANGE`], as bits.
#[inline(always)]
fn out_of_range_bits(lanes: &Lanes) -> u32 {
    let shift = Flags::DIST2_OUT_OF_RANGE.bits().leading_zeros() + 24;
    (lanes.flags << shift).to_bitmask()
}

/// The `f64` tile: appends the hits of rows `rows` × columns `cols` to `out`, in tile
/// order. Each row against a tile of [`TILE_B`] segments of B through the driver's
/// one-to-many loop over the `f64` lane type, into a scratch batch that stays in L1.
pub(crate) fn rect64(
    tiles: &Tiles<'_, f64>,
    rows: Range<usize>,
    cols: Range<usize>,
    out: &mut Vec<Hit64>,
) {
    let mut scratch = ClosestBatch64::new();
    for bb in cols.clone().step_by(TILE_B) {
        let bend = (bb + TILE_B).min(cols.end);
        for i in rows.clone() {
            let lo = if tiles.upper { bb.max(i + 1) } else { bb };
            if lo >= bend {
                continue;
            }
            let one = tiles.a.get(i).expect("a row of A");
            let tile = tiles.b.view(lo..bend);
            closest_points_one_to_many_into(
                &one,
                tile,
                tiles.options,
                Outputs::PARAMS,
                &mut scratch,
            )
            .expect("one-to-many takes every input");
            let (s, t) = (scratch.s(), scratch.t());
            for (k, &dist2) in scratch.dist2().iter().enumerate() {
                let pair = || (one, tile.at(k), s[k], t[k]);
                if within64(dist2, tiles.radius.of(i, lo + k), pair)
                    && !(tiles.skip_shared && shares(&one, &tile.at(k)))
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
}

/// True when an end point of `a` equals one of `b` (all three coordinates equal with
/// `==`), in either precision: the test of [`SharedEndpoints::Skip`](super::SharedEndpoints::Skip).
pub(crate) fn shares<S: Copy + Into<[[E; 3]; 2]>, E: PartialEq>(a: &S, b: &S) -> bool {
    let ([a0, a1], [b0, b1]) = ((*a).into(), (*b).into());
    [a0, a1].iter().any(|p| *p == b0 || *p == b1)
}
