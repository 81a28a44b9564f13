//! Order and memory: blocks of hits handed on in task order, a bounded number ahead, on
//! all cores or one.

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
