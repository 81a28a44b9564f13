//! Order and memory: blocks of hits handed on in task order, a bounded number ahead, on
//! all cores or one; the sink's answer after each block, which may stop the query; and a
//! [`Stop`] another thread may request, which the query sees between its pieces of work.

use core::cell::RefCell;
use core::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the sink of a streaming set query answers after each block: go on, or stop.
///
/// A sink returns `()` when it takes every hit (`|block| hits.extend_from_slice(block)`),
/// or a [`ControlFlow<()>`] when it may stop early: [`ControlFlow::Break`] ends the query
/// at once (a reader that went away, a write that failed, a count reached, a user who
/// interrupted). The call then returns `Ok(())` without handing on another block: the
/// sequential form decides nothing more, and each thread of the parallel form stops at its
/// next block or at the end of its task (a few thousand objects), whichever comes first,
/// so the work done after the sink asked to stop is about one block
/// ([`MAX_BLOCK_HITS`](crate::sets::MAX_BLOCK_HITS) hits at most) a thread, whatever the
/// number of hits left. Every block the sink received is complete and in order; keeping
/// the reason for stopping (an error, say) is the sink's business.
///
/// One sink type serves both kinds of caller, so the streaming forms stay one pair per
/// query (sequential and parallel): a separate `try_for_each_…` family would double them,
/// and a sink that always returned [`ControlFlow`] would make every sink that takes all
/// hits spell out `ControlFlow::Continue(())`.
pub trait SinkFlow {
    /// Whether the query goes on after this block.
    fn go_on(self) -> bool;
}

impl SinkFlow for () {
    #[inline]
    fn go_on(self) -> bool {
        true
    }
}

impl SinkFlow for ControlFlow<()> {
    #[inline]
    fn go_on(self) -> bool {
        self.is_continue()
    }
}

/// A request to stop the streamed set queries, made from any thread and seen by the
/// queries that run under [`Stop::watch`], even when no block reaches the sink.
///
/// A sink's [`ControlFlow::Break`] stops a query only when a block arrives, and a query
/// may run for seconds without one: a set with few pairs within the radius hands on no
/// block until it ends, and a task hands on its hits only when it has found enough of them
/// or is done. A caller that must be able to stop at any time (a Ctrl-C handler, a
/// cancelled request, a deadline) runs the query inside [`Stop::watch`] and calls
/// [`Stop::request`] from another thread: the query checks between its pieces of work
/// (before each task of the grid, every few thousand candidate pairs within a task, every
/// big object, before each tile of the brute-force forms), on every thread of the parallel
/// forms, and then hands on no further block and returns `Ok(())` as it does after a
/// `Break`; the work done after the request is about one piece a thread (milliseconds).
/// What a query returns once stopped is incomplete: the caller, which asked, discards it.
/// The set's grid is built before the first check (`O(N log N)`, a fraction of the
/// query).
///
/// The queries covered are those that stream blocks: [`for_each_pair_within`],
/// [`for_each_self_pair_within`], their `f64` forms, [`for_each_crossing_pair`] and the
/// parallel form of each (and the collected forms built on them, whose output is then
/// partial). One watched stop, on the calling thread, serves every query of the closure
/// without a new parameter for each: a query reads it where it starts, and hands it to the
/// threads of its parallel form.
///
/// ```
/// use segbatch::{Options, Segment, Segments};
/// use segbatch::sets::{for_each_self_pair_within, SharedEndpoints, Stop};
/// let set: Segments = (0..1000).map(|k| {
///     let x = k as f32;
///     Segment::new([x, 0.0, 0.0], [x + 0.5, 0.0, 0.0])
/// }).collect();
/// let stop = Stop::new();
/// let mut count = 0;
/// let run = |count: &mut usize| {
///     for_each_self_pair_within(&set, 0.5, SharedEndpoints::Keep, &Options::SEGMENTS, |block| {
///         *count += block.len();
///     })
/// };
/// stop.watch(|| run(&mut count))?;
/// assert_eq!(count, 999); // not requested: every pair
/// count = 0;
/// stop.request(); // as a Ctrl-C handler on another thread would
/// stop.watch(|| run(&mut count))?;
/// assert_eq!(count, 0); // stopped before its first task
/// # Ok::<(), segbatch::Error>(())
/// ```
///
/// [`for_each_pair_within`]: crate::sets::for_each_pair_within
/// [`for_each_self_pair_within`]: crate::sets::for_each_self_pair_within
/// [`for_each_crossing_pair`]: crate::planar::for_each_crossing_pair
#[derive(Clone, Debug, Default)]
pub struct Stop(Arc<AtomicBool>);

thread_local! {
    /// The stop watched on this thread ([`Stop::watch`]), if any.
    static WATCHED: RefCell<Option<Stop>> = const { RefCell::new(None) };
}

impl Stop {
    /// A stop not yet requested.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every query watching this stop (or a clone of it) to stop; it stays requested.
    pub fn request(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`Stop::request`] was called on this stop or a clone of it.
    pub fn is_requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Runs `f` on this thread with this stop watched: the streamed set queries `f` runs
    /// stop soon after [`Stop::request`] (see [`Stop`]). The stop watched before is
    /// watched again when `f` returns or panics; watches nest, the innermost counts.
    pub fn watch<R>(&self, f: impl FnOnce() -> R) -> R {
        let _watching = Watching::new(self.clone());
        f()
    }
}

/// Watches a stop on this thread until dropped, then the one watched before.
struct Watching(Option<Stop>);

impl Watching {
    fn new(stop: Stop) -> Self {
        Watching(WATCHED.with(|w| w.replace(Some(stop))))
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let before = self.0.take();
        WATCHED.with(|w| *w.borrow_mut() = before);
    }
}

/// The stop watched on this thread, for a query to check and to hand to its threads.
pub(crate) fn watched() -> Option<Stop> {
    WATCHED.with(|w| w.borrow().clone())
}

/// Whether the stop watched on this thread was requested (false when none is watched):
/// the check between pieces of work of a task.
pub(crate) fn stop_requested() -> bool {
    WATCHED.with(|w| w.borrow().as_ref().is_some_and(Stop::is_requested))
}

/// Blocks a worker of the parallel forms may have finished and not yet handed to the
/// sink: with the one it fills, the memory of a streamed call is the input, the grid and
/// `BLOCKS_AHEAD + 1` blocks a thread, whatever the number of hits.
#[cfg(feature = "rayon")]
pub(super) const BLOCKS_AHEAD: usize = 2;

/// Runs `units` units of work, each handing its hits to `emit` in blocks (which answers
/// whether to go on), and hands every block, made by `finish` on the thread that ran its
/// unit, to `sink` in unit order on the calling thread: sequentially, or when `parallel` on
/// as many threads as the current rayon pool has. `sink` answering `false` stops every
/// unit at its next block. The blocks and their order do not depend on the thread count.
///
/// A [`Stop`] watched on the calling thread is checked before each unit and each block, on
/// every thread (the parallel form's threads watch it too, so the units can check it
/// within themselves: [`stop_requested`]); once it is requested no unit starts, no block
/// is handed on, and the call returns.
///
/// The parallel form keeps at most [`BLOCKS_AHEAD`] finished blocks a thread waiting for
/// the sink (a thread that runs ahead waits for it), so its memory is bounded by the
/// threads' blocks, whatever the number of hits: unlike a parallel map over waves of units,
/// which holds every hit of a wave, and of a unit, at once.
pub(crate) fn ordered<W, H, B: Send>(
    units: usize,
    parallel: bool,
    init: impl Fn() -> W + Sync,
    produce: impl Fn(usize, &mut W, &mut dyn FnMut(&[H]) -> bool) + Sync,
    finish: impl Fn(&[H]) -> B + Sync,
    mut sink: impl FnMut(B) -> bool,
) {
    let stop = watched();
    #[cfg(feature = "rayon")]
    if parallel {
        let threads = rayon::current_num_threads().min(units);
        if threads > 1 {
            let stop = stop.as_ref();
            ordered_threads(threads, units, stop, &init, &produce, &finish, &mut sink);
            return;
        }
    }
    let _ = parallel;
    let stopped = || stop.as_ref().is_some_and(Stop::is_requested);
    let mut work = init();
    let mut go = true;
    for unit in 0..units {
        if stopped() {
            return;
        }
        produce(unit, &mut work, &mut |hits| {
            go = go && !stopped() && sink(finish(hits));
            go
        });
        if !go {
            return;
        }
    }
}

/// The parallel form of [`ordered`], on `threads` scoped threads (their own, not the
/// pool's: a pool thread blocked on a full queue could hold up the unit the sink waits
/// for). Each thread claims the next unit in order and sends its blocks through its own
/// bounded queue; the calling thread reads the queue of the unit's owner until the unit
/// ends. A thread works on its units in claiming order, so the unit the sink waits for is
/// always being run by a thread that is not waiting for a later one. Each thread watches
/// `stop` (the calling thread's, see [`ordered`]) and leaves once it is requested; the
/// calling thread then stops too.
#[cfg(feature = "rayon")]
pub(super) fn ordered_threads<W, H, B: Send>(
    threads: usize,
    units: usize,
    stop: Option<&Stop>,
    init: &(impl Fn() -> W + Sync),
    produce: &(impl Fn(usize, &mut W, &mut dyn FnMut(&[H]) -> bool) + Sync),
    finish: &(impl Fn(&[H]) -> B + Sync),
    sink: &mut impl FnMut(B) -> bool,
) {
    use std::sync::{Condvar, Mutex, PoisonError, mpsc};
    enum Message<B> {
        Block(B),
        End,
    }
    /// The owner of every unit claimed so far, and how many threads have left.
    struct Claims {
        owners: Vec<u32>,
        left: usize,
    }
    /// Counts its thread as gone however it leaves (a panic included), so the calling
    /// thread never waits for a claim that cannot come.
    struct Leave<'a>(&'a Mutex<Claims>, &'a Condvar);
    impl Drop for Leave<'_> {
        fn drop(&mut self) {
            self.0.lock().unwrap_or_else(PoisonError::into_inner).left += 1;
            self.1.notify_all();
        }
    }
    let claims = Mutex::new(Claims {
        owners: Vec::with_capacity(units),
        left: 0,
    });
    let claimed = Condvar::new();
    std::thread::scope(|scope| {
        let queues: Vec<mpsc::Receiver<Message<B>>> = (0..threads)
            .map(|w| {
                let (tx, rx) = mpsc::sync_channel(BLOCKS_AHEAD);
                let (claims, claimed) = (&claims, &claimed);
                scope.spawn(move || {
                    let _leave = Leave(claims, claimed);
                    let _watching = stop.cloned().map(Watching::new);
                    let stopped = || stop.is_some_and(Stop::is_requested);
                    let mut work = init();
                    loop {
                        if stopped() {
                            return;
                        }
                        let unit = {
                            let mut c = claims.lock().unwrap_or_else(PoisonError::into_inner);
                            let unit = c.owners.len();
                            if unit == units {
                                return;
                            }
                            c.owners.push(w as u32);
                            unit
                        };
                        claimed.notify_all();
                        // A failed send: the calling thread stopped reading.
                        let mut open = true;
                        produce(unit, &mut work, &mut |hits| {
                            open =
                                open && !stopped() && tx.send(Message::Block(finish(hits))).is_ok();
                            open
                        });
                        if !open || tx.send(Message::End).is_err() {
                            return;
                        }
                    }
                });
                rx
            })
            .collect();
        for unit in 0..units {
            let owner = {
                let mut c = claims.lock().unwrap_or_else(PoisonError::into_inner);
                loop {
                    if let Some(&w) = c.owners.get(unit) {
                        break Some(w);
                    }
                    if c.left == threads {
                        break None;
                    }
                    c = claimed.wait(c).unwrap_or_else(PoisonError::into_inner);
                }
            };
            // No owner, or a queue closed before its unit ended: the stop was requested
            // (every thread leaves), or a thread panicked, and the scope raises its panic
            // once every thread has left (dropping the queues here makes the others stop
            // at their next block).
            let Some(w) = owner else { return };
            loop {
                match queues[w as usize].recv() {
                    Ok(Message::Block(b)) => {
                        if stop.is_some_and(Stop::is_requested) || !sink(b) {
                            return;
                        }
                    }
                    Ok(Message::End) => break,
                    Err(_) => return,
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A hit of the test: its unit and its rank in the unit.
    type At = (usize, usize);

    /// Runs 64 units of 1000 one-hit blocks each, the sink stopping after `stop` blocks:
    /// the blocks the sink got and how many were made.
    fn stopped_after(stop: usize, threads: usize) -> (Vec<At>, usize) {
        let made = AtomicUsize::new(0);
        let mut got = Vec::new();
        let produce = |unit: usize, _: &mut (), emit: &mut dyn FnMut(&[At]) -> bool| {
            for rank in 0..1000 {
                if !emit(&[(unit, rank)]) {
                    return;
                }
            }
        };
        let finish = |hits: &[At]| {
            made.fetch_add(1, Ordering::Relaxed);
            hits[0]
        };
        let mut sink = |b| {
            got.push(b);
            got.len() < stop
        };
        if threads == 1 {
            ordered(64, false, || (), produce, finish, &mut sink);
        } else {
            #[cfg(feature = "rayon")]
            ordered_threads(threads, 64, None, &|| (), &produce, &finish, &mut sink);
        }
        (got, made.into_inner())
    }

    /// Runs 64 units of 1000 one-hit blocks each under a watched stop that the sink
    /// requests after `stop` blocks (as another thread would): the blocks the sink got and
    /// how many units started.
    fn requested_after(stop: usize, threads: usize) -> (Vec<At>, usize) {
        let started = AtomicUsize::new(0);
        let request = Stop::new();
        let mut got = Vec::new();
        let produce = |unit: usize, _: &mut (), emit: &mut dyn FnMut(&[At]) -> bool| {
            started.fetch_add(1, Ordering::Relaxed);
            for rank in 0..1000 {
                // A unit's own check, as the grid's tasks make (`stop_requested`).
                if stop_requested() || !emit(&[(unit, rank)]) {
                    return;
                }
            }
        };
        let mut sink = |b| {
            got.push(b);
            if got.len() == stop {
                request.request();
            }
            true
        };
        request.watch(|| ordered(64, threads > 1, || (), produce, |h: &[At]| h[0], &mut sink));
        (got, started.into_inner())
    }

    #[test]
    fn a_requested_stop_ends_the_work_without_another_block() {
        for stop in [1, 7, 2500] {
            let want: Vec<_> = (0..stop).map(|k| (k / 1000, k % 1000)).collect();
            let (seq, started) = requested_after(stop, 1);
            assert_eq!(seq, want);
            assert_eq!(started, stop.div_ceil(1000));
            #[cfg(feature = "rayon")]
            for threads in [2, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let (par, started) = pool.install(|| requested_after(stop, threads));
                assert_eq!(par, want, "{threads} threads");
                // Each thread may have claimed one unit more than the sink reached.
                assert!(
                    started <= stop.div_ceil(1000) + threads,
                    "{started} units started"
                );
            }
        }
        // Requested before the call: no unit starts; and the watch ends with the call.
        let stop = Stop::new();
        stop.request();
        let started = AtomicUsize::new(0);
        stop.watch(|| {
            ordered(
                8,
                false,
                || (),
                |_, _: &mut (), _: &mut dyn FnMut(&[At]) -> bool| {
                    started.fetch_add(1, Ordering::Relaxed);
                },
                |h: &[At]| h.len(),
                |_| true,
            )
        });
        assert_eq!(started.load(Ordering::Relaxed), 0);
        assert!(watched().is_none() && !stop_requested());
        // Watches nest: the inner one counts, the outer one comes back.
        let (outer, inner) = (Stop::new(), Stop::new());
        inner.request();
        outer.watch(|| {
            assert!(inner.watch(stop_requested));
            assert!(!stop_requested());
        });
    }

    /// The streamed queries on the grid and on the brute-force tiles, with a stop the
    /// sink requests at its first block (as another thread would): no block after it, on
    /// one thread and on two.
    #[cfg(feature = "rayon")]
    #[test]
    fn the_streamed_queries_hand_on_no_block_after_a_requested_stop() {
        use crate::planar::{CrossHit, Segment2, Segments2};
        use crate::sets::{PairHit, SharedEndpoints};
        use crate::{Extent, Options, Segment, Segments};
        // A lattice of short segments, each within the radius of many (many blocks).
        let at = |k: usize| ((k % 200) as f32 * 0.1, (k / 200) as f32 * 0.1);
        let set: Segments = (0..40_000)
            .map(|k| {
                let (x, y) = at(k);
                Segment::new([x, y, 0.0], [x + 0.05, y, 0.0])
            })
            .collect();
        let plane: Segments2 = (0..40_000)
            .map(|k| {
                let (x, y) = at(k);
                Segment2::new([x, y], [x + 0.3, y + 0.3])
            })
            .collect();
        let (keep, rays) = (
            SharedEndpoints::Keep,
            Options::new(Extent::Ray, Extent::Ray),
        );
        // The blocks a query hands on when its sink requests the stop at the first.
        fn blocks<H>(
            query: impl FnOnce(&mut dyn FnMut(&[H])) -> Result<(), crate::Error>,
        ) -> usize {
            let stop = Stop::new();
            let mut n = 0;
            stop.watch(|| {
                query(&mut |_| {
                    n += 1;
                    stop.request();
                })
            })
            .unwrap();
            n
        }
        let check = |parallel: bool| {
            let grid = blocks(|sink: &mut dyn FnMut(&[PairHit])| {
                let o = &Options::SEGMENTS;
                if parallel {
                    crate::sets::par_for_each_self_pair_within(&set, 0.5, keep, o, sink)
                } else {
                    crate::sets::for_each_self_pair_within(&set, 0.5, keep, o, sink)
                }
            });
            let few = set.view(0..3000);
            let tiles = blocks(|sink: &mut dyn FnMut(&[PairHit])| {
                if parallel {
                    crate::sets::par_for_each_self_pair_within(few, 0.5, keep, &rays, sink)
                } else {
                    crate::sets::for_each_self_pair_within(few, 0.5, keep, &rays, sink)
                }
            });
            let cross = blocks(|sink: &mut dyn FnMut(&[CrossHit])| {
                if parallel {
                    crate::planar::par_for_each_crossing_pair(plane.as_view(), keep, sink)
                } else {
                    crate::planar::for_each_crossing_pair(plane.as_view(), keep, sink)
                }
            });
            assert_eq!((grid, tiles, cross), (1, 1, 1), "parallel: {parallel}");
        };
        check(false);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        pool.install(|| check(true));
    }

    #[test]
    fn a_sink_that_stops_ends_the_work_within_the_look_ahead() {
        for stop in [1, 7, 2500] {
            let (seq, made) = stopped_after(stop, 1);
            let want: Vec<_> = (0..stop).map(|k| (k / 1000, k % 1000)).collect();
            assert_eq!((&seq, made), (&want, stop));
            #[cfg(feature = "rayon")]
            for threads in [2, 3] {
                let (par, made) = stopped_after(stop, threads);
                assert_eq!(par, want, "{threads} threads");
                // Each thread: the blocks in its queue, the one it was sending and the one
                // it was making.
                let bound = stop + threads * (BLOCKS_AHEAD + 2);
                assert!(
                    made <= bound,
                    "{made} blocks made, {threads} threads, {stop} wanted"
                );
            }
        }
    }
}
