"""meanscape.dask's RFFPowerKMeans, WKMeans and LWKMeans = the in-memory
estimators: objective (and its trace), centres, feature weights and labels
to 1e-9 relative, for uneven and single-row chunkings, sample weights,
float32 and a dataframe. WK-means and LW-k-means start from the same given
centres; rff-power from the same k-means++ seeds (the dask sample is the
whole data here, so both seed on the same feature rows with one seed)."""

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import meanscape
from meanscape import dask as mdask

RTOL = 1e-9

CHUNKINGS = {
    "uneven": (100, 1, 250, 7, 242),
    "single-rows-then-rest": (1, 1, 1, 1, 596),
    "smaller-than-k": (3, 2, 595),
}


def blobs(n=600, p=5, k=4, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(k, p))
    X = centres[rng.integers(0, k, n)] + rng.normal(size=(n, p))
    # Features of different spread: WK-means and LW weigh them apart.
    X *= np.linspace(0.5, 3.0, p)
    return X.astype(dtype)


def start(X, k):
    return np.ascontiguousarray(X[:: max(1, len(X) // k)][:k], dtype=np.float64)


def close(a, b, rtol=RTOL):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=rtol, atol=0)


def same_fit(got, ref, rtol=RTOL, centres=True):
    assert got.n_iter_ == ref.n_iter_
    assert got.converged_ == ref.converged_
    close(got.objective_, ref.objective_, rtol)
    close(got.objective_trace_, ref.objective_trace_, rtol)
    if centres:
        close(got.cluster_centers_, ref.cluster_centers_, rtol)
        close(got.inertia_, ref.inertia_, rtol)
    np.testing.assert_array_equal(np.asarray(got.labels_.compute()), ref.labels_)


# ---------------------------------------------------------------- wkmeans


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
def test_wkmeans_equals_in_memory(chunks):
    X = blobs()
    c0 = start(X, 4)
    ref = meanscape.WKMeans(4, init=c0, tol=1e-12).fit(X)
    got = mdask.WKMeans(4, init=c0, tol=1e-12).fit(da.from_array(X, chunks=(CHUNKINGS[chunks], 5)))
    same_fit(got, ref)
    assert ref.n_iter_ > 1
    close(got.feature_weights_, ref.feature_weights_)
    np.testing.assert_array_equal(got.selected_features_, ref.selected_features_)
    assert {n: ref.params_[n] for n in got.params_} == got.params_
    # predict: the fitted weighted distance, the fit's own labels on X.
    np.testing.assert_array_equal(got.predict(X[:50]).compute(), ref.predict(X[:50]))


def test_wkmeans_with_weights_f32_and_a_dataframe():
    X = blobs(seed=3)
    w = np.random.default_rng(2).uniform(0.1, 3.0, len(X))
    c0 = start(X, 4)
    ref = meanscape.WKMeans(4, init=c0, tol=1e-12).fit(X, sample_weight=w)
    got = mdask.WKMeans(4, init=c0, tol=1e-12).fit(
        da.from_array(X, chunks=((200, 1, 399), 5)), sample_weight=da.from_array(w, chunks=150)
    )
    same_fit(got, ref)
    close(got.feature_weights_, ref.feature_weights_)

    X32 = X.astype(np.float32)
    c32 = start(X32, 4)
    ref = meanscape.WKMeans(4, init=c32, tol=1e-12).fit(X32)
    got = mdask.WKMeans(4, init=c32, tol=1e-12).fit(da.from_array(X32, chunks=((300, 300), 5)))
    assert got.cluster_centers_.dtype == np.float32
    # inertia_ in memory is computed in float32 on float32 X.
    same_fit(got, ref, centres=False)
    close(got.cluster_centers_, ref.cluster_centers_, 1e-6)
    close(got.feature_weights_, ref.feature_weights_)

    pd = pytest.importorskip("pandas")
    df = dd.from_pandas(pd.DataFrame(X, columns=list("abcde")), npartitions=3)
    got = mdask.WKMeans(4, init=c0, tol=1e-12).fit(df)
    ref = meanscape.WKMeans(4, init=c0, tol=1e-12).fit(X)
    same_fit(got, ref)
    assert list(got.feature_names_in_) == list("abcde")


def test_wkmeans_refuses_a_bad_beta_before_reading_the_data():
    X = da.from_array(blobs(), chunks=(100, 5))
    with pytest.raises(ValueError, match="beta"):
        mdask.WKMeans(4, beta=1.0).fit(X)


# ---------------------------------------------------------------- lw


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
def test_lw_equals_in_memory(chunks):
    X = blobs(seed=4)
    c0 = start(X, 4)
    # λ below λ_max (which drops every feature) by a margin: some go.
    lmax = meanscape.LWKMeans(4, init=c0).fit(X).extras_["lambda_max"]
    kw = dict(lam=0.5 * lmax, tol=1e-12)
    ref = meanscape.LWKMeans(4, init=c0, **kw).fit(X)
    got = mdask.LWKMeans(4, init=c0, **kw).fit(da.from_array(X, chunks=(CHUNKINGS[chunks], 5)))
    same_fit(got, ref)
    close(got.feature_weights_, ref.feature_weights_)
    np.testing.assert_array_equal(got.selected_features_, ref.selected_features_)
    assert 0 < len(ref.selected_features_) < 5
    close(got.extras_["alpha"], ref.extras_["alpha"])
    close(got.extras_["lambda_max"], ref.extras_["lambda_max"])
    np.testing.assert_array_equal(got.predict(X[:50]).compute(), ref.predict(X[:50]))


def test_lw_with_weights_code_assign_and_without_zscores():
    X = blobs(seed=5)
    w = np.random.default_rng(3).uniform(0.1, 3.0, len(X))
    c0 = start(X, 4)
    for kw in (dict(lam=0.05, code_assign=1), dict(lam=0.2, zscore=0)):
        ref = meanscape.LWKMeans(4, init=c0, tol=1e-12, **kw).fit(X, sample_weight=w)
        got = mdask.LWKMeans(4, init=c0, tol=1e-12, **kw).fit(
            da.from_array(X, chunks=((250, 1, 349), 5)), sample_weight=w
        )
        same_fit(got, ref)
        close(got.feature_weights_, ref.feature_weights_)


def test_lw_moves_an_empty_cluster_of_its_initial_kmeans_as_in_memory():
    X = blobs(seed=6)
    c0 = start(X, 4)
    c0[3] = 1e6
    ref = meanscape.LWKMeans(4, init=c0, lam=0.01, tol=1e-12).fit(X)
    got = mdask.LWKMeans(4, init=c0, lam=0.01, tol=1e-12).fit(da.from_array(X, chunks=((200, 1, 399), 5)))
    same_fit(got, ref)
    assert len(np.unique(ref.labels_)) == 4
    close(got.feature_weights_, ref.feature_weights_)


# ---------------------------------------------------------------- rff-power


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
def test_rff_power_equals_in_memory(chunks):
    X = blobs(seed=7)
    kw = dict(rff_dim=64, init_iter=5, s0=-3.0, period=2, max_iter=40, random_state=3)
    ref = meanscape.RFFPowerKMeans(4, **kw).fit(X)
    got = mdask.RFFPowerKMeans(4, **kw).fit(da.from_array(X, chunks=(CHUNKINGS[chunks], 5)))
    same_fit(got, ref, centres=False)
    close(got.s_trace_, ref.s_trace_, 0)
    # σ: the KPK rule over every row, in two passes.
    close(got.params_["sigma"], ref.params_["sigma"], 1e-12)
    assert {n: ref.params_[n] for n in got.params_ if n != "sigma"} == {
        n: v for n, v in got.params_.items() if n != "sigma"
    }
    assert got.extras_["init_iterations"] == ref.extras_["init_iterations"] > 0
    assert not hasattr(got, "cluster_centers_")
    np.testing.assert_array_equal(got.predict(X[:50]).compute(), ref.predict(X[:50]))


def test_rff_power_weights_f32_auto_dim_and_a_dataframe():
    X = blobs(seed=8)
    w = np.random.default_rng(4).uniform(0.1, 3.0, len(X))
    kw = dict(sigma=4.0, rff_dim=32, init_iter=3, max_iter=30, random_state=1)
    ref = meanscape.RFFPowerKMeans(4, **kw).fit(X, sample_weight=w)
    got = mdask.RFFPowerKMeans(4, **kw).fit(da.from_array(X, chunks=((1, 299, 300), 5)), sample_weight=w)
    same_fit(got, ref, centres=False)

    # float32: features stored in float32 (rff_f32 automatic), as in memory.
    X32 = X.astype(np.float32)
    kw = dict(rff_dim=32, init_iter=0, max_iter=30, random_state=2)
    ref = meanscape.RFFPowerKMeans(4, **kw).fit(X32)
    got = mdask.RFFPowerKMeans(4, **kw).fit(da.from_array(X32, chunks=((100, 500), 5)))
    assert got.params_["rff_f32"] == ref.params_["rff_f32"] == 1.0
    same_fit(got, ref, rtol=1e-7, centres=False)

    # rff_dim automatic: the engine's rule on the sample (here every row).
    pd = pytest.importorskip("pandas")
    df = dd.from_pandas(pd.DataFrame(X[:300]), npartitions=2)
    kw = dict(init_iter=2, max_iter=10, random_state=0)
    ref = meanscape.RFFPowerKMeans(3, **kw).fit(X[:300])
    got = mdask.RFFPowerKMeans(3, **kw).fit(df)
    assert got.params_["rff_dim"] == ref.params_["rff_dim"]
    same_fit(got, ref, centres=False)


# ---------------------------------------------------------------- a cluster


def _fit_on_local_cluster(out):
    from distributed import Client, LocalCluster

    X = blobs(n=1500, seed=9)
    c0 = start(X, 4)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            Xd = da.from_array(X, chunks=(400, 5))
            lw = mdask.LWKMeans(4, init=c0, lam=0.01, max_iter=30).fit(Xd)
            out["lw"] = (lw.cluster_centers_, lw.feature_weights_, lw.labels_.compute(), lw.n_iter_)
            rff = mdask.RFFPowerKMeans(4, rff_dim=32, init_iter=3, max_iter=20, random_state=0).fit(Xd)
            out["rff"] = (rff.objective_trace_, rff.labels_.compute(), rff.n_iter_)


def test_local_cluster_two_processes(bounded):
    """LW-k-means (labels persisted on the workers between passes, the
    z-scores) and rff-power (the map in the workers) on a two-process
    LocalCluster: the in-memory results, within a bounded time."""
    pytest.importorskip("distributed")
    out = bounded(_fit_on_local_cluster, seconds=240, what="the LocalCluster fits")
    X = blobs(n=1500, seed=9)
    ref = meanscape.LWKMeans(4, init=start(X, 4), lam=0.01, max_iter=30).fit(X)
    centres, weights, labels, n_iter = out["lw"]
    assert n_iter == ref.n_iter_
    close(centres, ref.cluster_centers_)
    close(weights, ref.feature_weights_)
    np.testing.assert_array_equal(labels, ref.labels_)
    ref = meanscape.RFFPowerKMeans(4, rff_dim=32, init_iter=3, max_iter=20, random_state=0).fit(X)
    trace, labels, n_iter = out["rff"]
    assert n_iter == ref.n_iter_
    close(trace, ref.objective_trace_)
    np.testing.assert_array_equal(labels, ref.labels_)


def test_the_block_steps_refuse_misuse():
    from meanscape import _meanscape

    x, c = np.zeros((3, 2)), np.zeros((2, 2))
    with pytest.raises(ValueError, match="multipliers"):
        _meanscape.weighted_block(x, c, multipliers=np.ones(3))
    with pytest.raises(ValueError, match="labels"):
        _meanscape.weighted_block(x, c, labels=np.array([0, 2, 0]))
    with pytest.raises(ValueError, match="labels"):
        _meanscape.dispersion_block(x, np.zeros(2, dtype=np.int64), c)
    with pytest.raises(ValueError, match="positive bandwidth"):
        _meanscape.rff_frequencies(2, 0.0, 8, 0)
    with pytest.raises(ValueError, match="frequencies"):
        _meanscape.rff_map(x, np.zeros((3, 8)))
    with pytest.raises(ValueError, match="must be negative"):
        _meanscape.power_block(x, c, float("nan"))
    # s = −∞ (rff-power's k-means start) is the hard limit: one-hot weights.
    st = _meanscape.power_block(np.eye(2), np.eye(2), -np.inf)
    assert st["counts"].tolist() == [1, 1] and st["softness"] == 0.0
    assert _meanscape.rff_sigma(0.0, 10) == 1.0 and _meanscape.rff_sigma(5.0, 1) == 1.0
    assert _meanscape.lw_alpha([0.0, 0.0], 4.0) is None
