"""A call run under a timeout guard, for tests of readers that must never block on a FIFO."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest


def finishes(call: Callable[[], object], fifos: Iterable[Path] = (), seconds: float = 60, what: str = "") -> object:
    """Run `call` in a thread and return what it returns (or raise what it raises); fail when it is still blocked
    after `seconds`, then release any reader blocked on one of `fifos` (opened for writing and closed: end of file).
    `what` names the call in the failure (`still blocked after N s` without it)."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        for fifo in fifos:
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(10)
        pytest.fail(f"{what} still running after {seconds} s" if what else f"still blocked after {seconds} s")
    if "error" in outcome:
        raise outcome["error"]  # type: ignore[misc]
    return outcome.get("value")
