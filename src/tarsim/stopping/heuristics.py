"""Simple published stopping heuristics: the 2399 rule, review-half, batch precision, and the fixed and fraction
runs of non-relevant labels; each with an incremental check that the online review follows (`online_check()`),
reading only the new judgments, with the replay's arithmetic.

Each rule sees only what a reviewer knows (the reviewer's labels, the collection's size, the training rounds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from tarsim.components import Param, register
from tarsim.data.ledger import Ledger
from tarsim.stopping.rules import ReplayContext, StoppingRule, check_points


def _exhausted(ledger: Ledger) -> bool:
    """Whether the review ran out of documents (its end is then a check point too, as in check_points)."""
    return len(ledger) >= ledger.collection_size or (ledger.end or {}).get("reason") == "pool exhausted"


@register("stopping")
@dataclass(frozen=True)
class Rule2399(StoppingRule):
    """The 2399 rule (Cormack & Grossman's heuristic, as in Yang, Lewis & Frieder, DESIRES 2021; TARexp's
    Rule2399StoppingRule): stop once the documents reviewed reach 1.2 r + 2399, r the relevant labels so far.

    Checked after every judgment; `alpha` and `constant` change 1.2 and 2399 (destiny-evidence/stopping-methods
    also runs alpha 1.0 and 1.1).
    """

    alpha: float = 1.2
    constant: float = 2399.0
    name: ClassVar[str] = "2399"
    examples: ClassVar[tuple[str, ...]] = ("2399:constant=150",)
    params: ClassVar[tuple[Param, ...]] = (
        Param("alpha", float, 1.2, "documents per relevant label", low=0),
        Param("constant", float, 2399.0, "documents reviewed beyond alpha r", low=0),
    )

    def threshold(self, relevant: int) -> float:
        return self.alpha * relevant + self.constant

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        found = np.cumsum(ledger.label > 0)
        reviewed = np.arange(1, len(found) + 1)
        reached = np.flatnonzero(reviewed >= self.alpha * found + self.constant)
        return int(reached[0]) + 1 if reached.size else None

    def online_check(self) -> _Check2399:
        return _Check2399(self)


class _Check2399:
    def __init__(self, rule: Rule2399) -> None:
        self.rule, self.seen, self.found = rule, 0, 0

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        for label in ledger.label[self.seen :]:
            self.seen += 1
            self.found += int(label > 0)
            if self.seen >= self.rule.alpha * self.found + self.rule.constant:  # the replay's float arithmetic
                return self.seen
        return None


@register("stopping")
@dataclass(frozen=True)
class ReviewHalfRule(StoppingRule):
    """Stop when half the collection has been reviewed (TARexp's ReviewHalfStoppingRule, Yang, Lewis & Frieder,
    DESIRES 2021): after floor(N / 2) judgments, N the collection's size.

    TARexp checks it at the end of a round (`n_annotated >= n_docs // 2`) and so finishes the batch that crosses
    N / 2; tarsim stops at the judgment that reaches it, as `budget:500` does.
    """

    name: ClassVar[str] = "reviewhalf"
    examples: ClassVar[tuple[str, ...]] = ("reviewhalf",)

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        half = max(ledger.collection_size // 2, 1)
        return half if len(ledger) >= half else None

    def online_check(self) -> ReviewHalfRule:
        return self  # reads no judgment: O(1) a check


@register("stopping")
@dataclass(frozen=True)
class BatchPrecisionRule(StoppingRule):
    """Batch precision (TARexp's BatchPrecStoppingRule, Yang, Lewis & Frieder, DESIRES 2021): stop at the end of
    a training round when the precision of `slack` consecutive rounds was at most P.

    A round's precision is the share of its judgments the reviewer labelled relevant; rounds end where knee's do
    (check_points: the next round's first judgment, or the end of an exhausted pool). TARexp's default P is
    5/200 = 0.025 with slack 1. destiny-evidence/stopping-methods' BATCHPRECISION instead slides a window of the
    last batch_size judgments and compares with P strictly (`<`).
    """

    precision: float = 0.025
    slack: int = 1
    name: ClassVar[str] = "batchprecision"
    examples: ClassVar[tuple[str, ...]] = ("batchprecision:0.2", "batchprecision:0.1:2")
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "precision",
            float,
            None,
            "stop when a round's precision is at most P",
            low=0,
            high=1,
            required=True,
            metavar="P",
        ),
        Param("slack", int, 1, "consecutive rounds at or below P", low=1),
    )

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        relevant = np.concatenate([[0], np.cumsum(ledger.label > 0)])
        start, streak = 0, 0
        for end in check_points(ledger):
            streak = streak + 1 if (relevant[end] - relevant[start]) / (end - start) <= self.precision else 0
            if streak >= self.slack:
                return end
            start = end
        return None

    def online_check(self) -> _BatchPrecisionCheck:
        return _BatchPrecisionCheck(self)


class _BatchPrecisionCheck:
    def __init__(self, rule: BatchPrecisionRule) -> None:
        self.rule, self.seen, self.start, self.streak, self.ended = rule, 0, 0, 0, False
        self.relevant = [0]

    def _round_ends(self, end: int) -> bool:
        share = (self.relevant[end] - self.relevant[self.start]) / (end - self.start)
        self.streak = self.streak + 1 if share <= self.rule.precision else 0
        self.start = end
        return self.streak >= self.rule.slack

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        rounds = ledger.round
        for index in range(self.seen, len(ledger)):
            self.seen += 1
            self.relevant.append(self.relevant[-1] + int(ledger.label[index] > 0))
            if index and rounds[index] != rounds[index - 1] and self._round_ends(index):
                return index
        if len(ledger) and _exhausted(ledger) and not self.ended:
            self.ended = True
            if self._round_ends(len(ledger)):
                return len(ledger)
        return None


def _last_labels_clear(labels: np.ndarray, run: int) -> int | None:
    """The first position p at which the last min(run, p) labels hold no relevant one (destiny-evidence's window:
    `labels[-min(len(labels), run):]`, every label so far until `run` are judged)."""
    streak = 0
    for position, label in enumerate(labels, start=1):
        streak = 0 if label > 0 else streak + 1
        if streak >= min(run, position):
            return position
    return None


class _RunCheck:
    """The window of `_last_labels_clear`, counted as the labels come."""

    def __init__(self, rule: FixedRule | FractionRule) -> None:
        self.rule, self.seen, self.streak = rule, 0, 0

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        run = self.rule.run(ledger)
        for label in ledger.label[self.seen :]:
            self.seen += 1
            self.streak = 0 if label > 0 else self.streak + 1
            if self.streak >= min(run, self.seen):
                return self.seen
        return None


@register("stopping")
@dataclass(frozen=True)
class FixedRule(StoppingRule):
    """destiny-evidence/stopping-methods' fixed heuristic (HEURISTIC_FIX, 2025): stop once the
    last N judgments hold no relevant label; before N judgments, once none so far holds one.

    So a review whose first judgment is non-relevant stops there, as the reference does; `nonrel:N` is the run
    that waits for N judgments.
    """

    count: int = 50
    name: ClassVar[str] = "fixed"
    examples: ClassVar[tuple[str, ...]] = ("fixed:30",)
    params: ClassVar[tuple[Param, ...]] = (
        Param("count", int, None, "judgments without a relevant label", low=1, required=True, metavar="N"),
    )

    def run(self, ledger: Ledger) -> int:
        return self.count

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        return _last_labels_clear(ledger.label, self.run(ledger))

    def online_check(self) -> _RunCheck:
        return _RunCheck(self)


@register("stopping")
@dataclass(frozen=True)
class FractionRule(StoppingRule):
    """destiny-evidence/stopping-methods' fraction heuristic (HEURISTIC_FRAC, 2025): the fixed
    heuristic with N = floor(F x the collection's size) (at least 1).
    """

    fraction: float = 0.05
    name: ClassVar[str] = "fraction"
    examples: ClassVar[tuple[str, ...]] = ("fraction:0.01",)
    params: ClassVar[tuple[Param, ...]] = (
        Param(
            "fraction", float, None, "share of the collection", low=0, high=1, low_open=True, required=True, metavar="F"
        ),
    )

    def run(self, ledger: Ledger) -> int:
        return max(int(ledger.collection_size * self.fraction), 1)

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        return _last_labels_clear(ledger.label, self.run(ledger))

    def online_check(self) -> _RunCheck:
        return _RunCheck(self)
