"""The sweep's stopping study: after its runs, every [sweep] stopping rule replayed on every complete ledger and
measured against every target recall (tarsim.stopping.study), written to OUT/stopping/: stop_table.csv (one row per
rule x target x run), stop_summary.csv (per rule and target: means with 95% intervals, reliability), stop_tests.csv
(paired Wilcoxon tests against the first rule, Holm-corrected) and the study's three figures. Nothing is simulated
again: the replay reads the ledgers (and their score logs) the runs wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from tarsim.data.atomic import atomic_write
from tarsim.sweep.dimensions import token

STUDY_FOLDER = "stopping"
STUDY_FILES = ("stop_table.csv", "stop_summary.csv", "stop_tests.csv")


@dataclass
class StoppingStudy:
    """The study's tables (also written under OUT/stopping)."""

    table: pd.DataFrame
    summary: pd.DataFrame
    tests: pd.DataFrame
    folder: Path
    group_by: tuple[str, ...] = ()  # the summary's group columns: a sweep's preset and varied settings ([sweep] vary)


def write_stopping_study(prepared, failed: dict[str, str] | Sequence[str] = (), jobs: int = 1) -> StoppingStudy | None:
    """Replay the sweep's stopping rules on its complete ledgers and write OUT/stopping (None: no rules)."""
    from tarsim.stopping.aggregate import paired_tests, summarise
    from tarsim.stopping.study import study_table

    config = prepared.config
    folder = Path(prepared.out) / STUDY_FOLDER
    for name in STUDY_FILES:  # never left beside ledgers they do not describe
        (folder / name).unlink(missing_ok=True)
    if not config.stopping:
        return None
    done = [t for t in prepared.tasks if t.spec.run_id not in failed and Path(t.ledger_path).exists()]
    inputs = {}
    for task in done:
        dataset = prepared.datasets[task.spec.collection]
        inputs[task.ledger_path] = {"docids": dataset.collection.docids, "qrels": dataset.qrels}
    table = study_table(
        [task.ledger_path for task in done],
        config.stopping,
        config.target_recall,
        effort_models=config.effort_models,
        jobs=jobs,
        inputs_of=inputs.__getitem__,
    )
    group_by = swept_columns(config) if config.vary else ()  # without vary, as before it existed (same bytes)
    if group_by and not table.empty:  # each run's preset and varied values, after its topic
        values = {task.ledger_path: run_values(task.spec) for task in done}
        at = list(table.columns).index("topic") + 1
        for offset, column in enumerate(group_by):
            table.insert(at + offset, column, [values[ledger][column] for ledger in table["ledger"]])
    summary = summarise(table, group_by=group_by)
    tests = paired_tests(table, config.stopping[0]) if len(config.stopping) > 1 and not table.empty else pd.DataFrame()
    folder.mkdir(parents=True, exist_ok=True)
    for name, frame in zip(STUDY_FILES, (table, summary, tests), strict=True):
        with atomic_write(folder / name) as handle:
            frame.to_csv(handle, index=False, lineterminator="\n")
    if not table.empty:
        from tarsim.reporting.stopping_plots import write_study_figures

        write_study_figures(table, summary, folder)
    return StoppingStudy(table, summary, tests, folder, group_by)


def swept_columns(config) -> tuple[str, ...]:
    """The columns of a sweep's preset (when [sweep] presets varies it) and of its varied settings, in run id order."""
    return (*(["preset"] if config.presets != (None,) else []), *(dimension.key for dimension in config.vary))


def run_values(spec) -> dict[str, str | None]:
    """A run's preset and varied values as its results table writes them."""
    return {"preset": spec.preset, **{key: token(value) for key, value in spec.vary}}
