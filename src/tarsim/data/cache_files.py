"""What every cache file shares: a checksum of its arrays, the one-line reason a read failed, and the one warning a
failed write costs (a read-only or full cache folder slows a run down, never ends it)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from tarsim.errors import InputWarning


def failure_reason(error: BaseException) -> str:
    """Why a cache file could not be read, in one clause: the error's type and its message's first sentence (numpy's
    advice to load a file with pickled objects unsafely is not for a cache that tarsim rebuilds anyway)."""
    lines = str(error).splitlines()
    first = re.split(r"(?<=[.!?])\s", lines[0], maxsplit=1)[0] if lines else ""
    return f"{type(error).__name__}: {first}"


def arrays_checksum(arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 over the arrays' names, dtypes, shapes and bytes in name order (each array's length is implied)."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        array = np.ascontiguousarray(arrays[name])
        digest.update(json.dumps([name, array.dtype.str, list(array.shape)]).encode() + b"\n")
        digest.update(array.tobytes())
    return digest.hexdigest()


@contextlib.contextmanager
def cache_write_failure_warned(path: Path) -> Iterator[None]:
    """Run a cache write; a read-only or full cache folder costs speed (one warning line), never the run."""
    try:
        yield
    except OSError as error:
        reason = error.strerror or str(error)
        warnings.warn(f"cannot write the feature cache {path} ({reason}): not cached", InputWarning, stacklevel=3)
