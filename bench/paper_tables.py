#!/usr/bin/env python3
"""Regenerate every paper table we have data for into docs/paper-tables.md.

    python3 bench/paper_tables.py                 # everything (≈ 40 min on 2 cores)
    python3 bench/paper_tables.py --quick         # 3 seeds per cell: checks the script (a few minutes)
    python3 bench/paper_tables.py --only lw_table6
    python3 bench/paper_tables.py --reuse         # rebuild the Markdown from bench/out/paper_tables/*.json

A table with no JSON in bench/out/paper_tables (e.g. on a fresh clone, after `--only`) keeps its
section of the current docs/paper-tables.md, and the header says which were kept.

Run from the repository root with the reference data in ../shared/data (beside the repository).
The binary is $MEANSCAPE_BIN, else target/release/meanscape (build it first). Plain Python 3:
every number comes from `meanscape run`/`meanscape sweep` JSON; one meanscape process at a time
(each uses every core). Each table is written to bench/out/paper_tables/NAME.json as soon as it
is done, so `--only NAME` reruns one table and the document is rebuilt from the others' JSON.

Tables (NAME): kpk (KPK Table 1 + the σ × s₀ sensitivity), rff_hw2 (RFF paper Tables 1/2, HW2),
rff_table5 (RFF paper Table 5's protocol on our single-view data), lw_table6 (LW Table VI),
lw_sparse (LW Tables V/VIII designs), xu_lange (power vs Lloyd), dmkkm (DMKKM Table 2,
Handwritten), rff_heldout (issue 27: multi-view RFF vs the exact multi-kernel method on views
HW2 does not use), brain (gap: LW on Brain, restarts / nstart), rings (gap: ten rings at s₀ = −1).
"""

import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
DATA = ROOT.parent / "shared" / "data"
OUT = BENCH / "out" / "paper_tables"
DOC = ROOT / "docs" / "paper-tables.md"
os.environ.setdefault("MEANSCAPE_BIN", str(ROOT / "target" / "release" / "meanscape"))
BIN = os.environ["MEANSCAPE_BIN"]
sys.path.insert(0, str(BENCH))

import dmkkm_handwritten  # noqa: E402
import hw2  # noqa: E402
import kernel_rings  # noqa: E402
import kernel_table1  # noqa: E402
import kpower_sensitivity  # noqa: E402
import lw_common  # noqa: E402
import lw_sparse_mcc  # noqa: E402
import rff_common  # noqa: E402
import xu_lange  # noqa: E402

# Verdict tolerance: ours matches the paper when |ours − paper| ≤ max(TOL, one sd of our per-seed
# values); beats it when higher by more, misses when lower by more (for CER: lower is better).
TOL = 0.01


# --------------------------------------------------------------------------- running meanscape

def rel(path):
    return os.path.relpath(path, ROOT)


def data(name):
    path = DATA / name
    if not path.exists():
        sys.exit(f"{path} is missing: the reference data must be in ../shared/data beside the repository")
    return rel(path)


def meanscape(args):
    """`meanscape ARGS --json -q` (cwd = the repository root) -> the parsed JSON."""
    cmd = [BIN, *args, "--json", "-q"]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if out.returncode != 0:
        raise RuntimeError(f"meanscape {' '.join(args)}: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


def sweep(args, seeds, grid):
    """`meanscape sweep ARGS --seeds SEEDS --grid G…`: every cell run SEEDS times (seeds 0…, one
    restart each, i.e. `meanscape run --seed S` with the cell's parameters)."""
    g = [x for a in grid for x in ("--grid", a)]
    return meanscape(["sweep", *args, "--seeds", str(seeds), *g])


def cell_stats(cell, metrics=("acc", "nmi", "ari", "purity")):
    """{metric: (mean, sd)} of a sweep cell, plus the per-seed values."""
    out = {}
    for m in metrics:
        s = cell["scores"].get(m)
        if s and s.get("mean") is not None:
            out[m] = (s["mean"], s.get("sd") or 0.0)
    out["cer"] = (1 - out["acc"][0], out["acc"][1]) if "acc" in out else None
    for m in ("selected", "stability", "silhouette", "clusters"):
        s = cell["scores"].get(m)
        if s and s.get("mean") is not None:
            out[m] = (s["mean"], s.get("sd") or 0.0)
    out["ms"] = statistics.median(r["time_ms"] for r in cell["runs"]) if cell.get("runs") else None
    return out


def one_cell(args, seeds, grid):
    """A single-cell sweep (the grid fixes one value) -> (stats, the sweep JSON's command)."""
    v = sweep(args, seeds, grid)
    return cell_stats(v["cells"][0]), "meanscape sweep " + " ".join(args + [f"--seeds {seeds}"] + [f"--grid {g}" for g in grid])


def runs(arglists, metrics=("acc", "nmi", "ari")):
    """`meanscape run` once per argument list (one process at a time) -> stats over the runs."""
    rs = [meanscape(["run", *a]) for a in arglists]
    out = {}
    for m in metrics:
        v = [r["metrics"][m] for r in rs if r.get("metrics", {}).get(m) is not None]
        if v:
            out[m] = (statistics.mean(v), statistics.stdev(v) if len(v) > 1 else 0.0)
    if "acc" in out:
        out["cer"] = (1 - out["acc"][0], out["acc"][1])
    sel = [r["selected_features"] for r in rs if r.get("selected_features") is not None]
    if sel:
        out["selected"] = (statistics.mean(sel), statistics.stdev(sel) if len(sel) > 1 else 0.0)
    mcc = [r["selection_mcc"] for r in rs if r.get("selection_mcc") is not None]
    if mcc:
        out["mcc"] = (statistics.mean(mcc), statistics.stdev(mcc) if len(mcc) > 1 else 0.0)
        out["mcc1"] = sum(1 for x in mcc if x == 1.0)
    out["ms"] = statistics.median(r["elapsed_ms"] for r in rs)
    out["raw"] = rs
    return out


def verdict(ours, paper, lower_better=False):
    """'match' / 'beat' / 'miss' for ours = (mean, sd) against a paper number."""
    if paper is None or ours is None:
        return ""
    m, sd = ours
    tol = max(TOL, sd)
    d = (paper - m) if lower_better else (m - paper)
    if abs(d) <= tol:
        return "match"
    return "beat" if d > 0 else "miss"


def fmt(x, spec=".4f"):
    if x is None:
        return "–"
    if isinstance(x, tuple):
        return f"{x[0]:{spec}} ± {x[1]:{spec}}"
    return format(x, spec)


# --------------------------------------------------------------------------- the tables
# Each returns {"title", "intro", "tables": [{"caption", "header", "rows"}], "notes"}.

KPK_WHY = {
    "isolet": "our kpower matches a faithful NumPy transcription of the printed protocol (0.744); "
              "the σ × s₀ sweep below shows which cell (if any) reaches the paper's number",
    "lung_discrete": "same: the transcription gives 0.715; see the sweep below",
    "seeds": "kpower ends in power k-means' partition from every start (sd 0); the NumPy transcription "
             "of issue 3 reached the paper's 0.7502, so our path differs here — not investigated (a later "
             "change to kpower's stopping rule, e.g. the hardness condition, is a candidate)",
}


def t_kpk(seeds):
    rows, cmds = [], []
    for ds, fname in kernel_table1.DATASETS.items():
        path = data(fname)
        sigma, k = _auto_sigma(path)
        base = ["--data", path, "--init", "random"]
        for algo in kernel_table1.ALGOS:
            grid = [f"sigma={sigma:.10g}"] if algo != "power" else ["s0=-1"]
            st, cmd = one_cell(base + ["--algo", algo], seeds, grid)
            cmds.append(cmd)
            paper = kernel_table1.PAPER[ds][algo]
            v = verdict(st["nmi"], paper)
            rows.append(["paper (random init, σ rule)", ds, algo, fmt(st["nmi"]), f"{paper:.4f}",
                         f"{kernel_table1.REFERENCE[ds]:.4f}" if algo == "kpower" else "", v, _kpk_why(v, ds, algo)])
        # our defaults: k-means++ starts (the default --init), one restart per seed
        for algo in kernel_table1.ALGOS:
            grid = [f"sigma={sigma:.10g}"] if algo != "power" else ["s0=-1"]
            st, cmd = one_cell(["--data", path, "--algo", algo], seeds, grid)
            cmds.append(cmd)
            paper = kernel_table1.PAPER_PP[ds][algo]
            v = verdict(st["nmi"], paper)
            rows.append(["ours (k-means++ starts) vs the paper's k-means++ Table 4", ds, algo, fmt(st["nmi"]),
                         f"{paper:.4f}", "", v, _kpk_why(v, ds, algo)])
    tables = [{"caption": f"KPK Table 1 (mean NMI over {seeds} matched starts; the paper: 20) and, with "
                          "k-means++ starts, its Appendix Table 4",
               "header": ["protocol", "dataset", "algorithm", "NMI mean ± sd", "paper", "NumPy transcription",
                          "verdict", "why"],
               "rows": rows}]
    # σ × s₀ sensitivity: reuse bench/out/kpower_sensitivity_<ds>.json (bench/kpower_sensitivity.py)
    srows, notes = [], []
    for ds in ("isolet", "lung_discrete"):
        f = BENCH / "out" / f"kpower_sensitivity_{ds}.json"
        path = data(f"{ds}.csv")
        sigma, _ = _auto_sigma(path)
        if f.exists():
            v = json.loads(f.read_text())
            src = f"{rel(f)} ({v['seeds']} seeds per cell, {len(v['cells'])} cells, " \
                  f"{v.get('elapsed_ms', 0) / 1e3:.0f} s when it was computed; reused, not rerun)"
        else:
            # reduced: the paper's cell and the defaults' cell only
            v = sweep(["--data", path, "--algo", "kpower", "--init", "random"], seeds,
                      [f"sigma={sigma:.10g}", "s0=-1"])
            src = f"reduced sweep: the paper's cell only ({seeds} seeds); run bench/kpower_sensitivity.py for the grid"
        notes.append(f"{ds}: {src}")
        by_nmi, by_stab, by_sil, default = kpower_sensitivity.picks(v, sigma)
        paper = kernel_table1.PAPER[ds]["kpower"]
        for label, c in [("best by NMI (label-tuned)", by_nmi), ("best by stability (label-free)", by_stab),
                         ("best by silhouette (label-free)", by_sil), ("σ rule, s₀ = −1 (the paper's protocol)", default)]:
            st = cell_stats(c)
            srows.append([ds, label, f"{c['at']['sigma']:.4g}", f"{c['at']['s0']:g}", fmt(st["nmi"]),
                          fmt(st.get("stability"), ".3f"), f"{paper:.4f}", verdict(st["nmi"], paper)])
    tables.append({"caption": "kpower σ × s₀ sensitivity (σ = rule × 2^−2…2^2, s₀ ∈ {−10, −3, −1, −0.3}, --init random)",
                   "header": ["dataset", "cell", "σ", "s₀", "NMI mean ± sd", "stability", "paper kpower", "verdict"],
                   "rows": srows})
    return {"title": "KPK (Paul et al.) Table 1: kernel power k-means on real data",
            "intro": "Protocol (docs/methods/kernel-power-kmeans.md#single-kernel-protocol): standardised features, Gaussian kernel with "
                     "σ² = Σ‖xᵢ−xⱼ‖²/(n(n−1)) (meanscape's automatic σ), s₀ = −1, η = 1.04, T = 5, "
                     "matched random starts (`--init random`, seeds 0…, one restart each), mean NMI. Our "
                     "defaults differ only in the start (k-means++ in the kernel's feature space), which "
                     "the paper's Appendix Table 4 also reports.",
            "tables": tables, "notes": notes, "commands": cmds}


def _kpk_why(v, ds, algo):
    if v != "miss":
        return ""
    if algo == "kpower":
        return KPK_WHY[ds]
    why = "baseline: the paper ran its own R implementations (no code published)"
    if ds == "isolet":
        why += "; on isolet our kpower sits below the paper's too, as a NumPy transcription of the protocol does"
    return why


_SIGMA = {}


def _auto_sigma(path):
    if path not in _SIGMA:
        _SIGMA[path] = kpower_sensitivity.auto_sigma(path)
    return _SIGMA[path]


def t_rff_hw2(seeds):
    path = data("handwritten.csv")
    rows, cmds = [], []
    lam = ["lambda=1"]  # a one-value axis: λ (relative) at its default; the paper: "not sensitive in [1, 1000]"
    P1 = {"acc": 0.9015, "nmi": 0.8156, "purity": 0.9015}  # Table 1, Proposed (IP-RFF-MKPKM), HW2
    P2 = {"acc": 0.8300}  # Table 2, RFF-MKPKM (without the possibilistic part), HW2
    PMK = {"acc": 0.8654, "nmi": 0.7506, "purity": 0.8512}  # Table 1, MKPKM on HW2
    confs = [
        ("paper's settings", "ip-rff-mkpower", hw2.PAPER_IP, P1),
        ("paper's settings", "rff-mkpower", hw2.PAPER, P2),
        ("ours (defaults)", "ip-rff-mkpower", [], P1),
        ("ours (defaults)", "rff-mkpower", [], P2),
        ("ours, -P rff_dim=1024", "ip-rff-mkpower", ["-P", "rff_dim=1024"], P1),
    ]
    for proto, algo, extra, paper in confs:
        st, cmd = one_cell(["--data", path, "--algo", algo, "--views", hw2.V2, *extra], seeds, lam)
        cmds.append(cmd)
        rows.append(_rff_row(proto, algo, st, paper))
    # MKPKM (a Table 1 baseline): one Gaussian kernel per view
    for proto, extra in [("paper's settings (σ = 1000, raw)", ["--scale", "none", "--kernels", "gaussian:sigma=1000"]),
                         ("ours (defaults: σ rule per view)", ["--kernels", "gaussian"])]:
        st, cmd = one_cell(["--data", path, "--algo", "mkpower", "--views", hw2.V2, *extra], seeds, lam)
        cmds.append(cmd)
        rows.append(_rff_row(proto, "mkpower (MKPKM)", st, PMK))
    st, cmd = one_cell(["--data", rel(hw2.concat_csv()), "--algo", "kmeans"], seeds, ["k=10"])
    cmds.append(cmd)
    rows.append(_rff_row("baseline", "kmeans, the two views concatenated", st, None))
    return {"title": "RFF power k-means (Chen et al.) Tables 1 and 2: HW2",
            "intro": "HW2 = the pix (columns 357–596) and fac (77–292) views of handwritten.csv, n = 2000, k = 10. "
                     "The paper's settings: raw features, one absolute σ = 1000 for every view, "
                     "D = ⌈4·ln³(2k)⌉ = 108 per view, no per-view normalisation, s₀ = −15, η at the "
                     "Krishnapuram–Keller scale (`" + " ".join(hw2.PAPER_IP) + "`). Ours: the defaults "
                     "after issues 16 and 27 (standardised, per-view σ rule, D from the data — the smallest "
                     "of 64, 128, … with kernel error ≤ 0.03 on 500 sampled rows, at least 2 frequencies per "
                     "column of a view up to 1024 —, per-view normalisation, s₀ chosen per start, η scale 3). "
                     "One feature map per cell (rff_seed fixed), seeds 0… as the starts. "
                     "Metrics ACC / NMI / Purity (the paper's).",
            "tables": [{"caption": f"HW2, {seeds} starts per row (the paper: 20)",
                        "header": ["protocol", "method", "ACC", "NMI", "Purity", "paper ACC / NMI / Purity",
                                   "verdict (ACC)", "why"],
                        "rows": rows}],
            "notes": [], "commands": cmds}


RFF_WHY = {
    ("paper's settings", "ip-rff-mkpower"): "σ = 1000 on raw data is a Gaussian on fac but a linear kernel on pix, "
    "and s₀ = −15 is hard from the first iteration (k-means' local optima); see docs/guide/rff.md, 'Multi-view defaults'",
    ("paper's settings", "rff-mkpower"): "as above",
    ("ours (defaults)", "ip-rff-mkpower"): "the paper's protocol is not reproducible as printed (σ = 1000 collapses it); "
    "the remaining gap is within what the paper's unreported per-view tuning could give",
    ("ours (defaults)", "rff-mkpower"): "the ablation has no possibilistic weights; its spread over starts is large",
}


def _rff_row(proto, algo, st, paper):
    p = "–" if paper is None else " / ".join(f"{paper[m]:.4f}" if m in paper else "–" for m in ("acc", "nmi", "purity"))
    v = verdict(st.get("acc"), paper["acc"]) if paper else ""
    why = ""
    if v == "miss":
        why = RFF_WHY.get((proto, algo), "")
        if not why and algo.startswith("mkpower"):
            why = "the paper's MKPKM kernels/σ on HW2 are not given"
        if not why:
            why = "D = 1024 does not change the picture"
    return [proto, algo, fmt(st.get("acc"), ".3f"), fmt(st.get("nmi"), ".3f"), fmt(st.get("purity"), ".3f"), p, v, why]


def t_rff_table5(seeds):
    """Table 5's protocol (RFF-KPKM vs kernel k-means, spectral, power k-means, KPKM; σ = 1000 for
    every kernel method; D the rule; 20 runs; ACC/NMI/Purity) on single-view data we have: the
    first view of HW2 (pix, as the paper's single-view sets are 'first views') and seeds/digits.
    None of the paper's Table 5 datasets (Yale, 100leaves, Caltech101-20, CIFAR10, YTF10/20) is
    available, so the verdict is on the paper's claim: RFF-KPKM ≥ each baseline."""
    sets = [("HW2 first view (pix)", rel(hw2.view_csv("hw2_pix", [(357, 596)])), 10, 240),
            ("seeds", data("seeds.csv"), 3, 7), ("digits", data("digits.csv"), 10, 64)]
    algos = ["rff-power", "kpower", "kernel-kmeans", "spectral", "power"]
    rows, cmds = [], []
    for name, path, k, p in sets:
        d_rule = math.ceil(4 * math.log(2 * k) ** 3)
        for proto, extra, sig in [("paper (σ = 1000, raw data)", ["--scale", "none"], 1000.0), ("ours (defaults)", [], None)]:
            res = {}
            for algo in algos:
                if algo == "power":
                    grid = ["s0=-1"]
                elif sig is None:
                    grid = [f"k={k}"]
                else:
                    grid = [f"sigma={sig:g}"]
                # The paper's D = ⌈4·ln³(2k)⌉, given (meanscape's default D follows the data).
                pin = ["-P", f"rff_dim={d_rule}"] if algo == "rff-power" and sig is not None else []
                st, cmd = one_cell(["--data", path, "--algo", algo, *extra, *pin], seeds, grid)
                cmds.append(cmd)
                res[algo] = st
            for algo in algos:
                st = res[algo]
                if algo == "rff-power":
                    v, why = "", ""
                else:
                    # the claim: RFF-KPKM ≥ this baseline (ACC), within our tolerance
                    d = res["rff-power"]["acc"][0] - st["acc"][0]
                    tol = max(TOL, st["acc"][1], res["rff-power"]["acc"][1])
                    v = "holds" if d >= -tol else "fails"
                    why = "" if v == "holds" else f"rff-power {res['rff-power']['acc'][0]:.3f} < {st['acc'][0]:.3f}"
                rows.append([name, proto, algo, fmt(st.get("acc"), ".3f"), fmt(st.get("nmi"), ".3f"),
                             fmt(st.get("purity"), ".3f"), v, why])
        # Diagnostics: the default D before issue 27 (the paper's rule), and the s₀ of kpower.
        for label, g in [(f"ours, the paper's D = {d_rule} (the default before issue 27)", [f"rff_dim={d_rule}"]),
                         ("ours, s₀ = −1 (kpower's; the paper's grid is −5…−25)", ["s0=-1"])]:
            st, cmd = one_cell(["--data", path, "--algo", "rff-power"], seeds, g)
            cmds.append(cmd)
            rows.append([name, label, "rff-power", fmt(st.get("acc"), ".3f"),
                         fmt(st.get("nmi"), ".3f"), fmt(st.get("purity"), ".3f"), "", "a diagnostic row, not a claim check"])
    return {"title": "RFF power k-means (Chen et al.) Table 5 protocol on our single-view data",
            "intro": "Table 5 compares RFF-KPKM (`rff-power`) with kernel k-means, spectral clustering, power "
                     "k-means and KPKM on Yale, 100leaves, Caltech101-20, CIFAR10, YTF10 and YTF20 — none of "
                     "which is in ../shared/data. We run its protocol (Gaussian kernel with σ = 1000 for every "
                     "kernel method, D = ⌈4·ln³(2k)⌉ given, s₀ = −15, 20 runs, ACC / NMI / Purity) on the data we "
                     "have: the first view of HW2 (pix; the paper's single-view sets are first views of "
                     "multi-view sets), seeds and digits, raw (σ = 1000 only means something on raw values), "
                     "and with our defaults (standardised, σ rule, D from the data: the smallest of 64, 128, … "
                     "whose kernel error on 500 sampled rows is ≤ 0.03; s₀ = −15). With no paper numbers for these data, the "
                     "verdict checks the paper's claim that RFF-KPKM is at least as good as each baseline "
                     "(ACC, within max(0.01, one sd)).",
            "tables": [{"caption": f"{seeds} runs per row (the paper: 20)",
                        "header": ["data", "protocol", "method", "ACC", "NMI", "Purity",
                                   "claim RFF-KPKM ≥ baseline", "why"],
                        "rows": rows}],
            "notes": [], "commands": cmds}


LW_WHY = {
    "brain": "the initial partition (best of nstart k-means on the raw data) varies by seed; see the Brain section",
}


def t_lw_table6(seeds, gap_seeds):
    rows, cmds = [], []
    for name in ("leukemia", "lymphoma", "brain", "wine"):
        spec = lw_common.data_spec(name)
        pc = lw_common.PAPER_CER[name]
        ps = lw_common.PAPER_SEL[name]
        lam = pc[1]
        k = {"leukemia": 2, "lymphoma": 3, "brain": 5, "wine": 3}[name]
        confs = [  # (protocol, label, args, grid, paper CER, paper #selected, lower is better)
            ("paper", f"lw λ = {lam} (raw init)", ["--algo", "lw", "--scale", "none"], [f"lambda={lam}"], pc[0], ps[0]),
            ("ours (defaults)", "lw λ = 1/p", ["--algo", "lw"], [f"k={k}"], pc[0], ps[0]),
            ("paper", "kmeans (standardised)", ["--algo", "kmeans"], [f"k={k}"], pc[3], None),
            ("paper", "wkmeans (β = 4, random rows)", ["--algo", "wkmeans", "--init", "random"], [f"k={k}"], pc[2], None),
            ("ours (defaults)", "sparse-kmeans (bound b/2)", ["--algo", "sparse-kmeans"], [f"k={k}"], pc[5], ps[2]),
        ]
        for proto, label, args, grid, p_cer, p_sel in confs:
            st, cmd = one_cell(["--data", spec, *args], seeds, grid)
            cmds.append(cmd)
            rows.append(_lw_row(name, proto, label, st, p_cer, p_sel))
        # sparse-kmeans --tune gap (the paper's protocol): permutation gap statistic, fewer seeds
        st = runs([["--data", spec, "--algo", "sparse-kmeans", "--tune", "gap", "--seed", str(s)]
                   for s in range(gap_seeds)])
        cmds.append(f"meanscape run --data {spec} --algo sparse-kmeans --tune gap --seed S (S = 0…{gap_seeds - 1})")
        rows.append(_lw_row(name, "paper", f"sparse-kmeans --tune gap ({gap_seeds} seeds)", st, pc[5], ps[2]))
    return {"title": "LW-k-means (Chakraborty & Das) Table VI: CER on real data",
            "intro": "Protocol (docs/methods/lw-kmeans.md#benchmark-protocol; bench/lw_protocol.py): each algorithm run once per "
                     "seed, mean classification error rate CER = 1 − ACC; λ in the authors' code units "
                     "(Wine: 0.01, the authors' examples.m, since Table VI's λ = 1 drops every feature). `lw` "
                     "starts from the best of nstart = 50 k-means runs on the raw data, then z-scores, as "
                     "the authors' lwkmeans.m. Our defaults: λ = 1/p. Lung Cancer, SuCancer, COIL5, ORL2, "
                     "YALE2, ALLAML, Appendicitis, WDBC and GLIOMA are not in ../shared/data.",
            "tables": [{"caption": f"{seeds} runs per row (the paper: 20); verdict on CER (lower is better)",
                        "header": ["data", "protocol", "configuration", "CER mean ± sd", "paper CER",
                                   "#selected", "paper #selected", "verdict", "why"],
                        "rows": rows}],
            "notes": [], "commands": cmds}


def _lw_row(name, proto, label, st, p_cer, p_sel):
    v = verdict(st["cer"], p_cer, lower_better=True)
    why = ""
    if v == "miss":
        if label.startswith("lw"):
            why = LW_WHY.get(name, "λ = 1/p is not the paper's hand-tuned λ" if "1/p" in label else "")
        elif "sparse" in label:
            why = "the bound (b/2 or the gap statistic's pick) selects a different number of genes than the paper's"
        elif "wkmeans" in label:
            why = "WK-means from random rows: a different start than the authors' huang.m runs"
        elif "kmeans" in label:
            why = "one k-means++ start per run; the paper's MATLAB k-means"
    sel = fmt(st.get("selected"), ".1f") if st.get("selected") else "–"
    return [name, proto, label, fmt(st["cer"]), f"{p_cer:.4f}", sel, "–" if p_sel is None else str(p_sel), v, why]


def t_lw_sparse(seeds):
    rows, cmds = [], []
    for name, keys, lam, paper in lw_sparse_mcc.DESIGNS:
        confs = [("paper", f"lw λ = {lam}", ["--algo", "lw", "-P", f"lambda={lam}"], paper[0]),
                 ("ours (defaults)", "lw λ = 1/p", ["--algo", "lw"], paper[0]),
                 ("paper", "sparse-kmeans --tune gap", ["--algo", "sparse-kmeans", "--tune", "gap"], paper[1]),
                 ("ours (defaults)", "sparse-kmeans (bound b/2)", ["--algo", "sparse-kmeans"], paper[1])]
        for proto, label, args, pm in confs:
            st = runs([["--data", f"gen:sparse,{keys},seed={r}", *args, "--seed", str(r)] for r in range(seeds)])
            cmds.append(f"meanscape run --data gen:sparse,{keys},seed=R {' '.join(args)} --seed R (R = 0…{seeds - 1})")
            pvals = [float(x) for x in pm.replace(" ", "").split("/")] if pm != "-" else []
            if not pvals:
                v = ""
            elif len(pvals) == 1:
                v = verdict(st["mcc"], pvals[0])
            else:  # s2 and s3 are one design here: compare with their range
                lo, hi = min(pvals), max(pvals)
                m = st["mcc"][0]
                v = "match" if lo - TOL <= m <= hi + TOL else ("beat" if m > hi else "miss")
            why = ""
            if v == "miss":
                why = (f"the default bound b/2 keeps too few features ({st['selected'][0]:.0f} of q = {keys.split('q=')[1].split(',')[0]} "
                       "informative): the gap statistic's larger bound is needed on these designs"
                       if "sparse" in label else "λ = 1/p keeps features below the power mean of the dispersions; "
                       "on these designs the paper's hand-tuned λ is sharper")
            rows.append([name, proto, label, fmt(st["mcc"], ".3f"), f"{st['mcc1']}/{seeds}", pm,
                         fmt(st["selected"], ".1f"), fmt(st["cer"], ".3f"), v, why])
    return {"title": "LW-k-means Tables V/VIII: feature selection on the synthetic designs",
            "intro": "The paper's s1…s7 have no published recipe; bench/lw_sparse_mcc.py reads theirs off the "
                     "authors' files and uses `gen:sparse` (n = 300, k = 3, the first q features informative at "
                     "spacing sep, the rest χ²(df) noise) with the paper's p, q and λ. Run r uses data seed r and "
                     "algorithm seed r. MCC of the selection (weight > 0) against the true relevance; the paper "
                     "reports MCC = 1 (and CER = 0, Table V) for LW on every set. The last two designs are ours "
                     "(no paper number).",
            "tables": [{"caption": f"{seeds} runs per row (the paper: 20)",
                        "header": ["design", "protocol", "configuration", "MCC mean ± sd", "runs with MCC = 1",
                                   "paper MCC (Table VIII)", "#selected", "CER", "verdict (MCC)", "why"],
                        "rows": rows}],
            "notes": [], "commands": cmds}


def t_xu_lange(seeds):
    rows = []
    for p in xu_lange.PS:
        res = {m: [xu_lange.run_one((p, s, xu_lange.SEP, m)) for s in range(seeds)] for m in xu_lange.METHODS}
        lloyd = [r["nmi"] for r in res["lloyd"]]
        for m, rs in res.items():
            v = [r["nmi"] for r in rs]
            st = (statistics.mean(v), statistics.stdev(v) if len(v) > 1 else 0.0)
            if m == "lloyd":
                wtl, verd = "–", ""
            else:
                d = [a - b for a, b in zip(v, lloyd)]
                w = sum(x > xu_lange.TIE for x in d)
                ll = sum(x < -xu_lange.TIE for x in d)
                wtl = f"{w}/{len(d) - w - ll}/{ll}"
                verd = "match" if st[0] >= statistics.mean(lloyd) - TOL and w >= ll else "miss"
            rows.append([p, m, " ".join(xu_lange.METHODS[m]), fmt(st, ".3f"), wtl,
                         f"{statistics.mean(r['iterations'] for r in rs):.0f}",
                         f"{statistics.mean(r['ms'] for r in rs):.1f}", verd])
    return {"title": "Xu & Lange (2019): power k-means against Lloyd on Gaussian blobs",
            "intro": f"bench/xu_lange.py's design: `gen:blobs,n={xu_lange.N},k={xu_lange.K},p=P,sep={xu_lange.SEP:g},seed=S`, "
                     "--scale none, all three methods from the same k random rows (`--init random --seed S`). "
                     "The paper (and its authors' code, docs/methods/power-kmeans.md#reference-code) reports power k-means ahead of "
                     "Lloyd from matched starts on many overlapping clusters but prints no number we can "
                     "transcribe for this design, so the verdict checks that claim: mean NMI of power ≥ "
                     "Lloyd's − 0.01 and at least as many wins as losses (W/T/L: seeds where power's NMI is "
                     "higher / equal / lower). Runs are single-threaded (RAYON_NUM_THREADS=1).",
            "tables": [{"caption": f"{seeds} seeds per p (bench/xu_lange.py: 20)",
                        "header": ["p", "method", "arguments", "NMI mean ± sd", "W/T/L vs Lloyd", "iterations",
                                   "ms", "claim power ≥ Lloyd"],
                        "rows": rows}],
            "notes": [], "commands": []}


def t_dmkkm(seeds, restart_seeds):
    path = data("handwritten.csv")
    V = dmkkm_handwritten.VIEWS
    P = dmkkm_handwritten.PAPER
    PMKKM = {"acc": 0.6825, "nmi": 0.6598, "ari": 0.5411}
    rows, cmds = [], []
    confs = [
        ("paper-like (one Gaussian per view, one start)", "dmkkm", ["--views", V, "--kernels", "gaussian"], P, seeds, []),
        (f"ours, --restarts 8 ({restart_seeds} seeds)", "dmkkm", ["--views", V, "--kernels", "gaussian", "--restarts", "8"], P,
         restart_seeds, []),
        ("paper-like (one Gaussian per view)", "mkkm", ["--views", V, "--kernels", "gaussian"], PMKKM, seeds, []),
        # Issue 27: --views alone (the default --kernels auto: one Gaussian per view), and the old
        # default it replaced (the 12-kernel set on every view, 72 kernels), now --kernels default.
        ("ours (defaults: --views only)", "dmkkm", ["--views", V], P, seeds, []),
        (f"before issue 27: --views only = 12 kernels per view (--kernels default, {restart_seeds} seeds)", "dmkkm",
         ["--views", V, "--kernels", "default"], P, restart_seeds, []),
        ("ours (defaults: --views only)", "mkkm", ["--views", V], PMKKM, seeds, []),
        ("ours (defaults: --views only)", "mkpower", ["--views", V], None, seeds, []),
        ("ours (defaults)", "rff-mkpower", ["--views", V], None, seeds, []),
        ("ours (defaults)", "kernel-kmeans (649 columns)", [], None, seeds, []),
        ("ours (defaults)", "kmeans (649 columns)", [], None, seeds, []),
    ]
    for proto, algo, extra, paper, n, _ in confs:
        a = algo.split()[0]
        if "--restarts" in extra or n != seeds:
            st = runs([["--data", path, "--k", "10", "--algo", a, *extra, "--seed", str(s)] for s in range(n)])
            cmds.append(f"meanscape run --data {path} --k 10 --algo {a} {' '.join(extra)} --seed S (S = 0…{n - 1})")
        else:
            st, cmd = one_cell(["--data", path, "--algo", a, *extra], n, ["k=10"])
            cmds.append(cmd)
        v = verdict(st.get("nmi"), paper["nmi"]) if paper else ""
        why = ""
        if v == "miss" and "--kernels" in extra and "default" in extra:
            why = "72 kernels (12 per view): the ‖K_α‖²_F term spreads α over redundant kernels"
        elif v == "miss":
            why = ("the paper's own precomputed kernels are not public; ours are one Gaussian per view with the "
                   "σ rule; a narrower σ (0.7× the rule, chosen with labels) reaches NMI 0.85")
        rows.append([proto, algo, fmt(st.get("acc")), fmt(st.get("nmi")), fmt(st.get("ari")),
                     " / ".join(f"{paper[m]:.4f}" for m in ("acc", "nmi", "ari")) if paper else "–", v, why])
    return {"title": "DMKKM (Wang et al.) Table 2: Handwritten",
            "intro": "handwritten.csv's six views (fou, fac, kar, pix, zer, mor), one Gaussian kernel per view "
                     "(σ rule per view), centred and normalised (the authors' code), k = 10. The paper used "
                     "its own precomputed kernels (not public) and does not say how many starts or whether "
                     "its numbers are means; we report means over seeds. MKKM is the paper's baseline column.",
            "tables": [{"caption": f"{seeds} seeds per row unless said; verdict on NMI",
                        "header": ["protocol", "method", "ACC", "NMI", "ARI", "paper ACC / NMI / ARI", "verdict", "why"],
                        "rows": rows}],
            "notes": [], "commands": cmds}


HELDOUT = "fou=1-76,kar=293-356,zer=597-643,mor=644-649"


def t_rff_heldout(seeds):
    """Issue 27: the multi-view RFF methods against the exact multi-kernel method on views of
    handwritten.csv that issue 16's defaults were not tuned on (HW2 is pix + fac): fou, kar, zer,
    mor. The exact method is mkpower with one Gaussian per view (its --views default); the RFF
    methods at their default D (from the data) and at the default before issue 27
    (`-P rff_dim=108`: the paper's D, raised per view to 2 frequencies per column)."""
    path = data("handwritten.csv")
    rows, cmds = [], []
    confs = [("exact", "mkpower", []),
             ("ours (defaults)", "rff-mkpower", []),
             ("before issue 27 (-P rff_dim=108)", "rff-mkpower", ["-P", "rff_dim=108"]),
             ("ours (defaults)", "ip-rff-mkpower", []),
             ("before issue 27 (-P rff_dim=108)", "ip-rff-mkpower", ["-P", "rff_dim=108"])]
    res = {}
    for proto, algo, extra in confs:
        st, cmd = one_cell(["--data", path, "--algo", algo, "--views", HELDOUT, *extra], seeds, ["k=10"])
        cmds.append(cmd)
        res[(proto, algo)] = st
    exact = res[("exact", "mkpower")]["acc"]
    for proto, algo, extra in confs:
        st = res[(proto, algo)]
        gap = "" if algo == "mkpower" else f"{st['acc'][0] - exact[0]:+.3f}"
        if algo == "mkpower":
            v = ""
        else:
            tol = max(TOL, st["acc"][1], exact[1])
            v = "holds" if st["acc"][0] - exact[0] >= -tol else "fails"
        rows.append([proto, algo, fmt(st.get("acc"), ".3f"), fmt(st.get("nmi"), ".3f"), fmt(st.get("purity"), ".3f"),
                     gap, v])
    return {"title": "Issue 27: multi-view RFF against the exact multi-kernel method on held-out views",
            "intro": f"handwritten.csv's views fou, kar, zer and mor (`--views {HELDOUT}`; HW2, on which issue 16 "
                     "chose the multi-view defaults, is pix + fac), k = 10, standardised. `mkpower` with one "
                     "Gaussian per view (σ rule per view; `--kernels auto`) is the exact kernel method the "
                     "RFF methods approximate. The check: the RFF method's mean ACC is no more than "
                     "max(0.01, one sd) below the exact one's. D before issue 27: the paper's 108, raised to "
                     "2 frequencies per column of a view (fou 152, kar 128, zer and mor 108); now the "
                     "smallest of 64, 128, … whose kernel error on 500 sampled rows is ≤ 0.03 (512 here), "
                     "with the same per-view raise.",
            "tables": [{"caption": f"{seeds} seeds per row (one feature map per row: rff_seed fixed)",
                        "header": ["protocol", "method", "ACC", "NMI", "Purity", "ACC − exact",
                                   "claim RFF ≈ exact"],
                        "rows": rows}],
            "notes": [], "commands": cmds}


def t_brain(seeds):
    spec = lw_common.data_spec("brain")
    base = ["--data", spec, "--algo", "lw", "-P", "lambda=0.0005", "--scale", "none"]
    rows, cmds = [], []
    for label, extra in [("restarts 1 (nstart 50, the default)", []),
                         ("restarts 10", ["--restarts", "10"]),
                         ("restarts 50", ["--restarts", "50"]),
                         ("nstart 10", ["-P", "nstart=10"]),
                         ("nstart 200", ["-P", "nstart=200"]),
                         ("nstart 1000", ["-P", "nstart=1000"])]:
        t0 = time.perf_counter()
        st = runs([base + extra + ["--seed", str(s)] for s in range(seeds)])
        cmds.append(f"meanscape run {' '.join(base + extra)} --seed S (S = 0…{seeds - 1})")
        cers = [1 - r["metrics"]["acc"] for r in st["raw"]]
        objs = [r.get("objective") for r in st["raw"]]
        rows.append([label, fmt(st["cer"]), f"{statistics.median(cers):.4f}", f"{min(cers):.4f}–{max(cers):.4f}",
                     fmt(st.get("selected"), ".1f"), f"{len(set(round(c, 6) for c in cers))}",
                     f"{time.perf_counter() - t0:.0f}", "0.2381", verdict(st["cer"], 0.2381, lower_better=True)])
    return {"title": "Gap: LW-k-means on Brain (Table VI: CER 0.2381 with 14 genes)",
            "intro": "`lw -P lambda=0.0005 --scale none` on brain.csv (42 × 5597, k = 5). Does a label-free "
                     "choice of the start close the gap? `--restarts R` keeps the restart with the lowest "
                     "objective (label-free); `nstart` is the number of k-means runs on the raw data whose "
                     "best (lowest k-means cost, label-free) gives lw its initial partition and α.",
            "tables": [{"caption": f"{seeds} seeds per row",
                        "header": ["start", "CER mean ± sd", "median", "min–max", "#selected", "distinct CERs",
                                   "seconds", "paper", "verdict"],
                        "rows": rows}],
            "notes": [], "commands": cmds}


def rings_gram(sigma):
    """The rings data (`meanscape gen rings k=10`, the same as gen:rings,k=10) and its Gaussian
    Gram matrix as lists (pure Python, n = 1000), for the kernel k-means objective."""
    out = subprocess.run([BIN, "gen", "rings", "k=10"], capture_output=True, text=True, check=True).stdout
    pts, truth = [], []
    for line in out.splitlines()[1:]:
        a, b, c = line.split(",")
        pts.append((float(a), float(b)))
        truth.append(c)
    g = 1.0 / (2 * sigma * sigma)
    K = [[math.exp(-g * ((x - u) ** 2 + (y - v) ** 2)) for (u, v) in pts] for (x, y) in pts]
    return K, truth


def kkm_objective(K, labels):
    """Σᵢ ‖φ(xᵢ) − μ_c(i)‖² = Σ_c (|c| − Σ_{i,j∈c} Kᵢⱼ / |c|) for a unit-diagonal kernel."""
    groups = {}
    for i, c in enumerate(labels):
        groups.setdefault(c, []).append(i)
    tot = 0.0
    for idx in groups.values():
        s = sum(K[i][j] for i in idx for j in idx)
        tot += len(idx) - s / len(idx)
    return tot


def t_rings(seeds):
    d = kernel_rings.DATA
    base = ["--data", d, "--scale", "none", "--init", "random"]
    rows, cmds = [], []
    K, truth = rings_gram(1.0)
    obj_truth = kkm_objective(K, truth)
    # 1. restarts at s₀ = −1, σ = 1 (the paper's), and the kernel k-means objective (σ = 1) of
    #    the partitions found: is the truth the optimum of what these methods minimise?
    for algo, extra, r in [("kpower", [], 1), ("kpower", [], 10), ("kpower", ["--s0", "-10"], 1),
                           ("kpower", ["--s0", "-10"], 10), ("kernel-kmeans", [], 1), ("kernel-kmeans", [], 10)]:
        st = runs([base + ["--algo", algo, "-P", "sigma=1", *extra, "--restarts", str(r), "--seed", str(s)]
                   for s in range(seeds)], metrics=("ari", "nmi"))
        for x in st["raw"]:  # same data as gen rings k=10?
            assert abs(rff_common.nmi(truth, x["labels"]) - x["metrics"]["nmi"]) < 1e-6, "rings data differ"
        objs = [kkm_objective(K, x["labels"]) for x in st["raw"]]
        cmds.append(f"meanscape run {' '.join(base)} --algo {algo} -P sigma=1 {' '.join(extra)} --restarts {r} --seed S")
        s0 = "" if algo != "kpower" else (", s₀ = −10" if extra else ", s₀ = −1")
        rows.append([f"{algo} σ = 1{s0}, --restarts {r} (lowest objective)", fmt(st["ari"]), fmt(st["nmi"]), "", "",
                     f"{statistics.mean(objs):.1f} (min {min(objs):.1f})"])
    # 2. σ × s₀ sweep, picked label-free
    v = sweep(base + ["--algo", "kpower"], seeds, ["sigma=0.25:8:6:log", "s0=-10,-3,-1"])
    cmds.append(f"meanscape sweep {' '.join(base)} --algo kpower --seeds {seeds} --grid sigma=0.25:8:6:log --grid s0=-10,-3,-1")
    by_nmi, by_stab, by_sil, default = kpower_sensitivity.picks(v, 1.0)
    grid = []
    for c in v["cells"]:
        st = cell_stats(c)
        grid.append([f"{c['at']['sigma']:.3g}", f"{c['at']['s0']:g}", fmt(st["ari"]), fmt(st.get("stability"), ".3f"),
                     fmt(st.get("silhouette"), ".3f"), "collapsed" if c.get("collapsed") else ""])
    for label, c in [("best by NMI (label-tuned)", by_nmi), ("best by stability (label-free)", by_stab),
                     ("best by silhouette (label-free)", by_sil), ("σ = 1, s₀ = −1 (paper)", default)]:
        st = cell_stats(c)
        rows.append([f"{label}: σ = {c['at']['sigma']:.3g}, s₀ = {c['at']['s0']:g}", fmt(st["ari"]), fmt(st["nmi"]),
                     fmt(st.get("stability"), ".3f"), fmt(st.get("silhouette"), ".3f"), ""])
    rows.append(["the true rings", "1", "1", "", "", f"{obj_truth:.1f}"])
    return {"title": "Gap: ten rings at s₀ = −1 (paper: KPK ARI 1.0, kernel k-means 0.78)",
            "intro": f"`{d}` (5 concentric pairs, radii 1 and 3, centres 12 apart — an invented layout, the paper "
                     "does not give its own; docs/methods/kernel-power-kmeans.md#ten-rings says not to compare its numbers with the paper's), "
                     "--scale none, --init random. Does a label-free choice close the gap: more restarts "
                     "(lowest objective), or σ and s₀ picked from a sweep by stability (mean pairwise ARI "
                     "between seeds) or by the kernel-space silhouette?",
            "tables": [{"caption": f"{seeds} seeds per row",
                        "header": ["configuration", "ARI mean ± sd", "NMI mean ± sd", "stability", "silhouette",
                                   "kernel k-means objective at σ = 1, mean (min)"],
                        "rows": rows},
                       {"caption": "the sweep's cells (σ × s₀)",
                        "header": ["σ", "s₀", "ARI", "stability", "silhouette (kernel space)", ""],
                        "rows": grid}],
            "notes": [], "commands": cmds}


# name -> (function, arguments for full, arguments for --quick)
TABLES = {
    "kpk": (t_kpk, (20,), (3,)),
    "rff_hw2": (t_rff_hw2, (10,), (2,)),
    "rff_table5": (t_rff_table5, (10,), (2,)),
    "lw_table6": (t_lw_table6, (20, 5), (3, 1)),
    "lw_sparse": (t_lw_sparse, (10,), (2,)),
    "xu_lange": (t_xu_lange, (20,), (3,)),
    "dmkkm": (t_dmkkm, (10, 3), (2, 1)),
    "rff_heldout": (t_rff_heldout, (10,), (2,)),
    "brain": (t_brain, (10,), (2,)),
    "rings": (t_rings, (10,), (2,)),
}


# --------------------------------------------------------------------------- the document

def machine():
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip() or str(os.cpu_count())
    return f"{cpu}; nproc = {nproc}; {platform.system()} {platform.release()}"


def git_commit():
    c = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True,
                           cwd=ROOT).stdout.strip()
    return c + (" (with uncommitted changes)" if dirty else "")


def md_table(t):
    out = [f"*{t['caption']}*", "", "| " + " | ".join(t["header"]) + " |", "|" + "---|" * len(t["header"])]
    for r in t["rows"]:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
    return "\n".join(out)


def previous_document():
    """The document as it stands: its sections by NAME (anchor line excluded), its summary rows by
    NAME and its 'tables computed'/'commit' lines, so that tables with no JSON in
    bench/out/paper_tables (not rerun here) keep their published text."""
    if not DOC.exists():
        return {}, {}, ""
    parts = re.split(r'(?m)^<a id="([a-z0-9_]+)"></a>\n', DOC.read_text())
    sections = {parts[i]: parts[i + 1].rstrip("\n") for i in range(1, len(parts), 2)}
    summary, origin, kept_origin = {}, [], ""
    for line in parts[0].splitlines():
        m = re.match(r"^\| \[.*\]\(#([a-z0-9_]+)\) \|", line)
        if m:
            summary[m.group(1)] = line
        elif line.startswith("- tables computed:") or line.startswith("- commit:"):
            origin.append(line[2:])
        elif line.startswith("- kept from the previous document") and "(" in line:
            kept_origin = line.split("(", 1)[1].rstrip(")")
    # Sections the previous document itself kept carry their own origin.
    return sections, summary, kept_origin or "; ".join(origin)


def render(results, meta, sections_md, kept=None):
    """`kept`: (sections, summary rows, origin) of the previous document for the tables not in
    `results`, placed where they belong."""
    kept_sections, kept_summary, kept_origin = kept or ({}, {}, "")
    kept_names = [n for n in TABLES if n not in results and n in kept_sections]
    lines = ["# Paper tables", "",
             "Generated by `python3 bench/paper_tables.py` — do not edit by hand; rerun it (or "
             "`--reuse` to rebuild this file from bench/out/paper_tables/*.json).", ""]
    lines += [f"- tables computed: {meta['date']}", f"- commit: {meta['commit']}"]
    if kept_names:
        lines += [f"- kept from the previous document, not rerun: {', '.join(kept_names)} ({kept_origin})"]
    if meta.get("rendered"):
        lines += [f"- this document rendered from their JSON: {meta['rendered']}"]
    lines += [f"- machine: {meta['machine']}",
              f"- binary: `{meta['binary']}`", f"- mode: {meta['mode']}",
              f"- whole script: {meta['total_s'] / 60:.1f} min" + (f" ({meta['total_note']})" if meta.get('total_note') else ""),
              "", "Verdicts: **match** when |ours − paper| ≤ max(0.01, one sd of our per-seed values); **beat** when "
              "better by more (higher NMI/ACC/MCC, lower CER), **miss** when worse by more. Where the paper has "
              "no number for our data, the verdict column checks the paper's qualitative claim instead. Fewer "
              "seeds than the paper's 20 where a row says so (to keep the whole run ≲ 40 min on 2 cores).", "",
             "## Summary", "",
             "| table | rows with a verdict | match | beat | miss | seconds |", "|---|---|---|---|---|---|"]
    for name in TABLES:
        if name in kept_names:
            lines.append(kept_summary.get(name, f"| [{name}](#{name}) | (kept) | | | | |"))
            continue
        if name not in results:
            continue
        r = results[name]
        counts = {"match": 0, "beat": 0, "miss": 0, "holds": 0, "fails": 0}
        for t in r["tables"][:1]:  # the table's main rows (later ones are sweeps and details)
            if "verdict" not in " ".join(t["header"]) and "claim" not in " ".join(t["header"]):
                continue
            vi = next(i for i, h in enumerate(t["header"]) if h.startswith("verdict") or h.startswith("claim"))
            for row in t["rows"]:
                if row[vi] in counts:
                    counts[row[vi]] += 1
        n = sum(counts.values())
        m = counts["match"] + counts["holds"]
        lines.append(f"| [{r['title']}](#{name}) | {n} | {m} | {counts['beat']} | {counts['miss'] + counts['fails']} "
                     f"| {r['seconds']:.0f} |")
    lines += ["", "In the summary a claim check that holds counts as a match and one that fails as a miss; only "
              "each section's first table is counted (the others are sweeps and details).", ""]
    if sections_md.get("_scope"):
        lines += [sections_md["_scope"], ""]
    for name in TABLES:
        if name in kept_names:
            lines += [f"<a id=\"{name}\"></a>", kept_sections[name], ""]
            continue
        if name not in results:
            continue
        r = results[name]
        lines += [f"<a id=\"{name}\"></a>", f"## {r['title']}", "", r["intro"], "",
                  f"Took {r['seconds']:.0f} s ({r['mode']}; `--only {name}`).", ""]
        for t in r["tables"]:
            lines += [md_table(t), ""]
        for n in r.get("notes", []):
            lines += [f"- {n}"]
        if r.get("notes"):
            lines.append("")
        if sections_md.get(name):
            lines += [sections_md[name], ""]
        if r.get("commands"):
            lines += ["<details><summary>commands</summary>", "", "```"] + r["commands"] + ["```", "", "</details>", ""]
    return "\n".join(lines)


# Hand-written findings appended under a table (kept in the script so a rerun keeps them; they
# describe what the tables above show and must be re-read after a rerun).
FINDINGS = Path(BENCH / "paper_tables_findings.md")


def findings():
    """Sections of bench/paper_tables_findings.md, '## NAME' headed."""
    out, cur = {}, None
    if FINDINGS.exists():
        for line in FINDINGS.read_text().splitlines():
            if line.startswith("## "):
                cur = line[3:].strip()
                out[cur] = []
            elif cur:
                out[cur].append(line)
    return {k: "\n".join(v).strip() for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer seeds: checks that the script works")
    ap.add_argument("--only", action="append", default=[], choices=list(TABLES), help="run only this table (repeatable)")
    ap.add_argument("--reuse", action="store_true", help="rerun nothing: rebuild the document from bench/out/paper_tables")
    a = ap.parse_args()
    if not a.reuse and not Path(BIN).exists():
        sys.exit(f"{BIN} not found: cargo build --release, or set MEANSCAPE_BIN")
    OUT.mkdir(parents=True, exist_ok=True)
    todo = [] if a.reuse else (a.only or list(TABLES))
    commit = git_commit()  # the code the tables are computed with (before anything can change)
    t_all = time.perf_counter()
    for name in todo:
        fn, full, quick = TABLES[name]
        t0 = time.perf_counter()
        print(f"[{time.strftime('%H:%M:%S')}] {name} …", file=sys.stderr, flush=True)
        r = fn(*(quick if a.quick else full))
        r["seconds"] = time.perf_counter() - t0
        r["mode"] = "quick" if a.quick else "full"
        r["when"] = time.strftime("%Y-%m-%d %H:%M:%S %Z")
        (OUT / f"{name}.json").write_text(json.dumps(r, indent=1))
        print(f"[{time.strftime('%H:%M:%S')}] {name}: {r['seconds']:.0f} s", file=sys.stderr, flush=True)
    total = time.perf_counter() - t_all
    meta_path = OUT / "_meta.json"
    if todo:
        meta = {"date": time.strftime("%Y-%m-%d %H:%M %Z"), "commit": commit, "machine": machine(),
                "binary": rel(BIN) if str(BIN).startswith(str(ROOT)) else BIN,
                "mode": "quick (--quick)" if a.quick else "full", "total_s": total,
                "total_note": "" if len(todo) == len(TABLES) else f"this invocation ran only {', '.join(todo)}"}
        if len(todo) < len(TABLES) and meta_path.exists():
            old = json.loads(meta_path.read_text())
            meta["total_note"] += f"; the last full run took {old.get('full_total_s', old['total_s']) / 60:.1f} min"
            meta["full_total_s"] = old.get("full_total_s", old["total_s"])
        elif len(todo) == len(TABLES):
            meta["full_total_s"] = total
        meta_path.write_text(json.dumps(meta, indent=1))
    elif meta_path.exists():
        meta = json.loads(meta_path.read_text())
        meta["rendered"] = f"{time.strftime('%Y-%m-%d %H:%M %Z')} at commit {commit} (`--reuse`)"
    else:
        # Tables computed by an invocation that did not finish: their JSON says when.
        done = [json.loads(f.read_text()) for n in TABLES if (f := OUT / f"{n}.json").exists()]
        if not done:
            sys.exit("nothing cached in bench/out/paper_tables: run without --reuse first")
        meta = {"date": max(r.get("when", "") for r in done), "commit": commit, "machine": machine(),
                "binary": rel(BIN) if str(BIN).startswith(str(ROOT)) else BIN,
                "mode": "full" if all(r.get("mode") == "full" for r in done) else "mixed",
                "total_s": sum(r.get("seconds", 0) for r in done),
                "total_note": "the tables' own times; rendered with --reuse"}
    results = {}
    for name in TABLES:
        f = OUT / f"{name}.json"
        if f.exists():
            results[name] = json.loads(f.read_text())
    DOC.parent.mkdir(parents=True, exist_ok=True)
    kept = previous_document() if len(results) < len(TABLES) else None
    DOC.write_text(render(results, meta, findings(), kept).rstrip("\n") + "\n")
    print(f"wrote {rel(DOC)} ({len(results)} tables)", file=sys.stderr)


if __name__ == "__main__":
    main()
