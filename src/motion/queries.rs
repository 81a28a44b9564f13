//! The motion queries, written once over their element type ([`MotionElement`]: `f32` or
//! `f64`): every query runs in the precision of its inputs, so `cpa(&a, &b, Window::STEP)`
//! is an `f64` query when `a` and `b` are [`Tracks64`](super::Tracks64).
//!
//! The bodies (length checks, sizing the result, assembling the input columns) are one
//! each; what differs between the precisions is which lanes run the shared kernels
//! ([`sealed::MotionQueries`]): `f32x8` for `f32`, [`F64Lanes`] (`f64x8` with `avx512f`,
//! `f64x4` otherwise) for `f64`. Those are methods of the element type rather than one
//! body over the lane type because a result batch is cut into groups of the lane width for
//! the driver's store, and stable Rust cannot take that width from an associated constant
//! of a type parameter (the same reason as [`Element`](crate::Element)'s).
//!
//! This file sits above the kernels (`cpa.rs`, `contact.rs`, `swept.rs`): it names their
//! batches and drivers, and they never name it.

use super::contact::{ContactBatch, run as run_contact};
use super::cpa::{CpaBatch, run as run_cpa};
use super::swept::{Sweep, Sweep64, SweptBatch, run as run_swept, swept_indexed};
use super::types::{MotionReal, Track, Track64, Window};
use crate::batch::{Error, Record, SoaView, check_len, check_pairs};
use crate::forms::query_forms;
use crate::lanes::F64Lanes;
use crate::pairs::Radii;
use crate::real::Real;
use wide::f32x8;

/// The element type of the motion queries: `f32` (the default everywhere) or `f64`, the two
/// [`Element`](crate::Element)s (sealed: only these two), with the records a batch of it
/// stores ([`Track`] or [`Track64`], [`Sweep`] or [`Sweep64`]). Every motion query runs in
/// the precision of its inputs: `cpa(&a, &b, Window64::STEP)` is an `f64` query when `a` and
/// `b` are [`Tracks64`](super::Tracks64).
///
/// A trait of its own rather than more of [`Element`](crate::Element): the motion family
/// sits above [`pairs`](crate::pairs) (its swept capsules run the closest-points kernel), so
/// `Element`, defined there, cannot name the motion batches without an import cycle.
///
/// ```
/// use segbatch::motion::{cpa, MotionElement, Tracks, TracksView, Window};
/// // One body for both precisions.
/// fn earliest<E: MotionElement>(a: TracksView<'_, E>, b: TracksView<'_, E>) -> Option<E> {
///     cpa(a, b, Window::STEP).t().first().copied()
/// }
/// assert_eq!(earliest::<f32>((&Tracks::new()).into(), (&Tracks::new()).into()), None);
/// ```
pub trait MotionElement: crate::Element + sealed::MotionQueries {
    /// The track record a batch of this element type stores: [`Track`] for `f32`,
    /// [`Track64`] for `f64`, `[position, velocity]` as arrays.
    type Track: Motion<Elem = Self>;
    /// The record of a step from `p0` at `t = 0` to `p1` at `t = 1`: [`Segment`](crate::Segment)
    /// for `f32`, [`Segment64`](crate::Segment64) for `f64` (the
    /// [`Element::Segment`](crate::Element::Segment) of the precision, named here as a
    /// [`Motion`] so that code generic over the precision can pass segments to [`cpa()`] and
    /// [`first_contact`]).
    type Step: Motion<Elem = Self>;
    /// The sweep record a batch of this element type stores: [`Sweep`] for `f32`,
    /// [`Sweep64`] for `f64`, `[start.p0, start.p1, end.p0, end.p1]` as arrays.
    type Sweep: Record<12, Self> + Send + Sync + Into<[[Self; 3]; 4]>;
}

impl MotionElement for f32 {
    type Track = Track;
    type Step = crate::Segment;
    type Sweep = Sweep;
}

impl MotionElement for f64 {
    type Track = Track64;
    type Step = crate::Segment64;
    type Sweep = Sweep64;
}

/// How a record gives the motion of an object for [`cpa()`] and [`first_contact`] (and
/// their references): a track ([`Track`], [`Track64`]: the position at `t = 0` and the
/// velocity, one unit of distance a unit of time) or, as engines store a step, a segment
/// ([`Segment`](crate::Segment), [`Segment64`](crate::Segment64): the position at `t = 0`
/// and at `t = 1`). Sealed: these four.
///
/// Both sides of a query give their motion the same way, so a batch of tracks and a batch
/// of segments do not pair up (a type error). A segment's relative motion is formed from
/// its end points (`dv = w1 - w0` for `w = P - Q`), not from a velocity rounded first, so
/// a query over segments is the step's own answer, not that of the tracks `(p0, p1 - p0)`.
///
/// ```
/// use segbatch::motion::{cpa, Track, Tracks, Window};
/// use segbatch::{Segment, Segments};
/// // The same two objects over one step, as tracks and as start/end segments.
/// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
/// let b = Tracks::from(&[Track::new([2.0, 1.0, 0.0], [-2.0, 0.0, 0.0])]);
/// let by_tracks = cpa(&a, &b, Window::STEP);
/// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
/// let b = Segments::from(&[Segment::new([2.0, 1.0, 0.0], [0.0, 1.0, 0.0])]);
/// let by_steps = cpa(&a, &b, Window::STEP);
/// assert_eq!((by_tracks.t(), by_tracks.dist2()), (by_steps.t(), by_steps.dist2()));
/// ```
pub trait Motion:
    Record<6, Self::Elem> + Send + Sync + Into<[[Self::Elem; 3]; 2]> + sealed::Sealed
{
    /// The precision of the record.
    type Elem: MotionElement;
    /// `true` for a segment (its second point is where the object is at `t = 1`), `false`
    /// for a track (its second vector is the velocity).
    const ENDPOINTS: bool;
}

impl Motion for Track {
    type Elem = f32;
    const ENDPOINTS: bool = false;
}

impl Motion for Track64 {
    type Elem = f64;
    const ENDPOINTS: bool = false;
}

impl Motion for crate::Segment {
    type Elem = f32;
    const ENDPOINTS: bool = true;
}

impl Motion for crate::Segment64 {
    type Elem = f64;
    const ENDPOINTS: bool = true;
}

/// A borrowed range of a [`Tracks`](super::Tracks) batch (or of six caller-owned columns),
/// of `f32` unless said otherwise, or of `f64` (a range of
/// [`Tracks64`](super::Tracks64)).
pub type TracksView<'a, E = f32> = SoaView<'a, <E as MotionElement>::Track, 6, E>;

/// A borrowed range of a [`Sweeps`](super::Sweeps) batch (or of twelve caller-owned
/// columns), of `f32` unless said otherwise, or of `f64` (a range of
/// [`Sweeps64`](super::Sweeps64)).
pub type SweepsView<'a, E = f32> = SoaView<'a, <E as MotionElement>::Sweep, 12, E>;

/// What the motion queries run in each precision (sealed: public only so that
/// [`MotionElement`] can name it, in a module no user can name).
pub(crate) mod sealed {
    use super::{ContactBatch, CpaBatch, MotionReal, Radii, SweptBatch};
    use crate::columns::Cell;

    /// Only the crate's records are a [`Motion`](super::Motion).
    pub trait Sealed {}
    impl Sealed for super::Track {}
    impl Sealed for super::Track64 {}
    impl Sealed for crate::Segment {}
    impl Sealed for crate::Segment64 {}

    /// The motion kernels in one precision: which lanes run them over the checked input
    /// columns into a batch sized by the caller, and the constants of the shared bodies.
    ///
    /// The methods are not generic (tracks or start/end segments is a runtime `endpoints`,
    /// decided once a call): a generic method would be compiled, driver loops and all, in
    /// every crate that calls the generic queries, and there the `f64` CPA loop took 246
    /// instead of 219 instructions a group of 8 (callgrind, `query_profile cpa64`).
    // Unnameable outside the crate: its crate-private bound (`MotionReal`, those constants)
    // is no part of the public API.
    #[allow(private_bounds)]
    pub trait MotionQueries: MotionReal + Cell {
        /// Closest approach of the `n` pairs `a[i]`, `b[i]` (tracks, or start/end segments
        /// with `endpoints`) over `[0, t_end]` into `out`, on all cores when `parallel`.
        fn cpa_columns(
            endpoints: bool,
            a: [&[Self]; 6],
            b: [&[Self]; 6],
            n: usize,
            t_end: Self,
            parallel: bool,
            out: &mut CpaBatch<Self>,
        );
        /// First contact of the `n` pairs `a[i]`, `b[i]` (tracks, or start/end segments
        /// with `endpoints`) over `[0, t_end]` into `out`, on all cores when `parallel`.
        #[allow(clippy::too_many_arguments)]
        fn contact_columns(
            endpoints: bool,
            a: [&[Self]; 6],
            b: [&[Self]; 6],
            n: usize,
            radii: Radii<'_, Self>,
            t_end: Self,
            parallel: bool,
            out: &mut ContactBatch<Self>,
        );
        /// First contact of the `n` swept capsule pairs `a[i]`, `b[i]` into `out`, on all
        /// cores when `parallel`.
        fn swept_columns(
            a: [&[Self]; 12],
            b: [&[Self]; 12],
            n: usize,
            radii: Radii<'_, Self>,
            parallel: bool,
            out: &mut SweptBatch<Self>,
        );
    }
}

/// [`sealed::MotionQueries`] of `$elem`: the kernels run in lanes of `$lane`.
macro_rules! motion_queries {
    ($elem:ty, $lane:ty) => {
        impl sealed::MotionQueries for $elem {
            fn cpa_columns(
                endpoints: bool,
                a: [&[$elem]; 6],
                b: [&[$elem]; 6],
                n: usize,
                t_end: $elem,
                parallel: bool,
                out: &mut CpaBatch<$elem>,
            ) {
                if endpoints {
                    run_cpa::<$lane, true, _>(a, b, n, t_end, parallel, out.out());
                } else {
                    run_cpa::<$lane, false, _>(a, b, n, t_end, parallel, out.out());
                }
            }

            fn contact_columns(
                endpoints: bool,
                a: [&[$elem]; 6],
                b: [&[$elem]; 6],
                n: usize,
                radii: Radii<'_, $elem>,
                t_end: $elem,
                parallel: bool,
                out: &mut ContactBatch<$elem>,
            ) {
                if endpoints {
                    run_contact::<$lane, true, _>(a, b, n, radii, t_end, parallel, out.out());
                } else {
                    run_contact::<$lane, false, _>(a, b, n, radii, t_end, parallel, out.out());
                }
            }

            fn swept_columns(
                a: [&[$elem]; 12],
                b: [&[$elem]; 12],
                n: usize,
                radii: Radii<'_, $elem>,
                parallel: bool,
                out: &mut SweptBatch<$elem>,
            ) {
                run_swept::<$lane, _>(a, b, n, radii, parallel, out.out());
            }
        }
    };
}

motion_queries!(f32, f32x8);
motion_queries!(f64, F64Lanes);

/// A batch of motions of the record `M` ([`Motion`]): a range of [`Tracks`](super::Tracks)
/// or of [`Segments`](crate::Segments), in either precision.
type MotionsView<'a, M> = SoaView<'a, M, 6, <M as Motion>::Elem>;

/// CPA of the pairs `a[i]`, `b[i]` over `window`: the body of [`cpa()`].
fn cpa_pairs<M: Motion>(
    a: MotionsView<'_, M>,
    b: MotionsView<'_, M>,
    window: Window<M::Elem>,
    parallel: bool,
    out: &mut CpaBatch<M::Elem>,
) -> Result<(), Error> {
    check_len("batches a and b", a.len(), b.len())?;
    out.reset(a.len(), |_| true);
    let (a, b, n) = (a.raw_columns(), b.raw_columns(), a.len());
    <M::Elem as sealed::MotionQueries>::cpa_columns(
        M::ENDPOINTS,
        a,
        b,
        n,
        window.end(),
        parallel,
        out,
    );
    Ok(())
}

/// The number of pairs, after checking that `a`, `b` (of lengths `lens`) and per-pair radii
/// have it.
fn checked<E: Real>(lens: (usize, usize), radii: &Radii<'_, E>) -> Result<usize, Error> {
    check_len("batches a and b", lens.0, lens.1)?;
    radii.check_len(lens.0)?;
    Ok(lens.0)
}

/// First contact of the pairs `a[i]`, `b[i]` over `window`: the body of
/// [`first_contact`].
fn contact_pairs<M: Motion>(
    a: MotionsView<'_, M>,
    b: MotionsView<'_, M>,
    radii: Radii<'_, M::Elem>,
    window: Window<M::Elem>,
    parallel: bool,
    out: &mut ContactBatch<M::Elem>,
) -> Result<(), Error> {
    let n = checked((a.len(), b.len()), &radii)?;
    out.reset(n, |_| true);
    let (a, b) = (a.raw_columns(), b.raw_columns());
    <M::Elem as sealed::MotionQueries>::contact_columns(
        M::ENDPOINTS,
        a,
        b,
        n,
        radii,
        window.end(),
        parallel,
        out,
    );
    Ok(())
}

fn swept_sweeps<E: MotionElement>(
    a: SweepsView<'_, E>,
    b: SweepsView<'_, E>,
    radii: Radii<'_, E>,
    parallel: bool,
    out: &mut SweptBatch<E>,
) -> Result<(), Error> {
    let n = checked((a.len(), b.len()), &radii)?;
    out.reset(n, |_| true);
    E::swept_columns(a.raw_columns(), b.raw_columns(), n, radii, parallel, out);
    Ok(())
}

fn swept_pairs_indexed<'a, 'b, 'p>(
    a: SweepsView<'a>,
    b: SweepsView<'b>,
    pairs: &'p [(u32, u32)],
    radii: Radii<'_>,
    parallel: bool,
    out: &mut SweptBatch,
) -> Result<(), Error> {
    out.reset(0, |_| true);
    radii.check_objects(a.len(), b.len())?;
    check_pairs(pairs, a.len(), b.len())?;
    swept_indexed(a.columns(), b.columns(), pairs, radii, parallel, out);
    Ok(())
}

query_forms! {
    /// Closest point of approach of `a[i]` and `b[i]` over `window`, for every `i`, in the
    /// precision of the inputs (batched twin of [`reference::cpa`](crate::reference::cpa),
    /// bit-identical to it). The objects move along tracks ([`Tracks`](super::Tracks)) or,
    /// over a step, from `p0` at `t = 0` to `p1` at `t = 1` ([`Segments`](crate::Segments)):
    /// see [`Motion`].
    ///
    /// The `f64` query ([`Tracks64`](super::Tracks64) or
    /// [`Segments64`](crate::Segments64), [`Window64`](super::Window64)) runs `f64x8` lanes
    /// when the build has `avx512f`, `f64x4` otherwise
    /// ([`SIMD_LANES64`](crate::simd::SIMD_LANES64)).
    ///
    /// ```
    /// use segbatch::motion::{cpa, Track, Tracks, Window};
    /// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
    /// let b = Tracks::from(&[Track::new([2.0, 1.0, 0.0], [-2.0, 0.0, 0.0])]);
    /// let out = cpa(&a, &b, Window::STEP);
    /// assert_eq!(out.t(), &[0.5]);
    /// assert_eq!(out.dist2(), &[1.0]);
    /// ```
    ///
    /// In `f64`: two aircraft 1e7 m from the origin passing 0.25 m apart at `t = 0.5`; and
    /// two objects' steps in ECEF metres, where `f32` would resolve only 0.5 m.
    ///
    /// ```
    /// use segbatch::motion::{cpa, Track64, Tracks64, Window64};
    /// use segbatch::{Segment64, Segments64};
    /// let o = 1.0e7;
    /// let a = Tracks64::from(&[Track64::new([o, 0.0, 0.0], [2.0, 0.0, 0.0])]);
    /// let b = Tracks64::from(&[Track64::new([o + 2.0, 0.25, 0.0], [-2.0, 0.0, 0.0])]);
    /// let out = cpa(&a, &b, Window64::STEP);
    /// assert_eq!(out.t(), &[0.5]);
    /// assert_eq!(out.dist2(), &[0.0625]);
    ///
    /// let o = 6_378_137.0;
    /// let a = Segments64::from(&[Segment64::new([o, 0.0, 0.0], [o + 2.0, 0.0, 0.0])]);
    /// let b = Segments64::from(&[Segment64::new([o + 2.0, 1e-3, 0.0], [o, 1e-3, 0.0])]);
    /// let out = cpa(&a, &b, Window64::STEP);
    /// assert_eq!((out.t()[0], out.dist2()[0]), (0.5, 1e-3 * 1e-3));
    /// ```
    pub fn cpa / cpa_into / par_cpa / par_cpa_into
        <'a, 'b; M: Motion>(
            a: impl Into<MotionsView<'a, M>>,
            b: impl Into<MotionsView<'b, M>>,
            window: Window<M::Elem>,
        )
        with ()
        -> CpaBatch<M::Elem> = cpa_pairs;
    /// [`cpa`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a` and `b` differ in length (`out` is then
    /// unchanged).
    ///
    /// ```
    /// use segbatch::motion::{cpa_into, CpaBatch, Track, Tracks, Window};
    /// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
    /// let b = Tracks::from(&[Track::new([0.0, 3.0, 0.0], [1.0, 0.0, 0.0])]);
    /// let mut out = CpaBatch::new();
    /// cpa_into(&a, &b, Window::STEP, &mut out)?;
    /// assert_eq!((out.t()[0], out.dist2()[0]), (0.0, 9.0)); // same velocity: t = 0
    /// assert!(cpa_into(&a, &Tracks::new(), Window::STEP, &mut out).is_err());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    into;
}

query_forms! {
    /// First contact within `window` of spheres moving along `a[i]` and `b[i]`, with the
    /// given [`Radii`], for every `i`, in the precision of the inputs (batched twin of
    /// [`reference::first_contact`](crate::reference::first_contact), bit-identical to it).
    /// The centres move along tracks ([`Tracks`](super::Tracks)) or, over a step, from
    /// `p0` at `t = 0` to `p1` at `t = 1` ([`Segments`](crate::Segments)): see [`Motion`].
    ///
    /// ```
    /// use segbatch::motion::{first_contact, Track, Tracks, Window};
    /// use segbatch::pairs::Radii;
    /// use segbatch::{Segment, Segments};
    /// let a = Tracks::from(&[Track::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
    /// let b = Tracks::from(&[Track::new([4.0, 0.0, 0.0], [-2.0, 0.0, 0.0])]);
    /// let out = first_contact(&a, &b, Radii::uniform(0.5, 0.5)?, Window::STEP);
    /// assert_eq!(out.hit(), &[true]);
    /// assert_eq!(out.t(), &[0.75]);
    /// // Steps whose paths cross at right angles, but B arrives after A has gone.
    /// let a = Segments::from(&[Segment::new([-1.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
    /// let b = Segments::from(&[Segment::new([0.0, -3.0, 0.0], [0.0, -1.0, 0.0])]);
    /// let out = first_contact(&a, &b, Radii::per_pair(&[0.25], &[0.25])?, Window::STEP);
    /// assert_eq!(out.hit(), &[false]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// In `f64` ([`Tracks64`](super::Tracks64), [`Radii64`](crate::pairs::Radii64)): two
    /// aircraft 1e7 m from the origin closing at 4 m per step from 4 m apart.
    ///
    /// ```
    /// use segbatch::motion::{first_contact, Track64, Tracks64, Window64};
    /// use segbatch::pairs::Radii64;
    /// let o = 1.0e7;
    /// let a = Tracks64::from(&[Track64::new([o, 0.0, 0.0], [2.0, 0.0, 0.0])]);
    /// let b = Tracks64::from(&[Track64::new([o + 4.0, 0.0, 0.0], [-2.0, 0.0, 0.0])]);
    /// let out = first_contact(&a, &b, Radii64::uniform(0.5, 0.5)?, Window64::STEP);
    /// assert_eq!(out.hit(), &[true]);
    /// assert_eq!(out.t(), &[0.75]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn first_contact / first_contact_into / par_first_contact / par_first_contact_into
        <'a, 'b; M: Motion>(
            a: impl Into<MotionsView<'a, M>>,
            b: impl Into<MotionsView<'b, M>>,
            radii: Radii<'_, M::Elem>,
            window: Window<M::Elem>,
        )
        with ()
        -> ContactBatch<M::Elem> = contact_pairs;
    /// [`first_contact`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a`, `b` or per-pair radii differ in length.
    into;
}

query_forms! {
    /// First contact during one step of capsules whose core end points move linearly, from
    /// `a[i].start` to `a[i].end` and from `b[i].start` to `b[i].end`, with the given
    /// [`Radii`], in the precision of the sweeps (batched twin of
    /// [`reference::first_contact_capsules`](crate::reference::first_contact_capsules),
    /// bit-identical to it). The method, its tolerance and its guarantees are in the docs
    /// of `src/motion/swept.rs` and `docs/motion.md`: the reported time is never after the
    /// first contact, so a thin, fast capsule never passes through another unseen.
    ///
    /// ```
    /// use segbatch::motion::{first_contact_capsules, Sweep, Sweeps};
    /// use segbatch::pairs::Radii;
    /// use segbatch::Segment;
    /// // A bullet (radius 0.05) flying 10 units in one step through a wall 0.05 thick at x = 5:
    /// // the start and end positions are both clear of the wall.
    /// let bullet = Sweeps::from(&[Sweep::new(
    ///     Segment::new([0.0, 0.0, 0.0], [0.2, 0.0, 0.0]),
    ///     Segment::new([10.0, 0.0, 0.0], [10.2, 0.0, 0.0]),
    /// )]);
    /// let wall = Sweeps::from(&[Sweep::fixed(Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]))]);
    /// let out = first_contact_capsules(&bullet, &wall, Radii::uniform(0.05, 0.05)?);
    /// assert_eq!(out.hit(), &[true]);
    /// // The bullet's front end meets the wall at x = 5 - 0.1: t = 4.7 / 10.
    /// assert!((out.t()[0] - 0.47).abs() < 1e-4);
    /// assert_eq!(out.get(0).unwrap().normal, [-1.0, 0.0, 0.0]);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    ///
    /// The same bullet in `f64` ([`Sweeps64`](super::Sweeps64)), 6.4e6 m from the origin:
    ///
    /// ```
    /// use segbatch::motion::{first_contact_capsules, Sweep64, Sweeps64};
    /// use segbatch::pairs::Radii64;
    /// use segbatch::Segment64;
    /// let o = 6.4e6;
    /// let bullet = Sweeps64::from(&[Sweep64::new(
    ///     Segment64::new([o, 0.0, 0.0], [o + 0.2, 0.0, 0.0]),
    ///     Segment64::new([o + 10.0, 0.0, 0.0], [o + 10.2, 0.0, 0.0]),
    /// )]);
    /// let wall = Segment64::new([o + 5.0, -1.0, 0.0], [o + 5.0, 1.0, 0.0]);
    /// let wall = Sweeps64::from(&[Sweep64::fixed(wall)]);
    /// let out = first_contact_capsules(&bullet, &wall, Radii64::uniform(0.05, 0.05)?);
    /// assert!(out.hit()[0] && (out.t()[0] - 0.47).abs() < 1e-4);
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn first_contact_capsules / first_contact_capsules_into
        / par_first_contact_capsules / par_first_contact_capsules_into
        <'a, 'b; E: MotionElement>(
            a: impl Into<SweepsView<'a, E>>,
            b: impl Into<SweepsView<'b, E>>,
            radii: Radii<'_, E>,
        )
        with ()
        -> SweptBatch<E> = swept_sweeps;
    /// [`first_contact_capsules`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when `a`, `b` or per-pair radii differ in length.
    into;
}

query_forms! {
    /// [`first_contact_capsules`] of the index pairs `(a[i], b[j])` of `pairs`, gathered
    /// straight from the sets' columns (a broad phase's candidates): result `k` is
    /// [`reference::first_contact_capsules`](crate::reference::first_contact_capsules) of
    /// the pair `pairs[k]`, bit for bit. Radii uniform or per object
    /// ([`Radii::per_object`]).
    ///
    /// ```
    /// use segbatch::motion::{first_contact_capsules_indexed, Sweep, Sweeps};
    /// use segbatch::pairs::Radii;
    /// use segbatch::Segment;
    /// let wall = Sweep::fixed(Segment::new([5.0, -1.0, 0.0], [5.0, 1.0, 0.0]));
    /// let fly = |y: f32| Sweep::new(
    ///     Segment::new([0.0, y, 0.0], [0.1, y, 0.0]),
    ///     Segment::new([10.0, y, 0.0], [10.1, y, 0.0]),
    /// );
    /// let set = Sweeps::from(&[wall, fly(0.0), fly(3.0)]);
    /// let radii = [0.05, 0.05, 0.05];
    /// let out = first_contact_capsules_indexed(&set, &set, &[(0, 1), (0, 2)], Radii::per_object(&radii, &radii)?);
    /// assert_eq!(out.hit(), &[true, false]); // the second flies past the wall's end
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    pub fn first_contact_capsules_indexed / first_contact_capsules_indexed_into
        / par_first_contact_capsules_indexed / par_first_contact_capsules_indexed_into
        <'a, 'b, 'p>(a: impl Into<SweepsView<'a>>, b: impl Into<SweepsView<'b>>, pairs: &'p [(u32, u32)], radii: Radii<'_>)
        with ()
        -> SweptBatch = swept_pairs_indexed;
    /// [`first_contact_capsules_indexed`] writing into `out` and reusing its buffers.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for a pair naming an element past the end of its set;
    /// [`Error::LengthMismatch`] when per-object radii do not match their sets (`out` is
    /// then empty).
    into;
}
