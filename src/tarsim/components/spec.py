"""The one spec grammar for components: `name`, `name:v1[:v2...]` (positional) or `name:param=value,...`, and
for components that combine others (stopping rules) `name(spec,spec,...)`, split at the commas outside parentheses."""

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
    """Split `mix:0.2:random`, `mix:share=0.2,other=random` or `knee` into a Spec (values are checked later). A
    control or line-separator character is refused: strip() dropped a trailing U+2028, so `nb\u2028` ran as `nb`
    while run ids and headers kept it."""
    check_printable(text)
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


def check_printable(text: str) -> None:
    """Refuse a spec holding a control or line-separator character (U+2028, a tab, NUL) in one line."""
    if not text.isprintable():
        shown = next(f"U+{ord(c):04X}" for c in text if not c.isprintable())
        raise ConfigError(f"{text!r}: holds {shown}, a control or line-separator character")


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split `text` at each `sep` outside parentheses: `knee,any(a,b)` gives `knee` and `any(a,b)` (the
    parentheses are assumed balanced: see unbalanced())."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if char == sep and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def unbalanced(text: str) -> str | None:
    """What is wrong with the parentheses of `text` (None: they balance)."""
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return "a ')' closes no '('"
    return f"{depth} '(' never closed" if depth else None


def call_form(text: str) -> tuple[str, str] | None:
    """`name(a,b)` as (name, `a,b`) when the text opens a parenthesis before any `:` (None otherwise); text after
    the closing parenthesis is refused."""
    head, paren, rest = text.strip().partition("(")
    if not paren or ":" in head:
        return None
    body, close = rest.rstrip(), ""
    depth = 1
    for index, char in enumerate(rest):
        depth += (char == "(") - (char == ")")
        if depth == 0:
            body, close = rest[:index], rest[index + 1 :]
            break
    if close.strip():
        raise ConfigError(f"{text.strip()!r}: unexpected {close.strip()!r} after the closing ')'")
    return head.strip(), body
