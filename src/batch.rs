//! Structure-of-arrays storage: [`Segments`] (inputs), [`SegmentsView`] (borrowed sub-ranges)
//! and [`ClosestBatch`] (outputs).
//!
//! # Why structure-of-arrays
//!
//! The kernel works on 8 pairs at once, one pair per SIMD lane. With the coordinates stored
//! as six columns (`x0, y0, z0, x1, y1, z1`), lane `k` of a vector load from column `x0` is
//! simply pair `i + k`: one unaligned 32-byte load per coordinate, no shuffles. An array of
//! [`Segment`] structs (AoS) would need a transpose of every 8×6 block first. AoS is still
//! the natural interchange format (files, engines' own structs), so [`Segments`] converts
//! from `&[Segment]` in one pass, and `&[f32]` or raw bytes reach `&[Segment]` through
//! [`bytemuck::cast_slice`] without any per-element parsing.
//!
//! # Padding and remainders
//!
//! Every column of a [`Segments`] and every output column of a [`ClosestBatch`] is padded
//! with zeros to a multiple of [`LANES`], so the kernel processes the last partial group of
//! pairs as a full SIMD group and never runs a scalar tail. Padding lanes compute harmless
//! values (two zero-length segments at the origin) that are never exposed: every accessor
//! returns exactly `len()` elements. A [`SegmentsView`] of an arbitrary sub-range may lack
//! the padding after its end; the kernel then copies that one partial group into a padded
//! stack buffer.

use crate::segment::{Closest, Flags, Segment};
use bytemuck::Pod;
use core::marker::PhantomData;
use core::ops::{Bound, Deref, DerefMut, RangeBounds};

/// Pairs processed at once by the kernel (the width of `wide::f32x8`).
pub const LANES: usize = 8;

/// `n` rounded up to a multiple of [`LANES`].
#[inline]
#[must_use]
pub const fn padded_len(n: usize) -> usize {
    n.div_ceil(LANES) * LANES
}

/// A column of `T` stored as whole groups of [`LANES`] values (`G` holds exactly one group),
/// so that it starts on a `G`-aligned address: `wide::f32x8` groups make every 32-byte load
/// and store of the kernel aligned (unaligned columns from the system allocator start 16
/// bytes into a cache line, and half of all accesses would then split two lines).
pub(crate) struct Column<T, G> {
    groups: Vec<G>,
    elem: PhantomData<T>,
}

/// An `f32` column in `f32x8` groups.
pub(crate) type F32Column = Column<f32, wide::f32x8>;
/// A [`Flags`] column in `u64` groups.
pub(crate) type FlagsColumn = Column<Flags, u64>;

impl<T: Pod, G: Pod> Column<T, G> {
    const CHECK: () = assert!(size_of::<G>() == LANES * size_of::<T>());

    /// A column with room for `n` values.
    pub(crate) fn with_capacity(n: usize) -> Self {
        let () = Self::CHECK;
        Column {
            groups: Vec::with_capacity(n.div_ceil(LANES)),
            elem: PhantomData,
        }
    }

    /// Sets the length to `n` values rounded up to whole groups; new values are zero.
    pub(crate) fn resize_padded(&mut self, n: usize) {
        self.groups.resize(n.div_ceil(LANES), G::zeroed());
    }

    /// Removes every value, keeping the allocation.
    pub(crate) fn clear(&mut self) {
        self.groups.clear();
    }
}

impl<T, G> Default for Column<T, G> {
    fn default() -> Self {
        Column {
            groups: Vec::new(),
            elem: PhantomData,
        }
    }
}

impl<T, G: Clone> Clone for Column<T, G> {
    fn clone(&self) -> Self {
        Column {
            groups: self.groups.clone(),
            elem: PhantomData,
        }
    }
}

impl<T: Pod, G: Pod> Deref for Column<T, G> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        bytemuck::cast_slice(&self.groups)
    }
}

impl<T: Pod, G: Pod> DerefMut for Column<T, G> {
    fn deref_mut(&mut self) -> &mut [T] {
        bytemuck::cast_slice_mut(&mut self.groups)
    }
}

impl<T: Pod + PartialEq, G: Pod> PartialEq for Column<T, G> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Pod + core::fmt::Debug, G: Pod> core::fmt::Debug for Column<T, G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Column names, in storage order.
const COLUMN_NAMES: [&str; 6] = ["x0", "y0", "z0", "x1", "y1", "z1"];

/// An error from building or combining batches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BatchError {
    /// Two inputs that must have the same number of elements do not.
    LengthMismatch {
        /// What was being compared (for example `"a and b"` or `"column y0"`).
        what: &'static str,
        /// The expected length.
        expected: usize,
        /// The length found.
        found: usize,
    },
    /// A flat `f32` slice whose length is not a multiple of 6.
    NotMultipleOfSix {
        /// The length found.
        len: usize,
    },
    /// A radius that is negative or NaN (queries that compare distances with a radius).
    InvalidRadius {
        /// Index of the first invalid radius in a per-pair list, `None` for a single radius.
        index: Option<usize>,
    },
    /// A range outside the batch.
    OutOfRange {
        /// Start of the requested range.
        start: usize,
        /// End of the requested range (exclusive).
        end: usize,
        /// The batch length.
        len: usize,
    },
}

impl core::fmt::Display for BatchError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            BatchError::LengthMismatch {
                what,
                expected,
                found,
            } => write!(
                f,
                "length mismatch for {what}: expected {expected}, found {found}"
            ),
            BatchError::NotMultipleOfSix { len } => write!(
                f,
                "{len} numbers is not a whole number of segments (6 numbers each)"
            ),
            BatchError::InvalidRadius { index: None } => {
                write!(f, "the radius is negative or NaN")
            }
            BatchError::InvalidRadius { index: Some(i) } => {
                write!(f, "radius {i} is negative or NaN")
            }
            BatchError::OutOfRange { start, end, len } => {
                write!(f, "range {start}..{end} is outside a batch of {len}")
            }
        }
    }
}

impl std::error::Error for BatchError {}

/// A batch of segments stored as six `f32` columns, each padded to a multiple of [`LANES`].
///
/// ```
/// use segbatch::{Segment, Segments};
/// let aos = [
///     Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
///     Segment::new([0.0, 1.0, 0.0], [0.0, 2.0, 0.0]),
/// ];
/// let mut batch = Segments::from(&aos[..]);
/// batch.push(Segment::new([5.0, 5.0, 5.0], [6.0, 5.0, 5.0]));
/// assert_eq!(batch.len(), 3);
/// assert_eq!(batch.get(1), aos[1]);
/// assert_eq!(batch.y0(), &[0.0, 1.0, 5.0]);
///
/// // Flat f32 data (for example read from a file) casts without copying to `&[Segment]`.
/// let flat: Vec<f32> = vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
/// let batch = Segments::from(bytemuck::cast_slice::<f32, Segment>(&flat));
/// assert_eq!(batch.get(0).p1, [1.0, 1.0, 1.0]);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Segments {
    /// `x0, y0, z0, x1, y1, z1`, each of length `padded_len(len)`, zero padded.
    cols: [F32Column; 6],
    len: usize,
}

impl Segments {
    /// An empty batch.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty batch with room for `n` segments.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        Segments {
            cols: core::array::from_fn(|_| F32Column::with_capacity(n)),
            len: 0,
        }
    }

    /// A batch from six columns of equal length.
    ///
    /// # Errors
    /// [`BatchError::LengthMismatch`] when the columns differ in length.
    pub fn from_columns(
        x0: &[f32],
        y0: &[f32],
        z0: &[f32],
        x1: &[f32],
        y1: &[f32],
        z1: &[f32],
    ) -> Result<Self, BatchError> {
        let src = [x0, y0, z0, x1, y1, z1];
        let len = x0.len();
        for (name, col) in COLUMN_NAMES.iter().zip(src) {
            if col.len() != len {
                return Err(BatchError::LengthMismatch {
                    what: name,
                    expected: len,
                    found: col.len(),
                });
            }
        }
        let cols = core::array::from_fn(|k| {
            let mut v = F32Column::with_capacity(len);
            v.resize_padded(len);
            v[..len].copy_from_slice(src[k]);
            v
        });
        Ok(Segments { cols, len })
    }

    /// A batch from flat numbers, six per segment (`x0 y0 z0 x1 y1 z1`, AoS order).
    ///
    /// # Errors
    /// [`BatchError::NotMultipleOfSix`] when `flat.len()` is not a multiple of 6.
    pub fn from_flat(flat: &[f32]) -> Result<Self, BatchError> {
        if !flat.len().is_multiple_of(6) {
            return Err(BatchError::NotMultipleOfSix { len: flat.len() });
        }
        Ok(Segments::from(bytemuck::cast_slice::<f32, Segment>(flat)))
    }

    /// Number of segments.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the batch holds no segment.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Removes every segment, keeping the allocation.
    pub fn clear(&mut self) {
        for col in &mut self.cols {
            col.clear();
        }
        self.len = 0;
    }

    /// Appends one segment.
    pub fn push(&mut self, s: Segment) {
        let coords = [s.p0[0], s.p0[1], s.p0[2], s.p1[0], s.p1[1], s.p1[2]];
        if self.len.is_multiple_of(LANES) {
            // Open a new padded group.
            for col in &mut self.cols {
                col.resize_padded(self.len + 1);
            }
        }
        for (col, x) in self.cols.iter_mut().zip(coords) {
            col[self.len] = x;
        }
        self.len += 1;
    }

    /// Appends segments from an AoS slice in one pass.
    pub fn extend_from_slice(&mut self, segments: &[Segment]) {
        let old = self.len;
        let len = old + segments.len();
        for (k, col) in self.cols.iter_mut().enumerate() {
            col.resize_padded(len);
            let (point, axis) = (k / 3, k % 3);
            for (dst, s) in col[old..len].iter_mut().zip(segments) {
                *dst = if point == 0 { s.p0[axis] } else { s.p1[axis] };
            }
        }
        self.len = len;
    }

    /// Segment `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`; [`Segments::try_get`] does not panic.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> Segment {
        self.as_view().get(i)
    }

    /// Segment `i`, or `None` when `i` is out of range.
    #[inline]
    #[must_use]
    pub fn try_get(&self, i: usize) -> Option<Segment> {
        (i < self.len).then(|| self.get(i))
    }

    /// The segments in order, as AoS values.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Segment> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Column `x0` (exactly `len()` values).
    #[inline]
    #[must_use]
    pub fn x0(&self) -> &[f32] {
        &self.cols[0][..self.len]
    }
    /// Column `y0`.
    #[inline]
    #[must_use]
    pub fn y0(&self) -> &[f32] {
        &self.cols[1][..self.len]
    }
    /// Column `z0`.
    #[inline]
    #[must_use]
    pub fn z0(&self) -> &[f32] {
        &self.cols[2][..self.len]
    }
    /// Column `x1`.
    #[inline]
    #[must_use]
    pub fn x1(&self) -> &[f32] {
        &self.cols[3][..self.len]
    }
    /// Column `y1`.
    #[inline]
    #[must_use]
    pub fn y1(&self) -> &[f32] {
        &self.cols[4][..self.len]
    }
    /// Column `z1`.
    #[inline]
    #[must_use]
    pub fn z1(&self) -> &[f32] {
        &self.cols[5][..self.len]
    }

    /// The six columns `[x0, y0, z0, x1, y1, z1]`, each exactly `len()` values.
    #[must_use]
    pub fn columns(&self) -> [&[f32]; 6] {
        core::array::from_fn(|k| &self.cols[k][..self.len])
    }

    /// A view of the whole batch.
    #[inline]
    #[must_use]
    pub fn as_view(&self) -> SegmentsView<'_> {
        SegmentsView {
            cols: core::array::from_fn(|k| &self.cols[k][..]),
            len: self.len,
        }
    }

    /// A view of a sub-range, for example to hand pieces of one batch to several threads.
    ///
    /// # Panics
    /// When the range is outside `0..len()`; [`Segments::try_view`] does not panic.
    #[must_use]
    pub fn view(&self, range: impl RangeBounds<usize>) -> SegmentsView<'_> {
        self.as_view().view(range)
    }

    /// A view of a sub-range, or an error when it is outside `0..len()`.
    ///
    /// # Errors
    /// [`BatchError::OutOfRange`].
    pub fn try_view(&self, range: impl RangeBounds<usize>) -> Result<SegmentsView<'_>, BatchError> {
        self.as_view().try_view(range)
    }
}

impl From<&[Segment]> for Segments {
    fn from(segments: &[Segment]) -> Self {
        let mut batch = Segments::with_capacity(segments.len());
        batch.extend_from_slice(segments);
        batch
    }
}

impl From<&Vec<Segment>> for Segments {
    fn from(segments: &Vec<Segment>) -> Self {
        Segments::from(segments.as_slice())
    }
}

impl<const N: usize> From<&[Segment; N]> for Segments {
    fn from(segments: &[Segment; N]) -> Self {
        Segments::from(segments.as_slice())
    }
}

impl FromIterator<Segment> for Segments {
    fn from_iter<I: IntoIterator<Item = Segment>>(iter: I) -> Self {
        let mut batch = Segments::new();
        for s in iter {
            batch.push(s);
        }
        batch
    }
}

impl Extend<Segment> for Segments {
    fn extend<I: IntoIterator<Item = Segment>>(&mut self, iter: I) {
        for s in iter {
            self.push(s);
        }
    }
}

/// `Ok` when two lengths that must match do, else [`BatchError::LengthMismatch`].
pub(crate) fn check_len(
    what: &'static str,
    expected: usize,
    found: usize,
) -> Result<(), BatchError> {
    if expected == found {
        Ok(())
    } else {
        Err(BatchError::LengthMismatch {
            what,
            expected,
            found,
        })
    }
}

/// `Ok` when the two sides of a batch of pairs have the same length.
pub(crate) fn check_pair_lengths(
    a: &SegmentsView<'_>,
    b: &SegmentsView<'_>,
) -> Result<(), BatchError> {
    check_len("batches a and b", a.len(), b.len())
}

/// `range` resolved against a batch of `len` elements: `(start, end)`, or
/// [`BatchError::OutOfRange`].
pub(crate) fn resolve_range(
    range: impl RangeBounds<usize>,
    len: usize,
) -> Result<(usize, usize), BatchError> {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(BatchError::OutOfRange { start, end, len });
    }
    Ok((start, end))
}

impl<'a> From<&'a Segments> for SegmentsView<'a> {
    fn from(s: &'a Segments) -> Self {
        s.as_view()
    }
}

/// A borrowed range of a [`Segments`] (or of six caller-owned columns): what the kernel
/// reads. Cheap to copy and to split, so a job system can cut one batch into pieces.
///
/// Each column slice starts at the first element of the view and may run past `len()` into
/// the following elements or the zero padding; the kernel may read, but never reports, them.
#[derive(Clone, Copy, Debug)]
pub struct SegmentsView<'a> {
    cols: [&'a [f32]; 6],
    len: usize,
}

impl<'a> SegmentsView<'a> {
    /// A view over six caller-owned columns of equal length (no copy).
    ///
    /// # Errors
    /// [`BatchError::LengthMismatch`] when the columns differ in length.
    pub fn from_columns(cols: [&'a [f32]; 6]) -> Result<Self, BatchError> {
        let len = cols[0].len();
        if let Some(bad) = cols.iter().find(|c| c.len() != len) {
            return Err(BatchError::LengthMismatch {
                what: "columns of a view",
                expected: len,
                found: bad.len(),
            });
        }
        Ok(SegmentsView { cols, len })
    }

    /// Number of segments in the view.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the view is empty.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Segment `i` of the view.
    ///
    /// # Panics
    /// When `i >= self.len()`; [`SegmentsView::try_get`] does not panic.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> Segment {
        assert!(
            i < self.len,
            "segment index {i} out of range for a batch of {}",
            self.len
        );
        let c = &self.cols;
        Segment::new([c[0][i], c[1][i], c[2][i]], [c[3][i], c[4][i], c[5][i]])
    }

    /// Segment `i` of the view, or `None` when `i` is out of range.
    #[inline]
    #[must_use]
    pub fn try_get(&self, i: usize) -> Option<Segment> {
        (i < self.len).then(|| self.get(i))
    }

    /// The six columns, each exactly `len()` values.
    #[must_use]
    pub fn columns(&self) -> [&'a [f32]; 6] {
        core::array::from_fn(|k| &self.cols[k][..self.len])
    }

    /// The six columns including whatever follows the view in storage (at least `len()`
    /// values each): lets the kernel load whole SIMD groups without a copy.
    #[inline]
    pub(crate) fn raw_columns(&self) -> [&'a [f32]; 6] {
        self.cols
    }

    /// A sub-range of this view.
    ///
    /// # Panics
    /// When the range is outside `0..len()`; [`SegmentsView::try_view`] does not panic.
    #[must_use]
    pub fn view(&self, range: impl RangeBounds<usize>) -> SegmentsView<'a> {
        match self.try_view(range) {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }

    /// A sub-range of this view, or an error when it is outside `0..len()`.
    ///
    /// # Errors
    /// [`BatchError::OutOfRange`].
    pub fn try_view(&self, range: impl RangeBounds<usize>) -> Result<SegmentsView<'a>, BatchError> {
        let (start, end) = resolve_range(range, self.len)?;
        Ok(SegmentsView {
            cols: core::array::from_fn(|k| &self.cols[k][start..]),
            len: end - start,
        })
    }

    /// Splits into `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > self.len()`.
    #[must_use]
    pub fn split_at(&self, mid: usize) -> (SegmentsView<'a>, SegmentsView<'a>) {
        (self.view(..mid), self.view(mid..))
    }
}

/// Which result columns to compute and store.
///
/// The squared distance is always stored. At large batch sizes the bytes written are the
/// cost (a pair reads 48 bytes; all columns write 44 more), so ask only for what you use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outputs {
    /// Store the parameters `s` and `t`.
    pub params: bool,
    /// Store the closest points on A and B.
    pub points: bool,
    /// Store the per-pair [`Flags`].
    pub flags: bool,
}

impl Outputs {
    /// Squared distance only (4 bytes per pair).
    pub const DISTANCE: Outputs = Outputs {
        params: false,
        points: false,
        flags: false,
    };
    /// Squared distance, `s`, `t` and flags (13 bytes per pair).
    pub const PARAMS: Outputs = Outputs {
        params: true,
        points: false,
        flags: true,
    };
    /// Every column (37 bytes per pair).
    pub const ALL: Outputs = Outputs {
        params: true,
        points: true,
        flags: true,
    };

    /// Bytes written per pair for this selection.
    #[must_use]
    pub const fn bytes_per_pair(self) -> usize {
        4 + if self.params { 8 } else { 0 }
            + if self.points { 24 } else { 0 }
            + if self.flags { 1 } else { 0 }
    }
}

impl Default for Outputs {
    fn default() -> Self {
        Outputs::ALL
    }
}

/// Results for a batch of pairs, stored as columns.
///
/// Reuse one `ClosestBatch` across calls to [`closest_points_into`](crate::closest_points_into):
/// its buffers grow to the largest batch seen and are never shrunk, so a steady-state loop
/// does not allocate. Columns that were not selected ([`Outputs`]) are empty.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClosestBatch {
    len: usize,
    outputs: Outputs,
    s: F32Column,
    t: F32Column,
    dist2: F32Column,
    flags: FlagsColumn,
    point_a: [F32Column; 3],
    point_b: [F32Column; 3],
}

impl ClosestBatch {
    /// An empty batch (no allocation).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of pairs.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there are no results.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The columns that were computed.
    #[inline]
    #[must_use]
    pub fn outputs(&self) -> Outputs {
        self.outputs
    }

    /// Parameters along A, exactly `len()` values (empty without [`Outputs::params`]).
    #[inline]
    #[must_use]
    pub fn s(&self) -> &[f32] {
        &self.s[..self.s.len().min(self.len)]
    }

    /// Parameters along B, exactly `len()` values (empty without [`Outputs::params`]).
    #[inline]
    #[must_use]
    pub fn t(&self) -> &[f32] {
        &self.t[..self.t.len().min(self.len)]
    }

    /// Squared distances, exactly `len()` values.
    #[inline]
    #[must_use]
    pub fn dist2(&self) -> &[f32] {
        &self.dist2[..self.dist2.len().min(self.len)]
    }

    /// Per-pair flags, exactly `len()` values (empty without [`Outputs::flags`]).
    #[inline]
    #[must_use]
    pub fn flags(&self) -> &[Flags] {
        &self.flags[..self.flags.len().min(self.len)]
    }

    /// Closest points on A as `[x, y, z]` columns (empty without [`Outputs::points`]).
    #[must_use]
    pub fn point_a(&self) -> [&[f32]; 3] {
        core::array::from_fn(|k| &self.point_a[k][..self.point_a[k].len().min(self.len)])
    }

    /// Closest points on B as `[x, y, z]` columns (empty without [`Outputs::points`]).
    #[must_use]
    pub fn point_b(&self) -> [&[f32]; 3] {
        core::array::from_fn(|k| &self.point_b[k][..self.point_b[k].len().min(self.len)])
    }

    /// The distances `sqrt(dist2)`, computed on demand.
    pub fn distances(&self) -> impl ExactSizeIterator<Item = f32> + '_ {
        self.dist2().iter().map(|d| d.sqrt())
    }

    /// Result `i` as a [`Closest`]; columns that were not computed read as NaN (flags as
    /// empty).
    ///
    /// # Panics
    /// When `i >= self.len()`; [`ClosestBatch::try_get`] does not panic.
    #[must_use]
    pub fn get(&self, i: usize) -> Closest {
        assert!(
            i < self.len,
            "result index {i} out of range for a batch of {}",
            self.len
        );
        let col = |c: &F32Column| c.get(i).copied().unwrap_or(f32::NAN);
        Closest {
            s: col(&self.s),
            t: col(&self.t),
            point_a: core::array::from_fn(|k| col(&self.point_a[k])),
            point_b: core::array::from_fn(|k| col(&self.point_b[k])),
            dist2: self.dist2[i],
            flags: self.flags.get(i).copied().unwrap_or(Flags::NONE),
        }
    }

    /// Result `i`, or `None` when `i` is out of range.
    #[must_use]
    pub fn try_get(&self, i: usize) -> Option<Closest> {
        (i < self.len).then(|| self.get(i))
    }

    /// The results in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Closest> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Sizes every selected column for `len` results (padded to [`LANES`]) and empties the
    /// others, reusing the existing allocations.
    pub(crate) fn reset(&mut self, len: usize, outputs: Outputs) {
        self.len = len;
        self.outputs = outputs;
        let size = |v: &mut F32Column, on: bool| {
            if on {
                v.resize_padded(len);
            } else {
                v.clear();
            }
        };
        size(&mut self.dist2, true);
        size(&mut self.s, outputs.params);
        size(&mut self.t, outputs.params);
        for k in 0..3 {
            size(&mut self.point_a[k], outputs.points);
            size(&mut self.point_b[k], outputs.points);
        }
        if outputs.flags {
            self.flags.resize_padded(len);
        } else {
            self.flags.clear();
        }
    }

    /// Mutable output columns covering all (padded) results, for the kernel.
    pub(crate) fn columns_mut(&mut self) -> OutColumns<'_> {
        let [pa0, pa1, pa2] = &mut self.point_a;
        let [pb0, pb1, pb2] = &mut self.point_b;
        OutColumns {
            outputs: self.outputs,
            dist2: &mut self.dist2[..],
            s: &mut self.s[..],
            t: &mut self.t[..],
            flags: &mut self.flags[..],
            point_a: [&mut pa0[..], &mut pa1[..], &mut pa2[..]],
            point_b: [&mut pb0[..], &mut pb1[..], &mut pb2[..]],
        }
    }
}

/// Borrowed output columns: what the kernel writes. Columns not in `outputs` are empty;
/// the others hold at least as many values as the pairs being computed (the kernel pads the
/// last group itself when a column is not padded).
pub(crate) struct OutColumns<'a> {
    pub outputs: Outputs,
    pub dist2: &'a mut [f32],
    pub s: &'a mut [f32],
    pub t: &'a mut [f32],
    pub flags: &'a mut [Flags],
    pub point_a: [&'a mut [f32]; 3],
    pub point_b: [&'a mut [f32]; 3],
}

impl<'a> OutColumns<'a> {
    /// The length of the shortest selected column.
    pub(crate) fn room(&self) -> usize {
        let o = self.outputs;
        let mut room = self.dist2.len();
        if o.params {
            room = room.min(self.s.len()).min(self.t.len());
        }
        if o.flags {
            room = room.min(self.flags.len());
        }
        if o.points {
            for col in self.point_a.iter().chain(&self.point_b) {
                room = room.min(col.len());
            }
        }
        room
    }

    /// Splits at `mid` (a multiple of [`LANES`] in practice) into two disjoint halves.
    #[cfg(feature = "rayon")]
    pub(crate) fn split_at(self, mid: usize) -> (OutColumns<'a>, OutColumns<'a>) {
        fn split<T>(col: &mut [T], mid: usize) -> (&mut [T], &mut [T]) {
            let mid = mid.min(col.len());
            col.split_at_mut(mid)
        }
        let [pa0, pa1, pa2] = self.point_a;
        let [pb0, pb1, pb2] = self.point_b;
        let (d0, d1) = split(self.dist2, mid);
        let (s0, s1) = split(self.s, mid);
        let (t0, t1) = split(self.t, mid);
        let (f0, f1) = split(self.flags, mid);
        let (pax0, pax1) = split(pa0, mid);
        let (pay0, pay1) = split(pa1, mid);
        let (paz0, paz1) = split(pa2, mid);
        let (pbx0, pbx1) = split(pb0, mid);
        let (pby0, pby1) = split(pb1, mid);
        let (pbz0, pbz1) = split(pb2, mid);
        (
            OutColumns {
                outputs: self.outputs,
                dist2: d0,
                s: s0,
                t: t0,
                flags: f0,
                point_a: [pax0, pay0, paz0],
                point_b: [pbx0, pby0, pbz0],
            },
            OutColumns {
                outputs: self.outputs,
                dist2: d1,
                s: s1,
                t: t1,
                flags: f1,
                point_a: [pax1, pay1, paz1],
                point_b: [pbx1, pby1, pbz1],
            },
        )
    }
}
