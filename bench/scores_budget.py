#!/usr/bin/env python3
"""Label-free scores within budget (issue 23): for every algorithm of `meanscape algorithms`, one
`meanscape run --json` on generated blobs (p = 50, k = 10), with the scores and with `--no-scores`,
each under `/usr/bin/time -v`. Reports the solver time (`elapsed_ms`), the scores' time
(`scores_ms`, measured in the same process right after the solver), their ratio, and the peak
resident memory of the run with and without the scores. Plus the rff-power line of the issue
(10⁶ × 50, D = 256, f32 map).

n is 10⁵ rows, except for the algorithms that build n×n matrices (their budget refuses 10⁵ rows);
they run at --kernel-n rows (default 10000) to keep the bench within minutes on a shared machine.
The largest n the default budget (half the RAM, 11.8 GiB on the 23 GiB machine) accepts is about
56000 for one kernel (kernel-kmeans, kpower: lower triangle, n²/2 × 8 bytes), 16000 for mkpower
(12 kernels) and 15000 for mkkm and dmkkm (12 kernels and a dense combined one); the scores'
share falls as n grows, their cost being one Gram product against the solver's one per iteration.

The machine is shared: the 1-minute load average is printed with every row; compare ratios
(scores against the solver in the same process), not seconds across rows.

    python3 bench/scores_budget.py                      # every algorithm + the rff-power line
    python3 bench/scores_budget.py --only kmeans,power --no-rff
    MEANSCAPE_BIN=target/release/meanscape python3 bench/scores_budget.py

Writes bench/out/scores_budget.md (the table) and bench/out/scores_budget.json (the raw rows).
"""

import argparse
import json
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
KERNEL_ALGOS = {"kernel-kmeans", "kpower", "mkpower", "dmkkm", "mkkm", "spectral"}
RFF_DATA = "gen:blobs,n=1000000,p=50,k=10"
RFF_ARGS = ["--algo", "rff-power", "-P", "rff_dim=256", "-P", "rff_f32=1"]


def binary():
    if "MEANSCAPE_BIN" in os.environ:
        return os.environ["MEANSCAPE_BIN"]
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    return str(ROOT / "target" / "release" / "meanscape")


def algorithms(exe):
    out = subprocess.run([exe, "algorithms"], capture_output=True, text=True, check=True).stdout
    return [m.group(1) for m in re.finditer(r"^  (\S+)\s+\S", out, re.M)]


def load_avg():
    return float(Path("/proc/loadavg").read_text().split()[0])


def run(exe, data, args, scores=True):
    """One run under /usr/bin/time -v: (JSON report or None, peak RSS in bytes, wall s, error)."""
    cmd = ["/usr/bin/time", "-v", exe, "run", "--data", data, *args, "--json", "-q"]
    if not scores:
        cmd.append("--no-scores")
    p = subprocess.run(cmd, capture_output=True, text=True)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", p.stderr)
    secs = None
    if wall:
        parts = [float(x) for x in wall.group(1).split(":")]
        secs = sum(v * 60 ** i for i, v in enumerate(reversed(parts)))
    peak_b = int(peak.group(1)) * 1024 if peak else None
    if p.returncode != 0:
        err = [l for l in p.stderr.splitlines() if l.strip() and not l.startswith("\t")]
        return None, peak_b, secs, (err[0] if err else f"exit {p.returncode}")
    return json.loads(p.stdout), peak_b, secs, None


def gib(b):
    return "–" if b is None else f"{b / 2**30:.3f}"


def measure(exe, algo, n, extra):
    data = f"gen:blobs,n={n},p=50,k=10"
    args = ["--algo", algo, *extra]
    load = load_avg()
    rep, peak_with, _, err = run(exe, data, args, True)
    row = {"algorithm": algo, "n": n, "load": load}
    if rep is None:
        row["error"] = err
        return row
    _, peak_without, _, err2 = run(exe, data, args, False)
    solver = rep["elapsed_ms"] / 1e3
    scores = rep["scores_ms"] / 1e3
    m = rep.get("metrics") or {}
    row.update(
        solver_s=solver,
        scores_s=scores,
        ratio=scores / solver if solver > 0 else None,
        iterations=rep["iterations"],
        space=m.get("space"),
        silhouette_sample=m.get("silhouette_sample"),
        peak_with=peak_with,
        peak_without=peak_without if err2 is None else None,
    )
    return row


def table(rows):
    head = (
        "| algorithm | n | iterations | space | solver s | scores s | scores/solver | "
        "peak with scores GiB | peak without GiB | extra peak | silhouette sample | load |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['algorithm']} | {r['n']} | refused: {r['error']} |" + " |" * 9)
            continue
        extra = (
            f"{(r['peak_with'] - r['peak_without']) / r['peak_without'] * 100:+.1f} %"
            if r["peak_with"] and r["peak_without"]
            else "–"
        )
        lines.append(
            f"| {r['algorithm']} | {r['n']} | {r['iterations']} | {r['space']} | "
            f"{r['solver_s']:.3f} | {r['scores_s']:.3f} | {r['ratio'] * 100:.1f} % | "
            f"{gib(r['peak_with'])} | {gib(r['peak_without'])} | {extra} | "
            f"{r['silhouette_sample'] or 'all rows'} | {r['load']:.1f} |"
        )
    return head + "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--kernel-n", type=int, default=10_000)
    ap.add_argument("--only", help="comma-separated algorithms")
    ap.add_argument("--no-rff", action="store_true", help="skip the 10⁶-row rff-power line")
    ap.add_argument("--out", default="scores_budget", help="the name of the .md and .json written in bench/out")
    args = ap.parse_args()
    exe = binary()
    algos = algorithms(exe)
    if args.only:
        algos = [a for a in algos if a in args.only.split(",")]
    rows = []
    for a in algos:
        n = args.kernel_n if a in KERNEL_ALGOS else args.n
        r = measure(exe, a, n, [])
        print(json.dumps(r), flush=True)
        rows.append(r)
    text = "## Label-free scores against the solver, per algorithm (p = 50, k = 10)\n\n" + table(rows)
    if not args.no_rff:
        load = load_avg()
        rep, peak, wall, err = run(exe, RFF_DATA, RFF_ARGS, True)
        _, peak0, _, _ = run(exe, RFF_DATA, RFF_ARGS, False)
        if rep is None:
            text += f"\nrff-power 10⁶ × 50, D = 256, f32: failed: {err}\n"
        else:
            r = {
                "algorithm": "rff-power (10⁶ × 50, D = 256, f32)",
                "n": rep["n"],
                "load": load,
                "wall_s": wall,
                "solver_s": rep["elapsed_ms"] / 1e3,
                "scores_s": rep["scores_ms"] / 1e3,
                "load_s": rep["load_ms"] / 1e3,
                "map_build_s": (rep.get("rff") or {}).get("build_secs"),
                "init_iterations": rep.get("init_iterations"),
                "iterations": rep["iterations"],
                "peak_with": peak,
                "peak_without": peak0,
            }
            print(json.dumps(r), flush=True)
            rows.append(r)
            text += (
                "\n## rff-power, 10⁶ × 50, D = 256, f32 map (target ≤ 2.5 GiB, ≤ 40 s)\n\n"
                "| wall s | load s | map build s | k-means start iters | power iters | solver s | "
                "scores s | peak with scores GiB | peak without GiB | load |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n"
                f"| {wall:.1f} | {r['load_s']:.1f} | {r['map_build_s']:.1f} | {r['init_iterations']} | "
                f"{r['iterations']} | {r['solver_s']:.1f} | {r['scores_s']:.2f} | {gib(peak)} | "
                f"{gib(peak0)} | {load:.1f} |\n"
            )
    print()
    print(text)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{args.out}.md").write_text(text)
    (OUT / f"{args.out}.json").write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
