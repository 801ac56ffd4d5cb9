"""scikit-learn's KMeans parameters on the other estimators with centres in
the input space (algorithm, copy_x, verbose, a callable init), and inertia_
on the feature-weighted ones: what lets them drop in where KMeans was."""

import warnings

import numpy as np
import pytest

import meanscape

CENTRED = [meanscape.PowerKMeans, meanscape.KHarmonicMeans, meanscape.WKMeans, meanscape.LWKMeans, meanscape.SparseKMeans]


def blobs(seed=0):
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(c, 0.3, size=(40, 3)) for c in ([0, 0, 0], [4, 0, 0], [0, 4, 0])])


@pytest.mark.parametrize("Estimator", CENTRED)
def test_kmeans_parameters_are_taken_and_checked(Estimator):
    X = blobs()
    a = Estimator(n_clusters=3, random_state=0).fit(X)
    b = Estimator(n_clusters=3, random_state=0, algorithm="elkan", copy_x=False).fit(X)
    # Both Lloyd variants are exact: the same result, and X untouched.
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(X, blobs())
    with pytest.raises(ValueError, match="'algorithm' parameter"):
        Estimator(n_clusters=3, algorithm="full").fit(X)
    with pytest.raises(ValueError, match="'copy_x' parameter"):
        Estimator(n_clusters=3, copy_x="yes").fit(X)
    with pytest.warns(RuntimeWarning, match="doesn't make sense for a single cluster"):
        Estimator(n_clusters=1, algorithm="elkan").fit(X)


@pytest.mark.parametrize("Estimator", CENTRED)
def test_verbose_prints_the_objective_per_iteration(Estimator, capsys):
    est = Estimator(n_clusters=3, random_state=0, verbose=1).fit(blobs())
    out = capsys.readouterr().out
    assert "Initialization complete" in out
    assert out.count("Iteration ") == len(est.objective_trace_)
    assert f"after {est.n_iter_} iterations" in out
    Estimator(n_clusters=3, random_state=0).fit(blobs())
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("Estimator", [meanscape.PowerKMeans, meanscape.KHarmonicMeans, meanscape.WKMeans])
def test_a_callable_init_is_called_once_per_start(Estimator):
    X = blobs()
    calls = []

    def init(X, k, random_state):
        calls.append(k)
        return X[random_state.choice(len(X), k, replace=False)]

    est = Estimator(n_clusters=3, init=init, n_init=3, random_state=1).fit(X)
    assert calls == [3, 3, 3]
    assert est._n_init == 3
    # The kept start is the lowest objective of the three, each the run
    # from those centres.
    rs = np.random.RandomState(1)
    starts = [X[rs.choice(len(X), 3, replace=False)] for _ in range(3)]
    objectives = [Estimator(n_clusters=3, init=c, n_init=1).fit(X).objective_ for c in starts]
    assert est.objective_ == pytest.approx(min(objectives), rel=1e-12)
    auto = Estimator(n_clusters=3, init=init, n_init="auto").fit(X)
    assert auto._n_init == 10


@pytest.mark.parametrize("Estimator", [meanscape.WKMeans, meanscape.LWKMeans, meanscape.SparseKMeans])
def test_feature_weighted_inertia_is_the_unweighted_cost(Estimator):
    X = blobs(3)
    est = Estimator(n_clusters=3, random_state=0).fit(X)
    c = est.cluster_centers_[est.labels_]
    assert est.inertia_ == pytest.approx(float(((X - c) ** 2).sum()), rel=1e-9)


@pytest.mark.parametrize("Estimator", CENTRED)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_inertia_is_the_weighted_cost_of_the_labels(Estimator, dtype):
    X = blobs(4).astype(dtype)
    w = np.linspace(0.5, 2.0, X.shape[0])
    for weights in (None, w):
        est = Estimator(n_clusters=3, random_state=0).fit(X, sample_weight=weights)
        d = ((X.astype(np.float64) - est.cluster_centers_.astype(np.float64)[est.labels_]) ** 2).sum(axis=1)
        want = float(d.sum() if weights is None else d @ weights)
        assert est.inertia_ == pytest.approx(want, rel=1e-9)


def test_labelled_cost_refuses_labels_and_shapes_that_do_not_fit():
    from meanscape import _meanscape

    X = blobs()
    c = X[:3].copy()
    labels = np.zeros(X.shape[0], dtype=np.int64)
    assert _meanscape.labelled_cost(X, c, labels) == pytest.approx(float(((X - c[0]) ** 2).sum()), rel=1e-12)
    for bad in (labels[1:], np.full_like(labels, 3), np.full_like(labels, -1)):
        with pytest.raises(ValueError, match="label"):
            _meanscape.labelled_cost(X, c, bad)
    with pytest.raises(ValueError):
        _meanscape.labelled_cost(X, c[:, :2].copy(), labels)
    with pytest.raises(ValueError):
        _meanscape.labelled_cost(X, c, labels, np.ones(X.shape[0] - 1))


def test_fewer_distinct_clusters_than_k_warn_as_scikit_learn():
    # Ten rows on three points, four given centres: one cluster stays empty.
    X = np.repeat(np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]]), [4, 3, 3], axis=0)
    centres = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0], [50.0, 50.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", meanscape.MeanscapeWarning)
        with pytest.warns(Warning, match=r"Number of distinct clusters \(3\) found smaller than n_clusters \(4\)"):
            meanscape.WKMeans(n_clusters=4, init=centres).fit(X)
