"""segbatch.geo: line geometry in every form (shapely, GeoSeries, GeoArrow, GeoParquet WKB
and native) gives the same pieces, and crossing pairs mapped to geometry rows equal
shapely's STRtree ``intersects`` row pairs on a generated street network."""

import subprocess
import sys

import numpy as np
import pytest

import segbatch
import segbatch.arrow
from geodata import hard_lines, street_network, strtree_pairs

shapely = pytest.importorskip("shapely")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")
sg = pytest.importorskip("segbatch.geo")


@pytest.fixture(scope="module")
def streets():
    return street_network(blocks=16, random_lines=600, seed=3)


@pytest.fixture(scope="module")
def reference(streets):
    return strtree_pairs(streets)


def as_set(rows):
    return set(zip(*(np.asarray(r).tolist() for r in rows)))


def geoarrow_storage(geoms):
    """A GeoArrow multilinestring column (separated coordinates) built with pyarrow alone."""
    typ, coords, (o_part, o_geom) = shapely.to_ragged_array(geoms)
    assert typ == shapely.GeometryType.MULTILINESTRING
    vertices = pa.StructArray.from_arrays([pa.array(coords[:, 0]), pa.array(coords[:, 1])], names=["x", "y"])
    parts = pa.ListArray.from_arrays(pa.array(o_part, pa.int32()), vertices)
    return pa.ListArray.from_arrays(pa.array(o_geom, pa.int32()), parts)


def test_network_is_a_hard_case(streets, reference):
    """Streets meet at shared vertices (T and X nodes), random lines cross anywhere."""
    p = sg.pieces(streets)
    h = segbatch.crossing_pairs(p)
    shared = sg._endpoints_equal(p.segments[h["i"]], p.segments[h["j"]], 2)
    assert shared.sum() > 1000 and (~shared).sum() > 1000
    assert len(reference[0]) > 3000
    types = set(shapely.get_type_id(streets[~shapely.is_missing(streets)]).tolist())
    assert types == {1, 5}


def test_pieces_map_back_to_vertices(streets):
    p = sg.pieces(streets)
    assert p.segments.dtype == np.float64 and p.n_rows == len(streets)
    assert len(p) == sum(
        max(len(shapely.get_coordinates(part)) - 1, 0)
        for g in streets if g is not None for part in shapely.get_parts(g)
    )
    for k in np.random.default_rng(0).choice(len(p), 300, replace=False):
        g = streets[p.row[k]]
        part = shapely.get_parts(g)[p.part[k]]
        xy = shapely.get_coordinates(part)
        assert (p.segments[k] == np.concatenate([xy[p.piece[k]], xy[p.piece[k] + 1]])).all()
    # the empty and the missing geometry have no pieces
    missing = [k for k, g in enumerate(streets) if g is None or g.is_empty]
    assert len(missing) == 2 and not np.isin(missing, p.row).any()


def test_shapely_rows_equal_strtree(streets, reference):
    got = sg.intersecting_rows(streets)
    assert as_set(got) == as_set(reference)
    assert (got[0] < got[1]).all()


def check_same_pieces(p, ref, name):
    assert p.segments.dtype == np.float64, name
    assert (p.segments == ref.segments).all(), name
    for k in ("row", "part", "piece"):
        assert (getattr(p, k) == getattr(ref, k)).all(), (name, k)


def test_list_and_wkb_forms_give_the_same_pieces(streets, tmp_path):
    ref = sg.pieces(streets)
    wkb = shapely.to_wkb(streets)
    forms = {
        "list": list(streets),
        "WKB array": pa.array(wkb, pa.binary()),
        "WKB table": pa.table({"geometry": pa.array(wkb, pa.binary())}),
        "WKB bytes": wkb,
        "WKT strings": shapely.to_wkt(streets, rounding_precision=-1),
        "pandas Series of WKB": pd.Series(wkb),
    }
    for name, data in forms.items():
        check_same_pieces(sg.pieces(data), ref, name)
    pq.write_table(pa.table({"id": np.arange(len(wkb)), "geometry": pa.array(wkb, pa.binary())}), tmp_path / "w.parquet")
    check_same_pieces(segbatch.arrow.read_geoparquet(tmp_path / "w.parquet"), ref, "Parquet WKB column")


def test_geopandas_forms_give_the_same_pieces(streets, tmp_path):
    gpd = pytest.importorskip("geopandas")
    ref = sg.pieces(streets)
    gs = gpd.GeoSeries(streets, index=np.arange(len(streets)) * 10 + 5, crs="EPSG:32632")
    gdf = gpd.GeoDataFrame({"name": [f"street {k}" for k in range(len(streets))]}, geometry=gs, index=gs.index)
    forms = {"GeoSeries": gs, "GeoDataFrame": gdf}
    gdf.to_parquet(tmp_path / "wkb.parquet")
    forms["GeoParquet WKB"] = tmp_path / "wkb.parquet"
    # GeoParquet native (one geometry type per column: every line as a MultiLineString)
    multi = np.array([g if g is None or g.geom_type == "MultiLineString" else shapely.multilinestrings([g])
                      for g in streets], dtype=object)
    gpd.GeoDataFrame(geometry=gpd.GeoSeries(multi)).to_parquet(tmp_path / "native.parquet", geometry_encoding="geoarrow")
    forms["GeoParquet native"] = tmp_path / "native.parquet"
    for name, data in forms.items():
        if name.startswith("GeoParquet"):
            p = segbatch.arrow.read_parquet(data)
            assert isinstance(p, sg.Pieces)
            p2 = segbatch.arrow.read_geoparquet(data)
            assert (p2.segments == p.segments).all()
        else:
            p = sg.pieces(data)
        check_same_pieces(p, ref, name)
    assert (sg.pieces(gs).labels == gs.index).all() and sg.pieces(gs).crs == gs.crs


def test_geoarrow_native_columns(streets):
    """GeoArrow separated (struct) and interleaved coordinates, through geoarrow-pyarrow
    extension arrays and as plain Arrow storage arrays, chunked and sliced."""
    ga = pytest.importorskip("geoarrow.pyarrow")
    ref = sg.pieces(streets)
    wkb = ga.as_wkb(pa.array(shapely.to_wkb(streets), pa.binary()))
    sep = ga.as_geoarrow(wkb)
    inter = ga.as_geoarrow(wkb, coord_type=ga.CoordType.INTERLEAVED)
    assert "struct" in str(sep.type.storage_type) and "fixed_size_list" in str(inter.type.storage_type)
    for arr in (sep, inter, sep.storage, inter.storage, pa.chunked_array([sep[:100], sep[100:]])):
        p = sg.pieces(arr)
        assert (p.segments == ref.segments).all() and (p.row == ref.row).all()
    sliced = sg.pieces(inter.storage[50:200])
    want = ref.row[(ref.row >= 50) & (ref.row < 200)] - 50
    assert (sliced.row == want).all() and sliced.n_rows == 150
    # plain LineString columns (no MultiLineStrings)
    lines = np.array([g for g in streets if g is not None and g.geom_type == "LineString"], dtype=object)
    ls = ga.as_geoarrow(ga.as_wkb(pa.array(shapely.to_wkb(lines), pa.binary())))
    assert "linestring" in ls.type.extension_name
    assert as_set(sg.intersecting_rows(ls)) == as_set(strtree_pairs(lines))


def test_crossing_frame(streets):
    df = sg.crossing_pairs(streets)
    cols = ["row_i", "row_j", "part_i", "part_j", "piece_i", "piece_j", "s", "kind", "x", "y"]
    assert list(df.columns) == cols
    assert (df["row_i"] <= df["row_j"]).all()
    # the point is on both pieces
    p = sg.pieces(streets)
    h = sg._meeting(p, "auto", True, None)
    assert (p.row[h["i"]] == df["row_i"]).all() and (p.piece[h["j"]] == df["piece_j"]).all()
    pt = shapely.points(df["x"], df["y"])
    seg = lambda k: shapely.linestrings(p.segments[k].reshape(-1, 2, 2))  # noqa: E731
    assert shapely.distance(pt, seg(h["i"])).max() < 1e-9
    assert shapely.distance(pt, seg(h["j"])).max() < 1e-9
    # the float32 decisions agree on this network (every coordinate exact in float32)
    fast = sg.crossing_pairs(streets, exact=False)
    assert (fast[["row_i", "row_j", "piece_i", "piece_j", "kind"]].values == df[["row_i", "row_j", "piece_i", "piece_j", "kind"]].values).all()
    assert fast["s"].dtype == np.float32 and np.abs(fast["s"] - df["s"]).max() < 1e-6
    # pairs within a geometry: consecutive pieces of a line always touch
    same = df[df["row_i"] == df["row_j"]]
    assert len(same) > 0 and ((same["part_i"] != same["part_j"]) | (same["piece_j"] - same["piece_i"] >= 1)).all()
    consecutive = same[(same["part_i"] == same["part_j"]) & (same["piece_j"] == same["piece_i"] + 1)]
    assert len(consecutive) == sum(
        max(len(shapely.get_coordinates(part)) - 2, 0) for g in streets if g is not None for part in shapely.get_parts(g)
    )
    dropped = sg.crossing_pairs(streets, drop_same_row=True)
    assert len(dropped) == len(df) - len(same) and (dropped["row_i"] != dropped["row_j"]).all()
    # skipping shared end points drops exactly the node meetings, keeps the mid-piece crossings
    skipped = sg.crossing_pairs(streets, skip_shared_endpoints=True)
    shared = sg._endpoints_equal(p.segments[h["i"]], p.segments[h["j"]], 2)
    assert len(skipped) == (~shared).sum() > 0
    assert len(skipped) < len(dropped)


def test_geodataframe_output(streets):
    """A GeoDataFrame of points in the input's CRS, with its index labels, ready for a
    join with the attributes."""
    gpd = pytest.importorskip("geopandas")
    gs = gpd.GeoSeries(streets, index=np.arange(len(streets)) + 100, crs="EPSG:32632")
    g = sg.crossing_pairs(gs, drop_same_row=True, skip_shared_endpoints=True, geodataframe=True)
    assert isinstance(g, gpd.GeoDataFrame) and g.crs == gs.crs
    assert (g["label_i"] == g["row_i"] + 100).all() and (g["label_j"] == g["row_j"] + 100).all()
    assert (g.geometry.x.to_numpy() == g["x"].to_numpy()).all()
    names = pd.Series([f"street {k}" for k in range(len(streets))], index=gs.index, name="name")
    joined = g.join(names, on="label_i").join(names.rename("name_j"), on="label_j")
    assert joined["name"].notna().all() and joined["name_j"].notna().all() and len(joined) == len(g)
    assert len(g) == len(sg.crossing_pairs(streets, drop_same_row=True, skip_shared_endpoints=True)) > 1000


def test_utm_offsets_with_a_local_origin(streets, reference):
    """The same network in UTM metres (x ~ 4.8e5, y ~ 5e6): the default local origin
    shifts exactly (the coordinates are on the 1/64 grid), so the rows are shapely's;
    ``origin=None`` computes in float32 at 5e6, where coordinates move by up to 0.25 m."""
    utm = shapely.transform(streets, lambda c: c + [480000.0, 4990000.0])
    ref = strtree_pairs(utm)
    assert as_set(ref) == as_set(reference)
    assert as_set(sg.intersecting_rows(utm)) == as_set(ref)
    df = sg.crossing_pairs(utm, drop_same_row=True)
    local = sg.crossing_pairs(streets, drop_same_row=True)
    assert (df["s"].to_numpy() == local["s"].to_numpy()).all()
    np.testing.assert_allclose(df["x"] - 480000.0, local["x"], atol=1e-6)
    p = sg.pieces(utm)
    shifted, origin = p.local()
    assert origin is not None and (shifted == sg.pieces(streets).segments + np.tile([480000.0, 4990000.0] - origin, 2)).all()


def test_pairs_within(streets):
    """Pieces within r mapped to rows equal shapely's dwithin rows, except pairs whose
    distance is within float32 rounding of r."""
    r = 3.0
    df = sg.pairs_within(streets, r, drop_same_row=True)
    assert {"row_i", "row_j", "dist2", "s", "t", "distance", "x", "y", "x_j", "y_j"} <= set(df.columns)
    assert (df["distance"] <= r * (1 + 1e-6)).all()
    got = set(zip(df["row_i"].tolist(), df["row_j"].tolist()))
    tree = shapely.STRtree(streets)
    i, j = tree.query(streets, predicate="dwithin", distance=r)
    ref = set((a, b) for a, b in zip(i.tolist(), j.tolist()) if a < b)
    for a, b in got ^ ref:
        assert abs(shapely.distance(streets[a], streets[b]) - r) < 1e-3, (a, b)
    assert len(ref) > len(sg.intersecting_rows(streets)[0])
    # closest points: on their pieces, distance apart
    d = np.hypot(df["x"] - df["x_j"], df["y"] - df["y_j"])
    np.testing.assert_allclose(d, df["distance"], atol=1e-3)
    # two sets
    a, b = streets[:300], streets[300:]
    two = sg.pairs_within(a, r, b)
    ai, bj = shapely.STRtree(b).query(a, predicate="dwithin", distance=r)
    diff = set(zip(two["row_i"].tolist(), two["row_j"].tolist())) ^ set(zip(ai.tolist(), bj.tolist()))
    assert all(abs(shapely.distance(a[x], b[y]) - r) < 1e-3 for x, y in diff)


def test_3d_lines():
    g = [shapely.LineString([(0, 0, 0), (10, 0, 0)]), shapely.LineString([(5, -1, 1), (5, 1, 1)]),
         shapely.LineString([(5, -1, 5), (5, 1, 5)])]
    df = sg.pairs_within(g, 1.5, dim=3)
    assert df[["row_i", "row_j"]].values.tolist() == [[0, 1]]
    assert df["z"].tolist() == [0.0] and df["z_j"].tolist() == [1.0]
    assert sg.pieces(g, dim=3).segments.shape == (3, 6)


def test_wrong_geometry_types_are_named(tmp_path):
    lines = [shapely.LineString([(0, 0), (1, 1)])]
    with pytest.raises(TypeError, match=r"geometry row 1 is a Point .*points have no pieces"):
        sg.pieces(lines + [shapely.Point(0, 0)])
    with pytest.raises(TypeError, match=r"row 2 is a Polygon.*\.boundary"):
        sg.crossing_pairs(lines * 2 + [shapely.box(0, 0, 1, 1)])
    with pytest.raises(TypeError, match="GeometryCollection"):
        sg.pieces([shapely.GeometryCollection(lines)])
    with pytest.raises(TypeError, match="expected shapely geometries or WKB, got float"):
        sg.pieces([1.0, 2.0])
    with pytest.raises(ValueError, match="has no z coordinate; pass dim=2"):
        sg.pieces(lines, dim=3)
    with pytest.raises(ValueError, match="origin"):
        sg.crossing_pairs(lines, origin="center")
    pq.write_table(pa.table({"geometry": shapely.to_wkb([shapely.box(0, 0, 1, 1)])}), tmp_path / "poly0.parquet")
    with pytest.raises(TypeError, match="geometry row 0 is a Polygon"):
        segbatch.arrow.read_geoparquet(tmp_path / "poly0.parquet")
    gpd = pytest.importorskip("geopandas")
    gpd.GeoDataFrame(geometry=[shapely.box(0, 0, 1, 1)]).to_parquet(tmp_path / "poly.parquet")
    with pytest.raises(TypeError, match="Polygon"):
        segbatch.arrow.read_parquet(tmp_path / "poly.parquet")
    gpd.GeoDataFrame(geometry=[shapely.box(0, 0, 1, 1)]).to_parquet(tmp_path / "polyn.parquet", geometry_encoding="geoarrow")
    with pytest.raises(TypeError, match="Polygon"):
        segbatch.arrow.read_geoparquet(tmp_path / "polyn.parquet")
    with pytest.raises(ValueError, match="no column 'geom'"):
        segbatch.arrow.read_geoparquet(tmp_path / "poly.parquet", column="geom")


def test_2d_segment_file_without_dim_says_so(tmp_path):
    seg = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = pa.table({k: seg[:, i] for i, k in enumerate(segbatch.arrow.SEGMENT2_COLUMNS)})
    pq.write_table(t, tmp_path / "s2.parquet")
    with pytest.raises(ValueError, match=r"missing columns 'z0', 'z1' \(a file of 2D segments: pass dim=2\)") as e:
        segbatch.arrow.read_parquet(tmp_path / "s2.parquet")
    assert "FieldRef" not in str(e.value)
    with pytest.raises(ValueError, match="pass dim=2"):
        segbatch.arrow.columns(t)
    assert (segbatch.arrow.read_parquet(tmp_path / "s2.parquet", dim=2).to_numpy() == seg).all()


def test_without_shapely(streets):
    """Without shapely: segbatch and GeoArrow native columns work; shapely input, WKB and
    GeoDataFrames raise an ImportError naming the extra."""
    storage = geoarrow_storage(streets)
    ref = sg.pieces(storage).segments
    assert (ref == sg.pieces(streets).segments).all()
    code = f"""
import sys
sys.modules['shapely'] = None
sys.modules['geopandas'] = None
import numpy as np, pyarrow as pa, pyarrow.ipc as ipc
import segbatch, segbatch.geo as sg, segbatch.arrow
arr = ipc.open_stream(sys.stdin.buffer.read()).read_all().column(0)
p = sg.pieces(arr)
assert p.segments.shape == {ref.shape}, p
df = sg.crossing_pairs(p, drop_same_row=True)
assert len(df) > 100
for bad in (lambda: sg.pieces(pa.array([b"1234"])), lambda: sg.pieces([None])):
    try:
        bad()
    except ImportError as e:
        assert "segbatch[geo]" in str(e), e
    else:
        raise SystemExit("no ImportError")
try:
    sg.to_geodataframe(df)
except ImportError as e:
    assert "segbatch[geo]" in str(e), e
print("ok")
"""
    sink = pa.BufferOutputStream()
    t = pa.table({"geometry": storage})
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write_table(t)
    r = subprocess.run([sys.executable, "-c", code], input=sink.getvalue().to_pybytes(), capture_output=True)
    assert r.returncode == 0 and r.stdout.strip() == b"ok", r.stderr.decode()


def test_empty_missing_and_float32_columns():
    for data in ([], [None, None], [shapely.LineString()], shapely.MultiLineString()):
        p = sg.pieces(data)
        assert len(p) == 0 and p.segments.shape == (0, 4)
        assert len(sg.crossing_pairs(data)) == 0 and len(sg.pairs_within(data, 1.0, data)) == 0
        assert all(len(r) == 0 for r in sg.intersecting_rows(data))
    vertex = pa.struct([("x", pa.float32()), ("y", pa.float32())])
    col = pa.array([[{"x": 0, "y": 0}, {"x": 1, "y": 1}], None, [{"x": 0, "y": 1}, {"x": 1, "y": 0}]], pa.list_(vertex))
    p = sg.pieces(col)
    assert p.segments.dtype == np.float32 and p.row.tolist() == [0, 2] and p.n_rows == 3
    df = sg.crossing_pairs(col)
    assert df[["row_i", "row_j", "x", "y"]].values.tolist() == [[0, 2, 0.5, 0.5]]


def test_geoarrow_file_without_geoparquet_metadata(streets, tmp_path):
    """A Parquet file whose geometry column is a GeoArrow extension type (no ``geo``
    metadata, any column name) is found by segbatch.arrow.read_parquet; a plain binary
    column needs column=."""
    ga = pytest.importorskip("geoarrow.pyarrow")
    wkb = pa.array(shapely.to_wkb(streets), pa.binary())
    pq.write_table(pa.table({"id": np.arange(len(streets)), "roads": ga.as_wkb(wkb)}), tmp_path / "ext.parquet")
    pq.write_table(pa.table({"id": np.arange(len(streets)), "roads": wkb}), tmp_path / "plain.parquet")
    ref = sg.pieces(streets)
    assert (segbatch.arrow.read_parquet(tmp_path / "ext.parquet").segments == ref.segments).all()
    with pytest.raises(ValueError, match="missing columns"):
        segbatch.arrow.read_parquet(tmp_path / "plain.parquet")
    with pytest.raises(ValueError, match="pass column="):
        segbatch.arrow.read_geoparquet(tmp_path / "plain.parquet")
    p = segbatch.arrow.read_geoparquet(tmp_path / "plain.parquet", column="roads")
    assert (p.segments == ref.segments).all() and (p.row == ref.row).all()


@pytest.mark.parametrize("offset", [(0.0, 0.0), (480000.123, 4990000.456)])
def test_exact_decisions_equal_shapely_on_float64_lines(offset):
    seg = hard_lines(1500, seed=11, offset=offset)
    geoms = shapely.linestrings(seg.reshape(-1, 2, 2))
    ref = strtree_pairs(geoms)
    assert len(ref[0]) > 5000
    got = sg.intersecting_rows(geoms)
    assert as_set(got) == as_set(ref)
    df = sg.crossing_pairs(geoms)
    assert df["s"].dtype == np.float64 and ((df["s"] >= 0) & (df["s"] <= 1)).all()
    # each point is on both pieces, to float64 rounding at the coordinates' scale
    pt = shapely.points(df["x"], df["y"])
    tol = 1e-9 * max(1.0, abs(offset[1]))
    assert shapely.distance(pt, geoms[df["row_i"]]).max() < tol
    assert shapely.distance(pt, geoms[df["row_j"]]).max() < tol


def test_exact_kinds_and_parameters():
    g = [
        shapely.LineString([(0, 0), (4, 0)]),
        shapely.LineString([(2, 0), (6, 0)]),  # collinear overlap from s = 0.5
        shapely.LineString([(1, 1), (1, 1), (1, -1)]),  # a zero-length piece, then a crossing
        shapely.LineString([(4, 0), (4, 3)]),  # touches 0 at its end, 1 inside
        shapely.LineString([(0.1, 0.1 + 1e-12), (3, 3)]),  # misses 0 by 1e-12
    ]
    df = sg.crossing_pairs(g)
    rows = df[["row_i", "row_j", "piece_i", "piece_j", "kind", "s", "x", "y"]].values.tolist()
    assert [0, 1, 0, 0, 2, 0.5, 2.0, 0.0] in rows
    assert [0, 2, 0, 1, 1, 0.25, 1.0, 0.0] in rows
    assert [0, 3, 0, 0, 1, 1.0, 4.0, 0.0] in rows
    assert [1, 3, 0, 0, 1, 0.5, 4.0, 0.0] in rows
    assert not ((df["row_i"] == 0) & (df["row_j"] == 4)).any()
    assert set(zip(*sg.intersecting_rows(g))) == as_set(strtree_pairs(np.array(g, dtype=object)))


def _vertices(xy, null, interleaved):
    """A GeoArrow vertex array of ``xy`` with the vertices ``null`` null: interleaved
    (``fixed_size_list<double>[2]``) or separated (``struct<x, y>``)."""
    mask = pa.array(null)
    if interleaved:
        flat = pa.array(np.asarray(xy, np.float64).ravel())
        return pa.FixedSizeListArray.from_arrays(flat, 2, mask=mask)
    xy = np.asarray(xy, np.float64)
    return pa.StructArray.from_arrays([pa.array(xy[:, 0]), pa.array(xy[:, 1])], names=["x", "y"], mask=mask)


@pytest.mark.parametrize("interleaved", [True, False])
def test_a_null_vertex_is_a_value_error_naming_the_row(interleaved):
    # Three lines of 2, 3 and 2 vertices; vertex 1 of line 1 (vertex 3 overall) is null.
    xy = [(0, 0), (1, 1), (2, 0), (3, 3), (4, 0), (5, 5), (6, 0)]
    null = [False, False, False, True, False, False, False]
    offsets = pa.array([0, 2, 5, 7], pa.int32())
    lines = pa.ListArray.from_arrays(offsets, _vertices(xy, null, interleaved))
    with pytest.raises(ValueError, match=r"row 1 has a null vertex \(vertex 1 of its part\)"):
        sg.pieces(lines)
    with pytest.raises(ValueError, match=r"row 0 has a null vertex"):
        sg.pieces(lines.slice(1))  # rows are the positions of the column given
    assert len(sg.pieces(lines.slice(2))) == 1  # the null vertex is not in this slice
    # The same vertex in a MultiLineString of row 0 (its second part).
    multi = pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), lines)
    with pytest.raises(ValueError, match=r"row 0 has a null vertex \(vertex 1 of its part\)"):
        sg.crossing_pairs(multi)
    # A missing line (a null row) is still a row without pieces, and a null coordinate of a
    # struct vertex is a null vertex too.
    whole = [False] * 7
    missing = pa.ListArray.from_arrays(offsets, _vertices(xy, whole, interleaved), mask=pa.array([False, True, False]))
    assert sg.pieces(missing).row.tolist() == [0, 2]
    if not interleaved:
        x = pa.array([0.0, 1, 2, None, 4, 5, 6])
        v = pa.StructArray.from_arrays([x, pa.array(np.arange(7.0))], names=["x", "y"])
        with pytest.raises(ValueError, match="row 1 has a null vertex"):
            sg.pieces(pa.ListArray.from_arrays(offsets, v))


def test_coordinates_beyond_float32_keep_their_pairs_and_warn_nothing():
    import warnings

    # Lines about 1e39 (beyond float32's 3.4e38): two crossing in (5e38, 5e38), a third
    # 1e30 from the second, and the same lines at the origin scaled down, for comparison.
    g = [
        shapely.LineString([(0, 0), (1e39, 1e39)]),
        shapely.LineString([(0, 1e39), (1e39, 0)]),
        shapely.LineString([(1e39 + 1e30, 0), (1e39 + 2e30, 0)]),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's "overflow encountered in cast" included
        near = sg.pairs_within(g, 2e30)
        crossing = sg.crossing_pairs(g)
        rows = sg.intersecting_rows(g)
        rounded = sg.crossing_pairs(g, exact=False)  # float32: beyond its range, nothing
        o = sg.pieces(g).local()[1]
    assert np.isfinite(o).all()
    assert list(zip(near["row_i"], near["row_j"])) == [(0, 1), (1, 2)]
    assert np.isfinite(near["distance"]).all()
    # Within the f64 kernel's bound, relative to the pair's extent (about 1e39 here).
    assert np.allclose(near["distance"], [0.0, 1e30], rtol=0, atol=8 * np.finfo(np.float64).eps * 2e39)
    assert list(zip(crossing["row_i"], crossing["row_j"])) == [(0, 1)]
    assert (crossing["x"].iloc[0], crossing["y"].iloc[0]) == (5e38, 5e38)
    assert [r.tolist() for r in rows] == [[0], [1]]
    assert len(rounded) == 0
