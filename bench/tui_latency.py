#!/usr/bin/env python3
"""Key-to-frame latency of the terminal UI while a solver run is busy.

Runs the real binary on a pseudo-terminal (120 x 40), opens Fashion-MNIST
(70000 x 784, k = 10) with power k-means (or any --data/--algo given),
waits until the run is under way, then presses Tab N times at random
intervals. Tab moves the focus, and the newly focused pane is drawn with a
heavy border ('┏'); the latency of one key is the time from writing the key
to the pty until the first output bytes containing that border arrive. This
is what a user feels: it includes reading the key, updating the state,
drawing the frame and writing it to the terminal.

The solver keeps both cores busy the whole time (it is restarted with a
long max_iter so it cannot finish during the measurement).

With --sweep, a 10 x 10 s0 x eta sweep of power (one seed per cell) is
started from the UI's sweep prompt on usps instead (../shared/data/usps.csv
unless --data), its view hidden with v so Tab moves the focus again, and
the keys are pressed while the sweep keeps both cores busy.

Usage: python3 bench/tui_latency.py [--data PATH] [--algo ID] [--keys N] [--sweep]
"""

import argparse
import fcntl
import json
import os
import pty
import random
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
BIN = ROOT / "target" / "release" / "meanscape"


def fashion_npy():
    f = OUT / "fashion-mnist.npy"
    if f.exists():
        return f
    sys.exit(f"{f} is missing: run `python3 bench/iteration.py` once to build it from Debian's dataset-fashion-mnist")


def read_until(fd, needle, timeout):
    """Reads from fd until `needle` (bytes) shows up; returns the time it did."""
    buf = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([fd], [], [], 0.005)
        if r:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                break
            buf += chunk
            if needle in buf:
                return time.monotonic(), buf
    return None, buf


def drain(fd):
    while True:
        r, _, _ = select.select([fd], [], [], 0)
        if not r:
            return
        try:
            os.read(fd, 1 << 16)
        except OSError:
            return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data")
    ap.add_argument("--algo", default="power")
    ap.add_argument("--keys", type=int, default=40)
    ap.add_argument("--sweep", action="store_true")
    a = ap.parse_args()
    if a.sweep and not a.data:
        a.data = str(ROOT.parent / "shared" / "data" / "usps.csv")
    subprocess.run(["cargo", "build", "--release", "-q"], cwd=ROOT, check=True)
    data = a.data or str(fashion_npy())
    args = [str(BIN), "tui", "--data", data, "--algo", a.algo, "--k", "10",
            "--label", "none", "--max-iter", "100000", "-P", "tol=0"]
    if a.algo not in ("power",):
        args = [x for x in args if x not in ("-P", "tol=0")]
    if a.sweep:
        args = [str(BIN), "tui", "--data", data, "--algo", a.algo, "--k", "10"]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.execv(args[0], args)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.kill(pid, signal.SIGWINCH)
    t_start = time.monotonic()
    t_run, _ = read_until(fd, b"running", 120)
    if t_run is None:
        os.kill(pid, signal.SIGKILL)
        sys.exit("the run never started")
    print(f"data loaded and run started after {t_run - t_start:.1f} s; measuring {a.keys} keys")
    if a.sweep:
        read_until(fd, b"converged", 120)
        # Focus Parameters, the s0 slider, open the sweep prompt.
        os.write(fd, b"3")
        time.sleep(0.2)
        os.write(fd, b"jjj")
        time.sleep(0.2)
        os.write(fd, b"S")
        time.sleep(0.3)
        os.write(fd, b"\x15s0=-10:-0.1:10:log eta=1.01:1.3:10 seeds=1\r")
        t_sw, _ = read_until(fd, b"/100 cells", 30)
        if t_sw is None:
            os.kill(pid, signal.SIGKILL)
            sys.exit("the sweep did not start")
        time.sleep(1.0)
        os.write(fd, b"v")  # hide the view: the sweep runs on
        print("sweep started; measuring with its view hidden")
    time.sleep(2.0)  # let the solver get into its iterations
    # The UI runs in a child of the process started (its supervisor,
    # src/tui/supervise.rs), which only waits.
    kids = open(f"/proc/{pid}/task/{pid}/children").read().split()
    ui_pid = int(kids[0]) if kids else pid

    def cpu_s():
        # utime + stime of the UI process and its threads (the solver's).
        f = open(f"/proc/{ui_pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")

    cpu0, wall0 = cpu_s(), time.monotonic()
    lat = []
    for _ in range(a.keys):
        time.sleep(random.uniform(0.15, 0.45))
        drain(fd)
        t0 = time.monotonic()
        os.write(fd, b"\t")
        t1, _ = read_until(fd, "┏".encode(), 5)
        lat.append(None if t1 is None else (t1 - t0) * 1e3)
    load = os.getloadavg()
    busy = (cpu_s() - cpu0) / (time.monotonic() - wall0)
    print(f"the process kept {busy:.2f} cores busy while the keys were pressed")
    os.write(fd, b"q")
    time.sleep(0.5)
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
    got = sorted(x for x in lat if x is not None)
    missed = sum(1 for x in lat if x is None)
    if not got:
        sys.exit("no frame seen after any key")
    q = lambda p: got[min(len(got) - 1, int(p * len(got)))]
    res = {
        "data": data, "algo": a.algo, "keys": a.keys, "missed": missed, "sweep": a.sweep,
        "p50_ms": q(0.5), "p90_ms": q(0.9), "p99_ms": q(0.99), "max_ms": got[-1],
        "mean_ms": sum(got) / len(got), "loadavg": load, "cores_busy": busy,
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "tui_latency.json").write_text(json.dumps(res, indent=1))
    print(f"| keys | p50 ms | p90 ms | p99 ms | max ms | missed | cores busy |")
    print(f"|---|---|---|---|---|---|---|")
    print(f"| {len(got)} | {res['p50_ms']:.1f} | {res['p90_ms']:.1f} | {res['p99_ms']:.1f} | {res['max_ms']:.1f} | {missed} | {busy:.2f} |")


if __name__ == "__main__":
    main()
