"""Rules decided at the end of each training round (check_points), replayed and followed online alike.

A `RoundEndRule` says whether it fires after s judgments, given the check points so far (the last one is s);
`stop_position` asks at each check point in order, and its `online_check()` asks at each check point as it appears
(a round change, or the end of an exhausted pool), so a review that follows the rule online asks the same
questions on the same judgments, once each, instead of replaying the whole ledger after every judgment.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from tarsim.data.ledger import Ledger
from tarsim.stopping.rules import ReplayContext, StoppingRule, check_points


def pool_exhausted(ledger: Ledger) -> bool:
    """Whether the review ran out of documents (its end is then a check point too, as in check_points)."""
    return len(ledger) >= ledger.collection_size or (ledger.end or {}).get("reason") == "pool exhausted"


@dataclass(frozen=True)
class RoundEndRule(StoppingRule):
    """A rule checked at the end of each training round: `fires(ledger, context, points)` after points[-1]
    judgments, reading only the ledger's first points[-1] judgments and the earlier check points."""

    @abstractmethod
    def fires(
        self, ledger: Ledger, context: ReplayContext, points: Sequence[int]
    ) -> bool:  # pragma: no cover - interface
        raise NotImplementedError

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        points = check_points(ledger)
        for index, point in enumerate(points):
            if self.fires(ledger, context, points[: index + 1]):
                return point
        return None

    def online_check(self) -> RoundEndCheck:
        return RoundEndCheck(self)


class RoundEndCheck:
    """Follows a RoundEndRule during a review: asks it at each new check point, once."""

    def __init__(self, rule: RoundEndRule) -> None:
        self.rule = rule
        self.seen = 0
        self.points: list[int] = []
        self.fired: int | None = None
        self.ended = False

    def _ask(self, ledger: Ledger, context: ReplayContext, point: int) -> bool:
        self.points.append(point)
        if self.rule.fires(ledger, context, self.points):
            self.fired = point
            return True
        return False

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        if self.fired is not None:
            return self.fired
        rounds = ledger.round
        for index in range(self.seen, len(ledger)):
            self.seen += 1
            if index and rounds[index] != rounds[index - 1] and self._ask(ledger, context, index):
                return self.fired
        if len(ledger) and pool_exhausted(ledger) and not self.ended:
            self.ended = True
            if self._ask(ledger, context, len(ledger)):
                return self.fired
        return None
