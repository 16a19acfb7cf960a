"""Batch-size schedules: BMI's growing batches (1, then B + ceil(B/10)) or a fixed size."""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar

from tarsim.components import Param, make, register


class BatchSchedule:
    """An endless sequence of batch sizes, one per training round."""

    name: str = ""
    params: ClassVar[tuple[Param, ...]] = ()

    @abstractmethod
    def sizes(self) -> Iterator[int]:  # pragma: no cover - interface
        raise NotImplementedError


@register("batch")
@dataclass(frozen=True)
class GrowingBatches(BatchSchedule):
    """BMI: the first batch has `start` documents; each next one grows by ceil(B/10)."""

    start: int = 1
    name: str = "bmi"
    params: ClassVar[tuple[Param, ...]] = (Param("start", int, 1, "size of the first batch", low=1),)

    def sizes(self) -> Iterator[int]:
        size = self.start
        while True:
            yield size
            size += math.ceil(size / 10)


@register("batch")
@dataclass(frozen=True)
class FixedBatches(BatchSchedule):
    """Every round reviews the same number of documents (a bare integer N means fixed:N)."""

    size: int = 100
    name: str = "fixed"
    params: ClassVar[tuple[Param, ...]] = (Param("size", int, None, "documents per round", low=1, required=True),)

    def sizes(self) -> Iterator[int]:
        while True:
            yield self.size


def make_batch_schedule(spec: str | int) -> BatchSchedule:
    """`bmi` (growing from 1), a positive integer or `fixed:N` (fixed size), or a plugin's schedule."""
    return make("batch", str(spec))
