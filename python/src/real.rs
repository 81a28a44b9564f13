//! The two precisions behind one generic body a query: `Real` is the library's element
//! traits together, with what the binding itself needs of a precision (its NumPy name,
//! the conversion of Python's numbers).

use super::*;

/// A coordinate type the binding computes in: `f32`, or `f64` for world coordinates
/// (UTM, ECEF). Every query is written once over it, calling the library's generic
/// queries; which one runs is decided by the input's dtype ([`is_f64`]).
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

    /// `x` in this precision (Python numbers are `f64`; `f32` rounds as NumPy does).
    fn from_f64(x: f64) -> Self;
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

    fn from_f64(x: f64) -> Self {
        x as f32
    }
}

impl Real for f64 {
    const DTYPE: &'static str = "float64";

    fn from_f64(x: f64) -> Self {
        x
    }
}
