"""Street crossings at UTM coordinates: segbatch.crossing_pairs (float64, shared nodes
skipped) against shapely 2's STRtree query (predicate="intersects") in the same run, and
every pair where they differ decided in exact rational arithmetic.

The network: a grid of streets between jittered nodes, each street cut at every node (so
consecutive pieces share a node exactly), plus random straight lines across it; about
370K float64 segments around (480 km, 4990 km), as UTM eastings and northings in metres.

Usage (from the repository root, after `maturin develop --release -m python/Cargo.toml`):

    python python/bench_streets.py [--nodes 400] [--lines 50000] [--reps 3]

Prints the medians of `reps` runs of each side (shapely: tree build + query; segbatch:
the whole call, on all cores and on one thread), their ratio, the pair counts, and the
number of differing pairs that each side got wrong by the exact test.
"""

import argparse
import os
import statistics
import sys
import time
from fractions import Fraction

import numpy as np
import shapely

# Run from a checkout, the script's folder (python/) holds the package's source without
# its compiled module: import the installed package (`pip install ./python`), or the one
# `maturin develop` points at, not that folder.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import segbatch


def network(nodes: int, lines: int, seed: int = 7) -> np.ndarray:
    """(N, 4) float64: grid streets cut at their nodes, then random lines."""
    rng = np.random.default_rng(seed)
    spacing = 100.0
    gx, gy = np.meshgrid(np.arange(nodes), np.arange(nodes), indexing="ij")
    x = 480_000.0 + gx * spacing + rng.uniform(-20, 20, gx.shape)
    y = 4_990_000.0 + gy * spacing + rng.uniform(-20, 20, gy.shape)
    pieces = [
        # along x: node (i, j) to (i + 1, j); along y: (i, j) to (i, j + 1)
        np.stack([x[:-1, :], y[:-1, :], x[1:, :], y[1:, :]], axis=-1).reshape(-1, 4),
        np.stack([x[:, :-1], y[:, :-1], x[:, 1:], y[:, 1:]], axis=-1).reshape(-1, 4),
    ]
    extent = nodes * spacing
    p = np.stack(
        [480_000.0 + rng.uniform(0, extent, lines), 4_990_000.0 + rng.uniform(0, extent, lines)],
        axis=-1,
    )
    angle = rng.uniform(0, np.pi, lines)
    length = rng.uniform(20, 300, lines)
    q = p + np.stack([np.cos(angle), np.sin(angle)], axis=-1) * length[:, None]
    pieces.append(np.concatenate([p, q], axis=1))
    return np.ascontiguousarray(np.concatenate(pieces))


def shares_endpoint(seg: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    a, b = seg[i], seg[j]
    same = lambda u, v: (a[:, u] == b[:, v]) & (a[:, u + 1] == b[:, v + 1])
    return same(0, 0) | same(0, 2) | same(2, 0) | same(2, 2)


def orient(p, q, r) -> int:
    d = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    return (d > 0) - (d < 0)


def meets_exactly(a, b) -> bool:
    """Whether two closed segments share a point, in exact rationals."""
    a0, a1 = (Fraction(a[0]), Fraction(a[1])), (Fraction(a[2]), Fraction(a[3]))
    b0, b1 = (Fraction(b[0]), Fraction(b[1])), (Fraction(b[2]), Fraction(b[3]))
    o1, o2, o3, o4 = orient(a0, a1, b0), orient(a0, a1, b1), orient(b0, b1, a0), orient(b0, b1, a1)
    if o1 * o2 < 0 and o3 * o4 < 0:
        return True

    def on(p, s0, s1):
        return all(min(s0[k], s1[k]) <= p[k] <= max(s0[k], s1[k]) for k in range(2))

    return (
        (o1 == 0 and on(b0, a0, a1))
        or (o2 == 0 and on(b1, a0, a1))
        or (o3 == 0 and on(a0, b0, b1))
        or (o4 == 0 and on(a1, b0, b1))
    )


def timed(f, reps: int):
    times, out = [], None
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=400)
    ap.add_argument("--lines", type=int, default=50_000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()

    seg = network(args.nodes, args.lines)
    geoms = shapely.linestrings(seg.reshape(-1, 2, 2))
    print(f"{len(seg)} float64 segments around ({seg[:, 0].min():.0f}, {seg[:, 1].min():.0f})")

    def shapely_pairs():
        tree = shapely.STRtree(geoms)
        i, j = tree.query(geoms, predicate="intersects")
        keep = i < j
        return i[keep], j[keep]

    t_shapely, (si, sj) = timed(shapely_pairs, args.reps)
    run = lambda threads: segbatch.crossing_pairs(
        seg, skip_shared_endpoints=True, threads=threads
    )
    t_seg, hits = timed(lambda: run(None), args.reps)
    t_seg1, _ = timed(lambda: run(1), args.reps)

    shared = shares_endpoint(seg, si, sj)
    want = set(zip(si[~shared].tolist(), sj[~shared].tolist()))
    got = set(zip(hits["i"].tolist(), hits["j"].tolist()))
    only_seg, only_shapely = got - want, want - got
    wrong_seg = sum(not meets_exactly(seg[i], seg[j]) for i, j in only_seg) + sum(
        meets_exactly(seg[i], seg[j]) for i, j in only_shapely
    )
    wrong_shapely = len(only_seg) + len(only_shapely) - wrong_seg
    print(
        f"shapely STRtree query(intersects): {t_shapely:.3f} s, {len(si)} pairs "
        f"({int(shared.sum())} sharing a node, {len(want)} without)"
    )
    print(
        f"segbatch crossing_pairs(float64, skip_shared_endpoints=True): {t_seg:.3f} s all cores "
        f"({t_shapely / t_seg:.1f}x shapely), {t_seg1:.3f} s one thread "
        f"({t_shapely / t_seg1:.1f}x), {len(got)} pairs"
    )
    print(
        f"differing pairs: {len(only_seg)} only segbatch, {len(only_shapely)} only shapely; "
        f"decided exactly: segbatch wrong on {wrong_seg}, shapely wrong on {wrong_shapely}"
    )
    assert hits["s"].dtype == np.float64 and hits["point"].dtype == np.float64


if __name__ == "__main__":
    main()
