//! The pair-kernel driver: the one place that cuts inputs into groups of pairs, pads
//! tails, chooses between a kernel's common-case and masked paths, stores results and
//! splits work across threads.
//!
//! It is generic over the lane type (`L: Lane`, `f32x8` by default): a group is one `L`
//! per input column, `L::WIDTH` pairs (8 for `f32x8`, 4 or 8 for the `f64` queries'
//! `f64x4`/`f64x8`), cut from `f32` or `f64` columns alike. Every batch is padded to
//! [`LANES`] = 8, a multiple of every width, so whole groups read in place for all of them.
//!
//! A query supplies only its lane math, as a [`PairKernel`]: a `general` path that returns
//! `None` unless every lane of the group is the common case, and a `masked` path that
//! handles every lane (the two give the same bits wherever both apply). The driver runs
//!
//! ```text
//! for each whole group g read in place:        general(g), or masked(g) out of line
//! the last partial group, if not padded in place: copied into zero-padded buffers, masked
//! ```
//!
//! and stores each group into the query's output columns ([`GroupStore`]), which are
//! always padded to whole groups, so no store is partial. Keeping the masked path out of
//! line (`#[inline(never)]`) keeps the hot loop small enough for the sixteen vector
//! registers; cutting every input and output column to exactly the number of groups in the
//! loop's own function lets the compiler drop every bounds check.
//!
//! # Adaptive paths
//!
//! A kernel may offer a second common path, [`PairKernel::special`], which also solves the
//! lanes that are rare in most data but common in some (degenerate and parallel pairs:
//! rays along walls, collinear pieces). Compiled into the loop it costs every group a
//! little; sending those groups to the masked path costs them a lot. So the loop runs
//! blocks of [`ADAPT_BLOCK`] groups through the lean `general` path and counts the groups
//! it misses (each solved out of line, by `special` if it can and the masked path if
//! not); after a block that missed more than one group in [`ADAPT_MISS_SHARE`], it
//! runs the next [`ADAPT_SPECIAL_BLOCKS`] blocks through `special`, then measures again
//! with a lean block. Both paths give the same bits wherever they return lanes, so the
//! results do not depend on the choice (nor on the thread count: a parallel piece starts
//! lean like the whole).
//!
//! # Parallel split
//!
//! [`par_run`] (feature `rayon`) halves the pairs recursively at multiples of
//! [`PAR_CHUNK_PAIRS`] with `rayon::join`, so every piece but the last runs exactly the
//! groups the sequential loop would: results are bitwise identical on any thread count.
//! [`run_x16`] with `parallel` cuts the same way (both through `par_leaves`), so its pieces
//! hold whole 16-lane groups.
//! Below [`PAR_MIN_PAIRS`] pairs it stays on the calling thread. The `N × M` radius queries
//! run blocks of rows (and of columns, when the rows are few) on all cores instead, above
//! [`PAR_MIN_PAIR_TESTS`] pair tests, handing their hits on in order
//! ([`crate::prune::ordered`]).
//!
//! The core API stays single-threaded on views, so an engine with its own job system can
//! split a batch the same way.

use crate::batch::{LANES, SegmentsView, padded_len};
use crate::columns::GroupStore;
use crate::lanes::{Lane, V3};
use bytemuck::{Pod, Zeroable};
use wide::{f32x8, f32x16};

/// The lane math of a pairwise query over `C` input columns (12 for a pair of 3D sides:
/// `a.x0 … a.z1, b.x0 … b.z1`; 8 for 2D; more with per-pair radii), one group of lanes of
/// type `L` at a time (`f32x8` unless said otherwise; `f64x4` or `f64x8` for the `f64`
/// queries).
pub(crate) trait PairKernel<const C: usize, L: Lane = f32x8>: Sync {
    /// One group's results, as the query's [`GroupStore`] takes them.
    type Lanes;

    /// The common case: `None` unless every lane takes it. `load` gives the group's input
    /// columns (call it again rather than keeping all of them live, if registers are short).
    fn general(&self, load: impl Fn() -> [L; C]) -> Option<Self::Lanes>;

    /// Every lane, whatever it holds.
    fn masked(&self, x: [L; C]) -> Self::Lanes;

    /// Whether [`special`](Self::special) is a path of its own (the driver adapts only
    /// then).
    const SPECIAL: bool = false;

    /// Like [`general`](Self::general), but also solving the lanes that are rare in most
    /// data and common in some (see "Adaptive paths" above); the same bits wherever both
    /// return lanes.
    #[inline(always)]
    fn special(&self, load: impl Fn() -> [L; C]) -> Option<Self::Lanes> {
        self.general(load)
    }
}

/// Groups per block of the adaptive choice between a kernel's `general` and `special`
/// paths (a whole block runs one path, so the choice is one branch a block).
pub(crate) const ADAPT_BLOCK: usize = 32;
/// A lean block that misses more groups than `ADAPT_BLOCK / ADAPT_MISS_SHARE` switches to
/// the special path. Through the lean path a missed group costs the lean attempt and then
/// the special path (or, failing that, the masked path, several times a general group);
/// the special path costs every group a little more, special lane or not (the counts:
/// docs/performance.md, "The adaptive paths"). Groups missed for non-finite or
/// out-of-range lanes count too, though the special path cannot take them either: data
/// full of those pays its extra for nothing.
pub(crate) const ADAPT_MISS_SHARE: usize = 8;
/// Blocks run through the special path before the next lean block measures again: on data
/// that keeps missing, a measuring block's missed groups cost the lean attempt on top of
/// the special path, and a long run spreads that cost over many groups (the counts:
/// docs/performance.md, "The adaptive paths").
pub(crate) const ADAPT_SPECIAL_BLOCKS: u32 = 31;

/// The adaptive choice of a loop over groups: see "Adaptive paths" in the module docs.
#[derive(Default)]
struct Adapt {
    /// Blocks still to run through the special path.
    special_blocks: u32,
}

impl Adapt {
    /// Whether the next block takes the special path (counting it if so).
    #[inline(always)]
    fn special(&mut self, offered: bool) -> bool {
        let take = offered && self.special_blocks > 0;
        self.special_blocks -= u32::from(take);
        take
    }

    /// After a lean block that missed `missed` groups.
    #[inline(always)]
    fn lean_block(&mut self, missed: usize) {
        if missed * ADAPT_MISS_SHARE > ADAPT_BLOCK {
            self.special_blocks = ADAPT_SPECIAL_BLOCKS;
        }
    }
}

/// Input columns cut into whole groups of `L::WIDTH` pairs.
struct InGroups<'a, L: Lane, const C: usize> {
    /// The groups read in place, every column exactly `groups` groups long.
    cols: [&'a [L::Group]; C],
    /// Number of groups read in place.
    groups: usize,
    /// The last partial group copied into zero-padded buffers, when the columns have no
    /// padding in place after it (a sub-range view, or caller-owned radius slices).
    tail: Option<[L::Group; C]>,
}

/// Cuts `n` pairs of `cols` into whole groups of `L::WIDTH` (lane `k` of group `g` of
/// column `c` holds `cols[c][g·WIDTH + k]`): the groups inside every column, padding
/// included, are read in place; a last partial group is copied.
fn in_groups<L: Lane, const C: usize>(cols: [&[L::Elem]; C], n: usize) -> InGroups<'_, L, C> {
    let room = cols.iter().map(|c| c.len()).min().unwrap_or(0);
    let groups = (room / L::WIDTH).min(n.div_ceil(L::WIDTH));
    let j = groups * L::WIDTH;
    let tail = (j < n).then(|| {
        core::array::from_fn(|c| {
            let mut buf = L::Group::zeroed();
            bytemuck::cast_slice_mut::<L::Group, L::Elem>(core::slice::from_mut(&mut buf))[..n - j]
                .copy_from_slice(&cols[c][j..n]);
            buf
        })
    });
    InGroups {
        cols: core::array::from_fn(|c| &L::groups(&cols[c][..j])[..groups]),
        groups,
        tail,
    }
}

/// Group `g` of every column.
#[inline(always)]
fn load<L: Lane, const C: usize>(cols: &[&[L::Group]; C], g: usize) -> [L; C] {
    // A plain loop: `array::from_fn` here was left out of line in `masked_group`, at 149
    // instructions a group (callgrind, `segbatch bench` navigation), and in the 16-lane
    // one-to-many loop, at half the 8-lane rate.
    let mut x = [L::ZERO; C];
    for (x, col) in x.iter_mut().zip(cols) {
        *x = L::from_group(col[g]);
    }
    x
}

/// One group through the masked path, out of line so the common loop stays lean (the
/// caller stores the result: handing this function the output columns would let it
/// replace them, and the loop would check bounds again).
#[inline(never)]
fn masked_group<L: Lane, const C: usize, K: PairKernel<C, L>>(
    kernel: &K,
    cols: &[&[L::Group]; C],
    g: usize,
) -> K::Lanes {
    kernel.masked(load(cols, g))
}

/// A group the lean path missed, out of line as [`masked_group`]: through the special
/// path when the kernel has one, and the masked path only if that misses too. The lanes
/// the lean path misses are mostly degenerate or parallel ones, which the special path
/// solves at about a third of the masked path's cost (see "Adaptive paths").
#[inline(never)]
fn missed_group<L: Lane, const C: usize, K: PairKernel<C, L>>(
    kernel: &K,
    cols: &[&[L::Group]; C],
    g: usize,
) -> K::Lanes {
    let special = if K::SPECIAL {
        kernel.special(|| load(cols, g))
    } else {
        None
    };
    special.unwrap_or_else(|| kernel.masked(load(cols, g)))
}

/// Runs `kernel` over `n` pairs whose inputs are `cols` (each at least `n` values; values
/// past `n`, padding or the following elements, are read but never reported), storing
/// into `out` (padded to whole groups for at least `n` pairs), `L::WIDTH` pairs a group.
pub(crate) fn run<L: Lane, const C: usize, K, S>(
    kernel: &K,
    cols: [&[L::Elem]; C],
    n: usize,
    out: S,
) where
    K: PairKernel<C, L>,
    S: GroupStore<Lanes = K::Lanes>,
{
    let input = in_groups::<L, C>(cols, n);
    let groups = input.groups;
    // Cut here, in the loop's function, so the loop has no bounds checks.
    let (mut main, mut rest) = out.split_at(groups);
    let cols: [&[L::Group]; C] = core::array::from_fn(|c| &input.cols[c][..groups]);
    let mut adapt = Adapt::default();
    for start in (0..groups).step_by(ADAPT_BLOCK) {
        let block = start..groups.min(start + ADAPT_BLOCK);
        if adapt.special(K::SPECIAL) {
            for g in block {
                match kernel.special(|| load(&cols, g)) {
                    Some(lanes) => main.store(g, &lanes),
                    None => main.store(g, &masked_group(kernel, &cols, g)),
                }
            }
        } else {
            let mut missed = 0;
            for g in block {
                match kernel.general(|| load(&cols, g)) {
                    Some(lanes) => main.store(g, &lanes),
                    None => {
                        missed += 1;
                        main.store(g, &missed_group(kernel, &cols, g));
                    }
                }
            }
            adapt.lean_block(missed);
        }
    }
    if let Some(tail) = &input.tail {
        rest.store(0, &kernel.masked(tail.map(L::from_group)));
    }
}

/// Where a query's input groups come from: columns read in place (`[&[L::Elem]; C]`, pair
/// `k` at index `k` of every column), or gathered by index pairs ([`Gathered`]).
pub(crate) trait Input<const C: usize, L: Lane = f32x8>: Copy + Send + Sync {
    /// Runs `kernel` over the first `n` pairs, storing into `out` (padded to whole groups
    /// for at least `n` pairs).
    fn run<K, S>(self, kernel: &K, n: usize, out: S)
    where
        K: PairKernel<C, L>,
        S: GroupStore<Lanes = K::Lanes>;

    /// The pairs from `mid` on (`mid` a multiple of [`LANES`]).
    #[cfg(feature = "rayon")]
    fn skip(self, mid: usize) -> Self;
}

impl<L: Lane, const C: usize> Input<C, L> for [&[L::Elem]; C] {
    #[inline]
    fn run<K, S>(self, kernel: &K, n: usize, out: S)
    where
        K: PairKernel<C, L>,
        S: GroupStore<Lanes = K::Lanes>,
    {
        run(kernel, self, n, out);
    }

    #[cfg(feature = "rayon")]
    fn skip(self, mid: usize) -> Self {
        core::array::from_fn(|c| &self[c][mid..])
    }
}

/// Pairs per staged chunk of a [`Gathered`] input: 14 columns of 256 values are 14 KiB
/// (28 KiB in `f64`), resident in L1 between the gather and the kernel.
const GATHER_CHUNK: usize = 256;

const _: () = assert!(GATHER_CHUNK.is_multiple_of(LANES));

/// Input columns named by index pairs: pair `k` reads `a[c][pairs[k].0]` for A's `CA`
/// columns, then `b[c][pairs[k].1]` for B's `CB` (the kernel's `C = CA + CB` columns in
/// that order), `f32` or `f64` (`E`). The callers check every index against its columns
/// first.
///
/// The driver gathers [`GATHER_CHUNK`] pairs at a time into a small buffer and runs its
/// ordinary loop over it: the lanes come straight from the callers' SoA columns, with no
/// batch-sized copy. With `rows` (`f32` only: the same values as [`Rows`], which callers
/// build when the pairs outnumber the objects) a group of eight pairs costs one 32-byte
/// load an object and a transpose instead of a scalar load and store a column.
#[derive(Clone, Copy)]
pub(crate) struct Gathered<'a, const CA: usize, const CB: usize, E: Gather = f32> {
    /// A's columns (not read when `rows` are given).
    pub a: [&'a [E]; CA],
    /// B's columns (not read when `rows` are given).
    pub b: [&'a [E]; CB],
    pub pairs: &'a [(u32, u32)],
    /// Row copies of `a` and `b`, when the caller made them ([`Rows::get`]).
    pub rows: Option<E::Rows<'a>>,
}

/// An element type [`Gathered`] stages: `f32`, from columns or from row copies (the
/// transposes are `f32x8`'s), or `f64`, from columns only (its `Rows` has no value).
pub(crate) trait Gather: Pod + Send + Sync {
    /// The row copies of A and of B a gather may read instead of the columns.
    type Rows<'a>: Copy + Send + Sync;
    /// Pairs `pairs` from `rows` into the first `pairs.len()` entries of the staging
    /// columns `buf`: A's `CA` columns, then B's.
    fn stage_rows<const CA: usize, const CB: usize, const C: usize>(
        rows: Self::Rows<'_>,
        pairs: &[(u32, u32)],
        buf: &mut [[Self; GATHER_CHUNK]; C],
    );
}

impl Gather for f32 {
    type Rows<'a> = (&'a [Row], &'a [Row]);
    #[inline(always)]
    fn stage_rows<const CA: usize, const CB: usize, const C: usize>(
        (ra, rb): (&[Row], &[Row]),
        pairs: &[(u32, u32)],
        buf: &mut [[f32; GATHER_CHUNK]; C],
    ) {
        let mut groups = pairs.chunks_exact(LANES);
        for (g, group) in (&mut groups).enumerate() {
            let at = g * LANES;
            let a = f32x8::transpose(core::array::from_fn(|k| {
                f32x8::new(ra[group[k].0 as usize].0)
            }));
            let b = f32x8::transpose(core::array::from_fn(|k| {
                f32x8::new(rb[group[k].1 as usize].0)
            }));
            for c in 0..CA {
                buf[c][at..at + LANES].copy_from_slice(a[c].as_array());
            }
            for c in 0..CB {
                buf[CA + c][at..at + LANES].copy_from_slice(b[c].as_array());
            }
        }
        let at = pairs.len() - groups.remainder().len();
        for (k, &(i, j)) in groups.remainder().iter().enumerate() {
            let (ra, rb) = (&ra[i as usize].0, &rb[j as usize].0);
            for c in 0..CA {
                buf[c][at + k] = ra[c];
            }
            for c in 0..CB {
                buf[CA + c][at + k] = rb[c];
            }
        }
    }
}

impl Gather for f64 {
    type Rows<'a> = core::convert::Infallible;
    #[inline(always)]
    fn stage_rows<const CA: usize, const CB: usize, const C: usize>(
        rows: core::convert::Infallible,
        _: &[(u32, u32)],
        _: &mut [[f64; GATHER_CHUNK]; C],
    ) {
        match rows {}
    }
}

/// One object's columns side by side (`row.0[c]` = column `c`, the rest zero), aligned to
/// 32 bytes: one aligned load, never across two cache lines.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(32))]
pub(crate) struct Row(pub [f32; LANES]);

/// Row copies of one or two sets' columns for a [`Gathered`] input.
///
/// A gather from columns costs a scalar load and store a column a side a pair (about 40
/// instructions a pair of capsules, twice the kernel's); from rows, eight pairs cost one
/// 32-byte load an object and an 8×8 transpose a side. The copy costs a pass over the
/// sets, so it is made only when the pairs outnumber the rows it copies ([`Rows::new`]).
pub(crate) struct Rows {
    a: Vec<Row>,
    /// `None` when B is A (the same columns).
    b: Option<Vec<Row>>,
}

impl Rows {
    /// Rows of `a` and `b` (at most [`LANES`] columns each) for gathering `pairs` pairs,
    /// or `None` when there are fewer pairs than rows to copy.
    pub(crate) fn new<const CA: usize, const CB: usize>(
        a: [&[f32]; CA],
        b: [&[f32]; CB],
        pairs: usize,
    ) -> Option<Rows> {
        const { assert!(CA <= LANES && CB <= LANES) };
        let (a, na) = even(a);
        let (b, nb) = even(b);
        let same = CA == CB && (0..CA).all(|c| core::ptr::eq(a[c], b[c]));
        let copied = if same { na } else { na + nb };
        if pairs < copied {
            return None;
        }
        Some(Rows {
            a: rows(a, na),
            b: (!same).then(|| rows(b, nb)),
        })
    }

    /// Rows of one set made by the caller (the set queries copy their sets into rows in
    /// the grid's order), the same on both sides.
    pub(crate) fn one(rows: Vec<Row>) -> Rows {
        Rows { a: rows, b: None }
    }

    /// The rows of A and of B, for [`Gathered::rows`].
    pub(crate) fn get(&self) -> (&[Row], &[Row]) {
        (&self.a, self.b.as_deref().unwrap_or(&self.a))
    }
}

/// The first `n` values of `cols` as rows (the columns past `K` zero).
fn rows<const K: usize>(cols: [&[f32]; K], n: usize) -> Vec<Row> {
    (0..n)
        .map(|i| {
            Row(core::array::from_fn(
                |c| if c < K { cols[c][i] } else { 0.0 },
            ))
        })
        .collect()
}

/// `cols`, each cut to the shortest one's length, and that length.
fn even<E, const K: usize>(cols: [&[E]; K]) -> ([&[E]; K], usize) {
    let n = cols.iter().map(|c| c.len()).min().unwrap_or(0);
    (cols.map(|c| &c[..n]), n)
}

impl<const CA: usize, const CB: usize, E: Gather> Gathered<'_, CA, CB, E> {
    /// Pairs `pairs` (indices checked by the caller) into the first `pairs.len()` entries
    /// of the staging columns `buf`: A's columns, then B's.
    #[inline(always)]
    fn stage<const C: usize>(&self, pairs: &[(u32, u32)], buf: &mut [[E; GATHER_CHUNK]; C]) {
        if let Some(rows) = self.rows {
            E::stage_rows::<CA, CB, C>(rows, pairs, buf);
            return;
        }
        let (a, na) = even(self.a);
        let (b, nb) = even(self.b);
        // Pair by pair: one index check a side, then plain loads.
        for (k, &(i, j)) in pairs.iter().enumerate() {
            let (i, j) = (i as usize, j as usize);
            assert!(i < na && j < nb, "index pair checked by the caller");
            for c in 0..CA {
                buf[c][k] = a[c][i];
            }
            for c in 0..CB {
                buf[CA + c][k] = b[c][j];
            }
        }
    }
}

impl<L, const C: usize, const CA: usize, const CB: usize> Input<C, L>
    for Gathered<'_, CA, CB, L::Elem>
where
    L: Lane<Elem: Gather>,
{
    fn run<K, S>(self, kernel: &K, n: usize, out: S)
    where
        K: PairKernel<C, L>,
        S: GroupStore<Lanes = K::Lanes>,
    {
        const { assert!(CA + CB == C) };
        let mut buf = [[L::Elem::zeroed(); GATHER_CHUNK]; C];
        let mut out = out;
        for pairs in self.pairs[..n].chunks(GATHER_CHUNK) {
            self.stage(pairs, &mut buf);
            let (head, rest) = out.split_at(pairs.len().div_ceil(L::WIDTH));
            // Lanes past `pairs.len()` hold an earlier chunk's values: computed, never
            // reported.
            run::<L, C, K, S>(kernel, buf.each_ref().map(|b| &b[..]), pairs.len(), head);
            out = rest;
        }
    }

    #[cfg(feature = "rayon")]
    fn skip(self, mid: usize) -> Self {
        Gathered {
            pairs: &self.pairs[mid..],
            ..self
        }
    }
}

/// [`run`], or [`par_run`] when `parallel` is set and the `rayon` feature is on (without
/// it, every query is sequential and `parallel` is never set by the public API).
pub(crate) fn run_on<L: Lane, const C: usize, K, S>(
    parallel: bool,
    kernel: &K,
    input: impl Input<C, L>,
    n: usize,
    out: S,
) where
    K: PairKernel<C, L>,
    S: GroupStore<Lanes = K::Lanes>,
{
    #[cfg(feature = "rayon")]
    if parallel {
        return par_run(kernel, input, n, out);
    }
    debug_assert!(!parallel);
    input.run(kernel, n, out);
}

/// One side of a query, ready for whole-group loads at multiples of [`LANES`]: in place
/// where the columns have room (padding or following elements), from a zero-padded copy of
/// the last partial group otherwise.
pub(crate) struct Side<'a> {
    cols: [&'a [f32]; 6],
    len: usize,
    direct: usize,
    tail: [[f32; LANES]; 6],
}

impl<'a> Side<'a> {
    pub(crate) fn new(v: SegmentsView<'a>) -> Self {
        let cols = v.raw_columns();
        let len = v.len();
        let room = cols.iter().map(|c| c.len()).min().unwrap_or(0);
        let direct = (room / LANES * LANES).min(padded_len(len));
        let tail = core::array::from_fn(|k| {
            let mut buf = [0.0f32; LANES];
            if direct < len {
                buf[..len - direct].copy_from_slice(&cols[k][direct..len]);
            }
            buf
        });
        Side {
            cols,
            len,
            direct,
            tail,
        }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The group of eight starting at `j` (a multiple of [`LANES`], below `len`).
    #[inline(always)]
    pub(crate) fn load(&self, j: usize) -> (V3, V3) {
        if j < self.direct {
            load_side_at(&self.cols, j)
        } else {
            let t: [&[f32]; 6] = core::array::from_fn(|k| &self.tail[k][..]);
            load_side_at(&t, 0)
        }
    }

    /// Segment `i` broadcast to every lane.
    #[inline(always)]
    pub(crate) fn splat(&self, i: usize) -> (V3, V3) {
        let c = &self.cols;
        (
            V3::splat([c[0][i], c[1][i], c[2][i]]),
            V3::splat([c[3][i], c[4][i], c[5][i]]),
        )
    }
}

/// One side's six columns at pair `j` from plain slices (each holding at least `j + LANES`
/// values).
#[inline(always)]
fn load_side_at(cols: &[&[f32]; 6], j: usize) -> (V3, V3) {
    let x: [f32x8; 6] = core::array::from_fn(|k| {
        let group: [f32; LANES] = cols[k][j..j + LANES].try_into().expect("a whole group");
        f32x8::from(group)
    });
    (V3::at_column(&x, 0), V3::at_column(&x, 3))
}

/// Below this many pairs the parallel functions run on the calling thread.
///
/// Handing work to a second thread and joining costs some tens of microseconds, so the
/// split pays only where each half holds several times that much kernel work: the
/// smallest such size, on a free second core. The timings it was chosen from and the
/// command that re-tunes it: docs/performance.md, "The parallel cut-offs".
pub const PAR_MIN_PAIRS: usize = 32 * 1024;

/// Pairs per rayon task: large enough to amortise scheduling (~0.1 ms of work at ~400 M
/// pairs/s), small enough to balance load on a busy machine. A multiple of 16, so every
/// piece holds whole groups at either lane width.
pub const PAR_CHUNK_PAIRS: usize = 32 * 1024;

const _: () = assert!(PAR_CHUNK_PAIRS.is_multiple_of(2 * LANES));

/// Below this many pair tests (`a.len()·b.len()`, or `n²/2` within one set) the parallel
/// `N × M` queries run on the calling thread.
///
/// A pair test is much cheaper than a pair of [`PAR_MIN_PAIRS`] (the bounding-sphere
/// prefilter skips most groups), so the cut-off counts tests, not pairs, and sits where the
/// split on two threads stops losing: the timings it was chosen from and the command that
/// re-tunes it: docs/performance.md, "The parallel cut-offs".
pub const PAR_MIN_PAIR_TESTS: usize = 256 * 1024;

/// [`run`] on all cores: the pairs halved recursively at multiples of [`PAR_CHUNK_PAIRS`]
/// (input and output groups alike, whatever the lane width), bitwise the results of [`run`].
#[cfg(feature = "rayon")]
pub(crate) fn par_run<L: Lane, const C: usize, K, S>(
    kernel: &K,
    input: impl Input<C, L>,
    n: usize,
    out: S,
) where
    K: PairKernel<C, L>,
    S: GroupStore<Lanes = K::Lanes>,
{
    par_leaves::<L, C, _, _>(input, n, out, &|input, n, out| input.run(kernel, n, out));
}

/// `leaf` over `input`'s pairs: whole below [`PAR_MIN_PAIRS`], else halved recursively at
/// multiples of [`PAR_CHUNK_PAIRS`] on all cores (`out` split at the same pair) down to
/// pieces of at most [`PAR_CHUNK_PAIRS`].
#[cfg(feature = "rayon")]
fn par_leaves<L: Lane, const C: usize, I: Input<C, L>, S: GroupStore>(
    input: I,
    n: usize,
    out: S,
    leaf: &(impl Fn(I, usize, S) + Sync),
) {
    if n < PAR_MIN_PAIRS || n <= PAR_CHUNK_PAIRS {
        leaf(input, n, out);
        return;
    }
    let mid = (n / 2).div_ceil(PAR_CHUNK_PAIRS) * PAR_CHUNK_PAIRS;
    let (out_lo, out_hi) = out.split_at(mid / L::WIDTH);
    rayon::join(
        || par_leaves::<L, C, I, S>(input, mid, out_lo, leaf),
        || par_leaves::<L, C, I, S>(input.skip(mid), n - mid, out_hi, leaf),
    );
}

/// A 16-lane group's results as the two 8-lane groups the stores take: what a
/// [`PairKernel`] over `f32x16` returns, for [`run_x16`].
pub(crate) trait Halves {
    /// One group of results, as the query's [`GroupStore`] takes them.
    type Half;
    /// Lanes 0-7 and 8-15.
    fn halves(self) -> [Self::Half; 2];
}

/// 16-lane group `g`'s results as 8-lane groups `2g` and `2g + 1`. Stored in each arm of
/// the loop's match, as [`run`] does: joining the arms first made the lean path spill both
/// halves, every column included, to the stack (the masked path returns through memory).
#[inline(always)]
fn store16<S: GroupStore>(out: &mut S, g: usize, lanes: impl Halves<Half = S::Lanes>) {
    let [lo, hi] = lanes.halves();
    out.store(2 * g, &lo);
    out.store(2 * g + 1, &hi);
}

/// [`run`] 16 lanes at a time: the whole pairs of 8-lane groups go through `wide`, each
/// result stored as two groups; the odd group left and the tail through `narrow` (the same
/// lane math over 8 lanes, so every pair gets the same bits either way). On all cores when
/// `parallel`, cut as [`par_run`] cuts (at multiples of [`PAR_CHUNK_PAIRS`], whole 16-lane
/// groups), so each piece runs the same lanes at the same width as the whole.
pub(crate) fn run_x16<const C: usize, W, K, S>(
    parallel: bool,
    wide: &W,
    narrow: &K,
    cols: [&[f32]; C],
    n: usize,
    out: S,
) where
    W: PairKernel<C, f32x16, Lanes: Halves<Half = K::Lanes>>,
    K: PairKernel<C>,
    S: GroupStore<Lanes = K::Lanes>,
{
    #[cfg(feature = "rayon")]
    if parallel {
        let leaf = |cols, n, out| run_x16(false, wide, narrow, cols, n, out);
        return par_leaves::<f32x8, C, _, _>(cols, n, out, &leaf);
    }
    debug_assert!(!parallel);
    let input = in_groups::<f32x8, C>(cols, n);
    let wide_groups = input.groups / 2;
    let (mut main, rest) = out.split_at(2 * wide_groups);
    // 8-lane groups `2g` and `2g + 1` lie side by side: read as one 16-lane group, one
    // load (building it from the two halves went through the stack, where the 14-column
    // loop of per-pair capsules paid a failed store forwarding a column: 0.46x the 8-lane
    // rate).
    let groups: [&[[f32; 16]]; C] = core::array::from_fn(|c| {
        f32x16::groups(bytemuck::cast_slice(&input.cols[c][..2 * wide_groups]))
    });
    let mut adapt = Adapt::default();
    for start in (0..wide_groups).step_by(ADAPT_BLOCK) {
        let block = start..wide_groups.min(start + ADAPT_BLOCK);
        if adapt.special(W::SPECIAL) {
            for g in block {
                match wide.special(|| load(&groups, g)) {
                    Some(lanes) => store16(&mut main, g, lanes),
                    None => store16(&mut main, g, masked_group(wide, &groups, g)),
                }
            }
        } else {
            let mut missed = 0;
            for g in block {
                match wide.general(|| load(&groups, g)) {
                    Some(lanes) => store16(&mut main, g, lanes),
                    None => {
                        missed += 1;
                        store16(&mut main, g, missed_group(wide, &groups, g));
                    }
                }
            }
            adapt.lean_block(missed);
        }
    }
    // (A last wide group may have read padding in place past `n`.)
    let done = 2 * wide_groups * LANES;
    if done < n {
        run::<f32x8, C, K, S>(narrow, cols.map(|c| &c[done..]), n - done, rest);
    }
}
