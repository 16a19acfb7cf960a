"""Selection policies: which unjudged documents the next batch holds, given the learner's scores.

Every policy is vectorised over the pool (no Python loop over documents) and deterministic given its
numpy Generator; ties in score are broken by collection order (the earlier document first).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tarsim.errors import ConfigError


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

    def select(self, scores: np.ndarray, candidates: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover


@dataclass(frozen=True)
class RelevanceSampling(SelectionPolicy):
    """CAL: the highest-scoring unjudged documents."""

    name: str = "relevance"

    def select(self, scores, candidates, k, rng):
        return top_k(scores, candidates, k)


@dataclass(frozen=True)
class UncertaintySampling(SelectionPolicy):
    """The unjudged documents whose score is closest to the decision boundary (0 for decision values)."""

    boundary: float = 0.0
    name: str = "uncertainty"

    def select(self, scores, candidates, k, rng):
        return top_k(-np.abs(scores - self.boundary), candidates, k)


@dataclass(frozen=True)
class RandomSampling(SelectionPolicy):
    """Unjudged documents uniformly at random (the seeded generator decides)."""

    name: str = "random"

    def select(self, scores, candidates, k, rng):
        k = min(k, len(candidates))
        return rng.choice(candidates, size=k, replace=False)


@dataclass(frozen=True)
class MixedSampling(SelectionPolicy):
    """Relevance sampling with a share of each batch drawn by another policy (uncertainty or random)."""

    share: float = 0.1
    other: str = "random"
    name: str = "mix"

    def select(self, scores, candidates, k, rng):
        k = min(k, len(candidates))
        n_other = int(rng.binomial(k, self.share))
        first = top_k(scores, candidates, k - n_other)
        if n_other == 0:
            return first
        rest = np.setdiff1d(candidates, first, assume_unique=True)
        second = make_selection_policy(self.other).select(scores, rest, n_other, rng)
        return np.concatenate([first, second])


SELECTION_POLICIES = ("relevance", "uncertainty", "random", "mix:SHARE[:random|uncertainty]")


def make_selection_policy(spec: str) -> SelectionPolicy:
    """Parse `relevance`, `uncertainty`, `random`, or `mix:0.2[:random|uncertainty]`."""
    if spec == "relevance":
        return RelevanceSampling()
    if spec == "uncertainty":
        return UncertaintySampling()
    if spec == "random":
        return RandomSampling()
    if spec.startswith("mix:"):
        parts = spec.split(":")
        try:
            share = float(parts[1])
        except (IndexError, ValueError):
            share = -1.0
        other = parts[2] if len(parts) > 2 else "random"
        if not 0.0 <= share <= 1.0 or other not in ("random", "uncertainty") or len(parts) > 3:
            raise ConfigError(f"policy {spec!r}: expected mix:SHARE[:random|uncertainty] with SHARE in [0, 1]")
        return MixedSampling(share=share, other=other)
    raise ConfigError(f"unknown policy {spec!r}; accepted: {', '.join(SELECTION_POLICIES)}")
