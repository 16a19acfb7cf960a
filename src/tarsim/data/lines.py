"""Line-by-line reading of text inputs (plain or gzip) with errors that name the file and line."""

from __future__ import annotations

import codecs
import gzip
import json
import os
import re
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from tarsim.data.limits import capped, decompression_limit, open_regular, too_large
from tarsim.errors import InputError

PathLike = str | os.PathLike[str]


def open_binary(path: PathLike) -> IO[bytes]:
    """Open a regular file for binary reading, transparently decompressing a `.gz` suffix within the cap of
    tarsim.data.limits (a FIFO, a device or a directory is refused in one line, see open_regular)."""
    path = Path(path)
    raw = open_regular(path)
    if path.suffix != ".gz":
        return raw
    limit = decompression_limit(os.fstat(raw.fileno()).st_size)
    stream = gzip.GzipFile(fileobj=raw, mode="rb")
    return capped(stream, limit, lambda: too_large(path, "the gzip file", limit), also_close=(raw,))  # type: ignore[arg-type]


def iter_lines(path: PathLike, *, skip_blank: bool = True) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, decoded line without its newline), streaming; lines end at \\n or \\r\\n.

    Raises InputError for an empty file (no non-blank line), for UTF-16 or UTF-32 text (named, as screening files
    name it), for bytes that are not UTF-8, for a NUL byte (binary data: it would become part of an id), and for a
    carriage return inside a line (CR-only line ends, which trec_eval does not read as line ends either).
    """
    seen_content = False
    with open_binary(path) as handle:
        try:
            check_not_wide(path, handle.peek(_PEEK)[:_PEEK])  # type: ignore[attr-defined]
            for number, raw in enumerate(handle, start=1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    problem = f"undecodable bytes (not UTF-8) at column {exc.start + 1}: {raw[exc.start : exc.end]!r}"
                    raise InputError(path, number, f"{problem}; save the file as UTF-8") from None
                line = line.rstrip("\r\n")
                if "\r" in line:
                    raise InputError(
                        path,
                        number,
                        "CR-only (old Mac) line ends: a carriage return (\\r) inside the line; save the file with \\n "
                        "(or \\r\\n) line ends",
                    )
                if "\x00" in line:
                    raise InputError(path, number, "NUL byte (binary data), not text")
                if number == 1 and line.startswith("\ufeff"):
                    line = line[1:]
                if not line.strip():
                    if skip_blank:
                        continue
                else:
                    seen_content = True
                yield number, line
        except EOFError:
            raise InputError(path, None, "truncated gzip file (it ends before its end marker)") from None
        except (OSError, zlib.error) as exc:  # gzip.BadGzipFile ("CRC check failed ...") is an OSError
            raise InputError(path, None, f"cannot read: {exc}") from None
    if not seen_content:
        raise InputError(path, None, "empty file")


_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32-LE"),  # before UTF-16-LE: its mark starts with UTF-16-LE's
    (codecs.BOM_UTF32_BE, "UTF-32-BE"),
    (codecs.BOM_UTF16_LE, "UTF-16-LE"),
    (codecs.BOM_UTF16_BE, "UTF-16-BE"),
)
_WIDE = (
    (4, lambda unit: unit[0] != 0 and unit[1:] == b"\0\0\0", "UTF-32-LE"),
    (4, lambda unit: unit[:3] == b"\0\0\0" and unit[3] != 0, "UTF-32-BE"),
    (2, lambda unit: unit[0] != 0 and unit[1] == 0, "UTF-16-LE"),
    (2, lambda unit: unit[0] == 0 and unit[1] != 0, "UTF-16-BE"),
)
_UNITS_CHECKED = 8
"""Characters at the file's start that must all look like ASCII in a wide encoding for it to be named."""


def wide_encoding(data: bytes) -> str | None:
    """`UTF-16-LE text with(out) a byte order mark` and the like when the bytes are UTF-16 or UTF-32 text, by its
    byte order mark or, without one, by its first characters (ASCII letters with NUL bytes between them); None
    otherwise."""
    for mark, name in _BOMS:
        if data.startswith(mark):
            return f"{name} text with a byte order mark"
    for size, looks, name in _WIDE:
        count = min(_UNITS_CHECKED, len(data) // size)
        units = [data[i * size : (i + 1) * size] for i in range(count)]
        if count >= 2 and all(looks(unit) for unit in units):
            return f"{name} text without a byte order mark"
    return None


_PEEK = 64


def check_not_wide(path: PathLike, head: bytes) -> None:
    """Refuse in one line a file whose first bytes are UTF-16 or UTF-32 text (wide_encoding): read as UTF-8 it
    gives NULs between letters or undecodable bytes, and a message about those instead of the encoding."""
    wide = wide_encoding(head)
    if wide is not None:
        raise InputError(path, 1, f"the file is {wide}, not UTF-8; save it as UTF-8")


_NON_ASCII_SPACE = re.compile(r"[^\S\x00-\x7f]")
"""White space outside ASCII (U+00A0, U+2009, U+3000, ...): str.split() splits there, trec_eval does not."""


def check_ascii_spaces(path: PathLike, number: int, line: str) -> None:
    """Refuse a line holding a non-ASCII space: str.split() would take it for a column separator while trec_eval
    (C's isspace) reads it as part of a field, so the two would see different columns."""
    found = _NON_ASCII_SPACE.search(line) if not line.isascii() else None
    if found is not None:
        raise InputError(
            path,
            number,
            f"non-ASCII white space U+{ord(found.group()):04X} at column {found.start() + 1}: "
            "separate fields with spaces or tabs",
        )


def split_fields(path: PathLike, number: int, line: str, expected: int, what: str) -> list[str]:
    """Split a whitespace-separated line (ASCII white space only, as trec_eval) and check it has exactly
    `expected` columns."""
    check_ascii_spaces(path, number, line)
    fields = line.split()
    if len(fields) != expected:
        raise InputError(path, number, f"expected {expected} columns ({what}), found {len(fields)}")
    return fields


def parse_int(path: PathLike, number: int, value: str, what: str) -> int:
    """Parse an integer field or raise an InputError naming the column (ASCII only, no `_` separators: Python's
    int("1_0") is 10 and int("１２") is 12, while C readers such as trec_eval's stop at the `_` or the first
    non-ASCII byte)."""
    try:
        if "_" in value or not value.isascii():
            raise ValueError(value)
        return int(value)
    except ValueError:
        raise InputError(path, number, f"{what} is not an integer: {value!r}") from None


def parse_float(path: PathLike, number: int, value: str, what: str) -> float:
    """Parse a finite float field or raise an InputError naming the column (ASCII only, no `_` separators, as
    parse_int: Python's float reads full-width digits `１２` and other scripts' digits, trec_eval does not)."""
    try:
        if "_" in value or not value.isascii():
            raise ValueError(value)
        parsed = float(value)
    except ValueError:
        raise InputError(path, number, f"{what} is not a number: {value!r}") from None
    if parsed != parsed or parsed in (float("inf"), float("-inf")):
        raise InputError(path, number, f"{what} is not a finite number: {value!r}")
    return parsed


class _DuplicateKey(ValueError):
    """A JSON object naming one key twice (json.loads keeps the last value without a word)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """An object's pairs as a dict, refusing a key given twice (object_pairs_hook of _DECODER)."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return record


_DECODER = json.JSONDecoder(object_pairs_hook=_unique_keys)
"""json.loads with duplicate keys refused: `{"docid": "D1", "text": "a", "text": "b"}` kept "b" without a word.
The hook costs about nothing (measured on an 18 MB docs.jsonl: within the runs' noise)."""


def parse_json_object(path: PathLike, number: int, line: str) -> dict:
    """Parse one JSON-lines record that must be an object, or raise an InputError naming the line (a key given twice
    in one object, which json.loads reads as its last value, is refused naming it)."""
    try:
        record = _DECODER.decode(line)
    except _DuplicateKey as exc:
        raise InputError(path, number, f"the key {exc.key!r} appears twice in one JSON object; keep one") from None
    except json.JSONDecodeError as exc:
        message = exc.msg.removesuffix(" at")  # json's "Invalid control character at" already ends so
        raise InputError(path, number, f"invalid JSON: {message} at column {exc.colno}") from None
    if not isinstance(record, dict):
        raise InputError(path, number, "expected a JSON object")
    return record
