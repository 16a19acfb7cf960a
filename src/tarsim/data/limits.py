"""Inputs within limits: regular files only, and a cap on how much a compressed input may decompress to.

A reader that opens a FIFO waits for a writer forever, and one that reads /dev/zero reads until memory runs out;
a small zip or gzip file can hold gigabytes (a 292 KB .xlsx decompressed to 1.1 GB). So every reader opens its
input with open_regular (regular_files.open_regular, re-exported here: refused in one line unless it is a regular
file, without blocking on a FIFO) and reads a
compressed input through a cap: by default 100 times the compressed size, at least 1 GiB, and the environment
variable TARSIM_MAX_DECOMPRESSED (bytes; K, M, G or T suffixes, powers of 1024) sets it outright.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable
from typing import IO

from tarsim.data.regular_files import open_regular
from tarsim.errors import ConfigError, InputError

__all__ = ["capped", "check_total", "decompress_gzip", "decompression_limit", "open_regular", "read_regular"]

LIMIT_VARIABLE = "TARSIM_MAX_DECOMPRESSED"
"""Environment variable: the most bytes a compressed input may decompress to (overrides the default)."""
RATIO = 100
"""The default cap is this many times the compressed input's size ..."""
FLOOR = 1 << 30
"""... and at least this many bytes (1 GiB)."""
_SIZE = re.compile(r"\s*([0-9]+)\s*([KMGT]?)(?:I?B)?\s*", re.I)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def decompression_limit(compressed_size: int) -> int:
    """The most bytes an input of `compressed_size` bytes may decompress to: TARSIM_MAX_DECOMPRESSED when set, else
    max(1 GiB, 100 x the compressed size)."""
    value = os.environ.get(LIMIT_VARIABLE, "").strip()
    if value:
        match = _SIZE.fullmatch(value)
        if match is None:
            raise ConfigError(f"{LIMIT_VARIABLE}={value!r} is not a size in bytes (e.g. 5000000000, 5G)")
        return int(match.group(1)) * _UNITS[match.group(2).upper()]
    return max(FLOOR, RATIO * compressed_size)


def too_large(path: str | os.PathLike[str], what: str, limit: int, line: int | None = None) -> InputError:
    """The one-line error of an input past the cap, saying how to raise it."""
    return InputError(
        path,
        line,
        f"{what} decompresses to more than {limit:,} bytes, the limit (set {LIMIT_VARIABLE}=BYTES to raise it)",
    )


def check_total(path: str | os.PathLike[str], what: str, total: int, compressed_size: int) -> None:
    """Refuse an archive whose members add up to more than the cap (sizes as the archive declares them; zipfile and
    tarfile never read a member past its declared size)."""
    limit = decompression_limit(compressed_size)
    if total > limit:
        raise too_large(path, what, limit)


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file (open_regular's checks)."""
    with open_regular(path) as handle:
        return handle.read()


class CappedReader(io.RawIOBase):
    """A binary stream that raises the cap's InputError once more than `limit` bytes have been read from `inner`;
    closing it closes `inner` and then each of `also_close` (the compressed file under a decompressor)."""

    def __init__(self, inner: IO[bytes], limit: int, error: Callable[[], Exception], also_close=()) -> None:
        super().__init__()
        self._inner = inner
        self._limit = limit
        self._error = error
        self._read = 0
        self._also_close = tuple(also_close)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        data = self._inner.read(min(len(buffer), self._limit + 1 - self._read))
        self._read += len(data)
        if self._read > self._limit:
            raise self._error()
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        if not self.closed:
            try:
                self._inner.close()
            finally:
                for handle in self._also_close:
                    handle.close()
        super().close()


def capped(inner: IO[bytes], limit: int, error: Callable[[], Exception], also_close=()) -> IO[bytes]:
    """`inner` read through a CappedReader, buffered (iteration by line and read() work as on a file)."""
    return io.BufferedReader(CappedReader(inner, limit, error, also_close))  # type: ignore[arg-type]


def decompress_gzip(path: str | os.PathLike[str], data: bytes) -> bytes:
    """The decompressed bytes of a gzip stream read from `path`, within the cap; a truncated or damaged stream is one
    line naming the file."""
    import gzip
    import zlib

    limit = decompression_limit(len(data))
    with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
        reader = capped(stream, limit, lambda: too_large(path, "the gzip file", limit))  # type: ignore[arg-type]
        try:
            return reader.read()
        except EOFError:
            raise InputError(path, None, "truncated gzip file (it ends before its end marker)") from None
        except (gzip.BadGzipFile, zlib.error) as exc:
            raise InputError(path, None, f"damaged gzip file: {exc}") from None
