"""Benchmarks of the Python binding against the Rust call and against shapely, in one run.

    python python/bench.py [--pairs 1048576] [--repeat 7] [--skip-dask]

1. 3D closest points of N pairs (float32, segment against segment), from Python, against
   the library's own call on the same data in the same process
   (``segbatch._segbatch.rust_closest_points_seconds``, output reused): Python on the NumPy
   ``(N, 6)`` rows against ``closest_points_rows_into`` on the same rows (the bar's
   comparison), and Python on columns (six separate arrays, as from Arrow) against ``closest_points_into``
   on ``Segments`` built beforehand; outputs reused (``out=``) and new. Rounds are
   interleaved; medians.
2. 2D intersection of N pairs: ``segbatch.intersect2`` against shapely 2.x vectorized
   ``intersects`` + ``distance`` on the same arrays (shapely needs geometry objects; their
   creation is timed separately and not counted against shapely).
3. Dask: a 4-partition Parquet data set, ``segbatch.dask.self_pairs_within`` on a
   ``LocalCluster`` of 2 worker processes, against the single-process call: identical?

The machine is shared: the ratios, measured in the same run, are the figures to quote.
"""

import argparse
import os
import sys
import tempfile
import time

import numpy as np

# Run from a checkout, the script's folder (python/) holds the package's source without
# its compiled module: import the installed package (`pip install ./python`), or the one
# `maturin develop` points at, not that folder.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import segbatch
from segbatch import _segbatch as native


def med(times):
    """Median in ms."""
    return float(np.median(times)) * 1e3


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def closest(n, rounds):
    rng = np.random.default_rng(1)
    a = rng.uniform(-10, 10, (n, 6)).astype(np.float32)
    b = rng.uniform(-10, 10, (n, 6)).astype(np.float32)
    # Columns as Arrow gives them: six separate buffers. (A Fortran-ordered (N, 6) array
    # with N a large power of two puts its columns N*4 bytes apart, so all twelve input
    # streams map to the same cache sets: about 2x slower, in Python and Rust alike.)
    af = segbatch.SegmentColumns([np.ascontiguousarray(a[:, k]) for k in range(6)])
    bf = segbatch.SegmentColumns([np.ascontiguousarray(b[:, k]) for k in range(6)])
    print(f"\n3D closest points, {n} pairs, float32, segment/segment "
          f"(SIMD {segbatch.SIMD_LEVEL}, {os.cpu_count()} cores; median of {rounds} interleaved rounds, ms)")
    print("  rust rows = closest_points_rows_into on the (N, 6) rows; rust batches = closest_points_into "
          "on Segments built beforehand; py = segbatch.closest_points(out=)")
    sets = {"all": ["dist2", "s", "t", "point_a", "point_b", "flags"], "params": ["dist2", "s", "t", "flags"],
            "distance": ["dist2"]}
    rows = []
    for label, outs in sets.items():
        o = segbatch.closest_points(a, b, outputs=outs)
        for threads in (1, None):
            r = {}
            rust = native.rust_closest_points_seconds
            for _ in range(rounds):
                r.setdefault("rust rows", []).append(rust(a, b, 1, threads, False, label, "rows"))
                r.setdefault("py rows", []).append(timed(lambda: segbatch.closest_points(a, b, threads=threads, out=o)))
                r.setdefault("rust batches", []).append(rust(a, b, 1, threads, False, label, "batches"))
                r.setdefault("py cols", []).append(timed(lambda: segbatch.closest_points(af, bf, threads=threads, out=o)))
                if label == "all":
                    r.setdefault("rust rows alloc", []).append(rust(a, b, 1, threads, True, label, "rows"))
                    r.setdefault("py rows alloc", []).append(
                        timed(lambda: segbatch.closest_points(a, b, threads=threads, outputs=outs)))
            rr, pr, rb, pc = (med(r[k]) for k in ("rust rows", "py rows", "rust batches", "py cols"))
            th = "1" if threads == 1 else "all"
            line = (f"  outputs {label:8s} threads {th:3s} | rust rows {rr:6.2f}  py rows {pr:6.2f} ({pr / rr:.2f}x)"
                    f" | rust batches {rb:6.2f}  py cols {pc:6.2f} ({pc / rb:.2f}x)")
            if label == "all":
                ra, pa = med(r["rust rows alloc"]), med(r["py rows alloc"])
                line += f" | new outputs: rust rows {ra:6.2f}  py rows {pa:6.2f} ({pa / ra:.2f}x)"
            print(line, flush=True)
            rows.append(line)
    return rows


def shapely_2d(n, rounds):
    import shapely

    rng = np.random.default_rng(2)
    p = rng.uniform(-10, 10, (n, 8)).astype(np.float32)
    grid = rng.random(n) < 0.2
    p[grid] = rng.integers(-2, 3, (grid.sum(), 8)).astype(np.float32)
    a, b = np.ascontiguousarray(p[:, :4]), np.ascontiguousarray(p[:, 4:])
    t = time.perf_counter()
    la = shapely.linestrings(a.reshape(-1, 2, 2).astype(np.float64))
    lb = shapely.linestrings(b.reshape(-1, 2, 2).astype(np.float64))
    make = time.perf_counter() - t
    r = {}
    same = ["kind", "distance"]  # what intersects + distance answer
    for _ in range(rounds):
        r.setdefault("same 1", []).append(timed(lambda: segbatch.intersect2(a, b, outputs=same, threads=1)))
        r.setdefault("same all", []).append(timed(lambda: segbatch.intersect2(a, b, outputs=same)))
        r.setdefault("every 1", []).append(timed(lambda: segbatch.intersect2(a, b, threads=1)))
        r.setdefault("every all", []).append(timed(lambda: segbatch.intersect2(a, b)))
        if len(r.get("shapely", [])) < 3:
            r.setdefault("shapely", []).append(timed(lambda: (shapely.intersects(la, lb), shapely.distance(la, lb))))
    sh = med(r["shapely"])
    print(f"\n2D intersection, {n} pairs, float32 (N, 4) arrays; shapely {shapely.__version__} "
          f"intersects + distance: {sh:.1f} ms (+{make * 1e3:.0f} ms to make the LineStrings, not counted)")
    for k, label in (("same", "kind + distance"), ("every", "every column")):
        for th in ("1", "all"):
            t = med(r[f"{k} {th}"])
            print(f"  segbatch.intersect2 {label:16s} threads {th:3s} {t:7.2f} ms  {sh / t:6.0f}x shapely")


def dask_check():
    import dask.dataframe as dd
    import pandas as pd

    import segbatch.arrow as sa
    import segbatch.dask as sd

    rng = np.random.default_rng(7)
    n = 200_000
    start = rng.uniform(0, 1000, (n, 3)).astype(np.float32)
    start[:, 2] *= 0.01
    seg = np.concatenate([start, start + rng.normal(0, 3, (n, 3)).astype(np.float32)], axis=1)
    df = pd.DataFrame({k: seg[:, i] for i, k in enumerate(sa.SEGMENT_COLUMNS)})
    with tempfile.TemporaryDirectory() as d:
        for q in range(4):
            df.iloc[q * n // 4:(q + 1) * n // 4].to_parquet(os.path.join(d, f"part{q}.parquet"))
        t = time.perf_counter()
        ref = segbatch.self_pairs_within(seg, 1.0)
        single = time.perf_counter() - t
        with sd.connect(n_workers=2):
            ddf = dd.read_parquet(d)
            t = time.perf_counter()
            got = sd.self_pairs_within(ddf, 1.0)
            dist = time.perf_counter() - t
    same = all(got[k].to_numpy().tobytes() == ref[k].tobytes() for k in ref)
    print(f"\nDask: self_pairs_within over a 4-partition Parquet data set of {n} segments, radius 1: "
          f"{len(ref['i'])} pairs; LocalCluster(2 workers) {dist:.2f} s, single process {single:.2f} s; "
          f"identical: {same}")
    return same


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=1 << 20)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--skip-dask", action="store_true")
    args = ap.parse_args()
    closest(args.pairs, args.repeat)
    shapely_2d(args.pairs, args.repeat)
    if not args.skip_dask:
        dask_check()


if __name__ == "__main__":
    main()
