//! Closest points of pairs of sides: `a[i]` against `b[i]`, or one side against a batch.
//!
//! The lane math is the kernel's ([`crate::kernel`]); this file only says which input
//! columns make a pair (twelve: A's six then B's six; or B's six against one broadcast A),
//! which output columns the caller asked for ([`Outputs`]), and hands both to the driver.
//! The store is specialised per output selection (const generics), so each selection's
//! loop stores straight-line code with no test per column.

use crate::batch::{Error, SegmentsView, check_len};
use crate::columns::{GroupStore, result_batch, split_groups};
use crate::driver::{self, Input, PairKernel, PairKernel16};
use crate::forms::query_forms;
use crate::kernel::{Lanes, Splat, closest8_general, closest8_masked};
use crate::lanes::{Lane, V3, bytes8};
use crate::segment::{Closest, Flags, Options, Segment};
use wide::{f32x8, f32x16};

/// Which result columns to compute and store.
///
/// The squared distance is always stored. At large batch sizes the bytes written are the
/// cost (a pair reads 48 bytes; all columns write 44 more), so ask only for what you use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outputs {
    /// Store the parameters `s` and `t`.
    pub params: bool,
    /// Store the closest points on A and B.
    pub points: bool,
    /// Store the per-pair [`Flags`].
    pub flags: bool,
}

impl Outputs {
    /// Squared distance only (4 bytes per pair).
    pub const DISTANCE: Outputs = Outputs {
        params: false,
        points: false,
        flags: false,
    };
    /// Squared distance, `s`, `t` and flags (13 bytes per pair).
    pub const PARAMS: Outputs = Outputs {
        params: true,
        points: false,
        flags: true,
    };
    /// Every column (37 bytes per pair).
    pub const ALL: Outputs = Outputs {
        params: true,
        points: true,
        flags: true,
    };

    /// Bytes written per pair for this selection.
    #[must_use]
    pub const fn bytes_per_pair(self) -> usize {
        4 + if self.params { 8 } else { 0 }
            + if self.points { 24 } else { 0 }
            + if self.flags { 1 } else { 0 }
    }

    /// True when the column named `name` (of [`ClosestBatch`]) is selected.
    fn keeps(self, name: &str) -> bool {
        match name {
            "s" | "t" => self.params,
            "point_a" | "point_b" => self.points,
            "flags" => self.flags,
            _ => true,
        }
    }
}

impl Default for Outputs {
    fn default() -> Self {
        Outputs::ALL
    }
}

result_batch! {
    /// Closest points for a batch of pairs, stored as columns.
    ///
    /// Reuse one `ClosestBatch` across calls to [`closest_points_into`]: its buffers grow to
    /// the largest batch seen and are never shrunk, so a steady-state loop does not
    /// allocate. Columns that were not selected ([`Outputs`]) are empty.
    pub struct ClosestBatch(Closest) stored as ClosestOut {
        columns {
            /// Parameters along A, exactly `len()` values (empty without [`Outputs::params`]).
            s: f32,
            /// Parameters along B, exactly `len()` values (empty without [`Outputs::params`]).
            t: f32,
            /// Squared distances, exactly `len()` values.
            dist2: f32,
            /// Per-pair flags, exactly `len()` values (empty without [`Outputs::flags`]).
            flags: Flags,
        }
        points {
            /// Closest points on A as `[x, y, z]` columns (empty without [`Outputs::points`]).
            point_a: 3,
            /// Closest points on B as `[x, y, z]` columns (empty without [`Outputs::points`]).
            point_b: 3,
        }
    }
}

impl ClosestBatch {
    /// The distances `sqrt(dist2)`, computed on demand.
    pub fn distances(&self) -> impl ExactSizeIterator<Item = f32> + '_ {
        self.dist2().iter().map(|d| d.sqrt())
    }
}

/// The selected columns of a [`ClosestBatch`]: the others are empty and never touched.
struct Selected<'a, const PARAMS: bool, const POINTS: bool, const FLAGS: bool>(ClosestOut<'a>);

impl<const PARAMS: bool, const POINTS: bool, const FLAGS: bool> GroupStore
    for Selected<'_, PARAMS, POINTS, FLAGS>
{
    type Lanes = Lanes;

    #[inline(always)]
    fn store(&mut self, g: usize, lanes: &Lanes) {
        let out = &mut self.0;
        out.dist2[g] = lanes.dist2.to_array();
        if PARAMS {
            out.s[g] = lanes.s.to_array();
            out.t[g] = lanes.t.to_array();
        }
        if POINTS {
            let (pa, pb) = (lanes.point_a.to_array(), lanes.point_b.to_array());
            for k in 0..3 {
                out.point_a[k][g] = pa[k].to_array();
                out.point_b[k][g] = pb[k].to_array();
            }
        }
        if FLAGS {
            // Only the four flag bits are ever set.
            out.flags[g] = bytes8(lanes.flags, Flags::from_bits_truncate);
        }
    }

    #[inline(always)]
    fn split_at(self, mid: usize) -> (Self, Self) {
        let ClosestOut {
            s,
            t,
            dist2,
            flags,
            point_a,
            point_b,
        } = self.0;
        /// The column split when selected; an unselected column is empty.
        fn pick<T>(
            col: &mut [[T; crate::LANES]],
            mid: usize,
            on: bool,
        ) -> (&mut [[T; crate::LANES]], &mut [[T; crate::LANES]]) {
            if on {
                split_groups(col, mid)
            } else {
                (&mut [], &mut [])
            }
        }
        let (s, t) = (pick(s, mid, PARAMS), pick(t, mid, PARAMS));
        let dist2 = split_groups(dist2, mid);
        let flags = pick(flags, mid, FLAGS);
        let [pax, pay, paz] = point_a.map(|c| pick(c, mid, POINTS));
        let [pbx, pby, pbz] = point_b.map(|c| pick(c, mid, POINTS));
        (
            Selected(ClosestOut {
                s: s.0,
                t: t.0,
                dist2: dist2.0,
                flags: flags.0,
                point_a: [pax.0, pay.0, paz.0],
                point_b: [pbx.0, pby.0, pbz.0],
            }),
            Selected(ClosestOut {
                s: s.1,
                t: t.1,
                dist2: dist2.1,
                flags: flags.1,
                point_a: [pax.1, pay.1, paz.1],
                point_b: [pbx.1, pby.1, pbz.1],
            }),
        )
    }
}

/// Four points from twelve lane vectors (`a0 a1 b0 b1`, x y z each).
#[inline(always)]
fn points<L: Lane>(c: &[L; 12]) -> (V3<L>, V3<L>, V3<L>, V3<L>) {
    let v = |k| V3::at_column(c, k);
    (v(0), v(3), v(6), v(9))
}

/// `a[i]` against `b[i]`: twelve input columns.
pub(super) struct Pairwise {
    pub(super) splat: Splat,
}

impl PairKernel<12> for Pairwise {
    type Lanes = Lanes;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [f32x8; 12]) -> Option<Lanes> {
        let (a0, a1, b0, b1) = points(&load());
        closest8_general::<_, false>(a0, a1, b0, b1, &self.splat)
    }
    const SPECIAL: bool = true;
    #[inline(always)]
    fn special(&self, load: impl Fn() -> [f32x8; 12]) -> Option<Lanes> {
        let (a0, a1, b0, b1) = points(&load());
        closest8_general::<_, true>(a0, a1, b0, b1, &self.splat)
    }
    #[inline(always)]
    fn masked(&self, x: [f32x8; 12]) -> Lanes {
        let (a0, a1, b0, b1) = points(&x);
        closest8_masked(a0, a1, b0, b1, &self.splat)
    }
}

/// `a[i]` against `b[i]`, sixteen lanes at a time.
struct Pairwise16 {
    splat: Splat<f32x16>,
}

impl PairKernel16<12> for Pairwise16 {
    type Half = Lanes;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [f32x16; 12]) -> Option<[Lanes; 2]> {
        let (a0, a1, b0, b1) = points(&load());
        closest8_general::<_, false>(a0, a1, b0, b1, &self.splat).map(Lanes::halves)
    }
    const SPECIAL: bool = true;
    #[inline(always)]
    fn special(&self, load: impl Fn() -> [f32x16; 12]) -> Option<[Lanes; 2]> {
        let (a0, a1, b0, b1) = points(&load());
        closest8_general::<_, true>(a0, a1, b0, b1, &self.splat).map(Lanes::halves)
    }
    #[inline(always)]
    fn masked(&self, x: [f32x16; 12]) -> [Lanes; 2] {
        let (a0, a1, b0, b1) = points(&x);
        closest8_masked(a0, a1, b0, b1, &self.splat).halves()
    }
}

/// One side A, broadcast to every lane, against `many[j]`: six input columns.
struct OneToMany {
    a0: V3,
    a1: V3,
    splat: Splat,
}

impl PairKernel<6> for OneToMany {
    type Lanes = Lanes;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [f32x8; 6]) -> Option<Lanes> {
        let x = load();
        let (b0, b1) = (V3::at_column(&x, 0), V3::at_column(&x, 3));
        closest8_general::<_, false>(self.a0, self.a1, b0, b1, &self.splat)
    }
    const SPECIAL: bool = true;
    #[inline(always)]
    fn special(&self, load: impl Fn() -> [f32x8; 6]) -> Option<Lanes> {
        let x = load();
        let (b0, b1) = (V3::at_column(&x, 0), V3::at_column(&x, 3));
        closest8_general::<_, true>(self.a0, self.a1, b0, b1, &self.splat)
    }
    #[inline(always)]
    fn masked(&self, x: [f32x8; 6]) -> Lanes {
        let (b0, b1) = (V3::at_column(&x, 0), V3::at_column(&x, 3));
        closest8_masked(self.a0, self.a1, b0, b1, &self.splat)
    }
}

/// Calls `$go!(Selected::<PARAMS, POINTS, FLAGS>(columns))` with the store specialised
/// for `outputs`.
macro_rules! with_store {
    ($outputs:expr, $columns:expr, $go:ident) => {
        match ($outputs.params, $outputs.points, $outputs.flags) {
            (false, false, false) => $go!(Selected::<false, false, false>($columns)),
            (false, false, true) => $go!(Selected::<false, false, true>($columns)),
            (false, true, false) => $go!(Selected::<false, true, false>($columns)),
            (false, true, true) => $go!(Selected::<false, true, true>($columns)),
            (true, false, false) => $go!(Selected::<true, false, false>($columns)),
            (true, false, true) => $go!(Selected::<true, false, true>($columns)),
            (true, true, false) => $go!(Selected::<true, true, false>($columns)),
            (true, true, true) => $go!(Selected::<true, true, true>($columns)),
        }
    };
}

/// Sizes `out` for `n` pairs and runs `kernel` through the driver, sequentially or on all
/// cores, with the store specialised for `outputs`.
pub(super) fn drive<const C: usize, K: PairKernel<C, Lanes = Lanes>>(
    kernel: &K,
    input: impl Input<C>,
    n: usize,
    outputs: Outputs,
    parallel: bool,
    out: &mut ClosestBatch,
) {
    out.reset(n, |name| outputs.keeps(name));
    let columns = out.out();
    macro_rules! go {
        ($store:expr) => {{ driver::run_on(parallel, kernel, input, n, $store) }};
    }
    with_store!(outputs, columns, go);
}

/// The lane width of the closest-points kernel: how many pairs one vector holds.
///
/// Every width gives the same bits (the kernel is written once over a lane type, and
/// checked against the scalar reference at each). [`Width::BUILD`] is what the `closest_points`
/// family uses; [`closest_points_width_into`] takes a width explicitly, for benchmarking.
/// `X16` is one AVX-512 register when the build has `avx512f` (`-C target-cpu=x86-64-v4`
/// or `native` on such a CPU), and two 8-lane halves otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    /// `wide::f32x8`: 8 pairs per vector.
    X8,
    /// `wide::f32x16`: 16 pairs per vector.
    X16,
}

impl Width {
    /// What this build uses: [`Width::X16`] with `avx512f`, else [`Width::X8`] (`wide`'s
    /// `f32x8` has no AVX-512 path, and without it `f32x16` is two `f32x8`).
    pub const BUILD: Width = if cfg!(target_feature = "avx512f") {
        Width::X16
    } else {
        Width::X8
    };

    /// Pairs per vector: 8 or 16.
    #[must_use]
    pub const fn lanes(self) -> usize {
        match self {
            Width::X8 => 8,
            Width::X16 => 16,
        }
    }
}

/// [`closest_points_into`] at an explicit lane [`Width`] (on the calling thread): the same
/// bits as every other width, for measuring one against another.
///
/// # Errors
/// [`Error`] when `a` and `b` differ in length.
///
/// ```
/// use segbatch::{closest_points_width_into, ClosestBatch, Options, Outputs, Segment, Segments, Width};
/// let a = Segments::from(&vec![Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]); 40]);
/// let b = Segments::from(&vec![Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]); 40]);
/// let (mut x8, mut x16) = (ClosestBatch::new(), ClosestBatch::new());
/// let (o, all) = (&Options::SEGMENTS, Outputs::ALL);
/// closest_points_width_into(&a, &b, o, all, Width::X8, &mut x8).unwrap();
/// closest_points_width_into(&a, &b, o, all, Width::X16, &mut x16).unwrap();
/// assert_eq!(x8, x16);
/// assert_eq!(x16.dist2()[39], 1.0);
/// ```
pub fn closest_points_width_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    outputs: Outputs,
    width: Width,
    out: &mut ClosestBatch,
) -> Result<(), Error> {
    let (a, b) = (a.into(), b.into());
    let cols = pair_columns(&a, &b)?;
    let params = options.params();
    let narrow = Pairwise {
        splat: Splat::new(&params),
    };
    if width == Width::X8 {
        drive(&narrow, cols, a.len(), outputs, false, out);
        return Ok(());
    }
    let wide = Pairwise16 {
        splat: Splat::new(&params),
    };
    let n = a.len();
    out.reset(n, |name| outputs.keeps(name));
    let columns = out.out();
    macro_rules! go {
        ($store:expr) => {{ driver::run_x16(&wide, &narrow, cols, n, $store) }};
    }
    with_store!(outputs, columns, go);
    Ok(())
}

/// The twelve input columns of `a[i]`, `b[i]` (A's six, then B's), after the length check.
pub(super) fn pair_columns<'v>(
    a: &SegmentsView<'v>,
    b: &SegmentsView<'v>,
) -> Result<[&'v [f32]; 12], Error> {
    check_len("batches a and b", a.len(), b.len())?;
    let (a, b) = (a.raw_columns(), b.raw_columns());
    Ok(core::array::from_fn(
        |k| if k < 6 { a[k] } else { b[k - 6] },
    ))
}

fn closest_pairs<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    outputs: Outputs,
    parallel: bool,
    out: &mut ClosestBatch,
) -> Result<(), Error> {
    if !parallel {
        return closest_points_width_into(a, b, options, outputs, Width::BUILD, out);
    }
    let (a, b) = (a.into(), b.into());
    let cols = pair_columns(&a, &b)?;
    let kernel = Pairwise {
        splat: Splat::new(&options.params()),
    };
    drive(&kernel, cols, a.len(), outputs, parallel, out);
    Ok(())
}

fn one_to_many<'b>(
    one: &Segment,
    many: impl Into<SegmentsView<'b>>,
    options: &Options,
    outputs: Outputs,
    parallel: bool,
    out: &mut ClosestBatch,
) -> Result<(), Error> {
    let many = many.into();
    let kernel = OneToMany {
        a0: V3::splat(one.p0),
        a1: V3::splat(one.p1),
        splat: Splat::new(&options.params()),
    };
    drive(
        &kernel,
        many.raw_columns(),
        many.len(),
        outputs,
        parallel,
        out,
    );
    Ok(())
}

query_forms! {
    /// Closest points of `a[i]` and `b[i]` for every `i`: segment against segment, default
    /// tolerance, every output column.
    ///
    /// Accepts `&Segments` or any [`SegmentsView`] (a sub-range).
    ///
    /// ```
    /// use segbatch::{closest_points, Segment, Segments};
    /// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
    /// let b = Segments::from(&[Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0])]);
    /// let out = closest_points(&a, &b);
    /// assert_eq!(out.dist2(), &[1.0]);
    /// assert_eq!((out.s()[0], out.t()[0]), (0.5, 0.0));
    /// ```
    pub fn closest_points / closest_points_into / par_closest_points / par_closest_points_into
        <'a, 'b>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>)
        with (options: &Options = &Options::SEGMENTS, outputs: Outputs = Outputs::ALL)
        -> ClosestBatch = closest_pairs;
    /// The general form of [`closest_points`]: extents and tolerance from `options`, only
    /// the `outputs` columns stored, results written into `out` (its buffers reused: no
    /// allocation once it has held a batch this large).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a` and `b` differ in length (`out` is then
    /// unchanged).
    ///
    /// ```
    /// use segbatch::{closest_points_into, ClosestBatch, Extent, Options, Outputs, Segment, Segments};
    /// // Rays (sight lines) against wall segments, distances only.
    /// let rays = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
    /// let walls = Segments::from(&[Segment::new([5.0, -1.0, 2.0], [5.0, 1.0, 2.0])]);
    /// let mut out = ClosestBatch::new();
    /// let options = Options::new(Extent::Ray, Extent::Segment);
    /// closest_points_into(&rays, &walls, &options, Outputs::DISTANCE, &mut out)?;
    /// assert_eq!(out.dist2(), &[4.0]);
    /// assert!(out.s().is_empty());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    into;
}

query_forms! {
    /// Closest points of `one` (side A) and every segment of `many` (side B): segment
    /// against segment, default tolerance, every output column. Result `j` is the pair
    /// `(one, many[j])`, exactly `reference::closest_points_with(one, &many[j], options)`.
    ///
    /// ```
    /// use segbatch::{closest_points_one_to_many, Segment, Segments};
    /// let step = Segment::new([0.0, 0.0, 0.0], [4.0, 0.0, 0.0]);
    /// let walls = Segments::from(&[
    ///     Segment::new([2.0, 1.0, 0.0], [2.0, 3.0, 0.0]), // beside the step, 1 away
    ///     Segment::new([9.0, 0.0, 0.0], [9.0, 1.0, 0.0]), // beyond its end, 5 away
    /// ]);
    /// let out = closest_points_one_to_many(&step, &walls);
    /// assert_eq!(out.dist2(), &[1.0, 25.0]);
    /// assert_eq!(out.s(), &[0.5, 1.0]);
    /// ```
    pub fn closest_points_one_to_many / closest_points_one_to_many_into
        / par_closest_points_one_to_many / par_closest_points_one_to_many_into
        <'b>(one: &Segment, many: impl Into<SegmentsView<'b>>)
        with (options: &Options = &Options::SEGMENTS, outputs: Outputs = Outputs::ALL)
        -> ClosestBatch = one_to_many;
    /// The general form of [`closest_points_one_to_many`]: options, output selection,
    /// reused buffers.
    ///
    /// # Errors
    /// None today (every input is valid); `Result` keeps the shape of every `_into` call.
    ///
    /// ```
    /// use segbatch::{closest_points_one_to_many_into, ClosestBatch, Extent, Options, Outputs, Segment, Segments};
    /// // A sight ray against two walls: only the one in front of it is close.
    /// let ray = Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
    /// let walls = Segments::from(&[
    ///     Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]),
    ///     Segment::new([-5.0, -1.0, 0.0], [-5.0, 1.0, 0.0]),
    /// ]);
    /// let mut out = ClosestBatch::new();
    /// let options = Options::new(Extent::Ray, Extent::Segment);
    /// closest_points_one_to_many_into(&ray, &walls, &options, Outputs::DISTANCE, &mut out)?;
    /// assert_eq!(out.dist2(), &[0.0, 25.0]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    into;
}
