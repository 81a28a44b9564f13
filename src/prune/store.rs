//! Storage the grid and the set queries share: values kept without a branch, and fills,
//! sorts and maps that run on all cores when asked.

/// Objects per chunk of the grid's passes over a set.
pub(super) const CHUNK: usize = 64 * 1024;

/// Groups of candidates (a position and up to [`LANES`](crate::columns::LANES) others) the
/// grid hands on at a time: the scan fills them in a tight loop, and the refinement and the
/// narrow phase's batching run over them in another.
pub(super) const GROUPS: usize = 2048;

/// A group of candidates: position `p` with the positions `j + k` (`j` a multiple of
/// [`LANES`](crate::columns::LANES)) of the bits `k` set in `bits`.
#[derive(Clone, Copy, Default)]
pub(super) struct Group {
    pub(super) p: u32,
    pub(super) j: u32,
    pub(super) bits: u32,
}

/// Values stored without a branch: every value is written at the end and the length
/// grows only when it is kept (room reserved first). The scan stores its groups this way
/// (about half the groups it tests are empty, in no pattern a predictor learns, and a branch
/// on that mispredicted about once an object in two groups: perf on 1M hair, the scan's
/// hottest instruction), and the narrow phases their hits (about half the candidates are
/// hits).
pub(crate) struct Kept<T> {
    /// Storage, at least `len` long (the slots past `len` are scratch, written before they
    /// are kept).
    buf: Vec<T>,
    /// The values kept.
    len: usize,
}

impl<T: Copy + Default> Kept<T> {
    /// Room for `n` values.
    pub(crate) fn with_room(n: usize) -> Self {
        Kept {
            buf: vec![T::default(); n],
            len: 0,
        }
    }

    /// The number of values kept.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Room for `more` values past the kept ones (at least doubling the storage when it
    /// grows, so that filling the scratch slots costs a constant a value).
    #[inline(always)]
    pub(crate) fn reserve(&mut self, more: usize) {
        if self.buf.len() < self.len + more {
            let room = (self.len + more).max(2 * self.buf.len());
            self.buf.resize(room, T::default());
        }
    }

    /// Writes `x` into the next slot and keeps it when `keep` (room reserved by the
    /// caller).
    #[inline(always)]
    pub(crate) fn put(&mut self, x: T, keep: bool) {
        self.buf[self.len] = x;
        self.len += usize::from(keep);
    }

    /// Keeps `x`.
    pub(crate) fn push(&mut self, x: T) {
        self.reserve(1);
        self.put(x, true);
    }

    /// Empties the store (its storage stays).
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// The values kept, and empties the store.
    pub(crate) fn take(&mut self) -> &[T] {
        let n = core::mem::take(&mut self.len);
        &self.buf[..n]
    }
}

/// `fill(k, piece)` for every chunk `piece` of [`CHUNK`] values of `out` (`k` the index of
/// its first value), on all cores when `parallel`; the results in order. The grid's passes
/// write straight into their outputs this way, with no merging copy.
pub(super) fn fill<T: Send, R: Send>(
    out: &mut [T],
    parallel: bool,
    fill: impl Fn(usize, &mut [T]) -> R + Sync,
) -> Vec<R> {
    let big = parallel && out.len() > CHUNK;
    let pieces: Vec<(usize, &mut [T])> = out
        .chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, piece)| (c * CHUNK, piece))
        .collect();
    par_map(pieces, big, |(k, piece)| fill(k, piece))
}

/// `cols[c][k] = value(k)[c]` for every `k` (columns of one length), on all cores when
/// `parallel`.
pub(super) fn fill_columns<const K: usize>(
    cols: [&mut [f32]; K],
    parallel: bool,
    value: impl Fn(usize) -> [f32; K] + Sync,
) {
    let n = cols.first().map_or(0, |c| c.len());
    let mut chunks = cols.map(|c| c.chunks_mut(CHUNK));
    let pieces: Vec<(usize, [&mut [f32]; K])> = (0..n)
        .step_by(CHUNK)
        .map(|k| {
            (
                k,
                chunks
                    .each_mut()
                    .map(|c| c.next().expect("a chunk per column")),
            )
        })
        .collect();
    par_map(pieces, parallel && n > CHUNK, |(k, mut piece)| {
        for j in 0..piece.first().map_or(0, |c| c.len()) {
            for (column, x) in piece.iter_mut().zip(value(k + j)) {
                column[j] = x;
            }
        }
    });
}

/// `out[k] = value(k)` for every `k`, on all cores when `parallel`.
pub(crate) fn fill_each<T: Send>(out: &mut [T], parallel: bool, value: impl Fn(usize) -> T + Sync) {
    fill(out, parallel, |k, piece| {
        for (slot, k) in piece.iter_mut().zip(k..) {
            *slot = value(k);
        }
    });
}

/// Appends `n` default values to `out`, on all cores when `parallel`: most of the time of
/// a large fill goes to the first touch of fresh pages, which the cores then share.
pub(super) fn grow<T: Copy + Default + Send>(out: &mut Vec<T>, n: usize, parallel: bool) {
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        out.par_extend(rayon::iter::repeat_n(T::default(), n));
        return;
    }
    let _ = parallel;
    out.resize(out.len() + n, T::default());
}

/// `f` over `items`, in order, on all cores when `parallel`.
pub(super) fn par_map<I: Send, R: Send>(
    items: Vec<I>,
    parallel: bool,
    f: impl Fn(I) -> R + Sync,
) -> Vec<R> {
    #[cfg(feature = "rayon")]
    if parallel {
        use rayon::prelude::*;
        return items.into_par_iter().map(&f).collect();
    }
    let _ = parallel;
    items.into_iter().map(f).collect()
}
