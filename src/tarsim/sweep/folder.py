"""What a sweep's output folder already holds, checked and tidied under its lock before any run: it holds one sweep.

Ledgers of runs this plan does not have, or ledgers at this plan's run ids written with another header (another
[review], base seed, collection or qrels), are refused in one line, since writing into the folder would mix two
studies or silently replace the earlier one. The results tables are removed before runs start and rewritten from
every ledger when the sweep ends, so an interrupted sweep never leaves tables that do not describe its ledgers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tarsim.config.header_diff import describe_first, header_differences
from tarsim.data.ledger import iter_ledger_paths
from tarsim.data.paths import SWEEP_RESULT_TABLES
from tarsim.data.regular_files import open_regular
from tarsim.errors import ConfigError, InputError


def check_no_foreign_ledgers(ledgers: Path, planned: set[Path]) -> None:
    """Refuse an output folder holding ledgers that are not runs of this sweep (another configuration's): readers such
    as `tarsim plot` would count them beside this sweep's runs, while its results table does not."""
    if not ledgers.is_dir():
        return
    foreign = [path for path in iter_ledger_paths(ledgers) if path not in planned]
    if foreign:
        raise ConfigError(
            f"{ledgers.parent} already holds {len(foreign)} ledger(s) that are not runs of this sweep (e.g. "
            f"{foreign[0].relative_to(ledgers)}); choose another --out, or delete them"
        )


def _first_record(path: Path) -> dict | None:
    """A ledger's header record, or None when the file is absent or its first line is no JSON object (a damaged
    ledger, which the sweep counts as not finished and runs again)."""
    try:  # opened as a regular file only: a FIFO at a run's name must not block the sweep
        with open_regular(path) as handle:
            record = json.loads(handle.readline().decode("utf-8", errors="replace"))
    except (InputError, json.JSONDecodeError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def check_same_runs(out: Path, runs: Iterable[tuple[Path, dict]]) -> None:
    """Refuse, before any run, an output folder whose ledgers at this plan's run ids were written with another
    header (another [review], base seed, collection or qrels): running would replace that study without a word.
    A ledger with this header (complete, or cut short) is this sweep's: --resume keeps or reruns it."""
    differing: list[tuple[Path, list[tuple[str, Any, Any]]]] = []
    for path, header in runs:
        recorded = _first_record(path)
        if recorded is None:
            continue
        differences = header_differences(recorded, header)
        if differences:
            differing.append((path, differences))
    if not differing:
        return
    path, differences = differing[0]
    what = describe_first(differences, here="in this sweep")
    raise ConfigError(
        f"{out} already holds {len(differing)} ledger(s) of this sweep's runs written with another configuration "
        f"(e.g. {path.relative_to(out)}: {what}); choose another --out, or delete them"
    )


def remove_results_tables(out: Path) -> None:
    """Remove a folder's results tables before runs start: they are rewritten from every ledger when the sweep
    ends, and an interrupted sweep must not leave tables of an earlier, smaller set of ledgers."""
    for name in SWEEP_RESULT_TABLES:
        (Path(out) / name).unlink(missing_ok=True)
