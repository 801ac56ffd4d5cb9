"""``meanscape.dask``: k-means, power k-means, k-harmonic means, RFF kernel
power k-means, WK-means and LW-k-means on Dask collections larger than one
machine's memory.

Every iteration is a map-reduce over the row chunks: per chunk the engine's
block step (``_meanscape.lloyd_block`` / ``lloyd_block_bounded`` /
``power_block`` / ``weighted_block``: the steps the in-memory solvers
run, GIL released; k-means' bounded step keeps a per-chunk state on the
worker between iterations)
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
from ._distributed import (
    _FAN_IN,
    _Driver,
    _FeatureWeighted,
    _KhmRules,
    _PowerRules,
    _RFFPower,
    _add_pairs,
    _block_w,
    _col_sums,
    _cost,
    _dispersion_part,
    _label_dtype,
    _label_sums,
    _lloyd_merge,
    _max_sq_norm,
    _nearest,
    _power_merge,
    _power_part,
    _rff_nearest,
    _rff_part,
    _sq_about,
    _store_params,
    _sum_in_order,
    _weighted_nearest,
    _weighted_part,
    _zscore,
)

# Tries of a k-means pass whose workers are lost (the first included).
_LOST_WORKER_TRIES = 3


def _lost_worker(e):
    """Whether `e` says Dask lost a worker, or data that lived on one."""
    try:
        from distributed import KilledWorker
        from distributed.client import FutureCancelledError
        from distributed.comm import CommClosedError
    except ImportError:
        return False
    return isinstance(e, (KilledWorker, FutureCancelledError, CommClosedError))


__all__ = ["KMeans", "PowerKMeans", "KHarmonicMeans", "RFFPowerKMeans", "WKMeans", "LWKMeans"]



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


def _lloyd_part(x, centres, prev_labels, w, offset, keep, labels, prev_centres=None):
    part = _meanscape.lloyd_block(
        np.ascontiguousarray(x),
        centres,
        sample_weight=_block_w(w),
        prev=prev_centres,
        offset=offset,
        keep=keep,
        prev_labels=None if prev_labels is None else prev_labels.astype(np.int64),
        return_labels=labels,
    )
    if labels:
        part["labels"] = part["labels"].astype(_label_dtype(len(centres)))
    return part


def _lloyd_bounded_part(x, centres, prev_part, exact, w, offset, keep):
    part, state = _meanscape.lloyd_block_bounded(
        np.ascontiguousarray(x),
        centres,
        state=None if prev_part is None else prev_part["state"],
        exact=exact,
        sample_weight=_block_w(w),
        offset=offset,
        keep=keep,
    )
    part["state"] = state
    return part


def _stats_only(part):
    return {key: v for key, v in part.items() if key not in ("labels", "state")}


def _lloyd_merge_parts(parts, keep):
    """``_lloyd_merge`` of parts that still hold their labels or state."""
    return _lloyd_merge([_stats_only(p) for p in parts], keep)


def _merged_lloyd(parts, k):
    """The tree of merges of the chunks' Lloyd parts. On a cluster each
    part is first cut down to its statistics where it lies, so that only
    k × p numbers travel to a merge; on threads the merges read the parts
    in place (fewer graph nodes per iteration)."""
    dask, _ = _dask()
    if _client() is None and len(parts) > 1:
        return _tree(parts, _lloyd_merge_parts, k)
    return _tree([dask.delayed(_stats_only)(pp) for pp in parts], _lloyd_merge, k)


def _persisted_with_stats(parts, k):
    """`parts` persisted (kept for the next iteration) and their merged
    statistics, computed in the same run of the scheduler."""
    dask, _ = _dask()
    *parts, root = dask.persist(*parts, _merged_lloyd(parts, k))
    (stats,) = dask.compute(root)
    return stats, parts


def _labels_of(part):
    return part["labels"]



class _DaskCluster(_Driver, ClusterMixin, BaseEstimator):
    """What the Dask estimators share: input, the passes over the chunks
    the shared drivers call (``_distributed``), lazy labels. A space is a
    list of delayed blocks (the chunks, or the chunks mapped)."""

    _ENGINE = ("dask", "Dask")

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
        self._X, self._w = X, w
        self._n, self._p, self._dtype, self._weighted = n, p, X.dtype, w is not None
        self._blocks = list(X.to_delayed().ravel())
        self._wblocks = list(w.to_delayed().ravel()) if w is not None else [None] * len(self._blocks)
        self._offsets = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).astype(int).tolist()
        return X, w

    def _sample(self):
        """The seeded sample's rows (in row order), their weights, the seed."""
        idx, seed = self._sample_rows()
        dask, _ = _dask()
        sample, ws = dask.compute(self._X[idx], None if self._w is None else self._w[idx])
        return np.ascontiguousarray(sample), ws, seed

    def _raw(self):
        return self._blocks

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

    def _compute(self, root):
        dask, _ = _dask()
        (out,) = dask.compute(root)
        return out

    def _lloyd_stats(self, centres, prev=None, keep_labels=False, prev_centres=None):
        """The merged Lloyd statistics at `centres`; `prev` the previous
        iteration's parts, whose labels stay where they were computed
        (persisted on the workers) and give the rows that changed (or,
        without them, `prev_centres`: each chunk assigned to them again).
        With `keep_labels`, also this iteration's parts, persisted."""
        dask, _ = _dask()
        k = centres.shape[0]
        c = _broadcast(centres)
        pc = None if prev_centres is None else _broadcast(prev_centres)
        prev = prev or [None] * len(self._blocks)
        parts = [
            dask.delayed(_lloyd_part)(
                b, c, None if pp is None else dask.delayed(_labels_of)(pp), wb, off, k, keep_labels, pc
            )
            for b, wb, off, pp in zip(self._blocks, self._wblocks, self._offsets, prev)
        ]
        if keep_labels:
            return _persisted_with_stats(parts, k)
        return self._compute(_merged_lloyd(parts, k)), parts

    def _lloyd_pass(self, centres, prev, exact):
        """One k-means pass from the previous iteration's parts `prev`: with
        bounds (every distance when `exact`), or every distance and labels
        kept (``bounded=False``)."""
        if self.bounded:
            return self._bounded_stats(centres, prev, exact)
        return self._lloyd_stats(centres, prev, keep_labels=True)

    def _kept_or_again(self, run, centres, prev_centres, m):
        """`run()`, the pass of iteration `m`. When a worker was lost with
        what the previous iteration kept on it (labels or bounds, which Dask
        cannot compute again: their own inputs are released), the pass runs
        again without them (``_lloyd_again``); a first pass, which keeps
        nothing from before, runs again as it was (Dask recomputes its
        chunks). A worker lost on every try ends the fit with an error."""
        for attempt in range(_LOST_WORKER_TRIES):
            try:
                if attempt == 0 or prev_centres is None:
                    return run()
                return self._lloyd_again(centres, prev_centres)
            except Exception as e:
                if not _lost_worker(e):
                    raise
                lost = e
                warnings.warn(
                    f"meanscape.dask: a Dask worker was lost at iteration {m} ({type(e).__name__}); "
                    "the iteration runs again",
                    RuntimeWarning,
                    stacklevel=4,
                )
        raise RuntimeError(
            f"meanscape.dask: iteration {m} lost a Dask worker on each of {_LOST_WORKER_TRIES} tries; "
            "the fit stops rather than guess"
        ) from lost

    def _lloyd_again(self, centres, prev_centres):
        """A k-means pass at `centres` that needs nothing kept from the
        previous iteration: the rows that changed are counted against
        `prev_centres` (each chunk assigned to them once more); with bounds,
        every chunk's state starts again from every distance. The same
        statistics as the pass it replaces, for one or two extra passes."""
        stats, parts = self._lloyd_stats(
            centres, None, keep_labels=not self.bounded, prev_centres=prev_centres
        )
        if self.bounded:
            del parts
            _, parts = self._bounded_stats(centres, None, True)
        return stats, parts

    def _bounded_stats(self, centres, prev, exact):
        """The merged Lloyd statistics at `centres` from each chunk's
        bounded-Lloyd state in `prev` (the previous iteration's parts,
        persisted on the workers; None: the first iteration), every
        distance computed when `exact`; also this iteration's parts,
        persisted, whose states the next iteration starts from."""
        dask, _ = _dask()
        k = centres.shape[0]
        c = _broadcast(centres)
        prev = prev or [None] * len(self._blocks)
        parts = [
            dask.delayed(_lloyd_bounded_part)(b, c, pp, exact, wb, off, k)
            for b, wb, off, pp in zip(self._blocks, self._wblocks, self._offsets, prev)
        ]
        return _persisted_with_stats(parts, k)

    def _power_stats(self, blocks, centres, s, s_ref, zero_tol):
        dask, _ = _dask()
        c = _broadcast(centres)
        parts = [dask.delayed(_power_part)(b, c, s, s_ref, wb, zero_tol) for b, wb in zip(blocks, self._wblocks)]
        return self._compute(_tree(parts, _power_merge))

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
        for attr in ("_blocks", "_wblocks", "_offsets", "_X", "_w"):
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



class KMeans(_DaskCluster):
    """``meanscape.KMeans`` (scikit-learn's k-means, the engine's Lloyd) on a
    dask array or dataframe. Same stopping rule (squared centre shift ≤ tol
    × mean feature variance, or no label change), same empty-cluster rule
    (moved to the farthest rows), same ``n_iter_``; ``labels_`` is lazy.
    With ``bounded`` (the default), each chunk keeps on its worker
    (persisted, one iteration at a time) the engine's Hamerly bounds, its
    labels and cluster sums, and recomputes only the rows whose nearest
    centre may have changed, as the in-memory k-means does; the first and
    last iterations, and any that finds an empty cluster, compute every
    distance. ``bounded=False`` computes every distance every iteration
    (only each chunk's labels stay on its worker). The results are the
    same either way; nothing per row reaches the client.
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
        bounded=True,
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
        self.bounded = bounded

    def fit(self, X, y=None, sample_weight=None):
        # copy_x: X is never modified; 'lloyd' and 'elkan' give the same
        # result in the engine, and `bounded` (not `algorithm`) decides
        # whether a chunk's rows are skipped by their bounds.
        if self.algorithm not in ("lloyd", "elkan"):
            raise ValueError(f"algorithm = {self.algorithm!r} must be 'lloyd' or 'elkan'")
        X, w = self._setup(X, sample_weight)
        centres = self._initial_centres()
        # scikit-learn's absolute tolerance: the unweighted mean variance.
        tol_abs = float(self.tol) * self._mean_variance()
        k = self.n_clusters
        # The engine counts assignments; scikit-learn's max_iter counts
        # assignment + update pairs and then assigns once more.
        cap = int(self.max_iter) + 1
        ann = _meanscape.Annealer.lloyd(cap, int(k))
        prev, prev_centres, shift, stop, stats = None, None, math.inf, None, None
        while (it := ann.iteration()) is not None:
            # Every distance where the in-memory loop computes them: the
            # first iteration, and one known to be the last.
            exact = prev is None or shift <= tol_abs or it[0] >= cap
            stats, parts = self._kept_or_again(
                lambda: self._lloyd_pass(centres, prev, exact), centres, prev_centres, it[0]
            )
            settled = (prev is not None and stats["changed"] == 0) or shift <= tol_abs
            if self.bounded and not exact and (settled or np.any(stats["totals"] == 0)):
                # The last iteration's inertia is summed from every distance,
                # and an empty cluster moves to the farthest rows: again, with
                # every distance (the labels are the same).
                del parts
                stats, parts = self._kept_or_again(
                    lambda: self._bounded_stats(centres, prev, True), centres, prev_centres, it[0]
                )
            stop = ann.record(stats["inertia"], None, stats["counts"].tolist(), 0.0, settled)
            if stop is not None:
                break
            prev_centres = centres
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
        centres = self._initial_centres()
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


class RFFPowerKMeans(_RFFPower, _DaskCluster):
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

    def _mapped(self, omega, f32):
        om = _broadcast(omega)
        dask, _ = _dask()
        return [dask.delayed(_rff_part)(b, om, f32) for b in self._blocks]

    def fit(self, X, y=None, sample_weight=None):
        X, _ = self._setup(X, sample_weight)
        attrs, counts, (self._omega, self._f32) = self._fit_rff()
        for name, value in attrs.items():
            setattr(self, name, value)
        self._finish_fit(X, None, counts)
        return self

    def predict(self, X):
        """The nearest centre in the feature space of every row (mapped by
        the fitted map), as a lazy dask array (int64)."""
        X = self._new_rows(X)
        return X.map_blocks(_rff_nearest, self._omega, self.feature_centers_, self._f32, dtype=np.int64, drop_axis=1)




# ---------------------------------------------------------------- wkmeans, lw


def _labels64(part):
    return part["labels"].astype(np.int64)


class _DaskWeighted(_FeatureWeighted, _DaskCluster):
    """The feature-weighted loop's passes on Dask: each chunk's labels
    stay on its worker (persisted parts) from one pass to the next."""

    def _compute(self, root):
        try:
            return super()._compute(root)
        except Exception as e:
            if not _lost_worker(e):
                raise
            raise RuntimeError(
                f"meanscape.dask.{type(self).__name__}: a Dask worker was lost with the labels this fit "
                "keeps on the workers from one pass to the next, which Dask cannot compute again; "
                f"fit again ({type(e).__name__}: {e})"
            ) from e

    def _zscored(self, mean, sd):
        dask, _ = _dask()
        return [dask.delayed(_zscore)(b, mean, sd) for b in self._blocks]

    def _assign(self, blocks, centres, v, prev, keep=0, ties=True):
        """Every chunk assigned at `centres` by the distance with
        multipliers `v` (None: plain), keeping the labels of `prev` (the
        parts of the previous pass) on ties (with `ties`; else only
        counting the rows that changed): merged statistics (with the
        `keep` farthest rows), parts."""
        dask, _ = _dask()
        c = _broadcast(centres)
        vv = None if v is None else _broadcast(np.ascontiguousarray(v, dtype=np.float64))
        prev = prev or [None] * len(blocks)
        parts = [
            dask.delayed(_weighted_part)(
                b, c, vv, None if pp is None else dask.delayed(_labels_of)(pp), wb, off, keep, ties
            )
            for b, wb, pp, off in zip(blocks, self._wblocks, prev, self._offsets)
        ]
        parts = list(dask.persist(*parts))
        stats = self._compute(_tree([dask.delayed(_stats_only)(pp) for pp in parts], _lloyd_merge, keep))
        return stats, parts

    def _dispersions(self, blocks, parts, centres):
        dask, _ = _dask()
        c = _broadcast(centres)
        ds = [
            dask.delayed(_dispersion_part)(b, dask.delayed(_labels_of)(pp), c, wb)
            for b, pp, wb in zip(blocks, parts, self._wblocks)
        ]
        return np.asarray(self._compute(_tree(ds, _sum_in_order)), dtype=np.float64)

    def _label_stats(self, blocks, parts):
        dask, _ = _dask()
        k = self.n_clusters
        sums = [
            dask.delayed(_label_sums)(b, dask.delayed(_labels_of)(pp), wb, k)
            for b, pp, wb in zip(blocks, parts, self._wblocks)
        ]
        return self._compute(_tree(sums, _lloyd_merge, 0))

    def _inertia(self, parts, centres):
        dask, _ = _dask()
        c = _broadcast(centres)
        costs = [
            dask.delayed(_cost)(b, dask.delayed(_labels_of)(pp), c, wb)
            for b, pp, wb in zip(self._blocks, parts, self._wblocks)
        ]
        return float(self._compute(_tree(costs, _sum_in_order)))

    def _set_weighted(self, X, attrs, centres, space_centres, multipliers, parts, stats):
        """The fitted attributes; ``labels_`` the fit's own, lazy."""
        dask, da = _dask()
        for name, value in attrs.items():
            setattr(self, name, value)
        self._space_centres, self._multipliers = space_centres, multipliers
        pieces = [
            da.from_delayed(dask.delayed(_labels64)(pp), shape=(m,), dtype=np.int64) for pp, m in zip(parts, X.chunks[0])
        ]
        self._finish_fit(X, centres, stats["counts"], labels=da.concatenate(pieces))

    _zscores = None

    def predict(self, X):
        """The nearest centre of every row by the fitted weighted distance
        (after the fitted z-scores for ``LWKMeans``), as a lazy dask array."""
        X = self._new_rows(X)
        mean, sd = self._zscores or (None, None)
        return X.map_blocks(
            _weighted_nearest, self._space_centres, self._multipliers, mean, sd, dtype=np.int64, drop_axis=1
        )


class WKMeans(_DaskWeighted):
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
        X, _ = self._setup(X, sample_weight)
        attrs, z, v, parts, stats = self._fit_wk()
        self._set_weighted(X, attrs, z, z, v, parts, stats)
        return self


class LWKMeans(_DaskWeighted):
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

    def fit(self, X, y=None, sample_weight=None):
        self._check_beta()
        if isinstance(self.init, str) and self.nstart not in (1, None):
            warnings.warn(
                f"meanscape.dask.LWKMeans runs one initial k-means: nstart={self.nstart!r} is taken as 1.",
                RuntimeWarning,
                stacklevel=2,
            )
        X, _ = self._setup(X, sample_weight)
        self._zscores = None
        attrs, centres, z, v, zscores, parts, stats = self._fit_lw()
        self._zscores = zscores
        self._set_weighted(X, attrs, centres, z, v, parts, stats)
        return self
