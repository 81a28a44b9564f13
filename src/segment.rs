//! The per-pair vocabulary: [`Segment`] (array-of-structs input), [`Extent`] (segment, ray or
//! line), [`Flags`], [`Closest`] (one result) and [`Options`] / [`Tolerance`].
//!
//! These types are shared by the scalar reference ([`crate::reference`]) and the batched
//! kernel, so that one result reads the same whichever path produced it.

use crate::real::Real;
use bytemuck::{Pod, Zeroable};

/// A 3D segment from `p0` to `p1`, stored as six `f32` in array-of-structs order.
///
/// `#[repr(C)]` and [`Pod`], so a `&[f32]` of 6·N numbers (or raw bytes from a file) casts to
/// `&[Segment]` with [`bytemuck::cast_slice`] without copying. Whether the segment is
/// treated as a segment, a ray from `p0` through `p1` or an infinite line is chosen per side
/// with [`Extent`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Segment {
    /// First end point (parameter 0).
    pub p0: [f32; 3],
    /// Second end point (parameter 1).
    pub p1: [f32; 3],
}

impl Segment {
    /// A segment from `p0` to `p1`.
    #[inline]
    #[must_use]
    pub const fn new(p0: [f32; 3], p1: [f32; 3]) -> Self {
        Self { p0, p1 }
    }

    /// The direction `p1 - p0` (not normalised).
    #[inline]
    #[must_use]
    pub fn direction(&self) -> [f32; 3] {
        [
            self.p1[0] - self.p0[0],
            self.p1[1] - self.p0[1],
            self.p1[2] - self.p0[2],
        ]
    }

    /// The point at parameter `u`: `p0 + u·(p1 - p0)`.
    #[inline]
    #[must_use]
    pub fn at(&self, u: f32) -> [f32; 3] {
        let d = self.direction();
        [
            u.mul_add(d[0], self.p0[0]),
            u.mul_add(d[1], self.p0[1]),
            u.mul_add(d[2], self.p0[2]),
        ]
    }
}

impl From<Segment> for [[f32; 3]; 2] {
    /// The end points `[p0, p1]`.
    #[inline]
    fn from(s: Segment) -> Self {
        [s.p0, s.p1]
    }
}

impl From<[[f32; 3]; 2]> for Segment {
    /// The segment from the first point to the second.
    #[inline]
    fn from([p0, p1]: [[f32; 3]; 2]) -> Self {
        Self { p0, p1 }
    }
}

/// A 3D segment from `p0` to `p1` in double precision: [`Segment`]'s `f64` twin (six `f64`,
/// `#[repr(C)]`, [`Pod`]), for coordinates where `f32` loses the resolution needed
/// (geographic ECEF metres, kilometre-scale worlds in millimetres).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct Segment64 {
    /// First end point (parameter 0).
    pub p0: [f64; 3],
    /// Second end point (parameter 1).
    pub p1: [f64; 3],
}

impl From<Segment64> for [[f64; 3]; 2] {
    /// The end points `[p0, p1]`.
    #[inline]
    fn from(s: Segment64) -> Self {
        [s.p0, s.p1]
    }
}

impl From<[[f64; 3]; 2]> for Segment64 {
    /// The segment from the first point to the second.
    #[inline]
    fn from([p0, p1]: [[f64; 3]; 2]) -> Self {
        Self { p0, p1 }
    }
}

impl Segment64 {
    /// A segment from `p0` to `p1`.
    #[inline]
    #[must_use]
    pub const fn new(p0: [f64; 3], p1: [f64; 3]) -> Self {
        Self { p0, p1 }
    }

    /// The direction `p1 - p0` (not normalised).
    #[inline]
    #[must_use]
    pub fn direction(&self) -> [f64; 3] {
        [
            self.p1[0] - self.p0[0],
            self.p1[1] - self.p0[1],
            self.p1[2] - self.p0[2],
        ]
    }

    /// The point at parameter `u`: `p0 + u·(p1 - p0)`.
    #[inline]
    #[must_use]
    pub fn at(&self, u: f64) -> [f64; 3] {
        let d = self.direction();
        [
            u.mul_add(d[0], self.p0[0]),
            u.mul_add(d[1], self.p0[1]),
            u.mul_add(d[2], self.p0[2]),
        ]
    }
}

/// How far a side extends along its direction: the range its parameter may take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Extent {
    /// The finite segment, parameter in `[0, 1]`.
    #[default]
    Segment,
    /// The ray from `p0` through `p1` and beyond, parameter in `[0, ∞)`.
    Ray,
    /// The infinite line through `p0` and `p1`, any parameter.
    Line,
}

impl Extent {
    /// The parameter range `(lo, hi)`; unbounded ends are `±f32::INFINITY`.
    #[inline]
    #[must_use]
    pub const fn bounds(self) -> (f32, f32) {
        match self {
            Extent::Segment => (0.0, 1.0),
            Extent::Ray => (0.0, f32::INFINITY),
            Extent::Line => (f32::NEG_INFINITY, f32::INFINITY),
        }
    }

    /// The lower-case name: `"segment"`, `"ray"` or `"line"` (what `str::parse`
    /// parses and `Display` prints).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Extent::Segment => "segment",
            Extent::Ray => "ray",
            Extent::Line => "line",
        }
    }
}

impl core::fmt::Display for Extent {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing an [`Extent`] from a string that names none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseExtentError {
    name: String,
}

impl core::fmt::Display for ParseExtentError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "unknown extent '{}', expected segment, ray or line",
            self.name
        )
    }
}

impl std::error::Error for ParseExtentError {}

impl core::str::FromStr for Extent {
    type Err = ParseExtentError;

    /// Parses `segment` (or `seg`), `ray` or `line`, in any case, without surrounding
    /// white space.
    ///
    /// ```
    /// use segbatch::Extent;
    /// assert_eq!("Ray".parse::<Extent>(), Ok(Extent::Ray));
    /// assert_eq!(Extent::Line.to_string().parse::<Extent>(), Ok(Extent::Line));
    /// assert!("cone".parse::<Extent>().is_err());
    /// ```
    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name.to_ascii_lowercase().as_str() {
            "segment" | "seg" => Ok(Extent::Segment),
            "ray" => Ok(Extent::Ray),
            "line" => Ok(Extent::Line),
            _ => Err(ParseExtentError {
                name: name.to_owned(),
            }),
        }
    }
}

/// What was special about a pair: a small bit set.
///
/// A [`bitflags`](https://docs.rs/bitflags) set: combine with `|`, test with
/// [`Flags::contains`] or [`Flags::intersects`]; [`Pod`], so a column of flags casts to bytes
/// with `bytemuck`. The bits are stable (they are written to output files):
/// degenerate A = 1, degenerate B = 2, parallel = 4, non-finite = 8.
///
/// ```
/// use segbatch::Flags;
/// let mut f = Flags::DEGENERATE_A | Flags::PARALLEL;
/// assert!(f.contains(Flags::PARALLEL) && !f.contains(Flags::NON_FINITE));
/// f.remove(Flags::PARALLEL);
/// assert_eq!(f, Flags::DEGENERATE_A);
/// assert_eq!(f.to_string(), "degenerate_a");
/// assert!(Flags::empty().is_empty() && Flags::all().intersects(f));
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct Flags(u8);

bitflags::bitflags! {
    impl Flags: u8 {
        /// Side A is too short to carry a direction and was treated as its first point.
        const DEGENERATE_A = 1;
        /// Side B is too short to carry a direction and was treated as its first point.
        const DEGENERATE_B = 2;
        /// The directions are parallel within tolerance (Rhodes' overlap rule was used).
        const PARALLEL = 4;
        /// An input coordinate was NaN or infinite: every output of this pair is NaN.
        const NON_FINITE = 8;
        /// The inputs are finite but the squared distance is outside f32's normal range, so
        /// `dist2` cannot carry it to the accuracy bar: `+inf` when the closest points are
        /// more than about 1.8e19 apart, subnormal or 0 when the pair's own scale is tiny
        /// (coordinates below about 1e-19) and its distance below about 1.1e-19. `s`, `t`
        /// and the points are still computed (the pair was solved rescaled by a power of
        /// two); compute `|point_a - point_b|` in f64 if the distance is needed. Set only
        /// for pairs solved rescaled (docs/algorithm.md, §5b).
        const DIST2_OUT_OF_RANGE = 16;
    }
}

crate::columns::byte_cell!(Flags = Flags::empty());

impl core::fmt::Debug for Flags {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Flags({self})")
    }
}

impl core::fmt::Display for Flags {
    /// `degenerate_a|parallel`, or `none`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        const NAMES: [(Flags, &str); 5] = [
            (Flags::DEGENERATE_A, "degenerate_a"),
            (Flags::DEGENERATE_B, "degenerate_b"),
            (Flags::PARALLEL, "parallel"),
            (Flags::NON_FINITE, "non_finite"),
            (Flags::DIST2_OUT_OF_RANGE, "dist2_out_of_range"),
        ];
        if self.is_empty() {
            return f.write_str("none");
        }
        let mut first = true;
        for (flag, name) in NAMES {
            if self.contains(flag) {
                if !first {
                    f.write_str("|")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        Ok(())
    }
}

/// The closest points of one pair: `C = A0 + s·(A1 - A0)` on A, `D = B0 + t·(B1 - B0)` on B,
/// in the precision of the pair (`f32` unless said otherwise, or `f64`: [`Closest64`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Closest<E = f32> {
    /// Parameter of `point_a` along A, inside A's extent.
    pub s: E,
    /// Parameter of `point_b` along B, inside B's extent.
    pub t: E,
    /// The closest point C on A.
    pub point_a: [E; 3],
    /// The closest point D on B.
    pub point_b: [E; 3],
    /// Squared distance |C - D|², formed from the separation `(A0 - B0) + s·dA - t·dB`
    /// computed locally, not by subtracting the two (possibly far-from-origin) points.
    pub dist2: E,
    /// What was special about this pair.
    pub flags: Flags,
}

/// The closest points of one `f64` pair ([`Segment64`]).
pub type Closest64 = Closest<f64>;

impl<E: Real> Closest<E> {
    /// The result reported for a pair with a non-finite coordinate: all NaN, flagged.
    pub const NON_FINITE: Closest<E> = Closest {
        s: E::NAN,
        t: E::NAN,
        point_a: [E::NAN; 3],
        point_b: [E::NAN; 3],
        dist2: E::NAN,
        flags: Flags::NON_FINITE,
    };

    /// The distance |C - D|.
    #[inline]
    #[must_use]
    pub fn distance(&self) -> E {
        self.dist2.sqrt()
    }

    /// Rhodes' P: the midpoint `(C + D) / 2`, the "intersection point" of two segments that
    /// nearly meet.
    #[inline]
    #[must_use]
    pub fn midpoint(&self) -> [E; 3] {
        core::array::from_fn(|i| E::HALF * (self.point_a[i] + self.point_b[i]))
    }

    /// The separation vector `C - D` (from the closest point on B to the one on A).
    #[inline]
    #[must_use]
    pub fn separation(&self) -> [E; 3] {
        core::array::from_fn(|i| self.point_a[i] - self.point_b[i])
    }
}

/// When a side counts as degenerate and two directions as parallel.
///
/// The default is scale-free: a side is degenerate when its length is at most
/// `length_rel` times the magnitude of its own end points (a couple of ulps of its
/// coordinates), and two directions are parallel when the sine of the angle between them is
/// at most `parallel_sin`. [`Tolerance::absolute`] gives Rhodes' style of one absolute epsilon
/// for callers who know their units.
///
/// Precisely, with `a = |dA|²`, `m = |A0|²` and `n = dA × dB`:
/// A is degenerate when `a <= length_rel²·m + length_abs²`, and the pair is parallel when
/// `|n|² <= parallel_sin²·|dA|²·|dB|²` (and neither side is degenerate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Length threshold relative to the magnitude of the side's coordinates.
    pub length_rel: f32,
    /// Absolute length threshold, in the units of the coordinates: an `f64`, read as given by
    /// the `f64` queries and rounded to the nearest `f32` by the `f32` ones (an `f32`
    /// widened, as [`Tolerance::absolute`] stores it, comes back exactly).
    pub length_abs: f64,
    /// Sine of the largest angle still treated as parallel.
    pub parallel_sin: f32,
}

impl Tolerance {
    /// The default scale-free tolerance: `length_rel = 2·ε`, `parallel_sin = 2·ε`
    /// (ε = `f32::EPSILON`). See `docs/algorithm.md` for why these values.
    pub const DEFAULT: Tolerance = Tolerance {
        length_rel: 2.0 * f32::EPSILON,
        length_abs: 0.0,
        parallel_sin: 2.0 * f32::EPSILON,
    };

    /// Rhodes-style absolute tolerance: a side is degenerate when its length is at most
    /// `epsilon`; the scale-free parallel test is kept (an absolute test on an angle would
    /// make no sense).
    #[must_use]
    pub const fn absolute(epsilon: f32) -> Tolerance {
        Tolerance::absolute64(epsilon as f64)
    }

    /// [`Tolerance::absolute`] with an `f64` epsilon, for the `f64` queries, which read it as
    /// given: an epsilon beyond `f32`'s range (say `1e300`) or finer than `f32` holds (the
    /// `f32` queries round it to the nearest `f32`). An epsilon whose square overflows
    /// `f64` (above about `1.3e154`) makes every side degenerate.
    #[must_use]
    pub const fn absolute64(epsilon: f64) -> Tolerance {
        Tolerance {
            length_rel: 0.0,
            length_abs: epsilon,
            parallel_sin: Tolerance::DEFAULT.parallel_sin,
        }
    }
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance::DEFAULT
    }
}

/// Per-call settings: the extent of each side and the tolerances.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Options {
    /// Extent of side A (parameter `s`).
    pub extent_a: Extent,
    /// Extent of side B (parameter `t`).
    pub extent_b: Extent,
    /// Degenerate and parallel thresholds.
    pub tolerance: Tolerance,
}

impl Options {
    /// Segment against segment with the default tolerance.
    pub const SEGMENTS: Options = Options {
        extent_a: Extent::Segment,
        extent_b: Extent::Segment,
        tolerance: Tolerance::DEFAULT,
    };

    /// Options with the given extents and the default tolerance.
    #[must_use]
    pub const fn new(extent_a: Extent, extent_b: Extent) -> Self {
        Options {
            extent_a,
            extent_b,
            tolerance: Tolerance::DEFAULT,
        }
    }

    /// The same options with another tolerance.
    #[must_use]
    pub const fn with_tolerance(mut self, tolerance: Tolerance) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The constants both the reference and the kernel need, derived once per call.
    #[inline]
    pub(crate) fn params(&self) -> Params {
        let (lo_a, hi_a) = self.extent_a.bounds();
        let (lo_b, hi_b) = self.extent_b.bounds();
        let t = self.tolerance;
        // The `f32` queries read the absolute tolerance rounded to `f32`.
        let length_abs = t.length_abs as f32;
        Params {
            lo_a,
            hi_a,
            lo_b,
            hi_b,
            length_rel2: t.length_rel * t.length_rel,
            length_abs2: length_abs * length_abs,
            parallel_sin2: t.parallel_sin * t.parallel_sin,
            accurate_cross: self.extent_a != Extent::Segment && self.extent_b != Extent::Segment,
        }
    }
}

impl Options {
    /// The constants of an `f64` call: [`Options::params`] in double precision. The
    /// default tolerance becomes its `f64` form (`length_rel = parallel_sin = 2·f64::EPSILON`,
    /// the same number of ulps); any other tolerance is taken as given (its `f32` values
    /// widened, its absolute length as the `f64` it is).
    #[inline]
    pub(crate) fn params64(&self) -> Params<f64> {
        let p = self.params();
        let t = if self.tolerance == Tolerance::DEFAULT {
            (2.0 * f64::EPSILON, 0.0, 2.0 * f64::EPSILON)
        } else {
            let t = self.tolerance;
            (
                f64::from(t.length_rel),
                t.length_abs,
                f64::from(t.parallel_sin),
            )
        };
        Params {
            lo_a: f64::from(p.lo_a),
            hi_a: f64::from(p.hi_a),
            lo_b: f64::from(p.lo_b),
            hi_b: f64::from(p.hi_b),
            length_rel2: t.0 * t.0,
            length_abs2: t.1 * t.1,
            parallel_sin2: t.2 * t.2,
            accurate_cross: p.accurate_cross,
        }
    }
}

impl<F: crate::real::Real> Params<F> {
    /// The constants for the pair scaled by `sigma` (a power of two): only the absolute
    /// length tolerance has units.
    #[inline]
    pub(crate) fn scaled(&self, sigma: F) -> Params<F> {
        Params {
            length_abs2: self.length_abs2 * sigma * sigma,
            ..*self
        }
    }
}

/// Per-call constants in the form the algorithm uses them (bounds, squared tolerances).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params<F = f32> {
    pub lo_a: F,
    pub hi_a: F,
    pub lo_b: F,
    pub hi_b: F,
    pub length_rel2: F,
    pub length_abs2: F,
    pub parallel_sin2: F,
    /// Both sides unbounded: `n = dA × dB` needs the accurate difference of products (with a
    /// segment side, clamp-and-adjust absorbs the plain cross product's error).
    pub accurate_cross: bool,
}
