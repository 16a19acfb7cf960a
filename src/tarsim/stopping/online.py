"""Stopping rules checked while a review runs, so that it stops exactly where replaying the rule would.

After every judgment each rule is replayed on the ledger so far (`StoppingRule.stop_position`); the first rule
that fires stops the review. A rule checked at the end of a training round (`knee`) learns that a round ended
from the next round's first judgment, as its replay does, so the review then holds one judgment more than the
stop position. The target method's sample is drawn once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tarsim.data.ledger import Ledger
from tarsim.stopping.rules import ReplayContext, StoppingRule, TargetRule, parse_stopping_rule


@dataclass(frozen=True)
class OnlineStop:
    """A rule that fired during a review: its spec and the stop position (judgments reviewed when it fired)."""

    rule: str
    seq: int

    def to_record(self) -> dict:
        """The end record's `stop` field."""
        return {"rule": self.rule, "seq": self.seq}


class _TargetCheck:
    """The target method with its sample drawn once: stop when the last target is presented."""

    def __init__(self, rule: TargetRule) -> None:
        self.rule = rule
        self.remaining: set[str] | None = None
        self.never = False  # no targets: the rule cannot fire
        self.seen = 0

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        if self.remaining is None:
            self.remaining = set(self.rule.sample(ledger, context).targets)
            self.never = not self.remaining
        if self.never:
            return None
        if not self.remaining:
            return self.seen
        for docid in ledger.docids[self.seen :]:
            self.seen += 1
            self.remaining.discard(docid)
            if not self.remaining:
                return self.seen
        return None


class OnlineStopping:
    """The stopping rules of a running review (specs as for parse_stopping_rule), checked on the ledger so far."""

    def __init__(self, specs: Sequence[str | StoppingRule], context: ReplayContext) -> None:
        self.rules = [parse_stopping_rule(s) if isinstance(s, str) else s for s in specs]
        self.context = context
        self._checks = [_TargetCheck(rule) if isinstance(rule, TargetRule) else rule for rule in self.rules]

    def check(self, ledger: Ledger) -> OnlineStop | None:
        """The first rule (in order) that fires on `ledger`, and where; None when none does."""
        for rule, check in zip(self.rules, self._checks, strict=True):
            position = check.stop_position(ledger, self.context)
            if position is not None:
                return OnlineStop(rule.spec, position)
        return None
