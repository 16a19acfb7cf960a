"""Rules that certify recall with a random sample drawn before the review: QBCB (Lewis, Yang & Frieder 2021).

The sample is the target method's (tarsim.stopping.target.draw_target_sample: seeded by the review's seed and
topic, so a replay draws the same one), and its judgments are charged as effort by evaluate_stopping, as for
`target:T` (any rule with a `sample(ledger, context)` method is).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.stats import binom

from tarsim.components import Param, register
from tarsim.data.ledger import Ledger
from tarsim.errors import ConfigError
from tarsim.stopping.rules import ReplayContext, StoppingRule, confidence_param, target_param
from tarsim.stopping.target import TargetSample, draw_target_sample


def qbcb_required(positives: int, target: float, confidence: float) -> int:
    """QBCB's j: one more than the smallest k with P(Binomial(positives, target) <= k) >= confidence, i.e. the
    number of the sample's positives the review must have found (positives + 1: it can never certify)."""
    cdf = binom.cdf(np.arange(positives + 1), positives, target)
    return int(np.argmax(cdf >= confidence)) + 1


@register("stopping")
@dataclass(frozen=True)
class QBCBRule(StoppingRule):
    """QBCB, the quantile binomial confidence bound of Lewis, Yang & Frieder (CIKM 2021, "Certifying One-Phase
    Technology-Assisted Reviews"), as destiny-evidence/stopping-methods' TM_QBCB and SALT's QBCB compute j: before
    the review, documents are drawn at random until `positives` relevant ones are found; stop when the review has
    presented j of them, j - 1 the binomial(positives, target) quantile at the confidence level.

    The sample is target:T's with T = positives (same seed stream), and its judgments count as effort. When j
    exceeds `positives` (a small sample cannot certify a high target) the rule never fires; nor does it when the
    collection holds fewer relevant documents than `positives` (the sample is then the whole collection), as
    destiny's TM_QBCB (SALT's QBCB stops at once then). destiny's sample stops one positive short of
    `positives` (cumsum < positives) though j counts `positives`; tarsim's holds `positives`, as the paper's.
    """

    target: float = 0.95
    confidence: float = 0.95
    positives: int = 50
    name: ClassVar[str] = "qbcb"
    params: ClassVar[tuple[Param, ...]] = (
        target_param(),
        confidence_param(),
        Param("positives", int, 50, "relevant documents in the random sample drawn before review", low=1),
    )
    examples: ClassVar[tuple[str, ...]] = ("qbcb:target=0.8,positives=20", "qbcb:target=0.9,confidence=0.9")

    def sample(self, ledger: Ledger, context: ReplayContext) -> TargetSample:
        if context.docids is None or context.qrels is None:
            where = "" if ledger.source.startswith("<") else f"{ledger.source}: "
            raise ConfigError(
                f"{where}stopping rule {self.spec!r} needs the collection's docids and the qrels to draw its random "
                "sample (give the collection, e.g. --collection DIR)"
            )
        judged = context.qrels.get(ledger.topic, {})
        return draw_target_sample(context.docids, judged, self.positives, ledger.header.get("seed", 0), ledger.topic)

    def required(self, sample: TargetSample) -> int | None:
        """How many of the sample's positives the review must present (None: it cannot certify the target)."""
        found = len(sample.targets)
        if found < self.positives:  # the collection holds fewer: the sample is all of it, and certifies nothing
            return None
        needed = qbcb_required(self.positives, self.target, self.confidence)
        return needed if needed <= found else None

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        return self.online_check().stop_position(ledger, context)

    def online_check(self) -> _QBCBCheck:
        return _QBCBCheck(self)


class _QBCBCheck:
    """The sample drawn once; the sample's positives presented counted as the judgments come."""

    def __init__(self, rule: QBCBRule) -> None:
        self.rule = rule
        self.remaining: set[str] | None = None
        self.needed: int | None = None
        self.seen = 0
        self.fired: int | None = None

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        if self.remaining is None:
            sample = self.rule.sample(ledger, context)
            self.remaining = set(sample.targets)
            self.needed = self.rule.required(sample)
        if self.needed is None or self.fired is not None:
            return self.fired
        for docid in ledger.docids[self.seen :]:
            self.seen += 1
            if docid in self.remaining:
                self.remaining.discard(docid)
                self.needed -= 1
                if self.needed == 0:
                    self.fired = self.seen
                    break
        return self.fired
