"""A scikit-learn estimator object as the learner: seeded by the review's seed (the same seed, the same review), told
apart from the default learner in compare and metrics, and a fit it cannot make reported in one line."""

from __future__ import annotations

import pytest
from sklearn.calibration import CalibratedClassifierCV
from sklearn.linear_model import SGDClassifier
from sklearn.svm import LinearSVC

import tarsim
from tarsim.cli import main
from tarsim.errors import ConfigError
from tarsim.learners.named import seeded


def test_an_estimators_unset_random_states_take_the_reviews_seed():
    nested = seeded(CalibratedClassifierCV(LinearSVC()), 7).get_params(deep=True)
    assert nested["estimator__random_state"] == 7
    assert seeded(SGDClassifier(random_state=3), 7).random_state == 3  # a seed the user set stays


def test_the_same_seed_gives_the_same_review_with_a_randomised_estimator(tmp_path):
    for name in ("a", "b"):
        tarsim.simulate(topic="T2", seed=1, learner=SGDClassifier(loss="log_loss"), out=tmp_path / name)
    first, second = ((tmp_path / name / "ledgers" / "T2.jsonl").read_bytes() for name in ("a", "b"))
    assert first == second


@pytest.mark.slow
def test_an_estimator_run_is_its_own_group_beside_the_default_learner(tmp_path, capsys):
    tarsim.simulate(topic="T1", seed=1, learner=SGDClassifier(loss="log_loss"), out=tmp_path / "sgd")
    tarsim.simulate(topic="T1", seed=1, out=tmp_path / "bmi")
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "sgd"), str(tmp_path / "bmi"), "--baseline", "learner=bmi"]) == 0
    assert "learner=SGDClassifier(loss='log_loss')" in capsys.readouterr().out
    assert main(["metrics", str(tmp_path / "sgd"), str(tmp_path / "bmi")]) == 0
    assert "tarsim document/document; learner SGDClassifier(loss='log_loss')" in capsys.readouterr().out


def test_a_learner_that_cannot_fit_is_reported_in_one_line_naming_it_and_the_training_set():
    learner = CalibratedClassifierCV(LinearSVC(), cv=2)  # 2-fold calibration needs 2 relevant examples
    with pytest.raises(ConfigError) as raised:
        tarsim.simulate(topic="T1", seed=1, learner=learner, seeding="random")
    message = str(raised.value)
    assert message.startswith("learner CalibratedClassifierCV failed to fit or score topic 'T1' on 1 relevant and ")
    assert "ValueError: Requesting 2-fold cross-validation" in message and "\n" not in message


def test_a_pipelines_label_is_one_line(tmp_path, capsys):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MaxAbsScaler

    pipeline = make_pipeline(MaxAbsScaler(), SGDClassifier(loss="log_loss", alpha=1e-3, penalty="elasticnet"))
    assert "\n" in repr(pipeline)  # scikit-learn prints it over several lines
    tarsim.simulate(topic="T1", seed=1, learner=pipeline, out=tmp_path / "p")
    capsys.readouterr()
    assert main(["metrics", str(tmp_path / "p"), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "learner Pipeline(steps=[('maxabsscaler', MaxAbsScaler()), ('sgdclassifier'," in out


def test_a_builtin_learners_failure_keeps_its_traceback(monkeypatch):
    import tarsim.simulator.review as review

    def broken(*args, **kwargs):
        raise ValueError("a bug inside tarsim")

    monkeypatch.setattr(review, "fit_and_score", broken)
    with pytest.raises(ValueError, match="a bug inside tarsim"):
        tarsim.simulate(topic="T1", seed=1)


def test_an_estimator_class_instead_of_an_instance_is_one_line():
    with pytest.raises(ConfigError, match=r"learner SGDClassifier is a class: give an instance, SGDClassifier\("):
        tarsim.simulate(topic="T1", learner=SGDClassifier)
