"""Stopping rules as small declarative objects parsed from specs such as `knee`, `budget:2R+100` or `nonrel:50`.

A rule answers one question about a finished ledger: after how many judgments would a reviewer following it have
stopped? Rules see only what a reviewer knows at each point (the reviewer's labels), except `budget` (which
knows R, the topic's relevant count, as an oracle does) and `oracle` (which knows the qrels).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.effort_models import make_effort_model
from tarsim.errors import ConfigError
from tarsim.metrics.recall_effort import first_relevant_presentations
from tarsim.stopping.target import TargetSample, draw_target_sample

ACCEPTED = (
    "budget:aR+b[:MODEL] (e.g. budget:2R+100, budget:500, budget:2R+100:sent)",
    "knee (Cormack & Grossman's adjusted slope-ratio threshold 156 - min(relret, 150))",
    "knee:RHO (a fixed slope-ratio threshold, e.g. knee:6)",
    "target:T (T >= 1 random target documents)",
    "nonrel:N (N >= 1 consecutive non-relevant labels)",
    "oracle (all relevant documents presented)",
)
KNEE_MIN_REVIEWED = 150


@dataclass(frozen=True)
class ReplayContext:
    """What some rules need beyond the ledger: the collection's docids (in collection order) and the qrels."""

    docids: Sequence[str] | None = None
    qrels: Mapping[str, Mapping[str, int]] | None = None


@dataclass(frozen=True)
class StoppingRule:
    """A stopping rule; `stop_position` is the number of judgments reviewed when it fires (None: it never did)."""

    spec: str

    @property
    def kind(self) -> str:
        return self.spec.split(":", 1)[0]

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:  # pragma: no cover - interface
        raise NotImplementedError

    def __str__(self) -> str:
        return self.spec


@dataclass(frozen=True)
class BudgetRule(StoppingRule):
    """Stop once the effort spent reaches aR + b in an effort model's units (R known, as to an oracle)."""

    a: float = 0.0
    b: float = 0.0
    effort_model: str = "judge"

    def budget(self, ledger: Ledger) -> float:
        return self.a * ledger.relevant + self.b

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        spent = np.cumsum(make_effort_model(self.effort_model).costs({**ledger.effort, "time": ledger.time}))
        reached = np.flatnonzero(spent >= self.budget(ledger) - 1e-9)
        return int(reached[0]) + 1 if reached.size else None


@dataclass(frozen=True)
class KneeRule(StoppingRule):
    """Cormack & Grossman (SIGIR 2016) knee method, checked at the end of each training round.

    The knee of the gain curve (judgments, relevant labels) after s judgments is the point farthest above the
    line from the origin to (s, relret(s)); the slope ratio is rho = (relret(k) / k) / ((relret(s) - relret(k) + 1)
    / (s - k)). Stop when s >= 150 and rho >= 156 - min(relret(s), 150) (`knee`, adjusted) or rho >= RHO.
    """

    rho: float | None = None  # None: the adjusted threshold 156 - min(relret, 150)
    min_reviewed: int = KNEE_MIN_REVIEWED

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


@dataclass(frozen=True)
class TargetRule(StoppingRule):
    """The target method: a random sample drawn before review until T relevant documents (the targets) are found;
    stop when the review has presented every target. The sample's judgments count as effort too."""

    targets: int = 10

    def sample(self, ledger: Ledger, context: ReplayContext) -> TargetSample:
        if context.docids is None or context.qrels is None:
            raise ConfigError(
                f"stopping rule {self.spec!r} needs the collection's docids and the qrels to draw its target sample "
                "(give the collection, e.g. --collection DIR)"
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


@dataclass(frozen=True)
class NonRelevantRunRule(StoppingRule):
    """Stop after N consecutive judgments the reviewer labelled non-relevant."""

    run: int = 50

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        streak = 0
        for position, label in enumerate(ledger.label, start=1):
            streak = 0 if label > 0 else streak + 1
            if streak >= self.run:
                return position
        return None


@dataclass(frozen=True)
class OracleRule(StoppingRule):
    """Stop when every relevant document has been presented (a reference line, not a usable rule)."""

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        qrels = dict(context.qrels) if context.qrels is not None else None
        found = np.cumsum(first_relevant_presentations(ledger, qrels))
        relevant = ledger.relevant if qrels is None else sum(g > 0 for g in qrels.get(ledger.topic, {}).values())
        reached = np.flatnonzero(found >= relevant)
        return int(reached[0]) + 1 if reached.size and relevant else None


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


def _fail(spec: str, problem: str) -> ConfigError:
    return ConfigError(f"stopping rule {spec!r}: {problem}; accepted: {'; '.join(ACCEPTED)}")


def _positive_int(spec: str, text: str, what: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise _fail(spec, f"{what} must be an integer >= 1, got {text!r}")
    return int(text)


def parse_stopping_rule(spec: str) -> StoppingRule:
    """Parse a stopping-rule spec (see ACCEPTED); a ConfigError names the spec and the accepted forms."""
    if not isinstance(spec, str) or not spec.strip():
        raise _fail(str(spec), "empty spec")
    spec = spec.strip()
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if kind == "oracle" and not rest:
        return OracleRule(spec)
    if kind == "knee":
        if not rest or rest.lower() == "adjusted":
            return KneeRule(spec)
        try:
            rho = float(rest)
        except ValueError:
            raise _fail(spec, f"knee threshold must be a number > 0 or 'adjusted', got {rest!r}") from None
        if not rho > 0:
            raise _fail(spec, f"knee threshold must be > 0, got {rest!r}")
        return KneeRule(spec, rho=rho)
    if kind == "target":
        return TargetRule(spec, targets=_positive_int(spec, rest, "the number of targets"))
    if kind == "nonrel":
        return NonRelevantRunRule(spec, run=_positive_int(spec, rest, "the run of non-relevant labels"))
    if kind == "budget":
        from tarsim.simulator.config import Budget  # the one aR+b parser (imported late: it pulls in the simulator)

        expression, _, model = rest.partition(":")
        try:
            budget = Budget.parse(expression)
            make_effort_model(model or "judge")
        except ConfigError as exc:
            raise _fail(spec, str(exc)) from None
        return BudgetRule(spec, budget.a, budget.b, model or "judge")
    raise _fail(spec, f"unknown rule {kind!r}" if kind not in ("oracle",) else "oracle takes no parameter")
