"""The `tarsim simulate` command that reproduces a ledger, derived from its header's configuration.

Ledgers do not record the command line (one seed gives the same bytes however the flags were spelt), so the
command is rebuilt from the recorded settings: `--preset` when the review had one, then a flag for every setting that
differs from what the preset (or the defaults) give, in the order the settings are declared. The command is checked
before it is offered: the configuration its flags make, as `tarsim simulate` makes it (apply_preset, ReviewConfig),
must record exactly the recorded settings; any that no flag can give (a time_model, a preset left out on a screening
file) is named in `unexpressed`, so a caller says so instead of printing a wrong command.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from tarsim.components.schema import Setting, declared
from tarsim.config.presets import SCREENING_FILE_PRESET, apply_preset
from tarsim.config.review import ReviewConfig, normalise_config
from tarsim.effort_models import DEFAULT_EFFORT_MODELS
from tarsim.errors import ConfigError
from tarsim.features.matrices import FeatureSettings
from tarsim.policies import SeedingChoice

SCREENING_EFFORT = "judge"
"""The first effort model `tarsim simulate` counts --max-effort in for a screening file (reporting.tables)."""
PRIOR_FLAGS = ("n_prior_included", "n_prior_excluded", "prior_idx")
"""Settings that make the seeding `priors` by themselves (ReviewConfig._resolve_priors)."""
OWN_FLAGS = ("preset", "seed", "seeding", "features", "prior_seed")
"""Settings whose flags are written by hand below (their value is not the field's value as it stands)."""


@dataclass(frozen=True)
class SimulateCommand:
    """A `tarsim simulate` command line and the recorded settings it cannot give (empty: it reproduces them all)."""

    argv: tuple[str, ...]
    unexpressed: tuple[str, ...] = ()

    def text(self) -> str:
        """The command as a shell line."""
        return shlex.join(self.argv)


def _flag_text(value: Any) -> str:
    """A value as the CLI takes it: floats in their shortest exact form, booleans as true/false."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _parsed(declaration: Setting, text: str) -> Any:
    """A flag's text as argparse gives it to `tarsim simulate` (schema.add_options' option type)."""
    param = declaration.param
    if declaration.component is None and param.parse is None and param.kind in (int, float):
        return param.kind(text)
    return text


def _features_spec(config: ReviewConfig) -> str:
    """--features SPEC giving the config's extractor and feature settings (bmi's settings that differ)."""
    if config.extractor != "bmi":
        return config.extractor
    default = FeatureSettings()
    changed = [
        f"{field.name}={_flag_text(getattr(config.features, field.name))}"
        for field in fields(FeatureSettings)
        if getattr(config.features, field.name) != getattr(default, field.name)
    ]
    return "bmi:" + ",".join(changed) if changed else "bmi"


def recorded_config(config: Mapping) -> ReviewConfig:
    """The configuration a ledger header's `config` records; ConfigError (one line) for one that makes none (a
    hand-made or foreign header without `seeding`, a setting this tarsim does not know)."""
    try:
        return ReviewConfig.from_dict(normalise_config(dict(config)))
    except KeyError as error:
        raise ConfigError(f"the recorded configuration has no {error.args[0]}") from None
    except (TypeError, ValueError) as error:
        raise ConfigError(f"the recorded configuration makes none here ({error})") from None


def simulate_command(
    config: Mapping,
    topics: Sequence[str],
    *,
    collection: str | None = None,
    screening: bool = False,
    unlabelled: str = "error",
    out: str = "reproduced",
) -> SimulateCommand:
    """The `tarsim simulate` command whose review of `topics` records `config` (a ledger header's `config`).
    `collection`: the path to give (None: the built-in demo); `screening`: it is a screening file, which simulate
    reviews with SCREENING_FILE_PRESET unless --preset names another, and counts judgments first; `unlabelled`:
    skip when the file has unlabelled records (the review left them out)."""
    try:
        recorded = recorded_config(config)
    except ConfigError as error:
        return SimulateCommand((), (str(error),))
    default_preset = SCREENING_FILE_PRESET if screening else None
    preset = recorded.preset or default_preset  # what simulate applies
    base = ReviewConfig(**apply_preset(preset, {}), seed=recorded.seed)
    argv = ["tarsim", "simulate"]
    argv += ["--collection", collection] if collection is not None else []
    argv += ["--unlabelled", unlabelled] if unlabelled != "error" else []
    for topic in topics:
        argv += ["--topic", topic]
    argv += ["--preset", recorded.preset] if recorded.preset is not None else []
    given: dict[str, Any] = {}  # what argparse would hand simulate, by field name
    flags: list[str] = []
    for name, declaration in declared(ReviewConfig):
        value, usual = getattr(recorded, name), getattr(base, name)
        if declaration.flag is None or name in OWN_FLAGS or value == usual:
            continue
        if declaration.param.kind is bool:  # store_true: a flag can turn a setting on, not off
            if value:
                flags.append(declaration.flag)
                given[name] = True
        elif declaration.many and declaration.component is not None:  # --stop RULE, repeated
            for item in value:
                flags += [declaration.flag, item]
            given[name] = tuple(value)
        elif declaration.many:  # --prior-idx 3 5 8
            flags += [declaration.flag, *(_flag_text(item) for item in value)]
            given[name] = tuple(_parsed(declaration, _flag_text(item)) for item in value)
        else:
            flags += [declaration.flag, _flag_text(value)]
            given[name] = _parsed(declaration, _flag_text(value))
    if (recorded.extractor, recorded.features) != (base.extractor, base.features):
        flags += ["--features", _features_spec(recorded)]
        given["features"] = _features_spec(recorded)
    implied = recorded.seeding.kind == "priors" and any(key in given for key in PRIOR_FLAGS)  # priors: the seeding
    if recorded.seeding != base.seeding and not implied:
        flags += ["--seeding", recorded.seeding.kind]
        for docid in recorded.seeding.docids:
            flags += ["--seed-doc", docid]
        given["seeding"] = recorded.seeding
    else:
        given["seeding"] = SeedingChoice("query")  # as simulate passes it without --seeding
    if recorded.effective_prior_seed is not None and recorded.effective_prior_seed != recorded.seed:
        flags += ["--prior-seed", str(recorded.effective_prior_seed)]
        given["prior_seed"] = recorded.effective_prior_seed
    first_effort = SCREENING_EFFORT if screening else DEFAULT_EFFORT_MODELS[0]
    if recorded.max_effort_model != first_effort:
        flags += ["--effort", recorded.max_effort_model]
    argv += ["--seed", str(recorded.seed), *flags, "--out", out]
    given["seed"] = recorded.seed
    missing = _not_given(recorded, given, preset)
    if recorded.preset is None and default_preset is not None:  # no flag asks simulate for no preset
        why = f"preset: none (a screening file is reviewed with {default_preset} unless --preset names one)"
        missing = [why if line.startswith("preset:") else line for line in missing]
    return SimulateCommand(tuple(argv), tuple(missing))


def _not_given(recorded: ReviewConfig, given: Mapping[str, Any], preset: str | None) -> list[str]:
    """The recorded settings the flags do not give, `key: recorded value`: the configuration simulate would make
    from them (its preset, then the flags' values) compared, as recorded, with the recorded one."""
    target = recorded.to_dict()
    try:
        made = ReviewConfig(**apply_preset(preset, dict(given)), max_effort_model=recorded.max_effort_model).to_dict()
    except ConfigError as error:  # pragma: no cover - the recorded settings were valid, and so are these
        return [f"these flags are refused ({error})"]
    differ = sorted(key for key in set(target) | set(made) if target.get(key) != made.get(key))
    return [f"{key}: {json.dumps(target.get(key), sort_keys=True)}" for key in differ]
