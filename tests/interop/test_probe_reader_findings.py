"""Reader findings of a hostile probe (issue 30): each input was read silently as something it is not, or refused
with a message naming the wrong problem."""

from __future__ import annotations

import codecs
import io
import tarfile
import warnings
import zipfile

import pytest

from tarsim.cli import main
from tarsim.errors import InputError, InputWarning
from tarsim.interop.screening import read_screening_file
from tarsim.interop.trec import read_trec_documents, read_trec_topics


@pytest.mark.parametrize(
    "digit", ["\uff11", "\u0661", "\uff10"], ids=["full-width 1", "arabic-indic 1", "full-width 0"]
)
def test_a_non_ascii_digit_label_is_refused(tmp_path, digit):
    """float() reads `１` and `١` as 1: the label was taken as included (qrels and runs refuse such digits)."""
    path = tmp_path / "review.csv"
    path.write_text(f"record_id,title,label_included\nR1,a,1\nR2,b,{digit}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:3: record_id 'R2': label_included is not 0 or 1: {digit!r}")
    assert "numbers are ASCII digits" in message


def test_two_docnos_in_one_doc_are_refused_at_the_second(tmp_path):
    """The first DOCNO was kept silently and the document of the second lost."""
    path = tmp_path / "docs.sgml"
    path.write_text("<DOC>\n<DOCNO> D1 </DOCNO>\n<DOCNO> D9 </DOCNO>\n<TEXT>a</TEXT>\n</DOC>\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_trec_documents(path)
    assert str(caught.value) == f"{path}:3: a second <DOCNO> ('D9') in the <DOC> of 'D1' (line 1)"


TOPICS = "<top>\n<num> Number: 301\n<title> knee diet\n</top>\n"
DOCS = "<DOC>\n<DOCNO> D1 </DOCNO>\n<TEXT>a</TEXT>\n</DOC>\n"


@pytest.mark.parametrize(
    ("codec", "mark", "named"),
    [
        ("utf-16-le", codecs.BOM_UTF16_LE, "UTF-16-LE text with a byte order mark"),
        ("utf-16-be", b"", "UTF-16-BE text without a byte order mark"),
        ("utf-32-le", b"", "UTF-32-LE text without a byte order mark"),
    ],
)
@pytest.mark.parametrize("kind", ["topics", "documents"])
def test_wide_topic_and_document_files_are_named(tmp_path, codec, mark, named, kind):
    """They were called `binary data (NUL bytes)`: the shared encoding check of tarsim.data.lines names them."""
    path = tmp_path / "file.txt"
    path.write_bytes(mark + (TOPICS if kind == "topics" else DOCS).encode(codec))
    with pytest.raises(InputError) as caught:
        read_trec_topics(path) if kind == "topics" else read_trec_documents(path)
    assert str(caught.value) == f"{path}:1: the file is {named}, not UTF-8; save it as UTF-8"


def test_cr_only_topic_file_is_refused_as_the_other_line_files(tmp_path):
    """docs/reliability.md says CR-only line files are refused; the TREC topic reader read them (rc 0)."""
    path = tmp_path / "topics.txt"
    path.write_bytes(TOPICS.replace("\n", "\r").encode())
    with pytest.raises(InputError) as caught:
        read_trec_topics(path)
    assert str(caught.value).startswith(f"{path}:1: CR-only (old Mac) line ends")
    path.write_bytes(TOPICS.replace("\n", "\r\n").encode())
    assert read_trec_topics(path) == {"301": "knee diet"}


def _zip_with_two(path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns "Duplicate name"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("a", DOCS)
            archive.writestr("a", DOCS.replace("D1", "D2"))


def _tar_with_two(path):
    with tarfile.open(path, "w:gz") as archive:
        for text in (DOCS, DOCS.replace("D1", "D2")):
            data = text.encode()
            info = tarfile.TarInfo("a")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize(("name", "write"), [("dup.zip", _zip_with_two), ("dup.tar.gz", _tar_with_two)])
def test_two_archive_members_of_one_name_are_named(tmp_path, name, write):
    """Reported as `duplicate DOCNO 'D1', first read at dup.zip:a:1` (the same place twice)."""
    path = tmp_path / name
    write(path)
    with pytest.raises(InputError) as caught:
        read_trec_documents(path)
    assert str(caught.value) == f"{path}: the archive holds two members named 'a'"


def test_a_symlink_loop_source_is_named(tmp_path):
    """`data convert trec LOOP DEST` said `no such file or directory`."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(InputError) as caught:
        read_trec_documents(loop)
    assert "symlink loop" in str(caught.value)


def test_convert_trec_names_a_symlink_loop_source(tmp_path, capsys):
    """`data convert trec LOOP DEST` said `no such file or directory` (datasets.converters checked first)."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    topics, qrels = tmp_path / "topics.txt", tmp_path / "qrels.txt"
    topics.write_text(TOPICS, encoding="utf-8")
    qrels.write_text("301 0 D1 1\n", encoding="utf-8")
    args = [
        "data",
        "convert",
        "trec",
        str(loop),
        str(tmp_path / "dest"),
        "--qrels",
        str(qrels),
        "--topics",
        str(topics),
    ]
    assert main(args) == 2
    assert capsys.readouterr().err == f"tarsim: error: {loop}: a symlink loop (a symlink that leads back to itself)\n"


def test_other_sheets_with_data_are_named_in_one_warning(tmp_path):
    """A second sheet of records was left out without a word (pandas and ASReview do the same)."""
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    first = book.active
    first.title = "records"
    for row in (["record_id", "title", "label_included"], ["R1", "a", 1], ["R2", "b", 0]):
        first.append(row)
    more = book.create_sheet("more")
    for row in (["record_id", "title", "label_included"], ["R3", "c", 1], ["R4", "d", 0], ["R5", "e", 0]):
        more.append(row)
    book.create_sheet("empty")
    path = tmp_path / "review.xlsx"
    book.save(path)
    with pytest.warns(InputWarning) as caught:
        screening = read_screening_file(path)
    assert len(screening.collection) == 2  # the chosen sheet is still the one read
    assert [str(w.message) for w in caught if "not read" in str(w.message)] == [
        f"{path}: sheet 'more' (4 filled rows) is not read: tarsim reads one sheet, 'records', the first whose row 1 "
        "names most of the screening columns"
    ]


def test_an_unclosed_quote_on_the_last_record_is_named(tmp_path):
    """It was `record_id 'R99' has no label (the line has 3 of the 4 header columns ...)`."""
    path = tmp_path / "review.csv"
    path.write_text('record_id,title,abstract,label_included\nR1,a,b,1\n"R99","t","abs\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    assert str(caught.value) == (
        f"{path}:3: 3 fields where the header has 4: a quote opened here is not closed (before the end of the file)"
    )


def test_a_last_record_with_a_stray_quote_is_not_called_unclosed(tmp_path):
    path = tmp_path / "review.csv"
    path.write_text('record_id,title,abstract,label_included\nR1,a,b,1\nR2,"t"x,b,0\n', encoding="utf-8")
    assert "not closed" not in _error_or_none(path)


def _error_or_none(path) -> str:
    try:
        read_screening_file(path)
    except InputError as error:
        return str(error)
    return ""


def test_a_nul_byte_in_a_screening_header_is_refused_at_its_line(tmp_path):
    """`ti\\0tle` named no column, so every title was silently empty (exit 0)."""
    from tarsim.interop.screening import read_screening_file

    path = tmp_path / "s.csv"
    path.write_bytes(b"record_id,ti\x00tle,abstract,label_included\nR1,t,a,1\nR2,u,b,0\n")
    with pytest.raises(InputError, match=r"s\.csv:1: a NUL byte in the header"):
        read_screening_file(path)
