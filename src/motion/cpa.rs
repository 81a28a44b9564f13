//! Closest point of approach (CPA) of two moving points: the scalar reference and its
//! 8-lane twin, side by side.
//!
//! # Method (Sunday's `cpa_time` / `cpa_distance`, with a clamped window)
//!
//! Two tracks `P(t) = P0 + t·u` and `Q(t) = Q0 + t·v` are `w(t) = w0 + t·dv` apart, with
//! the relative motion formed locally: `w0 = P0 - Q0`, `dv = u - v`. For start/end segments
//! (`P0 = A0`, `P(1) = A1`) it is `w0 = A0 - B0`, `w1 = A1 - B1`, `dv = w1 - w0`, which
//! keeps all of the separation's digits when both objects are far from the origin.
//!
//! `|w(t)|²` is a convex quadratic; its minimum over the window `[0, T]` is at
//! `t = clamp(-(w0·dv) / (dv·dv), 0, T)`. The distance is then formed from `w0 + t·dv`
//! (one fused multiply-add per coordinate), so an error in `t` near the unclamped minimum
//! costs only second order in the distance.
//!
//! **Same velocity.** When `|dv|` is at most `2·ε` times the scale its rounding comes from
//! (`max(|u|, |v|)` for tracks, `max(|w0|, |w1|)` for segments), the distance is constant up
//! to rounding and there is no unique time: the reference reports `t = 0` (the start of the
//! window, the earliest time the distance is reached) and sets
//! [`MotionFlags::SAME_VELOCITY`]. The division is guarded by that mask in the kernel.
//!
//! | reference                                   | kernel                                          |
//! |---------------------------------------------|-------------------------------------------------|
//! | `if same_velocity { 0 } else { clamp(…) }`  | `same_velocity.select(0, clamp(-b / a_safe, …))`|
//! | `if non_finite { return NON_FINITE }`       | outputs replaced by NaN in `non_finite` lanes   |

use super::{
    MotionFlags, MotionFlagsColumn, SAME_VELOCITY_REL, Track, TracksView, V3, Window, at8, bit8,
    check_len, dot8, flags8, in_groups, load, out_groups, probe, probe8, sub3, sub8,
};
use crate::batch::{BatchError, F32Column, LANES, SegmentsView};
use crate::reference::{clamp, dot, fma, max_ps};
use crate::segment::Segment;
use wide::{f32x8, u32x8};

/// The closest point of approach of one pair.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cpa {
    /// The time of closest approach, inside the window.
    pub t: f32,
    /// Squared distance between the two objects at time `t`.
    pub dist2: f32,
    /// Position of A at time `t`.
    pub point_a: [f32; 3],
    /// Position of B at time `t`.
    pub point_b: [f32; 3],
    /// [`MotionFlags::SAME_VELOCITY`] and/or [`MotionFlags::NON_FINITE`].
    pub flags: MotionFlags,
}

impl Cpa {
    /// The result for a pair with a non-finite input: all NaN, flagged.
    pub const NON_FINITE: Cpa = Cpa {
        t: f32::NAN,
        dist2: f32::NAN,
        point_a: [f32::NAN; 3],
        point_b: [f32::NAN; 3],
        flags: MotionFlags::NON_FINITE,
    };

    /// The distance at the closest approach.
    #[must_use]
    pub fn distance(&self) -> f32 {
        self.dist2.sqrt()
    }
}

// ---------------------------------------------------------------------------------------
// Scalar reference.

/// The algorithm for one pair. With `ENDPOINTS`, `a1`/`b1` are the end positions of a step
/// (segments); otherwise they are velocities (tracks).
fn cpa_pair<const ENDPOINTS: bool>(
    a0: [f32; 3],
    a1: [f32; 3],
    b0: [f32; 3],
    b1: [f32; 3],
    t_end: f32,
) -> Cpa {
    // Relative motion, formed locally.
    let w0 = sub3(a0, b0);
    let (dv, scale2, d_a, d_b) = if ENDPOINTS {
        let w1 = sub3(a1, b1);
        let dv = sub3(w1, w0);
        (
            dv,
            max_ps(dot(w0, w0), dot(w1, w1)),
            sub3(a1, a0),
            sub3(b1, b0),
        )
    } else {
        (sub3(a1, b1), max_ps(dot(a1, a1), dot(b1, b1)), a1, b1)
    };

    let a = dot(dv, dv);
    let b = dot(w0, dv);
    let same_velocity = a <= (SAME_VELOCITY_REL * SAME_VELOCITY_REL) * scale2;
    let t = if same_velocity {
        0.0
    } else {
        clamp(-b / a, 0.0, t_end)
    };
    let v: [f32; 3] = core::array::from_fn(|i| fma(t, dv[i], w0[i]));
    let dist2 = dot(v, v);

    let non_finite = probe(&[w0[0], w0[1], w0[2], dv[0], dv[1], dv[2], a, b, dist2]);
    if non_finite {
        return Cpa::NON_FINITE;
    }
    Cpa {
        t,
        dist2,
        point_a: core::array::from_fn(|i| fma(t, d_a[i], a0[i])),
        point_b: core::array::from_fn(|i| fma(t, d_b[i], b0[i])),
        flags: if same_velocity {
            MotionFlags::SAME_VELOCITY
        } else {
            MotionFlags::NONE
        },
    }
}

/// Closest point of approach of two tracks over `window` (scalar reference).
///
/// Never panics; a NaN or infinite input gives [`Cpa::NON_FINITE`].
///
/// ```
/// use segbatch::motion::{cpa_scalar, Track, Window};
/// // Head-on along x, 1 apart in y: closest at t = 0.5.
/// let a = Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Track::new([2.0, 1.0, 0.0], [-2.0, 0.0, 0.0]);
/// let c = cpa_scalar(&a, &b, Window::STEP);
/// assert_eq!((c.t, c.dist2), (0.5, 1.0));
/// assert_eq!(c.point_a, [1.0, 0.0, 0.0]);
/// ```
#[must_use]
pub fn cpa_scalar(a: &Track, b: &Track, window: Window) -> Cpa {
    cpa_pair::<false>(a.position, a.velocity, b.position, b.velocity, window.end())
}

/// Closest point of approach of two objects moving from `a.p0` to `a.p1` and from `b.p0`
/// to `b.p1` during the same step (time `[0, 1]`), scalar reference.
///
/// Never panics; a NaN or infinite input gives [`Cpa::NON_FINITE`].
///
/// ```
/// use segbatch::motion::cpa_segments_scalar;
/// use segbatch::Segment;
/// // The paths cross at (1, 0, 0), but A is there at t = 0.5 and B at t = 1.
/// let a = Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Segment::new([1.0, -2.0, 0.0], [1.0, 0.0, 0.0]);
/// let c = cpa_segments_scalar(&a, &b);
/// assert_eq!((c.t, c.dist2), (0.75, 0.5)); // closest at t = 0.75, still 0.707 apart
/// ```
#[must_use]
pub fn cpa_segments_scalar(a: &Segment, b: &Segment) -> Cpa {
    cpa_pair::<true>(a.p0, a.p1, b.p0, b.p1, 1.0)
}

// ---------------------------------------------------------------------------------------
// The 8-lane twin.

/// Eight results.
struct CpaLanes {
    t: f32x8,
    dist2: f32x8,
    point_a: V3,
    point_b: V3,
    flags: u32x8,
}

/// The relative motion of eight pairs: `w0`, `dv` and the scale of `dv`'s rounding.
#[inline(always)]
fn relative8<const ENDPOINTS: bool>(a0: V3, a1: V3, b0: V3, b1: V3) -> (V3, V3, f32x8) {
    let w0 = sub8(a0, b0);
    if ENDPOINTS {
        let w1 = sub8(a1, b1);
        (w0, sub8(w1, w0), dot8(w0, w0).fast_max(dot8(w1, w1)))
    } else {
        (w0, sub8(a1, b1), dot8(a1, a1).fast_max(dot8(b1, b1)))
    }
}

/// The common case, time and distance only: `None` unless every lane is finite and no lane
/// has the same velocity, in which case every `select` of [`cpa8`] would return its last
/// operand and is skipped (bit for bit the same results). Callers handle `None` out of
/// line, and compute the points with [`points8`] from reloaded inputs.
#[inline(always)]
fn cpa8_general<const ENDPOINTS: bool>(
    a0: V3,
    a1: V3,
    b0: V3,
    b1: V3,
    t_end: f32x8,
) -> Option<(f32x8, f32x8)> {
    let zero = f32x8::ZERO;
    let (w0, dv, scale2) = relative8::<ENDPOINTS>(a0, a1, b0, b1);
    let a = dot8(dv, dv);
    let b = dot8(w0, dv);
    let same_velocity = a.simd_le(f32x8::splat(SAME_VELOCITY_REL * SAME_VELOCITY_REL) * scale2);
    let t = clamp8(-b / a, zero, t_end);
    let v = at8(t, dv, w0);
    let dist2 = dot8(v, v);
    let non_finite = probe8(&[w0.x, w0.y, w0.z, dv.x, dv.y, dv.z, a, b, dist2]);
    if (same_velocity | non_finite).any() {
        return None;
    }
    Some((t, dist2))
}

/// The positions at time `t`: `A0 + t·dA`, `B0 + t·dB`.
#[inline(always)]
fn points8<const ENDPOINTS: bool>(a0: V3, a1: V3, b0: V3, b1: V3, t: f32x8) -> (V3, V3) {
    let (d_a, d_b) = if ENDPOINTS {
        (sub8(a1, a0), sub8(b1, b0))
    } else {
        (a1, b1)
    };
    (at8(t, d_a, a0), at8(t, d_b, b0))
}

/// The twin of `cpa_pair` for eight pairs, every branch a mask and a `select`.
#[inline(always)]
fn cpa8<const ENDPOINTS: bool>(a0: V3, a1: V3, b0: V3, b1: V3, t_end: f32x8) -> CpaLanes {
    let zero = f32x8::ZERO;
    let one = f32x8::ONE;
    let (w0, dv, scale2) = relative8::<ENDPOINTS>(a0, a1, b0, b1);

    let a = dot8(dv, dv);
    let b = dot8(w0, dv);
    let same_velocity = a.simd_le(f32x8::splat(SAME_VELOCITY_REL * SAME_VELOCITY_REL) * scale2);
    let a_safe = same_velocity.select(one, a);
    let t = same_velocity.select(zero, clamp8(-b / a_safe, zero, t_end));
    let v = at8(t, dv, w0);
    let dist2 = dot8(v, v);

    let non_finite = probe8(&[w0.x, w0.y, w0.z, dv.x, dv.y, dv.z, a, b, dist2]);
    let (point_a, point_b) = points8::<ENDPOINTS>(a0, a1, b0, b1, t);
    let mut lanes = CpaLanes {
        t,
        dist2,
        point_a,
        point_b,
        flags: bit8(same_velocity, MotionFlags::SAME_VELOCITY),
    };
    if non_finite.any() {
        let nan = f32x8::splat(f32::NAN);
        let blank = |x: f32x8| non_finite.select(nan, x);
        let blank3 = |p: V3| V3 {
            x: blank(p.x),
            y: blank(p.y),
            z: blank(p.z),
        };
        lanes = CpaLanes {
            t: blank(lanes.t),
            dist2: blank(lanes.dist2),
            point_a: blank3(lanes.point_a),
            point_b: blank3(lanes.point_b),
            flags: non_finite.select(
                u32x8::splat(u32::from(MotionFlags::NON_FINITE.bits())),
                lanes.flags,
            ),
        };
    }
    lanes
}

/// `max(lo, min(hi, x))` with `maxps`/`minps`, as `reference::clamp`.
#[inline(always)]
pub(crate) fn clamp8(x: f32x8, lo: f32x8, hi: f32x8) -> f32x8 {
    lo.fast_max(hi.fast_min(x))
}

// ---------------------------------------------------------------------------------------
// Batches.

/// Closest points of approach for a batch of pairs, stored as columns.
///
/// Reuse one across calls to the `*_into` functions: buffers grow and are never shrunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CpaBatch {
    len: usize,
    t: F32Column,
    dist2: F32Column,
    point_a: [F32Column; 3],
    point_b: [F32Column; 3],
    flags: MotionFlagsColumn,
}

impl CpaBatch {
    /// An empty batch.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of pairs.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no results.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Times of closest approach, exactly `len()` values.
    #[must_use]
    pub fn t(&self) -> &[f32] {
        &self.t[..self.len]
    }

    /// Squared distances at the closest approach, exactly `len()` values.
    #[must_use]
    pub fn dist2(&self) -> &[f32] {
        &self.dist2[..self.len]
    }

    /// Positions of A at the closest approach, `[x, y, z]` columns of `len()` values.
    #[must_use]
    pub fn point_a(&self) -> [&[f32]; 3] {
        core::array::from_fn(|k| &self.point_a[k][..self.len])
    }

    /// Positions of B at the closest approach, `[x, y, z]` columns of `len()` values.
    #[must_use]
    pub fn point_b(&self) -> [&[f32]; 3] {
        core::array::from_fn(|k| &self.point_b[k][..self.len])
    }

    /// Per-pair flags, exactly `len()` values.
    #[must_use]
    pub fn flags(&self) -> &[MotionFlags] {
        &self.flags[..self.len]
    }

    /// Result `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[must_use]
    pub fn get(&self, i: usize) -> Cpa {
        assert!(i < self.len, "index {i} out of range for {}", self.len);
        Cpa {
            t: self.t[i],
            dist2: self.dist2[i],
            point_a: core::array::from_fn(|k| self.point_a[k][i]),
            point_b: core::array::from_fn(|k| self.point_b[k][i]),
            flags: self.flags[i],
        }
    }

    /// The results in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Cpa> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Sizes every column for `len` results, padded to whole groups.
    fn reset(&mut self, len: usize) {
        self.len = len;
        for v in [&mut self.t, &mut self.dist2]
            .into_iter()
            .chain(&mut self.point_a)
            .chain(&mut self.point_b)
        {
            v.resize_padded(len);
        }
        self.flags.resize_padded(len);
    }

    /// The columns as groups, split after group `groups` (see [`out_groups`]).
    fn split_groups(&mut self, groups: usize) -> (CpaOut<'_>, CpaOut<'_>) {
        let (t, t_rest) = out_groups(&mut self.t, groups);
        let (dist2, dist2_rest) = out_groups(&mut self.dist2, groups);
        let (flags, flags_rest) = out_groups(&mut self.flags, groups);
        let [pa0, pa1, pa2] = &mut self.point_a;
        let [pb0, pb1, pb2] = &mut self.point_b;
        let (pax, pax_rest) = out_groups(pa0, groups);
        let (pay, pay_rest) = out_groups(pa1, groups);
        let (paz, paz_rest) = out_groups(pa2, groups);
        let (pbx, pbx_rest) = out_groups(pb0, groups);
        let (pby, pby_rest) = out_groups(pb1, groups);
        let (pbz, pbz_rest) = out_groups(pb2, groups);
        (
            CpaOut {
                t,
                dist2,
                point_a: [pax, pay, paz],
                point_b: [pbx, pby, pbz],
                flags,
            },
            CpaOut {
                t: t_rest,
                dist2: dist2_rest,
                point_a: [pax_rest, pay_rest, paz_rest],
                point_b: [pbx_rest, pby_rest, pbz_rest],
                flags: flags_rest,
            },
        )
    }
}

/// Output columns as whole groups: what the loop stores to.
struct CpaOut<'a> {
    t: &'a mut [[f32; LANES]],
    dist2: &'a mut [[f32; LANES]],
    point_a: [&'a mut [[f32; LANES]]; 3],
    point_b: [&'a mut [[f32; LANES]]; 3],
    flags: &'a mut [[MotionFlags; LANES]],
}

impl CpaOut<'_> {
    /// Every column cut to exactly `groups` groups (each holds at least that many), so that
    /// a loop over `0..groups` in the same function stores without bounds checks.
    #[inline(always)]
    fn cut(&mut self, groups: usize) -> CpaOut<'_> {
        let [pax, pay, paz] = &mut self.point_a;
        let [pbx, pby, pbz] = &mut self.point_b;
        CpaOut {
            t: &mut self.t[..groups],
            dist2: &mut self.dist2[..groups],
            point_a: [&mut pax[..groups], &mut pay[..groups], &mut paz[..groups]],
            point_b: [&mut pbx[..groups], &mut pby[..groups], &mut pbz[..groups]],
            flags: &mut self.flags[..groups],
        }
    }

    /// Stores group `g`.
    #[inline(always)]
    fn store(&mut self, g: usize, lanes: &CpaLanes) {
        self.t[g] = lanes.t.to_array();
        self.dist2[g] = lanes.dist2.to_array();
        let pa = [lanes.point_a.x, lanes.point_a.y, lanes.point_a.z];
        let pb = [lanes.point_b.x, lanes.point_b.y, lanes.point_b.z];
        for k in 0..3 {
            self.point_a[k][g] = pa[k].to_array();
            self.point_b[k][g] = pb[k].to_array();
        }
        self.flags[g] = flags8(lanes.flags);
    }
}

/// The four points of group `g` (columns `a0 a1 b0 b1`, x y z each).
#[inline(always)]
fn points(c: [f32x8; 12]) -> (V3, V3, V3, V3) {
    let v3 = |k: usize| V3 {
        x: c[k],
        y: c[k + 1],
        z: c[k + 2],
    };
    (v3(0), v3(3), v3(6), v3(9))
}

/// One group through the masked path, out of line so the common loop stays lean (the
/// caller stores the result: handing it the output columns would let it replace them, and
/// the loop would check bounds again).
#[inline(never)]
fn masked_group<const ENDPOINTS: bool>(
    cols: &[&[[f32; LANES]]; 12],
    g: usize,
    t_end: f32x8,
) -> CpaLanes {
    let (a0, a1, b0, b1) = points(load(cols, g));
    cpa8::<ENDPOINTS>(a0, a1, b0, b1, t_end)
}

fn run<const ENDPOINTS: bool>(
    a: [&[f32]; 6],
    b: [&[f32]; 6],
    n: usize,
    t_end: f32,
    out: &mut CpaBatch,
) {
    out.reset(n);
    let t_end = f32x8::splat(t_end);
    let cols: [&[f32]; 12] = core::array::from_fn(|k| if k < 6 { a[k] } else { b[k - 6] });
    let input = in_groups(cols, n);
    let groups = input.groups;
    let (mut main, mut rest) = out.split_groups(groups);
    {
        // Columns cut here, in the loop's function, so the loop has no bounds checks.
        let cols: [&[[f32; LANES]]; 12] = core::array::from_fn(|c| &input.cols[c][..groups]);
        let mut main = main.cut(groups);
        for g in 0..groups {
            let (a0, a1, b0, b1) = points(load(&cols, g));
            match cpa8_general::<ENDPOINTS>(a0, a1, b0, b1, t_end) {
                Some((t, dist2)) => {
                    main.t[g] = t.to_array();
                    main.dist2[g] = dist2.to_array();
                    main.flags[g] = [MotionFlags::NONE; LANES];
                    // The inputs again, from memory: keeping all twelve live through the
                    // time computation would spill them (sixteen vector registers).
                    let (a0, a1, b0, b1) = points(load(&cols, g));
                    let (pa, pb) = points8::<ENDPOINTS>(a0, a1, b0, b1, t);
                    let pa = [pa.x, pa.y, pa.z];
                    let pb = [pb.x, pb.y, pb.z];
                    for k in 0..3 {
                        main.point_a[k][g] = pa[k].to_array();
                        main.point_b[k][g] = pb[k].to_array();
                    }
                }
                None => main.store(g, &masked_group::<ENDPOINTS>(&cols, g, t_end)),
            }
        }
    }
    if let Some(tail) = &input.tail {
        let cols = core::array::from_fn(|c| core::slice::from_ref(&tail[c]));
        rest.store(0, &masked_group::<ENDPOINTS>(&cols, 0, t_end));
    }
}

/// Closest point of approach of `a[i]` and `b[i]` over `window`, for every `i`
/// (batched twin of [`cpa_scalar`], bit-identical to it).
///
/// # Panics
/// When `a` and `b` differ in length; [`try_cpa_into`] returns an error instead.
///
/// ```
/// use segbatch::motion::{cpa, Track, Tracks, Window};
/// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])][..]);
/// let b = Tracks::from(&[Track::new([2.0, 1.0, 0.0], [-2.0, 0.0, 0.0])][..]);
/// let out = cpa(&a, &b, Window::STEP);
/// assert_eq!(out.t(), &[0.5]);
/// assert_eq!(out.dist2(), &[1.0]);
/// ```
#[must_use]
pub fn cpa<'a, 'b>(
    a: impl Into<TracksView<'a>>,
    b: impl Into<TracksView<'b>>,
    window: Window,
) -> CpaBatch {
    let mut out = CpaBatch::new();
    cpa_into(a, b, window, &mut out);
    out
}

/// Like [`cpa`], writing into `out` and reusing its buffers.
///
/// # Panics
/// When `a` and `b` differ in length; [`try_cpa_into`] returns an error instead.
///
/// ```
/// use segbatch::motion::{cpa_into, CpaBatch, Track, Tracks, Window};
/// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])][..]);
/// let b = Tracks::from(&[Track::new([0.0, 3.0, 0.0], [1.0, 0.0, 0.0])][..]);
/// let mut out = CpaBatch::new();
/// cpa_into(&a, &b, Window::STEP, &mut out);
/// assert_eq!((out.t()[0], out.dist2()[0]), (0.0, 9.0)); // same velocity: t = 0
/// ```
pub fn cpa_into<'a, 'b>(
    a: impl Into<TracksView<'a>>,
    b: impl Into<TracksView<'b>>,
    window: Window,
    out: &mut CpaBatch,
) {
    if let Err(e) = try_cpa_into(a, b, window, out) {
        panic!("segbatch: {e}");
    }
}

/// Like [`cpa_into`], but an error instead of a panic when the lengths differ (`out` is
/// then left unchanged).
///
/// # Errors
/// [`BatchError::LengthMismatch`].
///
/// ```
/// use segbatch::motion::{try_cpa_into, CpaBatch, Tracks, Window};
/// let mut out = CpaBatch::new();
/// let r = try_cpa_into(&Tracks::new(), &Tracks::from_iter([Default::default()]), Window::STEP, &mut out);
/// assert!(r.is_err());
/// ```
pub fn try_cpa_into<'a, 'b>(
    a: impl Into<TracksView<'a>>,
    b: impl Into<TracksView<'b>>,
    window: Window,
    out: &mut CpaBatch,
) -> Result<(), BatchError> {
    let (a, b) = (a.into(), b.into());
    check_len("tracks a and b", a.len(), b.len())?;
    run::<false>(a.raw_columns(), b.raw_columns(), a.len(), window.end(), out);
    Ok(())
}

/// Closest point of approach of objects moving along `a[i]` and `b[i]` (start to end)
/// during the same step, time `[0, 1]` (batched twin of [`cpa_segments_scalar`]).
///
/// # Panics
/// When `a` and `b` differ in length; [`try_cpa_segments_into`] returns an error.
///
/// ```
/// use segbatch::motion::cpa_segments;
/// use segbatch::{Segment, Segments};
/// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
/// let b = Segments::from(&[Segment::new([2.0, 1.0, 0.0], [0.0, 1.0, 0.0])]);
/// let out = cpa_segments(&a, &b);
/// assert_eq!((out.t()[0], out.dist2()[0]), (0.5, 1.0));
/// ```
#[must_use]
pub fn cpa_segments<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
) -> CpaBatch {
    let mut out = CpaBatch::new();
    cpa_segments_into(a, b, &mut out);
    out
}

/// Like [`cpa_segments`], writing into `out` and reusing its buffers.
///
/// # Panics
/// When `a` and `b` differ in length; [`try_cpa_segments_into`] returns an error.
///
/// ```
/// use segbatch::motion::{cpa_segments_into, CpaBatch};
/// use segbatch::{Segment, Segments};
/// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
/// let mut out = CpaBatch::new();
/// cpa_segments_into(&a, &a, &mut out);
/// assert_eq!(out.dist2(), &[0.0]);
/// ```
pub fn cpa_segments_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    out: &mut CpaBatch,
) {
    if let Err(e) = try_cpa_segments_into(a, b, out) {
        panic!("segbatch: {e}");
    }
}

/// Like [`cpa_segments_into`], but an error instead of a panic when the lengths differ.
///
/// # Errors
/// [`BatchError::LengthMismatch`].
///
/// ```
/// use segbatch::motion::{try_cpa_segments_into, CpaBatch};
/// use segbatch::{Segment, Segments};
/// let a = Segments::from(&[Segment::default()]);
/// let mut out = CpaBatch::new();
/// assert!(try_cpa_segments_into(&a, &Segments::new(), &mut out).is_err());
/// ```
pub fn try_cpa_segments_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    out: &mut CpaBatch,
) -> Result<(), BatchError> {
    let (a, b) = (a.into(), b.into());
    check_len("segments a and b", a.len(), b.len())?;
    run::<true>(a.raw_columns(), b.raw_columns(), a.len(), 1.0, out);
    Ok(())
}
