"""Excel .xlsx screening files: the sheet whose header names most of ASReview's columns, its header in row 1.

Reading stays linear in the workbook's decompressed size, whatever the file holds:
- its members' declared sizes must add up to no more than the decompression cap of tarsim.data.limits (a 292 KB
  workbook could otherwise take gigabytes of memory), and no XML part may hold a tag, comment or processing
  instruction over 1 MiB (tarsim.interop.xml_tokens: a 50 MB comment made openpyxl's XML parse take minutes);
- rows are read as openpyxl's worksheet parser gives them, cell by cell: openpyxl's iter_rows trusts the sheet's
  declared dimension (leaving out cells past it without a word), pads every row to its widest cell and yields an
  empty row for every row number skipped, so one cell at XFD1048576 cost 17 billion cells. Only the header row of
  each sheet is read to choose one; rows out of order or repeated (which iter_rows, so pandas and ASReview, leave
  out) are refused, naming them;
- the cells' text, shared strings counted at each use, is capped as decompressed bytes are.
Other sheets holding data are named in one warning (pandas and ASReview leave them out without a word).
"""

from __future__ import annotations

import os
import re
import sys
import warnings
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any

from tarsim.data.limits import check_total, decompression_limit, open_regular, too_large
from tarsim.errors import InputError, InputWarning, require
from tarsim.interop.archives import DAMAGED_ZIP, starts_as_zip
from tarsim.interop.screening_table import LABEL_COLUMNS, RECORD_ID_COLUMN, TEXT_COLUMNS, Table
from tarsim.interop.xlsx_cells import KeyColumns, cell_text, sheet_parser
from tarsim.interop.xml_tokens import XmlError, check_xml_tokens

__all__ = ["SparseRow", "cell_text", "read_xlsx"]


class SparseRow(Sequence[str]):
    """A sheet row as text cells up to its last cell, holding only the cells the file has (an empty one is '')."""

    __slots__ = ("_cells", "_width")

    def __init__(self, cells: dict[int, str], width: int) -> None:
        self._cells = cells  # position from 0 -> text, non-empty cells only
        self._width = width

    def __len__(self) -> int:
        return self._width

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return tuple(self._cells.get(i, "") for i in range(*index.indices(self._width)))
        position = index + self._width if index < 0 else index
        if not 0 <= position < self._width:
            raise IndexError(index)
        return self._cells.get(position, "")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and tuple(self) == tuple(other)

    def __repr__(self) -> str:
        return f"SparseRow({tuple(self)!r})"


def read_xlsx(path: Path) -> Table:
    """Excel .xlsx: the sheet whose header names most of ASReview's columns (as ASReview chooses it)."""
    require("openpyxl", "xlsx", "reading an Excel .xlsx file")
    from openpyxl.reader.excel import ExcelReader

    with open_regular(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        malformed = _check_members(path, handle, size)
        handle.seek(0)
        try:
            reader = ExcelReader(handle, read_only=True, data_only=True)  # what openpyxl.load_workbook does
            reader.read()
        except Exception as exc:  # openpyxl raises zip, XML, key and value errors for damaged files
            raise _unreadable(path, exc, malformed) from None
        workbook = reader.wb
        try:
            _check_sheet_parts(path, reader)
            return _read_sheets(path, workbook, decompression_limit(size))
        except InputError:
            raise
        except _SheetError as exc:
            raise exc.named(path, malformed) from None
        except Exception as exc:
            raise _unreadable(path, exc, malformed) from None
        finally:
            workbook.close()


def _check_members(path: Path, handle: Any, size: int) -> dict[str, XmlError]:
    """The decompression cap on the members' declared sizes, then the token check on every XML part; the parts that
    are not well-formed XML, with their error (named if openpyxl fails to read the workbook)."""
    malformed: dict[str, XmlError] = {}
    try:
        with zipfile.ZipFile(handle) as archive:
            infos = archive.infolist()
            check_total(path, "the workbook", sum(info.file_size for info in infos), size)
            for info in infos:
                if info.filename.lower().endswith((".xml", ".rels")):
                    try:
                        with archive.open(info) as stream:
                            error = check_xml_tokens(path, info.filename, stream)
                    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:  # its bytes do not inflate
                        problem = " ".join(str(exc).split()) or type(exc).__name__
                        raise InputError(path, None, f"damaged workbook: member {info.filename!r}: {problem}") from None
                    if error is not None:
                        malformed[info.filename] = error
    except zipfile.BadZipFile:
        problem = DAMAGED_ZIP if starts_as_zip(handle) else "not a zip archive"
        raise InputError(path, None, f"cannot read as an Excel .xlsx workbook: {problem}") from None
    except InputError:
        raise
    except Exception as exc:  # a damaged member: zlib, CRC, unsupported compression
        raise _unreadable(path, exc) from None
    return malformed


_MISSING_PART = re.compile(r"There is no item named '(.*)' in the archive")
SAVE_AGAIN = "a damaged or incomplete file; save it again from a spreadsheet program"


def _unreadable(path: Path, exc: BaseException, malformed: dict[str, XmlError] | None = None) -> InputError:
    """openpyxl's failure in one line: a missing part or a part that is not well-formed XML named, else its words."""
    problem = " ".join(str(exc).split()) or type(exc).__name__
    missing = _MISSING_PART.search(problem) if isinstance(exc, KeyError) else None
    if missing is not None:
        problem = f"its part {missing.group(1)!r} is missing ({SAVE_AGAIN})"
    elif isinstance(exc, SyntaxError) and malformed:  # ElementTree's ParseError (lxml's too) is a SyntaxError
        part, error = next(iter(malformed.items()))
        row = f", row {error.row}" if error.row is not None else ""
        problem = f"part {part!r}{row}: {error.problem}"
    return InputError(path, None, f"cannot read as an Excel .xlsx workbook: {problem}")


def _check_sheet_parts(path: Path, reader: Any) -> None:
    """Refuse a worksheet the workbook names whose part is missing: openpyxl leaves it out without a word (a second
    sheet's records were lost, a workbook whose only sheet was missing was `empty`)."""
    for sheet, rel in reader.parser.find_sheets():
        if "chartsheet" not in rel.Type and rel.target not in reader.valid_files:
            raise InputError(
                path,
                None,
                f"sheet {sheet.name!r} is missing: the workbook names it, but there is no part "
                f"{rel.target!r} ({SAVE_AGAIN})",
            )


class _SheetError(Exception):
    """openpyxl's failure reading a sheet's rows, with the sheet, its part and the row read when it failed."""

    def __init__(self, title: str, part: str, row: int | None, cause: Exception) -> None:
        super().__init__(title)
        self.title, self.part, self.row, self.cause = title, part, row, cause

    def named(self, path: Path, malformed: dict[str, XmlError]) -> InputError:
        """The one-line error: sheet, part, row and the cause (the part's XML error when it is not well-formed)."""
        error = malformed.get(self.part)
        row = error.row if error is not None and error.row is not None else self.row
        if error is not None:
            problem = error.problem
        elif isinstance(self.cause, ValueError) and "integer string conversion" in str(self.cause):
            problem = f"a number of more than {sys.get_int_max_str_digits()} digits in a cell ({SAVE_AGAIN})"
        else:
            problem = " ".join(str(self.cause).split()) or type(self.cause).__name__
        where = f", row {row}" if row else ""
        return InputError(path, None, f"sheet {self.title!r} (part {self.part!r}){where}: {problem}")


def _read_sheets(path: Path, workbook: Any, limit: int) -> Table:
    """The Table of the sheet whose row 1 names most of ASReview's columns, only that row of the others read."""
    wanted = {RECORD_ID_COLUMN, "authors", "keywords", "year", "doi", "url", *LABEL_COLUMNS}
    wanted.update(name for synonyms in TEXT_COLUMNS.values() for name in synonyms)
    best, best_score = None, -1
    for sheet in workbook:
        with closing(_sheet_rows(path, workbook, sheet)) as sheet_rows:
            first = next(sheet_rows, None)
        names = first[1].values() if first is not None and first[0] == 1 else ()
        score = len({cell_text(v).strip().lower() for v in names} & wanted)
        if score > best_score:
            best, best_score = sheet, score
    if best is None:
        raise InputError(path, None, "the workbook holds no worksheet, so no header row")
    _warn_other_sheets(path, workbook, best)
    header: tuple[str, ...] = ()
    rows: list[tuple[int | None, Sequence[str]]] = []
    first_filled = None
    text = 0
    keys = KeyColumns({}, None)
    for number, cells in _sheet_rows(path, workbook, best):
        if number == 1:
            keys = KeyColumns.of(cells)
        else:
            keys.check(path, best.title, number, cells)
        filled = {column - 1: cell_text(value) for column, value in cells.items()}
        filled = {position: value for position, value in filled.items() if value}
        if not any(value.strip() for value in filled.values()):
            continue
        first_filled = first_filled or number
        text += sum(len(value) for value in filled.values())
        if text > limit:
            raise too_large(path, f"sheet {best.title!r}'s cell text (shared strings counted at each use)", limit)
        if number == 1:
            header = tuple(cell_text(cells.get(column)) for column in range(1, max(cells) + 1))
        elif first_filled == 1:
            rows.append((number, SparseRow(filled, max(filled) + 1)))
    if not header:
        if first_filled is None:
            raise InputError(path, None, f"sheet {best.title!r} is empty (no filled cell), so no header row")
        raise InputError(
            path,
            None,
            f"sheet {best.title!r}: row 1 is empty and the first filled row is row {first_filled}; the header must be "
            "in row 1 (delete the rows above it)",
        )
    return Table(header, tuple(rows), unit="row")


def _warn_other_sheets(path: Path, workbook: Any, chosen: Any) -> None:
    """One warning naming every other sheet that holds data, with its filled rows: pandas and ASReview read one
    sheet without a word, so records on a second sheet were left out silently."""
    others = []
    for sheet in workbook:
        if sheet is chosen:
            continue
        try:
            with closing(_sheet_rows(path, workbook, sheet)) as sheet_rows:
                filled = sum(1 for _, cells in sheet_rows if any(cell_text(value).strip() for value in cells.values()))
        except InputError:  # its rows out of order: it holds data, not counted
            others.append(f"sheet {sheet.title!r}")
            continue
        if filled:
            others.append(f"sheet {sheet.title!r} ({filled} filled row{'s' if filled != 1 else ''})")
    if others:
        warnings.warn(
            f"{path}: {', '.join(others)} {'is' if len(others) == 1 else 'are'} not read: tarsim reads one sheet, "
            f"{chosen.title!r}, the first whose row 1 names most of the screening columns",
            InputWarning,
            stacklevel=3,
        )


def _sheet_rows(path: Path, workbook: Any, sheet: Any) -> Iterator[tuple[int, dict[int, object]]]:
    """(row number, {column: value}) of every row the sheet's XML holds, in order, straight from openpyxl's
    worksheet parser (what its iter_rows reads too, before padding rows and trusting the declared dimension)."""
    previous = 0
    with sheet._get_source() as source:
        parser = sheet_parser()(
            source,
            sheet._shared_strings,
            data_only=True,
            epoch=workbook.epoch,
            date_formats=workbook._date_formats,
            timedelta_formats=workbook._timedelta_formats,
        )
        for number, parsed in _named_failure(sheet, parser):
            if number <= previous:
                raise InputError(
                    path,
                    None,
                    f"sheet {sheet.title!r}: row {number} comes after row {previous} in the file (rows out of order "
                    "or repeated, which pandas and ASReview leave out); save the workbook again from a spreadsheet "
                    "program",
                )
            previous = number
            cells: dict[int, object] = {}
            for cell in parsed:
                column = cell["column"]
                if column in cells:
                    problem = f"sheet {sheet.title!r}: row {number} has two cells in column {column}"
                    raise InputError(path, None, problem)
                cells[column] = cell["value"]
            yield number, cells


def _named_failure(sheet: Any, parser: Any) -> Iterator[tuple[int, list[dict]]]:
    """The parser's rows; its failure (XML not well-formed, a number of 30 million digits) raised as a _SheetError
    naming the sheet, its part and the row it was reading."""
    rows = parser.parse()
    while True:
        try:
            row = next(rows)
        except StopIteration:
            return
        except Exception as exc:
            raise _SheetError(sheet.title, sheet._worksheet_path, parser.row_counter or None, exc) from None
        yield row
