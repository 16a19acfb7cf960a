"""Sweep faults found in a user trial: Ctrl-C of forked workers stops after the runs in flight, and the docid list
that Dask and loky workers map qrels through is verified (a damaged one is rebuilt or refused, never used)."""

from __future__ import annotations

import json
import sys
import time
import warnings
from pathlib import Path

import pytest

from conftest import wait_for
from tarsim.errors import InputWarning
from tarsim.sweep.backends import _run_forked
from tarsim.sweep.docids import DocidsError, docids_path, read_docids, write_docids

pytestmark = pytest.mark.slow  # killed workers and pools

# ---- Ctrl-C --------------------------------------------------------------------------------------------------


def _slow_run(folder: str, task: int) -> int:
    """A run that marks when it starts and when it ends."""
    (Path(folder) / f"started-{task}").touch()
    time.sleep(0.2)
    (Path(folder) / f"ended-{task}").touch()
    return task


def _interrupted_at_first_result(run_all, tmp_path: Path) -> tuple[set[str], set[str]]:
    """Run 12 slow runs on 2 workers, with Ctrl-C (KeyboardInterrupt) arriving when the first run is reported."""
    import functools

    def interrupt(result):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_all(list(range(12)), functools.partial(_slow_run, str(tmp_path)), 2, interrupt, lambda *_: None)
    names = lambda prefix: {p.name.split("-")[1] for p in tmp_path.glob(f"{prefix}-*")}  # noqa: E731
    return names("started"), names("ended")


@pytest.mark.skipif(sys.platform != "linux", reason="forked workers are Linux's")
def test_ctrl_c_of_forked_workers_stops_after_the_runs_in_flight(tmp_path):
    started, ended = _interrupted_at_first_result(_run_forked, tmp_path)
    assert len(started) <= 3  # the reported run, the other worker's and at most one more; it used to run all 12
    assert ended == started  # the runs in flight finish (their ledgers are kept): workers ignore SIGINT


# ---- the docid list ------------------------------------------------------------------------------------------

DOCIDS = [f"d{i:03d}" for i in range(50)] + ["é", "a\\b", '"q"']
SHA = "ab" * 32


def _damaged(path: Path, kind: str) -> None:
    text = path.read_text(encoding="ascii")
    record = json.loads(text)
    if kind == "two docids swapped":
        record["docids"][3], record["docids"][4] = record["docids"][4], record["docids"][3]
        path.write_text(json.dumps(record), encoding="ascii")
    elif kind == "truncated":
        path.write_text(text[: len(text) // 2], encoding="ascii")
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "not UTF-8":
        path.write_bytes(text.encode()[:20] + b"\xff" + text.encode()[21:])
    elif kind == "a bare list (format 1)":
        path.write_text(json.dumps(record["docids"]), encoding="ascii")
    elif kind == "one docid dropped, count kept":
        del record["docids"][0]
        path.write_text(json.dumps(record), encoding="ascii")
    elif kind == "another collection's, checksum recomputed":
        write_docids(path.parent, DOCIDS, "cd" * 32)
        path.write_bytes(docids_path(path.parent, "cd" * 32).read_bytes())
    elif kind == "a docid changed, checksum recomputed":
        other = [*DOCIDS[:-1], "zzz"]
        other_sha = "ef" * 32
        write_docids(path.parent, other, other_sha)
        forged = json.loads(docids_path(path.parent, other_sha).read_text(encoding="ascii"))
        forged["collection"] = SHA  # a self-consistent file that claims this collection
        path.write_text(json.dumps(forged), encoding="ascii")
    else:
        raise AssertionError(kind)


KINDS = {
    "two docids swapped": "checksum mismatch",
    "truncated": "JSONDecodeError: ",
    "empty": "JSONDecodeError: ",
    "not UTF-8": "UnicodeDecodeError: ",
    "a bare list (format 1)": "format 1 (a bare list), expected 2",
    "one docid dropped, count kept": "52 docids, the file says 53",
    "another collection's, checksum recomputed": "made for another collection",
    "a docid changed, checksum recomputed": None,  # readable: only the sweep, which has the collection, can tell
}


def test_a_docid_list_round_trips_any_docid(tmp_path):
    path = write_docids(tmp_path, DOCIDS, SHA)
    assert path == tmp_path / f"docids-{SHA[:24]}-v2.json"
    assert read_docids(path, SHA) == DOCIDS
    record = json.loads(path.read_text(encoding="ascii"))
    assert record["collection"] == SHA and record["count"] == len(DOCIDS) and record["format"] == 2


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_damaged_docid_list_is_refused_by_a_worker_and_rebuilt_by_the_sweep(tmp_path, kind):
    path = write_docids(tmp_path, DOCIDS, SHA)
    _damaged(path, kind)
    reason = KINDS[kind]
    if reason is not None:
        with pytest.raises(DocidsError) as raised:
            read_docids(path, SHA)
        message = str(raised.value)
        assert message.startswith(f"{path}: unusable docid list ({reason}") and "\n" not in message
        assert raised.value.reason.startswith(reason)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert write_docids(tmp_path, DOCIDS, SHA) == path
    assert [str(w.message) for w in caught] == [
        f"cache {path} is unreadable ({raised.value.reason if reason else 'does not match the collection'}): rebuilding"
    ]
    assert all(issubclass(w.category, InputWarning) for w in caught)
    assert read_docids(path, SHA) == DOCIDS


def test_a_good_docid_list_is_kept_silently(tmp_path):
    path = write_docids(tmp_path, DOCIDS, SHA)
    before = path.stat().st_mtime_ns
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_docids(tmp_path, DOCIDS, SHA)
    assert path.stat().st_mtime_ns == before


def test_a_docid_list_error_crosses_processes_intact(tmp_path):
    import pickle

    error = pickle.loads(pickle.dumps(DocidsError(tmp_path / "x.json", "checksum mismatch")))
    assert str(error) == f"{tmp_path / 'x.json'}: unusable docid list (checksum mismatch)"


# ---- another configuration's ledgers in the output folder -------------------------------------------------------

FOREIGN_SWEEP = """\
[sweep]
seeds = 1
policies = ["{policy}"]
effort_models = ["judge"]
stopping = []

[[collections]]
path = "demo"
topics = ["T1"]

[review]
max_effort = "R"
"""


def test_a_sweep_refuses_an_output_holding_another_configuration_s_ledgers(tmp_path, capsys):
    """plot and compare read every ledger of OUT: stale runs of an earlier plan would be counted beside this one."""
    from tarsim.cli import main

    out = tmp_path / "out"
    for policy in ("relevance", "random"):
        (tmp_path / f"{policy}.toml").write_text(FOREIGN_SWEEP.format(policy=policy))
    assert main(["sweep", str(tmp_path / "relevance.toml"), "--out", str(out)]) == 0
    before = sorted(p.name for p in (out / "ledgers").iterdir())
    capsys.readouterr()
    assert main(["sweep", str(tmp_path / "random.toml"), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already holds 1 ledger(s) that are not runs of this sweep" in err[0], err
    assert sorted(p.name for p in (out / "ledgers").iterdir()) == before  # refused before anything ran
    assert main(["sweep", str(tmp_path / "relevance.toml"), "--out", str(out), "--resume"]) == 0  # its own: fine


def test_a_sweep_with_an_unwritable_cache_is_refused_in_one_line_before_any_feature_build(tmp_path, capsys):
    from tarsim.cli import main

    (tmp_path / "sweep.toml").write_text(FOREIGN_SWEEP.format(policy="relevance"))
    (tmp_path / "file").write_text("a file where the cache folder would be")
    cache = tmp_path / "file" / "cache"
    assert main(["sweep", str(tmp_path / "sweep.toml"), "--out", str(tmp_path / "out"), "--cache-dir", str(cache)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"tarsim: error: the feature cache {cache.resolve()} cannot be written (Not a directory): a sweep "
                   "keeps its workers' docid list there; give a writable --cache-dir"]  # fmt: skip
    assert not (tmp_path / "out").exists()


def test_ctrl_c_stops_forked_workers_at_once_outside_a_sweep():
    """Only a sweep's workers finish their task on Ctrl-C: a feature build's stop at once (SIGINT to the group)."""
    import os
    import signal
    import subprocess

    import psutil

    import tarsim

    code = "import time; from tarsim.runtime.pools import parallel_map; print('go', flush=True); "
    code += "parallel_map(time.sleep, [(0,), (60,)], 2, fork=True)"  # one worker idle, one busy
    env = {**os.environ, "PYTHONPATH": str(Path(tarsim.__file__).parents[1])}
    process = subprocess.Popen(
        [sys.executable, "-c", code], env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        process.stdout.readline()
        wait_for(lambda: len(psutil.Process(process.pid).children()) >= 2, 20, "two forked workers")
        time.sleep(0.3)
        started = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)
        process.wait(timeout=30)
        assert time.monotonic() - started < 10  # with workers that ignore Ctrl-C it waited for the 60 s sleeps
        err = process.stderr.read().decode()
        assert "KeyboardInterrupt" in err and "ForkProcess" not in err  # the parent's traceback only, no worker's
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)


def test_a_sweep_that_plans_no_run_is_an_error_and_writes_nothing(tmp_path, capsys):
    from tarsim.cli import main

    lines = ["title,abstract,label_included", *(f"trial {i},abstract {i},0" for i in range(6))]  # nothing relevant
    (tmp_path / "none.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "sweep.toml").write_text('[sweep]\nseeds = 1\n\n[[collections]]\npath = "none.csv"\n')
    assert main(["sweep", str(tmp_path / "sweep.toml"), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "the sweep plans no run (skipped none/none: no relevant document in the collection)" in err
    assert not (tmp_path / "out").exists()


_BIG_RESULTS = "def big(i):\n    return bytes(16_000_000)\nprint('go', flush=True)\n"
"""A forked pool's tasks whose 16 MB results keep the workers sending most of the time (after a line saying go)."""


def _signalled_while_sending(code: str, send, tries: int, seed: int) -> list[tuple[bytes, bytes]]:
    """Run `code` (which starts with _BIG_RESULTS) `tries` times, signal it a random moment after it says go (`send`:
    the process), and return each run's (stdout, stderr); a run still going 15 s after its signal fails the test."""
    import os
    import random
    import signal
    import subprocess

    import tarsim

    if sys.platform == "win32":
        pytest.skip("no fork on Windows")
    env = {**os.environ, "PYTHONPATH": str(Path(tarsim.__file__).parents[1])}
    pauses, outputs = random.Random(seed), []
    for _ in range(tries):
        process = subprocess.Popen(
            [sys.executable, "-c", code],
            env=env,
            start_new_session=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            process.stdout.readline()
            time.sleep(pauses.uniform(0.2, 0.8))  # results are being sent back most of the time
            send(process)
            process.wait(timeout=15)
            outputs.append((process.stdout.read(), process.stderr.read()))
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    return outputs


def test_ctrl_c_while_a_worker_sends_its_result_back_does_not_hang_the_parent():
    """A forked worker ended by Ctrl-C while it sent a result left half a message in the pool's result pipe, and the
    parent waited for the rest at its pool's shutdown forever (a cold build hung in 5 of 24 Ctrl-Cs; here, with 16 MB
    results, 7 of 10). Workers now end at once inside a task and between tasks only once what they send is whole."""
    import os
    import signal

    code = "from tarsim.runtime.pools import parallel_map\n" + _BIG_RESULTS
    code += "parallel_map(big, [(i,) for i in range(400)], 2, fork=True)\n"
    for _, err in _signalled_while_sending(code, lambda process: os.killpg(process.pid, signal.SIGINT), 6, 0):
        assert b"KeyboardInterrupt" in err  # the parent's own, as for any Ctrl-C


def test_workers_killed_while_they_send_results_do_not_hang_the_pools_shutdown():
    """SIGTERM ends a forked pool's workers at once (WorkerPool.stop, as for a sweep's runs): one killed while it sent a
    result left half a message that the pool's reader waited for forever, so the shutdown never returned (10 of 10
    tries with 16 MB results). Now the pool breaks and the parent goes on to its own clean-up."""
    import signal

    code = (
        "from tarsim.runtime.pools import forked_workers\n"
        "from tarsim.runtime.signals import Terminated, terminate_on_sigterm\n"
    )
    code += _BIG_RESULTS + "try:\n    with terminate_on_sigterm():\n"
    code += (
        "        with forked_workers(2, ignore_interrupt=True) as pool:\n            list(pool.map(big, range(400)))\n"
    )
    code += "except Terminated:\n    print('terminated', flush=True)\n"
    for out, _ in _signalled_while_sending(code, lambda process: process.send_signal(signal.SIGTERM), 4, 1):
        assert out == b"terminated\n"
