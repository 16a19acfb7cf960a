"""A stopping study: every rule replayed on every finished review, measured against every target recall.

`expand_rules(specs, targets)` runs a target-aware rule (one declaring a parameter `target`) once per target
(`quant` -> `quant:target=0.8`, `quant:target=0.9`), each measured against its own target; every other rule, and
one whose spec sets its target itself, runs once and is measured against each target. `study_table(ledgers, ...)`
replays them (each ledger read once; its score log, curves and replay inputs shared by all its rules; ledgers
spread over processes with joblib) and returns the tidy table, one row per rule x target x review (x seed): the
measures of tarsim.stopping.measures. `summarise` and `paired_tests` aggregate it (tarsim.stopping.aggregate).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from tarsim.components import kind
from tarsim.components.spec import call_form, parse_spec
from tarsim.data.ledger import Ledger, read_ledger
from tarsim.data.score_log import logged_scores
from tarsim.errors import ConfigError
from tarsim.stopping.evaluate import DEFAULT_STOP_EFFORT_MODELS, evaluate_stopping
from tarsim.stopping.measures import COST_STRUCTURES, ReviewFacts, measure_stop
from tarsim.stopping.rules import missing_scores_message, needs_scores, parse_stopping_rule

IDENT_COLUMNS = (
    "ledger",
    "run_id",
    "collection",
    "topic",
    "policy",
    "seed",
    "prior_seed",
    "rule",
    "rule_given",
    "target",
)
"""The tidy table's identifying columns (a review is a ledger: one topic, policy and seed); prior_seed only when
some run records one."""


@dataclass(frozen=True)
class RuleRun:
    """A rule as replayed: its spec (a target-aware rule's with the target set), the spec as given, and the one
    target it is measured against (None: every target of the study)."""

    spec: str
    given: str
    target: float | None = None


def _target_format(target: float) -> str:
    return f"{target:g}"


def declares_target(spec: str) -> tuple[bool, bool]:
    """(whether the rule a spec names declares a parameter `target`, whether the spec sets it)."""
    if call_form(spec) is not None:
        return False, False
    parsed = parse_spec(spec)
    cls = kind("stopping").get(parsed.name.strip().lower()) or kind("stopping").get(parsed.name.strip())
    params = [param.name for param in getattr(cls, "params", ())]
    if "target" not in params:
        return False, False
    index = params.index("target")
    return True, "target" in parsed.named or len(parsed.positional) > index


def with_target(spec: str, target: float) -> str:
    """The spec with `target=T` added: `quant` -> `quant:target=0.9`; `quant:confidence=0.9` ->
    `quant:confidence=0.9,target=0.9`; positional values are written as named ones first."""
    parsed = parse_spec(spec)
    name = parsed.name.strip()
    named = dict(parsed.named)
    if parsed.positional:
        cls = kind("stopping").get(name.lower()) or kind("stopping").get(name)
        names = [param.name for param in getattr(cls, "params", ())]
        named = dict(zip(names, parsed.positional, strict=False))
    named["target"] = _target_format(target)
    return f"{name}:" + ",".join(f"{key}={value}" for key, value in named.items())


def expand_rules(specs: Sequence[str], targets: Sequence[float]) -> list[RuleRun]:
    """Each spec checked (ConfigError names the bad one) and, if target-aware without a target, one per target."""
    runs: list[RuleRun] = []
    for spec in specs:
        parse_stopping_rule(spec)
        aware, given = declares_target(spec)
        if aware and not given:
            for target in targets:
                expanded = with_target(spec, target)
                parse_stopping_rule(expanded)
                runs.append(RuleRun(expanded, spec, float(target)))
        else:
            runs.append(RuleRun(spec, spec))
    seen: set[str] = set()
    unique = []
    for run in runs:
        if run.spec not in seen:
            seen.add(run.spec)
            unique.append(run)
    return unique


def check_targets(targets: Sequence[float]) -> tuple[float, ...]:
    """Target recalls in (0, 1], in the order given, each once."""
    out: list[float] = []
    for target in targets:
        if not 0.0 < float(target) <= 1.0:
            raise ConfigError(f"target recall must be in (0, 1], got {target}")
        if float(target) not in out:
            out.append(float(target))
    if not out:
        raise ConfigError("no target recall: give one or more, e.g. --target-recall 0.9")
    return tuple(out)


def check_scores(ledgers: Sequence[Ledger], rules: Sequence[RuleRun]) -> None:
    """Refuse, before any replay, a rule that reads the learner's scores on a review that logged none (one line
    naming the fix)."""
    reading = [run.spec for run in rules if needs_scores(parse_stopping_rule(run.spec))]
    if not reading:
        return
    for ledger in ledgers:
        logged = ledger.score_log is not None or (ledger.header.get("config") or {}).get("log_scores")
        if not logged:
            raise ConfigError(missing_scores_message(reading[0], ledger))


def _ident(ledger: Ledger) -> dict:
    sweep = ledger.header.get("sweep") or {}
    config = ledger.header.get("config") or {}
    return {
        "ledger": ledger.source,
        "run_id": sweep.get("run_id"),
        "collection": sweep.get("collection"),
        "topic": ledger.topic,
        "policy": sweep.get("policy", config.get("policy")),
        "seed": sweep.get("seed", ledger.header.get("seed")),
        "prior_seed": sweep.get("prior_seed", config.get("prior_seed")),  # as compare's pair_key reads it
    }


def review_rows(
    ledger: Ledger | str | os.PathLike,
    rules: Sequence[RuleRun],
    targets: Sequence[float],
    inputs: Mapping | None = None,
    effort_models: Sequence[str] = DEFAULT_STOP_EFFORT_MODELS,
    structures: Sequence[Sequence[float]] = COST_STRUCTURES,
) -> list[dict]:
    """The tidy rows of one review: each rule replayed once (evaluate_stopping) and measured against its target(s).
    The ledger is read once and its score log loaded once for all rules (and for two-phase costs)."""
    if not isinstance(ledger, Ledger):
        ledger = read_ledger(ledger)
    if ledger.score_log is None and (ledger.header.get("config") or {}).get("log_scores"):
        ledger = dataclasses.replace(ledger, score_log=logged_scores(ledger))
    inputs = dict(inputs or {})
    models = tuple(dict.fromkeys(["judge", *effort_models]))
    facts = ReviewFacts(ledger, models, inputs.get("docids"), inputs.get("qrels"))
    ident = _ident(ledger)
    cache: dict = {}
    rows: list[dict] = []
    for run in rules:
        rule = parse_stopping_rule(run.spec)
        outcome = evaluate_stopping(ledger, rule, effort_models=models, target_recall=targets[0], **inputs)
        sampled = list(outcome.sample_unseen)  # a sample's documents the review had not presented (evaluate_stopping)
        for target in [run.target] if run.target is not None else targets:
            row = measure_stop(facts, outcome, target, structures, sampled, cache)
            row.update(ident, rule=run.spec, rule_given=run.given, target=target)
            row["sample_size"] = outcome.sample_size
            row["sample_cost"] = outcome.sample_cost
            rows.append(row)
    return rows


def _chunk_rows(chunk: Sequence, rules, targets, effort_models, structures) -> list[dict]:
    rows: list[dict] = []
    for ledger, inputs in chunk:
        rows.extend(review_rows(ledger, rules, targets, inputs, effort_models, structures))
    return rows


def study_table(
    ledgers: Sequence[Ledger | str | os.PathLike],
    specs: Sequence[str],
    targets: Sequence[float],
    replay: Callable[[Ledger], Mapping] | None = None,
    effort_models: Sequence[str] = DEFAULT_STOP_EFFORT_MODELS,
    structures: Sequence[Sequence[float]] = COST_STRUCTURES,
    jobs: int = 1,
    inputs_of: Callable[[str | os.PathLike], Mapping] | None = None,
) -> pd.DataFrame:
    """The tidy table of a study: `specs` expanded (expand_rules) and replayed on every ledger (Ledger objects, or
    paths read by the workers), measured against every target. `replay(ledger)` gives a Ledger's replay inputs
    (tarsim.stopping.replay_inputs); `inputs_of(path)` those of a path. `jobs` processes share the ledgers."""
    targets = check_targets(targets)
    rules = expand_rules(specs, targets)
    loaded = [ledger for ledger in ledgers if isinstance(ledger, Ledger)]
    check_scores(loaded, rules)
    tasks = []
    for ledger in ledgers:
        if isinstance(ledger, Ledger):
            inputs = replay(ledger) if replay is not None else {}
        else:
            inputs = inputs_of(ledger) if inputs_of is not None else {}
        tasks.append((ledger, inputs))
    jobs = max(1, min(int(jobs), len(tasks)))
    if jobs == 1:
        rows = _chunk_rows(tasks, rules, targets, effort_models, structures)
    else:
        from joblib import delayed

        from tarsim.runtime.pools import local_parallel

        size = max(1, -(-len(tasks) // (jobs * 4)))
        chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
        parts = local_parallel(jobs)(
            delayed(_chunk_rows)(chunk, rules, targets, effort_models, structures) for chunk in chunks
        )
        rows = [row for part in parts for row in part]
    return tidy_frame(rows)


def tidy_frame(rows: Sequence[dict]) -> pd.DataFrame:
    """Rows as a frame with the identifying columns first."""
    frame = pd.DataFrame(list(rows))
    if frame.empty:
        return pd.DataFrame(columns=list(IDENT_COLUMNS))
    if "prior_seed" in frame and frame["prior_seed"].isna().all():  # no run drew its priors with a seed of its own
        frame = frame.drop(columns=["prior_seed"])
    first = [column for column in IDENT_COLUMNS if column in frame]
    return frame[first + [column for column in frame.columns if column not in first]]
