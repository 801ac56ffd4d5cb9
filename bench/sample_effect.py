#!/usr/bin/env python3
"""The effect of subsample-then-refine (`-P sample=N`) on the k-means cost, the NMI and the time
of `kmeans` and `power`, against the full run, on the same seeds.

    python3 bench/sample_effect.py [--bin PATH] [--seeds 3] [--quick] [--out bench/out/sample_effect.md]

Datasets: usps (../shared/data/usps.csv, standardised as the algorithms' default), Fashion-MNIST
train (raw pixels, `--scale none`, when /usr/share/datasets/fashion-mnist is installed; skipped with
--quick) and gen:blobs (200000 x 20, k = 10). k is the number of classes. Sample sizes: 256 and 1024
rows per centre, and every row. Each cell is the median over the seeds of the solver time (the JSON's
elapsed_ms), the iterations of both phases, the k-means cost of the final partition (metrics.cost)
relative to the full run's, and the NMI. Needs only Python 3 and a release build.
"""

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FASHION = Path("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")


def run(binary, data, algo, k, seed, extra):
    cmd = [binary, "run", "--data", data, "--algo", algo, "--k", str(k), "--seed", str(seed),
           "--json", "-q", *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()[-300:]}")
    d = json.loads(r.stdout)
    return {"ms": d["elapsed_ms"], "it": d["iterations"], "cost": d["metrics"]["cost"],
            "nmi": d["metrics"].get("nmi")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "meanscape"))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="usps and blobs only, one seed")
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "sample_effect.md"))
    args = ap.parse_args()
    seeds = 1 if args.quick else args.seeds
    sets = [("usps", str(ROOT.parent / "shared" / "data" / "usps.csv"), 10, []),
            ("blobs 200000 x 20", "gen:blobs,n=200000,p=20,k=10", 10, [])]
    if FASHION.exists() and not args.quick:
        sets.append(("Fashion-MNIST", str(FASHION), 10, ["--scale", "none"]))
    lines = ["| data | algorithm | sample | time (s) | iterations | cost / full run's | NMI |",
             "|---|---|---|---|---|---|---|"]
    for name, data, k, extra in sets:
        for algo in ("kmeans", "power"):
            full_cost = None
            for size in (0, 1024 * k, 256 * k):
                rows = [run(args.bin, data, algo, k, s, extra + ["-P", f"sample={size}"])
                        for s in range(seeds)]
                med = {key: statistics.median(r[key] for r in rows if r[key] is not None)
                       if any(r[key] is not None for r in rows) else None for key in rows[0]}
                if size == 0:
                    full_cost = med["cost"]
                nmi = "—" if med["nmi"] is None else f"{med['nmi']:.4f}"
                line = (f"| {name} | {algo} | {size or 'every row'} | {med['ms'] / 1e3:.2f} | {med['it']:.0f} | "
                        f"{med['cost'] / full_cost:.4f} | {nmi} |")
                print(line, file=sys.stderr)
                lines.append(line)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(f"Median of {seeds} seed(s); `python3 bench/sample_effect.py`.\n\n" + "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
