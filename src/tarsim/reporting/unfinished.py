"""Notices for reading an output folder that is not finished: a run still writing it, or a sweep that stopped
before writing its results table. Its ledgers are complete and are read; the notice says that the tables made from
them cover only the runs finished so far, which nothing else in compare's, plot's or stop's output would show."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from tarsim.data.ledger import Ledger
from tarsim.data.lines import PathLike
from tarsim.data.output_lock import LOCK_NAME, writer_of
from tarsim.data.paths import SWEEP_RESULT_TABLES

SWEEP_RESULTS = SWEEP_RESULT_TABLES[0]  # results.csv: written once every run of a sweep is done


def output_folder(path: Path) -> Path:
    """The output folder a given path belongs to: OUT for OUT or OUT/ledgers."""
    if path.name == "ledgers" and not (path / LOCK_NAME).exists():
        return path.parent
    return path


def unfinished_notices(paths: Iterable[PathLike], ledgers: Sequence[Ledger]) -> list[str]:
    """One line per given folder that another process is still writing, or that holds a sweep's ledgers but not
    the results table the sweep writes when it finishes (interrupted, or still running)."""
    notices = []
    for given in paths:
        if not Path(given).is_dir():
            continue
        folder = output_folder(Path(given))
        pid = writer_of(folder)
        if pid is not None:
            mine = pid == str(os.getpid())
            who = "a review this process is stepping" if mine else f"another tarsim process (pid {pid})"
            notices.append(
                f"{folder} is being written by {who}: only the {_count_within(ledgers, folder)} ledger(s) "
                "finished so far are read"
            )
        elif not (folder / SWEEP_RESULTS).exists() and _sweep_ledgers_in(folder, ledgers):
            notices.append(
                f"{folder} holds no {SWEEP_RESULTS}: the sweep that wrote it did not finish (rerun it with --resume "
                f"to complete it); only its {_count_within(ledgers, folder)} finished ledger(s) are read"
            )
    return notices


def _sweep_ledgers_in(folder: Path, ledgers: Sequence[Ledger]) -> bool:
    """Whether `folder` is laid out as a sweep's output: sweep ledgers in its own ledgers/ folder (not a folder of
    ledgers gathered by hand from elsewhere). Each distinct folder of sweep ledgers is resolved once."""
    parents = {Path(ledger.source).parent for ledger in ledgers if ledger.source and "sweep" in ledger.header}
    own = (folder / "ledgers").resolve()
    return any(parent.resolve() == own for parent in parents)


def _count_within(ledgers: Sequence[Ledger], folder: Path) -> int:
    """How many of the ledgers read lie under `folder` (for a notice: computed only when one is printed)."""
    root = folder.resolve()
    return sum(1 for ledger in ledgers if ledger.source and Path(ledger.source).resolve().is_relative_to(root))
