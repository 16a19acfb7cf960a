"""The two training constants every learner shares: BMI's default lambda and ASReview's balanced sample weights.

Light (numpy only), so that tarsim.learners.named and tarsim.learners.estimators both import it without a circle."""

from __future__ import annotations

import numpy as np

from tarsim.errors import ConfigError

DEFAULT_LAMBDA = 1e-4
"""BMI's regularisation (sofia-ml's Pegasos lambda)."""


def balanced_weights(y: np.ndarray, ratio: float) -> np.ndarray:
    """ASReview's Balanced sample weights: {1: 1, 0: n1 / (ratio n0)}, scaled to sum to len(y)."""
    y = np.asarray(y)
    positives, negatives = int((y == 1).sum()), int((y == 0).sum())
    if not positives or not negatives:
        raise ConfigError("balanced training needs relevant and non-relevant examples")
    weights = np.where(y == 1, 1.0, positives / (ratio * negatives))
    return weights * (len(y) / weights.sum())
