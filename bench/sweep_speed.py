#!/usr/bin/env python3
"""What a sweep saves: one `meanscape sweep` process against the same runs
as separate `meanscape run` processes, against the same grid with
scikit-learn's KMeans where there is a peer, and the Gram matrix build's
share of a kpower sweep. Not a test: prints wall times.

    python3 bench/sweep_speed.py                          # the full protocol: 10 × 10 × 10 seeds on usps
    python3 bench/sweep_speed.py --rows 2000 --count 4 --seeds 3 --processes 10

1. power, s0 (COUNT values, log from -10 to -0.1) × eta (COUNT values from
   1.01 to 1.3) × SEEDS seeds on usps (or its first ROWS rows), in one
   `meanscape sweep` process;
2. the same runs as `meanscape run --seed S` processes: PROCESSES of them
   (drawn evenly from the grid), timed and extrapolated to all runs;
3. kmeans over k (COUNT values from 5 to 5 + COUNT - 1) × SEEDS seeds, with
   `meanscape sweep --grid k=...` and with scikit-learn's KMeans
   (n_init=1, lloyd, the same k and seeds, one fit after another with
   scikit-learn's own threading), both on the same standardised data;
4. kpower, sigma (3 values) × s0 (COUNT values) × 2 seeds on the first
   min(ROWS, 1500) rows: the sweep's wall time against 3 Gram matrix
   builds, each timed as a `meanscape run --algo kpower -P max_iter=1`
   (its elapsed_ms minus one iteration is the build).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from venv_common import ensure_venv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
BIN = os.environ.get("MEANSCAPE_BIN", os.path.join(ROOT, "target", "release", "meanscape"))


def sh(args):
    t = time.perf_counter()
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args)}: {out.stderr.strip()}")
    return time.perf_counter() - t, out.stdout


def spaced(lo, hi, n, log=False):
    import math

    if n == 1:
        return [lo]
    if log:
        a, b = math.log(abs(lo)), math.log(abs(hi))
        s = -1 if lo < 0 else 1
        return [s * math.exp(a + (b - a) * i / (n - 1)) for i in range(n)]
    return [lo + (hi - lo) * i / (n - 1) for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=0, help="first ROWS rows of usps (0: all 11000)")
    ap.add_argument("--count", type=int, default=10)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--processes", type=int, default=100)
    a = ap.parse_args()
    ensure_venv(__file__)
    import numpy as np
    from sklearn.cluster import KMeans

    src = os.path.join(DATA, "usps.csv")
    tmp = tempfile.mkdtemp(prefix="sweep-speed-")
    data = src
    lines = open(src).read().splitlines()
    if a.rows:
        data = os.path.join(tmp, "usps_sub.csv")
        with open(data, "w") as f:
            f.write("\n".join(lines[: a.rows + 1]) + "\n")
    n = (a.rows or len(lines) - 1)
    runs = a.count * a.count * a.seeds
    print(f"usps{'' if not a.rows else f' (first {a.rows} rows)'}: n = {n}; grid {a.count} × {a.count} × {a.seeds} seeds = {runs} runs; {os.cpu_count()} cores")

    grid = ["--grid", f"s0=-10:-0.1:{a.count}:log", "--grid", f"eta=1.01:1.3:{a.count}"]
    wall, out = sh([BIN, "sweep", "--data", data, "--algo", "power", *grid, "--seeds", str(a.seeds), "--json", "-q"])
    sweep = json.loads(out)
    print(f"1. meanscape sweep (power): {wall:.1f} s wall, {wall / runs * 1e3:.0f} ms per run")

    cells = [(c["at"]["s0"], c["at"]["eta"]) for c in sweep["cells"]]
    pick = [(cells[(i * len(cells)) // a.processes], i % a.seeds) for i in range(min(a.processes, runs))]
    t0 = time.perf_counter()
    for (s0, eta), seed in pick:
        sh([BIN, "run", "--data", data, "--algo", "power", "--s0", repr(s0), "--eta", repr(eta), "--seed", str(seed), "--json", "-q"])
    per = (time.perf_counter() - t0) / len(pick)
    print(f"2. separate `meanscape run` processes: {len(pick)} timed, {per * 1e3:.0f} ms each, "
          f"extrapolated to {runs}: {per * runs:.1f} s ({per * runs / wall:.1f}× the sweep; one process at a time)")

    ks = list(range(5, 5 + a.count))
    wall_k, out = sh([BIN, "sweep", "--data", data, "--algo", "kmeans", "--grid", "k=" + ",".join(map(str, ks)), "--seeds", str(a.seeds), "--json", "-q"])
    x = np.loadtxt(data, delimiter=",", skiprows=1)[:, :-1] if open(data).readline().strip().split(",")[-1] in ("label", "class", "y", "target") else np.loadtxt(data, delimiter=",", skiprows=1)
    sd = x.std(axis=0)
    x = (x - x.mean(axis=0)) / np.where(sd > 0, sd, 1)
    t0 = time.perf_counter()
    for k in ks:
        for s in range(a.seeds):
            KMeans(n_clusters=k, n_init=1, random_state=s, algorithm="lloyd").fit(x)
    sk = time.perf_counter() - t0
    print(f"3. kmeans over k = {ks[0]}..{ks[-1]} × {a.seeds} seeds: meanscape sweep {wall_k:.1f} s, scikit-learn KMeans loop {sk:.1f} s")

    m = min(n, 1500)
    sub = os.path.join(tmp, "usps_kp.csv")
    with open(sub, "w") as f:
        f.write("\n".join(lines[: m + 1]) + "\n")
    _, out = sh([BIN, "run", "--data", sub, "--algo", "kpower", "--json", "-q"])
    rule = json.loads(out)["params"]["sigma"]
    sigmas = [rule * f for f in (0.5, 1.0, 2.0)]
    wall_kp, out = sh([BIN, "sweep", "--data", sub, "--algo", "kpower", "--grid", "sigma=" + ",".join(repr(s) for s in sigmas),
                       "--grid", f"s0=-10:-0.3:{a.count}:log", "--seeds", "2", "--json", "-q"])
    builds = json.loads(out)["cache_builds"]
    build = 0.0
    for s in sigmas:
        _, o = sh([BIN, "run", "--data", sub, "--algo", "kpower", "-P", f"sigma={s!r}", "-P", "max_iter=1", "--json", "-q"])
        build += json.loads(o)["elapsed_ms"] / 1e3
    print(f"4. kpower sweep, n = {m}, 3 σ × {a.count} s0 × 2 seeds: {wall_kp:.1f} s wall, {builds} cache builds; "
          f"3 Gram builds ≈ {build:.2f} s = {100 * build / wall_kp:.1f}% of the sweep")


if __name__ == "__main__":
    main()
