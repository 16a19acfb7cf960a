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
        return "no such file" if not Path(path).is_symlink() else "a symlink to a file that does not exist"
    if error.errno == errno.ELOOP:
        return "a symlink loop (a symlink that leads back to itself)"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if error.errno == errno.ENXIO:  # a socket, or a FIFO opened for writing
        return "a socket or device that cannot be read, not a regular file"
    if error.errno == errno.ENAMETOOLONG:
        return "file name too long"
    return f"cannot open: {error.strerror or error}"


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
