//! The narrow phase over index pairs: an engine's broad phase (or this crate's set
//! queries) names candidate pairs `(i, j)` of one or two sets, and these queries run the
//! kernel on exactly those pairs.
//!
//! The lanes are gathered straight from the sets' SoA columns, a few hundred pairs at a
//! time into an L1-resident buffer ([`driver::Gathered`]), so no pair of batches is built
//! and the memory traffic is the sets' rows the pairs touch. Result `k` is the pair
//! `pairs[k]`, bit for bit what the pairwise query gives for `(a[i], b[j])`.
//!
//! The contact of two touching capsules is documented on [`CapsuleContact`].

use super::capsule::{PairMask, Radii, run_touch};
use super::closest::{ClosestBatch, Outputs, Pairwise, drive};
use crate::batch::{Error, SegmentsView, check_pairs, check_u32};
use crate::driver::{Gathered, Rows};
use crate::forms::query_forms;
use crate::kernel::Splat;
use crate::segment::{Options, Segment};

/// The gathered columns of the pairs `(a[i], b[j])`, six a side, from `rows` when given.
fn gathered<'v>(
    a: &SegmentsView<'v>,
    b: &SegmentsView<'v>,
    pairs: &'v [(u32, u32)],
    rows: Option<&'v Rows>,
) -> Gathered<'v, 6, 6> {
    Gathered {
        a: a.columns(),
        b: b.columns(),
        pairs,
        rows: rows.map(Rows::get),
    }
}

fn closest_indexed<'a, 'b, 'p>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    pairs: &'p [(u32, u32)],
    options: &Options,
    outputs: Outputs,
    parallel: bool,
    out: &mut ClosestBatch,
) -> Result<(), Error> {
    let (a, b) = (a.into(), b.into());
    check_pairs(pairs, a.len(), b.len())?;
    let rows = Rows::new(a.columns(), b.columns(), pairs.len());
    let input = gathered(&a, &b, pairs, rows.as_ref());
    let kernel = Pairwise {
        splat: Splat::new(&options.params()),
    };
    drive(&kernel, input, pairs.len(), outputs, parallel, out);
    Ok(())
}

/// [`closest_points_indexed_into`] for pairs `(i, j)` of sets the caller copied into
/// `rows`, as the set queries do: eight pairs gather as sixteen row loads and two
/// transposes. Indices past the rows panic.
pub(crate) fn closest_rows_into(
    rows: &Rows,
    pairs: &[(u32, u32)],
    options: &Options,
    outputs: Outputs,
    out: &mut ClosestBatch,
) {
    let input = Gathered {
        a: [&[]; 6],
        b: [&[]; 6],
        pairs,
        rows: Some(rows.get()),
    };
    let kernel = Pairwise {
        splat: Splat::new(&options.params()),
    };
    drive(&kernel, input, pairs.len(), outputs, false, out);
}

query_forms! {
    /// Closest points of `a[i]` and `b[j]` for every index pair `(i, j)` of `pairs`, in
    /// order: result `k` is exactly what [`closest_points`](crate::closest_points) gives for
    /// the pair `(a[i], b[j])`. Segment against segment, every output column. `a` and `b`
    /// may be the same set.
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// use segbatch::pairs::closest_points_indexed;
    /// let set = Segments::from(&[
    ///     Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]),
    ///     Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0]),
    ///     Segment::new([0.0, 0.0, 5.0], [2.0, 0.0, 5.0]),
    /// ]);
    /// let out = closest_points_indexed(&set, &set, &[(0, 1), (0, 2)]);
    /// assert_eq!(out.dist2(), &[1.0, 25.0]);
    /// assert_eq!(out.s()[0], 0.5);
    /// ```
    pub fn closest_points_indexed / closest_points_indexed_into
        / par_closest_points_indexed / par_closest_points_indexed_into
        <'a, 'b, 'p>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>, pairs: &'p [(u32, u32)])
        with (options: &Options = &Options::SEGMENTS, outputs: Outputs = Outputs::ALL)
        -> ClosestBatch = closest_indexed;
    /// The general form of [`closest_points_indexed`]: extents and tolerance from
    /// `options` (`extent_a` for the first index's set), only the `outputs` columns, the
    /// results written into `out` (its buffers reused).
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for the first pair naming an element past the end of its
    /// set (`out` is then unchanged).
    ///
    /// ```
    /// use segbatch::{ClosestBatch, Error, Options, Outputs, Segment, Segments};
    /// use segbatch::pairs::closest_points_indexed_into;
    /// let set = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0]); 2]);
    /// let mut out = ClosestBatch::new();
    /// let bad = closest_points_indexed_into(&set, &set, &[(0, 1), (1, 2)], &Options::SEGMENTS, Outputs::DISTANCE, &mut out);
    /// assert_eq!(bad, Err(Error::IndexOutOfRange { pair: 1, index: 2, len: 2 }));
    /// ```
    into;
}

fn touch_indexed<'a, 'b, 'p>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    pairs: &'p [(u32, u32)],
    radii: Radii<'_>,
    options: &Options,
    parallel: bool,
    out: &mut PairMask,
) -> Result<(), Error> {
    let (a, b) = (a.into(), b.into());
    out.reset(0);
    radii.check_objects(a.len(), b.len())?;
    check_pairs(pairs, a.len(), b.len())?;
    fn with_radius<'c>(cols: [&'c [f32]; 6], r: &'c [f32]) -> [&'c [f32]; 7] {
        core::array::from_fn(|k| if k < 6 { cols[k] } else { r })
    }
    // Per-object radii are a seventh column, in the rows too.
    let rows = match radii.as_per_pair() {
        Some((ra, rb)) => Rows::new(
            with_radius(a.columns(), ra),
            with_radius(b.columns(), rb),
            pairs.len(),
        ),
        None => Rows::new(a.columns(), b.columns(), pairs.len()),
    };
    let input = gathered(&a, &b, pairs, rows.as_ref());
    let per_pair = |ra, rb| Gathered {
        a: with_radius(input.a, ra),
        b: with_radius(input.b, rb),
        pairs,
        rows: input.rows,
    };
    run_touch(radii, options, input, per_pair, pairs.len(), parallel, out);
    Ok(())
}

query_forms! {
    /// Does capsule `(a[i], rA)` touch capsule `(b[j], rB)`, for every index pair `(i, j)`
    /// of `pairs`? Bit `k` is [`capsules_touch`](crate::pairs::capsules_touch)'s answer for the
    /// pair `(a[i], b[j])`. Radii uniform or per object ([`Radii::per_object`]).
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// use segbatch::pairs::{capsules_touch_indexed, Radii};
    /// let set: Segments = (0..4).map(|k| {
    ///     let y = k as f32;
    ///     Segment::new([0.0, y, 0.0], [2.0, y, 0.0])
    /// }).collect();
    /// // A broad phase's candidates: neighbours 1 apart touch at radius 0.5, 2 apart do not.
    /// let mask = capsules_touch_indexed(&set, &set, &[(0, 1), (0, 2), (2, 3)], Radii::uniform(0.5, 0.5)?);
    /// assert_eq!(mask.iter_ones().collect::<Vec<_>>(), vec![0, 2]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn capsules_touch_indexed / capsules_touch_indexed_into
        / par_capsules_touch_indexed / par_capsules_touch_indexed_into
        <'a, 'b, 'p>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>, pairs: &'p [(u32, u32)], radii: Radii<'_>)
        with (options: &Options = &Options::SEGMENTS)
        -> PairMask = touch_indexed;
    /// The general form of [`capsules_touch_indexed`]: options, the mask written into `out`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for a pair naming an element past the end of its set;
    /// [`Error::LengthMismatch`] when per-object radii do not match their sets (`out` is
    /// then empty).
    into;
}

/// The contact of two touching capsules, from [`capsule_contacts`].
///
/// # Capsule contacts
///
/// For the pairs whose capsules touch ([`capsules_touch`](crate::pairs::capsules_touch)'s test,
/// `dist2 <= (rA + rB)²` in `f32`), [`capsule_contacts`] reports what a physics engine's
/// solver needs: the unit normal pointing from B to A, the depth `rA + rB - distance`,
/// and the contact points on the two capsule surfaces. The normal is the closest points'
/// separation `C - D`, normalised after scaling by its largest component (so separations of
/// 1e-30 still give a unit normal). When the core segments touch or cross (`C - D` is
/// exactly zero) it falls back, in order, to the cross product of the two directions
/// (oriented from B's midpoint towards A's), then to a direction perpendicular to A (or B,
/// if A is a point), and for two points to `+z`.
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
/// keeps its single closest-point contact. [`reference::capsule_contact`](crate::reference::capsule_contact)
/// is the scalar twin of the rule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CapsuleContact {
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
    pub normal: [f32; 3],
    /// Penetration depth `rA + rB - distance` (zero when they just touch).
    pub depth: f32,
    /// Deepest point of capsule A towards B: `C - rA·normal`.
    pub point_a: [f32; 3],
    /// Deepest point of capsule B towards A: `D + rB·normal`.
    pub point_b: [f32; 3],
}

/// `v / |v|`, scaled by its largest component first; `None` for a zero or non-finite `v`.
fn unit(v: [f32; 3]) -> Option<[f32; 3]> {
    let m = v.iter().fold(0.0f32, |acc, x| acc.max(x.abs()));
    if !(m > 0.0 && m.is_finite()) {
        return None;
    }
    let u = v.map(|x| x / m);
    let len = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
    Some(u.map(|x| x / len))
}

fn cross(u: [f32; 3], v: [f32; 3]) -> [f32; 3] {
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

/// A direction perpendicular to `d` (`None` for a zero `d`): `d × e`, `e` the axis of `d`'s
/// smallest component.
fn perpendicular(d: [f32; 3]) -> Option<[f32; 3]> {
    let d = unit(d)?;
    let k = (0..3)
        .min_by(|&p, &q| d[p].abs().total_cmp(&d[q].abs()))
        .unwrap_or(0);
    let mut e = [0.0; 3];
    e[k] = 1.0;
    unit(cross(d, e))
}

/// The contact normal of capsules with cores `a`, `b` and closest points `c`, `d` (see the
/// module docs).
fn contact_normal(a: &Segment, b: &Segment, c: [f32; 3], d: [f32; 3]) -> [f32; 3] {
    if let Some(n) = unit(core::array::from_fn(|k| c[k] - d[k])) {
        return n;
    }
    let (da, db) = (a.direction(), b.direction());
    if let Some(n) = unit(cross(da, db)) {
        let (ma, mb) = (a.at(0.5), b.at(0.5));
        let towards: f32 = (0..3).map(|k| n[k] * (ma[k] - mb[k])).sum();
        return if towards < 0.0 { n.map(|x| -x) } else { n };
    }
    perpendicular(da)
        .or_else(|| perpendicular(db))
        .unwrap_or([0.0, 0.0, 1.0])
}

/// Who a contact names: the position of its pair in the list and the pair's objects
/// `(pair, i, j)`.
pub(crate) type Named = (u32, u32, u32);

/// The contact of capsules `(a, ra)` and `(b, rb)` whose cores' closest points are `c`
/// and `d` at squared distance `dist2`, when they touch.
pub(crate) fn contact(
    (pair, i, j): Named,
    (a, ra): (&Segment, f32),
    (b, rb): (&Segment, f32),
    (c, d, dist2): ([f32; 3], [f32; 3], f32),
) -> Option<CapsuleContact> {
    let r = ra + rb;
    // NaN (non-finite input) never touches.
    if dist2.is_nan() || dist2 > r * r {
        return None;
    }
    let normal = contact_normal(a, b, c, d);
    Some(CapsuleContact {
        pair,
        i,
        j,
        normal,
        depth: r - dist2.sqrt(),
        point_a: core::array::from_fn(|k| c[k] - ra * normal[k]),
        point_b: core::array::from_fn(|k| d[k] + rb * normal[k]),
    })
}

/// Core directions within this sine of parallel get a two-point manifold (about 0.57°).
pub const MANIFOLD_SIN: f32 = 0.01;

fn dot(u: [f32; 3], v: [f32; 3]) -> f32 {
    u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
}

fn sub(u: [f32; 3], v: [f32; 3]) -> [f32; 3] {
    core::array::from_fn(|k| u[k] - v[k])
}

/// The two ends of the overlap of B's projection onto A, when the cores are within
/// [`MANIFOLD_SIN`] of parallel and the overlap has a length: the contact points and
/// depths measured along `normal` at `s = lo` and `s = hi`, both touching.
fn overlap_ends(
    (pair, i, j): Named,
    (a, ra): (&Segment, f32),
    (b, rb): (&Segment, f32),
    normal: [f32; 3],
) -> Option<[CapsuleContact; 2]> {
    let (da, db) = (a.direction(), b.direction());
    let (la2, lb2) = (dot(da, da), dot(db, db));
    let n = cross(da, db);
    let sin2 = MANIFOLD_SIN * MANIFOLD_SIN;
    // False for NaN and overflow too: no manifold then.
    let parallel = la2 > 0.0
        && lb2 > 0.0
        && la2.is_finite()
        && lb2.is_finite()
        && dot(n, n) <= sin2 * la2 * lb2;
    if !parallel {
        return None;
    }
    let sb0 = dot(sub(b.p0, a.p0), da) / la2;
    let sb1 = dot(sub(b.p1, a.p0), da) / la2;
    let lo = sb0.min(sb1).max(0.0);
    let hi = sb0.max(sb1).min(1.0);
    let overlap = hi > lo;
    if !overlap {
        return None;
    }
    let r = ra + rb;
    let end = |s: f32| {
        let c = a.at(s);
        let t = (dot(sub(c, b.p0), db) / lb2).clamp(0.0, 1.0);
        let d = b.at(t);
        let depth = r - dot(sub(c, d), normal);
        (depth >= 0.0).then(|| CapsuleContact {
            pair,
            i,
            j,
            normal,
            depth,
            point_a: core::array::from_fn(|k| c[k] - ra * normal[k]),
            point_b: core::array::from_fn(|k| d[k] + rb * normal[k]),
        })
    };
    Some([end(lo)?, end(hi)?])
}

/// The contact manifold of capsules `(a, ra)` and `(b, rb)` whose cores' closest points are
/// `c` and `d` at squared distance `dist2` (see [`CapsuleContact`]): nothing when they do
/// not touch, two points for (near-)parallel overlapping cores, one otherwise.
pub(crate) fn manifold(
    named: Named,
    (a, ra): (&Segment, f32),
    (b, rb): (&Segment, f32),
    closest: ([f32; 3], [f32; 3], f32),
) -> [Option<CapsuleContact>; 2] {
    let Some(one) = contact(named, (a, ra), (b, rb), closest) else {
        return [None, None];
    };
    match overlap_ends(named, (a, ra), (b, rb), one.normal) {
        Some([p, q]) => [Some(p), Some(q)],
        None => [Some(one), None],
    }
}

/// Pairs per block of the contact query: the block's closest points (37 bytes a pair) stay
/// in L2 until its contacts are read out.
const CONTACT_BLOCK: usize = 4096;

/// The contacts of the pairs `pairs[offset..]` of one block, appended to `out`.
fn contacts_block(
    (a, b): (&SegmentsView<'_>, &SegmentsView<'_>),
    pairs: &[(u32, u32)],
    offset: usize,
    radii: &Radii<'_>,
    options: &Options,
    out: &mut Vec<CapsuleContact>,
) {
    // A capsule is not in contact with itself: pairs (i, i) of one set are skipped.
    let same = a.len() == b.len() && a.columns()[0].as_ptr() == b.columns()[0].as_ptr();
    let mut closest = ClosestBatch::new();
    for (b_index, block) in pairs.chunks(CONTACT_BLOCK).enumerate() {
        closest_indexed(*a, *b, block, options, Outputs::ALL, false, &mut closest)
            .expect("pairs checked");
        for (k, &(i, j)) in block.iter().enumerate() {
            if same && i == j {
                continue;
            }
            let named = (
                // The caller checked that the pairs are at most `u32::MAX`.
                (offset + b_index * CONTACT_BLOCK + k) as u32,
                i,
                j,
            );
            let (i, j) = (i as usize, j as usize);
            let hit = closest.get(k).expect("one result a pair");
            let (ra, rb) = radii.of(i, j);
            let points = manifold(
                named,
                (&a.at(i), ra),
                (&b.at(j), rb),
                (hit.point_a, hit.point_b, hit.dist2),
            );
            out.extend(points.into_iter().flatten());
        }
    }
}

fn contacts<'a, 'b, 'p>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    pairs: &'p [(u32, u32)],
    radii: Radii<'_>,
    options: &Options,
    parallel: bool,
    out: &mut Vec<CapsuleContact>,
) -> Result<(), Error> {
    let (a, b) = (a.into(), b.into());
    out.clear();
    radii.check_objects(a.len(), b.len())?;
    check_pairs(pairs, a.len(), b.len())?;
    check_u32(pairs.len())?;
    #[cfg(feature = "rayon")]
    if parallel && pairs.len() >= crate::driver::PAR_MIN_PAIRS {
        use rayon::prelude::*;
        let per_task = 4 * CONTACT_BLOCK;
        let parts: Vec<Vec<CapsuleContact>> = pairs
            .par_chunks(per_task)
            .enumerate()
            .map(|(t, chunk)| {
                let mut part = Vec::new();
                contacts_block((&a, &b), chunk, t * per_task, &radii, options, &mut part);
                part
            })
            .collect();
        out.extend(parts.into_iter().flatten());
        return Ok(());
    }
    let _ = parallel;
    contacts_block((&a, &b), pairs, 0, &radii, options, out);
    Ok(())
}

query_forms! {
    /// The contacts of the touching capsules among the index pairs `(i, j)` of `pairs`
    /// (capsule `(a[i], rA)` against `(b[j], rB)`), in the order of `pairs`: normal, depth
    /// and points (see [`CapsuleContact`]). A pair is reported exactly when
    /// [`capsules_touch_indexed`] sets its bit, with two contacts (the same `pair` and
    /// normal, consecutive) for (near-)parallel overlapping capsules and one otherwise,
    /// each what [`reference::capsule_contact`](crate::reference::capsule_contact) gives
    /// (with the pair's position and its objects `i`, `j` filled in).
    /// When `a` and `b` are the same set, a pair `(i, i)` is never a contact.
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// use segbatch::pairs::{capsule_contacts, Radii};
    /// let set = Segments::from(&[
    ///     Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0]),
    ///     Segment::new([1.0, 0.75, -1.0], [1.0, 0.75, 1.0]), // 0.75 above the first
    ///     Segment::new([0.0, 9.0, 0.0], [2.0, 9.0, 0.0]),    // far away
    /// ]);
    /// let contacts = capsule_contacts(&set, &set, &[(1, 0), (0, 2)], Radii::uniform(0.5, 0.5)?);
    /// assert_eq!(contacts.len(), 1);
    /// let c = contacts[0];
    /// assert_eq!((c.pair, c.i, c.j, c.normal, c.depth), (0, 1, 0, [0.0, 1.0, 0.0], 0.25));
    /// assert_eq!((c.point_a, c.point_b), ([1.0, 0.25, 0.0], [1.0, 0.5, 0.0]));
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn capsule_contacts / capsule_contacts_into / par_capsule_contacts / par_capsule_contacts_into
        <'a, 'b, 'p>(a: impl Into<SegmentsView<'a>>, b: impl Into<SegmentsView<'b>>, pairs: &'p [(u32, u32)], radii: Radii<'_>)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<CapsuleContact> = contacts;
    /// The general form of [`capsule_contacts`]: options, contacts written into `out`
    /// (cleared first, allocation reused).
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for a pair naming an element past the end of its set;
    /// [`Error::LengthMismatch`] when per-object radii do not match their sets;
    /// [`Error::TooManyObjects`] for more than `u32::MAX` pairs (`out` is then empty).
    into;
}
