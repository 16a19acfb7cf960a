"""Linear scores of a large collection (`matrix @ weights + bias`) on every usable core, bit for bit the plain product.

A CAL round scores the whole collection: at a million documents that sparse product is the largest cost after the
fit. scipy's CSR matrix-vector product releases the GIL, and each row's dot product is summed in the same order
whichever rows a call covers, so scoring row blocks on threads gives the same floats as one product.
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.sparse as sp

from tarsim.runtime.pools import is_main_process

THREADED_ROWS = 200_000
"""Collections with fewer rows are scored in one product (a thread's start-up would cost more than it saves)."""


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without affinity (macOS, Windows)
        return os.cpu_count() or 1


def row_blocks(indptr: np.ndarray, blocks: int) -> list[tuple[int, int]]:
    """Split a CSR matrix's rows into at most `blocks` contiguous (start, stop) ranges of about equal entries."""
    rows, nnz = len(indptr) - 1, int(indptr[-1])
    cuts = np.searchsorted(indptr, np.linspace(0, nnz, blocks + 1)[1:-1], side="left")
    bounds = [0, *sorted({int(min(max(c, 0), rows)) for c in cuts}), rows]
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def _rows(matrix: sp.csr_matrix, start: int, stop: int) -> sp.csr_matrix:
    """Rows start:stop of a CSR matrix over views of its data and indices, for a matrix-vector product only.

    scipy's constructor would copy a slice under half its base array (its `prune`), costing as much as the product
    it serves; so the arrays are set on an empty matrix of the block's shape instead (`data`, `indices` and `indptr`
    are the documented CSR attributes; the product reads only them).
    """
    first, last = int(matrix.indptr[start]), int(matrix.indptr[stop])
    block = sp.csr_matrix((stop - start, matrix.shape[1]), dtype=matrix.dtype)
    block.data = matrix.data[first:last]
    block.indices = matrix.indices[first:last]
    block.indptr = matrix.indptr[start : stop + 1] - matrix.indptr[start]
    return block


def linear_scores(
    matrix: sp.spmatrix, weights: np.ndarray, bias: np.floating, threads: int | None = None
) -> np.ndarray:
    """`np.asarray(matrix @ weights).ravel() + bias`, in row blocks on threads when the matrix is a large CSR one.

    threads: None uses every usable core for matrices of THREADED_ROWS rows or more (else one product), except in a
    pool's worker, whose siblings already keep the other cores busy; a number forces that many blocks (tests use it
    to check the blocks give the plain product's floats).
    """
    if threads is None:
        threads = usable_cores() if matrix.shape[0] >= THREADED_ROWS and is_main_process() else 1
    plain = threads <= 1 or not sp.issparse(matrix) or matrix.format != "csr" or matrix.shape[0] < 2
    same_type = matrix.dtype == weights.dtype == np.result_type(matrix.dtype, bias)
    if plain or weights.ndim != 1 or not same_type or matrix.dtype.kind != "f":
        return np.asarray(matrix @ weights).ravel() + bias
    out = np.empty(matrix.shape[0], dtype=matrix.dtype)  # the plain product's dtype when both are the same float
    blocks = row_blocks(matrix.indptr, threads)

    def score(block: tuple[int, int]) -> None:
        start, stop = block
        out[start:stop] = _rows(matrix, start, stop) @ weights
        out[start:stop] += bias  # the same float32 additions as `product + bias`, on this thread

    with ThreadPoolExecutor(max_workers=len(blocks)) as pool:
        list(pool.map(score, blocks))
    return out
