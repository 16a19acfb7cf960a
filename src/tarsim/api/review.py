"""The Python API: `tarsim.simulate(...)` mirrors `tarsim simulate` and returns a SimulationResult."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING

from tarsim.components import validate
from tarsim.config.review import ReviewConfig, normalise_config, strategy_units
from tarsim.data.dataset import Dataset
from tarsim.data.ledger import Ledger, iter_ledger_paths, read_ledger
from tarsim.data.lines import PathLike
from tarsim.data.output_lock import output_lock
from tarsim.data.paths import SWEEP_RESULT_TABLES
from tarsim.datasets import load_dataset
from tarsim.errors import ConfigError, InputError
from tarsim.features.cache import resolve_cache_dir
from tarsim.metrics.recall_effort import RecallCurve, check_recall_kind, recall_curve
from tarsim.policies import SeedingChoice
from tarsim.reporting.tables import (
    DEFAULT_EFFORT_MODELS,
    format_recall_table,
    recall_at_effort_frame,
    summary_frame,
    write_simulation_reports,
)
from tarsim.runtime.threads import thread_limit
from tarsim.simulator.run import review_topics

if TYPE_CHECKING:  # pandas and scikit-learn are imported where needed, not on `tarsim simulate`'s import path
    import pandas as pd
    from sklearn.base import BaseEstimator


@dataclass
class SimulationResult:
    """Ledgers of a simulated review (one per topic) and everything computed from them."""

    def __repr__(self) -> str:
        """One line (the dataclass's own repr would print every ledger's judgments)."""
        judged = sum(len(ledger) for ledger in self.ledgers.values())
        where = f", out={str(self.out)!r}" if self.out is not None else ""
        return f"SimulationResult(topics={sorted(self.ledgers)!r}, judgments={judged}{where})"

    ledgers: dict[str, Ledger]
    config: ReviewConfig | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    effort_models: tuple[str, ...] = DEFAULT_EFFORT_MODELS
    out: Path | None = None
    recall: str = "presented"
    """What counts toward recall in the tables (`presented` or `found`; the files in `out` were written so)."""
    earlier: dict[str, Ledger] = field(default_factory=dict)
    """Ledgers of other topics that an earlier run of the same configuration left in OUT/ledgers: the tables
    written to `out` cover them too (an output folder's tables describe all of its ledgers)."""

    def recall_at_effort(self, effort_models: Sequence[str] | None = None) -> pd.DataFrame:
        """Tidy Recall@E table: topic, strategy, effort_model, a, b, effort, recall."""
        return recall_at_effort_frame(self.ledgers.values(), effort_models or self.effort_models, self.recall)

    def curves(self, effort_model: str = "judge") -> dict[str, RecallCurve]:
        """The recall-effort curve of every topic under one effort model."""
        validate("effort", effort_model)
        return {topic: recall_curve(ledger, effort_model, recall=self.recall) for topic, ledger in self.ledgers.items()}

    def summary(self) -> pd.DataFrame:
        """Per topic: R, judgments, documents to reach 80/95/100% recall, WSS@95."""
        return summary_frame(self.ledgers.values(), self.recall)

    def to_frame(self) -> pd.DataFrame:
        """The Recall@E table as a pandas DataFrame (same as recall_at_effort())."""
        return self.recall_at_effort()

    def table(self) -> str:
        """Mean Recall@E over topics as text."""
        return format_recall_table(self.recall_at_effort())

    @classmethod
    def from_directory(cls, out: PathLike, effort_models: Sequence[str] = DEFAULT_EFFORT_MODELS) -> SimulationResult:
        """Re-open a `tarsim simulate` output from its complete ledgers alone (all of one configuration); every
        `*.jsonl` file of OUT/ledgers must be a complete ledger (hidden names included), or this is an error."""
        directory = Path(out) / "ledgers"
        if not directory.is_dir():
            raise InputError(directory, None, "no ledgers directory (is this a `tarsim simulate` output?)")
        if any((Path(out) / name).exists() for name in SWEEP_RESULT_TABLES):
            raise InputError(out, None, _sweep_output_problem(out))
        ledgers: dict[str, Ledger] = {}
        for ledger in map(read_ledger, iter_ledger_paths(directory)):
            if ledger.from_sweep:  # a run of a sweep (one whose tables are not written yet, or were removed)
                raise InputError(out, None, _sweep_output_problem(out))
            if not ledger.complete:
                raise InputError(ledger.source, None, "ledger has no end record (an unfinished review)")
            first = next(iter(ledgers.values()), None)
            config = normalise_config(ledger.header["config"])
            if first is not None and config != normalise_config(first.header["config"]):
                raise InputError(ledger.source, None, f"written with another configuration than {first.source}")
            if ledger.topic in ledgers:
                raise InputError(ledger.source, None, f"a second ledger of topic {ledger.topic!r}")
            ledgers[ledger.topic] = ledger
        return cls(ledgers=ledgers, effort_models=tuple(effort_models), out=Path(out))


def _sweep_output_problem(out: PathLike) -> str:
    """Why a sweep's output is no simulation's, and what reads it (its runs differ in seed, policy, collection...)."""
    return (
        "is a `tarsim sweep` output, not a `tarsim simulate` one: read its results.csv or results.parquet, or use "
        f"`tarsim report {out} --html report.html`, `tarsim compare {out}` or `tarsim stop {out} --rule SPEC`"
    )


def resolve_dataset(
    dataset: Dataset | PathLike | None = None,
    *,
    docs: PathLike | None = None,
    qrels: PathLike | None = None,
    topics: PathLike | None = None,
    unlabelled: str = "error",
) -> Dataset:
    """A Dataset object, a collection directory or screening file, explicit files, or (nothing given) the demo."""
    if isinstance(dataset, Dataset):
        return dataset
    if dataset is None and docs is None and qrels is None and topics is None:
        from tarsim.datasets.synthetic import demo_dataset  # only the demo needs it: not imported for a real collection

        return demo_dataset()
    return load_dataset(dataset, docs=docs, qrels=qrels, topics=topics, unlabelled=unlabelled)


def simulate(
    dataset: Dataset | PathLike | None = None,
    *,
    docs: PathLike | None = None,
    qrels: PathLike | None = None,
    topics: PathLike | None = None,
    topic: str | Sequence[str] | None = None,
    config: ReviewConfig | None = None,
    effort: Sequence[str] = DEFAULT_EFFORT_MODELS,
    out: PathLike | None = None,
    learner: BaseEstimator | str | None = None,
    resume: bool = False,
    progress: Callable[[str], None] | None = None,
    unlabelled: str = "error",
    cache_dir: PathLike | None = None,
    recall: str = "presented",
    threads: int | None = None,
    **settings,
) -> SimulationResult:
    """Simulate the review of each topic and return its ledgers and Recall@E tables.

    `dataset` is a Dataset, a collection directory, or None for the built-in demo (or give docs/qrels/topics
    files). Review settings are a ReviewConfig or its settings as keywords, by the CLI's names and values
    (feedback="sentence", seeding="random", seed_doc=[...], strategy="sentence/document", seed=3, ...).
    `learner` is a named learner (`tarsim list learner`) or any scikit-learn classifier.
    With `out`, ledgers and tables are written there as by the CLI; the tables cover every ledger in OUT/ledgers,
    other topics an earlier run of this configuration reviewed into it too (`SimulationResult.earlier`), and count
    recall as `recall` says (`presented`, or `found`: presented and labelled relevant). `unlabelled="skip"` leaves
    out the unlabelled records of a screening file (default: they are an error). Features are cached per user: in
    `cache_dir`, else $TARSIM_CACHE_DIR, else platformdirs' user cache dir (`tarsim cache info`). The review uses
    `threads` BLAS/OpenMP threads (default: $TARSIM_THREADS, else 1; tarsim.runtime.threads says why), the limit
    lifted when it returns.
    """
    check_tables(effort, recall)
    with thread_limit(threads):
        return _simulate(dataset, docs, qrels, topics, topic, config, effort, out, learner, resume, progress,
                         unlabelled, cache_dir, recall, settings)  # fmt: skip


def _simulate(dataset, docs, qrels, topics, topic, config, effort, out, learner, resume, progress, unlabelled,
              cache_dir, recall, settings) -> SimulationResult:  # fmt: skip
    """simulate(), inside its thread limit."""
    config, learner = review_config(dataset, config, learner, settings)
    wanted = [topic] if isinstance(topic, str) else topic
    cache = resolve_cache_dir(cache_dir) if cache_dir is not None else None  # a blank one or a file: refused now
    if out is None:
        data = resolve_dataset(dataset, docs=docs, qrels=qrels, topics=topics, unlabelled=unlabelled)
        batch = review_topics(
            data, config, wanted, None, learner=learner, resume=resume, progress=progress, cache_dir=cache
        )
        _check_reviewed(batch.ledgers, batch.skipped)
        return SimulationResult(batch.ledgers, batch.config, batch.skipped, tuple(effort), None, recall)
    with output_lock(out):  # taken before any work, held until the tables are written: one writer per output
        data = resolve_dataset(dataset, docs=docs, qrels=qrels, topics=topics, unlabelled=unlabelled)
        batch = review_topics(
            data, config, wanted, Path(out), learner=learner, resume=resume, progress=progress, cache_dir=cache
        )
        _check_reviewed(batch.ledgers, batch.skipped)
        earlier = _earlier_ledgers(Path(out), batch.ledgers.values())
        write_simulation_reports(Path(out), [*batch.ledgers.values(), *earlier.values()], effort, batch.skipped, recall)
    return SimulationResult(batch.ledgers, batch.config, batch.skipped, tuple(effort), Path(out), recall, earlier)


def check_tables(effort: Sequence[str], recall: str) -> None:
    """Refuse, before any work, effort models or a recall kind the tables of a review could not be made with."""
    for model in effort:
        validate("effort", model)
    check_recall_kind(recall)


def review_config(
    dataset: Dataset | PathLike | None,
    config: ReviewConfig | None,
    learner: BaseEstimator | str | None,
    settings: dict,
) -> tuple[ReviewConfig, BaseEstimator | None]:
    """The review's configuration from a ReviewConfig and/or CLI-named settings (a screening file's default preset
    applied), and the estimator object to fit, if one was given instead of a named learner."""
    settings = dict(settings)
    if isinstance(learner, str):  # a named learner is part of the configuration, recorded in every ledger
        settings["learner"], learner = learner, None
    from tarsim.config.presets import check_query_seeding, default_preset

    if "seeding" in settings:
        check_query_seeding(dataset, settings["seeding"])
    if config is None and "preset" not in settings and default_preset(dataset):  # a screening file: see presets
        settings["preset"] = default_preset(dataset)
    settings = review_settings(settings)
    return (replace(config, **settings) if config is not None else ReviewConfig(**settings)), learner


def _earlier_ledgers(out: Path, current: Iterable[Ledger]) -> dict[str, Ledger]:
    """The ledgers in OUT/ledgers of topics other than `current`'s, by topic (sorted by file name). Before any review,
    under the output lock still held, check_output_ledgers refused a folder holding ledgers of another
    configuration, learner or collection, two of one topic, or an unfinished one of another topic."""
    reviewed = {Path(ledger.source).name for ledger in current}  # this run's files, in the same folder
    others = (read_ledger(path) for path in iter_ledger_paths(Path(out) / "ledgers") if path.name not in reviewed)
    return {ledger.topic: ledger for ledger in others}


def _check_reviewed(ledgers: dict, skipped: dict[str, str]) -> None:
    """A run that reviewed no topic is an error, not empty tables written as if it had succeeded."""
    if not ledgers:
        reasons = "; ".join(f"topic {topic}: {reason}" for topic, reason in skipped.items())
        raise ConfigError("no topic was reviewed" + (f" ({reasons})" if reasons else ""))


def review_settings(settings: dict) -> dict:
    """ReviewConfig keyword arguments from settings named as on the CLI (`lambda`, `seed_doc`, `strategy`)."""
    from tarsim.config.presets import apply_preset

    values = dict(settings)
    if "lambda" in values:
        if "lambda_" in values:
            raise ConfigError("lambda and lambda_ are one setting: give one of them")
        values["lambda_"] = values.pop("lambda")
    if "strategy" in values:
        strategy = values.pop("strategy")
        units = dict(zip(("feedback", "train_on"), strategy_units(strategy), strict=True))
        for key, unit in units.items():
            if key in values and values[key] != unit:  # one would silently win over the other
                raise ConfigError(f"strategy {strategy!r} means {key}={unit!r}, but {key}={values[key]!r} is given too")
        values.update(units)
    if "seed_doc" in values:
        docids = tuple(values.pop("seed_doc"))
        values["seeding"] = SeedingChoice(values.get("seeding", "documents"), docids)
    if "preset" in values:
        values = apply_preset(values.pop("preset"), values)
    accepted = [f.name for f in fields(ReviewConfig)]
    for key in values:
        if key not in accepted:
            close = difflib.get_close_matches(key, accepted, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ConfigError(f"review setting {key!r} unknown; accepted: {', '.join(accepted)}{hint}")
    return values
