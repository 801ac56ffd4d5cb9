"""Runs scikit-learn's KMeans tests (tests/test_sklearn_kmeans_suite.py)
against each estimator and prints passed / failed / skipped / deselected per
estimator, and for each the failures grouped by their error (the first
line of the exception, numbers and quoted values blanked, and the tests
it fails).

    python tools/sklearn_suite_table.py [KMeans PowerKMeans ...]

Not a CI test: only meanscape.KMeans is held to 0 failures (by
`pytest tests`); the other estimators differ from Lloyd by design or lack
scikit-learn's parameters, and this table says which.
"""

import collections
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = pathlib.Path(__file__).resolve().parent.parent
SUITE = HERE / "tests" / "test_sklearn_kmeans_suite.py"
DEFAULT = ["KMeans", "PowerKMeans", "KHarmonicMeans", "WKMeans", "LWKMeans", "SparseKMeans"]


def error_class(message):
    first = (message or "").strip().splitlines()[0] if message else ""
    first = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", first)
    first = re.sub(r"-?\d+(\.\d+)?(e-?\d+)?", "N", first)
    return first[:140]


def run(estimator):
    with tempfile.TemporaryDirectory() as tmp:
        xml = pathlib.Path(tmp) / "out.xml"
        env = dict(os.environ, MEANSCAPE_SUITE_ESTIMATOR=estimator)
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", str(SUITE), "-q", "-p", "no:cacheprovider", f"--junitxml={xml}"],
            env=env,
            capture_output=True,
            text=True,
            cwd=HERE,
        )
        deselected = re.search(r"(\d+) deselected", proc.stdout)
        counts = collections.Counter()
        classes = collections.defaultdict(list)
        for case in ET.parse(xml).getroot().iter("testcase"):
            name = case.get("name")
            failure = case.find("failure")
            error = case.find("error")
            skipped = case.find("skipped")
            if failure is not None or error is not None:
                node = failure if failure is not None else error
                counts["failed"] += 1
                classes[error_class(node.get("message"))].append(name)
            elif skipped is not None:
                kind = "xfailed" if skipped.get("type") == "pytest.xfail" else "skipped"
                counts[kind] += 1
            else:
                counts["passed"] += 1
        counts["deselected"] = int(deselected.group(1)) if deselected else 0
        return counts, classes


def main():
    names = sys.argv[1:] or DEFAULT
    results = {name: run(name) for name in names}
    cols = ["passed", "failed", "xfailed", "skipped", "deselected"]
    print(f"{'estimator':<16}" + "".join(f"{c:>11}" for c in cols))
    for name, (counts, _) in results.items():
        print(f"{name:<16}" + "".join(f"{counts[c]:>11}" for c in cols))
    for name, (_, classes) in results.items():
        if not classes:
            continue
        print(f"\n{name}: failures by error")
        for message, tests in sorted(classes.items(), key=lambda mt: -len(mt[1])):
            base = sorted({t.split("[")[0] for t in tests})
            print(f"  {len(tests):4d}  {message}")
            print(f"        {', '.join(base)}")


if __name__ == "__main__":
    main()
