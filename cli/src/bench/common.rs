//! What the benches share: how a figure is timed (repeated calls and their median, wall
//! and CPU time), and how their tables write sizes and ratios. Each bench of the folder
//! takes these from here, never from another bench, so that no bench depends on the
//! module that dispatches to it.
//!
//! # How a figure is timed
//!
//! [`measure`] gives the median of timed repetitions: one warm-up call, then repetitions
//! until about `budget` seconds of work (at least 3, or 1 when a single call takes longer
//! than the budget), each repetition timing enough calls to last about a millisecond.
//! [`time_reps`] times whole runs (a set query of seconds) a given number of times, in
//! wall and CPU seconds: a loaded machine stretches the first, not the second.

use std::time::Instant;

/// A warning to show when the CPU supports a faster level than this build uses (the pair
/// bench and `--version` print it).
pub fn simd_upgrade_hint() -> Option<String> {
    segbatch::simd::simd_upgrade().map(|cpu| {
        format!(
            "this build uses {} but the CPU supports {cpu}: rebuild with \
             RUSTFLAGS=\"-C target-cpu=native\" (or x86-64-v3) for 2-3x the throughput",
            segbatch::simd::SIMD_LEVEL
        )
    })
}

/// One timed figure.
#[derive(Clone, Debug)]
pub struct Figure {
    /// Median seconds per call.
    pub seconds: f64,
    /// Fastest sample, seconds per call: the streaming bound reports this (as its `seconds`),
    /// since a bound is the best the machine can do and a busy machine only makes samples
    /// slower.
    pub best: f64,
    /// Timed repetitions.
    pub samples: usize,
}

/// Median time of `f`, timed as described in the module docs.
pub fn measure(budget: f64, mut f: impl FnMut()) -> Figure {
    let start = Instant::now();
    f(); // warm-up: first touch of the outputs, caches, thread wake-up
    let once = start.elapsed().as_secs_f64().max(1e-9);
    let calls = ((1e-3 / once).ceil() as usize).max(1);
    let per_sample = once * calls as f64;
    let min = if once > budget { 1 } else { 3 };
    let samples = ((budget / per_sample) as usize).clamp(min, 25);
    let mut times: Vec<f64> = (0..samples)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..calls {
                f();
            }
            t.elapsed().as_secs_f64() / calls as f64
        })
        .collect();
    Figure {
        seconds: median(&mut times),
        best: times[0],
        samples,
    }
}

/// Median of `v` (not empty; sorted in place).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A size as people write it: 1K, 64K, 1M, 16M, else the plain number.
pub fn size_label(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}M", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{}K", n >> 10)
    } else {
        n.to_string()
    }
}

/// CPU seconds this process has used (user + system, all threads), from
/// `/proc/self/stat` (clock ticks of 10 ms); NaN where that file does not exist.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |k: usize| fields.get(k).and_then(|f| f.parse::<f64>().ok());
    match (ticks(11), ticks(12)) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => f64::NAN,
    }
}

/// `num / den` as `1.5x` with `decimals` decimals, or `-` when either time is too short to
/// measure (CPU time comes in ticks of 10 ms: a run of one tiny set takes 0 of them, and
/// 0 / 0 is no ratio) or unknown (NaN).
pub fn ratio(num: f64, den: f64, decimals: usize) -> String {
    if num > 0.0 && den > 0.0 && num.is_finite() && den.is_finite() {
        format!("{:.decimals$}x", num / den)
    } else {
        "-".to_owned()
    }
}

/// A timing: median wall seconds and median CPU seconds (all threads) per call.
#[derive(Clone, Copy)]
pub struct Timing {
    pub wall: f64,
    pub cpu: f64,
}

impl Timing {
    /// A row that did not run: its table skips it, and every ratio to it is `-`.
    pub const NOT_RUN: Timing = Timing {
        wall: f64::NAN,
        cpu: f64::NAN,
    };
}

/// Median wall and CPU seconds of `reps` calls of `f`, and the last call's result.
pub fn time_reps<T>(reps: usize, mut f: impl FnMut() -> T) -> (Timing, T) {
    let mut walls = Vec::with_capacity(reps);
    let mut cpus = Vec::with_capacity(reps);
    let mut last = None;
    for _ in 0..reps.max(1) {
        let c = cpu_seconds();
        let t = Instant::now();
        let r = f();
        walls.push(t.elapsed().as_secs_f64());
        cpus.push(cpu_seconds() - c);
        last = Some(r);
    }
    let timing = Timing {
        wall: median(&mut walls),
        cpu: median(&mut cpus),
    };
    (timing, last.expect("at least one call"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_label() {
        assert_eq!(size_label(64 << 10), "64K");
        assert_eq!(size_label(16 << 20), "16M");
        assert_eq!(size_label(1000), "1000");
    }
}
