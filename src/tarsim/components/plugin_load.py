"""Loading one plugin's entry point, telling a KeyboardInterrupt its import code raises from the user's Ctrl-C.

While the plugin is imported, SIGINT's handler is wrapped so that a real Ctrl-C (or `kill -INT`) is noted before the
previous handler runs: a KeyboardInterrupt with no SIGINT noted came from the plugin's code, and is a plugin failure
(PluginInterrupt), not the user stopping tarsim. Where SIGINT cannot be watched (outside the main thread) a
KeyboardInterrupt still interrupts.
"""

from __future__ import annotations

import signal
import threading
from importlib.metadata import EntryPoint
from typing import Any


class PluginInterrupt(Exception):
    """A KeyboardInterrupt raised by a plugin's import code while no SIGINT arrived."""


def load_entry_point(point: EntryPoint) -> Any:
    """`point.load()`; a KeyboardInterrupt raised without a SIGINT becomes PluginInterrupt, a real one propagates."""
    if threading.current_thread() is not threading.main_thread():
        return point.load()
    pressed: list[int] = []
    previous = signal.getsignal(signal.SIGINT)

    def note(signum: int, frame: Any) -> None:
        pressed.append(signum)
        if callable(previous):
            previous(signum, frame)
        elif previous != signal.SIG_IGN:  # SIG_DFL (or unknown): interrupt as Python's default handler does
            raise KeyboardInterrupt

    signal.signal(signal.SIGINT, note)
    try:
        return point.load()
    except KeyboardInterrupt:
        if pressed:
            raise
        raise PluginInterrupt() from None
    finally:
        if signal.getsignal(signal.SIGINT) is note:
            signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
