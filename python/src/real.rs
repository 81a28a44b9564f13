//! The two precisions behind one generic body a query: `Real` names, for `f32` and
//! `f64`, the library's types and calls each query uses.

use super::*;

/// A coordinate type the binding computes in: `f32`, or `f64` for world coordinates
/// (UTM, ECEF), with the library's types and calls of that precision. Every query is
/// written once over it; which one runs is decided by the input's dtype ([`is_f64`]).
pub(crate) trait Real:
    segbatch::sets::SetElement
    + MotionElement
    + numpy::Element
    + bytemuck::Pod
    + Default
    + Send
    + Sync
    + 'static
{
    /// The NumPy dtype name, for messages.
    const DTYPE: &'static str;
    /// The scratch of [`Real::params_into`].
    type Gather: Default + Send;
    /// An index over a static set of segments (first hits of thick rays).
    type Index: Send + Sync;

    /// `x` in this precision (Python numbers are `f64`; `f32` rounds as NumPy does).
    fn from_f64(x: f64) -> Self;
    /// The closest-points parameters (every column but the points) of the index `pairs`
    /// of `a` and `b`, by the kernel and `options` of the radius queries: their `s` and
    /// `t` bit for bit.
    fn params_into(
        a: SegmentsView<'_, Self>,
        b: SegmentsView<'_, Self>,
        pairs: &[(u32, u32)],
        options: &Options,
        gather: &mut Self::Gather,
        out: &mut ClosestBatch<Self>,
    ) -> Result<(), segbatch::Error>;
    /// The library's index of this precision over `set`.
    fn index_new(
        set: SegmentsView<'_, Self>,
        parallel: bool,
    ) -> Result<Self::Index, segbatch::Error>;
    /// The library's `first_hits` of this precision.
    fn first_hits(
        index: &Self::Index,
        rays: SegmentsView<'_, Self>,
        radius: Self,
        range: Self,
        parallel: bool,
    ) -> Result<Vec<Option<FirstHit<Self>>>, segbatch::Error>;
    /// The library's index `pairs_within` of this precision, the queries' indices offset
    /// by `first` (the queries are a part of the caller's, starting at `first`).
    fn index_pairs_within(
        index: &Self::Index,
        queries: SegmentsView<'_, Self>,
        radius: Self,
        first: u32,
        parallel: bool,
    ) -> Result<Vec<Hit<Self>>, segbatch::Error>;
}

/// The result columns of one chunk, whatever the query and precision (empty where the
/// query has none), copied out by name by [`copy_out`].
pub(crate) struct Res<'a, E> {
    pub(crate) dist2: &'a [E],
    pub(crate) s: &'a [E],
    pub(crate) t: &'a [E],
    pub(crate) point_a: [&'a [E]; 3],
    pub(crate) point_b: [&'a [E]; 3],
    pub(crate) flags: &'a [u8],
}

/// A closest-points chunk's columns.
pub(crate) fn closest_res<E: Real>(o: &ClosestBatch<E>) -> Res<'_, E> {
    Res {
        dist2: o.dist2(),
        s: o.s(),
        t: o.t(),
        point_a: o.point_a(),
        point_b: o.point_b(),
        flags: bytemuck::cast_slice(o.flags()),
    }
}

/// A closest-approach chunk's columns.
pub(crate) fn cpa_res<E: Real>(o: &CpaBatch<E>) -> Res<'_, E> {
    Res {
        dist2: o.dist2(),
        s: &[],
        t: o.t(),
        point_a: o.point_a(),
        point_b: o.point_b(),
        flags: bytemuck::cast_slice(o.flags()),
    }
}

impl Real for f32 {
    const DTYPE: &'static str = "float32";
    type Gather = ();
    type Index = segbatch::SegmentIndex;

    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn params_into(
        a: SoaView<'_, Segment, 6>,
        b: SoaView<'_, Segment, 6>,
        pairs: &[(u32, u32)],
        options: &Options,
        _: &mut (),
        out: &mut ClosestBatch,
    ) -> Result<(), segbatch::Error> {
        segbatch::pairs::closest_points_indexed_into(a, b, pairs, options, Outputs::PARAMS, out)
    }
    fn index_new(
        set: SoaView<'_, Segment, 6>,
        parallel: bool,
    ) -> Result<segbatch::SegmentIndex, segbatch::Error> {
        if parallel {
            segbatch::SegmentIndex::par_new(set)
        } else {
            segbatch::SegmentIndex::new(set)
        }
    }
    fn first_hits(
        index: &segbatch::SegmentIndex,
        rays: SoaView<'_, Segment, 6>,
        radius: f32,
        range: f32,
        parallel: bool,
    ) -> Result<Vec<Option<FirstHit>>, segbatch::Error> {
        if parallel {
            index.par_first_hits(rays, radius, range)
        } else {
            index.first_hits(rays, radius, range)
        }
    }
    fn index_pairs_within(
        index: &segbatch::SegmentIndex,
        queries: SoaView<'_, Segment, 6>,
        radius: f32,
        first: u32,
        parallel: bool,
    ) -> Result<Vec<Hit>, segbatch::Error> {
        let found = if parallel {
            index.par_pairs_within(queries, radius)
        } else {
            index.pairs_within(queries, radius)
        }?;
        Ok(found
            .into_iter()
            .map(|h| Hit {
                i: h.i + first,
                ..h
            })
            .collect())
    }
}

impl Real for f64 {
    const DTYPE: &'static str = "float64";
    type Gather = (Segments64, Segments64);
    type Index = SegmentIndex64;

    fn from_f64(x: f64) -> Self {
        x
    }
    /// The pairs' segments gathered into two batches (the crate has no indexed `f64`
    /// closest points), then `closest_points_into`: a pair's values do not depend on
    /// where it sits in a batch.
    fn params_into(
        a: Segments64View<'_>,
        b: Segments64View<'_>,
        pairs: &[(u32, u32)],
        options: &Options,
        (ga, gb): &mut (Segments64, Segments64),
        out: &mut ClosestBatch64,
    ) -> Result<(), segbatch::Error> {
        ga.clear();
        gb.clear();
        let at = |v: &Segments64View<'_>, k: u32| v.get(k as usize).expect("a hit names a member");
        ga.extend(pairs.iter().map(|&(i, _)| at(&a, i)));
        gb.extend(pairs.iter().map(|&(_, j)| at(&b, j)));
        segbatch::pairs::closest_points_into(&*ga, &*gb, options, Outputs::PARAMS, out)
    }
    fn index_new(
        set: Segments64View<'_>,
        parallel: bool,
    ) -> Result<SegmentIndex64, segbatch::Error> {
        if parallel {
            SegmentIndex64::par_new(set)
        } else {
            SegmentIndex64::new(set)
        }
    }
    fn first_hits(
        index: &SegmentIndex64,
        rays: Segments64View<'_>,
        radius: f64,
        range: f64,
        parallel: bool,
    ) -> Result<Vec<Option<FirstHit64>>, segbatch::Error> {
        if parallel {
            index.par_first_hits(rays, radius, range)
        } else {
            index.first_hits(rays, radius, range)
        }
    }
    fn index_pairs_within(
        index: &SegmentIndex64,
        queries: Segments64View<'_>,
        radius: f64,
        first: u32,
        parallel: bool,
    ) -> Result<Vec<Hit64>, segbatch::Error> {
        let found = if parallel {
            index.par_pairs_within(queries, radius)
        } else {
            index.pairs_within(queries, radius)
        }?;
        Ok(found
            .into_iter()
            .map(|h| Hit64 {
                i: h.i + first,
                ..h
            })
            .collect())
    }
}
