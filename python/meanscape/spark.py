"""``meanscape.spark``: k-means, power k-means, k-harmonic means, RFF
kernel power k-means, WK-means and LW-k-means on PySpark DataFrames.

``est = PowerKMeans(n_clusters=…, featuresCol=…)``, ``model = est.fit(df)``,
``model.transform(df)`` (a prediction column, computed lazily by Spark).
The features are a vector column (``pyspark.ml.linalg`` vectors), an
array column, or a list of numeric columns; FloatType columns (or an array
of floats) stay float32, any other numeric type is read as float64.

The data is read once: a first ``mapInArrow`` pass turns each Arrow batch
of the selected columns into one packed row (the contiguous float64/float32
block's bytes, its weights, its place in the partition, and what the input
checks need), and these rows are cached, coalesced (no shuffle) to one
partition per core of the session: a task's fixed cost, not the bytes,
dominated a pass over many small partitions. Every iteration is then one
Spark job: ``mapInArrow`` over the cached blocks runs the engine's block
step (``_meanscape.lloyd_block`` / ``power_block`` / ``weighted_block``,
the same code the in-memory solvers run, GIL released) on each block read
in place from Arrow's buffer, merges the blocks of each input partition
with the engine's merge, and yields one row per input partition: its
k × p statistics, pickled. The driver collects those rows and reduces them
in a tree of engine merges (fan-in 8, partition order); the update and the
stopping/annealing rule (``_meanscape.Annealer``) run on the driver, with
the loops ``meanscape.dask`` runs (``meanscape._distributed``). The rows
never move.

WK-means and LW-k-means need each row's label from one pass to the next:
an assignment's job yields the cached blocks again (their bytes passed on
as Arrow holds them) with a column of labels, and that output is cached in
turn, so the labels stay with the rows and never reach the driver; the
previous one is uncached once no pass needs it. rff-power maps the rows in
every task (the features are never stored).

The centres travel in the task's closure, not in a ``Broadcast``: they are
k × p float64 (80 KB for k = 10, p = 1000), smaller than the closure
PySpark sends with every task anyway, and a new broadcast per iteration
would have to be created and destroyed each time. PySpark itself turns a
closure over 1 MB (``spark.broadcast.UDFCompressionThreshold``) into a
broadcast.

Blocks kept on the executors (k-means, power k-means, k-harmonic means,
rff-power): handing the cached blocks from the JVM to Python was most of
a pass, so the first pass also writes each partition's blocks to a file
in its executor's own directory (``SparkFiles.getRootDirectory()``,
deleted by Spark with the executor), with the blocks' checksums
(Adler-32, taken at packing). Every later pass is one small RDD job of
one task per partition: the task maps the file (read-only, shared by
the executor's Python workers through the page cache), computes on it,
and only the centres and the statistics travel. A task that finds no
file with the scan's checksums (the task ran on another executor, the
store was over the cap or deleted) reports a miss, and the driver runs
those partitions again over Spark's cached blocks, which writes their
files there. So a result never depends on what an executor kept.
``worker_cache`` bounds the bytes of a fit's blocks each executor keeps
(default 4 GiB; 0 turns it off and reads Spark's cache every pass); a
partition over it is read from Spark's cache every pass. The files are
deleted at the end of the fit (a job that reaches the executors; one it
misses loses them when it ends). WK-means and LW-k-means pass their
labels with the blocks and do not use it.

Caching: with ``persist=True`` (default) ``fit`` caches the packed blocks
(n × p × 8 bytes, 4 for float32; Spark's default storage level, spilling
to disk) and unpersists them at the end, so ``df`` is read once; with
``persist=False`` every pass reads and packs ``df`` again (no extra
memory, much slower). The partitioning must stay the same between passes
(a cached or deterministic DataFrame's does); a partition whose row count
changes between passes is an error.

Initialisation: ``init`` an array of centres, or ``'k-means++'``: the
engine's k-means++ seeding on ``init_size`` rows (default
``min(n, max(10000, 20·k))``) drawn uniformly without replacement with
``numpy.random.default_rng(random_state)`` among the rows in partition
order (the same rows ``meanscape.dask`` draws from the same data); one
start (``n_init`` is 1).

Needs the ``spark`` extra: ``pip install "meanscape[spark]"`` (PySpark 4,
Java 17). The executors must import ``meanscape``: set ``PYSPARK_PYTHON``
(or ``spark.pyspark.python`` with ``spark-submit``) to an interpreter that has it.
"""

import itertools
import math
import numbers
import pickle
import time
import warnings
import weakref
from functools import partial

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning, NotFittedError

from . import _meanscape, _spark_kept
from ._distributed import (
    _FAN_IN,
    _add_pairs,
    _col_sums,
    _cost,
    _dispersion_part,
    _Driver,
    _FeatureWeighted,
    _KhmRules,
    _label_dtype,
    _label_sums,
    _lloyd_merge,
    _max_sq_norm,
    _nearest,
    _power_merge,
    _power_part,
    _PowerRules,
    _RFFPower,
    _rff_nearest,
    _rff_part,
    _sq_about,
    _store_params,
    _sum_in_order,
    _weighted_nearest,
    _weighted_part,
    _zscore,
)

__all__ = ["KMeans", "PowerKMeans", "KHarmonicMeans", "RFFPowerKMeans", "WKMeans", "LWKMeans", "ClusterModel"]

_STATS_SCHEMA = "pid int, stats binary"


class _Stats:
    """A partition's pickled statistics, as a collected row has them."""

    __slots__ = ("pid", "stats")

    def __init__(self, pid, stats):
        self.pid, self.stats = pid, stats


def _spark():
    try:
        from pyspark.sql import DataFrame
        from pyspark.sql import functions as F
        from pyspark.sql import types as T
    except ImportError as e:  # pragma: no cover - the extra is missing
        raise ImportError(
            'meanscape.spark needs PySpark: install the extra with pip install "meanscape[spark]" '
            '(from a checkout: pip install "./python[spark]"); PySpark 4 needs Java 17'
        ) from e
    return DataFrame, F, T


# ----------------------------------------------------------------- input


def _is_vector(t):
    try:
        from pyspark.ml.linalg import VectorUDT
    except ImportError:  # pragma: no cover - pyspark without its ml package
        return False
    return isinstance(t, VectorUDT)


def _features(df, featuresCol, weightCol=None):
    """The columns to read, as Spark expressions, and the block spec
    (p or None for an array column, float32?, kind, weighted)."""
    DataFrame, F, T = _spark()
    if not isinstance(df, DataFrame):
        raise TypeError(f"a pyspark.sql.DataFrame is required, not {type(df).__name__}")
    fields = {f.name: f.dataType for f in df.schema.fields}
    numeric = (T.ByteType, T.ShortType, T.IntegerType, T.LongType, T.FloatType, T.DoubleType, T.DecimalType)

    def missing(name, what):
        if name not in fields:
            raise ValueError(f"{what} = {name!r}: no such column (the columns are {list(fields)})")

    if isinstance(featuresCol, str) and not _is_numeric_name(featuresCol, fields, numeric):
        missing(featuresCol, "featuresCol")
        t = fields[featuresCol]
        if _is_vector(t):
            from pyspark.ml.functions import vector_to_array

            exprs, f32, kind = [vector_to_array(df[featuresCol], "float64").alias("_x")], False, "array"
        elif isinstance(t, T.ArrayType) and isinstance(t.elementType, numeric):
            f32 = isinstance(t.elementType, T.FloatType)
            elem = "float" if f32 else "double"
            exprs, kind = [df[featuresCol].cast(f"array<{elem}>").alias("_x")], "array"
        else:
            raise ValueError(
                f"featuresCol = {featuresCol!r} is of type {t.simpleString()}: a vector, an array of numbers, "
                "or a list of numeric columns is required"
            )
        p = None
    else:
        names = [featuresCol] if isinstance(featuresCol, str) else list(featuresCol)
        if not names:
            raise ValueError("featuresCol: an empty list of columns")
        for n in names:
            missing(n, "featuresCol")
        other = [n for n in names if not isinstance(fields[n], numeric)]
        if other:
            raise ValueError(f"featuresCol: column(s) {other} are not numeric; select the numeric columns to cluster")
        f32 = all(isinstance(fields[n], T.FloatType) for n in names)
        cast = "float" if f32 else "double"
        exprs = [df[n].cast(cast).alias(f"_x{j}") for j, n in enumerate(names)]
        kind, p = "columns", len(names)
    weighted = weightCol is not None
    if weighted:
        missing(weightCol, "weightCol")
        if not isinstance(fields[weightCol], numeric):
            raise ValueError(f"weightCol = {weightCol!r} is not numeric")
        exprs.append(df[weightCol].cast("double").alias("_w"))
    return exprs, (p, f32, kind, weighted)


def _is_numeric_name(name, fields, numeric):
    return name in fields and isinstance(fields[name], numeric)


def _block(batch, spec):
    """An Arrow batch as a contiguous (rows × p) float64/float32 block and
    its float64 weights (or None)."""
    p, f32, kind, weighted = spec
    dtype = np.float32 if f32 else np.float64
    n = batch.num_rows
    if kind == "array":
        flat = batch.column(0).flatten().to_numpy(zero_copy_only=False)
        x = np.ascontiguousarray(flat, dtype=dtype).reshape(n, p)
    else:
        x = np.empty((n, p), dtype=dtype)
        for j in range(p):
            x[:, j] = batch.column(j).to_numpy(zero_copy_only=False)
    w = None
    if weighted:
        w = np.ascontiguousarray(batch.column(batch.num_columns - 1).to_numpy(zero_copy_only=False), dtype=np.float64)
    return x, w


def _cores(df):
    """The cores the session's tasks run on (its default parallelism)."""
    try:
        return max(1, int(df.sparkSession.sparkContext.defaultParallelism))
    except Exception:  # pragma: no cover - Spark Connect has no SparkContext
        return max(1, int(df.sparkSession.conf.get("spark.default.parallelism", "200")))


def _row(pid, value):
    return _stats_row(pid, pickle.dumps(value, protocol=5))


def _stats_row(pid, stats):
    """A partition's row of ``_STATS_SCHEMA``, its statistics pickled."""
    import pyarrow as pa

    return pa.record_batch([pa.array([pid], pa.int32()), pa.array([stats], pa.binary())], names=["pid", "stats"])


def _tree(parts, merge):
    """Merge `parts` (in order) in a tree of fan-in `_FAN_IN`."""
    while len(parts) > 1:
        parts = [merge(parts[i : i + _FAN_IN]) for i in range(0, len(parts), _FAN_IN)]
    return parts[0]


def _merge_scans(rows):
    """The packed rows' scans added up per partition: the partitions (in
    order) and their scans."""
    by = {}
    for r in rows:
        scan = pickle.loads(r.scan)
        acc = by.setdefault(r.pid, dict(scan, sums=None, max_sq=0.0, w_min=math.inf, w_sum=0.0, rows=0, nulls=0, bad_len=0, nonfinite=0))
        for key in ("rows", "nulls", "bad_len", "nonfinite", "w_sum"):
            acc[key] += scan[key]
        acc["max_sq"] = max(acc["max_sq"], scan["max_sq"])
        acc["w_min"] = min(acc["w_min"], scan["w_min"])
        if scan["sums"] is not None:
            acc["sums"] = scan["sums"] if acc["sums"] is None else acc["sums"] + scan["sums"]
    pids = sorted(by)
    return pids, [by[pid] for pid in pids]


# ------------------------------------------------------- per-partition tasks

_PACKED_SCHEMA = "pid int, start long, rows int, x binary, w binary, scan binary, check long"


def _check_batch(b, spec):
    """What is wrong with an Arrow batch of the selected columns (null
    values, rows of another length than p) and its block, if none is."""
    import pyarrow.compute as pc

    p, _, kind, weighted = spec
    cols = b.columns[:-1] if weighted else b.columns
    if kind == "array":
        c = cols[0]
        nulls = c.null_count + c.flatten().null_count
        if c.null_count:
            bad = 1
        else:
            bad = int(np.count_nonzero(pc.list_value_length(c).to_numpy(zero_copy_only=False) != p))
    else:
        nulls, bad = sum(c.null_count for c in cols), 0
    nulls += b.column(b.num_columns - 1).null_count if weighted else 0
    return nulls, bad


def _pack_task(spec, batches):
    """Each Arrow batch of a partition (cut to ``_BLOCK_BYTES``) as one
    packed row: the partition (``spark_partition_id()`` of the input, the
    last column: the packed blocks are coalesced afterwards), its first
    row's index in the partition, its rows, the contiguous block's bytes,
    the weights' bytes and what the scan needs (rows, nulls, wrong
    lengths, non-finite rows, column sums (f64), the largest squared row
    norm, the weights' range). The blocks are cached, so the iterations
    read bytes, not columns."""
    import pyarrow as pa

    start = 0
    for b in _slices(batches, spec):
        n = b.num_rows
        pid = b.column(b.num_columns - 1)[0].as_py()
        b = pa.RecordBatch.from_arrays(b.columns[:-1], names=b.schema.names[:-1])
        nulls, bad = _check_batch(b, spec)
        scan = dict(rows=n, nulls=nulls, bad_len=bad, nonfinite=0, sums=None, max_sq=0.0, w_min=math.inf, w_sum=0.0)
        xb, wb = b"", None
        if not (nulls or bad):
            x, w = _block(b, spec)
            x64 = np.asarray(x, dtype=np.float64)
            finite = np.isfinite(x64).all(axis=1)
            if w is not None:
                finite &= np.isfinite(w)
            scan["nonfinite"] = int(n - np.count_nonzero(finite))
            if finite.all():
                scan["sums"] = x64.sum(axis=0)
                scan["max_sq"] = float(np.einsum("ij,ij->i", x64, x64).max())
                if w is not None:
                    scan["w_min"], scan["w_sum"] = float(w.min()), float(w.sum())
                xb, wb = x.tobytes(), None if w is None else w.tobytes()
        yield _packed_row(pid, start, n, xb, wb, scan, _spark_kept.checksum(xb, wb))
        start += n


# The largest packed block, in bytes. Every pass hands the cached blocks
# from the JVM to Python: a block over half a G1 heap region (1 MB regions
# for a 1-2 GB heap) is a "humongous" allocation there, each one slow and
# a trigger of collections; 256 KB blocks stay clear of that on any heap,
# and handing them over took about a quarter less time than 10000-row
# (1.6 MB at p = 20) blocks (local[2], 10^6 x 20).
_BLOCK_BYTES = 1 << 18


def _slices(batches, spec):
    """The non-empty Arrow batches, cut into slices of at most
    ``_BLOCK_BYTES`` of features (zero-copy)."""
    p, f32 = spec[0], spec[1]
    step = max(1, _BLOCK_BYTES // (p * (4 if f32 else 8)))
    for b in batches:
        for i in range(0, b.num_rows, step):
            yield b.slice(i, step)


def _packed_row(pid, start, n, xb, wb, scan, check):
    import pyarrow as pa

    return pa.record_batch(
        [
            pa.array([pid], pa.int32()),
            pa.array([start], pa.int64()),
            pa.array([n], pa.int32()),
            pa.array([xb], pa.binary()),
            pa.array([wb], pa.binary()),
            pa.array([pickle.dumps(scan, protocol=5)], pa.binary()),
            pa.array([check], pa.int64()),
        ],
        names=["pid", "start", "rows", "x", "w", "scan", "check"],
    )


def _unpacked(batches, spec, labels=None):
    """(partition, first row's index in it, block, weights or None, labels
    or None) of every packed row, the block read in place from Arrow's
    buffer; `labels` the dtype of a ``labels`` column to read."""
    p, f32, _, weighted = spec
    dtype = np.float32 if f32 else np.float64
    for b in batches:
        pids = b.column("pid").to_numpy(zero_copy_only=False)
        starts = b.column("start").to_numpy(zero_copy_only=False)
        rows = b.column("rows").to_numpy(zero_copy_only=False)
        xs, ws = b.column("x"), b.column("w")
        ls = b.column("labels") if labels is not None else None
        for i in range(b.num_rows):
            n = int(rows[i])
            x = _in_place(xs[i], dtype).reshape(n, p)
            w = _in_place(ws[i], np.float64) if weighted else None
            lab = _in_place(ls[i], labels) if ls is not None else None
            yield int(pids[i]), int(starts[i]), x, w, lab


def _partitions(batches, spec, labels=None):
    """The packed rows of a task grouped by the partition of the input
    they come from (a task reads several: the blocks are coalesced), in
    order: (partition, its (start, block, weights, labels))."""
    return _grouped(_unpacked(batches, spec, labels))


def _grouped(rows):
    for pid, group in itertools.groupby(rows, key=lambda r: r[0]):
        yield pid, [r[1:] for r in group]


def _in_place(value, dtype):
    """An Arrow binary value as a NumPy array over its buffer (a copy only
    if the buffer is not aligned for `dtype`)."""
    a = np.frombuffer(value.as_buffer(), dtype=dtype)
    return a if a.flags.aligned else a.copy()


def _in_space(space, x):
    """A block in the space a family clusters in: the rows (None), their
    z-scores ``("z", mean, sd)`` or their random Fourier features
    ``("rff", Ω, f32)``, computed in the task, never stored."""
    if space is None:
        return x
    if space[0] == "z":
        return _zscore(x, space[1], space[2])
    return _rff_part(x, space[1], space[2])


def _sums_task(spec, weighted, batches):
    for pid, blocks in _partitions(batches, spec):
        yield _row(pid, _add_pairs([_col_sums(x, w if weighted else None) for _, x, w, _ in blocks]))


def _sq_task(spec, mean, weighted, batches):
    for pid, blocks in _partitions(batches, spec):
        yield _row(pid, _sum_in_order([_sq_about(x, mean, w if weighted else None) for _, x, w, _ in blocks]))


def _max_sq_task(spec, space, batches):
    for pid, blocks in _partitions(batches, spec):
        yield _row(pid, max(_max_sq_norm(_in_space(space, x)) for _, x, _, _ in blocks))


def _sample_task(spec, picks, batches):
    """The rows of each partition whose local indices are in `picks`."""
    for pid, blocks in _partitions(batches, spec):
        want = picks.get(pid)
        if want is None:
            continue
        xs, ws = [], []
        for start, x, w, _ in blocks:
            local = want[(want >= start) & (want < start + len(x))] - start
            if len(local):
                xs.append(x[local])
                ws.append(None if w is None else w[local])
        if xs:
            yield _row(pid, (np.concatenate(xs), None if ws[0] is None else np.concatenate(ws)))


def _lloyd_body(centres, offsets, prev, pid, blocks):
    """A partition's Lloyd statistics (`blocks`: its (start, block,
    weights, labels))."""
    k = centres.shape[0]
    off = int(offsets[pid])
    parts = [
        _meanscape.lloyd_block(x, centres, sample_weight=w, prev=prev, offset=off + start, keep=k)
        for start, x, w, _ in blocks
    ]
    return _tree(parts, partial(_lloyd_merge, keep=k))


class _NoState(Exception):
    """A kept partition's bounded-Lloyd states are not on this executor."""


def _bounded_body(token, gen, centres, exact, offsets, chain, pid, blocks):
    """A partition's Lloyd statistics at `centres` from its blocks'
    bounded-Lloyd states of generation gen − 1, writing generation `gen`.
    States this executor does not hold are made again from `chain` (the
    centres and exactness of every earlier pass: the same states to the
    bit), or, without it, the partition is missed (``_NoState``)."""
    k = centres.shape[0]
    off = int(offsets[pid])
    states = [None] * len(blocks)
    if gen > 0:
        kept = _spark_kept.read_states(token, pid, gen - 1)
        if kept is not None:
            states = kept
        elif chain is None:
            raise _NoState
        else:
            for c, ex in chain[:gen]:
                states = [_bounded_step(x, c, st, ex, w, off + start, k)[1] for (start, x, w, _), st in zip(blocks, states)]
    parts, nexts = [], []
    for (start, x, w, _), st in zip(blocks, states):
        part, st = _bounded_step(x, centres, st, exact, w, off + start, k)
        parts.append(part)
        nexts.append(st)
    _spark_kept.write_states(token, pid, gen, nexts)
    return _tree(parts, partial(_lloyd_merge, keep=k))


def _bounded_step(x, centres, state, exact, w, offset, k):
    return _meanscape.lloyd_block_bounded(x, centres, state=state, exact=exact, sample_weight=w, offset=offset, keep=k)


def _power_body(space, centres, s, s_ref, zero_tol, pid, blocks):
    parts = [_power_part(_in_space(space, x), centres, s, s_ref, w, zero_tol) for _, x, w, _ in blocks]
    return _tree(parts, _power_merge)


def _stats_task(spec, body, batches):
    """`body` (partition, blocks → statistics) on every input partition of
    a task's packed blocks."""
    for pid, blocks in _partitions(batches, spec):
        yield _row(pid, body(pid, blocks))


# ------------------------------------------------ blocks kept on the executors

# A pass over Spark's cached packed blocks spends most of its time in the
# JVM handing n x p x 8 bytes to the Python workers (see the guide). So
# the first pass also writes each partition's blocks to a file on its
# executor (``_spark_kept``), and the later passes run over one task per
# partition that maps the file and sends only the statistics: the centres
# travel, not the rows. A task that finds no file with the scan's
# signature (another executor got the task, a store over the cap, a lost
# executor) says so, and the driver runs those partitions again over the
# cached blocks, which writes their files there.

# ``worker_cache``'s default: the bytes of one fit's blocks an executor
# keeps on its local disk (in Spark's own directory, deleted with the
# executor), read through the page cache; a partition over it is read
# from Spark's cache every pass.
_WORKER_CACHE = 4 << 30


def _kept_rows(token, expect, body, dtype, p, qs):
    """`body` on the kept blocks of each partition in `qs` whose signature
    is `expect`'s: (pid, statistics) per input partition, or a miss
    (−1 − q, None)."""
    for q in qs:
        q = int(q)
        if q not in expect:
            continue
        kept = _spark_kept.find(token, q, expect[q], dtype, p)
        try:
            if kept is None:
                raise _NoState
            rows = [(pid, pickle.dumps(body(pid, blocks), protocol=5)) for pid, blocks in kept.parts]
        except _NoState:
            yield -1 - q, None
            continue
        yield from rows


def _kept_task(token, expect, body, dtype, p, batches):
    """``_kept_rows`` over a DataFrame of partition indices (Spark Connect
    has no RDDs)."""
    for b in batches:
        for pid, stats in _kept_rows(token, expect, body, dtype, p, b.column("id").to_numpy(zero_copy_only=False)):
            yield _row(pid, None) if stats is None else _stats_row(pid, stats)


def _kept_rdd_task(token, expect, body, dtype, p, q, _):
    """``_kept_rows`` as an RDD task: the smaller job (no query plan, no
    Arrow stream), about half of ``mapInArrow``'s fixed cost."""
    return _kept_rows(token, expect, body, dtype, p, [q])


def _keeping_task(token, cap, spec, body, batches):
    """``_stats_task`` over the packed blocks (with their partition ``q``),
    writing each partition's blocks to this executor's store while `cap`
    allows."""
    writer = _spark_kept.Writer(token, cap)
    try:
        # Each input partition's blocks are released once its statistics
        # are taken; the stores are published when every row has passed.
        out = [_row(pid, body(pid, blocks)) for pid, blocks in _grouped(_keeping(writer, spec, batches))]
        writer.close()
    except BaseException:
        writer.discard()
        raise
    yield from out


def _keeping(writer, spec, batches):
    """The packed rows as ``_unpacked`` yields them, each written to its
    partition's store."""
    for b in batches:
        qs = b.column("q").to_numpy(zero_copy_only=False)
        for row, q in zip(_unpacked([b], spec), qs):
            pid, start, x, w, _ = row
            writer.add(int(q), pid, start, x, w)
            yield row


def _drop_task(token, batches):
    """Drop a fit's kept blocks on this executor."""
    import pyarrow as pa

    for b in batches:
        _spark_kept.drop(token)
        yield pa.record_batch([pa.array([b.num_rows], pa.int64())], names=["n"])


# The packed blocks with one assignment's labels (int16/int32 bytes) and,
# on each partition's last block, the partition's merged statistics.
_STATE_SCHEMA = "pid int, start long, rows int, x binary, w binary, labels binary, stats binary"


def _assign_task(spec, space, centres, v, offsets, keep, ties, batches):
    """``_weighted_part`` on every block (labels of the input, if it has
    them, kept on ties with `ties`, else compared): the blocks again, each
    with its new labels, so the labels stay with the rows; each
    partition's merged statistics on its last block. The block bytes are
    passed on as Arrow holds them (no copy in Python); a batch is held
    back only until the statistics of the partition it ends in are known."""
    import pyarrow as pa

    k = len(centres)
    ldt = _label_dtype(k)
    merge = partial(_lloyd_merge, keep=keep)
    pending, cur, parts, last = [], None, [], None
    for b in batches:
        has_prev = "labels" in b.schema.names
        labels, stats = [], [None] * b.num_rows
        for i, (pid, start, x, w, prev) in enumerate(_unpacked([b], spec, ldt if has_prev else None)):
            if pid != cur:
                if cur is not None:
                    last[0][last[1]] = pickle.dumps(_tree(parts, merge), protocol=5)
                yield from (_state_batch(*held) for held in pending)
                pending, cur, parts = [], pid, []
            part = _weighted_part(_in_space(space, x), centres, v, prev, w, int(offsets[pid]) + start, keep, ties)
            labels.append(part.pop("labels").tobytes())
            parts.append(part)
            last = (stats, i)
        pending.append((b, pa.array(labels, pa.binary()), stats))
    if cur is not None:
        last[0][last[1]] = pickle.dumps(_tree(parts, merge), protocol=5)
    yield from (_state_batch(*held) for held in pending)


def _state_batch(b, labels, stats):
    import pyarrow as pa

    cols = [b.column(name) for name in ("pid", "start", "rows", "x", "w")]
    return pa.RecordBatch.from_arrays(
        cols + [labels, pa.array(stats, pa.binary())], names=["pid", "start", "rows", "x", "w", "labels", "stats"]
    )


def _dispersion_task(spec, space, centres, batches):
    for pid, blocks in _partitions(batches, spec, _label_dtype(len(centres))):
        yield _row(pid, _sum_in_order([_dispersion_part(_in_space(space, x), lab, centres, w) for _, x, w, lab in blocks]))


def _label_sums_task(spec, space, k, batches):
    for pid, blocks in _partitions(batches, spec, _label_dtype(k)):
        parts = [_label_sums(_in_space(space, x), lab, w, k) for _, x, w, lab in blocks]
        yield _row(pid, _tree(parts, partial(_lloyd_merge, keep=0)))


def _cost_task(spec, centres, batches):
    for pid, blocks in _partitions(batches, spec, _label_dtype(len(centres))):
        yield _row(pid, _sum_in_order([_cost(x, lab, centres, w) for _, x, w, lab in blocks]))


# ------------------------------------------------------------- estimators


class _SparkCluster(_Driver, BaseEstimator):
    """What the Spark estimators share: input, the passes the shared
    drivers call (``_distributed``), initialisation. A space is None (the
    rows) or a spec every task applies to its blocks (``_in_space``)."""

    _ENGINE = ("spark", "Spark")

    def _collect(self, task, source=None):
        """One job: `task` on every partition of the packed blocks (or of
        `source`, packed blocks with labels); the partitions' values in
        partition order and the bytes they sent."""
        cols = ["pid", "start", "rows", "x", "w"] + ([] if source is None else ["labels"])
        blocks = (self._packed if source is None else source).select(*cols)
        rows = blocks.mapInArrow(task, _STATS_SCHEMA).collect()
        return self._sorted(rows)

    def _sorted(self, rows):
        rows = sorted(rows, key=lambda r: r.pid)
        self._last_bytes = sum(len(r.stats) for r in rows)
        return [r.pid for r in rows], [pickle.loads(r.stats) for r in rows]

    def _scan(self, df):
        k = self.n_clusters
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
            raise ValueError(f"n_clusters = {k!r} must be a positive integer")
        exprs, spec = _features(df, self.featuresCol, self.weightCol)
        sel = df.select(*exprs)
        if spec[0] is None:
            first = sel.first()
            if first is None:
                raise ValueError(f"n_samples=0 should be >= n_clusters={k}.")
            if first[0] is None or len(first[0]) == 0:
                raise ValueError(f"featuresCol = {self.featuresCol!r}: the first row has no features")
            spec = (len(first[0]),) + spec[1:]
        self._spec = spec
        self._states = []
        # The data as packed blocks, cached for the fit (persist=True).
        _, F, _ = _spark()
        packed = df.select(*exprs, F.spark_partition_id().alias("_pid")).mapInArrow(
            partial(_pack_task, spec), _PACKED_SCHEMA
        )
        # Every pass is one task per partition of the cached blocks, and a
        # task has a fixed cost (a Python worker fed, its closure read, a
        # stream opened) that dominates a pass over small partitions: the
        # blocks are coalesced (no shuffle) to one partition per core; each
        # keeps the partition it came from, so the statistics are merged
        # per input partition, in order, as before.
        # q: the partition of the coalesced blocks, which the workers keep
        # their copies under.
        packed = packed.coalesce(_cores(df)).withColumn("q", F.spark_partition_id())
        self._persisted = bool(self.persist)
        self._packed = packed.persist() if self._persisted else packed
        blocks = self._packed.select("q", "pid", "start", "rows", "check", "scan").collect()
        pids, scans = _merge_scans(blocks)
        where = f"featuresCol = {self.featuresCol!r}" + (f" / weightCol = {self.weightCol!r}" if spec[3] else "")
        if sum(s["nulls"] for s in scans):
            raise ValueError(f"{where}: {sum(s['nulls'] for s in scans)} null value(s); drop or fill them")
        if sum(s["bad_len"] for s in scans):
            raise ValueError(f"featuresCol = {self.featuresCol!r}: rows of different lengths (the first has {spec[0]})")
        if sum(s["nonfinite"] for s in scans):
            raise ValueError(f"{where}: {sum(s['nonfinite'] for s in scans)} row(s) with NaN or infinite values")
        rows = {pid: s["rows"] for pid, s in zip(pids, scans)}
        n = sum(rows.values())
        if n < k:
            raise ValueError(f"n_samples={n} should be >= n_clusters={k}.")
        if spec[3]:
            if min(s["w_min"] for s in scans) < 0 or sum(s["w_sum"] for s in scans) <= 0:
                raise ValueError(f"weightCol = {self.weightCol!r}: weights must be ≥ 0 with a positive sum")
        nparts = max(pids) + 1
        counts = np.zeros(nparts, dtype=np.int64)
        counts[pids] = [rows[pid] for pid in pids]
        self._rows = counts
        self._offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
        self._n, self._p = n, spec[0]
        self._dtype, self._weighted = np.dtype(np.float32 if spec[1] else np.float64), spec[3]
        self._sums = sum(s["sums"] for s in scans if s["sums"] is not None)
        self._max_sq = max(s["max_sq"] for s in scans)
        self._bytes = []
        self._times = []
        self._kept_setup(df, blocks)

    def _kept_setup(self, df, rows):
        """What the passes over the executors' kept blocks need: a token for
        this fit, each partition's signature (its blocks in order), and a
        job of one task per partition of the blocks."""
        import uuid

        self._cap = int(getattr(self, "worker_cache", 0) or 0)
        self._kept_stats = [0, 0]
        if self._cap <= 0:
            return
        self._token = uuid.uuid4().hex
        expect = {}
        for r in rows:
            expect.setdefault(r.q, []).append((r.pid, r.start, r.rows, r.check))
        self._expect = {q: tuple(sig) for q, sig in expect.items()}
        self._nq = max(self._expect) + 1
        self._session = df.sparkSession
        self._filled = False

    def _kept_job(self, body):
        """One task per partition of the blocks, on its kept blocks: the
        rows (pid, statistics) and the misses."""
        args = (self._token, self._expect, body, self._dtype, self._p)
        nq = self._nq
        try:
            sc = self._session.sparkContext
        except Exception:  # pragma: no cover - Spark Connect has no SparkContext
            sc = None
        if sc is not None:
            got = sc.parallelize(range(nq), nq).mapPartitionsWithIndex(partial(_kept_rdd_task, *args)).collect()
        else:  # pragma: no cover
            tiny = self._session.range(0, nq, 1, nq).mapInArrow(partial(_kept_task, *args), _STATS_SCHEMA)
            got = [(r.pid, r.stats) for r in tiny.collect()]
        misses = sorted(-1 - pid for pid, _ in got if pid < 0)
        return [_Stats(pid, stats) for pid, stats in got if pid >= 0], misses

    def _pass(self, body, again=None):
        """One statistics pass: `body` (partition, blocks → statistics) on
        every input partition; the partitions and their statistics in
        order. Over the blocks kept on the executors where they are, the
        partitions they miss (no blocks, or `body` raised ``_NoState``)
        run again over the cached blocks with `again` (default `body`),
        which keeps them there; the first pass, or with
        ``worker_cache=0`` every pass, reads the cached blocks."""
        if self._cap <= 0:
            return self._collect(partial(_stats_task, self._spec, body))
        _, F, _ = _spark()
        cols = ["pid", "start", "rows", "x", "w", "q"]
        keeping = partial(_keeping_task, self._token, self._cap, self._spec, again or body)
        if not self._filled:
            self._filled = True
            rows = self._packed.select(*cols).mapInArrow(keeping, _STATS_SCHEMA).collect()
            self._kept_stats[1] += len(self._expect)
            return self._sorted(rows)
        rows, misses = self._kept_job(body)
        self._kept_stats[0] += len(self._expect) - len(misses)
        self._kept_stats[1] += len(misses)
        if misses:
            again = self._packed.where(F.col("q").isin(misses)).select(*cols)
            rows += again.mapInArrow(keeping, _STATS_SCHEMA).collect()
        return self._sorted(rows)

    def _release_kept(self):
        """Delete this fit's kept blocks. Best effort: a job of a few tasks
        per partition reaches the executors that kept them; one it misses
        loses them when the executor or the application ends (they are in
        the executor's own directory)."""
        m = 4 * self._nq
        self._session.range(0, m, 1, m).mapInArrow(partial(_drop_task, self._token), "n long").collect()

    def _check_rows(self, pids, parts):
        got = {pid: int(part["rows"]) for pid, part in zip(pids, parts)}
        want = {pid: int(r) for pid, r in enumerate(self._rows) if r}
        if got != want:
            raise RuntimeError(
                "the DataFrame's partitions changed between passes (rows per partition differ); "
                "persist it (df.persist()) or give a deterministic DataFrame"
            )

    def _release(self):
        for release in getattr(self, "_states", []):
            release()
        if getattr(self, "_token", None) is not None:
            try:
                self._release_kept()
            except Exception:  # pragma: no cover - the session is gone
                pass
        if getattr(self, "_persisted", False):
            self._packed.unpersist()
        for attr in ("_packed", "_spec", "_rows", "_offsets", "_sums", "_max_sq", "_persisted", "_states", "_token", "_expect", "_nq", "_session", "_chain"):
            if hasattr(self, attr):
                delattr(self, attr)

    def _sample(self):
        """The seeded sample's rows (in partition order), their weights,
        the seed: the rows ``meanscape.dask`` draws from the same data."""
        idx, seed = self._sample_rows()
        part = np.searchsorted(self._offsets, idx, side="right") - 1
        picks = {int(q): idx[part == q] - self._offsets[q] for q in np.unique(part)}
        _, got = self._collect(partial(_sample_task, self._spec, picks))
        sample = np.ascontiguousarray(np.concatenate([x for x, _ in got]))
        ws = None if got[0][1] is None else np.concatenate([w for _, w in got])
        return sample, ws, seed

    def _raw(self):
        return None

    def _zscored(self, mean, sd):
        return ("z", mean, sd)

    def _mapped(self, omega, f32):
        return ("rff", omega, f32)

    def _moments(self, weighted=False):
        """Per feature: the mean, the sum of squares about it, and the
        rows' total (count, or total weight with `weighted`); the
        unweighted sums come from the scan, so one pass, else two."""
        if weighted:
            _, parts = self._collect(partial(_sums_task, self._spec, True))
            total, n = _add_pairs(parts)
        else:
            total, n = self._sums, self._n
        mean = total / (n if n > 0 else 1)
        _, ss = self._collect(partial(_sq_task, self._spec, mean, weighted))
        return mean, _sum_in_order(ss), n

    def _zero_tol(self, space):
        """The engine's zero-distance threshold for the rows in `space`
        (the scan's largest norm for the rows themselves)."""
        if space is None:
            return _meanscape.zero_tolerance(float(self._max_sq))
        _, norms = self._collect(partial(_max_sq_task, self._spec, space))
        return _meanscape.zero_tolerance(float(max(norms)))

    def _timed(self, pass_):
        """A statistics pass, its bytes and wall time recorded."""
        t = time.perf_counter()
        stats = pass_()
        self._bytes.append(self._last_bytes)
        self._times.append(time.perf_counter() - t)
        return stats

    def _lloyd_stats(self, centres, prev=None):
        def pass_():
            pids, parts = self._pass(partial(_lloyd_body, centres, self._offsets, prev))
            self._check_rows(pids, parts)
            return _tree(parts, partial(_lloyd_merge, keep=centres.shape[0]))

        return self._timed(pass_)

    def _bounded_stats(self, centres, exact):
        """The merged Lloyd statistics at `centres` from the bounded-Lloyd
        states the executors keep beside the blocks (every distance when
        `exact`); the caller appends the pass it keeps to ``_chain``."""

        def pass_():
            step = (self._token, len(self._chain), centres, exact, self._offsets)
            pids, parts = self._pass(partial(_bounded_body, *step, None), partial(_bounded_body, *step, self._chain))
            self._check_rows(pids, parts)
            return _tree(parts, partial(_lloyd_merge, keep=centres.shape[0]))

        return self._timed(pass_)

    def _power_stats(self, space, centres, s, s_ref, zero_tol):
        def pass_():
            pids, parts = self._pass(partial(_power_body, space, centres, s, s_ref, zero_tol))
            self._check_rows(pids, parts)
            return _tree(parts, _power_merge)

        return self._timed(pass_)

    def _model(self, counts, predict, centres=None, **attrs):
        """The fitted model: `predict` maps a block of rows to labels."""
        distinct = int(np.count_nonzero(counts))
        if distinct < self.n_clusters:
            warnings.warn(
                f"Number of distinct clusters ({distinct}) found smaller than n_clusters ({self.n_clusters}).",
                ConvergenceWarning,
                stacklevel=3,
            )
        model = ClusterModel(
            None if centres is None else centres.astype(self._dtype),
            featuresCol=self.featuresCol,
            predictionCol=self.predictionCol,
            predict=predict,
        )
        model.n_features_in_ = self._p
        model.bytes_per_iteration_ = int(np.mean(self._bytes)) if self._bytes else 0
        model.iteration_seconds_ = list(self._times)
        model.worker_cache_ = tuple(self._kept_stats)
        for name, value in attrs.items():
            setattr(model, name, value)
        return model

    def _check(self):
        """Parameter checks before any Spark job."""

    def fit(self, df):
        """Fit on the DataFrame `df`; returns a :class:`ClusterModel`."""
        self._check()
        try:
            self._scan(df)
            return self._fit()
        finally:
            self._release()


class KMeans(_SparkCluster):
    """``meanscape.KMeans`` (scikit-learn's k-means, the engine's Lloyd) on a
    Spark DataFrame: the same stopping rule (squared centre shift ≤ tol ×
    mean feature variance, or no label change), the same empty-cluster rule
    (moved to the farthest rows), the same ``n_iter_``.

    With ``bounded`` (the default) and ``worker_cache`` on, each executor
    keeps beside its blocks the engine's Hamerly bounds of their rows
    (labels, bounds, cluster sums: 32 bytes a row, the pass's and the one
    before), as ``meanscape.dask`` keeps them on its workers: a pass
    computes only the distances the bounds cannot settle, and the first
    iteration, the last and one that empties a cluster compute them all,
    as in memory. A partition whose states another executor holds, or
    that were lost, has them made again from the centres of the earlier
    passes (the same states to the bit), so the fit never depends on where
    a task ran. Otherwise the labels are not kept between iterations:
    when an iteration's counts and sums equal the previous one's, one
    more pass counts the rows whose nearest centre changed.
    """

    def __init__(
        self,
        n_clusters=8,
        *,
        featuresCol="features",
        predictionCol="prediction",
        weightCol=None,
        init="k-means++",
        n_init="auto",
        max_iter=300,
        tol=1e-4,
        verbose=0,
        random_state=None,
        algorithm="lloyd",
        init_size=None,
        persist=True,
        worker_cache=_WORKER_CACHE,
        bounded=True,
    ):
        self.n_clusters = n_clusters
        self.featuresCol = featuresCol
        self.predictionCol = predictionCol
        self.weightCol = weightCol
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.algorithm = algorithm
        self.init_size = init_size
        self.persist = persist
        self.worker_cache = worker_cache
        self.bounded = bounded

    def _fit(self):
        if self.algorithm not in ("lloyd", "elkan"):
            raise ValueError(f"algorithm = {self.algorithm!r} must be 'lloyd' or 'elkan'")
        centres = self._initial_centres()
        tol_abs = float(self.tol) * self._mean_variance()
        k = self.n_clusters
        cap = int(self.max_iter) + 1
        ann = _meanscape.Annealer.lloyd(cap, int(k))
        prev, prev_c, shift, stats = None, None, math.inf, None
        bounded = bool(self.bounded) and self._cap > 0
        self._chain = []
        while (it := ann.iteration()) is not None:
            if bounded:
                stats, settled = self._bounded_iteration(centres, prev is None or shift <= tol_abs or it[0] >= cap)
                settled = settled or shift <= tol_abs
            else:
                stats = self._lloyd_stats(centres)
                unchanged = False
                if prev is not None and shift > tol_abs and _same_partition(stats, prev):
                    # The counts and sums did not move: count the rows whose
                    # nearest centre changed (the previous centres' labels).
                    unchanged = self._lloyd_stats(centres, prev=prev_c)["changed"] == 0
                settled = unchanged or shift <= tol_abs
            stop = ann.record(stats["inertia"], None, stats["counts"].tolist(), 0.0, settled)
            if stop is not None:
                break
            prev, prev_c = stats, centres
            centres, shift = _meanscape.lloyd_next(stats, centres)
        r = ann.result()
        by = None
        if r["converged"]:
            by = "shift" if shift <= tol_abs else "labels"
        n_iter = int(r["n_iter"])
        n_iter_ = n_iter - 1 if by == "shift" else min(n_iter, int(self.max_iter))
        if self.verbose:
            for i, v in enumerate(r["objective_trace"][:n_iter_]):
                print(f"Iteration {i}, inertia {v}.")
        return self._model(
            stats["counts"],
            None,
            centres,
            n_iter_=n_iter_,
            inertia_=float(stats["inertia"]),
            objective_trace_=r["objective_trace"],
            converged_=bool(r["converged"]),
        )

    def _bounded_iteration(self, centres, exact):
        """An iteration's bounded pass, as ``meanscape.dask``'s: the
        statistics, and whether no label changed. Every distance is
        computed where the in-memory loop computes them (`exact`: the
        first iteration, one known to be the last), and again when the
        labels settled (the last inertia is summed from every distance)
        or a cluster emptied (it moves to the farthest rows)."""
        first = not self._chain
        stats = self._bounded_stats(centres, exact)
        settled = not first and stats["changed"] == 0
        if not exact and (settled or np.any(stats["totals"] == 0)):
            exact = True
            stats = self._bounded_stats(centres, True)
        self._chain.append((centres, exact))
        return stats, settled


def _same_partition(a, b):
    """Whether two iterations' Lloyd statistics may come from the same
    labels (a necessary condition: the same counts and sums)."""
    return np.array_equal(a["counts"], b["counts"]) and np.allclose(a["sums"], b["sums"], rtol=1e-9, atol=0)


class PowerKMeans(_PowerRules, _SparkCluster):
    """``meanscape.PowerKMeans`` on a Spark DataFrame: the engine's sweep per
    partition, its log-sum-exp merge, and its annealing and stopping rule
    (schedule, period check, hardness condition). ``finish`` and ``sample``
    are not offered here (0)."""

    def __init__(
        self,
        n_clusters=8,
        *,
        featuresCol="features",
        predictionCol="prediction",
        weightCol=None,
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
        persist=True,
        worker_cache=_WORKER_CACHE,
    ):
        self.n_clusters = n_clusters
        self.featuresCol = featuresCol
        self.predictionCol = predictionCol
        self.weightCol = weightCol
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
        self.persist = persist
        self.worker_cache = worker_cache

    def _check(self):
        self._annealer()

    def _fit(self):
        ann = self._annealer()
        centres = self._initial_centres()
        centres, fin, stats, r = self._power_loop(self._raw(), ann, centres, self._zero_tol(self._raw()))
        # The k-means cost at the final centres: one more pass.
        cost = self._lloyd_stats(centres)
        return self._model(
            stats["counts"],
            None,
            centres,
            n_iter_=int(r["n_iter"]),
            objective_=float(fin["objective"]),
            objective_trace_=r["objective_trace"],
            s_trace_=r["s_trace"],
            converged_=bool(r["converged"]),
            inertia_=float(cost["inertia"]),
            params_=self._params(),
        )


class KHarmonicMeans(_KhmRules, PowerKMeans):
    """``meanscape.KHarmonicMeans`` on a Spark DataFrame: power k-means with
    s = −1 held fixed (the engine's khm schedule)."""

    def __init__(
        self,
        n_clusters=8,
        *,
        featuresCol="features",
        predictionCol="prediction",
        weightCol=None,
        tol=1e-06,
        max_iter=500,
        n_init=1,
        init="k-means++",
        random_state=None,
        init_size=None,
        persist=True,
        worker_cache=_WORKER_CACHE,
    ):
        self.n_clusters = n_clusters
        self.featuresCol = featuresCol
        self.predictionCol = predictionCol
        self.weightCol = weightCol
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.init = init
        self.random_state = random_state
        self.init_size = init_size
        self.persist = persist
        self.worker_cache = worker_cache


# ---------------------------------------------------------------- rff-power


class RFFPowerKMeans(_RFFPower, _SparkCluster):
    """``meanscape.RFFPowerKMeans`` (RFF kernel power k-means) on a Spark
    DataFrame, as ``meanscape.dask.RFFPowerKMeans``: every task maps its
    own blocks (the engine's map, Ω from ``rff_seed`` and σ) before their
    power statistics, so the n × 2D features are never stored; then the
    engine's k-means start Θ₀ (``init_iter`` iterations at s = −∞) and
    power k-means on the features. ``sigma`` (None): the KPK rule over
    all rows (one more pass); ``rff_dim`` (None): the engine's rule on the
    seeded sample of ``init_size`` rows. The model has no
    ``cluster_centers_``: ``feature_centers_``, and ``transform`` maps
    the rows and takes the nearest of them."""

    def __init__(
        self,
        n_clusters=8,
        *,
        featuresCol="features",
        predictionCol="prediction",
        weightCol=None,
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
        persist=True,
        worker_cache=_WORKER_CACHE,
    ):
        _store_params(self, locals())

    def _fit(self):
        attrs, counts, (omega, f32) = self._fit_rff()
        return self._model(counts, partial(_rff_nearest, omega=omega, centres=attrs["feature_centers_"], f32=f32), **attrs)


# ---------------------------------------------------------------- wkmeans, lw


class _State:
    """One assignment's blocks with their labels (``_assign_task``),
    cached: the labels stay with the rows from one pass to the next and
    never reach the driver. Uncached as soon as the driver drops it (as
    Dask releases a persisted collection), or at the end of the fit; a
    pass that read it has already been materialised by then."""

    def __init__(self, df):
        self.df = df
        self.release = weakref.finalize(self, df.unpersist)


class _SparkWeighted(_FeatureWeighted, _SparkCluster):
    """The feature-weighted loop's passes on Spark. An assignment is one
    job whose output, the blocks with their new labels, is cached (the
    blocks pass through Python as Arrow buffers, not copied there): a
    second copy of the data in Spark's cache while it lives, the previous
    one uncached once no pass needs it (at most two assignments are alive
    at a time, three copies of the data with the packed blocks)."""

    def _assign(self, space, centres, v, prev, keep=0, ties=True):
        """Every block assigned at `centres` by the distance with
        multipliers `v` (None: plain), keeping the labels of `prev` (a
        ``_State``) on ties (with `ties`; else only counting the rows that
        changed): merged statistics (with the `keep` farthest rows), the
        new ``_State``."""
        src = self._packed if prev is None else prev.df
        cols = ["pid", "start", "rows", "x", "w"] + ([] if prev is None else ["labels"])
        vv = None if v is None else np.ascontiguousarray(v, dtype=np.float64)
        task = partial(_assign_task, self._spec, space, centres, vv, self._offsets, keep, ties)
        state = _State(src.select(*cols).mapInArrow(task, _STATE_SCHEMA).persist())
        # Only its release is kept: the state itself lives as long as the
        # loop holds it.
        self._states.append(state.release)

        def pass_():
            # The first action builds the whole cache (labels and all);
            # only the statistics come back.
            rows = state.df.select("pid", "stats").where("stats IS NOT NULL").collect()
            pids, parts = self._sorted(rows)
            self._check_rows(pids, parts)
            return _tree(parts, partial(_lloyd_merge, keep=keep))

        return self._timed(pass_), state

    def _dispersions(self, space, parts, centres):
        def pass_():
            _, ds = self._collect(partial(_dispersion_task, self._spec, space, centres), parts.df)
            return np.asarray(_tree(ds, _sum_in_order), dtype=np.float64)

        return self._timed(pass_)

    def _label_stats(self, space, parts):
        _, sums = self._collect(partial(_label_sums_task, self._spec, space, self.n_clusters), parts.df)
        return _tree(sums, partial(_lloyd_merge, keep=0))

    def _inertia(self, parts, centres):
        _, costs = self._collect(partial(_cost_task, self._spec, centres), parts.df)
        return float(_tree(costs, _sum_in_order))

    def _check(self):
        self._check_beta()


class WKMeans(_SparkWeighted):
    """``meanscape.WKMeans`` (Huang et al.'s WK-means) on a Spark
    DataFrame, as ``meanscape.dask.WKMeans``: the plain nearest-centre
    partition from the initial centres, then the engine's loop (means,
    dispersions, Huang's weights, the reassignment by Σ w^β (x−z)²
    keeping labels on ties), the labels kept with the cached blocks.
    ``transform``: the nearest centre by the fitted weighted distance."""

    def __init__(
        self,
        n_clusters=8,
        *,
        featuresCol="features",
        predictionCol="prediction",
        weightCol=None,
        beta=4.0,
        tol=1e-08,
        max_iter=100,
        n_init=1,
        init="k-means++",
        random_state=None,
        init_size=None,
        persist=True,
    ):
        _store_params(self, locals())

    def _fit(self):
        attrs, z, v, _, stats = self._fit_wk()
        return self._model(stats["counts"], partial(_weighted_nearest, centres=z, v=v, mean=None, sd=None), z, **attrs)


class LWKMeans(_SparkWeighted):
    """``meanscape.LWKMeans`` (LW-k-means, λ in the authors' code units) on
    a Spark DataFrame, as ``meanscape.dask.LWKMeans``: one initial k-means
    (the engine's, as ``lw`` runs it from given centres) from ``init``,
    the z-scores (two passes), α and λ_max from the dispersions at that
    partition, and the engine's loop with the lasso weights on the
    z-scores (computed in every task, not stored). ``transform``: the
    nearest centre by the fitted weighted distance after the fitted
    z-scores.

    ``nstart`` must be 1 with ``init='k-means++'`` (the in-memory default,
    50, keeps the best of that many k-means runs: run them with
    ``meanscape.spark.KMeans`` and pass the best centres as ``init``).
    """

    def __init__(
        self,
        n_clusters=8,
        *,
        featuresCol="features",
        predictionCol="prediction",
        weightCol=None,
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
        persist=True,
    ):
        _store_params(self, locals())

    def _check(self):
        self._check_beta()
        if isinstance(self.init, str) and self.nstart not in (1, None):
            raise ValueError(
                f"meanscape.spark.LWKMeans runs one initial k-means: nstart={self.nstart!r} is not offered "
                "(give nstart=1, or the best of your own k-means runs as init)"
            )

    def _fit(self):
        attrs, centres, z, v, zscores, _, stats = self._fit_lw()
        mean, sd = zscores or (None, None)
        predict = partial(_weighted_nearest, centres=z, v=v, mean=mean, sd=sd)
        return self._model(stats["counts"], predict, centres, **attrs)


# ------------------------------------------------------------------ model


def _predicted(spec, predict, *cols):
    """`predict` (a block of rows → labels) on a batch of pandas Series."""
    p, f32, kind, _ = spec
    dtype = np.float32 if f32 else np.float64
    if kind == "array":
        v = cols[0]
        if v.isna().any():
            raise ValueError("transform: null feature vectors")
        x = np.asarray(np.stack(v.to_numpy()), dtype=dtype) if len(v) else np.empty((0, p), dtype)
        if x.ndim != 2 or x.shape[1] != p:
            raise ValueError(f"transform: feature vectors of another length than {p}")
    else:
        x = np.empty((len(cols[0]), p), dtype=dtype)
        for j, c in enumerate(cols):
            x[:, j] = c.to_numpy(dtype=dtype)
    return np.asarray(predict(np.ascontiguousarray(x))).astype(np.int32)


class ClusterModel:
    """A fitted meanscape.spark estimator: ``cluster_centers_`` (None for
    ``RFFPowerKMeans``, whose centres live in the feature space:
    ``feature_centers_``), ``n_iter_``, the objective and its trace and
    the other fitted attributes of the in-memory estimator (the feature
    weights of ``WKMeans`` and ``LWKMeans``, …), ``bytes_per_iteration_``
    (the statistics all partitions sent per pass, on average) and
    ``iteration_seconds_`` (the wall time of every statistics pass: the
    iterations, ``KMeans``' label checks, ``PowerKMeans``' closing
    k-means cost), ``worker_cache_`` ((partitions found in the Python
    workers, partitions read from Spark's cache) over those passes);
    ``transform(df)`` adds every row's cluster (the
    estimator's ``predict``: the nearest centre, by the fitted distance
    or in the fitted feature space) as an int column ``predictionCol``
    (computed lazily by Spark)."""

    def __init__(self, cluster_centers, *, featuresCol="features", predictionCol="prediction", predict=None):
        self.cluster_centers_ = cluster_centers
        self.featuresCol = featuresCol
        self.predictionCol = predictionCol
        # A block of rows → their clusters; by default the nearest centre.
        self._predict = predict

    def clusterCenters(self):
        """The centres as a list of arrays (as MLlib's ``KMeansModel``)."""
        return list(np.asarray(self.cluster_centers_, dtype=np.float64))

    def transform(self, df):
        """`df` with the column ``predictionCol``: each row's cluster."""
        predict = self._predict
        if predict is None:
            if getattr(self, "cluster_centers_", None) is None:
                raise NotFittedError("This ClusterModel has no centres.")
            predict = partial(_nearest, centres=np.ascontiguousarray(self.cluster_centers_, dtype=np.float64))
        _, F, _ = _spark()
        import pandas as pd

        exprs, spec = _features(df, self.featuresCol)
        p = getattr(self, "n_features_in_", None) or self.cluster_centers_.shape[1]
        if spec[0] is not None and spec[0] != p:
            raise ValueError(f"featuresCol has {spec[0]} features; the model was fitted on {p}.")
        spec = (p,) + spec[1:]
        body = partial(_predicted, spec, predict)

        def nearest(*cols: pd.Series) -> pd.Series:
            return pd.Series(body(*cols))

        return df.withColumn(self.predictionCol, F.pandas_udf(nearest, "int")(*exprs))
