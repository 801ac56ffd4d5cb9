#!/usr/bin/env python3
"""Kernel benchmark on usps.csv (n = 11000, p = 256, k = 10): Gram build time
and seconds per kpower iteration against the bound set by this machine's
matrix-product rate, 2n²k flops per iteration.

The timing runs in one process (examples/kernel_bench.rs) that measures the
GEMM rate with the crate's own product (faer) in the same rounds as the
kpower iterations, so both see the same machine load; the same ratio is also computed in CPU
seconds (all threads, /proc/self/task/*/schedstat), which time-slicing by
other processes does not inflate. numpy's rate
(OpenBLAS) is printed beside it for reference when numpy is importable.

    python3 bench/kernel_gemm.py [--data PATH] [--iters 10] [--rounds 5] [--gram f64 f32]

Writes bench/out/kernel_gemm.json (git-ignored).
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(os.path.dirname(ROOT), "shared", "data", "usps.csv")


def numpy_rate(m=2048):
    try:
        import numpy as np
    except ImportError:
        return None
    a = np.random.default_rng(0).random((m, m))
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        a @ a
        best = min(best, time.perf_counter() - t0)
    return 2 * m**3 / best / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--iters", type=int, default=10, help="kpower iterations per round")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--gram", nargs="*", default=["f64", "f32"])
    a = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--example", "kernel_bench"], cwd=ROOT, check=True,
                   capture_output=True)
    exe = os.path.join(ROOT, "target", "release", "examples", "kernel_bench")
    results = {}
    np_before = numpy_rate()
    for store in a.gram:
        out = subprocess.run([exe, a.data, str(a.iters), store, str(a.rounds)], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(out.stderr)
        results[store] = json.loads(out.stdout)
    np_after = numpy_rate()
    r0 = next(iter(results.values()))
    print(f"data {a.data}: n = {r0['n']}, p = {r0['p']}, k = {r0['k']}, {r0['threads']} threads; "
          f"{a.rounds} rounds of {a.iters} kpower iterations (Gaussian kernel, σ rule = {r0['gram_build']['sigma']:.4g})")
    if np_before:
        print(f"numpy (OpenBLAS) square GEMM rate: {np_before:.1f} GF/s before, {np_after:.1f} GF/s after")
    print()
    print("| storage | Gram build | GEMM rate (faer, best round) | bound 2n²k/rate | s/iteration (best round) | "
          "best / bound | median same-round ratio | median CPU-time ratio | K·Ω alone (best) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for store, r in results.items():
        kp = r["kpower"]
        kw = min(x["k_times_omega_s"] for x in r["rounds"])
        bound = kp["flops_per_iteration"] / (kp["best_gemm_gflops"] * 1e9)
        print(f"| {store} ({r['gram_build']['bytes'] / 2**20:.0f} MiB) | {r['gram_build']['seconds']:.2f} s "
              f"(GEMM part bound {r['gram_build']['gemm_bound_s']:.2f} s) | {kp['best_gemm_gflops']:.1f} GF/s | "
              f"{bound * 1e3:.1f} ms | {kp['best_per_iteration_s'] * 1e3:.1f} ms | {kp['best_vs_best']:.2f}× | "
              f"{kp['median_ratio_same_round']:.2f}× | {kp['median_cpu_ratio']:.2f}× | {kw * 1e3:.1f} ms |")
    print()
    for store, r in results.items():
        print(f"rounds ({store}): " + "; ".join(
            f"{x['gemm_gflops']:.0f} GF/s → {x['per_iteration_s'] * 1e3:.1f} ms/it ({x['ratio_to_bound']:.2f}×)"
            for x in r["rounds"]))
    os.makedirs(os.path.join(ROOT, "bench", "out"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "out", "kernel_gemm.json"), "w") as f:
        json.dump({"numpy_gflops": [np_before, np_after], "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
