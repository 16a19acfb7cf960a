"""Stopping rules replayed on constructed ledgers whose right stopping point is known by hand."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

import ledger_factory
from tarsim.errors import ConfigError
from tarsim.stopping import (
    KneeRule,
    check_points,
    draw_target_sample,
    evaluate_recorded_rules,
    evaluate_stopping,
    parse_stopping_rule,
    slope_ratio,
)


def make_ledger(
    truth,
    labels=None,
    rounds=None,
    *,
    relevant=None,
    size=1000,
    sent=None,
    docids=None,
    reason="all relevant documents presented",
    seed=0,
    stopping=(),
):
    """A ledger from columns: judgment i presents docids[i] (default d<i>) with qrels grade truth[i]."""
    return ledger_factory.make_ledger(
        truth,
        labels,
        rounds,
        relevant=relevant,
        size=size,
        sent=sent,
        docids=docids,
        reason=reason,
        seed=seed,
        stopping=stopping,
    )


# ---- budget --------------------------------------------------------------------------------------------------
def test_budget_ar_plus_b_counts_judgments():
    ledger = make_ledger([1, 0, 1, 0, 0, 0, 0, 0])  # R = 2, so 2R+1 = 5 judgments
    outcome = evaluate_stopping(ledger, "budget:2R+1")
    assert outcome.stopped and outcome.position == 5
    assert outcome.recall == 1.0 and outcome.effort["judge"] == 5


def test_budget_in_another_effort_model():
    ledger = make_ledger([1, 0, 1, 0, 0], sent=[1, 2, 3, 4, 5])  # sentences read: 1, 3, 6, 10, 15
    outcome = evaluate_stopping(ledger, "budget:2R+1:sent")  # 5 sentences: reached at the third judgment
    assert outcome.position == 3
    assert outcome.effort == {"judge": 3.0, "sent": 6.0, "lambda:0.5": 4.5, "seconds": 12.0}


def test_fixed_budget_that_the_ledger_never_reaches():
    ledger = make_ledger([1, 0, 0, 1])
    outcome = evaluate_stopping(ledger, "budget:500")
    assert not outcome.stopped
    assert outcome.position == 4 and outcome.recall == 1.0  # the ledger's end: exact recall, effort a lower bound


# ---- consecutive non-relevant --------------------------------------------------------------------------------
def test_nonrel_counts_the_reviewers_labels_not_the_truth():
    truth = [1, 0, 1, 0, 0, 1, 0, 0, 0, 1]
    labels = [1, 0, 1, 0, 0, 0, 1, 0, 0, 1]  # the reviewer missed judgment 6 and wrongly included 7
    assert evaluate_stopping(make_ledger(truth), "nonrel:3").position == 9
    outcome = evaluate_stopping(make_ledger(truth, labels=labels), "nonrel:3")
    assert outcome.position == 6 and outcome.recall == pytest.approx(3 / 4)
    assert not outcome.target_met  # 0.75 < 0.8
    assert evaluate_stopping(make_ledger(truth, labels=labels), "nonrel:3", target_recall=0.7).target_met


# ---- oracle ---------------------------------------------------------------------------------------------------
def test_oracle_stops_at_the_last_relevant_document():
    assert evaluate_stopping(make_ledger([0, 1, 0, 1, 0, 0]), "oracle").position == 4
    short = evaluate_stopping(make_ledger([0, 1, 0, 1, 0], relevant=3), "oracle")
    assert not short.stopped and short.recall == pytest.approx(2 / 3)


# ---- knee -----------------------------------------------------------------------------------------------------
def knee_ledger(rounds=None):
    return make_ledger([1] * 20 + [0] * 180, rounds=rounds)  # 20 relevant first, then 180 non-relevant


def test_knee_adjusted_threshold_by_hand():
    # After s judgments (s > 20) the knee is at 20 and rho = (20/20) / (1/(s-20)) = s - 20; the adjusted rule needs
    # rho >= 156 - 20 = 136, so s = 156 (checked after every judgment: one judgment per round here).
    outcome = evaluate_stopping(knee_ledger(), "knee")
    assert outcome.stopped and outcome.position == 156 and outcome.recall == 1.0


def test_knee_fixed_threshold_waits_for_150_judgments():
    # rho = s - 20 >= 6 from s = 26, but the rule never stops before 150 documents are reviewed.
    assert evaluate_stopping(knee_ledger(), "knee:6").position == 150
    assert evaluate_stopping(knee_ledger(), "knee:200").stopped is False  # rho <= 180 on this ledger


def test_knee_is_checked_only_when_a_batch_ends():
    rounds = [1 + i // 10 for i in range(200)]  # batches of 10: checks after 10, 20, ..., 200 judgments
    assert evaluate_stopping(knee_ledger(rounds), "knee").position == 160
    assert check_points(knee_ledger(rounds))[:3] == [10, 20, 30]


def test_slope_ratio_matches_a_geometric_knee():
    rng = np.random.default_rng(3)
    for _ in range(50):
        s = int(rng.integers(3, 60))
        gain = np.concatenate([[0], np.cumsum(rng.random(s) < rng.random())]).astype(float)
        if gain[s] == 0:
            assert slope_ratio(gain) == 0.0
            continue
        # perpendicular distance above the chord from (0, 0) to (s, gain[s]), computed with sqrt (naively)
        norm = math.hypot(s, gain[s])
        distances = [(s * gain[k] - gain[s] * k) / norm for k in range(1, s)]
        knee = 1 + max(range(len(distances)), key=lambda i: (distances[i], -i))
        expected = (gain[knee] / knee) / ((gain[s] - gain[knee] + 1) / (s - knee))
        assert slope_ratio(gain) == pytest.approx(expected)


# ---- target ---------------------------------------------------------------------------------------------------
def target_case(seed=0):
    docids = [f"d{i}" for i in range(30)]
    qrels = {"t": {"d4": 1, "d17": 2, "d9": 0}}  # two relevant documents in the collection
    order = ["d3", "d4", "d5", "d6", "d7", "d17", "d8"]  # the review presents d4 second and d17 sixth
    ledger = make_ledger([qrels["t"].get(d, 0) for d in order], docids=order, size=30, seed=seed)
    return ledger, docids, qrels


def test_target_stops_when_every_target_was_presented():
    ledger, docids, qrels = target_case()
    outcome = evaluate_stopping(ledger, "target:2", docids=docids, qrels=qrels)
    assert outcome.stopped and outcome.position == 6 and outcome.recall == 1.0
    sample = draw_target_sample(docids, qrels["t"], 2, 0, "t")
    assert set(sample.targets) == {"d4", "d17"} and sample.sampled[-1] in {"d4", "d17"}
    assert len(set(sample.sampled)) == len(sample.sampled)
    # effort: the 6 review judgments plus the sampled documents the review had not presented by then
    extra = len(set(sample.sampled) - set(ledger.docids[:6]))
    assert outcome.effort["judge"] == 6 + extra and outcome.sample_size == len(sample.sampled)


def test_target_with_more_targets_than_relevant_takes_all_relevant():
    ledger, docids, qrels = target_case()
    outcome = evaluate_stopping(ledger, "target:10", docids=docids, qrels=qrels)
    assert outcome.position == 6
    assert draw_target_sample(docids, qrels["t"], 10, 0, "t").sampled.__len__() == 30


def test_target_sample_is_seeded_and_replayable():
    ledger, docids, qrels = target_case()
    first = evaluate_stopping(ledger, "target:1", docids=docids, qrels=qrels)
    again = evaluate_stopping(ledger, "target:1", docids=docids, qrels=qrels)
    assert first == again
    samples = {draw_target_sample(docids, qrels["t"], 1, seed, "t").sampled for seed in range(8)}
    assert len(samples) > 1  # the seed changes the sample


def test_target_says_how_the_sample_was_costed():
    """`sample_cost`: exact when every sampled document the review did not present is costed (by `sample_costs`);
    estimated from judgments of the same relevance when the ledger has some; from the other relevance when it has
    none (a review that presented only relevant documents costs the non-relevant sampled ones at the relevant mean).
    """
    ledger, docids, qrels = target_case()  # both relevances judged
    estimated = evaluate_stopping(ledger, "target:2", docids=docids, qrels=qrels)
    assert estimated.sample_cost == "estimated" and estimated.sample_effort_estimated
    unseen = set(draw_target_sample(docids, qrels["t"], 2, 0, "t").sampled) - set(ledger.docids[:6])
    costs = {docid: {"judge": 1, "sent": 9} for docid in unseen}
    exact = evaluate_stopping(ledger, "target:2", docids=docids, qrels=qrels, sample_costs=costs)
    assert exact.sample_cost == "exact" and not exact.sample_effort_estimated
    assert exact.to_row()["sample_cost"] == "exact"
    relevant_only = make_ledger([1, 2], docids=["d4", "d17"], size=30, sent=[3, 3])
    fallback = evaluate_stopping(relevant_only, "target:2", docids=docids, qrels=qrels)
    assert fallback.sample_cost == "estimated from the other relevance" and fallback.sample_effort_estimated
    assert fallback.effort["sent"] == 3 * (2 + len(unseen_of(relevant_only, docids, qrels)))  # the relevant mean
    assert evaluate_stopping(ledger, "knee").sample_cost is None


def unseen_of(ledger, docids, qrels):
    """The target:2 sample's documents the ledger never presented."""
    return set(draw_target_sample(docids, qrels["t"], 2, 0, "t").sampled) - set(ledger.docids)


def test_target_needs_the_collection():
    ledger, _, _ = target_case()
    with pytest.raises(ConfigError, match=r"^stopping rule 'target:2' needs"):  # a ledger in memory: no path
        evaluate_stopping(ledger, "target:2")
    with pytest.raises(ConfigError, match=r"^runs/T1\.jsonl: stopping rule 'target:2' needs"):  # which ledger
        evaluate_stopping(dataclasses.replace(ledger, source="runs/T1.jsonl"), "target:2")


# ---- specs ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec",
    [
        "",
        "knee:abc",
        "knee:-1",
        "target:0",
        "target:x",
        "nonrel:-1",
        "nonrel",
        "budget:xR",
        "budget:2R+100:bogus",
        "foo",
        "oracle:1",
        "budget",
    ],
)
def test_bad_specs_name_the_spec_and_the_accepted_forms(spec):
    with pytest.raises(ConfigError) as error:
        parse_stopping_rule(spec)
    assert repr(spec) in str(error.value) and "accepted" in str(error.value) and "knee" in str(error.value)


def test_good_specs_parse():
    assert parse_stopping_rule("knee") == KneeRule("knee")
    assert parse_stopping_rule("knee:6").rho == 6
    budget = parse_stopping_rule("budget:2R+100")
    assert (budget.a, budget.b, budget.effort_model) == (2, 100, "judge")
    assert parse_stopping_rule("budget:500").a == 0 and parse_stopping_rule("budget:500").b == 500
    assert parse_stopping_rule("budget:R:lambda:0.5").effort_model == "lambda:0.5"


def test_review_config_validates_its_stopping_rules():
    from tarsim.config.review import ReviewConfig

    assert ReviewConfig(stopping=("knee", "nonrel:50")).to_dict()["stopping"] == ["knee", "nonrel:50"]
    with pytest.raises(ConfigError, match="nonrel:zero"):
        ReviewConfig(stopping=("knee", "nonrel:zero"))


# ---- replay on simulated reviews ------------------------------------------------------------------------------
def test_replay_equals_what_the_review_recorded(demo):
    from tarsim.api.review import simulate

    result = simulate(demo, topic="T1", until="exhausted", max_effort="R+20", stopping=("budget:R+20", "oracle"))
    ledger = result.ledgers["T1"]
    assert ledger.header["config"]["stopping"] == ["budget:R+20", "oracle"]
    budget, oracle = evaluate_recorded_rules(ledger)
    # the rules run online: the oracle fires first (every relevant document presented) and stops the review
    assert oracle.stopped and oracle.recall == 1.0 and oracle.position == len(ledger) == ledger.end["stop"]["seq"]
    assert ledger.end["reason"] == "stopping rule oracle fired" and ledger.end["stop"]["rule"] == "oracle"
    assert not budget.stopped and len(ledger) < ledger.relevant + 20
    unstopped = simulate(demo, topic="T1", until="exhausted", max_effort="R+20").ledgers["T1"]
    budget = evaluate_stopping(unstopped, "budget:R+20")
    assert unstopped.end["reason"].startswith("effort budget")
    assert budget.stopped and budget.position == len(unstopped) == unstopped.end["judgments"] == ledger.relevant + 20
    full = simulate(demo, topic="T1").ledgers["T1"]
    replay = evaluate_stopping(full, "oracle")
    assert replay.stopped and replay.position == len(full) and replay.recall == 1.0
    assert replay.effort["seconds"] == pytest.approx(full.end["time"])  # one reviewer: the clock is the effort
