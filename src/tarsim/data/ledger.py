"""Reading the append-only JSONL ledger of a simulated review: the single source of truth of every metric.

Line 1 is a header (tarsim version, full configuration, seed, input digests, R, collection size); then,
in order, `round` records (batch size and training set of each training round) and one `judgment` record per
presented item (sequence number, simulated time, reviewer, round, docid, sentence index or null, the
reviewer's label, the qrels label, effort increments); the last line is an `end` record. Ledgers are written
by tarsim.simulator.ledger.LedgerWriter to a hidden partial file of its own (`.NAME.jsonl.PID.RANDOM.partial`) and
renamed into place when the review ends, so a ledger file that exists is complete. Readers take every `*.jsonl`
file of a ledgers folder (hidden names included); only tarsim's own partial and temporary files are skipped.

The end record carries `body_sha256`, the SHA-256 of every line between the header and the end record (each line's
UTF-8 bytes and its newline, as written), so a reader refuses a ledger whose judgment or round lines were edited
after it was written; a ledger whose end record has no digest (written before it was added) is read unverified.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import orjson

from tarsim.data.lines import PathLike, check_not_wide
from tarsim.data.regular_files import open_regular
from tarsim.errors import InputError

LEDGER_FORMAT = 1
EFFORT_KEYS = ("judge", "sent", "words", "seconds")
BODY_DIGEST = "body_sha256"
HEADER_DIGEST = "header_sha256"  # the header line's SHA-256: an edited `relevant` would change every table
"""The end record's field holding the SHA-256 (hex) of the ledger's body: every line between header and end."""


class BodyDigest:
    """The running SHA-256 of a ledger's body lines, each hashed as its UTF-8 bytes and a newline (what the writer
    puts in the file), so writer and reader compute the same digest from the same lines."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()

    def add(self, line: str) -> None:
        """Hash one body line (without its newline)."""
        self._hash.update(line.encode("utf-8"))
        self._hash.update(b"\n")

    def add_text(self, text: str) -> None:
        """Hash several body lines at once: `text` is the lines joined and ended by newlines."""
        self._hash.update(text.encode("utf-8"))

    def hexdigest(self) -> str:
        return self._hash.hexdigest()


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def encode(record: dict) -> str:
    """One canonical JSON line (sorted keys, no spaces): equal records give equal bytes."""
    return _ENCODER.encode(record)


_SORTED = orjson.OPT_SORT_KEYS
_SAME_FLOATS = (1e-4, 1e15)
"""Floats orjson writes exactly as json does (tests/policies/test_judgment_cost.py): 0 and magnitudes in
[1e-4, 1e15)."""


def encode_judgment(record: dict) -> str:
    """`encode` of a judgment record made by the simulator (floats only in `time` and `effort.seconds`), about
    five times faster: orjson writes the same bytes as json for such records; any other value goes through json."""
    low, high = _SAME_FLOATS
    time, seconds = record["time"], record["effort"]["seconds"]
    if (time == 0 or low <= time < high) and (seconds == 0 or low <= seconds < high):
        try:
            return orjson.dumps(record, option=_SORTED).decode()
        except TypeError:  # orjson.JSONEncodeError: a value json may still write (an int past 64 bits) or refuse
            pass
    return _ENCODER.encode(record)


PARTIAL_FILE = re.compile(r"\.(?P<ledger>.+\.jsonl)(\.[0-9]+\.[A-Za-z0-9_]+)?\.partial")
"""Names of unfinished ledgers: `.NAME.jsonl.PID.RANDOM.partial` (and the older `.NAME.jsonl.partial`)."""
TEMPORARY_FILE = re.compile(r"\..+\.[A-Za-z0-9_]+\.tmp")
"""Names of tarsim.data.atomic.atomic_write's temporary files: `.NAME.RANDOM.tmp`."""


def partial_path(path: Path) -> Path:
    """A new, unique file beside `path` where its unfinished ledger is written (pid and random suffix, so two
    processes never write the same partial file)."""
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".partial", dir=path.parent)
    os.close(fd)
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(name, 0o666 & ~mask)  # mkstemp creates 0600; the ledger gets the permissions open() would give
    return Path(name)


def is_temporary(name: str) -> bool:
    """Whether a file name is one of tarsim's own partial ledgers or temporary files (never a ledger)."""
    return PARTIAL_FILE.fullmatch(name) is not None or TEMPORARY_FILE.fullmatch(name) is not None


def remove_partial_files(directory: PathLike) -> list[Path]:
    """Delete the partial ledgers left in `directory` by killed runs (call only while holding its output lock)."""
    removed = []
    folder = Path(directory)
    for path in sorted(folder.iterdir()) if folder.is_dir() else []:
        if PARTIAL_FILE.fullmatch(path.name) and path.is_file():
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


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
    score_log: object | None = field(default=None, compare=False, repr=False)  # a ScoreLog kept in memory

    def __post_init__(self) -> None:
        if self.prior is None:
            object.__setattr__(self, "prior", np.zeros(len(self.docids), dtype=bool))

    @property
    def topic(self) -> str:
        return self.header["topic"]

    @property
    def effort_columns(self) -> dict[str, np.ndarray]:
        """What an effort model prices: the judgments' effort columns and their clock time (the `clock` model's)."""
        return {**self.effort, "time": self.time}

    @property
    def relevant(self) -> int:
        """R: relevant documents of the topic in the collection (from the qrels, recorded in the header)."""
        return int(self.header["relevant"])

    @property
    def collection_size(self) -> int:
        return int(self.header["collection_size"])

    @property
    def from_sweep(self) -> bool:
        """Whether a sweep wrote it (its header has the run's `sweep` record)."""
        return "sweep" in self.header

    @property
    def complete(self) -> bool:
        return self.end is not None

    @property
    def strategy(self) -> str:
        return self.header["config"]["strategy"]

    def __len__(self) -> int:
        return len(self.docids)


def _bad_judgment_line(judgments: list[dict], lines: list[int]) -> int | None:
    """The line of the first judgment whose fields the columns cannot take (each read alone, as the columns read
    them all at once: found only after a column failed, so the common path pays nothing for it)."""
    columns = [(key, np.int64) for key in ("seq", "label", "truth", "reviewer", "round")] + [("time", np.float64)]
    for record, number in zip(judgments, lines, strict=True):
        try:
            values = [(record["effort"][key], np.float64) for key in EFFORT_KEYS]
            values += [(record[key], dtype) for key, dtype in columns]
            values.append((-1 if record["sentence"] is None else record["sentence"], np.int64))
            for value, dtype in values:
                if np.ndim(value) != 0:  # a list where a number belongs
                    return number
                np.array([value], dtype=dtype)
        except (KeyError, TypeError, ValueError, OverflowError):
            return number
    return None


def _check_judgment_values(ledger: Ledger, lines: list[int], source: str) -> None:
    """Refuse judgment values no review writes, naming the first one's line: a label other than 0/1, a negative or
    non-finite effort or time, a negative reviewer or round, a sentence index below -1 (a document's judgment)."""
    checks = [
        ("label", ledger.label, (ledger.label != 0) & (ledger.label != 1), "0 or 1"),
        ("time", ledger.time, ~np.isfinite(ledger.time) | (ledger.time < 0), "a finite number >= 0"),
        ("reviewer", ledger.reviewer, ledger.reviewer < 0, "an integer >= 0"),
        ("round", ledger.round, ledger.round < 0, "an integer >= 0"),
        ("sentence", ledger.sentence, ledger.sentence < -1, "null or an integer >= 0"),
    ]
    for key, column in ledger.effort.items():
        checks.append((f"effort.{key}", column, ~np.isfinite(column) | (column < 0), "a finite number >= 0"))
    for name, column, bad, accepted in checks:
        if bad.any():
            first = int(np.argmax(bad))
            value = column[first].item()
            raise InputError(source, lines[first], f"judgment {name} is {value!r}; it must be {accepted}")


def _check_numbering(seq: list, lines: list[int], end: dict | None, end_line: int, source: str) -> None:
    """Refuse a ledger with a judgment line missing or repeated: the judgments' `seq` must be 1, 2, 3, ... in file
    order (the writer numbers them so), and the end record's `judgments`, when present, their number. The common
    path is one comparison of the column; the line at fault is looked for only once it failed."""
    try:
        column = np.array(seq)
    except (ValueError, OverflowError):  # lists of several lengths, an integer past 64 bits: found below
        column = None
    # numpy reads [true, 2, 3] as [1, 2, 3]: only the first seq can be a boolean that equals its number
    numbered = column is not None and column.ndim == 1 and column.dtype.kind == "i" and type(seq[0]) is int
    if seq and not (numbered and np.array_equal(column, np.arange(1, len(seq) + 1))):
        for expected, (value, number) in enumerate(zip(seq, lines, strict=True), start=1):
            if type(value) is not int:
                raise InputError(source, number, f"judgment seq is {value!r}; it must be the integer {expected}")
            if value != expected:
                raise InputError(
                    source,
                    number,
                    f"judgment seq is {value}, expected {expected} (a judgment line is missing or repeated)",
                )
    if end is not None and "judgments" in end:
        said = end["judgments"]
        if type(said) is not int:
            raise InputError(source, end_line, f"end record judgments is {said!r}; it must be the integer {len(seq)}")
        if said != len(seq):
            raise InputError(
                source, end_line, f"end record says judgments={said} but the ledger has {len(seq)} judgment records"
            )


def _check_body_digest(end: dict | None, end_line: int, body: BodyDigest, source: str) -> None:
    """Refuse a ledger whose body lines do not hash to the end record's `body_sha256` (they were edited or damaged
    after the review wrote them); an end record without the field (an older ledger) is not checked."""
    if end is None or BODY_DIGEST not in end:
        return
    said = end[BODY_DIGEST]
    if not isinstance(said, str) or re.fullmatch(r"[0-9a-f]{64}", said) is None:
        raise InputError(source, end_line, f"end record {BODY_DIGEST} is {said!r}; it must be 64 hex digits")
    if body.hexdigest() != said:
        raise InputError(
            source,
            end_line,
            "the judgment and round lines do not match the end record's digest (body_sha256): the ledger was "
            "edited or damaged after it was written",
        )


def parse_ledger(lines: Iterable[tuple[int, str]], source: str = "<memory>") -> Ledger:
    """Parse numbered ledger lines; every malformed line is reported with its number, and a body that does not match
    the end record's digest is refused (after every more specific check)."""
    body = BodyDigest()
    header_digest = BodyDigest()
    header: dict | None = None
    header_line = 1
    rounds: list[dict] = []
    end: dict | None = None
    end_line = 0
    judgments: list[dict] = []
    judgment_lines: list[int] = []
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
            header, header_line = record, number
            header_digest = BodyDigest()
            header_digest.add(line)
            continue
        if end is not None:
            raise InputError(source, number, "record after the end record")
        if kind == "end":
            end, end_line = record, number
            continue
        body.add(line)
        if kind == "judgment":
            if not isinstance(record.get("docid"), str):
                raise InputError(source, number, f"judgment docid must be a string, got {record.get('docid')!r}")
            judgments.append(record)
            judgment_lines.append(number)
        elif kind == "round":
            rounds.append(record)
        else:
            raise InputError(source, number, f"unknown record type {kind!r}")
    if header is None:
        raise InputError(source, None, "empty ledger")
    relevant = check_header(header, source, header_line)
    try:
        effort = {key: np.array([j["effort"][key] for j in judgments], dtype=np.float64) for key in EFFORT_KEYS}
        ledger = Ledger(
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
        _check_judgment_values(ledger, judgment_lines, source)
        _check_numbering([j["seq"] for j in judgments], judgment_lines, end, end_line, source)
        found = {docid for docid, grade in zip(ledger.docids, ledger.truth, strict=True) if grade > 0}
    except KeyError as exc:
        raise InputError(
            source, _bad_judgment_line(judgments, judgment_lines), f"judgment record lacks field {exc}"
        ) from None
    except (TypeError, ValueError, OverflowError) as exc:
        line = _bad_judgment_line(judgments, judgment_lines)
        raise InputError(source, line, f"malformed judgment record: {exc}") from None
    if len(found) > relevant:
        raise InputError(
            source, None, f"header says relevant={relevant} but {len(found)} judged documents are relevant"
        )
    _check_body_digest(end, end_line, body, source)
    _check_header_digest(end, end_line, header_digest, source)
    return ledger


def _check_header_digest(end: dict | None, end_line: int, digest: BodyDigest, source: str) -> None:
    """Refuse a ledger whose header line does not hash to the end record's `header_sha256` (an edited `relevant`,
    configuration or seed would change what every table and replay reports); older ledgers without it pass."""
    if end is None or HEADER_DIGEST not in end:
        return
    if end[HEADER_DIGEST] != digest.hexdigest():
        raise InputError(
            source,
            end_line,
            "the header line does not match the end record's digest (header_sha256): the ledger was edited or "
            "damaged after it was written",
        )


HEADER_FIELDS = {"topic": str, "config": dict, "relevant": int, "collection_size": int}
"""Header fields every reader relies on, with their JSON types."""


def check_header(header: dict, source: str, line: int = 1) -> int:
    """Refuse a header without the fields readers rely on (one line, never a KeyError); R, the relevant count."""
    for key, kind in HEADER_FIELDS.items():
        if key not in header:
            raise InputError(source, line, f"ledger header lacks {key!r}")
        value = header[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError(source, line, f"ledger header {key!r} must be a JSON {kind.__name__}, got {value!r}")
    for key in ("relevant", "collection_size"):
        if header[key] < 0:
            raise InputError(source, line, f"header says {key}={header[key]}; it must be >= 0")
    seeds = [("seed", header.get("seed", 0))]
    for key in ("inputs", "sweep"):
        if key in header and not isinstance(header[key], dict):
            raise InputError(source, line, f"ledger header {key!r} must be a JSON object, got {header[key]!r}")
    if "sweep" in header:
        seeds.append(("sweep.seed", header["sweep"].get("seed", 0)))
    for name, seed in seeds:
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise InputError(source, line, f"ledger header {name!r} must be an integer >= 0, got {seed!r}")
    return header["relevant"]


def ends_with_end_record(path: PathLike) -> bool:
    """Whether a ledger file's last line is its end record (a finished review), read from the end of the file:
    ledgers run to hundreds of MB, and a complete read would parse every judgment. A FIFO or device is refused
    (InputError), never read."""
    with open_regular(path) as handle:
        handle.seek(0, os.SEEK_END)
        handle.seek(max(0, handle.tell() - 65536))
        lines = [line for line in handle.read().splitlines() if line.strip()]
    try:
        return bool(lines) and json.loads(lines[-1]).get("type") == "end"
    except (ValueError, AttributeError):
        return False


def first_line(path: PathLike) -> str:
    """A ledger file's first line (its header), undecodable bytes replaced; InputError when the file is not a regular
    file (a FIFO would block, /dev/zero never end the line) or cannot be opened."""
    with open_regular(path) as handle:
        return handle.readline().decode("utf-8", errors="replace")


def ledger_file_lines(path: PathLike) -> Iterator[tuple[int, str]]:
    """(line number, line without its newline) of a ledger file, blank lines skipped, streaming: a regular file only
    (a FIFO would block, /dev/zero fill the memory: InputError, one line), gzip-compressed when named `.gz`."""
    source = os.fspath(path)
    seen = False
    with open_regular(path) as raw:
        handle = gzip.GzipFile(fileobj=raw) if source.endswith(".gz") else raw
        try:
            for number, data in enumerate(handle, start=1):
                if number == 1:
                    check_not_wide(source, data[:64])  # a ledger saved as UTF-16: named, not "undecodable bytes"
                try:
                    line = data.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    raise InputError(source, number, f"undecodable bytes (not UTF-8) at byte {exc.start}") from None
                if number == 1 and line.startswith("\ufeff"):
                    line = line[1:]
                if line.strip():
                    seen = True
                    yield number, line
        except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
            raise InputError(source, None, f"cannot read: {exc}") from None
    if not seen:
        raise InputError(source, None, "empty file")


def read_ledger(path: PathLike) -> Ledger:
    """Read a ledger file written by LedgerWriter."""
    return parse_ledger(ledger_file_lines(path), source=str(path))


def judgment_line(path: PathLike, index: int) -> int | None:
    """The line number of a ledger file's judgment record number `index` (0-based), for an error about it; None
    when the file has fewer judgments or cannot be read again."""
    try:
        count = 0
        for number, line in ledger_file_lines(path):
            if '"type":"judgment"' in line or json.loads(line).get("type") == "judgment":
                if count == index:
                    return number
                count += 1
    except (InputError, ValueError, AttributeError):
        return None
    return None


def ledger_from_lines(lines: list[str]) -> Ledger:
    """Parse a ledger held in memory (the same lines a file would hold)."""
    return parse_ledger(enumerate(lines, start=1))


def iter_ledger_paths(directory: PathLike) -> Iterator[Path]:
    """Every ledger file of a ledgers folder, sorted by name: each `*.jsonl` file, hidden names included (a topic
    id may start with a dot); only tarsim's own partial and temporary files are skipped."""
    paths = (p for p in Path(directory).glob("*.jsonl") if not is_temporary(p.name) and not p.is_dir())
    yield from sorted(paths)
