//! Row-aware set queries: pieces that belong to rows (the segments of one polyline, the
//! parts of one street or track), and answers about pairs of rows.
//!
//! Geospatial callers keep a track, a street or a river as one row of many pieces and ask
//! about rows: which rows meet, which come within 25 m of each other. Asked of the pieces,
//! most of the work is wasted: consecutive pieces of one row share a vertex, so they always
//! meet (380K of 515K meeting piece pairs on 60K GPS tracks), and two rows that meet at all
//! often meet through many pieces. The row forms remove both costs where they arise:
//!
//! - **pairs within one row are no candidates.** Each piece carries its row; the scan of
//!   the grid masks the lanes of the probe's own row with a vector compare
//!   (the narrow phase's `rows`, in `src/prune/plan.rs`), before the lanes become candidates, so the
//!   kernel never decides them and they are never returned;
//! - **a row pair is decided once a task.** The narrow phase keeps, for the task it runs
//!   (a run of grid cells), the row pairs that already met in a hash set; with
//!   [`RowAnswer::Any`] the candidates of those row pairs are dropped before the next run
//!   of the kernel, so a pair of parallel tracks costs one meeting piece pair, not every
//!   one. The state starts afresh with every task, so what a task reports depends on the
//!   task alone (never on the thread that ran it or on the thread count);
//! - **each row pair once.** The hits of all tasks are sorted by row pair and rank and the
//!   first of each row pair kept (`O(K log K)` over row pairs, on all cores when asked).
//!
//! # Which piece pair a row pair reports
//!
//! Every row pair carries the hit of one piece pair of it ([`RowHit::hit`]: its pieces, and
//! the crossing point's parameter or the squared distance). The hits are ranked by squared
//! distance (0 for a crossing), then by piece pair `(i, j)`:
//!
//! - [`RowAnswer::Least`] decides every candidate and reports the least-ranked hit of the
//!   row pair: for crossings the meeting piece pair with the lowest `(i, j)`, for radius
//!   queries the closest piece pair (the row pair's distance). It depends on the pieces
//!   alone, so any partition of the work (threads, Dask tiles) gives the same hit;
//! - [`RowAnswer::Any`] stops deciding a row pair once it met in a task (above) and reports
//!   the least-ranked hit among those it decided: the same row pairs, and a hit that meets,
//!   for less work. Which hit depends on the grid (never on the thread count).

use crate::batch::Error;
use crate::prune::{Kept, Narrow, SphereColumns};
use core::hash::{BuildHasherDefault, Hasher};
use std::collections::HashMap;
use std::collections::hash_map::Entry;

/// A pair of rows that meet (or lie within the radius), with the hit of the piece pair
/// that decides it ([module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RowHit<H> {
    /// The row of the first piece (within one set the lower row of the two; of two sets,
    /// A's row).
    pub a: u32,
    /// The row of the second piece (within one set, `b > a`; of two sets, B's row).
    pub b: u32,
    /// The hit of the piece pair that decides the row pair, its indices those of the
    /// pieces (`i` in the set or A, `j` in the set or B).
    pub hit: H,
}

/// Which hit a row query reports for each row pair ([module docs](self)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RowAnswer {
    /// Whether the rows meet: a row pair stops being decided once one of its piece pairs
    /// met within a task; the hit is one that meets.
    #[default]
    Any,
    /// The least-ranked hit of the row pair (squared distance, then piece pair): every
    /// candidate is decided, and the hit depends on the pieces alone.
    Least,
}

/// A hit a row query can rank: its piece pair and its rank ([module docs](self)).
pub(crate) trait Ranked: Copy + Default + Send + Sync {
    /// The piece pair `(i, j)`.
    fn pieces(&self) -> (u32, u32);
    /// The squared distance of the pair as ordered bits (0 for a crossing).
    fn distance_key(&self) -> u64;
    /// The rank: distance first, then the piece pair.
    #[inline]
    fn rank(&self) -> (u64, u64) {
        let (i, j) = self.pieces();
        (self.distance_key(), u64::from(i) << 32 | u64::from(j))
    }
}

/// A hasher for row-pair keys (two `u32` in a `u64`): one wide multiply, whose high and low
/// halves folded together mix every input bit into the bits a table uses. The standard
/// SipHash costs several times as much a key and guards against attacks that row numbers
/// chosen by the caller cannot mount on a table that lives for one task.
#[derive(Default)]
pub(crate) struct RowHasher(u64);

impl Hasher for RowHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ u64::from(b));
        }
    }

    #[inline]
    fn write_u64(&mut self, x: u64) {
        let m = u128::from(x ^ self.0) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (m >> 64) as u64 ^ m as u64;
    }
}

/// Where a row query hands its blocks of row hits: answers whether the query goes on.
pub(crate) type RowSink<'s, H> = dyn FnMut(&[RowHit<H>]) -> bool + 's;

/// The row pairs met so far in a task, with the rank of the hit reported for each.
type Met = HashMap<u64, (u64, u64), BuildHasherDefault<RowHasher>>;

/// The rows of the pieces of a row query: one set's, or A's and B's.
#[derive(Clone, Copy)]
pub(crate) struct Rows<'r> {
    /// The row of each piece of the set (or of A).
    pub(crate) a: &'r [u32],
    /// The row of each piece of B, `None` within one set.
    pub(crate) b: Option<&'r [u32]>,
}

impl<'r> Rows<'r> {
    /// Checks the rows against the sets' lengths.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when a list of rows is not one row a piece of its set.
    pub(crate) fn checked(
        a: &'r [u32],
        na: usize,
        b: Option<(&'r [u32], usize)>,
    ) -> Result<Self, Error> {
        let check = |what, rows: &[u32], n| {
            if rows.len() == n {
                Ok(())
            } else {
                Err(Error::LengthMismatch {
                    what,
                    expected: n,
                    found: rows.len(),
                })
            }
        };
        check("rows (one a piece)", a, na)?;
        if let Some((rb, nb)) = b {
            check("rows of b (one a piece)", rb, nb)?;
        }
        Ok(Rows {
            a,
            b: b.map(|(rb, _)| rb),
        })
    }

    /// The row pair of the piece pair `(i, j)` (of the set, or `i` of A and `j` of B), as
    /// reported (within one set the lower row first), and `None` for two pieces of one row
    /// of one set.
    #[inline]
    pub(crate) fn pair(&self, i: u32, j: u32) -> Option<(u32, u32)> {
        let ra = self.a[i as usize];
        match self.b {
            Some(b) => Some((ra, b[j as usize])),
            None => {
                let rb = self.a[j as usize];
                (ra != rb).then_some((ra.min(rb), ra.max(rb)))
            }
        }
    }

    /// The row of each of the grid's positions, from its ids (ids of B follow A's `na`).
    pub(crate) fn by_position(&self, ids: &[u32]) -> Vec<u32> {
        let na = self.a.len();
        ids.iter()
            .map(|&id| {
                let id = id as usize;
                match self.b {
                    Some(b) if id >= na => b[id - na],
                    _ => self.a[id],
                }
            })
            .collect()
    }
}

/// The key of a row pair in the per-task set.
#[inline]
fn key((a, b): (u32, u32)) -> u64 {
    u64::from(a) << 32 | u64::from(b)
}

/// A piece query's narrow phase `N` made row-aware ([module docs](self)): the rows of its
/// positions for the scan's mask, and the per-task set of row pairs met.
pub(crate) struct ByRow<'r, N> {
    pub(crate) inner: N,
    pub(crate) rows: Rows<'r>,
    /// The row of each position (the scan's mask): within one set, the pieces' rows; of two
    /// sets, A's rows and B's rows offset past them would mask nothing a split does not, so
    /// `None` there (the split already drops pairs of one side).
    pub(crate) by_position: Option<Vec<u32>>,
    pub(crate) answer: RowAnswer,
}

/// The buffers of [`ByRow::decide`]: the inner phase's, its hits, the candidates kept and
/// the row pairs met in the task.
pub(crate) struct RowScratch<S, H> {
    inner: S,
    hits: Kept<H>,
    kept: Vec<(u32, u32)>,
    met: Met,
}

impl<S: Default, H: Copy + Default> Default for RowScratch<S, H> {
    fn default() -> Self {
        RowScratch {
            inner: S::default(),
            hits: Kept::with_room(0),
            kept: Vec::new(),
            met: Met::default(),
        }
    }
}

impl<const D: usize, N: Narrow<D>> Narrow<D> for ByRow<'_, N>
where
    N::Hit: Ranked,
{
    type Hit = RowHit<N::Hit>;
    type Scratch = RowScratch<N::Scratch, N::Hit>;
    type Probe = N::Probe;

    fn split(&self) -> Option<u32> {
        self.inner.split()
    }

    #[inline(always)]
    fn probe(&self, p: usize) -> Option<N::Probe> {
        self.inner.probe(p)
    }

    #[inline(always)]
    fn refine(&self, probe: &N::Probe, j: usize, spheres: &SphereColumns<D>, bits: u32) -> u32 {
        self.inner.refine(probe, j, spheres, bits)
    }

    fn pair(hit: &RowHit<N::Hit>) -> (u32, u32) {
        (hit.a, hit.b)
    }

    #[inline(always)]
    fn rows(&self) -> Option<&[u32]> {
        self.by_position.as_deref()
    }

    fn begin(&self, scratch: &mut Self::Scratch) {
        scratch.met.clear();
    }

    fn decide(
        &self,
        ids: &[u32],
        candidates: &[(u32, u32)],
        scratch: &mut Self::Scratch,
        out: &mut Kept<RowHit<N::Hit>>,
    ) {
        let RowScratch {
            inner,
            hits,
            kept,
            met,
        } = scratch;
        // The row pair of a candidate (positions; of two sets, A's first).
        let na = self.rows.a.len() as u32;
        let of = |p: u32, q: u32| {
            let (i, j) = (ids[p as usize], ids[q as usize]);
            match self.rows.b {
                Some(_) => self.rows.pair(i, j - na),
                None => self.rows.pair(i, j),
            }
        };
        let candidates = if self.answer == RowAnswer::Any && !met.is_empty() {
            kept.clear();
            kept.extend(
                candidates
                    .iter()
                    .filter(|&&(p, q)| of(p, q).is_some_and(|r| !met.contains_key(&key(r)))),
            );
            kept.as_slice()
        } else {
            candidates
        };
        hits.clear();
        self.inner.decide(ids, candidates, inner, hits);
        for &hit in hits.take() {
            let (i, j) = hit.pieces();
            let Some((a, b)) = self.rows.pair(i, j) else {
                continue;
            };
            let rank = hit.rank();
            let better = match met.entry(key((a, b))) {
                Entry::Vacant(v) => {
                    v.insert(rank);
                    true
                }
                Entry::Occupied(mut o) => {
                    let better = self.answer == RowAnswer::Least && rank < *o.get();
                    if better {
                        o.insert(rank);
                    }
                    better
                }
            };
            if better {
                out.push(RowHit { a, b, hit });
            }
        }
    }
}

/// The row hits of piece hits found without the grid (the brute-force tiles of small
/// sets): each hit's row pair, the pairs within one row of one set left out, appended to
/// `out` (grown with `try_reserve`).
///
/// # Errors
/// [`Error::OutOfMemory`] naming `what` when `out` cannot grow.
pub(crate) fn of_pieces<H: Ranked>(
    hits: &[H],
    rows: Rows<'_>,
    what: &'static str,
    out: &mut Vec<RowHit<H>>,
) -> Result<(), Error> {
    out.try_reserve(hits.len())
        .map_err(|_| Error::OutOfMemory {
            what,
            elements: out.len() + hits.len(),
        })?;
    out.extend(hits.iter().filter_map(|&hit| {
        let (i, j) = hit.pieces();
        rows.pair(i, j).map(|(a, b)| RowHit { a, b, hit })
    }));
    Ok(())
}

/// Each row pair once: `hits` sorted by row pair, then rank, and the first of each row pair
/// kept (sorted on all cores when `parallel`).
pub(crate) fn once<H: Ranked>(hits: &mut Vec<RowHit<H>>, parallel: bool) {
    let order = |h: &RowHit<H>| (key((h.a, h.b)), h.hit.rank());
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::slice::ParallelSliceMut;
        hits.par_sort_unstable_by_key(order);
        hits.dedup_by_key(|h| key((h.a, h.b)));
        return;
    }
    let _ = parallel;
    hits.sort_unstable_by_key(order);
    hits.dedup_by_key(|h| key((h.a, h.b)));
}

/// Collects the blocks of a row query into `out` (each row pair once, sorted by row pair):
/// `each` runs the query, handing its blocks to the sink it is given, which answers whether
/// to go on.
///
/// # Errors
/// [`Error::OutOfMemory`] naming `what` when `out` cannot grow to the hits found (`out` is
/// then empty).
pub(crate) fn collect<H: Ranked>(
    each: impl FnOnce(&mut RowSink<'_, H>),
    parallel: bool,
    what: &'static str,
    out: &mut Vec<RowHit<H>>,
) -> Result<(), Error> {
    out.clear();
    let mut short = None;
    each(&mut |block: &[RowHit<H>]| {
        if out.try_reserve(block.len()).is_err() {
            short = Some(out.len() + block.len());
            return false;
        }
        out.extend_from_slice(block);
        true
    });
    if let Some(elements) = short {
        out.clear();
        return Err(Error::OutOfMemory { what, elements });
    }
    once(out, parallel);
    Ok(())
}
