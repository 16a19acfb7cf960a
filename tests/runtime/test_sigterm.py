"""SIGTERM (kill, timeout, a batch scheduler's end of job) ends tarsim as Ctrl-C does: one line, nothing partial
(a review stopped by it: tests/cli/test_simulate_cli.py, beside Ctrl-C).

Found by two new users' trials: `timeout -s TERM` left a hidden partial ledger and printed nothing (exit 143 from
the signal's default action).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

import tarsim
from conftest import wait_for
from tarsim.runtime.signals import Terminated, terminate_on_sigterm

pytestmark = pytest.mark.slow  # signals to running processes


def test_terminated_is_caught_where_ctrl_c_is():
    """Every clean-up written for Ctrl-C (`except KeyboardInterrupt`, `except BaseException`) runs for SIGTERM."""
    assert issubclass(Terminated, KeyboardInterrupt)
    with terminate_on_sigterm():
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)
        except KeyboardInterrupt as exc:
            assert isinstance(exc, Terminated)


def test_sigterm_ends_a_sweeps_workers_at_once():
    """A sweep's forked workers finish their run on Ctrl-C; on SIGTERM to the parent alone they are ended at once,
    and none is left behind."""
    code = (
        "import sys, time\n"
        "from tarsim.runtime.pools import forked_workers\n"
        "from tarsim.runtime.signals import Terminated, terminate_on_sigterm\n"
        "try:\n"
        "    with terminate_on_sigterm(), forked_workers(2, ignore_interrupt=True) as pool:\n"
        "        futures = [pool.submit(time.sleep, 60) for _ in range(2)]\n"
        "        print('go', flush=True)\n"
        "        [f.result() for f in futures]\n"
        "except Terminated:\n"
        "    sys.exit(143)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(tarsim.__file__).parents[1])}
    process = subprocess.Popen(
        [sys.executable, "-c", code], env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        process.stdout.readline()
        wait_for(lambda: len(psutil.Process(process.pid).children()) >= 2, 20, "two forked workers")
        workers = psutil.Process(process.pid).children()
        assert len(workers) >= 2
        time.sleep(0.3)
        started = time.monotonic()
        os.kill(process.pid, signal.SIGTERM)  # the parent only, as `kill PID` does
        assert process.wait(timeout=30) == 143
        assert time.monotonic() - started < 10  # not after the 60 s runs
        _, alive = psutil.wait_procs(workers, timeout=5)
        assert not alive
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)


def test_an_ignored_sigterm_stays_ignored():
    """A process started with SIGTERM ignored (nohup-like launchers) is not made killable by it."""
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        with terminate_on_sigterm():
            assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)  # ignored: nothing raised
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, previous)
