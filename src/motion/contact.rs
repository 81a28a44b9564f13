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
//! what `tests/suite/motion.rs` checks against an f64 oracle.
//!
//! | reference                                   | kernel                                                |
//! |---------------------------------------------|-------------------------------------------------------|
//! | `if touching { 0 } else if hit_later { t_root } else { ∞ }` | nested `select` on `touching`, `hit_later` |
//! | `c / if approaching { q } else { 1 }`       | `c / approaching.select(q, 1)`                        |

use super::types::{MotionFlags, TracksView, Window};
use crate::batch::{Error, SegmentsView, check_len};
use crate::columns::LANES;
use crate::columns::{GroupStore, SplitColumns, result_batch};
use crate::driver::{self, PairKernel};
use crate::forms::query_forms;
use crate::lanes::{V3, bits8, bytes8, cross8, dot8, mask_bools, mask_to, probe8, sub8};
use crate::pairs::Radii;
use crate::real::{cross, dot, fms, fnma, max_ps, probe, sub3};
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
pub(crate) fn contact_pair<const ENDPOINTS: bool>(
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
            MotionFlags::empty()
        },
    }
}

// ---------------------------------------------------------------------------------------
// The 8-lane twin.

/// Eight results as stored.
pub(crate) struct ContactLanes {
    hit: [bool; LANES],
    t: f32x8,
    flags: [MotionFlags; LANES],
}

/// The twin of `contact_pair` without its non-finite case: the hit mask, `t`, the touching
/// mask and the non-finite mask. Every lane's result is final unless the last mask has a
/// lane set.
#[inline(always)]
fn contact8_finite<const ENDPOINTS: bool>(
    a0: V3,
    a1: V3,
    b0: V3,
    b1: V3,
    r_sum: f32x8,
    t_end: f32x8,
) -> (f32x8, f32x8, f32x8, f32x8) {
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

    let non_finite = probe8(&[
        w0.x, w0.y, w0.z, dv.x, dv.y, dv.z, r_sum, ww, rr, a, b, disc,
    ]);
    (hit, t, touching, non_finite)
}

/// The common case: `None` when a lane is non-finite.
#[inline(always)]
fn contact8_general<const ENDPOINTS: bool>(
    a0: V3,
    a1: V3,
    b0: V3,
    b1: V3,
    r_sum: f32x8,
    t_end: f32x8,
) -> Option<ContactLanes> {
    let (hit, t, touching, non_finite) = contact8_finite::<ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end);
    if non_finite.any() {
        return None;
    }
    Some(ContactLanes {
        hit: mask_bools(hit),
        t,
        // The only flag of a finite lane, straight from its mask.
        flags: mask_to(touching, MotionFlags::TOUCHING_AT_START.bits()),
    })
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
    let (hit, t, touching, non_finite) = contact8_finite::<ENDPOINTS>(a0, a1, b0, b1, r_sum, t_end);
    let flags = non_finite.select(
        u32x8::splat(u32::from(MotionFlags::NON_FINITE.bits())),
        bits8(touching, MotionFlags::TOUCHING_AT_START.bits()),
    );
    ContactLanes {
        hit: mask_bools(!non_finite & hit),
        t: non_finite.select(f32x8::splat(f32::NAN), t),
        flags: bytes8(flags, MotionFlags::from_bits_truncate),
    }
}

// ---------------------------------------------------------------------------------------
// Batches.

result_batch! {
    /// First contacts for a batch of pairs, stored as columns.
    ///
    /// Reuse one across calls to the `*_into` functions: buffers grow and are never shrunk.
    pub struct ContactBatch(Contact) stored as ContactOut {
        columns {
            /// The mask of hits, exactly `len()` values.
            hit: bool,
            /// First contact times (`+∞` without contact), exactly `len()` values.
            t: f32,
            /// Per-pair flags, exactly `len()` values.
            flags: MotionFlags,
        }
        points {}
    }
}

impl ContactBatch {
    /// Indices of the pairs that make contact, in order.
    pub fn hits(&self) -> impl Iterator<Item = usize> + '_ {
        self.hit()
            .iter()
            .enumerate()
            .filter(|(_, h)| **h)
            .map(|(i, _)| i)
    }
}

impl GroupStore for ContactOut<'_> {
    type Lanes = ContactLanes;
    #[inline(always)]
    fn store(&mut self, g: usize, lanes: &ContactLanes) {
        self.t[g] = lanes.t.to_array();
        self.hit[g] = lanes.hit;
        self.flags[g] = lanes.flags;
    }
    #[inline(always)]
    fn split_at(self, mid: usize) -> (Self, Self) {
        self.split_columns(mid)
    }
}

/// The four points of a group (columns `a0 a1 b0 b1`, x y z each).
#[inline(always)]
fn points<const C: usize>(c: &[f32x8; C]) -> (V3, V3, V3, V3) {
    let v = |k| V3::at_column(c, k);
    (v(0), v(3), v(6), v(9))
}

/// First contact over tracks (`ENDPOINTS = false`) or start/end segments, time clamped to
/// `[0, t_end]`: twelve input columns with uniform radii (`r_sum` broadcast), fourteen
/// with per-pair radii (the last two columns).
struct ContactKernel<const ENDPOINTS: bool> {
    t_end: f32x8,
    r_sum: f32x8,
}

impl<const ENDPOINTS: bool> PairKernel<12> for ContactKernel<ENDPOINTS> {
    type Lanes = ContactLanes;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [f32x8; 12]) -> Option<ContactLanes> {
        let (a0, a1, b0, b1) = points(&load());
        contact8_general::<ENDPOINTS>(a0, a1, b0, b1, self.r_sum, self.t_end)
    }
    #[inline(always)]
    fn masked(&self, x: [f32x8; 12]) -> ContactLanes {
        let (a0, a1, b0, b1) = points(&x);
        contact8::<ENDPOINTS>(a0, a1, b0, b1, self.r_sum, self.t_end)
    }
}

impl<const ENDPOINTS: bool> PairKernel<14> for ContactKernel<ENDPOINTS> {
    type Lanes = ContactLanes;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [f32x8; 14]) -> Option<ContactLanes> {
        let x = load();
        let (a0, a1, b0, b1) = points(&x);
        contact8_general::<ENDPOINTS>(a0, a1, b0, b1, x[12] + x[13], self.t_end)
    }
    #[inline(always)]
    fn masked(&self, x: [f32x8; 14]) -> ContactLanes {
        let (a0, a1, b0, b1) = points(&x);
        contact8::<ENDPOINTS>(a0, a1, b0, b1, x[12] + x[13], self.t_end)
    }
}

/// Checks the lengths, sizes `out` and runs the kernel (sequentially or on all cores).
fn run<const ENDPOINTS: bool>(
    a: [&[f32]; 6],
    b: [&[f32]; 6],
    lens: (usize, usize),
    radii: Radii<'_>,
    t_end: f32,
    parallel: bool,
    out: &mut ContactBatch,
) -> Result<(), Error> {
    check_len("batches a and b", lens.0, lens.1)?;
    radii.check_len(lens.0)?;
    let n = lens.0;
    out.reset(n, |_| true);
    let pair: [&[f32]; 12] = core::array::from_fn(|k| if k < 6 { a[k] } else { b[k - 6] });
    let t_end = f32x8::splat(t_end);
    if let Some((ra, rb)) = radii.as_per_pair() {
        let cols: [&[f32]; 14] = core::array::from_fn(|k| match k {
            0..12 => pair[k],
            12 => ra,
            _ => rb,
        });
        let kernel = ContactKernel::<ENDPOINTS> {
            t_end,
            r_sum: f32x8::ZERO,
        };
        driver::run_on(parallel, &kernel, cols, n, out.out());
    } else {
        let (ra, rb) = radii.as_uniform().unwrap_or((0.0, 0.0));
        let kernel = ContactKernel::<ENDPOINTS> {
            t_end,
            r_sum: f32x8::splat(ra + rb),
        };
        driver::run_on(parallel, &kernel, pair, n, out.out());
    }
    Ok(())
}

fn tracks<'a, 'b>(
    a: impl Into<TracksView<'a>>,
    b: impl Into<TracksView<'b>>,
    radii: Radii<'_>,
    window: Window,
    parallel: bool,
    out: &mut ContactBatch,
) -> Result<(), Error> {
    let (a, b) = (a.into(), b.into());
    let (lens, end) = ((a.len(), b.len()), window.end());
    run::<false>(
        a.raw_columns(),
        b.raw_columns(),
        lens,
        radii,
        end,
        parallel,
        out,
    )
}

fn segments<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    parallel: bool,
    out: &mut ContactBatch,
) -> Result<(), Error> {
    let (a, b) = (a.into(), b.into());
    let lens = (a.len(), b.len());
    run::<true>(
        a.raw_columns(),
        b.raw_columns(),
        lens,
        radii,
        1.0,
        parallel,
        out,
    )
}

query_forms! {
    /// First contact within `window` of spheres moving along tracks `a[i]` and `b[i]`, with
    /// the given [`Radii`], for every `i` (batched twin of
    /// [`reference::first_contact`](crate::reference::first_contact), bit-identical to it).
    ///
    /// ```
    /// use segbatch::motion::{first_contact, Track, Tracks, Window};
    /// use segbatch::pairs::Radii;
    /// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
    /// let b = Tracks::from(&[Track::new([4.0, 0.0, 0.0], [-2.0, 0.0, 0.0])]);
    /// let out = first_contact(&a, &b, Radii::uniform(0.5, 0.5)?, Window::STEP);
    /// assert_eq!(out.hit(), &[true]);
    /// assert_eq!(out.t(), &[0.75]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn first_contact / first_contact_into / par_first_contact / par_first_contact_into
        <'a, 'b>(
            a: impl Into<TracksView<'a>>,
            b: impl Into<TracksView<'b>>,
            radii: Radii<'_>,
            window: Window,
        )
        with ()
        -> ContactBatch = tracks;
    /// [`first_contact`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a`, `b` or per-pair radii differ in length.
    into;
}

query_forms! {
    /// First contact, during one step (time `[0, 1]`), of spheres whose centres move along
    /// `a[i]` and `b[i]` (start to end), with the given [`Radii`] (batched twin of
    /// [`reference::first_contact_segments`](crate::reference::first_contact_segments)).
    ///
    /// ```
    /// use segbatch::motion::first_contact_segments;
    /// use segbatch::{Segment, Segments};
    /// use segbatch::pairs::Radii;
    /// // The paths cross at right angles, but B arrives after A has gone: no contact.
    /// let a = Segments::from(&[Segment::new([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
    /// let b = Segments::from(&[Segment::new([0.0, -3.0, 0.0], [0.0, -1.0, 0.0])]);
    /// let out = first_contact_segments(&a, &b, Radii::per_pair(&[0.25], &[0.25])?);
    /// assert_eq!(out.hit(), &[false]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn first_contact_segments / first_contact_segments_into
        / par_first_contact_segments / par_first_contact_segments_into
        <'a, 'b>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>, radii: Radii<'_>)
        with ()
        -> ContactBatch = segments;
    /// [`first_contact_segments`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a`, `b` or per-pair radii differ in length.
    into;
}
