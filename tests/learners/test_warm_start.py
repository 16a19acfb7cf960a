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
from tarsim.learners.estimators import ASReviewModel
from tarsim.learners.named import make_learner


def _problem(seed: int, rows: int = 400, columns: int = 300) -> tuple[sp.csr_matrix, np.ndarray]:
    """A sparse, learnable binary problem: the label follows a hidden linear rule of the features."""
    rng = np.random.default_rng(seed)
    X = sp.random(rows, columns, density=0.05, format="csr", random_state=seed)
    y = (X @ rng.normal(size=columns) > 0).astype(np.int64)
    return X, y


def test_a_warm_started_refit_starts_from_the_last_coefficients():
    X, y = _problem(0)
    warm = ASReviewModel(LogisticRegression(), balance="balanced", warm_start=True)
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


def test_only_an_asked_for_warm_start_refits_the_same_model():
    """A classifier's own warm_start is not enough: a random forest with it would add no trees and go stale."""
    from sklearn.ensemble import RandomForestClassifier

    X, y = _problem(2)
    forest = ASReviewModel(RandomForestClassifier(n_estimators=5, warm_start=True))
    forest.fit(X[:200], y[:200])
    first = forest.model_
    forest.fit(X, y)
    assert forest.model_ is not first  # a fresh clone, fitted on every row
    warm = make_learner("logistic:warm_start=true")
    warm.fit(X[:200], y[:200])
    first = warm.model_
    warm.fit(X, y)
    assert warm.model_ is first


def test_warm_start_needs_lbfgs_and_is_refused_when_read(tmp_path, capsys):
    with pytest.raises(ConfigError, match="warm_start needs solver=lbfgs"):
        make_learner("logistic:solver=liblinear,warm_start=true")
    out = tmp_path / "out"
    code = main(["simulate", "--learner", "logistic:solver=liblinear,warm_start=true", "--out", str(out)])
    assert code == 2 and not out.exists()  # refused before any feature is built or folder made
    assert "warm_start needs solver=lbfgs" in capsys.readouterr().err


@pytest.mark.slow
def test_a_user_supplied_learner_starts_every_topic_afresh():
    """One estimator object for several topics: each topic's review is the one it gets alone (no carried fit)."""
    from tarsim import simulate

    def learner() -> ASReviewModel:
        return ASReviewModel(LogisticRegression(), balance="balanced", warm_start=True)

    settings = {"max_effort": "60", "batch": "10", "effort": ("judge",)}
    given = learner()
    together = simulate(topic=["T1", "T2"], learner=given, **settings)
    alone = simulate(topic=["T2"], learner=learner(), **settings)
    assert list(together.ledgers["T2"].docids) == list(alone.ledgers["T2"].docids)
    assert not hasattr(given, "model_")  # each topic fitted its own copy; the object given was never fitted


@pytest.mark.slow
def test_the_preset_fits_fewer_iterations_inside_a_review(monkeypatch):
    """Inside a review the preset's fits start warm: fewer lbfgs iterations in all than the exact preset's."""
    from tarsim import simulate

    iterations = []
    fit = ASReviewModel.fit

    def counted(model, X, y):
        result = fit(model, X, y)
        iterations.append(int(model.model_.n_iter_[0]))
        return result

    monkeypatch.setattr(ASReviewModel, "fit", counted)
    totals = {}
    for preset in ("asreview-logistic", "asreview-logistic-warm-start"):
        iterations.clear()
        simulate(topic="T2", preset=preset, max_effort="200", effort=("judge",), seeding="random", seed=1)
        totals[preset] = sum(iterations)
    assert totals["asreview-logistic-warm-start"] < 0.8 * totals["asreview-logistic"]


def _ledger(out) -> str:
    return next((out / "ledgers").glob("*.jsonl")).read_text(encoding="utf-8")


@pytest.mark.slow
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
