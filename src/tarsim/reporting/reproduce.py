"""The commands that reproduce a study's reviews, per run group of the HTML report: a `tarsim simulate` command per
configuration (tarsim.config.command_line), derived from the ledger headers, which record no command line.

The collection a review read is known by its digest only: the built-in demo is recognised, a collection given to
`tarsim report --collection` is named by the path given, any other stands as COLLECTION with its digest. A sweep's
runs record their sweep (its derived seeds) and are reproduced by `tarsim sweep` (sweep_toml); reviews read from
another tool's output have no tarsim command.
"""

from __future__ import annotations

import functools
import json
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tarsim.config.command_line import simulate_command
from tarsim.config.review import normalise_config
from tarsim.config.sweep_toml import sweep_file
from tarsim.data.ledger import Ledger
from tarsim.errors import InputWarning
from tarsim.reporting.compare import is_foreign
from tarsim.stopping.replay_inputs import _demo_inputs

PLACEHOLDER = "COLLECTION"


@dataclass
class GroupCommands:
    """A run group's commands (shell lines) and notes (what a command cannot say, where the collection is)."""

    group: str
    lines: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Source:
    """The collection of a run as a command gives it: the path (None: the demo; PLACEHOLDER: unknown), whether it is
    a screening file, --unlabelled (skip: the file has unlabelled records, which the review left out), a note."""

    path: str | None
    screening: bool = False
    unlabelled: str = "error"
    note: str = ""


def _collection(ledger: Ledger, replay) -> Source:
    """The collection a ledger was reviewed on, as a command names it: the demo, a collection given to the report
    with the ledger's digests, else the placeholder (a screening file when its topic has no query text)."""
    from tarsim.interop.screening import is_screening_file

    digest = ledger.header.get("inputs", {}).get("collection")
    given = getattr(replay, "given", {}).get(digest, [])  # the collections given to the report with this digest
    chosen = next((c for c in given if c.judged_as(ledger)), given[0] if given else None)
    if chosen is not None:
        screening = is_screening_file(chosen.name)
        return Source(chosen.name, screening, "skip" if screening and _unlabelled(chosen.name) else "error")
    if _demo_inputs(ledger) is not None:
        return Source(None)
    blank = not str(ledger.header.get("query", "x")).strip()  # a screening file's topic has no query text
    note = (
        f"{PLACEHOLDER}: the collection these runs reviewed (digest {str(digest)[:16]}...); name it with "
        "`tarsim report --collection DIR|FILE` to have it spelt here"
    )
    return Source(PLACEHOLDER, blank, "error", note)


@functools.cache
def _unlabelled(path: str) -> bool:
    """Whether a screening file has records without a label (a review of it left them out: --unlabelled skip)."""
    from tarsim.interop.screening import read_screening_file

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)
        return bool(read_screening_file(path, unlabelled="skip").skipped)


def group_commands(groups: Mapping[str, Sequence[Ledger]], replay=None, out: str = "reproduced") -> list[GroupCommands]:
    """Per group, one `tarsim simulate` command per configuration and collection (every topic of it in one command,
    each into its own folder `out-N`), or why there is none."""
    made: list[GroupCommands] = []
    count = 0
    for name, ledgers in groups.items():
        entry = GroupCommands(name)
        made.append(entry)
        runs: dict[tuple, list[Ledger]] = {}
        for ledger in ledgers:
            if is_foreign(ledger):
                note = "reviews read from another tool's output: no tarsim command reproduces them"
                entry.notes += [note] if note not in entry.notes else []
            elif "sweep" in ledger.header:
                note = "runs of a sweep: reproduced by the sweep command below"
                entry.notes += [note] if note not in entry.notes else []
            else:
                config = json.dumps(normalise_config(ledger.header.get("config", {})), sort_keys=True)
                key = (config, ledger.header.get("inputs", {}).get("collection"))
                runs.setdefault(key, []).append(ledger)
        for (config, _), members in runs.items():
            count += 1
            source = _collection(members[0], replay)
            collection, where = source.path, source.note
            topics = sorted(dict.fromkeys(ledger.topic for ledger in members))
            command = simulate_command(
                json.loads(config), topics, collection=collection, screening=source.screening,
                unlabelled=source.unlabelled, out=f"{out}-{count}",
            )  # fmt: skip
            if not command.argv:
                entry.notes.append(f"no command for the run of {members[0].source}: {command.unexpressed[0]}")
                continue
            if command.unexpressed:
                dataset = "None" if collection is None else repr(collection)  # None: the demo
                entry.notes.append(
                    f"settings with no flag: {'; '.join(command.unexpressed)}; use the Python API: "
                    f"tarsim.simulate({dataset}, topic={topics!r}, config=ReviewConfig.from_dict(header['config']), "
                    f"out='{out}-{count}') with the header of {members[0].source} "
                    "(from tarsim.config.review import ReviewConfig)"
                )
                continue
            entry.lines.append(command.text())
            entry.notes += [where] if where and where not in entry.notes else []
    return made


@dataclass
class SweepCommand:
    """A sweep file that reproduces the sweep runs among the ledgers, the command that runs it, and notes."""

    toml: str
    command: str
    notes: list[str]


def sweep_command(ledgers: Sequence[Ledger], replay=None, out: str = "reproduced-sweep") -> SweepCommand | None:
    """The sweep file derived from the sweep runs' headers (None: no sweep run), collections named as in
    group_commands (the demo as `demo`)."""
    runs = [ledger for ledger in ledgers if "sweep" in ledger.header and not is_foreign(ledger)]
    if not runs:
        return None
    paths: dict[str, str] = {}
    screening: dict[str, bool] = {}
    unlabelled: dict[str, str] = {}
    notes: list[str] = []
    for ledger in runs:
        name = str(ledger.header["sweep"].get("collection"))
        if name in paths:
            continue
        source = _collection(ledger, replay)
        path, screening[name], unlabelled[name], where = source.path, source.screening, source.unlabelled, source.note
        if path is None:
            paths[name] = "demo"
        elif path == PLACEHOLDER:
            paths[name] = f"{PLACEHOLDER}-{name}"
        else:  # a sweep file's paths are relative to the file: the path given to the report, made absolute
            paths[name] = os.path.abspath(path)
        if where:
            notes.append(where.replace(PLACEHOLDER, f"{PLACEHOLDER}-{name}", 1))
    made = sweep_file([ledger.header for ledger in runs], paths, screening, unlabelled)
    if not made.text:
        return SweepCommand("", "", [f"no sweep file: {made.unexpressed[0]}"])
    if made.unexpressed:
        notes.append(f"settings one sweep file cannot give: {'; '.join(made.unexpressed)}")
    notes.append(
        "effort_models and stopping do not change the ledgers (they are measured on them) and are not recorded: add "
        "them to [sweep] for the same results tables"
    )
    return SweepCommand(made.text, f"tarsim sweep study.toml --out {out}", notes)
