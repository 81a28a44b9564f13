//! Closest points of pairs of sides: `a[i]` against `b[i]`, or one side against a batch,
//! in the precision of the batches ([`Element`]: `f32` or `f64`).
//!
//! The lane math is the kernel's ([`crate::kernel`]); this file only says which input
//! columns make a pair (twelve: A's six then B's six; or B's six against one broadcast A),
//! which output columns the caller asked for ([`Outputs`]), and hands both to the driver.
//! The store is specialised per output selection (const generics), so each selection's
//! loop stores straight-line code with no test per column. The public forms are written
//! once over the element type; what differs between the precisions is which lanes run the
//! kernel ([`PairQueries`]): `f32` runs `f32x8` (or `f32x16` where the build has
//! AVX-512, [`Width`]), `f64` the same kernel and driver instantiated for [`F64Lanes`].

use super::element::Element;
use super::element::sealed::PairQueries;
use super::types::{ClosestBatch, ClosestBatch64, ClosestOut, Outputs};
use crate::batch::{Error, Record, SegmentsView, SoaView, check_len};
use crate::columns::LANES;
use crate::columns::{GroupStore, split_groups};
use crate::driver::Side;
use crate::driver::{self, Input, PairKernel};
use crate::forms::query_forms;
use crate::kernel::{Lanes, Splat, closest_lanes, closest_lanes_general, closest_lanes_masked};
use crate::lanes::{F64Lanes, Lane, V3, bytes8};
use crate::segment::{Flags, Options, Segment, Segment64};
use bytemuck::Pod;
use core::ops::Range;
use wide::{f32x8, f32x16};

/// Defines `$name`, the selected columns of a [`ClosestBatch`] of `$elem` in groups of
/// `$w` (the others are empty and never touched) as the [`GroupStore`] of `Lanes<$lane>`;
/// `$flags` turns the lanes' flag bits into a group of [`Flags`]. Written once for both
/// precisions.
macro_rules! selected_store {
    ($name:ident, $elem:ty, $w:expr, $lane:ty, $flags:expr) => {
        /// The selected columns of a result batch: the others are empty and never touched.
        struct $name<'a, const PARAMS: bool, const POINTS: bool, const FLAGS: bool>(
            ClosestOut<'a, $elem, { $w }>,
        );

        impl<const PARAMS: bool, const POINTS: bool, const FLAGS: bool> GroupStore
            for $name<'_, PARAMS, POINTS, FLAGS>
        {
            type Lanes = Lanes<$lane>;

            #[inline(always)]
            fn store(&mut self, g: usize, lanes: &Lanes<$lane>) {
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
                    out.flags[g] = $flags(lanes.flags);
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
                let (s, t) = (pick(s, mid, PARAMS), pick(t, mid, PARAMS));
                let dist2 = split_groups(dist2, mid);
                let flags = pick(flags, mid, FLAGS);
                let [pax, pay, paz] = point_a.map(|c| pick(c, mid, POINTS));
                let [pbx, pby, pbz] = point_b.map(|c| pick(c, mid, POINTS));
                (
                    $name(ClosestOut {
                        s: s.0,
                        t: t.0,
                        dist2: dist2.0,
                        flags: flags.0,
                        point_a: [pax.0, pay.0, paz.0],
                        point_b: [pbx.0, pby.0, pbz.0],
                    }),
                    $name(ClosestOut {
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
    };
}

/// The column split after `mid` groups when selected; an unselected column is empty.
#[inline(always)]
fn pick<T, const W: usize>(
    col: &mut [[T; W]],
    mid: usize,
    on: bool,
) -> (&mut [[T; W]], &mut [[T; W]]) {
    if on {
        split_groups(col, mid)
    } else {
        (&mut [], &mut [])
    }
}

// Only the four flag bits are ever set.
selected_store!(Selected, f32, LANES, f32x8, |bits| bytes8(
    bits,
    Flags::from_bits_truncate
));
selected_store!(
    Selected64,
    f64,
    W64,
    F64Lanes,
    |bits: <F64Lanes as Lane>::Bits| bits.to_array().map(|b| Flags::from_bits_truncate(b as u8))
);

/// Four points from twelve lane vectors (`a0 a1 b0 b1`, x y z each).
#[inline(always)]
pub(super) fn points<L: Lane>(c: &[L; 12]) -> (V3<L>, V3<L>, V3<L>, V3<L>) {
    let v = |k| V3::at_column(c, k);
    (v(0), v(3), v(6), v(9))
}

/// `a[i]` against `b[i]`: twelve input columns, any lane type.
pub(super) struct Pairwise<L: Lane = f32x8> {
    pub(super) splat: Splat<L>,
}

impl<L: Lane> PairKernel<12, L> for Pairwise<L> {
    type Lanes = Lanes<L>;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [L; 12]) -> Option<Lanes<L>> {
        let (a0, a1, b0, b1) = points(&load());
        closest_lanes_general::<_, false>(a0, a1, b0, b1, &self.splat)
    }
    const SPECIAL: bool = true;
    #[inline(always)]
    fn special(&self, load: impl Fn() -> [L; 12]) -> Option<Lanes<L>> {
        let (a0, a1, b0, b1) = points(&load());
        closest_lanes_general::<_, true>(a0, a1, b0, b1, &self.splat)
    }
    #[inline(always)]
    fn masked(&self, x: [L; 12]) -> Lanes<L> {
        let (a0, a1, b0, b1) = points(&x);
        closest_lanes_masked(a0, a1, b0, b1, &self.splat)
    }
}

/// One side A, broadcast to every lane, against `many[j]`: six input columns, any lane
/// type.
struct OneToMany<L: Lane = f32x8> {
    a0: V3<L>,
    a1: V3<L>,
    splat: Splat<L>,
}

impl<L: Lane> PairKernel<6, L> for OneToMany<L> {
    type Lanes = Lanes<L>;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [L; 6]) -> Option<Lanes<L>> {
        let x = load();
        let (b0, b1) = (V3::at_column(&x, 0), V3::at_column(&x, 3));
        closest_lanes_general::<_, false>(self.a0, self.a1, b0, b1, &self.splat)
    }
    const SPECIAL: bool = true;
    #[inline(always)]
    fn special(&self, load: impl Fn() -> [L; 6]) -> Option<Lanes<L>> {
        let x = load();
        let (b0, b1) = (V3::at_column(&x, 0), V3::at_column(&x, 3));
        closest_lanes_general::<_, true>(self.a0, self.a1, b0, b1, &self.splat)
    }
    #[inline(always)]
    fn masked(&self, x: [L; 6]) -> Lanes<L> {
        let (b0, b1) = (V3::at_column(&x, 0), V3::at_column(&x, 3));
        closest_lanes_masked(self.a0, self.a1, b0, b1, &self.splat)
    }
}

/// Calls `$go!($store::<PARAMS, POINTS, FLAGS>(columns))` with the store specialised
/// for `outputs` (`$store` is [`Selected`] or [`Selected64`]).
macro_rules! with_store {
    ($store:ident, $outputs:expr, $columns:expr, $go:ident) => {
        match ($outputs.params, $outputs.points, $outputs.flags) {
            (false, false, false) => $go!($store::<false, false, false>($columns)),
            (false, false, true) => $go!($store::<false, false, true>($columns)),
            (false, true, false) => $go!($store::<false, true, false>($columns)),
            (false, true, true) => $go!($store::<false, true, true>($columns)),
            (true, false, false) => $go!($store::<true, false, false>($columns)),
            (true, false, true) => $go!($store::<true, false, true>($columns)),
            (true, true, false) => $go!($store::<true, true, false>($columns)),
            (true, true, true) => $go!($store::<true, true, true>($columns)),
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
    let columns = out.out::<LANES>();
    macro_rules! go {
        ($store:expr) => {{ driver::run_on(parallel, kernel, input, n, $store) }};
    }
    with_store!(Selected, outputs, columns, go);
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
    /// `f32x8` has no AVX-512 path, and without it `f32x16` is two `f32x8`). Always
    /// [`Width::X8`] with the `same-bits` feature (one width, one code path on every CPU).
    pub const BUILD: Width = if cfg!(all(target_feature = "avx512f", not(feature = "same-bits"))) {
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
/// use segbatch::{ClosestBatch, Options, Outputs, Segment, Segments};
/// use segbatch::pairs::{closest_points_width_into, Width};
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
    closest_at_width(a.into(), b.into(), options, outputs, width, out)
}

/// [`closest_points_width_into`] after its conversions: a body of its own, so that the
/// inlined driver is compiled once, in this crate, not in every caller.
fn closest_at_width(
    a: SegmentsView<'_>,
    b: SegmentsView<'_>,
    options: &Options,
    outputs: Outputs,
    width: Width,
    out: &mut ClosestBatch,
) -> Result<(), Error> {
    closest_width(a, b, options, outputs, width, false, out)
}

/// The pairwise closest points at `width`, on all cores when `parallel`. Inlined for the
/// reason [`drive_width`] is.
#[inline(always)]
fn closest_width(
    a: SegmentsView<'_>,
    b: SegmentsView<'_>,
    options: &Options,
    outputs: Outputs,
    width: Width,
    parallel: bool,
    out: &mut ClosestBatch,
) -> Result<(), Error> {
    let cols = pair_columns(&a, &b)?;
    let params = options.params();
    let narrow = Pairwise {
        splat: Splat::new(&params),
    };
    let wide = Pairwise::<f32x16> {
        splat: Splat::new(&params),
    };
    drive_width(&narrow, &wide, cols, a.len(), outputs, width, parallel, out);
    Ok(())
}

/// [`drive`] at `width`: `narrow`'s 8 lanes, or `wide`'s 16 (the same lane math) with
/// `narrow` for the odd group and the tail. Inlined, so a caller's loop is compiled with
/// `parallel` and `width` known when they are constants (callgrind, `query_profile
/// params`: one instruction a group more when `parallel` was a runtime value).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn drive_width<const C: usize, K, W>(
    narrow: &K,
    wide: &W,
    cols: [&[f32]; C],
    n: usize,
    outputs: Outputs,
    width: Width,
    parallel: bool,
    out: &mut ClosestBatch,
) where
    K: PairKernel<C, Lanes = Lanes>,
    W: PairKernel<C, f32x16, Lanes = Lanes<f32x16>>,
{
    if width == Width::X8 {
        drive(narrow, cols, n, outputs, parallel, out);
        return;
    }
    out.reset(n, |name| outputs.keeps(name));
    let columns = out.out::<LANES>();
    macro_rules! go {
        ($store:expr) => {{ driver::run_x16(parallel, wide, narrow, cols, n, $store) }};
    }
    with_store!(Selected, outputs, columns, go);
}

/// The twelve input columns of `a[i]`, `b[i]` (A's six, then B's), after the length check
/// (`f32` or `f64` batches).
pub(super) fn pair_columns<'v, T: Record<6, E>, E: Pod>(
    a: &SoaView<'v, T, 6, E>,
    b: &SoaView<'v, T, 6, E>,
) -> Result<[&'v [E]; 12], Error> {
    check_len("batches a and b", a.len(), b.len())?;
    let (a, b) = (a.raw_columns(), b.raw_columns());
    Ok(core::array::from_fn(
        |k| if k < 6 { a[k] } else { b[k - 6] },
    ))
}

/// `f32`: eight lanes, or sixteen where the build has AVX-512 ([`Width::BUILD`]).
impl PairQueries for f32 {
    fn dist2_rows(
        a: SegmentsView<'_>,
        b: SegmentsView<'_>,
        rows: Range<usize>,
        block: usize,
        options: &Options,
        out: &mut [f32],
    ) {
        // One A segment broadcast to the eight lanes against B eight at a time, straight
        // into the row (no result batch between).
        let splat = Splat::new(&options.params());
        let (a, b) = (Side::new(a), Side::new(b));
        let nb = b.len();
        for bb in (0..nb).step_by(block) {
            let bend = (bb + block).min(nb);
            for i in rows.clone() {
                let (a0, a1) = a.splat(i);
                let row = &mut out[(i - rows.start) * nb..][..nb];
                let mut j = bb;
                while j < bend {
                    let (b0, b1) = b.load(j);
                    let lanes = closest_lanes(a0, a1, b0, b1, &splat);
                    let count = (nb - j).min(LANES);
                    row[j..j + count].copy_from_slice(&lanes.dist2.to_array()[..count]);
                    j += LANES;
                }
            }
        }
    }

    fn closest_pairs(
        a: SegmentsView<'_>,
        b: SegmentsView<'_>,
        options: &Options,
        outputs: Outputs,
        parallel: bool,
        out: &mut ClosestBatch,
    ) -> Result<(), Error> {
        closest_width(a, b, options, outputs, Width::BUILD, parallel, out)
    }

    fn one_to_many(
        one: &Segment,
        many: SegmentsView<'_>,
        options: &Options,
        outputs: Outputs,
        parallel: bool,
        out: &mut ClosestBatch,
    ) -> Result<(), Error> {
        let params = options.params();
        let narrow = OneToMany {
            a0: V3::splat(one.p0),
            a1: V3::splat(one.p1),
            splat: Splat::new(&params),
        };
        let wide = OneToMany::<f32x16> {
            a0: V3::splat(one.p0),
            a1: V3::splat(one.p1),
            splat: Splat::new(&params),
        };
        let (cols, n) = (many.raw_columns(), many.len());
        drive_width(
            &narrow,
            &wide,
            cols,
            n,
            outputs,
            Width::BUILD,
            parallel,
            out,
        );
        Ok(())
    }
}

/// `f64`: [`F64Lanes`] (`f64x8` with AVX-512, `f64x4` otherwise).
impl PairQueries for f64 {
    fn dist2_rows(
        a: SegmentsView<'_, f64>,
        b: SegmentsView<'_, f64>,
        rows: Range<usize>,
        block: usize,
        options: &Options,
        out: &mut [f64],
    ) {
        // One A segment against a block of B through the one-to-many kernel.
        let nb = b.len();
        let mut tile = ClosestBatch64::new();
        for bb in (0..nb).step_by(block) {
            let cols = bb..(bb + block).min(nb);
            for i in rows.clone() {
                let one = a.get(i).expect("a row of a");
                <f64 as PairQueries>::one_to_many(
                    &one,
                    b.view(cols.clone()),
                    options,
                    Outputs::DISTANCE,
                    false,
                    &mut tile,
                )
                .expect("every input is valid");
                out[(i - rows.start) * nb..][cols.clone()].copy_from_slice(tile.dist2());
            }
        }
    }

    fn closest_pairs(
        a: SegmentsView<'_, f64>,
        b: SegmentsView<'_, f64>,
        options: &Options,
        outputs: Outputs,
        parallel: bool,
        out: &mut ClosestBatch64,
    ) -> Result<(), Error> {
        let cols = pair_columns(&a, &b)?;
        let kernel = Pairwise::<F64Lanes> {
            splat: Splat::new(&options.params64()),
        };
        drive64(&kernel, cols, a.len(), outputs, parallel, out);
        Ok(())
    }

    fn one_to_many(
        one: &Segment64,
        many: SegmentsView<'_, f64>,
        options: &Options,
        outputs: Outputs,
        parallel: bool,
        out: &mut ClosestBatch64,
    ) -> Result<(), Error> {
        let kernel = OneToMany::<F64Lanes> {
            a0: V3::splat(one.p0),
            a1: V3::splat(one.p1),
            splat: Splat::new(&options.params64()),
        };
        drive64(
            &kernel,
            many.raw_columns(),
            many.len(),
            outputs,
            parallel,
            out,
        );
        Ok(())
    }
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
        <'a, 'b; E: Element>(a: impl Into<SegmentsView<'a, E>>, b: impl Into<SegmentsView<'b, E>>)
        with (options: &Options = &Options::SEGMENTS, outputs: Outputs = Outputs::ALL)
        -> ClosestBatch<E> = E::closest_pairs;
    /// The general form of [`closest_points`]: extents and tolerance from `options`, only
    /// the `outputs` columns stored, results written into `out` (its buffers reused: no
    /// allocation once it has held a batch this large).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a` and `b` differ in length (`out` is then
    /// unchanged).
    ///
    /// ```
    /// use segbatch::{ClosestBatch, Extent, Options, Outputs, Segment, Segments};
    /// use segbatch::pairs::closest_points_into;
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
    /// use segbatch::{Segment, Segments};
    /// use segbatch::pairs::closest_points_one_to_many;
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
        <'b; E: Element>(one: &E::Segment, many: impl Into<SegmentsView<'b, E>>)
        with (options: &Options = &Options::SEGMENTS, outputs: Outputs = Outputs::ALL)
        -> ClosestBatch<E> = E::one_to_many;
    /// The general form of [`closest_points_one_to_many`]: options, output selection,
    /// reused buffers.
    ///
    /// # Errors
    /// None today (every input is valid); `Result` keeps the shape of every `_into` call.
    ///
    /// ```
    /// use segbatch::{ClosestBatch, Extent, Options, Outputs, Segment, Segments};
    /// use segbatch::pairs::closest_points_one_to_many_into;
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

/// Pairs per `f64` kernel group: 8 or 4, [`SIMD_LANES64`](crate::simd::SIMD_LANES64) (the
/// columns are still padded to [`LANES`]).
const W64: usize = <F64Lanes as Lane>::WIDTH;

/// [`drive`] for the `f64` queries: sizes `out` for `n` pairs and runs `kernel` (over
/// [`F64Lanes`]) through the driver with the store specialised for `outputs`.
pub(super) fn drive64<const C: usize, K: PairKernel<C, F64Lanes, Lanes = Lanes<F64Lanes>>>(
    kernel: &K,
    input: impl Input<C, F64Lanes>,
    n: usize,
    outputs: Outputs,
    parallel: bool,
    out: &mut ClosestBatch64,
) {
    out.reset(n, |name| outputs.keeps(name));
    let columns = out.out::<W64>();
    macro_rules! go {
        ($store:expr) => {{ driver::run_on(parallel, kernel, input, n, $store) }};
    }
    with_store!(Selected64, outputs, columns, go);
}
