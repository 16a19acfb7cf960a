"""Quant and QuantCI (Yang, Lewis & Frieder, DESIRES 2021): recall estimated from the learner's probabilities of
relevance, summed over the reviewed documents and over the whole collection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tarsim.components import Param, register
from tarsim.stopping.rules import target_param
from tarsim.stopping.scored import RoundEndScoreRule, ScoredView

TAREXP_MIN_ROUNDS = 3
"""TARexp's QuantStoppingRule answers no before `ledger.n_rounds >= 2`, its rounds counted from 0 (the seed set):
three rounds of judgments, the seed round included."""


def quant_estimate(probabilities: np.ndarray, reviewed: np.ndarray, nstd: float = 0.0) -> float:
    """Estimated recall known / (known + unknown), the probability sums over the reviewed and the other documents,
    less `nstd` standard deviations (TARexp's variance: known^2 / total^4 * all_var + (all_var - unknown_var) /
    total^2, var the sum of p(1 - p)). The sums are taken as TARexp takes them (over masks, in collection order)."""
    known = probabilities[reviewed].sum()
    unknown = probabilities[~reviewed].sum()
    total = known + unknown
    estimate = known / total
    if nstd == 0:
        return float(estimate)
    product = probabilities * (1 - probabilities)
    all_var = product.sum()
    unknown_var = product[~reviewed].sum()
    variance = known**2 / total**4 * all_var + 1 / total**2 * (all_var - unknown_var)
    return float(estimate - nstd * np.sqrt(variance))


@register("stopping")
@dataclass(frozen=True)
class QuantRule(RoundEndScoreRule):
    """Quant (Yang, Lewis & Frieder, DESIRES 2021, "Heuristic stopping rules for technology-assisted review"),
    as TARexp's QuantStoppingRule: stop at the end of a round when the latest model's probabilities summed over
    the reviewed documents reach `target` times their sum over the collection.

    Checked at round ends (check_points), from the third round of judgments on (the seed round counted, as TARexp's
    `n_rounds >= 2`); reads the learner's scores (a review run with --log-scores), as probabilities. Costs nothing
    beyond the review. destiny-evidence/stopping-methods' QuantCI with nstd 0 is the same estimate, but checked
    every 100 judgments and only after 50 labels.
    """

    target: float = 0.95
    name: ClassVar[str] = "quant"
    needs_scores: ClassVar[bool] = True
    min_rounds: ClassVar[int] = TAREXP_MIN_ROUNDS
    params: ClassVar[tuple[Param, ...]] = (target_param(),)
    examples: ClassVar[tuple[str, ...]] = ("quant", "quant:target=0.8")

    def decide(self, view: ScoredView) -> bool:
        return quant_estimate(view.probabilities, view.reviewed) >= self.target


@register("stopping")
@dataclass(frozen=True)
class QuantCIRule(QuantRule):
    """QuantCI (Yang, Lewis & Frieder, DESIRES 2021), as TARexp's QuantStoppingRule with nstd > 0: Quant's
    estimated recall less `nstd` standard deviations (TARexp's variance of the ratio of probability sums) must
    reach `target`.

    Checked at round ends (check_points), from the third round of judgments on, as `quant`. destiny-evidence/
    stopping-methods' QUANT_CI computes the same variance but checks every 100 judgments, never before 50 labels,
    drops non-finite scores and reads 0 recall when every probability is 0.
    """

    nstd: float = 2.0
    name: ClassVar[str] = "quantci"
    params: ClassVar[tuple[Param, ...]] = (
        target_param(),
        Param("nstd", float, 2.0, "standard deviations below the estimated recall", low=0),
    )
    examples: ClassVar[tuple[str, ...]] = ("quantci:target=0.8,nstd=1",)

    def decide(self, view: ScoredView) -> bool:
        return quant_estimate(view.probabilities, view.reviewed, self.nstd) >= self.target
