//! The element type of the 3D queries, [`Element`]: `f32` or `f64`, and what each pair query
//! runs in each precision.
//!
//! The query bodies (argument checks, result sizing, the four forms) are written once over
//! `E: Element`; what differs per precision (the lane type and width, the `f32` sixteen-lane
//! path, the gather of index pairs) is a few methods of sealed supertraits, declared here
//! and implemented beside each query's machinery. Declaring them here, over the types of
//! `types.rs`, keeps the files of `pairs` in one direction: the query files import this
//! one, never it them (docs/architecture.md, "Precision: f64", says why methods and not one
//! body over the lane type).

use crate::batch::Record;
use crate::batch::sealed::Space;
use crate::segment::{Segment, Segment64};

/// The element type of the 3D batches and queries: `f32` (the default everywhere) or `f64`
/// (sealed: only these two), with the record a batch of it stores
/// ([`Segment`] or [`Segment64`]). Every 3D query runs in the precision of its inputs:
/// `closest_points(&a, &b)` is an `f64` query when `a` and `b` are
/// [`Segments64`](crate::Segments64).
pub trait Element:
    sealed::PairQueries
    + sealed::TouchPairs
    + sealed::Indexed3
    + Space<SegmentRecord = <Self as Element>::Segment>
{
    /// The segment record a batch of this element type stores: [`Segment`] for `f32`,
    /// [`Segment64`] for `f64`. A batch of it is a `Soa<E::Segment, 6, E>`, the
    /// [`SegmentsView<'_, E>`](crate::SegmentsView) every 3D query takes.
    type Segment: Record<6, Self> + Send + Sync + Into<[[Self; 3]; 2]> + From<[[Self; 3]; 2]>;
}

impl Element for f32 {
    type Segment = Segment;
}

impl Element for f64 {
    type Segment = Segment64;
}

/// What the pair queries and the dense distance matrix run in each precision: signatures
/// only, over the types of `types.rs` and `contact.rs`, implemented beside each query's
/// machinery (`closest.rs`, `capsule.rs`, `indexed.rs`), so that no query file imports
/// another that imports it back.
pub(crate) mod sealed {
    use crate::batch::sealed::Space;
    use crate::batch::{Error, SegmentsView};
    use crate::pairs::contact::Core;
    use crate::pairs::types::{ClosestBatch, Outputs, PairMask, Radii};
    use crate::segment::Options;
    use core::ops::Range;

    /// The pair queries in one precision: which lanes run the kernel (`closest.rs`).
    // Unnameable outside the crate: its crate-private bound (`Core`, the contact rule's
    // view of a segment) is no part of the public API.
    #[allow(private_bounds)]
    pub trait PairQueries: Space<SegmentRecord: Core<F = Self>> {
        /// `a[i]` against `b[i]` into `out`, on all cores when `parallel`.
        fn closest_pairs(
            a: SegmentsView<'_, Self>,
            b: SegmentsView<'_, Self>,
            options: &Options,
            outputs: Outputs,
            parallel: bool,
            out: &mut ClosestBatch<Self>,
        ) -> Result<(), Error>;
        /// `one` against every `many[j]` into `out`, on all cores when `parallel`.
        fn one_to_many(
            one: &Self::SegmentRecord,
            many: SegmentsView<'_, Self>,
            options: &Options,
            outputs: Outputs,
            parallel: bool,
            out: &mut ClosestBatch<Self>,
        ) -> Result<(), Error>;
        /// Rows `rows` of the dense matrix of squared distances of every `a[i]` against
        /// every `b[j]` into `out` (exactly those rows, `b.len()` values each), B taken in
        /// blocks of `block` columns so that a block stays in L1 while the rows run over it.
        fn dist2_rows(
            a: SegmentsView<'_, Self>,
            b: SegmentsView<'_, Self>,
            rows: Range<usize>,
            block: usize,
            options: &Options,
            out: &mut [Self],
        );
    }

    /// The capsule test in one precision: which lanes run it (`capsule.rs`).
    pub trait TouchPairs: Space {
        /// The capsule test of the `n` pairs of the checked columns `pair` (A's six, B's
        /// six) into `out`, on all cores when `parallel`.
        fn touch_pairs(
            pair: [&[Self]; 12],
            n: usize,
            radii: Radii<'_, Self>,
            options: &Options,
            parallel: bool,
            out: &mut PairMask,
        );
    }

    /// The index-pair queries in one precision: how the pairs' rows are gathered
    /// (`indexed.rs`).
    pub trait Indexed3: Space {
        /// The closest points of the index pairs `pairs` of `a` and `b` into `out`.
        fn closest_indexed(
            a: SegmentsView<'_, Self>,
            b: SegmentsView<'_, Self>,
            pairs: &[(u32, u32)],
            options: &Options,
            outputs: Outputs,
            parallel: bool,
            out: &mut ClosestBatch<Self>,
        ) -> Result<(), Error>;
        /// The capsule test of the index pairs `pairs` of `a` and `b` into `out`.
        fn touch_indexed(
            a: SegmentsView<'_, Self>,
            b: SegmentsView<'_, Self>,
            pairs: &[(u32, u32)],
            radii: Radii<'_, Self>,
            options: &Options,
            parallel: bool,
            out: &mut PairMask,
        ) -> Result<(), Error>;
    }
}
