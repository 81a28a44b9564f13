//! Running a set query over the grid: tasks of cells, the narrow phase each query supplies
//! ([`Narrow`]), and the bounded blocks of hits handed to the sink.

use super::grid::Grid;
use super::spheres::SphereColumns;
use super::store::{GROUPS, Group, Kept, grow, par_map};
use super::stream::{ordered, stop_requested};
use crate::batch::Error;
use crate::columns::LANES;
use core::ops::Range;
use wide::u32x8;

/// Objects per task (whole cells, or a run of the objects of one crowded cell), the unit
/// of work of the parallel forms.
pub(crate) const TASK_OBJECTS: usize = 4096;
/// The most hits a streamed set query hands its sink at once (`for_each_pair_within`,
/// `for_each_self_pair_within`, `for_each_crossing_pair` and their parallel forms),
/// whatever the set's layout: a task whose hits reach this many hands them on and goes on
/// (see the module docs). 65 536 compact hits are 768 KiB of `PairHit`s.
pub const MAX_BLOCK_HITS: usize = 1 << 16;
/// Big objects per task.
pub(super) const TASK_BIG: usize = 64;
/// Rows (values of `i`) per bucket of the collected forms' sort.
pub(super) const BUCKET_ROWS: usize = 4096;
/// Candidate pairs per run of the narrow phase: the gathered kernel's buffers stay in L2,
/// and its fixed costs (zeroing its staging buffer, sizing the outputs) are shared by
/// enough pairs.
pub(super) const FLUSH: usize = 8192;

const _: () = assert!(FLUSH < MAX_BLOCK_HITS);

/// A set query's narrow phase over a grid of `D` dimensions: which pairs the grid's
/// candidates stand for, a tighter test than the spheres' where the query has one, and how
/// the candidates are decided.
pub(crate) trait Narrow<const D: usize>: Sync + Sized {
    /// A reported pair.
    type Hit: Send + Copy + Default;
    /// Buffers reused from one batch of candidates to the next.
    type Scratch: Default;

    /// `None` when the query pairs the objects of one set, `(i, j)` with `i < j` (ids);
    /// `Some(na)` when it pairs the objects of set A (ids below `na`) with those of set B
    /// (the others), A's first.
    fn split(&self) -> Option<u32>;

    /// What [`Narrow::refine`] needs of one position, prepared once for all its groups.
    type Probe: Copy;

    /// The probe of position `p`, `None` when [`Narrow::refine`] would keep every lane.
    #[inline(always)]
    fn probe(&self, p: usize) -> Option<Self::Probe> {
        let _ = p;
        None
    }

    /// Of the lanes `bits` of the group of positions `j .. j + LANES` (in the cells), the
    /// ones that may still form a pair of the query with the position of `probe`: a test
    /// tighter than the spheres' (`spheres`, by position) and as conservative, so it never
    /// drops a pair the kernel would report. The default keeps them all.
    #[inline(always)]
    fn refine(&self, probe: &Self::Probe, j: usize, spheres: &SphereColumns<D>, bits: u32) -> u32 {
        let _ = (probe, j, spheres);
        bits
    }

    /// The query's pair `(i, j)` (ids) a hit reports.
    fn pair(hit: &Self::Hit) -> (u32, u32);

    /// The row of each position (in the grid's order), when the objects belong to rows
    /// (the pieces of one polyline, a street, a track) and two objects of one row form no
    /// pair of the query: the scan masks those lanes with a vector compare before they
    /// become candidates, so the narrow phase never sees them. `None` (the default): every
    /// pair the spheres name is a candidate.
    #[inline(always)]
    fn rows(&self) -> Option<&[u32]> {
        None
    }

    /// Called with the thread's scratch at the start of every task, before its first
    /// candidates: a narrow phase that keeps state across its runs within a task (which
    /// row pairs already met) starts it afresh here, so what a task reports depends on the
    /// task alone, never on which thread ran the tasks before it.
    #[inline(always)]
    fn begin(&self, scratch: &mut Self::Scratch) {
        let _ = scratch;
    }

    /// Runs the kernel on `candidates` (pairs of positions, oriented) and keeps the pairs
    /// it reports in `out`.
    fn decide(
        &self,
        ids: &[u32],
        candidates: &[(u32, u32)],
        scratch: &mut Self::Scratch,
        out: &mut Kept<Self::Hit>,
    );
}

/// The grid's candidate `(p, q)` (positions) as the query's pair of positions, its first
/// side first (see [`Narrow::split`]), or `None` when both are of the same side.
#[inline]
pub(super) fn orient(split: Option<u32>, ids: &[u32], p: u32, q: u32) -> Option<(u32, u32)> {
    let (ip, iq) = (ids[p as usize], ids[q as usize]);
    match split {
        None if ip < iq => Some((p, q)),
        None => Some((q, p)),
        Some(na) => match (ip < na, iq < na) {
            (true, false) => Some((p, q)),
            (false, true) => Some((q, p)),
            _ => None,
        },
    }
}

/// For every set of lanes `bits` (0..256), the lanes in ascending order, then zeros: the
/// shuffle that packs a group's candidates at the front.
pub(super) const PACK: [[u32; LANES]; 256] = {
    let mut table = [[0u32; LANES]; 256];
    let mut bits = 0;
    while bits < 256 {
        let (mut k, mut n) = (0, 0);
        while k < LANES {
            if bits >> k & 1 != 0 {
                table[bits][n] = k as u32;
                n += 1;
            }
            k += 1;
        }
        bits += 1;
    }
    table
};

/// The eight values of `column` at positions `j .. j + LANES` (0 past its end).
#[inline(always)]
fn lanes_of(column: &[u32], j: usize) -> u32x8 {
    match column.get(j..j + LANES) {
        Some(run) => u32x8::new(run.try_into().expect("eight values")),
        None => u32x8::new(core::array::from_fn(|k| {
            column.get(j + k).copied().unwrap_or(0)
        })),
    }
}

/// Where a task's hits go: kept in `hits` until another run of the narrow phase could take
/// them past [`MAX_BLOCK_HITS`], then handed to `emit` as one block; `emit` answers whether
/// the query goes on.
pub(super) struct Out<'a, H> {
    hits: &'a mut Kept<H>,
    emit: &'a mut dyn FnMut(&[H]) -> bool,
    /// Set once `emit` asked to stop: nothing more is decided or handed on.
    stopped: bool,
}

impl<H: Copy + Default> Out<'_, H> {
    /// After a run of the narrow phase (which keeps at most [`FLUSH`] hits): hands the
    /// hits on when the next run could take them past [`MAX_BLOCK_HITS`].
    fn spill(&mut self) {
        if self.hits.len() > MAX_BLOCK_HITS - FLUSH {
            self.hand_on();
        }
    }

    /// Hands the kept hits on as one block, if there are any.
    fn hand_on(&mut self) {
        if self.hits.len() > 0 && !self.stopped {
            self.stopped = !(self.emit)(self.hits.take());
        }
        self.hits.clear();
    }
}

/// Oriented candidate pairs waiting for [`Narrow::decide`]: `candidates[..count]` (the
/// slots past them are scratch), and the narrow phase's buffers.
pub(super) struct Pending<const D: usize, N: Narrow<D>> {
    candidates: Vec<(u32, u32)>,
    count: usize,
    scratch: N::Scratch,
}

impl<const D: usize, N: Narrow<D>> Pending<D, N> {
    fn new() -> Self {
        Pending {
            candidates: vec![(0, 0); FLUSH],
            count: 0,
            scratch: N::Scratch::default(),
        }
    }

    /// Room for [`LANES`] more candidates: decides the pending ones first when needed.
    #[inline(always)]
    fn room(&mut self, narrow: &N, ids: &[u32], out: &mut Out<'_, N::Hit>) {
        if self.count > FLUSH - LANES {
            self.flush(narrow, ids, out);
        }
    }

    /// Decides the pending candidates (dropped once the query stopped, or once a watched
    /// [`Stop`](super::Stop) is requested: the check within a task, every [`FLUSH`]
    /// candidates).
    fn flush(&mut self, narrow: &N, ids: &[u32], out: &mut Out<'_, N::Hit>) {
        let candidates = &self.candidates[..core::mem::take(&mut self.count)];
        out.stopped = out.stopped || stop_requested();
        if out.stopped {
            return;
        }
        narrow.decide(ids, candidates, &mut self.scratch, out.hits);
        out.spill();
    }

    /// One candidate pair of positions, oriented (none when both are of one row, see
    /// [`Narrow::rows`]).
    fn push(&mut self, narrow: &N, ids: &[u32], p: u32, q: u32, out: &mut Out<'_, N::Hit>) {
        if narrow
            .rows()
            .is_some_and(|rows| rows[p as usize] == rows[q as usize])
        {
            return;
        }
        if let Some(pair) = orient(narrow.split(), ids, p, q) {
            self.room(narrow, ids, out);
            self.candidates[self.count] = pair;
            self.count += 1;
        }
    }

    /// The candidates of the scan's `groups` (`spheres` the cells' spheres by position),
    /// refined, oriented and packed eight lanes at a time: each group's lanes are oriented
    /// by a vector compare of the ids, packed to the front by a shuffle and stored whole
    /// (the next group overwrites the lanes past its candidates). Writing the lanes one by
    /// one cost some 300 instructions a group (callgrind on hair), and a loop over the set
    /// bits mispredicted its exit about twice a group.
    fn groups(
        &mut self,
        narrow: &N,
        ids: &[u32],
        spheres: &SphereColumns<D>,
        groups: &[Group],
        out: &mut Out<'_, N::Hit>,
    ) {
        if out.stopped {
            return;
        }
        let lane = u32x8::new(core::array::from_fn(|k| k as u32));
        let split = narrow.split();
        let rows = narrow.rows();
        let mut probe = (u32::MAX, None);
        let mut me = (u32x8::ZERO, u32x8::ZERO);
        let mut my_row = u32x8::ZERO;
        for g in groups {
            self.room(narrow, ids, out);
            let j = g.j as usize;
            if probe.0 != g.p {
                probe = (g.p, narrow.probe(g.p as usize));
                me = (u32x8::splat(g.p), u32x8::splat(ids[g.p as usize]));
                if let Some(rows) = rows {
                    my_row = u32x8::splat(rows[g.p as usize]);
                }
            }
            let mut bits = g.bits;
            // The lanes of the same row are no pairs (positions past the last object have
            // no bit: any row does).
            if let Some(rows) = rows {
                bits &= !lanes_of(rows, j).simd_eq(my_row).to_bitmask();
            }
            let bits = match &probe.1 {
                Some(probe) => narrow.refine(probe, j, spheres, bits),
                None => bits,
            };
            let (p, ip) = me;
            let q = u32x8::splat(g.j) + lane;
            // Positions past the last object have no bit: any id does.
            let iq = lanes_of(ids, j);
            // The lanes whose pair puts `q` first, and the lanes that are pairs at all.
            let (swap, bits) = match split {
                None => (iq.simd_lt(ip), bits),
                Some(na) => {
                    let na = u32x8::splat(na);
                    let (p_b, q_b) = (ip.simd_ge(na), iq.simd_ge(na));
                    (p_b, bits & (p_b ^ q_b).to_bitmask())
                }
            };
            let pack = u32x8::new(PACK[bits as usize]);
            let first = swap.select(q, p).shuffle(pack);
            let second = swap.select(p, q).shuffle(pack);
            let (lo, hi) = (first.unpack_lo(second), first.unpack_hi(second));
            let slots = &mut self.candidates[self.count..self.count + LANES];
            let (lo, hi) = (lo.to_array(), hi.to_array());
            for k in 0..LANES / 2 {
                slots[k] = (lo[2 * k], lo[2 * k + 1]);
                slots[LANES / 2 + k] = (hi[2 * k], hi[2 * k + 1]);
            }
            self.count += bits.count_ones() as usize;
        }
    }
}

/// The storage a thread reuses from task to task: the task's hits, the scan's groups and
/// the candidates waiting for the kernel (allocating and filling them for every task cost
/// about 200 KB of fresh memory a task).
pub(super) struct Work<const D: usize, N: Narrow<D>> {
    hits: Kept<N::Hit>,
    groups: Kept<Group>,
    pending: Pending<D, N>,
}

impl<const D: usize, N: Narrow<D>> Work<D, N> {
    fn new() -> Self {
        Work {
            hits: Kept::with_room(0),
            // Room for a full store and a cell's worth more.
            groups: Kept::with_room(2 * GROUPS),
            pending: Pending::new(),
        }
    }
}

/// A unit of work: a run of cells (the objects `objects` of them, which is all of them but
/// for a crowded cell cut into runs of objects), or a run of big objects.
pub(super) enum Task {
    Cells {
        cells: Range<usize>,
        objects: Range<usize>,
    },
    Big(Range<usize>),
}

/// A grid cut into tasks, ready to run a [`Narrow`] phase (see the module docs).
pub(crate) struct Plan<const D: usize> {
    grid: Grid<D>,
    tasks: Vec<Task>,
    radius: f32,
}

impl<const D: usize> Plan<D> {
    /// The tasks of `grid` for pairs within `radius`.
    pub(crate) fn new(grid: Grid<D>, radius: f32) -> Self {
        let mut tasks: Vec<Task> = grid
            .cell_tasks(TASK_OBJECTS)
            .into_iter()
            .map(|(cells, objects)| Task::Cells { cells, objects })
            .collect();
        let big = grid.big.len();
        tasks.extend(
            (0..big)
                .step_by(TASK_BIG)
                .map(|k| Task::Big(k..(k + TASK_BIG).min(big))),
        );
        Plan {
            grid,
            tasks,
            radius,
        }
    }

    /// The grid's ids by position.
    pub(crate) fn ids(&self) -> &[u32] {
        self.grid.ids()
    }

    /// The hits of one task, in the order the grid names them, handed to `emit` in
    /// blocks of at most [`MAX_BLOCK_HITS`] (from `work`, which a thread reuses from task
    /// to task); stops early when `emit` answers `false`.
    fn run<N: Narrow<D>>(
        &self,
        narrow: &N,
        task: &Task,
        work: &mut Work<D, N>,
        emit: &mut dyn FnMut(&[N::Hit]) -> bool,
    ) {
        let Work {
            hits,
            groups,
            pending,
        } = work;
        hits.clear();
        groups.clear();
        pending.count = 0;
        narrow.begin(&mut pending.scratch);
        let mut out = Out {
            hits,
            emit,
            stopped: false,
        };
        let ids = self.grid.ids();
        match task {
            Task::Cells { cells, objects } => {
                let spheres = &self.grid.spheres;
                // Also a check of a watched stop, every store of groups (a crowded cell
                // may make many of them before its candidates fill a flush).
                let mut decide = |groups: &mut Kept<Group>| {
                    out.stopped = out.stopped || stop_requested();
                    pending.groups(narrow, ids, spheres, groups.take(), &mut out);
                    !out.stopped
                };
                self.grid.shell_pairs(
                    cells.clone(),
                    objects.clone(),
                    self.radius,
                    groups,
                    &mut decide,
                );
                decide(groups);
            }
            Task::Big(big) => {
                for k in big.clone() {
                    // A big object meets the others through box queries over the cells
                    // (every cell for the longest): a check of a watched stop each.
                    out.stopped = out.stopped || stop_requested();
                    if out.stopped {
                        break;
                    }
                    self.grid.big_pairs(k, self.radius, |p, q| {
                        pending.push(narrow, ids, p, q, &mut out);
                    });
                }
            }
        }
        pending.flush(narrow, ids, &mut out);
        out.hand_on();
    }

    /// Every hit, in blocks of at most [`MAX_BLOCK_HITS`]: each task's hits, in the order
    /// the grid names them, become blocks by `finish` on the thread that ran the task
    /// (while they are in its cache, from storage each thread reuses), and `sink` gets the
    /// blocks in task order, on the calling thread ([`ordered`]); `sink` answering `false`
    /// stops the query.
    pub(crate) fn each<N: Narrow<D>, B: Send>(
        &self,
        narrow: &N,
        parallel: bool,
        finish: impl Fn(&[N::Hit]) -> B + Sync,
        sink: impl FnMut(B) -> bool,
    ) {
        ordered(
            self.tasks.len(),
            parallel,
            Work::<D, N>::new,
            |t, work, emit| self.run(narrow, &self.tasks[t], work, emit),
            finish,
            sink,
        );
    }

    /// Every hit, as `T`, sorted by its pair `(i, j)` (`i < n`), appended to `out`.
    ///
    /// A counting sort on `i` in two steps, so that neither scatters across the whole
    /// output (a one-pass scatter of millions of hits missed cache on every write), both on
    /// all cores when `parallel`: each task's block is ordered by bucket ([`BUCKET_ROWS`]
    /// consecutive `i`) within itself; then each bucket counts its runs in every block by
    /// `i` and places them from there into a cache-resident copy, where each `i`'s hits
    /// are sorted by `j`, and is converted into its own slice of `out`. `O(n + K)`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] (naming `what`) as soon as the blocks or `out` cannot grow
    /// to the hits found so far (`out` is reserved as the blocks arrive, with
    /// `try_reserve`, so an output larger than memory is refused before it is filled);
    /// the query then stops.
    pub(crate) fn collect<N: Narrow<D>, T: Copy + Default + Send>(
        &self,
        narrow: &N,
        n: usize,
        into: impl Fn(N::Hit) -> T + Sync,
        parallel: bool,
        (what, out): (&'static str, &mut Vec<T>),
    ) -> Result<(), Error>
    where
        N::Hit: Copy + Sync,
    {
        let buckets = n.div_ceil(BUCKET_ROWS);
        let bucket = |h: &N::Hit| N::pair(h).0 as usize / BUCKET_ROWS;
        // Each task's hits ordered by bucket, and where each bucket's run starts.
        let by_bucket = |hits: &[N::Hit]| -> (Vec<N::Hit>, Vec<u32>) {
            let mut starts = vec![0u32; buckets + 1];
            for h in hits {
                starts[bucket(h) + 1] += 1;
            }
            for b in 0..buckets {
                starts[b + 1] += starts[b];
            }
            let mut next = starts.clone();
            let mut sorted = vec![N::Hit::default(); hits.len()];
            for h in hits {
                let slot = &mut next[bucket(h)];
                sorted[*slot as usize] = *h;
                *slot += 1;
            }
            (sorted, starts)
        };
        let mut blocks: Vec<(Vec<N::Hit>, Vec<u32>)> = Vec::new();
        let (mut total, mut short) = (0usize, false);
        self.each(narrow, parallel, by_bucket, |block| {
            total += block.0.len();
            short = blocks.try_reserve(1).is_err() || out.try_reserve(total).is_err();
            if !short {
                blocks.push(block);
            }
            !short
        });
        if short {
            return Err(Error::OutOfMemory {
                what,
                elements: total,
            });
        }
        let runs = |b: usize| {
            blocks
                .iter()
                .map(move |(hits, starts)| &hits[starts[b] as usize..starts[b + 1] as usize])
        };
        let base = out.len();
        let sizes: Vec<usize> = (0..buckets)
            .map(|b| runs(b).map(<[_]>::len).sum())
            .collect();
        grow(out, sizes.iter().sum(), parallel);
        let mut parts: Vec<(usize, &mut [T])> = Vec::with_capacity(buckets);
        let mut rest = &mut out[base..];
        for (b, &size) in sizes.iter().enumerate() {
            let (part, tail) = rest.split_at_mut(size);
            parts.push((b, part));
            rest = tail;
        }
        // Each bucket's runs are counted by `i`, then placed by `i` from the blocks into a
        // cache-resident copy, where each `i`'s compact hits are sorted by `j`; the output
        // is written once, in order.
        let place = |(b, part): (usize, &mut [T])| {
            let first = b * BUCKET_ROWS;
            let row = |h: &N::Hit| N::pair(h).0 as usize - first;
            let mut starts = vec![0u32; BUCKET_ROWS + 1];
            for h in runs(b).flatten() {
                starts[row(h) + 1] += 1;
            }
            for r in 0..BUCKET_ROWS {
                starts[r + 1] += starts[r];
            }
            let mut next = starts.clone();
            let mut placed = vec![N::Hit::default(); part.len()];
            for h in runs(b).flatten() {
                let slot = &mut next[row(h)];
                placed[*slot as usize] = *h;
                *slot += 1;
            }
            for w in starts.windows(2) {
                placed[w[0] as usize..w[1] as usize].sort_unstable_by_key(|h| N::pair(h).1);
            }
            for (out, &h) in part.iter_mut().zip(&placed) {
                *out = into(h);
            }
        };
        par_map(parts, parallel, place);
        Ok(())
    }
}
