//! [`SegmentIndex64`]: the first hits of thick rays on a static set of `f64` segments, for
//! world coordinates (UTM `x ~ 5e5`, `y ~ 5e6` metres; ECEF) that `f32` resolves only to
//! half a metre.
//!
//! It is [`SegmentIndex`](super::SegmentIndex)'s first-hit half over [`Segments64`]: the
//! same eight-wide tree ([`super::bvh8`], whose `f32` boxes are taken relative to the
//! set's centre and rounded outward, so they stay conservative and as tight as at the
//! origin), the same driver and the same one `f64` decision per pair, with `f64` members,
//! rays, radii, ranges and hits, and the contact tolerance of a zero radius `4·ε·S` with
//! `ε = f64::EPSILON`. So for every ray it returns the least `(u, index)` over the set of
//! [`reference::first_hit64`](crate::reference::first_hit64), bit for bit.

use super::bvh8::Bvh8;
use super::index::{FirstHit64, PerRay64, Rays64, first_hits_run};
use crate::batch::{Error, Segments64View, check_u32};
use crate::segment::Segment64;

/// A static set of `f64` segments ready for repeated first-hit queries:
/// [`SegmentIndex`](super::SegmentIndex)'s `f64` twin for first hits.
///
/// A hit is what [`SegmentIndex`](super::SegmentIndex) documents, every quantity in `f64`;
/// the contact tolerance of a zero radius is `4·ε·S` with `ε = f64::EPSILON` (`S` the
/// largest coordinate magnitude of the ray's origin and the member): at `S = 5e6` a zero
/// radius touches within 4.4 nm. The squares of distances are formed in `f64`: a pair
/// whose coordinates or radius pass about `1e150` overflows them and is never a hit.
///
/// ```
/// use segbatch::sets::{Rays64, SegmentIndex64};
/// use segbatch::{Segment64, Segments64};
/// // A wall 5 m east of a UTM origin, a sight ray along +x with radius 0.5 and range 10.
/// let (x, y) = (500_000.0, 5_000_000.0);
/// let walls = Segments64::from(&[Segment64::new([x + 5.0, y - 1.0, 0.0], [x + 5.0, y + 1.0, 0.0])]);
/// let index = SegmentIndex64::new(&walls)?;
/// let (origins, directions) = ([[x, y, 0.0]], [[1.0, 0.0, 0.0]]);
/// let hit = index.first_hits(Rays64::Along { origins: &origins, directions: &directions }, 0.5, 10.0)?[0];
/// assert_eq!(hit.map(|h| (h.index, h.u, h.point)), Some((0, 4.5, [x + 5.0, y, 0.0])));
/// # Ok::<(), segbatch::Error>(())
/// ```
pub struct SegmentIndex64 {
    /// The tree of the first hits.
    bvh: Bvh8<Segment64>,
    /// Number of members.
    len: usize,
}

impl SegmentIndex64 {
    /// Builds the index over `set`, which it copies in the tree's order (48 bytes a
    /// segment, beside the tree's nodes, about 32): results name members by their index in
    /// `set`. Never panics: members with a NaN or infinite coordinate are kept (they touch
    /// nothing), and a set too large in extent for the tree's `f32` boxes is searched member
    /// by member.
    ///
    /// # Errors
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments.
    pub fn new<'a>(set: impl Into<Segments64View<'a>>) -> Result<Self, Error> {
        let set = set.into();
        check_u32(set.len())?;
        Ok(SegmentIndex64 {
            bvh: Bvh8::build(set.len(), |i| set.at(i)),
            len: set.len(),
        })
    }

    /// Number of members.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for an index over an empty set.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// For every ray of `rays` (segments: `P0` the origin, `P1 - P0` the direction; or
    /// [`Rays64::Along`] an origin and a direction), the first member of the set that a
    /// sphere of `radius` moving along it from `u = 0` to `u = range` touches, or `None`:
    /// [`SegmentIndex::first_hits`](super::SegmentIndex::first_hits) in `f64`.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN;
    /// [`Error::InvalidRange`] when a range is negative or NaN;
    /// [`Error::LengthMismatch`] when a per-ray list is not one value per ray, or
    /// [`Rays64::Along`] not one direction an origin;
    /// [`Error::TooManyObjects`] for more than `u32::MAX` rays.
    pub fn first_hits<'r, 'p>(
        &self,
        rays: impl Into<Rays64<'r>>,
        radius: impl Into<PerRay64<'p>>,
        range: impl Into<PerRay64<'p>>,
    ) -> Result<Vec<Option<FirstHit64>>, Error> {
        let mut out = Vec::new();
        first_hits_run(
            &self.bvh,
            rays.into(),
            radius.into(),
            range.into(),
            false,
            &mut out,
        )?;
        Ok(out)
    }

    /// [`first_hits`](Self::first_hits) into `out` (cleared first, one entry per ray),
    /// reusing its allocation from frame to frame.
    ///
    /// # Errors
    /// As [`first_hits`](Self::first_hits); `out` is then empty.
    pub fn first_hits_into<'r, 'p>(
        &self,
        rays: impl Into<Rays64<'r>>,
        radius: impl Into<PerRay64<'p>>,
        range: impl Into<PerRay64<'p>>,
        out: &mut Vec<Option<FirstHit64>>,
    ) -> Result<(), Error> {
        first_hits_run(
            &self.bvh,
            rays.into(),
            radius.into(),
            range.into(),
            false,
            out,
        )
    }

    /// [`first_hits`](Self::first_hits) on all cores, bitwise the same results.
    ///
    /// # Errors
    /// As [`first_hits`](Self::first_hits).
    #[cfg(feature = "rayon")]
    pub fn par_first_hits<'r, 'p>(
        &self,
        rays: impl Into<Rays64<'r>>,
        radius: impl Into<PerRay64<'p>>,
        range: impl Into<PerRay64<'p>>,
    ) -> Result<Vec<Option<FirstHit64>>, Error> {
        let mut out = Vec::new();
        first_hits_run(
            &self.bvh,
            rays.into(),
            radius.into(),
            range.into(),
            true,
            &mut out,
        )?;
        Ok(out)
    }

    /// [`first_hits_into`](Self::first_hits_into) on all cores, bitwise the same results.
    ///
    /// # Errors
    /// As [`first_hits`](Self::first_hits); `out` is then empty.
    #[cfg(feature = "rayon")]
    pub fn par_first_hits_into<'r, 'p>(
        &self,
        rays: impl Into<Rays64<'r>>,
        radius: impl Into<PerRay64<'p>>,
        range: impl Into<PerRay64<'p>>,
        out: &mut Vec<Option<FirstHit64>>,
    ) -> Result<(), Error> {
        first_hits_run(
            &self.bvh,
            rays.into(),
            radius.into(),
            range.into(),
            true,
            out,
        )
    }
}
