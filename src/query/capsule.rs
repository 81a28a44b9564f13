//! Pairwise capsule overlap: does capsule `(a[i], rA)` touch capsule `(b[i], rB)`?
//!
//! Two capsules touch when the squared distance of their core segments is at most
//! `(rA + rB)²`, the sum and the square formed in `f32` (`let r = ra + rb; dist2 <= r * r`);
//! the kernel's `dist2` is the reference's bit for bit, so the answer is exactly what that
//! scalar test gives. The result is a [`PairMask`] (one bit per pair) or a list of indices.

use super::{Side, fail};
use crate::batch::{BatchError, LANES, SegmentsView};
use crate::kernel::{self, Splat};
use crate::segment::{Options, Params};
use wide::f32x8;

/// The capsule radii of a [`capsules_touch`] query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Radii<'r> {
    /// Every capsule of A has radius `a`, every capsule of B radius `b`.
    Uniform {
        /// Radius of the capsules of A.
        a: f32,
        /// Radius of the capsules of B.
        b: f32,
    },
    /// Capsule `i` of A has radius `a[i]`, capsule `i` of B radius `b[i]` (both slices as
    /// long as the batches).
    PerPair {
        /// Radii of the capsules of A.
        a: &'r [f32],
        /// Radii of the capsules of B.
        b: &'r [f32],
    },
}

impl Radii<'_> {
    /// Checks lengths and, for a uniform radius, signs.
    fn check(&self, n: usize) -> Result<(), BatchError> {
        match *self {
            Radii::Uniform { a, b } => {
                if !(a >= 0.0 && b >= 0.0) {
                    return Err(BatchError::InvalidRadius { index: None });
                }
            }
            Radii::PerPair { a, b } => {
                for (what, r) in [("radii of a", a), ("radii of b", b)] {
                    if r.len() != n {
                        return Err(BatchError::LengthMismatch {
                            what,
                            expected: n,
                            found: r.len(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// The first pair with a negative or NaN radius.
    fn first_invalid(&self) -> Option<usize> {
        match *self {
            Radii::Uniform { .. } => None,
            Radii::PerPair { a, b } => (0..a.len()).find(|&i| !(a[i] >= 0.0 && b[i] >= 0.0)),
        }
    }

    /// The radii of the pairs `start..end` (same variant, sub-slices).
    #[cfg(feature = "rayon")]
    fn slice(&self, start: usize, end: usize) -> Self {
        match *self {
            Radii::Uniform { a, b } => Radii::Uniform { a, b },
            Radii::PerPair { a, b } => Radii::PerPair {
                a: &a[start..end],
                b: &b[start..end],
            },
        }
    }
}

/// One bit per pair: bit `i % 64` of word `i / 64` is pair `i`.
///
/// ```
/// use segbatch::PairMask;
/// let mask = PairMask::from_bools(&[true, false, true]);
/// assert_eq!(mask.len(), 3);
/// assert!(mask.get(2) && !mask.get(1));
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

    /// Number of pairs.
    #[inline]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the mask covers no pair.
    #[inline]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The bit of pair `i`.
    ///
    /// # Panics
    /// When `i >= self.len()`.
    #[inline]
    #[must_use]
    pub fn get(&self, i: usize) -> bool {
        assert!(
            i < self.len,
            "pair {i} out of range for a mask of {}",
            self.len
        );
        self.words[i / 64] >> (i % 64) & 1 == 1
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
    fn reset(&mut self, len: usize) {
        self.words.clear();
        self.words.resize(len.div_ceil(64), 0);
        self.len = len;
    }
}

/// Loads eight radii at `j`, zero padded past `r.len()`.
#[inline(always)]
fn load_radii(r: &[f32], j: usize) -> f32x8 {
    if j + LANES <= r.len() {
        let a: [f32; LANES] = r[j..j + LANES].try_into().expect("8 values");
        f32x8::from(a)
    } else {
        let mut a = [0.0f32; LANES];
        a[..r.len() - j].copy_from_slice(&r[j..]);
        f32x8::from(a)
    }
}

/// Runs the groups of `a`/`b` and hands each group's touch bits to `sink(j, bits)`; `Err`
/// when a per-pair radius is negative or NaN (some groups may have been handed out).
fn run(
    a: SegmentsView<'_>,
    b: SegmentsView<'_>,
    radii: Radii<'_>,
    p: &Params,
    mut sink: impl FnMut(usize, u32),
) -> Result<(), ()> {
    let splat = Splat::new(p);
    let (sa, sb) = (Side::new(a), Side::new(b));
    let n = a.len();
    let mut j = 0;
    match radii {
        Radii::Uniform { a: ra, b: rb } => {
            let r = ra + rb;
            let r2 = f32x8::splat(r * r);
            while j < n {
                let (a0, a1) = sa.load(j);
                let (b0, b1) = sb.load(j);
                let lanes = kernel::closest8(a0, a1, b0, b1, &splat);
                let bits = lanes.dist2.simd_le(r2).to_bitmask() & super::lane_bits(0, n, j);
                sink(j, bits);
                j += LANES;
            }
        }
        Radii::PerPair { a: ra, b: rb } => {
            let zero = f32x8::ZERO;
            let mut invalid = 0u32;
            while j < n {
                let (a0, a1) = sa.load(j);
                let (b0, b1) = sb.load(j);
                let lanes = kernel::closest8(a0, a1, b0, b1, &splat);
                let (ra, rb) = (load_radii(ra, j), load_radii(rb, j));
                invalid |= (!(ra.simd_ge(zero) & rb.simd_ge(zero))).to_bitmask();
                let r = ra + rb;
                let bits = lanes.dist2.simd_le(r * r).to_bitmask() & super::lane_bits(0, n, j);
                sink(j, bits);
                j += LANES;
            }
            if invalid != 0 {
                return Err(());
            }
        }
    }
    Ok(())
}

/// Writes the mask words of `a`/`b` (`words` covers exactly these pairs, starting at a
/// multiple of 64).
fn run_mask(
    a: SegmentsView<'_>,
    b: SegmentsView<'_>,
    radii: Radii<'_>,
    p: &Params,
    words: &mut [u64],
) -> Result<(), ()> {
    run(a, b, radii, p, |j, bits| {
        words[j / 64] |= u64::from(bits) << (j % 64);
    })
}

/// Validates the inputs, or the error the `try_` forms return.
fn check(a: &SegmentsView<'_>, b: &SegmentsView<'_>, radii: &Radii<'_>) -> Result<(), BatchError> {
    crate::batch::check_pair_lengths(a, b)?;
    radii.check(a.len())
}

/// Does capsule `(a[i], rA)` touch capsule `(b[i], rB)`, for every `i`? One bit per pair.
///
/// Touching means `dist2 <= (rA + rB)²` (sum and square in `f32`); `options` gives the
/// extents (segments for capsules; a ray or line gives an infinite cylinder) and tolerance.
///
/// # Panics
/// When `a` and `b` (or the radius slices) differ in length, or a radius is negative or
/// NaN; [`try_capsules_touch_into`] returns an error instead.
///
/// ```
/// use segbatch::{capsules_touch, Options, Radii, Segment, Segments};
/// let a = Segments::from(&[
///     Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
///     Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
/// ]);
/// let b = Segments::from(&[
///     Segment::new([0.5, 0.5, 0.0], [0.5, 2.0, 0.0]), // 0.5 away
///     Segment::new([0.5, 1.5, 0.0], [0.5, 2.0, 0.0]), // 1.5 away
/// ]);
/// let mask = capsules_touch(&a, &b, Radii::Uniform { a: 0.25, b: 0.25 }, &Options::SEGMENTS);
/// assert!(mask.get(0) && !mask.get(1));
/// ```
#[must_use]
pub fn capsules_touch<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    options: &Options,
) -> PairMask {
    let mut out = PairMask::new();
    if let Err(e) = try_capsules_touch_into(a, b, radii, options, &mut out) {
        fail(e);
    }
    out
}

/// [`capsules_touch`] writing into `out` (allocation reused), with an error instead of a
/// panic. On error `out` is empty.
///
/// # Errors
/// [`BatchError::LengthMismatch`] when `a`, `b` or the radius slices differ in length;
/// [`BatchError::InvalidRadius`] for a negative or NaN radius.
///
/// ```
/// use segbatch::{try_capsules_touch_into, BatchError, Options, PairMask, Radii, Segment, Segments};
/// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]); 3]);
/// let b = Segments::from(&[Segment::new([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]); 3]);
/// let mut mask = PairMask::new();
/// let ra = [0.5, 0.4, 0.6];
/// let rb = [0.5, 0.5, -1.0];
/// let err = try_capsules_touch_into(&a, &b, Radii::PerPair { a: &ra, b: &rb }, &Options::SEGMENTS, &mut mask);
/// assert_eq!(err, Err(BatchError::InvalidRadius { index: Some(2) }));
/// let rb = [0.5, 0.5, 0.4];
/// try_capsules_touch_into(&a, &b, Radii::PerPair { a: &ra, b: &rb }, &Options::SEGMENTS, &mut mask).unwrap();
/// assert_eq!(mask.iter_ones().collect::<Vec<_>>(), vec![0, 2]);
/// ```
pub fn try_capsules_touch_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    options: &Options,
    out: &mut PairMask,
) -> Result<(), BatchError> {
    let (a, b) = (a.into(), b.into());
    out.reset(0);
    check(&a, &b, &radii)?;
    out.reset(a.len());
    if run_mask(a, b, radii, &options.params(), &mut out.words).is_err() {
        out.reset(0);
        return Err(BatchError::InvalidRadius {
            index: radii.first_invalid(),
        });
    }
    Ok(())
}

/// The indices `i` of the touching pairs of [`capsules_touch`], in increasing order.
///
/// # Panics
/// As [`capsules_touch`]; [`try_capsules_touch_indices_into`] returns an error instead.
///
/// ```
/// use segbatch::{capsules_touch_indices, Options, Radii, Segment, Segments};
/// let a: Segments = (0..10).map(|k| Segment::new([k as f32, 0.0, 0.0], [k as f32, 1.0, 0.0])).collect();
/// let b: Segments = (0..10).map(|k| Segment::new([k as f32 + 0.1 * k as f32, 0.0, 0.0], [k as f32 + 0.1 * k as f32, 1.0, 0.0])).collect();
/// // Pair k is 0.1·k apart; capsules of radius 0.175 touch up to 0.35.
/// let hits = capsules_touch_indices(&a, &b, Radii::Uniform { a: 0.175, b: 0.175 }, &Options::SEGMENTS);
/// assert_eq!(hits, vec![0, 1, 2, 3]);
/// ```
#[must_use]
pub fn capsules_touch_indices<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    options: &Options,
) -> Vec<usize> {
    let mut out = Vec::new();
    if let Err(e) = try_capsules_touch_indices_into(a, b, radii, options, &mut out) {
        fail(e);
    }
    out
}

/// [`capsules_touch_indices`] into `out` (cleared first, allocation reused), with an error
/// instead of a panic. On error `out` is empty.
///
/// # Errors
/// As [`try_capsules_touch_into`].
pub fn try_capsules_touch_indices_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    options: &Options,
    out: &mut Vec<usize>,
) -> Result<(), BatchError> {
    let (a, b) = (a.into(), b.into());
    out.clear();
    check(&a, &b, &radii)?;
    let r = run(a, b, radii, &options.params(), |j, mut bits| {
        while bits != 0 {
            out.push(j + bits.trailing_zeros() as usize);
            bits &= bits - 1;
        }
    });
    if r.is_err() {
        out.clear();
        return Err(BatchError::InvalidRadius {
            index: radii.first_invalid(),
        });
    }
    Ok(())
}

/// [`capsules_touch`] on all cores (identical mask). Batches below
/// [`PAR_MIN_PAIRS`](crate::PAR_MIN_PAIRS) stay on the calling thread.
///
/// # Panics
/// As [`capsules_touch`]; [`try_par_capsules_touch_into`] returns an error instead.
///
/// ```
/// use segbatch::{par_capsules_touch, Options, Radii, Segment, Segments};
/// let a: Segments = (0..100_000).map(|k| Segment::new([0.0, k as f32, 0.0], [1.0, k as f32, 0.0])).collect();
/// let b: Segments = (0..100_000).map(|k| Segment::new([0.5, k as f32, (k % 3) as f32], [0.5, k as f32 + 0.5, (k % 3) as f32])).collect();
/// let mask = par_capsules_touch(&a, &b, Radii::Uniform { a: 0.5, b: 0.6 }, &Options::SEGMENTS);
/// // Pairs with k % 3 == 0 (distance 0) or 1 (distance 1) touch; 2 (distance 2) do not.
/// assert_eq!(mask.count_ones(), 66_667);
/// ```
#[cfg(feature = "rayon")]
#[must_use]
pub fn par_capsules_touch<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    options: &Options,
) -> PairMask {
    let mut out = PairMask::new();
    if let Err(e) = try_par_capsules_touch_into(a, b, radii, options, &mut out) {
        fail(e);
    }
    out
}

/// [`try_capsules_touch_into`] on all cores (identical mask and errors).
///
/// # Errors
/// As [`try_capsules_touch_into`].
#[cfg(feature = "rayon")]
pub fn try_par_capsules_touch_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    options: &Options,
    out: &mut PairMask,
) -> Result<(), BatchError> {
    use crate::par::{PAR_CHUNK_PAIRS, PAR_MIN_PAIRS};
    use rayon::prelude::*;
    const _: () = assert!(PAR_CHUNK_PAIRS.is_multiple_of(64));
    let (a, b) = (a.into(), b.into());
    if a.len() < PAR_MIN_PAIRS {
        return try_capsules_touch_into(a, b, radii, options, out);
    }
    out.reset(0);
    check(&a, &b, &radii)?;
    let n = a.len();
    out.reset(n);
    let params = options.params();
    let ok = out
        .words
        .par_chunks_mut(PAR_CHUNK_PAIRS / 64)
        .enumerate()
        .map(|(c, words)| {
            let start = c * PAR_CHUNK_PAIRS;
            let end = (start + PAR_CHUNK_PAIRS).min(n);
            run_mask(
                a.view(start..end),
                b.view(start..end),
                radii.slice(start, end),
                &params,
                words,
            )
            .is_ok()
        })
        .reduce(|| true, |x, y| x && y);
    if !ok {
        out.reset(0);
        return Err(BatchError::InvalidRadius {
            index: radii.first_invalid(),
        });
    }
    Ok(())
}

/// [`capsules_touch_indices`] on all cores (identical list).
///
/// # Panics
/// As [`capsules_touch`]; [`try_par_capsules_touch_indices_into`] returns an error instead.
#[cfg(feature = "rayon")]
#[must_use]
pub fn par_capsules_touch_indices<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    options: &Options,
) -> Vec<usize> {
    let mut out = Vec::new();
    if let Err(e) = try_par_capsules_touch_indices_into(a, b, radii, options, &mut out) {
        fail(e);
    }
    out
}

/// [`try_capsules_touch_indices_into`] on all cores (identical list and errors): the mask
/// in parallel, then its set bits in order.
///
/// # Errors
/// As [`try_capsules_touch_into`].
#[cfg(feature = "rayon")]
pub fn try_par_capsules_touch_indices_into<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radii: Radii<'_>,
    options: &Options,
    out: &mut Vec<usize>,
) -> Result<(), BatchError> {
    out.clear();
    let mut mask = PairMask::new();
    try_par_capsules_touch_into(a, b, radii, options, &mut mask)?;
    out.extend(mask.iter_ones());
    Ok(())
}
