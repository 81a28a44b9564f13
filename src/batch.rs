//! Structure-of-arrays storage: [`Segments`] (inputs), [`SegmentsView`] (borrowed sub-ranges)
//! and [`ClosestBatch`](crate::pairs::ClosestBatch) (outputs).
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
//! Every column of a [`Segments`] and every output column of a
//! [`ClosestBatch`](crate::pairs::ClosestBatch) is padded with zeros to a multiple of
//! [`LANES`], so the kernel processes the last partial group of pairs as a full SIMD group
//! and never runs a scalar tail. Padding lanes compute harmless values (two zero-length
//! segments at the origin) that are never exposed: every accessor returns exactly `len()`
//! elements. A [`SegmentsView`] of an arbitrary sub-range may lack the padding after its
//! end; the kernel then copies that one partial group into a padded stack buffer.

use crate::columns::len_methods;
use crate::columns::{Cell, Column};
pub use crate::columns::{LANES, padded_len};
use crate::segment::{Segment, Segment64};
use bytemuck::Pod;
use core::marker::PhantomData;
use core::ops::{Bound, RangeBounds};

/// What can go wrong with a call's inputs: the one error type of the crate.
///
/// New variants may be added (`#[non_exhaustive]`); each names what was wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Two inputs that must have the same number of elements do not.
    LengthMismatch {
        /// What was being compared (for example `"a and b"` or `"column y0"`).
        what: &'static str,
        /// The expected length.
        expected: usize,
        /// The length found.
        found: usize,
    },
    /// A flat `f32` slice whose length is not a whole number of records (6 numbers a 3D
    /// segment or track, 4 a 2D segment).
    NotWholeRecords {
        /// The length found.
        len: usize,
        /// Numbers per record.
        per_record: usize,
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
    /// A set too large for the 32-bit indices of a set query's compact hits.
    TooManyObjects {
        /// Number of objects given.
        len: usize,
        /// The largest number the query takes (`u32::MAX`).
        max: usize,
    },
    /// An index pair naming an element past the end of its batch (the index-pair queries).
    IndexOutOfRange {
        /// Position of the pair in the list.
        pair: usize,
        /// The index found.
        index: u32,
        /// Length of the batch it indexes.
        len: usize,
    },
    /// An output that could not be allocated: the collected forms of the set and matrix
    /// queries reserve with `try_reserve` and return this instead of aborting the process
    /// (use the streamed `for_each_…` forms for outputs larger than memory).
    OutOfMemory {
        /// What was being allocated (for example `"dist2_matrix output"`).
        what: &'static str,
        /// The number of elements that could not be reserved.
        elements: usize,
    },
    /// A range (the length of a sweep) that is negative or NaN (`+∞` is allowed).
    InvalidRange {
        /// Index of the first invalid range in a per-ray list, `None` for a single range.
        index: Option<usize>,
    },
    /// An object id that names no object of a persistent set
    /// ([`scenes::Capsules`](crate::scenes::Capsules)): never given out, or removed.
    UnknownId {
        /// The id given.
        id: u32,
    },
}

impl core::fmt::Display for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Error::LengthMismatch {
                what,
                expected,
                found,
            } => write!(
                f,
                "length mismatch for {what}: expected {expected}, found {found}"
            ),
            Error::NotWholeRecords { len, per_record } => write!(
                f,
                "{len} numbers is not a whole number of records ({per_record} numbers each)"
            ),
            Error::InvalidRadius { index: None } => {
                write!(f, "the radius is negative or NaN")
            }
            Error::InvalidRadius { index: Some(i) } => {
                write!(f, "radius {i} is negative or NaN")
            }
            Error::OutOfRange { start, end, len } => {
                write!(f, "range {start}..{end} is outside a batch of {len}")
            }
            Error::TooManyObjects { len, max } => write!(
                f,
                "{len} objects is more than the {max} this query's 32-bit indices can name"
            ),
            Error::IndexOutOfRange { pair, index, len } => write!(
                f,
                "index pair {pair} names element {index} of a batch of {len}"
            ),
            Error::OutOfMemory { what, elements } => write!(
                f,
                "out of memory: the {what} of {elements} elements could not be allocated"
            ),
            Error::InvalidRange { index: None } => {
                write!(f, "the range is negative or NaN")
            }
            Error::InvalidRange { index: Some(i) } => {
                write!(f, "range {i} is negative or NaN")
            }
            Error::UnknownId { id } => write!(f, "object id {id} names no object of the set"),
        }
    }
}

impl std::error::Error for Error {}

/// `Ok` when two lengths that must match do, else [`Error::LengthMismatch`].
pub(crate) fn check_len(what: &'static str, expected: usize, found: usize) -> Result<(), Error> {
    if expected == found {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what,
            expected,
            found,
        })
    }
}

/// `Ok` when every pair names an element of `a` (first index) and of `b` (second).
pub(crate) fn check_pairs(pairs: &[(u32, u32)], na: usize, nb: usize) -> Result<(), Error> {
    // The largest index of each side first, without a branch a pair (it vectorises); the
    // search for the first bad pair runs only when there is one.
    let (max_i, max_j) = pairs
        .iter()
        .fold((0, 0), |(mi, mj), &(i, j)| (mi.max(i), mj.max(j)));
    if (max_i as usize) < na && (max_j as usize) < nb {
        return Ok(());
    }
    for (k, &(i, j)) in pairs.iter().enumerate() {
        for (index, len) in [(i, na), (j, nb)] {
            if index as usize >= len {
                return Err(Error::IndexOutOfRange {
                    pair: k,
                    index,
                    len,
                });
            }
        }
    }
    Ok(())
}

/// `Ok` when `len` objects fit the 32-bit indices of the compact hits.
pub(crate) fn check_u32(len: usize) -> Result<(), Error> {
    if len <= u32::MAX as usize {
        Ok(())
    } else {
        Err(Error::TooManyObjects {
            len,
            max: u32::MAX as usize,
        })
    }
}

/// `range` resolved against a batch of `len` elements: `(start, end)`, or
/// [`Error::OutOfRange`].
pub(crate) fn resolve_range(
    range: impl RangeBounds<usize>,
    len: usize,
) -> Result<(usize, usize), Error> {
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
        return Err(Error::OutOfRange { start, end, len });
    }
    Ok((start, end))
}

/// A record stored by a [`Soa`] batch as `C` columns of `E` (`f32`, or `f64` for
/// [`Segment64`]): a `#[repr(C)]`, [`Pod`] struct of exactly `C` values of `E` ([`Segment`],
/// [`Segment2`](crate::planar::Segment2), [`Track`](crate::motion::Track), [`Segment64`]), so a
/// batch converts from `&[T]` in one pass and flat data casts to `&[T]` with no parsing.
pub trait Record<const C: usize, E = f32>: Pod + core::fmt::Debug {
    /// The column names, in storage order (for messages).
    const NAMES: [&'static str; C];
}

impl Record<6> for Segment {
    const NAMES: [&'static str; 6] = ["x0", "y0", "z0", "x1", "y1", "z1"];
}

impl Record<6, f64> for Segment64 {
    const NAMES: [&'static str; 6] = ["x0", "y0", "z0", "x1", "y1", "z1"];
}

/// A batch of records stored as `C` columns of `E` (`f32` unless said otherwise), each
/// padded to a multiple of [`LANES`] (structure-of-arrays): [`Segments`],
/// [`Segments2`](crate::planar::Segments2), [`Tracks`](crate::motion::Tracks), and in `f64`
/// [`Segments64`].
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
/// assert_eq!(batch.get(1), Some(aos[1]));
/// assert_eq!(batch.get(3), None);
/// assert_eq!(batch.columns()[1], &[0.0, 1.0, 5.0]); // y0
///
/// // Flat f32 data (for example read from a file) casts without copying to `&[Segment]`.
/// let flat: Vec<f32> = vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
/// let batch = Segments::from(bytemuck::cast_slice::<f32, Segment>(&flat));
/// assert_eq!(batch.get(0).map(|s| s.p1), Some([1.0, 1.0, 1.0]));
/// ```
pub struct Soa<T, const C: usize, E: Cell = f32> {
    /// The columns, each of length `padded_len(len)`, zero padded.
    cols: [Column<E>; C],
    len: usize,
    record: PhantomData<T>,
}

/// A batch of 3D segments: six `f32` columns `x0, y0, z0, x1, y1, z1` ([`Segment`]
/// records); in `f64`, [`Segments64`]. Every 3D query takes the precision of its batches:
/// `closest_points(&a, &b)` runs in `f64` when `a` and `b` are `Segments64`.
pub type Segments = Soa<Segment, 6>;

/// A borrowed range of a [`Segments`] batch (or of six caller-owned columns), of `f32`
/// unless said otherwise, or of `f64` ([`Segments64View`]): what the 3D queries take.
pub type SegmentsView<'a, E = f32> = SoaView<'a, <E as sealed::Space>::SegmentRecord, 6, E>;

/// A batch of 3D segments in `f64` ([`Segment64`]): six `f64` columns, the same API as
/// [`Segments`].
///
/// ```
/// use segbatch::{Segment64, Segments64};
/// let o = 6_378_137.0; // metres from the Earth's centre: f32 would resolve only 0.5 m here
/// let mut batch = Segments64::from(&[Segment64::new([o, 0.0, 0.0], [o + 1e-3, 0.0, 0.0])]);
/// batch.push(Segment64::new([o, 1.0, 0.0], [o, 2.0, 0.0]));
/// assert_eq!(batch.len(), 2);
/// assert_eq!(batch.get(0).map(|s| s.p1[0]), Some(o + 1e-3));
/// assert_eq!(batch.columns()[1], &[0.0, 1.0]); // y0
/// assert_eq!(batch.view(1..).get(0), batch.get(1));
/// ```
pub type Segments64 = Soa<Segment64, 6, f64>;

/// A borrowed range of a [`Segments64`] batch.
pub type Segments64View<'a> = SegmentsView<'a, f64>;

/// What a 3D element type (`f32` or `f64`) brings to its batches and to the reference
/// (sealed: public only so that [`Element`](crate::Element) can build on it, in a module no
/// user can name).
pub(crate) mod sealed {
    use crate::segment::{Options, Params};

    /// The record of a 3D batch in one precision and the constants of a call in it.
    // The trait is unnameable outside the crate: its crate-private types (`Params`) are
    // no part of the public API.
    #[allow(private_interfaces)]
    pub trait Space:
        crate::real::Real + crate::columns::Cell + bytemuck::Pod + Into<f64> + Default + 'static
    {
        /// The segment record: [`Segment`](crate::Segment) for `f32`,
        /// [`Segment64`](crate::Segment64) for `f64` (public as
        /// [`Element::Segment`](crate::Element::Segment)).
        type SegmentRecord: super::Record<6, Self> + Send + Sync + Into<[[Self; 3]; 2]>;
        /// The constants of a call in this precision ([`Options::params`],
        /// [`Options::params64`]).
        fn params(options: &Options) -> Params<Self>;
    }

    #[allow(private_interfaces)]
    impl Space for f32 {
        type SegmentRecord = crate::Segment;
        #[inline]
        fn params(options: &Options) -> Params<f32> {
            options.params()
        }
    }

    #[allow(private_interfaces)]
    impl Space for f64 {
        type SegmentRecord = crate::Segment64;
        #[inline]
        fn params(options: &Options) -> Params<f64> {
            options.params64()
        }
    }
}

/// `new` of each batch type, one inherent impl each, and none for the planar `f64` batch:
/// a single inherent `new` among the planar batches is what lets `Segments2::new()` (whose
/// element is otherwise left to infer) be `Segments2<f32>`, the default element.
/// `Segments2::<f64>` starts from [`Default::default`], [`Soa::with_capacity`] or a slice;
/// generic code from either.
macro_rules! batch_new {
    ($($record:ty, $cols:literal, $elem:ty;)*) => {$(
        impl Soa<$record, $cols, $elem> {
            /// An empty batch.
            #[must_use]
            pub fn new() -> Self {
                Self::with_capacity(0)
            }
        }
    )*};
}

batch_new! {
    Segment, 6, f32;
    Segment64, 6, f64;
    crate::planar::Segment2, 4, f32;
    crate::motion::Track, 6, f32;
    crate::motion::Track64, 6, f64;
    crate::motion::Sweep, 12, f32;
    crate::motion::Sweep64, 12, f64;
}

impl<T: Record<C, E>, const C: usize, E: Cell + Pod> Soa<T, C, E> {
    /// An empty batch with room for `n` records.
    #[must_use]
    pub fn with_capacity(n: usize) -> Self {
        Soa {
            cols: core::array::from_fn(|_| Column::with_capacity(n)),
            len: 0,
            record: PhantomData,
        }
    }

    /// A batch from `C` columns of equal length (copied).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the columns differ in length.
    pub fn from_columns(cols: [&[E]; C]) -> Result<Self, Error> {
        let view = SoaView::<T, C, E>::from_columns(cols)?;
        let len = view.len();
        let cols = core::array::from_fn(|k| {
            let mut v = Column::<E>::with_capacity(len);
            v.resize_padded(len);
            v[..len].copy_from_slice(cols[k]);
            v
        });
        Ok(Soa {
            cols,
            len,
            record: PhantomData,
        })
    }

    /// A batch from flat numbers, `C` per record in the record's order (AoS).
    ///
    /// # Errors
    /// [`Error::NotWholeRecords`] when `flat.len()` is not a multiple of `C`.
    pub fn from_flat(flat: &[E]) -> Result<Self, Error> {
        if !flat.len().is_multiple_of(C) {
            return Err(Error::NotWholeRecords {
                len: flat.len(),
                per_record: C,
            });
        }
        Ok(Soa::from(bytemuck::cast_slice::<E, T>(flat)))
    }

    len_methods!("records");

    /// Removes every record, keeping the allocation.
    pub fn clear(&mut self) {
        for col in &mut self.cols {
            col.clear();
        }
        self.len = 0;
    }

    /// Appends one record.
    pub fn push(&mut self, record: T) {
        let record = [record];
        let values: &[E] = bytemuck::cast_slice(&record);
        if self.len.is_multiple_of(LANES) {
            // Open a new padded group.
            for col in &mut self.cols {
                col.resize_padded(self.len + 1);
            }
        }
        for (col, &x) in self.cols.iter_mut().zip(values) {
            col[self.len] = x;
        }
        self.len += 1;
    }

    /// Makes room for at least `additional` more records, so that as many pushes allocate
    /// nothing.
    pub fn reserve(&mut self, additional: usize) {
        for col in &mut self.cols {
            col.reserve(additional);
        }
    }

    /// Appends records from an AoS slice in one pass.
    pub fn extend_from_slice(&mut self, records: &[T]) {
        let old = self.len;
        let len = old + records.len();
        let flat: &[[E; C]] = bytemuck::cast_slice(records);
        for col in &mut self.cols {
            col.resize_padded(len);
        }
        // In blocks that stay in L1 (256 records: 12 KB of twelve `f32` columns), each block
        // read once per column: column by column over the whole slice, a slice larger than
        // the cache is read `C` times from memory.
        let mut at = old;
        for block in flat.chunks(256) {
            for (k, col) in self.cols.iter_mut().enumerate() {
                for (dst, r) in col[at..at + block.len()].iter_mut().zip(block) {
                    *dst = r[k];
                }
            }
            at += block.len();
        }
        self.len = len;
    }

    /// Record `i`, or `None` when `i >= len()`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> Option<T> {
        self.as_view().get(i)
    }

    /// Replaces record `i` in place (a moved object, a frame's new position): no
    /// allocation.
    ///
    /// # Errors
    /// [`Error::OutOfRange`] when `i >= len()` (the batch is then unchanged).
    pub fn set(&mut self, i: usize, record: T) -> Result<(), Error> {
        self.set_from_slice(i, &[record])
    }

    /// Overwrites records `start..start + records.len()` in place from an AoS slice (every
    /// object of a scene moved this frame: `set_from_slice(0, &positions)`), in one pass per
    /// column and without allocating.
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// let mut scene = Segments::from(&[Segment::new([0.0; 3], [1.0, 0.0, 0.0]); 3]);
    /// let moved = [Segment::new([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]); 2];
    /// scene.set_from_slice(1, &moved)?;
    /// assert_eq!(scene.get(2), Some(moved[1]));
    /// scene.set(0, moved[0])?;
    /// assert_eq!(scene.get(0), Some(moved[0]));
    /// assert!(scene.set(3, moved[0]).is_err());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfRange`] when the range does not lie within the batch (the batch is
    /// then unchanged).
    pub fn set_from_slice(&mut self, start: usize, records: &[T]) -> Result<(), Error> {
        let end = start
            .checked_add(records.len())
            .filter(|&end| end <= self.len)
            .ok_or(Error::OutOfRange {
                start,
                end: start.saturating_add(records.len()),
                len: self.len,
            })?;
        let flat: &[[E; C]] = bytemuck::cast_slice(records);
        for (k, col) in self.cols.iter_mut().enumerate() {
            for (dst, r) in col[start..end].iter_mut().zip(flat) {
                *dst = r[k];
            }
        }
        Ok(())
    }

    /// The records in order, as AoS values.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + '_ {
        let view = self.as_view();
        (0..self.len).map(move |i| view.at(i))
    }

    /// `n` zero records, for a caller that writes the columns ([`Soa::columns_mut`]).
    pub(crate) fn zeroed(n: usize) -> Self {
        let mut batch = Self::with_capacity(n);
        for col in &mut batch.cols {
            col.resize_padded(n);
        }
        batch.len = n;
        batch
    }

    /// The `C` columns, writable, each exactly `len()` values.
    pub(crate) fn columns_mut(&mut self) -> [&mut [E]; C] {
        let len = self.len;
        self.cols.each_mut().map(|col| &mut col[..len])
    }

    /// The `C` columns, each exactly `len()` values.
    #[must_use]
    pub fn columns(&self) -> [&[E]; C] {
        core::array::from_fn(|k| &self.cols[k][..self.len])
    }

    /// A view of the whole batch.
    #[inline]
    #[must_use]
    pub fn as_view(&self) -> SoaView<'_, T, C, E> {
        SoaView {
            cols: core::array::from_fn(|k| &self.cols[k][..]),
            len: self.len,
            record: PhantomData,
        }
    }

    /// A view of a sub-range, for example to hand pieces of one batch to several threads.
    ///
    /// # Panics
    /// When the range is outside `0..len()`; [`Soa::try_view`] does not panic.
    #[must_use]
    pub fn view(&self, range: impl RangeBounds<usize>) -> SoaView<'_, T, C, E> {
        self.as_view().view(range)
    }

    /// A view of a sub-range, or an error when it is outside `0..len()`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`].
    pub fn try_view(&self, range: impl RangeBounds<usize>) -> Result<SoaView<'_, T, C, E>, Error> {
        self.as_view().try_view(range)
    }
}

impl<T, const C: usize, E: Cell> Default for Soa<T, C, E> {
    fn default() -> Self {
        Soa {
            cols: core::array::from_fn(|_| Column::default()),
            len: 0,
            record: PhantomData,
        }
    }
}

impl<T, const C: usize, E: Cell> Clone for Soa<T, C, E> {
    fn clone(&self) -> Self {
        Soa {
            cols: self.cols.clone(),
            len: self.len,
            record: PhantomData,
        }
    }
}

impl<T, const C: usize, E: Cell> PartialEq for Soa<T, C, E> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.cols == other.cols
    }
}

impl<T: Record<C, E>, const C: usize, E: Cell + Pod> core::fmt::Debug for Soa<T, C, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Record<C, E>, const C: usize, E: Cell + Pod> From<&[T]> for Soa<T, C, E> {
    fn from(records: &[T]) -> Self {
        let mut batch = Soa::with_capacity(records.len());
        batch.extend_from_slice(records);
        batch
    }
}

impl<T: Record<C, E>, const C: usize, E: Cell + Pod> From<&Vec<T>> for Soa<T, C, E> {
    fn from(records: &Vec<T>) -> Self {
        Soa::from(records.as_slice())
    }
}

impl<T: Record<C, E>, const C: usize, E: Cell + Pod, const N: usize> From<&[T; N]>
    for Soa<T, C, E>
{
    fn from(records: &[T; N]) -> Self {
        Soa::from(records.as_slice())
    }
}

impl<T: Record<C, E>, const C: usize, E: Cell + Pod> FromIterator<T> for Soa<T, C, E> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut batch = Soa::default();
        batch.extend(iter);
        batch
    }
}

impl<T: Record<C, E>, const C: usize, E: Cell + Pod> Extend<T> for Soa<T, C, E> {
    /// Appends every record, reserving room for the iterator's lower size bound first.
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        let (lower, _) = iter.size_hint();
        for col in &mut self.cols {
            col.reserve(lower);
        }
        for r in iter {
            self.push(r);
        }
    }
}

impl<'a, T: Record<C, E>, const C: usize, E: Cell + Pod> From<&'a Soa<T, C, E>>
    for SoaView<'a, T, C, E>
{
    fn from(s: &'a Soa<T, C, E>) -> Self {
        s.as_view()
    }
}

/// A borrowed range of a [`Soa`] batch (or of `C` caller-owned columns): what the kernels
/// read. Cheap to copy and to split, so a job system can cut one batch into pieces.
///
/// Each column slice starts at the first element of the view and may run past `len()` into
/// the following elements or the zero padding; the kernels may read, but never report, them.
pub struct SoaView<'a, T, const C: usize, E = f32> {
    cols: [&'a [E]; C],
    len: usize,
    record: PhantomData<T>,
}

impl<T, const C: usize, E> Clone for SoaView<'_, T, C, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const C: usize, E> Copy for SoaView<'_, T, C, E> {}

impl<T: Record<C, E>, const C: usize, E: Pod> core::fmt::Debug for SoaView<'_, T, C, E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a, T: Record<C, E>, const C: usize, E: Pod> SoaView<'a, T, C, E> {
    /// A view over `C` caller-owned columns of equal length (no copy).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the columns differ in length (naming the column).
    pub fn from_columns(cols: [&'a [E]; C]) -> Result<Self, Error> {
        let len = cols[0].len();
        for (name, col) in T::NAMES.iter().zip(cols) {
            check_len(name, len, col.len())?;
        }
        Ok(SoaView {
            cols,
            len,
            record: PhantomData,
        })
    }

    len_methods!("records in the view");

    /// Record `i` of the view, or `None` when `i >= len()`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> Option<T> {
        (i < self.len).then(|| self.at(i))
    }

    /// Record `i` (`i < len()`, checked by the callers).
    #[inline]
    pub(crate) fn at(&self, i: usize) -> T {
        let mut record = T::zeroed();
        for (x, col) in bytemuck::cast_slice_mut::<T, E>(core::slice::from_mut(&mut record))
            .iter_mut()
            .zip(&self.cols)
        {
            *x = col[i];
        }
        record
    }

    /// The records of the view in order, as AoS values.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + 'a {
        let view = *self;
        (0..self.len).map(move |i| view.at(i))
    }

    /// The `C` columns, each exactly `len()` values.
    #[must_use]
    pub fn columns(&self) -> [&'a [E]; C] {
        core::array::from_fn(|k| &self.cols[k][..self.len])
    }

    /// The columns including whatever follows the view in storage (at least `len()` values
    /// each): lets the kernels load whole SIMD groups without a copy.
    #[inline]
    pub(crate) fn raw_columns(&self) -> [&'a [E]; C] {
        self.cols
    }

    /// A sub-range of this view.
    ///
    /// # Panics
    /// When the range is outside `0..len()`; [`SoaView::try_view`] does not panic.
    #[must_use]
    pub fn view(&self, range: impl RangeBounds<usize>) -> SoaView<'a, T, C, E> {
        self.try_view(range)
            .unwrap_or_else(|e| panic!("segbatch: {e}"))
    }

    /// A sub-range of this view, or an error when it is outside `0..len()`.
    ///
    /// # Errors
    /// [`Error::OutOfRange`].
    pub fn try_view(&self, range: impl RangeBounds<usize>) -> Result<SoaView<'a, T, C, E>, Error> {
        let (start, end) = resolve_range(range, self.len)?;
        Ok(SoaView {
            cols: core::array::from_fn(|k| &self.cols[k][start..]),
            len: end - start,
            record: PhantomData,
        })
    }

    /// Splits into `[0, mid)` and `[mid, len)`.
    ///
    /// # Panics
    /// When `mid > self.len()`.
    #[must_use]
    pub fn split_at(&self, mid: usize) -> (SoaView<'a, T, C, E>, SoaView<'a, T, C, E>) {
        (self.view(..mid), self.view(mid..))
    }
}
