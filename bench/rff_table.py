#!/usr/bin/env python3
"""rff-power against kpower: NMI and time for D in {16, 64, 256, 1024} (issue 4, table 1).

Protocol: standardised data (meanscape's default), the Gaussian kernel with the KPK bandwidth
rule for both (the `sigma` parameter's automatic default), 20 starts (seeds 0..19, one restart
each; rff-power also draws its frequencies from rff_seed = the start's seed, so the mean covers
the randomness of the features too), mean NMI and mean solver time (`elapsed_ms`: the Gram
matrix or the feature map plus the iterations; loading excluded). Runs one at a time, so the
times are not inflated by our own parallelism, and seed by seed through all rows, so every row is
timed under the same (drifting) load of the shared machine; the 1-minute load average at each
run's start is recorded and its mean printed.

Rows:
  kpower                 kpower at its defaults (s0 = -1, T = 5, k-means++ in kernel space)
  kpower s0=-15 T=3      kpower with rff-power's annealing schedule (same s0, T)
  rff-power D=…          rff-power at its defaults (s0 = -15, T = 3, Θ₀ = k-means on the features)
  rff-power D=… no Θ₀    the same with -P init_iter=0 (power k-means from the seed points, as kpower)

    python3 bench/rff_table.py                          # everything (kpower on usps is slow: ~1 min a start)
    python3 bench/rff_table.py --datasets seeds --starts 5
    python3 bench/rff_table.py --rebuild                # rebuild and re-pin the binary first

Writes bench/out/rff_table.json (every run, cached: an interrupted run resumes) and prints a
Markdown table.
"""

import argparse
import statistics

from rff_common import OUT, Cache, binary, data_path, run

DIMS = [16, 64, 256, 1024]


def rows(dims):
    out = [
        ("kpower", "kpower", []),
        ("kpower s0=-15 T=3", "kpower", ["--s0", "-15", "-P", "period=3"]),
    ]
    for d in dims:
        out.append((f"rff-power D={d}", "rff-power", ["-P", f"rff_dim={d}"]))
    for d in dims:
        out.append((f"rff-power D={d} no Θ₀", "rff-power", ["-P", f"rff_dim={d}", "-P", "init_iter=0"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="seeds,usps")
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--dims", default=",".join(map(str, DIMS)))
    ap.add_argument("--only", default="", help="comma-separated row labels to run (default: all)")
    ap.add_argument("--rebuild", action="store_true")
    a = ap.parse_args()
    binary(a.rebuild)
    cache = Cache(OUT / "rff_table.json")
    dims = [int(d) for d in a.dims.split(",")]
    only = {s.strip() for s in a.only.split(",") if s.strip()}
    results = {}
    for ds in a.datasets.split(","):
        path = data_path(ds)
        todo = [r for r in rows(dims) if not only or r[0] in only]
        runs = {label: [] for label, _, _ in todo}
        # Seed by seed, every row in turn: the rows' times are measured under
        # the same (drifting) machine load, so their ratios mean something.
        for seed in range(a.starts):
            for label, algo, extra in todo:
                args = ["--data", path, "--algo", algo, "--seed", str(seed)] + extra
                if algo.startswith("rff"):
                    args += ["-P", f"rff_seed={seed}"]
                runs[label].append(run(args, cache))
        for label, _, _ in todo:
            rs = runs[label]
            nmis = [r["metrics"]["nmi"] for r in rs]
            secs = [r["elapsed_ms"] / 1e3 for r in rs]
            results[(ds, label)] = {
                "nmi": statistics.mean(nmis),
                "nmi_sd": statistics.stdev(nmis) if len(nmis) > 1 else 0.0,
                "secs": statistics.mean(secs),
                "secs_median": statistics.median(secs),
                "iters": statistics.mean(r["iterations"] for r in rs),
                "load": statistics.mean(r["load"] for r in rs),
                "converged": sum(bool(r["converged"]) for r in rs),
            }
            r = results[(ds, label)]
            print(f"{ds:6} {label:28} NMI {r['nmi']:.4f} ± {r['nmi_sd']:.4f}  {r['secs']:8.3f} s  "
                  f"{r['iters']:6.1f} it  load {r['load']:.1f}", flush=True)
    print()
    print("| dataset | method | mean NMI (sd) | mean time (s) | median time (s) | × faster than kpower (means) | "
          "iterations | converged | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (ds, label), r in results.items():
        base = results.get((ds, "kpower"))
        speed = f"{base['secs'] / r['secs']:.1f}" if base else "–"
        print(f"| {ds} | {label} | {r['nmi']:.4f} ({r['nmi_sd']:.3f}) | {r['secs']:.3f} | {r['secs_median']:.3f} | {speed} | "
              f"{r['iters']:.0f} | {r['converged']}/{a.starts} | {r['load']:.1f} |")


if __name__ == "__main__":
    main()
