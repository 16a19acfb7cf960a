"""SIGTERM ended like Ctrl-C: `kill`, `timeout` and batch schedulers end a job with it, and the job should leave what
Ctrl-C leaves (finished ledgers, no partial file, the output lock released) and say so in one line."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator


class Terminated(KeyboardInterrupt):
    """SIGTERM (`kill`, `timeout`, a batch scheduler ending a job), raised in the main thread as Ctrl-C's
    KeyboardInterrupt is, so that the same clean-up runs: partial files removed, the output lock released."""


@contextlib.contextmanager
def terminate_on_sigterm() -> Iterator[None]:
    """Within the block, SIGTERM raises Terminated in the main thread (elsewhere, or where Python cannot set a
    handler, nothing changes); the previous handler is restored after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminated(signum, frame) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
