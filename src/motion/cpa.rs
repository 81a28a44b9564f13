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
    MotionFlags, SAME_VELOCITY_REL, Track, TracksView, V3, Window, at8, bit8, check_len, dot8,
    flags_of, for_groups, probe, probe8, put, sub3, sub8,
};
use crate::batch::{BatchError, LANES, SegmentsView, padded_len};
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

/// The twin of `cpa_pair` for eight pairs.
#[inline(always)]
fn cpa8<const ENDPOINTS: bool>(a0: V3, a1: V3, b0: V3, b1: V3, t_end: f32x8) -> CpaLanes {
    let zero = f32x8::ZERO;
    let one = f32x8::ONE;
    let w0 = sub8(a0, b0);
    let (dv, scale2, d_a, d_b) = if ENDPOINTS {
        let w1 = sub8(a1, b1);
        let dv = sub8(w1, w0);
        (
            dv,
            dot8(w0, w0).fast_max(dot8(w1, w1)),
            sub8(a1, a0),
            sub8(b1, b0),
        )
    } else {
        (sub8(a1, b1), dot8(a1, a1).fast_max(dot8(b1, b1)), a1, b1)
    };

    let a = dot8(dv, dv);
    let b = dot8(w0, dv);
    let same_velocity = a.simd_le(f32x8::splat(SAME_VELOCITY_REL * SAME_VELOCITY_REL) * scale2);
    let a_safe = same_velocity.select(one, a);
    let t = same_velocity.select(zero, clamp8(-b / a_safe, zero, t_end));
    let v = at8(t, dv, w0);
    let dist2 = dot8(v, v);

    let non_finite = probe8(&[w0.x, w0.y, w0.z, dv.x, dv.y, dv.z, a, b, dist2]);
    let mut lanes = CpaLanes {
        t,
        dist2,
        point_a: at8(t, d_a, a0),
        point_b: at8(t, d_b, b0),
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
    t: Vec<f32>,
    dist2: Vec<f32>,
    point_a: [Vec<f32>; 3],
    point_b: [Vec<f32>; 3],
    flags: Vec<MotionFlags>,
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

    fn reset(&mut self, len: usize) {
        let n = padded_len(len);
        self.len = len;
        for v in [&mut self.t, &mut self.dist2]
            .into_iter()
            .chain(&mut self.point_a)
            .chain(&mut self.point_b)
        {
            v.resize(n, 0.0);
        }
        self.flags.resize(n, MotionFlags::NONE);
    }
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
    for_groups(cols, n, |j, c| {
        let v3 = |k: usize| V3 {
            x: c[k],
            y: c[k + 1],
            z: c[k + 2],
        };
        let lanes = cpa8::<ENDPOINTS>(v3(0), v3(3), v3(6), v3(9), t_end);
        put(&mut out.t, j, lanes.t);
        put(&mut out.dist2, j, lanes.dist2);
        for (col, x) in
            out.point_a
                .iter_mut()
                .zip([lanes.point_a.x, lanes.point_a.y, lanes.point_a.z])
        {
            put(col, j, x);
        }
        for (col, x) in
            out.point_b
                .iter_mut()
                .zip([lanes.point_b.x, lanes.point_b.y, lanes.point_b.z])
        {
            put(col, j, x);
        }
        for (dst, bits) in out.flags[j..j + LANES]
            .iter_mut()
            .zip(lanes.flags.to_array())
        {
            *dst = flags_of(bits);
        }
    });
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
