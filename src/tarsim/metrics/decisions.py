"""Precision, recall and F1 of binary relevance decisions (`topic docid label`) against qrels.

`evaluate_decisions(qrels, decisions, rel=1)` returns a flat dict of figures:
- `micro_precision`, `micro_recall`, `micro_f1`, `accuracy`: pooled over every (topic, docid) pair;
- `macro_precision`, `macro_recall`, `macro_f1`: means over the qrels topics with a relevant document
  (a topic without any decision scores 0, like a topic missing from a run);
- `majority_*`: the same figures for the baseline that gives every pair the most frequent true label
  (ties go to relevant), so a system can be read against "always say the common answer";
- `tp`, `fp`, `fn`, `tn`, `pairs`, `topics` (ints): the counts behind them; `majority_label` (0 or 1).
The pairs are every decided (topic, docid) plus every relevant qrels document left undecided (counted as a
decision of 0: a miss). A document absent from the qrels is non-relevant; relevant means grade >= rel.
Zero divisions (no positive decision, no relevant document) give 0, as scikit-learn's zero_division=0.
`known_decisions` first sets aside the decisions on a topic or document the benchmark does not have (a typo or
another data set's ids), which would otherwise count as false positives or true negatives.
"""

from __future__ import annotations

import math
from collections.abc import Container, Mapping
from dataclasses import dataclass

import numpy as np

from tarsim.errors import ConfigError


def _pairs(qrels: Mapping[str, Mapping[str, int]], decisions: Mapping[str, Mapping[str, int]], rel: int):
    """(topic, truth, prediction) for every decided pair and every undecided relevant document."""
    rows: list[tuple[str, int, int]] = []
    for topic in sorted(set(decisions) | set(qrels)):
        judged = qrels.get(topic, {})
        decided = decisions.get(topic, {})
        for docid in sorted(set(decided) | {d for d, grade in judged.items() if grade >= rel}):
            rows.append((topic, int(judged.get(docid, 0) >= rel), int(decided.get(docid, 0) == 1)))
    return rows


def _prf(truth: np.ndarray, prediction: np.ndarray) -> tuple[float, float, float]:
    from sklearn.metrics import precision_recall_fscore_support  # imported here: slow, and only needed here

    precision, recall, f1, _ = precision_recall_fscore_support(
        truth, prediction, average="binary", pos_label=1, labels=[0, 1], zero_division=0
    )
    return float(precision), float(recall), float(f1)


def _figures(prefix: str, topics: np.ndarray, truth: np.ndarray, prediction: np.ndarray, macro_topics: list[str]):
    figures: dict[str, float] = {}
    (figures[f"{prefix}micro_precision"], figures[f"{prefix}micro_recall"], figures[f"{prefix}micro_f1"]) = _prf(
        truth, prediction
    )
    figures[f"{prefix}accuracy"] = float(np.mean(truth == prediction)) if len(truth) else 0.0
    per_topic = [_prf(truth[topics == topic], prediction[topics == topic]) for topic in macro_topics]
    for index, name in enumerate(("precision", "recall", "f1")):
        values = [scores[index] for scores in per_topic]
        figures[f"{prefix}macro_{name}"] = math.fsum(values) / len(values) if values else 0.0
    return figures


@dataclass(frozen=True)
class LeftOut:
    """How many decisions `known_decisions` set aside, of how many."""

    unknown_topic: int
    """decisions on a topic that is not one of the benchmark's (evaluated) topics."""
    unknown_document: int
    """decisions, on a known topic, naming a document absent from the corpus."""
    total: int
    """all decisions read."""


def known_decisions(
    decisions: Mapping[str, Mapping[str, int]], topics: Container[str], documents: Container[str] | None = None
) -> tuple[dict[str, dict[str, int]], LeftOut]:
    """The decisions on a topic of `topics` and (when given) a document of `documents`, and what was set aside.

    Such decisions say nothing about the benchmark: counted, a positive one would be a false positive and a
    negative one a true negative (padding the accuracy) for an id mismatch rather than for the system.
    """
    kept: dict[str, dict[str, int]] = {}
    unknown_topic = unknown_document = total = 0
    for topic, decided in decisions.items():
        total += len(decided)
        if topic not in topics:
            unknown_topic += len(decided)
            continue
        rows = {docid: label for docid, label in decided.items() if documents is None or docid in documents}
        unknown_document += len(decided) - len(rows)
        if rows:
            kept[topic] = rows
    return kept, LeftOut(unknown_topic, unknown_document, total)


def evaluate_decisions(
    qrels: Mapping[str, Mapping[str, int]], decisions: Mapping[str, Mapping[str, int]], rel: int = 1
) -> dict[str, float | int]:
    """Micro and macro precision/recall/F1 (and accuracy) of binary decisions, plus the majority baseline."""
    if isinstance(rel, bool) or not isinstance(rel, int) or rel < 1:
        raise ConfigError(f"rel must be an integer >= 1, got {rel!r}")
    rows = _pairs(qrels, decisions, rel)
    topics = np.array([row[0] for row in rows], dtype=object)
    truth = np.array([row[1] for row in rows], dtype=np.int64)
    prediction = np.array([row[2] for row in rows], dtype=np.int64)
    macro_topics = sorted(t for t, judged in qrels.items() if any(g >= rel for g in judged.values()))
    figures = _figures("", topics, truth, prediction, macro_topics)
    majority = int(2 * int(truth.sum()) >= len(truth)) if len(truth) else 0
    figures.update(_figures("majority_", topics, truth, np.full_like(truth, majority), macro_topics))
    counts: dict[str, int] = {
        "majority_label": majority,
        "tp": int(np.sum((truth == 1) & (prediction == 1))),
        "fp": int(np.sum((truth == 0) & (prediction == 1))),
        "fn": int(np.sum((truth == 1) & (prediction == 0))),
        "tn": int(np.sum((truth == 0) & (prediction == 0))),
        "pairs": len(truth),
        "topics": len(macro_topics),
    }
    return {**figures, **counts}
