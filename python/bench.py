"""Benchmarks of the Python binding against the Rust call and against shapely, in one run.

    python python/bench.py [--pairs 1048576] [--rounds 7] [--skip-dask]

1. 3D closest points of N pairs (float32, segment against segment), from Python, against
   the library's own call on the same data in the same process
   (``segbatch._segbatch.rust_closest_points_seconds``: ``closest_points_into`` /
   ``par_closest_points_into`` on batches built beforehand, output reused). Python is timed
   for row input (the NumPy ``(N, 6)`` layout, transposed chunk by chunk inside) and for
   column input (``np.asfortranarray`` or Arrow columns: the kernel reads them directly),
   with outputs reused (``out=``) and allocated. Rounds are interleaved; best of each.
2. 2D intersection of N pairs: ``segbatch.intersect2`` against shapely 2.x vectorized
   ``intersects`` + ``distance`` on the same arrays (shapely needs geometry objects; their
   creation is timed separately and not counted against shapely).
3. Dask: a 4-partition Parquet data set, ``segbatch.dask.self_pairs_within`` on a
   ``LocalCluster`` of 2 worker processes, against the single-process call: identical?

The machine is shared: the ratios, measured in the same run, are the figures to quote.
"""

import argparse
import os
import tempfile
import time

import numpy as np

import segbatch
from segbatch import _segbatch as native


def best(times):
    return min(times) * 1e3


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def closest(n, rounds):
    rng = np.random.default_rng(1)
    a = rng.uniform(-10, 10, (n, 6)).astype(np.float32)
    b = rng.uniform(-10, 10, (n, 6)).astype(np.float32)
    af, bf = np.asfortranarray(a), np.asfortranarray(b)
    print(f"\n3D closest points, {n} pairs, float32, segment/segment "
          f"(SIMD {segbatch.SIMD_LEVEL}, {os.cpu_count()} cores; best of {rounds} rounds, ms)")
    sets = {"all": ["dist2", "s", "t", "point_a", "point_b", "flags"], "params": ["dist2", "s", "t", "flags"],
            "distance": ["dist2"]}
    rows = []
    for label, outs in sets.items():
        o = segbatch.closest_points(a, b, outputs=outs)
        for threads in (1, None):
            r = {}
            for _ in range(rounds):
                r.setdefault("rust", []).append(native.rust_closest_points_seconds(a, b, 3, threads, False, label))
                r.setdefault("py cols out=", []).append(timed(lambda: segbatch.closest_points(af, bf, threads=threads, out=o)))
                r.setdefault("py rows out=", []).append(timed(lambda: segbatch.closest_points(a, b, threads=threads, out=o)))
                r.setdefault("rust from rows", []).append(native.rust_closest_points_seconds(a, b, 3, threads, False, label, True))
                if label == "all":
                    r.setdefault("rust alloc", []).append(native.rust_closest_points_seconds(a, b, 1, threads, True, label))
                    r.setdefault("py rows alloc", []).append(timed(lambda: segbatch.closest_points(a, b, threads=threads, outputs=outs)))
            rust = best(r["rust"])
            th = "1" if threads == 1 else "all"
            line = f"  outputs {label:8s} threads {th:3s}  rust {rust:6.2f}"
            line += f" | py cols out= {best(r['py cols out=']):6.2f} ({best(r['py cols out=']) / rust:.2f}x)"
            rr, pr = best(r["rust from rows"]), best(r["py rows out="])
            line += f" | py rows out= {pr:6.2f} ({pr / rust:.2f}x; rust from rows {rr:6.2f}: {pr / rr:.2f}x)"
            if label == "all":
                ra = best(r["rust alloc"])
                line += f" | rust alloc {ra:6.2f}, py rows alloc {best(r['py rows alloc']):6.2f} ({best(r['py rows alloc']) / ra:.2f}x)"
            print(line)
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
    sh = best(r["shapely"])
    print(f"\n2D intersection, {n} pairs, float32 (N, 4) arrays; shapely {shapely.__version__} "
          f"intersects + distance: {sh:.1f} ms (+{make * 1e3:.0f} ms to make the LineStrings, not counted)")
    for k, label in (("same", "kind + distance"), ("every", "every column")):
        for th in ("1", "all"):
            t = best(r[f"{k} {th}"])
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
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--skip-dask", action="store_true")
    args = ap.parse_args()
    closest(args.pairs, args.rounds)
    shapely_2d(args.pairs, args.rounds)
    if not args.skip_dask:
        dask_check()


if __name__ == "__main__":
    main()
