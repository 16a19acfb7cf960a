"""Preload of the worker processes of the local Dask cluster a sweep starts (`--backend dask` without --scheduler).

The terminal sends Ctrl-C (SIGINT) to the whole process group, so these workers would each print a traceback
before the sweep's one line `tarsim: interrupted`. They ignore it instead: the sweep closes its cluster, and the
workers exit with it (also after `kill -9` of the sweep).
"""

from __future__ import annotations

import signal
import threading


def dask_setup(worker: object) -> None:
    """Called by distributed when a worker process starts (LocalCluster's `preload`): ignore Ctrl-C."""
    if threading.current_thread() is threading.main_thread():  # signal handlers can only be set there
        signal.signal(signal.SIGINT, signal.SIG_IGN)
