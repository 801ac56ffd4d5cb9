"""meanscape.dask = the in-memory estimators, from the same given centres:
centres, objective, n_iter_ and labels to 1e-9 relative, for uneven,
single-row and smaller-than-k chunks, float32, dataframes, sample
weights, and a two-process LocalCluster (bounded in time)."""

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
