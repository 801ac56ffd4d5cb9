#!/usr/bin/env python3
"""Issue 16 (HW2 part): the multi-view RFF methods on the UCI handwritten digits.

HW2 is the pixel (240 columns) and profile-correlation (216) views of ../shared/data/handwritten.csv
(columns 357-596 and 77-292), n = 2000, k = 10; "six views" is all of them (fou, fac, kar, pix,
zer, mor). Protocol: 20 starts (seeds 0..19, one restart each; the RFF methods also draw their
frequencies from rff_seed = the start's seed, so the spread covers the feature randomness),
meanscape's defaults unless the row says otherwise, mean ± sd of ACC and NMI. The single-view
baselines run on the two views concatenated (a CSV written to bench/out/, git-ignored).

    python3 bench/hw2.py                       # both tables with target/release/meanscape
    MEANSCAPE_BIN=/path/to/old/meanscape python3 bench/hw2.py --tag before
    python3 bench/hw2.py --starts 5 --tables hw2

Writes bench/out/hw2_<tag>.json (every run, cached by command line: an interrupted run resumes)
and prints Markdown tables.
"""

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data", "handwritten.csv")
OUT = os.path.join(ROOT, "bench", "out")
BIN = os.environ.get("MEANSCAPE_BIN", os.path.join(ROOT, "target", "release", "meanscape"))

V2 = "357-596,77-292"
V6 = "fou=1-76,fac=77-292,kar=293-356,pix=357-596,zer=597-643,mor=644-649"
# The paper's settings: one absolute σ = 1000 for every view on the raw data, D = ⌈4·ln³(2k)⌉
# for every view, no per-view distance normalisation, a fixed s₀ = −15 (its grid's "15"), the
# possibilistic scale η at Krishnapuram & Keller's value.
# D is given: meanscape's default D is chosen from the data (kernel error ≤ 0.03) since issue 27.
PAPER = ["--scale", "none", "-P", "sigma=1000", "-P", "sigma_abs=1", "-P", "view_dim=0",
         "-P", "view_norm=0", "-P", "s0_soft=0", "--s0", "-15", "-P", "rff_dim=108"]
PAPER_IP = PAPER + ["-P", "eta_scale=1", "-P", "alpha_typ=1"]

# (label, data, args); data "all" = handwritten.csv, "concat" = the two HW2 views only.
HW2_ROWS = [
    ("ip-rff-mkpower", "all", ["--algo", "ip-rff-mkpower", "--views", V2]),
    ("rff-mkpower", "all", ["--algo", "rff-mkpower", "--views", V2]),
    ("ip-rff-mkpower --scale none", "all", ["--algo", "ip-rff-mkpower", "--views", V2, "--scale", "none"]),
    ("ip-rff-mkpower -P sigma=1000 --scale none", "all",
     ["--algo", "ip-rff-mkpower", "--views", V2, "-P", "sigma=1000", "--scale", "none"]),
    ("ip-rff-mkpower, the paper's settings", "all", ["--algo", "ip-rff-mkpower", "--views", V2] + PAPER_IP),
    ("rff-mkpower, the paper's settings", "all", ["--algo", "rff-mkpower", "--views", V2] + PAPER),
    ("rff-mkpower, the paper's s₀ = −15 (otherwise defaults)", "all",
     ["--algo", "rff-mkpower", "--views", V2, "-P", "s0_soft=0", "--s0", "-15"]),
    ("rff-mkpower, no per-view D (view_dim=0)", "all", ["--algo", "rff-mkpower", "--views", V2, "-P", "view_dim=0"]),
    ("ip-rff-mkpower, η at the K&K scale (eta_scale=1)", "all",
     ["--algo", "ip-rff-mkpower", "--views", V2, "-P", "eta_scale=1"]),
    ("rff-mkpower -P rff_dim=1024", "all", ["--algo", "rff-mkpower", "--views", V2, "-P", "rff_dim=1024"]),
    ("ip-rff-mkpower -P rff_dim=1024", "all", ["--algo", "ip-rff-mkpower", "--views", V2, "-P", "rff_dim=1024"]),
    ("kmeans (concatenated)", "concat", ["--algo", "kmeans"]),
    ("power (concatenated)", "concat", ["--algo", "power"]),
    ("kpower (concatenated)", "concat", ["--algo", "kpower"]),
    ("rff-power (concatenated)", "concat", ["--algo", "rff-power"]),
    ("spectral (concatenated)", "concat", ["--algo", "spectral"]),
]
SIX_ROWS = [
    ("ip-rff-mkpower", "all", ["--algo", "ip-rff-mkpower", "--views", V6]),
    ("rff-mkpower", "all", ["--algo", "rff-mkpower", "--views", V6]),
    ("ip-rff-mkpower, the paper's settings", "all", ["--algo", "ip-rff-mkpower", "--views", V6] + PAPER_IP),
    ("rff-mkpower, the paper's settings", "all", ["--algo", "rff-mkpower", "--views", V6] + PAPER),
    ("kmeans (649 columns)", "all", ["--algo", "kmeans"]),
]


def view_csv(name, ranges):
    """bench/out/NAME.csv: the columns `ranges` (1-based, inclusive (from, to) pairs) of
    handwritten.csv, then its label column."""
    path = os.path.join(OUT, f"{name}.csv")
    if not os.path.exists(path):
        os.makedirs(OUT, exist_ok=True)
        with open(DATA, newline="") as f:
            rows = list(csv.reader(f))
        cols = [i for lo, hi in ranges for i in range(lo - 1, hi)]
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            for r in rows:
                w.writerow([r[i] for i in cols] + [r[-1]])
    return path


def concat_csv():
    """The two HW2 views (pix, fac) side by side."""
    return view_csv("hw2_concat", [(357, 596), (77, 292)])


def run(args, cache):
    cmd = [BIN, "run"] + args + ["--json", "-q"]
    key = " ".join(args)
    if key in cache:
        return cache[key]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"}
    d = json.loads(out.stdout)
    r = {"acc": d["metrics"]["acc"], "nmi": d["metrics"]["nmi"], "iterations": d["iterations"],
         "alpha": d.get("kernel_weights")}
    cache[key] = r
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--tables", default="hw2,six")
    ap.add_argument("--tag", default="after")
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args()
    if not os.path.exists(DATA):
        sys.exit(f"{DATA} is missing (the reference datasets live in ../shared/data/)")
    os.makedirs(OUT, exist_ok=True)
    store = os.path.join(OUT, f"hw2_{a.tag}.json")
    cache = json.load(open(store)) if os.path.exists(store) else {}
    paths = {"all": DATA, "concat": concat_csv()}
    tables = {"hw2": ("HW2 (pix + fac)", HW2_ROWS), "six": ("six views", SIX_ROWS)}
    for t in a.tables.split(","):
        title, rows = tables[t]
        print(f"\n{title}, {a.starts} starts ({os.path.basename(BIN)}, {a.tag})\n")
        print("| method | ACC mean ± sd | NMI mean ± sd | iterations | final α (start 0) |")
        print("|---|---|---|---|---|")
        for label, data, args in rows:
            jobs = []
            for seed in range(a.starts):
                x = ["--data", paths[data], "--seed", str(seed)] + args
                if "rff" in args[1]:
                    x += ["-P", f"rff_seed={seed}"]
                jobs.append(x)
            with ThreadPoolExecutor(a.jobs) as ex:
                rs = list(ex.map(lambda x: run(x, cache), jobs))
            with open(store, "w") as f:
                json.dump(cache, f, indent=1)
            bad = [r for r in rs if "error" in r]
            if bad:
                print(f"| {label} | not available: {bad[0]['error'][:100]} | | | |")
                continue
            acc = [r["acc"] for r in rs]
            nmi = [r["nmi"] for r in rs]
            sd = lambda v: statistics.stdev(v) if len(v) > 1 else 0.0
            al = rs[0]["alpha"]
            al = ", ".join(f"{x:.2f}" for x in al) if al else "–"
            print(f"| {label} | {statistics.mean(acc):.3f} ± {sd(acc):.3f} | {statistics.mean(nmi):.3f} ± {sd(nmi):.3f} | "
                  f"{statistics.mean(r['iterations'] for r in rs):.0f} | {al} |", flush=True)


if __name__ == "__main__":
    main()
