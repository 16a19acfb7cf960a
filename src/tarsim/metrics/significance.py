"""Paired significance tests between two systems' per-topic scores (t-test and randomisation test)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import SimpleNamespace

import numpy as np

MAX_BATCH_VALUES = 2_000_000
"""Resamples are drawn in batches of at most this many values (memory stays bounded; the p-value is the same)."""


def _mean_difference(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.mean(x - y, axis=axis)


def paired_tests(
    a: Mapping[str, float], b: Mapping[str, float], seed: int = 0, n_resamples: int = 10000
) -> dict[str, float]:
    """Compare system B with system A on the topics both score: scipy's paired t-test and a two-sided
    randomisation (sign-flip permutation) test of the mean difference with a fixed seed.

    Returns n, mean_a, mean_b, diff (mean of b - a), t, p_t (t-test) and p_rand (randomisation).
    When every difference is zero both p-values are 1.0 (scipy would give NaN for the t-test). When every difference
    is the same non-zero value, t is infinite and p_t is NaN: the t-test is undefined without spread (reporting 0
    made two or three equal differences look significant at p < 0.001); p_rand still says how likely the sign
    pattern is (0.25 from 3 pairs).
    """
    from scipy import stats  # imported here: slow, and only the comparisons need it

    topics = sorted(set(a) & set(b))
    if len(topics) < 2:
        raise ValueError(f"paired tests need at least 2 topics scored by both systems, got {len(topics)}")
    x = np.array([a[topic] for topic in topics], dtype=np.float64)
    y = np.array([b[topic] for topic in topics], dtype=np.float64)
    result: dict[str, float] = {
        "n": len(topics),  # a count (it used to be a float)
        "mean_a": math.fsum(x) / len(x),
        "mean_b": math.fsum(y) / len(y),
    }
    result["diff"] = result["mean_b"] - result["mean_a"]
    if np.all(x == y):
        result.update(t=0.0, p_t=1.0, p_rand=1.0)
        return result
    differences = y - x
    if np.ptp(differences) <= 1e-12 * np.abs(differences).max():  # constant but for rounding: t is infinite
        t_test = SimpleNamespace(statistic=math.nan, pvalue=math.nan)  # as scipy gives for exactly constant ones
    else:
        t_test = stats.ttest_rel(y, x)
    permutation = stats.permutation_test(
        (y, x),
        _mean_difference,
        permutation_type="samples",
        vectorized=True,
        n_resamples=n_resamples,
        batch=max(1, min(n_resamples, MAX_BATCH_VALUES // len(x))),
        alternative="two-sided",
        random_state=np.random.default_rng(seed),
    )
    t_stat, p_t = float(t_test.statistic), float(t_test.pvalue)
    if math.isnan(p_t):  # constant non-zero differences: t is infinite, the test undefined (no spread to test)
        t_stat = math.copysign(math.inf, result["diff"])
    result.update(t=t_stat, p_t=p_t, p_rand=float(permutation.pvalue))
    return result
