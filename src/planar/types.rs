//! The 2D types: a segment in the plane (in `f32` or `f64`), its batches, and what a
//! pair's intersection reports.
//!
//! A record type is `Pod` only when it is not generic (bytemuck's rule), so each
//! precision has its own record ([`Segment2`], [`Segment2_64`]); the element type
//! (`element.rs`) names it.

use crate::batch::Record;
use crate::motion::types::MotionFlags;
use crate::real::{Real, fma};
use bytemuck::{Pod, Zeroable};

/// What the generic 2D code needs of an element type beyond [`Real`] (sealed: the trait
/// is public so that [`Element`](crate::planar::Element) can name it, but its module is not).
pub(crate) mod sealed {
    /// The precision's tolerances of the 2D reference (`kernel.rs`, module docs) and its
    /// exact power-of-two rescaling.
    pub trait Plane:
        crate::real::Real + crate::columns::Cell + bytemuck::Pod + Into<f64> + Default + 'static
    {
        /// The segment record: [`Segment2`](super::Segment2) for `f32`,
        /// [`Segment2_64`](super::Segment2_64) for `f64`.
        type Segment: crate::batch::Record<4, Self>
            + Send
            + Sync
            + Into<[[Self; 2]; 2]>
            + From<[[Self; 2]; 2]>;
        /// Degenerate length, relative to the side's coordinates: `2·ε`.
        const LENGTH_REL: Self;
        /// Sine of the largest angle treated as parallel: `2·ε`.
        const PARALLEL_SIN: Self;
        /// Collinear flag: B0 within this times the largest coordinate of A's line: `4·ε`.
        const ON_LINE_REL: Self;
        /// The largest coordinate magnitude of a pair solved as given (step 0): `2^28` in
        /// `f32`, `2^240` in `f64`.
        const SOLVE_HI: Self;
        /// The smallest: `2^-16` in `f32`, `2^-240` in `f64`.
        const SOLVE_LO: Self;
        /// `x·2^by`, rounded once (the power of two applied in steps, so that neither an
        /// intermediate nor the factor leaves the range; saturates to `±∞` or `0`).
        fn shift(self, by: i32) -> Self;
        /// `e` with `self = f·2^e`, `f` in `[1, 2)`, for a positive finite `self`.
        fn exponent(self) -> i32;
    }
}

impl sealed::Plane for f32 {
    type Segment = Segment2;
    const LENGTH_REL: f32 = 2.0 * f32::EPSILON;
    const PARALLEL_SIN: f32 = 2.0 * f32::EPSILON;
    const ON_LINE_REL: f32 = 4.0 * f32::EPSILON;
    const SOLVE_HI: f32 = 268_435_456.0; // 2^28
    const SOLVE_LO: f32 = 1.0 / 65_536.0; // 2^-16
    fn shift(self, by: i32) -> f32 {
        // Exact in `f64` (|by| <= 2·149), rounded once to `f32`.
        (f64::from(self) * 2f64.powi(by)) as f32
    }
    fn exponent(self) -> i32 {
        // Every f32 is a normal f64, whose exponent field is exact.
        ((f64::from(self).to_bits() >> 52) & 0x7ff) as i32 - 1023
    }
}

impl sealed::Plane for f64 {
    type Segment = Segment2_64;
    const LENGTH_REL: f64 = 2.0 * f64::EPSILON;
    const PARALLEL_SIN: f64 = 2.0 * f64::EPSILON;
    const ON_LINE_REL: f64 = 4.0 * f64::EPSILON;
    const SOLVE_HI: f64 = 1.766_847_064_778_384_3e72; // 2^240
    const SOLVE_LO: f64 = 5.659_799_424_266_695e-73; // 2^-240
    fn shift(self, by: i32) -> f64 {
        // Two factors within range; a subnormal result may round, once or twice in
        // `f64`'s gradual underflow (far below any tolerance of the reference).
        let half = by / 2;
        self * 2f64.powi(half) * 2f64.powi(by - half)
    }
    fn exponent(self) -> i32 {
        if self < f64::MIN_POSITIVE {
            // Subnormal: the exponent of its leading bit.
            let bits = self.to_bits();
            return -1023 - (bits.leading_zeros() as i32 - 12);
        }
        ((self.to_bits() >> 52) & 0x7ff) as i32 - 1023
    }
}

/// A 2D segment from `p0` to `p1` (four `f32`, [`Pod`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Segment2 {
    /// First end point (parameter 0).
    pub p0: [f32; 2],
    /// Second end point (parameter 1).
    pub p1: [f32; 2],
}

/// `p0 + u·(p1 - p0)`, one coordinate, as `fma(u, p1 - p0, p0)`; when the difference
/// overflows (the ends more than the largest float apart, say `-f32::MAX` and `f32::MAX`)
/// the same with both ends halved, then doubled. Halving such ends and doubling a point
/// between them are exact, so this is the point the unrounded difference would give,
/// finite for `u` in `[0, 1]`, and every other point is the plain formula's, bit for bit.
#[inline(always)]
pub(crate) fn lerp<F: Real>(u: F, p0: F, p1: F) -> F {
    let d = p1 - p0;
    if d * F::ZERO == F::ZERO {
        fma(u, d, p0)
    } else {
        let half = fma(u, p1 * F::HALF - p0 * F::HALF, p0 * F::HALF);
        half + half
    }
}

impl Segment2 {
    /// A segment from `p0` to `p1`.
    #[inline]
    #[must_use]
    pub const fn new(p0: [f32; 2], p1: [f32; 2]) -> Self {
        Segment2 { p0, p1 }
    }

    /// The point at parameter `u`: `p0 + u·(p1 - p0)`, finite wherever it is (a segment
    /// spanning more than the largest float included: the difference is then taken of the
    /// halved ends).
    #[must_use]
    pub fn at(&self, u: f32) -> [f32; 2] {
        [
            lerp(u, self.p0[0], self.p1[0]),
            lerp(u, self.p0[1], self.p1[1]),
        ]
    }
}

impl From<Segment2> for [[f32; 2]; 2] {
    fn from(s: Segment2) -> Self {
        [s.p0, s.p1]
    }
}

impl From<[[f32; 2]; 2]> for Segment2 {
    fn from([p0, p1]: [[f32; 2]; 2]) -> Self {
        Segment2 { p0, p1 }
    }
}

/// A 2D segment in `f64` (four `f64`, [`Pod`]): the record of [`Segments2<f64>`](crate::planar::Segments2),
/// for coordinates that `f32` would round too coarsely (UTM metres, national grids).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
#[allow(non_camel_case_types)]
pub struct Segment2_64 {
    /// First end point (parameter 0).
    pub p0: [f64; 2],
    /// Second end point (parameter 1).
    pub p1: [f64; 2],
}

impl Segment2_64 {
    /// A segment from `p0` to `p1`.
    #[inline]
    #[must_use]
    pub const fn new(p0: [f64; 2], p1: [f64; 2]) -> Self {
        Segment2_64 { p0, p1 }
    }

    /// The point at parameter `u`: `p0 + u·(p1 - p0)`, finite wherever it is (a segment
    /// spanning more than the largest float included: the difference is then taken of the
    /// halved ends).
    #[must_use]
    pub fn at(&self, u: f64) -> [f64; 2] {
        [
            lerp(u, self.p0[0], self.p1[0]),
            lerp(u, self.p0[1], self.p1[1]),
        ]
    }
}

impl From<Segment2_64> for [[f64; 2]; 2] {
    fn from(s: Segment2_64) -> Self {
        [s.p0, s.p1]
    }
}

impl From<[[f64; 2]; 2]> for Segment2_64 {
    fn from([p0, p1]: [[f64; 2]; 2]) -> Self {
        Segment2_64 { p0, p1 }
    }
}

impl Record<4, f64> for Segment2_64 {
    const NAMES: [&'static str; 4] = ["x0", "y0", "x1", "y1"];
}

/// How two 2D segments meet.
#[repr(u8)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Crossing {
    /// They do not meet (also reported for non-finite input).
    #[default]
    Disjoint = 0,
    /// They meet at one point.
    Point = 1,
    /// They are collinear and overlap along an interval (possibly a single point).
    Overlap = 2,
}

/// The intersection (or closest points) of one pair of 2D segments, in the precision `E`
/// of the segments (`f32` unless said otherwise).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Intersection2<E = f32> {
    /// How they meet.
    pub kind: Crossing,
    /// Parameter on A: of the crossing (`Point`), of the overlap's start (`Overlap`), of
    /// the closest point (`Disjoint`).
    pub s: E,
    /// Parameter on B of the same point.
    pub t: E,
    /// End of the overlap on A (`Overlap`); equal to `s` otherwise.
    pub s_end: E,
    /// Parameter on B of the overlap's end; equal to `t` otherwise.
    pub t_end: E,
    /// `A0 + s·dA`.
    pub point_a: [E; 2],
    /// `B0 + t·dB`.
    pub point_b: [E; 2],
    /// The closest squared distance (0 or a rounding residue below `(4·ε·S)²` when they
    /// meet).
    pub dist2: E,
    /// Degenerate, parallel, collinear, non-finite.
    pub flags: MotionFlags,
}

impl<E: Real> Intersection2<E> {
    /// The result for a pair with a non-finite input.
    pub const NON_FINITE: Intersection2<E> = Intersection2 {
        kind: Crossing::Disjoint,
        s: E::NAN,
        t: E::NAN,
        s_end: E::NAN,
        t_end: E::NAN,
        point_a: [E::NAN; 2],
        point_b: [E::NAN; 2],
        dist2: E::NAN,
        flags: MotionFlags::NON_FINITE,
    };
}

impl Record<4> for Segment2 {
    const NAMES: [&'static str; 4] = ["x0", "y0", "x1", "y1"];
}

crate::columns::byte_cell!(Crossing = Crossing::Disjoint);
