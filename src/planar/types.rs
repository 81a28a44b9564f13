//! The 2D types: a segment in the plane, its batches, and what a pair's intersection
//! reports.

use crate::batch::{Record, Soa, SoaView};
use crate::motion::types::MotionFlags;
use crate::real::fma;
use bytemuck::{Pod, Zeroable};

/// A 2D segment from `p0` to `p1` (four `f32`, [`Pod`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Segment2 {
    /// First end point (parameter 0).
    pub p0: [f32; 2],
    /// Second end point (parameter 1).
    pub p1: [f32; 2],
}

impl Segment2 {
    /// A segment from `p0` to `p1`.
    #[inline]
    #[must_use]
    pub const fn new(p0: [f32; 2], p1: [f32; 2]) -> Self {
        Segment2 { p0, p1 }
    }

    /// The point at parameter `u`: `p0 + u·(p1 - p0)`.
    #[must_use]
    pub fn at(&self, u: f32) -> [f32; 2] {
        let d = [self.p1[0] - self.p0[0], self.p1[1] - self.p0[1]];
        [fma(u, d[0], self.p0[0]), fma(u, d[1], self.p0[1])]
    }
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

/// The intersection (or closest points) of one pair of 2D segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Intersection2 {
    /// How they meet.
    pub kind: Crossing,
    /// Parameter on A: of the crossing (`Point`), of the overlap's start (`Overlap`), of
    /// the closest point (`Disjoint`).
    pub s: f32,
    /// Parameter on B of the same point.
    pub t: f32,
    /// End of the overlap on A (`Overlap`); equal to `s` otherwise.
    pub s_end: f32,
    /// Parameter on B of the overlap's end; equal to `t` otherwise.
    pub t_end: f32,
    /// `A0 + s·dA`.
    pub point_a: [f32; 2],
    /// `B0 + t·dB`.
    pub point_b: [f32; 2],
    /// The closest squared distance (0 or a rounding residue below `(4·ε·S)²` when they
    /// meet).
    pub dist2: f32,
    /// Degenerate, parallel, collinear, non-finite.
    pub flags: MotionFlags,
}

impl Intersection2 {
    /// The result for a pair with a non-finite input.
    pub const NON_FINITE: Intersection2 = Intersection2 {
        kind: Crossing::Disjoint,
        s: f32::NAN,
        t: f32::NAN,
        s_end: f32::NAN,
        t_end: f32::NAN,
        point_a: [f32::NAN; 2],
        point_b: [f32::NAN; 2],
        dist2: f32::NAN,
        flags: MotionFlags::NON_FINITE,
    };
}

impl Record<4> for Segment2 {
    const NAMES: [&'static str; 4] = ["x0", "y0", "x1", "y1"];
}

/// A batch of 2D segments as four `f32` columns (`x0, y0, x1, y1`), each padded with zeros
/// to a multiple of [`LANES`](crate::LANES): 16 bytes a segment, where a 3D batch with `z = 0` would read
/// 24. Built like [`Segments`](crate::Segments), with the same constructors.
///
/// ```
/// use segbatch::planar::{Segment2, Segments2};
/// let mut b = Segments2::from(&[Segment2::new([0.0, 0.0], [1.0, 0.0])]);
/// b.push(Segment2::new([2.0, 2.0], [3.0, 3.0]));
/// assert_eq!(b.len(), 2);
/// assert_eq!(b.get(1).map(|s| s.p1), Some([3.0, 3.0]));
/// assert_eq!(b.columns()[1], &[0.0, 2.0]);
/// ```
pub type Segments2 = Soa<Segment2, 4>;

/// A borrowed range of a [`Segments2`] batch (or of four caller-owned columns).
pub type Segments2View<'a> = SoaView<'a, Segment2, 4>;

crate::columns::byte_cell!(Crossing = Crossing::Disjoint);
