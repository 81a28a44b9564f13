"""The set queries (2D crossing sets, index-pair narrow phase, capsule contacts, the reusable
SegmentIndex) against the Rust crate bit for bit (the extension's ``_oracle``), against brute force over
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
    # Columns (Fortran order), strided rows and uint32 pairs give the same.
    b2 = np.repeat(b, 2, axis=0)[::2]
    r = segbatch.closest_points_indexed(np.asfortranarray(a), b2, index_pairs.astype(np.uint32))
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


def shared_ends(s, i, j):
    a, b = s[i], s[j]
    eq = lambda u, v: (a[:, u] == b[:, v]) & (a[:, u + 1] == b[:, v + 1])
    return eq(0, 0) | eq(0, 2) | eq(2, 0) | eq(2, 2)


def test_crossing_pairs_skip_shared_endpoints_and_points():
    s = crossing_set(1200, seed=9)
    bi, bj, bs, bk = brute_crossings(s)
    keep = ~shared_ends(s, bi, bj)
    assert 0 < keep.sum() < len(bi)
    for threads in (1, None):
        h = segbatch.crossing_pairs(s, skip_shared_endpoints=True, threads=threads)
        same(h["i"], bi[keep])
        same(h["j"], bj[keep])
        same(h["s"], bs[keep])
        same(h["kind"], bk[keep])
    # The point is segments[i] at s.
    h = segbatch.crossing_pairs(s)
    a = s[h["i"]].astype(np.float64)
    want = a[:, :2] + h["s"][:, None] * (a[:, 2:] - a[:, :2])
    assert h["point"].dtype == np.float32 and h["point"].shape == (len(h["i"]), 2)
    finite = np.isfinite(want).all(axis=1)
    assert np.allclose(h["point"][finite], want[finite], rtol=1e-6, atol=1e-5)


def test_crossing_pairs_float64_at_utm_agree_with_shapely():
    # Streets cut at jittered nodes (shared ends exactly) and random lines, in UTM metres:
    # float64 stays float64, and the pairs are shapely's (GEOS decides exactly too).
    shapely = pytest.importorskip("shapely")
    rng = np.random.default_rng(5)
    n = 30
    x = 480_000 + np.arange(n)[:, None] * 50.0 + rng.uniform(-10, 10, (n, n))
    y = 4_990_000 + np.arange(n)[None, :] * 50.0 + rng.uniform(-10, 10, (n, n))
    streets = [
        np.stack([x[:-1], y[:-1], x[1:], y[1:]], axis=-1).reshape(-1, 4),
        np.stack([x[:, :-1], y[:, :-1], x[:, 1:], y[:, 1:]], axis=-1).reshape(-1, 4),
    ]
    p = np.stack([rng.uniform(480_000, 481_500, 400), rng.uniform(4_990_000, 4_991_500, 400)], -1)
    streets.append(np.concatenate([p, p + rng.normal(0, 60, (400, 2))], axis=1))
    s = np.ascontiguousarray(np.concatenate(streets))
    geoms = shapely.linestrings(s.reshape(-1, 2, 2))
    i, j = np.triu_indices(len(s), 1)
    meet = shapely.intersects(geoms[i], geoms[j])
    i, j = i[meet], j[meet]
    for skip in (False, True):
        h = segbatch.crossing_pairs(s, skip_shared_endpoints=skip)
        assert h["s"].dtype == np.float64 and h["point"].dtype == np.float64
        keep = ~shared_ends(s, i, j) if skip else np.ones(len(i), bool)
        assert set(zip(h["i"].tolist(), h["j"].tolist())) == set(zip(i[keep].tolist(), j[keep].tolist()))
    # A T-junction that misses by 1 mm at UTM northings: apart in float64.
    t = np.array([[500_000, 5_000_000, 500_010, 5_000_000],
                  [500_005, 5_000_000.001, 500_005, 5_000_010]], dtype=np.float64)
    assert len(segbatch.crossing_pairs(t)["i"]) == 0
    t[1, 1] = 5_000_000.0
    h = segbatch.crossing_pairs(t)
    assert h["point"].tolist() == [[500_005.0, 5_000_000.0]]


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


def first_hits_brute(walls, rays, r):
    """The first ``u >= 0`` (no end) at which a disc of radius ``r`` moving along each ray
    (``o + u·d``) touches each wall, in float64 numpy, for scenes in the plane z = 0: the
    walls' capsules are convex, so the first touch is ``u = 0`` when the origin is inside
    one, else the first crossing of its boundary (two discs at the ends, two offset sides).
    Returns ``(rays, walls)`` arrays of ``u`` (``inf`` where the ray never touches)."""
    w = walls.astype(np.float64)
    o, d = (x.astype(np.float64)[:, None, :2] for x in (rays[:, :3], rays[:, 3:] - rays[:, :3]))
    p, q = w[None, :, :2], w[None, :, 3:5]
    e = q - p
    # Inside at the start: the origin's distance to the wall.
    t = np.clip(((o - p) * e).sum(-1) / np.maximum((e * e).sum(-1), 1e-300), 0, 1)
    inside = (((o - p - t[..., None] * e) ** 2).sum(-1)) <= r * r
    best = np.where(inside, 0.0, np.inf)
    a = (d * d).sum(-1)
    for c in (p, q):  # the end discs
        f = o - c
        b, c0 = (f * d).sum(-1), (f * f).sum(-1) - r * r
        disc = b * b - a * c0
        with np.errstate(invalid="ignore"):
            u = (-b - np.sqrt(disc)) / a
        best = np.where((disc >= 0) & (u >= 0), np.minimum(best, u), best)
    n = np.stack([-e[..., 1], e[..., 0]], -1) / np.sqrt((e * e).sum(-1))[..., None]
    det = d[..., 0] * -e[..., 1] - d[..., 1] * -e[..., 0]  # o + u d = p + s n r + t e
    for side in (1.0, -1.0):
        g = p + side * r * n - o
        with np.errstate(divide="ignore", invalid="ignore"):
            u = (g[..., 0] * -e[..., 1] - g[..., 1] * -e[..., 0]) / det
            t = (d[..., 0] * g[..., 1] - d[..., 1] * g[..., 0]) / det
        ok = (det != 0) & (u >= 0) & (t >= 0) & (t <= 1)
        best = np.where(ok, np.minimum(best, u), best)
    return best


def test_segment_index_first_hits_without_end(walls_rays):
    # range = inf: the first hit along rays without end, against a float64 brute force;
    # every range past the scene gives the same answer.
    walls, rays = walls_rays
    # Rays inside the scene (each hits something, given no end) and rays leaving it.
    y = np.linspace(0, 50, 100, dtype=np.float32)[:, None]
    away = np.hstack([np.full_like(y, -1), y, 0 * y, np.full_like(y, -2), y + 0.5, 0 * y])
    rays = np.concatenate([rays[:500], away])
    index = segbatch.SegmentIndex(walls)
    r = 0.25
    h = index.first_hits(rays, r, float("inf"))
    for g in (1e4, 1e30):
        for k, v in index.first_hits(rays, r, g).items():
            same(v, h[k])
    u = first_hits_brute(walls, rays, r)
    first = u.min(axis=1)
    hit = np.isfinite(first)
    assert 0 < hit.sum() < len(rays), hit.sum()
    same(h["hit"], hit)
    k = np.flatnonzero(hit)
    scale = 1e-4 * (1 + first[k])
    assert (np.abs(h["u"][k] - first[k]) <= scale).all(), np.abs(h["u"][k] - first[k]).max()
    # The member hit is one whose own first touch is the first (up to ties within rounding).
    assert (u[k, h["index"][k]] - first[k] <= scale).all()
    # The contact point lies on the member hit, within the radius of the sphere's centre.
    centre = rays[k, :3] + h["u"][k, None] * (rays[k, 3:] - rays[k, :3])
    gap = np.linalg.norm(h["point"][k] - centre, axis=1)
    assert (gap <= r * (1 + 1e-4) + 1e-4).all(), gap.max()


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


def test_intersect2_float64_stays_float64():
    # The tutorial's crossing, and a T-junction that misses by 1 mm at UTM northings:
    # float32 rounds the gap away, float64 keeps it.
    a = np.array([[4, 7, 16, 3], [500_000, 5_000_000, 500_010, 5_000_000]], dtype=np.float64)
    b = np.array([[1, 1, 17, 5], [500_005, 5_000_000.001, 500_005, 5_000_010]], dtype=np.float64)
    r = segbatch.intersect2(a, b)
    assert r["kind"].tolist() == [1, 0]
    assert r["s"].dtype == np.float64 and r["point_a"].dtype == np.float64
    assert r["point_a"][0].tolist() == [13.0, 4.0] and r["s"][0] == 0.75
    assert abs(r["distance"][1] - 0.001) < 1e-9
    assert segbatch.intersect2(a.astype(np.float32), b.astype(np.float32))["kind"].tolist() == [1, 1]
    rng = np.random.default_rng(3)
    p = 480_000 + rng.uniform(0, 100, (5000, 4))
    q = 480_000 + rng.uniform(0, 100, (5000, 4))
    one = segbatch.intersect2(p, q, threads=1)
    for k, v in segbatch.intersect2(p, q).items():
        same(v, one[k])
    sub = segbatch.intersect2(p, q, outputs=["kind", "distance"])
    assert sorted(sub) == ["distance", "kind"]
    same(sub["distance"], one["distance"])
