#!/usr/bin/env python3
"""What one PySpark pass costs before any work, and which Python worker
runs which partition: the two facts that bound ``meanscape.spark``'s
time per iteration and explain its ``worker_cache`` misses.

    python bench/spark_floor.py [--parts 8] [--cores 2] [--jobs 12]

Runs, on ``local[cores]``, `jobs` times the smallest job a meanscape pass
is made of: ``mapInArrow`` over a cached DataFrame of `parts` rows
coalesced to `cores` partitions (one task per core, as meanscape.spark
coalesces its blocks), each task yielding its Python worker's pid and
the rows it was handed, collected to the driver. Prints each job's wall
time (the floor of one meanscape.spark iteration, which is one such job
plus the engine's work) and the pid each partition ran in. Needs PySpark
(Java 17): pip install "./python[spark]".
"""

import argparse
import os
import statistics
import sys
import time


def probe(batches):
    import os

    import pyarrow as pa

    for b in batches:
        ids = b.column("id").to_pylist()
        yield pa.record_batch([pa.array([os.getpid()] * len(ids)), pa.array(ids)], names=["pid", "id"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", type=int, default=8)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=12)
    a = ap.parse_args()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master(f"local[{a.cores}]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    df = spark.range(0, a.parts, numPartitions=a.parts).coalesce(a.cores).persist()
    df.count()
    times, layouts = [], []
    for _ in range(a.jobs):
        t0 = time.perf_counter()
        rows = df.mapInArrow(probe, "pid long, id long").collect()
        times.append(time.perf_counter() - t0)
        by_pid = {}
        for r in rows:
            by_pid.setdefault(r.pid, []).append(r.id)
        layouts.append(sorted((min(ids), pid) for pid, ids in by_pid.items()))
    spark.stop()
    # The first job starts the Python workers: left out of the floor.
    steady = times[1:]
    print(f"local[{a.cores}], {a.parts} rows in {a.cores} partitions, load average {os.getloadavg()[0]:.1f}")
    print(
        f"one mapInArrow job, collected: median {statistics.median(steady) * 1e3:.0f} ms, "
        f"min {min(steady) * 1e3:.0f} ms over {len(steady)} jobs (the first, {times[0] * 1e3:.0f} ms, starts the workers)"
    )
    pids = sorted({pid for lay in layouts for _, pid in lay})
    print(f"Python worker processes seen: {len(pids)}")
    moved = sum(1 for before, after in zip(layouts, layouts[1:]) if before != after)
    print(f"jobs whose partitions ran in other workers than the job before: {moved} of {len(layouts) - 1}")
    for i, lay in enumerate(layouts):
        print(f"  job {i}: " + ", ".join(f"partition from row {first} -> pid {pid}" for first, pid in lay))


if __name__ == "__main__":
    main()
