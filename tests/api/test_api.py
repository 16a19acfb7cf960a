"""The Python API mirrors the CLI; any scikit-learn classifier can be the learner."""

from __future__ import annotations

import pandas as pd
import pytest
from sklearn.linear_model import SGDClassifier
from sklearn.naive_bayes import ComplementNB

import tarsim
from tarsim.errors import ConfigError
from tarsim.simulator import ReviewConfig


@pytest.mark.slow
def test_simulate_returns_ledgers_curves_tables_and_a_dataframe(tmp_path):
    result = tarsim.simulate(topic=["T1", "T2"], effort=("judge", "sent"), out=tmp_path, max_effort="3R")
    assert set(result.ledgers) == {"T1", "T2"}
    frame = result.to_frame()
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == ["topic", "strategy", "effort_model", "a", "b", "effort", "recall"]
    assert len(frame) == 2 * 2 * 9
    curves = result.curves("sent")
    assert curves["T1"].effort[-1] == result.ledgers["T1"].effort["sent"].sum()
    reopened = tarsim.SimulationResult.from_directory(tmp_path, ("judge", "sent"))
    pd.testing.assert_frame_equal(reopened.to_frame(), frame)
    assert "docs_to_95" in result.summary().columns


@pytest.mark.slow
@pytest.mark.parametrize("learner", [SGDClassifier(loss="log_loss", random_state=0), ComplementNB()])
def test_any_classifier_with_scores_plugs_in(demo, learner):
    result = tarsim.simulate(demo, topic="T2", learner=learner, max_effort="2R+100")
    ledger = result.ledgers["T2"]
    assert type(learner).__name__ in ledger.header["learner"]
    found = (ledger.truth > 0).sum() / ledger.relevant
    assert found > 0.5  # a random review of this budget (334 of 2,000 documents) finds about 17%


@pytest.mark.slow
def test_named_logistic_learner_is_asreviews_classifier_and_is_recorded(demo):
    """learner="logistic" reviews exactly as passing scikit-learn's LogisticRegression(class_weight="balanced")
    (ASReview's logistic + balanced), and differently from the BMI learner; the name is in the ledger."""
    from sklearn.linear_model import LogisticRegression

    by_name = tarsim.simulate(demo, topic="T2", learner="logistic", max_effort="2R+100").ledgers["T2"]
    explicit = LogisticRegression(class_weight="balanced", random_state=0)
    by_object = tarsim.simulate(demo, topic="T2", learner=explicit, max_effort="2R+100").ledgers["T2"]
    bmi = tarsim.simulate(demo, topic="T2", max_effort="2R+100").ledgers["T2"]
    assert by_name.docids == by_object.docids
    assert by_name.docids != bmi.docids
    assert by_name.header["config"]["learner"] == "logistic"
    assert by_name.header["learner"] == "LogisticRegression(class_weight='balanced')"
    assert bmi.header["config"]["learner"] == "bmi"
    with pytest.raises(ConfigError, match=r"a learner name .* or an estimator, not both"):
        tarsim.simulate(demo, topic="T2", config=ReviewConfig(learner="logistic"), learner=explicit)
    with pytest.raises(ConfigError, match="learner 'logistic' has none"):
        ReviewConfig(learner="logistic", lambda_=0.01)


def test_unknown_named_learner_is_rejected():
    with pytest.raises(ConfigError, match=r"learner 'svn' unknown; accepted: bmi, logistic, nb, svm, rf, pegasos"):
        ReviewConfig(learner="svn")


def test_a_learner_that_cannot_rank_is_rejected(demo):
    class Bare:
        def fit(self, X, y):
            return self

    with pytest.raises(ConfigError, match="decision_function or predict_proba"):
        tarsim.simulate(demo, topic="T1", learner=Bare())


@pytest.mark.slow
def test_ranking_by_best_sentence_changes_the_review(demo):
    by_document = tarsim.simulate(demo, topic="T3", max_effort="200").ledgers["T3"]
    by_sentence = tarsim.simulate(demo, topic="T3", max_effort="200", rank_by="sentence").ledgers["T3"]
    assert by_document.docids != by_sentence.docids
    assert by_sentence.header["config"]["rank_by"] == "sentence"


def test_probability_learners_score_as_log_odds_so_uncertainty_finds_the_boundary():
    import numpy as np
    import scipy.sparse as sp

    from tarsim.learners.named import fit_and_score
    from tarsim.policies import make_selection_policy

    X = sp.csr_matrix(np.array([[3.0, 0.0], [0.0, 3.0], [2.0, 0.0], [0.0, 2.0]]))
    y = np.array([1, 0, 1, 0])
    targets = sp.csr_matrix(np.array([[0.0, 5.0], [1.0, 1.0], [5.0, 0.0]]))
    (scores,) = fit_and_score(ComplementNB(), X, y, targets)
    assert scores[2] > 0 > scores[0]  # relevant-looking positive, non-relevant-looking negative
    chosen = make_selection_policy("uncertainty").select(scores, np.arange(3), 1, np.random.default_rng(0))
    assert list(chosen) == [1]  # the mixed document sits at the boundary
