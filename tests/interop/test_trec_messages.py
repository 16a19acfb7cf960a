"""TREC readers name the file, the line and the real cause (issue 30, the probe rerun's messages): an unclosed
<top>, a duplicate DOCNO, a truncated zip given as the source, a FIFO or link member in a tar."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from tarsim.errors import InputError, InputWarning
from tarsim.interop.trec import read_trec_documents, read_trec_topics

DOC = "<DOC>\n<DOCNO>{}</DOCNO>\n<TEXT>text of {}</TEXT>\n</DOC>\n"


def error(call, *args) -> str:
    with pytest.raises(InputError) as caught:
        call(*args)
    return str(caught.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<top>\n<num> Number: 401\n<title> alpha beta\n", ":1: <top> without a </top> before the end of the file"),
        (
            "<top>\n<num> 401\n<title> a\n</top>\n\n<top>\n<num> 402\n<title> b\n<top>\n<num> 403\n<title> c\n</top>\n",
            ":9: <top> inside the <top> of line 6 (its </top> is missing)",
        ),
        ("<top>\n<num> 401\n<title> a\n</top>\n</top>\n", ":5: </top> without a <top> before it"),
        (
            "<top><num> 401 <title> a </top>\n<top><num> 401 <title> b </top>\n",
            ":2: duplicate topic '401' (first at line 1)",
        ),
    ],
    ids=["unclosed", "nested", "stray", "duplicate"],
)
def test_topic_file_errors_name_the_line(tmp_path, text, expected):
    """An unclosed <top> was `no <top> topic found` (or, after a closed one, silently left out)."""
    path = tmp_path / "topics.txt"
    path.write_text(text)
    assert error(read_trec_topics, path) == f"{path}{expected}"


def test_a_duplicate_docno_names_both_places(tmp_path):
    """It named the folder only (`dupdocno: duplicate docid 'D1'`)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    (folder / "a").write_text(DOC.format("D1", 1) + DOC.format("D2", 2))
    (folder / "b").write_text(DOC.format("D3", 3) + DOC.format("D1", 4))
    assert error(read_trec_documents, folder) == f"{folder}/b:5: duplicate DOCNO 'D1', first read at {folder}/a:1"


def test_a_truncated_zip_source_is_called_damaged(tmp_path):
    """A zip cut before its central directory was `a zip archive, not a text file of documents: give an archive as
    the source itself`, which it was."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("d1", DOC.format("D1", 1) * 50)
    path = tmp_path / "docs.zip"
    path.write_bytes(buffer.getvalue()[:-30])
    assert error(read_trec_documents, path) == (
        f"{path}: damaged or truncated zip archive: its central directory (at the end of the file) is missing"
    )


@pytest.mark.parametrize(
    ("kind", "shown"),
    [
        (tarfile.FIFOTYPE, "a FIFO (named pipe)"),
        (tarfile.CHRTYPE, "a device"),
        (tarfile.SYMTYPE, "a symbolic link to 'docs/a'"),
    ],
)
def test_a_tar_member_other_than_a_file_is_named(tmp_path, kind, shown):
    """A FIFO member was skipped without a word (a record dropped, had it been a document)."""
    path = tmp_path / "docs.tar"
    with tarfile.open(path, "w") as archive:
        data = DOC.format("D1", 1).encode()
        info = tarfile.TarInfo("docs/a")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
        special = tarfile.TarInfo("docs/b")
        special.type = kind
        special.linkname = "docs/a" if kind == tarfile.SYMTYPE else ""
        archive.addfile(special)
    assert error(read_trec_documents, path) == (
        f"{path}: member 'docs/b' is {shown}, not a regular file: tarsim reads regular files only"
    )


def test_a_readme_beside_sgml_files_is_left_out_with_a_warning(tmp_path):
    """A disk's README became a document named README (a record the collection does not hold)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    (folder / "README").write_text("This disk holds the FT files.\n")
    (folder / "ft1").write_text(DOC.format("D1", 1) + DOC.format("D2", 2))
    with pytest.warns(InputWarning) as caught:
        collection = read_trec_documents(folder)
    assert collection.docids == ["D1", "D2"]
    assert [str(w.message) for w in caught] == [
        f"{folder}: 1 file(s) without <DOC> left out, the other files being SGML: {folder}/README"
    ]
    (folder / "ft1").unlink()
    assert read_trec_documents(folder).docids == ["README"]  # one document per file: every file is a document


def test_an_archive_in_a_folder_or_an_archive_is_named(tmp_path):
    """A tar.gz in a folder was `binary data (NUL bytes), not text, not a text file of documents: give an archive as
    the source itself (not inside a folder)`."""
    folder = tmp_path / "disk"
    folder.mkdir()
    (folder / "ft1").write_text(DOC.format("D1", 1))
    inner = io.BytesIO()
    with tarfile.open(fileobj=inner, mode="w:gz") as archive:
        data = DOC.format("D2", 2).encode()
        info = tarfile.TarInfo("d2")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    (folder / "more.tar.gz").write_bytes(inner.getvalue())
    assert error(read_trec_documents, folder) == (
        f"{folder}/more.tar.gz: a tar archive, not a text file of documents: extract it (or give it as the source)"
    )
