"""What every screening-file reader shares: ASReview's column names, the Table of text cells a reader returns, and
the decoding of a file's bytes as text (UTF-8; UTF-16 and UTF-32 are recognised and named, with or without a byte
order mark, rather than read as text with a NUL between letters)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tarsim.data.lines import check_not_wide, open_binary
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


def decode_text(path: Path) -> str:
    """The whole file as text (UTF-8, BOM allowed); UTF-16/32 text is named as such, and other undecodable bytes
    are an error naming their line."""
    with open_binary(path) as raw:
        data = raw.read()
    check_not_wide(path, data)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            path, line, f"undecodable bytes (not UTF-8) at byte {exc.start}; save the file as UTF-8"
        ) from None
