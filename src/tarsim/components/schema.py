"""One configuration schema: each setting of a configuration dataclass declared once, in its field's metadata
(public name, type, range or choices, default, help, CLI flag, whether it is a sweep's TOML key, the component kind
whose spec it holds). Validation, the CLI options and the sweep's TOML keys are all derived from it."""

from __future__ import annotations

import argparse
import dataclasses
import numbers
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tarsim.components.lookup import kind
from tarsim.components.params import NotPlainNumber, Param, plain_number
from tarsim.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class Setting:
    """How one configuration field is declared: `param` (public name, type, range, default, help) and its uses."""

    param: Param
    component: str | None = None  # the value is a spec of this kind of component
    flag: str | None = None  # the CLI option (None: not an option)
    toml: bool = True  # a key of a sweep's [review] table
    metavar: str | None = None
    nested: type | None = None  # the value is this dataclass (a TOML table of its fields)
    numbers_as_text: bool = False  # a TOML number is taken as its text (batch = 10, max_effort = 500)
    many: bool = False  # the value is a tuple of component specs (of plain values without `component`)

    @property
    def name(self) -> str:
        return self.param.name

    def check(self, value: Any) -> None:
        """Refuse a value the setting does not accept (a component spec is checked by the registry)."""
        if value is None and self.param.default is None and not self.param.required:
            return
        if self.many and self.component is None:
            if not isinstance(value, (list, tuple)):
                raise ConfigError(f"{self.name} must be a list of {self.param.accepted()}s, got {value!r}")
            for item in value:
                self.param.check(item)
        elif self.many:
            if isinstance(value, str) or not all(isinstance(item, str) for item in value):
                raise ConfigError(f"{self.name} must be a list of {kind(self.component).label} specs, got {value!r}")
            for item in value:
                kind(self.component).resolve(item)
        elif self.component is not None:
            kind(self.component).resolve(value if isinstance(value, str) else str(value))
        elif self.nested is not None:
            if not isinstance(value, self.nested):
                raise ConfigError(f"{self.name} must be a {self.nested.__name__}, got {value!r}")
        else:
            self.param.check(value)

    def as_text(self, value: Any) -> Any:
        """A number given for a setting declared numbers_as_text (batch = 10, max_effort = 500, in TOML or Python)
        as its text; any other value as it is."""
        if self.numbers_as_text and isinstance(value, numbers.Real) and not isinstance(value, bool):
            return str(value)
        return value

    def help_text(self) -> str:
        """The option's help: what it does, what it accepts and its default."""
        if self.component is not None:
            accepted = " | ".join(kind(self.component).accepted(plugins=False).split(", "))
            accepted = f"{accepted} (all: tarsim list {self.component})"
        elif self.param.kind is bool:
            accepted = ""
        else:
            accepted = self.param.accepted()
        default = self.param.default
        text = self.param.help + (f": {accepted}" if accepted else "")
        if default is None or self.param.kind is bool:
            return text
        return f"{text}; default {default:g}" if isinstance(default, float) else f"{text}; default {default}"


def setting(
    param: Param, *, factory: Callable[[], Any] | None = None, **uses: Any
) -> Any:  # a dataclasses.Field, typed Any so that it can stand as a field's default
    """A dataclass field declared by a Setting (`factory` for mutable or object defaults)."""
    metadata = {"setting": Setting(param, **uses)}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=param.default, metadata=metadata)


def declared(cls: type) -> Iterator[tuple[str, Setting]]:
    """(field name, Setting) for every declared field of a configuration dataclass, in field order."""
    for field in dataclasses.fields(cls):
        if "setting" in field.metadata:
            yield field.name, field.metadata["setting"]


def check_settings(config: Any) -> None:
    """Check every declared field of a configuration instance."""
    for name, declaration in declared(type(config)):
        declaration.check(getattr(config, name))


def add_options(group: Any, cls: type) -> None:
    """Add an argparse option for every declared field with a flag (type, choices, default and help derived)."""
    for name, declaration in declared(cls):
        if declaration.flag is None:
            continue
        param = declaration.param
        if param.kind is bool:
            group.add_argument(declaration.flag, dest=name, action="store_true", help=declaration.help_text())
            continue
        options: dict[str, Any] = {"dest": name, "default": param.default, "help": declaration.help_text()}
        if declaration.many and declaration.component is not None:  # repeatable: each occurrence adds one spec
            options.update(action="append", default=None, help=declaration.help_text() + " (repeatable)")
        if declaration.component is None and param.parse is None and param.kind in (int, float):
            options["type"] = _option_type(declaration.flag, param)
        if declaration.many and declaration.component is None:  # values after the flag; a repeated flag adds more
            options.update(nargs="+", action="extend", default=None)
        if param.choices is not None:
            options["choices"] = list(param.choices)
        elif declaration.metavar:
            options["metavar"] = declaration.metavar
        group.add_argument(declaration.flag, **options)


def _option_type(flag: str, param: Param) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            return plain_number(text, param.kind)
        except NotPlainNumber as exc:
            raise argparse.ArgumentTypeError(f"{flag} must be {param.accepted()}, got {text!r} ({exc})") from None
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} must be {param.accepted()}, got {text!r}") from None

    convert.__name__ = param.kind.__name__
    return convert


def option_values(args: argparse.Namespace, cls: type) -> dict[str, Any]:
    """The declared fields' values from parsed CLI options (keyword arguments for `cls`)."""
    values = {name: getattr(args, name) for name, d in declared(cls) if d.flag is not None and hasattr(args, name)}
    for name, declaration in declared(cls):
        if declaration.many and name in values:
            values[name] = tuple(values[name] or ())
    return values


def toml_keys(cls: type) -> dict[str, tuple[str, Setting]]:
    """TOML key -> (field name, Setting) for the fields a sweep's [review] table may set."""
    return {d.name: (name, d) for name, d in declared(cls) if d.toml}


def toml_value(declaration: Setting, value: Any, table: Callable[[type, Mapping], Any]) -> Any:
    """A TOML value as the field's value: type-checked, numbers as text where declared, tables built by `table`."""
    if declaration.nested is not None:
        if not isinstance(value, dict):
            raise ConfigError(
                f"expected a table with {', '.join(f.name for f in dataclasses.fields(declaration.nested))}"
            )
        return table(declaration.nested, value)
    value = declaration.as_text(value)
    textual = declaration.component is not None or declaration.param.parse is not None
    if declaration.many and declaration.component is None:
        declaration.check(value)
        return tuple(value)
    if textual and not isinstance(value, str):
        raise ConfigError(f"expected {declaration.param.accepted() or 'a string'}, got {value!r}")
    if textual:
        declaration.check(value)
        return value
    try:
        declaration.check(value)
    except ConfigError:
        raise ConfigError(f"expected {declaration.param.accepted()}, got {value!r}") from None
    return value
