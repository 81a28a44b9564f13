"""Geometry in, row pairs out: segbatch on shapely, GeoPandas, GeoArrow and GeoParquet.

A street network, a river system or a set of GPS tracks is a column of LineStrings (and
MultiLineStrings), not an ``(N, 4)`` array. This module turns such a column into its
*pieces* (each pair of consecutive vertices of each line is one segment) with the mapping
from piece back to geometry, runs segbatch's set queries on them, and maps the answers
back to geometry rows as a ``pandas.DataFrame`` (or a ``GeoDataFrame`` of points), ready
for a join with the attributes of the input.

Geometry in (:func:`pieces`):

- shapely 2 geometry arrays (or lists), ``geopandas.GeoSeries`` and the geometry of a
  ``GeoDataFrame``: LineStrings, LinearRings, MultiLineStrings; missing and empty
  geometries give no pieces;
- GeoArrow native columns (``pyarrow`` arrays, chunked arrays, ``geoarrow.pyarrow``
  extension arrays): ``geoarrow.linestring`` and ``geoarrow.multilinestring`` with
  separated (``struct<x, y[, z]>``) or interleaved (``fixed_size_list<double>[2|3]``)
  coordinates; read with pyarrow alone, no shapely needed;
- WKB (and WKT) columns: parsed with ``shapely.from_wkb`` (``from_wkt``);
- GeoParquet files (:func:`read_parquet`, also :func:`segbatch.arrow.read_parquet` and
  :func:`segbatch.arrow.read_geoparquet`): the file's ``geo`` metadata names the geometry
  column and its encoding (WKB or native).

Coordinates keep their type: shapely and WKB give float64, and :class:`Pieces` keeps
float64 (a GeoArrow float32 column stays float32). The compiled queries compute in the
pieces' precision (``segbatch``: float64 in, float64 out). So that the answers match
shapely's wherever the data lie:

- whether two pieces meet (:func:`crossing_pairs`, :func:`intersecting_rows`) is decided
  exactly on the given coordinates (``exact=True``, the default): :func:`segbatch.crossing_pairs`
  on the pieces in their own precision (float64 stays float64), which signs every
  orientation exactly, as GEOS's robust predicates do; ``s`` and the points are computed in
  that precision. ``exact=False`` rounds the pieces about a local origin to float32 first
  (exact on the rounded coordinates; on float64 data it differs from shapely on
  near-degenerate pairs: touching within a float32 rounding);
- a local origin is subtracted first (``origin="auto"``: the centre of the pieces'
  bounding box, snapped to a multiple of the float32 spacing of the largest coordinate,
  so coordinates exact in float32 stay exact), and the returned points are computed in
  float64 from the original coordinates. In UTM metres (x about 5e5, y about 5e6)
  float32 spacing is 0.03 and 0.5 m; about the local origin of a 20 km city it is 1 mm.
  Distances (:func:`pairs_within`) carry the rounding of the local coordinates in the
  pieces' precision.

Results out (:func:`crossing_pairs`, :func:`pairs_within`, :meth:`Pieces.frame`): one row
per pair of pieces, ``row_i, row_j`` (positions of the geometries in the input, 0-based;
``label_i, label_j`` hold the input's index labels when it had one, as a GeoSeries
does), ``part_i, part_j`` (the part of a MultiLineString, 0 for a LineString),
``piece_i, piece_j`` (the piece within its part: vertices ``piece`` and ``piece + 1``),
the query's own columns and the point(s) in float64. ``geodataframe=True`` returns a
``GeoDataFrame`` with a point geometry and the input's CRS.

Pairs of pieces of the same geometry: consecutive pieces of one LineString share a vertex,
so they always touch; a line that crosses itself gives further pairs. Both are reported
by default (``row_i == row_j``); ``drop_same_row=True`` drops every pair within one
geometry and ``skip_shared_endpoints=True`` drops every pair whose pieces share an end
point (equal coordinates: two streets meeting at a node), whatever the rows.

shapely (and geopandas for GeoDataFrames) are optional: ``pip install segbatch[geo]``.
Without them, GeoArrow native columns and GeoParquet native files still work; WKB,
shapely arrays and GeoSeries raise an ``ImportError`` that names the extra.

>>> import shapely, segbatch.geo as sg
>>> streets = [shapely.LineString([(0, 0), (4, 0), (4, 3)]), shapely.LineString([(2, -1), (2, 5)])]
>>> df = sg.crossing_pairs(streets, drop_same_row=True)
>>> df[["row_i", "row_j", "piece_i", "piece_j", "x", "y"]]
   row_i  row_j  piece_i  piece_j    x    y
0      0      1        0        0  2.0  0.0
"""

from __future__ import annotations

import json
from typing import Optional

import numpy as np

import segbatch

__all__ = [
    "Pieces",
    "pieces",
    "read_parquet",
    "crossing_pairs",
    "pairs_within",
    "intersecting_rows",
    "intersects",
    "dwithin",
    "row_pairs",
    "to_geodataframe",
    "GEOMETRY_TYPES",
]

#: Geometry types that have pieces (shapely type ids).
GEOMETRY_TYPES = {1: "LineString", 2: "LinearRing", 5: "MultiLineString"}
_TYPE_NAMES = {
    0: "Point",
    1: "LineString",
    2: "LinearRing",
    3: "Polygon",
    4: "MultiPoint",
    5: "MultiLineString",
    6: "MultiPolygon",
    7: "GeometryCollection",
}
_ADVICE = {
    "Point": "points have no pieces",
    "MultiPoint": "points have no pieces",
    "Polygon": "use the polygons' .boundary for their rings",
    "MultiPolygon": "use the polygons' .boundary for their rings",
    "GeometryCollection": "use .explode() to get its parts",
}


def _shapely(what: str):
    try:
        import shapely
    except ImportError as e:  # pragma: no cover - exercised in a subprocess test
        raise ImportError(
            f"{what} needs shapely 2: pip install 'segbatch[geo]' (or pip install shapely)"
        ) from e
    return shapely


class Pieces:
    """The pieces of a column of line geometries: ``segments`` (``(N, 4)`` or ``(N, 6)``,
    ``x0, y0[, z0], x1, y1[, z1]``, float64 from shapely and WKB), and for each piece its
    geometry ``row`` (position in the input), ``part`` (within a MultiLineString) and
    ``piece`` (within its part: vertices ``piece`` and ``piece + 1``), all int64.

    Any segbatch function takes a ``Pieces`` where it takes segments
    (``segbatch.crossing_pairs(p)``: ``np.asarray(p)`` is ``p.segments``); :meth:`frame`
    maps the result back to rows. ``labels`` is the input's index (a GeoSeries' index) or
    None; ``crs`` its CRS or None; ``n_rows`` the number of geometries.
    """

    __slots__ = ("segments", "row", "part", "piece", "n_rows", "labels", "crs")

    def __init__(self, segments, row, part, piece, n_rows: int, labels=None, crs=None):
        self.segments = segments
        self.row = np.asarray(row, dtype=np.int64)
        self.part = np.asarray(part, dtype=np.int64)
        self.piece = np.asarray(piece, dtype=np.int64)
        self.n_rows = int(n_rows)
        self.labels = labels
        self.crs = crs

    @property
    def dim(self) -> int:
        """2 or 3."""
        return self.segments.shape[1] // 2

    def __len__(self) -> int:
        return len(self.segments)

    def __array__(self, dtype=None, copy=None):
        if dtype is None or np.dtype(dtype) == self.segments.dtype:
            return self.segments.copy() if copy else self.segments
        return self.segments.astype(dtype)

    def __repr__(self) -> str:
        return (
            f"Pieces(n={len(self)}, dim={self.dim}, rows={self.n_rows}, "
            f"dtype={self.segments.dtype})"
        )

    def local(self, origin="auto"):
        """The segments about a local origin, and that origin (a float64 array of ``dim``,
        or None): ``origin="auto"`` (the bounding box's centre, snapped to a multiple of
        the float32 spacing of the largest coordinate, so that coordinates exact in float32
        stay exact), ``None`` (the segments as they are) or a point."""
        return _local(self.segments, self.dim, origin)

    def frame(self, result, other: Optional["Pieces"] = None, *, points: bool = True):
        """A segbatch pair result (a dict with ``i``, ``j`` and columns of one value per
        pair) as a DataFrame of geometry rows: ``row_i, part_i, piece_i`` from this
        ``Pieces``, ``row_j, part_j, piece_j`` from ``other`` (default: this one), the
        result's columns, and, when ``points`` and the result has ``s`` (and ``t``), the
        points on piece i (``x, y[, z]``; with ``t`` also on piece j: ``x_j, y_j[, z_j]``)
        in float64 from the original coordinates."""
        return _frame(self, self if other is None else other, result, points)


_F32_MAX = float(np.finfo(np.float32).max)


def _snap_origin(lo, hi) -> np.ndarray:
    """The centre of the box ``lo .. hi``, snapped to a multiple of the float32 spacing of
    the box's largest coordinate on each axis: an origin on that grid shifts every
    coordinate already exact in float32 exactly. An axis with coordinates beyond float32's
    range has none exact in float32: its centre is taken as it is (in float64, halved
    before adding so that it cannot overflow)."""
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    big = np.maximum(np.abs(lo), np.abs(hi))
    centre = 0.5 * lo + 0.5 * hi
    f32 = big <= _F32_MAX
    step = np.spacing(np.where(f32, big, 0).astype(np.float32)).astype(np.float64)
    return np.where(f32, np.round(centre / step) * step, centre)


def _origin(segments: np.ndarray, dim: int, origin) -> Optional[np.ndarray]:
    """The local origin (float64, ``dim`` values) asked for, or None for no shift."""
    if origin is None:
        return None
    if isinstance(origin, str):
        if origin != "auto":
            raise ValueError(f"origin: expected 'auto', None or a point, got {origin!r}")
        pts = segments.reshape(-1, dim)
        fin = np.isfinite(pts).all(axis=1)
        if not fin.any():
            return None
        o = _snap_origin(pts[fin].min(axis=0), pts[fin].max(axis=0))
    else:
        o = np.asarray(origin, dtype=np.float64)
        if o.shape != (dim,):
            raise ValueError(f"origin: expected {dim} coordinates, got shape {o.shape}")
    return o if o.any() else None


def _shift(segments: np.ndarray, o: Optional[np.ndarray]) -> np.ndarray:
    return segments if o is None else segments.astype(np.float64) - np.tile(o, 2)


def _local(segments: np.ndarray, dim: int, origin):
    o = _origin(segments, dim, origin)
    return _shift(segments, o), o


def _ranges(starts: np.ndarray, counts: np.ndarray):
    """Flat indices of the ranges ``starts[g] .. starts[g] + counts[g]``, with each one's
    group ``g`` and position within its range."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    group = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
    first = np.cumsum(counts) - counts
    within = np.arange(total, dtype=np.int64) - first[group]
    return np.asarray(starts, dtype=np.int64)[group] + within, group, within


def _from_vertices(coords: np.ndarray, v_start, v_count, row, part, n_rows, dim, labels=None, crs=None):
    """Pieces of lines given as vertex ranges (one range per line part)."""
    n_pieces = np.maximum(np.asarray(v_count, dtype=np.int64) - 1, 0)
    first, group, within = _ranges(v_start, n_pieces)
    seg = np.empty((len(first), 2 * dim), dtype=coords.dtype)
    seg[:, :dim] = coords[first]
    seg[:, dim:] = coords[first + 1]
    return Pieces(seg, np.asarray(row)[group], np.asarray(part)[group], within, n_rows, labels, crs)


# ---------------------------------------------------------------------------------------
# shapely / GeoPandas


def _check_types(shapely, geoms: np.ndarray) -> np.ndarray:
    """The shapely type ids of ``geoms`` (-1 for missing), after checking that each is a
    line type."""
    ids = shapely.get_type_id(geoms)
    bad = (ids >= 0) & ~np.isin(ids, list(GEOMETRY_TYPES))
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        name = _TYPE_NAMES.get(int(ids[k]), f"type id {int(ids[k])}")
        found = sorted({_TYPE_NAMES.get(int(t), str(t)) for t in np.unique(ids[bad])})
        raise TypeError(
            f"geometry row {k} is a {name} ({int(bad.sum())} rows of type {', '.join(found)}); "
            f"segbatch.geo takes LineStrings, LinearRings and MultiLineStrings: {_ADVICE.get(name, '')}"
        )
    return ids


def _shapely_array(geoms):
    """``geoms`` as a flat shapely object array (WKB and WKT parsed), and the module."""
    shapely = _shapely("shapely geometry input")
    arr = np.asarray(geoms, dtype=object)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    first = next((g for g in arr if g is not None), None)
    if isinstance(first, (bytes, bytearray, memoryview)):
        arr = shapely.from_wkb(arr)  # WKB, as pandas holds a GeoParquet column read as bytes
    elif isinstance(first, str):
        arr = shapely.from_wkt(arr)
    elif first is not None and not isinstance(first, shapely.Geometry):
        raise TypeError(f"geometry: expected shapely geometries or WKB, got {type(first).__name__}")
    return shapely, arr


def _vertices(geoms, dim: int):
    """The vertices of a column of line geometries: ``coords`` (``(V, dim)`` float64, rows
    in order, parts in order), the vertex ``counts`` of each line part, each part's row
    and its position within its row, and the number of rows."""
    shapely, arr = _shapely_array(geoms)
    try:
        ids = _check_types(shapely, arr)
    except TypeError as e:
        if "geometry row" in str(e):
            raise
        raise TypeError(f"geometry: expected shapely geometries ({e})") from None
    n = len(arr)
    # All coordinates in one pass (rows in order, parts in order), then the vertex count of
    # each line part: one part per LineString, get_parts only for the MultiLineStrings.
    coords = shapely.get_coordinates(arr, include_z=dim == 3)
    multi = ids == 5
    if not multi.any():
        part_row = np.arange(n, dtype=np.int64)
        part = np.zeros(n, dtype=np.int64)
        counts = shapely.get_num_coordinates(arr).astype(np.int64)
    else:
        nparts = np.where(multi, shapely.get_num_geometries(arr), ids >= 0).astype(np.int64)
        part_row = np.repeat(np.arange(n, dtype=np.int64), nparts)
        part = np.arange(len(part_row), dtype=np.int64) - (np.cumsum(nparts) - nparts)[part_row]
        counts = np.empty(len(part_row), dtype=np.int64)
        in_multi = multi[part_row]
        counts[~in_multi] = shapely.get_num_coordinates(arr[~multi & (ids >= 0)])
        counts[in_multi] = shapely.get_num_coordinates(shapely.get_parts(arr[multi]))
    if dim == 3 and len(coords) and np.isnan(coords[:, 2]).any():
        k = int(np.repeat(part_row, counts)[np.flatnonzero(np.isnan(coords[:, 2]))[0]])
        raise ValueError(f"geometry row {k} has no z coordinate; pass dim=2 for 2D geometry")
    return coords, counts, part_row, part, n


def _from_shapely(geoms, dim: int, labels=None, crs=None) -> Pieces:
    coords, counts, part_row, part, n = _vertices(geoms, dim)
    starts = np.cumsum(counts) - counts
    return _from_vertices(coords, starts, counts, part_row, part, n, dim, labels, crs)


# ---------------------------------------------------------------------------------------
# GeoArrow (native encodings) and WKB columns, with pyarrow alone


def _extension_name(arr, field=None) -> Optional[str]:
    import pyarrow as pa

    t = arr.type
    if isinstance(t, pa.ExtensionType):
        return t.extension_name
    if field is not None and field.metadata:
        name = field.metadata.get(b"ARROW:extension:name")
        if name:
            return name.decode()
    return None


def _storage(arr):
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        if isinstance(arr.type, pa.ExtensionType):
            arr = pa.chunked_array([c.storage for c in arr.chunks], type=arr.type.storage_type)
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    if isinstance(arr.type, pa.ExtensionType):
        arr = arr.storage
    return arr


def _is_list(t) -> bool:
    import pyarrow as pa

    return pa.types.is_list(t) or pa.types.is_large_list(t)


def _is_vertex(t) -> bool:
    import pyarrow as pa

    if pa.types.is_struct(t):
        names = [t.field(k).name for k in range(t.num_fields)]
        return names[:2] == ["x", "y"]
    return pa.types.is_fixed_size_list(t) and t.list_size in (2, 3, 4)


def _vertex_coords(values, dim: int, column: str):
    """(V, dim) coordinates of a GeoArrow vertex array (struct or interleaved), one row a
    vertex, and which vertices are null (a null vertex or a null coordinate of one), or
    None when none is."""
    import pyarrow as pa

    t = values.type
    null = np.asarray(values.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if pa.types.is_struct(t):
        names = [t.field(k).name for k in range(t.num_fields)]
        children = dict(zip(names, values.flatten()))
    else:
        names = list(t.value_field.name) if t.value_field.name in ("xy", "xyz", "xym", "xyzm") else None
        if names is None:
            names = ["x", "y", "z", "m"][: t.list_size] if t.list_size != 3 else ["x", "y", "z"]
        # The values of every vertex, null ones included (`flatten` would drop a null
        # vertex's values and shift every later vertex).
        size = t.list_size
        child = values.values.slice(values.offset * size, len(values) * size)
        null |= np.asarray(child.is_null().to_numpy(zero_copy_only=False), dtype=bool).reshape(-1, size).any(axis=1)
        flat = child.to_numpy(zero_copy_only=False).reshape(-1, size)
        children = {n: flat[:, k] for k, n in enumerate(names)}
    want = ["x", "y", "z"][:dim]
    if dim == 3 and "z" not in children:
        raise ValueError(
            f"column {column!r}: its coordinates are {''.join(names)} (no z); pass dim=2 for 2D geometry"
        )
    for n in want:
        if not isinstance(children[n], np.ndarray):
            null |= np.asarray(children[n].is_null().to_numpy(zero_copy_only=False), dtype=bool)
    cols = [np.asarray(children[n] if isinstance(children[n], np.ndarray)
                       else children[n].to_numpy(zero_copy_only=False)) for n in want]
    dtype = np.result_type(*[c.dtype for c in cols])
    if dtype.kind != "f":
        dtype = np.dtype(np.float64)
    return np.stack(cols, axis=1).astype(dtype, copy=False), (null if null.any() else None)


def _no_null_vertex(null, v_start, v_count, row, column: str) -> None:
    """Raises ``ValueError`` naming the first row of a line (vertex ranges ``v_start``,
    ``v_count``, one a part, of rows ``row``) with a null vertex: a line cannot skip one."""
    if null is None:
        return
    first, group, within = _ranges(v_start, v_count)
    bad = np.flatnonzero(null[first])
    if len(bad):
        k = bad[np.argmin(np.asarray(row)[group[bad]])]  # the first of the least row
        raise ValueError(
            f"column {column!r}: row {int(np.asarray(row)[group[k]])} has a null vertex (vertex "
            f"{int(within[k])} of its part); a line's vertices must all be given"
        )


def _valid(arr) -> np.ndarray:
    if arr.null_count == 0:
        return np.ones(len(arr), dtype=bool)
    return ~np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)


def _from_arrow(arr, dim: int, column: str, extension: Optional[str] = None, encoding=None, crs=None) -> Pieces:
    import pyarrow as pa

    extension = extension or _extension_name(arr)
    arr = _storage(arr)
    t = arr.type
    kind = (encoding or extension or "").lower().replace("geoarrow.", "")
    if kind in ("point", "multipoint", "polygon", "multipolygon", "geometrycollection"):
        name = {"point": "Point", "multipoint": "MultiPoint", "polygon": "Polygon",
                "multipolygon": "MultiPolygon", "geometrycollection": "GeometryCollection"}[kind]
        raise TypeError(
            f"column {column!r} holds {name} geometry; segbatch.geo takes LineStrings and "
            f"MultiLineStrings: {_ADVICE[name]}"
        )
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or str(t) == "binary_view":
        shapely = _shapely(f"column {column!r} (WKB)")
        return _from_shapely(shapely.from_wkb(arr.to_numpy(zero_copy_only=False)), dim, crs=crs)
    if pa.types.is_string(t) or pa.types.is_large_string(t) or str(t) == "string_view":
        shapely = _shapely(f"column {column!r} (WKT)")
        return _from_shapely(shapely.from_wkt(arr.to_numpy(zero_copy_only=False)), dim, crs=crs)
    n = len(arr)
    if _is_list(t) and _is_vertex(t.value_type):  # linestring
        off = arr.offsets.to_numpy()
        counts = np.where(_valid(arr), np.diff(off), 0)
        coords, null = _vertex_coords(arr.values, dim, column)
        rows = np.arange(n, dtype=np.int64)
        _no_null_vertex(null, off[:-1], counts, rows, column)
        return _from_vertices(coords, off[:-1], counts, rows, np.zeros(n, np.int64), n, dim, crs=crs)
    if _is_list(t) and _is_list(t.value_type) and _is_vertex(t.value_type.value_type):  # multilinestring
        o1 = arr.offsets.to_numpy()
        part_idx, row, part = _ranges(o1[:-1], np.where(_valid(arr), np.diff(o1), 0))
        inner = arr.values
        o2 = inner.offsets.to_numpy()
        counts = np.where(_valid(inner)[part_idx], o2[part_idx + 1] - o2[part_idx], 0)
        coords, null = _vertex_coords(inner.values, dim, column)
        _no_null_vertex(null, o2[part_idx], counts, row, column)
        return _from_vertices(coords, o2[part_idx], counts, row, part, n, dim, crs=crs)
    if _is_vertex(t):
        raise TypeError(f"column {column!r} holds Point geometry ({t}); {_ADVICE['Point']}")
    raise TypeError(
        f"column {column!r}: type {t} is not a line geometry column; expected WKB (binary), "
        "GeoArrow linestring (list<struct<x, y[, z]>> or list<fixed_size_list<double>[2|3]>) "
        "or multilinestring (list<list<...>>)"
    )


def _geo_metadata(schema) -> Optional[dict]:
    meta = schema.metadata or {}
    raw = meta.get(b"geo")
    return json.loads(raw) if raw else None


def _geometry_column(schema) -> Optional[str]:
    """The geometry column of a schema: GeoParquet's primary column, else the first field
    of a GeoArrow extension type (``geoarrow.*``, registered or as field metadata), else
    ``geometry``; None without any."""
    import pyarrow as pa

    geo = _geo_metadata(schema)
    if geo and geo.get("primary_column") in schema.names:
        return geo["primary_column"]
    for field in schema:
        t = field.type
        name = t.extension_name if isinstance(t, pa.ExtensionType) else (field.metadata or {}).get(
            b"ARROW:extension:name", b""
        ).decode()
        if name.startswith("geoarrow."):
            return field.name
    return "geometry" if "geometry" in schema.names else None


def _from_table(table, column: Optional[str], dim: int) -> Pieces:
    geo = _geo_metadata(table.schema)
    if column is None:
        column = _geometry_column(table.schema)
        if column is None and table.num_columns == 1:
            column = table.column_names[0]
        if column is None:
            raise ValueError(
                f"no geometry column: the table has no GeoParquet metadata, no GeoArrow "
                f"column and no column 'geometry'; pass column= (one of {table.column_names})"
            )
    if column not in table.column_names:
        raise ValueError(f"no column {column!r}; the table has {table.column_names}")
    info = (geo or {}).get("columns", {}).get(column, {})
    encoding = info.get("encoding")
    if encoding and encoding.upper() == "WKB":
        encoding = None  # decided by the storage type
    types = [g.split()[0] for g in info.get("geometry_types", []) if g.split()]
    wrong = [g for g in types if g not in ("LineString", "MultiLineString", "LinearRing")]
    if wrong:
        raise TypeError(
            f"column {column!r} holds {', '.join(wrong)} geometry (GeoParquet metadata); "
            f"segbatch.geo takes LineStrings and MultiLineStrings: {_ADVICE.get(wrong[0], '')}"
        )
    field = table.schema.field(column)
    col = table.column(column)
    p = _from_arrow(col, dim, column, _extension_name(col, field), encoding, crs=info.get("crs"))
    return p


def pieces(data, *, dim: int = 2, column: Optional[str] = None) -> Pieces:
    """The pieces of a column of line geometries (see the module docs for the inputs):
    a :class:`Pieces` with ``segments`` ``(N, 2*dim)`` and the piece -> row mapping.

    ``dim=2`` uses x, y (a z, if any, is dropped); ``dim=3`` needs z and says so when the
    geometry has none. ``column`` picks the geometry column of a table (default: the
    GeoParquet primary column, else ``geometry``). Wrong geometry types (points,
    polygons) raise ``TypeError`` naming the type and the first such row.

    >>> import shapely, segbatch.geo as sg
    >>> p = sg.pieces([shapely.LineString([(0, 0), (1, 0), (1, 1)]), None,
    ...                shapely.MultiLineString([[(5, 5), (6, 6)], [(7, 7), (8, 8), (9, 9)]])])
    >>> p.row, p.part, p.piece
    (array([0, 0, 2, 2, 2]), array([0, 0, 0, 1, 1]), array([0, 1, 0, 0, 1]))
    >>> p.segments[1]
    array([1., 0., 1., 1.])
    """
    if dim not in (2, 3):
        raise ValueError(f"dim must be 2 or 3, got {dim!r}")
    if isinstance(data, Pieces):
        if data.dim != dim:
            raise ValueError(f"the pieces are {data.dim}D, dim={dim} was asked for")
        return data
    mod = type(data).__module__ or ""
    if mod.startswith("geopandas"):
        if type(data).__name__ == "GeoDataFrame":
            data = data[column] if column is not None else data.geometry
        return _from_shapely(np.asarray(data, dtype=object), dim, labels=data.index, crs=data.crs)
    if mod.startswith("pyarrow") or mod.startswith("geoarrow"):
        if hasattr(data, "schema") and hasattr(data, "column_names"):
            return _from_table(data, column, dim)
        return _from_arrow(data, dim, column or "geometry")
    if mod.startswith("pandas"):
        if hasattr(data, "columns"):
            if column is None:
                raise ValueError("a pandas DataFrame: pass column= (the geometry column)")
            data = data[column]
        return _from_shapely(np.asarray(data, dtype=object), dim, labels=data.index)
    shapely = _shapely("shapely geometry input")
    if isinstance(data, shapely.Geometry):
        data = [data]
    return _from_shapely(np.asarray(data, dtype=object), dim)


def read_parquet(path, *, column: Optional[str] = None, dim: int = 2, filters=None) -> Pieces:
    """The pieces of the line geometry column of a GeoParquet file or dataset (WKB or
    GeoArrow native encoding; the ``geo`` metadata names the primary column, else the
    first GeoArrow extension column, else ``geometry``). Only that column is read
    (``filters`` as in ``pyarrow.parquet.read_table``); rows are its rows. WKB needs shapely
    (``segbatch[geo]``)."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(path) if not _is_dir(path) else pq.ParquetDataset(path).schema
    geo = _geo_metadata(schema)
    if column is None:
        column = _geometry_column(schema)
        if column is None:
            raise ValueError(
                f"{path}: no GeoParquet metadata, no GeoArrow column and no column 'geometry'; "
                f"pass column= (one of {schema.names})"
            )
    if column not in schema.names:
        raise ValueError(f"{path}: no column {column!r}; the file has {schema.names}")
    table = pq.read_table(path, columns=[column], filters=filters)
    if geo and not _geo_metadata(table.schema):
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), b"geo": json.dumps(geo).encode()})
    return _from_table(table, column, dim)


def _is_dir(path) -> bool:
    import os

    return isinstance(path, (str, os.PathLike)) and os.path.isdir(path)


# ---------------------------------------------------------------------------------------
# Results out


def _endpoints_equal(x: np.ndarray, y: np.ndarray, dim: int) -> np.ndarray:
    out = np.zeros(len(x), dtype=bool)
    for k in (0, 1):
        for m in (0, 1):
            out |= (x[:, k * dim : (k + 1) * dim] == y[:, m * dim : (m + 1) * dim]).all(axis=1)
    return out


def _frame(pi: Pieces, pj: Pieces, result, points: bool):
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("result frames need pandas: pip install 'segbatch[geo]'") from e

    i, j = np.asarray(result["i"], dtype=np.int64), np.asarray(result["j"], dtype=np.int64)
    cols = {
        "row_i": pi.row[i],
        "row_j": pj.row[j],
        "part_i": pi.part[i],
        "part_j": pj.part[j],
        "piece_i": pi.piece[i],
        "piece_j": pj.piece[j],
    }
    if pi.labels is not None:
        cols["label_i"] = np.asarray(pi.labels)[cols["row_i"]]
    if pj.labels is not None:
        cols["label_j"] = np.asarray(pj.labels)[cols["row_j"]]
    for k, v in result.items():
        if k in ("i", "j"):
            continue
        v = np.asarray(v)
        if v.ndim == 1:
            cols[k] = v
        else:
            for a in range(v.shape[1]):
                cols[f"{k}_{'xyz'[a]}"] = v[:, a]
    if "dist2" in result and "distance" not in result:
        cols["distance"] = np.sqrt(np.asarray(result["dist2"]))
    dim = pi.dim
    if points and "s" in result:
        si = np.asarray(result["s"], dtype=np.float64)
        seg = pi.segments[i].astype(np.float64)
        for a in range(dim):
            cols["xyz"[a]] = seg[:, a] + si * (seg[:, dim + a] - seg[:, a])
        if "t" in result:
            tj = np.asarray(result["t"], dtype=np.float64)
            seg = pj.segments[j].astype(np.float64)
            for a in range(pj.dim):
                cols["xyz"[a] + "_j"] = seg[:, a] + tj * (seg[:, pj.dim + a] - seg[:, a])
    df = pd.DataFrame(cols)
    df.attrs["crs"] = pi.crs
    return df


def to_geodataframe(df, crs=None):
    """A result frame with a point geometry (``x, y[, z]``: the crossing point, or the
    closest point on piece i) as a ``geopandas.GeoDataFrame`` (CRS: ``crs``, else the
    input's)."""
    try:
        import geopandas as gpd
    except ImportError as e:
        raise ImportError("a GeoDataFrame needs geopandas: pip install 'segbatch[geo]'") from e
    shapely = _shapely("a GeoDataFrame")
    z = df["z"].to_numpy() if "z" in df else None
    geom = shapely.points(df["x"].to_numpy(), df["y"].to_numpy(), z)
    crs = crs if crs is not None else df.attrs.get("crs")
    return gpd.GeoDataFrame(df, geometry=geom, crs=crs)


def crossing_pairs(
    data,
    *,
    drop_same_row: bool = False,
    skip_shared_endpoints: bool = False,
    exact: bool = True,
    origin="auto",
    geodataframe: bool = False,
    column: Optional[str] = None,
    threads: Optional[int] = None,
):
    """Every pair of pieces that meet (cross, touch or overlap), mapped to geometry rows: a
    DataFrame ``row_i, row_j, part_i, part_j, piece_i, piece_j`` (``label_i, label_j``
    when the input had an index), ``s`` (the parameter on piece i of the meeting point, or
    of the start of a collinear overlap), ``kind`` (uint8, 1 point, 2 collinear overlap,
    possibly in one point; :data:`segbatch.CROSSING`) and ``x, y`` (float64, that point on
    piece i). Sorted by
    piece pair, so ``row_i <= row_j``.

    ``exact=True`` (default): whether two pieces meet is decided exactly on the given
    coordinates (:func:`segbatch.crossing_pairs` in the pieces' own precision, as
    shapely/GEOS decide); ``s`` in that precision. ``exact=False``: the same on the pieces
    rounded to float32 about the local origin.

    ``data``: anything :func:`pieces` takes (2D), or a :class:`Pieces`.
    ``drop_same_row``: drop pairs within one geometry (consecutive pieces share a vertex).
    ``skip_shared_endpoints``: drop pairs whose pieces share an end point (equal
    coordinates), such as streets meeting at a node; a crossing in the middle of both
    pieces is kept. ``origin``: see the module docs (``None`` computes on the coordinates
    as given). ``geodataframe=True``: a GeoDataFrame of the points, with the input's CRS.
    """
    p = pieces(data, dim=2, column=column)
    h = _meeting(p, origin, exact, threads)
    h = _filter(h, p, p, drop_same_row, skip_shared_endpoints)
    return _out(p.frame(h), geodataframe)


# ---------------------------------------------------------------------------------------
# Exact meeting decisions


def _exact_pairs(original: np.ndarray, threads):
    """The meeting pairs ``i < j`` of a set (``i, j, s, kind, point``), decided exactly on
    ``original`` in its own precision: :func:`segbatch.crossing_pairs` signs every
    orientation exactly (Shewchuk's predicates behind a filter), float64 kept float64."""
    return segbatch.crossing_pairs(np.ascontiguousarray(original), threads=threads)


def _meeting(p: Pieces, origin, exact: bool, threads):
    """The meeting pairs of a set of 2D pieces: ``i, j, s, kind``."""
    if p.dim != 2:
        raise ValueError("crossings are 2D: pass dim=2 pieces")
    local, _ = p.local(origin)  # checks `origin` either way
    if exact:
        h = _exact_pairs(p.segments, threads)
    else:
        # Coordinates beyond float32's range about the origin become infinite (never
        # meeting), as float32 input does: rounded without NumPy's overflow warning.
        with np.errstate(over="ignore"):
            rounded = local.astype(np.float32)
        h = segbatch.crossing_pairs(rounded, threads=threads)
    return {k: h[k] for k in ("i", "j", "s", "kind")}


def _filter(h, p: Pieces, q: Pieces, drop_same_row: bool, skip_shared: bool):
    keep = None
    if drop_same_row:
        keep = p.row[h["i"]] != q.row[h["j"]]
    if skip_shared:
        shared = _endpoints_equal(p.segments[h["i"]], q.segments[h["j"]], p.dim)
        keep = ~shared if keep is None else keep & ~shared
    if keep is None or keep.all():
        return h
    return {k: v[keep] for k, v in h.items()}


def _out(df, geodataframe: bool):
    return to_geodataframe(df) if geodataframe else df


def _pad3(seg: np.ndarray, dim: int) -> np.ndarray:
    if dim == 3:
        return seg
    out = np.zeros((len(seg), 6), dtype=seg.dtype)
    out[:, [0, 1, 3, 4]] = seg
    return out


def pairs_within(
    data,
    radius: float,
    other=None,
    *,
    dim: int = 2,
    drop_same_row: bool = False,
    skip_shared_endpoints: bool = False,
    origin="auto",
    geodataframe: bool = False,
    column: Optional[str] = None,
    threads: Optional[int] = None,
):
    """Every pair of pieces within ``radius`` of each other (of one set, ``i < j``, or of
    ``data`` against ``other``), mapped to geometry rows: ``row_i, row_j, part_i,
    part_j, piece_i, piece_j``, ``dist2, s, t`` (in the pieces' precision, as
    :func:`segbatch.self_pairs_within` / :func:`segbatch.pairs_within` return them),
    ``distance`` and the closest points ``x, y[, z]`` (on piece i) and ``x_j, y_j[, z_j]``
    (on piece j) in float64. 2D geometry runs as 3D segments at z = 0 (``dim=3`` uses the
    geometry's z). Options as in :func:`crossing_pairs`; ``drop_same_row`` applies to one
    set only."""
    p = pieces(data, dim=dim, column=column)
    q = p if other is None else pieces(other, dim=dim, column=column)
    if other is None:
        seg, _ = p.local(origin)
        h = segbatch.self_pairs_within(
            _pad3(seg, dim), radius, skip_shared_endpoints=skip_shared_endpoints, threads=threads
        )
        h = _filter(h, p, q, drop_same_row, False)
    else:
        both = np.concatenate([p.segments, q.segments])
        o = _origin(both, dim, origin)
        a, b = _pad3(_shift(p.segments, o), dim), _pad3(_shift(q.segments, o), dim)
        h = segbatch.pairs_within(a, b, radius, threads=threads)
        h = _filter(h, p, q, False, skip_shared_endpoints)
    return _out(p.frame(h, q), geodataframe)


def intersecting_rows(
    data, *, column: Optional[str] = None, exact: bool = True, origin="auto", threads: Optional[int] = None
):
    """The pairs of distinct geometry rows that meet, as two int64 arrays ``(row_i,
    row_j)`` with ``row_i < row_j``, sorted: the pairs of shapely's
    ``STRtree(g).query(g, predicate="intersects")`` with ``i < j`` (``exact`` and
    ``origin`` as in :func:`crossing_pairs`).

    >>> import shapely, segbatch.geo as sg
    >>> g = [shapely.LineString([(0, 0), (2, 2)]), shapely.LineString([(0, 2), (2, 0)]),
    ...      shapely.LineString([(5, 5), (6, 5)])]
    >>> sg.intersecting_rows(g)
    (array([0]), array([1]))
    """
    p = pieces(data, dim=2, column=column)
    h = _meeting(p, origin, exact, threads)
    ri, rj = p.row[h["i"]], p.row[h["j"]]
    keep = ri != rj
    n = np.int64(max(p.n_rows, 1))
    # The pairs come sorted by piece, so row_i does not decrease: a stable sort of the
    # keys is nearly free, and much faster than a hash-based np.unique.
    key = np.sort(ri[keep] * n + rj[keep], kind="stable")
    key = key[np.r_[True, key[1:] != key[:-1]]] if len(key) else key
    return key // n, key % n


# ---------------------------------------------------------------------------------------
# Row-level questions, as GeoPandas' sindex.query answers them


def _row_lines(data, column: Optional[str]):
    """The lines of ``data`` as vertices for the row queries: ``(coords (V, 2) float64,
    offsets (parts + 1) int64, part_row int64, n_rows)``. shapely and GeoPandas input go
    from their coordinates straight to the compiled query, which makes the pieces and their
    rows (no ``(N, 4)`` array in NumPy); other input (GeoArrow, a :class:`Pieces`) goes
    through :func:`pieces`, each piece a part of its own."""
    mod = type(data).__module__ or ""
    geoms = None
    if mod.startswith("geopandas"):
        if type(data).__name__ == "GeoDataFrame":
            data = data[column] if column is not None else data.geometry
        geoms = np.asarray(data, dtype=object)
    elif mod.startswith("pandas"):
        if hasattr(data, "columns"):
            if column is None:
                raise ValueError("a pandas DataFrame: pass column= (the geometry column)")
            data = data[column]
        geoms = np.asarray(data, dtype=object)
    elif not isinstance(data, Pieces) and not (mod.startswith("pyarrow") or mod.startswith("geoarrow")):
        shapely = _shapely("shapely geometry input")
        geoms = np.asarray([data] if isinstance(data, shapely.Geometry) else data, dtype=object)
    if geoms is not None:
        coords, counts, part_row, _, n = _vertices(geoms, 2)
        offsets = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=offsets[1:])
        return np.ascontiguousarray(coords, dtype=np.float64), offsets, part_row, n
    p = pieces(data, dim=2, column=column)
    coords = np.ascontiguousarray(p.segments, dtype=np.float64).reshape(-1, 2)
    return coords, np.arange(0, 2 * len(p) + 1, 2, dtype=np.int64), p.row, p.n_rows


#: The float64 kernel's distance is within ``8·ε`` of the coordinates' magnitude of the
#: exact one; below this many ``ε`` of the largest coordinate a radius could miss pieces
#: that meet (exact distance 0), so rows whose pieces meet (decided exactly) count as
#: within it too, as GEOS's distance of intersecting geometries is 0.
_MEETING_EPS = 64.0


def _largest(*coords) -> float:
    """The largest finite coordinate magnitude of the vertex arrays."""
    big = 0.0
    for c in coords:
        c = np.abs(c[np.isfinite(c).all(axis=1)]) if len(c) else c
        if len(c):
            big = max(big, float(c.max()))
    return big


def _radius_meets(distance: float, largest: float) -> bool:
    """Whether a radius query also counts meeting rows at distance 0 (see ``_MEETING_EPS``)."""
    return distance <= _MEETING_EPS * np.finfo(np.float64).eps * largest


def _row_query(data, other, distance, frame: bool, column, threads, sindex: bool = True):
    a = _row_lines(data, column)
    b = None if other is None else _row_lines(other, column)
    meeting = False
    if distance is not None:
        distance = float(distance)
        if not distance >= 0:
            raise ValueError(f"distance must be a number >= 0, got {distance!r}")
        meeting = _radius_meets(distance, _largest(a[0], *(() if b is None else (b[0],))))
    h = segbatch._native.line_row_pairs(
        *a, None if b is None else b[:3], distance, meeting, frame, sindex, segbatch._threads(threads)
    )
    if not frame:
        return (h["input"], h["tree"]) if sindex else (h["a"], h["b"])
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("result frames need pandas: pip install 'segbatch[geo]'") from e
    return pd.DataFrame(h)


def intersects(data, other=None, *, frame: bool = False, column: Optional[str] = None, threads: Optional[int] = None):
    """The rows that meet (cross, touch or overlap), as GeoPandas answers
    ``data.sindex.query(other.geometry, predicate="intersects")`` (``other`` defaults to
    ``data``): two int64 arrays ``(input, tree)`` (``input`` a row of ``other``, ``tree`` a
    row of ``data``, positions from 0), sorted by ``(input, tree)`` (as ``sort=True``
    returns them; GEOS's own order is by input, its tree order within). Of one set both
    ``(i, j)`` and ``(j, i)`` are there, and ``(i, i)`` for every row with a piece (a line
    meets itself); empty and missing geometries meet nothing. Whether two rows meet is
    decided exactly on the float64 coordinates (:func:`segbatch.crossing_pairs`'s exact
    predicates, as GEOS decides), pieces of one row never tried against each other, each row
    pair decided by its first meeting piece pair, all in the compiled query.

    ``frame=True``: a ``pandas.DataFrame`` with ``input, tree`` and the meeting point
    ``x, y`` (float64) of the row pair's meeting piece pair with the lowest piece indices (a
    row with itself: its first vertex); every piece pair of a row pair is then decided.

    ``data``, ``other``: anything :func:`pieces` takes (2D); a GeoDataFrame's geometry
    column (``column`` names another).

    >>> import shapely, segbatch.geo as sg
    >>> g = [shapely.LineString([(0, 0), (2, 2)]), shapely.LineString([(0, 2), (2, 0)]),
    ...      shapely.LineString([(5, 5), (6, 5)]), None]
    >>> sg.intersects(g)
    (array([0, 0, 1, 1, 2]), array([0, 1, 0, 1, 2]))
    """
    return _row_query(data, other, None, frame, column, threads)


def dwithin(
    data, distance: float, other=None, *, frame: bool = False, column: Optional[str] = None, threads: Optional[int] = None
):
    """The rows within ``distance`` of each other, as GeoPandas answers
    ``data.sindex.query(other.geometry, predicate="dwithin", distance=distance)``: two
    int64 arrays ``(input, tree)``, sorted, with the pairs of :func:`intersects` (both
    orientations and each row with a piece with itself, of one set). A row pair is within
    ``distance`` when some piece of one and some piece of the other have a squared distance
    of at most ``distance**2`` in float64 (segbatch's float64 kernel; the f64 range rule of
    :func:`segbatch.pairs_within`): pieces exactly ``distance`` apart are within it, as
    GEOS's ``distance <= d``.

    ``frame=True``: a ``pandas.DataFrame`` with ``input, tree`` and ``distance``: the
    rows' closest distance (of their closest piece pair; 0 for a row with itself).

    >>> import shapely, segbatch.geo as sg
    >>> g = [shapely.LineString([(0, 0), (10, 0)]), shapely.LineString([(0, 25), (10, 25)]),
    ...      shapely.LineString([(0, 60), (10, 60)])]
    >>> sg.dwithin(g, 25)
    (array([0, 0, 1, 1, 2]), array([0, 1, 0, 1, 2]))
    """
    return _row_query(data, other, distance, frame, column, threads)


def row_pairs(
    data,
    distance: Optional[float] = None,
    other=None,
    *,
    points: bool = False,
    column: Optional[str] = None,
    threads: Optional[int] = None,
):
    """Each pair of rows that meet (``distance=None``) or lie within ``distance``, once:
    of one set ``row_a < row_b``, of two ``row_a`` of ``data`` and ``row_b`` of ``other``,
    sorted, as two int64 arrays; ``points=True``: a DataFrame ``a, b`` with the deciding
    piece pair ``i, j`` (indices of :func:`pieces`' pieces) and the meeting point ``x, y``
    or the ``distance`` (as :func:`intersects` and :func:`dwithin` decide)."""
    return _row_query(data, other, distance, points, column, threads, sindex=False)
