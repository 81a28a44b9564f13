"""2D crossings and distances agree with shapely 2.x (GEOS) on the same float32
coordinates: every exact touching, T-junction and collinear case, distances within a few
f32 epsilons of the coordinate scale."""

import numpy as np
import pytest

import segbatch
from conftest import hard_segments, lines

shapely = pytest.importorskip("shapely")


def exact_and_general(n: int, seed: int) -> np.ndarray:
    """Random crossings and misses, plus segments on a small integer grid: exact touchings,
    T-junctions, shared ends, collinear overlaps and collinear gaps, degenerate points."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(-10, 10, (n, 8)).astype(np.float32)
    grid = rng.integers(0, 2, n).astype(bool)
    p[grid] = rng.integers(-2, 3, (grid.sum(), 8)).astype(np.float32)
    return p


@pytest.mark.parametrize("seed", [1, 2])
def test_crossings(seed):
    p = exact_and_general(50000, seed)
    a, b = p[:, :4], p[:, 4:]
    r = segbatch.intersect2(a, b)
    meets = shapely.intersects(lines(a), lines(b))
    assert meets.sum() > 10000
    np.testing.assert_array_equal(r["kind"] != segbatch.CROSSING["disjoint"], meets)
    # collinear overlaps are among them
    assert (r["kind"] == segbatch.CROSSING["overlap"]).sum() > 100


@pytest.mark.parametrize("seed", [1, 2])
def test_distances(seed):
    """Distances on every finite case, hard ones included (near-parallel, tiny, far from
    the origin), where crossing semantics may differ within the scale-free tolerance."""
    p = np.concatenate([hard_segments(20000, seed=seed, dim=2), exact_and_general(20000, seed)])
    p = p[np.isfinite(p).all(axis=1)]
    a, b = p[:, :4], p[:, 4:]
    r = segbatch.intersect2(a, b)
    d = shapely.distance(lines(a), lines(b))
    scale = np.abs(p).max(axis=1)
    err = np.abs(r["distance"].astype(np.float64) - d) / (np.finfo(np.float32).eps * scale)
    assert err.max() <= 8, err.max()
