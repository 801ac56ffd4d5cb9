import os
import pathlib
import shutil

import numpy as np
import pytest
from sklearn.datasets import load_iris

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """The meanscape program built from the same sources (cargo build
    --release, which `cargo test --release` does too)."""
    for candidate in (os.environ.get("MEANSCAPE_BIN"), ROOT / "target" / "release" / "meanscape", shutil.which("meanscape")):
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    pytest.fail("the meanscape program is not built: run `cargo build --release` at the repository root or set MEANSCAPE_BIN")


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
