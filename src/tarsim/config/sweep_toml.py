"""The sweep file that reproduces a sweep's ledgers, derived from their headers (a sweep leaves no copy of its TOML
in its output folder, and its ledgers record no command line).

Each run's header records its place in the sweep (`sweep`: collection name, policy, strategy, seed, base seed,
swept preset or prior seed, the values of `vary`) and its resolved settings: [sweep] lists what varies,
[[collections]] the collections by name (paths as given, `demo`, or a placeholder), [review] the settings that differ
from what the run's preset (or the defaults) gives. What one [review] cannot say (runs whose other settings differ)
is named in `unexpressed`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from tarsim.components.schema import toml_keys
from tarsim.config.command_line import PRIOR_FLAGS, recorded_config
from tarsim.config.presets import SCREENING_FILE_PRESET, apply_preset
from tarsim.config.review import DEFAULT_POLICY, STRATEGIES, ReviewConfig
from tarsim.config.run_seeds import derive_seed
from tarsim.errors import ConfigError
from tarsim.policies import SeedingChoice

SWEPT_FIELDS = ("policy", "seed", "feedback", "train_on", "prior_seed", "stopping", "preset")
"""Run settings a sweep sets from [sweep] (or, stopping, replays on whole ledgers), never from [review]."""


@dataclass(frozen=True)
class SweepFile:
    """A sweep file's text and the recorded settings it cannot give (empty: it reproduces every run)."""

    text: str
    unexpressed: tuple[str, ...] = ()


def toml_value(value: Any) -> str:
    """A TOML value: strings as basic strings (JSON's escapes are TOML's), numbers, booleans, arrays, inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{key} = {toml_value(item)}" for key, item in value.items()) + "}"
    return "[" + ", ".join(toml_value(item) for item in value) + "]"


def _changed(value: Any, usual: Any) -> Any:
    """A nested setting's TOML value: the seeding's kind (a sweep takes no seed documents), else a table of the
    fields that differ."""
    if isinstance(value, SeedingChoice):
        return value.kind
    return {f.name: getattr(value, f.name) for f in fields(value) if getattr(value, f.name) != getattr(usual, f.name)}


def review_table(config: Mapping, strategy: str, screening: bool = False, swept_preset: str | None = None) -> dict:
    """[review] for one run: the TOML keys whose recorded value differs from what its preset (swept, named in
    [review], or a screening file's) and the defaults give, the settings [sweep] sets aside."""
    recorded = recorded_config(config)  # ConfigError: the caller names it
    preset = swept_preset or recorded.preset or (SCREENING_FILE_PRESET if screening else None)
    feedback, train_on = STRATEGIES[strategy]
    options = {k: v for k, v in apply_preset(preset, {}).items() if k != "policy"}
    base = ReviewConfig(**options, feedback=feedback, train_on=train_on, policy=recorded.policy, seed=recorded.seed)
    table: dict[str, Any] = {}
    if recorded.preset is not None and swept_preset is None:
        table["preset"] = recorded.preset
    for key, (name, declaration) in toml_keys(ReviewConfig).items():
        value, usual = getattr(recorded, name), getattr(base, name)
        if name in SWEPT_FIELDS or value == usual:
            continue
        if declaration.nested is not None:
            table[key] = _changed(value, usual if isinstance(usual, type(value)) else type(value)())
        else:
            table[key] = list(value) if isinstance(value, tuple) else value
    drawn = any(key in table for key in PRIOR_FLAGS)
    if recorded.seeding.kind == "priors" and (screening or drawn):  # priors are the seeding (a screening file's too)
        table.pop("seeding", None)
    return table


def _own_policies(headers: Sequence[Mapping], places: Sequence[Mapping]) -> bool:
    """Whether the runs are those of a sweep over presets without [sweep] policies: each run of a swept preset
    reviews with that preset's own policy, its seed derived as for the default policy (the sweep plans so, to pair
    the presets); the same policy named in [sweep] policies would derive other seeds."""
    default = DEFAULT_POLICY
    for header, place in zip(headers, places, strict=True):
        preset = place.get("preset")
        if preset is None or place.get("policy") != apply_preset(preset, {}).get("policy", default):
            return False
        identity = (place.get("collection", ""), header.get("topic", ""), default, place.get("strategy", ""))
        derived = derive_seed(int(place.get("base_seed", 0)), *identity, int(place.get("seed", 0)))
        if header.get("config", {}).get("seed") != derived:
            return False
    return bool(places)


def sweep_file(
    headers: Sequence[Mapping],
    paths: Mapping[str, str],
    screening: Mapping[str, bool],
    unlabelled: Mapping[str, str] | None = None,
) -> SweepFile:
    """The sweep file of runs given by their ledger headers (each with its `sweep` block); `paths`: collection name
    -> the path to write (`demo` for the demo); `screening`: collection name -> whether it is a screening file;
    `unlabelled`: collection name -> `skip` for a screening file with unlabelled records."""
    places = [header["sweep"] for header in headers]
    missing: list[str] = []

    def values(key: str) -> list:
        return list(dict.fromkeys(place[key] for place in places if key in place))

    sweep: dict[str, Any] = {"base_seed": values("base_seed")[0] if values("base_seed") else 0}
    if len(values("base_seed")) > 1:
        missing.append(f"base_seed: runs of several base seeds ({', '.join(map(str, values('base_seed')))})")
    sweep["seeds"] = sorted(values("seed"))
    if not _own_policies(headers, places):  # else left out: each swept preset reviews with its own policy
        sweep["policies"] = values("policy")
    sweep["strategies"] = values("strategy")
    if values("preset"):
        sweep["presets"] = values("preset")
    if values("prior_seed"):
        sweep["prior_seeds"] = sorted(values("prior_seed"))
    varied: dict[str, list] = {}  # [sweep] vary.KEY: the [review] settings the sweep varied, values in run order
    for place in places:
        for key, value in place.get("vary", {}).items():
            varied.setdefault(key, [])
            if value not in varied[key]:
                varied[key].append(value)
    sweep |= {f"vary.{key}": varied[key] for key in sorted(varied)}
    reviews: dict[str, list] = {}
    for header, place in zip(headers, places, strict=True):
        try:
            table = review_table(header["config"], place["strategy"], screening.get(place["collection"], False),
                                 place.get("preset"))  # fmt: skip
        except (ConfigError, KeyError) as error:  # KeyError: a sweep block without strategy
            return SweepFile("", (f"run {place.get('run_id', '?')}: {error}",))
        table = {key: value for key, value in table.items() if key not in place.get("vary", {})}  # set by [sweep]
        reviews.setdefault(json.dumps(table, sort_keys=True), []).append(place["run_id"])
    if len(reviews) > 1:
        shown = "; ".join(f"{text} ({runs[0]}...)" for text, runs in reviews.items())
        missing.append(f"review: the runs differ in settings one [review] table sets: {shown}")
    lines = ["[sweep]", *(f"{key} = {toml_value(value)}" for key, value in sweep.items())]
    topics: dict[str, list[str]] = {}
    for header, place in zip(headers, places, strict=True):
        topics.setdefault(place["collection"], [])
        if header["topic"] not in topics[place["collection"]]:
            topics[place["collection"]].append(header["topic"])
    for name, found in topics.items():
        lines += ["", "[[collections]]", f"name = {toml_value(name)}", f"path = {toml_value(paths.get(name, name))}"]
        lines.append(f"topics = {toml_value(sorted(found))}")
        if (unlabelled or {}).get(name, "error") != "error":
            lines.append(f"unlabelled = {toml_value((unlabelled or {})[name])}")
    review = json.loads(next(iter(reviews))) if reviews else {}
    if review:
        lines += ["", "[review]", *(f"{key} = {toml_value(value)}" for key, value in review.items())]
    return SweepFile("\n".join(lines) + "\n", tuple(missing))
