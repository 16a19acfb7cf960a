"""tarsim's own scikit-learn estimators: BMI's logistic regression, ASReview's way of training a classifier and
HiCAL's Pegasos ranker (its loop: tarsim.learners.pegasos).

Kept apart from tarsim.learners.named (the named learners a configuration chooses from) because defining them imports
scikit-learn, which takes a second or two: only a review that fits a model imports this module.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import Tags, check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from tarsim.errors import ConfigError
from tarsim.learners.roc_loop import HICAL_ITERATIONS, compiled_roc_loop
from tarsim.learners.weights import DEFAULT_LAMBDA, balanced_weights


def _binary_classes(y: np.ndarray, name: str) -> np.ndarray:
    """The two classes of a binary target (sorted: classes_[1] is the relevant one), else a ValueError."""
    check_classification_targets(y)
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(
            f"Only binary classification is supported. {name} needs one relevant and one non-relevant example "
            f"(two classes): y has {len(classes)} class(es)"
        )
    return classes


class _WrappedBinaryClassifier(ClassifierMixin, BaseEstimator):
    """A binary classifier on sparse rows that predicts with the scikit-learn classifier it fitted (`model_`)."""

    def predict(self, X: sp.spmatrix) -> np.ndarray:
        check_is_fitted(self)
        return self.model_.predict(validate_data(self, X, accept_sparse=True, reset=False))

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False
        return tags


class BMILogisticRegression(_WrappedBinaryClassifier):
    """Binary logistic regression regularised as BMI's Pegasos learner (`alpha`, BMI's lambda, on the mean loss, as
    SGDClassifier's `alpha`), class-balanced: scikit-learn's LogisticRegression with C = 1 / (alpha n), liblinear."""

    def __init__(
        self, alpha: float = DEFAULT_LAMBDA, tol: float = 1e-4, max_iter: int = 1000, random_state: int | None = 0
    ) -> None:
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X: sp.spmatrix, y: np.ndarray, sample_weight: np.ndarray | None = None) -> BMILogisticRegression:
        if not self.alpha > 0:
            raise ConfigError(f"alpha (lambda) must be > 0, got {self.alpha}")
        from sklearn.linear_model import LogisticRegression

        X, y = validate_data(self, X, y, accept_sparse=True)
        _binary_classes(y, type(self).__name__)  # liblinear fits two classes only (scikit-learn >= 1.8)
        n = X.shape[0]  # the mean loss over the rows (weighted: a row of weight 2 counts as that row twice)
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            if sample_weight.shape != (n,) or (sample_weight < 0).any() or not sample_weight.sum() > 0:
                raise ValueError(f"sample_weight must be {n} non-negative weights, not all zero")
            n = float(sample_weight.sum())
        C = 1.0 / (self.alpha * n)
        self.model_ = LogisticRegression(
            C=C,
            class_weight="balanced",
            solver="liblinear",
            dual=True,
            tol=self.tol,
            max_iter=self.max_iter,
            random_state=check_random_state(self.random_state),  # liblinear's seed: its first draw, as from an int
        )
        self.model_.fit(X, y, sample_weight=sample_weight)
        self.classes_ = self.model_.classes_
        self.coef_ = self.model_.coef_
        self.intercept_ = self.model_.intercept_
        self.n_iter_ = self.model_.n_iter_
        return self

    def decision_function(self, X: sp.spmatrix) -> np.ndarray:
        check_is_fitted(self)
        return self.model_.decision_function(validate_data(self, X, accept_sparse=True, reset=False))


class ASReviewModel(_WrappedBinaryClassifier):
    """A binary classifier trained and scored as ASReview trains and ranks: optional Balanced sample weights,
    float64 scores from predict_proba[:, 1] when the classifier has it (as log-odds, so 0 is the boundary) else
    from decision_function.

    `random_state` seeds the classifier's fits (when it takes one) through check_random_state: an int gives each fit
    a fresh generator (the same fit twice, the same model); a numpy RandomState is one random stream drawn on by
    every fit, which is ASReview's way (it seeds numpy's global generator once and every fit of LinearSVC or a random
    forest draws from it): tarsim's named learners give one per review and refit the model in place rather than
    cloning it (`refit_in_place`).

    With `warm_start` (the logistic learner's `warm_start=true`) the classifier is cloned once, with its own
    scikit-learn `warm_start` on, and then refitted itself, so that each fit starts where the last one ended;
    ASReview clones a fresh one every time."""

    refit_in_place = True

    def __init__(
        self,
        classifier: BaseEstimator,
        balance: str = "none",
        ratio: float = 1.0,
        random_state: int | np.random.RandomState | None = 0,
        warm_start: bool = False,
    ) -> None:
        self.classifier = classifier
        self.balance = balance
        self.ratio = ratio
        self.random_state = random_state
        self.warm_start = warm_start

    def fit(self, X: sp.spmatrix, y: np.ndarray) -> ASReviewModel:
        if self.balance not in ("none", "balanced"):
            raise ConfigError(f"balance must be 'none' or 'balanced', got {self.balance!r}")
        if not self.ratio > 0:
            raise ConfigError(f"ratio must be > 0, got {self.ratio}")
        X, y = validate_data(self, X, y, accept_sparse=True)
        classes = _binary_classes(y, type(self).__name__)
        relevant = (y == classes[1]).astype(np.int64)
        weights = balanced_weights(relevant, self.ratio) if self.balance == "balanced" else None
        if self.warm_start and getattr(self, "model_", None) is not None:
            model = self.model_  # starts from its own coefficients
        else:
            model = clone(self.classifier)
            if "random_state" in model.get_params():
                model.set_params(random_state=check_random_state(self.random_state))
            if self.warm_start:
                model.set_params(warm_start=True)
        self.model_ = model.fit(X, y, sample_weight=weights)
        self.classes_ = self.model_.classes_
        return self

    def relevance_scores(self, X: sp.spmatrix) -> np.ndarray:
        """ASReview's ranking score of each row, in float64 (log-odds for probabilities: same order)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=True, reset=False)
        if hasattr(self.model_, "predict_proba"):
            probability = self.model_.predict_proba(X)[:, 1].astype(np.float64)  # classes_[1]: the relevant class
            with np.errstate(divide="ignore"):
                return np.log(probability) - np.log1p(-probability)
        return np.asarray(self.model_.decision_function(X), dtype=np.float64).ravel()

    def decision_function(self, X: sp.spmatrix) -> np.ndarray:
        return self.relevance_scores(X)


class PegasosRank(ClassifierMixin, BaseEstimator):
    """Linear ranker trained as HiCAL trains BMI's: Pegasos SGD on the pairwise logistic loss (sofia-ml ROC loop),
    regularised by `alpha` (HiCAL's lambda); binary, no intercept (only the order of the scores matters)."""

    def __init__(
        self, alpha: float = DEFAULT_LAMBDA, iterations: int = HICAL_ITERATIONS, random_state: int | None = 0
    ) -> None:
        self.alpha = alpha
        self.iterations = iterations
        self.random_state = random_state

    def fit(self, X: sp.spmatrix, y: np.ndarray) -> PegasosRank:
        """Fit on two classes, classes_[1] (1: relevant) ranked above classes_[0]; needs at least one of each."""
        if not self.alpha > 0:
            raise ConfigError(f"alpha (lambda) must be > 0, got {self.alpha}")
        if self.iterations < 1:
            raise ConfigError(f"iterations must be >= 1, got {self.iterations}")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        classes = _binary_classes(y, type(self).__name__)
        X = sp.csr_matrix(X)
        X.sort_indices()
        positives = np.flatnonzero(y == classes[1]).astype(np.int64)
        negatives = np.flatnonzero(y != classes[1]).astype(np.int64)
        rng = _pair_generator(self.random_state)
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
            float(self.alpha),
            X.shape[1],
        )
        self.classes_ = classes
        self.coef_ = weights.reshape(1, -1)
        self.intercept_ = np.zeros(1)
        return self

    def decision_function(self, X: sp.spmatrix) -> np.ndarray:
        """w . x for each row (no bias: only the order matters)."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse=True, reset=False)
        return np.asarray(X @ self.coef_.ravel()).ravel()

    def predict(self, X: sp.spmatrix) -> np.ndarray:
        """classes_[1] where w . x > 0."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(np.int64)]

    def __sklearn_tags__(self) -> Tags:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.multi_class = False
        return tags


def _pair_generator(random_state: object) -> np.random.Generator:
    """The generator of PegasosRank's training pairs: an int seeds numpy's default_rng, as every pegasos review and
    the HiCAL agreement runs were measured with; a RandomState (scikit-learn's convention) seeds one from its stream."""
    if isinstance(random_state, np.random.Generator):
        return random_state
    if random_state is None or isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(check_random_state(random_state).randint(2**32, dtype=np.uint64))
    return np.random.default_rng(random_state)
