"""Declared parameters: name, type, accepted range or choices, default and one-line help, checked in one place."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tarsim.errors import ConfigError

_INTEGER = re.compile(r"-?[0-9]+")
_DECIMAL = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
"""How a number is written in a spec: int() and float() also take `1_0` and `+10`, recorded as given, so one
setting was two groups (`fixed:1_0`, `fixed:10`)."""


class NotPlainNumber(ValueError):
    """Text int() or float() would read, but written otherwise than a plain ASCII number."""


def plain_number(text: str, kind: type) -> Any:
    """`text` as an int or float (`kind`) written plainly: ASCII digits, a '-', a '.' and an exponent; int() and
    float() also read '١', '１０', '1_0' and '+10', which were recorded as given (one setting made two groups) or read
    a digit the user did not type. ValueError if it is no number; NotPlainNumber, saying why, if it is one unplainly.
    """
    if not text.isascii():
        raise NotPlainNumber("numbers are ASCII digits")
    value = kind(text)
    if not (_INTEGER if kind is int else _DECIMAL).fullmatch(text.strip()) and math.isfinite(value):
        raise NotPlainNumber("a plain number: digits, a '-' and a '.' only")
    return value


def _number_text(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Param:
    """One parameter of a component or one setting: `kind` is int, float, str or bool, or `parse` converts text.

    Numbers must be finite and within [low, high] (open ends with low_open/high_open); strings one of `choices`.
    """

    name: str
    kind: type = str
    default: Any = None
    help: str = ""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] | None = None
    parse: Callable[[str], Any] | None = None
    accepted_text: str = ""
    required: bool = False
    metavar: str = ""  # shown in specs' signatures instead of the name (lambda:L)

    def accepted(self) -> str:
        """What the parameter accepts, e.g. `a number in [0, 1]` or `one of random, uncertainty`."""
        if self.accepted_text:
            return self.accepted_text
        if self.choices is not None:
            return "one of " + ", ".join(self.choices)
        if self.kind is bool:
            return "true or false"
        noun = "an integer" if self.kind is int else "a number" if self.kind is float else "a string"
        if self.low is not None and self.high is not None:
            left, right = "(" if self.low_open else "[", ")" if self.high_open else "]"
            return f"{noun} in {left}{_number_text(self.low)}, {_number_text(self.high)}{right}"
        if self.low is not None:
            return f"{noun} {'>' if self.low_open else '>='} {_number_text(self.low)}"
        if self.high is not None:
            return f"{noun} {'<' if self.high_open else '<='} {_number_text(self.high)}"
        return noun

    def convert(self, value: Any) -> Any:
        """The value typed and checked (text from a spec or the CLI is converted); ConfigError otherwise."""
        if isinstance(value, str) and self.parse is not None:
            try:
                return self.parse(value)
            except ValueError:
                raise ConfigError(self._bad(value)) from None
        if isinstance(value, str) and self.kind in (int, float):
            try:
                value = plain_number(value, self.kind)
            except NotPlainNumber as exc:
                raise ConfigError(f"{self._bad(value)} ({exc})") from None
            except ValueError:
                raise ConfigError(self._bad(value)) from None
        elif isinstance(value, str) and self.kind is bool:
            if value.lower() not in ("true", "false"):
                raise ConfigError(self._bad(value))
            value = value.lower() == "true"
        return self.check(value)

    def check(self, value: Any) -> Any:
        """Check an already typed value against the declared type, range and choices."""
        if value is None and self.default is None and not self.required:
            return value
        if self.parse is not None:
            if isinstance(value, str):
                self.convert(value)
                return value
            raise ConfigError(self._bad(value))
        if self.kind is int and isinstance(value, numbers.Integral) and not isinstance(value, bool):
            value = int(value)
        elif self.kind is float and isinstance(value, numbers.Real) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, self.kind) or (isinstance(value, bool) and self.kind is not bool):
            raise ConfigError(self._bad(value))
        if self.kind in (int, float):
            if not math.isfinite(value):
                raise ConfigError(self._bad(value))
            too_low = self.low is not None and (value <= self.low if self.low_open else value < self.low)
            too_high = self.high is not None and (value >= self.high if self.high_open else value > self.high)
            if too_low or too_high:
                raise ConfigError(self._bad(value))
        if self.choices is not None and value not in self.choices:
            raise ConfigError(self._bad(value))
        return value

    def _bad(self, value: Any) -> str:
        return f"{self.name} must be {self.accepted()}, got {value!r}"

    def describe(self) -> str:
        """`name: help (accepted; default D)` for listings."""
        default = "" if self.default is None else f"; default {self.default!r}"
        return f"{self.name}: {self.help} ({self.accepted()}{default})"
