"""Generated line data for the geometry tests and benchmarks.

:func:`street_network`: a grid of streets (LineStrings split into blocks at shared nodes,
so streets meet at vertices they share) plus random polylines that cross them anywhere;
coordinates are multiples of 1/64 below 2**14, exact in float32 and float64 alike.
:func:`hard_lines`: float64 segments with end points on, or a rounding off, other
segments, the near-degenerate cases where a float32 decision and shapely's differ."""

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


def hard_lines(n: int, seed: int, offset) -> np.ndarray:
    """float64 segments (not exact in float32) with end points placed on other segments by
    interpolation (on them or a rounding off), end points a micrometre from others, shared
    end points and collinear overlaps, moved by ``offset``."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 2000, (n, 2))
    seg = np.concatenate([a, a + rng.normal(0, 30, (n, 2))], axis=1)
    m, q = n // 3, n // 10
    k, t = rng.integers(0, n, m), rng.uniform(0, 1, m)
    seg[n - m :, :2] = seg[k, :2] + t[:, None] * (seg[k, 2:] - seg[k, :2])
    seg[:q, 2:] = seg[n - q :, :2] + rng.normal(0, 1e-6, (q, 2))
    seg[q : 2 * q, :2] = seg[2 * q : 3 * q, 2:]
    src = seg[3 * q : 3 * q + 50]
    seg[4 * q : 4 * q + 50] = np.concatenate(  # collinear, overlapping half of src
        [src[:, :2] + 0.5 * (src[:, 2:] - src[:, :2]), src[:, 2:] + 0.5 * (src[:, 2:] - src[:, :2])], axis=1
    )
    return seg + np.tile(offset, 2)


def strtree_pairs(geoms):
    """Row pairs ``i < j`` that meet, by shapely's STRtree (GEOS, float64)."""
    import shapely

    tree = shapely.STRtree(geoms)
    i, j = tree.query(geoms, predicate="intersects")
    keep = i < j
    key = np.unique(i[keep].astype(np.int64) * len(geoms) + j[keep])
    return key // len(geoms), key % len(geoms)


def gps_tracks(n: int = 60000, seed: int = 0, side: float = 20000.0, origin=(500000.0, 5000000.0)):
    """shapely LineStrings like GPS tracks: ``n`` random walks of 3 to 12 vertices with
    steps of 10 to 50 m and a heading that turns a little at each step, starting uniformly
    in a ``side`` x ``side`` metre square at ``origin`` (UTM metres by default), float64
    coordinates with centimetre noise (not exact in float32). At the defaults (60K tracks,
    about 390K pieces, 20 km) about a third of the tracks cross another."""
    import shapely

    rng = np.random.default_rng(seed)
    m = rng.integers(3, 13, n)
    total = int(m.sum())
    track = np.repeat(np.arange(n), m)
    first = np.cumsum(m) - m
    heading = rng.uniform(0, 2 * np.pi, n)[track] + np.cumsum(rng.normal(0, 0.3, total))
    step = rng.uniform(10, 50, total)
    dx, dy = step * np.cos(heading), step * np.sin(heading)
    dx[first] = 0.0
    dy[first] = 0.0
    # Each track's walk from its own start: cumulative sums restarted at each first vertex.
    cx, cy = np.cumsum(dx), np.cumsum(dy)
    cx -= np.repeat(cx[first], m)
    cy -= np.repeat(cy[first], m)
    start = rng.uniform(0, side, (n, 2)) + np.asarray(origin, dtype=np.float64)
    xy = np.stack([cx, cy], axis=1) + start[track] + rng.normal(0, 0.01, (total, 2))
    return shapely.linestrings(xy, indices=track)
