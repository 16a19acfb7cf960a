"""Stopping rules checked while a review runs, so that it stops exactly where replaying the rule would.

After every judgment each rule is replayed on the ledger so far (`StoppingRule.stop_position`); the first rule
that fires stops the review. A rule checked at the end of a training round (`knee`) learns that a round ended
from the next round's first judgment, as its replay does, so the review then holds one judgment more than the
stop position. A rule whose replay walks the whole ledger brings an incremental check (`online_check()`: those of
stopping.checks and stopping.heuristics), reading only the new judgments with the replay's arithmetic
(tests/simulator/test_rounds.py checks both give the same stop); any(...), all(...) and notbefore follow each of
their rules so and combine the positions; any other rule (a plugin's) is replayed in full after every judgment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tarsim.data.ledger import Ledger
from tarsim.stopping.compose import NotBeforeRule, _Combined
from tarsim.stopping.rules import (
    ReplayContext,
    StoppingRule,
    parse_stopping_rule,
)


@dataclass(frozen=True)
class OnlineStop:
    """A rule that fired during a review: its spec and the stop position (judgments reviewed when it fired)."""

    rule: str
    seq: int

    def to_record(self) -> dict:
        """The end record's `stop` field."""
        return {"rule": self.rule, "seq": self.seq}


class _CombinedCheck:
    """any(...), all(...) or notbefore: each inner rule followed by its own check, its first stop position kept
    (a fired rule is not asked again), and the positions combined as the replay combines them."""

    def __init__(self, rule: StoppingRule) -> None:
        self.rule = rule
        self.checks = [online_check(inner) for inner in rule.rules]
        self.fired: list[int | None] = [None] * len(self.checks)

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        for index, check in enumerate(self.checks):
            if self.fired[index] is None:
                self.fired[index] = check.stop_position(ledger, context)
        return self.rule.combine(self.fired, len(ledger))


def online_check(rule: StoppingRule):
    """What follows `rule` during a review: the check its `online_check()` makes (reading only new judgments),
    else the rule itself (replayed in full on the ledger so far)."""
    if isinstance(rule, (_Combined, NotBeforeRule)):
        return _CombinedCheck(rule)
    make = getattr(rule, "online_check", None)  # a rule that brings its own incremental check (stopping.checks)
    return make() if callable(make) else rule


class OnlineStopping:
    """The stopping rules of a running review (specs as for parse_stopping_rule), checked on the ledger so far."""

    def __init__(self, specs: Sequence[str | StoppingRule], context: ReplayContext) -> None:
        self.rules = [parse_stopping_rule(s) if isinstance(s, str) else s for s in specs]
        self.context = context
        self._checks = [online_check(rule) for rule in self.rules]

    def check(self, ledger: Ledger) -> OnlineStop | None:
        """The first rule (in order) that fires on `ledger`, and where; None when none does."""
        for rule, check in zip(self.rules, self._checks, strict=True):
            position = check.stop_position(ledger, self.context)
            if position is not None:
                return OnlineStop(rule.spec, position)
        return None
