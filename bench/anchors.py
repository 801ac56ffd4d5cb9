#!/usr/bin/env python3
"""Speed anchors: meanscape's k-means and power k-means against the strongest k-means peers on
USPS (11000 x 256) and Fashion-MNIST (train, 60000 x 784), k = 10, raw pixels, in one run.

    python3 bench/anchors.py [--quick] [--seeds 3] [--bin PATH] [--out bench/anchors.md]

Contenders (each run with seeds 0..N-1; the table shows the median of each column over the seeds):
- meanscape `kmeans` and `power` with their defaults, `--scale none`, f64 (and f32 with
  `--dtype f32` when `meanscape run --help` lists it). Time is the JSON's `elapsed_ms` (the
  solver; loading excluded), NMI its `metrics.nmi`.
- meanscape `power` at its defaults, which on Fashion-MNIST anneals on 256·k rows and refines on
  every row, and `power -P sample=0` (the full schedule on every row);
- meanscape `kmeans` with `-P sample=2560` (f32): the run on 256 rows per centre
  drawn with the seed (faiss's default sample size), then Lloyd refines on every row;
- scikit-learn KMeans(n_init=1, init='k-means++'), f64 and f32 input;
- scikit-learn-intelex's KMeans (oneDAL), same settings, f64 and f32;
- faiss.Kmeans (f32 only) with its default sampling (max_points_per_centroid = 256) and with
  max_points_per_centroid = n (every point); faiss starts from random points and runs at most
  niter = 25 iterations (its iteration_stats gives the count: it may stop earlier). Its time is
  train() plus the one assignment pass (index.search) that labels every point, since the other
  fits return labels too. With sampling, its per-iteration time covers the sample only.
Peers run one fit per subprocess (a crash or a failed install becomes a row saying so); their time
is measured around fit only. Their OpenMP runtimes (faiss, scikit-learn) busy-wait by default,
which on a shared, oversubscribed machine measures the other tenants (faiss on USPS: 1.6 s instead
of 0.05 s under a load of 7 on 2 cores), so the peers run with OMP_WAIT_POLICY=passive unless
--omp-wait default is given. meanscape (rayon) does not use OpenMP.
The k-means cost (sum of squared distances to the nearest final centre) is computed in numpy f64
for everyone: from the fitted centres for the peers, from the means of the labelled points for
meanscape (its JSON gives labels; its metrics.cost is compared in the notes).

The machine's bound per iteration: memory bandwidth (numpy sum over 512 MiB, 1 and 2 threads,
best of 5) and the GEMM time of one iteration's product (n x p)(p x k) in f64 and f32 (best of
10, on 1 and on all threads), measured before the first contender and after each one (the best
is kept). One pass over X at that bandwidth and the GEMM time give the bound max(pass, GEMM);
meanscape's time per iteration is shown against it. numpy's square-GEMM rate is printed beside
it for reference (the thin product is far from that peak). Other work during each timed run
(the machine's busy CPU from /proc/stat minus this benchmark's) is reported in the notes.

Installs what it needs: bench/.venv (numpy, scikit-learn; then scikit-learn-intelex and faiss-cpu,
each on its own, a failure only marks that peer), Fashion-MNIST from Debian's package
dataset-fashion-mnist (apt-get, when missing and run as root). USPS is ../shared/data/usps.csv.
"""

import argparse
import gzip
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from venv_common import ensure_venv  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
USPS = ROOT.parent / "shared" / "data" / "usps.csv"
FASHION = Path("/usr/share/datasets/fashion-mnist")
K = 10
PEER_PACKAGES = {"sklearnex": "scikit-learn-intelex", "faiss": "faiss-cpu"}


# ---------------------------------------------------------------------------- installation

def ensure_peers():
    """Imports each optional peer in a subprocess (an import may crash), installs it when missing.
    Returns {module: None when usable, else a one-line reason}."""
    status = {}
    py = sys.executable
    for module, package in PEER_PACKAGES.items():
        if subprocess.run([py, "-c", f"import {module}"], capture_output=True).returncode != 0:
            print(f"pip install {package} ...", file=sys.stderr)
            r = subprocess.run([py, "-m", "pip", "install", "-q", package], capture_output=True, text=True)
            if r.returncode != 0:
                status[module] = f"pip install {package} failed: {last_line(r.stderr)}"
                continue
        r = subprocess.run([py, "-c", f"import {module}"], capture_output=True, text=True)
        status[module] = None if r.returncode == 0 else f"import {module} failed: {last_line(r.stderr)}"
    return status


def ensure_fashion():
    """The Fashion-MNIST train files, installing Debian's package when missing; else a reason."""
    if (FASHION / "train-images-idx3-ubyte.gz").exists():
        return None
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        return f"{FASHION} missing (apt-get install dataset-fashion-mnist needs root)"
    print("apt-get install -y dataset-fashion-mnist ...", file=sys.stderr)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q", "dataset-fashion-mnist"]
    if subprocess.run(cmd, capture_output=True, env=env).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, env=env)
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if r.returncode != 0:
            return f"apt-get install dataset-fashion-mnist failed: {last_line(r.stderr)}"
    return None if (FASHION / "train-images-idx3-ubyte.gz").exists() else f"{FASHION} still missing"


def last_line(text):
    lines = [ln.strip() for ln in (text or "").strip().splitlines() if ln.strip()]
    return (lines[-1] if lines else "no message")[:200]


# ---------------------------------------------------------------------------- data

def read_idx(path):
    import numpy as np

    raw = gzip.open(path, "rb").read()
    if raw[:3] != b"\x00\x00\x08":
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(raw[3])]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * raw[3]).reshape(dims)


def load_usps():
    import numpy as np

    with open(USPS) as f:
        header = f.readline().strip().split(",")
    col = header.index("label") if "label" in header else len(header) - 1
    data = np.loadtxt(USPS, delimiter=",", skiprows=1, dtype=np.float64)
    y = data[:, col].astype(np.int64)
    return np.ascontiguousarray(np.delete(data, col, axis=1)), y


def load_fashion():
    import numpy as np

    X = read_idx(FASHION / "train-images-idx3-ubyte.gz")
    X = np.ascontiguousarray(X.reshape(X.shape[0], -1), dtype=np.float64)
    return X, read_idx(FASHION / "train-labels-idx1-ubyte.gz").astype(np.int64)


# ---------------------------------------------------------------------------- machine bound

def bandwidth():
    """Best read bandwidth (bytes/s) of a numpy sum over 512 MiB, with 1 and with 2 threads."""
    import numpy as np
    from concurrent.futures import ThreadPoolExecutor

    a = np.ones(64 * 2**20)
    halves = np.array_split(a, 2)
    best1 = best2 = float("inf")
    with ThreadPoolExecutor(2) as pool:
        for _ in range(5):
            t = time.perf_counter()
            a.sum()
            best1 = min(best1, time.perf_counter() - t)
            t = time.perf_counter()
            list(pool.map(np.sum, halves))
            best2 = min(best2, time.perf_counter() - t)
    return {"1 thread": a.nbytes / best1, "2 threads": a.nbytes / best2}


def gemm_time(X, dtype, reps=10):
    """Best time of one iteration's product X·Cᵀ, X (n x p), C (k x p), in dtype, with OpenBLAS on
    1 thread and on all (its threads spin: on a busy machine one thread can be the faster)."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    Xd = np.ascontiguousarray(X, dtype=dtype)
    C = np.ascontiguousarray(Xd[:: max(1, len(Xd) // K)][:K])
    best = float("inf")
    for limit in (None, 1):
        with threadpool_limits(limits=limit, user_api="blas"):
            for _ in range(reps):
                t = time.perf_counter()
                Xd @ C.T
                best = min(best, time.perf_counter() - t)
    return best


def measure_bound(X):
    import numpy as np

    bw = bandwidth()
    return {"bw": max(bw.values()), "bw_detail": bw,
            "gemm": {"f64": gemm_time(X, np.float64), "f32": gemm_time(X, np.float32)},
            "peak": {"f64": square_gemm_rate(np.float64), "f32": square_gemm_rate(np.float32)}}


def square_gemm_rate(dtype, m=1536, reps=3):
    """numpy's best flop rate on a square product: the machine's compute peak, for reference."""
    import numpy as np

    a = np.random.default_rng(0).random((m, m)).astype(dtype)
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        a @ a
        best = min(best, time.perf_counter() - t)
    return 2 * m**3 / best


def best_bound(a, b):
    return {"bw": max(a["bw"], b["bw"]),
            "bw_detail": {t: max(a["bw_detail"][t], b["bw_detail"][t]) for t in a["bw_detail"]},
            "gemm": {d: min(a["gemm"][d], b["gemm"][d]) for d in a["gemm"]},
            "peak": {d: max(a["peak"][d], b["peak"][d]) for d in a["peak"]}}


# ---------------------------------------------------------------------------- peers (worker side)

def worker(spec):
    """One peer fit in this process: writes labels and centres to spec['out'], prints JSON."""
    import logging

    import numpy as np

    X = np.load(spec["x"])
    X = np.ascontiguousarray(X, dtype=np.float32 if spec["dtype"] == "f32" else np.float64)
    peer, seed = spec["peer"], spec["seed"]
    notes = []
    if peer in ("sklearn", "sklearnex"):
        if peer == "sklearn":
            from sklearn.cluster import KMeans
        else:
            from sklearnex.cluster import KMeans

            # sklearnex logs at INFO whether the fit ran on oneDAL or fell back to scikit-learn.
            class Seen(logging.Handler):
                def emit(self, record):
                    msg = record.getMessage()
                    if "fallback" in msg.lower():
                        notes.append(msg.strip())

            log = logging.getLogger("sklearnex")
            log.setLevel(logging.INFO)
            log.addHandler(Seen())
        km = KMeans(n_clusters=K, n_init=1, init="k-means++", random_state=seed)
        t = time.perf_counter()
        km.fit(X)
        wall = time.perf_counter() - t
        labels, centres, iters, train = km.labels_, km.cluster_centers_, int(km.n_iter_), None
    elif peer == "faiss":
        import faiss

        mppc = spec["mppc"] or X.shape[0]
        km = faiss.Kmeans(X.shape[1], K, seed=seed, max_points_per_centroid=mppc)
        t = time.perf_counter()
        km.train(X)
        train = time.perf_counter() - t
        _, idx = km.index.search(X, 1)
        wall = time.perf_counter() - t
        labels, centres = idx[:, 0], km.centroids
        iters = len(km.iteration_stats) if hasattr(km, "iteration_stats") else km.cp.niter
    else:
        raise ValueError(f"unknown peer {peer}")
    np.savez(spec["out"], labels=np.asarray(labels, dtype=np.int64), centres=np.asarray(centres, dtype=np.float64))
    print(json.dumps({"wall": wall, "iterations": iters, "train": train, "notes": notes}))


# ---------------------------------------------------------------------------- measuring (driver side)

def busy_seconds():
    """CPU-seconds the whole machine has spent not idle, from /proc/stat (as bench/iteration.py)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def own_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def kmeans_cost(X, centres):
    """Σᵢ minⱼ ‖xᵢ − cⱼ‖² in f64, by blocks (direct differences: no cancellation)."""
    import numpy as np

    total = 0.0
    for i in range(0, len(X), 2048):
        B = X[i:i + 2048]
        d = np.stack([((B - c) ** 2).sum(axis=1) for c in centres], axis=1)
        total += float(d.min(axis=1).sum())
    return total


def means_of(X, labels):
    import numpy as np

    ids = np.unique(labels)
    return np.stack([X[labels == j].mean(axis=0) for j in ids])


class Run:
    """One contender's results over the seeds (or the reason it has none)."""

    def __init__(self, name, dtype):
        self.name, self.dtype, self.seeds, self.error, self.notes = name, dtype, [], None, []

    def median(self, key):
        vals = [s[key] for s in self.seeds if s.get(key) is not None]
        return statistics.median(vals) if vals else None


def run_meanscape(binary, data, algo, seed, f32, X, y, timeout):
    import numpy as np
    from sklearn.metrics import normalized_mutual_info_score

    algo, extra = algo if isinstance(algo, tuple) else (algo, [])
    cmd = [binary, "run", "--data", data, "--algo", algo, "--k", str(K), "--scale", "none",
           "--seed", str(seed), "--json", "-q"] + (["--dtype", "f32"] if f32 else []) + extra
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"exit {r.returncode}: {last_line(r.stderr)}")
    out = json.loads(r.stdout)
    if (out["n"], out["p"]) != X.shape:
        raise RuntimeError(f"meanscape read {out['n']} x {out['p']}, numpy {X.shape[0]} x {X.shape[1]}")
    labels = np.asarray(out["labels"])
    cost = kmeans_cost(X, means_of(X, labels))
    nmi = out.get("metrics", {}).get("nmi")
    check = normalized_mutual_info_score(y, labels)
    notes = []
    if nmi is None:
        nmi = check
        notes.append("no metrics.nmi in the JSON: NMI by scikit-learn")
    elif abs(nmi - check) > 1e-6:
        notes.append(f"metrics.nmi {nmi:.6f} vs scikit-learn's {check:.6f}")
    return {"wall": out["elapsed_ms"] / 1e3, "iterations": out["iterations"], "nmi": nmi, "cost": cost,
            "ms_cost": out.get("metrics", {}).get("cost"), "converged": out.get("converged"),
            "load": out.get("load_ms", 0) / 1e3}, notes


def run_peer(spec, X, y, timeout, omp_wait):
    import numpy as np
    from sklearn.metrics import normalized_mutual_info_score

    env = dict(os.environ)
    if omp_wait == "passive":
        env["OMP_WAIT_POLICY"] = "passive"
    r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)],
                       capture_output=True, text=True, timeout=timeout, env=env)
    if r.returncode != 0:
        why = f"killed by {signal.Signals(-r.returncode).name}" if r.returncode < 0 else f"exit {r.returncode}"
        raise RuntimeError(f"{why}: {last_line(r.stderr)}")
    res = json.loads(r.stdout.strip().splitlines()[-1])
    saved = np.load(spec["out"])
    labels, centres = saved["labels"], saved["centres"]
    return {"wall": res["wall"], "iterations": res["iterations"], "train": res["train"],
            "nmi": normalized_mutual_info_score(y, labels), "cost": kmeans_cost(X, centres)}, res["notes"]


def contenders(has_dtype, peers):
    """(name, dtype, kind, detail, reason it cannot run or None)."""
    rows = []
    for algo in ("kmeans", "power"):
        rows.append((f"meanscape {algo}", "f64", "meanscape", algo, None))
        rows.append((f"meanscape {algo}", "f32", "meanscape", algo, None if has_dtype else "f32: not in this build"))
    # power at its defaults anneals on 256·k rows when n > 20 × 256·k (Fashion-MNIST: yes, usps:
    # no) and Lloyd refines on every row; -P sample=0 is the full schedule on every row.
    for d in ("f64", "f32"):
        rows.append(("meanscape power -P sample=0", d, "meanscape", ("power", ["-P", "sample=0"]),
                     None if has_dtype or d == "f64" else "f32: not in this build"))
    # Subsample, then refine for kmeans: the run on 256 rows per centre (faiss's default sample).
    rows.append((f"meanscape kmeans -P sample={256 * K}", "f32", "meanscape",
                 ("kmeans", ["-P", f"sample={256 * K}"]), None if has_dtype else "f32: not in this build"))
    for d in ("f64", "f32"):
        rows.append(("scikit-learn KMeans", d, "sklearn", None, None))
    for d in ("f64", "f32"):
        rows.append(("scikit-learn-intelex KMeans", d, "sklearnex", None, peers["sklearnex"]))
    rows.append(("faiss Kmeans (sampled, 256/centre)", "f32", "faiss", 256, peers["faiss"]))
    rows.append(("faiss Kmeans (every point)", "f32", "faiss", 0, peers["faiss"]))
    return rows


def bench_dataset(name, data_arg, X, y, args, binary, has_dtype, peers, tmp):
    import numpy as np

    xfile = Path(tmp) / f"{name}.npy"
    np.save(xfile, X)
    print(f"\n{name}: {X.shape[0]} x {X.shape[1]}; measuring the machine ...", file=sys.stderr)
    bound = measure_bound(X)
    runs = []
    for label, dtype, kind, detail, reason in contenders(has_dtype, peers):
        # The bound is measured again after each contender and the best kept: the machine's
        # capability at its quietest moment of this dataset's runs.
        bound = best_bound(bound, measure_bound(X)) if runs and runs[-1].seeds else bound
        run = Run(label, dtype)
        runs.append(run)
        if reason:
            run.error = reason
            print(f"  {label} {dtype}: {reason}", file=sys.stderr)
            continue
        for seed in range(args.seeds):
            b0, o0, w0 = busy_seconds(), own_seconds(), time.perf_counter()
            try:
                if kind == "meanscape":
                    res, notes = run_meanscape(binary, data_arg, detail, seed, dtype == "f32", X, y, args.timeout)
                else:
                    spec = {"peer": kind, "dtype": dtype, "x": str(xfile), "seed": seed, "mppc": detail,
                            "out": str(Path(tmp) / "fit.npz")}
                    res, notes = run_peer(spec, X, y, args.timeout, args.omp_wait)
            except subprocess.TimeoutExpired:
                run.error = f"timed out after {args.timeout} s (seed {seed})"
            except Exception as e:  # a peer's failure is a row, not the end of the benchmark
                run.error = f"failed (seed {seed}): {str(e).splitlines()[0][:200] if str(e) else type(e).__name__}"
            if run.error:
                print(f"  {label} {dtype}: {run.error}", file=sys.stderr)
                break
            res["seed"] = seed
            # Other work on the machine during this run, in cores busy on average.
            res["foreign"] = max(0.0, (busy_seconds() - b0) - (own_seconds() - o0)) / (time.perf_counter() - w0)
            res["per_iter"] = res["wall"] / max(1, res["iterations"])
            run.seeds.append(res)
            run.notes += [f"seed {seed}: {n}" for n in notes if f"seed {seed}: {n}" not in run.notes]
            print(f"  {label} {dtype} seed {seed}: {res['wall']:.3f} s, {res['iterations']} it, "
                  f"NMI {res['nmi']:.4f}, cost {res['cost']:.6g}", file=sys.stderr)
    bound = best_bound(bound, measure_bound(X))
    return {"name": name, "n": X.shape[0], "p": X.shape[1], "runs": runs, "bound": bound,
            "load": os.getloadavg()}


# ---------------------------------------------------------------------------- report

def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def report_dataset(ds, seeds):
    n, p = ds["n"], ds["p"]
    b = ds["bound"]
    lines = [f"## {ds['name']} ({n} x {p}, k = {K}, raw pixels)", "",
             f"Median over {seeds} seed(s) of each column separately; wall = solver / fit time only.", "",
             "| contender | dtype | wall s | iterations | NMI | k-means cost | per-iteration ms |",
             "|---|---|---|---|---|---|---|"]
    for r in ds["runs"]:
        if r.error and not r.seeds:
            lines.append(f"| {r.name} | {r.dtype} | {r.error} | — | — | — | — |")
            continue
        wall = fmt(r.median("wall"), ".3f") + (f" ({r.error})" if r.error else "")
        lines.append(f"| {r.name} | {r.dtype} | {wall} | {fmt(r.median('iterations'), 'g')} | "
                     f"{fmt(r.median('nmi'), '.4f')} | {fmt(r.median('cost'), '.6e')} | "
                     f"{fmt(r.median('per_iter') and r.median('per_iter') * 1e3, '.2f')} |")
    lines.append("")
    bw = b["bw"]
    detail = ", ".join(f"{t} {v / 1e9:.1f}" for t, v in b["bw_detail"].items())
    lines.append(f"Machine bound per iteration, best measurement over this dataset's runs (bandwidth "
                 f"{bw / 1e9:.1f} GB/s, best of {detail}; GEMM (n x p)·(p x k), best of 10 on 1 and on all threads):")
    lines.append("")
    bounds = {}
    for d, size in (("f64", 8), ("f32", 4)):
        pass_s = n * p * size / bw
        gemm = b["gemm"][d]
        bounds[d] = max(pass_s, gemm)
        lines.append(f"- {d}: one pass over X ({n * p * size / 2**20:.0f} MiB) {pass_s * 1e3:.2f} ms; "
                     f"GEMM {gemm * 1e3:.2f} ms ({2 * n * p * K / gemm / 1e9:.1f} GF/s); "
                     f"bound {bounds[d] * 1e3:.2f} ms (for reference: at the square-GEMM peak of "
                     f"{b['peak'][d] / 1e9:.1f} GF/s the 2npk flops take {2 * n * p * K / b['peak'][d] * 1e3:.2f} ms)")
    for r in ds["runs"]:
        if r.name.startswith("meanscape") and r.seeds:
            per = r.median("per_iter")
            lines.append(f"- {r.name} {r.dtype}: {per * 1e3:.2f} ms per iteration = "
                         f"{per / bounds[r.dtype]:.1f} x the bound")
    notes = []
    foreign = [s["foreign"] for r in ds["runs"] for s in r.seeds]
    if foreign:
        notes.append(f"other work during the timed runs (the whole machine's busy CPU minus this "
                     f"benchmark's, in cores): median {statistics.median(foreign):.2f}, "
                     f"max {max(foreign):.2f} of {os.cpu_count()}")
    for r in ds["runs"]:
        notes += [f"{r.name} {r.dtype}, {n_}" for n_ in r.notes]
        if r.name.startswith("meanscape") and r.seeds:
            load = statistics.median(s["load"] for s in r.seeds)
            unconv = [s["seed"] for s in r.seeds if s.get("converged") is False]
            ms_cost = [s for s in r.seeds if s.get("ms_cost")]
            gap = max((abs(s["ms_cost"] - s["cost"]) / s["cost"] for s in ms_cost), default=None)
            notes.append(f"{r.name} {r.dtype}: load {load:.2f} s (not in wall)"
                         + (f"; not converged for seed(s) {unconv}" if unconv else "")
                         + (f"; its metrics.cost differs from ours by ≤ {gap:.1e} (relative)" if gap is not None else ""))
        if r.name.startswith("faiss") and r.seeds:
            notes.append(f"{r.name}: train() alone {statistics.median(s['train'] for s in r.seeds):.3f} s "
                         f"(wall adds the assignment pass)")
    lines += ["", "Notes:", ""] + [f"- {x}" for x in notes]
    la = ds["load"]
    lines.append(f"- load average after this dataset: {la[0]:.2f} {la[1]:.2f} {la[2]:.2f} on {os.cpu_count()} cores")
    return "\n".join(lines)


def versions(binary):
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    # Distribution versions: sklearnex's own __version__ is a placeholder (2199.9.9) in its wheels.
    for dist in ("numpy", "scikit-learn", "scikit-learn-intelex", "faiss-cpu"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    r = subprocess.run([binary, "--version"], capture_output=True, text=True)
    out["meanscape"] = r.stdout.strip().removeprefix("meanscape ") or "unknown"
    return out


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


# ---------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1 seed, usps only (smoke test)")
    ap.add_argument("--seeds", type=int, default=3, help="seeds 0..N-1 per contender (default 3)")
    ap.add_argument("--bin", default=str(ROOT / "target" / "release" / "meanscape"), help="meanscape binary")
    ap.add_argument("--out", default=str(ROOT / "bench" / "anchors.md"), help="markdown report")
    ap.add_argument("--timeout", type=int, default=1800, help="seconds allowed for one fit (default 1800)")
    ap.add_argument("--omp-wait", choices=("passive", "default"), default="passive",
                    help="OpenMP wait policy of the peers (default passive: see above)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(json.loads(args.worker))
        return
    if args.quick:
        args.seeds = 1
    if args.seeds < 1:
        sys.exit("--seeds must be at least 1")
    if not Path(args.bin).is_file():
        sys.exit(f"--bin {args.bin}: no such file (build with `cargo build --release`)")
    started = time.perf_counter()
    peers = ensure_peers()
    fashion_missing = None if args.quick else ensure_fashion()

    with tempfile.TemporaryDirectory(prefix="anchors-") as tmp:
        # Others may rebuild target/ while we measure: every run uses one private copy.
        binary = str(Path(tmp) / "meanscape")
        shutil.copy2(args.bin, binary)
        help_text = subprocess.run([binary, "run", "--help"], capture_output=True, text=True).stdout
        has_dtype = "--dtype" in help_text
        if not has_dtype:
            print("f32: not in this build (meanscape run --help lists no --dtype)", file=sys.stderr)
        vers = versions(binary)
        results, skipped = [], []
        if USPS.exists():
            X, y = load_usps()
            results.append(bench_dataset("usps", str(USPS), X, y, args, binary, has_dtype, peers, tmp))
        else:
            skipped.append(f"usps: {USPS} not found")
        if not args.quick:
            if fashion_missing:
                skipped.append(f"Fashion-MNIST: {fashion_missing}")
            else:
                X, y = load_fashion()
                data = str(FASHION / "train-images-idx3-ubyte.gz")
                results.append(bench_dataset("Fashion-MNIST (train)", data, X, y, args, binary, has_dtype, peers, tmp))

    total = time.perf_counter() - started
    head = [
        "# Speed anchors: meanscape against k-means peers",
        "",
        f"`python3 bench/anchors.py{' --quick' if args.quick else ''} --seeds {args.seeds}` on "
        f"{time.strftime('%Y-%m-%d %H:%M')}, {cpu_model()}, {os.cpu_count()} cores; total run {total / 60:.1f} min.",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()) + ".",
        "meanscape f32: " + ("`--dtype f32`" if has_dtype else "not in this build (no --dtype in `meanscape run --help`)") + ".",
        "The machine may be shared with other work: wall times are noisy (load averages below).",
        "Peers' OpenMP wait policy: " + ("OMP_WAIT_POLICY=passive." if args.omp_wait == "passive"
                                         else "the runtimes' default (busy-wait)."),
        "",
    ]
    for mod, why in peers.items():
        if why:
            head.append(f"- {PEER_PACKAGES[mod]}: {why}")
    head += [f"- skipped {s}" for s in skipped]
    text = "\n".join(head + [""] + [report_dataset(ds, args.seeds) + "\n" for ds in results])
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(f"wrote {args.out} ({total / 60:.1f} min)", file=sys.stderr)


if __name__ == "__main__":
    if "--worker" not in sys.argv:
        ensure_venv(__file__)
    main()
