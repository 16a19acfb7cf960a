"""Every archive and compression error in one line naming the file (issue 30), and messages that name the real
cause: encrypted and Deflate64 members of an .asreview (tracebacks before), a bad CRC told apart from a file that is
no zip archive, a truncated gzip or tar.gz given to `data convert trec` (EOFError before), gzip's CRC failure with
the file's name, UTF-16/32 text without a byte order mark (read before as a header `r e c o r d _ i d`), and an
.xlsx whose header is in row 2 (called "empty file" before)."""

from __future__ import annotations

import gzip
import io
import struct
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.errors import InputError
from tarsim.interop.screening import read_screening_file
from tarsim.interop.trec import read_trec_documents

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from asreview_fixtures import write_project

SGML = "".join(f"<DOC>\n<DOCNO> D{i} </DOCNO>\n<TEXT>\nText of document {i}.\n</TEXT>\n</DOC>\n" for i in range(200))


def read_project(path: Path):
    from tarsim.interop.asreview_project import read_asreview_project

    return read_asreview_project(path)


def patch_zip(path: Path, member: str, *, flags: int | None = None, method: int | None = None, crc: int | None = None):
    """Rewrite a member's flag bits, compression method or CRC in both its local and its central directory header."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        local = archive.getinfo(member).header_offset
    central = [
        at
        for at in range(len(data) - 46)
        if data[at : at + 4] == b"PK\x01\x02"
        and data[at + 46 : at + 46 + struct.unpack_from("<H", data, at + 28)[0]] == member.encode()
    ]
    for header, (flag_at, method_at, crc_at) in [(local, (6, 8, 14))] + [(at, (8, 10, 16)) for at in central]:
        if flags is not None:
            struct.pack_into("<H", data, header + flag_at, struct.unpack_from("<H", data, header + flag_at)[0] | flags)
        if method is not None:
            struct.pack_into("<H", data, header + method_at, method)
        if crc is not None:
            struct.pack_into("<I", data, header + crc_at, crc)
    path.write_bytes(bytes(data))
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    return write_project(tmp_path / "p.asreview", [(0, 1), (1, 0), (2, 1)], [(0, 1, None), (1, 0, "max")])


pytestmark = pytest.mark.filterwarnings("ignore::tarsim.errors.InputWarning")


def test_an_encrypted_member_of_an_asreview_project_is_one_line(project):
    patch_zip(project, "results.db", flags=0x1)
    with pytest.raises(InputError) as caught:
        read_project(project)
    assert str(caught.value) == f"{project}: zip member 'results.db' is encrypted; tarsim reads no encrypted zip"


def test_a_deflate64_member_of_an_asreview_project_is_one_line(project):
    patch_zip(project, "project.json", method=9)
    with pytest.raises(InputError) as caught:
        read_project(project)
    assert caught.value.problem.startswith("zip member 'project.json' is compressed with Deflate64, which tarsim")


def test_a_bad_crc_is_told_apart_from_a_file_that_is_no_zip(project, tmp_path):
    patch_zip(project, "results.db", crc=0x12345678)
    with pytest.raises(InputError) as caught:
        read_project(project)
    assert caught.value.problem.startswith("damaged zip archive: member 'results.db': Bad CRC-32")
    other = tmp_path / "other.asreview"
    other.write_bytes(b"not a zip at all")
    with pytest.raises(InputError, match=r"not an ASReview project file \(not a zip archive\)"):
        read_project(other)


def _trec_files(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("301 0 D1 1\n301 0 D2 0\n")
    topics = tmp_path / "topics.txt"
    topics.write_text("<top><num> Number: 301 <title> oil</top>")
    return qrels, topics


def _convert(capsys, tmp_path: Path, source: Path) -> tuple[int, str]:
    qrels, topics = _trec_files(tmp_path)
    options = ["--qrels", str(qrels), "--topics", str(topics)]
    code = main(["data", "convert", "trec", str(source), str(tmp_path / "out"), *options])
    return code, capsys.readouterr().err


def test_a_truncated_gzip_given_to_convert_trec_is_one_line(tmp_path, capsys):
    source = tmp_path / "disk.gz"
    source.write_bytes(gzip.compress(SGML.encode())[:-20])
    code, err = _convert(capsys, tmp_path, source)
    assert code == 2
    assert err == f"tarsim: error: {source}: truncated gzip file (it ends before its end marker)\n"


def test_a_truncated_tar_gz_given_to_convert_trec_is_one_line(tmp_path, capsys):
    body = SGML.encode() * 20
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("disk/fr94.sgml")
        info.size = len(body)
        archive.addfile(info, io.BytesIO(body))
    source = tmp_path / "disk.tar.gz"
    source.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    code, err = _convert(capsys, tmp_path, source)
    assert code == 2 and err.count("\n") == 1
    assert err.startswith(f"tarsim: error: {source}: ") and "truncated" in err


def test_a_gzip_crc_failure_names_the_file(tmp_path):
    data = bytearray(gzip.compress(SGML.encode()))
    data[-8:-4] = b"\0\0\0\0"  # the CRC-32 of the trailer
    source = tmp_path / "disk.gz"
    source.write_bytes(bytes(data))
    with pytest.raises(InputError) as caught:
        read_trec_documents(source)
    assert str(caught.value).startswith(f"{source}: damaged gzip file: CRC check failed")


CSV = "record_id,title,abstract,label_included\n0,a,b,1\n1,c,d,0\n"


@pytest.mark.parametrize(
    ("codec", "named"),
    [
        ("utf-16-le", "UTF-16-LE without a byte order mark"),
        ("utf-16-be", "UTF-16-BE without a byte order mark"),
        ("utf-32-le", "UTF-32-LE without a byte order mark"),
        ("utf-32-be", "UTF-32-BE without a byte order mark"),
        ("utf-16", "UTF-16-LE with a byte order mark"),
        ("utf-32", "UTF-32-LE with a byte order mark"),
    ],
)
@pytest.mark.parametrize("suffix", [".csv", ".ris"])
def test_utf16_and_utf32_text_is_named(tmp_path, codec, named, suffix):
    path = tmp_path / f"set{suffix}"
    text = CSV if suffix == ".csv" else "TY  - JOUR\nTI  - a\nN1  - ASReview_relevant\nER  - \n"
    path.write_bytes(text.encode(codec))
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    assert str(caught.value) == f"{path}:1: the file is {named.replace(' ', ' text ', 1)}, not UTF-8; save it as UTF-8"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="the csv module of Python 3.10 refuses a NUL")
def test_utf8_with_nul_in_a_field_is_no_utf16(tmp_path):
    path = tmp_path / "set.csv"
    path.write_text("title,abstract,label_included\na\0b,c\0d,1\n", encoding="utf-8")
    assert read_screening_file(path).collection[0].title == "a\0b"


def test_an_xlsx_header_in_row_2_is_named_as_such(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Records"
    sheet.append([])
    sheet.append(["title", "abstract", "included"])
    sheet.append(["a", "b", 1])
    path = tmp_path / "set.xlsx"
    workbook.save(path)
    with pytest.raises(InputError) as caught:
        read_screening_file(path)
    assert caught.value.problem == (
        "sheet 'Records': row 1 is empty and the first filled row is row 2; the header must be in row 1 "
        "(delete the rows above it)"
    )
