"""AutoStop (Li & Kanoulas, "When to stop reviewing in technology-assisted reviews: sampling from an adaptive
distribution to estimate residual relevant documents", ACM TOIS 2020), after dli1/auto-stop-tar
(autostop/tar_model/auto_stop.py, autostop/tar_framework/sampling_estimating.py).

In dli1's AutoStop the review *is* the sample: each round it ranks the whole collection, draws documents with
replacement from a distribution over ranks (AP-prior p_i ~ log((N + 1) / i), a power law, a uniform mixture or
uniform), judges them, and estimates R with Horvitz-Thompson (inclusion probabilities 1 - prod_t (1 - p_it)^n_t)
or Hansen-Hurwitz (the mean of y / p over the draws). On a tarsim CAL review the sample runs beside the review:
at the end of each training round it draws from the ranking of the learner's latest scores, with dli1's sample
sizes (1, 2, 3, ..., n += ceil(n / 10): the round sizes of a `bmi` batch schedule), from the review's own seeded
stream; the sampled documents are judged by the qrels and charged as effort (`sample()`). The stopping condition
compares, as dli1's does, the relevant documents of the sample (its running_true_r: dli1's review is its sample)
with target x the estimate (`found=sample`); `found=all` counts those the reviewer labelled relevant too, which
stops earlier but compares a sample estimate with counts the sample did not make (it still waits, as dli1 does,
for a relevant document in the sample).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from tarsim.components import Param, register
from tarsim.data.ledger import Ledger
from tarsim.errors import ConfigError
from tarsim.stopping.rules import ReplayContext, StoppingRule, target_param
from tarsim.stopping.sampling_checks import CheckFollower, collection_positions, stream_seed

SAMPLERS = ("approprior", "powerlaw", "uniform", "mixture")
CONDITIONS = ("loose", "strict1", "strict2")


def rank_distribution(sampler: str, size: int, *, beta: float = -0.1, epsilon: float = 0.5, alpha: int = 1):
    """dli1's sampling distribution over ranks 1..size (normalised as dli1 does: each weight / their sum)."""
    ranks = np.arange(1, size + 1, dtype=np.float64)
    if sampler == "approprior":
        weights = np.log((size + 1) / ranks)
    elif sampler == "powerlaw":
        weights = ranks**beta
    elif sampler == "mixture" and min(alpha, size) < size:
        alpha = min(alpha, size)
        weights = np.concatenate(
            [np.full(alpha, 1.0 - epsilon / alpha), np.full(size - alpha, epsilon / (size - alpha))]
        )
    else:  # uniform, or a mixture whose head is the whole collection
        weights = np.full(size, 1.0 / size)
    return weights / weights.sum()


def autostop_random_state(ledger: Ledger) -> np.random.RandomState:
    """The sample's generator: legacy numpy (RandomState), as dli1 draws with np.random.choice, so that
    benchmarks/references/sampling_refs.py can seed the reference identically; fixed by the review's seed and topic."""
    return np.random.RandomState(stream_seed(ledger, "autostop"))


@dataclass
class AutoStopState:
    """What AutoStop has drawn so far: the sample stream, its documents and what the estimators need."""

    docids: list[str]  # the collection's, in collection order
    relevant: np.ndarray  # bool per document of the collection (the qrels), judging the sampled documents
    rng: np.random.RandomState
    size: int = 1  # the next draw's size (dli1's batch_size)
    draws: int = 0  # the checks that drew (dli1's t)
    log_miss: np.ndarray | None = None  # per document: sum_t n_t log(1 - p_it) (Horvitz-Thompson)
    history: list[tuple[int, np.ndarray]] = field(default_factory=list)  # (n_t, p_t per document), for var1
    hh_draws: list[tuple[int, float]] = field(default_factory=list)  # (position, p) of every draw (Hansen-Hurwitz)
    sampled: dict[int, int] = field(default_factory=dict)  # position -> judgments at its first draw, in draw order
    found_review: set[str] = field(default_factory=set)  # docids the reviewer labelled relevant
    reviewed: int = 0


@dataclass(frozen=True)
class AutoStopSample:
    """The documents AutoStop sampled up to its stop (or the review's end), in first-draw order, and for each the
    judgments reviewed when it was first drawn (a rule inside any(...) that stopped earlier drew only those at or
    before its stop)."""

    sampled: tuple[str, ...]
    drawn_at: tuple[int, ...] = ()


@register("stopping")
@dataclass(frozen=True)
class AutoStopRule(StoppingRule):
    """AutoStop (Li & Kanoulas, "When to stop reviewing in technology-assisted reviews", ACM TOIS 2020), after
    dli1/auto-stop-tar (tar_model/auto_stop.py and tar_framework/sampling_estimating.py).

    At the end of each training round, n documents (1, 2, 3, ..., n += ceil(n / 10)) are drawn with replacement
    from the ranking of the learner's latest scores with rank probabilities from `sampler` (approprior:
    log((N + 1) / i); powerlaw: i^beta; mixture: the top n share 1 - epsilon; uniform), from the review's seeded
    stream; their qrels judgments are charged as effort. R is estimated by `estimator` ht (Horvitz-Thompson) or hh
    (Hansen-Hurwitz); stop when the relevant documents of the sample (`found=sample`, dli1's; `found=all` adds
    those the reviewer labelled relevant) reach target x the estimate (`condition=loose`), or target x (estimate
    + nstd x its standard deviation) with dli1's variance 1 (strict1) or 2 (strict2, ht only), once the sample
    holds a relevant document. Needs the learner's scores (--log-scores) and the collection with its qrels.
    """

    target: float = 0.95
    estimator: str = "ht"
    sampler: str = "approprior"
    condition: str = "loose"
    nstd: float = 1.0
    beta: float = -0.1
    epsilon: float = 0.5
    found: str = "sample"
    name: ClassVar[str] = "autostop"
    needs_scores: ClassVar[bool] = True
    params: ClassVar[tuple[Param, ...]] = (
        target_param(),
        Param("estimator", str, "ht", "ht (Horvitz-Thompson) or hh (Hansen-Hurwitz)", choices=("ht", "hh")),
        Param("sampler", str, "approprior", "the sampling distribution over ranks", choices=SAMPLERS),
        Param("condition", str, "loose", "estimate alone, or plus nstd standard deviations", choices=CONDITIONS),
        Param("nstd", float, 1.0, "standard deviations added under a strict condition", low=0),
        Param("beta", float, -0.1, "the power law's exponent"),
        Param(
            "epsilon", float, 0.5, "the mixture's share outside the top n", low=0, high=1, low_open=True, high_open=True
        ),
        Param(
            "found",
            str,
            "sample",
            "relevant documents counted: the sample's or also the review's",
            choices=("sample", "all"),
        ),
    )
    examples: ClassVar[tuple[str, ...]] = (
        "autostop:found=all",
        "autostop:target=0.8,found=all",
        "autostop:target=0.8,estimator=hh",
    )

    @classmethod
    def create(cls, spec: str, **params: Any) -> AutoStopRule:
        if params.get("estimator") == "hh" and params.get("condition") == "strict2":
            raise ConfigError(
                f"stopping rule {spec!r}: condition strict2 needs estimator ht (dli1's Hansen-Hurwitz has no "
                "variance 2); use condition=strict1 or estimator=ht"
            )
        return cls(spec, **params)

    # ---- the sample ------------------------------------------------------------------------------------------
    def start(self, ledger: Ledger, context: ReplayContext) -> AutoStopState:
        positions = collection_positions(self.spec, ledger, context, qrels=True)
        judged = context.qrels.get(ledger.topic, {})  # type: ignore[union-attr]
        relevant = np.zeros(len(positions), dtype=bool)
        for docid, grade in judged.items():
            if grade > 0 and docid in positions:
                relevant[positions[docid]] = True
        return AutoStopState(list(context.docids), relevant, autostop_random_state(ledger))  # type: ignore[arg-type]

    def _draw(self, state: AutoStopState, scores: np.ndarray, judged: int) -> None:
        """One round's draw from the ranking of `scores` (collection order), and the estimators' bookkeeping."""
        size = len(scores)
        ranking = np.argsort(-scores, kind="stable")  # dli1: sorted(..., reverse=True) keeps ties in collection order
        dist = rank_distribution(self.sampler, size, beta=self.beta, epsilon=self.epsilon, alpha=state.size)
        drawn = ranking[state.rng.choice(size, size=state.size, replace=True, p=dist)]
        per_document = np.empty(size)
        per_document[ranking] = dist
        if self.estimator == "ht":
            if state.log_miss is None:
                state.log_miss = np.zeros(size)
            state.log_miss += state.size * np.log1p(-per_document)
            if self.condition == "strict1":
                state.history.append((state.size, per_document))
        else:
            state.hh_draws.extend((int(d), float(per_document[d])) for d in drawn)
        for position in drawn.tolist():
            state.sampled.setdefault(position, judged)
        state.draws += 1
        state.size += math.ceil(state.size / 10)

    # ---- the estimators --------------------------------------------------------------------------------------
    def _horvitz_thompson(self, state: AutoStopState) -> tuple[float, float]:
        """dli1's HorvitzThompson.estimate: the total over the distinct sampled documents and the variance of the
        condition (0 at the first draw, as dli1's t = 1)."""
        sampled = np.fromiter(state.sampled, dtype=np.int64)
        inclusion = -np.expm1(state.log_miss[sampled])  # type: ignore[index]
        y = state.relevant[sampled].astype(np.float64)
        total = float(np.sum(y / inclusion))
        if state.draws <= 1 or self.condition == "loose":
            return total, 0.0
        if self.condition == "strict2":
            v = len(sampled)
            if v == 1:
                return total, 0.0
            n = len(state.relevant)
            return total, float((n - v) / n / v / (v - 1) * np.sum((v * y / inclusion - total) ** 2))
        rel = sampled[y > 0]
        pi = inclusion[y > 0]
        first = float(np.sum(1.0 / pi**2 - 1.0 / pi))
        if len(rel) < 2:
            return total, first
        log_both = np.zeros((len(rel), len(rel)))
        for n_t, p in state.history:
            p_rel = p[rel]
            both = 1.0 - p_rel[:, None] - p_rel[None, :]
            np.fill_diagonal(both, 1.0)
            log_both += n_t * np.log(both)
        joint = pi[:, None] + pi[None, :] + np.expm1(log_both)  # pi_i + pi_j - (1 - prod (1 - p_i - p_j)^n)
        cross = 1.0 / (pi[:, None] * pi[None, :]) - 1.0 / joint
        np.fill_diagonal(cross, 0.0)
        return total, first + float(np.sum(cross))

    def _hansen_hurwitz(self, state: AutoStopState) -> tuple[float, float]:
        """dli1's HansenHurwitz.estimate: the mean of y / p over every draw, and the variance of that mean."""
        ratios = np.array([float(state.relevant[d]) / p for d, p in state.hh_draws])
        total = float(np.mean(ratios))
        if self.condition == "loose" or len(ratios) <= 1:
            return total, 0.0
        return total, float(np.sum((ratios - total) ** 2) / len(ratios) / (len(ratios) - 1))

    def estimate(self, state: AutoStopState) -> tuple[float, float]:
        """The estimated relevant documents and the variance the stopping condition adds."""
        return self._horvitz_thompson(state) if self.estimator == "ht" else self._hansen_hurwitz(state)

    # ---- the rule --------------------------------------------------------------------------------------------
    def counted(self, state: AutoStopState, ledger: Ledger, judged: int) -> tuple[int, int]:
        """Relevant documents in the sample, and those counted by the condition after `judged` judgments: the
        sample's (found=sample), or those the reviewer labelled relevant too (found=all)."""
        for docid, label in zip(
            ledger.docids[state.reviewed : judged], ledger.label[state.reviewed : judged], strict=True
        ):
            if label > 0:
                state.found_review.add(docid)
        state.reviewed = judged
        sampled_relevant = {state.docids[p] for p in state.sampled if state.relevant[p]}
        if self.found == "sample":
            return len(sampled_relevant), len(sampled_relevant)
        return len(sampled_relevant), len(state.found_review | sampled_relevant)

    def fires(self, state: AutoStopState, ledger: Ledger, context: ReplayContext, judged: int) -> bool:
        scores = self.scores_at(ledger, context, judged)
        if scores is None:
            return False
        self._draw(state, scores.scores, judged)
        in_sample, found = self.counted(state, ledger, judged)
        if in_sample == 0:  # dli1: `if running_true_r > 0`
            return False
        total, variance = self.estimate(state)
        if self.condition == "loose":
            return found >= self.target * total
        return bool(found >= self.target * (total + self.nstd * np.sqrt(variance)))

    def follow(self, ledger: Ledger, context: ReplayContext) -> CheckFollower:
        follower = CheckFollower(self)
        follower.stop_position(ledger, context)
        return follower

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        return self.follow(ledger, context).fired

    def sample(self, ledger: Ledger, context: ReplayContext) -> AutoStopSample:
        """The documents sampled up to the stop (every check's draw when the rule never fires): their judgments
        are the rule's effort beyond the review."""
        state = self.follow(ledger, context).state
        if state is None:
            return AutoStopSample(())
        return AutoStopSample(tuple(state.docids[p] for p in state.sampled), tuple(state.sampled.values()))

    def online_check(self) -> CheckFollower:
        return CheckFollower(self)
