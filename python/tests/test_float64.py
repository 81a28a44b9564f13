"""float64 in, float64 out: the functions with a float64 path return, for float64 input, the
Rust crate's queries on f64 batches (``closest_points``, ``cpa``/``cpa_segments``,
``pairs_within``, ``self_pairs_within``) bit for bit, in float64 columns, whatever the
layout and the thread count; float32 input still gives float32; one float64 side makes the
query run in float64."""

import numpy as np
import pytest

import segbatch
from conftest import hard_segments

N = 2 * 4096 + 29  # several chunks and a partial one
F64 = "<f8"
CLOSEST = dict(dist2=F64, s=F64, t=F64, point_a=F64, point_b=F64, flags="u1")
CPA = dict(t=F64, dist2=F64, point_a=F64, point_b=F64, flags="u1")
HITS = dict(i="<u8", j="<u8", dist2=F64, s=F64, t=F64)


def same(x, y):
    x, y = np.asarray(x), np.asarray(y)
    assert x.dtype == y.dtype
    assert x.tobytes() == y.tobytes()


@pytest.fixture(scope="module")
def pairs():
    """float64 pairs that float32 cannot hold: the test kit's hard cases, nudged off the
    float32 grid, half of them moved to UTM coordinates (x 480 km, y 4,990 km)."""
    p = hard_segments(N, seed=21).astype(np.float64) * (1 + 2.0**-40)
    p[: N // 2] += np.tile([480_000.0, 4_990_000.0, 0.0], 4)
    return p


def layouts(a, b):
    return {
        "rows": (np.ascontiguousarray(a), np.ascontiguousarray(b)),
        "fortran": (np.asfortranarray(a), np.asfortranarray(b)),
        "columns": (segbatch.SegmentColumns(a.T.copy()), segbatch.SegmentColumns(b.T.copy())),
        "strided": (np.repeat(a, 2, axis=0)[::2], np.repeat(b, 2, axis=0)[::2]),
    }


@pytest.mark.parametrize("extents", [("segment", "segment"), ("ray", "segment"), ("line", "line")])
def test_closest_points(run_oracle, pairs, extents):
    a, b = pairs[:, :6], pairs[:, 6:]
    ref = run_oracle("closest64", a, b, *extents, names=CLOSEST, dtype=F64)
    for name, (x, y) in layouts(a, b).items():
        for threads in (1, None):
            r = segbatch.closest_points(x, y, extent_a=extents[0], extent_b=extents[1], threads=threads)
            for k in ref:
                same(r[k].ravel(), ref[k])
            same(r["distance"], np.sqrt(ref["dist2"]))
    same(segbatch.distance(a, b, extent_a=extents[0], extent_b=extents[1]), np.sqrt(ref["dist2"]))


def test_out_arrays_are_float64(pairs):
    a, b = pairs[:, :6], pairs[:, 6:]
    full = segbatch.closest_points(a, b)
    out = {k: np.full_like(v, 7) for k, v in full.items()}
    r = segbatch.closest_points(a, b, out=out)
    for k in full:
        assert r[k] is out[k]
        same(out[k], full[k])
    with pytest.raises(TypeError, match="float64"):
        segbatch.closest_points(a, b, out={"dist2": np.empty(N, np.float32)})


def test_mixed_dtypes_run_in_float64(run_oracle, pairs):
    a, b32 = pairs[:, :6], pairs[:, 6:].astype(np.float32)
    ref = run_oracle("closest64", a, b32.astype(np.float64), "segment", "segment", names=CLOSEST, dtype=F64)
    for x, y in ((a, b32), (segbatch.SegmentColumns(a.T.copy()), b32)):
        r = segbatch.closest_points(x, y)
        for k in ref:
            same(r[k].ravel(), ref[k])
    r = segbatch.closest_points(b32, a)  # either side
    same(r["dist2"], segbatch.closest_points(b32.astype(np.float64), a)["dist2"])


def test_float32_stays_float32(run_oracle, pairs):
    a, b = pairs[:, :6].astype(np.float32), pairs[:, 6:].astype(np.float32)
    ref = run_oracle("closest", a, b, "segment", "segment", names=dict(dist2="<f4", point_a="<f4"))
    r = segbatch.closest_points(a, b)
    same(r["dist2"], ref["dist2"])
    same(r["point_a"].ravel(), ref["point_a"])
    assert segbatch.cpa(a, b)["t"].dtype == np.float32
    assert segbatch.pairs_within(a[:50], b[:50], 1.0)["dist2"].dtype == np.float32
    # integers and float16 are converted to float32, as are lists
    grid = np.arange(12).reshape(2, 6)
    assert segbatch.distance(grid.astype(np.int32), grid.astype(np.float16)).dtype == np.float32
    assert segbatch.distance([[0, 0, 0, 1, 0, 0]], [[0, 1, 0, 1, 1, 0]]).dtype == np.float32


@pytest.mark.parametrize("query", ["cpa", "cpa_segments"])
def test_cpa(run_oracle, pairs, query):
    a, b = pairs[:, :6], pairs[:, 6:]
    args = (2.5,) if query == "cpa" else ()
    ref = run_oracle(query + "64", a, b, *args, names=CPA, dtype=F64)
    for name, (x, y) in layouts(a, b).items():
        for threads in (1, None):
            if query == "cpa":
                r = segbatch.cpa(x, y, window=2.5, threads=threads)
            else:
                r = segbatch.cpa_segments(x, y, threads=threads)
            for k in ref:
                same(r[k].ravel(), ref[k])
            same(r["distance"], np.sqrt(ref["dist2"]))


def test_pairs_within(run_oracle, pairs):
    # Near the origin and at UTM coordinates: the pairs of each half meet.
    a = np.concatenate([pairs[:300, :6], pairs[N // 2 : N // 2 + 300, :6]])
    b = np.concatenate([pairs[:400, 6:], pairs[N // 2 : N // 2 + 400, 6:]])
    ref = run_oracle("pairs_within64", a, b, 1.5, names=HITS, dtype=F64)
    assert len(ref["i"]) > 100 and (ref["i"] >= 300).any()
    for name, (x, y) in layouts(a, b).items():
        for threads in (1, None):
            r = segbatch.pairs_within(x, y, 1.5, threads=threads)
            assert r["i"].dtype == np.int64
            for k in ref:
                same(r[k].astype(ref[k].dtype) if k in "ij" else r[k], ref[k])


@pytest.mark.parametrize("skip", [False, True])
def test_self_pairs_within(run_oracle, pairs, skip):
    s = np.concatenate([pairs[:400, :6], pairs[N // 2 : N // 2 + 400, 6:]])
    ref = run_oracle("self_pairs_within64", s, s[:1], 1.0, int(skip), names=HITS, dtype=F64)
    assert len(ref["i"]) > 50
    for name, (x, _) in layouts(s, s).items():
        for threads in (1, None):
            r = segbatch.self_pairs_within(x, 1.0, skip_shared_endpoints=skip, threads=threads)
            for k in ref:
                same(r[k].astype(ref[k].dtype) if k in "ij" else r[k], ref[k])


def test_utm_worked_case():
    # Two 1 m segments 0.3 m apart at x = 480 km, y = 4,990 km (UTM metres).
    a = np.array([[480_000.0, 4_990_000.0, 0, 480_001.0, 4_990_000.0, 0]])
    b = np.array([[480_000.0, 4_990_000.3, 0, 480_001.0, 4_990_000.3, 0]])
    d64 = segbatch.distance(a, b)
    assert d64.dtype == np.float64
    assert abs(d64[0] - 0.3) < 1e-9  # 4,990,000.3 is held to 1e-9 m in float64
    # float32 spacing at 4,990,000 is 0.5 m: y = 4,990,000.3 rounds to 4,990,000.5.
    d32 = segbatch.distance(a.astype(np.float32), b.astype(np.float32))
    assert d32.dtype == np.float32 and d32[0] == 0.5
    h = segbatch.pairs_within(a, b, 0.35)
    assert h["i"].tolist() == [0] and abs(np.sqrt(h["dist2"][0]) - 0.3) < 1e-9
    assert len(segbatch.pairs_within(a.astype(np.float32), b.astype(np.float32), 0.35)["i"]) == 0
    r = segbatch.cpa_segments(a, b)  # both move +x by 1 m: the same velocity, t = 0
    assert r["t"].dtype == np.float64 and abs(r["distance"][0] - 0.3) < 1e-9
    # capsules of radius 0.16 touch (0.32 >= 0.3); in float32 they are 0.5 apart
    assert segbatch.capsules_touch(a, b, 0.16, 0.16).tolist() == [True]
    assert segbatch.capsules_touch(a.astype(np.float32), b.astype(np.float32), 0.16, 0.16).tolist() == [False]


def test_capsules_touch(run_oracle, pairs):
    a, b = pairs[:, :6], pairs[:, 6:]
    ref = run_oracle("capsules64", a, b, 0.5, 1.25, names=dict(touch="u1"), dtype=F64)
    for name, (x, y) in layouts(a, b).items():
        for threads in (1, None):
            same(segbatch.capsules_touch(x, y, 0.5, 1.25, threads=threads).view(np.uint8), ref["touch"])
    # per-pair radii (float64 on this path) equal to the uniform ones give the same mask
    ra, rb = np.full(N, 0.5, np.float32), np.full(N, 1.25)
    same(segbatch.capsules_touch(a, b, ra, rb).view(np.uint8), ref["touch"])


def test_segment_index(run_oracle, pairs):
    walls = np.concatenate([pairs[:2000, :6], pairs[N // 2 : N // 2 + 2000, :6]])
    rays = np.concatenate([pairs[:1500, 6:], pairs[N // 2 : N // 2 + 1500, 6:]])
    names = dict(index="<i8", u=F64, point=F64)
    ref = run_oracle("first_hits64", walls, rays, 0.25, 30.0, names=names, dtype=F64)
    assert (ref["index"] >= 0).sum() > 100
    for name, (w, r) in layouts(walls, rays).items():
        index = segbatch.SegmentIndex(w)
        assert len(index) == len(walls)
        for threads in (1, None):
            h = index.first_hits(r, 0.25, 30.0, threads=threads)
            same(h["index"], ref["index"])
            same(h["u"], ref["u"])
            same(h["point"].ravel(), ref["point"])
            same(h["hit"], ref["index"] >= 0)
    # pairs_within of a float64 index (the crate's SegmentIndex64): the float64
    # pairs_within against its members
    index = segbatch.SegmentIndex(walls)
    ref = segbatch.pairs_within(rays, walls, 1.0)
    assert len(ref["i"]) > 10
    for threads in (1, None):
        r = index.pairs_within(rays, 1.0, threads=threads)
        assert r["dist2"].dtype == np.float64
        for k in ref:
            same(r[k], ref[k])
    # float32 walls keep a float32 index: float64 rays are rounded to it
    h = segbatch.SegmentIndex(walls.astype(np.float32)).first_hits(rays, 0.25, 30.0)
    assert h["u"].dtype == np.float32


@pytest.mark.parametrize("query", ["first_contact", "first_contact_segments"])
def test_first_contact(run_oracle, pairs, query):
    a, b = pairs[:, :6], pairs[:, 6:]
    args = (0.5, 0.75, 3.0) if query == "first_contact" else (0.5, 0.75)
    ref = run_oracle(query + "64", a, b, *args, names=dict(hit="u1", t=F64, flags="u1"), dtype=F64)
    for name, (x, y) in layouts(a, b).items():
        for threads in (1, None):
            if query == "first_contact":
                r = segbatch.first_contact(x, y, 0.5, 0.75, window=3.0, threads=threads)
            else:
                r = segbatch.first_contact_segments(x, y, 0.5, 0.75, threads=threads)
            same(r["hit"].view(np.uint8), ref["hit"])
            same(r["t"], ref["t"])
            same(r["flags"], ref["flags"])


@pytest.fixture(scope="module")
def index_pairs(pairs):
    rng = np.random.default_rng(9)
    return np.stack([rng.integers(0, N, 20_000), rng.integers(0, N, 20_000)], axis=1)


def test_indexed_queries(run_oracle, pairs, index_pairs, tmp_path):
    a, b = pairs[:, :6], pairs[:, 6:]
    path = tmp_path / "pairs.u32"
    np.ascontiguousarray(index_pairs, dtype="<u4").tofile(path)
    ref = run_oracle("closest_indexed64", a, b, path, names=CLOSEST, dtype=F64)
    names = dict(pair="<u8", normal=F64, depth=F64, point_a=F64, point_b=F64)
    contacts = run_oracle("contacts64", a, b, path, 0.5, 0.25, names=names, dtype=F64)
    ga, gb = a[index_pairs[:, 0]], b[index_pairs[:, 1]]
    touch = segbatch.capsules_touch(ga, gb, 0.5, 0.25)
    for threads in (1, None):
        r = segbatch.closest_points_indexed(a, b, index_pairs, threads=threads)
        for k in ref:
            same(r[k].ravel(), ref[k])
        same(r["distance"], np.sqrt(ref["dist2"]))
        same(segbatch.capsules_touch_indexed(a, b, index_pairs, 0.5, 0.25, threads=threads), touch)
        c = segbatch.capsule_contacts(a, b, index_pairs, 0.5, 0.25, threads=threads)
        for k in contacts:
            same(c[k].astype(contacts[k].dtype).ravel() if k == "pair" else c[k].ravel(), contacts[k])
    assert touch.sum() > 100


def test_dist2_matrix(pairs):
    a, b = pairs[:300, :6], pairs[N // 2 : N // 2 + 200, 6:]
    m = segbatch.dist2_matrix(a, b)
    assert m.dtype == np.float64 and m.shape == (300, 200)
    every = segbatch.closest_points(np.repeat(a, 200, axis=0), np.tile(b, (300, 1)), outputs="dist2")
    same(m.ravel(), every["dist2"])
    same(segbatch.dist2_matrix(a, b, threads=1), m)


def _byte_orders(x):
    """``x`` as big-endian arrays: contiguous, Fortran-ordered and strided."""
    big = x.astype(x.dtype.newbyteorder(">"))
    wide = np.zeros((2 * len(x), x.shape[1]), big.dtype)
    wide[::2] = x
    return {"big": big, "big-fortran": np.asfortranarray(big), "big-strided": wide[::2]}


# Every function with a float64 path, as f(a, b) on 3D inputs of equal length (2D for the
# crossings and intersect2: the first four columns).
BYTE_ORDER_CALLS = {
    "closest_points": lambda a, b: segbatch.closest_points(a, b),
    "distance": lambda a, b: segbatch.distance(a, b),
    "capsules_touch": lambda a, b: segbatch.capsules_touch(a, b, 0.5, 0.25),
    "cpa": lambda a, b: segbatch.cpa(a, b, window=3.0),
    "first_contact": lambda a, b: segbatch.first_contact(a, b, 0.5, 0.5),
    "pairs_within": lambda a, b: segbatch.pairs_within(a, b, 2.0),
    "self_pairs_within": lambda a, b: segbatch.self_pairs_within(a, 2.0),
    "dist2_matrix": lambda a, b: segbatch.dist2_matrix(a[:50], b[:40]),
    "closest_points_indexed": lambda a, b: segbatch.closest_points_indexed(a, b, [[0, 1], [5, 2]]),
    "capsule_contacts": lambda a, b: segbatch.capsule_contacts(a, b, [[0, 1], [5, 2]], 9.0, 9.0),
    "first_hits": lambda a, b: segbatch.SegmentIndex(b).first_hits(a, 0.25, 5.0),
    "index_pairs_within": lambda a, b: segbatch.SegmentIndex(b).pairs_within(a, 2.0),
    "crossing_pairs": lambda a, b: segbatch.crossing_pairs(a[:, :4]),
    "intersect2": lambda a, b: segbatch.intersect2(a[:, :4], b[:, :4]),
}


@pytest.mark.parametrize("name", sorted(BYTE_ORDER_CALLS))
def test_any_byte_order_and_strides_keep_the_precision(pairs, name):
    """A float64 array is float64 in and out whatever its byte order and strides (NumPy's
    ``dtype == np.float64`` is false for a big-endian ``'>f8'`` array, which must not be
    narrowed), and a float32 one float32: the native-order contiguous call's results, bit
    for bit."""
    call = BYTE_ORDER_CALLS[name]
    rng = np.random.default_rng(3)
    local = pairs[:300].copy()
    local[:, :6] = np.clip(local[:, :6], -20, 20)
    local[:, 6:] = local[:, :6] + rng.normal(0, 1, (300, 6))
    local = np.nan_to_num(local) + 0.1234567890123  # off the float32 grid
    for dtype in (np.float64, np.float32):
        a, b = local[:, :6].astype(dtype), local[:, 6:].astype(dtype)
        ref = call(a, b)
        floats = [v for v in (ref.values() if isinstance(ref, dict) else [ref]) if v.dtype.kind == "f"]
        assert all(v.dtype == dtype for v in floats), name  # capsules_touch: bool only
        for label, x in _byte_orders(a).items():
            y = _byte_orders(b)[label]
            for got in (call(x, y), call(x, b), call(a, y)):
                if isinstance(ref, dict):
                    assert got.keys() == ref.keys()
                    for k in ref:
                        same(got[k], ref[k])
                else:
                    same(got, ref)
    # SegmentColumns of big-endian float64 columns stay float64.
    cols = segbatch.SegmentColumns([c.astype(">f8") for c in local[:, :6].T])
    assert cols.dtype == np.float64
