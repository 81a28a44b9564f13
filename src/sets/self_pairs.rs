//! All pairs `i < j` of one batch within a radius: self-intersection of a path, agents'
//! paths against each other, clearance checks inside one set.
//!
//! Pruned by the grid for segments (`O(N log N + K)`, see `within.rs`); brute force
//! over the upper triangle, tiled like [`pairs_within`](crate::sets::pairs_within), for rays and
//! lines. Both report the same pairs with the same values.

use super::element::SetElement;
use super::hits::{Hit, SharedEndpoints};
use super::radius::Radius;
use crate::batch::{Error, SegmentsView};
use crate::forms::query_forms;
use crate::segment::Options;

query_forms! {
    /// Every pair `i < j` of `set` whose squared distance is at most `radius²`, segment
    /// against segment, sorted by `(i, j)`. `radius` is one for every pair (a number of the set's precision) or
    /// one an object ([`Radius::Each`](crate::sets::Radius), from a slice): capsules, a pair
    /// reported when `distance <= radii[i] + radii[j]`, decided once.
    ///
    /// The order by `(i, j)` is work of its own (the hits of each task bucketed by `i` and
    /// sorted): a caller who does not need it collects the streaming form instead,
    /// [`par_for_each_self_pair_within`](crate::sets::par_for_each_self_pair_within) with
    /// `|block| hits.extend_from_slice(block)`: the same pairs as [`PairHit`](crate::sets::PairHit)s in the grid's
    /// order (the same order on any number of threads), in less time
    /// (docs/performance.md, "Set queries").
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// use segbatch::sets::{self_pairs_within, SharedEndpoints};
    /// // A path of three pieces that folds back close to its own start.
    /// let path = Segments::from(&[
    ///     Segment::new([0.0, 0.0, 0.0], [4.0, 0.0, 0.0]),
    ///     Segment::new([4.0, 0.0, 0.0], [4.0, 2.0, 0.0]),
    ///     Segment::new([4.0, 2.0, 0.0], [1.0, 0.25, 0.0]),
    /// ]);
    /// let all = self_pairs_within(&path, 0.5, SharedEndpoints::Keep);
    /// assert_eq!(all.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), vec![(0, 1), (0, 2), (1, 2)]);
    /// // Consecutive pieces touch by construction; skip them to see the real near-miss.
    /// let folds = self_pairs_within(&path, 0.5, SharedEndpoints::Skip);
    /// assert_eq!(folds.len(), 1);
    /// assert_eq!((folds[0].i, folds[0].j, folds[0].dist2), (0, 2, 0.0625));
    /// ```
    pub fn self_pairs_within / self_pairs_within_into
        / par_self_pairs_within / par_self_pairs_within_into
        <'a, 'r; E: SetElement>(set: impl Into<SegmentsView<'a, E>>, radius: impl Into<Radius<'r, E>>, shared: SharedEndpoints)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<Hit<E>> = self_within;
    /// The general form of [`self_pairs_within`]: `options.extent_a` applies to `set[i]`,
    /// `options.extent_b` to `set[j]`; the hits are written into `out` (cleared first,
    /// allocation reused).
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when a radius is negative or NaN (the first such index of a
    /// list); [`Error::LengthMismatch`] when a list is not one radius an object of `set`
    /// (or is [`Radius::Sides`], two lists for one set);
    /// [`Error::TooManyObjects`] for more than `u32::MAX` segments; [`Error::OutOfMemory`] when the
    /// output cannot grow to the hits found (it is grown with `try_reserve`; `out` is then
    /// empty: the streamed forms take any number of hits).
    ///
    /// ```
    /// use segbatch::{Segment, Segments};
    /// use segbatch::sets::{par_self_pairs_within, self_pairs_within, SharedEndpoints};
    /// // 2000 unit segments on a line along x, 0.5 apart end to end: each is within 0.5 of the next.
    /// let set: Segments = (0..2000).map(|k| {
    ///     let x = 1.5 * k as f32;
    ///     Segment::new([x, 0.0, 0.0], [x + 1.0, 0.0, 0.0])
    /// }).collect();
    /// let hits = par_self_pairs_within(&set, 0.5, SharedEndpoints::Keep);
    /// assert_eq!(hits.len(), 1999);
    /// assert_eq!(hits, self_pairs_within(&set, 0.5, SharedEndpoints::Keep));
    /// ```
    into;
}

fn self_within<'a, 'r, E: SetElement>(
    set: SegmentsView<'a, E>,
    radius: Radius<'r, E>,
    shared: SharedEndpoints,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit<E>>,
) -> Result<(), Error> {
    let what = "self_pairs_within output";
    let skip = shared == SharedEndpoints::Skip;
    super::within::collected(set, None, (radius, skip), options, parallel, (what, out))
}
