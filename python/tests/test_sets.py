"""The set queries (2D crossing sets, index-pair narrow phase, capsule contacts, the reusable
SegmentIndex) against the Rust crate bit for bit (python/oracle), against brute force over
the pairwise functions, and against shapely; their errors."""

import numpy as np
import pytest

import segbatch
from conftest import hard_segments, lines


def same(x, y):
    x, y = np.asarray(x), np.asarray(y)
    assert x.dtype.itemsize == y.dtype.itemsize
    assert x.shape[0] == y.shape[0]
    assert x.tobytes() == y.tobytes()


@pytest.fixture(scope="module")
def sets():
    """Two 3D sets with hard cases (NaN and inf included), and short segments that meet."""
    p = hard_segments(1500, seed=31)
    rng = np.random.default_rng(5)
    start = rng.uniform(0, 20, (1500, 3)).astype(np.float32)
    short = np.concatenate([start, start + rng.normal(0, 1, (1500, 3)).astype(np.float32)], axis=1)
    a = np.concatenate([p[:, :6], short])
    b = np.concatenate([p[:, 6:], short[::-1]])
    return np.ascontiguousarray(a), np.ascontiguousarray(b)


@pytest.fixture(scope="module")
def index_pairs(sets):
    a, b = sets
    rng = np.random.default_rng(9)
    k = 20_000
    return np.stack([rng.integers(0, len(a), k), rng.integers(0, len(b), k)], axis=1)  # int64


def pairs_file(tmp_path, p):
    path = tmp_path / "pairs.u32"
    np.ascontiguousarray(p, dtype="<u4").tofile(path)
    return path


CLOSEST = dict(dist2="<f4", s="<f4", t="<f4", point_a="<f4", point_b="<f4", flags="u1")


def test_closest_points_indexed(run_oracle, sets, index_pairs, tmp_path):
    a, b = sets
    ref = run_oracle("closest_indexed", a, b, pairs_file(tmp_path, index_pairs), names=CLOSEST)
    gathered = segbatch.closest_points(a[index_pairs[:, 0]], b[index_pairs[:, 1]])
    for threads in (1, 2, None):
        r = segbatch.closest_points_indexed(a, b, index_pairs, threads=threads)
        for k, v in ref.items():
            same(r[k].reshape(-1), v)
            same(r[k], gathered[k])
        same(r["distance"], np.sqrt(r["dist2"]))
    # Columns (Fortran order) and float64 give the same.
    r = segbatch.closest_points_indexed(np.asfortranarray(a), b.astype(np.float64), index_pairs.astype(np.uint32))
    same(r["dist2"], ref["dist2"])


def test_capsules_touch_indexed(run_oracle, sets, index_pairs, tmp_path):
    a, b = sets
    ref = run_oracle("capsules_indexed", a, b, pairs_file(tmp_path, index_pairs), 0.5, 0.25, names=dict(touch="u1"))
    for threads in (1, None):
        r = segbatch.capsules_touch_indexed(a, b, index_pairs, 0.5, 0.25, threads=threads)
        assert r.dtype == np.bool_
        same(r.astype(np.uint8), ref["touch"])
    assert 0 < r.sum() < len(r)
    # Per-object radii: against the pairwise function on the gathered pairs, radii per pair.
    ra = np.linspace(0, 1, len(a), dtype=np.float32)
    rb = np.linspace(1, 0, len(b), dtype=np.float32)
    i, j = index_pairs[:, 0], index_pairs[:, 1]
    want = segbatch.capsules_touch(a[i], b[j], ra[i], rb[j])
    same(segbatch.capsules_touch_indexed(a, b, index_pairs, ra, rb), want)


def test_capsule_contacts(run_oracle, sets, index_pairs, tmp_path):
    a, b = sets
    names = dict(pair="<u8", i="<u8", j="<u8", normal="<f4", depth="<f4", point_a="<f4", point_b="<f4")
    ref = run_oracle("contacts", a, b, pairs_file(tmp_path, index_pairs), 0.5, 0.25, names=names)
    touch = segbatch.capsules_touch_indexed(a, b, index_pairs, 0.5, 0.25)
    for threads in (1, 2, None):
        c = segbatch.capsule_contacts(a, b, index_pairs, 0.5, 0.25, threads=threads)
        assert c["pair"].dtype == np.int64 and c["normal"].shape == (len(c["pair"]), 3)
        for k, v in ref.items():
            same(c[k].reshape(-1), v)
    # Exactly the touching pairs (one or two contacts each: two for nearly parallel
    # overlapping capsules, whose points lie at their own depths); unit normals; none
    # deeper than rA + rB. The values are the crate's, bit for bit (above).
    same(np.unique(c["pair"]), np.flatnonzero(touch))
    assert np.bincount(c["pair"]).max() <= 2
    # Each contact names its objects: the row of its pair.
    rows = np.asarray(index_pairs).reshape(-1, 2)[c["pair"]]
    same(c["i"], rows[:, 0])
    same(c["j"], rows[:, 1])
    finite = np.isfinite(c["depth"])
    assert np.allclose(np.linalg.norm(c["normal"][finite], axis=1), 1, atol=1e-6)
    assert np.all(c["depth"][finite] <= 0.75 + 1e-5)


def crossing_set(n, seed):
    """A 2D set: random segments, integer-grid segments (exact touchings, T-junctions,
    collinear overlaps, points) and the hard 2D cases (NaN and inf included)."""
    rng = np.random.default_rng(seed)
    p = hard_segments(n // 2, seed=seed, dim=2)
    s = np.concatenate([p[:, :4], p[:, 4:]])
    grid = rng.random(len(s)) < 0.3
    s[grid] = rng.integers(-3, 4, (grid.sum(), 4)).astype(np.float32)
    return np.ascontiguousarray(s)


def brute_crossings(s):
    n = len(s)
    i, j = np.triu_indices(n, 1)
    r = segbatch.intersect2(s[i], s[j], outputs=["kind", "s"])
    keep = r["kind"] != 0
    return i[keep], j[keep], r["s"][keep], r["kind"][keep]


def test_crossing_pairs(run_oracle, tmp_path):
    s = crossing_set(1200, seed=8)
    ref = run_oracle("crossing_pairs", s, s, names=dict(i="<u8", j="<u8", s="<f4", kind="u1"))
    bi, bj, bs, bk = brute_crossings(s)
    assert len(bi) > 1000
    for threads in (1, 2, None):
        h = segbatch.crossing_pairs(s, threads=threads)
        assert h["i"].dtype == np.int64
        for k, v in ref.items():
            same(h[k], v)
        same(h["i"], bi)
        same(h["j"], bj)
        same(h["s"], bs)
        same(h["kind"], bk)
    same(segbatch.crossing_pairs(s.reshape(-1, 2, 2))["j"], bj)


def test_crossing_pairs_agree_with_shapely():
    # Random and integer-grid segments (exact touchings, T-junctions, collinear overlaps and
    # gaps, points): the hard near-touching cases are within intersect2's touching
    # tolerance, where shapely's exact predicate may differ (see test_shapely.py).
    shapely = pytest.importorskip("shapely")
    rng = np.random.default_rng(21)
    s = rng.uniform(-10, 10, (800, 4)).astype(np.float32)
    grid = rng.random(800) < 0.5
    s[grid] = rng.integers(-3, 4, (grid.sum(), 4)).astype(np.float32)
    h = segbatch.crossing_pairs(s)
    geoms = lines(s)
    i, j = np.triu_indices(len(s), 1)
    meet = shapely.intersects(geoms[i], geoms[j])
    want = set(zip(i[meet].tolist(), j[meet].tolist()))
    got = set(zip(h["i"].tolist(), h["j"].tolist()))
    assert len(want) > 500
    assert got == want


@pytest.fixture(scope="module")
def walls_rays():
    rng = np.random.default_rng(17)
    start = rng.uniform(0, 50, (3000, 3)).astype(np.float32)
    start[:, 2] = 0
    end = start + rng.normal(0, 2, (3000, 3)).astype(np.float32)
    end[:, 2] = 0
    walls = np.concatenate([start, end], axis=1)
    o = rng.uniform(0, 50, (2000, 3)).astype(np.float32)
    o[:, 2] = 0
    d = rng.normal(0, 1, (2000, 3)).astype(np.float32)
    d[:, 2] = 0
    rays = np.concatenate([o, o + d], axis=1)
    return walls, rays


def test_segment_index_first_hits(run_oracle, walls_rays):
    walls, rays = walls_rays
    ref = run_oracle("first_hits", walls, rays, 0.25, 3.0, names=dict(index="<i8", u="<f4", point="<f4"))
    index = segbatch.SegmentIndex(walls)
    assert len(index) == len(walls)
    for threads in (1, 2, None):
        h = index.first_hits(rays, 0.25, 3.0, threads=threads)
        for k, v in ref.items():
            same(h[k].reshape(-1), v)
        same(h["hit"], h["index"] >= 0)
    assert 0 < h["hit"].sum() < len(rays)
    # Brute force over the pairwise functions: the first hit's member is within the radius of the ray's sweep, and no
    # member comes within the radius of the sweep cut just before the hit.
    # (Rays whose first hit is at u = 0 start touching a wall: nothing is before them.)
    k = np.flatnonzero(h["hit"] & (h["u"] > 0))[:200]
    assert len(k) == 200
    o, d = rays[k, :3], rays[k, 3:] - rays[k, :3]
    sweep = np.concatenate([o, o + 3.0 * d], axis=1)
    assert (segbatch.distance(sweep, walls[h["index"][k]]) <= 0.25 * (1 + 1e-5)).all()
    before = np.concatenate([o, o + (h["u"][k] * (1 - 1e-3))[:, None] * d], axis=1)
    near = segbatch.pairs_within(before, walls, 0.25 * (1 - 1e-3))
    assert len(near["i"]) == 0
    # Built on two threads: the same index.
    same(segbatch.SegmentIndex(walls, threads=2).first_hits(rays, 0.25, 3.0)["u"], h["u"])


def test_segment_index_pairs_within(run_oracle, walls_rays):
    walls, rays = walls_rays
    index = segbatch.SegmentIndex(walls)
    ref = run_oracle("index_pairs_within", walls, rays, 1.5,
                     names=dict(i="<u8", j="<u8", dist2="<f4", s="<f4", t="<f4"))
    want = segbatch.pairs_within(rays, walls, 1.5)
    assert len(want["i"]) > 100
    for threads in (1, None):
        h = index.pairs_within(rays, 1.5, threads=threads)
        for k, v in ref.items():
            same(h[k], v)
            same(h[k], want[k])


def test_set_query_errors(sets):
    a, b = sets
    p = np.array([[0, 1], [2, 3]])
    with pytest.raises(ValueError, match=r"pairs: expected shape \(K, 2\)"):
        segbatch.closest_points_indexed(a, b, np.zeros((3, 3), dtype=np.int64))
    with pytest.raises(TypeError, match="pairs: expected an integer array"):
        segbatch.closest_points_indexed(a, b, p.astype(np.float32))
    with pytest.raises(ValueError, match=r"pairs: row 1 names b\[3000\], but b has 3000 segments"):
        segbatch.capsules_touch_indexed(a, b, [[0, 0], [1, 3000]], 0.5, 0.5)
    with pytest.raises(ValueError, match=r"pairs: row 0 names a\[-1\]"):
        segbatch.capsule_contacts(a, b, [[-1, 0]], 0.5, 0.5)
    with pytest.raises(ValueError, match="radius_a: expected a number or 3000 radii"):
        segbatch.capsule_contacts(a, b, p, np.ones(5), np.ones(len(b)))
    with pytest.raises(ValueError, match="radius_b is negative"):
        segbatch.capsules_touch_indexed(a, b, p, 0.5, -1.0)
    with pytest.raises(ValueError, match=r"expected shape \(N, 2, 2\) or \(N, 4\)"):
        segbatch.crossing_pairs(a)
    with pytest.raises(ValueError, match="threads must be an integer >= 1"):
        segbatch.crossing_pairs(a[:, :4], threads=0)
    index = segbatch.SegmentIndex(a[:10])
    with pytest.raises(ValueError, match="range must be >= 0"):
        index.first_hits(b, 0.5, -1.0)
    with pytest.raises(ValueError, match="radius must be finite, got inf"):
        index.first_hits(b, float("inf"), 1.0)
    with pytest.raises(ValueError, match="radius must be >= 0"):
        index.pairs_within(b, float("nan"))
    with pytest.raises(TypeError, match="radius: expected a number"):
        index.pairs_within(b, "1")
    # Empty inputs give empty results.
    assert len(segbatch.closest_points_indexed(a, b, np.zeros((0, 2), dtype=np.int64))["dist2"]) == 0
    assert len(segbatch.crossing_pairs(np.zeros((0, 4), dtype=np.float32))["i"]) == 0
    assert len(segbatch.SegmentIndex(np.zeros((0, 6), dtype=np.float32)).first_hits(b, 1, 1)["hit"]) == 3000
