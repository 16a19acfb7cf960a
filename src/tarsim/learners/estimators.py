"""tarsim's own scikit-learn estimators: BMI's logistic regression, ASReview's way of training a classifier and
HiCAL's Pegasos ranker (its loop: tarsim.learners.pegasos).

Kept apart from tarsim.learners.named (the named learners a configuration chooses from) because defining them imports
scikit-learn, which takes a second or two: only a review that fits a model imports this module.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from tarsim.errors import ConfigError
from tarsim.learners.roc_loop import HICAL_ITERATIONS, compiled_roc_loop
from tarsim.learners.weights import DEFAULT_LAMBDA, balanced_weights


class BMILogisticRegression(ClassifierMixin, BaseEstimator):
    """Logistic regression regularised as BMI's Pegasos learner (lambda on the mean loss), class-balanced."""

    def __init__(self, lambda_: float = DEFAULT_LAMBDA, max_iter: int = 1000, random_state: int | None = 0) -> None:
        self.lambda_ = lambda_
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: sp.spmatrix, y: np.ndarray, sample_weight: np.ndarray | None = None) -> BMILogisticRegression:
        if self.lambda_ <= 0:
            raise ConfigError(f"lambda_ must be > 0, got {self.lambda_}")
        from sklearn.linear_model import LogisticRegression

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


class ASReviewModel(ClassifierMixin, BaseEstimator):
    """A classifier trained and scored as ASReview trains and ranks: optional Balanced sample weights, float64
    scores from predict_proba[:, 1] when the classifier has it (as log-odds, so 0 is the boundary) else from
    decision_function, and one random stream per review (ASReview seeds numpy's global generator once and every
    fit of LinearSVC or a random forest draws from it), so it is refitted in place rather than cloned.

    With `warm_start` (the logistic learner's `warm_start=true`) the classifier is cloned once, with its own
    scikit-learn `warm_start` on, and then refitted itself, so that each fit starts where the last one ended;
    ASReview clones a fresh one every time."""

    refit_in_place = True

    def __init__(
        self,
        classifier: BaseEstimator,
        balance: str = "none",
        ratio: float = 1.0,
        seed: int = 0,
        warm_start: bool = False,
    ) -> None:
        self.classifier = classifier
        self.balance = balance
        self.ratio = ratio
        self.seed = seed
        self.warm_start = warm_start
        self.stream_ = np.random.RandomState(seed)

    def fit(self, X: sp.spmatrix, y: np.ndarray) -> ASReviewModel:
        weights = balanced_weights(y, self.ratio) if self.balance == "balanced" else None
        if self.warm_start and getattr(self, "model_", None) is not None:
            model = self.model_  # starts from its own coefficients
        else:
            model = clone(self.classifier)
            if "random_state" in model.get_params():
                model.set_params(random_state=self.stream_)
            if self.warm_start:
                model.set_params(warm_start=True)
        self.model_ = model.fit(X, y, sample_weight=weights)
        self.classes_ = self.model_.classes_
        return self

    def relevance_scores(self, X: sp.spmatrix) -> np.ndarray:
        """ASReview's ranking score of each row, in float64 (log-odds for probabilities: same order)."""
        if hasattr(self.model_, "predict_proba"):
            probability = self.model_.predict_proba(X)[:, list(self.classes_).index(1)].astype(np.float64)
            with np.errstate(divide="ignore"):
                return np.log(probability) - np.log1p(-probability)
        return np.asarray(self.model_.decision_function(X), dtype=np.float64).ravel()

    def decision_function(self, X: sp.spmatrix) -> np.ndarray:
        return self.relevance_scores(X)

    def predict(self, X: sp.spmatrix) -> np.ndarray:
        return self.model_.predict(X)


class PegasosRank(ClassifierMixin, BaseEstimator):
    """Linear ranker trained as HiCAL trains BMI's: Pegasos SGD on the pairwise logistic loss (sofia-ml ROC loop)."""

    def __init__(
        self, lambda_: float = DEFAULT_LAMBDA, iterations: int = HICAL_ITERATIONS, random_state: int | None = 0
    ) -> None:
        self.lambda_ = lambda_
        self.iterations = iterations
        self.random_state = random_state

    def fit(self, X: sp.spmatrix, y: np.ndarray) -> PegasosRank:
        """Fit on rows of X labelled 1 (relevant) or 0; needs at least one of each."""
        if self.lambda_ <= 0:
            raise ConfigError(f"lambda_ must be > 0, got {self.lambda_}")
        if self.iterations < 1:
            raise ConfigError(f"iterations must be >= 1, got {self.iterations}")
        X = sp.csr_matrix(X, dtype=np.float64)
        X.sort_indices()
        y = np.asarray(y)
        positives = np.flatnonzero(y > 0).astype(np.int64)
        negatives = np.flatnonzero(y <= 0).astype(np.int64)
        if not len(positives) or not len(negatives):
            raise ConfigError("the pegasos learner needs at least one relevant and one non-relevant example")
        rng = np.random.default_rng(self.random_state)
        pairs_a = rng.integers(0, len(positives), size=self.iterations)
        pairs_b = rng.integers(0, len(negatives), size=self.iterations)
        weights = compiled_roc_loop()(
            X.indptr.astype(np.int64),
            X.indices.astype(np.int64),
            X.data,
            positives,
            negatives,
            pairs_a,
            pairs_b,
            float(self.lambda_),
            X.shape[1],
        )
        self.classes_ = np.array([0, 1])
        self.coef_ = weights.reshape(1, -1)
        self.intercept_ = np.zeros(1)
        return self

    def decision_function(self, X: sp.spmatrix) -> np.ndarray:
        """w . x for each row (no bias: only the order matters)."""
        return np.asarray(X @ self.coef_.ravel()).ravel()

    def predict(self, X: sp.spmatrix) -> np.ndarray:
        """1 where w . x > 0."""
        return (self.decision_function(X) > 0).astype(np.int64)
