//! The contact of two touching capsules ([`CapsuleContact`]), and the rule that makes it,
//! one body over the precision: what [`capsule_contacts`](super::capsule_contacts) and
//! a moving scene report for each touching pair.

use crate::real::Real;
use crate::segment::{Segment, Segment64};

/// The contact of two touching capsules, from [`capsule_contacts`](super::capsule_contacts), in
/// the precision of the sets ([`CapsuleContact64`] in `f64`).
///
/// # Capsule contacts
///
/// For the pairs whose capsules touch ([`capsules_touch`](crate::pairs::capsules_touch)'s test,
/// `dist2 <= (rA + rB)²` in `f32`), [`capsule_contacts`](super::capsule_contacts) reports what a
/// physics engine's solver needs: the unit normal pointing from B to A, the depth `rA + rB -
/// distance`, and the contact points on the two capsule surfaces. The normal is the closest points'
/// separation `C - D`, normalised after scaling by its largest component (so separations of 1e-30
/// still give a unit normal). When the core segments touch or cross (`C - D` is exactly zero) it
/// falls back, in order, to the cross product of the two directions (oriented from B's midpoint
/// towards A's), then to a direction perpendicular to A (or B, if A is a point), and for two points
/// to `+z`.
///
/// # Manifolds: two points for parallel capsules
///
/// A solver resting one capsule on another needs two points where they lie side by side.
/// When the cores are within [`MANIFOLD_SIN`] of parallel (`|dA × dB|² <= sin²·|dA|²·|dB|²`)
/// and B's projection onto A overlaps A over a length (`lo < hi`, the parameters along A
/// clamped to `[0, 1]`), the pair gets two contacts with the one normal above: at `s = lo`
/// and at `s = hi`, `C = A(s)`, `D` the projection of `C` onto B (clamped), the depth
/// `rA + rB - (C - D)·normal` and the points `C - rA·normal`, `D + rB·normal`. If either
/// end's depth is negative (the cores diverge enough to part within the overlap) the pair
/// keeps its single closest-point contact.
/// [`reference::capsule_contact`](crate::reference::capsule_contact) is the scalar twin of the
/// rule.
///
/// # In `f64`
///
/// [`CapsuleContact64`] is this type over `f64`: the same rule, every step in `f64`, the
/// same [`MANIFOLD_SIN`] (widened exactly), from [`capsule_contacts`](super::capsule_contacts), bit
/// for bit [`reference::capsule_contact`](crate::reference::capsule_contact) on `f64` segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CapsuleContact<F = f32> {
    /// Position of the pair in the list given (in a [`Frame`](crate::scenes::Frame) of
    /// [`scenes::Capsules`](crate::scenes::Capsules): in the frame's
    /// [`pairs`](crate::scenes::Frame::pairs)).
    pub pair: u32,
    /// The object of A: `i` of the index pair `(i, j)` (in a frame, the smaller id).
    pub i: u32,
    /// The object of B: `j` of the index pair `(i, j)` (in a frame, the larger id).
    pub j: u32,
    /// Unit normal from B towards A (see above for the fallback when the core segments
    /// meet).
    pub normal: [F; 3],
    /// Penetration depth `rA + rB - distance` (zero when they just touch).
    pub depth: F,
    /// Deepest point of capsule A towards B: `C - rA·normal`.
    pub point_a: [F; 3],
    /// Deepest point of capsule B towards A: `D + rB·normal`.
    pub point_b: [F; 3],
}

/// The contact of two touching `f64` capsules, from [`capsule_contacts`](super::capsule_contacts):
/// [`CapsuleContact`] over `f64`.
pub type CapsuleContact64 = CapsuleContact<f64>;

/// The scalar type of the contact rule, `f32` or `f64`: [`Real`] and the few `std` float
/// methods the rule calls, each forwarding to the inherent method of the same name (so the
/// `f32` instantiation is the `f32` code it replaced).
pub(crate) trait ContactReal: Real + From<f32> {
    fn max(self, other: Self) -> Self;
    fn min(self, other: Self) -> Self;
    fn clamp(self, lo: Self, hi: Self) -> Self;
    fn is_finite(self) -> bool;
    fn total_cmp(&self, other: &Self) -> core::cmp::Ordering;
}

/// [`ContactReal`] for `$f`.
macro_rules! contact_real {
    ($($f:ident),*) => {$(
        impl ContactReal for $f {
            #[inline(always)]
            fn max(self, other: Self) -> Self {
                $f::max(self, other)
            }
            #[inline(always)]
            fn min(self, other: Self) -> Self {
                $f::min(self, other)
            }
            #[inline(always)]
            fn clamp(self, lo: Self, hi: Self) -> Self {
                $f::clamp(self, lo, hi)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                $f::is_finite(self)
            }
            #[inline(always)]
            fn total_cmp(&self, other: &Self) -> core::cmp::Ordering {
                $f::total_cmp(self, other)
            }
        }
    )*};
}

contact_real!(f32, f64);

/// A capsule's core in either precision ([`Segment`], [`Segment64`]): what the contact
/// rule reads of it, each method the segment's own.
pub(crate) trait Core: Copy {
    /// `f32` or `f64`.
    type F: ContactReal;
    /// The first end point.
    fn p0(&self) -> [Self::F; 3];
    /// The second end point.
    fn p1(&self) -> [Self::F; 3];
    /// `p1 - p0`.
    fn direction(&self) -> [Self::F; 3];
    /// `p0 + u·(p1 - p0)`.
    fn at(&self, u: Self::F) -> [Self::F; 3];
    /// The core with both end points times `sigma`.
    fn scaled(&self, sigma: Self::F) -> Self;
    /// Whether cores at squared distance `dist2` (the kernel's) are within `r = rA + rB`:
    /// `dist2 <= r²` (NaN never touches); in `f64` the range rule
    /// ([`within64`](crate::sets::radius::within64)), which reads the cores and their
    /// parameters `(s, t)` from `pair` only for a radius whose square is not normal.
    fn touches(
        dist2: Self::F,
        r: Self::F,
        pair: impl FnOnce() -> (Self, Self, Self::F, Self::F),
    ) -> bool;
    /// The distance of cores `a`, `b` whose closest points are at parameters `(s, t)` and
    /// squared distance `dist2`: `sqrt(dist2)`; in `f64`, recomputed at a power-of-two
    /// scale when `dist2` left the normal range (finite whenever representable).
    fn distance(a: &Self, b: &Self, s: Self::F, t: Self::F, dist2: Self::F) -> Self::F;
}

impl Core for Segment {
    type F = f32;
    #[inline(always)]
    fn p0(&self) -> [f32; 3] {
        self.p0
    }
    #[inline(always)]
    fn p1(&self) -> [f32; 3] {
        self.p1
    }
    #[inline(always)]
    fn direction(&self) -> [f32; 3] {
        Segment::direction(self)
    }
    #[inline(always)]
    fn at(&self, u: f32) -> [f32; 3] {
        Segment::at(self, u)
    }
    #[inline(always)]
    fn scaled(&self, sigma: f32) -> Self {
        Segment::new(self.p0.map(|x| x * sigma), self.p1.map(|x| x * sigma))
    }
    #[inline(always)]
    fn touches(dist2: f32, r: f32, _: impl FnOnce() -> (Self, Self, f32, f32)) -> bool {
        !(dist2.is_nan() || dist2 > r * r)
    }
    #[inline(always)]
    fn distance(_: &Self, _: &Self, _: f32, _: f32, dist2: f32) -> f32 {
        dist2.sqrt()
    }
}

impl Core for Segment64 {
    type F = f64;
    #[inline(always)]
    fn p0(&self) -> [f64; 3] {
        self.p0
    }
    #[inline(always)]
    fn p1(&self) -> [f64; 3] {
        self.p1
    }
    #[inline(always)]
    fn direction(&self) -> [f64; 3] {
        Segment64::direction(self)
    }
    #[inline(always)]
    fn at(&self, u: f64) -> [f64; 3] {
        Segment64::at(self, u)
    }
    #[inline(always)]
    fn scaled(&self, sigma: f64) -> Self {
        Segment64::new(self.p0.map(|x| x * sigma), self.p1.map(|x| x * sigma))
    }
    #[inline(always)]
    fn touches(dist2: f64, r: f64, pair: impl FnOnce() -> (Self, Self, f64, f64)) -> bool {
        crate::sets::radius::within64(dist2, r, pair)
    }
    #[inline(always)]
    fn distance(a: &Self, b: &Self, s: f64, t: f64, dist2: f64) -> f64 {
        crate::sets::radius::distance64(a, b, s, t, dist2)
    }
}

/// `v / |v|`, scaled by its largest component first; `None` for a zero or non-finite `v`.
fn unit<F: ContactReal>(v: [F; 3]) -> Option<[F; 3]> {
    let m = v.iter().fold(F::ZERO, |acc, &x| acc.max(x.abs()));
    if !(m > F::ZERO && m.is_finite()) {
        return None;
    }
    let u = v.map(|x| x / m);
    let len = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
    Some(u.map(|x| x / len))
}

fn cross<F: ContactReal>(u: [F; 3], v: [F; 3]) -> [F; 3] {
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

/// A direction perpendicular to `d` (`None` for a zero `d`): `d × e`, `e` the axis of `d`'s
/// smallest component.
fn perpendicular<F: ContactReal>(d: [F; 3]) -> Option<[F; 3]> {
    let d = unit(d)?;
    let k = (0..3)
        .min_by(|&p, &q| d[p].abs().total_cmp(&d[q].abs()))
        .unwrap_or(0);
    let mut e = [F::ZERO; 3];
    e[k] = F::ONE;
    unit(cross(d, e))
}

/// `u - v`, or `u/2 - v/2` when a difference overflows (points spanning more than the
/// largest float): the same direction, for [`unit()`].
fn separation<F: ContactReal>(u: [F; 3], v: [F; 3]) -> [F; 3] {
    let d = core::array::from_fn(|k| u[k] - v[k]);
    if d.iter().all(|x: &F| x.is_finite()) {
        d
    } else {
        core::array::from_fn(|k| F::HALF * u[k] - F::HALF * v[k])
    }
}

/// The contact normal of capsules with cores `a`, `b` and closest points `c`, `d` (see the
/// module docs).
fn contact_normal<S: Core>(a: &S, b: &S, c: [S::F; 3], d: [S::F; 3]) -> [S::F; 3] {
    if let Some(n) = unit(separation(c, d)) {
        return n;
    }
    let (da, db) = (a.direction(), b.direction());
    // (When the product of two huge directions overflows, the same cross product of the
    // directions scaled by powers of two, which changes no bit of its unit vector.)
    let normed = |d: [S::F; 3]| {
        let m = d.iter().fold(S::F::ZERO, |acc, &x| acc.max(x.abs()));
        let (sigma, _) = m.magnitude_scale();
        d.map(|x| x * sigma)
    };
    if let Some(n) = unit(cross(da, db)).or_else(|| unit(cross(normed(da), normed(db)))) {
        let half = S::F::HALF;
        let (ma, mb) = (a.at(half), b.at(half));
        let towards = n[0] * (ma[0] - mb[0]) + n[1] * (ma[1] - mb[1]) + n[2] * (ma[2] - mb[2]);
        return if towards < S::F::ZERO {
            n.map(|x| -x)
        } else {
            n
        };
    }
    perpendicular(da)
        .or_else(|| perpendicular(db))
        .unwrap_or([S::F::ZERO, S::F::ZERO, S::F::ONE])
}

/// `p + r·n`, a contact point on a capsule's surface: `p` itself where the normal's
/// component `n` is zero and the radius infinite (an infinite radius touches everything,
/// its points lie at infinity along the normal, and `0·∞` would be NaN). `p - r·n` is this
/// with `-r`, bit for bit.
#[inline]
fn surface<F: ContactReal>(p: F, r: F, n: F) -> F {
    if n == F::ZERO && (r == F::INFINITY || r == F::NEG_INFINITY) {
        p
    } else {
        p + r * n
    }
}

/// Who a contact names: the position of its pair in the list and the pair's objects
/// `(pair, i, j)`.
pub(crate) type Named = (u32, u32, u32);

/// The closest points of a pair as the contact rule reads them: the point on A, the point
/// on B, the squared distance and the parameters `(s, t)`.
pub(crate) type Closest3<F> = ([F; 3], [F; 3], F, F, F);

/// The contact of capsules `(a, ra)` and `(b, rb)` whose cores' closest points are `c`
/// and `d` (at parameters `s`, `t`) at squared distance `dist2`, when they touch.
pub(crate) fn contact<S: Core>(
    (pair, i, j): Named,
    (a, ra): (&S, S::F),
    (b, rb): (&S, S::F),
    (c, d, dist2, s, t): Closest3<S::F>,
) -> Option<CapsuleContact<S::F>> {
    if !touches::<S>(dist2, ra, rb, || (*a, *b, s, t)) {
        return None;
    }
    let r = ra + rb;
    let normal = contact_normal(a, b, c, d);
    Some(CapsuleContact {
        pair,
        i,
        j,
        normal,
        // (An infinite radius is infinitely deep, however far apart the cores.)
        depth: if r == S::F::INFINITY {
            r
        } else {
            r - S::distance(a, b, s, t, dist2)
        },
        point_a: core::array::from_fn(|k| surface(c[k], -ra, normal[k])),
        point_b: core::array::from_fn(|k| surface(d[k], rb, normal[k])),
    })
}

/// True when cores at squared distance `dist2` are within `ra + rb`: the contact test
/// (NaN, from non-finite input, never touches; [`Core::touches`]).
#[inline]
pub(super) fn touches<S: Core>(
    dist2: S::F,
    ra: S::F,
    rb: S::F,
    pair: impl FnOnce() -> (S, S, S::F, S::F),
) -> bool {
    S::touches(dist2, ra + rb, pair)
}

/// Core directions within this sine of parallel get a two-point manifold (about 0.57°; the
/// `f64` contacts use the same value, widened exactly).
pub const MANIFOLD_SIN: f32 = 0.01;

fn dot<F: ContactReal>(u: [F; 3], v: [F; 3]) -> F {
    u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
}

fn sub<F: ContactReal>(u: [F; 3], v: [F; 3]) -> [F; 3] {
    core::array::from_fn(|k| u[k] - v[k])
}

/// [`overlap_ends_at`] for cores of any size: when a product of lengths the parallel test
/// forms (`|dA|²`, `|dB|²`, `sin²·|dA|²·|dB|²`, `|dA × dB|²`) overflows or underflows (cores
/// longer than about `2^31` in `f32`, `2^255` in `f64`, or as short), the cores are
/// solved scaled by the power of two that brings their largest coordinate into `[1, 2)`,
/// their depths and points scaled back: exactly the contacts of the same cores in the
/// ordinary range, scaled. Every other pair is solved as it is, bit for bit.
fn overlap_ends<S: Core>(
    named: Named,
    (a, ra): (&S, S::F),
    (b, rb): (&S, S::F),
    normal: [S::F; 3],
) -> Option<[CapsuleContact<S::F>; 2]> {
    let (da, db) = (a.direction(), b.direction());
    let (la2, lb2) = (dot(da, da), dot(db, db));
    let nn = {
        let n = cross(da, db);
        dot(n, n)
    };
    let sin = S::F::from(MANIFOLD_SIN);
    let p = sin * sin * la2 * lb2;
    let normal_value = |x: S::F| x >= S::F::MIN_POSITIVE && x <= S::F::MAX;
    let zero = |d: [S::F; 3]| d.iter().all(|&x| x == S::F::ZERO);
    let in_range = (normal_value(la2) || zero(da))
        && (normal_value(lb2) || zero(db))
        && (normal_value(p) || zero(da) || zero(db))
        && nn.is_finite();
    let m = [a.p0(), a.p1(), b.p0(), b.p1()]
        .iter()
        .flatten()
        .fold(S::F::ZERO, |acc, &x| acc.max(x.abs()));
    if in_range || m == S::F::ZERO || !m.is_finite() {
        return overlap_ends_at(named, (a, ra), (b, rb), normal);
    }
    let (sigma, inv) = m.magnitude_scale();
    let (sa, sb) = (a.scaled(sigma), b.scaled(sigma));
    let ends = overlap_ends_at(named, (&sa, ra * sigma), (&sb, rb * sigma), normal)?;
    Some(ends.map(|c| CapsuleContact {
        depth: c.depth * inv,
        point_a: c.point_a.map(|x| x * inv),
        point_b: c.point_b.map(|x| x * inv),
        ..c
    }))
}

/// The two ends of the overlap of B's projection onto A, when the cores are within
/// [`MANIFOLD_SIN`] of parallel and the overlap has a length: the contact points and
/// depths measured along `normal` at `s = lo` and `s = hi`, both touching.
fn overlap_ends_at<S: Core>(
    (pair, i, j): Named,
    (a, ra): (&S, S::F),
    (b, rb): (&S, S::F),
    normal: [S::F; 3],
) -> Option<[CapsuleContact<S::F>; 2]> {
    let zero = S::F::ZERO;
    let (da, db) = (a.direction(), b.direction());
    let (la2, lb2) = (dot(da, da), dot(db, db));
    let n = cross(da, db);
    let sin = S::F::from(MANIFOLD_SIN);
    let sin2 = sin * sin;
    // False for NaN and overflow too: no manifold then.
    let parallel = la2 > zero
        && lb2 > zero
        && la2.is_finite()
        && lb2.is_finite()
        && dot(n, n) <= sin2 * la2 * lb2;
    if !parallel {
        return None;
    }
    let sb0 = dot(sub(b.p0(), a.p0()), da) / la2;
    let sb1 = dot(sub(b.p1(), a.p0()), da) / la2;
    let lo = sb0.min(sb1).max(zero);
    let hi = sb0.max(sb1).min(S::F::ONE);
    let overlap = hi > lo;
    if !overlap {
        return None;
    }
    let r = ra + rb;
    let end = |s: S::F| {
        let c = a.at(s);
        let t = (dot(sub(c, b.p0()), db) / lb2).clamp(zero, S::F::ONE);
        let d = b.at(t);
        let depth = r - dot(sub(c, d), normal);
        (depth >= zero).then(|| CapsuleContact {
            pair,
            i,
            j,
            normal,
            depth,
            point_a: core::array::from_fn(|k| surface(c[k], -ra, normal[k])),
            point_b: core::array::from_fn(|k| surface(d[k], rb, normal[k])),
        })
    };
    Some([end(lo)?, end(hi)?])
}

/// The contact manifold of capsules `(a, ra)` and `(b, rb)` whose cores' closest points are
/// `c` and `d` at squared distance `dist2` (see [`CapsuleContact`]): nothing when they do
/// not touch, two points for (near-)parallel overlapping cores, one otherwise.
pub(crate) fn manifold<S: Core>(
    named: Named,
    (a, ra): (&S, S::F),
    (b, rb): (&S, S::F),
    closest: Closest3<S::F>,
) -> [Option<CapsuleContact<S::F>>; 2] {
    let Some(one) = contact(named, (a, ra), (b, rb), closest) else {
        return [None, None];
    };
    match overlap_ends(named, (a, ra), (b, rb), one.normal) {
        Some([p, q]) => [Some(p), Some(q)],
        None => [Some(one), None],
    }
}
