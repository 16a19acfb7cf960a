"""Qrels, runs, order files and the other line-by-line inputs name UTF-16/UTF-32 text and CR-only line ends in one
line (issue 30), as screening files name the encoding: a UTF-16 qrels file was reported as `relevance is not an
integer: '\\x001\\x00'` or `undecodable bytes at byte 0`, a CR-only order file as one line of six fields."""

from __future__ import annotations

import codecs

import pytest

from tarsim.data import read_qrels, read_run, read_topics
from tarsim.errors import InputError
from tarsim.interop.order import read_order

QRELS = "T1 0 d1 1\nT1 0 d2 0\n"
RUN = "T1 Q0 d1 1 2.5 tag\nT1 Q0 d2 2 1.5 tag\n"
ORDER = "d1 1\nd2 0\n"
TOPICS = "T1\tknee diet\nT2\tback pain\n"
READERS = [(read_qrels, QRELS), (read_run, RUN), (read_order, ORDER), (read_topics, TOPICS)]
ENCODINGS = [
    ("utf-16-le", b"", "UTF-16-LE text without a byte order mark"),
    ("utf-16-be", b"", "UTF-16-BE text without a byte order mark"),
    ("utf-16-le", codecs.BOM_UTF16_LE, "UTF-16-LE text with a byte order mark"),
    ("utf-32-le", b"", "UTF-32-LE text without a byte order mark"),
    ("utf-32-be", codecs.BOM_UTF32_BE, "UTF-32-BE text with a byte order mark"),
]


def refused(read, path) -> str:
    """The one-line InputError `read(path)` raises."""
    with pytest.raises(InputError) as caught:
        read(path)
    return str(caught.value)


@pytest.mark.parametrize(("read", "text"), READERS, ids=["qrels", "run", "order", "topics"])
@pytest.mark.parametrize(("codec", "mark", "named"), ENCODINGS, ids=[e[2] for e in ENCODINGS])
def test_wide_text_is_named(tmp_path, read, text, codec, mark, named):
    path = tmp_path / "T1.txt"
    path.write_bytes(mark + text.encode(codec))
    assert refused(read, path) == f"{path}:1: the file is {named}, not UTF-8; save it as UTF-8"


@pytest.mark.parametrize(("read", "text"), READERS, ids=["qrels", "run", "order", "topics"])
def test_cr_only_line_ends_are_named(tmp_path, read, text):
    path = tmp_path / "T1.txt"
    path.write_bytes(text.replace("\n", "\r").encode())
    assert refused(read, path) == (
        f"{path}:1: CR-only (old Mac) line ends: a carriage return (\\r) inside the line; save the file with \\n (or "
        "\\r\\n) line ends"
    )


@pytest.mark.parametrize(("read", "text"), READERS, ids=["qrels", "run", "order", "topics"])
def test_utf8_with_crlf_or_a_byte_order_mark_is_read(tmp_path, read, text):
    plain, other = tmp_path / "T1.txt", tmp_path / "T1.other.txt"
    plain.write_text(text, encoding="utf-8")
    other.write_bytes(codecs.BOM_UTF8 + text.replace("\n", "\r\n").encode())
    first, second = read(plain), read(other)
    assert getattr(first, "docids", first) == getattr(second, "docids", second)


def test_an_order_line_of_other_fields_says_what_it_found(tmp_path):
    path = tmp_path / "T1.txt"
    path.write_text("d1 1\fd2 0\n")  # a form feed is white space to str.split: four fields
    assert refused(read_order, path) == f"{path}:1: expected `docid label` or `docid label prior`, found 4 fields"


@pytest.mark.parametrize(("read", "text"), READERS, ids=["qrels", "run", "order", "topics"])
def test_a_nul_byte_is_refused_at_its_line(tmp_path, read, text):
    """A NUL became part of an id (`evaluate` invented a topic '\\x001', `simulate --topics` dropped T2)."""
    path = tmp_path / "T1.txt"
    lines = text.splitlines(keepends=True)
    lines[1] = lines[1].replace("d2", "d\x002").replace("T2", "T\x002")
    path.write_text("".join(lines), encoding="utf-8")
    assert refused(read, path) == f"{path}:2: NUL byte (binary data), not text"
