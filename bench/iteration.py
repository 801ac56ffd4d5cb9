#!/usr/bin/env python3
"""Seconds per iteration: meanscape `power` and `kmeans` vs scikit-learn's Lloyd KMeans.

What it measures
----------------
The cost of one iteration of

* our power k-means   (`meanscape run --algo power  -P tol=0`, which forces exactly N iterations),
* our k-means (Lloyd) (`meanscape run --algo kmeans -P tol=0`; it may still stop early when no
  label changes, so the *reported* `iterations` is used),
* scikit-learn's `KMeans(algorithm="lloyd", n_init=1, tol=0)` started from fixed k-means++ centres,

all timed in the same run of this script on the same machine, on

* USPS (`../shared/data/usps.csv`, 11000 x 256 integer pixels, k = 10; its features are saved as
  bench/out/usps.npy and both sides use that), and
* Fashion-MNIST (train + test = 70000 x 784, k = 10), read from the Debian package
  `dataset-fashion-mnist` (IDX files in /usr/share/datasets/fashion-mnist/, installed with apt-get
  if missing) and converted to one float64 .npy under bench/out/.

Both sides cluster identical raw float64 values: our runs use `--scale none`, and scikit-learn is fed
the same unscaled matrix.

How
---
Our `elapsed_ms` is solver time (no loading) but includes k-means++ seeding; scikit-learn's `.fit`
includes input validation, a copy and centring of X and a final labelling pass. To remove all such
one-off costs on both sides, every configuration is run at max_iter = N and at max_iter = 1 and

    seconds/iteration = (t_N - t_1) / (iters_N - iters_1)

where t is the median over REPS (3) repeats and iters is the reported iteration count (`iterations`
for ours, `n_iter_` for scikit-learn; both are 1 at max_iter = 1). N = 30 for USPS, 20 for
Fashion-MNIST. scikit-learn's centres come from `sklearn.cluster.kmeans_plusplus` (computed once,
outside the timing). scikit-learn uses all cores (OpenMP + OpenBLAS threads, recorded via
threadpoolctl); our binary also uses all cores.

The machine may be shared (other builds, other benchmarks): each wall-clock run waits (up to
--max-wait s) for an idle machine and is redone (up to TRIES times) if other processes used more than
0.05 CPU-s + 1% of its wall time while it ran (machine CPU time from /proc/stat minus our own,
children included); a run still overlapped after that is kept and marked contended. Because such
overlap can be long-lasting, a second measurement is always taken too: every implementation on ONE
thread (RAYON_NUM_THREADS=1; threadpool_limits(1) for scikit-learn), timed in CPU seconds of the
process (rusage of the child for ours, time.process_time for scikit-learn), differenced the same
way. That is the work per iteration, and it hardly moves when other jobs share the machine.

Before timing scikit-learn on a dataset one untimed fit is run, so that its first allocations of
fresh memory (slow on this VM) do not land in t_1. The binary is copied to bench/out/ right after
the build and that copy is timed, so a rebuild by someone else mid-run cannot change it.

Output: markdown tables on stdout (wall clock and one-thread CPU) and the raw timings in
bench/out/iteration.json.

Run from the repo root:  python3 bench/iteration.py   [--only usps|fashion] [--reps 3] [--max-wait 15]
                                                 [--scaling]

(--scaling times synthetic 10-blob data of several n x p instead, to see what grows with n and p.)
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
OUT = BENCH / "out"

from venv_common import ensure_venv  # noqa: E402

ensure_venv(__file__)

import argparse  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import sklearn  # noqa: E402
from sklearn.cluster import KMeans, kmeans_plusplus  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

BIN = OUT / "meanscape-iteration"  # a snapshot of target/release/meanscape, taken right after the build
K = 10
FMNIST_DIR = Path("/usr/share/datasets/fashion-mnist")


def build():
    print("cargo build --release ...", file=sys.stderr)
    subprocess.run(["cargo", "build", "--release"], cwd=ROOT, check=True)
    # Others may rebuild target/ while we measure: run a private copy so every run uses one binary.
    OUT.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "target" / "release" / "meanscape", BIN)


# ---------------------------------------------------------------------------- datasets

def load_usps():
    path = ROOT.parent / "shared" / "data" / "usps.csv"
    if not path.exists():
        return None, f"{path} not found"
    with open(path) as f:
        header = f.readline().strip().split(",")
    if header[-1] != "label":
        return None, f"{path}: last column is {header[-1]!r}, expected 'label'"
    X = np.loadtxt(path, delimiter=",", skiprows=1, usecols=range(len(header) - 1), dtype=np.float64)
    # The same features as .npy: our binary then loads them faster and with less jitter than CSV
    # parsing, which matters for the one-thread CPU measurement (it includes loading; t_N - t_1
    # cancels it, up to its jitter). The values are the CSV's integers, so the data are identical.
    npy = OUT / "usps.npy"
    np.save(npy, X)
    return dict(name="usps", file=npy, X=X, N=30, extra=["--label", "none"]), None


def read_idx(path):
    """Read an IDX file (gzipped or not: decided by the magic bytes, not the name)."""
    with open(path, "rb") as f:
        gz = f.read(2) == b"\x1f\x8b"
    raw = (gzip.open if gz else open)(path, "rb").read()
    if raw[0] != 0 or raw[1] != 0 or raw[2] != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    return data.reshape(dims)


def load_fashion():
    npy = OUT / "fashion-mnist.npy"
    if not FMNIST_DIR.is_dir():
        print(f"{FMNIST_DIR} missing: apt-get install -y dataset-fashion-mnist", file=sys.stderr)
        r = subprocess.run(["apt-get", "install", "-y", "dataset-fashion-mnist"], capture_output=True, text=True)
        if r.returncode != 0:
            subprocess.run(["apt-get", "update"], capture_output=True)
            r = subprocess.run(["apt-get", "install", "-y", "dataset-fashion-mnist"], capture_output=True, text=True)
        if not FMNIST_DIR.is_dir():
            return None, f"could not install dataset-fashion-mnist: {r.stderr.strip()[-300:]}"
    if not (npy.exists() and np.load(npy, mmap_mode="r").shape == (70000, 784)):
        parts = []
        for stem in ("train-images-idx3-ubyte", "t10k-images-idx3-ubyte"):
            cands = [FMNIST_DIR / (stem + ".gz"), FMNIST_DIR / stem]
            path = next((c for c in cands if c.exists()), None)
            if path is None:
                return None, f"{stem}[.gz] not found in {FMNIST_DIR}"
            parts.append(read_idx(path).reshape(-1, 784))
        X = np.ascontiguousarray(np.vstack(parts), dtype=np.float64)
        assert X.shape == (70000, 784), X.shape
        np.save(npy, X)
    X = np.load(npy)
    return dict(name="fashion-mnist", file=npy, X=X, N=20, extra=["--label", "none"]), None


SCALING_SHAPES = [(11000, 16), (11000, 64), (11000, 256), (11000, 784), (70000, 64), (70000, 784)]


def load_synthetic(n, p):
    """--scaling: 10 Gaussian blobs of shape n x p (fixed seed), to see how s/iter grows with n and p."""
    path = OUT / f"gauss-{n}x{p}.npy"
    if not path.exists():
        rng = np.random.default_rng(0)
        centres = 3.0 * rng.standard_normal((K, p))
        X = centres[rng.integers(0, K, n)] + rng.standard_normal((n, p))
        np.save(path, X)
    return dict(name=f"gauss-{n}x{p}", file=path, X=np.load(path), N=20, extra=["--label", "none"]), None


# ---------------------------------------------------------------------------- timing
#
# Other work on this 2-core machine (e.g. a cargo build) distorts wall-clock timings badly, OpenMP's
# static schedule in scikit-learn most of all. So every wall-clock run is (a) started only once the
# machine has been idle for a moment and (b) repeated (up to TRIES times) if the machine's CPU time
# during the run exceeded our own by more than FOREIGN_MAX -- i.e. someone else was running. The
# one-thread CPU-time runs need no such guard.

HZ = os.sysconf("SC_CLK_TCK")
TRIES = 3
FOREIGN_MAX = 0.05  # CPU-s, plus 1% of the run's wall time


def busy_seconds():
    """CPU-seconds the whole machine has spent not idle, from /proc/stat."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (sum(v) - v[3] - v[4]) / HZ  # minus idle and iowait


def own_seconds():
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def wait_quiet(max_wait):
    """Wait (at most max_wait seconds) until the machine has been (almost) idle for 1 s."""
    t0 = told = time.time()
    while time.time() - t0 < max_wait:
        b0 = busy_seconds()
        time.sleep(1.0)
        if busy_seconds() - b0 < 0.05:
            return True
        if time.time() - told > 60:
            print(f"  waiting for an idle machine ({time.time() - t0:.0f} s so far)", file=sys.stderr)
            told = time.time()
    return False


def guarded(fn, max_wait):
    """Run fn() (which returns a dict) on a quiet machine; retry when foreign CPU use overlapped it.
    After TRIES attempts the last result is kept and marked contended."""
    for attempt in range(TRIES):
        wait_quiet(max_wait)
        b0, o0, w0 = busy_seconds(), own_seconds(), time.perf_counter()
        r = fn()
        foreign = (busy_seconds() - b0) - (own_seconds() - o0)
        r.update(foreign_cpu_s=round(foreign, 3), attempt=attempt + 1)
        if foreign <= FOREIGN_MAX + 0.01 * (time.perf_counter() - w0):
            return r
        print(f"  {foreign:.2f} CPU-s of other work overlapped a run; retrying", file=sys.stderr)
    print("  giving up waiting: result marked contended", file=sys.stderr)
    r["contended"] = True
    return r


def ours(ds, algo, max_iter, one_thread=False):
    """One run of our binary. seconds = its elapsed_ms (solver wall time, all cores unless one_thread);
    cpu = the child's user+system CPU time (includes loading, which t_N - t_1 cancels)."""
    cmd = [str(BIN), "run", "--data", str(ds["file"]), "--algo", algo, "--k", str(K), "--scale", "none",
           *ds["extra"], "--max-iter", str(max_iter), "-P", "tol=0", "--seed", "0", "--json", "-q"]
    env = dict(os.environ, RAYON_NUM_THREADS="1") if one_thread else None
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    r = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    j = json.loads(r.stdout)
    return dict(seconds=j["elapsed_ms"] / 1000, iterations=j["iterations"], load_ms=j["load_ms"],
                cpu=(ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime),
                objective=j["objective"], nmi=(j.get("metrics") or {}).get("nmi"))


def sk(X, init, max_iter, one_thread=False):
    """One scikit-learn fit: seconds = wall time of .fit, cpu = this process's CPU time during it."""
    # copy_x=False: no 439 MB copy per fit (its page faults made t_1 noisy);
    # scikit-learn centres X in place and restores it, and we copy nothing either.
    km = KMeans(n_clusters=K, init=init, n_init=1, max_iter=max_iter, tol=0, algorithm="lloyd",
                copy_x=False)
    with threadpool_limits(limits=1 if one_thread else None):
        c0, t0 = time.process_time(), time.perf_counter()
        km.fit(X)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
    return dict(seconds=dt, cpu=dc, iterations=int(km.n_iter_), objective=float(km.inertia_))


def per_iter(runs_n, runs_1, key):
    """(median t_N - median t_1) / (iters_N - iters_1), t = runs' `key` (seconds or cpu)."""
    tn = statistics.median(r[key] for r in runs_n)
    t1 = statistics.median(r[key] for r in runs_1)
    itn = statistics.median(r["iterations"] for r in runs_n)
    it1 = statistics.median(r["iterations"] for r in runs_1)
    spi = (tn - t1) / (itn - it1) if itn > it1 else None
    contended = any(r.get("contended") for r in runs_n + runs_1)
    return dict(s_per_iter=spi, t_N=tn, t_1=t1, iters_N=itn, iters_1=it1, contended=contended)


def bench(ds, reps, max_wait):
    """Both measurements for one dataset:
    wall -- all cores, wall clock, each run on an idle machine (guarded): the comparison asked for;
    cpu1 -- one thread each (RAYON_NUM_THREADS=1 / threadpool_limits(1)), CPU seconds: the work per
            iteration, which stays meaningful when other jobs keep the machine busy."""
    X, N = ds["X"], ds["N"]
    init, _ = kmeans_plusplus(X, n_clusters=K, random_state=0)
    sk(X, init, N)  # untimed warm-up: first-touch of fresh memory is slow here and would add noise to t_1
    impls = ("power", "kmeans", "sklearn")
    raw = {mode: {i: {1: [], N: []} for i in impls} for mode in ("wall", "cpu1")}
    for rep in range(reps):
        for m in (1, N):
            for algo in ("power", "kmeans"):
                raw["wall"][algo][m].append(guarded(lambda: ours(ds, algo, m), max_wait))
                raw["cpu1"][algo][m].append(ours(ds, algo, m, one_thread=True))
            raw["wall"]["sklearn"][m].append(guarded(lambda: sk(X, init, m), max_wait))
            raw["cpu1"]["sklearn"][m].append(sk(X, init, m, one_thread=True))
        print(f"  {ds['name']}: repeat {rep + 1}/{reps} done", file=sys.stderr)
    summary = {mode: {i: per_iter(raw[mode][i][N], raw[mode][i][1], "seconds" if mode == "wall" else "cpu")
                      for i in impls} for mode in raw}
    return dict(dataset=ds["name"], file=str(ds["file"]), n=X.shape[0], p=X.shape[1], k=K, N=N,
                summary=summary,
                raw={mode: {i: {str(m): v for m, v in d.items()} for i, d in r.items()} for mode, r in raw.items()})


# ---------------------------------------------------------------------------- report

def fmt(x, spec=".4f"):
    return "—" if x is None else format(x, spec)


def ratio(a, b):
    return None if a is None or b is None or b <= 0 else a / b


def print_tables(results, skipped, reps):
    for mode, title in (("wall", "Wall clock, all cores (the comparison asked for)"),
                        ("cpu1", "One thread each, CPU seconds per iteration (robust to other load)")):
        print(f"\n### {title}\n")
        print("| dataset | n×p | ours power s/iter | ours kmeans s/iter | sklearn Lloyd s/iter "
              "| power/sklearn | kmeans/sklearn |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for r in results:
            s = r["summary"][mode]
            pw, km, sl = (s[a]["s_per_iter"] for a in ("power", "kmeans", "sklearn"))
            flag = " (contended*)" if any(s[a]["contended"] for a in s) else ""
            print(f"| {r['dataset']}{flag} | {r['n']}×{r['p']} | {fmt(pw)} | {fmt(km)} | {fmt(sl)} "
                  f"| {fmt(ratio(pw, sl), '.2f')} | {fmt(ratio(km, sl), '.2f')} |")
        for s in skipped:
            print(f"| {s['dataset']} | skipped: {s['reason']} | | | | | |")

    print(f"\nDetails (medians of {reps} repeats; t in seconds, wall or CPU as above; "
          "iters = reported iterations at max_iter=N):\n")
    print("| dataset | measure | N | impl | t_1 | t_N | iters_N | s/iter |")
    print("|---|---|---:|---|---:|---:|---:|---:|")
    for r in results:
        for mode, d in r["summary"].items():
            for impl, s in d.items():
                print(f"| {r['dataset']} | {mode} | {r['N']} | {impl} | {s['t_1']:.4f} | {s['t_N']:.4f} | "
                      f"{s['iters_N']:g} | {fmt(s['s_per_iter'])} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=["usps", "fashion"], help="run one dataset only")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-wait", type=float, default=15.0,
                    help="seconds to wait for an idle machine before each wall-clock attempt (default 15)")
    ap.add_argument("--scaling", action="store_true",
                    help="instead of the real datasets, time synthetic blobs of several n x p (N=20); "
                         "writes bench/out/iteration_scaling.json")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    build()

    loaders = {"usps": load_usps, "fashion": load_fashion}
    if args.scaling:
        loaders = {f"{n}x{p}": (lambda n=n, p=p: load_synthetic(n, p)) for n, p in SCALING_SHAPES}
    env = dict(sklearn=sklearn.__version__, numpy=np.__version__, python=platform.python_version(),
               cpus=os.cpu_count(), threadpools=threadpool_info(),
               git=subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                                  text=True).stdout.strip(),
               git_dirty=bool(subprocess.run(["git", "status", "--porcelain", "src", "Cargo.toml"], cwd=ROOT,
                                             capture_output=True, text=True).stdout.strip()))
    out = OUT / ("iteration_scaling.json" if args.scaling else "iteration.json")
    results, skipped = [], []
    for key, loader in loaders.items():
        if args.only and args.only != key:
            continue
        ds, why = loader()
        if ds is None:
            print(f"SKIPPED {key}: {why}", file=sys.stderr)
            skipped.append(dict(dataset=key, reason=why))
            continue
        print(f"{ds['name']}: {ds['X'].shape[0]}x{ds['X'].shape[1]}, N={ds['N']}", file=sys.stderr)
        results.append(bench(ds, args.reps, args.max_wait))
        del ds
        # written after every dataset, so a long run that is stopped keeps what it measured
        out.write_text(json.dumps(dict(env=env, reps=args.reps, results=results, skipped=skipped), indent=1))
    out.write_text(json.dumps(dict(env=env, reps=args.reps, results=results, skipped=skipped), indent=1))

    print_tables(results, skipped, args.reps)
    threads = ", ".join(f"{t['internal_api']}={t['num_threads']}" for t in env["threadpools"])
    print(f"\nscikit-learn {env['sklearn']}, numpy {env['numpy']}, threadpools: {threads}; "
          f"{env['cpus']} CPUs; meanscape {env['git']}{' (+uncommitted src changes)' if env['git_dirty'] else ''}")
    print("* contended: some wall-clock run still overlapped other jobs after all retries; its time is "
          "an upper bound.")
    print(f"raw results: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
