"""What the score-based stopping rules share: the check points at the end of each training round, the score round
each reads there, the collection positions of the documents reviewed so far, and an online check that reads only
the new judgments (so a long review is not replayed in full after every judgment).

A rule subclasses `RoundEndScoreRule` and says, in `decide(view)`, whether it fires at one check point. The view
holds what a reviewer knows after s judgments: the documents presented (collection positions, in order of first
presentation), their labels, where each training round's judgments start, and the learner's latest scores.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.data.score_log import ScoreRound
from tarsim.errors import ConfigError
from tarsim.stopping.rules import ReplayContext, StoppingRule


@dataclass(frozen=True)
class ScoredView:
    """A score-based rule's view after `judged` judgments: `positions` are the collection positions of the
    documents presented (each once, in order of first presentation), `relevant` whether the reviewer labelled any
    of its judgments relevant, `round_starts` the index into `positions` where each training round's documents
    start (the last round ends the view), and `scores` the round the learner trained on at most `judged`
    judgments."""

    judged: int
    positions: np.ndarray  # int64 collection positions
    relevant: np.ndarray  # bool, one per position
    round_starts: tuple[int, ...]
    scores: ScoreRound

    @cached_property
    def reviewed(self) -> np.ndarray:
        """A mask over the collection: True on the documents presented."""
        mask = np.zeros(len(self.scores.scores), dtype=bool)
        mask[self.positions] = True
        return mask

    @cached_property
    def probabilities(self) -> np.ndarray:
        return self.scores.probabilities()


def collection_positions(rule: StoppingRule, ledger: Ledger, context: ReplayContext) -> dict[str, int]:
    """docid -> position in the collection; refused in one line without the collection's docids."""
    if context.docids is None:
        where = "" if ledger.source.startswith("<") else f"{ledger.source}: "
        raise ConfigError(
            f"{where}stopping rule {rule.spec!r} needs the collection's docids to read the learner's scores "
            "(give the collection, e.g. --collection DIR)"
        )
    return {docid: position for position, docid in enumerate(context.docids)}


class _Walk:
    """The ledger read judgment by judgment: documents first presented, their labels, round starts and the check
    points (a round's last judgment, known when the next round's first arrives; the end of an exhausted pool)."""

    def __init__(self) -> None:
        self.seen = 0
        self.index: dict[int, int] = {}  # collection position -> index in `positions`
        self.positions: list[int] = []
        self.relevant: list[bool] = []
        self.round_starts: list[int] = []

    def advance(self, ledger: Ledger, where: dict[str, int], upto: int) -> None:
        rounds, labels, docids = ledger.round, ledger.label, ledger.docids
        for k in range(self.seen, upto):
            if k == 0 or rounds[k] != rounds[k - 1]:
                self.round_starts.append(len(self.positions))
            position = where.get(docids[k])
            if position is None:
                raise ConfigError(f"{ledger.source}: docid {docids[k]!r} is not in the collection it was replayed on")
            known = self.index.get(position)
            if known is None:
                self.index[position] = len(self.positions)
                self.positions.append(position)
                self.relevant.append(bool(labels[k] > 0))
            elif labels[k] > 0:
                self.relevant[known] = True
        self.seen = max(self.seen, upto)

    def view(self, judged: int, scores: ScoreRound) -> ScoredView:
        """The view after the judgments walked so far (`judged` of them: a check point is decided when reached)."""
        return ScoredView(
            judged,
            np.asarray(self.positions, dtype=np.int64),
            np.asarray(self.relevant, dtype=bool),
            tuple(self.round_starts),
            scores,
        )


def _exhausted(ledger: Ledger) -> bool:
    return len(ledger) >= ledger.collection_size or (ledger.end or {}).get("reason") == "pool exhausted"


class RoundEndScoreRule(StoppingRule):
    """A rule checked at the end of each training round (check_points) on the learner's latest scores there."""

    min_rounds: ClassVar[int] = 1  # rounds judged (the ledger's distinct rounds, seed round included) before a check

    @abstractmethod
    def decide(self, view: ScoredView) -> bool:  # pragma: no cover - interface
        """Whether the rule fires at this check point."""
        raise NotImplementedError

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        return _ScoreCheck(self).stop_position(ledger, context)

    def online_check(self) -> _ScoreCheck:
        return _ScoreCheck(self)


class _ScoreCheck:
    """A score-based rule followed judgment by judgment: each check point is decided once, when it appears, from
    the same view its replay builds (so online and replayed stops agree)."""

    def __init__(self, rule: RoundEndScoreRule) -> None:
        self.rule = rule
        self.walk = _Walk()
        self.where: dict[str, int] | None = None
        self.ended = False

    def _check(self, ledger: Ledger, context: ReplayContext, judged: int) -> bool:
        rounds_so_far = len(self.walk.round_starts)
        if rounds_so_far < self.rule.min_rounds:
            return False
        scores = self.rule.scores_at(ledger, context, judged)
        if scores is None:
            return False
        return bool(self.rule.decide(self.walk.view(judged, scores)))

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        if self.where is None:
            self.rule.scores_at(ledger, context, 0)  # refuses a review without scores before anything else
            self.where = collection_positions(self.rule, ledger, context)
        rounds = ledger.round
        for k in range(self.walk.seen, len(ledger)):
            if k and rounds[k] != rounds[k - 1]:  # judgment k opens a round: the round ending at k is checked
                self.walk.advance(ledger, self.where, k)
                if self._check(ledger, context, k):
                    return k
            self.walk.advance(ledger, self.where, k + 1)
        if len(ledger) and _exhausted(ledger) and not self.ended:
            self.ended = True
            if self._check(ledger, context, len(ledger)):
                return len(ledger)
        return None
