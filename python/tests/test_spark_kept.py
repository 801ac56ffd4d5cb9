"""The store of packed blocks ``meanscape.spark`` keeps on its executors
(``meanscape._spark_kept``), without Spark: the executor's directory is a
temporary one."""

import os

import numpy as np
import pytest

from meanscape import _meanscape
from meanscape import _spark_kept as kept


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(kept, "store_dir", lambda token: str(tmp_path / token))
    kept._MAPPED.clear()
    kept._STATES.clear()
    yield tmp_path
    kept._MAPPED.clear()
    kept._STATES.clear()


def blocks(seed, dtype=np.float64, weighted=False):
    """Two input partitions of uneven blocks (one of a single row)."""
    rng = np.random.default_rng(seed)
    out = []
    for pid, sizes in ((3, (5, 1, 7)), (4, (2,))):
        start = 0
        for n in sizes:
            x = rng.normal(size=(n, 3)).astype(dtype)
            w = rng.uniform(0.5, 2.0, n) if weighted else None
            out.append((pid, start, x, w))
            start += n
    return out


def write(token, bs, cap=1 << 20, q=0):
    writer = kept.Writer(token, cap)
    for pid, start, x, w in bs:
        writer.add(q(pid) if callable(q) else q, pid, start, x, w)
    writer.close()


def sig(bs):
    return tuple((pid, start, len(x), kept.checksum(x, w)) for pid, start, x, w in bs)


@pytest.mark.parametrize("dtype,weighted", [(np.float64, False), (np.float32, True)])
def test_a_kept_partition_reads_back_its_blocks(store, dtype, weighted):
    bs = blocks(1, dtype, weighted)
    write("fit", bs)
    got = kept.find("fit", 0, sig(bs), np.dtype(dtype), 3)
    assert got is not None
    flat = [(pid, start, x, w) for pid, part in got.parts for start, x, w, _ in part]
    assert [(pid, start) for pid, start, _, _ in flat] == [(pid, start) for pid, start, _, _ in bs]
    for (_, _, x, w), (_, _, x0, w0) in zip(flat, bs):
        assert x.dtype == dtype and not x.flags.writeable and x.flags.aligned
        np.testing.assert_array_equal(x, x0)
        if weighted:
            np.testing.assert_array_equal(w, w0)
        else:
            assert w is None
    # Another worker process (a fresh map) finds the same file.
    kept._MAPPED.clear()
    assert kept.find("fit", 0, sig(bs), np.dtype(dtype), 3) is not None


def test_another_signature_or_partition_is_a_miss(store):
    bs = blocks(2)
    write("fit", bs)
    other = list(sig(bs))
    other[1] = other[1][:3] + (other[1][3] + 1,)
    assert kept.find("fit", 0, tuple(other), np.dtype(np.float64), 3) is None
    assert kept.find("fit", 1, sig(bs), np.dtype(np.float64), 3) is None
    assert kept.find("other fit", 0, sig(bs), np.dtype(np.float64), 3) is None


def test_the_cap_and_a_failed_write_keep_nothing(store, monkeypatch):
    bs = blocks(3)
    # Over the cap: the partition is left out, the other one kept.
    write("fit", bs, cap=400, q=lambda pid: 0 if pid == 3 else 1)
    assert kept.find("fit", 0, sig(bs[:3]), np.dtype(np.float64), 3) is None
    assert kept.find("fit", 1, sig(bs[3:]), np.dtype(np.float64), 3) is not None
    # A disk that fails mid-partition: no file left, no error raised.
    def full(f, at, a):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(kept.Writer, "_write", staticmethod(full))
    write("fit2", bs)
    assert os.listdir(store / "fit2") == []
    assert kept.find("fit2", 0, sig(bs), np.dtype(np.float64), 3) is None


def test_drop_deletes_the_files_and_other_workers_forget_them(store):
    bs = blocks(4)
    write("fit", bs)
    assert kept.find("fit", 0, sig(bs), np.dtype(np.float64), 3) is not None
    assert ("fit", 0) in kept._MAPPED
    # Another process deletes the store: this one's mapping is dropped at
    # its next write, and a find misses.
    import shutil

    shutil.rmtree(store / "fit")
    kept.Writer("next", 1 << 20)
    assert ("fit", 0) not in kept._MAPPED
    assert kept.find("fit", 0, sig(bs), np.dtype(np.float64), 3) is None
    kept.drop("next")
    assert not (store / "next").exists()


def test_writers_side_by_side_share_the_cap(store):
    """Two tasks of one executor fill their stores at once: each counts
    the other's unfinished file, so together they keep to the cap (within
    a block), and the partition that would go over is left out."""
    rng = np.random.default_rng(5)
    big = [(7, i * 2000, rng.normal(size=(2000, 3)), None) for i in range(4)]  # 48 KB blocks
    block = 2000 * 3 * 8 + 2 * kept._ALIGN
    a, b = kept.Writer("fit", 5 * block), kept.Writer("fit", 5 * block)
    b.tag = ".tmp-other-task"
    for pid, start, x, w in big:
        a.add(0, pid, start, x, w)
    for pid, start, x, w in big:
        b.add(1, pid, start, x, w)
    a.close()
    b.close()
    assert kept.find("fit", 0, sig(big), np.dtype(np.float64), 3) is not None
    assert kept.find("fit", 1, sig(big), np.dtype(np.float64), 3) is None
    assert sorted(os.listdir(store / "fit")) == ["q0.blocks", "q0.sig"]


def states(seed, n=(6, 1)):
    """The bounded-Lloyd states of a partition's blocks (one of a row)."""
    rng = np.random.default_rng(seed)
    c = rng.normal(size=(2, 3))
    return [_meanscape.lloyd_block_bounded(rng.normal(size=(m, 3)), c, keep=2)[1] for m in n]


def same_states(a, b):
    assert a is not None and b is not None and len(a) == len(b)
    for x, y in zip(a, b):
        assert x.__reduce__()[1][0] == y.__reduce__()[1][0]


def test_states_read_back_by_generation_from_two_slots(store):
    s0, s1, s2 = states(0), states(1), states(2)
    kept.write_states("fit", 3, 0, s0)
    kept.write_states("fit", 3, 1, s1)
    kept._STATES.clear()  # another Python worker of the executor
    same_states(kept.read_states("fit", 3, 0), s0)
    same_states(kept.read_states("fit", 3, 1), s1)
    assert kept.read_states("fit", 3, 2) is None
    assert kept.read_states("fit", 4, 1) is None
    # Generation 2 takes generation 0's slot, in place; 1 stays.
    kept.write_states("fit", 3, 2, s2)
    kept._STATES.clear()
    assert kept.read_states("fit", 3, 0) is None
    same_states(kept.read_states("fit", 3, 2), s2)
    same_states(kept.read_states("fit", 3, 1), s1)
    assert sorted(os.listdir(store / "fit")) == ["s3.0", "s3.1"]


def test_a_torn_or_lost_state_slot_is_a_miss(store):
    s0 = states(0)
    kept.write_states("fit", 3, 0, s0)
    path = store / "fit" / "s3.0"
    whole = path.read_bytes()
    # A writer stopped between its header and its payload, in this or
    # another worker: the memory copy no longer counts either.
    path.write_bytes(kept._HEAD.pack(-1, 0, 0) + whole[kept._HEAD.size :])
    assert kept.read_states("fit", 3, 0) is None
    # A payload cut short, or not a state.
    path.write_bytes(whole[:-9])
    assert kept.read_states("fit", 3, 0) is None
    path.write_bytes(whole[: kept._HEAD.size] + b"x" * (len(whole) - kept._HEAD.size))
    assert kept.read_states("fit", 3, 0) is None
    # Deleted, as by a lost executor or the end of the fit.
    path.write_bytes(whole)
    same_states(kept.read_states("fit", 3, 0), s0)
    os.unlink(path)
    assert kept.read_states("fit", 3, 0) is None
    kept.write_states("fit", 3, 0, s0)
    kept.drop("fit")
    assert kept.read_states("fit", 3, 0) is None and not kept._STATES


def test_a_worker_memory_copy_yields_to_a_rewrite_of_its_generation(store):
    # Worker A writes generation 1; worker B (another Python worker of the
    # executor) writes generation 1 again (the exact pass of the same
    # iteration): A must read B's states, not its own copy.
    a, b = states(1), states(2)
    kept.write_states("fit", 3, 1, a)
    mine = dict(kept._STATES)
    kept._STATES.clear()
    kept.write_states("fit", 3, 1, b)
    kept._STATES.clear()
    kept._STATES.update(mine)
    same_states(kept.read_states("fit", 3, 1), b)
    # And the copy it then holds is B's.
    same_states(kept._STATES[("fit", 3)][1], b)


def test_an_unwritable_store_keeps_no_state(store, monkeypatch):
    def full(*a, **k):
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as m:
        m.setattr(os, "open", full)
        kept.write_states("fit", 3, 0, states(0))
    kept._STATES.clear()
    assert kept.read_states("fit", 3, 0) is None
