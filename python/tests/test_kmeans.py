"""meanscape.KMeans and the engine inputs behind it: sample weights, given
centres, float types; and the same inputs in the generated estimators
whose algorithm takes them (scikit-learn's own KMeans tests are in
test_sklearn_kmeans_suite.py)."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import meanscape
from meanscape import _meanscape

# The estimators with centres in the input space that take weights and
# initial centres (the engine's kmeans, power and khm).
WEIGHTED = ["KMeans", "PowerKMeans", "KHarmonicMeans"]


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=120, centers=[[0, 0], [6, 0], [0, 6]], cluster_std=1.0, random_state=3)
    means = np.array([X[y == c].mean(axis=0) for c in range(3)])
    return X, y, means


def _est(name, init, **kw):
    return getattr(meanscape, name)(n_clusters=3, init=init, n_init=1, random_state=0, **kw)


@pytest.mark.parametrize("name", WEIGHTED)
def test_integer_weights_equal_repeated_rows(name, blobs):
    X, _, means = blobs
    # Centres off the blob means, so the run has to move them.
    init = means + np.array([[0.5, -0.3], [-0.4, 0.2], [0.3, 0.6]])
    w = np.random.RandomState(0).randint(1, 5, size=X.shape[0])
    weighted = _est(name, init).fit(X, sample_weight=w)
    repeated = _est(name, init).fit(np.repeat(X, w, axis=0))
    np.testing.assert_array_equal(np.repeat(weighted.labels_, w), repeated.labels_)
    np.testing.assert_allclose(weighted.cluster_centers_, repeated.cluster_centers_, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(weighted.inertia_, repeated.inertia_, rtol=1e-9)


@pytest.mark.parametrize("name", WEIGHTED)
def test_zero_weights_equal_removed_rows(name, blobs):
    X, _, means = blobs
    init = means + 0.4
    w = np.ones(X.shape[0])
    w[::3] = 0.0
    kept = w > 0
    weighted = _est(name, init).fit(X, sample_weight=w)
    removed = _est(name, init).fit(X[kept])
    np.testing.assert_array_equal(weighted.labels_[kept], removed.labels_)
    np.testing.assert_allclose(weighted.cluster_centers_, removed.cluster_centers_, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(weighted.inertia_, removed.inertia_, rtol=1e-9)


@pytest.mark.parametrize("name", WEIGHTED)
def test_init_array_is_used_as_given(name, blobs):
    X, y, means = blobs
    # Given in a permuted order, the centres name the clusters: seeding
    # would not reproduce this permutation.
    order = [2, 0, 1]
    given = means[order].copy()
    before = given.copy()
    est = _est(name, given).fit(X)
    np.testing.assert_array_equal(est.labels_, np.argsort(order)[y])
    np.testing.assert_array_equal(given, before)
    assert not np.may_share_memory(est.cluster_centers_, given)


def test_kmeans_from_its_fixed_point_stays_there(blobs):
    X, y, means = blobs
    km = meanscape.KMeans(n_clusters=3, init=means, n_init=1, max_iter=1).fit(X)
    np.testing.assert_allclose(km.cluster_centers_, means, rtol=1e-12)
    np.testing.assert_array_equal(km.labels_, y)
    assert km.n_iter_ == 1


def test_float32_stays_float32_and_ints_become_float64(blobs):
    X, _, _ = blobs
    km = meanscape.KMeans(n_clusters=3, random_state=0).fit(X.astype(np.float32))
    assert km.cluster_centers_.dtype == np.float32
    assert km.transform(X.astype(np.float32)).dtype == np.float32
    km64 = meanscape.KMeans(n_clusters=3, random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, km64.labels_)
    np.testing.assert_allclose(km.cluster_centers_, km64.cluster_centers_, rtol=1e-5)
    kmi = meanscape.KMeans(n_clusters=3, random_state=0).fit(np.rint(X * 10).astype(np.int64))
    assert kmi.cluster_centers_.dtype == np.float64


def test_score_is_minus_the_weighted_inertia(blobs):
    X, _, _ = blobs
    w = np.random.RandomState(1).uniform(0.5, 2.0, size=X.shape[0])
    km = meanscape.KMeans(n_clusters=3, random_state=0).fit(X, sample_weight=w)
    np.testing.assert_allclose(km.score(X, sample_weight=w), -km.inertia_, rtol=1e-10)
    d = km.transform(X).min(axis=1) ** 2
    np.testing.assert_allclose(km.score(X), -d.sum(), rtol=1e-10)


def test_values_outside_the_engines_range_are_scaled_back(blobs):
    # The engine multiplies such rows by a power of two: the centres it is
    # given and the results it returns must be scaled with them.
    X, _, means = blobs
    big = 2.0**80
    km = meanscape.KMeans(n_clusters=3, init=means + 0.4, n_init=1).fit(X)
    kmb = meanscape.KMeans(n_clusters=3, init=(means + 0.4) * big, n_init=1).fit(X * big)
    np.testing.assert_array_equal(km.labels_, kmb.labels_)
    np.testing.assert_allclose(kmb.cluster_centers_, km.cluster_centers_ * big, rtol=1e-12)
    np.testing.assert_allclose(kmb.inertia_, km.inertia_ * big * big, rtol=1e-12)
    np.testing.assert_allclose(kmb.transform(X * big), km.transform(X) * big, rtol=1e-9)


@pytest.mark.parametrize("name", ["PowerKMeans", "KHarmonicMeans"])
def test_estimator_centres_are_in_the_inputs_units(name, blobs):
    # Regression: the engine's rows were X times 2^-e and the centres came
    # back in those units.
    X, _, means = blobs
    big = 2.0**80
    a = _est(name, means + 0.4).fit(X)
    b = _est(name, (means + 0.4) * big).fit(X * big)
    np.testing.assert_allclose(b.cluster_centers_, a.cluster_centers_ * big, rtol=1e-9)
    np.testing.assert_allclose(b.inertia_, a.inertia_ * big * big, rtol=1e-9)
    np.testing.assert_allclose(b.transform(X * big), a.transform(X) * big, rtol=1e-9)


def test_k_means_function_is_the_estimator(blobs):
    X, _, _ = blobs
    centres, labels, inertia, n_iter = meanscape.k_means(X, 3, random_state=0, return_n_iter=True)
    km = meanscape.KMeans(n_clusters=3, random_state=0).fit(X)
    np.testing.assert_array_equal(labels, km.labels_)
    np.testing.assert_array_equal(centres, km.cluster_centers_)
    assert (inertia, n_iter) == (km.inertia_, km.n_iter_)


def test_weights_are_refused_where_the_algorithm_has_none(blobs):
    X, _, _ = blobs
    # (Unit weights are no weights, so these are not all 1.)
    w = np.linspace(0.5, 2.0, X.shape[0])
    with pytest.raises(ValueError, match=r"dmkkm does not take sample weights \(its objective .* pairs of points, not over points\); kmeans"):
        _meanscape.fit("dmkkm", X, 3, [], [], 0, sample_weight=w)
    # And the estimator has no such parameter (has_fit_parameter is False).
    with pytest.raises(TypeError, match="sample_weight"):
        meanscape.MKKM(n_clusters=3).fit(X, sample_weight=w)


def test_centres_are_refused_where_the_algorithm_has_none(blobs):
    X, _, means = blobs
    with pytest.raises(ValueError, match="kernel-kmeans does not start from given centres; kmeans"):
        _meanscape.fit("kernel-kmeans", X, 3, [], [], 0, centres=means)
    with pytest.raises(ValueError, match="does not start from given centres"):
        meanscape.KernelPowerKMeans(n_clusters=3, init=means).fit(X)


@pytest.mark.parametrize("w", [[-1.0], [np.nan], [0.0]])
def test_bad_weights_are_refused_with_a_reason(w, blobs):
    X, _, _ = blobs
    weights = np.ones(X.shape[0])
    weights[0] = w[0]
    if w[0] == 0.0:
        weights[:] = 0.0
    with pytest.raises(ValueError, match="weight"):
        meanscape.KMeans(n_clusters=3).fit(X, sample_weight=weights)


@pytest.mark.parametrize("name", ["PowerKMeans", "KHarmonicMeans"])
def test_centroid_estimators_score_and_take_auto_n_init(name):
    # score is minus the (weighted) k-means cost of X on the centres, as
    # KMeans'; n_init='auto' is one start for k-means++, ten for random.
    X = np.random.default_rng(5).random((90, 4))
    w = np.arange(90) % 3 + 1.0
    est = getattr(meanscape, name)
    fit = est(n_clusters=3, random_state=0, n_init="auto").fit(X, sample_weight=w)
    assert fit.score(X, sample_weight=w) == pytest.approx(-fit.inertia_, rel=1e-9)
    d = ((X[:, None, :] - fit.cluster_centers_[None]) ** 2).sum(-1).min(1)
    assert fit.score(X) == pytest.approx(-d.sum(), rel=1e-9)
    many = est(n_clusters=3, random_state=0, n_init="auto", init="random").fit(X)
    one = est(n_clusters=3, random_state=0, n_init=1, init="random").fit(X)
    ten = est(n_clusters=3, random_state=0, n_init=10, init="random").fit(X)
    assert many.objective_ == ten.objective_
    assert many.objective_ <= one.objective_
    # Given centres with 'auto': one start from them, no warning.
    given = est(n_clusters=3, init=fit.cluster_centers_, n_init="auto").fit(X)
    assert given.n_iter_ >= 1 and np.isfinite(given.inertia_)
