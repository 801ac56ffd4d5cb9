"""meanscape.spark = the in-memory estimators, from the same given centres:
centres, objective, n_iter_ and labels (through transform) to 1e-9
relative, for uneven partitions with an empty one and one smaller than k,
a single partition, vector / array / numeric columns, float32, weights;
and clear refusals. One local[2] session per module; each test bounded
in time (run in a thread, joined with a timeout)."""

import os
import shutil
import sys
import threading
import warnings

import numpy as np
import pytest

pytest.importorskip("pyspark")
pytest.importorskip("pyarrow")
pytest.importorskip("pandas")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("PySpark needs Java (17): not found", allow_module_level=True)

import pandas as pd

import meanscape
from meanscape import spark as mspark

RTOL = 1e-9
# Every test's Spark work must end within this many seconds.
BOUND = 150

pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    # The executors must import meanscape: run them with this interpreter.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        session = (
            SparkSession.builder.master("local[2]")
            .appName("meanscape-test-spark")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.default.parallelism", "2")
            .getOrCreate()
        )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def bounded(fn, seconds=BOUND):
    """fn() in a thread, failing the test if it has not ended in `seconds`."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # re-raised in the test's thread
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout=seconds)
    assert not t.is_alive(), f"the Spark work did not end within {seconds} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


def blobs(n=600, p=3, k=4, seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=6.0, size=(k, p))
    return centres[rng.integers(0, k, n)] + rng.normal(size=(n, p))


def start(X, k):
    return np.ascontiguousarray(X[:: max(1, len(X) // k)][:k], dtype=np.float64)


def frame(spark, X, sizes, w=None, dtype="double"):
    """X as a DataFrame (columns x0.., and w) whose partitions hold exactly
    `sizes` rows, in order (0 makes an empty partition)."""
    assert sum(sizes) == len(X)
    cols = [f"x{j}" for j in range(X.shape[1])]
    rows = np.column_stack([X] + ([] if w is None else [w])).tolist()
    cuts = np.cumsum((0,) + tuple(sizes))
    chunks = [rows[a:b] for a, b in zip(cuts[:-1], cuts[1:])]
    rdd = spark.sparkContext.parallelize(chunks, len(chunks)).flatMap(lambda part: part)
    schema = ", ".join([f"{c} {dtype}" for c in cols] + ([] if w is None else ["w double"]))
    return spark.createDataFrame(rdd, schema=schema), cols


def labels(model, df):
    col = model.predictionCol
    return np.array([r[col] for r in model.transform(df).select(col).collect()])


def close(a, b, rtol=RTOL):
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), rtol=rtol, atol=0)


# Uneven: an empty partition and two smaller than k = 4; and all in one.
LAYOUTS = {"uneven-empty-small": (250, 0, 3, 1, 346), "one": (600,)}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_kmeans_equals_in_memory(spark, layout):
    X = blobs()
    c0 = start(X, 4)
    df, cols = frame(spark, X, LAYOUTS[layout])
    ref = meanscape.KMeans(4, init=c0, n_init=1).fit(X)

    def fit():
        m = mspark.KMeans(4, featuresCol=cols, init=c0).fit(df)
        return m, labels(m, df)

    got, lab = bounded(fit)
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.inertia_, ref.inertia_)
    assert got.n_iter_ == ref.n_iter_
    assert got.converged_
    np.testing.assert_array_equal(lab, ref.labels_)
    # Statistics only: k × p sums and the k farthest rows per partition.
    assert 0 < got.bytes_per_iteration_ < 4 * 4096
    # The packed blocks fit cached are released.
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()


def test_kmeans_moves_an_empty_cluster_as_in_memory(spark):
    X = blobs(seed=3)
    c0 = start(X, 4)
    c0[3] = 1e3
    df, cols = frame(spark, X, (50, 300, 250))
    # tol = 0: only the label rule (no row changed cluster) stops the fit.
    ref = meanscape.KMeans(4, init=c0, n_init=1, tol=0.0).fit(X)
    got = bounded(lambda: mspark.KMeans(4, featuresCol=cols, init=c0, tol=0.0).fit(df))
    close(got.cluster_centers_, ref.cluster_centers_)
    assert got.n_iter_ == ref.n_iter_ < 300
    close(got.inertia_, ref.inertia_)
    # Stopped by the label rule: as many assignments as iterations (the
    # shift rule would have needed one more assignment to see shift 0).
    assert len(got.objective_trace_) == got.n_iter_


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_power_equals_in_memory(spark, layout):
    X = blobs(seed=1)
    c0 = start(X, 4)
    kw = dict(s0=-2.0, eta=1.1, period=3, max_iter=40)
    df, cols = frame(spark, X, LAYOUTS[layout])
    ref = meanscape.PowerKMeans(4, init=c0, **kw).fit(X)

    def fit():
        m = mspark.PowerKMeans(4, featuresCol=cols, init=c0, **kw).fit(df)
        return m, labels(m, df)

    got, lab = bounded(fit)
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.objective_, ref.objective_)
    close(got.objective_trace_, ref.objective_trace_)
    close(got.s_trace_, ref.s_trace_, rtol=0)
    close(got.inertia_, ref.inertia_)
    assert got.converged_ == ref.converged_
    assert {n: ref.params_[n] for n in got.params_} == got.params_
    np.testing.assert_array_equal(lab, ref.labels_)


def test_khm_equals_in_memory(spark):
    X = blobs(seed=4)
    c0 = start(X, 4)
    df, cols = frame(spark, X, (1, 299, 300))
    ref = meanscape.KHarmonicMeans(4, init=c0, max_iter=25).fit(X)
    # persist=False: every pass reads and packs df again.
    got = bounded(lambda: mspark.KHarmonicMeans(4, featuresCol=cols, init=c0, max_iter=25, persist=False).fit(df))
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.objective_, ref.objective_)
    close(got.objective_trace_, ref.objective_trace_)


def test_vector_and_array_columns(spark):
    from pyspark.ml.feature import VectorAssembler
    from pyspark.sql import functions as F

    X = blobs(seed=6)
    X[::7, 1] = 0.0  # some sparse vectors from the assembler
    c0 = start(X, 4)
    df, cols = frame(spark, X, (200, 400))
    df = VectorAssembler(inputCols=cols, outputCol="features").transform(df)
    df = df.withColumn("arr", F.array(*cols))
    ref = meanscape.KMeans(4, init=c0, n_init=1).fit(X)

    def fit():
        out = []
        for col in ("features", "arr"):
            m = mspark.KMeans(4, featuresCol=col, predictionCol="cluster", init=c0).fit(df)
            out.append((m, labels(m, df)))
        return out

    for got, lab in bounded(fit):
        close(got.cluster_centers_, ref.cluster_centers_)
        assert got.n_iter_ == ref.n_iter_
        np.testing.assert_array_equal(lab, ref.labels_)


def test_float32_columns_stay_float32(spark):
    X = blobs(seed=5).astype(np.float32)
    c0 = start(X, 4)
    df, cols = frame(spark, X.astype(np.float64), (7, 593), dtype="float")
    ref = meanscape.PowerKMeans(4, init=c0, max_iter=30).fit(X)

    def fit():
        m = mspark.PowerKMeans(4, featuresCol=cols, init=c0, max_iter=30).fit(df)
        return m, labels(m, df)

    got, lab = bounded(fit)
    assert got.cluster_centers_.dtype == np.float32
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_, rtol=1e-6)
    np.testing.assert_array_equal(lab, ref.labels_)


def test_weights_column(spark):
    X = blobs(seed=2)
    w = np.random.default_rng(0).uniform(0.2, 3.0, len(X))
    c0 = start(X, 4)
    df, cols = frame(spark, X, (200, 1, 399), w=w)
    kw = dict(s0=-1.0, eta=1.2, period=2, soft_tol=0.001, max_iter=30)
    ref = meanscape.PowerKMeans(4, init=c0, **kw).fit(X, sample_weight=w)
    got = bounded(lambda: mspark.PowerKMeans(4, featuresCol=cols, weightCol="w", init=c0, **kw).fit(df))
    assert got.n_iter_ == ref.n_iter_
    close(got.cluster_centers_, ref.cluster_centers_)
    close(got.objective_trace_, ref.objective_trace_)


def test_kmeanspp_on_a_seeded_sample_is_reproducible(spark):
    X = blobs(seed=7)
    df, cols = frame(spark, X, (128, 300, 172))

    def fit(seed):
        return mspark.KMeans(4, featuresCol=cols, random_state=seed).fit(df)

    a, b, other = bounded(lambda: (fit(3), fit(3), fit(4)))
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    assert not np.array_equal(a.cluster_centers_, other.cluster_centers_)
    # Four well-separated blobs: every cluster keeps rows.
    assert len(np.unique(bounded(lambda: labels(a, df)))) == 4


def test_transform_keeps_the_other_columns(spark):
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    X = blobs(n=40, seed=8)
    df, cols = frame(spark, X, (20, 20))
    df = df.withColumn("tag", F.lit("a")).withColumn("id", F.monotonically_increasing_id())
    model = bounded(lambda: mspark.KMeans(2, featuresCol=cols, init=start(X, 2)).fit(df))
    out = model.transform(df)
    assert out.columns == df.columns + ["prediction"]
    assert out.schema["prediction"].dataType == T.IntegerType()
    assert len(model.clusterCenters()) == 2
    ref = meanscape.KMeans(2, init=start(X, 2), n_init=1).fit(X)
    np.testing.assert_array_equal(bounded(lambda: labels(model, out.drop("prediction"))), ref.labels_)
    with pytest.raises(ValueError, match="'x2': no such column"):
        model.transform(df.drop("x2"))


def test_clear_refusals(spark):
    from pyspark.sql import functions as F

    X = blobs(n=10)
    df, cols = frame(spark, X, (5, 5))
    with pytest.raises(ValueError, match="n_samples=10 should be >= n_clusters=11"):
        bounded(lambda: mspark.KMeans(11, featuresCol=cols).fit(df))
    named = df.withColumn("s", F.lit("x"))
    with pytest.raises(ValueError, match=r"column\(s\) \['s'\] are not numeric"):
        mspark.KMeans(2, featuresCol=cols + ["s"]).fit(named)
    with pytest.raises(ValueError, match="featuresCol = 's' is of type string"):
        mspark.KMeans(2, featuresCol="s").fit(named)
    with pytest.raises(ValueError, match="'nope': no such column"):
        mspark.KMeans(2, featuresCol="nope").fit(df)
    with pytest.raises(ValueError, match="finish and sample"):
        mspark.PowerKMeans(2, featuresCol=cols, finish=1).fit(df)
    with pytest.raises(ValueError, match="initial centers"):
        bounded(lambda: mspark.KMeans(2, featuresCol=cols, init=np.zeros((3, 3))).fit(df))
    with pytest.raises(TypeError, match="pyspark.sql.DataFrame"):
        mspark.KMeans(2).fit(X)
    nulls = df.withColumn("x1", F.when(F.col("x0") > 0, F.col("x1")))
    with pytest.raises(ValueError, match=r"null value\(s\)"):
        bounded(lambda: mspark.KMeans(2, featuresCol=cols).fit(nulls))
    nan = df.withColumn("x1", F.when(F.col("x0") > 0, F.col("x1")).otherwise(F.lit(float("nan"))))
    with pytest.raises(ValueError, match="NaN or infinite"):
        bounded(lambda: mspark.KMeans(2, featuresCol=cols).fit(nan))
    ragged = df.withColumn("arr", F.when(F.col("x0") > 0, F.array("x0", "x1")).otherwise(F.array("x0")))
    with pytest.raises(ValueError, match="rows of different lengths"):
        bounded(lambda: mspark.KMeans(2, featuresCol="arr").fit(ragged))
    empty = df.limit(0)
    with pytest.raises(ValueError, match="n_samples=0"):
        bounded(lambda: mspark.KMeans(2, featuresCol=cols).fit(empty))
    # No job is left behind: the session still works.
    assert df.count() == 10


def test_without_pyspark_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    with pytest.raises(ImportError, match=r'pip install "meanscape\[spark\]"'):
        mspark.KMeans(2).fit(None)


class _Clearing(mspark.KMeans):
    """KMeans whose workers drop their kept blocks (and bounds' states)
    before every pass, so every pass after the first misses them all."""

    def _pass(self, body, again=None):
        if self._filled:
            self._release_kept()
        return super()._pass(body, again)


class _ClearingPower(mspark.PowerKMeans):
    def _pass(self, body, again=None):
        if self._filled:
            self._release_kept()
        return super()._pass(body, again)


class _StatesLost(mspark.KMeans):
    """KMeans whose executor loses every bounds' state before each pass
    but keeps the blocks (local mode: the driver sees the executor's
    directory), so each pass makes the states again from the centres."""

    lost = 0

    def _pass(self, body, again=None):
        from meanscape import _spark_kept

        store = _spark_kept.store_dir(self._token)
        lost = [f for f in (os.listdir(store) if os.path.isdir(store) else []) if f.startswith("s")]
        for f in lost:
            os.unlink(os.path.join(store, f))
        type(self).lost += len(lost)
        return super()._pass(body, again)


def test_worker_cache_misses_give_the_same_fit(spark):
    """The blocks kept in the Python workers (hits), none kept (a cap of 1
    byte: every pass misses and reads the cached blocks again), kept
    blocks dropped before every pass, and the cache off: the same fit,
    equal to the in-memory one."""
    X = blobs(seed=8)
    w = np.random.default_rng(8).uniform(0.5, 2.0, len(X))
    c0 = start(X, 4)
    df, cols = frame(spark, X, (250, 0, 3, 1, 346), w=w)
    ref = meanscape.KMeans(4, init=c0, n_init=1, tol=0.0).fit(X, sample_weight=w)
    kw = dict(s0=-2.0, eta=1.1, period=3, max_iter=30)
    pref = meanscape.PowerKMeans(4, init=c0, **kw).fit(X, sample_weight=w)

    got = {}
    for name, cache, km, pk in (
        ("kept", 512 << 20, mspark.KMeans, mspark.PowerKMeans),
        ("over-cap", 1, mspark.KMeans, mspark.PowerKMeans),
        ("cleared", 512 << 20, _Clearing, _ClearingPower),
        ("states lost", 512 << 20, _StatesLost, mspark.PowerKMeans),
        ("off", 0, mspark.KMeans, mspark.PowerKMeans),
    ):
        m = bounded(lambda: km(4, featuresCol=cols, weightCol="w", init=c0, tol=0.0, worker_cache=cache).fit(df))
        pm = bounded(lambda: pk(4, featuresCol=cols, weightCol="w", init=c0, worker_cache=cache, **kw).fit(df))
        got[name] = (m, pm)
    for name, (m, pm) in got.items():
        close(m.cluster_centers_, ref.cluster_centers_)
        close(m.inertia_, ref.inertia_)
        assert m.n_iter_ == ref.n_iter_, name
        assert pm.n_iter_ == pref.n_iter_, name
        close(pm.cluster_centers_, pref.cluster_centers_)
        close(pm.objective_trace_, pref.objective_trace_)
        # Whatever the workers kept, the same numbers to the last bit
        # (k-means off the cache keeps no bounds: equal to rounding).
        if name != "off":
            np.testing.assert_array_equal(m.cluster_centers_, got["kept"][0].cluster_centers_)
            np.testing.assert_array_equal(m.objective_trace_, got["kept"][0].objective_trace_)
        np.testing.assert_array_equal(pm.objective_trace_, got["off"][1].objective_trace_)
    # The states were lost before every pass after the first and made again.
    assert _StatesLost.lost >= len(got["states lost"][0].iteration_seconds_) - 1 > 2
    # One executor (local mode): the first pass writes every partition's
    # store, and every later pass finds it, whichever Python worker runs it.
    for model in got["kept"]:
        found, read = model.worker_cache_
        passes = len(model.iteration_seconds_)
        assert passes > 2 and read > 0 and found == (passes - 1) * read, model.worker_cache_
    for model in got["over-cap"]:
        assert model.worker_cache_[0] == 0 and model.worker_cache_[1] > 0, model.worker_cache_
    for model in got["cleared"]:
        # Every pass after the first misses (the drop job reaches the
        # workers; it is best effort, so not asserted for all).
        assert model.worker_cache_[1] > len(model.iteration_seconds_) // 2, model.worker_cache_
    assert got["off"][0].worker_cache_ == (0, 0)
    # Every fit deleted its stores on the executor.
    from pyspark.files import SparkFiles

    kept = os.path.join(SparkFiles.getRootDirectory(), "meanscape-kept")
    assert not os.path.isdir(kept) or os.listdir(kept) == []
    assert spark._jsparkSession.sharedState().cacheManager().isEmpty()
