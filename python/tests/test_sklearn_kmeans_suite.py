"""scikit-learn's own KMeans tests, run against ``meanscape.KMeans``.

The installed scikit-learn's ``sklearn/cluster/tests/test_k_means.py`` is
loaded as a module of its own (not the one scikit-learn's test run
imports) while ``sklearn.cluster.KMeans`` and ``k_means`` name meanscape's,
so every reference in it is meanscape's: the module global ``KMeans`` the
test bodies read, and the class objects its parametrize lists were built
with (``[KMeans, MiniBatchKMeans]``). The names are restored at once. The
test functions are re-exported here for pytest to collect.

What is not run is deselected by ``suite_deselect`` (conftest.py's
``pytest_collection_modifyitems``), each with its reason: the MiniBatch
tests, the tests that call scikit-learn's private helpers (named with the
helper), and at most the four scikit-learn-intelex deselects.

``MEANSCAPE_SUITE_ESTIMATOR=PowerKMeans`` runs the same file against another
estimator (tools/sklearn_suite_table.py prints the table); only
``meanscape.KMeans`` is held to 0 failures.
"""

import importlib.util
import os

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.cluster
from sklearn.cluster import MiniBatchKMeans

import meanscape

ESTIMATOR = getattr(meanscape, os.environ.get("MEANSCAPE_SUITE_ESTIMATOR", "KMeans"))

# The one switch for sparse input: whether the engine reads CSR (h-csr).
ENGINE_CSR = hasattr(meanscape._meanscape, "fit_csr")
SPARSE_XFAIL = pytest.mark.xfail(strict=True, reason="sparse input: engine CSR (h-csr)")

# Tests that call scikit-learn's private helpers: they test scikit-learn's
# internals, not the estimator.
PRIVATE = {
    "test_relocate_empty_clusters": "calls _relocate_empty_clusters_dense/_sparse (sklearn.cluster._k_means_common)",
    "test_euclidean_distance": "calls _euclidean_dense_dense_wrapper/_euclidean_sparse_dense_wrapper (sklearn.cluster._k_means_common)",
    "test_inertia": "calls _inertia_dense/_inertia_sparse (sklearn.cluster._k_means_common)",
    "test_is_same_clustering": "calls _is_same_clustering (sklearn.cluster._k_means_common)",
    "test_sample_weight_init": "calls KMeans._init_centroids, a private method of scikit-learn's class",
    "test_sample_weight_zero": "calls KMeans._init_centroids, a private method of scikit-learn's class",
}

# Of the four tests scikit-learn-intelex deselects, the ones left out here
# (none: all four pass).
INTELEX = {}


def _load_upstream(estimator):
    origin = importlib.util.find_spec("sklearn.cluster.tests.test_k_means").origin
    spec = importlib.util.spec_from_file_location("meanscape_suite_upstream_test_k_means", origin)
    module = importlib.util.module_from_spec(spec)
    saved = sklearn.cluster.KMeans, sklearn.cluster.k_means
    sklearn.cluster.KMeans = estimator
    if estimator is meanscape.KMeans:
        sklearn.cluster.k_means = meanscape.k_means
    try:
        spec.loader.exec_module(module)
    finally:
        sklearn.cluster.KMeans, sklearn.cluster.k_means = saved
    return module


upstream = _load_upstream(ESTIMATOR)
assert upstream.KMeans is ESTIMATOR
for _name, _test in vars(upstream).items():
    if _name.startswith("test_") and callable(_test):
        globals()[_name] = _test


def pytest_generate_tests(metafunc):
    # scikit-learn's conftest parametrizes global_random_seed (42 unless
    # SKLEARN_TESTS_GLOBAL_RANDOM_SEED says otherwise); its conftest is not
    # loaded for this directory, so the same is done here.
    if "global_random_seed" in metafunc.fixturenames:
        spec = os.environ.get("SKLEARN_TESTS_GLOBAL_RANDOM_SEED")
        if spec is None:
            seeds = [42]
        elif spec == "all":
            seeds = list(range(100))
        elif "-" in spec:
            lo, hi = spec.split("-")
            seeds = list(range(int(lo), int(hi) + 1))
        else:
            seeds = [int(spec)]
        metafunc.parametrize("global_random_seed", seeds)


@pytest.fixture(params=[np.float32, np.float64])
def global_dtype(request):
    # scikit-learn skips float32 unless SKLEARN_RUN_FLOAT32_TESTS=1; both
    # are run here, float32 being one of the things checked.
    return request.param


def _params(item):
    callspec = getattr(item, "callspec", None)
    return callspec.params if callspec else {}


def _sparse(value):
    return sp.issparse(value) or (isinstance(value, type) and issubclass(value, (sp.csr_matrix, sp.csr_array)))


def suite_deselect(item):
    """Why ``item`` is not run, or None (read by conftest.py)."""
    name = item.originalname
    if "minibatch" in name or any(v is MiniBatchKMeans for v in _params(item).values()):
        return "MiniBatchKMeans"
    if name in PRIVATE:
        return PRIVATE[name]
    if name in INTELEX:
        return INTELEX[name]
    if name == "test_k_means_function" and ESTIMATOR is not meanscape.KMeans:
        return "k_means is KMeans's function"
    return None


def _fits(item):
    """Whether the test fits an estimator (some only test scikit-learn's
    own kmeans_plusplus, on sparse input too)."""
    code = item.function.__code__
    names = set(code.co_names) | set(code.co_varnames)
    return bool(names & {"KMeans", "k_means", "Estimator", "Klass", "_check_fitted_model"})


def suite_mark(item):
    """Marks ``item`` keeps while the engine lacks something (conftest.py)."""
    sparse = any(_sparse(v) for v in _params(item).values())
    if ESTIMATOR is not meanscape.KMeans or not sparse or not _fits(item):
        return
    if not ENGINE_CSR:
        item.add_marker(SPARSE_XFAIL)
