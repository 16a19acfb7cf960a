"""Excel .xlsx screening files: the sheet whose header names most of ASReview's columns, its header in row 1.

An .xlsx file is a zip archive: its members' declared sizes must add up to no more than the decompression cap of
tarsim.data.limits before openpyxl reads it (a 292 KB workbook could otherwise take gigabytes of memory).
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

from tarsim.data.limits import check_total, open_regular
from tarsim.errors import InputError, require
from tarsim.interop.screening_table import LABEL_COLUMNS, RECORD_ID_COLUMN, TEXT_COLUMNS, Table


def cell_text(value: object) -> str:
    """An Excel cell as text: integral numbers without `.0`, booleans as 1/0, empty as ''."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _filled(row: tuple) -> bool:
    return any(cell_text(v).strip() for v in row)


def read_xlsx(path: Path) -> Table:
    """Excel .xlsx: the sheet whose header names most of ASReview's columns (as ASReview chooses it)."""
    openpyxl = require("openpyxl", "xlsx", "reading an Excel .xlsx file")
    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        try:
            with zipfile.ZipFile(handle) as archive:
                check_total(path, "the workbook", sum(info.file_size for info in archive.infolist()), size)
        except zipfile.BadZipFile:
            raise InputError(path, None, "cannot read as an Excel .xlsx workbook: not a zip archive") from None
        handle.seek(0)
        try:
            workbook = openpyxl.load_workbook(handle, read_only=True, data_only=True)
        except Exception as exc:  # openpyxl raises zip, XML, key and value errors for damaged files
            problem = " ".join(str(exc).split()) or type(exc).__name__
            raise InputError(path, None, f"cannot read as an Excel .xlsx workbook: {problem}") from None
        try:
            sheets = [(sheet.title, [tuple(row) for row in sheet.iter_rows(values_only=True)]) for sheet in workbook]
        except Exception as exc:
            problem = " ".join(str(exc).split()) or type(exc).__name__
            raise InputError(path, None, f"cannot read as an Excel .xlsx workbook: {problem}") from None
        finally:
            workbook.close()
    wanted = {RECORD_ID_COLUMN, "authors", "keywords", "year", "doi", "url", *LABEL_COLUMNS}
    wanted.update(name for synonyms in TEXT_COLUMNS.values() for name in synonyms)
    best: list[tuple] = []
    best_title = ""
    best_score = -1
    for title, rows in sheets:
        header = {cell_text(v).strip().lower() for v in rows[0]} if rows else set()
        score = len(header & wanted)
        if score > best_score:
            best, best_title, best_score = rows, title, score
    if not best or not _filled(best[0]):
        first = next((number for number, row in enumerate(best, start=1) if _filled(row)), None)
        if first is None:
            raise InputError(path, None, "empty file (no header row in the workbook)")
        raise InputError(
            path,
            None,
            f"sheet {best_title!r}: row 1 is empty and the first filled row is row {first}; the header must be in "
            "row 1 (delete the rows above it)",
        )
    header = tuple(cell_text(v) for v in best[0])
    rows = tuple(
        (number, tuple(cell_text(v) for v in row)) for number, row in enumerate(best[1:], start=2) if _filled(row)
    )
    return Table(header, rows, unit="row")
