"""The estimators as scikit-learn users use them: predict, pickling,
pipelines, grid search, DataFrames, input handling, the GIL, sweeps."""

import pickle
import threading
import time

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

import meanscape
from meanscape import _meanscape

CENTROID = ["PowerKMeans", "KHarmonicMeans", "WKMeans", "LWKMeans", "SparseKMeans"]
PREDICTING = CENTROID + [
    "KernelKMeans", "KernelPowerKMeans", "MultiKernelPowerKMeans", "DMKKM", "MKKM",
    "RFFPowerKMeans", "RFFMultiViewPowerKMeans", "IPRFFMultiViewPowerKMeans",
]


@pytest.mark.parametrize("name", CENTROID)
def test_predict_on_the_training_rows_is_labels(name, iris):
    X, _ = iris
    est = getattr(meanscape, name)(n_clusters=3, random_state=0).fit(X)
    np.testing.assert_array_equal(est.predict(X), est.labels_)


@pytest.mark.parametrize("name", PREDICTING)
def test_new_points_go_to_their_blob(name):
    X, y = make_blobs(n_samples=300, centers=3, cluster_std=0.6, random_state=4)
    X_new, y_new = make_blobs(n_samples=60, centers=3, cluster_std=0.6, random_state=4, shuffle=True)
    est = getattr(meanscape, name)(n_clusters=3, random_state=0).fit(X)
    assert adjusted_rand_score(y, est.labels_) > 0.95, name
    # The same generator state gives the same centres: new points of blob c
    # must land in the cluster that holds blob c's training points.
    pred = est.predict(X_new[:30] + 0.01)
    train_pred = est.predict(X[:30] + 0.01)
    assert adjusted_rand_score(est.labels_[:30], train_pred) == 1.0
    assert pred.shape == (30,)
    assert adjusted_rand_score(y_new[:30], pred) > 0.95
    d = est.transform(X_new)
    assert d.shape == (60, 3) and np.all(d >= 0)
    np.testing.assert_array_equal(d.argmin(axis=1), est.predict(X_new))


@pytest.mark.parametrize("name", PREDICTING)
def test_pickling_keeps_the_model(name, iris):
    X, _ = iris
    est = getattr(meanscape, name)(n_clusters=3, random_state=1).fit(X)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.labels_, est.labels_)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    assert back.get_params() == est.get_params()


def test_spectral_has_no_predict(iris):
    X, _ = iris
    est = meanscape.Spectral(n_clusters=3, random_state=0)
    assert not hasattr(est, "predict")
    assert est.fit_predict(X).shape == (150,)


def test_pipeline_with_standard_scaler_and_lw():
    data = meanscape.load("gen:sparse,n=200,p=60,q=6,k=3,seed=1")
    X, y = data["X"], data["y"]
    pipe = Pipeline([("scale", StandardScaler()), ("lw", meanscape.LWKMeans(n_clusters=3, random_state=0))])
    labels = pipe.fit_predict(X)
    assert normalized_mutual_info_score(y, labels) > 0.9
    lw = pipe.named_steps["lw"]
    assert 0 < len(lw.selected_features_) < 60
    # The informative features are the first q of the generator.
    assert set(range(6)) <= set(lw.selected_features_.tolist())
    np.testing.assert_array_equal(pipe.predict(X), labels)


def test_grid_search_over_s0_with_a_custom_scorer(iris):
    X, y = iris

    def ari(estimator, X, y):
        return adjusted_rand_score(y, estimator.predict(X))

    folds = KFold(3, shuffle=True, random_state=0)
    search = GridSearchCV(meanscape.PowerKMeans(n_clusters=3, random_state=0), {"s0": [-0.3, -1.0, -3.0]}, scoring=ari, cv=folds)
    search.fit(X, y)
    assert search.best_params_["s0"] in (-0.3, -1.0, -3.0)
    assert len(search.cv_results_["mean_test_score"]) == 3
    assert search.best_score_ > 0.5


def test_dataframe_feature_names_and_selected_features():
    pd = pytest.importorskip("pandas")
    data = meanscape.load("gen:sparse,n=150,p=20,q=4,k=3,seed=2")
    df = pd.DataFrame(data["X"], columns=[f"gene_{i}" for i in range(20)])
    lw = meanscape.LWKMeans(n_clusters=3, random_state=0).fit(df)
    assert list(lw.feature_names_in_) == list(df.columns)
    names = lw.feature_names_in_[lw.selected_features_]
    assert {"gene_0", "gene_1", "gene_2", "gene_3"} <= set(names)


def test_contiguous_float64_is_read_in_place_and_others_are_converted(iris):
    X, _ = iris
    c = np.ascontiguousarray(X)
    f = np.asfortranarray(X)
    r = _meanscape.fit("power", c, 3, [], [], 0)
    assert r["input_copied"] is False
    # C-contiguous float32 is read in place too, and runs as f32.
    assert _meanscape.fit("power", X.astype(np.float32), 3, [], [], 0)["input_copied"] is False
    for other in (f, np.asfortranarray(X.astype(np.float32)), c[:, ::-1].copy()[:, ::-1]):
        o = _meanscape.fit("power", other, 3, [], [], 0)
        assert o["input_copied"] is True
    np.testing.assert_array_equal(_meanscape.fit("power", f, 3, [], [], 0)["labels"], r["labels"])


def test_values_outside_the_engine_range_are_rescaled_as_the_cli_does(iris):
    X, _ = iris
    big = X * 2.0**80
    a = meanscape.PowerKMeans(3, random_state=0).fit(X)
    b = meanscape.PowerKMeans(3, random_state=0).fit(big)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(b.predict(big), b.labels_)
    # Below 2^-1023 the factor itself is beyond f64's range: the rescale
    # must still be exact (ldexp), not a multiplication by infinity.
    tiny = X * 2.0**-1030
    c = meanscape.PowerKMeans(3, random_state=0).fit(tiny)
    assert np.all(np.isfinite(c.cluster_centers_))
    np.testing.assert_array_equal(c.predict(tiny), c.labels_)


def test_bad_input_and_parameters_raise_value_error(iris):
    X, _ = iris
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        meanscape.PowerKMeans(3).fit(bad)
    with pytest.raises(ValueError, match=r"s0 = 5 is out of range: must be in \[-1000, -0.01\]"):
        meanscape.PowerKMeans(3, s0=5).fit(X)
    with pytest.raises(ValueError, match="n_samples=150 should be >= n_clusters=200"):
        meanscape.PowerKMeans(200).fit(X)
    with pytest.raises(ValueError, match="X has 3 features"):
        meanscape.PowerKMeans(3, random_state=0).fit(X).predict(X[:, :3])
    with pytest.raises(ValueError, match="init = 'x' is not a seeding"):
        meanscape.PowerKMeans(3, init="x").fit(X)
    with pytest.raises(ValueError, match="kernel"):
        meanscape.KernelPowerKMeans(3, kernel="nope").fit(X)


def test_the_gil_is_released_during_a_fit():
    X, _ = make_blobs(n_samples=1500, centers=5, n_features=8, random_state=0)
    est = meanscape.KernelPowerKMeans(5, random_state=0, s0=-0.3, eta=1.01, tol=0.0)
    done = threading.Event()
    ticks = 0

    def work():
        est.fit(X)
        done.set()

    t = threading.Thread(target=work)
    t.start()
    start = time.perf_counter()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    elapsed = time.perf_counter() - start
    t.join()
    # Holding the GIL, the fit would stop this loop for its whole duration.
    assert elapsed > 0.05, "the fit was too quick to tell"
    assert ticks > elapsed / 0.001 / 4


def test_sweep_cells_are_the_estimator_runs(iris):
    X, y = iris
    out = meanscape.sweep("power", X, 3, {"s0": [-0.5, -3.0]}, seeds=2, y=y)
    assert out["axes"] == ["s0"]
    np.testing.assert_allclose(out["at"]["s0"], [-0.5, -3.0])
    assert out["complete"] and out["seeds"] == 2
    for cell, s0 in enumerate((-0.5, -3.0)):
        nmis = [normalized_mutual_info_score(y, meanscape.PowerKMeans(3, s0=s0, random_state=seed).fit(X).labels_) for seed in (0, 1)]
        assert out["scores"]["nmi"][cell] == pytest.approx(np.mean(nmis), abs=1e-9)
    assert out["best"]["nmi"] in (0, 1)
    assert out["scores"]["silhouette"].shape == (2,)


def test_sweep_recommends_k_without_labels():
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [10, 0], [0, 10], [10, 10]], dtype=float)
    X = np.repeat(centres, 40, axis=0) + rng.uniform(-1, 1, size=(160, 2))
    out = meanscape.sweep("kmeans", X, 2, {"k": [2, 3, 4, 5, 6]}, seeds=2, resamples=8)
    rec = out["recommended"]
    assert out["k"][rec["cell"]] == 4
    assert rec["by"].startswith("prediction_strength")
    assert 0 < rec["agreement"] <= 1
    assert out["k"][rec["per_score"]["gap"]] == 4
    assert out["scores"]["prediction_strength"].shape == (5,)
    # Without resamples: no resampled score, the silhouette recommends.
    out = meanscape.sweep("kmeans", X, 2, {"k": [3, 4, 5]}, seeds=2)
    assert "prediction_strength" not in out["scores"]
    assert out["recommended"]["by"].startswith("silhouette")


def test_sweep_over_several_algorithms_is_the_clis_structure():
    rng = np.random.default_rng(0)
    centres = np.array([[0, 0], [10, 0], [0, 10], [10, 10]], dtype=float)
    X = np.repeat(centres, 30, axis=0) + rng.uniform(-1, 1, size=(120, 2))
    out = meanscape.sweep(["kmeans", "spectral"], X, 2, {"k": [3, 4, 5]}, seeds=2, resamples=4,
                          options={"kernel": "knn"})
    assert out["algorithms"] == ["kmeans", "spectral"]
    assert [c["algorithm"] for c in out["cells"]] == ["kmeans"] * 3 + ["spectral"] * 3
    assert [c["at"]["k"] for c in out["cells"]] == [3, 4, 5, 3, 4, 5]
    rec = out["recommended"]
    assert rec["at"]["k"] == 4 and rec["at"]["algorithm"] in ("kmeans", "spectral")
    assert out["cells"][rec["cell"]]["algorithm"] == rec["at"]["algorithm"]
    assert rec["by"].startswith("prediction_strength")
    ps = out["cells"][1]["scores"]["prediction_strength"]
    assert 0.9 < ps["mean"] <= 1 and ps["sd"] >= 0
    # Each family is the one-algorithm sweep, and kernel was spectral's only.
    one = meanscape.sweep("kmeans", X, 2, {"k": [3, 4, 5]}, seeds=2, resamples=4)
    np.testing.assert_allclose(out["families"]["kmeans"]["scores"]["prediction_strength"],
                               one["scores"]["prediction_strength"])
    # The CLI's spelling works too.
    assert meanscape.sweep("kmeans,power", X, 2, {"k": [3, 4]}, seeds=1)["algorithms"] == ["kmeans", "power"]
    with pytest.raises(ValueError, match="none of kmeans, power takes it"):
        meanscape.sweep(["kmeans", "power"], X, 2, {"k": [3, 4]}, seeds=1, params={"lambda": 0.1})


def test_the_declared_tables_are_the_signatures():
    for algo in meanscape.algorithms():
        if not algo["python_generated"]:
            continue
        cls = next(getattr(meanscape, n) for n in meanscape._estimators.__all__ if getattr(meanscape, n)._algorithm == algo["id"])
        params = cls().get_params()
        for spec in algo["params"]:
            name = "lam" if spec["name"] == "lambda" else spec["name"]
            d = spec["default"]
            assert params[name] == (None if "auto" in d else pytest.approx(d["fixed"])), (cls.__name__, name)


def test_the_generated_estimators_are_up_to_date():
    import importlib.util
    import json
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("gen", root / "tools" / "gen_estimators.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    text = gen.render(json.loads(_meanscape.algorithms()))
    assert (root / "meanscape" / "_estimators.py").read_text() == text, "run python tools/gen_estimators.py"


def test_ctrl_c_stops_a_long_fit():
    import signal
    import subprocess
    import sys

    code = (
        "import time, numpy as np, meanscape\n"
        "X = np.random.default_rng(0).normal(size=(2000, 10))\n"
        "print('fitting', flush=True)\n"
        "t = time.perf_counter()\n"
        "try:\n"
        "    meanscape.KernelPowerKMeans(8, s0=-0.1, eta=1.0001, tol=0.0, max_iter=100000, random_state=0).fit(X)\n"
        "    print('finished')\n"
        "except KeyboardInterrupt:\n"
        "    print(f'interrupted after {time.perf_counter() - t:.2f}s')\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "fitting"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert out.startswith("interrupted after"), out
