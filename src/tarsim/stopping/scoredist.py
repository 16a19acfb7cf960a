"""The score distribution method (Hollmann & Eickhoff, CLEF 2017): a normal distribution fitted to the scores of
the relevant documents tells the score above which a target share of them lies; the review stops once every
document scoring above it has been reviewed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.stats import norm

from tarsim.components import Param, register
from tarsim.stopping.rules import target_param
from tarsim.stopping.scored import RoundEndScoreRule, ScoredView


def standardised(scores: np.ndarray) -> np.ndarray:
    """Scores less their mean, over their standard deviation (sklearn's StandardScaler: population deviation, a
    deviation of 0 taken as 1)."""
    values = scores.astype(np.float64)
    deviation = values.std()
    return (values - values.mean()) / (deviation if deviation > 0 else 1.0)


def screening_size(normalised: np.ndarray, relevant: np.ndarray, target: float) -> int:
    """How many of the top-ranked documents the method screens: all but the `cutoff` whose score is below the
    bound at which a normal fitted to the relevant documents' scores leaves `1 - target` of them (at least one
    left out, as the reference's max(1, cutoff)). Without a relevant score the normal is the standard one (the
    reference's `[0]`); a fitted deviation of 0 gives no bound (NaN), so only the lowest document is left out."""
    sample = normalised[relevant] if relevant.size else np.array([0.0])
    mean, deviation = norm.fit(sample)
    bound = norm.ppf(1 - target, loc=mean, scale=deviation) if deviation > 0 else float("nan")  # scipy's NaN
    below = int(np.count_nonzero(normalised < bound)) if np.isfinite(bound) else 0
    return len(normalised) - max(1, below)


@register("stopping")
@dataclass(frozen=True)
class ScoreDistributionRule(RoundEndScoreRule):
    """Score distribution (Hollmann & Eickhoff, CLEF 2017 working notes, "Ranking and feedback-based stopping for
    recall-centric document retrieval"), after dli1/auto-stop-tar's score_distribution (feedback variant): the
    latest model's scores (log-odds) are standardised over the collection, a normal is fitted to those of the
    documents labelled relevant so far, and its 1 - `target` quantile is the bound; stop at the end of a round
    once every document ranked above the bound has been reviewed.

    Checked at round ends (check_points). The reference ranks once by BM25 and fits the normal to the relevant
    documents of a uniform 10% sample (or of training topics); tarsim fits it to the relevant documents the review
    found (no sample drawn, no extra effort), which score higher than a random relevant one: the bound is high
    and the rule tends to stop early.
    """

    target: float = 0.95
    name: ClassVar[str] = "scoredist"
    needs_scores: ClassVar[bool] = True
    params: ClassVar[tuple[Param, ...]] = (target_param(),)
    examples: ClassVar[tuple[str, ...]] = ("scoredist", "scoredist:target=0.8")

    def decide(self, view: ScoredView) -> bool:
        normalised = standardised(view.scores.scores)
        size = screening_size(normalised, view.positions[view.relevant], self.target)
        ranking = np.argsort(-normalised, kind="stable")
        return bool(view.reviewed[ranking[:size]].all())
