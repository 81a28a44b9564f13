"""The binding returns the Rust crate's results bit for bit (float32 input), whatever the
input layout, the thread count and the chunking (sizes around the native chunk of 4096)."""

import numpy as np
import pytest

import segbatch
from conftest import hard_segments

N = 3 * 4096 + 13  # several chunks and a partial one


def same(x, y):
    x, y = np.asarray(x), np.asarray(y)
    assert x.dtype.itemsize == y.dtype.itemsize
    assert x.tobytes() == y.tobytes()


@pytest.fixture(scope="module")
def pairs():
    return hard_segments(N, seed=12)


@pytest.mark.parametrize("extents", [("segment", "segment"), ("ray", "segment"), ("line", "line")])
def test_closest_points(run_oracle, pairs, extents):
    a, b = pairs[:, :6], pairs[:, 6:]
    ref = run_oracle("closest", a, b, *extents,
                     names=dict(dist2="<f4", s="<f4", t="<f4", point_a="<f4", point_b="<f4", flags="u1"))
    layouts = {
        "rows": (np.ascontiguousarray(a), np.ascontiguousarray(b)),
        "fortran": (np.asfortranarray(a), np.asfortranarray(b)),
        "columns": (segbatch.SegmentColumns(a.T.copy()), segbatch.SegmentColumns(b.T.copy())),
        "points": (a.reshape(-1, 2, 3), b.reshape(-1, 2, 3)),
    }
    for name, (x, y) in layouts.items():
        for threads in (1, 2, None):
            r = segbatch.closest_points(x, y, extent_a=extents[0], extent_b=extents[1], threads=threads)
            for k in ref:
                same(r[k].ravel(), ref[k])
            same(r["distance"], np.sqrt(ref["dist2"]))


def test_other_dtypes_are_converted_once(run_oracle, pairs):
    a16, b16 = pairs[:, :6].astype(np.float16), pairs[:, 6:].astype(np.float16)
    ref = run_oracle("closest", a16.astype(np.float32), b16.astype(np.float32), "segment", "segment",
                     names=dict(dist2="<f4"))
    same(segbatch.closest_points(a16, b16, outputs="dist2")["dist2"], ref["dist2"])


def test_out_reused(pairs):
    a, b = pairs[:, :6], pairs[:, 6:]
    full = segbatch.closest_points(a, b)
    out = {k: np.full_like(v, 7) for k, v in full.items()}
    r = segbatch.closest_points(a, b, out=out)
    for k in full:
        assert r[k] is out[k]
        same(out[k], full[k])


def test_capsules(run_oracle, pairs):
    a, b = pairs[:, :6], pairs[:, 6:]
    ref = run_oracle("capsules", a, b, 0.5, 1.25, names=dict(touch="u1"))
    for threads in (1, None):
        same(segbatch.capsules_touch(a, b, 0.5, 1.25, threads=threads).view(np.uint8), ref["touch"])
    # per-pair radii equal to the uniform ones give the same mask
    ra, rb = np.full(N, 0.5), np.full(N, 1.25)
    same(segbatch.capsules_touch(a, b, ra, rb).view(np.uint8), ref["touch"])


def test_intersect2(run_oracle):
    p = hard_segments(N, seed=5, dim=2)
    a, b = p[:, :4], p[:, 4:]
    ref = run_oracle("intersect2", a, b, names=dict(kind="u1", s="<f4", t="<f4", s_end="<f4", t_end="<f4",
                                                    dist2="<f4", point_a="<f4", point_b="<f4", flags="u1"))
    for x, y in ((a, b), (np.asfortranarray(a), np.asfortranarray(b))):
        for threads in (1, None):
            r = segbatch.intersect2(x, y, threads=threads)
            for k in ref:
                same(r[k].ravel(), ref[k])


@pytest.mark.parametrize("query", ["cpa", "cpa_segments"])
def test_cpa(run_oracle, pairs, query):
    a, b = pairs[:, :6], pairs[:, 6:]
    args = (2.5,) if query == "cpa" else ()
    ref = run_oracle(query, a, b, *args, names=dict(t="<f4", dist2="<f4", point_a="<f4", point_b="<f4", flags="u1"))
    for threads in (1, None):
        if query == "cpa":
            r = segbatch.cpa(a, b, window=2.5, threads=threads)
        else:
            r = segbatch.cpa_segments(a, b, threads=threads)
        for k in ref:
            same(r[k].ravel(), ref[k])


@pytest.mark.parametrize("query", ["first_contact", "first_contact_segments"])
def test_first_contact(run_oracle, pairs, query):
    a, b = pairs[:, :6], pairs[:, 6:]
    args = (0.5, 0.75, 3.0) if query == "first_contact" else (0.5, 0.75)
    ref = run_oracle(query, a, b, *args, names=dict(hit="u1", t="<f4", flags="u1"))
    for threads in (1, None):
        if query == "first_contact":
            r = segbatch.first_contact(a, b, 0.5, 0.75, window=3.0, threads=threads)
        else:
            r = segbatch.first_contact_segments(a, b, 0.5, 0.75, threads=threads)
        same(r["hit"].view(np.uint8), ref["hit"])
        same(r["t"], ref["t"])
        same(r["flags"], ref["flags"])


def test_pairs_within(run_oracle, pairs):
    a, b = pairs[:700, :6], pairs[:900, 6:]
    names = dict(i="<u8", j="<u8", dist2="<f4", s="<f4", t="<f4")
    ref = run_oracle("pairs_within", a, b, 1.5, names=names)
    assert len(ref["i"]) > 100
    for threads in (1, None):
        r = segbatch.pairs_within(a, b, 1.5, threads=threads)
        assert r["i"].dtype == np.int64
        for k in ref:
            same(r[k].astype(ref[k].dtype) if k in "ij" else r[k], ref[k])


@pytest.mark.parametrize("skip", [0, 1])
def test_self_pairs_within(run_oracle, pairs, skip):
    s = pairs[:1500, :6]
    names = dict(i="<u8", j="<u8", dist2="<f4", s="<f4", t="<f4")
    ref = run_oracle("self_pairs_within", s, s, 1.0, skip, names=names)
    assert len(ref["i"]) > 100
    r = segbatch.self_pairs_within(s, 1.0, skip_shared_endpoints=bool(skip))
    for k in ref:
        same(r[k].astype(ref[k].dtype) if k in "ij" else r[k], ref[k])


def test_empty():
    e = np.zeros((0, 6), np.float32)
    r = segbatch.closest_points(e, e)
    assert all(len(v) == 0 for v in r.values())
    assert len(segbatch.pairs_within(e, e, 1.0)["i"]) == 0


def test_dist2_matrix_equals_pairwise(pairs):
    a, b = pairs[:300, :6], pairs[:200, 6:]
    m = segbatch.dist2_matrix(a, b)
    assert m.shape == (300, 200)
    pairwise = segbatch.closest_points(np.repeat(a, 200, axis=0), np.tile(b, (300, 1)), outputs="dist2")
    same(m.ravel(), pairwise["dist2"])
    same(segbatch.dist2_matrix(a, b, threads=1), m)


def test_gil_released_during_the_computation():
    import threading

    rng = np.random.default_rng(0)
    a = rng.random((1 << 22, 6), dtype=np.float32)
    b = a[::-1].copy()  # contiguous: no Python-side work before the native call
    done = []
    t = threading.Thread(target=lambda: done.append(segbatch.closest_points(a, b, threads=1)))
    ticks = 0
    t.start()
    while t.is_alive():
        ticks += 1
    assert done
    # A native call holding the GIL would stop this loop for its whole duration (hundreds
    # of ms); released, the loop runs all along (about a million ticks a second).
    assert ticks > 100_000, ticks
