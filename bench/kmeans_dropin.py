#!/usr/bin/env python3
"""`meanscape.KMeans` as a drop-in for scikit-learn's KMeans: speed on Fashion-MNIST (dense, f64 and
f32) and on a sparse CSR matrix, in one run (issue 25, "Show").

    python3 bench/kmeans_dropin.py [--reps 3] [--seed 0] [--reinstall] [--quick]

Contenders, k = 10, n_init = 1, random_state = seed, algorithm = 'lloyd', other parameters at
scikit-learn's defaults (max_iter 300, tol 1e-4):
1. Fashion-MNIST train (60000 x 784, pixels / 255): `meanscape.KMeans`, `sklearn.cluster.KMeans`
   and scikit-learn-intelex's `sklearnex.cluster.KMeans` (installed with pip when missing; a
   failure is a row saying so), f64 and f32 input; once with init='k-means++' and once from the
   SAME given centres (init = k rows of X drawn with the seed), so that n_iter_ and inertia_ are
   comparable like for like.
2. A text-like 20000 x 50000 CSR (250 Zipf-drawn words per row, 10 topics; `planted_sparse`), f64: the same
   given centres for both (k rows drawn with the seed, dense k x 50000): `meanscape.KMeans` and
   scikit-learn's KMeans.
Each fit runs in its own subprocess (a crash, a hang or a refusal is a row, not the end of the run),
timed around fit only; wall is the median over --reps subprocesses, the reps interleaved across
contenders so that a change of the machine's load falls on all of them. The subprocess reports
n_iter_, inertia_, NMI against the labels (Fashion-MNIST), the k-means cost recomputed in f64 from
cluster_centers_ (a check on inertia_, in the JSON) and its peak RSS (VmHWM from /proc/self/status:
getrusage's ru_maxrss keeps the parent's peak across fork + exec; the peak before fit, data
loaded, beside it). OpenMP runtimes run with OMP_WAIT_POLICY=passive (see
bench/anchors.py: busy-waiting measures the other tenants of a shared machine).

A contender that is not available (no `meanscape.KMeans` in the installed package, sparse input
refused, sklearnex missing) is a row giving the reason. Runs in bench/.venv; the meanscape
package is installed there from ./python when missing, and again with --reinstall (after a merge).
Writes bench/out/kmeans_dropin/table.md and table.json.
"""

import argparse
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from anchors import cpu_model, ensure_fashion, kmeans_cost, last_line, read_idx  # noqa: E402
from venv_common import VENV, ensure_venv  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FASHION = Path("/usr/share/datasets/fashion-mnist")
OUT = ROOT / "bench" / "out" / "kmeans_dropin"
MARK = VENV / "meanscape-commit.txt"
K = 10
SPARSE = {"n": 20000, "p": 50000, "density": 0.005}
QUICK = {"fashion_rows": 10000, "n": 2000, "p": 5000, "density": 0.005}


# ---------------------------------------------------------------------------- installation

def git_commit():
    r = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if r.returncode != 0:
        return "unknown"
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "python", "src", "Cargo.toml"],
                           capture_output=True, text=True).stdout.strip()
    return r.stdout.strip() + (" (with uncommitted changes)" if dirty else "")


def ensure_package(reinstall):
    """Installs ./python into this venv when `import meanscape` fails, or always with --reinstall;
    records the commit it was built from. Returns None, or why meanscape cannot run."""
    py = sys.executable
    have = subprocess.run([py, "-c", "import meanscape"], capture_output=True).returncode == 0
    if have and not reinstall:
        return None
    print(f"pip install {ROOT / 'python'} into {VENV} (builds the Rust engine) ...", file=sys.stderr)
    cmd = [py, "-m", "pip", "install", "-q"] + (["--force-reinstall", "--no-deps"] if have else []) + [str(ROOT / "python")]
    commit = git_commit()
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        if reinstall:
            # The lead asked for the merged package: timing the old one would mislead.
            sys.exit(f"--reinstall: pip install ./python failed: {last_line(r.stderr)}")
        return f"pip install ./python failed: {last_line(r.stderr)}"
    MARK.write_text(commit + "\n")
    return None


def ensure_sklearnex():
    """None when sklearnex imports (installing scikit-learn-intelex if needed), else the reason."""
    py = sys.executable
    if subprocess.run([py, "-c", "import sklearnex"], capture_output=True).returncode != 0:
        print("pip install scikit-learn-intelex ...", file=sys.stderr)
        r = subprocess.run([py, "-m", "pip", "install", "-q", "scikit-learn-intelex"], capture_output=True, text=True)
        if r.returncode != 0:
            return f"pip install scikit-learn-intelex failed: {last_line(r.stderr)}"
    r = subprocess.run([py, "-c", "import sklearnex"], capture_output=True, text=True)
    return None if r.returncode == 0 else f"import sklearnex failed: {last_line(r.stderr)}"


def versions():
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("numpy", "scipy", "scikit-learn", "scikit-learn-intelex", "meanscape"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = "not installed"
    built = MARK.read_text().strip() if MARK.exists() else "unknown (installed before this script recorded it)"
    out["meanscape package built from commit"] = built
    out["worktree HEAD"] = git_commit()
    return out


# ---------------------------------------------------------------------------- worker side

def maxrss_mib():
    """Peak RSS of this process in MiB: VmHWM, the high-water mark of its own address space.
    getrusage's ru_maxrss survives fork + exec, so a worker would report its parent's peak
    (the driver holds Fashion-MNIST); it is the fallback where /proc is missing."""
    try:
        for line in open("/proc/self/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


class Refused(Exception):
    """The contender cannot run here (missing estimator, input refused): a row, not a crash."""


def make_estimator(peer, init, seed):
    kw = dict(n_clusters=K, init=init, n_init=1, random_state=seed, algorithm="lloyd")
    if peer in ("meanscape", "meanscape-elkan"):
        import meanscape

        cls = getattr(meanscape, "KMeans", None)
        if cls is None:
            raise Refused("no meanscape.KMeans in the installed meanscape package")
        # 'elkan' is the engine's bounded Lloyd: the same result as 'lloyd', bit for bit.
        if peer == "meanscape-elkan":
            kw["algorithm"] = "elkan"
        return cls(**kw)
    if peer == "sklearn":
        from sklearn.cluster import KMeans

        return KMeans(**kw)
    if peer == "sklearnex":
        from sklearnex.cluster import KMeans

        return KMeans(**kw)
    raise ValueError(f"unknown peer {peer}")


def sparse_cost(X, centres):
    """Σᵢ minⱼ ‖xᵢ − cⱼ‖² in f64 for CSR X, by ‖x‖² − 2x·c + ‖c‖²."""
    import numpy as np

    X = X.astype(np.float64)
    sq = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    d = sq[:, None] - 2 * np.asarray(X @ centres.T) + (centres**2).sum(axis=1)[None, :]
    return float(np.maximum(d.min(axis=1), 0).sum())


def worker(spec):
    """One fit in this process; prints one JSON line (results, or {"refused": reason})."""
    import warnings

    import numpy as np

    dtype = np.float32 if spec["dtype"] == "f32" else np.float64
    if spec["sparse"]:
        import scipy.sparse as sp

        X = sp.load_npz(spec["x"]).astype(dtype)
    else:
        # f32 has its own file: converting here would put the f64 copy in the peak RSS.
        X = np.ascontiguousarray(np.load(spec["x"][spec["dtype"]]), dtype=dtype)
    init = np.load(spec["init"]).astype(dtype) if spec["init"] else "k-means++"
    rss_before = maxrss_mib()
    try:
        est = make_estimator(spec["peer"], init, spec["seed"])
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            t = time.perf_counter()
            est.fit(X)
            wall = time.perf_counter() - t
    except Refused as e:
        print(json.dumps({"refused": str(e)}))
        return
    except Exception as e:  # the estimator said no: its message is the row
        msg = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
        print(json.dumps({"refused": f"{type(e).__name__}: {msg}"}))
        return
    rss_peak = maxrss_mib()
    centres = np.asarray(est.cluster_centers_, dtype=np.float64)
    if spec["sparse"]:
        cost = sparse_cost(X, centres)
    else:
        cost = kmeans_cost(np.asarray(X, dtype=np.float64), centres)
    nmi = None
    if spec["y"]:
        from sklearn.metrics import normalized_mutual_info_score

        nmi = float(normalized_mutual_info_score(np.load(spec["y"]), est.labels_))
    inertia = getattr(est, "inertia_", None)
    print(json.dumps({
        "wall": wall, "n_iter": int(est.n_iter_), "inertia": None if inertia is None else float(inertia),
        "cost_f64": cost, "nmi": nmi, "rss_before_mib": rss_before, "rss_peak_mib": rss_peak,
        "centres_dtype": str(est.cluster_centers_.dtype),
        "warnings": sorted({f"{w.category.__name__}: {str(w.message).splitlines()[0][:120]}" for w in seen}),
    }))


# ---------------------------------------------------------------------------- driver side

class Row:
    def __init__(self, section, name, peer, dtype, init, reason=None):
        self.section, self.name, self.peer, self.dtype, self.init = section, name, peer, dtype, init
        self.reason, self.reps = reason, []

    def median(self, key):
        vals = [r[key] for r in self.reps if r.get(key) is not None]
        return statistics.median(vals) if vals else None

    def first(self, key):
        return self.reps[0].get(key) if self.reps else None

    def to_json(self):
        return {"section": self.section, "name": self.name, "dtype": self.dtype, "init": self.init,
                "reason": self.reason, "median_wall_s": self.median("wall"), "reps": self.reps}


def run_worker(spec, timeout):
    env = dict(os.environ, OMP_WAIT_POLICY="passive")
    try:
        r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", json.dumps(spec)],
                           capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, f"hang: no result after {timeout} s (--timeout)"
    if r.returncode != 0:
        why = f"crashed ({signal.Signals(-r.returncode).name})" if r.returncode < 0 else f"crashed (exit {r.returncode})"
        return None, f"{why}: {last_line(r.stderr)}"
    lines = r.stdout.strip().splitlines()
    try:
        res = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        return None, f"no result from the worker: {last_line(r.stderr)}"
    if "refused" in res:
        return None, f"not available: {res['refused']}"
    return res, None


def prepare(tmp, seed, quick):
    """Writes the data sets and the given centres as files the workers load; returns the specs' parts."""
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    X = read_idx(FASHION / "train-images-idx3-ubyte.gz")
    X = X.reshape(X.shape[0], -1).astype(np.float64) / 255.0
    y = read_idx(FASHION / "train-labels-idx1-ubyte.gz").astype(np.int64)
    if quick:
        X, y = X[: QUICK["fashion_rows"]], y[: QUICK["fashion_rows"]]
    files = {name: str(Path(tmp) / f"{name}.npy") for name in ("fashion_y", "fashion_init", "sparse_init")}
    files["fashion"] = {d: str(Path(tmp) / f"fashion_{d}.npy") for d in ("f64", "f32")}
    np.save(files["fashion"]["f64"], np.ascontiguousarray(X))
    np.save(files["fashion"]["f32"], np.ascontiguousarray(X, dtype=np.float32))
    np.save(files["fashion_y"], y)
    np.save(files["fashion_init"], X[np.sort(rng.choice(len(X), K, replace=False))])
    shape = QUICK if quick else SPARSE
    S = planted_sparse(shape["n"], shape["p"], shape["density"])
    files["sparse"] = str(Path(tmp) / "sparse.npz")
    sp.save_npz(files["sparse"], S, compressed=False)
    np.save(files["sparse_init"], S[np.sort(rng.choice(S.shape[0], K, replace=False))].toarray())
    shapes = {"fashion": X.shape, "sparse": S.shape, "sparse_nnz": int(S.nnz)}
    return files, shapes


def planted_sparse(n, p, density, mix=0.3):
    """A text-like n x p CSR: K clusters of documents, each row drawing density * p words (with
    repeats, summed, then log1p as tf weighting) from a Zipf vocabulary in which its cluster's own
    Zipf topic has weight `mix` over a shared background. Uniform random rows
    (scipy.sparse.random) or rows with disjoint column blocks settle after one or two
    reassignments, so they time the setup, not the iterations; these take tens of iterations."""
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    per_row = max(1, int(round(density * p)))
    zipf = 1.0 / np.arange(1, p + 1) ** 1.1
    base = zipf[rng.permutation(p)]
    base /= base.sum()
    rows, cols = [], []
    for c in range(K):
        topic = zipf[rng.permutation(p)]
        topic /= topic.sum()
        members = np.arange(c, n, K)
        drawn = rng.choice(p, size=(members.size, per_row), p=mix * topic + (1 - mix) * base)
        rows.append(np.repeat(members, per_row))
        cols.append(drawn.ravel())
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    S = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, p))
    S.sum_duplicates()
    S.data = np.log1p(S.data)
    return S


def contenders(sklearnex, meanscape):
    rows = []
    names = {"meanscape": "meanscape.KMeans", "meanscape-elkan": "meanscape.KMeans elkan",
             "sklearn": "sklearn KMeans", "sklearnex": "sklearnex KMeans"}
    for init in ("k-means++", "given"):
        peers = (("meanscape", meanscape), ("meanscape-elkan", meanscape), ("sklearn", None), ("sklearnex", sklearnex))
        for peer, reason in peers:
            for d in ("f64", "f32"):
                rows.append(Row("fashion", names[peer], peer, d, init, reason))
    for peer, reason in (("meanscape", meanscape), ("meanscape-elkan", meanscape), ("sklearn", None)):
        rows.append(Row("sparse", names[peer], peer, "f64", "given", reason))
    return rows


def measure(rows, files, args):
    for rep in range(args.reps):
        for row in rows:
            if row.reason:
                continue
            sparse = row.section == "sparse"
            spec = {"peer": row.peer, "dtype": row.dtype, "seed": args.seed, "sparse": sparse,
                    "x": files["sparse" if sparse else "fashion"], "y": None if sparse else files["fashion_y"],
                    "init": files[f"{row.section}_init"] if row.init == "given" else None}
            res, why = run_worker(spec, args.timeout)
            tag = f"{row.section} {row.name} {row.dtype} init={row.init} rep {rep + 1}/{args.reps}"
            if why:
                row.reason = why if rep == 0 else f"{why} (rep {rep + 1}; earlier reps kept in the JSON)"
                print(f"  {tag}: {row.reason}", file=sys.stderr)
                continue
            res["load1"] = os.getloadavg()[0]
            row.reps.append(res)
            print(f"  {tag}: {res['wall']:.3f} s, {res['n_iter']} it, inertia {res['inertia']:.6g}"
                  + (f", NMI {res['nmi']:.4f}" if res["nmi"] is not None else "")
                  + f", peak RSS {res['rss_peak_mib']:.0f} MiB", file=sys.stderr)


# ---------------------------------------------------------------------------- report

def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def table(rows, section, reps):
    base = {(r.dtype, r.init): r.median("wall") for r in rows if r.section == section and r.peer == "sklearn"}
    out = ["| contender | dtype | init | wall s | / sklearn | n_iter_ | ms / iteration | inertia_ | NMI | "
           "peak RSS MiB (before fit) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.section != section:
            continue
        if not r.reps:
            out.append(f"| {r.name} | {r.dtype} | {r.init} | {r.reason} | — | — | — | — | — | — |")
            continue
        wall, sk = r.median("wall"), base.get((r.dtype, r.init))
        ratio = wall / sk if sk else None
        extra = f" ({len(r.reps)} of {reps} reps: {r.reason})" if r.reason else ""
        out.append(f"| {r.name} | {r.dtype} | {r.init} | {wall:.3f}{extra} | {fmt(ratio, '.2f')} | "
                   f"{r.first('n_iter')} | {wall / max(1, r.first('n_iter')) * 1e3:.1f} | {fmt(r.first('inertia'), '.6e')} | {fmt(r.first('nmi'), '.4f')} | "
                   f"{r.median('rss_peak_mib'):.0f} ({r.median('rss_before_mib'):.0f}) |")
    return out


def notes(rows):
    out = []
    for r in rows:
        if not r.reps:
            continue
        tag = f"{r.section}: {r.name} {r.dtype} init={r.init}"
        for key in ("n_iter", "inertia"):
            vals = {x[key] for x in r.reps}
            if len(vals) > 1:
                out.append(f"{tag}: {key} differs across reps ({sorted(vals)}); the table shows rep 1's")
        i, c = r.first("inertia"), r.first("cost_f64")
        if i is not None and c and abs(i - c) / c > 1e-4:
            out.append(f"{tag}: inertia_ {i:.6e} vs the f64 cost from cluster_centers_ {c:.6e} "
                       f"({abs(i - c) / c:.1e} relative)")
        if r.first("n_iter") <= 3:
            out.append(f"{tag}: converged in {r.first('n_iter')} iterations, so its wall is mostly the fit's "
                       "setup (checks, copies, norms) rather than Lloyd's iterations")
        want = "float32" if r.dtype == "f32" else "float64"
        if r.first("centres_dtype") != want:
            out.append(f"{tag}: cluster_centers_ is {r.first('centres_dtype')} (input {want})")
        warns = sorted({w for x in r.reps for w in x["warnings"]})
        out += [f"{tag}: warned {w}" for w in warns]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3, help="fits per contender, each in its own process; median (default 3)")
    ap.add_argument("--seed", type=int, default=0, help="random_state of every fit and the draw of the given centres")
    ap.add_argument("--reinstall", action="store_true", help="reinstall the meanscape package from ./python first")
    ap.add_argument("--quick", action="store_true",
                    help=f"smoke test: 1 rep, the first {QUICK['fashion_rows']} Fashion-MNIST rows, "
                         f"sparse {QUICK['n']} x {QUICK['p']}")
    ap.add_argument("--timeout", type=int, default=900, help="seconds allowed for one fit (default 900)")
    ap.add_argument("--out", default=str(OUT), help=f"output directory (default {OUT.relative_to(ROOT)})")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(json.loads(args.worker))
        return
    if args.quick:
        args.reps = 1
    if args.reps < 1:
        sys.exit("--reps must be at least 1")
    started = time.perf_counter()
    missing = ensure_fashion()
    if missing:
        sys.exit(missing)
    meanscape_reason = ensure_package(args.reinstall)
    if meanscape_reason:
        meanscape_reason = f"not available: {meanscape_reason}"
    sklearnex_reason = ensure_sklearnex()
    if sklearnex_reason:
        sklearnex_reason = f"not available: {sklearnex_reason}"
    load_before = os.getloadavg()
    rows = contenders(sklearnex_reason, meanscape_reason)
    with tempfile.TemporaryDirectory(prefix="kmeans-dropin-") as tmp:
        files, shapes = prepare(tmp, args.seed, args.quick)
        measure(rows, files, args)
    load_after = os.getloadavg()
    total = time.perf_counter() - started
    vers = versions()
    (n, p), (sn, sp_) = shapes["fashion"], shapes["sparse"]
    cmd = "python3 bench/kmeans_dropin.py" + (" --quick" if args.quick else f" --reps {args.reps}") + \
          (f" --seed {args.seed}" if args.seed else "") + (" --reinstall" if args.reinstall else "")
    density = shapes["sparse_nnz"] / (sn * sp_)
    lines = [
        "# meanscape.KMeans against scikit-learn's KMeans",
        "",
        f"`{cmd}` on {time.strftime('%Y-%m-%d %H:%M %Z')}, {cpu_model()}, {os.cpu_count()} cores; "
        f"total run {total / 60:.1f} min.",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in vers.items()) + ".",
        f"Load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, after "
        f"{load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} (1, 5, 15 min) on {os.cpu_count()} cores: "
        "the machine is shared, wall times are noisy.",
        "",
        f"k = {K}, n_init = 1, random_state = {args.seed}, algorithm = 'lloyd' (meanscape also 'elkan', its bounded Lloyd), scikit-learn's defaults otherwise. "
        f"wall = fit only, median of {args.reps} fit(s), each in its own process (reps interleaved across "
        "contenders; OMP_WAIT_POLICY=passive). / sklearn = wall over scikit-learn's wall for the same dtype and "
        "init (below 1: faster). n_iter_, inertia_ and NMI are rep 1's. init 'given' = the same k rows of X, "
        "drawn with the seed, for every contender. ms / iteration = wall / n_iter_ (setup included). Peak RSS = VmHWM of the fit's process (before fit: data "
        "loaded, libraries imported).",
        "",
        f"## Fashion-MNIST train ({n} x {p}, pixels / 255), NMI against the 10 classes",
        "",
        *table(rows, "fashion", args.reps),
        "",
        f"## Sparse: text-like {sn} x {sp_} CSR (density {density:.4f}, 10 Zipf topics, log1p counts), "
        f"nnz {shapes['sparse_nnz']}, f64; given dense {K} x {sp_} centres",
        "",
        *table(rows, "sparse", args.reps),
    ]
    ns = notes(rows)
    if ns:
        lines += ["", "Notes:", ""] + [f"- {x}" for x in ns]
    text = "\n".join(lines) + "\n"
    print(text)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "table.md").write_text(text)
    report = {"command": cmd, "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "total_s": total,
              "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "python": platform.python_version()},
              "versions": vers, "load_before": load_before, "load_after": load_after, "k": K, "seed": args.seed,
              "reps": args.reps, "shapes": {"fashion": [n, p], "sparse": [sn, sp_], "sparse_nnz": shapes["sparse_nnz"]},
              "rows": [r.to_json() for r in rows], "notes": ns}
    (out / "table.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out / 'table.md'} and table.json ({total / 60:.1f} min)", file=sys.stderr)


if __name__ == "__main__":
    if "--worker" not in sys.argv:
        ensure_venv(__file__)
    main()
