"""Selection policies, batch schedules, budgets and effort models."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tarsim.effort_models import TimeModel, make_effort_model, sentences_read
from tarsim.errors import ConfigError
from tarsim.policies import make_batch_schedule, make_selection_policy
from tarsim.policies.selection import top_k
from tarsim.simulator import Budget


@given(st.lists(st.integers(-3, 3), min_size=1, max_size=40), st.integers(1, 45))
def test_top_k_takes_highest_scores_and_breaks_ties_by_collection_order(values, k):
    scores = np.array(values, dtype=float)
    candidates = np.arange(len(scores))
    chosen = top_k(scores, candidates, k)
    expected = sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]
    assert list(chosen) == expected


def test_policies_pick_unjudged_candidates_only_and_are_seeded():
    rng_scores = np.random.default_rng(0).normal(size=200)
    candidates = np.arange(0, 200, 2)
    for spec in ("relevance", "uncertainty", "random", "mix:0.5", "mix:0.3:uncertainty"):
        policy = make_selection_policy(spec)
        a = policy.select(rng_scores, candidates, 10, np.random.default_rng(1))
        b = policy.select(rng_scores, candidates, 10, np.random.default_rng(1))
        assert list(a) == list(b)
        assert len(set(a)) == 10 and set(a) <= set(candidates)
    uncertain = make_selection_policy("uncertainty").select(rng_scores, candidates, 5, np.random.default_rng(0))
    assert np.abs(rng_scores[uncertain]).max() <= np.sort(np.abs(rng_scores[candidates]))[4] + 1e-12


def test_growing_and_fixed_batches():
    sizes = make_batch_schedule("bmi").sizes()
    got = [next(sizes) for _ in range(30)]
    assert got[0] == 1
    assert all(b == a + math.ceil(a / 10) for a, b in itertools.pairwise(got))
    fixed = make_batch_schedule(25).sizes()
    assert [next(fixed) for _ in range(3)] == [25, 25, 25]
    with pytest.raises(ConfigError, match="batch size"):
        make_batch_schedule("0")


def test_budget_parsing():
    assert Budget.parse("2R+100").effort(50) == 200
    assert Budget.parse("4R").effort(10) == 40
    assert Budget.parse("1000").effort(10) == 1000
    with pytest.raises(ConfigError, match="expected aR\\+b"):
        Budget.parse("R+")


def test_effort_models_combine_increments():
    increments = {"judge": np.array([1.0, 1.0]), "sent": np.array([3.0, 1.0]), "seconds": np.array([9.0, 5.0])}
    assert list(make_effort_model("judge").costs(increments)) == [1, 1]
    assert list(make_effort_model("sent").costs(increments)) == [3, 1]
    assert list(make_effort_model("lambda:0.25").costs(increments)) == [1.5, 1.0]
    assert list(make_effort_model("lambda:0").costs(increments)) == [1, 1]
    assert list(make_effort_model("lambda:1").costs(increments)) == [3, 1]
    assert list(make_effort_model("seconds").costs(increments)) == [9, 5]
    with pytest.raises(ConfigError, match="lambda must be in"):
        make_effort_model("lambda:1.5")


def test_document_reading_rule():
    assert sentences_read(np.array([0, 0, 1, 1]), True) == 3
    assert sentences_read(np.array([0, 0, 1, 1]), False) == 4
    assert sentences_read(np.array([0, 0, 0]), True) == 3  # relevant without a relevant sentence: read it all
    assert TimeModel().seconds("document", 100) == pytest.approx(7.8 + 1.8)
    assert TimeModel().seconds("sentence", 10) == pytest.approx(4.4 + 0.18)
