"""Reading the published files of the benchmarks: CSV with required columns, JSON lines with required keys.

Errors name the file, the line (for CSV, the line where the record starts) and the problem.
"""

from __future__ import annotations

import csv
import io
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from tarsim.data.lines import PathLike, iter_lines, open_binary, parse_json_object
from tarsim.errors import InputError

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def require_file(path: PathLike) -> Path:
    """The path if it is an existing file, else an InputError naming it."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "no such file (see docs/legal.md for the expected layout)")
    return path


def iter_csv(path: PathLike, columns: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (line of the record's start, row) for a UTF-8 CSV whose header has every column in `columns`."""
    path = require_file(path)
    with open_binary(path) as raw:
        try:
            text = raw.read().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError(path, None, f"undecodable bytes (not UTF-8) at byte {exc.start}") from None
    if not text.strip():
        raise InputError(path, None, "empty file")
    reader = csv.DictReader(io.StringIO(text, newline=""))  # \r and \n only, as csv reads (not str.splitlines)
    header = reader.fieldnames or []
    missing = [column for column in columns if column not in header]
    if missing:
        raise InputError(
            path, 1, f"wrong header: missing column(s) {', '.join(missing)}; header is {', '.join(header)}"
        )
    start = 2
    try:
        for row in reader:
            if None in row:
                raise InputError(path, start, f"more fields than the {len(header)} header columns")
            yield start, {key: (value or "") for key, value in row.items()}
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(path, reader.line_num, f"malformed CSV: {exc}") from None


def iter_jsonl(path: PathLike, keys: Sequence[str]) -> Iterator[tuple[int, dict]]:
    """Yield (line, object) for JSON lines whose objects have every key in `keys`."""
    path = require_file(path)
    for number, line in iter_lines(path):
        record = parse_json_object(path, number, line)
        missing = [key for key in keys if key not in record]
        if missing:
            raise InputError(path, number, f"missing key(s) {', '.join(missing)}")
        yield number, record


def check_id(path: PathLike, line: int, value: object, what: str) -> str:
    """A non-empty identifier without white space (TREC files cannot hold white space in ids)."""
    text = str(value).strip() if value is not None else ""
    if not text or any(ch.isspace() for ch in text):
        raise InputError(path, line, f"invalid {what} {value!r}")
    return text


def integer_id(path: PathLike, line: int, value: object, what: str) -> str:
    """An id as the release codes use it (`int(...)`, as pandas reads an integer column), written back as a decimal
    string: "007" and "7" are the same id."""
    text = str(value).strip() if value is not None else ""
    try:
        return str(int(text))
    except ValueError:
        raise InputError(path, line, f"{what} must be an integer, got {value!r}") from None
