#!/usr/bin/env python3
"""Scale (issue 4, table 3): rff-power with D = 256 on a generated 1,000,000 × 50 dataset (k = 10)
and on Fashion-MNIST (70000 × 784, k = 10): wall time and peak memory from `/usr/bin/time -v`.

Each configuration runs once per repetition, one at a time, with the machine's 1-minute load
average recorded just before; the solver's own split (loading, feature map, k-means start,
iterations) comes from the JSON. Fashion-MNIST is read from bench/out/fashion-mnist.npy (float64,
train then test rows, as bench/iteration.py builds it); if it is missing it is built here from
Debian's dataset-fashion-mnist IDX files in /usr/share/datasets/fashion-mnist/, and its NMI is
computed against the IDX labels.

    python3 bench/rff_scale.py                    # the default set below, 1 repetition
    python3 bench/rff_scale.py --reps 3 --only blobs
    python3 bench/rff_scale.py --extra "-P rff_dim=128"
    python3 bench/rff_scale.py --breakdown       # where the million-point run's time goes

--breakdown runs the million-point rff-power (D = 256) three ways — stopped after one iteration
without the k-means start, after one iteration with it, and in full — and splits the wall time
into reading/generating + scaling (`load_ms`), the feature map (`rff.build_secs`), the k-means++
seeding (+ one iteration), the k-means start Θ₀ and the power iterations, by differences.

Writes bench/out/rff_scale.json (appends every run) and prints a Markdown table.
"""

import argparse
import gzip
import json
import re
import struct
import subprocess
import time
from array import array
from pathlib import Path

from rff_common import OUT, ROOT, binary, load_avg, nmi

FMNIST_DIR = Path("/usr/share/datasets/fashion-mnist")
BLOBS = "gen:blobs,n=1000000,p=50,k=10"

# (name, data arguments, algorithm arguments)
CONFIGS = [
    ("blobs", ["--data", BLOBS], ["--algo", "rff-power", "-P", "rff_dim=256"]),
    ("blobs", ["--data", BLOBS], ["--algo", "rff-power", "-P", "rff_dim=256", "-P", "rff_f32=1"]),
    ("blobs", ["--data", BLOBS], ["--algo", "rff-power", "-P", "rff_dim=128"]),
    ("blobs", ["--data", BLOBS], ["--algo", "kmeans"]),
    ("fashion", ["--label", "none", "--k", "10"], ["--algo", "rff-power", "-P", "rff_dim=256"]),
    ("fashion", ["--label", "none", "--k", "10"], ["--algo", "ip-rff-mkpower", "-P", "rff_dim=256"]),
]


def read_idx(path):
    raw = gzip.open(path).read() if str(path).endswith(".gz") else Path(path).read_bytes()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return raw[4 + 4 * ndim:], dims


def idx_file(stem):
    for c in (FMNIST_DIR / (stem + ".gz"), FMNIST_DIR / stem):
        if c.exists():
            return c
    raise SystemExit(f"{stem}[.gz] not found in {FMNIST_DIR} (apt-get install dataset-fashion-mnist)")


def fashion():
    """The .npy path (built if missing) and the 70000 labels (train then test)."""
    labels = []
    for stem in ("train-labels-idx1-ubyte", "t10k-labels-idx1-ubyte"):
        data, _ = read_idx(idx_file(stem))
        labels += list(data)
    npy = OUT / "fashion-mnist.npy"
    if not npy.exists():
        pixels = array("d")
        for stem in ("train-images-idx3-ubyte", "t10k-images-idx3-ubyte"):
            data, dims = read_idx(idx_file(stem))
            assert dims[1:] == [28, 28], dims
            pixels.extend(data)
        assert len(pixels) == 70000 * 784
        header = "{'descr': '<f8', 'fortran_order': False, 'shape': (70000, 784), }"
        header += " " * (118 - len(header)) + "\n"  # 10-byte preamble + 118 = 128, aligned
        tmp = npy.with_suffix(".tmp")
        with open(tmp, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
            if array("d", [1.0]).tobytes() != struct.pack("<d", 1.0):
                pixels.byteswap()
            pixels.tofile(f)
        tmp.replace(npy)
    return npy, labels


def time_v(cmd):
    """Runs cmd under /usr/bin/time -v: (stdout, wall seconds, peak RSS bytes)."""
    out = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", out.stderr).group(1)
    secs = 0.0
    for part in wall.split(":"):
        secs = secs * 60 + float(part)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr).group(1)) * 1024
    return out.stdout, secs, rss


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--only", choices=["blobs", "fashion"])
    ap.add_argument("--extra", default="", help="extra arguments for every run")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--max-load", type=float, default=None,
                    help="wait (up to 20 min) until the 1-minute load average is below this before each run")
    a = ap.parse_args()
    b = binary(a.rebuild)
    npy, fm_labels = (None, None) if a.only == "blobs" else fashion()
    log = OUT / "rff_scale.json"
    runs = json.loads(log.read_text()) if log.exists() else []
    rows = []
    configs = CONFIGS
    if a.breakdown:
        base = ["--algo", "rff-power", "-P", "rff_dim=256"]
        configs = [
            ("blobs", ["--data", BLOBS], base + ["--max-iter", "1", "-P", "init_iter=0"]),
            ("blobs", ["--data", BLOBS], base + ["--max-iter", "1"]),
            ("blobs", ["--data", BLOBS], base),
        ]
    for name, data_args, algo_args in configs:
        if a.only and name != a.only:
            continue
        if name == "fashion":
            data_args = ["--data", str(npy.relative_to(ROOT))] + data_args
        for _ in range(a.reps):
            if a.max_load is not None:
                t0 = time.time()
                while load_avg() > a.max_load and time.time() - t0 < 1200:
                    time.sleep(15)
            args = ["run"] + data_args + algo_args + a.extra.split() + ["--json", "-q"]
            load = load_avg()
            stdout, wall, rss = time_v([b] + args)
            d = json.loads(stdout)
            labels = d.pop("labels")
            d.pop("trace", None)
            m = d.get("metrics", {}).get("nmi")
            if m is None and name == "fashion":
                m = nmi(fm_labels, labels)
            rec = {
                "command": "meanscape " + " ".join(args),
                "name": name,
                "wall_s": wall,
                "peak_rss_bytes": rss,
                "load": load,
                "load_ms": d["load_ms"],
                "elapsed_ms": d["elapsed_ms"],
                "iterations": d["iterations"],
                "init_iterations": d.get("init_iterations"),
                "feature_secs": (d.get("rff") or {}).get("build_secs")
                or sum(v["build_secs"] for v in d.get("views", [])) or None,
                "nmi": m,
                "converged": d["converged"],
                "n": d["n"],
                "p": d["p"],
                "when": time.strftime("%Y-%m-%d %H:%M:%S"),
            }
            runs.append(rec)
            log.write_text(json.dumps(runs, indent=1))
            rows.append(rec)
            print(json.dumps(rec), flush=True)
    if a.breakdown and len(rows) == 3:
        r0, r1, r2 = rows
        feat = r2["feature_secs"]
        seed_one = r0["elapsed_ms"] / 1e3 - r0["feature_secs"]
        init = r1["elapsed_ms"] / 1e3 - r1["feature_secs"] - seed_one
        iters = r2["elapsed_ms"] / 1e3 - r2["feature_secs"] - seed_one - init
        print()
        print("| part | seconds |")
        print("|---|---|")
        print(f"| process start to end (wall) | {r2['wall_s']:.1f} |")
        print(f"| generate + scale (load_ms) | {r2['load_ms'] / 1e3:.1f} |")
        print(f"| feature map (n × 2D = {r2['n']} × 512) | {feat:.1f} |")
        print(f"| k-means++ seeding + 1 iteration | {seed_one:.1f} |")
        print(f"| k-means start Θ₀ ({r1['init_iterations']} iterations) | {init:.1f} |")
        print(f"| power iterations ({r2['iterations']}, ≈ {iters / max(1, r2['iterations'] - 1):.2f} s each) | {iters:.1f} |")
        print(f"| rest (JSON, labels, exit) | {r2['wall_s'] - r2['load_ms'] / 1e3 - r2['elapsed_ms'] / 1e3:.1f} |")
    print()
    print("| data | command | wall (s) | peak RSS (GiB) | load | read+scale (s) | features (s) | k-means Θ₀ it | "
          "power it | NMI |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        alg = r["command"].split("--algo ")[1].replace(" --json -q", "")
        fs = f"{r['feature_secs']:.1f}" if r["feature_secs"] else "–"
        print(f"| {r['name']} ({r['n']}×{r['p']}) | {alg} | {r['wall_s']:.1f} | {r['peak_rss_bytes'] / 2**30:.2f} | "
              f"{r['load']:.1f} | {r['load_ms'] / 1e3:.1f} | {fs} | {r['init_iterations'] if r['init_iterations'] is not None else '–'} | "
              f"{r['iterations']} | {r['nmi']:.4f} |")


if __name__ == "__main__":
    main()
