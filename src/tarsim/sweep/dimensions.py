"""[sweep] vary: any [review] setting as a dimension of the sweep, a list of values each of which is a run.

    [sweep]
    vary.learner = ["logistic", "nb", "svm:C=0.5"]
    vary.batch = ["bmi", "fixed:10"]

(`[sweep.vary]` with `learner = [...]` under it is the same TOML table.) Each value is checked as [review] checks it
(a component spec against the registry) before anything runs. A varied value enters a run's options as a [review]
value does: over a preset's settings (so it wins over them), and a key is either varied or fixed in [review], never
both. Like a preset, a varied value is part of the run's id (`...__batch=fixed:10__learner=nb__policy__...`, the
dimensions in the order of their keys' names) but not of its derived seed: runs that differ only in varied values
share every random choice, so they pair.
"""

from __future__ import annotations

import difflib
import itertools
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tarsim.components import kind
from tarsim.config.review import strategy_config
from tarsim.errors import ConfigError, InputError
from tarsim.sweep.presets import preset_options
from tarsim.sweep.review_table import REVIEW_KEYS, SWEEP_HOMES, named_key, review_value
from tarsim.sweep.toml_keys import shown_key

VARY = "vary"
"""The [sweep] key of the varied settings: a table of [review] keys, each with a list of values."""

NOT_VARIED = {
    **{key: f"[sweep] {home} varies it (a list: each value is a run)" for key, home in SWEEP_HOMES.items()},
    "stopping": "[sweep] stopping replays every rule on every whole ledger (each rule measured on the same runs, "
    "paired); a rule stopping the review online would cut the ledgers the others are replayed on",
    "effort_models": "effort models do not change what is reviewed: [sweep] effort_models measures every run in each "
    "(vary.max_effort_model varies the model max_effort is counted in)",
}
NOT_VARIED["effort"] = NOT_VARIED["effort_models"]
NOT_VARIED["log_scores"] = "it keeps the learner's scores for score-based stopping rules: set it in [review]"
"""Keys `vary` does not take, and where what they mean is set."""


def variable_keys() -> list[str]:
    """The [review] keys `vary` takes: every one holding a single value (a table or a list of rows cannot be; seeding
    is a name in TOML)."""
    single = [key for key, (_, declared) in REVIEW_KEYS.items() if key == "seeding" or declared.nested is None]
    return [key for key in single if not REVIEW_KEYS[key][1].many and key not in NOT_VARIED]


@dataclass(frozen=True)
class Dimension:
    """One varied setting: its [review] key, its ReviewConfig field, its values as the file gives them (JSON scalars,
    in the file's order) and each value as the field's value."""

    key: str
    field: str
    values: tuple[Any, ...]
    settings: tuple[Any, ...]

    def setting(self, value: Any) -> Any:
        """The ReviewConfig field's value of one of the dimension's values."""
        return self.settings[self.values.index(value)]


def token(value: Any) -> str:
    """A varied value as a run id writes it: a string as it is, a number or a boolean as TOML and JSON write it."""
    return value if isinstance(value, str) else json.dumps(value)


def run_id_parts(vary: Sequence[tuple[str, Any]]) -> list[str]:
    """The run id's parts of a run's varied values: `key=value` each (`learner=svm:C=0.5`)."""
    return [f"{key}={token(value)}" for key, value in vary]


def combinations(dimensions: Sequence[Dimension]) -> Iterator[tuple[tuple[str, Any], ...]]:
    """Every combination of the dimensions' values, ((key, value), ...), the first dimension varying slowest; one
    empty combination when nothing is varied."""
    for values in itertools.product(*(dimension.values for dimension in dimensions)):
        yield tuple(zip((dimension.key for dimension in dimensions), values, strict=True))


def vary_options(dimensions: Sequence[Dimension], vary: Sequence[tuple[str, Any]]) -> dict[str, Any]:
    """A combination's ReviewConfig keyword arguments (field -> value)."""
    by_key = {dimension.key: dimension for dimension in dimensions}
    return {by_key[key].field: by_key[key].setting(value) for key, value in vary}


def swept_dimensions(check, sweep: Mapping, review: Any) -> tuple[Dimension, ...]:
    """[sweep] vary's dimensions, ordered by key (() when nothing is varied); each value checked as [review] checks
    it, none twice, and a varied key left out of [review]. Errors name the file and the key's line."""
    if VARY not in sweep:
        return ()
    table = sweep[VARY]
    example = 'e.g. vary.learner = ["logistic", "nb"]'
    if not isinstance(table, dict) or not table:
        where = "names no setting" if isinstance(table, dict) else f"expected a table, got {table!r}"
        _fail(check, None, f"{where}: a [review] key and its values, {example}")
    accepted = variable_keys()
    dimensions = []
    for key, given in table.items():
        if key in NOT_VARIED:
            _fail(check, key, NOT_VARIED[key])
        if key not in accepted:
            close = difflib.get_close_matches(key, accepted, n=1, cutoff=0.6)
            table_hint = "; a table or a list cannot be varied" if key in REVIEW_KEYS else ""
            hint = f"did you mean {close[0]!r}? " if close else ""
            _fail(check, key, f"not a setting a sweep can vary{table_hint}; {hint}accepted: {', '.join(accepted)}")
        if isinstance(review, dict) and key in review:
            check.fail(f"review.{key}", f"[sweep] vary.{key} varies it: leave {key} out of [review]", "review", key)
        if not isinstance(given, list):  # one value would be no dimension, and a typo for a list
            _fail(check, key, f'expected a list of values, e.g. vary.{key} = ["{token(given)}"], got {given!r}')
        values = given
        if not values:
            _fail(check, key, f"expected a non-empty list of values, {example}")
        settings = []
        for value in values:
            try:
                settings.append(review_value(key, value))
            except ConfigError as exc:
                _fail(check, key, f"{value!r}: {exc}" if repr(value) not in str(exc) else str(exc))
        problem = repeated_setting(values, [canonical(key, setting) for setting in settings])  # `10`, `fixed:10`
        if problem is not None:
            _fail(check, key, problem)
        dimensions.append(Dimension(key, REVIEW_KEYS[key][0], tuple(values), tuple(settings)))
    return tuple(sorted(dimensions, key=lambda dimension: dimension.key))


def repeated_setting(values: Sequence[Any], forms: Sequence[Any]) -> str | None:
    """The problem with a list of values of which two are one setting (`forms`: each value's canonical form, e.g. a
    component spec as the registry resolves it), else None: they would run twice."""
    for later, form in enumerate(forms):
        first = forms.index(form)
        if first < later and values[first] == values[later]:
            return f"lists {values[first]!r} twice; list each value once"
        if first < later:
            return f"{values[first]!r} and {values[later]!r} are the same setting; list it once"
    return None


def canonical(key: str, setting: Any) -> Any:
    """A varied value's canonical form: a component spec as the registry resolves it (its name and parameters, so
    that two spellings of one setting are equal), any other value as it is."""
    component = REVIEW_KEYS[key][1].component
    return setting if component is None or not isinstance(setting, str) else kind(component).canonical(setting)


def vary_line(check, key: str | None) -> int | None:
    """The line of `vary.KEY = ...` under [sweep], of KEY under [sweep.vary], else of vary itself."""
    where = check.where
    if key is None:
        return where.line("sweep", VARY) or where.line("sweep.vary")
    found = where.line("sweep", f"{VARY}.{key}") or where.line("sweep", f'{VARY}."{key}"')
    return found or where.line("sweep.vary", key) or where.line("sweep.vary", f'"{key}"') or where.line("sweep", VARY)


def _fail(check, key: str | None, problem: str):
    raise InputError(
        check.path, vary_line(check, key), f"sweep.vary{'' if key is None else '.' + shown_key(key)}: {problem}"
    )


def check_combinations(
    check,
    review: Mapping[str, Any],
    presets: Mapping[str | None, Sequence[str]],
    dimensions: Sequence[Dimension],
    strategies: Sequence[str],
    prior_seed: int | None,
    review_lines: Mapping[str, int],
) -> None:
    """Build every run's configuration (preset x varied values x policy x strategy; `presets`: each preset and its
    policies) before anything runs: a setting refused with another (`lambda` with a varied learner `svm`) is one error
    at the line of the key it names first, naming the varied values it came with."""
    for preset, policies in presets.items():
        for vary in combinations(dimensions):
            options = {**review, **vary_options(dimensions, vary)}
            options = options if preset is None else preset_options(preset, options)
            try:
                for policy, strategy in itertools.product(policies, strategies):
                    strategy_config(strategy, policy=policy, seed=0, prior_seed=prior_seed, **options)
            except ConfigError as exc:
                message = str(exc)
                varied = dict(vary)
                key = named_key(message, [*review_lines, *varied])
                with_values = ", ".join(f"{name} = {token(value)}" for name, value in vary)
                if with_values:
                    message = f"with {with_values}: {message}"
                if key in varied and key not in review_lines:
                    _fail(check, key, message)
                check.fail("review", message, "review", key)
