"""Replaying a stopping rule on a finished ledger: where it stops, the recall and the effort at that point."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from tarsim.data.ledger import EFFORT_KEYS, Ledger
from tarsim.data.score_log import ScoreLog, logged_scores
from tarsim.effort_models import make_effort_model
from tarsim.errors import ConfigError
from tarsim.metrics.recall_effort import recall_curve
from tarsim.stopping.rules import (
    ReplayContext,
    StoppingRule,
    missing_scores_message,
    needs_scores,
    parse_stopping_rule,
)

DEFAULT_STOP_EFFORT_MODELS = ("judge", "sent", "lambda:0.5", "seconds")
DEFAULT_TARGET_RECALL = 0.8
SAMPLE_COST_EXACT = "exact"
SAMPLE_COST_ESTIMATED = "estimated"
SAMPLE_COST_OTHER_RELEVANCE = "estimated from the other relevance"
SAMPLE_COSTS = (SAMPLE_COST_EXACT, SAMPLE_COST_ESTIMATED, SAMPLE_COST_OTHER_RELEVANCE)
"""How a `target:T` sample's effort was costed, from the most to the least exact: every sampled document costed
by the ledger or by `sample_costs`; some estimated from the ledger's judgments of the same relevance; some from
those of the other relevance (the ledger judged no document of theirs: e.g. a review that presented only relevant
ones, whose non-relevant sampled documents get the relevant mean)."""


@dataclass(frozen=True)
class StopOutcome:
    """What a stopping rule did on one ledger.

    `stopped` is False when the rule had not fired by the ledger's end: position, recall and effort are then those
    of the whole ledger (recall is exact, since a review that went on could only find more; effort a lower bound).
    For `target:T`, `position` counts the review's judgments and `effort` adds the sample's documents that the
    review had not presented by then (`sample_size` documents were sampled); `sample_cost` says how those were
    costed (one of SAMPLE_COSTS), and `sample_effort_estimated` whether any was estimated rather than exact.
    """

    rule: str
    topic: str
    stopped: bool
    position: int
    recall: float
    effort: dict[str, float]
    target_recall: float
    target_met: bool
    sample_size: int | None = None
    sample_effort_estimated: bool = False
    sample_cost: str | None = None
    config: dict = field(default_factory=dict, repr=False, compare=False)
    sample_unseen: tuple[str, ...] = field(default=(), repr=False, compare=False)  # sampled, never presented by then

    def to_row(self) -> dict:
        """A flat dict (one `effort_<model>` column per effort model) for tables."""
        row = {
            "topic": self.topic,
            "rule": self.rule,
            "stopped": self.stopped,
            "position": self.position,
            "recall": self.recall,
            "target_recall": self.target_recall,
            "target_met": self.target_met,
        }
        row.update({f"effort_{model}": value for model, value in self.effort.items()})
        row["sample_size"] = self.sample_size
        row["sample_cost"] = self.sample_cost
        return row


def _sample_increments(
    ledger: Ledger, docids: Sequence[str], relevant: Mapping[str, int], costs: Mapping[str, Mapping[str, float]] | None
) -> tuple[dict[str, float], str]:
    """Effort increments of judging sample documents the ledger does not cost: given costs, else an estimate; and
    how they were costed (one of SAMPLE_COSTS, the least exact case that occurred).

    The estimate is the ledger's mean increment over judgments of the same relevance (relevant or not), one
    judgment each; when the ledger has no judgment of that relevance, the mean over all its judgments (those of
    the other relevance), which can be far off (non-relevant documents are often longer).
    """
    totals = dict.fromkeys(EFFORT_KEYS, 0.0)
    how = SAMPLE_COST_EXACT
    truth = ledger.truth > 0
    for docid in docids:
        if costs is not None and docid in costs:
            for key in EFFORT_KEYS:
                totals[key] += float(costs[docid].get(key, 0.0))
            continue
        same = truth == (relevant.get(docid, 0) > 0)
        mask = same if same.any() else np.ones(len(ledger), dtype=bool)
        case = SAMPLE_COST_ESTIMATED if same.any() else SAMPLE_COST_OTHER_RELEVANCE
        how = max(how, case, key=SAMPLE_COSTS.index)
        for key in EFFORT_KEYS:
            totals[key] += 1.0 if key == "judge" else (float(ledger.effort[key][mask].mean()) if mask.any() else 0.0)
    return totals, how


def evaluate_stopping(
    ledger: Ledger,
    rule: str | StoppingRule,
    *,
    docids: Sequence[str] | None = None,
    qrels: Mapping[str, Mapping[str, int]] | None = None,
    effort_models: Sequence[str] = DEFAULT_STOP_EFFORT_MODELS,
    target_recall: float = DEFAULT_TARGET_RECALL,
    sample_costs: Mapping[str, Mapping[str, float]] | None = None,
) -> StopOutcome:
    """Replay `rule` on a finished ledger. `docids` (the collection's, in collection order) and `qrels` are needed
    only by `target:T`, which draws its sample from them; `sample_costs` (docid -> effort increments) prices the
    sampled documents the review never presented (default: estimated from the ledger, flagged in `sample_cost`)."""
    rule = parse_stopping_rule(rule) if isinstance(rule, str) else rule
    scores = replay_scores(ledger, rule)
    if docids is None and scores is not None and scores.docids is not None:
        docids = scores.docids  # the collection's order, as the score log records it
    context = ReplayContext(docids=docids, qrels=qrels, scores=scores)
    fired = rule.stop_position(ledger, context)
    position = fired if fired is not None else len(ledger)
    curve = recall_curve(ledger, "judge")
    recall = float(curve.recall[position - 1]) if position else 0.0
    increments = {key: float(ledger.effort[key][:position].sum()) for key in EFFORT_KEYS}
    sample_size = None
    sample_cost = None
    samplers = sampling_rules(rule)  # also inside any(...), all(...), notbefore
    if samplers:
        sampled = list(dict.fromkeys(d for sampler in samplers for d in _drawn_by(sampler, ledger, context, position)))
        sample_size = len(sampled)
        seen = set(ledger.docids[:position])
        unseen = [docid for docid in sampled if docid not in seen]
        extra, sample_cost = _sample_increments(ledger, unseen, qrels.get(ledger.topic, {}), sample_costs)
        increments = {key: increments[key] + extra[key] for key in EFFORT_KEYS}
    increments["time"] = float(ledger.time[position - 1]) if position else 0.0  # `clock`: the clock at the stop
    effort = {}
    for spec in effort_models:
        model = make_effort_model(spec)
        effort[model.name] = float(model.costs({k: np.array([v]) for k, v in increments.items()})[0])
    return StopOutcome(
        rule=rule.spec,
        topic=ledger.topic,
        stopped=fired is not None,
        position=position,
        recall=recall,
        effort=effort,
        target_recall=target_recall,
        target_met=recall >= target_recall - 1e-12,
        sample_size=sample_size,
        sample_effort_estimated=sample_cost not in (None, SAMPLE_COST_EXACT),
        sample_cost=sample_cost,
        sample_unseen=tuple(unseen) if samplers else (),
        config=ledger.header.get("config", {}),
    )


def _drawn_by(sampler: StoppingRule, ledger: Ledger, context: ReplayContext, position: int) -> list[str]:
    """The documents a rule's sample holds at the stop: all of a sample drawn before review (target:T, qbcb), and of
    one drawn during it (autostop, whose sample says when each was drawn) those drawn by `position` judgments."""
    sample = sampler.sample(ledger, context)
    drawn_at = getattr(sample, "drawn_at", ())
    if not drawn_at:
        return list(sample.sampled)
    return [docid for docid, at in zip(sample.sampled, drawn_at, strict=True) if at <= position]


def sampling_rules(rule: StoppingRule) -> list[StoppingRule]:
    """The rules in a rule (also inside any(...), all(...) and notbefore) that draw a random sample before review:
    those with a `sample(ledger, context)` method whose result's `.sampled` docids are judged (target:T, qbcb)."""
    if callable(getattr(rule, "sample", None)):
        return [rule]
    return [sampler for inner in getattr(rule, "rules", ()) for sampler in sampling_rules(inner)]


def replay_scores(ledger: Ledger, rule: StoppingRule) -> ScoreLog | None:
    """The score log a rule replays with: the review's (logged_scores) when the rule reads scores, else None; a
    score-based rule on a review that logged none is refused in one line naming the fix."""
    if not needs_scores(rule):
        return None
    scores = logged_scores(ledger)
    if scores is None:
        raise ConfigError(missing_scores_message(rule.spec, ledger))
    return scores


def recorded_rules(ledger: Ledger) -> list[str]:
    """The stopping rules recorded in the ledger header's configuration (`config.stopping`; none in a sweep's)."""
    return list(ledger.header.get("config", {}).get("stopping", []))


def evaluate_recorded_rules(ledger: Ledger, **options) -> list[StopOutcome]:
    """Replay every rule recorded in the ledger header's configuration (`config.stopping`)."""
    return [evaluate_stopping(ledger, spec, **options) for spec in recorded_rules(ledger)]
