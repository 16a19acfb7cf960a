"""Incremental checks of the built-in rules of stopping.rules: what a running review follows (the rule's
`online_check()`), reading only the judgments added since the last check, with the replay's arithmetic, so that a
review stops exactly where replaying the rule on its ledger would (tests/simulator/test_rounds.py checks both)."""

from __future__ import annotations

from typing import Any

from tarsim.data.ledger import Ledger
from tarsim.effort_models import make_effort_model

Rule = Any  # the stopping.rules rule each check follows (that module imports this one, so not named here)
Context = Any  # a stopping.rules.ReplayContext


class BudgetCheck:
    """Effort spent aR + b, summed as it comes: each new judgment's cost added to the running total in order, so
    the sums are the replay's cumulative sums, bit for bit."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.model = make_effort_model(rule.effort_model)
        self.spent = 0.0
        self.seen = 0
        self.fired: int | None = None

    def stop_position(self, ledger: Ledger, context: Context) -> int | None:
        if self.fired is not None or len(ledger) <= self.seen:
            return self.fired
        limit = self.rule.limit(ledger)
        for cost in self.model.costs_from(ledger.effort_columns, self.seen).tolist():
            self.seen += 1
            self.spent += cost  # in order, as the replay's cumulative sum adds
            if self.spent >= limit:
                self.fired = self.seen
                break
        return self.fired


class TargetCheck:
    """The target method with its sample drawn once: stop when the last target is presented."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.remaining: set[str] | None = None
        self.never = False  # no targets: the rule cannot fire
        self.seen = 0

    def stop_position(self, ledger: Ledger, context: Context) -> int | None:
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


class NonRelevantRunCheck:
    """N consecutive non-relevant labels, counted as they come."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.streak = 0
        self.seen = 0

    def stop_position(self, ledger: Ledger, context: Context) -> int | None:
        for label in ledger.label[self.seen :]:
            self.seen += 1
            self.streak = 0 if label > 0 else self.streak + 1
            if self.streak >= self.rule.run:
                return self.seen
        return None


class OracleCheck:
    """Every relevant document presented, counted as they come (relevance from the qrels when given)."""

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.presented: set[str] = set()
        self.found = 0
        self.seen = 0
        self.relevant: int | None = None

    def stop_position(self, ledger: Ledger, context: Context) -> int | None:
        judged = context.qrels.get(ledger.topic, {}) if context.qrels is not None else None
        if self.relevant is None:
            self.relevant = ledger.relevant if judged is None else sum(g > 0 for g in judged.values())
        relevant = self.relevant
        for index in range(self.seen, len(ledger)):
            docid = ledger.docids[index]
            self.seen += 1
            is_relevant = ledger.truth[index] > 0 if judged is None else judged.get(docid, 0) > 0
            if docid not in self.presented:
                self.presented.add(docid)
                self.found += int(is_relevant)
            if relevant and self.found >= relevant:
                return self.seen
        return None


class KneeCheck:
    """The knee method at each check point as it appears (a round change, or the end of an exhausted pool).

    The knee after s judgments is the first k in 1..s-1 maximising s * gain(k) - gain(s) * k, the slope ratio's
    argmax; a linear function's first maximum over the points (k, gain(k)) is a vertex of their upper convex hull,
    kept here as the points come (amortised O(1) a point) and searched in O(log s), in exact integer arithmetic,
    so that a check costs O(new judgments) and finds the replay's knee.
    """

    def __init__(self, rule: Rule) -> None:
        self.rule = rule
        self.seen = 0
        self.gain = [0]  # relevant labels among the first k judgments, k = 0, 1, ...
        self.hull: list[int] = []  # the points k (from 1) on the upper hull, in order
        self.hulled = 0  # points 1..hulled are in the hull

    def _add_points(self, last: int) -> None:
        gain, hull = self.gain, self.hull
        for c in range(self.hulled + 1, last + 1):
            while len(hull) >= 2:  # drop b when it is on or below the segment from a to c
                a, b = hull[-2], hull[-1]
                if (b - a) * (gain[c] - gain[a]) - (gain[b] - gain[a]) * (c - a) < 0:
                    break
                hull.pop()
            hull.append(c)
        self.hulled = last

    def _knee(self, s: int) -> int:
        """The first k in 1..s-1 maximising s * gain(k) - gain(s) * k (np.argmax's choice in slope_ratio)."""
        self._add_points(s - 1)
        gain, hull, total = self.gain, self.hull, self.gain[s]
        low, high = 0, len(hull) - 1  # the first vertex whose successor does not score higher
        while low < high:
            mid = (low + high) // 2
            a, b = hull[mid], hull[mid + 1]
            if s * (gain[b] - gain[a]) - total * (b - a) > 0:
                low = mid + 1
            else:
                high = mid
        return hull[low]

    def _fires(self, s: int) -> bool:
        if s < self.rule.min_reviewed:
            return False
        total = float(self.gain[s])
        if s < 2 or total <= 0:
            return False  # no knee: slope ratio 0, below every threshold (> 0)
        knee = self._knee(s)
        before = float(self.gain[knee]) / knee
        after = (total - float(self.gain[knee]) + 1.0) / (s - knee)
        return before / after >= self.rule.threshold(int(total))  # slope_ratio's arithmetic

    def stop_position(self, ledger: Ledger, context: Context) -> int | None:
        rounds = ledger.round
        for index in range(self.seen, len(ledger)):
            self.seen += 1
            self.gain.append(self.gain[-1] + int(ledger.label[index] > 0))
            if index and rounds[index] != rounds[index - 1] and self._fires(index):
                return index
        exhausted = len(rounds) >= ledger.collection_size or (ledger.end or {}).get("reason") == "pool exhausted"
        if len(rounds) and exhausted and self._fires(len(rounds)):
            return len(rounds)
        return None
