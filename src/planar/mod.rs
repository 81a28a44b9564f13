//! Planar: 2D segments, their crossings and closest points, one pair at a time or as a set.
//!
//! | question | convenience | general | parallel |
//! |---|---|---|---|
//! | 2D crossings and closest points of `a[i]` and `b[i]` | [`intersect2`] | [`intersect2_into`] | [`par_intersect2`], [`par_intersect2_into`] |
//! | the same over index pairs | [`intersect2_indexed`] | [`intersect2_indexed_into`] | [`par_intersect2_indexed`], [`par_intersect2_indexed_into`] |
//! | every meeting pair `i < j` of one 2D set, `f32` or `f64` ([`CrossHit`]s; shared end points kept or skipped, [`SharedEndpoints`](crate::sets::SharedEndpoints)) | [`crossing_pairs`] | [`crossing_pairs_into`] | [`par_crossing_pairs`], [`par_crossing_pairs_into`] |
//! | the same, streamed | [`for_each_crossing_pair`] | (the same) | [`par_for_each_crossing_pair`] |
//! | every pair of rows that meet, of one set or of two (pieces that carry their polyline's row; [`RowHit`](crate::sets::RowHit)s, each row pair once) | [`crossing_rows`], [`crossing_rows_between`] | [`crossing_rows_into`], [`crossing_rows_between_into`] | [`par_crossing_rows`], [`par_crossing_rows_into`], [`par_crossing_rows_between`], [`par_crossing_rows_between_into`] |
//! | the same, streamed (each row pair once a task) | [`for_each_crossing_row`] | (the same) | [`par_for_each_crossing_row`] |
//!
//! The batches take their element type: [`Segments2`] holds `f32` ([`Segment2`]),
//! `Segments2<f64>` holds `f64` ([`Segment2_64`]), and the crossing sets run in the
//! precision of their set ([`Element`]: one row a question, not one a precision); the
//! pairwise `intersect2` forms are `f32`, with the scalar reference
//! [`reference::intersect2`](crate::reference::intersect2) in both precisions.
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
pub use crossings::{
    crossing_rows, crossing_rows_between, crossing_rows_between_into, crossing_rows_into,
    for_each_crossing_row,
};
#[cfg(feature = "rayon")]
pub use crossings::{par_crossing_pairs, par_crossing_pairs_into, par_for_each_crossing_pair};
#[cfg(feature = "rayon")]
pub use crossings::{
    par_crossing_rows, par_crossing_rows_between, par_crossing_rows_between_into,
    par_crossing_rows_into, par_for_each_crossing_row,
};
pub use element::{Element, Segments2, Segments2View};
pub use forms::{
    Intersections2, intersect2, intersect2_indexed, intersect2_indexed_into, intersect2_into,
};
#[cfg(feature = "rayon")]
pub use forms::{
    par_intersect2, par_intersect2_indexed, par_intersect2_indexed_into, par_intersect2_into,
};
pub use types::{Crossing, Intersection2, Segment2, Segment2_64};
