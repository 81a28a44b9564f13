//! Order and memory: blocks of hits handed on in task order, a bounded number ahead, on
//! all cores or one; and the sink's answer after each block, which may stop the query.

use core::ops::ControlFlow;

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
    #[cfg(feature = "rayon")]
    if parallel {
        let threads = rayon::current_num_threads().min(units);
        if threads > 1 {
            ordered_threads(threads, units, &init, &produce, &finish, &mut sink);
            return;
        }
    }
    let _ = parallel;
    let mut work = init();
    let mut go = true;
    for unit in 0..units {
        produce(unit, &mut work, &mut |hits| {
            go = go && sink(finish(hits));
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
/// always being run by a thread that is not waiting for a later one.
#[cfg(feature = "rayon")]
pub(super) fn ordered_threads<W, H, B: Send>(
    threads: usize,
    units: usize,
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
                    let mut work = init();
                    loop {
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
                            open = open && tx.send(Message::Block(finish(hits))).is_ok();
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
            // No owner, or a queue closed before its unit ended: a thread panicked, and
            // the scope raises its panic once every thread has left (dropping the queues
            // here makes the others stop at their next block).
            let Some(w) = owner else { return };
            loop {
                match queues[w as usize].recv() {
                    Ok(Message::Block(b)) => {
                        if !sink(b) {
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
            ordered_threads(threads, 64, &|| (), &produce, &finish, &mut sink);
        }
        (got, made.into_inner())
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
