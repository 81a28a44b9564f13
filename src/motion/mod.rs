//! Motion queries: where moving objects are *at the same moment*.
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
//! | closest point of approach of two tracks (Sunday's `cpa_time` / `cpa_distance`), time clamped to a [`Window`] | [`cpa`], [`cpa_segments`] | [`reference::cpa`](crate::reference::cpa), [`reference::cpa_segments`](crate::reference::cpa_segments) | `cpa.rs` |
//! | time of first contact of two moving spheres (the dynamic sphere-sphere test) | [`first_contact`], [`first_contact_segments`] | [`reference::first_contact`](crate::reference::first_contact), [`reference::first_contact_segments`](crate::reference::first_contact_segments) | `contact.rs` |
//!
//! Each has the crate's four forms (`q`, `q_into`, `par_q`, `par_q_into`). 2D segment
//! crossings, which have nothing to do with time, are [`intersect2`](crate::intersect2) at
//! the crate root.
//!
//! **In `f64`**, for coordinates where `f32` loses the resolution you need (ECEF metres,
//! aircraft 1e7 m from the Earth's centre): [`cpa64`] over [`Tracks64`] and a [`Window64`],
//! and [`cpa_segments64`] over [`Segments64`](crate::Segments64), with the same four forms,
//! returning a [`CpaBatch64`] of [`Cpa64`], bit for bit
//! [`reference::cpa64`](crate::reference::cpa64) and
//! [`reference::cpa_segments64`](crate::reference::cpa_segments64). The reference and the
//! kernel are the `f32` ones, written once over the precision (`cpa.rs`), in lanes of
//! `f64x4` (`f64x8` with `avx512f`). First contact is `f32` only for now.
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
//! checks that and the accuracy against an f64 oracle, `tests/motion64.rs` the same for the
//! `f64` queries against an exact (rational) oracle.
//!
//! # How the loops are fast
//!
//! The loop is the driver's (`src/driver.rs`), shared with every query: whole aligned
//! groups loaded and stored without bounds checks, a common-case path (every lane finite
//! and, for CPA, no same-velocity lane) whose `select`s are skipped and whose results are
//! bit for bit those of the masked path, which runs out of line; masks become bytes
//! (`bool`, flags) with one `movmskps` and one multiplication. `docs/performance.md` has
//! the figures.

mod contact;
mod cpa;

pub(crate) use contact::contact_pair;
pub use contact::{
    Contact, ContactBatch, first_contact, first_contact_into, first_contact_segments,
    first_contact_segments_into,
};
#[cfg(feature = "rayon")]
pub use contact::{
    par_first_contact, par_first_contact_into, par_first_contact_segments,
    par_first_contact_segments_into,
};
pub(crate) use cpa::cpa_pair;
pub use cpa::{Cpa, CpaBatch, cpa, cpa_into, cpa_segments, cpa_segments_into};
pub use cpa::{Cpa64, CpaBatch64, cpa_segments64, cpa_segments64_into, cpa64, cpa64_into};
#[cfg(feature = "rayon")]
pub use cpa::{par_cpa, par_cpa_into, par_cpa_segments, par_cpa_segments_into};
#[cfg(feature = "rayon")]
pub use cpa::{par_cpa_segments64, par_cpa_segments64_into, par_cpa64, par_cpa64_into};

use crate::lanes::{Lane, bytes8, mask_to};
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
        core::array::from_fn(|i| crate::reference::fma(t, self.velocity[i], self.position[i]))
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

/// A borrowed range of a [`Tracks`] batch (or of six caller-owned columns).
pub type TracksView<'a> = crate::batch::SoaView<'a, Track, 6>;

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
        core::array::from_fn(|i| crate::reference::fma(t, self.velocity[i], self.position[i]))
    }
}

impl From<Track> for Track64 {
    /// The same track in `f64` (exact).
    fn from(t: Track) -> Self {
        Track64::new(t.position.map(f64::from), t.velocity.map(f64::from))
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

/// A borrowed range of a [`Tracks64`] batch (or of six caller-owned `f64` columns).
pub type Tracks64View<'a> = crate::batch::SoaView<'a, Track64, 6, f64>;

/// The time window `[0, end]` of the `f64` motion queries: [`Window`]'s `f64` twin.
///
/// ```
/// use segbatch::motion::{Window, Window64};
/// assert_eq!(Window64::default().end(), 1.0);
/// assert_eq!(Window64::new(2.5).unwrap().end(), 2.5);
/// assert!(Window64::new(-1.0).is_none() && Window64::new(f64::NAN).is_none());
/// assert_eq!(Window64::from(Window::UNBOUNDED), Window64::UNBOUNDED);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window64 {
    end: f64,
}

impl Window64 {
    /// One step, `[0, 1]`.
    pub const STEP: Window64 = Window64 { end: 1.0 };
    /// The whole future, `[0, ∞)`.
    pub const UNBOUNDED: Window64 = Window64 { end: f64::INFINITY };

    /// The window `[0, end]`, or `None` when `end` is negative or NaN (`+∞` is allowed).
    #[must_use]
    pub fn new(end: f64) -> Option<Window64> {
        (end >= 0.0).then_some(Window64 { end })
    }

    /// The end of the window.
    #[inline]
    #[must_use]
    pub const fn end(self) -> f64 {
        self.end
    }
}

impl Default for Window64 {
    fn default() -> Self {
        Window64::STEP
    }
}

impl From<Window> for Window64 {
    /// The same window in `f64` (exact).
    fn from(w: Window) -> Self {
        Window64 {
            end: f64::from(w.end),
        }
    }
}

/// What was special about a pair in a motion query: a [`bitflags`](https://docs.rs/bitflags)
/// set, [`Pod`].
///
/// Bits (stable): same velocity = 1, touching at start = 2, parallel = 4, non-finite = 8,
/// collinear = 16, degenerate A = 32, degenerate B = 64.
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

// ---------------------------------------------------------------------------------------
// Shared scalar and lane helpers (same operation order on both sides), for either
// precision.

/// The scalar type of the motion references: `f32` or `f64`, with the tolerance that
/// differs between them.
pub(crate) trait MotionReal: Real {
    /// Relative tolerance for "same velocity": `|dv| <= SAME_VELOCITY_REL · scale`, two
    /// ulps of the precision (`2·f32::EPSILON`, `2·f64::EPSILON`).
    const SAME_VELOCITY_REL: Self;
}

impl MotionReal for f32 {
    const SAME_VELOCITY_REL: f32 = 2.0 * f32::EPSILON;
}

impl MotionReal for f64 {
    const SAME_VELOCITY_REL: f64 = 2.0 * f64::EPSILON;
}

/// A lane type the motion kernels run on ([`MotionReal`] lanes), with how its masks become
/// stored [`MotionFlags`], one byte a lane.
pub(crate) trait MotionLane: Lane<Elem: MotionReal> {
    /// One flag set per lane: `[MotionFlags; WIDTH]`, a group of the flags column.
    type Flags: Copy + Send;
    /// No flag in any lane.
    const NO_FLAGS: Self::Flags;
    /// `flag` in the lanes of `mask`, empty elsewhere.
    fn mask_flags(mask: Self, flag: MotionFlags) -> Self::Flags;
    /// Flag bits (below 256) per lane as flag sets.
    fn bits_flags(bits: Self::Bits) -> Self::Flags;
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
}

/// [`MotionLane`] for the `f64` lane type `$f` of `$n` lanes: the flags lane by lane (the
/// `f64` kernels' flags are stored only from the masked path).
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
        }
    };
}

motion_lane_f64!(f64x4, 4);
motion_lane_f64!(f64x8, 8);

#[inline(always)]
pub(crate) fn sub3<F: Real>(u: [F; 3], v: [F; 3]) -> [F; 3] {
    [u[0] - v[0], u[1] - v[1], u[2] - v[2]]
}

/// Σ x·0 over `xs`, fused as the kernel: NaN exactly when some `x` is NaN or infinite.
#[inline(always)]
pub(crate) fn probe<F: Real>(xs: &[F]) -> bool {
    xs.iter()
        .fold(F::ZERO, |acc, &x| crate::reference::fma(x, F::ZERO, acc))
        != F::ZERO
}
