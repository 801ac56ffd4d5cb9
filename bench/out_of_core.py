#!/usr/bin/env python3
"""meanscape.dask out of core: a Parquet dataset larger than the memory of
the Dask cluster that clusters it.

    python bench/out_of_core.py [--rows 10000000] [--p 20] [--k 10] \
        [--files 200] [--workers 2] [--memory-limit 500MB] [--iters 10] \
        [--algos kmeans,power] [--check] [--out bench/out/out_of_core.md]

Needs the dask extra (pip install "./python[dask]"). The data (n × p
float64 blobs, k centres drawn N(0, 1.5²) per coordinate, unit noise) is
written once to `--data` as `--files` Parquet files, each one partition of
the dataframe `dd.read_parquet` gives. A `LocalCluster` of `--workers`
processes with `--memory-limit` each (Dask pauses a worker at 80 % of it
and restarts it at 95 %) then fits `meanscape.dask.KMeans` (tol 0) and
`PowerKMeans` from the same given centres (the first k rows), capped at
`--iters` iterations: every iteration reads the files again, so the data
is never held by the cluster. Reported: wall time, seconds per iteration
((T(cap) − T(1)) / (n_iter(cap) − n_iter(1)), so the set-up passes are
left out),
the workers' peak resident memory (each worker's own `ru_maxrss`), and
whether a worker was restarted. With `--check` the same fits run in
memory on this process (`meanscape.KMeans`, `meanscape.PowerKMeans` with
`sample=0`, every row, as on Dask: the
whole array is loaded here, which needs n × p × 8 bytes) and the largest
relative difference of the centres and the objective is reported.

A worker's floor is about 220 MiB (Python, NumPy, pandas, Arrow, Dask and
the engine imported); reading one partition holds it about four times over
(Arrow table, pandas frame, the row-major block, the distances). So the
memory limit must leave room for both: at 500 MB per worker, partitions of
50 000 × 20 (8 MB) work, while 250 000 × 20 (40 MB) keep the workers
paused above 80 % (memory the allocator does not give back), and the fit
waits on them.
"""

import argparse
import os
import platform
import resource
import sys
import time
import warnings
from pathlib import Path

# bench/distributed.py would shadow the `distributed` package (Dask's):
# drop this file's directory from the import path.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
ROOT = HERE.parent

import numpy as np  # noqa: E402


def write_data(path, rows, p, k, files):
    """The blobs as `files` Parquet files (deterministic: one generator per
    file); kept when they exist with the same shape."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    stamp = path / f"shape-{rows}x{p}-k{k}-f{files}"
    if stamp.exists():
        return
    path.mkdir(parents=True, exist_ok=True)
    for old in path.glob("*"):
        old.unlink()
    centres = np.random.default_rng(0).normal(scale=1.5, size=(k, p))
    per = -(-rows // files)
    for f in range(files):
        m = min(per, rows - f * per)
        if m <= 0:
            break
        rng = np.random.default_rng(1000 + f)
        X = centres[rng.integers(0, k, m)] + rng.normal(size=(m, p))
        pq.write_table(pa.table({f"x{j}": X[:, j] for j in range(p)}), path / f"part-{f:04d}.parquet")
    stamp.touch()


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--p", type=int, default=20)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--files", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="500MB")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--algos", default="kmeans,power")
    ap.add_argument("--data", default="/tmp/meanscape-ooc")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "out_of_core.md"))
    a = ap.parse_args()
    warnings.filterwarnings("ignore")

    import dask
    import dask.dataframe as dd
    from dask.utils import format_bytes, parse_bytes
    from distributed import Client, LocalCluster

    import meanscape
    from meanscape import dask as mdask

    data = Path(a.data)
    t = time.perf_counter()
    write_data(data, a.rows, a.p, a.k, a.files)
    print(f"data: {data} ({sum(f.stat().st_size for f in data.glob('*.parquet')) / 2**20:.0f} MiB on disk, "
          f"written in {time.perf_counter() - t:.0f} s)", flush=True)
    raw = a.rows * a.p * 8
    limit = parse_bytes(a.memory_limit)
    files = sorted(data.glob("*.parquet"))
    import pyarrow.parquet as pq

    c0 = np.ascontiguousarray(pq.read_table(files[0]).to_pandas().to_numpy()[: a.k], dtype=np.float64)

    def make(algo, cap, engine):
        if algo == "kmeans":
            # Out of core: every distance each pass (bounded=False), which
            # keeps 2 bytes a row on the workers instead of the bounds' 32.
            extra = {"bounded": False} if "bounded" in engine.KMeans().get_params() else {}
            return engine.KMeans(a.k, init=c0, n_init=1, max_iter=cap, tol=0.0, **extra)
        # Every row: the in-memory default samples 256·k rows at this n.
        return engine.PowerKMeans(a.k, init=c0, max_iter=cap, sample=0)

    rows = []
    fitted = {}
    load0 = os.getloadavg()
    # Arrow's own allocator (jemalloc) keeps the pages of the Parquet reads
    # it freed; Dask counts them as the worker's unmanaged memory, and a
    # worker that stays over 80 % of its limit is paused for good (the fit
    # then waits on it). The system allocator gives them back.
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    for algo in a.algos.split(","):
        cluster = LocalCluster(
            n_workers=a.workers, threads_per_worker=1, processes=True, memory_limit=limit, dashboard_address=None
        )
        client = Client(cluster)
        pids = client.run(os.getpid)
        df = dd.read_parquet(str(data))
        t = time.perf_counter()
        one = make(algo, 1, mdask).fit(df)
        one_s = time.perf_counter() - t
        t = time.perf_counter()
        est = make(algo, a.iters, mdask).fit(df)
        fit_s = time.perf_counter() - t
        per_s = (fit_s - one_s) / max(est.n_iter_ - one.n_iter_, 1)
        t = time.perf_counter()
        # Counted per chunk and summed in a tree: gathering 10^7 labels on
        # one worker would need more than its memory limit.
        lab = est.labels_
        per_chunk = lab.map_blocks(
            lambda b: np.bincount(b, minlength=a.k)[None, :],
            new_axis=1,
            chunks=((1,) * lab.numblocks[0], (a.k,)),
            dtype=np.int64,
        )
        counts = per_chunk.sum(axis=0).compute()
        labels_s = time.perf_counter() - t
        peaks = client.run(peak_rss_mib)
        restarted = client.run(os.getpid) != pids
        client.close()
        cluster.close()
        fitted[algo] = est
        rows.append((algo, fit_s, est.n_iter_, per_s, labels_s, max(peaks.values()), restarted, int(counts.min()), int(counts.max())))
        print(rows[-1], flush=True)
    load1 = os.getloadavg()

    checks = []
    if a.check:
        with dask.config.set(scheduler="threads"):
            X = np.ascontiguousarray(dd.read_parquet(str(data)).to_dask_array(lengths=True).compute())
        for algo, est in fitted.items():
            ref = make(algo, a.iters, meanscape).fit(X)
            dc = np.max(np.abs(est.cluster_centers_ - ref.cluster_centers_)) / np.max(np.abs(ref.cluster_centers_))
            obj = "inertia_" if algo == "kmeans" else "objective_"
            do = abs(getattr(est, obj) - getattr(ref, obj)) / abs(getattr(ref, obj))
            checks.append((algo, dc, do, est.n_iter_ == ref.n_iter_))
            print(checks[-1], flush=True)
        del X

    lines = [
        f"# meanscape.dask out of core: {a.rows} × {a.p} float64 in Parquet, k = {a.k}",
        "",
        f"`python bench/out_of_core.py --rows {a.rows} --p {a.p} --k {a.k} --files {a.files} --workers {a.workers} "
        f"--memory-limit {a.memory_limit} --iters {a.iters}{' --check' if a.check else ''}`",
        f"on {platform.node()} ({os.cpu_count()} cores), load average {load0[0]:.1f} before and {load1[0]:.1f} after.",
        "",
        f"The data is {format_bytes(raw)} as float64 in {len(files)} files; the cluster has {a.workers} worker processes "
        f"of {format_bytes(limit)} each ({format_bytes(a.workers * limit)} in all), so it never holds the data: "
        "every iteration reads the files again. Seconds per iteration: (T(cap) − T(1)) / (n_iter(cap) − n_iter(1)); "
        "the fit's other passes (row counts, the variance for the tolerance, the largest norm) are in the fit's time.",
        "",
        "| algorithm | fit (s) | iterations | s per iteration | lazy labels computed (s) | peak worker memory (MiB) "
        "| worker restarted | cluster sizes (min–max) |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for algo, fit_s, it, per_s, lab_s, peak, restarted, lo, hi in rows:
        lines.append(
            f"| {algo} | {fit_s:.1f} | {it} | {per_s:.1f} | {lab_s:.1f} | {peak:.0f} "
            f"| {'yes' if restarted else 'no'} | {lo}–{hi} |"
        )
    if checks:
        lines += [
            "",
            "The same fits in memory (`meanscape.KMeans` / `PowerKMeans(sample=0)`, same centres, same cap):",
            "",
            "| algorithm | max relative difference of the centres | of the objective | same iterations |",
            "|---|---:|---:|---|",
        ]
        lines += [f"| {algo} | {dc:.1e} | {do:.1e} | {'yes' if same else 'no'} |" for algo, dc, do, same in checks]
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if any(r[6] for r in rows):
        sys.exit("a worker was restarted: raise --memory-limit or write smaller files")


if __name__ == "__main__":
    main()
