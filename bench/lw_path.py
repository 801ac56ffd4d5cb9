#!/usr/bin/env python3
"""Regularisation path of LW-k-means on Leukemia (72 x 3571), 40 lambda values.

    meanscape path --data ../shared/data/leukemia.csv --algo lw --scale none --points 40 --json

The automatic grid runs from lambda_max (the smallest lambda that sets every weight to zero at the
initial partition, p^2 * alpha / min_l D_l) down to the largest lambda that keeps every feature
(p^2 * alpha / max_l D_l), log-spaced; each point is warm-started from the previous one. lambda is in
the authors' reference-code units (the paper's Table VI uses 0.0005 for Leukemia); `lambda*p` is the
dimensionless form (feature l is kept iff D_l < M / (lambda*p) at beta = 4, M the (-1/3)-power mean
of the dispersions). The table lists the points by increasing lambda, so #selected falls from p.
The same for sparse k-means over its bound s (standardised data) follows for comparison.

Output: markdown tables on stdout, the two path objects in bench/out/lw_path_*.json.
Run from the repo root:  python3 bench/lw_path.py [--points 40]
"""

import argparse

from lw_common import build, data_spec, run_json, save, table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=40)
    a = ap.parse_args()
    build()
    spec = data_spec("leukemia")
    args = ["path", "--data", spec, "--algo", "lw", "--scale", "none", "--points", str(a.points)]
    v = run_json(args)
    save("lw_path_leukemia.json", v)
    p = v["p"]
    print(f"    meanscape {' '.join(args)} --json")
    print(f"lambda_max = {v['lambda_max']:.6g}, alpha = {v['alpha']:.6g}, path solver time {v['elapsed_ms']:.0f} ms\n")
    rows = []
    for i, pt in enumerate(sorted(v["path"], key=lambda q: q["lambda"])):
        rows.append(
            [
                i + 1,
                f"{pt['lambda']:.4e}",
                f"{pt['lambda'] * p:.3f}",
                pt["selected"],
                f"{pt['metrics']['cer']:.4f}",
                pt["iterations"],
                f"{pt['objective']:.4e}",
            ]
        )
    print(table(["#", "λ (code units)", "λ·p", "selected", "CER", "iterations", "objective"], rows))

    sargs = ["path", "--data", spec, "--algo", "sparse-kmeans", "--points", str(a.points)]
    s = run_json(sargs)
    save("lw_path_leukemia_sparse.json", s)
    print(f"\n    meanscape {' '.join(sargs)} --json")
    print(f"sparse k-means: bound from 1.1 to {s['wbound_all']:.4g} (every feature kept), path solver time {s['elapsed_ms']:.0f} ms\n")
    rows = []
    for i, pt in enumerate(s["path"]):
        rows.append([i + 1, f"{pt['lambda']:.4g}", pt["selected"], f"{pt['metrics']['cer']:.4f}", pt["iterations"]])
    print(table(["#", "bound s", "selected", "CER", "iterations"], rows))


if __name__ == "__main__":
    main()
