#!/usr/bin/env python3
"""meanscape.dask and meanscape.spark against dask-ml ``KMeans`` and Spark
MLlib ``KMeans`` on the same data, with the in-memory engine beside them.

    python bench/distributed.py [--n 1000000] [--p 20] [--k 10] [--parts 8] \
        [--iters 12] [--out bench/out/distributed.md]
    python bench/distributed.py --data fashion --copies 6 --parts 16 \
        --out bench/out/distributed_fashion.md

Needs the dask and spark extras, dask-ml and Java 17 (the venv the tests
use: pip install "./python[dask,spark]" dask-ml). Data: n × p float64
blobs (k centres drawn N(0, 1.5²) per coordinate, unit noise: overlapping,
so Lloyd does not settle in a few iterations), or with `--data fashion`
Fashion-MNIST's 60000 × 784 training pixels stacked `--copies` times
(6: 360000 rows, 2.1 GiB), written once to Parquet;
Spark reads it in `--parts` partitions (meanscape: the numeric columns;
MLlib: the same assembled into a vector column, as it requires; both
cached before timing), Dask in `--parts` row chunks (the threaded
scheduler, one process). meanscape.dask's k-means keeps Hamerly bounds on
the workers (its default); "(every distance)" is `bounded=False`. Its
first and last iterations compute every distance, so its per-iteration
time below is that of the bounded iterations.

Every fit starts from the same centres (the first k rows) and is run
with an iteration cap of 1 and of `--iters` (tol 0); the time per
iteration is (T(iters) − T(1)) / (n_iter(iters) − n_iter(1)), so set-up
(scans, caching, planning) is left out, and the total is the fit's wall
time at `--iters`. For meanscape.spark the table also gives the median
statistics pass after the first (which packs and keeps the blocks) of the
fit at `--iters`: on large data its set-up varies by seconds from fit to
fit, more than the difference of the two fits measures. Bytes per iteration: what the partitions send back
(meanscape.spark: measured, the pickled statistics; the others: their
k × p sums and k counts per partition, 8 bytes each). The machine's load
average is recorded beside the table: it is shared.
"""

import argparse
import os
import platform
import sys
import time
from pathlib import Path

# This file's name would shadow the `distributed` package (Dask's) when
# run as a script: drop its directory from the import path.
HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]

import numpy as np  # noqa: E402

ROOT = HERE.parent


def blobs(n, p, k, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=1.5, size=(k, p))
    X = centres[rng.integers(0, k, n)]
    X += rng.normal(size=(n, p))
    return X


def fashion(copies):
    """Fashion-MNIST's 60000 training images (784 pixels, float64) stacked
    `copies` times: 376 MB each, so 6 copies are about 2.3 GB. Read from
    Debian's dataset-fashion-mnist (apt-get install dataset-fashion-mnist)."""
    import gzip

    path = Path("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")
    if not path.exists():
        sys.exit(f"{path} is missing: apt-get install dataset-fashion-mnist")
    raw = gzip.open(path).read()
    one = np.frombuffer(raw, dtype=np.uint8, offset=16).reshape(60000, 784).astype(np.float64)
    return np.tile(one, (copies, 1))


def timed(fit):
    t = time.perf_counter()
    model = fit()
    return time.perf_counter() - t, model


def per_iteration(fit, iters):
    """(seconds per iteration, total seconds at `iters`, n_iter) from a fit
    capped at 1 and at `iters` iterations; fit(cap) returns (model, n_iter)."""
    fit(1)  # warm-up: first jobs, JIT, caches
    t1, (_, n1) = timed(lambda: fit(1))
    tn, (_, nn) = timed(lambda: fit(iters))
    per = (tn - t1) / (nn - n1) if nn > n1 else float("nan")
    return per, tn, nn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--p", type=int, default=20)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("--iters", type=int, default=12)
    ap.add_argument("--data", choices=["blobs", "fashion"], default="blobs",
                    help="blobs (--n × --p) or Fashion-MNIST's training images stacked --copies times")
    ap.add_argument("--copies", type=int, default=6, help="copies of Fashion-MNIST (--data fashion)")
    ap.add_argument("--driver-memory", default="4g", help="Spark's driver memory (local mode: the executor's too)")
    ap.add_argument("--only", default="", help="a semicolon-separated subset of the rows to run")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "distributed.md"))
    a = ap.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

    import warnings

    warnings.filterwarnings("ignore")
    import meanscape
    from meanscape import _meanscape

    if a.data == "fashion":
        X = fashion(a.copies)
        a.n, a.p = X.shape
    else:
        X = blobs(a.n, a.p, a.k)
    c0 = np.ascontiguousarray(X[: a.k])
    load0 = os.getloadavg()
    rows = []
    # meanscape.spark: the median statistics pass after the first (which
    # packs and keeps the blocks), from the fit at the cap: its set-up
    # (caching the blocks) varies by seconds from fit to fit, more than the
    # iterations between the two fits take on large data.
    passes = {}
    only = set(filter(None, a.only.split(";")))

    def run(name, fit, bytes_per_iter):
        if only and name not in only:
            return
        try:
            per, total, n_iter = per_iteration(fit, a.iters)
            rows.append((name, per, total, n_iter, bytes_per_iter() if callable(bytes_per_iter) else bytes_per_iter))
        except Exception as e:  # a peer that fails is reported, not fatal
            rows.append((name, None, None, None, f"failed: {type(e).__name__}: {str(e).splitlines()[0][:120]}"))
        print(rows[-1], flush=True)

    peer_bytes = a.parts * a.k * (a.p + 1) * 8

    # --- in memory
    run(
        # 'elkan': the engine's bounded Lloyd, as meanscape.dask's default.
        "meanscape in memory, k-means",
        lambda cap: (lambda m: (m, m.n_iter_))(
            meanscape.KMeans(a.k, init=c0, n_init=1, max_iter=cap, tol=0.0, algorithm="elkan").fit(X)
        ),
        0,
    )
    run(
        # Every row (sample=0), as the distributed fits run: the in-memory
        # default anneals on a sample at this n.
        "meanscape in memory, power k-means",
        lambda cap: (lambda m: (m, m.n_iter_))(meanscape.PowerKMeans(a.k, init=c0, max_iter=cap, sample=0).fit(X)),
        0,
    )

    # --- Dask (threaded scheduler)
    import dask.array as da

    from meanscape import dask as mdask

    Xd = da.from_array(X, chunks=(-(-a.n // a.parts), a.p)).persist()
    one = _meanscape.lloyd_block(np.ascontiguousarray(X[: a.n // a.parts]), c0)
    import pickle

    lloyd_bytes = a.parts * len(pickle.dumps(one))
    power_bytes = a.parts * len(pickle.dumps(_meanscape.power_block(np.ascontiguousarray(X[: a.n // a.parts]), c0, -1.0)))
    run(
        "meanscape.dask, k-means",
        lambda cap: (lambda m: (m, m.n_iter_))(mdask.KMeans(a.k, init=c0, max_iter=cap, tol=0.0).fit(Xd)),
        lloyd_bytes,
    )
    run(
        "meanscape.dask, k-means (every distance)",
        lambda cap: (lambda m: (m, m.n_iter_))(
            mdask.KMeans(a.k, init=c0, max_iter=cap, tol=0.0, bounded=False).fit(Xd)
        ),
        lloyd_bytes,
    )
    run(
        "meanscape.dask, power k-means",
        lambda cap: (lambda m: (m, m.n_iter_))(mdask.PowerKMeans(a.k, init=c0, max_iter=cap).fit(Xd)),
        power_bytes,
    )
    try:
        from dask_ml.cluster import KMeans as DaskMLKMeans

        run(
            "dask-ml KMeans",
            lambda cap: (lambda m: (m, m.n_iter_))(DaskMLKMeans(n_clusters=a.k, init=c0, max_iter=cap, tol=0.0).fit(Xd)),
            peer_bytes,
        )
    except ImportError as e:
        rows.append(("dask-ml KMeans", None, None, None, f"not installed: {e}"))

    # --- Spark (local[2]): skipped when --only names none of its rows.
    spark_rows = ["meanscape.spark, k-means", "meanscape.spark, power k-means", "Spark MLlib KMeans"]

    def spark_section():
        import pyarrow as pa
        import pyarrow.parquet as pq
        from pyspark.ml.clustering import KMeans as MLlibKMeans
        from pyspark.ml.feature import VectorAssembler
        from pyspark.sql import SparkSession

        from meanscape import spark as mspark

        path = Path("/tmp/meanscape-bench-distributed.parquet")
        cols = [f"x{j}" for j in range(a.p)]
        pq.write_table(pa.table({c: X[:, j] for j, c in enumerate(cols)}), path)
        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.memory", a.driver_memory)
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        df = spark.read.parquet(str(path)).repartition(a.parts).persist()
        df.count()
        vec = VectorAssembler(inputCols=cols, outputCol="features").transform(df).select("features").persist()
        vec.count()
        # meanscape.spark reads the cached columns once, into its cached blocks.
        last = {}

        def ms_fit(cls, **kw):
            def fit(cap):
                m = cls(a.k, featuresCol=cols, init=c0, max_iter=cap, **kw).fit(df)
                last["bytes"] = m.bytes_per_iteration_
                # Where a pass found its partitions' blocks kept on the
                # executor, and the median pass: what the fit's set-up hides.
                ms = sorted(m.iteration_seconds_[1:]) or [float("nan")]
                last["pass"] = ms[len(ms) // 2]
                print(f"  {cls.__name__} cap {cap}: partitions found / read {m.worker_cache_}, "
                      f"median pass after the first {1e3 * last['pass']:.0f} ms", flush=True)
                return m, m.n_iter_

            return fit

        run("meanscape.spark, k-means", ms_fit(mspark.KMeans, tol=0.0), lambda: last["bytes"])
        passes["meanscape.spark, k-means"] = last.get("pass")
        run("meanscape.spark, power k-means", ms_fit(mspark.PowerKMeans), lambda: last["bytes"])
        passes["meanscape.spark, power k-means"] = last.get("pass")

        def mllib(cap):
            m = (
                MLlibKMeans(k=a.k, maxIter=cap, tol=0.0, seed=1, initMode="random", initSteps=1)
                .fit(vec)
            )
            return m, m.summary.numIter

        run("Spark MLlib KMeans", mllib, peer_bytes)
        spark.stop()

    if not only or only.intersection(spark_rows):
        try:
            import pyspark  # noqa: F401
        except ImportError as e:
            rows.extend((name, None, None, None, f"not installed: {e}") for name in spark_rows if not only or name in only)
        else:
            spark_section()
    load1 = os.getloadavg()

    what = f"Fashion-MNIST (×{a.copies}, {X.nbytes / 2**30:.1f} GiB)" if a.data == "fashion" else "blobs"
    args = f"--data fashion --copies {a.copies}" if a.data == "fashion" else f"--n {a.n} --p {a.p}"
    lines = [
        f"# Distributed k-means: {a.n} × {a.p} {what}, k = {a.k}, {a.parts} partitions / chunks",
        "",
        f"`python bench/distributed.py {args} --k {a.k} --parts {a.parts} --iters {a.iters}`",
        f"on {platform.node()} ({os.cpu_count()} cores), load average {load0[0]:.1f} before and {load1[0]:.1f} after "
        "(shared machine). Per iteration: (T(cap) − T(1)) / (n_iter(cap) − n_iter(1)).",
        "",
        "| run | per iteration (ms) | median pass after the first (ms) | total fit at the cap (s) | iterations | bytes sent per iteration |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, per, total, n_iter, b in rows:
        med = passes.get(name)
        med = "–" if med is None else f"{med * 1e3:.0f}"
        if per is None:
            lines.append(f"| {name} | – | {med} | – | – | {b} |")
        else:
            lines.append(f"| {name} | {per * 1e3:.0f} | {med} | {total:.2f} | {n_iter} | {b} |")
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
