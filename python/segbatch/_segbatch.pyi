"""Type stubs of the native module ``segbatch._segbatch`` (Rust, pyo3). Use the functions of
``segbatch`` instead: they check and convert the inputs, allocate the outputs and call
these. Each side is an aligned ``(N, C)`` array (any strides) or a tuple of ``C``
contiguous columns, float32 or float64, both sides of one dtype: float64 in, float64 out
(float columns, radii, windows and ``out`` arrays are float64 then; ``intersect2_64`` and
``crossing_pairs64`` are the 2D float64 forms). ``out`` maps output names to arrays of
``N`` rows, written in place. Errors are ``ValueError`` / ``TypeError``, ``MemoryError`` for an output that
cannot be allocated, ``KeyboardInterrupt`` from the calls that run in steps."""

from typing import Dict, List, Optional, Tuple, Union

import numpy as np
import numpy.typing as npt

_Side = Union[
    npt.NDArray[np.float32],
    Tuple[npt.NDArray[np.float32], ...],
    npt.NDArray[np.float64],
    Tuple[npt.NDArray[np.float64], ...],
]
_Out = Dict[str, np.ndarray]
_Radius = Union[float, npt.NDArray[np.float32], npt.NDArray[np.float64]]

CHUNK: int
MAX_POOLS: int
__version__: str

def closest_points(
    a: _Side,
    b: _Side,
    extent_a: str,
    extent_b: str,
    tolerance: Optional[float],
    out: _Out,
    threads: Optional[int],
) -> None: ...
def capsules_touch(
    a: _Side,
    b: _Side,
    radius_a: _Radius,
    radius_b: _Radius,
    extent_a: str,
    extent_b: str,
    tolerance: Optional[float],
    out: _Out,
    threads: Optional[int],
) -> None: ...
def cpa(
    a: _Side, b: _Side, window_end: float, segments: bool, out: _Out, threads: Optional[int]
) -> None: ...
def first_contact(
    a: _Side,
    b: _Side,
    radius_a: _Radius,
    radius_b: _Radius,
    window_end: float,
    segments: bool,
    out: _Out,
    threads: Optional[int],
) -> None: ...
def intersect2(a: _Side, b: _Side, out: _Out, threads: Optional[int]) -> None: ...
def intersect2_64(
    a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], out: _Out, threads: Optional[int]
) -> None: ...
def pairs_within(
    a: _Side,
    b: _Side,
    radius: float,
    extent_a: str,
    extent_b: str,
    tolerance: Optional[float],
    threads: Optional[int],
) -> Dict[str, np.ndarray]: ...
def self_pairs_within(
    set: _Side,
    radius: float,
    skip_shared: bool,
    extent_a: str,
    extent_b: str,
    tolerance: Optional[float],
    threads: Optional[int],
) -> Dict[str, np.ndarray]: ...
def dist2_matrix(
    a: _Side,
    b: _Side,
    extent_a: str,
    extent_b: str,
    tolerance: Optional[float],
    out: Union[npt.NDArray[np.float32], npt.NDArray[np.float64]],
    threads: Optional[int],
) -> None: ...
_Pairs = npt.NDArray[np.uint32]

def closest_points_indexed(
    a: _Side,
    b: _Side,
    pairs: _Pairs,
    extent_a: str,
    extent_b: str,
    tolerance: Optional[float],
    threads: Optional[int],
) -> Dict[str, np.ndarray]: ...
def capsules_touch_indexed(
    a: _Side,
    b: _Side,
    pairs: _Pairs,
    radius_a: _Radius,
    radius_b: _Radius,
    extent_a: str,
    extent_b: str,
    tolerance: Optional[float],
    threads: Optional[int],
) -> npt.NDArray[np.bool_]: ...
def capsule_contacts(
    a: _Side,
    b: _Side,
    pairs: _Pairs,
    radius_a: _Radius,
    radius_b: _Radius,
    extent_a: str,
    extent_b: str,
    tolerance: Optional[float],
    threads: Optional[int],
) -> Dict[str, np.ndarray]: ...
def crossing_pairs(set: _Side, skip_shared: bool, threads: Optional[int]) -> Dict[str, np.ndarray]: ...
def crossing_pairs64(
    set: npt.NDArray[np.float64], skip_shared: bool, threads: Optional[int]
) -> Dict[str, np.ndarray]: ...

class SegmentIndex:
    def __init__(self, set: _Side, threads: Optional[int]) -> None: ...
    def __len__(self) -> int: ...
    def first_hits(
        self, rays: _Side, radius: float, range: float, threads: Optional[int]
    ) -> Dict[str, np.ndarray]: ...
    def pairs_within(
        self, segments: _Side, radius: float, threads: Optional[int]
    ) -> Dict[str, np.ndarray]: ...

def simd_level() -> str: ...
def cpu_simd_level() -> str: ...
def cpu_has_x86_64_v3() -> bool: ...
def cpu_has_x86_64_v4() -> bool: ...
def simd_copies() -> Optional[List[str]]: ...
def rust_closest_points_seconds(
    a: npt.NDArray[np.float32],
    b: npt.NDArray[np.float32],
    reps: int,
    threads: Optional[int],
    allocate: bool = False,
    outputs: str = "all",
    input: str = "batches",
) -> float: ...

# The tests' oracle: one query of the crate on raw files (python/src/oracle.rs).
def _oracle(args: List[str]) -> None: ...
