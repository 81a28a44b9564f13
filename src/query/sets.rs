//! Set queries that scale: the radius queries over whole sets, pruned by the grid of
//! [`crate::prune`] and decided by the kernel over index pairs ([`super::indexed`]).
//!
//! [`self_pairs_within`](crate::self_pairs_within) and
//! [`pairs_within`](crate::pairs_within) run here whenever both sides are segments and the
//! radius is finite: the grid names candidate pairs (a conservative sphere test over the
//! cells' neighbours), the candidates are gathered a thousand at a time and run through the
//! kernel, and the kernel's squared distance decides. Every reported value is therefore the
//! brute-force query's, bit for bit, and the work is `O((N + M) log(N + M) + K)` instead of
//! `O(N·M)`. Rays and lines (unbounded) and an infinite radius take the brute-force tiles.
//!
//! The streaming forms ([`for_each_self_pair_within`], [`for_each_pair_within`]) hand the
//! hits to a callback in blocks of compact [`PairHit`]s (12 bytes), so a query over
//! millions of segments needs memory for the input and one block of hits per task, not for
//! every hit. The work is cut into tasks of about 4096 objects (whole cells); the parallel
//! forms run waves of tasks on all cores and deliver the blocks in task order, so every
//! thread count delivers the same blocks in the same order.

use super::closest::{ClosestBatch, Outputs};
use super::indexed::closest_points_indexed_into;
use super::many::Within;
use super::{Hit, Side, radius2, spheres};
use crate::batch::{Error, SegmentsView};
use crate::kernel::Splat;
use crate::prune::{Grid, sphere};
use crate::segment::{Extent, Options, Segment};
use bytemuck::{Pod, Zeroable};
use core::ops::Range;
use wide::f32x8;

use super::self_pairs::SharedEndpoints;

/// A hit of the streaming set queries, 12 bytes: `a[i]` (or `set[i]`) within the radius
/// of `b[j]` (or `set[j]`, `i < j`), at squared distance `dist2`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct PairHit {
    /// Index in A (or in the set).
    pub i: u32,
    /// Index in B (or in the set, `j > i`).
    pub j: u32,
    /// Squared distance of the closest points, the kernel's (as [`Hit::dist2`]).
    pub dist2: f32,
}

/// Objects per task (whole cells), the unit of work and of streaming.
const TASK_OBJECTS: usize = 4096;
/// Big objects per task.
const TASK_BIG: usize = 64;
/// Tasks per wave of the parallel streaming forms.
const WAVE_TASKS: usize = 32;
/// Candidate pairs per run of the kernel.
const FLUSH: usize = 2048;

/// A hit with the parameters, before it becomes a [`Hit`] or a [`PairHit`].
#[derive(Clone, Copy, Default)]
struct Found {
    i: u32,
    j: u32,
    dist2: f32,
    s: f32,
    t: f32,
}

impl From<Found> for Hit {
    fn from(f: Found) -> Hit {
        Hit {
            i: f.i as usize,
            j: f.j as usize,
            dist2: f.dist2,
            s: f.s,
            t: f.t,
        }
    }
}

impl From<Found> for PairHit {
    fn from(f: Found) -> PairHit {
        PairHit {
            i: f.i,
            j: f.j,
            dist2: f.dist2,
        }
    }
}

/// A unit of work: a run of cells, or a run of big objects.
enum Task {
    Cells(Range<usize>),
    Big(Range<usize>),
}

/// A pruned radius query: the grid, its tasks, and the narrow phase's inputs.
struct Pruned<'v> {
    grid: Grid<3>,
    tasks: Vec<Task>,
    a: SegmentsView<'v>,
    b: SegmentsView<'v>,
    /// `None` within one set; `Some(na)` when ids `>= na` are B's.
    split: Option<u32>,
    options: Options,
    radius: f32,
    r2: f32,
    skip_shared: bool,
}

/// True when A and B share an end point (coordinates equal with `==`), the brute-force
/// query's test.
fn shares(a: &Segment, b: &Segment) -> bool {
    [a.p0, a.p1]
        .iter()
        .any(|p| [b.p0, b.p1].iter().any(|q| p == q))
}

impl<'v> Pruned<'v> {
    /// The plan for `a` against `b` (`split` set) or within `a` (`split` unset, `b == a`),
    /// or `None` when the grid does not apply.
    fn new(
        a: SegmentsView<'v>,
        b: SegmentsView<'v>,
        within_one: bool,
        radius: f32,
        skip_shared: bool,
        options: &Options,
        parallel: bool,
    ) -> Option<Self> {
        if options.extent_a != Extent::Segment || options.extent_b != Extent::Segment {
            return None;
        }
        let side = |v: SegmentsView<'_>, i: usize| {
            let s = v.at(i);
            sphere(s.p0, s.p1)
        };
        let (na, nb) = (a.len(), b.len());
        let grid = if within_one {
            Grid::build(na, |i| side(a, i), radius, parallel)?
        } else {
            let n = na.checked_add(nb)?;
            let spheres = |i: usize| if i < na { side(a, i) } else { side(b, i - na) };
            Grid::build(n, spheres, radius, parallel)?
        };
        let mut tasks: Vec<Task> = grid
            .cell_tasks(TASK_OBJECTS)
            .into_iter()
            .map(Task::Cells)
            .collect();
        let big = grid.big_objects();
        tasks.extend((0..big).step_by(TASK_BIG).map(|k| Task::Big(k..(k + TASK_BIG).min(big))));
        Some(Pruned {
            grid,
            tasks,
            a,
            b,
            split: (!within_one).then_some(na as u32),
            options: *options,
            radius,
            r2: radius * radius,
            skip_shared,
        })
    }

    /// The pair of the query a candidate `(p, q)` of the grid stands for: `(i, j)` with
    /// `i < j` within one set, `(index in A, index in B)` otherwise; `None` for two
    /// objects of the same side.
    #[inline(always)]
    fn orient(&self, p: u32, q: u32) -> Option<(u32, u32)> {
        match self.split {
            None => Some((p.min(q), p.max(q))),
            Some(na) => match (p < na, q < na) {
                (true, false) => Some((p, q - na)),
                (false, true) => Some((q, p - na)),
                _ => None,
            },
        }
    }

    /// The hits of one task, appended to `out` in the order the grid names them.
    fn run(&self, task: &Task, out: &mut Vec<Found>) {
        let mut candidates = Vec::with_capacity(FLUSH);
        let mut scratch = ClosestBatch::new();
        {
            let mut push = |p: u32, q: u32| {
                if let Some(pair) = self.orient(p, q) {
                    candidates.push(pair);
                    if candidates.len() == FLUSH {
                        self.decide(&mut candidates, &mut scratch, out);
                    }
                }
            };
            match task {
                Task::Cells(cells) => self.grid.shell_pairs(cells.clone(), self.radius, push),
                Task::Big(big) => {
                    for k in big.clone() {
                        self.grid.big_pairs(k, self.radius, &mut push);
                    }
                }
            }
        }
        self.decide(&mut candidates, &mut scratch, out);
    }

    /// Runs the kernel on the candidates and keeps the pairs within the radius.
    fn decide(
        &self,
        candidates: &mut Vec<(u32, u32)>,
        scratch: &mut ClosestBatch,
        out: &mut Vec<Found>,
    ) {
        let outputs = Outputs {
            params: true,
            points: false,
            flags: false,
        };
        closest_points_indexed_into(self.a, self.b, candidates, &self.options, outputs, scratch)
            .expect("the grid names objects of the sets");
        let (d, s, t) = (scratch.dist2(), scratch.s(), scratch.t());
        for (k, &(i, j)) in candidates.iter().enumerate() {
            if d[k] <= self.r2
                && !(self.skip_shared && shares(&self.a.at(i as usize), &self.b.at(j as usize)))
            {
                out.push(Found {
                    i,
                    j,
                    dist2: d[k],
                    s: s[k],
                    t: t[k],
                });
            }
        }
        candidates.clear();
    }

    /// Every hit, in task order: `sink` gets each task's block, on the calling thread.
    /// The parallel form runs waves of [`WAVE_TASKS`] tasks on all cores.
    fn each(&self, parallel: bool, mut sink: impl FnMut(Vec<Found>)) {
        #[cfg(feature = "rayon")]
        if parallel && self.tasks.len() > 1 {
            use rayon::prelude::*;
            for wave in self.tasks.chunks(WAVE_TASKS) {
                let blocks: Vec<Vec<Found>> = wave
                    .par_iter()
                    .map(|task| {
                        let mut block = Vec::new();
                        self.run(task, &mut block);
                        block
                    })
                    .collect();
                blocks.into_iter().for_each(&mut sink);
            }
            return;
        }
        let _ = parallel;
        for task in &self.tasks {
            let mut block = Vec::new();
            self.run(task, &mut block);
            sink(block);
        }
    }

    /// Every hit as [`Hit`]s sorted by `(i, j)`, appended to `out`: a counting sort by
    /// `i` (`O(N + K)`), then each `i`'s few hits by `j`.
    fn collect(&self, parallel: bool, out: &mut Vec<Hit>) {
        let mut found = Vec::new();
        self.each(parallel, |block| found.extend(block));
        let mut starts = vec![0u32; self.a.len() + 1];
        for f in &found {
            starts[f.i as usize + 1] += 1;
        }
        for i in 0..self.a.len() {
            starts[i + 1] += starts[i];
        }
        let base = out.len();
        out.resize(base + found.len(), Hit::from(Found::default()));
        let sorted = &mut out[base..];
        let mut next = starts.clone();
        for f in found {
            let slot = &mut next[f.i as usize];
            sorted[*slot as usize] = Hit::from(f);
            *slot += 1;
        }
        for w in starts.windows(2) {
            let row = &mut sorted[w[0] as usize..w[1] as usize];
            if row.len() > 1 {
                row.sort_unstable_by_key(|h| h.j);
            }
        }
        let _ = parallel;
    }
}

/// The brute-force radius query over tiles (rays and lines, an infinite radius, or more
/// than `u32::MAX` objects), sorted by `(i, j)`, appended to `out`.
fn brute(
    a: SegmentsView<'_>,
    b: Option<SegmentsView<'_>>,
    radius: f32,
    skip_shared: bool,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit>,
) {
    let sa = spheres(a, options);
    let sb = b.map(|b| spheres(b, options));
    let upper = b.is_none();
    let b = b.unwrap_or(a);
    let job = Within {
        a: Side::new(a),
        b: Side::new(b),
        spheres: match &sb {
            None => sa.as_ref().map(|s| (s, s)),
            Some(sb) => sa.as_ref().zip(sb.as_ref()),
        },
        splat: Splat::new(&options.params()),
        r2: f32x8::splat(radius * radius),
        radius: f32x8::splat(radius),
        upper,
        skip_shared,
    };
    let (na, nb) = (a.len(), b.len());
    let tests = if upper {
        na.saturating_mul(na) / 2
    } else {
        na.saturating_mul(nb)
    };
    job.run(na, nb, tests, parallel, out);
}

/// All pairs `i < j` of `set` within `radius`, sorted, into `out` (after the checks).
pub(super) fn self_within(
    set: SegmentsView<'_>,
    radius: f32,
    shared: SharedEndpoints,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit>,
) -> Result<(), Error> {
    out.clear();
    radius2(radius)?;
    let skip = shared == SharedEndpoints::Skip;
    match Pruned::new(set, set, true, radius, skip, options, parallel) {
        Some(plan) => plan.collect(parallel, out),
        None => brute(set, None, radius, skip, options, parallel, out),
    }
    Ok(())
}

/// All pairs of `a` and `b` within `radius`, sorted, into `out` (after the checks).
pub(super) fn within(
    a: SegmentsView<'_>,
    b: SegmentsView<'_>,
    radius: f32,
    options: &Options,
    parallel: bool,
    out: &mut Vec<Hit>,
) -> Result<(), Error> {
    out.clear();
    radius2(radius)?;
    match Pruned::new(a, b, false, radius, false, options, parallel) {
        Some(plan) => plan.collect(parallel, out),
        None => brute(a, Some(b), radius, false, options, parallel, out),
    }
    Ok(())
}

/// Streams the hits of a plan (or of the brute-force fallback) to `sink` as [`PairHit`]
/// blocks.
fn stream(
    plan: Option<Pruned<'_>>,
    fallback: impl FnOnce(&mut Vec<Hit>),
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit]),
) {
    let mut block: Vec<PairHit> = Vec::new();
    match plan {
        Some(plan) => plan.each(parallel, |found| {
            if !found.is_empty() {
                block.clear();
                block.extend(found.into_iter().map(PairHit::from));
                sink(&block);
            }
        }),
        None => {
            let mut hits = Vec::new();
            fallback(&mut hits);
            for chunk in hits.chunks(TASK_OBJECTS) {
                block.clear();
                block.extend(chunk.iter().map(|h| PairHit {
                    i: h.i as u32,
                    j: h.j as u32,
                    dist2: h.dist2,
                }));
                sink(&block);
            }
        }
    }
}

fn each_self(
    set: SegmentsView<'_>,
    radius: f32,
    shared: SharedEndpoints,
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit]),
) -> Result<(), Error> {
    radius2(radius)?;
    let skip = shared == SharedEndpoints::Skip;
    let plan = Pruned::new(set, set, true, radius, skip, options, parallel);
    let fallback = |hits: &mut Vec<Hit>| brute(set, None, radius, skip, options, parallel, hits);
    stream(plan, fallback, parallel, sink);
    Ok(())
}

fn each_pair(
    a: SegmentsView<'_>,
    b: SegmentsView<'_>,
    radius: f32,
    options: &Options,
    parallel: bool,
    sink: &mut dyn FnMut(&[PairHit]),
) -> Result<(), Error> {
    radius2(radius)?;
    let plan = Pruned::new(a, b, false, radius, false, options, parallel);
    let fallback = |hits: &mut Vec<Hit>| brute(a, Some(b), radius, false, options, parallel, hits);
    stream(plan, fallback, parallel, sink);
    Ok(())
}

/// The streaming form of [`self_pairs_within_into`](crate::self_pairs_within_into): every
/// pair `i < j` of `set` within `radius`, handed to `sink` in blocks of [`PairHit`]s, in
/// memory for one block at a time (see the [module docs](self)). The pairs and values are
/// those of [`self_pairs_within`](crate::self_pairs_within); the order is the grid's
/// (sort a collected list by `(i, j)` to compare). Rays and lines fall back to brute force
/// and collect their hits before streaming them.
///
/// # Errors
/// [`Error::InvalidRadius`] when `radius` is negative or NaN (`sink` is not called).
///
/// ```
/// use segbatch::{for_each_self_pair_within, Options, Segment, Segments, SharedEndpoints};
/// let set: Segments = (0..1000).map(|k| {
///     let x = k as f32;
///     Segment::new([x, 0.0, 0.0], [x + 0.5, 0.0, 0.0]) // 0.5 apart end to start
/// }).collect();
/// let mut count = 0;
/// for_each_self_pair_within(&set, 0.5, SharedEndpoints::Keep, &Options::SEGMENTS, |block| {
///     count += block.len();
/// })?;
/// assert_eq!(count, 999);
/// # Ok::<(), segbatch::Error>(())
/// ```
pub fn for_each_self_pair_within<'a>(
    set: impl Into<SegmentsView<'a>>,
    radius: f32,
    shared: SharedEndpoints,
    options: &Options,
    mut sink: impl FnMut(&[PairHit]),
) -> Result<(), Error> {
    each_self(set.into(), radius, shared, options, false, &mut sink)
}

/// [`for_each_self_pair_within`] on all cores: the blocks are computed in parallel waves
/// and handed to `sink` on the calling thread, the same blocks in the same order as the
/// sequential form.
///
/// # Errors
/// As [`for_each_self_pair_within`].
#[cfg(feature = "rayon")]
pub fn par_for_each_self_pair_within<'a>(
    set: impl Into<SegmentsView<'a>>,
    radius: f32,
    shared: SharedEndpoints,
    options: &Options,
    mut sink: impl FnMut(&[PairHit]),
) -> Result<(), Error> {
    each_self(set.into(), radius, shared, options, true, &mut sink)
}

/// The streaming form of [`pairs_within_into`](crate::pairs_within_into): every pair of
/// `a[i]` and `b[j]` within `radius`, handed to `sink` in blocks of [`PairHit`]s (see
/// [`for_each_self_pair_within`]).
///
/// # Errors
/// [`Error::InvalidRadius`] when `radius` is negative or NaN (`sink` is not called).
///
/// ```
/// use segbatch::{for_each_pair_within, Options, PairHit, Segment, Segments};
/// let walls = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [0.0, 4.0, 0.0])]);
/// let paths = Segments::from(&[
///     Segment::new([0.5, 2.0, 0.0], [3.0, 2.0, 0.0]),
///     Segment::new([5.0, 2.0, 0.0], [9.0, 2.0, 0.0]),
/// ]);
/// let mut hits: Vec<PairHit> = Vec::new();
/// for_each_pair_within(&walls, &paths, 1.0, &Options::SEGMENTS, |block| hits.extend_from_slice(block))?;
/// assert_eq!(hits, vec![PairHit { i: 0, j: 0, dist2: 0.25 }]);
/// # Ok::<(), segbatch::Error>(())
/// ```
pub fn for_each_pair_within<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radius: f32,
    options: &Options,
    mut sink: impl FnMut(&[PairHit]),
) -> Result<(), Error> {
    each_pair(a.into(), b.into(), radius, options, false, &mut sink)
}

/// [`for_each_pair_within`] on all cores, the same blocks in the same order.
///
/// # Errors
/// As [`for_each_pair_within`].
#[cfg(feature = "rayon")]
pub fn par_for_each_pair_within<'a, 'b>(
    a: impl Into<SegmentsView<'a>>,
    b: impl Into<SegmentsView<'b>>,
    radius: f32,
    options: &Options,
    mut sink: impl FnMut(&[PairHit]),
) -> Result<(), Error> {
    each_pair(a.into(), b.into(), radius, options, true, &mut sink)
}
