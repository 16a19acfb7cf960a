"""The one spec grammar for components: `name`, `name:v1[:v2...]` (positional) or `name:param=value,...`."""

from __future__ import annotations

from dataclasses import dataclass, field

from tarsim.errors import ConfigError


@dataclass(frozen=True)
class Spec:
    """A parsed spec: the component name, positional values and named values (all still text)."""

    text: str
    name: str
    positional: tuple[str, ...] = ()
    named: dict[str, str] = field(default_factory=dict)


def parse_spec(text: str) -> Spec:
    """Split `mix:0.2:random`, `mix:share=0.2,other=random` or `knee` into a Spec (values are checked later)."""
    name, _, rest = text.strip().partition(":")
    name = name.strip()
    if not rest:
        return Spec(text, name)
    if "=" not in rest:
        return Spec(text, name, tuple(part.strip() for part in rest.split(":")))
    named: dict[str, str] = {}
    for item in rest.split(","):
        key, equals, value = item.partition("=")
        if not equals or not key.strip():
            raise ConfigError(f"{text!r}: expected name:param=value,... (got {item!r})")
        if key.strip() in named:
            raise ConfigError(f"{text!r}: parameter {key.strip()!r} given twice")
        named[key.strip()] = value.strip()
    return Spec(text, name, named=named)
