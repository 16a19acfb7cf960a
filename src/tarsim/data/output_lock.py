"""One writer per output folder: an exclusive advisory lock (fcntl.flock on OUT/.tarsim.lock) held for a whole run.

The operating system releases the lock when the holding process ends, however it ends (kill -9 included), so
a lock is never stale. The file records the holder's pid for the error message. Within one thread the lock is
re-entrant (simulate takes it, then review_topics takes it again); another process, or another thread of this
process, is refused at once with a ConfigError.

fcntl is kept here, not the `filelock` package: its FileLock on Linux is this same fcntl.flock (released by the OS
on kill -9, leaving the lock file behind, as here), so it would add a dependency and change nothing that matters,
while this module needs more than the lock: the holder's pid in the file for the message, refusing at once rather
than waiting, and a reader's look that holds the lock only for an instant.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from tarsim.data.ledger import remove_partial_files
from tarsim.data.lines import PathLike
from tarsim.data.paths import missing_folders, remove_if_empty
from tarsim.errors import ConfigError

LOCK_NAME = ".tarsim.lock"

_held: dict[tuple[Path, int], int] = {}  # (resolved OUT, thread id) -> nesting depth in this process
_alone: set[Path] = set()  # folders held with alone=True: nothing else in this process may enter them
_guard = threading.Lock()


def _holder(fd: int) -> str:
    """The pid recorded in an open lock file ('?' when it cannot be read)."""
    with contextlib.suppress(OSError, ValueError):
        text = os.pread(fd, 32, 0).decode("ascii").strip()
        if text.isdigit():
            return text
    return "?"


def _held_in_process(folder: Path) -> bool:
    """Whether a thread of this process holds the (resolved) output folder; call with _guard held."""
    return any(held == folder for held, _ in _held)


PROBE_RETRIES = 20
"""Attempts, 5 ms apart, before a held lock refuses a writer: a reader's look (writer_of) holds it for microseconds,
a writer for its whole run."""


def _flock_exclusive(fd: int) -> None:
    """The exclusive lock without waiting for a writer, past a reader's momentary look; BlockingIOError if held."""
    for attempt in range(PROBE_RETRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if attempt == PROBE_RETRIES - 1:
                raise
            time.sleep(0.005)


def _acquire(lock_path: Path, out: Path) -> int:
    """Open and lock `lock_path` without waiting; the descriptor of the locked file."""
    while True:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            _flock_exclusive(fd)
        except BlockingIOError:
            pid = _holder(fd)
            os.close(fd)
            raise ConfigError(f"{out} is in use by another tarsim process (pid {pid})") from None
        except BaseException:
            os.close(fd)
            raise
        try:  # the holder may have removed the file between our open and flock: then lock the new file
            same = os.fstat(fd).st_ino == os.stat(lock_path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            return fd
        os.close(fd)


@contextlib.contextmanager
def output_lock(out: PathLike, *, alone: bool = False) -> Iterator[Path]:
    """Hold the exclusive lock of output folder `out` (created if missing) for the body of the `with`.

    Within one thread the lock is re-entrant (nested calls of one run). `alone` is for a hold that spans code the
    caller does not control (a review stepped by a generator across its yields): it is refused while this process
    holds the folder already, and nothing else in this process may enter it meanwhile.
    """
    directory = Path(out)
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"{directory} is not a directory (an output folder is needed)")
    created = missing_folders(directory)
    directory.mkdir(parents=True, exist_ok=True)
    resolved = directory.resolve()
    key = (resolved, threading.get_ident())
    with _guard:
        held_here = _held_in_process(resolved)
        if resolved in _alone or (alone and held_here):
            raise ConfigError(f"{directory} is in use by another review in this process (pid {os.getpid()})")
        depth = _held.get(key, 0)
        if depth:
            _held[key] = depth + 1
    if depth:
        try:
            yield directory
        finally:
            with _guard:
                _held[key] -= 1
        return
    lock_path = directory / LOCK_NAME
    fd = _acquire(lock_path, directory)
    with _guard:
        _held[key] = 1
        if alone:
            _alone.add(resolved)
    try:
        yield directory
    finally:
        with _guard:
            del _held[key]
            _alone.discard(resolved)
        with contextlib.suppress(OSError):  # removed while still locked, so no other process can hold a stale copy
            os.unlink(lock_path)
        os.close(fd)
        remove_if_empty(created)  # a run that failed before writing anything leaves no empty folder behind


def writer_of(out: PathLike) -> str | None:
    """The pid of a process holding output folder `out`'s lock (a run still writing it; this process's own pid for a
    review it is stepping), else None. Only looks: the lock file is not created, a free lock is held for an instant
    (a writer starting then retries, see PROBE_RETRIES) and released."""
    resolved = Path(out).resolve()
    with _guard:
        if _held_in_process(resolved):
            return str(os.getpid())
    lock_path = Path(out) / LOCK_NAME
    try:
        fd = os.open(lock_path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _holder(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return None


@contextlib.contextmanager
def writing_to(out: PathLike, *, alone: bool = False) -> Iterator[Path]:
    """Hold output folder `out`'s lock (`alone`: see output_lock) with the partial ledgers a killed run left there
    removed: no other writer can be active now."""
    with output_lock(out, alone=alone) as folder:
        remove_partial_files(folder / "ledgers")
        yield folder
