"""Atomic file writing: write to a temporary file beside the target, then rename over it."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from tarsim.data.lines import PathLike
from tarsim.data.regular_files import file_kind
from tarsim.errors import InputError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def not_replaceable(target: PathLike) -> str | None:
    """Why an output file may not be written over `target`, or None: the rename would replace a device (`--out
    /dev/full` turned the machine's /dev/full into a file), a FIFO or a socket with a file. A symlink is replaced,
    its target untouched; a folder is refused by the rename itself."""
    try:
        mode = os.lstat(target).st_mode
    except OSError:  # missing; a loop on the way or permissions: the write itself says what is wrong
        return None
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return f"{file_kind(mode)}, not a regular file: tarsim does not write over it"
    return None


def _check_replaceable(target: Path) -> None:
    problem = not_replaceable(target)
    if problem is not None:
        raise InputError(target, None, problem)


@contextlib.contextmanager
def atomic_write(path: PathLike, mode: str = "w", encoding: str | None = "utf-8") -> Iterator[IO]:
    """Open a temporary file for writing; on success rename it to `path`, on failure remove it.

    Readers never see a half-written file: either the old content or the complete new one.
    """
    target = Path(path)
    _check_replaceable(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.chmod(tmp_name, 0o666 & ~_umask())  # mkstemp creates 0600; give the file the permissions open() would
    binary = "b" in mode
    try:
        with os.fdopen(fd, mode, encoding=None if binary else encoding, newline=None if binary else "") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        _check_replaceable(target)  # again: something made there meanwhile
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
