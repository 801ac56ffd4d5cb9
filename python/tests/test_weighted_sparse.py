"""The feature-weighted estimators (WKMeans, LWKMeans, SparseKMeans) on
scipy.sparse CSR input: the engine reads the nonzeros, and the fit, predict
and transform are those of the same rows given dense. LWKMeans and
SparseKMeans also start from given centres (init=array)."""

import numpy as np
import pytest
import scipy.sparse as sp

import meanscape


def data(n=210, p=30, seed=4):
    rng = np.random.default_rng(seed)
    dense = rng.random((n, p)) * (rng.random((n, p)) < 0.15)
    groups = np.arange(n) % 3
    for g in range(3):
        rows = groups == g
        dense[np.ix_(rows, range(4 * g, 4 * g + 4))] += 2.0 + rng.random((rows.sum(), 4))
    return dense, groups


ESTIMATORS = [
    ("WKMeans", {}),
    ("LWKMeans", {"lam": 0.02, "nstart": 5}),
    ("LWKMeans", {"lam": 0.02, "nstart": 5, "zscore": 0}),
    ("SparseKMeans", {"wbound": 3.0, "nstart": 5}),
]


@pytest.mark.parametrize("cls,kw", ESTIMATORS)
def test_fit_on_csr_is_the_fit_on_the_dense_rows(cls, kw):
    dense, _ = data()
    csr = sp.csr_matrix(dense)
    est = getattr(meanscape, cls)
    a = est(n_clusters=3, random_state=0, **kw).fit(csr)
    b = est(n_clusters=3, random_state=0, **kw).fit(dense)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_allclose(a.feature_weights_, b.feature_weights_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.cluster_centers_, b.cluster_centers_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.inertia_, b.inertia_, rtol=1e-9)
    new = data(n=40, seed=9)[0]
    np.testing.assert_array_equal(a.predict(sp.csr_matrix(new)), b.predict(new))
    np.testing.assert_allclose(a.transform(sp.csr_matrix(new)), b.transform(new), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cls,kw", ESTIMATORS[1:2] + ESTIMATORS[3:])
def test_given_centres_replace_the_initial_runs(cls, kw):
    dense, groups = data()
    centres = np.vstack([dense[groups == g].mean(axis=0) for g in range(3)])
    est = getattr(meanscape, cls)
    for X in (dense, sp.csr_matrix(dense)):
        a = est(n_clusters=3, init=centres, random_state=0, **kw).fit(X)
        b = est(n_clusters=3, init=centres, random_state=7, **kw).fit(X)
        # The seed no longer matters: every run starts from the centres.
        np.testing.assert_array_equal(a.labels_, b.labels_)
    with pytest.raises(ValueError, match=r"initial centers \(3, 5\)"):
        est(n_clusters=3, init=centres[:, :5], **kw).fit(dense)


def test_sample_weights_on_csr_are_repeated_rows():
    dense, _ = data(n=120)
    w = np.tile([0.0, 1.0, 2.0], 40)
    reps = np.repeat(np.arange(120), w.astype(int))
    csr = sp.csr_matrix(dense)
    c = dense[[1, 4, 8]]
    a = meanscape.WKMeans(n_clusters=3, init=c, random_state=0).fit(csr, sample_weight=w)
    b = meanscape.WKMeans(n_clusters=3, init=c, random_state=0).fit(csr[reps])
    np.testing.assert_array_equal(a.labels_[reps], b.labels_)
    np.testing.assert_allclose(a.feature_weights_, b.feature_weights_, rtol=1e-9)
