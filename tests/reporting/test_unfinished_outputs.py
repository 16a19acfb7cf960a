"""Reading an output folder that is not finished (a sweep interrupted before its results table, or a run still
writing it) gives one warning line saying that only the finished ledgers are read."""

from __future__ import annotations

import os

import pytest

from conftest import demo_sweep_toml, lock_held_elsewhere
from tarsim.cli import main
from tarsim.data.output_lock import output_lock, writer_of


@pytest.fixture
def swept(tmp_path, monkeypatch):
    (tmp_path / "sweep.toml").write_text(demo_sweep_toml(seeds=2))
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", "sweep.toml", "--out", "s", "--jobs", "1"]) == 0
    return tmp_path / "s"


@pytest.mark.parametrize(
    "command", [["compare", "--baseline", "relevance"], ["plot", "--out", "fig.png"], ["stop", "--rule", "knee"]]
)
@pytest.mark.slow
def test_an_interrupted_sweeps_folder_is_read_with_one_warning(swept, capsys, command):
    capsys.readouterr()
    assert main([command[0], str(swept), *command[1:]]) == 0
    assert "warning" not in capsys.readouterr().err  # finished: its results table is there
    (swept / "results.csv").unlink()  # as a sweep stopped before its table leaves it
    assert main([command[0], str(swept), *command[1:]]) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warnings == [
        f"tarsim: warning: {swept} holds no results.csv: the sweep that wrote it did not finish (rerun it with "
        "--resume to complete it); only its 2 finished ledger(s) are read"
    ]


@pytest.mark.slow
def test_a_folder_another_run_is_writing_is_read_with_one_warning(swept, capsys):
    with lock_held_elsewhere(swept) as holder:
        assert writer_of(swept) == str(holder.pid)
        capsys.readouterr()
        assert main(["compare", str(swept / "ledgers"), "--baseline", "relevance"]) == 0
        err = capsys.readouterr().err
        assert f"tarsim: warning: {swept} is being written by another tarsim process (pid {holder.pid})" in err
    assert main(["compare", str(swept), "--baseline", "relevance"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_readers_look_at_the_lock_never_refuses_a_writer(tmp_path):
    """writer_of holds the lock for an instant; a writer starting then retries instead of stopping."""
    import threading

    out = tmp_path / "out"
    out.mkdir()
    looking = threading.Event()
    looking.set()

    def look() -> None:
        while looking.is_set():
            (out / ".tarsim.lock").touch()  # a lock file left between writers, as a reader finds it
            writer_of(out)

    reader = threading.Thread(target=look)
    reader.start()
    try:
        for _ in range(300):
            with output_lock(out):
                pass
    finally:
        looking.clear()
        reader.join()


@pytest.mark.slow
def test_results_parquet_types_its_text_columns_as_strings_even_when_all_null(swept):
    """A sweep without stopping rules has no value in `stopping`: still a string column, so that two sweeps'
    results.parquet files are read together."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(swept / "results.parquet")
    for column in ("effort_model", "stopping"):
        assert pa.types.is_string(schema.field(column).type) or pa.types.is_large_string(schema.field(column).type)


@pytest.mark.parametrize(
    ("command", "notice"),
    [
        (["compare", "--baseline", "relevance"], "is being written by a review this process is stepping"),
        (["report"], "is being written by tarsim process {pid}"),  # not "finish it with --resume": it is running
    ],
)
@pytest.mark.slow
def test_a_folder_being_stepped_is_read_with_a_notice_saying_so(tmp_path, capsys, command, notice):
    import tarsim

    out = tmp_path / "out"
    tarsim.simulate(topic="T1", out=out, seed=2)
    steps = tarsim.review_rounds(topic="T2", out=out, seed=2)
    next(steps)
    try:
        capsys.readouterr()
        assert main([command[0], str(out), *command[1:]]) == 0
        err = capsys.readouterr().err
        assert f"{out} {notice.format(pid=os.getpid())}" in err and "--resume" not in err
    finally:
        steps.close()
