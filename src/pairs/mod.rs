//! Pairs: the closest points, capsule overlaps and contacts of given pairs.
//!
//! | question | convenience | general | parallel | `f64` |
//! |---|---|---|---|---|
//! | closest points of `a[i]` and `b[i]` | [`closest_points`] | [`closest_points_into`] | [`par_closest_points`], [`par_closest_points_into`] | (the same, on [`Segments64`](crate::Segments64)) |
//! | one segment, ray or line against every `b[j]` | [`closest_points_one_to_many`] | [`closest_points_one_to_many_into`] | [`par_closest_points_one_to_many`], [`par_closest_points_one_to_many_into`] | (the same) |
//! | do capsules `(a[i], rA)`, `(b[i], rB)` touch? ([`PairMask`]) | [`capsules_touch`] | [`capsules_touch_into`] | [`par_capsules_touch`], [`par_capsules_touch_into`] | (the same) |
//! | closest points of index pairs `(a[i], b[j])` | [`closest_points_indexed`] | [`closest_points_indexed_into`] | [`par_closest_points_indexed`], [`par_closest_points_indexed_into`] | (the same) |
//! | do capsules of index pairs touch? | [`capsules_touch_indexed`] | [`capsules_touch_indexed_into`] | [`par_capsules_touch_indexed`], [`par_capsules_touch_indexed_into`] | (the same) |
//! | contacts of touching capsules of index pairs (two points for parallel ones) | [`capsule_contacts`] | [`capsule_contacts_into`] | [`par_capsule_contacts`], [`par_capsule_contacts_into`] | (the same, [`CapsuleContact64`]s) |
//! | closest points of rows of any point type, into slices | [`closest_points_rows`], [`closest_points_to_slices`] | [`closest_points_rows_into`], [`closest_points_rows_to_slices`] | `par_…` of each | |
//!
//! Every query but the rows forms is generic over the element type ([`Element`]): on
//! [`Segments64`](crate::Segments64) it runs in `f64` (radii [`Radii64`], closest points
//! into a [`ClosestBatch64`], contacts as [`CapsuleContact64`]s; masks are [`PairMask`]s in
//! both), bit for bit its reference in that precision
//! ([`reference::closest_points_with`](crate::reference::closest_points_with),
//! [`reference::capsule_contact`](crate::reference::capsule_contact)): the same kernels
//! and driver over the `f64` lanes. The files run one way: `types.rs` (what the queries
//! take and return) and `contact.rs` (the contact rule) at the bottom, `element.rs` (the
//! element type and its per-precision traits) on them, the queries on top.
//!
//! Every form runs the 8-lane kernel (`src/kernel.rs`, the twin of
//! [`reference::closest_points_with`](crate::reference::closest_points_with)) through the one
//! driver (`src/driver.rs`), so each value is bit for bit the reference's and the parallel
//! forms return exactly what the sequential ones do. The parallel forms split the batch in
//! chunks of [`PAR_CHUNK_PAIRS`] and stay on the calling thread below [`PAR_MIN_PAIRS`]
//! pairs (or [`PAR_MIN_PAIR_TESTS`] pair tests for the set queries).

mod capsule;
mod closest;
mod contact;
mod element;
mod indexed;
mod rows;
mod types;

pub use crate::columns::rows;
pub use crate::driver::{PAR_CHUNK_PAIRS, PAR_MIN_PAIR_TESTS, PAR_MIN_PAIRS};
pub use crate::segment::ParseExtentError;
pub use capsule::{capsules_touch, capsules_touch_into};
#[cfg(feature = "rayon")]
pub use capsule::{par_capsules_touch, par_capsules_touch_into};
pub use closest::{
    Width, closest_points, closest_points_into, closest_points_one_to_many,
    closest_points_one_to_many_into, closest_points_width_into,
};
#[cfg(feature = "rayon")]
pub use closest::{
    par_closest_points, par_closest_points_into, par_closest_points_one_to_many,
    par_closest_points_one_to_many_into,
};
pub(crate) use contact::manifold;
pub use contact::{CapsuleContact, CapsuleContact64, MANIFOLD_SIN};
pub use element::Element;
pub(crate) use indexed::closest_rows_into;
pub use indexed::{
    capsule_contacts, capsule_contacts_into, capsules_touch_indexed, capsules_touch_indexed_into,
    closest_points_indexed, closest_points_indexed_into,
};
#[cfg(feature = "rayon")]
pub use indexed::{
    par_capsule_contacts, par_capsule_contacts_into, par_capsules_touch_indexed,
    par_capsules_touch_indexed_into, par_closest_points_indexed, par_closest_points_indexed_into,
};
pub use rows::{
    ClosestSlices, closest_points_rows, closest_points_rows_into, closest_points_rows_to_slices,
    closest_points_to_slices,
};
#[cfg(feature = "rayon")]
pub use rows::{
    par_closest_points_rows, par_closest_points_rows_into, par_closest_points_rows_to_slices,
    par_closest_points_to_slices,
};
pub use types::{ClosestBatch, ClosestBatch64, Outputs, PairMask, Radii, Radii64};
