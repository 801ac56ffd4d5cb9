"""The packed blocks ``meanscape.spark`` keeps on its executors between
passes: one file per partition of the blocks, in the executor's own
directory (``SparkFiles.getRootDirectory()``, which Spark deletes when
the executor or the application ends, so a crashed fit leaves nothing
behind), mapped read-only into every Python worker that runs the
partition.

Why files and not the Python workers' memory: Spark hands a task to
whichever Python worker of its executor is idle (``bench/spark_floor.py``),
so blocks kept in one worker's memory were missed by the next pass about
half of the time, and each miss cost a second job. A file is found by
every worker of the executor, and the mapping shares one copy of the
pages among them (the operating system's page cache: it may drop them
under memory pressure and read them back from disk, never lose them).

A partition's store: ``q<q>.blocks`` (every block's bytes, then its
weights', each at a 64-byte boundary) and ``q<q>.sig`` (the blocks'
(pid, start, rows, checksum), in order, and where their bytes are),
each written to a temporary name and renamed, so a reader sees a whole
file or none. A pass trusts a store only if its signature equals the
scan's (Adler-32 checksums taken at packing), so the result never
depends on what an executor kept.
"""

import mmap
import os
import pickle
import shutil
import struct
import zlib

import numpy as np

_ALIGN = 64

# (fit token, partition of the blocks) -> _Kept, in this Python worker.
_MAPPED = {}

# (fit token, input partition) -> (slot header, its blocks' bounded-Lloyd
# states), the last this Python worker wrote or read.
_STATES = {}


def checksum(x, w):
    """Adler-32 of a block's bytes and its weights' (bytes or arrays): what
    proves that a kept block is the block the scan saw."""
    c = zlib.adler32(x)
    return c if w is None else zlib.adler32(w, c)


def store_dir(token):
    """This executor's directory of the fit `token`'s blocks."""
    from pyspark.files import SparkFiles

    return os.path.join(SparkFiles.getRootDirectory(), "meanscape-kept", token)


class _Kept:
    """A partition's blocks mapped from its store: `sig` and `parts`
    ((pid, [(start, x, w, None)]) per input partition, in order)."""

    def __init__(self, path, sig, places, dtype, p):
        self.path = path
        self.sig = sig
        with open(path + ".blocks", "rb") as f:
            size = os.fstat(f.fileno()).st_size
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        parts = {}
        for (pid, start, rows, _), (xo, wo) in zip(sig, places):
            x = self._array(xo, dtype, rows * p).reshape(rows, p)
            w = None if wo is None else self._array(wo, np.float64, rows)
            parts.setdefault(pid, []).append((start, x, w, None))
        self.parts = sorted(parts.items())

    def _array(self, offset, dtype, count):
        if count == 0:
            return np.empty(0, dtype)
        return np.frombuffer(self._map, dtype=dtype, count=count, offset=offset)


def _forget_gone():
    """Drop this worker's mappings of stores that were deleted (their fit
    ended): the pages stay pinned while mapped; and the states of fits
    whose store is gone."""
    for key in [key for key, kept in _MAPPED.items() if not os.path.exists(kept.path + ".sig")]:
        del _MAPPED[key]
    for key in [key for key in _STATES if not os.path.isdir(store_dir(key[0]))]:
        del _STATES[key]


# The bounded-Lloyd states (``_meanscape.LloydState``: Hamerly bounds,
# labels and cluster sums, 32 bytes a row) of k-means' passes, per input
# partition, beside the kept blocks. A pass reads the previous
# generation's (the fit's pass that made them) and writes its own; an
# exact pass of the same iteration reads the previous one again. So two
# slots per partition, ``s<pid>.<generation mod 2>``, each overwritten in
# place (a new file costs its pages again: ten times the write). A slot
# is a header (below) and the pickled states; a
# writer marks the header −1 before the payload and sets it after, and
# a reader checks it before and after reading (a sequence lock), so a
# torn or stale slot is never read as a state. A state is a function of
# the block and the centres of every earlier pass, so one that is
# missing is made again from them (``meanscape.spark``): where an
# executor kept it decides the time, never the result.

# (generation, payload bytes, the write's own random tag): a worker's
# memory copy counts only while the slot holds the very write it made or
# read; an exact pass of the same generation, written by another worker,
# changes the tag.
_HEAD = struct.Struct("<qqq")


def _state_path(token, pid, gen):
    return os.path.join(store_dir(token), f"s{pid}.{gen % 2}")


def _slot_head(f):
    f.seek(0)
    head = f.read(_HEAD.size)
    return _HEAD.unpack(head) if len(head) == _HEAD.size else (-1, 0, 0)


def read_states(token, pid, gen):
    """The states of input partition `pid`'s blocks of generation `gen`
    kept on this executor, else None."""
    try:
        with open(_state_path(token, pid, gen), "rb") as f:
            head = _slot_head(f)
            if head[0] != gen:
                # What this worker holds counts only while its slot does.
                _STATES.pop((token, pid), None)
                return None
            got = _STATES.get((token, pid))
            if got is not None and got[0] == head:
                return got[1]
            payload = f.read(head[1])
            if len(payload) != head[1] or _slot_head(f) != head:
                return None
    except OSError:
        _STATES.pop((token, pid), None)
        return None
    try:
        states = pickle.loads(payload)
    except (EOFError, pickle.UnpicklingError, ValueError, TypeError):
        return None
    _STATES[(token, pid)] = (head, states)
    return states


def write_states(token, pid, gen, states):
    """Keep `states` as input partition `pid`'s generation `gen`, over
    generation gen − 2's slot. A full or unwritable disk keeps nothing:
    the next pass makes them again."""
    _forget_gone()
    _STATES.pop((token, pid), None)
    payload = pickle.dumps(states, protocol=5)
    head = (gen, len(payload), int.from_bytes(os.urandom(8), "little") >> 1)
    path = _state_path(token, pid, gen)
    try:
        os.makedirs(store_dir(token), exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        with os.fdopen(fd, "r+b") as f:
            f.write(_HEAD.pack(-1, 0, 0))
            f.flush()
            f.write(payload)
            f.truncate(_HEAD.size + len(payload))
            f.seek(0)
            f.write(_HEAD.pack(*head))
        _STATES[(token, pid)] = (head, states)
    except OSError:
        try:
            os.unlink(path)
        except OSError:
            pass


def find(token, q, expect, dtype, p):
    """The partition's kept blocks if this executor holds them with the
    signature `expect`, else None."""
    key = (token, q)
    kept = _MAPPED.get(key)
    if kept is not None and kept.sig == expect and os.path.exists(kept.path + ".sig"):
        return kept
    _MAPPED.pop(key, None)
    _forget_gone()
    path = os.path.join(store_dir(token), f"q{q}")
    try:
        with open(path + ".sig", "rb") as f:
            sig, places = pickle.load(f)
        if sig != expect:
            return None
        kept = _Kept(path, sig, places, dtype, p)
    except (OSError, EOFError, pickle.UnpicklingError, ValueError):
        return None
    _MAPPED[key] = kept
    return kept


def _held(directory, but):
    """The bytes of the files in `directory`, leaving out those ending in
    `but` (a writer's own, which it counts itself: its writes may still be
    in its buffer)."""
    try:
        return sum(e.stat().st_size for e in os.scandir(directory) if e.is_file() and not e.name.endswith(but))
    except OSError:
        return 0


class Writer:
    """Writes the blocks of the partitions a task reads to their stores
    as they pass, while the fit's stores on this executor stay under
    `cap` bytes; a partition that would go over is not kept."""

    def __init__(self, token, cap):
        _forget_gone()
        self.dir = store_dir(token)
        self.cap = cap
        try:
            os.makedirs(self.dir, exist_ok=True)
        except OSError:
            self.cap = 0
        # q -> [file, sig, places, offset, bytes counted], None once left out
        self.open = {}
        self.written = 0
        self.tag = f".tmp{os.getpid()}"

    def add(self, q, pid, start, x, w):
        entry = self.open.get(q, ())
        if entry is None:
            return
        # The room left is read from the directory every time: the tasks
        # that run on this executor at once write beside each other (their
        # temporary files count), so together they overrun the cap by at
        # most a block each.
        size = x.nbytes + (0 if w is None else w.nbytes) + 2 * _ALIGN
        if size > self.cap - self.written - _held(self.dir, self.tag):
            self._abandon(q)
            return
        try:
            if not entry:
                path = os.path.join(self.dir, f"q{q}")
                entry = self.open[q] = [open(path + ".blocks" + self.tag, "wb"), [], [], 0, 0]
            f, sig, places, at, _ = entry
            xo, at = at, self._write(f, at, x)
            wo = None
            if w is not None:
                wo, at = at, self._write(f, at, w)
        except OSError:
            # A full or unwritable disk: the partition is read from
            # Spark's cache instead, never a failed task.
            self._abandon(q)
            return
        entry[3] = at
        entry[4] += size
        self.written += size
        sig.append((pid, start, len(x), checksum(x, w)))
        places.append((xo, wo))

    @staticmethod
    def _write(f, at, a):
        f.write(memoryview(np.ascontiguousarray(a)).cast("B"))
        at += a.nbytes
        pad = -at % _ALIGN
        f.write(b"\0" * pad)
        return at + pad

    def _abandon(self, q):
        entry = self.open.get(q)
        if entry:
            self.written -= entry[4]
            try:
                entry[0].close()
            except OSError:
                pass
            try:
                os.unlink(entry[0].name)
            except OSError:
                pass
        self.open[q] = None

    def close(self):
        """Publish every partition kept whole: blocks first, then the
        signature, each by a rename."""
        for q, entry in list(self.open.items()):
            if not entry:
                continue
            f, sig, places = entry[:3]
            path = os.path.join(self.dir, f"q{q}")
            try:
                f.close()
                os.replace(f.name, path + ".blocks")
                with open(path + ".sig" + self.tag, "wb") as s:
                    pickle.dump((tuple(sig), places), s, protocol=5)
                os.replace(path + ".sig" + self.tag, path + ".sig")
            except OSError:
                for name in (f.name, path + ".blocks", path + ".sig" + self.tag):
                    try:
                        os.unlink(name)
                    except OSError:
                        pass

    def discard(self):
        for q in list(self.open):
            self._abandon(q)


def drop(token):
    """Delete the fit's stores on this executor and this worker's mappings."""
    shutil.rmtree(store_dir(token), ignore_errors=True)
    for cache in (_MAPPED, _STATES):
        for key in [key for key in cache if key[0] == token]:
            del cache[key]
    # A deleted file's disk space and pages are held while mapped.
    _forget_gone()
