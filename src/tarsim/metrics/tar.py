"""TAR evaluation measures of one ledger: WSS@r, RRF@x%, ERF@x%, (average) time to discovery, effort to reach a
recall level in any effort model, recall and cost at a stopping rule's stop.

RRF, ERF and ATD follow ASReview Insights (asreview/asreview-insights, `metrics.py` and `algorithms.py`):
- RRF@x (relevant records found): recall after screening floor(x% of N) records, N the collection size.
- ERF@x (extra relevant found): (found(k) - round(linspace(0, R, N))[k - 1]) / R at k = floor(x% of N), i.e.
  relevant records found beyond what screening in random order is expected to find (numpy rounding, half to even).
- TD of a relevant record: its 1-based position in screening order; ATD: the mean TD over relevant records found.
A record the ledger never presented is treated as never found (as ASReview pads an unfinished simulation).
Recall counts relevant documents presented (tarsim.metrics.recall_effort); positions count judgments.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.data.qrels import Qrels
from tarsim.effort_models import EffortModel
from tarsim.metrics.recall_effort import (
    effort_to_recall,
    first_relevant_presentations,
    recall_curve,
    relevant_count,
    wss,
)


def _found(ledger: Ledger, qrels: Qrels | None) -> np.ndarray:
    return np.cumsum(first_relevant_presentations(ledger, qrels)) if len(ledger) else np.zeros(0, dtype=np.int64)


def _screened(ledger: Ledger, percent: float) -> int:
    if not 0.0 <= percent <= 100.0:
        raise ValueError(f"percent must be in [0, 100], got {percent}")
    return math.floor(percent / 100.0 * ledger.collection_size + 1e-9)


def _found_after(found: np.ndarray, k: int) -> int:
    """Relevant found after k records screened; past the ledger's end nothing more is found."""
    if k <= 0 or not len(found):
        return 0
    return int(found[min(k, len(found)) - 1])


def rrf(ledger: Ledger, percent: float = 10.0, qrels: Qrels | None = None) -> float:
    """Relevant records found (recall) after screening `percent`% of the collection (ASReview's RRF@x)."""
    relevant = relevant_count(ledger, qrels)
    return _found_after(_found(ledger, qrels), _screened(ledger, percent)) / relevant if relevant else 0.0


def erf(ledger: Ledger, percent: float = 10.0, qrels: Qrels | None = None) -> float:
    """Extra relevant records found after screening `percent`% of the collection, as a share of R (ASReview's ERF)."""
    relevant = relevant_count(ledger, qrels)
    k = _screened(ledger, percent)
    if not relevant or k <= 0:
        return 0.0
    random_found = np.round(np.linspace(0, relevant, ledger.collection_size))[k - 1]
    return float(_found_after(_found(ledger, qrels), k) - random_found) / relevant


def time_to_discovery(
    ledger: Ledger, effort_model: str | EffortModel = "judge", qrels: Qrels | None = None
) -> dict[str, float]:
    """docid -> effort spent when each relevant document was first presented (under `judge`: its 1-based position)."""
    curve = recall_curve(ledger, effort_model, qrels)
    first = first_relevant_presentations(ledger, qrels)
    return {ledger.docids[i]: float(curve.effort[i]) for i in np.flatnonzero(first)}


def average_time_to_discovery(
    ledger: Ledger, effort_model: str | EffortModel = "judge", qrels: Qrels | None = None
) -> float | None:
    """ATD: mean time to discovery over the relevant documents found (None when none was found)."""
    times = list(time_to_discovery(ledger, effort_model, qrels).values())
    return math.fsum(times) / len(times) if times else None


def recall_at_stop(ledger: Ledger, rule: str, **options) -> float:
    """Recall when the stopping rule stops (see tarsim.stopping.evaluate_stopping for `options`)."""
    from tarsim.stopping import evaluate_stopping

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
    from tarsim.effort_models import make_effort_model
    from tarsim.stopping import evaluate_stopping

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


def tar_measures(
    ledger: Ledger,
    *,
    effort_model: str = "judge",
    wss_levels: Sequence[float] = (0.95,),
    percents: Sequence[float] = (10.0,),
    recall_levels: Sequence[float] = (0.8, 0.95, 1.0),
    qrels: Qrels | None = None,
) -> dict[str, float | None]:
    """The standard TAR measures of one ledger as a flat dict (wss_95, rrf_10, erf_10, atd, effort_to_95, ...)."""
    row: dict[str, float | None] = {}
    for level in wss_levels:
        row[f"wss_{_label(level * 100)}"] = wss(ledger, level, qrels)
    for percent in percents:
        row[f"rrf_{_label(percent)}"] = rrf(ledger, percent, qrels)
        row[f"erf_{_label(percent)}"] = erf(ledger, percent, qrels)
    row["atd"] = average_time_to_discovery(ledger, effort_model, qrels)
    for level in recall_levels:
        row[f"effort_to_{_label(level * 100)}"] = effort_to_recall(ledger, level, effort_model, qrels)
    return row


def stop_measures(ledger: Ledger, rules: Iterable[str], target_recall: float = 0.8, **options) -> list[dict]:
    """Recall, effort (every model) and cost at stop of each rule: one row per rule."""
    from tarsim.stopping import evaluate_stopping

    rows = []
    for rule in rules:
        outcome = evaluate_stopping(ledger, rule, target_recall=target_recall, **options)
        row = outcome.to_row()
        row["cost_judge"] = cost_at_stop(ledger, rule, target_recall, "judge", **_replay_only(options))
        rows.append(row)
    return rows


def _replay_only(options: Mapping) -> dict:
    return {k: v for k, v in options.items() if k in ("docids", "qrels", "sample_costs")}


def _label(value: float) -> str:
    return f"{value:g}".replace(".", "_")
