//! The radius queries in `f64`: every A against every B ([`pairs_within64`]) and all pairs
//! `i < j` of one set ([`self_pairs_within64`]), by brute force over tiles.
//!
//! No grid: each row `a[i]` runs against a tile of [`TILE_B`] segments of B through the
//! driver's one-to-many loop over the `f64` lane type (the same kernel and driver as
//! [`closest_points64_one_to_many`](crate::pairs::closest_points64_one_to_many)), into a scratch
//! batch of `s`, `t`, `dist2` that stays in L1, which is then scanned for
//! `dist2 <= radius²`. So every reported value is bit for bit
//! `reference::closest_points64_with`'s for that pair, and the pairs are exactly those of
//! brute force over the reference. The parallel forms hand out blocks of
//! [`TILE_A`](crate::sets::TILE_A) rows above [`PAR_MIN_PAIR_TESTS`](crate::pairs::PAR_MIN_PAIR_TESTS)
//! pair tests; the list is the same.

use super::hits::SharedEndpoints;
use super::hits::{TILE_A, TILE_B};
use crate::batch::{Error, Segments64View, check_u32};
use crate::forms::query_forms;
use crate::pairs::{ClosestBatch64, Outputs, one_to_many64};
use crate::prune::ordered;
use crate::segment::{Options, Segment64};
use core::ops::Range;

/// A pair within the radius of a [`pairs_within64`] or [`self_pairs_within64`] query:
/// [`Hit`](crate::sets::Hit)'s `f64` twin, `a[i]` against `b[j]` (or `set[i]` against `set[j]`,
/// `i < j`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Hit64 {
    /// Index in A (or in the set).
    pub i: u32,
    /// Index in B (or in the set, `j > i`).
    pub j: u32,
    /// Squared distance of the closest points.
    pub dist2: f64,
    /// Parameter of the closest point along `a[i]`.
    pub s: f64,
    /// Parameter of the closest point along `b[j]`.
    pub t: f64,
}

impl Hit64 {
    /// The distance `sqrt(dist2)`.
    #[inline]
    #[must_use]
    pub fn distance(&self) -> f64 {
        self.dist2.sqrt()
    }
}

/// `radius²`, or an error for a negative or NaN radius.
fn radius2(radius: f64) -> Result<f64, Error> {
    if radius >= 0.0 {
        Ok(radius * radius)
    } else {
        Err(Error::InvalidRadius { index: None })
    }
}

/// True when an end point of `a` equals one of `b` (all three coordinates, with `==`).
fn shares_endpoint(a: &Segment64, b: &Segment64) -> bool {
    [a.p0, a.p1].iter().any(|p| *p == b.p0 || *p == b.p1)
}

/// One brute-force radius query: rows of `a` against columns of `b`.
struct Within64<'v, 'o> {
    a: Segments64View<'v>,
    b: Segments64View<'v>,
    options: &'o Options,
    r2: f64,
    /// Only pairs `j > i` (a set against itself).
    upper: bool,
    /// Drop pairs that share an end point.
    skip_shared: bool,
}

impl Within64<'_, '_> {
    /// Appends the hits of rows `rows` against every column to `out`, sorted by `(i, j)`.
    fn rows(&self, rows: Range<usize>, out: &mut Vec<Hit64>) {
        let start = out.len();
        let nb = self.b.len();
        let mut scratch = ClosestBatch64::new();
        for bb in (0..nb).step_by(TILE_B) {
            let bend = (bb + TILE_B).min(nb);
            for i in rows.clone() {
                let lo = if self.upper { bb.max(i + 1) } else { bb };
                if lo >= bend {
                    continue;
                }
                let one = self.a.get(i).expect("a row of A");
                let tile = self.b.view(lo..bend);
                one_to_many64(
                    &one,
                    tile,
                    self.options,
                    Outputs::PARAMS,
                    false,
                    &mut scratch,
                )
                .expect("one-to-many takes every input");
                let (s, t) = (scratch.s(), scratch.t());
                for (k, &dist2) in scratch.dist2().iter().enumerate() {
                    if dist2 <= self.r2
                        && !(self.skip_shared && shares_endpoint(&one, &tile.get(k).expect("k")))
                    {
                        // The queries check that their sets have at most `u32::MAX` objects.
                        out.push(Hit64 {
                            i: i as u32,
                            j: (lo + k) as u32,
                            dist2,
                            s: s[k],
                            t: t[k],
                        });
                    }
                }
            }
        }
        out[start..].sort_unstable_by_key(|h| (h.i, h.j));
    }

    /// Every hit, sorted by `(i, j)`, appended to `out` (grown with `try_reserve`):
    /// blocks of [`TILE_A`] rows in order, sequentially, or when `parallel` and there are
    /// at least [`PAR_MIN_PAIR_TESTS`](crate::pairs::PAR_MIN_PAIR_TESTS) pair `tests`, on all cores
    /// (the same list).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] naming `what` when `out` cannot grow (`out` is then empty).
    fn run(
        &self,
        tests: usize,
        parallel: bool,
        what: &'static str,
        out: &mut Vec<Hit64>,
    ) -> Result<(), Error> {
        let na = self.a.len();
        let block = |k: usize, buf: &mut Vec<Hit64>, emit: &mut dyn FnMut(&[Hit64]) -> bool| {
            buf.clear();
            self.rows(k * TILE_A..((k + 1) * TILE_A).min(na), buf);
            emit(buf);
        };
        let parallel = parallel && tests >= crate::driver::PAR_MIN_PAIR_TESTS;
        let mut short = None;
        let append = |hits: Vec<Hit64>| {
            if out.try_reserve(hits.len()).is_err() {
                short = Some(out.len() + hits.len());
                return false;
            }
            out.extend_from_slice(&hits);
            true
        };
        ordered(
            na.div_ceil(TILE_A),
            parallel,
            Vec::new,
            block,
            <[Hit64]>::to_vec,
            append,
        );
        match short {
            Some(elements) => {
                out.clear();
                Err(Error::OutOfMemory { what, elements })
            }
            None => Ok(()),
        }
    }
}

query_forms! {
    /// Every pair `(i, j)` of `a[i]` and `b[j]` whose squared distance is at most
    /// `radius²` (in `f64`), segment against segment, sorted by `(i, j)`:
    /// [`pairs_within`](crate::sets::pairs_within)'s `f64` twin, by brute force over tiles
    /// (module docs). A pair with a non-finite coordinate is never within any radius.
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::pairs_within64;
    /// let o = 6_378_137.0;
    /// let walls = Segments64::from(&[
    ///     Segment64::new([o, 0.0, 0.0], [o, 4.0, 0.0]),
    ///     Segment64::new([o + 10.0, 0.0, 0.0], [o + 10.0, 4.0, 0.0]),
    /// ]);
    /// let paths = Segments64::from(&[Segment64::new([o + 0.5, 2.0, 0.0], [o + 3.0, 2.0, 0.0])]);
    /// let hits = pairs_within64(&walls, &paths, 1.0);
    /// assert_eq!(hits.len(), 1);
    /// assert_eq!((hits[0].i, hits[0].j, hits[0].dist2), (0, 0, 0.25));
    /// ```
    pub fn pairs_within64 / pairs_within64_into / par_pairs_within64 / par_pairs_within64_into
        <'a, 'b>(a: impl Into<Segments64View<'a>>, b: impl Into<Segments64View<'b>>, radius: f64)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<Hit64> = within64;
    /// The general form of [`pairs_within64`]: extents and tolerance from `options`, the
    /// hits written into `out` (cleared first, allocation reused).
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when `radius` is negative or NaN; [`Error::TooManyObjects`]
    /// for more than `u32::MAX` segments in a set; [`Error::OutOfMemory`] when the
    /// output cannot grow to the hits found (it is grown with `try_reserve`; `out` is then
    /// empty: the streamed forms take any number of hits).
    ///
    /// ```
    /// use segbatch::{Extent, Options, Segment64, Segments64};
    /// use segbatch::sets::pairs_within64_into;
    /// // A sight ray against walls: only the wall it points at is within 0.5.
    /// let ray = Segments64::from(&[Segment64::new([0.0, 0.0, 0.0], [1.0, 0.0, 0.0])]);
    /// let walls = Segments64::from(&[
    ///     Segment64::new([50.0, -1.0, 0.25], [50.0, 1.0, 0.25]),
    ///     Segment64::new([-50.0, -1.0, 0.25], [-50.0, 1.0, 0.25]),
    /// ]);
    /// let mut hits = Vec::new();
    /// pairs_within64_into(&ray, &walls, 0.5, &Options::new(Extent::Ray, Extent::Segment), &mut hits)?;
    /// assert_eq!(hits.iter().map(|h| h.j).collect::<Vec<_>>(), vec![0]);
    /// assert!(pairs_within64_into(&ray, &walls, -1.0, &Options::SEGMENTS, &mut hits).is_err());
    /// assert!(hits.is_empty());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    into;
}

fn within64<'a, 'b>(
    a: impl Into<Segments64View<'a>>,
    b: impl Into<Segments64View<'b>>,
    radius: f64,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit64>,
) -> Result<(), Error> {
    out.clear();
    let (a, b) = (a.into(), b.into());
    let r2 = radius2(radius)?;
    check_u32(a.len().max(b.len()))?;
    let query = Within64 {
        a,
        b,
        options,
        r2,
        upper: false,
        skip_shared: false,
    };
    query.run(
        a.len().saturating_mul(b.len()),
        parallel,
        "pairs_within64 output",
        out,
    )
}

query_forms! {
    /// Every pair `i < j` of `set` whose squared distance is at most `radius²` (in `f64`),
    /// segment against segment, sorted by `(i, j)`:
    /// [`self_pairs_within`](crate::sets::self_pairs_within)'s `f64` twin, by brute force over
    /// the upper triangle (module docs).
    ///
    /// ```
    /// use segbatch::{Segment64, Segments64};
    /// use segbatch::sets::{self_pairs_within64, SharedEndpoints};
    /// // A path 1e9 from the origin that folds back 0.25 from its own start.
    /// let o = 1.0e9;
    /// let path = Segments64::from(&[
    ///     Segment64::new([o, 0.0, 0.0], [o + 4.0, 0.0, 0.0]),
    ///     Segment64::new([o + 4.0, 0.0, 0.0], [o + 4.0, 2.0, 0.0]),
    ///     Segment64::new([o + 4.0, 2.0, 0.0], [o + 1.0, 0.25, 0.0]),
    /// ]);
    /// let all = self_pairs_within64(&path, 0.5, SharedEndpoints::Keep);
    /// assert_eq!(all.iter().map(|h| (h.i, h.j)).collect::<Vec<_>>(), vec![(0, 1), (0, 2), (1, 2)]);
    /// let folds = self_pairs_within64(&path, 0.5, SharedEndpoints::Skip);
    /// assert_eq!(folds.len(), 1);
    /// assert_eq!((folds[0].i, folds[0].j, folds[0].dist2), (0, 2, 0.0625));
    /// ```
    pub fn self_pairs_within64 / self_pairs_within64_into
        / par_self_pairs_within64 / par_self_pairs_within64_into
        <'a>(set: impl Into<Segments64View<'a>>, radius: f64, shared: SharedEndpoints)
        with (options: &Options = &Options::SEGMENTS)
        -> Vec<Hit64> = self_within64;
    /// The general form of [`self_pairs_within64`]: `options.extent_a` applies to
    /// `set[i]`, `options.extent_b` to `set[j]`; the hits are written into `out` (cleared
    /// first, allocation reused).
    ///
    /// # Errors
    /// [`Error::InvalidRadius`] when `radius` is negative or NaN; [`Error::TooManyObjects`]
    /// for more than `u32::MAX` segments in a set; [`Error::OutOfMemory`] when the
    /// output cannot grow to the hits found (it is grown with `try_reserve`; `out` is then
    /// empty: the streamed forms take any number of hits).
    ///
    /// ```
    /// use segbatch::{Options, Segment64, Segments64};
    /// use segbatch::sets::{self_pairs_within64_into, SharedEndpoints};
    /// let set = Segments64::from(&[Segment64::new([0.0; 3], [1.0, 0.0, 0.0]); 3]);
    /// let mut hits = Vec::new();
    /// self_pairs_within64_into(&set, 0.0, SharedEndpoints::Keep, &Options::SEGMENTS, &mut hits)?;
    /// assert_eq!(hits.len(), 3); // three identical segments: every pair at distance 0
    /// assert!(self_pairs_within64_into(&set, f64::NAN, SharedEndpoints::Keep, &Options::SEGMENTS, &mut hits).is_err());
    /// assert!(hits.is_empty());
    /// # Ok::<(), segbatch::Error>(())
    /// ```
    into;
}

fn self_within64<'a>(
    set: impl Into<Segments64View<'a>>,
    radius: f64,
    shared: SharedEndpoints,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit64>,
) -> Result<(), Error> {
    out.clear();
    let set = set.into();
    let n = set.len();
    let r2 = radius2(radius)?;
    check_u32(n)?;
    let query = Within64 {
        a: set,
        b: set,
        options,
        r2,
        upper: true,
        skip_shared: shared == SharedEndpoints::Skip,
    };
    let what = "self_pairs_within64 output";
    query.run(n.saturating_mul(n) / 2, parallel, what, out)
}
