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
from pathlib import Path
from typing import IO

from tarsim.errors import InputError

MAX_TOKEN = 1 << 20
"""The longest tag, comment or processing instruction taken, in bytes."""
_CHUNK = 1 << 20


def check_xml_tokens(path: Path, member: str, stream: IO[bytes]) -> None:
    """Refuse in one line an XML stream (a zip member of `path`) holding a token longer than MAX_TOKEN bytes. XML
    that is not well-formed is left to the reader after this check, which stops at the same place."""
    parser = pyexpat.ParserCreate()
    fed = 0
    try:
        while chunk := stream.read(_CHUNK):
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
    except pyexpat.ExpatError:
        return
