"""Review files and outputs that are no regular file are named for what they are (issue 30): a FIFO, a symlink to
/dev/zero, a symlink loop or a symlink to nothing that looks like a review (`*.jsonl`, `*.asreview`, `*.txt`) inside a
folder given to `stop`, `metrics`, `plot`, `compare` or `report` is refused in one line (it was skipped without a
word, the tables short of a run), and given by name it was called "no such ledger file or directory"; `report`
and `stop --out` on a symlink loop gave a traceback or "File exists"; `data import` named its hidden temporary
folder; `cache info` left a FIFO out without a word. Every command runs in-process under a timeout guard: none may
block on a FIFO."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest

import ledger_factory
import tarsim.data.export
from fifo_guard import finishes
from tarsim.cli import main

SECONDS = 20
KINDS = ("fifo", "zero", "loop", "broken")
SAID = {  # what each kind is called after `PATH: `, written out here (not taken from the code under test)
    "fifo": "a named pipe (FIFO), not a regular file",
    "zero": "a symlink to /dev/zero, a character device, not a regular file",
    "loop": "a symlink loop (a symlink that leads back to itself)",
    "broken": "a symlink to /nonexistent/ledger.jsonl, which does not exist",
}
COMMANDS = {  # how each command is given a folder (or a file) of reviews
    "stop": lambda where, tmp: ["stop", where, "--rule", "knee"],
    "metrics": lambda where, tmp: ["metrics", where],
    "plot": lambda where, tmp: ["plot", where, "--out", str(tmp / "figure.png")],
    "compare": lambda where, tmp: ["compare", where, "--baseline", "relevance"],
    "report --html": lambda where, tmp: ["report", where, "--html", str(tmp / "page.html")],
}


def make(kind: str, path: Path) -> Path:
    """A file of this kind at `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "loop":
        path.symlink_to(path.name)
    else:
        path.symlink_to("/nonexistent/ledger.jsonl")
    return path


def run(argv: list[str], capsys, fifos: tuple[Path, ...] = (), stream: str = "err") -> tuple[int, str]:
    """main(argv)'s status and what it wrote to `stream` (err or out); fails when it is still running after SECONDS
    (a reader blocked on one of `fifos` is then released: opened for writing and closed)."""
    capsys.readouterr()
    status = finishes(lambda: main(argv), fifos, SECONDS, what=f"tarsim {' '.join(argv)}")
    return status, getattr(capsys.readouterr(), stream)  # type: ignore[return-value]


@pytest.fixture
def out(tmp_path) -> Path:
    """A review folder of two complete (hand-built) ledgers."""
    for topic in ("T1", "T2"):
        path = tmp_path / "out" / "ledgers" / f"{topic}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(ledger_factory.ledger_lines([1, 0, 1, 0], topic=topic)) + "\n", encoding="utf-8")
    return tmp_path / "out"


@pytest.mark.parametrize("command", ["metrics", "compare"])
def test_the_folder_alone_is_read(out, tmp_path, capsys, command):  # the refusals below are the bad file's
    status, err = run(COMMANDS[command](str(out), tmp_path), capsys)
    assert (status, err) == (0, "")


PLACES = ("ledgers/T9.jsonl", "sub/T9.asreview", "sub/T9.order.txt")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    ("command", "where"),
    [*((command, where) for command in COMMANDS for where in PLACES), ("report", PLACES[0])],  # report: ledgers/ only
)
def test_a_bad_review_file_inside_a_folder_is_refused_in_one_line(out, tmp_path, capsys, command, kind, where):
    bad = make(kind, out / where)
    argv = ["report", str(out)] if command == "report" else COMMANDS[command](str(out), tmp_path)
    assert run(argv, capsys, (bad,)) == (2, f"tarsim: error: {bad}: {SAID[kind]}\n")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_bad_review_file_given_by_name_is_named_for_what_it_is(out, tmp_path, capsys, command, kind):
    bad = make(kind, out / "ledgers" / "T9.jsonl")  # was "no such ledger file or directory"
    assert run(COMMANDS[command](str(bad), tmp_path), capsys, (bad,)) == (2, f"tarsim: error: {bad}: {SAID[kind]}\n")


def test_a_missing_review_file_is_still_called_missing(tmp_path, capsys):
    missing = tmp_path / "nothing.jsonl"
    assert run(["metrics", str(missing)], capsys) == (
        2,
        f"tarsim: error: {missing}: no such ledger file or directory\n",
    )


OUT_SAID = {  # an OUT folder of `report` that is not one
    "fifo": "a named pipe (FIFO), not a folder",
    "zero": "a symlink to /dev/zero, a character device, not a folder",
    "loop": "a symlink loop (a symlink that leads back to itself)",
    "broken": "a symlink to /nonexistent/ledger.jsonl, which does not exist",
}


@pytest.mark.parametrize("write", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_report_on_an_out_that_is_no_folder_names_it(tmp_path, capsys, kind, write):
    bad = make(kind, tmp_path / "x")  # a loop gave a traceback, and "File exists" with --write
    status, err = run(["report", str(bad), *(["--write"] if write else [])], capsys, (bad,))
    assert (status, err) == (2, f"tarsim: error: {bad}: {OUT_SAID[kind]} (give a `tarsim simulate` output folder)\n")


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("fifo", "is a named pipe (FIFO), expected a folder to write into"),
        ("zero", "is a symlink to /dev/zero, a character device, expected a folder to write into"),
        ("loop", "{bad} is a symlink loop (it leads back to itself)"),
        ("broken", "{bad} is a symlink to /nonexistent/ledger.jsonl, which does not exist"),
    ],
)
def test_stop_out_that_cannot_be_a_folder_is_refused_before_any_work(out, tmp_path, capsys, kind, said):
    bad = make(kind, tmp_path / "x")  # a loop was "x: File exists", once the study was done
    status, err = run(["stop", str(out), "--rule", "knee", "--out", str(bad)], capsys, (bad,))
    assert (status, err) == (2, f"tarsim: error: --out {bad}: {said.format(bad=bad)}\n")


def test_stop_out_below_a_symlink_loop_names_the_loop(out, tmp_path, capsys):
    loop = make("loop", tmp_path / "x")
    status, err = run(["stop", str(out), "--rule", "knee", "--out", str(loop / "study")], capsys)
    assert (status, err) == (
        2,
        f"tarsim: error: --out {loop / 'study'}: {loop} is a symlink loop (it leads back to itself)\n",
    )


# ---- data import: the destination named, never the hidden temporary folder beside it -----------------------------
@pytest.fixture
def screening(tmp_path) -> Path:
    path = tmp_path / "s.csv"
    path.write_text("title,abstract,label_included\nA,x,1\nB,y,0\nC,z,0\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("fifo", "a named pipe (FIFO), not a folder"),
        ("loop", "a symlink loop (a symlink that leads back to itself)"),
        ("broken", "a symlink to /nonexistent/ledger.jsonl, which does not exist"),
    ],
)
def test_import_to_a_destination_that_cannot_be_a_folder_names_it(screening, tmp_path, capsys, kind, said):
    bad = make(kind, tmp_path / "dest")  # a loop or a link to nothing was `.dest.RANDOM.tmp: Not a directory`
    status, err = run(["data", "import", str(screening), str(bad)], capsys, (bad,))
    assert (status, err) == (2, f"tarsim: error: {bad}: {said}; choose a new destination\n")


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("fifo", "a named pipe (FIFO), not a folder"),
        ("loop", "a symlink loop (a symlink that leads back to itself)"),
    ],
)
def test_convert_to_a_destination_that_cannot_be_a_folder_names_it(tmp_path, capsys, kind, said):
    """Was "already exists and is not an empty folder" for a FIFO or a symlink loop."""
    source = tmp_path / "a.sgml"
    source.write_text("<DOC><DOCNO>D1</DOCNO><TEXT>x</TEXT></DOC>\n")
    bad = make(kind, tmp_path / "dest")
    status, err = run(["data", "convert", "trec", str(source), str(bad)], capsys, (bad,))
    assert (status, err) == (2, f"tarsim: error: {bad}: {said}; choose a new destination\n")


def test_import_below_a_file_names_the_file(screening, tmp_path, capsys):
    status, err = run(["data", "import", str(screening), str(screening / "dest")], capsys)  # was "File exists"
    said = f"{screening} (on its path) is a file, not a folder; choose a new destination"
    assert (status, err) == (2, f"tarsim: error: {screening / 'dest'}: {said}\n")


def test_import_that_fails_while_writing_names_the_destination(screening, tmp_path, capsys, monkeypatch):
    def disk_full(path, *args, **kwargs):  # the disk fills while the temporary folder is written
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(tarsim.data.export, "write_qrels", disk_full)
    dest = tmp_path / "dest"
    status, err = run(["data", "import", str(screening), str(dest)], capsys)
    assert (status, err) == (2, f"tarsim: error: {dest}: cannot write the collection there: No space left on device\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.csv"]  # nothing half-written left


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc (Linux)")
def test_import_where_no_folder_can_be_made_names_the_destination(screening, capsys):
    dest = Path("/proc/tarsim-import-test")  # mkdtemp there fails: was `/proc/.tarsim-import-test.RANDOM.tmp: ...`
    status, err = run(["data", "import", str(screening), str(dest)], capsys)
    assert status == 2 and err.startswith(f"tarsim: error: {dest}: cannot write the collection there: ")
    assert ".tmp" not in err and err.count("\n") == 1


# ---- cache info ------------------------------------------------------------------------------------------------
def test_cache_info_names_a_fifo_and_a_link_to_dev_zero(tmp_path, capsys):
    cache = tmp_path / "cache"
    fifo = make("fifo", cache / "features-0123456789abcdef01234567-0123456789abcdef-docs-v3.npz")
    make("zero", cache / "tfidf-0123456789abcdef01234567-0123456789abcdef-v3.npz")
    status, out = run(["cache", "info", "--cache-dir", str(cache)], capsys, (fifo,), stream="out")
    listing = out.splitlines()
    assert status == 0 and listing[1].startswith("0 feature entries, 0 sentence store(s)")
    assert listing[2:] == [  # both were left out without a word
        "2 other file(s), not tarsim's (`cache clear` leaves them): "
        "features-0123456789abcdef01234567-0123456789abcdef-docs-v3.npz (a named pipe (FIFO), not a regular file); "
        "tfidf-0123456789abcdef01234567-0123456789abcdef-v3.npz (a symlink to /dev/zero; tarsim writes no symlink)"
    ]


@pytest.mark.parametrize("kind", ["fifo", "zero", "badjson", "array", "utf16"])
@pytest.mark.parametrize("write", [True, False], ids=["write", "read"])
def test_a_summary_json_that_is_no_json_object_never_hangs_or_tracebacks_report(out, capsys, kind, write):
    """`report --write` read OUT/summary.json with read_text: a FIFO blocked, /dev/zero filled memory, and invalid
    JSON, a JSON array or UTF-16 gave tracebacks. The tables come from the ledgers; the summary is rewritten."""
    summary = out / "summary.json"
    if kind in ("fifo", "zero"):
        make(kind, summary)
    else:
        text = {"badjson": '{"skipped": ', "array": "[1, 2]", "utf16": '{"skipped": {}}'}[kind]
        summary.write_bytes(text.encode("utf-16") if kind == "utf16" else text.encode())
    status, err = run(["report", str(out), *(["--write"] if write else [])], capsys, (summary,))
    if write and kind == "fifo":  # not written over (a device or a FIFO never is), refused before any write
        assert (status, err) == (2, f"tarsim: error: {summary}: a named pipe (FIFO), not a regular file: tarsim does "
                                    "not write over it\n")  # fmt: skip
        return
    assert status == 0 and "Traceback" not in err
    if write:
        assert err.startswith(f"tarsim: warning: {summary}: ") and len(err.splitlines()) == 1
        assert err.endswith(": the topics it recorded as skipped are not carried over\n")
        assert json.loads(summary.read_text(encoding="utf-8"))["skipped"] == {}  # rewritten whole, a regular file


def test_a_utf16_ledger_in_a_folder_is_named_not_skipped(out, tmp_path, capsys):
    """A ledger saved as UTF-16 beside other ledgers was not recognised as one and left out without a word."""
    other = tmp_path / "study" / "a" / "T9.jsonl"  # outside a `ledgers` folder: recognised by its first line
    other.parent.mkdir(parents=True)
    other.write_bytes((out / "ledgers" / "T1.jsonl").read_text(encoding="utf-8").encode("utf-16"))
    status, err = run(["metrics", str(out), str(tmp_path / "study")], capsys)
    assert (status, err) == (2, f"tarsim: error: {other}:1: the file is UTF-16-LE text with a byte order mark, "
                                "not UTF-8; save it as UTF-8\n")  # fmt: skip


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.parametrize("option", ["metrics", "compare", "plot", "report-html"])
def test_an_output_file_that_is_a_device_or_a_fifo_is_refused_before_any_work(out, tmp_path, capsys, kind, option):
    """`metrics --out /dev/full` turned the machine's /dev/full into a regular file; a FIFO was replaced too."""
    target = tmp_path / ("target.png" if option == "plot" else "target")
    if kind == "fifo":
        os.mkfifo(target)
    else:
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(target, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a /dev/null of our own
    argv = {
        "metrics": ["metrics", str(out), "--out", str(target)],
        "compare": ["compare", str(out), "--format", "json", "--out", str(target)],
        "plot": ["plot", str(out), "--out", str(target)],
        "report-html": ["report", str(out), "--html", str(target)],
    }[option]
    if option == "report-html":
        pytest.importorskip("altair")
    status, err = run(argv, capsys, (target,))
    flag = "--html" if option == "report-html" else "--out"
    what = "a named pipe (FIFO)" if kind == "fifo" else "a character device"
    assert (status, err) == (2, f"tarsim: error: {flag} {target}: {what}, not a regular file: tarsim does not "
                                "write over it\n")  # fmt: skip
    assert stat.S_ISFIFO(os.lstat(target).st_mode) if kind == "fifo" else stat.S_ISCHR(os.lstat(target).st_mode)


def test_atomic_write_never_replaces_a_device_made_after_the_check(tmp_path):
    from tarsim.data.atomic import atomic_write
    from tarsim.errors import InputError

    target = tmp_path / "t"
    os.mkfifo(target)
    with pytest.raises(InputError, match="a named pipe \\(FIFO\\), not a regular file"), atomic_write(target) as h:
        h.write("x")
    assert stat.S_ISFIFO(os.lstat(target).st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["t"]
