"""Street-network crossings: segbatch.geo against shapely 2 (STRtree) and NumPy, and the
same query on Dask, in one run (medians of ``--repeat`` runs, 3 by default).

    python python/bench_geo.py [--blocks 200] [--lines 60000] [--tracks 60000] [--hard 4000] [--repeat 3]
                               [--skip-dask] [--rows-only]

The network (``python/tests/geodata.py``): a grid of ``blocks`` x ``blocks`` city blocks of
100 m whose streets are LineStrings of 1 to 3 blocks meeting at shared nodes, plus
``lines`` random polylines of 2 to 5 vertices, some of them MultiLineStrings. Coordinates
are on a 1/64 m grid, exact in float32 and float64 alike.

The question: which pairs of distinct geometry rows meet (cross, touch or overlap)?

- shapely: ``STRtree(geoms).query(geoms, predicate="intersects")``, pairs ``i < j``
  (the tree's build counted);
- NumPy: the pieces (``shapely.get_parts`` / ``get_coordinates``, as segbatch.geo does),
  a uniform grid in NumPy (each piece listed in the cells its box covers, sorted by cell,
  candidate pairs per cell, deduplicated) and an exact orientation test in float64 (exact
  here: the coordinates have 21 significant bits), touching and collinear overlaps
  included; the leanest fully vectorised NumPy program we know for it;
- segbatch: ``segbatch.geo.intersecting_rows(geoms)`` (the pieces, candidates from the
  float32 grid query, exact decisions), on 1 thread and on all cores; with
  ``exact=False`` (``segbatch.crossing_pairs``'s float32 decisions); and the two steps
  of the latter.

Each answer is compared with shapely's (identical: True/False).

Row-level questions as GeoPandas users ask them (``--rows-only`` runs only these): on
``tracks`` GPS-like tracks (``python/tests/geodata.py`` ``gps_tracks``: random walks of 3
to 12 vertices, steps of 10 to 50 m, in a 20 km square at UTM coordinates, seed 1) and on
the street network moved to UTM offsets, ``gdf.sindex.query(gdf.geometry,
predicate="intersects")`` and ``predicate="dwithin", distance=25`` (with the STRtree built
in the call, on a fresh frame, and with it built already) against
``segbatch.geo.intersects(gdf)`` and ``segbatch.geo.dwithin(gdf, 25)`` (from the
GeoDataFrame, conversion included), and whether the (input, tree) arrays are identical
(GeoPandas' sorted by (input, tree), as segbatch.geo returns them). Then, the same network in
UTM metres (x + 480 000, y + 4 990 000): segbatch.geo as is, with ``exact=False`` and with
``origin=None`` too (float32 at 5e6): the number of row pairs that differ from shapely's.
Then ``--hard`` float64 segments (not exact in float32) with end points on other segments
or a rounding off them, at the origin and at UTM offsets: shapely against segbatch.geo
(exact) and ``exact=False``.

Dask: the network as a 4-file GeoParquet data set (WKB);
``segbatch.dask.crossing_pairs(dd.read_parquet(...), geometry="geometry", ...)`` on a
``LocalCluster`` of 2 worker processes against ``segbatch.geo.crossing_pairs`` of
``geopandas.read_parquet(...)`` in one process (identical?).
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
import segbatch.geo as sg

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests"))
from geodata import gps_tracks, hard_lines, street_network, strtree_pairs  # noqa: E402


def med(times):
    return float(np.median(times))


def timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def numpy_rows(geoms):
    """Row pairs that meet, with NumPy alone after the coordinates are read."""
    p = sg.pieces(geoms)
    seg, row = p.segments, p.row
    n = len(seg)
    lo = np.minimum(seg[:, :2], seg[:, 2:])
    hi = np.maximum(seg[:, :2], seg[:, 2:])
    cell = max(float(np.median(hi - lo)) * 2, 1e-9)
    c0 = np.floor((lo - lo.min(axis=0)) / cell).astype(np.int64)
    c1 = np.floor((hi - lo.min(axis=0)) / cell).astype(np.int64)
    span = c1 - c0 + 1
    count = span[:, 0] * span[:, 1]
    ids = np.repeat(np.arange(n), count)
    k = np.arange(len(ids)) - np.repeat(np.cumsum(count) - count, count)
    cx = c0[ids, 0] + k % span[ids, 0]
    cy = c0[ids, 1] + k // span[ids, 0]
    key = cx * (int(c1[:, 1].max()) + 2) + cy
    order = np.argsort(key, kind="stable")
    key, ids = key[order], ids[order]
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    sizes = np.diff(np.r_[starts, len(key)])
    # all pairs within each cell: each listed piece with every later one of its cell
    cell_of = np.repeat(np.arange(len(starts)), sizes)
    later = sizes[cell_of] - (np.arange(len(key)) - starts[cell_of]) - 1
    first = np.repeat(np.arange(len(key)), later)
    step = np.arange(len(first)) - np.repeat(np.cumsum(later) - later, later)
    i, j = ids[first], ids[first + 1 + step]
    i, j = np.minimum(i, j), np.maximum(i, j)
    pair = np.unique(i * n + j)
    i, j = pair // n, pair % n
    keep = (lo[i] <= hi[j]).all(axis=1) & (lo[j] <= hi[i]).all(axis=1)
    i, j = i[keep], j[keep]
    P, Q = seg[i], seg[j]

    def orient(a, b, c):
        return np.sign((b[:, 0] - a[:, 0]) * (c[:, 1] - a[:, 1]) - (b[:, 1] - a[:, 1]) * (c[:, 0] - a[:, 0]))

    p1, p2, q1, q2 = P[:, :2], P[:, 2:], Q[:, :2], Q[:, 2:]
    o1, o2, o3, o4 = orient(p1, p2, q1), orient(p1, p2, q2), orient(q1, q2, p1), orient(q1, q2, p2)
    meets = (o1 * o2 <= 0) & (o3 * o4 <= 0)
    # collinear: the boxes overlap (checked above) exactly when the segments do
    meets |= (o1 == 0) & (o2 == 0) & (o3 == 0) & (o4 == 0)
    ri, rj = row[i[meets]], row[j[meets]]
    keep = ri != rj
    key = np.unique(np.minimum(ri, rj)[keep] * p.n_rows + np.maximum(ri, rj)[keep])
    return key // p.n_rows, key % p.n_rows


def same(a, b) -> bool:
    return len(a[0]) == len(b[0]) and all((x == y).all() for x, y in zip(a, b))


def streets(args):
    import shapely

    geoms = street_network(blocks=args.blocks, random_lines=args.lines, seed=1)
    p = sg.pieces(geoms)
    print(f"street network: {len(geoms)} geometries, {len(p)} pieces (segments); shapely {shapely.__version__}, "
          f"{os.cpu_count()} cores, SIMD {segbatch.SIMD_LEVEL}; medians of {args.repeat} runs, seconds")
    r = {}
    for _ in range(args.repeat):
        for name, f in (
            ("shapely STRtree", lambda: strtree_pairs(geoms)),
            ("numpy grid", lambda: numpy_rows(geoms)),
            ("segbatch.geo 1 thread", lambda: sg.intersecting_rows(geoms, threads=1)),
            ("segbatch.geo all cores", lambda: sg.intersecting_rows(geoms)),
            ("segbatch.geo exact=False, all cores", lambda: sg.intersecting_rows(geoms, exact=False)),
            ("  of which pieces()", lambda: sg.pieces(geoms)),
            ("  of which crossing_pairs, all cores", lambda: segbatch.crossing_pairs(p.local()[0])),
        ):
            t, out = timed(f)
            r.setdefault(name, []).append(t)
            r[name + " out"] = out
    ref = r["shapely STRtree out"]
    sh = med(r["shapely STRtree"])
    print(f"  {len(ref[0])} pairs of distinct rows meet")
    for name in ("shapely STRtree", "numpy grid", "segbatch.geo 1 thread", "segbatch.geo all cores",
                 "segbatch.geo exact=False, all cores", "  of which pieces()",
                 "  of which crossing_pairs, all cores"):
        t = med(r[name])
        line = f"  {name:38s} {t:8.3f}  {sh / t:6.1f}x shapely"
        if not name.startswith("  ") and name != "shapely STRtree":
            line += f"  identical: {same(r[name + ' out'], ref)}"
        print(line, flush=True)
    utm = shapely.transform(geoms, lambda c: c + [480000.0, 4990000.0])
    ref_utm = strtree_pairs(utm)
    auto = sg.intersecting_rows(utm)
    raw = sg.intersecting_rows(utm, exact=False, origin=None)
    local = sg.intersecting_rows(utm, exact=False)
    print(f"  UTM offsets: shapely's pairs unchanged: {same(ref_utm, ref)}; segbatch.geo identical: "
          f"{same(auto, ref_utm)}; exact=False: {differ(local, ref_utm)} row pairs differ, and "
          f"{differ(raw, ref_utm)} with origin=None too (float32 at 5e6)")
    return geoms


def differ(a, b) -> int:
    return len(set(zip(*map(np.ndarray.tolist, a))) ^ set(zip(*map(np.ndarray.tolist, b))))


def hard(n, rounds):
    import shapely

    print(f"\nfloat64 lines with near-degenerate meetings (python/tests/geodata.py hard_lines, {n} segments; "
          f"medians of {rounds} runs, seconds)")
    for offset in ((0.0, 0.0), (480000.123, 4990000.456)):
        geoms = shapely.linestrings(hard_lines(n, seed=1, offset=offset).reshape(-1, 2, 2))
        r = {}
        for _ in range(rounds):
            for name, f in (("shapely", lambda: strtree_pairs(geoms)),
                            ("exact", lambda: sg.intersecting_rows(geoms)),
                            ("fast", lambda: sg.intersecting_rows(geoms, exact=False))):
                t, out = timed(f)
                r.setdefault(name, []).append(t)
                r[name + " out"] = out
        ref = r["shapely out"]
        print(f"  offset {offset}: {len(ref[0])} row pairs; shapely {med(r['shapely']):.3f}; segbatch.geo "
              f"{med(r['exact']):.3f} ({med(r['shapely']) / med(r['exact']):.1f}x, {differ(r['exact out'], ref)} "
              f"differ); exact=False {med(r['fast']):.3f} ({med(r['shapely']) / med(r['fast']):.1f}x, "
              f"{differ(r['fast out'], ref)} differ)", flush=True)


def dask_streets(geoms, rounds):
    import dask.dataframe as dd
    import geopandas as gpd

    import segbatch.dask as sd

    gdf = gpd.GeoDataFrame({"name": np.arange(len(geoms))}, geometry=gpd.GeoSeries(geoms))
    opts = {"drop_same_row": True, "skip_shared_endpoints": True}
    single, dist = [], []
    with tempfile.TemporaryDirectory() as d:
        n = len(gdf)
        for q in range(4):
            gdf.iloc[q * n // 4:(q + 1) * n // 4].to_parquet(os.path.join(d, f"part{q}.parquet"))
        with sd.connect(n_workers=2):
            for _ in range(rounds):
                t, got = timed(lambda: sd.crossing_pairs(dd.read_parquet(d), geometry="geometry", **opts))
                dist.append(t)
                t, ref = timed(lambda: sg.crossing_pairs(gpd.read_parquet(d), **opts))
                single.append(t)
    ident = all(got[k].to_numpy().tobytes() == ref[k].to_numpy().tobytes() for k in got.columns)
    print(f"\nDask: crossing_pairs(geometry='geometry', drop_same_row=True, skip_shared_endpoints=True) over a "
          f"4-file GeoParquet data set (WKB) of {len(geoms)} streets: {len(ref)} crossings; "
          f"LocalCluster(2 workers) {med(dist):.3f} s, single process (gpd.read_parquet + segbatch.geo) "
          f"{med(single):.3f} s, reading included; identical: {ident}")


def sorted_pairs(q):
    """GeoPandas' ``sindex.query`` answer (two index arrays, GEOS's order) sorted by
    (input, tree), to compare with segbatch.geo's sorted arrays."""
    order = np.lexsort((q[1], q[0]))
    return q[0][order], q[1][order]


def rows_vs_geopandas(name, geoms, distance, rounds):
    """GeoPandas ``gdf.sindex.query(gdf.geometry, predicate=...)`` against
    ``segbatch.geo.intersects(gdf)`` / ``dwithin(gdf, distance)``, each from the
    GeoDataFrame: medians of ``rounds`` runs, and whether the pairs are identical."""
    import geopandas as gpd

    gdf = gpd.GeoDataFrame({"id": np.arange(len(geoms))}, geometry=gpd.GeoSeries(geoms))
    kw = {"predicate": "dwithin", "distance": distance} if distance is not None else {"predicate": "intersects"}
    what = f"dwithin {distance:g} m" if distance is not None else "intersects"

    def fresh():
        # A new frame each run, as a user's single call meets it: the STRtree build counted.
        g = gpd.GeoDataFrame(geometry=gpd.GeoSeries(geoms))
        return g.sindex.query(g.geometry, **kw)

    gdf.sindex  # built once for the query-only timing
    if distance is None:
        ours = lambda: sg.intersects(gdf)  # noqa: E731
        ours1 = lambda: sg.intersects(gdf, threads=1)  # noqa: E731
    else:
        ours = lambda: sg.dwithin(gdf, distance)  # noqa: E731
        ours1 = lambda: sg.dwithin(gdf, distance, threads=1)  # noqa: E731
    r = {}
    for _ in range(rounds):
        for key, f in (
            ("geopandas, index built in the call", fresh),
            ("geopandas, query of a built index", lambda: gdf.sindex.query(gdf.geometry, **kw)),
            ("segbatch.geo, all cores", ours),
            ("segbatch.geo, 1 thread", ours1),
        ):
            t, out = timed(f)
            r.setdefault(key, []).append(t)
            r[key + " out"] = out
    ref = sorted_pairs(r["geopandas, query of a built index out"])
    print(f"\n{name}: {len(geoms)} rows, {len(sg.pieces(geoms))} pieces; {what}: {len(ref[0])} (input, tree) "
          f"pairs; medians of {rounds} runs, seconds, from the GeoDataFrame")
    base = med(r["geopandas, query of a built index"])
    for key in ("geopandas, index built in the call", "geopandas, query of a built index",
                "segbatch.geo, all cores", "segbatch.geo, 1 thread"):
        t = med(r[key])
        out = r[key + " out"]
        out = sorted_pairs(out) if key.startswith("geopandas") else out
        print(f"  {key:36s} {t:8.3f}  {base / t:6.1f}x geopandas' query  identical: {same(out, ref)}",
              flush=True)


def rows(args):
    tracks = gps_tracks(args.tracks, seed=1)
    streets = street_network(blocks=args.blocks, random_lines=args.lines, seed=1)
    utm = shapely_offset(streets, (480000.0, 4990000.0))
    for name, geoms in ((f"GPS tracks (python/tests/geodata.py gps_tracks, seed 1)", tracks),
                        ("street network at UTM offsets", utm)):
        rows_vs_geopandas(name, geoms, None, args.repeat)
        rows_vs_geopandas(name, geoms, 25.0, args.repeat)


def shapely_offset(geoms, offset):
    import shapely

    return shapely.transform(geoms, lambda c: c + list(offset))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--blocks", type=int, default=200)
    ap.add_argument("--lines", type=int, default=60000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--hard", type=int, default=4000)
    ap.add_argument("--skip-dask", action="store_true")
    ap.add_argument("--tracks", type=int, default=60000)
    ap.add_argument("--rows-only", action="store_true", help="only the row-level comparison with GeoPandas")
    args = ap.parse_args()
    if args.rows_only:
        rows(args)
        return
    geoms = streets(args)
    rows(args)
    hard(args.hard, args.repeat)
    if not args.skip_dask:
        dask_streets(geoms, args.repeat)


if __name__ == "__main__":
    main()
