"""Measures of a stop: recall at the stop, and cost at the stop (what a failed stop pays to reach the target), per
rule, from a ledger and its replay inputs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from tarsim.data.ledger import Ledger
from tarsim.effort_models import make_effort_model
from tarsim.metrics.recall_effort import recall_curve
from tarsim.stopping.evaluate import evaluate_stopping


def recall_at_stop(ledger: Ledger, rule: str, **options) -> float:
    """Recall when the stopping rule stops (see tarsim.stopping.evaluate_stopping for `options`)."""
    return evaluate_stopping(ledger, rule, **options).recall


def cost_at_stop(
    ledger: Ledger,
    rule: str,
    target_recall: float = 0.8,
    effort_model: str = "judge",
    **options,
) -> float | None:
    """Effort at the stop plus, if recall fell short of the target, the further review effort the ledger needed to
    reach it (a failed stop pays for continuing the review). None when the ledger never reaches the target."""
    model = make_effort_model(effort_model)
    outcome = evaluate_stopping(ledger, rule, effort_models=[effort_model], target_recall=target_recall, **options)
    spent = outcome.effort[model.name]
    if outcome.target_met:
        return spent
    curve = recall_curve(ledger, model)
    needed = curve.effort_to(target_recall)
    if needed is None:
        return None
    reviewed = float(curve.effort[outcome.position - 1]) if outcome.position else 0.0
    return spent + max(0.0, needed - reviewed)


def stop_measures(ledger: Ledger, rules: Iterable[str], target_recall: float = 0.8, **options) -> list[dict]:
    """Recall, effort (every model) and cost at stop of each rule: one row per rule."""
    rows = []
    for rule in rules:
        outcome = evaluate_stopping(ledger, rule, target_recall=target_recall, **options)
        row = outcome.to_row()
        row["cost_judge"] = cost_at_stop(ledger, rule, target_recall, "judge", **_replay_only(options))
        rows.append(row)
    return rows


def _replay_only(options: Mapping) -> dict:
    return {k: v for k, v in options.items() if k in ("docids", "qrels", "sample_costs")}
