"""The sweep configuration file (TOML): parsed with tomllib and validated completely before any run starts.

Every error names the file, the line of the offending key when it can be found, the key, and the accepted
values; a misspelt key gets the closest accepted one suggested (difflib).
"""

from __future__ import annotations

import difflib
import glob
import math
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tarsim.components import kind, validate
from tarsim.config.presets import default_preset
from tarsim.config.review import MAX_SEED, STRATEGIES, ReviewConfig, strategy_config
from tarsim.data.lines import check_not_wide
from tarsim.data.regular_files import existing_path_problem, open_regular
from tarsim.effort_models import DEFAULT_EFFORT_MODELS as ALL_EFFORT_MODELS
from tarsim.errors import ConfigError, InputError
from tarsim.features.matrices import FeatureSettings
from tarsim.interop.screening import UNLABELLED_CHOICES, is_screening_file
from tarsim.simulator.run import starting_config
from tarsim.sweep.dimensions import (
    Dimension,
    check_combinations,
    combinations,
    repeated_setting,
    swept_dimensions,
    vary_options,
)
from tarsim.sweep.presets import DEFAULT_POLICY, preset_options, run_policies, swept_presets
from tarsim.sweep.review_table import REVIEW_KEYS as REVIEW_KEYS  # [review]'s keys, imported from here too
from tarsim.sweep.review_table import in_sweep, named_key, review_options
from tarsim.sweep.stopping_keys import check_scores_logged, target_recalls
from tarsim.sweep.toml_keys import key_pattern, shown_key

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEMO = "demo"
"""The collection name that selects the built-in synthetic demo collection."""

TOP_KEYS = ("sweep", "collections", "review")
SWEEP_KEYS = (
    "out",
    "base_seed",
    "seeds",
    "prior_seeds",
    "policies",
    "presets",
    "vary",
    "strategies",
    "effort_models",
    "stopping",
    "recall_target",
    "target_recall",
)
COLLECTION_KEYS = ("path", "topics", "name", "unlabelled")
MAX_RUNS = 100_000
"""A sweep plans at most this many runs (and at most this many seeds): larger ones are refused, not attempted."""

IN_SWEEP = in_sweep(SWEEP_KEYS)
"""What a [review] key that belongs in [sweep] is told: the per-run settings a sweep varies, and [sweep]'s keys."""

DEFAULT_EFFORT_MODELS = tuple(model for model in ALL_EFFORT_MODELS if model != "clock")
"""A sweep's default effort models: tarsim's defaults but `clock`, which stopping-rule replay cannot price yet."""


@dataclass(frozen=True)
class CollectionEntry:
    """One collection of the sweep: its name (used in run ids), directory (None: the demo) and topics."""

    name: str
    path: Path | None
    topics: tuple[str, ...] | None  # None: every topic with qrels and a query
    unlabelled: str = "error"  # a screening file's unlabelled records: an error, or "skip" (left out)
    line: int | None = field(default=None, compare=False)  # where the sweep file declares it (for later errors)


@dataclass(frozen=True)
class SweepConfig:
    """A validated sweep: what varies (collections, topics, policies, strategies, seeds) and what is fixed."""

    source: Path
    collections: tuple[CollectionEntry, ...]
    policies: tuple[str, ...] = (DEFAULT_POLICY,)
    presets: tuple[str | None, ...] = (None,)  # (None,): not swept ([review] may name one preset)
    policies_given: bool = True  # [sweep] policies set; False: each swept preset keeps its own policy (policies_of)
    vary: tuple[Dimension, ...] = ()  # [sweep] vary: [review] settings swept as dimensions (by key)
    strategies: tuple[str, ...] = ("document/document",)
    seeds: tuple[int, ...] = (0,)
    prior_seeds: tuple[int | None, ...] = (None,)  # (None,): not swept (priors, if any, drawn with the run's seed)
    base_seed: int = 0
    effort_models: tuple[str, ...] = DEFAULT_EFFORT_MODELS
    stopping: tuple[str, ...] = ()
    recall_target: float = 0.8  # the first of target_recall: the results table's target_met
    target_recall: tuple[float, ...] = (0.8,)  # the stopping study's targets (OUT/stopping)
    review: Mapping[str, Any] = field(default_factory=dict)
    out: Path | None = None
    review_lines: Mapping[str, int] = field(default_factory=dict, compare=False)
    """[review] key (as the file names it) -> its line in the sweep file, for errors found once a collection is read
    (a key its preset refuses) to point at the key rather than at the collection."""

    def review_line(self, message: str) -> int | None:
        """The line of the [review] key a problem names first (`lambda is the bmi learner's ...`), else None."""
        key = named_key(message, self.review_lines)
        return None if key is None else self.review_lines[key]

    def review_config(
        self,
        policy: str,
        strategy: str,
        seed: int,
        prior_seed: int | None = None,
        query: str | None = None,
        collection: str | None = None,
        preset: str | None = None,
        vary: Sequence[tuple[str, Any]] = (),
    ) -> ReviewConfig:
        """The ReviewConfig of one run (its derived seed and prior seed included) of the named collection; with
        the topic's `query` text, the configuration it starts with (a topic without query text starts from
        priors: starting_config)."""
        # no `stopping`: a sweep replays its rules on whole ledgers (in ReviewConfig they would stop the review)
        options = self.review_options(collection, preset, vary)
        try:
            config = strategy_config(strategy, policy=policy, seed=seed, prior_seed=prior_seed, **options)
        except ConfigError as exc:
            preset = self.default_preset_of(collection)
            if preset is None:
                raise
            raise ConfigError(
                f"{exc} (a screening file is reviewed with the preset {preset} when [review] names none; "
                'set preset = "bmi" in [review] for BMI\'s settings)'
            ) from None
        return config if query is None else starting_config(config, [query])

    def review_options(
        self, collection: str | None = None, preset: str | None = None, vary: Sequence[tuple[str, Any]] = ()
    ) -> Mapping[str, Any]:
        """[review] as it applies to the named collection: a screening file without a [review] preset takes the
        preset `tarsim simulate` gives it (presets.default_preset), so a sweep reviews it as simulate does; the
        preset's policy gives way to [sweep] policies, as an explicit preset's does. `preset`: a run of [sweep]
        presets, [review] applied over it. `vary`: a run's [sweep] vary values, ((key, value), ...), applied as
        [review]'s are (over any preset)."""
        review = {**self.review, **vary_options(self.vary, vary)} if vary else self.review
        preset = preset or self.default_preset_of(collection)
        return review if preset is None else preset_options(preset, review)

    def variants(self) -> list[tuple[str | None, tuple[tuple[str, Any], ...]]]:
        """Every (preset, varied values) of the sweep, in plan order: what, besides policy, strategy and seeds, makes
        runs of one topic differ ([(None, ())] when the sweep varies neither)."""
        return [(preset, vary) for preset in self.presets for vary in combinations(self.vary)]

    def policies_of(self, preset: str | None) -> tuple[str, ...]:
        """The policies a run of the swept `preset` is reviewed with: [sweep] policies when given (or when presets are
        not swept), else the preset's own policy alone, as `tarsim simulate --preset P` reviews with."""
        return run_policies(preset, self.policies, self.policies_given, self.review)

    def seed_policy(self, preset: str | None, policy: str) -> str:
        """The policy a run's derived seed names: the run's own, except that a swept preset's own policy (no [sweep]
        policies: policies_of) names DEFAULT_POLICY, so that runs of presets with other policies pair. The sweep file
        derived from ledgers (config.sweep_toml._own_policies) checks seeds against this rule."""
        return policy if preset is None or self.policies_given else DEFAULT_POLICY

    def report_effort_models(self) -> tuple[str, ...]:
        """The effort models of the sweep's HTML page: the sweep's (`[sweep] effort_models`) when some strategy shows
        sentences (their effort differs from judgments), else judgments only, as `tarsim report OUT --html` draws by
        default: a title/abstract screening study gets no sentence, lambda or seconds figures."""
        sentences = any(STRATEGIES[strategy][0] == "sentence" for strategy in self.strategies)
        return tuple(self.effort_models) if sentences else ("judge",)

    def default_preset_of(self, collection: str | None) -> str | None:
        """The preset a run of the named collection takes because [review] names none (a screening file's)."""
        entry = next((entry for entry in self.collections if entry.name == collection), None)
        if "preset" in self.review or entry is None or entry.path is None:
            return None
        return default_preset(entry.path)

    def feature_settings(
        self, collection: str | None = None, preset: str | None = None, vary: Sequence[tuple[str, Any]] = ()
    ) -> FeatureSettings:
        """The feature settings of the named collection's runs (of that swept preset and varied values)."""
        return self.review_options(collection, preset, vary).get("features", FeatureSettings())

    def extractor(
        self, collection: str | None = None, preset: str | None = None, vary: Sequence[tuple[str, Any]] = ()
    ) -> str:
        """The feature extractor spec of the named collection's runs (`bmi`, or e.g. a preset's `tfidf:...`)."""
        return self.review_options(collection, preset, vary).get("extractor", "bmi")


class _Locator:
    """Best-effort line numbers of keys in the TOML text, so that errors can point at a line."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def line(self, section: str | None, key: str | None = None, index: int = 0) -> int | None:
        start = 0
        if section is not None:
            header = re.compile(rf"^\s*\[\[?\s*{re.escape(section)}\s*\]\]?\s*(#.*)?$")
            hits = [n for n, line in enumerate(self.lines) if header.match(line)]
            if len(hits) > index:
                start = hits[index]
            elif "." in section:  # an inline table, `features = {min_df = 3}`: the line of its key
                parent, name = section.rsplit(".", 1)
                return self.line(parent, name, index)
            elif key is None:
                return None
        elif key is not None:  # a top-level key may be a table: [name], [[name]] or [name.sub]
            table = re.compile(rf"^\s*\[\[?\s*[\"']?{key_pattern(key)}[\"']?\s*[\].]")
            hit = next((n for n, line in enumerate(self.lines) if table.match(line)), None)
            if hit is not None:
                return hit + 1
        if key is None:
            return start + 1
        assignment = re.compile(rf"^\s*[\"']?{key_pattern(key)}[\"']?\s*=")
        for n in range(start, len(self.lines)):
            if n > start and section is not None and self.lines[n].lstrip().startswith("["):
                break
            if assignment.match(self.lines[n]):
                return n + 1
        return None


class _Checker:
    """Raises InputError(path, line, 'key: problem; accepted: ...') for the first problem found."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.where = _Locator(text)

    def fail(self, key: str, problem: str, section: str | None = None, name: str | None = None, index: int = 0):
        raise InputError(self.path, self.where.line(section, name, index), f"{key}: {problem}")

    def keys(
        self,
        table: Mapping,
        accepted: Sequence[str],
        prefix: str,
        section: str | None,
        index: int = 0,
        elsewhere: Mapping[str, str] | None = None,
    ) -> None:
        """Refuse unknown keys, suggesting the closest accepted one, or where the key belongs (`elsewhere`)."""
        for key in table:
            if key in (elsewhere or {}):
                self.fail(
                    f"{prefix}{shown_key(key)}", f"not a key of [{section}]; {elsewhere[key]}", section, key, index
                )
            if key not in accepted:
                close = difflib.get_close_matches(key, accepted, n=1, cutoff=0.6)
                hint = f"did you mean {close[0]!r}? " if close else ""
                self.fail(
                    f"{prefix}{shown_key(key)}",
                    f"unknown key; {hint}accepted keys: {', '.join(accepted)}",
                    section,
                    key,
                    index,
                )

    def typed(self, value: Any, types: tuple[type, ...], key: str, accepted: str, section: str | None, name: str):
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if not ok:
            self.fail(key, f"expected {accepted}, got {value!r}", section, name)
        return value

    def strings(self, value: Any, key: str, accepted: str, section: str | None, name: str) -> tuple[str, ...]:
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            self.fail(key, f"expected a non-empty list of strings ({accepted}), got {value!r}", section, name)
        if len(set(value)) != len(value):
            self.fail(key, f"duplicate entries in {value!r}", section, name)
        return tuple(value)

    def distinct_specs(self, specs: Sequence[str], component: str, key: str, name: str) -> None:
        """Refuse two spellings of one component (`mix:0.2` and `mix:share=0.2`): they would run twice."""
        problem = repeated_setting(specs, [kind(component).canonical(spec) for spec in specs])
        if problem is not None:
            self.fail(key, problem, "sweep", name)


MAX_CONFIG_BYTES = 16 * 2**20
CR_ONLY = "a carriage return (\\r) without \\n after it; save the file with \\n (or \\r\\n) line ends"


def load_sweep_config(path: str | Path) -> SweepConfig:
    """Read and validate a sweep configuration file."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise InputError(path, None, "sweep configuration file does not exist")
    try:  # a regular file only, and no larger than a configuration can be: a FIFO or /dev/zero is refused
        with open_regular(path) as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
        if len(raw) > MAX_CONFIG_BYTES:
            raise InputError(path, None, f"larger than {MAX_CONFIG_BYTES // 2**20} MiB: not a sweep configuration")
        check_not_wide(path, raw[:64])  # UTF-16 or UTF-32 named, as the other readers name it
        text = raw.decode("utf-8-sig")  # a UTF-8 byte order mark is no TOML
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, None, f"cannot read the sweep configuration: {exc}") from None
    return parse_sweep_config(text, path)


def parse_sweep_config(text: str, path: str | Path = "<sweep>") -> SweepConfig:
    """Parse and validate TOML text; relative collection paths are resolved against the file's directory."""
    path = Path(path)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = re.search(r"\(at line (\d+), column \d+\)", message)
        line = int(match.group(1)) if match else None
        lone = re.search(r"\r(?!\n)", text)  # TOML ends lines with \n or \r\n only
        if lone is not None:
            line = text.count("\n", 0, lone.start()) + 1
            raise InputError(path, line, f"CR-only (old Mac) line ends: {CR_ONLY}") from None
        raise InputError(path, line, f"invalid TOML: {re.sub(r' ?[(]at line.*[)]', '', message)}") from None
    check = _Checker(path, text)
    check.keys(document, TOP_KEYS, "", None)
    sweep = document.get("sweep", {})
    if not isinstance(sweep, dict):
        check.fail("sweep", "expected a table [sweep]", None, "sweep")
    check.keys(sweep, SWEEP_KEYS, "sweep.", "sweep")
    base = path.parent

    policies = check.strings(
        sweep.get("policies", [DEFAULT_POLICY]), "sweep.policies", kind("policy").accepted(), "sweep", "policies"
    )
    for policy in policies:
        try:
            validate("policy", policy)
        except ConfigError as exc:
            check.fail("sweep.policies", str(exc), "sweep", "policies")
    check.distinct_specs(policies, "policy", "sweep.policies", "policies")
    strategies = check.strings(
        sweep.get("strategies", ["document/document"]), "sweep.strategies", ", ".join(STRATEGIES), "sweep", "strategies"
    )
    for strategy in strategies:
        if strategy not in STRATEGIES:
            close = difflib.get_close_matches(strategy, list(STRATEGIES), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            check.fail(
                "sweep.strategies",
                f"unknown strategy {strategy!r}; {hint}accepted: {', '.join(STRATEGIES)}",
                "sweep",
                "strategies",
            )
    effort_models = check.strings(
        sweep.get("effort_models", list(DEFAULT_EFFORT_MODELS)),
        "sweep.effort_models",
        kind("effort").accepted(),
        "sweep",
        "effort_models",
    )
    for model in effort_models:
        try:
            validate("effort", model)
        except ConfigError as exc:
            check.fail("sweep.effort_models", str(exc), "sweep", "effort_models")
    stopping = _stopping_rules(check, sweep.get("stopping", []))
    target_recall = target_recalls(check, sweep)
    check_scores_logged(check, stopping, document.get("review", {}))
    base_seed = check.typed(
        sweep.get("base_seed", 0), (int,), "sweep.base_seed", "an integer >= 0", "sweep", "base_seed"
    )
    if base_seed < 0:
        check.fail("sweep.base_seed", f"expected an integer >= 0, got {base_seed}", "sweep", "base_seed")
    seeds = _seeds(check, sweep.get("seeds", 1))
    prior_seeds = _seeds(check, sweep["prior_seeds"], "prior_seeds") if "prior_seeds" in sweep else (None,)
    out = sweep.get("out")
    if out is not None:
        check.typed(out, (str,), "sweep.out", "a directory path", "sweep", "out")
        if not out.isprintable():  # as check_output_path refuses it for --out
            shown = next(f"U+{ord(c):04X}" for c in out if not c.isprintable())
            check.fail("sweep.out", f"holds {shown}, a control or line-separator character", "sweep", "out")
        out = base / out

    presets = swept_presets(check, sweep, document.get("review", {}))
    vary = swept_dimensions(check, sweep, document.get("review", {}))
    review = review_options(check, document.get("review", {}), SWEEP_KEYS)
    review_lines = _key_lines(check, document.get("review", {}), "review")
    policies_given = "policies" in sweep
    per_preset = {preset: run_policies(preset, policies, policies_given, review) for preset in presets}
    variants = math.prod(len(dimension.values) for dimension in vary)
    runs = variants * sum(map(len, per_preset.values())) * len(strategies)
    if runs > MAX_RUNS:  # refused before building each one's configuration
        raise InputError(
            path,
            None,
            f"sweep.presets x sweep.vary x sweep.policies x sweep.strategies plan more than {MAX_RUNS:,} runs per "
            "topic (the most a sweep may plan); split it into several sweeps",
        )
    # every per-run configuration must be valid before anything runs: a problem at the line of the key it names (a
    # combination: the first named), else [review]'s
    check_combinations(check, review, per_preset, vary, strategies, prior_seeds[0], review_lines)
    collections = _collections(check, document.get("collections"), base)
    return SweepConfig(
        source=path,
        collections=collections,
        policies=policies,
        presets=presets,
        policies_given=policies_given,
        vary=vary,
        strategies=strategies,
        seeds=seeds,
        prior_seeds=prior_seeds,
        base_seed=base_seed,
        effort_models=effort_models,
        stopping=stopping,
        recall_target=target_recall[0],
        target_recall=target_recall,
        review=review,
        out=out,
        review_lines=review_lines,
    )


def _key_lines(check: _Checker, table: Mapping, section: str) -> dict[str, int]:
    """Each key of a table -> its line in the file (a nested table, [review.features] or an inline one: its own
    line); keys whose line is not found are left out."""
    lines = {key: check.where.line(section, key) or check.where.line(f"{section}.{key}") for key in table}
    return {key: line for key, line in lines.items() if line is not None}


def _stopping_rules(check: _Checker, value: Any) -> tuple[str, ...]:
    if value == []:
        return ()
    rules = check.strings(value, "sweep.stopping", "stopping rule specifications", "sweep", "stopping")
    try:
        from tarsim.stopping import parse_stopping_rule
    except ImportError:
        check.fail("sweep.stopping", "stopping rules need tarsim.stopping, which is not installed", "sweep", "stopping")
    for rule in rules:
        try:
            parse_stopping_rule(rule)
        except ConfigError as exc:
            check.fail("sweep.stopping", str(exc), "sweep", "stopping")
    return rules


def _seeds(check: _Checker, value: Any, key: str = "seeds") -> tuple[int, ...]:
    """A count n (seeds 0..n-1) or an explicit list of distinct non-negative integers (seeds or prior_seeds)."""
    accepted = "a positive count or a list of distinct integers >= 0"
    limit = MAX_SEED if key == "prior_seeds" else float("inf")  # a prior seed is used as given (RandomState's range)
    if key == "prior_seeds":
        accepted = f"a positive count or a list of distinct integers in [0, {MAX_SEED}]"
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            check.fail(f"sweep.{key}", f"seed count must be >= 1, got {value}; accepted: {accepted}", "sweep", key)
        if value > MAX_RUNS:
            check.fail(
                f"sweep.{key}",
                f"seed count must be at most {MAX_RUNS:,} (the most runs a sweep may plan), got {value:,}",
                "sweep",
                key,
            )
        return tuple(range(value))
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= limit for v in value)
        and len(set(value)) == len(value)
    ):
        return tuple(value)
    return check.fail(f"sweep.{key}", f"expected {accepted}, got {value!r}", "sweep", key)


def _collections(check: _Checker, value: Any, base: Path) -> tuple[CollectionEntry, ...]:
    """[[collections]] tables (path, topics, name) or plain strings; a path may be a glob or `demo`."""
    if not isinstance(value, list) or not value:
        check.fail(
            "collections",
            f'expected at least one collection: [[collections]] with path = "DIR" (a directory, a glob, or {DEMO!r})',
            None,
        )
    entries: list[CollectionEntry] = []
    for index, item in enumerate(value):
        key = f"collections[{index}]"
        if isinstance(item, str):
            item = {"path": item}
        if not isinstance(item, dict):
            check.fail(
                key,
                f"expected a table with {', '.join(COLLECTION_KEYS)} or a path string, got {item!r}",
                "collections",
                None,
                index,
            )
        check.keys(item, COLLECTION_KEYS, f"{key}.", "collections", index)
        if "path" not in item:
            check.fail(f"{key}.path", f"required: a directory, a glob, or {DEMO!r}", "collections", None, index)
        if not isinstance(item["path"], str):
            check.fail(
                f"{key}.path",
                f"expected a string (a directory, a glob, or {DEMO!r}), got {item['path']!r}",
                "collections",
                "path",
                index,
            )
        topics = item.get("topics", "all")
        if isinstance(topics, str) and topics != "all":  # one topic id, as a single string stands for a list elsewhere
            topics = [topics]
        if topics == "all":
            topics = None
        elif isinstance(topics, list) and topics and all(isinstance(t, str) for t in topics):
            twice = next((topic for n, topic in enumerate(topics) if topic in topics[:n]), None)
            if twice is not None:  # as any other list of the file: a topic twice would be two runs of one id
                check.fail(
                    f"{key}.topics", f"topic {twice!r} is listed twice; list it once", "collections", "topics", index
                )
            topics = tuple(topics)
        else:
            check.fail(
                f"{key}.topics",
                f'expected "all" or a non-empty list of topic ids, got {topics!r}',
                "collections",
                "topics",
                index,
            )
        unlabelled = item.get("unlabelled", "error")
        if unlabelled not in UNLABELLED_CHOICES:
            check.fail(
                f"{key}.unlabelled",
                f"expected one of {', '.join(map(repr, UNLABELLED_CHOICES))}, got {unlabelled!r}",
                "collections",
                "unlabelled",
                index,
            )
        spec = item["path"]
        if spec == DEMO:
            paths: list[Path | None] = [None]
        elif glob.has_magic(spec):
            paths = [Path(p) for p in sorted(glob.glob(str(base / spec))) if _globbed_collection(Path(p))]
            if not paths:
                check.fail(
                    f"{key}.path",
                    f"no collection directory or screening file matches {spec!r} (relative to {base})",
                    "collections",
                    "path",
                    index,
                )
            if "name" in item:
                check.fail(
                    f"{key}.name",
                    "a glob path names its collections after their directories",
                    "collections",
                    "name",
                    index,
                )
        elif is_screening_file(base / spec):  # a CSV/TSV/XLSX/RIS screening file: one topic, named after its stem
            paths = [base / spec]
        else:
            directory = base / spec
            if not directory.is_dir():
                problem = existing_path_problem(directory, "folder")  # a loop, a FIFO, /dev/zero: named
                said = f"is {problem}" if problem else "does not exist"
                check.fail(
                    f"{key}.path",
                    f"collection {str(directory)!r} {said} (a collection directory or a screening file)",
                    "collections",
                    "path",
                    index,
                )
            paths = [directory]
        line = check.where.line("collections", "topics", index) if "topics" in item else None
        line = line or check.where.line("collections", None, index) or check.where.line(None, "collections")
        for directory in paths:
            name = item.get("name") or (DEMO if directory is None else _collection_name(directory))
            if not isinstance(name, str) or not name:
                check.fail(f"{key}.name", f"expected a non-empty string, got {name!r}", "collections", "name", index)
            entries.append(CollectionEntry(name, directory, topics, unlabelled, line))
    names = [entry.name for entry in entries]
    for name in names:
        if names.count(name) > 1:
            check.fail(
                "collections",
                f'collection name {name!r} is used twice; give one of them a distinct name (name = "...")',
                "collections",
            )
    return tuple(entries)


def _globbed_collection(path: Path) -> bool:
    """What a glob path takes: collection directories and screening files, but not .txt files (RIS or not, they are
    more often a collection's qrels or notes)."""
    return path.is_dir() or (is_screening_file(path) and path.suffix.lower() != ".txt")


def _collection_name(path: Path) -> str:
    """A collection's name in a sweep's tables: a directory's name, a screening file's stem."""
    return path.name if path.is_dir() else path.stem
