"""Expanding a sweep into runs: collection x topic x preset x varied settings x policy x strategy x seed x prior seed,
each with its own derived seed (of collection, topic, policy, strategy and seed: runs that differ only in their
preset, varied settings or prior seed pair). A swept preset's own policy (no [sweep] policies: SweepConfig.seed_policy)
derives the seed as the default policy does, so that runs of presets with other policies pair too.

A run's seed is derived from the base seed and the run's identity through numpy's SeedSequence over a
SHA-256 of the identity, so it is the same in every process, on every machine and whatever the run order
(Python's hash() is salted per process and is never used).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tarsim.config.presets import check_query_seeding
from tarsim.config.run_seeds import derive_seed
from tarsim.data.dataset import Dataset
from tarsim.datasets import load_dataset
from tarsim.datasets.synthetic import demo_dataset
from tarsim.errors import ConfigError, InputError
from tarsim.simulator.review import prior_rows
from tarsim.simulator.run import check_topics, ledger_name, topic_grades
from tarsim.sweep.config import MAX_RUNS, SweepConfig
from tarsim.sweep.dimensions import run_id_parts


@dataclass(frozen=True)
class RunSpec:
    """The identity of one run of a sweep."""

    collection: str
    topic: str
    policy: str
    strategy: str
    seed: int  # the replicate's seed as written in the config (0..n-1 for a count)
    derived_seed: int  # the seed the simulation uses
    prior_seed: int | None = None  # sweep.prior_seeds: the priors' draw, used as given (None: not swept)
    preset: str | None = None  # sweep.presets: the run's preset (None: not swept)
    vary: tuple[tuple[str, Any], ...] = ()  # sweep.vary: the run's varied settings, (key, value) by key

    @property
    def run_id(self) -> str:
        """collection__topic[__preset][__key=value...]__policy__shown-trained__seedN[__priorS] (readable; the ledger
        file name escapes it)."""
        parts = [self.collection, self.topic, *([self.preset] if self.preset else []), *run_id_parts(self.vary)]
        parts.append(self.policy)
        parts += [self.strategy.replace("/", "-"), f"seed{self.seed}"]
        return "__".join(parts + ([] if self.prior_seed is None else [f"prior{self.prior_seed}"]))

    @property
    def ledger_file(self) -> str:
        """The run's ledger file name under OUT/ledgers (unsafe characters %-escaped)."""
        return ledger_name(self.run_id)


def load_collections(config: SweepConfig) -> dict[str, Dataset]:
    """Every collection of the sweep, loaded (and so checked) before any run starts."""
    datasets = {}
    for entry in config.collections:
        datasets[entry.name] = (
            demo_dataset() if entry.path is None else load_dataset(entry.path, unlabelled=entry.unlabelled)
        )
    return datasets


def _collection_error(config: SweepConfig, name: str, error: ConfigError) -> InputError:
    """`FILE:LINE: collections 'NAME': problem`: LINE is that of the [review] key the problem names (a setting the
    collection's preset refuses, `lambda`), else where the sweep file declares the collection (its topics)."""
    line = config.review_line(str(error))
    if line is None:
        line = next((entry.line for entry in config.collections if entry.name == name), None)
    return InputError(config.source, line, f"collections {name!r}: {error}")


def check_topic_priors(config: SweepConfig, name: str, dataset: Dataset, topic: str) -> None:
    """Refuse, before anything runs, priors a topic cannot give (counts above a class's size, rows out of range) and
    prior seeds where no random prior is drawn (a topic that starts from its query text)."""
    strategy, query = config.strategies[0], dataset.topics[topic]
    grades = None
    try:
        for preset, vary in config.variants():  # each preset and varied setting may draw other priors
            policy = config.policies_of(preset)[0]
            review = config.review_config(policy, strategy, 0, config.prior_seeds[0], query, name, preset, vary)
            if review.seeding.kind != "priors":
                continue
            if grades is None:
                position = {docid: i for i, docid in enumerate(dataset.collection.docids)}
                grades = topic_grades(dataset.qrels.get(topic, {}), position, len(position))
            prior_rows(review, topic, grades, dataset.unlabelled_rows)
    except ConfigError as exc:
        raise _collection_error(config, name, exc) from None


def expand_plan(config: SweepConfig, datasets: dict[str, Dataset]) -> tuple[list[RunSpec], dict[str, str]]:
    """All runs in a fixed order (collection, topic, preset, varied settings, policy, strategy, seed, prior seed), and
    the topics skipped (why)."""
    runs: list[RunSpec] = []
    skipped: dict[str, str] = {}
    for entry in config.collections:
        dataset = datasets[entry.name]
        try:
            seedings = [vary_value for _, vary in config.variants() for key, vary_value in vary if key == "seeding"]
            if "seeding" in config.review:
                seedings.append(config.review["seeding"])
            for seeding in seedings if entry.path is not None else ():  # asked for query seeding: needs query text
                check_query_seeding(entry.path, seeding)
            topics = check_topics(dataset, entry.topics)
        except ConfigError as exc:
            raise _collection_error(config, entry.name, exc) from None
        for topic in topics:
            judged = dataset.qrels.get(topic, {})
            if not any(grade > 0 and docid in dataset.collection for docid, grade in judged.items()):
                skipped[f"{entry.name}/{topic}"] = "no relevant document in the collection"
                continue
            variants = config.variants()
            per_topic = len(config.strategies) * len(config.seeds) * len(config.prior_seeds)
            per_topic *= sum(len(config.policies_of(preset)) for preset, _ in variants)
            if len(runs) + per_topic > MAX_RUNS:
                vary = " x sweep.vary" if config.vary else ""
                raise ConfigError(
                    f"{config.source}: the sweep plans more than {MAX_RUNS:,} runs (topics x sweep.presets{vary} x "
                    "sweep.policies x sweep.strategies x sweep.seeds x sweep.prior_seeds); split it into several sweeps"
                )
            check_topic_priors(config, entry.name, dataset, topic)
            for preset, vary in variants:
                for policy in config.policies_of(preset):
                    seeded = config.seed_policy(preset, policy)  # a swept preset's own: the default's (they pair)
                    for strategy, seed in ((strategy, seed) for strategy in config.strategies for seed in config.seeds):
                        # the prior seed, the preset and the varied settings are not part of the run's identity: runs
                        # that differ only in them share every other random choice (they pair)
                        derived = derive_seed(config.base_seed, entry.name, topic, seeded, strategy, seed)
                        for prior in config.prior_seeds:
                            spec = RunSpec(entry.name, topic, policy, strategy, seed, derived, prior, preset, vary)
                            runs.append(spec)
    seen: dict[str, RunSpec] = {}
    for run in runs:
        if run.ledger_file in seen:
            raise ConfigError(
                f"{config.source}: runs {seen[run.ledger_file]} and {run} share the run id {run.run_id!r}; "
                'rename a collection (name = "...")'
            )
        seen[run.ledger_file] = run
    return runs, skipped


def planned_runs(config: SweepConfig, datasets: dict[str, Dataset]) -> tuple[list[RunSpec], dict[str, str]]:
    """expand_plan, refusing a plan of no run (every topic skipped): empty tables that look like a finished sweep
    help no one. What both the sweep and its --dry-run use, so that a dry run passes only what the sweep runs."""
    runs, skipped = expand_plan(config, datasets)
    if not runs:
        reasons = "; ".join(f"{topic}: {reason}" for topic, reason in skipped.items())
        raise ConfigError(f"{config.source}: the sweep plans no run" + (f" (skipped {reasons})" if reasons else ""))
    return runs, skipped
