"""Only regular files, within limits (issue 30): a FIFO or a device given as any input is refused in one line at once
(before, a FIFO blocked forever and /dev/zero was read until memory ran out), and compressed inputs decompress to
no more than the cap of tarsim.data.limits (TARSIM_MAX_DECOMPRESSED, default max(1 GiB, 100 x the input's size))."""

from __future__ import annotations

import gzip
import io
import os
import signal
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tarsim.cli import main
from tarsim.data import read_collection, read_qrels, read_run, read_topics
from tarsim.data.limits import FLOOR, LIMIT_VARIABLE, decompression_limit
from tarsim.errors import ConfigError, InputError
from tarsim.interop.screening import read_screening_file
from tarsim.interop.trec import read_trec_documents, read_trec_topics

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from asreview_fixtures import write_project

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


class Blocked(BaseException):
    """Raised in a reader that blocks; a BaseException, so that no `except OSError` in a reader swallows it."""


@pytest.fixture(autouse=True)
def no_hang():
    """A reader that blocks fails the test after 10 s (and every second after) instead of hanging the run."""

    def blocked(_signum, _frame):
        raise Blocked("the reader blocked")

    previous = signal.signal(signal.SIGALRM, blocked)
    signal.setitimer(signal.ITIMER_REAL, 10, 1)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def _asreview(path: Path) -> object:
    from tarsim.interop.asreview_project import read_asreview_project

    return read_asreview_project(path)


READERS = {
    "qrels.txt": read_qrels,
    "topics.tsv": read_topics,
    "docs.jsonl": read_collection,
    "docs.jsonl.gz": read_collection,
    "run.txt": read_run,
    "set.csv": read_screening_file,
    "set.ris": read_screening_file,
    "set.xlsx": read_screening_file,
    "topics.trec": read_trec_topics,
    "disk.sgml": read_trec_documents,
    "project.asreview": _asreview,
}


@pytest.mark.parametrize("name", list(READERS))
def test_a_fifo_is_refused_at_once(tmp_path, name):
    path = tmp_path / name
    os.mkfifo(path)
    with pytest.raises(InputError) as caught:
        READERS[name](path)
    assert str(caught.value) == f"{path}: a named pipe (FIFO), not a regular file"


@pytest.mark.parametrize("name", list(READERS))
def test_a_link_to_dev_zero_is_refused(tmp_path, name):
    path = tmp_path / name
    path.symlink_to("/dev/zero")
    with pytest.raises(InputError, match="a symlink to /dev/zero, a character device, not a regular file"):
        READERS[name](path)


def test_a_fifo_in_a_trec_folder_is_refused_not_skipped(tmp_path):
    (tmp_path / "a.sgml").write_text("<DOC><DOCNO>D1</DOCNO><TEXT>x</TEXT></DOC>")
    os.mkfifo(tmp_path / "b.sgml")
    with pytest.raises(InputError, match=r"b\.sgml: a named pipe \(FIFO\)"):
        read_trec_documents(tmp_path)


def test_the_cli_refuses_a_fifo_in_one_line(tmp_path, capsys):
    path = tmp_path / "set.csv"
    os.mkfifo(path)
    assert main(["data", "import", str(path), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    refusal = f"{path}: a named pipe (FIFO), not a regular file"
    assert err == f"tarsim: error: {refusal}\n"
    assert not (tmp_path / "out").exists()


def test_the_default_cap_is_100_times_the_input_at_least_1_gib(monkeypatch):
    monkeypatch.delenv(LIMIT_VARIABLE, raising=False)
    assert decompression_limit(0) == FLOOR == 1 << 30
    assert decompression_limit(100 << 20) == 100 * (100 << 20)


@pytest.mark.parametrize(("value", "limit"), [("5000", 5000), ("4K", 4096), ("2G", 2 << 30), ("3MiB", 3 << 20)])
def test_the_cap_is_set_by_the_environment(monkeypatch, value, limit):
    monkeypatch.setenv(LIMIT_VARIABLE, value)
    assert decompression_limit(10) == limit


def test_a_bad_cap_setting_is_one_line(monkeypatch):
    monkeypatch.setenv(LIMIT_VARIABLE, "lots")
    with pytest.raises(ConfigError, match="TARSIM_MAX_DECOMPRESSED='lots' is not a size in bytes"):
        decompression_limit(10)


def _documents(count: int) -> bytes:
    return b"".join(b'{"docid": "d%d", "text": "%s"}\n' % (i, b"x" * 100) for i in range(count))


def test_a_gzip_collection_past_the_cap_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "docs.jsonl.gz"
    path.write_bytes(gzip.compress(_documents(100)))
    assert len(read_collection(path)) == 100
    monkeypatch.setenv(LIMIT_VARIABLE, "4K")
    with pytest.raises(InputError) as caught:
        read_collection(path)
    assert caught.value.problem == (
        "the gzip file decompresses to more than 4,096 bytes, the limit (set TARSIM_MAX_DECOMPRESSED=BYTES to raise it)"
    )


def test_a_gzip_sgml_file_past_the_cap_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "disk.gz"
    path.write_bytes(gzip.compress(b"<DOC><DOCNO>D1</DOCNO><TEXT>" + b"x" * 10000 + b"</TEXT></DOC>"))
    monkeypatch.setenv(LIMIT_VARIABLE, "4K")
    with pytest.raises(InputError, match="the gzip file decompresses to more than 4,096 bytes"):
        read_trec_documents(path)


def test_an_xlsx_past_the_cap_is_refused(tmp_path, monkeypatch):
    openpyxl = pytest.importorskip("openpyxl")
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.append(["title", "abstract", "included"])
    for index in range(200):
        sheet.append([f"title {index}", "x" * 200, index % 2])
    path = tmp_path / "set.xlsx"
    workbook.save(path)
    assert read_screening_file(path).read == 200
    monkeypatch.setenv(LIMIT_VARIABLE, "16K")
    with pytest.raises(InputError, match="the workbook decompresses to more than 16,384 bytes"):
        read_screening_file(path)


@pytest.mark.filterwarnings("ignore::tarsim.errors.InputWarning")
def test_an_asreview_project_past_the_cap_is_refused(tmp_path, monkeypatch):
    path = write_project(tmp_path / "p.asreview", [(i, i % 2) for i in range(50)], [(0, 0, None), (1, 1, "max")])
    assert len(_asreview(path).docids) == 2
    monkeypatch.setenv(LIMIT_VARIABLE, "1K")
    with pytest.raises(InputError, match="the zip archive decompresses to more than 1,024 bytes"):
        _asreview(path)


def test_tar_and_zip_collections_past_the_cap_are_refused(tmp_path, monkeypatch):
    body = b"y" * 5000
    archive = tmp_path / "corpus.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("docs/1.txt")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    zipped = tmp_path / "corpus.zip"
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive_zip:
        archive_zip.writestr("docs/1.txt", body)
    assert read_trec_documents(archive).docids == read_trec_documents(zipped).docids == ["1.txt"]
    monkeypatch.setenv(LIMIT_VARIABLE, "4K")
    with pytest.raises(InputError, match="the tar archive decompresses to more than 4,096 bytes"):
        read_trec_documents(archive)
    with pytest.raises(InputError, match="the zip archive decompresses to more than 4,096 bytes"):
        read_trec_documents(zipped)
