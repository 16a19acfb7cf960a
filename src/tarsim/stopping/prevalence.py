"""Rules that read the learner's probabilities as a prevalence estimate: apriori and the score heuristic of
destiny-evidence/stopping-methods, and SALτ (Molinari & Esuli 2024), a Quant-like estimate on posteriors whose
prior an EM step (Saerens, Latinne & Decaestecker 2002) adjusts to the unreviewed documents."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from scipy.spatial.distance import cosine

from tarsim.components import Param, register
from tarsim.stopping.rules import target_param
from tarsim.stopping.scored import RoundEndScoreRule, ScoredView


def _threshold_param() -> Param:
    return Param("threshold", float, 0.5, "probability at which the model predicts relevant", low=0, high=1)


@register("stopping")
@dataclass(frozen=True)
class AprioriRule(RoundEndScoreRule):
    """destiny-evidence/stopping-methods' apriori (APRIORI, 2025, after mpbron/allib's recall criterion): the
    model's recall on the reviewed documents, the share of those the reviewer labelled relevant whose probability
    is at least `threshold`, taken as the review's recall; stop when it is strictly above `target` and strictly
    between 0 and 1.

    Checked at round ends (check_points; the reference every 100 judgments) on the latest model's probabilities.
    A document judged more than once counts once, relevant when any of its labels is. Assumes the model is as
    likely to miss a relevant document among those reviewed as among the others; costs nothing beyond the review.
    """

    target: float = 0.95
    threshold: float = 0.5
    name: ClassVar[str] = "apriori"
    needs_scores: ClassVar[bool] = True
    params: ClassVar[tuple[Param, ...]] = (target_param(), _threshold_param())
    examples: ClassVar[tuple[str, ...]] = ("apriori:target=0.5,threshold=0.9",)

    def decide(self, view: ScoredView) -> bool:
        relevant = view.relevant
        if not relevant.any():
            return False  # sklearn's recall_score with zero_division=0
        predicted = view.probabilities[view.positions] >= self.threshold
        recall = np.count_nonzero(predicted & relevant) / np.count_nonzero(relevant)
        return bool(0 < recall < 1 and recall > self.target)


@register("stopping")
@dataclass(frozen=True)
class ScoresRule(RoundEndScoreRule):
    """destiny-evidence/stopping-methods' score heuristic (HEURISTIC_SCORES, 2025, after mpbron/allib's
    heuristic): the relevant documents are estimated as those of the collection whose probability is at least
    `threshold`; stop when the documents labelled relevant so far are strictly more than `target` times as many.

    Checked at round ends (check_points; the reference every 100 judgments) on the latest model's probabilities.
    Deviation: the reference counts every label as relevant (`labels >= 0`, so its count is the documents
    reviewed); tarsim counts the documents the reviewer labelled relevant, as the heuristic intends.
    """

    target: float = 0.95
    threshold: float = 0.5
    name: ClassVar[str] = "scores"
    needs_scores: ClassVar[bool] = True
    params: ClassVar[tuple[Param, ...]] = (target_param(), _threshold_param())
    examples: ClassVar[tuple[str, ...]] = ("scores", "scores:target=0.8,threshold=0.25")

    def decide(self, view: ScoredView) -> bool:
        estimated = np.count_nonzero(view.probabilities >= self.threshold)
        found = np.count_nonzero(view.relevant)
        return bool(estimated > 0 and found / estimated > self.target)


SLD_EPSILON = 1e-6
SLD_MAX_STEPS = 1000


def reference_sld(
    seen: np.ndarray, unseen: np.ndarray, adjust: bool, trust: float = 0.5, tau: float = 1.0
) -> np.ndarray:
    """The SLD step of destiny-evidence/stopping-methods' SALT, with its arithmetic: the two-class posteriors
    [1 - p, p] of the `unseen` documents re-weighted by the ratio of the current to the `seen` documents' mean
    posteriors (damped as 1 - (trust (1 - ratio))^tau when `adjust`), divided by their sum over ALL documents and
    both classes (Saerens et al. divide each document's by its own sum), up to 1000 times or until the new
    priors are within 1e-6 of the FIRST priors (Saerens et al.: of the previous step's). The new probabilities
    of relevance of the unseen documents.

    Since the reference divides by one sum, a step's priors are ratio_c S_c / (n sum_k ratio_k S_k), S the
    posteriors' column sums: the loop runs on those two numbers (the reference re-weights the n x 2 matrix at
    every step, the same up to rounding), and the matrix is re-weighted once, with the last step's ratios.
    """
    if not len(unseen):
        return unseen.astype(np.float64)
    with np.errstate(all="ignore"):
        priors = (float(np.mean(1 - seen)), float(np.mean(seen)))
    sums = (float(np.sum(1 - unseen)), float(np.sum(unseen)))
    count = len(unseen)
    current = priors
    ratio, total = 1.0, 1.0
    with np.errstate(all="ignore"):
        for _ in range(SLD_MAX_STEPS):
            ratios = [(c + 1e-10) / (p + 1e-10) for c, p in zip(current, priors, strict=True)]
            if adjust:
                ratios = [-(np.float64(trust * (-r + 1)) ** tau) + 1 for r in ratios]
            total = ratios[0] * sums[0] + ratios[1] * sums[1]
            ratio = ratios[1]
            current = (ratios[0] * sums[0] / total / count, ratios[1] * sums[1] / total / count)
            if abs(priors[0] - current[0]) + abs(priors[1] - current[1]) < SLD_EPSILON:
                break
        return ratio * unseen.astype(np.float64) / total


@register("stopping")
@dataclass(frozen=True)
class SaltRule(RoundEndScoreRule):
    """SALτ (Molinari & Esuli, Data Mining and Knowledge Discovery 2024, "SALτ: efficiently stopping TAR by
    improving priors estimates"), with the arithmetic of destiny-evidence/stopping-methods' SALT (2025): the
    latest model's probabilities of the unreviewed documents adjusted by its SLD step (the EM of Saerens et al.
    2002, from the prior of the documents reviewed before the last round with `adjusted`, else from their own),
    the adjustment dropped when |share - mean| / (2 (1 - share)) exceeds `alpha` (share: the last round's relevant
    share, mean: its mean probability); stop when the Quant-like estimate, less `nstd` standard deviations, reaches
    `target` (2 target - target^2 with `margin`: SALτ^r; nstd 2: SALτ-QuantCI).

    Checked at round ends (check_points; a training round is the reference's batch), once 2 rounds (5 without
    `adjusted`) were judged, seed round included. Where the reference departs from the paper, tarsim follows the
    reference: its SLD divides by the posteriors' sum over all documents and classes (so the unreviewed
    documents' probabilities sum to at most 1) and tests convergence against the first prior; its estimate counts
    the unreviewed documents' probabilities as known and the last round's as unknown, so it fires when the last
    round adds little probability mass; its trust is 1 - cosine(x, x) of the batch's scores after retraining
    (about 1), where the paper compares them with the scores before retraining. (With each document normalised
    and trust 1, the EM drives the unreviewed documents' prior to 0 on BMI's probabilities and the rule stops
    after two rounds.)
    """

    target: float = 0.95
    alpha: float = 0.3
    nstd: float = 0.0
    adjusted: bool = True
    margin: bool = False
    name: ClassVar[str] = "salt"
    needs_scores: ClassVar[bool] = True
    params: ClassVar[tuple[Param, ...]] = (
        target_param(),
        Param("alpha", float, 0.3, "largest error on the last round that keeps the adjusted prior", low=0),
        Param("nstd", float, 0.0, "standard deviations below the estimated recall (2: SALτ-QuantCI)", low=0),
        Param("adjusted", bool, True, "adjust the posteriors from the reviewed documents' prior"),
        Param("margin", bool, False, "aim at 2 target - target^2 (SALτ^r)"),
    )
    examples: ClassVar[tuple[str, ...]] = ("salt", "salt:target=0.8")

    @property
    def min_rounds(self) -> int:  # type: ignore[override]
        return 2 if self.adjusted else 5

    def estimate(self, view: ScoredView) -> float:
        """The reference's estimate, on the probabilities ordered as its scores vector: the documents seen (in
        order of first presentation), then the unseen ones (in collection order)."""
        probabilities = view.probabilities
        vector = np.concatenate([probabilities[view.positions], probabilities[~view.reviewed]])
        seen, last = len(view.positions), view.round_starts[-1]
        batch = vector[last:seen]
        adjusted = vector.copy()
        if self.adjusted:
            with np.errstate(all="ignore"):
                trust = 1 - cosine(batch, batch)
            adjusted[seen:] = reference_sld(vector[:last], vector[seen:], True, trust=trust)
            labels = view.relevant[last:]
            with np.errstate(all="ignore"):
                error = np.sum(np.abs(labels.mean() - adjusted[last:seen].mean())) / (2 * (1 - labels.mean()))
            if error > self.alpha:
                adjusted = vector.copy()
        else:
            adjusted[seen:] = reference_sld(vector[seen:], vector[seen:], False)
        known = adjusted[:last].sum() + adjusted[seen:].sum()
        unknown = adjusted[last:seen].sum()
        estimate = known / (known + unknown)
        if self.nstd == 0:
            return float(estimate)
        product = adjusted * (1 - adjusted)
        all_var = product.sum()
        variance = known**2 / (known + unknown) ** 4 * all_var + 1 / (known + unknown) ** 2 * (
            all_var - product[last:seen].sum()
        )
        return float(estimate - self.nstd * np.sqrt(variance))

    def decide(self, view: ScoredView) -> bool:
        aim = 2 * self.target - self.target**2 if self.margin else self.target
        with np.errstate(all="ignore"):
            return bool(self.estimate(view) >= aim)
