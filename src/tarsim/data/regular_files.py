"""Opening a file tarsim reads only when it is a regular file: a FIFO would block the read forever, and a character
device such as /dev/zero (or a symlink to one) would be read until memory runs out.

The file is opened without blocking (opening a FIFO for reading waits for a writer otherwise), then `fstat` says
what was opened, so a name swapped between a check and the open cannot slip through.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

from tarsim.errors import InputError

MISSING = "no such file"
"""The problem of a path where nothing is (path_problem, open_error_problem)."""

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def file_kind(mode: int) -> str:
    """What a file of this `st_mode` is, in words ("a named pipe (FIFO)", "a character device", ...)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def not_regular_problem(path: str | os.PathLike[str], mode: int) -> str:
    """The one-line problem of a path that is no regular file: what it is, and where a symlink leads."""
    where = ""
    if Path(path).is_symlink():
        where = f"a symlink to {os.path.realpath(path)}, "
    return f"{where}{file_kind(mode)}, not a regular file"


def open_error_problem(path: str | os.PathLike[str], error: OSError) -> str:
    """The one-line problem of an OSError raised when `path` was opened."""
    if error.errno == errno.ENOENT:
        return MISSING if not Path(path).is_symlink() else f"a symlink to {os.readlink(path)}, which does not exist"
    if error.errno == errno.ELOOP:
        return "a symlink loop (a symlink that leads back to itself)"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if error.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing
        return "a socket or device that cannot be read, not a regular file"
    if error.errno == errno.ENAMETOOLONG:
        return "file name too long"
    return f"cannot open: {error.strerror or error}"


def _first_failing(path: Path, code: int) -> Path:
    """The first part of `path` (a parent folder, or `path` itself) whose stat fails with errno `code`."""
    for part in (*reversed(path.parents), path):
        try:
            os.stat(part)
        except OSError as error:
            if error.errno == code:
                return part
    return path


def path_problem(path: str | os.PathLike[str], want: str = "file") -> str | None:
    """Why `path` cannot be read as a regular file (`want="file"`) or a folder (`want="folder"`), found without
    opening it (lstat and stat only, so a FIFO never blocks): missing, a symlink to nothing, a symlink loop (named,
    also when it is a parent folder), a FIFO, a device, a socket; None when it is what is wanted."""
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno == errno.ELOOP:
            loop = _first_failing(path, errno.ELOOP)
            where = "" if loop == path else f"{loop} (on its path) is "
            return f"{where}a symlink loop (a symlink that leads back to itself)"
        if error.errno == errno.ENOTDIR:
            blocker = _first_failing(path, errno.ENOTDIR).parent
            mode = os.stat(blocker).st_mode
            return f"{blocker} (on its path) is {'a file' if stat.S_ISREG(mode) else file_kind(mode)}, not a folder"
        return open_error_problem(path, error)
    if want == "folder":
        if stat.S_ISDIR(mode):
            return None
        what = "a regular file" if stat.S_ISREG(mode) else file_kind(mode)
        where = f"a symlink to {os.path.realpath(path)}, " if path.is_symlink() else ""
        return f"{where}{what}, not a folder"
    return None if stat.S_ISREG(mode) else not_regular_problem(path, mode)


def existing_path_problem(path: str | os.PathLike[str], want: str = "file") -> str | None:
    """path_problem for what is there: None also when nothing is at `path` (MISSING), which each caller says its own
    way (`no such file or directory`, a destination still to be made)."""
    problem = path_problem(path, want)
    return None if problem == MISSING else problem


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` opened for binary reading, or InputError (one line naming it) when it is not a regular file
    (FIFO, device, socket, directory), is missing, a symlink loop, or cannot be read."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise InputError(path, None, open_error_problem(path, error)) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(path, None, not_regular_problem(path, mode))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def is_regular_file(path: str | os.PathLike[str]) -> bool:
    """Whether `path` (symlinks followed) is a regular file; False when it is missing or cannot be looked at."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False
