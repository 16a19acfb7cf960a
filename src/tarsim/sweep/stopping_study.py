"""The sweep's stopping study: after its runs, every [sweep] stopping rule replayed on every complete ledger and
measured against every target recall (tarsim.stopping.study), written to OUT/stopping/: stop_table.csv (one row per
rule x target x run), stop_summary.csv (per swept preset, varied value, policy and strategy, rule and target: means
with 95% intervals, reliability), stop_tests.csv (paired Wilcoxon tests against the first rule that fired in some run,
runs paired within each swept group, Holm-corrected over all the groups' comparisons) and the study's three figures.
Nothing is simulated again: the replay reads the ledgers (and their score logs) the runs wrote.
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
    from tarsim.stopping.aggregate import default_baseline, paired_tests, summarise
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
    group_by = swept_columns(config)  # the summary splits by every swept dimension: no row pools two presets
    if group_by and not table.empty:  # each run's preset, varied values and strategy, after its topic
        values = {task.ledger_path: run_values(task.spec) for task in done}
        at = list(table.columns).index("topic") + 1
        for column in [column for column in group_by if column not in table.columns]:
            table.insert(at, column, [values[ledger][column] for ledger in table["ledger"]])
            at += 1
    summary = summarise(table, group_by=group_by)
    several = len(config.stopping) > 1 and not table.empty
    tests = paired_tests(table, default_baseline(table), group_by=group_by) if several else pd.DataFrame()
    folder.mkdir(parents=True, exist_ok=True)
    for name, frame in zip(STUDY_FILES, (table, summary, tests), strict=True):
        with atomic_write(folder / name) as handle:
            frame.to_csv(handle, index=False, lineterminator="\n")
    if not table.empty:
        from tarsim.reporting.stopping_plots import write_study_figures

        write_study_figures(table, summary, folder)
    return StoppingStudy(table, summary, tests, folder, group_by)


def swept_columns(config) -> tuple[str, ...]:
    """The columns of what a sweep varies, in run id order: its preset (when [sweep] presets varies it), its varied
    settings, and its policy and strategy when it lists several."""
    return (
        *(["preset"] if config.presets != (None,) else []),
        *(dimension.key for dimension in config.vary),
        *(["policy"] if len(config.policies) > 1 else []),
        *(["strategy"] if len(config.strategies) > 1 else []),
    )


def run_values(spec) -> dict[str, str | None]:
    """A run's preset, varied values, policy and strategy as its results table writes them."""
    varied = {key: token(value) for key, value in spec.vary}
    return {"preset": spec.preset, **varied, "policy": spec.policy, "strategy": spec.strategy}
