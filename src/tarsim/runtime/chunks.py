"""A collection's documents in contiguous chunks mapped over worker processes, in order: the same result in any
number of processes. Sizes shrink towards the end (OpenMP's guided schedule) so that the processes finish together."""

from __future__ import annotations

import importlib
import itertools
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from tarsim.runtime.pools import fork_is_safe, parallel_map

T = TypeVar("T")

PARALLEL_SEGMENTATION_MIN_DOCUMENTS = 5000
"""Below this size starting fresh worker processes (joblib's loky) costs more than segmenting in this one."""

FORKED_PARALLEL_MIN_DOCUMENTS = 200
"""The same for workers forked from this process, which start in milliseconds with everything imported."""


MIN_CHUNK_DOCUMENTS = 50
"""Smaller chunks cost more in inter-process traffic than they save."""


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity where the OS reports one, else os.cpu_count())."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def chunks(items: Iterable[T], n_jobs: int | None) -> list[Sequence[T]]:
    """The items (a collection's documents) as contiguous chunks: one when few or n_jobs is 1, else chunks that
    shrink towards the end (guided_chunk_sizes), so that the processes finish together."""
    n_jobs = n_jobs if n_jobs is not None else available_cores()
    documents = list(items)
    threshold = FORKED_PARALLEL_MIN_DOCUMENTS if can_fork() else PARALLEL_SEGMENTATION_MIN_DOCUMENTS
    if n_jobs <= 1 or len(documents) < threshold:
        return [documents]
    bounds = list(itertools.accumulate(guided_chunk_sizes(len(documents), n_jobs), initial=0))
    return [documents[start:stop] for start, stop in itertools.pairwise(bounds)]


def guided_chunk_sizes(total: int, n_jobs: int) -> list[int]:
    """Chunk sizes summing to `total`: each 1/(2 n_jobs) of what is left, at least MIN_CHUNK_DOCUMENTS (OpenMP's
    guided schedule). The last chunks are small, so a process that joins late (parallel_map's caller after its
    import) or a worker's queued chunk leaves little to wait for; the sums come out the same however it is cut."""
    sizes, left = [], total
    while left > 0:
        size = min(left, max(-(-left // (2 * n_jobs)), MIN_CHUNK_DOCUMENTS))
        sizes.append(size)
        left -= size
    return sizes


def map_chunks(
    function: Callable, chunks: list, *args, n_jobs: int | None = None, while_waiting: Callable[[], None] | None = None
) -> list:
    """function(chunk, *args) for every chunk, in order: in this process for one chunk, else on n_jobs workers."""
    if len(chunks) == 1:
        return [function(chunks[0], *args)]
    workers = min(len(chunks), n_jobs if n_jobs is not None else available_cores())
    # `while_waiting` runs in this process on a core of its own while the workers start (the feature build imports
    # scikit-learn there); then this process takes the chunks no worker has started.
    arguments = [(chunk, *args) for chunk in chunks]
    return parallel_map(function, arguments, workers, fork=can_fork(), while_waiting=while_waiting)


def can_fork() -> bool:
    """Forking is safe here (tarsim.runtime.pools.fork_is_safe); the seam tests use to try both kinds of worker."""
    return fork_is_safe()


def importing(module: str) -> Callable[[], None] | None:
    """A `while_waiting` task that imports `module` (scikit-learn's first import takes about a second), or None when
    it is imported already."""
    if module in sys.modules:
        return None
    return lambda: importlib.import_module(module) and None
