//! The motion types: tracks, time windows and the flags every motion (and 2D) result
//! carries, with the lane traits the batched motion queries are generic over.

use crate::lanes::{Lane, V3, bytes8, mask_bools, mask_to};
use crate::real::Real;
use bytemuck::{Pod, Zeroable};
use wide::{f32x8, f64x4, f64x8, u32x8};

/// An object moving linearly: `P(t) = position + t·velocity`.
///
/// `#[repr(C)]` and [`Pod`] with the layout of a [`Segment`](crate::Segment) (six `f32`), so flat data casts
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
        core::array::from_fn(|i| crate::real::fma(t, self.velocity[i], self.position[i]))
    }
}

impl From<Track> for [[f32; 3]; 2] {
    /// `[position, velocity]`.
    fn from(t: Track) -> Self {
        [t.position, t.velocity]
    }
}

impl crate::batch::Record<6> for Track {
    const NAMES: [&'static str; 6] = ["px", "py", "pz", "vx", "vy", "vz"];
}

/// A batch of [`Track`]s as six `f32` columns (`px, py, pz, vx, vy, vz`) padded to
/// [`LANES`](crate::LANES), built like [`Segments`](crate::Segments).
///
/// ```
/// use segbatch::motion::{Track, Tracks};
/// let mut tracks = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
/// tracks.push(Track::new([5.0, 0.0, 0.0], [-1.0, 0.0, 0.0]));
/// assert_eq!(tracks.len(), 2);
/// assert_eq!(tracks.get(1).map(|t| t.velocity), Some([-1.0, 0.0, 0.0]));
/// assert_eq!(tracks.columns()[0], &[0.0, 5.0]);
/// ```
pub type Tracks = crate::batch::Soa<Track, 6>;

/// The time window `[0, end]` over which a motion query looks, in the precision of the
/// query (`f32` unless said otherwise; [`Window64`] is `Window<f64>`).
///
/// [`Window::STEP`] (`[0, 1]`, one step) is the default; [`Window::UNBOUNDED`] (`[0, ∞)`)
/// looks at the whole future. A window never starts before 0.
///
/// ```
/// use segbatch::motion::{Window, Window64};
/// assert_eq!(Window::<f32>::default().end(), 1.0);
/// assert_eq!(Window::new(2.5f32).unwrap().end(), 2.5);
/// assert!(Window::new(-1.0f32).is_none());
/// assert!(Window::new(f32::NAN).is_none());
/// assert!(Window64::new(-1.0).is_none() && Window64::new(f64::NAN).is_none());
/// assert_eq!(Window64::from(Window::<f32>::UNBOUNDED), Window64::UNBOUNDED);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window<E = f32> {
    end: E,
}

/// The time window of the `f64` motion queries.
pub type Window64 = Window<f64>;

impl<E: Real> Window<E> {
    /// One step, `[0, 1]`.
    pub const STEP: Window<E> = Window { end: E::ONE };
    /// The whole future, `[0, ∞)`.
    pub const UNBOUNDED: Window<E> = Window { end: E::INFINITY };

    /// The window `[0, end]`, or `None` when `end` is negative or NaN (`+∞` is allowed).
    #[must_use]
    pub fn new(end: E) -> Option<Window<E>> {
        (end >= E::ZERO).then_some(Window { end })
    }

    /// The end of the window.
    #[inline]
    #[must_use]
    pub fn end(self) -> E {
        self.end
    }
}

impl<E: Real> Default for Window<E> {
    fn default() -> Self {
        Window::STEP
    }
}

impl From<Window> for Window64 {
    /// The same window in `f64` (exact).
    fn from(w: Window) -> Self {
        Window {
            end: f64::from(w.end),
        }
    }
}

/// An object moving linearly in double precision: [`Track`]'s `f64` twin,
/// `P(t) = position + t·velocity`.
///
/// `#[repr(C)]` and [`Pod`] with the layout of a [`Segment64`](crate::Segment64) (six
/// `f64`), so flat data casts to `&[Track64]` with [`bytemuck::cast_slice`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Track64 {
    /// Position at `t = 0`.
    pub position: [f64; 3],
    /// Displacement per unit of time.
    pub velocity: [f64; 3],
}

impl Track64 {
    /// A track from its position at `t = 0` and its velocity.
    #[inline]
    #[must_use]
    pub const fn new(position: [f64; 3], velocity: [f64; 3]) -> Self {
        Track64 { position, velocity }
    }

    /// The position at time `t`: `position + t·velocity` (fused where the kernel fuses).
    #[inline]
    #[must_use]
    pub fn at(&self, t: f64) -> [f64; 3] {
        core::array::from_fn(|i| crate::real::fma(t, self.velocity[i], self.position[i]))
    }
}

impl From<Track> for Track64 {
    /// The same track in `f64` (exact).
    fn from(t: Track) -> Self {
        Track64::new(t.position.map(f64::from), t.velocity.map(f64::from))
    }
}

impl From<Track64> for [[f64; 3]; 2] {
    /// `[position, velocity]`.
    fn from(t: Track64) -> Self {
        [t.position, t.velocity]
    }
}

impl crate::batch::Record<6, f64> for Track64 {
    const NAMES: [&'static str; 6] = ["px", "py", "pz", "vx", "vy", "vz"];
}

/// A batch of [`Track64`]s as six `f64` columns (`px, py, pz, vx, vy, vz`) padded to
/// [`LANES`](crate::LANES): [`Tracks`]' `f64` twin, built like
/// [`Segments64`](crate::Segments64).
///
/// ```
/// use segbatch::motion::{Track64, Tracks64};
/// let o = 6_378_137.0; // ECEF metres
/// let mut tracks = Tracks64::from(&[Track64::new([o, 0.0, 0.0], [1e-3, 0.0, 0.0])]);
/// tracks.push(Track64::new([o + 5.0, 0.0, 0.0], [-1.0, 0.0, 0.0]));
/// assert_eq!(tracks.len(), 2);
/// assert_eq!(tracks.get(0).map(|t| t.velocity), Some([1e-3, 0.0, 0.0]));
/// assert_eq!(tracks.columns()[0], &[o, o + 5.0]);
/// ```
pub type Tracks64 = crate::batch::Soa<Track64, 6, f64>;

/// What was special about a pair in a motion query: a [`bitflags`](https://docs.rs/bitflags)
/// set, [`Pod`].
///
/// Bits (stable): same velocity = 1, touching at start = 2, parallel = 4, non-finite = 8,
/// collinear = 16, degenerate A = 32, degenerate B = 64, step limit = 128.
///
/// ```
/// use segbatch::motion::MotionFlags;
/// let f = MotionFlags::PARALLEL | MotionFlags::COLLINEAR;
/// assert!(f.contains(MotionFlags::COLLINEAR) && !f.contains(MotionFlags::NON_FINITE));
/// assert_eq!(format!("{f:?}"), "MotionFlags(PARALLEL | COLLINEAR)");
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct MotionFlags(u8);

bitflags::bitflags! {
    impl MotionFlags: u8 {
        /// CPA: the relative velocity is zero within tolerance, so the distance is constant
        /// and the time reported is the start of the window.
        const SAME_VELOCITY = 1;
        /// First contact: the spheres already touch or overlap at `t = 0`.
        const TOUCHING_AT_START = 2;
        /// 2D: the directions are parallel within tolerance.
        const PARALLEL = 4;
        /// An input was NaN or infinite (or so large that a squared length overflowed):
        /// every float output of this pair is NaN.
        const NON_FINITE = 8;
        /// 2D: parallel and on the same line within tolerance.
        const COLLINEAR = 16;
        /// 2D: side A is too short to carry a direction (treated as its first point).
        const DEGENERATE_A = 32;
        /// 2D: side B is too short to carry a direction (treated as its first point).
        const DEGENERATE_B = 64;
        /// Swept capsules: the conservative advancement used its
        /// [`SWEPT_STEPS`](crate::motion::SWEPT_STEPS) evaluations without deciding. The pair
        /// is reported as a hit at the last time evaluated: no contact happens before it (the
        /// gap there is still above the tolerance), so a caller that moves the objects to
        /// `t` never lets them pass through each other.
        const STEP_LIMIT = 128;
    }
}

impl core::fmt::Debug for MotionFlags {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("MotionFlags(")?;
        if self.is_empty() {
            f.write_str("empty")?;
        } else {
            bitflags::parser::to_writer(self, &mut *f)?;
        }
        f.write_str(")")
    }
}

crate::columns::byte_cell!(MotionFlags = MotionFlags::empty());

/// The four points of a group of pairs (its first twelve columns `a0 a1 b0 b1`, x y z
/// each).
#[inline(always)]
pub(crate) fn points<L: Lane, const C: usize>(c: &[L; C]) -> (V3<L>, V3<L>, V3<L>, V3<L>) {
    let v = |k| V3::at_column(c, k);
    (v(0), v(3), v(6), v(9))
}

/// The indices of the `true` values of a `hit` column, in order: `hits()` of the contact
/// batches.
pub(crate) fn hit_indices(hit: &[bool]) -> impl Iterator<Item = usize> + '_ {
    hit.iter().enumerate().filter(|(_, h)| **h).map(|(i, _)| i)
}

// ---------------------------------------------------------------------------------------
// Shared scalar and lane helpers (same operation order on both sides), for either
// precision.

/// The scalar type of the motion references: `f32` or `f64`, with the tolerance that
/// differs between them.
pub(crate) trait MotionReal: Real {
    /// Relative tolerance for "same velocity": `|dv| <= SAME_VELOCITY_REL · scale`, two
    /// ulps of the precision (`2·f32::EPSILON`, `2·f64::EPSILON`).
    const SAME_VELOCITY_REL: Self;
    /// Swept capsules: the tolerance's part relative to `rA + rB`,
    /// [`SWEPT_TOLERANCE_REL`](crate::motion::SWEPT_TOLERANCE_REL) (exact in both precisions).
    const SWEPT_TOL_REL: Self;
    /// Swept capsules: the tolerance's part relative to the pair's largest coordinate once
    /// scaled into `[1, 2)`: `32·ε`, above the rounding of the closest points (a few `ε·S`).
    const SWEPT_TOL_ABS: Self;
    /// The closest-points constants of segment against segment with the default tolerance.
    fn segment_params() -> crate::segment::Params<Self>;
}

impl MotionReal for f32 {
    const SAME_VELOCITY_REL: f32 = 2.0 * f32::EPSILON;
    const SWEPT_TOL_REL: f32 = crate::motion::SWEPT_TOLERANCE_REL;
    const SWEPT_TOL_ABS: f32 = 32.0 * f32::EPSILON;
    fn segment_params() -> crate::segment::Params<f32> {
        crate::segment::Options::SEGMENTS.params()
    }
}

impl MotionReal for f64 {
    const SAME_VELOCITY_REL: f64 = 2.0 * f64::EPSILON;
    const SWEPT_TOL_REL: f64 = crate::motion::SWEPT_TOLERANCE_REL as f64;
    const SWEPT_TOL_ABS: f64 = 32.0 * f64::EPSILON;
    fn segment_params() -> crate::segment::Params<f64> {
        crate::segment::Options::SEGMENTS.params64()
    }
}

/// A lane type the motion kernels run on ([`MotionReal`] lanes), with how its masks become
/// stored [`MotionFlags`], one byte a lane.
pub(crate) trait MotionLane: Lane<Elem: MotionReal> + bytemuck::Pod {
    /// One flag set per lane: `[MotionFlags; WIDTH]`, a group of the flags column.
    type Flags: Copy + Send + AsRef<[MotionFlags]> + AsMut<[MotionFlags]>;
    /// No flag in any lane.
    const NO_FLAGS: Self::Flags;
    /// `flag` in the lanes of `mask`, empty elsewhere.
    fn mask_flags(mask: Self, flag: MotionFlags) -> Self::Flags;
    /// Flag bits (below 256) per lane as flag sets.
    fn bits_flags(bits: Self::Bits) -> Self::Flags;
    /// One `bool` per lane: `[bool; WIDTH]`, a group of a `bool` column.
    type Bools: Copy + Send + AsMut<[bool]>;
    /// The lanes of `mask` as `bool`s.
    fn mask_bools(mask: Self) -> Self::Bools;
}

impl MotionLane for f32x8 {
    type Flags = [MotionFlags; 8];
    const NO_FLAGS: Self::Flags = [MotionFlags::empty(); 8];
    #[inline(always)]
    fn mask_flags(mask: f32x8, flag: MotionFlags) -> Self::Flags {
        // `movmskps` and one multiplication.
        mask_to(mask, flag.bits())
    }
    #[inline(always)]
    fn bits_flags(bits: u32x8) -> Self::Flags {
        bytes8(bits, MotionFlags::from_bits_truncate)
    }
    type Bools = [bool; 8];
    #[inline(always)]
    fn mask_bools(mask: f32x8) -> [bool; 8] {
        // `movmskps` and one multiplication.
        mask_bools(mask)
    }
}

/// [`MotionLane`] for the `f64` lane type `$f` of `$n` lanes: the flags and `bool`s lane by
/// lane.
macro_rules! motion_lane_f64 {
    ($f:ident, $n:literal) => {
        impl MotionLane for $f {
            type Flags = [MotionFlags; $n];
            const NO_FLAGS: Self::Flags = [MotionFlags::empty(); $n];
            #[inline(always)]
            fn mask_flags(mask: $f, flag: MotionFlags) -> Self::Flags {
                Self::bits_flags(mask.to_bits() & Self::splat_bits(u32::from(flag.bits())))
            }
            #[inline(always)]
            fn bits_flags(bits: <$f as Lane>::Bits) -> Self::Flags {
                bits.to_array()
                    .map(|b| MotionFlags::from_bits_truncate(b as u8))
            }
            type Bools = [bool; $n];
            #[inline(always)]
            fn mask_bools(mask: $f) -> [bool; $n] {
                mask.to_bits().to_array().map(|b| b != 0)
            }
        }
    };
}

motion_lane_f64!(f64x4, 4);
motion_lane_f64!(f64x8, 8);
