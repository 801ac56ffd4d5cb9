#!/usr/bin/env python3
"""Feature selection on generated data in the designs of the LW-k-means paper's Tables V/VIII.

The paper's synthetic sets s1..s7 have no published recipe; docs/methods/lw-kmeans.md#synthetic-sets reads
theirs off the repository files: n = 300, k = 3 clusters of 100, the first q features informative
(cluster means 3, 10, 17, sd 1-2), the rest noise (chi-squared, Poisson(10) or N(0, 10^2)). Our
`gen:sparse` generator draws informative features N(c*sep, 1), c = 0, 1, 2, and chi-squared(df)
noise, so we use it with sep = 7 (the paper's mean spacing) for

    s1-like   p = 50,  q = 20, df = 5   (Table V lambda 0.04)
    s2/s3-like p = 50, q = 30, df = 4   (lambda 0.02)
    s4-like   p = 100, q = 70, df = 10  (lambda 0.007; df = 10 has the mean of Poisson(10))
    s5-like   p = 200, q = 70, df = 10  (lambda 0.007)

plus the issue's example design p = 100, q = 20 at the generator's default sep = 5, and a hard
variant (sep = 1.5, overlapping clusters). Each of the 20 runs r uses data seed r and algorithm
seed r. Reported: mean MCC of the selection (weight > 0) against the true relevance, how many runs
reach MCC = 1, mean #selected and mean CER, for

* lw at the paper's lambda and at the default lambda = 1/p,
* sparse-kmeans with --tune gap (sparcl's largest gap; the paper's protocol), with --tune gap-1sd
  (the smallest bound within one sd of the largest gap, Witten & Tibshirani's alternative) and at
  its default bound sqrt(p)/2.

The paper (Table VIII) reports MCC = 1 for LW on every set and 1 / 0.75 / 0.96 / 0.50 / 0.63 for
sparse k-means on s1 / s2 / s3 / s4 / s5.

Output: markdown table on stdout, raw results in bench/out/lw_sparse_mcc.json.
Run from the repo root:  python3 bench/lw_sparse_mcc.py [--runs 20]
"""

import argparse

from lw_common import build, command, machine, mean, run_json, save, table

DESIGNS = [
    # name, generator keys, paper lambda, paper MCC (LW, sparse)
    ("s1-like", "n=300,p=50,q=20,k=3,sep=7,df=5", 0.04, ("1", "1")),
    ("s2/s3-like", "n=300,p=50,q=30,k=3,sep=7,df=4", 0.02, ("1", "0.754 / 0.959")),
    ("s4-like", "n=300,p=100,q=70,k=3,sep=7,df=10", 0.007, ("1", "0.502")),
    ("s5-like", "n=300,p=200,q=70,k=3,sep=7,df=10", 0.007, ("1", "0.628")),
    ("issue example", "n=300,p=100,q=20,k=3", 0.04, ("-", "-")),
    ("hard (sep 1.5)", "n=300,p=100,q=20,k=3,sep=1.5", 0.04, ("-", "-")),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    a = ap.parse_args()
    build()
    print(f"Machine: {machine()}; {a.runs} runs per cell (data seed = algorithm seed = r).\n")
    raw = {}
    rows = []
    for name, keys, lam, paper in DESIGNS:
        confs = [
            (f"lw λ={lam}", ["--algo", "lw", "-P", f"lambda={lam}"], paper[0]),
            ("lw λ=1/p", ["--algo", "lw"], "-"),
            ("sparse-kmeans --tune gap", ["--algo", "sparse-kmeans", "--tune", "gap"], paper[1]),
            ("sparse-kmeans --tune gap-1sd", ["--algo", "sparse-kmeans", "--tune", "gap-1sd"], paper[1]),
            ("sparse-kmeans s=√p/2", ["--algo", "sparse-kmeans"], "-"),
        ]
        for label, args, pm in confs:
            mccs, sels, cers = [], [], []
            for r in range(a.runs):
                spec = f"gen:sparse,{keys},seed={r}"
                v = run_json(["run", "--data", spec, *args, "--seed", str(r)])
                mccs.append(v["selection_mcc"])
                sels.append(v["selected_features"])
                cers.append(1.0 - v["metrics"]["acc"])
            raw[f"{name} | {label}"] = {
                "command": command(["run", "--data", f"gen:sparse,{keys},seed=R", *args, "--seed", "R"]),
                "mcc": mccs,
                "selected": sels,
                "cer": cers,
            }
            rows.append(
                [
                    name,
                    label,
                    f"{mean(mccs):.3f}",
                    f"{sum(1 for m in mccs if m == 1.0)}/{a.runs}",
                    pm,
                    f"{mean(sels):.1f}",
                    f"{mean(cers):.4f}",
                ]
            )
            print(f"  {name} {label}: MCC {mean(mccs):.3f}", flush=True)
    print()
    print(
        table(
            ["design", "configuration", "mean MCC", "runs with MCC = 1", "paper MCC (Table VIII)", "mean #selected", "mean CER"],
            rows,
        )
    )
    print("\nCommands (R = 0..%d):" % (a.runs - 1))
    for k, v in raw.items():
        print(f"    {v['command']} --json")
    print(f"\nraw results: {save('lw_sparse_mcc.json', raw)}")


if __name__ == "__main__":
    main()
