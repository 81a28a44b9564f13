//! The library's integration tests, as one test binary: one crate to compile and link
//! instead of one per file (the files share the testkit and proptest, whose code each
//! separate binary would build again).
//!
//! Each module is one subject. The kernel and driver equivalence suites (the kernel, the
//! `f64` lanes and every batched query against the scalar reference, lane by lane and bit
//! for bit) are the modules whose results depend on the SIMD build; `.ci/run` runs them
//! again on the plain-SSE2 and x86-64-v4 builds by module name.

/// The `f64` batch against an exact oracle.
mod accuracy64;
/// The batched `f64` queries against the `f64` reference, lane by lane.
mod batch64;
/// The whole finite `f32` range through the kernel and the reference.
mod edge_range;
/// The edges of `f64`'s range (scaled copies against the ordinary scale), meeting points of
/// segments spanning the float range, infinite radii.
mod f64_range;
/// First hits of thick rays at every range and radius.
mod first_hits;
/// The four forms of every query against each other and the reference, one call each.
mod forms;
/// Saved fuzz inputs replayed.
mod fuzz_replay;
/// Golden cases.
mod golden;
/// The same bits across builds: result digests against a committed file.
mod golden_bits;
/// First hits in `f64` at the origin and at world coordinates.
mod index64;
/// The glam and mint conversions.
mod interop;
/// The kernel against the reference, lane by lane, at every lane width.
mod kernel;
/// Motion queries.
mod motion;
/// The `f64` closest point of approach.
mod motion64;
/// The `f64` capsule, indexed, contact, first-contact and matrix queries.
mod pairs64;
/// The exact 2D meeting decision.
mod planar_exact;
/// The bulk queries against brute force.
mod queries;
/// The `f64` reference's semantics.
mod reference64;
/// The reference against the `f64` oracle.
mod reference_accuracy;
/// The row-aware set queries against brute force over the piece queries.
mod row_sets;
/// Closest points from rows and into slices.
mod rows;
/// The persistent capsule set against brute force, frame after frame.
mod scenes;
/// The set queries at their limits.
mod set_limits;
/// The set queries against brute force.
mod sets;
/// The `f64` set queries on the grid against brute force over the `f64` reference.
mod sets64;
/// Swept capsules against the reference and an `f64` oracle.
mod swept;
