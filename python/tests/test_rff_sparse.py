"""The RFF estimators on scipy.sparse X (issue 25): the engine builds the
random feature map per nonzero, so fit, predict and transform on a sparse
matrix equal those on its dense copy (same random_state). That memory stays
∝ nonzeros is not tested here (the Rust tests count it)."""

import numpy as np
import pytest
import scipy.sparse as sp

import meanscape
from meanscape import _meanscape as m

RFF = [
    (meanscape.RFFPowerKMeans, {}),
    (meanscape.RFFMultiViewPowerKMeans, {}),
    (meanscape.RFFMultiViewPowerKMeans, {"views": "1-10,11-20,21-30"}),
    (meanscape.IPRFFMultiViewPowerKMeans, {}),
]


def counts(n=240, p=30, seed=0):
    """Sparse nonnegative counts in three groups of columns (row i mostly
    in group i % 3), as CSR."""
    rng = np.random.default_rng(seed)
    own = (np.arange(p)[None, :] * 3 // p) == (np.arange(n)[:, None] % 3)
    rate = np.where(own, 0.6, 0.08)
    X = np.where(rng.random((n, p)) < rate, rng.integers(1, 5, (n, p)), 0).astype(np.float64)
    return sp.csr_matrix(X), np.arange(n) % 3


def test_the_rff_estimators_take_sparse_input():
    takes = {a["id"] for a in __import__("json").loads(m.algorithms()) if a["takes_sparse"]}
    assert {"rff-power", "rff-mkpower", "ip-rff-mkpower"} <= takes
    for cls, _ in RFF:
        assert cls().__sklearn_tags__().input_tags.sparse


@pytest.mark.parametrize("cls,kw", RFF)
def test_fit_predict_transform_on_sparse_equal_dense(cls, kw):
    X, y = counts()
    dense = X.toarray()
    a = cls(n_clusters=3, random_state=4, rff_dim=64, **kw).fit(X)
    b = cls(n_clusters=3, random_state=4, rff_dim=64, **kw).fit(dense)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-9)
    assert a.params_["sigma"] == pytest.approx(b.params_["sigma"], rel=1e-12)
    Y, _ = counts(n=60, seed=7)
    for model in (a, b):
        np.testing.assert_array_equal(model.predict(Y), b.predict(Y.toarray()))
        np.testing.assert_allclose(model.transform(Y), b.transform(Y.toarray()), rtol=1e-9, atol=1e-12)
    # The training rows too (by cluster means, as the dense model); CSC is
    # read as CSR.
    np.testing.assert_array_equal(a.predict(X), b.predict(dense))
    np.testing.assert_allclose(a.transform(X.tocsc()), a.transform(dense), rtol=1e-12, atol=1e-14)


def test_sample_weights_on_sparse_equal_dense():
    X, _ = counts(seed=2)
    w = 0.5 + (np.arange(X.shape[0]) % 4)
    a = meanscape.RFFPowerKMeans(n_clusters=3, random_state=1, rff_dim=64).fit(X, sample_weight=w)
    b = meanscape.RFFPowerKMeans(n_clusters=3, random_state=1, rff_dim=64).fit(X.toarray(), sample_weight=w)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_float32_sparse_is_the_float64_fit():
    X, _ = counts(seed=3)
    a = meanscape.RFFPowerKMeans(n_clusters=3, random_state=0, rff_dim=64).fit(X.astype(np.float32))
    b = meanscape.RFFPowerKMeans(n_clusters=3, random_state=0, rff_dim=64).fit(X.toarray())
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.transform(X).shape == (X.shape[0], 3)
