//! Motion queries: where moving objects are *at the same moment*, and 2D segment crossings.
//!
//! A segment traced by an object during a step is where it goes, not where it is when. Two
//! objects whose paths come within `rA + rB` of each other (the segment distance of the
//! rest of the crate, a conservative filter) collide only if they are that close *at the
//! same time*. This module answers the time-synchronised questions, batched over
//! structure-of-arrays columns with the same 8-lane, mask-and-select style as the kernel,
//! each beside a scalar reference with the same variable names and operation order:
//!
//! | query | batched | scalar reference | file |
//! |---|---|---|---|
//! | closest point of approach of two tracks (Sunday's `cpa_time` / `cpa_distance`), time clamped to a [`Window`] | [`cpa`], [`cpa_segments`] | [`cpa_scalar`], [`cpa_segments_scalar`] | `cpa.rs` |
//! | time of first contact of two moving spheres (the dynamic sphere-sphere test) | [`first_contact`], [`first_contact_segments`] | [`first_contact_scalar`], [`first_contact_segments_scalar`] | `contact.rs` |
//! | 2D segment intersection (parametric test, collinear overlap) and 2D closest points | [`intersect2`] | [`intersect2_scalar`] | `seg2d.rs` |
//!
//! A moving object is given either as a [`Track`] (position at `t = 0` and velocity, in
//! [`Tracks`] columns) or, as engines store it, as the [`Segment`](crate::Segment) from its
//! position at the start of the step to its position at the end (a
//! [`Segments`](crate::Segments) batch, accepted directly; time runs over `[0, 1]`).
//!
//! `docs/motion.md` explains which query to use when, with a worked example of two paths
//! that cross while the objects never meet.
//!
//! # Numerics
//!
//! As in the rest of the crate: the relative motion is formed locally (`w0 = P0 - Q0`,
//! `dv = u - v`, or for start/end segments `dv = w1 - w0`), tolerances are scale-free,
//! every division is guarded by a mask, and a NaN or infinite input gives NaN outputs and
//! [`MotionFlags::NON_FINITE`] for that pair only. The batched functions and their scalar
//! references agree bit for bit on x86_64 (AVX2+FMA and SSE2 builds); `tests/motion.rs`
//! checks that and the accuracy against an f64 oracle.

mod contact;
mod cpa;
mod seg2d;

pub use contact::{
    Contact, ContactBatch, first_contact, first_contact_into, first_contact_scalar,
    first_contact_segments, first_contact_segments_into, first_contact_segments_scalar,
    try_first_contact_into, try_first_contact_segments_into,
};
pub use cpa::{
    Cpa, CpaBatch, cpa, cpa_into, cpa_scalar, cpa_segments, cpa_segments_into, cpa_segments_scalar,
    try_cpa_into, try_cpa_segments_into,
};
pub use seg2d::{
    Crossing, Intersection2, Intersections2, Segment2, Segments2, Segments2View, intersect2,
    intersect2_into, intersect2_scalar, try_intersect2_into,
};

use crate::batch::{BatchError, LANES, Segments, SegmentsView, padded_len};
use crate::segment::Segment;
use bytemuck::{Pod, Zeroable};
use core::ops::RangeBounds;
use wide::{f32x8, u32x8};

/// An object moving linearly: `P(t) = position + t·velocity`.
///
/// `#[repr(C)]` and [`Pod`] with the layout of a [`Segment`] (six `f32`), so flat data casts
/// to `&[Track]` with [`bytemuck::cast_slice`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Track {
    /// Position at `t = 0`.
    pub position: [f32; 3],
    /// Displacement per unit of time.
    pub velocity: [f32; 3],
}

impl Track {
    /// A track from its position at `t = 0` and its velocity.
    #[inline]
    #[must_use]
    pub const fn new(position: [f32; 3], velocity: [f32; 3]) -> Self {
        Track { position, velocity }
    }

    /// The position at time `t`: `position + t·velocity` (fused where the kernel fuses).
    #[inline]
    #[must_use]
    pub fn at(&self, t: f32) -> [f32; 3] {
        core::array::from_fn(|i| crate::reference::fma(t, self.velocity[i], self.position[i]))
    }
}

/// A batch of [`Track`]s as six `f32` columns (`px, py, pz, vx, vy, vz`) padded to
/// [`LANES`], built like [`Segments`].
///
/// ```
/// use segbatch::motion::{Track, Tracks};
/// let mut tracks = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])][..]);
/// tracks.push(Track::new([5.0, 0.0, 0.0], [-1.0, 0.0, 0.0]));
/// assert_eq!(tracks.len(), 2);
/// assert_eq!(tracks.get(1).velocity, [-1.0, 0.0, 0.0]);
/// assert_eq!(tracks.columns()[0], &[0.0, 5.0]);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tracks {
    /// Stored as segments with `p0 = position`, `p1 = velocity`.
    inner: Segments,
}

impl Tracks {
    /// An empty batch.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty batch with room for `n` tracks.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        Tracks {
            inner: Segments::with_capacity(n),
        }
    }

    /// A batch from six columns of equal length: positions `px, py, pz`, velocities
    /// `vx, vy, vz`.
    ///
    /// # Errors
    /// [`BatchError::LengthMismatch`] when the columns differ in length.
    pub fn from_columns(cols: [&[f32]; 6]) -> Result<Self, BatchError> {
        let [a, b, c, d, e, f] = cols;
        Ok(Tracks {
            inner: Segments::from_columns(a, b, c, d, e, f)?,
        })
    }

    /// Number of tracks.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// True when the batch is empty.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Appends one track.
    pub fn push(&mut self, track: Track) {
        self.inner
            .push(Segment::new(track.position, track.velocity));
    }

    /// Track `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[must_use]
    pub fn get(&self, i: usize) -> Track {
        self.as_view().get(i)
    }

    /// The columns `[px, py, pz, vx, vy, vz]`, each exactly `len()` values.
    #[must_use]
    pub fn columns(&self) -> [&[f32]; 6] {
        self.inner.columns()
    }

    /// A view of the whole batch.
    #[must_use]
    pub fn as_view(&self) -> TracksView<'_> {
        TracksView {
            inner: self.inner.as_view(),
        }
    }

    /// A view of a sub-range.
    ///
    /// # Panics
    /// When the range is outside `0..len()`; [`Tracks::try_view`] does not panic.
    #[must_use]
    pub fn view(&self, range: impl RangeBounds<usize>) -> TracksView<'_> {
        TracksView {
            inner: self.inner.view(range),
        }
    }

    /// A view of a sub-range, or an error when it is outside `0..len()`.
    ///
    /// # Errors
    /// [`BatchError::OutOfRange`].
    pub fn try_view(&self, range: impl RangeBounds<usize>) -> Result<TracksView<'_>, BatchError> {
        Ok(TracksView {
            inner: self.inner.try_view(range)?,
        })
    }
}

impl From<&[Track]> for Tracks {
    fn from(tracks: &[Track]) -> Self {
        Tracks {
            inner: Segments::from(bytemuck::cast_slice::<Track, Segment>(tracks)),
        }
    }
}

impl FromIterator<Track> for Tracks {
    fn from_iter<I: IntoIterator<Item = Track>>(iter: I) -> Self {
        let mut t = Tracks::new();
        for x in iter {
            t.push(x);
        }
        t
    }
}

/// A borrowed range of a [`Tracks`] batch (or of six caller-owned columns).
#[derive(Clone, Copy, Debug)]
pub struct TracksView<'a> {
    inner: SegmentsView<'a>,
}

impl<'a> TracksView<'a> {
    /// A view over six caller-owned columns `[px, py, pz, vx, vy, vz]` (no copy).
    ///
    /// # Errors
    /// [`BatchError::LengthMismatch`] when the columns differ in length.
    pub fn from_columns(cols: [&'a [f32]; 6]) -> Result<Self, BatchError> {
        Ok(TracksView {
            inner: SegmentsView::from_columns(cols)?,
        })
    }

    /// Number of tracks.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// True when the view is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Track `i` of the view.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[must_use]
    pub fn get(&self, i: usize) -> Track {
        let s = self.inner.get(i);
        Track::new(s.p0, s.p1)
    }

    /// A sub-range of this view.
    ///
    /// # Panics
    /// When the range is outside `0..len()`.
    #[must_use]
    pub fn view(&self, range: impl RangeBounds<usize>) -> TracksView<'a> {
        TracksView {
            inner: self.inner.view(range),
        }
    }
}

impl<'a> From<&'a Tracks> for TracksView<'a> {
    fn from(t: &'a Tracks) -> Self {
        t.as_view()
    }
}

/// The time window `[0, end]` over which a motion query looks.
///
/// [`Window::STEP`] (`[0, 1]`, one step) is the default; [`Window::UNBOUNDED`] (`[0, ∞)`)
/// looks at the whole future. A window never starts before 0.
///
/// ```
/// use segbatch::motion::Window;
/// assert_eq!(Window::default().end(), 1.0);
/// assert_eq!(Window::new(2.5).unwrap().end(), 2.5);
/// assert!(Window::new(-1.0).is_none());
/// assert!(Window::new(f32::NAN).is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    end: f32,
}

impl Window {
    /// One step, `[0, 1]`.
    pub const STEP: Window = Window { end: 1.0 };
    /// The whole future, `[0, ∞)`.
    pub const UNBOUNDED: Window = Window { end: f32::INFINITY };

    /// The window `[0, end]`, or `None` when `end` is negative or NaN (`+∞` is allowed).
    #[must_use]
    pub fn new(end: f32) -> Option<Window> {
        (end >= 0.0).then_some(Window { end })
    }

    /// The end of the window.
    #[inline]
    #[must_use]
    pub const fn end(self) -> f32 {
        self.end
    }
}

impl Default for Window {
    fn default() -> Self {
        Window::STEP
    }
}

/// What was special about a pair in a motion query: a small bit set.
///
/// Bits (stable): same velocity = 1, touching at start = 2, parallel = 4, non-finite = 8,
/// collinear = 16, degenerate A = 32, degenerate B = 64.
#[repr(transparent)]
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct MotionFlags(u8);

impl MotionFlags {
    /// No flag set.
    pub const NONE: MotionFlags = MotionFlags(0);
    /// CPA: the relative velocity is zero within tolerance, so the distance is constant and
    /// the time reported is the start of the window.
    pub const SAME_VELOCITY: MotionFlags = MotionFlags(1);
    /// First contact: the spheres already touch or overlap at `t = 0`.
    pub const TOUCHING_AT_START: MotionFlags = MotionFlags(2);
    /// 2D: the directions are parallel within tolerance.
    pub const PARALLEL: MotionFlags = MotionFlags(4);
    /// An input was NaN or infinite (or so large that a squared length overflowed): every
    /// float output of this pair is NaN.
    pub const NON_FINITE: MotionFlags = MotionFlags(8);
    /// 2D: parallel and on the same line within tolerance.
    pub const COLLINEAR: MotionFlags = MotionFlags(16);
    /// 2D: side A is too short to carry a direction (treated as its first point).
    pub const DEGENERATE_A: MotionFlags = MotionFlags(32);
    /// 2D: side B is too short to carry a direction (treated as its first point).
    pub const DEGENERATE_B: MotionFlags = MotionFlags(64);

    /// The raw bits.
    #[inline]
    #[must_use]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Flags from raw bits; unknown bits are dropped.
    #[inline]
    #[must_use]
    pub const fn from_bits_truncate(bits: u8) -> Self {
        MotionFlags(bits & 0x7f)
    }

    /// True when every flag of `other` is set in `self`.
    #[inline]
    #[must_use]
    pub const fn contains(self, other: MotionFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// True when no flag is set.
    #[inline]
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl core::ops::BitOr for MotionFlags {
    type Output = MotionFlags;
    fn bitor(self, rhs: MotionFlags) -> MotionFlags {
        MotionFlags(self.0 | rhs.0)
    }
}

impl core::ops::BitOrAssign for MotionFlags {
    fn bitor_assign(&mut self, rhs: MotionFlags) {
        self.0 |= rhs.0;
    }
}

impl core::fmt::Debug for MotionFlags {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        const NAMES: [(MotionFlags, &str); 7] = [
            (MotionFlags::SAME_VELOCITY, "same_velocity"),
            (MotionFlags::TOUCHING_AT_START, "touching_at_start"),
            (MotionFlags::PARALLEL, "parallel"),
            (MotionFlags::NON_FINITE, "non_finite"),
            (MotionFlags::COLLINEAR, "collinear"),
            (MotionFlags::DEGENERATE_A, "degenerate_a"),
            (MotionFlags::DEGENERATE_B, "degenerate_b"),
        ];
        let names: Vec<&str> = NAMES
            .iter()
            .filter(|(fl, _)| self.contains(*fl))
            .map(|(_, n)| *n)
            .collect();
        if names.is_empty() {
            write!(f, "MotionFlags(none)")
        } else {
            write!(f, "MotionFlags({})", names.join("|"))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Shared scalar and 8-lane helpers (same operation order on both sides).

/// Relative tolerance for "same velocity": `|dv| <= SAME_VELOCITY_REL · scale`.
pub(crate) const SAME_VELOCITY_REL: f32 = 2.0 * f32::EPSILON;

#[inline(always)]
pub(crate) fn sub3(u: [f32; 3], v: [f32; 3]) -> [f32; 3] {
    [u[0] - v[0], u[1] - v[1], u[2] - v[2]]
}

/// Σ x·0 over `xs`, fused as the kernel: NaN exactly when some `x` is NaN or infinite.
#[inline(always)]
pub(crate) fn probe(xs: &[f32]) -> bool {
    xs.iter()
        .fold(0.0, |acc, &x| crate::reference::fma(x, 0.0, acc))
        != 0.0
}

/// Three coordinates of eight lanes.
pub(crate) use crate::kernel::V3;

#[inline(always)]
pub(crate) fn sub8(u: V3, v: V3) -> V3 {
    V3 {
        x: u.x - v.x,
        y: u.y - v.y,
        z: u.z - v.z,
    }
}

/// `u·v`, as `reference::dot`.
#[inline(always)]
pub(crate) fn dot8(u: V3, v: V3) -> f32x8 {
    u.x.mul_add(v.x, u.y.mul_add(v.y, u.z * v.z))
}

/// `u × v`, as `reference::cross`.
#[inline(always)]
pub(crate) fn cross8(u: V3, v: V3) -> V3 {
    V3 {
        x: u.y.mul_sub(v.z, u.z * v.y),
        y: u.z.mul_sub(v.x, u.x * v.z),
        z: u.x.mul_sub(v.y, u.y * v.x),
    }
}

/// `t·d + p` per coordinate.
#[inline(always)]
pub(crate) fn at8(t: f32x8, d: V3, p: V3) -> V3 {
    V3 {
        x: t.mul_add(d.x, p.x),
        y: t.mul_add(d.y, p.y),
        z: t.mul_add(d.z, p.z),
    }
}

/// Σ x·0 over `xs`: the lanes where some `x` is NaN or infinite.
#[inline(always)]
pub(crate) fn probe8(xs: &[f32x8]) -> f32x8 {
    let zero = f32x8::ZERO;
    xs.iter()
        .fold(zero, |acc, &x| x.mul_add(zero, acc))
        .simd_ne(zero)
}

/// The bits of `flag` in the lanes of `mask`.
#[inline(always)]
pub(crate) fn bit8(mask: f32x8, flag: MotionFlags) -> u32x8 {
    mask.to_bits() & u32x8::splat(u32::from(flag.bits()))
}

/// Converts a lane of flag bits back to [`MotionFlags`].
#[inline(always)]
pub(crate) fn flags_of(bits: u32) -> MotionFlags {
    MotionFlags::from_bits_truncate(bits as u8)
}

/// Runs `f(j, lanes)` for every group of [`LANES`] pairs over `n` pairs, lane `k` of column
/// `c` holding `cols[c][j + k]`. Groups inside every column (padding included) are loaded in
/// place; a last partial group is copied into zero-padded buffers.
#[inline(always)]
pub(crate) fn for_groups<const C: usize>(
    cols: [&[f32]; C],
    n: usize,
    mut f: impl FnMut(usize, [f32x8; C]),
) {
    let load = |col: &[f32], j: usize| {
        let chunk: [f32; LANES] = col[j..j + LANES].try_into().expect("8 values");
        f32x8::from(chunk)
    };
    let room = cols.iter().map(|c| c.len()).min().unwrap_or(0);
    let direct = (room / LANES * LANES).min(padded_len(n));
    let mut j = 0;
    while j < direct {
        f(j, core::array::from_fn(|c| load(cols[c], j)));
        j += LANES;
    }
    if j < n {
        let count = n - j;
        f(
            j,
            core::array::from_fn(|c| {
                let mut buf = [0.0f32; LANES];
                buf[..count].copy_from_slice(&cols[c][j..n]);
                f32x8::from(buf)
            }),
        );
    }
}

/// Writes eight lanes to `col[j..j + 8]` (output columns are padded to [`LANES`]).
#[inline(always)]
pub(crate) fn put(col: &mut [f32], j: usize, v: f32x8) {
    col[j..j + LANES].copy_from_slice(v.as_array());
}

/// Checks two batch lengths.
pub(crate) fn check_len(what: &'static str, a: usize, b: usize) -> Result<(), BatchError> {
    if a == b {
        Ok(())
    } else {
        Err(BatchError::LengthMismatch {
            what,
            expected: a,
            found: b,
        })
    }
}

impl<'a> TracksView<'a> {
    /// The raw columns (may run past `len()` into padding), for the loops.
    pub(crate) fn raw_columns(&self) -> [&'a [f32]; 6] {
        self.inner.raw_columns()
    }
}
