//! Input: a whole set of records, read and checked before any output is written.

use std::path::Path;
use std::time::Duration;

use segbatch::{Element, Record, Soa};

use crate::error::CliError;
use crate::io::{Format, Input, Layout, Real, SET_MEMORY_SHARE, memory_headroom};

/// Records read per chunk.
const CHUNK_RECORDS: usize = 64 * 1024;

/// A set of `C`-number records in one precision that [`read_set`] fills: a batch of `f32`
/// or of `f64` columns.
pub trait SetOf<const C: usize>: Sized {
    /// The number type of the records.
    type Real: Real;
    /// An empty set with room for `n` records.
    fn with_capacity(n: usize) -> Self;
    /// Appends records given as rows of `C` numbers.
    fn extend_rows(&mut self, rows: &[[Self::Real; C]]);
}

/// A batch of either element (`f32`, `f64`: the library's [`Element`]s) is a set of its
/// records.
impl<E: Real + Element, T: Record<C, E>, const C: usize> SetOf<C> for Soa<T, C, E> {
    type Real = E;
    fn with_capacity(n: usize) -> Self {
        Soa::with_capacity(n)
    }
    fn extend_rows(&mut self, rows: &[[E; C]]) {
        self.extend_from_slice(bytemuck::cast_slice::<[E; C], T>(rows));
    }
}

/// Reads the whole set of `C`-number records in `path` through the readers `run` uses
/// ([`Input`]: CSV lines of at most 64 KiB, `.npy` headers checked before the data, raw
/// sizes, `-` and `/dev/stdin`, FIFOs opened without blocking and awaited `wait` at most),
/// in the set's precision (a float64 `.npy` read as `f32` is an error that says so),
/// checking everything: a bad file is one message naming the file, the record and the
/// field. Memory is the set and one chunk; a set that would take more than
/// `1 /` [`SET_MEMORY_SHARE`] of [`memory_headroom`] (an endless stream such as `/dev/zero`,
/// a file larger than the machine holds) is refused with one line (exit status 1) before
/// it is allocated, never left to the allocator's abort.
pub fn read_set<S: SetOf<C>, const C: usize>(
    path: &Path,
    layout: &'static Layout,
    format: Format,
    wait: Duration,
) -> Result<S, CliError> {
    let mut input = Input::<S::Real, C>::open(path, layout, format, wait)?;
    let record = std::mem::size_of::<[S::Real; C]>() as u64;
    let budget = memory_headroom().map(|limit| limit / SET_MEMORY_SHARE);
    let mib = |bytes: u64| bytes.div_ceil(1 << 20);
    let name = input.name().to_owned();
    let too_big = |records: u64, goes_on: bool| {
        let budget = budget.unwrap_or(u64::MAX);
        (records.saturating_mul(record) > budget).then(|| {
            let what = if goes_on {
                format!("{records} {}s read and the input goes on", layout.noun)
            } else {
                format!(
                    "{records} {}s need {} MiB",
                    layout.noun,
                    mib(records.saturating_mul(record))
                )
            };
            CliError::failed(format!(
                "{}: {what}: a set is held in memory and may take at most {} MiB here (a \
                 quarter of the {} MiB this process may still take): an endless stream (such \
                 as /dev/zero), or a set larger than this machine can query",
                name,
                mib(budget),
                mib(budget.saturating_mul(SET_MEMORY_SHARE))
            ))
        })
    };
    let mut set = S::with_capacity(0);
    if input.total_bytes > 0
        && let Some(n) = input.total_pairs
    {
        // A regular file whose size was checked against its records.
        if let Some(e) = too_big(n, false) {
            return Err(e);
        }
        set = S::with_capacity(usize::try_from(n).unwrap_or(0));
    }
    let mut chunk: Vec<[S::Real; C]> = Vec::new();
    let mut records = 0u64;
    while input.read_chunk(&mut chunk, CHUNK_RECORDS)? > 0 {
        records += chunk.len() as u64;
        if let Some(e) = too_big(records, true) {
            return Err(e);
        }
        set.extend_rows(&chunk);
    }
    Ok(set)
}

// ---------------------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{SEGMENTS2, SEGMENTS3};
    use segbatch::Segments;
    use segbatch::planar::Segments2;

    #[test]
    fn csv_records_and_headers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.csv");
        std::fs::write(&path, "x0,y0,x1,y1\n0,0,1,1\n 2 , 3 ,4,5\n").unwrap();
        let read = |path: &Path| {
            read_set::<Segments2, 4>(path, &SEGMENTS2, Format::Csv, Duration::ZERO)
                .map_err(|e| e.message)
        };
        let set = read(&path).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(
            set.get(1),
            Some(segbatch::planar::Segment2::new([2.0, 3.0], [4.0, 5.0]))
        );
        std::fs::write(&path, "0,0,1,1\n0,0,1\n").unwrap();
        let err = read(&path).unwrap_err();
        assert!(
            err.contains("line 2 (segment 1): 3 columns, expected 4"),
            "{err}"
        );
        std::fs::write(&path, "0,0,0,1,1,1\n0,0,0,1,x,1\n").unwrap();
        let err = read_set::<Segments, 6>(&path, &SEGMENTS3, Format::Csv, Duration::ZERO)
            .map_err(|e| e.message)
            .unwrap_err();
        assert!(
            err.contains("column 5 (p1.y): 'x' is not a number"),
            "{err}"
        );
    }
}
