"""Dask on a LocalCluster of two worker processes over a 4-partition Parquet dataset gives
exactly the single-process results, including pairs across partition and strip borders."""

import numpy as np
import pandas as pd
import pytest

import segbatch
import segbatch.arrow as sa

dd = pytest.importorskip("dask.dataframe")
sd = pytest.importorskip("segbatch.dask")


@pytest.fixture(scope="module")
def client():
    with sd.connect(n_workers=2) as c:
        yield c


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    rng = np.random.default_rng(7)
    n = 20000
    start = rng.uniform(0, 200, (n, 3)).astype(np.float32)
    start[:, 2] *= 0.05
    seg = np.concatenate([start, start + rng.normal(0, 1.5, (n, 3)).astype(np.float32)], axis=1)
    seg[100] = seg[99, [3, 4, 5, 0, 1, 2]]  # shares an end point with 99
    df = pd.DataFrame({k: seg[:, i] for i, k in enumerate(sa.SEGMENT_COLUMNS)})
    df["b_" + df.columns] = seg[::-1]  # a second segment per row, for the pairwise queries
    path = tmp_path_factory.mktemp("tracks")
    for q in range(4):  # 4 files = 4 partitions
        df.iloc[q * n // 4 : (q + 1) * n // 4].to_parquet(path / f"part{q}.parquet")
    return path, seg


def check_equal(got: pd.DataFrame, ref: dict):
    assert list(got.columns) == ["i", "j", "dist2", "s", "t"]
    for k in ref:
        assert got[k].to_numpy().tobytes() == ref[k].tobytes(), k


@pytest.mark.parametrize("skip", [False, True])
def test_self_pairs_equal_single_process(client, dataset, skip):
    path, seg = dataset
    ddf = dd.read_parquet(str(path), columns=list(sa.SEGMENT_COLUMNS))
    assert ddf.npartitions == 4
    got = sd.self_pairs_within(ddf, 1.0, skip_shared_endpoints=skip)
    ref = segbatch.self_pairs_within(seg, 1.0, skip_shared_endpoints=skip)
    assert len(ref["i"]) > 1000
    check_equal(got, ref)
    # pairs across input partition borders, and across spatial strip borders, are there
    part = lambda i: i // (len(seg) // 4)  # noqa: E731
    assert (part(got["i"]) != part(got["j"])).sum() > 50
    mid_x = 0.5 * seg[:, 0] + 0.5 * seg[:, 3]
    cuts = np.quantile(mid_x, [0.25, 0.5, 0.75])
    strip = np.searchsorted(cuts, mid_x)
    assert (strip[got["i"]] != strip[got["j"]]).sum() > 20


def test_pairs_within_equal_single_process(client, dataset):
    path, seg = dataset
    a = dd.read_parquet(str(path), columns=list(sa.SEGMENT_COLUMNS))
    b = dd.read_parquet(str(path), columns=["b_" + c for c in sa.SEGMENT_COLUMNS])
    got = sd.pairs_within(a, b, 0.5, columns_b=["b_" + c for c in sa.SEGMENT_COLUMNS])
    check_equal(got, segbatch.pairs_within(seg, seg[::-1], 0.5))


def test_pairwise_per_partition(client, dataset):
    path, seg = dataset
    ddf = dd.read_parquet(str(path))
    bcols = ["b_" + c for c in sa.SEGMENT_COLUMNS]
    got = sd.map_partitions(segbatch.closest_points, ddf, sa.SEGMENT_COLUMNS, bcols).compute()
    ref = segbatch.closest_points(seg, seg[::-1])
    for k in ("distance", "dist2", "s", "t", "flags"):
        assert got[k].to_numpy().tobytes() == ref[k].tobytes()
    assert got[["point_a_x", "point_a_y", "point_a_z"]].to_numpy().tobytes() == ref["point_a"].tobytes()
    cp = sd.map_partitions(segbatch.cpa_segments, ddf, sa.SEGMENT_COLUMNS, bcols, outputs=["t"]).compute()
    assert cp["t"].to_numpy().tobytes() == segbatch.cpa_segments(seg, seg[::-1])["t"].tobytes()


def test_map_blocks_unaligned_blocks_and_per_pair_arguments(client):
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(11)
    n = 60_000
    x = rng.uniform(0, 30, (n, 6)).astype(np.float32)
    y = rng.uniform(0, 30, (n, 6)).astype(np.float32)
    raw = bytearray(x.nbytes + 1)
    ux = np.frombuffer(raw, np.float32, x.size, offset=1).reshape(n, 6)  # unaligned
    ux[...] = x
    ra = rng.uniform(0, 3, n).astype(np.float32)
    rb = rng.uniform(0, 3, n).astype(np.float32)
    a = da.from_array(ux, chunks=(25_000, 6))
    b = da.from_array(y, chunks=(40_000, 6))
    dra = da.from_array(ra, chunks=17_000)  # chunked unlike a: cut again like a
    checks = [
        (segbatch.capsules_touch, (dra, rb), {}),
        (segbatch.first_contact, (), {"radius_a": dra, "radius_b": 0.5, "window": 2.0}),
        (segbatch.first_contact_segments, (ra, dra), {}),
        (segbatch.cpa, (), {"window": 5.0}),
        (segbatch.cpa_segments, (), {}),
        (segbatch.closest_points, (), {"extent_b": "ray"}),
        (segbatch.distance, (), {}),
    ]
    for func, args, kwargs in checks:
        got = sd.map_blocks(func, a, b, *args, **kwargs)
        got = got.compute() if hasattr(got, "compute") else {k: v.compute() for k, v in got.items()}
        plain = lambda v: v.compute() if hasattr(v, "compute") else v  # noqa: E731
        ref = func(x, y, *map(plain, args), **{k: plain(v) for k, v in kwargs.items()})
        if isinstance(ref, dict):
            for k in ref:
                assert got[k].tobytes() == ref[k].tobytes(), (func.__name__, k)
        else:
            assert got.tobytes() == ref.tobytes(), func.__name__
    x2, y2 = x[:, :4].copy(), y[:, :4].copy()
    got = sd.map_blocks(segbatch.intersect2, da.from_array(x2, chunks=(7_000, 4)), da.from_array(y2, chunks=(9_000, 4)))
    ref = segbatch.intersect2(x2, y2)
    for k in ref:
        assert got[k].compute().tobytes() == ref[k].tobytes(), k
    # Two float64 inputs stay float64, and the dask arrays say so before they are computed.
    x64, y64 = x2.astype(np.float64) + 480_000.0, y2.astype(np.float64) + 480_000.0
    got = sd.map_blocks(segbatch.intersect2, da.from_array(x64, chunks=(7_000, 4)), da.from_array(y64, chunks=(9_000, 4)))
    ref = segbatch.intersect2(x64, y64)
    for k in ref:
        assert got[k].dtype == ref[k].dtype, k
        assert got[k].compute().tobytes() == ref[k].tobytes(), k


def test_map_partitions_per_pair_columns(client, dataset):
    path, seg = dataset
    ddf = dd.read_parquet(str(path))
    ddf = ddf.assign(ra=ddf["x0"].abs() * 0.01, rb=ddf["y1"].abs() * 0.02)
    bcols = ["b_" + c for c in sa.SEGMENT_COLUMNS]
    got = sd.map_partitions(
        segbatch.capsules_touch, ddf, sa.SEGMENT_COLUMNS, bcols, pair_columns={"radius_a": "ra", "radius_b": "rb"}
    ).compute()
    ref = segbatch.capsules_touch(seg, seg[::-1], np.abs(seg[:, 0]) * 0.01, np.abs(seg[:, 4]) * 0.02)
    assert got["capsules_touch"].to_numpy().tobytes() == ref.tobytes()
    assert 0 < ref.sum() < len(ref)


# ---------------------------------------------------------------------------------------
# 2D crossing pairs by tiles, and a SegmentIndex broadcast to the workers.


@pytest.fixture(scope="module")
def streets2d():
    """The pieces of a generated street network (float64, nodes shared by streets) and
    the same pieces in float32."""
    pytest.importorskip("shapely")
    import segbatch.geo as sg
    from geodata import street_network

    p = sg.pieces(street_network(blocks=24, random_lines=1500, seed=5))
    return p.segments, p.segments.astype(np.float32)


def check_frame(got: pd.DataFrame, ref: dict):
    if "point" in ref:  # a frame holds the point as two columns
        point = ref["point"]
        ref = {k: v for k, v in ref.items() if k != "point"}
        ref["x"], ref["y"] = point[:, 0].copy(), point[:, 1].copy()
    assert list(got.columns) == list(ref)
    for k in ref:
        assert got[k].to_numpy().dtype == ref[k].dtype, k
        assert got[k].to_numpy().tobytes() == ref[k].tobytes(), k


def skip_shared(h, seg):
    keep = ~sd._shared2(seg[h["i"]], seg[h["j"]])
    return {k: v[keep] for k, v in h.items()}


@pytest.mark.parametrize("source", ["from_array", "from_pandas", "read_parquet"])
@pytest.mark.parametrize("skip", [False, True])
def test_crossing_pairs_by_tiles(client, streets2d, tmp_path, source, skip):
    da = pytest.importorskip("dask.array")
    seg64, seg32 = streets2d
    seg = seg64 if source != "from_array" else seg32
    cols = list(sa.SEGMENT2_COLUMNS)
    if source == "from_array":
        data = da.from_array(seg, chunks=(len(seg) // 3 + 1, 4))
    else:
        df = pd.DataFrame({k: seg[:, i] for i, k in enumerate(cols)})
        if source == "from_pandas":
            data = dd.from_pandas(df, npartitions=3)
        else:
            for q in range(3):
                df.iloc[q * len(df) // 3 : (q + 1) * len(df) // 3].to_parquet(tmp_path / f"p{q}.parquet")
            data = dd.read_parquet(str(tmp_path), columns=cols)
    got = sd.crossing_pairs(data, partitions=4, skip_shared_endpoints=skip)
    ref = segbatch.crossing_pairs(seg)
    if skip:
        ref = skip_shared(ref, seg)
    assert len(ref["i"]) > 3000
    check_frame(got, ref)
    # pairs across tile borders are there, found once
    cuts = sd._tile_cuts([sd._sample2(seg)], 4)
    tile = sd._tile_of(seg, cuts)
    assert (tile[got["i"]] != tile[got["j"]]).sum() > 50


def test_crossing_pairs_many_tiles_and_non_finite(client, streets2d):
    _, seg = streets2d
    seg = seg.copy()
    seg[10, 0] = np.nan
    seg[20, 3] = np.inf
    got = sd.crossing_pairs([seg[:5000], seg[5000:]], partitions=9)
    check_frame(got, segbatch.crossing_pairs(seg))
    # unaligned float32 blocks of shape (n, 2, 2)
    da = pytest.importorskip("dask.array")
    raw = bytearray(seg.nbytes + 2)
    odd = np.frombuffer(raw, np.float32, seg.size, offset=2).reshape(-1, 2, 2)
    odd[...] = seg.reshape(-1, 2, 2)
    assert not odd.flags.aligned
    got = sd.crossing_pairs(da.from_array(odd, chunks=(4000, 2, 2)), partitions=3)
    check_frame(got, segbatch.crossing_pairs(seg))


@pytest.mark.parametrize("source", ["from_array", "from_pandas"])
def test_segment_index_on_dask(client, source):
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(3)
    start = rng.uniform(0, 100, (3000, 3)).astype(np.float32)
    walls = np.concatenate([start, start + rng.normal(0, 3, (3000, 3)).astype(np.float32)], axis=1)
    o = rng.uniform(0, 100, (20000, 3)).astype(np.float32)
    rays = np.concatenate([o, o + rng.normal(0, 1, (20000, 3)).astype(np.float32)], axis=1)
    index = segbatch.SegmentIndex(walls)
    ref = index.first_hits(rays, 0.5, 30.0)
    pref = index.pairs_within(rays, 1.0)
    dindex = sd.SegmentIndex(da.from_array(walls, chunks=(1000, 6)))
    assert len(dindex) == len(walls)
    if source == "from_array":
        drays = da.from_array(rays, chunks=(6000, 6))
        got = {k: v.compute() for k, v in dindex.first_hits(drays, 0.5, 30.0).items()}
    else:
        df = pd.DataFrame({k: rays[:, i] for i, k in enumerate(sa.SEGMENT_COLUMNS)}, index=np.arange(len(rays)) * 3)
        drays = dd.from_pandas(df, npartitions=4)
        frame = dindex.first_hits(drays, 0.5, 30.0).compute()
        assert (frame.index == df.index).all()
        got = {k: frame[k].to_numpy() for k in ("hit", "index", "u")}
        got["point"] = np.ascontiguousarray(frame[["point_x", "point_y", "point_z"]].to_numpy())
    assert 1000 < ref["hit"].sum() < len(rays)
    for k in ref:
        assert got[k].tobytes() == ref[k].tobytes(), k
    check_frame(dindex.pairs_within(drays, 1.0), pref)
    assert len(pref["i"]) > 1000


@pytest.mark.parametrize("offset", [0.0, 5e6])
def test_crossing_pairs_of_geoparquet_geometry(client, tmp_path, offset):
    """A GeoParquet data set of streets (WKB, 3 files) read with dd.read_parquet: the
    geometry column turned into pieces on the workers gives segbatch.geo's frame bit for
    bit, rows counted over all files, also in world coordinates (local origin)."""
    gpd = pytest.importorskip("geopandas")
    shapely = pytest.importorskip("shapely")
    import dask
    import segbatch.geo as sg
    from geodata import street_network

    streets = street_network(blocks=16, random_lines=600, seed=9)
    streets = shapely.transform(streets, lambda c: c + offset)
    gdf = gpd.GeoDataFrame({"name": np.arange(len(streets))}, geometry=gpd.GeoSeries(streets))
    n = len(gdf)
    for q in range(3):
        gdf.iloc[q * n // 3 : (q + 1) * n // 3].to_parquet(tmp_path / f"s{q}.parquet")
    # dask 2024.8.0 and older (the last release for Python 3.9), with pandas 2, turn the
    # WKB column into strings as they read it (`dataframe.convert-string`), which fails on
    # bytes that are not UTF-8; their switch keeps the bytes (python/README.md, Dask).
    version = tuple(int(x) for x in dask.__version__.split(".")[:3] if x.isdigit())
    old = {"dataframe.convert-string": False} if version < (2024, 8, 1) else {}
    with dask.config.set(old):
        ddf = dd.read_parquet(str(tmp_path))
        assert ddf.npartitions == 3
        for opts in ({}, {"drop_same_row": True, "skip_shared_endpoints": True}):
            got = sd.crossing_pairs(ddf, geometry="geometry", partitions=4, **opts)
            ref = sg.crossing_pairs(streets, **opts)
            assert list(got.columns) == list(ref.columns) and len(ref) > 2000
            for k in ref.columns:
                assert got[k].to_numpy().tobytes() == ref[k].to_numpy().tobytes(), k
    rows = set(zip(got["row_i"].tolist(), got["row_j"].tolist()))
    from geodata import strtree_pairs

    assert rows <= set(zip(*(r.tolist() for r in strtree_pairs(streets))))


@pytest.mark.parametrize("offset", [(0.0, 0.0), (500000.0, 5000000.0)])
def test_row_queries_of_geoparquet_geometry(client, tmp_path, offset):
    """segbatch.dask.intersects and dwithin over a 3-file GeoParquet data set of GPS-like
    tracks: the (input, tree) arrays and the frames (meeting point, distance) of
    segbatch.geo on the whole column, bit for bit, on the cluster and on 6 tiles."""
    gpd = pytest.importorskip("geopandas")
    import segbatch.geo as sg
    from geodata import gps_tracks

    tracks = gps_tracks(2500, seed=11, side=2500.0, origin=offset)
    gdf = gpd.GeoDataFrame({"name": np.arange(len(tracks))}, geometry=gpd.GeoSeries(tracks))
    n = len(gdf)
    for q in range(3):
        gdf.iloc[q * n // 3 : (q + 1) * n // 3].to_parquet(tmp_path / f"t{q}.parquet")
    ddf = dd.read_parquet(str(tmp_path))
    for got, ref in (
        (sd.intersects(ddf, partitions=6), sg.intersects(tracks)),
        (sd.dwithin(ddf, 25, partitions=6), sg.dwithin(tracks, 25)),
    ):
        assert len(ref[0]) > 2 * n
        for g, r in zip(got, ref):
            assert g.tobytes() == r.tobytes()
    for got, ref in (
        (sd.intersects(ddf, frame=True, partitions=6), sg.intersects(tracks, frame=True)),
        (sd.dwithin(ddf, 25, frame=True, partitions=6), sg.dwithin(tracks, 25, frame=True)),
    ):
        assert list(got.columns) == list(ref.columns)
        for k in ref.columns:
            assert got[k].to_numpy().tobytes() == ref[k].to_numpy().tobytes(), k
