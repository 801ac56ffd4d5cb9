"""meanscape.dask = the in-memory estimators, from the same given centres:
centres, objective, n_iter_ and labels to 1e-9 relative, for uneven,
single-row and smaller-than-k chunks, float32, dataframes, sample
weights, and a two-process LocalCluster (bounded in time); k-means with
bounds kept on the workers (the default) = with every distance."""

import os
import time
import warnings

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

import meanscape
from meanscape import _meanscape
from meanscape import dask as mdask

RTOL = 1e-9


def blobs(n=600, p=3, k=4, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=6.0, size=(k, p))
    X = centres[rng.integers(0, k, n)] + rng.normal(size=(n, p))
    return X.astype(dtype)


def start(X, k):
    return np.ascontiguousarray(X[:: max(1, len(X) // k)][:k], dtype=np.float64)


CHUNKINGS = {
    "uneven": (100, 1, 250, 7, 242),
    "single-rows-then-rest": (1, 1, 1, 1, 596),
    "smaller-than-k": (3, 2, 595),
    "one": (600,),
}


def close(a, b, rtol=RTOL):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=rtol, atol=0)


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
def test_kmeans_equals_in_memory(chunks):
    X = blobs()
    c0 = start(X, 4)
    ref = meanscape.KMeans(4, init=c0, n_init=1).fit(X)
    got = mdask.KMeans(4, init=c0).fit(da.from_array(X, chunks=(CHUNKINGS[chunks], 3)))
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.inertia_, ref.inertia_)
    assert got.n_iter_ == ref.n_iter_
    assert isinstance(got.labels_, da.Array)
    np.testing.assert_array_equal(got.labels_.compute(), ref.labels_)


def test_kmeans_moves_an_empty_cluster_as_in_memory():
    X = blobs(seed=3)
    c0 = start(X, 4)
    c0[3] = 1e3
    ref = meanscape.KMeans(4, init=c0, n_init=1).fit(X)
    got = mdask.KMeans(4, init=c0).fit(da.from_array(X, chunks=((50, 300, 250), 3)))
    close(got.cluster_centers_, ref.cluster_centers_)
    assert got.n_iter_ == ref.n_iter_
    np.testing.assert_array_equal(got.labels_.compute(), ref.labels_)


@pytest.mark.parametrize("chunks", list(CHUNKINGS))
def test_power_equals_in_memory(chunks):
    X = blobs(seed=1)
    c0 = start(X, 4)
    kw = dict(s0=-2.0, eta=1.1, period=3, max_iter=80)
    ref = meanscape.PowerKMeans(4, init=c0, **kw).fit(X)
    got = mdask.PowerKMeans(4, init=c0, **kw).fit(da.from_array(X, chunks=(CHUNKINGS[chunks], 3)))
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.objective_, ref.objective_)
    close(got.objective_trace_, ref.objective_trace_)
    close(got.s_trace_, ref.s_trace_, rtol=0)
    close(got.inertia_, ref.inertia_)
    assert got.converged_ == ref.converged_
    assert {n: ref.params_[n] for n in got.params_} == got.params_
    np.testing.assert_array_equal(got.labels_.compute(), ref.labels_)


def test_power_with_the_hardness_condition_and_weights():
    X = blobs(seed=2)
    w = np.random.default_rng(0).uniform(0.2, 3.0, len(X))
    c0 = start(X, 4)
    kw = dict(s0=-1.0, eta=1.2, period=2, soft_tol=0.001, max_iter=60)
    ref = meanscape.PowerKMeans(4, init=c0, **kw).fit(X, sample_weight=w)
    got = mdask.PowerKMeans(4, init=c0, **kw).fit(
        da.from_array(X, chunks=((200, 1, 399), 3)), sample_weight=da.from_array(w, chunks=100)
    )
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.objective_trace_, ref.objective_trace_)


def test_an_empty_partition_and_blocks_over_a_task():
    X = blobs(n=5000, seed=10)
    c0 = start(X, 5)
    chunks = ((2500, 0, 1500, 1, 999), 3)
    ref = meanscape.PowerKMeans(5, init=c0, max_iter=60).fit(X)
    got = mdask.PowerKMeans(5, init=c0, max_iter=60).fit(da.from_array(X, chunks=chunks))
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.objective_trace_, ref.objective_trace_)
    ref = meanscape.KMeans(5, init=c0, n_init=1).fit(X)
    got = mdask.KMeans(5, init=c0).fit(da.from_array(X, chunks=chunks))
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    np.testing.assert_array_equal(got.labels_.compute(), ref.labels_)


def test_kmeans_with_sample_weights():
    X = blobs(seed=11)
    w = np.random.default_rng(1).integers(0, 4, len(X)).astype(np.float64)
    c0 = start(X, 4)
    ref = meanscape.KMeans(4, init=c0, n_init=1).fit(X, sample_weight=w)
    got = mdask.KMeans(4, init=c0).fit(da.from_array(X, chunks=(77, 3)), sample_weight=w)
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.inertia_, ref.inertia_)


def _trace(capsys, est, X, **fit):
    """The objective per iteration, as `verbose` prints it."""
    capsys.readouterr()
    est.set_params(verbose=1).fit(X, **fit)
    lines = capsys.readouterr().out.splitlines()
    return [float(line.split("inertia ")[1].rstrip(".")) for line in lines if line.startswith("Iteration ")]


BOUNDED_CASES = {
    "blobs-uneven": dict(n=600, p=3, k=4, seed=0, chunks=(100, 1, 250, 7, 242)),
    "single-rows": dict(n=600, p=3, k=4, seed=1, chunks=(1, 1, 1, 1, 596)),
    "wide-many-k": dict(n=3000, p=12, k=9, seed=2, chunks=(1000, 999, 1001)),
    "k-above-chunks": dict(n=900, p=2, k=7, seed=3, chunks=(3, 2, 895)),
    "float32": dict(n=2000, p=5, k=6, seed=4, chunks=(700, 600, 700), dtype=np.float32),
    "weighted": dict(n=1500, p=4, k=5, seed=5, chunks=(500, 1, 999), weighted=True),
}


@pytest.mark.parametrize("case", list(BOUNDED_CASES))
def test_bounded_equals_every_distance_and_in_memory(case, capsys):
    c = dict(BOUNDED_CASES[case])
    chunks, k = c.pop("chunks"), c["k"]
    weighted = c.pop("weighted", False)
    X = blobs(**c)
    # A poor start: several iterations, rows changing cluster late.
    c0 = np.ascontiguousarray(X[:k], dtype=np.float64)
    fit = {}
    if weighted:
        fit["sample_weight"] = np.random.default_rng(c["seed"]).uniform(0.0, 3.0, len(X))
    ref = meanscape.KMeans(k, init=c0, n_init=1)
    ref_trace = _trace(capsys, ref, X, **fit)
    Xd = da.from_array(X, chunks=(chunks, X.shape[1]))
    wd = {key: da.from_array(v, chunks=(chunks,)) for key, v in fit.items()}
    # f32 rows: distances from f32 products, whose rounding depends on the
    # blocks (the chunks), and objectives summed from them.
    rtol = 1e-6 if X.dtype == np.float32 else RTOL
    fits = {}
    for bounded in (True, False):
        got = mdask.KMeans(k, init=c0, bounded=bounded)
        trace = _trace(capsys, got, Xd, **wd)
        fits[bounded] = got
        assert got.n_iter_ == ref.n_iter_ > 2
        assert got.cluster_centers_.dtype == X.dtype
        close(got.cluster_centers_, ref.cluster_centers_, rtol)
        close(got.inertia_, ref.inertia_, rtol)
        close(trace, ref_trace, rtol)
        np.testing.assert_array_equal(got.labels_.compute(), ref.labels_)
    a, b = fits[True], fits[False]
    close(a.objective_trace_, b.objective_trace_, rtol)
    assert a.converged_ == b.converged_
    # The last iteration sums every distance in both (at centres equal to
    # rounding: the bounded sums are moved row by row).
    close(a.inertia_, b.inertia_, rtol=1e-12 if rtol == RTOL else rtol)


def test_bounded_relocates_a_cluster_emptied_mid_fit(monkeypatch):
    # Two groups at x = 0 and x = 10 and two rows at 2 and 8, from centres
    # at −3, 13 and 5: the third centre takes the two rows, stays at 5,
    # and loses both at the second iteration (a bounded one).
    rng = np.random.default_rng(6)
    X = np.zeros((403, 3))
    X[:200] = rng.normal(scale=0.3, size=(200, 3))
    X[200:400] = rng.normal(scale=0.3, size=(200, 3)) + [10.0, 0.0, 0.0]
    X[400:402, 0] = [2.0, 8.0]
    X[402] = [0.5, 6.0, 0.0]
    X = X[np.random.default_rng(7).permutation(len(X))]
    c0 = np.array([[-3.0, 0.0, 0.0], [13.0, 0.0, 0.0], [5.0, 0.0, 0.0]])
    seen = []
    real = mdask.KMeans._bounded_stats

    def spy(self, centres, prev, exact):
        stats, parts = real(self, centres, prev, exact)
        seen.append((exact, bool(np.any(stats["totals"] == 0)), len(stats["far_dist"])))
        return stats, parts

    monkeypatch.setattr(mdask.KMeans, "_bounded_stats", spy)
    ref = meanscape.KMeans(3, init=c0, n_init=1).fit(X)
    got = mdask.KMeans(3, init=c0).fit(da.from_array(X, chunks=((100, 1, 150, 152), 3)))
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.inertia_, ref.inertia_)
    np.testing.assert_array_equal(got.labels_.compute(), ref.labels_)
    # A bounded pass found the empty cluster, and the same iteration was
    # run again with every distance (and the far rows).
    i = next(i for i, (exact, empty, _) in enumerate(seen) if empty and not exact)
    assert i > 0 and seen[i + 1][:2] == (True, True) and seen[i + 1][2] == 3
    assert not seen[-1][1] and seen[-1][0], "the last iteration is exact"


def test_a_bounded_state_pickles_and_is_not_changed():
    import pickle

    X = blobs(n=3000, p=4, k=5, seed=13)
    c0 = np.ascontiguousarray(X[:5])
    st0, s0 = _meanscape.lloyd_block_bounded(X, c0)
    full = _meanscape.lloyd_block(X, c0)
    assert s0.rows == 3000 and st0["changed"] == 3000
    close(st0["inertia"], full["inertia"], rtol=0)
    c1, _ = _meanscape.lloyd_next(st0, c0)
    a, sa = _meanscape.lloyd_block_bounded(X, c1, state=s0)
    copy = pickle.loads(pickle.dumps(s0))
    b, sb = _meanscape.lloyd_block_bounded(X, c1, state=copy)
    again, _ = _meanscape.lloyd_block_bounded(X, c1, state=s0)
    ref = _meanscape.lloyd_block(X, c1, prev_labels=s0.labels())
    for got in (b, again):
        for key in ("sums", "totals", "inertia", "counts", "changed"):
            np.testing.assert_array_equal(got[key], a[key])
    assert len(a["far_dist"]) == 0 and len(ref["far_dist"]) == 5
    assert a["changed"] == ref["changed"] > 0
    assert a["counts"].tolist() == ref["counts"].tolist()
    close(a["inertia"], ref["inertia"], rtol=1e-10)
    close(a["sums"], ref["sums"], rtol=1e-10)
    np.testing.assert_array_equal(sa.labels(), sb.labels())
    exact, _ = _meanscape.lloyd_block_bounded(X, c1, state=s0, exact=True)
    np.testing.assert_array_equal(exact["far_dist"], ref["far_dist"])
    assert exact["inertia"] == ref["inertia"]
    with pytest.raises(ValueError, match="block state"):
        _meanscape.lloyd_block_bounded(X[:10], c1, state=s0)
    with pytest.raises(ValueError, match="not a bounded Lloyd block state"):
        _meanscape.LloydState.from_bytes(b"junk")


def test_the_engine_rule_refuses_misuse():
    with pytest.raises(ValueError, match="s0 must be negative"):
        _meanscape.Annealer.power(1.0, 1.04, 5, -1000.0, 1e-6, 0.01, 10, 3)
    a = _meanscape.Annealer.lloyd(2, 2)
    assert a.iteration() == (1, None, None)
    assert a.record(1.0, None, [1, 1], 0.0, False) is None
    assert a.record(1.0, None, [1, 1], 0.0, False) == "cap"
    assert a.iteration() is None
    with pytest.raises(RuntimeError, match="already stopped"):
        a.record(1.0, None, [1, 1])
    assert a.result()["n_iter"] == 2
    with pytest.raises(ValueError, match="do not fit"):
        _meanscape.lloyd_block(np.zeros((3, 2)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="prev_labels"):
        _meanscape.lloyd_block(np.zeros((3, 2)), np.zeros((2, 2)), prev_labels=np.zeros(2, dtype=np.int64))
    st = _meanscape.lloyd_block(np.eye(3), np.eye(3), return_labels=True)
    again = _meanscape.lloyd_block(np.eye(3), np.eye(3), prev_labels=st["labels"])
    assert st["labels"].tolist() == [0, 1, 2] and st["changed"] == 3 and again["changed"] == 0
    with pytest.raises(TypeError, match="float64 or float32"):
        _meanscape.power_block(np.zeros((3, 2), dtype=np.int64), np.zeros((2, 2)), -1.0)


def test_labels_kept_between_iterations_take_two_bytes_a_row():
    # The one thing a Lloyd fit keeps in proportion to n (for data larger
    # than the cluster's memory): each chunk's labels, held on its worker
    # until the next iteration counts the rows that changed.
    from meanscape.dask import _lloyd_part

    X = blobs(seed=5)[:50]
    c = np.ascontiguousarray(X[:3])
    first = _lloyd_part(X, c, None, None, 0, 3, True)
    assert first["labels"].dtype == np.int16
    again = _lloyd_part(X, c, first["labels"], None, 0, 3, True)
    assert again["changed"] == 0 and np.array_equal(again["labels"], first["labels"])
    moved = _lloyd_part(X, c[::-1].copy(), first["labels"], None, 0, 3, False)
    assert moved["changed"] > 0 and "labels" not in moved


def test_khm_equals_in_memory():
    X = blobs(seed=4)
    c0 = start(X, 4)
    ref = meanscape.KHarmonicMeans(4, init=c0, max_iter=40).fit(X)
    got = mdask.KHarmonicMeans(4, init=c0, max_iter=40).fit(da.from_array(X, chunks=((1, 299, 300), 3)))
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.objective_, ref.objective_)


def test_float32_stays_float32():
    X = blobs(seed=5, dtype=np.float32)
    c0 = start(X, 4)
    for est, ref in (
        (mdask.KMeans(4, init=c0), meanscape.KMeans(4, init=c0, n_init=1)),
        (mdask.PowerKMeans(4, init=c0, max_iter=50), meanscape.PowerKMeans(4, init=c0, max_iter=50)),
    ):
        ref.fit(X)
        est.fit(da.from_array(X, chunks=((7, 593), 3)))
        assert est.cluster_centers_.dtype == np.float32
        assert est.n_iter_ == ref.n_iter_
        close(est.cluster_centers_, ref.cluster_centers_, rtol=1e-6)
        np.testing.assert_array_equal(est.labels_.compute(), ref.labels_)


def test_dataframe_input():
    pd = pytest.importorskip("pandas")
    X = blobs(seed=6)
    c0 = start(X, 4)
    df = dd.from_pandas(pd.DataFrame(X, columns=["a", "b", "c"]), npartitions=3)
    got = mdask.KMeans(4, init=c0).fit(df)
    ref = meanscape.KMeans(4, init=c0, n_init=1).fit(X)
    close(got.cluster_centers_, ref.cluster_centers_)
    assert list(got.feature_names_in_) == ["a", "b", "c"]
    np.testing.assert_array_equal(got.predict(df).compute(), ref.labels_)
    bad = dd.from_pandas(pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0, 5.0], "s": list("vwxyz")}), npartitions=2)
    with pytest.raises(ValueError, match="not numeric"):
        mdask.KMeans(2).fit(bad)


def test_kmeanspp_on_a_seeded_sample_is_reproducible():
    X = da.from_array(blobs(seed=7), chunks=(128, 3))
    a = mdask.PowerKMeans(4, random_state=3, max_iter=30).fit(X)
    b = mdask.PowerKMeans(4, random_state=3, max_iter=30).fit(X)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    other = mdask.PowerKMeans(4, random_state=4, max_iter=30).fit(X)
    assert not np.array_equal(a.cluster_centers_, other.cluster_centers_)
    # Four well-separated blobs: every cluster keeps rows.
    assert len(np.unique(a.labels_.compute())) == 4


def test_clear_refusals():
    X = da.from_array(blobs(n=10), chunks=(5, 3))
    with pytest.raises(ValueError, match="n_samples=10 should be >= n_clusters=11"):
        mdask.KMeans(11).fit(X)
    with pytest.raises(ValueError, match="finish and sample"):
        mdask.PowerKMeans(2, finish=1).fit(X)
    with pytest.raises(TypeError, match="dask.array or dask.dataframe"):
        mdask.KMeans(2).fit([[1.0, 2.0]])
    with pytest.raises(ValueError, match="initial centers"):
        mdask.KMeans(2, init=np.zeros((3, 3))).fit(X)


def test_block_step_merge_is_the_whole():
    X = blobs(seed=8)
    c = start(X, 4)
    whole = _meanscape.power_block(X, c, -2.0, s_ref=-1.0)
    parts = [_meanscape.power_block(X[a:b], c, -2.0, s_ref=-1.0) for a, b in ((0, 1), (1, 333), (333, 600))]
    merged = _meanscape.power_merge(parts)
    a = _meanscape.power_finish(merged, c, True)
    b = _meanscape.power_finish(whole, c, True)
    close(a["centres"], b["centres"], rtol=1e-12)
    close(a["objective_ref"], b["objective_ref"], rtol=1e-12)
    assert merged["counts"].tolist() == whole["counts"].tolist()


def _fit_on_local_cluster(out):
    from distributed import Client, LocalCluster

    X = blobs(n=2000, seed=9)
    c0 = start(X, 4)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            got = mdask.PowerKMeans(4, init=c0, max_iter=40).fit(da.from_array(X, chunks=(300, 3)))
            out["centres"] = got.cluster_centers_
            out["labels"] = got.labels_.compute()
            out["n_iter"] = got.n_iter_


def test_local_cluster_two_processes(bounded):
    pytest.importorskip("distributed")
    out = bounded(_fit_on_local_cluster, seconds=180, what="the LocalCluster fit")
    X = blobs(n=2000, seed=9)
    ref = meanscape.PowerKMeans(4, init=start(X, 4), max_iter=40).fit(X)
    assert out["n_iter"] == ref.n_iter_
    close(out["centres"], ref.cluster_centers_)
    np.testing.assert_array_equal(out["labels"], ref.labels_)


def _kmeans_on_local_cluster(out):
    from distributed import Client, LocalCluster

    from meanscape.dask import _lloyd_bounded_part, _stats_only

    X = blobs(n=2000, seed=14)
    w = np.random.default_rng(2).uniform(0.5, 2.0, len(X))
    c0 = start(X, 4)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            for bounded in (True, False):
                got = mdask.KMeans(4, init=c0, bounded=bounded).fit(
                    da.from_array(X, chunks=(300, 3)), sample_weight=da.from_array(w, chunks=300)
                )
                out[bounded] = (got.cluster_centers_, got.labels_.compute(), got.n_iter_, got.inertia_)
            # A chunk's state made on one worker process, used on the other.
            one, two = sorted(client.scheduler_info()["workers"])
            first = client.submit(_lloyd_bounded_part, X[:500], c0, None, False, None, 0, 4, workers=[one], pure=False)
            c1, _ = _meanscape.lloyd_next(client.submit(_stats_only, first, workers=[one]).result(), c0)
            # The part (its statistics and state) pickled over to the other.
            moved = client.submit(_lloyd_bounded_part, X[:500], c1, first, False, None, 0, 4, workers=[two], pure=False)
            out["moved"] = client.submit(_stats_only, moved, workers=[two]).result()
            out["where"] = {k: list(v) for k, v in client.who_has([first, moved]).items()}
            out["ids"] = (first.key, moved.key, one, two)
            out["c1"] = c1


def test_bounded_kmeans_on_two_processes(bounded):
    pytest.importorskip("distributed")
    out = bounded(_kmeans_on_local_cluster, seconds=240, what="the LocalCluster k-means fits")
    X = blobs(n=2000, seed=14)
    w = np.random.default_rng(2).uniform(0.5, 2.0, len(X))
    ref = meanscape.KMeans(4, init=start(X, 4), n_init=1).fit(X, sample_weight=w)
    for bounded_fit in (True, False):
        centres, labels, n_iter, inertia = out[bounded_fit]
        assert n_iter == ref.n_iter_
        close(centres, ref.cluster_centers_)
        close(inertia, ref.inertia_)
        np.testing.assert_array_equal(labels, ref.labels_)
    first, moved, one, two = out["ids"]
    # `first` was made on one and copied over to two, which used it.
    assert sorted(out["where"][first]) == sorted([one, two]) and out["where"][moved] == [two]
    _, s0 = _meanscape.lloyd_block_bounded(X[:500], start(X, 4))
    here, _ = _meanscape.lloyd_block_bounded(X[:500], out["c1"], state=s0)
    for key in ("sums", "totals", "inertia", "counts", "changed"):
        np.testing.assert_array_equal(out["moved"][key], here[key])


def _die_once(x, flag):
    """The identity on a chunk, but the first call anywhere kills the worker
    process that runs it (the flag file is created once, atomically)."""
    import os

    if x.size == 0:
        return x  # dask's type probe, on the client
    try:
        fd = os.open(flag, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return x
    os.close(fd)
    os._exit(1)


def _fit_losing_a_worker(out, flag):
    import sys

    import cloudpickle
    from distributed import Client, LocalCluster

    # The workers do not import this test module: send _die_once by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    X = blobs(n=2000, seed=12)
    c0 = start(X, 4)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            Xd = da.from_array(X, chunks=(250, 3)).map_blocks(_die_once, str(flag), meta=np.empty((0, 3)))
            got = mdask.KMeans(4, init=c0).fit(Xd)
            out["centres"] = got.cluster_centers_
            out["n_iter"] = got.n_iter_


def test_a_killed_worker_is_survived(tmp_path, bounded):
    pytest.importorskip("distributed")
    flag = tmp_path / "killed"
    out = bounded(_fit_losing_a_worker, flag, seconds=240, what="the fit that lost a worker")
    assert flag.exists(), "no worker was killed"
    X = blobs(n=2000, seed=12)
    ref = meanscape.KMeans(4, init=start(X, 4), n_init=1).fit(X)
    assert out["n_iter"] == ref.n_iter_
    close(out["centres"], ref.cluster_centers_)


class _KMeansLosingAWorker(mdask.KMeans):
    """meanscape.dask.KMeans whose third pass starts by killing a worker
    process: the one that holds what the second pass kept (labels or
    bounds), which Dask cannot compute again."""

    def _lloyd_pass(self, centres, prev, exact):
        self._passes = getattr(self, "_passes", 0) + 1
        if self._passes == 3:
            self.killed_ = _kill_a_holder(prev)
        return super()._lloyd_pass(centres, prev, exact)


def _overlapping(n=4000, seed=21):
    """Four clusters that overlap, so that Lloyd takes many iterations."""
    rng = np.random.default_rng(seed)
    return rng.normal(scale=1.2, size=(4, 3))[rng.integers(0, 4, n)] + rng.normal(size=(n, 3))


def _fit_losing_a_worker_mid_fit(out, bounded_state):
    from distributed import Client, LocalCluster

    X = _overlapping()
    c0 = start(X, 4)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            Xd = da.from_array(X, chunks=(500, 3))
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = _KMeansLosingAWorker(4, init=c0, tol=0.0, bounded=bounded_state).fit(Xd)
            out["warnings"] = [str(w.message) for w in caught]
            out["killed"] = getattr(got, "killed_", None)
            out["centres"] = got.cluster_centers_
            out["n_iter"] = got.n_iter_
            out["inertia"] = got.inertia_
            out["labels"] = np.asarray(got.labels_.compute())


@pytest.mark.parametrize("bounded_state", [True, False])
def test_a_worker_killed_mid_fit_is_survived(bounded, bounded_state):
    pytest.importorskip("distributed")
    out = bounded(_fit_losing_a_worker_mid_fit, bounded_state, seconds=240, what="the fit that lost a worker mid-fit")
    assert out["killed"] is not None, "no worker was killed"
    assert any("was lost at iteration 3" in w for w in out["warnings"]), out["warnings"]
    X = _overlapping()
    ref = meanscape.KMeans(4, init=start(X, 4), n_init=1, tol=0.0).fit(X)
    assert ref.n_iter_ > 3, "the fit must outlive the kill"
    assert out["n_iter"] == ref.n_iter_
    close(out["centres"], ref.cluster_centers_)
    close(out["inertia"], ref.inertia_)
    np.testing.assert_array_equal(out["labels"], ref.labels_)


class _WKMeansLosingAWorker(mdask.WKMeans):
    """meanscape.dask.WKMeans whose second dispersion pass starts by
    killing the worker that holds labels of the pass before."""

    def _dispersions(self, blocks, parts, centres):
        self._passes = getattr(self, "_passes", 0) + 1
        if self._passes == 2:
            self.killed_ = _kill_a_holder(parts)
        return super()._dispersions(blocks, parts, centres)


def _kill_a_holder(parts):
    """Kills (SIGKILL) a worker process that holds one of `parts`, then
    waits for the scheduler to know; returns its address."""
    import signal

    from distributed import futures_of, get_client

    client = get_client()
    pids = client.run(os.getpid)
    holders = {w for ws in client.who_has(futures_of(parts)).values() for w in ws}
    victim = sorted(holders)[0]
    os.kill(pids[victim], signal.SIGKILL)
    while victim in client.scheduler_info()["workers"]:
        time.sleep(0.05)
    return victim


def _wkmeans_losing_a_worker(out):
    from distributed import Client, LocalCluster

    X = _overlapping()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster):
            est = _WKMeansLosingAWorker(4, init=start(X, 4), tol=0.0)
            try:
                est.fit(da.from_array(X, chunks=(500, 3)))
            except RuntimeError as e:
                out["error"] = str(e)
            out["killed"] = getattr(est, "killed_", None)


def test_wkmeans_losing_a_worker_says_so(bounded):
    pytest.importorskip("distributed")
    out = bounded(_wkmeans_losing_a_worker, seconds=240, what="the WK-means fit that lost a worker")
    assert out["killed"] is not None, "no worker was killed"
    assert "a Dask worker was lost" in out.get("error", ""), out
