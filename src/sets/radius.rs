//! The radius argument of the set queries: one radius for every pair, or one radius per
//! object (capsules: a pair is reported when `distance <= rI + rJ`).
//!
//! One argument type keeps the four forms of each query (convenience, `_into`, `par_`,
//! `par_…_into`) one table: a plain `f32` converts into [`Radius::All`], a slice into
//! [`Radius::Each`], a pair of slices into [`Radius::Sides`]; the `f64` queries take the
//! same type over `f64` ([`Radius64`]). Inside the crate the argument becomes a
//! [`PairRadius`], checked once against the sets' lengths, which every path (grid,
//! brute-force tiles, static index) asks for the radius of a pair.

use crate::batch::{Error, check_len};
use crate::real::{Real, dot, fma, fnma, sub};
use crate::segment::Segment64;

/// The radius of a set query: one for every pair, or one per object, in the query's
/// precision (`R`: `f32`, or `f64` for the `f64` queries, [`Radius64`]).
///
/// A pair is reported when the distance of the two core segments is at most the pair's
/// radius: `r` for [`Radius::All`], `rI + rJ` (summed in `R`) for per-object radii. In
/// `f32` the decision is the one of [`within_radius`](crate::sets::within_radius) with that
/// radius: the kernel's `dist2 <= (rI + rJ)²` in `f32`, or in `f64` for a pair whose
/// squared distance left `f32`'s range; in `f64` it is the `f64` kernel's
/// `dist2 <= (rI + rJ)²`, by the `f64` range rule of
/// [`within_radius`](crate::sets::within_radius) where the square leaves `f64`'s range.
/// Radii are zero (a bare segment), positive or `+∞`: an infinite radius holds every pair
/// of finite segments, as in every query of the crate (capsule tests and contacts, first
/// contacts at `t = 0`, first hits at `u = 0`).
///
/// | variant | [`self_pairs_within`](crate::sets::self_pairs_within) | [`pairs_within`](crate::sets::pairs_within), [`SegmentIndex::pairs_within`](crate::SegmentIndex::pairs_within) |
/// |---|---|---|
/// | `All(r)` (from an `f32`) | `distance <= r` | `distance <= r` |
/// | `Each(radii)` (from a slice) | `distance <= radii[i] + radii[j]`, one radius an object of the set | `distance <= radii[i]`: one radius an object of A (the queries); B's objects (the members) are bare segments |
/// | `Sides(ra, rb)` (from two slices) | an error: one set has one list | `distance <= ra[i] + rb[j]`, one radius an object of A and of B |
///
/// ```
/// use segbatch::{Segment, Segments};
/// use segbatch::sets::{pairs_within, self_pairs_within, Radius, SharedEndpoints};
/// let set = Segments::from(&[
///     Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
///     Segment::new([0.0, 1.0, 0.0], [1.0, 1.0, 0.0]),
///     Segment::new([0.0, 3.0, 0.0], [1.0, 3.0, 0.0]),
/// ]);
/// // One radius for every pair, as before: only the pair one unit apart.
/// let one = self_pairs_within(&set, 1.0, SharedEndpoints::Keep);
/// assert_eq!(one.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), vec![(0, 1)]);
/// // Capsules of radii 0.25, 0.5 and 1.5: 1 > 0.75, but 2 <= 0.5 + 1.5.
/// let radii = [0.25, 0.5, 1.5];
/// let each = self_pairs_within(&set, &radii, SharedEndpoints::Keep);
/// assert_eq!(each.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), vec![(1, 2)]);
/// // Two sets, a radius an object on each side.
/// let probe = Segments::from(&[Segment::new([0.0, 2.0, 0.0], [1.0, 2.0, 0.0])]);
/// let both = pairs_within(&probe, &set, Radius::Sides(&[0.5], &radii));
/// assert_eq!(both.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), vec![(0, 1), (0, 2)]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Radius<'a, R = f32> {
    /// One radius for every pair.
    All(R),
    /// One radius an object: of the set (a query over one set), or of A (a query over two
    /// sets, whose B objects are then bare segments).
    Each(&'a [R]),
    /// One radius an object of A and one an object of B (a query over two sets).
    Sides(&'a [R], &'a [R]),
}

/// The radius of the `f64` set queries ([`pairs_within`](crate::sets::pairs_within),
/// [`self_pairs_within`](crate::sets::self_pairs_within),
/// [`SegmentIndex::pairs_within`](crate::SegmentIndex::pairs_within) over `f64` segments): an `f64`
/// converts into [`Radius::All`], a slice of `f64` into [`Radius::Each`], two into
/// [`Radius::Sides`].
///
/// ```
/// use segbatch::{Segment64, Segments64};
/// use segbatch::sets::{self_pairs_within, Radius64, SharedEndpoints};
/// let o = 5_000_000.0; // a UTM northing
/// let set = Segments64::from(&[
///     Segment64::new([0.0, o, 0.0], [1.0, o, 0.0]),
///     Segment64::new([0.0, o + 1.0, 0.0], [1.0, o + 1.0, 0.0]),
///     Segment64::new([0.0, o + 3.0, 0.0], [1.0, o + 3.0, 0.0]),
/// ]);
/// // Capsules of radii 0.25, 0.5 and 1.5: 1 > 0.75, but 2 <= 0.5 + 1.5.
/// let radii = [0.25, 0.5, 1.5];
/// let hits = self_pairs_within(&set, &radii, SharedEndpoints::Keep);
/// assert_eq!(hits.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), vec![(1, 2)]);
/// assert_eq!(self_pairs_within(&set, Radius64::All(1.0), SharedEndpoints::Keep).len(), 1);
/// ```
pub type Radius64<'a> = Radius<'a, f64>;

/// One radius for every pair, in either precision (so that code generic over the element
/// passes a radius as the queries' `impl Into<Radius>` takes it).
impl<R> From<R> for Radius<'_, R> {
    fn from(r: R) -> Self {
        Radius::All(r)
    }
}

/// The conversions of lists into [`Radius`] for one precision.
macro_rules! radius_from {
    ($r:ty) => {
        impl<'a> From<&'a [$r]> for Radius<'a, $r> {
            fn from(radii: &'a [$r]) -> Self {
                Radius::Each(radii)
            }
        }

        impl<'a> From<&'a Vec<$r>> for Radius<'a, $r> {
            fn from(radii: &'a Vec<$r>) -> Self {
                Radius::Each(radii)
            }
        }

        impl<'a, const N: usize> From<&'a [$r; N]> for Radius<'a, $r> {
            fn from(radii: &'a [$r; N]) -> Self {
                Radius::Each(radii)
            }
        }

        impl<'a> From<(&'a [$r], &'a [$r])> for Radius<'a, $r> {
            fn from((a, b): (&'a [$r], &'a [$r])) -> Self {
                Radius::Sides(a, b)
            }
        }
    };
}

radius_from!(f32);
radius_from!(f64);

/// A valid radius: zero, positive or `+∞`.
fn valid<R: Real>(r: R) -> bool {
    r >= R::ZERO
}

/// `Ok` when every radius of `radii` is valid, else the first invalid one's index.
fn check_each<R: Real>(radii: &[R]) -> Result<(), Error> {
    match radii.iter().position(|&r| !valid(r)) {
        Some(index) => Err(Error::InvalidRadius { index: Some(index) }),
        None => Ok(()),
    }
}

/// A [`Radius`] checked against the sets of a query: the radius of each pair.
#[derive(Clone, Copy, Debug)]
pub(crate) enum PairRadius<'a, R = f32> {
    /// One radius for every pair.
    All(R),
    /// `a[i] + b[j]`, a missing side counting zero.
    Sum {
        a: Option<&'a [R]>,
        b: Option<&'a [R]>,
    },
}

impl<'a, R: Real> PairRadius<'a, R> {
    /// The radius of a query over one set of `n` objects.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] for a negative or NaN radius (with the index of the first
    /// one in a list); [`Error::LengthMismatch`] for a list whose length is not `n`, or for
    /// [`Radius::Sides`] (two lists for one set).
    pub(crate) fn one_set(radius: Radius<'a, R>, n: usize) -> Result<Self, Error> {
        match radius {
            Radius::All(r) => Self::all(r),
            Radius::Each(radii) => {
                check_len("radii of the set", n, radii.len())?;
                check_each(radii)?;
                Ok(PairRadius::Sum {
                    a: Some(radii),
                    b: Some(radii),
                })
            }
            Radius::Sides(..) => Err(Error::LengthMismatch {
                what: "radius lists (one set takes one list, Radius::Each)",
                expected: 1,
                found: 2,
            }),
        }
    }

    /// The radius of a query over a set of `na` objects against one of `nb`.
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] for a negative or NaN radius (with the index of the first
    /// one in a list, A's first); [`Error::LengthMismatch`] for a list whose length is not
    /// its set's.
    pub(crate) fn two_sets(radius: Radius<'a, R>, na: usize, nb: usize) -> Result<Self, Error> {
        match radius {
            Radius::All(r) => Self::all(r),
            Radius::Each(a) => {
                check_len("radii of set a", na, a.len())?;
                check_each(a)?;
                Ok(PairRadius::Sum {
                    a: Some(a),
                    b: None,
                })
            }
            Radius::Sides(a, b) => {
                check_len("radii of set a", na, a.len())?;
                check_len("radii of set b", nb, b.len())?;
                check_each(a)?;
                check_each(b)?;
                Ok(PairRadius::Sum {
                    a: Some(a),
                    b: Some(b),
                })
            }
        }
    }

    fn all(r: R) -> Result<Self, Error> {
        if valid(r) {
            Ok(PairRadius::All(r))
        } else {
            Err(Error::InvalidRadius { index: None })
        }
    }

    /// The single radius of every pair, `None` for per-object radii.
    pub(crate) fn uniform(&self) -> Option<R> {
        match self {
            PairRadius::All(r) => Some(*r),
            PairRadius::Sum { .. } => None,
        }
    }

    /// The radius of object `i` of A, `0` for [`PairRadius::All`] or a side without radii.
    #[inline]
    pub(crate) fn of_a(&self, i: usize) -> R {
        match self {
            PairRadius::Sum { a: Some(a), .. } => a[i],
            _ => R::ZERO,
        }
    }

    /// The radius of object `j` of B, `0` for [`PairRadius::All`] or a side without radii.
    #[inline]
    pub(crate) fn of_b(&self, j: usize) -> R {
        match self {
            PairRadius::Sum { b: Some(b), .. } => b[j],
            _ => R::ZERO,
        }
    }

    /// The largest radius of an object of B (`0` without B radii).
    pub(crate) fn max_b(&self) -> R {
        match self {
            PairRadius::Sum { b: Some(b), .. } => {
                b.iter().fold(R::ZERO, |m, &r| if r > m { r } else { m })
            }
            _ => R::ZERO,
        }
    }

    /// How far from `a[i]` a member of B within its pair's radius may lie, B's largest
    /// radius being `max_b` ([`PairRadius::max_b`]): `r`, or `rA + max_b`.
    #[inline]
    pub(crate) fn reach(&self, i: usize, max_b: R) -> R {
        match self {
            PairRadius::All(r) => *r,
            PairRadius::Sum { .. } => self.of_a(i) + max_b,
        }
    }

    /// The radius of the pair `a[i]`, `b[j]`: `r`, or `rA + rB` in `R`.
    #[inline]
    pub(crate) fn of(&self, i: usize, j: usize) -> R {
        match self {
            PairRadius::All(r) => *r,
            PairRadius::Sum { .. } => self.of_a(i) + self.of_b(j),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The `f64` range rule: decisions whose squares leave `f64`'s range.

/// The smallest square the range rule takes as it is, `2^-968`: `2^54` times the smallest
/// normal number, so that a squared distance this large carries no rounding of a subnormal
/// partial product (one within `2^54` of the subnormal range may, and is not the scaled
/// squared distance bit for bit).
pub(crate) const NORMAL_LO: f64 = f64::MIN_POSITIVE * 18_014_398_509_481_984.0;

/// True when `dist2 <= r²` in `f64` decides every pair within radius `r` rightly: `r` is
/// `+∞` or its square is a normal number (at least [`NORMAL_LO`]). A squared distance that left `f64`'s range is
/// then on the right side of `r²` whatever its true value: one that overflowed (flagged
/// `inf`) is beyond any radius whose square is finite, one that underflowed (`0` or
/// subnormal) within any whose square is normal. (A radius of `0` is not plain: a squared
/// distance that underflowed to `0` is not a distance of `0`.)
#[inline(always)]
pub(crate) fn plain64(r: f64) -> bool {
    (NORMAL_LO..=f64::MAX).contains(&(r * r)) || r == f64::INFINITY
}

/// The decision of every `f64` radius query, capsule test and contact: whether segments
/// whose closest points the `f64` kernel put at parameters `(s, t)` and squared distance
/// `dist2` lie within `r` of each other. `dist2 <= r²` whenever `r` is [`plain64`] (the
/// common path: nothing else is read); for another radius (`0`, or a square that left the
/// range) a normal `dist2` is within exactly when `r²` overflowed; only when the squared
/// distance left the range too (`0`, subnormal or `+∞`) are the pair and the radius
/// decided scaled by one power of two ([`beyond64`]). `pair` gives the two segments and
/// `(s, t)`, read only then. A NaN `dist2` is never within.
#[inline(always)]
pub(crate) fn within64(
    dist2: f64,
    r: f64,
    pair: impl FnOnce() -> (Segment64, Segment64, f64, f64),
) -> bool {
    if plain64(r) {
        dist2 <= r * r
    } else if (NORMAL_LO..=f64::MAX).contains(&dist2) {
        r * r == f64::INFINITY
    } else {
        beyond64(dist2, r, pair)
    }
}

/// [`within64`] for a radius that is not [`plain64`] and a squared distance that is not a
/// normal number: the pair and the radius scaled by one power of two.
#[cold]
#[inline(never)]
fn beyond64(dist2: f64, r: f64, pair: impl FnOnce() -> (Segment64, Segment64, f64, f64)) -> bool {
    if dist2.is_nan() {
        return false;
    }
    let huge = r * r == f64::INFINITY;
    if huge != (dist2 == f64::INFINITY) {
        // A squared distance that underflowed is within a radius above about 1.3e154, one
        // that overflowed beyond a radius below about 2e-146 (or 0).
        return huge;
    }
    let (a, b, s, t) = pair();
    let (v, e) = separation64(&a, &b, s, t, r);
    if !v.iter().all(|x| x.is_finite()) {
        return dist2 <= r * r;
    }
    let re = shift64(r, e);
    dot(v, v) <= re * re
}

/// `|a(s) - b(t)|`, finite whenever it is representable: `sqrt(dist2)` for a normal
/// `dist2` (the kernel's squared distance at `(s, t)`), else the separation the kernel
/// forms, `(A0 - B0) + s·dA - t·dB`, at a power-of-two scale where neither it nor its
/// square under- or overflows, scaled back (`+∞` beyond `f64::MAX`). NaN for a NaN `dist2`.
pub(crate) fn distance64(a: &Segment64, b: &Segment64, s: f64, t: f64, dist2: f64) -> f64 {
    if dist2.is_nan() || (NORMAL_LO..=f64::MAX).contains(&dist2) {
        return dist2.sqrt();
    }
    let (v, e) = separation64(a, b, s, t, 0.0);
    if !v.iter().all(|x| x.is_finite()) {
        return dist2.sqrt();
    }
    shift64(dot(v, v).sqrt(), -e)
}

/// The separation `(A0 - B0) + s·dA - t·dB`, formed from the end points scaled by `2^e`
/// as the kernel forms it (`fnma(t, dB, fma(s, dA, r))`), and `e`: chosen so that the
/// larger of the separation and `extra·2^e` (the radius) lies in about `[1, 2)`, no scaled
/// coordinate or partial sum above `2^1020`. Scaling by a power of two commutes with every
/// rounding that stays normal, so its square is the kernel's squared distance times
/// `4^e`, bit for bit, wherever that product is a normal number.
fn separation64(a: &Segment64, b: &Segment64, s: f64, t: f64, extra: f64) -> ([f64; 3], i32) {
    let at = |e: i32| -> ([f64; 3], f64) {
        let sc = |p: [f64; 3]| p.map(|x| shift64(x, e));
        let (a0, a1, b0, b1) = (sc(a.p0), sc(a.p1), sc(b.p0), sc(b.p1));
        let (r, da, db) = (sub(a0, b0), sub(a1, a0), sub(b1, b0));
        let mut big = 0.0f64;
        let v = core::array::from_fn(|k| {
            let w = fma(s, da[k], r[k]);
            big = big.max(w.abs()).max((t * db[k]).abs());
            fnma(t, db[k], w)
        });
        let big = [a0, a1, b0, b1]
            .iter()
            .flatten()
            .fold(big, |m, x| m.max(x.abs()));
        (v, big)
    };
    let largest = [a.p0, a.p1, b.p0, b.p1]
        .iter()
        .flatten()
        .fold(extra, |m, x| m.max(x.abs()));
    if !(largest > 0.0 && largest.is_finite()) {
        return (at(0).0, 0);
    }
    // First at the scale of the largest value, where nothing overflows: the separation's
    // size, to a factor of two unless it underflowed there.
    let e1 = -exponent64(largest);
    let (v1, big1) = at(e1);
    let m = v1.iter().fold(shift64(extra, e1), |m, x| m.max(x.abs()));
    let room = if big1 > 0.0 && big1.is_finite() {
        1020 - exponent64(big1)
    } else {
        0
    };
    let up = if m > 0.0 { -exponent64(m) } else { room };
    let e = e1 + up.min(room);
    (at(e).0, e)
}

/// `e` with `x = f·2^e`, `f` in `[1, 2)`, for a finite `x > 0` (a subnormal's leading bit).
fn exponent64(x: f64) -> i32 {
    if x < f64::MIN_POSITIVE {
        exponent64(x * pow2(64)) - 64
    } else {
        ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023
    }
}

/// `2^n` for `n` in `[-1022, 1023]`.
fn pow2(n: i32) -> f64 {
    f64::from_bits(((1023 + n) as u64) << 52)
}

/// `x·2^by`, in two exact factors (a result in the subnormal range may round).
fn shift64(x: f64, by: i32) -> f64 {
    let by = by.clamp(-2044, 2046);
    let half = by / 2;
    x * pow2(half) * pow2(by - half)
}
