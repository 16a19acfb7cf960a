"""The BMI implementation checked against its definition by inspecting ledgers (DESIGN.md §3)."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from tarsim.policies import SeedingChoice
from tarsim.simulator import ReviewConfig, review_topics


@pytest.fixture(scope="module")
def bmi_ledger_lines(demo, tmp_path_factory):
    out = tmp_path_factory.mktemp("bmi")
    review_topics(demo, ReviewConfig(until="exhausted", max_effort="600"), ["T2"], out)
    return [json.loads(line) for line in (out / "ledgers" / "T2.jsonl").read_text().splitlines()]


def test_batch_sizes_grow_from_one_by_a_tenth_rounded_up(bmi_ledger_lines):
    sizes = [r["batch_size"] for r in bmi_ledger_lines if r["type"] == "round"]
    assert sizes[:12] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13]
    for before, after in itertools.pairwise(sizes):
        assert after == before + math.ceil(before / 10)


def test_each_round_judges_its_whole_batch_before_retraining(bmi_ledger_lines):
    rounds = [r for r in bmi_ledger_lines if r["type"] == "round"]
    judged_per_round: dict[int, int] = {}
    for record in bmi_ledger_lines:
        if record["type"] == "judgment":
            judged_per_round[record["round"]] = judged_per_round.get(record["round"], 0) + 1
    for record in rounds[:-1]:  # the last batch may be cut by the effort budget
        assert judged_per_round[record["round"]] == record["batch_size"]


def test_exactly_100_fresh_presumed_nonrelevant_documents_per_round(bmi_ledger_lines):
    rounds = [r for r in bmi_ledger_lines if r["type"] == "round"]
    assert len(rounds) > 10
    for record in rounds:
        assert len(record["presumed_nonrelevant"]) == 100
        assert len(set(record["presumed_nonrelevant"])) == 100
    # redrawn every round: consecutive rounds do not share the same sample
    assert rounds[0]["presumed_nonrelevant"] != rounds[1]["presumed_nonrelevant"]


def test_query_seed_is_the_only_positive_of_the_first_round(bmi_ledger_lines):
    header = bmi_ledger_lines[0]
    first_round = next(r for r in bmi_ledger_lines if r["type"] == "round")
    assert header["type"] == "header" and header["query"]
    assert first_round["round"] == 1
    assert first_round["training_positives"] == 1  # the synthetic seed document (the topic's query)
    assert first_round["training_negatives"] == 100
    # the round record precedes every judgment
    assert bmi_ledger_lines[1]["type"] == "round"


def test_training_set_grows_by_the_judgments_of_the_previous_round(bmi_ledger_lines):
    rounds = [r for r in bmi_ledger_lines if r["type"] == "round"]
    judgments = [r for r in bmi_ledger_lines if r["type"] == "judgment"]
    for record in rounds[:6]:
        before = [j for j in judgments if j["round"] < record["round"]]
        assert record["training_positives"] == 1 + sum(j["label"] for j in before)
        assert record["training_negatives"] == 100 + sum(1 - j["label"] for j in before)


def test_no_document_is_presented_twice_and_ledger_ends(bmi_ledger_lines):
    docids = [r["docid"] for r in bmi_ledger_lines if r["type"] == "judgment"]
    assert len(docids) == len(set(docids)) == 600
    assert bmi_ledger_lines[-1]["type"] == "end"
    assert [r["seq"] for r in bmi_ledger_lines if r["type"] == "judgment"] == list(range(1, 601))


def test_seed_documents_are_judged_first(demo):
    relevant = sorted(d for d, g in demo.qrels["T1"].items() if g > 0)[:2]
    config = ReviewConfig(seeding=SeedingChoice("documents", tuple(relevant)), max_effort="20")
    ledger = review_topics(demo, config, ["T1"]).ledgers["T1"]
    assert ledger.docids[:2] == relevant
    assert list(ledger.round[:2]) == [0, 0]
    assert ledger.round[2] == 1


def test_random_seeding_judges_random_documents_until_the_first_relevant(demo):
    config = ReviewConfig(seeding=SeedingChoice("random"), max_effort="60", seed=4)
    ledger = review_topics(demo, config, ["T1"]).ledgers["T1"]
    seed_phase = np.flatnonzero(ledger.round == 0)
    assert len(seed_phase) >= 1
    assert ledger.label[seed_phase[-1]] == 1
    assert not ledger.label[seed_phase[:-1]].any()
    assert (ledger.round[len(seed_phase) :] >= 1).all()
