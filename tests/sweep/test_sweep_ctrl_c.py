"""Ctrl-C on a sweep (issue 30): it says at once that it is stopping and how many runs it waits for (`sweep --jobs 2`
printed nothing for 10 s), and a second Ctrl-C ends the runs in flight now; the ledgers stay atomic (a ledger that
exists is complete, no partial file is left)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import tarsim
from conftest import wait_for
from tarsim.sweep import backends
from tarsim.sweep.backends import _run_forked

pytestmark = [
    pytest.mark.slow,  # forked pools and a real sweep
    pytest.mark.skipif(sys.platform != "linux", reason="forked workers are Linux's"),
]


def _sleepy_run(folder: str, seconds: float, task: int) -> int:
    """A run that marks when it starts and when it ends."""
    (Path(folder) / f"started-{task}").touch()
    time.sleep(seconds)
    (Path(folder) / f"ended-{task}").touch()
    return task


def _marks(folder: Path, prefix: str) -> set[str]:
    return {p.name.split("-")[1] for p in folder.glob(f"{prefix}-*")}


@contextlib.contextmanager
def ctrl_c_at(*seconds: float) -> Iterator[list[float]]:
    """SIGINT to this process (Python's KeyboardInterrupt in the main thread) at each of these times from now, by
    an interval timer: no thread, so the pool forks from a single-threaded process; forked workers inherit no timer.
    Yields the list of times (monotonic) at which each Ctrl-C was raised."""
    import tarsim.learners.estimators  # noqa: F401  (_run_forked imports scikit-learn first: seconds on a busy machine)

    times = list(seconds)
    raised: list[float] = []
    start = time.monotonic()

    def interrupt(signum, frame):
        raised.append(time.monotonic())
        if len(raised) < len(times):
            signal.setitimer(signal.ITIMER_REAL, max(times[len(raised)] - (time.monotonic() - start), 0.01))
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, times[0])
    try:
        yield raised
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture
def announced(monkeypatch) -> list[tuple[float, tuple[int, int]]]:
    """Each call of backends.announce_stopping: when, and its (running, not started) counts (it still prints)."""
    calls: list[tuple[float, tuple[int, int]]] = []
    real = getattr(backends, "announce_stopping", None)  # absent before issue 30: nothing is announced

    def record(running: int, not_started: int) -> None:
        calls.append((time.monotonic(), (running, not_started)))
        real(running, not_started)

    monkeypatch.setattr(backends, "announce_stopping", record, raising=False)
    return calls


def test_the_notice_says_how_many_runs_it_waits_for():
    from tarsim.sweep.backends import stopping_notice

    assert stopping_notice(2, 10) == (
        "tarsim: stopping: waiting for the 2 runs in progress to finish (their ledgers are kept); 10 runs not started; "
        "press Ctrl-C again to end them now"
    )
    assert "the 1 run in progress" in stopping_notice(1, 0) and "not started" not in stopping_notice(1, 0)


def test_ctrl_c_is_announced_at_once_and_the_runs_in_flight_finish(tmp_path, capsys, announced):
    run = functools.partial(_sleepy_run, str(tmp_path), 2.0)
    with ctrl_c_at(1.0) as raised, pytest.raises(KeyboardInterrupt):
        _run_forked(list(range(8)), run, 2, lambda result: None, lambda *failure: None)
    ended_at = time.monotonic()
    assert len(announced) == 1
    said_at, counts = announced[0]
    assert counts == (2, 6)
    assert said_at - raised[0] < 0.5  # at once, not after the runs in flight
    assert ended_at - said_at > 0.5  # ... which it then waited for
    assert _marks(tmp_path, "ended") == _marks(tmp_path, "started") == {"0", "1"}
    assert "tarsim: stopping: waiting for the 2 runs in progress to finish" in capsys.readouterr().err


def test_a_second_ctrl_c_ends_the_runs_in_flight_now(tmp_path, announced):
    run = functools.partial(_sleepy_run, str(tmp_path), 30.0)
    started = time.monotonic()
    with ctrl_c_at(1.0, 1.5), pytest.raises(KeyboardInterrupt):
        _run_forked(list(range(8)), run, 2, lambda result: None, lambda *failure: None)
    assert time.monotonic() - started < 15  # not the 30 s of the runs in flight
    assert [counts for _, counts in announced] == [(2, 6)]
    assert _marks(tmp_path, "started") == {"0", "1"} and not _marks(tmp_path, "ended")


# ---- a real sweep, Ctrl-C from a terminal (SIGINT to its process group) ---------------------------------------
SWEEP = """\
[sweep]
seeds = 40
policies = ["relevance"]

[[collections]]
path = "small"

[review]
until = "exhausted"
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> Path:
    from tarsim.data.collection import write_collection
    from tarsim.data.qrels import write_qrels
    from tarsim.data.topics import write_topics
    from tarsim.datasets.synthetic import SyntheticSpec, make_synthetic_dataset

    root = tmp_path_factory.mktemp("ctrl-c")
    dataset, _ = make_synthetic_dataset(SyntheticSpec(n_documents=400, seed=1))
    (root / "small").mkdir()
    write_collection(root / "small" / "docs.jsonl", dataset.collection)
    write_qrels(root / "small" / "qrels.txt", dataset.qrels)
    write_topics(root / "small" / "topics.tsv", dataset.topics)
    (root / "sweep.toml").write_text(SWEEP, encoding="utf-8")
    return root


def _ledgers(out: Path) -> dict[str, bytes]:
    folder = out / "ledgers"
    return {p.name: p.read_bytes() for p in folder.glob("*.jsonl")} if folder.is_dir() else {}


def test_a_real_sweep_says_at_once_that_it_stops(study, tmp_path):
    out, log = tmp_path / "out", tmp_path / "log"
    env = {  # no BLAS or jemalloc thread: the process stays single-threaded, so its workers are forked
        **os.environ,
        "PYTHONPATH": str(Path(tarsim.__file__).resolve().parents[1]),
        "PYTHONUNBUFFERED": "1",
        "OMP_NUM_THREADS": "1",
        "JE_ARROW_MALLOC_CONF": "background_thread:false",  # pyarrow's jemalloc starts a thread otherwise
    }
    command = [sys.executable, "-m", "tarsim", "sweep", str(study / "sweep.toml"), "--out", str(out), "--jobs", "2"]
    with open(log, "wb") as handle:
        sweep = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=handle, start_new_session=True)
    try:
        wait_for(lambda: len(_ledgers(out)) >= 2, 120, "two finished runs")
        os.killpg(sweep.pid, signal.SIGINT)  # a terminal's Ctrl-C: the sweep and its workers
        signalled = time.monotonic()
        wait_for(lambda: "tarsim: stopping: " in log.read_text(), 5, "the stopping notice")
        assert time.monotonic() - signalled < 5
        status = sweep.wait(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(sweep.pid, signal.SIGKILL)
        sweep.wait(timeout=10)
    assert status == 130
    lines = [line for line in log.read_text().splitlines() if not line.startswith("sweep: ")]  # progress lines
    assert lines[-1] == "tarsim: interrupted" and len(lines) == 2, lines
    assert lines[0].startswith("tarsim: stopping: waiting for the ") and "Ctrl-C again" in lines[0]
    for text in _ledgers(out).values():  # every ledger whole
        assert json.loads(text.splitlines()[-1])["type"] == "end"
    assert not [p for p in (out / "ledgers").iterdir() if p.name.startswith(".")]  # no partial ledger left
