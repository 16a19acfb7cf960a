"""The measures of a stop (tarsim.stopping.measures) on hand-built ledgers whose values are derived by hand in the
comments, cross-checked against independent formulas (WSS from TN and FN, CLEF's loss_er as its script counts)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ledger_factory import make_ledger
from tarsim.errors import ConfigError
from tarsim.stopping import evaluate_stopping
from tarsim.stopping.measures import (
    ReviewFacts,
    clef_loss,
    measure_stop,
    needed_relevant,
    optimistic_cost,
    parse_cost_structure,
    structure_name,
    true_negative_rate,
    wss_at,
)

# Judgments 1..10: relevant at 1, 3 and 6; R = 4 (one relevant document never presented); N = 20.
TRUTH = [1, 0, 1, 0, 0, 1, 0, 0, 0, 0]
STRUCTURES = ((1, 1, 1, 1), (25, 5, 5, 1))


def _measure(rule: str, target: float, truth=TRUTH, size: int = 20, relevant: int = 4) -> dict:
    ledger = make_ledger(truth, size=size, relevant=relevant)
    facts = ReviewFacts(ledger, ("judge", "sent"))
    outcome = evaluate_stopping(ledger, rule, effort_models=("judge", "sent"), target_recall=target)
    return measure_stop(facts, outcome, target, STRUCTURES)


def test_a_stop_after_the_target_by_hand():
    # nonrel:3 stops at judgment 9 (non-relevant 7, 8, 9) with 3 of 4 relevant: recall 0.75, n = 9.
    row = _measure("nonrel:3", 0.5)
    assert (row["position"], row["documents"], row["recall"], row["target_met"]) == (9, 9.0, 0.75, True)
    assert row["shortfall"] == 0.0
    # CLEF: loss_r = 0.25^2; loss_e = (100/20)^2 * (9/104)^2 = 2025/10816
    assert row["loss_r"] == pytest.approx(0.0625) and row["loss_e"] == pytest.approx(2025 / 10816)
    assert row["loss_er"] == pytest.approx(0.0625 + 2025 / 10816)
    assert row["wss"] == pytest.approx(11 / 20 - 0.25)  # (N - n)/N - (1 - recall)
    assert row["tnr"] == pytest.approx(10 / 16)  # 16 non-relevant, 6 judged: 10 left
    # the oracle for 0.5 (2 relevant) is judgment 3: excess 9 - 3, relative 9/3, cost the effort at the stop
    assert row["oracle_position"] == 3
    assert (row["excess_judge"], row["relative_judge"], row["cost_judge"]) == (6.0, 3.0, 9.0)
    assert (row["excess_sent"], row["cost_sent"]) == (6.0, 9.0)  # one sentence per judgment
    assert row["nwss_target"] == pytest.approx(15 / 16)  # the oracle judged one non-relevant document
    assert row["missed_share"] == 0.0
    assert row["unused_saving"] == pytest.approx(6 / 17) and row["remaining"] == 17.0  # (9 - 3) / (20 - 3)
    # met: one and two phases cost the same: 3 relevant and 6 non-relevant judged in phase one
    assert row["one_phase_1-1-1-1"] == row["two_phase_1-1-1-1"] == 9.0
    assert row["one_phase_25-5-5-1"] == row["two_phase_25-5-5-1"] == 25 * 3 + 5 * 6


def test_a_stop_before_the_target_by_hand():
    # budget:2 stops at judgment 2 with 1 relevant: recall 0.25; the oracle for 0.5 is judgment 3.
    row = _measure("budget:2", 0.5)
    assert (row["recall"], row["target_met"], row["shortfall"]) == (0.25, False, 0.25)
    assert (row["excess_judge"], row["relative_judge"]) == (-1.0, pytest.approx(2 / 3))
    assert row["cost_judge"] == 3.0  # 2 judged + the 1 more the ledger needed to reach 0.5 (cost_at_stop)
    assert row["missed_share"] == 0.25 and row["unused_saving"] == 0.0  # the oracle had 2 relevant, the stop 1
    # one phase goes on to judgment 3: 2 relevant, 1 non-relevant; two phases: 1 + 1 judged, then the ledger's
    # next document (d2, relevant) reaches the target in phase two
    assert row["one_phase_1-1-1-1"] == 3.0 and row["one_phase_25-5-5-1"] == 25 * 2 + 5 * 1
    assert row["phase_two_ranking"] == "ledger"
    assert row["two_phase_1-1-1-1"] == 3.0 and row["two_phase_25-5-5-1"] == 25 + 5 + 5 * 1


def test_a_target_the_ledger_never_reaches_has_no_oracle():
    # 0.9 of R = 4 needs 4 relevant; the ledger presents 3: no oracle stop, no excess, cost or phase costs
    row = _measure("nonrel:3", 0.9)
    assert row["oracle_position"] is None and not row["target_met"] and row["shortfall"] == pytest.approx(0.15)
    for key in ("excess_judge", "relative_judge", "cost_judge", "missed_share", "unused_saving", "nwss_target"):
        assert math.isnan(row[key]), key
    assert math.isnan(row["one_phase_1-1-1-1"]) and math.isnan(row["two_phase_25-5-5-1"])


def test_a_rule_that_never_fired_left_all_the_saving_unused():
    row = _measure("nonrel:50", 0.5)  # never fires: the reviewer would have screened everything
    assert not row["stopped"] and row["unused_saving"] == 1.0


def test_cost_matches_cost_at_stop():
    from tarsim.stopping.measures import cost_at_stop

    ledger = make_ledger(TRUTH, size=20, relevant=4)
    for rule in ("budget:2", "nonrel:3", "budget:5"):
        for target in (0.25, 0.5, 0.75):
            expected = cost_at_stop(ledger, rule, target, "judge")
            assert _measure(rule, target)["cost_judge"] == expected


def test_optimistic_cost_by_hand():
    # phase one judged 2 relevant and 1 non-relevant; R = 4; t = 0.75 needs 3, so 1 more from phase two, whose
    # ranking is (no, yes, no, yes, ...): down to rank 2. (25, 5, 5, 1): 25*2 + 5*1 + 5*1 + 1*1 = 61.
    ranking = [0, 1, 0, 1, 0, 0, 0]
    assert optimistic_cost(2, 1, ranking, 4, 0.75, (25, 5, 5, 1)) == 61
    # TARexp's cut needs more than 3: 4 relevant, so 2 from phase two, down to rank 4: 55 + 5*2 + 1*2
    assert optimistic_cost(2, 1, ranking, 4, 0.75, (25, 5, 5, 1), exceed=True) == 67
    assert optimistic_cost(3, 1, ranking, 4, 0.75, (25, 5, 5, 1)) == 80  # phase one met it: no phase two
    assert optimistic_cost(0, 0, [0, 0], 4, 0.75, (1, 1, 1, 1)) is None  # the ranking never gets there


def test_needed_relevant():
    assert needed_relevant(10, 0.8) == 8 and needed_relevant(10, 0.8, exceed=True) == 9
    assert needed_relevant(7, 0.8) == needed_relevant(7, 0.8, exceed=True) == 6  # 5.6
    assert needed_relevant(3, 1.0) == 3


def test_cost_structures_parse_and_name():
    assert parse_cost_structure("25,5,5,1") == (25.0, 5.0, 5.0, 1.0) == parse_cost_structure("25-5-5-1")
    assert structure_name((25.0, 5.0, 5.0, 1.0)) == "25-5-5-1" and structure_name((0.5, 1, 1, 1)) == "0.5-1-1-1"
    for bad in ("25,5,5", "a,b,c,d", "1,1,1,-1"):
        with pytest.raises(ConfigError, match="cost structure"):
            parse_cost_structure(bad)


def _clef_by_its_script(labels: list[int], num_docs: int, num_rels: int) -> float:
    """CLEF TAR's LossBasedMeasures (scripts/measures/eval_measures_2018.py), transcribed as it counts."""
    num_shown = rels_found = 0
    for judgment in labels:
        num_shown += 1
        if 0 < judgment < 3:
            rels_found += 1
    r = rels_found / num_rels if num_rels > 0 else 0.0
    num_docs = max(num_docs, num_shown)
    return (1 - r) ** 2 + (100.0 / num_docs) ** 2 * (num_shown / (num_rels + 100.0)) ** 2


def test_wss_tnr_and_loss_agree_with_independent_formulas():
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(5, 60))
        truth = (rng.random(n) < 0.3).astype(int).tolist()
        relevant = sum(truth) + int(rng.integers(0, 3))
        if not relevant:
            continue
        size = n + int(rng.integers(0, 40))
        ledger = make_ledger(truth, size=size, relevant=relevant)
        facts = ReviewFacts(ledger, ("judge",))
        stop = int(rng.integers(1, n + 1))
        outcome = evaluate_stopping(ledger, f"budget:{stop}", effort_models=("judge",))
        row = measure_stop(facts, outcome, 0.5, ())
        found = sum(truth[:stop])
        fn, tn = relevant - found, (size - relevant) - (stop - found)
        assert row["wss"] == pytest.approx((tn + fn) / size - fn / relevant)  # unseen = TN + FN
        assert row["tnr"] == pytest.approx(tn / (size - relevant))
        assert row["loss_er"] == pytest.approx(_clef_by_its_script(truth[:stop], size, relevant))


def test_helpers_at_the_edges():
    assert clef_loss(1.0, 200, 100, 10)[1] == pytest.approx((100 / 200) ** 2 * (200 / 110) ** 2)  # N raised to n
    assert math.isnan(wss_at(1.0, 0, 0)) and math.isnan(true_negative_rate(5, 5, 5, 5))
