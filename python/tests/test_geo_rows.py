"""segbatch.geo's row-level questions (intersects, dwithin, row_pairs) against GeoPandas'
``sindex.query`` (GEOS's STRtree) as its best user writes it: the same index arrays,
element for element, on GPS-like tracks and street networks at the origin and at UTM and
ECEF offsets, and on the shapes where row semantics matter (many parts, closed rings,
repeated vertices, empty and missing geometries, a row meeting itself, rows that touch only
at a shared vertex, rows exactly at the distance)."""

import numpy as np
import pytest

from geodata import gps_tracks, street_network

shapely = pytest.importorskip("shapely")
gpd = pytest.importorskip("geopandas")
pd = pytest.importorskip("pandas")
sg = pytest.importorskip("segbatch.geo")


def sindex(tree, query=None, **kw):
    """GeoPandas' answer, as its user asks: ``tree.sindex.query(query.geometry, ...)``,
    sorted by (input, tree)."""
    tree = gpd.GeoDataFrame(geometry=gpd.GeoSeries(tree))
    q = tree if query is None else gpd.GeoDataFrame(geometry=gpd.GeoSeries(query))
    return tree.sindex.query(q.geometry, sort=True, **kw)


def assert_same(got, want):
    got_i, got_j = got
    assert got_i.dtype == np.int64 and got_j.dtype == np.int64
    assert len(got_i) == want.shape[1], (len(got_i), want.shape[1])
    np.testing.assert_array_equal(got_i, want[0])
    np.testing.assert_array_equal(got_j, want[1])


OFFSETS = [(0.0, 0.0), (500000.0, 5000000.0), (4500000.0, 1200000.0)]


@pytest.fixture(scope="module", params=OFFSETS, ids=["origin", "utm", "ecef"])
def tracks(request):
    return gps_tracks(3000, seed=5, side=3000.0, origin=request.param)


def test_tracks_intersects_equals_sindex(tracks):
    want = sindex(tracks, predicate="intersects")
    assert want.shape[1] > 2 * len(tracks)  # rows meet other rows
    assert_same(sg.intersects(tracks), want)
    assert_same(sg.intersects(tracks, threads=1), want)
    assert_same(sg.intersects(gpd.GeoSeries(tracks)), want)


@pytest.mark.parametrize("d", [0.0, 5.0, 25.0])
def test_tracks_dwithin_equals_sindex(tracks, d):
    want = sindex(tracks, predicate="dwithin", distance=d)
    assert_same(sg.dwithin(tracks, d), want)
    assert_same(sg.dwithin(tracks, d, threads=1), want)


def test_streets_equal_sindex():
    streets = street_network(blocks=12, random_lines=400, seed=4)
    g = shapely.transform(streets, lambda c: c + [480000.0, 4990000.0])
    assert_same(sg.intersects(g), sindex(g, predicate="intersects"))
    assert_same(sg.dwithin(g, 25), sindex(g, predicate="dwithin", distance=25))


def test_two_sets_equal_sindex():
    a = gps_tracks(1500, seed=6, side=2500.0)
    b = gps_tracks(1200, seed=7, side=2500.0)
    assert_same(sg.intersects(a, b), sindex(a, b, predicate="intersects"))
    assert_same(sg.dwithin(a, 20, b), sindex(a, b, predicate="dwithin", distance=20))
    # one side small (the brute-force tiles of the radius query)
    assert_same(sg.dwithin(a, 20, b[:5]), sindex(a, b[:5], predicate="dwithin", distance=20))


def special_rows():
    L, M = shapely.LineString, shapely.MultiLineString
    return np.array(
        [
            L([(0, 0), (10, 0)]),  # 0
            M([[(20, 20), (30, 20)], [(5, -5), (5, 5)]]),  # 1: two parts, the second crosses 0
            L([(10, 0), (10, 10)]),  # 2: only a shared vertex with 0
            shapely.LinearRing([(40, 40), (50, 40), (50, 50), (40, 40)]),  # 3: a closed ring
            L([(60, 60), (70, 70), (70, 60), (60, 70)]),  # 4: crosses itself
            L([(80, 80), (80, 80), (90, 80), (90, 80)]),  # 5: repeated vertices
            L(),  # 6: empty
            None,  # 7: missing
            L([(50, 45), (55, 45)]),  # 8: touches ring 3 at a point of its edge
            L([(0, 25), (10, 25)]),  # 9: exactly 25 from row 0
            L([(85, 80), (85, 80)]),  # 10: a point-like line on row 5
            M([[(100, 0), (110, 0)], [(100, 0), (100, 10)], [(105, -5), (105, 5)]]),  # 11: parts meet
            L([(30, 20), (35, 25)]),  # 12: shares row 1's first part's end
        ],
        dtype=object,
    )


def test_special_rows_equal_sindex():
    g = special_rows()
    got = sg.intersects(g)
    assert_same(got, sindex(g, predicate="intersects"))
    pairs = set(zip(*(x.tolist() for x in got)))
    assert {(0, 1), (0, 2), (3, 8), (5, 10), (1, 12), (4, 4), (11, 11)} <= pairs
    assert not any(6 in p or 7 in p for p in pairs)
    for d in (0.0, 25.0, np.nextafter(25.0, 0), 26.0):
        assert_same(sg.dwithin(g, d), sindex(g, predicate="dwithin", distance=d))


def test_rows_of_many_parts_equal_sindex():
    """MultiLineStrings of 1 to 40 tracks each (parts that cross other parts of their own
    row and of other rows), with empty and missing rows among them, one set and two."""
    parts = gps_tracks(2400, seed=8, side=2000.0)
    rng = np.random.default_rng(8)
    sizes = rng.integers(1, 41, 200)
    sizes = sizes[np.cumsum(sizes) <= len(parts)]
    cut = np.cumsum(sizes)[:-1]
    rows = [shapely.multilinestrings(list(p)) for p in np.split(parts[: sizes.sum()], cut)]
    rows[3:3] = [None, shapely.MultiLineString(), shapely.LineString()]
    g = np.array(rows, dtype=object)
    assert max(len(shapely.get_parts(r)) for r in g if r is not None) > 20
    assert_same(sg.intersects(g), sindex(g, predicate="intersects"))
    assert_same(sg.dwithin(g, 15), sindex(g, predicate="dwithin", distance=15))
    other = gps_tracks(300, seed=9, side=2000.0)
    assert_same(sg.intersects(g, other), sindex(g, other, predicate="intersects"))
    assert_same(sg.dwithin(other, 15, g), sindex(other, g, predicate="dwithin", distance=15))


def test_dwithin_exactly_at_the_distance():
    for off in OFFSETS:
        g = shapely.transform(
            np.array([shapely.LineString([(0, 0), (10, 0)]), shapely.LineString([(3, 25), (7, 25)])]),
            lambda c: c + list(off),
        )
        assert (0, 1) in set(zip(*(x.tolist() for x in sg.dwithin(g, 25.0))))
        assert (0, 1) not in set(zip(*(x.tolist() for x in sg.dwithin(g, np.nextafter(25.0, 0)))))
        assert_same(sg.dwithin(g, 25.0), sindex(g, predicate="dwithin", distance=25.0))


def test_frames_carry_the_meeting_point_and_the_distance(tracks):
    f = sg.intersects(tracks, frame=True)
    assert list(f.columns) == ["input", "tree", "x", "y"]
    assert_same((f["input"].to_numpy(), f["tree"].to_numpy()), sindex(tracks, predicate="intersects"))
    pts = shapely.points(f["x"].to_numpy(), f["y"].to_numpy())
    scale = np.abs(f[["x", "y"]].to_numpy()).max()
    gap = np.maximum(shapely.distance(pts, tracks[f["input"]]), shapely.distance(pts, tracks[f["tree"]]))
    assert gap.max() <= 1e-14 * max(scale, 1.0) * 16
    d = sg.dwithin(tracks, 25, frame=True)
    assert list(d.columns) == ["input", "tree", "distance"]
    want = shapely.distance(tracks[d["input"]], tracks[d["tree"]])
    np.testing.assert_allclose(d["distance"].to_numpy(), want, rtol=1e-12, atol=1e-9)
    # each pair's point and distance does not depend on the thread count
    for one, many in ((sg.intersects(tracks, frame=True, threads=1), f), (sg.dwithin(tracks, 25, frame=True, threads=1), d)):
        pd.testing.assert_frame_equal(one, many)


def test_row_pairs_are_each_pair_once(tracks):
    a, b = sg.row_pairs(tracks)
    want = sindex(tracks, predicate="intersects")
    keep = want[0] < want[1]
    np.testing.assert_array_equal(a, want[0][keep])
    np.testing.assert_array_equal(b, want[1][keep])
    f = sg.row_pairs(tracks, 25, points=True)
    assert list(f.columns) == ["a", "b", "i", "j", "dist2", "distance"]
    p = sg.pieces(tracks)
    assert (p.row[f["i"]] == f["a"]).all() and (p.row[f["j"]] == f["b"]).all()


def test_geodataframe_and_geoarrow_inputs(tracks):
    pa = pytest.importorskip("pyarrow")
    gdf = gpd.GeoDataFrame({"name": np.arange(len(tracks))}, geometry=gpd.GeoSeries(tracks))
    want = sindex(tracks, predicate="intersects")
    assert_same(sg.intersects(gdf), want)
    assert_same(sg.intersects(sg.pieces(gdf)), want)
    wkb = pa.array(shapely.to_wkb(tracks))
    assert_same(sg.intersects(wkb), want)


def test_bad_distance():
    g = special_rows()
    with pytest.raises(ValueError):
        sg.dwithin(g, -1)
    with pytest.raises(ValueError):
        sg.dwithin(g, float("nan"))
