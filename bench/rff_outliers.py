#!/usr/bin/env python3
"""Robustness to outliers (issue 4, table 2): usps with 10 % uniform outliers added, NMI on the
inliers for ip-rff-mkpower vs rff-mkpower vs rff-power.

The contaminated file, bench/out/usps_outliers.csv (git-ignored), is usps.csv (11000 × 256, raw
pixel values) followed by 1100 rows drawn uniformly in the per-feature [min, max] box of the data
(seeded, so the file is reproducible), with the label `outlier`. Every method then runs on it as
a user would (--scale standard over all 12100 rows, --k 10, defaults otherwise; 20 starts, seed i
and rff_seed = i), and the NMI is computed on the 11000 inliers only from the returned labels.
For ip-rff-mkpower the table also gives how many points it flags as outliers (typicality < 1/2)
and which fraction of the injected ones it catches; for every method, the largest share of the
injected outliers that lands in a single cluster. In 256 dimensions uniform points concentrate
(their pairwise distances are nearly equal), so they tend to form a cluster of their own and
take one of the k = 10 clusters from the digits; the --k 11 rows give them that cluster
explicitly, so the inlier NMI then measures the 10 digit clusters alone.

    python3 bench/rff_outliers.py                # 20 starts, k = 10 and 11
    python3 bench/rff_outliers.py --starts 5 --extra "-P rff_dim=256"
    python3 bench/rff_outliers.py --design scattered --k 10   # 3 % far, mutually distant outliers

Writes bench/out/rff_outliers.json (every run, cached) and prints a Markdown table.
"""

import argparse
import csv
import random
import statistics

from rff_common import OUT, ROOT, Cache, binary, data_path, nmi, run

METHODS = ["ip-rff-mkpower", "rff-mkpower", "rff-power"]


def contaminate(frac=0.10, seed=0):
    src = ROOT / data_path("usps")
    dst = OUT / "usps_outliers.csv"
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    li = header.index("label")
    cols = [i for i in range(len(header)) if i != li]
    lo = {i: min(float(r[i]) for r in body) for i in cols}
    hi = {i: max(float(r[i]) for r in body) for i in cols}
    rng = random.Random(seed)
    n_out = round(frac * len(body))
    out = []
    for _ in range(n_out):
        r = [""] * len(header)
        for i in cols:
            r[i] = repr(rng.uniform(lo[i], hi[i]))
        r[li] = "outlier"
        out.append(r)
    if not dst.exists():
        tmp = dst.with_suffix(".tmp")
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(header)
            w.writerows(body)
            w.writerows(out)
        tmp.replace(dst)
    truth = [r[li] for r in body]
    return dst, truth, len(body), n_out


def scattered(frac=0.03, radius=70.0, seed=0):
    """Inliers standardised with their own statistics; each outlier is a random inlier moved by
    `radius` (about 3.5 times the typical inlier distance, ~19) in a uniformly random direction:
    mutually distant, so no centroid can sit close to them (the case the bounded possibilistic
    loss is for). Runs use --scale none on this file."""
    src = ROOT / data_path("usps")
    dst = OUT / f"usps_scattered_{frac:g}.csv"
    with open(src, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    li = header.index("label")
    cols = [i for i in range(len(header)) if i != li]
    xs = [[float(r[i]) for i in cols] for r in body]
    n, p = len(xs), len(cols)
    mean = [sum(x[j] for x in xs) / n for j in range(p)]
    sd = [(sum((x[j] - mean[j]) ** 2 for x in xs) / (n - 1)) ** 0.5 or 1.0 for j in range(p)]
    z = [[(x[j] - mean[j]) / sd[j] for j in range(p)] for x in xs]
    rng = random.Random(seed)
    n_out = round(frac * n)
    outs = []
    for _ in range(n_out):
        base = z[rng.randrange(n)]
        g = [rng.gauss(0.0, 1.0) for _ in range(p)]
        norm = sum(v * v for v in g) ** 0.5
        outs.append([b + radius * v / norm for b, v in zip(base, g)])
    if not dst.exists():
        tmp = dst.with_suffix(".tmp")
        with open(tmp, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow([header[i] for i in cols] + ["label"])
            for zr, r in zip(z, body):
                w.writerow([f"{v:.6g}" for v in zr] + [r[li]])
            for o in outs:
                w.writerow([f"{v:.6g}" for v in o] + ["outlier"])
        tmp.replace(dst)
    truth = [r[li] for r in body]
    return dst, truth, n, n_out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--extra", default="", help="extra arguments for every run, e.g. '-P rff_dim=256'")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--k", default="10,11", help="comma-separated k values")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--design", choices=["uniform", "scattered"], default="uniform",
                    help="uniform: 10 %% uniform in the bounding box (default); scattered: 3 %% far, "
                         "mutually distant outliers, see scattered()")
    a = ap.parse_args()
    binary(a.rebuild)
    if a.design == "uniform":
        path, truth, n_in, n_out = contaminate()
        scale = []
    else:
        path, truth, n_in, n_out = scattered()
        scale = ["--scale", "none"]
    rel = str(path.relative_to(ROOT))
    cache = Cache(OUT / "rff_outliers.json")
    print(f"{rel}: {n_in} inliers + {n_out} {a.design} outliers")
    res = {}
    for k, m in [(k, m) for k in a.k.split(",") for m in a.methods.split(",")]:
        nm, flagged, caught, secs, alphas, lumped, pure = [], [], [], [], [], [], []
        for seed in range(a.starts):
            args = ["--data", rel, "--algo", m, "--k", k, "--seed", str(seed), "-P", f"rff_seed={seed}"]
            args += scale + a.extra.split()
            d = run(args, cache, keep=("labels",))
            labels = d["labels"]
            nm.append(nmi(truth, labels[:n_in]))
            out_labels = labels[n_in:]
            lumped.append(max(out_labels.count(c) for c in set(out_labels)) / n_out)
            # Clusters that are (almost) only outliers: a cluster taken from the data.
            sizes = {c: labels.count(c) for c in set(labels)}
            pure.append(sum(1 for c in sizes if out_labels.count(c) > 0.9 * sizes[c]))
            secs.append(d["elapsed_ms"] / 1e3)
            t = d.get("typicality")
            if t:
                rows = set(t["outlier_rows"])
                flagged.append(t["outliers"])
                caught.append(sum(1 for i in rows if i >= n_in) / n_out)
            if d.get("kernel_weights"):
                alphas.append(d["kernel_weights"])
        res[(k, m)] = dict(
            nmi=statistics.mean(nm), sd=statistics.stdev(nm) if len(nm) > 1 else 0.0, secs=statistics.mean(secs),
            flagged=statistics.mean(flagged) if flagged else None,
            caught=statistics.mean(caught) if caught else None,
            alpha=[round(statistics.mean(x), 3) for x in zip(*alphas)] if alphas else None,
            lumped=statistics.mean(lumped),
            pure=statistics.mean(pure),
        )
        print(k, m, res[(k, m)], flush=True)
    print()
    print("| k | method | inlier NMI, mean (sd) | outliers in one cluster | outlier-only clusters | "
          "flagged as outliers | injected outliers caught | mean α | time (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (k, m), r in res.items():
        fl = f"{r['flagged']:.0f}" if r["flagged"] is not None else "–"
        ca = f"{100 * r['caught']:.1f} %" if r["caught"] is not None else "–"
        al = str(r["alpha"]) if r["alpha"] else "–"
        print(f"| {k} | {m} | {r['nmi']:.4f} ({r['sd']:.3f}) | {100 * r['lumped']:.1f} % | {r['pure']:.2f} | {fl} | {ca} | {al} | "
              f"{r['secs']:.2f} |")


if __name__ == "__main__":
    main()
