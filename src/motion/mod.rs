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
//! [`Tracks`] columns) or, as engines store it, as the [`Segment`] from its
//! position at the start of the step to its position at the end (a
//! [`Segments`] batch, accepted directly; time runs over `[0, 1]`).
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
//!
//! # How the loops are fast
//!
//! As in the 3D kernel (`src/kernel.rs`): output columns are stored in aligned `f32x8`
//! groups; every input and output column is cut to exactly the number of whole groups in
//! the function that loops, so loads and stores of whole `[f32; 8]` groups need no bounds
//! checks; each query has a common-case path (every lane finite and, for CPA and 2D, none
//! of the special cases) whose `select`s are skipped and whose results are bit for bit
//! those of the masked path, which runs out of line (`#[inline(never)]`, also for the last
//! partial group); masks become bytes (`bool`, flags, [`Crossing`]) with one `movmskps`
//! and one multiplication. `docs/performance.md` has the figures.

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

pub(crate) use crate::batch::check_len;
use crate::batch::{BatchError, Column, LANES, Segments, SegmentsView};
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

/// A [`MotionFlags`] column stored in whole groups of [`LANES`] (one `u64` each).
pub(crate) type MotionFlagsColumn = Column<MotionFlags, u64>;

/// Eight lanes of flag bits as one group of [`MotionFlags`] (only flag bits are ever set).
#[inline(always)]
pub(crate) fn flags8(bits: u32x8) -> [MotionFlags; LANES] {
    bits.to_array()
        .map(|b| MotionFlags::from_bits_truncate(b as u8))
}

/// One byte per lane as the bytes of a `u64` (lane `k` in byte `k`, little-endian): 1 where
/// `mask` is set, 0 elsewhere. `movmskps` and one multiplication, where converting eight
/// lanes one by one costs some fifty instructions.
#[inline(always)]
pub(crate) fn mask_bytes(mask: f32x8) -> u64 {
    let bits = u64::from(mask.to_bitmask());
    // Multiplying by Σ 2^(7k) puts bit k at bit 8k; without bit 7 no two copies overlap.
    (((bits & 0x7f) * 0x0002_0408_1020_4081) & 0x0101_0101_0101_0101) | ((bits >> 7 & 1) << 56)
}

/// The flag `flag` in the lanes of `mask`, as one group of [`MotionFlags`].
#[inline(always)]
pub(crate) fn flag_bytes(mask: f32x8, flag: MotionFlags) -> [MotionFlags; LANES] {
    bytemuck::cast(mask_bytes(mask) * u64::from(flag.bits()))
}

/// Input columns cut into whole groups of [`LANES`] pairs for the loops.
pub(crate) struct InGroups<'a, const C: usize> {
    /// The groups read in place, every column exactly `groups` groups long. The loop cuts
    /// them once more in its own function (`&cols[c][..groups]`): only then does the
    /// compiler see the lengths and drop the bounds checks.
    pub cols: [&'a [[f32; LANES]]; C],
    /// Number of groups read in place.
    pub groups: usize,
    /// The last partial group copied into zero-padded buffers, when the columns have no
    /// padding in place after it (a sub-range view, or caller-owned radius slices).
    pub tail: Option<[[f32; LANES]; C]>,
}

/// Cuts `n` pairs of `cols` into whole groups (lane `k` of group `g` of column `c` holds
/// `cols[c][g·8 + k]`): the groups inside every column, padding included, are read in
/// place, a last partial group is copied.
pub(crate) fn in_groups<const C: usize>(cols: [&[f32]; C], n: usize) -> InGroups<'_, C> {
    let room = cols.iter().map(|c| c.len()).min().unwrap_or(0);
    let groups = (room / LANES).min(n.div_ceil(LANES));
    let j = groups * LANES;
    let tail = (j < n).then(|| {
        core::array::from_fn(|c| {
            let mut buf = [0.0f32; LANES];
            buf[..n - j].copy_from_slice(&cols[c][j..n]);
            buf
        })
    });
    InGroups {
        cols: core::array::from_fn(|c| &cols[c][..j].as_chunks::<LANES>().0[..groups]),
        groups,
        tail,
    }
}

/// Group `g` of every column.
#[inline(always)]
pub(crate) fn load<const C: usize>(cols: &[&[[f32; LANES]]; C], g: usize) -> [f32x8; C] {
    core::array::from_fn(|c| f32x8::from(cols[c][g]))
}

/// An output column padded to whole groups, split after the first `groups` groups: the
/// main loop's part (exactly `groups` groups, so it stores without bounds checks) and the
/// rest (the partial last group, if any).
pub(crate) fn out_groups<T>(
    col: &mut [T],
    groups: usize,
) -> (&mut [[T; LANES]], &mut [[T; LANES]]) {
    col.as_chunks_mut::<LANES>().0.split_at_mut(groups)
}

impl<'a> TracksView<'a> {
    /// The raw columns (may run past `len()` into padding), for the loops.
    pub(crate) fn raw_columns(&self) -> [&'a [f32]; 6] {
        self.inner.raw_columns()
    }
}
