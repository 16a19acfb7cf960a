"""SCAL (Cormack & Grossman, CIKM 2016) as a stopping rule replayed on a CAL review, following
destiny-evidence/stopping-methods' adaptation (methods/scal.py), which estimates R from the reviewed documents.

The original S-CAL (dli1/auto-stop-tar's tar_model/scal.py) is a review process of its own: it ranks a random
subset U of the collection in exponentially growing batches (B = 1, then B += ceil(B / 10)), labels only
b = min(n, B) random documents of each batch, adds (relevant among the b) x B / b to its estimate of R, and ends
with a score threshold. A CAL ledger judges every document of its batches, so it cannot replay that process;
destiny-evidence replays S-CAL's estimator on the finished part of the ranking instead, and tarsim does the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from tarsim.components import Param, register
from tarsim.data.ledger import Ledger
from tarsim.stopping.rules import ReplayContext, StoppingRule, target_param
from tarsim.stopping.sampling_checks import CheckFollower, relevant_labels, stream_seed

SCAL_CALIBRATION = 1.05
"""S-CAL's calibration of its estimate (dli1's `ita`; destiny-evidence's fixed 1.05 factor)."""


def scal_random_state(ledger: Ledger, judged: int) -> np.random.RandomState:
    """The generator of the subsample drawn at the check after `judged` judgments: legacy numpy (RandomState), as
    destiny-evidence's code draws with np.random, so that benchmarks/references/sampling_refs.py can seed the
    reference identically; one per check point, fixed by the review's seed, topic and `judged`."""
    return np.random.RandomState([*stream_seed(ledger, "scal"), judged])


def scal_estimate(relevant: np.ndarray, n_total: int, sample: float, bias: float, rng: np.random.RandomState) -> float:
    """Estimated relevant documents in the collection from the reviewed ones (`relevant`, in review order).

    A uniform subsample of int(sample x reviewed) reviewed documents is cut, down the ranking, into S-CAL's
    batches (B = 1, B += ceil(B / 10)); each batch's estimate is its relevant count x B / b with b = B, since
    every reviewed document is labelled (destiny-evidence's sub_size = batch_size), so R is the subsample's
    relevant count whatever the order. The estimate is ((1.05 R) / N) x bias x N (destiny-evidence's arithmetic).
    """
    size = int(sample * len(relevant))
    chosen = rng.choice(len(relevant), size, replace=False)  # np.random.choice(idxs, size, replace=False)
    found = float(np.count_nonzero(relevant[chosen]))
    prevalence = ((SCAL_CALIBRATION * found) / n_total) * bias
    return prevalence * n_total


@register("stopping")
@dataclass(frozen=True)
class ScalRule(StoppingRule):
    """SCAL (Cormack & Grossman, "Scalability of continuous active learning for reliable high-recall text
    classification", CIKM 2016) as replayed by destiny-evidence/stopping-methods (methods/scal.py, 2025).

    At the end of each training round from `min_reviewed` judgments on (destiny-evidence checks every 100), a
    uniform subsample of a share `subsample` of the reviewed documents, drawn from the review's seeded stream, is cut
    into S-CAL's growing batches down the ranking and gives the estimate 1.05 x bias x (its relevant count); stop
    when target x that estimate < the relevant labels so far. It reads only the reviewer's labels and costs no
    judgment beyond the review. The original S-CAL (dli1/auto-stop-tar) labels a sample of each batch of its own
    sampled review and cannot be replayed on a CAL ledger (see stopping.scal).
    """

    target: float = 0.95
    subsample: float = 0.8  # destiny-evidence's sample_size (not `sample`: rules that charge a sample have sample())
    bias: float = 1.05
    min_reviewed: int = 100
    name: ClassVar[str] = "scal"
    params: ClassVar[tuple[Param, ...]] = (
        target_param(),
        Param("subsample", float, 0.8, "share of the reviewed documents subsampled", low=0, high=1, low_open=True),
        Param("bias", float, 1.05, "factor on the estimate (destiny-evidence tries 0.9 to 1.3)", low=0, low_open=True),
        Param("min_reviewed", int, 100, "judgments before the first check", low=1),
    )
    examples: ClassVar[tuple[str, ...]] = ("scal", "scal:target=0.8,bias=1.3")

    def start(self, ledger: Ledger, context: ReplayContext) -> Any:
        return None

    def fires(self, state: Any, ledger: Ledger, context: ReplayContext, judged: int) -> bool:
        if judged < self.min_reviewed:
            return False
        relevant = relevant_labels(ledger, judged)
        estimate = scal_estimate(
            relevant, ledger.collection_size, self.subsample, self.bias, scal_random_state(ledger, judged)
        )
        return bool(estimate * self.target < np.count_nonzero(relevant))

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        return CheckFollower(self).stop_position(ledger, context)

    def online_check(self) -> CheckFollower:
        return CheckFollower(self)
