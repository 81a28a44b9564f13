//! The 8-lane kernel: a line-by-line branchless twin of [`crate::reference`].
//!
//! # How it works
//!
//! Eight pairs are computed at once, pair `j + k` in lane `k` of a `wide::f32x8`, read
//! straight from the structure-of-arrays columns of [`Segments`](crate::Segments). The
//! algorithm is the reference's (read `src/reference.rs` beside this file; the variable
//! names are the same):
//!
//! 1. differences `d_a`, `d_b`, `r` and a non-finite probe (`Σ x·0` is NaN exactly when a
//!    coordinate is NaN or infinite);
//! 2. Ericson's dot products `a, b, c, e, f`, the degenerate tests against each side's own
//!    squared magnitude, the cross product `n = dA × dB` and the parallel test
//!    `|n|² <= sin²·a·e`;
//! 3. the first estimate of `s`: Rhodes' overlap midpoint for parallel lanes, Goldman's
//!    triple product for the others, 0 for degenerate lanes;
//! 4. clamp, project onto B for `t`, project back onto A for `s`;
//! 5. the separation `r + s·dA - t·dB`, the squared distance and the points.
//!
//! # From branches to masks
//!
//! A lane cannot take a branch of its own, so every branch of the reference is computed in
//! all lanes and the right value is chosen per lane with a mask and `select`:
//!
//! | reference                                   | kernel                                                        |
//! |---------------------------------------------|---------------------------------------------------------------|
//! | `if non_finite { return NON_FINITE }`       | mask `non_finite`; outputs replaced by NaN at the end          |
//! | `if degenerate_a \|\| degenerate_b { 0 }`   | `(degenerate_a \| degenerate_b).select(0, …)`                 |
//! | `else if parallel { overlap midpoint }`     | `parallel.select(s_parallel, s_general)`                      |
//! | `if lo_finite && hi_finite { … } else if …` | nested `select` on `lo_finite`, `hi_finite`                    |
//! | `if degenerate_b { 0 } else { project }`    | `degenerate_b.select(0, clamp(…))`                            |
//! | `if degenerate_a { 0 } else { project }`    | `degenerate_a.select(0, clamp(…))`                            |
//!
//! Computing a branch in a lane that will not use it must not produce NaN or infinity that
//! could leak: each division is guarded by a mask that replaces a divisor which may be zero
//! in unused lanes (`a_safe`, `e_safe`, `nn_safe`), and the final value of every lane comes
//! from a `select`, never from NaN being swallowed by `min`/`max` (which x86 and ARM resolve
//! differently). `fast_min`/`fast_max` (`minps`/`maxps`) are used for clamps because they
//! only ever see finite values in lanes whose results are kept.
//!
//! # Bit-for-bit agreement
//!
//! Operations and their order are the reference's, and the reference fuses exactly the
//! multiply-adds that `wide` fuses on the build ([`FUSED_MUL_ADD`](crate::reference::FUSED_MUL_ADD)),
//! so on x86_64 kernel and reference agree bit for bit in both the AVX2+FMA and the SSE2
//! build. The equivalence tests check it.

use crate::batch::{ClosestBatch, LANES, OutColumns, Outputs, SegmentsView, padded_len};
use crate::segment::{Flags, Options, Params};
use wide::{f32x8, u32x8};

/// Three coordinates, eight lanes each: the kernel's `[f32; 3]`.
#[derive(Clone, Copy)]
pub(crate) struct V3 {
    pub x: f32x8,
    pub y: f32x8,
    pub z: f32x8,
}

impl V3 {
    /// The same point in every lane.
    #[inline(always)]
    pub(crate) fn splat(p: [f32; 3]) -> V3 {
        V3 {
            x: f32x8::splat(p[0]),
            y: f32x8::splat(p[1]),
            z: f32x8::splat(p[2]),
        }
    }
}

#[inline(always)]
fn sub(u: V3, v: V3) -> V3 {
    V3 {
        x: u.x - v.x,
        y: u.y - v.y,
        z: u.z - v.z,
    }
}

/// `u·v` as `fma(u.x, v.x, fma(u.y, v.y, u.z·v.z))`, as in the reference.
#[inline(always)]
fn dot(u: V3, v: V3) -> f32x8 {
    u.x.mul_add(v.x, u.y.mul_add(v.y, u.z * v.z))
}

/// `u × v`, each component one product minus one fused product, as in the reference.
#[inline(always)]
fn cross(u: V3, v: V3) -> V3 {
    V3 {
        x: u.y.mul_sub(v.z, u.z * v.y),
        y: u.z.mul_sub(v.x, u.x * v.z),
        z: u.x.mul_sub(v.y, u.y * v.x),
    }
}

/// `max(lo, min(hi, x))` with `maxps`/`minps`, as the reference's `clamp`.
#[inline(always)]
fn clamp(x: f32x8, lo: f32x8, hi: f32x8) -> f32x8 {
    lo.fast_max(hi.fast_min(x))
}

/// The per-call constants, one copy per lane.
#[derive(Clone, Copy)]
pub(crate) struct Splat {
    lo_a: f32x8,
    hi_a: f32x8,
    lo_b: f32x8,
    hi_b: f32x8,
    length_rel2: f32x8,
    length_abs2: f32x8,
    parallel_sin2: f32x8,
}

impl Splat {
    pub(crate) fn new(p: &Params) -> Self {
        Splat {
            lo_a: f32x8::splat(p.lo_a),
            hi_a: f32x8::splat(p.hi_a),
            lo_b: f32x8::splat(p.lo_b),
            hi_b: f32x8::splat(p.hi_b),
            length_rel2: f32x8::splat(p.length_rel2),
            length_abs2: f32x8::splat(p.length_abs2),
            parallel_sin2: f32x8::splat(p.parallel_sin2),
        }
    }
}

/// Eight results.
pub(crate) struct Lanes {
    pub s: f32x8,
    pub t: f32x8,
    pub dist2: f32x8,
    pub flags: u32x8,
    pub point_a: V3,
    pub point_b: V3,
}

/// The algorithm for eight pairs: the twin of `reference::closest_points_params`.
#[inline(always)]
pub(crate) fn closest8(a0: V3, a1: V3, b0: V3, b1: V3, p: &Splat) -> Lanes {
    let zero = f32x8::ZERO;
    let one = f32x8::ONE;
    let d_a = sub(a1, a0);
    let d_b = sub(b1, b0);
    let r = sub(a0, b0);

    // 1. Non-finite: Σ x·0 over d_a, d_b, r is NaN exactly when a coordinate is not finite.
    let probe = [d_a, d_b, r]
        .iter()
        .flat_map(|v| [v.x, v.y, v.z])
        .fold(zero, |acc, x| x.mul_add(zero, acc));
    let non_finite = probe.simd_ne(zero);

    // Ericson's dot products.
    let a = dot(d_a, d_a);
    let e = dot(d_b, d_b);
    let b = dot(d_a, d_b);
    let c = dot(d_a, r);
    let f = dot(d_b, r);

    // 2. Degenerate and parallel masks.
    let scale2_a = dot(a0, a0).fast_max(dot(a1, a1));
    let scale2_b = dot(b0, b0).fast_max(dot(b1, b1));
    let degenerate_a = a.simd_le(p.length_rel2.mul_add(scale2_a, p.length_abs2));
    let degenerate_b = e.simd_le(p.length_rel2.mul_add(scale2_b, p.length_abs2));
    let degenerate = degenerate_a | degenerate_b;

    let n = cross(d_a, d_b);
    let nn = dot(n, n);
    let parallel = !degenerate & nn.simd_le(p.parallel_sin2 * (a * e));

    // Divisors that may be zero in lanes which will not use the quotient.
    let a_safe = degenerate_a.select(one, a);
    let e_safe = degenerate_b.select(one, e);
    let nn_safe = (degenerate | parallel).select(one, nn);

    // 3. First estimate of s. Parallel lanes: Rhodes' overlap midpoint.
    let s_b0 = -c / a_safe;
    let k = b / a_safe;
    let end_lo = p.lo_b.mul_add(k, s_b0);
    let end_hi = p.hi_b.mul_add(k, s_b0);
    let lo = p.lo_a.fast_max(end_lo.fast_min(end_hi));
    let hi = p.hi_a.fast_min(end_lo.fast_max(end_hi));
    let lo_finite = lo.simd_gt(f32x8::splat(f32::NEG_INFINITY));
    let hi_finite = hi.simd_lt(f32x8::splat(f32::INFINITY));
    let s_parallel = (lo_finite & hi_finite).select(
        (lo + hi) * f32x8::HALF,
        lo_finite.select(lo, hi_finite.select(hi, zero)),
    );
    // Other lanes: Goldman's triple product.
    let w = cross(d_b, r);
    let s_general = dot(w, n) / nn_safe;
    let s_first = degenerate.select(zero, parallel.select(s_parallel, s_general));

    // 4. Clamp, project C onto B, project D back onto A.
    let s = clamp(s_first, p.lo_a, p.hi_a);
    let t = degenerate_b.select(zero, clamp(b.mul_add(s, f) / e_safe, p.lo_b, p.hi_b));
    let s = degenerate_a.select(zero, clamp(b.mul_sub(t, c) / a_safe, p.lo_a, p.hi_a));

    // 5. Separation r + s·dA - t·dB, formed locally.
    let v = V3 {
        x: t.mul_neg_add(d_b.x, s.mul_add(d_a.x, r.x)),
        y: t.mul_neg_add(d_b.y, s.mul_add(d_a.y, r.y)),
        z: t.mul_neg_add(d_b.z, s.mul_add(d_a.z, r.z)),
    };
    let dist2 = dot(v, v);
    let point_a = V3 {
        x: s.mul_add(d_a.x, a0.x),
        y: s.mul_add(d_a.y, a0.y),
        z: s.mul_add(d_a.z, a0.z),
    };
    let point_b = V3 {
        x: t.mul_add(d_b.x, b0.x),
        y: t.mul_add(d_b.y, b0.y),
        z: t.mul_add(d_b.z, b0.z),
    };

    let bit = |mask: f32x8, flag: Flags| mask.to_bits() & u32x8::splat(u32::from(flag.bits()));
    let flags = bit(degenerate_a, Flags::DEGENERATE_A)
        | bit(degenerate_b, Flags::DEGENERATE_B)
        | bit(parallel, Flags::PARALLEL);

    let mut lanes = Lanes {
        s,
        t,
        dist2,
        flags,
        point_a,
        point_b,
    };
    // 1, continued: a non-finite lane reports NaN everywhere and only its flag.
    if non_finite.any() {
        let nan = f32x8::splat(f32::NAN);
        let blank = |x: f32x8| non_finite.select(nan, x);
        let blank3 = |v: V3| V3 {
            x: blank(v.x),
            y: blank(v.y),
            z: blank(v.z),
        };
        lanes = Lanes {
            s: blank(lanes.s),
            t: blank(lanes.t),
            dist2: blank(lanes.dist2),
            flags: non_finite.select(
                u32x8::splat(u32::from(Flags::NON_FINITE.bits())),
                lanes.flags,
            ),
            point_a: blank3(lanes.point_a),
            point_b: blank3(lanes.point_b),
        };
    }
    lanes
}

/// Eight values of one column starting at `j` (the slice must hold them).
#[inline(always)]
fn load(col: &[f32], j: usize) -> f32x8 {
    let chunk: [f32; LANES] = col[j..j + LANES].try_into().expect("8 values");
    f32x8::from(chunk)
}

/// Loads one side's six columns at `j`.
#[inline(always)]
pub(crate) fn load_side(cols: &[&[f32]; 6], j: usize) -> (V3, V3) {
    (
        V3 {
            x: load(cols[0], j),
            y: load(cols[1], j),
            z: load(cols[2], j),
        },
        V3 {
            x: load(cols[3], j),
            y: load(cols[4], j),
            z: load(cols[5], j),
        },
    )
}

/// Writes the first `count` lanes of `v` to `col[j..]`.
#[inline(always)]
fn store(col: &mut [f32], j: usize, count: usize, v: f32x8) {
    col[j..j + count].copy_from_slice(&v.as_array()[..count]);
}

/// Writes the first `count` lanes of a group of results, for the selected columns.
#[inline(always)]
pub(crate) fn store_group<const PARAMS: bool, const POINTS: bool, const FLAGS: bool>(
    out: &mut OutColumns<'_>,
    j: usize,
    count: usize,
    lanes: &Lanes,
) {
    store(out.dist2, j, count, lanes.dist2);
    if PARAMS {
        if let Some(s) = out.s.as_deref_mut() {
            store(s, j, count, lanes.s);
        }
        if let Some(t) = out.t.as_deref_mut() {
            store(t, j, count, lanes.t);
        }
    }
    if POINTS {
        if let (Some(pa), Some(pb)) = (out.point_a.as_mut(), out.point_b.as_mut()) {
            for (col, v) in pa.iter_mut().zip([lanes.point_a.x, lanes.point_a.y, lanes.point_a.z]) {
                store(col, j, count, v);
            }
            for (col, v) in pb.iter_mut().zip([lanes.point_b.x, lanes.point_b.y, lanes.point_b.z]) {
                store(col, j, count, v);
            }
        }
    }
    if FLAGS {
        if let Some(flags) = out.flags.as_deref_mut() {
            let bits = lanes.flags.to_array();
            for (dst, bits) in flags[j..j + count].iter_mut().zip(bits) {
                // Only the four flag bits are ever set.
                *dst = Flags::from_bits_truncate(bits as u8);
            }
        }
    }
}

/// The shortest present output column.
fn out_room(out: &OutColumns<'_>) -> usize {
    let mut room = out.dist2.len();
    for col in [out.s.as_deref(), out.t.as_deref()].into_iter().flatten() {
        room = room.min(col.len());
    }
    if let Some(flags) = out.flags.as_deref() {
        room = room.min(flags.len());
    }
    for side in [out.point_a.as_ref(), out.point_b.as_ref()]
        .into_iter()
        .flatten()
    {
        for col in side {
            room = room.min(col.len());
        }
    }
    room
}

/// Runs the kernel over `a.len()` pairs (`a.len() == b.len()`, checked by the callers),
/// writing the selected columns of `out`.
pub(crate) fn run(a: SegmentsView<'_>, b: SegmentsView<'_>, p: &Params, out: OutColumns<'_>) {
    debug_assert_eq!(a.len(), b.len());
    let params = out.s.is_some() && out.t.is_some();
    let points = out.point_a.is_some() && out.point_b.is_some();
    let flags = out.flags.is_some();
    match (params, points, flags) {
        (false, false, false) => run_impl::<false, false, false>(a, b, p, out),
        (false, false, true) => run_impl::<false, false, true>(a, b, p, out),
        (false, true, false) => run_impl::<false, true, false>(a, b, p, out),
        (false, true, true) => run_impl::<false, true, true>(a, b, p, out),
        (true, false, false) => run_impl::<true, false, false>(a, b, p, out),
        (true, false, true) => run_impl::<true, false, true>(a, b, p, out),
        (true, true, false) => run_impl::<true, true, false>(a, b, p, out),
        (true, true, true) => run_impl::<true, true, true>(a, b, p, out),
    }
}

/// The loop, specialised per output selection so the stores are straight-line code.
fn run_impl<const PARAMS: bool, const POINTS: bool, const FLAGS: bool>(
    a: SegmentsView<'_>,
    b: SegmentsView<'_>,
    p: &Params,
    mut out: OutColumns<'_>,
) {
    let n = a.len();
    let splat = Splat::new(p);
    let a_cols = a.raw_columns();
    let b_cols = b.raw_columns();
    // Whole groups that can be loaded and stored in place: those inside every column,
    // padding included.
    let room = a_cols
        .iter()
        .chain(b_cols.iter())
        .map(|c| c.len())
        .min()
        .unwrap_or(0)
        .min(out_room(&out));
    let direct = (room / LANES * LANES).min(padded_len(n));
    let mut j = 0;
    while j < direct {
        let (a0, a1) = load_side(&a_cols, j);
        let (b0, b1) = load_side(&b_cols, j);
        let lanes = closest8(a0, a1, b0, b1, &splat);
        store_group::<PARAMS, POINTS, FLAGS>(&mut out, j, LANES, &lanes);
        j += LANES;
    }
    // A last partial group without padding in place (a view of a sub-range): copy it into
    // zero-padded buffers so it still runs as one SIMD group.
    if j < n {
        let count = n - j;
        let pad = |col: &[f32]| {
            let mut buf = [0.0f32; LANES];
            buf[..count].copy_from_slice(&col[j..n]);
            buf
        };
        let a_buf: [[f32; LANES]; 6] = core::array::from_fn(|k| pad(a_cols[k]));
        let b_buf: [[f32; LANES]; 6] = core::array::from_fn(|k| pad(b_cols[k]));
        let a_ref: [&[f32]; 6] = core::array::from_fn(|k| &a_buf[k][..]);
        let b_ref: [&[f32]; 6] = core::array::from_fn(|k| &b_buf[k][..]);
        let (a0, a1) = load_side(&a_ref, 0);
        let (b0, b1) = load_side(&b_ref, 0);
        let lanes = closest8(a0, a1, b0, b1, &splat);
        store_group::<PARAMS, POINTS, FLAGS>(&mut out, j, count, &lanes);
    }
}

/// Closest points of `a[i]` and `b[i]` for every `i`, segment against segment with the
/// default tolerance, every output column.
///
/// Accepts `&Segments` or any [`SegmentsView`] (a sub-range).
///
/// # Panics
/// When `a` and `b` differ in length; [`try_closest_points`] returns an error instead.
///
/// ```
/// use segbatch::{closest_points, Segment, Segments};
/// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
/// let b = Segments::from(&[Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0])]);
/// let out = closest_points(&a, &b);
/// assert_eq!(out.dist2(), &[1.0]);
/// assert_eq!((out.s()[0], out.t()[0]), (0.5, 0.0));
/// ```
#[must_use]
pub fn closest_points<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
) -> ClosestBatch {
    let mut out = ClosestBatch::default();
    closest_points_with_into(a, b, &Options::SEGMENTS, Outputs::ALL, &mut out);
    out
}

/// Like [`closest_points`], but an error instead of a panic when the lengths differ.
///
/// # Errors
/// [`BatchError::LengthMismatch`](crate::BatchError::LengthMismatch).
pub fn try_closest_points<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
) -> Result<ClosestBatch, crate::BatchError> {
    let mut out = ClosestBatch::default();
    try_closest_points_with_into(a, b, &Options::SEGMENTS, Outputs::ALL, &mut out)?;
    Ok(out)
}

/// Like [`closest_points`], writing into `out` and reusing its buffers: no allocation once
/// `out` has held a batch this large.
///
/// # Panics
/// When `a` and `b` differ in length; [`try_closest_points_with_into`] returns an error.
///
/// ```
/// use segbatch::{closest_points_into, ClosestBatch, Segment, Segments};
/// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
/// let b = Segments::from(&[Segment::new([1.0, 0.0, 1.0], [1.0, 1.0, 1.0])]);
/// let mut out = ClosestBatch::default();
/// for _step in 0..3 {
///     closest_points_into(&a, &b, &mut out);
///     assert_eq!(out.get(0).point_b, [1.0, 0.0, 1.0]);
/// }
/// ```
pub fn closest_points_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    out: &mut ClosestBatch,
) {
    closest_points_with_into(a, b, &Options::SEGMENTS, Outputs::ALL, out);
}

/// The general form: extents and tolerance from `options`, only the `outputs` columns
/// stored, results written into `out` (buffers reused).
///
/// # Panics
/// When `a` and `b` differ in length; [`try_closest_points_with_into`] returns an error.
///
/// ```
/// use segbatch::{closest_points_with_into, ClosestBatch, Extent, Options, Outputs, Segment, Segments};
/// // Rays (sight lines) against wall segments, distances only.
/// let rays = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
/// let walls = Segments::from(&[Segment::new([5.0, -1.0, 2.0], [5.0, 1.0, 2.0])]);
/// let mut out = ClosestBatch::default();
/// let options = Options::new(Extent::Ray, Extent::Segment);
/// closest_points_with_into(&rays, &walls, &options, Outputs::DISTANCE, &mut out);
/// assert_eq!(out.dist2(), &[4.0]);
/// assert!(out.s().is_empty());
/// ```
pub fn closest_points_with_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    outputs: Outputs,
    out: &mut ClosestBatch,
) {
    if let Err(e) = try_closest_points_with_into(a, b, options, outputs, out) {
        panic!("segbatch: {e}");
    }
}

/// Like [`closest_points_with_into`], but an error instead of a panic when the lengths
/// differ (`out` is then left unchanged).
///
/// # Errors
/// [`BatchError::LengthMismatch`](crate::BatchError::LengthMismatch).
pub fn try_closest_points_with_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    options: &Options,
    outputs: Outputs,
    out: &mut ClosestBatch,
) -> Result<(), crate::BatchError> {
    let (a, b) = (a.into(), b.into());
    if a.len() != b.len() {
        return Err(crate::BatchError::LengthMismatch {
            what: "batches a and b",
            expected: a.len(),
            found: b.len(),
        });
    }
    out.reset(a.len(), outputs);
    run(a, b, &options.params(), out.columns_mut());
    Ok(())
}
