"""RIS screening files read with rispy (as ASReview reads them), every record counted.

Lines end at \\r, \\n or \\r\\n only (ASReview opens the file in text mode; U+2028 and the like stay inside a field).
rispy skips lines outside a record and merges a record left open into the next one, so before rispy parses the
file every line is checked: a record opens with a `TY  - ` line and closes with an `ER  - ` line, a tag outside a
record (a record without its TY line) is refused naming its line, and the count of records rispy returns must equal
both the TY and the ER lines counted here. A line rispy reads as text but that looks like a tag (lower case,
indented, or after a U+2028 and the like) is refused at its line, as is a TY value that is no plain type code.
"""

from __future__ import annotations

import re
from pathlib import Path

from tarsim.errors import InputError
from tarsim.interop.line_breaks import ONLY_LINE_ENDS, UNICODE_BREAK, character_name, no_line_ends_problem
from tarsim.interop.screening_table import MissingLabelColumn, Table, decode_text

RIS_NOTES = {"ASReview_relevant": 1, "ASReview_irrelevant": 0, "ASReview_not_seen": None}
_START = re.compile(r"^TY  - ")
_LINE_BREAK = re.compile(r"\r\n?")


def ris_lines(text: str) -> list[str]:
    """The lines of a RIS text, split at \\r\\n, \\r and \\n only (as a file opened in text mode)."""
    return _LINE_BREAK.sub("\n", text).split("\n")


def ris_tag(line: str) -> str | None:
    """The tag of a RIS line (`TY` of `TY  - JOUR`) as rispy reads it, else None (a continuation line)."""
    return line[:2] if line[2:5] == "  -" and line[:2].isupper() and line[:1].isalpha() else None


def check_ris_records(path: Path, lines: list[str]) -> tuple[list[int], int]:
    """The line numbers of the records' TY lines and the number of ER lines; refuses, naming the line, a tag outside
    a record (a record without `TY  - `), a record not closed by `ER  - ` before the next one or the end of the file,
    and a TY line that rispy would not take as a record's start."""
    opened: int | None = None
    starts: list[int] = []
    ends = 0
    for number, line in enumerate(lines, start=1):
        tag = ris_tag(line)
        if tag is None:
            check_not_tag_like(path, number, line)
        elif tag == "TY" and _START.match(line):
            check_type_code(path, number, line)
        check_no_hidden_tag(path, number, line, tag)
        if opened is None:
            if line.startswith("TY"):  # rispy opens a record at any line starting so
                if not _START.match(line):
                    raise InputError(path, number, f"a record starts with {line[:10]!r}, not 'TY  - '")
                opened = number
                starts.append(number)
            elif tag is not None:
                problem = f"RIS tag {tag!r} outside a record: a record must start with a 'TY  - ' line"
                raise InputError(path, number, problem + " (this record has none)" if tag != "ER" else problem)
        elif tag == "TY":
            problem = f"RIS record has no 'ER  - ' line before the next record (line {number})"
            raise InputError(path, opened, problem)
        elif tag == "ER":
            opened = None
            ends += 1
    if opened is not None:
        raise InputError(path, opened, "RIS record has no 'ER  - ' line before the end of the file")
    return starts, ends


_TAG_LIKE = re.compile(r"[ \t]*[A-Za-z][A-Za-z0-9]  -")


def check_not_tag_like(path: Path, number: int, line: str) -> None:
    """Refuse a line that is no tag to rispy but looks like one: lower case (`ty  - JOUR`) or indented
    (`  TY  - JOUR`). rispy reads it as text of the tag before (or skips it outside a record): an indented TY
    left its record's tags outside any record, an indented AB ran into the title."""
    if _TAG_LIKE.match(line):
        shown = line if len(line) <= 20 else line[:20] + "..."
        tag = line.lstrip(" \t")[:2].upper() + "  - "
        raise InputError(
            path,
            number,
            f"{shown!r} is not read as a tag: tags are two upper-case characters at the start of a line "
            f"(write {tag!r})",
        )


def check_type_code(path: Path, number: int, line: str) -> None:
    """Refuse a TY value (rispy strips its ends) holding a control character, a Unicode line break or a non-ASCII
    space: a type is a plain code (JOUR), and a U+2028 in it hid the next tag (`TY  - JOUR<U+2028>TI  - x`), read
    by rispy and ASReview as part of the type."""
    value = line[6:].strip()
    bad = next((char for char in value if not char.isprintable()), None)
    if bad is None:
        return
    column = line.index(bad, 6) + 1
    hidden = ris_tag(line[column:])
    problem = f"the TY value holds {character_name(bad)} at column {column}"
    if hidden is not None:
        problem += f", hiding the tag {hidden!r} after it"
    problem += ": a record's type is a plain code (JOUR, BOOK, ...)"
    if UNICODE_BREAK.match(bad):
        problem += f"; RIS {ONLY_LINE_ENDS}"
    raise InputError(path, number, problem)


def check_no_hidden_tag(path: Path, number: int, line: str, tag: str | None) -> None:
    """Refuse a Unicode line break (U+2028, U+0085, \\x0b, ...) followed by a tag (`XX  - `) in a line: rispy and
    ASReview read that tag as text of the line's own field (a title swallowed the abstract), programs that split
    lines as str.splitlines does read it as a tag; the file's writer most likely meant a line of its own."""
    for found in UNICODE_BREAK.finditer(line):
        hidden = ris_tag(line[found.end() :])
        if hidden is not None:
            inside = f" in the value of {tag!r}" if tag is not None else ""
            raise InputError(
                path,
                number,
                f"{character_name(found.group())} at column {found.start() + 1} hides the tag {hidden!r}{inside}: "
                f"RIS {ONLY_LINE_ENDS}, so rispy and ASReview read {hidden + '  - '!r} as text; put the tag on a "
                "line of its own",
            )


def read_ris(path: Path, *, require_labels: bool = True) -> Table:
    """RIS via rispy; labels from ASReview's notes, a table with ASReview's column names (union of tags). A file
    without any label note is refused unless `require_labels` is False."""
    import rispy

    text = decode_text(path)
    if not text.strip():
        raise InputError(path, None, "empty file")
    lines = ris_lines(text)
    no_line_ends = no_line_ends_problem(lines)
    if no_line_ends is not None:
        raise InputError(path, *no_line_ends)
    starts, ends = check_ris_records(path, lines)
    try:
        entries = rispy.loads("\n".join(lines), skip_unknown_tags=True)
    except Exception as exc:  # rispy raises on malformed tags
        raise InputError(path, None, f"cannot read as RIS: {' '.join(str(exc).split())}") from None
    if not len(starts) == ends == len(entries):
        raise InputError(
            path,
            None,
            f"{len(starts)} 'TY  - ' lines and {ends} 'ER  - ' lines, but the RIS parser read {len(entries)} records",
        )
    keys: dict[str, None] = {}
    for entry in entries:
        keys.update(dict.fromkeys(key for key in entry if key not in ("notes", "label")))
    header = (*keys, "notes")
    rows = []
    for line, entry in zip(starts, entries, strict=True):
        cells = [ris_value(entry.get(key)) for key in keys]
        label = ris_label(entry.get("notes"))
        cells.append("" if label is None else str(label))
        rows.append((line, tuple(cells)))
    if require_labels and not any(ris_label(entry.get("notes")) is not None for entry in entries):
        raise MissingLabelColumn(
            path, None, "no record has an ASReview_relevant or ASReview_irrelevant note (the RIS labels)"
        )
    # The notes column holds the labels; name it as a label column so the shared checks find it.
    return Table((*header[:-1], "included"), tuple(rows), unit="record", header_line=None)


def ris_value(value: object) -> str:
    """A rispy field as one text cell (lists joined by `;`)."""
    if value is None:
        return ""
    if isinstance(value, list):
        return ";".join(str(v) for v in value)
    return str(value)


def ris_label(notes: object) -> int | None:
    """ASReview's reading of the notes: the first note naming a label decides."""
    if not isinstance(notes, list):
        return None
    for note in notes:
        for key, label in RIS_NOTES.items():
            if key in str(note):
                return label
    return None
