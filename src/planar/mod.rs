//! Planar: 2D segments, their crossings and closest points, one pair at a time or as a set.
//!
//! | question | convenience | general | parallel |
//! |---|---|---|---|
//! | 2D crossings and closest points of `a[i]` and `b[i]` | [`intersect2`] | [`intersect2_into`] | [`par_intersect2`], [`par_intersect2_into`] |
//! | the same over index pairs | [`intersect2_indexed`] | [`intersect2_indexed_into`] | [`par_intersect2_indexed`], [`par_intersect2_indexed_into`] |
//! | every meeting pair `i < j` of one 2D set ([`CrossHit`]s) | [`crossing_pairs`] | [`crossing_pairs_into`] | [`par_crossing_pairs`], [`par_crossing_pairs_into`] |
//! | the same, streamed | [`for_each_crossing_pair`] | (the same) | [`par_for_each_crossing_pair`] |
//!
//! Whether two segments meet is decided exactly for the given coordinates (Shewchuk's
//! orientation predicate behind an `f32` filter), so the answer does not depend on where
//! the world is; the method is described in `kernel.rs`, whose scalar function is
//! [`reference::intersect2`](crate::reference::intersect2) and whose 8-lane twin runs every
//! batched form.

mod crossings;
mod element;
mod forms;
pub(crate) mod kernel;
pub(crate) mod types;

pub use crossings::{CrossHit, crossing_pairs, crossing_pairs_into, for_each_crossing_pair};
#[cfg(feature = "rayon")]
pub use crossings::{par_crossing_pairs, par_crossing_pairs_into, par_for_each_crossing_pair};
pub use element::{Element, Segments2, Segments2View};
pub use forms::{
    Intersections2, intersect2, intersect2_indexed, intersect2_indexed_into, intersect2_into,
};
#[cfg(feature = "rayon")]
pub use forms::{
    par_intersect2, par_intersect2_indexed, par_intersect2_indexed_into, par_intersect2_into,
};
pub use types::{Crossing, Intersection2, Segment2, Segment2_64};
