//! The batched 2D forms: the kernel run over SoA batches and index pairs by the driver.

use super::kernel::{Lanes2, intersect8, intersect8_general};
use super::types::{Crossing, Intersection2, Segment2};
use crate::batch::SoaView;
use crate::batch::{Error, check_len, check_pairs};
use crate::columns::{GroupStore, SplitColumns, result_batch};
use crate::driver::{self, Gathered, PairKernel, Rows};
use crate::forms::query_forms;
use crate::lanes::V2;
use crate::motion::types::MotionFlags;
use wide::f32x8;

result_batch! {
    /// Intersections (or closest points) for a batch of 2D pairs, stored as columns.
    ///
    /// Reuse one across calls to [`intersect2_into`]: buffers grow and are never shrunk.
    pub struct Intersections2(Intersection2) stored as Out2 {
        columns {
            /// How each pair meets, exactly `len()` values.
            kind: Crossing,
            /// Parameters on A (see [`Intersection2::s`]), exactly `len()` values.
            s: f32,
            /// Parameters on B, exactly `len()` values.
            t: f32,
            /// Ends of the overlaps on A (equal to `s` unless `Overlap`).
            s_end: f32,
            /// Ends of the overlaps on B (equal to `t` unless `Overlap`).
            t_end: f32,
            /// Closest squared distances, exactly `len()` values.
            dist2: f32,
            /// Per-pair flags, exactly `len()` values.
            flags: MotionFlags,
        }
        points {
            /// Points on A, `[x, y]` columns of `len()` values.
            point_a: 2,
            /// Points on B, `[x, y]` columns of `len()` values.
            point_b: 2,
        }
    }
}

impl GroupStore for Out2<'_, { crate::LANES }> {
    type Lanes = Lanes2;
    #[inline(always)]
    fn store(&mut self, g: usize, lanes: &Lanes2) {
        self.kind[g] = lanes.kind;
        self.s[g] = lanes.s.to_array();
        self.t[g] = lanes.t.to_array();
        self.s_end[g] = lanes.s_end.to_array();
        self.t_end[g] = lanes.t_end.to_array();
        self.dist2[g] = lanes.dist2.to_array();
        self.point_a[0][g] = lanes.point_a.x.to_array();
        self.point_a[1][g] = lanes.point_a.y.to_array();
        self.point_b[0][g] = lanes.point_b.x.to_array();
        self.point_b[1][g] = lanes.point_b.y.to_array();
        self.flags[g] = lanes.flags;
    }
    #[inline(always)]
    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_columns(mid)
    }
}

/// 2D pairs: eight input columns (A's four, then B's).
struct Intersect2;

impl Intersect2 {
    /// The four points of a group (columns `a0 a1 b0 b1`, x y each).
    #[inline(always)]
    fn points(c: &[f32x8; 8]) -> (V2, V2, V2, V2) {
        let v = |k| V2::at_column(c, k);
        (v(0), v(2), v(4), v(6))
    }
}

impl PairKernel<8> for Intersect2 {
    type Lanes = Lanes2;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [f32x8; 8]) -> Option<Lanes2> {
        let (a0, a1, b0, b1) = Self::points(&load());
        intersect8_general(a0, a1, b0, b1)
    }
    #[inline(always)]
    fn masked(&self, x: [f32x8; 8]) -> Lanes2 {
        let (a0, a1, b0, b1) = Self::points(&x);
        intersect8(a0, a1, b0, b1)
    }
}

fn run<'a, 'b>(
    a: SoaView<'a, Segment2, 4>,
    b: SoaView<'b, Segment2, 4>,
    parallel: bool,
    out: &mut Intersections2,
) -> Result<(), Error> {
    check_len("2D batches a and b", a.len(), b.len())?;
    let n = a.len();
    out.reset(n, |_| true);
    let (ac, bc) = (a.raw_columns(), b.raw_columns());
    let cols: [&[f32]; 8] = core::array::from_fn(|k| if k < 4 { ac[k] } else { bc[k - 4] });
    driver::run_on(parallel, &Intersect2, cols, n, out.out());
    Ok(())
}

query_forms! {
    /// Intersection (or closest points) of `a[i]` and `b[i]` for every `i` (batched twin of
    /// [`reference::intersect2`](crate::reference::intersect2), bit-identical to it).
    ///
    /// ```
    /// use segbatch::planar::{intersect2, Crossing, Segment2, Segments2};
    /// let a = Segments2::from(&[
    ///     Segment2::new([4.0, 7.0], [16.0, 3.0]),
    ///     Segment2::new([0.0, 0.0], [2.0, 0.0]),
    /// ]);
    /// let b = Segments2::from(&[
    ///     Segment2::new([1.0, 1.0], [17.0, 5.0]),
    ///     Segment2::new([1.0, 0.0], [3.0, 0.0]), // collinear, overlapping on [1, 2]
    /// ]);
    /// let out = intersect2(&a, &b);
    /// assert_eq!(out.kind(), &[Crossing::Point, Crossing::Overlap]);
    /// assert_eq!(out.get(0).map(|x| x.point_a), Some([13.0, 4.0]));
    /// assert_eq!((out.s()[1], out.s_end()[1]), (0.5, 1.0));
    /// ```
    pub fn intersect2 / intersect2_into / par_intersect2 / par_intersect2_into
        <'a, 'b>(a: impl Into<SoaView<'a, Segment2, 4>>, b: impl Into<SoaView<'b, Segment2, 4>>)
        with ()
        -> Intersections2 = run;
    /// [`intersect2`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a` and `b` differ in length (`out` is then
    /// unchanged).
    into;
}

fn run_indexed<'a, 'b, 'p>(
    a: SoaView<'a, Segment2, 4>,
    b: SoaView<'b, Segment2, 4>,
    pairs: &'p [(u32, u32)],
    parallel: bool,
    out: &mut Intersections2,
) -> Result<(), Error> {
    check_pairs(pairs, a.len(), b.len())?;
    let n = pairs.len();
    out.reset(n, |_| true);
    let rows = Rows::new(a.columns(), b.columns(), n);
    let input = Gathered {
        a: a.columns(),
        b: b.columns(),
        pairs,
        rows: rows.as_ref().map(Rows::get),
    };
    driver::run_on(parallel, &Intersect2, input, n, out.out());
    Ok(())
}

query_forms! {
    /// Intersection (or closest points) of `a[i]` and `b[j]` for every index pair
    /// `(i, j)` of `pairs`, in order: result `k` is exactly what [`intersect2`] gives for
    /// the pair `(a[i], b[j])`, the lanes gathered straight from the columns.
    ///
    /// ```
    /// use segbatch::planar::{intersect2_indexed, Crossing, Segment2, Segments2};
    /// let set = Segments2::from(&[
    ///     Segment2::new([0.0, 0.0], [4.0, 0.0]),
    ///     Segment2::new([1.0, -1.0], [1.0, 1.0]),
    ///     Segment2::new([0.0, 3.0], [4.0, 3.0]),
    /// ]);
    /// let out = intersect2_indexed(&set, &set, &[(0, 1), (0, 2)]);
    /// assert_eq!(out.kind(), &[Crossing::Point, Crossing::Disjoint]);
    /// assert_eq!(out.s()[0], 0.25);
    /// ```
    pub fn intersect2_indexed / intersect2_indexed_into / par_intersect2_indexed / par_intersect2_indexed_into
        <'a, 'b, 'p>(a: impl Into<SoaView<'a, Segment2, 4>>, b: impl Into<SoaView<'b, Segment2, 4>>, pairs: &'p [(u32, u32)])
        with ()
        -> Intersections2 = run_indexed;
    /// [`intersect2_indexed`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for the first pair naming an element past the end of its
    /// set (`out` is then unchanged).
    into;
}
