"""The CAL classifier: any scikit-learn classifier with `decision_function` or `predict_proba`.

The default mimics BMI's sofia-ml learner (logistic loss, Pegasos regularisation lambda = 1e-4 on the
mean loss, ROC-loop sampling that balances relevant and non-relevant examples) with scikit-learn's
LogisticRegression: C = 1 / (lambda * n) turns Pegasos' mean-loss objective into scikit-learn's sum-loss
one, and class_weight="balanced" stands in for the ROC loop's pairwise balancing. liblinear's dual solver
finds the same optimum as its primal one here, 10 to 20 times faster on Reuters (n << vocabulary size).

Each scikit-learn estimator is imported where it is built: a review pays only for the learner it names (the
random forest's module alone costs 0.1-0.2 s at start-up), and nothing imports scikit-learn (1-2 s) before the
first feature build or fit, so a cold review starts segmenting first (tarsim.text.sentences). tarsim's own estimators
live in tarsim.learners.estimators.
"""

from __future__ import annotations

import threading
from abc import abstractmethod
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import scipy.sparse as sp

from tarsim.components import Param, kind, register
from tarsim.errors import ConfigError
from tarsim.learners.weights import DEFAULT_LAMBDA

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator


class Learner:
    """A named learner: builds an unfitted scikit-learn classifier for one review."""

    name: ClassVar[str] = ""
    record: ClassVar[str] = ""  # what a ledger header's `learner` says
    uses_lambda: ClassVar[bool] = False  # whether the review's `lambda` setting applies
    params: ClassVar[tuple[Param, ...]] = ()

    def __init__(self, **params: object) -> None:
        self.settings = params

    @abstractmethod
    def estimator(self, lambda_: float, random_state: int | None) -> BaseEstimator:  # pragma: no cover
        raise NotImplementedError


@register("learner")
class BMILearner(Learner):
    """BMI's logistic regression: C = 1 / (lambda n), class-balanced, liblinear dual (the default)."""

    name = "bmi"
    record = "BMILogisticRegression (default)"
    uses_lambda = True

    def estimator(self, lambda_: float, random_state: int | None) -> BaseEstimator:
        from tarsim.learners.estimators import BMILogisticRegression

        return BMILogisticRegression(alpha=lambda_, random_state=random_state)


BALANCE_PARAMS = (
    Param("balance", str, "none", "training-data balancing (ASReview's `balanced` sample weights)",
          choices=("none", "balanced")),
    Param("ratio", float, 1.0, "balanced: weight of the relevant class relative to the rest", low=0, low_open=True),
)  # fmt: skip
"""Every ASReview-style learner takes these: `svm:balance=balanced,ratio=9.8` is ASReview's `-b balanced`."""


class ASReviewLearner(Learner):
    """A learner with ASReview's settings: its classifier's parameters plus the `balance` and `ratio` ones."""

    recorded_if_set: ClassVar[Mapping[str, object]] = {}
    """Parameters a ledger's `learner` record names only when they differ from these values: parameters added
    after ledgers recorded the others, so that those ledgers' records stay as they were."""

    @abstractmethod
    def classifier(self, random_state: int | None) -> BaseEstimator:  # pragma: no cover - interface
        raise NotImplementedError

    def estimator(self, lambda_: float, random_state: int | None) -> BaseEstimator:
        settings = dict(self.settings)
        balance, ratio = settings.pop("balance", "none"), settings.pop("ratio", 1.0)
        from tarsim.learners.estimators import ASReviewModel

        warm = bool(settings.get("warm_start", False))
        stream = np.random.RandomState(random_state or 0)  # one stream for the review's every fit, as ASReview
        return ASReviewModel(self.classifier(random_state), balance, ratio, stream, warm_start=warm)

    @classmethod
    def record_for(cls, params: dict) -> str:
        """The ledger header's `learner`: the class with every declared setting (see recorded_if_set)."""
        unset = object()
        shown = {k: v for k, v in params.items() if cls.recorded_if_set.get(k, unset) != v}
        return f"{cls.record}({', '.join(f'{k}={v!r}' for k, v in shown.items())})"


@register("learner")
class LogisticLearner(ASReviewLearner):
    """scikit-learn's LogisticRegression (C = 1, lbfgs), class-balanced unless class_weight=none (ASReview's
    `logistic` is `logistic:class_weight=none`)."""

    name = "logistic"
    record = "LogisticRegression(class_weight='balanced')"
    params = (
        Param("C", float, 1.0, "inverse regularisation strength", low=0, low_open=True),
        Param("class_weight", str, "balanced", "scikit-learn's class weights", choices=("balanced", "none")),
        Param(
            "solver",
            str,
            "lbfgs",
            "scikit-learn's solver (TARexp's default ranker uses liblinear)",
            choices=("lbfgs", "liblinear"),
        ),
        Param(
            "warm_start",
            bool,
            False,
            "start each refit from the last fit's coefficients (lbfgs only): fewer iterations, orders may differ",
        ),
        *BALANCE_PARAMS,
    )
    recorded_if_set: ClassVar[Mapping[str, object]] = {"warm_start": False}

    def estimator(self, lambda_: float, random_state: int | None) -> BaseEstimator:
        from sklearn.linear_model import LogisticRegression

        if self.settings == {p.name: p.default for p in self.params}:  # tarsim's logistic, as ledgers record it
            return LogisticRegression(class_weight="balanced", random_state=random_state)
        return super().estimator(lambda_, random_state)

    @staticmethod
    def check_combination(settings: Mapping[str, object]) -> None:
        """Refuse, when the spec is read, settings that cannot go together."""
        if settings["warm_start"] and settings["solver"] != "lbfgs":
            raise ConfigError("warm_start needs solver=lbfgs (liblinear always starts from zero)")

    def classifier(self, random_state: int | None) -> BaseEstimator:
        from sklearn.linear_model import LogisticRegression

        settings = self.settings
        weight = None if settings["class_weight"] == "none" else "balanced"
        return LogisticRegression(C=settings["C"], class_weight=weight, solver=settings["solver"])

    @classmethod
    def record_for(cls, params: dict) -> str:
        return cls.record if params == {p.name: p.default for p in cls.params} else super().record_for(params)


@register("learner")
class NaiveBayesLearner(ASReviewLearner):
    """Multinomial naive Bayes (ASReview's `nb`; its elas_u3 model uses alpha 3.822). Unbalanced, as ASReview's
    class is, it ranks a rare relevant class badly (Recall@2R+100 0.0 on srd ADHD, 0.90 with
    `nb:alpha=3.822,balance=balanced`): ASReview always pairs it with balancing, so give `balance=balanced`."""

    name = "nb"
    record = "MultinomialNB"
    params = (Param("alpha", float, 1.0, "additive smoothing", low=0), *BALANCE_PARAMS)

    def classifier(self, random_state: int | None) -> BaseEstimator:
        from sklearn.naive_bayes import MultinomialNB

        return MultinomialNB(alpha=self.settings["alpha"])


@register("learner")
class SVMLearner(ASReviewLearner):
    """Linear support vector machine, scored by its decision function (ASReview's `svm`; elas_u4 is
    `svm:C=0.11,balance=balanced,ratio=9.8`)."""

    name = "svm"
    record = "LinearSVC"
    params = (
        Param("C", float, 1.0, "inverse regularisation strength", low=0, low_open=True),
        Param("loss", str, "squared_hinge", "the loss", choices=("hinge", "squared_hinge")),
        Param("max_iter", int, 1000, "liblinear's iteration limit", low=1),
        *BALANCE_PARAMS,
    )

    def classifier(self, random_state: int | None) -> BaseEstimator:
        from sklearn.svm import LinearSVC

        settings = self.settings
        return LinearSVC(C=settings["C"], loss=settings["loss"], max_iter=settings["max_iter"])


@register("learner")
class RandomForestLearner(ASReviewLearner):
    """Random forest (ASReview's `rf`: scikit-learn's defaults)."""

    name = "rf"
    record = "RandomForestClassifier"
    params = (
        Param("n_estimators", int, 100, "trees", low=1),
        Param("max_features", str, "sqrt", "features tried per split", choices=("sqrt", "log2")),
        *BALANCE_PARAMS,
    )

    def classifier(self, random_state: int | None) -> BaseEstimator:
        from sklearn.ensemble import RandomForestClassifier

        settings = self.settings
        return RandomForestClassifier(n_estimators=settings["n_estimators"], max_features=settings["max_features"])


class _LearnerTable(Mapping):
    """name -> text, over the learner registry (plugins included), so that new learners need no second list."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __getitem__(self, name: str) -> str:
        cls, params = kind("learner").resolve(name)
        if self.text != "record":
            return (cls.__doc__ or "").strip().splitlines()[0]
        return cls.record_for(params) if hasattr(cls, "record_for") else cls.record

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


def seeded(estimator: BaseEstimator, seed: int) -> BaseEstimator:
    """The estimator with every `random_state` left unset (None) set to the review's seed, nested ones included
    (`estimator__random_state`): the same seed then gives the same review, as it does with a named learner."""
    unset = {key: seed for key, value in estimator.get_params(deep=True).items() if key.endswith("random_state")
             and value is None}  # fmt: skip
    return estimator.set_params(**unset) if unset else estimator


def check_learner(estimator: object) -> None:
    """Reject estimators that cannot rank: they need `fit` and `decision_function` or `predict_proba`."""
    if isinstance(estimator, type):
        raise ConfigError(f"learner {estimator.__name__} is a class: give an instance, {estimator.__name__}(...)")
    if not hasattr(estimator, "fit") or not (
        hasattr(estimator, "decision_function") or hasattr(estimator, "predict_proba")
    ):
        raise ConfigError(
            f"learner {type(estimator).__name__} must be a scikit-learn classifier with fit and "
            "decision_function or predict_proba"
        )


FIT_LOCK = threading.Lock()
"""Held by every fit of a review's learner and of the gold oracle (simulator.oracle.FittingLabels): liblinear draws
from one random generator per process, reseeded at the start of each fit, so two fits at once on two threads would
change each other's coefficients. With the lock, each fit gives the coefficients it gives alone."""


def fit_and_score(estimator: BaseEstimator, X: sp.spmatrix, y: np.ndarray, *targets: sp.spmatrix) -> list[np.ndarray]:
    """Fit a fresh clone on (X, y) and return a relevance score for the rows of each target matrix.

    Scores are linear decision values when the estimator has them (cheap: one sparse product each), else the
    log-odds of the relevant class's probability, so that 0 is the decision boundary for every learner (what
    uncertainty sampling relies on) and the ranking is the probability's.
    """
    if getattr(estimator, "refit_in_place", False):  # ASReview's way: its random stream runs on over the review
        with FIT_LOCK:
            model = estimator.fit(X, y)
        return [model.relevance_scores(target) for target in targets]
    from sklearn.base import clone

    with FIT_LOCK:
        model = clone(estimator).fit(X, y)
    if hasattr(model, "coef_") and hasattr(model, "intercept_") and hasattr(model, "decision_function"):
        weights = np.asarray(model.coef_, dtype=np.float32).ravel()
        bias = np.float32(np.ravel(model.intercept_)[0])
        from tarsim.learners.scoring import linear_scores  # large collections: row blocks on threads, the same floats

        return [linear_scores(target, weights, bias) for target in targets]
    if hasattr(model, "decision_function"):
        return [np.asarray(model.decision_function(target), dtype=np.float64).ravel() for target in targets]
    positive = list(model.classes_).index(1)
    scores = []
    for target in targets:
        probability = np.clip(model.predict_proba(target)[:, positive], 1e-12, 1 - 1e-12)
        scores.append(np.log(probability) - np.log1p(-probability))
    return scores
