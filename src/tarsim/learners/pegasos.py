"""HiCAL's learner: sofia-ml's Pegasos SGD on the pairwise (ROC) logistic loss, as the HiCAL CAL engine runs it.

What HiCAL does (hical/HiCAL, CALEngine/src/bmi.cc `BMI::train` and src/sofiaml/sofia-ml-methods.cc
`StochasticRocLoop`, `SinglePegasosLogRegRankStep`, `L2Regularize`, `PegasosProjection`): 200,000 steps; step i
draws one positive a and one negative b uniformly with replacement, eta = 1 / (lambda i) (PEGASOS_ETA), the
loss gradient 1 / (1 + exp(w.(a - b))), shrinks w by max(1 - eta lambda, 1e-7), adds eta * loss * (a - b) and
projects w onto the ball of radius 1 / sqrt(lambda); lambda = 1e-4. No bias term (it cancels in a - b).

Written here from that description (no code copied): w is held as scale * v so that shrinking costs nothing,
and the loop is compiled by numba when it is installed (`pip install tarsim[hical]`), else run as Python
(about 100 times slower: fine for tests with few iterations). Sampling uses numpy's PCG64 seeded by
random_state, not sofia-ml's mt19937, and arithmetic is float64, not float32: the same objective, not the same
bits as HiCAL.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from tarsim.components import Param, register
from tarsim.learners.named import Learner

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator

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


@register("learner")
class PegasosLearner(Learner):
    """HiCAL's learner: sofia-ml Pegasos SGD on the pairwise ROC logistic loss, lambda 1e-4, 200,000 steps."""

    name = "pegasos"
    record = "PegasosRank (sofia-ml ROC loop, as HiCAL)"
    uses_lambda = True
    params: ClassVar[tuple[Param, ...]] = (
        Param("iterations", int, HICAL_ITERATIONS, "SGD steps per fit (HiCAL: 200000)", low=1),
    )

    def estimator(self, lambda_: float, random_state: int | None) -> BaseEstimator:
        """A PegasosRank with the review's lambda and this spec's iteration count."""
        from tarsim.learners.estimators import PegasosRank

        iterations = int(self.settings.get("iterations", HICAL_ITERATIONS))
        return PegasosRank(lambda_=lambda_, iterations=iterations, random_state=random_state)


def __getattr__(name: str) -> object:
    """PegasosRank, once defined here, is importable from here still (tarsim.learners.estimators)."""
    if name == "PegasosRank":
        from tarsim.learners import estimators

        return estimators.PegasosRank
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
