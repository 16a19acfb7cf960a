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

from tarsim.data.ledger import iter_ledger_paths
from tarsim.data.paths import SWEEP_RESULT_TABLES
from tarsim.errors import ConfigError
from tarsim.simulator.config import normalise_header

UNCOMPARED = ("type", "format", "tarsim")
"""Header keys that do not make a ledger another run: its record type and format, and the tarsim version (a run of
the same configuration under a newer tarsim is the same run written again; --resume reruns it)."""

ABSENT = "<absent>"
"""A header key one of the two headers does not have."""

DERIVED = ("seed", "config.seed", "relevant", "collection_size")
"""Header keys that follow from others (base seed, collection, qrels): named after the key that caused them."""


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
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            record = json.loads(handle.readline())
    except (FileNotFoundError, json.JSONDecodeError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def _flat(record: dict, prefix: str = "") -> dict[str, Any]:
    """Nested dicts as dotted keys (config.until, sweep.base_seed)."""
    flat: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(value, dict) and value:
            flat.update(_flat(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def header_differences(recorded: dict, expected: dict) -> list[tuple[str, Any, Any]]:
    """(key, value in the ledger, value of this sweep's run) for every header key that differs, the tarsim version
    aside; keys derived from others last."""
    old, new = _comparable(recorded), _comparable(expected)
    keys = sorted(set(old) | set(new), key=lambda k: (k in DERIVED, k))
    return [(k, old.get(k, ABSENT), new.get(k, ABSENT)) for k in keys if old.get(k, ABSENT) != new.get(k, ABSENT)]


def _comparable(header: dict) -> dict[str, Any]:
    """A header as JSON would read it back (tuples as lists), normalised (fields older ledgers predate), flat."""
    kept = {key: value for key, value in header.items() if key not in UNCOMPARED}
    if isinstance(kept.get("config", {}), dict):  # else a damaged header: compared as it is
        kept = normalise_header(kept)
    return _flat(json.loads(json.dumps(kept)))


def _describe(key: str, old: Any, new: Any) -> str:
    return f"{key} is {_shown(old)} there, {_shown(new)} in this sweep"


def _shown(value: Any) -> str:
    return value if value is ABSENT else repr(value)


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
    what = _describe(*differences[0])
    if len(differences) > 1:
        what += "; also " + ", ".join(key for key, _, _ in differences[1:4]) + (", ..." if len(differences) > 4 else "")
    raise ConfigError(
        f"{out} already holds {len(differing)} ledger(s) of this sweep's runs written with another configuration "
        f"(e.g. {path.relative_to(out)}: {what}); choose another --out, or delete them"
    )


def remove_results_tables(out: Path) -> None:
    """Remove a folder's results tables before runs start: they are rewritten from every ledger when the sweep
    ends, and an interrupted sweep must not leave tables of an earlier, smaller set of ledgers."""
    for name in SWEEP_RESULT_TABLES:
        (Path(out) / name).unlink(missing_ok=True)
