#!/usr/bin/env python3
"""Wall time of LW-k-means and sparse k-means on Leukemia (72 x 3571), beside the paper's Table VII.

Measured over --reps (5) repetitions each (minimum and median wall time, median solver and CPU
time), in one run of this script:

* one lw run:       meanscape run  --data leukemia.csv --algo lw -P lambda=0.0005 --scale none
* a 40-point path:  meanscape path --data leukemia.csv --algo lw --scale none --points 40
* one sparse-kmeans run at a fixed bound (the one the gap statistic picks, s = 0.9*sqrt(p)):
                    meanscape run  --data leukemia.csv --algo sparse-kmeans -P wbound=53.78
* sparse-kmeans with gap tuning (10 bounds x 26 data sets, then the run):
                    meanscape run  --data leukemia.csv --algo sparse-kmeans --tune gap

"wall" is the whole process (reading the 1.8 MB CSV, scaling, solving, printing JSON); "solver" is
the binary's own elapsed_ms (k-means initialisation included, loading excluded). Each is measured
with all cores and with RAYON_NUM_THREADS=1. The paper's Table VII times are MATLAB (LW) and,
presumably, R sparcl with its gap statistic, on an Intel i3-5010U laptop (2 cores, 2.1 GHz); they
are not from the same machine, so only the orders of magnitude compare. The machine here may be
shared with other builds: each repetition first waits (at most 30 s) for the 1-minute load
average to drop below 1, the mean load average is printed with each row, and the CPU time (user +
system of the process) is less sensitive to other load than the wall time.

Output: markdown table on stdout, raw timings in bench/out/lw_timing.json.
Run from the repo root:  python3 bench/lw_timing.py [--reps 5]
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import time

from lw_common import BIN, PAPER_TIME, ROOT, build, data_spec, machine, save, table


def timed(args, threads):
    """Wall seconds, solver seconds (the binary's elapsed_ms) and CPU seconds (user + system of
    the child, from wait4)."""
    env = dict(os.environ)
    if threads:
        env["RAYON_NUM_THREADS"] = str(threads)
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [str(BIN), *args, "--json"], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    out, err = proc.communicate()
    wall = time.perf_counter() - t0
    # communicate() has reaped the child; its rusage is in RUSAGE_CHILDREN deltas.
    if proc.returncode != 0:
        raise RuntimeError(err.decode())
    return wall, json.loads(out)["elapsed_ms"] / 1e3


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def wait_quiet(limit_s=30, target=1.0):
    """Waits (at most limit_s) until the 1-minute load average is below target."""
    t0 = time.time()
    while load1() > target and time.time() - t0 < limit_s:
        time.sleep(5)


def load1():
    return os.getloadavg()[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    build()
    spec = data_spec("leukemia")
    cases = [
        ("lw, one run (λ = 0.0005)", ["run", "--data", spec, "--algo", "lw", "-P", "lambda=0.0005", "--scale", "none"], PAPER_TIME["leukemia"][0]),
        ("lw, 40-point path", ["path", "--data", spec, "--algo", "lw", "--scale", "none", "--points", "40"], None),
        ("sparse-kmeans, one run (s = 53.78)", ["run", "--data", spec, "--algo", "sparse-kmeans", "-P", "wbound=53.78"], None),
        ("sparse-kmeans --tune gap", ["run", "--data", spec, "--algo", "sparse-kmeans", "--tune", "gap"], PAPER_TIME["leukemia"][2]),
    ]
    print(f"Machine: {machine()}\n")
    rows, raw = [], {"machine": machine(), "cases": {}}
    for label, args, paper in cases:
        for threads in (None, 1):
            walls, solvers, cpus, loads = [], [], [], []
            timed(args, threads)  # warm the page cache
            for _ in range(a.reps):
                wait_quiet()
                loads.append(load1())
                c0 = children_cpu()
                w, s = timed(args, threads)
                cpus.append(children_cpu() - c0)
                walls.append(w)
                solvers.append(s)
            key = f"{label} [{'all cores' if threads is None else '1 thread'}]"
            raw["cases"][key] = {
                "command": "meanscape " + " ".join(args),
                "wall_s": walls,
                "solver_s": solvers,
                "cpu_s": cpus,
                "load1": loads,
            }
            rows.append(
                [
                    label,
                    "all" if threads is None else "1",
                    f"{min(walls):.3f}",
                    f"{statistics.median(walls):.3f}",
                    f"{statistics.median(solvers):.3f}",
                    f"{statistics.median(cpus):.3f}",
                    f"{paper:.2f}" if paper else "-",
                    f"{statistics.mean(loads):.2f}",
                ]
            )
            print(f"  {key}: wall {statistics.median(walls):.3f} s", flush=True)
    print()
    print(
        table(
            ["case", "threads", "wall s (min)", "wall s (median)", "solver s (median)", "CPU s (median)", "paper Table VII s", "load avg"],
            rows,
        )
    )
    print("\nCommands:")
    for label, args, _ in cases:
        print(f"    meanscape {' '.join(args)} --json")
    print(f"\nraw timings: {save('lw_timing.json', raw)}")


if __name__ == "__main__":
    main()
