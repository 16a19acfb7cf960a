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

SWEEP_RESULTS = "results.csv"
"""What a sweep writes once every run is done (tarsim.sweep.tables), beside its ledgers folder."""


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
        inside = [ledger for ledger in ledgers if ledger.source and _within(Path(ledger.source), folder)]
        pid = writer_of(folder)
        if pid is not None:
            mine = pid == str(os.getpid())
            who = "a review this process is stepping" if mine else f"another tarsim process (pid {pid})"
            notices.append(
                f"{folder} is being written by {who}: only the {len(inside)} ledger(s) finished so far are read"
            )
        elif _sweep_ledgers_in(folder, inside) and not (folder / SWEEP_RESULTS).exists():
            notices.append(
                f"{folder} holds no {SWEEP_RESULTS}: the sweep that wrote it did not finish (rerun it with --resume "
                f"to complete it); only its {len(inside)} finished ledger(s) are read"
            )
    return notices


def _sweep_ledgers_in(folder: Path, ledgers: Sequence[Ledger]) -> bool:
    """Whether `folder` is laid out as a sweep's output: sweep ledgers in its own ledgers/ folder (not a folder of
    ledgers gathered by hand from elsewhere)."""
    own = (folder / "ledgers").resolve()
    return any("sweep" in ledger.header and Path(ledger.source).parent.resolve() == own for ledger in ledgers)


def _within(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True
