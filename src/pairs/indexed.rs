//! The narrow phase over index pairs: an engine's broad phase (or this crate's set
//! queries) names candidate pairs `(i, j)` of one or two sets, and these queries run the
//! kernel on exactly those pairs.
//!
//! The lanes are gathered straight from the sets' SoA columns, a few hundred pairs at a
//! time into an L1-resident buffer ([`Gathered`]), so no pair of batches is built
//! and the memory traffic is the sets' rows the pairs touch. Result `k` is the pair
//! `pairs[k]`, bit for bit what the pairwise query gives for `(a[i], b[j])`.
//!
//! The contact of two touching capsules is documented on [`CapsuleContact`].
//!
//! Each query runs in the precision of its sets ([`Element`]): over
//! [`Segments64`](crate::Segments64) the gather stages `f64` columns (there are no row
//! copies in `f64`) and the kernels run over the `f64` lanes; the contact rule is one body
//! over the precision.

use super::capsule::{run_touch, run_touch64};
use super::closest::{Pairwise, drive, drive64};
use super::contact::{CapsuleContact, Closest3, Core, manifold, touches};
use super::element::Element;
use super::element::sealed::Indexed3;
use super::types::{ClosestBatch, ClosestBatch64, Outputs, PairMask, Radii};
use crate::batch::{Error, Record, Segments64View, SegmentsView, SoaView, check_pairs, check_u32};
use crate::columns::Cell;
use crate::driver::{Gathered, Rows};
use crate::forms::query_forms;
use crate::kernel::Splat;
use crate::lanes::F64Lanes;
use crate::real::Real;
use crate::segment::Options;
use bytemuck::Pod;

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
        <'a, 'b, 'p; E: Element>(a: impl Into<SegmentsView<'a, E>>, b: impl Into<SegmentsView<'b, E>>, pairs: &'p [(u32, u32)])
        with (options: &Options = &Options::SEGMENTS, outputs: Outputs = Outputs::ALL)
        -> ClosestBatch<E> = E::closest_indexed;
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

/// One side's six columns and its per-object radii as a seventh (`f32` or `f64`).
fn with_radius<'c, E>(cols: [&'c [E]; 6], r: &'c [E]) -> [&'c [E]; 7] {
    core::array::from_fn(|k| if k < 6 { cols[k] } else { r })
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
        <'a, 'b, 'p; E: Element>(a: impl Into<SegmentsView<'a, E>>, b: impl Into<SegmentsView<'b, E>>, pairs: &'p [(u32, u32)], radii: Radii<'_, E>)
        with (options: &Options = &Options::SEGMENTS)
        -> PairMask = E::touch_indexed;
    /// The general form of [`capsules_touch_indexed`]: options, the mask written into `out`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for a pair naming an element past the end of its set;
    /// [`Error::LengthMismatch`] when per-object radii do not match their sets (`out` is
    /// then empty).
    into;
}

/// `f32`: eight pairs gather as sixteen row loads and two transposes from row copies of
/// the sets, made when the pairs outnumber the rows to copy ([`Rows::new`]).
impl Indexed3 for f32 {
    fn closest_indexed(
        a: SegmentsView<'_>,
        b: SegmentsView<'_>,
        pairs: &[(u32, u32)],
        options: &Options,
        outputs: Outputs,
        parallel: bool,
        out: &mut ClosestBatch,
    ) -> Result<(), Error> {
        check_pairs(pairs, a.len(), b.len())?;
        let rows = Rows::new(a.columns(), b.columns(), pairs.len());
        let input = gathered(&a, &b, pairs, rows.as_ref());
        let kernel = Pairwise {
            splat: Splat::new(&options.params()),
        };
        drive(&kernel, input, pairs.len(), outputs, parallel, out);
        Ok(())
    }

    fn touch_indexed(
        a: SegmentsView<'_>,
        b: SegmentsView<'_>,
        pairs: &[(u32, u32)],
        radii: Radii<'_>,
        options: &Options,
        parallel: bool,
        out: &mut PairMask,
    ) -> Result<(), Error> {
        out.reset(0);
        radii.check_objects(a.len(), b.len())?;
        check_pairs(pairs, a.len(), b.len())?;
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
}

/// `f64`: the pairs' rows gathered straight from the columns.
impl Indexed3 for f64 {
    fn closest_indexed(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        pairs: &[(u32, u32)],
        options: &Options,
        outputs: Outputs,
        parallel: bool,
        out: &mut ClosestBatch64,
    ) -> Result<(), Error> {
        check_pairs(pairs, a.len(), b.len())?;
        let kernel = Pairwise::<F64Lanes> {
            splat: Splat::new(&options.params64()),
        };
        let input = gathered64(&a, &b, pairs);
        drive64(&kernel, input, pairs.len(), outputs, parallel, out);
        Ok(())
    }

    fn touch_indexed(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        pairs: &[(u32, u32)],
        radii: Radii<'_, f64>,
        options: &Options,
        parallel: bool,
        out: &mut PairMask,
    ) -> Result<(), Error> {
        out.reset(0);
        radii.check_objects(a.len(), b.len())?;
        check_pairs(pairs, a.len(), b.len())?;
        let input = gathered64(&a, &b, pairs);
        let per_pair = |ra, rb| Gathered {
            a: with_radius(input.a, ra),
            b: with_radius(input.b, rb),
            pairs,
            rows: None,
        };
        run_touch64(radii, options, input, per_pair, pairs.len(), parallel, out);
        Ok(())
    }
}

/// Pairs per block of the contact query: the block's closest points (37 bytes a pair, 73
/// in `f64`) stay in L2 until its contacts are read out.
const CONTACT_BLOCK: usize = 4096;

/// Point on A, point on B, squared distance and parameters of result `k` of a
/// closest-points batch: what the contact rule reads.
#[inline]
fn closest_at<F: Real + Cell>(batch: &ClosestBatch<F>, k: usize) -> Closest3<F> {
    let hit = batch.get(k).expect("one result a pair");
    (hit.point_a, hit.point_b, hit.dist2, hit.s, hit.t)
}

/// The contacts of the pairs `pairs[offset..]` of one block, appended to `out`: their
/// closest points from `closest` (a block of pairs into a batch `B`, [`CONTACT_BLOCK`] at
/// a time), then each pair's manifold.
fn contacts_block<S, E>(
    (a, b): (&SoaView<'_, S, 6, E>, &SoaView<'_, S, 6, E>),
    pairs: &[(u32, u32)],
    offset: usize,
    radii: &Radii<'_, S::F>,
    closest: &impl Fn(&[(u32, u32)], &mut ClosestBatch<S::F>),
    out: &mut Vec<CapsuleContact<S::F>>,
) where
    S: Core + Record<6, E>,
    S::F: Cell,
    E: Pod,
{
    // A capsule is not in contact with itself: pairs (i, i) of one set are skipped.
    let same = a.len() == b.len() && a.columns()[0].as_ptr() == b.columns()[0].as_ptr();
    let mut batch = ClosestBatch::new();
    for (b_index, block) in pairs.chunks(CONTACT_BLOCK).enumerate() {
        closest(block, &mut batch);
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
            let (ra, rb) = radii.of(i, j);
            let closest = closest_at(&batch, k);
            // Most candidates do not touch: their segments are not read again (but for a
            // radius beyond `f64`'s range rule).
            let pair = || (a.at(i), b.at(j), closest.3, closest.4);
            if !touches::<S>(closest.2, ra, rb, pair) {
                continue;
            }
            let points = manifold(named, (&a.at(i), ra), (&b.at(j), rb), closest);
            out.extend(points.into_iter().flatten());
        }
    }
}

/// The contact query in either precision: checks, then the blocks of
/// [`contacts_block`] (in tasks of four blocks on all cores when `parallel`, from
/// [`PAR_MIN_PAIRS`](crate::driver::PAR_MIN_PAIRS) pairs on), in the order of `pairs`.
fn contacts_of<S, E>(
    (a, b): (SoaView<'_, S, 6, E>, SoaView<'_, S, 6, E>),
    pairs: &[(u32, u32)],
    radii: Radii<'_, S::F>,
    closest: &(impl Fn(&[(u32, u32)], &mut ClosestBatch<S::F>) + Sync),
    parallel: bool,
    out: &mut Vec<CapsuleContact<S::F>>,
) -> Result<(), Error>
where
    S: Core + Record<6, E> + Send + Sync,
    S::F: Cell + Send + Sync,
    E: Pod + Sync,
{
    out.clear();
    radii.check_objects(a.len(), b.len())?;
    check_pairs(pairs, a.len(), b.len())?;
    check_u32(pairs.len())?;
    #[cfg(feature = "rayon")]
    if parallel && pairs.len() >= crate::driver::PAR_MIN_PAIRS {
        use rayon::prelude::*;
        let per_task = 4 * CONTACT_BLOCK;
        let parts: Vec<Vec<CapsuleContact<S::F>>> = pairs
            .par_chunks(per_task)
            .enumerate()
            .map(|(t, chunk)| {
                let mut part = Vec::new();
                contacts_block((&a, &b), chunk, t * per_task, &radii, closest, &mut part);
                part
            })
            .collect();
        out.extend(parts.into_iter().flatten());
        return Ok(());
    }
    let _ = parallel;
    contacts_block((&a, &b), pairs, 0, &radii, closest, out);
    Ok(())
}

/// The contacts in the precision of `a` and `b`: the closest points of each block of
/// pairs, then the contact rule for the pairs that touch.
fn contacts<E: Element>(
    a: SegmentsView<'_, E>,
    b: SegmentsView<'_, E>,
    pairs: &[(u32, u32)],
    radii: Radii<'_, E>,
    options: &Options,
    parallel: bool,
    out: &mut Vec<CapsuleContact<E>>,
) -> Result<(), Error> {
    let closest = |block: &[(u32, u32)], batch: &mut ClosestBatch<E>| {
        E::closest_indexed(a, b, block, options, Outputs::ALL, false, batch)
            .expect("pairs checked");
    };
    contacts_of((a, b), pairs, radii, &closest, parallel, out)
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
        <'a, 'b, 'p; E: Element>(a: impl Into<SegmentsView<'a, E>>, b: impl Into<SegmentsView<'b, E>>, pairs: &'p [(u32, u32)], radii: Radii<'_, E>)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<CapsuleContact<E>> = contacts;
    /// The general form of [`capsule_contacts`]: options, contacts written into `out`
    /// (cleared first, allocation reused).
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for a pair naming an element past the end of its set;
    /// [`Error::LengthMismatch`] when per-object radii do not match their sets;
    /// [`Error::TooManyObjects`] for more than `u32::MAX` pairs (`out` is then empty).
    into;
}

/// The gathered `f64` columns of the pairs `(a[i], b[j])`, six a side.
fn gathered64<'v>(
    a: &Segments64View<'v>,
    b: &Segments64View<'v>,
    pairs: &'v [(u32, u32)],
) -> Gathered<'v, 6, 6, f64> {
    Gathered {
        a: a.columns(),
        b: b.columns(),
        pairs,
        rows: None,
    }
}
