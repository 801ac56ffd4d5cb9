"""Shared helpers for the RFF experiment drivers (bench/rff_*.py).

Plain Python 3, no third-party packages: every number comes from a meanscape binary through its
JSON output. The binary is copied to bench/out/meanscape-rff once (`--rebuild` refreshes it), so
other people rebuilding target/ during a long run do not change the program under test. Raw
results go to bench/out/ (git-ignored); each run is cached there by its command line, so an
interrupted driver resumes where it stopped.
"""

import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
SHARED = ROOT.parent / "shared" / "data"
BUILT = ROOT / "target" / "release" / "meanscape"
BIN = OUT / "meanscape-rff"


def binary(rebuild=False):
    """The pinned binary, built and copied on first use (or with rebuild=True); MEANSCAPE_BIN, if
    set, is used as it is."""
    if "MEANSCAPE_BIN" in os.environ and not rebuild:
        return os.environ["MEANSCAPE_BIN"]
    OUT.mkdir(parents=True, exist_ok=True)
    if rebuild or not BIN.exists():
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        shutil.copy2(BUILT, BIN)
    return str(BIN)


def load_avg():
    return os.getloadavg()[0]


class Cache:
    """Results of earlier runs, keyed by the command line."""

    def __init__(self, path):
        self.path = Path(path)
        self.data = json.loads(self.path.read_text()) if self.path.exists() else {}

    def get(self, key):
        return self.data.get(key)

    def put(self, key, value):
        self.data[key] = value
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data, indent=1))
        tmp.replace(self.path)


def run(args, cache=None, keep=("labels",)):
    """Runs `meanscape run ARGS --json -q`; returns the JSON (minus the `keep`-listed bulky
    fields unless asked for) plus `wall_s` and `load` (1-minute load average at the start)."""
    cmd = [binary(), "run"] + list(args) + ["--json", "-q"]
    key = " ".join(cmd[2:])
    if cache is not None and cache.get(key) is not None:
        return cache.get(key)
    load = load_avg()
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{out.stderr}")
    d = json.loads(out.stdout)
    d.pop("trace", None)
    if "labels" not in keep:
        d.pop("labels", None)
    d["wall_s"] = wall
    d["load"] = load
    if cache is not None:
        cache.put(key, d)
    return d


def nmi(a, b):
    """Normalised mutual information, arithmetic normalisation (scikit-learn's default, as the
    metrics in meanscape's JSON)."""
    n = len(a)
    if n == 0:
        return 0.0
    ca, cb, cab = {}, {}, {}
    for x, y in zip(a, b):
        ca[x] = ca.get(x, 0) + 1
        cb[y] = cb.get(y, 0) + 1
        cab[(x, y)] = cab.get((x, y), 0) + 1
    mi = sum(c / n * math.log(c * n / (ca[x] * cb[y])) for (x, y), c in cab.items())
    ha = -sum(c / n * math.log(c / n) for c in ca.values())
    hb = -sum(c / n * math.log(c / n) for c in cb.values())
    if ha == 0.0 and hb == 0.0:
        return 1.0
    den = (ha + hb) / 2
    return max(0.0, mi / den) if den > 0 else 0.0


def data_path(name):
    path = SHARED / f"{name}.csv"
    if not path.exists():
        sys.exit(f"{path} is missing (the reference datasets live in ../shared/data/)")
    return os.path.relpath(path, ROOT)
