//! Motion queries: where moving objects are *at the same moment*.
//!
//! A segment traced by an object during a step is where it goes, not where it is when. Two
//! objects whose paths come within `rA + rB` of each other (the segment distance of the
//! rest of the crate, a conservative filter) collide only if they are that close *at the
//! same time*. This module answers the time-synchronised questions, batched over
//! structure-of-arrays columns with the same 8-lane, mask-and-select style as the kernel,
//! each beside a scalar reference with the same variable names and operation order:
//!
//! | query | batched | scalar reference | file |
//! |---|---|---|---|
//! | closest point of approach of two tracks or steps (Sunday's `cpa_time` / `cpa_distance`), time clamped to a [`Window`] | [`cpa()`] | [`reference::cpa`](crate::reference::cpa) | `cpa.rs` |
//! | time of first contact of two moving spheres (the dynamic sphere-sphere test) | [`first_contact`] | [`reference::first_contact`](crate::reference::first_contact) | `contact.rs` |
//! | time of first contact of two capsules whose end points move over a step | [`first_contact_capsules`], [`first_contact_capsules_indexed`] | [`reference::first_contact_capsules`](crate::reference::first_contact_capsules) | `swept.rs` |
//!
//! Each has the crate's four forms (`q`, `q_into`, `par_q`, `par_q_into`), written once in
//! `queries.rs`. 2D segment crossings, which have nothing to do with time, are
//! [`intersect2`](crate::planar::intersect2) at the crate root.
//!
//! **In `f64`**, for coordinates where `f32` loses the resolution you need (ECEF metres,
//! aircraft 1e7 m from the Earth's centre): every query and reference runs in the precision
//! of its inputs ([`MotionElement`]: `f32` or `f64`). [`cpa()`] over [`Tracks64`] or
//! [`Segments64`](crate::Segments64) and a [`Window64`] is the `f64` query, returning a
//! [`CpaBatch<f64>`](CpaBatch) of [`Cpa<f64>`](Cpa), bit for bit
//! [`reference::cpa`](crate::reference::cpa) on the same records; first contact likewise with
//! [`Radii64`](crate::pairs::Radii64), and swept capsules over [`Sweeps64`]. Each reference
//! and kernel is the `f32` one, written once over the precision (`cpa.rs`, `contact.rs`,
//! `swept.rs`), in lanes of `f64x4` (`f64x8` with `avx512f`).
//!
//! A moving object is given either as a [`Track`] (position at `t = 0` and velocity, in
//! [`Tracks`] columns) or, as engines store it, as the [`Segment`](crate::Segment) from its
//! position at the start of the step (`t = 0`) to its position at the end (`t = 1`): a
//! [`Segments`](crate::Segments) batch, accepted by the same queries ([`Motion`]).
//!
//! `docs/motion.md` explains which query to use when, with a worked example of two paths
//! that cross while the objects never meet.
//!
//! # Numerics
//!
//! As in the rest of the crate: the relative motion is formed locally (`w0 = P0 - Q0`,
//! `dv = u - v`, or for start/end segments `dv = w1 - w0`), tolerances are scale-free,
//! every division is guarded by a mask, and a NaN or infinite input gives NaN outputs and
//! [`MotionFlags::NON_FINITE`] for that pair only. The batched functions and their scalar
//! references agree bit for bit on x86_64 (AVX2+FMA and SSE2 builds); `tests/suite/motion.rs`
//! checks that and the accuracy against an f64 oracle, `tests/suite/motion64.rs` the same for the
//! `f64` queries against an exact (rational) oracle.
//!
//! # How the loops are fast
//!
//! The loop is the driver's (`src/driver.rs`), shared with every query: whole aligned
//! groups loaded and stored without bounds checks, a common-case path (every lane finite
//! and, for CPA, no same-velocity lane) whose `select`s are skipped and whose results are
//! bit for bit those of the masked path, which runs out of line; masks become bytes
//! (`bool`, flags) with one `movmskps` and one multiplication. `docs/performance.md` has
//! the figures.

mod contact;
mod cpa;
mod queries;
mod swept;
pub(crate) mod types;

pub(crate) use contact::contact_pair;
pub use contact::{Contact, ContactBatch};
pub(crate) use cpa::cpa_pair;
pub use cpa::{Cpa, CpaBatch};
pub use queries::{
    Motion, MotionElement, SweepsView, TracksView, cpa, cpa_into, first_contact,
    first_contact_capsules, first_contact_capsules_indexed, first_contact_capsules_indexed_into,
    first_contact_capsules_into, first_contact_into,
};
#[cfg(feature = "rayon")]
pub use queries::{
    par_cpa, par_cpa_into, par_first_contact, par_first_contact_capsules,
    par_first_contact_capsules_indexed, par_first_contact_capsules_indexed_into,
    par_first_contact_capsules_into, par_first_contact_into,
};
pub use swept::{
    SWEPT_STEPS, SWEPT_TOLERANCE_REL, Sweep, Sweep64, Sweeps, Sweeps64, SweptBatch, SweptContact,
};
pub(crate) use swept::{swept_indexed, swept_pair};
pub use types::{MotionFlags, Track, Track64, Tracks, Tracks64, Window, Window64};
