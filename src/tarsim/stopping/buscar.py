"""Callaghan & Mueller-Hansen's hypergeometric stopping criteria: the heuristic as TARexp implements it (`cmh`) and
BUSCAR as buscarpy computes it (`buscar`). Both ask, at the end of each training round, how likely the documents
screened last would hold as few relevant ones as they do if the review had missed its recall target, and stop when
that is below 1 - confidence. Both see only the reviewer's labels and the collection's size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.stats import hypergeom, nchypergeom_wallenius

from tarsim.components import Param, register
from tarsim.data.ledger import Ledger
from tarsim.stopping.round_checks import RoundEndRule
from tarsim.stopping.rules import ReplayContext, confidence_param, target_param


def _relevant_so_far(ledger: Ledger, judged: int) -> np.ndarray:
    """found[p]: relevant labels among the first p judgments, p = 0..judged."""
    return np.concatenate([[0], np.cumsum(ledger.label[:judged] > 0)]).astype(np.int64)


@register("stopping")
@dataclass(frozen=True)
class CMHRule(RoundEndRule):
    """Callaghan & Mueller-Hansen's heuristic (Systematic Reviews, 2020), as TARexp 0.1.4 implements it
    (CHMHeuristicsStoppingRule): the judgments after each earlier round's end are taken as a random sample of the
    documents unscreened then; stop when, for one such split, the hypergeometric probability of seeing at most the
    relevant labels the sample holds, were int(r / target - r_split) relevant left there, is below 1 - confidence.

    It follows TARexp's arithmetic: at the end of a round it reads the rounds before it (TARexp's
    Ledger.getAnnotationCounts leaves out the latest round), splits after the second round or later, and needs
    three rounds; so it fires one round after the test on every round first passes. Free: it draws no sample
    (the paper's random phase after the stop is not part of it).
    """

    target: float = 0.95
    confidence: float = 0.95
    name: ClassVar[str] = "cmh"
    params: ClassVar[tuple[Param, ...]] = (target_param(), confidence_param())
    examples: ClassVar[tuple[str, ...]] = ("cmh", "cmh:target=0.8")

    def fires(self, ledger: Ledger, context: ReplayContext, points: Sequence[int]) -> bool:
        rounds = len(points) - 1  # TARexp's n_rounds: the rounds it counts (all but the latest)
        if rounds < 2:
            return False
        last = points[-2]  # the judgments of the rounds it counts
        found = _relevant_so_far(ledger, last)
        splits = np.asarray(points[1 : rounds - 1], dtype=np.int64)  # TARexp's i = 1 .. n_rounds - 1, less the last
        if not splits.size:
            return False
        total = int(found[last])
        sample_relevant = total - found[splits]
        left_relevant = np.array([int(total / self.target - int(found[s])) for s in splits], dtype=np.int64)
        p = hypergeom.cdf(sample_relevant, ledger.collection_size - splits, left_relevant, last - splits)
        return bool(np.any(p < 1.0 - self.confidence))


@register("stopping")
@dataclass(frozen=True)
class BuscarRule(RoundEndRule):
    """BUSCAR, Callaghan & Mueller-Hansen (Systematic Reviews, 2020), as the reference buscarpy computes it
    (calculate_h0; destiny-evidence/stopping-methods' BUSCAR is the same): for each n, the last n judgments are an
    urn drawn from themselves and every unscreened document; H0 is that floor(r / target + 1 - r_before) of those
    are relevant (r relevant labels so far, r_before before the urn); p is the smallest hypergeometric probability
    (Wallenius' biased urn when bias != 1) of the urn holding at most the relevant labels it does. Stop when
    p < 1 - confidence.

    Checked at the end of each training round (buscarpy's retrospective_h0 every 1,000 documents, destiny's every
    100: both at fixed batch ends); a p that scipy cannot compute (H0 needs more relevant documents than the
    smallest urn's population holds, near the collection's end) means no stop, as in both references. Free: it
    draws no sample.
    """

    target: float = 0.95
    confidence: float = 0.95
    bias: float = 1.0
    name: ClassVar[str] = "buscar"
    params: ClassVar[tuple[Param, ...]] = (
        target_param(),
        confidence_param(),
        Param("bias", float, 1.0, "odds of drawing a relevant document over a non-relevant one", low=0, low_open=True),
    )
    examples: ClassVar[tuple[str, ...]] = ("buscar", "buscar:target=0.9,confidence=0.9")

    def p_value(self, labels: np.ndarray, collection_size: int, every_urn: bool = False) -> float | None:
        """buscarpy's p for H0 (recall target missed) after the judgments `labels` (1 relevant, 0 not), or None.

        Unbiased, only the urns that end just before a relevant label (counting back) and the whole review are
        computed, unless `every_urn`: an urn grown by a non-relevant judgment keeps its relevant count and H0's,
        and its population grows with it, so p can only fall (the unscreened documents, a fixed number, hold
        fewer of H0's relevant ones); the smallest p is at one of those urns. A p scipy cannot compute is nan
        first at the smallest urn (H0's count less the population's only falls as urns grow), computed always."""
        labels = np.asarray(labels, dtype=np.int64)
        if not labels.size:
            return None
        seen = int(labels.sum())
        urns = labels[::-1]  # the last 1, 2, ... judgments
        urn_relevant = np.cumsum(urns)
        urn_size = np.arange(1, labels.size + 1)
        if self.bias == 1 and not every_urn:
            ends = np.concatenate([urns[1:] > 0, [True]])  # the next judgment back is relevant, or none is left
            ends[0] = True
            urn_relevant, urn_size = urn_relevant[ends], urn_size[ends]
        population = collection_size - (labels.size - urn_size)
        h0_relevant = np.floor(seen / self.target + 1 - (seen - urn_relevant))
        if self.bias == 1:
            p = hypergeom.cdf(urn_relevant, population, h0_relevant, urn_size)
        else:
            p = nchypergeom_wallenius.cdf(urn_relevant, population, h0_relevant, urn_size, self.bias)
        smallest = float(np.min(p))
        return None if np.isnan(smallest) else smallest

    def fires(self, ledger: Ledger, context: ReplayContext, points: Sequence[int]) -> bool:
        p = self.p_value((ledger.label[: points[-1]] > 0).astype(np.int64), ledger.collection_size)
        return p is not None and p < 1.0 - self.confidence
