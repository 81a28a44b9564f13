"""float64 against float32 on the same data, in the same run: the cost of float64 in,
float64 out (python/README.md, Precision).

    python python/bench_precision.py [--pairs 1048576] [--repeat 7] [--threads N]

The data are UTM-like (x about 480 km, y about 4,990 km, segments up to 100 m); float32
gets the same values rounded. Each round times every query once in each precision
(interleaved); the medians are printed with their ratio.
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

# Run from a checkout, the script's folder (python/) holds the package's source without
# its compiled module: import the installed package (`pip install ./python`), or the one
# `maturin develop` points at, not that folder.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import segbatch


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=1 << 20)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    n = args.pairs
    origin = np.tile([480_000.0, 4_990_000.0, 0.0], 2)
    side = 100.0 * n ** (1 / 3)  # about one neighbour per segment within 2 m
    start = rng.uniform(0, side, (n, 3))
    a64 = np.hstack([start, start + rng.uniform(-50, 50, (n, 3))]) + origin
    start = rng.uniform(0, side, (n, 3))
    b64 = np.hstack([start, start + rng.uniform(-50, 50, (n, 3))]) + origin
    a32, b32 = a64.astype(np.float32), b64.astype(np.float32)
    m = n // 16  # the set query on fewer segments
    th = args.threads
    queries = {
        "closest_points (all outputs)": lambda a, b: segbatch.closest_points(a, b, threads=th),
        "distance": lambda a, b: segbatch.distance(a, b, threads=th),
        "cpa_segments": lambda a, b: segbatch.cpa_segments(a, b, threads=th),
        f"self_pairs_within r=2 ({m} segments)": lambda a, b: segbatch.self_pairs_within(a[:m], 2.0, threads=th),
    }
    times = {(q, p): [] for q in queries for p in ("float32", "float64")}
    for _ in range(args.repeat):
        for q, f in queries.items():
            for p, (a, b) in (("float32", (a32, b32)), ("float64", (a64, b64))):
                t = time.perf_counter()
                f(a, b)
                times[q, p].append(time.perf_counter() - t)
    print(f"{n} pairs, UTM coordinates, threads={th or 'all'}, SIMD {segbatch.SIMD_LEVEL}; "
          f"median of {args.repeat} interleaved rounds, ms")
    print(f"{'query':44} {'float32':>9} {'float64':>9} {'f64/f32':>8}")
    for q in queries:
        t32, t64 = (statistics.median(times[q, p]) * 1e3 for p in ("float32", "float64"))
        print(f"{q:44} {t32:9.1f} {t64:9.1f} {t64 / t32:7.2f}x")


if __name__ == "__main__":
    main()
