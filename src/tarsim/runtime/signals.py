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
    """Within the block, SIGTERM raises Terminated in the main thread; the previous handler is restored after it.
    Elsewhere nothing changes: in another thread, under a handler set outside Python, or where SIGTERM is ignored."""
    previous = signal.getsignal(signal.SIGTERM) if threading.current_thread() is threading.main_thread() else None
    if previous is None or previous == signal.SIG_IGN:  # not the main thread; a handler set outside Python; or
        yield  # SIGTERM ignored by whoever started this process (as Python leaves an ignored SIGINT alone)
        return

    def terminated(signum, frame) -> None:
        raise Terminated()

    signal.signal(signal.SIGTERM, terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
