"""Recall-effort measures computed from a ledger alone (and optionally the qrels): curves, Recall@E at aR+b,
effort to reach a recall level, and WSS.

Recall counts relevant documents *presented* (whatever the reviewer said; the sentence-level paper's definition),
or, with `recall="found"`, relevant documents presented *and labelled relevant by the reviewer* (they differ under
a fallible reviewer or a sentence that hides its document's relevance); each document once, over R, the topic's
relevant documents in the collection. Effort is the cumulative cost of the ledger's judgments under an effort
model (tarsim.effort_models); Recall@E counts the relevant documents whose presentation finished within E.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.data.qrels import Qrels
from tarsim.effort_models import EffortModel, make_effort_model
from tarsim.errors import ConfigError

GRID_A = (1, 2, 4)
GRID_B = (0, 100, 1000)
RECALL_LEVELS = (0.8, 0.95, 1.0)
RECALL_KINDS = ("presented", "found")
"""What a relevant document needs to count toward recall: to be presented, or presented and labelled relevant."""


def check_recall_kind(recall: str) -> str:
    """`recall` itself, or ConfigError naming the accepted kinds."""
    if recall not in RECALL_KINDS:
        raise ConfigError(f"recall {recall!r} unknown; accepted: {', '.join(RECALL_KINDS)}")
    return recall


@dataclass(frozen=True)
class RecallCurve:
    """Cumulative effort after each judgment and the recall reached by then."""

    effort: np.ndarray
    recall: np.ndarray
    relevant: int
    known_until: float = math.inf
    """The effort up to which recall is known: what the review spent when its effort budget stopped it short of
    full recall (it says nothing about recall at a larger effort), else unbounded."""

    def recall_at(self, effort: float) -> float:
        """Recall reached within `effort` (0 before the first judgment), as if the review went no further."""
        index = int(np.searchsorted(self.effort, effort + 1e-9, side="right"))
        return float(self.recall[index - 1]) if index else 0.0

    def known_recall_at(self, effort: float) -> float | None:
        """Recall@E: recall_at(effort), or None where `effort` lies beyond what a budget-stopped review spent."""
        return None if effort > self.known_until + 1e-9 else self.recall_at(effort)

    def known_recall_on(self, efforts: np.ndarray) -> np.ndarray:
        """known_recall_at at each of many efforts (a plot's grid): NaN where recall is unknown."""
        index = np.searchsorted(self.effort, efforts + 1e-9, side="right")
        values = np.where(index > 0, self.recall[np.maximum(index - 1, 0)], 0.0) if len(self.effort) else 0.0 * efforts
        return np.where(efforts > self.known_until + 1e-9, np.nan, values)

    def effort_to(self, recall: float) -> float | None:
        """Least effort at which `recall` was reached, or None if the ledger never reaches it."""
        reached = np.flatnonzero(self.recall >= recall - 1e-12)
        return float(self.effort[reached[0]]) if reached.size else None


def _model(effort_model: str | EffortModel) -> EffortModel:
    return make_effort_model(effort_model) if isinstance(effort_model, str) else effort_model


def relevant_count(ledger: Ledger, qrels: Qrels | None = None) -> int:
    """R: from the qrels when given, else the header's count (recorded from the qrels when the review ran)."""
    if qrels is None:
        return ledger.relevant
    return sum(1 for grade in qrels.get(ledger.topic, {}).values() if grade > 0)


def first_relevant_presentations(ledger: Ledger, qrels: Qrels | None = None, recall: str = "presented") -> np.ndarray:
    """0/1 per judgment: 1 where a relevant document first counts toward recall.

    `presented`: its first presentation. `found`: its first presentation the reviewer labelled relevant.
    """
    check_recall_kind(recall)
    if qrels is None:
        relevant = ledger.truth > 0
    else:
        judged = qrels.get(ledger.topic, {})
        relevant = np.array([judged.get(docid, 0) > 0 for docid in ledger.docids], dtype=bool)
    counts = relevant if recall == "presented" else relevant & (ledger.label > 0)
    docids = np.asarray(ledger.docids, dtype=object)
    is_first = np.zeros(len(ledger), dtype=bool)
    if counts.any():
        rows = np.flatnonzero(counts)
        _, first = np.unique(docids[rows], return_index=True)
        is_first[rows[first]] = True
    return is_first.astype(np.int64)


def recall_curve(
    ledger: Ledger, effort_model: str | EffortModel = "judge", qrels: Qrels | None = None, recall: str = "presented"
) -> RecallCurve:
    """The recall-effort curve of a ledger under one effort model (recall `presented` or `found`)."""
    model = _model(effort_model)
    relevant = relevant_count(ledger, qrels)
    effort = np.cumsum(model.costs(ledger.effort_columns)) if len(ledger) else np.zeros(0)
    found = np.cumsum(first_relevant_presentations(ledger, qrels, recall)) if len(ledger) else np.zeros(0)
    reached = found / relevant if relevant else np.zeros_like(found, dtype=np.float64)
    known_until = math.inf
    if _cut_short(ledger) and len(ledger) and reached[-1] < 1.0:
        known_until = float(effort[-1])
    return RecallCurve(effort.astype(np.float64), reached.astype(np.float64), relevant, known_until)


def _cut_short(ledger: Ledger) -> bool:
    """Whether the review would have gone on past its last judgment: its effort budget (--max-effort) was spent, or
    it has no end record yet (a review stepped round by round and not run to its end)."""
    if ledger.end is None:
        return True
    return str(ledger.end.get("reason", "")).startswith("effort budget")


def recall_at_effort(
    ledger: Ledger,
    effort_model: str | EffortModel = "judge",
    grid_a: Sequence[float] = GRID_A,
    grid_b: Sequence[float] = GRID_B,
    qrels: Qrels | None = None,
    recall: str = "presented",
) -> list[dict]:
    """Recall@E at E = aR + b for each (a, b) of the grid.

    Rows of topic, strategy, effort_model, a, b, effort, recall; recall is None where E lies beyond what a
    review stopped by its effort budget spent (and it had not yet found every relevant document).
    """
    model = _model(effort_model)
    curve = recall_curve(ledger, model, qrels, recall)
    rows = []
    for a in grid_a:
        for b in grid_b:
            effort = a * curve.relevant + b
            rows.append(
                {
                    "topic": ledger.topic,
                    "strategy": ledger.strategy,
                    "effort_model": model.name,
                    "a": a,
                    "b": b,
                    "effort": effort,
                    "recall": curve.known_recall_at(effort),
                }
            )
    return rows


def effort_to_recall(
    ledger: Ledger,
    recall: float,
    effort_model: str | EffortModel = "judge",
    qrels: Qrels | None = None,
    kind: str = "presented",
) -> float | None:
    """Effort spent when `recall` (of `kind`) is first reached (None if never); under `judge`, documents reviewed."""
    return recall_curve(ledger, effort_model, qrels, kind).effort_to(recall)


def wss(ledger: Ledger, recall: float = 0.95, qrels: Qrels | None = None, kind: str = "presented") -> float | None:
    """Work saved over sampling (Cohen et al. 2006): (N - n_r) / N - (1 - r), n_r the judgments to reach recall r."""
    reviewed = effort_to_recall(ledger, recall, "judge", qrels, kind)
    if reviewed is None:
        return None
    n = ledger.collection_size
    return (n - reviewed) / n - (1.0 - recall)


def summary_row(ledger: Ledger, levels: Iterable[float] = RECALL_LEVELS, recall: str = "presented") -> dict:
    """Documents reviewed to reach each recall level, WSS@95 and final recall (of kind `recall`) for one ledger."""
    curve = recall_curve(ledger, "judge", recall=recall)
    row: dict = {
        "topic": ledger.topic,
        "strategy": ledger.strategy,
        "relevant": curve.relevant,
        "collection_size": ledger.collection_size,
        "judgments": len(ledger),
        "review_seconds": float(ledger.time.max()) if len(ledger) else 0.0,
        "final_recall": float(curve.recall[-1]) if len(ledger) else 0.0,
    }
    for level in levels:
        reached = curve.effort_to(level)
        row[f"docs_to_{round(level * 100)}"] = None if reached is None else int(reached)
    row["wss_95"] = wss(ledger, 0.95, kind=recall)
    return row
