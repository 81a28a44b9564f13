//! Time of first contact of two spheres moving linearly (the dynamic sphere-sphere test):
//! the scalar reference and its 8-lane twin, side by side.
//!
//! # Method
//!
//! With the relative motion `w(t) = w0 + t·dv` formed locally (as in `cpa.rs`) and
//! `R = rA + rB`, contact is `|w(t)|² = R²`, the quadratic `a·t² + 2b·t + c = 0` with
//!
//! - `a = dv·dv`, `b = w0·dv`, `c = |w0|² - R²` (one fused operation: `ww - R·R`);
//! - the discriminant in Lagrange's form `b² - a·c = R²·a - |w0 × dv|²`, which does not
//!   cancel the two large terms `b²` and `a·|w0|²` against each other: what is left is the
//!   intrinsic cancellation of a tangent contact (`R` against the miss distance of the
//!   relative line).
//!
//! Cases, in order:
//!
//! 1. `c <= 0`: **touching at start** (distance at most `R` at `t = 0`): `t = 0`, hit,
//!    [`MotionFlags::TOUCHING_AT_START`].
//! 2. `b < 0` (approaching) and `disc >= 0` (the relative line comes within `R`): the first
//!    root in the stable form `t = c / (-b + sqrt(disc))`. The denominator is at least
//!    `-b > 0` and never cancels, and nothing is divided by `a`, so zero or tiny relative
//!    velocities need no special case (they give `b = 0`, a miss, or a huge `t`, outside
//!    the window). A hit when `t <= T`.
//! 3. Otherwise **no contact** in the window: `t = +∞`.
//!
//! Near a tangent contact the time itself is ill-conditioned (the distance barely changes
//! with `t`), but the distance at the reported time is within a few ulps of `R`, which is
//! what `tests/motion.rs` checks against an f64 oracle.
//!
//! | reference                                   | kernel                                                |
//! |---------------------------------------------|-------------------------------------------------------|
//! | `if touching { 0 } else if hit_later { t_root } else { ∞ }` | nested `select` on `touching`, `hit_later` |
//! | `c / if approaching { q } else { 1 }`       | `c / approaching.select(q, 1)`                        |

use super::{
    MotionFlags, MotionFlagsColumn, Track, TracksView, V3, Window, bit8, check_len, cross8, dot8,
    flag_bytes, flags8, in_groups, load, mask_bytes, out_groups, probe, probe8, sub3, sub8,
};
use crate::batch::{BatchError, F32Column, LANES, SegmentsView, padded_len};
use crate::reference::{cross, dot, fms, fnma, max_ps};
use crate::segment::Segment;
use wide::{f32x8, u32x8};

/// The first contact of one pair of moving spheres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// True when the spheres touch at some time of the window.
    pub hit: bool,
    /// The first time of contact (0 when touching at start); `+∞` without contact; NaN for
    /// a non-finite input.
    pub t: f32,
    /// [`MotionFlags::TOUCHING_AT_START`] and/or [`MotionFlags::NON_FINITE`].
    pub flags: MotionFlags,
}

impl Contact {
    /// The result for a pair with a non-finite input: no hit, `t` NaN, flagged.
    pub const NON_FINITE: Contact = Contact {
        hit: false,
        t: f32::NAN,
        flags: MotionFlags::NON_FINITE,
    };
}

// ---------------------------------------------------------------------------------------
// Scalar reference.

/// The algorithm for one pair; `a1`/`b1` are end positions with `ENDPOINTS`, velocities
/// otherwise.
fn contact_pair<const ENDPOINTS: bool>(
    a0: [f32; 3],
    a1: [f32; 3],
    b0: [f32; 3],
    b1: [f32; 3],
    r_sum: f32,
    t_end: f32,
) -> Contact {
    let w0 = sub3(a0, b0);
    let dv = if ENDPOINTS {
        sub3(sub3(a1, b1), w0)
    } else {
        sub3(a1, b1)
    };

    let ww = dot(w0, w0);
    let rr = r_sum * r_sum;
    let c = fnma(r_sum, r_sum, ww); // |w0|² - R²
    let touching = c <= 0.0;
    let a = dot(dv, dv);
    let b = dot(w0, dv);
    let n = cross(w0, dv);
    let disc = fms(rr, a, dot(n, n)); // R²·a - |w0 × dv|² = b² - a·c
    let approaching = b < 0.0 && disc >= 0.0;
    let q = max_ps(disc, 0.0).sqrt() - b; // -b + sqrt(disc) >= -b > 0
    let t_root = c / if approaching { q } else { 1.0 };
    let hit_later = !touching && approaching && t_root <= t_end;
    let t = if touching {
        0.0
    } else if hit_later {
        t_root
    } else {
        f32::INFINITY
    };

    let non_finite = probe(&[
        w0[0], w0[1], w0[2], dv[0], dv[1], dv[2], r_sum, ww, rr, a, b, disc,
    ]);
    if non_finite {
        return Contact::NON_FINITE;
    }
    Contact {
        hit: touching || hit_later,
        t,
        flags: if touching {
            MotionFlags::TOUCHING_AT_START
        } else {
            MotionFlags::NONE
        },
    }
}

/// First contact, within `window`, of a sphere of radius `radius_a` moving along track `a`
/// and one of radius `radius_b` moving along `b` (scalar reference). Radii are expected to
/// be non-negative; contact is at distance `radius_a + radius_b`.
///
/// Never panics; a NaN or infinite input gives [`Contact::NON_FINITE`].
///
/// ```
/// use segbatch::motion::{first_contact_scalar, Track, Window};
/// // Closing at 4 units per step from 4 apart, radii 0.5 + 0.5: contact at t = 0.75.
/// let a = Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]);
/// let b = Track::new([4.0, 0.0, 0.0], [-2.0, 0.0, 0.0]);
/// let c = first_contact_scalar(&a, 0.5, &b, 0.5, Window::STEP);
/// assert!(c.hit);
/// assert_eq!(c.t, 0.75);
/// ```
#[must_use]
pub fn first_contact_scalar(
    a: &Track,
    radius_a: f32,
    b: &Track,
    radius_b: f32,
    window: Window,
) -> Contact {
    contact_pair::<false>(
        a.position,
        a.velocity,
        b.position,
        b.velocity,
        radius_a + radius_b,
        window.end(),
    )
}

/// First contact, during one step (time `[0, 1]`), of spheres whose centres move from
/// `a.p0` to `a.p1` and from `b.p0` to `b.p1` (scalar reference).
///
/// Never panics; a NaN or infinite input gives [`Contact::NON_FINITE`].
///
/// ```
/// use segbatch::motion::first_contact_segments_scalar;
/// use segbatch::Segment;
/// // Paths cross at right angles, but B arrives after A has gone: no contact.
/// let a = Segment::new([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]);
/// let b = Segment::new([0.0, -3.0, 0.0], [0.0, -1.0, 0.0]);
/// assert!(!first_contact_segments_scalar(&a, 0.25, &b, 0.25).hit);
/// ```
#[must_use]
pub fn first_contact_segments_scalar(
    a: &Segment,
    radius_a: f32,
    b: &Segment,
    radius_b: f32,
) -> Contact {
    contact_pair::<true>(a.p0, a.p1, b.p0, b.p1, radius_a + radius_b, 1.0)
}

// ---------------------------------------------------------------------------------------
// The 8-lane twin.

/// Eight results: the hit mask, `t` and the flag bits.
struct ContactLanes {
    hit: f32x8,
    t: f32x8,
    flags: u32x8,
}

/// The twin of `contact_pair` without its non-finite case, and the non-finite mask: every
/// lane's result is final unless the mask has a lane set.
#[inline(always)]
fn contact8_finite<const ENDPOINTS: bool>(
    a0: V3,
    a1: V3,
    b0: V3,
    b1: V3,
    r_sum: f32x8,
    t_end: f32x8,
) -> (ContactLanes, f32x8, f32x8) {
    let zero = f32x8::ZERO;
    let w0 = sub8(a0, b0);
    let dv = if ENDPOINTS {
        sub8(sub8(a1, b1), w0)
    } else {
        sub8(a1, b1)
    };

    let ww = dot8(w0, w0);
    let rr = r_sum * r_sum;
    let c = r_sum.mul_neg_add(r_sum, ww);
    let touching = c.simd_le(zero);
    let a = dot8(dv, dv);
    let b = dot8(w0, dv);
    let n = cross8(w0, dv);
    let disc = rr.mul_sub(a, dot8(n, n));
    let approaching = b.simd_lt(zero) & disc.simd_ge(zero);
    let q = disc.fast_max(zero).sqrt() - b;
    let t_root = c / approaching.select(q, f32x8::ONE);
    let hit_later = !touching & approaching & t_root.simd_le(t_end);
    let t = touching.select(zero, hit_later.select(t_root, f32x8::splat(f32::INFINITY)));
    let hit = touching | hit_later;
    let flags = bit8(touching, MotionFlags::TOUCHING_AT_START);

    let non_finite = probe8(&[
        w0.x, w0.y, w0.z, dv.x, dv.y, dv.z, r_sum, ww, rr, a, b, disc,
    ]);
    (ContactLanes { hit, t, flags }, touching, non_finite)
}

/// The twin of `contact_pair` for eight pairs, non-finite lanes included.
#[inline(always)]
fn contact8<const ENDPOINTS: bool>(
    a0: V3,
    a1: V3,
    b0: V3,
    b1: V3,
    r_sum: f32x8,
    t_end: f32x8,
) -> ContactLanes {
    let (lanes, _, non_finite) = contact8_finite::<ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end);
    if !non_finite.any() {
        return lanes;
    }
    ContactLanes {
        hit: !non_finite & lanes.hit,
        t: non_finite.select(f32x8::splat(f32::NAN), lanes.t),
        flags: non_finite.select(
            u32x8::splat(u32::from(MotionFlags::NON_FINITE.bits())),
            lanes.flags,
        ),
    }
}

// ---------------------------------------------------------------------------------------
// Batches.

/// First contacts for a batch of pairs, stored as columns.
///
/// Reuse one across calls to the `*_into` functions: buffers grow and are never shrunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactBatch {
    len: usize,
    hit: Vec<bool>,
    t: F32Column,
    flags: MotionFlagsColumn,
}

impl ContactBatch {
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

    /// The mask of hits, exactly `len()` values.
    #[must_use]
    pub fn hit(&self) -> &[bool] {
        &self.hit[..self.len]
    }

    /// First contact times (`+∞` without contact), exactly `len()` values.
    #[must_use]
    pub fn t(&self) -> &[f32] {
        &self.t[..self.len]
    }

    /// Per-pair flags, exactly `len()` values.
    #[must_use]
    pub fn flags(&self) -> &[MotionFlags] {
        &self.flags[..self.len]
    }

    /// Indices of the pairs that make contact, in order.
    pub fn hits(&self) -> impl Iterator<Item = usize> + '_ {
        self.hit()
            .iter()
            .enumerate()
            .filter(|(_, h)| **h)
            .map(|(i, _)| i)
    }

    /// Result `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[must_use]
    pub fn get(&self, i: usize) -> Contact {
        assert!(i < self.len, "index {i} out of range for {}", self.len);
        Contact {
            hit: self.hit[i],
            t: self.t[i],
            flags: self.flags[i],
        }
    }

    /// The results in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Contact> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Sizes every column for `len` results, padded to whole groups.
    fn reset(&mut self, len: usize) {
        self.len = len;
        self.hit.resize(padded_len(len), false);
        self.t.resize_padded(len);
        self.flags.resize_padded(len);
    }

    /// The columns as groups, split after group `groups` (see [`out_groups`]).
    fn split_groups(&mut self, groups: usize) -> (ContactOut<'_>, ContactOut<'_>) {
        let (hit, hit_rest) = out_groups(&mut self.hit, groups);
        let (t, t_rest) = out_groups(&mut self.t, groups);
        let (flags, flags_rest) = out_groups(&mut self.flags, groups);
        (
            ContactOut { hit, t, flags },
            ContactOut {
                hit: hit_rest,
                t: t_rest,
                flags: flags_rest,
            },
        )
    }
}

/// Output columns as whole groups: what the loop stores to.
struct ContactOut<'a> {
    hit: &'a mut [[bool; LANES]],
    t: &'a mut [[f32; LANES]],
    flags: &'a mut [[MotionFlags; LANES]],
}

impl ContactOut<'_> {
    /// Every column cut to exactly `groups` groups (each holds at least that many), so that
    /// a loop over `0..groups` in the same function stores without bounds checks.
    #[inline(always)]
    fn cut(&mut self, groups: usize) -> ContactOut<'_> {
        ContactOut {
            hit: &mut self.hit[..groups],
            t: &mut self.t[..groups],
            flags: &mut self.flags[..groups],
        }
    }

    /// Stores group `g`.
    #[inline(always)]
    fn store(&mut self, g: usize, lanes: &ContactLanes) {
        self.t[g] = lanes.t.to_array();
        self.hit[g] = hit_bools(lanes.hit);
        self.flags[g] = flags8(lanes.flags);
    }
}

/// The hit mask as eight `bool`s.
#[inline(always)]
fn hit_bools(hit: f32x8) -> [bool; LANES] {
    mask_bytes(hit).to_le_bytes().map(|b| b != 0)
}

/// The four points and two radii of group `g`.
#[inline(always)]
fn inputs(c: [f32x8; 14]) -> (V3, V3, V3, V3, f32x8) {
    let v3 = |k: usize| V3 {
        x: c[k],
        y: c[k + 1],
        z: c[k + 2],
    };
    (v3(0), v3(3), v3(6), v3(9), c[12] + c[13])
}

/// One group with a non-finite lane (or the partial last group), out of line so the common
/// loop stays lean (the caller stores the result: handing it the output columns would let
/// it replace them, and the loop would check bounds again).
#[inline(never)]
fn masked_group<const ENDPOINTS: bool>(
    cols: &[&[[f32; LANES]]; 14],
    g: usize,
    t_end: f32x8,
) -> ContactLanes {
    let (a0, a1, b0, b1, r_sum) = inputs(load(cols, g));
    contact8::<ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end)
}

#[allow(clippy::too_many_arguments)]
fn run<const ENDPOINTS: bool>(
    a: [&[f32]; 6],
    b: [&[f32]; 6],
    radius_a: &[f32],
    radius_b: &[f32],
    n: usize,
    t_end: f32,
    out: &mut ContactBatch,
) {
    out.reset(n);
    let t_end = f32x8::splat(t_end);
    let cols: [&[f32]; 14] = core::array::from_fn(|k| match k {
        0..6 => a[k],
        6..12 => b[k - 6],
        12 => radius_a,
        _ => radius_b,
    });
    let input = in_groups(cols, n);
    let groups = input.groups;
    let (mut main, mut rest) = out.split_groups(groups);
    {
        // Columns cut here, in the loop's function, so the loop has no bounds checks.
        let cols: [&[[f32; LANES]]; 14] = core::array::from_fn(|c| &input.cols[c][..groups]);
        let mut main = main.cut(groups);
        for g in 0..groups {
            let (a0, a1, b0, b1, r_sum) = inputs(load(&cols, g));
            let (lanes, touching, non_finite) =
                contact8_finite::<ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end);
            if non_finite.any() {
                main.store(g, &masked_group::<ENDPOINTS>(&cols, g, t_end));
            } else {
                main.t[g] = lanes.t.to_array();
                main.hit[g] = hit_bools(lanes.hit);
                // The only flag of a finite lane, straight from its mask.
                main.flags[g] = flag_bytes(touching, MotionFlags::TOUCHING_AT_START);
            }
        }
    }
    if let Some(tail) = &input.tail {
        let cols = core::array::from_fn(|c| core::slice::from_ref(&tail[c]));
        rest.store(0, &masked_group::<ENDPOINTS>(&cols, 0, t_end));
    }
}

fn check4(n: usize, b: usize, ra: usize, rb: usize) -> Result<(), BatchError> {
    check_len("batches a and b", n, b)?;
    check_len("radius_a", n, ra)?;
    check_len("radius_b", n, rb)
}

/// First contact within `window` of spheres of radius `radius_a[i]` moving along track
/// `a[i]` and `radius_b[i]` along `b[i]`, for every `i` (batched twin of
/// [`first_contact_scalar`], bit-identical to it).
///
/// # Panics
/// When the four inputs differ in length; [`try_first_contact_into`] returns an error.
///
/// ```
/// use segbatch::motion::{first_contact, Track, Tracks, Window};
/// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])][..]);
/// let b = Tracks::from(&[Track::new([4.0, 0.0, 0.0], [-2.0, 0.0, 0.0])][..]);
/// let out = first_contact(&a, &[0.5], &b, &[0.5], Window::STEP);
/// assert_eq!(out.hit(), &[true]);
/// assert_eq!(out.t(), &[0.75]);
/// ```
#[must_use]
pub fn first_contact<'a, 'b>(
    a: impl Into<TracksView<'a>>,
    radius_a: &[f32],
    b: impl Into<TracksView<'b>>,
    radius_b: &[f32],
    window: Window,
) -> ContactBatch {
    let mut out = ContactBatch::new();
    first_contact_into(a, radius_a, b, radius_b, window, &mut out);
    out
}

/// Like [`first_contact`], writing into `out` and reusing its buffers.
///
/// # Panics
/// When the four inputs differ in length; [`try_first_contact_into`] returns an error.
///
/// ```
/// use segbatch::motion::{first_contact_into, ContactBatch, Track, Tracks, Window};
/// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [0.0, 0.0, 0.0])][..]);
/// let b = Tracks::from(&[Track::new([0.5, 0.0, 0.0], [9.0, 0.0, 0.0])][..]);
/// let mut out = ContactBatch::new();
/// first_contact_into(&a, &[0.5], &b, &[0.5], Window::STEP, &mut out);
/// assert_eq!((out.hit()[0], out.t()[0]), (true, 0.0)); // already touching
/// ```
pub fn first_contact_into<'a, 'b>(
    a: impl Into<TracksView<'a>>,
    radius_a: &[f32],
    b: impl Into<TracksView<'b>>,
    radius_b: &[f32],
    window: Window,
    out: &mut ContactBatch,
) {
    if let Err(e) = try_first_contact_into(a, radius_a, b, radius_b, window, out) {
        panic!("segbatch: {e}");
    }
}

/// Like [`first_contact_into`], but an error instead of a panic when the lengths differ
/// (`out` is then left unchanged).
///
/// # Errors
/// [`BatchError::LengthMismatch`].
///
/// ```
/// use segbatch::motion::{try_first_contact_into, ContactBatch, Track, Tracks, Window};
/// let a = Tracks::from(&[Track::default()][..]);
/// let mut out = ContactBatch::new();
/// assert!(try_first_contact_into(&a, &[1.0, 2.0], &a, &[1.0], Window::STEP, &mut out).is_err());
/// ```
pub fn try_first_contact_into<'a, 'b>(
    a: impl Into<TracksView<'a>>,
    radius_a: &[f32],
    b: impl Into<TracksView<'b>>,
    radius_b: &[f32],
    window: Window,
    out: &mut ContactBatch,
) -> Result<(), BatchError> {
    let (a, b) = (a.into(), b.into());
    check4(a.len(), b.len(), radius_a.len(), radius_b.len())?;
    run::<false>(
        a.raw_columns(),
        b.raw_columns(),
        radius_a,
        radius_b,
        a.len(),
        window.end(),
        out,
    );
    Ok(())
}

/// First contact during one step (time `[0, 1]`) of spheres whose centres move along
/// `a[i]` and `b[i]` (start to end), for every `i` (batched twin of
/// [`first_contact_segments_scalar`]).
///
/// # Panics
/// When the four inputs differ in length; [`try_first_contact_segments_into`] returns an
/// error.
///
/// ```
/// use segbatch::motion::first_contact_segments;
/// use segbatch::{Segment, Segments};
/// let a = Segments::from(&[Segment::new([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
/// let b = Segments::from(&[Segment::new([0.0, -3.0, 0.0], [0.0, -1.0, 0.0])]);
/// let out = first_contact_segments(&a, &[0.25], &b, &[0.25]);
/// assert_eq!(out.hit(), &[false]);
/// assert_eq!(out.t(), &[f32::INFINITY]);
/// ```
#[must_use]
pub fn first_contact_segments<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    radius_a: &[f32],
    b: impl Into<SegmentsView<'b>>,
    radius_b: &[f32],
) -> ContactBatch {
    let mut out = ContactBatch::new();
    first_contact_segments_into(a, radius_a, b, radius_b, &mut out);
    out
}

/// Like [`first_contact_segments`], writing into `out` and reusing its buffers.
///
/// # Panics
/// When the four inputs differ in length; [`try_first_contact_segments_into`] returns an
/// error.
///
/// ```
/// use segbatch::motion::{first_contact_segments_into, ContactBatch};
/// use segbatch::{Segment, Segments};
/// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [4.0, 0.0, 0.0])]);
/// let b = Segments::from(&[Segment::new([4.0, 0.0, 0.0], [4.0, 0.0, 0.0])]);
/// let mut out = ContactBatch::new();
/// first_contact_segments_into(&a, &[1.0], &b, &[1.0], &mut out);
/// assert_eq!(out.t(), &[0.5]);
/// ```
pub fn first_contact_segments_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    radius_a: &[f32],
    b: impl Into<SegmentsView<'b>>,
    radius_b: &[f32],
    out: &mut ContactBatch,
) {
    if let Err(e) = try_first_contact_segments_into(a, radius_a, b, radius_b, out) {
        panic!("segbatch: {e}");
    }
}

/// Like [`first_contact_segments_into`], but an error instead of a panic when the lengths
/// differ (`out` is then left unchanged).
///
/// # Errors
/// [`BatchError::LengthMismatch`].
///
/// ```
/// use segbatch::motion::{try_first_contact_segments_into, ContactBatch};
/// use segbatch::{Segment, Segments};
/// let a = Segments::from(&[Segment::default()]);
/// let mut out = ContactBatch::new();
/// assert!(try_first_contact_segments_into(&a, &[1.0], &a, &[], &mut out).is_err());
/// ```
pub fn try_first_contact_segments_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    radius_a: &[f32],
    b: impl Into<SegmentsView<'b>>,
    radius_b: &[f32],
    out: &mut ContactBatch,
) -> Result<(), BatchError> {
    let (a, b) = (a.into(), b.into());
    check4(a.len(), b.len(), radius_a.len(), radius_b.len())?;
    run::<true>(
        a.raw_columns(),
        b.raw_columns(),
        radius_a,
        radius_b,
        a.len(),
        1.0,
        out,
    );
    Ok(())
}
