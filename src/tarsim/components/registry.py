"""The component registry: every learner, feature extractor, selection policy, batch schedule, effort model,
sentence oracle and stopping rule is a class declared once (name, docstring, parameters) and found by name.

Built-in components are declared next to their code and registered when their module is imported (lazily, on
the first look-up of their kind); third-party packages add components through entry points (see PLUGIN_GROUPS),
loaded with importlib.metadata only when a name is not built in or when every component is listed.
"""

from __future__ import annotations

import difflib
import importlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

from tarsim.components.params import Param
from tarsim.components.plugin_load import PluginInterrupt, load_entry_point
from tarsim.components.spec import Spec, check_printable, parse_spec
from tarsim.errors import ConfigError, InputWarning

T = TypeVar("T", bound=type)


@dataclass
class Kind:
    """One kind of component: its label in messages, where the built-ins are declared, and its plugin group."""

    key: str
    label: str
    modules: tuple[str, ...]
    group: str
    extra_forms: tuple[str, ...] = ()
    shorthand: Callable[[str], Spec | None] | None = None
    forms: tuple[str, ...] = ()  # the built-ins' signatures, in declaration order, for --help without imports
    interface: tuple[str, ...] = ()  # the methods every component of this kind defines (checked when registered)
    attributes: dict[str, type] = field(default_factory=dict)  # class attributes it holds, with their types (checked)
    components: dict[str, type] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # a plugin's name -> `plugin 'x' of distribution 'd' (m:a)`
    loaded: bool = False
    plugins_loaded: bool = False

    def load(self, plugins: bool = False) -> None:
        """Import the modules declaring the built-ins; with `plugins`, also load the entry points."""
        if not self.loaded:
            self.loaded = True
            for module in self.modules:
                importlib.import_module(module)
        if plugins and not self.plugins_loaded:
            self.plugins_loaded = True
            for point in entry_points(group=self.group):
                self._load_plugin(point)

    def _load_plugin(self, point: EntryPoint) -> None:
        """Register one entry point's component, or say in one warning (naming the plugin, its distribution and its
        target) why not: a name taken by a built-in (never imported then), an import that raises or calls
        sys.exit, an object that is no component of this kind. tarsim goes on either way."""
        plugin = _describe(point)
        earlier = self.components.get(point.name)
        if earlier is not None:
            if f"{earlier.__module__}:{earlier.__qualname__}" != point.value:  # not the same plugin listed twice
                owner = f"a built-in {self.label}" if earlier.__module__ in self.modules else _qualified(earlier)
                warnings.warn(
                    f"{plugin} is refused: {point.name!r} is already the name of {owner}",
                    InputWarning,
                    stacklevel=4,
                )
            return
        try:
            cls = load_entry_point(point)
        except SystemExit as exc:  # a plugin calling sys.exit() on import must not end tarsim
            warnings.warn(f"{plugin} failed to load: it called sys.exit({exc.code!r})", InputWarning, stacklevel=4)
            return
        except PluginInterrupt:  # its own KeyboardInterrupt, no Ctrl-C: a real Ctrl-C still interrupts tarsim
            reason = "it raised KeyboardInterrupt on import (no Ctrl-C was pressed)"
            warnings.warn(f"{plugin} failed to load: {reason}", InputWarning, stacklevel=4)
            return
        except Exception as exc:  # a broken plugin must not break tarsim: say so and go on
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            warnings.warn(f"{plugin} failed to load: {reason}", InputWarning, stacklevel=4)
            return
        if getattr(cls, "name", None) != point.name:
            warnings.warn(f"{plugin} is not a component named {point.name!r}", InputWarning, stacklevel=4)
            return
        try:
            self.add(cls)
        except TypeError as exc:  # e.g. a policy listed as a learner: refused here, not at its first use
            warnings.warn(f"{plugin} {exc}", InputWarning, stacklevel=4)
            return
        self.origins[point.name] = plugin

    def add(self, cls: type) -> type:
        """Register a component class (it needs a `name` and a docstring; `params` defaults to none)."""
        name = getattr(cls, "name", "")
        if not isinstance(name, str) or not name:
            raise TypeError(f"{cls.__name__} has no component name")
        if not (cls.__doc__ or "").strip():
            raise TypeError(f"{cls.__name__} ({self.key} {name!r}) has no docstring")
        missing = [method for method in self.interface if not _defines(cls, method)]
        missing += [
            n for n in dir(cls) if n not in missing and getattr(getattr(cls, n, None), "__isabstractmethod__", 0)
        ]
        if missing:
            raise TypeError(
                f"{cls.__name__} is not a {self.label}: it does not define {', '.join(f'{m}()' for m in missing)}"
            )
        for attribute, expected in self.attributes.items():
            value = getattr(cls, attribute, None)
            if not isinstance(value, expected):
                got = "none" if value is None else f"a {type(value).__name__}"
                raise TypeError(
                    f"{cls.__name__} is not a {self.label}: its {attribute!r} must be a {expected.__name__}, got {got}"
                )
        earlier = self.components.get(name)
        if earlier is not None and earlier is not cls and not _same_declaration(earlier, cls):
            raise TypeError(f"{self.key} {name!r} is declared twice ({_qualified(earlier)}, {_qualified(cls)})")
        self.components[name] = cls  # a declaration run again (a notebook cell, a reloaded module) replaces itself
        return cls

    def names(self, plugins: bool = True) -> list[str]:
        """Every component name of this kind: built-ins first, in the order of the modules declaring them (whichever
        module another import registered first), then plugins' and sessions' in the order they were registered."""
        self.load(plugins)
        rank = {module: index for index, module in enumerate(self.modules)}
        return sorted(self.components, key=lambda name: rank.get(self.components[name].__module__, len(rank)))

    def get(self, name: str) -> type | None:
        """The class named `name`, loading plugins if it is not built in; None if unknown."""
        self.load()
        if name not in self.components:
            self.load(plugins=True)
        return self.components.get(name)

    def accepted(self, plugins: bool = True) -> str:
        """The accepted forms: every name with its parameters, then the extra forms (with plugins: for errors).

        Without plugins (option help, written whenever a parser is built) the built-ins' declared `forms` serve
        until their modules are loaded anyway, so describing `tarsim simulate` imports no component (the forms
        are checked against the classes by tests/runtime/test_speed_paths.py); a component registered from elsewhere is
        listed from the classes, as before.
        """
        registered_elsewhere = any(cls.__module__ not in self.modules for cls in self.components.values())
        if not plugins and self.forms and not (self.loaded or registered_elsewhere):
            return ", ".join([*self.forms, *self.extra_forms])
        forms = [signature(cls) for cls in (self.components[n] for n in self.names(plugins))]
        return ", ".join([*forms, *self.extra_forms])

    def origin(self, cls: type) -> str:
        """Where a component comes from, for errors about it: `plugin 'x' of distribution 'd' (module:attr)`, a
        session's `module.Class`, or `built-in`."""
        if cls.__module__ in self.modules:
            return "built-in"
        return self.origins.get(getattr(cls, "name", ""), _qualified(cls))

    def is_builtin(self, spec: str | Spec) -> bool:
        """Whether the component a spec names is one of tarsim's own (declared in this kind's modules), not a
        plugin's or a session's: checks that guard against a third party's mistakes can skip it."""
        cls, _ = self.resolve(spec)
        return cls.__module__ in self.modules

    def unknown(self, name: str, spec: str) -> ConfigError:
        """`policy 'relevence' unknown; accepted: ... (did you mean relevance?)`."""
        close = difflib.get_close_matches(name, self.names(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        return ConfigError(f"{self.label} {spec!r} unknown; accepted: {self.accepted()}{hint}")

    def resolve(self, spec: str | Spec) -> tuple[type, dict[str, Any]]:
        """The class a spec names and its checked parameters (declared defaults filled in)."""
        if not isinstance(spec, Spec):
            check_printable(str(spec))  # before strip(), which drops a trailing U+2028
            text = str(spec).strip()
            if not text:
                raise ConfigError(f"{self.label} is empty; accepted: {self.accepted()}")
            parsed = self.shorthand(text) if self.shorthand else None
            spec = parsed if parsed is not None else parse_spec(text)
        cls = self.get(spec.name)
        if cls is None:
            raise self.unknown(spec.name, spec.text)
        return cls, bind(self, cls, spec)

    def canonical(self, spec: str | Spec) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """A spec's canonical form: its component's name and checked parameters (defaults filled in), so that two
        spellings of one setting (`10` and `fixed:10`, `svm:C=.5` and `svm:C=0.5`) compare equal."""
        cls, params = self.resolve(spec)
        return cls.name, tuple(sorted(params.items()))

    def make(self, spec: str | Spec, **context: Any) -> Any:
        """An instance of the component a spec names (`create(spec_text, **params, **context)` if defined)."""
        cls, params = self.resolve(spec)
        text = spec.text if isinstance(spec, Spec) else str(spec).strip()
        create = getattr(cls, "create", None)
        return create(text, **params, **context) if create is not None else cls(**params, **context)


def _describe(point: EntryPoint) -> str:
    """`plugin 'name' of distribution 'dist' (module:attr)`, for a warning about an entry point."""
    dist = getattr(point, "dist", None)
    of = f" of distribution {dist.name!r}" if dist is not None and getattr(dist, "name", None) else ""
    return f"plugin {point.name!r}{of} ({point.value})"


def _defines(cls: type, method: str) -> bool:
    """Whether `cls` has `method` as a callable that is not an interface's abstract stub."""
    attribute = getattr(cls, method, None)
    return callable(attribute) and not getattr(attribute, "__isabstractmethod__", False)


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _same_declaration(earlier: type, cls: type) -> bool:
    """Whether `cls` is `earlier` declared again: the same module and qualified name (a notebook cell run twice)."""
    return _qualified(earlier) == _qualified(cls)


def params_of(cls: type) -> tuple[Param, ...]:
    """A component's declared parameters (none if it declares none)."""
    return tuple(getattr(cls, "params", ()))


def signature(cls: type) -> str:
    """`name`, or `name:p1[:p2]` when a parameter is required, for messages."""
    if getattr(cls, "form", None):
        return cls.form
    params = params_of(cls)
    if not any(p.required for p in params):  # optional-only parameters are shown by `tarsim list`, not here
        return cls.name
    return cls.name + "".join(f":{p.metavar or p.name}" if p.required else f"[:{p.metavar or p.name}]" for p in params)


def summary(cls: type) -> str:
    """The first paragraph of a component's docstring, on one line."""
    return " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())


def bind(kind: Kind, cls: type, spec: Spec) -> dict[str, Any]:
    """Match a spec's positional and named values to the declared parameters, converting and checking each."""
    params = params_of(cls)
    names = [p.name for p in params]
    where = f"{kind.label} {spec.text!r}"
    positional = list(spec.positional)
    if len(positional) > len(params) and params and params[-1].kind is str:  # a nested spec: budget:R:lambda:0.5
        positional[len(params) - 1 :] = [":".join(positional[len(params) - 1 :])]
    if len(positional) > len(params):
        raise ConfigError(f"{where}: too many values; expected {signature(cls)}")
    values: dict[str, Any] = dict(zip(names, positional, strict=False))
    for key, value in spec.named.items():
        if key not in names:
            close = difflib.get_close_matches(key, names, n=1)
            elsewhere = getattr(cls, "settings_elsewhere", {}).get(key)  # set by another option, not in the spec
            hint = f" (did you mean {close[0]}?)" if close else f" ({key} is {elsewhere})" if elsewhere else ""
            accepted = ", ".join(names) or "none"
            raise ConfigError(f"{where}: unknown parameter {key!r}; accepted parameters: {accepted}{hint}")
        if key in values:
            raise ConfigError(f"{where}: parameter {key!r} given twice")
        values[key] = value
    bound = {}
    for param in params:
        if param.name not in values:
            if param.required:
                raise ConfigError(f"{where}: missing {param.name}; expected {signature(cls)}")
            bound[param.name] = param.default
            continue
        try:
            bound[param.name] = param.convert(values[param.name])
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    check_combination = getattr(cls, "check_combination", None)  # rules between parameters, declared by the class
    if check_combination is not None:
        try:
            check_combination(bound)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    return bound


KINDS: dict[str, Kind] = {}


def declare_kind(kind: Kind) -> Kind:
    """Add a kind of component (done once per kind, in tarsim.components.kinds)."""
    KINDS[kind.key] = kind
    return kind
