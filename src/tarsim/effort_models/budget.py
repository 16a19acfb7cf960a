"""Effort budgets aR + b (R: the topic's relevant count), in the units of an effort model."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from tarsim.errors import ConfigError

_NUMBER = r"[0-9]+(?:\.[0-9]+)?"  # ASCII: \d took full-width digits, recorded as given
_BUDGET = re.compile(rf"^(?:(?P<a>{_NUMBER})?R(?:\+(?P<b1>{_NUMBER}))?|(?P<b2>{_NUMBER}))$")


@dataclass(frozen=True)
class Budget:
    """An effort budget aR + b in the units of an effort model (R: the topic's relevant count)."""

    a: float = 0.0
    b: float = 0.0

    @classmethod
    def parse(cls, text: str) -> Budget:
        """Parse `2R+100`, `4R`, `1000` or `R+0`."""
        match = _BUDGET.match(str(text).replace(" ", "").replace("*", "").upper())
        if not match:
            raise ConfigError(f"budget {text!r}: expected aR+b, e.g. 2R+100, 4R or 1000")
        if match.group("b2") is not None:
            budget = cls(0.0, float(match.group("b2")))
        else:
            a = float(match.group("a")) if match.group("a") else 1.0
            budget = cls(a, float(match.group("b1") or 0.0))
        if not (math.isfinite(budget.a) and math.isfinite(budget.b)):
            raise ConfigError(f"budget {text!r}: a and b must be finite numbers")
        return budget

    def effort(self, relevant: int) -> float:
        return self.a * relevant + self.b

    def __str__(self) -> str:
        return f"{self.a:g}R+{self.b:g}"
