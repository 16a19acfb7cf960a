"""Selection policies: which unjudged documents the next batch holds, given the learner's scores.

Every policy is vectorised over the pool (no Python loop over documents) and deterministic given its
numpy Generator; ties in score are broken by collection order (the earlier document first).
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tarsim.components import Param, make, register


def top_k(scores: np.ndarray, candidates: np.ndarray, k: int) -> np.ndarray:
    """The k candidates with the highest score, best first; ties broken by lower index."""
    if k >= len(candidates):
        chosen = candidates
    else:
        # argpartition on negated scores, then a stable sort of the k winners (plus exact ties at the border).
        candidate_scores = scores[candidates]
        kth = np.partition(-candidate_scores, k - 1)[k - 1]
        chosen = candidates[-candidate_scores <= kth]
    order = np.lexsort((chosen, -scores[chosen]))
    return chosen[order][:k]


class SelectionPolicy:
    """Chooses `k` of the `candidates` (document indexes) from their scores."""

    name: str = ""
    params: ClassVar[tuple[Param, ...]] = ()

    @abstractmethod
    def select(self, scores: np.ndarray, candidates: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover


@register("policy")
@dataclass(frozen=True)
class RelevanceSampling(SelectionPolicy):
    """CAL: the highest-scoring unjudged documents."""

    name: str = "relevance"

    def select(self, scores, candidates, k, rng):
        return top_k(scores, candidates, k)


@register("policy")
@dataclass(frozen=True)
class UncertaintySampling(SelectionPolicy):
    """The unjudged documents whose score is closest to the decision boundary (0 for decision values). With the
    default 100 presumed non-relevant documents in each round's training, no unjudged document scores above 0 after
    the first rounds (bmi, logistic, nb, svm, rf alike): it then picks what relevance picks; for SAL vs CAL set
    --presumed-nonrelevant 0.

    Checked on srd reviews (docs/sweeps.md): with the defaults the two orders differ only in the first judgments or
    by a swap (ADHD: within the first 10; Antihistamines: 2 positions, with each of those learners); with
    presumed_nonrelevant 0 in over half of them."""

    boundary: float = 0.0
    name: str = "uncertainty"
    params: ClassVar[tuple[Param, ...]] = (Param("boundary", float, 0.0, "the score taken as most uncertain"),)

    def select(self, scores, candidates, k, rng):
        return top_k(-np.abs(scores - self.boundary), candidates, k)


@register("policy")
@dataclass(frozen=True)
class RandomSampling(SelectionPolicy):
    """Unjudged documents uniformly at random (the seeded generator decides)."""

    name: str = "random"

    def select(self, scores, candidates, k, rng):
        k = min(k, len(candidates))
        return rng.choice(candidates, size=k, replace=False)


@register("policy")
@dataclass(frozen=True)
class MaxSampling(RelevanceSampling):
    """ASReview's `max`: the highest-scoring unjudged documents (tarsim's relevance)."""

    name: str = "max"


def _mixed(first: np.ndarray, second: np.ndarray, k: int, probability: float, rng: np.random.Generator) -> np.ndarray:
    """ASReview's _mix_indices: walk both orders, taking the next of `first` with `probability`, else the next of
    `second`, skipping documents already taken, until k are taken (or an order runs out)."""
    taken: dict[int, None] = {}
    i = j = 0
    while len(taken) < k and i < len(first) and j < len(second):
        if rng.random() < probability:
            taken.setdefault(int(first[i]))
            i += 1
        else:
            taken.setdefault(int(second[j]))
            j += 1
    chosen = np.fromiter(taken, dtype=np.int64, count=len(taken))
    if len(chosen) < k:  # an order ran out: fill from the first order (ASReview's lists cover the whole pool)
        rest = first[~np.isin(first, chosen)]
        chosen = np.concatenate([chosen, rest[: k - len(chosen)]])
    return chosen


@dataclass(frozen=True)
class _MaxMixture(SelectionPolicy):
    """ASReview's hybrid queriers: each pick is the best-scoring document with `probability`, else the next of a
    second order (subclasses give it); both orders are cut to twice the batch, enough for every pick."""

    probability: float = 0.95
    params: ClassVar[tuple[Param, ...]] = (
        Param("probability", float, 0.95, "chance that a pick is the best-scoring document", 0.0, 1.0),
    )

    def second_order(self, scores, candidates, depth, rng) -> np.ndarray:
        raise NotImplementedError

    def select(self, scores, candidates, k, rng):
        k = min(k, len(candidates))
        depth = min(2 * k, len(candidates))
        best = top_k(scores, candidates, depth)
        return _mixed(best, self.second_order(scores, candidates, depth, rng), k, self.probability, rng)


@register("policy")
@dataclass(frozen=True)
class MaxRandomSampling(_MaxMixture):
    """ASReview's `max_random`: each pick is the best-scoring document with probability 0.95, else a random one."""

    name: str = "max_random"

    def second_order(self, scores, candidates, depth, rng):
        return rng.permutation(candidates)[:depth]


@register("policy")
@dataclass(frozen=True)
class MaxUncertaintySampling(_MaxMixture):
    """ASReview's `max_uncertainty`: each pick is the best-scoring document with probability 0.95, else the most
    uncertain one (score closest to the decision boundary)."""

    name: str = "max_uncertainty"

    def second_order(self, scores, candidates, depth, rng):
        return UncertaintySampling().select(scores, candidates, depth, rng)


@register("policy")
@dataclass(frozen=True)
class MixedSampling(SelectionPolicy):
    """Relevance sampling with a share of each batch drawn by another policy (uncertainty or random)."""

    share: float = 0.1
    other: str = "random"
    name: str = "mix"
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "share",
            float,
            None,
            "expected share of each batch drawn by the other policy",
            0.0,
            1.0,
            required=True,
            metavar="SHARE",
        ),
        Param("other", str, "random", "the policy drawing that share", choices=("random", "uncertainty")),
    )

    def select(self, scores, candidates, k, rng):
        k = min(k, len(candidates))
        n_other = int(rng.binomial(k, self.share))
        first = top_k(scores, candidates, k - n_other)
        if n_other == 0:
            return first
        rest = np.setdiff1d(candidates, first, assume_unique=True)
        second = make_selection_policy(self.other).select(scores, rest, n_other, rng)
        return np.concatenate([first, second])


SELECTION_POLICIES = (
    "relevance",
    "max",
    "uncertainty",
    "random",
    "max_random",
    "max_uncertainty",
    "mix:SHARE[:random|uncertainty]",
)
"""The built-in policies' forms (`tarsim list policy` shows every policy, plugins included)."""


def make_selection_policy(spec: str) -> SelectionPolicy:
    """Parse `relevance`, `uncertainty`, `random`, `mix:0.2[:random|uncertainty]` or a plugin's policy."""
    return make("policy", spec)
