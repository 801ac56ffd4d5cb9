"""What ``meanscape.dask`` and ``meanscape.spark`` share: the per-block
calls into the engine, and the drivers of the families' loops (power
k-means' annealing, rff-power's map and start, the feature-weighted loop of
WK-means and LW-k-means) written once against a few passes each engine
supplies. So the two engines run the same iterations by construction;
they differ only in how a pass reaches the rows.

A subclass supplies (``space``: what an engine passes to its passes to say
in which space the rows are clustered, opaque here; ``parts``: what an
assignment leaves with the rows, their labels):

- ``_n``, ``_p``, ``_dtype`` (float32/float64), ``_weighted`` (sample
  weights given?) and ``_ENGINE`` (the module's name and the engine's);
- ``_sample()``: the seeded sample (rows, their weights or None, seed);
- ``_moments(weighted)``: per feature the mean, the sum of squares about
  it, and the rows' total;
- ``_raw()``, ``_zscored(mean, sd)``, ``_mapped(omega, f32)``: spaces;
- ``_zero_tol(space)``, ``_power_stats(space, centres, s, s_ref, zero_tol)``;
- ``_assign(space, centres, v, prev, keep=0, ties=True)`` → (merged
  statistics, parts), ``_dispersions(space, parts, centres)``,
  ``_label_stats(space, parts)``, ``_inertia(parts, centres)``.
"""

import math
import warnings

import numpy as np

from . import _meanscape
from ._base import _seed

# Statistics merged per task of the reduction tree.
_FAN_IN = 8

# rff-power's k-means start Θ₀ stops once the inertia changes by less than
# this (relative): the engine's INIT_TOL (src/algo/rff/common.rs).
_RFF_INIT_TOL = 1e-4


# ------------------------------------------------------------ block calls


def _aligned(a, dtype):
    """`a` as the engine reads arrays in place: C-contiguous and aligned
    (a buffer unpickled from a worker's frames may be neither)."""
    return None if a is None else np.require(a, dtype=dtype, requirements=["C", "A"])


def _block_w(w):
    return _aligned(w, np.float64)


def _label_dtype(k):
    """The smallest integer type that holds labels 0..k−1: the labels kept
    with the rows between iterations (one per row) are the one thing a
    fit holds in proportion to n, so on data larger than the cluster's
    memory they take 2 bytes a row, not 8."""
    return np.int16 if k <= np.iinfo(np.int16).max else np.int32


def _store_params(estimator, params):
    """scikit-learn's rule for ``__init__``: every parameter stored as
    given, under its own name (`params`: the ``__init__``'s locals())."""
    for name, value in params.items():
        if name != "self":
            setattr(estimator, name, value)


def _lloyd_merge(parts, keep):
    return _meanscape.lloyd_merge(list(parts), keep)


def _power_merge(parts):
    return _meanscape.power_merge(list(parts))


def _sum_in_order(parts):
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


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


def _rff_part(x, omega, f32):
    return _meanscape.rff_map(np.ascontiguousarray(x), omega, f32)


def _rff_nearest(x, omega, centres, f32):
    return _meanscape.nearest(_rff_part(x, omega, f32), centres)


def _zscore(x, mean, sd):
    """(x − mean)/sd per column (0 for a constant column), as the engine's
    z-scores compute it."""
    x = np.asarray(x, dtype=np.float64)
    return np.where(sd > 0, (x - mean) / np.where(sd > 0, sd, 1.0), 0.0)


def _weighted_part(x, centres, v, prev, w, offset, keep, ties=True):
    """A block's ``weighted_block``: `prev` (its labels of an earlier pass)
    kept on ties with `ties`; without, only compared (``changed``: the
    rows whose label differs from `prev`), as lw's initial k-means tests
    for a fixed point without keeping labels. The new labels are stored
    small (``_label_dtype``)."""
    prev = _aligned(prev, np.int64)
    part = _meanscape.weighted_block(
        np.ascontiguousarray(x),
        _aligned(centres, np.float64),
        multipliers=_aligned(v, np.float64),
        labels=prev if ties else None,
        sample_weight=_block_w(w),
        offset=offset,
        keep=keep,
    )
    if prev is not None and not ties:
        part["changed"] = int(np.count_nonzero(part["labels"] != prev))
    part["labels"] = part["labels"].astype(_label_dtype(len(centres)))
    return part


def _dispersion_part(x, labels, centres, w):
    return _meanscape.dispersion_block(
        np.ascontiguousarray(x), _aligned(labels, np.int64), _aligned(centres, np.float64), sample_weight=_block_w(w)
    )


def _label_sums(x, labels, w, k):
    return _meanscape.label_sums(np.ascontiguousarray(x), _aligned(labels, np.int64), k, sample_weight=_block_w(w))


def _cost(x, labels, centres, w):
    """Σ wᵢ ‖xᵢ − c_{labelᵢ}‖² over a block, as ‖x‖² − 2x·c + ‖c‖² clamped
    at 0 (the in-memory estimators' inertia_)."""
    x = np.asarray(x, dtype=np.float64)
    c = centres[np.asarray(labels, dtype=np.int64)]
    d = np.maximum(np.einsum("ij,ij->i", x, x) - 2.0 * np.einsum("ij,ij->i", x, c) + np.einsum("ij,ij->i", c, c), 0.0)
    return float(d.sum() if w is None else d @ np.asarray(w, dtype=np.float64))


def _weighted_nearest(x, centres, v, mean, sd):
    if mean is not None:
        x = _zscore(x, mean, sd)
    return _meanscape.weighted_block(np.ascontiguousarray(x), centres, multipliers=v)["labels"]


# ----------------------------------------------------------------- drivers


class _Driver:
    """Initialisation and the power-mean loop, over the engine's passes."""

    def _initial_centres(self, space=None):
        """The initial centres (float64): given, or the engine's k-means++
        on a seeded sample; `space` maps rows (given centres and the
        sample) to the space the algorithm clusters in."""
        space = space or (lambda rows: rows)
        k, p, init = self.n_clusters, self._p, self.init
        module = self._ENGINE[0]
        if self.n_init not in (1, "auto"):
            warnings.warn(
                f"meanscape.{module} runs one start: n_init={self.n_init!r} is taken as 1.", RuntimeWarning, stacklevel=4
            )
        if not isinstance(init, str):
            c = np.array(init, dtype=self._dtype, copy=True)
            if c.shape != (k, p):
                raise ValueError(f"The shape of the initial centers {c.shape} does not match ({k}, {p}).")
            return np.ascontiguousarray(space(np.ascontiguousarray(c)), dtype=np.float64)
        if init not in ("k-means++", "kmeans++"):
            raise ValueError(f"init = {init!r}: meanscape.{module} takes 'k-means++' or an array of centres")
        sample, ws, seed = self._sample()
        sample = np.ascontiguousarray(space(sample))
        extra = {} if ws is None else {"sample_weight": np.ascontiguousarray(ws, dtype=np.float64)}
        # One assignment at the seeds: the engine's k-means++ centres.
        r = _meanscape.fit(
            "kmeans", sample, int(k), [("max_iter", 1.0), ("tol", 0.0)], [], seed, 1, "kmeans++", **extra
        )
        return np.ascontiguousarray(r["centroids"], dtype=np.float64)

    def _sample_size(self):
        """``init_size`` (default ``min(n, max(10000, 20·k))``), at least k."""
        k, n = self.n_clusters, self._n
        size = self.init_size if self.init_size is not None else min(n, max(10_000, 20 * k))
        return int(min(max(size, k), n))

    def _sample_rows(self):
        """The rows of the seeded sample: ``_sample_size()`` indices drawn
        uniformly without replacement with
        ``numpy.random.default_rng(random_state)``, sorted; the seed."""
        seed = _seed(self.random_state)
        idx = np.sort(np.random.default_rng(seed).choice(self._n, size=self._sample_size(), replace=False))
        return idx, seed

    def _mean_variance(self, weighted=False):
        """The mean over the features of their population variance
        (weighted: as if each row were repeated by its weight)."""
        _, ss, n = self._moments(weighted)
        return float(np.mean(ss / (n if n > 0 else 1)))

    def _power_loop(self, space, ann, centres, zero_tol):
        """The engine's power-mean iteration over the rows in `space` from
        `centres`, driven by the Annealer `ann` until it stops: the
        centres evaluated last, their update (`fin`), the merged
        statistics and the trace."""
        fin, stats = None, None
        while (it := ann.iteration()) is not None:
            _, s, s_ref = it
            stats = self._power_stats(space, centres, s, s_ref, zero_tol)
            fin = _meanscape.power_finish(stats, centres, s_ref is not None)
            stop = ann.record(fin["objective"], fin["objective_ref"], stats["counts"].tolist(), fin["softness"], False)
            if stop is not None:
                break
            centres = fin["centres"]
        return centres, fin, stats, ann.result()


class _PowerRules:
    """The engine parameters and annealer of a distributed ``PowerKMeans``."""

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


class _RFFPower(_Driver):
    """rff-power: the map's bandwidth and size, Ω, the k-means start Θ₀ and
    power k-means on the features, every pass mapping its rows itself."""

    def _auto_dim(self, sigma):
        """The engine's automatic D on the seeded sample (a fit of one
        iteration there reports the D it resolved)."""
        sample, ws, seed = self._sample()
        extra = {} if ws is None else {"sample_weight": np.ascontiguousarray(ws, dtype=np.float64)}
        params = [("sigma", sigma), ("init_iter", 0.0), ("max_iter", 1.0)]
        r = _meanscape.fit("rff-power", sample, int(self.n_clusters), params, [], seed, 1, "kmeans++", **extra)
        return int(dict(r["params"])["rff_dim"])

    def _fit_rff(self):
        """The fit: its attributes, and (Ω, f32) for the map of new rows."""
        k, p = self.n_clusters, self._p
        if self.sigma is None:
            _, ss, n = self._moments()
            sigma = _meanscape.rff_sigma(float(np.sum(ss)), int(n))
        else:
            sigma = float(self.sigma)
        f32 = self._dtype == np.float32 if self.rff_f32 is None else bool(self.rff_f32)
        dim = self._auto_dim(sigma) if self.rff_dim is None else int(self.rff_dim)
        seed = int(self.rff_seed)
        omega = _meanscape.rff_frequencies(p, sigma, dim, seed)
        space = self._mapped(omega, f32)
        centres = self._initial_centres(lambda rows: _meanscape.rff_map(rows, omega, f32))
        zero_tol = self._zero_tol(space)
        init_iters = 0
        if int(self.init_iter) > 0:
            inf = -math.inf
            hard = _meanscape.Annealer.power(inf, 1.0, 1, inf, _RFF_INIT_TOL, 1.0, int(self.init_iter), int(k))
            centres, _, _, r0 = self._power_loop(space, hard, centres, zero_tol)
            init_iters = int(r0["n_iter"])
        # The in-memory rff-power runs the power loop without the
        # hardness condition (soft_tol 1).
        ann = _meanscape.Annealer.power(
            float(self.s0), float(self.eta), int(self.period), float(self.s_min), float(self.tol), 1.0, int(self.max_iter), int(k)
        )
        centres, fin, stats, r = self._power_loop(space, ann, centres, zero_tol)
        names = ("init_iter", "s0", "eta", "period", "s_min", "tol", "max_iter")
        params = {"sigma": sigma, "rff_dim": float(dim), "rff_seed": float(seed), "rff_f32": float(f32)}
        params.update({n: float(getattr(self, n)) for n in names})
        attrs = dict(
            n_iter_=int(r["n_iter"]),
            objective_=float(fin["objective"]),
            objective_trace_=r["objective_trace"],
            s_trace_=r["s_trace"],
            converged_=bool(r["converged"]),
            kernel_weights_=None,
            params_=params,
            extras_={"init_iterations": init_iters},
            feature_centers_=centres,
        )
        return attrs, stats["counts"], (omega, f32)


class _FeatureWeighted(_Driver):
    """The block-coordinate loop WK-means and LW-k-means share
    (``weighted_loop`` in the engine), two passes over the rows per
    iteration: the reassignment at the previous centres and weights with
    the sums per cluster (``_assign``; the labels stay with the rows for
    the next pass), then the per-feature dispersions about the new means
    (``_dispersions``). The weights, the objective and the stopping rule
    (the engine's ``Annealer``: the objective's relative change ≤ tol, no
    label change, or ``max_iter``) run on the client."""

    def _check_beta(self):
        # The engine's check and message, before any pass over the data.
        _meanscape.feature_rule([1.0], float(self.beta))

    def _block_loop(self, space, start, prev, rule):
        """The engine's loop from a partition, `start` = [its statistics,
        its parts] (`prev`: the centres an empty cluster keeps, or None):
        returns the loop's trace, the last partition's centres, weight
        step, parts and statistics. `start` is emptied: the caller keeps
        no reference to the parts, so each is released (its labels
        uncached on Spark) as soon as the loop moves past it."""
        stats, parts = start
        start.clear()
        cap = max(1, int(self.max_iter))
        ann = _meanscape.Annealer.lloyd(cap, int(self.n_clusters))
        z = _meanscape.weighted_centres(stats, prev)
        prev_obj = None
        while (it := ann.iteration()) is not None:
            r = rule(self._dispersions(space, parts, z))
            obj = r["objective"]
            converged = prev_obj is not None and abs(prev_obj - obj) <= float(self.tol) * r["scale"]
            prev_obj = obj
            following = None
            if not converged and it[0] < cap:
                following = self._assign(space, z, r["multipliers"], parts)
                converged = following[0]["changed"] == 0
            if ann.record(obj, None, stats["counts"].tolist(), 0.0, converged) is not None:
                break
            stats, parts = following
            z = _meanscape.weighted_centres(stats, z)
        return ann.result(), z, r, parts, stats

    def _weighted_fit(self, res, centres, r, parts, stats, params, extras=None):
        """The fitted attributes of the loop's result (`centres` in the
        input space), the inertia (one more pass) among them."""
        attrs = dict(
            n_iter_=int(res["n_iter"]),
            objective_=float(r["objective"]),
            objective_trace_=res["objective_trace"],
            s_trace_=None,
            kernel_weights_=None,
            converged_=bool(res["converged"]),
            feature_weights_=r["weights"],
            selected_features_=np.flatnonzero(r["weights"] > 0),
            params_=params,
        )
        if extras is not None:
            attrs["extras_"] = extras
        attrs["inertia_"] = self._inertia(parts, np.ascontiguousarray(centres.astype(self._dtype).astype(np.float64)))
        return attrs

    def _fit_wk(self):
        """WK-means: its attributes, centres, the predictor's multipliers,
        the final parts and statistics."""
        beta = float(self.beta)
        raw = self._raw()
        centres = self._initial_centres()
        # Uniform weights: the first assignment is the plain nearest centre.
        start = list(self._assign(raw, centres, None, None))
        res, z, r, parts, stats = self._block_loop(raw, start, centres, lambda d: _meanscape.feature_rule(d, beta))
        params = {"beta": beta, "tol": float(self.tol), "max_iter": float(self.max_iter)}
        return self._weighted_fit(res, z, r, parts, stats, params), z, r["multipliers"], parts, stats

    def _initial_partition(self, centres, tol_abs, max_iter=300):
        """The engine's k-means for lw's start (``lloyd_weighted`` with unit
        multipliers): the parts holding its labels."""
        k, ones, raw = centres.shape[0], np.ones(centres.shape[1]), self._raw()
        before, parts = None, None
        for m in range(1, max_iter + 1):
            # Labels compared with the previous pass's, not kept on ties.
            stats, parts = self._assign(raw, centres, ones, before, keep=k, ties=False)
            inertia = stats["inertia"]
            if before is not None and stats["changed"] == 0:
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
                last, last_parts = self._assign(raw, centres, ones, None)
                if last["inertia"] <= inertia:
                    parts = last_parts
                break
        return parts

    def _fit_lw(self):
        """LW-k-means from one initial k-means: its attributes, centres in
        the input space, the predictor's centres (z-scored) and
        multipliers, the z-scores (or None), the final parts and
        statistics."""
        n, p = self._n, self._p
        beta = float(self.beta)
        lam = 1.0 / p if self.lam is None else float(self.lam)
        if not (math.isfinite(lam) and lam >= 0):
            raise ValueError(f"lambda = {lam} is out of range: must be a finite number ≥ 0")
        weighted = self._weighted
        centres = self._initial_centres()
        tol_abs = 1e-4 * self._mean_variance(weighted)
        parts = self._initial_partition(centres, tol_abs)
        space, zscores = self._raw(), None
        if self.zscore:
            mean, ss, total = self._moments(weighted)
            # The engine's deviation: denominator n − 1 (Σ s − 1 weighted,
            # 1 if that is not above 1); a column constant up to rounding
            # has none.
            denom = (total - 1.0 if total > 1.0 else 1.0) if weighted else float(max(n - 1, 1))
            sd = np.sqrt(ss / denom)
            sd = np.where(sd > 1e-12 * np.maximum(np.abs(mean), np.finfo(float).tiny), sd, 0.0)
            zscores = (mean, sd)
            space = self._zscored(mean, sd)
        stats = self._label_stats(space, parts)
        d0 = self._dispersions(space, parts, _meanscape.weighted_centres(stats, None))
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

        start = [stats, parts]
        del parts
        res, z, r, parts, stats = self._block_loop(space, start, None, rule)
        centres_in = zscores[0] + z * zscores[1] if zscores is not None else z
        params = {
            "lambda": lam,
            "beta": beta,
            "nstart": 1.0,
            "zscore": float(bool(self.zscore)),
            "code_assign": float(code),
            "tol": float(self.tol),
            "max_iter": float(self.max_iter),
        }
        extras = {"alpha": alpha, "lambda_max": lambda_max}
        attrs = self._weighted_fit(res, centres_in, r, parts, stats, params, extras)
        if not len(attrs["selected_features_"]):
            warnings.warn(
                f"no feature selected: lambda = {lam} is at or above lambda_max = {lambda_max:.6e} for this partition "
                "(every weight is 0, so the labels are those of the initial k-means)",
                RuntimeWarning,
                stacklevel=4,
            )
        return attrs, centres_in, z, r["multipliers"], zscores, parts, stats
