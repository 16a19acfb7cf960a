"""An .xlsx screening file is read in time linear in its decompressed size (issue 30): a long XML token, a cell far
past the sheet's declared dimension or repeated shared strings cannot stall the reader; a normal workbook still
reads as pandas.read_excel (ASReview's reader) reads it."""

from __future__ import annotations

import datetime
import time
import zipfile
from pathlib import Path

import pytest

from tarsim.data.limits import LIMIT_VARIABLE
from tarsim.errors import InputError
from tarsim.interop.screening import read_screening_file, read_table
from tarsim.interop.xlsx import cell_text

openpyxl = pytest.importorskip("openpyxl")

SHEET = "xl/worksheets/sheet1.xml"
STRINGS = "xl/sharedStrings.xml"


def workbook(path: Path, rows: list[list[object]]) -> Path:
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    book.save(path)
    return path


def rewritten(path: Path, member: str, edit) -> Path:
    """A copy of the workbook at `path` with one member's bytes edited (zipfile, deflated)."""
    with zipfile.ZipFile(path) as source:
        parts = {info.filename: source.read(info) for info in source.infolist()}
    parts[member] = edit(parts.get(member, b""))
    out = path.with_name("edited-" + path.name)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return out


def shared(path: Path, strings: list[str], rows: list[list[int]]) -> Path:
    """A workbook whose cells are the shared strings of the given indexes (openpyxl writes inline strings only)."""
    items = "".join(f"<si><t>{text}</t></si>" for text in strings)
    table = f'<sst xmlns="{NS}" count="{len(strings)}" uniqueCount="{len(strings)}">{items}</sst>'.encode()
    cells = ""
    for r, row in enumerate(rows, start=1):
        cells += f'<row r="{r}">' + "".join(f'<c r="{chr(65 + c)}{r}" t="s"><v>{i}</v></c>' for c, i in enumerate(row))
        cells += "</row>"
    sheet = f'<worksheet xmlns="{NS}"><sheetData>{cells}</sheetData></worksheet>'.encode()
    part = b'<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument'
    part += b'.spreadsheetml.sharedStrings+xml"/></Types>'
    path = rewritten(workbook(path, [["x"]]), SHEET, lambda _xml: sheet)
    path = rewritten(path, STRINGS, lambda _xml: table)
    return rewritten(path, "[Content_Types].xml", lambda xml: xml.replace(b"</Types>", part))


NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
ROWS = [["record_id", "title", "abstract", "label_included"], ["r1", "a title", "an abstract", 1], ["r2", "t", "a", 0]]
BIG = 16 << 20  # 16 MiB in one token: minutes of openpyxl's XML parse before (a 26 MB comment took 30 s)
SPACES = b" " * BIG
LONG_TEXT = b"<si><t>" + b"ok" * (1 << 20) + b"</t></si>"  # 2 MiB of text is no token: read, then the tag refused


@pytest.mark.parametrize(
    ("member", "edit"),
    [
        (SHEET, lambda xml: xml.replace(b"<sheetData>", b"<!--" + b" " * BIG + b"--><sheetData>")),
        (SHEET, lambda xml: xml.replace(b"<sheetData>", b'<sheetData><row r="1" x="' + b"y" * BIG + b'"/>', 1)),
        (STRINGS, lambda xml: xml.replace(b"<si>", b"<?pi " + b" " * BIG + b"?><si>", 1)),
        (STRINGS, lambda xml: xml.replace(b"<si>", LONG_TEXT + b"<si" + SPACES + b">", 1)),
    ],
    ids=["comment in the sheet", "attribute in the sheet", "processing instruction in the shared strings", "tag"],
)
def test_a_huge_xml_token_is_refused_at_once(tmp_path, member, edit):
    strings = ["record_id", "title", "abstract", "label_included", "r1", "t", "a", "1"]
    path = rewritten(shared(tmp_path / "set.xlsx", strings, [[0, 1, 2, 3], [4, 5, 6, 7]]), member, edit)
    assert path.stat().st_size < 200_000  # a small file
    start = time.perf_counter()
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    assert time.perf_counter() - start < 5
    assert str(caught.value) == (
        f"{path}: member {member!r}: an XML tag, comment or processing instruction of more than 1,048,576 bytes at "
        "its line 1 (Excel writes none)"
    )


def test_a_long_cell_text_is_no_token_and_is_read(tmp_path):
    abstract = "word " * 600_000  # 3 MB of text in one cell: text is read in pieces, no limit but the cap
    strings = ["record_id", "title", "abstract", "label_included", "r1", "t", abstract, "1"]
    path = shared(tmp_path / "set.xlsx", strings, [[0, 1, 2, 3], [4, 5, 6, 7]])
    assert read_screening_file(path).collection.get("r1").text == abstract.strip()


@pytest.mark.filterwarnings("ignore::tarsim.errors.InputWarning")  # the far record has no title or abstract
def test_a_cell_past_the_declared_dimension_is_read_and_cheap(tmp_path):
    """openpyxl's iter_rows trusts <dimension ref="A1:D3"/> and left the last record out without a word; read without
    it, iter_rows would pad row 1048576 to column XFD and yield a million empty rows."""
    far = b'<row r="1048576"><c r="A1048576" t="inlineStr"><is><t>far</t></is></c><c r="D1048576"><v>1</v></c>'
    far += b'<c r="XFD1048576" t="inlineStr"><is><t>note</t></is></c></row></sheetData>'
    path = rewritten(workbook(tmp_path / "set.xlsx", ROWS), SHEET, lambda xml: xml.replace(b"</sheetData>", far))
    start = time.perf_counter()
    screening = read_screening_file(path)
    assert time.perf_counter() - start < 5
    assert screening.collection.docids == ["r1", "r2", "far"] and screening.qrels[screening.topic]["far"] == 1


def test_rows_out_of_order_are_refused(tmp_path):
    """iter_rows (so pandas and ASReview) leaves out a row whose number comes after a larger one."""

    def swap(xml: bytes) -> bytes:
        return xml.replace(b'<row r="2"', b'<row r="9"', 1)  # rows 1, 9, 3: row 3 left out by iter_rows

    path = rewritten(workbook(tmp_path / "set.xlsx", [*ROWS, ["r3", "t", "a", 1]]), SHEET, swap)
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    assert str(caught.value) == (
        f"{path}: sheet 'Sheet': row 3 comes after row 9 in the file (rows out of order or repeated, which pandas and "
        "ASReview leave out); save the workbook again from a spreadsheet program"
    )


def test_shared_strings_repeated_past_the_cap_are_refused(tmp_path, monkeypatch):
    """One 5,000-character shared string used 300 times is 1.5 MB of text from a workbook of a few KB."""
    strings = ["title", "abstract", "label_included", "t", "x" * 5000, "0", "1"]
    path = shared(tmp_path / "set.xlsx", strings, [[0, 1, 2], *[[3, 4, 5 + i % 2] for i in range(300)]])
    assert len(read_screening_file(path).collection) == 300
    monkeypatch.setenv(LIMIT_VARIABLE, "200K")
    with pytest.raises(InputError, match=r"sheet 'Sheet''s cell text \(shared strings counted at each use\) "):
        read_screening_file(path)


def test_a_normal_workbook_reads_as_pandas_reads_it(tmp_path):
    pandas = pytest.importorskip("pandas")
    rows = [
        ["record_id", "title", "abstract", "label_included", "year", "notes"],
        ["a1", "Ünïcode — title", "line one\nline two", 1, 2001, None],
        [2, "", None, 0.0, 1999.5, True],
        [None, None, None, None, None, None],
        ["a3", "  spaced  ", "tab\there", "1", datetime.datetime(2020, 1, 2, 3, 4), False],
        ["a4", "x" * 40_000, "y", 0, -3, "=not a formula"],
    ]
    path = workbook(tmp_path / "set.xlsx", rows)
    table = read_table(path)
    frame = pandas.read_excel(path, header=None, dtype=object, keep_default_na=False, na_values=[])
    expected = [[cell_text(value) if value is not None else "" for value in row] for row in frame.values.tolist()]
    expected = [row for row in expected if any(cell.strip() for cell in row)]
    width = len(expected[0])
    got = [list(table.header)] + [[*cells, *[""] * (width - len(cells))] for _line, cells in table.rows]
    assert got == expected
    assert [line for line, _cells in table.rows] == [2, 3, 5, 6]  # sheet rows, the empty one left out
