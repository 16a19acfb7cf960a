"""A sweep's [review] table: its keys (derived from ReviewConfig's one schema), what a key that belongs in [sweep] is
told, and each value converted to the ReviewConfig field's value with the same checks `tarsim simulate` makes. Shared
by [review] itself and by [sweep] vary, whose values are [review] values, one per run."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import fields
from functools import partial
from typing import Any

from tarsim.components import kind
from tarsim.components.schema import toml_keys, toml_value
from tarsim.config.presets import apply_preset
from tarsim.config.review import ReviewConfig
from tarsim.errors import ConfigError
from tarsim.policies import SeedingChoice

REVIEW_KEYS = toml_keys(ReviewConfig)
"""[review] key -> (ReviewConfig field, its declared Setting): derived from ReviewConfig's one schema."""

SWEEP_HOMES = {"policy": "policies", "seed": "seeds", "feedback": "strategies", "train_on": "strategies"}
SWEEP_HOMES |= {"strategy": "strategies", "prior_seed": "prior_seeds", "preset": "presets"}
"""Per-run settings a sweep varies in [sweep] under their own key (a list: each value is a run)."""


def named_key(message: str, keys: Iterable[str]) -> str | None:
    """Of `keys`, the one a problem's message names first (as a whole word), else None: the key the problem is about
    (`lambda is the bmi learner's regularisation; learner 'svm' has none` is about lambda)."""
    found = [(match.start(), key) for key in keys if (match := re.search(rf"\b{re.escape(key)}\b", message))]
    return min(found)[1] if found else None


def in_sweep(sweep_keys: tuple[str, ...]) -> dict[str, str]:
    """What a [review] key that belongs in [sweep] is told: [sweep]'s own keys, and the settings [sweep] varies."""
    homes = {key: home for key, home in SWEEP_HOMES.items() if key != "preset"}  # [review] may name one preset
    return {
        **{key: "it belongs in [sweep]" for key in sweep_keys},
        **{key: f"a sweep sets it in [sweep] as {home} (a list: each value is a run)" for key, home in homes.items()},
        "stopping": "a sweep sets it in [sweep] as stopping (its rules are replayed on every whole ledger)",
    }


def review_value(key: str, value: Any, table=None) -> Any:
    """A [review] (or [sweep] vary) value of `key` as its ReviewConfig field's value; ConfigError says what is wrong.
    `table(cls, values)` builds a nested table ([review.time_model]) as its dataclass."""
    _, declaration = REVIEW_KEYS[key]
    if key == "seeding":
        if value not in ("query", "random", "priors"):
            raise ConfigError(
                f"unknown seeding {value!r}; accepted: query, random, priors "
                "(seed documents differ per topic, so 'documents' is not available in a sweep)"
            )
        return SeedingChoice(value)
    if key == "sentence_oracle" and isinstance(value, str) and kind("oracle").resolve(value)[0].name == "file":
        raise ConfigError("a sentence qrels FILE is not available in a sweep (give an oracle's name)")
    return toml_value(declaration, value, table or _no_table)


def _no_table(cls: type, values: Mapping) -> Any:
    raise ConfigError(f"expected a table of {', '.join(f.name for f in fields(cls))}")  # pragma: no cover


def review_options(check, table: Any, sweep_keys: tuple[str, ...]) -> dict[str, Any]:
    """[review] as ReviewConfig keyword arguments (policy, strategy, seed and stopping come from [sweep])."""
    if not isinstance(table, dict):
        check.fail("review", "expected a table [review]", None, "review")
    check.keys(table, list(REVIEW_KEYS), "review.", "review", elsewhere=in_sweep(sweep_keys))
    options: dict[str, Any] = {}
    for key, value in table.items():
        try:
            options[REVIEW_KEYS[key][0]] = review_value(key, value, partial(_build, check, key=key))
        except ConfigError as exc:
            check.fail(f"review.{key}", str(exc), "review", key)
    if "preset" in options:  # its policy gives way to [sweep] policies (max is relevance)
        options = {k: v for k, v in apply_preset(options.pop("preset"), options).items() if k != "policy"}
    return options


def _build(check, cls: type, values: dict, key: str):
    """A nested [review.KEY] table as its dataclass (unknown keys and bad values refused with the line)."""
    section = f"review.{key}"
    check.keys(values, [f.name for f in fields(cls)], f"{section}.", section)
    try:
        return cls(**values)
    except (ConfigError, TypeError) as exc:
        named = [name for name in values if re.search(rf"\b{re.escape(name)}\b", str(exc))]  # the key it is about
        return check.fail(f"{section}.{named[0]}" if named else section, str(exc), section, named[0] if named else None)
