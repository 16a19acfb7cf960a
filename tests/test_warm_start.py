"""The logistic learner's warm start: each refit starts from the last fit's coefficients (scikit-learn's
warm_start), offered as `logistic:warm_start=true` and the asreview-logistic-warm-start preset."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import LogisticRegression

from tarsim.cli import main
from tarsim.errors import ConfigError
from tarsim.estimators import ASReviewModel
from tarsim.learners import make_learner


def _problem(seed: int, rows: int = 400, columns: int = 300) -> tuple[sp.csr_matrix, np.ndarray]:
    """A sparse, learnable binary problem: the label follows a hidden linear rule of the features."""
    rng = np.random.default_rng(seed)
    X = sp.random(rows, columns, density=0.05, format="csr", random_state=seed)
    y = (X @ rng.normal(size=columns) > 0).astype(np.int64)
    return X, y


def test_a_warm_started_refit_starts_from_the_last_coefficients():
    X, y = _problem(0)
    warm = ASReviewModel(LogisticRegression(warm_start=True), balance="balanced")
    cold = ASReviewModel(LogisticRegression(), balance="balanced")
    warm.fit(X, y)
    first = warm.model_.n_iter_[0]
    warm.fit(X, y)  # the same data again: it starts at the optimum, so lbfgs stops almost at once
    cold.fit(X, y)
    cold.fit(X, y)  # a fresh clone each time: as many iterations as the first fit
    assert warm.model_.n_iter_[0] <= 2 < first
    assert cold.model_.n_iter_[0] == first
    np.testing.assert_allclose(warm.relevance_scores(X), cold.relevance_scores(X), atol=1e-3)


def test_warm_start_keeps_fitting_as_labels_are_added():
    """Rounds add rows; each warm fit takes fewer iterations in all and ends near the fit from zero."""
    X, y = _problem(1, rows=600)
    spec = "logistic:class_weight=none,balance=balanced,ratio=1"
    warm, cold = make_learner(spec + ",warm_start=true"), make_learner(spec)
    iterations = {"warm": 0, "cold": 0}
    for end in range(200, 601, 50):
        warm.fit(X[:end], y[:end])
        cold.fit(X[:end], y[:end])
        iterations["warm"] += warm.model_.n_iter_[0]
        iterations["cold"] += cold.model_.n_iter_[0]
        np.testing.assert_allclose(warm.relevance_scores(X), cold.relevance_scores(X), rtol=0.05, atol=0.05)
    assert iterations["warm"] < 0.8 * iterations["cold"]


def test_warm_start_needs_lbfgs():
    with pytest.raises(ConfigError, match="warm_start needs solver=lbfgs"):
        make_learner("logistic:solver=liblinear,warm_start=true")


def _ledger(out) -> str:
    return next((out / "ledgers").glob("*.jsonl")).read_text(encoding="utf-8")


def test_the_warm_start_preset_is_recorded_and_deterministic(tmp_path):
    """Same seed, same ledger; the header names the warm start; asreview-logistic's header does not."""
    args = ["--batch", "10", "--max-effort", "60", "--effort", "judge", "--seed", "3"]
    outs = {}
    for name, preset in (("a", "asreview-logistic-warm-start"), ("b", "asreview-logistic-warm-start"),
                         ("exact", "asreview-logistic")):  # fmt: skip
        outs[name] = tmp_path / name
        assert main(["simulate", "--preset", preset, *args, "--out", str(outs[name])]) == 0
    assert _ledger(outs["a"]) == _ledger(outs["b"])
    header = json.loads(_ledger(outs["a"]).splitlines()[0])
    exact = json.loads(_ledger(outs["exact"]).splitlines()[0])
    assert "warm_start=True" in header["learner"]
    assert "warm_start" not in exact["learner"]
