//! 2D crossing sets: every pair of one set of 2D segments that meets, with
//! [`intersect2`](crate::planar::intersect2)'s semantics (a crossing or touching point, or a
//! collinear overlap), in `O(N log N + K)`.
//!
//! The 2D grid of [`crate::prune`] names the candidates (pairs whose inflated bounding
//! circles overlap: the inflation, `256·ε` times each segment's largest coordinate, covers
//! the `4·ε·S` touching tolerance), and the 2D kernel decides them over gathered index
//! pairs, so every reported pair and value is what `intersect2(set[i], set[j])` gives,
//! `i < j`, bit for bit. The grid takes every set (see [`crate::prune`] for extreme
//! coordinates); segments with a NaN or infinite coordinate never meet anything and are
//! left out ([`count_non_finite`](crate::sets::count_non_finite) counts them). The streamed form
//! hands bounded blocks on, the collected one refuses an output it cannot allocate.

use super::forms::{Intersections2, intersect2_indexed_into};
use super::types::{Crossing, Segments2, Segments2View};
use crate::batch::{Error, check_u32};
use crate::forms::{query_forms, stream_forms};
use crate::prune::{Grid, Kept, Layout, Narrow, Plan, rows_to_batch};

/// A pair of a 2D crossing set, 16 bytes: `set[i]` meets `set[j]` (`i < j`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CrossHit {
    /// Index of the first segment.
    pub i: u32,
    /// Index of the second segment (`j > i`).
    pub j: u32,
    /// Parameter on `set[i]` of the meeting point, or of the start of the overlap
    /// ([`Intersection2::s`](crate::planar::Intersection2::s)); the point is `set[i].at(s)`.
    pub s: f32,
    /// How they meet: [`Crossing::Point`] or [`Crossing::Overlap`].
    pub kind: Crossing,
}

/// The narrow phase of the crossing set: the 2D kernel over gathered index pairs, read
/// from a copy of the set in the grid's order (by position).
struct Meet {
    sorted: Segments2,
}

impl Narrow<2> for Meet {
    type Hit = CrossHit;
    type Scratch = Intersections2;

    fn split(&self) -> Option<u32> {
        None
    }

    type Probe = ();

    fn pair(hit: &CrossHit) -> (u32, u32) {
        (hit.i, hit.j)
    }

    fn decide(
        &self,
        ids: &[u32],
        candidates: &[(u32, u32)],
        scratch: &mut Intersections2,
        out: &mut Kept<CrossHit>,
    ) {
        intersect2_indexed_into(&self.sorted, &self.sorted, candidates, scratch)
            .expect("the grid names segments of the set");
        let (kind, s) = (scratch.kind(), scratch.s());
        for (k, &(p, q)) in candidates.iter().enumerate() {
            if kind[k] != Crossing::Disjoint {
                out.push(CrossHit {
                    i: ids[p as usize],
                    j: ids[q as usize],
                    s: s[k],
                    kind: kind[k],
                });
            }
        }
    }
}

/// The plan of a crossing set: the grid of [`crate::prune`] takes every set of at most
/// `u32::MAX` segments (the callers check that first), whatever its coordinates.
fn plan(set: Segments2View<'_>, parallel: bool) -> (Plan<2>, Meet) {
    let (grid, rows) = Grid::build(
        set.len(),
        |i| set.at(i),
        None,
        0.0,
        Layout::Columns,
        parallel,
    )
    .expect("a grid for radius 0 and at most u32::MAX segments");
    let sorted = rows_to_batch(&rows, parallel);
    (Plan::new(grid, 0.0), Meet { sorted })
}

fn crossings<'a>(
    set: impl Into<Segments2View<'a>>,
    parallel: bool,
    out: &mut Vec<CrossHit>,
) -> Result<(), Error> {
    let set = set.into();
    out.clear();
    check_u32(set.len())?;
    let (plan, narrow) = plan(set, parallel);
    let what = "crossing_pairs output";
    let done = plan.collect(&narrow, set.len(), |h| h, parallel, (what, &mut *out));
    if done.is_err() {
        out.clear();
    }
    done
}

query_forms! {
    /// Every pair `i < j` of `set` that meets (a point or a collinear overlap, touching
    /// included, as [`intersect2`](crate::planar::intersect2) decides), sorted by `(i, j)`.
    ///
    /// ```
    /// use segbatch::planar::{crossing_pairs, Crossing, Segment2, Segments2};
    /// // A path that crosses itself, and a piece lying along its first leg.
    /// let set = Segments2::from(&[
    ///     Segment2::new([0.0, 0.0], [4.0, 0.0]),
    ///     Segment2::new([4.0, 0.0], [2.0, 2.0]),
    ///     Segment2::new([2.0, 2.0], [2.0, -1.0]),
    ///     Segment2::new([1.0, 0.0], [3.0, 0.0]),
    /// ]);
    /// let hits = crossing_pairs(&set);
    /// let pairs: Vec<(u32, u32)> = hits.iter().map(|h| (h.i, h.j)).collect();
    /// assert_eq!(pairs, vec![(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)]);
    /// assert_eq!((hits[1].s, hits[1].kind), (0.5, Crossing::Point));
    /// assert_eq!(hits[2].kind, Crossing::Overlap);
    /// ```
    pub fn crossing_pairs / crossing_pairs_into / par_crossing_pairs / par_crossing_pairs_into
        <'a>(set: impl Into<Segments2View<'a>>)
        with ()
        -> Vec<CrossHit> = crossings;
    /// [`crossing_pairs`] writing into `out` (cleared first, allocation reused, grown with
    /// `try_reserve`).
    ///
    /// # Errors
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments;
    /// [`Error::OutOfMemory`] when the output cannot grow to the crossings found (`out` is
    /// then empty; [`for_each_crossing_pair`] streams them instead).
    into;
}

fn each<'a>(
    set: impl Into<Segments2View<'a>>,
    parallel: bool,
    sink: &mut dyn FnMut(&[CrossHit]),
) -> Result<(), Error> {
    let set = set.into();
    check_u32(set.len())?;
    let (plan, narrow) = plan(set, parallel);
    plan.each(&narrow, parallel, <[CrossHit]>::to_vec, |block| {
        sink(&block);
        true
    });
    Ok(())
}

stream_forms! {
    /// The streaming form of [`crossing_pairs`]: every meeting pair handed to `sink` in
    /// blocks of at most [`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS), whatever the set's
    /// layout (30K copies of one segment, 4.5e8 crossings, stream like any other set), in
    /// memory for a few blocks (a few a thread for the parallel form); the pairs and values
    /// of [`crossing_pairs`], in the grid's order.
    ///
    /// ```
    /// use segbatch::planar::{for_each_crossing_pair, Segment2, Segments2};
    /// // A grid of 30 horizontal and 30 vertical streets: 900 crossings.
    /// let set: Segments2 = (0..60).map(|k| {
    ///     let c = (k % 30) as f32;
    ///     if k < 30 { Segment2::new([-1.0, c], [30.0, c]) } else { Segment2::new([c, -1.0], [c, 30.0]) }
    /// }).collect();
    /// let mut count = 0;
    /// for_each_crossing_pair(&set, |block| count += block.len())?;
    /// assert_eq!(count, 900);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments (`sink` is not called).
    pub fn for_each_crossing_pair / par_for_each_crossing_pair
        <'a>(set: impl Into<Segments2View<'a>>)
        -> sink(&[CrossHit]) = each;
}
