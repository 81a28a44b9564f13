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

use super::{MotionFlags, SAME_VELOCITY_REL, TracksView, Window, probe, sub3};
use crate::LANES;
use crate::batch::{Error, SegmentsView, check_len};
use crate::columns::{GroupStore, SplitColumns, result_batch};
use crate::driver::{self, PairKernel};
use crate::forms::query_forms;
use crate::lanes::{V3, at8, bits8, bytes8, clamp8, dot8, mask_to, probe8, sub8};
use crate::reference::{clamp, dot, fma, max_ps};
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
pub(crate) fn cpa_pair<const ENDPOINTS: bool>(
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
            MotionFlags::empty()
        },
    }
}

// ---------------------------------------------------------------------------------------
// The 8-lane twin.

/// Eight results, flags as stored.
pub(crate) struct CpaLanes {
    t: f32x8,
    dist2: f32x8,
    point_a: V3,
    point_b: V3,
    flags: [MotionFlags; LANES],
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
        flags: mask_to(same_velocity, MotionFlags::SAME_VELOCITY.bits()),
    };
    if non_finite.any() {
        let nan = f32x8::splat(f32::NAN);
        let blank = |x: f32x8| non_finite.select(nan, x);
        let flags = non_finite.select(
            u32x8::splat(u32::from(MotionFlags::NON_FINITE.bits())),
            bits8(same_velocity, MotionFlags::SAME_VELOCITY.bits()),
        );
        lanes = CpaLanes {
            t: blank(lanes.t),
            dist2: blank(lanes.dist2),
            point_a: lanes.point_a.map(blank),
            point_b: lanes.point_b.map(blank),
            flags: bytes8(flags, MotionFlags::from_bits_truncate),
        };
    }
    lanes
}

// ---------------------------------------------------------------------------------------
// Batches.

result_batch! {
    /// Closest points of approach for a batch of pairs, stored as columns.
    ///
    /// Reuse one across calls to the `*_into` functions: buffers grow and are never shrunk.
    pub struct CpaBatch(Cpa) stored as CpaOut {
        columns {
            /// Times of closest approach, exactly `len()` values.
            t: f32,
            /// Squared distances at the closest approach, exactly `len()` values.
            dist2: f32,
            /// Per-pair flags, exactly `len()` values.
            flags: MotionFlags,
        }
        points {
            /// Positions of A at the closest approach, `[x, y, z]` columns of `len()` values.
            point_a: 3,
            /// Positions of B at the closest approach, `[x, y, z]` columns of `len()` values.
            point_b: 3,
        }
    }
}

impl GroupStore for CpaOut<'_> {
    type Lanes = CpaLanes;
    #[inline(always)]
    fn store(&mut self, g: usize, lanes: &CpaLanes) {
        self.t[g] = lanes.t.to_array();
        self.dist2[g] = lanes.dist2.to_array();
        let (pa, pb) = (lanes.point_a.to_array(), lanes.point_b.to_array());
        for k in 0..3 {
            self.point_a[k][g] = pa[k].to_array();
            self.point_b[k][g] = pb[k].to_array();
        }
        self.flags[g] = lanes.flags;
    }
    #[inline(always)]
    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_columns(mid)
    }
}

/// The four points of a group (columns `a0 a1 b0 b1`, x y z each).
#[inline(always)]
fn points(c: &[f32x8; 12]) -> (V3, V3, V3, V3) {
    let v = |k| V3::at_column(c, k);
    (v(0), v(3), v(6), v(9))
}

/// CPA over twelve input columns: tracks (`ENDPOINTS = false`: positions then velocities)
/// or start/end segments, time clamped to `[0, t_end]`.
struct CpaKernel<const ENDPOINTS: bool> {
    t_end: f32x8,
}

impl<const ENDPOINTS: bool> PairKernel<12> for CpaKernel<ENDPOINTS> {
    type Lanes = CpaLanes;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [f32x8; 12]) -> Option<CpaLanes> {
        let (a0, a1, b0, b1) = points(&load());
        let (t, dist2) = cpa8_general::<ENDPOINTS>(a0, a1, b0, b1, self.t_end)?;
        // The inputs again, from memory: keeping all twelve live through the time
        // computation would spill them (sixteen vector registers). The opaque call stops
        // the compiler from merging this load with the first one (which it would then keep
        // on the stack): 110 instructions per group instead of 131 (callgrind).
        core::hint::black_box(());
        let (a0, a1, b0, b1) = points(&load());
        let (point_a, point_b) = points8::<ENDPOINTS>(a0, a1, b0, b1, t);
        Some(CpaLanes {
            t,
            dist2,
            point_a,
            point_b,
            flags: [MotionFlags::empty(); LANES],
        })
    }
    #[inline(always)]
    fn masked(&self, x: [f32x8; 12]) -> CpaLanes {
        let (a0, a1, b0, b1) = points(&x);
        cpa8::<ENDPOINTS>(a0, a1, b0, b1, self.t_end)
    }
}

/// Checks the lengths, sizes `out` and runs the kernel (sequentially or on all cores).
fn run<const ENDPOINTS: bool>(
    a: [&[f32]; 6],
    b: [&[f32]; 6],
    lens: (usize, usize),
    t_end: f32,
    parallel: bool,
    out: &mut CpaBatch,
) -> Result<(), Error> {
    check_len("batches a and b", lens.0, lens.1)?;
    let n = lens.0;
    out.reset(n, |_| true);
    let cols: [&[f32]; 12] = core::array::from_fn(|k| if k < 6 { a[k] } else { b[k - 6] });
    let kernel = CpaKernel::<ENDPOINTS> {
        t_end: f32x8::splat(t_end),
    };
    driver::run_on(parallel, &kernel, cols, n, out.out());
    Ok(())
}

fn tracks<'a, 'b>(
    a: impl Into<TracksView<'a>>,
    b: impl Into<TracksView<'b>>,
    window: Window,
    parallel: bool,
    out: &mut CpaBatch,
) -> Result<(), Error> {
    let (a, b) = (a.into(), b.into());
    let lens = (a.len(), b.len());
    run::<false>(
        a.raw_columns(),
        b.raw_columns(),
        lens,
        window.end(),
        parallel,
        out,
    )
}

fn segments<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    parallel: bool,
    out: &mut CpaBatch,
) -> Result<(), Error> {
    let (a, b) = (a.into(), b.into());
    let lens = (a.len(), b.len());
    run::<true>(a.raw_columns(), b.raw_columns(), lens, 1.0, parallel, out)
}

query_forms! {
    /// Closest point of approach of `a[i]` and `b[i]` over `window`, for every `i` (batched
    /// twin of [`reference::cpa`](crate::reference::cpa), bit-identical to it).
    ///
    /// ```
    /// use segbatch::motion::{cpa, Track, Tracks, Window};
    /// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
    /// let b = Tracks::from(&[Track::new([2.0, 1.0, 0.0], [-2.0, 0.0, 0.0])]);
    /// let out = cpa(&a, &b, Window::STEP);
    /// assert_eq!(out.t(), &[0.5]);
    /// assert_eq!(out.dist2(), &[1.0]);
    /// ```
    pub fn cpa / cpa_into / par_cpa / par_cpa_into
        <'a, 'b>(a: impl Into<TracksView<'a>>, b: impl Into<TracksView<'b>>, window: Window)
        with ()
        -> CpaBatch = tracks;
    /// [`cpa`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a` and `b` differ in length (`out` is then
    /// unchanged).
    ///
    /// ```
    /// use segbatch::motion::{cpa_into, CpaBatch, Track, Tracks, Window};
    /// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
    /// let b = Tracks::from(&[Track::new([0.0, 3.0, 0.0], [1.0, 0.0, 0.0])]);
    /// let mut out = CpaBatch::new();
    /// cpa_into(&a, &b, Window::STEP, &mut out)?;
    /// assert_eq!((out.t()[0], out.dist2()[0]), (0.0, 9.0)); // same velocity: t = 0
    /// assert!(cpa_into(&a, &Tracks::new(), Window::STEP, &mut out).is_err());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    into;
}

query_forms! {
    /// Closest point of approach of objects moving along `a[i]` and `b[i]` (start to end)
    /// during the same step, time `[0, 1]` (batched twin of
    /// [`reference::cpa_segments`](crate::reference::cpa_segments)).
    ///
    /// ```
    /// use segbatch::motion::cpa_segments;
    /// use segbatch::{Segment, Segments};
    /// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
    /// let b = Segments::from(&[Segment::new([2.0, 1.0, 0.0], [0.0, 1.0, 0.0])]);
    /// let out = cpa_segments(&a, &b);
    /// assert_eq!((out.t()[0], out.dist2()[0]), (0.5, 1.0));
    /// ```
    pub fn cpa_segments / cpa_segments_into / par_cpa_segments / par_cpa_segments_into
        <'a, 'b>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>)
        with ()
        -> CpaBatch = segments;
    /// [`cpa_segments`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a` and `b` differ in length (`out` is then
    /// unchanged).
    into;
}
