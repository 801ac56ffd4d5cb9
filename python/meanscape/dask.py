"""``meanscape.dask``: k-means, power k-means and k-harmonic means on Dask
collections larger than one machine's memory.

Every iteration is a map-reduce over the row chunks: per chunk the engine's
block step (``_meanscape.lloyd_block`` / ``power_block``, the same code the
in-memory solvers run, GIL released) gives k × p sufficient statistics; a
tree of engine merges (fan-in ``_FAN_IN``, row order kept) reduces them;
the update and the stopping/annealing rule (``_meanscape.Annealer``, the
engine's own loop) run on the client. Only the centres go out (scattered
once per iteration to every worker on a ``distributed`` cluster) and only
the statistics come back; the rows never move and ``labels_`` is a lazy
dask array.

Initialisation: ``init`` an array of centres, or ``'k-means++'``: the
engine's k-means++ seeding on ``init_size`` rows (default
``min(n, max(10000, 20·k))``) drawn uniformly without replacement with
``numpy.random.default_rng(random_state)``; one start (``n_init`` is 1).

Needs the ``dask`` extra: ``pip install "meanscape[dask]"``.
"""

import math
import numbers
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning

from . import _meanscape
from ._base import _seed

__all__ = ["KMeans", "PowerKMeans", "KHarmonicMeans"]

# Statistics merged per task of the reduction tree.
_FAN_IN = 8


def _dask():
    try:
        import dask
        import dask.array as da
    except ImportError as e:  # pragma: no cover - the extra is missing
        raise ImportError(
            'meanscape.dask needs Dask: install the extra with pip install "meanscape[dask]" '
            '(from a checkout: pip install "./python[dask]")'
        ) from e
    return dask, da


def _client():
    """The current ``distributed`` client, or None (local schedulers)."""
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


def _as_rows(X):
    """X as a 2-D float64/float32 dask array whose chunks split rows only,
    with known chunk sizes; the feature names of a dataframe."""
    dask, da = _dask()
    names = None
    if hasattr(X, "columns") and hasattr(X, "to_dask_array"):
        cols = list(X.columns)
        numeric = list(X.select_dtypes(include="number").columns)
        other = [c for c in cols if c not in numeric]
        if other:
            raise ValueError(f"X: column(s) {other} are not numeric; select the numeric columns to cluster")
        names = np.asarray([str(c) for c in cols], dtype=object)
        X = X.to_dask_array(lengths=True)
    elif isinstance(X, np.ndarray):
        X = da.from_array(X, chunks=(max(1, min(len(X), 100_000)), -1))
    elif not isinstance(X, da.Array):
        raise TypeError(f"X: a dask.array or dask.dataframe is required, not {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"X: a 2-D array is required, got {X.ndim} dimension(s)")
    if X.dtype not in (np.float64, np.float32):
        X = X.astype(np.float64)
    if any(math.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    return X, names


def _weights(sample_weight, X):
    if sample_weight is None:
        return None
    _, da = _dask()
    if isinstance(sample_weight, numbers.Number):
        return da.full(X.shape[0], float(sample_weight), chunks=(X.chunks[0],))
    if not isinstance(sample_weight, da.Array):
        sample_weight = da.from_array(np.asarray(sample_weight, dtype=np.float64), chunks=(X.chunks[0],))
    if sample_weight.ndim != 1 or sample_weight.shape[0] != X.shape[0]:
        raise ValueError(f"sample_weight.shape == {sample_weight.shape}, expected ({X.shape[0]},)")
    return sample_weight.astype(np.float64).rechunk((X.chunks[0],))


def _tree(parts, merge, *args):
    """A tree of delayed merges over `parts` (row order kept)."""
    dask, _ = _dask()
    level = parts
    while len(level) > 1:
        level = [dask.delayed(merge)(level[i : i + _FAN_IN], *args) for i in range(0, len(level), _FAN_IN)]
    return level[0]


def _broadcast(value):
    """`value` sent once to the workers: scattered (broadcast) on a
    distributed cluster, one graph key otherwise."""
    dask, _ = _dask()
    client = _client()
    if client is not None:
        return client.scatter(value, broadcast=True, hash=False)
    return dask.delayed(value)


def _block_w(w):
    return None if w is None else np.ascontiguousarray(w, dtype=np.float64)


def _lloyd_part(x, centres, prev_labels, w, offset, keep, labels):
    return _meanscape.lloyd_block(
        np.ascontiguousarray(x),
        centres,
        sample_weight=_block_w(w),
        offset=offset,
        keep=keep,
        prev_labels=prev_labels,
        return_labels=labels,
    )


def _stats_only(part):
    return {key: v for key, v in part.items() if key != "labels"}


def _labels_of(part):
    return part["labels"]


def _power_part(x, centres, s, s_ref, w, zero_tol):
    return _meanscape.power_block(
        np.ascontiguousarray(x), centres, s, s_ref=s_ref, sample_weight=_block_w(w), zero_tol=zero_tol
    )


def _max_sq_norm(x):
    x = np.asarray(x, dtype=np.float64)
    return float(np.einsum("ij,ij->i", x, x).max()) if len(x) else 0.0


def _col_sums(x):
    x = np.asarray(x, dtype=np.float64)
    return x.sum(axis=0), len(x)


def _add_pairs(parts):
    total = sum(p[0] for p in parts)
    return total, sum(p[1] for p in parts)


def _sq_about(x, mean):
    d = np.asarray(x, dtype=np.float64) - mean
    return np.einsum("ij,ij->j", d, d)


def _nearest(x, centres):
    return _meanscape.nearest(np.ascontiguousarray(x), centres)


class _DaskCluster(ClusterMixin, BaseEstimator):
    """What the Dask estimators share: input, initialisation, the map-reduce
    of one iteration, lazy labels."""

    def _setup(self, X, sample_weight):
        X, names = _as_rows(X)
        k = self.n_clusters
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"n_clusters = {k!r} must be a positive integer")
        n, p = X.shape
        if n < k:
            raise ValueError(f"n_samples={n} should be >= n_clusters={k}.")
        self.n_features_in_ = p
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        w = _weights(sample_weight, X)
        self._blocks = list(X.to_delayed().ravel())
        self._wblocks = list(w.to_delayed().ravel()) if w is not None else [None] * len(self._blocks)
        self._offsets = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).astype(int).tolist()
        return X, w

    def _initial_centres(self, X, w):
        k, (n, p) = self.n_clusters, X.shape
        init = self.init
        if self.n_init not in (1, "auto"):
            warnings.warn(
                f"meanscape.dask runs one start: n_init={self.n_init!r} is taken as 1.", RuntimeWarning, stacklevel=3
            )
        if not isinstance(init, str):
            c = np.array(init, dtype=X.dtype, copy=True)
            if c.shape != (k, p):
                raise ValueError(f"The shape of the initial centers {c.shape} does not match ({k}, {p}).")
            return np.ascontiguousarray(c, dtype=np.float64)
        if init not in ("k-means++", "kmeans++"):
            raise ValueError(f"init = {init!r}: meanscape.dask takes 'k-means++' or an array of centres")
        size = self.init_size if self.init_size is not None else min(n, max(10_000, 20 * k))
        size = int(min(max(size, k), n))
        seed = _seed(self.random_state)
        idx = np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))
        dask, _ = _dask()
        sample, ws = dask.compute(X[idx], None if w is None else w[idx])
        sample = np.ascontiguousarray(sample)
        extra = {} if ws is None else {"sample_weight": np.ascontiguousarray(ws, dtype=np.float64)}
        # One assignment at the seeds: the engine's k-means++ centres.
        r = _meanscape.fit(
            "kmeans", sample, int(k), [("max_iter", 1.0), ("tol", 0.0)], [], seed, 1, "kmeans++", **extra
        )
        return np.ascontiguousarray(r["centroids"], dtype=np.float64)

    def _mean_variance(self):
        """The mean over the features of their (unweighted, population)
        variance, in two passes over the blocks (mean, then squares about
        it) so it keeps its precision; empty blocks add nothing."""
        dask, _ = _dask()
        sums = [dask.delayed(_col_sums)(b) for b in self._blocks]
        total, n = self._compute(dask.delayed(_add_pairs)(sums))
        mean = total / max(n, 1)
        sq = [dask.delayed(_sq_about)(b, mean) for b in self._blocks]
        ss = self._compute(dask.delayed(sum)(sq))
        return float(np.mean(ss / max(n, 1)))

    def _compute(self, root):
        dask, _ = _dask()
        (out,) = dask.compute(root)
        return out

    def _lloyd_stats(self, centres, prev=None, keep_labels=False):
        """The merged Lloyd statistics at `centres`; `prev` the previous
        iteration's parts, whose labels stay where they were computed
        (persisted on the workers) and give the rows that changed. With
        `keep_labels`, also this iteration's parts, persisted."""
        dask, _ = _dask()
        k = centres.shape[0]
        c = _broadcast(centres)
        prev = prev or [None] * len(self._blocks)
        parts = [
            dask.delayed(_lloyd_part)(
                b, c, None if pp is None else dask.delayed(_labels_of)(pp), wb, off, k, keep_labels
            )
            for b, wb, off, pp in zip(self._blocks, self._wblocks, self._offsets, prev)
        ]
        if keep_labels:
            parts = list(dask.persist(*parts))
        stats = self._compute(_tree([dask.delayed(_stats_only)(pp) for pp in parts], _lloyd_merge, k))
        return stats, parts

    def _power_stats(self, centres, s, s_ref, zero_tol):
        dask, _ = _dask()
        c = _broadcast(centres)
        parts = [dask.delayed(_power_part)(b, c, s, s_ref, wb, zero_tol) for b, wb in zip(self._blocks, self._wblocks)]
        return self._compute(_tree(parts, _power_merge))

    def _finish_fit(self, X, centres, counts):
        self.cluster_centers_ = centres.astype(X.dtype, copy=False)
        self._centres64 = centres
        self.labels_ = self.predict(X)
        distinct = int(np.count_nonzero(counts))
        if distinct < self.n_clusters:
            warnings.warn(
                f"Number of distinct clusters ({distinct}) found smaller than n_clusters ({self.n_clusters}).",
                ConvergenceWarning,
                stacklevel=3,
            )
        for attr in ("_blocks", "_wblocks", "_offsets"):
            delattr(self, attr)

    def predict(self, X):
        """The nearest centre of every row, as a lazy dask array (int64)."""
        if not hasattr(self, "cluster_centers_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet.")
        X, _ = _as_rows(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features; the model was fitted on {self.n_features_in_}.")
        c = np.ascontiguousarray(self.cluster_centers_, dtype=np.float64)
        return X.map_blocks(_nearest, c, dtype=np.int64, drop_axis=1)

    def fit_predict(self, X, y=None, sample_weight=None):
        return self.fit(X, sample_weight=sample_weight).labels_


def _lloyd_merge(parts, keep):
    return _meanscape.lloyd_merge(list(parts), keep)


def _power_merge(parts):
    return _meanscape.power_merge(list(parts))


class KMeans(_DaskCluster):
    """``meanscape.KMeans`` (scikit-learn's k-means, the engine's Lloyd) on a
    dask array or dataframe. Same stopping rule (squared centre shift ≤ tol
    × mean feature variance, or no label change), same empty-cluster rule
    (moved to the farthest rows), same ``n_iter_``; ``labels_`` is lazy.
    Each chunk's labels stay on its worker (persisted) for one iteration,
    to count the rows that changed cluster; they never reach the client.
    """

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
        init_size=None,
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
        self.init_size = init_size

    def fit(self, X, y=None, sample_weight=None):
        # copy_x: X is never modified; 'lloyd' and 'elkan' give the same
        # result in the engine, and here every chunk is assigned in full.
        if self.algorithm not in ("lloyd", "elkan"):
            raise ValueError(f"algorithm = {self.algorithm!r} must be 'lloyd' or 'elkan'")
        X, w = self._setup(X, sample_weight)
        centres = self._initial_centres(X, w)
        # scikit-learn's absolute tolerance: the unweighted mean variance.
        tol_abs = float(self.tol) * self._mean_variance()
        k = self.n_clusters
        # The engine counts assignments; scikit-learn's max_iter counts
        # assignment + update pairs and then assigns once more.
        ann = _meanscape.Annealer.lloyd(int(self.max_iter) + 1, int(k))
        prev, shift, stop, stats = None, math.inf, None, None
        while ann.iteration() is not None:
            stats, parts = self._lloyd_stats(centres, prev, keep_labels=True)
            settled = (prev is not None and stats["changed"] == 0) or shift <= tol_abs
            stop = ann.record(stats["inertia"], None, stats["counts"].tolist(), 0.0, settled)
            if stop is not None:
                break
            centres, shift = _meanscape.lloyd_next(stats, centres)
            prev = parts
        del prev, parts
        r = ann.result()
        by = None
        if r["converged"]:
            by = "shift" if shift <= tol_abs else "labels"
        n_iter = int(r["n_iter"])
        self.n_iter_ = n_iter - 1 if by == "shift" else min(n_iter, int(self.max_iter))
        self.inertia_ = float(stats["inertia"])
        self.objective_trace_ = r["objective_trace"]
        self.converged_ = bool(r["converged"])
        self._tol = tol_abs
        if self.verbose:
            for i, v in enumerate(self.objective_trace_[: self.n_iter_]):
                print(f"Iteration {i}, inertia {v}.")
        self._finish_fit(X, centres, stats["counts"])
        return self


class _PowerRules:
    """The engine parameters and annealer of a distributed ``PowerKMeans``,
    shared by ``meanscape.dask`` and ``meanscape.spark`` (``_ENGINE``: the
    module's name and the engine's, for the refusal)."""

    _ENGINE = ("dask", "Dask")

    def _params(self):
        names = ("s0", "eta", "period", "s_min", "tol", "max_iter", "soft_tol", "finish", "sample")
        return {n: float(getattr(self, n)) for n in names}

    def _annealer(self):
        if self.finish or self.sample:
            module, engine = self._ENGINE
            raise ValueError(f"meanscape.{module}.PowerKMeans: finish and sample must be 0 (not offered on {engine})")
        return _meanscape.Annealer.power(
            float(self.s0),
            float(self.eta),
            int(self.period),
            float(self.s_min),
            float(self.tol),
            float(self.soft_tol),
            int(self.max_iter),
            int(self.n_clusters),
        )


class _KhmRules:
    """The same for ``KHarmonicMeans``: the engine's khm schedule."""

    def _params(self):
        return {"tol": float(self.tol), "max_iter": float(self.max_iter)}

    def _annealer(self):
        # The engine's khm: s0 = s_min = −1, η = 1, T = 1, no hardness test.
        return _meanscape.Annealer.power(-1.0, 1.0, 1, -1.0, float(self.tol), 1.0, int(self.max_iter), int(self.n_clusters))


class PowerKMeans(_PowerRules, _DaskCluster):
    """``meanscape.PowerKMeans`` on a dask array or dataframe: the engine's
    sweep per chunk, its log-sum-exp merge, and its annealing and stopping
    rule (schedule, period check, hardness condition). ``finish`` and
    ``sample`` are not offered here (0)."""

    def __init__(
        self,
        n_clusters=8,
        *,
        s0=-1.0,
        eta=1.04,
        period=5,
        s_min=-1000.0,
        tol=1e-06,
        max_iter=500,
        soft_tol=0.01,
        finish=0,
        sample=0,
        n_init=1,
        init="k-means++",
        random_state=None,
        init_size=None,
    ):
        self.n_clusters = n_clusters
        self.s0 = s0
        self.eta = eta
        self.period = period
        self.s_min = s_min
        self.tol = tol
        self.max_iter = max_iter
        self.soft_tol = soft_tol
        self.finish = finish
        self.sample = sample
        self.n_init = n_init
        self.init = init
        self.random_state = random_state
        self.init_size = init_size

    def fit(self, X, y=None, sample_weight=None):
        X, w = self._setup(X, sample_weight)
        dask, _ = _dask()
        ann = self._annealer()
        centres = self._initial_centres(X, w)
        max_norm = self._compute(dask.delayed(max)([dask.delayed(_max_sq_norm)(b) for b in self._blocks]))
        zero_tol = _meanscape.zero_tolerance(float(max_norm))
        fin, stats = None, None
        while (it := ann.iteration()) is not None:
            _, s, s_ref = it
            stats = self._power_stats(centres, s, s_ref, zero_tol)
            fin = _meanscape.power_finish(stats, centres, s_ref is not None)
            stop = ann.record(fin["objective"], fin["objective_ref"], stats["counts"].tolist(), fin["softness"], False)
            if stop is not None:
                break
            centres = fin["centres"]
        r = ann.result()
        self.n_iter_ = int(r["n_iter"])
        self.objective_ = float(fin["objective"])
        self.objective_trace_ = r["objective_trace"]
        self.s_trace_ = r["s_trace"]
        self.converged_ = bool(r["converged"])
        self.kernel_weights_ = None
        self.params_ = self._params()
        # The k-means cost at the final centres: one more pass.
        cost, _ = self._lloyd_stats(centres)
        self.inertia_ = float(cost["inertia"])
        self._finish_fit(X, centres, stats["counts"])
        return self


class KHarmonicMeans(_KhmRules, PowerKMeans):
    """``meanscape.KHarmonicMeans`` on a dask array or dataframe: power
    k-means with s = −1 held fixed (the engine's khm schedule)."""

    def __init__(self, n_clusters=8, *, tol=1e-06, max_iter=500, n_init=1, init="k-means++", random_state=None, init_size=None):
        self.n_clusters = n_clusters
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.init = init
        self.random_state = random_state
        self.init_size = init_size
