"""HiCAL's Pegasos pairwise logistic SGD (sofia-ml's StochasticRocLoop) over CSR rows, numba-compiled when present."""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

HICAL_ITERATIONS = 200_000
"""Steps per fit in HiCAL's BMI::train (sofia-ml's StochasticRocLoop num_iters)."""

MIN_SCALING_FACTOR = 1e-7
"""sofia-ml's floor on the shrink factor 1 - eta lambda (it is 0 at the first step)."""


def _roc_loop(indptr, indices, data, positives, negatives, pairs_a, pairs_b, lambda_, n_features):  # pragma: no cover
    """Pegasos pairwise logistic steps over CSR rows; returns the weight vector (float64)."""
    v = np.zeros(n_features)
    scale = 1.0
    squared_norm = 0.0  # of w = scale * v
    for step in range(len(pairs_a)):
        a = positives[pairs_a[step]]
        b = negatives[pairs_b[step]]
        eta = 1.0 / (lambda_ * (step + 1))
        inner = 0.0
        for k in range(indptr[a], indptr[a + 1]):
            inner += v[indices[k]] * data[k]
        for k in range(indptr[b], indptr[b + 1]):
            inner -= v[indices[k]] * data[k]
        inner *= scale
        loss = 1.0 / (1.0 + np.exp(inner))
        shrink = 1.0 - eta * lambda_
        if shrink <= MIN_SCALING_FACTOR:
            shrink = MIN_SCALING_FACTOR
        scale *= shrink
        squared_norm *= shrink * shrink
        for row, sign in ((a, 1.0), (b, -1.0)):
            step_size = sign * eta * loss
            for k in range(indptr[row], indptr[row + 1]):
                column = indices[k]
                old = v[column] * scale
                new = old + step_size * data[k]
                squared_norm += new * new - old * old
                v[column] = new / scale
        if squared_norm > 0.0:
            projection = 1.0 / np.sqrt(lambda_ * squared_norm)
            if projection < 1.0:
                scale *= projection
                squared_norm *= projection * projection
        if scale < 1e-10:  # fold the scale into v before it underflows
            v *= scale
            scale = 1.0
    return v * scale


@functools.cache
def compiled_roc_loop() -> Callable[..., np.ndarray]:
    """The loop compiled by numba (imported here, on the first fit: numba costs 0.2-0.3 s to import), else as
    Python when numba is not installed."""
    try:
        from numba import njit
    except ImportError:  # pragma: no cover - numba comes with the hical extra (installed here)
        return _roc_loop
    return njit(cache=False, nogil=True)(_roc_loop)
