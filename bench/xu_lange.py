#!/usr/bin/env python3
"""Xu & Lange (2019) style comparison: power k-means vs Lloyd's k-means on Gaussian blobs.

What it measures
----------------
Clustering quality (NMI against the generating labels), iteration counts and solver time of

* `kmeans`  -- Lloyd's k-means,
* `power`   -- power k-means with its defaults (s0 = -1, eta = 1.04, period T = 5),
* `power`   -- power k-means with s0 = -3,

on generated isotropic Gaussian blobs with n = 2500 points, k = 25 clusters, p in {2, 10, 50}
dimensions and 20 seeds per p (Xu & Lange's simulation design: many overlapping clusters, where
Lloyd often stops in a poor local minimum).

How
---
For each p and seed S the data set is `gen:blobs,n=2500,k=25,p=P,sep=SEP,seed=S` (centres
N(0, s^2 I) with s chosen so that the root-mean-square distance between two centres is SEP*sd; points
are centre + N(0, I)). All three runs use `--init random --seed S`: the k initial centres are k
distinct data rows chosen from the seed alone, so Lloyd and both power runs start from the *same*
centres and differ only in the algorithm. Data are clustered as generated (`--scale none`; the
features already share one scale), with every other parameter at its default (power stops when the
objective changes by less than tol = 1e-6 relatively over one period; kmeans when no label changes or
the centre shift is below scikit-learn's tolerance). Since power's reported `objective` is its
power-mean objective, each run's k-means objective (within-cluster sum of squares of its final
labels) is computed here on the same data, regenerated with `meanscape gen`. A seed counts as a win
for power if its NMI exceeds Lloyd's by more than 1e-9, a loss if it is lower by more than that, and
a tie otherwise.

Choice of SEP = 16. A sweep (`python3 bench/xu_lange.py --sweep`, 20 seeds; raw results in
bench/out/xu_lange_sweep.json) gave these mean NMIs of Lloyd from random rows / of the best of 20
k-means++ restarts (a proxy for what a good optimiser of the k-means objective can reach):

    sep   p=2            p=10           p=50
      8   0.653 / 0.653  0.924 / 0.960  0.951 / 0.991
     12   0.779 / 0.788  0.943 / 0.998  0.954 / 0.999
     16   0.845 / 0.863  0.941 / 1.000  0.948 / 1.000    <- chosen
     20   0.883 / 0.908  0.939 / 1.000  0.945 / 1.000

At sep = 16 Lloyd's mean NMI is clearly below 1 for every p (0.85-0.95, inside the 0.8-0.95 band
asked for) while the problem is solvable: for p = 10 and 50 the best restart recovers the clusters
exactly (NMI 1.000), so Lloyd's shortfall there is local minima, not overlap. With p = 2 and 25
random centres in the plane some centres always lie close together, so part of the gap is overlap
that no method can undo (ceiling 0.86); smaller sep makes p = 2 overlap-bound (Lloyd = ceiling at
sep <= 8) and larger sep does not close the p = 2 ceiling much faster. One SEP is used for all p so
that the rows differ only in dimension.

Runs go through a pool of 2 worker threads, each running one `meanscape` process at a time with
RAYON_NUM_THREADS=1, so the two cores are not oversubscribed and `ms` (the solver's `elapsed_ms`,
k-means++/random seeding included, loading excluded) is single-threaded time.

Output: a markdown table on stdout and every run's result in bench/out/xu_lange.json.

Run from the repo root:  python3 bench/xu_lange.py   [--seeds 20] [--sep 16] [--sweep]
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
OUT = BENCH / "out"

from venv_common import ensure_venv  # noqa: E402

if __name__ == "__main__":
    ensure_venv(__file__)

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

try:  # the SSE columns need numpy; run_one (imported by bench/paper_tables.py) does not
    import numpy as np  # noqa: E402
except ImportError:
    np = None

# A snapshot of target/release/meanscape, taken right after the build; MEANSCAPE_BIN overrides it.
BIN = Path(os.environ.get("MEANSCAPE_BIN", OUT / "meanscape-xu_lange"))
N, K, PS = 2500, 25, (2, 10, 50)
SEP = 16.0
TIE = 1e-9
# column name -> extra arguments of `meanscape run` (all three start from the same random rows)
METHODS = {
    "lloyd": ["--algo", "kmeans", "--init", "random"],
    "power": ["--algo", "power", "--init", "random"],
    "power_s3": ["--algo", "power", "--init", "random", "--s0", "-3"],
}
# --sweep's ceiling: lowest-objective of 20 k-means++ restarts (seeds S..S+19)
SWEEP_ONLY = {"best_of_20": ["--algo", "kmeans", "--init", "kmeans++", "--restarts", "20"]}


def build():
    if "MEANSCAPE_BIN" in os.environ:
        return
    print("cargo build --release ...", file=sys.stderr)
    subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    # Others may rebuild target/ while we measure: run a private copy so every run uses one binary.
    OUT.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "target" / "release" / "meanscape", BIN)


def run_one(job):
    p, seed, sep, method = job
    data = f"gen:blobs,n={N},k={K},p={p},sep={sep:g},seed={seed}"
    cmd = [str(BIN), "run", "--data", data, "--scale", "none", *{**METHODS, **SWEEP_ONLY}[method],
           "--seed", str(seed), "--json", "-q"]
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stderr}")
    j = json.loads(r.stdout)
    return dict(p=p, seed=seed, sep=sep, method=method, nmi=j["metrics"]["nmi"], ari=j["metrics"]["ari"],
                objective=j["objective"], iterations=j["iterations"], converged=j["converged"],
                ms=j["elapsed_ms"], empty=sum(1 for s in j["sizes"] if s == 0), command=" ".join(cmd[1:]),
                labels=j["labels"])


def kmeans_sse(runs):
    """Add `sse` (the k-means objective of the run's labels) to runs of one (p, seed).

    The algorithms' own `objective`s differ in kind (power reports its power-mean objective), so the
    data are regenerated with `meanscape gen` (same generator, same seed) and the within-cluster sum
    of squares of each labelling is computed here. The regenerated labels are checked against the
    binary's NMI to make sure it is the same data."""
    from sklearn.metrics import normalized_mutual_info_score as nmi
    r0 = runs[0]
    out = subprocess.run([str(BIN), "gen", "blobs", f"n={N}", f"k={K}", f"p={r0['p']}", f"sep={r0['sep']:g}",
                          f"seed={r0['seed']}"], capture_output=True, text=True, check=True).stdout
    data = np.loadtxt(out.splitlines()[1:], delimiter=",")
    X, truth = data[:, :-1], data[:, -1].astype(int)
    for r in runs:
        lab = np.asarray(r.pop("labels"))
        assert abs(nmi(truth, lab) - r["nmi"]) < 1e-6, "regenerated data differ from the run's data"
        r["sse"] = float(sum(((X[lab == c] - X[lab == c].mean(axis=0)) ** 2).sum() for c in np.unique(lab)))


def run_all(jobs):
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(run_one, jobs))


def sweep(seeds):
    """Lloyd's mean NMI for a few separations (the basis of the SEP choice), next to a 'ceiling':
    the NMI of the best of 20 k-means++ restarts (lowest objective), i.e. what a good optimiser
    of the k-means objective reaches on the same data."""
    seps = (4, 6, 8, 10, 12, 16, 20)
    res = run_all([(p, s, sep, m) for sep in seps for p in PS for s in range(seeds)
                   for m in ("lloyd", "best_of_20")])
    for r in res:
        del r["labels"]
    (OUT / "xu_lange_sweep.json").write_text(json.dumps(res, indent=1))
    print("Mean NMI of Lloyd (random init) / best of 20 k-means++ restarts, by sep and p, %d seeds\n" % seeds)
    print("| sep | " + " | ".join(f"p={p}" for p in PS) + " |")
    print("|---:|" + "---:|" * len(PS))
    for sep in seps:
        cells = []
        for p in PS:
            v = [np.mean([r["nmi"] for r in res if r["sep"] == sep and r["p"] == p and r["method"] == m])
                 for m in ("lloyd", "best_of_20")]
            cells.append(f"{v[0]:.3f} / {v[1]:.3f}")
        print(f"| {sep} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--sep", type=float, default=SEP)
    ap.add_argument("--sweep", action="store_true",
                    help="only sweep sep: Lloyd and a best-of-20 ceiling (how SEP was chosen)")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    build()
    if args.sweep:
        return sweep(args.seeds)

    jobs = [(p, s, args.sep, m) for p in PS for s in range(args.seeds) for m in METHODS]
    res = run_all(jobs)
    by = {(r["p"], r["seed"], r["method"]): r for r in res}
    for p in PS:
        for s in range(args.seeds):
            kmeans_sse([by[(p, s, m)] for m in METHODS])
    out = OUT / "xu_lange.json"
    out.write_text(json.dumps(dict(n=N, k=K, sep=args.sep, seeds=args.seeds, runs=res), indent=1))

    def col(p, m, key):
        return np.array([by[(p, s, m)][key] for s in range(args.seeds)], dtype=float)

    def msd(v):
        return f"{v.mean():.3f} ± {v.std(ddof=1):.3f}"

    def wtl(p, m):
        d = col(p, m, "nmi") - col(p, "lloyd", "nmi")
        return f"{(d > TIE).sum()}/{(abs(d) <= TIE).sum()}/{(d < -TIE).sum()}"

    print(f"n={N}, k={K}, sep={args.sep:g}, {args.seeds} seeds per p, --init random --seed S (same start for all)\n")
    print("| p | NMI Lloyd | NMI power (s0=-1) | NMI power (s0=-3) | power s0=-1 vs Lloyd W/T/L "
          "| power s0=-3 vs Lloyd W/T/L | iters Lloyd / power / power-3 | ms Lloyd / power / power-3 |")
    print("|---:|---:|---:|---:|:---:|:---:|---:|---:|")
    for p in PS:
        nmi = [msd(col(p, m, "nmi")) for m in METHODS]
        it = " / ".join(f"{col(p, m, 'iterations').mean():.0f}" for m in METHODS)
        ms = " / ".join(f"{col(p, m, 'ms').mean():.1f}" for m in METHODS)
        print(f"| {p} | {nmi[0]} | {nmi[1]} | {nmi[2]} | {wtl(p, 'power')} | {wtl(p, 'power_s3')} | {it} | {ms} |")

    print("\nAlso: k-means objective (within-cluster SS of the final labels) relative to Lloyd's, mean over "
          "seeds (<1 = power found a better k-means solution); runs with empty clusters; runs not converged "
          "by max_iter\n")
    print("| p | SSE power/Lloyd | SSE power-3/Lloyd | empty-cluster runs Lloyd / power / power-3 "
          "| not converged Lloyd / power / power-3 |")
    print("|---:|---:|---:|---:|---:|")
    for p in PS:
        rel = [np.mean(col(p, m, "sse") / col(p, "lloyd", "sse")) for m in ("power", "power_s3")]
        empty = " / ".join(str(int((col(p, m, "empty") > 0).sum())) for m in METHODS)
        nconv = " / ".join(str(int((col(p, m, "converged") == 0).sum())) for m in METHODS)
        print(f"| {p} | {rel[0]:.4f} | {rel[1]:.4f} | {empty} | {nconv} |")
    print(f"\nW/T/L = seeds where power's NMI was higher / equal (±{TIE:g}) / lower than Lloyd's.")
    print(f"raw results: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
