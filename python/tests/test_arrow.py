"""Arrow and Parquet input: six float32 columns or a FixedSizeList, read without a copy."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import segbatch
import segbatch.arrow as sa
from conftest import hard_segments


def table(p):
    return pa.table({k: pa.array(p[:, i]) for i, k in enumerate(sa.SEGMENT_COLUMNS)})


def test_columns_are_zero_copy_and_equal():
    p = hard_segments(5000, seed=3)
    ta, tb = table(p[:, :6]), table(p[:, 6:])
    ca, cb = sa.columns(ta), sa.columns(tb)
    for k, name in enumerate(sa.SEGMENT_COLUMNS):
        buf = ta.column(name).chunk(0).buffers()[1]
        assert ca.columns[k].ctypes.data == buf.address  # the Arrow buffer itself
    ref = segbatch.closest_points(p[:, :6], p[:, 6:])
    got = segbatch.closest_points(ca, cb)
    for k in ref:
        assert ref[k].tobytes() == got[k].tobytes()


def test_fixed_size_list_and_parquet(tmp_path):
    p = hard_segments(3000, seed=4)
    a = pa.FixedSizeListArray.from_arrays(pa.array(p[:, :6].ravel()), 6)
    t = pa.table({"seg": a})
    arr = sa.columns(t, "seg")
    assert arr.ctypes.data == a.values.buffers()[1].address
    ref = segbatch.distance(p[:, :6], p[:, 6:])
    assert segbatch.distance(arr, p[:, 6:]).tobytes() == ref.tobytes()
    pq.write_table(table(p[:, :6]), tmp_path / "a.parquet")
    cols = sa.read_parquet(tmp_path / "a.parquet")
    assert segbatch.distance(cols, p[:, 6:]).tobytes() == ref.tobytes()


def test_float64_and_nulls_are_converted():
    t = pa.table({k: pa.array([0.0, None, 2.0], pa.float64()) for k in sa.SEGMENT_COLUMNS})
    d = segbatch.distance(sa.columns(t), np.zeros((3, 6), np.float32))
    assert d[0] == 0 and np.isnan(d[1]) and d[2] > 0
    assert d.dtype == np.float64  # float64 columns stay float64


def test_float64_columns_are_not_copied():
    t = pa.table({k: pa.array([0.0, 1.0, 4.99e6], pa.float64()) for k in sa.SEGMENT_COLUMNS})
    cols = sa.columns(t)
    assert cols.dtype == np.float64
    for k, c in zip(sa.SEGMENT_COLUMNS, cols.columns):
        assert c.ctypes.data == t.column(k).chunk(0).buffers()[1].address
