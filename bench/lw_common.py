"""Shared helpers for the LW-k-means experiment drivers (bench/lw_*.py).

Plain Python 3, no third-party packages: every number comes from the `meanscape` binary
(`target/release/meanscape`, built here with `cargo build --release` if needed) through its JSON
output. Raw results go to bench/out/ (git-ignored).
"""

import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
# MEANSCAPE_BIN (a pinned copy of the binary) overrides target/release/meanscape, and then nothing is built.
BIN = Path(os.environ.get("MEANSCAPE_BIN", ROOT / "target" / "release" / "meanscape"))
SHARED = ROOT.parent / "shared" / "data"

# The paper's Table VI (mean CER over 20 runs; LW's lambda in parentheses, reference-code units)
# and Table VII (number of selected features, seconds on an i3-5010U laptop), copied from the
# paper (Chakraborty & Das; docs/methods/README.md#references). Published numbers: data, not prose.
PAPER_CER = {
    #            LW      lambda   WK      k-means IF-HCT  sparse
    "brain": (0.2381, 0.0005, 0.4452, 0.2865, 0.2624, 0.2857),
    "leukemia": (0.0278, 0.0005, 0.2419, 0.2789, 0.0695, 0.2778),
    "lymphoma": (0.0161, 0.0006, 0.3266, 0.3877, 0.0657, 0.2741),
    # Table VI prints lambda = 1 for Wine, which drops every feature; the authors' examples.m
    # uses 0.01, which reproduces 0.0506 (docs/methods/lw-kmeans.md#benchmark-protocol). We use 0.01.
    "wine": (0.0506, 0.01, 0.0896, 0.3047, 0.1404, 0.0506),
}
PAPER_SEL = {  # LW, IF-HCT-PCA, sparse
    "brain": (14, 429, 5597),
    "leukemia": (28, 213, 3571),
    "lymphoma": (32, 44, 4026),
    "wine": (13, 4, 13),
}
PAPER_TIME = {  # seconds: LW, IF-HCT-PCA, sparse k-means (Table VII)
    "brain": (2.407632, 186.951822, 324.26),
    "leukemia": (1.008672, 48.983883, 159.44),
    "lymphoma": (1.542459, 60.122838, 184.23),
    "wine": (0.219742, 273.263245, 4.49),
}


def data_spec(name):
    """A dataset name of the paper -> the --data argument."""
    if name == "wine":
        return "wine"
    path = SHARED / f"{name}.csv"
    if not path.exists():
        sys.exit(f"{path} is missing (the reference datasets live in ../shared/data/)")
    # Relative to the repo root (every run has cwd = ROOT), so printed commands read as documented.
    return os.path.relpath(path, ROOT)


def build():
    if "MEANSCAPE_BIN" in os.environ:
        return
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)


def run_json(args):
    """Runs `meanscape ARGS --json` and returns the parsed object."""
    out = subprocess.run(
        [str(BIN), *args, "--json"], cwd=ROOT, capture_output=True, text=True
    )
    if out.returncode != 0:
        raise RuntimeError(f"meanscape {' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def command(args):
    return "meanscape " + " ".join(args)


def machine():
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}"


def mean(v):
    return statistics.fmean(v) if v else float("nan")


def median(v):
    return statistics.median(v) if v else float("nan")


def sd(v):
    return statistics.stdev(v) if len(v) > 1 else 0.0


def table(header, rows):
    """A markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def save(name, obj):
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / name
    path.write_text(json.dumps(obj, indent=1))
    return path
