"""What every meanscape estimator shares: input checks, the call into the
Rust engine, the fitted attributes, predict and transform."""

import json
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from . import _meanscape

# The algorithms whose engine reads CSR rows (memory ∝ nonzeros); the
# other estimators refuse sparse X with scikit-learn's message.
_SPARSE = (
    {a["id"] for a in json.loads(_meanscape.algorithms()) if a.get("takes_sparse")}
    if hasattr(_meanscape, "fit_csr")
    else set()
)

# Algorithms whose distances are plain Euclidean ones to centres in the
# input space: sparse X is transformed without a dense copy.
_EUCLIDEAN = {a["id"] for a in json.loads(_meanscape.algorithms()) if a.get("family") == "centroid"}

_DTYPES = [np.float64, np.float32]


class MeanscapeWarning(UserWarning):
    """Something about a fit the user should know (an empty cluster, a bound
    that does not bind, ...), as the CLI prints it."""


def _seed(random_state):
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state = {random_state} must be a non-negative integer or None")
        return int(random_state)
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


def sample_weights(sample_weight, n):
    """None (unweighted), or the weights as a fresh 1-D float64 array of
    length n (a scalar weighs every row the same). The engine checks the
    values: finite, ≥ 0, a positive sum."""
    if sample_weight is None:
        return None
    if isinstance(sample_weight, numbers.Number):
        w = np.full(n, float(sample_weight))
    else:
        w = np.array(sample_weight, dtype=np.float64, order="C", copy=True)
    if w.ndim != 1:
        raise ValueError(f"Sample weights must be 1D array or scalar, got {w.ndim}D array")
    if w.shape[0] != n:
        raise ValueError(f"sample_weight.shape == ({w.shape[0]},), expected ({n},)!")
    if not np.any(w):
        # scikit-learn's words (its checks look for them); the engine
        # refuses the same.
        raise ValueError("Sample weights must contain at least one non-zero number.")
    return w



def given_centres(centres, X, k):
    """Initial centres given as an array: rounded to X's dtype (as
    scikit-learn does), checked against k and X's width, as the C-ordered
    float64 array the engine reads (never the caller's array)."""
    centres = check_array(centres, dtype=X.dtype, copy=True, order="C")
    if centres.shape[0] != k:
        raise ValueError(f"The shape of the initial centers {centres.shape} does not match the number of clusters {k}.")
    if centres.shape[1] != X.shape[1]:
        raise ValueError(
            f"The shape of the initial centers {centres.shape} does not match the number of features of the data {X.shape[1]}."
        )
    return np.ascontiguousarray(centres, dtype=np.float64)


def warn_fewer_clusters(labels, n_clusters, stacklevel):
    """scikit-learn's ConvergenceWarning when the fit's labels use fewer
    clusters than asked (duplicate points); `stacklevel` counts this
    function's frame, so the warning points at the caller's ``fit``."""
    labels = np.asarray(labels).ravel()
    if labels.dtype.kind in "iu" and (labels.size == 0 or labels.min() >= 0):
        # Counting beats np.unique's hash of every label (0.3 s on 10⁷ rows).
        distinct = int(np.count_nonzero(np.bincount(labels, minlength=n_clusters)))
    else:
        distinct = len(np.unique(labels))
    if distinct < n_clusters:
        warnings.warn(
            f"Number of distinct clusters ({distinct}) found smaller than "
            f"n_clusters ({n_clusters}). Possibly due to duplicate points in X.",
            ConvergenceWarning,
            stacklevel=stacklevel,
        )


def _is_auto(n_init):
    return isinstance(n_init, str) and n_init == "auto"


def _sq_dists_to(X, centres):
    """Squared distances of the rows of X (dense or sparse) to the centres,
    n × k, from ‖x‖² − 2x·c + ‖c‖² (no dense copy of sparse X), clamped at 0."""
    c = np.asarray(centres, dtype=np.float64)
    if sp.issparse(X):
        xx = np.asarray(X.multiply(X).sum(axis=1), dtype=np.float64).ravel()
    else:
        X = np.asarray(X, dtype=np.float64)
        xx = np.einsum("ij,ij->i", X, X)
    d = xx[:, None] - 2.0 * np.asarray(X @ c.T) + np.einsum("ij,ij->i", c, c)[None, :]
    return np.maximum(d, 0.0)


def _given(sample_weight, centres):
    """The fit's optional engine inputs, passed only when there are some."""
    given = {}
    if sample_weight is not None:
        given["sample_weight"] = sample_weight
    if centres is not None:
        given["centres"] = centres
    return given


class _MeanscapeCluster(ClusterMixin, BaseEstimator):
    """Fit through the engine; subclasses name the algorithm and its
    parameters (``_algorithm``, ``_engine_params``, ``_engine_options``)."""

    _algorithm = None
    _engine_params = ()
    _engine_options = ()

    def _engine_request(self):
        params = []
        for py_name, engine_name in self._engine_params:
            value = getattr(self, py_name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise ValueError(f"{py_name} = {value!r} must be a number (or None for the automatic default)")
            params.append((engine_name, float(value)))
        options = []
        for name in self._engine_options:
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, str):
                raise ValueError(f"{name} = {value!r} must be a string or None")
            options.append((name, value))
        return params, options

    def _check_counts(self, n_samples):
        k = self.n_clusters
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"n_clusters = {k!r} must be a positive integer")
        if n_samples < k:
            raise ValueError(f"n_samples={n_samples} should be >= n_clusters={k}.")
        n_init = self.n_init
        if _is_auto(n_init):
            return
        if isinstance(n_init, bool) or not isinstance(n_init, numbers.Integral) or n_init < 1:
            raise ValueError(f"n_init = {n_init!r} must be a positive integer or 'auto'")

    def fit(self, X, y=None):
        """Cluster X (array-like of shape (n_samples, n_features)); y is ignored.

        The GIL is released while the engine runs; Ctrl-C stops it.
        """
        return self._fit(X, None)

    def _accept_sparse(self):
        return "csr" if self._algorithm in _SPARSE else False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self._algorithm in _SPARSE
        return tags

    def _fit(self, X, sample_weight):
        X = validate_data(
            self,
            X,
            dtype=_DTYPES,
            accept_sparse=self._accept_sparse(),
            accept_large_sparse=False,
            ensure_min_samples=2,
        )
        self._check_counts(X.shape[0])
        params, options = self._engine_request()
        self._check_lloyd_params()
        weights = sample_weights(sample_weight, X.shape[0])
        init = self.init
        # 'auto' as scikit-learn's KMeans: one start for k-means++ or given
        # centres, ten for random seeding or a callable.
        auto = 10 if (isinstance(init, str) and init == "random") or callable(init) else 1
        n_init = auto if _is_auto(self.n_init) else int(self.n_init)
        if not isinstance(init, str) and not callable(init) and n_init != 1:
            warnings.warn(
                f"Explicit initial center position passed: performing only one init in {type(self).__name__} instead of n_init={n_init}.",
                RuntimeWarning,
                stacklevel=3,
            )
            n_init = 1
        self._n_init = n_init
        if sp.issparse(X):
            fit, data = _meanscape.fit_csr, (X.indptr, X.indices, X.data, X.shape)
        else:
            fit, data = _meanscape.fit, (X,)

        def run(seed, restarts, init, centres):
            return fit(
                self._algorithm,
                *data,
                int(self.n_clusters),
                params,
                options,
                seed,
                restarts,
                init,
                **_given(weights, centres),
            )

        if isinstance(init, str):
            result = run(_seed(self.random_state), n_init, init, None)
        elif callable(init):
            # One set of centres per call: each is its own run, and the
            # lowest objective is kept (scikit-learn's rule).
            random_state = check_random_state(self.random_state)
            result = None
            for _ in range(n_init):
                centres = given_centres(init(X, self.n_clusters, random_state=random_state), X, self.n_clusters)
                r = run(0, 1, "k-means++", centres)
                if result is None or r["objective"] < result["objective"]:
                    result = r
        else:
            result = run(0, 1, "k-means++", given_centres(init, X, self.n_clusters))
        self._set_fitted(X, result, weights)
        self._after_fit()
        return self

    def _check_lloyd_params(self):
        """scikit-learn's ``algorithm`` and ``copy_x``, on the estimators that
        take them (see :class:`_LloydParams`)."""

    def _after_fit(self):
        """Warnings and ``verbose`` text after a fit (see :class:`_LloydParams`)."""

    def _set_fitted(self, X, r, weights=None):
        self.labels_ = r["labels"]
        self.n_iter_ = int(r["n_iter"])
        self.objective_ = float(r["objective"])
        self.objective_trace_ = r["objective_trace"]
        self.s_trace_ = r["s_trace"]
        self.kernel_weights_ = r["kernel_weights"]
        self.converged_ = bool(r["converged"])
        self.params_ = dict(r["params"])
        self.options_ = dict(r["options"])
        self.extras_ = json.loads(r["extras"])
        self.elapsed_ms_ = float(r["elapsed_ms"])
        self.model_ = r["model"]
        self._rescale_exp = int(r["rescale_exp"])
        self._model_error = r["model_error"]
        for text in r["warnings"]:
            warnings.warn(text, MeanscapeWarning, stacklevel=3)
        if r["centroids"] is not None and r["centroids"].shape[1] == X.shape[1]:
            # float32 in, float32 centres out (as scikit-learn's KMeans); the
            # engine computes them in f64 and they are rounded once here, in
            # X's units (the engine's rows may be X times a power of two).
            centres = r["centroids"] * 2.0 ** -r["rescale_exp"]
            self.cluster_centers_ = centres.astype(X.dtype, copy=False)
        if r["feature_weights"] is not None:
            self.feature_weights_ = r["feature_weights"]
            self.selected_features_ = np.flatnonzero(self.feature_weights_ > 0)


class _PredictingCluster(ClassNamePrefixFeaturesOutMixin, TransformerMixin, _MeanscapeCluster):
    """Estimators that assign new points: nearest centre, kernel distance to
    each cluster's implicit centre, or the same random feature map."""

    def _new_rows(self, X):
        check_is_fitted(self)
        X = validate_data(
            self, X, dtype=_DTYPES, accept_sparse=self._accept_sparse(), accept_large_sparse=False, reset=False
        )
        if self.model_ is None:
            raise ValueError(f"this {type(self).__name__} cannot assign new points: {self._model_error}")
        return X

    def predict(self, X):
        """The cluster of every row of X, as the fitted model assigns it."""
        X = self._new_rows(X)
        if sp.issparse(X):
            return _meanscape.predict_csr(self.model_, X.indptr, X.indices, X.data, X.shape)
        return self.model_.predict(X)

    def transform(self, X):
        """Distances of every row of X to every cluster, shape (n_samples,
        n_clusters), in the space the algorithm clustered in (the kernel's
        feature space for kernel methods)."""
        X = self._new_rows(X)
        if sp.issparse(X) and self._algorithm in _EUCLIDEAN:
            # Distances to the centres as ‖x‖² − 2x·c + ‖c‖², with no dense
            # copy of X.
            return np.sqrt(_sq_dists_to(X, self.cluster_centers_)).astype(X.dtype, copy=False)
        if sp.issparse(X):
            # Weighted or feature-map distances: the model's own, the rows
            # densified a block at a time in the engine.
            d = _meanscape.distances_csr(self.model_, X.indptr, X.indices, X.data, X.shape)
        else:
            d = self.model_.distances(X)
        # Distances of input-space methods in X's units; kernel and
        # feature-map distances are in their own space.
        scale = 2.0 ** -self._rescale_exp if hasattr(self, "cluster_centers_") else 1.0
        return np.sqrt(np.maximum(d, 0.0)) * scale

    @property
    def _n_features_out(self):
        return self.n_clusters


class _CentroidMixin:
    """The k-means cost (``inertia_``, ``score``) for estimators with centres
    in the input space."""

    def score(self, X, y=None, sample_weight=None):
        """The opposite of Σᵢ wᵢ minⱼ ‖xᵢ − cⱼ‖² over the rows of X (y is
        ignored; sample_weight defaults to 1 per row)."""
        X = self._new_rows(X)
        w = sample_weights(sample_weight, X.shape[0])
        d = _sq_dists_to(X, self.cluster_centers_).min(axis=1)
        return -float(d.sum() if w is None else d @ w)

    def _set_fitted(self, X, r, weights=None):
        super()._set_fitted(X, r, weights)
        # The feature-weighted methods too: their inertia_ is the k-means
        # cost on the input features, unweighted (objective_ is theirs).
        if hasattr(self, "cluster_centers_"):
            c = self.cluster_centers_
            if sp.issparse(X):
                # ‖x‖² − 2x·c + ‖c‖², through one n × k product: no dense
                # copy of X.
                d = _sq_dists_to(X, c)[np.arange(X.shape[0]), self.labels_]
                self.inertia_ = float(d.sum() if weights is None else d @ weights)
            else:
                # Σ‖x − c‖² in the engine, in parallel: numpy's X @ cᵀ and
                # einsum took 1–2 s and an n × k temporary on 10⁷ × 20 rows.
                self.inertia_ = _meanscape.labelled_cost(
                    np.ascontiguousarray(X),
                    np.ascontiguousarray(c, dtype=np.float64),
                    np.asarray(self.labels_, dtype=np.int64),
                    None if weights is None else np.ascontiguousarray(weights, dtype=np.float64),
                )


class _LloydParams:
    """scikit-learn's ``KMeans`` parameters that are about its Lloyd
    (``algorithm``, ``copy_x``, ``verbose``), on the estimators with centres
    in the input space, so that they drop in where ``KMeans`` was; and its
    warnings (``algorithm='elkan'`` for one cluster, fewer distinct clusters
    than ``n_clusters``)."""

    def _check_lloyd_params(self):
        if self.algorithm not in ("lloyd", "elkan"):
            raise ValueError(f"The 'algorithm' parameter of {type(self).__name__} must be a str among {{'lloyd', 'elkan'}}. Got {self.algorithm!r} instead.")
        if not isinstance(self.copy_x, (bool, np.bool_)):
            raise ValueError(f"The 'copy_x' parameter of {type(self).__name__} must be an instance of 'bool'. Got {self.copy_x!r} instead.")
        if self.algorithm == "elkan" and self.n_clusters == 1:
            warnings.warn(
                "algorithm='elkan' doesn't make sense for a single cluster. Using 'lloyd' instead.",
                RuntimeWarning,
                stacklevel=4,
            )

    def _after_fit(self):
        if self.verbose:
            print("Initialization complete")
            for i, v in enumerate(self.objective_trace_):
                print(f"Iteration {i}, objective {v}.")
            how = "converged" if self.converged_ else "stopped at max_iter"
            print(f"{how} after {self.n_iter_} iterations: objective {self.objective_}.")
        warn_fewer_clusters(self.labels_, self.n_clusters, stacklevel=5)


class _WeightedFit:
    """``fit`` with ``sample_weight``, for the algorithms whose objective
    is a sum over the rows (the engine weighs the sums and the seeding)."""

    def fit(self, X, y=None, sample_weight=None):
        """Cluster X (array-like of shape (n_samples, n_features)); y is
        ignored; sample_weight (n_samples,) weighs the rows: an integer
        weight is the row repeated, 0 the row left out.

        The GIL is released while the engine runs; Ctrl-C stops it.
        """
        return self._fit(X, sample_weight)
