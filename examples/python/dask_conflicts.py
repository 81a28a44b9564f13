"""Closest-approach conflicts in a partitioned Parquet data set of tracks, on Dask.

Each row of the data set is one aircraft (or vessel, robot, agent) flying straight during one
time step: its position at the start and at the end of the step (``x0, y0, z0, x1, y1, z1``).
A *conflict* is two objects that come closer than a separation minimum *at the same time*
during the step: closest point of approach in time, not just path distance.

The script
1. writes a 4-file (4-partition) Parquet data set of random tracks (``--rows``, default 200 000),
2. finds the candidate pairs whose *paths* come within the separation minimum, over the
   partitioned data on a Dask ``LocalCluster`` of 2 worker processes
   (``segbatch.dask.self_pairs_within``: spatial strips with halos, each pair once),
3. computes the closest approach in time of each candidate (``segbatch.cpa_segments``) and
   keeps the real conflicts,
4. checks that the Dask result equals the single-process call.

    pip install ./python "dask[dataframe]" distributed pyarrow pandas
    python examples/python/dask_conflicts.py [--rows 200000] [--scheduler tcp://host:8786]
"""

import argparse
import os
import tempfile
import time

import numpy as np
import pandas as pd

import segbatch
import segbatch.arrow as sa
import segbatch.dask as sd


def write_tracks(path: str, rows: int, parts: int = 4, seed: int = 1) -> np.ndarray:
    """Random straight flights in a 2000 x 2000 km box at a few flight levels (km)."""
    rng = np.random.default_rng(seed)
    start = np.column_stack([
        rng.uniform(0, 2000, rows),
        rng.uniform(0, 2000, rows),
        rng.choice([8.0, 10.0, 12.0, 14.0], rows) + rng.normal(0, 0.05, rows),
    ]).astype(np.float32)
    heading = rng.uniform(0, 2 * np.pi, rows)
    step = rng.uniform(10, 15, rows)  # km per step (about one minute)
    end = start + np.column_stack([step * np.cos(heading), step * np.sin(heading),
                                   rng.normal(0, 0.02, rows)]).astype(np.float32)
    tracks = np.concatenate([start, end], axis=1).astype(np.float32)
    df = pd.DataFrame({k: tracks[:, i] for i, k in enumerate(sa.SEGMENT_COLUMNS)})
    df["flight"] = np.arange(rows, dtype=np.int64)
    for q in range(parts):
        df.iloc[q * rows // parts:(q + 1) * rows // parts].to_parquet(os.path.join(path, f"part-{q}.parquet"))
    return tracks


def conflicts(tracks: np.ndarray, pairs: pd.DataFrame, minimum: float) -> pd.DataFrame:
    """Of the path-near pairs, those that are within ``minimum`` at the same time."""
    i, j = pairs["i"].to_numpy(), pairs["j"].to_numpy()
    c = segbatch.cpa_segments(tracks[i], tracks[j], outputs=["t", "distance"])
    keep = c["distance"] <= minimum
    return pd.DataFrame({"i": i[keep], "j": j[keep], "t": c["t"][keep], "distance": c["distance"][keep]})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--minimum", type=float, default=1.0, help="separation minimum (km)")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler address; default: LocalCluster(2)")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as d:
        tracks = write_tracks(d, args.rows)
        with sd.connect(args.scheduler, n_workers=2) as client:
            print(f"Dask: {client}")
            import dask.dataframe as dd

            ddf = dd.read_parquet(d, columns=list(sa.SEGMENT_COLUMNS))
            t = time.perf_counter()
            near = sd.self_pairs_within(ddf, args.minimum)
            t_dask = time.perf_counter() - t
        found = conflicts(tracks, near, args.minimum)

        t = time.perf_counter()
        single = segbatch.self_pairs_within(tracks, args.minimum)
        t_single = time.perf_counter() - t
    same = all(near[k].to_numpy().tobytes() == single[k].tobytes() for k in single)
    print(f"{args.rows} tracks in {ddf.npartitions} Parquet partitions; separation minimum {args.minimum} km")
    print(f"paths within the minimum: {len(near)} pairs (Dask {t_dask:.2f} s, single process {t_single:.2f} s, "
          f"identical: {same})")
    print(f"conflicts (within the minimum at the same time): {len(found)}")
    print(found.sort_values("distance").head(10).to_string(index=False))
    if not same:
        raise SystemExit("the Dask result differs from the single-process one")


if __name__ == "__main__":
    main()
