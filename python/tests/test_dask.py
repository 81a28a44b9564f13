"""Dask on a LocalCluster of two worker processes over a 4-partition Parquet dataset gives
exactly the single-process results, including pairs across partition and strip borders."""

import numpy as np
import pandas as pd
import pytest

import segbatch
import segbatch.arrow as sa

dd = pytest.importorskip("dask.dataframe")
sd = pytest.importorskip("segbatch.dask")


@pytest.fixture(scope="module")
def client():
    with sd.connect(n_workers=2) as c:
        yield c


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    rng = np.random.default_rng(7)
    n = 20000
    start = rng.uniform(0, 200, (n, 3)).astype(np.float32)
    start[:, 2] *= 0.05
    seg = np.concatenate([start, start + rng.normal(0, 1.5, (n, 3)).astype(np.float32)], axis=1)
    seg[100] = seg[99, [3, 4, 5, 0, 1, 2]]  # shares an end point with 99
    df = pd.DataFrame({k: seg[:, i] for i, k in enumerate(sa.SEGMENT_COLUMNS)})
    df["b_" + df.columns] = seg[::-1]  # a second segment per row, for the pairwise queries
    path = tmp_path_factory.mktemp("tracks")
    for q in range(4):  # 4 files = 4 partitions
        df.iloc[q * n // 4 : (q + 1) * n // 4].to_parquet(path / f"part{q}.parquet")
    return path, seg


def check_equal(got: pd.DataFrame, ref: dict):
    assert list(got.columns) == ["i", "j", "dist2", "s", "t"]
    for k in ref:
        assert got[k].to_numpy().tobytes() == ref[k].tobytes(), k


@pytest.mark.parametrize("skip", [False, True])
def test_self_pairs_equal_single_process(client, dataset, skip):
    path, seg = dataset
    ddf = dd.read_parquet(str(path), columns=list(sa.SEGMENT_COLUMNS))
    assert ddf.npartitions == 4
    got = sd.self_pairs_within(ddf, 1.0, skip_shared_endpoints=skip)
    ref = segbatch.self_pairs_within(seg, 1.0, skip_shared_endpoints=skip)
    assert len(ref["i"]) > 1000
    check_equal(got, ref)
    # pairs across input partition borders, and across spatial strip borders, are there
    part = lambda i: i // (len(seg) // 4)  # noqa: E731
    assert (part(got["i"]) != part(got["j"])).sum() > 50
    mid_x = 0.5 * seg[:, 0] + 0.5 * seg[:, 3]
    cuts = np.quantile(mid_x, [0.25, 0.5, 0.75])
    strip = np.searchsorted(cuts, mid_x)
    assert (strip[got["i"]] != strip[got["j"]]).sum() > 20


def test_pairs_within_equal_single_process(client, dataset):
    path, seg = dataset
    a = dd.read_parquet(str(path), columns=list(sa.SEGMENT_COLUMNS))
    b = dd.read_parquet(str(path), columns=["b_" + c for c in sa.SEGMENT_COLUMNS])
    got = sd.pairs_within(a, b, 0.5, columns_b=["b_" + c for c in sa.SEGMENT_COLUMNS])
    check_equal(got, segbatch.pairs_within(seg, seg[::-1], 0.5))


def test_pairwise_per_partition(client, dataset):
    path, seg = dataset
    ddf = dd.read_parquet(str(path))
    bcols = ["b_" + c for c in sa.SEGMENT_COLUMNS]
    got = sd.map_partitions(segbatch.closest_points, ddf, sa.SEGMENT_COLUMNS, bcols).compute()
    ref = segbatch.closest_points(seg, seg[::-1])
    for k in ("distance", "dist2", "s", "t", "flags"):
        assert got[k].to_numpy().tobytes() == ref[k].tobytes()
    assert got[["point_a_x", "point_a_y", "point_a_z"]].to_numpy().tobytes() == ref["point_a"].tobytes()
    cp = sd.map_partitions(segbatch.cpa_segments, ddf, sa.SEGMENT_COLUMNS, bcols, outputs=["t"]).compute()
    assert cp["t"].to_numpy().tobytes() == segbatch.cpa_segments(seg, seg[::-1])["t"].tobytes()
