"""Effort models as small declarative objects that turn ledger increments into cost per event."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from tarsim.errors import ConfigError

EFFORT_MODELS = ("judge", "sent", "lambda:L (L in [0, 1])", "seconds", "clock")


@dataclass(frozen=True)
class EffortModel:
    """Cost of each judgment, read from the `effort` increments of ledger events."""

    name: str = ""
    unit: str = ""

    def costs(self, increments: Mapping[str, np.ndarray]) -> np.ndarray:  # pragma: no cover - interface
        raise NotImplementedError

    def accumulate(self, spent: float, increments: Mapping[str, float], now: float) -> float:
        """Effort spent after one more judgment (its `increments`, ending at clock time `now`): a running budget."""
        return spent + float(self.costs({key: np.float64(value) for key, value in increments.items()}))


@dataclass(frozen=True)
class JudgeEffort(EffortModel):
    name: str = "judge"
    unit: str = "judgments"

    def costs(self, increments):
        return np.asarray(increments["judge"], dtype=np.float64)


@dataclass(frozen=True)
class SentenceEffort(EffortModel):
    name: str = "sent"
    unit: str = "sentences read"

    def costs(self, increments):
        return np.asarray(increments["sent"], dtype=np.float64)


@dataclass(frozen=True)
class LambdaEffort(EffortModel):
    """E_lambda = (1 - lambda) * E_judge + lambda * E_sent."""

    lam: float = 0.5
    name: str = "lambda"
    unit: str = "weighted judgments and sentences"

    def __post_init__(self) -> None:
        if not 0.0 <= self.lam <= 1.0:
            raise ConfigError(f"effort lambda must be in [0, 1], got {self.lam}")
        object.__setattr__(self, "name", f"lambda:{self.lam:g}")

    def costs(self, increments):
        judge = np.asarray(increments["judge"], dtype=np.float64)
        sent = np.asarray(increments["sent"], dtype=np.float64)
        return (1.0 - self.lam) * judge + self.lam * sent


@dataclass(frozen=True)
class SecondsEffort(EffortModel):
    name: str = "seconds"
    unit: str = "seconds"

    def costs(self, increments):
        return np.asarray(increments["seconds"], dtype=np.float64)


@dataclass(frozen=True)
class ClockEffort(EffortModel):
    """Elapsed review time on the SimPy clock: with several reviewers or retraining latency it differs from
    `seconds` (the sum of reviewing time); each judgment costs the clock time since the previous one."""

    name: str = "clock"
    unit: str = "seconds of review time (clock)"

    def costs(self, increments):
        time = np.asarray(increments["time"], dtype=np.float64)
        return np.diff(time, prepend=0.0)

    def accumulate(self, spent, increments, now):
        return now  # the clock itself: summing differences would drift from it


def make_effort_model(spec: str) -> EffortModel:
    """Parse `judge`, `sent`, `lambda:0.5` or `seconds`."""
    if spec == "judge":
        return JudgeEffort()
    if spec in ("sent", "sentences"):
        return SentenceEffort()
    if spec == "seconds":
        return SecondsEffort()
    if spec == "clock":
        return ClockEffort()
    if spec.startswith("lambda:"):
        try:
            lam = float(spec.split(":", 1)[1])
        except ValueError:
            raise ConfigError(f"effort model {spec!r}: lambda must be a number in [0, 1]") from None
        return LambdaEffort(lam=lam)
    raise ConfigError(f"unknown effort model {spec!r}; accepted: {', '.join(EFFORT_MODELS)}")
