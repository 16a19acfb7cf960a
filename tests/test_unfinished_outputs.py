"""Reading an output folder that is not finished (a sweep interrupted before its results table, or a run still
writing it) gives one warning line saying that only the finished ledgers are read."""

from __future__ import annotations

import os

import pytest

from tarsim.cli import main
from tarsim.data.output_lock import output_lock

SWEEP = (
    '[sweep]\npolicies = ["relevance"]\nseeds = 2\neffort_models = ["judge"]\n\n'
    '[[collections]]\npath = "demo"\ntopics = ["T1"]\n\n[review]\nmax_effort = 30\n'
)


@pytest.fixture
def swept(tmp_path, monkeypatch):
    (tmp_path / "sweep.toml").write_text(SWEEP)
    monkeypatch.chdir(tmp_path)
    assert main(["sweep", "sweep.toml", "--out", "s", "--jobs", "1"]) == 0
    return tmp_path / "s"


@pytest.mark.parametrize(
    "command", [["compare", "--baseline", "relevance"], ["plot", "--out", "fig.png"], ["stop", "--rule", "knee"]]
)
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


def test_a_folder_another_run_is_writing_is_read_with_one_warning(swept, capsys):
    capsys.readouterr()
    with output_lock(swept):  # held as a running sweep or simulate holds it
        assert main(["compare", str(swept / "ledgers"), "--baseline", "relevance"]) == 0
    err = capsys.readouterr().err
    assert f"tarsim: warning: {swept} is being written by another tarsim process (pid {os.getpid()})" in err
    assert main(["compare", str(swept), "--baseline", "relevance"]) == 0
    assert "warning" not in capsys.readouterr().err
