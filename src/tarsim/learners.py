"""The CAL classifier: any scikit-learn classifier with `decision_function` or `predict_proba`.

The default mimics BMI's sofia-ml learner (logistic loss, Pegasos regularisation lambda = 1e-4 on the
mean loss, ROC-loop sampling that balances relevant and non-relevant examples) with scikit-learn's
LogisticRegression: C = 1 / (lambda * n) turns Pegasos' mean-loss objective into scikit-learn's sum-loss
one, and class_weight="balanced" stands in for the ROC loop's pairwise balancing. liblinear's dual solver
finds the same optimum as its primal one here, 10 to 20 times faster on Reuters (n << vocabulary size).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import ClassVar

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression

from tarsim.components import Param, kind, register
from tarsim.errors import ConfigError

DEFAULT_LAMBDA = 1e-4
"""BMI's regularisation (sofia-ml's Pegasos lambda)."""


class BMILogisticRegression(ClassifierMixin, BaseEstimator):
    """Logistic regression regularised as BMI's Pegasos learner (lambda on the mean loss), class-balanced."""

    def __init__(self, lambda_: float = DEFAULT_LAMBDA, max_iter: int = 1000, random_state: int | None = 0) -> None:
        self.lambda_ = lambda_
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: sp.spmatrix, y: np.ndarray, sample_weight: np.ndarray | None = None) -> BMILogisticRegression:
        if self.lambda_ <= 0:
            raise ConfigError(f"lambda_ must be > 0, got {self.lambda_}")
        C = 1.0 / (self.lambda_ * X.shape[0])
        self.model_ = LogisticRegression(
            C=C,
            class_weight="balanced",
            solver="liblinear",
            dual=True,
            max_iter=self.max_iter,
            random_state=self.random_state,
        )
        self.model_.fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        self.coef_ = self.model_.coef_
        self.intercept_ = self.model_.intercept_
        return self

    def decision_function(self, X: sp.spmatrix) -> np.ndarray:
        return self.model_.decision_function(X)

    def predict(self, X: sp.spmatrix) -> np.ndarray:
        return self.model_.predict(X)


class Learner:
    """A named learner: builds an unfitted scikit-learn classifier for one review."""

    name: ClassVar[str] = ""
    record: ClassVar[str] = ""  # what a ledger header's `learner` says
    uses_lambda: ClassVar[bool] = False  # whether the review's `lambda` setting applies
    params: ClassVar[tuple[Param, ...]] = ()

    def __init__(self, **params: object) -> None:
        self.settings = params

    def estimator(self, lambda_: float, random_state: int | None) -> BaseEstimator:  # pragma: no cover
        raise NotImplementedError


@register("learner")
class BMILearner(Learner):
    """BMI's logistic regression: C = 1 / (lambda n), class-balanced, liblinear dual (the default)."""

    name = "bmi"
    record = "BMILogisticRegression (default)"
    uses_lambda = True

    def estimator(self, lambda_: float, random_state: int | None) -> BaseEstimator:
        return BMILogisticRegression(lambda_=lambda_, random_state=random_state)


@register("learner")
class LogisticLearner(Learner):
    """scikit-learn's LogisticRegression defaults (C = 1, lbfgs), class-balanced: ASReview's `logistic`."""

    name = "logistic"
    record = "LogisticRegression(class_weight='balanced')"

    def estimator(self, lambda_: float, random_state: int | None) -> BaseEstimator:
        return LogisticRegression(class_weight="balanced", random_state=random_state)


class _LearnerTable(Mapping):
    """name -> text, over the learner registry (plugins included), so that new learners need no second list."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __getitem__(self, name: str) -> str:
        cls, _ = kind("learner").resolve(name)
        return getattr(cls, self.text) if self.text == "record" else (cls.__doc__ or "").strip().splitlines()[0]

    def __iter__(self) -> Iterator[str]:
        return iter(kind("learner").names())

    def __len__(self) -> int:
        return len(kind("learner").names())


LEARNERS: Mapping[str, str] = _LearnerTable("summary")
"""Learners a configuration can name (ReviewConfig.learner, `tarsim simulate --learner`, a sweep's `learner`)."""

LEARNER_RECORDS: Mapping[str, str] = _LearnerTable("record")
"""What a ledger header's `learner` says for each named learner (the bmi text predates named learners)."""


def learner_uses_lambda(spec: str) -> bool:
    """Whether the named learner takes the review's `lambda` (BMI's regularisation)."""
    cls, _ = kind("learner").resolve(spec)
    return bool(cls.uses_lambda)


def make_learner(name: str, lambda_: float = DEFAULT_LAMBDA, random_state: int | None = 0) -> BaseEstimator:
    """The named learner (see LEARNERS), unfitted."""
    learner = kind("learner").make(name)
    return learner.estimator(lambda_, random_state)


def check_learner(estimator: object) -> None:
    """Reject estimators that cannot rank: they need `fit` and `decision_function` or `predict_proba`."""
    if not hasattr(estimator, "fit") or not (
        hasattr(estimator, "decision_function") or hasattr(estimator, "predict_proba")
    ):
        raise ConfigError(
            f"learner {type(estimator).__name__} must be a scikit-learn classifier with fit and "
            "decision_function or predict_proba"
        )


def fit_and_score(estimator: BaseEstimator, X: sp.spmatrix, y: np.ndarray, *targets: sp.spmatrix) -> list[np.ndarray]:
    """Fit a fresh clone on (X, y) and return a relevance score for the rows of each target matrix.

    Scores are linear decision values when the estimator has them (cheap: one sparse product each), else the
    log-odds of the relevant class's probability, so that 0 is the decision boundary for every learner (what
    uncertainty sampling relies on) and the ranking is the probability's.
    """
    model = clone(estimator).fit(X, y)
    if hasattr(model, "coef_") and hasattr(model, "intercept_") and hasattr(model, "decision_function"):
        weights = np.asarray(model.coef_, dtype=np.float32).ravel()
        bias = np.float32(np.ravel(model.intercept_)[0])
        return [np.asarray(target @ weights).ravel() + bias for target in targets]
    if hasattr(model, "decision_function"):
        return [np.asarray(model.decision_function(target), dtype=np.float64).ravel() for target in targets]
    positive = list(model.classes_).index(1)
    scores = []
    for target in targets:
        probability = np.clip(model.predict_proba(target)[:, positive], 1e-12, 1 - 1e-12)
        scores.append(np.log(probability) - np.log1p(-probability))
    return scores
