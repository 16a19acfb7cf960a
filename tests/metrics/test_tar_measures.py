"""TAR measures on constructed ledgers with answers worked out by hand, and against naive re-implementations."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import ledger_factory
from tarsim.metrics.tar import (
    average_time_to_discovery,
    effort_to_recall,
    erf,
    rrf,
    tar_measures,
    time_to_discovery,
    wss,
)
from tarsim.stopping.measures import cost_at_stop, recall_at_stop


def make_ledger(truth, *, size, relevant=None, sent=None):
    return ledger_factory.make_ledger(
        truth,
        size=size,
        relevant=relevant,
        sent=sent,
        words_per_sentence=1,
        seconds_per_sentence=3.0,
        first_time=0.0,
        reason="stopped",
    )


# N = 20 documents, R = 4 relevant; the review presents 10, finding relevant at positions 1, 3 and 6.
TRUTH = [1, 0, 1, 0, 0, 1, 0, 0, 0, 0]
SENT = [1, 2, 3, 4, 5, 6, 1, 1, 1, 1]  # cumulative: 1, 3, 6, 10, 15, 21, ...


@pytest.fixture
def ledger():
    return make_ledger(TRUTH, size=20, relevant=4, sent=SENT)


def test_rrf_by_hand(ledger):
    assert rrf(ledger, 10) == 0.25  # 2 screened: 1 found
    assert rrf(ledger, 50) == 0.75  # 10 screened: 3 found
    assert rrf(ledger, 100) == 0.75  # past the ledger's end nothing more is found
    assert rrf(ledger, 0) == 0.0


def test_erf_by_hand(ledger):
    # random screening finds round(linspace(0, 4, 20))[k-1]: k = 2 -> round(4/19) = 0; k = 10 -> round(36/19) = 2
    assert erf(ledger, 10) == 0.25
    assert erf(ledger, 50) == 0.25
    assert erf(ledger, 100) == pytest.approx((3 - 4) / 4)  # k = 20: random has found all 4


def test_time_to_discovery_by_hand(ledger):
    assert time_to_discovery(ledger) == {"d0": 1.0, "d2": 3.0, "d5": 6.0}
    assert average_time_to_discovery(ledger) == pytest.approx(10 / 3)
    assert average_time_to_discovery(ledger, "sent") == pytest.approx((1 + 6 + 21) / 3)
    assert average_time_to_discovery(make_ledger([0, 0], size=5, relevant=1)) is None


def test_wss_and_effort_to_recall_by_hand(ledger):
    # Insights' WSS@50 with R = 4: the 2nd relevant is found at position 3 (2 records before it); random order,
    # round(linspace(0, 4, 20)) = round(4i/19), first reaches 2 at i = 8 (7.6/19*4 = 1.68 -> 2): (8 - 2) / 20
    assert wss(ledger, 0.5) == pytest.approx((8 - 2) / 20)
    # WSS@95 is read at the largest recall level j/4 <= 0.95, j = 3 (Insights' slice): the 3rd relevant at position 6
    # (5 before it); round(4i/19) first reaches 3 at i = 12 (2.53): (12 - 5) / 20
    assert wss(ledger, 0.95) == pytest.approx((12 - 5) / 20)
    assert wss(ledger, 1.0) is None  # the 4th relevant is never found
    assert effort_to_recall(ledger, 0.75) == 6
    assert effort_to_recall(ledger, 0.75, "sent") == 21
    assert effort_to_recall(ledger, 0.75, "lambda:0.5") == pytest.approx((6 + 21) / 2)
    assert effort_to_recall(ledger, 0.75, "seconds") == pytest.approx(63.0)


def test_recall_and_cost_at_stop_by_hand(ledger):
    # nonrel:3 stops after judgment 9 (positions 7, 8, 9 non-relevant) with recall 3/4
    assert recall_at_stop(ledger, "nonrel:3") == 0.75
    assert cost_at_stop(ledger, "nonrel:3", target_recall=0.5) == 9  # target met: the effort at stop
    assert cost_at_stop(ledger, "nonrel:3", target_recall=0.8) is None  # the ledger never reaches 0.8
    # budget:2 stops after 2 judgments (recall 1/4); 0.5 needs judgment 3, so one more judgment is paid
    assert cost_at_stop(ledger, "budget:2", target_recall=0.5) == 3
    assert cost_at_stop(ledger, "budget:2", target_recall=0.5, effort_model="sent") == 3 + 3


def test_measures_row(ledger):
    row = tar_measures(ledger, percents=(10, 50))
    assert row["rrf_50"] == 0.75 and row["erf_10"] == 0.25 and row["wss_95"] == pytest.approx(0.35)
    assert row["effort_to_80"] is None and row["atd"] == pytest.approx(10 / 3)


def naive(truth, size, relevant, percent):
    """RRF, ERF and ATD by loops and exact fractions (ASReview's definitions)."""
    k = int(Fraction(str(percent)) * size / 100)
    found = 0
    positions = []
    for position, grade in enumerate(truth, start=1):
        if grade > 0:
            positions.append(position)
            if position <= k:
                found += 1
    expected_random = round(Fraction(relevant * (k - 1), size - 1)) if k else 0
    rrf_value = found / relevant
    erf_value = (found - expected_random) / relevant if k else 0.0
    return rrf_value, erf_value, (sum(positions) / len(positions) if positions else None)


def test_against_a_naive_implementation():
    rng = np.random.default_rng(7)
    for _ in range(200):
        size = int(rng.integers(5, 300))
        length = int(rng.integers(1, size + 1))
        truth = (rng.random(length) < rng.random()).astype(int).tolist()
        relevant = sum(truth) + int(rng.integers(0, 3))
        if relevant == 0:
            continue
        ledger = make_ledger(truth, size=size, relevant=relevant)
        percent = float(rng.choice([5, 10, 25, 33, 50, 75, 100]))
        expected_rrf, expected_erf, expected_atd = naive(truth, size, relevant, percent)
        assert rrf(ledger, percent) == pytest.approx(expected_rrf)
        assert erf(ledger, percent) == pytest.approx(expected_erf)
        assert average_time_to_discovery(ledger) == pytest.approx(expected_atd)
        # Insights' WSS@95: the j-th relevant, j the largest with j/R <= 0.95 (R when none), found after n_r - 1
        # records; random order finds it after i records, the first i with round(i * R / (N - 1)) >= j.
        j = max((j for j in range(1, relevant + 1) if Fraction(j, relevant) <= Fraction(95, 100)), default=relevant)
        n_r = next((i + 1 for i, f in enumerate(np.cumsum(truth)) if f >= j), None)
        random_i = next(i for i in range(size) if round(Fraction(i * relevant, size - 1)) >= j)
        expected_wss = None if n_r is None else (random_i - (n_r - 1)) / size
        assert wss(ledger, 0.95) == pytest.approx(expected_wss)
