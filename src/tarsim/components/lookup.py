"""Looking components up by kind: `kind`, `register`, `make`, `validate`, `components` over the declared kinds.

Importing this module declares the built-in kinds (tarsim.components.kinds), so a look-up never meets an empty table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from tarsim.components.kinds import KINDS
from tarsim.components.registry import Kind
from tarsim.components.spec import Spec
from tarsim.errors import ConfigError

T = TypeVar("T", bound=type)


def kind(key: str) -> Kind:
    """The Kind registered under `key` (learner, features, policy, batch, effort, oracle, stopping)."""
    if key not in KINDS:
        raise ConfigError(f"component kind {key!r} unknown; accepted: {', '.join(KINDS)}")
    return KINDS[key]


def register(key: str) -> Callable[[T], T]:
    """Class decorator: declare a component of kind `key` (its `name`, docstring and `params`)."""

    def decorate(cls: T) -> T:
        kind(key).add(cls)
        return cls

    return decorate


def make(key: str, spec: str | Spec, **context: Any) -> Any:
    """Build the component of kind `key` that `spec` names."""
    return kind(key).make(spec, **context)


def validate(key: str, spec: str | Spec) -> None:
    """Check a spec without building anything."""
    kind(key).resolve(spec)


def components(key: str) -> Iterable[type]:
    """Every component class of a kind (plugins included)."""
    registered = kind(key)
    return [registered.components[name] for name in registered.names()]
