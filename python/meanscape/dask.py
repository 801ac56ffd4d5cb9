"""``meanscape.dask``: k-means, power k-means, k-harmonic means, RFF kernel
power k-means, WK-means and LW-k-means on Dask collections larger than one
machine's memory.

Every iteration is a map-reduce over the row chunks: per chunk the engine's
block step (``_meanscape.lloyd_block`` / ``power_block`` /
``weighted_block``: the steps the in-memory solvers run, GIL released)
gives k × p sufficient statistics; a tree of engine merges (fan-in
``_FAN_IN``, row order kept) reduces them;
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

__all__ = ["KMeans", "PowerKMeans", "KHarmonicMeans", "RFFPowerKMeans", "WKMeans", "LWKMeans"]

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
    return _aligned(w, np.float64)


def _aligned(a, dtype):
    """`a` as the engine reads arrays in place: C-contiguous and aligned
    (a buffer unpickled from a worker's frames may be neither)."""
    return None if a is None else np.require(a, dtype=dtype, requirements=["C", "A"])


def _label_dtype(k):
    """The smallest integer type that holds labels 0..k−1: the labels kept
    on the workers between iterations (one per row) are the one thing a
    fit holds in proportion to n, so on data larger than the cluster's
    memory they take 2 bytes a row, not 8."""
    return np.int16 if k <= np.iinfo(np.int16).max else np.int32


def _lloyd_part(x, centres, prev_labels, w, offset, keep, labels):
    part = _meanscape.lloyd_block(
        np.ascontiguousarray(x),
        centres,
        sample_weight=_block_w(w),
        offset=offset,
        keep=keep,
        prev_labels=None if prev_labels is None else prev_labels.astype(np.int64),
        return_labels=labels,
    )
    if labels:
        part["labels"] = part["labels"].astype(_label_dtype(len(centres)))
    return part


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


def _col_sums(x, w=None):
    x = np.asarray(x, dtype=np.float64)
    if w is None:
        return x.sum(axis=0), len(x)
    w = np.asarray(w, dtype=np.float64)
    return w @ x, float(w.sum())


def _add_pairs(parts):
    total = sum(p[0] for p in parts)
    return total, sum(p[1] for p in parts)


def _sq_about(x, mean, w=None):
    d = np.asarray(x, dtype=np.float64) - mean
    if w is None:
        return np.einsum("ij,ij->j", d, d)
    return np.einsum("i,ij,ij->j", np.asarray(w, dtype=np.float64), d, d)


def _nearest(x, centres):
    return _meanscape.nearest(np.ascontiguousarray(x), centres)


def _store_params(estimator, params):
    """scikit-learn's rule for ``__init__``: every parameter stored as
    given, under its own name (`params`: the ``__init__``'s locals())."""
    for name, value in params.items():
        if name != "self":
            setattr(estimator, name, value)


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

    def _sample(self, X, w):
        """``init_size`` rows (default ``min(n, max(10000, 20·k))``) drawn
        uniformly without replacement, in row order, with
        ``numpy.random.default_rng(random_state)``; their weights; the seed."""
        k, n = self.n_clusters, X.shape[0]
        size = self.init_size if self.init_size is not None else min(n, max(10_000, 20 * k))
        size = int(min(max(size, k), n))
        seed = _seed(self.random_state)
        idx = np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False))
        dask, _ = _dask()
        sample, ws = dask.compute(X[idx], None if w is None else w[idx])
        return np.ascontiguousarray(sample), ws, seed

    def _initial_centres(self, X, w, space=None):
        """The initial centres (float64): given, or the engine's k-means++
        on a seeded sample; `space` maps rows (given centres and the
        sample) to the space the algorithm clusters in."""
        space = space or (lambda rows: rows)
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
            return np.ascontiguousarray(space(np.ascontiguousarray(c)), dtype=np.float64)
        if init not in ("k-means++", "kmeans++"):
            raise ValueError(f"init = {init!r}: meanscape.dask takes 'k-means++' or an array of centres")
        sample, ws, seed = self._sample(X, w)
        sample = np.ascontiguousarray(space(sample))
        extra = {} if ws is None else {"sample_weight": np.ascontiguousarray(ws, dtype=np.float64)}
        # One assignment at the seeds: the engine's k-means++ centres.
        r = _meanscape.fit(
            "kmeans", sample, int(k), [("max_iter", 1.0), ("tol", 0.0)], [], seed, 1, "kmeans++", **extra
        )
        return np.ascontiguousarray(r["centroids"], dtype=np.float64)

    def _moments(self, weighted=False):
        """Per feature: the mean, the sum of squares about it, and the
        rows' total (their count, or with `weighted` their total sample
        weight, each row counted by its weight), in two passes over the
        blocks (mean, then squares about it) so they keep their
        precision; empty blocks add nothing."""
        dask, _ = _dask()
        ws = self._wblocks if weighted else [None] * len(self._blocks)
        sums = [dask.delayed(_col_sums)(b, wb) for b, wb in zip(self._blocks, ws)]
        total, n = self._compute(dask.delayed(_add_pairs)(sums))
        mean = total / (n if n > 0 else 1)
        sq = [dask.delayed(_sq_about)(b, mean, wb) for b, wb in zip(self._blocks, ws)]
        ss = self._compute(dask.delayed(sum)(sq))
        return mean, ss, n

    def _mean_variance(self, weighted=False):
        """The mean over the features of their population variance
        (weighted: as if each row were repeated by its weight)."""
        _, ss, n = self._moments(weighted)
        return float(np.mean(ss / (n if n > 0 else 1)))

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

    def _power_stats(self, blocks, centres, s, s_ref, zero_tol):
        dask, _ = _dask()
        c = _broadcast(centres)
        parts = [dask.delayed(_power_part)(b, c, s, s_ref, wb, zero_tol) for b, wb in zip(blocks, self._wblocks)]
        return self._compute(_tree(parts, _power_merge))

    def _power_loop(self, blocks, ann, centres, zero_tol):
        """The engine's power-mean iteration over `blocks` from `centres`,
        driven by the Annealer `ann` until it stops: the centres evaluated
        last, their update (`fin`), the merged statistics and the trace."""
        fin, stats = None, None
        while (it := ann.iteration()) is not None:
            _, s, s_ref = it
            stats = self._power_stats(blocks, centres, s, s_ref, zero_tol)
            fin = _meanscape.power_finish(stats, centres, s_ref is not None)
            stop = ann.record(fin["objective"], fin["objective_ref"], stats["counts"].tolist(), fin["softness"], False)
            if stop is not None:
                break
            centres = fin["centres"]
        return centres, fin, stats, ann.result()

    def _zero_tol(self, blocks):
        """The engine's zero-distance threshold for the rows of `blocks`."""
        dask, _ = _dask()
        max_norm = self._compute(dask.delayed(max)([dask.delayed(_max_sq_norm)(b) for b in blocks]))
        return _meanscape.zero_tolerance(float(max_norm))

    def _finish_fit(self, X, centres, counts, labels=None):
        """The fitted centres (None: they live in another space, which
        ``predict`` knows), the labels (lazy: `labels`, else ``predict``),
        the warning on fewer distinct clusters than asked."""
        if centres is not None:
            self.cluster_centers_ = centres.astype(X.dtype, copy=False)
            self._centres64 = centres
        self.labels_ = self.predict(X) if labels is None else labels
        distinct = int(np.count_nonzero(counts))
        if distinct < self.n_clusters:
            warnings.warn(
                f"Number of distinct clusters ({distinct}) found smaller than n_clusters ({self.n_clusters}).",
                ConvergenceWarning,
                stacklevel=3,
            )
        for attr in ("_blocks", "_wblocks", "_offsets"):
            delattr(self, attr)

    def _new_rows(self, X):
        if not hasattr(self, "n_iter_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet.")
        X, _ = _as_rows(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features; the model was fitted on {self.n_features_in_}.")
        return X

    def predict(self, X):
        """The nearest centre of every row, as a lazy dask array (int64)."""
        X = self._new_rows(X)
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
        ann = self._annealer()
        centres = self._initial_centres(X, w)
        zero_tol = self._zero_tol(self._blocks)
        centres, fin, stats, r = self._power_loop(self._blocks, ann, centres, zero_tol)
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


# ---------------------------------------------------------------- rff-power

# rff-power's k-means start Θ₀ stops once the inertia changes by less than
# this (relative): the engine's INIT_TOL (src/algo/rff/common.rs).
_RFF_INIT_TOL = 1e-4


def _rff_part(x, omega, f32):
    return _meanscape.rff_map(np.ascontiguousarray(x), omega, f32)


def _rff_nearest(x, omega, centres, f32):
    return _meanscape.nearest(_rff_part(x, omega, f32), centres)


class RFFPowerKMeans(_DaskCluster):
    """``meanscape.RFFPowerKMeans`` (RFF kernel power k-means) on a dask
    array or dataframe. The random Fourier feature map is row-wise, so
    every chunk maps its own rows (the engine's map, the same frequencies
    Ω from ``rff_seed`` and σ) inside the task that computes its power
    statistics: the n × 2D features are never stored, only recomputed,
    chunk by chunk, in every pass. Then the engine's k-means start Θ₀
    (``init_iter`` Lloyd iterations: the power-mean iteration at s = −∞)
    and power k-means on the features, as ``PowerKMeans`` here.

    Data-dependent defaults, as in memory: ``sigma`` the KPK rule σ² =
    2/(n−1)·Σ‖xᵢ−x̄‖², over all rows in two passes (unweighted, as the
    engine's); ``rff_f32`` 1 for float32 X. ``rff_dim`` (None): the
    engine's rule (the smallest D of its ladder whose map approximates the
    kernel) evaluated on the seeded sample of ``init_size`` rows that
    k-means++ reads, so it equals the in-memory one when the sample is the
    whole data; give it for a fixed D. k-means++ seeds in the feature
    space on that sample; ``init`` may also be k centres in the input
    space, mapped as the rows are. There are no ``cluster_centers_`` (the
    centres live in the feature space): ``feature_centers_`` holds them,
    ``predict`` maps new rows and takes the nearest.
    """

    def __init__(
        self,
        n_clusters=8,
        *,
        sigma=None,
        rff_dim=None,
        rff_seed=0,
        rff_f32=None,
        init_iter=100,
        s0=-15.0,
        eta=1.04,
        period=3,
        s_min=-1000.0,
        tol=1e-06,
        max_iter=500,
        n_init=1,
        init="k-means++",
        random_state=None,
        init_size=None,
    ):
        _store_params(self, locals())

    def _auto_dim(self, X, w, sigma):
        """The engine's automatic D on the seeded sample (a fit of one
        iteration there reports the D it resolved)."""
        sample, ws, seed = self._sample(X, w)
        extra = {} if ws is None else {"sample_weight": np.ascontiguousarray(ws, dtype=np.float64)}
        params = [("sigma", sigma), ("init_iter", 0.0), ("max_iter", 1.0)]
        r = _meanscape.fit("rff-power", sample, int(self.n_clusters), params, [], seed, 1, "kmeans++", **extra)
        return int(dict(r["params"])["rff_dim"])

    def fit(self, X, y=None, sample_weight=None):
        X, w = self._setup(X, sample_weight)
        dask, _ = _dask()
        k, p = self.n_clusters, X.shape[1]
        if self.sigma is None:
            _, ss, n = self._moments()
            sigma = _meanscape.rff_sigma(float(np.sum(ss)), int(n))
        else:
            sigma = float(self.sigma)
        f32 = X.dtype == np.float32 if self.rff_f32 is None else bool(self.rff_f32)
        dim = self._auto_dim(X, w, sigma) if self.rff_dim is None else int(self.rff_dim)
        seed = int(self.rff_seed)
        omega = _meanscape.rff_frequencies(p, sigma, dim, seed)
        om = _broadcast(omega)
        features = [dask.delayed(_rff_part)(b, om, f32) for b in self._blocks]
        centres = self._initial_centres(X, w, lambda rows: _meanscape.rff_map(rows, omega, f32))
        zero_tol = self._zero_tol(features)
        init_iters = 0
        if int(self.init_iter) > 0:
            inf = -math.inf
            hard = _meanscape.Annealer.power(inf, 1.0, 1, inf, _RFF_INIT_TOL, 1.0, int(self.init_iter), int(k))
            centres, _, _, r0 = self._power_loop(features, hard, centres, zero_tol)
            init_iters = int(r0["n_iter"])
        # The in-memory rff-power runs the power loop without the
        # hardness condition (soft_tol 1).
        ann = _meanscape.Annealer.power(
            float(self.s0),
            float(self.eta),
            int(self.period),
            float(self.s_min),
            float(self.tol),
            1.0,
            int(self.max_iter),
            int(k),
        )
        centres, fin, stats, r = self._power_loop(features, ann, centres, zero_tol)
        self.n_iter_ = int(r["n_iter"])
        self.objective_ = float(fin["objective"])
        self.objective_trace_ = r["objective_trace"]
        self.s_trace_ = r["s_trace"]
        self.converged_ = bool(r["converged"])
        self.kernel_weights_ = None
        names = ("init_iter", "s0", "eta", "period", "s_min", "tol", "max_iter")
        self.params_ = {"sigma": sigma, "rff_dim": float(dim), "rff_seed": float(seed), "rff_f32": float(f32)}
        self.params_.update({n: float(getattr(self, n)) for n in names})
        self.extras_ = {"init_iterations": init_iters}
        self.feature_centers_ = centres
        self._omega, self._f32 = omega, f32
        self._finish_fit(X, None, stats["counts"])
        return self

    def predict(self, X):
        """The nearest centre in the feature space of every row (mapped by
        the fitted map), as a lazy dask array (int64)."""
        X = self._new_rows(X)
        return X.map_blocks(_rff_nearest, self._omega, self.feature_centers_, self._f32, dtype=np.int64, drop_axis=1)


# ---------------------------------------------------------------- wkmeans, lw


def _weighted_part(x, centres, v, labels, w, offset, keep):
    return _meanscape.weighted_block(
        np.ascontiguousarray(x),
        _aligned(centres, np.float64),
        multipliers=_aligned(v, np.float64),
        labels=_aligned(labels, np.int64),
        sample_weight=_block_w(w),
        offset=offset,
        keep=keep,
    )


def _dispersion_part(x, part, centres, w):
    labels = _aligned(part["labels"], np.int64)
    return _meanscape.dispersion_block(
        np.ascontiguousarray(x), labels, _aligned(centres, np.float64), sample_weight=_block_w(w)
    )


def _sum_in_order(parts):
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def _same_labels(part, before):
    return bool(np.array_equal(part["labels"], before["labels"]))


def _label_sums(x, part, w, k):
    labels = _aligned(part["labels"], np.int64)
    return _meanscape.label_sums(np.ascontiguousarray(x), labels, k, sample_weight=_block_w(w))


def _zscore(x, mean, sd):
    """(x − mean)/sd per column (0 for a constant column), as the engine's
    z-scores compute it."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(sd > 0, (x - mean) / np.where(sd > 0, sd, 1.0), 0.0)


def _cost(x, part, centres, w):
    """Σ wᵢ ‖xᵢ − c_{labelᵢ}‖² over a block, as ‖x‖² − 2x·c + ‖c‖² clamped
    at 0 (the in-memory estimators' inertia_)."""
    x = np.asarray(x, dtype=np.float64)
    c = centres[part["labels"]]
    d = np.maximum(np.einsum("ij,ij->i", x, x) - 2.0 * np.einsum("ij,ij->i", x, c) + np.einsum("ij,ij->i", c, c), 0.0)
    return float(d.sum() if w is None else d @ np.asarray(w, dtype=np.float64))


def _weighted_nearest(x, centres, v, mean, sd):
    if mean is not None:
        x = _zscore(x, mean, sd)
    return _meanscape.weighted_block(np.ascontiguousarray(x), centres, multipliers=v)["labels"]


class _FeatureWeighted(_DaskCluster):
    """The block-coordinate loop WK-means and LW-k-means share
    (``weighted_loop`` in the engine), two passes over the rows per
    iteration: the reassignment at the previous centres and weights with
    the sums per cluster (``weighted_block``; each chunk's labels stay on
    its worker, persisted, for the next pass), then the per-feature
    dispersions about the new means (``dispersion_block``). The weights,
    the objective and the stopping rule (the engine's ``Annealer``: the
    objective's relative change ≤ tol, no label change, or ``max_iter``)
    run on the client."""

    def _assign(self, blocks, centres, v, prev, keep=0):
        """Every chunk assigned at `centres` by the distance with
        multipliers `v` (None: plain), keeping the labels of `prev` (the
        parts of the previous pass) on ties: merged statistics (with the
        `keep` farthest rows), parts."""
        dask, _ = _dask()
        c = _broadcast(centres)
        vv = None if v is None else _broadcast(np.ascontiguousarray(v, dtype=np.float64))
        prev = prev or [None] * len(blocks)
        parts = [
            dask.delayed(_weighted_part)(
                b, c, vv, None if pp is None else dask.delayed(_labels_of)(pp), wb, off, keep
            )
            for b, wb, pp, off in zip(blocks, self._wblocks, prev, self._offsets)
        ]
        parts = list(dask.persist(*parts))
        stats = self._compute(_tree([dask.delayed(_stats_only)(pp) for pp in parts], _lloyd_merge, keep))
        return stats, parts

    def _dispersions(self, blocks, parts, centres):
        dask, _ = _dask()
        c = _broadcast(centres)
        ds = [dask.delayed(_dispersion_part)(b, pp, c, wb) for b, pp, wb in zip(blocks, parts, self._wblocks)]
        return np.asarray(self._compute(_tree(ds, _sum_in_order)), dtype=np.float64)

    def _block_loop(self, blocks, parts, stats, prev, rule):
        """The engine's loop from the partition in `parts` (`stats` its
        sums; `prev` the centres an empty cluster keeps, or None): returns
        the loop's trace, the last partition's centres, weight step,
        parts and statistics."""
        cap = max(1, int(self.max_iter))
        ann = _meanscape.Annealer.lloyd(cap, int(self.n_clusters))
        z = _meanscape.weighted_centres(stats, prev)
        prev_obj = None
        while (it := ann.iteration()) is not None:
            r = rule(self._dispersions(blocks, parts, z))
            obj = r["objective"]
            converged = prev_obj is not None and abs(prev_obj - obj) <= float(self.tol) * r["scale"]
            prev_obj = obj
            following = None
            if not converged and it[0] < cap:
                following = self._assign(blocks, z, r["multipliers"], parts)
                converged = following[0]["changed"] == 0
            if ann.record(obj, None, stats["counts"].tolist(), 0.0, converged) is not None:
                break
            stats, parts = following
            z = _meanscape.weighted_centres(stats, z)
        return ann.result(), z, r, parts, stats

    def _set_weighted(self, X, res, centres, r, parts, stats):
        dask, da = _dask()
        self.n_iter_ = int(res["n_iter"])
        self.objective_ = float(r["objective"])
        self.objective_trace_ = res["objective_trace"]
        self.s_trace_ = None
        self.kernel_weights_ = None
        self.converged_ = bool(res["converged"])
        self.feature_weights_ = r["weights"]
        self.selected_features_ = np.flatnonzero(self.feature_weights_ > 0)
        self._multipliers = r["multipliers"]
        c = _broadcast(np.ascontiguousarray(centres.astype(X.dtype).astype(np.float64)))
        costs = [dask.delayed(_cost)(b, pp, c, wb) for b, pp, wb in zip(self._blocks, parts, self._wblocks)]
        self.inertia_ = float(self._compute(_tree(costs, _sum_in_order)))
        pieces = [
            da.from_delayed(dask.delayed(_labels_of)(pp), shape=(m,), dtype=np.int64) for pp, m in zip(parts, X.chunks[0])
        ]
        self._finish_fit(X, centres, stats["counts"], labels=da.concatenate(pieces))

    def _check_beta(self):
        # The engine's check and message, before any pass over the data.
        _meanscape.feature_rule([1.0], float(self.beta))

    _zscores = None

    def predict(self, X):
        """The nearest centre of every row by the fitted weighted distance
        (after the fitted z-scores for ``LWKMeans``), as a lazy dask array."""
        X = self._new_rows(X)
        mean, sd = self._zscores or (None, None)
        return X.map_blocks(
            _weighted_nearest, self._space_centres, self._multipliers, mean, sd, dtype=np.int64, drop_axis=1
        )


class WKMeans(_FeatureWeighted):
    """``meanscape.WKMeans`` (Huang et al.'s WK-means) on a dask array or
    dataframe: from the initial centres (given, or k-means++ on a seeded
    sample), the plain nearest-centre partition, then the engine's loop
    (means, dispersions, Huang's weights, the reassignment by Σ w^β (x−z)²
    keeping labels on ties). Equal to the in-memory fit up to the order of
    the floating-point sums. ``labels_`` is lazy (the fit's own labels,
    kept on the workers)."""

    def __init__(self, n_clusters=8, *, beta=4.0, tol=1e-08, max_iter=100, n_init=1, init="k-means++", random_state=None, init_size=None):
        _store_params(self, locals())

    def fit(self, X, y=None, sample_weight=None):
        self._check_beta()
        X, w = self._setup(X, sample_weight)
        beta = float(self.beta)
        centres = self._initial_centres(X, w)
        # Uniform weights: the first assignment is the plain nearest centre.
        stats, parts = self._assign(self._blocks, centres, None, None)
        res, z, r, parts, stats = self._block_loop(
            self._blocks, parts, stats, centres, lambda d: _meanscape.feature_rule(d, beta)
        )
        self.params_ = {"beta": beta, "tol": float(self.tol), "max_iter": float(self.max_iter)}
        self._space_centres = z
        self._set_weighted(X, res, z, r, parts, stats)
        return self


class LWKMeans(_FeatureWeighted):
    """``meanscape.LWKMeans`` (LW-k-means, λ in the authors' code units) on
    a dask array or dataframe: the initial partition is one k-means run
    (the engine's, as ``lw`` runs it from given centres: Lloyd to a 1e-4 ×
    mean-variance shift, at most 300 iterations) from ``init`` (given
    centres, or k-means++ on a seeded sample); then the z-scores (two
    passes: weighted means, then squares about them), α and λ_max from
    the dispersions at that partition, and the engine's loop with the
    lasso weights on the z-scores. Equal to the in-memory fit from the
    same given centres up to the order of the floating-point sums.

    Not offered here: ``nstart`` > 1 (the in-memory default, 50, keeps the
    best of that many k-means runs from k-means++ seeds: 50 distributed
    k-means runs before LW starts; run them with ``meanscape.dask.KMeans``
    and pass the best centres as ``init``).
    """

    def __init__(
        self,
        n_clusters=8,
        *,
        lam=None,
        beta=4.0,
        nstart=1,
        zscore=1,
        code_assign=0,
        tol=1e-08,
        max_iter=100,
        n_init=1,
        init="k-means++",
        random_state=None,
        init_size=None,
    ):
        _store_params(self, locals())

    def _initial_partition(self, centres, tol_abs, max_iter=300):
        """The engine's k-means for lw's start (``lloyd_weighted`` with unit
        multipliers): the parts holding its labels."""
        k, ones = centres.shape[0], np.ones(centres.shape[1])
        before, parts = None, None
        for m in range(1, max_iter + 1):
            stats, parts = self._assign(self._blocks, centres, ones, None, keep=k)
            inertia = stats["inertia"]
            if before is not None and self._same(parts, before):
                break
            if m == max_iter:
                break
            following = _meanscape.weighted_centres(stats, None)
            # An empty cluster moves to the next of the farthest rows (its
            # old cluster keeps its sum), as the engine's lloyd_weighted.
            for j, row in zip(np.flatnonzero(stats["totals"] == 0), stats["far_rows"]):
                following[j] = row
            shift = float(np.sum((following - centres) ** 2))
            centres, before = following, parts
            if shift <= tol_abs:
                # The centres moved too little to matter: one last assignment.
                last, last_parts = self._assign(self._blocks, centres, ones, None)
                if last["inertia"] <= inertia:
                    parts = last_parts
                break
        return parts

    def _same(self, parts, before):
        dask, _ = _dask()
        return all(self._compute([dask.delayed(_same_labels)(a, b) for a, b in zip(parts, before)]))

    def fit(self, X, y=None, sample_weight=None):
        self._check_beta()
        if isinstance(self.init, str) and self.nstart not in (1, None):
            warnings.warn(
                f"meanscape.dask.LWKMeans runs one initial k-means: nstart={self.nstart!r} is taken as 1.",
                RuntimeWarning,
                stacklevel=2,
            )
        X, w = self._setup(X, sample_weight)
        dask, _ = _dask()
        k, (n, p) = self.n_clusters, X.shape
        self._zscores = None
        beta = float(self.beta)
        lam = 1.0 / p if self.lam is None else float(self.lam)
        if not (math.isfinite(lam) and lam >= 0):
            raise ValueError(f"lambda = {lam} is out of range: must be a finite number ≥ 0")
        weighted = w is not None
        centres = self._initial_centres(X, w)
        tol_abs = 1e-4 * self._mean_variance(weighted)
        parts = self._initial_partition(centres, tol_abs)
        blocks = self._blocks
        if self.zscore:
            mean, ss, total = self._moments(weighted)
            # The engine's deviation: denominator n − 1 (Σ s − 1 weighted,
            # 1 if that is not above 1); a column constant up to rounding
            # has none.
            denom = (total - 1.0 if total > 1.0 else 1.0) if weighted else float(max(n - 1, 1))
            sd = np.sqrt(ss / denom)
            sd = np.where(sd > 1e-12 * np.maximum(np.abs(mean), np.finfo(float).tiny), sd, 0.0)
            self._zscores = (mean, sd)
            blocks = [dask.delayed(_zscore)(b, mean, sd) for b in self._blocks]
        sums = [dask.delayed(_label_sums)(b, pp, wb, k) for b, pp, wb in zip(blocks, parts, self._wblocks)]
        stats = self._compute(_tree(sums, _lloyd_merge, 0))
        d0 = self._dispersions(blocks, parts, _meanscape.weighted_centres(stats, None))
        limits = _meanscape.lw_alpha(d0, beta)
        if limits is None:
            raise ValueError(
                "lw: every feature is constant within every cluster of the initial partition, so α is undefined "
                "(is k close to the number of distinct points?)"
            )
        alpha, lambda_max = limits
        mass = float(stats["totals"].sum()) if weighted else float(n)
        code = bool(self.code_assign)

        def rule(d):
            return _meanscape.feature_rule(d, beta, alpha, lam / (p * p), mass, code)

        res, z, r, parts, stats = self._block_loop(blocks, parts, stats, None, rule)
        self._space_centres = z
        centres_in = self._zscores[0] + z * self._zscores[1] if self.zscore else z
        self.params_ = {
            "lambda": lam,
            "beta": beta,
            "nstart": 1.0,
            "zscore": float(bool(self.zscore)),
            "code_assign": float(code),
            "tol": float(self.tol),
            "max_iter": float(self.max_iter),
        }
        self.extras_ = {"alpha": alpha, "lambda_max": lambda_max}
        self._set_weighted(X, res, centres_in, r, parts, stats)
        if not len(self.selected_features_):
            warnings.warn(
                f"no feature selected: lambda = {lam} is at or above lambda_max = {lambda_max:.6e} for this partition "
                "(every weight is 0, so the labels are those of the initial k-means)",
                RuntimeWarning,
                stacklevel=2,
            )
        return self
