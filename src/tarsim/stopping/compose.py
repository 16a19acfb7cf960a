"""Stopping rules made of others: `any(R1,R2,...)`, `all(R1,R2,...)` and `notbefore:N:RULE`, nested freely.

Each combines the stop positions of its rules, replayed on the same ledger; a rule counts as fired from its stop
position on (it is not asked again later), so online and replayed stops agree (stopping.online follows each
inner rule with its own incremental check and combines their positions the same way).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from tarsim.components import Param, kind, register, split_top_level
from tarsim.data.ledger import Ledger
from tarsim.errors import ConfigError
from tarsim.stopping.rules import ReplayContext, StoppingRule


def _rule(text: str) -> StoppingRule:
    if not text.strip():
        raise ConfigError("an empty rule in the list (two commas, or one at an end); remove it")
    return kind("stopping").make(text.strip())


def _rule_list(text: str) -> tuple[StoppingRule, ...]:
    """The rules of `a,b(...),c:p=1,q=2`: a part that is only `name=value` continues the previous rule's named
    parameters (`any(quantci:target=0.9,nstd=2,knee)` holds two rules)."""
    parts: list[str] = []
    for part in split_top_level(text):
        key, equals, _ = part.partition("=")
        continues = equals and parts and ":" not in key and "(" not in key and "=" in parts[-1]
        if continues:
            parts[-1] += "," + part
        else:
            parts.append(part)
    return tuple(_rule(part) for part in parts)


RULES = Param(
    "rules",
    str,
    None,
    "stopping rules, comma-separated (any spec, also any(...) and all(...))",
    parse=_rule_list,
    required=True,
    accepted_text="one or more stopping rules",
    metavar="RULE,...",
)


@dataclass(frozen=True)
class _Combined(StoppingRule):
    rules: tuple[StoppingRule, ...] = ()
    takes_rules: ClassVar[bool] = True
    params: ClassVar[tuple[Param, ...]] = (RULES,)

    @classmethod
    def create(cls, spec: str, **params: Any) -> _Combined:
        return cls(spec, params["rules"])

    @property
    def kind(self) -> str:
        return self.name

    def combine(self, positions: Sequence[int | None], length: int) -> int | None:  # pragma: no cover - interface
        raise NotImplementedError

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        return self.combine([rule.stop_position(ledger, context) for rule in self.rules], len(ledger))


@register("stopping")
@dataclass(frozen=True)
class AnyRule(_Combined):
    """Stop at the first of its rules to fire: `any(knee,budget:2R+100)` (the earliest of their stop positions;
    it never fires when none of them does)."""

    name: ClassVar[str] = "any"
    examples: ClassVar[tuple[str, ...]] = ("any(knee:6,budget:0.5R)",)
    form: ClassVar[str] = "any(RULE,...)"

    def combine(self, positions: Sequence[int | None], length: int) -> int | None:
        fired = [p for p in positions if p is not None]
        return min(fired) if fired else None


@register("stopping")
@dataclass(frozen=True)
class AllRule(_Combined):
    """Stop once every one of its rules has fired: `all(knee,target:10)` stops at the latest of their stop
    positions (a rule that fired earlier counts as fired, though its condition may no longer hold); it never
    fires when one of them never does."""

    name: ClassVar[str] = "all"
    examples: ClassVar[tuple[str, ...]] = ("all(nonrel:20,target:5)",)
    form: ClassVar[str] = "all(RULE,...)"

    def combine(self, positions: Sequence[int | None], length: int) -> int | None:
        return None if any(p is None for p in positions) else max(positions)  # type: ignore[type-var]


def _nested_rule(text: str) -> StoppingRule:
    if not text.strip():  # `notbefore:5:`: not a list, so not _rule's "empty rule in the list"
        raise ConfigError("notbefore needs a stopping rule after N, e.g. notbefore:5:knee")
    return _rule(text)


@register("stopping")
@dataclass(frozen=True)
class NotBeforeRule(StoppingRule):
    """Not before N judgments: `notbefore:100:knee` stops at max(N, the rule's stop), i.e. where the rule stops,
    or at judgment N when it fired earlier (the same as all(knee,budget:N)); it never fires when the rule never
    does or the review ends before N."""

    min_judgments: int = 0
    rule: StoppingRule | None = None
    name: ClassVar[str] = "notbefore"
    examples: ClassVar[tuple[str, ...]] = ("notbefore:100:any(nonrel:20,batchprecision:0.1)",)
    form: ClassVar[str] = "notbefore:N:RULE"
    nests_spec: ClassVar[bool] = True
    params: ClassVar[tuple[Param, ...]] = (
        Param("n", int, None, "judgments before which the rule cannot stop", low=1, required=True, metavar="N"),
        Param(
            "rule",
            str,
            None,
            "the stopping rule (any spec, taken whole: notbefore:100:any(knee,nonrel:50))",
            parse=_nested_rule,
            required=True,
            accepted_text="a stopping rule",
            metavar="RULE",
        ),
    )

    @classmethod
    def create(cls, spec: str, **params: Any) -> NotBeforeRule:
        return cls(spec, params["n"], params["rule"])

    @property
    def kind(self) -> str:
        return self.name

    @property
    def rules(self) -> tuple[StoppingRule, ...]:
        return (self.rule,) if self.rule is not None else ()

    def combine(self, positions: Sequence[int | None], length: int) -> int | None:
        (position,) = positions
        return None if position is None or length < self.min_judgments else max(self.min_judgments, position)

    def stop_position(self, ledger: Ledger, context: ReplayContext) -> int | None:
        return self.combine([rule.stop_position(ledger, context) for rule in self.rules], len(ledger))
