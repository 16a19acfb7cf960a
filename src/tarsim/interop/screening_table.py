"""What every screening-file reader shares: ASReview's column names, the Table of text cells a reader returns, and
the decoding of a file's bytes as text (UTF-8; UTF-16 and UTF-32 are recognised and named, with or without a byte
order mark, rather than read as text with a NUL between letters)."""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tarsim.data.lines import open_binary
from tarsim.errors import InputError

LABEL_COLUMNS = (
    "asreview_label",
    "included",
    "label",
    "final_included",
    "label_included",
    "included_label",
    "included_final",
    "included_flag",
    "include",
)
"""ASReview 3's accepted names of the inclusion-label column (data/base.py), in its order of preference."""
TEXT_COLUMNS = {
    "title": ("title", "primary_title"),
    "abstract": ("abstract", "notes_abstract", "abstract note"),
}
"""ASReview 3's synonyms of the text columns, first found wins (as in ASReview)."""
RECORD_ID_COLUMN = "record_id"


class MissingLabelColumn(InputError):
    """A table without a label column: not a screening set for simulation."""


@dataclass(frozen=True)
class Table:
    """A file's rows as text cells: the header and, per row, the line (or sheet row) where it starts."""

    header: tuple[str, ...]
    rows: tuple[tuple[int | None, Sequence[str]], ...]
    unit: str = "line"
    header_line: int | None = 1


def shown(header: Sequence[str]) -> str:
    """Header names for a one-line message (line breaks inside quoted names flattened, long headers cut)."""
    names = [" ".join(name.split()) or "''" for name in header[:20]]
    return ", ".join(names) + (" ..." if len(header) > 20 else "")


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


def decode_text(path: Path) -> str:
    """The whole file as text (UTF-8, BOM allowed); UTF-16/32 text is named as such, and other undecodable bytes
    are an error naming their line."""
    with open_binary(path) as raw:
        data = raw.read()
    wide = wide_encoding(data)
    if wide is not None:
        raise InputError(path, 1, f"the file is {wide}, not UTF-8; save it as UTF-8")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            path, line, f"undecodable bytes (not UTF-8) at byte {exc.start}; save the file as UTF-8"
        ) from None
