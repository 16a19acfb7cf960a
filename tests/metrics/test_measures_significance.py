"""Paired tests: the t-test agrees with scipy's, the randomisation test is seeded and sensible."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats

from tarsim.metrics import paired_tests


def scores(seed, shift=0.0, n=30):
    rng = np.random.default_rng(seed)
    return {f"t{i}": float(v) for i, v in enumerate(np.clip(rng.uniform(0, 1, n) + shift, 0, 1))}


def test_t_test_matches_scipy_and_is_deterministic():
    a, b = scores(1), scores(2, shift=0.1)
    result = paired_tests(a, b)
    topics = sorted(a)
    expected = stats.ttest_rel([b[t] for t in topics], [a[t] for t in topics])
    assert result["p_t"] == pytest.approx(expected.pvalue, rel=1e-12)
    assert result["t"] == pytest.approx(expected.statistic, rel=1e-12)
    assert type(result["n"]) is int and result["n"] == 30
    assert result["diff"] == pytest.approx(np.mean([b[t] - a[t] for t in topics]))
    assert paired_tests(a, b) == result  # fixed seed: identical p-values
    assert 0.0 < result["p_rand"] <= 1.0


def test_randomisation_test_is_exact_on_few_topics():
    # 8 topics: 2**8 sign flips, fewer than n_resamples, so scipy enumerates them all; count them here.
    a = {f"t{i}": 0.0 for i in range(8)}
    b = {f"t{i}": v for i, v in enumerate([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, -0.3, 0.2])}
    diffs = np.array([b[t] - a[t] for t in sorted(a)])
    observed = abs(diffs.mean())
    flips = [abs((diffs * np.array(s)).mean()) for s in itertools.product([1, -1], repeat=8)]
    expected = np.mean([f >= observed - 1e-12 for f in flips])
    assert paired_tests(a, b)["p_rand"] == pytest.approx(expected, abs=1e-12)


def test_identical_systems_and_large_effects():
    a = scores(3)
    same = paired_tests(a, a)
    assert same["p_t"] == 1.0 and same["p_rand"] == 1.0 and same["diff"] == 0.0
    better = paired_tests(a, {t: min(1.0, v + 0.5) for t, v in a.items()})
    assert better["p_t"] < 1e-4 and better["p_rand"] < 1e-3


def test_needs_two_shared_topics():
    with pytest.raises(ValueError, match="at least 2 topics"):
        paired_tests({"a": 1.0}, {"a": 0.0, "b": 1.0})


def test_differences_equal_but_for_rounding_count_as_constant():
    """1/6 - 1 and 1/2 - 4/3 differ in the last bit: no precision warning, the same answer as exact constants."""
    a = {"t1": 1.0, "t2": 4 / 3, "t3": 1.0}
    b = {"t1": 1 / 6, "t2": 1 / 2, "t3": 1 / 6}
    assert len({b[t] - a[t] for t in a}) > 1  # not exactly constant
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = paired_tests(a, b)
    exact = paired_tests({"t1": 1.0, "t2": 1.0, "t3": 1.0}, {"t1": 1 / 6, "t2": 1 / 6, "t3": 1 / 6})
    assert result["t"] == exact["t"] == -math.inf
    assert math.isnan(result["p_t"]) and math.isnan(exact["p_t"])  # undefined without spread, not "p < 0.001"
    assert result["p_rand"] == exact["p_rand"] == pytest.approx(0.25)  # 2 of the 8 sign patterns are as extreme
