"""Feedback strategies, sentence oracles, effort increments, reviewers and determinism on real and demo data."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import demo_simulation, shared_dataset
from tarsim.datasets import load_dataset
from tarsim.features.build import build_features
from tarsim.simulator import STRATEGIES, ReviewConfig, review_topics, strategy_config
from tarsim.simulator.oracle import classifier_labels


@pytest.fixture(scope="module")
def antihistamines():
    return load_dataset(shared_dataset("srd", "Cohen_2006_Antihistamines"))


@pytest.fixture(scope="module")
def antihistamine_features(antihistamines):
    return build_features(antihistamines.collection)


@pytest.mark.slow
@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
@pytest.mark.parametrize("oracle", ["inherit", "classifier"])
def test_every_strategy_reaches_full_recall_on_a_real_review(antihistamines, antihistamine_features, strategy, oracle):
    topic = next(iter(antihistamines.topics))
    config = strategy_config(strategy, sentence_oracle=oracle)
    ledger = review_topics(antihistamines, config, [topic], features=antihistamine_features).ledgers[topic]
    relevant = {d for d, g in antihistamines.qrels[topic].items() if g > 0}
    presented = set(ledger.docids)
    assert relevant <= presented
    assert ledger.end["reason"] == "all relevant documents presented"
    assert ledger.strategy == strategy
    offsets = antihistamine_features.sentence_offsets
    counts = {d: int(offsets[i + 1] - offsets[i]) for i, d in enumerate(antihistamines.collection.docids)}
    if config.feedback == "sentence":
        assert (ledger.sentence >= 0).all()
        assert (ledger.effort["sent"] == 1).all()
        assert all(s < counts[d] for s, d in zip(ledger.sentence, ledger.docids, strict=True))
        # sentence shown: the reviewer's label is the shown sentence's, so a relevant document can be called 0
        assert set(np.unique(ledger.label)) <= {0, 1}
    else:
        assert (ledger.sentence == -1).all()
        for docid, truth, read in zip(ledger.docids, ledger.truth, ledger.effort["sent"], strict=True):
            if truth == 0:
                assert read == counts[docid]  # a non-relevant document is read to the end
            elif oracle == "inherit":
                assert read == 1  # every sentence of a relevant document is relevant
            else:
                assert 1 <= read <= counts[docid]
        assert (ledger.label == (ledger.truth > 0)).all()  # an infallible reviewer
    assert (ledger.effort["judge"] == 1).all()


def test_classifier_oracle_marks_only_sentences_of_relevant_documents(antihistamines, antihistamine_features):
    topic = next(iter(antihistamines.topics))
    position = antihistamines.collection.position
    labels = np.zeros(antihistamine_features.n_documents, dtype=np.int8)
    for docid, grade in antihistamines.qrels[topic].items():
        if grade > 0:
            labels[position(docid)] = 1
    oracle = classifier_labels(antihistamine_features, labels)
    for doc in range(antihistamine_features.n_documents):
        sentence_labels = oracle.of(antihistamine_features, doc)
        if labels[doc]:
            assert sentence_labels.sum() >= 1
        else:
            assert sentence_labels.sum() == 0
    # it is a real filter: some sentences of relevant documents are not relevant
    in_relevant = np.concatenate([oracle.of(antihistamine_features, doc) for doc in np.flatnonzero(labels)])
    assert len(in_relevant) > np.count_nonzero(labels)  # relevant documents have more than one sentence
    assert 0 < in_relevant.mean() < 1


@pytest.mark.slow
def test_same_seed_gives_byte_identical_ledgers_and_different_seeds_differ(demo, tmp_path):
    for name in ("a", "b"):
        review_topics(demo, ReviewConfig(seed=7, feedback="sentence"), ["T2"], tmp_path / name)
    review_topics(demo, ReviewConfig(seed=8, feedback="sentence"), ["T2"], tmp_path / "c")
    a, b, c = ((tmp_path / n / "ledgers" / "T2.jsonl").read_bytes() for n in "abc")
    assert a == b
    assert a != c


@pytest.mark.slow
def test_reviewer_errors_flip_labels_at_about_the_given_rates(demo):
    config = ReviewConfig(false_negative_rate=0.3, false_positive_rate=0.1, until="exhausted", seed=1)
    ledger = review_topics(demo, config, ["T3"]).ledgers["T3"]
    relevant = ledger.truth > 0
    assert len(ledger) == len(demo.collection)
    fn = 1 - ledger.label[relevant].mean()
    fp = ledger.label[~relevant].mean()
    assert 0.2 < fn < 0.4
    assert 0.07 < fp < 0.13


@pytest.mark.slow
def test_several_reviewers_share_the_work_and_finish_sooner(demo):
    one = review_topics(demo, ReviewConfig(max_effort="300"), ["T3"]).ledgers["T3"]
    three = review_topics(demo, ReviewConfig(max_effort="300", reviewers=3), ["T3"]).ledgers["T3"]
    assert set(np.unique(three.reviewer)) == {0, 1, 2}
    assert len(set(three.docids)) == len(three.docids)
    assert three.time.max() < one.time.max() / 2
    assert (np.diff(three.time) >= 0).all()  # judgments are logged in time order


@pytest.mark.slow
def test_asynchronous_retraining_keeps_reviewers_busy(demo):
    sync = review_topics(demo, ReviewConfig(max_effort="300", retrain_seconds=60), ["T3"]).ledgers["T3"]
    asynchronous = review_topics(
        demo, ReviewConfig(max_effort="300", retrain_seconds=60, async_retrain=True), ["T3"]
    ).ledgers["T3"]
    # synchronous: every round's retraining is dead time for the reviewer; asynchronous: it is hidden
    idle_sync = sync.time.max() - sync.effort["seconds"].sum()
    idle_async = asynchronous.time.max() - asynchronous.effort["seconds"].sum()
    assert idle_sync >= 60 * (len(sync.rounds) - 1)
    assert idle_async <= 60 + 1e-6
    # items of a round may still be judged after the next ranking was trained
    assert len(asynchronous.rounds) > 3


@pytest.mark.parametrize(
    "settings",
    [
        # Two reviewers stop (all relevant presented) while the learner is 30 s into a retrain it started earlier.
        {"reviewers": 2, "async_retrain": True, "retrain_seconds": 30.0},
        # Synchronous retraining is never under way when the review stops (no item is out during it): a guard.
        {"reviewers": 3, "retrain_seconds": 7.0, "batch": "10", "until": "exhausted"},
    ],
    ids=["async", "sync-exhausted"],
)
@pytest.mark.slow
def test_a_retrain_that_ends_after_the_review_stopped_serves_nothing(demo, demo_features, settings):
    """A retrain that finishes after the reviewers stopped writes no round record (its ranking would serve no
    judgment), and the end record's time is when the review stopped, not when that retrain would have ended."""
    config = ReviewConfig(sentence_oracle="inherit", **settings)
    simulation, writer = demo_simulation(demo, demo_features, config, "T2")
    states = list(simulation.rounds())
    records = [json.loads(line) for line in writer.lines]
    judgments = [r for r in records if r["type"] == "judgment"]
    assert records[-2]["type"] == "judgment"  # no round record between the last judgment and the end record
    assert records[-1]["time"] == max(r["time"] for r in judgments) == states[-1].time
    served = {r["round"] for r in judgments}
    assert [r["round"] for r in records if r["type"] == "round" and r["round"] not in served] == []
    # Stepped, the last state has the review's end (its stop reason, every judgment), and names a recorded round.
    assert states[-1].stopped == records[-1]["reason"] and states[-1].judgments == len(judgments)
    assert sorted({s.round for s in states}) == [r["round"] for r in records if r["type"] == "round"]


def test_ledger_records_are_canonical_json(demo, tmp_path):
    review_topics(demo, ReviewConfig(max_effort="50"), ["T1"], tmp_path)
    for line in (tmp_path / "ledgers" / "T1.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert line == json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def test_clock_effort_shows_what_more_reviewers_and_retraining_latency_do(demo):
    from tarsim.metrics import recall_curve

    config = {"max_effort": "300", "retrain_seconds": 30}
    one = review_topics(demo, ReviewConfig(**config), ["T2"]).ledgers["T2"]
    three = review_topics(demo, ReviewConfig(reviewers=3, **config), ["T2"]).ledgers["T2"]
    # reviewing time (the sum of the time model) hardly changes; elapsed clock time falls with three reviewers
    budget = one.time.max() / 4  # a quarter of the time one reviewer needed
    assert recall_curve(three, "clock").recall_at(budget) > recall_curve(one, "clock").recall_at(budget)
    clock = recall_curve(one, "clock")
    assert clock.effort[-1] == pytest.approx(one.time.max())
    assert clock.effort[-1] >= recall_curve(one, "seconds").effort[-1] + 30 * (len(one.rounds) - 1) - 1e-6
