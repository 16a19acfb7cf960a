"""Outputs and ledgers (issue 10, items 1, 2, 5): one writer per output folder, ledger names every reader finds,
readers that refuse an unusable ledger naming the file, and a quiet exit on a closed pipe."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import ledger_factory
from conftest import lock_held_elsewhere
from tarsim.cli import main
from tarsim.data.ledger import iter_ledger_paths, ledger_from_lines, read_ledger
from tarsim.data.output_lock import LOCK_NAME, output_lock
from tarsim.errors import ConfigError, InputError
from tarsim.reporting.compare import ledger_paths
from tarsim.simulator.ledger import LedgerWriter
from tarsim.simulator.run import ledger_name
from tarsim.sweep.plan import RunSpec

SRC = str(Path(__file__).resolve().parents[2] / "src")
ENV = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}

SWEEP = """\
[sweep]
seeds = 1
policies = ["relevance"]
strategies = ["document/document"]

[[collections]]
path = "demo"
topics = ["T1"]
"""


# ---- 1. one writer per output folder ------------------------------------------------------------------------
@pytest.fixture
def holder(tmp_path):
    """Another process holding the lock of tmp_path/out (it waits until its stdin closes)."""
    out = tmp_path / "out"
    with lock_held_elsewhere(out) as process:
        yield out, process


def in_use(out: Path, pid: int) -> str:
    return f"tarsim: error: {out} is in use by another tarsim process (pid {pid})\n"


@pytest.mark.slow
@pytest.mark.slow  # a real `python -m tarsim` process: seconds of imports
def test_a_second_tarsim_simulate_process_stops_at_once(holder):
    out, process = holder
    second = subprocess.run(
        [sys.executable, "-m", "tarsim", "simulate", "--out", str(out)], capture_output=True, text=True, env=ENV
    )
    assert second.returncode == 2
    assert second.stderr == in_use(out, process.pid)
    assert sorted(p.name for p in out.iterdir()) == [LOCK_NAME]  # refused before any work: no cache, no ledger


@pytest.mark.slow
@pytest.mark.parametrize("command", ["simulate", "sweep", "report --write"])
def test_every_writing_command_is_refused_while_another_process_writes(holder, tmp_path, capsys, command):
    out, process = holder
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP, encoding="utf-8")
    argv = {
        "simulate": ["simulate", "--out", str(out)],
        "sweep": ["sweep", str(config), "--out", str(out)],
        "report --write": ["report", str(out), "--write"],
    }[command]
    assert main(argv) == 2
    assert capsys.readouterr().err == in_use(out, process.pid)


def test_python_api_and_sweep_runner_take_the_lock(holder, tmp_path):
    import tarsim
    from tarsim.sweep.config import load_sweep_config
    from tarsim.sweep.run import run_sweep

    out, process = holder
    with pytest.raises(ConfigError, match=rf"in use by another tarsim process \(pid {process.pid}\)"):
        tarsim.simulate(out=out, topic="T1")
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP, encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"in use by another tarsim process \(pid {process.pid}\)"):
        run_sweep(load_sweep_config(config), out)


def test_the_lock_is_released_when_its_holder_is_killed(holder):
    out, process = holder
    with pytest.raises(ConfigError), output_lock(out):
        pass
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert (out / LOCK_NAME).exists()  # left behind by the killed holder, with its pid in it
    with output_lock(out):
        assert (out / LOCK_NAME).read_text().strip() == str(os.getpid())
    assert not (out / LOCK_NAME).exists()


def test_another_thread_of_the_same_process_is_refused(tmp_path):
    import threading

    held, done = threading.Event(), threading.Event()

    def hold():
        with output_lock(tmp_path):
            held.set()
            done.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    try:
        assert held.wait(30)
        refused = pytest.raises(ConfigError, match=rf"in use by another tarsim process \(pid {os.getpid()}\)")
        with refused, output_lock(tmp_path):
            pass
    finally:
        done.set()
        thread.join()
    with output_lock(tmp_path):
        pass


def test_lock_is_reentrant_in_one_thread_and_leaves_no_empty_folder(tmp_path):
    out = tmp_path / "new" / "deeper" / "out"  # the parents it creates go too, not only the last folder
    with pytest.raises(RuntimeError), output_lock(out), output_lock(out):  # as simulate(), then review_topics()
        assert out.is_dir()
        (out / "ledgers").mkdir()  # an empty folder inside goes with it
        raise RuntimeError("the run failed before writing anything")
    assert list(tmp_path.iterdir()) == []
    mine = tmp_path / "mine"  # a folder of the user's, reached through a missing one: `missing/../mine`
    mine.mkdir()
    with pytest.raises(RuntimeError), output_lock(tmp_path / "missing" / ".." / "mine"):
        raise RuntimeError("the run failed before writing anything")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]  # it was deleted; the made `missing` goes
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="is not a directory"), output_lock(tmp_path / "file"):
        pass


def test_partial_ledgers_have_unique_names_and_readers_never_see_them(tmp_path):
    ledgers = tmp_path / "out" / "ledgers"
    ledgers.mkdir(parents=True)
    (ledgers / "done.jsonl").write_text("\n".join(ledger_factory.ledger_lines([1, 0, 1], topic="done")) + "\n")
    header = json.loads(ledger_factory.ledger_lines([1], topic="t")[0])
    header.pop("type"), header.pop("format")
    first = LedgerWriter(ledgers / "t.jsonl", header)
    second = LedgerWriter(ledgers / "t.jsonl", header)  # as a second process would
    partials = sorted(p.name for p in ledgers.iterdir() if p.name.endswith(".partial"))
    assert len(partials) == 2 and all(p.startswith(f".t.jsonl.{os.getpid()}.") for p in partials)
    assert [p.name for p in iter_ledger_paths(ledgers)] == ["done.jsonl"]
    assert ledger_paths([tmp_path]) == [ledgers / "done.jsonl"]
    first.finish({"reason": "test", "judgments": 0})
    second.abort()
    assert sorted(p.name for p in ledgers.iterdir()) == ["done.jsonl", "t.jsonl"]
    assert read_ledger(ledgers / "t.jsonl").complete


# ---- 2. ledger names every reader finds -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("topic", "name"),
    [
        ("T1", "T1.jsonl"),  # already safe: unchanged
        ("401.a_b-c+d", "401.a_b-c+d.jsonl"),
        ("a b/c", "a%20b%2Fc.jsonl"),
        (".hidden", "%2Ehidden.jsonl"),
        ("..", "%2E..jsonl"),
        ("../../evil", "%2E.%2F..%2Fevil.jsonl"),
        ("%2Ehidden", "%252Ehidden.jsonl"),  # a literal escape never collides with an escaped dot
        ("", "%.jsonl"),
    ],
)
def test_ledger_names(topic, name):
    assert ledger_name(topic) == name


def test_sweep_collections_in_a_dot_folder_get_visible_ledger_names():
    spec = RunSpec(".x", "T1", "relevance", "document/document", 0, 1)
    assert spec.ledger_file == "%2Ex__T1__relevance__document-document__seed0.jsonl"


def write_ledger(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def seen_by(reader: str, target: Path, capsys) -> int:
    """How many ledgers a reader used, from its own output."""
    capsys.readouterr()
    if reader == "report":
        assert main(["report", str(target)]) == 0
        return int(capsys.readouterr().out.split("over ")[1].split(" topic")[0])
    if reader == "stop":
        assert main(["stop", str(target), "--rule", "budget:1R+10", "--format", "json"]) == 0
        return len({row["ledger"] for row in json.loads(capsys.readouterr().out)})
    if reader == "compare":
        assert main(["compare", str(target), "--baseline", "relevance", "--format", "json"]) == 0
        return max(row["runs"] for row in json.loads(capsys.readouterr().out)["rows"])
    assert main(["plot", str(target), "--out", str(target.parent / "figure.svg")]) == 0
    return int(capsys.readouterr().out.split(" ledger")[0])


READERS = ["report", "stop", "plot", "compare"]
TOPICS = ["T1", ".hidden", "..", "../../evil"]


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_finds_ledgers_of_dotted_topics_and_folders(tmp_path, capsys, reader):
    out = tmp_path / ".x"  # a sweep collection or an output folder whose name starts with a dot
    for topic in TOPICS:
        write_ledger(out / "ledgers" / ledger_name(topic), ledger_factory.ledger_lines([1, 0, 1, 0], topic=topic))
    write_ledger(out / "ledgers" / ".legacy.jsonl", ledger_factory.ledger_lines([0, 1], topic=".legacy"))
    (out / "ledgers" / ".T2.jsonl.123.abc.partial").write_text('{"type":"header"}\n')  # a run still writing
    (out / "ledgers" / ".summary.json.x1y2.tmp").write_text("{")  # an atomic write under way
    (tmp_path / "docs.jsonl").write_text('{"docid":"d0","text":"not a ledger"}\n')
    assert seen_by(reader, out if reader == "report" else tmp_path, capsys) == len(TOPICS) + 1


def test_report_names_the_reviews_that_did_not_finish(tmp_path, capsys):
    out = tmp_path / "out"
    write_ledger(out / "ledgers" / "T1.jsonl", ledger_factory.ledger_lines([1, 0, 1, 0], topic="T1"))
    (out / "ledgers" / ".T1.jsonl.7.ab.partial").write_text('{"type":"header"}\n')  # T1 finished after all
    (out / "ledgers" / ".T2.jsonl.123.abc.partial").write_text('{"type":"header"}\n')  # killed, or still running
    assert main(["report", str(out), "--effort", "judge"]) == 0
    captured = capsys.readouterr()
    warnings = captured.err.strip().splitlines()
    assert len(warnings) == 1 and warnings[0].startswith(
        f"tarsim: warning: {out / 'ledgers' / '.T2.jsonl.123.abc.partial'}: "
    )
    assert "over 1 topic" in captured.out


# ---- 2 and 5. a ledger a reader cannot use is an error naming the file --------------------------------------------
def _lines(**kwargs) -> list[str]:
    return ledger_factory.ledger_lines([1, 0, 1, 1], topic="bad", **kwargs)


def _header_without(key: str) -> list[str]:
    lines = _lines()
    header = json.loads(lines[0])
    del header[key]
    return [json.dumps(header), *lines[1:]]


def _judgment_changed(index: int, problem: str, **fields) -> tuple[list[str], str]:
    """The lines with the index-th judgment's fields set (None: the field removed), and `problem` after its line
    number, as the error names it."""
    lines = _lines()
    positions = [i for i, line in enumerate(lines) if json.loads(line)["type"] == "judgment"]
    record = json.loads(lines[positions[index]])
    for key, value in fields.items():
        if value is None:
            del record[key]
        else:
            record[key] = value
    lines[positions[index]] = json.dumps(record)
    return lines, f":{positions[index] + 1}: {problem}"


def _without_line(number: int) -> list[str]:
    """The lines with line `number` (1-based) deleted."""
    lines = _lines()
    del lines[number - 1]
    return lines


def _with_line_twice(number: int) -> list[str]:
    """The lines with line `number` (1-based) written twice."""
    lines = _lines()
    lines.insert(number - 1, lines[number - 1])
    return lines


MISSING = "(a judgment line is missing or repeated)"
FAULTS = {
    "empty": ([], ": empty"),
    "truncated": (_lines()[:-1], "no end record"),
    "cut mid-line": ([*_lines()[:-1], _lines()[-1][:9]], ":6: invalid JSON in ledger"),
    "bad JSON": (["{not json"], ":1: invalid JSON in ledger"),
    "no relevant in header": (_header_without("relevant"), ":1: ledger header lacks 'relevant'"),
    "no config in header": (_header_without("config"), ":1: ledger header lacks 'config'"),
    "relevant too small": (_lines(relevant=0), ": header says relevant=0 but 3 judged documents are relevant"),
    "relevant negative": (_lines(relevant=-1), ":1: header says relevant=-1; it must be >= 0"),
    "a judgment's truth not a number": _judgment_changed(3, "malformed judgment record", truth="x"),
    "a judgment without its label": _judgment_changed(2, "judgment record lacks field 'label'", label=None),
    "a judgment's label a list": _judgment_changed(1, "malformed judgment record", label=[1, 2]),
    "a judgment's label 5": _judgment_changed(2, "judgment label is 5; it must be 0 or 1", label=5),
    "a negative effort": _judgment_changed(
        1,
        "judgment effort.judge is -5.0; it must be a finite number >= 0",
        effort={"judge": -5, "sent": 1, "words": 1, "seconds": 1.0},
    ),
    "a time that is not a number": _judgment_changed(
        0, "judgment time is nan; it must be a finite number >= 0", time=float("nan")
    ),
    # Lines 2-5 are the judgments seq 1-4, line 6 the end record (judgments: 4).
    "a judgment line missing": (_without_line(3), f":3: judgment seq is 3, expected 2 {MISSING}"),
    "a judgment line repeated": (_with_line_twice(3), f":4: judgment seq is 2, expected 3 {MISSING}"),
    "the last judgment line missing": (
        _without_line(5),
        ":5: end record says judgments=4 but the ledger has 3 judgment records",
    ),
    "a judgment without its seq": _judgment_changed(1, "judgment record lacks field 'seq'", seq=None),
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("fault", list(FAULTS))
def test_every_reader_refuses_an_unusable_ledger_naming_it(tmp_path, capsys, reader, fault):
    lines, problem = FAULTS[fault]
    out = tmp_path / "out"
    write_ledger(out / "ledgers" / "good.jsonl", ledger_factory.ledger_lines([1, 0], topic="good"))
    bad = write_ledger(out / "ledgers" / ".bad.jsonl", lines)  # a hidden name is no excuse to skip it
    argv = {
        "report": ["report", str(out), "--write"],
        "stop": ["stop", str(out), "--rule", "knee"],
        "plot": ["plot", str(out), "--out", str(tmp_path / "f.svg")],
        "compare": ["compare", str(out), "--baseline", "relevance"],
    }[reader]
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tarsim: error: {bad}") and problem in err and err.count("\n") == 1
    assert not (out / "summary.json").exists() and not (tmp_path / "f.svg").exists()


def test_header_check_happens_once_in_parsing():
    assert ledger_from_lines(_lines()).relevant == 3
    with pytest.raises(InputError, match=r"^<memory>: header says relevant=2 but 3 judged documents are relevant$"):
        ledger_from_lines(_lines(relevant=2))
    for key in ("topic", "collection_size"):
        with pytest.raises(InputError, match=f"lacks '{key}'"):
            ledger_from_lines(_header_without(key))
    # The same document shown twice (sentence feedback) counts once.
    repeated = ledger_factory.ledger_lines([1, 1, 0], docids=["d0", "d0", "d1"], relevant=1)
    assert ledger_from_lines(repeated).relevant == 1
    header = json.loads(_lines()[0])
    header["relevant"] = "3"
    with pytest.raises(InputError, match="'relevant' must be a JSON int, got '3'"):
        ledger_from_lines([json.dumps(header), *_lines()[1:]])


def test_judgments_are_numbered_one_two_three_in_file_order():
    """A ledger with a judgment line lost or copied (an edited or mangled file) is refused at that line rather
    than read into other numbers: seq must count 1, 2, 3, ... and the end record's `judgments` the judgments."""
    assert len(ledger_from_lines(_lines())) == 4
    lines = _lines()
    lines[2], lines[3] = lines[3], lines[2]  # two judgments swapped
    with pytest.raises(InputError, match=r"^<memory>:3: judgment seq is 3, expected 2 \(a judgment line is missing"):
        ledger_from_lines(lines)
    for value in ("2", 2.0, True, None, [2], 2**70):  # the second judgment's seq: only the integer 2 is one
        lines = _lines()
        lines[2] = json.dumps({**json.loads(lines[2]), "seq": value})
        with pytest.raises(InputError, match=r"^<memory>:3: judgment seq is .*(must be the integer 2|expected 2)"):
            ledger_from_lines(lines)
    lines = _lines()
    lines[1] = json.dumps({**json.loads(lines[1]), "seq": True})  # numpy would read [true, 2, 3, 4] as 1, 2, 3, 4
    with pytest.raises(InputError, match=r"^<memory>:2: judgment seq is True; it must be the integer 1$"):
        ledger_from_lines(lines)
    end = json.loads(_lines()[-1])
    lines = [*_lines()[:-1], json.dumps({**end, "judgments": 5})]
    with pytest.raises(InputError, match=r"^<memory>:6: end record says judgments=5 but the ledger has 4 judgment rec"):
        ledger_from_lines(lines)
    for said in ("4", None, True, 4.0):  # not a count at all: said so, not "judgments=4.0 but ... 4"
        lines = [*_lines()[:-1], json.dumps({**end, "judgments": said})]
        with pytest.raises(InputError, match=r"^<memory>:6: end record judgments is .*; it must be the integer 4$"):
            ledger_from_lines(lines)
    del end["judgments"]  # an end record without the count is not checked against it
    assert len(ledger_from_lines([*_lines()[:-1], json.dumps(end)])) == 4
    # A ledger with no judgment at all (a review that stopped at once) is numbered correctly.
    empty = ledger_factory.ledger_lines([], relevant=0)
    assert len(ledger_from_lines(empty)) == 0


# ---- 4. a closed pipe ends the command quietly --------------------------------------------------------------------
def test_broken_pipe_in_process_is_quiet(tmp_path, capsys, monkeypatch):
    write_ledger(tmp_path / "ledgers" / "a.jsonl", ledger_factory.ledger_lines([1, 0, 1], topic="a"))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader (head -1) has gone
    stdout = io.TextIOWrapper(os.fdopen(write_end, "wb"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["stop", str(tmp_path), "--rule", "knee"]) == 141
    assert capsys.readouterr().err == ""


@pytest.mark.slow
@pytest.mark.slow  # a real `python -m tarsim` process: seconds of imports
def test_tarsim_simulate_piped_into_head_exits_quietly(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-m", "tarsim", "simulate", "--topic", "T1", "--max-effort", "1R+20", "--out", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    assert process.stdout.readline()  # head -1
    process.stdout.close()
    assert process.wait(timeout=120) == 141
    assert process.stderr.read() == b""


def test_a_command_started_with_stdout_closed_warns_instead_of_a_traceback(tmp_path, monkeypatch, capsys):
    """`tarsim metrics OUT >&-`: Python sets sys.stdout to None, and the first print gave an AttributeError."""
    from tarsim.cli import main

    monkeypatch.setattr(sys, "stdout", None)
    assert main(["list", "policy"]) == 0
    assert capsys.readouterr().err == "tarsim: warning: standard output is closed: what tarsim prints there is lost\n"
