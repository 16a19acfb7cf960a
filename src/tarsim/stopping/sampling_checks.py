"""Following a review's check points one at a time, for the rules of stopping.scal, stopping.autostop and
stopping.capture, whose decision at a check point depends on state carried from the earlier ones (a seeded sample
stream, capture histories).

A rule of this kind implements `start(ledger, context)` (a fresh state) and `fires(state, ledger, context, s)` (the
check after s judgments, reading only ledger[:s]); `CheckFollower` feeds it every check point once and in order,
so the replay (a fresh follower over the finished ledger) and the online review (one follower kept for the review,
given the ledger as it grows) make the same calls and stop at the same judgment.
"""

from __future__ import annotations

import zlib
from typing import Any, Protocol

import numpy as np

from tarsim.data.ledger import Ledger
from tarsim.errors import ConfigError
from tarsim.stopping.rules import ReplayContext


class FollowedRule(Protocol):
    spec: str

    def start(self, ledger: Ledger, context: ReplayContext) -> Any: ...

    def fires(self, state: Any, ledger: Ledger, context: ReplayContext, judged: int) -> bool: ...


def _exhausted(ledger: Ledger) -> bool:
    return len(ledger) >= ledger.collection_size or (ledger.end or {}).get("reason") == "pool exhausted"


class CheckFollower:
    """The check points of a growing ledger (rules.check_points: a round's end, seen when the next round's first
    judgment arrives, and the end of an exhausted pool), each handed to the rule once; the first that fires is kept."""

    def __init__(self, rule: FollowedRule) -> None:
        self.rule = rule
        self.state: Any = None
        self.seen = 0
        self.ended = False
        self.fired: int | None = None

    def _new_points(self, ledger: Ledger) -> list[int]:
        rounds = ledger.round
        points = [p for p in range(max(self.seen, 1), len(ledger)) if rounds[p] != rounds[p - 1]]
        self.seen = max(self.seen, len(ledger))
        if len(ledger) and not self.ended and _exhausted(ledger):
            self.ended = True
            points.append(len(ledger))
        return points

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        if self.fired is not None:
            return self.fired
        if self.state is None:
            self.state = self.rule.start(ledger, context)
        for judged in self._new_points(ledger):
            if self.rule.fires(self.state, ledger, context, judged):
                self.fired = judged
                break
        return self.fired


def stream_seed(ledger: Ledger, stream: str) -> list[int]:
    """The seed of a rule's own random stream: the review's seed, its topic and the stream's name, so that a replay
    draws what the online review drew and no two rules share a stream (the target sample uses target.target_rng)."""
    seed = int(ledger.header.get("seed", 0)) % 2**32
    return [seed, zlib.crc32(ledger.topic.encode("utf-8")), zlib.crc32(stream.encode("utf-8"))]


def collection_positions(rule_spec: str, ledger: Ledger, context: ReplayContext, *, qrels: bool = False) -> dict:
    """docid -> position in collection order (context.docids); refused in one line when the context lacks the
    collection (or, with qrels=True, the qrels)."""
    if context.docids is None or (qrels and context.qrels is None):
        where = "" if ledger.source.startswith("<") else f"{ledger.source}: "
        what = "the collection's docids and the qrels" if qrels else "the collection's docids"
        raise ConfigError(
            f"{where}stopping rule {rule_spec!r} needs {what} to replay (give the collection, e.g. --collection DIR)"
        )
    return {docid: index for index, docid in enumerate(context.docids)}


def relevant_labels(ledger: Ledger, judged: int) -> np.ndarray:
    """Whether the reviewer labelled each of the first `judged` judgments relevant."""
    return np.asarray(ledger.label[:judged]) > 0
