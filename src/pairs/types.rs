//! The pair queries' own types: which columns to compute ([`Outputs`]), the result batch
//! ([`ClosestBatch`]), the capsules' radii ([`Radii`]) and the capsule test's answer
//! ([`PairMask`]). They sit below the query files and [`Element`](super::Element)'s
//! per-precision traits, which all name them.

use crate::batch::{Error, check_len};
use crate::columns::{Cell, GroupStore, result_batch};
use crate::real::Real;
use crate::segment::{Closest, Flags};

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

    /// True when the column named `name` (of [`ClosestBatch`]) is selected.
    pub(super) fn keeps(self, name: &str) -> bool {
        match name {
            "s" | "t" => self.params,
            "point_a" | "point_b" => self.points,
            "flags" => self.flags,
            _ => true,
        }
    }
}

impl Default for Outputs {
    fn default() -> Self {
        Outputs::ALL
    }
}

result_batch! {
    /// Closest points for a batch of pairs, stored as columns.
    ///
    /// Reuse one `ClosestBatch` across calls to
    /// [`closest_points_into`](super::closest_points_into): its buffers grow to the largest batch
    /// seen and are never shrunk, so a steady-state loop does not allocate. Columns that were not
    /// selected ([`Outputs`]) are empty.
    pub struct ClosestBatch<E>(Closest) stored as ClosestOut {
        columns {
            /// Parameters along A, exactly `len()` values (empty without [`Outputs::params`]).
            s: E,
            /// Parameters along B, exactly `len()` values (empty without [`Outputs::params`]).
            t: E,
            /// Squared distances, exactly `len()` values.
            dist2: E,
            /// Per-pair flags, exactly `len()` values (empty without [`Outputs::flags`]).
            flags: Flags,
        }
        points {
            /// Closest points on A as `[x, y, z]` columns (empty without [`Outputs::points`]).
            point_a: 3,
            /// Closest points on B as `[x, y, z]` columns (empty without [`Outputs::points`]).
            point_b: 3,
        }
    }
}

/// Closest points for a batch of `f64` pairs ([`Segments64`](crate::Segments64)).
pub type ClosestBatch64 = ClosestBatch<f64>;

impl<E: Real + Cell> ClosestBatch<E> {
    /// The distances `sqrt(dist2)`, computed on demand.
    pub fn distances(&self) -> impl ExactSizeIterator<Item = E> + '_ {
        self.dist2().iter().map(|d| d.sqrt())
    }
}

/// Validated radii for the capsule and sphere queries ([`capsules_touch`](super::capsules_touch),
/// [`first_contact`](crate::motion::first_contact)): every radius is zero, positive or `+∞`
/// (not negative, not NaN), checked once when the value is made. An infinite radius
/// touches everything: every pair of finite segments touches, and spheres make contact at
/// `t = 0` ([`MotionFlags::TOUCHING_AT_START`](crate::motion::MotionFlags::TOUCHING_AT_START)).
///
/// ```
/// use segbatch::Error;
/// use segbatch::pairs::Radii;
/// assert!(Radii::uniform(0.5, 0.25).is_ok());
/// assert!(Radii::uniform(-1.0, 0.5).is_err());
/// let (ra, rb) = ([0.5, 0.4], [0.5, f32::NAN]);
/// assert_eq!(Radii::per_pair(&ra, &rb), Err(Error::InvalidRadius { index: Some(1) }));
/// ```
///
/// The radii of the `f64` queries ([`capsules_touch`](super::capsules_touch) and the others on
/// [`Segments64`](crate::Segments64)) are a [`Radii64`], the same type over `f64`, made and
/// checked the same way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radii<'r, F = f32>(pub(super) RadiiKind<'r, F>);

/// The radii of the `f64` queries ([`capsules_touch`](super::capsules_touch) on
/// [`Segments64`](crate::Segments64), [`first_contact`](crate::motion::first_contact) on
/// [`Tracks64`](crate::motion::Tracks64),
/// ...): [`Radii`] over `f64`.
///
/// ```
/// use segbatch::Error;
/// use segbatch::pairs::Radii64;
/// assert!(Radii64::uniform(0.5, 1e-9).is_ok());
/// assert_eq!(Radii64::uniform(-1e-300, 0.5), Err(Error::InvalidRadius { index: None }));
/// ```
pub type Radii64<'r> = Radii<'r, f64>;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum RadiiKind<'r, F> {
    Uniform { a: F, b: F },
    PerPair { a: &'r [F], b: &'r [F] },
}

/// True for a valid radius: zero, positive or `+∞`.
fn valid<F: Real>(r: F) -> bool {
    r >= F::ZERO
}

impl<'r, F: Real> Radii<'r, F> {
    /// Every object of A has radius `a`, every object of B radius `b`.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] (`index: None`) when a radius is negative or NaN.
    pub fn uniform(a: F, b: F) -> Result<Self, Error> {
        if valid(a) && valid(b) {
            Ok(Radii(RadiiKind::Uniform { a, b }))
        } else {
            Err(Error::InvalidRadius { index: None })
        }
    }

    /// Object `i` of A has radius `a[i]`, object `i` of B radius `b[i]`.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the slices differ in length;
    /// [`Error::InvalidRadius`] with the first pair holding a negative or NaN radius.
    pub fn per_pair(a: &'r [F], b: &'r [F]) -> Result<Self, Error> {
        check_len("radii of a and b", a.len(), b.len())?;
        match (0..a.len()).find(|&i| !(valid(a[i]) && valid(b[i]))) {
            Some(i) => Err(Error::InvalidRadius { index: Some(i) }),
            None => Ok(Radii(RadiiKind::PerPair { a, b })),
        }
    }

    /// Object `i` of A has radius `a[i]`, object `j` of B radius `b[j]`: for the index-pair
    /// queries ([`capsule_contacts`](crate::pairs::capsule_contacts),
    /// [`capsules_touch_indexed`](crate::pairs::capsules_touch_indexed)), whose two sets differ in
    /// length. In a pairwise query it is the same as [`per_pair`](Radii::per_pair) (both
    /// slices must then have the batch's length).
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] with the first index (in `a`, then in `b`) holding a
    /// negative or NaN radius.
    pub fn per_object(a: &'r [F], b: &'r [F]) -> Result<Self, Error> {
        for r in [a, b] {
            if let Some(i) = r.iter().position(|&x| !valid(x)) {
                return Err(Error::InvalidRadius { index: Some(i) });
            }
        }
        Ok(Radii(RadiiKind::PerPair { a, b }))
    }

    /// [`per_object`](Radii::per_object) of radii the caller keeps valid (a scene's, checked
    /// as each object enters): no pass over them.
    pub(crate) fn per_object_valid(a: &'r [F], b: &'r [F]) -> Self {
        debug_assert!(a.iter().chain(b).all(|&x| valid(x)));
        Radii(RadiiKind::PerPair { a, b })
    }

    /// `(a, b)` when the radii are uniform.
    #[must_use]
    pub fn as_uniform(&self) -> Option<(F, F)> {
        match self.0 {
            RadiiKind::Uniform { a, b } => Some((a, b)),
            RadiiKind::PerPair { .. } => None,
        }
    }

    /// The per-pair slices `(a, b)` when the radii are per pair.
    #[must_use]
    pub fn as_per_pair(&self) -> Option<(&'r [F], &'r [F])> {
        match self.0 {
            RadiiKind::PerPair { a, b } => Some((a, b)),
            RadiiKind::Uniform { .. } => None,
        }
    }

    /// `Ok` when the radii fit a batch of `n` pairs (per-pair slices of length `n`).
    pub(crate) fn check_len(&self, n: usize) -> Result<(), Error> {
        match self.0 {
            RadiiKind::Uniform { .. } => Ok(()),
            RadiiKind::PerPair { a, b } => {
                check_len("radii of a and the batches", n, a.len())?;
                check_len("radii of b and the batches", n, b.len())
            }
        }
    }

    /// `Ok` when the radii fit sets of `na` and `nb` objects (per-object slices of those
    /// lengths).
    pub(crate) fn check_objects(&self, na: usize, nb: usize) -> Result<(), Error> {
        match self.0 {
            RadiiKind::Uniform { .. } => Ok(()),
            RadiiKind::PerPair { a, b } => {
                check_len("radii of set a", na, a.len())?;
                check_len("radii of set b", nb, b.len())
            }
        }
    }

    /// The radius of object `i` of A and object `j` of B.
    #[inline]
    pub(crate) fn of(&self, i: usize, j: usize) -> (F, F) {
        match self.0 {
            RadiiKind::Uniform { a, b } => (a, b),
            RadiiKind::PerPair { a, b } => (a[i], b[j]),
        }
    }
}

/// One bit per pair: bit `i % 64` of word `i / 64` is pair `i`.
///
/// ```
/// use segbatch::pairs::PairMask;
/// let mask = PairMask::from_bools(&[true, false, true]);
/// assert_eq!(mask.len(), 3);
/// assert_eq!((mask.get(2), mask.get(1), mask.get(3)), (Some(true), Some(false), None));
/// assert_eq!(mask.count_ones(), 2);
/// assert_eq!(mask.iter_ones().collect::<Vec<_>>(), vec![0, 2]);
/// assert_eq!(mask.words(), &[0b101]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PairMask {
    words: Vec<u64>,
    len: usize,
}

impl PairMask {
    /// An empty mask.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A mask from one `bool` per pair.
    #[must_use]
    pub fn from_bools(bits: &[bool]) -> Self {
        let mut m = PairMask::new();
        m.reset(bits.len());
        for (i, &b) in bits.iter().enumerate() {
            m.words[i / 64] |= u64::from(b) << (i % 64);
        }
        m
    }

    crate::columns::len_methods!("pairs the mask covers");

    /// The bit of pair `i`, or `None` when `i >= len()`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> Option<bool> {
        (i < self.len).then(|| self.words[i / 64] >> (i % 64) & 1 == 1)
    }

    /// The words, `len().div_ceil(64)` of them; bits past `len()` are zero.
    #[inline]
    #[must_use]
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Number of set bits.
    #[must_use]
    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Indices of the set bits, in increasing order.
    pub fn iter_ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            core::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let k = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    w * 64 + k
                })
            })
        })
    }

    /// Sizes for `len` pairs, all bits clear, reusing the allocation.
    pub(super) fn reset(&mut self, len: usize) {
        self.words.clear();
        self.words.resize(len.div_ceil(64), 0);
        self.len = len;
    }

    /// The words as one byte per group of `width` pairs (8, or 4 for the 4-lane `f64`
    /// kernel), lane `k` in bit `k`, for the driver's stores; [`finish`](Self::finish) with
    /// the same width turns them into the mask. With 8, byte `g` of the little-endian words
    /// holds pairs `8g .. 8g + 8` already; with 4, the words are first grown to a byte a
    /// group (twice the mask's bytes).
    pub(super) fn groups_mut(&mut self, width: usize) -> MaskOut<'_> {
        self.words.resize(self.len.div_ceil(8 * width), 0);
        MaskOut(bytemuck::cast_slice_mut(&mut self.words))
    }

    /// After the stores of groups of `width` pairs: a group's byte packed into half a byte
    /// when `width` is 4 (in place, front to back: byte `k` is made from bytes `2k` and
    /// `2k + 1`, which no earlier step has overwritten), words in native order, bits past
    /// `len()` (padding lanes) cleared.
    pub(super) fn finish(&mut self, width: usize) {
        if width == 4 {
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut self.words);
            for k in 0..bytes.len() / 2 {
                bytes[k] = bytes[2 * k] | bytes[2 * k + 1] << 4;
            }
            self.words.truncate(self.len.div_ceil(64));
        }
        for w in &mut self.words {
            *w = u64::from_le(*w);
        }
        if let Some(last) = self.words.last_mut()
            && !self.len.is_multiple_of(64)
        {
            *last &= (1u64 << (self.len % 64)) - 1;
        }
    }
}

/// A [`PairMask`]'s bytes, one per group of pairs (see [`PairMask::groups_mut`]).
pub(super) struct MaskOut<'a>(&'a mut [u8]);

impl GroupStore for MaskOut<'_> {
    type Lanes = u8;
    #[inline(always)]
    fn store(&mut self, g: usize, bits: &u8) {
        self.0[g] = *bits;
    }
    #[inline(always)]
    fn split_at(self, mid: usize) -> (Self, Self) {
        let (lo, hi) = self.0.split_at_mut(mid);
        (MaskOut(lo), MaskOut(hi))
    }
}
