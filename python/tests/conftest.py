import os
import pathlib
import shutil
import threading

import numpy as np
import pytest
from sklearn.datasets import load_iris

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Deselection reasons and counts, for the summary.
_DESELECTED = pytest.StashKey()


@pytest.fixture(scope="session")
def cli():
    """The meanscape program built from the same sources (cargo build
    --release, which `cargo test --release` does too)."""
    for candidate in (os.environ.get("MEANSCAPE_BIN"), ROOT / "target" / "release" / "meanscape", shutil.which("meanscape")):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    pytest.fail("the meanscape program is not built: run `cargo build --release` at the repository root or set MEANSCAPE_BIN")


@pytest.fixture
def bounded():
    """`run(fn, *args, seconds=…, what=…)`: fn(out, *args) in a daemon
    thread, the test failing (not hanging) when it takes over `seconds`,
    and raising what fn raised; returns the dict `out` fn filled in."""

    def run(fn, *args, seconds, what):
        out, error = {}, []

        def body():
            try:
                fn(out, *args)
            except BaseException as e:  # re-raised in the test's thread
                error.append(e)

        t = threading.Thread(target=body, daemon=True)
        t.start()
        t.join(timeout=seconds)
        assert not t.is_alive(), f"{what} did not finish within {seconds} s"
        if error:
            raise error[0]
        return out

    return run


@pytest.fixture(scope="session")
def iris():
    X, y = load_iris(return_X_y=True)
    return np.ascontiguousarray(X), y


@pytest.fixture(scope="session")
def iris_csv(tmp_path_factory, iris):
    X, _ = iris
    path = tmp_path_factory.mktemp("data") / "iris.csv"
    header = "a,b,c,d"
    # repr keeps every digit, so the CLI reads exactly the same numbers.
    lines = [header] + [",".join(repr(float(v)) for v in row) for row in X]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def pytest_collection_modifyitems(config, items):
    """Modules that run another project's tests (test_sklearn_kmeans_suite)
    say which of them are not run, and why (``suite_deselect``), and which
    are expected to fail for now (``suite_mark``)."""
    keep, dropped = [], []
    reasons = config.stash.setdefault(_DESELECTED, {})
    for item in items:
        module = getattr(item, "module", None)
        deselect = getattr(module, "suite_deselect", None)
        reason = deselect(item) if deselect else None
        if reason is None:
            mark = getattr(module, "suite_mark", None)
            if mark:
                mark(item)
            keep.append(item)
        else:
            dropped.append(item)
            reasons[reason] = reasons.get(reason, 0) + 1
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def pytest_terminal_summary(terminalreporter, config):
    reasons = config.stash.get(_DESELECTED, {})
    if reasons:
        terminalreporter.section("deselected (scikit-learn's KMeans tests)")
        for reason, count in sorted(reasons.items(), key=lambda rc: -rc[1]):
            terminalreporter.write_line(f"{count:4d}  {reason}")

