"""Every record counted (issue 30): no reader invents, drops or merges a record, and every refusal is one line naming
the file and the line. Each test here failed on the readers before (records split at Unicode line breaks, a RIS
record without TY dropped, two SGML documents merged, full-width digits read as scores, .asreview labels 2 or 'yes'
read as 0, `<num> Number: ` read as a topic named "Number:")."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.data import read_run
from tarsim.errors import InputError
from tarsim.interop.screening import read_screening_file
from tarsim.interop.trec import read_trec_documents, read_trec_topics

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from asreview_fixtures import write_project

UNICODE_BREAKS = ["\x85", "\u2028", "\u2029", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]
"""Characters str.splitlines breaks at that pandas and the csv module keep inside a field."""


def run_cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("delimiter", [",", "\t"])
@pytest.mark.parametrize("char", UNICODE_BREAKS, ids=[f"U+{ord(c):04X}" for c in UNICODE_BREAKS])
def test_a_unicode_line_break_inside_a_field_is_part_of_the_field(tmp_path, char, delimiter):
    path = tmp_path / ("set.csv" if delimiter == "," else "set.tsv")
    rows = [
        ["title", "abstract", "label_included"],
        ["one", f"before{char}0{delimiter}1{delimiter}after", "0"],  # unquoted: a made-up record if split here
        ["two", "plain", "1"],
    ]
    if delimiter == ",":
        rows[1][1] = f'"{rows[1][1]}"'  # a comma inside must be quoted; the break character is not quoted away
    else:
        rows[1][1] = f"before{char}after"
    path.write_text("".join(delimiter.join(row) + "\n" for row in rows), encoding="utf-8", newline="")
    screening = read_screening_file(path)
    assert screening.collection.docids == ["0", "1"]
    assert screening.read == 2
    assert char in screening.collection.get("0").text
    assert screening.qrels[screening.topic] == {"0": 0, "1": 1}


def test_unlabelled_skip_keeps_labelled_records_after_a_line_break_character(tmp_path):
    path = tmp_path / "set.csv"
    path.write_text("title,abstract,label_included\na,x\u2028y,1\nb,z,\nc,w,0\n", encoding="utf-8")
    screening = read_screening_file(path, unlabelled="skip")
    assert screening.collection.docids == ["0", "2"]
    assert screening.skipped == (1,)
    assert screening.read == 3


def test_a_ris_record_without_ty_is_refused_naming_its_line(tmp_path):
    path = tmp_path / "set.ris"
    path.write_text(
        "TY  - JOUR\nTI  - first\nN1  - ASReview_relevant\nER  - \n\n"
        "TI  - no type line\nN1  - ASReview_irrelevant\nER  - \n\n"
        "TY  - JOUR\nTI  - third\nN1  - ASReview_irrelevant\nER  - \n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    assert caught.value.line == 6
    assert "outside a record" in caught.value.problem and "TY" in caught.value.problem


def test_a_ris_field_holding_a_unicode_line_break_stays_one_field(tmp_path):
    """(A line break followed by a tag, `one\u2028TY  - JOUR`, is refused: tests/interop/test_reader_causes.py.)"""
    path = tmp_path / "set.ris"
    path.write_text(
        "TY  - JOUR\r\nTI  - one\u2028ty JOUR\r\nAB  - a\x85b\r\nN1  - ASReview_relevant\r\nER  - \r\n"
        "TY  - JOUR\rTI  - two\rN1  - ASReview_irrelevant\rER  - \r",
        encoding="utf-8",
        newline="",
    )
    screening = read_screening_file(path)
    assert [document.title for document in screening.collection] == ["one\u2028ty JOUR", "two"]
    assert screening.read == 2


SGML_MISSING_END = (
    "<DOC>\n<DOCNO> D1 </DOCNO>\n<TEXT>one</TEXT>\n\n<DOC>\n<DOCNO> D2 </DOCNO>\n<TEXT>two</TEXT>\n</DOC>\n"
)
SGML_NESTED = "<DOC>\n<DOCNO> D1 </DOCNO>\n<TEXT>one\n<DOC>\n<DOCNO> D2 </DOCNO>two</TEXT>\n</DOC>\n</DOC>\n"
SGML_UNCLOSED = "<DOC>\n<DOCNO> D1 </DOCNO>\n<TEXT>one</TEXT>\n</DOC>\n<DOC>\n<DOCNO> D2 </DOCNO>\n"
SGML_STRAY_END = "<DOC>\n<DOCNO> D1 </DOCNO>\n</DOC>\n</DOC>\n"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        (SGML_MISSING_END, 5, "<DOC> inside the <DOC> of line 1"),
        (SGML_NESTED, 4, "<DOC> inside the <DOC> of line 1 (its </DOC> is missing)"),
        (SGML_UNCLOSED, 5, "<DOC> without a </DOC>"),
        (SGML_STRAY_END, 4, "</DOC> without a <DOC>"),
    ],
    ids=["missing-end", "nested", "unclosed", "stray-end"],
)
def test_sgml_documents_are_counted_by_doc_balance(tmp_path, text, line, fragment):
    path = tmp_path / "disk.sgml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        read_trec_documents(path)
    assert str(caught.value).startswith(f"{path}:{line}: ") and fragment in caught.value.problem


@pytest.mark.parametrize("score", ["\uff11\uff12", "\u0661\u0662", "1\uff12"])
def test_a_run_score_in_full_width_or_other_digits_is_refused(tmp_path, capsys, score):
    run = tmp_path / "run.txt"
    run.write_text(f"T1 Q0 d1 1 {score} tag\nT1 Q0 d2 2 0.5 tag\n", encoding="utf-8")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("T1 0 d1 1\nT1 0 d2 0\n")
    with pytest.raises(InputError, match="score is not a number"):
        read_run(run)
    code, err = run_cli(capsys, "evaluate", str(qrels), str(run))
    assert code == 2 and err.count("\n") == 1
    assert f"{run}:1: score is not a number" in err


def test_a_run_rank_in_full_width_digits_is_refused(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("T1 Q0 d1 \uff11 2.0 tag\n", encoding="utf-8")
    with pytest.raises(InputError, match="rank is not an integer"):
        read_run(run)


@pytest.mark.filterwarnings("ignore::tarsim.errors.InputWarning")
@pytest.mark.parametrize("label", [2, "yes", -1])
def test_an_asreview_label_other_than_0_or_1_is_refused_naming_the_record(tmp_path, label):
    from tarsim.interop.asreview_project import read_asreview_project

    path = write_project(tmp_path / "p.asreview", [(0, 1), (1, 0), (2, 1)], [(0, 1, None), (2, label, "max")])
    with pytest.raises(InputError) as caught:
        read_asreview_project(path)
    assert f"record 2 is labelled {label!r}, not 0 or 1" in caught.value.problem


@pytest.mark.filterwarnings("ignore::tarsim.errors.InputWarning")
def test_an_asreview_included_value_other_than_0_or_1_is_refused(tmp_path):
    from tarsim.interop.asreview_project import read_asreview_project

    path = write_project(tmp_path / "p.asreview", [(0, 1), (1, 2)], [(0, 1, None), (1, 0, "max")])
    with pytest.raises(InputError, match="record 1 has included=2"):
        read_asreview_project(path)


def test_num_with_the_number_label_but_no_number_is_refused(tmp_path):
    path = tmp_path / "topics.txt"
    path.write_text("<top>\n<num> Number: 301\n<title> Oil\n</top>\n\n<top>\n<num> Number: \n<title> Wheat\n</top>\n")
    with pytest.raises(InputError) as caught:
        read_trec_topics(path)
    assert caught.value.line == 6 and "<num> without a topic number" in caught.value.problem


def test_num_forms_give_the_number(tmp_path):
    path = tmp_path / "topics.txt"
    path.write_text(
        "<top><num>Number:301<title>a</top><top><num> 302 <title>b</top><top><num> number: 303\n<title>c</top>"
    )
    assert read_trec_topics(path) == {"301": "a", "302": "b", "303": "c"}


def test_import_prints_and_records_the_counts_read_and_kept(tmp_path, capsys):
    source = tmp_path / "set.csv"
    source.write_text("title,abstract,label_included\na,x,1\nb,y,\nc,z,0\n")
    destination = tmp_path / "out"
    code, err = run_cli(capsys, "data", "import", str(source), str(destination), "--unlabelled", "skip")
    assert code == 0, err
    assert "3 records read, 2 kept" in err
    manifest = json.loads((destination / "manifest.json").read_text())
    assert manifest["records_read"] == 3 and manifest["records_kept"] == 2
    assert manifest["unlabelled_left_out"] == [{"record_id": "1", "line": 3}] and manifest["source"] == "set.csv"


def test_records_left_out_and_bad_labels_are_named_by_record_id(tmp_path, capsys):
    """The warning and the manifest of --unlabelled skip, and the label errors, name a record by its record_id and
    line (they printed its row number from 0, which users cannot find in a file with record ids)."""
    source = tmp_path / "set.csv"
    source.write_text("record_id,title,abstract,label_included\nR7,a,x,1\nR3,b,y,\nR9,c,z,0\n\nR1,d,w,\n")
    destination = tmp_path / "out"
    code, err = run_cli(capsys, "data", "import", str(source), str(destination), "--unlabelled", "skip")
    assert code == 0, err
    assert f"{source}: 2 unlabelled record(s) left out (--unlabelled skip): record_id 'R3' (line 3), record_id " in err
    assert "'R1' (line 6)" in err
    manifest = json.loads((destination / "manifest.json").read_text())
    assert manifest["unlabelled_left_out"] == [{"record_id": "R3", "line": 3}, {"record_id": "R1", "line": 6}]
    code, err = run_cli(capsys, "data", "import", str(source), str(tmp_path / "other"))
    assert code == 2
    assert err == (
        f"tarsim: error: {source}:3: record_id 'R3' has no label (empty label; leave such records out: --unlabelled "
        'skip, in a sweep unlabelled = "skip" in its [[collections]])\n'
    )
    source.write_text("record_id,title,abstract,label_included\nR7,a,x,1\nR3,b,y,2\n")
    code, err = run_cli(capsys, "data", "import", str(source), str(tmp_path / "other"))
    assert code == 2 and err.startswith(f"tarsim: error: {source}:3: record_id 'R3': label_included is not 0 or 1: '2'")
    source.write_text("record_id,title,abstract,label_included\nR7,a,x,1\nR3,b,y,0\nR7,c,z,1\n")
    code, err = run_cli(capsys, "data", "import", str(source), str(tmp_path / "other"))
    assert code == 2 and err == f"tarsim: error: {source}:4: duplicate record_id 'R7' (first on line 2)\n"


def test_xlsx_records_left_out_are_named_by_record_id_and_sheet_row(tmp_path, capsys):
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    for row in (["record_id", "title", "label_included"], ["A", "a", 1], [None], ["B", "b", None]):
        book.active.append(row)
    source = tmp_path / "set.xlsx"
    book.save(source)
    code, err = run_cli(capsys, "data", "import", str(source), str(tmp_path / "out"), "--unlabelled", "skip")
    assert code == 0 and "left out (--unlabelled skip): record_id 'B' (sheet row 4)" in err
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["unlabelled_left_out"] == [{"record_id": "B", "sheet_row": 4}]


def test_convert_prints_the_counts_read_and_kept(tmp_path, capsys):
    source = tmp_path / "disk.sgml"
    source.write_text("<DOC><DOCNO>D1</DOCNO><TEXT>one</TEXT></DOC>\n<DOC><DOCNO>D2</DOCNO><TEXT>two</TEXT></DOC>\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("301 0 D1 1\n301 0 D2 0\n")
    topics = tmp_path / "topics.txt"
    topics.write_text("<top><num> Number: 301 <title> one</top>")
    code, err = run_cli(
        capsys,
        "data",
        "convert",
        "trec",
        str(source),
        str(tmp_path / "out"),
        "--qrels",
        str(qrels),
        "--topics",
        str(topics),
    )
    assert code == 0, err
    assert "2 records read, 2 kept" in err


def test_an_archive_inside_a_trec_folder_is_refused_not_read_as_a_document(tmp_path):
    """Found by the probe rerun: a zip inside a folder became one document of raw bytes (its 400 <DOC>s dropped)."""
    import zipfile

    from tarsim.errors import InputError
    from tarsim.interop.trec import read_trec_documents

    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.sgml").write_text("<DOC>\n<DOCNO>D1</DOCNO>\n<TEXT>hello world</TEXT>\n</DOC>\n", encoding="utf-8")
    with zipfile.ZipFile(folder / "full.zip", "w") as archive:
        archive.writestr("x.sgml", "<DOC>\n<DOCNO>D2</DOCNO>\n<TEXT>hi</TEXT>\n</DOC>\n")
    with pytest.raises(InputError, match=r"full\.zip: a zip archive, not a text file"):
        read_trec_documents(folder)
    (folder / "full.zip").unlink()
    (folder / "blob.bin").write_bytes(b"abc\x00def")
    with pytest.raises(InputError, match=r"blob\.bin: binary data"):
        read_trec_documents(folder)
