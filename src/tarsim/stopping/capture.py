"""Capture-recapture stopping: Chao's estimator of the number of relevant documents (Bron et al., ACM TOIS 2025),
as in mpbron/allib (allib/estimation/mhmodel.py, allib/stopcriterion/estimation.py).

allib's occasions are the learners of an ensemble (Naive Bayes, random forest, LightGBM, logistic regression and a
random learner, chosen at random for each document): a learner captures a relevant document when it presented it
or, walking down its own ranking, reached it after another learner had (allib's ManualEnsemble marks it labelled
for that learner too). A tarsim review has one learner, so its occasions are that learner's training rounds: the
model of each round captures the documents its ranking puts at or above the lowest-scored document of the batch it
selected (the batch itself and every earlier-judged document it ranks that high), which is what an allib learner
that had selected that batch would hold. The difference: allib's occasions are concurrent learners of different
kinds, tarsim's are successive models of one learner trained on nested label sets, so their captures depend more
strongly on each other (capture-recapture assumes independent occasions; neither setting has them). Each model
was trained on every earlier find and ranks it above its batch, so a document's capture count is about the number
of rounds since it was found: f1 and f2 are mostly the finds of the last two rounds, and the estimate falls to the
count found once a round finds none. The rule then stops early, as allib's does whenever its learners agree (e.g.
with a single relevant document found, which every occasion captures: N = n, upper bound n + 0.01).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

from scipy.stats import norm

from tarsim.components import Param, register
from tarsim.data.ledger import Ledger
from tarsim.stopping.rules import ReplayContext, StoppingRule, confidence_param, target_param
from tarsim.stopping.sampling_checks import CheckFollower, collection_positions


@dataclass(frozen=True)
class ChaoEstimate:
    """Chao's estimate of the relevant documents and its log-normal confidence interval."""

    point: float
    lower: float
    upper: float


def chao_estimate(frequencies: dict[int, int], occasions: int, z: float, estimator: str = "chao1987") -> ChaoEstimate:
    """Chao's estimate from capture frequencies f_k (documents captured on exactly k of `occasions` occasions).

    chao1987: n + f1^2 / (2 f2), or the bias-corrected n + f1 (f1 - 1) / (2 (f2 + 1)) when f2 = 0, with
    allib's BiasFallbackVariance variance; chao2006: the same with the factor k = (t - 1) / t (allib's Chao2006).
    The interval is Chao's log-normal one: f0 = max(0.01, estimate - n), C = exp(z sqrt(log(1 + var / f0^2))),
    [n + f0 / C, n + f0 C]. A variance that makes the logarithm undefined gives NaN bounds (allib's too).
    """
    n = float(sum(frequencies.values()))
    f1, f2 = float(frequencies.get(1, 0)), float(frequencies.get(2, 0))
    k = (occasions - 1) / occasions if estimator == "chao2006" else 1.0
    if f2 > 0:
        point = n + k * (f1**2 / (2 * f2)) if estimator == "chao2006" else n + f1**2 / (2 * f2)
        ratio = f1 / f2
        variance = f2 * (0.25 * k**2 * ratio**4 + k**2 * ratio**3 + (k / 2) * ratio**2)
    else:
        point = n + (k * f1 * (f1 - 1)) / 2 if estimator == "chao2006" else n + (f1 * (f1 - 1)) / (2 * (f2 + 1))
        variance = 0.5 * (k * f1 * (f1 - 1)) + 0.25 * (k**2 * f1 * (2 * f1 - 1)) - (k**2 * f1**4) / (4 * point)
    missing = max(0.01, point - n)
    inside = 1 + variance / missing**2
    if not inside > 0:
        return ChaoEstimate(point, math.nan, math.nan)
    spread = math.exp(z * math.sqrt(math.log(inside))) if math.log(inside) >= 0 else math.nan
    return ChaoEstimate(point, n + missing / spread, n + missing * spread)


@dataclass
class _Captures:
    """Capture histories so far: per relevant document found, the rounds whose model captured it."""

    positions: dict[str, int]
    counts: dict[str, int] = field(default_factory=dict)  # relevant docid -> occasions capturing it
    judged_relevant: list[str] = field(default_factory=list)  # relevant docids in the order found
    seen: set[str] = field(default_factory=set)
    occasions: int = 0
    last: int = 0  # the previous check point: the batch being closed starts there


@register("stopping")
@dataclass(frozen=True)
class ChaoRule(StoppingRule):
    """Chao's estimator as a stopping criterion (Bron et al., "Using Chao's estimator
    as a stopping criterion for technology-assisted review", ACM TOIS 2025), as in mpbron/allib (Chao1987 with
    the bias-corrected fallback and allib's Conservative / Optimistic criteria).

    Occasions are the review's training rounds (allib's are the learners of an ensemble; see stopping.capture): at
    the end of each round the model that selected it captures its batch and every earlier-judged document it
    ranks at or above the batch's lowest score. From the capture frequencies of the relevant documents found,
    Chao's estimate N and its `confidence` interval; stop, from `min_reviewed` judgments on, when
    round(found / N, 2) >= target, N the interval's upper bound (`bound=upper`, allib's Conservative) or the
    point estimate (`bound=point`, Optimistic). Needs the learner's scores of each round (--log-scores); costs
    nothing beyond the review.
    """

    target: float = 0.95
    confidence: float = 0.95
    bound: str = "upper"
    estimator: str = "chao1987"
    min_reviewed: int = 100
    name: ClassVar[str] = "chao"
    needs_scores: ClassVar[bool] = True
    params: ClassVar[tuple[Param, ...]] = (
        target_param(),
        confidence_param(),
        Param(
            "bound",
            str,
            "upper",
            "the estimate compared: the interval's upper bound or the point",
            choices=("upper", "point"),
        ),
        Param("estimator", str, "chao1987", "Chao's estimator", choices=("chao1987", "chao2006")),
        Param("min_reviewed", int, 100, "judgments before the first check (allib's min_read_docs)", low=1),
    )
    examples: ClassVar[tuple[str, ...]] = ("chao", "chao:target=0.8,bound=point")

    def z(self) -> float:
        return float(norm.ppf(0.5 + self.confidence / 2))

    def start(self, ledger: Ledger, context: ReplayContext) -> _Captures:
        return _Captures(collection_positions(self.spec, ledger, context))

    def _close_batch(self, state: _Captures, ledger: Ledger, context: ReplayContext, end: int) -> None:
        """The occasion of the batch ledger[state.last:end]: what the model that selected it captured."""
        start, state.last = state.last, end
        batch = ledger.docids[start:end]
        earlier = list(state.judged_relevant)  # relevant documents judged before the batch
        for docid, label in zip(batch, ledger.label[start:end], strict=True):
            if label > 0 and docid not in state.seen:
                state.seen.add(docid)
                state.judged_relevant.append(docid)
        captured = {d for d, label in zip(batch, ledger.label[start:end], strict=True) if label > 0}
        scores = self.scores_at(ledger, context, start)
        if scores is not None and earlier:
            values = scores.scores
            cutoff = min(values[state.positions[d]] for d in batch)
            captured.update(d for d in earlier if values[state.positions[d]] >= cutoff)
        state.occasions += 1
        for docid in captured:
            state.counts[docid] = state.counts.get(docid, 0) + 1

    def estimate(self, state: _Captures) -> ChaoEstimate:
        frequencies: dict[int, int] = {}
        for count in state.counts.values():
            frequencies[count] = frequencies.get(count, 0) + 1
        return chao_estimate(frequencies, state.occasions, self.z(), self.estimator)

    def fires(self, state: _Captures, ledger: Ledger, context: ReplayContext, judged: int) -> bool:
        self._close_batch(state, ledger, context, judged)
        if judged < self.min_reviewed or not state.counts or state.occasions < 2:
            return False  # capture-recapture needs two occasions (allib's fstats have keys 1..t, t >= 2)
        found = len(state.judged_relevant)
        chao = self.estimate(state)
        estimate = chao.upper if self.bound == "upper" else chao.point
        if not estimate >= 1 or estimate > ledger.collection_size:  # allib: no estimate (NaN, < 1, > N)
            return False
        return round(found / estimate, 2) >= self.target

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        return CheckFollower(self).stop_position(ledger, context)

    def online_check(self) -> CheckFollower:
        return CheckFollower(self)
