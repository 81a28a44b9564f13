"""Bad input raises TypeError or ValueError with a clear message, never crashes."""

import numpy as np
import pytest

import segbatch

A = np.zeros((4, 6), np.float32)


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: segbatch.closest_points(np.zeros((4, 5)), A), ValueError, r"shape \(N, 2, 3\) or \(N, 6\)"),
        (lambda: segbatch.closest_points(np.zeros((4, 2, 2)), A), ValueError, "shape"),
        (lambda: segbatch.closest_points(np.zeros(6), A), ValueError, "shape"),
        (lambda: segbatch.closest_points(A, np.zeros((5, 6))), ValueError, "same number of rows"),
        (lambda: segbatch.closest_points(A.astype(complex), A), TypeError, "not a real number type"),
        (lambda: segbatch.closest_points(A.astype(bool), A), TypeError, "not a real number type"),
        (lambda: segbatch.closest_points(np.array([["a"] * 6]), A[:1]), TypeError, "not a real number"),
        (lambda: segbatch.closest_points(A, A, extent_a="circle"), ValueError, "extent_a"),
        (lambda: segbatch.closest_points(A, A, outputs=["nope"]), ValueError, "unknown output"),
        (lambda: segbatch.closest_points(A, A, threads=0), ValueError, "threads"),
        (lambda: segbatch.closest_points(A, A, tolerance=-1), ValueError, "tolerance"),
        (lambda: segbatch.closest_points(A, A, out={"dist2": np.zeros(3, np.float32)}), ValueError, "4 rows"),
        (lambda: segbatch.closest_points(A, A, out={"dist2": np.zeros(4)}), TypeError, "float32"),
        (lambda: segbatch.closest_points(A, A, out={"point_a": np.zeros((4, 2), np.float32)}), ValueError, "shape"),
        (lambda: segbatch.closest_points(A, A, out={"dist2": np.zeros(8, np.float32)[::2]}), ValueError, "contiguous"),
        (lambda: segbatch.capsules_touch(A, A, -1.0, 0.5), ValueError, "negative"),
        (lambda: segbatch.capsules_touch(A, A, np.array([0.5, 0.5, np.nan, 0.5]), 0.5), ValueError, r"radius_a\[2\] is negative or NaN"),
        (lambda: segbatch.capsules_touch(A, A, np.ones(3), 0.5), ValueError, "4 radii"),
        (lambda: segbatch.pairs_within(A, A, -0.5), ValueError, ">= 0"),
        (lambda: segbatch.pairs_within(A, A, float("nan")), ValueError, ">= 0"),
        (lambda: segbatch.pairs_within(A, A, "1"), TypeError, "number"),
        (lambda: segbatch.intersect2(A, A), ValueError, r"\(N, 2, 2\) or \(N, 4\)"),
        (lambda: segbatch.cpa(A, A, window=-1), ValueError, "window"),
        (lambda: segbatch.first_contact(A, A, 0.5, -0.5), ValueError, "negative"),
        (lambda: segbatch.SegmentColumns([np.zeros(3)] * 5), ValueError, "4 .2D. or 6"),
        (lambda: segbatch.SegmentColumns([np.zeros(3)] * 5 + [np.zeros(4)]), ValueError, "column 5"),
    ],
)
def test_bad_input_raises(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_non_finite_is_flagged_not_raised():
    a = A.copy()
    a[1, 2] = np.nan
    r = segbatch.closest_points(a, A)
    assert np.isnan(r["distance"][1]) and r["flags"][1] == segbatch.FLAGS["non_finite"]
    assert np.all(r["distance"][[0, 2, 3]] == 0)


def test_input_not_written_and_not_copied():
    a = np.ascontiguousarray(np.random.default_rng(0).random((100, 6), dtype=np.float32))
    before = a.copy()
    assert segbatch.as_segments(a) is a
    f = np.asfortranarray(a)
    cols = segbatch.as_segments(f)
    assert all(np.shares_memory(c, f) for c in cols)
    segbatch.closest_points(a, f)
    assert np.array_equal(a, before)
