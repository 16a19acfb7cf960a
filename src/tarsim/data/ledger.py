"""Reading the append-only JSONL ledger of a simulated review: the single source of truth of every metric.

Line 1 is a header (tarsim version, full configuration, seed, input digests, R, collection size); then,
in order, `round` records (batch size and training set of each training round) and one `judgment` record per
presented item (sequence number, simulated time, reviewer, round, docid, sentence index or null, the
reviewer's label, the qrels label, effort increments); the last line is an `end` record. Ledgers are written
by tarsim.simulator.ledger.LedgerWriter to a hidden `.partial` file and renamed into place when the review
ends, so a ledger file that exists is complete.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tarsim.data.lines import PathLike, iter_lines
from tarsim.errors import InputError

LEDGER_FORMAT = 1
EFFORT_KEYS = ("judge", "sent", "words", "seconds")


def encode(record: dict) -> str:
    """One canonical JSON line (sorted keys, no spaces): equal records give equal bytes."""
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def partial_path(path: Path) -> Path:
    """Where an unfinished ledger is written."""
    return path.with_name(f".{path.name}.partial")


@dataclass(frozen=True)
class Ledger:
    """A parsed ledger: the header, round records, and judgments as columns (numpy arrays)."""

    header: dict
    rounds: list[dict]
    end: dict | None
    docids: list[str]
    sentence: np.ndarray  # int64, -1 where a whole document was shown
    label: np.ndarray  # the reviewer's label
    truth: np.ndarray  # the qrels grade of the document
    time: np.ndarray
    reviewer: np.ndarray
    round: np.ndarray
    effort: dict[str, np.ndarray]
    source: str = "<memory>"
    prior: np.ndarray | None = None  # bool, True on prior judgments (`"prior": true`); None is read as all False

    def __post_init__(self) -> None:
        if self.prior is None:
            object.__setattr__(self, "prior", np.zeros(len(self.docids), dtype=bool))

    @property
    def topic(self) -> str:
        return self.header["topic"]

    @property
    def relevant(self) -> int:
        """R: relevant documents of the topic in the collection (from the qrels, recorded in the header)."""
        return int(self.header["relevant"])

    @property
    def collection_size(self) -> int:
        return int(self.header["collection_size"])

    @property
    def complete(self) -> bool:
        return self.end is not None

    @property
    def strategy(self) -> str:
        return self.header["config"]["strategy"]

    def __len__(self) -> int:
        return len(self.docids)


def parse_ledger(lines: Iterable[tuple[int, str]], source: str = "<memory>") -> Ledger:
    """Parse numbered ledger lines; every malformed line is reported with its number."""
    header: dict | None = None
    rounds: list[dict] = []
    end: dict | None = None
    judgments: list[dict] = []
    for number, line in lines:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(source, number, f"invalid JSON in ledger: {exc.msg}") from None
        kind = record.get("type") if isinstance(record, dict) else None
        if header is None:
            if kind != "header":
                raise InputError(source, number, "a ledger must start with a header record")
            if record.get("format") != LEDGER_FORMAT:
                raise InputError(source, number, f"unsupported ledger format {record.get('format')!r}")
            header = record
        elif end is not None:
            raise InputError(source, number, "record after the end record")
        elif kind == "judgment":
            judgments.append(record)
        elif kind == "round":
            rounds.append(record)
        elif kind == "end":
            end = record
        else:
            raise InputError(source, number, f"unknown record type {kind!r}")
    if header is None:
        raise InputError(source, None, "empty ledger")
    try:
        effort = {key: np.array([j["effort"][key] for j in judgments], dtype=np.float64) for key in EFFORT_KEYS}
        return Ledger(
            header=header,
            rounds=rounds,
            end=end,
            docids=[j["docid"] for j in judgments],
            sentence=np.array([-1 if j["sentence"] is None else j["sentence"] for j in judgments], dtype=np.int64),
            label=np.array([j["label"] for j in judgments], dtype=np.int64),
            truth=np.array([j["truth"] for j in judgments], dtype=np.int64),
            time=np.array([j["time"] for j in judgments], dtype=np.float64),
            reviewer=np.array([j["reviewer"] for j in judgments], dtype=np.int64),
            round=np.array([j["round"] for j in judgments], dtype=np.int64),
            effort=effort,
            source=source,
            prior=np.array([j.get("prior", False) is True for j in judgments], dtype=bool),
        )
    except KeyError as exc:
        raise InputError(source, None, f"judgment record lacks field {exc}") from None
    except (TypeError, ValueError) as exc:
        raise InputError(source, None, f"malformed judgment record: {exc}") from None


def read_ledger(path: PathLike) -> Ledger:
    """Read a ledger file written by LedgerWriter."""
    return parse_ledger(iter_lines(path), source=str(path))


def ledger_from_lines(lines: list[str]) -> Ledger:
    """Parse a ledger held in memory (the same lines a file would hold)."""
    return parse_ledger(enumerate(lines, start=1))


def iter_ledger_paths(directory: PathLike) -> Iterator[Path]:
    """Complete ledgers in a directory, sorted by name (partial files are hidden and skipped)."""
    yield from sorted(p for p in Path(directory).glob("*.jsonl") if not p.name.startswith("."))
