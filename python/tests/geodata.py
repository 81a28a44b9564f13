"""A generated street network for the geometry tests and benchmarks: a grid of streets
(LineStrings split into blocks at shared nodes, so streets meet at vertices they share)
plus random polylines that cross them anywhere. Coordinates are multiples of 1/64 below
2**14, exact in float32, so segbatch (float32) and shapely (float64) see the same lines."""

import numpy as np


def street_network(blocks: int = 20, random_lines: int = 400, seed: int = 0, spacing: float = 100.0):
    """shapely LineStrings (and a few MultiLineStrings): ``blocks`` x ``blocks`` city blocks
    of ``spacing`` metres, each street cut into LineStrings of 1 to 3 blocks with a bend
    vertex inside some blocks, plus ``random_lines`` polylines of 2 to 5 vertices."""
    import shapely

    rng = np.random.default_rng(seed)
    q = lambda v: np.round(np.asarray(v, dtype=np.float64) * 64) / 64  # noqa: E731
    lines = []
    for axis in (0, 1):
        for k in range(blocks + 1):
            cut = 0
            while cut < blocks:
                n = int(min(rng.integers(1, 4), blocks - cut))
                along = np.arange(cut, cut + n + 1, dtype=np.float64) * spacing
                pts = np.stack([along, np.full(n + 1, k * spacing)], axis=1)
                if rng.random() < 0.3:  # a bend: an extra vertex off the straight line
                    mid = 0.5 * (pts[0] + pts[1]) + [0, q(rng.uniform(-3, 3))]
                    pts = np.insert(pts, 1, mid, axis=0)
                lines.append(pts[:, ::-1] if axis else pts)
                cut += n
    size = blocks * spacing
    for _ in range(random_lines):
        m = int(rng.integers(2, 6))
        start = rng.uniform(0, size, 2)
        steps = rng.normal(0, spacing * 0.8, (m - 1, 2))
        lines.append(q(np.concatenate([[start], start + np.cumsum(steps, axis=0)])))
    geoms = [shapely.LineString(q(p)) for p in lines]
    # a few MultiLineStrings (two random polylines as one geometry), an empty and a missing one
    for k in range(0, min(40, random_lines), 2):
        a, b = geoms[-1 - k], geoms[-2 - k]
        geoms[-1 - k] = shapely.MultiLineString([a, b])
    geoms.insert(3, shapely.LineString())
    geoms.insert(7, None)
    order = rng.permutation(len(geoms))
    return np.array(geoms, dtype=object)[order]


def strtree_pairs(geoms):
    """Row pairs ``i < j`` that meet, by shapely's STRtree (GEOS, float64)."""
    import shapely

    tree = shapely.STRtree(geoms)
    i, j = tree.query(geoms, predicate="intersects")
    keep = i < j
    key = np.unique(i[keep].astype(np.int64) * len(geoms) + j[keep])
    return key // len(geoms), key % len(geoms)
