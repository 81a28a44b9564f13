//! Sets: every pair of one or two sets within a radius, the first hits of rays on an indexed
//! set, dense distance matrices.
//!
//! | question | convenience | general | parallel |
//! |---|---|---|---|
//! | every A against every B: dense squared distances, `f32` or `f64` (the precision of the batches) | [`dist2_matrix`] | [`dist2_matrix_into`] | [`par_dist2_matrix`], [`par_dist2_matrix_into`] |
//! | every A against every B: the pairs within a radius, one for all or one an object ([`Radius`]; [`Hit`]s) | [`pairs_within`] | [`pairs_within_into`] | [`par_pairs_within`], [`par_pairs_within_into`] |
//! | all pairs `i < j` of one set within a radius, one for all or one an object ([`Radius`]) | [`self_pairs_within`] | [`self_pairs_within_into`] | [`par_self_pairs_within`], [`par_self_pairs_within_into`] |
//! | the same two, streamed as compact [`PairHit`]s in blocks of at most [`MAX_BLOCK_HITS`] (a sink may stop them: [`SinkFlow`]; so may another thread: [`Stop`]) | [`for_each_pair_within`], [`for_each_self_pair_within`] | (the same) | [`par_for_each_pair_within`], [`par_for_each_self_pair_within`] |
//! | pairs of rows (the pieces of one polyline) within a radius, each once ([`RowHit`]s, [`rows`]) | [`rows_within`], [`rows_within_between`], streamed: [`for_each_row_within`] | [`rows_within_into`], [`rows_within_between_into`] | `par_…` of each |
//! | first hits of thick rays (segments or origin + direction: [`Rays`]), pairs within a radius (one for all, one a query, or one a query and one a member) of a static set, `f32` or `f64` (the precision of the set) | [`SegmentIndex::first_hits`], [`SegmentIndex::pairs_within`] | [`SegmentIndex::first_hits_into`] | [`SegmentIndex::par_first_hits`], [`SegmentIndex::par_pairs_within`] |
//!
//! The radius queries run in the precision of their inputs ([`SetElement`]: `f32`, or
//! `f64` on [`Segments64`](crate::Segments64), returning [`Hit64`]s, [`PairHit64`]s and
//! `RowHit<Hit64>`s, with an `f64` radius or [`Radius64`]): one body each, the `f64` one
//! on the same grid in a local frame (the set's centre subtracted, so UTM or ECEF
//! coordinates cost what coordinates near the origin cost), the `f64` kernel deciding.
//!
//! Every query runs the same kernel as [`closest_points`](crate::pairs::closest_points), lane by
//! lane, so each reported value is bit for bit what
//! [`reference::closest_points_with`](crate::reference::closest_points_with) gives for that
//! pair, and the parallel forms return exactly what the sequential ones do. A radius test is
//! `dist2 <= radius·radius` (both in the query's precision), with `radius` the query's or, for capsules with
//! a radius an object ([`Radius::Each`], [`Radius::Sides`]), `rI + rJ` summed in the query's precision: the
//! grid grows each object's sphere by its own radius, so each pair is decided once, with
//! its two radii (no query at twice the largest radius followed by a second test). A
//! negative or NaN radius is an error
//! ([`Error::InvalidRadius`](crate::Error::InvalidRadius), naming the index in a list), and
//! so is a list that is not one radius an object
//! ([`Error::LengthMismatch`](crate::Error::LengthMismatch)), in the `_into` forms and a
//! panic in the others. `+∞` accepts every pair with finite coordinates; pairs with a
//! non-finite coordinate (NaN distance) are never within any radius.
//!
//! # Tiling (many-vs-many, within one set)
//!
//! The `N × M` queries work on tiles of [`TILE_A`] rows of A by [`TILE_B`] columns of B. One
//! A segment is broadcast to all eight lanes and reused against the whole
//! B block, which stays in L1 (its six columns and its bounding spheres take 20 KiB); the
//! parallel forms hand out rectangles of tiles to rayon. The radius queries take these tiles
//! only for rays, lines and an infinite radius: for segments the grid (`src/prune/`)
//! names the candidate pairs instead (`within.rs`).
//!
//! # Bounding-sphere prefilter (radius queries, segment against segment)
//!
//! Before the full kernel, each group of eight pairs is tested with the bounding spheres of
//! the segments (centre = midpoint, radius = half length): when
//! `|mA - mB| > hA + hB + R` in every lane, no pair of the group can be within `R` and the
//! group is skipped. The test is made conservative against rounding, with margins that do
//! not grow with the distance from the origin except for what `f32` storage itself costs:
//!
//! - **The kernel's error is relative to the pair's own extent.** It forms the separation
//!   `v = r + s·dA - t·dB` from the differences `r = A0 - B0`, `dA = A1 - A0`,
//!   `dB = B1 - B0` (each exact to `ε/2` of itself) with `s`, `t` clamped into `[0, 1]`,
//!   so `v` joins two points of the segments, `|v| >= d` (the exact distance), and its
//!   rounding is at most about `ε·L` with `L = |r| + |dA| + |dB|` (`2.75ε·L` in a build
//!   without FMA, where each fused step rounds twice): a reported pair has
//!   `d <= R·(1 + 3ε) + 2.75ε·L` (plus `2^-74` where `dist2` is subnormal), whatever the
//!   degenerate and parallel branches chose. Two spheres at the pruning boundary have
//!   `L <= |mA - mB| + 3(hA + hB)` and `|mA - mB| - hA - hB <= d`, so this is covered by
//!   relative inflations: each sphere radius by `4ε`, the sum `hA + hB + R` by `16ε`.
//!   The property `never_nearer_than_the_pair_extent_allows` (tests/suite/
//!   reference_accuracy.rs) checks `|v| >= d - 3ε·L` against the `f64` oracle on every hard
//!   class at offsets up to 5e6 and scales `10^-12 .. 10^12` (the largest seen with FMA is
//!   under `ε·L`).
//! - **Storage**: a centre rounded to `f32` moves by `ε/2` of each coordinate, so each
//!   sphere radius grows by `0.75ε·|m|` (0.45 m at UTM northings, where `f32` itself
//!   spaces coordinates 0.5 m apart), and by `2^-72` for the subnormal cases. An object
//!   rounded into a local frame (the `f64` queries, the crossing sets) adds its end points'
//!   rounding to its own growth, which the refinement reads too.
//!
//! Non-finite pairs, which can never be within a radius, may be skipped. The prefilter only
//! decides which groups run, never what they report, so a query with and without it
//! returns the same list (the tests check it near the radius, and the `sets` fuzz target at
//! offsets up to 3e6). Rays and lines have no bounding sphere and always run the full
//! kernel. The same spheres and test (`SphereColumns` in `src/prune/spheres.rs`) are the
//! grid's, and the moving capsules' boxes ([`crate::scenes`]) take the same margins.

mod bvh8;
mod element;
pub(crate) mod hits;
mod index;
mod many;
mod near;
pub(crate) mod radius;
mod rays;
pub mod rows;
mod self_pairs;
mod within;

pub use crate::prune::{MAX_BLOCK_HITS, SinkFlow, Stop};
pub use element::SetElement;
pub use hits::SharedEndpoints;
pub use hits::{Hit, Hit64, PairHit, PairHit64};
pub use hits::{TILE_A, TILE_B};
pub use index::{SegmentIndex, SegmentIndex64};
pub use many::{dist2_matrix, dist2_matrix_into};
#[cfg(feature = "rayon")]
pub use many::{par_dist2_matrix, par_dist2_matrix_into};
pub use radius::{Radius, Radius64};
pub(crate) use rays::first_hit_pair;
pub use rays::{FirstHit, FirstHit64, PerRay, PerRay64, Rays, Rays64};
pub use rows::{RowAnswer, RowHit};
#[cfg(feature = "rayon")]
pub use self_pairs::{par_self_pairs_within, par_self_pairs_within_into};
pub use self_pairs::{self_pairs_within, self_pairs_within_into};
pub use within::{
    count_non_finite, for_each_pair_within, for_each_row_within, for_each_self_pair_within,
    pair_distance, pairs_within, pairs_within_into, rows_within, rows_within_between,
    rows_within_between_into, rows_within_into, within_radius,
};
#[cfg(feature = "rayon")]
pub use within::{
    par_for_each_pair_within, par_for_each_row_within, par_for_each_self_pair_within,
    par_pairs_within, par_pairs_within_into, par_rows_within, par_rows_within_between,
    par_rows_within_between_into, par_rows_within_into,
};
