#!/usr/bin/env python3
"""Choosing k without labels on Gagolewski's clustering battery: every rule
recommends one k per dataset, judged against the reference k (the number of
distinct non-zero labels) and by the NMI of its partition. Not a test.

    /tmp/dvenv/bin/python bench/choose_k.py                 # everything (R results cached)
    python bench/choose_k.py --only sipu_s1,wut_x1 --methods meanscape,sklearn
    python bench/choose_k.py --bin ../main/target/release/meanscape --sweep-args "-P max_iter=100"

Protocol, the same for every method: features = every column but `label`,
z-scored per column (sample sd; a constant column becomes 0), written once
per dataset to OUT/data/NAME.csv (no label column), which every method reads;
k ranges over 2..max(12, kref + 3). NMI (arithmetic normalisation, as
meanscape's metrics and scikit-learn's default) is taken on the points whose
label is not 0 (0 = noise), for the recommended k, the reference k and the
best k of the range, each with the method family's own partition at that k:
- meanscape rows: `meanscape run -a kmeans -k K --seed 0` (one start);
- sklearn: KMeans(n_init=10, random_state=0);
- R rows: R's kmeans(nstart=10) on the full data (set.seed(0));
- "k = 2": the meanscape partition at k = 2.
Method groups (--methods): k2, sklearn, meanscape (the k-scan's five rules
and, when the sweep JSON has them, `recommended` and each `per_score`
entry), two (the two-family sweep `-a kmeans,spectral --kernel knn`: its
`recommended` (algorithm, k), and the "largest k within 2 SE" variant computed
here from its cells (meanscape's `recommended` is the latter); NMI of the chosen family's partition, `run -a spectral
--kernel knn --seed 0` for spectral; NMI (ref k)/(best k) stay k-means'),
gap, ps, nselectboot. R results are cached in OUT/cache/ (--no-cache
reruns them). Writes OUT/results.json and OUT/table.md.
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import normalized_mutual_info_score, silhouette_score

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "battery"
OUT = ROOT / "bench" / "out" / "choose_k"
R_SCRIPT = ROOT / "bench" / "choose_k.R"
GROUPS = ["k2", "sklearn", "meanscape", "two", "gap", "ps", "nselectboot"]
TWO_ARGS = ["-a", "kmeans,spectral", "--kernel", "knn"]
R_METHODS = {"gap": "R clusGap firstSEmax", "ps": "R prediction.strength", "nselectboot": "R nselectboot"}
# The k-scan's rules: (score, higher is better), and the cost elbow.
SCAN_RULES = [("silhouette", True), ("calinski_harabasz", True), ("davies_bouldin", False), ("stability", True)]
SILHOUETTE_SAMPLE = 2000


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA, help="directory of the battery's CSVs")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "meanscape")
    ap.add_argument("--sweep-args", default="", help="extra arguments for `meanscape sweep`")
    ap.add_argument("--seeds", type=int, default=5, help="seeds per cell of the sweep")
    ap.add_argument("--only", default="", help="comma-separated dataset names (file stems)")
    ap.add_argument("--methods", default=",".join(GROUPS), help="comma-separated groups: " + ",".join(GROUPS))
    ap.add_argument("--no-cache", action="store_true", help="rerun the R methods")
    ap.add_argument("--r-max-n", type=int, default=2000,
                    help="R's rules see a uniform subsample (numpy seed 0) of this many rows of larger "
                         "datasets (prediction.strength's pair loop is quadratic in interpreted R)")
    ap.add_argument("--rscript", default="Rscript")
    a = ap.parse_args()
    a.methods = [m for m in a.methods.split(",") if m]
    bad = [m for m in a.methods if m not in GROUPS]
    if bad:
        ap.error(f"--methods: unknown {bad}; known: {GROUPS}")
    a.only = [d for d in a.only.split(",") if d]
    return a


def load(path):
    """Features z-scored per column (sample sd, a constant column → 0) and the labels."""
    header = path.open().readline().strip().split(",")
    if "label" not in header:
        raise SystemExit(f"{path}: no `label` column")
    raw = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    li = header.index("label")
    y = raw[:, li].astype(int)
    x = np.delete(raw, li, axis=1)
    mean, sd = x.mean(axis=0), x.std(axis=0, ddof=1)
    const = ~(sd > 0)
    z = (x - mean) / np.where(const, 1.0, sd)
    z[:, const] = 0.0
    return z, y


def write_csv(path, z):
    path.parent.mkdir(parents=True, exist_ok=True)
    header = ",".join(f"f{i + 1}" for i in range(z.shape[1]))
    np.savetxt(path, z, delimiter=",", header=header, comments="", fmt="%.17g")


def nmi(y, pred):
    """NMI on the non-noise points (label ≠ 0)."""
    keep = y != 0
    return float(normalized_mutual_info_score(y[keep], np.asarray(pred)[keep]))


def elbow(ks, costs):
    """The k-scan's elbow (src/tui/panes/sweep.rs `elbow_k`): both axes mapped onto [0, 1], the
    point farthest below the chord between the curve's ends (the last one on ties)."""
    pts = [(k, c) for k, c in zip(ks, costs) if np.isfinite(c)]
    if len(pts) < 3:
        return None

    def bounds(v):
        lo, hi = min(v), max(v)
        return (lo - 0.5, hi + 0.5) if lo == hi else (lo, hi)

    (x0, x1), (y0, y1) = bounds([p[0] for p in pts]), bounds([p[1] for p in pts])
    norm = [((x - x0) / (x1 - x0), (y - y0) / (y1 - y0)) for x, y in pts]
    first, last = norm[0], norm[-1]
    best, best_d = None, -np.inf
    for (nx, ny), (k, _) in zip(norm, pts):
        t = (nx - first[0]) / (last[0] - first[0])
        d = first[1] + t * (last[1] - first[1]) - ny
        if d >= best_d:
            best, best_d = k, d
    return int(best)


def best_k(cells, score, up):
    """As sweep::best: the best finite mean among cells that did not collapse (all cells if every
    one collapsed), the first on ties."""
    for allow in (False, True):
        best = None
        for c in cells:
            if c.get("collapsed") and not allow:
                continue
            s = c["scores"].get(score)
            v = s and s.get("mean")
            if v is None or not np.isfinite(v):
                continue
            if best is None or (v > best[1] if up else v < best[1]):
                best = (c["at"]["k"], v)
        if best:
            return int(best[0])
    return None


def meanscape_sweep(a, data, kmax, kref):
    """One sweep over k; returns the rows' recommended k (name → k), the wall time and notes."""
    cmd = [str(a.bin), "sweep", "-d", str(data), "--scale", "none", "--label", "none", "-a", "kmeans",
           "-k", str(kref), "--grid", f"k=2:{kmax}:{kmax - 1}", "--seeds", str(a.seeds),
           "--json", "-q", "--yes", *shlex.split(a.sweep_args)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)}: {p.stderr.strip()}")
    j = json.loads(p.stdout)
    cells = sorted(j["cells"], key=lambda c: c["at"]["k"])
    recs, notes = {}, []
    collapsed = [c["at"]["k"] for c in cells if c.get("collapsed")]
    if collapsed:
        notes.append(f"collapsed cells at k = {collapsed}")
    for score, up in SCAN_RULES:
        recs[f"meanscape {score}"] = best_k(cells, score, up)
    live = [c for c in cells if not c.get("collapsed")]
    recs["meanscape cost elbow"] = elbow([c["at"]["k"] for c in live],
                                         [c["scores"]["cost"]["mean"] for c in live])
    rec = j.get("recommended")
    if rec:
        recs["meanscape recommended"] = int(rec["at"]["k"])
        for name, r in sorted(rec.get("per_score", {}).items()):
            recs[f"meanscape after: {name}"] = int(r["at"]["k"])
        notes.append(f"recommended by {rec.get('by')}, agreement {rec.get('agreement')}")
    else:
        notes.append("sweep JSON has no `recommended`: no after rows")
    return recs, secs, notes


def two_family_sweep(a, data, kmax, kref):
    """The two-family sweep: (rule → (algorithm, k)), the wall time and notes."""
    cmd = [str(a.bin), "sweep", "-d", str(data), "--scale", "none", "--label", "none", *TWO_ARGS,
           "-k", str(kref), "--grid", f"k=2:{kmax}:{kmax - 1}", "--seeds", str(a.seeds),
           "--json", "-q", "--yes", *shlex.split(a.sweep_args)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)}: {p.stderr.strip()}")
    j = json.loads(p.stdout)
    order = j["algorithms"]
    live = [c for c in j["cells"] if not c.get("collapsed")
            and np.isfinite(c["scores"].get("prediction_strength", {}).get("mean", np.nan))]
    recs, notes = {}, []
    if live:
        ps = lambda c: c["scores"]["prediction_strength"]  # noqa: E731
        top = max(live, key=lambda c: (ps(c)["mean"], -order.index(c["algorithm"]), -c["at"]["k"]))
        recs["two-family PS argmax"] = (top["algorithm"], int(top["at"]["k"]))
        bar = ps(top)["mean"] - 2.0 * ps(top)["sd"]
        ok = [c for c in live if ps(c)["mean"] >= bar]
        pick = max(ok, key=lambda c: (c["at"]["k"], -order.index(c["algorithm"])))
        recs["two-family PS largest k within 2 SE"] = (pick["algorithm"], int(pick["at"]["k"]))
    rec = j.get("recommended")
    if rec:
        # meanscape's own recommendation is the 2 SE rule: it should match the second row.
        mine = (rec["at"]["algorithm"], int(rec["at"]["k"]))
        notes.append(f"two-family recommended: {mine[0]} k={mine[1]} by {rec.get('by')}")
        if mine not in recs.values():
            notes.append("two-family: the JSON's recommendation matches neither rule computed here")
    return recs, secs, notes


def labels_of(a, data, k, tmp, algo_args):
    out = Path(tmp) / f"labels_{k}.csv"
    cmd = [str(a.bin), "run", "-d", str(data), "--scale", "none", "--label", "none", *algo_args,
           "-k", str(k), "--seed", "0", "--out", str(out), "--force", "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)}: {p.stderr.strip()}")
    rows = np.loadtxt(out, delimiter=",", skiprows=1, dtype=int, ndmin=2)
    lab = np.empty(len(rows), dtype=int)
    lab[rows[:, 0]] = rows[:, 1]
    return lab


def meanscape_labels(a, data, k, tmp):
    out = Path(tmp) / f"labels_{k}.csv"
    cmd = [str(a.bin), "run", "-d", str(data), "--scale", "none", "--label", "none", "-a", "kmeans",
           "-k", str(k), "--seed", "0", "--out", str(out), "--force", "-q"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)}: {p.stderr.strip()}")
    rows = np.loadtxt(out, delimiter=",", skiprows=1, dtype=int, ndmin=2)
    lab = np.empty(len(rows), dtype=int)
    lab[rows[:, 0]] = rows[:, 1]
    return lab


def sklearn_silhouette(z, ks):
    """KMeans(n_init=10, random_state=0) at each k, silhouette (sampled above 2000 rows); max."""
    parts, sil = {}, {}
    t0 = time.perf_counter()
    for k in ks:
        parts[k] = KMeans(n_clusters=k, n_init=10, random_state=0).fit_predict(z)
        sample = SILHOUETTE_SAMPLE if len(z) > SILHOUETTE_SAMPLE else None
        sil[k] = silhouette_score(z, parts[k], sample_size=sample, random_state=0)
    secs = time.perf_counter() - t0
    return max(ks, key=lambda k: (sil[k], -k)), secs, parts


def r_call(a, data, method, kmax, cache, extra=()):
    """One R method, cached per dataset + method in `cache` (a JSON file)."""
    if cache.exists() and not a.no_cache:
        return json.loads(cache.read_text())
    cache.parent.mkdir(parents=True, exist_ok=True)
    cmd = [a.rscript, str(R_SCRIPT), str(data), method, str(kmax), "0", *map(str, extra)]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{shlex.join(cmd)}: {p.stderr.strip()[-500:]}")
    res = json.loads(p.stdout.strip().splitlines()[-1])
    res["process_seconds"] = wall
    cache.write_text(json.dumps(res))
    return res


def r_partitions(a, data, name, ks):
    csv = a.out / "cache" / f"{name}.kmeans_labels.csv"
    r_call(a, data, "kmeans", ks[-1], a.out / "cache" / f"{name}.kmeans.json", [csv])
    if not csv.exists():  # the JSON was cached but the labels were removed
        r_call(a, data, "kmeans", ks[-1], a.out / "cache" / f"{name}.kmeans.json", [csv])
    lab = np.loadtxt(csv, delimiter=",", skiprows=1, dtype=int, ndmin=2)
    return {k: lab[:, i] for i, k in enumerate(ks)}


def nmi_row(k, secs, parts, y, kref, ks):
    """The row of one method on one dataset; a k outside the range (R's k = 1) gets NMI 0."""
    curve = {kk: nmi(y, parts[kk]) for kk in ks}
    at = curve.get(k, 0.0) if k is not None else None
    return {"k": k, "seconds": secs, "nmi": at, "nmi_ref": curve[kref],
            "nmi_best": max(curve.values()), "best_k": max(ks, key=lambda kk: curve[kk])}


def run_dataset(a, path):
    name = path.stem
    z, y = load(path)
    kref = len(set(y[y != 0].tolist()))
    kmax = max(12, kref + 3)
    ks = list(range(2, kmax + 1))
    data = a.out / "data" / f"{name}.csv"
    write_csv(data, z)
    info = {"name": name, "n": len(z), "p": z.shape[1], "kref": kref, "kmax": kmax,
            "noise": int((y == 0).sum()), "methods": {}, "notes": []}
    rows = info["methods"]
    ms_parts = None
    if "meanscape" in a.methods or "k2" in a.methods or "two" in a.methods:
        with tempfile.TemporaryDirectory() as tmp:
            ms_parts = {k: meanscape_labels(a, data, k, tmp) for k in ks}
    if "k2" in a.methods:
        rows["k = 2"] = nmi_row(2, 0.0, ms_parts, y, kref, ks)
    if "sklearn" in a.methods:
        k, secs, parts = sklearn_silhouette(z, ks)
        rows["sklearn silhouette"] = nmi_row(k, secs, parts, y, kref, ks)
    if "meanscape" in a.methods:
        recs, secs, notes = meanscape_sweep(a, data, kmax, kref)
        info["notes"] += notes
        for m, k in recs.items():
            rows[m] = nmi_row(k, secs, ms_parts, y, kref, ks)
    if "two" in a.methods:
        recs, secs, notes = two_family_sweep(a, data, kmax, kref)
        info["notes"] += notes
        sp_cache = {}
        for m, (algo, k) in recs.items():
            # NMI (ref k) and (best k) stay k-means' (the goal compares with k-means at the reference k).
            row = nmi_row(k, secs, ms_parts, y, kref, ks)
            row["algorithm"] = algo
            if algo != "kmeans":
                if k not in sp_cache:
                    with tempfile.TemporaryDirectory() as tmp:
                        sp_cache[k] = labels_of(a, data, k, tmp, ["-a", algo, "--kernel", "knn"])
                row["nmi"] = nmi(y, sp_cache[k])
            rows[m] = row
    r_wanted = [m for m in R_METHODS if m in a.methods]
    if r_wanted:
        r_data = data
        if len(z) > a.r_max_n:
            keep = np.sort(np.random.default_rng(0).choice(len(z), a.r_max_n, replace=False))
            r_data = a.out / "data" / f"{name}.r{a.r_max_n}.csv"
            write_csv(r_data, z[keep])
            info["notes"].append(f"R rules on a subsample of {a.r_max_n} of {len(z)} rows")
        parts = r_partitions(a, data, name, ks)
        for m in r_wanted:
            tag = m if r_data == data else f"{m}.r{a.r_max_n}"
            res = r_call(a, r_data, m, kmax, a.out / "cache" / f"{name}.{tag}.json")
            rows[R_METHODS[m]] = nmi_row(res["k"], res["seconds"], parts, y, kref, ks)
            rows[R_METHODS[m]]["curve"] = {k: v for k, v in res.items() if k not in ("k", "seconds")}
    return info


def summarize(datasets):
    names = []
    for d in datasets:
        names += [m for m in d["methods"] if m not in names]
    table = []
    for m in names:
        rs = [(d, d["methods"][m]) for d in datasets if m in d["methods"]]
        chosen = [(d, r) for d, r in rs if r["k"] is not None]
        err = [abs(r["k"] - d["kref"]) for d, r in chosen]
        table.append({
            "method": m, "datasets": len(rs), "no_k": len(rs) - len(chosen),
            "exact": sum(e == 0 for e in err) / len(rs), "within1": sum(e <= 1 for e in err) / len(rs),
            "mean_abs_err": float(np.mean(err)) if err else None,
            "nmi": float(np.mean([r["nmi"] for _, r in chosen])) if chosen else None,
            "nmi_ref": float(np.mean([r["nmi_ref"] for _, r in rs])),
            "nmi_best": float(np.mean([r["nmi_best"] for _, r in rs])),
            "seconds": float(sum(r["seconds"] for _, r in rs)),
        })
    return table


def markdown(table, datasets, notes):
    f = lambda v, fmt: "–" if v is None else format(v, fmt)  # noqa: E731
    out = ["| method | sets | k = ref | ±1 | mean abs err | NMI (rec) | NMI (ref k) | NMI (best k) | time (s) |",
           "|---|---|---|---|---|---|---|---|---|"]
    for t in table:
        out.append(f"| {t['method']} | {t['datasets']} | {t['exact']:.0%} | {t['within1']:.0%} | "
                   f"{f(t['mean_abs_err'], '.2f')} | {f(t['nmi'], '.3f')} | {t['nmi_ref']:.3f} | "
                   f"{t['nmi_best']:.3f} | {t['seconds']:.1f} |")
    methods = [t["method"] for t in table]
    per_set = [("k", "Recommended k per dataset (reference k in the second column)", "{}"),
               ("nmi", "NMI of the recommended partition per dataset", "{:.3f}"),
               ("seconds", "Wall time per dataset (s)", "{:.2f}")]
    for field, title, fmt in per_set:
        out += ["", title + ":", "", "| dataset | ref | " + " | ".join(methods) + " |",
                "|---|---|" + "---|" * len(methods)]
        for d in datasets:
            cells = []
            for m in methods:
                v = d["methods"].get(m, {}).get(field)
                cells.append("–" if v is None else fmt.format(v))
            out.append(f"| {d['name']} | {d['kref']} | " + " | ".join(cells) + " |")
    out += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"


def bin_mtime(path):
    """When the binary was built (UTC), to tell runs against different builds apart."""
    if not path.exists():
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(path.stat().st_mtime))


def main():
    a = parse_args()
    paths = sorted(a.data.glob("*.csv"))
    if a.only:
        missing = set(a.only) - {p.stem for p in paths}
        if missing:
            raise SystemExit(f"--only: no {sorted(missing)} in {a.data}")
        paths = [p for p in paths if p.stem in a.only]
    if not paths:
        raise SystemExit(f"{a.data}: no CSV files")
    if ("meanscape" in a.methods or "k2" in a.methods or "two" in a.methods) and not a.bin.exists():
        raise SystemExit(f"--bin {a.bin}: not found (cargo build --release)")
    datasets = []
    for p in paths:
        t0 = time.perf_counter()
        try:
            datasets.append(run_dataset(a, p))
        except RuntimeError as e:
            raise SystemExit(f"{p.stem}: {e}")
        print(f"{p.stem}: {time.perf_counter() - t0:.1f}s "
              + " ".join(f"{m}={r['k']}" for m, r in datasets[-1]["methods"].items()), file=sys.stderr)
    table = summarize(datasets)
    notes = [
        "NMI on non-noise points (label ≠ 0), arithmetic normalisation; each family's own partition at "
        "each k: meanscape `run -a kmeans --seed 0` (1 start) for meanscape rows and k = 2; "
        "scikit-learn KMeans(n_init=10, random_state=0); R kmeans(nstart=10) on the full data for R rows",
        f"k range 2..max(12, kref + 3); sweep: `-a kmeans --scale none --seeds {a.seeds}` on the z-scored "
        f"CSV{' ' + a.sweep_args if a.sweep_args else ''}; collapsed cells skipped (elbow too)",
        f"two-family rows: `sweep {' '.join(TWO_ARGS)} --scale none --seeds {a.seeds}` (B = 20); the "
        "recommended partition is the chosen algorithm's `run --seed 0` (1 start) at the chosen k",
        f"sklearn silhouette on a sample of {SILHOUETTE_SAMPLE} rows (random_state=0) when n > "
        f"{SILHOUETTE_SAMPLE}",
        f"R rules see a uniform subsample of {a.r_max_n} rows (numpy seed 0) when n > {a.r_max_n}; "
        "clusGap's k may be 1 (its K.max counts k = 1), prediction.strength's is 1 when no k reaches "
        "0.8: such a k scores NMI 0",
        "time: meanscape rows = one sweep process (shared by its rules); sklearn = its fits + "
        "silhouettes; R = the method call inside R (not R's start); k = 2 costs nothing",
        f"meanscape binary {a.bin} (built {bin_mtime(a.bin)})",
    ]
    if any(m in R_METHODS for m in a.methods):
        v = subprocess.run([a.rscript, "-e", 'cat(R.version.string, "cluster", format(packageVersion('
                            '"cluster")), "fpc", format(packageVersion("fpc")))'], capture_output=True, text=True)
        notes.append(v.stdout.strip() or "R version unknown")
    a.out.mkdir(parents=True, exist_ok=True)
    md = markdown(table, datasets, notes)
    (a.out / "table.md").write_text(md)
    (a.out / "results.json").write_text(json.dumps(
        {"bin": str(a.bin), "bin_mtime": bin_mtime(a.bin), "sweep_args": a.sweep_args, "seeds": a.seeds, "r_max_n": a.r_max_n,
         "table": table, "datasets": datasets, "notes": notes}, indent=1, default=float))
    print(md)


if __name__ == "__main__":
    main()
