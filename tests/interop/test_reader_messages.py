"""Reader messages from the probe rerun (issue 30) that did not name the real cause: a truncated zip called "not a
zip archive", a title line above a screening file's header, an undecodable byte placed nowhere."""

from __future__ import annotations

import io
import zipfile

import pytest

from tarsim.data import read_qrels
from tarsim.errors import InputError
from tarsim.interop.asreview_project import read_asreview_project
from tarsim.interop.screening import read_screening_file

CUT = "damaged or truncated zip archive: its central directory (at the end of the file) is missing"


def cut_zip(path, member: str) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, "x" * 5000)
    path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])


def test_a_truncated_project_or_workbook_is_called_damaged(tmp_path):
    """A download cut short was "not an ASReview project file (not a zip archive)"."""
    project, workbook = tmp_path / "p.asreview", tmp_path / "set.xlsx"
    cut_zip(project, "project.json")
    cut_zip(workbook, "xl/workbook.xml")
    with pytest.raises(InputError) as caught:
        read_asreview_project(project)
    assert str(caught.value) == f"{project}: {CUT}"
    with pytest.raises(InputError) as caught:
        read_screening_file(workbook)
    assert str(caught.value) == f"{workbook}: cannot read as an Excel .xlsx workbook: {CUT}"


def test_a_title_above_the_header_is_named(tmp_path):
    csv_file = tmp_path / "set.csv"
    csv_file.write_text("My export of 2024\ntitle,abstract,included\na,b,1\n")
    with pytest.raises(InputError) as caught:
        read_screening_file(csv_file)
    assert str(caught.value) == (
        f"{csv_file}:2: more fields than the 1 header columns (it holds the label column 'included': the header must "
        "come first (delete what is above it))"
    )
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    for row in (["Export", "note"], ["title", "abstract", "Included"], ["a", "b", 1]):
        book.active.append(row)
    workbook = tmp_path / "set.xlsx"
    book.save(workbook)
    with pytest.raises(InputError) as caught:
        read_screening_file(workbook)
    assert str(caught.value).endswith(
        "header is Export, note; sheet row 2 holds the label column 'Included': the header must come first (delete "
        "what is above it)"
    )


def test_an_undecodable_byte_is_placed_in_its_line(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_bytes(b"t1 0 d1 1\nt1 0 d\x852 0\n")  # NEL in Latin-1
    with pytest.raises(InputError) as caught:
        read_qrels(path)
    assert str(caught.value) == f"{path}:2: undecodable bytes (not UTF-8) at column 7: b'\\x85'; save the file as UTF-8"


def test_a_workbook_member_that_does_not_inflate_is_named(tmp_path):
    """Was 'cannot read as an Excel .xlsx workbook: Error -3 while decompressing data ...', naming no member."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(["title", "abstract", "label_included"])
    for row in range(400):
        sheet.append([f"title {row} {row * 7919 % 104729}", f"abstract {row * 31337 % 65521} words", row % 2])
    path = tmp_path / "s.xlsx"
    book.save(path)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("xl/worksheets/sheet1.xml")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)  # the member's deflate data
    for offset in range(start + 40, start + 60):  # damage its compressed bytes
        data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"s\.xlsx: damaged workbook: member 'xl/worksheets/sheet1\.xml': "):
        read_screening_file(path)
