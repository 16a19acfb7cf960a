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

from typing import TYPE_CHECKING, ClassVar

from tarsim.components import Param, register
from tarsim.learners.named import Learner
from tarsim.learners.roc_loop import HICAL_ITERATIONS

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


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
        return PegasosRank(alpha=lambda_, iterations=iterations, random_state=random_state)
