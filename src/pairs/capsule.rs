//! Pairwise capsule overlap: does capsule `(a[i], rA)` touch capsule `(b[i], rB)`?
//!
//! Two capsules touch when the squared distance of their core segments is at most
//! `(rA + rB)²`, the sum and the square formed in `f32` (`let r = ra + rb; dist2 <= r * r`);
//! the kernel's `dist2` is the reference's bit for bit, so the answer is exactly what that
//! scalar test gives. The result is a [`PairMask`], one bit per pair
//! ([`PairMask::iter_ones`] lists the touching pairs).

use super::closest::Element;
use super::closest::{Width, pair_columns, points};
use crate::batch::{Error, SegmentsView, check_len};
use crate::columns::GroupStore;
use crate::columns::LANES;
use crate::driver::{self, Gathered, Halves, Input, PairKernel};
use crate::forms::query_forms;
use crate::kernel::{Lanes, Splat, closest_lanes_general, closest_lanes_masked};
use crate::lanes::{F64Lanes, Lane, V3};
use crate::real::Real;
use crate::segment::{Options, Segment64};
use wide::{f32x8, f32x16, f64x4, f64x8};

/// Validated radii for the capsule and sphere queries ([`capsules_touch`],
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
/// The radii of the `f64` queries ([`capsules_touch`] and the others on
/// [`Segments64`](crate::Segments64)) are a [`Radii64`], the same type over `f64`, made and
/// checked the same way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radii<'r, F = f32>(RadiiKind<'r, F>);

/// The radii of the `f64` queries ([`capsules_touch`] on
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
enum RadiiKind<'r, F> {
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
    fn groups_mut(&mut self, width: usize) -> MaskOut<'_> {
        self.words.resize(self.len.div_ceil(8 * width), 0);
        MaskOut(bytemuck::cast_slice_mut(&mut self.words))
    }

    /// After the stores of groups of `width` pairs: a group's byte packed into half a byte
    /// when `width` is 4 (in place, front to back: byte `k` is made from bytes `2k` and
    /// `2k + 1`, which no earlier step has overwritten), words in native order, bits past
    /// `len()` (padding lanes) cleared.
    fn finish(&mut self, width: usize) {
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
struct MaskOut<'a>(&'a mut [u8]);

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

/// Four points from fourteen lane vectors (`a0 a1 rA b0 b1 rB`).
#[inline(always)]
fn radius_points<L: Lane>(c: &[L; 14]) -> (V3<L>, V3<L>, V3<L>, V3<L>) {
    let v = |k| V3::at_column(c, k);
    (v(0), v(3), v(7), v(10))
}

/// A lane type the capsule kernels run in, with its group's touch bits: one bit a lane,
/// lane `k` in bit `k`.
trait TouchLanes: Lane {
    /// The bits of one group: a byte of the mask for 8 lanes (half a byte's worth for 4),
    /// two for 16.
    type Touch;
    /// The touch bits of a group from its squared distances and radius sums.
    fn touch_bits(dist2: Self, r: Self) -> Self::Touch;
    /// The touch bits of the group `lanes` of the pairs `(a0, a1)`, `(b0, b1)` with radius
    /// sums `r`: [`TouchLanes::touch_bits`] in `f32` (its documented rule); in `f64` the
    /// range rule ([`within64`](crate::sets::radius::within64)), which looks at a lane
    /// again only when its radius sum is not plain and its squared distance not a normal
    /// number (a few comparisons a group otherwise).
    #[inline(always)]
    fn touch(lanes: &Lanes<Self>, r: Self, _: [V3<Self>; 4]) -> Self::Touch {
        Self::touch_bits(lanes.dist2, r)
    }
}

/// [`TouchLanes`] for the `f32` lane types of at most eight lanes: the bits in one byte.
impl TouchLanes for f32x8 {
    type Touch = u8;
    #[inline(always)]
    fn touch_bits(dist2: Self, r: Self) -> u8 {
        dist2.simd_le(r * r).to_bitmask() as u8
    }
}

/// [`TouchLanes`] for the `f64` lane types: the bits in one byte, and the `f64` range
/// rule for the lanes that need it.
macro_rules! touch_f64 {
    ($($lane:ident),*) => {$(
        impl TouchLanes for $lane {
            type Touch = u8;
            #[inline(always)]
            fn touch_bits(dist2: Self, r: Self) -> u8 {
                dist2.simd_le(r * r).to_bitmask() as u8
            }
            #[inline(always)]
            fn touch(lanes: &Lanes<Self>, r: Self, ends: [V3<Self>; 4]) -> u8 {
                let lo = $lane::splat(crate::sets::radius::NORMAL_LO);
                let hi = $lane::splat(f64::MAX);
                let r2 = r * r;
                let plain = (r2.simd_ge(lo) & r2.simd_le(hi)) | r.simd_eq($lane::splat(f64::INFINITY));
                let normal = lanes.dist2.simd_ge(lo) & lanes.dist2.simd_le(hi);
                let beyond = (!plain & !normal).to_bitmask() as u8;
                if beyond == 0 {
                    // A normal squared distance against a radius that is not plain: within
                    // exactly when the radius's square overflowed.
                    let bits = Self::touch_bits(lanes.dist2, r);
                    let huge = (!plain & r2.simd_eq($lane::splat(f64::INFINITY))).to_bitmask() as u8;
                    return (bits & plain.to_bitmask() as u8) | huge;
                }
                touch_beyond64(lanes, r, ends)
            }
        }
    )*};
}

touch_f64!(f64x4, f64x8);

/// [`TouchLanes::touch`] in `f64` for a group with lanes the range rule must decide
/// (`beyond`): every lane by [`within64`](crate::sets::radius::within64) from its values.
#[cold]
#[inline(never)]
fn touch_beyond64<L: Lane<Elem = f64> + bytemuck::Pod>(
    lanes: &Lanes<L>,
    r: L,
    ends: [V3<L>; 4],
) -> u8 {
    let lane =
        |x: &L, k: usize| -> f64 { bytemuck::cast_slice::<L, f64>(core::slice::from_ref(x))[k] };
    let point = |p: &V3<L>, k: usize| [lane(&p.x, k), lane(&p.y, k), lane(&p.z, k)];
    let mut bits = 0u8;
    for k in 0..L::WIDTH {
        let pair = || {
            (
                Segment64::new(point(&ends[0], k), point(&ends[1], k)),
                Segment64::new(point(&ends[2], k), point(&ends[3], k)),
                lane(&lanes.s, k),
                lane(&lanes.t, k),
            )
        };
        if crate::sets::radius::within64(lane(&lanes.dist2, k), lane(&r, k), pair) {
            bits |= 1 << k;
        }
    }
    bits
}

impl TouchLanes for f32x16 {
    type Touch = Bits16;
    #[inline(always)]
    fn touch_bits(dist2: Self, r: Self) -> Bits16 {
        Bits16(dist2.simd_le(r * r).to_bitmask() as u16)
    }
}

/// The touch bits of a 16-lane group, lanes 0-7 in the low byte.
pub(super) struct Bits16(u16);

impl Halves for Bits16 {
    type Half = u8;
    /// The two bytes the mask stores, lanes 0-7 first.
    #[inline(always)]
    fn halves(self) -> [u8; 2] {
        self.0.to_le_bytes()
    }
}

/// Capsules with uniform radii: twelve input columns, `r = rA + rB` broadcast.
struct UniformCapsules<L: Lane = f32x8> {
    splat: Splat<L>,
    r: L,
}

impl<L: TouchLanes> PairKernel<12, L> for UniformCapsules<L> {
    type Lanes = L::Touch;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [L; 12]) -> Option<L::Touch> {
        let (a0, a1, b0, b1) = points(&load());
        closest_lanes_general::<_, false>(a0, a1, b0, b1, &self.splat)
            .map(|l| L::touch(&l, self.r, [a0, a1, b0, b1]))
    }
    const SPECIAL: bool = true;
    #[inline(always)]
    fn special(&self, load: impl Fn() -> [L; 12]) -> Option<L::Touch> {
        let (a0, a1, b0, b1) = points(&load());
        closest_lanes_general::<_, true>(a0, a1, b0, b1, &self.splat)
            .map(|l| L::touch(&l, self.r, [a0, a1, b0, b1]))
    }
    #[inline(always)]
    fn masked(&self, x: [L; 12]) -> L::Touch {
        let (a0, a1, b0, b1) = points(&x);
        let l = closest_lanes_masked(a0, a1, b0, b1, &self.splat);
        L::touch(&l, self.r, [a0, a1, b0, b1])
    }
}

/// Capsules with per-pair radii: fourteen input columns, each side's six then its radius.
struct PerPairCapsules<L: Lane = f32x8> {
    splat: Splat<L>,
}

impl<L: TouchLanes> PairKernel<14, L> for PerPairCapsules<L> {
    type Lanes = L::Touch;
    #[inline(always)]
    fn general(&self, load: impl Fn() -> [L; 14]) -> Option<L::Touch> {
        let x = load();
        let (a0, a1, b0, b1) = radius_points(&x);
        closest_lanes_general::<_, false>(a0, a1, b0, b1, &self.splat)
            .map(|l| L::touch(&l, x[6] + x[13], [a0, a1, b0, b1]))
    }
    const SPECIAL: bool = true;
    #[inline(always)]
    fn special(&self, load: impl Fn() -> [L; 14]) -> Option<L::Touch> {
        let x = load();
        let (a0, a1, b0, b1) = radius_points(&x);
        closest_lanes_general::<_, true>(a0, a1, b0, b1, &self.splat)
            .map(|l| L::touch(&l, x[6] + x[13], [a0, a1, b0, b1]))
    }
    #[inline(always)]
    fn masked(&self, x: [L; 14]) -> L::Touch {
        let (a0, a1, b0, b1) = radius_points(&x);
        let l = closest_lanes_masked(a0, a1, b0, b1, &self.splat);
        L::touch(&l, x[6] + x[13], [a0, a1, b0, b1])
    }
}

/// Where a capsule query's pairs come from, and the width they run at: columns at the
/// build's width ([`Width::BUILD`]: 16 lanes with `avx512f`, through `driver::run_x16`),
/// index pairs at 8 (they are gathered into 8-lane staging columns).
pub(super) trait TouchInput<const C: usize>: Input<C> {
    /// Runs `narrow` (or `wide()`, the same test over 16 lanes) over the first `n` pairs;
    /// by default `narrow`, on all cores when `parallel`.
    #[inline]
    fn touch<K, W, S>(self, parallel: bool, narrow: &K, _: impl FnOnce() -> W, n: usize, out: S)
    where
        K: PairKernel<C, Lanes = u8>,
        W: PairKernel<C, f32x16, Lanes = Bits16>,
        S: GroupStore<Lanes = u8>,
    {
        driver::run_on(parallel, narrow, self, n, out);
    }
}

impl<const C: usize> TouchInput<C> for [&[f32]; C] {
    #[inline]
    fn touch<K, W, S>(self, parallel: bool, narrow: &K, wide: impl FnOnce() -> W, n: usize, out: S)
    where
        K: PairKernel<C, Lanes = u8>,
        W: PairKernel<C, f32x16, Lanes = Bits16>,
        S: GroupStore<Lanes = u8>,
    {
        if Width::BUILD == Width::X16 {
            driver::run_x16(parallel, &wide(), narrow, self, n, out);
        } else {
            driver::run_on(parallel, narrow, self, n, out);
        }
    }
}

impl<const C: usize, const CA: usize, const CB: usize> TouchInput<C> for Gathered<'_, CA, CB> {}

/// Checks, sizes `out` and runs the query in the precision of `a` and `b`, sequentially or
/// on all cores.
fn touch<E: Element>(
    a: SegmentsView<'_, E>,
    b: SegmentsView<'_, E>,
    radii: Radii<'_, E>,
    options: &Options,
    parallel: bool,
    out: &mut PairMask,
) -> Result<(), Error> {
    out.reset(0);
    let pair = pair_columns(&a, &b)?;
    radii.check_len(a.len())?;
    E::touch_pairs(pair, a.len(), radii, options, parallel, out);
    Ok(())
}

/// The fourteen columns of per-pair radii from the twelve of a pair: A's six, `ra`, B's
/// six, `rb` (`f32` or `f64`).
pub(super) fn with_radii<'c, E>(pair: [&'c [E]; 12], ra: &'c [E], rb: &'c [E]) -> [&'c [E]; 14] {
    core::array::from_fn(|k| match k {
        0..6 => pair[k],
        6 => ra,
        7..13 => pair[k - 1],
        _ => rb,
    })
}

/// Sizes `out` for `n` pairs and runs the capsule test over `pair` (twelve columns: A, B)
/// with uniform radii, or over `per_pair(rA, rB)` (fourteen: A, rA, B, rB).
pub(super) fn run_touch<'r, P: TouchInput<12>, Q: TouchInput<14>>(
    radii: Radii<'r>,
    options: &Options,
    pair: P,
    per_pair: impl FnOnce(&'r [f32], &'r [f32]) -> Q,
    n: usize,
    parallel: bool,
    out: &mut PairMask,
) {
    out.reset(n);
    let splat = Splat::new(&options.params());
    // The 16-lane twins, made only where they run.
    let splat16 = || Splat::new(&options.params());
    let store = out.groups_mut(LANES);
    match radii.0 {
        RadiiKind::Uniform { a: ra, b: rb } => {
            let kernel = UniformCapsules {
                splat,
                r: f32x8::splat(ra + rb),
            };
            let wide = || UniformCapsules {
                splat: splat16(),
                r: f32x16::splat(ra + rb),
            };
            pair.touch(parallel, &kernel, wide, n, store);
        }
        RadiiKind::PerPair { a: ra, b: rb } => {
            let wide = || PerPairCapsules { splat: splat16() };
            per_pair(ra, rb).touch(parallel, &PerPairCapsules { splat }, wide, n, store);
        }
    }
    out.finish(LANES);
}

query_forms! {
    /// Does capsule `(a[i], rA)` touch capsule `(b[i], rB)`, for every `i`? One bit per
    /// pair, segment against segment (default options), in the precision of the batches.
    ///
    /// Bit `i` is `dist2 <= r * r` with `r = rA + rB` and `dist2` exactly
    /// [`reference::closest_points_with`](crate::reference::closest_points_with)'s. In `f64`,
    /// for a radius sum whose square leaves `f64`'s range (beyond about `1.3e154`, below
    /// about `2e-146`), the `f64` range rule of
    /// [`within_radius64`](crate::sets::within_radius64), so that capsules `1e300` apart
    /// touch exactly when the same capsules scaled to `1` do. An infinite radius touches
    /// every pair of finite segments.
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// use segbatch::pairs::{capsules_touch, Radii};
    /// // Capsules of radius 0.5 along the x axis, one unit apart in y: they touch.
    /// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]); 2]);
    /// let b = Segments::from(&[
    ///     Segment::new([0.0, 1.0, 0.0], [2.0, 1.0, 0.0]),
    ///     Segment::new([0.0, 1.5, 0.0], [2.0, 1.5, 0.0]),
    /// ]);
    /// let mask = capsules_touch(&a, &b, Radii::uniform(0.5, 0.5)?);
    /// assert_eq!(mask.iter_ones().collect::<Vec<_>>(), vec![0]);
    ///
    /// // ECEF-sized capsules of radius 0.6 mm, 1 mm and 1.5 mm apart, in f64: f32 rounds
    /// // the coordinates to half a metre.
    /// use segbatch::{Segment64, Segments64};
    /// let o = 6_378_137.0;
    /// let a = Segments64::from(&[Segment64::new([o, 0.0, 0.0], [o + 2.0, 0.0, 0.0]); 2]);
    /// let b = Segments64::from(&[
    ///     Segment64::new([o, 1e-3, 0.0], [o + 2.0, 1e-3, 0.0]),
    ///     Segment64::new([o, 1.5e-3, 0.0], [o + 2.0, 1.5e-3, 0.0]),
    /// ]);
    /// let mask = capsules_touch(&a, &b, Radii::uniform(0.6e-3, 0.6e-3)?);
    /// assert_eq!(mask.iter_ones().collect::<Vec<_>>(), vec![0]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn capsules_touch / capsules_touch_into / par_capsules_touch / par_capsules_touch_into
        <'a, 'b; E: Element>(a: impl Into<SegmentsView<'a, E>>, b: impl Into<SegmentsView<'b, E>>, radii: Radii<'_, E>)
        with (options: &Options = &Options::SEGMENTS)
        -> PairMask = touch;
    /// The general form of [`capsules_touch`]: extents and tolerance from `options`, the
    /// mask written into `out` (its allocation reused).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a`, `b` or per-pair radii differ in length (`out` is
    /// then empty).
    ///
    /// ```
    /// use segbatch::{Error, Options, Segment, Segments};
    /// use segbatch::pairs::{capsules_touch_into, PairMask, Radii};
    /// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]); 3]);
    /// let b = Segments::from(&[Segment::new([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]); 3]);
    /// let mut mask = PairMask::new();
    /// let radii = Radii::per_pair(&[0.5, 0.4, 0.6], &[0.5, 0.5, 0.6])?;
    /// capsules_touch_into(&a, &b, radii, &Options::SEGMENTS, &mut mask)?;
    /// assert_eq!(mask.iter_ones().collect::<Vec<_>>(), vec![0, 2]);
    /// let short = Radii::per_pair(&[0.5], &[0.5])?;
    /// assert!(matches!(
    ///     capsules_touch_into(&a, &b, short, &Options::SEGMENTS, &mut mask),
    ///     Err(Error::LengthMismatch { .. })
    /// ));
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    into;
}

/// Sizes `out` for `n` pairs and runs the `f64` capsule test ([`F64Lanes`]) over `pair`
/// (twelve columns: A, B) with uniform radii, or over `per_pair(rA, rB)` (fourteen: A, rA,
/// B, rB): [`run_touch`]'s twin, the same kernels over the `f64` lanes.
pub(super) fn run_touch64<'r, P, Q>(
    radii: Radii64<'r>,
    options: &Options,
    pair: P,
    per_pair: impl FnOnce(&'r [f64], &'r [f64]) -> Q,
    n: usize,
    parallel: bool,
    out: &mut PairMask,
) where
    P: Input<12, F64Lanes>,
    Q: Input<14, F64Lanes>,
{
    const W64: usize = <F64Lanes as Lane>::WIDTH;
    out.reset(n);
    let splat = Splat::new(&options.params64());
    let store = out.groups_mut(W64);
    match radii.0 {
        RadiiKind::Uniform { a: ra, b: rb } => {
            let kernel = UniformCapsules {
                splat,
                r: F64Lanes::splat(ra + rb),
            };
            driver::run_on(parallel, &kernel, pair, n, store);
        }
        RadiiKind::PerPair { a: ra, b: rb } => {
            let kernel = PerPairCapsules { splat };
            driver::run_on(parallel, &kernel, per_pair(ra, rb), n, store);
        }
    }
    out.finish(W64);
}
