"""How many BLAS/OpenMP threads one tarsim process uses: 1 unless `--threads N` or $TARSIM_THREADS says otherwise.

Why a limit by default: a review's numerical work is many small products and fits (a logistic regression refit per
batch), where OpenBLAS's and OpenMP's thread pools cost more than they give; on a loaded machine their waiting
threads compete with every other process (`tarsim simulate --preset asreview-logistic` took 1 min 40 s without a
limit and 2.9 s with one on a busy 2-core machine; benchmarks/threads_limit.py measures it). Sweeps always ran each
run on one thread (runs are their unit of parallelism); every command now does.

Two mechanisms, because threadpoolctl reaches only the libraries loaded when it is called:
- `process_threads` (the CLI, once at entry, before any numerical library is imported) sets the thread variables the
  libraries read when they load (OMP_NUM_THREADS, OPENBLAS_NUM_THREADS, ...), so every library the command loads
  later, and every worker process it starts, begins with that many threads;
- `thread_limit` (the Python API, around a review) loads the libraries a review uses (scikit-learn's OpenMP runtime,
  numpy's and scipy's OpenBLAS) and limits them with threadpoolctl for the block only, leaving the caller's own
  settings as they were afterwards.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager


class ThreadsError(ValueError):
    """A thread count that is not a whole number >= 1 (the CLI prints it as one line and exits 2)."""


DEFAULT_THREADS = 1
"""Threads per process when nothing says otherwise (measured: benchmarks/threads_limit.py)."""

THREADS_VARIABLE = "TARSIM_THREADS"
"""The environment variable that sets the default (the CLI's `--threads` sets it for the processes it starts)."""

LIBRARY_VARIABLES = (
    "OMP_NUM_THREADS",  # OpenMP (scikit-learn's libgomp)
    "OPENBLAS_NUM_THREADS",  # numpy's and scipy's OpenBLAS
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
"""What BLAS and OpenMP libraries read when they load (threadpoolctl's documentation names the same)."""


def checked_threads(value: object, where: str = "--threads") -> int:
    """`value` as a thread count (a whole number >= 1), else a one-line ThreadsError naming `where`."""
    text = str(value).strip()
    if not re.fullmatch(r"[0-9]+", text, flags=re.ASCII):  # int() also reads '２' and '1_0': not what was typed
        ascii_only = "" if text.isascii() else " (numbers are ASCII digits)"
        raise ThreadsError(f"{where}: expected a whole number of threads >= 1, got {value!r}{ascii_only}")
    threads = int(text)
    if threads < 1:
        raise ThreadsError(f"{where}: expected a whole number of threads >= 1, got {value!r}")
    return threads


def configured_threads(environ: Mapping[str, str] | None = None) -> int:
    """The threads per process: $TARSIM_THREADS when set, else DEFAULT_THREADS."""
    environ = os.environ if environ is None else environ
    value = environ.get(THREADS_VARIABLE, "").strip()
    return checked_threads(value, f"${THREADS_VARIABLE}") if value else DEFAULT_THREADS


@contextmanager
def process_threads(threads: int | None = None) -> Iterator[int]:
    """Make `threads` (None: configured_threads()) this process's setting for the block, and its children's:
    $TARSIM_THREADS and every library's thread variable are set to it (a user's OMP_NUM_THREADS included: the CLI's
    setting is the one `--threads` names), and put back as they were after it (main() is called in-process by tests
    and scripts). Entered once at CLI entry, before numpy, scipy or scikit-learn is loaded; yields the setting."""
    threads = configured_threads() if threads is None else checked_threads(threads)
    names = (THREADS_VARIABLE, *LIBRARY_VARIABLES)
    before = {name: os.environ.get(name) for name in names}
    os.environ.update(dict.fromkeys(names, str(threads)))
    try:
        yield threads
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@contextmanager
def thread_limit(threads: int | None = None) -> Iterator[int]:
    """Limit BLAS/OpenMP to `threads` (None: configured_threads()) for the block, the libraries a review uses
    loaded first so that the limit reaches them all; yields the limit."""
    threads = configured_threads() if threads is None else checked_threads(threads, "threads")
    import sklearn  # noqa: F401  (loads its OpenMP runtime and numpy's and scipy's OpenBLAS: a review needs them all)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=threads):
        yield threads
