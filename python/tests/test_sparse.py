"""`_meanscape.fit_csr`: kmeans on scipy.sparse CSR arrays without
densifying, equal to `fit` on the dense rows; malformed arrays and the
algorithms that need dense rows are refused with a ValueError."""

import numpy as np
import pytest
import scipy.sparse as sp

import meanscape
from meanscape import _meanscape as m


def csr(n=300, p=40, density=0.1, seed=1):
    return sp.random(n, p, density=density, format="csr", random_state=seed)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("value_dtype", [np.float64, np.float32])
def test_fit_csr_is_fit_on_the_dense_rows(index_dtype, value_dtype):
    X = csr()
    X.data = X.data.astype(value_dtype)
    dense = X.toarray().astype(np.float64)
    a = m.fit_csr("kmeans", X.indptr.astype(index_dtype), X.indices.astype(index_dtype),
                  X.data, X.shape, 4, [], [], 3, 2, "k-means++")
    b = m.fit("kmeans", dense, 4, [], [], 3, 2, "k-means++")
    np.testing.assert_array_equal(a["labels"], b["labels"])
    assert a["n_iter"] == b["n_iter"]
    np.testing.assert_allclose(a["centroids"], b["centroids"], rtol=1e-12, atol=1e-14)
    assert a["objective"] == pytest.approx(b["objective"], rel=1e-12)
    np.testing.assert_array_equal(a["model"].predict(dense), a["labels"])
    np.testing.assert_array_equal(
        m.predict_csr(a["model"], X.indptr, X.indices, X.data, X.shape), a["labels"])
    Y = csr(n=50, seed=9)
    np.testing.assert_array_equal(
        m.predict_csr(a["model"], Y.indptr, Y.indices, Y.data, Y.shape),
        a["model"].predict(Y.toarray()))
    with pytest.raises(ValueError):
        m.predict_csr(a["model"], Y.indptr, Y.indices, Y.data, (50, 41))


def test_predict_csr_scales_as_the_fit_did():
    # Values far outside the solvers' range are scaled by a power of two
    # at the fit; new rows must get the fit's power, not their own.
    X = csr(seed=3)
    X.data = X.data * 1e200
    a = m.fit_csr("kmeans", X.indptr, X.indices, X.data, X.shape, 3, [], [], 0)
    assert a["rescale_exp"] != 0
    Y = X[:20] * 1e-3
    Y.sort_indices()
    got = m.predict_csr(a["model"], Y.indptr, Y.indices, Y.data, Y.shape)
    np.testing.assert_array_equal(got, a["model"].predict(Y.toarray()))


def test_unsorted_indices_and_duplicates_are_read_as_scipy_does():
    # Row 0 holds (col 2: 1.0), (col 0: 2.0), (col 2: 0.5): scipy sums them.
    indptr = np.array([0, 3, 4, 5, 6], dtype=np.int32)
    indices = np.array([2, 0, 2, 1, 1, 0], dtype=np.int32)
    data = np.array([1.0, 2.0, 0.5, 3.0, 3.1, 2.1])
    X = sp.csr_matrix((data, indices, indptr), shape=(4, 3))
    a = m.fit_csr("kmeans", indptr, indices, data, (4, 3), 2, [], [], 0)
    b = m.fit("kmeans", X.toarray(), 2, [], [], 0)
    np.testing.assert_array_equal(a["labels"], b["labels"])


def test_bad_input_is_refused_in_one_line():
    X = csr()
    cases = [
        (("wkmeans", X.indptr, X.indices, X.data, X.shape), ValueError, "wkmeans needs dense rows; sparse input runs with kmeans, khm, power, rff-power, rff-mkpower or ip-rff-mkpower"),
        (("kmeans", X.indptr[:-1], X.indices, X.data, X.shape), ValueError, "indptr has 300 entries"),
        (("kmeans", X.indptr, X.indices, X.data, (300, 5)), ValueError, "out of range for 5 columns"),
        (("kmeans", X.indptr, -X.indices - 1, X.data, X.shape), ValueError, "negative"),
        (("kmeans", X.indptr, X.indices.astype(float), X.data, X.shape), TypeError, "int32 or int64"),
        (("kmeans", X.indptr, X.indices, np.where(X.data > 0.5, np.nan, X.data), X.shape), ValueError, "NaN"),
    ]
    for args, kind, text in cases:
        with pytest.raises(kind, match=text):
            m.fit_csr(*args, 4, [], [], 0)
    with pytest.raises(ValueError, match="299 sample weights for 300 rows"):
        m.fit_csr("kmeans", X.indptr, X.indices, X.data, X.shape, 4, [], [], 0, sample_weight=np.ones(299))
    with pytest.raises(ValueError, match="initial centres are 2 × 40"):
        m.fit_csr("kmeans", X.indptr, X.indices, X.data, X.shape, 4, [], [], 0, centres=np.zeros((2, 40)))


# power at s0 = -3: at the default -1 the centres nearly merge on this data
# and the annealing amplifies the rounding of the two sums.
@pytest.mark.parametrize("algorithm,params", [("kmeans", []), ("power", [("s0", -3.0)]), ("khm", [])])
def test_sample_weight_and_centres_on_csr(algorithm, params):
    X = csr(seed=5)
    w = np.tile([0.0, 1.0, 2.5], 100)
    c = X[[0, 4, 7]].toarray()
    # Integer weights are repeated rows; the weighted sparse fit from given
    # centres is the fit on the rows repeated (zero weight: row dropped).
    reps = np.repeat(np.arange(300), np.tile([0, 1, 2], 100))
    Xr = X[reps]
    wi = np.tile([0.0, 1.0, 2.0], 100)
    a = m.fit_csr(algorithm, X.indptr, X.indices, X.data, X.shape, 3, params, [], 0,
                  sample_weight=wi, centres=c)
    b = m.fit_csr(algorithm, Xr.indptr, Xr.indices, Xr.data, Xr.shape, 3, params, [], 0, centres=c)
    np.testing.assert_array_equal(a["labels"][reps], b["labels"])
    np.testing.assert_allclose(a["centroids"], b["centroids"], rtol=1e-9, atol=1e-12)
    d = m.fit_csr(algorithm, X.indptr, X.indices, X.data, X.shape, 3, params, [], 0, sample_weight=w)
    assert d["labels"].shape == (300,)


@pytest.mark.parametrize("cls", ["PowerKMeans", "KHarmonicMeans"])
def test_power_and_khm_estimators_read_csr_as_dense(cls):
    # The estimators of the algorithms whose engine reads CSR take sparse X:
    # the same fit as on the dense rows, predict and transform on CSR too.
    rng = np.random.default_rng(3)
    dense = rng.random((150, 40)) * (rng.random((150, 40)) < 0.2)
    dense[np.arange(150) % 3 == 0, :5] += 2.0
    csr = sp.csr_matrix(dense)
    # s0 = -3: at -1 power's centres nearly merge on this data, and two runs
    # that differ by rounding alone part differently (as test_sample_weight_and_centres_on_csr).
    kw = {"s0": -3.0} if cls == "PowerKMeans" else {}
    est = getattr(meanscape, cls)
    a = est(n_clusters=3, random_state=0, **kw).fit(csr)
    b = est(n_clusters=3, random_state=0, **kw).fit(dense)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_allclose(a.cluster_centers_, b.cluster_centers_, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(a.inertia_, b.inertia_, rtol=1e-9)
    np.testing.assert_array_equal(a.predict(csr), b.predict(dense))
    np.testing.assert_allclose(a.transform(csr), b.transform(dense), rtol=1e-6, atol=1e-9)


def test_estimators_without_sparse_rows_refuse_csr():
    csr = sp.csr_matrix(np.eye(12))
    with pytest.raises(TypeError, match="[Ss]parse"):
        meanscape.WKMeans(n_clusters=2, random_state=0).fit(csr)
