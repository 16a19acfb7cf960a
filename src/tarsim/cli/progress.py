"""A progress bar on stderr when it is a terminal, and nothing otherwise (logs and CI stay clean)."""

from __future__ import annotations

import sys
from collections.abc import Callable


class TerminalProgress:
    """Opened with the total once known; `tick()` counts one finished item; `close()` ends the bar."""

    def __init__(self, unit: str, desc: str) -> None:
        self.unit = unit
        self.desc = desc
        self._bar = None

    def open(self, total: int, done: int = 0) -> Callable[[], None] | None:
        """Start the bar (only on a terminal); returns the tick function, or None when there is no bar."""
        if not sys.stderr.isatty():
            return None
        from tqdm import tqdm

        class Bar(tqdm):
            """tqdm without its monitor thread: a second thread makes forking unsafe
            (tarsim.runtime.pools.fork_is_safe), which turned off the counting and segmenting workers of every run on a
            terminal."""

            monitor_interval = 0

        self._bar = Bar(total=total, initial=done, unit=self.unit, desc=self.desc, file=sys.stderr)
        return self.tick

    def tick(self) -> None:
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
