//! Closest points of pairs given as array-of-structs rows (`&[Segment]`, e.g. a NumPy
//! `(N, 6)` `float32` array cast with `bytemuck`), and results written into the caller's
//! own slices.
//!
//! The driver stages [`ROW_CHUNK`] pairs at a time: the rows are transposed into an
//! L1-resident buffer of twelve columns and the ordinary group loop runs over it, so the
//! rows are read from memory once, with no batch-sized copy into [`Segments`](crate::Segments).
//! Results are bit for bit those of [`closest_points`](crate::closest_points) on the same
//! segments as columns: the kernel is lane by lane, and where a group is cut does not change
//! any lane.
//!
//! [`ClosestSlices`] names output slices the caller owns (NumPy arrays, a memory map, an
//! engine's buffers): each group is stored straight into them, with no result batch in
//! between.

use super::closest::{Pairwise, drive, pair_columns};
use super::types::{ClosestBatch, Outputs};
use crate::batch::{Error, LANES, SegmentsView, check_len};
use crate::columns::GroupStore;
use crate::driver::{self, Input, PairKernel};
use crate::forms::query_forms;
use crate::kernel::{Lanes, Splat};
use crate::lanes::bytes8;
use crate::segment::{Flags, Options, Segment};

/// Pairs per staged chunk of [`RowPairs`]: twelve columns of 256 values are 12 KiB,
/// resident in L1 between the transposition and the kernel.
const ROW_CHUNK: usize = 256;

const _: () = assert!(ROW_CHUNK.is_multiple_of(LANES));

/// Pairs `(a[k], b[k])` read from rows: the driver's input for [`closest_points_rows`].
#[derive(Clone, Copy)]
struct RowPairs<'a> {
    a: &'a [[f32; 6]],
    b: &'a [[f32; 6]],
}

/// The staging buffer of one side: six columns of [`ROW_CHUNK`] values, as groups.
type Staged = [[[f32; LANES]; ROW_CHUNK / LANES]; 6];

/// Transposes at most [`ROW_CHUNK`] rows into the six columns of `cols` (lanes past the
/// rows keep whatever they held: computed by the kernel, never stored).
///
/// Each value is stored straight into its place in `cols`: transposing eight rows into a
/// temporary first and copying that made every vector load of the copy wait on eight
/// scalar stores (a failed store-to-load forwarding), which tripled the cost of staging.
fn stage(rows: &[[f32; 6]], cols: &mut Staged) {
    let (whole, rest) = rows.as_chunks::<LANES>();
    for (g, group) in whole.iter().enumerate().take(ROW_CHUNK / LANES) {
        for (c, col) in cols.iter_mut().enumerate() {
            col[g] = core::array::from_fn(|l| group[l][c]);
        }
    }
    let g = whole.len();
    for (l, row) in rest.iter().enumerate() {
        for (col, &x) in cols.iter_mut().zip(row) {
            col[g][l] = x;
        }
    }
}

impl Input<12> for RowPairs<'_> {
    fn run<K, S>(self, kernel: &K, n: usize, out: S)
    where
        K: PairKernel<12>,
        S: GroupStore<Lanes = K::Lanes>,
    {
        let mut buf: [Staged; 2] = [[[[0.0f32; LANES]; ROW_CHUNK / LANES]; 6]; 2];
        let mut out = out;
        for (a, b) in self.a[..n]
            .chunks(ROW_CHUNK)
            .zip(self.b[..n].chunks(ROW_CHUNK))
        {
            let [ca, cb] = &mut buf;
            stage(a, ca);
            stage(b, cb);
            let (head, rest) = out.split_at(a.len().div_ceil(LANES));
            let cols: [&[f32]; 12] = core::array::from_fn(|k| buf[k / 6][k % 6].as_flattened());
            driver::run(kernel, cols, a.len(), head);
            out = rest;
        }
    }

    #[cfg(feature = "rayon")]
    fn skip(self, mid: usize) -> Self {
        RowPairs {
            a: &self.a[mid..],
            b: &self.b[mid..],
        }
    }
}

/// Output columns owned by the caller, for [`closest_points_rows_to_slices`] and
/// [`closest_points_to_slices`]: each column given (`Some`) must hold exactly one value per
/// pair and is overwritten; the others are not computed into anything. `point_a` and
/// `point_b` are `[x, y, z]` rows (a NumPy `(N, 3)` array), `flags` one [`Flags`] byte a
/// pair (`bytemuck::cast_slice_mut` from a `&mut [u8]`).
#[derive(Debug, Default)]
pub struct ClosestSlices<'o> {
    /// Squared distances.
    pub dist2: Option<&'o mut [f32]>,
    /// Distances `sqrt(dist2)` (the same bits as `f32::sqrt` of each `dist2`).
    pub distance: Option<&'o mut [f32]>,
    /// Parameters along A.
    pub s: Option<&'o mut [f32]>,
    /// Parameters along B.
    pub t: Option<&'o mut [f32]>,
    /// Closest points on A.
    pub point_a: Option<&'o mut [[f32; 3]]>,
    /// Closest points on B.
    pub point_b: Option<&'o mut [[f32; 3]]>,
    /// Per-pair flags.
    pub flags: Option<&'o mut [Flags]>,
}

impl ClosestSlices<'_> {
    /// `Ok` when every column given has `n` values.
    fn check(&self, n: usize) -> Result<(), Error> {
        let lens = [
            ("out.dist2", self.dist2.as_ref().map(|c| c.len())),
            ("out.distance", self.distance.as_ref().map(|c| c.len())),
            ("out.s", self.s.as_ref().map(|c| c.len())),
            ("out.t", self.t.as_ref().map(|c| c.len())),
            ("out.point_a", self.point_a.as_ref().map(|c| c.len())),
            ("out.point_b", self.point_b.as_ref().map(|c| c.len())),
            ("out.flags", self.flags.as_ref().map(|c| c.len())),
        ];
        for (what, len) in lens {
            if let Some(len) = len {
                check_len(what, n, len)?;
            }
        }
        Ok(())
    }
}

/// Writes lanes `g·8 …` of `values()` into `col`, if given (the last group may be partial).
#[inline(always)]
fn put<T: Copy>(col: &mut Option<&mut [T]>, g: usize, values: impl FnOnce() -> [T; LANES]) {
    if let Some(col) = col {
        let start = g * LANES;
        match col.get_mut(start..start + LANES) {
            // A whole group: one fixed-size store.
            Some(dst) => dst.copy_from_slice(&values()),
            None => {
                let rest = &mut col[start..];
                let n = rest.len();
                rest.copy_from_slice(&values()[..n]);
            }
        }
    }
}

/// Splits a column after `mid` groups (or at its end).
fn cut<T>(col: Option<&mut [T]>, mid: usize) -> (Option<&mut [T]>, Option<&mut [T]>) {
    match col {
        Some(c) => {
            let (lo, hi) = c.split_at_mut((mid * LANES).min(c.len()));
            (Some(lo), Some(hi))
        }
        None => (None, None),
    }
}

/// Eight points from three lane vectors, as rows.
#[inline(always)]
fn point_rows(p: [wide::f32x8; 3]) -> [[f32; 3]; LANES] {
    let [x, y, z] = p.map(|v| v.to_array());
    core::array::from_fn(|l| [x[l], y[l], z[l]])
}

/// The columns of a [`ClosestSlices`] as the driver's store, specialised (like the
/// batch's) on which groups of columns are given, so the kernel's unused results are
/// never computed.
struct SliceStore<'o, const PARAMS: bool, const POINTS: bool, const FLAGS: bool>(ClosestSlices<'o>);

impl<const PARAMS: bool, const POINTS: bool, const FLAGS: bool> GroupStore
    for SliceStore<'_, PARAMS, POINTS, FLAGS>
{
    type Lanes = Lanes;

    #[inline(always)]
    fn store(&mut self, g: usize, lanes: &Lanes) {
        let out = &mut self.0;
        put(&mut out.dist2, g, || lanes.dist2.to_array());
        put(&mut out.distance, g, || lanes.dist2.sqrt().to_array());
        if PARAMS {
            put(&mut out.s, g, || lanes.s.to_array());
            put(&mut out.t, g, || lanes.t.to_array());
        }
        if POINTS {
            put(&mut out.point_a, g, || point_rows(lanes.point_a.to_array()));
            put(&mut out.point_b, g, || point_rows(lanes.point_b.to_array()));
        }
        if FLAGS {
            put(&mut out.flags, g, || {
                bytes8(lanes.flags, Flags::from_bits_truncate)
            });
        }
    }

    fn split_at(self, mid: usize) -> (Self, Self) {
        let c = self.0;
        let (dist2, dist2_hi) = cut(c.dist2, mid);
        let (distance, distance_hi) = cut(c.distance, mid);
        let (s, s_hi) = cut(c.s, mid);
        let (t, t_hi) = cut(c.t, mid);
        let (point_a, point_a_hi) = cut(c.point_a, mid);
        let (point_b, point_b_hi) = cut(c.point_b, mid);
        let (flags, flags_hi) = cut(c.flags, mid);
        (
            SliceStore(ClosestSlices {
                dist2,
                distance,
                s,
                t,
                point_a,
                point_b,
                flags,
            }),
            SliceStore(ClosestSlices {
                dist2: dist2_hi,
                distance: distance_hi,
                s: s_hi,
                t: t_hi,
                point_a: point_a_hi,
                point_b: point_b_hi,
                flags: flags_hi,
            }),
        )
    }
}

/// Runs the pairwise kernel over `input` into `out`, with the store specialised for the
/// columns `out` gives.
fn drive_slices(
    options: &Options,
    input: impl Input<12>,
    n: usize,
    parallel: bool,
    out: ClosestSlices<'_>,
) -> Result<(), Error> {
    out.check(n)?;
    let kernel = kernel(options);
    let params = out.s.is_some() || out.t.is_some();
    let points = out.point_a.is_some() || out.point_b.is_some();
    macro_rules! go {
        ($p:literal, $q:literal, $f:literal) => {{ driver::run_on(parallel, &kernel, input, n, SliceStore::<$p, $q, $f>(out)) }};
    }
    match (params, points, out.flags.is_some()) {
        (false, false, false) => go!(false, false, false),
        (false, false, true) => go!(false, false, true),
        (false, true, false) => go!(false, true, false),
        (false, true, true) => go!(false, true, true),
        (true, false, false) => go!(true, false, false),
        (true, false, true) => go!(true, false, true),
        (true, true, false) => go!(true, true, false),
        (true, true, true) => go!(true, true, true),
    }
    Ok(())
}

/// Both sides' rows, checked to be of equal length.
fn row_pairs<'a>(a: &'a [Segment], b: &'a [Segment]) -> Result<RowPairs<'a>, Error> {
    check_len("batches a and b", a.len(), b.len())?;
    Ok(RowPairs {
        a: bytemuck::cast_slice(a),
        b: bytemuck::cast_slice(b),
    })
}

fn kernel(options: &Options) -> Pairwise {
    Pairwise {
        splat: Splat::new(&options.params()),
    }
}

fn closest_rows(
    a: &[Segment],
    b: &[Segment],
    options: &Options,
    outputs: Outputs,
    parallel: bool,
    out: &mut ClosestBatch,
) -> Result<(), Error> {
    let n = a.len();
    let input = row_pairs(a, b)?;
    drive(&kernel(options), input, n, outputs, parallel, out);
    Ok(())
}

query_forms! {
    /// Closest points of `a[i]` and `b[i]` read from rows: what
    /// [`closest_points`](crate::closest_points) returns for the same segments as
    /// [`Segments`](crate::Segments), bit for bit, without building the batches. The rows
    /// are transposed into lanes a few hundred pairs at a time inside the loop, so they are
    /// read from memory once.
    ///
    /// ```
    /// use segbatch::Segment;
    /// use segbatch::pairs::closest_points_rows;
    /// // Six numbers a segment, e.g. a NumPy (N, 6) float32 array's buffer.
    /// let raw: [f32; 12] = [0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0];
    /// let rows: &[Segment] = bytemuck::cast_slice(&raw);
    /// let other = [Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]); 2];
    /// let out = closest_points_rows(rows, &other);
    /// assert_eq!(out.dist2(), &[1.0, 1.0]);
    /// ```
    pub fn closest_points_rows / closest_points_rows_into
        / par_closest_points_rows / par_closest_points_rows_into
        <'a, 'b>(a: &'a [Segment], b: &'b [Segment])
        with (options: &Options = &Options::SEGMENTS, outputs: Outputs = Outputs::ALL)
        -> ClosestBatch = closest_rows;
    /// The general form of [`closest_points_rows`]: extents and tolerance from `options`,
    /// only the `outputs` columns, the results written into `out` (its buffers reused).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a` and `b` differ in length.
    into;
}

fn rows_to_slices(
    a: &[Segment],
    b: &[Segment],
    options: &Options,
    parallel: bool,
    out: ClosestSlices<'_>,
) -> Result<(), Error> {
    let input = row_pairs(a, b)?;
    drive_slices(options, input, a.len(), parallel, out)
}

fn view_to_slices<'a, 'b>(
    a: SegmentsView<'a>,
    b: SegmentsView<'b>,
    options: &Options,
    parallel: bool,
    out: ClosestSlices<'_>,
) -> Result<(), Error> {
    let (a, b) = (a, b);
    let cols = pair_columns(&a, &b)?;
    drive_slices(options, cols, a.len(), parallel, out)
}

/// Closest points of `a[i]` and `b[i]` read from rows, written into the caller's slices:
/// [`closest_points_rows`] with no result batch (each group of eight is stored straight
/// into `out`'s columns; columns left `None` are not written).
///
/// ```
/// use segbatch::{Options, Segment};
/// use segbatch::pairs::{closest_points_rows_to_slices, ClosestSlices};
/// let a = [Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])];
/// let b = [Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0])];
/// let (mut distance, mut point_b) = ([0.0f32; 1], [[0.0f32; 3]; 1]);
/// let out = ClosestSlices { distance: Some(&mut distance), point_b: Some(&mut point_b), ..Default::default() };
/// closest_points_rows_to_slices(&a, &b, &Options::SEGMENTS, out)?;
/// assert_eq!((distance, point_b), ([1.0], [[1.0, 1.0, 0.0]]));
/// # Ok::<(), segbatch::Error>(())
/// ```
///
/// # Errors
/// [`Error::LengthMismatch`] when `a` and `b` differ in length or a column of `out` does not
/// have one value per pair (nothing is written then).
pub fn closest_points_rows_to_slices(
    a: &[Segment],
    b: &[Segment],
    options: &Options,
    out: ClosestSlices<'_>,
) -> Result<(), Error> {
    rows_to_slices(a, b, options, false, out)
}

/// [`closest_points_rows_to_slices`] on all cores, bitwise the same results.
///
/// # Errors
/// As [`closest_points_rows_to_slices`].
#[cfg(feature = "rayon")]
pub fn par_closest_points_rows_to_slices(
    a: &[Segment],
    b: &[Segment],
    options: &Options,
    out: ClosestSlices<'_>,
) -> Result<(), Error> {
    rows_to_slices(a, b, options, true, out)
}

/// [`closest_points`](crate::closest_points) of batches (or views), written into the
/// caller's slices: each group of eight is stored straight into `out`'s columns.
///
/// # Errors
/// As [`closest_points_rows_to_slices`].
pub fn closest_points_to_slices<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    out: ClosestSlices<'_>,
) -> Result<(), Error> {
    view_to_slices(a.into(), b.into(), options, false, out)
}

/// [`closest_points_to_slices`] on all cores, bitwise the same results.
///
/// # Errors
/// As [`closest_points_rows_to_slices`].
#[cfg(feature = "rayon")]
pub fn par_closest_points_to_slices<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    out: ClosestSlices<'_>,
) -> Result<(), Error> {
    view_to_slices(a.into(), b.into(), options, true, out)
}
