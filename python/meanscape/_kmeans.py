"""``meanscape.KMeans``: scikit-learn's ``KMeans`` (same constructor, checks,
attributes, methods and warnings) over the engine's Lloyd (``kmeans``).

Written by hand rather than generated: its signature is scikit-learn's,
not the engine's parameter table. Sample weights, given centres and the
restarts go to the engine; Python only checks, converts and names.
"""

import json
import numbers
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from . import _meanscape
from ._base import MeanscapeWarning, _given, _seed, given_centres, sample_weights, warn_fewer_clusters

_DTYPES = [np.float64, np.float32]

# Whether the engine reads CSR input (h-csr): without it, sparse X is
# refused with the reason instead of being densified silently.
_ENGINE_CSR = hasattr(_meanscape, "fit_csr")
_ACCEPT = "csr" if _ENGINE_CSR else False


def _is_arraylike_not_scalar(x):
    return (hasattr(x, "__len__") or hasattr(x, "shape") or hasattr(x, "__array__")) and not np.isscalar(x)


def _mean_variance(X):
    """The mean feature variance: scikit-learn's unit for ``tol``."""
    if sp.issparse(X):
        mean = np.asarray(X.mean(axis=0)).ravel()
        return float(np.mean(np.asarray(X.multiply(X).mean(axis=0)).ravel() - mean**2))
    # The engine's parallel two passes: numpy's var makes a copy of X and
    # took 3 s on 10⁷ × 20 rows.
    return _meanscape.mean_variance(X)


class KMeans(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator):
    """K-Means clustering, scikit-learn's ``KMeans`` over meanscape's engine.

    Parameters, attributes and methods are scikit-learn's (1.9); the fit
    runs the engine's Lloyd (``meanscape run -a kmeans``): scikit-learn's
    stopping rule (squared centre shift ≤ tol × mean feature variance, or
    no label change) and empty clusters moved to the farthest points.

    Parameters
    ----------
    n_clusters : int, default=8
        The number of clusters.
    init : {'k-means++', 'random'}, callable or array-like of shape (n_clusters, n_features), default='k-means++'
        'k-means++' (weighted, greedy as scikit-learn's), 'random' (k
        distinct rows drawn with probability ∝ sample_weight), the initial
        centres themselves, or a callable ``init(X, n_clusters,
        random_state=rs)`` returning them.
    n_init : 'auto' or int, default='auto'
        Runs from different seedings; the one with the lowest inertia is
        kept. 'auto': 1 for 'k-means++' or given centres, 10 for 'random'
        or a callable.
    max_iter : int, default=300
        Iterations (assignment then update) at most; a last assignment
        to the final centres follows, as in scikit-learn.
    tol : float, default=1e-4
        Convergence when the squared centre shift is at most tol times the
        mean feature variance.
    verbose : int, default=0
        Prints the seeding and the inertia per iteration after the fit.
    random_state : int, RandomState instance or None, default=None
    copy_x : bool, default=True
        Accepted for compatibility: the engine never modifies X.
    algorithm : {'lloyd', 'elkan'}, default='lloyd'
        'lloyd': every distance at every iteration; 'elkan': the engine's
        bounded Lloyd, which skips the rows whose nearest centre cannot
        have changed. Both are exact and give the same result.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        In the input's float type (float32 in, float32 out).
    labels_ : ndarray of shape (n_samples,)
    inertia_ : float
        Sum of the weighted squared distances of the rows to their centre.
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    """

    _parameter_constraints: dict = {
        "n_clusters": [Interval(numbers.Integral, 1, None, closed="left")],
        "init": [StrOptions({"k-means++", "random"}), callable, "array-like"],
        "n_init": [StrOptions({"auto"}), Interval(numbers.Integral, 1, None, closed="left")],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="left")],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "copy_x": ["boolean"],
        "algorithm": [StrOptions({"lloyd", "elkan"})],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        init="k-means++",
        n_init="auto",
        max_iter=300,
        tol=1e-4,
        verbose=0,
        random_state=None,
        copy_x=True,
        algorithm="lloyd",
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.copy_x = copy_x
        self.algorithm = algorithm

    def _check_params_vs_input(self, X):
        if X.shape[0] < self.n_clusters:
            raise ValueError(f"n_samples={X.shape[0]} should be >= n_clusters={self.n_clusters}.")
        if self.n_init == "auto":
            if isinstance(self.init, str):
                self._n_init = 1 if self.init == "k-means++" else 10
            else:
                self._n_init = 10 if callable(self.init) else 1
        else:
            self._n_init = self.n_init
        if _is_arraylike_not_scalar(self.init) and self._n_init != 1:
            warnings.warn(
                "Explicit initial center position passed: performing only"
                f" one init in {type(self).__name__} instead of n_init={self._n_init}.",
                RuntimeWarning,
                stacklevel=3,
            )
            self._n_init = 1
        self._algorithm = self.algorithm
        if self._algorithm == "elkan" and self.n_clusters == 1:
            warnings.warn(
                "algorithm='elkan' doesn't make sense for a single cluster. Using 'lloyd' instead.",
                RuntimeWarning,
                stacklevel=3,
            )
            self._algorithm = "lloyd"

    def _run(self, X, weights, seed, restarts, init, centres):
        if sp.issparse(X):
            fit, data = _meanscape.fit_csr, (X.indptr, X.indices, X.data, X.shape)
        else:
            fit, data = _meanscape.fit, (X,)
        return fit(
            "kmeans",
            *data,
            int(self.n_clusters),
            # The engine counts assignments; scikit-learn's max_iter counts
            # assignment + update pairs and then assigns once more.
            [
                ("tol", float(self.tol)),
                ("max_iter", float(self.max_iter + 1)),
                ("bounded", 1.0 if self._algorithm == "elkan" else 0.0),
                ("duplicates", 1.0),
            ],
            [],
            seed,
            restarts,
            init,
            **_given(weights, centres),
        )

    def fit(self, X, y=None, sample_weight=None):
        """Compute k-means clustering.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Int input is converted to float64; float32 stays float32.
        y : Ignored
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the rows (in the seeding and the means; an integer
            weight is the same as the row repeated). Not used by a given
            or callable init.

        Returns
        -------
        self
        """
        self._validate_params()
        X = validate_data(self, X, dtype=_DTYPES, order="C", accept_sparse=_ACCEPT, accept_large_sparse=False)
        self._check_params_vs_input(X)
        # scikit-learn's absolute tolerance (for the verbose text; the
        # engine computes the same from tol).
        self._tol = _mean_variance(X) * float(self.tol)
        weights = sample_weights(sample_weight, X.shape[0])
        random_state = check_random_state(self.random_state)
        init = self.init
        if isinstance(init, str):
            r = self._run(X, weights, _seed(self.random_state), int(self._n_init), str(init), None)
        elif callable(init):
            # A callable gives one set of centres per init; the engine takes
            # one set per call, so each is its own run and the lowest
            # inertia is kept (scikit-learn's rule).
            r = None
            for _ in range(self._n_init):
                centres = given_centres(init(X, self.n_clusters, random_state=random_state), X, self.n_clusters)
                run = self._run(X, weights, 0, 1, "k-means++", centres)
                if r is None or run["objective"] < r["objective"]:
                    r = run
        else:
            r = self._run(X, weights, 0, 1, "k-means++", given_centres(init, X, self.n_clusters))
        self._set_fitted(X, r)
        return self

    def _set_fitted(self, X, r):
        # The engine may have multiplied X by a power of two (values outside
        # the range it computes in): its centres and cost are scaled back.
        scale = 2.0 ** -r["rescale_exp"]
        self._scale = scale
        self.labels_ = r["labels"]
        self.cluster_centers_ = (r["centroids"] * scale).astype(X.dtype, copy=False)
        self.inertia_ = float(r["objective"]) * scale * scale
        extras = json.loads(r["extras"])
        by = extras.get("converged_by")
        # scikit-learn counts an update and the assignment before it as
        # one iteration, and ends with one more assignment: a run whose
        # centres stopped moving (or that hit the cap) counted that last
        # assignment, scikit-learn does not.
        n_iter = int(r["n_iter"])
        self.n_iter_ = n_iter - 1 if by == "shift" else min(n_iter, int(self.max_iter))
        self.model_ = r["model"]
        self._n_features_out = self.cluster_centers_.shape[0]
        for text in r["warnings"]:
            warnings.warn(text, MeanscapeWarning, stacklevel=3)
        if self.verbose:
            print("Initialization complete")
            for i, v in enumerate(r["objective_trace"][: self.n_iter_]):
                print(f"Iteration {i}, inertia {v * scale * scale}.")
            if by == "labels":
                print(f"Converged at iteration {self.n_iter_ - 1}: strict convergence.")
            elif by == "shift":
                shift = extras["centre_shift"] * scale * scale
                print(f"Converged at iteration {self.n_iter_ - 1}: center shift {shift} within tolerance {self._tol}.")
        warn_fewer_clusters(self.labels_, self.n_clusters, stacklevel=4)

    def _check_test_data(self, X):
        check_is_fitted(self)
        return validate_data(self, X, dtype=_DTYPES, order="C", accept_sparse=_ACCEPT, accept_large_sparse=False, reset=False)

    def _sq_distances(self, X):
        """Squared distances of the rows of X to the centres: by the engine
        for dense X; for sparse X from ‖x‖² − 2x·c + ‖c‖² (no dense copy)."""
        if sp.issparse(X):
            c = self.cluster_centers_.astype(np.float64)
            xx = np.asarray(X.multiply(X).sum(axis=1)).ravel()
            d = xx[:, None] - 2.0 * np.asarray(X @ c.T) + np.einsum("ij,ij->i", c, c)[None, :]
            return np.maximum(d, 0.0)
        return np.maximum(self.model_.distances(X), 0.0) * (self._scale * self._scale)

    def fit_predict(self, X, y=None, sample_weight=None):
        """Compute the clusters and return ``labels_``."""
        return self.fit(X, sample_weight=sample_weight).labels_

    def predict(self, X):
        """The nearest centre of every row of X."""
        X = self._check_test_data(X)
        if sp.issparse(X):
            return _meanscape.predict_csr(self.model_, X.indptr, X.indices, X.data, X.shape)
        return self.model_.predict(X)

    def fit_transform(self, X, y=None, sample_weight=None):
        """``fit(X).transform(X)``."""
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def transform(self, X):
        """Euclidean distances of every row of X to every centre, shape
        (n_samples, n_clusters), in X's float type."""
        X = self._check_test_data(X)
        return np.sqrt(self._sq_distances(X)).astype(X.dtype, copy=False)

    def score(self, X, y=None, sample_weight=None):
        """The opposite of the (weighted) inertia of X on the centres."""
        X = self._check_test_data(X)
        w = sample_weights(sample_weight, X.shape[0])
        d = self._sq_distances(X).min(axis=1)
        return -float(d.sum() if w is None else d @ w)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = _ENGINE_CSR
        return tags


def k_means(
    X,
    n_clusters,
    *,
    sample_weight=None,
    init="k-means++",
    n_init="auto",
    max_iter=300,
    verbose=False,
    tol=1e-4,
    random_state=None,
    copy_x=True,
    algorithm="lloyd",
    return_n_iter=False,
):
    """scikit-learn's ``k_means`` function over :class:`KMeans`: returns
    ``(cluster_centers, labels, inertia)``, and ``n_iter`` last with
    ``return_n_iter=True``."""
    est = KMeans(
        n_clusters=n_clusters,
        init=init,
        n_init=n_init,
        max_iter=max_iter,
        verbose=verbose,
        tol=tol,
        random_state=random_state,
        copy_x=copy_x,
        algorithm=algorithm,
    ).fit(X, sample_weight=sample_weight)
    out = (est.cluster_centers_, est.labels_, est.inertia_)
    return out + (est.n_iter_,) if return_n_iter else out

