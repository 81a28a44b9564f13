"""Shared fixtures: the Rust oracle (the extension's ``_oracle``) and inputs."""

import numpy as np
import pytest


@pytest.fixture(scope="session")
def run_oracle(tmp_path_factory):
    """run_oracle(query, a, b, *args) -> {name: raw bytes as numpy} from the Rust crate (the
    extension's ``_oracle``, which calls the crate's API directly, built for the same SIMD
    level as the extension in use); ``dtype="<f8"`` writes the inputs as float64 (the
    oracle's ``*64`` queries)."""
    import segbatch

    counter = [0]

    def run(query, a, b, *args, names, dtype="<f4"):
        counter[0] += 1
        d = tmp_path_factory.mktemp(f"oracle{counter[0]}")
        np.ascontiguousarray(a, dtype=dtype).tofile(d / "a.bin")
        np.ascontiguousarray(b, dtype=dtype).tofile(d / "b.bin")
        segbatch._native._oracle([query, str(d / "a.bin"), str(d / "b.bin"), str(d / "out"), *map(str, args)])
        return {k: np.fromfile(d / "out" / f"{k}.bin", dtype=dt) for k, dt in names.items()}

    return run


def hard_segments(n: int, seed: int, dim: int = 3) -> np.ndarray:
    """n random pairs as (n, 4*dim) float32 with hard cases mixed in: near-parallel,
    collinear, degenerate, tiny, huge, far from the origin, shared ends, NaN and inf."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(-10, 10, (n, 4, dim)).astype(np.float32)
    kind = rng.integers(0, 10, n)
    d = p[:, 1] - p[:, 0]
    # near-parallel and parallel
    sel = kind == 1
    p[sel, 3] = p[sel, 2] + d[sel] * np.float32(1.5) + rng.normal(0, 1e-6, (sel.sum(), dim)).astype(np.float32)
    sel = kind == 2  # collinear, overlapping
    p[sel, 2] = p[sel, 0] + d[sel] * np.float32(0.25)
    p[sel, 3] = p[sel, 0] + d[sel] * np.float32(2.0)
    sel = kind == 3  # degenerate a
    p[sel, 1] = p[sel, 0]
    sel = kind == 4  # tiny and far
    p[sel] = p[sel] * np.float32(1e-4) + np.float32(1e4)
    sel = kind == 5  # shared end point
    p[sel, 2] = p[sel, 1]
    sel = kind == 6  # integer grid: exact touching, T-junctions
    p[sel] = rng.integers(-3, 4, (sel.sum(), 4, dim)).astype(np.float32)
    idx = np.flatnonzero(kind == 7)
    p[idx[::2], 0, 0] = np.nan
    p[idx[1::2], 3, 1] = np.inf
    return p.reshape(n, 4 * dim)


def lines(p):
    """shapely LineStrings of (N, 4) 2D segments; a zero-length side is a Point (GEOS treats
    a zero-length LineString as invalid: it intersects nothing)."""
    import shapely

    q = np.asarray(p).reshape(-1, 2, 2).astype(np.float64)
    geoms = shapely.linestrings(q)
    point = (q[:, 0] == q[:, 1]).all(axis=1)
    geoms[point] = shapely.points(q[point, 0])
    return geoms
