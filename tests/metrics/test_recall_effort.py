"""Recall@E, curves, effort-to-recall and WSS against a naive re-implementation over raw ledger JSON."""

from __future__ import annotations

import json

import pytest

from tarsim.data import read_ledger
from tarsim.metrics import recall_at_effort, summary_row, wss
from tarsim.simulator import ReviewConfig, review_topics


def naive_recall_at(lines: list[dict], cost, budget: float) -> float:
    header = lines[0]
    spent, found = 0.0, set()
    for record in lines:
        if record["type"] != "judgment":
            continue
        spent += cost(record["effort"])
        if spent > budget + 1e-9:
            break
        if record["truth"] > 0:
            found.add(record["docid"])
    return len(found) / header["relevant"]


COSTS = {
    "judge": lambda e: e["judge"],
    "sent": lambda e: e["sent"],
    "lambda:0.3": lambda e: 0.7 * e["judge"] + 0.3 * e["sent"],
    "seconds": lambda e: e["seconds"],
}


@pytest.fixture(scope="module")
def ledger_path(demo, tmp_path_factory):
    out = tmp_path_factory.mktemp("recall")
    review_topics(demo, ReviewConfig(feedback="document", until="exhausted", max_effort="700"), ["T3"], out)
    return out / "ledgers" / "T3.jsonl"


@pytest.mark.parametrize("model", sorted(COSTS))
def test_recall_at_effort_grid_matches_a_naive_count(ledger_path, model):
    lines = [json.loads(line) for line in ledger_path.read_text().splitlines()]
    ledger = read_ledger(ledger_path)
    rows = recall_at_effort(ledger, model)
    assert [(r["a"], r["b"]) for r in rows] == [(a, b) for a in (1, 2, 4) for b in (0, 100, 1000)]
    spent = sum(COSTS[model](r["effort"]) for r in lines if r["type"] == "judgment")
    stopped_by_budget = lines[-1]["reason"].startswith("effort budget")
    unknown = 0
    for row in rows:
        assert row["effort"] == row["a"] * ledger.relevant + row["b"]
        expected = naive_recall_at(lines, COSTS[model], row["effort"])
        if stopped_by_budget and row["effort"] > spent and expected < 1:
            assert row["recall"] is None  # beyond the budget: unknown, not the recall reached so far
            unknown += 1
        else:
            assert row["recall"] == pytest.approx(expected, abs=1e-12)
        assert row["effort_model"] == model
    if model == "judge":
        assert unknown > 0  # the 700-judgment budget cuts this review short of 4R+1000


def test_docs_to_recall_levels_and_wss(ledger_path):
    lines = [json.loads(line) for line in ledger_path.read_text().splitlines()]
    judgments = [r for r in lines if r["type"] == "judgment"]
    relevant = lines[0]["relevant"]
    ledger = read_ledger(ledger_path)
    row = summary_row(ledger)
    for level, key in ((0.8, "docs_to_80"), (0.95, "docs_to_95")):
        found = 0
        expected = None
        for index, record in enumerate(judgments, start=1):
            found += record["truth"] > 0
            if found >= level * relevant:
                expected = index
                break
        assert row[key] == expected
    n = lines[0]["collection_size"]
    if row["docs_to_95"] is not None:
        assert wss(ledger, 0.95) == pytest.approx((n - row["docs_to_95"]) / n - 0.05)


def test_recall_counts_a_relevant_document_once_and_uses_qrels_when_given(ledger_path, demo):
    ledger = read_ledger(ledger_path)
    from tarsim.metrics import recall_curve

    from_header = recall_curve(ledger)
    from_qrels = recall_curve(ledger, qrels=demo.qrels)
    assert (from_header.recall == from_qrels.recall).all()
    assert from_header.recall[-1] <= 1.0
    assert (abs(from_header.recall - sorted(from_header.recall)) < 1e-15).all()  # non-decreasing
