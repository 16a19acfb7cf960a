"""Effort models as small declarative objects that turn ledger increments into cost per event."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from tarsim.components import Param, make, register
from tarsim.errors import ConfigError

EFFORT_MODELS = ("judge", "sent", "lambda:L (L in [0, 1])", "seconds", "clock")
"""The built-in effort models' forms (`tarsim list effort` shows every model, plugins included)."""

DEFAULT_EFFORT_MODELS = ("judge", "sent", "lambda:0.5", "seconds", "clock")
"""The effort models reported when none are named (the one definition; reporting and sweeps import it)."""


@dataclass(frozen=True)
class EffortModel:
    """Cost of each judgment, read from the `effort` increments of ledger events."""

    name: str = ""
    unit: str = ""
    params: ClassVar[tuple[Param, ...]] = ()

    @abstractmethod
    def costs(self, increments: Mapping[str, np.ndarray]) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def costs_from(self, increments: Mapping[str, np.ndarray], start: int) -> np.ndarray:
        """Costs of the judgments from `start` on, as `costs` of the whole columns gives them, reading only those:
        what a running check needs after each judgment (a model whose cost looks back, as `clock`, overrides it)."""
        return self.costs({key: values[start:] for key, values in increments.items()})

    def accumulate(self, spent: float, increments: Mapping[str, float], now: float) -> float:
        """Effort spent after one more judgment (its `increments`, ending at clock time `now`): a running budget."""
        return spent + float(self.costs({key: np.float64(value) for key, value in increments.items()}))


@register("effort")
@dataclass(frozen=True)
class JudgeEffort(EffortModel):
    """One unit per assessment, whatever is shown (E_judge)."""

    name: str = "judge"
    unit: str = "judgments"

    def costs(self, increments):
        return np.asarray(increments["judge"], dtype=np.float64)


@register("effort")
@dataclass(frozen=True)
class SentenceEffort(EffortModel):
    """Sentences read (E_sent): a shown sentence is 1; a shown document is read to its first relevant sentence."""

    name: str = "sent"
    unit: str = "sentences read"

    def costs(self, increments):
        return np.asarray(increments["sent"], dtype=np.float64)


@register("effort")
@dataclass(frozen=True)
class LambdaEffort(EffortModel):
    """E_lambda = (1 - lambda) * E_judge + lambda * E_sent."""

    lam: float = 0.5
    name: str = "lambda"
    unit: str = "weighted judgments and sentences"
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "lambda",
            float,
            None,
            "weight of sentences read",
            0.0,
            1.0,
            accepted_text="in [0, 1]",
            required=True,
            metavar="L",
        ),
    )

    def __post_init__(self) -> None:
        if not 0.0 <= self.lam <= 1.0:
            raise ConfigError(f"effort lambda must be in [0, 1], got {self.lam}")
        object.__setattr__(self, "name", f"lambda:{self.lam:g}")

    @classmethod
    def create(cls, spec: str, **params: Any) -> LambdaEffort:
        return cls(lam=params["lambda"])

    def costs(self, increments):
        judge = np.asarray(increments["judge"], dtype=np.float64)
        sent = np.asarray(increments["sent"], dtype=np.float64)
        return (1.0 - self.lam) * judge + self.lam * sent


@register("effort")
@dataclass(frozen=True)
class SecondsEffort(EffortModel):
    """Reviewer time from the time model, summed over judgments."""

    name: str = "seconds"
    unit: str = "seconds"

    def costs(self, increments):
        return np.asarray(increments["seconds"], dtype=np.float64)


@register("effort")
@dataclass(frozen=True)
class ClockEffort(EffortModel):
    """Elapsed review time on the SimPy clock: with several reviewers or retraining latency it differs from
    `seconds` (the sum of reviewing time); each judgment costs the clock time since the previous one."""

    name: str = "clock"
    unit: str = "seconds of review time (clock)"

    def costs(self, increments):
        return np.diff(_clock_time(increments), prepend=0.0)

    def costs_from(self, increments, start):
        time = _clock_time(increments)
        return time[start:] - time[start - 1 : -1] if start else self.costs(increments)  # np.diff's subtraction

    def accumulate(self, spent, increments, now):
        return now  # the clock itself: summing differences would drift from it


def _clock_time(increments: Mapping[str, np.ndarray]) -> np.ndarray:
    if "time" not in increments:
        raise ConfigError("effort model 'clock' needs the judgments' clock time, which this computation was not given")
    return np.asarray(increments["time"], dtype=np.float64)


def make_effort_model(spec: str) -> EffortModel:
    """Parse `judge`, `sent`, `lambda:0.5`, `seconds`, `clock`, or a plugin's effort model."""
    return make("effort", spec)
