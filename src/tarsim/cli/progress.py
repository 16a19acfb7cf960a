"""Progress on stderr: a bar when it is a terminal; off a terminal nothing, or (for long work such as a sweep, given
`log_every`) one plain line every N items, so that a log or CI shows how far the work is and how long it may take."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable


def clock_time(seconds: float) -> str:
    """Seconds as H:MM:SS (0:01:05)."""
    seconds = max(0, round(seconds))
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class TerminalProgress:
    """Opened with the total once known; `tick()` counts one finished item; `close()` ends the bar.

    `log_every` (off a terminal only): 0 for a line about every tenth of the work, N for one every N items, None
    (default) for no line at all."""

    def __init__(
        self, unit: str, desc: str, log_every: int | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.unit = unit
        self.desc = desc
        self.log_every = log_every
        self.clock = clock
        self._bar = None
        self._total = self._done = self._ran = self._every = 0
        self._start = 0.0

    def open(self, total: int, done: int = 0) -> Callable[[], None] | None:
        """Start the bar (on a terminal) or the log lines (off one, with log_every); returns the tick function, or
        None when there is neither."""
        if not sys.stderr.isatty():
            if self.log_every is None:
                return None
            self._total, self._done, self._ran, self._start = total, done, 0, self.clock()
            self._every = self.log_every or max(1, math.ceil((total - done) / 10))
            kept = f" ({done} kept)" if done else ""
            print(f"{self.desc}: {done}/{total} {self.unit}s done{kept}", file=sys.stderr, flush=True)
            return self._log_tick
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

    def _log_tick(self) -> None:
        """One item finished: a line every `_every` items and at the last: done/total, elapsed, an estimate of the
        rest (the mean time per item so far times the items left)."""
        self._done += 1
        self._ran += 1
        if self._ran % self._every and self._done < self._total:
            return
        elapsed = self.clock() - self._start
        left = elapsed / self._ran * (self._total - self._done)
        rest = f", about {clock_time(left)} left" if self._done < self._total else ""
        print(
            f"{self.desc}: {self._done}/{self._total} {self.unit}s done, {clock_time(elapsed)} elapsed{rest}",
            file=sys.stderr,
            flush=True,
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
