//! First hits of thick rays: what a query takes (the rays, a radius and a range each or
//! for all) and gives ([`FirstHit`]), the decision of one ray against one member, and the
//! driver that casts a set of rays through an index's tree in the order of their origins.
//! [`SegmentIndex`](super::SegmentIndex) documents the semantics; both precisions run this
//! one driver over their members' precision.

use super::bvh8::{Bvh8, Member, RayPrep, Stack, Walks};
use crate::batch::{Error, Record, Soa, SoaView, check_len, check_u32};
use crate::segment::{Segment, Segment64};

/// The first member a thick ray touches
/// ([`SegmentIndex::first_hits`](super::SegmentIndex::first_hits); in `f64`, [`FirstHit64`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstHit<R = f32> {
    /// Index of the member in the indexed set.
    pub index: u32,
    /// Parameter along the ray where the sphere first touches it: the sphere's centre is
    /// then `P0 + u·(P1 - P0)` (`origin + u·direction` for [`Rays::Along`]).
    pub u: R,
    /// The contact point on the member (its point closest to that centre).
    pub point: [R; 3],
}

/// [`FirstHit`] in `f64`: the hits of an index over `f64` segments.
pub type FirstHit64 = FirstHit<f64>;

/// One value for every ray, or one per ray: the radius and the range of
/// [`SegmentIndex::first_hits`](super::SegmentIndex::first_hits), in the index's precision
/// (`f64`: [`PerRay64`]).
///
/// Converts from an `f32` or `f64` (every ray) and from a slice or vector with one value
/// per ray.
///
/// ```
/// use segbatch::sets::PerRay;
/// let radii = [0.5f32, 0.25];
/// assert_eq!(PerRay::from(0.5f32).get(7), 0.5);
/// assert_eq!(PerRay::from(&radii[..]).get(1), 0.25);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PerRay<'a, R = f32> {
    /// The same value for every ray.
    One(R),
    /// Value `k` for ray `k`.
    Each(&'a [R]),
}

/// [`PerRay`] in `f64`.
pub type PerRay64<'a> = PerRay<'a, f64>;

impl<R: Copy> PerRay<'_, R> {
    /// The value of ray `k`.
    ///
    /// # Panics
    /// For `Each` with `k` past the end of the slice.
    #[must_use]
    pub fn get(&self, k: usize) -> R {
        match self {
            PerRay::One(x) => *x,
            PerRay::Each(xs) => xs[k],
        }
    }
}

impl<R: Copy + Into<f64>> PerRay<'_, R> {
    /// `Ok` when the list has one value per ray (`rays` of them) and every value is zero,
    /// positive or `+∞`, else the error `invalid` makes of the first failing position
    /// (`None` for a single value).
    fn check(
        &self,
        what: &'static str,
        rays: usize,
        invalid: impl Fn(Option<usize>) -> Error,
    ) -> Result<(), Error> {
        let valid = |x: R| x.into() >= 0.0;
        match self {
            PerRay::One(x) => {
                if valid(*x) {
                    Ok(())
                } else {
                    Err(invalid(None))
                }
            }
            PerRay::Each(xs) => {
                check_len(what, rays, xs.len())?;
                match xs.iter().position(|&x| !valid(x)) {
                    Some(i) => Err(invalid(Some(i))),
                    None => Ok(()),
                }
            }
        }
    }
}

macro_rules! per_ray_from {
    ($($r:ty),*) => {$(
        impl From<$r> for PerRay<'_, $r> {
            fn from(x: $r) -> Self {
                PerRay::One(x)
            }
        }

        impl<'a> From<&'a [$r]> for PerRay<'a, $r> {
            fn from(xs: &'a [$r]) -> Self {
                PerRay::Each(xs)
            }
        }

        impl<'a> From<&'a Vec<$r>> for PerRay<'a, $r> {
            fn from(xs: &'a Vec<$r>) -> Self {
                PerRay::Each(xs)
            }
        }

        impl<'a, const N: usize> From<&'a [$r; N]> for PerRay<'a, $r> {
            fn from(xs: &'a [$r; N]) -> Self {
                PerRay::Each(xs)
            }
        }
    )*};
}

per_ray_from!(f32, f64);

/// The rays of a first-hit query: segments, or origins and directions.
///
/// A ray from `P0` to `P1` has the direction `P1 - P0`, and its range and hits count in
/// units of that direction's length. Formed from an origin far from the coordinates' zero
/// (`P1 = O + D·range`, 10 km out in `f32`), that difference keeps only the bits of `D` the
/// origin's ulp leaves (a direction off by `1e-3` rad): [`Rays::Along`] takes the direction
/// as given, and an index over `f64` segments takes both in `f64`.
///
/// Converts from a batch or a view of segments ([`Segments`](crate::Segments),
/// [`Segments64`](crate::Segments64)).
///
/// ```
/// use segbatch::sets::Rays;
/// use segbatch::{Segment, SegmentIndex, Segments};
/// let walls = Segments::from(&[Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0])]);
/// let index = SegmentIndex::new(&walls)?;
/// // From an origin along a direction of any length: u counts in units of it.
/// let (origins, directions) = ([[0.0f32, 0.0, 0.0]], [[2.0f32, 0.0, 0.0]]);
/// let rays = Rays::Along { origins: &origins, directions: &directions };
/// let hit = index.first_hits(rays, 0.5, 10.0)?[0].unwrap();
/// assert_eq!((hit.index, hit.u, hit.point), (0, 2.25, [5.0, 0.0, 0.0]));
/// # Ok::<(), segbatch::Error>(())
/// ```
#[derive(Clone, Copy)]
pub enum Rays<'a, T = Segment, E = f32> {
    /// Ray `k` from `P0` along `P1 - P0`.
    Segments(SoaView<'a, T, 6, E>),
    /// Ray `k` from `origins[k]` along `directions[k]` (not necessarily unit; one direction
    /// an origin).
    Along {
        /// The rays' origins.
        origins: &'a [[E; 3]],
        /// Their directions.
        directions: &'a [[E; 3]],
    },
}

/// [`Rays`] in `f64`: the rays of an index over `f64` segments.
pub type Rays64<'a> = Rays<'a, Segment64, f64>;

impl<'a, T, E> From<SoaView<'a, T, 6, E>> for Rays<'a, T, E> {
    fn from(view: SoaView<'a, T, 6, E>) -> Self {
        Rays::Segments(view)
    }
}

impl<'a, T: Record<6, E>, E: crate::columns::Cell + bytemuck::Pod> From<&'a Soa<T, 6, E>>
    for Rays<'a, T, E>
{
    fn from(batch: &'a Soa<T, 6, E>) -> Self {
        Rays::Segments(batch.into())
    }
}

/// What the driver reads of [`Rays`]: each ray as an `f64` origin and direction.
trait RaySource {
    /// Number of rays.
    fn len(&self) -> usize;
    /// `Ok` with one direction an origin.
    fn check(&self) -> Result<(), Error>;
    /// Ray `i`'s origin and direction in `f64`.
    fn at(&self, i: usize) -> ([f64; 3], [f64; 3]);
    /// Ray `i`'s origin in `f64` (the first of [`RaySource::at`], without reading the
    /// direction).
    fn origin(&self, i: usize) -> [f64; 3];
}

impl<T: Record<6, E> + Member, E: bytemuck::Pod + Into<f64>> RaySource for Rays<'_, T, E> {
    fn len(&self) -> usize {
        match self {
            Rays::Segments(v) => v.len(),
            Rays::Along { origins, .. } => origins.len(),
        }
    }

    fn check(&self) -> Result<(), Error> {
        match self {
            Rays::Segments(_) => Ok(()),
            Rays::Along {
                origins,
                directions,
            } => check_len("directions of the rays", origins.len(), directions.len()),
        }
    }

    #[inline]
    fn at(&self, i: usize) -> ([f64; 3], [f64; 3]) {
        match self {
            Rays::Segments(v) => segment_ray(&v.at(i).wide()),
            Rays::Along {
                origins,
                directions,
            } => (origins[i].map(Into::into), directions[i].map(Into::into)),
        }
    }

    #[inline]
    fn origin(&self, i: usize) -> [f64; 3] {
        match self {
            // A segment's columns are `P0`'s coordinates, then `P1`'s.
            Rays::Segments(v) => {
                let cols = v.columns();
                core::array::from_fn(|c| cols[c][i].into())
            }
            Rays::Along { origins, .. } => origins[i].map(Into::into),
        }
    }
}

/// The origin `P0` and direction `P1 - P0` of a segment's ray (exact for widened `f32`).
fn segment_ray(ray: &Segment64) -> ([f64; 3], [f64; 3]) {
    (ray.p0, sub64(ray.p1, ray.p0))
}

fn sub64(p: [f64; 3], q: [f64; 3]) -> [f64; 3] {
    [p[0] - q[0], p[1] - q[1], p[2] - q[2]]
}

fn dot64(p: [f64; 3], q: [f64; 3]) -> f64 {
    p[0] * q[0] + p[1] * q[1] + p[2] * q[2]
}

/// The largest coordinate magnitude of `p`.
fn magnitude(p: &[f64; 3]) -> f64 {
    0.0f64.max(p[0].abs()).max(p[1].abs()).max(p[2].abs())
}

/// The contact radius of a ray and a member: `max(radius, tolerance·S)`, `S` the largest
/// coordinate magnitude of the ray's origin (`origin_scale`, its [`magnitude`]) and the
/// member's end points.
fn contact_radius(radius: f64, origin_scale: f64, wall: &Segment64, tolerance: f64) -> f64 {
    let s = origin_scale
        .max(magnitude(&wall.p0))
        .max(magnitude(&wall.p1));
    radius.max(tolerance * s)
}

/// The smaller root of `A·u² + 2B·u + C = 0` (the entry of a convex quadratic into its
/// sub-zero set), in the cancellation-free form; `None` without real roots or `A = 0`.
fn entry_root(a: f64, b: f64, c: f64) -> Option<f64> {
    let disc = b * b - a * c;
    // NaN fails both tests.
    (a > 0.0 && disc >= 0.0).then(|| {
        let q = -b - disc.sqrt().copysign(b);
        // Roots q / a and c / q; the smaller one.
        let (r1, r2) = (q / a, c / q);
        if r2.is_nan() { r1 } else { r1.min(r2) }
    })
}

/// The first `u` in `[0, range]` at which the sphere of radius `r` centred on the ray from
/// `o` along `d` touches `wall` (see [`SegmentIndex`](super::SegmentIndex)), and the
/// contact point, all in `f64`: both precisions' one decision.
fn first_contact(
    o: [f64; 3],
    d: [f64; 3],
    r: f64,
    range: f64,
    wall: &Segment64,
) -> Option<(f64, [f64; 3])> {
    let (w0, w1) = (wall.p0, wall.p1);
    let w = sub64(w1, w0);
    let r2 = r * r;
    let ww = dot64(w, w);
    // Distance² from a point to the wall, with the wall's point closest to it.
    let to_wall = |x: [f64; 3]| {
        let t = if ww > 0.0 {
            (dot64(sub64(x, w0), w) / ww).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let p = [w0[0] + t * w[0], w0[1] + t * w[1], w0[2] + t * w[2]];
        let e = sub64(x, p);
        (dot64(e, e), p)
    };
    let mut best: Option<f64> = None;
    if to_wall(o).0 <= r2 {
        best = Some(0.0);
    } else {
        let within = |u: f64| (0.0..=range).contains(&u);
        if ww > 0.0 {
            // The cylinder: components perpendicular to the wall. The capsule lies inside
            // it, so where the ray enters it over the member (the projection inside), it
            // enters the capsule: the end spheres, inside the cylinder too, are entered no
            // earlier.
            let perp = |x: [f64; 3]| {
                let k = dot64(x, w) / ww;
                [x[0] - k * w[0], x[1] - k * w[1], x[2] - k * w[2]]
            };
            let (q, v) = (perp(sub64(o, w0)), perp(d));
            if let Some(u) = entry_root(dot64(v, v), dot64(q, v), dot64(q, q) - r2) {
                let c = [o[0] + u * d[0], o[1] + u * d[1], o[2] + u * d[2]];
                let t = dot64(sub64(c, w0), w) / ww;
                if within(u) && (0.0..=1.0).contains(&t) {
                    best = Some(u);
                }
            }
        }
        if best.is_none() {
            let dd = dot64(d, d);
            for p in [w0, w1] {
                let q = sub64(o, p);
                if let Some(u) = entry_root(dd, dot64(d, q), dot64(q, q) - r2)
                    && within(u)
                    && best.is_none_or(|b| u < b)
                {
                    best = Some(u);
                }
            }
        }
    }
    let u = best?;
    let c = [o[0] + u * d[0], o[1] + u * d[1], o[2] + u * d[2]];
    Some((u, to_wall(c).1))
}

/// The better of two hits: the smaller `u`, then the lower index.
fn better<R: PartialOrd>(a: Option<FirstHit<R>>, b: FirstHit<R>) -> Option<FirstHit<R>> {
    match a {
        Some(a) if (&a.u, a.index) <= (&b.u, b.index) => Some(a),
        _ => Some(b),
    }
}

fn finite(p: &[f64; 3]) -> bool {
    p[0].is_finite() & p[1].is_finite() & p[2].is_finite()
}

/// Queries a task of the parallel index queries (at least, for the first hits' walk).
const RAY_BLOCK: usize = 256;

/// The results of `n` queries in order, appended to `out`: `block(first, len)` gives those
/// of the queries `first..first + len`, for blocks of [`RAY_BLOCK`] (on all cores when
/// `parallel`: the same list).
pub(super) fn in_blocks<H: Send>(
    n: usize,
    parallel: bool,
    block: impl Fn(usize, usize) -> Vec<H> + Sync,
    out: &mut Vec<H>,
) {
    let starts: Vec<usize> = (0..n).step_by(RAY_BLOCK).collect();
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        let parts: Vec<Vec<H>> = starts
            .par_iter()
            .map(|&f| block(f, RAY_BLOCK.min(n - f)))
            .collect();
        out.extend(parts.into_iter().flatten());
        return;
    }
    let _ = parallel;
    for f in starts {
        out.extend(block(f, RAY_BLOCK.min(n - f)));
    }
}

/// The first hits of `rays` in `bvh`'s set, into `out`: the body of both indexes'
/// `first_hits` forms.
pub(super) fn first_hits_run<
    W: Member,
    T: Record<6, E> + Member,
    E: bytemuck::Pod + Into<f64> + Sync,
>(
    bvh: &Bvh8<W>,
    rays: Rays<'_, T, E>,
    radius: PerRay<'_, W::Real>,
    range: PerRay<'_, W::Real>,
    parallel: bool,
    out: &mut Vec<Option<FirstHit<W::Real>>>,
) -> Result<(), Error> {
    out.clear();
    rays.check()?;
    radius.check("radii of the rays", rays.len(), |index| {
        Error::InvalidRadius { index }
    })?;
    range.check("ranges of the rays", rays.len(), |index| {
        Error::InvalidRange { index }
    })?;
    check_u32(rays.len())?;
    if out.try_reserve(rays.len()).is_err() {
        return Err(Error::OutOfMemory {
            what: "first hits",
            elements: rays.len(),
        });
    }
    // The hits of the rays `first..first + hits.len()`, cast in the order of their origins
    // along a Morton curve over the set's box: consecutive rays then walk the same nodes and
    // walls while they are in cache.
    let cast =
        |first: usize, hits: &mut [Option<FirstHit<W::Real>>], stacks: &mut [Stack; WALKS]| {
            let codes: Vec<u32> = (first..first + hits.len())
                .map(|i| bvh.morton(rays.origin(i)))
                .collect();
            let query = |k: u32| {
                let i = first + k as usize;
                let (o, d) = rays.at(i);
                Query::new(o, d, radius.get(i).into(), range.get(i).into())
            };
            let order = morton_order(&codes);
            let mut run = Run {
                bvh,
                order: order.iter(),
                query,
                hits,
                slots: Default::default(),
            };
            bvh.cast_all(&mut run, stacks);
        };
    out.resize(rays.len(), None);
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        // One pass on all cores: each task orders, walks and writes back its own run of
        // rays (a thread's share), so nothing runs on one thread between parts and no
        // second list in ray order is needed. The runs are as long as they can be: the
        // fewer rays a run has, the farther apart its consecutive rays start and the less
        // of the tree one ray leaves in cache for the next (runs of a quarter of a
        // thread's share took 1.5-1.7x the time on the dense walls of Zen 3's 1 MB L2). One
        // order over all the rays, walked on all cores and written back on one, took as
        // long on two threads; gathered back on all cores, 1.08x as long.
        let run = rays
            .len()
            .div_ceil(rayon::current_num_threads())
            .max(RAY_BLOCK);
        out.par_chunks_mut(run)
            .enumerate()
            .for_each_init(<[Stack; WALKS]>::default, |stacks, (k, hits)| {
                cast(k * run, hits, stacks)
            });
        return Ok(());
    }
    let _ = parallel;
    cast(0, out, &mut Default::default());
    Ok(())
}

/// The indices `0..codes.len()` ordered by the top twenty bits of their 30-bit Morton
/// codes (cells of about a hundredth of the box's extent a side, finer than the rays'
/// coherence needs), ties by index: two stable counting passes over ten bits each (least
/// significant first), a few operations a ray where a comparison sort of `(code, index)`
/// keys took about a hundred.
fn morton_order(codes: &[u32]) -> Vec<u32> {
    const BITS: u32 = 10;
    let mut order: Vec<u32> = (0..codes.len() as u32).collect();
    let mut next = vec![0u32; codes.len()];
    for pass in 1..3 {
        let digit = |i: u32| ((codes[i as usize] >> (pass * BITS)) & ((1 << BITS) - 1)) as usize;
        let mut start = [0u32; 1 << BITS];
        for &i in &order {
            start[digit(i)] += 1;
        }
        let mut sum = 0;
        for s in &mut start {
            (*s, sum) = (sum, sum + *s);
        }
        for &i in &order {
            let d = digit(i);
            next[start[d] as usize] = i;
            start[d] += 1;
        }
        core::mem::swap(&mut order, &mut next);
    }
    order
}

/// A ray's query in `f64`: origin, direction, radius and range, and the origin's
/// [`magnitude`], which every decision of the ray scales its tolerance by.
#[derive(Clone, Copy, Default)]
struct Query {
    o: [f64; 3],
    d: [f64; 3],
    radius: f64,
    range: f64,
    origin_scale: f64,
}

impl Query {
    fn new(o: [f64; 3], d: [f64; 3], radius: f64, range: f64) -> Self {
        let origin_scale = magnitude(&o);
        Query {
            o,
            d,
            radius,
            range,
            origin_scale,
        }
    }

    /// The ray's slab-test set-up ([`Bvh8::prepare`]), for a finite ray and a tree with
    /// members; `None` when the ray cannot walk the tree.
    fn walkable<W: Member>(&self, bvh: &Bvh8<W>) -> Option<RayPrep> {
        if finite(&self.o) && finite(&self.d) && !bvh.is_empty() {
            bvh.prepare(self.o, self.d, self.radius, self.origin_scale)
        } else {
            None
        }
    }

    /// Member `k` (tree order) decided for this ray, the better hit kept in `best`.
    fn decide<W: Member>(&self, bvh: &Bvh8<W>, k: usize, best: &mut Option<FirstHit<W::Real>>) {
        let (wall, id) = bvh.wall(k);
        // The tree's members are finite, and so are the ray and (checked) its radius and
        // range: the decision without [`pair_hit`]'s checks.
        let Query {
            o,
            d,
            radius,
            range,
            origin_scale,
        } = *self;
        if let Some(mut hit) = decided_hit::<W>(o, d, radius, origin_scale, range, &wall.wide()) {
            hit.index = id;
            *best = better(*best, hit);
        }
    }
}

/// Rays walked at once by [`Bvh8::cast_all`] (its most): four walks keep more node loads in
/// flight than two, which still waited on memory (with the packed push, 0.92x the time of
/// two with the loop push; three measured the same as four).
const WALKS: usize = 4;

/// A ray's walk in progress: its position in the run, query, starting bound and best hit
/// so far.
struct Slot<R> {
    ray: u32,
    q: Query,
    start: f32,
    best: Option<FirstHit<R>>,
}

impl<R> Default for Slot<R> {
    fn default() -> Self {
        Slot {
            ray: 0,
            q: Query::default(),
            start: 0.0,
            best: None,
        }
    }
}

/// The first hits of a run of rays as [`Bvh8::cast_all`] walks them: the queue of rays (in
/// the order of their origins), the walks in progress and the run's hits.
struct Run<'b, W: Member, Q> {
    bvh: &'b Bvh8<W>,
    order: core::slice::Iter<'b, u32>,
    /// Ray `k` of the run's query.
    query: Q,
    hits: &'b mut [Option<FirstHit<W::Real>>],
    slots: [Slot<W::Real>; WALKS],
}

impl<W: Member, Q: Fn(u32) -> Query> Walks for Run<'_, W, Q> {
    fn next(&mut self, slot: usize) -> Option<(RayPrep, f32)> {
        for &ray in self.order.by_ref() {
            let q = (self.query)(ray);
            let Some(prep) = q.walkable(self.bvh) else {
                self.hits[ray as usize] = unwalked(self.bvh, &q);
                continue;
            };
            let start = prep.bound(q.range);
            self.slots[slot] = Slot {
                ray,
                q,
                start,
                best: None,
            };
            return Some((prep, start));
        }
        None
    }

    fn visit(&mut self, slot: usize, prep: &RayPrep, k: usize) -> f32 {
        let s = &mut self.slots[slot];
        s.q.decide(self.bvh, k, &mut s.best);
        s.best.map_or(s.start, |b| prep.bound(b.u.into()))
    }

    fn done(&mut self, slot: usize) {
        let s = &self.slots[slot];
        self.hits[s.ray as usize] = s.best;
    }
}

/// The first hit of a ray the tree cannot walk ([`Query::walkable`]): none for a ray that
/// is not finite, else the best of every member.
fn unwalked<W: Member>(bvh: &Bvh8<W>, q: &Query) -> Option<FirstHit<W::Real>> {
    let mut best = None;
    if finite(&q.o) && finite(&q.d) {
        for k in 0..bvh.len() {
            q.decide(bvh, k, &mut best);
        }
    }
    best
}

/// The first hit of the ray from `o` along `d` on one member: `None` unless the sphere of
/// `radius` moving along the ray over `[0, range]` touches it (see
/// [`SegmentIndex`](super::SegmentIndex)); `index` is 0.
#[inline]
fn pair_hit<W: Member>(
    o: [f64; 3],
    d: [f64; 3],
    radius: f64,
    range: f64,
    wall: &W,
) -> Option<FirstHit<W::Real>> {
    let wall = wall.wide();
    if !(finite(&o) && finite(&d) && finite(&wall.p0) && finite(&wall.p1))
        || radius.is_nan()
        || range.is_nan()
    {
        return None;
    }
    decided_hit::<W>(o, d, radius, magnitude(&o), range, &wall)
}

/// [`pair_hit`] for a finite ray and member, a radius and range that are not NaN, and
/// `origin_scale` the [`magnitude`] of `o`.
#[inline]
fn decided_hit<W: Member>(
    o: [f64; 3],
    d: [f64; 3],
    radius: f64,
    origin_scale: f64,
    range: f64,
    wall: &Segment64,
) -> Option<FirstHit<W::Real>> {
    let touch = contact_radius(radius, origin_scale, wall, W::TOLERANCE);
    let (u, point) = first_contact(o, d, touch, range, wall)?;
    Some(FirstHit {
        index: 0,
        u: W::narrow(u),
        point: point.map(W::narrow),
    })
}

/// The first hit of one ray on one member: `None` unless the sphere of `radius` moving
/// along the ray over `[0, range]` touches it (see [`SegmentIndex`](super::SegmentIndex)).
pub(crate) fn first_hit_pair<W: Member>(
    ray: &W,
    radius: W::Real,
    range: W::Real,
    wall: &W,
) -> Option<FirstHit<W::Real>> {
    let (o, d) = segment_ray(&ray.wide());
    pair_hit(o, d, radius.into(), range.into(), wall)
}

#[cfg(test)]
mod tests {
    use super::morton_order;
    use segbatch_testkit::Rng;

    /// The radix order is the comparison sort of `(code >> 10, index)`, on codes with many
    /// ties and on codes spread over all 30 bits.
    #[test]
    fn morton_order_is_the_sorted_order() {
        let mut rng = Rng::new(7);
        for mask in [0x3fff_ffffu32, 0x3f, 0xfc00, 0x3ff0_0c01] {
            let codes: Vec<u32> = (0..5000).map(|_| rng.next_u64() as u32 & mask).collect();
            let mut keys: Vec<u64> = (0..codes.len())
                .map(|i| (u64::from(codes[i] >> 10) << 32) | i as u64)
                .collect();
            keys.sort_unstable();
            let sorted: Vec<u32> = keys.iter().map(|&k| k as u32).collect();
            assert_eq!(morton_order(&codes), sorted, "mask {mask:#x}");
        }
        assert!(morton_order(&[]).is_empty());
    }
}
