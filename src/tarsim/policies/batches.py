"""Batch-size schedules: BMI's growing batches (1, then B + ceil(B/10)) or a fixed size."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from tarsim.errors import ConfigError


class BatchSchedule:
    """An endless sequence of batch sizes, one per training round."""

    name: str = ""

    def sizes(self) -> Iterator[int]:  # pragma: no cover - interface
        raise NotImplementedError


@dataclass(frozen=True)
class GrowingBatches(BatchSchedule):
    """BMI: the first batch has `start` documents; each next one grows by ceil(B/10)."""

    start: int = 1
    name: str = "bmi"

    def sizes(self) -> Iterator[int]:
        size = self.start
        while True:
            yield size
            size += math.ceil(size / 10)


@dataclass(frozen=True)
class FixedBatches(BatchSchedule):
    """Every round reviews the same number of documents."""

    size: int = 100
    name: str = "fixed"

    def sizes(self) -> Iterator[int]:
        while True:
            yield self.size


def make_batch_schedule(spec: str | int) -> BatchSchedule:
    """`bmi` (growing from 1) or a positive integer (fixed size)."""
    if isinstance(spec, int) or str(spec).isdigit():
        size = int(spec)
        if size < 1:
            raise ConfigError(f"batch size must be 'bmi' or a positive integer, got {spec!r}")
        return FixedBatches(size=size)
    if spec == "bmi":
        return GrowingBatches()
    raise ConfigError(f"batch size must be 'bmi' or a positive integer, got {spec!r}")
