#!/usr/bin/env python3
"""The KPK paper's "ten rings" example (docs/methods/kernel-power-kmeans.md#ten-rings) on
meanscape's `gen:rings` generator: 10 rings (5 concentric pairs, radii 1 and
3, centres 12 apart — an invented layout, the paper does not give its own),
Gaussian kernel with σ = 1 as in the paper, raw coordinates (--scale none),
20 matched random starts (seeds 0..19, --init random), mean ARI.

Also prints the kernel k-means objective Σᵢ ‖φ(xᵢ) − μ_c(i)‖² of the true
partition and of each method's partitions (needs numpy: run with
bench/.venv/bin/python), which shows whether the rings are the optimum of
the objective these methods minimise on this layout.

    bench/.venv/bin/python bench/kernel_rings.py
"""

import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.environ.get("MEANSCAPE_BIN", os.path.join(ROOT, "target", "release", "meanscape"))
DATA = "gen:rings,k=10"
SIGMA = 1.0

METHODS = [
    ("kpower (paper defaults, s0 = −1)", "kpower", []),
    ("kpower, s0 = −3", "kpower", ["-P", "s0=-3"]),
    ("kpower, s0 = −10", "kpower", ["-P", "s0=-10"]),
    ("kernel-kmeans", "kernel-kmeans", []),
    ("spectral (NJW)", "spectral", []),
]


def run_one(algo, seed, extra):
    cmd = [BIN, "run", "--data", DATA, "--scale", "none", "--algo", algo, "-P", f"sigma={SIGMA}",
           "--seed", str(seed), "--init", "random", "--json", "-q"] + extra
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr}")
    return json.loads(out.stdout)


def kkm_objective(K, labels):
    import numpy as np
    tot = 0.0
    for c in np.unique(labels):
        idx = labels == c
        tot += idx.sum() - K[np.ix_(idx, idx)].sum() / idx.sum()  # K_ii = 1
    return float(tot)


def main():
    if not os.path.exists(BIN):
        sys.exit("build first: cargo build --release")
    K = truth = None
    try:
        import numpy as np
        csv = os.path.join(ROOT, "bench", "out", "rings10.csv")
        os.makedirs(os.path.dirname(csv), exist_ok=True)
        subprocess.run([BIN, "gen", "rings", "--n", "1000", "k=10", "--out", csv, "--force"],
                       check=True, capture_output=True)
        d = np.genfromtxt(csv, delimiter=",", names=True)
        X = np.column_stack([d["f1"], d["f2"]])
        truth = d["label"].astype(int)
        sq = (X * X).sum(1)
        K = np.exp(-np.maximum(sq[:, None] + sq[None, :] - 2 * X @ X.T, 0) / (2 * SIGMA**2))
    except ImportError:
        print("(numpy missing: objectives skipped)", file=sys.stderr)
    out = {}
    print(f"data {DATA}, σ = {SIGMA}, --scale none, 20 matched random starts")
    if K is not None:
        print(f"kernel k-means objective of the true rings: {kkm_objective(K, truth):.2f}")
    print()
    print("| method | mean ARI | min–max ARI | mean NMI | mean kernel k-means objective | empty clusters (mean) |")
    print("|---|---|---|---|---|---|")
    for name, algo, extra in METHODS:
        with ThreadPoolExecutor(2) as ex:
            runs = list(ex.map(lambda s: run_one(algo, s, extra), range(20)))
        aris = [r["metrics"]["ari"] for r in runs]
        nmis = [r["metrics"]["nmi"] for r in runs]
        empty = statistics.mean(sum(1 for c in r["sizes"] if c == 0) for r in runs)
        obj = "—"
        if K is not None:
            import numpy as np
            obj = f"{statistics.mean(kkm_objective(K, np.array(r['labels'])) for r in runs):.2f}"
        out[name] = {"ari": aris, "nmi": nmis, "command": runs[0]["command"]}
        print(f"| {name} | {statistics.mean(aris):.4f} | {min(aris):.4f}–{max(aris):.4f} | "
              f"{statistics.mean(nmis):.4f} | {obj} | {empty:.1f} |", flush=True)
    with open(os.path.join(ROOT, "bench", "out", "kernel_rings.json"), "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
