"""Screening-file findings of issue 30 left by the last probe round: a RIS tag hidden after a Unicode line break
(read silently as text), and messages that named a symptom (`no records (only a header)`, a tag outside a record,
`empty file`, expat's words) instead of the cause. Each message names the file, the line or row, and the cause."""

from __future__ import annotations

import zipfile

import pytest

from tarsim.cli import main
from tarsim.errors import InputError
from tarsim.interop.screening import read_screening_file

RIS_TAIL = (
    "AB  - abstract\nN1  - ASReview_relevant\nER  - \n\nTY  - JOUR\nTI  - two\nN1  - ASReview_irrelevant\nER  - \n"
)
BREAKS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1e"]


def refused(path, text: str, encoding: str = "utf-8") -> InputError:
    path.write_text(text, encoding=encoding, newline="")
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    return caught.value


# ---- 1. a line break hiding a tag ----------------------------------------------------------------------------------


@pytest.mark.parametrize("char", BREAKS)
def test_a_line_break_in_a_ty_line_is_refused_naming_the_hidden_tag(tmp_path, char):
    """`TY  - JOUR<U+2028>TI  - Hidden` was a record typed `JOUR<U+2028>TI  - Hidden` with no title (rispy and
    ASReview read it so), exit 0."""
    error = refused(tmp_path / "set.ris", f"TY  - JOUR{char}TI  - Hidden title\n" + RIS_TAIL)
    assert error.line == 1
    assert f"U+{ord(char):04X}" in error.problem
    assert "hiding the tag 'TI'" in error.problem
    assert "lines end only at \\r or \\n" in error.problem


def test_a_ty_value_that_is_no_plain_code_is_refused(tmp_path):
    """A tab in the type (no tag after it) is named too; a plain code with an ASCII space is still read."""
    error = refused(tmp_path / "set.ris", "TY  - JOUR\tX\n" + RIS_TAIL)
    assert (error.line, error.problem) == (
        1,
        "the TY value holds U+0009 (a control character) at column 11: a record's type is a plain code "
        "(JOUR, BOOK, ...)",
    )
    path = tmp_path / "spaced.ris"
    path.write_text("TY  - Journal Article\n" + RIS_TAIL, encoding="utf-8")
    assert read_screening_file(path).read == 2


@pytest.mark.parametrize("char", BREAKS)
def test_a_line_break_followed_by_a_tag_inside_a_field_is_refused(tmp_path, char):
    """`TI  - t<U+2028>AB  - hidden` was a title `t AB  - hidden` and no abstract, exit 0."""
    text = f"TY  - JOUR\nTI  - t1{char}AB  - hidden abstract\nN1  - ASReview_relevant\nER  - \n"
    error = refused(tmp_path / "set.ris", text + "\nTY  - JOUR\nTI  - two\nN1  - ASReview_irrelevant\nER  - \n")
    assert error.line == 2
    assert error.problem.startswith(f"U+{ord(char):04X} (")
    assert "at column 9 hides the tag 'AB' in the value of 'TI'" in error.problem


def test_a_line_break_inside_a_field_without_a_tag_after_it_is_text(tmp_path):
    path = tmp_path / "set.ris"
    path.write_text("TY  - JOUR\nTI  - t1\u2028ab - not a tag\n" + RIS_TAIL, encoding="utf-8")
    assert read_screening_file(path).collection[0].title == "t1\u2028ab - not a tag"


# ---- 2. lower-case or indented tags --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "shown", "meant"),
    [
        ("ty  - JOUR\nTI  - t\nN1  - ASReview_relevant\nER  - \n", 1, "'ty  - JOUR'", "'TY  - '"),
        ("  TY  - JOUR\nTI  - t\nN1  - ASReview_relevant\nER  - \n", 1, "'  TY  - JOUR'", "'TY  - '"),
        ("TY  - JOUR\nTI  - t\nER  - \nTy  - JOUR\nTI  - u\nER  - \n", 4, "'Ty  - JOUR'", None),
        ("TY  - JOUR\nTI  - t\n\tAB  - abstract\nN1  - ASReview_relevant\nER  - \n", 3, "'\\tAB  - abstract'", "AB"),
    ],
    ids=["lower-case TY", "indented TY", "mixed-case second TY", "indented AB inside a record"],
)
def test_a_lower_case_or_indented_tag_is_named_at_its_line(tmp_path, text, line, shown, meant):
    """They were `RIS tag 'TI' outside a record` at the next line (or, inside a record, text of the tag before)."""
    error = refused(tmp_path / "set.ris", text)
    assert error.line == line
    assert error.problem.startswith(f"{shown} is not read as a tag: tags are two upper-case characters at the start")
    assert meant is None or meant in error.problem


# ---- 5. no \r or \n line ends --------------------------------------------------------------------------------------


@pytest.mark.parametrize("char", ["\x0b", "\x85", "\u2028"])
@pytest.mark.parametrize("name", ["set.csv", "set.tsv", "set.ris"])
def test_a_file_whose_only_line_ends_are_unicode_breaks_is_named(tmp_path, char, name):
    """A CSV was `no records (only a header)`, a RIS file `record has no 'ER  - ' line before the end of the file`."""
    if name.endswith(".ris"):
        text = char.join(["TY  - JOUR", "TI  - t", "N1  - ASReview_relevant", "ER  - ", ""])
    else:
        separator = "," if name.endswith(".csv") else "\t"
        text = char.join(separator.join(row) for row in (["title", "included"], ["t1", "1"], ["t2", "0"], []))
    error = refused(tmp_path / name, text)
    assert error.line == 1
    assert error.problem.startswith(f"the file has no \\r or \\n line ends but holds U+{ord(char):04X} (")
    assert "lines end only at \\r or \\n" in error.problem


@pytest.mark.parametrize("name", ["set.csv", "set.ris"])
def test_a_single_line_of_text_ended_by_a_newline_is_named_too(tmp_path, name):
    text = "TY  - JOUR\x85TI  - t\x85ER  - \n" if name.endswith(".ris") else "\ntitle,included\x85t1,1\x85t2,0\r\n"
    error = refused(tmp_path / name, text)
    assert error.line == (1 if name.endswith(".ris") else 2)
    assert error.problem.startswith("the file's only line of text holds U+0085 (next line, NEL) at column ")


# ---- 6. an unclosed quote in the CSV header ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "runs_on"),
    [
        ('title,"abstract,included\nt1,a1,1\nt2,a2,0\n', ", so the header runs on over 2 more line(s) to the end"),
        ('title,abstract,"included\n', " before the end"),
    ],
)
def test_an_unclosed_quote_in_the_header_is_named(tmp_path, text, runs_on):
    """It was `no records (only a header)`: the quote swallowed every record into the header."""
    error = refused(tmp_path / "set.csv", text)
    assert (error.line, error.problem) == (
        1,
        f"an unclosed quote in the header: a quote opened in it is not closed{runs_on} of the file",
    )


# ---- 7. damaged workbooks ------------------------------------------------------------------------------------------


def workbook(path, rows, title="data"):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.title = title
    for row in rows:
        book.active.append(row)
    book.save(path)
    return path


ROWS = [["record_id", "title", "abstract", "included"], ["R1", "t1", "a1", 1], ["R2", "t2", "a2", 0]]
SHEET = "xl/worksheets/sheet1.xml"


def rewritten(source, target, drop=(), change=None):
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for info in old.infolist():
            if info.filename not in drop:
                data = old.read(info.filename)
                new.writestr(info, change(data) if change and info.filename == SHEET else data)
    return target


def xlsx_error(path) -> str:
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    return str(caught.value)


def test_a_missing_workbook_part_is_named(tmp_path):
    """It was openpyxl's `"There is no item named 'xl/workbook.xml' in the archive"`."""
    path = rewritten(workbook(tmp_path / "base.xlsx", ROWS), tmp_path / "w.xlsx", drop=("xl/workbook.xml",))
    assert xlsx_error(path) == (
        f"{path}: cannot read as an Excel .xlsx workbook: its part 'xl/workbook.xml' is missing (a damaged or "
        "incomplete file; save it again from a spreadsheet program)"
    )


def test_a_missing_sheet_part_is_named(tmp_path):
    """openpyxl left the sheet out without a word: the workbook was `empty file (no header row in the workbook)`, and
    a second sheet's records would have been lost silently."""
    path = rewritten(workbook(tmp_path / "base.xlsx", ROWS), tmp_path / "w.xlsx", drop=(SHEET,))
    assert xlsx_error(path) == (
        f"{path}: sheet 'data' is missing: the workbook names it, but there is no part '{SHEET}' (a damaged or "
        "incomplete file; save it again from a spreadsheet program)"
    )


def test_an_empty_sheet_and_an_empty_sheet_part_are_named(tmp_path):
    """They were `empty file (no header row in the workbook)` and expat's `no element found: line 1, column 0`."""
    path = workbook(tmp_path / "empty.xlsx", [], title="blank")
    assert xlsx_error(path) == f"{path}: sheet 'blank' is empty (no filled cell), so no header row"
    path = rewritten(workbook(tmp_path / "base.xlsx", ROWS), tmp_path / "w.xlsx", change=lambda data: b"")
    assert xlsx_error(path) == (
        f"{path}: cannot read as an Excel .xlsx workbook: part '{SHEET}': empty (0 bytes), not XML"
    )


def test_a_nul_in_sheet_xml_is_named_with_its_sheet_and_row(tmp_path):
    """It was `not well-formed (invalid token): line 1, column 645`, no part, sheet or row named."""
    base = workbook(tmp_path / "base.xlsx", ROWS)
    path = rewritten(base, tmp_path / "w.xlsx", change=lambda data: data.replace(b"t2", b"t\x002"))
    message = xlsx_error(path)
    assert message.startswith(f"{path}: sheet 'data' (part '{SHEET}'), row 3: not well-formed (invalid token) at")
    assert message.endswith(": a NUL byte (binary data, or a damaged file)")


def test_a_number_of_too_many_digits_is_named_with_its_sheet_and_row(tmp_path):
    """It was Python's `Exceeds the limit (4300 digits) for integer string conversion ...` (the probe's cell held 30
    million digits)."""
    base = workbook(tmp_path / "base.xlsx", ROWS)
    digits = b"<v>" + b"9" * 5000 + b"</v>"
    path = rewritten(base, tmp_path / "w.xlsx", change=lambda data: data.replace(b"<v>0</v>", digits))
    message = xlsx_error(path)
    assert message.startswith(f"{path}: sheet 'data' (part '{SHEET}'), row 3: a number of more than 4300 digits")


def test_a_huge_number_as_record_id_or_label_is_named(tmp_path):
    """1e30 as a record_id became the docid 1000000000000000019884624838656 (float digits the file does not show), as
    a label the error showed those digits."""
    path = workbook(tmp_path / "ids.xlsx", [ROWS[0], [1e30, "t1", "a1", 1], [2, "t2", "a2", 0]])
    assert xlsx_error(path) == (
        f"{path}:2: sheet 'data', cell A2: record_id is the number 1e+30, too large to be an exact id (a spreadsheet "
        "number keeps 15 significant digits); store record ids as text"
    )
    path = workbook(tmp_path / "labels.xlsx", [ROWS[0], ["R1", "t1", "a1", 1e30], ["R2", "t2", "a2", 0]])
    assert xlsx_error(path) == f"{path}:2: sheet 'data', cell D2: the included label is the number 1e+30, not 0 or 1"


# ---- 8. a formula label without a value ----------------------------------------------------------------------------


def test_a_formula_label_without_a_cached_value_is_named(tmp_path):
    """openpyxl writes a formula without its value; read as an empty label it was `has no label`, or with
    --unlabelled skip a labelled record left out."""
    path = workbook(tmp_path / "f.xlsx", [ROWS[0], ["R1", "t1", "a1", "=1+0"], ["R2", "t2", "a2", 0]])
    assert xlsx_error(path) == (
        f"{path}:2: sheet 'data', cell D2: the included label is a formula without a cached value ('=1+0'); save the "
        "file in Excel (which stores each formula's value) or give the values"
    )
    with pytest.raises(InputError, match="formula without a cached value"):
        read_screening_file(path, unlabelled="skip")


def test_a_formula_without_any_stored_value_element_is_named(tmp_path):
    """No `<v>` at all is no stored value, also in a text (`t="str"`) cell."""
    base = workbook(tmp_path / "base.xlsx", ROWS)
    cell = b'<c r="D3" t="str"><f>A1</f></c>'
    path = rewritten(base, tmp_path / "w.xlsx", change=lambda d: d.replace(b'<c r="D3" t="n"><v>0</v></c>', cell))
    assert "cell D3: the included label is a formula without a cached value ('=A1')" in xlsx_error(path)


def test_a_formula_with_an_empty_string_value_is_an_empty_label(tmp_path):
    """Excel stores `""` (t="str", empty <v>) for a formula whose value is the empty string: no label, not refused."""
    base = workbook(tmp_path / "base.xlsx", ROWS)
    cell = b'<c r="D3" t="str"><f>IF(1,"","")</f><v></v></c>'
    path = rewritten(base, tmp_path / "w.xlsx", change=lambda d: d.replace(b'<c r="D3" t="n"><v>0</v></c>', cell))
    screening = read_screening_file(path, unlabelled="skip")
    assert [left.record_id for left in screening.left_out] == ["R2"]


def test_a_formula_in_a_csv_label_is_named(tmp_path):
    """`=1+0` was `not 0 or 1` like any typo."""
    error = refused(tmp_path / "set.csv", "title,abstract,included\nt1,a1,=1+0\nt2,a2,0\n")
    assert error.line == 2
    assert error.problem.startswith("record 0: included is a formula without a value, not 0 or 1: '=1+0'")


def test_the_command_prints_one_line_and_exits_2(tmp_path, capsys):
    path = tmp_path / "set.ris"
    path.write_text("TY  - JOUR\u2028TI  - Hidden title\n" + RIS_TAIL, encoding="utf-8")
    assert main(["data", "import", str(path), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"tarsim: error: {path}:1: the TY value holds U+2028")
    assert not (tmp_path / "out").exists()
