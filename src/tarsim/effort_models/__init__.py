"""Effort models: how much a review cost, computed from the increments each ledger event records.

- `judge`: one unit per assessment, whatever is shown (E_judge).
- `sent`: sentences read (E_sent). Sentence shown: 1. Document shown: the reviewer reads in order until the
  first relevant sentence (relevant document) or every sentence (non-relevant document).
- `lambda:L`: (1 - L) * E_judge + L * E_sent for L in [0, 1].
- `seconds`: reviewer time from the time model, summed over judgments.
- `clock`: elapsed time on the SimPy clock (several reviewers work at once; retraining may keep them waiting).
"""

from tarsim.effort_models.budget import Budget
from tarsim.effort_models.models import (
    DEFAULT_EFFORT_MODELS,
    EFFORT_MODELS,
    ClockEffort,
    EffortModel,
    JudgeEffort,
    LambdaEffort,
    SecondsEffort,
    SentenceEffort,
    make_effort_model,
)
from tarsim.effort_models.reading import TimeModel, sentences_read

__all__ = [
    "DEFAULT_EFFORT_MODELS",
    "EFFORT_MODELS",
    "Budget",
    "ClockEffort",
    "EffortModel",
    "JudgeEffort",
    "LambdaEffort",
    "SecondsEffort",
    "SentenceEffort",
    "TimeModel",
    "make_effort_model",
    "sentences_read",
]
