"""Every estimator gives `meanscape run`'s result for the same data,
parameters and seed (the CLI with --scale none: estimators do not scale)."""

import json
import subprocess

import numpy as np
import pytest

import meanscape

# (estimator, engine id, Python keyword arguments, the CLI's -P values / options)
CASES = [
    ("PowerKMeans", "power", {"s0": -3.0}, ["-P", "s0=-3"]),
    ("KHarmonicMeans", "khm", {}, []),
    ("KernelKMeans", "kernel-kmeans", {"sigma": 1.5}, ["-P", "sigma=1.5"]),
    ("KernelPowerKMeans", "kpower", {"s0": -0.5}, ["-P", "s0=-0.5"]),
    ("MultiKernelPowerKMeans", "mkpower", {"lam": 2.0}, ["-P", "lambda=2"]),
    ("DMKKM", "dmkkm", {}, []),
    ("MKKM", "mkkm", {}, []),
    ("RFFPowerKMeans", "rff-power", {"rff_dim": 64}, ["-P", "rff_dim=64"]),
    ("RFFMultiViewPowerKMeans", "rff-mkpower", {"views": "1-2,3-4"}, ["--views", "1-2,3-4"]),
    ("IPRFFMultiViewPowerKMeans", "ip-rff-mkpower", {"views": "1-2,3-4", "m": 3.0}, ["--views", "1-2,3-4", "-P", "m=3"]),
    ("Spectral", "spectral", {"kernel": "laplacian"}, ["--kernel", "laplacian"]),
    ("WKMeans", "wkmeans", {"beta": 3.0}, ["-P", "beta=3"]),
    ("LWKMeans", "lw", {"lam": 0.2}, ["-P", "lambda=0.2"]),
    ("SparseKMeans", "sparse-kmeans", {"wbound": 1.5}, ["-P", "wbound=1.5"]),
]


def cli_run(cli, data, algo, extra, seed, restarts=1):
    cmd = [cli, "run", "--data", data, "--label", "none", "--scale", "none", "--algo", algo,
           "--k", "3", "--seed", str(seed), "--restarts", str(restarts), "--json", "-q"] + extra
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("name,algo,kwargs,flags", CASES, ids=[c[0] for c in CASES])
def test_estimator_equals_the_cli(cli, iris, iris_csv, name, algo, kwargs, flags):
    X, _ = iris
    for seed, restarts in ((0, 1), (7, 2)):
        est = getattr(meanscape, name)(n_clusters=3, random_state=seed, n_init=restarts, **kwargs).fit(X)
        ref = cli_run(cli, iris_csv, algo, flags, seed, restarts)
        assert est.labels_.tolist() == ref["labels"], f"{name} seed {seed}"
        assert est.objective_ == pytest.approx(ref["objective"], rel=1e-9, abs=1e-12)
        assert est.n_iter_ == ref["iterations"]
        assert est.params_, name
        for key, value in est.params_.items():
            assert ref["params"][key] == pytest.approx(value, rel=1e-12), key


def test_fit_predict_and_fit_give_the_same_labels(iris):
    X, _ = iris
    a = meanscape.KernelPowerKMeans(3, random_state=3).fit_predict(X)
    b = meanscape.KernelPowerKMeans(3, random_state=3).fit(X).labels_
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name,algo", [("KernelPowerKMeans", "kpower"), ("LWKMeans", "lw"), ("RFFMultiViewPowerKMeans", "rff-mkpower")])
def test_models_cross_between_python_and_the_cli(cli, iris, iris_csv, tmp_path, name, algo):
    X, _ = iris
    est = getattr(meanscape, name)(n_clusters=3, random_state=0).fit(X)
    # A model saved by `meanscape run` predicts in Python as the estimator does.
    saved = tmp_path / "cli.json"
    subprocess.run([cli, "run", "--data", iris_csv, "--label", "none", "--scale", "none", "--algo", algo,
                    "--k", "3", "--seed", "0", "--save-model", str(saved), "-q"], check=True, capture_output=True)
    model = meanscape.Model.from_json(saved.read_text())
    assert model.algorithm == algo and model.k == 3 and model.n_features == 4
    np.testing.assert_array_equal(model.predict(X), est.predict(X))
    # And the estimator's model predicts in `meanscape predict` as in Python.
    mine = tmp_path / "python.json"
    mine.write_text(est.model_.to_json())
    out = subprocess.run([cli, "predict", "--model", str(mine), "--data", iris_csv, "--label", "none", "--json"],
                         check=True, capture_output=True, text=True)
    assert json.loads(out.stdout)["labels"] == est.predict(X).tolist()


def test_load_with_label_none_leaves_the_label_column_out(tmp_path):
    # Issue 27: "none" is no ground truth, not "cluster on the labels".
    path = tmp_path / "t.csv"
    path.write_text("a,b,label\n1,2,0\n3,4,1\n5,6,0\n")
    d = meanscape.load(str(path), label="none")
    assert d["X"].shape == (3, 2) and d["feature_names"] == ["a", "b"]
    assert d["y"] is None and d["label_left_out"] == "label"
    kept = meanscape.load(str(path), label="none", keep_label_column=True)
    assert kept["X"].shape == (3, 3) and kept["label_left_out"] is None
    assert meanscape.load(str(path))["label_left_out"] is None


def test_sweep_best_cells_equal_the_clis(cli, iris, iris_csv):
    # The JSON's best cell per score is the one meanscape.sweep names.
    X, y = iris
    out = subprocess.run([cli, "sweep", "--data", iris_csv, "--label", "none", "--scale", "none",
                          "--k", "3", "--grid", "s0=-4:-1:4", "--seeds", "2", "--json", "-q"],
                         check=True, capture_output=True, text=True)
    v = json.loads(out.stdout)
    r = meanscape.sweep("power", X, 3, ["s0=-4:-1:4"], seeds=2)
    for name in ["silhouette", "cost", "davies_bouldin", "stability"]:
        assert v["best"][name]["cell"] == r["best"][name], name


def test_sweep_over_several_algorithms_recommends_as_the_cli(cli, iris, iris_csv):
    X, _ = iris
    out = subprocess.run([cli, "sweep", "--data", iris_csv, "--label", "none", "--scale", "none",
                          "-a", "kmeans,power", "--grid", "k=2:4:3", "--seeds", "2",
                          "--resamples", "4", "--json", "-q"],
                         check=True, capture_output=True, text=True)
    v = json.loads(out.stdout)
    r = meanscape.sweep(["kmeans", "power"], X, 3, ["k=2:4:3"], seeds=2, resamples=4)
    assert r["algorithms"] == v["algorithms"]
    assert [c["at"] for c in r["cells"]] == [c["at"] for c in v["cells"]]
    assert r["recommended"]["at"] == v["recommended"]["at"]
    assert r["recommended"]["cell"] == v["recommended"]["cell"]
    for mine, cli_cell in zip(r["cells"], v["cells"]):
        assert mine["scores"]["prediction_strength"]["mean"] == pytest.approx(
            cli_cell["scores"]["prediction_strength"]["mean"], abs=1e-12)


@pytest.mark.parametrize("name,algo", [("PowerKMeans", "power"), ("WKMeans", "wkmeans"), ("RFFPowerKMeans", "rff-power")])
def test_float32_runs_as_the_clis_f32_run(cli, iris, tmp_path, name, algo):
    """float32 in: the engine runs f32 end to end, as `--dtype f32` on a
    float32 .npy does, and the centres come back float32."""
    X, _ = iris
    X32 = np.ascontiguousarray(X.astype(np.float32))
    path = tmp_path / "iris32.npy"
    np.save(path, X32)
    est = getattr(meanscape, name)(n_clusters=3, random_state=0).fit(X32)
    ref = cli_run(cli, str(path), algo, ["--dtype", "f32"], 0)
    assert est.labels_.tolist() == ref["labels"]
    assert est.objective_ == pytest.approx(ref["objective"], rel=1e-9, abs=1e-12)
    if hasattr(est, "cluster_centers_"):
        assert est.cluster_centers_.dtype == np.float32
