"""meanscape: power k-means and its kernel, random-feature and
feature-weighted relatives as scikit-learn estimators, over a Rust engine;
and ``KMeans`` / ``k_means``, scikit-learn's over the engine's Lloyd.

>>> from meanscape import PowerKMeans
>>> PowerKMeans(n_clusters=3, random_state=0).fit(X).labels_  # doctest: +SKIP

Every estimator's keyword arguments and defaults come from the same declared
tables as ``meanscape run`` (``meanscape algorithms ID`` lists them); for the
same data, parameters and seed an estimator gives the CLI's result with
``--scale none`` (the estimators do not scale: put a ``StandardScaler`` in a
``Pipeline``, as the CLI's default ``--scale standard`` does).
"""

import json

import numpy as np
from sklearn.utils.validation import check_array

from . import _meanscape
from ._base import MeanscapeWarning
from ._estimators import *  # noqa: F403
from ._estimators import __all__ as _estimator_names
from ._kmeans import KMeans, k_means

__version__ = _meanscape.__version__
Model = _meanscape.Model

__all__ = ["KMeans", "k_means"] + list(_estimator_names) + ["MeanscapeWarning", "Model", "algorithms", "load", "sweep"]


def algorithms():
    """Every algorithm's id, name, summary, declared parameters (default,
    range, help) and options, as a list of dicts."""
    return json.loads(_meanscape.algorithms())


def load(path, label=None, missing="error", keep_label_column=False):
    """Reads a data file as ``meanscape run --data`` does: CSV/TSV, ``.npy``,
    ``.mat``, IDX, Parquet, Arrow/Feather, a bundled dataset (``iris``) or a
    generator (``gen:blobs,n=1000``), unscaled.

    Parameters
    ----------
    path : str
    label : str or None
        The label column, by name or 0-based index; ``"none"`` for no
        ground truth (a column named label, class, target, y or cluster is
        still left out of ``X``, see ``keep_label_column``); None looks for
        a column named label, class, target, y or cluster.
    missing : {'error', 'impute', 'drop'}
        Empty or non-numeric cells: refuse the file, impute the column
        mean, or drop the row.
    keep_label_column : bool
        With ``label="none"``: keep the column named like labels in ``X``
        as a feature.

    Returns
    -------
    dict with ``X`` (float64, n × p), ``y`` (0-based class ids or None),
    ``label_names``, ``feature_names``, ``name``, ``notes`` and
    ``label_left_out`` (the column left out under ``label="none"``, or
    None).
    """
    return _meanscape.load(str(path), label, missing, keep_label_column)


def sweep(algorithm, X, n_clusters, grid, *, seeds=10, random_state=0, params=None, options=None, y=None, init="k-means++", resamples=0):
    """A sensitivity sweep (``meanscape sweep``): every cell of the grid run
    with ``seeds`` seeds, each run scored without labels (silhouette, CH,
    DB, cost, stability) and, given ``y``, against it (NMI, ARI, ...).

    Parameters
    ----------
    algorithm : str or list of str
        An algorithm id (``"power"``, ``"kpower"``, ...; see ``algorithms()``),
        or several (``["kmeans", "spectral"]``, or ``"kmeans,spectral"`` as
        the CLI's ``-a``): the same grid for each, every algorithm taking
        the ``params`` and ``options`` it declares.
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
        k, unless the grid varies ``k``.
    grid : dict or list of str
        ``{"s0": "-10:-0.1:6:log", "eta": [1.01, 1.04]}`` or the CLI's
        ``--grid`` texts (``["s0=-10:-0.1:6:log"]``); engine names
        (``lambda``, not ``lam``).
    seeds : int
        Runs per cell, seeds random_state, random_state + 1, ...
    params, options : dict
        Fixed engine parameters and options.
    y : array-like of int, optional
        True classes, for the external scores.
    resamples : int
        Splits and reference sets per cell for the resampled label-free
        scores (``prediction_strength``, ``resample_stability``, ``pac``,
        and ``gap`` on a k axis), as ``meanscape sweep --resamples``; 0
        (the default here) computes none of them.

    Returns
    -------
    dict of arrays, one entry per cell in grid order: ``at`` (the value of
    every axis), ``k``, ``collapsed``, ``scores`` (each score's mean and
    ``<name>_sd``), ``best`` (the cell index with the best mean of each
    score, collapsed cells skipped), ``recommended`` (the label-free
    recommendation: ``cell``, ``by`` the rule, ``agreement`` the share of
    the scores' own picks that agree, ``per_score`` each score's pick),
    ``axes``, ``seeds``, ``complete``, ``elapsed_ms``.

    With several algorithms, the structure of ``meanscape sweep -a
    kmeans,spectral --json``: ``algorithms``; ``cells``, a list of dicts
    (``algorithm``, ``at`` naming the algorithm and the axis values, ``k``,
    ``collapsed``, ``scores`` with each score's ``mean`` and ``sd``), every
    algorithm's cells in turn;
    ``families``, each algorithm's own dict as above; ``recommended``
    (``at`` naming the ``algorithm`` and the axis values, ``cell`` its
    position in ``cells``, ``by`` the rule); ``seeds``, ``complete``,
    ``elapsed_ms``.
    """
    X = check_array(X, dtype=[np.float64, np.float32])
    if isinstance(grid, dict):
        axes = []
        for name, values in grid.items():
            if isinstance(values, str):
                axes.append(f"{name}={values}")
            else:
                sep = "|" if any(isinstance(v, str) for v in values) else ","
                axes.append(f"{name}=" + sep.join(str(v) for v in values))
    else:
        axes = list(grid)
    if y is not None:
        y = [int(v) for v in np.asarray(y).ravel()]
    if isinstance(algorithm, str) and "," in algorithm:
        algorithm = [a.strip() for a in algorithm.split(",")]
    run = _meanscape.sweep
    if not isinstance(algorithm, str):
        algorithm = [str(a) for a in algorithm]
        run = _meanscape.sweep_many
    return run(
        algorithm,
        X,
        int(n_clusters),
        axes,
        seeds=int(seeds),
        seed=int(random_state),
        params=[(k, float(v)) for k, v in (params or {}).items()],
        options=[(k, str(v)) for k, v in (options or {}).items()],
        y=y,
        init=init,
        resamples=int(resamples),
    )
