"""Segments from Arrow and Parquet, without a row-wise copy.

A batch of segments in a table is either six float columns (``x0, y0, z0, x1, y1, z1``,
or any names you pass) or one ``FixedSizeList<float>[6]`` column. :func:`columns` turns
either into a :class:`segbatch.SegmentColumns` or an array that segbatch reads directly:

- six ``float32`` or ``float64`` columns without nulls, each in one chunk: NumPy views of
  the Arrow buffers (zero copy); the kernel reads the columns as they are, in their
  precision (float64 in, float64 out; one float64 column makes all six float64);
- a ``FixedSizeList<float32>[6]`` (or ``<double>``) column in one chunk: an ``(N, 6)``
  NumPy view of its child values (zero copy), read like any C-ordered array;
- several chunks or nulls: converted once, column by column (a null becomes NaN, which
  segbatch flags as non-finite for that pair only); other number types become float32.

>>> import pyarrow as pa, numpy as np, segbatch, segbatch.arrow
>>> t = pa.table({k: pa.array([0, 1], pa.float32()) for k in ["x0", "y0", "z0"]}
...              | {k: pa.array([1, 2], pa.float32()) for k in ["x1", "y1", "z1"]})
>>> cols = segbatch.arrow.columns(t)
>>> segbatch.distance(cols, cols)
array([0., 0.], dtype=float32)

Line geometry (GeoParquet with WKB or GeoArrow native encodings, GeoArrow columns) is
read by :func:`read_geoparquet` and :func:`geometry` into :class:`segbatch.geo.Pieces`:
the pieces of every line with the mapping from piece back to geometry row (see
:mod:`segbatch.geo`). :func:`read_parquet` does so too when the file is a GeoParquet file
without segment columns.
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

import numpy as np

from . import SegmentColumns

__all__ = [
    "columns",
    "read_parquet",
    "read_geoparquet",
    "geometry",
    "SEGMENT_COLUMNS",
    "SEGMENT2_COLUMNS",
    "TRACK_COLUMNS",
]

#: Default column names of 3D segments.
SEGMENT_COLUMNS = ("x0", "y0", "z0", "x1", "y1", "z1")
#: Default column names of 2D segments.
SEGMENT2_COLUMNS = ("x0", "y0", "x1", "y1")
#: Default column names of tracks (position and velocity).
TRACK_COLUMNS = ("px", "py", "pz", "vx", "vy", "vz")


def _column_to_numpy(col, name: str) -> np.ndarray:
    import pyarrow as pa

    if isinstance(col, pa.ChunkedArray):
        if col.num_chunks == 1:
            col = col.chunk(0)
        else:
            col = col.combine_chunks() if col.num_chunks else pa.array([], pa.float32())
    if not pa.types.is_floating(col.type) and not pa.types.is_integer(col.type):
        raise TypeError(f"column {name!r}: type {col.type} is not a number type")
    if col.null_count == 0 and col.type in (pa.float32(), pa.float64()):
        return col.to_numpy(zero_copy_only=True)
    dtype = np.float64 if col.type == pa.float64() else np.float32
    return np.asarray(col.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=dtype)


def columns(
    data,
    names: Union[Sequence[str], str, None] = None,
    *,
    dim: int = 3,
):
    """Segment columns of a ``pyarrow.Table`` or ``RecordBatch`` (or anything with
    ``.column(name)``), for any segbatch function.

    ``names``: six (2D: four) column names, or one name of a ``FixedSizeList`` column;
    default :data:`SEGMENT_COLUMNS` (:data:`SEGMENT2_COLUMNS` with ``dim=2``), or the only
    column of a one-column table. Returns a :class:`segbatch.SegmentColumns` or an
    ``(N, width)`` array.
    """
    import pyarrow as pa

    width = 2 * dim
    if names is None:
        if getattr(data, "num_columns", None) == 1:
            names = data.column_names[0]
        else:
            names = SEGMENT_COLUMNS if dim == 3 else SEGMENT2_COLUMNS
    if isinstance(names, str):
        col = data.column(names)
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
        if not pa.types.is_fixed_size_list(col.type) or col.type.list_size != width:
            raise TypeError(
                f"column {names!r}: expected FixedSizeList[{width}] of floats, got {col.type}"
            )
        if col.null_count:
            raise ValueError(f"column {names!r}: {col.null_count} null segments")
        values = col.flatten()  # the child values of this slice (no copy)
        return _values(values, names, width)
    names = list(names)
    if len(names) != width:
        raise ValueError(f"expected {width} column names, got {len(names)}")
    missing = [n for n in names if n not in getattr(data, "column_names", names)]
    if missing:
        have = set(data.column_names)
        hint = ""
        if dim != 2 and have.issuperset(SEGMENT2_COLUMNS) and not have.issuperset(SEGMENT_COLUMNS):
            hint = " (a table of 2D segments: pass dim=2)"
        raise ValueError(f"missing columns {missing}{hint}; the table has {data.column_names}")
    return SegmentColumns([_column_to_numpy(data.column(n), n) for n in names])


def _values(values, name: str, width: int) -> np.ndarray:
    arr = _column_to_numpy(values, name)
    return arr.reshape(-1, width)


def read_parquet(
    path,
    names: Union[Sequence[str], str, None] = None,
    *,
    dim: Optional[int] = None,
    filters=None,
):
    """Reads the segment columns of a Parquet file or dataset (``pyarrow.parquet``): only
    those columns are read, each straight into one Arrow buffer, then :func:`columns`.
    ``dim`` is 3 by default (:data:`SEGMENT_COLUMNS`); a file of 2D segments
    (:data:`SEGMENT2_COLUMNS`) needs ``dim=2``, and a missing column is named with the
    columns the file has.

    A GeoParquet file (``geo`` metadata, or a GeoArrow extension column) without segment
    columns, read without ``names``, gives the pieces of its line geometry instead, as
    :func:`read_geoparquet` does (``dim`` 2 unless given).

    >>> import pyarrow as pa, pyarrow.parquet as pq, tempfile, os, segbatch.arrow
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "s.parquet")
    >>> pq.write_table(pa.table({k: pa.array([0.0, 1.0], pa.float32())
    ...                          for k in segbatch.arrow.SEGMENT_COLUMNS}), p)
    >>> len(segbatch.arrow.read_parquet(p))
    2
    """
    import pyarrow.parquet as pq

    schema = _schema(path)
    have = set(schema.names)
    if names is None:
        default = SEGMENT2_COLUMNS if dim == 2 else SEGMENT_COLUMNS
        if not have.issuperset(default) and _has_geometry(schema):
            return read_geoparquet(path, dim=dim or 2, filters=filters)
        names = default
    cols = [names] if isinstance(names, str) else list(names)
    missing = [c for c in cols if c not in have]
    if missing:
        hint = ""
        if dim != 2 and have.issuperset(SEGMENT2_COLUMNS) and not have.issuperset(SEGMENT_COLUMNS):
            hint = " (a file of 2D segments: pass dim=2)"
        raise ValueError(f"{path}: missing columns {', '.join(map(repr, missing))}{hint}; the file has {schema.names}")
    table = pq.read_table(path, columns=cols, filters=filters)
    # One chunk per column, so the columns become single buffers (no copy when one file is
    # one row group; else one concatenation per column).
    table = table.combine_chunks()
    return columns(table, names, dim=dim or 3)


def _has_geometry(schema) -> bool:
    """Is this a GeoParquet schema, or does it hold a GeoArrow extension column?"""
    if (schema.metadata or {}).get(b"geo"):
        return True
    from . import geo

    column = geo._geometry_column(schema)
    return column is not None and column != "geometry"


def _schema(path):
    import os

    import pyarrow.parquet as pq

    if isinstance(path, (str, os.PathLike)) and os.path.isdir(path):
        return pq.ParquetDataset(path).schema
    return pq.read_schema(path)


def read_geoparquet(path, *, column: Optional[str] = None, dim: int = 2, filters=None):
    """The pieces of the line geometry column of a GeoParquet file or dataset, a
    :class:`segbatch.geo.Pieces` (see :func:`segbatch.geo.read_parquet`): WKB (needs
    shapely, ``segbatch[geo]``) or GeoArrow native encodings; ``column`` defaults to the
    file's primary geometry column. The functions of :mod:`segbatch.geo` take it and map
    their answers to the file's rows.

    >>> import pyarrow as pa, pyarrow.parquet as pq, shapely, tempfile, os
    >>> import segbatch.arrow, segbatch.geo
    >>> d = tempfile.mkdtemp(); path = os.path.join(d, "streets.parquet")
    >>> lines = [shapely.LineString([(0, 0), (2, 2)]), shapely.LineString([(0, 2), (2, 0)])]
    >>> pq.write_table(pa.table({"geometry": shapely.to_wkb(lines)}), path)  # WKB
    >>> segbatch.geo.intersecting_rows(segbatch.arrow.read_geoparquet(path))
    (array([0]), array([1]))
    """
    from . import geo

    return geo.read_parquet(path, column=column, dim=dim, filters=filters)


def geometry(data, column: Optional[str] = None, *, dim: int = 2):
    """The pieces of a line geometry column of a ``pyarrow.Table`` (GeoParquet metadata,
    or ``column``), or of a GeoArrow / WKB array: a :class:`segbatch.geo.Pieces`."""
    from . import geo

    return geo.pieces(data, dim=dim, column=column)
