"""The progress bar of a run on a terminal."""

from __future__ import annotations

import os
import subprocess
import sys

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
ONE_BLAS_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
"""BLAS's own thread pool (started when numpy is imported) makes forking unsafe too (fork_is_safe)."""


def test_a_progress_bar_on_a_terminal_starts_no_thread_and_keeps_forking_safe():
    """tqdm's monitor thread made fork_is_safe() false, so every run on a terminal counted and segmented without
    its forked workers (35% slower cold srd reviews)."""
    code = (
        "import io, sys, threading\n"
        "class Terminal(io.StringIO):\n"
        "    def isatty(self): return True\n"
        "sys.stderr = Terminal()\n"
        "from tarsim.cli.progress import TerminalProgress\n"
        "from tarsim.runtime.pools import fork_is_safe\n"
        "bar = TerminalProgress('topic', 'reviewing')\n"
        "tick = bar.open(3)\n"
        "tick()\n"
        "print(tick is not None, threading.active_count(), fork_is_safe())\n"
        "bar.close()\n"
    )
    env = {**ENV, **ONE_BLAS_THREAD}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "1", "True"]
