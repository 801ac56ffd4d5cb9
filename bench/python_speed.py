#!/usr/bin/env python3
"""The Python package against scikit-learn on Fashion-MNIST (70000 × 784),
in one process, and the binding's overhead against the CLI.

    python3 bench/python_speed.py [--reps 3] [--out bench/out/python_speed.json]

Fashion-MNIST comes from Debian's package dataset-fashion-mnist
(`apt-get install dataset-fashion-mnist`: IDX files under
/usr/share/datasets/fashion-mnist/), read with `meanscape.load`. Pixels are
divided by 255. Runs in bench/.venv (created with numpy and scikit-learn;
the meanscape package is installed there from ./python if missing).

Timed, each `--reps` times, median reported:
- `meanscape.PowerKMeans(n_clusters=10).fit` (defaults: s0 = −1, η = 1.04);
- the engine's k-means through the binding (`_meanscape.fit("kmeans", …)`),
  the like-for-like peer of
- `sklearn.cluster.KMeans(n_clusters=10, n_init=1).fit` (Lloyd, k-means++);
- `meanscape run --algo power` on the same matrix saved as .npy: its
  `elapsed_ms` (solver only) and the process's wall time.
The binding's overhead is the fit's wall time minus the engine's own
`elapsed_ms` for the same fit.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from venv_common import VENV, ensure_venv  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FASHION = Path("/usr/share/datasets/fashion-mnist")


def ensure_package():
    """Installs ./python into bench/.venv when `import meanscape` fails."""
    try:
        import meanscape  # noqa: F401
    except ImportError:
        print("installing the meanscape package from ./python into bench/.venv ...", file=sys.stderr)
        subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "install", "-q", str(ROOT / "python")], check=True)
        os.execv(sys.executable, [sys.executable, *sys.argv])


def load_fashion():
    import numpy as np

    import meanscape

    parts = [meanscape.load(str(FASHION / f"{name}-images-idx3-ubyte.gz")) for name in ("train", "t10k")]
    X = np.vstack([p["X"] for p in parts]) / 255.0
    # Class ids are dense per file, in order of first appearance: map them
    # back to the digits the files hold before joining the two.
    y = np.concatenate([np.asarray(p["label_names"], dtype=int)[p["y"]] for p in parts])
    return np.ascontiguousarray(X), y


def timed(fn, reps):
    walls, results = [], []
    for _ in range(reps):
        t = time.perf_counter()
        r = fn()
        walls.append(time.perf_counter() - t)
        results.append(r)
    return walls, results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "bench" / "out" / "python_speed.json"))
    args = ap.parse_args()
    if not FASHION.is_dir():
        sys.exit(f"{FASHION} is missing: apt-get install dataset-fashion-mnist")
    ensure_package()
    import numpy as np
    from sklearn.cluster import KMeans
    from sklearn.metrics import normalized_mutual_info_score as nmi

    import meanscape
    from meanscape import _meanscape

    X, y = load_fashion()
    print(f"Fashion-MNIST {X.shape[0]} × {X.shape[1]}, k = 10, {os.cpu_count()} cores", file=sys.stderr)
    rows = {}

    def record(name, walls, labels, engine_ms=None, iters=None):
        rows[name] = {
            "wall_s": walls,
            "median_s": statistics.median(walls),
            "nmi": float(nmi(y, labels)) if y is not None else None,
            "engine_ms": engine_ms,
            "iterations": iters,
        }
        print(f"{name:32s} {statistics.median(walls):8.2f} s  NMI {rows[name]['nmi']:.4f}", file=sys.stderr)

    walls, ests = timed(lambda: meanscape.PowerKMeans(n_clusters=10, random_state=0).fit(X), args.reps)
    record("meanscape PowerKMeans", walls, ests[-1].labels_, [e.elapsed_ms_ for e in ests], ests[-1].n_iter_)
    overhead = [w * 1e3 - e.elapsed_ms_ for w, e in zip(walls, ests)]

    walls, res = timed(lambda: _meanscape.fit("kmeans", X, 10, [], [], 0), args.reps)
    record("meanscape k-means (binding)", walls, res[-1]["labels"], [r["elapsed_ms"] for r in res], res[-1]["n_iter"])

    walls, kms = timed(lambda: KMeans(n_clusters=10, n_init=1, random_state=0).fit(X), args.reps)
    record("scikit-learn KMeans", walls, kms[-1].labels_, None, int(kms[-1].n_iter_))

    cli = os.environ.get("MEANSCAPE_BIN") or str(ROOT / "target" / "release" / "meanscape")
    cli_rows = None
    if Path(cli).is_file():
        with tempfile.TemporaryDirectory() as tmp:
            npy = Path(tmp) / "fashion.npy"
            np.save(npy, X)
            cmd = [cli, "run", "--data", str(npy), "--label", "none", "--scale", "none", "--algo", "power", "--k", "10", "--seed", "0", "--json", "-q"]
            walls, outs = timed(lambda: json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout), args.reps)
        same = outs[-1]["labels"] == ests[-1].labels_.tolist()
        cli_rows = {"wall_s": walls, "elapsed_ms": [o["elapsed_ms"] for o in outs], "load_ms": [o["load_ms"] for o in outs], "same_labels_as_python": same}
        print(f"{'meanscape run --algo power':32s} {statistics.median(walls):8.2f} s  (solver {statistics.median(cli_rows['elapsed_ms']) / 1e3:.2f} s, same labels: {same})", file=sys.stderr)
    else:
        print(f"{cli} not built: the CLI comparison is left out", file=sys.stderr)

    ratio = rows["scikit-learn KMeans"]["median_s"] / rows["meanscape k-means (binding)"]["median_s"]
    report = {
        "data": "Fashion-MNIST train+test, 70000 × 784, pixels / 255",
        "machine": {"cores": os.cpu_count(), "cpu": platform.processor() or platform.machine(), "python": platform.python_version()},
        "date": time.strftime("%Y-%m-%d"),
        "reps": args.reps,
        "rows": rows,
        "cli": cli_rows,
        "binding_overhead_ms": overhead,
        "sklearn_over_meanscape_kmeans": ratio,
        "sklearn_over_power": rows["scikit-learn KMeans"]["median_s"] / rows["meanscape PowerKMeans"]["median_s"],
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print(f"binding overhead (wall − engine) {statistics.median(overhead):.1f} ms; scikit-learn KMeans / meanscape k-means = {ratio:.2f}", file=sys.stderr)
    print(f"wrote {args.out}", file=sys.stderr)


def has_packages():
    try:
        import meanscape  # noqa: F401
        import sklearn  # noqa: F401
    except ImportError:
        return False
    return True


if __name__ == "__main__":
    # An environment that already has both (a developer's venv) is used as
    # it is; otherwise bench/.venv, with ./python installed into it.
    if not has_packages():
        ensure_venv(__file__)
    main()
