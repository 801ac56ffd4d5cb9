"""meanscape.spark's RFFPowerKMeans, WKMeans and LWKMeans = the in-memory
estimators: objective and its trace, centres, feature weights and the
labels (through transform) to 1e-9 relative, over uneven partitions with
an empty one and ones smaller than k. WK-means and LW-k-means start from
the same given centres; rff-power from the same k-means++ seeds (the
sample is the whole data, as in memory). The Spark session (local[2]) and
the bounded runner are test_spark.py's."""

import numpy as np
import pytest

from test_spark import bounded, frame, spark  # noqa: F401 - the shared session fixture

import meanscape
from meanscape import spark as mspark

RTOL = 1e-9

# Uneven partitions: an empty one and one smaller than k = 4.
UNEVEN = (250, 0, 3, 347)


def blobs(n=600, p=5, k=4, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=4.0, size=(k, p))
    X = centres[rng.integers(0, k, n)] + rng.normal(size=(n, p))
    # Features of different spread: WK-means and LW weigh them apart.
    return X * np.linspace(0.5, 3.0, p)


def start(X, k):
    return np.ascontiguousarray(X[:: max(1, len(X) // k)][:k], dtype=np.float64)


def close(a, b, rtol=RTOL):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=rtol, atol=0)


def predictions(model, df):
    col = model.predictionCol
    return np.array([r[col] for r in model.transform(df).select(col).collect()])


def same_fit(got, ref, centres=True, skip=()):
    assert got.n_iter_ == ref.n_iter_
    assert got.converged_ == ref.converged_
    close(got.objective_, ref.objective_)
    close(got.objective_trace_, ref.objective_trace_)
    if centres:
        close(got.cluster_centers_, ref.cluster_centers_)
        close(got.inertia_, ref.inertia_)
    assert {n: ref.params_[n] for n in got.params_ if n not in skip} == {
        n: v for n, v in got.params_.items() if n not in skip
    }


def fit_and_predict(est, df):
    def run():
        m = est.fit(df)
        return m, predictions(m, df)

    return bounded(run)


def test_wkmeans_equals_in_memory(spark, monkeypatch):
    X = blobs()
    c0 = start(X, 4)
    df, cols = frame(spark, X, UNEVEN)
    ref = meanscape.WKMeans(4, init=c0, tol=1e-12).fit(X)
    # The cached RDDs after every assignment: the packed blocks and at
    # most two assignments' blocks with labels (the older ones released).
    cached, assign = [], mspark._SparkWeighted._assign

    def counted(self, *args, **kw):
        out = assign(self, *args, **kw)
        cached.append(spark.sparkContext._jsc.getPersistentRDDs().size())
        return out

    monkeypatch.setattr(mspark._SparkWeighted, "_assign", counted)
    got, lab = fit_and_predict(mspark.WKMeans(4, featuresCol=cols, init=c0, tol=1e-12), df)
    assert ref.n_iter_ > 1
    assert len(cached) >= ref.n_iter_ and max(cached) <= 3
    same_fit(got, ref)
    close(got.feature_weights_, ref.feature_weights_)
    np.testing.assert_array_equal(got.selected_features_, ref.selected_features_)
    # transform: the fitted weighted distance, here the fit's own labels.
    np.testing.assert_array_equal(lab, ref.predict(X))
    np.testing.assert_array_equal(lab, ref.labels_)
    # The cached blocks with labels, and the packed ones, are released.
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()


def test_wkmeans_with_weights(spark):
    X = blobs(seed=3)
    w = np.random.default_rng(2).uniform(0.1, 3.0, len(X))
    c0 = start(X, 4)
    df, _ = frame(spark, X, (200, 1, 399), w=w)
    from pyspark.sql import functions as F

    df = df.withColumn("arr", F.array(*[f"x{j}" for j in range(5)]))
    ref = meanscape.WKMeans(4, init=c0, tol=1e-12).fit(X, sample_weight=w)
    got, lab = fit_and_predict(mspark.WKMeans(4, featuresCol="arr", weightCol="w", init=c0, tol=1e-12), df)
    same_fit(got, ref)
    close(got.feature_weights_, ref.feature_weights_)
    np.testing.assert_array_equal(lab, ref.labels_)


def test_lw_equals_in_memory(spark):
    X = blobs(seed=4)
    c0 = start(X, 4)
    # λ below λ_max (which drops every feature) by a margin: some go.
    lmax = meanscape.LWKMeans(4, init=c0).fit(X).extras_["lambda_max"]
    kw = dict(lam=0.5 * lmax, tol=1e-12)
    df, cols = frame(spark, X, UNEVEN)
    ref = meanscape.LWKMeans(4, init=c0, **kw).fit(X)
    got, lab = fit_and_predict(mspark.LWKMeans(4, featuresCol=cols, init=c0, **kw), df)
    # nstart: 1 here; in memory 50, unused with given centres.
    same_fit(got, ref, skip=("nstart",))
    close(got.feature_weights_, ref.feature_weights_)
    np.testing.assert_array_equal(got.selected_features_, ref.selected_features_)
    assert 0 < len(ref.selected_features_) < 5
    close(got.extras_["alpha"], ref.extras_["alpha"])
    close(got.extras_["lambda_max"], ref.extras_["lambda_max"])
    np.testing.assert_array_equal(lab, ref.predict(X))
    np.testing.assert_array_equal(lab, ref.labels_)


def test_lw_weights_and_an_empty_cluster_of_its_initial_kmeans(spark):
    X = blobs(seed=6)
    w = np.random.default_rng(3).uniform(0.1, 3.0, len(X))
    c0 = start(X, 4)
    c0[3] = 1e6
    df, cols = frame(spark, X, (250, 1, 0, 349), w=w)
    kw = dict(lam=0.05, code_assign=1, tol=1e-12)
    ref = meanscape.LWKMeans(4, init=c0, **kw).fit(X, sample_weight=w)
    got = bounded(lambda: mspark.LWKMeans(4, featuresCol=cols, weightCol="w", init=c0, **kw).fit(df))
    assert len(np.unique(ref.labels_)) == 4
    same_fit(got, ref, skip=("nstart",))
    close(got.feature_weights_, ref.feature_weights_)


def test_rff_power_equals_in_memory(spark):
    X = blobs(seed=7)
    kw = dict(rff_dim=64, init_iter=5, s0=-3.0, period=2, max_iter=20, random_state=3)
    df, cols = frame(spark, X, UNEVEN)
    ref = meanscape.RFFPowerKMeans(4, **kw).fit(X)
    got, lab = fit_and_predict(mspark.RFFPowerKMeans(4, featuresCol=cols, **kw), df)
    # σ: the KPK rule over every row, in two passes (sums in another order).
    same_fit(got, ref, centres=False, skip=("sigma",))
    close(got.params_["sigma"], ref.params_["sigma"], 1e-12)
    close(got.s_trace_, ref.s_trace_, 0)
    assert got.extras_["init_iterations"] == ref.extras_["init_iterations"] > 0
    assert got.cluster_centers_ is None
    # transform maps the rows and takes the nearest feature centre: the
    # fit's labels (as meanscape.dask's labels_).
    np.testing.assert_array_equal(lab, ref.labels_)


def test_rff_power_auto_sigma_and_dim_with_weights(spark):
    X = blobs(n=300, seed=8)
    w = np.random.default_rng(4).uniform(0.1, 3.0, len(X))
    kw = dict(init_iter=2, max_iter=10, random_state=0)
    df, cols = frame(spark, X, (1, 0, 150, 149), w=w)
    ref = meanscape.RFFPowerKMeans(3, **kw).fit(X, sample_weight=w)
    got = bounded(lambda: mspark.RFFPowerKMeans(3, featuresCol=cols, weightCol="w", **kw).fit(df))
    # σ: the KPK rule over every row (two passes); D: the engine's rule.
    close(got.params_["sigma"], ref.params_["sigma"], 1e-12)
    assert got.params_["rff_dim"] == ref.params_["rff_dim"]
    assert got.n_iter_ == ref.n_iter_
    close(got.objective_trace_, ref.objective_trace_)


def test_refusals(spark):
    X = blobs(n=20)
    df, cols = frame(spark, X, (10, 10))
    with pytest.raises(ValueError, match="nstart=50 is not offered"):
        mspark.LWKMeans(2, featuresCol=cols, nstart=50).fit(df)
    with pytest.raises(ValueError, match="beta"):
        mspark.WKMeans(2, featuresCol=cols, beta=1.0).fit(df)
    with pytest.raises(ValueError, match="beta"):
        mspark.LWKMeans(2, featuresCol=cols, beta=0.5).fit(df)
