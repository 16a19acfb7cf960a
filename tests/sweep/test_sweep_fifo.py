"""A FIFO where a sweep expects one of its ledgers never blocks the sweep: it is no finished run, and the run
writes its ledger in its place."""

from __future__ import annotations

import os
import signal

import pytest

from tarsim.cli import main

CONFIG = (
    '[sweep]\nseeds = 1\npolicies = ["relevance"]\nstrategies = ["document/document"]\n\n'
    '[[collections]]\npath = "demo"\ntopics = ["T1"]\n\n[review]\nmax_effort = "R"\n'
)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_at_a_runs_ledger_name_does_not_block_the_sweep(tmp_path):
    config = tmp_path / "sweep.toml"
    config.write_text(CONFIG, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["sweep", str(config), "--out", str(out), "--dry-run"]) == 0
    name = "demo__T1__relevance__document-document__seed0.jsonl"
    (out / "ledgers").mkdir(parents=True, exist_ok=True)
    os.mkfifo(out / "ledgers" / name)
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail("the sweep blocked on a FIFO"))
    signal.alarm(60)
    try:
        assert main(["sweep", str(config), "--out", str(out), "--resume"]) == 0
    finally:
        signal.alarm(0)
    assert (out / "ledgers" / name).is_file()
