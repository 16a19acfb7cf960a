"""A linear-time check of an XML part before openpyxl reads it: no tag, comment or processing instruction longer
than MAX_TOKEN bytes.

openpyxl reads worksheets and shared strings with ElementTree.iterparse, which feeds expat 16 KB at a time, and expat
before 2.6 scans a token that does not end within the bytes fed again each time more come: a 50 MB comment in a
56 KB workbook took minutes. This check feeds expat 1 MiB at a time and stops at the first token still open after
more than MAX_TOKEN bytes, so its own time is linear, and so is openpyxl's after it: tokens of at most 1 MiB cost
openpyxl less per byte than ordinary cells do. Excel's own tags are a few hundred bytes; text (cell values) is no
token and has no limit here.
"""

from __future__ import annotations

import pyexpat
import re
from pathlib import Path
from typing import IO, NamedTuple

from tarsim.errors import InputError

MAX_TOKEN = 1 << 20
"""The longest tag, comment or processing instruction taken, in bytes."""
_CHUNK = 1 << 20


class XmlError(NamedTuple):
    """Where and why an XML part is not well-formed, for a message naming its part, sheet and row."""

    problem: str
    """expat's message and place, a NUL byte named: `not well-formed (invalid token) at line 1, column 646: a NUL
    byte (binary data, or a damaged file)`."""
    row: int | None
    """The worksheet row (`<row r="N">`) the error is in, None outside a row or in another part."""


_ROW = re.compile(rb'<(?:\w+:)?row\b[^>]*?\sr="(\d+)"')


def check_xml_tokens(path: Path, member: str, stream: IO[bytes]) -> XmlError | None:
    """Refuse in one line an XML stream (a zip member of `path`) holding a token longer than MAX_TOKEN bytes. XML
    that is not well-formed is left to the reader after this check, which stops at the same place; its error is
    returned (named only if the reader fails: a part openpyxl does not read may be damaged), else None."""
    parser = pyexpat.ParserCreate()
    fed = window_start = 0
    previous = current = b""  # the last two chunks fed: where an error's row is looked up
    try:
        while chunk := stream.read(_CHUNK):
            previous, current = current, chunk
            window_start = fed - len(previous)
            parser.Parse(chunk, False)
            fed += len(chunk)
            if fed - parser.CurrentByteIndex > MAX_TOKEN:  # bytes of a token not closed yet
                raise InputError(
                    path,
                    None,
                    f"member {member!r}: an XML tag, comment or processing instruction of more than {MAX_TOKEN:,} "
                    f"bytes at its line {parser.CurrentLineNumber} (Excel writes none)",
                )
        parser.Parse(b"", True)
    except pyexpat.ExpatError as error:
        if not current:
            return XmlError("empty (0 bytes), not XML", None)
        return _xml_error(error, previous + current, parser.ErrorByteIndex - window_start)
    return None


def _xml_error(error: pyexpat.ExpatError, window: bytes, index: int) -> XmlError:
    """The XmlError of expat's `error` at byte `index` of `window` (the last bytes fed)."""
    message = pyexpat.ErrorString(error.code) if error.code else str(error)
    problem = f"{message} at line {error.lineno}, column {error.offset + 1}"
    if 0 <= index < len(window) and window[index] == 0:
        problem += ": a NUL byte (binary data, or a damaged file)"
    rows = _ROW.findall(window[: max(index, 0)])
    return XmlError(problem, int(rows[-1]) if rows else None)
