"""Hostile use: outputs too large for memory, runaway thread counts and every memory layout
NumPy can hand over (unaligned, strided, broadcast); Ctrl-C during long calls is
test_ctrl_c.py."""

import os
import platform
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import segbatch

from conftest import hard_segments

RNG = np.random.default_rng(30)
SEG = hard_segments(3000, 5)[:, :6].copy()
SEG2 = hard_segments(3000, 6, dim=2)[:, :4].copy()


def unaligned(x: np.ndarray) -> np.ndarray:
    """A copy of float32 ``x`` at an address that is 2 mod 4 (as a Dask block from a byte
    stream can be): C-contiguous but not aligned."""
    raw = bytearray(x.nbytes + 2)
    u = np.frombuffer(raw, np.float32, x.size, offset=2).reshape(x.shape)
    u[...] = x
    assert not u.flags.aligned and u.flags.c_contiguous
    return u


def test_documented_unaligned_example_works_everywhere():
    u = np.frombuffer(bytearray(74), np.float32, 18, offset=2).reshape(3, 6)
    u2 = np.frombuffer(bytearray(50), np.float32, 12, offset=2).reshape(3, 4)
    z = np.zeros((3, 6), np.float32)
    assert np.array_equal(segbatch.distance(u, u), np.zeros(3, np.float32))
    segbatch.cpa(u, u)
    segbatch.self_pairs_within(u, 1.0)
    segbatch.pairs_within(u, z, 1.0)
    segbatch.dist2_matrix(u, u)
    segbatch.intersect2(u2, u2)
    segbatch.crossing_pairs(u2)
    segbatch.SegmentIndex(u).first_hits(u, 0.5, 1.0)


# Every function, as f(a, b) on 3D (or 2D) inputs of equal length.
CALLS = {
    "closest_points": lambda a, b: segbatch.closest_points(a, b),
    "capsules_touch": lambda a, b: segbatch.capsules_touch(a, b, 0.5, np.full(len(b), 0.25)),
    "cpa": lambda a, b: segbatch.cpa(a, b, window=3.0),
    "cpa_segments": lambda a, b: segbatch.cpa_segments(a, b),
    "first_contact": lambda a, b: segbatch.first_contact(a, b, 0.5, 0.5),
    "first_contact_segments": lambda a, b: segbatch.first_contact_segments(a, b, 0.5, 0.5),
    "pairs_within": lambda a, b: segbatch.pairs_within(a, b, 0.5),
    "self_pairs_within": lambda a, b: segbatch.self_pairs_within(a, 0.5),
    "dist2_matrix": lambda a, b: segbatch.dist2_matrix(a[:300], b[:200]),
    "closest_points_indexed": lambda a, b: segbatch.closest_points_indexed(a, b, [[0, 1], [5, 2]]),
    "capsule_contacts": lambda a, b: segbatch.capsule_contacts(a, b, [[0, 1], [5, 2]], 9.0, 9.0),
    "first_hits": lambda a, b: segbatch.SegmentIndex(b[:500]).first_hits(a, 0.25, 5.0),
    "index_pairs_within": lambda a, b: segbatch.SegmentIndex(b[:500]).pairs_within(a, 0.5),
}
CALLS2 = {
    "intersect2": lambda a, b: segbatch.intersect2(a, b),
    "crossing_pairs": lambda a, b: segbatch.crossing_pairs(a),
}


def same(x, y):
    if isinstance(x, dict):
        assert x.keys() == y.keys()
        for k in x:
            same(x[k], y[k])
    else:
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes()


def layouts(x: np.ndarray):
    """The same records as x in other layouts: unaligned, strided, reversed, Fortran."""
    wide = np.zeros((len(x) * 2, x.shape[1] + 3), np.float32)
    wide[::2, 1 : 1 + x.shape[1]] = x
    yield "unaligned", unaligned(x)
    yield "strided", wide[::2, 1 : 1 + x.shape[1]]
    yield "reversed", np.ascontiguousarray(x[::-1])[::-1]
    yield "fortran", np.asfortranarray(x)
    yield "transposed", np.ascontiguousarray(x.T).T


@pytest.mark.parametrize("name", sorted(CALLS) + sorted(CALLS2))
def test_every_layout_gives_the_contiguous_result(name):
    call, x = (CALLS[name], SEG) if name in CALLS else (CALLS2[name], SEG2)
    b = np.ascontiguousarray(x[::-1])
    ref = call(x, b)
    for label, y in layouts(x):
        same(call(y, b), ref)
        same(call(x, next(v for k, v in layouts(b) if k == label)), ref)


def test_broadcast_view_is_not_copied():
    # 20M pairs of a zero-stride view: a full copy would be 480 MB; the chunked read keeps
    # the call at the output (80 MB) plus cache-sized buffers.
    n = 20_000_000
    row = np.array([0, 0, 0, 1, 0, 0], np.float32)
    a = np.broadcast_to(row, (n, 6))
    b = np.broadcast_to(row + np.array([0, 1, 0, 0, 1, 0], np.float32), (n, 6))
    code = textwrap.dedent(
        f"""
        import resource, numpy as np, segbatch
        row = np.array([0, 0, 0, 1, 0, 0], np.float32)
        a = np.broadcast_to(row, ({n}, 6)); b = np.broadcast_to(row + np.array([0, 1, 0, 0, 1, 0], np.float32), ({n}, 6))
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        d = segbatch.distance(a, b, threads=2)
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        assert d.shape == ({n},) and float(d.min()) == float(d.max()) == 1.0
        print(grown)
        """
    )
    grown_kib = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert grown_kib < 160_000, f"peak grew by {grown_kib} KiB (output alone is 78 MiB)"
    small = segbatch.closest_points(a[:9000], b[:9000])
    same(small, segbatch.closest_points(np.ascontiguousarray(a[:9000]), np.ascontiguousarray(b[:9000])))


def test_huge_matrix_is_memory_error_not_abort():
    x = RNG.random((100_000, 6), dtype=np.float32)
    with pytest.raises(MemoryError, match="dist2_matrix output: 100000 x 100000 float32 needs 37.3 GiB"):
        segbatch.dist2_matrix(x, x)
    big = np.broadcast_to(x[0], (10**9, 6))  # 4e18 bytes: more than any machine
    with pytest.raises(MemoryError):
        segbatch.dist2_matrix(big, big)


def test_threads_clamped_with_warning_and_pools_bounded():
    x = SEG[:2000]
    ref = segbatch.distance(x, x[::-1])
    with pytest.warns(RuntimeWarning, match=r"threads=1000000000 is more than the \d+ CPUs"):
        got = segbatch.distance(x, x[::-1], threads=10**9)
    same(got, ref)
    code = textwrap.dedent(
        """
        import os, warnings, numpy as np, segbatch
        warnings.simplefilter("ignore")
        x = np.random.default_rng(0).random((20_000, 6), dtype=np.float32)
        for k in range(1, 41):
            segbatch.distance(x, x, threads=k)
            segbatch.self_pairs_within(x[:1000], 0.01, threads=k)
        print(len(os.listdir("/proc/self/task")), segbatch.MAX_THREADS)
        """
    )
    tasks, cpus = map(int, subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())
    # Main thread, rayon's global pool (none used here), at most MAX_POOLS pools of at most
    # `cpus` threads each.
    assert tasks <= 1 + cpus + segbatch.MAX_POOLS * cpus, tasks


def test_messages_name_the_real_problem():
    a = SEG[:4]
    with pytest.raises(ValueError, match=r"radius_b\[1\] is negative or NaN: -1"):
        segbatch.capsules_touch(a, a, 0.5, np.array([0.5, -1, 0.5, 0.5]))
    with pytest.raises(ValueError, match=r"radius_a\[3\] is negative or NaN: nan"):
        segbatch.first_contact(a, a, np.array([0.5, 1, 0.5, np.nan]), 0.5)
    with pytest.raises(ValueError, match=r"radius_b\[2\] is negative"):
        segbatch.capsules_touch_indexed(a, a, [[0, 1]], 0.5, np.array([0.5, 1, -0.5, 0.5]))
    with pytest.raises(ValueError, match=r"out\['dist2'\]: the array shares memory with input a"):
        segbatch.closest_points(a, a[::-1].copy(), out={"dist2": a[:, 2]})
    with pytest.raises(ValueError, match=r"out\['s'\]: the array shares memory with out\['dist2'\]"):
        buf = np.zeros(8, np.float32)
        segbatch.closest_points(a, a, out={"dist2": buf[:4], "s": buf[2:6]})
    ro = np.zeros(4, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match=r"out\['t'\]: the array is read-only"):
        segbatch.cpa(a, a, out={"t": ro})
    with pytest.raises(ValueError, match=r"out\['t'\]: the array's data is not aligned"):
        segbatch.cpa(a, a, out={"t": unaligned(np.zeros(4, np.float32))})
    with pytest.raises(ValueError, match="radius must be finite, got inf"):
        segbatch.SegmentIndex(a).first_hits(a, float("inf"), 1.0)


def test_version_and_signatures():
    import inspect

    assert segbatch.__version__ == segbatch._segbatch.__version__
    assert segbatch.__version__.count(".") == 2
    params = inspect.signature(segbatch.distance).parameters
    assert list(params) == ["a", "b", "extent_a", "extent_b", "tolerance", "threads"]
    for name in segbatch.__all__:
        f = getattr(segbatch, name)
        if callable(f) and not isinstance(f, type):
            sig = inspect.signature(f)
            assert all(p.kind is not p.VAR_KEYWORD for p in sig.parameters.values()), name
    native = inspect.signature(segbatch._segbatch.closest_points)
    assert list(native.parameters) == ["a", "b", "extent_a", "extent_b", "tolerance", "out", "threads"]


def test_simd_switch_picks_the_extension():
    import importlib.util

    def run(code, simd):
        env = {**os.environ, "SEGBATCH_SIMD": simd}
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)

    r = run("import segbatch; print(segbatch._native is segbatch._baseline, segbatch.SIMD_LEVEL)", "baseline")
    assert r.stdout.split()[0] == "True", r.stderr
    r = run("import segbatch", "avx9000")
    assert "SEGBATCH_SIMD: expected 'auto', 'v3' or 'baseline', got 'avx9000'" in r.stderr
    has = {v: importlib.util.find_spec(f"segbatch._segbatch_{v}") is not None for v in ("v3", "v4")}
    # A maturin build for x86-64 Linux is asked for its copies (pyproject.toml: both unless
    # SEGBATCH_SIMD_COPIES says otherwise), and every copy it made is in the package.
    copies = segbatch._baseline.simd_copies()
    if sys.platform.startswith("linux") and platform.machine() == "x86_64":
        assert copies is not None
    assert all(has[v] for v in copies or [])
    # The copy each setting picks on this CPU: the best one it runs, capped by the setting.
    runs = {"v4": segbatch._baseline.cpu_has_x86_64_v4(), "v3": segbatch._baseline.cpu_has_x86_64_v3()}
    for simd, allowed in (("auto", ("v4", "v3")), ("v3", ("v3",)), ("baseline", ())):
        want = next((f"segbatch._segbatch_{v}" for v in allowed if has[v] and runs[v]), "segbatch._segbatch")
        r = run("import segbatch; print(segbatch._native.__name__)", simd)
        assert r.stdout.split() == [want], (simd, r.stderr)
    picked_copy = segbatch._native is not segbatch._baseline
    if picked_copy:
        # A SIMD copy and the baseline module: the same answers within the kernel's accuracy bound.
        a, b = SEG[:2000], SEG[::-1][:2000]
        fast = segbatch._native.simd_level(), segbatch.distance(a, b)
        code = (
            "import numpy as np, segbatch, sys; a = np.frombuffer(sys.stdin.buffer.read(), np.float32).reshape(2, -1, 6);"
            "sys.stdout.buffer.write(segbatch.distance(a[0], a[1]).tobytes())"
        )
        env = {**os.environ, "SEGBATCH_SIMD": "baseline"}
        base = np.frombuffer(
            subprocess.run([sys.executable, "-c", code], input=np.stack([a, b]).tobytes(), env=env,
                           capture_output=True, check=True).stdout, np.float32)
        scale = np.maximum(np.abs(a).max(axis=1), np.abs(b).max(axis=1))
        ok = np.isfinite(scale)
        assert fast[0] != "sse2"
        assert np.all(np.abs(base[ok] - fast[1][ok]) <= 8 * np.finfo(np.float32).eps * scale[ok] * 2)
