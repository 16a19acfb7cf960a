"""Precision/recall/F1 of binary decisions, checked against counts made independently with sets."""

from __future__ import annotations

import numpy as np
import pytest

from tarsim.data import read_decisions
from tarsim.errors import ConfigError
from tarsim.metrics import evaluate_decisions


def by_sets(qrels, decisions, rel=1):
    """Independent reference: TP/FP/FN from set arithmetic, F1 from its definition."""
    relevant = {(t, d) for t, j in qrels.items() for d, g in j.items() if g >= rel}
    said_yes = {(t, d) for t, j in decisions.items() for d, label in j.items() if label == 1}
    tp, fp, fn = len(relevant & said_yes), len(said_yes - relevant), len(relevant - said_yes)
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return tp, fp, fn, p, r, (2 * p * r / (p + r) if p + r else 0.0)


def random_case(seed):
    rng = np.random.default_rng(seed)
    qrels, decisions = {}, {}
    for t in range(8):
        docs = [f"d{i}" for i in rng.choice(60, size=30, replace=False)]
        qrels[f"t{t}"] = {d: int(rng.choice([0, 0, 1, 2])) for d in docs[:20]}
        if t != 5:  # topic t5 has no decisions at all
            decisions[f"t{t}"] = {d: int(rng.integers(0, 2)) for d in docs[5:]}
    decisions["unjudged"] = {"x": 1}
    return qrels, decisions


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("rel", [1, 2])
def test_micro_figures_match_set_arithmetic(seed, rel):
    qrels, decisions = random_case(seed)
    figures = evaluate_decisions(qrels, decisions, rel=rel)
    tp, fp, fn, p, r, f1 = by_sets(qrels, decisions, rel)
    assert (figures["tp"], figures["fp"], figures["fn"]) == (tp, fp, fn)
    assert figures["micro_precision"] == pytest.approx(p, abs=1e-12)
    assert figures["micro_recall"] == pytest.approx(r, abs=1e-12)
    assert figures["micro_f1"] == pytest.approx(f1, abs=1e-12)


def test_macro_figures_average_topics_with_a_relevant_document():
    qrels, decisions = random_case(1)
    figures = evaluate_decisions(qrels, decisions)
    topics = [t for t, j in qrels.items() if any(g >= 1 for g in j.values())]
    per_topic = [by_sets({t: qrels[t]}, {t: decisions.get(t, {})}) for t in topics]
    assert figures["topics"] == len(topics)
    assert figures["macro_recall"] == pytest.approx(np.mean([x[4] for x in per_topic]), abs=1e-12)
    assert figures["macro_f1"] == pytest.approx(np.mean([x[5] for x in per_topic]), abs=1e-12)


def test_majority_baseline():
    qrels = {"a": {"1": 1, "2": 0, "3": 0, "4": 0}}
    decisions = {"a": {"1": 1, "2": 1, "3": 0, "4": 0}}
    figures = evaluate_decisions(qrels, decisions)
    assert figures["majority_label"] == 0.0
    assert figures["majority_accuracy"] == 0.75 and figures["majority_micro_f1"] == 0.0
    assert figures["accuracy"] == 0.75 and figures["micro_precision"] == 0.5 and figures["micro_recall"] == 1.0
    mostly_relevant = evaluate_decisions({"a": {"1": 1, "2": 1, "3": 0}}, {"a": {"1": 0, "2": 0, "3": 0}})
    assert mostly_relevant["majority_label"] == 1.0 and mostly_relevant["majority_micro_recall"] == 1.0


def test_reads_a_decisions_file(tmp_path):
    path = tmp_path / "decisions.txt"
    path.write_text("a 1 1\na 2 0\nb 9 1\n")
    figures = evaluate_decisions({"a": {"1": 1, "3": 1}}, read_decisions(path))
    assert figures["tp"] == 1 and figures["fp"] == 1 and figures["fn"] == 1 and figures["tn"] == 1


def test_rejects_a_bad_threshold():
    with pytest.raises(ConfigError, match="rel must be"):
        evaluate_decisions({}, {}, rel=0)


def test_counts_are_ints():
    figures = evaluate_decisions({"a": {"1": 1, "3": 1}}, {"a": {"1": 1, "2": 0}})
    counts = {name: figures[name] for name in ("tp", "fp", "fn", "tn", "pairs", "topics", "majority_label")}
    assert counts == {"tp": 1, "fp": 0, "fn": 1, "tn": 1, "pairs": 3, "topics": 1, "majority_label": 1}
    assert all(type(value) is int for value in counts.values()), counts


def test_known_decisions_sets_aside_unknown_topics_and_documents():
    from tarsim.metrics.decisions import LeftOut, known_decisions

    decisions = {"q1": {"p2": 1, "nosuchdoc": 1}, "q42": {"p1": 1, "p2": 0}, "q3": {"nosuchdoc": 0}}
    kept, left_out = known_decisions(decisions, {"q1", "q3"}, {"p1", "p2"})
    assert kept == {"q1": {"p2": 1}}
    assert left_out == LeftOut(unknown_topic=2, unknown_document=2, total=5)
    kept, left_out = known_decisions(decisions, {"q1", "q3"})  # no corpus given: documents are not checked
    assert kept == {"q1": {"p2": 1, "nosuchdoc": 1}, "q3": {"nosuchdoc": 0}} and left_out.unknown_document == 0
