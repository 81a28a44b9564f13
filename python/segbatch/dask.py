"""segbatch on Dask: pairwise queries partition by partition, set queries by spatial
partitions with halo overlap.

- :func:`connect` gives a ``distributed.Client``: a ``LocalCluster`` of two worker
  processes by default, or the scheduler at ``address`` (a multi-machine cluster runs the
  same calls).
- :func:`map_blocks` (dask arrays) and :func:`map_partitions` (dask DataFrames) run a
  pairwise query (:func:`segbatch.closest_points`, :func:`segbatch.cpa`, ...) on each
  partition: row ``i`` of A against row ``i`` of B, no data moves between workers.
- :func:`self_pairs_within` and :func:`pairs_within` find every pair within a radius in a
  partitioned data set. The segments are assigned to ``partitions`` spatial strips by their
  midpoint (quantiles along the axis of largest spread); each strip also receives, as a
  *halo*, every other segment whose bounding box comes within the radius of the bounding box
  of the strip's own segments. A pair is reported only by the strip that owns its
  lower-indexed segment (for ``pairs_within``: its A segment), so pairs across strip borders
  are found exactly once, and the result equals the single-process call bit for bit (same
  kernel, same operand order). Indices are global row positions (int64).
- :func:`crossing_pairs` finds every pair of 2D segments that meet (streets, GPS tracks)
  by x/y tiles with halos, the same way: each pair reported once, by the tile that owns
  its lower-indexed segment, with the single-process call's values bit for bit.
- :class:`SegmentIndex`: a wall set broadcast to the workers (each worker builds the index
  once and keeps it), queried by partitions of rays (:meth:`SegmentIndex.first_hits`) or
  of segments (:meth:`SegmentIndex.pairs_within`).

Inside tasks, segbatch runs with ``threads=1`` by default (the workers are the
parallelism); pass ``threads=`` to change it.

>>> import numpy as np, dask.array as da, segbatch, segbatch.dask
>>> a = da.from_array(np.random.default_rng(0).random((1000, 6), dtype=np.float32), chunks=250)
>>> r = segbatch.dask.map_blocks(segbatch.distance, a, a)
>>> float(r.sum().compute())
0.0
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence

import numpy as np

import segbatch

from .arrow import SEGMENT2_COLUMNS, SEGMENT_COLUMNS

__all__ = [
    "connect",
    "map_blocks",
    "map_partitions",
    "self_pairs_within",
    "pairs_within",
    "crossing_pairs",
    "intersects",
    "dwithin",
    "SegmentIndex",
]


def connect(address: Optional[str] = None, *, n_workers: int = 2, threads_per_worker: int = 1, **kwargs):
    """A ``distributed.Client``: to the scheduler at ``address``, else to a new
    ``LocalCluster`` of ``n_workers`` worker processes (default 2). Use it as a context
    manager; dask computations inside run on it.
    """
    from distributed import Client

    if address is not None:
        return Client(address, **kwargs)
    # A client given cluster arguments makes its own LocalCluster and closes it with itself.
    return Client(
        n_workers=n_workers,
        threads_per_worker=threads_per_worker,
        processes=True,
        dashboard_address=None,
        **kwargs,
    )


# ---------------------------------------------------------------------------------------
# Pairwise queries.

_PAIRWISE = {
    "closest_points": segbatch._CLOSEST_OUTPUTS,
    "intersect2": segbatch._INTERSECT2_OUTPUTS,
    "cpa": segbatch._CPA_OUTPUTS,
    "cpa_segments": segbatch._CPA_OUTPUTS,
    "first_contact": segbatch._CONTACT_OUTPUTS,
    "first_contact_segments": segbatch._CONTACT_OUTPUTS,
}


def _spec(func: Callable, outputs):
    """(name -> (dtype, width)) of a pairwise function's result, or None for one array."""
    name = func.__name__
    if name == "distance":
        return None, np.float32, 1
    if name == "capsules_touch":
        return None, np.bool_, 1
    if name not in _PAIRWISE:
        raise ValueError(f"{name} is not a pairwise segbatch query")
    spec = _PAIRWISE[name]
    names = list(spec) if outputs is None else ([outputs] if isinstance(outputs, str) else list(outputs))
    return {n: spec[n] for n in names}, None, None


def _call(func, x, y, args, kwargs):
    kwargs = dict(kwargs)
    kwargs.setdefault("threads", 1)
    return func(np.asarray(x), np.asarray(y), *args, **kwargs)


def _is_per_pair(v, n: int) -> bool:
    """Is ``v`` an array of one value per pair (a dask or NumPy array of ``n`` rows)?"""
    shape = getattr(v, "shape", None)
    return shape is not None and len(shape) >= 1 and shape[0] == n


def _blocks_of(v, rows):
    """``v`` (``n`` rows) cut like ``rows``: delayed dask blocks or NumPy slices."""
    import dask.array as da

    if isinstance(v, da.Array):
        v = v.rechunk((rows,) + (-1,) * (v.ndim - 1))
        return list(v.to_delayed().ravel())
    v = np.asarray(v)
    ends = np.cumsum((0,) + tuple(rows))
    return [v[s:e] for s, e in zip(ends[:-1], ends[1:])]


def map_blocks(func: Callable, a, b, *args, outputs=None, **kwargs):
    """Runs the pairwise query ``func`` (e.g. :func:`segbatch.closest_points`) on dask
    arrays ``a``, ``b`` of shape ``(N, 6)`` (2D: ``(N, 4)``), block by block.

    ``b`` is rechunked to ``a``'s row chunks. ``args`` and ``kwargs`` go to ``func``; any
    of them with one value per pair (a dask or NumPy array of ``N`` rows, e.g. per-pair
    radii) is cut into the same row blocks as ``a``, so block ``k`` gets its own pairs'
    values. Blocks may arrive with any alignment and layout (a worker's buffers often are
    unaligned); segbatch copies only those it cannot read in place. Returns a dict of dask
    arrays (one per output column, as the function's own result), or one dask array for
    :func:`segbatch.distance` and :func:`segbatch.capsules_touch`.

    >>> import numpy as np, dask.array as da, segbatch, segbatch.dask
    >>> x = np.random.default_rng(1).random((1000, 6), dtype=np.float32)
    >>> a, b = da.from_array(x, chunks=300), da.from_array(x[::-1].copy(), chunks=300)
    >>> ra = da.from_array(np.linspace(0, 1, 1000, dtype=np.float32), chunks=500)
    >>> t = segbatch.dask.map_blocks(segbatch.capsules_touch, a, b, ra, 0.1).compute()
    >>> bool((t == segbatch.capsules_touch(x, x[::-1], ra.compute(), 0.1)).all())
    True
    """
    import dask
    import dask.array as da

    if a.ndim == 3:
        a = a.reshape(a.shape[0], -1)
    if b.ndim == 3:
        b = b.reshape(b.shape[0], -1)
    a = a.rechunk({1: -1})
    b = b.rechunk((a.chunks[0], -1))
    spec, dtype, _ = _spec(func, outputs)
    # A float64 side makes the queries with a float64 path compute in float64: their float
    # columns come back so.
    f64 = func.__name__ in segbatch._FLOAT64_PAIRWISE and segbatch._precision(a, b) == np.float64
    if spec is not None:
        kwargs["outputs"] = list(spec)
        if f64:
            spec = segbatch._columns_of(spec, np.float64)
    elif f64:
        dtype = np.float64
    rows = a.chunks[0]
    cut_args = [_blocks_of(v, rows) if _is_per_pair(v, a.shape[0]) else None for v in args]
    cut_kwargs = {k: _blocks_of(v, rows) for k, v in kwargs.items() if _is_per_pair(v, a.shape[0])}
    parts = []
    for k, (x, y) in enumerate(zip(a.to_delayed().ravel(), b.to_delayed().ravel())):
        args_k = tuple(v if c is None else c[k] for v, c in zip(args, cut_args))
        kwargs_k = {**kwargs, **{name: c[k] for name, c in cut_kwargs.items()}}
        parts.append(dask.delayed(_call)(func, x, y, args_k, kwargs_k))
    if spec is None:
        return da.concatenate(
            [da.from_delayed(p, shape=(n,), dtype=dtype) for p, n in zip(parts, rows)]
        )
    result = {}
    for name, (dt, width) in spec.items():
        shape = (lambda n: (n,)) if width == 1 else (lambda n: (n, width))
        result[name] = da.concatenate(
            [da.from_delayed(p[name], shape=shape(n), dtype=dt) for p, n in zip(parts, rows)]
        )
    return result


def _frame(pdf, func, a_cols, b_cols, spec, args, kwargs, pair_columns):
    import pandas as pd

    x = pdf[list(a_cols)].to_numpy(dtype=np.float32)
    y = pdf[list(b_cols)].to_numpy(dtype=np.float32)
    per_pair = {k: pdf[c].to_numpy() for k, c in pair_columns.items()}
    r = _call(func, x, y, args, {**kwargs, **per_pair})
    if spec is None:
        return pd.DataFrame({func.__name__: r}, index=pdf.index)
    cols = {}
    for name, (_, width) in spec.items():
        v = r[name]
        if width == 1:
            cols[name] = v
        else:
            for k, axis in enumerate("xyz"[:width]):
                cols[f"{name}_{axis}"] = v[:, k]
    return pd.DataFrame(cols, index=pdf.index)


def map_partitions(
    func: Callable,
    df,
    a: Sequence[str],
    b: Sequence[str],
    *args,
    outputs=None,
    pair_columns: Optional[Dict[str, str]] = None,
    **kwargs,
):
    """Runs the pairwise query ``func`` on each partition of the dask DataFrame ``df``:
    row ``i``'s A segment is in columns ``a`` (six names; 2D: four), its B segment in
    ``b``. ``pair_columns`` maps keyword arguments of ``func`` to columns of ``df`` that
    hold one value per row (``{"radius_a": "ra", "radius_b": "rb"}``): each partition
    passes its own rows' values. Returns a dask DataFrame with ``df``'s index and one
    column per output (points as ``point_a_x``, ``point_a_y``, ...).
    """
    import pandas as pd

    spec, dtype, _ = _spec(func, outputs)
    if spec is not None:
        kwargs["outputs"] = list(spec)
        meta_cols = {}
        for name, (dt, width) in spec.items():
            if width == 1:
                meta_cols[name] = pd.Series([], dtype=dt)
            else:
                for axis in "xyz"[:width]:
                    meta_cols[f"{name}_{axis}"] = pd.Series([], dtype=dt)
        meta = pd.DataFrame(meta_cols)
    else:
        meta = pd.DataFrame({func.__name__: pd.Series([], dtype=dtype)})
    return df.map_partitions(_frame, func, a_cols=tuple(a), b_cols=tuple(b), spec=spec,
                             args=args, kwargs=kwargs, pair_columns=dict(pair_columns or {}),
                             meta=meta)


# ---------------------------------------------------------------------------------------
# Set queries by spatial partitions with halos.


def _prepare(part, columns) -> np.ndarray:
    """The partition's segments as an (n, 6) float32 array."""
    if hasattr(part, "columns") and hasattr(part, "to_numpy") and columns is not None:
        return np.ascontiguousarray(part[list(columns)].to_numpy(dtype=np.float32))
    x = np.asarray(part, dtype=np.float32)
    return np.ascontiguousarray(x.reshape(x.shape[0], 6))


def _midpoints(rows: np.ndarray) -> np.ndarray:
    return 0.5 * rows[:, :3] + 0.5 * rows[:, 3:]


def _sample(rows: np.ndarray, k: int = 2048) -> np.ndarray:
    m = _midpoints(rows)
    m = m[np.isfinite(m).all(axis=1)]
    if len(m) > k:
        m = m[np.linspace(0, len(m) - 1, k).astype(np.int64)]
    return m


def _boundaries(samples, strips: int):
    m = np.concatenate([s for s in samples if len(s)] or [np.zeros((0, 3), np.float32)])
    if len(m) == 0:
        return 0, np.zeros(0)
    axis = int(np.argmax(m.max(axis=0) - m.min(axis=0)))
    inner = np.quantile(m[:, axis].astype(np.float64), np.arange(1, strips) / strips)
    return axis, inner


def _owner(rows: np.ndarray, plan0) -> np.ndarray:
    axis, inner = plan0
    key = _midpoints(rows)[:, axis]
    key = np.where(np.isfinite(key), key, np.inf)
    return np.searchsorted(inner, key, side="right")


def _bbox(rows: np.ndarray):
    return np.minimum(rows[:, :3], rows[:, 3:]), np.maximum(rows[:, :3], rows[:, 3:])


def _box_stats(rows: np.ndarray, plan0, strips: int) -> np.ndarray:
    """Per strip, the bounding box (lo xyz, hi xyz) of the segments it owns here."""
    out = np.full((strips, 6), np.nan)
    owner = _owner(rows, plan0)
    lo, hi = _bbox(rows)
    fin = np.isfinite(rows).all(axis=1)
    for p in range(strips):
        sel = (owner == p) & fin
        if sel.any():
            out[p, :3] = lo[sel].min(axis=0)
            out[p, 3:] = hi[sel].max(axis=0)
    return out


def _plan(plan0, stats, radius: float):
    s = np.stack(stats)  # (parts, strips, 6)
    with np.errstate(all="ignore"):
        lo = np.nanmin(s[:, :, :3], axis=0) - radius
        hi = np.nanmax(s[:, :, 3:], axis=0) + radius
    # Inflate relatively a little: a halo only decides which pairs are tested, never what
    # they report, so a generous box is safe and a tight one could lose a pair to rounding.
    pad = 1e-5 * np.maximum(np.abs(lo), np.abs(hi)) + 1e-30
    return plan0, lo - pad, hi + pad


def _select(rows: np.ndarray, offset: int, p: int, plan, halo: bool, owned: bool):
    """Rows of this partition owned by strip ``p`` and/or those in its halo box."""
    plan0, lo, hi = plan
    ids = offset + np.arange(len(rows), dtype=np.int64)
    if owned:
        mine = _owner(rows, plan0) == p
    else:
        mine = np.zeros(len(rows), dtype=bool)
    if halo and np.isfinite(lo[p]).all():
        blo, bhi = _bbox(rows)
        near = ((bhi >= lo[p]) & (blo <= hi[p])).all(axis=1) & ~mine
    else:
        near = np.zeros(len(rows), dtype=bool)
    return rows[mine], ids[mine], rows[near], ids[near]


def _hits_frame(h, ids_i, ids_j):
    import pandas as pd

    return pd.DataFrame(
        {"i": ids_i[h["i"]], "j": ids_j[h["j"]], "dist2": h["dist2"], "s": h["s"], "t": h["t"]}
    )


def _shared(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pairs sharing an end point (all three coordinates equal)."""
    ends = lambda r, k: r[:, 3 * k : 3 * k + 3]  # noqa: E731
    out = np.zeros(len(x), dtype=bool)
    for k in (0, 1):
        for m in (0, 1):
            out |= (ends(x, k) == ends(y, m)).all(axis=1)
    return out


def _self_strip(pieces, radius, skip, threads):
    import pandas as pd

    own = np.concatenate([p[0] for p in pieces]) if pieces else np.zeros((0, 6), np.float32)
    own_ids = np.concatenate([p[1] for p in pieces]) if pieces else np.zeros(0, np.int64)
    halo = np.concatenate([p[2] for p in pieces]) if pieces else np.zeros((0, 6), np.float32)
    halo_ids = np.concatenate([p[3] for p in pieces]) if pieces else np.zeros(0, np.int64)
    inner = segbatch.self_pairs_within(own, radius, skip_shared_endpoints=skip, threads=threads)
    frames = [_hits_frame(inner, own_ids, own_ids)]
    if len(halo) and len(own):
        cross = segbatch.pairs_within(own, halo, radius, threads=threads)
        keep = own_ids[cross["i"]] < halo_ids[cross["j"]]
        if skip:
            keep &= ~_shared(own[cross["i"]], halo[cross["j"]])
        cross = {k: v[keep] for k, v in cross.items()}
        frames.append(_hits_frame(cross, own_ids, halo_ids))
    return pd.concat(frames, ignore_index=True)


def _cross_strip(a_pieces, b_pieces, radius, threads):
    own = np.concatenate([p[0] for p in a_pieces])
    own_ids = np.concatenate([p[1] for p in a_pieces])
    halo = np.concatenate([p[2] for p in b_pieces])
    halo_ids = np.concatenate([p[3] for p in b_pieces])
    return _hits_frame(segbatch.pairs_within(own, halo, radius, threads=threads), own_ids, halo_ids)


def _finish(frames):
    import pandas as pd

    df = pd.concat(frames, ignore_index=True)
    return df.sort_values(["i", "j"], kind="stable").reset_index(drop=True)


def _parts(data, columns):
    """Delayed (n, 6) float32 partitions of a dask DataFrame or array (or a list)."""
    import dask

    if hasattr(data, "to_delayed"):
        if hasattr(data, "ndim") and getattr(data, "ndim", 2) == 3:
            data = data.reshape(data.shape[0], -1)
        if hasattr(data, "rechunk"):
            data = data.rechunk({1: -1})
        blocks = data.to_delayed()
        blocks = list(np.asarray(blocks, dtype=object).ravel())
    else:
        blocks = list(data)
    return [dask.delayed(_prepare)(b, columns) for b in blocks]


def _offsets(parts):
    import dask

    lens = [dask.delayed(len)(p) for p in parts]
    offs = [0]
    for n in lens[:-1]:
        offs.append(dask.delayed(lambda x, y: x + y)(offs[-1], n))
    return offs


def _check_radius(radius: float) -> float:
    radius = float(radius)
    if not radius >= 0 or not np.isfinite(radius):
        raise ValueError(f"radius must be a finite number >= 0, got {radius}")
    return radius


def self_pairs_within(
    segments,
    radius: float,
    *,
    columns: Sequence[str] = SEGMENT_COLUMNS,
    partitions: Optional[int] = None,
    skip_shared_endpoints: bool = False,
    threads: int = 1,
    compute: bool = True,
):
    """Every pair ``i < j`` of a partitioned set of 3D segments within ``radius``: a
    pandas DataFrame ``i, j`` (global row positions, int64), ``dist2, s, t`` (float32),
    sorted by ``(i, j)``; the same rows and values as :func:`segbatch.self_pairs_within`
    on the whole set.

    ``segments``: a dask DataFrame (six ``columns``), a dask array ``(N, 6)``, or a list of
    NumPy arrays / delayed partitions. ``partitions``: the number of spatial strips
    (default: the number of input partitions). ``compute=False`` returns the delayed
    result.
    """
    import dask

    radius = _check_radius(radius)
    parts = _parts(segments, columns)
    strips = partitions or max(len(parts), 1)
    offs = _offsets(parts)
    plan0 = dask.delayed(_boundaries)([dask.delayed(_sample)(p) for p in parts], strips)
    stats = [dask.delayed(_box_stats)(p, plan0, strips) for p in parts]
    plan = dask.delayed(_plan)(plan0, stats, radius)
    results = []
    for s in range(strips):
        pieces = [dask.delayed(_select)(p, o, s, plan, True, True) for p, o in zip(parts, offs)]
        results.append(dask.delayed(_self_strip)(pieces, radius, skip_shared_endpoints, threads))
    out = dask.delayed(_finish)(results)
    return out.compute() if compute else out


def pairs_within(
    a,
    b,
    radius: float,
    *,
    columns_a: Sequence[str] = SEGMENT_COLUMNS,
    columns_b: Sequence[str] = SEGMENT_COLUMNS,
    partitions: Optional[int] = None,
    threads: int = 1,
    compute: bool = True,
):
    """Every pair ``(a[i], b[j])`` of two partitioned sets of 3D segments within
    ``radius``: a pandas DataFrame ``i, j`` (global row positions), ``dist2, s, t``, sorted
    by ``(i, j)``, equal to :func:`segbatch.pairs_within` on the whole sets. A is cut into
    spatial strips; each strip receives the B segments near its box.
    """
    import dask

    radius = _check_radius(radius)
    pa_, pb_ = _parts(a, columns_a), _parts(b, columns_b)
    strips = partitions or max(len(pa_), 1)
    oa, ob = _offsets(pa_), _offsets(pb_)
    plan0 = dask.delayed(_boundaries)([dask.delayed(_sample)(p) for p in pa_], strips)
    stats = [dask.delayed(_box_stats)(p, plan0, strips) for p in pa_]
    plan = dask.delayed(_plan)(plan0, stats, radius)
    results = []
    for s in range(strips):
        ap = [dask.delayed(_select)(p, o, s, plan, False, True) for p, o in zip(pa_, oa)]
        bp = [dask.delayed(_select)(p, o, s, plan, True, False) for p, o in zip(pb_, ob)]
        results.append(dask.delayed(_cross_strip)(ap, bp, radius, threads))
    out = dask.delayed(_finish)(results)
    return out.compute() if compute else out


# ---------------------------------------------------------------------------------------
# 2D crossing pairs by x/y tiles with halos.


def _prepare2(part, columns, geometry: Optional[str]):
    """The partition as ``(segments, meta)``: its 2D segments as an (n, 4) C-ordered float
    array, float32 or float64 as given (other types become float64; the binding converts
    once when it reads), and with ``geometry`` (the pieces of that line geometry column)
    ``meta = (row, part, piece, n_rows)`` of :class:`segbatch.geo.Pieces`, else None."""
    if geometry is not None:
        from . import geo

        col = part[geometry] if hasattr(part, "columns") else part
        p = geo.pieces(np.asarray(col, dtype=object), dim=2)  # shapely objects or WKB
        return np.ascontiguousarray(p.segments), (p.row, p.part, p.piece, p.n_rows)
    if hasattr(part, "columns") and hasattr(part, "to_numpy"):
        x = part[list(columns)].to_numpy()
    else:
        x = np.asarray(part)
        x = x.reshape(x.shape[0], -1) if x.ndim == 3 else x
    if x.ndim != 2 or x.shape[1] != 4:
        raise ValueError(f"segments: expected 2D segments of shape (N, 4) or (N, 2, 2), got {x.shape}")
    if x.dtype.kind == "f" and x.dtype.itemsize == 4:
        x = x.astype(np.float32, copy=False)  # either byte order: float32 stays float32
    elif x.dtype != np.float64:
        x = x.astype(np.float64)
    return np.ascontiguousarray(x), None


def _count(part) -> int:
    return len(part[0])


def _row_count(part) -> int:
    return part[1][3] if part[1] is not None else len(part[0])


def _cumulative(counts):
    import dask

    offs = [0]
    for n in counts[:-1]:
        offs.append(dask.delayed(lambda x, y: x + y)(offs[-1], n))
    return offs


def _tile_cuts(samples, tiles: int):
    """Quantile cuts of the midpoints along x and y: ``kx * ky >= tiles`` tiles."""
    m = np.concatenate([s for s in samples if len(s)] or [np.zeros((0, 2))])
    kx = int(np.ceil(np.sqrt(tiles)))
    ky = int(np.ceil(tiles / kx))
    if len(m) == 0:
        return np.zeros(0), np.zeros(0), ky
    qx = np.quantile(m[:, 0], np.arange(1, kx) / kx)
    qy = np.quantile(m[:, 1], np.arange(1, ky) / ky)
    return qx, qy, ky


def _sample2(part, k: int = 2048) -> np.ndarray:
    rows = part[0] if isinstance(part, tuple) else part
    m = 0.5 * rows[:, :2].astype(np.float64) + 0.5 * rows[:, 2:].astype(np.float64)
    m = m[np.isfinite(m).all(axis=1)]
    if len(m) > k:
        m = m[np.linspace(0, len(m) - 1, k).astype(np.int64)]
    return m


def _tile_of(rows: np.ndarray, cuts) -> np.ndarray:
    qx, qy, ky = cuts
    m = 0.5 * rows[:, :2].astype(np.float64) + 0.5 * rows[:, 2:].astype(np.float64)
    m = np.where(np.isfinite(m), m, np.inf)
    return np.searchsorted(qx, m[:, 0], side="right") * ky + np.searchsorted(qy, m[:, 1], side="right")


def _bbox2(rows: np.ndarray):
    r = rows.astype(np.float64)
    return np.minimum(r[:, :2], r[:, 2:]), np.maximum(r[:, :2], r[:, 2:])


def _tile_stats(part, cuts, tiles: int) -> np.ndarray:
    """Per tile, the bounding box (lo xy, hi xy) of the segments it owns here."""
    rows = part[0]
    out = np.full((tiles, 4), np.nan)
    tile = _tile_of(rows, cuts)
    lo, hi = _bbox2(rows)
    fin = np.isfinite(lo).all(axis=1) & np.isfinite(hi).all(axis=1)
    for p in np.unique(tile[fin]):
        sel = (tile == p) & fin
        out[p, :2] = lo[sel].min(axis=0)
        out[p, 2:] = hi[sel].max(axis=0)
    return out


def _tile_plan(cuts, stats, origin):
    """The cuts, each tile's box (grown) and the local origin of the whole set."""
    from . import geo

    s = np.stack(stats)  # (parts, tiles, 4)
    with np.errstate(all="ignore"):
        lo = np.nanmin(s[:, :, :2], axis=0)
        hi = np.nanmax(s[:, :, 2:], axis=0)
    if isinstance(origin, str):  # "auto": the centre of the set's box, as segbatch.geo
        fin = np.isfinite(lo).all(axis=1)
        o = geo._snap_origin(lo[fin].min(axis=0), hi[fin].max(axis=0)) if fin.any() else None
    else:
        o = origin
    # Grown relatively: the binding decides in float32 (and within its tolerance), so a
    # pair whose float64 boxes miss by a rounding may still meet; a halo only decides
    # which pairs are tested, never what they report.
    o = o if o is not None and np.any(o) else None
    # the largest coordinate about the origin, as segbatch.geo measures it for the
    # candidate radius of its exact decisions
    fin = np.isfinite(lo).all(axis=1)
    largest = 0.0
    if fin.any():
        shift = 0.0 if o is None else o
        largest = float(np.abs(np.concatenate([lo[fin] - shift, hi[fin] - shift])).max())
    pad = 1e-5 * np.maximum(np.abs(lo), np.abs(hi)) + 1e-30
    return cuts, lo - pad, hi + pad, o, largest


def _tile_select(part, offset: int, row_offset: int, p: int, plan):
    """Rows of this partition that tile ``p`` owns, and the others whose box meets it."""
    rows, meta = part
    cuts, lo, hi = plan[:3]
    ids = offset + np.arange(len(rows), dtype=np.int64)
    mine = _tile_of(rows, cuts) == p
    if np.isfinite(lo[p]).all():
        blo, bhi = _bbox2(rows)
        near = ((bhi >= lo[p]) & (blo <= hi[p])).all(axis=1) & ~mine
    else:
        near = np.zeros(len(rows), dtype=bool)
    sel = mine | near
    if meta is not None:
        meta = (meta[0][sel] + row_offset, meta[1][sel], meta[2][sel])
    return rows[sel], ids[sel], mine[sel], meta


def _shared2(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pairs of 2D segments sharing an end point (both coordinates equal)."""
    out = np.zeros(len(x), dtype=bool)
    for k in (0, 1):
        for m in (0, 1):
            out |= (x[:, 2 * k : 2 * k + 2] == y[:, 2 * m : 2 * m + 2]).all(axis=1)
    return out


def _cross_tile(pieces, plan, skip: bool, drop_same_row: bool, exact: bool, threads):
    import pandas as pd

    from . import geo

    rows = np.concatenate([p[0] for p in pieces])
    ids = np.concatenate([p[1] for p in pieces])
    own = np.concatenate([p[2] for p in pieces])
    order = np.argsort(ids, kind="stable")  # global order: the same operand order as one call
    rows, ids, own = rows[order], ids[order], own[order]
    o, largest = plan[3], plan[4]
    local = rows if o is None else rows.astype(np.float64) - np.tile(o, 2)
    if exact:  # segbatch.geo's exact decisions: per pair, whatever the set around it
        h = geo._exact_pairs(rows, threads)
    else:
        h = segbatch.crossing_pairs(local, threads=threads)
    keep = own[h["i"]]
    if skip:
        keep &= ~_shared2(rows[h["i"]], rows[h["j"]])
    geo = pieces[0][3] is not None if pieces else False
    if geo:
        row, part, piece = (np.concatenate([p[3][k] for p in pieces])[order] for k in range(3))
        if drop_same_row:
            keep &= row[h["i"]] != row[h["j"]]
    i, j = h["i"][keep], h["j"][keep]
    cols = {"i": ids[i], "j": ids[j], "s": h["s"][keep], "kind": h["kind"][keep]}
    if "point" in h:  # the meeting point, as the single-process call gives it
        point = h["point"][keep] if o is None else h["point"][keep] + o
        cols["x"], cols["y"] = point[:, 0].copy(), point[:, 1].copy()
    if geo:
        seg = rows[i].astype(np.float64)
        s = cols["s"].astype(np.float64)
        cols = {"i": cols["i"], "j": cols["j"], "row_i": row[i], "row_j": row[j], "part_i": part[i],
                "part_j": part[j], "piece_i": piece[i], "piece_j": piece[j], "s": cols["s"],
                "kind": cols["kind"], "x": seg[:, 0] + s * (seg[:, 2] - seg[:, 0]),
                "y": seg[:, 1] + s * (seg[:, 3] - seg[:, 1])}
    return pd.DataFrame(cols)


def _finish_geo(frames):
    return _finish(frames).drop(columns=["i", "j"])


def crossing_pairs(
    segments,
    *,
    columns: Sequence[str] = SEGMENT2_COLUMNS,
    geometry: Optional[str] = None,
    partitions: Optional[int] = None,
    skip_shared_endpoints: bool = False,
    drop_same_row: bool = False,
    exact: Optional[bool] = None,
    origin="default",
    threads: int = 1,
    compute: bool = True,
):
    """Every pair ``i < j`` of a partitioned set of 2D segments that meets, as
    :func:`segbatch.crossing_pairs` decides: a pandas DataFrame ``i, j`` (global row
    positions, int64), ``s`` (float32), ``kind`` (uint8), sorted by ``(i, j)``, the same
    rows and values, bit for bit, as the single-process call on the whole set.

    ``segments``: a dask DataFrame (four ``columns``, default ``x0, y0, x1, y1``), a dask
    array ``(N, 4)`` or ``(N, 2, 2)``, or a list of NumPy arrays / delayed partitions.
    The segments are cut into ``partitions`` x/y tiles (default: the number of input
    partitions; quantiles of the midpoints along x and y, from a sample of each
    partition), each owning the segments whose midpoint falls in it; a tile also receives
    as its halo every other segment whose bounding box meets the box of its own segments
    (grown by a relative 1e-5). A tile runs :func:`segbatch.crossing_pairs` on its own
    segments and its halo, in global order, and keeps the pairs whose lower-indexed
    segment it owns: two segments that meet have meeting boxes, so each pair is found by
    exactly one tile. ``skip_shared_endpoints=True`` drops pairs whose segments share an
    end point (equal coordinates as given: streets meeting at a node). ``compute=False``
    returns the delayed result.

    ``geometry``: the name of a line geometry column of a dask DataFrame (WKB bytes, as
    ``dd.read_parquet`` gives a GeoParquet column, or shapely objects) or ``None``. Each
    partition is turned into its pieces on its worker (:func:`segbatch.geo.pieces`), and
    the result is that of :func:`segbatch.geo.crossing_pairs` on the whole column, bit
    for bit: ``row_i, row_j, part_i, part_j, piece_i, piece_j, s, kind, x, y`` with rows
    counted over all partitions; ``drop_same_row`` and ``exact`` as there (``exact``
    defaults to True with ``geometry``, False for segment columns; a tile's halo reaches
    beyond the candidate radius of the exact decisions, and each decision depends on its
    pair only).

    ``origin``: the local origin subtracted before the float32 query, as in
    :mod:`segbatch.geo`: ``"auto"`` (the centre of the whole set's box, snapped), ``None``
    or a point. ``"default"`` is ``"auto"`` with ``geometry`` (as segbatch.geo) and
    ``None`` for segment columns (as :func:`segbatch.crossing_pairs`).
    """
    import dask

    if exact is None:
        exact = geometry is not None
    if isinstance(origin, str) and origin == "default":
        origin = "auto" if geometry is not None else None
    elif origin is not None and not isinstance(origin, str):
        origin = np.asarray(origin, dtype=np.float64)
        if origin.shape != (2,):
            raise ValueError(f"origin: expected 2 coordinates, got shape {origin.shape}")
    elif isinstance(origin, str) and origin != "auto":
        raise ValueError(f"origin: expected 'auto', 'default', None or a point, got {origin!r}")
    parts = [dask.delayed(_prepare2)(b, tuple(columns), geometry) for b in _blocks(segments)]
    row_offs, ntiles, plan, tile_pieces = _tiling(parts, partitions, origin)
    results = [
        dask.delayed(_cross_tile)(
            tile_pieces(t, plan), plan, skip_shared_endpoints, drop_same_row, exact, threads
        )
        for t in range(ntiles)
    ]
    out = dask.delayed(_finish_geo if geometry is not None else _finish)(results)
    return out.compute() if compute else out


def _tiling(parts, partitions, origin):
    """The x/y tiles of prepared `parts` (delayed): each part's first row, the tile count,
    the tiles' plan (with `origin`) and `tile_pieces(t, plan)`, the pieces tile `t` of
    `plan` holds (its own and its halo's), from every part."""
    import dask

    tiles = partitions or max(len(parts), 1)
    offs = _cumulative([dask.delayed(_count)(p) for p in parts])
    row_offs = _cumulative([dask.delayed(_row_count)(p) for p in parts])
    cuts = dask.delayed(_tile_cuts)([dask.delayed(_sample2)(p) for p in parts], tiles)
    ntiles = _tile_count(tiles)
    stats = [dask.delayed(_tile_stats)(p, cuts, ntiles) for p in parts]
    plan = dask.delayed(_tile_plan)(cuts, stats, origin)

    def tile_pieces(t, plan):
        return [dask.delayed(_tile_select)(p, o, r, t, plan) for p, o, r in zip(parts, offs, row_offs)]

    return row_offs, ntiles, plan, tile_pieces


def _grown(plan, distance: float):
    """The tile plan with each tile's box grown by ``distance`` and its rounding: a piece
    within ``distance`` of a tile's own pieces then meets the grown box."""
    cuts, lo, hi = plan[:3]
    pad = distance * (1 + 1e-9) + 1e-9 * np.maximum(np.abs(lo), np.abs(hi))
    return (cuts, lo - pad, hi + pad) + tuple(plan[3:])


def _row_tile(pieces, plan, distance, values: bool, threads):
    """The row pairs of one tile (its own pieces and its halo, in global order), each with
    its deciding piece pair as global piece ids, from the compiled row query."""
    import pandas as pd

    segs = np.concatenate([p[0] for p in pieces]).astype(np.float64)
    ids = np.concatenate([p[1] for p in pieces])
    row = np.concatenate([p[3][0] for p in pieces])
    # The global order: local piece order is then the global one, so the rank of a hit
    # (distance, then piece pair) orders the same in every tile and in one process.
    order = np.argsort(ids, kind="stable")
    segs, ids, row = np.ascontiguousarray(segs[order]), ids[order], row[order]
    coords = segs.reshape(-1, 2)
    offsets = np.arange(0, 2 * len(segs) + 1, 2, dtype=np.int64)
    from . import geo

    # Whether meeting rows count at distance 0 follows the whole set's largest coordinate,
    # as in one process.
    meeting = distance is not None and geo._radius_meets(distance, plan[4])
    h = segbatch._native.line_row_pairs(coords, offsets, row, 0, None, distance, meeting, values, False, threads)
    h["i"], h["j"] = ids[h["i"]], ids[h["j"]]
    return pd.DataFrame(h)


def _row_starts(part, row_offset):
    """The rows of a partition that have a piece (global), and each one's first vertex."""
    rows, meta = part
    if meta is None or len(rows) == 0:
        return np.zeros(0, np.int64), np.zeros((0, 2))
    row = meta[0]
    first = np.r_[True, row[1:] != row[:-1]]
    return row[first] + row_offset, rows[first, :2].astype(np.float64)


def _finish_rows(frames, starts, distance, values: bool):
    """Each row pair once (the least-ranked hit over all tiles: the single process's), then
    the ``sindex.query`` form: both orientations and each row with a piece with itself,
    sorted by (input, tree)."""
    import pandas as pd

    df = pd.concat(frames, ignore_index=True)
    keys = ["a", "b"] + (["dist2"] if values and distance is not None else []) + ["i", "j"]
    df = df.sort_values(keys, kind="stable").drop_duplicates(["a", "b"]).reset_index(drop=True)
    own_rows = np.concatenate([s[0] for s in starts]) if starts else np.zeros(0, np.int64)
    own_first = np.concatenate([s[1] for s in starts]) if starts else np.zeros((0, 2))
    a, b = df["a"].to_numpy(np.int64), df["b"].to_numpy(np.int64)
    inp = np.concatenate([a, b, own_rows])
    tree = np.concatenate([b, a, own_rows])
    order = np.lexsort((tree, inp))
    if not values:
        return inp[order], tree[order]
    out = {"input": inp[order], "tree": tree[order]}
    if distance is None:
        for k, c in (("x", 0), ("y", 1)):
            v = df[k].to_numpy(np.float64)
            out[k] = np.concatenate([v, v, own_first[:, c]])[order]
    else:
        v = df["distance"].to_numpy(np.float64)
        out["distance"] = np.concatenate([v, v, np.zeros(len(own_rows))])[order]
    return pd.DataFrame(out)


def _row_query(data, geometry: str, distance, frame: bool, partitions, threads, compute: bool):
    import dask

    parts = [dask.delayed(_prepare2)(b, (), geometry) for b in _blocks(data)]
    row_offs, ntiles, plan, tile_pieces = _tiling(parts, partitions, None)
    if distance is not None:
        plan = dask.delayed(_grown)(plan, distance)
    results = [
        dask.delayed(_row_tile)(tile_pieces(t, plan), plan, distance, frame, threads) for t in range(ntiles)
    ]
    starts = [dask.delayed(_row_starts)(p, r) for p, r in zip(parts, row_offs)]
    out = dask.delayed(_finish_rows)(results, starts, distance, frame)
    return out.compute() if compute else out


def intersects(
    data, geometry: str = "geometry", *, frame: bool = False, partitions: Optional[int] = None,
    threads: int = 1, compute: bool = True,
):
    """:func:`segbatch.geo.intersects` of a partitioned line geometry column (a dask
    DataFrame's ``geometry`` column of WKB bytes or shapely objects, as
    ``dd.read_parquet`` gives a GeoParquet file): the same ``(input, tree)`` arrays (rows
    counted over all partitions), or with ``frame=True`` the same DataFrame, bit for bit.

    The pieces are cut into x/y tiles with halos as in :func:`crossing_pairs`; each tile
    runs the compiled row query over its pieces and halo in global order and reports each
    of its row pairs with its deciding piece pair (global ids); the row pairs of all tiles
    are reduced to the least-ranked hit of each (every meeting piece pair lies in the tile
    that owns its lower piece, so the least of all is the single process's), then put in
    the ``sindex.query`` form."""
    return _row_query(data, geometry, None, frame, partitions, threads, compute)


def dwithin(
    data, distance: float, geometry: str = "geometry", *, frame: bool = False,
    partitions: Optional[int] = None, threads: int = 1, compute: bool = True,
):
    """:func:`segbatch.geo.dwithin` of a partitioned line geometry column, as
    :func:`intersects` computes it; each tile's halo reaches ``distance`` (and a rounding)
    beyond the box of its own pieces."""
    distance = float(distance)
    if not distance >= 0 or not np.isfinite(distance):
        raise ValueError(f"distance must be a finite number >= 0, got {distance!r}")
    return _row_query(data, geometry, distance, frame, partitions, threads, compute)


def _tile_count(tiles: int) -> int:
    kx = int(np.ceil(np.sqrt(tiles)))
    return kx * int(np.ceil(tiles / kx))


def _blocks(data):
    """The partitions of a dask DataFrame or array (rows, all columns), or a list."""
    if hasattr(data, "to_delayed"):
        if hasattr(data, "rechunk"):
            data = data.rechunk({k: -1 for k in range(1, data.ndim)})
        return list(np.asarray(data.to_delayed(), dtype=object).ravel())
    return list(data)


# ---------------------------------------------------------------------------------------
# A SegmentIndex broadcast to the workers.

_INDEXES: Dict[str, "segbatch.SegmentIndex"] = {}


def _index(walls: np.ndarray, key: str) -> "segbatch.SegmentIndex":
    """This worker's index of ``walls``, built on first use (the last two kept)."""
    index = _INDEXES.get(key)
    if index is None:
        index = segbatch.SegmentIndex(walls, threads=1)
        while len(_INDEXES) >= 2:
            _INDEXES.pop(next(iter(_INDEXES)))
        _INDEXES[key] = index
    return index


def _hits(walls, key, rays, columns, radius, range_, threads):
    x = _prepare(rays, columns)
    return _index(walls, key).first_hits(x, radius, range_, threads=threads)


def _hits_df(pdf, walls, key, columns, radius, range_, threads):
    import pandas as pd

    h = _hits(walls, key, pdf, columns, radius, range_, threads)
    p = h.pop("point")
    return pd.DataFrame(
        {**h, "point_x": p[:, 0], "point_y": p[:, 1], "point_z": p[:, 2]}, index=pdf.index
    )


def _index_pairs(walls, key, part, offset, columns, radius, threads):
    import pandas as pd

    h = _index(walls, key).pairs_within(_prepare(part, columns), radius, threads=threads)
    return pd.DataFrame({"i": h["i"] + offset, "j": h["j"], "dist2": h["dist2"], "s": h["s"], "t": h["t"]})


class SegmentIndex:
    """A :class:`segbatch.SegmentIndex` of ``walls`` for Dask: the walls (a NumPy array,
    a ``SegmentColumns``, or a dask array / DataFrame, computed once) go to the workers
    once; each worker builds the index on its first task and keeps it; the queries run
    partition by partition and equal the single-process index's results bit for bit (the
    same walls give the same index).

    >>> import numpy as np, dask.array as da, segbatch.dask
    >>> walls = np.array([[5, -1, 0, 5, 1, 0], [9, -1, 0, 9, 1, 0]], dtype=np.float32)
    >>> rays = da.from_array(np.array([[0, 0, 0, 1, 0, 0]] * 4, dtype=np.float32), chunks=2)
    >>> h = segbatch.dask.SegmentIndex(walls).first_hits(rays, radius=0.5, range=10.0)
    >>> h["index"].compute(), h["u"].compute()
    (array([0, 0, 0, 0]), array([4.5, 4.5, 4.5, 4.5], dtype=float32))
    """

    def __init__(self, walls, *, columns: Sequence[str] = SEGMENT_COLUMNS):
        import dask
        from dask.base import tokenize

        if hasattr(walls, "compute"):
            walls = walls.compute()
        if isinstance(walls, segbatch.SegmentColumns):
            walls = walls.to_numpy()
        walls = _prepare(walls, columns)
        self._n = len(walls)
        self._key = "segbatch-index-" + tokenize(walls)
        self._walls = dask.delayed(walls, name=self._key + "-walls")
        self.columns = tuple(columns)

    def __len__(self) -> int:
        return self._n

    def first_hits(self, rays, radius: float, range: float, *, columns: Optional[Sequence[str]] = None, threads: int = 1):
        """:meth:`segbatch.SegmentIndex.first_hits` of every ray, partition by partition.
        A dask array ``(N, 6)`` gives a dict of dask arrays (``hit``, ``index``, ``u``,
        ``point`` ``(N, 3)``); a dask DataFrame (six ``columns``, default the index's)
        gives a dask DataFrame with its index and ``hit, index, u, point_x, point_y,
        point_z``."""
        import dask
        import dask.array as da
        import pandas as pd

        cols = tuple(columns or self.columns)
        radius = segbatch._number(radius, "radius", allow_inf=False)
        range_ = segbatch._number(range, "range", allow_inf=False)
        if hasattr(rays, "map_partitions"):
            meta = pd.DataFrame({"hit": pd.Series([], dtype=bool), "index": pd.Series([], dtype=np.int64),
                                 "u": pd.Series([], dtype=np.float32)}
                                | {f"point_{a}": pd.Series([], dtype=np.float32) for a in "xyz"})
            return rays.map_partitions(_hits_df, self._walls, self._key, cols, radius, range_, threads, meta=meta)
        if rays.ndim == 3:
            rays = rays.reshape(rays.shape[0], -1)
        rays = rays.rechunk({1: -1})
        parts = [dask.delayed(_hits)(self._walls, self._key, b, cols, radius, range_, threads)
                 for b in rays.to_delayed().ravel()]
        spec = {"hit": (np.bool_, ()), "index": (np.int64, ()), "u": (np.float32, ()), "point": (np.float32, (3,))}
        return {
            name: da.concatenate([da.from_delayed(p[name], shape=(n,) + tail, dtype=dt)
                                  for p, n in zip(parts, rays.chunks[0])])
            for name, (dt, tail) in spec.items()
        }

    def pairs_within(self, segments, radius: float, *, columns: Optional[Sequence[str]] = None,
                     threads: int = 1, compute: bool = True):
        """:meth:`segbatch.SegmentIndex.pairs_within` of a partitioned set of query
        segments: a pandas DataFrame ``i`` (global row of the query segment), ``j`` (wall),
        ``dist2, s, t``, sorted by ``(i, j)``, equal to the single-process call bit for
        bit."""
        import dask

        radius = _check_radius(radius)
        cols = tuple(columns or self.columns)
        blocks = _blocks(segments)
        parts = [dask.delayed(_prepare)(b, cols) for b in blocks]
        offs = _offsets(parts)
        frames = [dask.delayed(_index_pairs)(self._walls, self._key, p, o, cols, radius, threads)
                  for p, o in zip(parts, offs)]
        out = dask.delayed(_finish)(frames)
        return out.compute() if compute else out
