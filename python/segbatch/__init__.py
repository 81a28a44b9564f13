"""segbatch: closest points, distances and crossings of 3D segments, rays and lines (and 2D
segments), millions of pairs per second, from NumPy.

Every function is vectorized like a NumPy ufunc or shapely 2.x: it takes whole arrays of
segments and returns NumPy arrays, one value (or row) per pair.

Inputs
------
A batch of 3D segments (or tracks) is an array of shape ``(N, 2, 3)`` (two points per row)
or ``(N, 6)`` (``x0, y0, z0, x1, y1, z1``); 2D segments are ``(N, 2, 2)`` or ``(N, 4)``.

- ``float32``, C-contiguous (NumPy's default layout): used in place, never copied. The
  native code reads it in small chunks (256 pairs in :func:`closest_points`, 4096 in the
  other pairwise queries) into a buffer that stays in cache, so it is read from memory
  exactly once. The set queries (:func:`pairs_within`, :func:`crossing_pairs`,
  :class:`SegmentIndex`, the ``*_indexed`` functions) convert row input to columns once.
- ``float32``, Fortran-ordered ``(N, 6)`` (column-major, what
  ``np.asfortranarray`` or a table of six columns gives), or a :class:`SegmentColumns` (six
  columns, for example from Arrow): the columns are handed to the kernel as they are.
- ``float32`` with any other strides (a slice ``x[::2]``, a transposed view, a zero-stride
  ``np.broadcast_to`` view): read in place, chunk by chunk; the pairwise queries never copy
  it as a whole (the set queries convert their sets to columns once, as for rows).
- ``float32`` data that is not 4-byte aligned (``np.frombuffer`` at an odd offset, some
  Dask or Arrow buffers): copied once, aligned. Nothing else is required of the layout.
- ``float64`` (NumPy arrays or :class:`SegmentColumns`), in any of the layouts above and in
  either byte order (a big-endian ``'>f8'`` array is converted to the machine's order once,
  never narrowed; so is a big-endian ``'>f4'``, which stays float32): float64 in, float64
  out. :func:`closest_points`, :func:`distance`, :func:`cpa`,
  :func:`cpa_segments`, :func:`capsules_touch`, :func:`first_contact`,
  :func:`first_contact_segments`, :func:`pairs_within`, :func:`self_pairs_within`,
  :func:`dist2_matrix`, :func:`intersect2`, :func:`crossing_pairs`, the ``*_indexed``
  functions, :func:`capsule_contacts` and :class:`SegmentIndex` (first hits) compute in
  float64 (the crate's queries on ``Segments64``, or their ``*64`` forms where a family
  still has them; radii and windows in float64 too) and return float64
  columns. When one side is float64 and the other is not, the other is widened to float64
  (exact for float32) and the query runs in float64.
- Any other real dtype (``float16``, integers) and Python lists are converted to
  ``float32`` once, in one pass (``arr.astype(np.float32)``), before the call.
- Booleans, complex numbers, objects and strings raise ``TypeError``; a wrong shape, rows
  of different counts on the two sides or a bad option raise ``ValueError``.

Outputs
-------
NumPy arrays: a ``dict`` of columns for queries with several results (``outputs=`` picks
the columns), a single array otherwise. Float columns have the precision the query ran in
(float32, or float64 for float64 input). Points are ``(N, 3)`` (``(N, 2)`` in 2D), flags
``uint8`` bit sets, indices ``int64``. ``pandas.DataFrame`` accepts the one-dimensional
columns directly.

Threads and interrupts
----------------------
The GIL is released during the computation. By default the work runs on all cores;
``threads=1`` keeps it on the calling thread, ``threads=k`` uses a shared pool of ``k``
threads (one pool per size, the :data:`MAX_POOLS` most recently used kept). ``k`` above
the number of CPUs this process may use is clamped to it with a ``RuntimeWarning``. The
results are bit for bit the same whatever the thread count, and bit for bit those of the
Rust crate.

Ctrl-C (``SIGINT``) raises ``KeyboardInterrupt`` within a fraction of a second in every
call that can run long, on one thread or on all, and nothing half-built is returned. The
pairwise queries, :func:`dist2_matrix`, the ``*_indexed`` functions,
:func:`capsule_contacts`, float64 :func:`intersect2` and the :class:`SegmentIndex` queries
run in steps of about 40 ms (sized as they go: pairs, matrix rows, rays or query segments)
with the GIL released and check for signals between steps; ``out=`` arrays then hold the
steps done so far, new outputs are dropped. The set queries :func:`pairs_within`,
:func:`self_pairs_within` and :func:`crossing_pairs` run on a thread of their own while
the calling thread checks for signals every 20 ms: a Ctrl-C asks the query to stop, which
it sees between its pieces of work (milliseconds apart, whether or not it has found
pairs), and the hits found so far are dropped unsorted; a query still building its grid
is left to end in the background after 200 ms. The :class:`SegmentIndex` build,
one library call that cannot be stopped, runs on a thread of its own: the Ctrl-C is
raised at once and the build ends in the background.

Memory
------
An output that cannot be allocated raises ``MemoryError`` (as NumPy does), never aborts
the interpreter: :func:`dist2_matrix` checks the matrix against the machine's memory
before allocating it, and the set queries reserve their outputs fallibly.

More inputs
-----------
:mod:`segbatch.arrow` reads Arrow tables and Parquet files (segment columns, and line
geometry from GeoParquet); :mod:`segbatch.geo` takes line geometry (shapely, GeoPandas,
GeoArrow, WKB; extra ``segbatch[geo]``) and maps the answers back to geometry rows;
:mod:`segbatch.dask` runs the queries on Dask.

>>> import numpy as np, segbatch
>>> a = np.array([[[0, 0, 0], [2, 0, 0]]], dtype=np.float32)
>>> b = np.array([[[1, 1, 0], [1, 3, 0]]], dtype=np.float32)
>>> r = segbatch.closest_points(a, b)
>>> r["distance"], r["s"], r["t"]
(array([1.], dtype=float32), array([0.5], dtype=float32), array([0.], dtype=float32))
>>> r["point_a"]
array([[1., 0., 0.]], dtype=float32)
"""

from __future__ import annotations

import numbers
import os
import warnings
from typing import Dict, Iterable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _segbatch as _baseline


def _load_native():
    """The native extension to use: the best copy the CPU runs, x86-64-v4 (AVX-512), then
    x86-64-v3 (AVX2 + FMA), then the baseline build (SSE2). ``SEGBATCH_SIMD=v3`` goes no
    higher than the v3 copy, ``SEGBATCH_SIMD=baseline`` forces the baseline build;
    ``SEGBATCH_SIMD=auto`` (default) takes the best."""
    import importlib

    choice = os.environ.get("SEGBATCH_SIMD", "auto").strip().lower() or "auto"
    if choice not in ("auto", "v3", "baseline"):
        raise ImportError(f"SEGBATCH_SIMD: expected 'auto', 'v3' or 'baseline', got {choice!r}")
    copies = []
    if choice == "auto" and _baseline.cpu_has_x86_64_v4():
        copies.append("._segbatch_v4")
    if choice in ("auto", "v3") and _baseline.cpu_has_x86_64_v3():
        copies.append("._segbatch_v3")
    for name in copies:
        try:
            return importlib.import_module(name, __name__)
        except ImportError:
            pass  # a build with one module (a target other than x86-64 Linux)
    return _baseline


_native = _load_native()

#: The package version (the Rust crate's).
__version__: str = _native.__version__

__all__ = [
    "SegmentColumns",
    "closest_points",
    "distance",
    "capsules_touch",
    "pairs_within",
    "self_pairs_within",
    "dist2_matrix",
    "intersect2",
    "cpa",
    "cpa_segments",
    "first_contact",
    "first_contact_segments",
    "closest_points_indexed",
    "capsules_touch_indexed",
    "capsule_contacts",
    "crossing_pairs",
    "SegmentIndex",
    "as_segments",
    "FLAGS",
    "MOTION_FLAGS",
    "CROSSING",
    "SIMD_LEVEL",
    "MAX_THREADS",
    "__version__",
]

#: Bits of the ``flags`` column of :func:`closest_points`.
FLAGS = {"degenerate_a": 1, "degenerate_b": 2, "parallel": 4, "non_finite": 8}
#: Bits of the ``flags`` columns of :func:`cpa`, :func:`first_contact` and
#: :func:`intersect2`.
MOTION_FLAGS = {
    "same_velocity": 1,
    "touching_at_start": 2,
    "parallel": 4,
    "non_finite": 8,
    "collinear": 16,
    "degenerate_a": 32,
    "degenerate_b": 64,
}
#: Values of the ``kind`` column of :func:`intersect2`.
CROSSING = {"disjoint": 0, "point": 1, "overlap": 2}
#: The SIMD level of the native extension in use (``"avx512f+fma"``, ``"avx2+fma"``,
#: ``"sse2"``): an x86-64 Linux build holds a baseline, an x86-64-v3 and an x86-64-v4 copy
#: and picks the best the CPU runs at import (``SEGBATCH_SIMD=v3`` or ``baseline`` caps it).
SIMD_LEVEL = _native.simd_level()

_F, _U8, _B = np.float32, np.uint8, np.bool_
# Output columns of each query: name -> (dtype, values per pair), in the default order.
_CLOSEST_OUTPUTS = {
    "distance": (_F, 1),
    "dist2": (_F, 1),
    "s": (_F, 1),
    "t": (_F, 1),
    "point_a": (_F, 3),
    "point_b": (_F, 3),
    "flags": (_U8, 1),
}
_CPA_OUTPUTS = {
    "t": (_F, 1),
    "distance": (_F, 1),
    "dist2": (_F, 1),
    "point_a": (_F, 3),
    "point_b": (_F, 3),
    "flags": (_U8, 1),
}
_CONTACT_OUTPUTS = {"hit": (_B, 1), "t": (_F, 1), "flags": (_U8, 1)}
_INTERSECT2_OUTPUTS = {
    "kind": (_U8, 1),
    "distance": (_F, 1),
    "dist2": (_F, 1),
    "s": (_F, 1),
    "t": (_F, 1),
    "s_end": (_F, 1),
    "t_end": (_F, 1),
    "point_a": (_F, 2),
    "point_b": (_F, 2),
    "flags": (_U8, 1),
}
_EXTENTS = ("segment", "ray", "line")
# The pairwise queries that compute in float64 when a side is float64.
_FLOAT64_PAIRWISE = (
    "closest_points", "distance", "cpa", "cpa_segments", "intersect2", "first_contact",
    "first_contact_segments",
)


class SegmentColumns:
    """A batch given as separate ``float32`` or ``float64`` columns (structure of arrays),
    used without copying: ``x0, y0, z0, x1, y1, z1`` for 3D segments, ``px, py, pz, vx,
    vy, vz`` for tracks, ``x0, y0, x1, y1`` for 2D segments.

    Made by :func:`segbatch.arrow.columns` from Arrow or Parquet data; any sequence of
    equally long 1-D arrays works. ``float64`` columns stay ``float64`` (when any column
    is ``float64``, all are made so); other dtypes are converted to ``float32`` once.

    >>> import numpy as np, segbatch
    >>> cols = segbatch.SegmentColumns([np.zeros(3), np.zeros(3), np.zeros(3),
    ...                                 np.ones(3), np.zeros(3), np.zeros(3)])
    >>> len(cols), cols.width
    (3, 6)
    >>> cols.to_numpy().shape
    (3, 6)
    """

    __slots__ = ("columns",)

    def __init__(self, columns: Sequence[np.ndarray]):
        arrays = []
        for k, c in enumerate(columns):
            arr = np.asarray(c)
            _check_dtype(arr, f"column {k}")
            if arr.ndim != 1:
                raise ValueError(f"column {k}: expected a 1-D array, got shape {arr.shape}")
            arrays.append(arr)
        dtype = np.float64 if any(_is_wide(a.dtype) for a in arrays) else np.float32
        cols = [np.ascontiguousarray(a, dtype=dtype) for a in arrays]
        if len(cols) not in (4, 6):
            raise ValueError(f"expected 4 (2D) or 6 (3D) columns, got {len(cols)}")
        n = len(cols[0])
        for k, c in enumerate(cols):
            if len(c) != n:
                raise ValueError(f"column {k} has {len(c)} values, column 0 has {n}")
        self.columns: Tuple[np.ndarray, ...] = tuple(cols)

    @property
    def width(self) -> int:
        """Numbers per record: 6 (3D) or 4 (2D)."""
        return len(self.columns)

    def __len__(self) -> int:
        return len(self.columns[0])

    @property
    def dtype(self) -> np.dtype:
        """The columns' dtype: ``float32`` or ``float64``."""
        return self.columns[0].dtype

    def to_numpy(self) -> np.ndarray:
        """The records as an ``(N, width)`` array of the columns' dtype (a copy)."""
        return np.stack(self.columns, axis=1)

    def __repr__(self) -> str:
        return f"SegmentColumns(n={len(self)}, width={self.width})"


def _check_dtype(arr: np.ndarray, name: str) -> None:
    if arr.dtype.kind not in "fiu":
        raise TypeError(
            f"{name}: dtype {arr.dtype} is not a real number type; expected float32 or "
            "float64 (used as is) or another float or integer type (converted)"
        )


def _is_wide(dtype) -> bool:
    """Whether ``dtype`` is float64 (in either byte order) or a wider float (``longdouble``):
    data that runs in float64. Comparing with ``np.float64`` would miss the big-endian
    ``'>f8'`` (NumPy compares byte orders too) and narrow it to float32."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        return False
    return dtype.kind == "f" and dtype.itemsize >= 8


def _precision(*sides) -> type:
    """The dtype a query computes in: ``np.float64`` when any side is float64 data (a NumPy
    array or :class:`SegmentColumns` of float64, either byte order, any strides, or a wider
    float), else ``np.float32`` (float32 of either byte order, float16, integers, Python
    lists)."""
    for x in sides:
        if not isinstance(x, (list, tuple)) and _is_wide(getattr(x, "dtype", None)):
            return np.float64
    return np.float32


def _columns_of(spec, dtype) -> dict:
    """An output spec with its float32 columns in ``dtype``."""
    if dtype == np.float32:
        return spec
    return {k: (dtype if d is _F else d, w) for k, (d, w) in spec.items()}


def as_segments(x, name: str = "a", dim: int = 3, dtype=None):
    """``x`` in the form the native functions take (no copy for float32 or float64 C- or
    Fortran-ordered input): an ``(N, 2*dim)`` C-contiguous array, or a tuple of ``2*dim``
    columns, of ``dtype``: by default float64 for float64 data and float32 for anything
    else (other dtypes are converted once); ``dtype=np.float64`` widens float32 data
    exactly.

    Raises ``TypeError`` for a non-numeric dtype and ``ValueError`` for a wrong shape.
    """
    width = 2 * dim
    dtype = np.dtype(_precision(x) if dtype is None else dtype)
    if isinstance(x, SegmentColumns):
        if x.width != width:
            raise ValueError(f"{name}: expected {width} columns, got {x.width}")
        if x.dtype == dtype:
            return x.columns
        return tuple(np.ascontiguousarray(c, dtype=dtype) for c in x.columns)
    if isinstance(x, (list, tuple)) and len(x) == 0:
        return np.zeros((0, width), dtype=dtype)
    arr = np.asarray(x)
    _check_dtype(arr, name)
    if arr.ndim == 3 and arr.shape[1:] == (2, dim):
        arr = arr.reshape(arr.shape[0], width)  # a view when contiguous
    elif not (arr.ndim == 2 and arr.shape[1] == width):
        raise ValueError(
            f"{name}: expected shape (N, 2, {dim}) or (N, {width}), got {arr.shape}"
        )
    if arr.dtype != dtype:
        arr = arr.astype(dtype, order="K")
    if not arr.flags.aligned:
        # Data at an address that is not a multiple of the item size (a buffer sliced at an
        # odd offset, a Dask block from a byte stream): copied once, the only case that is.
        return np.array(arr, dtype=dtype, order="C", copy=True)
    if arr.flags.c_contiguous:
        return arr
    if arr.flags.f_contiguous:
        return tuple(arr.T)  # each row of arr.T is one contiguous column
    # Any other strides (a slice, a transposed view, a zero-stride np.broadcast_to view):
    # read in place, chunk by chunk, by the native code.
    return arr


def _arrays(side):
    return side if isinstance(side, tuple) else (side,)


def _check_out(name: str, arr, inputs, done) -> None:
    """An accurate error for an ``out=`` array that cannot be written in place."""
    if not isinstance(arr, np.ndarray):
        return  # the native code names the expected type
    if not arr.flags.writeable:
        raise ValueError(f"out[{name!r}]: the array is read-only")
    for iname, side in inputs:
        if any(np.may_share_memory(arr, x) for x in _arrays(side)):
            raise ValueError(
                f"out[{name!r}]: the array shares memory with input {iname}; outputs are "
                "written while the inputs are read, so pass a separate array"
            )
    for oname, other in done.items():
        if isinstance(other, np.ndarray) and np.may_share_memory(arr, other):
            raise ValueError(f"out[{name!r}]: the array shares memory with out[{oname!r}]")
    if not arr.flags.aligned:
        raise ValueError(f"out[{name!r}]: the array's data is not aligned for {arr.dtype}")


def _outputs(outputs, out, n: int, spec, inputs=()) -> Dict[str, np.ndarray]:
    """The output arrays: those of ``out`` (reused, written in place), new ones for the
    other names of ``outputs`` (default: ``out``'s names, else every column). ``inputs``:
    ``(name, side)`` pairs that an ``out`` array must not overlap."""
    if out is not None and not isinstance(out, dict):
        raise TypeError(f"out: expected a dict of name -> array, got {type(out).__name__}")
    out = out or {}
    if outputs is None:
        names = list(out) if out else list(spec)
    else:
        names = [outputs] if isinstance(outputs, str) else list(outputs)
    for name in list(names) + list(out):
        if name not in spec:
            raise ValueError(f"unknown output {name!r}; expected some of {', '.join(spec)}")
    checked: Dict[str, np.ndarray] = {}
    for name, arr in out.items():
        _check_out(name, arr, inputs, checked)
        checked[name] = arr
    result = {}
    for name in dict.fromkeys(names):
        dtype, width = spec[name]
        arr = out.get(name)
        if arr is None:
            arr = np.empty((n,) if width == 1 else (n, width), dtype=dtype)
        result[name] = arr
    return result


def _extent(e, name: str) -> str:
    if not isinstance(e, str) or e.lower() not in _EXTENTS:
        raise ValueError(f"{name}: expected one of 'segment', 'ray', 'line', got {e!r}")
    return e.lower()


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


#: The largest ``threads=`` used: the number of CPUs this process may run on. A larger
#: value is clamped to it with a ``RuntimeWarning``.
MAX_THREADS: int = _cpu_count()
#: How many thread pools of distinct sizes are kept (least recently used dropped).
MAX_POOLS: int = _native.MAX_POOLS


def _threads(threads) -> Optional[int]:
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral) or threads < 1:
        raise ValueError(f"threads must be an integer >= 1 or None, got {threads!r}")
    if threads > MAX_THREADS:
        warnings.warn(
            f"threads={threads} is more than the {MAX_THREADS} CPUs this process may use; "
            f"using {MAX_THREADS}",
            RuntimeWarning,
            stacklevel=3,
        )
        return MAX_THREADS
    return int(threads)


def _number(x, name: str, allow_inf: bool = True) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name}: expected a number, got {type(x).__name__}")
    x = float(x)
    if not (x >= 0):
        raise ValueError(f"{name} must be >= 0, got {x}")
    if not allow_inf and np.isinf(x):
        raise ValueError(f"{name} must be finite, got {x}")
    return x


def _radius_array(r, name: str, n: int, per: str, dtype=np.float32) -> np.ndarray:
    """One radius per pair (or per segment) as an aligned array of n of ``dtype``, checked."""
    arr = np.asarray(r)
    _check_dtype(arr, name)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.shape[0] != n):
        raise ValueError(f"{name}: expected a number or {n} radii (one per {per}), got shape {arr.shape}")
    arr = np.require(np.broadcast_to(arr, (n,)), dtype=dtype, requirements=["C", "A"])
    bad = ~(arr >= 0)
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(f"{name}[{k}] is negative or NaN: {arr[k]}")
    return arr


def _radii(radius_a, radius_b, n: int, dtype=np.float32):
    """Both radii as numbers, or both as arrays of n of ``dtype`` (broadcast)."""
    if np.ndim(radius_a) == 0 and np.ndim(radius_b) == 0:
        return _radius(radius_a, "radius_a"), _radius(radius_b, "radius_b")
    return (
        _radius_array(radius_a, "radius_a", n, "pair", dtype),
        _radius_array(radius_b, "radius_b", n, "pair", dtype),
    )


def _radius(r, name: str) -> float:
    arr = np.asarray(r)
    _check_dtype(arr, name)
    x = float(arr)
    if not x >= 0:
        raise ValueError(f"{name} is negative or NaN: {x}")
    return x


def _memory_bytes() -> Optional[int]:
    """Physical memory of this machine in bytes, when the OS says."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def _new_array(shape, dtype, what: str) -> np.ndarray:
    """``np.empty(shape, dtype)``, or ``MemoryError`` when it is larger than the machine's
    memory (an allocation the OS might grant lazily and then kill the process over)."""
    size = int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize
    total = _memory_bytes()
    if total is not None and size > total:
        raise MemoryError(
            f"{what}: {' x '.join(map(str, shape))} {np.dtype(dtype).name} needs "
            f"{size / 2**30:.1f} GiB, more than this machine's {total / 2**30:.1f} GiB of memory"
        )
    return np.empty(shape, dtype=dtype)


def _len(x) -> int:
    return len(x[0]) if isinstance(x, tuple) else x.shape[0]


def closest_points(
    a,
    b,
    *,
    extent_a: str = "segment",
    extent_b: str = "segment",
    tolerance: Optional[float] = None,
    outputs: Union[str, Iterable[str], None] = None,
    out: Optional[Dict[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Closest points of ``a[i]`` and ``b[i]`` for every ``i``.

    Each side is a segment (``s`` in [0, 1]), a ray (``s >= 0``) or an infinite line
    (``extent_a``/``extent_b``). ``tolerance``: an absolute degenerate-length threshold
    instead of the scale-free default. ``outputs``: the columns to return, some of
    ``distance, dist2, s, t, point_a, point_b, flags`` (default: all of them); fewer
    columns write less memory. ``out``: a dict of arrays to write into instead of new
    ones (as NumPy's ``out=``; reuse them across calls to save the allocation), with the
    dtypes and shapes below; its names are the outputs when ``outputs`` is not given.

    Returns a dict: ``distance``, ``dist2`` (``N``), ``s``, ``t`` (parameters along ``a``
    and ``b``), ``point_a``, ``point_b`` (``(N, 3)``), ``flags`` (uint8: 1 degenerate a,
    2 degenerate b, 4 parallel, 8 non-finite input; see :data:`FLAGS`). A NaN or infinite
    coordinate makes that pair's outputs NaN and sets its flag; it never raises.

    float64 in, float64 out: when either side is float64 the pairs are computed in float64
    (the crate's ``closest_points64``, the other side widened exactly) and the float
    columns are float64 (``out`` arrays too); otherwise everything is float32.

    >>> import numpy as np, segbatch
    >>> rays = np.array([[0, 0, 0, 1, 0, 0]], dtype=np.float32)      # along +x
    >>> walls = np.array([[5, -1, 0, 5, 1, 0]], dtype=np.float32)    # at x = 5
    >>> r = segbatch.closest_points(rays, walls, extent_a="ray", outputs=["s", "distance"])
    >>> float(r["s"][0]), float(r["distance"][0])
    (5.0, 0.0)
    >>> utm = np.array([[480000.0, 4990000.0, 0, 480001.0, 4990000.0, 0]])  # float64
    >>> r = segbatch.closest_points(utm, utm + [0, 0.3, 0, 0, 0.3, 0])
    >>> r["distance"], r["point_b"].dtype
    (array([0.3]), dtype('float64'))
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    spec = _columns_of(_CLOSEST_OUTPUTS, dt)
    result = _outputs(outputs, out, _len(a), spec, (("a", a), ("b", b)))
    _native.closest_points(
        a,
        b,
        _extent(extent_a, "extent_a"),
        _extent(extent_b, "extent_b"),
        None if tolerance is None else _number(tolerance, "tolerance", allow_inf=False),
        result,
        _threads(threads),
    )
    return result


def distance(
    a,
    b,
    *,
    extent_a: str = "segment",
    extent_b: str = "segment",
    tolerance: Optional[float] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """Distances of ``a[i]`` and ``b[i]`` (``N``; float64 when either side is float64,
    else float32): :func:`closest_points` with ``outputs=["distance"]`` (the same keyword
    arguments; ``out=`` only there).

    >>> import numpy as np, segbatch
    >>> a = np.array([[[0, 0, 0], [1, 0, 0]]], dtype=np.float32)
    >>> b = np.array([[[1, 0, 1], [1, 1, 1]]])  # int64: converted to float32 once
    >>> segbatch.distance(a, b)
    array([1.], dtype=float32)
    >>> segbatch.distance(a.astype(np.float64), b)  # float64 in, float64 out
    array([1.])
    """
    return closest_points(
        a,
        b,
        extent_a=extent_a,
        extent_b=extent_b,
        tolerance=tolerance,
        outputs=["distance"],
        threads=threads,
    )["distance"]


def capsules_touch(
    a,
    b,
    radius_a,
    radius_b,
    *,
    extent_a: str = "segment",
    extent_b: str = "segment",
    tolerance: Optional[float] = None,
    out: Optional[np.ndarray] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """Does capsule ``(a[i], radius_a)`` touch capsule ``(b[i], radius_b)``? A bool array.

    Radii are numbers or arrays of one radius per pair (broadcast); a negative or NaN
    radius raises ``ValueError``. A pair touches when ``dist2 <= (ra + rb)**2``, in float64
    when either side is float64 (the crate's ``capsules_touch64``, radii in float64), else
    in float32.

    >>> import numpy as np, segbatch
    >>> a = np.array([[0, 0, 0, 2, 0, 0], [0, 0, 0, 2, 0, 0]], dtype=np.float32)
    >>> b = np.array([[0, 1, 0, 2, 1, 0], [0, 1.5, 0, 2, 1.5, 0]], dtype=np.float32)
    >>> segbatch.capsules_touch(a, b, 0.5, 0.5)
    array([ True, False])
    >>> segbatch.capsules_touch(a + 4.99e6, b + 4.99e6, 0.5, 0.5)  # float64: the same answer
    array([ True, False])
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    ra, rb = _radii(radius_a, radius_b, _len(a), dt)
    result = _outputs(
        None,
        None if out is None else {"touch": out},
        _len(a),
        {"touch": (_B, 1)},
        (("a", a), ("b", b), ("radius_a", ra), ("radius_b", rb)),
    )
    _native.capsules_touch(
        a,
        b,
        ra,
        rb,
        _extent(extent_a, "extent_a"),
        _extent(extent_b, "extent_b"),
        None if tolerance is None else _number(tolerance, "tolerance", allow_inf=False),
        result,
        _threads(threads),
    )
    return result["touch"]


def pairs_within(
    a,
    b,
    radius: float,
    *,
    extent_a: str = "segment",
    extent_b: str = "segment",
    tolerance: Optional[float] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Every pair ``(a[i], b[j])`` whose distance is at most ``radius``, sorted by
    ``(i, j)``: a dict of ``i``, ``j`` (int64), ``dist2``, ``s``, ``t`` (float32; float64
    when either set is float64: decided and returned in float64, the crate's
    ``pairs_within``, radius in float64).

    ``radius = inf`` accepts every finite pair; a negative or NaN radius raises.

    >>> import numpy as np, segbatch
    >>> a = np.array([[0, 0, 0, 1, 0, 0], [0, 3, 0, 1, 3, 0]], dtype=np.float32)
    >>> b = np.array([[0, 1, 0, 1, 1, 0], [0, 5, 0, 1, 5, 0]], dtype=np.float32)
    >>> h = segbatch.pairs_within(a, b, 2.0)
    >>> list(zip(h["i"].tolist(), h["j"].tolist())), h["dist2"]
    ([(0, 0), (1, 0), (1, 1)], array([1., 4., 4.], dtype=float32))
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    return _native.pairs_within(
        a,
        b,
        _number(radius, "radius"),
        _extent(extent_a, "extent_a"),
        _extent(extent_b, "extent_b"),
        None if tolerance is None else _number(tolerance, "tolerance", allow_inf=False),
        _threads(threads),
    )


def self_pairs_within(
    segments,
    radius: float,
    *,
    skip_shared_endpoints: bool = False,
    extent: str = "segment",
    tolerance: Optional[float] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Every pair ``i < j`` of one set within ``radius``, sorted by ``(i, j)``: a dict of
    ``i``, ``j`` (int64), ``dist2``, ``s`` (along ``segments[i]``), ``t`` (float32, or
    float64 for a float64 set: decided and returned in float64, the crate's
    ``self_pairs_within``).

    ``skip_shared_endpoints=True`` skips pairs where an end point of one equals an end
    point of the other (consecutive pieces of a path), which always touch.

    >>> import numpy as np, segbatch
    >>> path = np.array([[0, 0, 0, 4, 0, 0], [4, 0, 0, 4, 2, 0], [4, 2, 0, 1, 0.25, 0]],
    ...                 dtype=np.float32)
    >>> h = segbatch.self_pairs_within(path, 0.5, skip_shared_endpoints=True)
    >>> h["i"], h["j"], h["dist2"]
    (array([0]), array([2]), array([0.0625], dtype=float32))
    >>> segbatch.self_pairs_within(path.astype(np.float64) + 4.99e6, 0.5, skip_shared_endpoints=True)["dist2"]
    array([0.0625])
    """
    s = as_segments(segments, "segments")
    e = _extent(extent, "extent")
    return _native.self_pairs_within(
        s,
        _number(radius, "radius"),
        bool(skip_shared_endpoints),
        e,
        e,
        None if tolerance is None else _number(tolerance, "tolerance", allow_inf=False),
        _threads(threads),
    )


def dist2_matrix(
    a,
    b,
    *,
    extent_a: str = "segment",
    extent_b: str = "segment",
    tolerance: Optional[float] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """Squared distance of every ``a[i]`` to every ``b[j]``: ``(len(a), len(b))``, float32,
    or float64 when either set is float64 (the crate's ``dist2_matrix`` on ``Segments64``).

    >>> import numpy as np, segbatch
    >>> a = np.array([[0, 0, 0, 1, 0, 0]], dtype=np.float32)
    >>> b = np.array([[0, 1, 0, 1, 1, 0], [0, 2, 0, 1, 2, 0]], dtype=np.float32)
    >>> segbatch.dist2_matrix(a, b)
    array([[1., 4.]], dtype=float32)
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    ea, eb = _extent(extent_a, "extent_a"), _extent(extent_b, "extent_b")
    tol = None if tolerance is None else _number(tolerance, "tolerance", allow_inf=False)
    th = _threads(threads)
    out = _new_array((_len(a), _len(b)), dt, "dist2_matrix output")
    _native.dist2_matrix(a, b, ea, eb, tol, out, th)
    return out


def intersect2(
    a,
    b,
    *,
    outputs: Union[str, Iterable[str], None] = None,
    out: Optional[Dict[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """How 2D segments ``a[i]`` and ``b[i]`` meet, and their closest points.

    Inputs ``(N, 2, 2)`` or ``(N, 4)`` (``x0, y0, x1, y1``). Returns a dict (``outputs``
    picks columns): ``kind`` (uint8: 0 disjoint, 1 one point, 2 collinear overlap; see
    :data:`CROSSING`), ``s``, ``t`` (parameters of the crossing, of the overlap's start or
    of the closest points), ``s_end``, ``t_end`` (end of an overlap, else equal to
    ``s``, ``t``), ``dist2``, ``distance``, ``point_a``, ``point_b`` (``(N, 2)``), ``flags``
    (uint8, :data:`MOTION_FLAGS`). Touching counts as meeting (like shapely's
    ``intersects``).
    When either input is float64 the pairs are computed in float64 (the float columns come
    back float64, ``out`` arrays must be float64 then); any other input in float32.

    >>> import numpy as np, segbatch
    >>> a = np.array([[4, 7, 16, 3], [0, 0, 2, 0]], dtype=np.float32)
    >>> b = np.array([[1, 1, 17, 5], [1, 0, 3, 0]], dtype=np.float32)
    >>> r = segbatch.intersect2(a, b)
    >>> r["kind"], r["point_a"][0], r["s_end"]
    (array([1, 2], dtype=uint8), array([13.,  4.], dtype=float32), array([0.75, 1.  ], dtype=float32))
    """
    if _precision(a, b) == np.float64:
        a, b = _as_segments64(a, "a"), _as_segments64(b, "b")
        spec = _columns_of(_INTERSECT2_OUTPUTS, np.float64)
        result = _outputs(outputs, out, len(a), spec, (("a", a), ("b", b)))
        _native.intersect2_64(a, b, result, _threads(threads))
        return result
    a, b = as_segments(a, "a", dim=2, dtype=_F), as_segments(b, "b", dim=2, dtype=_F)
    result = _outputs(outputs, out, _len(a), _INTERSECT2_OUTPUTS, (("a", a), ("b", b)))
    _native.intersect2(a, b, result, _threads(threads))
    return result


def cpa(
    a,
    b,
    *,
    window: float = 1.0,
    outputs: Union[str, Iterable[str], None] = None,
    out: Optional[Dict[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Closest point of approach in time of tracks ``a[i]`` and ``b[i]``.

    A track is ``(px, py, pz, vx, vy, vz)``: position at time 0 and velocity (shape
    ``(N, 6)`` or ``(N, 2, 3)``). The time is searched in ``[0, window]``
    (``window=float("inf")`` for the whole future). Returns ``t``, ``distance``,
    ``dist2``, ``point_a``, ``point_b`` (positions at ``t``), ``flags``. float64 in,
    float64 out: when either side is float64 the tracks and the window are taken in
    float64 (the crate's ``cpa`` on ``f64`` tracks) and the float columns are float64.

    >>> import numpy as np, segbatch
    >>> a = np.array([[0, 0, 0, 2, 0, 0]], dtype=np.float32)
    >>> b = np.array([[2, 1, 0, -2, 0, 0]], dtype=np.float32)
    >>> r = segbatch.cpa(a, b)
    >>> float(r["t"][0]), float(r["distance"][0])
    (0.5, 1.0)
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    result = _outputs(outputs, out, _len(a), _columns_of(_CPA_OUTPUTS, dt), (("a", a), ("b", b)))
    _native.cpa(a, b, _number(window, "window"), False, result, _threads(threads))
    return result


def cpa_segments(
    a,
    b,
    *,
    outputs: Union[str, Iterable[str], None] = None,
    out: Optional[Dict[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Closest point of approach of objects moving along ``a[i]`` and ``b[i]`` (start to
    end points) during the same step, time ``[0, 1]``. Same columns as :func:`cpa`
    (float64 when either side is float64: the crate's ``cpa_segments`` on f64 batches).

    >>> import numpy as np, segbatch
    >>> a = np.array([[0, 0, 0, 2, 0, 0]], dtype=np.float32)
    >>> b = np.array([[2, 1, 0, 0, 1, 0]], dtype=np.float32)
    >>> r = segbatch.cpa_segments(a, b)
    >>> float(r["t"][0]), float(r["dist2"][0])
    (0.5, 1.0)
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    result = _outputs(outputs, out, _len(a), _columns_of(_CPA_OUTPUTS, dt), (("a", a), ("b", b)))
    _native.cpa(a, b, 1.0, True, result, _threads(threads))
    return result


def first_contact(
    a,
    b,
    radius_a,
    radius_b,
    *,
    window: float = 1.0,
    outputs: Union[str, Iterable[str], None] = None,
    out: Optional[Dict[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """First time spheres of ``radius_a``, ``radius_b`` moving along tracks ``a[i]`` and
    ``b[i]`` touch, within ``[0, window]``. Returns ``hit`` (bool), ``t`` (``inf`` without
    contact, NaN for non-finite input), ``flags``. float64 in, float64 out: when either side
    is float64 the tracks, radii and window are taken in float64 (the crate's
    ``first_contact`` on ``f64`` tracks) and ``t`` is float64.

    >>> import numpy as np, segbatch
    >>> a = np.array([[0, 0, 0, 2, 0, 0]], dtype=np.float32)
    >>> b = np.array([[4, 0, 0, -2, 0, 0]], dtype=np.float32)
    >>> r = segbatch.first_contact(a, b, 0.5, 0.5)
    >>> r["hit"], r["t"]
    (array([ True]), array([0.75], dtype=float32))
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    ra, rb = _radii(radius_a, radius_b, _len(a), dt)
    result = _outputs(
        outputs, out, _len(a), _columns_of(_CONTACT_OUTPUTS, dt), (("a", a), ("b", b), ("radius_a", ra), ("radius_b", rb))
    )
    _native.first_contact(
        a, b, ra, rb, _number(window, "window"), False, result, _threads(threads)
    )
    return result


def first_contact_segments(
    a,
    b,
    radius_a,
    radius_b,
    *,
    outputs: Union[str, Iterable[str], None] = None,
    out: Optional[Dict[str, np.ndarray]] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """First contact during one step (time ``[0, 1]``) of spheres whose centres move along
    ``a[i]`` and ``b[i]`` (start to end). Same columns as :func:`first_contact` (float64
    when either side is float64: the crate's ``first_contact_segments`` on f64
    batches).

    >>> import numpy as np, segbatch
    >>> a = np.array([[-1, 0, 0, 1, 0, 0]], dtype=np.float32)
    >>> b = np.array([[0, -3, 0, 0, -1, 0]], dtype=np.float32)  # arrives after a has gone
    >>> segbatch.first_contact_segments(a, b, 0.25, 0.25)["hit"]
    array([False])
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    ra, rb = _radii(radius_a, radius_b, _len(a), dt)
    result = _outputs(
        outputs, out, _len(a), _columns_of(_CONTACT_OUTPUTS, dt), (("a", a), ("b", b), ("radius_a", ra), ("radius_b", rb))
    )
    _native.first_contact(a, b, ra, rb, 1.0, True, result, _threads(threads))
    return result


# ---------------------------------------------------------------------------------------
# Set queries over index pairs, 2D crossing sets and a reusable index.


def _pairs(pairs, na: int, nb: int) -> np.ndarray:
    """Index pairs as a C-contiguous ``(K, 2)`` uint32 array, checked against both sets."""
    arr = np.asarray(pairs)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"pairs: expected an integer array of shape (K, 2), got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"pairs: expected shape (K, 2), got {arr.shape}")
    if arr.size:
        for col, n, side in ((0, na, "a"), (1, nb, "b")):
            lo, hi = int(arr[:, col].min()), int(arr[:, col].max())
            if lo < 0 or hi >= n:
                bad = int(np.flatnonzero((arr[:, col] < 0) | (arr[:, col] >= n))[0])
                raise ValueError(
                    f"pairs: row {bad} names {side}[{int(arr[bad, col])}], but {side} has {n} segments"
                )
    return np.ascontiguousarray(arr, dtype=np.uint32)


def _object_radii(radius_a, radius_b, na: int, nb: int, dtype=np.float32):
    """Both radii as numbers, or as arrays of ``dtype`` of one radius per object of each set."""
    if np.ndim(radius_a) == 0 and np.ndim(radius_b) == 0:
        return _radius(radius_a, "radius_a"), _radius(radius_b, "radius_b")
    return (
        _radius_array(radius_a, "radius_a", na, "segment", dtype),
        _radius_array(radius_b, "radius_b", nb, "segment", dtype),
    )


def _tolerance(tolerance):
    return None if tolerance is None else _number(tolerance, "tolerance", allow_inf=False)


def closest_points_indexed(
    a,
    b,
    pairs,
    *,
    extent_a: str = "segment",
    extent_b: str = "segment",
    tolerance: Optional[float] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Closest points of ``a[i]`` and ``b[j]`` for every row ``(i, j)`` of ``pairs`` (an
    integer array of shape ``(K, 2)``, e.g. a broad phase's candidates): the columns of
    :func:`closest_points` (``dist2``, ``distance``, ``s``, ``t``, ``point_a``,
    ``point_b``, ``flags``), row ``k`` bit for bit what :func:`closest_points` gives for
    ``(a[i], b[j])``. ``a`` and ``b`` may be the same set. The lanes are gathered from the
    sets directly (the pairs are converted to uint32 once); an index out of range raises
    ``ValueError``. float64 in, float64 out (the crate's ``closest_points64_indexed``; the
    same for :func:`capsules_touch_indexed` and :func:`capsule_contacts`).

    >>> import numpy as np, segbatch
    >>> s = np.array([[0, 0, 0, 2, 0, 0], [1, 1, 0, 1, 3, 0], [0, 0, 5, 2, 0, 5]], dtype=np.float32)
    >>> r = segbatch.closest_points_indexed(s, s, [[0, 1], [0, 2]])
    >>> r["dist2"], r["s"]
    (array([ 1., 25.], dtype=float32), array([0.5, 0.5], dtype=float32))
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    p = _pairs(pairs, _len(a), _len(b))
    return _native.closest_points_indexed(
        a, b, p, _extent(extent_a, "extent_a"), _extent(extent_b, "extent_b"), _tolerance(tolerance),
        _threads(threads),
    )


def capsules_touch_indexed(
    a,
    b,
    pairs,
    radius_a,
    radius_b,
    *,
    extent_a: str = "segment",
    extent_b: str = "segment",
    tolerance: Optional[float] = None,
    threads: Optional[int] = None,
) -> np.ndarray:
    """Does capsule ``(a[i], radius_a)`` touch ``(b[j], radius_b)``, for every row
    ``(i, j)`` of ``pairs``? A bool array of ``K``. Radii are numbers or arrays of one
    radius per segment of their set (``len(a)``, ``len(b)``).

    >>> import numpy as np, segbatch
    >>> s = np.array([[0, k, 0, 2, k, 0] for k in range(4)], dtype=np.float32)
    >>> segbatch.capsules_touch_indexed(s, s, [[0, 1], [0, 2], [2, 3]], 0.5, 0.5)
    array([ True, False,  True])
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    p = _pairs(pairs, _len(a), _len(b))
    ra, rb = _object_radii(radius_a, radius_b, _len(a), _len(b), dt)
    return _native.capsules_touch_indexed(
        a, b, p, ra, rb, _extent(extent_a, "extent_a"), _extent(extent_b, "extent_b"),
        _tolerance(tolerance), _threads(threads),
    )


def capsule_contacts(
    a,
    b,
    pairs,
    radius_a,
    radius_b,
    *,
    extent_a: str = "segment",
    extent_b: str = "segment",
    tolerance: Optional[float] = None,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """The contacts of the touching capsules among the rows ``(i, j)`` of ``pairs``, in
    their order: ``pair`` (int64, the row of ``pairs``), ``i`` and ``j`` (int64, the objects
    of that row), ``normal`` (``(K, 3)``, unit, from
    B towards A), ``depth`` (``rA + rB - distance``), ``point_a``, ``point_b`` (the deepest
    points of each capsule towards the other). A row is reported exactly when
    :func:`capsules_touch_indexed` is true for it, twice (consecutive, the same normal) when
    the capsules lie side by side (near-parallel, overlapping: the two ends of the overlap).
    When the core segments meet, the normal falls back to the cross product of their
    directions (see the Rust ``CapsuleContact``).

    >>> import numpy as np, segbatch
    >>> s = np.array([[0, 0, 0, 2, 0, 0], [1, 0.75, -1, 1, 0.75, 1], [0, 9, 0, 2, 9, 0]], dtype=np.float32)
    >>> c = segbatch.capsule_contacts(s, s, [[1, 0], [0, 2]], 0.5, 0.5)
    >>> c["pair"], c["i"], c["j"], c["normal"], c["depth"]
    (array([0]), array([1]), array([0]), array([[0., 1., 0.]], dtype=float32), array([0.25], dtype=float32))
    """
    dt = _precision(a, b)
    a, b = as_segments(a, "a", dtype=dt), as_segments(b, "b", dtype=dt)
    p = _pairs(pairs, _len(a), _len(b))
    ra, rb = _object_radii(radius_a, radius_b, _len(a), _len(b), dt)
    return _native.capsule_contacts(
        a, b, p, ra, rb, _extent(extent_a, "extent_a"), _extent(extent_b, "extent_b"),
        _tolerance(tolerance), _threads(threads),
    )


def crossing_pairs(
    segments,
    *,
    skip_shared_endpoints: bool = False,
    threads: Optional[int] = None,
) -> Dict[str, np.ndarray]:
    """Every pair ``i < j`` of one set of 2D segments (``(N, 2, 2)`` or ``(N, 4)``) that
    meets, as :func:`intersect2` decides (a crossing or touching point, or a collinear
    overlap), sorted by ``(i, j)``, found by a grid in ``O(N log N + K)``: ``i``, ``j``
    (int64), ``s`` (parameter on ``segments[i]`` of the point or of the overlap's start),
    ``kind`` (uint8, 1 point, 2 overlap; :data:`CROSSING`), ``point`` (``(K, 2)``, the
    meeting point or the overlap's start, ``segments[i]`` at ``s``).

    Meeting is decided exactly for the given coordinates. A float64 input is computed and
    returned in float64 (no narrowing: at UTM coordinates float32 rounds to 0.25-0.5 m);
    any other input in float32. ``skip_shared_endpoints=True`` leaves out the pairs where an
    end point of one equals an end point of the other (street pieces meeting at a node,
    consecutive pieces of a path).

    >>> import numpy as np, segbatch
    >>> path = np.array([[0, 0, 4, 0], [4, 0, 2, 2], [2, 2, 2, -1], [1, 0, 3, 0]], dtype=np.float32)
    >>> h = segbatch.crossing_pairs(path)
    >>> list(zip(h["i"].tolist(), h["j"].tolist()))
    [(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)]
    >>> h["kind"]
    array([1, 1, 2, 1, 1], dtype=uint8)
    >>> h = segbatch.crossing_pairs(path.astype(np.float64), skip_shared_endpoints=True)
    >>> list(zip(h["i"].tolist(), h["j"].tolist())), h["point"].dtype
    ([(0, 2), (0, 3), (2, 3)], dtype('float64'))
    """
    skip = bool(skip_shared_endpoints)
    if _precision(segments) == np.float64:
        s = _as_segments64(segments, "segments")
        return _native.crossing_pairs64(s, skip, _threads(threads))
    s = as_segments(segments, "segments", dim=2)
    return _native.crossing_pairs(s, skip, _threads(threads))


def _as_segments64(x, name: str, dim: int = 2) -> np.ndarray:
    """An input as an ``(N, 2*dim)`` C-contiguous, aligned float64 array (copied only when
    it is not one already: a Dask worker's blocks are often unaligned)."""
    width = 2 * dim
    arr = x.to_numpy() if isinstance(x, SegmentColumns) else np.asarray(x)
    _check_dtype(arr, name)
    if arr.ndim == 3 and arr.shape[1:] == (2, dim):
        arr = arr.reshape(arr.shape[0], width)
    elif not (arr.ndim == 2 and arr.shape[1] == width):
        raise ValueError(f"{name}: expected shape (N, 2, {dim}) or (N, {width}), got {arr.shape}")
    return np.require(arr, np.float64, ["C_CONTIGUOUS", "ALIGNED"])


class SegmentIndex:
    """A reusable index over a static set of 3D segments (walls, level geometry): built once
    (a tree over the segments, O(N log N)), queried many times. Results name members by
    their row in ``segments``; values are bit for bit the Rust crate's.

    The index has its members' precision: over float64 segments it is the crate's
    ``SegmentIndex<f64>`` (first hits and pairs in float64: ``u``, ``point``, ``dist2``, ``s``
    and ``t`` come back float64). Rays and query segments are converted to the index's
    precision (float64 queries on a float32 index are rounded to float32 once).

    >>> import numpy as np, segbatch
    >>> walls = np.array([[5, -1, 0, 5, 1, 0], [9, -1, 0, 9, 1, 0]], dtype=np.float32)
    >>> index = segbatch.SegmentIndex(walls)
    >>> rays = np.array([[0, 0, 0, 1, 0, 0], [0, 0, 0, -1, 0, 0]], dtype=np.float32)
    >>> h = index.first_hits(rays, radius=0.5, range=10.0)
    >>> h["hit"], h["index"], h["u"]
    (array([ True, False]), array([ 0, -1]), array([4.5, nan], dtype=float32))
    >>> len(index), index.pairs_within(rays, 4.5)["i"]  # query segments, not rays
    (2, array([0]))
    >>> utm = [480000.0, 4990000.0, 0] * 2  # float64 in, float64 out
    >>> h = segbatch.SegmentIndex(walls + utm).first_hits(rays + utm, radius=0.5, range=10.0)
    >>> h["index"], h["u"]
    (array([ 0, -1]), array([4.5, nan]))
    """

    def __init__(self, segments, *, threads: Optional[int] = None):
        s = as_segments(segments, "segments")
        self._dtype = _precision(segments)
        self._native = _native.SegmentIndex(s, _threads(threads))

    def __len__(self) -> int:
        return len(self._native)

    def first_hits(self, rays, radius: float, range: float, *, threads: Optional[int] = None) -> Dict[str, np.ndarray]:
        """For each ray (``P0`` its origin, ``P1 - P0`` its direction), the first member that
        a sphere of ``radius`` moving along it from ``u = 0`` to ``u = range`` touches:
        ``hit`` (bool), ``index`` (int64, ``-1`` without a hit), ``u`` (the sphere's centre
        is ``P0 + u·(P1 - P0)``; NaN without a hit), ``point`` (``(N, 3)``, the contact
        point on the member; NaN without a hit); ``u`` and ``point`` in the index's
        precision. ``radius = 0`` gives the first
        crossing; ``range = inf`` a ray without end (the hits are decided from the ray's
        origin and the member, never from the range's end, so any range past the first hit
        gives the same answer). A negative or NaN ``radius`` or ``range``, or an infinite
        ``radius``, raises ``ValueError``.
        """
        r = _number(radius, "radius", allow_inf=False)
        g = _number(range, "range")
        return self._native.first_hits(as_segments(rays, "rays", dtype=self._dtype), r, g, _threads(threads))

    def pairs_within(self, segments, radius: float, *, threads: Optional[int] = None) -> Dict[str, np.ndarray]:
        """Every pair of a query ``segments[i]`` and a member ``j`` within ``radius``, sorted
        by ``(i, j)``: exactly :func:`pairs_within` ``(segments, members, radius)`` (same
        columns, in the index's precision), without rebuilding the index."""
        return self._native.pairs_within(
            as_segments(segments, "segments", dtype=self._dtype), _number(radius, "radius"), _threads(threads)
        )
