"""Stopping rules as small declarative objects parsed from specs such as `knee`, `budget:2R+100` or `nonrel:50`.

A rule answers one question about a finished ledger: after how many judgments would a reviewer following it have
stopped? Rules see only what a reviewer knows at each point (the reviewer's labels), except `budget` (which
knows R, the topic's relevant count, as an oracle does) and `oracle` (which knows the qrels).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from tarsim.components import Param, kind, register
from tarsim.data.ledger import Ledger
from tarsim.data.score_log import ScoreLog, ScoreRound
from tarsim.effort_models import Budget, make_effort_model
from tarsim.errors import ConfigError
from tarsim.metrics.recall_effort import first_relevant_presentations
from tarsim.stopping.checks import BudgetCheck, KneeCheck, NonRelevantRunCheck, OracleCheck, TargetCheck
from tarsim.stopping.target import TargetSample, draw_target_sample

ACCEPTED = (
    "budget:aR+b[:MODEL] (e.g. budget:2R+100, budget:500, budget:2R+100:sent)",
    "knee (Cormack & Grossman's adjusted slope-ratio threshold 156 - min(relret, 150))",
    "knee:RHO (a fixed slope-ratio threshold, e.g. knee:6)",
    "target:T (T >= 1 random target documents)",
    "nonrel:N (N >= 1 consecutive non-relevant labels)",
    "oracle (all relevant documents presented)",
    "2399, reviewhalf, batchprecision:P, fixed:N, fraction:F (heuristics: tarsim list stopping)",
    "any(RULE,...), all(RULE,...), notbefore:N:RULE (composition)",
)
KNEE_MIN_REVIEWED = 150


@dataclass(frozen=True)
class ReplayContext:
    """What some rules need beyond the ledger: the collection's docids (in collection order) and the qrels."""

    docids: Sequence[str] | None = None
    qrels: Mapping[str, Mapping[str, int]] | None = None
    scores: ScoreLog | None = None  # the learner's scores of each round (a review run with --log-scores)


@dataclass(frozen=True)
class StoppingRule:
    """A stopping rule; `stop_position` is the number of judgments reviewed when it fires (None: it never did)."""

    spec: str
    params: ClassVar[tuple[Param, ...]] = ()
    needs_scores: ClassVar[bool] = False  # reads the learner's scores of each round (context.scores)
    examples: ClassVar[tuple[str, ...]] = ()  # specs the tests replay online and offline (tests/stopping)

    @classmethod
    def create(cls, spec: str, **params: Any) -> StoppingRule:
        """The rule of a spec whose parameters the registry has checked."""
        return cls(spec, **params)

    @property
    def kind(self) -> str:
        return self.spec.split(":", 1)[0]

    @abstractmethod
    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:  # pragma: no cover - interface
        raise NotImplementedError

    def __str__(self) -> str:
        return self.spec

    def scores_at(self, ledger: Ledger, context: ReplayContext, judged: int) -> ScoreRound | None:
        """The score round a rule checked after `judged` judgments reads (ScoreLog.at); refused in one line when
        the review logged no scores."""
        if context.scores is None:
            raise ConfigError(missing_scores_message(self.spec, ledger))
        return context.scores.at(judged)


def missing_scores_message(spec: str, ledger: Ledger) -> str:
    """Why a score-based rule cannot replay a ledger, and the fix."""
    where = "" if ledger.source.startswith("<") else f"{ledger.source}: "
    return (
        f"{where}stopping rule {spec!r} reads the learner's scores of each round, which this review did not log: "
        "run it with --log-scores (a sweep: log_scores = true)"
    )


def needs_scores(rule: StoppingRule) -> bool:
    """Whether a rule, or one inside any(...), all(...) or notbefore, reads the learner's scores."""
    return rule.needs_scores or any(needs_scores(inner) for inner in getattr(rule, "rules", ()))


def target_param(default: float = 0.95) -> Param:
    """The recall target of a rule that aims at one (`quant:target=0.9`; a sweep's `target_recall` sets it)."""
    return Param("target", float, default, "target recall", low=0, high=1, low_open=True, high_open=True)


def confidence_param(default: float = 0.95) -> Param:
    """The confidence level of a rule that certifies its target with one."""
    return Param("confidence", float, default, "confidence level", low=0, high=1, low_open=True, high_open=True)


def _effort_model(text: str) -> str:
    make_effort_model(text)
    return text


def _knee_threshold(text: str) -> float | None:
    if text.lower() == "adjusted":
        return None
    rho = float(text)
    if not rho > 0 or rho == float("inf"):
        raise ValueError(text)
    return rho


@register("stopping")
@dataclass(frozen=True)
class BudgetRule(StoppingRule):
    """Stop once the effort spent reaches aR + b in an effort model's units (R known, as to an oracle)."""

    a: float = 0.0
    b: float = 0.0
    effort_model: str = "judge"
    name: ClassVar[str] = "budget"
    examples: ClassVar[tuple[str, ...]] = ("budget:0.5R", "budget:R:clock")
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "budget",
            str,
            None,
            "effort budget aR+b, e.g. 2R+100, 4R or 500",
            parse=Budget.parse,
            required=True,
            accepted_text="aR+b",
            metavar="aR+b",
        ),
        Param(
            "model",
            str,
            "judge",
            "effort model the budget is counted in",
            parse=_effort_model,
            accepted_text="an effort model (tarsim list effort)",
            metavar="MODEL",
        ),
    )

    @classmethod
    def create(cls, spec: str, **params: Any) -> BudgetRule:
        budget = params["budget"]
        return cls(spec, budget.a, budget.b, params["model"])

    def budget(self, ledger: Ledger) -> float:
        return self.a * ledger.relevant + self.b

    def limit(self, ledger: Ledger) -> float:
        """The effort at which the rule fires (the budget, less a rounding tolerance)."""
        return self.budget(ledger) - 1e-9

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        spent = np.cumsum(make_effort_model(self.effort_model).costs(ledger.effort_columns))
        reached = np.flatnonzero(spent >= self.limit(ledger))
        return int(reached[0]) + 1 if reached.size else None

    def online_check(self) -> BudgetCheck:
        return BudgetCheck(self)


@register("stopping")
@dataclass(frozen=True)
class KneeRule(StoppingRule):
    """Cormack & Grossman (SIGIR 2016) knee method, checked at the end of each training round.

    The knee of the gain curve (judgments, relevant labels) after s judgments is the point farthest above the
    line from the origin to (s, relret(s)); the slope ratio is rho = (relret(k) / k) / ((relret(s) - relret(k) + 1)
    / (s - k)). Stop when s >= 150 and rho >= 156 - min(relret(s), 150) (`knee`, adjusted) or rho >= RHO.
    """

    rho: float | None = None  # None: the adjusted threshold 156 - min(relret, 150)
    min_reviewed: int = KNEE_MIN_REVIEWED
    name: ClassVar[str] = "knee"
    examples: ClassVar[tuple[str, ...]] = ("knee", "knee:6")
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "rho",
            float,
            None,
            "slope-ratio threshold (default: adjusted, 156 - min(relret, 150))",
            parse=_knee_threshold,
            accepted_text="a number > 0 or 'adjusted'",
        ),
    )

    def threshold(self, relret: int) -> float:
        return 156.0 - min(relret, 150) if self.rho is None else self.rho

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        gain = np.concatenate([[0], np.cumsum(ledger.label > 0)]).astype(np.float64)
        for s in check_points(ledger):
            if s < self.min_reviewed:
                continue
            rho = slope_ratio(gain[: s + 1])
            if rho >= self.threshold(int(gain[s])):
                return s
        return None

    def online_check(self) -> KneeCheck:
        return KneeCheck(self)


@register("stopping")
@dataclass(frozen=True)
class TargetRule(StoppingRule):
    """The target method: a random sample drawn before review until T relevant documents (the targets) are found;
    stop when the review has presented every target. The sample's judgments count as effort too."""

    targets: int = 10
    name: ClassVar[str] = "target"
    examples: ClassVar[tuple[str, ...]] = ("target:5",)
    params: ClassVar[tuple[Param, ...]] = (
        Param("targets", int, None, "relevant documents in the target sample", low=1, required=True, metavar="T"),
    )

    def sample(self, ledger: Ledger, context: ReplayContext) -> TargetSample:
        if context.docids is None or context.qrels is None:
            where = "" if ledger.source.startswith("<") else f"{ledger.source}: "  # which ledger (not <memory>)
            raise ConfigError(
                f"{where}stopping rule {self.spec!r} needs the collection's docids and the qrels to draw its target "
                "sample (give the collection, e.g. --collection DIR)"
            )
        judged = context.qrels.get(ledger.topic, {})
        return draw_target_sample(context.docids, judged, self.targets, ledger.header.get("seed", 0), ledger.topic)

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        targets = set(self.sample(ledger, context).targets)
        if not targets:
            return None
        for position, docid in enumerate(ledger.docids, start=1):
            targets.discard(docid)
            if not targets:
                return position
        return None

    def online_check(self) -> TargetCheck:
        return TargetCheck(self)


@register("stopping")
@dataclass(frozen=True)
class NonRelevantRunRule(StoppingRule):
    """Stop after N consecutive judgments the reviewer labelled non-relevant."""

    run: int = 50
    name: ClassVar[str] = "nonrel"
    examples: ClassVar[tuple[str, ...]] = ("nonrel:20",)
    params: ClassVar[tuple[Param, ...]] = (
        Param("run", int, None, "consecutive non-relevant labels", low=1, required=True, metavar="N"),
    )

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        streak = 0
        for position, label in enumerate(ledger.label, start=1):
            streak = 0 if label > 0 else streak + 1
            if streak >= self.run:
                return position
        return None

    def online_check(self) -> NonRelevantRunCheck:
        return NonRelevantRunCheck(self)


@register("stopping")
@dataclass(frozen=True)
class OracleRule(StoppingRule):
    """Stop when every relevant document has been presented (a reference line, not a usable rule)."""

    name: ClassVar[str] = "oracle"
    examples: ClassVar[tuple[str, ...]] = ("oracle",)

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        qrels = dict(context.qrels) if context.qrels is not None else None
        found = np.cumsum(first_relevant_presentations(ledger, qrels))
        relevant = ledger.relevant if qrels is None else sum(g > 0 for g in qrels.get(ledger.topic, {}).values())
        reached = np.flatnonzero(found >= relevant)
        return int(reached[0]) + 1 if reached.size and relevant else None

    def online_check(self) -> OracleCheck:
        return OracleCheck(self)


def check_points(ledger: Ledger) -> list[int]:
    """Judgment counts at which a batch ends: the last judgment of each training round, and the ledger's end when
    the review ran out of documents (a batch cut short by the collection)."""
    rounds = ledger.round
    ends = [p for p in range(1, len(rounds)) if rounds[p] != rounds[p - 1]]
    exhausted = len(rounds) >= ledger.collection_size or (ledger.end or {}).get("reason") == "pool exhausted"
    if len(rounds) and exhausted:
        ends.append(len(rounds))
    return ends


def slope_ratio(gain: np.ndarray) -> float:
    """The knee slope ratio of a gain curve gain[0..s] (gain[0] = 0); 0 when no knee exists."""
    s = len(gain) - 1
    if s < 2 or gain[s] <= 0:
        return 0.0
    k = np.arange(1, s)
    distance = s * gain[1:s] - gain[s] * k  # proportional to the distance above the chord
    knee = int(k[int(np.argmax(distance))])
    before = gain[knee] / knee
    after = (gain[s] - gain[knee] + 1.0) / (s - knee)
    return float(before / after)


def parse_stopping_rule(spec: str) -> StoppingRule:
    """Parse a stopping-rule spec (see ACCEPTED); a ConfigError names the spec and the accepted forms."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"stopping rule {str(spec)!r}: empty spec; accepted: {'; '.join(ACCEPTED)}")
    rules = kind("stopping")
    try:
        return rules.make(spec.strip())
    except ConfigError as exc:
        message = str(exc)
        accepted = rules.accepted()
        if accepted not in message:  # a rule inside any(...) that is unknown listed them already
            message = f"{message}; accepted stopping rules: {accepted}"
        raise ConfigError(message) from None
